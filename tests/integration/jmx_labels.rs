//! Sample labels and transactions as JMeter makes them (the public-plan differential, issue 13): a
//! sampler's or transaction's name rendered per sample from `${...}`, a transaction left by a
//! failed sample or a Flow Control Action, a parent sample's requests as lines of the results file,
//! rendered names past the label cap.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

pub(crate) const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
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

/// Runs `plan` (JMX text) in `run` against the server on `port` with a JTL results file;
/// returns the JTL's labels, sorted.
fn run_with_jtl(run: &TempRun, plan: String, port: u16) -> Vec<String> {
    let plan = run.write("plan.jmx", plan);
    let jtl = run.root().join("out.jtl");
    let port = format!("port={port}");
    let mut cmd = Stampede::new().arg("run").arg(&plan).args(["-q", "-J", &port, "--out"]).arg(run.path());
    cmd = cmd.arg("--jtl").arg(&jtl);
    cmd.run().assert_exit(0);
    let text = std::fs::read_to_string(&jtl).unwrap();
    let mut got: Vec<String> = text.lines().skip(1).map(|l| l.split(',').nth(2).unwrap().to_string()).collect();
    got.sort_unstable();
    got
}

/// The summary's label rows, in order.
fn rows(run: &TempRun) -> Vec<String> {
    run.summary()["labels"].as_array().unwrap().iter().map(|l| l["label"].as_str().unwrap().to_string()).collect()
}

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
    let got = run_with_jtl(&run, jmx_plan(1, "3", &body), server.addr().port());
    assert_eq!(server.requests(), 6);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    for n in 1..=3 {
        for name in [format!("Get {n}"), format!("T {n}")] {
            let row = run.label(&name);
            assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (1, 0), "{name}: {row:#}");
        }
    }
    assert_eq!(uint(&run.label("Plain"), "samples"), 3);
    let labels = rows(&run);
    assert!(!labels.iter().any(|l| l.contains("${")), "no row keeps the name as written: {labels:?}");
    // The JTL has a line per sample, under its rendered name.
    assert_eq!(got, ["Get 1", "Get 2", "Get 3", "Plain", "Plain", "Plain", "T 1", "T 2", "T 3"]);
    // `report` of the run directory reads them back.
    let report = Stampede::new().arg("report").arg(run.path()).run();
    report.assert_exit(0);
    assert!(report.stdout_str().contains("| Get 2 "), "{}", report.stdout_str());
}

/// A Transaction Controller's name is rendered as it starts (JMeter's TransactionController
/// makes its result, label set, before its first child runs): a variable a sample inside
/// extracts does not rename it.
#[test]
fn a_transaction_is_named_as_it_starts() {
    let server =
        TestServer::builder().route("/pre", Route::ok().body("x")).route("/id", Route::ok().body("id=42")).start();
    let run = TempRun::new("jmx-diff-txn-label-at-start");
    let extract = r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="Id" enabled="true">
                <stringProp name="RegexExtractor.useHeaders">false</stringProp>
                <stringProp name="RegexExtractor.refname">v</stringProp>
                <stringProp name="RegexExtractor.regex">id=(\d+)</stringProp>
                <stringProp name="RegexExtractor.template">$1$</stringProp>
                <stringProp name="RegexExtractor.default">none</stringProp>
                <stringProp name="RegexExtractor.match_number">1</stringProp>
              </RegexExtractor><hashTree/>"#;
    let body = [
        DEFAULTS.to_string(),
        sampler("Pre", "GET", "/pre", "", false, extract),
        transaction("T ${v}", false, &sampler("Get", "GET", "/id", "", false, extract)),
    ]
    .concat();
    let got = run_with_jtl(&run, jmx_plan(1, "2", &body), server.addr().port());
    assert_eq!((server.requests_to("/pre"), server.requests_to("/id")), (2, 2));
    assert_eq!(got, ["Get", "Get", "Pre", "Pre", "T none", "T none"]);
    assert_eq!(uint(&run.label("T none"), "samples"), 2);
}

/// A Transaction Controller (`parent`: JMeter's "generate parent sample") around `children`.
fn transaction(name: &str, parent: bool, children: &str) -> String {
    format!(
        r#"<TransactionController guiclass="TransactionControllerGui" testclass="TransactionController" testname="{name}" enabled="true">
          <boolProp name="TransactionController.parent">{parent}</boolProp>
        </TransactionController>
        <hashTree>{children}</hashTree>"#
    )
}

