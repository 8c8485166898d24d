//! Script elements (issue 14, 32) run natively: a token a Groovy post-processor extracts sent in a
//! header, pre-processors changing path, method, headers and body, assertions failing samples per
//! message (JSR223 and BeanShell), `prev`, samplers, timers and listeners, the sandbox's refusals
//! and compile errors at line:column; Jayway's `JsonPath`, `FileUtils`, a cookie added to the
//! Cookie Manager, an upload chosen with `HTTPFileArg`; a missing script file; JSR223's
//! compiled-script cache per user.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_http_bodies::{failed, get, script as script_files};
use crate::util::jmx::{element, esc, run_with_jtl, test_plan, thread_group};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{float, label, uint, OutputExt, Stampede, TempRun};

pub(crate) const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// A script element of `class` (JSR223*/BeanShell*) named `name`.
pub(crate) fn script(class: &str, name: &str, lang: &str, text: &str, children: &str) -> String {
    format!(
        r#"<{class} guiclass="TestBeanGUI" testclass="{class}" testname="{name}" enabled="true">
          <stringProp name="scriptLanguage">{lang}</stringProp>
          <stringProp name="parameters"></stringProp>
          <stringProp name="filename"></stringProp>
          <stringProp name="cacheKey">true</stringProp>
          <stringProp name="script">{}</stringProp>
        </{class}><hashTree>{children}</hashTree>"#,
        esc(text)
    )
}

/// Runs a plan of `users` users, `loops` passes each, of HTTP Request Defaults (`-J port=`)
/// and `body`.
pub(crate) fn run_jmx(run: &TempRun, body: &str, users: u32, loops: &str, port: u16) -> crate::util::stampede::Output {
    run_jmx_to(run, body, users, loops, port, None)
}

/// [`run_jmx`], writing a JTL file when `jtl` is given.
fn run_jmx_to(
    run: &TempRun,
    body: &str,
    users: u32,
    loops: &str,
    port: u16,
    jtl: Option<&std::path::Path>,
) -> crate::util::stampede::Output {
    let p = run.write("plan.jmx", jmx_plan(users, loops, &[DEFAULTS, body].concat()));
    let mut cmd =
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &format!("port={port}"), "--out"]).arg(run.path());
    if let Some(j) = jtl {
        cmd = cmd.arg("--jtl").arg(j);
    }
    cmd.run()
}

/// A Groovy post-processor parses the login response with JsonSlurper and puts the token in a
/// variable; the next request sends it in a header (a header manager's `${token}`).
#[test]
fn a_token_extracted_by_groovy_is_sent_in_a_header() {
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(|_| {
                Reply::ok().header("Content-Type", "application/json").body("{\"auth\":{\"token\":\"tk-42\"}}")
            }),
        )
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-script-token");
    let post = script(
        "JSR223PostProcessor",
        "take token",
        "groovy",
        "import groovy.json.JsonSlurper\ndef json = new JsonSlurper().parseText(prev.getResponseDataAsString())\nvars.put(\"token\", json.auth.token)",
        "",
    );
    let headers = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="h" enabled="true">
          <collectionProp name="HeaderManager.headers">
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Token</stringProp><stringProp name="Header.value">${token}</stringProp></elementProp>
          </collectionProp></HeaderManager><hashTree/>"#;
    let body = [sampler("login", "GET", "/login", "", false, &post), sampler("use", "GET", "/use", "", false, headers)]
        .concat();
    run_jmx(&run, &body, 2, "3", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.label("use"), "samples"), 6);
    assert_eq!(uint(&run.total(), "errors"), 0);
    let got: Vec<String> =
        server.recorded("/use").iter().filter_map(|r| r.header("x-token").map(str::to_string)).collect();
    assert_eq!(got, vec!["tk-42".to_string(); 6]);
}

/// A pre-processor changes the path of the request it runs before, and adds a header and an
/// argument; the witness receives the changed request.
#[test]
fn a_pre_processor_changes_what_is_sent() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-pre");
    let pre = script(
        "JSR223PreProcessor",
        "reroute",
        "groovy",
        "sampler.setPath(\"/changed\")\nsampler.addArgument(\"n\", vars.get(\"__n\") ?: \"x\")\nsampler.addArgument(\"port\", props.get(\"port\"))\nsampler.getHeaderManager().add(\"X-Pre\", sampler.getName())\nlog.info(\"sent to \" + sampler.getPath())",
        "",
    );
    let body = sampler("orig", "GET", "/original", "", false, &pre);
    run_jmx(&run, &body, 1, "4", server.addr().port()).assert_exit(0);
    assert_eq!(server.requests_to("/original"), 0);
    assert_eq!(server.requests_to("/changed"), 4);
    for r in server.recorded("/changed") {
        assert_eq!(r.query("n").as_deref(), Some("x"));
        // `props` holds the `-J` properties.
        assert_eq!(r.query("port"), Some(server.addr().port().to_string()));
        assert_eq!(r.header("x-pre"), Some("orig"));
    }
    assert_eq!(uint(&run.label("orig"), "samples"), 4);
    // `log` writes to the run directory's script log, never to the terminal.
    let log = std::fs::read_to_string(run.path().join("scripts.log")).unwrap();
    assert_eq!(log.lines().filter(|l| *l == "INFO JSR223PreProcessor.reroute: sent to /changed").count(), 4, "{log}");
}

