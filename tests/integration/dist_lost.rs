//! An agent SIGKILLed mid-run among 3 (issue 33): the report (terminal, Markdown, JSON, HTML,
//! JUnit) names it, the instant and the estimate; the figures are at most what was served, the
//! others' parts exact per path; `merge` with its own run directory adds every second it wrote, and
//! only its last partial second stays missing.

use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{start_agent, total, uint, OutputExt, Stampede, TempRun};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", path.display()))
}

fn at(rfc3339: &str) -> SystemTime {
    OffsetDateTime::parse(rfc3339, &Rfc3339).unwrap_or_else(|e| panic!("{rfc3339}: {e}")).into()
}

/// The one run directory an agent kept under its work directory (`job-…/run`).
fn own_run(work: &Path) -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir(work)
        .unwrap()
        .map(|e| e.unwrap().path().join("run"))
        .filter(|p| p.join("meta.json").exists())
        .collect();
    assert_eq!(found.len(), 1, "{found:?} in {}", work.display());
    found.remove(0)
}

/// `report DIR --format F`'s standard output (it must exit 0).
fn report(dir: &Path, format: &str) -> String {
    let out = Stampede::new().args(["report", "--format", format]).arg(dir).run();
    out.assert_exit(0);
    out.stdout_str().to_string()
}

