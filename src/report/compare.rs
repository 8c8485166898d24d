//! Runs side by side: per label, each run's figures and their differences from the first run
//! (the baseline), with each difference weighed against the runs' own noise, so a change that
//! a repeat of the same run could show is never presented as a win or a loss.
//!
//! A difference is *significant* when it is larger than twice the combined standard error of
//! the two figures, √(seA² + seB²), each from its run's batch means (`series`): about
//! a 95% chance that a real change, not run-to-run noise, is behind it.

use super::markdown::cell;
use super::series::Noise;
use super::RunData;
use crate::metric::Metric;
use crate::rundir::{LabelSummary, UpstreamSummary};
use serde::Serialize;

/// The figures compared, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Figure {
    ThroughputRps,
    MeanMs,
    P95Ms,
    P99Ms,
    MaxMs,
    ErrorPct,
}

pub(crate) const FIGURES: [Figure; 6] =
    [Figure::ThroughputRps, Figure::MeanMs, Figure::P95Ms, Figure::P99Ms, Figure::MaxMs, Figure::ErrorPct];

impl Figure {
    pub(crate) fn title(self) -> &'static str {
        match self {
            Figure::ThroughputRps => "Transactions/s",
            Figure::MeanMs => "Average",
            Figure::P95Ms => "95th pct",
            Figure::P99Ms => "99th pct",
            Figure::MaxMs => "Max",
            Figure::ErrorPct => "Error %",
        }
    }

    pub(crate) fn of(self, r: &LabelSummary) -> f64 {
        let metric = match self {
            Figure::ThroughputRps => Metric::Throughput,
            Figure::MeanMs => Metric::Mean,
            Figure::P95Ms => Metric::P95,
            Figure::P99Ms => Metric::P99,
            Figure::MaxMs => Metric::Max,
            Figure::ErrorPct => Metric::ErrorPct,
        };
        r.value(metric)
    }

    /// The figure's standard error; `None` for the maximum, which one sample sets: batch
    /// means say nothing of how far a repeat's maximum could be.
    fn noise(self, n: &Noise) -> Option<f64> {
        match self {
            Figure::ThroughputRps => Some(n.throughput_rps),
            Figure::MeanMs => Some(n.mean_ms),
            Figure::P95Ms => Some(n.p95_ms),
            Figure::P99Ms => Some(n.p99_ms),
            Figure::MaxMs => None,
            Figure::ErrorPct => Some(n.error_pct),
        }
    }

    /// Whether its differences are weighed against the runs' noise (all but the maximum).
    fn weighed(self) -> bool {
        self != Figure::MaxMs
    }
}

/// A figure of one run against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Delta {
    pub abs: f64,
    /// `abs` over the baseline's figure; `None` when that is 0.
    pub rel: Option<f64>,
    /// The combined standard error of the two figures; `None` when a run is too short (fewer
    /// than `series::MIN_BATCHES` batches) to estimate it.
    pub noise: Option<f64>,
    /// `|abs| > 2 × noise`; `None` when the noise is unknown or not weighed.
    pub significant: Option<bool>,
    /// False for a figure never weighed against noise (the maximum): no mark in its text, and
    /// `significant` and `noise` are then null for that reason.
    pub weighed: bool,
}

impl Delta {
    pub(crate) fn new(base: f64, other: f64, noise: Option<f64>) -> Delta {
        let abs = other - base;
        let rel = (base != 0.0).then(|| abs / base);
        // Equal figures are equal, whatever the noise.
        let significant = if abs == 0.0 { Some(false) } else { noise.map(|n| abs.abs() > 2.0 * n) };
        Delta { abs, rel, noise, significant, weighed: true }
    }

    /// A difference shown as it is, with no noise mark.
    pub(crate) fn unweighed(base: f64, other: f64) -> Delta {
        Delta { weighed: false, significant: None, ..Delta::new(base, other, None) }
    }

