//! JMX plan text for tests: the elements many tests build (an HTTP Request, a thread group, a
//! Constant Timer, a Loop Controller, a Header Manager, a JSR223 Sampler, a Response Assertion),
//! the plan around them, and running a plan with a results file. Each builder writes what
//! JMeter 5.6.3 saves, trimmed to the properties the tests set.

use super::server::{RecordedRequest, TestServer};
use super::stampede::{uint, OutputExt, Stampede, TempRun};
use std::path::{Path, PathBuf};

/// XML text of a value (a script, a header value): `&`, `<`, `>` and `"` escaped.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An element of `class` named `name` with string properties `props` (name, value: XML text
/// as written), and its hashTree holding `children`. A line of its own for each start tag and
/// property, as JMeter saves them: `check` names an element by the line it starts on.
pub fn element(class: &str, name: &str, props: &[(&str, &str)], children: &str) -> String {
    let props: String =
        props.iter().map(|(k, v)| format!("\n          <stringProp name=\"{k}\">{v}</stringProp>")).collect();
    format!(
        r#"<{class} testclass="{class}" testname="{name}" enabled="true">{props}
        </{class}><hashTree>{children}</hashTree>"#
    )
}

/// An HTTP Request of `method` to `domain`:`port` `path` (an empty property is JMeter's unset
/// one), holding `children`.
pub fn http(name: &str, domain: &str, port: &str, path: &str, method: &str, children: &str) -> String {
    let props = [
        ("HTTPSampler.domain", domain),
        ("HTTPSampler.port", port),
        ("HTTPSampler.path", path),
        ("HTTPSampler.method", method),
    ];
    element("HTTPSamplerProxy", name, &props, children)
}

/// A Constant Timer of `ms` milliseconds (text, as a plan holds it).
pub fn constant_timer(name: &str, ms: &str) -> String {
    element("ConstantTimer", name, &[("ConstantTimer.delay", ms)], "")
}

/// A Loop Controller of `loops` passes (text: `-1` is forever, `${var}` read at run time)
/// holding `children`.
pub fn loop_controller(name: &str, loops: &str, children: &str) -> String {
    format!(
        r#"<LoopController guiclass="LoopControlPanel" testclass="LoopController" testname="{name}" enabled="true">
          <boolProp name="LoopController.continue_forever">true</boolProp>
          <stringProp name="LoopController.loops">{loops}</stringProp>
        </LoopController><hashTree>{children}</hashTree>"#
    )
}

/// A thread group element (`class`: ThreadGroup, SetupThreadGroup, PostThreadGroup) of
/// `threads` users, each `loops` passes, going on after a failed sample, with more properties
/// `props` (a scheduler, a duration), holding `body`.
pub fn thread_group(class: &str, name: &str, threads: &str, loops: &str, props: &str, body: &str) -> String {
    format!(
        r#"<{class} guiclass="ThreadGroupGui" testclass="{class}" testname="{name}" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">{loops}</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>{props}
      </{class}>
      <hashTree>{body}</hashTree>"#
    )
}

/// HTTP Request Defaults sending to `domain`:`port`.
pub fn http_defaults(domain: &str, port: &str) -> String {
    format!(
        r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
        <stringProp name="HTTPSampler.domain">{domain}</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
      </ConfigTestElement><hashTree/>"#
    )
}

/// A whole plan: a Test Plan named `name` with properties `props` (run its thread groups
/// consecutively...), holding `body` (config elements, thread groups).
pub fn test_plan(name: &str, props: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="{name}" enabled="true">{props}</TestPlan>
    <hashTree>
      {body}
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#
    )
}

/// A Regular Expression Extractor named `name` setting `refname` from the first match of `re`
/// in `field` (`false`: the body, `true`: the response headers, `request_headers`...) as
/// `template` (`$1$`), with more properties `extra` (a default).
pub fn regex_extractor(name: &str, refname: &str, field: &str, re: &str, template: &str, extra: &str) -> String {
    format!(
        r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="{name}" enabled="true">
            <stringProp name="RegexExtractor.useHeaders">{field}</stringProp>
            <stringProp name="RegexExtractor.refname">{refname}</stringProp>
            <stringProp name="RegexExtractor.regex">{re}</stringProp>
            <stringProp name="RegexExtractor.template">{template}</stringProp>
            <stringProp name="RegexExtractor.match_number">1</stringProp>{extra}
          </RegexExtractor><hashTree/>"#
    )
}