#[test]
fn a_transaction_left_by_a_failed_sample_or_a_flow_control_action_still_has_its_sample() {
    // JMeter bug 52968: the thread group starts the next loop on a failed sample; the
    // transactions the failed sample was in end with what they had, failed. A Flow Control
    // Action "start next thread loop" ends them the same way, with no failure.
    let server = TestServer::builder().route("/fail", Route::status(500)).default_route(Route::ok()).start();
    let next_loop = r#"<TestAction guiclass="TestActionGui" testclass="TestAction" testname="Next" enabled="true">
          <intProp name="ActionProcessor.action">3</intProp>
          <intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration">0</stringProp>
        </TestAction><hashTree/>"#;
    let failing = [
        sampler("ok", "GET", "/ok", "", false, ""),
        sampler("fails", "GET", "/fail", "", false, ""),
        sampler("never", "GET", "/never", "", false, ""),
    ]
    .concat();
    let flow_action = [sampler("ok2", "GET", "/ok2", "", false, ""), next_loop.to_string()].concat();
    let body = [
        DEFAULTS.to_string(),
        transaction("T-FAILING", false, &transaction("T-INNER", true, &failing)),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let plan = jmx_plan(2, "2", &body).replace(">continue</stringProp>", ">startnextloop</stringProp>");
    let run = TempRun::new("jmx-diff-bug52968");
    let p = run.write("plan.jmx", plan);
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!((server.requests_to("/ok"), server.requests_to("/fail")), (4, 4));
    assert_eq!((server.requests_to("/never"), server.requests_to("/after")), (0, 0));
    let row = |name: &str| {
        let r = run.label(name);
        (uint(&r, "samples"), uint(&r, "errors"))
    };
    assert_eq!(row("T-FAILING"), (4, 4), "the outer transaction ends, failed, each time");
    assert_eq!(row("T-INNER"), (4, 4), "so does the inner one (a parent sample)");
    // The inner transaction is a parent sample: its two requests count once, in it.
    assert_eq!(uint(&run.summary()["total"], "samples") * 2, server.requests());

    let server = TestServer::builder().default_route(Route::ok()).start();
    let body = [
        DEFAULTS.to_string(),
        transaction("T-ACTION", false, &flow_action),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let run = TempRun::new("jmx-diff-bug52968-action");
    let p = run.write("plan.jmx", jmx_plan(2, "2", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!((server.requests_to("/ok2"), server.requests_to("/after")), (4, 0));
    let r = run.label("T-ACTION");
    assert_eq!((uint(&r, "samples"), uint(&r, "errors")), (4, 0));
}

#[test]
fn a_parent_sample_s_requests_are_lines_of_the_results_file_but_not_rows() {
    // JMeter's CSV results file writes a sample's sub-results after it (the default
    // `jmeter.save.saveservice.subresults=true`): a "Generate parent sample" transaction's
    // requests have their lines there, while its listeners and reports see the parent only.
    let server = TestServer::builder().default_route(Route::ok()).start();
    let inner = [sampler("a", "GET", "/a", "", false, ""), sampler("b", "GET", "/b", "", false, "")].concat();
    let body = [DEFAULTS.to_string(), transaction("T", true, &inner)].concat();
    let run = TempRun::new("jmx-diff-parent-sample-jtl");
    let got = run_with_jtl(&run, jmx_plan(1, "2", &body), server.addr().port());
    assert_eq!(server.requests(), 4);
    assert_eq!(got, ["T", "T", "a", "a", "b", "b"]);
    assert_eq!(rows(&run), ["T"], "the requests are rows of the parent only");
    assert_eq!(uint(&run.summary()["total"], "samples"), 2);
}

#[test]
fn rendered_names_past_the_cap_are_counted_under_the_name_as_written() {
    // 1,003 iterations of a sampler named `Get ${n}`, n = 1, 2, ...: the first 1,000 names get
    // rows, the last three samples are counted under the name as written, and the run says so.
    let server = TestServer::builder().default_route(Route::ok()).start();
    let body = [DEFAULTS, COUNTER, &sampler("Get ${n}", "GET", "/g", "", false, "")].concat();
    let run = TempRun::new("jmx-diff-run-time-label-cap");
    let p = run.write("plan.jmx", jmx_plan(1, "1003", &body));
    let port = format!("port={}", server.addr().port());
    let out = Stampede::new().arg("run").arg(&p).args(["-J", &port, "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    assert!(out.stderr_str().contains("more than 1000 distinct names"), "{}", out.stderr_str());
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    assert_eq!(server.requests(), 1003);
    assert_eq!(uint(&run.label("Get 1000"), "samples"), 1);
    assert_eq!(uint(&run.label("Get ${n}"), "samples"), 3);
    assert_eq!(rows(&run).len(), 1001);
}
