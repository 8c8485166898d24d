//! Tests that each pin one past bug, by issue: #13 (connections kept per user without end, cached
//! and unsent requests in endless loops, a Dummy Sampler's huge figures), #32 (a Synchronizing
//! Timer that hung CI, scripts reading past an extractor's kept matches, JSR223's first rendering
//! listed in `vars`), #33 (`--replace` twice on agents, goals after every agent ended, a results
//! file refused before agents, `scripts.log` of a replaced run).

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_assertions::DEFAULTS;
use crate::jmx_extractors::{get_unset as get, headers, regex_unset as regex, run_plan_unset as run_plan};
use crate::jmx_http::{assert_samples, cache_manager, cache_server, get as get_http, run_jmx};
use crate::jmx_http_bodies::script;
use crate::jmx_samplers::dummy;
use crate::jmx_timers::{assert_served_are_samples, run_batches_of_3, server_noting_sync};
use crate::util::jmx::{element, esc, http, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Running, Stampede, TempRun};
use std::time::Duration;

// Issue 13 (its review): figures that panicked, connections kept without end, loops that never
// let a run end.

/// Review of #13: a Dummy Sampler's response time, latency and connect time are the plan's
/// text; figures past what a duration holds panicked the user (the run lost its samples).
#[test]
fn a_dummy_sampler_s_huge_figures_do_not_panic() {
    let run = TempRun::new("jmx-dummy-huge");
    let huge = "18446744073709551615";
    let d = dummy("huge", true, "200", "x", 1, false, "")
        .replace(
            r#"<stringProp name="RESPONSE_TIME">1</stringProp>"#,
            &format!(r#"<stringProp name="RESPONSE_TIME">{huge}</stringProp>"#),
        )
        .replace(
            r#"<stringProp name="LATENCY">0</stringProp>"#,
            &format!(r#"<stringProp name="LATENCY">{huge}</stringProp>"#),
        )
        .replace(
            r#"<stringProp name="CONNECT">0</stringProp>"#,
            r#"<stringProp name="CONNECT">18446744073709551</stringProp>"#,
        );
    let p = run.write("plan.jmx", jmx_plan(2, "3", &d));
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let row = run.label("huge");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{row:#}");
}

/// Review of #13: a user kept a connection to every host it ever met, without end (a plan
/// reading hosts from a data file ran out of sockets). It keeps the 20 it used last: a user
/// going round 22 hosts twice opens a new connection for each request.
#[test]
fn a_user_keeps_at_most_twenty_connections() {
    let servers: Vec<TestServer> = (0..22).map(|_| TestServer::builder().default_route(Route::ok()).start()).collect();
    let body: String = servers.iter().enumerate().map(|(i, s)| get_http(&format!("h{i}"), &s.url("/"), true)).collect();
    let run = run_jmx("jmx-http-many-hosts", jmx_plan(1, "2", &body), servers[0].addr().port());
    for (i, s) in servers.iter().enumerate() {
        assert_eq!((s.requests(), s.connections()), (2, 2), "host {i}");
    }
    assert_eq!(uint(&run.summary()["total"], "samples"), 44);
}

/// A thread group of 8 users running `sampler` in an endless Loop Controller for one second.
fn endless_loop_plan(sampler: String) -> String {
    let body = [
        DEFAULTS.to_string(),
        cache_manager(false, true),
        r#"<LoopController guiclass="LoopControlPanel" testclass="LoopController" testname="forever" enabled="true">
          <boolProp name="LoopController.continue_forever">true</boolProp>
          <stringProp name="LoopController.loops">-1</stringProp>
        </LoopController>"#
            .to_string(),
        format!("<hashTree>{sampler}</hashTree>"),
    ]
    .concat();
    // More users than worker threads, for one second.
    jmx_plan(8, "-1", &body).replace(
        r#"<boolProp name="ThreadGroup.scheduler">false</boolProp>"#,
        r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">1</stringProp>"#,
    )
}

/// Runs `plan` against `port`, killed (and failed) if it has not ended in 20 s.
fn run_bounded(name: &str, plan: String, port: u16) -> TempRun {
    let run = TempRun::new(name);
    let p = run.write("plan.jmx", plan);
    let port = format!("port={port}");
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "-J", &port, "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(20))
        .run()
        .assert_exit(0);
    run
}

/// Review of #13: a response the cache has sends nothing and waits for nothing. Users in a
/// Loop Controller of fresh hits never handed their worker thread back, so the run's timer
/// never fired and it ran until killed.
#[test]
fn fresh_hits_in_an_endless_loop_still_let_the_run_end() {
    let server = cache_server();
    let plan = endless_loop_plan(sampler("fresh", "GET", "/fresh", "", false, ""));
    let run = run_bounded("jmx-http-cache-spin", plan, server.addr().port());
    // One request per user; the rest were fresh, and no samples.
    assert_eq!(server.requests_to("/fresh"), 8);
    assert_samples(&run, "fresh", 8, 0);
}

/// The same with a request that fails before it is sent (a method JMeter does not know):
/// each is a failed sample, and none waits.
#[test]
fn unsent_requests_in_an_endless_loop_still_let_the_run_end() {
    let server = cache_server();
    let plan = endless_loop_plan(sampler("bad", "NOT A METHOD", "/fresh", "", false, ""));
    let run = run_bounded("jmx-http-unsent-spin", plan, server.addr().port());
    assert_eq!(server.requests(), 0);
    let row = run.label("bad");
    assert!(uint(&row, "samples") > 0 && uint(&row, "samples") == uint(&row, "errors"), "{row:#}");
}

// Issue 32: JSR223's first rendering listed in `vars`, a Synchronizing Timer that hung CI, an
// extractor's removed matches a script still read.

/// 20 users (more than the 16 renderings shared by all users), two iterations each: each sends
/// its first rendering both times, and a script iterating `vars.entrySet()` after the cached
/// one finds no variable holding its text (there was one, `JSR223 script text of ...`).
#[test]
fn twenty_users_keep_their_first_jsr223_rendering_and_vars_do_not_list_it() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("jsr223-first");
    let counter = element(
        "CounterConfig",
        "n",
        &[("CounterConfig.start", "1"), ("CounterConfig.incr", "1"), ("CounterConfig.name", "n")],
        "",
    )
    .replace("</CounterConfig>", "<boolProp name=\"CounterConfig.per_user\">true</boolProp></CounterConfig>");
    let cached = esc(r#"vars.put("seen", "${__threadNum}-${n}")"#);
    let list = esc(r#"def names = []
for (e in vars.entrySet()) { names.add(e.key) }
vars.put("hidden", "" + names.findAll { it.contains("JSR223") || it.contains("script text") }.size())
vars.put("listed", "" + names.contains("seen"))"#);
    let pres = [
        script("JSR223PreProcessor", "cached", &[("cacheKey", "true"), ("script", &cached)]),
        script("JSR223PreProcessor", "list", &[("cacheKey", "true"), ("script", &list)]),
    ]
    .concat();
    let get = http(
        "first",
        "127.0.0.1",
        &port,
        "/first?seen=${seen}&amp;hidden=${hidden}&amp;listed=${listed}",
        "GET",
        &pres,
    );
    let body = [counter, get].concat();
    let file = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "20", "2", "", &body)));
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let recorded = server.recorded("/first");
    let field = |name: &str| {
        let mut v: Vec<String> = recorded.iter().filter_map(|r| r.query(name)).collect();
        v.sort();
        v
    };
    let mut want: Vec<String> = (1..=20).flat_map(|t| [format!("{t}-1"), format!("{t}-1")]).collect();
    want.sort();
    assert_eq!(field("seen"), want, "each user runs its first rendering on both iterations");
    assert_eq!(field("hidden"), vec!["0".to_string(); 40], "no variable holds a script's text");
    assert_eq!(field("listed"), vec!["true".to_string(); 40], "the script iterated the variables");
    assert_eq!(server.requests(), 40);
}

/// The plan that hung CI: 6 users of 4 iterations, batches of 3, no timeout. Batches mix
/// iterations, so a quick user can pass the barrier twice while a slow one passes once, and
/// the last users may wait for a batch that only 2 users can still reach. JMeter 5.6.3 hangs
/// there (twice in 6 runs of such a plan, 21 and 22 of 24 requests past its barrier, until
/// killed); stampede ends those users, as JMeter's stop would: no request of theirs is sent
/// past the barrier, and the run ends. Every batch that went was full.
#[test]
fn users_that_lap_others_at_a_sync_timer_never_hang_the_run() {
    let (server, _) = server_noting_sync();
    let run = run_batches_of_3(&server, "jmx-sync-timer-lapping", 6, 4, 30, 20);
    let (spread, sync) = (server.requests_to("/spread"), server.requests_to("/sync"));
    assert!(sync % 3 == 0 && sync <= 24 && spread <= 24 && sync <= spread, "spread {spread}, sync {sync}");
    assert_served_are_samples(&server, &run);
}

/// A JSR223 PostProcessor running `script` (Groovy).
fn groovy_post(script: &str) -> String {
    format!(
        r#"<JSR223PostProcessor guiclass="TestBeanGUI" testclass="JSR223PostProcessor" testname="s" enabled="true">
            <stringProp name="scriptLanguage">groovy</stringProp>
            <stringProp name="script">{script}</stringProp>
          </JSR223PostProcessor><hashTree/>"#
    )
}

/// Review of #32: the `m_N` of a match -1 extractor that only a script reads are null beyond
/// `m_matchNr` (JMeter), so the everyday `while (vars.get("m_" + i) != null)` stops after the
/// last match, also once a later response with fewer matches removed the rest; a match of an
/// empty group is `""`. Response header lines reach an extractor as the server sent them.
#[test]
fn scripts_see_only_the_kept_matches_and_header_lines_as_sent_as_in_jmeter() {
    let server = TestServer::builder()
        .route("/a", Route::ok().body("id=1;id=2;id=;").header("X-A", "b  ").header("X-B", "  c"))
        .route("/b", Route::ok().body("id=7;"))
        .route("/echo", Route::ok().record())
        .start();
    let run = TempRun::new("jmx-unset-matches");
    let all = r#"<stringProp name="RegexExtractor.default">none</stringProp>"#;
    let all_matches = regex("m", "false", r"id=(\d*);", all).replace(
        r#"<stringProp name="RegexExtractor.match_number">1</stringProp>"#,
        r#"<stringProp name="RegexExtractor.match_number">-1</stringProp>"#,
    );
    let walk = |into: &str| {
        groovy_post(&format!(
            r#"String s = &quot;&quot;; int i = 1; while (vars.get(&quot;m_&quot; + i) != null) {{ s = s + &quot;[&quot; + vars.get(&quot;m_&quot; + i) + &quot;]&quot;; i = i + 1 }}; vars.put(&quot;{into}&quot;, s + &quot; m5=&quot; + vars.get(&quot;m_5&quot;))"#
        ))
    };
    let plan_body = [
        DEFAULTS.to_string(),
        get(
            "a",
            "/a",
            &[
                all_matches.clone(),
                walk("seen"),
                regex("xa", "true", "X-A:(.*)", ""),
                regex("xb", "true", "X-B:(.*)", ""),
            ]
            .concat(),
        ),
        get("b", "/b", &[all_matches, walk("seen2")].concat()),
        get(
            "echo",
            "/echo",
            &headers(&[("X-Seen", "${seen}"), ("X-Seen2", "${seen2}"), ("X-A", "[${xa}]"), ("X-B", "[${xb}]")]),
        ),
    ]
    .concat();
    run_plan(&run, &server, jmx_plan(2, "2", &plan_body));

    let echo = server.recorded("/echo");
    assert_eq!(echo.len(), 4);
    for r in &echo {
        assert_eq!(r.header("X-Seen"), Some("[1][2][] m5=null"));
        assert_eq!(r.header("X-Seen2"), Some("[7] m5=null"), "the matches /a left are removed");
        assert_eq!(r.header("X-A"), Some("[ b  ]"), "the header line as sent");
        assert_eq!(r.header("X-B"), Some("[   c]"), "the header line as sent");
    }
    for (label, path) in [("a", "/a"), ("b", "/b"), ("echo", "/echo")] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 4, "{label}: {row:#}");
        assert_eq!(uint(&row, "errors"), 0, "{label}: {row:#}");
        assert_eq!(server.requests_to(path), 4);
    }
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

// Issue 33 (review of the run layer on agents, and `scripts.log`).

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

/// A plan of 2 requests to `url` whose count logs `said` while it loads.
fn logging_plan(run: &TempRun, url: &str, said: &str) -> std::path::PathBuf {
    run.write(
        "plan.yaml",
        format!(
            "name: logs\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: \"${{__groovy(log.info('{said}'); 2)}}\"}}\n    flow:\n      - request: {{label: get, url: \"{url}\"}}\n"
        ),
    )
}

#[test]
fn a_replaced_run_leaves_scripts_log_with_only_the_new_run_s_lines() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("script-log-replace");
    let out_dir = run.path().join("out");
    for said in ["old-run-said", "new-run-said"] {
        let plan = logging_plan(&run, &server.url("/l"), said);
        Stampede::new().arg("run").arg(&plan).args(["-q", "--replace", "--out"]).arg(&out_dir).run().assert_exit(0);
    }
    assert_eq!(server.requests(), 4);
    let log = std::fs::read_to_string(out_dir.join("scripts.log")).unwrap();
    assert!(log.contains("new-run-said"), "{log}");
    assert!(!log.contains("old-run-said"), "the replaced run's lines stayed:\n{log}");
}