/// A JSR223 assertion fails samples with its message, counted per message; a BeanShell
/// assertion through `Failure`/`FailureMessage`; a post-processor makes a sample unsuccessful.
#[test]
fn script_assertions_fail_samples_with_their_message() {
    let server = TestServer::builder()
        .route("/bad", Route::ok().body("bad").record())
        .default_route(Route::ok().body("good").record())
        .start();
    let run = TempRun::new("jmx-script-assert");
    let groovy = script(
        "JSR223Assertion",
        "body check",
        "groovy",
        "if (prev.getResponseDataAsString() != \"good\") {\n  AssertionResult.setFailure(true)\n  AssertionResult.setFailureMessage(\"body is not good\")\n}",
        "",
    );
    let bsh = script(
        "BeanShellAssertion",
        "bsh check",
        "",
        "if (!prev.getResponseDataAsString().equals(\"good\")) { Failure = true; FailureMessage = \"bsh says bad\"; }",
        "",
    );
    let post = script("JSR223PostProcessor", "unsuccess", "groovy", "prev.setSuccessful(false)", "");
    let groovy_assert = script(
        "JSR223Assertion",
        "asserts",
        "groovy",
        "assert prev.getResponseDataAsString() == 'good' : 'not good'",
        "",
    );
    let body = [
        sampler("good", "GET", "/good", "", false, &groovy),
        sampler("bad", "GET", "/bad", "", false, &groovy),
        sampler("bsh-bad", "GET", "/bad", "", false, &bsh),
        sampler("bsh-good", "GET", "/good", "", false, &bsh),
        sampler("post-fails", "GET", "/p", "", false, &post),
        sampler("assert-bad", "GET", "/bad", "", false, &groovy_assert),
        sampler("assert-good", "GET", "/good", "", false, &groovy_assert),
    ]
    .concat();
    run_jmx(&run, &body, 2, "2", server.addr().port()).assert_exit(0);
    assert_eq!(server.requests(), 28);
    let labels = [
        ("good", 0),
        ("bad", 4),
        ("bsh-bad", 4),
        ("bsh-good", 0),
        ("post-fails", 4),
        ("assert-bad", 4),
        ("assert-good", 0),
    ];
    for (label, errors) in labels {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (4, errors), "{label}: {row:#}");
    }
    let kinds = run.total()["errors_by_kind"].clone();
    assert_eq!(kinds["check: body is not good"], 4, "{kinds:#}");
    assert_eq!(kinds["check: bsh says bad"], 4, "{kinds:#}");
    assert_eq!(kinds["check: unsuccess: the script made the sample unsuccessful"], 4, "{kinds:#}");
    // Groovy's `assert c : "msg"` fails the sample under its message.
    assert_eq!(kinds["check: not good"], 4, "{kinds:#}");
}

