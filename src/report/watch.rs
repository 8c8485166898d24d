//! The "System under test" section: what `run --watch` sampled ([`WatchSummary`]), per source
//! and metric, in Markdown and HTML (a table, each failure and departure said plainly, a chart
//! per metric), and the same metrics side by side in `compare`.

use super::compare::Delta;
use super::esc;
use super::markdown::cell;
use super::svg::{self, Chart, Line, XAxis};
use crate::rundir::watch::{MetricKind, MetricSummary, SourceSummary, WatchSummary};
use serde::Serialize;
use std::fmt::Write;

/// The most charts the HTML section draws (a JVM's endpoint has hundreds of metrics): CPU first,
/// then counters' rates, then the rest, in the sources' order.
const MAX_CHARTS: usize = 12;

const NOTE: &str = "Gauges: average, lowest and highest of the samples. Counters (`/s`): rate per second \
between samples (Avg over the whole span), and Total, the increase over the run. CPU in cores: CPU time \
over wall time (1.0 = one core busy the whole second).";

/// A metric's name as the table shows it: counters as rates.
fn metric_name(m: &MetricSummary) -> String {
    match m.kind {
        MetricKind::Counter => format!("{} /s", m.name),
        MetricKind::Gauge => m.name.clone(),
    }
}

/// A value in the metric's unit: bytes in MB, cores and small values with decimals.
pub(crate) fn value(name: &str, v: f64) -> String {
    if name.ends_with("_bytes") {
        return format!("{:.1} MB", v / 1e6);
    }
    let a = v.abs();
    if a >= 1000.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn opt(name: &str, v: Option<f64>) -> String {
    v.map_or_else(|| "—".into(), |v| value(name, v))
}

/// The source's failures and departure, in words; empty when it answered every time.
pub(crate) fn states(s: &SourceSummary) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(g) = &s.gone {
        let back = if s.gone_at_end { "" } else { ", and came back later" };
        out.push(format!("gone at {:.1} s: {}{back}", g.t_s, g.reason));
    }
    if s.errors > 0 {
        let first =
            s.first_error.as_ref().map_or_else(String::new, |e| format!("; first at {:.1} s: {}", e.t_s, e.reason));
        let last =
            s.last_error.as_ref().map_or_else(String::new, |e| format!("; last at {:.1} s: {}", e.t_s, e.reason));
        out.push(format!("failed {} of {} samples{first}{last}", s.errors, s.samples));
    }
    if let Some(n) = s.dropped_series {
        out.push(format!(
            "only the first {} series of each sample were kept: up to {n} more were dropped",
            crate::rundir::watch::MAX_SERIES
        ));
    }
    if s.metrics.is_empty() && out.is_empty() {
        out.push("no values".into());
    }
    out
}

/// The section as Markdown.
pub(crate) fn markdown(w: &WatchSummary) -> String {
    let mut out = String::from("#### System under test\n\n");
    let _ = writeln!(out, "| Source | Metric | Avg | Min | Max | Total | Samples |\n|:--|:--|--:|--:|--:|--:|--:|");
    for s in &w.sources {
        for m in &s.metrics {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                cell(&s.source),
                cell(&metric_name(m)),
                opt(&m.name, m.avg),
                opt(&m.name, m.min),
                opt(&m.name, m.max),
                m.total.map_or_else(String::new, |t| value(&m.name, t)),
                m.samples
            );
        }
        if s.metrics.is_empty() {
            let _ = writeln!(out, "| {} | — | — | — | — | | 0 |", cell(&s.source));
        }
    }
    out.push('\n');
    for s in &w.sources {
        for st in states(s) {
            let _ = writeln!(out, "**{}:** {}.\n", cell(&s.source), cell(&st));
        }
    }
    let _ = writeln!(out, "{NOTE}\n");
    out
}

