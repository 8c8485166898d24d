//! The script sandbox seen from outside (issue 14): what a script's `log` and `OUT` write never
//! holds a secret variable's value; a script writes the files it names under the plan's
//! directory (the write-back idiom) but not an absolute path it names elsewhere.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">${__P(port)}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn pre_processor(text: &str) -> String {
    format!(
        r#"<JSR223PreProcessor guiclass="TestBeanGUI" testclass="JSR223PreProcessor" testname="pre" enabled="true">
          <stringProp name="scriptLanguage">groovy</stringProp>
          <stringProp name="script">{}</stringProp>
        </JSR223PreProcessor><hashTree/>"#,
        esc(text)
    )
}

const HEADERS: &str = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="h" enabled="true">
          <collectionProp name="HeaderManager.headers">
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Outside</stringProp><stringProp name="Header.value">${outside}</stringProp></elementProp>
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Inside</stringProp><stringProp name="Header.value">${inside}</stringProp></elementProp>
          </collectionProp></HeaderManager><hashTree/>"#;

/// `log.info(vars.get("token"))` and `OUT.println(...)` of a secret-named variable write `***` to
/// scripts.log; a write to an absolute path outside the plan's directory that the script names
/// is refused (the file is not created), a write to `out.txt` beside the plan is done; the
/// witness receives what the script decided, once per sample.
#[test]
fn scripts_keep_secrets_out_of_the_log_and_write_only_beside_the_plan() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-sandbox");
    let elsewhere = TempRun::new("script-sandbox-elsewhere");
    let outside = elsewhere.root().join("evil.txt");
    let script = format!(
        r#"vars.put("token", "tok-SECRETVALUE")
log.info("token is " + vars.get("token"))
OUT.println(vars.get("token"))
try {{ new File("{}") << "x"; vars.put("outside", "written") }} catch (SecurityException e) {{ vars.put("outside", "refused") }}
try {{ new File("out.txt") << "ok\n"; vars.put("inside", "written") }} catch (SecurityException e) {{ vars.put("inside", "refused") }}"#,
        outside.display()
    );
    let children = [HEADERS.to_string(), pre_processor(&script)].concat();
    let body = [DEFAULTS.to_string(), sampler("req", "GET", "/r", "", false, &children)].concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "2", &body));
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "-J", &format!("port={}", server.addr().port()), "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let got = server.recorded("/r");
    assert_eq!(uint(&run.label("req"), "samples"), got.len() as u64);
    assert_eq!(got.len(), 2);
    for r in &got {
        assert_eq!(r.header("x-outside"), Some("refused"));
        assert_eq!(r.header("x-inside"), Some("written"));
    }
    assert!(!outside.exists(), "a script wrote {}", outside.display());
    assert_eq!(std::fs::read_to_string(run.root().join("out.txt")).unwrap(), "ok\nok\n");
    let log = std::fs::read_to_string(run.path().join("scripts.log")).unwrap();
    assert!(!log.contains("tok-SECRETVALUE"), "{log}");
    assert!(log.contains("token is ***"), "{log}");
}
