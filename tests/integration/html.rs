//! The HTML reports in a real headless Chromium: they load with no console error, request
//! nothing (self-contained), draw every chart with its lines, print, and agree with the run.
//! A screenshot is kept under `target/` for a person to look at.

use crate::util::browser::Browser;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::path::{Path, PathBuf};

fn shot(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// A plan mixing two labels, one of which fails one request in five.
fn mixed_run(server: &TestServer) -> TempRun {
    let run = TempRun::new("html");
    let plan = run.write(
        "plan.yaml",
        format!(
            "name: html-report <check>\n\
             defaults: {{base_url: '{}'}}\n\
             scenarios:\n\
             \x20 - workload: {{users: 4, ramp_up: 1s, duration: 4s}}\n\
             \x20   flow:\n\
             \x20     - request: {{label: ContentRead, url: /read}}\n\
             \x20     - request: {{label: 'Org & Search', url: /search}}\n\
             thresholds:\n\
             \x20 Total: [error_pct < 50]\n",
            server.url("")
        ),
    );
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    run
}

#[test]
fn the_html_report_is_self_contained_and_draws_every_chart() {
    let Some(mut browser) = Browser::launch() else { return };
    let n = std::sync::atomic::AtomicU64::new(0);
    let server = TestServer::builder()
        .route("/read", Route::ok().delay(std::time::Duration::from_millis(2)))
        .route(
            "/search",
            Route::handler(move |_| {
                let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i % 5 == 0 {
                    crate::util::server::Reply::status(503)
                } else {
                    crate::util::server::Reply::ok().body("{\"count\":1}")
                }
            }),
        )
        .start();
    let run = mixed_run(&server);
    let html = run.root().join("report.html");
    Stampede::new().args(["report", "--format", "html", "-o"]).arg(&html).arg(run.path()).run().assert_exit(0);
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(!text.contains("<script"), "no script at all");
    assert!(text.contains("html-report &lt;check&gt;"), "plan names are escaped");

    let mut page = browser.open(&html);
    assert_eq!(page.errors(), Vec::<String>::new(), "console errors");
    assert_eq!(page.requests(), Vec::<String>::new(), "a self-contained page fetches nothing");
    let charts =
        page.eval("[...document.querySelectorAll('svg.chart')].map(s => [s.id, s.querySelectorAll('g.line').length])");
    let charts: Vec<(String, u64)> = charts
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_str().unwrap().to_string(), c[1].as_u64().unwrap()))
        .collect();
    let ids: Vec<&str> = charts.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "chart-throughput",
            "chart-latency",
            "chart-label-latency",
            "chart-users",
            "chart-errors",
            "chart-distribution"
        ]
    );
    let lines = |id: &str| charts.iter().find(|(i, _)| i == id).unwrap().1;
    assert_eq!(lines("chart-throughput"), 3, "Total and each label");
    assert_eq!(lines("chart-latency"), 4, "p99, p90, p50, mean");
    assert_eq!(lines("chart-label-latency"), 2, "each label's p95 over time");
    // Drawn: each line has a path or dots (a line with no finite point is not drawn at all).
    let drawn = page.eval(
        "[...document.querySelectorAll('#chart-label-latency g.line')].map(g => g.querySelectorAll('path, circle').length)",
    );
    assert!(drawn.as_array().unwrap().iter().all(|n| n.as_u64().unwrap() > 0), "{drawn}");
    assert_eq!(lines("chart-errors"), 2, "Total and the failing label");
    assert_eq!((lines("chart-users"), lines("chart-distribution")), (1, 1));
    // Charts are drawn with real size on a laptop screen, not collapsed.
    let width = page.eval("document.getElementById('chart-throughput').getBoundingClientRect().width");
    assert!(width.as_f64().unwrap() > 800.0, "{width}");
    // The table agrees with the run, and the run with the server.
    let total = page.eval("document.querySelector('table.results tr.total').innerText");
    let summary = run.summary();
    let samples = uint(&summary["total"], "samples");
    assert_eq!(samples, server.requests());
    assert!(
        total.as_str().unwrap().starts_with(&format!("Total\t{samples}\t{}", uint(&summary["total"], "errors"))),
        "{total}"
    );
    let rows = page.eval("document.querySelectorAll('table.results tbody tr').length");
    assert_eq!(rows.as_u64(), Some(3));
    let threshold = page.eval("document.querySelector('#thresholds td.pass').innerText");
    assert_eq!(threshold, "pass");
    assert!(page.pdf().starts_with(b"%PDF"), "it prints");
    let png = shot("report.png");
    page.screenshot(&png);
    eprintln!("screenshot of the HTML report: {}", png.display());
}

