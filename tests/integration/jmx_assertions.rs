//! JMeter's assertions: Response Assertion (scoped to a variable, to an unnamed one, on "Request
//! Data" as JMeter's sampler data, "Or", failing samples per message), MD5Hex, XML, XPath2,
//! JSON/JMESPath and the plugins' JSON path assertions, Size Assertion on a variable; outcomes as
//! JMeter 5.6.3's.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_extractors::{
    element as element_markup, json_assertion, response_assertion, run_plan_json as run_plan, size_on_var, xpath, BODY,
    JSON, PLUGIN_ASSERTION, XML,
};
use crate::jmx_samplers::http as http_client_class;
use crate::jmx_timers::sampler as sampler_elements;
use crate::util::jmx::{
    element, http, response_assertion as response_assertion_client_class, run_with_jtl, test_plan, thread_group,
};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::collections::BTreeMap;

pub(crate) fn served(server: &TestServer) -> BTreeMap<String, u64> {
    let mut served = BTreeMap::new();
    for r in server.recorded_all() {
        *served.entry(r.path().to_string()).or_insert(0) += 1;
    }
    served
}

/// A sampler of `path` holding `children`, on the test server's port.
pub(crate) fn get(name: &str, path: &str, children: &str) -> String {
    http(name, "127.0.0.1", "${__P(port)}", path, "GET", children)
}

/// The JTL's (label, success, failure message) rows.
fn outcomes(jtl: &std::path::Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(jtl).unwrap();
    let head: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (label, success, message) = (col("label"), col("success"), col("failureMessage"));
    text.lines()
        .skip(1)
        .map(|l| {
            let r: Vec<&str> = l.split(',').collect();
            (r[label].to_string(), r[success].to_string(), r[message].trim_matches('"').replace("\"\"", "\""))
        })
        .collect()
}

/// The failure message of each label's samples, once ("" for a success); every sample of a
/// label has the same.
fn message_per_label(jtl: &std::path::Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (label, success, message) in outcomes(jtl) {
        let m = if success == "true" { String::new() } else { message };
        let prev = out.insert(label.clone(), m.clone());
        assert!(prev.as_ref().is_none_or(|p| *p == m), "{label}: {prev:?} then {m:?}");
    }
    out
}

/// Runs `body` (samplers named as their paths, `/name`) by 2 users x 3 iterations: each path
/// served 6 times, each label 6 samples with the errors given; the failure message per label.
fn run_assertions(run: &TempRun, server: &TestServer, body: &str, errors: &[(&str, u64)]) -> BTreeMap<String, String> {
    let plan = run.write("plan.jmx", test_plan("p", "", &thread_group("ThreadGroup", "tg", "2", "3", "", body)));
    let (cmd, jtl) = run_with_jtl(run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);
    let want: BTreeMap<String, u64> = errors.iter().map(|(l, _)| (format!("/{l}"), 6)).collect();
    assert_eq!(served(server), want);
    for (label, errors) in errors {
        let l = run.label(label);
        assert_eq!((uint(&l, "samples"), uint(&l, "errors")), (6, *errors), "{label}: {l:#}");
    }
    message_per_label(&jtl)
}

