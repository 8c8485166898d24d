//! Thread groups: JMeter's (0 threads, a group without a sampler, setUp/tearDown beside a main
//! group of 0, a wait past the scheduled end, samplers that never wait ending at the duration), the
//! Open Model Thread Group's seeded arrivals, and the plugins' Stepping, Ultimate (its old column
//! layout too), Concurrency, Arrivals and Free-Form groups and the Throughput Shaping Timer; the
//! overrides bound them.

use crate::jmx::{jmx_plan, plan_with_defaults, sampler};
use crate::jmx_extractors::{
    get, group as group_groups, plan as plan_groups, run_plan as run_plan_groups, witness as witness_groups,
};
use crate::jmx_http_bodies::{group as group_small, http, plan, run_plan, targets, witness};
use crate::jmx_plugins::{
    get as get_plugins, group as group_plugins, plan as plan_plugins, run_plan as run_plan_plugins,
    targets as targets_plugins, witness as witness_plugins,
};
use crate::jmx_samplers::dummy;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

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

/// A thread group of samplers that send nothing and never wait, looping forever, still ends
/// at its duration: the users yield to the runtime.
#[test]
fn samplers_that_never_wait_end_at_the_duration() {
    let run = TempRun::new("jmx-synthetic-spin");
    let debug =
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true"/><hashTree/>"#;
    let body = [debug.to_string(), dummy("d", true, "200", "x", 0, false, "")].concat();
    let plan = jmx_plan(4, "-1", &body).replace(
        r#"<boolProp name="ThreadGroup.scheduler">false</boolProp>"#,
        r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">1</stringProp>"#,
    );
    let p = run.write("plan.jmx", plan);
    let started = std::time::Instant::now();
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    let (dbg, d) = (uint(&run.label("dbg"), "samples"), uint(&run.label("d"), "samples"));
    // A user cut by the end may have run its Debug Sampler and not yet its Dummy.
    assert!(dbg > 0 && d <= dbg && dbg <= d + 4, "{dbg} {d}");
}

fn loop_controller(loops: i64, body: &str) -> String {
    crate::util::jmx::loop_controller("inner", &loops.to_string(), body)
}

/// A CSV Data Set shared by all threads, recycled at its end.
fn csv(file: &str, names: &str) -> String {
    format!(
        r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="{file}" enabled="true">
          <stringProp name="filename">{file}</stringProp><stringProp name="variableNames">{names}</stringProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp><stringProp name="delimiter">,</stringProp>
        </CSVDataSet><hashTree/>"#
    )
}

