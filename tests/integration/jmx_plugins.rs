//! Jmeter-plugins elements of real plans (issue 32): Variables From CSV File (rows, comments,
//! multi-line values, properties, a missing file, an empty delimiter); the Spider PreProcessor
//! (each link of its domain followed once, the last found first, then the test stopped).

use crate::util::jmx::{
    constant_timer, element, http, http_defaults, raw_post, run_with_jtl, run_witnessed, test_plan, thread_group,
};
use crate::util::server::{RecordedRequest, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::time::Duration;

/// A plan with HTTP Request Defaults to the witness and a user-defined variable `p1=udv`.
pub(crate) fn plan(port: u16, body: &str) -> String {
    let udv = r#"<elementProp name="TestPlan.user_defined_variables" elementType="Arguments"><collectionProp name="Arguments.arguments">
        <elementProp name="p1" elementType="Argument"><stringProp name="Argument.name">p1</stringProp><stringProp name="Argument.value">udv</stringProp></elementProp>
      </collectionProp></elementProp>"#;
    test_plan("plugins", udv, &(http_defaults("127.0.0.1", &port.to_string()) + body))
}

pub(crate) fn group(class: &str, name: &str, threads: &str, loops: &str, body: &str) -> String {
    thread_group(class, name, threads, loops, "", body)
}

pub(crate) fn get(path: &str, children: &str) -> String {
    http(path, "", "", path, "GET", children)
}

pub(crate) fn witness() -> TestServer {
    TestServer::builder()
        .default_route(Route::ok().body(r#"{"result":{"token":"tok-1","id":"x-7"},"responseCode":"OK"}"#).record())
        .start()
}

/// Runs `plan.jmx` (beside `files`) and returns what the witness received (stampede's samples
/// equal to it) and `check`'s output.
pub(crate) fn run_plan(
    server: &TestServer,
    run: &TempRun,
    jmx: &str,
    files: &[(&str, &str)],
) -> (Vec<RecordedRequest>, String) {
    for (name, text) in files {
        run.write(name, text);
    }
    let plan = run.write("plan.jmx", jmx);
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    (run_witnessed(server, run, &plan), check.stdout_str().to_string())
}

pub(crate) fn targets(got: &[RecordedRequest]) -> Vec<&str> {
    got.iter().map(|r| r.target.as_str()).collect()
}

/// JMeter 5.6.3 with jmeter-plugins' Variables From CSV File (`plugins-csvars.jmx`, the same
/// files): prefix, skipped header, comments, one and three fields, a multi-line value, an
/// empty line, "store as properties" read by `__P`, a `;` delimiter with `\r\n` lines; a
/// missing file defines nothing and the run goes on (`${m_x}` sent as written).
#[test]
fn variables_from_csv_file_defines_the_files_rows_as_jmeter_does() {
    let server = witness();
    let run = TempRun::new("plugins-csvars");
    let csvars = |name: &str, file: &str, prefix: &str, delim: &str, skip: u32, props: bool| {
        format!(
            r#"<kg.apc.jmeter.config.VariablesFromCSV guiclass="kg.apc.jmeter.config.VariablesFromCSVGui" testclass="kg.apc.jmeter.config.VariablesFromCSV" testname="{name}" enabled="true">
        <collectionProp name="Arguments.arguments"/>
        <stringProp name="filename">{file}</stringProp><stringProp name="variablesPrefix">{prefix}</stringProp>
        <stringProp name="delimiter">{delim}</stringProp><intProp name="skipLines">{skip}</intProp><boolProp name="storeSysProp">{props}</boolProp>
      </kg.apc.jmeter.config.VariablesFromCSV><hashTree/>"#
        )
    };
    let show = "a=${v_a}|b=${v_b}|one=${v_one}|three=${v_three}|multi=${v_multi}|after=${v_after}|hdr=${v_name}|hash=${v_#c}|P=${__P(v_a,nope)}|Pm=${__P(v_multi,nope)}|missing=${m_x}|semi=${s_k}";
    let body = [
        csvars("vars", "plugins-vars.csv", "v_", ",", 1, true),
        csvars("missing", "plugins-missing.csv", "m_", ",", 0, false),
        csvars("semicolons", "plugins-vars-semi.csv", "s_", ";", 0, false),
        group("ThreadGroup", "csvars", "2", "1", &(raw_post("/csvars/all", show) + &get("/csvars/${v_a}/${s_k}", ""))),
    ];
    let files = [
        ("plugins-vars.csv", "name,value\n# a comment\na,alpha\nb,beta,ignored\none\nmulti,\"line1\nline2\nline3\"\nafter,x y\n\n#c,hash\nthree,1,2,3\n"),
        ("plugins-vars-semi.csv", "k;v;w\r\nj;,\r\n"),
    ];
    let (got, check) = run_plan(&server, &run, &plan(server.addr().port(), &body.concat()), &files);
    // What JMeter 5.6.3 sent, byte for byte.
    let want = "a=alpha|b=beta|one=|three=1|multi=line1\nline2\nline3|after=x y|hdr=${v_name}|hash=${v_#c}|P=alpha|Pm=line1\nline2\nline3|missing=${m_x}|semi=v";
    let posts: Vec<String> =
        got.iter().filter(|r| r.method == "POST").map(|r| String::from_utf8_lossy(&r.body).into_owned()).collect();
    assert_eq!(posts, [want, want]);
    let gets: Vec<&str> = got.iter().filter(|r| r.method == "GET").map(|r| r.target.as_str()).collect();
    assert_eq!(gets, ["/csvars/alpha/v", "/csvars/alpha/v"]);
    assert!(check.contains("plugins-missing.csv") && check.contains("File not found"), "{check}");
}

/// JMeter 5.6.3 with the plugin's jar (`plugins-csvars-nodelim.jmx`): an empty delimiter
/// throws while JMeter compiles the tree ("CSV separator cannot be empty"): nothing is sent
/// and the run ends at once; `check` warns, `--strict` refuses.
#[test]
fn variables_from_csv_file_with_an_empty_delimiter_sends_nothing_as_jmeter() {
    let server = witness();
    let run = TempRun::new("plugins-csvars-nodelim");
    let body = format!(
        r#"<kg.apc.jmeter.config.VariablesFromCSV testclass="kg.apc.jmeter.config.VariablesFromCSV" testname="nodelim" enabled="true">
        <stringProp name="filename">v.csv</stringProp><stringProp name="delimiter"></stringProp>
      </kg.apc.jmeter.config.VariablesFromCSV><hashTree/>{}"#,
        group("ThreadGroup", "g", "1", "1", &get("/nodelim/a", ""))
    );
    let (got, check) = run_plan(&server, &run, &plan(server.addr().port(), &body), &[("v.csv", "a,b\n")]);
    assert!(got.is_empty());
    assert!(check.contains("the delimiter is empty"), "{check}");
    let strict = Stampede::new().arg("check").arg(run.root().join("plan.jmx")).arg("--strict").run();
    strict.assert_exit(2);
}

/// Links to `/a`, `/b?x=1` and `c` (relative: `/c`), `/a` again, one to another host and a form
/// whose action does not match the sampler's path.
const HOME: &str = r#"<html><body><a href="/a">a</a><a href="/b?x=1">b</a>
    <a href="http://elsewhere.invalid/out">out</a><a href="c">c</a><a href="/a">a again</a>
    <form action="/form"><input name="q" value="1"></form></body></html>"#;
/// A link seen before and a new one: the same path with other arguments.
const B: &str = r#"<html><body><a href="/a">a</a><a href="/b?x=2">b2</a></body></html>"#;
/// A link back home (never kept before: the first request was the sampler's own) and a new one.
const A: &str = r#"<html><body><a href="/">home</a><a href="/d">d</a></body></html>"#;

/// One user crawls from `/` depth first: `/c` (the last link of home), `/b?x=1`, `/b?x=2`
/// (found on b), `/a`, `/d` (found on a), `/` (found on a), then nothing is left and the test
/// stops once the sampler went as it is (`/` again), the other thread group's user too. 50
/// iterations would be allowed.
#[test]
fn spider_follows_each_link_of_its_domain_once_depth_first_then_stops_the_test() {
    let html = |body: &'static str| Route::ok().header("Content-Type", "text/html").body(body);
    let server = TestServer::builder()
        .route("/", html(HOME))
        .route("/b", html(B))
        .route("/a", html(A))
        // Slow enough that the other group samples while the spider crawls.
        .default_route(Route::ok().body("no links").delay(Duration::from_millis(100)))
        .record_all()
        .start();
    let run = TempRun::new("jmx-spider");
    let spider = element("kg.apc.jmeter.modifiers.AnchorModifier", "jp@gc - Spider PreProcessor", &[], "");
    let crawl = http("crawl", "127.0.0.1", "${__P(port)}", "/", "GET", &spider);
    let tick = http("tick", "127.0.0.1", "${__P(port)}", "/tick", "GET", &constant_timer("wait", "50"));
    let groups = [
        thread_group("ThreadGroup", "spider", "1", "50", "", &crawl),
        thread_group("ThreadGroup", "other", "1", "400", "", &tick),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("spider", "", &groups));
    let (cmd, _) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);

    let all = server.recorded_all();
    let crawled: Vec<&str> = all.iter().filter(|r| r.path() != "/tick").map(|r| r.target.as_str()).collect();
    assert_eq!(crawled, ["/", "/c", "/b?x=1", "/b?x=2", "/a", "/d", "/", "/"]);
    let crawl = run.label("crawl");
    assert_eq!((uint(&crawl, "samples"), uint(&crawl, "errors")), (8, 0), "{crawl:#}");
    // The spider's stop ends the other group's user long before its 400 iterations (20 s).
    let ticks = all.len() as u64 - 8;
    assert!((1..400).contains(&ticks), "{ticks} ticks");
    assert_eq!(uint(&run.label("tick"), "samples"), ticks);
    assert_eq!(uint(&run.total(), "samples"), all.len() as u64);
}
