//! Elements that coordinate threads or stop the test (issue 13 C), as the witness receives
//! them: the jp@gc Inter-Thread Communication queues handing values from one thread group to
//! another, the jp@gc AutoStop Listener ending the run within its window, the Module
//! Controller running its target, `__setProperty` read by other threads.

use crate::jmx::{arg, plan_with_defaults, sampler, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

fn fifo_pop(queue: &str, var: &str, timeout: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.modifiers.FifoPopPreProcessor guiclass="kg.apc.jmeter.modifiers.FifoPopPreProcessorGui" testclass="kg.apc.jmeter.modifiers.FifoPopPreProcessor" testname="pop" enabled="true">
          <stringProp name="Timeout">{timeout}</stringProp><stringProp name="Variable">{var}</stringProp><stringProp name="FifoName">{queue}</stringProp>
        </kg.apc.jmeter.modifiers.FifoPopPreProcessor><hashTree/>"#
    )
}

fn fifo_put(queue: &str, value: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.modifiers.FifoPutPostProcessor guiclass="kg.apc.jmeter.modifiers.FifoPutPostProcessorGui" testclass="kg.apc.jmeter.modifiers.FifoPutPostProcessor" testname="put" enabled="true">
          <stringProp name="Value">{value}</stringProp><stringProp name="FifoName">{queue}</stringProp>
        </kg.apc.jmeter.modifiers.FifoPutPostProcessor><hashTree/>"#
    )
}

fn run_plan(run: &TempRun, jmx: &str) -> Duration {
    let p = run.write("plan.jmx", jmx);
    let started = Instant::now();
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    started.elapsed()
}

/// One producer puts five values, five consumers in another thread group each take one (they
/// wait for it); a consumer of an empty queue waits its timeout and sends its variable unset
/// (`${late}`, encoded: raw braces make java.net.URI refuse the URL), as the plugin stores null; `__fifoPut` and `__fifoPop` hand a value between two
/// more groups. Every request served is a sample.
#[test]
fn fifo_queues_hand_values_between_thread_groups() {
    let server = TestServer::builder().default_route(Route::ok().body("ok").record()).start();
    let run = TempRun::new("jmx-sync-fifo");
    let producer = sampler("make", "GET", "/make", "", false, &fifo_put("Q", "v${__counter(FALSE)}"));
    let consumer = sampler("use", "GET", "/use", &arg("got", "${got}", false), false, &fifo_pop("Q", "got", "20"));
    let late = sampler("late", "GET", "/late", &arg("got", "${late}", true), false, &fifo_pop("EMPTY", "late", "1"));
    let fn_put = sampler("fn-put", "GET", "/fnput", &arg("put", "${__fifoPut(Q2,hello)}", false), false, "");
    let fn_pop = sampler("fn-pop", "GET", "/fnpop", &arg("got", "${__fifoPop(Q2,popped)}", false), false, "");
    let groups = [
        thread_group("ThreadGroup", "consumers", 5, 1, &consumer),
        thread_group("ThreadGroup", "producer", 1, 5, &producer),
        thread_group("ThreadGroup", "late", 1, 1, &late),
        thread_group("ThreadGroup", "fn-pop", 1, 1, &fn_pop),
        thread_group("ThreadGroup", "fn-put", 1, 1, &fn_put),
    ]
    .concat();
    let took = run_plan(&run, &plan_with_defaults("Sync", server.addr().port(), &groups));
    let got = server.recorded_all();
    let values = |path: &str| -> Vec<String> {
        let mut v: Vec<String> =
            got.iter().filter(|r| r.path() == path).map(|r| r.query("got").unwrap_or_default()).collect();
        v.sort();
        v
    };
    assert_eq!(values("/use"), ["v1", "v2", "v3", "v4", "v5"]);
    assert_eq!(values("/late"), ["${late}"]);
    assert_eq!(values("/fnpop"), ["hello"]);
    assert!(took >= Duration::from_secs(1), "the late consumer waits its timeout: {took:?}");
    for (label, path, n) in [("make", "/make", 5), ("use", "/use", 5), ("late", "/late", 1), ("fn-pop", "/fnpop", 1)] {
        assert_eq!(server.requests_to(path), n, "{path}");
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
}

fn autostop(props: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.reporters.AutoStop guiclass="kg.apc.jmeter.reporters.AutoStopGui" testclass="kg.apc.jmeter.reporters.AutoStop" testname="jp@gc - AutoStop Listener" enabled="true">{props}</kg.apc.jmeter.reporters.AutoStop><hashTree/>"#
    )
}

/// A thread group of `threads` that loops for `secs` seconds (JMeter's scheduler).
fn timed_group(name: &str, threads: u32, secs: u32, body: &str) -> String {
    format!(
        r#"<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="{name}" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp><stringProp name="LoopController.loops">-1</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp><stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{secs}</stringProp>
      </ThreadGroup><hashTree>{body}</hashTree>"#
    )
}

