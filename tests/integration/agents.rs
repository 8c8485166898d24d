//! Agents and a controller (issue 15), as processes on loopback against a counting server: the
//! controller ships the plan and its data files, the agents run their parts together, and the
//! merged run is what the server served; a wrong token is refused; an agent whose controller is
//! killed stops its load by itself; an agent killed mid-run is marked lost, and what it and the
//! others sent is kept.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, total, uint, OutputExt, Running, Stampede, TempRun};
use std::time::{Duration, Instant};

/// An agent on a free loopback port, with `token`; returns it and its address.
fn agent(run: &TempRun, name: &str, token: &str) -> (Running, String) {
    agent_with(run, name, token, &[])
}

/// [`agent`] with more arguments.
fn agent_with(run: &TempRun, name: &str, token: &str, extra: &[&std::ffi::OsStr]) -> (Running, String) {
    let token_file = run.write(&format!("{name}.token"), format!("{token}\n"));
    crate::util::stampede::start_agent(run, name, &token_file, extra)
}

/// A plan in a directory of its own with a data file of 12 names, `users` users reading it.
fn plan_dir(run: &TempRun, server: &TestServer, users: u32, how: &str) -> std::path::PathBuf {
    let dir = run.root().join("plan");
    std::fs::create_dir_all(&dir).unwrap();
    let rows: String = (1..=12).map(|i| format!("n{i}\n")).collect();
    std::fs::write(dir.join("names.csv"), format!("name\n{rows}")).unwrap();
    let plan = format!(
        "name: agents\ndata:\n  - file: names.csv\n    on_eof: stop_user\nscenarios:\n  - name: s\n    workload: {{users: {users}, {how}}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n",
        server.url("/n/${name}")
    );
    std::fs::write(dir.join("plan.yaml"), plan).unwrap();
    dir.join("plan.yaml")
}

