//! `stampede jmeter -f` (issue 32) as JMeter's `-f`: the results files (`-l` and the plan's own
//! listeners') are deleted once the plan has loaded, never before; `-o` with `-f` empties the
//! report folder, and refuses one that is or holds the working directory, the runs or the plan.
//! And a properties file's `name=` is "" (only `-J name=` removes), as JMeter reads it.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};
use std::path::PathBuf;

fn jmeter(run: &TempRun) -> Stampede {
    Stampede::new().arg("jmeter").current_dir(run.root())
}

/// A plan of one request, with a listener writing `listener` too, in `plan/` of the run's root.
fn plan(run: &TempRun, port: u16, listener: &std::path::Path) -> PathBuf {
    let defaults = format!(
        r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
        </ConfigTestElement><hashTree/>"#
    );
    let get = sampler("get", "GET", "/x", "", false, "");
    let writer = format!(
        r#"<ResultCollector guiclass="SimpleDataWriter" testclass="ResultCollector" testname="writer" enabled="true">
          <stringProp name="filename">{}</stringProp></ResultCollector><hashTree/>"#,
        listener.display()
    );
    let dir = run.root().join("plan");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.jmx");
    std::fs::write(&path, jmx_plan(1, "2", &format!("{defaults}{get}{writer}"))).unwrap();
    path
}

#[test]
fn f_deletes_the_results_files_only_once_the_plan_loads_and_the_listeners_files_too() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmeter-f-results");
    let listener = run.root().join("listener.jtl");
    let plan = plan(&run, server.addr().port(), &listener);
    let earlier = "earlier results\n";
    std::fs::write(run.root().join("out.jtl"), earlier).unwrap();
    let broken = run.write("broken.jmx", "<jmeterTestPlan><hashTree>");
    let out = jmeter(&run).args(["-n", "-t"]).arg(&broken).args(["-l", "out.jtl", "-f"]).run();
    out.assert_exit(2);
    assert_eq!(std::fs::read_to_string(run.root().join("out.jtl")).unwrap(), earlier, "a plan that does not load");
    assert_eq!(server.requests(), 0);
    // Twice without -f: both files are appended to; then -f starts both afresh.
    for _ in 0..2 {
        jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-l", "fresh.jtl"]).run().assert_exit(0);
    }
    let rows = |p: PathBuf| std::fs::read_to_string(p).unwrap().lines().filter(|l| l.contains(",get,")).count();
    assert_eq!(rows(listener.clone()), 4);
    jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-l", "fresh.jtl", "-f"]).run().assert_exit(0);
    assert_eq!(server.requests(), 6);
    assert_eq!(rows(run.root().join("fresh.jtl")), 2);
    assert_eq!(rows(listener), 2, "-f deletes the plan's own listener's file too");
}

#[test]
fn f_o_empties_a_report_folder_and_refuses_the_working_directory_the_runs_and_the_plan() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmeter-f-o");
    let plan = plan(&run, server.addr().port(), &run.root().join("listener.jtl"));
    let earlier = run.root().join("runs/2020-01-01T00-00-00");
    std::fs::create_dir_all(&earlier).unwrap();
    std::fs::write(earlier.join("summary.json"), "{}").unwrap();
    for o in [".", "runs", "runs/2020-01-01T00-00-00", "plan", ".."] {
        let out = jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-l", "r.jtl", "-e", "-f", "-o", o]).run();
        out.assert_exit(2);
        assert!(out.stderr_str().contains("not deleting it"), "-o {o}: {}", out.stderr_str());
    }
    assert!(earlier.join("summary.json").exists(), "an earlier run stays");
    assert!(plan.exists());
    assert_eq!(server.requests(), 0);
    // The results file inside the folder: refused too.
    std::fs::create_dir_all(run.root().join("res")).unwrap();
    std::fs::write(run.root().join("res/r.jtl"), "x").unwrap();
    let out = jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-l", "res/r.jtl", "-e", "-f", "-o", "res"]).run();
    out.assert_exit(2);
    assert_eq!(std::fs::read_to_string(run.root().join("res/r.jtl")).unwrap(), "x");
    // A folder of its own is emptied, not deleted: what is in it goes, the report comes.
    let report = run.root().join("report");
    std::fs::create_dir_all(report.join("old/deeper")).unwrap();
    std::fs::write(report.join("stale.txt"), "old").unwrap();
    jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-l", "r.jtl", "-e", "-f", "-o", "report"]).run().assert_exit(0);
    assert!(!report.join("stale.txt").exists() && !report.join("old").exists());
    assert!(report.join("index.html").exists());
    assert_eq!(server.requests(), 2);
}

/// JMeter 5.6.3 with `-q` holding `h=` sends `/p/` for `/p/${__P(h,dflt)}`: a file's empty value
/// is "", only `-J h=` removes the property.
#[test]
fn an_empty_value_in_a_properties_file_is_sent_empty_and_an_empty_j_removes() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("jmeter-empty-prop");
    let get = sampler("get", "GET", "/p/${__P(h,dflt)}", "", false, "");
    let defaults = format!(
        r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{}</stringProp>
        </ConfigTestElement><hashTree/>"#,
        server.addr().port()
    );
    let plan = run.write("p.jmx", jmx_plan(1, "1", &format!("{defaults}{get}")));
    let q = run.write("q.properties", "h=\n");
    jmeter(&run).args(["-n", "-t"]).arg(&plan).arg("-q").arg(&q).run().assert_exit(0);
    jmeter(&run).args(["-n", "-t"]).arg(&plan).arg("-q").arg(&q).arg("-Jh=").run().assert_exit(0);
    let paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    assert_eq!(paths, vec!["/p/", "/p/dflt"]);
}
