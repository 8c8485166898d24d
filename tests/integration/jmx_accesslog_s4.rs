//! JMeter's Access Log Sampler (#32, accesslog): each sample sends the log's next entry, as
//! JMeter 5.6.3 hands them out (bench/jmeter/plans/accesslog.jmx agrees with it): per thread
//! from the start of the log and a stop past its end (`TCLogParser`), one position for all
//! threads that starts the log again (`SharedTCLogParser`), the log again after a failed
//! sample when a filter is set; a missing log fails every sample unsent.

use crate::util::jmx::{element, esc, http, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

const PACKAGE: &str = "org.apache.jmeter.protocol.http.util.accesslog.";

/// An Access Log Sampler reading `log` with parser `parser` and filter `filter` (class names
/// in JMeter's package, or empty), sending to 127.0.0.1:`port`.
fn access_log(name: &str, port: &str, log: &str, parser: &str, filter: &str) -> String {
    let class = |c: &str| if c.is_empty() { String::new() } else { format!("{PACKAGE}{c}") };
    element(
        "AccessLogSampler",
        name,
        &[
            ("domain", "127.0.0.1"),
            ("portString", port),
            ("protocol", "http"),
            ("logFile", &esc(log)),
            ("parserClassName", &class(parser)),
            ("filterClassName", &class(filter)),
            ("imageParsing", "false"),
        ],
        "",
    )
}

/// After each access-log sample: whether it succeeded, as the witness receives it.
fn after(port: &str, group: &str) -> String {
    http("after", "127.0.0.1", port, &format!("/after/{group}/${{JMeterThread.last_sample_ok}}"), "GET", "")
}

fn log_line(request: &str) -> String {
    format!("127.0.0.1 - - [08/Jan/2003:07:03:54 -0500] \"{request}\" 200 1981\n")
}

/// Runs `plan` to its end and returns the run's (samples, errors).
fn run_plan(run: &TempRun, plan: &std::path::Path) -> (u64, u64) {
    let out = Stampede::new()
        .arg("run")
        .arg(plan)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(60))
        .run();
    out.assert_exit(0);
    let total = run.total();
    (uint(&total, "samples"), uint(&total, "errors"))
}

