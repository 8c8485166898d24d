//! Failures are counted in the right kinds, and bad input gets a clear message and exit code 2,
//! never a panic.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{run_plan, run_quick, uint, OutputExt, Stampede, TempRun};
use std::io::{Read, Write};
use std::net::TcpListener;

fn kinds(v: &serde_json::Value) -> serde_json::Value {
    v["errors_by_kind"].clone()
}

#[test]
fn http_500s_are_ko_and_counted_by_status() {
    let server = TestServer::builder().route("/err", Route::status(500)).start();
    let run = run_quick("http500", &server.url("/err"), &["--users", "3", "--iterations", "10"]);
    let t = run.total();
    assert_eq!(t["samples"], 30);
    assert_eq!(t["errors"], 30);
    assert_eq!(t["error_pct"], 100.0);
    assert_eq!(kinds(&t), serde_json::json!({"http_500": 30}));
    assert_eq!(server.requests(), 30);
}

#[test]
fn refused_connections_are_counted() {
    // A port that was free a moment ago: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let run = run_quick("refused", &format!("http://127.0.0.1:{port}/"), &["--users", "2", "--iterations", "3"]);
    let t = run.total();
    assert_eq!(t["samples"], 6);
    assert_eq!(kinds(&t), serde_json::json!({"refused": 6}));
    assert_eq!(t["connections_opened"], 0);
}

#[test]
fn timeouts_are_counted_and_end_the_wait() {
    let server = TestServer::builder().route("/hang", Route::hang()).start();
    let started = std::time::Instant::now();
    let run = run_quick("timeout", &server.url("/hang"), &["--users", "2", "--iterations", "2", "--timeout", "300ms"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let t = run.total();
    assert_eq!(t["samples"], 4);
    assert_eq!(kinds(&t), serde_json::json!({"timeout": 4}));
    assert_eq!(server.requests_to("/hang"), 4);
    let mean = t["mean_ms"].as_f64().unwrap();
    assert!((300.0..400.0).contains(&mean), "a timed-out sample lasts the timeout: {mean}");
}

#[test]
fn server_closed_and_reset_connections_are_counted() {
    let server = TestServer::builder().route("/close", Route::close()).route("/reset", Route::reset()).start();
    let run = run_quick("closed", &server.url("/close"), &["--users", "2", "--iterations", "5"]);
    assert_eq!(kinds(&run.total()), serde_json::json!({"closed": 10}));
    assert_eq!(server.requests_to("/close"), 10);
    let run = run_quick("reset", &server.url("/reset"), &["--users", "2", "--iterations", "5"]);
    assert_eq!(kinds(&run.total()), serde_json::json!({"reset": 10}));
    assert_eq!(server.requests_to("/reset"), 10);
}

/// A server that answers one request per connection and then closes it without saying so (no
/// `Connection: close`): the next request on the kept-alive connection meets a closed socket.
/// That is the idle-timeout race the seed studies hit with Node.js, and it must be told apart.
#[test]
fn a_kept_alive_connection_closed_by_the_server_is_reset_on_reuse() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let served = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = served.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(6) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let mut got = Vec::new();
            while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                }
            }
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK");
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    });
    // One user, 6 iterations: OK, then the reused connection fails, then a new one is OK, ...
    let run = run_quick("reuse", &format!("http://{addr}/"), &["--users", "1", "--iterations", "6"]);
    let t = run.total();
    assert_eq!(t["samples"], 6);
    assert_eq!(kinds(&t), serde_json::json!({"reset_on_reuse": 3}));
    assert_eq!(served.load(std::sync::atomic::Ordering::SeqCst), 3);
}

#[test]
fn a_response_over_the_size_limit_is_too_large() {
    let big = "x".repeat(300 * 1024);
    let server = TestServer::builder().route("/big", Route::ok().body(&big)).start();
    let run = run_plan(
        "too-large",
        &format!(
            "defaults: {{max_response_size: 100KB}}\nscenarios:\n  - workload: {{users: 1, iterations: 3}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/big")
        ),
    );
    assert_eq!(kinds(&run.total()), serde_json::json!({"too_large": 3}));
}

fn plan_error(name: &str, yaml: &str) -> String {
    let run = TempRun::new(name);
    let plan = run.write("plan.yaml", yaml);
    let out = Stampede::new().args(["run", plan.to_str().unwrap(), "-q", "--out"]).arg(run.path().join("out")).run();
    out.assert_exit(2);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("plan.yaml"), "the message names the file: {err}");
    assert!(!run.path().join("out").join("summary.json").exists());
    err
}

#[test]
fn malformed_yaml_names_line_and_column() {
    let err = plan_error("bad-yaml", "scenarios:\n  - workload: {users: 1, duration: 1s\n    flow: []\n");
    assert!(err.contains("plan.yaml:3:"), "{err}");
}

#[test]
fn unknown_field_is_named_with_the_closest_suggestion() {
    let err = plan_error(
        "unknown-field",
        "scenarios:\n  - workload: {users: 1, duraton: 1s}\n    flow: [{request: {url: 'http://127.0.0.1:9/'}}]\n",
    );
    assert!(err.contains("unknown field `duraton`") && err.contains("did you mean `duration`?"), "{err}");
    assert!(err.contains("plan.yaml:2:"), "{err}");
}

#[test]
fn a_missing_body_file_is_named() {
    let err = plan_error(
        "missing-body",
        "scenarios:\n  - workload: {users: 1, iterations: 1}\n    flow: [{request: {url: 'http://127.0.0.1:9/', body_file: data/telemetry.gz}}]\n",
    );
    assert!(err.contains("data/telemetry.gz") && err.contains("body_file"), "{err}");
}

