//! A JMX plan's setUp Thread Group runs once for a run on 3 agents (the server sees 1 login) and
//! its properties reach every agent's main load; its tearDown Thread Group runs once, after every
//! agent's; a plan without setUp waits for nothing; Ctrl-C, a stop condition or the first agent
//! lost during setup stops every agent; with `--data split` a setUp group prepares every row the
//! agents use.

use crate::util::jmx::{esc, header_manager, http, http_defaults, regex_extractor, test_plan, thread_group};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Running, Stampede, TempRun};
use std::time::Duration;

/// Three agents on loopback with the token `t`, and the token file.
fn three_agents(run: &TempRun) -> (Vec<Running>, Vec<String>, std::path::PathBuf) {
    let token = run.write("token", "t\n");
    let (agents, addrs) = (0..3).map(|i| start_agent(run, &format!("a{i}"), &token, &[])).unzip();
    (agents, addrs, token)
}

/// Runs `plan` on 3 agents (`-q --out`), which must exit 0.
fn run_on_three(run: &TempRun, plan: &str) {
    run_on_three_with(run, plan, &[]);
}

/// Runs `plan` on 3 agents (`-q --out` and `extra`), which must exit 0; its stderr.
fn run_on_three_with(run: &TempRun, plan: &str, extra: &[&str]) -> String {
    let (_agents, addrs, token) = three_agents(run);
    let plan = run.write("plan.jmx", plan);
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .args(extra)
        .arg("--out")
        .arg(run.path())
        .timeout(Duration::from_secs(90))
        .run();
    out.assert_exit(0);
    out.stderr_str()
}

/// A server whose `/login` answers a token; every request is recorded.
fn server() -> TestServer {
    TestServer::builder()
        .route("/login", Route::handler(|_| Reply::json("{\"token\":\"tk-42\"}")).record())
        .default_route(Route::ok().record())
        .record_all()
        .start()
}

/// A JSR223 PostProcessor running the Groovy `script`.
fn groovy_post(script: &str) -> String {
    format!(
        r#"<JSR223PostProcessor guiclass="TestBeanGUI" testclass="JSR223PostProcessor" testname="keep" enabled="true"><stringProp name="scriptLanguage">groovy</stringProp><stringProp name="cacheKey">true</stringProp><stringProp name="script">{}</stringProp></JSR223PostProcessor><hashTree/>"#,
        esc(script)
    )
}

/// The main thread group: 3 users (one per agent) started over `ramp` seconds, 4 passes each,
/// sending the token setup set as a header and the tag as a query.
fn main_group(port: &str, ramp: u32) -> String {
    let auth = header_manager("auth", &[("Authorization", "Bearer ${__P(token)}")]);
    let api = http("api", "127.0.0.1", port, "/api?tag=${__P(tag,none)}", "GET", &auth);
    thread_group("ThreadGroup", "main", "3", "4", "", &api).replace(
        "<stringProp name=\"ThreadGroup.ramp_time\">0</stringProp>",
        &format!("<stringProp name=\"ThreadGroup.ramp_time\">{ramp}</stringProp>"),
    )
}

/// A tearDown group: two users, one pass each, logging out with the token. Split among agents,
/// they would run on two of them, each at the end of its own main load.
fn teardown_group(port: &str) -> String {
    let auth = header_manager("auth", &[("Authorization", "Bearer ${__P(token,no-token)}")]);
    let logout = http("logout", "127.0.0.1", port, "/logout", "GET", &auth);
    thread_group("PostThreadGroup", "teardown", "2", "1", "", &logout)
}

/// Whether every `/logout` came after every `/api`.
fn logouts_last(server: &TestServer) -> bool {
    let paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    let last_api = paths.iter().rposition(|p| p == "/api");
    let first_logout = paths.iter().position(|p| p == "/logout");
    matches!((last_api, first_logout), (Some(a), Some(l)) if a < l)
}