/// `TCLogParser` without a filter: each of 2 users sends the 4 entries in the log's order
/// (GET with its query as written, HEAD without one, POST with it as a form), then one failed
/// sample ("No entries found") and stops, though 10 iterations were asked. With
/// `SharedTCLogParser`, 3 users × 5 samples share one position that starts the log again:
/// 15 entries served, 4 + 4 + 4 + 3. The witness served every sample that is not a failure.
#[test]
fn access_log_entries_are_sent_in_order_per_thread_or_shared_and_the_end_stops_a_thread() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("accesslog");
    let log = [
        log_line("GET /al/one HTTP/1.1"),
        log_line("GET /al/two?a=1&b&c=&&d=x%20y+z HTTP/1.1"),
        "\n".to_string(),
        log_line("HEAD /al/three?q=1 HTTP/1.0"),
        log_line("POST /al/four?p=1&r=a%2Fb HTTP/1.1"),
    ]
    .concat();
    run.write("access.log", &log);
    let shared_log: String =
        ["/s/1", "/s/2", "/s/3", "/s/4"].iter().map(|p| log_line(&format!("GET {p} HTTP/1.1"))).collect();
    run.write("shared.log", &shared_log);
    let per_user = thread_group(
        "ThreadGroup",
        "tc",
        "2",
        "10",
        "",
        // The request after it shares its name: its samples keep that name.
        &[
            access_log("als", &port, "access.log", "TCLogParser", ""),
            http("als", "127.0.0.1", &port, "/after/tc/${JMeterThread.last_sample_ok}", "GET", ""),
        ]
        .concat(),
    );
    let shared = thread_group(
        "ThreadGroup",
        "shared",
        "3",
        "5",
        "",
        &access_log("shared", &port, "shared.log", "SharedTCLogParser", ""),
    );
    let props = r#"<boolProp name="TestPlan.serialize_threadgroups">true</boolProp>"#;
    let plan = run.write("plan.jmx", test_plan("Plan", props, &[per_user, shared].concat()));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("AccessLogSampler \"als\"  [supported]"), "{}", check.stdout_str());

    let (samples, errors) = run_plan(&run, &plan);
    let got = server.recorded_all();
    assert_eq!(samples - errors, server.requests(), "{got:?}");
    assert_eq!((samples, errors), (2 * 5 + 2 * 4 + 15, 2), "per user: 4 entries, 1 failure, 4 `after`s");

    let tc: Vec<String> =
        got.iter().filter(|r| r.target.starts_with("/al/")).map(|r| format!("{} {}", r.method, r.target)).collect();
    let entries = ["GET /al/one", "GET /al/two?a=1&b&c=&d=x%20y+z", "HEAD /al/three", "POST /al/four"];
    assert_eq!(tc.len(), 8, "{tc:?}");
    for e in entries {
        assert_eq!(tc.iter().filter(|t| *t == e).count(), 2, "{e}: {tc:?}");
    }
    // Each user takes them in the log's order: the n-th of an entry never comes before the
    // n-th of the one before it.
    for w in entries.windows(2) {
        let at = |e: &str, n: usize| tc.iter().enumerate().filter(|(_, t)| *t == e).nth(n).map(|(i, _)| i).unwrap();
        assert!(at(w[0], 0) < at(w[1], 0) && at(w[0], 1) < at(w[1], 1), "{tc:?}");
    }
    let post = got.iter().find(|r| r.method == "POST").unwrap();
    assert_eq!(String::from_utf8_lossy(&post.body), "p=1&r=a%2Fb");
    assert_eq!(server.requests_to("/after/tc/true"), 8);
    assert_eq!(server.requests_to("/after/tc/false"), 0, "a user stops after the failed sample");
    let shared_counts: Vec<u64> = (1..=4).map(|i| server.requests_to(&format!("/s/{i}"))).collect();
    assert_eq!(shared_counts, [4, 4, 4, 3]);
    assert_eq!(uint(&label(&run.summary(), "als"), "samples"), 8);
    let summary = run.summary().to_string();
    assert!(summary.contains(&format!("http://127.0.0.1:{port}/al/two?a=1&b&c=&d=x%20y+z")), "labelled by the URL");
}

/// With a filter (`LogFilter`, which keeps every line) the end of the log is a failed sample
/// and the log starts again: a, b, failure, a, b, failure, a. HTTP Request Defaults'
/// arguments come before the entry's. A log file that is not there fails every sample unsent
/// and the user goes on (JMeter's "Problem parsing the log file").
#[test]
fn with_a_filter_the_log_starts_again_and_a_missing_log_fails_each_sample() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("accesslog-filter");
    run.write("filter.log", [log_line("GET /fl/a?x=1 HTTP/1.1"), log_line("GET /fl/b HTTP/1.1")].concat());
    let defaults = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="defaults" enabled="true"><elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"><elementProp name="lang" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">true</boolProp><stringProp name="Argument.value">en gb</stringProp><stringProp name="Argument.metadata">=</stringProp><boolProp name="HTTPArgument.use_equals">true</boolProp><stringProp name="Argument.name">lang</stringProp></elementProp></collectionProp></elementProp></ConfigTestElement><hashTree/>"#;
    let filtered = thread_group(
        "ThreadGroup",
        "filt",
        "1",
        "7",
        "",
        &[defaults, &access_log("als", &port, "filter.log", "TCLogParser", "LogFilter")].concat(),
    );
    let missing = thread_group(
        "ThreadGroup",
        "missing",
        "1",
        "3",
        "",
        &[access_log("gone", &port, "nope.log", "TCLogParser", ""), after(&port, "missing")].concat(),
    );
    let props = r#"<boolProp name="TestPlan.serialize_threadgroups">true</boolProp>"#;
    let plan = run.write("plan.jmx", test_plan("Plan", props, &[filtered, missing].concat()));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("Problem parsing the log file"), "{}", check.stdout_str());

    let (samples, errors) = run_plan(&run, &plan);
    let got: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    assert_eq!(samples - errors, server.requests(), "{got:?}");
    assert_eq!((samples, errors), (7 + 6, 2 + 3));
    let a = "/fl/a?lang=en+gb&x=1";
    let b = "/fl/b?lang=en+gb";
    let f = "/after/missing/false";
    assert_eq!(got, [a, b, a, b, a, f, f, f]);
}
