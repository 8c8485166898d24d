//! Scripts in templates and conditions (issue 14): `${__groovy(...)}` in a header as the witness
//! receives it, a variable a function's script sets read by a later request, and If
//! Controllers whose condition is a Groovy script or JavaScript, counted against the witness;
//! a script outside the subset named by `check` with its element and line:column.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// A Header Manager named `H` (values as XML text: `&quot;`).
fn headers(pairs: &[(&str, &str)]) -> String {
    crate::util::jmx::header_manager("H", pairs)
}

fn if_controller(condition: &str, use_expression: bool, body: &str) -> String {
    format!(
        r#"<IfController guiclass="IfControllerPanel" testclass="IfController" testname="If" enabled="true">
          <stringProp name="IfController.condition">{condition}</stringProp>
          <boolProp name="IfController.evaluateAll">false</boolProp>
          <boolProp name="IfController.useExpression">{use_expression}</boolProp>
        </IfController><hashTree>{body}</hashTree>"#
    )
}

fn header<'a>(req: &'a crate::util::server::RecordedRequest, name: &str) -> &'a str {
    req.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map_or("", |(_, v)| v.as_str())
}

#[test]
fn groovy_in_a_header_and_script_conditions_as_the_witness_counts() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-functions");
    // Each iteration: a header computed by Groovy (the user's counter doubled, stored in `g`;
    // its text changes each time), and one whose script sets a variable the same template
    // reads; two If Controllers with Groovy conditions (`g` is 4 or 8; the variable the script
    // set); one with a JavaScript condition (`g` is 2 or 6).
    let h = headers(&[
        ("X-Groovy", "${__groovy(${__counter(TRUE,)} * 2,g)}"),
        ("X-Put", "${__groovy(vars.put(&quot;seen&quot;\\, &quot;yes&quot;))}${seen}"),
    ]);
    let body = [
        DEFAULTS.to_string(),
        sampler("scripted", "GET", "/h", "", false, &h),
        if_controller(
            "${__groovy(vars.get(&quot;g&quot;) == &quot;4&quot; || vars.get(&quot;g&quot;) == &quot;8&quot;)}",
            true,
            &sampler("even", "GET", "/even", "", false, ""),
        ),
        if_controller(
            "${__groovy(vars.get(&quot;seen&quot;) == &quot;yes&quot; &amp;&amp; vars.get(&quot;never&quot;) == null)}",
            true,
            &sampler("seen", "GET", "/seen", "", false, ""),
        ),
        if_controller("${g} % 4 == 2", false, &sampler("odd", "GET", "/odd", "", false, "")),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "4", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);

    let sent = server.recorded("/h");
    assert_eq!(sent.len(), 4);
    let got: Vec<(&str, &str)> = sent.iter().map(|r| (header(r, "X-Groovy"), header(r, "X-Put"))).collect();
    assert_eq!(got, [("2", "yes"), ("4", "yes"), ("6", "yes"), ("8", "yes")]);
    assert_eq!(server.requests_to("/even"), 2);
    assert_eq!(server.requests_to("/seen"), 4);
    assert_eq!(server.requests_to("/odd"), 2);
    assert_eq!(uint(&run.label("even"), "samples"), 2);
    assert_eq!(uint(&run.label("seen"), "samples"), 4);
    assert_eq!(uint(&run.label("odd"), "samples"), 2);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

#[test]
fn check_names_a_script_function_it_cannot_load_with_its_line_and_column() {
    let run = TempRun::new("script-functions-bad");
    let h = headers(&[("X-Bad", "${__groovy(def x = 1\n  x +* 2)}")]);
    let body = [DEFAULTS.to_string(), sampler("bad", "GET", "/x", "", false, &h)].concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let out = Stampede::new().arg("check").arg(&p).run();
    let text = format!("{}{}", out.stdout_str(), out.stderr_str());
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("plan.jmx:"), "{text}");
    assert!(
        text.contains("\"H\": in `${__groovy(")
            && text.contains("`__groovy` cannot run its groovy script: line 2, column"),
        "{text}"
    );
}
