//! JMeter's samplers other than HTTP, FTP, sockets and WebSocket: the Access Log Sampler (entries
//! in order per thread or shared, a filter, a missing log), Debug, Dummy and Java samplers (samples
//! of their own that feed extractors, huge figures, properties kept out of the run directory), the
//! OS Process Sampler only with `--allow-commands` and its background processes ended with the run.

use crate::jmx::{jmx_plan, sampler};
use crate::util::jmx::{
    element, esc, http as http_access_log, response_assertion, run_with_jtl, test_plan, thread_group,
};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{float, label, uint, OutputExt, Stampede, TempRun};

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
    http_access_log("after", "127.0.0.1", port, &format!("/after/{group}/${{JMeterThread.last_sample_ok}}"), "GET", "")
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
            http_access_log("als", "127.0.0.1", &port, "/after/tc/${JMeterThread.last_sample_ok}", "GET", ""),
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

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
pub(crate) const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

pub(crate) fn dummy(name: &str, ok: bool, code: &str, data: &str, ms: u32, wait: bool, children: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.samplers.DummySampler guiclass="kg.apc.jmeter.samplers.DummySamplerGui" testclass="kg.apc.jmeter.samplers.DummySampler" testname="{name}" enabled="true">
          <boolProp name="WAITING">{wait}</boolProp>
          <boolProp name="SUCCESFULL">{ok}</boolProp>
          <stringProp name="RESPONSE_CODE">{code}</stringProp>
          <stringProp name="RESPONSE_MESSAGE">OK</stringProp>
          <stringProp name="REQUEST_DATA"></stringProp>
          <stringProp name="RESPONSE_DATA">{data}</stringProp>
          <stringProp name="RESPONSE_TIME">{ms}</stringProp>
          <stringProp name="LATENCY">0</stringProp>
          <stringProp name="CONNECT">0</stringProp>
        </kg.apc.jmeter.samplers.DummySampler><hashTree>{children}</hashTree>"#
    )
}

fn java(name: &str, class: &str, args: &[(&str, &str)]) -> String {
    let args: String = args
        .iter()
        .map(|(n, v)| {
            format!(
                r#"<elementProp name="{n}" elementType="Argument"><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{v}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>"#
            )
        })
        .collect();
    format!(
        r#"<JavaSampler guiclass="JavaTestSamplerGui" testclass="JavaSampler" testname="{name}" enabled="true">
          <elementProp name="arguments" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" enabled="true">
            <collectionProp name="Arguments.arguments">{args}</collectionProp>
          </elementProp>
          <stringProp name="classname">org.apache.jmeter.protocol.java.test.{class}</stringProp>
        </JavaSampler><hashTree/>"#
    )
}

pub(crate) fn regex(var: &str, re: &str) -> String {
    let default = r#"<stringProp name="RegexExtractor.default">none</stringProp>"#;
    crate::util::jmx::regex_extractor("re", var, "false", re, "$1$", default)
}

pub(crate) fn result_action(action: u32) -> String {
    format!(
        r#"<ResultAction guiclass="ResultActionGui" testclass="ResultAction" testname="Result Status Action Handler" enabled="true">
            <intProp name="OnError.action">{action}</intProp>
          </ResultAction><hashTree/>"#
    )
}

