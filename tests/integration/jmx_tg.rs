//! The plugins' thread groups (Stepping, Ultimate, Concurrency, Arrivals, Free-Form Arrivals)
//! and the Throughput Shaping Timer run with the binary against the witness server on short
//! schedules: the server's count equals stampede's samples, and `run`'s overrides bound them.

use crate::jmx::{plan_with_defaults, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

/// A thread group element of `class` with these string properties (and a forever loop),
/// holding `body`.
fn group(class: &str, props: &[(&str, &str)], extra: &str, body: &str) -> String {
    let props: String = props.iter().map(|(k, v)| format!(r#"<stringProp name="{k}">{v}</stringProp>"#)).collect();
    format!(
        r#"<{class} guiclass="x" testclass="{class}" testname="G" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <intProp name="LoopController.loops">-1</intProp>
        </elementProp>
        {props}{extra}
      </{class}>
      <hashTree>{body}</hashTree>"#
    )
}

fn constant_timer(ms: u32) -> String {
    format!(
        r#"<ConstantTimer guiclass="ConstantTimerGui" testclass="ConstantTimer" testname="wait" enabled="true">
          <stringProp name="ConstantTimer.delay">{ms}</stringProp></ConstantTimer><hashTree/>"#
    )
}

/// Runs `groups` against `server` with `flags`; returns the run's total samples.
fn run(server: &TestServer, name: &str, groups: &str, flags: &[&str]) -> (u64, TempRun) {
    let run = TempRun::new(name);
    let p = run.write("plan.jmx", plan_with_defaults(name, server.addr().port(), groups));
    Stampede::new().arg("run").arg(&p).args(flags).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    (uint(&run.total(), "samples"), run)
}

/// Requests the server saw per path.
fn per_path(server: &TestServer, paths: &[&str]) -> Vec<u64> {
    paths.iter().map(|p| server.requests_to(p)).collect()
}

#[test]
fn stepping_thread_group_starts_and_stops_users_in_steps() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).start();
    // 3 users, one every second from 0; held 1 s after the last start: all stop at 3 s.
    // Each sends every 200 ms: about 15, 10 and 5 requests.
    let body = format!("{}{}", constant_timer(200), sampler("s", "GET", "/u/${__threadNum}", "", false, ""));
    let g = group(
        "kg.apc.jmeter.threads.SteppingThreadGroup",
        &[
            ("ThreadGroup.num_threads", "3"),
            ("Threads initial delay", "0"),
            ("Start users count", "1"),
            ("Start users count burst", "0"),
            ("Start users period", "1"),
            ("rampUp", "0"),
            ("flighttime", "1"),
            ("Stop users count", "3"),
            ("Stop users period", "0"),
        ],
        "",
        &body,
    );
    let started = std::time::Instant::now();
    let (samples, _run) = run(&server, "stepping", &g, &[]);
    let took = started.elapsed();
    assert_eq!(samples, server.requests());
    let n = per_path(&server, &["/u/1", "/u/2", "/u/3"]);
    assert!((12..=16).contains(&n[0]) && (7..=11).contains(&n[1]) && (3..=6).contains(&n[2]), "{n:?}");
    assert!(took.as_secs_f64() < 6.0, "{took:?}");

    // Bounded from the command line: 1 user, 2 iterations.
    let server = TestServer::builder().default_route(Route::ok()).start();
    let (samples, _run) = run(&server, "stepping-bounded", &g, &["--users", "1", "--iterations", "2"]);
    assert_eq!((samples, server.requests()), (2, 2));
}

#[test]
fn ultimate_thread_group_users_stop_over_the_shutdown_time() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).start();
    // 2 users from 0, held 1 s, stopped over 2 s: the second thread stops at 2 s, the first
    // (which the plugin schedules last) at 3 s.
    let row = r#"<collectionProp name="ultimatethreadgroupdata"><collectionProp name="1">
        <stringProp name="1">2</stringProp><stringProp name="2">0</stringProp><stringProp name="3">0</stringProp>
        <stringProp name="4">1</stringProp><stringProp name="5">2</stringProp></collectionProp></collectionProp>"#;
    let body = format!("{}{}", constant_timer(200), sampler("s", "GET", "/u/${__threadNum}", "", false, ""));
    let g = group("kg.apc.jmeter.threads.UltimateThreadGroup", &[], row, &body);
    let (samples, _run) = run(&server, "ultimate", &g, &[]);
    assert_eq!(samples, server.requests());
    let n = per_path(&server, &["/u/1", "/u/2"]);
    let (long, short) = (n[0].max(n[1]), n[0].min(n[1]));
    assert!((12..=16).contains(&long) && (8..=11).contains(&short), "{n:?}");
}