/// The section as HTML: the table, the states, and charts over time.
pub(crate) fn html(w: &WatchSummary) -> String {
    let mut body = String::from("<section id=\"watch\"><h2>System under test</h2>");
    body.push_str("<table class=\"num\"><thead><tr><th>Source</th><th>Metric</th><th>Avg</th><th>Min</th><th>Max</th><th>Total</th><th>Samples</th></tr></thead><tbody>");
    for s in &w.sources {
        for m in &s.metrics {
            let _ = write!(
                body,
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&s.source),
                esc(&metric_name(m)),
                esc(&opt(&m.name, m.avg)),
                esc(&opt(&m.name, m.min)),
                esc(&opt(&m.name, m.max)),
                esc(&m.total.map_or_else(String::new, |t| value(&m.name, t))),
                m.samples
            );
        }
    }
    body.push_str("</tbody></table>");
    for s in &w.sources {
        for st in states(s) {
            let _ = write!(body, "<p class=\"watch-state\"><strong>{}:</strong> {}.</p>", esc(&s.source), esc(&st));
        }
    }
    let _ = write!(body, "<p class=\"note\">{}</p>", esc(&NOTE.replace('`', "")));
    let mut charted: Vec<(&SourceSummary, &MetricSummary)> = w
        .sources
        .iter()
        .flat_map(|s| s.metrics.iter().map(move |m| (s, m)))
        .filter(|(_, m)| m.points.len() > 1)
        .collect();
    let rank = |m: &MetricSummary| match (m.name.as_str(), m.kind) {
        ("cpu_cores", _) => 0,
        (_, MetricKind::Counter) => 1,
        _ => 2,
    };
    charted.sort_by_key(|(_, m)| rank(m));
    let left_out = charted.len().saturating_sub(MAX_CHARTS);
    for (k, (s, m)) in charted.into_iter().take(MAX_CHARTS).enumerate() {
        let (scale, unit) = match (m.name.ends_with("_bytes"), m.kind) {
            (true, _) => (1e-6, "MB"),
            (false, MetricKind::Counter) => (1.0, "per second"),
            (false, MetricKind::Gauge) if m.name == "cpu_cores" => (1.0, "cores"),
            (false, MetricKind::Gauge) => (1.0, ""),
        };
        let chart = Chart {
            id: format!("chart-watch-{k}"),
            title: format!("{} — {}", s.source, metric_name(m)),
            x: XAxis::Seconds,
            x_label: "time since the load began".into(),
            y_label: unit.into(),
            lines: vec![Line {
                name: metric_name(m),
                points: m.points.iter().map(|(t, v)| (*t, v * scale)).collect(),
                dashed: false,
            }],
        };
        let _ = write!(body, "<figure>{}</figure>", svg::render(&chart));
    }
    if left_out > 0 {
        let _ = write!(body, "<p class=\"note\">{left_out} more metrics are in the table, not charted.</p>");
    }
    body.push_str("</section>");
    body
}

/// One metric of one source in every run compared.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WatchRow {
    pub source: String,
    pub metric: String,
    pub kind: MetricKind,
    /// Per run: its avg and max; `None` where the run did not have the metric.
    pub runs: Vec<Option<MinMax>>,
    /// Per run, its deltas from the first run (`None` for the first, and where either lacks it).
    pub deltas: Vec<Option<WatchDelta>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct MinMax {
    pub avg: Option<f64>,
    pub max: Option<f64>,
}

/// The avg's difference weighed against the runs' noise (batch means of the samples), the max's
/// shown as it is (one sample sets it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct WatchDelta {
    pub avg: Option<Delta>,
    pub max: Option<Delta>,
}

