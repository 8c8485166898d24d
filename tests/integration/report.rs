//! `stampede report`: a run directory or a JMeter results file as Markdown, JSON and CSV. Golden
//! files pin the formats (`UPDATE_GOLDEN=1 cargo test report` rewrites them); a JTL import is
//! checked against figures computed here from the same rows.

use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report").join(name)
}

fn golden(name: &str, actual: &str) {
    crate::util::golden::check("report", name, actual);
}

fn schema_errors(summary: &serde_json::Value) -> Vec<String> {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/summary.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    validator.iter_errors(summary).map(|e| format!("{} at {}", e, e.instance_path)).collect()
}

#[test]
fn a_jtl_file_in_every_format_matches_its_golden_file() {
    let jtl = data("small.jtl");
    for (format, ext) in [("md", "md"), ("csv", "csv"), ("json", "json")] {
        let out = Stampede::new().args(["report", "--format", format]).arg(&jtl).run();
        out.assert_exit(0);
        golden(&format!("small.{ext}"), &out.stdout_str());
    }
    let json: serde_json::Value =
        serde_json::from_str(&Stampede::new().args(["report", "--format", "json"]).arg(&jtl).run().stdout_str())
            .unwrap();
    assert_eq!(schema_errors(&json), Vec::<String>::new());
    // The transaction row has its own line but is not counted again in the Total.
    assert_eq!(uint(&json["total"], "samples"), 9);
    assert_eq!(uint(&json["total"], "errors"), 3);
}

/// One generated row: label, timeStamp, elapsed, success, bytes, sentBytes.
type Row = (String, u64, u64, bool, u64, u64);

/// A JMeter results file of `n` rows made by a fixed pseudo-random sequence.
fn generated_jtl(n: usize, header: bool) -> (String, Vec<Row>) {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut text = String::new();
    if header {
        text.push_str("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n");
    }
    let mut rows = Vec::new();
    for i in 0..n {
        let label = ["read", "search", "create"][(next() % 3) as usize].to_string();
        let ts = 1_700_000_000_000 + (i as u64) * 3 + next() % 5;
        let elapsed = 1 + next() % 900;
        let ok = next() % 20 != 0;
        let (bytes, sent) = (100 + next() % 5000, 50 + next() % 400);
        let code = if ok { "200" } else { "503" };
        text.push_str(&format!(
            "{ts},{elapsed},{label},{code},x,t 1-{},text,{ok},,{bytes},{sent},4,4,http://h/{label},{},0,0\n",
            i % 4 + 1,
            elapsed / 2
        ));
        rows.push((label, ts, elapsed, ok, bytes, sent));
    }
    (text, rows)
}