#[test]
fn concurrency_thread_group_keeps_its_level_with_new_users() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).start();
    // 2 users held 2 s; each does 3 iterations of ~100 ms and is replaced by a new one.
    let body = format!("{}{}", constant_timer(100), sampler("s", "GET", "/c/${__threadNum}", "", false, ""));
    let g = group(
        "com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup",
        &[("TargetLevel", "2"), ("RampUp", "0"), ("Steps", ""), ("Hold", "2"), ("Iterations", "3"), ("Unit", "S")],
        "",
        &body,
    );
    let (samples, _run) = run(&server, "concurrency", &g, &[]);
    assert_eq!(samples, server.requests());
    assert!((30..=42).contains(&samples), "{samples}");
    // Every user ran exactly its 3 iterations, but the ones cut by the end of the hold.
    let users: Vec<u64> = (1..=40).map(|i| server.requests_to(&format!("/c/{i}"))).filter(|&n| n > 0).collect();
    assert!(users.len() >= 10 && users.iter().filter(|&&n| n != 3).count() <= 2, "{users:?}");
}

#[test]
fn arrivals_thread_groups_make_exactly_their_arrivals() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let one = sampler("a", "GET", "/a", "", false, "");
    // 10 arrivals a second, held 2 s: 20.
    let arrivals = group(
        "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup",
        &[
            ("TargetLevel", "10"),
            ("RampUp", "0"),
            ("Steps", ""),
            ("Hold", "2"),
            ("ConcurrencyLimit", "5"),
            ("Unit", "S"),
        ],
        "",
        &one,
    );
    let (samples, _run) = run(&server, "arrivals", &arrivals, &[]);
    assert_eq!((samples, server.requests()), (20, 20));

    // Free-form: 5/s for 1 s, then 10/s for 1 s: 15.
    let server = TestServer::builder().default_route(Route::ok()).start();
    let row = |a: u32, b: u32, d: u32| {
        format!(
            r#"<collectionProp name="r"><stringProp name="1">{a}</stringProp><stringProp name="2">{b}</stringProp><stringProp name="3">{d}</stringProp></collectionProp>"#
        )
    };
    let schedule = format!(r#"<collectionProp name="Schedule">{}{}</collectionProp>"#, row(5, 5, 1), row(10, 10, 1));
    let free = group(
        "com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup",
        &[("ConcurrencyLimit", "5"), ("Unit", "S")],
        &schedule,
        &one,
    );
    let (samples, _run) = run(&server, "free-form", &free, &[]);
    assert_eq!((samples, server.requests()), (15, 15));

    // --duration cuts the arrivals: the first second of the first group, 10.
    let server = TestServer::builder().default_route(Route::ok()).start();
    let (samples, _run) = run(&server, "arrivals-bounded", &arrivals, &["--duration", "1s"]);
    assert_eq!((samples, server.requests()), (10, 10));
}

#[test]
fn throughput_shaping_timer_paces_all_thread_groups_together_then_stops_them() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).start();
    // 5 samples a second for 2 s and the row's last second: 15 turns, shared by two thread
    // groups of 3 users looping forever; when the schedule is over, they stop.
    let tst = r#"<kg.apc.jmeter.timers.VariableThroughputTimer guiclass="x" testclass="kg.apc.jmeter.timers.VariableThroughputTimer" testname="tst" enabled="true">
        <collectionProp name="load_profile"><collectionProp name="1">
          <stringProp name="1">5</stringProp><stringProp name="2">5</stringProp><stringProp name="3">2</stringProp>
        </collectionProp></collectionProp>
      </kg.apc.jmeter.timers.VariableThroughputTimer><hashTree/>"#;
    let groups = [1, 2].map(|i| {
        crate::jmx::thread_group(
            "ThreadGroup",
            &format!("g{i}"),
            3,
            0,
            &sampler("s", "GET", &format!("/g{i}"), "", false, ""),
        )
        .replace(
            r#"<stringProp name="LoopController.loops">0</stringProp>"#,
            r#"<stringProp name="LoopController.loops">-1</stringProp>"#,
        )
    });
    let started = std::time::Instant::now();
    let (samples, _run) = run(&server, "tst", &format!("{tst}{}", groups.concat()), &[]);
    let took = started.elapsed();
    assert_eq!((samples, server.requests()), (15, 15));
    assert!(server.requests_to("/g1") > 0 && server.requests_to("/g2") > 0);
    assert!((2.5..8.0).contains(&took.as_secs_f64()), "{took:?}");
}

