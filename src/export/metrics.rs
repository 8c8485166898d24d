//! What every sink sends: the run's cumulative numbers per label as of one interval, and that
//! interval's own figures, in a [`Snapshot`] small enough to copy into a queue each second.

use crate::record::{ErrorCounts, Histogram, Interval, LabelStats};

/// The `le` bounds of `stampede_latency_seconds`, in µs (1 ms to 60 s; `+Inf` is the count).
pub const LE_US: [u64; 15] = [
    1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000,
    10_000_000, 30_000_000, 60_000_000,
];

/// The metric names the Prometheus sinks emit (histogram series by their full names), for docs
/// and for the dashboard's check.
pub const NAMES: &[&str] = &[
    "stampede_requests_total",
    "stampede_errors_total",
    "stampede_received_bytes_total",
    "stampede_sent_bytes_total",
    "stampede_latency_seconds_bucket",
    "stampede_latency_seconds_sum",
    "stampede_latency_seconds_count",
    "stampede_active_users",
];

/// Who the numbers belong to, as labels (tags) on every series.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ident {
    /// The run directory's name.
    pub run_id: String,
    /// The plan's name.
    pub plan: String,
    /// `--export-tag`, when given.
    pub tag: Option<String>,
}

impl Ident {
    /// `(name, value)` pairs, the optional tag only when given.
    pub fn pairs(&self) -> Vec<(&'static str, &str)> {
        let mut v = vec![("run_id", self.run_id.as_str()), ("plan", self.plan.as_str())];
        if let Some(t) = &self.tag {
            v.push(("tag", t.as_str()));
        }
        v
    }
}

/// One label's numbers since the run started.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub requests: u64,
    pub errors: u64,
    pub received_bytes: u64,
    pub sent_bytes: u64,
    /// Sum of elapsed times, µs.
    pub sum_us: u64,
    /// Requests at or below each bound of [`LE_US`], cumulative as Prometheus buckets are.
    pub le: [u64; LE_US.len()],
    /// Errors per kind name (`timeout`, `http_503`...), non-zero only, in the record's order.
    pub errors_by_kind: Vec<(String, u64)>,
}

/// One label's figures of one interval (for InfluxDB, which stores points, not counters).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub requests: u64,
    pub errors: u64,
    pub received_bytes: u64,
    pub sent_bytes: u64,
    /// Average, median, 90th, 95th, 99th percentile and maximum of elapsed, ms; `None` when the
    /// interval had no samples of the label.
    pub latency_ms: Option<[f64; 6]>,
    /// This interval's errors per kind name.
    pub errors_by_kind: Vec<(String, u64)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LabelPoint {
    pub label: String,
    pub totals: Totals,
    pub interval: Figures,
}

/// The run as of one interval's end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    /// Wall clock when the interval was handed over (its end), ms since the Unix epoch.
    pub time_ms: i64,
    /// Wall clock when the sink started (the run's start, as near as it knows), ms: where
    /// cumulative counters begin (OTLP's start time).
    pub start_ms: i64,
    pub index: u64,
    pub last: bool,
    /// Every label that has had a sample so far, in label order.
    pub labels: Vec<LabelPoint>,
    /// The run's Total row (its `label` is empty): what is "in the Total" only, so a group's
    /// requests and a redirect chain count once. Summing `labels` would count them twice.
    pub total: LabelPoint,
    /// Users busy at the interval's end, per scenario name.
    pub active_users: Vec<(String, u64)>,
}

/// The scope of a series: `total` (the run's Total row, no `label`) or `label` (one label). A
/// dimension of its own, so a plan label named "Total" cannot be mistaken for the Total.
pub const SCOPE: &str = "scope";

impl Snapshot {
    /// The Total first, then each label: the extra labels (tags) that name it, and its numbers.
    /// An empty label name is left out, as remote write and InfluxDB drop empty values anyway.
    pub fn rows(&self) -> Vec<(Vec<(&'static str, &str)>, &LabelPoint)> {
        std::iter::once((vec![(SCOPE, "total")], &self.total))
            .chain(self.labels.iter().map(|l| {
                let mut tags = vec![(SCOPE, "label")];
                if !l.label.is_empty() {
                    tags.push(("label", l.label.as_str()));
                }
                (tags, l)
            }))
            .collect()
    }
}

/// The cumulative state a sink's output keeps on the run's task, so that an interval dropped
/// on its way to a slow sink loses a point in time, never a count: the next snapshot carries
/// the totals again.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Label names by `LabelId` index; names rendered at run time are appended as they come.
    names: Vec<String>,
    scenarios: Vec<String>,
    checks: Vec<String>,
    labels: Vec<Option<(Totals, ErrorCounts)>>,
    total: (Totals, ErrorCounts),
    /// Whether each interval's own figures (percentiles per label) are wanted: only InfluxDB
    /// stores points; the cumulative sinks would compute them for nothing every second.
    figures: bool,
    start_ms: i64,
    last_ms: i64,
}

