//! Counts against the witness: samples == requests served, per label; connections with and
//! without keep-alive; a weighted mix within statistical bounds; latency of a known delay.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{run_plan, run_quick};
use std::time::Duration;

fn num(v: &serde_json::Value, field: &str) -> f64 {
    v[field].as_f64().unwrap_or_else(|| panic!("no numeric `{field}` in {v}"))
}

fn count(v: &serde_json::Value, field: &str) -> u64 {
    v[field].as_u64().unwrap_or_else(|| panic!("no count `{field}` in {v}"))
}

#[test]
fn samples_equal_requests_served_per_label() {
    let server = TestServer::builder()
        .route("/a", Route::ok())
        .route("/b", Route::ok().body("a longer body for b"))
        .route("/c", Route::ok())
        .start();
    let run = run_plan(
        "per-label",
        &format!(
            r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - name: mixed
    workload: {{users: 4, iterations: 150}}
    flow:
      - mix:
          - {{weight: 3, request: {{label: A, url: /a}}}}
          - weight: 1
            flow:
              - request: {{label: B, url: /b, method: POST, body: hello}}
              - request: {{label: C, url: "/c?x=1"}}
  - name: steady
    workload: {{users: 2, iterations: 25}}
    flow:
      - request: {{label: C, url: /c}}
"#,
            addr = server.addr()
        ),
    );
    let s = run.summary();
    let (a, b, c) = (run.label("A"), run.label("B"), run.label("C"));
    assert_eq!(count(&a, "samples"), server.requests_to("/a"));
    assert_eq!(count(&b, "samples"), server.requests_to("/b"));
    assert_eq!(count(&c, "samples"), server.requests_to("/c"));
    assert_eq!(count(&s["total"], "samples"), server.requests());
    assert_eq!(server.requests(), server.responses());
    // 600 iterations of the mix send 1 request (A) or 2 (B, C); the steady scenario sends 50.
    assert_eq!(count(&a, "samples") + count(&b, "samples"), 600);
    assert_eq!(count(&b, "samples") + 50, count(&c, "samples"));
    assert_eq!(count(&s["total"], "errors"), 0);
    // 6 users, 6 kept-alive connections.
    assert_eq!(count(&s["total"], "connections_opened"), 6);
    assert_eq!(server.connections(), 6);
}

#[test]
fn weighted_mix_follows_its_weights() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = run_plan(
        "mix-weights",
        &format!(
            r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 4, iterations: 1000}}
    flow:
      - mix:
          - {{weight: 5, request: {{label: five, url: /5}}}}
          - {{weight: 3, request: {{label: three, url: /3}}}}
          - {{weight: 2, request: {{label: two, url: /2}}}}
          - {{weight: 0, request: {{label: never, url: /0}}}}
"#,
            addr = server.addr()
        ),
    );
    let n: f64 = 4000.0;
    for (label, path, p) in [("five", "/5", 0.5), ("three", "/3", 0.3), ("two", "/2", 0.2)] {
        let got = server.requests_to(path) as f64;
        assert_eq!(count(&run.label(label), "samples") as f64, got);
        // Binomial: within 5 standard deviations (a false alarm about once in 3 million runs).
        let sd = (n * p * (1.0 - p)).sqrt();
        assert!((got - n * p).abs() < 5.0 * sd, "{label}: {got} of {n}, expected {}", n * p);
    }
    assert_eq!(server.requests_to("/0"), 0);
    assert_eq!(server.requests(), 4000);
}

#[test]
fn keep_alive_opens_one_connection_per_user() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = run_quick("keep-alive", &server.url("/ok"), &["--users", "7", "--iterations", "20"]);
    let t = run.total();
    assert_eq!(count(&t, "samples"), 140);
    assert_eq!(server.requests(), 140);
    assert_eq!(count(&t, "connections_opened"), 7);
    assert_eq!(server.connections(), 7);
}

#[test]
fn without_keep_alive_every_request_opens_a_connection() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run =
        run_quick("no-keep-alive", &server.url("/ok"), &["--users", "7", "--iterations", "20", "--no-keep-alive"]);
    let t = run.total();
    assert_eq!(count(&t, "samples"), 140);
    assert_eq!(count(&t, "errors"), 0);
    assert_eq!(count(&t, "connections_opened"), 140);
    assert_eq!(server.connections(), 140);
}

#[test]
fn http10_without_keep_alive_reconnects_and_with_it_keeps() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = run_quick(
        "http10",
        &server.url("/ok"),
        &["--users", "2", "--iterations", "10", "--http1.0", "--no-keep-alive"],
    );
    assert_eq!(count(&run.total(), "connections_opened"), 20);
    let run = run_quick("http10-ka", &server.url("/ok"), &["--users", "2", "--iterations", "10", "--http1.0"]);
    assert_eq!(count(&run.total(), "connections_opened"), 2);
    assert_eq!(server.requests(), 40);
}

#[test]
fn a_20ms_server_gives_a_median_within_1_5ms_of_what_the_server_really_held() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().route("/slow", Route::ok().delay(Duration::from_millis(20))).start();
    let run = run_quick("median", &server.url("/slow"), &["--users", "5", "--iterations", "40"]);
    let t = run.total();
    assert_eq!(count(&t, "samples"), server.requests());
    // The server's timer fires late by what the machine adds (up to ~2 ms on a busy 2-core VM);
    // stampede's median must be that, plus what a request and response take on loopback (about
    // 0.5 ms for these debug builds; 1.5 ms allowed for a loaded CI machine).
    let mut held: Vec<f64> = server.held().iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    held.sort_by(f64::total_cmp);
    let held_median = held[held.len() / 2];
    let median = num(&t, "p50_ms");
    eprintln!("median {median} ms; the server held a median {held_median} ms");
    assert!(
        (20.0..=held_median + 1.5).contains(&median),
        "median {median} ms; the server held a median {held_median} ms"
    );
    assert!(num(&t, "min_ms") >= 20.0, "min {}", num(&t, "min_ms"));
    // Throughput: 5 users × ~1 request per 20 ms.
    let tps = num(&t, "throughput_rps");
    assert!((200.0..=250.0).contains(&tps), "throughput {tps}");
}