#[test]
fn a_jtl_import_agrees_with_figures_computed_from_its_rows() {
    let run = TempRun::new("report-jtl");
    let (text, rows) = generated_jtl(30_000, false);
    let file = run.write("results.jtl", text);
    let out = Stampede::new().args(["report", "--format", "json"]).arg(&file).run();
    out.assert_exit(0);
    let json: serde_json::Value = serde_json::from_str(&out.stdout_str()).unwrap();
    let check = |row: &serde_json::Value, rows: Vec<&Row>| {
        let n = rows.len() as u64;
        assert_eq!(uint(row, "samples"), n);
        assert_eq!(uint(row, "errors"), rows.iter().filter(|r| !r.3).count() as u64);
        let mut elapsed: Vec<u64> = rows.iter().map(|r| r.2).collect();
        elapsed.sort_unstable();
        let sum: u64 = elapsed.iter().sum();
        let f = |k: &str| row[k].as_f64().unwrap();
        assert!((f("mean_ms") - sum as f64 / n as f64).abs() < 1e-9);
        assert_eq!((f("min_ms"), f("max_ms")), (elapsed[0] as f64, elapsed[elapsed.len() - 1] as f64));
        // Percentiles: nearest rank, within the histogram's 0.1% resolution.
        for (k, q) in [("p50_ms", 0.50), ("p90_ms", 0.90), ("p95_ms", 0.95), ("p99_ms", 0.99)] {
            let want = elapsed[((q * n as f64).ceil() as usize).max(1) - 1] as f64;
            assert!((f(k) - want).abs() <= want * 0.001 + 1e-9, "{k}: {} vs {want}", f(k));
        }
        let first = rows.iter().map(|r| r.1).min().unwrap();
        let last = rows.iter().map(|r| r.1 + r.2).max().unwrap();
        let span_s = (last - first) as f64 / 1000.0;
        assert!((f("throughput_rps") - n as f64 / span_s).abs() < 1e-6);
        let received: u64 = rows.iter().map(|r| r.4).sum();
        let sent: u64 = rows.iter().map(|r| r.5).sum();
        assert!((f("received_kbps") - received as f64 / 1024.0 / span_s).abs() < 1e-6);
        assert!((f("sent_kbps") - sent as f64 / 1024.0 / span_s).abs() < 1e-6);
    };
    check(&json["total"], rows.iter().collect());
    for label in ["read", "search", "create"] {
        let row = json["labels"].as_array().unwrap().iter().find(|l| l["label"] == label).unwrap();
        check(row, rows.iter().filter(|r| r.0 == label).collect());
    }
    // With a header line: the same figures.
    let (with_header, _) = generated_jtl(30_000, true);
    let file = run.write("with-header.jtl", with_header);
    let again = Stampede::new().args(["report", "--format", "json"]).arg(&file).run();
    assert_eq!(again.stdout_str(), out.stdout_str());
}

#[test]
fn a_run_directory_reports_as_json_csv_and_markdown_to_a_file() {
    let server = TestServer::builder().default_route(Route::ok().body("hello")).start();
    let run = TempRun::new("report-formats");
    Stampede::new()
        .args(["run", "--url", &server.url("/r"), "-q", "--users", "2", "--iterations", "25", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let json_file = run.path().join("report.json");
    Stampede::new().args(["report", "--format", "json", "-o"]).arg(&json_file).arg(run.path()).run().assert_exit(0);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    assert_eq!(json, run.summary(), "the JSON report is the run's summary.json");
    assert_eq!(uint(&json["total"], "samples"), server.requests());
    let csv = Stampede::new().args(["report", "--format", "csv"]).arg(run.path()).run().stdout_str();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 1 + json["labels"].as_array().unwrap().len(), "{csv}");
    assert!(lines[0].starts_with("label,samples,errors,error_pct,"));
    assert!(lines[1].starts_with(&format!("Total,{},0,", server.requests())), "{csv}");
    let md = Stampede::new().args(["report"]).arg(run.path()).run().stdout_str();
    assert!(md.starts_with("### quick\n"), "{md}");
    assert!(md.lines().any(|l| l.starts_with("| API ")), "{md}");
    assert!(md.contains(&format!("**Connections:** 2 opened for {} requests", server.requests())), "{md}");
}

#[test]
fn a_file_that_is_not_a_results_file_is_an_error_naming_its_line() {
    let run = TempRun::new("report-bad");
    let file =
        run.write("bad.jtl", "timeStamp,elapsed,label,success\n1700000000000,12,A,true\n1700000000001,oops,A,true\n");
    let out = Stampede::new().args(["report"]).arg(&file).run();
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr_str());
    assert!(out.stderr_str().contains("bad.jtl:3: elapsed `oops` is not a whole number"), "{}", out.stderr_str());
}

/// A plan with a fast and a slow request and thresholds on both and on the Total.
fn threshold_plan(server: &TestServer, extra: &str) -> String {
    format!(
        "name: gates\n\
         defaults: {{base_url: '{}'}}\n\
         scenarios:\n\
         \x20 - workload: {{users: 2, iterations: 10}}\n\
         \x20   flow:\n\
         \x20     - request: {{label: fast, url: /fast}}\n\
         \x20     - request: {{label: slow, url: /slow}}\n\
         thresholds:\n\
         \x20 Total: [error_pct < 1, samples == 40]\n\
         \x20 fast: p95 < 1s\n\
         {extra}",
        server.url("")
    )
}