/// A JSR223 sampler makes a sample with its label, code, message and data (an extractor reads
/// it); one that throws is a failed sample with code 500; a timer's value delays its sampler;
/// `${var}` in a BeanShell script is replaced before it runs; a listener writes a file.
#[test]
fn script_samplers_timers_and_listeners() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-sampler");
    let sampler_ok = script(
        "JSR223Sampler",
        "made",
        "groovy",
        "SampleResult.setResponseCode(\"201\")\nThread.sleep(30)\nreturn \"id=\" + ctx.getThreadNum()",
        r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="re" enabled="true">
            <stringProp name="RegexExtractor.useHeaders">false</stringProp>
            <stringProp name="RegexExtractor.refname">made_id</stringProp>
            <stringProp name="RegexExtractor.regex">id=(\d+)</stringProp>
            <stringProp name="RegexExtractor.template">$1$</stringProp>
            <stringProp name="RegexExtractor.default">none</stringProp>
            <stringProp name="RegexExtractor.match_number">1</stringProp>
          </RegexExtractor><hashTree/>"#,
    );
    let throws = script("JSR223Sampler", "throws", "groovy", "throw new IllegalStateException(\"nope\")", "");
    let timer = script("JSR223Timer", "wait", "groovy", "100", "");
    let listener_file = run.root().join("seen.txt");
    let listener = script(
        "JSR223Listener",
        "listen",
        "groovy",
        &format!("new File(\"{}\").append(sampleResult.getSampleLabel() + \"\\n\")", listener_file.display()),
        "",
    );
    let bsh = script(
        "BeanShellSampler",
        "bsh",
        "",
        "int total = 0; for (int n = 0; n < ${rounds}; n++) { total += 2; } ResponseCode = \"202\"; return \"total=\" + total;",
        "",
    );
    let vars = r#"<Arguments guiclass="ArgumentsPanel" testclass="Arguments" testname="vars" enabled="true">
          <collectionProp name="Arguments.arguments">
            <elementProp name="rounds" elementType="Argument"><stringProp name="Argument.name">rounds</stringProp><stringProp name="Argument.value">5</stringProp></elementProp>
          </collectionProp></Arguments><hashTree/>"#;
    let body = [
        vars.to_string(),
        listener,
        sampler_ok,
        sampler("use", "GET", "/use?id=${made_id}", "", false, ""),
        throws,
        sampler("timed", "GET", "/timed", "", false, &timer),
        bsh,
        sampler("total", "GET", "/total?t=${__BeanShell(1+1)}", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "2", &[DEFAULTS, &body].concat()));
    let (cmd, jtl) = run_with_jtl(&run, &p, Some(server.addr().port()));
    cmd.run().assert_exit(0);
    for (label, errors) in [("made", 0), ("use", 0), ("throws", 2), ("timed", 0), ("bsh", 0)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, errors), "{label}: {row:#}");
    }
    assert!(float(&run.label("made"), "mean_ms") >= 30.0, "the sampler's sleep is its time");
    let ids: Vec<String> = server.recorded("/use").iter().filter_map(|r| r.query("id")).collect();
    assert_eq!(ids, ["0", "0"]);
    // The timer's 100 ms come before the request: the run lasted at least 2 × 100 ms + 2 × 30 ms.
    let text = std::fs::read_to_string(&jtl).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let made: Vec<&Vec<&str>> = rows.iter().filter(|r| r[2] == "made").collect();
    assert!(made.iter().all(|r| r[3] == "201" && r[7] == "true"), "{made:?}");
    let thrown: Vec<&Vec<&str>> = rows.iter().filter(|r| r[2] == "throws").collect();
    assert!(
        thrown.iter().all(|r| r[3] == "500" && r[4].contains("IllegalStateException") && r[7] == "false"),
        "{thrown:?}"
    );
    let bsh_rows: Vec<&Vec<&str>> = rows.iter().filter(|r| r[2] == "bsh").collect();
    assert!(bsh_rows.iter().all(|r| r[3] == "202"), "{bsh_rows:?}");
    let times: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    let span = times.iter().max().unwrap() - times.iter().min().unwrap();
    assert!(span >= 200, "two timer waits of 100 ms: {span} ms");
    // The listener saw every sample in its scope (the whole thread group), in order.
    let seen = std::fs::read_to_string(&listener_file).unwrap();
    assert_eq!(seen.lines().count(), 12, "{seen}");
    assert_eq!(seen.lines().filter(|l| *l == "made").count(), 2, "{seen}");
}

/// The sandbox: process execution, sockets and writing a file the plan does not name are
/// refused (a failed sample whose message says why); compile errors are reported by `check`
/// with the element and the line and column inside the script, and `run` refuses the plan.
#[test]
fn the_sandbox_refuses_and_check_reports_compile_errors() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-sandbox");
    let outside = std::env::temp_dir().join(format!("stampede-outside-{}.txt", std::process::id()));
    let body = [
        script("JSR223Sampler", "exec", "groovy", "Runtime.getRuntime().exec(\"ls\")", ""),
        script("JSR223Sampler", "socket", "groovy", "new Socket(\"127.0.0.1\", 80)", ""),
        script(
            "JSR223Sampler",
            "write",
            "groovy",
            &format!("def name = \"{}\"\nnew File(name.toString()).text = \"x\"", outside.display()),
            "",
        ),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let out = run_jmx(&run, &body, 1, "1", server.addr().port());
    // Either refused at load (a class outside the subset) or failed when it runs: never run.
    if out.status.success() {
        for label in ["exec", "socket", "write"] {
            assert_eq!(uint(&run.label(label), "errors"), 1, "{label}");
        }
        assert_eq!(server.requests(), 1);
    } else {
        let text = format!("{}{}", out.stdout_str(), out.stderr_str());
        assert!(text.contains("exec") || text.contains("Runtime") || text.contains("Socket"), "{text}");
        assert_eq!(server.requests(), 0);
    }
    assert!(!outside.exists(), "nothing was written outside the plan's files");

    let bad = TempRun::new("jmx-script-compile");
    let body = script("JSR223PostProcessor", "broken", "groovy", "def x = 1\nvars.put(\"a\", (x + )\n", "");
    let p = bad.write(
        "plan.jmx",
        jmx_plan(1, "1", &[DEFAULTS.to_string(), sampler("s", "GET", "/s", "", false, &body)].concat()),
    );
    let check = Stampede::new().arg("check").arg(&p).run();
    let text = format!("{}{}", check.stdout_str(), check.stderr_str());
    assert!(text.contains("broken") && text.contains("line 2, column"), "{text}");
    let refused = Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(bad.path()).run();
    assert!(!refused.status.success());
    let skipped = Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "--skip-unsupported", "-J", &format!("port={}", server.addr().port()), "--out"])
        .arg(bad.path().with_extension("skip"))
        .run();
    skipped.assert_exit(0);
}

