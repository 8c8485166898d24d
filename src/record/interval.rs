//! [`Tally`]: per-label stats and per-scenario counters, the unit workers fill and the collector
//! merges; [`Interval`]: one interval's tally with its place in time and the gauges read at its
//! end.

use super::LabelStats;
use crate::plan::LabelId;

/// Per-scenario counts that are not per label.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScenarioCounts {
    /// Iterations that ran to their end.
    pub iterations: u64,
    /// Open model: arrivals that found no free user and were not started.
    pub dropped: u64,
    /// Open model: arrivals the generator could not dispatch on time (more than the open
    /// executor's `MAX_LAG` late): a rate beyond the generator, not a slow server.
    pub undispatched: u64,
}

impl ScenarioCounts {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &ScenarioCounts) {
        self.iterations += other.iterations;
        self.dropped += other.dropped;
        self.undispatched += other.undispatched;
    }
}

/// Stats per label (indexed by `LabelId`), the Total (every exchange once; see
/// [`Sample::in_total`](super::Sample::in_total)) and counts per scenario (indexed by position).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// A label's stats are boxed at its first sample: a plan's labels that never get one (the
    /// `label-N` rows of redirect hops that never happen, say) cost a pointer each.
    labels: Vec<Option<Box<LabelStats>>>,
    /// The Total row.
    pub total: LabelStats,
    /// Counts per scenario, by position.
    pub scenarios: Vec<ScenarioCounts>,
    /// Open model, per scenario: how late each arrival's first request was sent after it was
    /// due (µs, in the elapsed-time fields); the generator's own lateness.
    pub lateness: Vec<LabelStats>,
}

impl Tally {
    /// An empty tally of `labels` labels and `scenarios` scenarios.
    pub fn new(labels: usize, scenarios: usize) -> Tally {
        Tally {
            labels: (0..labels).map(|_| None).collect(),
            total: LabelStats::default(),
            scenarios: vec![ScenarioCounts::default(); scenarios],
            lateness: (0..scenarios).map(|_| LabelStats::default()).collect(),
        }
    }

    /// The stats of label `i`, if it ever had any.
    pub fn label(&self, i: usize) -> Option<&LabelStats> {
        self.labels.get(i).and_then(|l| l.as_deref())
    }

    /// The stats of label `i`, made (and the tally widened) if it has none yet.
    #[inline]
    pub fn label_mut(&mut self, i: usize) -> &mut LabelStats {
        if i >= self.labels.len() {
            self.labels.resize_with(i + 1, || None);
        }
        self.labels[i].get_or_insert_with(Box::default)
    }

    /// Labels that ever had stats, with their index, in index order (some may be empty now).
    pub fn labels(&self) -> impl Iterator<Item = (usize, &LabelStats)> {
        self.labels.iter().enumerate().filter_map(|(i, l)| l.as_deref().map(|l| (i, l)))
    }

    /// Adds every count and histogram of `other` (exactly).
    pub fn merge(&mut self, other: &Tally) {
        for (i, b) in other.labels() {
            if !b.is_empty() {
                *self.label_mut(i) += b;
            }
        }
        self.total += &other.total;
        for (a, b) in self.scenarios.iter_mut().zip(&other.scenarios) {
            a.add(b);
        }
        for (a, b) in self.lateness.iter_mut().zip(&other.lateness) {
            *a += b;
        }
    }

    /// Empties every count, keeping the memory (a recorder's shard reuses it next interval).
    pub fn clear(&mut self) {
        self.labels.iter_mut().flatten().for_each(|l| l.clear());
        self.total.clear();
        self.scenarios.iter_mut().for_each(|s| *s = ScenarioCounts::default());
        self.lateness.iter_mut().for_each(LabelStats::clear);
    }

    /// Records that an open-model arrival's first request was sent `late_us` after it was due.
    pub(crate) fn record_lateness(&mut self, scenario: usize, late_us: u64) {
        let s = super::Sample {
            label: crate::plan::LabelId(0),
            start_us: 0,
            end_us: late_us,
            ttfb_us: 0,
            connect_us: 0,
            bytes_sent: 0,
            bytes_received: 0,
            new_connection: false,
            error: None,
            in_total: false,
            upstream_us: None,
        };
        self.lateness[scenario].record(&s);
    }

    /// Records one sample under its label and, when it counts there, in the Total.
    #[inline]
    pub fn record(&mut self, s: &super::Sample) {
        self.label_mut(s.label.index()).record(s);
        if s.in_total {
            self.total.record(s);
        }
    }

    /// Adds an interval's stats.
    pub fn add_interval(&mut self, i: &Interval) {
        for (id, l) in &i.labels {
            *self.label_mut(id.index()) += l;
        }
        self.total += &i.total;
        for (a, b) in self.scenarios.iter_mut().zip(&i.scenarios) {
            a.add(b);
        }
        for (a, b) in self.lateness.iter_mut().zip(&i.lateness) {
            *a += b;
        }
    }

    /// Open-model arrivals not started for want of a free user, over every scenario.
    pub fn dropped(&self) -> u64 {
        self.scenarios.iter().map(|s| s.dropped).sum()
    }
}

/// One interval of a run, as the collector hands it to consumers (run directory, progress).
#[derive(Debug, Clone)]
pub struct Interval {
    /// 0, 1, 2, ... in order.
    pub index: u64,
    /// µs since the run started.
    pub start_us: u64,
    /// µs since the run started: when the interval ends.
    pub end_us: u64,
    /// Labels that had samples in this interval.
    pub labels: Vec<(LabelId, LabelStats)>,
    /// Names rendered at run time that got ids since the previous interval, in id order after
    /// every earlier one (see `RunLabels`).
    pub new_labels: Vec<String>,
    /// The Total row of the interval.
    pub total: LabelStats,
    /// Iterations per scenario in this interval, by position.
    pub scenarios: Vec<ScenarioCounts>,
    /// Open model: the dispatch lateness of the interval's arrivals, per scenario.
    pub lateness: Vec<LabelStats>,
    /// Users busy at the end of the interval, per scenario.
    pub active_users: Vec<u64>,
    /// True for the last interval of a run.
    pub last: bool,
}
