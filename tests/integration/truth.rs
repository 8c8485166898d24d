//! Every request that reached the wire is a sample, however the run ends; statuses and
//! transport failures land in the right kinds. Counts are checked against the witness server.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{run_plan, run_quick, uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

fn kinds(v: &serde_json::Value) -> serde_json::Value {
    v["errors_by_kind"].clone()
}

#[test]
fn requests_in_flight_when_the_graceful_stop_runs_out_are_aborted_samples() {
    let server = TestServer::builder().route("/hang", Route::hang()).start();
    let started = Instant::now();
    let run = run_plan(
        "aborted-grace",
        &format!(
            "scenarios:\n  - workload: {{users: 3, duration: 1s, graceful_stop: 300ms}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/hang")
        ),
    );
    assert!(started.elapsed() < Duration::from_secs(15));
    let t = run.total();
    assert_eq!(server.requests_to("/hang"), 3);
    assert_eq!(uint(&t, "samples"), server.requests_to("/hang"));
    assert_eq!(kinds(&t), serde_json::json!({"aborted": 3}));
}

#[test]
fn a_second_interrupt_records_the_requests_it_abandons() {
    let server = TestServer::builder().route("/hang", Route::hang()).start();
    let run = TempRun::new("aborted-sigint");
    let mut child = Stampede::new()
        .args(["run", "--url", &server.url("/hang"), "--users", "4", "--duration", "60s", "-q", "--out"])
        .arg(run.path())
        .spawn();
    assert!(server.wait_until(Duration::from_secs(20), |s| s.requests() == 4));
    child.interrupt();
    // The first interrupt waits for the requests in flight; the second abandons them.
    assert!(child.wait_until(Duration::from_secs(5), |c| c.stderr_so_far().contains("Ctrl-C again")));
    std::thread::sleep(Duration::from_millis(200));
    child.interrupt();
    let out = child.wait(Duration::from_secs(20));
    out.assert_exit(130);
    let t = run.total();
    assert_eq!(uint(&t, "samples"), 4);
    assert_eq!(server.requests(), 4);
    assert_eq!(kinds(&t), serde_json::json!({"aborted": 4}));
}

#[test]
fn an_open_workload_overrunning_its_schedule_records_every_request_the_server_saw() {
    // Half the requests answer at once, half never: after the schedule and the grace time the
    // rest are abandoned, and still every one the server saw is a sample.
    let server = TestServer::builder().route("/ok", Route::ok()).route("/hang", Route::hang()).start();
    let run = run_plan(
        "aborted-open",
        &format!(
            "scenarios:\n  - workload: {{rate: 40, duration: 1s, max_users: 100, graceful_stop: 200ms}}\n    flow:\n      - mix:\n          - {{weight: 1, request: {{label: ok, url: '{}'}}}}\n          - {{weight: 1, request: {{label: hang, url: '{}'}}}}\n",
            server.url("/ok"),
            server.url("/hang")
        ),
    );
    let t = run.total();
    assert_eq!(uint(&t, "samples"), server.requests());
    assert_eq!(uint(&run.label("hang"), "samples"), server.requests_to("/hang"));
    assert_eq!(uint(&run.label("hang"), "errors"), server.requests_to("/hang"));
    assert_eq!(uint(&run.label("ok"), "samples"), server.requests_to("/ok"));
    // Every arrival is accounted for: started, dropped or undispatched.
    let sc = &run.summary()["scenarios"][0];
    assert_eq!(uint(sc, "iterations") + uint(sc, "dropped_iterations") + uint(sc, "undispatched_iterations"), 40);
}

/// A raw server answering every request on a connection with `status_line`; counts requests.
fn raw_status_server(status_line: &'static str) -> (String, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let served = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = served.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut s) = stream else { continue };
            let counter = counter.clone();
            std::thread::spawn(move || {
                let mut got = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    while let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                        got.drain(..end + 4);
                        counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let reply = format!("{status_line}\r\nContent-Length: 2\r\n\r\nOK");
                        if s.write_all(reply.as_bytes()).is_err() {
                            return;
                        }
                    }
                    match s.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
            });
        }
    });
    (format!("http://{addr}/"), served)
}

#[test]
fn statuses_outside_100_to_599_are_protocol_failures_each_with_its_own_kind() {
    let server = TestServer::builder().route("/s600", Route::status(600)).route("/s700", Route::status(700)).start();
    let (zero, zero_served) = raw_status_server("HTTP/1.1 000 Zero");
    let (nn, nn_served) = raw_status_server("HTTP/1.1 099 Ninety-nine");
    let plan = format!(
        "scenarios:\n  - workload: {{users: 1, iterations: 3}}\n    flow:\n{}",
        [("s600", server.url("/s600")), ("s700", server.url("/s700")), ("s000", zero), ("s099", nn)]
            .iter()
            .map(|(l, u)| format!("      - request: {{label: '{l}', url: '{u}'}}\n"))
            .collect::<String>()
    );
    let run = run_plan("bad-status", &plan);
    let t = run.total();
    let served = server.requests()
        + zero_served.load(std::sync::atomic::Ordering::SeqCst)
        + nn_served.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(uint(&t, "samples"), served);
    assert_eq!(uint(&t, "errors"), 12);
    assert_eq!(
        kinds(&t),
        serde_json::json!({"protocol_status_000": 3, "protocol_status_099": 3, "protocol_status_600": 3, "protocol_status_700": 3})
    );
}