/// `prev` and `ctx.getPreviousResult()` before a sampler are the user's last sample (JMeter's
/// `JMeterContext.getPreviousResult()`, kept across iterations), null before its first; a
/// script sampler's `prev` is the sample before it, not its own. A template function's
/// `log.info` goes to the run's scripts.log.
#[test]
fn prev_before_a_sampler_is_the_users_last_sample() {
    let server = TestServer::builder()
        .route("/a", Route::ok().body("alpha").record())
        .route("/b", Route::status(404).body("beta").record())
        .start();
    let run = TempRun::new("jmx-script-prev");
    let show = |name: &str| {
        script(
            "JSR223PreProcessor",
            name,
            "groovy",
            "def p = ctx.getPreviousResult()\nassert (p == null) == (prev == null)\nsampler.addArgument(\"prev\", prev == null ? \"none\" : prev.getSampleLabel() + \":\" + prev.getResponseCode() + \":\" + prev.getResponseDataAsString() + \":\" + p.isSuccessful())",
            "",
        )
    };
    let samp = script(
        "JSR223Sampler",
        "samp",
        "groovy",
        "SampleResult.setResponseData(prev.getSampleLabel() + \"/\" + prev.getResponseCode(), \"UTF-8\")",
        "",
    );
    let fn_arg = crate::jmx::arg("f", "${__groovy(log.info('fn says ' + vars.get('__n')))}", false);
    let body = [
        sampler("first", "GET", "/a", &fn_arg, false, &show("p1")),
        sampler("second", "GET", "/b", "", false, &show("p2")),
        samp,
    ]
    .concat();
    run_jmx(&run, &body, 1, "2", server.addr().port()).assert_exit(0);
    let got = |path: &str| -> Vec<String> { server.recorded(path).iter().filter_map(|r| r.query("prev")).collect() };
    // The first sample of the user has none; then the script sampler of the iteration before.
    assert_eq!(got("/a"), vec!["none".to_string(), "samp:200:second/404:true".to_string()]);
    assert_eq!(got("/b"), vec!["first:200:alpha:true".to_string(); 2]);
    assert_eq!(uint(&run.label("samp"), "samples"), 2);
    assert_eq!(uint(&run.label("second"), "errors"), 2);
    let log = std::fs::read_to_string(run.path().join("scripts.log")).unwrap();
    assert_eq!(log.lines().filter(|l| *l == "INFO function: fn says null").count(), 2, "{log}");
}

/// What a post-processor changes on `prev` is what is recorded: its label (a row of its own,
/// as a `${...}` label's), its code and message (in the results file), its success.
#[test]
fn a_post_processor_renames_and_fails_its_sample() {
    let server = TestServer::builder().default_route(Route::ok().body("fine").record()).start();
    let run = TempRun::new("jmx-script-post-label");
    let jtl = run.root().join("out.jtl");
    let post = script(
        "JSR223PostProcessor",
        "relabel",
        "groovy",
        "prev.setSampleLabel('renamed ' + prev.getResponseDataAsString())\nprev.setResponseCode('299')\nprev.setResponseMessage('said so')\nprev.setSuccessful(false)",
        "",
    );
    let body = [sampler("orig", "GET", "/x", "", false, &post), sampler("plain", "GET", "/y", "", false, "")].concat();
    let out = run_jmx_to(&run, &body, 2, "2", server.addr().port(), Some(&jtl));
    out.assert_exit(0);
    assert_eq!(server.requests_to("/x"), 4);
    let renamed = run.label("renamed fine");
    assert_eq!(uint(&renamed, "samples"), 4, "{renamed:#}");
    assert_eq!(uint(&renamed, "errors"), 4);
    assert_eq!(uint(&run.label("plain"), "samples"), 4);
    let text = std::fs::read_to_string(&jtl).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let renamed: Vec<_> = rows.iter().filter(|r| r[2] == "renamed fine").collect();
    assert_eq!(renamed.len(), 4, "{text}");
    for r in renamed {
        assert_eq!((r[3], r[4], r[7]), ("299", "said so", "false"), "{text}");
    }
    assert_eq!(rows.iter().filter(|r| r[2] == "orig").count(), 0, "{text}");
}

