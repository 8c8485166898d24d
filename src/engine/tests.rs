//! A real plan run whole and in three segments against the built-in mock: the segments' served
//! requests add up exactly to the whole run's, and each run's samples are what the mock served.

use super::{run, Options};
use crate::engine::segment::Segment;
use crate::mock;
use crate::plan::Plan;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Runs `plan` (segment `segment`); returns (samples, dropped + undispatched arrivals).
async fn samples(plan: &Plan, segment: Segment) -> (u64, u64) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let options = Options { segment, ..Options::default() };
    run(plan, options, CancellationToken::new(), CancellationToken::new(), tx).await.unwrap();
    let (mut samples, mut missed) = (0, 0);
    while let Ok(i) = rx.try_recv() {
        samples += i.total.samples;
        missed += i.scenarios.iter().map(|s| s.dropped + s.undispatched).sum::<u64>();
    }
    (samples, missed)
}

/// Loads the YAML plan `yaml`, written for the moment in a directory of its own.
fn load_plan(name: &str, yaml: &str) -> Plan {
    let dir = std::env::temp_dir().join(format!("stampede-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.yaml");
    std::fs::write(&path, yaml).unwrap();
    let plan = Plan::load(&path, &Default::default()).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    plan
}

/// What the mock served since `before` was last read.
fn served_since(served: &AtomicU64, before: &mut u64) -> u64 {
    let now = served.load(Ordering::Relaxed);
    std::mem::replace(before, now).abs_diff(now)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_segments_serve_what_the_whole_run_serves() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let counters = Arc::new(mock::Counters::default());
    let stop_mock = CancellationToken::new();
    let server = tokio::spawn({
        let (counters, stop) = (counters.clone(), stop_mock.clone());
        async move { mock::run(listener, &mock::Config::default(), stop, counters).await }
    });
    // 10 closed users (4 + 3 + 3) of 3 iterations over a ramp-up, and an open model ramping
    // 0 → 60/s over 1 s then 60/s for 0.5 s (60 arrivals), with 7 users at most (3 + 2 + 2).
    let plan = load_plan(
        "segments",
        &format!(
            "scenarios:
  - name: closed
    workload: {{users: 10, iterations: 3, ramp_up: 300ms}}
    flow: [{{request: {{url: 'http://127.0.0.1:{port}/a'}}}}]
  - name: open
    workload: {{start_rate: 0, stages: [{{rate: 60, duration: 1s}}, {{rate: 60, duration: 500ms}}], pre_allocated_users: 2, max_users: 50}}
    flow: [{{request: {{url: 'http://127.0.0.1:{port}/b'}}}}]
"
        ),
    );
    let mut before = 0;
    let (whole, missed) = samples(&plan, Segment::FULL).await;
    assert_eq!(served_since(&counters.served, &mut before), whole);
    assert_eq!((whole, missed), (30 + 60, 0));
    let mut sum = 0;
    for i in 1..=3 {
        let (part, missed) = samples(&plan, Segment::nth(i, 3).unwrap()).await;
        assert_eq!(served_since(&counters.served, &mut before), part, "segment {i}/3");
        assert_eq!(missed, 0);
        sum += part;
    }
    assert_eq!(sum, whole);
    stop_mock.cancel();
    let _ = server.await;
}

/// Serves `body` gzip-encoded to every GET on keep-alive connections, counting the responses,
/// until the listener's task is aborted.
async fn serve_gzip(listener: tokio::net::TcpListener, body: Arc<Vec<u8>>, served: Arc<AtomicU64>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    loop {
        let Ok((mut s, _)) = listener.accept().await else { return };
        let (body, served) = (body.clone(), served.clone());
        tokio::spawn(async move {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n", body.len());
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                while let Some(end) = memchr::memmem::find(&buf, b"\r\n\r\n") {
                    buf.drain(..end + 4);
                    if s.write_all(head.as_bytes()).await.is_err() || s.write_all(&body).await.is_err() {
                        return;
                    }
                    served.fetch_add(1, Ordering::Relaxed);
                }
                match s.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
        });
    }
}

/// 32 users checking a large gzip body at once hold no more decoded bodies than the runtime
/// has workers (each could hold up to `max_response_size`: 32 × 64 MiB before), and the
/// checks find what they found before, every sample counted by the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue31_decoded_bodies_held_at_once_are_bounded_by_the_workers() {
    // 1 MiB of text that does not compress much (so it is decoded off the worker), ending in
    // a marker the check looks for.
    let mut text = Vec::with_capacity(1 << 20);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    while text.len() < (1 << 20) - 16 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text.push(b"0123456789abcdef"[(x & 15) as usize]);
    }
    text.extend_from_slice(b"END-OF-THE-BODY");
    let body = Arc::new(crate::plan::gzip(&text));
    assert!(body.len() > 256 * 1024, "compressed: {} bytes", body.len());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicU64::new(0));
    let server = tokio::spawn(serve_gzip(listener, body, served.clone()));
    let plan = load_plan(
        "decodes",
        &format!(
            "scenarios:
  - name: gz
    workload: {{users: 32, iterations: 4}}
    flow:
      - request:
          url: 'http://127.0.0.1:{port}/big'
          check: [{{body_contains: END-OF-THE-BODY}}, {{body_not_contains: zz}}]
"
        ),
    );
    let (tx, mut rx) = mpsc::unbounded_channel();
    run(&plan, Options::default(), CancellationToken::new(), CancellationToken::new(), tx).await.unwrap();
    server.abort();
    let (mut samples, mut errors) = (0, 0);
    while let Ok(i) = rx.try_recv() {
        samples += i.total.samples;
        errors += i.total.errors;
    }
    assert_eq!(served.load(Ordering::Relaxed), 32 * 4);
    assert_eq!((samples, errors), (32 * 4, 0), "every check holds on the decoded body");
    let most = super::response::DECODES.most_held();
    assert!((1..=2).contains(&most), "{most} decoded bodies held at once, with 2 workers");
}

