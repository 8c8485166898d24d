//! The run directory's `scripts.log` (issue 33) is a run file: a run that replaces another
//! (`--replace`) keeps none of the old run's lines; a secret property a function logs is masked
//! in it, at load and at run time.

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

#[test]
fn a_secret_property_a_function_logs_is_masked_in_scripts_log_and_found_nowhere_in_the_run() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("script-log-secret");
    let secret = format!("s3cr3t-logged-{}", std::process::id());
    // At load (the count) and at run time (each request's URL, which the iteration number keeps
    // from being evaluated once at load), a script quoting the property.
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: logs\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: \"${{__groovy(log.info('load as ${{__P(password)}}'); 2)}}\"}}\n    flow:\n      - request: {{label: get, url: \"{}?n=${{__groovy(log.info('login as ${{__P(password)}} ' + vars.get('__n')))}}\"}}\n",
            server.url("/l")
        ),
    );
    let out_dir = run.path().join("out");
    let out =
        Stampede::new().arg("run").arg(&plan).arg(format!("-Jpassword={secret}")).arg("--out").arg(&out_dir).run();
    out.assert_exit(0);
    assert_eq!(server.requests(), 2);
    let log = std::fs::read_to_string(out_dir.join("scripts.log")).unwrap();
    assert_eq!(log.lines().count(), 3, "a line at load, one per request:\n{log}");
    assert!(log.contains("load as ***") && log.contains("login as ***"), "{log}");
    let mut seen = vec![("stdout".to_string(), out.stdout_str()), ("stderr".to_string(), out.stderr_str())];
    crate::secrets::files_under(&out_dir, &mut seen);
    for (name, text) in &seen {
        assert!(!text.contains(&secret), "the secret leaked into {name}:\n{text}");
    }
}