#[test]
fn an_agent_killed_mid_run_is_stated_with_its_instant_and_estimate_and_its_own_directory_reconciles_it() {
    // When the server answered each request of each path: what the killed agent's own run
    // directory holds is measured against it.
    let answered: Arc<Mutex<Vec<(String, SystemTime)>>> = Arc::default();
    let route = Route::handler({
        let answered = answered.clone();
        move |r| {
            answered.lock().unwrap().push((r.path().to_string(), SystemTime::now()));
            Reply::ok()
        }
    });
    let server = TestServer::builder().default_route(route.delay(Duration::from_millis(5))).start();
    let run = TempRun::new("lost-s4");
    let token = run.write("token", "t\n");
    let agents: Vec<_> = (0..3).map(|i| start_agent(&run, &format!("a{i}"), &token, &[])).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    // Three rows dealt to three parts: part i sends every request to /n/n{i}.
    let dir = run.root().join("plan");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("names.csv"), "name\nn1\nn2\nn3\n").unwrap();
    let plan = dir.join("plan.yaml");
    std::fs::write(
        &plan,
        format!(
            "name: lost\ndata:\n  - file: names.csv\n    on_eof: recycle\nscenarios:\n  - name: s\n    workload: {{users: 6, duration: 12s}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n",
            server.url("/n/${name}")
        ),
    )
    .unwrap();
    // Not quiet: the progress line is checked.
    let controller = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--data", "split", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .arg("--out")
        .arg(run.path())
        .spawn();
    let t0 = Instant::now();
    while server.requests_to("/n/n2") < 300 && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(2500));
    let killed_at = SystemTime::now();
    agents[1].0.signal(libc::SIGKILL);
    let out = controller.wait(Duration::from_secs(60));
    // A lost agent leaves the results incomplete: exit 3, as before.
    out.assert_exit(3);
    let stderr = out.stderr_str();
    assert!(stderr.contains("· 3 agents") && stderr.contains("· 2 of 3 agents"), "{stderr}");
    let stdout = out.stdout_str();
    assert!(stdout.contains("WARNING: This run lost an agent: its figures are SHORT"), "{stdout}");
    assert!(stdout.contains(&format!("Agent 2/3 ({}, agents/2-", addrs[1])), "{stdout}");

    // The witness, per part.
    let served = |path: &str| server.requests_to(path);
    let meta = run.meta();
    let parts = meta["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{meta:#}");
    let part = |i: usize| uint(&parts[i], "samples");
    // The parts that finished are exact, path by path.
    assert_eq!(part(0), served("/n/n1"), "{meta:#}");
    assert_eq!(part(2), served("/n/n3"), "{meta:#}");

    // The record: the part, the agent, the instant (after the kill, as the controller heard of
    // it within the 5 s a silent agent gets), what it reported, the estimate.
    let lost = json(&run.path().join("lost.json"));
    assert_eq!(lost["version"], 1, "{lost:#}");
    let a = &lost["agents"][0];
    assert_eq!(lost["agents"].as_array().unwrap().len(), 1, "{lost:#}");
    assert_eq!((a["part"].as_str(), a["agent"].as_str()), (Some("2/3"), Some(addrs[1])), "{lost:#}");
    let lost_at = at(a["lost_at"].as_str().unwrap());
    let after_kill = lost_at.duration_since(killed_at).unwrap_or_else(|e| panic!("lost before the kill by {e:?}"));
    assert!(after_kill < Duration::from_secs(5), "{after_kill:?}");
    let reported = uint(a, "reported_samples");
    assert_eq!(reported, part(1), "{lost:#}");
    let until_lost = uint(&a["estimate"], "until_lost");
    let until_end = uint(&a["estimate"], "until_run_end");
    assert!(until_lost <= until_end && a["rate_rps"].as_f64().unwrap() > 0.0, "{lost:#}");

    // What the figures guarantee: never more than was served; short by the killed part's
    // requests after its last reported interval, which the estimate puts a number on.
    let merged = uint(&run.total(), "samples");
    assert_eq!(merged, part(0) + part(1) + part(2));
    let unreported = served("/n/n2") - reported;
    assert!(reported <= served("/n/n2") && merged <= server.requests());
    // The estimate assumes its last seconds' rate went on until the loss: against a server of a
    // fixed delay that holds within a factor of 2, give or take half a second of its requests
    // (the kill falls anywhere in a second, and the controller hears of it a moment later) and
    // its users' requests in flight. An estimate to the run's end, or from the run's start,
    // would be several times off.
    let slack = (a["rate_rps"].as_f64().unwrap() * 0.5) as u64 + 6;
    assert!(
        unreported <= 2 * until_lost + slack && until_lost <= 2 * unreported + slack,
        "unreported {unreported}, estimated {until_lost} (to the run's end {until_end}): {lost:#}"
    );

    // Every report says it, near the top.
    let md = report(run.path(), "md");
    let head: String = md.lines().take(8).collect::<Vec<_>>().join("\n");
    assert!(head.contains("This run lost an agent") && head.contains(&format!("Agent 2/3 ({}", addrs[1])), "{md}");
    assert!(head.contains(&format!("{:.1} s into the run", a["lost_at_s"].as_f64().unwrap())), "{md}");
    let thousands = |n: u64| {
        let d = n.to_string();
        d.chars().enumerate().fold(String::new(), |mut s, (k, c)| {
            if k > 0 && (d.len() - k) % 3 == 0 {
                s.push(',');
            }
            s.push(c);
            s
        })
    };
    assert!(head.contains(&format!("an estimated {} if it stopped when it was lost", thousands(until_lost))), "{md}");
    let js: Value = serde_json::from_str(&report(run.path(), "json")).unwrap();
    assert_eq!(js["lost"]["agents"][0]["part"], "2/3", "{js:#}");
    assert_eq!(js["lost"]["agents"][0]["lost_at"], a["lost_at"], "{js:#}");
    assert_eq!(js["lost"]["agents"][0]["estimate"], a["estimate"], "{js:#}");
    assert!(js["lost"]["notes"][0].as_str().unwrap().contains("NOT in these figures"), "{js:#}");
    let html = std::fs::read_to_string(run.path().join("report.html")).unwrap();
    let section = html.find("<section id=\"lost\"").expect("the HTML states the loss");
    assert!(section < html.find("<section id=\"facts\"").unwrap(), "the loss comes before the facts");
    let junit = report(run.path(), "junit");
    assert!(junit.contains("<property name=\"lost_agent\" value=\"Agent 2/3"), "{junit}");

    // The killed agent's own run directory: every interval it wrote before it died, each
    // flushed as its second ended (the controller's copy is what reached it, a prefix of them),
    // and nothing of the second it died in.
    let own = own_run(&run.root().join("a1-work"));
    let own_samples = uint(&total(&serde_json::from_str(&report(&own, "json")).unwrap()), "samples");
    assert!(reported <= own_samples && own_samples <= served("/n/n2"), "{reported} {own_samples}");
    let text = std::fs::read_to_string(own.join("intervals.jsonl")).unwrap();
    // A line the kill cut short is not one it wrote.
    let last: Value = text.lines().rev().find_map(|l| serde_json::from_str(l).ok()).unwrap();
    let own_start = at(json(&own.join("meta.json"))["started_at"].as_str().unwrap());
    let written_to = own_start + Duration::from_micros(uint(&last, "end_us"));
    // Exactly the requests answered before the end of its last second on disk, but for those
    // answered within a moment of that edge (the sample is taken when the answer is read, on a
    // machine that may be busy).
    let edge = Duration::from_millis(500);
    let answered_before =
        |t: SystemTime| answered.lock().unwrap().iter().filter(|(p, when)| p == "/n/n2" && *when < t).count() as u64;
    assert!(
        answered_before(written_to - edge) <= own_samples && own_samples <= answered_before(written_to + edge),
        "{} <= {own_samples} <= {}",
        answered_before(written_to - edge),
        answered_before(written_to + edge)
    );

    // `merge` of the run with that directory: the part's figures are the agent's own, and the
    // loss note says how far they are exact.
    let again = run.root().join("reconciled");
    let merged_out = Stampede::new().arg("merge").arg(run.path()).arg(&own).arg("--out").arg(&again).run();
    merged_out.assert_exit(0);
    let s = json(&again.join("summary.json"));
    assert_eq!(uint(&total(&s), "samples"), served("/n/n1") + own_samples + served("/n/n3"));
    let l2 = json(&again.join("lost.json"));
    let r = &l2["agents"][0]["reconciled"];
    assert_eq!(r["dir"].as_str(), Some(own.to_str().unwrap()), "{l2:#}");
    assert_eq!(
        (uint(r, "samples"), uint(r, "added"), r["complete"].as_bool()),
        (own_samples, own_samples - reported, Some(false))
    );
    let md = report(&again, "md");
    assert!(md.contains("Reconciled with its own run directory") && md.contains("It did not finish"), "{md}");
}
