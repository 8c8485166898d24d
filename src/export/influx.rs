//! InfluxDB line protocol, one point per label per interval (ms precision): measurement
//! `stampede` with the interval's figures and the run's totals so far, `stampede_errors` per
//! error kind, `stampede_users` per scenario.

use super::metrics::{Ident, Snapshot};
use std::fmt::Write as _;

/// The lines for `snap`, each ending in `\n`, for InfluxDB 2's write API when `v2`, else 1.x's
/// (their parsers read a backslash in a tag differently: `escape_tag` says how).
pub(crate) fn lines(snap: &Snapshot, ident: &Ident, v2: bool) -> String {
    let mut out = String::new();
    let tags = |extra: &[(&str, &str)]| -> String {
        let mut t = String::new();
        for (k, v) in ident.pairs().into_iter().chain(extra.iter().copied()) {
            // An empty tag value is not allowed: the tag is left out.
            if !v.is_empty() {
                let _ = write!(t, ",{}={}", escape_tag(k, v2), escape_tag(v, v2));
            }
        }
        t
    };
    let ts = snap.time_ms;
    // The Total is its own point (`scope=total`, no `label`), so that summing the label points
    // is never needed to get the run's count (it would count groups and redirects twice).
    for (row, l) in snap.rows() {
        let (i, t) = (&l.interval, &l.totals);
        let _ = write!(
            out,
            "stampede{} requests={}i,errors={}i,received_bytes={}i,sent_bytes={}i,requests_total={}i,errors_total={}i,received_bytes_total={}i,sent_bytes_total={}i",
            tags(&row),
            i.requests,
            i.errors,
            i.received_bytes,
            i.sent_bytes,
            t.requests,
            t.errors,
            t.received_bytes,
            t.sent_bytes
        );
        if let Some(ms) = i.latency_ms {
            for (name, v) in ["avg_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"].iter().zip(ms) {
                let _ = write!(out, ",{name}={}", float(v));
            }
        }
        let _ = writeln!(out, " {ts}");
        for (kind, total) in &t.errors_by_kind {
            let now = i.errors_by_kind.iter().find(|(k, _)| k == kind).map_or(0, |(_, n)| *n);
            let _ = writeln!(
                out,
                "stampede_errors{} errors={now}i,errors_total={total}i {ts}",
                tags(&row.iter().copied().chain([("kind", kind.as_str())]).collect::<Vec<_>>())
            );
        }
    }
    for (scenario, n) in &snap.active_users {
        let _ = writeln!(out, "stampede_users{} active={n}i {ts}", tags(&[("scenario", scenario)]));
    }
    out
}

/// A tag key or value: comma, equals sign and space escaped with a backslash; a line break,
/// which the protocol cannot carry, becomes a space. The two parsers differ on a backslash:
/// - InfluxDB 2 reads `\\` as `\`, so each backslash is doubled first: `C:\ x` is `C:\\\ x`;
/// - InfluxDB 1.x keeps `\\` as two (it unescapes only `\,`, `\=` and `\ `), and takes a
///   separator after any backslash as escaped: `C:\ x` is `C:\\ x` (its backslash, then `\ `).
///   A value ending in a backslash cannot be written to 1.x at all (the separator after it
///   would be read as escaped, and the whole request refused): those backslashes become `⧵`
///   (U+29F5), which looks the same.
fn escape_tag(v: &str, v2: bool) -> String {
    let mut s = String::with_capacity(v.len());
    let body = if v2 { v } else { v.trim_end_matches('\\') };
    for c in body.chars() {
        match c {
            ',' | '=' | ' ' => {
                s.push('\\');
                s.push(c);
            }
            '\\' if v2 => s.push_str("\\\\"),
            '\n' | '\r' => s.push(' '),
            c => s.push(c),
        }
    }
    // 1.x: the trailing backslashes trimmed above (see the doc).
    for _ in body.len()..v.len() {
        s.push('\u{29F5}');
    }
    s
}