/// The AutoStop Listener in a slow thread group stops a 30 s test once every second for 2 s
/// had an average response time above 100 ms among its samples (the fast group's are not in
/// its scope): the run ends within a few seconds, keeps what it recorded (samples == served),
/// and says why in meta.json, on the terminal and in the report. A second listener scoped to
/// the fast thread group never fires.
#[test]
fn autostop_stops_the_test_within_its_window() {
    let server = TestServer::builder()
        .route("/slow", Route::ok().delay(Duration::from_millis(250)).record())
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-sync-autostop");
    let limits = r#"<stringProp name="avg_response_time">100</stringProp><stringProp name="avg_response_time_length">2</stringProp>
        <stringProp name="error_rate">0</stringProp><stringProp name="error_rate_length">0</stringProp>
        <stringProp name="avg_response_latency"></stringProp><stringProp name="avg_response_latency_length"></stringProp>"#;
    let fast_only = r#"<stringProp name="avg_response_time">100</stringProp><stringProp name="avg_response_time_length">1</stringProp>"#;
    let groups = [
        timed_group("slow", 2, 30, &(autostop(limits) + &sampler("slow", "GET", "/slow", "", false, ""))),
        timed_group("fast", 1, 30, &(autostop(fast_only) + &sampler("fast", "GET", "/fast", "", false, ""))),
    ]
    .concat();
    let p = run.write("plan.jmx", plan_with_defaults("AutoStop", server.addr().port(), &groups));
    let started = Instant::now();
    let out = Stampede::new().arg("run").arg(&p).arg("--out").arg(run.path()).run();
    out.assert_exit(0);
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(8), "{took:?}");
    let why = "jp@gc AutoStop Listener \"jp@gc - AutoStop Listener\": average response time more than 100 ms for 2 s";
    assert_eq!(run.meta()["stopped_by"], why);
    assert!(String::from_utf8_lossy(&out.stderr).contains(why) || String::from_utf8_lossy(&out.stdout).contains(why));
    for (label, path) in [("slow", "/slow"), ("fast", "/fast")] {
        assert_eq!(uint(&run.label(label), "samples"), server.requests_to(path), "{label}");
    }
    let report = Stampede::new().arg("report").arg(run.path()).run();
    report.assert_exit(0);
    assert!(String::from_utf8_lossy(&report.stdout).contains(&format!("| Stopped by | {why} |")));
}

/// The Module Controller runs a controller kept in a disabled thread group, once per pass of
/// the group that points to it; its own child never runs.
#[test]
fn module_controller_runs_a_target_in_a_disabled_thread_group() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-sync-module");
    let module = r#"<ModuleController guiclass="ModuleControllerGui" testclass="ModuleController" testname="Module" enabled="true">
          <collectionProp name="ModuleController.node_path">
            <stringProp name="0">Test Plan</stringProp><stringProp name="1">Modules</stringProp><stringProp name="2">Library</stringProp><stringProp name="3">Login</stringProp>
          </collectionProp>
        </ModuleController>"#;
    let own = sampler("own child", "GET", "/own", "", false, "");
    let login = format!(
        r#"<GenericController guiclass="LogicControllerGui" testclass="GenericController" testname="Login" enabled="false"/><hashTree>{}</hashTree>"#,
        sampler("login", "GET", "/login", "", false, "")
    );
    let library =
        thread_group("ThreadGroup", "Library", 1, 1, &login).replacen(r#"enabled="true""#, r#"enabled="false""#, 1);
    let users = thread_group("ThreadGroup", "Users", 2, 3, &format!("{module}<hashTree>{own}</hashTree>"));
    run_plan(&run, &plan_with_defaults("Modules", server.addr().port(), &(users + &library)));
    assert_eq!(server.requests_to("/login"), 6);
    assert_eq!(server.requests_to("/own"), 0);
    assert_eq!(uint(&run.label("login"), "samples"), 6);
}

/// `__setProperty` in a setUp thread group sets a property every thread reads afterwards with
/// `__P` (JMeter's properties are global to the run); a `-J` value stands until set.
#[test]
fn set_property_is_read_by_another_thread_group() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-sync-property");
    let setup = sampler("set", "GET", "/set", &arg("old", "${__setProperty(token,abc,true)}", false), false, "");
    let main = sampler(
        "use",
        "GET",
        "/use",
        &(arg("token", "${__P(token,none)}", false) + &arg("j", "${__P(j)}", false)),
        false,
        "",
    );
    let groups =
        [thread_group("SetupThreadGroup", "setup", 1, 1, &setup), thread_group("ThreadGroup", "main", 2, 2, &main)]
            .concat();
    let p = run.write("plan.jmx", plan_with_defaults("Props", server.addr().port(), &groups));
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "-J", "j=from-J", "-J", "token=first", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let got = server.recorded_all();
    let set: Vec<_> = got.iter().filter(|r| r.path() == "/set").map(|r| r.query("old").unwrap_or_default()).collect();
    assert_eq!(set, ["first"]);
    let used: Vec<_> = got.iter().filter(|r| r.path() == "/use").map(|r| (r.query("token"), r.query("j"))).collect();
    assert_eq!(used.len(), 4);
    assert!(used.iter().all(|u| *u == (Some("abc".into()), Some("from-J".into()))), "{used:?}");
    assert_eq!(uint(&run.label("use"), "samples"), 4);
}
