//! A sweep: one plan run step after step at growing load (users, or arrivals per second), each
//! step a run directory of its own; this module owns what is read across the steps — the
//! table per step, the knee, the Universal Scalability Law fit and where an SLO broke — and
//! `sweep.json`, the sweep's own record — and running the steps ([`driver`]), each a run in
//! this process or on agents, as its caller says.

pub(crate) mod driver;

use serde::{Deserialize, Serialize};

/// `sweep.json`'s `format`: raised when a field changes meaning.
pub(crate) const FORMAT: u32 = 1;
/// The sweep's record in its directory, rewritten after every step.
pub(crate) const RECORD: &str = "sweep.json";
/// The sweep's tables, for documents.
pub(crate) const TABLES: &str = "sweep.md";

/// What a sweep varies from step to step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Load {
    /// Closed model: users (threads) per scenario.
    Users,
    /// Open model: iterations started per second.
    Rate,
}

impl Load {
    /// The column's title.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Load::Users => "Users",
            Load::Rate => "Rate (/s)",
        }
    }
}

/// One label's (or the Total's) numbers in one step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Figures {
    pub label: String,
    pub samples: u64,
    pub errors: u64,
    pub error_pct: f64,
    /// Samples per second, failed ones included (JMeter's Throughput).
    pub throughput_rps: f64,
    /// Successful samples per second: what the knee and the fit read, so that fast failures
    /// never pass for scaling.
    pub ok_rps: f64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Open model: arrivals dropped because every user was busy (the Total only).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl Figures {
    pub(crate) fn of(s: &crate::rundir::LabelSummary) -> Figures {
        Figures {
            label: s.label.clone(),
            samples: s.samples,
            errors: s.errors,
            error_pct: s.error_pct,
            throughput_rps: s.throughput_rps,
            ok_rps: s.throughput_rps * (1.0 - s.error_pct / 100.0),
            mean_ms: s.mean_ms,
            p50_ms: s.p50_ms,
            p95_ms: s.p95_ms,
            p99_ms: s.p99_ms,
            max_ms: s.max_ms,
            dropped: s.dropped_iterations.unwrap_or(0),
        }
    }
}

/// One step: its load, its run directory (relative to the sweep's), and its numbers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Step {
    pub load: f64,
    pub dir: String,
    pub status: String,
    pub total: Figures,
    pub labels: Vec<Figures>,
    /// The generator's CPU, % of its cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pct: Option<f64>,
    /// Mean requests in flight (Little's law: throughput × mean time): the concurrency the
    /// Universal Scalability Law is fitted against in an open-model sweep.
    pub concurrency: f64,
    /// The `--until` condition it met, which ended the sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broke: Option<String>,
    /// The `--threshold` goals it failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// A step of `--refine`, between the highest load that met `--until` and the lowest that
    /// did not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refine: bool,
}

/// The sweep's record (`sweep.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub format: u32,
    pub tool: String,
    pub version: String,
    pub plan_name: String,
    pub load: Load,
    /// The loads asked for, in order (the sweep may end before the last).
    pub planned: Vec<f64>,
    pub step_duration_s: f64,
    /// Each step's first seconds left out of its figures (`--warmup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<Knee>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usl: Option<Usl>,
    /// With `--until`: the highest load whose step met the SLO (none when the first broke it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub highest_good: Option<f64>,
    /// The sweep ran every planned step (or stopped at `--until`), not cut short.
    pub finished: bool,
}

impl Record {
    /// Works out the knee and the fit from the steps so far.
    pub(crate) fn analyse(&mut self) {
        let points: Vec<(f64, f64)> = self.steps.iter().map(|s| (s.load, s.total.ok_rps)).collect();
        self.knee = knee(&points);
        let concurrency: Vec<(f64, f64)> = self
            .steps
            .iter()
            .map(|s| (if self.load == Load::Users { s.load } else { s.concurrency }, s.total.ok_rps))
            .collect();
        self.usl = fit_usl(&concurrency);
        if self.until.is_some() {
            // Below the lowest load that broke it (refining steps keep the good ones below).
            let bad = self.steps.iter().filter(|s| s.broke.is_some()).map(|s| s.load).reduce(f64::min);
            self.highest_good = self
                .steps
                .iter()
                .filter(|s| s.broke.is_none() && bad.is_none_or(|b| s.load < b))
                .map(|s| s.load)
                .reduce(f64::max);
        }
    }
}

