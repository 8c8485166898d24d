//! The figures of a report row that goals and comparisons name (`p95`, `error_pct`, `throughput`…),
//! with their names, aliases and units: the one vocabulary thresholds (in the plan), comparisons
//! (in reports) and summary rows (in the run directory) share, so it depends on nothing.

/// The name of the row that sums every label: the Total.
pub(crate) const TOTAL: &str = "Total";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
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
pub(crate) const METRICS: [(Metric, &[&str]); 15] = [
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
    pub(crate) fn name(self) -> &'static str {
        METRICS.iter().find(|(m, _)| *m == self).map(|(_, n)| n[0]).unwrap_or("?")
    }

    pub(crate) fn parse(s: &str) -> Option<Metric> {
        let s = s.to_ascii_lowercase();
        METRICS.iter().find(|(_, names)| names.contains(&s.as_str())).map(|(m, _)| *m)
    }

    pub(crate) fn is_time(self) -> bool {
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
    pub(crate) fn unit(self) -> &'static str {
        match self {
            m if m.is_time() => "ms",
            Metric::ErrorPct => "%",
            Metric::Throughput => "/s",
            Metric::ReceivedKbps | Metric::SentKbps => " KB/s",
            _ => "",
        }
    }
}
