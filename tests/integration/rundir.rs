//! The run directory: its files, the summary's schema, `stampede report` on finished,
//! interrupted and killed runs, Ctrl-C, secrets, and the demo; a run never shares or overwrites
//! another's directory; a results file cut short; a corrupt interval log.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{run_quick, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

/// The results table: the lines from `| API` to the end of the table.
fn table_of(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    let table = text.lines().skip_while(|l| !l.starts_with("| API ")).take_while(|l| l.starts_with('|'));
    table.collect::<Vec<_>>().join("\n")
}

#[test]
fn run_directory_has_meta_plan_log_and_a_summary_matching_the_schema() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("files");
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/x"), "--users", "3", "--duration", "2s", "-q", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    for f in ["meta.json", "plan.yaml", "intervals.jsonl", "summary.json", "report.html"] {
        assert!(run.path().join(f).exists(), "{f} missing");
    }
    let said = format!("HTML report: {}", run.path().join("report.html").display());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&said), "the terminal says where the HTML report is");
    let meta = run.meta();
    assert_eq!(meta["tool"], "stampede");
    assert_eq!(meta["status"], "completed");
    assert_eq!(meta["scenarios"][0]["model"], "closed");
    assert!(meta["command_line"].as_array().unwrap().iter().any(|a| a == "--users"));
    let intervals = std::fs::read_to_string(run.path().join("intervals.jsonl")).unwrap();
    assert!(intervals.lines().count() >= 2, "one line per second");

    let summary = run.summary();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/summary.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> =
        validator.iter_errors(&summary).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "summary.json does not match its schema: {errors:#?}");
    assert_eq!(summary["total"]["samples"], server.requests());

    // `report` prints the same table as the run did.
    let report = Stampede::new().args(["report"]).arg(run.path()).run();
    report.assert_exit(0);
    assert_eq!(table_of(&report.stdout), table_of(&out.stdout));
    assert!(table_of(&out.stdout).starts_with("| API "));
}

#[test]
fn ctrl_c_mid_run_keeps_everything_that_was_served() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("sigint");
    let child = Stampede::new()
        .args(["run", "--url", &server.url("/"), "--users", "10", "--duration", "60s", "-q", "--out"])
        .arg(run.path())
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.requests() < 500 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.interrupt();
    let out = child.wait(Duration::from_secs(20));
    out.assert_exit(130);
    let summary = run.summary();
    assert_eq!(summary["total"]["samples"], server.responses());
    assert_eq!(server.requests(), server.responses());
    assert_eq!(run.meta()["status"], "interrupted");
    let report = Stampede::new().args(["report"]).arg(run.path()).run();
    report.assert_exit(0);
    assert_eq!(table_of(&report.stdout), table_of(&out.stdout));
}

#[test]
fn a_killed_run_can_still_be_reported_from_its_interval_log() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(2))).start();
    let run = TempRun::new("killed");
    let child = Stampede::new()
        .args(["run", "--url", &server.url("/"), "--users", "4", "--duration", "60s", "-q", "--out"])
        .arg(run.path())
        .spawn();
    // Wait for at least two intervals on disk, then kill without warning.
    let log = run.path().join("intervals.jsonl");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill();
    assert!(!run.path().join("summary.json").exists());
    let report = Stampede::new().args(["report"]).arg(run.path()).run();
    report.assert_exit(0);
    let text = String::from_utf8_lossy(&report.stdout).into_owned();
    assert!(text.contains("| Status | did not finish — figures are from the intervals it recorded |"), "{text}");
    let total: u64 =
        text.lines().find(|l| l.starts_with("| Total")).unwrap().split('|').nth(2).unwrap().trim().parse().unwrap();
    assert!(total > 0 && total <= server.responses(), "{total} vs {}", server.responses());
}

