//! The Prometheus text exposition format (0.0.4) of a snapshot, for `prometheus=ADDR`.

use super::metrics::{series, Ident, Snapshot, FAMILIES};
use std::fmt::Write as _;

/// The `/metrics` page for `snap` (a page with only the families' headers before the first
/// interval).
pub(crate) fn render(snap: Option<&Snapshot>, ident: &Ident) -> String {
    let all = snap.map(|s| series(s, ident)).unwrap_or_default();
    let mut out = String::new();
    for (i, f) in FAMILIES.iter().enumerate() {
        let _ = writeln!(out, "# HELP {} {}", f.name, f.help);
        let _ = writeln!(out, "# TYPE {} {}", f.name, f.kind);
        for (_, s) in all.iter().filter(|(family, _)| *family == i) {
            out.push_str(s.name);
            out.push('{');
            for (k, (name, value)) in s.labels.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{name}=\"{}\"", escape(value));
            }
            let _ = writeln!(out, "}} {}", s.value);
        }
    }
    out
}

/// A label value as the format quotes it: backslash, double quote and line feed escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::metrics::{LabelPoint, Totals};

    #[test]
    fn label_values_are_escaped_and_families_typed() {
        let snap = Snapshot {
            labels: vec![LabelPoint {
                label: "say \"hi\"\\\nnow".into(),
                scenario: None,
                totals: Totals { requests: 2, ..Default::default() },
                interval: Default::default(),
            }],
            ..Default::default()
        };
        let page = render(Some(&snap), &Ident { run_id: "r".into(), plan: "p".into(), tag: Some("t".into()) });
        assert!(page.contains(
            "stampede_requests_total{run_id=\"r\",plan=\"p\",tag=\"t\",scope=\"label\",label=\"say \\\"hi\\\"\\\\\\nnow\"} 2\n"
        ));
        assert!(page.contains("stampede_requests_total{run_id=\"r\",plan=\"p\",tag=\"t\",scope=\"total\"} 0\n"));
        assert!(page.contains("# TYPE stampede_latency_seconds histogram\n"));
        assert!(page.contains("le=\"+Inf\"} 2\n"));
    }
}
