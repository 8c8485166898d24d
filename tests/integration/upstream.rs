//! Upstream vs gateway latency (#17): responses that tell the upstream's own time
//! (`Server-Timing`, Kong's and Envoy's headers, a plan's `timing_headers`) split each label's
//! elapsed time into upstream and overhead, in every report format and in `compare`.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{label, total, uint, OutputExt, Stampede, TempRun};
use serde_json::Value;
use std::time::Duration;

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` is not a number in {v}"))
}

/// Within the 1% of the upstream histograms (percentiles); sums and maxima are exact.
fn within_1pct(got: f64, want: f64) -> bool {
    (got - want).abs() <= want * 0.01 + 1e-9
}

const USERS: u64 = 2;
const ITERATIONS: u64 = 15;

fn witness() -> TestServer {
    let slow = Duration::from_millis(4);
    TestServer::builder()
        .route(
            "/st",
            Route::ok().header("Server-Timing", "cache;desc=\"hit, or;dur=99\";dur=0.5, app;dur=3.25").delay(slow),
        )
        .route(
            "/kong",
            Route::ok().header("X-Kong-Upstream-Latency", "2").header("X-Kong-Proxy-Latency", "1").delay(slow),
        )
        .route("/envoy", Route::ok().header("x-envoy-upstream-service-time", "3").delay(slow))
        .route("/nginx", Route::ok().header("X-Upstream-Response-Time", "0.001, 0.0015").delay(slow))
        // The time told varies with the request: 1, 2 or 3 ms by the query.
        .route(
            "/var",
            Route::handler(|r| {
                let d = r.query("d").unwrap_or_default();
                Reply::ok().header("Server-Timing", format!("upstream;dur={d}"))
            })
            .delay(slow)
            .record(),
        )
        .route("/none", Route::ok())
        .start()
}

fn yaml_plan(server: &TestServer) -> String {
    format!(
        r#"defaults:
  base_url: "http://{addr}"
  timing_headers: ["X-Upstream-Response-Time:s"]
scenarios:
  - name: split
    workload: {{users: {USERS}, iterations: {ITERATIONS}}}
    flow:
      - request: {{label: st, url: /st}}
      - request: {{label: kong, url: /kong}}
      - request: {{label: envoy, url: /envoy}}
      - request: {{label: nginx, url: /nginx}}
      - request: {{label: var, url: "/var?d=${{__Random(1,3)}}"}}
      - request: {{label: none, url: /none}}
"#,
        addr = server.addr()
    )
}

#[test]
fn responses_that_tell_the_upstream_time_split_it_from_the_overhead() {
    let server = witness();
    let run = TempRun::new("upstream-split");
    let plan = run.write("plan.yaml", yaml_plan(&server));
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let summary = run.summary();
    let n = USERS * ITERATIONS;
    assert_eq!(uint(&total(&summary), "samples"), server.requests());
    for (name, path, told_ms) in
        [("st", "/st", 3.25), ("kong", "/kong", 2.0), ("envoy", "/envoy", 3.0), ("nginx", "/nginx", 2.5)]
    {
        let row = label(&summary, name);
        assert_eq!(server.requests_to(path), n);
        let u = &row["upstream"];
        assert_eq!(uint(u, "samples"), n, "{name}: every response told it: {row}");
        // Each sample's upstream time is what its response said, to the µs.
        assert_eq!((num(u, "mean_ms"), num(u, "max_ms")), (told_ms, told_ms), "{name}: {u}");
        assert!(within_1pct(num(u, "p95_ms"), told_ms), "{name}: {u}");
        // What upstream and overhead split is every sample's elapsed time.
        assert!((num(u, "mean_total_ms") - num(&row, "mean_ms")).abs() < 1e-9, "{name}: {row}");
        // The overhead of each is elapsed − told (the server held each response 4 ms), summed exactly.
        assert!((num(u, "mean_overhead_ms") - (num(&row, "mean_ms") - told_ms)).abs() < 1e-6, "{name}: {row}");
        assert!(num(u, "mean_overhead_ms") > 0.0 && num(u, "max_overhead_ms") >= num(u, "p95_overhead_ms"));
        // Each overhead is its sample's elapsed − told: the largest is the slowest sample's.
        assert!((num(u, "max_overhead_ms") - (num(&row, "max_ms") - told_ms)).abs() < 1e-6, "{name}: {row}");
    }
    // Times that vary: their mean is the mean of what was told, exactly.
    let var = label(&summary, "var");
    let told: Vec<f64> =
        server.recorded("/var").iter().map(|r| r.query("d").unwrap().parse::<f64>().unwrap()).collect();
    assert_eq!(told.len() as u64, n);
    let mean_told = told.iter().sum::<f64>() / n as f64;
    assert!((num(&var["upstream"], "mean_ms") - mean_told).abs() < 1e-9, "{var}");
    assert_eq!(num(&var["upstream"], "max_ms"), told.iter().cloned().fold(0.0, f64::max));
    // No header, no split: never a zero upstream.
    assert!(label(&summary, "none").get("upstream").is_none());
    // The Total splits the samples that told it: all but `none`'s.
    assert_eq!(uint(&total(&summary)["upstream"], "samples"), 5 * n);

    // Every format shows it: Markdown (and the terminal), CSV, HTML; JSON is the summary.
    let md = Stampede::new().arg("report").arg(run.path()).run();
    md.assert_exit(0);
    let md = md.stdout_str();
    assert!(md.contains("| API") && md.contains("Upstream avg") && md.contains("Overhead %"), "{md}");
    let kong_row = md.lines().find(|l| l.starts_with("| kong") && l.contains(" of ")).expect("kong's upstream row");
    assert!(kong_row.contains(&format!("{n} of {n}")) && kong_row.contains("2.00"), "{kong_row}");
    assert!(!md.lines().any(|l| l.starts_with("| none") && l.contains(" of ")), "{md}");
    let csv = Stampede::new().args(["report", "--format", "csv"]).arg(run.path()).run();
    csv.assert_exit(0);
    let csv = csv.stdout_str();
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = head.iter().position(|h| *h == "upstream_mean_ms").expect("upstream_mean_ms column");
    let kong: Vec<&str> = lines.find(|l| l.starts_with("kong,")).unwrap().split(',').collect();
    assert_eq!(kong[col], "2");
    let none: Vec<&str> = csv.lines().find(|l| l.starts_with("none,")).unwrap().split(',').collect();
    assert_eq!(none[col], "");
    let html = std::fs::read_to_string(run.path().join("report.html")).unwrap_or_default();
    let html = if html.is_empty() {
        let out = Stampede::new().args(["report", "--format", "html"]).arg(run.path()).run();
        out.assert_exit(0);
        out.stdout_str()
    } else {
        html
    };
    assert!(html.contains("table class=\"num upstream\"") && html.contains("Overhead 95th"), "no upstream table");
}

/// With vs without a sidecar: `compare` tells how much the overhead changed.
#[test]
fn compare_tells_how_the_overhead_changed() {
    // The same upstream time told; the second server holds each response longer in front of it.
    let run_against = |name: &str, delay_ms: u64| {
        let server = TestServer::builder()
            .route("/api", Route::ok().header("Server-Timing", "app;dur=2").delay(Duration::from_millis(delay_ms)))
            .start();
        let run = TempRun::new(name);
        let plan = run.write(
            "plan.yaml",
            format!(
                "defaults: {{base_url: \"http://{}\"}}\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: 20}}\n    flow:\n      - request: {{label: api, url: /api}}\n",
                server.addr()
            ),
        );
        Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
        assert_eq!(uint(&run.total(), "samples"), server.requests());
        run
    };
    let without = run_against("upstream-without", 3);
    let with = run_against("upstream-with", 15);
    let out = Stampede::new().args(["compare", "--format", "json"]).arg(without.path()).arg(with.path()).run();
    out.assert_exit(0);
    let c: Value = serde_json::from_str(&out.stdout_str()).unwrap();
    let row = c["rows"].as_array().unwrap().iter().find(|r| r["label"] == "api").unwrap().clone();
    let runs: Vec<&Value> = row["runs"].as_array().unwrap().iter().collect();
    let d = &row["upstream_deltas"][1];
    let (a, b) = (&runs[0]["upstream"], &runs[1]["upstream"]);
    assert_eq!(num(&d["mean_ms"], "abs"), 0.0, "the upstream's time did not change: {d}");
    let grew = num(b, "mean_overhead_ms") - num(a, "mean_overhead_ms");
    assert!((num(&d["mean_overhead_ms"], "abs") - grew).abs() < 1e-9, "{d}");
    assert!(grew > 8.0, "12 ms more held in front of the upstream: {grew}");
    let md = Stampede::new().arg("compare").arg(without.path()).arg(with.path()).run();
    md.assert_exit(0);
    let md = md.stdout_str();
    assert!(md.contains("Δ Overhead avg") && md.contains("not weighed against noise"), "{md}");
}

/// A .jmx names its headers with a property (`-J stampede.timing_headers=...`); a wrong one is
/// an error naming the property.
#[test]
fn a_jmx_plan_names_its_timing_headers_with_a_property() {
    let server = TestServer::builder()
        .route("/a", Route::ok().header("X-Backend-Micros", "1500").header("X-Kong-Upstream-Latency", "9"))
        .start();
    let run = TempRun::new("upstream-jmx");
    let defaults = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp><stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;
    let body = format!("{defaults}{}", sampler("A", "GET", "/a", "", false, ""));
    let plan = run.write("plan.jmx", jmx_plan(1, "5", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-J", &port, "-J", "stampede.timing_headers=X-Backend-Micros:us"])
        .args(["-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    // The plan's header comes before the gateways' own.
    let u = run.label("A")["upstream"].clone();
    assert_eq!((uint(&u, "samples"), num(&u, "mean_ms")), (5, 1.5), "{u}");
    assert_eq!((uint(&run.total(), "errors"), server.requests()), (0, 5));

    let bad = TempRun::new("upstream-jmx-bad");
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-J", &port, "-J", "stampede.timing_headers=X-Backend-Micros:hours"])
        .args(["-q", "--out"])
        .arg(bad.path())
        .run();
    assert_ne!(out.status.code(), Some(0));
    let err = out.stderr_str();
    assert!(err.contains("stampede.timing_headers") && err.contains("`hours`"), "{err}");
    assert_eq!(server.requests(), 5, "nothing sent for a plan refused");
}

/// A YAML plan's wrong entry names its file, line and element.
#[test]
fn a_wrong_timing_header_in_a_yaml_plan_names_where_it_is() {
    let run = TempRun::new("upstream-yaml-bad");
    let plan = run.write(
        "plan.yaml",
        "defaults:\n  base_url: \"http://127.0.0.1:9\"\n  timing_headers: [\"Server-Timing\"]\nscenarios:\n  - name: s\n    workload: {users: 1, iterations: 1}\n    flow:\n      - request: {url: /}\n",
    );
    let out = Stampede::new().arg("check").arg(&plan).run();
    assert_ne!(out.status.code(), Some(0));
    let err = format!("{}{}", out.stdout_str(), out.stderr_str());
    assert!(err.contains("plan.yaml:3") && err.contains("defaults.timing_headers[0]"), "{err}");
    assert!(err.contains("name the Server-Timing metric"), "{err}");
}
