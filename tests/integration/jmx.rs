//! JMeter plans: every plan of the corpus (`tests/corpus/`, from sunbird-perf-tests) loads with
//! its placeholders given through `--set`, the malformed ones are refused with their line; corpus
//! and hand-written plans send, to a recording server, what JMeter would send.

use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/sunbird-perf-tests")
}

/// `--set` arguments per plan, from `tests/corpus/sets.tsv`.
fn corpus_sets() -> Vec<(String, Vec<String>)> {
    let table = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/sets.tsv")).unwrap();
    let root = corpus();
    table
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut cells = l.split('\t');
            let plan = cells.next().unwrap().to_string();
            let sets = cells.filter(|c| !c.is_empty()).map(|c| c.replace("{corpus}", root.to_str().unwrap())).collect();
            (plan, sets)
        })
        .collect()
}

#[test]
fn every_corpus_plan_loads_but_the_malformed_ones() {
    let _timing = crate::util::exclusive();
    let sets = corpus_sets();
    assert_eq!(sets.len(), 115, "the corpus has 115 plans");
    let mut failures = Vec::new();
    for (plan, args) in &sets {
        let mut cmd = Stampede::new().arg("check").arg(corpus().join(plan));
        for a in args {
            cmd = cmd.arg("--set").arg(a);
        }
        let out = cmd.run();
        let err = out.stderr_str();
        assert!(!err.contains("panicked"), "{plan}: {err}");
        if plan.ends_with("group-read/group-read.jmx") {
            out.assert_exit(2);
            assert!(err.contains("group-read.jmx:97:13") && err.contains("malformed XML"), "{err}");
            continue;
        }
        // A stray `<hashTree/>` where an element is due: JMeter cannot load it either (#13).
        if plan.ends_with("page-assemble/page-assemble.jmx") {
            out.assert_exit(2);
            assert!(err.contains("page-assemble.jmx:121:1") && err.contains("a second <hashTree> after"), "{err}");
            continue;
        }
        if out.status.code() != Some(0) {
            failures.push(format!("{plan}: {}", err.lines().last().unwrap_or("")));
        } else {
            // A plan whose data files are elsewhere says what `run` needs instead (#13).
            let said = out.stdout_str();
            assert!(said.contains("The plan can run.") || said.contains("`run` refuses it until"), "{plan}");
        }
    }
    assert!(failures.is_empty(), "{} plans do not load:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn check_lists_every_element_with_its_status() {
    let plan = corpus().join("sunbird-platform/auth-token/auth-token.jmx");
    let out = Stampede::new()
        .arg("check")
        .arg(&plan)
        .args(["--set", "THREADS_COUNT=1", "--set", "RAMPUP_TIME=0", "--set", "CTRL_LOOPS=1"])
        .run();
    out.assert_exit(0);
    let text = out.stdout_str();
    assert!(text.contains("BeanShellPostProcessor") && text.contains("run as a write step"), "{text}");
    assert!(text.contains("[ignored]") && text.contains("ResultCollector"), "{text}");
    assert!(text.contains("HTTPSamplerProxy"), "{text}");
}

#[test]
fn an_unsupported_element_is_named_with_its_line_unless_skipped() {
    // (A script in a language stampede does not run: since #14 a Groovy one runs.)
    let run = TempRun::new("jmx-unsupported");
    let script = r#"<JSR223PostProcessor guiclass="TestBeanGUI" testclass="JSR223PostProcessor" testname="Groovy thing" enabled="true"><stringProp name="scriptLanguage">jython</stringProp><stringProp name="script">vars.put("a","b")</stringProp></JSR223PostProcessor><hashTree/>"#;
    let plan = run.write("plan.jmx", jmx_plan(9, "", script));
    let out = Stampede::new().arg("check").arg(&plan).run();
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("plan.jmx:") && err.contains("\"Groovy thing\"") && err.contains("not supported"), "{err}");
    assert!(out.stdout_str().contains("UNSUPPORTED"), "{}", out.stdout_str());
    // Skipped, the script leaves a thread group that sends nothing: `check` refuses the plan
    // as `run` does (it said "The plan can run" before).
    let out = Stampede::new().arg("check").arg(&plan).arg("--skip-unsupported").run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("no thread group sends a request"), "{}", out.stderr_str());
    let with_request = format!("{}{}", sampler("get", "GET", "/", "", false, ""), script);
    let plan = run.write("plan.jmx", jmx_plan(9, "", &with_request));
    Stampede::new().arg("check").arg(&plan).arg("--skip-unsupported").run().assert_exit(0);
}

#[test]
fn content_read_from_the_corpus_sends_what_jmeter_would() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-content-read");
    let hosts = run.write("hosts.csv", format!("protocol,host,port\nhttp,127.0.0.1,{}\n", server.addr().port()));
    let plan = corpus().join("sunbird-platform/content-read/content-read.jmx");
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--set", "THREADS_COUNT=2", "--set", "RAMPUP_TIME=0", "--set", "CTRL_LOOPS=3"])
        .args([
            "--set",
            "API_KEY=key-123",
            "--set",
            "CSV_FILE=content.csv",
            "--set",
            "PATH_PREFIX=/api/content/v1/read",
        ])
        .arg("--set")
        .arg(format!("DOMAIN_FILE={}", hosts.display()))
        .args(["-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let got = server.recorded_all();
    assert_eq!(got.len(), 6, "2 threads × 3 loops");
    let mut ids = Vec::new();
    for r in &got {
        assert_eq!(r.method, "GET");
        assert_eq!(r.header("authorization"), Some("Bearer key-123"));
        assert_eq!(r.header("content-type"), Some("application/json"));
        ids.push(r.target.trim_start_matches("/api/content/v1/read/").to_string());
    }
    // shareMode.group: one cursor for the thread group, recycled: the two rows alternate.
    ids.sort();
    assert_eq!(ids, ["ContentID001", "ContentID001", "ContentID001", "ContentID002", "ContentID002", "ContentID002"]);
    assert_eq!(uint(&run.label("content-read"), "samples"), 6);
}

/// A plan with one thread group of `threads` users and a body of elements.
pub(crate) fn jmx_plan(threads: u32, loops: &str, body: &str) -> String {
    let loops = if loops.is_empty() { "1" } else { loops };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Plan" enabled="true">
      <elementProp name="TestPlan.user_defined_variables" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" testname="User Defined Variables" enabled="true">
        <collectionProp name="Arguments.arguments">
          <elementProp name="host" elementType="Argument"><stringProp name="Argument.name">host</stringProp><stringProp name="Argument.value">${{__P(host,127.0.0.1)}}</stringProp></elementProp>
          <elementProp name="port" elementType="Argument"><stringProp name="Argument.name">port</stringProp><stringProp name="Argument.value">${{__P(port,9)}}</stringProp></elementProp>
        </collectionProp>
      </elementProp>
    </TestPlan>
    <hashTree>
      <ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="Users" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">{loops}</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">false</boolProp>
      </ThreadGroup>
      <hashTree>
        {body}
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#
    )
}