/// Where throughput stops growing with the load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Knee {
    /// The last step whose load still paid off (index into the steps).
    pub step: usize,
    pub load: f64,
    /// The next step's share of a linear gain (see [`knee`]).
    pub next_gain: f64,
}

/// The share of a linear throughput gain below which a step no longer pays off.
pub(crate) const KNEE_GAIN: f64 = 0.5;

/// The knee of `(load, throughput)` points in load order: the last step before the first one
/// whose gain falls below [`KNEE_GAIN`]. A step's gain is the throughput it added over the
/// previous step, as a share of what the previous step's throughput per unit of load would have
/// added (`(X₂ − X₁) / (X₁ · (N₂/N₁ − 1))`): 1 while throughput grows with the load, 0 when it
/// is flat, negative when it falls. `None` while throughput still grows at the last step.
pub(crate) fn knee(points: &[(f64, f64)]) -> Option<Knee> {
    for (i, w) in points.windows(2).enumerate() {
        let ((n1, x1), (n2, x2)) = (w[0], w[1]);
        if n1 <= 0.0 || x1 <= 0.0 || n2 <= n1 {
            continue;
        }
        let gain = (x2 - x1) / (x1 * (n2 / n1 - 1.0));
        if gain < KNEE_GAIN {
            return Some(Knee { step: i, load: n1, next_gain: gain });
        }
    }
    None
}

/// How far past the highest throughput measured a predicted limit is still reported.
const LIMIT_SEEN: f64 = 10.0;

/// The Universal Scalability Law fitted to throughput against concurrency:
/// `X(N) = λN / (1 + σ(N − 1) + κN(N − 1))`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Usl {
    /// Throughput of one user alone (per second).
    pub lambda: f64,
    /// Contention: the share of the work that is serial.
    pub sigma: f64,
    /// Coherency: the cost of keeping each pair of users' views in step.
    pub kappa: f64,
    /// The concurrency of the highest throughput, `√((1 − σ)/κ)` (none when κ is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_concurrency: Option<f64>,
    /// The highest throughput the model predicts (at the peak, or λ/σ when κ is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rps: Option<f64>,
    /// The fit's error: the mean and the largest |predicted − measured| / measured, in %.
    pub mean_error_pct: f64,
    pub max_error_pct: f64,
}

impl Usl {
    pub(crate) fn predict(&self, n: f64) -> f64 {
        usl(self.lambda, self.sigma, self.kappa, n)
    }
}

fn usl(lambda: f64, sigma: f64, kappa: f64, n: f64) -> f64 {
    lambda * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))
}