#[test]
fn secrets_never_reach_the_run_directory_or_the_output() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("secrets");
    let plan = run.write(
        "plan.yaml",
        format!(
            "variables: {{token: '${{__P(token)}}'}}\ndefaults:\n  headers: {{Authorization: 'Bearer ${{token}}', X-Authenticated-User-Token: '${{token}}'}}\nscenarios:\n  - workload: {{users: 1, iterations: 3}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/")
        ),
    );
    let out = Stampede::new()
        .args(["run", plan.to_str().unwrap(), "-J", "token=S3CR3T-T0KEN", "-H", "Cookie: S3CR3T-C00KIE", "--out"])
        .arg(run.path())
        .run();
    // -H belongs to quick mode: a usage error, and the message must not echo the secret either.
    out.assert_exit(2);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("S3CR3T"));
    let out = Stampede::new()
        .args(["run", plan.to_str().unwrap(), "-J", "token=S3CR3T-T0KEN", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let mut seen = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    for entry in std::fs::read_dir(run.path()).unwrap() {
        seen += &std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
    }
    // The plan file we wrote holds no secret itself; the run directory's resolved plan must not either.
    assert!(!seen.contains("S3CR3T"), "a secret leaked:\n{seen}");
    assert!(std::fs::read_to_string(run.path().join("plan.yaml")).unwrap().contains("***"));
    // ...while the server did receive it.
    assert_eq!(server.requests(), 3);
}

#[test]
fn demo_runs_against_the_builtin_mock_and_agrees_with_it() {
    let run = TempRun::new("demo");
    let out = Stampede::new().args(["demo", "--duration", "2s", "--users", "8", "-q", "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let samples = run.total()["samples"].as_u64().unwrap();
    assert!(samples > 100, "{text}");
    assert!(text.contains(&format!("The mock served {samples} requests on 8 connections")), "{text}");
    for label in ["ContentRead", "SendTelemetry", "CompositeSearch", "TenantInfo"] {
        assert!(run.label(label)["samples"].as_u64().unwrap() > 0, "{label}");
    }
}

/// The run directories under `root/runs`, by name.
fn runs_under(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("runs")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    dirs
}

/// Issue 11: two runs started in the same second without `--out` each get a directory of their
/// own (`runs/<second>` and `runs/<second>-2`), and each holds its own samples, all of them.
#[test]
fn two_runs_started_in_the_same_second_never_share_a_directory() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    // Both start just after a second begins, so that they land in the same second; under heavy
    // load they may not, and the pair is tried again.
    for _attempt in 0..3 {
        let run = TempRun::new("same-second");
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        std::thread::sleep(Duration::from_nanos(u64::from(1_000_000_000 - now.subsec_nanos())));
        let (before_a, before_b) = (server.requests_to("/a"), server.requests_to("/b"));
        let spawn = |path: &str| {
            Stampede::new()
                .current_dir(run.root())
                .args(["run", "--url", &server.url(path), "--users", "2", "--iterations", "150", "-q"])
                .spawn()
        };
        let (a, b) = (spawn("/a"), spawn("/b"));
        a.wait(Duration::from_secs(60)).assert_exit(0);
        b.wait(Duration::from_secs(60)).assert_exit(0);
        let dirs = runs_under(run.root());
        assert_eq!(dirs.len(), 2, "{dirs:?}");
        let mut served = Vec::new();
        for dir in &dirs {
            let text = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
            let summary: serde_json::Value = serde_json::from_str(&text("summary.json")).unwrap();
            let path = if text("meta.json").contains("/a\"") { "/a" } else { "/b" };
            let before = if path == "/a" { before_a } else { before_b };
            assert_eq!(summary["total"]["samples"], server.requests_to(path) - before, "{}", dir.display());
            served.push(path);
        }
        served.sort();
        assert_eq!(served, ["/a", "/b"]);
        let names: Vec<String> = dirs.iter().map(|d| d.file_name().unwrap().to_string_lossy().into_owned()).collect();
        if names[1] == format!("{}-2", names[0]) {
            return;
        }
    }
    panic!("three pairs of runs never started in the same second");
}

/// Issue 11: `--out` onto a run directory (or any directory with files in it) is refused before
/// anything is sent, and the run there is untouched; `--replace` replaces it.
#[test]
fn out_onto_an_existing_run_is_refused_unless_replace_is_given() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("out-exists");
    let go = |extra: &[&str]| {
        Stampede::new()
            .args(["run", "--url", &server.url("/"), "--users", "1", "--iterations", "5", "-q", "--out"])
            .arg(run.path())
            .args(extra)
            .run()
    };
    go(&[]).assert_exit(0);
    let files = |dir: &std::path::Path| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        v.sort();
        v
    };
    let first = files(run.path());
    let again = go(&[]);
    assert_eq!(again.status.code(), Some(2), "{}", again.stderr_str());
    let says = again.stderr_str();
    assert!(
        says.contains(&format!("{} already holds a run", run.path().display())) && says.contains("--replace"),
        "{says}"
    );
    assert_eq!(files(run.path()), first, "the earlier run is untouched");
    assert_eq!(server.requests(), 5, "nothing was sent");

    // A directory holding anything else is refused too; an empty one is fine.
    let other = run.root().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let out = Stampede::new().args(["run", "--url", &server.url("/"), "-n", "1", "-q", "--out"]).arg(&other).run();
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr_str());
    assert!(out.stderr_str().contains("exists and is not empty"), "{}", out.stderr_str());
    let empty = run.root().join("empty");
    std::fs::create_dir(&empty).unwrap();
    Stampede::new().args(["run", "--url", &server.url("/"), "-n", "1", "-q", "--out"]).arg(&empty).run().assert_exit(0);
    assert_eq!(server.requests(), 6);

    // --replace: the new run replaces the old one's files.
    std::fs::write(run.path().join("keep.txt"), "kept").unwrap();
    Stampede::new()
        .args(["run", "--url", &server.url("/"), "--users", "1", "--iterations", "7", "-q", "--replace", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(run.total()["samples"], 7);
    assert_eq!(run.intervals().iter().map(|l| l["total"]["samples"].as_u64().unwrap()).sum::<u64>(), 7);
    assert_eq!(std::fs::read_to_string(run.path().join("keep.txt")).unwrap(), "kept");

    // The demo follows the same rule.
    let demo = Stampede::new().args(["demo", "--duration", "1s", "--users", "1", "-q", "--out"]).arg(run.path()).run();
    assert_eq!(demo.status.code(), Some(2), "{}", demo.stderr_str());
    assert_eq!(run.total()["samples"], 7);
}

/// Issue 11: a results file cut short (here every write fails: /dev/full) is an incomplete
/// result: exit 3, while the run directory still holds every sample.
#[test]
fn a_jtl_file_that_cannot_be_written_exits_3_and_the_run_directory_keeps_the_samples() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jtl-full");
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/"), "--users", "2", "--iterations", "50", "-q", "--jtl", "/dev/full"])
        .arg("--out")
        .arg(run.path())
        .run();
    assert_eq!(out.status.code(), Some(3), "{}", out.stderr_str());
    assert!(
        out.stderr_str().contains("the results file is incomplete: cannot write /dev/full"),
        "{}",
        out.stderr_str()
    );
    assert_eq!(run.total()["samples"], 100);
    assert_eq!(server.requests(), 100);
}

