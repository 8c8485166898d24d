//! Judging: a run's thresholds against its summary, one [`ThresholdResult`](crate::rundir::ThresholdResult) per threshold, in
//! the order they were given. A threshold on a row that has no samples fails: a goal that cannot
//! be checked must not pass a CI gate.

use crate::plan::threshold::Threshold;

/// Judges each threshold on its row of `summary` (a label's, or the Total).
pub fn evaluate(thresholds: &[Threshold], summary: &crate::rundir::Summary) -> Vec<crate::rundir::ThresholdResult> {
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
pub struct Live {
    aborting: Vec<Threshold>,
}

impl Live {
    pub fn new(thresholds: &[Threshold]) -> Live {
        Live { aborting: thresholds.iter().filter(|t| t.abort.is_some()).cloned().collect() }
    }

    /// Whether any threshold is judged live.
    pub fn is_empty(&self) -> bool {
        self.aborting.is_empty()
    }

    /// Why the run must stop now that it is `at_us` old, if it must: the first `abort`
    /// threshold due by then that fails on `so_far` (made only when one is due). A row with no
    /// samples yet is not judged: a goal fails live only on numbers.
    pub fn judge(&self, at_us: u64, so_far: impl FnOnce() -> crate::rundir::Summary) -> Option<String> {
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
        }
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
