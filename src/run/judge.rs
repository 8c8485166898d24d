//! Judging: a run's thresholds against its summary, one [`ThresholdResult`](crate::rundir::ThresholdResult) per threshold, in
//! the order they were given. A threshold on a row that has no samples fails: a goal that cannot
//! be checked must not pass a CI gate.

use crate::metric::Metric;
use crate::plan::threshold::{StopOn, Threshold};
use crate::record::Interval;
use crate::rundir::LabelSummary;

/// Judges each threshold on its row of `summary` (a label's, or the Total).
pub(crate) fn evaluate(
    thresholds: &[Threshold],
    summary: &crate::rundir::Summary,
) -> Vec<crate::rundir::ThresholdResult> {
    thresholds
        .iter()
        .map(|t| {
            let row = match &t.label {
                None => Some(&summary.total),
                Some(l) => summary.labels.iter().find(|r| r.label == *l),
            };
            let actual = row.filter(|r| r.samples > 0).map(|r| r.value(t.metric));
            crate::rundir::ThresholdResult {
                threshold: t.to_string(),
                row: t.row().to_string(),
                actual,
                passed: actual.is_some_and(|a| t.op.holds(a, t.value)),
            }
        })
        .collect()
}

/// Judges a run's `abort` thresholds while it runs, on its numbers so far.
pub(crate) struct Live {
    aborting: Vec<Threshold>,
}

impl Live {
    pub(crate) fn new(thresholds: &[Threshold]) -> Live {
        Live { aborting: thresholds.iter().filter(|t| t.abort.is_some()).cloned().collect() }
    }

    /// Why the run must stop now that it is `at_us` old, if it must: the first `abort`
    /// threshold due by then that fails on `so_far` (made only when one is due). A row with no
    /// samples yet is not judged: a goal fails live only on numbers.
    pub(crate) fn judge(&self, at_us: u64, so_far: impl FnOnce() -> crate::rundir::Summary) -> Option<String> {
        let due = |t: &&Threshold| t.abort.is_some_and(|d| at_us >= d.as_micros() as u64);
        if !self.aborting.iter().any(|t| due(&t)) {
            return None;
        }
        let summary = so_far();
        let due: Vec<Threshold> = self.aborting.iter().filter(due).cloned().collect();
        evaluate(&due, &summary).into_iter().find(|r| r.actual.is_some() && !r.passed).map(|r| {
            format!(
                "threshold `{}` failed at {:.0} s: {:.2} so far",
                r.threshold,
                at_us as f64 / 1e6,
                r.actual.unwrap_or_default()
            )
        })
    }
}

