//! What a run directory says about a run: [`RunMeta`] (facts about the run) and [`Summary`]
//! (the numbers per label and in total, computed by the definitions in `docs/metrics.md`).

use crate::metric::Metric;
use crate::record::{LabelStats, Tally};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A run's facts (`meta.json`): what ran, where, when, how it ended.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunMeta {
    /// The tool that wrote the run (`stampede`, or `jmeter` for an imported results file).
    pub tool: String,
    /// That tool's version.
    pub version: String,
    /// The command line, with secret values replaced by `***`.
    pub command_line: Vec<String>,
    /// The plan file, as given.
    pub plan_path: Option<String>,
    /// The plan's name.
    pub plan_name: String,
    /// The machine that ran it.
    pub host: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// When it ended (RFC 3339, UTC); absent while it runs.
    pub ended_at: Option<String>,
    /// How long it ran, s.
    pub duration_s: Option<f64>,
    /// Running, completed or interrupted.
    pub status: Status,
    /// The length of an interval of the log, s.
    pub interval_s: f64,
    /// Each scenario's name and workload.
    pub scenarios: Vec<ScenarioMeta>,
    /// Label names in `LabelId` order.
    pub labels: Vec<String>,
    /// Check messages in check-id order (failed checks are counted per message).
    #[serde(default)]
    pub checks: Vec<String>,
    /// The generator's own CPU and memory use.
    pub generator: Option<GeneratorUsage>,
    /// The run's thresholds, as text (`ContentRead: p95 < 300ms`), so a report of a run that
    /// was killed can still judge them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<String>,
    /// What stopped the test before its end (a jp@gc AutoStop Listener's limit), if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<String>,
    /// A run of one segment of a plan (`run --segment 2/3`): which, and how its start was set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PartMeta>,
    /// A run merged from parts (`stampede merge`): each part's facts, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<MergedPart>,
    /// How the interval log is kept (absent: version 1, every second in `intervals.jsonl`).
    /// [`crate::rundir::RunWriter`] sets it; see [`LogFormat`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<LogFormat>,
    /// The sources `run --watch` sampled into `watch.jsonl`, as named there (credentials masked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watch: Vec<String>,
}

/// The interval log's layout, recorded in `meta.json` so a reader knows what a directory holds.
///
/// Version 2: `intervals.jsonl` holds the seconds that start in the first `seconds_kept_s`
/// seconds of the run; each `intervals-<W>s.jsonl` (W in `rollups_s`) holds one line per W
/// seconds of the run's clock for the whole run, the exact sum of the seconds that start in it
/// (same line format; a line is written once its W seconds are past, the last one at the end);
/// `tail.jsonl` holds the seconds past `seconds_kept_s` not yet in a written line of the finest
/// roll-up, so a killed run loses nothing (a new, empty one replaces it, by rename, once that
/// line is written). A reader takes the coarsest lines that serve it and
/// finer ones only past where those end.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LogFormat {
    /// The layout's version (2).
    pub version: u32,
    /// How many seconds of the run `intervals.jsonl` holds.
    #[serde(default)]
    pub seconds_kept_s: u64,
    /// Each roll-up's width, s, finest first.
    #[serde(default)]
    pub rollups_s: Vec<u64>,
}

impl LogFormat {
    /// The layout [`crate::rundir::RunWriter`] writes: an hour of seconds and roll-ups of a
    /// minute, 10 minutes and an hour; or, when `STAMPEDE_LOG_LAYOUT` is `KEPT:W1,W2,...` (in
    /// seconds) and nests, that (tests use it to see a run of seconds past the kept ones).
    pub fn current() -> LogFormat {
        let chosen = std::env::var("STAMPEDE_LOG_LAYOUT").ok().and_then(|v| {
            let (kept, widths) = v.split_once(':')?;
            let rollups_s = widths.split(',').map(|w| w.trim().parse().ok()).collect::<Option<Vec<u64>>>()?;
            let format = LogFormat { version: 2, seconds_kept_s: kept.trim().parse().ok()?, rollups_s };
            format.problem().is_none().then_some(format)
        });
        chosen.unwrap_or_else(|| LogFormat {
            version: 2,
            seconds_kept_s: super::SECONDS_KEPT_S,
            rollups_s: super::ROLLUPS_S.to_vec(),
        })
    }