/// Issue 11: an interval line with `min_us` above `max_us` made `report` and `compare` panic; a
/// corrupt run directory is an error naming the file and line.
#[test]
fn a_corrupt_interval_log_is_an_error_naming_its_line_not_a_panic() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = run_quick("corrupt", &server.url("/"), &["--users", "1", "--iterations", "20"]);
    let log = run.path().join("intervals.jsonl");
    let mut lines: Vec<serde_json::Value> = run.intervals();
    let line = lines.iter().position(|l| l["total"]["samples"].as_u64() > Some(0)).unwrap();
    lines[line]["total"]["min_us"] = (lines[line]["total"]["max_us"].as_u64().unwrap() + 1).into();
    std::fs::write(&log, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let want = format!("{}:{}: `Total` has min_us", log.display(), line + 1);
    for args in [vec!["report"], vec!["compare"]] {
        let mut cmd = Stampede::new().args(&args).arg(run.path());
        if args[0] == "compare" {
            cmd = cmd.arg(run.path());
        }
        let out = cmd.run();
        assert_eq!(out.status.code(), Some(3), "{args:?}: {}", out.stderr_str());
        assert!(out.stderr_str().contains(&want), "{args:?}: want `{want}` in {}", out.stderr_str());
    }
}

/// A run past the seconds it keeps (a layout of 2 s of seconds and lines of 2 and 4 s, so a
/// test need not run an hour): its seconds, roll-ups and tail as a soak's; `report` of it, per
/// window and with every figure summed from the log, agrees exactly with what the server
/// served. Killed past its kept seconds, its tail holds the seconds not yet rolled up.
#[test]
fn a_run_past_the_seconds_it_keeps_reports_exactly_from_its_roll_ups() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(2))).start();
    let run = TempRun::new("rollups");
    Stampede::new()
        .env("STAMPEDE_LOG_LAYOUT", "2:2,4")
        .args(["run", "--url", &server.url("/"), "--users", "3", "--duration", "7s", "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let served = server.responses();
    let lines = |f: &str| std::fs::read_to_string(run.path().join(f)).map_or(0, |t| t.lines().count());
    assert_eq!(run.meta()["log"], serde_json::json!({"version": 2, "seconds_kept_s": 2, "rollups_s": [2, 4]}));
    assert_eq!(lines("intervals.jsonl"), 2, "the kept seconds only");
    assert!(!run.path().join("tail.jsonl").exists(), "the tail goes at the end");
    // 7 s (and the last second's few ms of graceful stop): 4 lines of 2 s, 2 of 4 s.
    assert_eq!((lines("intervals-2s.jsonl"), lines("intervals-4s.jsonl")), (4, 2));
    assert_eq!(run.total()["samples"], served);
    let samples = |args: &[&str], dir: &std::path::Path| -> u64 {
        let out = Stampede::new().arg("report").arg(dir).args(["--format", "json"]).args(args).run();
        out.assert_exit(0);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        match v.get("windows") {
            Some(w) => w.as_array().unwrap().iter().map(|w| w["summary"]["total"]["samples"].as_u64().unwrap()).sum(),
            None => v["total"]["samples"].as_u64().unwrap(),
        }
    };
    assert_eq!(samples(&["--every", "2s"], run.path()), served);
    assert_eq!(samples(&["--from", "1s"], run.path()) + samples(&["--to", "1s"], run.path()), served);
    let says = Stampede::new().arg("report").arg(run.path()).args(["--from", "3s"]).run();
    assert_eq!(says.status.code(), Some(2));
    assert!(
        says.stderr_str().contains("--from at 3 s: this run keeps its seconds for its first 2 s"),
        "{}",
        says.stderr_str()
    );
    // Every figure from the log, as after a crash: the same count.
    std::fs::remove_file(run.path().join("summary.json")).unwrap();
    assert_eq!(samples(&[], run.path()), served);

    // Killed 5 s in: the tail holds the seconds of the 2 s line in progress.
    let killed = TempRun::new("rollups-killed");
    let child = Stampede::new()
        .env("STAMPEDE_LOG_LAYOUT", "2:2,4")
        .args(["run", "--url", &server.url("/"), "--users", "3", "--duration", "60s", "-q", "--out"])
        .arg(killed.path())
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(30);
    let rolled = || std::fs::read_to_string(killed.path().join("intervals-2s.jsonl")).map_or(0, |t| t.lines().count());
    while rolled() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill();
    assert!(rolled() >= 2 && killed.path().join("tail.jsonl").exists(), "not past its kept seconds");
    let total = samples(&[], killed.path());
    assert!(total > 0 && total <= server.responses() - served, "{total} vs {}", server.responses() - served);
}

/// Copies a run directory's files into a new one.
fn copy_run(from: &std::path::Path, name: &str) -> TempRun {
    let to = TempRun::new(name);
    std::fs::create_dir_all(to.path()).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.path().join(e.file_name())).unwrap();
    }
    to
}