fn gate_server() -> TestServer {
    TestServer::builder()
        .route("/fast", Route::ok())
        .route("/slow", Route::ok().delay(std::time::Duration::from_millis(30)))
        .start()
}

#[test]
fn thresholds_gate_a_run_and_its_report_exits_1_with_junit_for_ci() {
    let server = gate_server();
    let run = TempRun::new("thresholds");
    let plan = run.write("plan.yaml", threshold_plan(&server, "  slow: [p95 < 10ms, avg >= 30ms]\n"));
    let out = Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run();
    assert_eq!(out.status.code(), Some(1), "a failed threshold exits 1\n{}", out.stderr_str());
    let stdout = out.stdout_str();
    assert!(stdout.contains("Thresholds: 4 passed, 1 failed"), "{stdout}");
    assert!(stdout.contains("- FAIL `slow: p95 < 10ms`"), "{stdout}");
    let summary = run.summary();
    assert_eq!(uint(&summary["total"], "samples"), server.requests());
    assert_eq!(schema_errors(&summary), Vec::<String>::new());
    let judged: Vec<(String, bool)> = summary["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["threshold"].as_str().unwrap().to_string(), t["passed"].as_bool().unwrap()))
        .collect();
    let expected = [
        ("error_pct < 1%", true),
        ("samples == 40", true),
        ("fast: p95 < 1000ms", true),
        ("slow: p95 < 10ms", false),
        ("slow: mean >= 30ms", true),
    ];
    assert_eq!(judged, expected.map(|(t, p)| (t.to_string(), p)));
    assert_eq!(run.meta()["thresholds"].as_array().unwrap().len(), 5, "meta.json records them for a killed run");

    // The report judges the run again and gates the same way, in every format.
    let junit = Stampede::new().args(["report", "--format", "junit"]).arg(run.path()).run();
    assert_eq!(junit.status.code(), Some(1));
    let xml = junit.stdout_str();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("not XML: {e}\n{xml}"));
    let cases: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
    assert_eq!(cases.len(), 5);
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .map(|c| c.attribute("name").unwrap())
        .collect();
    assert_eq!(failed, ["slow: p95 &lt; 10ms".replace("&lt;", "<")]);
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
    assert_eq!((suite.attribute("tests"), suite.attribute("failures")), (Some("5"), Some("1")));

    let md = Stampede::new().args(["report"]).arg(run.path()).run();
    assert_eq!(md.status.code(), Some(1));
    assert!(md.stdout_str().contains("| slow: p95 < 10ms | "), "{}", md.stdout_str());
    assert!(md.stdout_str().contains("| **FAIL** |"), "{}", md.stdout_str());

    // A goal given to `report` is judged with the run's: here one more that fails.
    let more = Stampede::new()
        .args(["report", "--format", "json", "--threshold", "fast: max < 0.001ms"])
        .arg(run.path())
        .run();
    assert_eq!(more.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&more.stdout_str()).unwrap();
    assert_eq!(json["thresholds"].as_array().unwrap().len(), 6);
    assert_eq!(json["thresholds"][5]["passed"], false);
}

