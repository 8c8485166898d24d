//! Core JMeter 5.6.3 elements real plans keep (issue 32): the Precise Throughput Timer's
//! arrivals shared by a thread group, the Debug PostProcessor, the JMESPath extractor and
//! assertion, each run against the witness with exact counts.

use crate::jmx::jmx_plan;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

fn sampler(name: &str, port: u16, path: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

fn precise_timer(throughput: &str, period: &str, duration: &str, batch: &str, seed: &str) -> String {
    format!(
        r#"<PreciseThroughputTimer guiclass="TestBeanGUI" testclass="PreciseThroughputTimer" testname="ptt" enabled="true">
          <doubleProp><name>allowedThroughputSurplus</name><value>1.0</value><savedValue>0.0</savedValue></doubleProp>
          <intProp name="exactLimit">10000</intProp>
          <doubleProp><name>throughput</name><value>{throughput}</value><savedValue>0.0</savedValue></doubleProp>
          <intProp name="throughputPeriod">{period}</intProp>
          <longProp name="duration">{duration}</longProp>
          <intProp name="batchSize">{batch}</intProp>
          <intProp name="batchThreadDelay">0</intProp>
          <longProp name="randomSeed">{seed}</longProp>
        </PreciseThroughputTimer><hashTree/>"#
    )
}

/// Runs `plan` quietly into `run` and returns how long the run took.
fn run_timed(run: &TempRun, plan: String) -> Duration {
    let file = run.write("plan.jmx", plan);
    let start = Instant::now();
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    start.elapsed()
}

/// 20 arrivals a second, a round 20 in each second, shared by the 4 users of the group: their
/// 40 samples take about two seconds (each user on its own schedule would take half of one),
/// and every one is sent.
#[test]
fn precise_throughput_timer_spreads_one_schedule_over_the_thread_group() {
    let server = TestServer::builder().route("/p", Route::ok()).start();
    let run = TempRun::new("elements-precise");
    let body = sampler("p", server.addr().port(), "/p", &precise_timer("20.0", "1", "1", "1", "42"));
    let took = run_timed(&run, jmx_plan(4, "10", &body));
    assert_eq!(server.requests_to("/p"), 40);
    assert_eq!(uint(&label(&run.summary(), "p"), "samples"), 40);
    assert!(took >= Duration::from_millis(1200), "40 arrivals at 20/s ended after {took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// A rate of 0 has no arrival: the plan loads with a warning naming the timer, and `--strict`
/// refuses it.
#[test]
fn precise_throughput_timer_without_arrivals_loads_with_a_warning() {
    let run = TempRun::new("elements-precise-zero");
    let body = sampler("z", 9, "/z", &precise_timer("0.0", "3600", "3600", "1", "0"));
    let file = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("is no arrival at all"), "{}", check.stdout_str());
    let strict = Stampede::new().arg("check").arg(&file).arg("--strict").run();
    assert_ne!(strict.status.code(), Some(0), "{}", strict.stdout_str());
}

/// The Debug PostProcessor sends nothing and leaves the sample as the server made it: the same
/// samples, bytes and JTL rows as a sampler without it (JMeter adds a `<label>-0` row and the
/// dump's length to the sample's bytes; those bytes never crossed the wire).
#[test]
fn debug_post_processor_sends_nothing_and_keeps_the_sample_truthful() {
    let server = TestServer::builder()
        .route("/d", Route::ok().body("same body"))
        .route("/plain", Route::ok().body("same body"))
        .start();
    let port = server.addr().port();
    let run = TempRun::new("elements-debug-pp");
    let debug = r#"<DebugPostProcessor guiclass="TestBeanGUI" testclass="DebugPostProcessor" testname="Debug PostProcessor" enabled="true">
        <boolProp name="displayJMeterProperties">true</boolProp>
        <boolProp name="displayJMeterVariables">true</boolProp>
        <boolProp name="displaySamplerProperties">true</boolProp>
        <boolProp name="displaySystemProperties">false</boolProp>
      </DebugPostProcessor><hashTree/>"#;
    let body = [sampler("d", port, "/d", debug), sampler("plain", port, "/plain", "")].concat();
    let file = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let jtl = run.root().join("results.jtl");
    Stampede::new()
        .arg("run")
        .arg(&file)
        .args(["-q", "--jtl"])
        .arg(&jtl)
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!((server.requests(), server.requests_to("/d")), (12, 6));
    let s = run.summary();
    let (d, plain) = (label(&s, "d"), label(&s, "plain"));
    assert_eq!(uint(&d, "samples"), 6);
    assert_eq!(uint(&d, "errors"), 0);
    assert_eq!(uint(&d, "bytes_received"), uint(&plain, "bytes_received"));
    let rows = std::fs::read_to_string(&jtl).unwrap();
    assert_eq!(rows.lines().filter(|l| l.contains(",d,")).count(), 6, "{rows}");
    assert!(!rows.contains(",d-0,"), "{rows}");
}

fn jmespath_extractor(name: &str, expr: &str, match_no: &str, default: &str) -> String {
    format!(
        r#"<JMESPathExtractor guiclass="JMESPathExtractorGui" testclass="JMESPathExtractor" testname="{name}" enabled="true">
          <stringProp name="JMESExtractor.referenceName">{name}</stringProp>
          <stringProp name="JMESExtractor.jmesPathExpr">{expr}</stringProp>
          <stringProp name="JMESExtractor.matchNumber">{match_no}</stringProp>
          <stringProp name="JMESExtractor.defaultValue">{default}</stringProp>
        </JMESPathExtractor><hashTree/>"#
    )
}

/// The JSON JMESPath Extractor as JMeter 5.6.3's: an array's items are the values (strings
/// bare, objects as JSON), -1 puts them all in `name_1`.., a match number picks one, nothing
/// found is the default with a count of 0; the next request carries them to the witness.
#[test]
fn jmespath_extractor_sets_values_match_numbers_counts_and_defaults() {
    let server = TestServer::builder()
        .route(
            "/json",
            Route::ok()
                .header("Content-Type", "application/json")
                .body(r#"{"items":[{"id":"a"},{"id":"b"},{"id":"c"}],"n":5}"#),
        )
        .route("/echo", Route::ok().record())
        .start();
    let port = server.addr().port();
    let run = TempRun::new("elements-jmespath");
    let extractors = [
        jmespath_extractor("ids", "items[*].id", "-1", ""),
        jmespath_extractor("second", "items[*].id", "2", ""),
        jmespath_extractor("beyond", "items[*].id", "9", "B"),
        jmespath_extractor("obj", "items[0]", "1", ""),
        jmespath_extractor("miss", "nothing", "1", "D"),
        jmespath_extractor("n", "n", "", ""),
    ]
    .concat();
    let values =
        "${ids_1},${ids_3},${ids_matchNr},${second},${beyond},${obj},${miss},${miss_matchNr},${n},${n_matchNr}";
    let echo = format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="echo" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/echo</stringProp>
          <stringProp name="HTTPSampler.method">POST</stringProp>
          <boolProp name="HTTPSampler.postBodyRaw">true</boolProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">{values}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>
          </collectionProp></elementProp>
        </HTTPSamplerProxy><hashTree/>"#
    );
    let body = [sampler("json", port, "/json", &extractors), echo].concat();
    let run_file = run.write("plan.jmx", jmx_plan(2, "2", &body));
    Stampede::new().arg("run").arg(&run_file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!((server.requests_to("/json"), server.requests_to("/echo")), (4, 4));
    let got: Vec<String> = server.bodies("/echo").iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    assert_eq!(got, vec![r#"a,c,3,b,B,{"id":"a"},D,0,5,1"#; 4]);
}

fn jmespath_assertion(path: &str, expected: &str, validate: bool, null: bool, invert: bool, regex: bool) -> String {
    format!(
        r#"<JMESPathAssertion guiclass="JMESPathAssertionGui" testclass="JMESPathAssertion" testname="jmes" enabled="true">
          <stringProp name="JMES_PATH">{path}</stringProp>
          <stringProp name="EXPECTED_VALUE">{expected}</stringProp>
          <boolProp name="JSONVALIDATION">{validate}</boolProp>
          <boolProp name="EXPECT_NULL">{null}</boolProp>
          <boolProp name="INVERT">{invert}</boolProp>
          <boolProp name="ISREGEX">{regex}</boolProp>
        </JMESPathAssertion><hashTree/>"#
    )
}

/// The JSON JMESPath Assertion as JMeter 5.6.3's: existence, equality as text or as JSON, a
/// whole-text regex, null, inversion; an expected value that is neither fails (JMeter's
/// exception), and passes inverted; failures carry JMeter's messages.
#[test]
fn jmespath_assertion_passes_and_fails_each_sample_as_jmeter() {
    let server = TestServer::builder().route("/j", Route::ok().body(r#"{"a":{"b":"x"},"n":1,"arr":[1,2]}"#)).start();
    let port = server.addr().port();
    let run = TempRun::new("elements-jmespath-assert");
    let cases: [(&str, String, bool); 9] = [
        ("exists", jmespath_assertion("a.b", "", false, false, false, false), true),
        ("missing", jmespath_assertion("zz", "", false, false, false, false), false),
        ("equal", jmespath_assertion("a.b", "x", true, false, false, false), true),
        ("as_json", jmespath_assertion("arr", "[1, 2]", true, false, false, false), true),
        ("regex", jmespath_assertion("a.b", "x|y", true, false, false, true), true),
        ("null", jmespath_assertion("zz", "", true, true, false, false), true),
        ("inverted", jmespath_assertion("a.b", "x", true, false, true, false), false),
        ("not_json", jmespath_assertion("a.b", "y", true, false, false, false), false),
        ("not_json_inverted", jmespath_assertion("a.b", "y", true, false, true, false), true),
    ];
    let body: String = cases.iter().map(|(name, a, _)| sampler(name, port, "/j", a)).collect();
    let file = run.write("plan.jmx", jmx_plan(1, "2", &body));
    let jtl = run.root().join("results.jtl");
    Stampede::new()
        .arg("run")
        .arg(&file)
        .args(["-q", "--jtl"])
        .arg(&jtl)
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(server.requests_to("/j"), 18);
    let s = run.summary();
    for (name, _, passes) in &cases {
        let l = label(&s, name);
        assert_eq!(uint(&l, "samples"), 2, "{name}");
        assert_eq!(uint(&l, "errors"), if *passes { 0 } else { 2 }, "{name}");
    }
    let rows = std::fs::read_to_string(&jtl).unwrap();
    assert!(rows.contains("JMESPATH zz expected to exist"), "{rows}");
    assert!(rows.contains("Value expected not to be equal to x"), "{rows}");
}