#[test]
fn a_response_with_many_header_fields_is_legal() {
    let mut route = Route::ok();
    for i in 0..200 {
        route = route.header(format!("X-Field-{i}"), "v");
    }
    let server = TestServer::builder().route("/many", route).start();
    let run = run_quick("many-headers", &server.url("/many"), &["--users", "2", "--iterations", "5"]);
    let t = run.total();
    assert_eq!(uint(&t, "samples"), 10);
    assert_eq!(uint(&t, "errors"), 0, "{t:#}");
    assert_eq!(server.requests(), 10);
}

/// A listener whose accept queue is full: a further connect's SYN is dropped and the connect
/// never completes (until the client gives up).
fn unreachable_listener() -> (std::net::SocketAddr, Vec<std::net::TcpStream>, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    // SAFETY: plain socket calls on a descriptor owned here.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let owned = std::os::fd::OwnedFd::from_raw_fd(fd);
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        assert_eq!(libc::bind(fd, (&raw const addr).cast(), len), 0);
        assert_eq!(libc::listen(fd, 0), 0);
        let mut got: libc::sockaddr_in = std::mem::zeroed();
        let mut got_len = len;
        assert_eq!(libc::getsockname(fd, (&raw mut got).cast(), &mut got_len), 0);
        let port = u16::from_be(got.sin_port);
        let sa: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        // Fill the queue (backlog 0 admits one, and one more may be in the SYN queue).
        let mut held = Vec::new();
        for _ in 0..4 {
            match std::net::TcpStream::connect_timeout(&sa, Duration::from_millis(200)) {
                Ok(s) => held.push(s),
                Err(_) => break,
            }
        }
        (sa, held, owned)
    }
}

#[test]
fn a_connect_that_never_completes_is_a_connect_timeout_whichever_limit_strikes() {
    let (addr, _held, _fd) = unreachable_listener();
    let url = format!("http://{addr}/");
    // The response timeout is shorter than the connect timeout: still a connect that failed.
    let run = run_quick(
        "connect-timeout",
        &url,
        &["--users", "1", "--iterations", "2", "--timeout", "300ms", "--connect-timeout", "10s"],
    );
    assert_eq!(kinds(&run.total()), serde_json::json!({"connect_timeout": 2}));
    let run = run_quick("connect-timeout2", &url, &["--users", "1", "--iterations", "2", "--connect-timeout", "300ms"]);
    assert_eq!(kinds(&run.total()), serde_json::json!({"connect_timeout": 2}));
}

#[test]
fn a_closed_workload_ending_by_duration_records_every_request_the_server_saw() {
    // Most requests answer quickly, some take far longer than the graceful stop.
    let server = TestServer::builder()
        .route("/fast", Route::ok().delay(Duration::from_millis(2)))
        .route("/slow", Route::ok().delay(Duration::from_secs(30)))
        .start();
    let run = run_plan(
        "aborted-mixed",
        &format!(
            "scenarios:\n  - workload: {{users: 4, duration: 1s, graceful_stop: 100ms}}\n    flow:\n      - mix:\n          - {{weight: 9, request: {{label: fast, url: '{}'}}}}\n          - {{weight: 1, request: {{label: slow, url: '{}'}}}}\n",
            server.url("/fast"),
            server.url("/slow")
        ),
    );
    let t = run.total();
    assert_eq!(uint(&t, "samples"), server.requests());
    assert_eq!(uint(&run.label("slow"), "samples"), server.requests_to("/slow"));
    assert_eq!(uint(&run.label("fast"), "samples"), server.requests_to("/fast"));
    assert!(server.requests_to("/slow") >= 1);
    assert_eq!(kinds(&run.label("slow")), serde_json::json!({"aborted": server.requests_to("/slow")}));
}

