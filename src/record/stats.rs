//! [`LabelStats`]: everything measured for one label over some span of time, as counters and
//! an HDR histogram of elapsed times. Two `LabelStats` add up exactly (`+=`), so workers,
//! intervals and machines merge without approximation.

use super::error_kind::ErrorCounts;
use super::{Histogram, Sample};

/// Highest elapsed time the histogram tells apart (1 hour, in µs); longer samples land in the
/// top bucket, while `max_us` stays exact.
pub const HISTOGRAM_MAX_US: u64 = 3_600_000_000;
/// Significant digits: 3 gives 0.1% resolution at every magnitude.
pub const HISTOGRAM_SIGFIG: u8 = 3;

#[derive(Clone, Debug)]
pub struct LabelStats {
    pub samples: u64,
    pub errors: u64,
    pub sum_elapsed_us: u64,
    /// `u64::MAX` while there are no samples.
    pub min_us: u64,
    pub max_us: u64,
    pub sum_ttfb_us: u64,
    pub sum_connect_us: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub connections_opened: u64,
    /// Earliest sample start and latest sample end, µs since the run started (for throughput).
    /// `first_start_us` is `u64::MAX` while there are no samples.
    pub first_start_us: u64,
    pub last_end_us: u64,
    pub errors_by_kind: ErrorCounts,
    /// Elapsed times in µs; its memory grows with the buckets it uses (see
    /// [`Histogram`]), so a label with few samples costs little.
    pub histogram: Histogram,
}

impl Default for LabelStats {
    fn default() -> Self {
        LabelStats {
            samples: 0,
            errors: 0,
            sum_elapsed_us: 0,
            min_us: u64::MAX,
            max_us: 0,
            sum_ttfb_us: 0,
            sum_connect_us: 0,
            bytes_sent: 0,
            bytes_received: 0,
            connections_opened: 0,
            first_start_us: u64::MAX,
            last_end_us: 0,
            errors_by_kind: ErrorCounts::default(),
            histogram: Histogram::new(),
        }
    }
}

impl LabelStats {
    /// Adds one sample. Allocates only when the histogram meets a bucket it has not used since
    /// it was last cleared (see [`Histogram`]).
    #[inline]
    pub fn record(&mut self, s: &Sample) {
        let elapsed = s.end_us.saturating_sub(s.start_us);
        self.samples += 1;
        self.sum_elapsed_us += elapsed;
        self.min_us = self.min_us.min(elapsed);
        self.max_us = self.max_us.max(elapsed);
        self.sum_ttfb_us += s.ttfb_us;
        self.sum_connect_us += s.connect_us;
        self.bytes_sent += s.bytes_sent;
        self.bytes_received += s.bytes_received;
        self.connections_opened += u64::from(s.new_connection);
        self.first_start_us = self.first_start_us.min(s.start_us);
        self.last_end_us = self.last_end_us.max(s.end_us);
        if let Some(kind) = s.error {
            self.errors += 1;
            self.errors_by_kind.add(kind, 1);
        }
        self.histogram.record(elapsed.max(1));
    }

    pub fn is_empty(&self) -> bool {
        self.samples == 0 && self.connections_opened == 0
    }

    /// Empties the stats, keeping the histogram's allocation.
    pub fn clear(&mut self) {
        if self.is_empty() {
            return;
        }
        self.histogram.clear();
        self.errors_by_kind.clear();
        self.samples = 0;
        self.errors = 0;
        self.sum_elapsed_us = 0;
        self.min_us = u64::MAX;
        self.max_us = 0;
        self.sum_ttfb_us = 0;
        self.sum_connect_us = 0;
        self.bytes_sent = 0;
        self.bytes_received = 0;
        self.connections_opened = 0;
        self.first_start_us = u64::MAX;
        self.last_end_us = 0;
    }

    /// The elapsed time at quantile `q` (0..=1), in µs; 0 with no samples.
    pub fn quantile_us(&self, q: f64) -> u64 {
        self.quantile_us_at(q, 1)
    }

    /// [`quantile_us`](Self::quantile_us) for times measured in steps of `resolution_us` (a
    /// JMeter results file has whole milliseconds): the histogram's bucket holds the true value,
    /// and when exactly one multiple of the step lies in it, that multiple is the exact answer
    /// (up to about 1 s for whole ms); past that, the smallest multiple in the bucket, still
    /// within the histogram's 0.1%.
    pub fn quantile_us_at(&self, q: f64, resolution_us: u64) -> u64 {
        let h = &self.histogram;
        if h.is_empty() {
            return 0;
        }
        // Clamp into the exact range: the histogram reports a bucket's highest equivalent value.
        let v = h.value_at_quantile(q);
        let step = resolution_us.max(1);
        let lowest = Histogram::<HISTOGRAM_SIGFIG>::lowest_equivalent(v);
        let on_step = lowest.div_ceil(step) * step;
        let v = if step > 1 && on_step <= v { on_step } else { v };
        v.clamp(self.min_us, self.max_us)
    }