#[test]
fn passing_thresholds_exit_0_and_bad_ones_are_plan_errors() {
    let server = gate_server();
    let run = TempRun::new("thresholds-pass");
    let plan = run.write("plan.yaml", threshold_plan(&server, ""));
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--threshold", "slow: p50 >= 30ms", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    assert!(out.stdout_str().contains("Thresholds: 4 passed, 0 failed"), "{}", out.stdout_str());
    Stampede::new().args(["report", "--format", "junit"]).arg(run.path()).run().assert_exit(0);

    // Mistakes are caught before anything is sent, naming where they are.
    let before = server.requests();
    for (extra, says) in [
        (
            "  slwo: p95 < 10ms\n",
            "no request or group is labelled `slwo` (use `Total` for the whole run); did you mean `slow`?",
        ),
        ("  slow: p95 < 10 parsecs\n", "unit `parsecs` does not fit p95"),
        ("  slow: [p96 < 3]\n", "unknown metric `p96`"),
    ] {
        let bad = run.write("bad.yaml", threshold_plan(&server, extra));
        let out = Stampede::new().arg("run").arg(&bad).args(["-q", "--out"]).arg(run.root().join("bad")).run();
        assert_eq!(out.status.code(), Some(2), "{}", out.stderr_str());
        assert!(out.stderr_str().contains("bad.yaml:") && out.stderr_str().contains(says), "{}", out.stderr_str());
    }
    let flag = Stampede::new().arg("run").arg(&plan).args(["-q", "--threshold", "nope: p95 < 3"]).run();
    assert_eq!(flag.status.code(), Some(2));
    assert!(flag.stderr_str().contains("no request or group labelled `nope`"), "{}", flag.stderr_str());
    assert_eq!(server.requests(), before, "a bad threshold sends nothing");
}

/// A server answering after a delay spread uniformly over 1 ms to `max_ms`: elapsed times fall
/// everywhere between whole milliseconds.
fn spread_server(max_ms: u64) -> TestServer {
    use std::time::Duration;
    TestServer::builder()
        .default_route(Route::ok().delay_range(Duration::from_millis(1), Duration::from_millis(max_ms)))
        .start()
}

/// Issue 11: a run's JTL holds whole milliseconds rounded to the nearest (not cut down), so
/// `report` of the JTL agrees with `report` of the run directory (µs-exact) within 0.5 ms.
#[test]
fn the_report_of_a_run_s_own_jtl_agrees_with_its_run_directory_within_half_a_millisecond() {
    let server = spread_server(5);
    let run = TempRun::new("jtl-rounding");
    let jtl = run.root().join("run.jtl");
    Stampede::new()
        .args(["run", "--url", &server.url("/"), "--users", "4", "--iterations", "100", "-q", "--jtl"])
        .arg(&jtl)
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let report = |source: &Path| -> serde_json::Value {
        let out = Stampede::new().args(["report", "--format", "json"]).arg(source).run();
        out.assert_exit(0);
        serde_json::from_str(&out.stdout_str()).unwrap()
    };
    let (dir, file) = (report(run.path())["total"].clone(), report(&jtl)["total"].clone());
    assert_eq!(uint(&dir, "samples"), server.requests());
    assert_eq!(uint(&file, "samples"), server.requests());
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    // Rounding each time is monotonic, so the extremes are the exact ones rounded.
    for k in ["min_ms", "max_ms"] {
        assert_eq!(f(&file, k), (f(&dir, k) + 0.5).floor(), "{k}: JTL {} vs run {}", f(&file, k), f(&dir, k));
    }
    // So is every percentile (the run's is within its histogram's 0.1%).
    for k in ["p50_ms", "p90_ms", "p95_ms", "p99_ms"] {
        let (a, b) = (f(&file, k), f(&dir, k));
        assert!((a - b).abs() <= 0.5 + b * 0.001, "{k}: JTL {a} vs run {b}");
    }
    // 400 rounding errors spread over ±0.5 ms average out (cutting down would be −0.5 ms).
    let (a, b) = (f(&file, "mean_ms"), f(&dir, "mean_ms"));
    assert!((a - b).abs() < 0.25, "mean: JTL {a} vs run {b}");
}

