//! One plan run by several generators apart (issue 15): `run --segment I/N` runs its share of
//! every workload (10 users in 3 parts are 4, 3 and 3), `--start-at` starts the parts together
//! and records how late each began, and `merge` writes one run directory whose counts are what
//! the server served, whose numbers equal `report` of the parts read together, and which lists
//! each part.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, total, uint, OutputExt, Stampede, TempRun};
use std::time::Duration;

fn plan(server: &TestServer, users: u32, iterations: u32) -> String {
    format!(
        "name: parts\nscenarios:\n  - name: browse\n    workload: {{users: {users}, iterations: {iterations}}}\n    flow:\n      - request: {{url: \"{}\", label: list}}\n      - request: {{url: \"{}\", label: item}}\n",
        server.url("/list"),
        server.url("/item")
    )
}

/// An instant `secs` from now, as `--start-at` takes it.
fn in_secs(secs: i64) -> String {
    let t = time::OffsetDateTime::now_utc() + time::Duration::seconds(secs);
    t.format(&time::format_description::well_known::Rfc3339).unwrap()
}

#[test]
fn parts_run_their_share_start_together_and_merge_to_what_was_served() {
    let server = TestServer::builder()
        .route("/list", Route::ok().delay(Duration::from_millis(2)))
        .route("/item", Route::ok().delay(Duration::from_millis(6)))
        .start();
    let run = TempRun::new("segments");
    let p = run.write("plan.yaml", plan(&server, 10, 5));
    let at = in_secs(2);
    let parts: Vec<_> = (1..=3)
        .map(|i| {
            Stampede::new()
                .arg("run")
                .arg(&p)
                .args(["-q", "--segment", &format!("{i}/3"), "--start-at", &at, "--out"])
                .arg(run.root().join(format!("part{i}")))
                .spawn()
        })
        .collect();
    for part in parts {
        part.wait(Duration::from_secs(60)).assert_exit(0);
    }
    let dir = |i: u32| run.root().join(format!("part{i}"));
    let read = |path: std::path::PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    // 4 + 3 + 3 users, each 5 iterations of 2 requests.
    for (i, users) in [(1, 4), (2, 3), (3, 3)] {
        let summary = read(dir(i).join("summary.json"));
        assert_eq!(uint(&total(&summary), "samples"), users * 5 * 2, "part {i}");
        let meta = read(dir(i).join("meta.json"));
        assert_eq!(meta["part"]["segment"], format!("{i}/3"));
        assert_eq!(meta["part"]["start_at"], at.as_str());
        let skew = meta["part"]["start_skew_ms"].as_f64().unwrap();
        assert!((0.0..1000.0).contains(&skew), "part {i} started {skew} ms after the common start");
    }

    let merged = run.root().join("merged");
    let out = Stampede::new().arg("merge").args([dir(1), dir(2), dir(3)]).arg("--out").arg(&merged).run();
    out.assert_exit(0);
    assert!(out.stdout_str().contains("| Total |"), "{}", out.stdout_str());
    let summary = read(merged.join("summary.json"));
    assert_eq!(uint(&total(&summary), "samples"), server.requests());
    assert_eq!(uint(&total(&summary), "samples"), 100);
    assert_eq!(uint(&label(&summary, "list"), "samples"), server.requests_to("/list"));
    assert_eq!(uint(&label(&summary, "item"), "samples"), server.requests_to("/item"));
    // The merged directory reports what the parts read together report: the same histograms.
    let together = Stampede::new().args(["report", "--format", "json"]).args([dir(1), dir(2), dir(3)]).run();
    together.assert_exit(0);
    let together: serde_json::Value = serde_json::from_str(&together.stdout_str()).unwrap();
    let again = Stampede::new().args(["report", "--format", "json"]).arg(&merged).run();
    let again: serde_json::Value = serde_json::from_str(&again.stdout_str()).unwrap();
    for key in ["samples", "errors", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms", "mean_ms", "bytes_received"] {
        assert_eq!(total(&again)[key], total(&together)[key], "{key}");
        assert_eq!(label(&again, "item")[key], label(&together, "item")[key], "{key}");
    }
    let meta = read(merged.join("meta.json"));
    assert_eq!(meta["parts"].as_array().unwrap().len(), 3);
    assert_eq!(meta["scenarios"].as_array().unwrap().len(), 1, "one plan's scenario, not one per part");
    let facts = Stampede::new().arg("report").arg(&merged).run().stdout_str();
    assert!(facts.contains("| Part 2/3 |") && facts.contains("after the common start"), "{facts}");
    // The merged run is a run directory: it is not overwritten.
    let again = Stampede::new().arg("merge").args([dir(1), dir(2), dir(3)]).arg("--out").arg(&merged).run();
    again.assert_exit(2);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_part_given_twice_is_refused_and_a_missing_one_is_said() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("segments-check");
    let p = run.write("plan.yaml", plan(&server, 3, 2));
    for i in [1, 3] {
        Stampede::new()
            .arg("run")
            .arg(&p)
            .args(["-q", "--segment", &format!("{i}/3"), "--out"])
            .arg(run.root().join(format!("part{i}")))
            .run()
            .assert_exit(0);
    }
    let (one, three) = (run.root().join("part1"), run.root().join("part3"));
    let twice = Stampede::new().arg("merge").args([&one, &one]).arg("--out").arg(run.root().join("m1")).run();
    twice.assert_exit(2);
    assert!(twice.stderr_str().contains("part1 is given twice"), "{}", twice.stderr_str());
    // A copy of a part is still the same segment.
    let copy = run.root().join("copy1");
    copy_dir(&one, &copy);
    let again = Stampede::new().arg("merge").args([&one, &copy]).arg("--out").arg(run.root().join("m0")).run();
    again.assert_exit(2);
    assert!(again.stderr_str().contains("segment 1/3 is given twice"), "{}", again.stderr_str());
    let report = Stampede::new().arg("report").args([&one, &copy]).run();
    report.assert_exit(2);
    let missing = Stampede::new().arg("merge").args([&one, &three]).arg("--out").arg(run.root().join("m2")).run();
    missing.assert_exit(0);
    assert!(missing.stderr_str().contains("part 2/3 of the plan is missing"), "{}", missing.stderr_str());
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.root().join("m2/summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&total(&merged), "samples"), server.requests());

    // A table for the whole, then one per group and one per run (the seed's "summary per load
    // generator group"); a group of runs not reported is refused.
    let group = format!("G={},{}", one.display(), three.display());
    let out = Stampede::new().arg("report").args([&one, &three]).args(["--by", "run", "--group", &group]).run();
    out.assert_exit(0);
    let text = out.stdout_str();
    let totals: Vec<u64> = text
        .lines()
        .filter(|l| l.starts_with("| Total |"))
        // The results tables' Samples (the latency table's Total starts with an average).
        .filter_map(|l| l.split('|').nth(2).unwrap().trim().parse().ok())
        .collect();
    // 3 users in 3 parts, 2 iterations of 2 requests: parts 1 and 3 have a user each.
    assert_eq!(totals, [8, 8, 4, 4], "{text}");
    assert!(text.contains("## G (2 runs)") && text.contains(&format!("## {}", one.display())), "{text}");
    let other = format!("H={}", run.root().join("m2").display());
    let refused = Stampede::new().arg("report").args([&one, &three]).args(["--group", &other]).run();
    refused.assert_exit(2);
    assert!(refused.stderr_str().contains("is not one of the runs reported"), "{}", refused.stderr_str());
}

#[test]
fn a_bad_segment_or_start_is_refused_and_a_past_start_starts_at_once() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("segments-args");
    let p = run.write("plan.yaml", plan(&server, 2, 1));
    for (flag, value, says) in [
        ("--segment", "4/3", "is not a segment"),
        ("--segment", "half", "is not a segment"),
        ("--start-at", "tomorrow", "is not an instant"),
        ("--start-at", &in_secs(3 * 24 * 3600), "at most a day from now"),
    ] {
        let out = Stampede::new().arg("run").arg(&p).args(["-q", flag, value, "--out"]).arg(run.path()).run();
        out.assert_exit(2);
        assert!(out.stderr_str().contains(says), "{flag} {value}: {}", out.stderr_str());
    }
    assert_eq!(server.requests(), 0);
    let out =
        Stampede::new().arg("run").arg(&p).args(["-q", "--start-at", &in_secs(-5), "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    assert_eq!(server.requests(), 4);
    let late = run.meta()["part"]["start_skew_ms"].as_f64().unwrap();
    assert!(late >= 5000.0, "a start 5 s past is 5 s late: {late}");
}

/// A part of a plan whose rate is kept by the process (a Constant Throughput Timer for all
/// active users) says that this rate is not split.
#[test]
fn a_part_says_which_rates_it_does_not_split() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("segments-rates");
    let timer = r#"<ConstantThroughputTimer guiclass="TestBeanGUI" testclass="ConstantThroughputTimer" testname="ctt" enabled="true">
          <intProp name="calcMode">1</intProp>
          <doubleProp><name>throughput</name><value>6000.0</value><savedValue>0.0</savedValue></doubleProp>
        </ConstantThroughputTimer><hashTree/>"#;
    let body = crate::jmx::sampler("r", "GET", "/r", "", false, timer);
    let plan = crate::jmx::jmx_plan(2, "2", &[crate::jmx_scripts::DEFAULTS, &body].concat());
    let p = run.write("plan.jmx", plan);
    let port = format!("port={}", server.addr().port());
    let out =
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--segment", "1/2", "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    assert!(
        out.stderr_str().contains("a Constant Throughput Timer shared by all users is kept by each generator"),
        "{}",
        out.stderr_str()
    );
    assert_eq!(server.requests(), 2, "1 of 2 users, 2 iterations");
}

/// `--data split` deals a data file's rows to the parts as users are dealt: 3 parts reading a
/// file of 10 logins until it runs out use each login exactly once between them; `whole` (the
/// default, JMeter's) gives every part every row.
#[test]
fn split_data_uses_each_row_once_across_the_parts() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("segments-split");
    let rows: String = (1..=10).map(|i| format!("user{i}\n")).collect();
    run.write("users.csv", format!("name\n{rows}"));
    let plan = format!(
        "name: logins\ndata:\n  - file: users.csv\n    on_eof: stop_user\nscenarios:\n  - name: login\n    workload: {{users: 3, iterations: 100}}\n    flow:\n      - request: {{url: \"{}\"}}\n",
        server.url("/login/${name}")
    );
    let p = run.write("plan.yaml", plan);
    for mode in ["split", "whole"] {
        let before = server.recorded_all().len();
        for i in 1..=3 {
            Stampede::new()
                .arg("run")
                .arg(&p)
                .args(["-q", "--segment", &format!("{i}/3"), "--data", mode, "--out"])
                .arg(run.root().join(format!("{mode}{i}")))
                .run()
                .assert_exit(0);
        }
        let mut got: Vec<String> = server.recorded_all()[before..].iter().map(|r| r.path().to_string()).collect();
        got.sort();
        let mut want: Vec<String> = (1..=10).map(|i| format!("/login/user{i}")).collect();
        if mode == "whole" {
            want = want.iter().flat_map(|w| [w.clone(), w.clone(), w.clone()]).collect();
        }
        want.sort();
        assert_eq!(got, want, "--data {mode}");
    }
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.root().join("split2/meta.json")).unwrap()).unwrap();
    assert_eq!(meta["part"]["data_split"], true);
}

/// Whole-plan runs started together (`--start-at` without `--segment`) are runs side by side,
/// not parts: they merge with their scenarios each kept, and every sample counted once.
#[test]
fn whole_runs_started_together_merge_side_by_side() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("segments-whole");
    let p = run.write("plan.yaml", plan(&server, 2, 3));
    let at = in_secs(1);
    let runs: Vec<_> = (1..=2)
        .map(|i| {
            Stampede::new()
                .arg("run")
                .arg(&p)
                .args(["-q", "--start-at", &at, "--out"])
                .arg(run.root().join(format!("r{i}")))
                .spawn()
        })
        .collect();
    for r in runs {
        r.wait(Duration::from_secs(60)).assert_exit(0);
    }
    let merged = run.root().join("merged");
    let (r1, r2) = (run.root().join("r1"), run.root().join("r2"));
    Stampede::new().arg("merge").args([&r1, &r2]).arg("--out").arg(&merged).run().assert_exit(0);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&total(&summary), "samples"), server.requests());
    assert_eq!(server.requests(), 2 * 2 * 3 * 2);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["scenarios"].as_array().unwrap().len(), 2);
    assert!(meta["parts"][0]["part"].get("segment").is_none(), "{meta:#}");
}
