//! Pass/fail goals for a run (`p95 < 300ms` on a label, `error_pct < 0.1` on the Total): their
//! data type and their one text form, parsed here and nowhere else. The plan carries them,
//! `meta.json` records them as text, and the run's judge ([`crate::run::judge`]) holds them
//! against a summary.

pub(crate) use super::compare::CmpOp;
pub(crate) use crate::metric::{Metric, TOTAL};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Threshold {
    /// The label whose row is judged; `None` for the Total.
    pub label: Option<String>,
    pub metric: Metric,
    /// One of the orderings or `==` (the only ones [`parse`] reads).
    pub op: CmpOp,
    /// In the metric's unit: ms for times, percent for `error_pct`, per second for throughput.
    pub value: f64,
    /// Judged live as well (`... abort [after 30s]`): once the run is this old, the run stops as
    /// soon as the goal fails on the numbers so far.
    pub abort: Option<std::time::Duration>,
}

impl fmt::Display for Threshold {
    /// The text form that [`parse`] reads back: `ContentRead: p95 < 300ms`, `error_pct < 0.1%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.label {
            write!(f, "{l}: ")?;
        }
        write!(f, "{}", self.expression())?;
        match self.abort {
            Some(d) if d.is_zero() => write!(f, " abort"),
            // One unit, no spaces: the text reads back word for word.
            Some(d) if d.subsec_millis() == 0 && d.subsec_nanos() == 0 => write!(f, " abort after {}s", d.as_secs()),
            Some(d) => write!(f, " abort after {}ms", d.as_millis()),
            None => Ok(()),
        }
    }
}

impl Threshold {
    /// The condition without its label: `p95 < 300ms`.
    pub(crate) fn expression(&self) -> String {
        format!("{} {} {}{}", self.metric.name(), self.op.symbol(), self.value, self.metric.unit().trim())
    }

    /// The name of the row it judges.
    pub(crate) fn row(&self) -> &str {
        self.label.as_deref().unwrap_or(TOTAL)
    }
}

/// Why a threshold's text cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ThresholdError {
    /// The expression is wrong: the whole text, and why.
    #[error("`{text}`: {reason}")]
    Invalid { text: String, reason: Box<ThresholdError> },
    #[error("`{0}`: the label before `:` is empty")]
    EmptyLabel(String),
    #[error("expected METRIC < VALUE (or <=, >, >=, ==), e.g. `p95 < 300ms`")]
    NoOperator,
    #[error("expected one of <, <=, >, >=, ==")]
    UnknownOperator,
    #[error("unknown metric `{name}`; known: {known}")]
    UnknownMetric { name: String, known: String },
    #[error("`{0}` is not a number")]
    NotANumber(String),
    #[error("`{0}` is not a finite number")]
    NotFinite(String),
    /// A unit the metric is not measured in, and the ones it is.
    #[error("unit `{unit}` does not fit {metric}; use {want}")]
    Unit { unit: String, metric: &'static str, want: &'static str },
    #[error("`{0}` after `abort after` is not a duration (e.g. `30s`)")]
    AbortDelay(String),
    #[error("`{0}` after `for` is not a duration (e.g. `60s`)")]
    HoldFor(String),
    #[error("`{0}`: a stop condition ends the run itself; `abort` goes with --threshold")]
    AbortInStop(String),
}

/// A condition that ends a run early (`--stop-on 'error_pct > 5 for 60s'`): it holds on a
/// second's numbers (one interval of the log, of its row: a label's or the Total) for `hold` in
/// a row. The opposite sense of a [`Threshold`]: the expression is what must not happen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StopOn {
    /// The condition, as a threshold's expression (never `abort`).
    pub when: Threshold,
    /// How long it must hold, second after second; zero: the first second it holds.
    pub hold: std::time::Duration,
    /// Seconds that start before this time since the run's start are not watched (a ramp-up).
    pub after: std::time::Duration,
}

impl fmt::Display for StopOn {
    /// The text form that [`parse_stop_on`] reads back: `error_pct > 5% for 60s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.when)?;
        if !self.hold.is_zero() {
            write!(f, " for {}", humantime::format_duration(self.hold))?;
        }
        if !self.after.is_zero() {
            write!(f, " after {}", humantime::format_duration(self.after))?;
        }
        Ok(())
    }
}

