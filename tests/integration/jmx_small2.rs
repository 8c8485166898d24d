//! More of issue 32's rule (refuse only what JMeter refuses), each confirmed on JMeter 5.6.3
//! with a plan under `bench/jmeter/plans/small2-*.jmx`: what the witness receives, and
//! stampede's samples equal to what it served.

use crate::util::jmx::{raw_post as post, run_witnessed};
use crate::util::server::{RecordedRequest, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::time::Duration;

/// A plan with HTTP Request Defaults to the witness; `vars` user-defined variables.
fn plan(port: u16, vars: &[(&str, &str)], body: &str) -> String {
    let vars: String = vars
        .iter()
        .map(|(k, v)| {
            format!(
                r#"<elementProp name="{k}" elementType="Argument"><stringProp name="Argument.name">{k}</stringProp><stringProp name="Argument.value">{v}</stringProp></elementProp>"#
            )
        })
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="small2" enabled="true">
      <boolProp name="TestPlan.serialize_threadgroups">true</boolProp>
      <elementProp name="TestPlan.user_defined_variables" elementType="Arguments"><collectionProp name="Arguments.arguments">{vars}</collectionProp></elementProp>
    </TestPlan>
    <hashTree>
      <ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
        <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
      </ConfigTestElement><hashTree/>
      {body}
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#
    )
}

fn group(class: &str, name: &str, threads: &str, body: &str) -> String {
    format!(
        r#"<{class} guiclass="ThreadGroupGui" testclass="{class}" testname="{name}" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">1</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
      </{class}>
      <hashTree>{body}</hashTree>"#
    )
}