/// Fits the USL to `(concurrency, throughput)` points (at least 3 distinct concurrencies with
/// throughput), minimising the squared relative errors, with σ and κ not below 0. For a given
/// λ the law is linear in σ and κ (`λN/X − 1 = σ(N − 1) + κN(N − 1)`), solved by least squares;
/// λ (at least the highest X/N seen) is searched on a log scale, then refined. Hand-written: a
/// three-parameter fit is a few lines, no solver crate is needed.
pub(crate) fn fit_usl(points: &[(f64, f64)]) -> Option<Usl> {
    let pts: Vec<(f64, f64)> =
        points.iter().copied().filter(|(n, x)| n.is_finite() && x.is_finite() && *n > 0.0 && *x > 0.0).collect();
    let mut distinct: Vec<f64> = pts.iter().map(|p| p.0).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    if distinct.len() < 3 {
        return None;
    }
    let floor = pts.iter().map(|(n, x)| x / n).fold(0.0, f64::max);
    // The error of the best σ, κ for one λ.
    let at = |lambda: f64| -> (f64, f64, f64) {
        let (mut aa, mut ab, mut bb, mut ay, mut by) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (n, x) in &pts {
            let (a, b, y) = (n - 1.0, n * (n - 1.0), lambda * n / x - 1.0);
            aa += a * a;
            ab += a * b;
            bb += b * b;
            ay += a * y;
            by += b * y;
        }
        let det = aa * bb - ab * ab;
        let mut candidates = vec![(0.0, 0.0)];
        if aa > 0.0 {
            candidates.push(((ay / aa).max(0.0), 0.0));
        }
        if bb > 0.0 {
            candidates.push((0.0, (by / bb).max(0.0)));
        }
        if det.abs() > f64::EPSILON * aa * bb {
            let (s, k) = ((ay * bb - by * ab) / det, (by * aa - ay * ab) / det);
            if s >= 0.0 && k >= 0.0 {
                candidates.push((s, k));
            }
        }
        let error = |(s, k): (f64, f64)| -> f64 {
            pts.iter().map(|(n, x)| ((usl(lambda, s, k, *n) - x) / x).powi(2)).sum::<f64>()
        };
        let (s, k) = candidates.into_iter().min_by(|p, q| error(*p).total_cmp(&error(*q))).unwrap_or((0.0, 0.0));
        (s, k, error((s, k)))
    };
    // λ from the floor to 100 times it, on a log scale; then a golden-section search around
    // the best.
    let steps = 400;
    let ratio: f64 = 100.0;
    let lambda_at = |i: f64| floor * ratio.powf(i / steps as f64);
    let best = (0..=steps).min_by(|a, b| at(lambda_at(*a as f64)).2.total_cmp(&at(lambda_at(*b as f64)).2))?;
    let (mut lo, mut hi) = (lambda_at((best as f64 - 1.0).max(0.0)), lambda_at(best as f64 + 1.0));
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..100 {
        let (c, d) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
        if at(c).2 < at(d).2 {
            hi = d;
        } else {
            lo = c;
        }
    }
    let lambda = (lo + hi) / 2.0;
    let (sigma, kappa, _) = at(lambda);
    // Rounding leaves traces (1e-17) where a coefficient is 0: they would predict a peak.
    let (sigma, kappa) = (if sigma < 1e-12 { 0.0 } else { sigma }, if kappa < 1e-12 { 0.0 } else { kappa });
    let errors: Vec<f64> = pts.iter().map(|(n, x)| ((usl(lambda, sigma, kappa, *n) - x) / x).abs() * 100.0).collect();
    let highest = pts.iter().map(|p| p.1).fold(0.0, f64::max);
    let (peak_concurrency, peak_rps) = if sigma >= 1.0 {
        // Each user past the first costs more than it brings: the most is one user's.
        (Some(1.0), Some(lambda))
    } else if kappa > 0.0 {
        let n = ((1.0 - sigma) / kappa).sqrt();
        (Some(n), Some(usl(lambda, sigma, kappa, n)))
    } else if sigma > 0.0 {
        (None, Some(lambda / sigma))
    } else {
        (None, None)
    };
    // A limit far beyond anything measured (σ and κ near 0) is the fit's noise, not a finding.
    let (peak_concurrency, peak_rps) = match peak_rps {
        Some(x) if x > LIMIT_SEEN * highest => (None, None),
        _ => (peak_concurrency, peak_rps),
    };
    Some(Usl {
        lambda,
        sigma,
        kappa,
        peak_concurrency,
        peak_rps,
        mean_error_pct: errors.iter().sum::<f64>() / errors.len() as f64,
        max_error_pct: errors.iter().copied().fold(0.0, f64::max),
    })
}

