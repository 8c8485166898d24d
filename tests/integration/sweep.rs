//! Sweeps (issue 16) against a server of a fixed pool of workers, whose time in queue grows with
//! the load past its pool: each step's samples are what the server served for it, the knee is
//! found where the pool fills, `--until` stops at the first step that breaks the SLO and names
//! the highest load that met it; quick mode takes a body from a file. Closed-model stages hold
//! their users.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::time::Duration;

/// A plan of one user sending GETs to `PREFIX<load>` for its step: the server counts every
/// step apart.
fn step_plan(run: &TempRun, server: &TestServer, prefix: &str) -> std::path::PathBuf {
    run.write(
        "plan.yaml",
        format!(
            "name: steps\nscenarios:\n  - name: s\n    workload: {{users: 1, duration: 1s}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n",
            server.url(&format!("{prefix}${{__P(sweep.load,0)}}"))
        ),
    )
}

/// The sweep's record, `sweep.json`.
fn sweep_record(run: &TempRun) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.path().join("sweep.json")).unwrap()).unwrap()
}

#[test]
fn a_sweep_finds_the_knee_of_a_pool_of_workers_and_stops_at_the_slo() {
    // 4 workers of 20 ms: 200 requests/s at most, reached at 4 users; 8 users wait 20 ms more.
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(20)).pool(4)).start();
    let run = TempRun::new("sweep");
    // Each step's requests go to a path of their own: the server counts every step apart.
    let plan = step_plan(&run, &server, "/s/");
    let out = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "1..16x2", "--step-duration", "2s", "--until", "p95>30ms or error_pct>1", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    let loads: Vec<u64> = steps.iter().map(|s| s["load"].as_f64().unwrap() as u64).collect();
    // 8 users queue for 20 ms: p95 near 40 ms breaks the SLO, and 16 never runs.
    assert_eq!(loads, [1, 2, 4, 8], "{record:#}");
    assert_eq!(server.requests_to("/s/16"), 0);
    for s in steps {
        let load = s["load"].as_f64().unwrap() as u64;
        assert_eq!(uint(&s["total"], "samples"), server.requests_to(&format!("/s/{load}")), "step {load}");
        // Each step is a run directory of its own, which reports.
        let dir = run.path().join(s["dir"].as_str().unwrap());
        Stampede::new().arg("report").arg(&dir).run().assert_exit(0);
        assert!(dir.join("report.html").exists());
    }
    assert!(steps[3]["broke"].as_str().unwrap().starts_with("p95 > 30ms"), "{record:#}");
    assert_eq!(record["highest_good"].as_f64(), Some(4.0));
    assert!(steps.iter().all(|s| s.get("refine").is_none()), "no --refine, no refining step");
    assert_eq!(record["knee"]["load"].as_f64(), Some(4.0), "{record:#}");
    // The USL fit sees the ceiling: a peak, or a level, near 200/s.
    let usl = &record["usl"];
    let ceiling = usl["peak_rps"].as_f64().unwrap();
    assert!((150.0..260.0).contains(&ceiling), "{usl:#}");
    let md = std::fs::read_to_string(run.path().join("sweep.md")).unwrap();
    assert!(md.contains("| Users | Samples | Throughput (/s) | Average |"), "{md}");
    assert!(md.contains("Knee: 4 users") && md.contains("the highest load that met it: 4 users"), "{md}");
    assert_eq!(out.stdout_str().matches("Knee: 4 users").count(), 1, "{}", out.stdout_str());
    // The sweep's directory reports as its tables.
    let again = Stampede::new().arg("report").arg(run.path()).run();
    again.assert_exit(0);
    Stampede::new().args(["report", "--every", "1s"]).arg(run.path()).run().assert_exit(2);
    assert_eq!(again.stdout_str().trim_end(), md.trim_end());
    // Sweeps compare side by side, a column each at every load.
    let cmp = Stampede::new().args(["compare", "--names", "A,B"]).arg(run.path()).arg(run.path()).run();
    cmp.assert_exit(0);
    let text = cmp.stdout_str();
    assert!(text.contains("| Users | A | B |") && text.contains("## Throughput/s @ average ms"), "{text}");
    let row4 = text.lines().find(|l| l.starts_with("| 4 |")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(row4.matches(" @ ").count(), 2, "{row4}");
}

