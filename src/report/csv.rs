//! The results as CSV: a row per label, the Total first, with the JSON summary's field names
//! as the header, for spreadsheets and scripts.

use crate::rundir::{LabelSummary, Summary, UpstreamSummary};

pub(crate) const HEADER: [&str; 34] = [
    "label",
    "samples",
    "errors",
    "error_pct",
    "mean_ms",
    "min_ms",
    "max_ms",
    "p50_ms",
    "p90_ms",
    "p95_ms",
    "p99_ms",
    "p999_ms",
    "throughput_rps",
    "received_kbps",
    "sent_kbps",
    "mean_latency_ms",
    "connections_opened",
    "p99_latency_ms",
    "max_latency_ms",
    "mean_connect_ms",
    "p99_connect_ms",
    "max_connect_ms",
    // The upstream split (`upstream` in the JSON summary), empty where no response told it.
    "upstream_samples",
    "upstream_mean_total_ms",
    "upstream_mean_ms",
    "upstream_p50_ms",
    "upstream_p95_ms",
    "upstream_p99_ms",
    "upstream_max_ms",
    "upstream_mean_overhead_ms",
    "upstream_p50_overhead_ms",
    "upstream_p95_overhead_ms",
    "upstream_p99_overhead_ms",
    "upstream_max_overhead_ms",
];

fn opt(v: Option<f64>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

fn row(s: &LabelSummary) -> Vec<String> {
    // Full precision: a spreadsheet rounds for display, a script should not get rounded input.
    let mut row = vec![
        s.label.clone(),
        s.samples.to_string(),
        s.errors.to_string(),
        s.error_pct.to_string(),
        s.mean_ms.to_string(),
        s.min_ms.to_string(),
        s.max_ms.to_string(),
        s.p50_ms.to_string(),
        s.p90_ms.to_string(),
        s.p95_ms.to_string(),
        s.p99_ms.to_string(),
        s.p999_ms.to_string(),
        s.throughput_rps.to_string(),
        s.received_kbps.to_string(),
        s.sent_kbps.to_string(),
        s.mean_latency_ms.to_string(),
        s.connections_opened.to_string(),
        // Empty where not recorded (or, for connect times, where no connection was opened).
        opt(s.p99_latency_ms),
        opt(s.max_latency_ms),
        if s.connections_opened > 0 || s.p99_connect_ms.is_some() {
            s.mean_connect_ms.to_string()
        } else {
            String::new()
        },
        opt(s.p99_connect_ms),
        opt(s.max_connect_ms),
    ];
    let u = s.upstream.as_ref();
    row.push(u.map_or_else(String::new, |u| u.samples.to_string()));
    let fields: [fn(&UpstreamSummary) -> f64; 11] = [
        |u| u.mean_total_ms,
        |u| u.mean_ms,
        |u| u.p50_ms,
        |u| u.p95_ms,
        |u| u.p99_ms,
        |u| u.max_ms,
        |u| u.mean_overhead_ms,
        |u| u.p50_overhead_ms,
        |u| u.p95_overhead_ms,
        |u| u.p99_overhead_ms,
        |u| u.max_overhead_ms,
    ];
    row.extend(fields.iter().map(|f| opt(u.map(f))));
    row
}

/// Tables over time as one CSV: a row per window and row (the Total first), the window's start
/// and end in seconds from the run's start before the summary's fields.
pub(crate) fn windows(windows: &[super::Window]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(["from_s", "to_s"].iter().chain(HEADER.iter()));
    for win in windows {
        for s in std::iter::once(&win.summary.total).chain(&win.summary.labels) {
            let times = [(win.from_us as f64 / 1e6).to_string(), (win.to_us as f64 / 1e6).to_string()];
            let _ = w.write_record(times.into_iter().chain(row(s)));
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

pub(crate) fn table(summary: &Summary) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    // Writing to memory cannot fail.
    let _ = w.write_record(HEADER);
    for s in std::iter::once(&summary.total).chain(&summary.labels) {
        let _ = w.write_record(row(s));
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
