//! Thresholds as a report shows them: one line per threshold, `PASS`/`FAIL` and the figure
//! measured. Judging them is the run layer's (`run::judge`)'s.

use crate::rundir::ThresholdResult;

/// Lines for a terminal or a Markdown report: `PASS`/`FAIL`, the threshold, the figure seen.
pub(crate) fn lines(results: &[ThresholdResult]) -> String {
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

    #[test]
    fn a_line_per_threshold_with_the_figure_seen() {
        let result = |threshold: &str, row: &str, actual: Option<f64>, passed| ThresholdResult {
            threshold: threshold.into(),
            row: row.into(),
            actual,
            passed,
        };
        let text = lines(&[
            result("p95 < 45ms", "Total", Some(40.0), true),
            result("B: p95 < 45ms", "B", Some(50.0), false),
            result("Missing: errors == 0", "Missing", None, false),
        ]);
        assert!(text.starts_with("Thresholds: 1 passed, 2 failed\n"), "{text}");
        assert!(text.contains("- FAIL `B: p95 < 45ms` (measured: 50.00)"), "{text}");
        assert!(text.contains("no samples for Missing"), "{text}");
        assert_eq!(lines(&[]), "");
    }
}