/// A plan of `users` users for `how` whose data rows recycle, run by a controller on `addrs`
/// with `extra` arguments (token `t`): the controller, started.
fn controller(run: &TempRun, server: &TestServer, addrs: &[&str], users: u32, how: &str, extra: &[&str]) -> Running {
    let plan = plan_dir(run, server, users, how);
    let text = std::fs::read_to_string(&plan).unwrap().replace("on_eof: stop_user", "on_eof: recycle");
    std::fs::write(&plan, text).unwrap();
    let token = run.write("token", "t\n");
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .arg("-q")
        .args(extra)
        .args(["--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .spawn()
}

#[test]
fn three_agents_run_their_parts_and_the_merge_is_what_was_served() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("agents");
    let group = |i: usize| std::ffi::OsString::from(if i == 0 { "aws" } else { "azure" });
    let agents: Vec<_> = (0..3)
        .map(|i| agent_with(&run, &format!("a{i}"), "s3cret", &["--group".as_ref(), group(i).as_os_str()]))
        .collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let plan = plan_dir(&run, &server, 7, "iterations: 100");
    let token = run.write("token", "s3cret\n");
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--data", "split", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(0);
    // The data file reached every agent, its rows dealt: each name used once in the cluster.
    let mut paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    paths.sort();
    let mut want: Vec<String> = (1..=12).map(|i| format!("/n/n{i}")).collect();
    want.sort();
    assert_eq!(paths, want);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(uint(&run.label("get"), "samples"), 12);
    // Each agent's own run directory is kept, and they add up to the whole.
    let mut sum = 0;
    for i in 1..=3 {
        let dir = std::fs::read_dir(run.path().join("agents"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(&format!("{i}-")))
            .unwrap();
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
        assert_eq!(m["part"]["segment"], format!("{i}/3"));
        sum += uint(&total(&s), "samples");
        assert_eq!(uint(&label(&s, "get"), "samples"), uint(&total(&s), "samples"));
    }
    assert_eq!(sum, 12);
    let meta = run.meta();
    assert_eq!(meta["parts"].as_array().unwrap().len(), 3);
    assert!(meta["parts"][0]["dir"].as_str().unwrap().starts_with("agents/"), "{meta:#}");
    assert_eq!(meta["parts"][1]["agent"].as_str(), Some(addrs[1]), "{meta:#}");
    // Merged live as the agents streamed, the run is what `merge` makes of their directories.
    let kept: Vec<std::path::PathBuf> =
        meta["parts"].as_array().unwrap().iter().map(|p| run.path().join(p["dir"].as_str().unwrap())).collect();
    let offline = run.root().join("offline");
    Stampede::new().arg("merge").args(&kept).arg("--out").arg(&offline).run().assert_exit(0);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(offline.join("summary.json")).unwrap()).unwrap();
    for field in ["samples", "errors", "min_ms", "max_ms", "mean_ms", "p50_ms", "p90_ms", "p99_ms"] {
        assert_eq!(total(&s)[field], run.total()[field], "{field}");
    }
    // A table per agent, and per group of agents, after the whole.
    let samples_of = |md: &str, title: &str| -> u64 {
        let section = md.split(&format!("\n## {title}\n")).nth(1).unwrap_or_else(|| panic!("no {title}:\n{md}"));
        let row = section.lines().find(|l| l.starts_with("| Total")).unwrap();
        row.split('|').nth(2).unwrap().trim().parse().unwrap()
    };
    let by_agent = Stampede::new().args(["report", "--by", "agent"]).arg(run.path()).run();
    by_agent.assert_exit(0);
    let md = by_agent.stdout_str();
    let parts: u64 = (1..=3)
        .map(|i| {
            let title = md
                .lines()
                .find(|l| l.starts_with(&format!("## Part {i}/3: ")))
                .unwrap_or_else(|| panic!("no part {i}:\n{md}"));
            assert!(title.contains(&format!("(agent {})", addrs[i - 1])), "{title}");
            samples_of(&md, &title[3..])
        })
        .sum();
    assert_eq!(parts, 12);
    let by_group = Stampede::new().args(["report", "--by", "group"]).arg(run.path()).run();
    by_group.assert_exit(0);
    let md = by_group.stdout_str();
    assert_eq!(samples_of(&md, "Group aws") + samples_of(&md, "Group azure (2 runs)"), 12, "{md}");
    assert!(md.contains("(agent ") && md.contains(", group azure)"), "{md}");
    // The agents serve the next controller.
    let again = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.root().join("again"))
        .run();
    again.assert_exit(0);
    assert_eq!(server.requests(), 12 + 36, "without split, each agent reads every row");
}

#[test]
fn a_wrong_token_is_refused() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("agents-token");
    let (mut a, addr) = agent(&run, "a", "right");
    let plan = plan_dir(&run, &server, 2, "iterations: 1");
    let token = run.write("token", "wrong\n");
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--agents", &addr, "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains(": wrong token"), "{}", out.stderr_str());
    assert_eq!(server.requests(), 0);
    assert!(a.wait_until(Duration::from_secs(5), |a| a.stderr_so_far().contains("wrong token")));
    // The token never reaches the terminal or a file.
    assert!(!out.stderr_str().contains("right") && !a.stderr_so_far().contains("wrong\n"));
}