/// The loads of `--users`/`--rates`: a list (`50,100,250`), a geometric range (`50..2000x2`:
/// 50, 100, …, 1600 and the end, 2000) or an arithmetic one (`1000..5000+1000`). At most
/// [`MOST_STEPS`] steps, each above 0 and above the one before.
pub(crate) fn parse_loads(text: &str) -> Result<Vec<f64>, String> {
    let number = |t: &str| -> Result<f64, String> {
        let v: f64 = t.trim().parse().map_err(|_| format!("`{}` is not a number", t.trim()))?;
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(format!("`{}`: a load is above 0", t.trim()))
        }
    };
    let loads = match text.split_once("..") {
        None => text.split(',').map(number).collect::<Result<Vec<_>, _>>()?,
        Some((start, rest)) => {
            let start = number(start)?;
            let (end, step, geometric) = match (rest.split_once('x'), rest.split_once('+')) {
                (Some((end, f)), None) => (number(end)?, number(f)?, true),
                (None, Some((end, d))) => (number(end)?, number(d)?, false),
                _ => return Err(format!("`{text}`: a range is START..ENDxFACTOR or START..END+STEP")),
            };
            if geometric && step <= 1.0 {
                return Err(format!("`{text}`: the factor must be above 1"));
            }
            if end < start {
                return Err(format!("`{text}`: the range ends below its start"));
            }
            // Each load from the start, not from the one before: no rounding piles up.
            let mut loads = Vec::new();
            for i in 0..=MOST_STEPS as i32 {
                let v = if geometric { start * step.powi(i) } else { start + f64::from(i) * step };
                // To a billionth: 0.1 + 2 × 0.1 is 0.3, as the user counts.
                let v = (v * 1e9).round() / 1e9;
                if v >= end * (1.0 - 1e-9) {
                    break;
                }
                loads.push(v);
            }
            loads.push(end);
            loads
        }
    };
    if loads.len() > MOST_STEPS {
        return Err(format!("`{text}` makes more than {MOST_STEPS} steps"));
    }
    if let Some(w) = loads.windows(2).find(|w| w[1] <= w[0]) {
        return Err(format!("`{text}`: the loads must grow ({} then {})", w[0], w[1]));
    }
    Ok(loads)
}

/// Whether `dir` is a sweep's directory (it has `sweep.json` and is not a run itself).
pub(crate) fn is_sweep(dir: &std::path::Path) -> bool {
    !dir.join(crate::rundir::META).exists() && dir.join(RECORD).exists()
}

/// A sweep's record from its directory; the error names the file (and line).
pub(crate) fn read(dir: &std::path::Path) -> Result<Record, ReadError> {
    let path = dir.join(RECORD);
    let text = std::fs::read_to_string(&path).map_err(|source| ReadError::Io { path: path.clone(), source })?;
    let record: Record = serde_json::from_str(&text).map_err(|source| ReadError::Json {
        line: source.line(),
        path: path.clone(),
        source,
    })?;
    if record.format > FORMAT {
        return Err(ReadError::Newer { path, format: record.format });
    }
    Ok(record)
}

/// A `sweep.json` that does not read, named with its path.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("{}:{line}: {source}", path.display())]
    Json { path: std::path::PathBuf, line: usize, source: serde_json::Error },
    #[error("{}: format {format} is newer than this stampede reads ({FORMAT}): update stampede", path.display())]
    Newer { path: std::path::PathBuf, format: u32 },
}

/// Sweeps side by side in Markdown: per load, each sweep's `Throughput/s @ average ms` (the
/// seed's "1 Server (Throughput/sec @ avg resp time)" columns) and 95th percentile, then each
/// sweep's knee and fit.
pub(crate) fn compare_markdown(sweeps: &[(String, &Record)]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let names: Vec<&str> = sweeps.iter().map(|(n, _)| n.as_str()).collect();
    let _ = writeln!(
        out,
        "# Sweeps: {}
",
        names.join(", ")
    );
    let mut loads: Vec<f64> = sweeps.iter().flat_map(|(_, r)| r.steps.iter().map(|s| s.load)).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let title = sweeps.first().map_or("Load", |(_, r)| r.load.title());
    for (what, cell) in [
        (
            "Throughput/s @ average ms",
            &(|f: &Figures| format!("{:.1} @ {:.2}", f.throughput_rps, f.mean_ms)) as &dyn Fn(&Figures) -> String,
        ),
        ("95th pct (ms)", &|f: &Figures| format!("{:.2}", f.p95_ms)),
        ("Error %", &|f: &Figures| format!("{:.2}%", f.error_pct)),
    ] {
        let _ = writeln!(
            out,
            "## {what}
"
        );
        let _ = writeln!(out, "| {title} | {} |", names.join(" | "));
        let _ = writeln!(out, "|---:|{}", "---:|".repeat(names.len()));
        for l in &loads {
            let cells: Vec<String> = sweeps
                .iter()
                .map(|(_, r)| r.steps.iter().find(|s| s.load == *l).map_or(String::new(), |s| cell(&s.total)))
                .collect();
            let _ = writeln!(out, "| {} | {} |", show_load(*l), cells.join(" | "));
        }
        let _ = writeln!(out);
    }
    for (n, r) in sweeps {
        let _ = writeln!(
            out,
            "**{n}**: {}
",
            analysis(r).join(" ")
        );
    }
    out
}