#[test]
fn invalid_urls_and_flags_are_usage_errors() {
    for args in [
        vec!["run", "--url", "http://", "--iterations", "1"],
        vec!["run", "--url", "ftp://127.0.0.1/", "--iterations", "1"],
        vec!["run", "--url", "http://127.0.0.1:9/"],
        vec!["run", "--url", "http://127.0.0.1:9/", "--rate", "10", "--users", "2", "--duration", "1s"],
        vec!["run", "--url", "http://127.0.0.1:9/", "--duration", "soon"],
        vec!["run"],
    ] {
        let run = TempRun::new("usage");
        let out = Stampede::new().args(&args).arg("--out").arg(run.path()).run();
        out.assert_exit(2);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// #11: a non-ASCII character before a `${...}` in a URL panicked at load; the path goes on
/// the wire as browsers and JMeter send it, percent-encoded UTF-8.
#[test]
fn non_ascii_paths_with_templates_are_sent_percent_encoded() {
    let server = TestServer::builder().record_all().start();
    let run = run_plan(
        "non-ascii-url",
        &format!(
            "variables: {{id: 7}}\ndefaults: {{base_url: '{}'}}\nscenarios:\n  - workload: {{users: 1, iterations: 2}}\n    flow:\n      - request: {{url: '/café/${{id}}'}}\n      - request: {{url: '/é${{__UUID()}}'}}\n",
            server.url("/api")
        ),
    );
    assert_eq!(uint(&run.total(), "samples"), 4);
    let targets: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    assert_eq!(targets.len(), 4, "{targets:?}");
    for pair in targets.chunks(2) {
        assert_eq!(pair[0], "/api/caf%C3%A9/7");
        assert!(pair[1].starts_with("/api/%C3%A9") && pair[1].len() == "/api/%C3%A9".len() + 36, "{pair:?}");
    }
}

/// #11: a zero run time was accepted and every user still sent a request.
#[test]
fn a_zero_duration_is_refused_and_nothing_is_sent() {
    let server = TestServer::builder().route("/", Route::ok()).start();
    let run = TempRun::new("zero-duration");
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/"), "--duration", "0s", "-q", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--duration must be above zero"));
    let err = plan_error(
        "zero-duration-yaml",
        &format!(
            "scenarios:\n  - workload: {{users: 2, duration: 0s}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/")
        ),
    );
    assert!(err.contains("plan.yaml:2") && err.contains("workload.duration") && err.contains("above zero"), "{err}");
    assert_eq!(server.requests(), 0);
}

/// #11: a thread group left with no sampler (all disabled) looped forever at 100% CPU per
/// user and the run never ended; its users now end at once, as JMeter's threads do, with a
/// warning naming it, while the other thread group runs as before.
#[test]
fn a_thread_group_with_no_request_left_ends_at_once() {
    let server = TestServer::builder().route("/", Route::ok()).start();
    let group = |name: &str, loops: i32, users: u32, enabled: bool| {
        format!(
            r#"<ThreadGroup testclass="ThreadGroup" testname="{name}" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">{loops}</stringProp></elementProp>
        <stringProp name="ThreadGroup.num_threads">{users}</stringProp>
      </ThreadGroup>
      <hashTree>
        <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="{enabled}">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/</stringProp>
        </HTTPSamplerProxy>
        <hashTree/>
      </hashTree>"#,
            port = server.addr().port()
        )
    };
    let jmx = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree>
    <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
    <hashTree>{}{}</hashTree>
</hashTree></jmeterTestPlan>"#,
        group("Idle", -1, 4, false),
        group("Busy", 5, 2, true)
    );
    let run = TempRun::new("idle-group");
    let plan = run.write("plan.jmx", jmx);
    let started = std::time::Instant::now();
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--out"])
        .arg(run.path().join("out"))
        .timeout(std::time::Duration::from_secs(20))
        .run();
    out.assert_exit(0);
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("scenario \"Idle\" has no request to send: each user runs one iteration"), "{err}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.path().join("out/summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&crate::util::stampede::total(&summary), "samples"), 10);
    assert_eq!(server.requests(), 10);
    let checked = Stampede::new().arg("check").arg(&plan).run();
    checked.assert_exit(0);
    assert!(String::from_utf8_lossy(&checked.stdout).contains("scenario \"Idle\" has no request to send"));
}

#[test]
fn issue31_a_start_at_in_the_past_is_refused_past_a_small_tolerance() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("start-at-past");
    let out = Stampede::new()
        .args([
            "run",
            "--url",
            &server.url("/"),
            "--iterations",
            "1",
            "-q",
            "--start-at",
            "1970-01-01T00:00:00Z",
            "--out",
        ])
        .arg(run.path())
        .run();
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("--start-at 1970-01-01T00:00:00Z is") && err.contains("past"), "{err}");
    assert!(!run.path().join("meta.json").exists());
    assert_eq!(server.requests(), 0);
    // A part launched a moment late still starts at once, and records its skew.
    let late = time::OffsetDateTime::now_utc() - time::Duration::seconds(2);
    let at = late.format(&time::format_description::well_known::Rfc3339).unwrap();
    let run = TempRun::new("start-at-late");
    Stampede::new()
        .args(["run", "--url", &server.url("/"), "--iterations", "1", "-q", "--start-at", &at, "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let skew = run.meta()["part"]["start_skew_ms"].as_f64().unwrap();
    assert!((1_000.0..10_000.0).contains(&skew), "{skew}");
    assert_eq!(server.requests(), 1);
}