#[test]
fn the_comparison_page_overlays_the_runs() {
    let Some(mut browser) = Browser::launch() else { return };
    let server = TestServer::builder().default_route(Route::ok()).start();
    let a = TempRun::new("html-cmp-a");
    let b = TempRun::new("html-cmp-b");
    for run in [&a, &b] {
        Stampede::new()
            .args(["run", "--url", &server.url("/x"), "--users", "2", "--duration", "2s", "-q", "--out"])
            .arg(run.path())
            .run()
            .assert_exit(0);
    }
    let html = a.root().join("compare.html");
    Stampede::new()
        .args(["compare", "--format", "html", "--names", "before,after", "-o"])
        .arg(&html)
        .arg(a.path())
        .arg(b.path())
        .run()
        .assert_exit(0);
    let mut page = browser.open(&html);
    assert_eq!(page.errors(), Vec::<String>::new());
    assert_eq!(page.requests(), Vec::<String>::new());
    let lines = page.eval("[...document.querySelectorAll('svg.chart')].map(s => s.querySelectorAll('g.line').length)");
    assert_eq!(lines, serde_json::json!([2, 2, 2, 2, 2, 2]), "each chart overlays both runs");
    let names = page.eval("[...document.querySelectorAll('#chart-throughput g.line')].map(g => g.dataset.name)");
    assert_eq!(names, serde_json::json!(["before", "after"]));
    let png = shot("compare.png");
    page.screenshot(&png);
    eprintln!("screenshot of the comparison: {}", png.display());
}

/// A sweep's page in the browser: the seed's two charts against the load (throughput with the
/// USL model; average, p95, p99), self-contained; sweeps compared overlay their lines.
#[test]
fn the_sweep_page_draws_throughput_and_response_time_against_users() {
    let Some(mut browser) = Browser::launch() else { return };
    let server =
        TestServer::builder().default_route(Route::ok().delay(std::time::Duration::from_millis(10)).pool(2)).start();
    let run = TempRun::new("html-sweep");
    Stampede::new()
        .args(["sweep", "-q", "--url", &server.url("/"), "--users", "1,2,4", "--step-duration", "1s", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let charts_of = |page: &mut crate::util::browser::Page| -> Vec<(String, u64)> {
        let charts = page
            .eval("[...document.querySelectorAll('svg.chart')].map(s => [s.id, s.querySelectorAll('g.line').length])");
        charts
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c[0].as_str().unwrap().to_string(), c[1].as_u64().unwrap()))
            .collect()
    };
    let mut page = browser.open(&run.path().join("report.html"));
    assert_eq!(page.errors(), Vec::<String>::new(), "console errors");
    assert_eq!(page.requests(), Vec::<String>::new(), "a self-contained page fetches nothing");
    assert_eq!(
        charts_of(&mut page),
        [("chart-sweep-throughput".to_string(), 2), ("chart-sweep-latency".to_string(), 3)],
        "throughput and the USL model; average, p95 and p99"
    );
    let rows = page.eval("document.querySelectorAll('section.sweep tbody tr').length");
    assert_eq!(rows.as_u64(), Some(3));
    page.screenshot(&shot("sweep.png"));
    let html = run.root().join("compare.html");
    Stampede::new()
        .args(["compare", "--names", "A,B", "--format", "html", "-o"])
        .arg(&html)
        .arg(run.path())
        .arg(run.path())
        .run()
        .assert_exit(0);
    let mut page = browser.open(&html);
    assert_eq!(page.errors(), Vec::<String>::new(), "console errors");
    assert_eq!(
        charts_of(&mut page),
        [("chart-sweep-throughput".to_string(), 2), ("chart-sweep-latency".to_string(), 2)],
        "each sweep's throughput and average"
    );
}