/// Issue 31: a rolled-up run directory damaged in any way the tiers can disagree (a roll-up
/// missing, reversed, cut mid-line or short of a line; a `log` in meta.json that lies; killed
/// and missing a tier) is read as far as it goes, with a warning naming the file and the lower
/// bound counted, and exit 3 as for a corrupt line; never a silent under-count with exit 0.
#[test]
fn issue31_a_damaged_rolled_up_run_directory_is_a_warning_naming_the_file_and_the_lower_bound_exit_3() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("damaged");
    Stampede::new()
        .env("STAMPEDE_LOG_LAYOUT", "2:2,4")
        .args(["run", "--url", &server.url("/"), "--rate", "100", "--duration", "5s", "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let served = server.responses();
    assert_eq!(run.total()["samples"], served);
    // `report --format json` (with `args`): its exit code, its samples, its stderr.
    let report = |dir: &std::path::Path, args: &[&str]| {
        let out = Stampede::new().arg("report").arg(dir).args(["--format", "json"]).args(args).run();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let samples = v.get("summary").unwrap_or(&v)["total"]["samples"].as_u64();
        (out.status.code(), samples, out.stderr_str())
    };
    // Whole, every way of reading it agrees with the server, and says nothing.
    for args in [&[][..], &["--from", "0s"], &["--every", "2s"]] {
        let (code, samples, err) = report(run.path(), args);
        assert_eq!((code, samples, err.as_str()), (Some(0), Some(served), ""), "{args:?}");
    }
    let lines = |dir: &TempRun, f: &str| -> Vec<String> {
        std::fs::read_to_string(dir.path().join(f)).unwrap().lines().map(String::from).collect()
    };
    let write = |dir: &TempRun, f: &str, lines: &[String]| {
        std::fs::write(dir.path().join(f), lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap()
    };
    let set_log = |dir: &TempRun, log: serde_json::Value| {
        let mut meta = dir.meta();
        meta["log"] = log;
        std::fs::write(dir.path().join("meta.json"), meta.to_string()).unwrap();
    };
    type Spoil<'a> = Box<dyn Fn(&TempRun) + 'a>;
    let cases: Vec<(&str, &str, Spoil)> = vec![
        (
            "missing",
            "intervals-2s.jsonl",
            Box::new(|d| std::fs::remove_file(d.path().join("intervals-2s.jsonl")).unwrap()),
        ),
        (
            "reversed",
            "intervals-4s.jsonl",
            Box::new(|d| {
                let mut l = lines(d, "intervals-4s.jsonl");
                l.reverse();
                write(d, "intervals-4s.jsonl", &l);
            }),
        ),
        (
            "cut",
            "intervals-2s.jsonl",
            Box::new(|d| {
                let text = std::fs::read_to_string(d.path().join("intervals-2s.jsonl")).unwrap();
                let second = text.find('\n').unwrap() + 1;
                std::fs::write(d.path().join("intervals-2s.jsonl"), &text[..second + 100]).unwrap();
            }),
        ),
        (
            "short",
            "intervals-4s.jsonl",
            Box::new(|d| {
                let l = lines(d, "intervals-4s.jsonl");
                write(d, "intervals-4s.jsonl", &l[..1]);
            }),
        ),
        (
            "log-leaves-a-tier-out",
            "meta.json",
            Box::new(|d| set_log(d, serde_json::json!({"version": 2, "seconds_kept_s": 2, "rollups_s": [2]}))),
        ),
        (
            "log-keeps-more-seconds",
            "intervals.jsonl",
            Box::new(|d| set_log(d, serde_json::json!({"version": 2, "seconds_kept_s": 4, "rollups_s": [2, 4]}))),
        ),
        ("no-log", "meta.json", Box::new(|d| set_log(d, serde_json::Value::Null))),
        (
            "killed-missing",
            "intervals-2s.jsonl",
            Box::new(|d| {
                std::fs::remove_file(d.path().join("summary.json")).unwrap();
                std::fs::remove_file(d.path().join("intervals-2s.jsonl")).unwrap();
            }),
        ),
    ];
    for (name, file, spoil) in cases {
        let dir = copy_run(run.path(), name);
        spoil(&dir);
        let named = dir.path().join(file).display().to_string();
        let mut counted = Vec::new();
        for args in [&[][..], &["--from", "0s"], &["--every", "2s"]] {
            let (code, samples, err) = report(dir.path(), args);
            assert_eq!(code, Some(3), "{name} {args:?}: {err}");
            assert!(
                err.contains(&format!("warning: the run directory is damaged: {named}: ")),
                "{name} {args:?}: {err}"
            );
            if args.first() == Some(&"--from") {
                // The figures summed from the log are the lower bound the warning says.
                let n = samples.unwrap_or_else(|| panic!("{name}: no report: {err}"));
                assert!(n <= served, "{name}: {n} of {served}");
                let says = if name.starts_with("killed") {
                    format!("its figures ({n} samples) are a lower bound")
                } else {
                    format!("it counts {n} of the {served} samples summary.json records: a lower bound")
                };
                assert!(err.contains(&says), "{name}: want `{says}` in {err}");
                counted.push(n);
            }
        }
        let out = Stampede::new().arg("compare").arg(run.path()).arg(dir.path()).run();
        assert_eq!(out.status.code(), Some(3), "{name}: compare: {}", out.stderr_str());
        assert!(out.stderr_str().contains(&named), "{name}: compare: {}", out.stderr_str());
        eprintln!("{name}: --from 0s counts {counted:?} of {served}");
    }
}