/// `hello`'s MD5 in lower and upper case passes; another hex, an empty one and an empty body
/// fail with JMeter's messages; 2 users x 3 iterations, each sample served once.
#[test]
fn md5hex_assertion_fails_samples_whose_body_digest_differs() {
    let server = TestServer::builder()
        .route("/empty", Route::ok().body("").record())
        .default_route(Route::ok().body("hello").record())
        .start();
    let run = TempRun::new("jmx-md5hex");
    let md5 = |hex: &str| element("MD5HexAssertion", "md5", &[("MD5HexAssertion.size", hex)], "");
    let hello = "5d41402abc4b2a76b9719d911017c592";
    let body = [
        get("lower", "/lower", &md5(hello)),
        get("upper", "/upper", &md5(&hello.to_uppercase())),
        get("other", "/other", &md5("0123")),
        get("none", "/none", &md5("")),
        get("empty", "/empty", &md5(hello)),
    ]
    .concat();
    let errors = [("lower", 0), ("upper", 0), ("other", 6), ("none", 6), ("empty", 6)];
    let m = run_assertions(&run, &server, &body, &errors);
    assert_eq!(m["lower"], "");
    assert!(
        m["other"].ends_with("Error asserting MD5 sum : got (the response's MD5) but should have been 0123"),
        "{m:?}"
    );
    assert!(m["none"].ends_with("MD5Hex to test against is empty"), "{m:?}");
    assert!(m["empty"].ends_with("Response was null"), "{m:?}");
}

/// MD5 in hex of `bytes`, by the system's `md5sum` (a witness independent of stampede's MD5).
fn md5sum(bytes: &[u8]) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new("md5sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("md5sum");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string()
}