/// The sizes of a quick-mode user's futures, level by level (`--nocapture` prints them): a
/// user's task holds the largest state any of its awaits may reach for the whole run, so these
/// are most of a user's heap (`tests/alloc`).
#[test]
fn future_sizes_of_a_quick_mode_user() {
    use super::client::Wire;
    use super::executor::closed::{user, Life};
    use super::program::{Op, Program};
    use super::session::ScenarioCtx;
    use super::user::VirtualUser;
    use std::mem::{size_of, size_of_val};
    use std::time::Instant;
    let plan = crate::plan::QuickPlan {
        url: "http://127.0.0.1:9/".into(),
        duration: Some(std::time::Duration::from_secs(1)),
        ..Default::default()
    }
    .into_plan()
    .unwrap();
    let program = Program::compile(&plan.scenarios[0].flow);
    let Op::Request(req) = &program.ops[0] else { panic!("a request") };
    let ctx = ScenarioCtx::for_test(None);
    let mut u = VirtualUser::new(ctx.clone());
    let (ctx2, abandon) = (ctx.clone(), CancellationToken::new());
    let users = Arc::new(move |_| VirtualUser::new(ctx2.clone()));
    let life = Life { iterations: None, stop: None, finish_iteration: false, whole_task: true };
    let task = size_of_val(&user(ctx.clone(), users, 0, tokio::time::Instant::now(), life));
    let iteration = size_of_val(&u.iteration(None));
    let request = size_of_val(&u.request(req, Instant::now()));
    let timing = Default::default();
    let target = req.target.clone();
    let w = Wire {
        abandon: &abandon,
        target: &target,
        keep_alive: true,
        is_head: false,
        connect_timeout: std::time::Duration::from_secs(1),
        response_timeout: std::time::Duration::from_secs(1),
        max_response_size: 0,
        keep_body: false,
        hosts: None,
        timing: &timing,
        bandwidth: &crate::engine::client::Bandwidth::new(&Default::default(), crate::engine::session::Globals::new(0)),
    };
    let send = size_of_val(&u.conns.client.send(&w, b"", Instant::now()));
    eprintln!(
        "VirtualUser {}, task {task}, iteration {iteration}, request {request}, send {send}",
        size_of::<VirtualUser>()
    );
    assert!(task > size_of::<VirtualUser>() && task > request && request > send);
    // The iteration is the program's own future, not one around it that the program's is
    // made and moved into each iteration (two memcpy of it per request, #31).
    assert_eq!(iteration, size_of_val(&u.run_program(super::user::Flow, None)));
}

/// Runs `plan` (segment `segment`, with `handoff`) to its end; the iterations of each scenario.
async fn iterations(plan: &Plan, segment: Segment, handoff: super::Handoff) -> Vec<u64> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let options = Options { segment, handoff: Some(handoff), ..Options::default() };
    run(plan, options, CancellationToken::new(), CancellationToken::new(), tx).await.unwrap();
    let mut done = vec![0; plan.scenarios.len()];
    while let Ok(i) = rx.try_recv() {
        for (d, s) in done.iter_mut().zip(&i.scenarios) {
            *d += s.iterations;
        }
    }
    done
}