/// A pre-processor's `setMethod`, `removeHeaderNamed`, `getHeaderManager().add(new Header(...))`
/// are sent; arguments it adds to a POST go in the form body (HTTPHC4Impl), and a nameless one
/// (`addNonEncodedArgument("", body, "")`) is the raw body.
#[test]
fn a_pre_processor_changes_method_headers_and_body() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-pre-body");
    let form = script(
        "JSR223PreProcessor",
        "to post",
        "groovy",
        "import org.apache.jmeter.protocol.http.control.Header\nsampler.setMethod('POST')\nsampler.addArgument('a', '1 2')\nsampler.getHeaderManager().removeHeaderNamed('X-Drop')\nsampler.getHeaderManager().add(new Header('X-New', 'v'))",
        "",
    );
    let raw = script(
        "JSR223PreProcessor",
        "raw",
        "groovy",
        "sampler.setMethod('PUT')\nsampler.setPostBodyRaw(true)\nsampler.addNonEncodedArgument('', '{\"k\":1}', '')",
        "",
    );
    let headers = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="h" enabled="true">
          <collectionProp name="HeaderManager.headers">
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Drop</stringProp><stringProp name="Header.value">gone</stringProp></elementProp>
          </collectionProp></HeaderManager><hashTree/>"#;
    let body = [
        sampler("form", "GET", "/form", "", false, &[form.as_str(), headers].concat()),
        sampler("raw", "GET", "/raw", "", false, &raw),
    ]
    .concat();
    run_jmx(&run, &body, 1, "3", server.addr().port()).assert_exit(0);
    let forms = server.recorded("/form");
    assert_eq!(forms.len(), 3);
    for r in forms {
        assert_eq!(r.method, "POST");
        assert_eq!(r.target, "/form");
        assert_eq!(r.form("a").as_deref(), Some("1 2"));
        assert_eq!(r.header("content-type"), Some("application/x-www-form-urlencoded"));
        assert_eq!(r.header("x-drop"), None);
        assert_eq!(r.header("x-new"), Some("v"));
    }
    let raws = server.recorded("/raw");
    assert_eq!(raws.len(), 3);
    for r in raws {
        assert_eq!((r.method.as_str(), r.body.as_slice()), ("PUT", &b"{\"k\":1}"[..]));
    }
    assert_eq!(uint(&run.total(), "samples"), 6);
    assert_eq!(uint(&run.total(), "errors"), 0);
}

/// Scripts in the scope of a Dummy or Debug Sampler run on its sample, as on a request's: a
/// post-processor reads its response, an assertion fails it with its message, and the next
/// pre-processor's `prev` is that sample.
#[test]
fn scripts_run_on_the_samples_of_samplers_that_send_nothing() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("jmx-script-synthetic");
    let post = script(
        "JSR223PostProcessor",
        "id",
        "groovy",
        "vars.put('id', new groovy.json.JsonSlurper().parseText(prev.getResponseDataAsString()).id)",
        "",
    );
    let fail = script(
        "JSR223Assertion",
        "no",
        "groovy",
        "AssertionResult.setFailure(true); AssertionResult.setFailureMessage('nope')",
        "",
    );
    let pre = script("JSR223PreProcessor", "last", "groovy", "vars.put('last', prev.getSampleLabel())", "");
    let debug = format!(
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true"/><hashTree>{fail}</hashTree>"#
    );
    let body = [
        crate::jmx_samplers::dummy("d", true, "200", "{&quot;id&quot;:&quot;42&quot;}", 0, false, &post),
        sampler("item", "GET", "/item/${id}", "", false, ""),
        debug,
        sampler("prev", "GET", "/prev/${last}", "", false, &pre),
    ]
    .concat();
    run_jmx(&run, &body, 1, "2", server.addr().port()).assert_exit(0);
    assert_eq!(server.requests_to("/item/42"), 2);
    assert_eq!(server.requests_to("/prev/dbg"), 2);
    let dbg = run.label("dbg");
    assert_eq!((uint(&dbg, "samples"), uint(&dbg, "errors")), (2, 2), "{dbg:#}");
    assert!(dbg.to_string().contains("nope"), "{dbg:#}");
}