/// Debug, Dummy and Java samplers are samples of their own labels; a Dummy's response data
/// feeds an extractor whose value the next HTTP request sends; the HTTP requests alone reach
/// the server.
#[test]
fn samplers_that_send_nothing_are_samples_and_feed_extractors() {
    let server = TestServer::builder().default_route(Route::ok().body("fine").record()).start();
    let run = TempRun::new("jmx-synthetic");
    let body = [
        DEFAULTS.to_string(),
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="debug" enabled="true">
          <boolProp name="displayJMeterProperties">false</boolProp>
          <boolProp name="displayJMeterVariables">true</boolProp>
          <boolProp name="displaySystemProperties">false</boolProp>
        </DebugSampler><hashTree/>"#
            .to_string(),
        dummy("token", true, "200", "token=t${__threadNum}x", 0, false, &regex("tok", "token=(\\w+)")),
        sampler("use", "GET", "/use?tok=${tok}", "", false, ""),
        dummy("slow", true, "201", "", 40, true, ""),
        dummy("stated", true, "200", "", 5000, false, ""),
        dummy("bad", false, "500", "", 0, false, ""),
        java("java-ok", "JavaTest", &[("Sleep_Time", "5"), ("Sleep_Mask", "0"), ("ResponseCode", "200")]),
        java("java-err", "JavaTest", &[("Sleep_Time", "0"), ("Label", "renamed"), ("Status", "ERROR")]),
        java("sleep", "SleepTest", &[("SleepTime", "3"), ("SleepMask", "0")]),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &p, Some(server.addr().port()));
    let started = std::time::Instant::now();
    cmd.run().assert_exit(0);
    // "stated" says 5 s without waiting them.
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    for (label, errors) in [
        ("debug", 0),
        ("token", 0),
        ("use", 0),
        ("slow", 0),
        ("stated", 0),
        ("bad", 6),
        ("java-ok", 0),
        ("renamed", 6),
        ("sleep", 0),
    ] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 6, "{label}: {row:#}");
        assert_eq!(uint(&row, "errors"), errors, "{label}: {row:#}");
    }
    assert!(float(&run.label("slow"), "mean_ms") >= 40.0);
    assert!(float(&run.label("java-ok"), "mean_ms") >= 5.0);
    assert_eq!(float(&run.label("stated"), "mean_ms"), 5000.0);
    // Only the HTTP sampler reached the server, each with its user's token.
    assert_eq!(server.requests(), 6);
    assert_eq!(server.requests_to("/use"), 6);
    let mut toks: Vec<String> = server.recorded("/use").iter().filter_map(|r| r.query("tok")).collect();
    toks.sort();
    assert_eq!(toks, ["t1x", "t1x", "t1x", "t2x", "t2x", "t2x"]);
    // The JTL has a row per sample, with the sampler's code and success.
    let text = std::fs::read_to_string(&jtl).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 9 * 6);
    for r in rows.iter().filter(|r| r[2] == "slow") {
        assert_eq!((r[3], r[7]), ("201", "true"));
    }
    for r in rows.iter().filter(|r| r[2] == "bad") {
        assert_eq!((r[3], r[7]), ("500", "false"));
    }
}

pub(crate) fn interleave(style: u32, across: bool, children: &str) -> String {
    format!(
        r#"<InterleaveControl guiclass="InterleaveControlGui" testclass="InterleaveControl" testname="Interleave" enabled="true">
          <intProp name="InterleaveControl.style">{style}</intProp>
          <boolProp name="InterleaveControl.accrossThreads">{across}</boolProp>
        </InterleaveControl><hashTree>{children}</hashTree>"#
    )
}

pub(crate) fn loop_of(count: u32, children: &str) -> String {
    crate::util::jmx::loop_controller("loop", &count.to_string(), children)
}

pub(crate) fn test_action(action: u32) -> String {
    format!(
        r#"<TestAction guiclass="TestActionGui" testclass="TestAction" testname="act" enabled="true">
          <intProp name="ActionProcessor.action">{action}</intProp>
          <intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration"></stringProp>
        </TestAction><hashTree/>"#
    )
}

/// A plan of these elements together, run by JMeter 5.6.3 (3 threads, 5 loops): the per-label
/// counts below are those of JMeter's JTL (and the order of each thread's samples matched
/// too): Interleave across threads and not, a Recording Controller's block, a Debug Sampler,
/// "next iteration of current loop" and "break current loop" from a Flow Control Action and
/// from a Result Status Action Handler.
#[test]
fn a_plan_of_these_elements_counts_as_jmeter_5_6_3() {
    let server =
        TestServer::builder().route("/fail", Route::status(500).record()).default_route(Route::ok().record()).start();
    let port = format!("port={}", server.addr().port());
    let s = |n: &str| sampler(n, "GET", &format!("/{n}"), "", false, "");
    let rec = format!(
        r#"<RecordingController guiclass="RecordController" testclass="RecordingController" testname="rec" enabled="true"/><hashTree>{}{}</hashTree>"#,
        s("b1"),
        s("b2")
    );
    let debug =
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true"/><hashTree/>"#;
    let body = [
        DEFAULTS.to_string(),
        interleave(1, true, &[s("i0"), rec, s("i2")].concat()),
        interleave(1, false, &[s("j0"), s("j1"), s("j2"), s("j3")].concat()),
        loop_of(3, &[s("a"), test_action(4), s("a2")].concat()),
        debug.to_string(),
        loop_of(3, &[s("c"), sampler("fail", "GET", "/fail", "", false, &result_action(6)), s("d")].concat()),
        loop_of(2, &[s("g"), test_action(5), s("h")].concat()),
        s("e"),
    ]
    .concat();
    let run = TempRun::new("jmx-as-jmeter");
    let p = run.write("plan.jmx", jmx_plan(3, "5", &body));
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let jmeter = [
        ("a", 45),
        ("b1", 5),
        ("b2", 5),
        ("c", 15),
        ("dbg", 15),
        ("e", 15),
        ("fail", 15),
        ("g", 15),
        ("i0", 5),
        ("i2", 5),
        ("j0", 6),
        ("j1", 3),
        ("j2", 3),
        ("j3", 3),
    ];
    let summary = run.summary();
    let labels = summary["labels"].as_array().unwrap();
    assert_eq!(labels.len(), jmeter.len(), "{labels:#?}");
    for (label, n) in jmeter {
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
    // Every HTTP sample reached the server; the Debug Sampler's did not.
    assert_eq!(server.requests(), jmeter.iter().map(|(_, n)| n).sum::<u64>() - 15);
}

/// A Debug Sampler showing properties lists the `-J` values in its body, which no file of the
/// run directory holds.
#[test]
fn debug_sampler_properties_stay_out_of_the_run_directory() {
    let run = TempRun::new("jmx-debug-secret");
    let debug = r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true">
          <boolProp name="displayJMeterProperties">true</boolProp>
        </DebugSampler><hashTree/>"#;
    let p = run.write("plan.jmx", jmx_plan(1, "2", debug));
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "-J", "api_password=s3cr3t-debug-value", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(uint(&run.label("dbg"), "samples"), 2);
    for entry in std::fs::read_dir(run.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains("s3cr3t-debug-value"), "{}", path.display());
    }
}