/// The controller merges the agents' intervals into its run directory as they come: killed
/// mid-run, it leaves a run that reads; its agents stop their load by themselves, and their own
/// run directories merge to exactly what the server served.
#[test]
fn agents_stop_their_load_when_the_controller_is_gone() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-orphan");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let mut controller = controller(&run, &server, &addrs, 4, "duration: 60s", &[]);
    assert!(controller.wait_until(Duration::from_secs(20), |_| server.requests() > 50), "the load did not start");
    // The merged seconds reach the run's own log while the run goes on.
    let log = run.path().join("intervals.jsonl");
    let merged_lines = || std::fs::read_to_string(&log).map_or(0, |t| t.lines().count());
    assert!(
        controller.wait_until(Duration::from_secs(15), |_| merged_lines() >= 3),
        "no merged intervals in {} while the run goes on",
        log.display()
    );
    assert_eq!(run.meta()["status"], "running");
    assert!(run.path().join("agents").is_dir());
    let mid = Stampede::new().arg("report").arg(run.path()).run();
    mid.assert_exit(0);
    assert!(mid.stdout_str().contains("| Total"), "{}", mid.stdout_str());
    controller.signal(libc::SIGKILL);
    let killed = Instant::now();
    // Within the silence bound (5 s) and the graceful stop, the load ends.
    let mut last = server.requests();
    let mut quiet_since = Instant::now();
    while quiet_since.elapsed() < Duration::from_secs(2) {
        assert!(killed.elapsed() < Duration::from_secs(20), "the agents' load went on without a controller");
        std::thread::sleep(Duration::from_millis(200));
        let now = server.requests();
        if now != last {
            last = now;
            quiet_since = Instant::now();
        }
    }
    assert!(killed.elapsed() < Duration::from_secs(20));
    // What the controller merged before it died reads as a run that did not finish.
    let merged: u64 = run.intervals().iter().map(|l| uint(&l["total"], "samples")).sum();
    assert!(merged > 0 && merged <= server.requests(), "{merged} of {}", server.requests());
    let after = Stampede::new().arg("report").arg(run.path()).run();
    after.assert_exit(0);
    assert!(after.stdout_str().contains("did not finish"), "{}", after.stdout_str());
    // Each agent kept its own run: together they are exactly what was served.
    let mut kept: Vec<std::path::PathBuf> = Vec::new();
    for i in 0..2 {
        let work = run.root().join(format!("a{i}-work"));
        for job in std::fs::read_dir(&work).unwrap() {
            let dir = job.unwrap().path().join("run");
            if dir.join("summary.json").exists() {
                kept.push(dir);
            }
        }
    }
    assert_eq!(kept.len(), 2, "each agent's run, finished: {kept:?}");
    let whole = run.root().join("whole");
    Stampede::new().arg("merge").args(&kept).arg("--out").arg(&whole).run().assert_exit(0);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(whole.join("summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&total(&s), "samples"), server.requests());
}

#[test]
fn an_agent_killed_mid_run_is_marked_lost_and_the_rest_is_kept() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-lost");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let controller = controller(&run, &server, &addrs, 4, "duration: 8s", &[]);
    let t0 = Instant::now();
    while server.requests() < 100 && t0.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    agents[1].0.signal(libc::SIGKILL);
    let out = controller.wait(Duration::from_secs(40));
    out.assert_exit(3);
    assert!(out.stderr_str().contains("was lost"), "{}", out.stderr_str());
    // The lost agent's samples up to its last interval and all of the other's are counted: no
    // more than the server served, and the surviving agent's whole part.
    let merged = uint(&run.total(), "samples");
    assert!(merged <= server.requests() && merged > 0, "{merged} of {}", server.requests());
    let meta = run.meta();
    assert_eq!(meta["parts"].as_array().unwrap().len(), 2, "{meta:#}");
    assert_eq!(meta["parts"][1]["status"], "interrupted", "{meta:#}");
    assert!(meta["stopped_by"].as_str().unwrap_or_default().contains("lost"), "{meta:#}");
}

/// Ctrl-C at the controller stops every agent gracefully: the run ends interrupted (exit 130)
/// with everything the agents measured, which is what the server served.
#[test]
fn ctrl_c_at_the_controller_stops_every_agent() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-sigint");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let mut controller = controller(&run, &server, &addrs, 4, "duration: 60s", &[]);
    assert!(controller.wait_until(Duration::from_secs(20), |_| server.requests() > 100), "the load did not start");
    controller.interrupt();
    let out = controller.wait(Duration::from_secs(30));
    out.assert_exit(130);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(run.meta()["status"], "interrupted");
}

/// With `--on-agent-loss abort`, an agent lost stops the others.
#[test]
fn an_agent_lost_aborts_the_others_when_asked() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-abort");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let mut controller = controller(&run, &server, &addrs, 4, "duration: 60s", &["--on-agent-loss", "abort"]);
    assert!(controller.wait_until(Duration::from_secs(20), |_| server.requests() > 100), "the load did not start");
    agents[0].0.signal(libc::SIGKILL);
    let out = controller.wait(Duration::from_secs(30));
    out.assert_exit(3);
    assert!(out.stderr_str().contains("was lost"), "{}", out.stderr_str());
}

