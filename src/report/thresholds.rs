//! Thresholds as a report shows them: one line per threshold, `PASS`/`FAIL` and the figure
//! measured. Judging them is [`crate::threshold::evaluate`]'s.

use crate::rundir::ThresholdResult;

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