/// Issue 11: two runs side by side, each with its run directory and its JTL. `report` of both
/// directories, of both JTLs, and of the JTLs appended into one file (a header line mid-file)
/// report them as one: Samples equal what the server served in total, and the two JTLs read
/// as one give exactly the report of the appended file.
#[test]
fn several_run_directories_or_jtl_files_report_as_one() {
    use std::time::Duration;
    let server = spread_server(4);
    let run = TempRun::new("report-many");
    let (dir_a, dir_b) = (run.root().join("a"), run.root().join("b"));
    let (jtl_a, jtl_b) = (run.root().join("a.jtl"), run.root().join("b.jtl"));
    let spawn = |dir: &Path, jtl: &Path, users: &str| {
        Stampede::new()
            .args(["run", "--url", &server.url("/x"), "--users", users, "--iterations", "60", "-q", "--jtl"])
            .arg(jtl)
            .arg("--out")
            .arg(dir)
            .spawn()
    };
    let (a, b) = (spawn(&dir_a, &jtl_a, "2"), spawn(&dir_b, &jtl_b, "3"));
    a.wait(Duration::from_secs(60)).assert_exit(0);
    b.wait(Duration::from_secs(60)).assert_exit(0);
    assert_eq!(server.requests(), 300);
    let report = |sources: &[&Path]| -> serde_json::Value {
        let out = Stampede::new().args(["report", "--format", "json"]).args(sources).run();
        out.assert_exit(0);
        serde_json::from_str(&out.stdout_str()).unwrap()
    };
    let dirs = report(&[&dir_a, &dir_b]);
    assert_eq!(uint(&dirs["total"], "samples"), server.requests());
    assert_eq!(uint(&dirs["labels"][0], "samples"), server.requests());
    assert_eq!(dirs["scenarios"].as_array().unwrap().len(), 2);
    let files = report(&[&jtl_a, &jtl_b]);
    assert_eq!(uint(&files["total"], "samples"), server.requests());
    let appended = run.write("appended.jtl", [std::fs::read(&jtl_a).unwrap(), std::fs::read(&jtl_b).unwrap()].concat());
    assert_eq!(files, report(&[&appended]), "two files read as one are the file of all their rows");
    // The directories' µs figures and the files' whole ms agree within the files' precision.
    let f = |v: &serde_json::Value, k: &str| v["total"][k].as_f64().unwrap();
    for k in ["mean_ms", "min_ms", "max_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms"] {
        let (ms, us) = (f(&files, k), f(&dirs, k));
        assert!((ms - us).abs() <= 0.5 + us * 0.001, "{k}: JTLs {ms} vs directories {us}");
    }
    // Every format reads them; a directory and a file together are refused.
    for format in ["md", "html", "csv"] {
        Stampede::new().args(["report", "--format", format]).arg(&dir_a).arg(&dir_b).run().assert_exit(0);
    }
    let mixed = Stampede::new().arg("report").arg(&dir_a).arg(&jtl_b).run();
    assert_eq!(mixed.status.code(), Some(2), "{}", mixed.stderr_str());
    assert!(mixed.stderr_str().contains("not both"), "{}", mixed.stderr_str());
}

/// A goal marked `abort` is judged every second on the numbers so far: once it fails (after
/// its delay), the run stops as one that ends (graceful stop, not an interrupt), says why, and
/// exits 1; every request the server answered is counted. Goals without `abort` wait for the end.
#[test]
fn an_abort_threshold_stops_the_run_when_it_fails() {
    let server = TestServer::builder()
        .route("/ok", Route::ok().delay(std::time::Duration::from_millis(5)))
        .route("/bad", Route::status(500).delay(std::time::Duration::from_millis(5)))
        .start();
    let run = TempRun::new("thresholds-abort");
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: abort\ndefaults: {{base_url: '{}'}}\nscenarios:\n  - workload: {{users: 2, duration: 30s}}\n    flow:\n      - request: {{label: ok, url: /ok}}\n      - request: {{label: bad, url: /bad}}\nthresholds:\n  ok: error_pct < 1 abort\n  bad: error_pct < 1 abort after 2s\n",
            server.url("")
        ),
    );
    let started = std::time::Instant::now();
    let out = Stampede::new().arg("run").arg(&plan).args(["--out"]).arg(run.path()).run();
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_str());
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "the run went on: {:?}", started.elapsed());
    let meta = run.meta();
    let why = meta["stopped_by"].as_str().unwrap_or_default();
    assert!(why.starts_with("threshold `bad: error_pct < 1% abort after 2s` failed at "), "{meta:#}");
    assert_eq!(meta["status"], "completed", "a goal's stop is not an interrupt");
    assert!(out.stderr_str().contains("stopping the run: threshold `bad: "), "{}", out.stderr_str());
    let summary = run.summary();
    assert_eq!(uint(&summary["total"], "samples"), server.requests());
    assert_eq!(summary["thresholds"][0]["passed"], true);
    assert_eq!(summary["thresholds"][1]["passed"], false);
    // The text reads back: `report` judges the same goals.
    Stampede::new().args(["report"]).arg(run.path()).run().assert_exit(1);
}

