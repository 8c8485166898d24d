//! What every sink sends: the run's cumulative numbers per label as of one interval, and that
//! interval's own figures, in a [`Snapshot`] small enough to copy into a queue each second.

use crate::record::{ErrorCounts, Histogram, Interval, LabelStats};

/// The `le` bounds of `stampede_latency_seconds`, in µs (1 ms to 60 s; `+Inf` is the count).
pub(crate) const LE_US: [u64; 15] = [
    1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000,
    10_000_000, 30_000_000, 60_000_000,
];

/// The metric names the Prometheus sinks emit (histogram series by their full names), for docs
/// and for the dashboard's check.
#[cfg(test)]
pub(crate) const NAMES: &[&str] = &[
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
pub(crate) struct Ident {
    /// The run directory's name.
    pub run_id: String,
    /// The plan's name.
    pub plan: String,
    /// `--export-tag`, when given.
    pub tag: Option<String>,
}

impl Ident {
    /// `(name, value)` pairs, the optional tag only when given.
    pub(crate) fn pairs(&self) -> Vec<(&'static str, &str)> {
        let mut v = vec![("run_id", self.run_id.as_str()), ("plan", self.plan.as_str())];
        if let Some(t) = &self.tag {
            v.push(("tag", t.as_str()));
        }
        v
    }
}

/// One label's numbers since the run started.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Totals {
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
pub(crate) struct Figures {
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

/// One row of a snapshot: a label's, an agent's (`label` is then the agent's name) or the
/// Total (`label` empty).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LabelPoint {
    pub label: String,
    /// The scenario (thread group) whose samples the label counts, when the plan has several and
    /// only that one has samplers of this name; `None` otherwise.
    pub scenario: Option<String>,
    pub totals: Totals,
    pub interval: Figures,
}

/// The run as of one interval's end.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Snapshot {
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
    /// A run on agents: each agent's own Total so far (`label` is its name), as its intervals
    /// came before the merge; empty for a run in one process.
    pub agents: Vec<LabelPoint>,
}

/// The scope of a series: `total` (the run's Total row, no `label`), `label` (one label) or
/// `agent` (one agent's Total, its name in `agent`). A dimension of its own, so a plan label
/// named "Total" cannot be mistaken for the Total, and summing `scope="total"` never adds the
/// agents' rows to the merged run's.
pub(crate) const SCOPE: &str = "scope";
/// The tag naming the agent of a `scope="agent"` series: its directory under the run's `agents/`.
pub(crate) const AGENT: &str = "agent";
/// The tag naming a label's scenario (thread group) in a plan with several, as k6 names it.
pub(crate) const SCENARIO: &str = "scenario";

impl Snapshot {
    /// The Total first, then each label, then each agent: the extra labels (tags) that name it,
    /// and its numbers. An empty label name is left out, as remote write and InfluxDB drop empty
    /// values anyway.
    pub(crate) fn rows(&self) -> Vec<(Vec<(&'static str, &str)>, &LabelPoint)> {
        std::iter::once((vec![(SCOPE, "total")], &self.total))
            .chain(self.labels.iter().map(|l| {
                let mut tags = vec![(SCOPE, "label")];
                if !l.label.is_empty() {
                    tags.push(("label", l.label.as_str()));
                }
                if let Some(s) = &l.scenario {
                    tags.push((SCENARIO, s.as_str()));
                }
                (tags, l)
            }))
            .chain(self.agents.iter().map(|a| (vec![(SCOPE, "agent"), (AGENT, a.label.as_str())], a)))
            .collect()
    }
}

/// The cumulative state a sink's output keeps on the run's task, so that an interval dropped
/// on its way to a slow sink loses a point in time, never a count: the next snapshot carries
/// the totals again.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// Label names by `LabelId` index; names rendered at run time are appended as they come.
    names: Vec<String>,
    scenarios: Vec<String>,
    checks: Vec<String>,
    labels: Vec<Option<(Totals, ErrorCounts)>>,
    total: (Totals, ErrorCounts),
    /// Whether each interval's own figures (percentiles per label) are wanted: only InfluxDB
    /// stores points; the cumulative sinks would compute them for nothing every second.
    figures: bool,
    /// Each label's scenario, by `LabelId` index, where the plan has several (see
    /// `Plan::label_scenarios`).
    label_scenarios: Vec<Option<String>>,
    /// A run on agents: each agent's Total so far, and what came since the last snapshot.
    agents: Vec<Agent>,
    start_ms: i64,
    last_ms: i64,
}

