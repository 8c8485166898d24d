//! Issue 32, rows 2-4: what JMeter loads and only gets wrong (or right) per sample, stampede
//! loads and runs the same way: JSON paths holding variables set while the test runs, a JSON
//! Extractor whose lists differ in number, an assertion scoped to a variable with no name.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_b::{var_assertion, DEFAULTS};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A Boundary Extractor into `b` between `"${key}":"` and `"`.
const BOUNDARY: &str = r#"<BoundaryExtractor guiclass="BoundaryExtractorGui" testclass="BoundaryExtractor" testname="b" enabled="true">
                <stringProp name="BoundaryExtractor.useHeaders">false</stringProp>
                <stringProp name="BoundaryExtractor.refname">b</stringProp>
                <stringProp name="BoundaryExtractor.lboundary">"${key}":"</stringProp>
                <stringProp name="BoundaryExtractor.rboundary">"</stringProp>
                <stringProp name="BoundaryExtractor.match_number">1</stringProp>
              </BoundaryExtractor><hashTree/>"#;

const BODY: &str = r#"{"result":{"token":"tok-1","id":"x-7"}}"#;

fn regex(name: &str, re: &str, template: &str) -> String {
    crate::util::jmx::regex_extractor(name, name, "false", re, template, "")
}

fn json_extractor(names: &str, paths: &str, defaults: &str) -> String {
    format!(
        r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="json" enabled="true">
                <stringProp name="JSONPostProcessor.referenceNames">{names}</stringProp>
                <stringProp name="JSONPostProcessor.jsonPathExprs">{paths}</stringProp>
                <stringProp name="JSONPostProcessor.defaultValues">{defaults}</stringProp>
              </JSONPostProcessor><hashTree/>"#
    )
}

fn json_assertion(name: &str, path: &str, expected: Option<&str>, invert: bool) -> String {
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
fn run_plan(server: &TestServer, name: &str, loops: &str, body: &str, warns: bool) -> (TempRun, String) {
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
        regex("key", r#""key":"(\w+)""#, "$1$"),
        regex("bad", r#""bad":"(\w+)""#, "$1$["),
        regex("limit", r#""limit":"(\d+)""#, "$1$"),
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
                + &regex("r", r#""${key}":"([^"]+)""#, "$1$")
                + BOUNDARY),
        ),
        sampler("use", "GET", "/use?v=${v}&amp;w=${w}&amp;r=${r}&amp;b=${b}", "", false, ""),
        sampler(
            "assert",
            "GET",
            "/assert",
            "",
            false,
            &json_assertion("is tok-1", "$.result.${key}", Some("tok-1"), false),
        ),
        sampler("bad", "GET", "/bad", "", false, &json_assertion("bad", "$.${bad}", None, false)),
        sampler("bad-inv", "GET", "/bad-inv", "", false, &json_assertion("bad-inv", "$.${bad}", None, true)),
        sampler("slow", "GET", "/slow", "", false, duration),
    ]
    .concat();
    let (run, _) = run_plan(&server, "jmx-json-runtime-path", "3", &body, false);
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
        [json_extractor("a", "$.result.token;$.result.id", "d1;d2"), regex("after", r#""(token)""#, "$1$"), never]
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
    let (run, check) = run_plan(&server, "jmx-json-count-mismatch", "2", &format!("{udv}{body}"), true);
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

/// A ForEach Controller's end index `${n}`, set by an extractor while the test runs, is read as
/// each pass starts: the loop takes `it_1`.. up to that index, whatever else is defined.
#[test]
fn a_for_each_end_index_set_at_run_time_is_read_per_pass() {
    let n = AtomicUsize::new(0);
    let server = TestServer::builder()
        .route(
            "/items",
            // Iterations ask for 2, then 3 passes, out of 4 items.
            Route::handler(move |_| {
                let n = 2 + n.fetch_add(1, Ordering::SeqCst) % 2;
                Reply::ok().body(format!(r#"{{"n":"{n}","items":["a","b","c","d"]}}"#))
            })
            .record(),
        )
        .default_route(Route::ok().record())
        .start();
    let extract = [
        regex("n", r#""n":"(\d+)""#, "$1$"),
        json_extractor("it", "$.items[*]", "none").replace(
            "</JSONPostProcessor>",
            r#"<stringProp name="JSONPostProcessor.match_numbers">-1</stringProp></JSONPostProcessor>"#,
        ),
    ]
    .concat();
    let for_each = format!(
        r#"<ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="each" enabled="true">
            <stringProp name="ForeachController.inputVal">it</stringProp>
            <stringProp name="ForeachController.returnVal">x</stringProp>
            <boolProp name="ForeachController.useSeparator">true</boolProp>
            <stringProp name="ForeachController.startIndex">0</stringProp>
            <stringProp name="ForeachController.endIndex">${{n}}</stringProp>
          </ForeachController><hashTree>{}</hashTree>"#,
        sampler("each", "GET", "/each?x=${x}", "", false, "")
    );
    let body = [sampler("items", "GET", "/items", "", false, &extract), for_each].concat();
    let (run, _) = run_plan(&server, "jmx-foreach-runtime-end", "2", &body, false);
    let xs: Vec<_> = server.recorded("/each").iter().filter_map(|r| r.query("x")).collect();
    assert_eq!(xs, ["a", "b", "a", "b", "c"]);
    assert_eq!(uint(&run.label("each"), "samples"), 5);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