    /// `+12.30 (+5.1%)`, marked `≈` within the noise and `?` when the noise is unknown.
    pub(crate) fn text(&self) -> String {
        if self.abs == 0.0 {
            return "±0".into();
        }
        let rel = self.rel.map_or_else(String::new, |r| format!(" ({:+.1}%)", r * 100.0));
        let mark = match self.significant {
            _ if !self.weighed => "",
            Some(true) => "",
            Some(false) => "≈ ",
            None => "? ",
        };
        format!("{mark}{:+.2}{rel}", self.abs)
    }
}

/// One row of a comparison: a label (or the Total) in every run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    pub label: String,
    /// The label's figures in each run; `None` where a run has no such label.
    pub runs: Vec<Option<LabelSummary>>,
    /// Per run, its deltas from the first run, figure by figure (`None` for the first run and
    /// where either run lacks the label).
    pub deltas: Vec<Option<Vec<FigureDelta>>>,
    /// Per run, how its upstream split differs from the first run's (`None` where either has
    /// none); empty when no run of the label has one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub upstream_deltas: Vec<Option<UpstreamDeltas>>,
}

/// The upstream split of one run against the baseline's, in ms. Not weighed against noise:
/// the per-second log keeps no upstream split to estimate it from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct UpstreamDeltas {
    pub mean_ms: Delta,
    pub p95_ms: Delta,
    pub mean_overhead_ms: Delta,
    pub p95_overhead_ms: Delta,
    pub max_overhead_ms: Delta,
}

/// One figure of an upstream split, as read from it.
pub(crate) type UpstreamFigure = fn(&UpstreamSummary) -> f64;

/// The upstream split's figures a comparison shows, with their titles.
pub(crate) const UPSTREAM_FIGURES: [(&str, UpstreamFigure); 5] = [
    ("Upstream avg", |u| u.mean_ms),
    ("Upstream 95th", |u| u.p95_ms),
    ("Overhead avg", |u| u.mean_overhead_ms),
    ("Overhead 95th", |u| u.p95_overhead_ms),
    ("Overhead max", |u| u.max_overhead_ms),
];

impl UpstreamDeltas {
    fn new(base: &UpstreamSummary, other: &UpstreamSummary) -> UpstreamDeltas {
        let d = |f: fn(&UpstreamSummary) -> f64| Delta::unweighed(f(base), f(other));
        let [mean_ms, p95_ms, mean_overhead_ms, p95_overhead_ms, max_overhead_ms] = UPSTREAM_FIGURES.map(|(_, f)| d(f));
        UpstreamDeltas { mean_ms, p95_ms, mean_overhead_ms, p95_overhead_ms, max_overhead_ms }
    }

    fn all(&self) -> [Delta; 5] {
        [self.mean_ms, self.p95_ms, self.mean_overhead_ms, self.p95_overhead_ms, self.max_overhead_ms]
    }
}

/// The upstream split side by side (a row per label and run, as the first table): the
/// header and each row's cells, or `None` when no run's responses told the upstream's time.
pub(crate) fn upstream_table(c: &Comparison) -> Option<(Vec<String>, Vec<Vec<String>>)> {
    let mut head: Vec<String> = ["API", "Run", "With timing"].map(String::from).to_vec();
    head.extend(UPSTREAM_FIGURES.iter().map(|(t, _)| t.to_string()));
    head.extend(UPSTREAM_FIGURES.iter().map(|(t, _)| format!("Δ {t}")));
    let mut rows = Vec::new();
    for row in c.rows.iter().filter(|r| !r.upstream_deltas.is_empty()) {
        for (i, run) in c.runs.iter().enumerate() {
            let mut cells = vec![if i == 0 { cell(&row.label) } else { String::new() }, cell(&run.name)];
            match row.runs[i].as_ref().and_then(|r| Some((r, r.upstream.as_ref()?))) {
                None => cells.extend(std::iter::repeat_n("—".to_string(), 1 + 2 * UPSTREAM_FIGURES.len())),
                Some((r, u)) => {
                    cells.push(format!("{} of {}", u.samples, r.samples));
                    cells.extend(UPSTREAM_FIGURES.iter().map(|(_, f)| format!("{:.2}", f(u))));
                    match &row.upstream_deltas[i] {
                        Some(d) => cells.extend(d.all().iter().map(Delta::text)),
                        None => cells.extend(std::iter::repeat_n(
                            if i == 0 { "baseline" } else { "—" }.to_string(),
                            UPSTREAM_FIGURES.len(),
                        )),
                    }
                }
            }
            rows.push(cells);
        }
    }
    (!rows.is_empty()).then_some((head, rows))
}

