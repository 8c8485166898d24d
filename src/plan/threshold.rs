//! Pass/fail goals for a run (`p95 < 300ms` on a label, `error_pct < 0.1` on the Total): their
//! data type and their one text form, parsed here and nowhere else. The plan carries them,
//! `meta.json` records them as text, and the run's judge (`report::thresholds`) holds them
//! against a summary.

pub use super::compare::CmpOp;
use std::fmt;

/// The name that means the Total row rather than a label.
pub const TOTAL: &str = "Total";

#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// The label whose row is judged; `None` for the Total.
    pub label: Option<String>,
    pub metric: Metric,
    /// One of the orderings or `==` (the only ones [`parse`] reads).
    pub op: CmpOp,
    /// In the metric's unit: ms for times, percent for `error_pct`, per second for throughput.
    pub value: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Samples,
    Errors,
    ErrorPct,
    Mean,
    Min,
    Max,
    P50,
    P90,
    P95,
    P99,
    P999,
    Throughput,
    ReceivedKbps,
    SentKbps,
    Latency,
}

/// Names and aliases, the first of each being the one written back. The canonical names are the
/// `summary.json` field names without their unit suffix, so a threshold reads like the report.
const METRICS: [(Metric, &[&str]); 15] = [
    (Metric::Samples, &["samples"]),
    (Metric::Errors, &["errors", "ko"]),
    (Metric::ErrorPct, &["error_pct", "error%", "error_rate"]),
    (Metric::Mean, &["mean", "avg", "average"]),
    (Metric::Min, &["min"]),
    (Metric::Max, &["max"]),
    (Metric::P50, &["p50", "median", "med"]),
    (Metric::P90, &["p90"]),
    (Metric::P95, &["p95"]),
    (Metric::P99, &["p99"]),
    (Metric::P999, &["p99.9", "p999"]),
    (Metric::Throughput, &["throughput", "rps", "tps"]),
    (Metric::ReceivedKbps, &["received_kbps", "received"]),
    (Metric::SentKbps, &["sent_kbps", "sent"]),
    (Metric::Latency, &["latency", "ttfb"]),
];

impl Metric {
    pub fn name(self) -> &'static str {
        METRICS.iter().find(|(m, _)| *m == self).map(|(_, n)| n[0]).unwrap_or("?")
    }

    fn parse(s: &str) -> Option<Metric> {
        let s = s.to_ascii_lowercase();
        METRICS.iter().find(|(_, names)| names.contains(&s.as_str())).map(|(m, _)| *m)
    }

    fn is_time(self) -> bool {
        matches!(
            self,
            Metric::Mean
                | Metric::Min
                | Metric::Max
                | Metric::P50
                | Metric::P90
                | Metric::P95
                | Metric::P99
                | Metric::P999
                | Metric::Latency
        )
    }

    /// The unit a value is shown in.
    pub fn unit(self) -> &'static str {
        match self {
            m if m.is_time() => "ms",
            Metric::ErrorPct => "%",
            Metric::Throughput => "/s",
            Metric::ReceivedKbps | Metric::SentKbps => " KB/s",
            _ => "",
        }
    }
}

impl fmt::Display for Threshold {
    /// The text form that [`parse`] reads back: `ContentRead: p95 < 300ms`, `error_pct < 0.1%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.label {
            write!(f, "{l}: ")?;
        }
        write!(f, "{}", self.expression())
    }
}

impl Threshold {
    /// The condition without its label: `p95 < 300ms`.
    pub fn expression(&self) -> String {
        format!("{} {} {}{}", self.metric.name(), self.op.symbol(), self.value, self.metric.unit().trim())
    }

    /// The name of the row it judges.
    pub fn row(&self) -> &str {
        self.label.as_deref().unwrap_or(TOTAL)
    }
}

/// Reads `[LABEL:] METRIC OP VALUE[UNIT]`, e.g. `p95 < 300ms`, `ContentRead: avg <= 1.5s`,
/// `error_pct < 0.1%`, `throughput >= 1000/s`. A label of `Total` (or none) means the Total row.
pub fn parse(text: &str) -> Result<Threshold, String> {
    // The expression never holds a colon, so the last one ends the label (labels may hold colons).
    let (label, expr) = match text.rsplit_once(':') {
        Some((l, e)) if parse_expression(e).is_ok() => (Some(l.trim()), e),
        _ => (None, text),
    };
    let (metric, op, value) = parse_expression(expr).map_err(|m| format!("`{}`: {m}", text.trim()))?;
    let label = match label {
        Some("") => return Err(format!("`{}`: the label before `:` is empty", text.trim())),
        Some(l) if l == TOTAL => None,
        l => l.map(str::to_string),
    };
    Ok(Threshold { label, metric, op, value })
}