#[test]
fn a_setup_group_logs_in_once_and_hands_its_token_to_every_agent() {
    let server = server();
    let run = TempRun::new("setup-once");
    let port = server.addr().port().to_string();
    // The login's token kept by a script (`props.put`) and a tag by `__setProperty`, in a request
    // of its own after the login.
    let keep = regex_extractor("tok", "tok", "false", "\"token\":\"([^\"]+)\"", "$1$", "")
        + &groovy_post("props.put('token', vars.get('tok'))");
    let login = http("login", "127.0.0.1", &port, "/login", "POST", &keep);
    let tag = http("tag", "127.0.0.1", &port, "/tagged${__setProperty(tag,${tok}-tag,)}", "GET", "");
    let setup = thread_group("SetupThreadGroup", "setup", "1", "1", "", &(login + &tag));
    let plan = test_plan("setup-once", "", &(http_defaults("127.0.0.1", &port) + &setup + &main_group(&port, 0)));
    run_on_three(&run, &plan);
    assert_eq!(server.requests_to("/login"), 1, "one login for the whole run");
    assert_eq!(server.requests_to("/tagged"), 1);
    let api = server.recorded("/api");
    assert_eq!(api.len(), 12);
    for r in &api {
        assert_eq!(r.header("authorization"), Some("Bearer tk-42"), "{r:?}");
        assert_eq!(r.query("tag").as_deref(), Some("tk-42-tag"), "{r:?}");
    }
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(uint(&run.total(), "errors"), 0);
    // Every agent ran its share of the main load (one user each).
    let meta = run.meta();
    let parts = meta["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{meta:#}");
    let api_of = |p: &serde_json::Value| {
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(run.path().join(p["dir"].as_str().unwrap()).join("summary.json")).unwrap(),
        )
        .unwrap();
        uint(&crate::util::stampede::label(&s, "api"), "samples")
    };
    assert_eq!(parts.iter().map(api_of).collect::<Vec<_>>(), vec![4, 4, 4], "{meta:#}");
}