impl Metrics {
    pub(crate) fn new(names: Vec<String>, scenarios: Vec<String>, checks: Vec<String>, figures: bool) -> Metrics {
        Metrics {
            names,
            scenarios,
            checks,
            labels: Vec::new(),
            total: Default::default(),
            figures,
            label_scenarios: Vec::new(),
            agents: Vec::new(),
            start_ms: now_ms(),
            last_ms: 0,
        }
    }

    /// Tags each label's series with its scenario: `of[i]` for label `i` (`Plan::label_scenarios`).
    pub(crate) fn with_label_scenarios(mut self, of: Vec<Option<String>>) -> Metrics {
        self.label_scenarios = of;
        self
    }

    /// Adds agent `agent`'s own interval (its Total), named `name`: counted in the agent's row
    /// of the next snapshot. The merged intervals still come through [`update`](Self::update).
    pub(crate) fn part(&mut self, agent: usize, name: &str, iv: &Interval) {
        if agent >= self.agents.len() {
            self.agents.resize_with(agent + 1, Agent::default);
        }
        let a = &mut self.agents[agent];
        if a.name.is_empty() {
            a.name = name.to_string();
        }
        a.pending += &iv.total;
        a.heard = true;
    }

    /// Adds the interval and returns the snapshot to send.
    pub(crate) fn update(&mut self, iv: &Interval) -> Snapshot {
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
                    scenario: self.label_scenarios.get(i).cloned().flatten(),
                    totals: totals.clone(),
                    interval: figures.get_mut(i).and_then(Option::take).unwrap_or_default(),
                })
            })
            .collect();
        let (checks, figures) = (&self.checks, self.figures);
        let agents = self
            .agents
            .iter_mut()
            .filter(|a| a.heard)
            .map(|a| {
                let interval = match a.pending.samples {
                    0 => Figures::default(),
                    _ => add(&mut a.totals, &mut a.kinds, &a.pending, checks, figures),
                };
                a.pending = LabelStats::default();
                LabelPoint { label: a.name.clone(), scenario: None, totals: a.totals.clone(), interval }
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
            total: LabelPoint { label: String::new(), scenario: None, totals: self.total.0.clone(), interval: total },
            active_users,
            agents,
        }
    }
}

