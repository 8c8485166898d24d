//! Plans JMeter loads that go wrong only at run time (#32): stampede loads them too and runs
//! them as JMeter does, failing at run time what JMeter fails, with its codes and messages.

use crate::jmx::jmx_plan;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

fn sampler(name: &str, domain: &str, port: &str, path: &str, children: &str) -> String {
    crate::util::jmx::http(name, domain, port, path, "GET", children)
}

/// Runs `file` quietly into `run` with a results file; returns the JTL's text.
fn run_jtl(run: &TempRun, file: &std::path::Path) -> String {
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(run, file, None);
    cmd.run().assert_exit(0);
    std::fs::read_to_string(&jtl).unwrap()
}

/// JTL rows of `name` that failed with `code` and `message` (JMeter's "Non HTTP" pair).
fn failed_rows(rows: &str, name: &str, class: &str, message: &str) -> usize {
    let want = format!(",{name},Non HTTP response code: {class},Non HTTP response message: {message},");
    rows.lines().filter(|l| l.contains(&want) && l.contains(",false,")).count()
}

/// Row 1: a host left as an unfilled `[placeholder]` (in the server name, in a full URL in the
/// path, or filled so by a variable while running) loads; each of its samples fails unsent
/// with java.net's message, as in JMeter 5.6.3, and the user goes on to the next sample.
#[test]
fn an_unfilled_placeholder_host_fails_each_sample_and_the_user_goes_on() {
    let server = TestServer::builder().route("/ok", Route::ok().body("host=[Foo]")).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-placeholder-host");
    let extract = r#"<RegexExtractor testclass="RegexExtractor" testname="host" enabled="true">
        <stringProp name="RegexExtractor.refname">h</stringProp>
        <stringProp name="RegexExtractor.regex">host=(.*)</stringProp>
        <stringProp name="RegexExtractor.template">$1$</stringProp>
        <stringProp name="RegexExtractor.match_number">1</stringProp>
      </RegexExtractor><hashTree/>"#;
    let body = [
        sampler("domain", "[HostName]", "", "/a", ""),
        sampler("full", "", "", "https://[HostName]/p?x=1", ""),
        sampler("ok", "127.0.0.1", &port, "/ok", extract),
        sampler("late", "${h}", &port, "/v", ""),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("[WARNING] each sample fails unsent"), "{}", check.stdout_str());
    let rows = run_jtl(&run, &file);
    assert_eq!(server.requests(), 3, "only `ok` reaches the server");
    assert_eq!(server.requests_to("/ok"), 3);
    let uri = "java.net.URISyntaxException";
    assert_eq!(
        failed_rows(&rows, "domain", uri, "Malformed IPv6 address at index 8: http://[HostName]/a"),
        3,
        "{rows}"
    );
    assert_eq!(failed_rows(&rows, "full", "java.net.MalformedURLException", "Invalid host: [HostName]"), 3, "{rows}");
    let late = format!("Malformed IPv6 address at index 8: http://[Foo]:{port}/v");
    assert_eq!(failed_rows(&rows, "late", uri, &late), 3, "{rows}");
    let s = run.summary();
    assert_eq!(uint(&label(&s, "ok"), "errors"), 0);
    assert_eq!(uint(&label(&s, "late"), "errors"), 3);
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
}

/// A POST whose raw body is `body` (XML-escaped by the caller).
fn raw_post(name: &str, port: &str, path: &str, body: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <boolProp name="HTTPSampler.postBodyRaw">true</boolProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="" elementType="HTTPArgument"><stringProp name="Argument.value">{body}</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    )
}