#[test]
fn quick_mode_sends_a_body_from_a_file_and_sweeps_rates() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("sweep-rates");
    let body = format!("{{\"pad\": \"{}\"}}", "x".repeat(5000));
    let file = run.write("body.json", &body);
    let out = Stampede::new()
        .arg("sweep")
        .args(["-q", "--url", &server.url("/p"), "-X", "POST", "--body-file"])
        .arg(&file)
        .args(["--rates", "20,40", "--step-duration", "1s", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let bodies = server.bodies("/p");
    assert!(!bodies.is_empty() && bodies.iter().all(|b| b == body.as_bytes()));
    let record = sweep_record(&run);
    let samples: u64 = record["steps"].as_array().unwrap().iter().map(|s| uint(&s["total"], "samples")).sum();
    assert_eq!(samples, server.requests());
    assert_eq!(record["load"], "rate");
    // About 20 and 40 arrivals in their seconds.
    let per_step: Vec<u64> = record["steps"].as_array().unwrap().iter().map(|s| uint(&s["total"], "samples")).collect();
    assert!((15..=25).contains(&per_step[0]) && (35..=45).contains(&per_step[1]), "{per_step:?}");
}

/// A rate the server cannot keep up with drops arrivals: that step meets `--until` whatever the
/// latency goals say, and the table shows the drops; a goal failed in a step makes exit 1.
#[test]
fn arrivals_dropped_end_a_capacity_search() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(50)).pool(2)).start();
    let run = TempRun::new("sweep-drops");
    let out = Stampede::new()
        .arg("sweep")
        .args(["-q", "--url", &server.url("/r"), "--max-users", "4", "--rates", "10,200", "--step-duration", "1s"])
        .args(["--until", "p95>10s", "--threshold", "p95<40ms", "--out"])
        .arg(run.path())
        .run();
    // 50 ms a request: the goal fails in every step, and the sweep says so with exit 1.
    out.assert_exit(1);
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{record:#}");
    assert!(steps[0].get("broke").is_none(), "{record:#}");
    assert!(steps[1]["broke"].as_str().unwrap().contains("arrivals dropped"), "{record:#}");
    assert_eq!(record["highest_good"].as_f64(), Some(10.0));
    let served: u64 = steps.iter().map(|s| uint(&s["total"], "samples")).sum();
    assert_eq!(served, server.requests());
    assert!(out.stdout_str().contains("| Dropped |"), "{}", out.stdout_str());
    assert!(out.stdout_str().contains("Goals failed at 10 /s: p95 < 40ms"), "{}", out.stdout_str());
}

/// `--users` on a plan that arrives at a rate is refused before anything is sent or written.
#[test]
fn users_are_refused_for_an_open_model_plan() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("sweep-open");
    let plan = run.write(
        "plan.yaml",
        format!(
            "scenarios:\n  - name: arrivals\n    workload: {{rate: 5, duration: 1s}}\n    flow: [{{request: {{url: \"{}\"}}}}]\n",
            server.url("/")
        ),
    );
    let out = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "1,2", "--step-duration", "1s", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("sweep it with --rates"), "{}", out.stderr_str());
    assert_eq!(server.requests(), 0);
    assert!(!run.path().exists());
}

/// `--warmup`: each step's figures leave its first seconds out (exactly the intervals from
/// then on), while its run directory keeps every second, which the server served.
#[test]
fn a_warm_up_is_left_out_of_each_steps_figures() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(5))).start();
    let run = TempRun::new("sweep-warmup");
    let plan = step_plan(&run, &server, "/w/");
    let out = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "1,2", "--step-duration", "3s", "--warmup", "1s", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let record = sweep_record(&run);
    assert_eq!(record["warmup_s"].as_f64(), Some(1.0));
    for s in record["steps"].as_array().unwrap() {
        let load = s["load"].as_f64().unwrap() as u64;
        let dir = run.path().join(s["dir"].as_str().unwrap());
        let log = std::fs::read_to_string(dir.join("intervals.jsonl")).unwrap();
        let after: u64 = log
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|l| l["start_us"].as_u64().unwrap() >= 1_000_000)
            .map(|l| uint(&l["total"], "samples"))
            .sum();
        let served = server.requests_to(&format!("/w/{load}"));
        assert_eq!(uint(&s["total"], "samples"), after, "step {load}");
        assert!(after > 0 && after < served, "step {load}: {after} of {served}");
        let whole: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
        assert_eq!(uint(&whole["total"], "samples"), served, "step {load}");
    }
    assert!(out.stdout_str().contains("each measured after a 1 s warm-up"), "{}", out.stdout_str());
    let long = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "1", "--step-duration", "1s", "--warmup", "1s"])
        .run();
    long.assert_exit(2);
    assert!(long.stderr_str().contains("--warmup must be shorter"), "{}", long.stderr_str());
    // Past the seconds a step keeps (2 s here), a warm-up is whole lines: said before any step.
    let before = server.requests();
    let odd = Stampede::new()
        .env("STAMPEDE_LOG_LAYOUT", "2:2,4")
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "1", "--step-duration", "8s", "--warmup", "3s"])
        .run();
    odd.assert_exit(2);
    assert!(odd.stderr_str().contains("--warmup past 2 s must be a whole multiple of 2 s"), "{}", odd.stderr_str());
    assert_eq!(server.requests(), before, "no step ran");
}