/// A float field: always with a decimal point or exponent, so that InfluxDB types it a float
/// even when it is whole (`2` would be read as a float anyway, but `2.0` says so).
fn float(v: f64) -> String {
    if v.is_finite() {
        let s = format!("{v}");
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        "0.0".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::metrics::{Figures, LabelPoint, Totals};

    #[test]
    fn tags_escape_spaces_commas_and_equals() {
        for v2 in [false, true] {
            assert_eq!(escape_tag("GET /a, b=c", v2), "GET\\ /a\\,\\ b\\=c");
            assert_eq!(escape_tag("two\nlines", v2), "two lines");
        }
    }

    #[test]
    fn backslashes_are_written_as_each_version_reads_them() {
        // InfluxDB 2: `\\` is one backslash, then the escapes.
        assert_eq!(escape_tag("C:\\ x", true), "C:\\\\\\ x");
        assert_eq!(escape_tag("a\\,b\\=c", true), "a\\\\\\,b\\\\\\=c");
        assert_eq!(escape_tag("ends\\", true), "ends\\\\");
        // InfluxDB 1.x (checked against influxd 1.6): a backslash is kept as is, and the
        // separator after it escaped; `C:\\ x` reads back as `C:\ x`.
        assert_eq!(escape_tag("C:\\ x", false), "C:\\\\ x");
        assert_eq!(escape_tag("a\\b", false), "a\\b");
        assert_eq!(escape_tag("x\\,y", false), "x\\\\,y");
        // ... and cannot end a tag value with one.
        assert_eq!(escape_tag("ends\\\\", false), "ends\u{29F5}\u{29F5}");
    }

    #[test]
    fn a_point_per_label_with_interval_figures_and_totals() {
        let snap = Snapshot {
            time_ms: 1_700_000_000_000,
            labels: vec![
                LabelPoint {
                    label: "log in, then=look".into(),
                    scenario: None,
                    totals: Totals {
                        requests: 10,
                        errors: 2,
                        errors_by_kind: vec![("http_500".into(), 2)],
                        ..Default::default()
                    },
                    interval: Figures {
                        requests: 4,
                        errors: 1,
                        latency_ms: Some([1.5, 1.0, 2.0, 2.0, 3.0, 3.0]),
                        errors_by_kind: vec![("http_500".into(), 1)],
                        ..Default::default()
                    },
                },
                // No sample this interval: no latency fields, totals still sent.
                LabelPoint {
                    label: "idle".into(),
                    scenario: None,
                    totals: Totals { requests: 1, ..Default::default() },
                    interval: Default::default(),
                },
            ],
            active_users: vec![("read".into(), 7)],
            ..Default::default()
        };
        let ident = Ident { run_id: "r 1".into(), plan: "p".into(), tag: Some(String::new()) };
        let text = lines(&snap, &ident, false);
        let l: Vec<&str> = text.lines().collect();
        // The Total first, a point of its own without a label.
        assert!(l[0].starts_with("stampede,run_id=r\\ 1,plan=p,scope=total requests=0i,"), "{}", l[0]);
        let l = &l[1..];
        assert_eq!(
            l[0],
            "stampede,run_id=r\\ 1,plan=p,scope=label,label=log\\ in\\,\\ then\\=look requests=4i,errors=1i,received_bytes=0i,sent_bytes=0i,\
             requests_total=10i,errors_total=2i,received_bytes_total=0i,sent_bytes_total=0i,\
             avg_ms=1.5,p50_ms=1.0,p90_ms=2.0,p95_ms=2.0,p99_ms=3.0,max_ms=3.0 1700000000000"
        );
        assert_eq!(
            l[1],
            "stampede_errors,run_id=r\\ 1,plan=p,scope=label,label=log\\ in\\,\\ then\\=look,kind=http_500 errors=1i,errors_total=2i 1700000000000"
        );
        assert!(l[2].starts_with("stampede,run_id=r\\ 1,plan=p,scope=label,label=idle requests=0i,"));
        assert!(!l[2].contains("avg_ms"));
        assert_eq!(l[3], "stampede_users,run_id=r\\ 1,plan=p,scenario=read active=7i 1700000000000");
        assert_eq!(l.len(), 4);
    }
}
