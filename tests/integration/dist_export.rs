//! `--export` on agents (issue 33): beside the merged run's series, one `scope="agent"` row per
//! agent named as its directory under `agents/`; per-label series name their scenario when the
//! plan has several; `run_id` on every series. Each count checked against the counting server.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, total, uint, OutputExt, Running, Stampede, TempRun};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

fn get(port: u16, path: &str) -> Option<String> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    text.starts_with("HTTP/1.1 200").then(|| text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()))?
}

/// The series of `name` on a page whose labels include every one of `with`, summed.
fn sum(page: &str, name: &str, with: &[&str]) -> f64 {
    page.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) && with.iter().all(|w| l.contains(w)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[test]
fn each_agent_exports_its_own_totals_beside_the_merged_run_all_with_the_run_id() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(2))).start();
    let run = TempRun::new("dist-export-agents");
    let token = run.write("token", "t\n");
    let (_agents, addrs): (Vec<Running>, Vec<String>) =
        (0..3).map(|i| start_agent(&run, &format!("a{i}"), &token, &[])).unzip();
    let scenario = |name: &str, path: &str| {
        format!(
            "  - name: {name}\n    workload: {{users: 3, duration: 3s}}\n    flow:\n      - request: {{url: \"{}\", label: {name}-get}}\n",
            server.url(path)
        )
    };
    let plan = run
        .write("plan.yaml", format!("name: dist\nscenarios:\n{}{}", scenario("browse", "/b"), scenario("buy", "/p")));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let export = format!("prometheus=127.0.0.1:{port}");
    let mut running = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--export", &export, "-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .spawn();
    // The page as last read: the run's final numbers (it stays up until they are read once).
    let mut last = String::new();
    let until = Instant::now() + Duration::from_secs(60);
    while running.is_running() && Instant::now() < until {
        if let Some(page) = get(port, "/metrics") {
            last = page;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    running.wait(Duration::from_secs(30)).assert_exit(0);
    let served = server.requests();
    assert!(served > 0);
    assert_eq!(uint(&total(&run.summary()), "samples"), served);
    let requests = "stampede_requests_total";
    // The merged run: `scope="total"` is it alone, the agents' rows are not added to it.
    assert_eq!(sum(&last, requests, &["scope=\"total\""]) as u64, served, "{last}");
    // Each agent's row is its part's samples, as its own run directory counted them.
    let meta = run.meta();
    let parts = meta["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{meta:#}");
    let mut by_agents = 0;
    for p in parts {
        let dir = p["dir"].as_str().unwrap();
        let name = dir.strip_prefix("agents/").unwrap();
        let n = sum(&last, requests, &["scope=\"agent\"", &format!("agent=\"{name}\"")]) as u64;
        assert_eq!(n, uint(p, "samples"), "agent {name}: {last}");
        assert!(n > 0, "{name}");
        let bucket = sum(&last, "stampede_latency_seconds_bucket", &[&format!("agent=\"{name}\""), "le=\"+Inf\""]);
        assert_eq!(bucket as u64, n);
        by_agents += n;
    }
    assert_eq!(by_agents, served);
    // Each label names its scenario (two in the plan), and they add up to what was served.
    let browse = sum(&last, requests, &["label=\"browse-get\"", "scenario=\"browse\""]) as u64;
    let buy = sum(&last, requests, &["label=\"buy-get\"", "scenario=\"buy\""]) as u64;
    assert_eq!(browse + buy, served, "{last}");
    // Every series says which run it is.
    let run_id = format!("run_id=\"{}\"", run.path().file_name().unwrap().to_string_lossy());
    let series: Vec<&str> = last.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect();
    assert!(series.len() > 10, "{last}");
    assert!(series.iter().all(|l| l.contains(&run_id)), "{last}");
}