impl Metrics {
    pub fn new(names: Vec<String>, scenarios: Vec<String>, checks: Vec<String>, figures: bool) -> Metrics {
        Metrics {
            names,
            scenarios,
            checks,
            labels: Vec::new(),
            total: Default::default(),
            figures,
            start_ms: now_ms(),
            last_ms: 0,
        }
    }

    /// Adds the interval and returns the snapshot to send.
    pub fn update(&mut self, iv: &Interval) -> Snapshot {
        self.names.extend(iv.new_labels.iter().cloned());
        let mut figures: Vec<Option<Figures>> = vec![None; self.labels.len().max(self.names.len())];
        for (id, s) in &iv.labels {
            let i = id.index();
            if i >= self.labels.len() {
                self.labels.resize_with(i + 1, || None);
            }
            if i >= figures.len() {
                figures.resize(i + 1, None);
            }
            if s.samples == 0 {
                continue;
            }
            let (t, kinds) = self.labels[i].get_or_insert_with(Default::default);
            figures[i] = Some(add(t, kinds, s, &self.checks, self.figures));
        }
        let total = if iv.total.samples == 0 {
            Figures::default()
        } else {
            let (t, kinds) = &mut self.total;
            add(t, kinds, &iv.total, &self.checks, self.figures)
        };
        let labels = self
            .labels
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let (totals, _) = l.as_ref()?;
                Some(LabelPoint {
                    label: self.names.get(i).cloned().unwrap_or_else(|| format!("label-{i}")),
                    totals: totals.clone(),
                    interval: figures.get_mut(i).and_then(Option::take).unwrap_or_default(),
                })
            })
            .collect();
        let active_users = self
            .scenarios
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), iv.active_users.get(i).copied().unwrap_or(0)))
            .collect();
        // The last interval of a run, short, may come within the millisecond of the one before:
        // a series takes one value per timestamp, so each snapshot gets a later one.
        self.last_ms = now_ms().max(self.last_ms + 1);
        Snapshot {
            time_ms: self.last_ms,
            start_ms: self.start_ms,
            index: iv.index,
            last: iv.last,
            labels,
            total: LabelPoint { label: String::new(), totals: self.total.0.clone(), interval: total },
            active_users,
        }
    }
}

/// Adds one interval's stats of a label to its totals; its own figures, percentiles only when
/// `quantiles` (they cost a walk of the histogram each).
fn add(t: &mut Totals, kinds: &mut ErrorCounts, s: &LabelStats, checks: &[String], quantiles: bool) -> Figures {
    t.requests += s.samples;
    t.errors += s.errors;
    t.received_bytes += s.bytes_received;
    t.sent_bytes += s.bytes_sent;
    t.sum_us += s.sum_elapsed_us;
    add_buckets(&mut t.le, &s.histogram);
    kinds.merge(&s.errors_by_kind);
    t.errors_by_kind = kind_names(kinds, checks);
    let ms = |us: u64| us as f64 / 1e3;
    Figures {
        requests: s.samples,
        errors: s.errors,
        received_bytes: s.bytes_received,
        sent_bytes: s.bytes_sent,
        latency_ms: quantiles.then(|| {
            [
                s.sum_elapsed_us as f64 / s.samples as f64 / 1e3,
                ms(s.quantile_us(0.5)),
                ms(s.quantile_us(0.9)),
                ms(s.quantile_us(0.95)),
                ms(s.quantile_us(0.99)),
                ms(s.max_us),
            ]
        }),
        errors_by_kind: if quantiles { kind_names(&s.errors_by_kind, checks) } else { Vec::new() },
    }
}

fn kind_names(kinds: &ErrorCounts, checks: &[String]) -> Vec<(String, u64)> {
    kinds.iter().map(|(k, n)| (k.name_with(checks), n)).collect()
}

/// Adds a histogram's counts to cumulative `le` buckets. A sample counts at a bound when its
/// HDR bucket starts at or below the bound: the bound's own bucket (0.1% wide at most) cannot
/// be split, and this is the reading the percentiles of the reports use. So the buckets are
/// exact against the histogram, and the `+Inf` bucket is the request count.
pub fn add_buckets(le: &mut [u64; LE_US.len()], h: &Histogram) {
    for b in h.iter_recorded() {
        let lowest = Histogram::<3>::lowest_equivalent(b.value);
        let first = LE_US.partition_point(|&bound| bound < lowest);
        for slot in &mut le[first..] {
            *slot += b.count;
        }
    }
}

pub(super) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// One Prometheus series of a snapshot: its metric name, its labels (the identification first,
/// unsorted) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: &'static str,
    pub labels: Vec<(&'static str, String)>,
    pub value: f64,
}

/// A metric family: name, type and help, as the exposition format's `# TYPE` and `# HELP` say.
pub struct Family {
    pub name: &'static str,
    pub kind: &'static str,
    pub help: &'static str,
}