/// JMeter runs a sample's post-processors (extractors and scripts) in tree order, then its
/// assertions (Response Assertions and scripts) in tree order: a script before an extractor
/// reads the variable as the last iteration left it, and an assertion on a variable a script
/// post-processor sets sees it set.
#[test]
fn post_processors_then_assertions_run_in_tree_order() {
    let server = TestServer::builder()
        .route("/login", Route::ok().body("tok=tk"))
        .default_route(Route::ok())
        .record_all()
        .start();
    let run = TempRun::new("jmx-script-order");
    let early = script("JSR223PostProcessor", "early", "groovy", "vars.put('early', vars.get('tok') ?: 'none')", "");
    let extractor = &crate::util::jmx::regex_extractor("tok", "tok", "false", r"tok=(\w+)", "$1$", "");
    let late = script("JSR223PostProcessor", "late", "groovy", "vars.put('late', vars.get('tok') + '-x')", "");
    let checked = crate::jmx_assertions::var_assertion("late is set", "late", 8, "tk-x");
    // An assertion before a post-processor in the tree still runs after it.
    let first = script(
        "JSR223Assertion",
        "sees late",
        "groovy",
        "if (vars.get('late') != 'tk-x') { AssertionResult.setFailure(true); AssertionResult.setFailureMessage('late unset') }",
        "",
    );
    let children = [first.as_str(), &early, extractor, &late, &checked].concat();
    let body = [
        sampler("login", "GET", "/login", "", false, &children),
        sampler("use", "GET", "/use/${early}/${late}", "", false, ""),
    ]
    .concat();
    run_jmx(&run, &body, 1, "2", server.addr().port()).assert_exit(0);
    let login = run.label("login");
    assert_eq!((uint(&login, "samples"), uint(&login, "errors")), (2, 0), "{login:#}");
    let paths: Vec<String> =
        server.recorded_all().iter().map(|r| r.path().to_string()).filter(|p| p.starts_with("/use")).collect();
    assert_eq!(paths, ["/use/none/tk-x", "/use/tk/tk-x"]);
}

/// A plan with an element stampede runs only in part (a Constant Throughput Timer in a shared
/// mode) runs, and says so on the terminal; a script using a class outside stampede's
/// script library (one JMeter ships, so its run would work there) is refused, naming it, and
/// skipped with `--skip-unsupported`.
#[test]
fn a_run_says_when_elements_run_only_in_part_or_not_at_all() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmx-script-partial");
    let timer = r#"<ConstantThroughputTimer guiclass="TestBeanGUI" testclass="ConstantThroughputTimer" testname="ctt" enabled="true">
          <intProp name="calcMode">3</intProp>
          <doubleProp><name>throughput</name><value>60000.0</value><savedValue>0.0</savedValue></doubleProp>
        </ConstantThroughputTimer><hashTree/>"#;
    let out = run_jmx(&run, &sampler("r", "GET", "/r", "", false, timer), 1, "1", server.addr().port());
    out.assert_exit(0);
    assert_eq!(server.requests_to("/r"), 1);
    assert!(out.stderr_str().contains("warning: 1 element(s) run only in part"), "{}", out.stderr_str());

    let code = "import org.apache.mina.core.service.IoAcceptor; IoAcceptor a = null";
    let pre = script("JSR223PreProcessor", "mina", "groovy", code, "");
    let body = sampler("s", "GET", "/s", "", false, &pre);
    let refused = run_jmx(&TempRun::new("jmx-script-mina"), &body, 1, "1", server.addr().port());
    refused.assert_exit(2);
    assert!(
        refused.stderr_str().contains("`IoAcceptor` is not available in stampede's scripts"),
        "{}",
        refused.stderr_str()
    );
    assert_eq!(server.requests_to("/s"), 0);
    let skip = TempRun::new("jmx-script-mina-skip");
    let p = skip.write("plan.jmx", jmx_plan(1, "1", &[DEFAULTS, &body].concat()));
    let port = format!("port={}", server.addr().port());
    let out = Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "--skip-unsupported", "-J", &port, "--out"])
        .arg(skip.path())
        .run();
    out.assert_exit(0);
    assert_eq!(server.requests_to("/s"), 1);
}

/// A JSR223 or BeanShell element whose script file is missing loads: a sampler's every sample
/// fails with JMeter's message, a pre- or post-processor logs it and the sample goes on.
#[test]
fn a_missing_script_file_fails_each_script_sample_and_the_others_go_on() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-script");
    let body = [
        script_files("JSR223Sampler", "jsr", &[("filename", "missing.groovy"), ("cacheKey", "true"), ("script", "")]),
        get(
            "after",
            &port,
            "/after",
            &[
                script_files("JSR223PreProcessor", "pre", &[("filename", "missing.groovy"), ("script", "")]),
                script_files("BeanShellPostProcessor", "post", &[("filename", "missing.bsh"), ("script", "")]),
            ]
            .concat(),
        ),
    ]
    .concat();
    let file = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "3", "", &body)));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("each sample fails, as in JMeter: Script file"), "{}", check.stdout_str());
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/after"), 3);
    assert_eq!(server.requests(), 3);
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert_eq!(failed(&rows, "jsr", "missing.groovy' is not a file for element: jsr"), 3, "{rows}");
    let s = run.summary();
    assert_eq!(uint(&label(&s, "jsr"), "errors"), 3);
    assert_eq!(uint(&label(&s, "after"), "errors"), 0);
}

