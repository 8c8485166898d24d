//! The run's script log (issue 33: nothing printed from below the CLI except through an
//! output): what scripts and functions log, at load and while the run goes, is in the run
//! directory's `scripts.log`, secrets masked, and never on the terminal.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

#[test]
fn script_log_lines_at_load_and_at_run_time_are_in_scripts_log_masked_not_on_the_terminal() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("script-log");
    // The count is evaluated while the plan loads; the URL's function once per request.
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: logs\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: \"${{__groovy(log.info('password=at-load-7'); 3)}}\"}}\n    flow:\n      - request: {{label: get, url: \"{}?n=${{__groovy(log.info('api_token=sekrit-99 ' + vars.get('__n')))}}\"}}\n",
            server.url("/l")
        ),
    );
    let out = Stampede::new().arg("run").arg(&plan).arg("--out").arg(run.path()).run();
    out.assert_exit(0);
    assert_eq!(server.requests(), 3);
    assert_eq!(uint(&run.label("get"), "samples"), 3);
    let log = std::fs::read_to_string(run.path().join("scripts.log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 4, "{log}");
    assert!(lines[0].starts_with("INFO function: password=***"), "{log}");
    assert!(lines[1..].iter().all(|l| l.starts_with("INFO function: api_token=***")), "{log}");
    let stderr = out.stderr_str();
    assert!(!stderr.contains("at-load-7") && !stderr.contains("sekrit-99"), "{stderr}");
    assert!(!stderr.contains("INFO function") && !stderr.contains("INFO script"), "{stderr}");
}