#[test]
fn running_out_of_file_descriptors_is_its_own_kind_with_a_back_off_and_the_fix() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(20))).start();
    let run = TempRun::new("fds");
    let started = Instant::now();
    // A hard limit of 40 descriptors: the generator cannot raise it, and 80 users with a
    // connection each cannot all connect.
    let out = Stampede::with_program("sh")
        .args(["-c", "ulimit -n 40 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_stampede")])
        .args(["run", "--url", &server.url("/"), "--users", "80", "--iterations", "5", "-q", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    assert!(started.elapsed() < Duration::from_secs(60));
    let t = run.total();
    let out_of_fds = kinds(&t)["generator_fds"].as_u64().unwrap_or(0);
    assert!(out_of_fds > 0, "{t:#}");
    // Every sample that is not the generator's own failure reached the server.
    assert_eq!(uint(&t, "samples") - out_of_fds, server.requests());
    assert_eq!(uint(&t, "samples"), 400);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ulimit -n"), "{err}");
}

#[test]
fn a_rate_beyond_the_generator_ends_on_time_and_counts_what_it_could_not_send() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("rate-1e9");
    let started = Instant::now();
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/"), "--rate", "1e9", "--duration", "2s", "--max-users", "20", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let took = started.elapsed();
    // The schedule's 2 s, the default graceful stop is not waited on by anything, and start-up.
    assert!(took < Duration::from_secs(6), "took {took:?}");
    let summary = run.summary();
    let sc = &summary["scenarios"][0];
    let (iterations, dropped, undispatched) =
        (uint(sc, "iterations"), uint(sc, "dropped_iterations"), uint(sc, "undispatched_iterations"));
    assert_eq!(iterations + dropped + undispatched, 2_000_000_000, "every arrival is accounted for");
    assert!(undispatched > 1_000_000_000, "{sc:#}");
    assert_eq!(uint(&summary["total"], "samples"), server.requests());
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("beyond this generator"), "{text}");
}

#[test]
fn a_gzip_bomb_under_a_body_check_is_too_large_at_the_limit_not_decoded_whole() {
    // 64 MiB of zeros compress to about 64 KiB.
    let bomb = {
        use std::io::Write as _;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            e.write_all(&zeros).unwrap();
        }
        e.finish().unwrap()
    };
    assert!(bomb.len() < 1 << 20);
    let server = TestServer::builder()
        .route("/bomb", Route::ok().header("Content-Encoding", "gzip").body(&bomb))
        .route("/fast", Route::ok())
        .start();
    let run = run_plan(
        "gzip-bomb",
        &format!(
            "defaults: {{max_response_size: 4MB}}\nscenarios:\n  - name: bomb\n    workload: {{users: 2, iterations: 5}}\n    flow: [{{request: {{label: bomb, url: '{}', check: [{{body_contains: 'x'}}]}}}}]\n  - name: fast\n    workload: {{users: 2, iterations: 200}}\n    flow: [{{request: {{label: fast, url: '{}'}}}}]\n",
            server.url("/bomb"),
            server.url("/fast")
        ),
    );
    assert_eq!(kinds(&run.label("bomb")), serde_json::json!({"too_large": 10}));
    assert_eq!(uint(&run.label("bomb"), "samples"), server.requests_to("/bomb"));
    assert_eq!(uint(&run.label("fast"), "errors"), 0);
    assert_eq!(uint(&run.label("fast"), "samples"), server.requests_to("/fast"));
}

#[test]
fn requests_abandoned_at_the_end_do_not_trigger_the_after_error_policy() {
    // A scenario that stops the run on an error, whose requests hang and are abandoned by its
    // graceful stop, beside a longer scenario: the abandoned requests are aborted samples, and
    // the other scenario still runs to its own end.
    let server = TestServer::builder().route("/hang", Route::hang()).route("/ok", Route::ok()).start();
    let started = Instant::now();
    let run = run_plan(
        "aborted-on-error",
        &format!(
            "scenarios:\n  - name: short\n    on_error: stop_run\n    workload: {{users: 2, duration: 1s, graceful_stop: 200ms}}\n    flow: [{{request: {{label: hang, url: '{}'}}}}]\n  - name: long\n    workload: {{users: 1, duration: 3s}}\n    flow: [{{request: {{label: ok, url: '{}'}}}}, {{think: 10ms}}]\n",
            server.url("/hang"),
            server.url("/ok")
        ),
    );
    assert!(started.elapsed() >= Duration::from_secs(3), "the long scenario ran to its end");
    assert_eq!(kinds(&run.label("hang")), serde_json::json!({"aborted": 2}));
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(run.meta()["status"], "completed");
}

#[test]
fn open_model_arrivals_cut_mid_iteration_are_still_accounted_for() {
    // Each iteration hangs on its first request; the second is never reached.
    let server = TestServer::builder().route("/hang", Route::hang()).route("/ok", Route::ok()).start();
    let run = run_plan(
        "open-cut",
        &format!(
            "scenarios:\n  - workload: {{rate: 40, duration: 1s, max_users: 100, graceful_stop: 200ms}}\n    flow: [{{request: {{label: hang, url: '{}'}}}}, {{request: {{label: ok, url: '{}'}}}}]\n",
            server.url("/hang"),
            server.url("/ok")
        ),
    );
    let sc = &run.summary()["scenarios"][0];
    assert_eq!(uint(sc, "iterations") + uint(sc, "dropped_iterations") + uint(sc, "undispatched_iterations"), 40);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(server.requests_to("/ok"), 0);
}