    /// Why a reader cannot trust this layout, if it cannot: a newer version, or roll-ups that do
    /// not nest (each a whole number of the finer ones, the seconds kept a whole number of the
    /// finest), which would make lines overlap.
    pub fn problem(&self) -> Option<String> {
        if self.version != 2 {
            return Some(format!(
                "layout version {} is not one this stampede reads (2): a newer one wrote it",
                self.version
            ));
        }
        let widths = &self.rollups_s;
        let Some(finest) = widths.first().copied() else { return Some("no roll-ups".into()) };
        if finest < 2 || widths.len() > 8 || widths.iter().any(|w| *w > 1 << 32) || !widths.is_sorted_by(|a, b| a < b) {
            return Some(format!("roll-ups of {:?} s", self.rollups_s));
        }
        if widths.windows(2).any(|p| p[1] % p[0] != 0) || self.seconds_kept_s % finest != 0 {
            return Some(format!(
                "roll-ups of {:?} s after {} s of seconds do not nest",
                self.rollups_s, self.seconds_kept_s
            ));
        }
        None
    }
}

/// What makes a run one part of a plan run by several generators.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PartMeta {
    /// `i/N`: the i-th of N equal segments of every workload; absent for a whole plan started
    /// at a common instant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<String>,
    /// The common start instant asked for (`--start-at`), RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<String>,
    /// How late the load started after `start_at`, in ms (negative: early).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_skew_ms: Option<f64>,
    /// The part read only its share of each data file's rows (`--data split`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub data_split: bool,
    /// The group of generators it ran in (`agent --group`, `run --group`: a cloud, a region), for
    /// `report --by group`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// One run of a merged run, as `meta.json` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MergedPart {
    /// The run directory it was read from, as given.
    pub dir: String,
    /// The machine that ran it.
    pub host: String,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// How it ended.
    pub status: Status,
    /// Its segment and start, when it was one part of a plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PartMeta>,
    /// The agent that ran it, as the controller reached it (a run on agents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Samples it counted.
    pub samples: u64,
    /// Samples that failed.
    pub errors: u64,
    /// Connections it opened to the servers under test.
    #[serde(default)]
    pub connections: u64,
    /// Its generator's own CPU and memory use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator: Option<GeneratorUsage>,
}

/// A scenario as `meta.json` lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScenarioMeta {
    /// The scenario's name.
    pub name: String,
    /// Closed or open.
    pub model: Model,
    /// e.g. "closed: 50 users, ramp-up 10s, 30s".
    pub workload: String,
}

/// Where a run is: `running` until it ends, then `completed` or `interrupted` (the strings
/// `meta.json` holds).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The run is going on (or was killed: no end was written).
    Running,
    /// The run came to its end.
    Completed,
    /// The run was stopped before its end (Ctrl-C, a threshold, `--stop-on`).
    Interrupted,
}

impl Status {
    /// The name `meta.json` holds.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Interrupted => "interrupted",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A scenario's workload model, as `meta.json` and `summary.json` name it: `closed`, `open`,
/// or `imported` for a JMeter results file, whose model is not known.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// A number of users, each running its flow again and again.
    Closed,
    /// Iterations started at a rate, whatever the responses take.
    Open,
    /// Read from a JMeter results file: not known.
    Imported,
}

impl Model {
    /// The name `meta.json` and `summary.json` hold.
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Closed => "closed",
            Model::Open => "open",
            Model::Imported => "imported",
        }
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The load generator's own resource use, so a saturated generator is never mistaken for a
/// slow server.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct GeneratorUsage {
    /// User CPU time, s.
    pub cpu_user_s: f64,
    /// System CPU time, s.
    pub cpu_system_s: f64,
    /// CPU time / wall time / cores, in percent.
    pub cpu_pct_of_cores: f64,
    /// The cores the process could use.
    pub cores: u32,
    /// Peak resident memory, MiB.
    pub peak_rss_mib: f64,
}