/// Reads `[LABEL:] METRIC OP VALUE[UNIT] [for DURATION] [after DURATION]`, e.g.
/// `error_pct > 5 for 60s`, `Login: p95 > 2s for 5m`, `throughput < 100/s for 30s after 2m`.
/// A label may hold the words (`Wait for job: p95 > 2s`): they end the text only before a
/// duration, after a condition.
pub(crate) fn parse_stop_on(text: &str) -> Result<StopOn, ThresholdError> {
    let (when, hold, after) = match trailing(text, "after") {
        Some((head, Ok(after))) if parse_for(head).is_ok() => {
            let (when, hold) = parse_for(head)?;
            (when, hold, after)
        }
        _ => {
            let (when, hold) = parse_for(text)?;
            (when, hold, std::time::Duration::ZERO)
        }
    };
    if when.abort.is_some() {
        return Err(ThresholdError::AbortInStop(text.trim().to_string()));
    }
    Ok(StopOn { when, hold, after })
}

/// `CONDITION [for DURATION]`.
fn parse_for(text: &str) -> Result<(Threshold, std::time::Duration), ThresholdError> {
    if let Some((head, d)) = trailing(text, "for") {
        if let Ok(when) = parse(head) {
            return match d {
                Ok(hold) => Ok((when, hold)),
                Err(d) => Err(ThresholdError::Invalid {
                    text: text.trim().to_string(),
                    reason: Box::new(ThresholdError::HoldFor(d.to_string())),
                }),
            };
        }
    }
    Ok((parse(text)?, std::time::Duration::ZERO))
}

/// The text before a last ` WORD TAIL`, and the tail read as a duration (or the tail).
fn trailing<'t>(text: &'t str, word: &str) -> Option<(&'t str, Result<std::time::Duration, &'t str>)> {
    let re = regex::Regex::new(&format!(r"(?is)^(.*\S)\s+{word}\s+(\S.*?)\s*$")).expect("a valid regex");
    let c = re.captures(text)?;
    let (head, tail) = (c.get(1)?.as_str(), c.get(2)?.as_str());
    Some((head, humantime::parse_duration(tail).map_err(|_| tail)))
}

/// Reads `[LABEL:] METRIC OP VALUE[UNIT] [abort [after DURATION]]`, e.g. `p95 < 300ms`,
/// `ContentRead: avg <= 1.5s`, `error_pct < 0.1% abort after 30s`, `throughput >= 1000/s`. A
/// label of `Total` (or none) means the Total row.
pub(crate) fn parse(text: &str) -> Result<Threshold, ThresholdError> {
    let (text, abort) = split_abort(text)?;
    // The expression never holds a colon, so the last one ends the label (labels may hold colons).
    let (label, expr) = match text.rsplit_once(':') {
        Some((l, e)) if parse_expression(e).is_ok() => (Some(l.trim()), e),
        _ => (None, text),
    };
    let (metric, op, value) = parse_expression(expr)
        .map_err(|e| ThresholdError::Invalid { text: text.trim().to_string(), reason: Box::new(e) })?;
    let label = match label {
        Some("") => return Err(ThresholdError::EmptyLabel(text.trim().to_string())),
        Some(l) if l == TOTAL => None,
        l => l.map(str::to_string),
    };
    Ok(Threshold { label, metric, op, value, abort })
}

/// Splits off a trailing `abort` or `abort after DURATION` (a comma before it is allowed; the
/// duration as humantime reads it, `90s` or `1m 30s`).
fn split_abort(text: &str) -> Result<(&str, Option<std::time::Duration>), ThresholdError> {
    static ABORT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?is)^(.*\S)[\s,]+abort(?:\s+after\s+(.+?))?\s*$").expect("a valid regex")
    });
    let Some(c) = ABORT.captures(text) else { return Ok((text, None)) };
    let rest = c.get(1).map_or("", |m| m.as_str());
    let rest = rest.strip_suffix(',').unwrap_or(rest);
    let delay = match c.get(2) {
        None => std::time::Duration::ZERO,
        Some(d) => humantime::parse_duration(d.as_str()).map_err(|_| ThresholdError::Invalid {
            text: text.trim().to_string(),
            reason: Box::new(ThresholdError::AbortDelay(d.as_str().to_string())),
        })?,
    };
    Ok((rest, Some(delay)))
}

fn parse_expression(expr: &str) -> Result<(Metric, CmpOp, f64), ThresholdError> {
    let expr = expr.trim();
    let at = expr.find(['<', '>', '=']).ok_or(ThresholdError::NoOperator)?;
    let name = expr[..at].trim();
    let rest = &expr[at..];
    let (op, rest) = [("<=", CmpOp::Le), (">=", CmpOp::Ge), ("==", CmpOp::Eq), ("<", CmpOp::Lt), (">", CmpOp::Gt)]
        .iter()
        .find_map(|(t, op)| rest.strip_prefix(t).map(|r| (*op, r)))
        .ok_or(ThresholdError::UnknownOperator)?;
    let metric = Metric::parse(name).ok_or_else(|| {
        let known: Vec<&str> = crate::metric::METRICS.iter().map(|(_, n)| n[0]).collect();
        ThresholdError::UnknownMetric { name: name.to_string(), known: known.join(", ") }
    })?;
    let value = parse_value(metric, rest.trim())?;
    Ok((metric, op, value))
}