/// A controller of another protocol version is refused with both versions named.
#[test]
fn another_protocol_version_is_refused() {
    use std::io::{BufRead, Write};
    let run = TempRun::new("agents-version");
    let (_a, addr) = agent(&run, "a", "t");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"{\"type\":\"hello\",\"protocol\":999,\"version\":\"9.9.9\",\"token\":\"t\"}\n").unwrap();
    let mut line = String::new();
    std::io::BufReader::new(s).read_line(&mut line).unwrap();
    assert!(line.contains("\"refused\"") && line.contains("protocol 999 (stampede 9.9.9)"), "{line}");
}

/// A run on agents judges `--threshold` on the merged numbers, and a taken `--out` is refused
/// before any agent sends a request.
#[test]
fn thresholds_are_judged_on_the_merge_and_a_taken_out_is_refused_first() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(3))).start();
    let run = TempRun::new("agents-threshold");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let plan = plan_dir(&run, &server, 2, "iterations: 3");
    let token = run.write("token", "t\n");
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--threshold", "p50<1ms", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(1);
    assert_eq!(run.summary()["thresholds"][0]["passed"], false, "{:#}", run.summary());
    let served = server.requests();
    let taken = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .run();
    taken.assert_exit(2);
    assert!(taken.stderr_str().contains("already exists"), "{}", taken.stderr_str());
    assert_eq!(server.requests(), served);
}

