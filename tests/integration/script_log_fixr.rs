//! The run directory's `scripts.log` (issue 33) is a run file: a run that replaces another
//! (`--replace`) keeps none of the old run's lines.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};

/// A plan of 2 requests to `url` whose count logs `said` while it loads.
fn logging_plan(run: &TempRun, url: &str, said: &str) -> std::path::PathBuf {
    run.write(
        "plan.yaml",
        format!(
            "name: logs\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: \"${{__groovy(log.info('{said}'); 2)}}\"}}\n    flow:\n      - request: {{label: get, url: \"{url}\"}}\n"
        ),
    )
}

#[test]
fn a_replaced_run_leaves_scripts_log_with_only_the_new_run_s_lines() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("script-log-replace");
    let out_dir = run.path().join("out");
    for said in ["old-run-said", "new-run-said"] {
        let plan = logging_plan(&run, &server.url("/l"), said);
        Stampede::new().arg("run").arg(&plan).args(["-q", "--replace", "--out"]).arg(&out_dir).run().assert_exit(0);
    }
    assert_eq!(server.requests(), 4);
    let log = std::fs::read_to_string(out_dir.join("scripts.log")).unwrap();
    assert!(log.contains("new-run-said"), "{log}");
    assert!(!log.contains("old-run-said"), "the replaced run's lines stayed:\n{log}");
}
