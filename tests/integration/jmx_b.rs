//! JMeter 5.6.3's semantics where stampede differed (issue 13, B): an assertion scoped to a
//! JMeter variable checks that variable; a write-back file that cannot be opened.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

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
fn a_write_back_file_that_cannot_be_opened_skips_its_writes_not_the_run() {
    let server = TestServer::builder().default_route(Route::ok().body("id=7").record()).start();
    let run = TempRun::new("jmx-write-back-missing-dir");
    let out = run.root().join("no-such-dir").join("saved.csv");
    let save = format!(
        r#"<BeanShellPostProcessor guiclass="TestBeanGUI" testclass="BeanShellPostProcessor" testname="Save" enabled="true">
                <stringProp name="script">r = vars.get(&quot;n&quot;);
FileWriter fstream = new FileWriter(&quot;{out}&quot;,true);
fstream.write(r+&quot;\n&quot;);
fstream.close();</stringProp>
              </BeanShellPostProcessor><hashTree/>"#,
        out = out.display()
    );
    let body = [DEFAULTS.to_string(), sampler("save", "GET", "/save", "", false, &save)].concat();
    let p = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let port = format!("port={}", server.addr().port());
    let res = Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run();
    res.assert_exit(0);
    // JMeter's script logs the error and leaves the sample alone: the run goes on, warned once.
    let err = res.stderr_str();
    let warning = format!("cannot open {} for writing", out.display());
    assert_eq!(err.matches(&warning).count(), 1, "{err}");
    assert_eq!(server.requests(), 6);
    let row = run.label("save");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{row:#}");
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    assert!(!out.exists());
}

/// A sampler using JMeter's Java implementation (`HTTPJavaImpl`, over `HttpURLConnection`) sends
/// the JDK's default `Accept` header when the plan gives none; HttpClient4 sends none.
#[test]
fn the_java_implementation_sends_its_default_accept_header() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-java-accept");
    let java = |name: &str, path: &str, children: &str| {
        sampler(name, "GET", path, "", false, children).replacen(
            "<boolProp name=\"HTTPSampler.use_keepalive\">true</boolProp>",
            "<boolProp name=\"HTTPSampler.use_keepalive\">true</boolProp><stringProp name=\"HTTPSampler.implementation\">Java</stringProp>",
            1,
        )
    };
    let own_accept = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="H" enabled="true">
          <collectionProp name="HeaderManager.headers"><elementProp name="" elementType="Header">
            <stringProp name="Header.name">Accept</stringProp><stringProp name="Header.value">application/json</stringProp>
          </elementProp></collectionProp></HeaderManager><hashTree/>"#;
    let body = [
        DEFAULTS.to_string(),
        java("java", "/java", ""),
        java("java-own", "/own", own_accept),
        sampler("client4", "GET", "/client4", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let accept = |path: &str| server.recorded(path)[0].header("accept").map(str::to_string);
    assert_eq!(accept("/java").as_deref(), Some("text/html, image/gif, image/jpeg, */*; q=0.2"));
    assert_eq!(accept("/own").as_deref(), Some("application/json"));
    assert_eq!(accept("/client4"), None);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// JMeter's `getSendParameterValuesAsPostBody`: arguments that all lack a name are the body of
/// a POST or PUT (each value URL-encoded when its box says so), as the raw body is, and are left
/// out of a GET's query. The corpus differential found a public plan whose body stampede dropped.
#[test]
fn nameless_arguments_are_the_body_as_jmeter_sends_them() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-nameless-body");
    let json = arg("", "{&quot;var&quot;:&quot;val&quot;}", false);
    let two = format!("{}{}", arg("", "a b", true), arg("", "&amp;c", false));
    let body = [
        DEFAULTS.to_string(),
        sampler("post", "POST", "/post", &json, false, ""),
        sampler("put", "PUT", "/put", &two, false, ""),
        sampler("get", "GET", "/get", &json, false, ""),
        // One named argument among them: a form, the nameless one left out (JMeter's rule).
        sampler("form", "POST", "/form", &format!("{json}{}", arg("k", "v", false)), false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let post = &server.recorded("/post")[0];
    assert_eq!(post.body, br#"{"var":"val"}"#);
    assert_eq!(post.header("content-type"), Some("text/plain; charset=UTF-8"));
    assert_eq!(server.recorded("/put")[0].body, b"a+b&c");
    assert_eq!(server.recorded("/get")[0].target, "/get");
    assert_eq!(server.recorded("/form")[0].body, b"k=v");
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
