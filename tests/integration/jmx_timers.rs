//! JMeter's timers: the Synchronizing Timer's batches of the group size (a batch that can never
//! fill ends at the duration or when its users have ended), the Precise Throughput Timer's arrivals
//! shared by a thread group.

use crate::jmx::{jmx_plan, plan_with_defaults, sampler as sampler_sync, thread_group};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn sync_timer(group_size: u32, timeout_ms: u64) -> String {
    format!(
        r#"<SyncTimer guiclass="TestBeanGUI" testclass="SyncTimer" testname="Synchronizing Timer" enabled="true">
          <intProp name="groupSize">{group_size}</intProp><longProp name="timeoutInMs">{timeout_ms}</longProp>
        </SyncTimer><hashTree/>"#
    )
}

/// A thread group of `threads` that loops until its scheduler's `secs` are over.
fn timed_group(threads: u32, secs: u32, body: &str) -> String {
    format!(
        r#"<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="users" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp><stringProp name="LoopController.loops">-1</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp><stringProp name="ThreadGroup.ramp_time">0</stringProp>
        <boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{secs}</stringProp>
      </ThreadGroup><hashTree>{body}</hashTree>"#
    )
}

/// A thread group of `threads` started over `ramp_ms`, each running `loops` iterations.
fn ramped_group(threads: u32, ramp_ms: u32, loops: u32, body: &str) -> String {
    let ramp = f64::from(ramp_ms) / 1000.0;
    format!(
        r#"<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="users" enabled="true">
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <boolProp name="LoopController.continue_forever">false</boolProp><stringProp name="LoopController.loops">{loops}</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">{threads}</stringProp><stringProp name="ThreadGroup.ramp_time">{ramp}</stringProp>
      </ThreadGroup><hashTree>{body}</hashTree>"#
    )
}

/// A server whose `/spread` answers after a random 0-300 ms (so the users come apart) and
/// whose `/sync` notes when each request arrives.
pub(crate) fn server_noting_sync() -> (TestServer, Arc<Mutex<Vec<Instant>>>) {
    let arrivals = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let noted = arrivals.clone();
    let server = TestServer::builder()
        .route("/spread", Route::ok().delay_range(Duration::ZERO, Duration::from_millis(300)))
        .route(
            "/sync",
            Route::handler(move |_| {
                noted.lock().unwrap().push(Instant::now());
                Reply::ok()
            }),
        )
        .start();
    (server, arrivals)
}

fn spread_then_sync(group_size: u32) -> String {
    [
        sampler_sync("spread", "GET", "/spread", "", false, ""),
        sampler_sync("sync", "GET", "/sync", "", false, &sync_timer(group_size, 0)),
    ]
    .concat()
}

/// Served counts equal the samples, per label and in all.
pub(crate) fn assert_served_are_samples(server: &TestServer, run: &TempRun) {
    for (label, path) in [("spread", "/spread"), ("sync", "/sync")] {
        assert_eq!(uint(&run.label(label), "samples"), server.requests_to(path), "{path}");
    }
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}

/// 3 users started 200 ms apart, 4 iterations each, a request to `/spread` (0-300 ms) then one
/// to `/sync` behind a timer grouping by 3. With as many users as the group, every batch holds
/// each user once, so the batches are certain: the 12 `/sync` requests arrive as 4 batches of
/// 3, each within 100 ms (without the barrier the first users' requests are 250 ms and more
/// apart, later ones up to 300 ms).
#[test]
fn a_sync_timer_sends_its_sampler_s_requests_in_batches_of_its_group_size() {
    let (server, arrivals) = server_noting_sync();
    let run = TempRun::new("jmx-sync-timer-batches");
    let group = ramped_group(3, 600, 4, &spread_then_sync(3));
    let plan = run.write("plan.jmx", plan_with_defaults("Sync", server.addr().port(), &group));
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);

    let mut at = arrivals.lock().unwrap().clone();
    at.sort();
    assert_eq!(at.len(), 12);
    for (i, batch) in at.chunks(3).enumerate() {
        let spread = batch[2] - batch[0];
        assert!(spread < Duration::from_millis(100), "batch {i}: its 3 requests arrived {spread:?} apart");
    }
    assert_eq!((server.requests_to("/spread"), server.requests_to("/sync")), (12, 12));
    assert_served_are_samples(&server, &run);
}

/// The last partial batch: 4 users of one iteration, batches of 3, no timeout, no duration.
/// The first 3 to come go; the fourth waits for users that will never come. JMeter 5.6.3 waits
/// there until stopped (then that user sends nothing); stampede ends it when the others have
/// ended. Before this, the run hung.
#[test]
fn the_last_user_of_a_batch_that_can_never_fill_ends_without_sending() {
    let (server, _) = server_noting_sync();
    let run = run_batches_of_3(&server, "jmx-sync-timer-partial", 4, 1, 20, 15);
    assert_eq!((server.requests_to("/spread"), server.requests_to("/sync")), (4, 3));
    assert_served_are_samples(&server, &run);
}

