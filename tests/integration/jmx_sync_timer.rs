//! JMeter's Synchronizing Timer (issue 32), as the witness receives it: users held at the
//! barrier reach the server in batches of the group size, every request served is a sample;
//! a batch that can never fill holds no run past its duration.

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

/// 6 users, 4 iterations each: a request to `/spread` answered after a random 0-200 ms (so the
/// users come apart), then one to `/sync` behind a timer grouping by 3. The server notes when
/// each `/sync` request arrives: taken in order, every 3 arrive within a few ms of each other
/// (without the barrier they would be up to 200 ms apart). Served counts equal the samples.
#[test]
fn a_sync_timer_sends_its_sampler_s_requests_in_batches_of_its_group_size() {
    let arrivals = Arc::new(Mutex::new(Vec::<Instant>::new()));
    let noted = arrivals.clone();
    let server = TestServer::builder()
        .route("/spread", Route::ok().delay_range(Duration::ZERO, Duration::from_millis(200)))
        .route(
            "/sync",
            Route::handler(move |_| {
                noted.lock().unwrap().push(Instant::now());
                Reply::ok()
            }),
        )
        .start();
    let run = TempRun::new("jmx-sync-timer-batches");
    let body = [
        sampler("spread", "GET", "/spread", "", false, ""),
        sampler("sync", "GET", "/sync", "", false, &sync_timer(3, 0)),
    ]
    .concat();
    let plan = run.write(
        "plan.jmx",
        plan_with_defaults("Sync", server.addr().port(), &thread_group("ThreadGroup", "users", 6, 4, &body)),
    );
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);

    let mut at = arrivals.lock().unwrap().clone();
    at.sort();
    assert_eq!(at.len(), 24);
    for (i, batch) in at.chunks(3).enumerate() {
        let spread = batch[2] - batch[0];
        assert!(spread < Duration::from_millis(30), "batch {i}: its 3 requests arrived {spread:?} apart");
    }
    for (label, path, n) in [("spread", "/spread", 24), ("sync", "/sync", 24)] {
        assert_eq!(server.requests_to(path), n, "{path}");
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
    assert_eq!(uint(&run.total(), "samples"), server.requests());
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
