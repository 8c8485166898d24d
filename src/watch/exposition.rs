//! Prometheus' text exposition format (version 0.0.4, and the OpenMetrics text that endpoints
//! answer with the same grammar): every sample with its family's type. Hand-written: the crates
//! that parse it (`prometheus-parse`, `openmetrics-parser`) are unmaintained or pull a parser
//! generator, and the grammar is a dozen lines.
//!
//! A sample's name is kept with its labels as written (`http_requests_total{code="200"}`), its
//! label values unescaped and quoted again, so the same series has the same name in every
//! scrape. Timestamps are read and dropped: a sample is taken when it is scraped.

use std::collections::HashMap;

/// What a family's `# TYPE` line says its samples are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Only goes up (resets aside): reported as a rate and a total over the run.
    Counter,
    /// A value now: reported as itself. Untyped samples are taken as gauges.
    Gauge,
}

/// One sample of a scrape.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sample {
    /// The name and labels: `name` or `name{a="x",b="y"}`.
    pub(super) name: String,
    pub(super) kind: Kind,
    pub(super) value: f64,
}

/// A line that does not read as the format: its number (from 1) and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub(super) struct ParseError {
    pub(super) line: usize,
    pub(super) message: String,
}

/// The samples of an exposition, in order.
pub(super) fn parse(text: &str) -> Result<Vec<Sample>, ParseError> {
    let mut types: HashMap<&str, &str> = HashMap::new();
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let err = |message: &str| ParseError { line: n + 1, message: message.to_string() };
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix('#') {
            let mut words = comment.split_whitespace();
            if words.next() == Some("TYPE") {
                let (Some(name), Some(kind)) = (words.next(), words.next()) else {
                    return Err(err("a TYPE line needs a name and a type"));
                };
                types.insert(name, kind);
            }
            continue;
        }
        let (name, labels, rest) = split_sample(line).map_err(|m| err(&m))?;
        let value_text = rest.split_whitespace().next().ok_or_else(|| err("a sample needs a value"))?;
        let value = parse_value(value_text).ok_or_else(|| err(&format!("`{value_text}` is not a number")))?;
        let Some(kind) = kind_of(&types, name) else { continue };
        let name = if labels.is_empty() {
            name.to_string()
        } else {
            let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect();
            format!("{name}{{{}}}", pairs.join(","))
        };
        out.push(Sample { name, kind, value });
    }
    Ok(out)
}

/// The kind of sample `name` by its family's type, or `None` for samples that are no measure
/// (a counter's `_created` timestamp).
fn kind_of(types: &HashMap<&str, &str>, name: &str) -> Option<Kind> {
    if let Some(t) = types.get(name) {
        return Some(kind(t, ""));
    }
    for suffix in ["_total", "_count", "_sum", "_bucket", "_created", "_gcount", "_gsum"] {
        if let Some(family) = name.strip_suffix(suffix) {
            if let Some(t) = types.get(family) {
                if suffix == "_created" {
                    return None;
                }
                return Some(kind(t, suffix));
            }
        }
    }
    Some(Kind::Gauge)
}

fn kind(family_type: &str, suffix: &str) -> Kind {
    match (family_type, suffix) {
        ("counter", _) => Kind::Counter,
        // A histogram's buckets, sum and count, and a summary's sum and count, only go up; a
        // summary's quantiles and a gauge histogram's are values now.
        ("histogram" | "summary", "_count" | "_sum" | "_bucket") => Kind::Counter,
        _ => Kind::Gauge,
    }
}

/// `name{labels} rest` → the name, the labels (values unescaped) and what follows.
#[allow(clippy::type_complexity)]
fn split_sample(line: &str) -> Result<(&str, Vec<(&str, String)>, &str), String> {
    let end = line.find(|c: char| c == '{' || c.is_whitespace()).unwrap_or(line.len());
    let name = &line[..end];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
        return Err(format!("`{name}` is not a metric name"));
    }
    let mut rest = &line[end..];
    let mut labels = Vec::new();
    if let Some(inner) = rest.strip_prefix('{') {
        let mut s = inner;
        loop {
            s = s.trim_start_matches([' ', ',']);
            if let Some(after) = s.strip_prefix('}') {
                rest = after;
                break;
            }
            let eq = s.find('=').ok_or("a label needs `=`")?;
            let key = s[..eq].trim();
            if key.is_empty() {
                return Err("a label without a name".into());
            }
            let quoted = s[eq + 1..].trim_start().strip_prefix('"').ok_or("a label value must be quoted")?;
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let close = loop {
                match chars.next() {
                    Some((i, '"')) => break i,
                    Some((_, '\\')) => match chars.next() {
                        Some((_, 'n')) => value.push('\n'),
                        Some((_, c)) => value.push(c),
                        None => return Err("a label value is not closed".into()),
                    },
                    Some((_, c)) => value.push(c),
                    None => return Err("a label value is not closed".into()),
                }
            };
            labels.push((key, value));
            s = &quoted[close + 1..];
        }
    }
    if !rest.starts_with(char::is_whitespace) {
        return Err("a sample needs a value after its name".into());
    }
    Ok((name, labels, rest))
}