/// Under the upstream table.
pub(crate) const UPSTREAM_COMPARE_NOTE: &str =
    "Upstream: the time the responses' headers say the upstream took; overhead: \
     elapsed − upstream per sample (the gateway, proxy or sidecar in front, and the network to it). Times in ms; \
     differences from the first run, not weighed against noise.";

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct FigureDelta {
    pub figure: Figure,
    #[serde(flatten)]
    pub delta: Delta,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunFacts {
    pub name: String,
    pub source: String,
    pub plan: String,
    pub started_at: String,
    pub duration_s: Option<f64>,
    pub workload: Vec<String>,
    /// Batches the noise estimate used (0: too short to estimate).
    pub noise_batches: usize,
}

/// Runs compared, the first being the baseline.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Comparison {
    pub runs: Vec<RunFacts>,
    /// The Total first, then every label in the order the runs list them.
    pub rows: Vec<Row>,
    /// The watched sources' metrics (`run --watch`), when a run has any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub watch: Vec<super::watch::WatchRow>,
}

pub(crate) fn compare(runs: &[(String, String, &RunData)]) -> Comparison {
    let mut labels: Vec<String> = vec![crate::metric::TOTAL.to_string()];
    for (_, _, r) in runs {
        for l in &r.summary.labels {
            if !labels.contains(&l.label) {
                labels.push(l.label.clone());
            }
        }
    }
    let row_of = |r: &RunData, label: &str| -> Option<LabelSummary> {
        if label == crate::metric::TOTAL {
            Some(r.summary.total.clone())
        } else {
            r.summary.labels.iter().find(|l| l.label == label).cloned()
        }
    };
    let rows = labels
        .iter()
        .map(|label| {
            let cells: Vec<Option<LabelSummary>> = runs.iter().map(|(_, _, r)| row_of(r, label)).collect();
            let base_noise = runs[0].2.series.noise(label);
            let deltas = cells
                .iter()
                .enumerate()
                .map(|(i, cell)| {
                    let (base, this) = (cells[0].as_ref()?, cell.as_ref()?);
                    if i == 0 {
                        return None;
                    }
                    let noise = runs[i].2.series.noise(label);
                    Some(
                        FIGURES
                            .iter()
                            .map(|f| {
                                let delta = if f.weighed() {
                                    let n = match (base_noise.and_then(|a| f.noise(a)), noise.and_then(|b| f.noise(b)))
                                    {
                                        (Some(a), Some(b)) => Some(a.hypot(b)),
                                        _ => None,
                                    };
                                    Delta::new(f.of(base), f.of(this), n)
                                } else {
                                    Delta::unweighed(f.of(base), f.of(this))
                                };
                                FigureDelta { figure: *f, delta }
                            })
                            .collect(),
                    )
                })
                .collect();
            let upstream_deltas = if cells.iter().flatten().any(|c| c.upstream.is_some()) {
                let base = cells[0].as_ref().and_then(|c| c.upstream.as_ref());
                cells
                    .iter()
                    .enumerate()
                    .map(|(i, c)| match (base, c.as_ref().and_then(|c| c.upstream.as_ref())) {
                        (Some(b), Some(u)) if i > 0 => Some(UpstreamDeltas::new(b, u)),
                        _ => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            Row { label: label.clone(), runs: cells, deltas, upstream_deltas }
        })
        .collect();
    let facts = runs
        .iter()
        .map(|(name, source, r)| RunFacts {
            name: name.clone(),
            source: source.clone(),
            plan: r.meta.plan_name.clone(),
            started_at: r.meta.started_at.clone(),
            duration_s: r.meta.duration_s,
            workload: r.meta.scenarios.iter().map(|s| format!("{}: {}", s.name, s.workload)).collect(),
            noise_batches: r.series.total_noise.map_or(0, |n| n.batches),
        })
        .collect();
    let watched: Vec<_> = runs.iter().map(|(_, _, r)| r.summary.watch.as_ref()).collect();
    let watch = if watched.iter().any(Option::is_some) { super::watch::compare(&watched) } else { Vec::new() };
    Comparison { runs: facts, rows, watch }
}

/// How a Markdown comparison is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// A row per run under each label, deltas beside (the seed's "Without OPA / With OPA" table).
    Rows,
    /// A row per label, each figure's runs and deltas side by side.
    Columns,
    /// A row per label, a column per run: `Throughput/sec @ avg resp time` (the seed's
    /// "1 Server / 2 Servers" table).
    Scaling,
}

/// The comparison as Markdown: the runs, the table, and how to read the marks.
pub(crate) fn markdown(c: &Comparison, layout: Layout) -> String {
    let mut out = String::new();
    out.push_str("| Run | Source | Plan | Started | Duration |\n|:--|:--|:--|:--|--:|\n");
    for r in &c.runs {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} | {} |\n",
            cell(&r.name),
            cell(&r.source.replace('`', "'")),
            cell(&r.plan),
            super::markdown::when(&r.started_at),
            r.duration_s.map_or_else(String::new, super::markdown::duration)
        ));
    }
    out.push('\n');
    match layout {
        Layout::Rows => rows_table(c, &mut out),
        Layout::Columns => columns_table(c, &mut out),
        Layout::Scaling => scaling_table(c, &mut out),
    }
    if layout != Layout::Scaling {
        out.push_str(&format!(
            "\nΔ: difference from {} (the first run). Times in ms. ≈ marks a difference within the runs' own \
             noise (less than twice their combined standard error, from batch means of their per-second \
             intervals): a repeat of the same run could show it. ? marks a run too short to estimate its noise. \
             Max has no mark: one sample sets it.\n",
            c.runs.first().map_or("the baseline", |r| r.name.as_str())
        ));
    } else {
        out.push_str("\nTimes in ms.\n");
    }
    if let Some((head, rows)) = upstream_table(c).filter(|_| layout != Layout::Scaling) {
        out.push('\n');
        header(&mut out, &head.iter().map(String::as_str).collect::<Vec<_>>(), 2);
        for cells in &rows {
            line(&mut out, cells);
        }
        out.push_str(&format!("\n{UPSTREAM_COMPARE_NOTE}\n"));
    }
    if !c.watch.is_empty() {
        let names: Vec<String> = c.runs.iter().map(|r| r.name.clone()).collect();
        out.push_str(&super::watch::compare_markdown(&c.watch, &names));
    }
    out
}

