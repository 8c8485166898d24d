//! A sweep is a driver over runs (issue 33): `sweep --agents` on three agents, each step's merged
//! samples what the server served for it; agents that dial in wait at every step; `sweep --export`
//! labels each step's series `SWEEP/STEP` and its last numbers are what was served; `demo
//! --export`; what a sweep cannot do on agents yet refused before any load.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Running, Stampede, TempRun};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// A plan in a directory of its own (what agents get) whose users send GETs to
/// `/s/<load>` for their step: the server counts every step apart.
fn step_plan(run: &TempRun, server: &TestServer) -> std::path::PathBuf {
    let dir = run.root().join("plan");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = format!(
        "name: steps\nscenarios:\n  - name: s\n    workload: {{users: 1, duration: 1s}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n      - think: 5ms\n",
        server.url("/s/${__P(sweep.load,0)}")
    );
    std::fs::write(dir.join("plan.yaml"), plan).unwrap();
    dir.join("plan.yaml")
}

fn sweep_record(run: &TempRun) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.path().join("sweep.json")).unwrap()).unwrap()
}

#[test]
fn a_sweep_on_three_agents_counts_every_step_exactly() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("sweep-agents");
    let token = run.write("token", "t\n");
    let agents: Vec<(Running, String)> = (0..3).map(|i| start_agent(&run, &format!("a{i}"), &token, &[])).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let plan = step_plan(&run, &server);
    let out = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "3,6", "--step-duration", "1s", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .timeout(Duration::from_secs(120))
        .run();
    out.assert_exit(0);
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{record:#}");
    assert_eq!(record["finished"], true);
    let mut sum = 0;
    for s in steps {
        let load = s["load"].as_f64().unwrap() as u64;
        let served = server.requests_to(&format!("/s/{load}"));
        assert!(served > 0, "step {load}");
        assert_eq!(uint(&s["total"], "samples"), served, "step {load}");
        sum += served;
        // Each step is a merged run of its own, its three parts kept beside it.
        let dir = run.path().join(s["dir"].as_str().unwrap());
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        assert_eq!(meta["parts"].as_array().map(Vec::len), Some(3), "{meta:#}");
        assert_eq!(std::fs::read_dir(dir.join("agents")).unwrap().count(), 3);
        Stampede::new().arg("report").arg(&dir).run().assert_exit(0);
    }
    assert_eq!(sum, server.requests());
    assert!(run.path().join("report.html").exists());
}

/// `GET /metrics` on loopback `port`: the page, when one answered.
fn scrape(port: u16) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    text.starts_with("HTTP/1.1 200").then_some(text)
}

/// Each `run_id`'s Total of `stampede_requests_total` on the page.
fn totals(page: &str) -> Vec<(String, u64)> {
    page.lines()
        .filter(|l| l.starts_with("stampede_requests_total{") && l.contains("scope=\"total\""))
        .filter_map(|l| {
            let id = l.split("run_id=\"").nth(1)?.split('"').next()?.to_string();
            Some((id, l.rsplit(' ').next()?.parse().ok()?))
        })
        .collect()
}