/// `--stop-on COND for D`: the condition is checked on each second's numbers; once it has held
/// for D second after second the run stops as one that ends, says why (meta.json, stderr) and
/// exits 1. Seconds before the server fails do not count; every request served is counted.
#[test]
fn a_stop_condition_ends_the_run_once_it_held_long_enough() {
    let first = std::sync::Arc::new(std::sync::OnceLock::<std::time::Instant>::new());
    let server = TestServer::builder()
        .default_route(
            Route::handler(move |_| {
                // Healthy for 2 s from the first request, then failing.
                let t0 = *first.get_or_init(std::time::Instant::now);
                if t0.elapsed() < std::time::Duration::from_secs(2) {
                    Reply::ok()
                } else {
                    Reply::status(503)
                }
            })
            .delay(std::time::Duration::from_millis(5)),
        )
        .start();
    let run = TempRun::new("stop-on");
    let started = std::time::Instant::now();
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/s"), "--users", "2", "--duration", "60s", "-q"])
        .args(["--stop-on", "error_pct > 50 for 3s", "--stop-on", "p99 > 10s", "--out"])
        .arg(run.path())
        .run();
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_str());
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "the run went on: {took:?}");
    let meta = run.meta();
    let why = meta["stopped_by"].as_str().unwrap_or_default();
    assert!(why.starts_with("stop condition `error_pct > 50% for 3s` held from "), "{meta:#}");
    // Failing from about 2 s: held for 3 s no earlier than at 5 s.
    let to: u64 = why.split(" s to ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!((5..=8).contains(&to), "{why}");
    assert_eq!(meta["status"], "completed", "a stop condition's stop is not an interrupt");
    assert!(out.stderr_str().contains("stopping the run: stop condition"), "{}", out.stderr_str());
    let summary = run.summary();
    assert_eq!(uint(&summary["total"], "samples"), server.requests());
    assert!(uint(&summary["total"], "errors") > 0);
    // A condition on a label the plan lacks is refused before any load.
    let bad = Stampede::new()
        .args(["run", "--url", &server.url("/s"), "--iterations", "1", "--stop-on", "Nope: p95 > 1s for 5s"])
        .run();
    bad.assert_exit(2);
    assert!(bad.stderr_str().contains("no request or group labelled `Nope`"), "{}", bad.stderr_str());
    // Watched from `after` to the plan's end: a condition that always holds stops a 4 s run
    // when watched from 2 s (the second from 2 s is not the run's last, cut-short one), and
    // never when only the drain after 4 s would be watched.
    let quick = TestServer::builder().default_route(Route::ok()).start();
    let watched = |after: &str| {
        Stampede::new()
            .args(["run", "--url", &quick.url("/q"), "--users", "1", "--duration", "4s", "-q", "--stop-on"])
            .arg(format!("samples >= 0 after {after}"))
            .run()
            .status
            .code()
    };
    assert_eq!((watched("2s"), watched("4s")), (Some(1), Some(0)));
}

