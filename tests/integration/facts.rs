//! What a report says beside the table: connect time and time to first byte per label against
//! servers with known delays, and the generator's own load measured over the run only.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{float, uint, OutputExt, Stampede, TempRun};
use std::time::Duration;

/// Regression test for #11: CPU spent before the run (here, reading a large data file) was
/// divided by a short run's wall time and read as a saturated generator ("CPU 192% of 2 cores").
#[test]
fn generator_cpu_is_measured_over_the_run_only() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(100))).start();
    let run = TempRun::new("facts-cpu");
    let rows: String = std::iter::once("id,name\n".to_string())
        .chain((0..300_000).map(|i| format!("{i},\"user number {i}, with a comma\"\n")))
        .collect();
    run.write("rows.csv", rows);
    let plan = run.write(
        "plan.yaml",
        format!(
            "data: [{{file: rows.csv}}]\nscenarios:\n  - workload: {{users: 1, iterations: 2}}\n    flow: [{{request: {{url: '{}', query: {{id: '${{id}}'}}}}}}]\n",
            server.url("/")
        ),
    );
    let out = Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    assert_eq!(uint(&run.total(), "samples"), server.responses());
    let g = &run.summary()["generator"];
    let (cpu, cores) = (float(g, "cpu_user_s") + float(g, "cpu_system_s"), float(g, "cores"));
    let wall = float(&run.meta(), "duration_s");
    // Two requests of 100 ms each: the run waits, it does not compute.
    assert!(cpu <= wall * cores, "{cpu} s of CPU in a {wall} s run on {cores} cores: {g}");
    assert!(float(g, "cpu_pct_of_cores") < 90.0, "{g}");
    assert!(!out.stdout_str().contains("saturated"), "{}", out.stdout_str());
}

/// Regression test for #11: a run whose requests were all refused said its connections were
/// "not recorded (the source has no connect times)"; a run directory records every connection.
#[test]
fn a_run_that_never_connected_says_so() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let run = TempRun::new("facts-refused");
    let out = Stampede::new()
        .args(["run", "--url", &format!("http://127.0.0.1:{port}/"), "--users", "1", "--iterations", "3", "-q"])
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let report = Stampede::new().arg("report").arg(run.path()).run();
    report.assert_exit(0);
    for text in [out.stdout_str(), report.stdout_str()] {
        assert!(!text.contains("not recorded"), "{text}");
        assert!(text.contains("none opened for 3 requests"), "{text}");
    }
}
