//! Extractors and assertions of JMX plans with JMeter 5.6.3's semantics (issue 13): XPath and
//! CSS selector extractors, Jayway JSONPath forms, jmeter-plugins' JSON Path Extractor and
//! Assertion, Perl5 regexes, expressions JMeter compiles only at run time, Response Assertion
//! "Or", the response message, a Size Assertion on a variable. Each extracted value is sent in a
//! later request, and the witness server's record proves what it was.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::jmx_b::DEFAULTS;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

const XML: &str = r#"<?xml version="1.0"?><r><token id="t1">abc</token><item>1</item><item>2</item></r>"#;
const HTML: &str = r#"<html><body><form><input name="csrf" value="c5rf"><p>unclosed</form>
<span>say &quot;hi&amp;bye&quot;</span><a class="n" href="/x">First</a><a class="n" href="/y">Second
 link</a></body></html>"#;
const JSON: &str = r#"{"data":{"items":[{"id":7},{"id":8}]},"e1":"v1","my-key":"dash"}"#;

fn prop(name: &str, value: &str) -> String {
    format!(r#"<stringProp name="{name}">{value}</stringProp>"#)
}

/// An element of class `class` with string properties.
fn element(class: &str, name: &str, props: &[(&str, &str)]) -> String {
    element_with(class, name, props, "")
}

/// An element of class `class` with string properties and more properties written out.
fn element_with(class: &str, name: &str, props: &[(&str, &str)], more: &str) -> String {
    let props: String = props.iter().map(|(k, v)| prop(k, v)).collect();
    format!(
        r#"<{class} guiclass="X" testclass="{class}" testname="{name}" enabled="true">{props}{more}</{class}><hashTree/>"#
    )
}

fn xpath(name: &str, refname: &str, query: &str, extra: &[(&str, &str)]) -> String {
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
fn response_assertion(name: &str, field: &str, ty: u32, patterns: &[&str]) -> String {
    let strings: String = patterns.iter().enumerate().map(|(i, p)| prop(&i.to_string(), p)).collect();
    format!(
        r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="{name}" enabled="true">
            <collectionProp name="Asserion.test_strings">{strings}</collectionProp>
            <stringProp name="Assertion.test_field">{field}</stringProp>
            <intProp name="Assertion.test_type">{ty}</intProp>
          </ResponseAssertion><hashTree/>"#
    )
}

fn json_assertion(class: &str, name: &str, path: &str, expected: &str, regex: bool) -> String {
    let regex = regex.to_string();
    let props =
        [("JSON_PATH", path), ("EXPECTED_VALUE", expected), ("JSONVALIDATION", "true"), ("ISREGEX", regex.as_str())];
    element(class, name, &props)
}

fn size_on_var(name: &str, var: &str, size: &str) -> String {
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
const PLUGIN_ASSERTION: &str = "com.atlantbh.jmeter.plugins.jsonutils.jsonpathassertion.JSONPathAssertion";

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

#[test]
fn failing_assertions_fail_their_samples() {
    let server = TestServer::builder()
        .route("/xml", Route::ok().body(XML).record())
        .route("/json", Route::ok().body(JSON).record())
        .route("/text", Route::ok().body("alpha beta").record())
        .start();
    let run = TempRun::new("jmx-failing-assertions");
    let xml_extract = xpath("tok", "tok", "//token/@id", &[]);
    let body = [
        DEFAULTS.to_string(),
        sampler(
            "xpath-missing",
            "GET",
            "/xml",
            "",
            false,
            &element("XPathAssertion", "a", &[("XPath.xpath", "//nope")]),
        ),
        sampler("xpath-not-xml", "GET", "/text", "", false, &element("XPathAssertion", "a", &[("XPath.xpath", "//a")])),
        sampler("xpath-bad", "GET", "/xml", "", false, &element("XPathAssertion", "a", &[("XPath.xpath", "//a[")])),
        // The variable is `t1`, not a number: JMeter fails it.
        sampler("size-var", "GET", "/xml", "", false, &format!("{xml_extract}{}", size_on_var("s", "tok", "2"))),
        sampler("json-ne", "GET", "/json", "", false, &json_assertion("JSONPathAssertion", "a", "$.e1", "v2", false)),
        sampler("plugin-ne", "GET", "/json", "", false, &json_assertion(PLUGIN_ASSERTION, "a", "e1", "x.*", true)),
        sampler(
            "and",
            "GET",
            "/text",
            "",
            false,
            &response_assertion("and", "Assertion.response_data", 2, &["alpha", "gamma"]),
        ),
        sampler(
            "or-none",
            "GET",
            "/text",
            "",
            false,
            &response_assertion("or", "Assertion.response_data", 2 | 32, &["delta", "gamma"]),
        ),
        // The request headers as sent hold `Host:`: "not contains" fails.
        sampler(
            "request-headers",
            "GET",
            "/text",
            "",
            false,
            &response_assertion("rh", "Assertion.request_headers", 16 | 4, &["Host:"]),
        ),
        // A pattern JMeter cannot compile: "Bad test configuration", the sample fails.
        sampler(
            "bad-pattern",
            "GET",
            "/text",
            "",
            false,
            &response_assertion("bad", "Assertion.response_data", 2, &["*alpha"]),
        ),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run();
    for label in [
        "xpath-missing",
        "xpath-not-xml",
        "xpath-bad",
        "size-var",
        "json-ne",
        "plugin-ne",
        "and",
        "or-none",
        "request-headers",
        "bad-pattern",
    ] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (1, 1), "{label}: {row:#}");
    }
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
