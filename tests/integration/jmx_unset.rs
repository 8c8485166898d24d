//! JMeter's unset variables and header text where stampede differed (issue 32): an extractor
//! that finds nothing with an empty default leaves its variable unset (its `${name}` is sent as
//! it is, a script reads null), one with "use empty default" sets `""`; a variable no extractor
//! has set yet is unset too. Response and request headers read as JMeter's HttpClient 4 sampler
//! gives them, so the everyday `Location: (.*)` drives the next request.

use crate::jmx::jmx_plan;
use crate::jmx_b::DEFAULTS;
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

/// A GET of `path` that does not follow redirects, with `children` (extractors, headers).
fn get(name: &str, path: &str, children: &str) -> String {
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
fn headers(pairs: &[(&str, &str)]) -> String {
    crate::util::jmx::header_manager("H", pairs)
}

/// A Regular Expression Extractor into `name` reading `field` (`false`: the body, `true`: the
/// response headers, `request_headers`), with `extra` properties (a default).
fn regex(name: &str, field: &str, re: &str, extra: &str) -> String {
    crate::util::jmx::regex_extractor(name, name, field, re, "$1$", extra)
}

fn run_plan(run: &TempRun, server: &TestServer, plan: String) {
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
        get(
            "u1",
            "/u1",
            &[
                headers(&[("X-Later", "${later}")]),
                regex("token", "false", r"nomatch=(\w+)", empty_default),
                // Named by no function or script: only its own reference can show it unset.
                regex("miss", "false", r"nomatch=(\w+)", empty_default),
                regex("blank", "false", r"nomatch=(\w+)", use_empty),
                boundary.to_string(),
                json.to_string(),
            ]
            .concat(),
        ),
        get(
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
        get("u3", "/u3", &regex("later", "false", r#""token":"([\w-]+)""#, "")),
    ]
    .concat();
    run_plan(&run, &server, jmx_plan(2, "2", &plan_body));

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
        get(
            "start",
            "/start",
            &[
                regex(
                    "redirect_1",
                    "true",
                    "Location: (.*)",
                    r#"<stringProp name="RegexExtractor.default">redirect_1_NotFound</stringProp>"#,
                ),
                regex("code", "true", r"HTTP/1.1 (\d+)", ""),
                regex("req_host", "request_headers", "Host: (.*)", ""),
            ]
            .concat(),
        ),
        get("auth", "${redirect_1}", ""),
        get(
            "echo",
            "/echo",
            &headers(&[("X-Location", "[${redirect_1}]"), ("X-Code", "${code}"), ("X-Req-Host", "[${req_host}]")]),
        ),
    ]
    .concat();
    run_plan(&run, &server, jmx_plan(2, "3", &plan_body));

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

/// A JSR223 PostProcessor running `script` (Groovy).
fn groovy_post(script: &str) -> String {
    format!(
        r#"<JSR223PostProcessor guiclass="TestBeanGUI" testclass="JSR223PostProcessor" testname="s" enabled="true">
            <stringProp name="scriptLanguage">groovy</stringProp>
            <stringProp name="script">{script}</stringProp>
          </JSR223PostProcessor><hashTree/>"#
    )
}

/// Review of #32: the `m_N` of a match -1 extractor that only a script reads are null beyond
/// `m_matchNr` (JMeter), so the everyday `while (vars.get("m_" + i) != null)` stops after the
/// last match, also once a later response with fewer matches removed the rest; a match of an
/// empty group is `""`. Response header lines reach an extractor as the server sent them.
#[test]
fn scripts_see_only_the_kept_matches_and_header_lines_as_sent_as_in_jmeter() {
    let server = TestServer::builder()
        .route("/a", Route::ok().body("id=1;id=2;id=;").header("X-A", "b  ").header("X-B", "  c"))
        .route("/b", Route::ok().body("id=7;"))
        .route("/echo", Route::ok().record())
        .start();
    let run = TempRun::new("jmx-unset-matches");
    let all = r#"<stringProp name="RegexExtractor.default">none</stringProp>"#;
    let all_matches = regex("m", "false", r"id=(\d*);", all).replace(
        r#"<stringProp name="RegexExtractor.match_number">1</stringProp>"#,
        r#"<stringProp name="RegexExtractor.match_number">-1</stringProp>"#,
    );
    let walk = |into: &str| {
        groovy_post(&format!(
            r#"String s = &quot;&quot;; int i = 1; while (vars.get(&quot;m_&quot; + i) != null) {{ s = s + &quot;[&quot; + vars.get(&quot;m_&quot; + i) + &quot;]&quot;; i = i + 1 }}; vars.put(&quot;{into}&quot;, s + &quot; m5=&quot; + vars.get(&quot;m_5&quot;))"#
        ))
    };
    let plan_body = [
        DEFAULTS.to_string(),
        get(
            "a",
            "/a",
            &[
                all_matches.clone(),
                walk("seen"),
                regex("xa", "true", "X-A:(.*)", ""),
                regex("xb", "true", "X-B:(.*)", ""),
            ]
            .concat(),
        ),
        get("b", "/b", &[all_matches, walk("seen2")].concat()),
        get(
            "echo",
            "/echo",
            &headers(&[("X-Seen", "${seen}"), ("X-Seen2", "${seen2}"), ("X-A", "[${xa}]"), ("X-B", "[${xb}]")]),
        ),
    ]
    .concat();
    run_plan(&run, &server, jmx_plan(2, "2", &plan_body));

    let echo = server.recorded("/echo");
    assert_eq!(echo.len(), 4);
    for r in &echo {
        assert_eq!(r.header("X-Seen"), Some("[1][2][] m5=null"));
        assert_eq!(r.header("X-Seen2"), Some("[7] m5=null"), "the matches /a left are removed");
        assert_eq!(r.header("X-A"), Some("[ b  ]"), "the header line as sent");
        assert_eq!(r.header("X-B"), Some("[   c]"), "the header line as sent");
    }
    for (label, path) in [("a", "/a"), ("b", "/b"), ("echo", "/echo")] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 4, "{label}: {row:#}");
        assert_eq!(uint(&row, "errors"), 0, "{label}: {row:#}");
        assert_eq!(server.requests_to(path), 4);
    }
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