/// A stop condition is watched by the controller on the merged seconds (an agent's own share
/// could hold it or not): when it has held long enough, every agent stops and the run says why.
#[test]
fn a_stop_condition_on_the_merged_seconds_stops_every_agent() {
    let server = TestServer::builder().default_route(Route::status(503).delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-stop-on");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let started = Instant::now();
    let out = controller(&run, &server, &addrs, 2, "duration: 60s", &["--stop-on", "error_pct > 50 for 2s"])
        .wait(Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_str());
    assert!(started.elapsed() < Duration::from_secs(30), "the agents went on: {:?}", started.elapsed());
    let why = run.meta()["stopped_by"].as_str().unwrap_or_default().to_string();
    assert!(why.starts_with("stop condition `error_pct > 50% for 2s` held from "), "{why}");
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

/// A goal marked `abort` is judged by the controller on every agent's numbers so far: when it
/// fails, every agent stops as a run that ends, and the merged run says why and exits 1.
#[test]
fn an_abort_threshold_on_the_merged_numbers_stops_every_agent() {
    let server = TestServer::builder().default_route(Route::status(503).delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-abort");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let started = Instant::now();
    let out = controller(&run, &server, &addrs, 2, "duration: 60s", &["--threshold", "error_pct < 5 abort after 1s"])
        .wait(Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr_str());
    assert!(started.elapsed() < Duration::from_secs(30), "the agents went on: {:?}", started.elapsed());
    let meta = run.meta();
    assert!(
        meta["stopped_by"].as_str().unwrap_or_default().starts_with("threshold `error_pct < 5% abort after 1s` failed"),
        "{meta:#}"
    );
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    // The agents ended their parts as runs that end, not as interrupts.
    for p in meta["parts"].as_array().unwrap() {
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.path().join(p["dir"].as_str().unwrap()).join("meta.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(m["status"], "completed", "{m:#}");
    }
}

/// Agents may dial in: a controller waits on a port for N agents (`--listen-agents`,
/// `--agent-count`); one that comes before the controller keeps trying, one with a wrong token is
/// refused and not counted, and the run is the same as with `--agents`: merged == served.
#[test]
fn agents_join_a_controller_that_waits_for_them() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("agents-join");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let at = format!("127.0.0.1:{port}");
    let joiner = |name: &str, token: &str| {
        let token_file = run.write(&format!("{name}.token"), format!("{token}\n"));
        Stampede::new()
            .args(["agent", "--join", &at, "--join-timeout", "60s", "--token-file"])
            .arg(&token_file)
            .arg("--work-dir")
            .arg(run.root().join(format!("{name}-work")))
            .spawn()
    };
    // Before the controller: it keeps trying.
    let mut early = joiner("early", "t");
    assert!(early.wait_until(Duration::from_secs(10), |a| a.stderr_so_far().contains("trying again")));
    let plan = plan_dir(&run, &server, 5, "iterations: 4");
    let token = run.write("token", "t\n");
    let mut ctl = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--listen-agents", &at, "--agent-count", "3", "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .spawn();
    assert!(ctl.wait_until(Duration::from_secs(10), |c| c.stdout_so_far().contains("waiting on")));
    let wrong = joiner("wrong", "not-t").wait(Duration::from_secs(20));
    wrong.assert_exit(2);
    assert!(wrong.stderr_str().contains(": wrong token"), "{}", wrong.stderr_str());
    let others = [joiner("b", "t"), joiner("c", "t")];
    let out = ctl.wait(Duration::from_secs(60));
    out.assert_exit(0);
    assert!(out.stderr_str().contains("agent 3/3 joined"), "{}", out.stderr_str());
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    // 5 users of 4 iterations dealt 2 + 2 + 1, each reading its own data rows.
    assert_eq!(server.requests(), 20);
    assert_eq!(run.meta()["parts"].as_array().unwrap().len(), 3);
    // A joined agent runs one job and exits.
    early.wait(Duration::from_secs(20)).assert_exit(0);
    for a in others {
        a.wait(Duration::from_secs(20)).assert_exit(0);
    }
}

/// The token never crosses the wire: each side proves it holds it (HMAC of the other's nonce).
/// A joining agent that reaches something that cannot prove it (a wrong controller) refuses it
/// at once and runs nothing; what the agent sent holds no token.
#[test]
fn a_joining_agent_refuses_a_controller_that_cannot_prove_the_token() {
    use std::io::{BufRead, BufReader, Write};
    let run = TempRun::new("agents-fake-controller");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let at = listener.local_addr().unwrap().to_string();
    let fake = std::thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut hello = String::new();
        r.read_line(&mut hello).unwrap();
        let proto: serde_json::Value = serde_json::from_str(&hello).unwrap();
        let reply = serde_json::json!({"type": "hello", "protocol": proto["protocol"], "version": "x",
            "nonce": "AAAA", "proof": "bm90IHRoZSB0b2tlbg=="});
        (&s).write_all(format!("{reply}\n").as_bytes()).unwrap();
        let mut rest = String::new();
        let _ = r.read_line(&mut rest);
        hello + &rest
    });
    let token_file = run.write("t.token", "the-agents-secret\n");
    let out = Stampede::new()
        .args(["agent", "--join", &at, "--token-file"])
        .arg(&token_file)
        .arg("--work-dir")
        .arg(run.root().join("work"))
        .timeout(Duration::from_secs(30))
        .run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("wrong token"), "{}", out.stderr_str());
    let said = fake.join().unwrap();
    assert!(said.contains("\"refused\""), "{said}");
    assert!(!said.contains("the-agents-secret"), "the token crossed the wire: {said}");
}

/// With a certificate, agents speak TLS: a controller trusting it runs the plan; one that does
/// not trust it, or speaks plain TCP, gets nowhere, and nothing is sent.
#[test]
fn agents_speak_tls_when_given_a_certificate() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("agents-tls");
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let cert_file = run.write("agent.pem", cert.cert.pem());
    let key_file = run.write("agent.key", cert.signing_key.serialize_pem());
    let other = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let other_file = run.write("other.pem", other.cert.pem());
    let tls: [&std::ffi::OsStr; 4] =
        ["--tls-cert".as_ref(), cert_file.as_os_str(), "--tls-key".as_ref(), key_file.as_os_str()];
    let agents: Vec<_> = (0..2).map(|i| agent_with(&run, &format!("a{i}"), "t", &tls)).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let plan = plan_dir(&run, &server, 3, "iterations: 2");
    let token = run.write("token", "t\n");
    let go = |ca: Option<&std::path::Path>, out: &str| {
        let mut cmd = Stampede::new()
            .arg("run")
            .arg(&plan)
            .args(["-q", "--agents", &addrs.join(","), "--token-file"])
            .arg(&token);
        if let Some(ca) = ca {
            cmd = cmd.arg("--agent-ca").arg(ca);
        }
        cmd.arg("--out").arg(run.root().join(out)).run()
    };
    let untrusted = go(Some(&other_file), "untrusted");
    untrusted.assert_exit(2);
    assert!(untrusted.stderr_str().contains("TLS"), "{}", untrusted.stderr_str());
    go(None, "plain").assert_exit(2);
    assert_eq!(server.requests(), 0);
    go(Some(&cert_file), "trusted").assert_exit(0);
    assert_eq!(server.requests(), 6);
}