/// One agent's row: its name, its Total so far, and its intervals since the last snapshot.
#[derive(Debug, Default)]
struct Agent {
    name: String,
    totals: Totals,
    kinds: ErrorCounts,
    pending: LabelStats,
    /// An interval of it has come: it has a row from then on.
    heard: bool,
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
pub(crate) fn add_buckets(le: &mut [u64; LE_US.len()], h: &Histogram) {
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
pub(crate) struct Series {
    pub name: &'static str,
    pub labels: Vec<(&'static str, String)>,
    pub value: f64,
}

/// A metric family: name, type and help, as the exposition format's `# TYPE` and `# HELP` say.
pub(crate) struct Family {
    pub name: &'static str,
    pub kind: &'static str,
    pub help: &'static str,
}

pub(crate) const FAMILIES: &[Family] = &[
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
pub(crate) fn series(snap: &Snapshot, ident: &Ident) -> Vec<(usize, Series)> {
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
    use crate::plan::LabelId;

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

    fn stats(samples: u64, elapsed_us: u64) -> LabelStats {
        let mut s = LabelStats {
            samples,
            sum_elapsed_us: samples * elapsed_us,
            min_us: elapsed_us,
            max_us: elapsed_us,
            ..Default::default()
        };
        s.histogram.record_n(elapsed_us, samples);
        s
    }

    fn interval(index: u64, total: LabelStats) -> Interval {
        Interval {
            index,
            start_us: 0,
            end_us: 0,
            labels: Vec::new(),
            new_labels: Vec::new(),
            total,
            scenarios: Vec::new(),
            lateness: Vec::new(),
            active_users: Vec::new(),
            last: false,
        }
    }

    #[test]
    fn each_agent_gets_a_row_of_its_own_totals_beside_the_merged_ones() {
        let mut m = Metrics::new(vec!["get".into()], vec!["s".into()], Vec::new(), true);
        m.part(1, "2-b", &interval(0, stats(5, 2_000)));
        m.part(0, "1-a", &interval(0, stats(3, 1_000)));
        m.part(0, "1-a", &interval(1, stats(4, 1_000)));
        let snap = m.update(&interval(0, stats(12, 1_000)));
        assert_eq!(snap.total.totals.requests, 12);
        let rows = snap.rows();
        let agent = |name: &str| {
            rows.iter()
                .find(|(tags, _)| tags.contains(&(AGENT, name)))
                .map(|(tags, l)| (tags.clone(), l.totals.clone()))
        };
        let (tags, a) = agent("1-a").unwrap();
        assert_eq!(tags, [(SCOPE, "agent"), (AGENT, "1-a")]);
        assert_eq!((a.requests, a.le[0]), (7, 7));
        let (_, b) = agent("2-b").unwrap();
        assert_eq!((b.requests, b.le[0], b.le[1]), (5, 0, 5));
        // Counters: the next snapshot keeps them, and adds what came since.
        m.part(1, "2-b", &interval(1, stats(1, 2_000)));
        let snap = m.update(&interval(1, stats(1, 2_000)));
        let totals: Vec<(String, u64)> = snap.agents.iter().map(|a| (a.label.clone(), a.totals.requests)).collect();
        assert_eq!(totals, [("1-a".to_string(), 7), ("2-b".to_string(), 6)]);
        assert_eq!(snap.agents[0].interval.requests, 0);
        assert_eq!(snap.agents[1].interval.requests, 1);
        // No agent row in a run of one process.
        let mut local = Metrics::new(vec!["get".into()], vec!["s".into()], Vec::new(), false);
        assert!(local.update(&interval(0, stats(2, 1_000))).rows().iter().all(|(t, _)| !t.contains(&(SCOPE, "agent"))));
    }

    #[test]
    fn a_label_is_tagged_with_its_scenario_when_the_plan_has_several() {
        let yaml = |scenarios: &str| {
            crate::plan::Plan::from_yaml_str(
                &format!("name: p\nscenarios:\n{scenarios}"),
                "p.yaml".as_ref(),
                &Default::default(),
            )
            .unwrap()
        };
        let scenario = |name: &str, labels: &[&str]| {
            let steps: String = labels
                .iter()
                .map(|l| format!("      - request: {{url: 'http://127.0.0.1:1/', label: {l}}}\n"))
                .collect();
            format!("  - name: {name}\n    workload: {{users: 1, iterations: 1}}\n    flow:\n{steps}")
        };
        let plan = yaml(&(scenario("browse", &["home", "both"]) + &scenario("buy", &["pay", "both"])));
        let of = plan.label_scenarios();
        let tag = |label: &str| of[plan.labels.iter().position(|l| l == label).unwrap()].clone();
        assert_eq!(tag("home").as_deref(), Some("browse"));
        assert_eq!(tag("pay").as_deref(), Some("buy"));
        // Both scenarios' samples are one row: no one scenario to name.
        assert_eq!(tag("both"), None);
        // One scenario: no tag, the series as they were.
        assert!(yaml(&scenario("only", &["home"])).label_scenarios().is_empty());
        let mut m = Metrics::new(plan.labels.clone(), Vec::new(), Vec::new(), false).with_label_scenarios(of.clone());
        let home = LabelId(plan.labels.iter().position(|l| l == "home").unwrap() as u32);
        let snap = m.update(&Interval { labels: vec![(home, stats(1, 1_000))], ..interval(0, stats(1, 1_000)) });
        let (tags, _) = &snap.rows()[1];
        assert_eq!(tags, &[(SCOPE, "label"), ("label", "home"), (SCENARIO, "browse")]);
    }

    #[test]
    fn bounds_are_written_as_prometheus_writes_them() {
        assert_eq!(le_text(1_000), "0.001");
        assert_eq!(le_text(2_500), "0.0025");
        assert_eq!(le_text(1_000_000), "1");
        assert_eq!(le_text(60_000_000), "60");
    }
}