/// When the plan's load ends by its schedule (µs from the start), for the stop conditions: the
/// seconds after it are the graceful stop's drain, where a condition (throughput falling) is the
/// run ending, not a reason to stop it. `None` when a scenario has no planned end, or when the
/// scenarios run one after another (setUp, tearDown, consecutive thread groups).
pub(crate) fn planned_end_us(plan: &crate::plan::Plan) -> Option<u64> {
    if plan.consecutive || plan.scenarios.iter().any(|s| s.phase != crate::plan::Phase::Main) {
        return None;
    }
    let ends: Option<Vec<std::time::Duration>> = plan.scenarios.iter().map(|s| s.workload.planned_duration()).collect();
    ends?.into_iter().max().map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// Watches a run's stop conditions ([`StopOn`]) second by second.
pub(crate) struct StopWatch {
    /// Each condition, and since when (µs from the run's start) it has held without a break.
    conds: Vec<(StopOn, Option<u64>)>,
}

impl StopWatch {
    pub(crate) fn new(conds: &[StopOn]) -> StopWatch {
        StopWatch { conds: conds.iter().map(|c| (c.clone(), None)).collect() }
    }

    /// Why the run must stop after interval `iv`, if it must: the first condition that has now
    /// held on every second since it began holding, for its `hold`. A second in which the row
    /// had no sample has no figure to hold or fail, and keeps the count going (a stall does
    /// not reset a p95 condition), but for a count or a rate (`samples`, `errors`,
    /// `throughput`, `received`, `sent`): those were 0 in it. Rates are per second of the
    /// interval, not of its samples' span. Seconds before a condition's `after` are not watched.
    pub(crate) fn observe(&mut self, iv: &Interval, labels: &[String], checks: &[String]) -> Option<String> {
        let secs = iv.end_us.saturating_sub(iv.start_us) as f64 / 1e6;
        for (cond, since) in &mut self.conds {
            if iv.start_us < cond.after.as_micros() as u64 {
                continue;
            }
            let t = &cond.when;
            let stats = match &t.label {
                None => Some(&iv.total),
                Some(l) => labels
                    .iter()
                    .position(|n| n == l)
                    .and_then(|i| iv.labels.iter().find(|(id, _)| id.index() == i))
                    .map(|(_, s)| s),
            };
            let empty = crate::record::LabelStats::default();
            let stats = stats.filter(|s| s.samples > 0).unwrap_or(&empty);
            let is_rate = matches!(
                t.metric,
                Metric::Samples | Metric::Errors | Metric::Throughput | Metric::ReceivedKbps | Metric::SentKbps
            );
            if stats.samples == 0 && !is_rate {
                continue;
            }
            let mut row = LabelSummary::from_stats(t.row(), stats, checks);
            if secs > 0.0 {
                row.throughput_rps = stats.samples as f64 / secs;
                row.received_kbps = stats.bytes_received as f64 / 1024.0 / secs;
                row.sent_kbps = stats.bytes_sent as f64 / 1024.0 / secs;
            }
            let value = row.value(t.metric);
            if !t.op.holds(value, t.value) {
                *since = None;
                continue;
            }
            let from = *since.get_or_insert(iv.start_us);
            if iv.end_us.saturating_sub(from) >= cond.hold.as_micros() as u64 {
                return Some(format!(
                    "stop condition `{cond}` held from {} s to {} s ({} {value:.2}{} in the last second)",
                    from / 1_000_000,
                    iv.end_us.div_ceil(1_000_000),
                    t.metric.name(),
                    t.metric.unit().trim_start()
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::threshold::parse;
    use crate::rundir::{LabelSummary, Summary};

    fn summary() -> Summary {
        let row = |label: &str, samples: u64, p95: f64| {
            let mut r: LabelSummary = serde_json::from_value(serde_json::json!({
                "label": label, "samples": samples, "errors": 1, "error_pct": 100.0 / samples.max(1) as f64,
                "mean_ms": 10.0, "min_ms": 1.0, "max_ms": 90.0, "p50_ms": 8.0, "p90_ms": 20.0, "p95_ms": p95,
                "p99_ms": 80.0, "p999_ms": 90.0, "throughput_rps": 1000.0, "received_kbps": 1.0, "sent_kbps": 1.0,
                "mean_latency_ms": 5.0, "mean_connect_ms": 0.0, "bytes_received": 1, "bytes_sent": 1,
                "connections_opened": 1, "errors_by_kind": {}
            }))
            .unwrap();
            r.samples = samples;
            r
        };
        Summary {
            total: row("Total", 200, 40.0),
            labels: vec![row("A", 100, 30.0), row("B", 100, 50.0)],
            scenarios: vec![],
            complete: true,
            generator: None,
            thresholds: vec![],
            watch: None,
            damage: vec![],
        }
    }

    /// One second (`i`) of a label `A`: `n` samples of `ms` each, `bad` of them failed.
    fn second(i: u64, n: u64, bad: u64, ms: u64) -> Interval {
        let mut st = crate::record::LabelStats::default();
        for k in 0..n {
            st.record(&crate::record::Sample {
                label: crate::plan::LabelId(0),
                start_us: i * 1_000_000,
                end_us: i * 1_000_000 + ms * 1000,
                ttfb_us: 0,
                connect_us: 0,
                bytes_sent: 0,
                bytes_received: 0,
                new_connection: false,
                error: (k < bad).then_some(crate::record::ErrorKind::Status(503)),
                in_total: true,
                upstream_us: None,
            });
        }
        let labels = if n == 0 { vec![] } else { vec![(crate::plan::LabelId(0), st.clone())] };
        Interval {
            index: i,
            start_us: i * 1_000_000,
            end_us: (i + 1) * 1_000_000,
            labels,
            new_labels: vec![],
            total: st,
            scenarios: vec![],
            lateness: vec![],
            active_users: vec![],
            last: false,
        }
    }

    /// A condition stops the run once it has held on each second for its time; a second where
    /// it does not hold starts the count again; a second without samples changes nothing, but
    /// is a rate of 0; rows are a label's or the Total.
    #[test]
    fn a_stop_condition_holds_second_after_second() {
        let names = ["A".to_string()];
        let watch = |text: &str| StopWatch::new(&[crate::plan::threshold::parse_stop_on(text).unwrap()]);
        let mut w = watch("error_pct > 50 for 3s");
        let seen: Vec<bool> = [(10, 9), (10, 9), (10, 1), (10, 9), (0, 0), (10, 6), (10, 6)]
            .iter()
            .enumerate()
            .map(|(i, &(n, bad))| w.observe(&second(i as u64, n, bad, 5), &names, &[]).is_some())
            .collect();
        // Seconds 3, 4 (empty) and 5 make 3 s in a row at the end of second 5.
        assert_eq!(seen, [false, false, false, false, false, true, true]);
        let why = watch("A: error_pct > 50 for 3s").observe(&second(0, 2, 2, 5), &names, &[]);
        assert_eq!(why, None, "1 s is not 3 s");
        let mut w = watch("A: p95 > 20ms");
        assert_eq!(w.observe(&second(0, 5, 0, 10), &names, &[]), None);
        let why = w.observe(&second(1, 5, 0, 30), &names, &[]).unwrap();
        assert_eq!(why, "stop condition `A: p95 > 20ms` held from 1 s to 2 s (p95 30.00ms in the last second)");
        let mut w = watch("throughput < 5/s for 2s");
        assert_eq!(w.observe(&second(0, 3, 0, 5), &names, &[]), None);
        assert!(w.observe(&second(1, 0, 0, 5), &names, &[]).is_some(), "an empty second is 0/s");
        let mut w = watch("samples < 1 for 2s after 2s");
        assert_eq!(w.observe(&second(0, 0, 0, 5), &names, &[]), None, "before its `after`");
        assert_eq!(w.observe(&second(1, 0, 0, 5), &names, &[]), None, "before its `after`");
        assert_eq!(w.observe(&second(2, 0, 0, 5), &names, &[]), None);
        assert!(w.observe(&second(3, 0, 0, 5), &names, &[]).is_some(), "a stall: 0 samples for 2 s");
        assert!(watch("Missing: p95 > 1ms").observe(&second(0, 5, 0, 9), &names, &[]).is_none());
    }

    #[test]
    fn each_threshold_is_judged_on_its_row() {
        let ts: Vec<Threshold> = [
            "p95 < 45ms",
            "A: p95 < 45",
            "B: p95 < 45",
            "error_pct <= 0.5",
            "throughput > 999",
            "Missing: errors == 0",
        ]
        .iter()
        .map(|t| parse(t).unwrap())
        .collect();
        let r = evaluate(&ts, &summary());
        let passed: Vec<bool> = r.iter().map(|r| r.passed).collect();
        assert_eq!(passed, [true, true, false, true, true, false]);
        assert_eq!(r[2].actual, Some(50.0));
        assert_eq!((r[5].row.as_str(), r[5].actual), ("Missing", None));
    }
}
