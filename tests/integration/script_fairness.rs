//! A long script does not starve the other users (issue 31): scripts run inside a user's task,
//! and on one worker thread (one core) a script that spins for a second used to stop every
//! other user for that second. Run on one worker, and on one CPU where `taskset` exists, a user
//! spinning in scripts (a counting loop, a throw/catch loop) leaves two plain users most of
//! the samples they make without it, every one of them served, and the run ends on time.

use crate::jmx_scripts_mirror::jsr223_sampler;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

/// The scheduled duration of each thread group, in seconds.
const DURATION: u64 = 3;

/// A thread group of `threads` users looping for [`DURATION`] seconds over `body`.
fn group(name: &str, enabled: bool, threads: u32, body: &str) -> String {
    format!(
        r#"<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="{name}" enabled="{enabled}">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController" guiclass="LoopControlPanel" testclass="LoopController" testname="Loop Controller" enabled="true">
          <boolProp name="LoopController.continue_forever">false</boolProp>
          <stringProp name="LoopController.loops">-1</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp>
        <stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">true</boolProp>
        <stringProp name="ThreadGroup.duration">{DURATION}</stringProp>
        <stringProp name="ThreadGroup.delay">0</stringProp>
      </ThreadGroup>
      <hashTree>{body}</hashTree>"#
    )
}

/// Two plain users against the server and, when `runaway`, one user whose samplers are long
/// scripts: a counting loop and a throw/catch loop, each well inside the step budget (an
/// execution takes a fraction of a second, and the loop is bounded whatever the build).
fn plan(port: u16, runaway: bool) -> String {
    let plain = format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="plain" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"/></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
          <stringProp name="HTTPSampler.path">/plain</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>
        </HTTPSamplerProxy><hashTree/>"#
    );
    let spin = jsr223_sampler("spin", "long n = 0\nfor (int i = 0; i < 200000; i++) { n += i }\nreturn n");
    let throw = jsr223_sampler(
        "throw",
        "int caught = 0\nfor (int i = 0; i < 30000; i++) {\n  try { throw new IllegalStateException(\"x\" + i) } catch (Exception e) { caught++ }\n}\nreturn caught",
    );
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.6.3">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="fairness" enabled="true"/>
    <hashTree>
      {}
      {}
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#,
        group("Runaway", runaway, 1, &[spin, throw].concat()),
        group("Plain", true, 2, &plain),
    )
}

/// The first CPU this process may run on (`Cpus_allowed_list: 0-1` → 0).
fn first_cpu() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?.trim();
    let first: String = list.chars().take_while(char::is_ascii_digit).collect();
    (!first.is_empty()).then_some(first)
}

/// `stampede run` of the plan on one worker thread, pinned to one CPU when `taskset` is there;
/// returns the run's wall time.
fn run_on_one_core(run: &TempRun, port: u16, runaway: bool) -> Duration {
    let p = run.write("plan.jmx", plan(port, runaway));
    let bin = env!("CARGO_BIN_EXE_stampede");
    let taskset = std::path::Path::new("/usr/bin/taskset");
    let cmd = match first_cpu().filter(|_| taskset.exists()) {
        Some(cpu) => Stampede::with_program(taskset).args(["-c", &cpu]).arg(bin),
        None => Stampede::new(),
    };
    let started = Instant::now();
    cmd.env("TOKIO_WORKER_THREADS", "1")
        .arg("run")
        .arg(&p)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(Duration::from_secs(60))
        .run()
        .assert_exit(0);
    started.elapsed()
}

#[test]
fn issue31_a_user_spinning_in_scripts_leaves_the_other_users_their_rate() {
    let alone = {
        let server = TestServer::builder().default_route(Route::ok()).start();
        let run = TempRun::new("fair-alone");
        run_on_one_core(&run, server.addr().port(), false);
        let samples = uint(&run.label("plain"), "samples");
        assert_eq!(samples, server.requests_to("/plain"), "every plain sample served, no more");
        samples
    };
    assert!(alone >= 100, "two plain users make {alone} samples in {DURATION} s alone");

    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("fair-runaway");
    let took = run_on_one_core(&run, server.addr().port(), true);
    let plain = uint(&run.label("plain"), "samples");
    assert_eq!(plain, server.requests_to("/plain"), "every plain sample served, no more");
    let spun = uint(&run.label("spin"), "samples") + uint(&run.label("throw"), "samples");
    assert!(spun >= 2, "the spinning user ran its scripts ({spun} samples)");
    // Before: the spinning user held the one worker for each whole script, and the plain
    // users made a few samples between them (5 beside it, 695 alone). It now takes its time
    // slices beside them: about half on a quiet core, less when the test's neighbours load it.
    assert!(plain * 3 >= alone, "the plain users made {plain} samples beside the spinning user, {alone} without it");
    // The last script started before the end finishes (well under a second), then the run ends.
    assert!(took < Duration::from_secs(DURATION + 3), "the run took {took:?} for {DURATION} s");
}