/// Groups of 10 with 2 users and no timeout can never fill: each user sends its first request,
/// then waits at the barrier, and the run still ends at its duration (the thread group's
/// scheduler, or `--duration` on an iteration-bound group) with every request served a sample
/// and none sent from behind the barrier.
#[test]
fn a_batch_that_can_never_fill_ends_at_the_run_s_duration_with_exact_counts() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let body = [
        sampler_sync("free", "GET", "/free", "", false, ""),
        sampler_sync("held", "GET", "/held", "", false, &sync_timer(10, 0)),
    ]
    .concat();
    for (name, group, extra) in [
        ("scheduler", timed_group(2, 2, &body), vec![]),
        ("flag", thread_group("ThreadGroup", "users", 2, 1, &body), vec!["--duration", "2s"]),
    ] {
        let before = (server.requests_to("/free"), server.requests_to("/held"));
        let run = TempRun::new(&format!("jmx-sync-timer-never-{name}"));
        let plan = run.write("plan.jmx", plan_with_defaults("Sync", server.addr().port(), &group));
        let started = Instant::now();
        Stampede::new().arg("run").arg(&plan).args(extra).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
        let took = started.elapsed();
        assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(15), "{name}: took {took:?}");
        let served = (server.requests_to("/free") - before.0, server.requests_to("/held") - before.1);
        assert_eq!(served, (2, 0), "{name}: one free request per user, none past the barrier");
        assert_eq!(uint(&run.label("free"), "samples"), 2, "{name}");
        assert_eq!(uint(&run.total(), "samples"), 2, "{name}");
    }
}

/// Runs `users` × `loops` through a Synchronizing Timer of batches of 3; the run must end
/// with exit 0 well within `timeout_s`, in under `limit_s`.
pub(crate) fn run_batches_of_3(
    server: &TestServer,
    name: &str,
    users: u32,
    loops: u32,
    timeout_s: u64,
    limit_s: u64,
) -> TempRun {
    let run = TempRun::new(name);
    let plan = run.write(
        "plan.jmx",
        plan_with_defaults(
            "Sync",
            server.addr().port(),
            &thread_group("ThreadGroup", "users", users, loops, &spread_then_sync(3)),
        ),
    );
    let started = Instant::now();
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(Duration::from_secs(timeout_s))
        .run()
        .assert_exit(0);
    assert!(started.elapsed() < Duration::from_secs(limit_s), "took {:?}", started.elapsed());
    run
}

pub(crate) fn sampler(name: &str, port: u16, path: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

fn precise_timer(throughput: &str, period: &str, duration: &str, batch: &str, seed: &str) -> String {
    format!(
        r#"<PreciseThroughputTimer guiclass="TestBeanGUI" testclass="PreciseThroughputTimer" testname="ptt" enabled="true">
          <doubleProp><name>allowedThroughputSurplus</name><value>1.0</value><savedValue>0.0</savedValue></doubleProp>
          <intProp name="exactLimit">10000</intProp>
          <doubleProp><name>throughput</name><value>{throughput}</value><savedValue>0.0</savedValue></doubleProp>
          <intProp name="throughputPeriod">{period}</intProp>
          <longProp name="duration">{duration}</longProp>
          <intProp name="batchSize">{batch}</intProp>
          <intProp name="batchThreadDelay">0</intProp>
          <longProp name="randomSeed">{seed}</longProp>
        </PreciseThroughputTimer><hashTree/>"#
    )
}

/// Runs `plan` quietly into `run` and returns how long the run took.
fn run_timed(run: &TempRun, plan: String) -> Duration {
    let file = run.write("plan.jmx", plan);
    let start = Instant::now();
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    start.elapsed()
}

/// 20 arrivals a second, a round 20 in each second, shared by the 4 users of the group: their
/// 40 samples take about two seconds (each user on its own schedule would take half of one),
/// and every one is sent.
#[test]
fn precise_throughput_timer_spreads_one_schedule_over_the_thread_group() {
    let server = TestServer::builder().route("/p", Route::ok()).start();
    let run = TempRun::new("elements-precise");
    let body = sampler("p", server.addr().port(), "/p", &precise_timer("20.0", "1", "1", "1", "42"));
    let took = run_timed(&run, jmx_plan(4, "10", &body));
    assert_eq!(server.requests_to("/p"), 40);
    assert_eq!(uint(&label(&run.summary(), "p"), "samples"), 40);
    assert!(took >= Duration::from_millis(1200), "40 arrivals at 20/s ended after {took:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

/// A rate of 0 has no arrival: the plan loads with a warning naming the timer, and `--strict`
/// refuses it.
#[test]
fn precise_throughput_timer_without_arrivals_loads_with_a_warning() {
    let run = TempRun::new("elements-precise-zero");
    let body = sampler("z", 9, "/z", &precise_timer("0.0", "3600", "3600", "1", "0"));
    let file = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("is no arrival at all"), "{}", check.stdout_str());
    let strict = Stampede::new().arg("check").arg(&file).arg("--strict").run();
    assert_ne!(strict.status.code(), Some(0), "{}", strict.stdout_str());
}