/// Issue 31: connections that never say hello, however many and however often re-opened, do
/// not keep out a controller that proves the token: it runs its plan through the agent at once,
/// and the run is what the server served.
#[test]
fn issue31_idle_connections_do_not_keep_a_controller_with_the_token_out() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("agents-idle");
    let (_a, addr) = agent(&run, "a", "t");
    // More than an agent keeps from one address (32), so that they take each other's places.
    let idle: Vec<std::net::TcpStream> = (0..40).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect();
    // More, opened all along (each new one taking the place of the oldest), until the run ends.
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let flood = std::thread::spawn({
        let (stop, addr) = (stop.clone(), addr.clone());
        move || {
            let (t0, mut held, mut opened) = (Instant::now(), std::collections::VecDeque::new(), 0);
            while !stop.load(Ordering::SeqCst) && t0.elapsed() < Duration::from_secs(40) {
                if let Ok(s) = std::net::TcpStream::connect(&addr) {
                    opened += 1;
                    held.push_back(s);
                    if held.len() > 40 {
                        held.pop_front();
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            opened
        }
    });
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    let out = controller(&run, &server, &[&addr], 2, "iterations: 5", &[]).wait(Duration::from_secs(40));
    let took = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    let opened = flood.join().unwrap();
    drop(idle);
    out.assert_exit(0);
    assert!(opened > 100, "the idle connections were re-opened: {opened}");
    assert!(took < Duration::from_secs(15), "the controller waited {took:?}");
    assert_eq!(server.requests(), 10);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

/// Issue 31: a controller stopped for longer than the silence bound (SIGSTOP, a suspended
/// machine) loses nothing: its agents go on with their load meanwhile, it reads what waited in
/// its sockets when it resumes before it judges any agent, and the run is whole: every part
/// completed, exit 0, exactly what the server served.
#[test]
fn issue31_a_controller_stopped_for_seconds_loses_nothing_and_its_agents_go_on() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("agents-sigstop");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), "t")).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let mut ctl = controller(&run, &server, &addrs, 4, "duration: 16s", &[]);
    assert!(ctl.wait_until(Duration::from_secs(20), |_| server.requests() > 100), "the load did not start");
    ctl.signal(libc::SIGSTOP);
    let at_stop = server.requests();
    std::thread::sleep(Duration::from_secs(8));
    let at_cont = server.requests();
    ctl.signal(libc::SIGCONT);
    let out = ctl.wait(Duration::from_secs(60));
    out.assert_exit(0);
    assert!(!out.stderr_str().contains("lost"), "{}", out.stderr_str());
    // The agents did not stop their load for a controller that was only stopped.
    let before = server.requests();
    std::thread::sleep(Duration::from_millis(300));
    assert!(at_cont - at_stop > 500, "{} requests in the 8 s the controller was stopped", at_cont - at_stop);
    assert_eq!(uint(&run.total(), "samples"), before);
    assert_eq!(server.requests(), before, "the load went on after the run");
    let meta = run.meta();
    assert_eq!(meta["status"], "completed", "{meta:#}");
    let parts = meta["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{meta:#}");
    for p in parts {
        assert_eq!(p["status"], "completed", "{meta:#}");
    }
}