/// A run's numbers (`summary.json`): the Total row, a row per label, counts per scenario, the
/// thresholds judged.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// The Total row: every exchange once.
    pub total: LabelSummary,
    /// A row per label, in label order.
    pub labels: Vec<LabelSummary>,
    /// Counts per scenario.
    pub scenarios: Vec<ScenarioSummary>,
    /// False when rebuilt from the interval log of a run that did not finish.
    pub complete: bool,
    /// The generator's own CPU and memory use.
    pub generator: Option<GeneratorUsage>,
    /// The plan's thresholds (and `--threshold`s), judged at the end of the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<ThresholdResult>,
    /// What `run --watch` sampled of the system under test: set by reports from `watch.jsonl`
    /// (a run's `summary.json` does not hold it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) watch: Option<super::watch::WatchSummary>,
    /// Set by the reader: a warning for each file of the log that does not hold together with
    /// the rest (see `super::damage`), naming it and the lower bound counted. Never written.
    #[serde(skip)]
    pub damage: Vec<String>,
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
    /// Whether the threshold held.
    pub passed: bool,
}

/// A scenario's iterations.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScenarioSummary {
    /// The scenario's name.
    pub name: String,
    /// Closed or open.
    pub model: Model,
    /// Iterations started.
    pub iterations: u64,
    /// Open model: arrivals not started for want of a free user.
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
    /// Arrivals dispatched.
    pub arrivals: u64,
    /// Mean lateness, ms.
    pub mean_ms: f64,
    /// Median lateness, ms.
    pub p50_ms: f64,
    /// 99th percentile of the lateness, ms.
    pub p99_ms: f64,
    /// Greatest lateness, ms.
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
    /// The label (`Total` for the Total row).
    pub label: String,
    /// Samples counted.
    pub samples: u64,
    /// Samples that failed.
    pub errors: u64,
    /// Failed samples, percent of all.
    pub error_pct: f64,
    /// Mean elapsed time, ms.
    pub mean_ms: f64,
    /// Shortest elapsed time, ms.
    pub min_ms: f64,
    /// Longest elapsed time, ms.
    pub max_ms: f64,
    /// Median elapsed time, ms.
    pub p50_ms: f64,
    /// 90th percentile of the elapsed time, ms.
    pub p90_ms: f64,
    /// 95th percentile of the elapsed time, ms.
    pub p95_ms: f64,
    /// 99th percentile of the elapsed time, ms.
    pub p99_ms: f64,
    /// 99.9th percentile of the elapsed time, ms.
    pub p999_ms: f64,
    /// Samples a second over the row's span (first start to last end).
    pub throughput_rps: f64,
    /// KiB received a second.
    pub received_kbps: f64,
    /// KiB sent a second.
    pub sent_kbps: f64,
    /// Mean time to first byte (JMeter's Latency), over all samples (0 where no byte came).
    pub mean_latency_ms: f64,
    /// 99th percentile and maximum of the time to first byte; absent for a run logged before
    /// they were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_latency_ms: Option<f64>,
    /// Longest time to first byte, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_latency_ms: Option<f64>,
    /// Mean connect time over the samples that opened a connection (0 when none did).
    pub mean_connect_ms: f64,
    /// 99th percentile and maximum connect time over the same samples; absent when none
    /// opened a connection (or for a run logged before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_connect_ms: Option<f64>,
    /// Longest connect time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connect_ms: Option<f64>,
    /// Bytes received.
    pub bytes_received: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// Connections opened.
    pub connections_opened: u64,
    /// Failed samples by why they failed (`refused`, `http_503`, `check: <message>`...).
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Open model: arrivals not started for want of a free user (only on the total).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped_iterations: Option<u64>,
    /// Upstream time vs the overhead in front of it, over the samples whose response told the
    /// upstream's time; absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<UpstreamSummary>,
}