/// The metrics of the runs' watched sources side by side, the first run the baseline. Sources
/// match by name (`pid:` numbers differ between runs: the same process is better watched as
/// `proc:NAME`).
pub(crate) fn compare(runs: &[Option<&WatchSummary>]) -> Vec<WatchRow> {
    let mut keys: Vec<(String, String, MetricKind)> = Vec::new();
    for w in runs.iter().flatten() {
        for s in &w.sources {
            for m in &s.metrics {
                if !keys.iter().any(|(a, b, _)| *a == s.source && *b == m.name) {
                    keys.push((s.source.clone(), m.name.clone(), m.kind));
                }
            }
        }
    }
    keys.into_iter()
        .map(|(source, metric, kind)| {
            let found: Vec<Option<&MetricSummary>> = runs
                .iter()
                .map(|w| {
                    w.and_then(|w| w.sources.iter().find(|s| s.source == source))
                        .and_then(|s| s.metrics.iter().find(|m| m.name == metric))
                })
                .collect();
            let deltas = found
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let (base, this) = (found[0]?, (*m)?);
                    if i == 0 {
                        return None;
                    }
                    let noise = noise(&base.points).zip(noise(&this.points)).map(|(a, b)| a.hypot(b));
                    Some(WatchDelta {
                        avg: base.avg.zip(this.avg).map(|(a, b)| Delta::new(a, b, noise)),
                        max: base.max.zip(this.max).map(|(a, b)| Delta::unweighed(a, b)),
                    })
                })
                .collect();
            WatchRow {
                source,
                metric,
                kind,
                runs: found.iter().map(|m| m.map(|m| MinMax { avg: m.avg, max: m.max })).collect(),
                deltas,
            }
        })
        .collect()
}

/// The standard error of a metric's average from the batch means of its chart's points (each
/// already an average of a span), as the latency figures' noise is; `None` for fewer than
/// `MIN_BATCHES` batches.
fn noise(points: &[(f64, f64)]) -> Option<f64> {
    use super::series::{MAX_BATCHES, MIN_BATCHES};
    let k = MAX_BATCHES.min(points.len());
    if k < MIN_BATCHES {
        return None;
    }
    let per = points.len() / k;
    let means: Vec<f64> =
        points.chunks_exact(per).take(k).map(|c| c.iter().map(|p| p.1).sum::<f64>() / per as f64).collect();
    let n = means.len() as f64;
    let mean = means.iter().sum::<f64>() / n;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((var / n).sqrt())
}

/// The comparison's section as Markdown: a row per run under each source and metric.
pub(crate) fn compare_markdown(rows: &[WatchRow], names: &[String]) -> String {
    let mut out = String::from("\n#### System under test\n\n| Source | Metric | Run | Avg | Max | Δ Avg | Δ Max |\n|:--|:--|:--|--:|--:|--:|--:|\n");
    for r in rows {
        let name = match r.kind {
            MetricKind::Counter => format!("{} /s", r.metric),
            MetricKind::Gauge => r.metric.clone(),
        };
        for (i, run) in r.runs.iter().enumerate() {
            let d = r.deltas.get(i).copied().flatten();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                cell(&r.source),
                cell(&name),
                cell(names.get(i).map_or("", String::as_str)),
                run.map_or_else(|| "—".into(), |m| opt(&r.metric, m.avg)),
                run.map_or_else(|| "—".into(), |m| opt(&r.metric, m.max)),
                d.and_then(|d| d.avg).map_or_else(String::new, |d| d.text()),
                d.and_then(|d| d.max).map_or_else(String::new, |d| d.text()),
            );
        }
    }
    out.push_str("\nΔ Avg is weighed against the runs' noise (batch means of their samples) as the figures above are; Δ Max has no mark.\n");
    out
}