pub const FAMILIES: &[Family] = &[
    Family {
        name: "stampede_requests_total",
        kind: "counter",
        help: "Requests completed (success or failure) since the run started.",
    },
    Family {
        name: "stampede_errors_total",
        kind: "counter",
        help: "Failed requests since the run started, by error kind.",
    },
    Family {
        name: "stampede_received_bytes_total",
        kind: "counter",
        help: "Bytes received on the wire (headers and body) since the run started.",
    },
    Family {
        name: "stampede_sent_bytes_total",
        kind: "counter",
        help: "Bytes sent on the wire (headers and body) since the run started.",
    },
    Family {
        name: "stampede_latency_seconds",
        kind: "histogram",
        help: "Elapsed time of requests, from just before the request is written to the last byte of the response.",
    },
    Family {
        name: "stampede_active_users",
        kind: "gauge",
        help: "Virtual users busy at the end of the last interval, per scenario.",
    },
];

/// Every series of `snap`, family by family (as [`FAMILIES`]), each family's series label by
/// label.
pub fn series(snap: &Snapshot, ident: &Ident) -> Vec<(usize, Series)> {
    // An empty value is the same as no label to Prometheus; remote write would send it anyway.
    let base: Vec<(&'static str, String)> =
        ident.pairs().into_iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (k, v.to_string())).collect();
    let rows: Vec<(Vec<(&'static str, String)>, &Totals)> = snap
        .rows()
        .into_iter()
        .map(|(tags, l)| {
            (base.iter().cloned().chain(tags.into_iter().map(|(k, v)| (k, v.to_string()))).collect(), &l.totals)
        })
        .collect();
    let with = |row: &[(&'static str, String)], extra: &[(&'static str, String)]| -> Vec<(&'static str, String)> {
        row.iter().cloned().chain(extra.iter().cloned()).collect()
    };
    let mut out = Vec::new();
    let counter = |out: &mut Vec<(usize, Series)>, family: usize, name: &'static str, f: &dyn Fn(&Totals) -> u64| {
        for (row, t) in &rows {
            out.push((family, Series { name, labels: row.clone(), value: f(t) as f64 }));
        }
    };
    counter(&mut out, 0, "stampede_requests_total", &|t| t.requests);
    for (row, t) in &rows {
        for (kind, n) in &t.errors_by_kind {
            out.push((
                1,
                Series {
                    name: "stampede_errors_total",
                    labels: with(row, &[("kind", kind.clone())]),
                    value: *n as f64,
                },
            ));
        }
    }
    counter(&mut out, 2, "stampede_received_bytes_total", &|t| t.received_bytes);
    counter(&mut out, 3, "stampede_sent_bytes_total", &|t| t.sent_bytes);
    for (row, t) in &rows {
        for (bound, n) in LE_US.iter().zip(t.le) {
            out.push((
                4,
                Series {
                    name: "stampede_latency_seconds_bucket",
                    labels: with(row, &[("le", le_text(*bound))]),
                    value: n as f64,
                },
            ));
        }
        out.push((
            4,
            Series {
                name: "stampede_latency_seconds_bucket",
                labels: with(row, &[("le", "+Inf".into())]),
                value: t.requests as f64,
            },
        ));
        out.push((
            4,
            Series { name: "stampede_latency_seconds_sum", labels: row.clone(), value: t.sum_us as f64 / 1e6 },
        ));
        out.push((4, Series { name: "stampede_latency_seconds_count", labels: row.clone(), value: t.requests as f64 }));
    }
    for (scenario, n) in &snap.active_users {
        out.push((
            5,
            Series {
                name: "stampede_active_users",
                labels: with(&base, &[("scenario", scenario.clone())]),
                value: *n as f64,
            },
        ));
    }
    out
}

/// A bound in seconds as Prometheus writes `le` (`0.001`, `2.5`, `60`).
fn le_text(us: u64) -> String {
    let s = us as f64 / 1e6;
    format!("{s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_count_exactly_what_the_histogram_holds_at_each_bound() {
        let mut h = Histogram::<3>::new();
        // 1000 µs is its own bucket (unit resolution below 2048); 1001 is above 1 ms. Between
        // 2048 and 4095 buckets are 2 µs wide: [2500, 2501] starts at the 2.5 ms bound.
        for (v, n) in [(1, 3), (999, 1), (1_000, 2), (1_001, 5), (2_500, 7), (2_501, 11), (2_502, 13), (70_000_000, 17)]
        {
            h.record_n(v, n);
        }
        let mut le = [0; LE_US.len()];
        add_buckets(&mut le, &h);
        assert_eq!(le[0], 3 + 1 + 2);
        assert_eq!(le[1], 6 + 5 + 7 + 11);
        assert_eq!(le[2], 29 + 13);
        // Past the top bound only `+Inf` (the count) has them.
        assert_eq!(le[LE_US.len() - 1], 42);
        assert_eq!(h.len(), 59);
        // Adding twice is adding the histograms.
        add_buckets(&mut le, &h);
        assert_eq!(le[1], 2 * 29);
    }

    #[test]
    fn bounds_are_written_as_prometheus_writes_them() {
        assert_eq!(le_text(1_000), "0.001");
        assert_eq!(le_text(2_500), "0.0025");
        assert_eq!(le_text(1_000_000), "1");
        assert_eq!(le_text(60_000_000), "60");
    }
}