fn parse_value(metric: Metric, v: &str) -> Result<f64, ThresholdError> {
    let split =
        v.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e')).unwrap_or(v.len());
    let (number, unit) = (&v[..split], v[split..].trim());
    let n: f64 = number.parse().map_err(|_| ThresholdError::NotANumber(v.to_string()))?;
    if !n.is_finite() {
        return Err(ThresholdError::NotFinite(v.to_string()));
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
            return Err(ThresholdError::Unit { unit: u.to_string(), metric: m.name(), want });
        }
    };
    Ok(n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_conditions_and_writes_them_back() {
        let s = parse_stop_on("error_pct>5 for 60s").unwrap();
        assert_eq!((s.when.metric, s.when.op, s.when.value), (Metric::ErrorPct, CmpOp::Gt, 5.0));
        assert_eq!(s.hold, std::time::Duration::from_secs(60));
        assert_eq!(s.to_string(), "error_pct > 5% for 1m");
        assert_eq!(parse_stop_on(&s.to_string()).unwrap(), s);
        let s = parse_stop_on("Login: p95 > 2s for 1m 30s").unwrap();
        assert_eq!((s.when.label.as_deref(), s.when.value, s.hold.as_secs()), (Some("Login"), 2000.0, 90));
        assert_eq!(parse_stop_on("throughput < 100/s").unwrap().hold, std::time::Duration::ZERO);
        let e = parse_stop_on("error_pct > 5 for ever").unwrap_err().to_string();
        assert!(e.contains("`ever` after `for` is not a duration"), "{e}");
        let e = parse_stop_on("error_pct > 5 abort").unwrap_err().to_string();
        assert!(e.contains("goes with --threshold"), "{e}");
        assert!(parse_stop_on("p95 for 60s").is_err());
        let s = parse_stop_on("Wait for job: p95 > 2s for 10s after 1m").unwrap();
        assert_eq!(s.when.label.as_deref(), Some("Wait for job"));
        assert_eq!((s.hold.as_secs(), s.after.as_secs()), (10, 60));
        assert_eq!(s.to_string(), "Wait for job: p95 > 2000ms for 10s after 1m");
        assert_eq!(parse_stop_on(&s.to_string()).unwrap(), s);
        assert_eq!(parse_stop_on("samples < 1 after 30s").unwrap().after.as_secs(), 30);
    }

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
            ("error_pct < 1 abort", None, Metric::ErrorPct, CmpOp::Lt, 1.0, "error_pct < 1% abort"),
            (
                "Login: p99 < 2s, abort after 30s",
                Some("Login"),
                Metric::P99,
                CmpOp::Lt,
                2000.0,
                "Login: p99 < 2000ms abort after 30s",
            ),
            ("p95 < 3 Abort After 1m 30s", None, Metric::P95, CmpOp::Lt, 3.0, "p95 < 3ms abort after 90s"),
            ("p95 < 3 abort after 1.5s", None, Metric::P95, CmpOp::Lt, 3.0, "p95 < 3ms abort after 1500ms"),
            ("an abort: p95 < 3 abort", Some("an abort"), Metric::P95, CmpOp::Lt, 3.0, "an abort: p95 < 3ms abort"),
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
            ("p95 < 3 abort after soon", "`soon` after `abort after` is not a duration"),
            ("p95 < 3 abort after", "unit `abort after`"),
            ("p95 < 3 abort later", "unit `abort later`"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    /// The typed errors read as the text they replaced, word for word.
    #[test]
    fn error_texts() {
        let text = |t: &str| parse(t).unwrap_err().to_string();
        assert_eq!(text(" p95 < fast "), "`p95 < fast`: `fast` is not a number");
        assert_eq!(text(": p95 < 3"), "`: p95 < 3`: the label before `:` is empty");
        assert_eq!(
            text("error_pct < 1ms"),
            "`error_pct < 1ms`: unit `ms` does not fit error_pct; use % (a percentage: `error_pct < 0.1` means below 0.1%)"
        );
    }

    #[test]
    fn operators_hold_as_written() {
        assert!(CmpOp::Lt.holds(1.0, 2.0) && !CmpOp::Lt.holds(2.0, 2.0));
        assert!(CmpOp::Le.holds(2.0, 2.0) && CmpOp::Ge.holds(2.0, 2.0) && CmpOp::Eq.holds(0.0, 0.0));
        assert!(CmpOp::Gt.holds(3.0, 2.0) && !CmpOp::Gt.holds(2.0, 2.0));
    }
}
