//! What the public-plan differential (bench/jmeter/corpus.py, issue 13) found stampede doing
//! differently from JMeter 5.6.3, pinned against the witness server: sample labels rendered per
//! sample from a sampler's name with `${...}`.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// A per-user counter `n`: 1, 2, 3, ... one step per iteration.
const COUNTER: &str = r#"<CounterConfig guiclass="CounterConfigGui" testclass="CounterConfig" testname="Counter" enabled="true">
          <stringProp name="CounterConfig.start">1</stringProp>
          <stringProp name="CounterConfig.end"></stringProp>
          <stringProp name="CounterConfig.incr">1</stringProp>
          <stringProp name="CounterConfig.name">n</stringProp>
          <boolProp name="CounterConfig.per_user">true</boolProp>
        </CounterConfig><hashTree/>"#;

#[test]
fn a_sampler_named_with_a_variable_has_a_row_per_rendered_name() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmx-diff-run-time-labels");
    let txn = format!(
        r#"<TransactionController guiclass="TransactionControllerGui" testclass="TransactionController" testname="T ${{n}}" enabled="true">
          <boolProp name="TransactionController.parent">false</boolProp>
          <boolProp name="TransactionController.includeTimers">false</boolProp>
        </TransactionController>
        <hashTree>{}</hashTree>"#,
        sampler("Get ${n}", "GET", "/g", "", false, "")
    );
    let body = [DEFAULTS, COUNTER, &txn, &sampler("Plain", "GET", "/p", "", false, "")].concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let jtl = run.root().join("out.jtl");
    let port = format!("port={}", server.addr().port());
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "-J", &port, "--out"])
        .arg(run.path())
        .arg("--jtl")
        .arg(&jtl)
        .run()
        .assert_exit(0);
    assert_eq!(server.requests(), 6);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    for n in 1..=3 {
        for name in [format!("Get {n}"), format!("T {n}")] {
            let row = run.label(&name);
            assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (1, 0), "{name}: {row:#}");
        }
    }
    assert_eq!(uint(&run.label("Plain"), "samples"), 3);
    let labels: Vec<String> =
        run.summary()["labels"].as_array().unwrap().iter().map(|l| l["label"].as_str().unwrap().to_string()).collect();
    assert!(!labels.iter().any(|l| l.contains("${")), "no row keeps the name as written: {labels:?}");
    // The JTL has a line per sample, under its rendered name.
    let text = std::fs::read_to_string(&jtl).unwrap();
    let mut got: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').nth(2).unwrap()).collect();
    got.sort_unstable();
    assert_eq!(got, ["Get 1", "Get 2", "Get 3", "Plain", "Plain", "Plain", "T 1", "T 2", "T 3"]);
    // `report` of the run directory reads them back.
    let report = Stampede::new().arg("report").arg(run.path()).run();
    report.assert_exit(0);
    assert!(report.stdout_str().contains("| Get 2 "), "{}", report.stdout_str());
}
