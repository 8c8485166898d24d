//! JMeter's HTTP modifiers and the plans JMeter loads (issue 13): the RegEx User Parameters
//! pre-processor sends the values a regular expression extractor found; a CSV Data Set header
//! with an empty name, an HTTP Request Defaults of a GUI class JMeter's sampler does not take
//! configuration from. What the witness received is what JMeter sends; every count is its count.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// A form's inputs, `toto` twice: the last match of a name wins.
const FORM: &str = r#"<form><input name="toto" value="vtoto" /><input name="tutu" value="v tutu" /><input name="toto" value="last" /></form>"#;

fn run_plan(run: &TempRun, server: &TestServer, plan: &str) {
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

/// Plans JMeter loads and stampede refused: a CSV Data Set whose header has an empty name (JMeter
/// sets a variable of that name, which no `${}` reads), and HTTP Request Defaults whose GUI class
/// (`HttpDefaultsGuiCustom`) JMeter's sampler takes no configuration from: its port is not used.
#[test]
fn what_jmeter_loads_runs() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-loads");
    run.write("users.csv", "user,,pass\nu1,x,p1\nu2,y,p2\n");
    let body = [
        DEFAULTS,
        r#"<ConfigTestElement guiclass="HttpDefaultsGuiCustom" testclass="ConfigTestElementCustom" testname="custom" enabled="true">
          <stringProp name="HTTPSampler.port">9</stringProp>
          <stringProp name="HTTPSampler.path">/elsewhere</stringProp>
        </ConfigTestElement><hashTree/>
        <CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="users" enabled="true">
          <stringProp name="filename">users.csv</stringProp><stringProp name="variableNames"></stringProp>
          <stringProp name="delimiter">,</stringProp><boolProp name="quotedData">false</boolProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#,
        &sampler("login", "GET", "/login", &[arg("u", "${user}", true), arg("p", "${pass}", true)].concat(), false, ""),
    ]
    .concat();
    run_plan(&run, &server, &jmx_plan(1, "4", &body));
    assert_eq!(uint(&run.label("login"), "samples"), 4);
    assert_eq!(server.requests(), 4);
    let sent: Vec<String> = server
        .recorded("/login")
        .iter()
        .map(|r| format!("{}:{}", r.query("u").unwrap(), r.query("p").unwrap()))
        .collect();
    assert_eq!(sent, ["u1:p1", "u2:p2", "u1:p1", "u2:p2"]);
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

/// Two CSV Data Sets on one file (with its header) share JMeter's one reader of it: each takes
/// the next row, the second's values win, and the header is read once. Confirmed with JMeter
/// 5.6.3: u2, u1, u3, u2.
#[test]
fn two_data_sets_on_one_file_share_its_rows() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-csv-shared");
    run.write("users.csv", "user,pass\nu1,p1\nu2,p2\nu3,p3\n");
    let ds = |name: &str| {
        format!(
            r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="{name}" enabled="true">
          <stringProp name="filename">users.csv</stringProp><stringProp name="variableNames"></stringProp>
          <stringProp name="delimiter">,</stringProp><boolProp name="quotedData">false</boolProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#
        )
    };
    let body = [
        DEFAULTS,
        &ds("one"),
        &ds("two"),
        &sampler("s", "GET", "/s", &[arg("u", "${user}", true), arg("p", "${pass}", true)].concat(), false, ""),
    ]
    .concat();
    run_plan(&run, &server, &jmx_plan(1, "4", &body));
    assert_eq!(uint(&run.label("s"), "samples"), 4);
    let sent: Vec<String> =
        server.recorded("/s").iter().map(|r| format!("{}:{}", r.query("u").unwrap(), r.query("p").unwrap())).collect();
    assert_eq!(sent, ["u2:p2", "u1:p1", "u3:p3", "u2:p2"]);
}