/// A label's samples split into the upstream's time (as its response headers told it) and
/// the overhead in front of it (elapsed − upstream), in ms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpstreamSummary {
    /// Samples whose response told the upstream's time (of the label's Samples).
    pub samples: u64,
    /// Mean elapsed time of these samples: what upstream and overhead split.
    pub mean_total_ms: f64,
    /// Mean upstream time, ms.
    pub mean_ms: f64,
    /// Median upstream time, ms.
    pub p50_ms: f64,
    /// 95th percentile of the upstream time, ms.
    pub p95_ms: f64,
    /// 99th percentile of the upstream time, ms.
    pub p99_ms: f64,
    /// Longest upstream time, ms.
    pub max_ms: f64,
    /// Mean overhead, ms.
    pub mean_overhead_ms: f64,
    /// Median overhead, ms.
    pub p50_overhead_ms: f64,
    /// 95th percentile of the overhead, ms.
    pub p95_overhead_ms: f64,
    /// 99th percentile of the overhead, ms.
    pub p99_overhead_ms: f64,
    /// Longest overhead, ms.
    pub max_overhead_ms: f64,
}

impl UpstreamSummary {
    fn from_stats(u: &crate::record::stats::Upstream) -> Option<UpstreamSummary> {
        if u.samples == 0 {
            return None;
        }
        let per = |x: u64| x as f64 / u.samples as f64 / 1000.0;
        let q = |v: Option<u64>| ms(v.unwrap_or(0));
        Some(UpstreamSummary {
            samples: u.samples,
            mean_total_ms: per(u.sum_elapsed_us),
            mean_ms: per(u.sum_us),
            p50_ms: q(u.quantile_us(0.50)),
            p95_ms: q(u.quantile_us(0.95)),
            p99_ms: q(u.quantile_us(0.99)),
            max_ms: ms(u.max_us),
            mean_overhead_ms: per(u.sum_overhead_us),
            p50_overhead_ms: q(u.overhead_quantile_us(0.50)),
            p95_overhead_ms: q(u.overhead_quantile_us(0.95)),
            p99_overhead_ms: q(u.overhead_quantile_us(0.99)),
            max_overhead_ms: ms(u.max_overhead_us),
        })
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

impl LabelSummary {
    /// The figure a metric names, in the unit thresholds use (ms, percent, per second).
    pub(crate) fn value(&self, m: Metric) -> f64 {
        match m {
            Metric::Samples => self.samples as f64,
            Metric::Errors => self.errors as f64,
            Metric::ErrorPct => self.error_pct,
            Metric::Mean => self.mean_ms,
            Metric::Min => self.min_ms,
            Metric::Max => self.max_ms,
            Metric::P50 => self.p50_ms,
            Metric::P90 => self.p90_ms,
            Metric::P95 => self.p95_ms,
            Metric::P99 => self.p99_ms,
            Metric::P999 => self.p999_ms,
            Metric::Throughput => self.throughput_rps,
            Metric::ReceivedKbps => self.received_kbps,
            Metric::SentKbps => self.sent_kbps,
            Metric::Latency => self.mean_latency_ms,
        }
    }

    /// The row of `label` from its stats; `checks` names the failed checks' messages.
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
            upstream: s.upstream.as_deref().and_then(UpstreamSummary::from_stats),
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
                    model: m.model,
                    iterations: c.iterations,
                    dropped_iterations: c.dropped,
                    undispatched_iterations: c.undispatched,
                    dispatch_lateness: late.and_then(Lateness::from_stats),
                })
                .collect(),
            complete,
            generator: None,
            thresholds: Vec::new(),
            watch: None,
            damage: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `meta.json` and `summary.json` hold the same strings as when these were plain strings.
    #[test]
    fn status_and_model_are_written_as_before() {
        for (s, text) in
            [(Status::Running, "running"), (Status::Completed, "completed"), (Status::Interrupted, "interrupted")]
        {
            assert_eq!(serde_json::to_value(s).unwrap(), text);
            assert_eq!(serde_json::from_value::<Status>(text.into()).unwrap(), s);
            assert_eq!(s.to_string(), text);
        }
        for (m, text) in [(Model::Closed, "closed"), (Model::Open, "open"), (Model::Imported, "imported")] {
            assert_eq!(serde_json::to_value(m).unwrap(), text);
            assert_eq!(serde_json::from_value::<Model>(text.into()).unwrap(), m);
            assert_eq!(m.to_string(), text);
        }
    }
}