pub(crate) fn sampler(name: &str, method: &str, path: &str, args: &str, raw: bool, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <boolProp name="HTTPSampler.postBodyRaw">{raw}</boolProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments">
            <collectionProp name="Arguments.arguments">{args}</collectionProp>
          </elementProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">{method}</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">true</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>
        </HTTPSamplerProxy>
        <hashTree>{children}</hashTree>"#
    )
}

pub(crate) fn arg(name: &str, value: &str, encode: bool) -> String {
    format!(
        r#"<elementProp name="{name}" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">{encode}</boolProp><stringProp name="Argument.value">{value}</stringProp><stringProp name="Argument.metadata">=</stringProp><stringProp name="Argument.name">{name}</stringProp></elementProp>"#
    )
}

#[test]
fn core_elements_send_what_jmeter_would() {
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(|_| Reply::json(r#"{"result":{"token":"tok-9"}}"#).header("Set-Cookie", "SID=s-1; Path=/"))
                .record(),
        )
        .default_route(Route::ok().body("id=42;ok").record())
        .start();
    let run = TempRun::new("jmx-core");
    let out_csv = run.root().join("saved.csv");
    let body = format!(
        r#"
        <ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${{host}}</stringProp>
          <stringProp name="HTTPSampler.port">${{port}}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement>
        <hashTree/>
        <HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="Headers" enabled="true">
          <collectionProp name="HeaderManager.headers">
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Channel-Id</stringProp><stringProp name="Header.value">in.ekstep</stringProp></elementProp>
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Request-Id</stringProp><stringProp name="Header.value">${{__UUID()}}</stringProp></elementProp>
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Time</stringProp><stringProp name="Header.value">${{__time()}}</stringProp></elementProp>
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Seq</stringProp><stringProp name="Header.value">${{__counter(FALSE,)}}</stringProp></elementProp>
          </collectionProp>
        </HeaderManager>
        <hashTree/>
        <CookieManager guiclass="CookiePanel" testclass="CookieManager" testname="Cookies" enabled="true"/>
        <hashTree/>
        <UserParameters guiclass="UserParametersGui" testclass="UserParameters" testname="Params" enabled="true">
          <collectionProp name="UserParameters.names"><stringProp name="1">role</stringProp></collectionProp>
          <collectionProp name="UserParameters.thread_values">
            <collectionProp name="1"><stringProp name="1">admin</stringProp></collectionProp>
            <collectionProp name="2"><stringProp name="1">guest</stringProp></collectionProp>
          </collectionProp>
          <boolProp name="UserParameters.per_iteration">false</boolProp>
        </UserParameters>
        <hashTree/>
        <CounterConfig guiclass="CounterConfigGui" testclass="CounterConfig" testname="Counter" enabled="true">
          <stringProp name="CounterConfig.start">10</stringProp>
          <stringProp name="CounterConfig.end"></stringProp>
          <stringProp name="CounterConfig.incr">5</stringProp>
          <stringProp name="CounterConfig.name">n</stringProp>
          <boolProp name="CounterConfig.per_user">true</boolProp>
        </CounterConfig>
        <hashTree/>
        <ConstantTimer guiclass="ConstantTimerGui" testclass="ConstantTimer" testname="Think" enabled="true">
          <stringProp name="ConstantTimer.delay">1</stringProp>
        </ConstantTimer>
        <hashTree/>
        <OnceOnlyController guiclass="OnceOnlyControllerGui" testclass="OnceOnlyController" testname="Once" enabled="true"/>
        <hashTree>
          {login}
        </hashTree>
        {read}
        {post}
        <ThroughputController guiclass="ThroughputControllerGui" testclass="ThroughputController" testname="Half" enabled="true">
          <intProp name="ThroughputController.style">1</intProp>
          <boolProp name="ThroughputController.perThread">true</boolProp>
          <intProp name="ThroughputController.maxThroughput">1</intProp>
          <FloatProperty><name>ThroughputController.percentThroughput</name><value>50.0</value></FloatProperty>
          <stringProp name="ThroughputController.percentThroughput">50</stringProp>
        </ThroughputController>
        <hashTree>
          {half}
        </hashTree>
 <ResultCollector guiclass="SimpleDataWriter" testclass="ResultCollector" testname="Write results" enabled="true">
          <boolProp name="ResultCollector.error_logging">false</boolProp>
          <stringProp name="filename">results.jtl</stringProp>
        </ResultCollector>
        <hashTree/>
        <IfController guiclass="IfControllerPanel" testclass="IfController" testname="Admins" enabled="true">
          <stringProp name="IfController.condition">${{__jexl3("${{role}}" == "admin")}}</stringProp>
          <boolProp name="IfController.evaluateAll">false</boolProp>
          <boolProp name="IfController.useExpression">true</boolProp>
        </IfController>
        <hashTree>
          {admin}
        </hashTree>
        "#,
        login = sampler(
            "Login",
            "POST",
            "/login",
            &(arg("user", "u ${__threadNum}", true) + &arg("pass", "p&amp;w", true)),
            false,
            r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="Token" enabled="true">
                <stringProp name="JSONPostProcessor.referenceNames">token</stringProp>
                <stringProp name="JSONPostProcessor.jsonPathExprs">$.result.token</stringProp>
                <stringProp name="JSONPostProcessor.match_numbers">1</stringProp>
                <stringProp name="JSONPostProcessor.defaultValues">NONE</stringProp>
              </JSONPostProcessor><hashTree/>"#
        ),
        read = sampler(
            "Read",
            "GET",
            "/read/${n}",
            &(arg("role", "${role}", false) + &arg("q", "a b", true)),
            false,
            &format!(
                r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="Id" enabled="true">
                <stringProp name="RegexExtractor.useHeaders">false</stringProp>
                <stringProp name="RegexExtractor.refname">rid</stringProp>
                <stringProp name="RegexExtractor.regex">id=(\d+)</stringProp>
                <stringProp name="RegexExtractor.template">$1$</stringProp>
                <stringProp name="RegexExtractor.default">none</stringProp>
                <stringProp name="RegexExtractor.match_number">1</stringProp>
              </RegexExtractor><hashTree/>
              <ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="Body ok" enabled="true">
                <collectionProp name="Asserion.test_strings"><stringProp name="1">ok</stringProp></collectionProp>
                <stringProp name="Assertion.test_field">Assertion.response_data</stringProp>
                <boolProp name="Assertion.assume_success">false</boolProp>
                <intProp name="Assertion.test_type">16</intProp>
              </ResponseAssertion><hashTree/>
              <BeanShellPostProcessor guiclass="TestBeanGUI" testclass="BeanShellPostProcessor" testname="Save" enabled="true">
                <stringProp name="script">import org.apache.jmeter.services.FileServer;
r = vars.get(&quot;rid&quot;);
t = vars.get(&quot;token&quot;);
FileWriter fstream = new FileWriter(&quot;{out}&quot;,true);
fstream.write(r+&quot;,&quot;+t+&quot;\n&quot;);
fstream.close();</stringProp>
              </BeanShellPostProcessor><hashTree/>"#,
                out = out_csv.display()
            )
        ),
        post = sampler(
            "Post",
            "POST",
            "/post",
            &arg("", "{&quot;token&quot;:&quot;${token}&quot;,&quot;rid&quot;:&quot;${rid}&quot;}", false),
            true,
            ""
        ),
        half = sampler("Half", "GET", "/half", "", false, ""),
        admin = sampler("Admin", "GET", "/admin", "", false, ""),
    );
    let plan = run.write("plan.jmx", jmx_plan(2, "4", &body));
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .arg("-J")
        .arg(format!("port={}", server.addr().port()))
        .args(["-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    // Once per user: 2 logins, with the form JMeter sends.
    let logins = server.recorded("/login");
    assert_eq!(logins.len(), 2);
    for r in &logins {
        assert_eq!(r.header("content-type"), Some("application/x-www-form-urlencoded; charset=UTF-8"));
        assert_eq!(r.form("pass").as_deref(), Some("p&w"));
        assert!(r.form("user").is_some_and(|u| u == "u 1" || u == "u 2"));
        assert_eq!(r.header("x-channel-id"), Some("in.ekstep"));
    }
    let all = server.recorded_all();
    let reads: Vec<_> = all.iter().filter(|r| r.path().starts_with("/read/")).collect();
    assert_eq!(reads.len(), 8, "2 users × 4 loops");
    for r in &reads {
        // The counter: 10, 15, 20, 25 per user; the user parameter; an encoded and a raw argument.
        let n: u32 = r.path().trim_start_matches("/read/").parse().unwrap();
        assert!([10, 15, 20, 25].contains(&n), "{}", r.target);
        assert!(r.target.contains("?role=admin&q=a+b") || r.target.contains("?role=guest&q=a+b"), "{}", r.target);
        assert_eq!(r.cookie("SID").as_deref(), Some("s-1"), "the cookie manager keeps the session");
    }
    let posts = server.recorded("/post");
    assert_eq!(posts.len(), 8);
    for p in &posts {
        assert_eq!(String::from_utf8_lossy(&p.body), r#"{"token":"tok-9","rid":"42"}"#);
    }
    // Functions in headers: a UUID, the time in ms, a counter shared by all users.
    let mut seqs: Vec<u64> = all.iter().map(|r| r.header("x-seq").unwrap().parse().unwrap()).collect();
    seqs.sort();
    assert_eq!(seqs, (1..=all.len() as u64).collect::<Vec<_>>(), "each request takes the next shared count");
    for r in &all {
        assert_eq!(r.header("x-request-id").unwrap().len(), 36);
        assert!(r.header("x-time").unwrap().parse::<u64>().unwrap() > 1_700_000_000_000);
    }
    // The If Controller (a JEXL condition) lets the admin user through only: 4 of 8 passes.
    assert_eq!(server.requests_to("/admin"), 4);
    // A throughput controller at 50% of 4 passes per user runs twice per user.
    assert_eq!(server.requests_to("/half"), 4);
    // The write-back script became a write step: one line per Read.
    let saved = std::fs::read_to_string(&out_csv).unwrap();
    assert_eq!(saved.lines().filter(|l| *l == "42,tok-9").count(), 8, "{saved}");
    assert_eq!(uint(&run.total(), "errors"), 0, "{:#}", run.total());
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    // The listener's file: JMeter's CSV header, then one line per sample.
    let jtl = std::fs::read_to_string(run.root().join("results.jtl")).unwrap();
    let mut lines = jtl.lines();
    assert_eq!(lines.next(), Some("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len() as u64, server.requests());
    let reads = rows.iter().filter(|l| l.split(',').nth(2) == Some("Read")).count();
    assert_eq!(reads, 8);
    assert!(rows.iter().all(|l| l.contains(",200,OK,Users 1-") && l.contains(",text,true,")), "{jtl}");
}

#[test]
fn flow_control_actions_error_policies_and_more_extractors() {
    let server = TestServer::builder()
        .route("/fail", Route::status(500))
        .route("/json", Route::ok().header("Content-Type", "application/json").body(r#"{"id":"x-7","n":1}"#))
        .default_route(Route::ok().record())
        .start();
    let port = server.addr().port();
    let run = TempRun::new("jmx-flow");
    let defaults = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp><stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;
    // After a failed sample, "start next thread loop": /after is never reached.
    let next_loop = jmx_plan(
        2,
        "3",
        &format!(
            "{defaults}{}{}",
            sampler("Fail", "GET", "/fail", "", false, ""),
            sampler("After", "GET", "/after", "", false, "")
        ),
    )
    .replace(">continue<", ">startnextloop<");
    let p = run.write("next.jmx", next_loop);
    Stampede::new()
        .arg("run")
        .arg(&p)
        .arg("-J")
        .arg(format!("port={port}"))
        .args(["-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(server.requests_to("/fail"), 6);
    assert_eq!(server.requests_to("/after"), 0);
    // A Flow Control Action that stops the thread: one pass per user.
    let stop = format!(
        r#"{defaults}{}
        <TestAction guiclass="TestActionGui" testclass="TestAction" testname="Stop" enabled="true">
          <intProp name="ActionProcessor.action">0</intProp><intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration">0</stringProp>
        </TestAction><hashTree/>"#,
        sampler("A", "GET", "/a", "", false, "")
    );
    let p = run.write("stop.jmx", jmx_plan(2, "5", &stop));
    Stampede::new()
        .arg("run")
        .arg(&p)
        .arg("-J")
        .arg(format!("port={port}"))
        .args(["-q", "--replace", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(server.requests_to("/a"), 2);
    // A Boundary Extractor feeds the next path; a JSON assertion checks the response.
    let extract = format!(
        "{defaults}{}{}",
        sampler(
            "Json",
            "GET",
            "/json",
            "",
            false,
            r#"<BoundaryExtractor guiclass="BoundaryExtractorGui" testclass="BoundaryExtractor" testname="Id" enabled="true">
                <stringProp name="BoundaryExtractor.useHeaders">false</stringProp>
                <stringProp name="BoundaryExtractor.refname">bid</stringProp>
                <stringProp name="BoundaryExtractor.lboundary">"id":"</stringProp>
                <stringProp name="BoundaryExtractor.rboundary">"</stringProp>
                <stringProp name="BoundaryExtractor.match_number">1</stringProp>
              </BoundaryExtractor><hashTree/>
              <JSONPathAssertion guiclass="JSONPathAssertionGui" testclass="JSONPathAssertion" testname="n is 2" enabled="true">
                <stringProp name="JSON_PATH">$.n</stringProp><stringProp name="EXPECTED_VALUE">2</stringProp>
                <boolProp name="JSONVALIDATION">true</boolProp><boolProp name="EXPECT_NULL">false</boolProp>
                <boolProp name="INVERT">false</boolProp><boolProp name="ISREGEX">true</boolProp>
              </JSONPathAssertion><hashTree/>"#
        ),
        sampler("Use", "GET", "/use/${bid}", "", false, "")
    )
    .replace(r#""id":""#, "&quot;id&quot;:&quot;")
    .replace(r#"<stringProp name="BoundaryExtractor.rboundary">"</stringProp>"#, r#"<stringProp name="BoundaryExtractor.rboundary">&quot;</stringProp>"#);
    let p = run.write("extract.jmx", jmx_plan(1, "2", &extract));
    Stampede::new()
        .arg("run")
        .arg(&p)
        .arg("-J")
        .arg(format!("port={port}"))
        .args(["-q", "--replace", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(server.requests_to("/use/x-7"), 2);
    let json = run.label("Json");
    assert_eq!(uint(&json, "errors"), 2, "the JSON assertion fails: n is 1: {json:#}");
}

/// A thread group element (`class`: ThreadGroup, SetupThreadGroup, PostThreadGroup) and its tree.
pub(crate) fn thread_group(class: &str, name: &str, threads: u32, loops: u32, body: &str) -> String {
    crate::util::jmx::thread_group(class, name, &threads.to_string(), &loops.to_string(), "", body)
}

/// A plan of thread groups that send to 127.0.0.1:`port`.
pub(crate) fn plan_with_defaults(name: &str, port: u16, groups: &str) -> String {
    use crate::util::jmx::{http_defaults, test_plan};
    test_plan(name, "", &[http_defaults("127.0.0.1", &port.to_string()), groups.to_string()].concat())
}

#[test]
fn setup_and_teardown_thread_groups_run_before_and_after() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-phases");
    let group = |class: &str, name: &str, threads: u32, path: &str| {
        thread_group(class, name, threads, 2, &sampler(name, "GET", path, "", false, ""))
    };
    let groups = [
        group("PostThreadGroup", "teardown", 1, "/teardown"),
        group("ThreadGroup", "main", 3, "/main"),
        group("SetupThreadGroup", "setup", 1, "/setup"),
    ];
    let plan = plan_with_defaults("Phases", server.addr().port(), &groups.concat());
    let p = run.write("plan.jmx", plan);
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let order: Vec<String> = server.recorded_all().into_iter().map(|r| r.path().to_string()).collect();
    assert_eq!(order.len(), 2 + 6 + 2);
    assert_eq!(&order[..2], ["/setup", "/setup"], "{order:?}");
    assert!(order[2..8].iter().all(|p| p == "/main"), "{order:?}");
    assert_eq!(&order[8..], ["/teardown", "/teardown"], "{order:?}");
}

#[test]
fn foreach_over_all_matches_and_switch() {
    let server = TestServer::builder()
        .route(
            "/list",
            Route::ok()
                .header("Content-Type", "application/json")
                .body(r#"{"items":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#),
        )
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-foreach");
    let body = format!(
        r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
        </ConfigTestElement><hashTree/>
        {list}
        <ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="Each id" enabled="true">
          <stringProp name="ForeachController.inputVal">ids</stringProp>
          <stringProp name="ForeachController.returnVal">id</stringProp>
          <boolProp name="ForeachController.useSeparator">true</boolProp>
        </ForeachController>
        <hashTree>{item}</hashTree>
        <SwitchController guiclass="SwitchControllerGui" testclass="SwitchController" testname="By name" enabled="true">
          <stringProp name="SwitchController.value">${{ids_2}}</stringProp>
        </SwitchController>
        <hashTree>{first}{b}</hashTree>"#,
        port = server.addr().port(),
        list = sampler(
            "List",
            "GET",
            "/list",
            "",
            false,
            r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="Ids" enabled="true">
                <stringProp name="JSONPostProcessor.referenceNames">ids</stringProp>
                <stringProp name="JSONPostProcessor.jsonPathExprs">$.items[*].id</stringProp>
                <stringProp name="JSONPostProcessor.match_numbers">-1</stringProp>
              </JSONPostProcessor><hashTree/>"#
        ),
        item = sampler("Item", "GET", "/item/${id}", "", false, ""),
        first = sampler("a", "GET", "/switch/a", "", false, ""),
        b = sampler("b", "GET", "/switch/b", "", false, ""),
    );
    let p = run.write("plan.jmx", jmx_plan(1, "2", &body));
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let paths: Vec<String> = server.recorded_all().into_iter().map(|r| r.path().to_string()).collect();
    let one_pass = ["/item/a", "/item/b", "/item/c", "/switch/b"];
    assert_eq!(paths, [one_pass, one_pass].concat(), "ForEach over ids_1..ids_3, then the Switch picks `b` by name");
}

#[test]
fn ultimate_thread_group_timers_random_variables_and_duration_assertions() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-utg");
    let plan = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Soak" enabled="true"/>
    <hashTree>
      <kg.apc.jmeter.threads.UltimateThreadGroup guiclass="kg.apc.jmeter.threads.UltimateThreadGroupGui" testclass="kg.apc.jmeter.threads.UltimateThreadGroup" testname="Soak users" enabled="true">
        <collectionProp name="ultimatethreadgroupdata">
          <collectionProp name="1">
            <stringProp name="1">3</stringProp><stringProp name="2">0</stringProp><stringProp name="3">0</stringProp><stringProp name="4">1</stringProp><stringProp name="5">0</stringProp>
          </collectionProp>
        </collectionProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <intProp name="LoopController.loops">-1</intProp>
        </elementProp>
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
      </kg.apc.jmeter.threads.UltimateThreadGroup>
      <hashTree>
        <ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
        </ConfigTestElement><hashTree/>
        <RandomVariableConfig guiclass="TestBeanGUI" testclass="RandomVariableConfig" testname="Page" enabled="true">
          <stringProp name="variableName">page</stringProp><stringProp name="minimumValue">1</stringProp><stringProp name="maximumValue">5</stringProp>
          <boolProp name="perThread">true</boolProp>
        </RandomVariableConfig><hashTree/>
        <UniformRandomTimer guiclass="UniformRandomTimerGui" testclass="UniformRandomTimer" testname="Think" enabled="true">
          <stringProp name="ConstantTimer.delay">40</stringProp><stringProp name="RandomTimer.range">20</stringProp>
        </UniformRandomTimer><hashTree/>
        {read}
        <TestAction guiclass="TestActionGui" testclass="TestAction" testname="Pause" enabled="true">
          <intProp name="ActionProcessor.action">1</intProp><intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration">50</stringProp>
        </TestAction><hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#,
        port = server.addr().port(),
        read = sampler(
            "Read",
            "GET",
            "/page/${page}",
            "",
            false,
            r#"<DurationAssertion guiclass="DurationAssertionGui" testclass="DurationAssertion" testname="Fast" enabled="true">
                <stringProp name="DurationAssertion.duration">1</stringProp>
              </DurationAssertion><hashTree/>"#
        ),
    );
    let p = run.write("plan.jmx", plan);
    let started = std::time::Instant::now();
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let took = started.elapsed();
    let got = server.recorded_all();
    // 3 users for 1 s, each pass 40..60 ms of timer + 50 ms of pause: about 9 passes per user.
    let n = got.len() as u64;
    assert!((18..=36).contains(&n), "{n} requests in {took:?}");
    for r in &got {
        let page: u32 = r.path().trim_start_matches("/page/").parse().unwrap();
        assert!((1..=5).contains(&page), "{}", r.target);
    }
    let read = run.label("Read");
    assert_eq!(uint(&read, "samples"), n);
    // A 1 ms duration assertion: loopback answers usually pass, a slow one is a KO by its message.
    let kinds = read["errors_by_kind"].as_object().cloned().unwrap_or_default();
    assert!(kinds.keys().all(|k| k == "check: Fast: duration at most 1ms"), "{kinds:?}");
}

#[test]
fn module_include_size_assertion_and_constant_throughput() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok().body("0123456789").record()).start();
    let run = TempRun::new("jmx-module");
    run.write(
        "fragment.jmx",
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree>
  <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Fragment" enabled="true"/>
  <hashTree>
    <TestFragmentController guiclass="TestFragmentControllerGui" testclass="TestFragmentController" testname="Frag" enabled="true"/>
    <hashTree>{}</hashTree>
  </hashTree>
</hashTree></jmeterTestPlan>"#,
            sampler("Included", "GET", "/included", "", false, "")
        ),
    );
    let size = |name: &str, op: u8, bytes: u32| {
        format!(
            r#"<SizeAssertion guiclass="SizeAssertionGui" testclass="SizeAssertion" testname="{name}" enabled="true">
                <stringProp name="Assertion.test_field">SizeAssertion.response_data</stringProp>
                <stringProp name="SizeAssertion.size">{bytes}</stringProp><intProp name="SizeAssertion.operator">{op}</intProp>
              </SizeAssertion><hashTree/>"#
        )
    };
    let body = format!(
        r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
        </ConfigTestElement><hashTree/>
        <GenericController guiclass="LogicControllerGui" testclass="GenericController" testname="Shared" enabled="true"/>
        <hashTree>{shared}</hashTree>
        <ModuleController guiclass="ModuleControllerGui" testclass="ModuleController" testname="Again" enabled="true">
          <collectionProp name="ModuleController.node_path">
            <stringProp name="0">Test Plan</stringProp><stringProp name="1">Plan</stringProp><stringProp name="2">Users</stringProp><stringProp name="3">Shared</stringProp>
          </collectionProp>
        </ModuleController><hashTree/>
        <IncludeController guiclass="IncludeControllerGui" testclass="IncludeController" testname="Include" enabled="true">
          <stringProp name="IncludeController.includepath">fragment.jmx</stringProp>
        </IncludeController><hashTree/>
        <ConstantThroughputTimer guiclass="TestBeanGUI" testclass="ConstantThroughputTimer" testname="Rate" enabled="true">
          <intProp name="calcMode">0</intProp><doubleProp><name>throughput</name><value>1200.0</value></doubleProp>
          <stringProp name="throughput">1200</stringProp>
        </ConstantThroughputTimer><hashTree/>"#,
        port = server.addr().port(),
        shared = sampler("Shared req", "GET", "/shared", "", false, &(size("Ten", 1, 10) + &size("Big", 3, 100))),
    );
    let p = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let started = std::time::Instant::now();
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let took = started.elapsed();
    // The module runs the shared controller a second time; the include adds the fragment.
    assert_eq!(server.requests_to("/shared"), 6);
    assert_eq!(server.requests_to("/included"), 3);
    // 9 samplers at 1200 a minute (one per 50 ms) take at least 8 intervals.
    assert!(took >= std::time::Duration::from_millis(400), "{took:?}");
    // The body is 10 bytes: `= 10` holds, `> 100` fails.
    let shared = run.label("Shared req");
    assert_eq!(shared["errors_by_kind"], serde_json::json!({"check: Big: body size Gt 100 bytes": 6}), "{shared:#}");
}

/// The JMeter semantics a second reading of the JMX reader found missing: each assertion names
/// the JMeter behaviour it pins down.
#[test]
fn jmeter_semantics_of_less_common_settings() {
    let server = TestServer::builder()
        .route("/fail", Route::status(404))
        .route("/hello", Route::ok().body("hello world").record())
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-semantics");
    run.write("rows.csv", "r1\n");
    run.write("expect.csv", "hel+o w.rld\n");
    run.write("urls.csv", format!("http://127.0.0.1:{}/rt/url\n", server.addr().port()));
    let tg = |name: &str, threads: u32, loops: u32, body: &str| thread_group("ThreadGroup", name, threads, loops, body);
    let csv = |file: &str, names: &str, recycle: bool| {
        format!(
            r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="{file}" enabled="true">
          <stringProp name="filename">{file}</stringProp><stringProp name="variableNames">{names}</stringProp>
          <boolProp name="recycle">{recycle}</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#
        )
    };
    let first = format!(
        r#"{csv_rows}{csv_expect}{csv_urls}
        <OnceOnlyController guiclass="OnceOnlyControllerGui" testclass="OnceOnlyController" testname="once" enabled="true"/>
        <hashTree>{once}</hashTree>
        <LoopController guiclass="LoopControlPanel" testclass="LoopController" testname="inner" enabled="true">
          <boolProp name="LoopController.continue_forever">true</boolProp>
          <stringProp name="LoopController.loops">2</stringProp>
        </LoopController>
        <hashTree>
          <OnceOnlyController guiclass="OnceOnlyControllerGui" testclass="OnceOnlyController" testname="once in loop" enabled="true"/>
          <hashTree>{once_in_loop}</hashTree>
        </hashTree>
        <ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="each" enabled="true">
          <stringProp name="ForeachController.inputVal">in</stringProp>
          <stringProp name="ForeachController.returnVal">item</stringProp>
          <boolProp name="ForeachController.useSeparator">true</boolProp>
        </ForeachController>
        <hashTree>{each}</hashTree>
        <TransactionController guiclass="TransactionControllerGui" testclass="TransactionController" testname="txn" enabled="true">
          <boolProp name="TransactionController.parent">true</boolProp>
          <boolProp name="TransactionController.includeTimers">false</boolProp>
        </TransactionController>
        <hashTree>{t1}{t2}</hashTree>
        {fail}
        <IfController guiclass="IfControllerPanel" testclass="IfController" testname="if ok" enabled="true">
          <stringProp name="IfController.condition">${{JMeterThread.last_sample_ok}}</stringProp>
          <boolProp name="IfController.evaluateAll">false</boolProp>
          <boolProp name="IfController.useExpression">true</boolProp>
        </IfController>
        <hashTree>{after_fail}</hashTree>
        {hello}{hello_row}{rows}{blank}{next}{rt}"#,
        csv_rows = csv("rows.csv", "row", false),
        csv_expect = csv("expect.csv", "expected", true),
        csv_urls = csv("urls.csv", "url", true),
        once = sampler("once", "GET", "/once", "", false, ""),
        once_in_loop = sampler("once in loop", "GET", "/once-in-loop", "", false, ""),
        each = sampler("each", "GET", "/each/${item}", "", false, ""),
        t1 = sampler("t1", "GET", "/t1", "", false, ""),
        t2 = sampler("t2", "GET", "/t2", "", false, ""),
        fail = sampler("fail", "GET", "/fail", "", false, ""),
        after_fail = sampler("after fail", "GET", "/after-fail", "", false, ""),
        hello = sampler(
            "hello",
            "GET",
            "/hello",
            "",
            false,
            r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="greets" enabled="true">
              <collectionProp name="Asserion.test_strings"><stringProp name="1">${expected}</stringProp></collectionProp>
              <stringProp name="Assertion.test_field">Assertion.response_data</stringProp>
              <intProp name="Assertion.test_type">1</intProp>
            </ResponseAssertion><hashTree/>"#
        ),
        hello_row = sampler(
            "hello row",
            "GET",
            "/hello",
            "",
            false,
            r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="greets the row" enabled="true">
              <collectionProp name="Asserion.test_strings"><stringProp name="1">${row}</stringProp></collectionProp>
              <stringProp name="Assertion.test_field">Assertion.response_data</stringProp>
              <intProp name="Assertion.test_type">2</intProp>
            </ResponseAssertion><hashTree/>"#
        ),
        rows = sampler("rows", "GET", "/rows", &arg("r", "${row}", true), false, ""),
        next = sampler("next", "GET", "${next}", "", false, ""),
        rt = sampler("url from data", "GET", "${url}", "", false, ""),
        blank =
            sampler("blank", "GET", "/blank", &format!("{}{}", arg("", "x", false), arg("k", "v", false)), false, ""),
    );
    let forever =
        r#"<LoopController guiclass="LoopControlPanel" testclass="LoopController" testname="forever" enabled="true">
          <boolProp name="LoopController.continue_forever">true</boolProp>
          <stringProp name="LoopController.loops">-5</stringProp>
        </LoopController>
        <hashTree>
          <ConstantTimer guiclass="ConstantTimerGui" testclass="ConstantTimer" testname="pause" enabled="true">
            <stringProp name="ConstantTimer.delay">100</stringProp>
          </ConstantTimer><hashTree/>"#
            .to_string()
            + &sampler("forever", "GET", "/forever", "", false, "")
            + "</hashTree>";
    let second = r#"<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="timed" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">-1</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">1</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">true</boolProp>
        <stringProp name="ThreadGroup.duration">1</stringProp>
      </ThreadGroup>
      <hashTree>"#
        .to_string()
        + &forever
        + "</hashTree>";
    let plan = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Semantics" enabled="true">
      <boolProp name="TestPlan.serialize_threadgroups">true</boolProp>
      <elementProp name="TestPlan.user_defined_variables" elementType="Arguments">
        <collectionProp name="Arguments.arguments">
          <elementProp name="in_1" elementType="Argument"><stringProp name="Argument.name">in_1</stringProp><stringProp name="Argument.value">x</stringProp></elementProp>
          <elementProp name="in_2" elementType="Argument"><stringProp name="Argument.name">in_2</stringProp><stringProp name="Argument.value">y</stringProp></elementProp>
          <elementProp name="next" elementType="Argument"><stringProp name="Argument.name">next</stringProp><stringProp name="Argument.value">http://127.0.0.1:{port}/full/url?z=1</stringProp></elementProp>
        </collectionProp>
      </elementProp>
    </TestPlan>
    <hashTree>
      <ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
        <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
      </ConfigTestElement><hashTree/>
      {first}
      {nobody}
      {second}
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#,
        port = server.addr().port(),
        first = tg("first", 1, 2, &first),
        nobody = tg("nobody", 0, 1, &sampler("nobody", "GET", "/nobody", "", false, "")),
    );
    let p = run.write("plan.jmx", plan);
    let check = Stampede::new().arg("check").arg(&p).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("starts no thread"), "{}", check.stdout_str());
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(30))
        .run()
        .assert_exit(0);
    let paths: Vec<String> = server.recorded_all().into_iter().map(|r| r.path().to_string()).collect();
    let count = |p: &str| paths.iter().filter(|x| x.as_str() == p).count();
    // Once Only: once per user at the top, once per start of the loop around it.
    assert_eq!((count("/once"), count("/once-in-loop")), (1, 2), "{paths:?}");
    // ForEach goes on while `in_N` is defined (no `in_matchNr` needed).
    assert_eq!((count("/each/x"), count("/each/y")), (2, 2), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with("/each/") && p != "/each/x" && p != "/each/y"), "{paths:?}");
    // The request after a failed one is skipped by `${JMeterThread.last_sample_ok}`.
    assert_eq!(count("/after-fail"), 0, "{paths:?}");
    // A CSV Data Set that neither recycles nor stops gives `<EOF>`.
    let rows: Vec<String> = server.recorded("/rows").into_iter().map(|r| r.target).collect();
    assert_eq!(rows, ["/rows?r=r1", "/rows?r=%3CEOF%3E"]);
    // An argument without a name is left out.
    let blank = server.recorded("/blank");
    assert_eq!(blank.len(), 2);
    assert!(blank.iter().all(|r| r.target == "/blank?k=v"), "{blank:?}");
    // A path that holds a whole URL is taken as the URL.
    let targets: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    assert_eq!(targets.iter().filter(|t| t.as_str() == "/full/url?z=1").count(), 2, "{targets:?}");
    assert_eq!(targets.iter().filter(|t| t.as_str() == "/rt/url").count(), 2, "{targets:?}");
    // 0 threads: nothing; a negative loop count loops until the thread group's 1 s is over.
    assert_eq!(count("/nobody"), 0);
    assert!(count("/forever") >= 3, "{paths:?}");
    // Consecutive thread groups: every request of the first before any of the second.
    let first_forever = paths.iter().position(|p| p == "/forever").unwrap();
    assert!(paths[first_forever..].iter().all(|p| p == "/forever"), "{paths:?}");
    // Summary: the parent-sample transaction is one row counted in the total; its requests
    // are not rows; the run-time regex assertion passed.
    assert_eq!(uint(&run.label("txn"), "samples"), 2);
    assert!(run.summary()["labels"].get("t1").is_none(), "{}", run.summary());
    assert_eq!(uint(&run.label("hello"), "errors"), 0);
    assert_eq!(uint(&run.label("hello row"), "errors"), 2);
    assert_eq!(uint(&run.label("fail"), "errors"), 2);
    let total = uint(&run.summary()["total"], "samples");
    let served = server.requests();
    assert_eq!(total, served - (count("/t1") + count("/t2")) as u64 + 2, "{paths:?}");
}

/// CSV Data Set rows as JMeter 5.6.3 reads them (CSVDataSet.iterationStart): a short row sets
/// only its first variables, the others keep their value or, never set, are sent as `${name}`;
/// a blank line is a row: unquoted it has no values and reads as end of file (every variable
/// `<EOF>`, or the thread stops with "stop thread"), quoted it sets the first variable to "".
#[test]
fn csv_data_set_short_rows_and_blank_lines_as_jmeter() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-csv-rows");
    run.write("plain.csv", "1,2\n3\n\n4,5\n");
    run.write("quoted.csv", "x\n\n\"y\",z\n");
    run.write("stop.csv", "s1\n\ns2\n");
    let csv = |file: &str, names: &str, quoted: bool, recycle: bool, stop: bool| {
        format!(
            r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="{file}" enabled="true">
          <stringProp name="filename">{file}</stringProp><stringProp name="variableNames">{names}</stringProp>
          <stringProp name="delimiter">,</stringProp><boolProp name="quotedData">{quoted}</boolProp>
          <boolProp name="recycle">{recycle}</boolProp><boolProp name="stopThread">{stop}</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#
        )
    };
    let post = |name: &str, path: &str, body: &str| sampler(name, "POST", path, &arg("", body, false), true, "");
    let rows = format!(
        "{}{}{}{}",
        csv("plain.csv", "a,b", false, false, false),
        csv("quoted.csv", "c,d", true, false, false),
        post("plain", "/plain", "a=${a};b=${b}"),
        post("quoted", "/quoted", "c=${c};d=${d}"),
    );
    let stops = format!("{}{}", csv("stop.csv", "s", false, true, true), post("stop", "/stop", "s=${s}"));
    let groups = [thread_group("ThreadGroup", "rows", 1, 5, &rows), thread_group("ThreadGroup", "stops", 1, 3, &stops)];
    let plan = plan_with_defaults("CSV rows", server.addr().port(), &groups.concat());
    let p = run.write("plan.jmx", plan);
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let bodies = |path: &str| -> Vec<String> {
        server.recorded(path).into_iter().map(|r| String::from_utf8_lossy(&r.body).into_owned()).collect()
    };
    assert_eq!(bodies("/plain"), ["a=1;b=2", "a=3;b=2", "a=<EOF>;b=<EOF>", "a=4;b=5", "a=<EOF>;b=<EOF>"]);
    assert_eq!(bodies("/quoted"), ["c=x;d=${d}", "c=;d=${d}", "c=y;d=z", "c=<EOF>;d=<EOF>", "c=<EOF>;d=<EOF>"]);
    // The blank line stops the thread on its second iteration, although the file recycles.
    assert_eq!(bodies("/stop"), ["s=s1"]);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

#[test]
fn run_overrides_bound_every_thread_group() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmx-overrides");
    // Two requests per iteration in the main group; one in setUp and tearDown.
    let two =
        format!("{}{}", sampler("a", "GET", "/main/a", "", false, ""), sampler("b", "GET", "/main/b", "", false, ""));
    let groups = [
        thread_group("SetupThreadGroup", "setup", 1, 1, &sampler("s", "GET", "/setup", "", false, "")),
        thread_group("ThreadGroup", "main", 40, 1000, &two),
        thread_group("PostThreadGroup", "teardown", 1, 1, &sampler("t", "GET", "/teardown", "", false, "")),
    ];
    let plan = plan_with_defaults("Bounded", server.addr().port(), &groups.concat());
    let p = run.write("plan.jmx", plan);
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["--users", "2", "--iterations", "3", "--ramp-up", "0s", "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    // Every thread group, setUp and tearDown included: 2 users × 3 iterations.
    assert_eq!(server.requests_to("/main/a"), 6);
    assert_eq!(server.requests_to("/main/b"), 6);
    assert_eq!(server.requests_to("/setup"), 6);
    assert_eq!(server.requests_to("/teardown"), 6);
    assert_eq!(server.requests(), 2 * 3 * 4);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    // The plan that ran, as the run directory keeps it, is the bounded one.
    let yaml = std::fs::read_to_string(run.path().join("plan.yaml")).unwrap();
    assert_eq!(yaml.matches("users: 2").count(), 3, "{yaml}");
    assert_eq!(yaml.matches("iterations: 3").count(), 3, "{yaml}");

    // The other quick-mode flags stay refused with a plan.
    let out = Stampede::new().arg("run").arg(&p).args(["--rate", "5", "-q"]).run();
    out.assert_exit(2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rate apply to quick mode"), "{out:?}");
}

#[test]
fn run_duration_override_bounds_a_yaml_plan() {
    let server = TestServer::builder().default_route(Route::ok().delay(std::time::Duration::from_millis(20))).start();
    let run = TempRun::new("yaml-duration-override");
    let plan = run.write(
        "plan.yaml",
        format!(
            "scenarios:\n  - name: closed\n    workload: {{users: 1, duration: 1h}}\n    flow: [{{request: {{url: '{}'}}}}]\n  - name: open\n    workload: {{rate: 5, duration: 1h, max_users: 5}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/closed"),
            server.url("/open")
        ),
    );
    let started = std::time::Instant::now();
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--duration", "1s", "-q", "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(30))
        .run()
        .assert_exit(0);
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "{:?}", started.elapsed());
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert!(server.requests_to("/closed") >= 5, "{}", server.requests_to("/closed"));
    // 5/s for 1 s: 5 arrivals (one more at the very end at most).
    assert!((5..=6).contains(&server.requests_to("/open")), "{}", server.requests_to("/open"));
    let yaml = std::fs::read_to_string(run.path().join("plan.yaml")).unwrap();
    assert!(!yaml.contains("1h") && !yaml.contains("3600"), "{yaml}");
}

/// Runs a hand-written plan's `body` (one user, one pass) with HTTP defaults aimed at `server`.
fn run_one_pass(server: &TestServer, run: &TempRun, body: &str) {
    let defaults = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp><stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;
    run_jmx(server, run, &jmx_plan(1, "1", &format!("{defaults}{body}")));
}

/// Runs the plan `jmx` (written into `run`) against `server` (`-J port=`); it must exit 0.
pub(crate) fn run_jmx(server: &TestServer, run: &TempRun, jmx: &str) {
    let plan = run.write("plan.jmx", jmx);
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "-J"])
        .arg(format!("port={}", server.addr().port()))
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
}

#[test]
fn while_controller_runs_until_its_condition_reads_false() {
    // JMeter's WhileController.endOfLoop: the condition is text, the loop ends when it reads
    // `false` in any case. `${go}` is undefined on the first test (sent as `${go}`: not false).
    let server = TestServer::builder()
        .default_route(Route::nth(|n| Reply::ok().body(if n < 3 { "go=yes" } else { "go=FALSE" })).record())
        .start();
    let run = TempRun::new("jmx-while-text");
    let extract = r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="Go" enabled="true">
                <stringProp name="RegexExtractor.useHeaders">false</stringProp>
                <stringProp name="RegexExtractor.refname">go</stringProp>
                <stringProp name="RegexExtractor.regex">go=(\w+)</stringProp>
                <stringProp name="RegexExtractor.template">$1$</stringProp>
                <stringProp name="RegexExtractor.default">false</stringProp>
                <stringProp name="RegexExtractor.match_number">1</stringProp>
              </RegexExtractor><hashTree/>"#;
    let body = format!(
        r#"<WhileController guiclass="WhileControllerGui" testclass="WhileController" testname="While" enabled="true">
          <stringProp name="WhileController.condition">${{go}}</stringProp>
        </WhileController>
        <hashTree>{}</hashTree>"#,
        sampler("Poll", "GET", "/poll", "", false, extract)
    );
    run_one_pass(&server, &run, &body);
    assert_eq!(server.recorded_all().len(), 3);
    assert_eq!(uint(&run.label("Poll"), "samples"), 3);
}

#[test]
fn an_argument_without_equals_and_empty_value_is_sent_as_its_name() {
    // HTTPSamplerBase.getQueryString writes the argument's metadata between name and value:
    // nothing when "Include Equals?" is off, so an empty value leaves `name` alone.
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-use-equals");
    let bare = |name: &str, value: &str| {
        format!(
            r#"<elementProp name="{name}" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">{value}</stringProp><stringProp name="Argument.metadata"></stringProp><boolProp name="HTTPArgument.use_equals">false</boolProp><stringProp name="Argument.name">{name}</stringProp></elementProp>"#
        )
    };
    let args = format!("{}{}{}", bare("flag", ""), arg("empty", "", false), bare("k", "v"));
    run_one_pass(&server, &run, &sampler("Q", "GET", "/q", &args, false, ""));
    let got = server.recorded_all();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].target, "/q?flag&empty=&k=v");
}

#[test]
fn a_url_fragment_is_never_sent() {
    // JMeter builds a java.net.URL from path and query (HTTPSamplerBase.getUrl); HttpClient
    // leaves its fragment out, and a query appended after `#` belongs to the fragment.
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-fragment");
    let port = server.addr().port();
    let body = format!(
        "{}{}",
        sampler("Anchor", "GET", "/doc?x=1#part", "", false, ""),
        sampler("Full", "GET", &format!("http://127.0.0.1:{port}/full#top"), &arg("k", "v", false), false, "")
    );
    run_one_pass(&server, &run, &body);
    let targets: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/doc?x=1", "/full"]);
}

#[test]
fn a_seeded_random_variable_gives_the_same_sequence_as_jmeter() {
    // RandomVariableConfig.iterationStart: min + new java.util.Random(seed).nextInt(max - min + 1),
    // one draw per pass. The expected numbers are java.util.Random(7).nextInt(1000000) + 3 (jshell).
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-seeded-random");
    let body = format!(
        r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${{host}}</stringProp><stringProp name="HTTPSampler.port">${{port}}</stringProp>
        </ConfigTestElement><hashTree/>
        <RandomVariableConfig guiclass="TestBeanGUI" testclass="RandomVariableConfig" testname="Pick" enabled="true">
          <stringProp name="variableName">v</stringProp><stringProp name="minimumValue">3</stringProp>
          <stringProp name="maximumValue">1000002</stringProp><stringProp name="randomSeed">7</stringProp>
          <boolProp name="perThread">true</boolProp>
        </RandomVariableConfig><hashTree/>
        {}"#,
        sampler("R", "GET", "/r/${v}", "", false, "")
    );
    let plan = run.write("plan.jmx", jmx_plan(1, "3", &body));
    for _ in 0..2 {
        Stampede::new()
            .arg("run")
            .arg(&plan)
            .args(["-q", "-J"])
            .arg(format!("port={}", server.addr().port()))
            .args(["--replace", "--out"])
            .arg(run.path())
            .run()
            .assert_exit(0);
    }
    let targets: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    let once = ["/r/164239", "/r/249167", "/r/829488"];
    assert_eq!(targets, [once, once].concat());
}

#[test]
fn a_while_controller_without_condition_runs_once_then_until_a_sample_fails() {
    // WhileController.endOfLoop: an empty condition is tested only at the end of a pass (the
    // last sample failed ends the loop), so a failed sample before the loop does not skip it.
    let server = TestServer::builder()
        .route("/pre", Route::status(500).record())
        .default_route(Route::nth(|n| if n < 3 { Reply::ok() } else { Reply::status(500) }).record())
        .start();
    let run = TempRun::new("jmx-while-empty");
    let body = format!(
        r#"{}<WhileController guiclass="WhileControllerGui" testclass="WhileController" testname="While" enabled="true">
          <stringProp name="WhileController.condition"></stringProp>
        </WhileController>
        <hashTree>{}</hashTree>"#,
        sampler("Pre", "GET", "/pre", "", false, ""),
        sampler("Try", "GET", "/try", "", false, "")
    );
    run_one_pass(&server, &run, &body);
    let targets: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/pre", "/try", "/try", "/try"]);
    assert_eq!(uint(&run.label("Try"), "samples"), 3);
}