/// A generator of three: the first runs setup and teardown whole (3 users, not its share of 1),
/// says the properties when setup ends and waits to be told before teardown; the others skip
/// both and begin their main scenario only once setup's properties have come.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setup_and_teardown_run_whole_on_the_first_of_three_and_the_others_wait_for_its_properties() {
    use super::{Handoff, Heard, Said};
    use crate::plan::Phase;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let counters = Arc::new(mock::Counters::default());
    let stop_mock = CancellationToken::new();
    let server = tokio::spawn({
        let (counters, stop) = (counters.clone(), stop_mock.clone());
        async move { mock::run(listener, &mock::Config::default(), stop, counters).await }
    });
    let scenario = |name: &str| {
        format!("  - name: {name}\n    workload: {{users: 3, iterations: 1}}\n    flow: [{{request: {{url: 'http://127.0.0.1:{port}/{name}'}}}}]\n")
    };
    let mut plan =
        load_plan("handoff", &format!("scenarios:\n{}{}{}", scenario("setup"), scenario("main"), scenario("teardown")));
    plan.scenarios[0].phase = Phase::Setup;
    plan.scenarios[2].phase = Phase::Teardown;
    let segment = || Segment::nth(1, 3).unwrap();

    // The first: setup whole, its share of main, then teardown once told.
    let (said, mut says) = mpsc::unbounded_channel();
    let (tell, heard) = tokio::sync::watch::channel(Heard::default());
    let first = tokio::spawn({
        let plan = plan.clone();
        async move { iterations(&plan, segment(), Handoff { once: true, said, heard }).await }
    });
    assert!(matches!(says.recv().await, Some(Said::SetupEnded(_))));
    assert_eq!(says.recv().await, Some(Said::MainEnded));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!first.is_finished(), "teardown ran before it was told");
    tell.send_modify(|h| h.teardown = true);
    assert_eq!(first.await.unwrap(), vec![3, 1, 3]);

    // Another: no setup, no teardown; its main share only once the properties have come.
    let (said, _says) = mpsc::unbounded_channel();
    let (tell, heard) = tokio::sync::watch::channel(Heard::default());
    let other = tokio::spawn({
        let plan = plan.clone();
        async move { iterations(&plan, segment(), Handoff { once: false, said, heard }).await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!other.is_finished(), "main began without setup's properties");
    let before = counters.served.load(Ordering::Relaxed);
    tell.send_modify(|h| h.properties = Some(vec![("token".into(), "t".into())]));
    assert_eq!(other.await.unwrap(), vec![0, 1, 0]);
    assert_eq!(counters.served.load(Ordering::Relaxed) - before, 1);
    stop_mock.cancel();
    let _ = server.await;
}

/// The first of three generators runs setup whole: a Synchronizing Timer of setup (group size 0:
/// all the group's users) waits for all 3 of its users, not for the generator's share of 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_setup_run_whole_on_the_first_of_three_synchronizes_all_its_users() {
    use super::{Handoff, Heard};
    use crate::plan::flow::{Step, SyncSpec, Think};
    use crate::plan::Phase;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let counters = Arc::new(mock::Counters::default());
    let stop_mock = CancellationToken::new();
    let server = tokio::spawn({
        let (counters, stop) = (counters.clone(), stop_mock.clone());
        async move { mock::run(listener, &mock::Config::default(), stop, counters).await }
    });
    // Users start 0, 1 and 2 s apart (ramp-up): in one batch, no request before the third.
    let mut plan = load_plan(
        "sync-setup",
        &format!(
            "scenarios:\n  - name: setup\n    workload: {{users: 3, iterations: 1, ramp_up: 3s}}\n    flow: [{{request: {{url: 'http://127.0.0.1:{port}/s'}}}}]\n"
        ),
    );
    plan.scenarios[0].phase = Phase::Setup;
    plan.syncs.push(SyncSpec { name: "all".into(), group_size: 0, timeout_ms: 0 });
    plan.scenarios[0].flow.insert(0, Step::Think(Think::Sync { slot: 0 }));
    let (said, _says) = mpsc::unbounded_channel();
    let (_tell, heard) = tokio::sync::watch::channel(Heard::default());
    let first = tokio::spawn({
        let plan = plan.clone();
        async move { iterations(&plan, Segment::nth(1, 3).unwrap(), Handoff { once: true, said, heard }).await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    assert_eq!(counters.served.load(Ordering::Relaxed), 0, "a user went past the barrier alone");
    assert_eq!(first.await.unwrap(), vec![3]);
    assert_eq!(counters.served.load(Ordering::Relaxed), 3);
    stop_mock.cancel();
    let _ = server.await;
}
