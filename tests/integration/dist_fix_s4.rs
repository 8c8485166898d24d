//! Review fixes of the run layer on agents (issue 33): a run directory replaced by a run on
//! agents, goals in the ramp-down seconds, a results file that cannot be opened; each count
//! checked against the server's.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Running, Stampede, TempRun};
use std::time::Duration;

/// Two agents on loopback with the token `t`, and the token file.
fn two_agents(run: &TempRun) -> (Vec<Running>, Vec<String>, std::path::PathBuf) {
    let token = run.write("token", "t\n");
    let (agents, addrs) = (0..2).map(|i| start_agent(run, &format!("a{i}"), &token, &[])).unzip();
    (agents, addrs, token)
}

/// `stampede run ARGS... -q --agents A,B --token-file T`.
fn on_agents(addrs: &[String], token: &std::path::Path, args: &[&std::ffi::OsStr]) -> Stampede {
    Stampede::new().arg("run").args(args).args(["-q", "--agents", &addrs.join(","), "--token-file"]).arg(token)
}

#[test]
fn replace_twice_on_agents_gives_a_whole_second_run() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("dist-fix-replace");
    let (_agents, addrs, token) = two_agents(&run);
    let url = server.url("/r");
    for round in 1..=2u64 {
        let args = ["--url", &url, "-u", "2", "-n", "5", "--replace"].map(std::ffi::OsStr::new);
        let out = on_agents(&addrs, &token, &args).arg("--out").arg(run.path()).run();
        out.assert_exit(0);
        // Each round serves 2 users × 5 iterations: the run's totals are its own round's only.
        assert_eq!(server.requests(), 10 * round);
        assert_eq!(uint(&run.total(), "samples"), 10, "round {round}");
        let meta = run.meta();
        assert_eq!(meta["parts"].as_array().map(Vec::len), Some(2), "{meta:#}");
        assert_eq!(meta["status"], "completed", "{meta:#}");
        assert!(!run.path().join("lost.json").exists(), "round {round}: an agent was lost");
    }
}

#[test]
fn a_stop_condition_first_true_after_every_agent_ended_stops_nothing() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(1200))).start();
    let run = TempRun::new("dist-fix-ended");
    let (_agents, addrs, token) = two_agents(&run);
    // `final` has its only samples in each part's last second: merged once both agents ended.
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: ended\nscenarios:\n  - name: s\n    workload: {{users: 2, iterations: 1}}\n    flow:\n      - request: {{url: \"{0}\", label: warm}}\n      - request: {{url: \"{0}\", label: final}}\n",
            server.url("/e")
        ),
    );
    let args = [plan.as_os_str(), "--stop-on".as_ref(), "final: samples > 0".as_ref()];
    let out = on_agents(&addrs, &token, &args).arg("--out").arg(run.path()).run();
    assert!(!out.stderr_str().contains("stopping the run"), "{}", out.stderr_str());
    out.assert_exit(0);
    assert_eq!(server.requests(), 4);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert!(run.meta()["stopped_by"].is_null(), "{:#}", run.meta());
}

#[test]
fn a_results_file_that_cannot_be_opened_is_said_before_any_agent_is_awaited() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("dist-fix-jtl");
    let token = run.write("token", "t\n");
    // Under a regular file: no directory can be made there.
    let jtl = run.write("not-a-dir", "x").join("r.jtl");
    let started = std::time::Instant::now();
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/j"), "-n", "1", "-q", "--listen-agents", "127.0.0.1:0"])
        .args(["--agent-count", "1", "--agent-wait", "30s", "--token-file"])
        .arg(&token)
        .arg("--jtl")
        .arg(&jtl)
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("cannot open the results file"), "{}", out.stderr_str());
    // Not after the 30 s the agents were given to join, and nothing claimed.
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
    assert!(!out.stdout_str().contains("waiting on"), "{}", out.stdout_str());
    assert!(!run.path().exists(), "a run directory was left");
    assert_eq!(server.requests(), 0);
}
