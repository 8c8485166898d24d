//! JMeter's HTTP modifiers: RegEx User Parameters, URL Re-writing, the HTML Link Parser (a matching
//! link or form of the previous page sent; a pattern that does not compile skips its sampler).

use crate::jmx::{arg, jmx_plan, sampler};
use crate::jmx_assertions::{get, served};
use crate::util::jmx::{element, http, run_with_jtl, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::collections::BTreeMap;

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
pub(crate) const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// A form's inputs, `toto` twice: the last match of a name wins.
const FORM: &str = r#"<form><input name="toto" value="vtoto" /><input name="tutu" value="v tutu" /><input name="toto" value="last" /></form>"#;

pub(crate) fn run_plan(run: &TempRun, server: &TestServer, plan: &str) {
    let p = run.write("plan.jmx", plan);
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
}

/// RegEx User Parameters (JMeter's demo RegEx-User-Parameters.jmx): before each HTTP sample in
/// its scope, the parameters named as group 1 of the matches of `listParams` are sent with
/// group 2; none is changed before the extractor has found anything (each user's first "early").
#[test]
fn regex_user_parameters_send_the_values_the_extractor_found() {
    let server =
        TestServer::builder().route("/form", Route::ok().body(FORM)).default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-regex-user-params");
    let extractor = r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="listParamsExtractor" enabled="true">
            <stringProp name="RegexExtractor.useHeaders">false</stringProp>
            <stringProp name="RegexExtractor.refname">listParams</stringProp>
            <stringProp name="RegexExtractor.regex">input name=&quot;([^&quot;]+?)&quot; value=&quot;([^&quot;]+?)&quot;</stringProp>
            <stringProp name="RegexExtractor.template">$1$</stringProp>
            <stringProp name="RegexExtractor.default">NV</stringProp>
            <stringProp name="RegexExtractor.match_number">-1</stringProp>
          </RegexExtractor><hashTree/>"#;
    let modifier = r#"<RegExUserParameters guiclass="RegExUserParametersGui" testclass="RegExUserParameters" testname="RegEx User Parameters" enabled="true">
            <stringProp name="RegExUserParameters.regex_ref_name">listParams</stringProp>
            <stringProp name="RegExUserParameters.param_names_gr_nr">1</stringProp>
            <stringProp name="RegExUserParameters.param_values_gr_nr">2</stringProp>
          </RegExUserParameters><hashTree/>"#;
    let body = [
        DEFAULTS,
        modifier,
        &sampler("early", "POST", "/early", &arg("toto", "orig", true), false, ""),
        &sampler("form", "GET", "/form", "", false, extractor),
        &sampler(
            "send",
            "POST",
            "/send",
            &[arg("toto", "a", true), arg("tutu", "b", true), arg("other", "c", true)].concat(),
            false,
            "",
        ),
        &sampler("query", "GET", "/q", &arg("tutu", "x", true), false, ""),
    ]
    .concat();
    run_plan(&run, &server, &jmx_plan(2, "3", &body));
    for label in ["early", "form", "send", "query"] {
        assert_eq!(uint(&run.label(label), "samples"), 6, "{label}");
        assert_eq!(uint(&run.label(label), "errors"), 0, "{label}");
    }
    assert_eq!(server.requests(), 24);
    let forms = |path: &str, name: &str| -> Vec<String> {
        let mut v: Vec<String> = server.recorded(path).iter().filter_map(|r| r.form(name)).collect();
        v.sort();
        v
    };
    assert_eq!(forms("/early", "toto"), ["last", "last", "last", "last", "orig", "orig"]);
    assert_eq!(forms("/send", "toto"), ["last"; 6]);
    assert_eq!(forms("/send", "tutu"), ["v tutu"; 6]);
    assert_eq!(forms("/send", "other"), ["c"; 6]);
    let queries: Vec<String> = server.recorded("/q").iter().filter_map(|r| r.query("tutu")).collect();
    assert_eq!(queries, ["v tutu"; 6]);
}

fn url_rewriting(name: &str, path_extension: bool, cache: bool) -> String {
    format!(
        r#"<URLRewritingModifier guiclass="URLRewritingModifierGui" testclass="URLRewritingModifier" testname="rewrite {name}" enabled="true">
            <stringProp name="argument_name">{name}</stringProp>
            <boolProp name="path_extension">{path_extension}</boolProp>
            <boolProp name="path_extension_no_equals">false</boolProp>
            <boolProp name="path_extension_no_questionmark">false</boolProp>
            <boolProp name="cache_value">{cache}</boolProp>
          </URLRewritingModifier><hashTree/>"#
    )
}

/// The HTTP URL Re-writing Modifier (JMeter's demo URLRewritingExample.jmx): the session id in
/// the previous sample's response (in the modifier's scope or not) is sent as a parameter (a
/// form field of a POST, replacing one of its name in a query) or as a path extension; the
/// user's first sample is left alone; "cache" keeps the last id found when a response has none.
#[test]
fn url_rewriting_sends_the_session_id_of_the_previous_response() {
    let server = TestServer::builder()
        .route("/index", Route::ok().body(r#"<a href="/main.jsp;SESSION_ID=abc123">main</a>"#).record())
        .route("/page", Route::ok().body("go to x;jsessionid=XYZ?y").record())
        .default_route(Route::ok().body("ok").record())
        .start();
    let run = TempRun::new("jmx-url-rewriting");
    let body = [
        DEFAULTS,
        &url_rewriting("SESSION_ID", false, true),
        &sampler("index", "GET", "/index", "", false, ""),
        &sampler("login", "POST", "/login", &arg("user", "u", true), false, ""),
        &sampler("form", "POST", "/form", "", false, ""),
        &sampler("page", "GET", "/page", &arg("SESSION_ID", "old", true), false, ""),
        &sampler("pathx", "GET", "/p", "", false, &url_rewriting("jsessionid", true, false)),
    ]
    .concat();
    run_plan(&run, &server, &jmx_plan(1, "2", &body));
    for label in ["index", "login", "form", "page", "pathx"] {
        assert_eq!(uint(&run.label(label), "samples"), 2, "{label}");
    }
    assert_eq!(server.requests(), 10);
    let sent: Vec<String> = server
        .recorded_all()
        .iter()
        .map(|r| format!("{} {} {}", r.method, r.target, String::from_utf8_lossy(&r.body)))
        .collect();
    let iteration = |index: &str| {
        [
            format!("GET {index} "),
            "POST /login user=u&SESSION_ID=abc123".to_string(),
            // A POST without arguments sends the id as its form, as JMeter's sampler does.
            "POST /form SESSION_ID=abc123".to_string(),
            "GET /page?SESSION_ID=abc123 ".to_string(),
            // Without "no question mark", the id runs on past `?` (JMeter's pattern); JMeter's
            // `setPath` of a GET makes what follows `?` an argument, after the others.
            "GET /p;jsessionid=XYZ?SESSION_ID=abc123&y ".to_string(),
        ]
    };
    // The first sample has no previous response; the second iteration's first has the last
    // iteration's (no id in it: the cached one).
    assert_eq!(sent, [iteration("/index"), iteration("/index?SESSION_ID=abc123")].concat());
}

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(p, n)| (p.to_string(), *n)).collect()
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

/// An HTML Link Parser whose sampler has a pattern that does not compile (a path `/link/(`, an
/// argument name `x(`) makes JMeter's matcher throw once a link reaches that pattern: its thread
/// skips the sampler (nothing sent, no sample) and goes on; where no candidate reaches it (a
/// page without links), the sampler is sent. 1 user x 2 iterations.
#[test]
fn a_link_parser_pattern_that_does_not_compile_skips_its_sampler() {
    let page = "<html><body><a href=\"/link/a?x=1\">a</a><a href=\"/link/b?y=2\">b</a></body></html>";
    let server = TestServer::builder()
        .route("/page", Route::ok().header("Content-Type", "text/html").body(page))
        .route("/plain", Route::ok().header("Content-Type", "text/html").body("<html><body>none</body></html>"))
        .default_route(Route::ok())
        .record_all()
        .start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-anchor");
    let anchor = element("AnchorModifier", "parser", &[], "");
    let get = |name: &str, path: &str, children: &str| http(name, "127.0.0.1", &port, path, "GET", children);
    let with_arg = format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="badarg" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="x(" elementType="HTTPArgument"><stringProp name="Argument.name">x(</stringProp><stringProp name="Argument.value">1</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/link/a</stringProp><stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{anchor}</hashTree>"#
    );
    let body = [
        get("page", "/page", ""),
        get("bad", "/link/(", &anchor),
        get("after-bad", "/after-bad", ""),
        get("page2", "/page", ""),
        with_arg,
        get("after-badarg", "/after-badarg", ""),
        get("plain", "/plain", ""),
        get("bad-no-links", "/link/(", &anchor),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "2", "", &body)));
    let (cmd, jtl) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/link/("), 2, "only where no link reached the pattern");
    assert_eq!(server.requests_to("/link/a"), 0);
    assert_eq!((server.requests_to("/after-bad"), server.requests_to("/after-badarg")), (2, 2));
    assert_eq!(server.requests_to("/page"), 4);
    assert_eq!(server.requests(), 12);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert!(!rows.contains(",bad,") && !rows.contains(",badarg,"), "no sample: {rows}");
}
