//! Judging a run's thresholds against its summary: one [`ThresholdResult`] per threshold, in
//! the order they were given. A threshold on a row that has no samples fails: a goal that
//! cannot be checked must not pass a CI gate.

use crate::rundir::{LabelSummary, Summary, ThresholdResult};
use crate::threshold::{Metric, Threshold};

pub fn evaluate(thresholds: &[Threshold], summary: &Summary) -> Vec<ThresholdResult> {
    thresholds
        .iter()
        .map(|t| {
            let row = match &t.label {
                None => Some(&summary.total),
                Some(l) => summary.labels.iter().find(|r| r.label == *l),
            };
            let actual = row.filter(|r| r.samples > 0).map(|r| value(r, t.metric));
            ThresholdResult {
                threshold: t.to_string(),
                row: t.row().to_string(),
                actual,
                passed: actual.is_some_and(|a| t.op.holds(a, t.value)),
            }
        })
        .collect()
}

/// The figure a metric names, in the unit thresholds use (ms, percent, per second).
pub fn value(r: &LabelSummary, m: Metric) -> f64 {
    match m {
        Metric::Samples => r.samples as f64,
        Metric::Errors => r.errors as f64,
        Metric::ErrorPct => r.error_pct,
        Metric::Mean => r.mean_ms,
        Metric::Min => r.min_ms,
        Metric::Max => r.max_ms,
        Metric::P50 => r.p50_ms,
        Metric::P90 => r.p90_ms,
        Metric::P95 => r.p95_ms,
        Metric::P99 => r.p99_ms,
        Metric::P999 => r.p999_ms,
        Metric::Throughput => r.throughput_rps,
        Metric::ReceivedKbps => r.received_kbps,
        Metric::SentKbps => r.sent_kbps,
        Metric::Latency => r.mean_latency_ms,
    }
}

/// Lines for a terminal or a Markdown report: `PASS`/`FAIL`, the threshold, the figure seen.
pub fn lines(results: &[ThresholdResult]) -> String {
    let mut out = String::new();
    if results.is_empty() {
        return out;
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    out.push_str(&format!("Thresholds: {} passed, {failed} failed\n", results.len() - failed));
    for r in results {
        let seen = match r.actual {
            Some(a) => format!("{a:.2}"),
            None => format!("no samples for {}", r.row),
        };
        out.push_str(&format!("- {} `{}` (measured: {seen})\n", if r.passed { "PASS" } else { "FAIL" }, r.threshold));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threshold::parse;

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
        let text = lines(&r);
        assert!(text.starts_with("Thresholds: 4 passed, 2 failed\n"), "{text}");
        assert!(text.contains("- FAIL `B: p95 < 45ms` (measured: 50.00)"), "{text}");
        assert!(text.contains("no samples for Missing"), "{text}");
    }
}
