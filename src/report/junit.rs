//! Thresholds as JUnit XML, the test-report format CI systems read: one test suite per run,
//! one test case per threshold, a `<failure>` for each that failed.

use super::{esc, RunData};
use std::fmt::Write;

pub(crate) fn document(run: &RunData) -> String {
    let results = &run.summary.thresholds;
    let failures = results.iter().filter(|r| !r.passed).count();
    let name = esc(&run.meta.plan_name);
    let time = run.meta.duration_s.unwrap_or(0.0);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"stampede\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" time=\"{time:.3}\">",
        results.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\" time=\"{time:.3}\" timestamp=\"{}\">",
        results.len(),
        esc(run.meta.started_at.get(..19).unwrap_or(&run.meta.started_at))
    );
    let _ = writeln!(out, "    <properties>");
    let t = &run.summary.total;
    for (k, v) in [
        ("samples", t.samples.to_string()),
        ("errors", t.errors.to_string()),
        ("throughput_rps", format!("{:.2}", t.throughput_rps)),
        ("p95_ms", format!("{:.2}", t.p95_ms)),
        ("status", run.meta.status.to_string()),
    ] {
        let _ = writeln!(out, "      <property name=\"{k}\" value=\"{}\"/>", esc(&v));
    }
    // CI shows properties beside the suite: a lost agent's figures are short, and by how much.
    for n in run.lost.iter().flat_map(super::lost::notes) {
        let _ = writeln!(out, "      <property name=\"lost_agent\" value=\"{}\"/>", esc(&n));
    }
    let _ = writeln!(out, "    </properties>");
    for r in results {
        let _ = write!(out, "    <testcase classname=\"{name}.thresholds\" name=\"{}\" time=\"0\"", esc(&r.threshold));
        if r.passed {
            out.push_str("/>\n");
            continue;
        }
        let seen = match r.actual {
            Some(a) => format!("measured {a:.2}"),
            None => format!("{} has no samples", r.row),
        };
        let _ = writeln!(
            out,
            ">\n      <failure type=\"threshold\" message=\"{}\">{}: {}</failure>\n    </testcase>",
            esc(&seen),
            esc(&r.threshold),
            esc(&seen)
        );
    }
    if let Some(lost) = &run.lost {
        let _ = writeln!(out, "    <system-err>{}</system-err>", esc(&super::lost::terminal(lost)));
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