fn parse_expression(expr: &str) -> Result<(Metric, CmpOp, f64), String> {
    let expr = expr.trim();
    let at = expr.find(['<', '>', '=']).ok_or("expected METRIC < VALUE (or <=, >, >=, ==), e.g. `p95 < 300ms`")?;
    let name = expr[..at].trim();
    let rest = &expr[at..];
    let (op, rest) = [("<=", CmpOp::Le), (">=", CmpOp::Ge), ("==", CmpOp::Eq), ("<", CmpOp::Lt), (">", CmpOp::Gt)]
        .iter()
        .find_map(|(t, op)| rest.strip_prefix(t).map(|r| (*op, r)))
        .ok_or("expected one of <, <=, >, >=, ==")?;
    let metric = Metric::parse(name).ok_or_else(|| {
        let known: Vec<&str> = METRICS.iter().map(|(_, n)| n[0]).collect();
        format!("unknown metric `{name}`; known: {}", known.join(", "))
    })?;
    let value = parse_value(metric, rest.trim())?;
    Ok((metric, op, value))
}

fn parse_value(metric: Metric, v: &str) -> Result<f64, String> {
    let split =
        v.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e')).unwrap_or(v.len());
    let (number, unit) = (&v[..split], v[split..].trim());
    let n: f64 = number.parse().map_err(|_| format!("`{v}` is not a number"))?;
    if !n.is_finite() {
        return Err(format!("`{v}` is not a finite number"));
    }
    let scale = match (metric, unit) {
        (_, "") => 1.0,
        (m, "ms") if m.is_time() => 1.0,
        (m, "s") if m.is_time() => 1000.0,
        (m, "us" | "µs") if m.is_time() => 0.001,
        (Metric::ErrorPct, "%") => 1.0,
        (Metric::Throughput, "/s") => 1.0,
        (Metric::ReceivedKbps | Metric::SentKbps, "KB/s" | "kb/s") => 1.0,
        (m, u) => {
            let want = match m {
                m if m.is_time() => "ms, s or us",
                Metric::ErrorPct => "% (a percentage: `error_pct < 0.1` means below 0.1%)",
                Metric::Throughput => "/s",
                Metric::ReceivedKbps | Metric::SentKbps => "KB/s",
                _ => "no unit",
            };
            return Err(format!("unit `{u}` does not fit {}; use {want}", m.name()));
        }
    };
    Ok(n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_labels_metrics_units_and_writes_them_back() {
        let table = [
            ("p95 < 300ms", None, Metric::P95, CmpOp::Lt, 300.0, "p95 < 300ms"),
            ("Total: error_pct < 0.1", None, Metric::ErrorPct, CmpOp::Lt, 0.1, "error_pct < 0.1%"),
            (
                "ContentRead: avg <= 1.5s",
                Some("ContentRead"),
                Metric::Mean,
                CmpOp::Le,
                1500.0,
                "ContentRead: mean <= 1500ms",
            ),
            ("throughput>=1000/s", None, Metric::Throughput, CmpOp::Ge, 1000.0, "throughput >= 1000/s"),
            (
                "http://h/a: p99.9 > 250us",
                Some("http://h/a"),
                Metric::P999,
                CmpOp::Gt,
                0.25,
                "http://h/a: p99.9 > 0.25ms",
            ),
            ("Login: errors == 0", Some("Login"), Metric::Errors, CmpOp::Eq, 0.0, "Login: errors == 0"),
            ("median<12", None, Metric::P50, CmpOp::Lt, 12.0, "p50 < 12ms"),
        ];
        for (text, label, metric, op, value, shown) in table {
            let t = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!((t.label.as_deref(), t.metric, t.op, t.value), (label, metric, op, value), "{text}");
            assert_eq!(t.to_string(), shown);
            assert_eq!(parse(&t.to_string()).unwrap(), t, "{text} reads back");
        }
    }

    #[test]
    fn bad_thresholds_say_what_is_wrong() {
        for (text, says) in [
            ("p95 300ms", "expected METRIC < VALUE"),
            ("p96 < 300", "unknown metric `p96`"),
            ("p95 < fast", "not a number"),
            ("p95 < 3 parsecs", "unit `parsecs`"),
            ("error_pct < 1ms", "unit `ms` does not fit error_pct"),
            (": p95 < 3", "label before `:` is empty"),
            ("p95 =< 3", "expected one of"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn operators_hold_as_written() {
        assert!(CmpOp::Lt.holds(1.0, 2.0) && !CmpOp::Lt.holds(2.0, 2.0));
        assert!(CmpOp::Le.holds(2.0, 2.0) && CmpOp::Ge.holds(2.0, 2.0) && CmpOp::Eq.holds(0.0, 0.0));
        assert!(CmpOp::Gt.holds(3.0, 2.0) && !CmpOp::Gt.holds(2.0, 2.0));
    }
}