/// JSR223 with "Cache compiled script" (the default) runs, per user, the text its first run
/// rendered: `${n}` keeps its first value and `${__threadNum}` its user's; without the cache
/// and in BeanShell the text is rendered on every run (JMeter 5.6.3: 1-1 1-1 1-1 / 2-1 2-1 2-1).
#[test]
fn a_cached_jsr223_script_keeps_each_users_first_rendering() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-cache");
    let counter = element(
        "CounterConfig",
        "n",
        &[("CounterConfig.start", "1"), ("CounterConfig.incr", "1"), ("CounterConfig.name", "n")],
        "",
    )
    .replace("</CounterConfig>", "<boolProp name=\"CounterConfig.per_user\">true</boolProp></CounterConfig>");
    let text = esc(r#"vars.put("seen", "${__threadNum}-${n}")"#);
    let pre = |class: &str, cache: &str| script_files(class, "pre", &[("cacheKey", cache), ("script", &text)]);
    let body = [
        counter,
        get("cached", &port, "/cached?seen=${seen}", &pre("JSR223PreProcessor", "true")),
        get("uncached", &port, "/uncached?seen=${seen}", &pre("JSR223PreProcessor", "false")),
        get("bsh", &port, "/bsh?seen=${seen}", &pre("BeanShellPreProcessor", "")),
    ]
    .concat();
    let file = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "2", "3", "", &body)));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("replaced on each user's first run only"), "{}", check.stdout_str());
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let seen = |path: &str| {
        let mut v: Vec<String> = server.recorded(path).iter().filter_map(|r| r.query("seen")).collect();
        v.sort();
        v
    };
    assert_eq!(seen("/cached"), ["1-1", "1-1", "1-1", "2-1", "2-1", "2-1"]);
    assert_eq!(seen("/uncached"), ["1-1", "1-2", "1-3", "2-1", "2-2", "2-3"]);
    assert_eq!(seen("/bsh"), ["1-1", "1-2", "1-3", "2-1", "2-2", "2-3"]);
    assert_eq!(server.requests(), 18);
}

/// A Groovy post-processor reads the login response with Jayway's `JsonPath` (a definite path,
/// a filter, a missing path caught as `PathNotFoundException`); the next request sends what it
/// read.
#[test]
fn values_read_with_jayway_json_path_are_sent_by_the_next_request() {
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(|_| {
                Reply::json(r#"{"auth":{"token":"tk-42"},"items":[{"id":7,"on":true},{"id":9,"on":false},{"id":11,"on":true}]}"#)
            }),
        )
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-script-jsonpath");
    let post = script(
        "JSR223PostProcessor",
        "read json",
        "groovy",
        r#"import com.jayway.jsonpath.JsonPath
import com.jayway.jsonpath.PathNotFoundException
def body = prev.getResponseDataAsString()
vars.put("token", JsonPath.read(body, "$.auth.token"))
List ids = JsonPath.parse(body).read("$.items[?(@.on == true)].id")
vars.put("ids", ids.join("-"))
try {
    JsonPath.read(body, "$.auth.refresh")
    vars.put("refresh", "found")
} catch (PathNotFoundException e) {
    vars.put("refresh", "none")
}"#,
        "",
    );
    let body = [
        sampler("login", "GET", "/login", "", false, &post),
        sampler("use", "GET", "/use/${token}/${ids}/${refresh}", "", false, ""),
    ]
    .concat();
    run_jmx(&run, &body, 2, "3", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.label("use"), "samples"), 6);
    assert_eq!(uint(&run.total(), "errors"), 0);
    let got: Vec<String> = server.recorded("/use/tk-42/7-11/none").iter().map(|r| r.path().to_string()).collect();
    assert_eq!(got.len(), 6, "{:?}", server.recorded("/use"));
}

const COOKIE_MANAGER: &str = r#"<CookieManager guiclass="CookiePanel" testclass="CookieManager" testname="HTTP Cookie Manager" enabled="true">
          <collectionProp name="CookieManager.cookies"/>
          <boolProp name="CookieManager.clearEachIteration">false</boolProp>
        </CookieManager><hashTree/>"#;

