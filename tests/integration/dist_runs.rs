//! One run layer on agents (issue 33): quick mode, `--watch pid:` with `--export prometheus=`, a
//! failed `--stop-on` on 3 agents on loopback, each merged == served; `--replace` clears the run it
//! replaces once every agent accepted the job; `demo --agents` merges what the mock served.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, total, uint, OutputExt, Running, Stampede, TempRun};
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// Three agents on loopback with the token `t`, and the token file.
fn three_agents(run: &TempRun) -> (Vec<Running>, Vec<String>, std::path::PathBuf) {
    let token = run.write("token", "t\n");
    let (agents, addrs) = (0..3).map(|i| start_agent(run, &format!("a{i}"), &token, &[])).unzip();
    (agents, addrs, token)
}

/// `stampede run ARGS... -q --agents A,B,C --token-file T --out DIR`, started.
fn on_agents(run: &TempRun, addrs: &[String], token: &std::path::Path, args: &[&str]) -> Running {
    Stampede::new()
        .arg("run")
        .args(args)
        .args(["-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(token)
        .arg("--out")
        .arg(run.path())
        .spawn()
}

#[test]
fn quick_mode_runs_on_three_agents_and_the_merge_is_what_was_served() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("dist-quick");
    let (_agents, addrs, token) = three_agents(&run);
    // A header and a body with `${...}`: quick mode's text is literal on the agents too.
    let url = server.url("/q");
    let args = ["--url", &url, "-u", "5", "-n", "20", "-H", "X-Lit: ${none}", "-d", "{\"a\": \"${b}\"}"];
    let out = on_agents(&run, &addrs, &token, &args).wait(Duration::from_secs(60));
    out.assert_exit(0);
    // 5 users in 3 parts (2, 2, 1), 20 iterations each: 100 requests in all.
    assert_eq!(server.requests(), 100);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(uint(&run.total(), "errors"), 0);
    let meta = run.meta();
    assert_eq!(meta["parts"].as_array().map(Vec::len), Some(3), "{meta:#}");
    assert_eq!(meta["status"], "completed", "{meta:#}");
}

#[test]
fn quick_mode_sends_its_text_literally_from_agents() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("dist-quick-literal");
    let (_agents, addrs, token) = three_agents(&run);
    let url = server.url("/lit");
    let args = ["--url", &url, "-u", "3", "-n", "1", "-H", "X-Lit: ${none}", "-d", "{\"a\": \"${b}\"}"];
    on_agents(&run, &addrs, &token, &args).wait(Duration::from_secs(60)).assert_exit(0);
    let seen = server.recorded_all();
    assert_eq!(seen.len(), 3);
    for r in &seen {
        assert_eq!(r.method, "POST");
        assert_eq!(r.header("x-lit"), Some("${none}"));
        assert_eq!(r.body, b"{\"a\": \"${b}\"}");
    }
}

/// GET `path` on loopback `port`: status and body.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let status = text.split(' ').nth(1)?.parse().ok()?;
    Some((status, text.split_once("\r\n\r\n")?.1.to_string()))
}

/// The Total's `name` on an exposition page, summed over its series.
fn page_total(page: &str, name: &str) -> Option<f64> {
    let values: Vec<f64> = page
        .lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) && l.contains("scope=\"total\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse().ok())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

#[test]
fn watch_and_export_on_agents_see_the_merged_run() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(2))).start();
    let run = TempRun::new("dist-watch-export");
    let (_agents, addrs, token) = three_agents(&run);
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: dist\nscenarios:\n  - name: s\n    workload: {{users: 3, duration: 4s}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n",
            server.url("/w")
        ),
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // The counting server is in this process: `pid:` names a process on the controller's machine.
    let pid = std::process::id().to_string();
    let (watch, export) = (format!("pid:{pid}"), format!("prometheus=127.0.0.1:{port}"));
    let plan = plan.to_str().unwrap();
    let mut running = on_agents(&run, &addrs, &token, &[plan, "--watch", &watch, "--export", &export]);
    let mut seen = Vec::new();
    let until = Instant::now() + Duration::from_secs(60);
    while running.is_running() && Instant::now() < until {
        if let Some((200, page)) = get(port, "/metrics") {
            if let Some(n) = page_total(&page, "stampede_requests_total") {
                // Mid-run, the page has every agent's requests so far: more than one agent's third.
                seen.push((n, server.requests()));
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    running.wait(Duration::from_secs(30)).assert_exit(0);
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());
    assert!(seen.len() >= 3, "too few scrapes: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "not monotonic: {seen:?}");
    // No page ever shows more than was served by then.
    assert!(seen.iter().all(|(n, served)| *n as u64 <= *served), "{seen:?}");
    // Mid-run totals are the merged ones: some page between 0 and the end beyond any one part.
    assert!(seen.iter().any(|(n, _)| *n > samples as f64 / 3.0 && *n < samples as f64), "{seen:?}");
    // The page stays up until its final numbers have been read once: the whole merged run.
    assert_eq!(seen.last().map(|s| s.0), Some(samples as f64));
    // The watch sampled this process beside the run on agents.
    let meta = run.meta();
    assert_eq!(meta["watch"], serde_json::json!([watch]), "{meta:#}");
    let report = Stampede::new().args(["report", "--format", "json"]).arg(run.path()).run();
    report.assert_exit(0);
    let report: serde_json::Value = serde_json::from_str(&report.stdout_str()).unwrap();
    let src = report["watch"]["sources"].as_array().and_then(|s| s.iter().find(|s| s["source"] == watch.as_str()));
    let src = src.unwrap_or_else(|| panic!("no watched source in {:#}", report["watch"]));
    let rss = src["metrics"].as_array().and_then(|m| m.iter().find(|m| m["name"] == "rss_bytes")).unwrap();
    assert!(rss["min"].as_f64().unwrap_or_default() > 0.0, "{src:#}");
    assert_eq!(uint(&report["total"], "samples"), server.requests());
}

#[test]
fn a_failed_stop_on_stops_all_three_agents() {
    let server = TestServer::builder().default_route(Route::status(503).delay(Duration::from_millis(5))).start();
    let run = TempRun::new("dist-stop-on");
    let (_agents, addrs, token) = three_agents(&run);
    let url = server.url("/s");
    let started = Instant::now();
    let args = ["--url", &url, "-u", "3", "--duration", "60s", "--stop-on", "error_pct > 50 for 2s"];
    let out = on_agents(&run, &addrs, &token, &args).wait(Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_str());
    assert!(started.elapsed() < Duration::from_secs(30), "the agents went on: {:?}", started.elapsed());
    let meta = run.meta();
    let why = meta["stopped_by"].as_str().unwrap_or_default().to_string();
    assert!(why.starts_with("stop condition `error_pct > 50% for 2s` held from "), "{why}");
    assert_eq!(uint(&total(&run.summary()), "samples"), server.requests());
    // Every agent ended its part as a run that ends, having sent its share.
    let parts = meta["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{meta:#}");
    for p in parts {
        assert!(uint(p, "samples") > 0, "{p:#}");
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.path().join(p["dir"].as_str().unwrap()).join("meta.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(m["status"], "completed", "{m:#}");
    }
}

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