/// `report --from/--to`: the numbers of the seconds in the window, exactly the intervals that
/// start in it; a window past the run has nothing, and a reversed one is refused.
#[test]
fn a_window_of_a_run_reports_the_intervals_in_it() {
    let server = TestServer::builder().default_route(Route::ok().delay(std::time::Duration::from_millis(2))).start();
    let run = TempRun::new("window");
    Stampede::new()
        .args(["run", "--url", &server.url("/w"), "--users", "2", "--duration", "4s", "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let in_window: u64 = run
        .intervals()
        .iter()
        .filter(|l| (1_000_000..3_000_000).contains(&l["start_us"].as_u64().unwrap()))
        .map(|l| uint(&l["total"], "samples"))
        .sum();
    assert!(in_window > 0 && in_window < server.requests());
    let out = Stampede::new().args(["report", "--from", "1s", "--to", "3s", "--format", "json"]).arg(run.path()).run();
    out.assert_exit(0);
    let s: serde_json::Value = serde_json::from_str(&out.stdout_str()).unwrap();
    assert_eq!(uint(&s["total"], "samples"), in_window);
    // About 2 s of the run's rate: the window's own span, not the run's.
    let whole = run.total()["throughput_rps"].as_f64().unwrap();
    let windowed = s["total"]["throughput_rps"].as_f64().unwrap();
    assert!((windowed / whole - 1.0).abs() < 0.25, "{windowed} vs {whole}");
    let md = Stampede::new().args(["report", "--from", "1s", "--to", "3s"]).arg(run.path()).run();
    assert!(md.stdout_str().contains("(from 1 s to 3 s)"), "{}", md.stdout_str());
    let tail = Stampede::new().args(["report", "--from", "2s"]).arg(run.path()).run();
    assert!(tail.stdout_str().contains("(from 2 s)"), "{}", tail.stdout_str());
    let reversed = Stampede::new().args(["report", "--from", "3s", "--to", "1s"]).arg(run.path()).run();
    reversed.assert_exit(2);

    // Tables over time: each window is the report of that window (`--from/--to`), and the
    // windows add up to the run, which the server served.
    let windows = |args: &[&str]| -> serde_json::Value {
        let out = Stampede::new().args(["report", "--format", "json"]).args(args).arg(run.path()).run();
        out.assert_exit(0);
        serde_json::from_str::<serde_json::Value>(&out.stdout_str()).unwrap()["windows"].clone()
    };
    let every = windows(&["--every", "2s"]);
    let every = every.as_array().unwrap();
    assert!(every.len() >= 2, "{every:?}");
    let sum: u64 = every.iter().map(|w| uint(&w["summary"]["total"], "samples")).sum();
    assert_eq!(sum, server.requests());
    assert_eq!((every[0]["from_s"].as_f64(), every[0]["to_s"].as_f64()), (Some(0.0), Some(2.0)));
    assert_eq!(uint(&every[0]["summary"]["total"], "samples"), {
        let out = Stampede::new().args(["report", "--to", "2s", "--format", "json"]).arg(run.path()).run();
        uint(&serde_json::from_str::<serde_json::Value>(&out.stdout_str()).unwrap()["total"], "samples")
    });
    let halves = windows(&["--windows", "2", "--from", "1s", "--to", "3s"]);
    let halves = halves.as_array().unwrap();
    assert_eq!(halves.len(), 2, "{halves:?}");
    assert_eq!(halves[1]["from_s"].as_f64(), Some(2.0));
    let sum: u64 = halves.iter().map(|w| uint(&w["summary"]["total"], "samples")).sum();
    assert_eq!(sum, in_window);
    let md = Stampede::new().args(["report", "--every", "2s"]).arg(run.path()).run();
    let text = md.stdout_str();
    assert!(text.contains("## Over time") && text.contains("| 00:00:00–00:00:02 |"), "{text}");
    let csv = Stampede::new().args(["report", "--windows", "2", "--format", "csv"]).arg(run.path()).run();
    assert!(csv.stdout_str().starts_with("from_s,to_s,label,samples,"), "{}", csv.stdout_str());
    // Windows are whole seconds: 1.5 s is read as 2 s.
    assert_eq!(windows(&["--every", "1500ms"]), serde_json::Value::Array(every.clone()));
    let html = Stampede::new().args(["report", "--every", "2s", "--format", "html"]).arg(run.path()).run();
    assert!(html.stdout_str().contains("<section id=\"windows\"><h2>Tables over time</h2>"));
}
