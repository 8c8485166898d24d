//! Roll-ups on agents (issue 33): each agent's own run directory and the controller's copy of it
//! carry their roll-up files past the seconds kept, and `merge` of either equals what the server
//! served and the run merged live.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{total, uint, OutputExt, Running, Stampede, TempRun};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LAYOUT: &str = "2:2,4";

fn lines(dir: &Path, file: &str) -> usize {
    std::fs::read_to_string(dir.join(file)).map_or(0, |t| t.lines().count())
}

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// An agent on a free loopback port writing runs in [`LAYOUT`] under `run/<name>-work`.
fn agent(run: &TempRun, name: &str, token_file: &Path) -> (Running, String) {
    let mut agent = Stampede::new()
        .env("STAMPEDE_LOG_LAYOUT", LAYOUT)
        .args(["agent", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(token_file)
        .arg("--work-dir")
        .arg(run.root().join(format!("{name}-work")))
        .spawn();
    let addr = agent.printed_address("listening on ");
    (agent, addr)
}

/// The run directory the agent `name` kept of its part (`<work>/job-*/run`).
fn own_run(run: &TempRun, name: &str) -> PathBuf {
    let work = run.root().join(format!("{name}-work"));
    std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path().join("run"))
        .find(|p| p.join("meta.json").exists())
        .unwrap_or_else(|| panic!("no run in {}", work.display()))
}

/// `merge` of `dirs` into `out`: its Total.
fn merged(dirs: &[PathBuf], out: &Path) -> Value {
    Stampede::new().arg("merge").args(dirs).arg("--out").arg(out).run().assert_exit(0);
    total(&json_of(&out.join("summary.json")))
}

#[test]
fn agents_and_the_controllers_copies_keep_roll_ups_and_merge_to_what_was_served() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(2))).start();
    let run = TempRun::new("rollup-s4");
    let token = run.write("token", "t\n");
    let agents: Vec<(Running, String)> = (0..2).map(|i| agent(&run, &format!("a{i}"), &token)).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let plan_dir = run.root().join("plan");
    std::fs::create_dir_all(&plan_dir).unwrap();
    let plan = plan_dir.join("plan.yaml");
    std::fs::write(
        &plan,
        format!(
            "name: soak\nscenarios:\n  - name: s\n    workload: {{users: 4, duration: 7s}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n",
            server.url("/")
        ),
    )
    .unwrap();
    Stampede::new()
        .env("STAMPEDE_LOG_LAYOUT", LAYOUT)
        .arg("run")
        .arg(&plan)
        .args(["-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let served = server.responses();
    assert!(served > 0);
    assert_eq!(uint(&run.total(), "samples"), served);

    let meta = run.meta();
    let parts = meta["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{meta:#}");
    let copies: Vec<PathBuf> = parts.iter().map(|p| run.path().join(p["dir"].as_str().unwrap())).collect();
    let owns: Vec<PathBuf> = (0..2).map(|i| own_run(&run, &format!("a{i}"))).collect();
    let mut copies_sum = 0;
    for (copy, own) in copies.iter().zip(&owns) {
        // The controller's copy: lines of 4 s (the run's roll-ups but the finest), no seconds.
        let log = &json_of(&copy.join("meta.json"))["log"];
        assert_eq!(log, &json!({"version": 2, "seconds_kept_s": 0, "rollups_s": [4]}), "{}", copy.display());
        assert!(lines(copy, "intervals-4s.jsonl") >= 2, "{}", copy.display());
        assert_eq!(lines(copy, "intervals.jsonl"), 0);
        assert!(!copy.join("intervals-2s.jsonl").exists() && !copy.join("tail.jsonl").exists());
        // The agent's own: its first 2 s of seconds, lines of 2 and 4 s, the tail gone.
        let log = &json_of(&own.join("meta.json"))["log"];
        assert_eq!(log, &json!({"version": 2, "seconds_kept_s": 2, "rollups_s": [2, 4]}), "{}", own.display());
        assert_eq!(lines(own, "intervals.jsonl"), 2, "{}", own.display());
        assert!(lines(own, "intervals-2s.jsonl") >= 4 && lines(own, "intervals-4s.jsonl") >= 2);
        assert!(!own.join("tail.jsonl").exists());
        // A copy's 4 s lines are the agent's own, line for line.
        assert_eq!(
            std::fs::read_to_string(copy.join("intervals-4s.jsonl")).unwrap(),
            std::fs::read_to_string(own.join("intervals-4s.jsonl")).unwrap()
        );
        let s = total(&json_of(&copy.join("summary.json")));
        assert_eq!(s, total(&json_of(&own.join("summary.json"))));
        copies_sum += uint(&s, "samples");
    }
    assert_eq!(copies_sum, served);

    // Merged offline from their roll-ups, the copies and the agents' own directories are each
    // the run merged live, exactly: counts and every percentile of the summed histograms.
    let from_copies = merged(&copies, &run.root().join("from-copies"));
    let from_owns = merged(&owns, &run.root().join("from-owns"));
    for field in ["samples", "errors", "min_ms", "max_ms", "mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms"] {
        assert_eq!(from_copies[field], run.total()[field], "{field} from the copies");
        assert_eq!(from_owns[field], run.total()[field], "{field} from the agents' own");
    }
    assert_eq!(uint(&from_copies, "samples"), served);
    // A report per agent reads the copies.
    let by_agent = Stampede::new().args(["report", "--by", "agent"]).arg(run.path()).run();
    by_agent.assert_exit(0);
    let md = by_agent.stdout_str();
    assert!(md.contains("## Part 1/2: ") && md.contains("## Part 2/2: "), "{md}");
    for (a, _) in agents {
        a.kill();
    }
}
