//! JMeter's request data and the run-time failures of issue 32 (sysreq): a Response Assertion
//! on "Request Data" reads JMeter's sampler data (for HTTP the method and URL, the body as sent,
//! the cookies); an If Controller whose script does not parse is false at each evaluation; a
//! TCP Sampler with a client class that is not JMeter's connects and fails each sample. Each
//! runs the real binary against a loopback server that counts what it served.

use crate::jmx::jmx_plan;
use crate::util::jmx::{esc, response_assertion, run_with_jtl};
use crate::util::server::{Route, TestServer};
use crate::util::socket::{TcpMode, TcpServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

/// An HTTP sampler to `${host}:${port}` with form `args` (name, value) and `children`.
fn http(name: &str, method: &str, path: &str, args: &[(&str, &str)], children: &str) -> String {
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

const COOKIES: &str = r#"<CookieManager guiclass="CookiePanel" testclass="CookieManager" testname="cookies" enabled="true"><collectionProp name="CookieManager.cookies"/><boolProp name="CookieManager.clearEachIteration">false</boolProp></CookieManager><hashTree/>"#;

/// The text of JMeter's `HTTPSampleResult.getSamplerData` (checked with JMeter 5.6.3's XML
/// results, bench/jmeter/plans/sysreq-request-data.jmx): "Equals" assertions on it hold for
/// a form POST with the cookie the first response set, a HEAD (no data part) and a GET;
/// a "Substring" one that the data lacks fails each of its samples.
#[test]
fn a_request_data_assertion_reads_method_url_body_and_cookies_as_jmeter() {
    let server = TestServer::builder()
        .route("/login", Route::ok().header("Set-Cookie", "SID=s1; Path=/"))
        .default_route(Route::ok())
        .start();
    let port = server.addr().port();
    let run = TempRun::new("sysreq-request-data");
    let equals = |name: &str, text: &str| response_assertion(name, "Assertion.request_data", 8, text);
    let base = "http://${host}:${port}";
    let body = [
        COOKIES.to_string(),
        http(
            "login",
            "GET",
            "/login?x=1",
            &[],
            &response_assertion(
                "is get",
                "Assertion.request_data",
                2,
                r"^GET http://127\.0\.0\.1:\d+/login\?x=1\n\nGET data:\n\n",
            ),
        ),
        http(
            "form",
            "POST",
            "/form",
            &[("k", "v w"), ("n", "a&b")],
            &equals("form data", &format!("POST {base}/form\n\nPOST data:\nk=v+w&n=a%26b\n\nCookie Data:\nSID=s1\n")),
        ),
        http(
            "head",
            "HEAD",
            "/head",
            &[],
            &equals("head data", &format!("HEAD {base}/head\n\nCookie Data:\nSID=s1\n")),
        ),
        http(
            "get",
            "GET",
            "/get",
            &[("q", "1")],
            &equals("get data", &format!("GET {base}/get?q=1\n\nGET data:\n\n\nCookie Data:\nSID=s1\n")),
        ),
        http("miss", "GET", "/miss", &[], &response_assertion("posted", "Assertion.request_data", 16, "POST data")),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "2", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(!check.stdout_str().contains("cannot be checked"), "{}", check.stdout_str());
    let (cmd, jtl) = run_with_jtl(&run, &file, Some(port));
    cmd.run().assert_exit(0);
    assert_eq!(server.requests(), 10);
    let s = run.summary();
    for (name, errors) in [("login", 0), ("form", 0), ("head", 0), ("get", 0), ("miss", 2)] {
        let row = label(&s, name);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, errors), "{name}: {row:#}");
        assert_eq!(server.requests_to(&format!("/{name}")), 2, "{name}");
    }
    let rows = std::fs::read_to_string(&jtl).unwrap();
    assert_eq!(rows.lines().filter(|l| l.contains(",miss,") && l.contains(",false,")).count(), 2, "{rows}");
}

/// An If Controller whose JavaScript does not parse (`If condition`) loads with a warning;
/// its children never run, the samplers after it do; `--strict` refuses the plan.
#[test]
fn an_if_condition_that_does_not_parse_is_false_at_each_evaluation() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port();
    let run = TempRun::new("sysreq-if-syntax");
    let body = [
        format!(
            r#"<IfController guiclass="IfControllerPanel" testclass="IfController" testname="bad if" enabled="true"><stringProp name="IfController.condition">If condition</stringProp><boolProp name="IfController.evaluateAll">false</boolProp></IfController><hashTree>{}</hashTree>"#,
            http("never", "GET", "/never", &[], "")
        ),
        http("after", "GET", "/after", &[], ""),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let out = check.stdout_str();
    assert!(out.contains("[WARNING]") && out.contains("its children never run"), "{out}");
    let (cmd, _) = run_with_jtl(&run, &file, Some(port));
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/never"), 0);
    assert_eq!(server.requests_to("/after"), 6);
    assert_eq!(server.requests(), 6);
    assert_eq!(uint(&label(&run.summary(), "after"), "samples"), 6);
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
}

fn tcp(name: &str, class: &str, request: &str, children: &str) -> String {
    format!(
        r#"<TCPSampler guiclass="TCPSamplerGui" testclass="TCPSampler" testname="{name}" enabled="true">
          <stringProp name="TCPSampler.classname">{class}</stringProp>
          <stringProp name="TCPSampler.server">${{host}}</stringProp>
          <stringProp name="TCPSampler.port">${{port}}</stringProp>
          <boolProp name="TCPSampler.reUseConnection">true</boolProp>
          <stringProp name="TCPSampler.timeout">2000</stringProp>
          <stringProp name="TCPSampler.EolByte">10</stringProp>
          <stringProp name="TCPSampler.request">{request}</stringProp>
        </TCPSampler><hashTree>{children}</hashTree>"#
    )
}

/// A TCP Sampler whose client class is none of JMeter's (`org.foo.xxx`) loads with a warning;
/// each of its samples connects (the connection kept, as JMeter keeps it), sends nothing and
/// fails with 500 "Protocol handler not found". A TCPClientImpl sampler's request data is the
/// request it sent.
#[test]
fn a_tcp_sampler_with_an_unknown_client_class_fails_each_sample_unsent() {
    let server = TcpServer::start(TcpMode::Lines);
    let run = TempRun::new("sysreq-tcp-class");
    let body = [
        tcp("nohandler", "org.foo.xxx", "hello&#10;", ""),
        tcp("text", "TCPClientImpl", "hi&#10;", &response_assertion("sent", "Assertion.request_data", 8, "hi\n")),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let out = check.stdout_str();
    assert!(out.contains("[WARNING]") && out.contains("Protocol handler not found"), "{out}");
    let (cmd, jtl) = run_with_jtl(&run, &file, Some(server.port()));
    cmd.run().assert_exit(0);
    assert_eq!(server.messages(), 3, "only `text` sends");
    assert_eq!(server.connections(), 1, "one kept connection per user and key");
    let s = run.summary();
    assert_eq!((uint(&label(&s, "nohandler"), "samples"), uint(&label(&s, "nohandler"), "errors")), (3, 3));
    assert_eq!((uint(&label(&s, "text"), "samples"), uint(&label(&s, "text"), "errors")), (3, 0));
    let rows = std::fs::read_to_string(&jtl).unwrap();
    let failed = rows.lines().filter(|l| l.contains(",nohandler,500,Protocol handler not found,")).count();
    assert_eq!(failed, 3, "{rows}");
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
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
