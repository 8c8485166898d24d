//! Issue 32 (rtvals): fields JMeter evaluates per sample that stampede needed when the plan
//! loaded: XPath, XPath2 and CSS Selector Extractor expressions (and the CSS attribute), XPath
//! Assertion queries and Size Assertion sizes holding variables set at run time.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_b::DEFAULTS;
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A body both an XML parser and an HTML one read: two `p` elements told apart by `id`.
const DOC: &str = r#"<r><p id="token" data-a="A1">tok-1</p><p id="id" data-a="A2">x-7</p></r>"#;

fn regex(name: &str, re: &str) -> String {
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

fn xpath(class: &str, name: &str, query: &str, default: &str) -> String {
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

fn css(name: &str, expr: &str, attribute: &str, default: &str) -> String {
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
fn run_plan(server: &TestServer, name: &str, loops: &str, body: &str) -> TempRun {
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
        regex("key", r#""key":"(\w+)""#),
        regex("attr", r#""attr":"([^"]*)""#),
        regex("n", r#""n":"(\w+)""#),
        regex("bad", r#""bad":"([^"]+)""#),
    ]
    .concat();
    let extract = [
        xpath("XPathExtractor", "x", "/r/p[@id=&apos;${key}&apos;]", "NONE"),
        xpath("XPath2Extractor", "x2", "/r/p[@id=&apos;${key}&apos;]", "NONE"),
        xpath("XPathExtractor", "xb", "/r/${bad}", "dflt"),
        css("c", "p#${key}", "${attr}", "NONE"),
        css("cb", "${bad}", "", "dflt"),
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
    let run = run_plan(&server, "jmx-runtime-markup", "3", &body);
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

fn for_each(name: &str, prefix: &str, start: Option<&str>, children: &str) -> String {
    let start =
        start.map_or(String::new(), |s| format!(r#"<stringProp name="ForeachController.startIndex">{s}</stringProp>"#));
    format!(
        r#"<ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="{name}" enabled="true">
                <stringProp name="ForeachController.inputVal">{prefix}</stringProp>
                <stringProp name="ForeachController.returnVal">v</stringProp>
                <boolProp name="ForeachController.useSeparator">true</boolProp>{start}
              </ForeachController><hashTree>{children}</hashTree>"#
    )
}

/// A ForEach Controller whose input prefix and start index come from a CSV row (`a,1`, `b,0`,
/// `a,x`) reads them as each iteration enters it: `a_2` from index 1, `b_1`.. from 0, and a start
/// that is no number is 0, as JMeter's `getPropertyAsInt`; the loop index
/// `__jm__fe__idx` counts from the start and reads it again once the loop is left. A prefix an
/// extractor of the same sample sets (`b`) is read per pass. As JMeter 5.6.3
/// (bench/jmeter/plans/rtvals-foreach.jmx).
#[test]
fn a_for_each_prefix_and_start_index_set_at_run_time_are_read_as_the_loop_is_entered() {
    let server = TestServer::builder()
        .route("/items", Route::ok().body(r#""A":"tok-1","A":"x-7","B":"r-1","B":"r-2","B":"r-3","P":"b""#).record())
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-runtime-foreach");
    run.write("keys.csv", "pfx,start\na,1\nb,0\na,x\n");
    let csv = r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="keys" enabled="true">
                <stringProp name="filename">keys.csv</stringProp><stringProp name="variableNames">pfx,start</stringProp>
                <boolProp name="ignoreFirstLine">true</boolProp><boolProp name="recycle">true</boolProp>
                <boolProp name="stopThread">false</boolProp><stringProp name="shareMode">shareMode.all</stringProp>
              </CSVDataSet><hashTree/>"#;
    let all = |name: &str, re: &str| regex(name, re).replace(">1</stringProp>", ">-1</stringProp>");
    let items = [all("a", r#""A":"([^"]+)""#), all("b", r#""B":"([^"]+)""#), regex("p", r#""P":"(\w+)""#)].concat();
    let body = [
        csv.to_string(),
        sampler("items", "GET", "/items", "", false, &items),
        for_each(
            "fe",
            "${pfx}",
            Some("${start}"),
            &sampler("each", "GET", "/each?v=${v}&amp;i=${__jm__fe__idx}", "", false, ""),
        ),
        for_each("fp", "${p}", None, &sampler("each2", "GET", "/each2?v=${v}", "", false, "")),
        sampler("after", "GET", "/after?i=${__jm__fe__idx}", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "3", &format!("{DEFAULTS}{body}")));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    Stampede::new().arg("check").arg(&p).args(["--strict", "-J", &port]).run().assert_exit(0);
    let sent = |path: &str| -> Vec<String> { server.recorded(path).iter().map(|r| r.target.clone()).collect() };
    assert_eq!(
        sent("/each"),
        [
            "/each?v=x-7&i=1",
            "/each?v=r-1&i=0",
            "/each?v=r-2&i=1",
            "/each?v=r-3&i=2",
            "/each?v=tok-1&i=0",
            "/each?v=x-7&i=1"
        ]
    );
    assert_eq!(sent("/each2").len(), 9);
    assert_eq!(sent("/after"), ["/after?i=1", "/after?i=0", "/after?i=0"]);
    for (label, n) in [("items", 3), ("each", 6), ("each2", 9), ("after", 3)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (n, 0), "{label}: {row:#}");
    }
    assert_eq!(server.requests(), 21);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