/// Closed-model stages in a YAML plan hold their number of users: the interval log's active
/// users follow the steps, the server sees at most the top step's users at once (each user its
/// own connection), and every request it served is counted.
#[test]
fn closed_model_stages_hold_their_users() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(20))).start();
    let run = TempRun::new("closed-stages");
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: steps\nscenarios:\n  - name: s\n    workload:\n      stages:\n        - {{users: 2, duration: 0s}}\n        - {{users: 2, duration: 2s}}\n        - {{users: 5, duration: 0s}}\n        - {{users: 5, duration: 2s}}\n        - {{users: 1, duration: 0s}}\n        - {{users: 1, duration: 2s}}\n    flow:\n      - request: {{url: \"{}\", label: get}}\n",
            server.url("/st")
        ),
    );
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(server.max_concurrent_connections(), 5);
    // Users busy at the end of the 1st, 3rd and 5th seconds: 2, 5 and 1.
    let active: Vec<u64> = run.intervals().iter().map(|l| l["active_users"][0].as_u64().unwrap()).collect();
    assert_eq!((active[0], active[2], active[4]), (2, 5, 1), "{active:?}");
}

/// `--refine N`: after the first step that breaks the SLO, steps that halve the gap between the
/// highest good load and the lowest bad one find the capacity between the steps given: a pool
/// of 4 workers of 20 ms keeps p95 under 30 ms up to 4 users, and 5 users queue.
#[test]
fn refine_finds_the_capacity_between_two_steps() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(20)).pool(4)).start();
    let run = TempRun::new("sweep-refine");
    let plan = step_plan(&run, &server, "/r/");
    let out = Stampede::new()
        .arg("sweep")
        .arg(&plan)
        .args(["-q", "--users", "2,12", "--step-duration", "2s", "--until", "p95>30ms", "--refine", "4", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    let loads: Vec<u64> = steps.iter().map(|s| s["load"].as_f64().unwrap() as u64).collect();
    // 2 good, 12 bad; then 7 (bad), 4 (good), 5 (bad): the gap is one user. Steps by load.
    assert_eq!(loads, [2, 4, 5, 7, 12], "{record:#}");
    let refined: Vec<bool> = steps.iter().map(|s| s["refine"] == true).collect();
    assert_eq!(refined, [false, true, true, true, false]);
    assert_eq!(record["highest_good"].as_f64(), Some(4.0), "{record:#}");
    for s in steps {
        let load = s["load"].as_f64().unwrap() as u64;
        assert_eq!(uint(&s["total"], "samples"), server.requests_to(&format!("/r/{load}")), "step {load}");
    }
    assert!(run.path().join("step-05-5-users").join("summary.json").exists());
}

#[test]
fn issue31_sweep_refuses_rates_beyond_any_generator_and_a_zero_step_naming_its_own_flags() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let url = server.url("/");
    for (args, says) in [
        (
            vec!["--rates", "1e300", "--step-duration", "1s"],
            "--rates: a rate of 1e300/s is beyond any generator: at most 1e9/s",
        ),
        (vec!["--rates", "10,2e9", "--step-duration", "1s"], "at most 1e9/s"),
        (vec!["--users", "1,2", "--step-duration", "0s"], "--step-duration must be above zero"),
        (vec!["--rates", "5", "--step-duration", "0s"], "--step-duration must be above zero"),
    ] {
        let run = TempRun::new("sweep-refused");
        let out = Stampede::new().args(["sweep", "--url", &url, "-q"]).args(&args).arg("--out").arg(run.path()).run();
        out.assert_exit(2);
        let err = out.stderr_str();
        assert!(err.contains(says) && !err.contains("--duration "), "{args:?}: {err}");
        assert!(!run.path().join("sweep.json").exists(), "{args:?}: nothing claimed");
    }
    assert_eq!(server.requests(), 0);
}

#[test]
fn issue31_a_step_directory_is_named_within_a_file_name_whatever_its_load() {
    // A tiny rate (one arrival in ten thousand seconds) is a load a sweep takes; its step's
    // directory must still be a name the file system takes (written out, it is 300 digits).
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("sweep-tiny-rate");
    let out = Stampede::new()
        .args(["sweep", "--url", &server.url("/"), "-q", "--rates", "1e-300,0.5", "--step-duration", "1s", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let record = sweep_record(&run);
    let steps = record["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{record:#}");
    for s in steps {
        let dir = s["dir"].as_str().unwrap();
        assert!(dir.len() < 64 && run.path().join(dir).join("summary.json").exists(), "{dir}");
    }
    // 1e-300/s sends nothing in 1 s; 0.5/s sends its arrival at 0.
    let samples: u64 = steps.iter().map(|s| uint(&s["total"], "samples")).sum();
    assert_eq!(samples, server.requests());
}