/// A controller by hand, for what `run --agents` never does: greets the agent at `addr` with
/// `token` (the protocol version read from the agent's banner `agent`) and returns the
/// connection.
fn raw_controller(
    agent: &Running,
    addr: &str,
    token: &str,
) -> (std::io::BufReader<std::net::TcpStream>, std::net::TcpStream) {
    use base64::Engine as _;
    use std::io::Write as _;
    let banner = agent.stdout_so_far();
    let protocol: u32 = banner
        .split_once("(protocol ")
        .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no protocol in {banner}"));
    let s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut r = std::io::BufReader::new(s.try_clone().unwrap());
    let mut w = s;
    let hello = serde_json::json!({"type": "hello", "protocol": protocol, "version": "test", "nonce": "AAAA"});
    w.write_all(format!("{hello}\n").as_bytes()).unwrap();
    let theirs = next_raw(&mut r);
    assert_eq!(theirs["type"], "hello", "{theirs}");
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, token.as_bytes());
    let nonce = theirs["nonce"].as_str().unwrap();
    let tag = ring::hmac::sign(&key, format!("stampede {protocol} dialer {nonce}").as_bytes());
    let proof = serde_json::json!({"type": "proof", "proof": base64::engine::general_purpose::STANDARD.encode(tag)});
    w.write_all(format!("{proof}\n").as_bytes()).unwrap();
    let welcome = next_raw(&mut r);
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    (r, w)
}

/// The next message from the agent other than a ping.
fn next_raw(r: &mut std::io::BufReader<std::net::TcpStream>) -> serde_json::Value {
    use std::io::BufRead as _;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        let m: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        if m["type"] != "ping" {
            return m;
        }
    }
}

/// A job of `files` (path, contents) whose plan is `plan.yaml`, as part 1/1.
fn raw_job(files: &[(&str, &str)]) -> String {
    use base64::Engine as _;
    let files: Vec<serde_json::Value> = files
        .iter()
        .map(|(p, t)| serde_json::json!({"path": p, "base64": base64::engine::general_purpose::STANDARD.encode(t)}))
        .collect();
    let job = serde_json::json!({"type": "job", "plan": "plan.yaml", "files": files, "properties": [],
        "replacements": [], "skip_unsupported": false, "users": null, "duration_ms": null, "iterations": null,
        "ramp_up_ms": null, "segment": "1/1", "data_split": false});
    format!("{job}\n")
}

/// Issue 31: an agent keeps none of a job's files (a plan, a CSV of passwords) when the plan
/// does not load on it, nor when its controller leaves before the start.
#[test]
fn issue31_an_agent_keeps_no_job_files_when_the_plan_fails_or_the_controller_leaves_early() {
    use std::io::Write as _;
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("agents-job-files");
    let (mut a, addr) = agent(&run, "a", "t");
    let work = run.root().join("a-work");
    let left = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&work).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default()
    };
    let logins = ("logins.csv", "user,password\nalice,hunter2\n");
    // A plan that does not load.
    let (mut r, mut w) = raw_controller(&a, &addr, "t");
    w.write_all(raw_job(&[("plan.yaml", "scenarios: [ {oops"), logins]).as_bytes()).unwrap();
    let reply = next_raw(&mut r);
    assert_eq!(reply["type"], "failed", "{reply}");
    assert!(a.wait_until(Duration::from_secs(5), |_| left().is_empty()), "kept after a failed load: {:?}", left());
    drop((r, w));
    // A plan that loads, and a controller that leaves once the agent is ready.
    let plan = format!(
        "name: p\ndata:\n  - file: logins.csv\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: 1}}\n    flow:\n      - request: {{url: \"{}\"}}\n",
        server.url("/${user}")
    );
    let (mut r, mut w) = raw_controller(&a, &addr, "t");
    w.write_all(raw_job(&[("plan.yaml", &plan), logins]).as_bytes()).unwrap();
    let reply = next_raw(&mut r);
    assert_eq!(reply["type"], "ready", "{reply}");
    assert!(!left().is_empty(), "the job's files are written while it waits for the start");
    drop((r, w));
    assert!(
        a.wait_until(Duration::from_secs(5), |_| left().is_empty()),
        "kept after the controller left: {:?}",
        left()
    );
    assert_eq!(server.requests(), 0);
}