/// A JSR223 Sampler running the Groovy script `text`.
pub fn jsr223_sampler(name: &str, text: &str) -> String {
    format!(
        r#"<JSR223Sampler guiclass="TestBeanGUI" testclass="JSR223Sampler" testname="{name}" enabled="true">
          <stringProp name="scriptLanguage">groovy</stringProp>
          <stringProp name="parameters"></stringProp>
          <stringProp name="filename"></stringProp>
          <stringProp name="cacheKey">true</stringProp>
          <stringProp name="script">{}</stringProp>
        </JSR223Sampler><hashTree/>"#,
        esc(text)
    )
}

/// A Header Manager named `h` with these headers (values escaped).
pub fn headers(pairs: &[(&str, &str)]) -> String {
    let escaped: Vec<(&str, String)> = pairs.iter().map(|(n, v)| (*n, esc(v))).collect();
    header_manager("h", &escaped.iter().map(|(n, v)| (*n, v.as_str())).collect::<Vec<_>>())
}

/// A Header Manager named `name` with these headers (values: XML text as written, `&quot;`...).
pub fn header_manager(name: &str, pairs: &[(&str, &str)]) -> String {
    let items: String = pairs
        .iter()
        .map(|(n, v)| {
            format!(
                r#"<elementProp name="" elementType="Header"><stringProp name="Header.name">{n}</stringProp><stringProp name="Header.value">{v}</stringProp></elementProp>"#
            )
        })
        .collect();
    format!(
        r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="{name}" enabled="true">
          <collectionProp name="HeaderManager.headers">{items}</collectionProp></HeaderManager><hashTree/>"#
    )
}

/// A Response Assertion named `name`: `field` (`Assertion.response_data`,
/// `Assertion.response_headers`...) tested against `text` (escaped) by `test_type` (2:
/// contains, 8: equals, 16: substring...).
pub fn response_assertion(name: &str, field: &str, test_type: u32, text: &str) -> String {
    format!(
        r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="{name}" enabled="true">
          <collectionProp name="Asserion.test_strings"><stringProp name="1">{}</stringProp></collectionProp>
          <stringProp name="Assertion.custom_message"></stringProp>
          <stringProp name="Assertion.test_field">{field}</stringProp>
          <boolProp name="Assertion.assume_success">false</boolProp>
          <intProp name="Assertion.test_type">{test_type}</intProp>
        </ResponseAssertion><hashTree/>"#,
        esc(text)
    )
}

/// `stampede run PLAN -q [-J port=PORT] --jtl JTL --out RUN`, the results file `out.jtl` beside
/// the run: the command (a timeout or more arguments may follow) and the results file's path.
pub fn run_with_jtl(run: &TempRun, plan: &Path, port: Option<u16>) -> (Stampede, PathBuf) {
    let jtl = run.root().join("out.jtl");
    let mut cmd = Stampede::new().arg("run").arg(plan).arg("-q");
    if let Some(port) = port {
        cmd = cmd.arg("-J").arg(format!("port={port}"));
    }
    (cmd.arg("--jtl").arg(&jtl).arg("--out").arg(run.path()), jtl)
}

/// A POST whose raw body is `body` (XML text: `${...}` shows variables as the witness receives
/// them).
pub fn raw_post(path: &str, body: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{path}" enabled="true">
          <boolProp name="HTTPSampler.postBodyRaw">true</boolProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"><elementProp name="" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">{body}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp></collectionProp></elementProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    )
}

/// Runs `plan` to its end (exit 0) and returns what `server` received, after checking that
/// stampede's samples equal the requests it served.
pub fn run_witnessed(server: &TestServer, run: &TempRun, plan: &Path) -> Vec<RecordedRequest> {
    let out = Stampede::new()
        .arg("run")
        .arg(plan)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(60))
        .run();
    out.assert_exit(0);
    let got = server.recorded_all();
    assert_eq!(uint(&run.total(), "samples"), server.requests(), "{got:?}");
    assert_eq!(got.len() as u64, server.requests());
    got
}