fn parse_value(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => s.parse().ok().filter(|v: &f64| v.is_finite()),
    }
}

/// A label value quoted as the format writes it.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<(String, Kind, f64)> {
        parse(text).unwrap().into_iter().map(|s| (s.name, s.kind, s.value)).collect()
    }

    #[test]
    fn counters_gauges_and_untyped() {
        let text = "# HELP reqs_total Requests.\n# TYPE reqs_total counter\nreqs_total 150378\n\
                    # TYPE open gauge\nopen 3\nplain_thing 2.5e3\n";
        assert_eq!(
            values(text),
            vec![
                ("reqs_total".into(), Kind::Counter, 150378.0),
                ("open".into(), Kind::Gauge, 3.0),
                ("plain_thing".into(), Kind::Gauge, 2500.0),
            ]
        );
    }

    #[test]
    fn labels_with_escapes_keep_one_name() {
        let text = "# TYPE http_requests_total counter\n\
                    http_requests_total{method=\"post\",path=\"/a \\\"b\\\"\\\\c\\nd\"} 1027 1395066363000\n\
                    http_requests_total{ method = \"get\" , } 3\n";
        assert_eq!(
            values(text),
            vec![
                ("http_requests_total{method=\"post\",path=\"/a \\\"b\\\"\\\\c\\nd\"}".into(), Kind::Counter, 1027.0),
                ("http_requests_total{method=\"get\"}".into(), Kind::Counter, 3.0),
            ]
        );
    }

    #[test]
    fn nan_infinities_timestamps_and_comments() {
        let text = "# a comment\n#TYPE x gauge\n\nx NaN\ny +Inf 123\nz -Inf\n  w 1 -5\n";
        let v = values(text);
        assert!(v[0].2.is_nan());
        assert_eq!(v[1].2, f64::INFINITY);
        assert_eq!(v[2].2, f64::NEG_INFINITY);
        assert_eq!(v[3], ("w".into(), Kind::Gauge, 1.0));
    }

    #[test]
    fn histogram_and_summary_parts() {
        let text =
            "# TYPE lat histogram\nlat_bucket{le=\"0.1\"} 5\nlat_bucket{le=\"+Inf\"} 9\nlat_sum 1.5\nlat_count 9\n\
                    # TYPE q summary\nq{quantile=\"0.99\"} 0.3\nq_count 4\n\
                    # TYPE c counter\nc_total 7\nc_created 1.7e9\n";
        let v = values(text);
        let kinds: Vec<(&str, Kind)> = v.iter().map(|(n, k, _)| (n.as_str(), *k)).collect();
        assert_eq!(
            kinds,
            vec![
                ("lat_bucket{le=\"0.1\"}", Kind::Counter),
                ("lat_bucket{le=\"+Inf\"}", Kind::Counter),
                ("lat_sum", Kind::Counter),
                ("lat_count", Kind::Counter),
                ("q{quantile=\"0.99\"}", Kind::Gauge),
                ("q_count", Kind::Counter),
                ("c_total", Kind::Counter),
            ]
        );
    }

    #[test]
    fn what_is_not_the_format_names_its_line() {
        for (text, line) in [
            ("ok 1\n<html>\n", 2),
            ("x{a=\"b} 1\n", 1),
            ("x{a=b} 1\n", 1),
            ("x\n", 1),
            ("x one\n", 1),
            ("# TYPE x\n", 1),
            ("x{a=\"1\"}2\n", 1),
        ] {
            assert_eq!(parse(text).unwrap_err().line, line, "{text:?}");
        }
    }
}