#[test]
fn a_teardown_group_runs_once_after_every_agent_s_main_load() {
    let server = server();
    let run = TempRun::new("teardown-once");
    let port = server.addr().port().to_string();
    let keep = regex_extractor("tok", "tok", "false", "\"token\":\"([^\"]+)\"", "$1$", "")
        + &groovy_post("props.put('token', vars.get('tok'))");
    let setup = thread_group(
        "SetupThreadGroup",
        "setup",
        "1",
        "1",
        "",
        &http("login", "127.0.0.1", &port, "/login", "POST", &keep),
    );
    // The main users start 0, 1 and 2 s apart (one per agent): the first agent's ends first.
    let body = setup + &main_group(&port, 3) + &teardown_group(&port);
    run_on_three(&run, &test_plan("teardown-once", "", &body));
    let logout = server.recorded("/logout");
    assert_eq!(logout.len(), 2, "the tearDown group's 2 users, once for the whole run");
    assert!(logout.iter().all(|r| r.header("authorization") == Some("Bearer tk-42")), "{logout:?}");
    assert!(logouts_last(&server), "a logout before the end of the main load");
    assert_eq!(server.requests_to("/api"), 12);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

#[test]
fn a_plan_without_a_setup_group_runs_its_main_load_on_every_agent_at_once() {
    let server = server();
    let run = TempRun::new("no-setup");
    let port = server.addr().port().to_string();
    // No setUp group: nothing to wait for; a tearDown group still runs once.
    let started = std::time::Instant::now();
    run_on_three(&run, &test_plan("no-setup", "", &(main_group(&port, 3) + &teardown_group(&port))));
    let api = server.recorded("/api");
    assert_eq!(api.len(), 12);
    // `__P(token)` unset, as in a local run: `1`.
    assert!(api.iter().all(|r| r.header("authorization") == Some("Bearer 1")), "{api:?}");
    let logout = server.recorded("/logout");
    assert_eq!(logout.len(), 2);
    assert!(logout.iter().all(|r| r.header("authorization") == Some("Bearer no-token")), "{logout:?}");
    assert!(logouts_last(&server), "a logout before the end of the main load");
    // Nothing waited on: the ramp-up, the start and little more.
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

/// A server whose `/setup` takes 100 ms; a plan whose setUp group is 100 of them (10 s) before
/// the main group; the controller on 3 agents with `extra` arguments, started, once `setups` of
/// the setup's requests were served; the agents, their addresses, the server.
fn in_setup(run: &TempRun, extra: &[&str], setups: u64) -> (Running, Vec<Running>, Vec<String>, TestServer) {
    let server = TestServer::builder()
        .route("/setup", Route::ok().delay(Duration::from_millis(100)))
        .default_route(Route::ok())
        .start();
    let port = server.addr().port().to_string();
    let (agents, addrs, token) = three_agents(run);
    let s = http("s", "127.0.0.1", &port, "/setup", "GET", "");
    let setup = thread_group("SetupThreadGroup", "setup", "1", "100", "", &s);
    let plan = run.write("plan.jmx", test_plan("in-setup", "", &(setup + &main_group(&port, 0))));
    let controller = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--agents", &addrs.join(","), "--token-file"])
        .arg(&token)
        .args(extra)
        .arg("--out")
        .arg(run.path())
        .spawn();
    assert!(server.wait_until(Duration::from_secs(30), |s| s.requests_to("/setup") >= setups));
    (controller, agents, addrs, server)
}

#[test]
fn ctrl_c_during_setup_stops_every_agent_without_a_main_load() {
    let run = TempRun::new("setup-ctrl-c");
    let (controller, _agents, _addrs, server) = in_setup(&run, &[], 20);
    let interrupted = std::time::Instant::now();
    controller.interrupt();
    let out = controller.wait(Duration::from_secs(60));
    assert!(interrupted.elapsed() < Duration::from_secs(10), "{:?}", interrupted.elapsed());
    out.assert_exit(130);
    assert_eq!(server.requests_to("/api"), 0);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

#[test]
fn a_stop_condition_holding_during_setup_stops_every_agent_without_a_main_load() {
    let run = TempRun::new("setup-stop-on");
    let (controller, _agents, _addrs, server) = in_setup(&run, &["--stop-on", "samples > 5"], 0);
    let out = controller.wait(Duration::from_secs(60));
    out.assert_exit(1);
    assert_eq!(server.requests_to("/api"), 0);
    assert!(server.requests_to("/setup") < 100, "the setup ran to its end");
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

#[test]
fn the_first_agent_lost_during_setup_stops_every_agent_and_the_run_says_why() {
    let run = TempRun::new("setup-lost");
    // Killed after 2 s of its setup: it has sent seconds of it.
    let (controller, agents, addrs, server) = in_setup(&run, &[], 20);
    let killed = std::time::Instant::now();
    agents[0].signal(libc::SIGKILL);
    let out = controller.wait(Duration::from_secs(60));
    // Heard within the silence bound, and every other agent stopped at once: no main load.
    assert!(killed.elapsed() < Duration::from_secs(20), "{:?}", killed.elapsed());
    out.assert_exit(3);
    let stderr = out.stderr_str();
    assert!(stderr.contains(&format!("agent {} was lost", addrs[0])), "{stderr}");
    assert!(stderr.contains("before the plan's setup"), "{stderr}");
    assert_eq!(server.requests_to("/api"), 0);
    // What the killed agent sent is counted; never more than was served.
    assert!(uint(&run.total(), "samples") <= server.requests());
    assert!(uint(&run.total(), "samples") > 0);
}

/// A CSV Data Set reading `rows.csv` (beside the plan) into `row`, recycled, shared by all.
fn rows_csv() -> String {
    crate::util::jmx::element(
        "CSVDataSet",
        "rows",
        &[
            ("filename", "rows.csv"),
            ("variableNames", "row"),
            ("recycle", "true"),
            ("stopThread", "false"),
            ("shareMode", "shareMode.all"),
        ],
        "",
    )
}

#[test]
fn with_data_split_a_setup_group_reading_the_data_file_prepares_every_row_the_agents_use() {
    let server = TestServer::builder().default_route(Route::ok().record()).record_all().start();
    let run = TempRun::new("setup-split");
    let port = server.addr().port().to_string();
    let rows: Vec<String> = (0..9).map(|i| format!("r{i}")).collect();
    run.write("rows.csv", &(rows.join("\n") + "\n"));
    // 3 users, 3 passes each, in both groups: split among 3 agents, one user each, reading its
    // own 3 rows. Run once on the first agent, setUp would prepare only that agent's rows.
    let prep = http("prep", "127.0.0.1", &port, "/prep/${row}", "GET", "");
    let setup = thread_group("SetupThreadGroup", "setup", "3", "3", "", &(rows_csv() + &prep));
    let use_ = http("use", "127.0.0.1", &port, "/use/${row}", "GET", "");
    let main = thread_group("ThreadGroup", "main", "3", "3", "", &(rows_csv() + &use_));
    let plan = test_plan("setup-split", "", &(setup + &main));
    let stderr = run_on_three_with(&run, &plan, &["--data", "split"]);
    let rows_of = |prefix: &str| {
        let mut r: Vec<String> =
            server.recorded_all().iter().filter_map(|r| r.path().strip_prefix(prefix).map(str::to_string)).collect();
        r.sort();
        r
    };
    let (prepared, used) = (rows_of("/prep/"), rows_of("/use/"));
    assert_eq!(prepared, rows, "each agent's setUp prepares its own rows, each once");
    assert_eq!(used.len(), 9, "{used:?}");
    assert!(used.iter().all(|r| prepared.contains(r)), "a row used but never prepared: {used:?} {prepared:?}");
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert!(stderr.contains("setUp reads data files split across agents"), "{stderr}");
}