    /// Seconds between the first sample's start and the last sample's end.
    pub fn span_s(&self) -> f64 {
        if self.samples == 0 || self.last_end_us <= self.first_start_us {
            return 0.0;
        }
        (self.last_end_us - self.first_start_us) as f64 / 1e6
    }
}

impl std::ops::AddAssign<&LabelStats> for LabelStats {
    fn add_assign(&mut self, o: &LabelStats) {
        if o.is_empty() {
            return;
        }
        self.samples += o.samples;
        self.errors += o.errors;
        self.sum_elapsed_us += o.sum_elapsed_us;
        self.min_us = self.min_us.min(o.min_us);
        self.max_us = self.max_us.max(o.max_us);
        self.sum_ttfb_us += o.sum_ttfb_us;
        self.sum_connect_us += o.sum_connect_us;
        self.bytes_sent += o.bytes_sent;
        self.bytes_received += o.bytes_received;
        self.connections_opened += o.connections_opened;
        self.first_start_us = self.first_start_us.min(o.first_start_us);
        self.last_end_us = self.last_end_us.max(o.last_end_us);
        self.errors_by_kind.merge(&o.errors_by_kind);
        self.histogram.add(&o.histogram);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LabelId;
    use crate::record::ErrorKind;

    fn sample(start: u64, elapsed: u64, error: Option<ErrorKind>) -> Sample {
        Sample {
            label: LabelId(0),
            start_us: start,
            end_us: start + elapsed,
            ttfb_us: elapsed / 2,
            connect_us: 0,
            bytes_sent: 10,
            bytes_received: 20,
            new_connection: false,
            error,
            in_total: true,
        }
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let samples: Vec<Sample> = (0..10_000u64)
            .map(|i| sample(i * 7, 1 + (i * 7919) % 50_000, (i % 97 == 0).then_some(ErrorKind::Status(500))))
            .collect();
        let mut one = LabelStats::default();
        samples.iter().for_each(|s| one.record(s));
        let mut parts = [LabelStats::default(), LabelStats::default(), LabelStats::default()];
        for (i, s) in samples.iter().enumerate() {
            parts[i % 3].record(s);
        }
        let mut merged = LabelStats::default();
        for p in &parts {
            merged += p;
        }
        assert_eq!(merged.samples, one.samples);
        assert_eq!(merged.errors, one.errors);
        assert_eq!((merged.min_us, merged.max_us, merged.sum_elapsed_us), (one.min_us, one.max_us, one.sum_elapsed_us));
        assert_eq!(merged.errors_by_kind, one.errors_by_kind);
        for q in [0.5, 0.9, 0.95, 0.99, 0.999] {
            assert_eq!(merged.quantile_us(q), one.quantile_us(q));
        }
        assert_eq!((merged.first_start_us, merged.last_end_us), (one.first_start_us, one.last_end_us));
    }

    #[test]
    fn quantiles_are_within_resolution() {
        let mut s = LabelStats::default();
        for v in 1..=100_000u64 {
            s.record(&sample(0, v, None));
        }
        let p50 = s.quantile_us(0.5) as f64;
        assert!((p50 - 50_000.0).abs() / 50_000.0 < 0.001, "{p50}");
        assert_eq!(s.quantile_us(1.0), 100_000);
        assert_eq!(s.min_us, 1);
    }

    #[test]
    fn whole_millisecond_data_gives_whole_millisecond_percentiles() {
        let mut s = LabelStats::default();
        for ms in [12u64, 17, 33, 450, 999, 1003, 2500] {
            for _ in 0..10 {
                s.record(&sample(0, ms * 1000, None));
            }
        }
        // Plain quantiles show the bucket's top (12 ms → 12.007); at 1 ms resolution, 12 ms.
        assert_ne!(s.quantile_us(0.1), 12_000);
        let at_ms: Vec<u64> = [0.1, 0.2, 0.3, 0.5, 0.6, 0.75, 1.0].iter().map(|q| s.quantile_us_at(*q, 1000)).collect();
        assert_eq!(at_ms[..6], [12_000, 17_000, 33_000, 450_000, 999_000, 1_003_000]);
        // Past ~1 s a bucket is wider than 1 ms: a whole ms within 0.1%.
        assert!(at_ms[6] % 1000 == 0 && at_ms[6].abs_diff(2_500_000) <= 2_500, "{}", at_ms[6]);
    }

    #[test]
    fn clear_resets_everything() {
        let mut s = LabelStats::default();
        s.record(&sample(5, 10, Some(ErrorKind::Timeout)));
        s.clear();
        assert!(s.is_empty());
        assert_eq!(s.errors_by_kind.total(), 0);
        assert!(s.histogram.is_empty());
        s.record(&sample(5, 10, None));
        assert_eq!(s.samples, 1);
    }
}