#[test]
fn timer_values_set_at_run_time_are_rendered_per_sample_and_a_non_number_is_zero() {
    let _timing = crate::util::exclusive();
    // The delay comes from the previous response: unset in the first iteration (JMeter then
    // reads `${delay}`, not a number: 0), then the body's value.
    let children = r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="d" enabled="true">
          <stringProp name="RegexExtractor.useHeaders">false</stringProp>
          <stringProp name="RegexExtractor.refname">delay</stringProp>
          <stringProp name="RegexExtractor.regex">(\w+)</stringProp>
          <stringProp name="RegexExtractor.template">$1$</stringProp>
          <stringProp name="RegexExtractor.match_number">1</stringProp>
        </RegexExtractor><hashTree/>
        <ConstantTimer guiclass="ConstantTimerGui" testclass="ConstantTimer" testname="wait" enabled="true">
          <stringProp name="ConstantTimer.delay">${delay}</stringProp></ConstantTimer><hashTree/>"#;
    let g = crate::jmx::thread_group("ThreadGroup", "g", 1, 5, &sampler("s", "GET", "/d", "", false, children));
    for (body, min, max) in [("300", 1.2, 4.0), ("abc", 0.0, 1.0)] {
        let server = TestServer::builder().default_route(Route::ok().body(body)).start();
        let started = std::time::Instant::now();
        let (samples, _run) = run(&server, "timer-expr", &g, &[]);
        let took = started.elapsed().as_secs_f64();
        assert_eq!((samples, server.requests()), (5, 5));
        assert!((min..max).contains(&took), "{body}: {took}");
    }
}

/// A thread group's scheduled end, as a JMeter thread's: a timer whose wait would outlast it
/// stops the user at once, and a Flow Control Action's pause waits until the end; neither
/// sends the sampler after it.
#[test]
fn a_wait_past_the_scheduled_end_stops_the_user_at_once_or_at_the_end() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let pause = r#"<TestAction guiclass="TestActionGui" testclass="TestAction" testname="pause" enabled="true">
          <intProp name="ActionProcessor.action">1</intProp><intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration">5000</stringProp></TestAction><hashTree/>"#;
    let timed = sampler("b", "GET", "/timer/b", "", false, &constant_timer(5000));
    let cases = [
        ("timer", [sampler("a", "GET", "/timer/a", "", false, ""), timed].concat(), 0.0, 1.5),
        (
            "pause",
            [
                sampler("a", "GET", "/pause/a", "", false, ""),
                pause.to_string(),
                sampler("b", "GET", "/pause/b", "", false, ""),
            ]
            .concat(),
            1.8,
            4.5,
        ),
    ];
    for (name, body, min, max) in cases {
        let g = group(
            "ThreadGroup",
            &[("ThreadGroup.num_threads", "1"), ("ThreadGroup.ramp_time", "0"), ("ThreadGroup.duration", "2")],
            r#"<boolProp name="ThreadGroup.scheduler">true</boolProp>"#,
            &body,
        );
        let started = std::time::Instant::now();
        let (samples, _run) = run(&server, &format!("jmx-scheduled-end-{name}"), &g, &[]);
        let took = started.elapsed().as_secs_f64();
        assert_eq!(per_path(&server, &[&format!("/{name}/a"), &format!("/{name}/b")]), [1, 0], "{name}");
        assert_eq!(samples, 1, "{name}");
        assert!((min..max).contains(&took), "{name}: the run took {took:.2} s");
    }
}
