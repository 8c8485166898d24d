//! The report as one self-contained HTML page: facts, the results table, charts drawn as inline
//! SVG (throughput, latency percentiles, active users and errors over time, the latency
//! distribution), errors by kind and thresholds. Nothing is fetched: no script at all, styles
//! inline, system fonts, and a Content-Security-Policy that forbids loading anything, so the
//! page reads the same offline, attached to a ticket, or printed.

use super::compare::{Comparison, Figure, FIGURES};
use super::markdown::{
    duration, numbers, timing_numbers, upstream_numbers, when, HEADER, TIMING_HEADER, TIMING_NOTE, UPSTREAM_HEADER,
    UPSTREAM_NOTE,
};
use super::series::Series;
use super::svg::{self, Chart, Line, XAxis};
use super::{error_rows, esc, RunData};
use crate::rundir::{LabelSummary, Model, Summary};
use std::fmt::Write;

/// Labels drawn one line each on the per-label charts; more would be unreadable, so the
/// busiest ones are drawn and the page says how many were left out.
const MAX_LABEL_LINES: usize = 10;
/// Labels drawn on the errors chart, those with the most errors.
const MAX_ERROR_LINES: usize = 5;

/// The run as one self-contained HTML page: the tables, and charts over time.
pub fn document(run: &RunData) -> String {
    document_with(run, &[])
}

/// [`document`], with tables over time after the charts (`report --every`): for the Total,
/// then each label, a row per window.
pub(crate) fn document_with(run: &RunData, windows: &[super::Window]) -> String {
    let (meta, summary) = (&run.meta, &run.summary);
    let mut body = String::new();
    let _ = write!(body, "<header><h1>{}</h1>", esc(&meta.plan_name));
    let mut sub = when(&meta.started_at);
    if let Some(d) = meta.duration_s {
        let _ = write!(sub, " · {}", duration(d));
    }
    let _ = write!(sub, " · {}", if summary.complete { meta.status.as_str() } else { "did not finish" });
    let _ = write!(body, "<p class=\"sub\">{}</p></header>", esc(&sub));
    if let Some(lost) = &run.lost {
        body.push_str(&super::lost::html(lost));
    }

    body.push_str("<section id=\"facts\"><table class=\"facts\">");
    let mut fact = |k: &str, v: String| {
        let _ = write!(body, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    };
    let mut plan = meta.plan_name.clone();
    if let Some(p) = &meta.plan_path {
        let _ = write!(plan, " ({p})");
    }
    fact("Plan", plan);
    fact("Started", when(&meta.started_at));
    if let Some(d) = meta.duration_s {
        fact("Duration", duration(d));
    }
    for sc in &meta.scenarios {
        fact(&format!("Workload ({})", sc.name), sc.workload.clone());
    }
    let tool = format!("{} {}", meta.tool, meta.version).trim().to_string();
    fact("Generator", if meta.host.is_empty() { tool } else { format!("{}, {tool}", meta.host) });
    if let Some(g) = summary.generator.or(meta.generator) {
        fact("Generator load", super::generator_load(&g));
    }
    for (k, v) in super::part_facts(meta) {
        fact(&k, v);
    }
    let t = &summary.total;
    if let Some(k) = super::keep_alive(meta, t) {
        fact("Connections", k);
    }
    for sc in summary.scenarios.iter().filter(|s| s.model == Model::Open) {
        fact(
            &format!("Dropped iterations ({})", sc.name),
            format!("{} of {} arrivals", sc.dropped_iterations, sc.dropped_iterations + sc.iterations),
        );
        if let Some(d) = super::dispatch(sc) {
            fact(&format!("Dispatch ({})", sc.name), d);
        }
    }
    body.push_str("</table></section>");

    if !summary.thresholds.is_empty() {
        body.push_str("<section id=\"thresholds\"><h2>Thresholds</h2><table class=\"num\"><thead><tr><th>Threshold</th><th>Measured</th><th>Result</th></tr></thead><tbody>");
        for r in &summary.thresholds {
            let seen = r.actual.map_or_else(|| "no samples".to_string(), |a| format!("{a:.2}"));
            let (class, word) = if r.passed { ("pass", "pass") } else { ("fail", "FAIL") };
            let _ = write!(
                body,
                "<tr><td class=\"name\">{}</td><td>{seen}</td><td class=\"{class}\">{word}</td></tr>",
                esc(&r.threshold)
            );
        }
        body.push_str("</tbody></table></section>");
    }

    body.push_str("<section id=\"results\"><h2>Results</h2>");
    body.push_str(&results_table(summary));
    body.push_str(
        "<p class=\"note\">Times in ms; Received and Sent in KB/s; Transactions/s over each row's own span.</p>",
    );
    if summary.total.samples > 0 {
        body.push_str(&timing_table(summary));
        let _ = write!(body, "<p class=\"note\">{}</p>", esc(TIMING_NOTE));
    }
    if let Some(table) = upstream_table(summary) {
        body.push_str(&table);
        let _ = write!(body, "<p class=\"note\">{}</p>", esc(UPSTREAM_NOTE));
    }
    body.push_str("</section>");

    body.push_str("<section id=\"charts\"><h2>Over time</h2>");
    for chart in charts(&run.series, summary) {
        let _ = write!(body, "<figure>{}</figure>", svg::render(&chart));
    }
    body.push_str("</section>");
    if let Some(w) = &summary.watch {
        body.push_str(&super::watch::html(w));
    }

    if !windows.is_empty() {
        body.push_str("<section id=\"windows\"><h2>Tables over time</h2>");
        let mut head = HEADER;
        head[0] = "Window";
        for name in std::iter::once(&summary.total.label).chain(summary.labels.iter().map(|l| &l.label)) {
            let _ =
                write!(body, "<h3>{}</h3><div class=\"scroll\"><table class=\"num windows\"><thead><tr>", esc(name));
            for h in head {
                let _ = write!(body, "<th>{}</th>", esc(h));
            }
            body.push_str("</tr></thead><tbody>");
            for w in windows {
                let row = if *name == summary.total.label {
                    Some(&w.summary.total)
                } else {
                    w.summary.labels.iter().find(|l| l.label == *name)
                };
                let Some(r) = row else { continue };
                let _ = write!(body, "<tr><td class=\"name\">{}</td>", esc(&super::markdown::span(w.from_us, w.to_us)));
                for v in numbers(r) {
                    let _ = write!(body, "<td>{}</td>", esc(&v));
                }
                body.push_str("</tr>");
            }
            body.push_str("</tbody></table></div>");
        }
        body.push_str("</section>");
    }

    if !t.errors_by_kind.is_empty() {
        body.push_str("<section id=\"errors\"><h2>Errors</h2><table class=\"num\"><thead><tr><th>Error</th><th>Count</th><th>% of errors</th><th>% of samples</th></tr></thead><tbody>");
        for (k, n, of_errors, of_samples) in error_rows(t) {
            let _ = write!(
                body,
                "<tr><td class=\"name\">{}</td><td>{n}</td><td>{of_errors:.2}%</td><td>{of_samples:.2}%</td></tr>",
                esc(k)
            );
        }
        body.push_str("</tbody></table></section>");
    }
    page(&format!("{} — stampede report", meta.plan_name), &body)
}

/// A whole page around `body`: the styles, and the policy that nothing may be loaded.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"stampede {}\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n\
         <footer>Made by stampede {} from the run's own data; every number follows docs/metrics.md.</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION"),
        esc(title),
        env!("CARGO_PKG_VERSION"),
    )
}