/// An HTTP sampler to `${host}:${port}` with form `args` (name, value) and `children`.
pub(crate) fn http(name: &str, method: &str, path: &str, args: &[(&str, &str)], children: &str) -> String {
    let args: String = args
        .iter()
        .map(|(n, v)| {
            format!(
                r#"<elementProp name="{n}" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">true</boolProp><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{}</stringProp><stringProp name="Argument.metadata">=</stringProp><boolProp name="HTTPArgument.use_equals">true</boolProp></elementProp>"#,
                esc(v)
            )
        })
        .collect();
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">{args}</collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">${{host}}</stringProp>
          <stringProp name="HTTPSampler.port">${{port}}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">{method}</stringProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

/// An OS Process Sampler with `args` (one word each), its options as JMeter's XML has them.
fn os_process(name: &str, command: &str, args: &[&str], extra: &str, children: &str) -> String {
    let args: String = args
        .iter()
        .map(|a| {
            format!(
                r#"<elementProp name="" elementType="Argument"><stringProp name="Argument.name"></stringProp><stringProp name="Argument.value">{}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>"#,
                esc(a)
            )
        })
        .collect();
    format!(
        r#"<SystemSampler guiclass="SystemSamplerGui" testclass="SystemSampler" testname="{name}" enabled="true">
          <stringProp name="SystemSampler.command">{command}</stringProp>
          <elementProp name="SystemSampler.arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">{args}</collectionProp></elementProp>
          <elementProp name="SystemSampler.environment" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="B" elementType="Argument"><stringProp name="Argument.name">B</stringProp><stringProp name="Argument.value">2</stringProp></elementProp>
            <elementProp name="A" elementType="Argument"><stringProp name="Argument.name">A</stringProp><stringProp name="Argument.value">1</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="SystemSampler.directory"></stringProp>{extra}
        </SystemSampler><hashTree>{children}</hashTree>"#
    )
}

/// The OS Process Sampler as JMeter 5.6.3 runs it (bench/jmeter/plans/sysreq-os-process.jmx
/// agrees): the output is the response, the exit code the response code, a return code
/// other than the expected one fails the sample, a timeout kills the command and fails it.
/// Each sample is followed by `GET /after/NAME/<last sample ok>`, which the server counts.
/// Without `--allow-commands` nothing runs: `check` warns naming the flag, each sample fails,
/// `--strict` refuses the plan.
#[test]
fn an_os_process_sampler_runs_its_command_only_with_allow_commands() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port();
    let run = TempRun::new("sysreq-os-process");
    let after = |name: &str| {
        http(&format!("after {name}"), "GET", &format!("/after/{name}/${{JMeterThread.last_sample_ok}}"), &[], "")
    };
    let check = |expected: &str, timeout: &str| {
        format!(
            r#"<boolProp name="SystemSampler.checkReturnCode">true</boolProp><stringProp name="SystemSampler.expectedReturnCode">{expected}</stringProp><stringProp name="SystemSampler.timeout">{timeout}</stringProp>"#
        )
    };
    let echo_checks = [
        response_assertion("out", "Assertion.response_data", 8, "hello world\n"),
        response_assertion(
            "data",
            "Assertion.request_data",
            16,
            "\nEnvironment: {A=1, B=2}\nExecuting: echo hello world",
        ),
    ]
    .concat();
    let body = [
        os_process("echo", "echo", &["hello", "world"], "", &echo_checks),
        after("echo"),
        os_process(
            "exit3ok",
            "sh",
            &["-c", "echo out; echo err >&2; exit 3"],
            &check("3", ""),
            &response_assertion("merged", "Assertion.response_data", 8, "out\nerr\n"),
        ),
        after("exit3ok"),
        os_process("exit3bad", "sh", &["-c", "exit 3"], &check("0", ""), ""),
        after("exit3bad"),
        os_process("slow", "sleep", &["5"], &check("0", "200"), ""),
        after("slow"),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "2", &body));
    let names = ["echo", "exit3ok", "exit3bad", "slow"];

    // Without the flag: nothing runs.
    let out = Stampede::new().arg("check").arg(&file).run();
    out.assert_exit(0);
    let text = out.stdout_str();
    assert_eq!(text.matches("[WARNING] runs the command").count(), 4, "{text}");
    assert!(text.contains("only with --allow-commands"), "{text}");
    let (cmd, _) = run_with_jtl(&run, &file, Some(port));
    cmd.run().assert_exit(0);
    for name in names {
        assert_eq!(server.requests_to(&format!("/after/{name}/false")), 2, "{name}");
        let row = label(&run.summary(), name);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, 2), "{name}: {row:#}");
    }
    assert_eq!(server.requests(), 8);
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());

    // With it: run as JMeter runs them (a server of its own counts this run).
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port();
    let run2 = TempRun::new("sysreq-os-process-allowed");
    let file = run2.write("plan.jmx", jmx_plan(1, "2", &body));
    let out = Stampede::new().arg("check").arg(&file).arg("--allow-commands").run();
    out.assert_exit(0);
    assert!(!out.stdout_str().contains("[WARNING]"), "{}", out.stdout_str());
    let started = std::time::Instant::now();
    let (cmd, jtl) = run_with_jtl(&run2, &file, Some(port));
    cmd.arg("--allow-commands").run().assert_exit(0);
    assert!(started.elapsed() < std::time::Duration::from_secs(4), "the timeout cut `sleep 5`");
    let s = run2.summary();
    for (name, ok) in [("echo", true), ("exit3ok", true), ("exit3bad", false), ("slow", false)] {
        assert_eq!(server.requests_to(&format!("/after/{name}/{ok}")), 2, "{name}");
        let row = label(&s, name);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, if ok { 0 } else { 2 }), "{name}: {row:#}");
    }
    assert_eq!(server.requests(), 8);
    let rows = std::fs::read_to_string(&jtl).unwrap();
    let with = |needle: &str| rows.lines().filter(|l| l.contains(needle)).count();
    assert_eq!(with(",exit3ok,3,OK,"), 2, "{rows}");
    assert_eq!(with(",exit3bad,3,Unexpected return code.  Expected [0]. Actual [3].,"), 2, "{rows}");
    assert_eq!(with(",slow,500,Process timeout reached after 200 milliseconds,"), 2, "{rows}");
}

