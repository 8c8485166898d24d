//! The run directory: its files, the summary's schema, `stampede report` on finished,
//! interrupted and killed runs, Ctrl-C, secrets, and the demo.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};
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
    for f in ["meta.json", "plan.yaml", "intervals.jsonl", "summary.json"] {
        assert!(run.path().join(f).exists(), "{f} missing");
    }
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