const STYLE: &str = "\
:root{color-scheme:light}\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1a1a1a;background:#fff;\
margin:0 auto;padding:1.5rem 2rem;max-width:1200px;line-height:1.4}\
h1{font-size:1.6rem;margin:0}h2{font-size:1.2rem;margin:2rem 0 .6rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}\
.sub{color:#555;margin:.2rem 0 1rem}\
table{border-collapse:collapse;font-size:.85rem;margin:.4rem 0}\
th,td{padding:.25rem .5rem;border-bottom:1px solid #e4e4e4}\
thead th{background:#f3f3f3;text-align:right;white-space:nowrap;position:sticky;top:0}\
.facts th{text-align:left;color:#555;font-weight:600;padding-right:1.2rem}\
.num td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.num td.name,.num th:first-child{text-align:left;white-space:normal}\
.num tr.total td{font-weight:600;background:#fafafa}\
td.fail{color:#b00020;font-weight:700}td.pass{color:#1b6e20}\
.lost{border-left:4px solid #b00020;background:#fff4f4;padding:.2rem 1rem;margin:1rem 0}.lost h2{border:0;color:#b00020}\
.delta{font-size:.75rem}.noise{color:#888}\
.scroll{overflow-x:auto}\
figure{margin:1rem 0;break-inside:avoid;page-break-inside:avoid}\
figure svg{width:100%;height:auto;max-width:1100px}\
.note{color:#555;font-size:.8rem}\
footer{margin-top:2.5rem;color:#777;font-size:.75rem;border-top:1px solid #eee;padding-top:.5rem}\
@media print{body{padding:0;max-width:none}h2{break-after:avoid}thead th{position:static}.scroll{overflow:visible}\
table{font-size:.7rem}figure svg{max-width:100%}}";