/// JMeter 5.6.3 (`bench/jmeter/plans/small-idle.jmx`): a thread without a sampler starts one
/// iteration, whatever its loop count or duration, and ends: it takes one row of the data set
/// of its group, and each controller in it is entered once (a Loop Controller of 3 takes one
/// row of its own data set). So the next group's rows shift by one per such thread.
#[test]
fn a_thread_group_without_a_sampler_takes_one_row_per_thread_and_ends() {
    let server = witness();
    let run = TempRun::new("small-idle");
    run.write("rows.csv", (1..=20).map(|i| format!("r{i}\n")).collect::<String>());
    run.write("inner.csv", (1..=20).map(|i| format!("s{i}\n")).collect::<String>());
    let rows = csv("rows.csv", "row");
    let inner = csv("inner.csv", "other");
    let groups = [
        group_small("once", 1, 1, None, ""),
        group_small("three loops", 1, 3, None, ""),
        group_small("forever for 1 s", 1, -1, Some(1), ""),
        group_small("two threads", 2, 1, None, ""),
        group_small("nested loops", 1, 2, None, &loop_controller(3, &inner)),
        group_small("nested forever", 1, -1, None, &loop_controller(-1, &inner)),
        group_small("sends", 1, 2, None, &format!("{inner}{}", http("row", "GET", "/idle/${row}/${other}", "", ""))),
    ];
    let started = std::time::Instant::now();
    let got = run_plan(&server, &run, &plan(server.addr().port(), &format!("{rows}{}", groups.concat())), &[]);
    // 1 + 1 + 1 + 2 + 1 + 1 rows of rows.csv, one of inner.csv per nested loop.
    assert_eq!(targets(&got), ["/idle/r8/s3", "/idle/r9/s4"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}

/// JMeter 5.6.3 (`small2-zero-threads.jmx`): a plan whose every thread group reads 0 threads
/// (an unfilled `${__P(THREADS_COUNT,)}`, or `0`) loads, starts no thread, sends nothing and
/// ends with exit code 0; `check` warns, `--strict` refuses, and the run directory is whole.
#[test]
fn a_plan_whose_every_thread_group_has_0_threads_runs_and_sends_nothing() {
    let server = witness_groups();
    let run = TempRun::new("small2-zero");
    let groups = [
        group_groups("ThreadGroup", "unfilled", "${__P(THREADS_COUNT,)}", &get("/zero/a", "")),
        group_groups("ThreadGroup", "zero", "0", &get("/zero/b", "")),
    ];
    let plan_groups = run.write("plan.jmx", plan_groups(server.addr().port(), &[], &groups.concat()));
    let check = Stampede::new().arg("check").arg(&plan_groups).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("[WARNING] no thread will start"), "{}", check.stdout_str());
    let strict = Stampede::new().arg("check").arg(&plan_groups).arg("--strict").run();
    strict.assert_exit(2);
    assert!(strict.stderr_str().contains("refused by --strict"), "{}", strict.stderr_str());
    let started = std::time::Instant::now();
    let out = Stampede::new()
        .arg("run")
        .arg(&plan_groups)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(Duration::from_secs(30))
        .run();
    out.assert_exit(0);
    assert!(out.stderr_str().contains("no thread will start"), "{}", out.stderr_str());
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(server.requests(), 0);
    let total = run.total();
    assert_eq!((uint(&total, "samples"), uint(&total, "errors")), (0, 0));
    for f in ["summary.json", "meta.json", "report.html"] {
        let text = std::fs::read_to_string(run.path().join(f)).unwrap();
        assert!(!text.contains("NaN") && !text.contains("Infinity"), "{f}");
    }
    // `report` reads it again; a threshold has nothing to judge and fails (exit 1).
    Stampede::new().arg("report").arg(run.path()).run().assert_exit(0);
    let judged = Stampede::new().arg("report").arg(run.path()).args(["--threshold", "p95<500ms"]).run();
    judged.assert_exit(1);
    // `stampede jmeter -n -t`: JMeter's own summary line for no sample, exit 0.
    let jtl = run.root().join("zero.jtl");
    let out = Stampede::new()
        .current_dir(run.root())
        .args(["jmeter", "-n", "-t"])
        .arg(&plan_groups)
        .arg("-l")
        .arg(&jtl)
        .timeout(Duration::from_secs(30))
        .run();
    out.assert_exit(0);
    assert!(
        out.stdout_str().contains(
            "summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)"
        ),
        "{}",
        out.stdout_str()
    );
    assert_eq!(std::fs::read_to_string(&jtl).unwrap().lines().count(), 1, "the header alone");
    assert_eq!(server.requests(), 0);
}

/// JMeter 5.6.3 (`small2-zero-threads.jmx`): setUp and tearDown groups with threads still run
/// when the main group has 0, and a group of 0 beside one of 2 leaves the other running.
#[test]
fn setup_and_teardown_groups_run_beside_a_main_group_of_0_threads() {
    let server = witness_groups();
    let run = TempRun::new("small2-zero-setup");
    let groups = [
        group_groups("SetupThreadGroup", "setup", "1", &get("/zero/setup", "")),
        group_groups("ThreadGroup", "main", "${__P(THREADS_COUNT,)}", &get("/zero/main", "")),
        group_groups("ThreadGroup", "other", "2", &get("/zero/other", "")),
        group_groups("PostThreadGroup", "teardown", "1", &get("/zero/teardown", "")),
    ];
    let got = run_plan_groups(&server, &run, &plan_groups(server.addr().port(), &[], &groups.concat()));
    let targets: Vec<&str> = got.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(targets, ["/zero/setup", "/zero/other", "/zero/other", "/zero/teardown"]);
}

/// JMeter 5.6.3 with jmeter-plugins-casutg 2.10 (`plugins-utg-old.jmx`): `jmeter -n` reads
/// each inner collection as a row; in the old column layout the second "row" has 2 cells and
/// the plugin throws as it reaches it. The full first row's user runs (2 loops), the group
/// before it and the setUp group after it run; the group after it and the tearDown group
/// before it never start. `check` says so.
#[test]
fn an_ultimate_thread_group_in_the_old_column_layout_runs_as_jmeter_n_does() {
    let server = witness_plugins();
    let run = TempRun::new("plugins-utg-old");
    let cells =
        |v: &[&str]| -> String { v.iter().map(|c| format!(r#"<stringProp name="0">{c}</stringProp>"#)).collect() };
    let cols: String = [["2", "1"], ["0", "0"], ["0", "0"], ["5", "5"], ["0", "0"]]
        .iter()
        .map(|c| format!(r#"<collectionProp name="c">{}</collectionProp>"#, cells(c)))
        .collect();
    let data = format!(
        r#"<collectionProp name="ultimatethreadgroupdata"><collectionProp name="r0">{}</collectionProp>{cols}</collectionProp>"#,
        cells(&["1", "0", "0", "5", "0"])
    );
    let utg = format!(
        r#"<kg.apc.jmeter.threads.UltimateThreadGroup guiclass="kg.apc.jmeter.threads.UltimateThreadGroupGui" testclass="kg.apc.jmeter.threads.UltimateThreadGroup" testname="old" enabled="true">
        {data}
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController"><boolProp name="LoopController.continue_forever">false</boolProp><intProp name="LoopController.loops">2</intProp></elementProp>
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
      </kg.apc.jmeter.threads.UltimateThreadGroup><hashTree>{}</hashTree>"#,
        get_plugins("/utg/${__threadNum}", "")
    );
    let groups = [
        group_plugins("ThreadGroup", "plainA", "1", "1", &get_plugins("/plainA", "")),
        group_plugins("PostThreadGroup", "down", "1", "1", &get_plugins("/teardownBefore", "")),
        utg,
        group_plugins("ThreadGroup", "plainB", "1", "1", &get_plugins("/plainB", "")),
        group_plugins("SetupThreadGroup", "up", "1", "1", &get_plugins("/setupAfter", "")),
    ];
    let (got, check) = run_plan_plugins(&server, &run, &plan_plugins(server.addr().port(), &groups.concat()), &[]);
    let mut t = targets_plugins(&got);
    t.sort();
    assert_eq!(t, ["/plainA", "/setupAfter", "/utg/1", "/utg/1"]);
    assert!(check.contains("row 2 has 2 of the 5 cells"), "{check}");
    assert_eq!(check.matches("not started: <kg.apc.jmeter.threads.UltimateThreadGroup> \"old\"").count(), 2, "{check}");
}

/// A plan of one Open Model Thread Group with `schedule` and `seed`, whose one sampler `name`
/// requests `/om/${n}` from 127.0.0.1:`port`, `n` a per-user Counter from 1.
fn open_model_plan(schedule: &str, seed: &str, name: &str, port: u16) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Plan" enabled="true"/>
    <hashTree>
      <OpenModelThreadGroup guiclass="OpenModelThreadGroupGui" testclass="OpenModelThreadGroup" testname="Open" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="OpenModelThreadGroupController"/>
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <stringProp name="OpenModelThreadGroup.schedule">{schedule}</stringProp>
        <stringProp name="OpenModelThreadGroup.random_seed">{seed}</stringProp>
      </OpenModelThreadGroup>
      <hashTree>
        <CounterConfig guiclass="CounterConfigGui" testclass="CounterConfig" testname="Counter" enabled="true">
          <stringProp name="CounterConfig.start">1</stringProp>
          <stringProp name="CounterConfig.end"></stringProp>
          <stringProp name="CounterConfig.incr">1</stringProp>
          <stringProp name="CounterConfig.name">n</stringProp>
          <stringProp name="CounterConfig.format"></stringProp>
          <boolProp name="CounterConfig.per_user">true</boolProp>
        </CounterConfig>
        <hashTree/>
        <HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/om/${{n}}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy>
        <hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>
"#
    )
}

/// Runs `plan` quietly into `run` with `args`; returns how long the run took.
fn run_timed(run: &TempRun, plan: String, args: &[&str]) -> Duration {
    let file = run.write("plan.jmx", plan);
    let start = Instant::now();
    Stampede::new().arg("run").arg(&file).args(args).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    start.elapsed()
}

/// `rate(20/sec) random_arrivals(3 s)` with seed 42 is 60 arrivals (JMeter 5.6.3 draws them
/// between 94 ms and 2,922 ms), each sent once; each is a new user, so a per-user counter is 1
/// in every request; the run lasts until the last arrival's sample (2.9 s), not much more (the
/// trailing pause only gives samples in flight the time to end: none is).
#[test]
fn open_model_thread_group_sends_each_seeded_arrival_once_as_a_new_user() {
    let server = TestServer::builder().route("/om/1", Route::ok()).start();
    let run = TempRun::new("openmodel-random");
    let schedule = "/* 60 arrivals */ rate(${__P(rate,20)}/sec) random_arrivals(3 s) pause(1 s)";
    let took = run_timed(&run, open_model_plan(schedule, "42", "arrival", server.addr().port()), &[]);
    assert_eq!(server.requests(), 60, "every path: {:?}", server.requests_to("/om/2"));
    assert_eq!(server.requests_to("/om/1"), 60);
    let s = run.summary();
    assert_eq!(uint(&label(&s, "arrival"), "samples"), 60);
    assert_eq!(uint(&label(&s, "arrival"), "errors"), 0);
    assert!(took >= Duration::from_millis(2900), "the last arrival is due at 2,922 ms; the run took {took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// Even arrivals count each step from its own start, as JMeter's `EvenArrivalsRamp`: a ramp of
/// 0 to 10/s over 2 s is 10, a pause none, 1.5/s for 1 s twice is 1 + 1 (3.7 is 3): 12, what
/// JMeter 5.6.3 sent (`bench/jmeter/plans/elem-openmodel.jmx`). A property sets the rate.
#[test]
fn open_model_even_arrivals_count_each_step_as_jmeter() {
    let server = TestServer::builder().route("/om/1", Route::ok()).start();
    let run = TempRun::new("openmodel-even");
    let schedule = "rate(0) even_arrivals(2 s) rate(${__P(peak,1)} per sec) // 10 arrivals\n\
                    pause(500 ms) rate(1.5/s) even_arrivals(1 s) even_arrivals(1 s)";
    run_timed(&run, open_model_plan(schedule, "", "even", server.addr().port()), &["-J", "peak=10"]);
    assert_eq!((server.requests(), server.requests_to("/om/1")), (12, 12));
    assert_eq!(uint(&label(&run.summary(), "even"), "samples"), 12);
}

/// A schedule JMeter fails to start on (it starts no thread of any group) is refused before
/// anything is sent, naming the file, the line and the element, with JMeter's message.
#[test]
fn open_model_bad_schedule_is_refused_naming_the_element() {
    let server = TestServer::builder().route("/om/1", Route::ok()).start();
    let run = TempRun::new("openmodel-bad");
    let plan = open_model_plan("rate(20/sec) random_arrivals(3 parsecs)", "1", "bad", server.addr().port());
    let file = run.write("plan.jmx", plan);
    let out = Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run();
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("plan.jmx:6"), "{err}");
    assert!(err.contains("Open"), "{err}");
    assert!(err.contains("Unexpected time unit parsecs at position 38"), "{err}");
    let check = Stampede::new().arg("check").arg(&file).run();
    assert_ne!(check.status.code(), Some(0), "{}", check.stdout_str());
    assert_eq!(server.requests(), 0);
}

/// "Stop Thread" after a sample error stops only that arrival's thread in JMeter's Open Model
/// Thread Group (each arrival is a thread of its own): every arrival is still sent.
#[test]
fn open_model_stop_thread_on_error_stops_only_that_arrival() {
    let server = TestServer::builder().route("/om/1", Route::status(500)).start();
    let run = TempRun::new("openmodel-stopthread");
    let plan = open_model_plan("rate(20/s) even_arrivals(1 s)", "", "failing", server.addr().port())
        .replace(">continue<", ">stopthread<");
    run_timed(&run, plan, &[]);
    assert_eq!(server.requests_to("/om/1"), 20);
    let failing = label(&run.summary(), "failing");
    assert_eq!((uint(&failing, "samples"), uint(&failing, "errors")), (20, 20));
}