/// An OS Process Sampler whose command leaves a process running that holds its output open
/// (`sleep ... & echo hi`): the run's stop (`--duration 2s`, then the thread group's graceful
/// stop of 10 s) ends the wait for that output and kills the command's whole process group,
/// so stampede exits long before the `sleep` would end, the sample recorded (as many as the
/// command's own witness file counts) and no `sleep` of it left running.
#[test]
fn an_os_process_sampler_s_background_process_ends_with_the_run() {
    use std::time::{Duration, Instant};
    let run = TempRun::new("sysreq-os-process-background");
    let witness = run.root().join("ran.txt");
    // A marker no other process has: `sleep` reads it as 30.<pid> seconds.
    let marker = format!("sleep 30.{}", std::process::id());
    let script = format!("echo ran >> '{}'; {marker} & echo hi", witness.display());
    let body = os_process("bg", "sh", &["-c", &script], "", "");
    let file = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let started = Instant::now();
    let (cmd, jtl) = run_with_jtl(&run, &file, None);
    let out = cmd.args(["--allow-commands", "--duration", "2s"]).timeout(Duration::from_secs(90)).run();
    let elapsed = started.elapsed();
    let left = std::process::Command::new("pgrep").args(["-f", &marker]).output().unwrap();
    let left = String::from_utf8_lossy(&left.stdout).to_string();
    for pid in left.split_whitespace() {
        let _ = std::process::Command::new("kill").args(["-9", pid]).status();
    }
    out.assert_exit(0);
    assert!(elapsed < Duration::from_secs(25), "stampede waited for the background `sleep`: {elapsed:?}");
    assert_eq!(left.trim(), "", "the command's background process outlived the run");
    let ran = std::fs::read_to_string(&witness).unwrap().lines().count() as u64;
    assert_eq!(ran, 1);
    let rows = std::fs::read_to_string(&jtl).unwrap();
    assert_eq!(rows.lines().filter(|l| l.contains(",bg,")).count() as u64, ran, "{rows}");
    let row = label(&run.summary(), "bg");
    assert_eq!(uint(&row, "samples"), ran, "{row:#}");
}
