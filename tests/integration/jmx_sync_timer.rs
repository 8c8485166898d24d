//! JMeter's Synchronizing Timer (issue 32), as the witness receives it: users held at the
//! barrier reach the server in batches of the group size, every request served is a sample;
//! a batch that can never fill holds no run past its duration, nor forever when the users
//! that could fill it have ended.

use crate::jmx::{plan_with_defaults, sampler, thread_group};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
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
fn server_noting_sync() -> (TestServer, Arc<Mutex<Vec<Instant>>>) {
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
        sampler("spread", "GET", "/spread", "", false, ""),
        sampler("sync", "GET", "/sync", "", false, &sync_timer(group_size, 0)),
    ]
    .concat()
}

/// Served counts equal the samples, per label and in all.
fn assert_served_are_samples(server: &TestServer, run: &TempRun) {
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
        sampler("free", "GET", "/free", "", false, ""),
        sampler("held", "GET", "/held", "", false, &sync_timer(10, 0)),
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
fn run_batches_of_3(server: &TestServer, name: &str, users: u32, loops: u32, timeout_s: u64, limit_s: u64) -> TempRun {
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
