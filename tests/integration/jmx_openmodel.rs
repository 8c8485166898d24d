//! JMeter's Open Model Thread Group (5.5+, issue 32): its schedule string read as JMeter reads
//! it, the seeded arrival count sent exactly, each arrival a new user running the children once,
//! a schedule JMeter cannot start refused naming the element.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

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
