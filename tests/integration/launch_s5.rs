//! A run as a command asks for it, on agents (issue 33): `--replace` clears the run it replaces
//! only once every agent has accepted the job; `demo --agents` runs the demo on agents, its
//! merged samples those the mock served.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Stampede, TempRun};
use std::path::Path;

/// The run directory's files and their contents, its agents' copies included.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push((p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_replace_on_agents_whose_job_is_refused_leaves_the_old_run_whole() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("replace-refused");
    let token = run.write("token", "t\n");
    let (_a, first) = start_agent(&run, "a0", &token, &[]);
    let (_b, second) = start_agent(&run, "a1", &token, &[]);
    let url = server.url("/r");
    let replace = |agents: &str| {
        Stampede::new()
            .args(["run", "--url", &url, "-u", "2", "-n", "3", "-q", "--replace", "--agents", agents, "--token-file"])
            .arg(&token)
            .arg("--out")
            .arg(run.path())
            .run()
    };
    replace(&format!("{first},{second}")).assert_exit(0);
    assert_eq!(server.requests(), 6);
    let old = contents(run.path());
    assert!(old.iter().any(|(f, _)| f.starts_with("agents")), "{:?}", old.iter().map(|f| &f.0).collect::<Vec<_>>());
    // The second agent can no longer make a job's folder: reached, it refuses the job.
    let work = run.root().join("a1-work");
    std::fs::remove_dir_all(&work).unwrap();
    std::fs::write(&work, "not a folder").unwrap();
    let out = replace(&format!("{first},{second}"));
    out.assert_exit(2);
    assert_eq!(server.requests(), 6);
    assert!(contents(run.path()) == old, "the old run changed: {}", out.stderr_str());
    // An agent that takes the job: the run is replaced, its figures its own.
    let (_c, third) = start_agent(&run, "a2", &token, &[]);
    replace(&third).assert_exit(0);
    assert_eq!(server.requests(), 12);
    assert_eq!(uint(&run.total(), "samples"), 6);
    assert_eq!(run.meta()["parts"].as_array().map(Vec::len), Some(1), "{:#}", run.meta());
    assert_eq!(std::fs::read_dir(run.path().join("agents")).unwrap().count(), 1);
    assert!(!run.path().join(".stampede-replaced").exists());
}

#[test]
fn a_demo_on_two_agents_merges_exactly_what_the_mock_served() {
    let run = TempRun::new("demo-agents");
    let token = run.write("token", "t\n");
    let (_a, first) = start_agent(&run, "a0", &token, &[]);
    let (_b, second) = start_agent(&run, "a1", &token, &[]);
    let out = Stampede::new()
        .args(["demo", "-q", "--duration", "2s", "--users", "4", "--agents", &format!("{first},{second}")])
        .arg("--token-file")
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let served: u64 = out
        .stdout_str()
        .split("The mock served ")
        .nth(1)
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stdout_str()));
    assert!(served > 0);
    assert_eq!(uint(&run.total(), "samples"), served);
    assert_eq!(run.meta()["parts"].as_array().map(Vec::len), Some(2), "{:#}", run.meta());
}
