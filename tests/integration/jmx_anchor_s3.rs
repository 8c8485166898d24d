//! Core JMeter elements real plans keep (issue 32): the MD5Hex Assertion (the body's MD5
//! against a hex, case-insensitive), the XML Assertion (a body that is not well-formed XML, or
//! has a DOCTYPE, fails with JMeter's message) and the HTML Link Parser (a link or form of the
//! previous page that matches the sampler is sent instead); the witness counts what it served.

use crate::util::jmx::{element, http, run_with_jtl, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, TempRun};
use std::collections::BTreeMap;

fn served(server: &TestServer) -> BTreeMap<String, u64> {
    let mut served = BTreeMap::new();
    for r in server.recorded_all() {
        *served.entry(r.path().to_string()).or_insert(0) += 1;
    }
    served
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(p, n)| (p.to_string(), *n)).collect()
}

/// A sampler of `path` holding `children`, on the test server's port.
fn get(name: &str, path: &str, children: &str) -> String {
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

const PAGE: &str = r#"<html><body><a href="/next?id=7&amp;k=v">next</a><a href="other">other</a><a href="/flag?bare&amp;id=1">f</a>
<a href="javascript:go()">js</a>
<form action="/login" method="post"><input name="user" value="bob"><input type="hidden" name="token" value="t+1"></form>
</body></html>"#;

/// After the page: a sampler of path `/next` goes to the link with its query; one of path
/// `oth.*` (read after `[/]*`) to the relative link; a POST of path `/log.*` with arguments
/// `user=.*`, `token=t.*` sends the form's values; a link's `?bare&id=1` goes as written; a
/// sampler nothing matches, and one after a
/// response with no links, go where they say. 2 users x 2 iterations.
#[test]
fn html_link_parser_sends_the_matching_link_or_form_of_the_previous_page() {
    let server = TestServer::builder()
        .route("/page", Route::ok().header("Content-Type", "text/html").body(PAGE).record())
        .default_route(Route::ok().body("no links").record())
        .start();
    let run = TempRun::new("jmx-anchor");
    let parser = element("AnchorModifier", "HTML Link Parser", &[], "");
    let arg = |n: &str, v: &str| {
        format!(
            r#"<elementProp name="{n}" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">{v}</stringProp><stringProp name="Argument.metadata">=</stringProp><stringProp name="Argument.name">{n}</stringProp></elementProp>"#
        )
    };
    let form = http("form", "127.0.0.1", "${__P(port)}", "/log.*", "POST", &parser).replace(
        "<stringProp name=\"HTTPSampler.domain\">",
        &format!(
            r#"<elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">{}{}</collectionProp></elementProp><stringProp name="HTTPSampler.domain">"#,
            arg("user", ".*"),
            arg("token", "t.*")
        ),
    );
    let body = [
        get("page", "/page", ""),
        get("next", "/next", &parser),
        get("page", "/page", ""),
        get("other", "oth.*", &parser),
        get("page", "/page", ""),
        form,
        get("page", "/page", ""),
        get("nomatch", "/nomatch", &parser),
        get("page", "/page", ""),
        get("flag", "/flag", &parser),
        get("plain", "/plain", ""),
        get("after-plain", "/next", &parser),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("anchor", "", &thread_group("ThreadGroup", "tg", "2", "2", "", &body)));
    let (cmd, _) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);
    let want = counts(&[
        ("/page", 20),
        ("/flag", 4),
        ("/next", 8),
        ("/other", 4),
        ("/login", 4),
        ("/nomatch", 4),
        ("/plain", 4),
    ]);
    assert_eq!(served(&server), want);
    let next = server.recorded("/next");
    let queries: Vec<&str> = next.iter().map(|r| r.target.split_once('?').map_or("", |(_, q)| q)).collect();
    assert_eq!(queries.iter().filter(|q| **q == "id=7&k=v").count(), 4, "{queries:?}");
    assert_eq!(queries.iter().filter(|q| q.is_empty()).count(), 4, "after a page with no links: {queries:?}");
    for r in server.recorded("/login") {
        assert_eq!(r.method, "POST");
        assert_eq!(String::from_utf8_lossy(&r.body), "user=bob&token=t+1", "{r:?}");
    }
    // A link's argument without `=` is sent so.
    assert!(server.recorded("/flag").iter().all(|r| r.target == "/flag?bare&id=1"));
    for label in ["next", "other", "form", "nomatch", "flag", "after-plain"] {
        let l = run.label(label);
        assert_eq!((uint(&l, "samples"), uint(&l, "errors")), (4, 0), "{label}: {l:#}");
    }
}