fn get(path: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{path}" enabled="true">
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

fn regex(name: &str, re: &str, match_no: i32, default: &str, empty: bool) -> String {
    format!(
        r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="re {name}" enabled="true">
            <stringProp name="RegexExtractor.refname">{name}</stringProp>
            <stringProp name="RegexExtractor.regex">{re}</stringProp>
            <stringProp name="RegexExtractor.template">$1$</stringProp>
            <stringProp name="RegexExtractor.default">{default}</stringProp>
            <boolProp name="RegexExtractor.default_empty_value">{empty}</boolProp>
            <stringProp name="RegexExtractor.match_number">{match_no}</stringProp>
          </RegexExtractor><hashTree/>"#
    )
}

fn witness() -> TestServer {
    TestServer::builder()
        .default_route(Route::ok().body(r#"{"result":{"token":"tok-1","id":"x-7"},"responseCode":"OK"}"#).record())
        .start()
}

/// Runs `plan.jmx` and returns what the witness received, after checking that stampede's
/// samples equal the requests it served.
fn run_plan(server: &TestServer, run: &TempRun, jmx: &str) -> Vec<RecordedRequest> {
    run_witnessed(server, run, &run.write("plan.jmx", jmx))
}

fn bodies(got: &[RecordedRequest]) -> Vec<(String, String)> {
    got.iter()
        .filter(|r| r.method == "POST")
        .map(|r| (r.target.clone(), String::from_utf8_lossy(&r.body).into_owned()))
        .collect()
}

/// JMeter 5.6.3 (`small2-zero-threads.jmx`): a plan whose every thread group reads 0 threads
/// (an unfilled `${__P(THREADS_COUNT,)}`, or `0`) loads, starts no thread, sends nothing and
/// ends with exit code 0; `check` warns, `--strict` refuses, and the run directory is whole.
#[test]
fn a_plan_whose_every_thread_group_has_0_threads_runs_and_sends_nothing() {
    let server = witness();
    let run = TempRun::new("small2-zero");
    let groups = [
        group("ThreadGroup", "unfilled", "${__P(THREADS_COUNT,)}", &get("/zero/a", "")),
        group("ThreadGroup", "zero", "0", &get("/zero/b", "")),
    ];
    let plan = run.write("plan.jmx", plan(server.addr().port(), &[], &groups.concat()));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("[WARNING] no thread will start"), "{}", check.stdout_str());
    let strict = Stampede::new().arg("check").arg(&plan).arg("--strict").run();
    strict.assert_exit(2);
    assert!(strict.stderr_str().contains("refused by --strict"), "{}", strict.stderr_str());
    let started = std::time::Instant::now();
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(Duration::from_secs(30))
        .run();
    out.assert_exit(0);
    assert!(out.stderr_str().contains("no thread will start"), "{}", out.stderr_str());
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(server.requests(), 0);
    let total = run.total();
    assert_eq!((uint(&total, "samples"), uint(&total, "errors")), (0, 0));
    for f in ["summary.json", "meta.json", "report.html"] {
        let text = std::fs::read_to_string(run.path().join(f)).unwrap();
        assert!(!text.contains("NaN") && !text.contains("Infinity"), "{f}");
    }
    // `report` reads it again; a threshold has nothing to judge and fails (exit 1).
    Stampede::new().arg("report").arg(run.path()).run().assert_exit(0);
    let judged = Stampede::new().arg("report").arg(run.path()).args(["--threshold", "p95<500ms"]).run();
    judged.assert_exit(1);
    // `stampede jmeter -n -t`: JMeter's own summary line for no sample, exit 0.
    let jtl = run.root().join("zero.jtl");
    let out = Stampede::new()
        .current_dir(run.root())
        .args(["jmeter", "-n", "-t"])
        .arg(&plan)
        .arg("-l")
        .arg(&jtl)
        .timeout(Duration::from_secs(30))
        .run();
    out.assert_exit(0);
    assert!(
        out.stdout_str().contains(
            "summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)"
        ),
        "{}",
        out.stdout_str()
    );
    assert_eq!(std::fs::read_to_string(&jtl).unwrap().lines().count(), 1, "the header alone");
    assert_eq!(server.requests(), 0);
}

/// JMeter 5.6.3 (`small2-zero-threads.jmx`): setUp and tearDown groups with threads still run
/// when the main group has 0, and a group of 0 beside one of 2 leaves the other running.
#[test]
fn setup_and_teardown_groups_run_beside_a_main_group_of_0_threads() {
    let server = witness();
    let run = TempRun::new("small2-zero-setup");
    let groups = [
        group("SetupThreadGroup", "setup", "1", &get("/zero/setup", "")),
        group("ThreadGroup", "main", "${__P(THREADS_COUNT,)}", &get("/zero/main", "")),
        group("ThreadGroup", "other", "2", &get("/zero/other", "")),
        group("PostThreadGroup", "teardown", "1", &get("/zero/teardown", "")),
    ];
    let got = run_plan(&server, &run, &plan(server.addr().port(), &[], &groups.concat()));
    let targets: Vec<&str> = got.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(targets, ["/zero/setup", "/zero/other", "/zero/other", "/zero/teardown"]);
}

const SHOW: &str = "t=${t} g=${t_g} g0=${t_g0} g1=${t_g1} g2=${t_g2} g3=${t_g3} nr=${t_matchNr} t1=${t_1} t2=${t_2}";

/// JMeter 5.6.3 (`small2-regex-groups.jmx`): a single-match Regular Expression Extractor sets
/// `t_g` (groups), `t_g0` (the whole match), `t_gK` (a group that took no part stays unset); a
/// response without a match removes them, default or not; match number -1 removes them and
/// a single match after it removes `t_matchNr` and `t_1`..; fewer groups unset the rest.
#[test]
fn a_single_match_regex_extractor_sets_and_removes_its_groups_as_jmeter() {
    let server = witness();
    let run = TempRun::new("small2-groups");
    let groups = r"([a-z]+)-(\d+)(z)?";
    let steps = [
        get("/g/src", &regex("t", groups, 2, "", false)),
        post("/g/match", SHOW),
        get("/g/miss", &regex("t", "(nomatch)(x)", 1, "", false)),
        post("/g/miss", SHOW),
        get("/g/again", &regex("t", groups, 1, "", false)),
        get("/g/missd", &regex("t", "(nomatch)(x)", 1, "D", false)),
        post("/g/missd", SHOW),
        get("/g/again2", &regex("t", r"([a-z]+)-(\d+)", 1, "", false)),
        get("/g/misse", &regex("t", "(nomatch)(x)", 1, "", true)),
        post("/g/misse", SHOW),
        get("/g/all", &regex("t", r"([a-z]+)-(\d+)", -1, "", false)),
        post("/g/all", SHOW),
        get("/g/single", &regex("t", "&quot;(OK)&quot;", 0, "", false)),
        post("/g/single", SHOW),
        get("/g/fewer", &regex("t", "x-(7)", 1, "", false)),
        post("/g/fewer", SHOW),
    ];
    let got =
        run_plan(&server, &run, &plan(server.addr().port(), &[], &group("ThreadGroup", "g", "1", &steps.concat())));
    let unset = "nr=${t_matchNr} t1=${t_1} t2=${t_2}";
    let none = "g=${t_g} g0=${t_g0} g1=${t_g1} g2=${t_g2} g3=${t_g3}";
    // As JMeter 5.6.3 sent them.
    let want = [
        ("/g/match", format!("t=x g=3 g0=x-7 g1=x g2=7 g3=${{t_g3}} {unset}")),
        ("/g/miss", format!("t=x {none} {unset}")),
        ("/g/missd", format!("t=D {none} {unset}")),
        ("/g/misse", format!("t= {none} {unset}")),
        ("/g/all", format!("t= {none} nr=2 t1=tok t2=x")),
        ("/g/single", format!("t=OK g=1 g0=\"OK\" g1=OK g2=${{t_g2}} g3=${{t_g3}} {unset}")),
        ("/g/fewer", format!("t=7 g=1 g0=x-7 g1=7 g2=${{t_g2}} g3=${{t_g3}} {unset}")),
    ];
    let want: Vec<(String, String)> = want.into_iter().map(|(p, b)| (p.to_string(), b)).collect();
    assert_eq!(bodies(&got), want);
    assert_eq!(got.len(), 16);
}

/// JMeter 5.6.3 (`small2-runtime-defaults.jmx`): a default that renders empty when the
/// extractor runs (`${empty}`) leaves a Regular Expression and a CSS Selector Extractor's
/// variable as it was, a Boundary Extractor's too when blank (`${blank}`, a space); the JSON
/// and XPath Extractors set it; a Regex default that renders a space is set.
#[test]
fn a_default_that_renders_empty_at_run_time_follows_each_extractors_rule() {
    let server = witness();
    let run = TempRun::new("small2-defaults");
    let extractors = [
        regex("r", "(nomatch)", 1, "${empty}", false),
        r#"<HtmlExtractor guiclass="HtmlExtractorGui" testclass="HtmlExtractor" testname="css" enabled="true">
            <stringProp name="HtmlExtractor.refname">c</stringProp><stringProp name="HtmlExtractor.expr">div.none</stringProp>
            <stringProp name="HtmlExtractor.default">${empty}</stringProp><stringProp name="HtmlExtractor.match_number">1</stringProp>
          </HtmlExtractor><hashTree/>"#
            .to_string(),
        r#"<BoundaryExtractor guiclass="BoundaryExtractorGui" testclass="BoundaryExtractor" testname="bd" enabled="true">
            <stringProp name="BoundaryExtractor.refname">b</stringProp><stringProp name="BoundaryExtractor.lboundary">[[</stringProp>
            <stringProp name="BoundaryExtractor.rboundary">]]</stringProp><stringProp name="BoundaryExtractor.default">${blank}</stringProp>
            <stringProp name="BoundaryExtractor.match_number">1</stringProp>
          </BoundaryExtractor><hashTree/>"#
            .to_string(),
        r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="json" enabled="true">
            <stringProp name="JSONPostProcessor.referenceNames">j</stringProp><stringProp name="JSONPostProcessor.jsonPathExprs">$.none</stringProp>
            <stringProp name="JSONPostProcessor.match_numbers">1</stringProp><stringProp name="JSONPostProcessor.defaultValues">${empty}</stringProp>
          </JSONPostProcessor><hashTree/>"#
            .to_string(),
        r#"<XPathExtractor guiclass="XPathExtractorGui" testclass="XPathExtractor" testname="xp" enabled="true">
            <stringProp name="XPathExtractor.default">${empty}</stringProp><stringProp name="XPathExtractor.refname">x</stringProp>
            <stringProp name="XPathExtractor.matchNumber">1</stringProp><stringProp name="XPathExtractor.xpathQuery">//none</stringProp>
            <boolProp name="XPathExtractor.tolerant">true</boolProp>
          </XPathExtractor><hashTree/>"#
            .to_string(),
        regex("re", "(nomatch)", 1, "${blank}", false),
    ];
    let steps = [get("/d/src", &extractors.concat()), post("/d/show", "r=${r} c=${c} b=${b} j=${j} x=${x} re=${re}")];
    let vars = [
        ("empty", ""),
        ("blank", " "),
        ("r", "before"),
        ("c", "before"),
        ("b", "before"),
        ("j", "before"),
        ("x", "before"),
        ("re", "before"),
    ];
    let got =
        run_plan(&server, &run, &plan(server.addr().port(), &vars, &group("ThreadGroup", "d", "1", &steps.concat())));
    assert_eq!(bodies(&got), [("/d/show".to_string(), "r=before c=before b=before j= x= re= ".to_string())]);
}

/// JMeter 5.6.3 (`small2-regex-groups.jmx`, `/g/single`): a single-match Regular Expression
/// Extractor removes the `t_matchNr` and `t_1`.. an earlier match number -1 extractor into the
/// same name left, whether or not the plan reads the groups; a miss does too.
#[test]
fn a_single_match_regex_extractor_removes_what_a_match_all_one_into_its_name_left() {
    let server = witness();
    let run = TempRun::new("small2-list");
    let show = "t=${t} nr=${t_matchNr} t1=${t_1} t2=${t_2}";
    let steps = [
        get("/l/all", &regex("t", r"([a-z]+)-(\d+)", -1, "", false)),
        post("/l/all", show),
        get("/l/single", &regex("t", "&quot;(OK)&quot;", 1, "", false)),
        post("/l/single", show),
        get("/l/all2", &regex("t", r"([a-z]+)-(\d+)", -1, "", false)),
        get("/l/miss", &regex("t", "(nomatch)", 1, "", false)),
        post("/l/miss", show),
    ];
    let got =
        run_plan(&server, &run, &plan(server.addr().port(), &[], &group("ThreadGroup", "l", "1", &steps.concat())));
    let want = [
        ("/l/all", "t=${t} nr=2 t1=tok t2=x"),
        ("/l/single", "t=OK nr=${t_matchNr} t1=${t_1} t2=${t_2}"),
        ("/l/miss", "t=OK nr=${t_matchNr} t1=${t_1} t2=${t_2}"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(p, b)| (p.to_string(), b.to_string())).collect();
    assert_eq!(bodies(&got), want);
    assert_eq!(got.len(), 7);
}