/// A pre-processor adds a cookie through `sampler.getCookieManager().add(new Cookie(...))`: the
/// user's cookie store holds it, so its request and the next ones on its path send it (and a
/// request outside its path does not); without a Cookie Manager `getCookieManager()` is null.
#[test]
fn a_cookie_a_script_adds_to_the_cookie_manager_is_sent() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-cookie");
    let pre = script(
        "JSR223PreProcessor",
        "add cookie",
        "groovy",
        r#"import org.apache.jmeter.protocol.http.control.Cookie
def cm = sampler.getCookieManager()
cm.add(new Cookie("sid", "s-" + vars.get("__jm__Users__idx"), "127.0.0.1", "/app", false, 0))"#,
        "",
    );
    let body = [
        COOKIE_MANAGER,
        &sampler("first", "GET", "/app/one", "", false, &pre),
        &sampler("second", "GET", "/app/two", "", false, ""),
        &sampler("elsewhere", "GET", "/other", "", false, ""),
    ]
    .concat();
    run_jmx(&run, &body, 2, "2", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.total(), "samples"), 12);
    assert_eq!(uint(&run.total(), "errors"), 0);
    for path in ["/app/one", "/app/two"] {
        let got: Vec<Option<String>> = server.recorded(path).iter().map(|r| r.cookie("sid")).collect();
        assert_eq!(got.len(), 4, "{path}");
        assert!(got.iter().all(|c| c.as_deref().is_some_and(|v| v.starts_with("s-"))), "{path}: {got:?}");
    }
    let other: Vec<Option<String>> = server.recorded("/other").iter().map(|r| r.cookie("sid")).collect();
    assert_eq!(other, vec![None; 4]);

    let run = TempRun::new("jmx-script-no-cookie-manager");
    let pre = script(
        "JSR223PreProcessor",
        "no manager",
        "groovy",
        r#"vars.put("cm", sampler.getCookieManager() == null ? "null" : "there")"#,
        "",
    );
    let body = sampler("probe", "GET", "/cm/${cm}", "", false, &pre);
    run_jmx(&run, &body, 1, "2", server.addr().port()).assert_exit(0);
    assert_eq!(server.recorded("/cm/null").len(), 2);
}

/// A pre-processor reads a file beside the plan with commons-io's `FileUtils` and writes
/// another; the request sends what it read, and a file outside the plan's directory is refused.
#[test]
fn file_utils_reads_and_writes_beside_the_plan_only() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-fileutils");
    run.write("ids.txt", "a1\nb2\n");
    let pre = script(
        "JSR223PreProcessor",
        "read ids",
        "groovy",
        r#"import org.apache.commons.io.FileUtils
def ids = FileUtils.readLines(new File("ids.txt"), "UTF-8")
FileUtils.writeStringToFile(new File("seen.txt"), ids.join(",") + "\n", "UTF-8", true)
def outside
try { FileUtils.readFileToString(new File("/etc/hostname"), "UTF-8"); outside = "read" } catch (SecurityException e) { outside = "refused" }
vars.put("p", ids.join("-") + "/" + outside)"#,
        "",
    );
    let body = sampler("ids", "GET", "/ids/${p}", "", false, &pre);
    run_jmx(&run, &body, 1, "3", server.addr().port()).assert_exit(0);
    assert_eq!(server.recorded("/ids/a1-b2/refused").len(), 3);
    assert_eq!(std::fs::read_to_string(run.root().join("seen.txt")).unwrap(), "a1,b2\n".repeat(3));
}

/// A pre-processor chooses the file a POST uploads, per sample
/// (`sampler.setHTTPFiles([new HTTPFileArg(path, param, mime)] as HTTPFileArg[])`): the
/// witness receives a multipart body with the form's field, then that file.
#[test]
fn a_file_a_pre_processor_chooses_is_uploaded_multipart() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-upload");
    run.write("up-0.txt", "zero");
    run.write("up-1.txt", "one");
    let pre = script(
        "JSR223PreProcessor",
        "choose file",
        "groovy",
        r#"import org.apache.jmeter.protocol.http.util.HTTPFileArg
int n = (vars.get("n") ?: "0") as int
vars.put("n", String.valueOf(n + 1))
sampler.setHTTPFiles([new HTTPFileArg("up-" + (n % 2) + ".txt", "file", "text/plain")] as HTTPFileArg[])"#,
        "",
    );
    let body = sampler("upload", "POST", "/upload", &crate::jmx::arg("who", "me", false), false, &pre);
    run_jmx(&run, &body, 1, "4", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.label("upload"), "samples"), 4);
    assert_eq!(uint(&run.total(), "errors"), 0);
    let got = server.recorded("/upload");
    assert_eq!(got.len(), 4);
    for (i, r) in got.iter().enumerate() {
        let b = "----stampede-7d4a1f0c9b3e";
        let (file, text) = if i % 2 == 0 { ("up-0.txt", "zero") } else { ("up-1.txt", "one") };
        let want = format!(
            "--{b}\r\nContent-Disposition: form-data; name=\"who\"\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nme\r\n--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file}\"\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\n\r\n{text}\r\n--{b}--\r\n"
        );
        assert_eq!(String::from_utf8_lossy(&r.body), want);
        assert_eq!(
            r.header("content-type"),
            Some(format!("multipart/form-data; boundary={b}; charset=UTF-8").as_str())
        );
    }
}
