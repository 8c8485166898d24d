//! The pieces a series is built of: [`Frame`] (one interval, or neighbours merged exactly: the
//! Total and every label as compact histograms and sums) and the fixed-count buckets that merge
//! frames in pairs as a long run goes on.

use crate::record::{Histogram, LabelStats, Sample};

/// A compact histogram: 2 significant digits (1% resolution) is plenty for a chart point or a
/// batch, and keeps 720 points of a soak test in a few MB; it grows with the buckets it uses,
/// so the batches of a run with thousands of labels stay small too.
pub(super) type Compact = Histogram<2>;

/// Sums of one label (or the Total) over a span of intervals.
#[derive(Clone, Default)]
pub(super) struct Slice {
    pub(super) samples: u64,
    pub(super) errors: u64,
    pub(super) sum_elapsed_us: u64,
    pub(super) max_us: u64,
    pub(super) bytes_received: u64,
    pub(super) bytes_sent: u64,
    /// Boxed: chart points keep a slice per label without one, so the empty case is a pointer.
    pub(super) hist: Option<Box<Compact>>,
}

impl Slice {
    pub(super) fn record(&mut self, s: &Sample, with_hist: bool) {
        let elapsed = s.elapsed_us();
        self.samples += 1;
        self.errors += u64::from(s.error.is_some());
        self.sum_elapsed_us += elapsed;
        self.max_us = self.max_us.max(elapsed);
        self.bytes_received += s.bytes_received;
        self.bytes_sent += s.bytes_sent;
        if with_hist {
            self.hist.get_or_insert_with(Box::default).record(elapsed.max(1));
        }
    }

    pub(super) fn clear(&mut self) {
        let mut hist = self.hist.take();
        if let Some(h) = &mut hist {
            h.clear();
        }
        *self = Slice { hist, ..Slice::default() };
    }

    pub(super) fn add_stats(&mut self, s: &LabelStats, with_hist: bool) {
        self.samples += s.samples;
        self.errors += s.errors;
        self.sum_elapsed_us += s.sum_elapsed_us;
        self.max_us = self.max_us.max(s.max_us);
        self.bytes_received += s.bytes_received;
        self.bytes_sent += s.bytes_sent;
        if with_hist && !s.histogram.is_empty() {
            let mine = self.hist.get_or_insert_with(Box::default);
            for b in s.histogram.iter_recorded() {
                mine.record_n(b.value, b.count);
            }
        }
    }

    /// The counters without the histogram.
    pub(super) fn clone_counts(&self) -> Slice {
        Slice { hist: None, ..*self }
    }

    pub(super) fn merge(&mut self, o: &Slice) {
        self.samples += o.samples;
        self.errors += o.errors;
        self.sum_elapsed_us += o.sum_elapsed_us;
        self.max_us = self.max_us.max(o.max_us);
        self.bytes_received += o.bytes_received;
        self.bytes_sent += o.bytes_sent;
        if let Some(h) = &o.hist {
            self.hist.get_or_insert_with(Box::default).add(h);
        }
    }

    pub(super) fn mean_ms(&self) -> f64 {
        if self.samples == 0 {
            f64::NAN
        } else {
            self.sum_elapsed_us as f64 / self.samples as f64 / 1000.0
        }
    }

    pub(super) fn quantile_ms(&self, q: f64) -> f64 {
        match &self.hist {
            Some(h) if self.samples > 0 && !h.is_empty() => h.value_at_quantile(q).min(self.max_us) as f64 / 1000.0,
            _ => f64::NAN,
        }
    }
}

/// One interval, or consecutive intervals merged: the Total and every label.
#[derive(Clone, Default)]
pub(crate) struct Frame {
    pub(super) start_us: u64,
    pub(super) end_us: u64,
    /// Busy time: the sum of the intervals' lengths (a merged frame may skip gaps).
    pub(super) busy_us: u64,
    pub(super) intervals: u32,
    pub(super) active_users: u64,
    pub(super) total: Slice,
    pub(super) labels: Vec<Slice>,
}

impl Frame {
    /// An empty interval from `start_us` to `end_us` (µs since the run started), to fill with
    /// [`record`](Self::record).
    pub(crate) fn new(start_us: u64, end_us: u64) -> Frame {
        Frame { start_us, end_us, busy_us: end_us.saturating_sub(start_us), intervals: 1, ..Frame::default() }
    }

    /// Adds one sample (a row of a results file), with the users active when it was taken.
    pub(crate) fn record(&mut self, s: &Sample, active_users: u64) {
        let label = s.label.index();
        if self.labels.len() <= label {
            self.labels.resize_with(label + 1, Slice::default);
        }
        self.labels[label].record(s, true);
        if s.in_total {
            self.total.record(s, true);
        }
        self.active_users = self.active_users.max(active_users);
    }

    /// Empties the frame for reuse as the interval `start_us..end_us`, keeping its allocations.
    pub(crate) fn reset(&mut self, start_us: u64, end_us: u64) {
        self.total.clear();
        self.labels.iter_mut().for_each(Slice::clear);
        self.start_us = start_us;
        self.end_us = end_us;
        self.busy_us = end_us.saturating_sub(start_us);
        self.intervals = 1;
        self.active_users = 0;
    }

    pub(super) fn merge(&mut self, o: &Frame) {
        if self.intervals == 0 {
            self.start_us = o.start_us;
        }
        self.end_us = self.end_us.max(o.end_us);
        self.busy_us += o.busy_us;
        self.intervals += o.intervals;
        self.active_users = self.active_users.max(o.active_users);
        self.total.merge(&o.total);
        if self.labels.len() < o.labels.len() {
            self.labels.resize_with(o.labels.len(), Slice::default);
        }
        for (a, b) in self.labels.iter_mut().zip(&o.labels) {
            a.merge(b);
        }
    }
}

/// Frames of equal width (in intervals), at most `cap`: when full, neighbours merge in pairs
/// and the width doubles.
pub(super) struct Buckets {
    pub(super) cap: usize,
    pub(super) width: u32,
    pub(super) done: Vec<Frame>,
    pub(super) open: Frame,
}

impl Buckets {
    pub(super) fn new(cap: usize) -> Buckets {
        Buckets { cap, width: 1, done: Vec::new(), open: Frame::default() }
    }

    pub(super) fn push(&mut self, f: &Frame) {
        self.open.merge(f);
        if self.open.intervals >= self.width {
            self.done.push(std::mem::take(&mut self.open));
            // A loop: the cap may have shrunk (more labels seen) well below what is kept.
            while self.done.len() >= self.cap {
                let old = std::mem::take(&mut self.done);
                let mut it = old.into_iter();
                while let Some(mut a) = it.next() {
                    if let Some(b) = it.next() {
                        a.merge(&b);
                    }
                    self.done.push(a);
                }
                self.width *= 2;
            }
        }
    }

    pub(super) fn clear(&mut self) {
        self.done.clear();
        self.open = Frame::default();
        self.width = 1;
    }

    pub(super) fn finish(mut self) -> Vec<Frame> {
        if self.open.intervals > 0 {
            self.done.push(self.open);
        }
        self.done
    }
}
