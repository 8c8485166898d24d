//! JMeter's extractors and post-processors as the next request proves them: XPath, XPath2, CSS
//! selector, Jayway JSONPath and the plugins' JSON path, JMESPath, Perl5 regexes (a single match's
//! groups set and removed), Boundary; expressions and defaults read at run time, per sample; an
//! extractor that finds nothing leaves its variable unset; headers as a Regular Expression
//! Extractor sees them; the Debug PostProcessor.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::jmx_assertions::{var_assertion, DEFAULTS};
use crate::jmx_http_bodies::{
    group as group_small, http, plan as plan_small, run_plan as run_plan_small, targets, witness as witness_small,
};
use crate::jmx_timers::sampler as sampler_elements;
use crate::util::jmx::{raw_post as post, run_witnessed};
use crate::util::server::{RecordedRequest, Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub(crate) const XML: &str = r#"<?xml version="1.0"?><r><token id="t1">abc</token><item>1</item><item>2</item></r>"#;
const HTML: &str = r#"<html><body><form><input name="csrf" value="c5rf"><p>unclosed</form>
<span>say &quot;hi&amp;bye&quot;</span><a class="n" href="/x">First</a><a class="n" href="/y">Second
 link</a></body></html>"#;
pub(crate) const JSON: &str = r#"{"data":{"items":[{"id":7},{"id":8}]},"e1":"v1","my-key":"dash"}"#;

fn prop(name: &str, value: &str) -> String {
    format!(r#"<stringProp name="{name}">{value}</stringProp>"#)
}

/// An element of class `class` with string properties.
pub(crate) fn element(class: &str, name: &str, props: &[(&str, &str)]) -> String {
    element_with(class, name, props, "")
}

/// An element of class `class` with string properties and more properties written out.
fn element_with(class: &str, name: &str, props: &[(&str, &str)], more: &str) -> String {
    let props: String = props.iter().map(|(k, v)| prop(k, v)).collect();
    format!(
        r#"<{class} guiclass="X" testclass="{class}" testname="{name}" enabled="true">{props}{more}</{class}><hashTree/>"#
    )
}

pub(crate) fn xpath(name: &str, refname: &str, query: &str, extra: &[(&str, &str)]) -> String {
    let mut props = vec![
        ("XPathExtractor.refname", refname),
        ("XPathExtractor.xpathQuery", query),
        ("XPathExtractor.default", "XDEF"),
    ];
    props.extend_from_slice(extra);
    element("XPathExtractor", name, &props)
}

fn css(refname: &str, expr: &str, attribute: &str, match_no: &str) -> String {
    let props = [
        ("HtmlExtractor.refname", refname),
        ("HtmlExtractor.expr", expr),
        ("HtmlExtractor.attribute", attribute),
        ("HtmlExtractor.match_number", match_no),
        ("HtmlExtractor.default", "CDEF"),
    ];
    element("HtmlExtractor", refname, &props)
}

fn regex(refname: &str, re: &str, template: &str, match_no: &str, default: &str) -> String {
    let props = [
        ("RegexExtractor.useHeaders", "false"),
        ("RegexExtractor.refname", refname),
        ("RegexExtractor.regex", re),
        ("RegexExtractor.template", template),
        ("RegexExtractor.default", default),
        ("RegexExtractor.match_number", match_no),
    ];
    element("RegexExtractor", refname, &props)
}

/// A Response Assertion on `field` with test type `ty` and its patterns.
pub(crate) fn response_assertion(name: &str, field: &str, ty: u32, patterns: &[&str]) -> String {
    let strings: String = patterns.iter().enumerate().map(|(i, p)| prop(&i.to_string(), p)).collect();
    format!(
        r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="{name}" enabled="true">
            <collectionProp name="Asserion.test_strings">{strings}</collectionProp>
            <stringProp name="Assertion.test_field">{field}</stringProp>
            <intProp name="Assertion.test_type">{ty}</intProp>
          </ResponseAssertion><hashTree/>"#
    )
}

pub(crate) fn json_assertion(class: &str, name: &str, path: &str, expected: &str, regex: bool) -> String {
    let regex = regex.to_string();
    let props =
        [("JSON_PATH", path), ("EXPECTED_VALUE", expected), ("JSONVALIDATION", "true"), ("ISREGEX", regex.as_str())];
    element(class, name, &props)
}

pub(crate) fn size_on_var(name: &str, var: &str, size: &str) -> String {
    let props = [
        ("Assertion.test_field", "SizeAssertion.response_network_size"),
        ("SizeAssertion.size", size),
        ("SizeAssertion.operator", "1"),
        ("Assertion.scope", "variable"),
        ("Scope.variable", var),
    ];
    element("SizeAssertion", name, &props)
}

const PLUGIN_EXTRACTOR: &str = "com.atlantbh.jmeter.plugins.jsonutils.jsonpathextractor.JSONPathExtractor";
pub(crate) const PLUGIN_ASSERTION: &str = "com.atlantbh.jmeter.plugins.jsonutils.jsonpathassertion.JSONPathAssertion";

#[test]
fn extracted_values_reach_the_next_request_as_jmeter_extracts_them() {
    let server = TestServer::builder()
        .route("/xml", Route::ok().body(XML).header("Content-Type", "text/xml").record())
        .route("/html", Route::ok().body(HTML).header("Content-Type", "text/html").record())
        .route("/json", Route::ok().body(JSON).header("Content-Type", "application/json").record())
        .route("/regex", Route::ok().body("token=abc123; token=def456;").record())
        .route("/send", Route::ok().record())
        .start();
    let run = TempRun::new("jmx-extractors");
    let xml_children = [
        xpath("tok", "tok", "//token/@id", &[]),
        xpath("items", "items", "//item", &[("XPathExtractor.matchNumber", "-1")]),
        xpath("frag", "frag", "//token", &[("XPathExtractor.fragment", "true")]),
        xpath("count", "nitems", "count(//item)", &[]),
        xpath("none", "none", "//missing", &[]),
        element("XPathAssertion", "has-token", &[("XPath.xpath", "//token[@id='t1']")]),
        // A Size Assertion on a variable reads its value as the size.
        size_on_var("n-size", "nitems", "2"),
    ]
    .concat();
    let html_children = [
        css("csrf", "input[name=csrf]", "value", "1"),
        css("link2", "a.n", "", "2"),
        css("hrefs", "a.n", "href", "-1"),
        css("nolink", "a.none", "", "1"),
        xpath("tolerant", "tcsrf", "//input[@name='csrf']/@value", &[("XPathExtractor.tolerant", "true")]),
        // "Body (unescaped)": HTML references decoded before matching.
        regex("said", "say &quot;([^&quot;]+)&quot;", "$1$", "1", "SDEF").replace(
            "<stringProp name=\"RegexExtractor.useHeaders\">false</stringProp>",
            "<stringProp name=\"RegexExtractor.useHeaders\">unescaped</stringProp>",
        ),
    ]
    .concat();
    let json_extractor = element(
        "JSONPostProcessor",
        "json",
        &[
            ("JSONPostProcessor.referenceNames", "e1;second;n;dash;bad"),
            ("JSONPostProcessor.jsonPathExprs", "e1;$.data.items.[1].id;$.data.items.length();$.my-key;$.bad["),
            ("JSONPostProcessor.match_numbers", "1;1;1;1;1"),
            ("JSONPostProcessor.defaultValues", "D1;D2;D3;D4;JDEF"),
        ],
    );
    let concat = element_with(
        "JSONPostProcessor",
        "concat",
        &[
            ("JSONPostProcessor.referenceNames", "allids"),
            ("JSONPostProcessor.jsonPathExprs", "$..id"),
            ("JSONPostProcessor.match_numbers", "-1"),
        ],
        r#"<boolProp name="JSONPostProcessor.compute_concat">true</boolProp>"#,
    );
    let json_children = [
        json_extractor,
        concat,
        element(PLUGIN_EXTRACTOR, "ids", &[("VAR", "ids"), ("JSONPATH", "$.data.items[*].id"), ("DEFAULT", "P")]),
        // Subject "variable": the JSON in `ids` (`[7,8]`).
        element(
            PLUGIN_EXTRACTOR,
            "first",
            &[("VAR", "first"), ("JSONPATH", "$[0]"), ("SUBJECT", "VAR"), ("VARIABLE", "ids")],
        ),
        json_assertion("JSONPathAssertion", "id-8", "$.data.items[?(@.id == 8)].id", "8", false),
        json_assertion(PLUGIN_ASSERTION, "e1-re", "$.e1", r"v\d", true),
    ]
    .concat();
    let regex_children = [
        // A backreference: Perl5 the regex crate refuses.
        regex("lb", r"t(o)ken=\w+;\s+t\1ken=(\w+)", "$2$", "1", ""),
        // Look-behind is not Perl5 (ORO): JMeter logs it and leaves the default.
        regex("behind", r"(?&lt;=token=)\w+", "$0$", "1", "BDEF"),
        // Invalid: JMeter logs it and leaves the default.
        regex("rdef", "*", "$1$", "1", "RDEF"),
        // Scope "JMeter Variable": the variable `e1` (`v1`) is read, not the body.
        regex("fromvar", r"v(\d)", "$1$", "1", "VDEF").replace(
            "</RegexExtractor>",
            r#"<stringProp name="Sample.scope">variable</stringProp><stringProp name="Scope.variable">e1</stringProp></RegexExtractor>"#,
        ),
        // -1: every match into all_N; the name itself keeps the default.
        regex("all", r"token=(\w+)", "$1$", "-1", "ADEF"),
        // Not a number: JMeter reads 0, a random match.
        regex("any", r"token=(\w+)", "$1$", "match no", ""),
        response_assertion("or", "Assertion.response_data", 2 | 32, &["nomatch", "token=def"]),
        response_assertion("message", "Assertion.response_message", 16, &["OK"]),
    ]
    .concat();
    let query: String = [
        "tok",
        "items_matchNr",
        "items_2",
        "frag",
        "nitems",
        "none",
        "badx",
        "csrf",
        "link2",
        "hrefs_matchNr",
        "hrefs_2",
        "nolink",
        "tcsrf",
        "said",
        "e1",
        "second",
        "n",
        "dash",
        "bad",
        "ids",
        "ids_1",
        "ids_matchNr",
        "allids_ALL",
        "first",
        "allids_2",
        "lb",
        "behind",
        "fromvar",
        "all",
        "all_matchNr",
        "all_2",
        "rdef",
        "any",
    ]
    .iter()
    .map(|v| arg(v, &format!("${{{v}}}"), true))
    .collect();
    let body = [
        DEFAULTS.to_string(),
        sampler("xml", "GET", "/xml", "", false, &xml_children),
        // JMeter compiles the query at run time: the default, the sample still a success (its
        // failed assertion result does not fail it), not a refused plan.
        sampler("xml-bad", "GET", "/xml", "", false, &xpath("bad", "badx", "//token[", &[])),
        sampler("html", "GET", "/html", "", false, &html_children),
        sampler("json", "GET", "/json", "", false, &json_children),
        sampler("regex", "GET", "/regex", "", false, &regex_children),
        sampler("send", "GET", "/send", &query, false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "2", &body));
    let port = format!("port={}", server.addr().port());
    let check = Stampede::new().arg("check").arg(&p).run();
    check.assert_exit(0);
    let out = check.stdout_str();
    assert!(out.lines().any(|l| l.contains("[WARNING]") && l.contains("invalid JSONPath `$.bad[`")), "{out}");
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    for label in ["xml", "xml-bad", "html", "json", "regex", "send"] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, 0), "{label}: {row:#}");
    }
    let sent = server.recorded("/send");
    assert_eq!(sent.len(), 2);
    let q = |name: &str| sent[1].query(name).unwrap_or_else(|| panic!("{name} not sent"));
    for (name, want) in [
        ("tok", "t1"),
        ("items_matchNr", "2"),
        ("items_2", "2"),
        ("frag", r#"<token id="t1">abc</token>"#),
        ("nitems", "2"),
        ("none", "XDEF"),
        ("badx", "XDEF"),
        ("csrf", "c5rf"),
        ("link2", "Second link"),
        ("hrefs_matchNr", "2"),
        ("hrefs_2", "/y"),
        ("nolink", "CDEF"),
        ("tcsrf", "c5rf"),
        ("said", "hi&bye"),
        ("e1", "v1"),
        ("second", "8"),
        // JMeter's JSON Extractor cannot run a path function: the default.
        ("n", "D3"),
        ("dash", "dash"),
        ("bad", "JDEF"),
        ("ids", "[7,8]"),
        ("ids_1", "7"),
        ("ids_matchNr", "2"),
        ("allids_ALL", "7,8"),
        ("first", "7"),
        ("allids_2", "8"),
        ("lb", "def456"),
        ("behind", "BDEF"),
        ("fromvar", "1"),
        ("all", "ADEF"),
        ("all_matchNr", "2"),
        ("all_2", "def456"),
        ("rdef", "RDEF"),
    ] {
        assert_eq!(q(name), want, "{name}");
    }
    assert!(["abc123", "def456"].contains(&q("any").as_str()), "{}", q("any"));
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// JMeter 5.6.3 (`small-json.jmx`): the JSON Extractor trims names and paths, not defaults:
/// `d1; d2` gives the second variable ` d2`.
#[test]
fn json_extractor_defaults_keep_their_leading_space() {
    let server = witness_small();
    let run = TempRun::new("small-json");
    let json = r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="json" enabled="true">
            <stringProp name="JSONPostProcessor.referenceNames">a; b;c</stringProp>
            <stringProp name="JSONPostProcessor.jsonPathExprs">$.a; $.none;$.nothing</stringProp>
            <stringProp name="JSONPostProcessor.match_numbers">1</stringProp>
            <stringProp name="JSONPostProcessor.defaultValues">d1; d2;  d3</stringProp>
          </JSONPostProcessor><hashTree/>"#;
    let samplers =
        [http("src", "GET", "/src", "", json), http("got", "GET", "/got?a=${a}&amp;b=${b}&amp;c=${c}", "", "")];
    let got = run_plan_small(
        &server,
        &run,
        &plan_small(server.addr().port(), &group_small("g", 1, 1, None, &samplers.concat())),
        &[],
    );
    assert_eq!(targets(&got), ["/src", "/got?a=x&b=%20d2&c=%20%20d3"]);
}

/// A plan with HTTP Request Defaults to the witness; `vars` user-defined variables.
pub(crate) fn plan(port: u16, vars: &[(&str, &str)], body: &str) -> String {
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

pub(crate) fn group(class: &str, name: &str, threads: &str, body: &str) -> String {
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

pub(crate) fn get(path: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{path}" enabled="true">
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

fn regex_groups(name: &str, re: &str, match_no: i32, default: &str, empty: bool) -> String {
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

pub(crate) fn witness() -> TestServer {
    TestServer::builder()
        .default_route(Route::ok().body(r#"{"result":{"token":"tok-1","id":"x-7"},"responseCode":"OK"}"#).record())
        .start()
}

/// Runs `plan.jmx` and returns what the witness received, after checking that stampede's
/// samples equal the requests it served.
pub(crate) fn run_plan(server: &TestServer, run: &TempRun, jmx: &str) -> Vec<RecordedRequest> {
    run_witnessed(server, run, &run.write("plan.jmx", jmx))
}

fn bodies(got: &[RecordedRequest]) -> Vec<(String, String)> {
    got.iter()
        .filter(|r| r.method == "POST")
        .map(|r| (r.target.clone(), String::from_utf8_lossy(&r.body).into_owned()))
        .collect()
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
        get("/g/src", &regex_groups("t", groups, 2, "", false)),
        post("/g/match", SHOW),
        get("/g/miss", &regex_groups("t", "(nomatch)(x)", 1, "", false)),
        post("/g/miss", SHOW),
        get("/g/again", &regex_groups("t", groups, 1, "", false)),
        get("/g/missd", &regex_groups("t", "(nomatch)(x)", 1, "D", false)),
        post("/g/missd", SHOW),
        get("/g/again2", &regex_groups("t", r"([a-z]+)-(\d+)", 1, "", false)),
        get("/g/misse", &regex_groups("t", "(nomatch)(x)", 1, "", true)),
        post("/g/misse", SHOW),
        get("/g/all", &regex_groups("t", r"([a-z]+)-(\d+)", -1, "", false)),
        post("/g/all", SHOW),
        get("/g/single", &regex_groups("t", "&quot;(OK)&quot;", 0, "", false)),
        post("/g/single", SHOW),
        get("/g/fewer", &regex_groups("t", "x-(7)", 1, "", false)),
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
        regex_groups("r", "(nomatch)", 1, "${empty}", false),
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
        regex_groups("re", "(nomatch)", 1, "${blank}", false),
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
        get("/l/all", &regex_groups("t", r"([a-z]+)-(\d+)", -1, "", false)),
        post("/l/all", show),
        get("/l/single", &regex_groups("t", "&quot;(OK)&quot;", 1, "", false)),
        post("/l/single", show),
        get("/l/all2", &regex_groups("t", r"([a-z]+)-(\d+)", -1, "", false)),
        get("/l/miss", &regex_groups("t", "(nomatch)", 1, "", false)),
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
    let body = [sampler_elements("d", port, "/d", debug), sampler_elements("plain", port, "/plain", "")].concat();
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
    let body = [sampler_elements("json", port, "/json", &extractors), echo].concat();
    let run_file = run.write("plan.jmx", jmx_plan(2, "2", &body));
    Stampede::new().arg("run").arg(&run_file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!((server.requests_to("/json"), server.requests_to("/echo")), (4, 4));
    let got: Vec<String> = server.bodies("/echo").iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    assert_eq!(got, vec![r#"a,c,3,b,B,{"id":"a"},D,0,5,1"#; 4]);
}

/// A Boundary Extractor into `b` between `"${key}":"` and `"`.
const BOUNDARY: &str = r#"<BoundaryExtractor guiclass="BoundaryExtractorGui" testclass="BoundaryExtractor" testname="b" enabled="true">
                <stringProp name="BoundaryExtractor.useHeaders">false</stringProp>
                <stringProp name="BoundaryExtractor.refname">b</stringProp>
                <stringProp name="BoundaryExtractor.lboundary">"${key}":"</stringProp>
                <stringProp name="BoundaryExtractor.rboundary">"</stringProp>
                <stringProp name="BoundaryExtractor.match_number">1</stringProp>
              </BoundaryExtractor><hashTree/>"#;

pub(crate) const BODY: &str = r#"{"result":{"token":"tok-1","id":"x-7"}}"#;

pub(crate) fn regex_json(name: &str, re: &str, template: &str) -> String {
    crate::util::jmx::regex_extractor(name, name, "false", re, template, "")
}

pub(crate) fn json_extractor(names: &str, paths: &str, defaults: &str) -> String {
    format!(
        r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="json" enabled="true">
                <stringProp name="JSONPostProcessor.referenceNames">{names}</stringProp>
                <stringProp name="JSONPostProcessor.jsonPathExprs">{paths}</stringProp>
                <stringProp name="JSONPostProcessor.defaultValues">{defaults}</stringProp>
              </JSONPostProcessor><hashTree/>"#
    )
}

fn json_assertion_json(name: &str, path: &str, expected: Option<&str>, invert: bool) -> String {
    format!(
        r#"<JSONPathAssertion guiclass="JSONPathAssertionGui" testclass="JSONPathAssertion" testname="{name}" enabled="true">
                <stringProp name="JSON_PATH">{path}</stringProp>
                <stringProp name="EXPECTED_VALUE">{}</stringProp>
                <boolProp name="JSONVALIDATION">{}</boolProp>
                <boolProp name="EXPECT_NULL">false</boolProp>
                <boolProp name="INVERT">{invert}</boolProp>
                <boolProp name="ISREGEX">false</boolProp>
              </JSONPathAssertion><hashTree/>"#,
        expected.unwrap_or(""),
        expected.is_some()
    )
}

/// Runs `body` (1 user, `loops` iterations) against `server`; returns the run and `check`'s
/// output of the plan, which `--strict` refuses when it `warns`.
pub(crate) fn run_plan_json(
    server: &TestServer,
    name: &str,
    loops: &str,
    body: &str,
    warns: bool,
) -> (TempRun, String) {
    let run = TempRun::new(name);
    let p = run.write("plan.jmx", jmx_plan(1, loops, &format!("{DEFAULTS}{body}")));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let check = Stampede::new().arg("check").arg(&p).args(["-J", &port]).run();
    let strict = Stampede::new().arg("check").arg(&p).args(["--strict", "-J", &port]).run();
    assert_eq!(strict.status.code() == Some(0), !warns, "--strict refuses what goes wrong at run time");
    (run, check.stdout_str())
}

/// `$.result.${key}` (and a regular expression `"${key}":"([^"]+)"`, and a Boundary
/// Extractor's left boundary `"${key}":"`) follows `key` from sample
/// to sample (`token`, `id`, `token`): the extracted value the next request carries and the assertion's verdict change with it; a path
/// that does not compile once rendered sets the default (extractor) or fails (assertion, unless
/// inverted), as in JMeter.
#[test]
fn json_paths_with_run_time_variables_are_evaluated_per_sample() {
    let keys = AtomicUsize::new(0);
    let server = TestServer::builder()
        .route(
            "/key",
            Route::handler(move |_| {
                let k = ["token", "id"][keys.fetch_add(1, Ordering::SeqCst) % 2];
                Reply::ok().body(format!(r#"{{"key":"{k}","bad":"result","limit":"50"}}"#))
            })
            .record(),
        )
        .route("/slow", Route::ok().delay(Duration::from_millis(200)).record())
        .default_route(Route::ok().body(BODY).record())
        .start();
    let extractors = [
        regex_json("key", r#""key":"(\w+)""#, "$1$"),
        regex_json("bad", r#""bad":"(\w+)""#, "$1$["),
        regex_json("limit", r#""limit":"(\d+)""#, "$1$"),
    ]
    .concat();
    // A Duration Assertion's limit set while the test runs: 50 ms, which /slow exceeds.
    let duration = r#"<DurationAssertion guiclass="DurationAssertionGui" testclass="DurationAssertion" testname="limit" enabled="true">
                <stringProp name="DurationAssertion.duration">${limit}</stringProp>
              </DurationAssertion><hashTree/>"#;
    let body = [
        sampler("key", "GET", "/key", "", false, &extractors),
        sampler(
            "extract",
            "GET",
            "/extract",
            "",
            false,
            &(json_extractor("v;w", "$.result.${key};$.${bad}", "none;dflt")
                + &regex_json("r", r#""${key}":"([^"]+)""#, "$1$")
                + BOUNDARY),
        ),
        sampler("use", "GET", "/use?v=${v}&amp;w=${w}&amp;r=${r}&amp;b=${b}", "", false, ""),
        sampler(
            "assert",
            "GET",
            "/assert",
            "",
            false,
            &json_assertion_json("is tok-1", "$.result.${key}", Some("tok-1"), false),
        ),
        sampler("bad", "GET", "/bad", "", false, &json_assertion_json("bad", "$.${bad}", None, false)),
        sampler("bad-inv", "GET", "/bad-inv", "", false, &json_assertion_json("bad-inv", "$.${bad}", None, true)),
        sampler("slow", "GET", "/slow", "", false, duration),
    ]
    .concat();
    let (run, _) = run_plan_json(&server, "jmx-json-runtime-path", "3", &body, false);
    let used: Vec<_> =
        server.recorded("/use").iter().map(|r| (r.query("v"), r.query("w"), r.query("r"), r.query("b"))).collect();
    let want = |v: &str| (Some(v.to_string()), Some("dflt".to_string()), Some(v.to_string()), Some(v.to_string()));
    assert_eq!(used, [want("tok-1"), want("x-7"), want("tok-1")]);
    for (label, errors) in [("extract", 0), ("use", 0), ("assert", 1), ("bad", 3), ("bad-inv", 0), ("slow", 3)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (3, errors), "{label}: {row:#}");
        assert_eq!(server.requests_to(&format!("/{label}")), 3, "{label}");
    }
    assert_eq!(server.requests(), 21);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// JMeter's JSON Extractor throws on each sample when its names, paths and defaults differ in
/// number (two names and no default too): nothing is set, the post-processors after it and the
/// assertions of that sample do not run, the thread goes on.
#[test]
fn a_json_extractor_whose_lists_differ_throws_per_sample_and_the_thread_goes_on() {
    let server = TestServer::builder().default_route(Route::ok().body(BODY).record()).start();
    let never = var_assertion("never", "v", 16, "no such text").replace(
        r#"<stringProp name="Assertion.scope">variable</stringProp>"#,
        r#"<stringProp name="Assertion.scope">parent</stringProp>"#,
    );
    let children =
        [json_extractor("a", "$.result.token;$.result.id", "d1;d2"), regex_json("after", r#""(token)""#, "$1$"), never]
            .concat();
    let body = [
        sampler("fewer", "GET", "/fewer", "", false, &children),
        sampler("use", "GET", "/use?a=${a}&amp;after=${after}", "", false, ""),
        sampler(
            "no-defaults",
            "GET",
            "/no-defaults",
            "",
            false,
            &json_extractor("b;c", "$.result.token;$.result.id", ""),
        ),
        sampler("use2", "GET", "/use2?b=${b}", "", false, ""),
        sampler(
            "trailing",
            "GET",
            "/trailing",
            "",
            false,
            &json_extractor("g;h;", "$.result.token;$.result.id;", "x;y"),
        ),
        sampler("use3", "GET", "/use3?g=${g}&amp;h=${h}", "", false, ""),
    ]
    .concat();
    let udv = r#"<Arguments guiclass="ArgumentsPanel" testclass="Arguments" testname="init" enabled="true">
          <collectionProp name="Arguments.arguments">
            <elementProp name="a" elementType="Argument"><stringProp name="Argument.name">a</stringProp><stringProp name="Argument.value">init</stringProp></elementProp>
            <elementProp name="after" elementType="Argument"><stringProp name="Argument.name">after</stringProp><stringProp name="Argument.value">init</stringProp></elementProp>
            <elementProp name="b" elementType="Argument"><stringProp name="Argument.name">b</stringProp><stringProp name="Argument.value">init</stringProp></elementProp>
          </collectionProp></Arguments><hashTree/>"#;
    let (run, check) = run_plan_json(&server, "jmx-json-count-mismatch", "2", &format!("{udv}{body}"), true);
    assert_eq!(check.matches("JMeter throws when it runs").count(), 2, "{check}");
    for r in server.recorded("/use") {
        assert_eq!((r.query("a").as_deref(), r.query("after").as_deref()), (Some("init"), Some("init")));
    }
    for r in server.recorded("/use2") {
        assert_eq!(r.query("b").as_deref(), Some("init"));
    }
    for r in server.recorded("/use3") {
        assert_eq!((r.query("g").as_deref(), r.query("h").as_deref()), (Some("tok-1"), Some("x-7")));
    }
    // The assertion that never holds did not run: no error.
    for label in ["fewer", "use", "no-defaults", "use2", "trailing", "use3"] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, 0), "{label}: {row:#}");
    }
    assert_eq!(server.requests(), 12);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// A body both an XML parser and an HTML one read: two `p` elements told apart by `id`.
const DOC: &str = r#"<r><p id="token" data-a="A1">tok-1</p><p id="id" data-a="A2">x-7</p></r>"#;

pub(crate) fn regex_per_sample(name: &str, re: &str) -> String {
    format!(
        r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="{name}" enabled="true">
                <stringProp name="RegexExtractor.useHeaders">false</stringProp>
                <stringProp name="RegexExtractor.refname">{name}</stringProp>
                <stringProp name="RegexExtractor.regex">{re}</stringProp>
                <stringProp name="RegexExtractor.template">$1$</stringProp>
                <stringProp name="RegexExtractor.match_number">1</stringProp>
              </RegexExtractor><hashTree/>"#
    )
}

fn xpath_per_sample(class: &str, name: &str, query: &str, default: &str) -> String {
    let p = if class == "XPath2Extractor" { "XPathExtractor2" } else { "XPathExtractor" };
    format!(
        r#"<{class} guiclass="{class}Gui" testclass="{class}" testname="{name}" enabled="true">
                <stringProp name="{p}.default">{default}</stringProp>
                <stringProp name="{p}.refname">{name}</stringProp>
                <stringProp name="{p}.matchNumber">1</stringProp>
                <stringProp name="{p}.xpathQuery">{query}</stringProp>
              </{class}><hashTree/>"#
    )
}

fn css_per_sample(name: &str, expr: &str, attribute: &str, default: &str) -> String {
    format!(
        r#"<HtmlExtractor guiclass="HtmlExtractorGui" testclass="HtmlExtractor" testname="{name}" enabled="true">
                <stringProp name="HtmlExtractor.refname">{name}</stringProp>
                <stringProp name="HtmlExtractor.expr">{expr}</stringProp>
                <stringProp name="HtmlExtractor.attribute">{attribute}</stringProp>
                <stringProp name="HtmlExtractor.default">{default}</stringProp>
                <stringProp name="HtmlExtractor.match_number">1</stringProp>
              </HtmlExtractor><hashTree/>"#
    )
}

fn xpath_assertion(name: &str, query: &str) -> String {
    format!(
        r#"<XPathAssertion guiclass="XPathAssertionGui" testclass="XPathAssertion" testname="{name}" enabled="true">
                <boolProp name="XPath.negate">false</boolProp>
                <stringProp name="XPath.xpath">{query}</stringProp>
              </XPathAssertion><hashTree/>"#
    )
}

fn size_assertion(name: &str, size: &str) -> String {
    format!(
        r#"<SizeAssertion guiclass="SizeAssertionGui" testclass="SizeAssertion" testname="{name}" enabled="true">
                <stringProp name="Assertion.test_field">SizeAssertion.response_code</stringProp>
                <stringProp name="SizeAssertion.size">{size}</stringProp>
                <intProp name="SizeAssertion.operator">1</intProp>
              </SizeAssertion><hashTree/>"#
    )
}

/// Runs `body` (1 user, `loops` iterations) against `server`; `check --strict` accepts it.
fn run_plan_per_sample(server: &TestServer, name: &str, loops: &str, body: &str) -> TempRun {
    let run = TempRun::new(name);
    let p = run.write("plan.jmx", jmx_plan(1, loops, &format!("{DEFAULTS}{body}")));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    Stampede::new().arg("check").arg(&p).args(["--strict", "-J", &port]).run().assert_exit(0);
    run
}

/// The key a user reads from `/key` follows `token`, `id`, `token`: the XPath, XPath2 and CSS
/// Extractors (selector and attribute) read it for each sample; a query or selector that does
/// not compile once rendered sets the default; the XPath Assertion and the Size Assertion
/// (response code of 3 characters, then a size that is no number) judge each sample by it, as
/// JMeter 5.6.3 does (bench/jmeter/plans/rtvals-markup.jmx).
#[test]
fn markup_expressions_and_sizes_with_run_time_variables_are_read_per_sample() {
    let keys = AtomicUsize::new(0);
    let server = TestServer::builder()
        .route(
            "/key",
            Route::handler(move |_| {
                let body = match keys.fetch_add(1, Ordering::SeqCst) % 2 {
                    0 => r#"{"key":"token","attr":"data-a","n":"3","bad":"p"}"#,
                    _ => r#"{"key":"id","attr":"","n":"x","bad":"["}"#,
                };
                Reply::ok().body(body)
            })
            .record(),
        )
        .default_route(Route::ok().body(DOC).record())
        .start();
    let read = [
        regex_per_sample("key", r#""key":"(\w+)""#),
        regex_per_sample("attr", r#""attr":"([^"]*)""#),
        regex_per_sample("n", r#""n":"(\w+)""#),
        regex_per_sample("bad", r#""bad":"([^"]+)""#),
    ]
    .concat();
    let extract = [
        xpath_per_sample("XPathExtractor", "x", "/r/p[@id=&apos;${key}&apos;]", "NONE"),
        xpath_per_sample("XPath2Extractor", "x2", "/r/p[@id=&apos;${key}&apos;]", "NONE"),
        xpath_per_sample("XPathExtractor", "xb", "/r/${bad}", "dflt"),
        css_per_sample("c", "p#${key}", "${attr}", "NONE"),
        css_per_sample("cb", "${bad}", "", "dflt"),
    ]
    .concat();
    let body = [
        sampler("key", "GET", "/key", "", false, &read),
        sampler("extract", "GET", "/extract", "", false, &extract),
        sampler("use", "GET", "/use?x=${x}&amp;x2=${x2}&amp;xb=${xb}&amp;c=${c}&amp;cb=${cb}", "", false, ""),
        sampler(
            "xpath",
            "GET",
            "/xpath",
            "",
            false,
            &xpath_assertion("is tok-1", "/r/p[@id=&apos;${key}&apos;][text()=&apos;tok-1&apos;]"),
        ),
        sampler("xpath-bad", "GET", "/xpath-bad", "", false, &xpath_assertion("bad", "/r/${bad}")),
        sampler("size", "GET", "/size", "", false, &size_assertion("code", "${n}")),
    ]
    .concat();
    let run = run_plan_per_sample(&server, "jmx-runtime-markup", "3", &body);
    let used: Vec<Vec<Option<String>>> = server
        .recorded("/use")
        .iter()
        .map(|r| ["x", "x2", "xb", "c", "cb"].iter().map(|k| r.query(k)).collect())
        .collect();
    let row = |v: [&str; 5]| v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
    assert_eq!(
        used,
        [
            row(["tok-1", "tok-1", "tok-1", "A1", "tok-1"]),
            row(["x-7", "x-7", "dflt", "x-7", "dflt"]),
            row(["tok-1", "tok-1", "tok-1", "A1", "tok-1"]),
        ]
    );
    for (label, errors) in [("key", 0), ("extract", 0), ("use", 0), ("xpath", 1), ("xpath-bad", 1), ("size", 1)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (3, errors), "{label}: {row:#}");
        assert_eq!(server.requests_to(&format!("/{label}")), 3, "{label}");
    }
    assert_eq!(server.requests(), 18);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// A GET of `path` that does not follow redirects, with `children` (extractors, headers).
pub(crate) fn get_unset(name: &str, path: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"/></elementProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">false</boolProp>
          <boolProp name="HTTPSampler.auto_redirects">false</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>
        </HTTPSamplerProxy>
        <hashTree>{children}</hashTree>"#
    )
}

/// A Header Manager sending each (name, value).
pub(crate) fn headers(pairs: &[(&str, &str)]) -> String {
    crate::util::jmx::header_manager("H", pairs)
}

/// A Regular Expression Extractor into `name` reading `field` (`false`: the body, `true`: the
/// response headers, `request_headers`), with `extra` properties (a default).
pub(crate) fn regex_unset(name: &str, field: &str, re: &str, extra: &str) -> String {
    crate::util::jmx::regex_extractor(name, name, field, re, "$1$", extra)
}

pub(crate) fn run_plan_unset(run: &TempRun, server: &TestServer, plan: String) {
    let p = run.write("plan.jmx", plan);
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
}

#[test]
fn an_extractor_that_finds_nothing_with_an_empty_default_leaves_its_variable_unset_as_jmeter() {
    let body = r#"{"result":{"token":"tok-1"}}"#;
    let server = TestServer::builder().default_route(Route::ok().body(body).record()).start();
    let run = TempRun::new("jmx-unset-extractors");
    let empty_default = r#"<stringProp name="RegexExtractor.default"></stringProp>"#;
    let use_empty = r#"<stringProp name="RegexExtractor.default"></stringProp><boolProp name="RegexExtractor.default_empty_value">true</boolProp>"#;
    let boundary = r#"<BoundaryExtractor guiclass="BoundaryExtractorGui" testclass="BoundaryExtractor" testname="bnd" enabled="true">
            <stringProp name="BoundaryExtractor.useHeaders">false</stringProp>
            <stringProp name="BoundaryExtractor.refname">bnd</stringProp>
            <stringProp name="BoundaryExtractor.lboundary">nomatch=</stringProp>
            <stringProp name="BoundaryExtractor.rboundary">;</stringProp>
            <stringProp name="BoundaryExtractor.default">  </stringProp>
            <stringProp name="BoundaryExtractor.match_number">1</stringProp>
          </BoundaryExtractor><hashTree/>"#;
    let json = r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="jdef" enabled="true">
            <stringProp name="JSONPostProcessor.referenceNames">jdef</stringProp>
            <stringProp name="JSONPostProcessor.jsonPathExprs">$.nothing</stringProp>
            <stringProp name="JSONPostProcessor.match_numbers">1</stringProp>
            <stringProp name="JSONPostProcessor.defaultValues"></stringProp>
          </JSONPostProcessor><hashTree/>"#;
    let plan_body = [
        DEFAULTS.to_string(),
        // `later` is set by u3: unset in the first iteration, `tok-1` in the second.
        get_unset(
            "u1",
            "/u1",
            &[
                headers(&[("X-Later", "${later}")]),
                regex_unset("token", "false", r"nomatch=(\w+)", empty_default),
                // Named by no function or script: only its own reference can show it unset.
                regex_unset("miss", "false", r"nomatch=(\w+)", empty_default),
                regex_unset("blank", "false", r"nomatch=(\w+)", use_empty),
                boundary.to_string(),
                json.to_string(),
            ]
            .concat(),
        ),
        get_unset(
            "u2",
            "/u2",
            &headers(&[
                ("X-Token", "${token}"),
                ("X-Miss", "${miss}"),
                ("X-Blank", "[${blank}]"),
                ("X-Null", r#"${__groovy(vars.get(&quot;token&quot;) == null)} ${__groovy(vars.get(&quot;blank&quot;) == null)}"#),
                ("X-Defined", "${__isVarDefined(token)} ${__isVarDefined(blank)}"),
                ("X-Bnd", "${bnd}"),
                ("X-Jdef", "[${jdef}]"),
            ]),
        ),
        get_unset("u3", "/u3", &regex_unset("later", "false", r#""token":"([\w-]+)""#, "")),
    ]
    .concat();
    run_plan_unset(&run, &server, jmx_plan(2, "2", &plan_body));

    // What JMeter 5.6.3 sends for the same plan (bench/jmeter/plans/unset-vars.jmx).
    let u2 = server.recorded("/u2");
    assert_eq!(u2.len(), 4);
    for r in &u2 {
        assert_eq!(r.header("X-Token"), Some("${token}"), "unset: its reference as it is");
        assert_eq!(r.header("X-Miss"), Some("${miss}"), "unset: its reference as it is");
        assert_eq!(r.header("X-Blank"), Some("[]"), "use empty default: set to \"\"");
        assert_eq!(r.header("X-Null"), Some("true false"));
        assert_eq!(r.header("X-Defined"), Some("false true"));
        assert_eq!(r.header("X-Bnd"), Some("${bnd}"), "a blank Boundary default is none");
        assert_eq!(r.header("X-Jdef"), Some("[]"), "the JSON Extractor sets its empty default");
    }
    let mut later: Vec<String> =
        server.recorded("/u1").iter().map(|r| r.header("X-Later").unwrap_or("-").to_string()).collect();
    later.sort();
    assert_eq!(later, ["${later}", "${later}", "tok-1", "tok-1"]);
    for label in ["u1", "u2", "u3"] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 4, "{label}: {row:#}");
        assert_eq!(uint(&row, "errors"), 0, "{label}: {row:#}");
        assert_eq!(server.requests_to(&format!("/{label}")), 4);
    }
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

#[test]
fn a_location_extracted_from_the_response_headers_drives_the_next_request_as_in_jmeter() {
    // The Sunbird login.jmx shape: a 302's `Location: (.*)`, sent as the next sampler's path.
    let port = std::sync::Arc::new(std::sync::OnceLock::<u16>::new());
    let p = port.clone();
    let server = TestServer::builder()
        .route(
            "/start",
            Route::handler(move |_| {
                let port = p.get().copied().unwrap_or(9);
                // A header after it: its line's `\r` would be in the capture.
                Reply::status(302)
                    .header("Location", format!("http://127.0.0.1:{port}/auth?state=s1&code=c2"))
                    .header("Cache-Control", "no-store")
            }),
        )
        .route("/auth", Route::ok().body("in").record())
        .route("/echo", Route::ok().record())
        .start();
    port.set(server.addr().port()).unwrap();
    let run = TempRun::new("jmx-unset-location");
    let plan_body = [
        DEFAULTS.to_string(),
        get_unset(
            "start",
            "/start",
            &[
                regex_unset(
                    "redirect_1",
                    "true",
                    "Location: (.*)",
                    r#"<stringProp name="RegexExtractor.default">redirect_1_NotFound</stringProp>"#,
                ),
                regex_unset("code", "true", r"HTTP/1.1 (\d+)", ""),
                regex_unset("req_host", "request_headers", "Host: (.*)", ""),
            ]
            .concat(),
        ),
        get_unset("auth", "${redirect_1}", ""),
        get_unset(
            "echo",
            "/echo",
            &headers(&[("X-Location", "[${redirect_1}]"), ("X-Code", "${code}"), ("X-Req-Host", "[${req_host}]")]),
        ),
    ]
    .concat();
    run_plan_unset(&run, &server, jmx_plan(2, "3", &plan_body));

    let auth = server.recorded("/auth");
    assert_eq!(auth.len(), 6);
    assert!(auth.iter().all(|r| r.target == "/auth?state=s1&code=c2"), "{:?}", auth[0].target);
    let host = format!("[127.0.0.1:{}]", server.addr().port());
    let location = format!("[http://127.0.0.1:{}/auth?state=s1&code=c2]", server.addr().port());
    for r in server.recorded("/echo") {
        assert_eq!(r.header("X-Location"), Some(location.as_str()), "the URL alone, no \r");
        assert_eq!(r.header("X-Code"), Some("302"), "the status line is the first header line");
        assert_eq!(r.header("X-Req-Host"), Some(host.as_str()), "request headers end in \\n, not \\r\\n");
    }
    for (label, path) in [("start", "/start"), ("auth", "/auth"), ("echo", "/echo")] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 6, "{label}: {row:#}");
        assert_eq!(server.requests_to(path), 6);
    }
    assert_eq!(uint(&run.label("auth"), "errors"), 0);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
