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

/// A script line that asks for gigabytes (issue 31: `nCopies(2e9, "x").join()` aborted the
/// process, exit 134, the run directory left `running`) fails its own sample with Java's
/// `OutOfMemoryError`, as in JMeter; the users go on, every HTTP sample is counted as the
/// witness served it, and the run ends normally with its summary.
#[test]
fn issue31_a_script_asking_for_gigabytes_fails_its_sample_not_the_process() {
    use crate::jmx_scripts::script;
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-oom");
    let body = [
        DEFAULTS.to_string(),
        sampler("before", "GET", "/before", "", false, ""),
        script("JSR223Sampler", "copies", "groovy", r#"Collections.nCopies(2000000000, "x").join()"#, ""),
        script("JSR223Sampler", "times", "groovy", r#""x" * 2000000000"#, ""),
        script("JSR223Sampler", "doubling", "groovy", r#"def s = "x"; while (true) { s += s }"#, ""),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let jtl = run.root().join("out.jtl");
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "-J", &format!("port={}", server.addr().port()), "--jtl"])
        .arg(&jtl)
        .arg("--out")
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(120))
        .run()
        .assert_exit(0);
    for (label, path) in [("before", "/before"), ("after", "/after")] {
        let served = server.recorded(path).len() as u64;
        assert_eq!(served, 6, "{path}");
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (served, 0), "{label}: {row:#}");
    }
    for label in ["copies", "times", "doubling"] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 6), "{label}: {row:#}");
    }
    let jtl = std::fs::read_to_string(&jtl).unwrap();
    let failed: Vec<&str> = jtl.lines().filter(|l| l.contains(",copies,") || l.contains(",doubling,")).collect();
    assert_eq!(failed.len(), 12, "{jtl}");
    for line in failed {
        assert!(line.contains("java.lang.OutOfMemoryError: Java heap space"), "{line}");
    }
}

/// A script that never ends (`while (true) {}`, or one that catches everything around it) is
/// interrupted when the run's duration is over (issue 31: it ignored the stop, Ctrl-C too):
/// the run ends within seconds of its duration with its summary, every HTTP sample counted.
#[test]
fn issue31_a_runaway_script_is_interrupted_when_the_run_stops() {
    use crate::jmx_scripts::script;
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-runaway");
    let spin = "while (true) { try { while (true) {} } catch (Throwable t) {} }";
    let body = [
        DEFAULTS.to_string(),
        sampler("req", "GET", "/r", "", false, ""),
        script("JSR223Sampler", "spin", "groovy", spin, ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "-1", &body));
    let started = std::time::Instant::now();
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--duration", "2s", "-q", "-J", &format!("port={}", server.addr().port()), "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(120))
        .run()
        .assert_exit(0);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(10), "the run took {took:?}");
    assert_eq!(uint(&run.label("req"), "samples"), server.recorded("/r").len() as u64);
    assert_eq!(server.recorded("/r").len(), 1);
    assert!(run.path().join("summary.json").exists());
}