/// Row 5: JMeter's function parser ends a call's arguments at the `)` that closes it, so
/// `${__P(X,0})}` has the default `0}`; a nested `(...)` is text; `\,` is a comma, `\)` keeps
/// its backslash; a `${` never closed is its text. The bodies are what JMeter 5.6.3 sent.
#[test]
fn function_arguments_are_read_as_jmeter_s_parser_reads_them() {
    let server = TestServer::builder().route("/p", Route::ok().record()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-function-parser");
    let cases = [
        (r"c=${__P(X,0})}", "c=0}"),
        (r"e=${__P(x,(a)b)}", "e=(a)b"),
        (r"f=${__P(x,a\,b)}", "f=a,b"),
        (r"g=${__P(x,a\)b)}", r"g=a\)b"),
        (r"s=${__P(x,)}", "s="),
        (r"t=${__P(x,0})} ${__P(y,1)}", "t=0} 1"),
        (r"a=${host", "a=host"),
        (r"h=\${x}", r"h=\${x}"),
    ];
    let body: String = cases.iter().map(|(src, _)| raw_post("p", &port, "/p", src)).collect();
    let file = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let rows = run_jtl(&run, &file);
    assert_eq!(server.requests_to("/p"), cases.len() as u64, "{rows}");
    let got: Vec<String> =
        server.recorded("/p").iter().map(|r| String::from_utf8_lossy(&r.body).into_owned()).collect();
    let want: Vec<&str> = cases.iter().map(|(_, w)| *w).collect();
    assert_eq!(got, want);
}

/// A thread group of one user, `loops` passes, `props` inside it, holding `body`.
fn group(name: &str, loops: &str, props: &str, body: &str) -> String {
    crate::util::jmx::thread_group("ThreadGroup", name, "1", loops, props, body)
}

fn plan_of_groups(groups: &str) -> String {
    crate::util::jmx::test_plan("Plan", "", groups)
}

/// Rows 6 and 7: an undefined `${var}` where JMeter wants a number, and an empty If condition,
/// load and run as JMeter 5.6.3 ran the same plan (its served counts per path): a loop count
/// of 0, a group with no scheduled duration not started, a Throughput Controller's defaults
/// (100 percent, 1 execution), no pause, an empty condition false; a Constant Throughput Timer
/// of no number holds its user until the group's scheduled end.
#[test]
fn numbers_that_are_no_number_and_an_empty_condition_run_as_in_jmeter() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-numbers");
    let u = "${undef}";
    let get = |path: &str| sampler(path, "127.0.0.1", &port, &format!("/{path}"), "");
    let sched = |d: &str| {
        format!(
            r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{d}</stringProp>"#
        )
    };
    let ifc = |name: &str, expr: bool| {
        format!(
            r#"<IfController testclass="IfController" testname="{name}" enabled="true"><stringProp name="IfController.condition"></stringProp><boolProp name="IfController.useExpression">{expr}</boolProp></IfController><hashTree>{}</hashTree>"#,
            get(&format!("{name}_child"))
        )
    };
    let controllers = format!(
        r#"<ThroughputController testclass="ThroughputController" testname="percent" enabled="true"><intProp name="ThroughputController.style">1</intProp><stringProp name="ThroughputController.percentThroughput">{u}</stringProp></ThroughputController><hashTree>{}</hashTree>
        <ThroughputController testclass="ThroughputController" testname="total" enabled="true"><intProp name="ThroughputController.style">0</intProp><stringProp name="ThroughputController.maxThroughput">{u}</stringProp></ThroughputController><hashTree>{}</hashTree>
        <TestAction testclass="TestAction" testname="pause" enabled="true"><intProp name="ActionProcessor.action">1</intProp><stringProp name="ActionProcessor.duration">{u}</stringProp></TestAction><hashTree/>
        {}{}{}"#,
        get("tp_child"),
        get("tt_child"),
        ifc("if_js", false),
        ifc("if_exp", true),
        get("after"),
    );
    let ctt = format!(
        r#"<ConstantThroughputTimer testclass="ConstantThroughputTimer" testname="ctt" enabled="true"><stringProp name="throughput">{u}</stringProp></ConstantThroughputTimer><hashTree/>{}"#,
        get("ctt")
    );
    let groups = [
        group("loops", u, "", &get("loops")),
        group("duration", "2", &sched(u), &get("duration")),
        group("controllers", "2", "", &controllers),
        group("ctt", "-1", &sched("1"), &ctt),
    ]
    .concat();
    let file = run.write("plan.jmx", plan_of_groups(&groups));
    let started = std::time::Instant::now();
    run_jtl(&run, &file);
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "the timer's user ends with its group");
    for (path, n) in [
        ("/loops", 0),
        ("/duration", 0),
        ("/tp_child", 2),
        ("/tt_child", 1),
        ("/if_js_child", 0),
        ("/if_exp_child", 0),
        ("/after", 2),
        ("/ctt", 0),
    ] {
        assert_eq!(server.requests_to(path), n, "{path}");
    }
    assert_eq!(server.requests(), 5);
    let s = run.summary();
    assert_eq!(uint(&label(&s, "after"), "samples"), 2);
}
