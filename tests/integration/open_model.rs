//! The open model: the arrival rate is kept against a fast server; against a slow one,
//! arrivals that find no free user are dropped and counted, and latency counts from when each
//! request was due.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{run_plan, run_quick, OutputExt, Stampede};
use std::time::Duration;

#[test]
fn a_fixed_rate_is_achieved_within_one_percent() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = run_quick("open-rate", &server.url("/ok"), &["--rate", "400", "--duration", "3s"]);
    let s = run.summary();
    let t = &s["total"];
    // 400/s for 3 s: arrivals at 0, 2.5 ms, ..., 2997.5 ms.
    assert_eq!(t["samples"], 1200);
    assert_eq!(server.requests(), 1200);
    assert_eq!(t["dropped_iterations"], 0);
    let rate = t["throughput_rps"].as_f64().unwrap();
    assert!((rate - 400.0).abs() / 400.0 < 0.01, "throughput {rate}/s");
    assert_eq!(s["scenarios"][0]["model"], "open");
    assert_eq!(s["scenarios"][0]["iterations"], 1200);
}

#[test]
fn a_slow_server_makes_dropped_iterations_and_latency_counts_from_due_time() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().route("/slow", Route::ok().delay(Duration::from_millis(200))).start();
    let run = run_plan(
        "open-slow",
        &        format!(
            "scenarios:\n  - workload: {{rate: 50, duration: 2s, pre_allocated_users: 4, max_users: 4}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/slow")
        ),
    );
    let s = run.summary();
    let t = &s["total"];
    let samples = t["samples"].as_u64().unwrap();
    let dropped = t["dropped_iterations"].as_u64().unwrap();
    // Every one of the 100 scheduled arrivals is either a sample or a dropped iteration.
    assert_eq!(samples + dropped, 100);
    assert_eq!(samples, server.requests());
    // 4 users × 2 s / 200 ms ≈ 40 can run; the rest find no free user.
    assert!((30..=48).contains(&samples), "samples {samples}");
    assert!(t["min_ms"].as_f64().unwrap() >= 200.0);
    let out = Stampede::new().args(["report"]).arg(run.path()).run();
    out.assert_exit(0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("**Dropped iterations (scenario-1):** {dropped} of 100 arrivals")), "{text}");
}

#[test]
fn a_ramping_rate_follows_its_stages() {
    let _timing = crate::util::exclusive();
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = run_plan(
        "open-ramp",
        &        format!(
            "scenarios:\n  - workload: {{start_rate: 0, stages: [{{rate: 200, duration: 1s}}, {{rate: 200, duration: 1s}}]}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/")
        ),
    );
    // 0 → 200/s over 1 s is 100 arrivals, then 200 more.
    assert_eq!(run.total()["samples"], 300);
    assert_eq!(server.requests(), 300);
}

#[test]
fn issue31_a_rate_beyond_any_generator_is_refused_naming_the_flag_and_the_maximum() {
    // Nothing may be sent: the server counts every request.
    let server = TestServer::builder().default_route(Route::ok()).start();
    for rate in ["1e300", "1.5e9", "inf", "NaN", "-5"] {
        let out = Stampede::new()
            .args(["run", "--url", &server.url("/"), &format!("--rate={rate}"), "--duration", "2s", "-q"])
            .timeout(Duration::from_secs(20))
            .run();
        out.assert_exit(2);
        let err = out.stderr_str();
        assert!(err.contains("--rate"), "{rate}: {err}");
        if rate.ends_with('9') || rate == "1e300" {
            assert!(err.contains("at most 1e9/s"), "{rate}: {err}");
        }
    }
    // The same in a plan: the element is named, with the maximum.
    let dir = crate::util::stampede::TempRun::new("rate-plan");
    let plan = dir.write(
        "plan.yaml",
        format!(
            "scenarios:\n  - name: s\n    workload: {{stages: [{{rate: 1e300, duration: 2s}}]}}\n    flow: [{{request: {{url: '{}'}}}}]\n",
            server.url("/")
        ),
    );
    let out = Stampede::new().arg("check").arg(&plan).run();
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("stages[0].rate") && err.contains("at most 1e9/s"), "{err}");
    assert_eq!(server.requests(), 0);
}