/// The comparison's section as HTML, as [`compare_markdown`] lays it out.
pub(crate) fn compare_html(rows: &[WatchRow], names: &[&str]) -> String {
    let mut body = String::from("<section id=\"watch\"><h2>System under test</h2><div class=\"scroll\"><table class=\"num compare\"><thead><tr><th>Source</th><th>Metric</th><th>Run</th><th>Avg</th><th>Max</th></tr></thead><tbody>");
    for r in rows {
        let name = match r.kind {
            MetricKind::Counter => format!("{} /s", r.metric),
            MetricKind::Gauge => r.metric.clone(),
        };
        for (i, run) in r.runs.iter().enumerate() {
            let d = r.deltas.get(i).copied().flatten();
            let cell = |v: Option<f64>, delta: Option<Delta>| {
                let v = run.map_or_else(|| "—".into(), |_| opt(&r.metric, v));
                let delta = delta.map_or_else(String::new, |d| {
                    let class = if d.significant == Some(true) || !d.weighed { "delta" } else { "delta noise" };
                    format!("<br><span class=\"{class}\">{}</span>", esc(&d.text()))
                });
                format!("<td>{}{delta}</td>", esc(&v))
            };
            let _ = write!(
                body,
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td>{}{}</tr>",
                if i == 0 { esc(&r.source) } else { String::new() },
                if i == 0 { esc(&name) } else { String::new() },
                esc(names.get(i).copied().unwrap_or("")),
                cell(run.and_then(|m| m.avg), d.and_then(|d| d.avg)),
                cell(run.and_then(|m| m.max), d.and_then(|d| d.max)),
            );
        }
    }
    body.push_str("</tbody></table></div><p class=\"note\">Differences are from the first run; the average's is weighed against the runs' noise (batch means of their samples), the maximum's is not.</p></section>");
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(name: &str, kind: MetricKind, avg: f64, max: f64, points: Vec<(f64, f64)>) -> MetricSummary {
        MetricSummary {
            name: name.into(),
            kind,
            samples: points.len() as u64,
            avg: Some(avg),
            min: Some(0.0),
            max: Some(max),
            last: avg,
            total: (kind == MetricKind::Counter).then_some(avg * 10.0),
            points,
        }
    }

    fn summary(metrics: Vec<MetricSummary>, gone: bool) -> WatchSummary {
        WatchSummary {
            warning: None,
            sources: vec![SourceSummary {
                dropped_series: None,
                source: "pid:42".into(),
                samples: 6,
                errors: 1,
                first_error: Some(crate::rundir::watch::Event { t_s: 1.0, reason: "refused".into() }),
                last_error: None,
                gone: gone.then(|| crate::rundir::watch::Event { t_s: 4.0, reason: "process 42 exited".into() }),
                gone_at_end: gone,
                metrics,
            }],
        }
    }

    #[test]
    fn the_section_states_failures_and_departures_plainly() {
        let w = summary(vec![metric("cpu_cores", MetricKind::Gauge, 0.998, 1.01, vec![(1.0, 1.0), (2.0, 0.99)])], true);
        let md = markdown(&w);
        assert!(md.contains("| pid:42 | cpu_cores | 0.998 | 0 | 1.01 |  | 2 |"), "{md}");
        assert!(md.contains("**pid:42:** gone at 4.0 s: process 42 exited.\n"), "{md}");
        assert!(md.contains("**pid:42:** failed 1 of 6 samples; first at 1.0 s: refused.\n"), "{md}");
        let html = html(&w);
        assert!(html.contains("id=\"chart-watch-0\""), "{html}");
    }

    #[test]
    fn compare_weighs_the_average_against_the_noise() {
        let flat = |v: f64| (0..40).map(|i| (i as f64, v + if i % 2 == 0 { 0.01 } else { -0.01 })).collect();
        let a = summary(vec![metric("cpu_cores", MetricKind::Gauge, 1.0, 1.1, flat(1.0))], false);
        let b = summary(vec![metric("cpu_cores", MetricKind::Gauge, 2.0, 2.2, flat(2.0))], false);
        let rows = compare(&[Some(&a), Some(&b)]);
        let d = rows[0].deltas[1].unwrap();
        assert_eq!(d.avg.unwrap().abs, 1.0);
        assert_eq!(d.avg.unwrap().significant, Some(true));
        assert_eq!(d.max.unwrap().significant, None);
        let md = compare_markdown(&rows, &["a".into(), "b".into()]);
        assert!(md.contains("| pid:42 | cpu_cores | b | 2 | 2.20 | +1.00 (+100.0%) | +1.10 (+100.0%) |"), "{md}");
        assert!(rows[0].deltas[0].is_none());
        let html = compare_html(&rows, &["a", "b"]);
        assert!(html.contains("<td>2<br><span class=\"delta\">+1.00 (+100.0%)</span></td>"), "{html}");
        assert!(compare(&[Some(&a), None])[0].deltas[1].is_none());
    }
}