fn rows_table(c: &Comparison, out: &mut String) {
    let mut head = vec!["API", "Run", "Samples", "KO"];
    head.extend(FIGURES.iter().map(|f| f.title()));
    let deltas: Vec<String> = FIGURES.iter().map(|f| format!("Δ {}", f.title())).collect();
    head.extend(deltas.iter().map(String::as_str));
    header(out, &head, 2);
    for row in &c.rows {
        for (i, run) in c.runs.iter().enumerate() {
            let mut cells = vec![if i == 0 { cell(&row.label) } else { String::new() }, cell(&run.name)];
            match &row.runs[i] {
                None => cells.extend(std::iter::repeat_n("—".to_string(), 2 + 2 * FIGURES.len())),
                Some(r) => {
                    cells.push(r.samples.to_string());
                    cells.push(r.errors.to_string());
                    cells.extend(FIGURES.iter().map(|f| number(*f, f.of(r))));
                    match &row.deltas[i] {
                        Some(d) => cells.extend(d.iter().map(|d| d.delta.text())),
                        None => cells.extend(std::iter::repeat_n(
                            if i == 0 { "baseline" } else { "—" }.to_string(),
                            FIGURES.len(),
                        )),
                    }
                }
            }
            line(out, &cells);
        }
    }
}

fn columns_table(c: &Comparison, out: &mut String) {
    let mut head: Vec<String> = vec!["API".into()];
    for f in FIGURES {
        for (i, r) in c.runs.iter().enumerate() {
            head.push(format!("{} ({})", f.title(), r.name));
            if i > 0 {
                head.push(format!("Δ {} ({})", f.title(), r.name));
            }
        }
    }
    header(out, &head.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    for row in &c.rows {
        let mut cells = vec![cell(&row.label)];
        for (k, f) in FIGURES.iter().enumerate() {
            for i in 0..c.runs.len() {
                cells.push(row.runs[i].as_ref().map_or_else(|| "—".into(), |r| number(*f, f.of(r))));
                if i > 0 {
                    cells.push(row.deltas[i].as_ref().map_or_else(|| "—".into(), |d| d[k].delta.text()));
                }
            }
        }
        line(out, &cells);
    }
}

fn scaling_table(c: &Comparison, out: &mut String) {
    let mut head: Vec<String> = vec!["API".into()];
    head.extend(c.runs.iter().map(|r| format!("{} (Throughput/sec @ avg resp time)", r.name)));
    header(out, &head.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    for row in &c.rows {
        let mut cells = vec![cell(&row.label)];
        cells.extend(row.runs.iter().map(|r| r.as_ref().map_or_else(String::new, at)));
        line(out, &cells);
    }
}

/// `2459.7 @ 92`: throughput at the mean time, which keeps two decimals when it is small.
pub(crate) fn at(r: &LabelSummary) -> String {
    let digits = if r.mean_ms >= 100.0 {
        0
    } else if r.mean_ms >= 10.0 {
        1
    } else {
        2
    };
    format!("{:.1} @ {:.*}", r.throughput_rps, digits, r.mean_ms)
}

fn number(f: Figure, v: f64) -> String {
    match f {
        Figure::ErrorPct => format!("{v:.2}%"),
        _ => format!("{v:.2}"),
    }
}

/// A header row and its rule: the first `left` columns are text (left-aligned), the rest numbers.
fn header(out: &mut String, head: &[&str], left: usize) {
    line(out, &head.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    let rule: Vec<String> = (0..head.len()).map(|i| if i < left { ":--".into() } else { "--:".into() }).collect();
    line(out, &rule);
}

fn line(out: &mut String, cells: &[String]) {
    out.push('|');
    for c in cells {
        out.push(' ');
        out.push_str(c);
        out.push_str(" |");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_weighed_against_the_noise() {
        let d = Delta::new(100.0, 110.0, Some(2.0));
        assert_eq!((d.abs, d.rel, d.significant), (10.0, Some(0.1), Some(true)));
        assert_eq!(d.text(), "+10.00 (+10.0%)");
        let d = Delta::new(100.0, 103.0, Some(2.0));
        assert_eq!(d.significant, Some(false));
        assert_eq!(d.text(), "≈ +3.00 (+3.0%)");
        let d = Delta::new(0.0, 0.5, None);
        assert_eq!((d.rel, d.significant), (None, None));
        assert_eq!(d.text(), "? +0.50");
        assert_eq!(Delta::new(5.0, 5.0, None).significant, Some(false));
        assert_eq!(Delta::new(5.0, 5.0, None).text(), "±0");
        assert_eq!(Delta::unweighed(10.0, 15.0).text(), "+5.00 (+50.0%)", "a maximum carries no noise mark");
    }
}