/// The most steps a sweep takes.
pub(crate) const MOST_STEPS: usize = 1000;

/// A load as a column shows it: whole numbers without decimals.
pub(crate) fn show_load(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v != 0.0 && !(1e-4..1e15).contains(&v.abs()) {
        // 1e300 or 1e-300 written out is 300 digits: a step's directory is named by its load,
        // and a name that long is refused by the file system.
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The columns of a sweep's table (`Dropped` for arrival rates).
pub(crate) fn header(load: Load) -> Vec<&'static str> {
    let mut h =
        vec![load.title(), "Samples", "Throughput (/s)", "Average", "Median", "95th pct", "99th pct", "Max", "Error %"];
    if load == Load::Rate {
        h.push("Dropped");
    }
    h.push("Generator CPU");
    h
}

/// A step's row of [`header`]'s columns: `f` is its Total or one of its labels.
pub(crate) fn cells(load: Load, s: &Step, f: &Figures) -> Vec<String> {
    let mark = match (s.broke.is_some(), s.refine) {
        (true, true) => " ✗ (refine)",
        (true, false) => " ✗",
        (false, true) => " (refine)",
        (false, false) => "",
    };
    let mut c = vec![format!("{}{mark}", show_load(s.load)), f.samples.to_string()];
    c.extend([f.throughput_rps, f.mean_ms, f.p50_ms, f.p95_ms, f.p99_ms, f.max_ms].map(|v| format!("{v:.2}")));
    c.push(format!("{:.2}%", f.error_pct));
    if load == Load::Rate {
        c.push(f.dropped.to_string());
    }
    c.push(s.cpu_pct.map_or(String::new(), |v| format!("{v:.0}%")));
    c
}

/// The sweep's tables in Markdown: the Total per step (the seed's `Thread Count | Throughput |
/// Avg` table, with percentiles, errors and the generator's CPU), then a table per label, then
/// the knee, the fit and the SLO.
pub(crate) fn markdown(r: &Record) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "# Sweep: {}\n", r.plan_name);
    let _ = writeln!(
        out,
        "{} steps of {} s{}{}{}.\n",
        r.steps.len(),
        show_load(r.step_duration_s),
        r.warmup_s.map(|w| format!(", each measured after a {} s warm-up", show_load(w))).unwrap_or_default(),
        if r.finished { "" } else { " (cut short)" },
        r.until.as_ref().map(|u| format!(", until `{u}`")).unwrap_or_default()
    );
    let head = |out: &mut String, title: &str| {
        let _ = writeln!(out, "## {title}\n");
        let columns = header(r.load);
        let _ = writeln!(out, "| {} |", columns.join(" | "));
        let _ = writeln!(out, "|{}", "---:|".repeat(columns.len()));
    };
    let row = |out: &mut String, s: &Step, f: &Figures| {
        let _ = writeln!(out, "| {} |", cells(r.load, s, f).join(" | "));
    };
    head(&mut out, "Total");
    for s in &r.steps {
        row(&mut out, s, &s.total);
    }
    let mut labels: Vec<&str> = Vec::new();
    for s in &r.steps {
        for l in &s.labels {
            if !labels.contains(&l.label.as_str()) {
                labels.push(&l.label);
            }
        }
    }
    if labels.len() > 1 {
        for l in labels {
            let _ = writeln!(out);
            head(&mut out, l);
            for s in &r.steps {
                if let Some(f) = s.labels.iter().find(|f| f.label == l) {
                    row(&mut out, s, f);
                }
            }
        }
    }
    let _ = writeln!(out, "\nTimes in ms. {}\n", analysis(r).join(" "));
    out
}

