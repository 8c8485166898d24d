//! Script log lines (issue 33), at load and while the run goes, are in the run's `scripts.log` with
//! secrets masked (a secret property a function logs too), and not on the terminal.

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
