//! What a run directory says about a run: [`RunMeta`] (facts about the run) and [`Summary`]
//! (the numbers per label and in total, computed by the definitions in `docs/metrics.md`).

use crate::record::{LabelStats, Tally};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunMeta {
    pub tool: String,
    pub version: String,
    /// The command line, with secret values replaced by `***`.
    pub command_line: Vec<String>,
    pub plan_path: Option<String>,
    pub plan_name: String,
    pub host: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub ended_at: Option<String>,
    pub duration_s: Option<f64>,
    /// `running` until the run ends, then `completed` or `interrupted`.
    pub status: String,
    pub interval_s: f64,
    pub scenarios: Vec<ScenarioMeta>,
    /// Label names in `LabelId` order.
    pub labels: Vec<String>,
    /// Check messages in check-id order (failed checks are counted per message).
    #[serde(default)]
    pub checks: Vec<String>,
    pub generator: Option<GeneratorUsage>,
    /// The run's thresholds, as text (`ContentRead: p95 < 300ms`), so a report of a run that
    /// was killed can still judge them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScenarioMeta {
    pub name: String,
    /// `closed` or `open`.
    pub model: String,
    /// e.g. "closed: 50 users, ramp-up 10s, 30s".
    pub workload: String,
}

/// The load generator's own resource use, so a saturated generator is never mistaken for a
/// slow server.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct GeneratorUsage {
    pub cpu_user_s: f64,
    pub cpu_system_s: f64,
    /// CPU time / wall time / cores, in percent.
    pub cpu_pct_of_cores: f64,
    pub cores: u32,
    pub peak_rss_mib: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub total: LabelSummary,
    pub labels: Vec<LabelSummary>,
    pub scenarios: Vec<ScenarioSummary>,
    /// False when rebuilt from the interval log of a run that did not finish.
    pub complete: bool,
    pub generator: Option<GeneratorUsage>,
    /// The plan's thresholds (and `--threshold`s), judged at the end of the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<ThresholdResult>,
}

/// One threshold and how the run measured against it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ThresholdResult {
    /// As written back by stampede: `ContentRead: p95 < 300ms`.
    pub threshold: String,
    /// The row judged: a label, or `Total`.
    pub row: String,
    /// The figure measured, in the threshold's unit; absent when the row has no samples.
    pub actual: Option<f64>,
    pub passed: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScenarioSummary {
    pub name: String,
    pub model: String,
    pub iterations: u64,
    pub dropped_iterations: u64,
}

/// One row of the results: a label, or the total.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LabelSummary {
    pub label: String,
    pub samples: u64,
    pub errors: u64,
    pub error_pct: f64,
    pub mean_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub throughput_rps: f64,
    pub received_kbps: f64,
    pub sent_kbps: f64,
    /// Mean time to first byte (JMeter's Latency).
    pub mean_latency_ms: f64,
    /// Mean connect time over all samples (0 for a reused connection).
    pub mean_connect_ms: f64,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    pub connections_opened: u64,
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Open model: arrivals not started for want of a free user (only on the total).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_iterations: Option<u64>,
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

impl LabelSummary {
    pub fn from_stats(label: &str, s: &LabelStats, checks: &[String]) -> LabelSummary {
        let n = s.samples;
        let per = |x: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 / 1000.0 };
        let span = s.span_s();
        let rate = |x: f64| if span > 0.0 { x / span } else { 0.0 };
        LabelSummary {
            label: label.to_string(),
            samples: n,
            errors: s.errors,
            error_pct: if n == 0 { 0.0 } else { s.errors as f64 * 100.0 / n as f64 },
            mean_ms: per(s.sum_elapsed_us),
            min_ms: if n == 0 { 0.0 } else { ms(s.min_us) },
            max_ms: ms(s.max_us),
            p50_ms: ms(s.quantile_us(0.50)),
            p90_ms: ms(s.quantile_us(0.90)),
            p95_ms: ms(s.quantile_us(0.95)),
            p99_ms: ms(s.quantile_us(0.99)),
            p999_ms: ms(s.quantile_us(0.999)),
            throughput_rps: rate(n as f64),
            received_kbps: rate(s.bytes_received as f64 / 1024.0),
            sent_kbps: rate(s.bytes_sent as f64 / 1024.0),
            mean_latency_ms: per(s.sum_ttfb_us),
            mean_connect_ms: per(s.sum_connect_us),
            bytes_received: s.bytes_received,
            bytes_sent: s.bytes_sent,
            connections_opened: s.connections_opened,
            errors_by_kind: s.errors_by_kind.named(checks),
            dropped_iterations: None,
        }
    }
}

impl Summary {
    /// Builds the summary of a whole run from its merged tally. Labels without samples are left
    /// out; the rest keep plan order.
    pub fn from_tally(
        tally: &Tally,
        labels: &[String],
        checks: &[String],
        scenarios: &[ScenarioMeta],
        complete: bool,
    ) -> Summary {
        let mut total = LabelSummary::from_stats("Total", &tally.total, checks);
        total.dropped_iterations = Some(tally.dropped());
        Summary {
            total,
            labels: tally
                .labels()
                .filter(|(_, s)| s.samples > 0)
                .filter_map(|(i, s)| labels.get(i).map(|name| LabelSummary::from_stats(name, s, checks)))
                .collect(),
            scenarios: scenarios
                .iter()
                .zip(&tally.scenarios)
                .map(|(m, c)| ScenarioSummary {
                    name: m.name.clone(),
                    model: m.model.clone(),
                    iterations: c.iterations,
                    dropped_iterations: c.dropped,
                })
                .collect(),
            complete,
            generator: None,
            thresholds: Vec::new(),
        }
    }
}

/// CPU time and peak memory of this process so far.
pub fn generator_usage(wall_s: f64) -> GeneratorUsage {
    // SAFETY: getrusage only writes the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let (user, sys) = (secs(ru.ru_utime), secs(ru.ru_stime));
    GeneratorUsage {
        cpu_user_s: user,
        cpu_system_s: sys,
        cpu_pct_of_cores: if wall_s > 0.0 { (user + sys) / wall_s / f64::from(cores) * 100.0 } else { 0.0 },
        cores,
        // Linux reports ru_maxrss in KiB.
        peak_rss_mib: ru.ru_maxrss as f64 / 1024.0,
    }
}