/// The knee, the fit and the SLO, as sentences.
pub(crate) fn analysis(r: &Record) -> Vec<String> {
    let mut lines = Vec::new();
    let unit = if r.load == Load::Users { "users" } else { "/s" };
    match &r.knee {
        Some(k) => {
            let next = &r.steps[k.step + 1];
            let here = &r.steps[k.step];
            lines.push(format!(
                "Knee: {} {unit} ({:.1}/s, average {:.2} ms); at {} {unit} throughput gained {:.0}% of a linear gain ({:.1}/s) while the average went to {:.2} ms.",
                show_load(k.load),
                here.total.ok_rps,
                here.total.mean_ms,
                show_load(next.load),
                k.next_gain * 100.0,
                next.total.ok_rps,
                next.total.mean_ms
            ));
        }
        None if r.steps.len() > 1 => {
            lines.push("Knee: none within these steps: throughput still grows with the load.".into())
        }
        None => {}
    }
    if let Some(u) = &r.usl {
        let against = if r.load == Load::Users { "users" } else { "requests in flight" };
        let peak = match (u.peak_concurrency, u.peak_rps) {
            (Some(n), Some(x)) => format!("peak {x:.1}/s at {n:.0} {against}"),
            (None, Some(x)) => format!("no peak, throughput levels off towards {x:.1}/s"),
            _ => "no limit seen".into(),
        };
        lines.push(format!(
            "USL fit against {against}: λ {:.3}/s, contention σ {:.4}, coherency κ {:.6}; {peak}; error mean {:.1}%, max {:.1}%.",
            u.lambda, u.sigma, u.kappa, u.mean_error_pct, u.max_error_pct
        ));
    }
    if let Some(until) = &r.until {
        match (r.steps.iter().find_map(|s| s.broke.as_ref().map(|b| (s, b))), r.highest_good) {
            (Some((s, why)), Some(good)) => lines.push(format!(
                "Until `{until}`: reached at {} {unit} ({why}); the highest load that met it: {} {unit}.",
                show_load(s.load),
                show_load(good)
            )),
            (Some((s, why)), None) => {
                lines.push(format!("Until `{until}`: reached at the first step, {} {unit} ({why}).", show_load(s.load)))
            }
            (None, _) => lines.push(format!("Until `{until}`: no step reached it.")),
        }
    }
    let failed: Vec<String> = r
        .steps
        .iter()
        .filter(|s| !s.failed.is_empty())
        .map(|s| format!("at {} {unit}: {}", show_load(s.load), s.failed.join(", ")))
        .collect();
    if !failed.is_empty() {
        lines.push(format!("Goals failed {}.", failed.join("; ")));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each way `sweep.json` fails to read is its own error, named with the file (#34).
    #[test]
    fn a_sweep_record_that_does_not_read_says_why_with_its_path() {
        let dir = std::env::temp_dir().join(format!("stampede-sweep-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(RECORD);
        let e = read(&dir).unwrap_err();
        assert!(matches!(e, ReadError::Io { .. }) && e.to_string().starts_with("cannot read "), "{e}");
        std::fs::write(&path, "{\n\"format\": 1,\n").unwrap();
        let e = read(&dir).unwrap_err();
        assert!(matches!(e, ReadError::Json { line: 3, .. }), "{e}");
        assert!(e.to_string().starts_with(&format!("{}:3: ", path.display())), "{e}");
        let newer = r#"{"format": 9, "tool": "stampede", "version": "9", "plan_name": "p", "load": "users",
            "planned": [1], "step_duration_s": 1, "steps": [], "finished": true}"#;
        std::fs::write(&path, newer).unwrap();
        let e = read(&dir).unwrap_err();
        let says =
            format!("{}: format 9 is newer than this stampede reads ({FORMAT}): update stampede", path.display());
        assert!(matches!(e, ReadError::Newer { format: 9, .. }) && e.to_string() == says, "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn loads_are_lists_and_ranges() {
        assert_eq!(parse_loads("50,100,250").unwrap(), [50.0, 100.0, 250.0]);
        assert_eq!(parse_loads("50..2000x2").unwrap(), [50.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 2000.0]);
        assert_eq!(parse_loads("1..8x2").unwrap(), [1.0, 2.0, 4.0, 8.0]);
        assert_eq!(parse_loads("1000..3000+1000").unwrap(), [1000.0, 2000.0, 3000.0]);
        assert!(parse_loads("10,5").unwrap_err().contains("must grow"));
        assert!(parse_loads("1..10x1").unwrap_err().contains("above 1"));
        assert!(parse_loads("0,5").unwrap_err().contains("above 0"));
        assert!(parse_loads("1..1000000+1").unwrap_err().contains("more than"));
        assert!(parse_loads("a").is_err());
        assert!(parse_loads("100..50+10").unwrap_err().contains("ends below"));
        let tenths = parse_loads("0.1..1+0.1").unwrap();
        assert_eq!(tenths.len(), 10);
        assert!(tenths.iter().all(|v| show_load(*v).len() <= 18), "{tenths:?}");
    }

    /// A server of K workers, each request taking S: X = min(N, K)/S. The knee is at K (or the
    /// step below it when K falls between steps).
    #[test]
    fn the_knee_is_where_a_pool_of_workers_fills() {
        let pool = |k: f64, loads: &[f64]| -> Vec<(f64, f64)> { loads.iter().map(|n| (*n, n.min(k) * 50.0)).collect() };
        let loads = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        assert_eq!(knee(&pool(8.0, &loads)).map(|k| k.load), Some(8.0));
        assert_eq!(knee(&pool(4.0, &loads)).map(|k| k.load), Some(4.0));
        // K = 10 between 8 and 16: 16 adds 25% of a linear gain.
        assert_eq!(knee(&pool(10.0, &loads)).map(|k| k.load), Some(8.0));
        assert_eq!(knee(&pool(100.0, &loads)), None);
        // Throughput that falls is past the knee too.
        assert_eq!(knee(&[(1.0, 10.0), (2.0, 20.0), (4.0, 15.0)]).map(|k| k.load), Some(2.0));
    }

    #[test]
    fn the_usl_fit_recovers_known_coefficients() {
        let (lambda, sigma, kappa) = (1000.0, 0.05, 0.001);
        let points: Vec<(f64, f64)> =
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0].iter().map(|n| (*n, usl(lambda, sigma, kappa, *n))).collect();
        let u = fit_usl(&points).unwrap();
        assert!((u.lambda / lambda - 1.0).abs() < 1e-3, "{u:?}");
        assert!((u.sigma - sigma).abs() < 1e-4, "{u:?}");
        assert!((u.kappa - kappa).abs() < 1e-6, "{u:?}");
        let peak = ((1.0 - sigma) / kappa).sqrt();
        assert!((u.peak_concurrency.unwrap() / peak - 1.0).abs() < 1e-2, "{u:?}");
        assert!(u.max_error_pct < 0.1, "{u:?}");
        // Without N = 1, and with 2% noise, the coefficients are still near.
        let noisy: Vec<(f64, f64)> =
            points[1..].iter().enumerate().map(|(i, (n, x))| (*n, x * if i % 2 == 0 { 1.02 } else { 0.98 })).collect();
        let u = fit_usl(&noisy).unwrap();
        assert!((u.lambda / lambda - 1.0).abs() < 0.1, "{u:?}");
        assert!((u.kappa / kappa - 1.0).abs() < 0.3, "{u:?}");
        assert!(u.mean_error_pct > 0.5 && u.mean_error_pct < 5.0, "{u:?}");
        // Linear scaling: no contention, no peak.
        let linear: Vec<(f64, f64)> = [1.0, 2.0, 4.0].iter().map(|n| (*n, n * 10.0)).collect();
        let u = fit_usl(&linear).unwrap();
        assert!(u.sigma < 1e-6 && u.kappa < 1e-9 && u.peak_rps.is_none(), "{u:?}");
        // Throughput that falls from the first user on peaks at one user.
        let falling = [(1.0, 100.0), (2.0, 80.0), (4.0, 60.0), (8.0, 40.0)];
        let u = fit_usl(&falling).unwrap();
        assert!(u.peak_rps.unwrap() <= 110.0 && u.peak_concurrency.unwrap() < 2.0, "{u:?}");
        assert!(fit_usl(&points[..2]).is_none());
    }
}