/// JMeter digests the response data's bytes, decoded from gzip or deflate: a gzip-encoded
/// binary body (bytes 0x80..=0xFF, not UTF-8), a gzip-encoded ISO-8859-1 page and a deflate
/// one pass on the MD5 of their decoded bytes; 2 users x 3 iterations, each served once.
#[test]
fn md5hex_assertion_digests_the_decoded_bytes_of_a_compressed_body() {
    use std::io::Write as _;
    let gzip = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let zlib = |b: &[u8]| {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let binary: Vec<u8> = (0x80..=0xFF).collect();
    let latin1: &[u8] = b"<html><p>caf\xe9 cr\xe8me br\xfbl\xe9e</p></html>";
    let server = TestServer::builder()
        .route("/binary", Route::ok().header("Content-Encoding", "gzip").body(gzip(&binary)).record())
        .route(
            "/latin1",
            Route::ok()
                .header("Content-Type", "text/html; charset=ISO-8859-1")
                .header("Content-Encoding", "gzip")
                .body(gzip(latin1))
                .record(),
        )
        .route("/deflate", Route::ok().header("Content-Encoding", "deflate").body(zlib(&binary)).record())
        .route("/plain", Route::ok().body(binary.clone()).record())
        .start();
    let run = TempRun::new("jmx-md5hex-decoded");
    let md5 = |hex: &str| element("MD5HexAssertion", "md5", &[("MD5HexAssertion.size", hex)], "");
    let body = [
        get("binary", "/binary", &md5(&md5sum(&binary))),
        get("latin1", "/latin1", &md5(&md5sum(latin1))),
        get("deflate", "/deflate", &md5(&md5sum(&binary))),
        get("plain", "/plain", &md5(&md5sum(&binary))),
    ]
    .concat();
    let errors = [("binary", 0), ("latin1", 0), ("deflate", 0), ("plain", 0)];
    let m = run_assertions(&run, &server, &body, &errors);
    assert!(m.values().all(String::is_empty), "{m:?}");
}

/// Well-formed XML passes; JSON, a DOCTYPE (JMeter 5.6.3's reader disallows one), a tag left
/// open and an empty body fail, each with JMeter's message where stampede has it.
#[test]
fn xml_assertion_fails_samples_whose_body_is_not_well_formed_xml() {
    let server = TestServer::builder()
        .route("/xml", Route::ok().body(r#"<?xml version="1.0"?><a x="1"><b/>text</a>"#).record())
        .route("/json", Route::ok().body(r#"{"a":1}"#).record())
        .route("/doctype", Route::ok().body("<!DOCTYPE a><a/>").record())
        .route("/open", Route::ok().body("<a><b></a>").record())
        .route("/empty", Route::ok().body("").record())
        .start();
    let run = TempRun::new("jmx-xml-assertion");
    let xml = element("XMLAssertion", "xml", &[], "");
    let body: String =
        ["xml", "json", "doctype", "open", "empty"].iter().map(|p| get(p, &format!("/{p}"), &xml)).collect();
    let errors = [("xml", 0), ("json", 6), ("doctype", 6), ("open", 6), ("empty", 6)];
    let m = run_assertions(&run, &server, &body, &errors);
    assert!(m["json"].ends_with("Content is not allowed in prolog."), "{m:?}");
    assert!(
        m["doctype"].ends_with(
            r#"DOCTYPE is disallowed when the feature "http://apache.org/xml/features/disallow-doctype-decl" set to true."#
        ),
        "{m:?}"
    );
    assert!(m["open"].ends_with("the response is not well-formed XML"), "{m:?}");
    assert!(m["empty"].ends_with("Response was null"), "{m:?}");
}

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
pub(crate) const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// A Response Assertion scoped to the JMeter variable `var` (test type 16: substring; 8: equals).
pub(crate) fn var_assertion(name: &str, var: &str, test_type: u32, text: &str) -> String {
    format!(
        r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="{name}" enabled="true">
                <collectionProp name="Asserion.test_strings"><stringProp name="1">{text}</stringProp></collectionProp>
                <stringProp name="Assertion.test_field">Assertion.response_data</stringProp>
                <boolProp name="Assertion.assume_success">false</boolProp>
                <intProp name="Assertion.test_type">{test_type}</intProp>
                <stringProp name="Assertion.scope">variable</stringProp>
                <stringProp name="Scope.variable">{var}</stringProp>
              </ResponseAssertion><hashTree/>"#
    )
}

#[test]
fn an_assertion_scoped_to_a_variable_checks_the_variable() {
    let server = TestServer::builder().default_route(Route::ok().body("id=42 body").record()).start();
    let run = TempRun::new("jmx-var-assertion");
    let extractor = &crate::util::jmx::regex_extractor("Id", "rid", "false", r"id=(\d+)", "$1$", "");
    let body = [
        DEFAULTS.to_string(),
        // The variable equals 42 (the body does not): passes.
        sampler("equals", "GET", "/a", "", false, &format!("{extractor}{}", var_assertion("eq", "rid", 8, "42"))),
        // The body contains "body", the variable does not: fails.
        sampler("contains", "GET", "/b", "", false, &var_assertion("has", "rid", 16, "body")),
        // A variable never set is empty: only a negated assertion passes, as in JMeter.
        sampler("unset", "GET", "/c", "", false, &var_assertion("unset", "never", 16, "x")),
        sampler("unset-not", "GET", "/d", "", false, &var_assertion("unset-not", "never", 16 | 4, "x")),
    ]
    .concat();
    let plan = jmx_plan(1, "3", &body);
    let p = run.write("plan.jmx", plan);
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    for (label, errors) in [("equals", 0), ("contains", 3), ("unset", 3), ("unset-not", 0)] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 3, "{label}: {row:#}");
        assert_eq!(uint(&row, "errors"), errors, "{label}: {row:#}");
    }
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
            &element_markup("XPathAssertion", "a", &[("XPath.xpath", "//nope")]),
        ),
        sampler(
            "xpath-not-xml",
            "GET",
            "/text",
            "",
            false,
            &element_markup("XPathAssertion", "a", &[("XPath.xpath", "//a")]),
        ),
        sampler(
            "xpath-bad",
            "GET",
            "/xml",
            "",
            false,
            &element_markup("XPathAssertion", "a", &[("XPath.xpath", "//a[")]),
        ),
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
    let equals = |name: &str, text: &str| response_assertion_client_class(name, "Assertion.request_data", 8, text);
    let base = "http://${host}:${port}";
    let body = [
        COOKIES.to_string(),
        http_client_class(
            "login",
            "GET",
            "/login?x=1",
            &[],
            &response_assertion_client_class(
                "is get",
                "Assertion.request_data",
                2,
                r"^GET http://127\.0\.0\.1:\d+/login\?x=1\n\nGET data:\n\n",
            ),
        ),
        http_client_class(
            "form",
            "POST",
            "/form",
            &[("k", "v w"), ("n", "a&b")],
            &equals("form data", &format!("POST {base}/form\n\nPOST data:\nk=v+w&n=a%26b\n\nCookie Data:\nSID=s1\n")),
        ),
        http_client_class(
            "head",
            "HEAD",
            "/head",
            &[],
            &equals("head data", &format!("HEAD {base}/head\n\nCookie Data:\nSID=s1\n")),
        ),
        http_client_class(
            "get",
            "GET",
            "/get",
            &[("q", "1")],
            &equals("get data", &format!("GET {base}/get?q=1\n\nGET data:\n\n\nCookie Data:\nSID=s1\n")),
        ),
        http_client_class(
            "miss",
            "GET",
            "/miss",
            &[],
            &response_assertion_client_class("posted", "Assertion.request_data", 16, "POST data"),
        ),
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
    let body: String = cases.iter().map(|(name, a, _)| sampler_elements(name, port, "/j", a)).collect();
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

/// A Response Assertion scoped to a JMeter Variable with no name reads `vars.get("")`, null:
/// each sample fails ("Response was null"), and a NOT assertion holds.
#[test]
fn an_assertion_scoped_to_an_unnamed_variable_fails_each_sample() {
    let server = TestServer::builder().default_route(Route::ok().body(BODY).record()).start();
    let body = [
        sampler("unnamed", "GET", "/unnamed", "", false, &var_assertion("unnamed", "", 16, "OK")),
        sampler("unnamed-not", "GET", "/unnamed-not", "", false, &var_assertion("unnamed-not", "", 16 | 4, "OK")),
    ]
    .concat();
    let (run, check) = run_plan(&server, "jmx-unnamed-scope", "3", &body, true);
    assert!(check.contains("Response was null"), "{check}");
    for (label, errors) in [("unnamed", 3), ("unnamed-not", 0)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (3, errors), "{label}: {row:#}");
    }
    assert_eq!(server.requests(), 6);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// Each case: sampler, and whether JMeter 5.6.3 passed its assertion.
const JMETER: [(&str, bool); 13] = [
    ("exists", true),     // //b finds nodes
    ("missing", false),   // //nope finds none
    ("number", true),     // count(//b): a number is one item, a match
    ("boolfalse", false), // count(//nope) = 1: false
    ("negexists", false), // negated, //b matches
    ("negmissing", true), // negated, //nope does not
    ("xp2only", false),   // ends-with(): XPath 2.0 only; JMeter's Xalan typing throws
    ("empty", true),      // an empty query passes
    ("string", true),     // string(//b[1]): one item
    ("nsattr", true),     // an attribute predicate
    ("body", false),      // the body is no XML: an error, the sample fails
    ("unset", false),     // scoped to a variable nothing set: "Response was null"
    ("negbody", false),   // negated, the body is no XML: still an error
];

#[test]
fn xpath2_assertion_passes_and_fails_each_case_as_jmeter() {
    let server = TestServer::builder().default_route(Route::ok().body("{\"not\": \"xml\"}")).start();
    let run = TempRun::new("xpath2-assert");
    let plan = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/jmeter/plans/elem-xpath2-assert.jmx");
    let port = format!("port={}", server.addr().port());
    Stampede::new()
        .arg("run")
        .arg(plan)
        .args(["-J", "host=127.0.0.1", "-J", &port, "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(server.requests(), 26);
    let s = run.summary();
    for (case, ok) in JMETER {
        assert_eq!(server.requests_to(&format!("/xa/{case}/ok/{ok}")), 1, "{case}: JMeter's outcome is {ok}");
        assert_eq!(uint(&label(&s, case), "samples"), 1, "{case}");
        assert_eq!(uint(&label(&s, case), "errors"), u64::from(!ok), "{case}");
    }
}
