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
    /// Open model: arrivals the generator could not dispatch on time (a rate beyond it).
    #[serde(default)]
    pub undispatched_iterations: u64,
    /// Open model: how late arrivals' first requests were sent after they were due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatch_lateness: Option<Lateness>,
}

/// The generator's lateness in dispatching an open workload's arrivals: send time − due time.
/// It is part of the open model's elapsed times (they start when an arrival is due), so a
/// late generator shows here instead of being blamed on the server.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Lateness {
    pub arrivals: u64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Lateness {
    fn from_stats(s: &LabelStats) -> Option<Lateness> {
        (s.samples > 0).then(|| Lateness {
            arrivals: s.samples,
            mean_ms: s.sum_elapsed_us as f64 / s.samples as f64 / 1000.0,
            p50_ms: s.quantile_us(0.50) as f64 / 1000.0,
            p99_ms: s.quantile_us(0.99) as f64 / 1000.0,
            max_ms: s.max_us as f64 / 1000.0,
        })
    }
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
    /// Mean time to first byte (JMeter's Latency), over all samples (0 where no byte came).
    pub mean_latency_ms: f64,
    /// 99th percentile and maximum of the time to first byte; absent for a run logged before
    /// they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_latency_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_latency_ms: Option<f64>,
    /// Mean connect time over the samples that opened a connection (0 when none did).
    pub mean_connect_ms: f64,
    /// 99th percentile and maximum connect time over the same samples; absent when none
    /// opened a connection (or for a run logged before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_connect_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connect_ms: Option<f64>,
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
        let t = &s.timing;
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
            // Every TTFB is below its elapsed time, so its percentile is too: the coarser TTFB
            // histogram's bucket top is not shown above the elapsed one.
            p99_latency_ms: t.ttfb_quantile_us_at(0.99, 1).map(|v| ms(v.min(s.quantile_us(0.99)))),
            max_latency_ms: (!t.ttfb.is_empty()).then(|| ms(t.max_ttfb_us)),
            mean_connect_ms: if t.connect_samples == 0 {
                0.0
            } else {
                s.sum_connect_us as f64 / t.connect_samples as f64 / 1000.0
            },
            p99_connect_ms: t.connect_quantile_us_at(0.99, 1).map(ms),
            max_connect_ms: (!t.connect.is_empty()).then(|| ms(t.max_connect_us)),
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
                .zip(tally.lateness.iter().map(Some).chain(std::iter::repeat(None)))
                .map(|((m, c), late)| ScenarioSummary {
                    name: m.name.clone(),
                    model: m.model.clone(),
                    iterations: c.iterations,
                    dropped_iterations: c.dropped,
                    undispatched_iterations: c.undispatched,
                    dispatch_lateness: late.and_then(Lateness::from_stats),
                })
                .collect(),
            complete,
            generator: None,
            thresholds: Vec::new(),
        }
    }
}

/// Where the generator's CPU is measured from: the process's CPU time and the wall clock at the
/// start of a run. CPU spent before it (reading the plan and its data files, starting the
/// runtime) is not the run's: divided by a short run's wall time it would read as a saturated
/// generator.
#[derive(Debug, Clone, Copy)]
pub struct UsageClock {
    user_s: f64,
    system_s: f64,
    wall: std::time::Instant,
}

impl UsageClock {
    pub fn start() -> UsageClock {
        let (user_s, system_s, _) = rusage();
        UsageClock { user_s, system_s, wall: std::time::Instant::now() }
    }

    /// The CPU time used since [`start`](Self::start), over the wall time since then, and the
    /// process's peak memory (a peak is the process's own, whenever it was reached).
    pub fn usage(&self) -> GeneratorUsage {
        let (user_s, system_s, peak_rss_mib) = rusage();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        usage_between(
            (self.user_s, self.system_s),
            (user_s, system_s),
            self.wall.elapsed().as_secs_f64(),
            cores,
            peak_rss_mib,
        )
    }
}

/// The usage between two readings of the process's (user, system) CPU seconds, `wall_s` apart.
fn usage_between(start: (f64, f64), end: (f64, f64), wall_s: f64, cores: u32, peak_rss_mib: f64) -> GeneratorUsage {
    let (user, sys) = ((end.0 - start.0).max(0.0), (end.1 - start.1).max(0.0));
    GeneratorUsage {
        cpu_user_s: user,
        cpu_system_s: sys,
        cpu_pct_of_cores: if wall_s > 0.0 { (user + sys) / wall_s / f64::from(cores.max(1)) * 100.0 } else { 0.0 },
        cores,
        peak_rss_mib,
    }
}

/// This process's user and system CPU seconds so far, and its peak resident memory in MiB.
fn rusage() -> (f64, f64, f64) {
    // SAFETY: getrusage only writes the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // Linux reports ru_maxrss in KiB.
    (secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_counted_from_the_start_of_the_run_only() {
        // 0.4 s of CPU before the run (plan and data loaded), 0.05 s in a 0.2 s run on 2 cores.
        let u = usage_between((0.3, 0.1), (0.34, 0.11), 0.2, 2, 20.0);
        assert!((u.cpu_user_s - 0.04).abs() < 1e-9 && (u.cpu_system_s - 0.01).abs() < 1e-9, "{u:?}");
        assert!((u.cpu_pct_of_cores - 12.5).abs() < 1e-9, "{u:?}");
        assert_eq!(usage_between((1.0, 1.0), (1.0, 1.0), 0.0, 2, 1.0).cpu_pct_of_cores, 0.0);
    }

    #[test]
    fn a_clock_started_now_has_used_little() {
        let clock = UsageClock::start();
        let u = clock.usage();
        assert!(u.cpu_user_s + u.cpu_system_s < 0.5, "{u:?}");
        assert!(u.peak_rss_mib > 0.0 && u.cores >= 1, "{u:?}");
    }
}
