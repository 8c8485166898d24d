//! The label cap (#11): past 10,000 labels with samples, the rest are counted in one row,
//! `(other labels)`, with a warning; counts stay exact against the witness.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, total, uint, OutputExt, Stampede, TempRun};
use std::fmt::Write as _;

/// The documented cap (`docs/metrics.md`).
const CAP: u64 = 10_000;
const OVERFLOW: &str = "(other labels)";

#[test]
fn a_run_with_more_labels_than_the_cap_counts_the_rest_in_one_row() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    // One user sends each request once, in order: the first CAP labels get their rows, the
    // last `extra` share the overflow row.
    let extra = 37;
    let mut plan = format!(
        "defaults: {{base_url: \"http://{}\", follow_redirects: false}}\nscenarios:\n  - name: ids\n    workload: {{users: 1, iterations: 1}}\n    flow:\n",
        server.addr()
    );
    for i in 0..CAP + extra {
        writeln!(plan, "      - request: {{label: item-{i}, url: /item/{i}}}").unwrap();
    }
    let run = TempRun::new("label-cap");
    let path = run.write("plan.yaml", plan);
    let out = Stampede::new().arg("run").arg(&path).args(["-q", "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    assert!(out.stderr_str().contains("warning: more than 10000 labels have samples"), "{}", out.stderr_str());

    let summary = run.summary();
    let rows = summary["labels"].as_array().unwrap();
    assert_eq!(rows.len() as u64, CAP + 1);
    assert_eq!(uint(&label(&summary, OVERFLOW), "samples"), extra);
    assert_eq!(uint(&label(&summary, "item-0"), "samples"), 1);
    assert_eq!(uint(&label(&summary, &format!("item-{}", CAP - 1)), "samples"), 1);
    assert!(rows.iter().all(|r| r["label"] != format!("item-{CAP}")));
    // Every request the server served is a sample, in the Total and in exactly one row.
    assert_eq!(uint(&total(&summary), "samples"), server.requests());
    assert_eq!(server.requests(), CAP + extra);
    assert_eq!(rows.iter().map(|r| uint(r, "samples")).sum::<u64>(), server.requests());

    // `report` of the run directory shows the same rows.
    let report = Stampede::new().args(["report", "--format", "json"]).arg(run.path()).run();
    report.assert_exit(0);
    let again: serde_json::Value = serde_json::from_str(&report.stdout_str()).unwrap();
    assert_eq!(uint(&label(&again, OVERFLOW), "samples"), extra);
    assert_eq!(uint(&total(&again), "samples"), CAP + extra);
}

#[test]
fn a_results_file_with_more_labels_than_the_cap_folds_the_rest_in_file_order() {
    let run = TempRun::new("label-cap-jtl");
    let mut jtl = String::from("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n");
    let labels = CAP + 250;
    for i in 0..labels {
        // Two rows per label; the second of each a failure, so errors fold too.
        for (j, ok) in [(0, true), (1, false)] {
            let (code, success) = if ok { ("200", "true") } else { ("500", "false") };
            writeln!(
                jtl,
                "{},{},id-{i},{code},m,T 1-1,text,{success},,10,5,1,1,http://127.0.0.1/,1,0,0",
                1_700_000_000_000 + i * 2 + j,
                1 + i % 40
            )
            .unwrap();
        }
    }
    let path = run.write("many.jtl", jtl);
    let out = Stampede::new().args(["report", "--format", "json"]).arg(&path).run();
    out.assert_exit(0);
    assert!(out.stderr_str().contains(OVERFLOW), "{}", out.stderr_str());
    let summary: serde_json::Value = serde_json::from_str(&out.stdout_str()).unwrap();
    let rows = summary["labels"].as_array().unwrap();
    assert_eq!(rows.len() as u64, CAP + 1);
    let other = label(&summary, OVERFLOW);
    assert_eq!(uint(&other, "samples"), 2 * 250);
    assert_eq!(uint(&other, "errors"), 250);
    assert_eq!(uint(&label(&summary, &format!("id-{}", CAP - 1)), "samples"), 2);
    assert_eq!(uint(&total(&summary), "samples"), 2 * labels);
}