/// Scrapes `port` every 50 ms while `running` runs: the last Total seen for each `run_id`.
fn watch_page(running: &mut Running, port: u16) -> BTreeMap<String, Vec<u64>> {
    let mut seen: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let until = Instant::now() + Duration::from_secs(60);
    while running.is_running() && Instant::now() < until {
        for (id, n) in scrape(port).as_deref().map(totals).unwrap_or_default() {
            seen.entry(id).or_default().push(n);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    seen
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn sweep_export_labels_each_step_and_its_last_numbers_are_what_was_served() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("sweep-export");
    let plan = step_plan(&run, &server);
    let port = free_port();
    let mut running = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "1,2", "--step-duration", "2s", "--export", &format!("prometheus=127.0.0.1:{port}")])
        .arg("--out")
        .arg(run.path())
        .spawn();
    let seen = watch_page(&mut running, port);
    running.wait(Duration::from_secs(30)).assert_exit(0);
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{record:#}");
    // One series per step, named by the sweep's directory and the step's.
    assert_eq!(seen.len(), 2, "{seen:?}");
    for s in steps {
        let load = s["load"].as_f64().unwrap() as u64;
        let id = format!("run/{}", s["dir"].as_str().unwrap());
        let values = seen.get(&id).unwrap_or_else(|| panic!("no series {id}: {seen:?}"));
        assert!(values.len() >= 3, "too few scrapes of {id}: {values:?}");
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "not monotonic: {values:?}");
        let served = server.requests_to(&format!("/s/{load}"));
        assert_eq!(uint(&s["total"], "samples"), served, "step {load}");
        // The page stays up after its step until its final numbers have been read once.
        assert_eq!(values.last().copied(), Some(served), "{id}");
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.path().join(s["dir"].as_str().unwrap()).join("export.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(report[0]["final_delivered"], true, "{report:#}");
    }
}

#[test]
fn demo_export_serves_what_the_mock_served() {
    let run = TempRun::new("demo-export");
    let port = free_port();
    let mut running = Stampede::new()
        .args(["demo", "-q", "--duration", "2s", "--users", "2", "--export", &format!("prometheus=127.0.0.1:{port}")])
        .arg("--out")
        .arg(run.path())
        .spawn();
    let seen = watch_page(&mut running, port);
    let out = running.wait(Duration::from_secs(30));
    out.assert_exit(0);
    let served: u64 = out
        .stdout_str()
        .split("The mock served ")
        .nth(1)
        .and_then(|t| t.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stdout_str()));
    assert_eq!(uint(&run.total(), "samples"), served);
    let values = seen.get("run").unwrap_or_else(|| panic!("{seen:?}"));
    assert_eq!(values.last().copied(), Some(served), "{values:?}");
}

#[test]
fn what_a_sweep_cannot_do_on_agents_is_refused_before_any_load() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("sweep-agents-refused");
    let plan = step_plan(&run, &server);
    let token = run.write("token", "t\n");
    let refused = |extra: &[&str], says: &str| {
        let out = Stampede::new()
            .arg("sweep")
            .args(["-q", "--step-duration", "1s", "--token-file"])
            .arg(&token)
            .args(extra)
            .arg("--out")
            .arg(run.path())
            .run();
        out.assert_exit(2);
        assert!(out.stderr_str().contains(says), "{extra:?}: {}", out.stderr_str());
        assert!(!run.path().exists(), "{extra:?} left a sweep directory");
    };
    let p = plan.to_str().unwrap();
    let url = server.url("/q");
    refused(&["--url", &url, "--users", "3", "--agents", "127.0.0.1:1"], "run a plan file, not --url");
    refused(&[p, "--rates", "3", "--agents", "127.0.0.1:1"], "on agents, sweep --users");
    refused(&[p, "--users", "3"], "--token-file and --on-agent-loss go with --agents");
    refused(&[p, "--users", "3", "--agent-count", "2"], "--listen-agents");
    assert_eq!(server.requests(), 0);
}

/// Agents that dial in (`--listen-agents`) run one job each: every step waits for its own.
#[test]
fn a_sweep_waits_at_every_step_for_agents_to_join() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("sweep-join");
    let token = run.write("token", "t\n");
    let at = format!("127.0.0.1:{}", free_port());
    let plan = step_plan(&run, &server);
    let mut ctl = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "2,4", "--step-duration", "1s", "--listen-agents", &at, "--agent-count", "2"])
        .arg("--token-file")
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .spawn();
    let mut joined = Vec::new();
    for step in 1..=2 {
        let waiting = |c: &mut Running| c.stdout_so_far().matches("waiting on").count() >= step;
        assert!(ctl.wait_until(Duration::from_secs(30), waiting), "{}", ctl.stderr_so_far());
        for i in 0..2 {
            joined.push(
                Stampede::new()
                    .args(["agent", "--join", &at, "--join-timeout", "30s", "--token-file"])
                    .arg(&token)
                    .arg("--work-dir")
                    .arg(run.root().join(format!("s{step}-a{i}-work")))
                    .spawn(),
            );
        }
    }
    ctl.wait(Duration::from_secs(60)).assert_exit(0);
    for a in joined {
        a.wait(Duration::from_secs(20)).assert_exit(0);
    }
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{record:#}");
    for s in steps {
        let load = s["load"].as_f64().unwrap() as u64;
        assert_eq!(uint(&s["total"], "samples"), server.requests_to(&format!("/s/{load}")), "step {load}");
    }
}