/// The seed documents' table, Total row first.
pub(crate) fn results_table(summary: &Summary) -> String {
    rows_table("results", &HEADER, summary, &|r| numbers(r).to_vec())
}

/// Connect time and time to first byte beside elapsed, Total row first.
pub(crate) fn timing_table(summary: &Summary) -> String {
    rows_table("timing", &TIMING_HEADER, summary, &|r| timing_numbers(r).to_vec())
}

/// Upstream time vs overhead, for the rows whose responses told the upstream's time; `None`
/// when none did.
pub(crate) fn upstream_table(summary: &Summary) -> Option<String> {
    summary.total.upstream.as_ref().or_else(|| summary.labels.iter().find_map(|l| l.upstream.as_ref()))?;
    let rows = Summary {
        total: summary.total.clone(),
        labels: summary.labels.iter().filter(|l| l.upstream.is_some()).cloned().collect(),
        ..summary.clone()
    };
    let dash = || std::iter::repeat_n("—".to_string(), UPSTREAM_HEADER.len() - 1).collect();
    Some(rows_table("upstream", &UPSTREAM_HEADER, &rows, &|r| upstream_numbers(r).map_or_else(dash, |n| n.to_vec())))
}

fn rows_table(class: &str, header: &[&str], summary: &Summary, cells: &dyn Fn(&LabelSummary) -> Vec<String>) -> String {
    let mut out = format!("<div class=\"scroll\"><table class=\"num {class}\"><thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>");
    for (i, r) in std::iter::once(&summary.total).chain(&summary.labels).enumerate() {
        let _ = write!(out, "<tr{}>", if i == 0 { " class=\"total\"" } else { "" });
        let _ = write!(out, "<td class=\"name\">{}</td>", esc(&r.label));
        for v in cells(r) {
            let _ = write!(out, "<td>{}</td>", esc(&v));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

/// The charts of one run.
fn charts(series: &Series, summary: &Summary) -> Vec<Chart> {
    let pts = &series.points;
    let line = |name: &str, y: &dyn Fn(usize) -> f64| Line {
        name: name.to_string(),
        points: pts.iter().enumerate().map(|(i, p)| (p.t_s, y(i))).collect(),
        dashed: false,
    };
    // The busiest labels, in the table's order.
    let mut busiest: Vec<&LabelSummary> = summary.labels.iter().collect();
    busiest.sort_by_key(|l| std::cmp::Reverse(l.samples));
    busiest.truncate(MAX_LABEL_LINES);
    let shown: Vec<(usize, &str)> = summary
        .labels
        .iter()
        .filter(|l| busiest.iter().any(|b| b.label == l.label))
        .filter_map(|l| series.labels.iter().position(|s| *s == l.label).map(|i| (i, l.label.as_str())))
        .collect();
    let left_out = summary.labels.len().saturating_sub(shown.len());
    let suffix = if left_out > 0 {
        format!(" (the {} busiest labels; {left_out} more in the table)", shown.len())
    } else {
        String::new()
    };
    let rate_of = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(0.0);

    let mut throughput = vec![line("Total", &|i| pts[i].rps)];
    if shown.len() > 1 {
        for (li, name) in &shown {
            throughput.push(Line { dashed: true, ..line(name, &|i| rate_of(&pts[i].label_rps, *li)) });
        }
    }
    let mut errors = vec![line("Total", &|i| pts[i].errors_per_s)];
    // The labels with the most errors, in the table's order; a line each for more is a tangle.
    let mut failing: Vec<&LabelSummary> = summary.labels.iter().filter(|l| l.errors > 0).collect();
    failing.sort_by_key(|l| std::cmp::Reverse(l.errors));
    failing.truncate(MAX_ERROR_LINES);
    if failing.len() > 1 || summary.labels.len() > 1 {
        for l in summary.labels.iter().filter(|l| failing.iter().any(|f| f.label == l.label)) {
            if let Some(li) = series.labels.iter().position(|s| *s == l.label) {
                errors.push(Line { dashed: true, ..line(&l.label, &|i| rate_of(&pts[i].label_errors_per_s, li)) });
            }
        }
    }
    let errors_title = match summary.labels.iter().filter(|l| l.errors > 0).count() {
        _ if summary.total.errors == 0 => "Errors (none)".to_string(),
        n if n > MAX_ERROR_LINES => {
            format!("Errors (the {MAX_ERROR_LINES} labels with the most; {n} labels had errors)")
        }
        _ => "Errors".to_string(),
    };
    vec![
        Chart {
            id: "chart-throughput".into(),
            title: format!("Throughput{suffix}"),
            x: XAxis::Seconds,
            x_label: "time since start".into(),
            y_label: "requests/s".into(),
            lines: throughput,
        },
        Chart {
            id: "chart-latency".into(),
            title: "Response time percentiles (all requests)".into(),
            x: XAxis::Seconds,
            x_label: "time since start".into(),
            y_label: "ms".into(),
            lines: vec![
                line("p99", &|i| pts[i].p99_ms),
                line("p90", &|i| pts[i].p90_ms),
                line("p50", &|i| pts[i].p50_ms),
                Line { dashed: true, ..line("mean", &|i| pts[i].mean_ms) },
            ],
        },
    ]
    .into_iter()
    .chain((shown.len() > 1 && pts.iter().any(|p| p.label_p95_ms.iter().any(|v| v.is_finite()))).then(|| {
        Chart {
            id: "chart-label-latency".into(),
            title: format!("Response time per label, 95th percentile{suffix}"),
            x: XAxis::Seconds,
            x_label: "time since start".into(),
            y_label: "ms".into(),
            lines: shown
                .iter()
                .map(|(li, name)| line(name, &|i| pts[i].label_p95_ms.get(*li).copied().unwrap_or(f64::NAN)))
                .collect(),
        }
    }))
    .chain([
        Chart {
            id: "chart-users".into(),
            title: "Active users".into(),
            x: XAxis::Seconds,
            x_label: "time since start".into(),
            y_label: "users".into(),
            lines: vec![line("users", &|i| pts[i].active_users as f64)],
        },
        Chart {
            id: "chart-errors".into(),
            title: errors_title,
            x: XAxis::Seconds,
            x_label: "time since start".into(),
            y_label: "errors/s".into(),
            lines: errors,
        },
        Chart {
            id: "chart-distribution".into(),
            title: "Latency distribution (all requests)".into(),
            x: XAxis::Percentile,
            x_label: "percentile".into(),
            y_label: "ms".into(),
            lines: vec![Line { name: "Total".into(), points: series.distribution.clone(), dashed: false }],
        },
    ])
    .collect()
}

/// Runs side by side as one page: the runs, the comparison table (deltas within the noise
/// greyed and marked ≈), the scaling table, and the runs' charts overlaid (the baseline solid,
/// the others dashed).
pub(crate) fn comparison(c: &Comparison, runs: &[&RunData]) -> String {
    let names: Vec<&str> = c.runs.iter().map(|r| r.name.as_str()).collect();
    let mut body = format!("<header><h1>{}</h1>", esc(&names.join(" vs ")));
    body.push_str("<p class=\"sub\">Differences are from the first run; ≈ marks one within the runs' own noise, ? a run too short to estimate it.</p></header>");
    body.push_str("<section id=\"runs\"><table class=\"facts\"><thead><tr><th>Run</th><th>Source</th><th>Plan</th><th>Started</th><th>Duration</th><th>Noise batches</th></tr></thead><tbody>");
    for r in &c.runs {
        let _ = write!(
            body,
            "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.name),
            esc(&r.source),
            esc(&r.plan),
            esc(&when(&r.started_at)),
            r.duration_s.map_or_else(String::new, duration),
            r.noise_batches
        );
    }
    body.push_str("</tbody></table></section>");

    body.push_str("<section id=\"comparison\"><h2>Per label</h2><div class=\"scroll\"><table class=\"num compare\"><thead><tr><th>API</th><th>Run</th><th>Samples</th><th>KO</th>");
    for f in FIGURES {
        let _ = write!(body, "<th>{}</th>", esc(f.title()));
    }
    body.push_str("</tr></thead><tbody>");
    for row in &c.rows {
        for (i, run) in c.runs.iter().enumerate() {
            let _ = write!(
                body,
                "<tr{}><td class=\"name\">{}</td><td class=\"name\">{}</td>",
                if row.label == crate::metric::TOTAL { " class=\"total\"" } else { "" },
                if i == 0 { esc(&row.label) } else { String::new() },
                esc(&run.name)
            );
            let Some(r) = &row.runs[i] else {
                body.push_str(&"<td>—</td>".repeat(2 + FIGURES.len()));
                body.push_str("</tr>");
                continue;
            };
            let _ = write!(body, "<td>{}</td><td>{}</td>", r.samples, r.errors);
            // Each figure with its difference from the baseline beneath it, greyed when noise.
            for (k, f) in FIGURES.iter().enumerate() {
                let v = f.of(r);
                let value = if *f == Figure::ErrorPct { format!("{v:.2}%") } else { format!("{v:.2}") };
                let delta = match &row.deltas[i] {
                    Some(d) => {
                        let d = d[k].delta;
                        let class = if d.significant == Some(true) || !d.weighed { "delta" } else { "delta noise" };
                        format!("<br><span class=\"{class}\">{}</span>", esc(&d.text()))
                    }
                    None => String::new(),
                };
                let _ = write!(body, "<td>{value}{delta}</td>");
            }
            body.push_str("</tr>");
        }
    }
    body.push_str("</tbody></table></div><p class=\"note\">Times in ms.</p></section>");

    if let Some((head, rows)) = super::compare::upstream_table(c) {
        body.push_str("<section id=\"upstream\"><h2>Upstream vs overhead</h2><div class=\"scroll\"><table class=\"num\"><thead><tr>");
        for h in &head {
            let _ = write!(body, "<th>{}</th>", esc(h));
        }
        body.push_str("</tr></thead><tbody>");
        for cells in &rows {
            body.push_str("<tr>");
            for (k, v) in cells.iter().enumerate() {
                // The Markdown cells escape `|`; HTML shows the label as it is.
                let v = if k < 2 { v.replace("\\|", "|") } else { v.clone() };
                let class = if k < 2 { " class=\"name\"" } else { "" };
                let _ = write!(body, "<td{class}>{}</td>", esc(&v));
            }
            body.push_str("</tr>");
        }
        let _ = write!(
            body,
            "</tbody></table></div><p class=\"note\">{}</p></section>",
            esc(super::compare::UPSTREAM_COMPARE_NOTE)
        );
    }

    body.push_str(
        "<section id=\"scaling\"><h2>Throughput/sec @ avg resp time</h2><table class=\"num\"><thead><tr><th>API</th>",
    );
    for n in &names {
        let _ = write!(body, "<th>{}</th>", esc(n));
    }
    body.push_str("</tr></thead><tbody>");
    for row in &c.rows {
        let _ = write!(body, "<tr><td class=\"name\">{}</td>", esc(&row.label));
        for r in &row.runs {
            let v = r.as_ref().map_or_else(String::new, super::compare::at);
            let _ = write!(body, "<td>{v}</td>");
        }
        body.push_str("</tr>");
    }
    body.push_str("</tbody></table></section>");
    if !c.watch.is_empty() {
        body.push_str(&super::watch::compare_html(&c.watch, &names));
    }

    body.push_str("<section id=\"charts\"><h2>Over time</h2>");
    let overlay = |id: &str, title: &str, y_label: &str, x: XAxis, pick: &dyn Fn(&RunData) -> Vec<(f64, f64)>| Chart {
        id: id.into(),
        title: title.into(),
        x,
        x_label: if x == XAxis::Percentile { "percentile".into() } else { "time since start".into() },
        y_label: y_label.into(),
        lines: runs
            .iter()
            .zip(&names)
            .enumerate()
            .map(|(i, (r, n))| Line { name: n.to_string(), points: pick(r), dashed: i > 0 })
            .collect(),
    };
    let over_time = |f: fn(&super::series::Point) -> f64| {
        move |r: &RunData| r.series.points.iter().map(|p| (p.t_s, f(p))).collect()
    };
    for chart in [
        overlay("chart-throughput", "Throughput (all requests)", "requests/s", XAxis::Seconds, &over_time(|p| p.rps)),
        overlay("chart-p99", "99th percentile response time", "ms", XAxis::Seconds, &over_time(|p| p.p99_ms)),
        overlay("chart-p50", "Median response time", "ms", XAxis::Seconds, &over_time(|p| p.p50_ms)),
        overlay("chart-users", "Active users", "users", XAxis::Seconds, &over_time(|p| p.active_users as f64)),
        overlay("chart-errors", "Errors", "errors/s", XAxis::Seconds, &over_time(|p| p.errors_per_s)),
        overlay(
            "chart-distribution",
            "Latency distribution (all requests)",
            "ms",
            XAxis::Percentile,
            &|r: &RunData| r.series.distribution.clone(),
        ),
    ] {
        let _ = write!(body, "<figure>{}</figure>", svg::render(&chart));
    }
    body.push_str("</section>");
    page(&format!("{} — stampede comparison", names.join(" vs ")), &body)
}
