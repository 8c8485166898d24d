//! [`LabelStats`]: everything measured for one label over some span of time, as counters and
//! an HDR histogram of elapsed times. Two `LabelStats` add up exactly (`+=`), so workers,
//! intervals and machines merge without approximation.

use super::error_kind::ErrorCounts;
use super::{Histogram, Sample};

/// Highest elapsed time the histogram tells apart (1 hour, in µs); longer samples land in the
/// top bucket, while `max_us` stays exact.
pub(crate) const HISTOGRAM_MAX_US: u64 = 3_600_000_000;
/// Significant digits: 3 gives 0.1% resolution at every magnitude.
pub(crate) const HISTOGRAM_SIGFIG: u8 = 3;

/// One row's numbers over a span of time (a label's, or the Total's): counters and HDR histograms;
/// `+=` merges two exactly.
#[derive(Clone, Debug)]
pub struct LabelStats {
    /// Samples counted.
    pub samples: u64,
    /// Samples that failed.
    pub errors: u64,
    /// Sum of the elapsed times, µs.
    pub sum_elapsed_us: u64,
    /// `u64::MAX` while there are no samples.
    pub min_us: u64,
    /// Longest elapsed time, µs.
    pub max_us: u64,
    /// Sum of the times to first byte, µs.
    pub sum_ttfb_us: u64,
    /// Sum of the connect times, µs.
    pub sum_connect_us: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// Bytes received.
    pub bytes_received: u64,
    /// Connections opened.
    pub connections_opened: u64,
    /// Earliest sample start and latest sample end, µs since the run started (for throughput).
    /// `first_start_us` is `u64::MAX` while there are no samples.
    pub first_start_us: u64,
    /// Latest sample end, µs since the run started (0 while there are no samples).
    pub last_end_us: u64,
    /// Failed samples by why they failed.
    pub errors_by_kind: ErrorCounts,
    /// Elapsed times in µs; its memory grows with the buckets it uses (see
    /// [`Histogram`]), so a label with few samples costs little.
    pub histogram: Histogram,
    /// Connect time and time to first byte beside elapsed: see [`Timing`].
    pub timing: Timing,
    /// The upstream's time and the overhead in front of it, for the samples whose response
    /// told the upstream's time (see [`Upstream`]); `None` until one did, so a label through
    /// no gateway costs a pointer.
    pub upstream: Option<Box<Upstream>>,
}

/// The samples whose response headers told the upstream's own time (`Server-Timing`, Kong's
/// or Envoy's header; see `crate::plan::timing`): that time, and the overhead in front of
/// the upstream (elapsed − upstream: the gateway or proxy, and the network to it). Both have
/// exact sums and maxima and percentiles within 1% (histograms as [`Timing`]'s).
#[derive(Clone, Debug, Default)]
pub struct Upstream {
    /// Samples whose response told the upstream's time.
    pub samples: u64,
    /// Elapsed times of these samples (the Total they split).
    pub sum_elapsed_us: u64,
    /// Sum of the upstream's times, µs.
    pub sum_us: u64,
    /// Longest upstream time, µs.
    pub max_us: u64,
    /// The upstream's times, µs.
    pub hist: Histogram<TIMING_SIGFIG>,
    /// Overheads, each elapsed − upstream, or 0 where a header told more than was measured
    /// here (a gateway measures from other points, some in whole ms).
    pub sum_overhead_us: u64,
    /// Greatest overhead, µs.
    pub max_overhead_us: u64,
    /// The overheads, µs.
    pub overhead: Histogram<TIMING_SIGFIG>,
}

impl Upstream {
    #[inline]
    fn record(&mut self, elapsed: u64, upstream: u64) {
        let overhead = elapsed.saturating_sub(upstream);
        self.samples += 1;
        self.sum_elapsed_us += elapsed;
        self.sum_us += upstream;
        self.max_us = self.max_us.max(upstream);
        self.hist.record(upstream.min(HISTOGRAM_MAX_US));
        self.sum_overhead_us += overhead;
        self.max_overhead_us = self.max_overhead_us.max(overhead);
        self.overhead.record(overhead.min(HISTOGRAM_MAX_US));
    }

    fn clear(&mut self) {
        let (mut hist, mut overhead) = (std::mem::take(&mut self.hist), std::mem::take(&mut self.overhead));
        hist.clear();
        overhead.clear();
        *self = Upstream { hist, overhead, ..Upstream::default() };
    }

    fn add(&mut self, o: &Upstream) {
        self.samples += o.samples;
        self.sum_elapsed_us += o.sum_elapsed_us;
        self.sum_us += o.sum_us;
        self.max_us = self.max_us.max(o.max_us);
        self.hist.add(&o.hist);
        self.sum_overhead_us += o.sum_overhead_us;
        self.max_overhead_us = self.max_overhead_us.max(o.max_overhead_us);
        self.overhead.add(&o.overhead);
    }

    /// The upstream time at quantile `q`, µs (`None` with no samples).
    pub fn quantile_us(&self, q: f64) -> Option<u64> {
        timing_quantile(&self.hist, q, 1, self.max_us)
    }

    /// The overhead at quantile `q`, µs (`None` with no samples).
    pub(crate) fn overhead_quantile_us(&self, q: f64) -> Option<u64> {
        timing_quantile(&self.overhead, q, 1, self.max_overhead_us)
    }
}

/// Connect time and time to first byte (TTFB, JMeter's Latency), with exact maxima and
/// percentiles within 1% from histograms at 2 significant digits that store only the buckets
/// they use (see [`Histogram`]). The connect histogram holds something only once a sample has
/// opened a connection, which with keep-alive few labels do.
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// Samples that spent time opening a connection: a request that opened one, or a group
    /// whose requests did. Connect times are averaged over these.
    pub connect_samples: u64,
    /// Longest connect time, µs.
    pub max_connect_us: u64,
    /// Longest time to first byte, µs.
    pub max_ttfb_us: u64,
    /// TTFB of every sample (0 when no byte came, as JMeter's Latency), µs.
    pub ttfb: Histogram<TIMING_SIGFIG>,
    /// Connect times of the `connect_samples`, µs.
    pub connect: Histogram<TIMING_SIGFIG>,
}

/// Significant digits of the connect and TTFB histograms: 2 (1% resolution) costs a sixth of
/// 3, and these figures sit beside elapsed to say where its time went, at per-label memory
/// that must stay small with thousands of labels.
pub(crate) const TIMING_SIGFIG: u8 = 2;

impl Timing {
    #[inline]
    fn record(&mut self, s: &Sample) {
        self.max_ttfb_us = self.max_ttfb_us.max(s.ttfb_us);
        self.ttfb.record(s.ttfb_us.min(HISTOGRAM_MAX_US));
        if s.new_connection || s.connect_us > 0 {
            self.connect_samples += 1;
            self.max_connect_us = self.max_connect_us.max(s.connect_us);
            self.connect.record(s.connect_us.min(HISTOGRAM_MAX_US));
        }
    }

    fn clear(&mut self) {
        self.ttfb.clear();
        self.connect.clear();
        self.connect_samples = 0;
        self.max_connect_us = 0;
        self.max_ttfb_us = 0;
    }

    fn add(&mut self, o: &Timing) {
        self.connect_samples += o.connect_samples;
        self.max_connect_us = self.max_connect_us.max(o.max_connect_us);
        self.max_ttfb_us = self.max_ttfb_us.max(o.max_ttfb_us);
        self.ttfb.add(&o.ttfb);
        self.connect.add(&o.connect);
    }

    /// The TTFB at quantile `q`, in steps of `resolution_us` as
    /// [`LabelStats::quantile_us_at`]; `None` when not recorded (an interval log written
    /// before TTFB had its histogram).
    pub(crate) fn ttfb_quantile_us_at(&self, q: f64, resolution_us: u64) -> Option<u64> {
        timing_quantile(&self.ttfb, q, resolution_us, self.max_ttfb_us)
    }

    /// The connect time at quantile `q` over the samples that opened a connection; `None`
    /// when none did, or when not recorded.
    pub(crate) fn connect_quantile_us_at(&self, q: f64, resolution_us: u64) -> Option<u64> {
        timing_quantile(&self.connect, q, resolution_us, self.max_connect_us)
    }
}

fn timing_quantile(h: &Histogram<TIMING_SIGFIG>, q: f64, resolution_us: u64, max: u64) -> Option<u64> {
    if h.is_empty() {
        return None;
    }
    let v = h.value_at_quantile(q);
    let step = resolution_us.max(1);
    let on_step = Histogram::<TIMING_SIGFIG>::lowest_equivalent(v).div_ceil(step) * step;
    let v = if step > 1 && on_step <= v { on_step } else { v };
    Some(v.min(max))
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
            timing: Timing::default(),
            upstream: None,
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
        self.timing.record(s);
        if let Some(up) = s.upstream_us {
            self.upstream.get_or_insert_with(Box::default).record(elapsed, up);
        }
    }

    /// Whether it counts nothing.
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
        self.timing.clear();
        if let Some(u) = &mut self.upstream {
            u.clear();
        }
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
        self.timing.add(&o.timing);
        if let Some(u) = o.upstream.as_deref().filter(|u| u.samples > 0) {
            self.upstream.get_or_insert_with(Box::default).add(u);
        }
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
            upstream_us: None,
        }
    }

    /// `samples` recorded in one, and recorded in two halves (every other one) then merged.
    fn one_and_merged(samples: &[Sample]) -> (LabelStats, LabelStats) {
        let mut one = LabelStats::default();
        samples.iter().for_each(|s| one.record(s));
        let mut parts = [LabelStats::default(), LabelStats::default()];
        for (i, s) in samples.iter().enumerate() {
            parts[i % 2].record(s);
        }
        let mut merged = LabelStats::default();
        parts.iter().for_each(|p| merged += p);
        (one, merged)
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
    fn upstream_and_overhead_split_each_sample_and_merge_exactly() {
        let samples: Vec<Sample> = (0..6_000u64)
            .map(|i| Sample {
                upstream_us: (i % 3 != 0).then_some(1_000 + i % 700),
                ..sample(i, 2_000 + i % 900, None)
            })
            .collect();
        let (one, merged) = one_and_merged(&samples);
        let (u, m) = (one.upstream.as_deref().unwrap(), merged.upstream.as_deref().unwrap());
        assert_eq!(u.samples, 4_000);
        let with: Vec<&Sample> = samples.iter().filter(|s| s.upstream_us.is_some()).collect();
        let up: u64 = with.iter().map(|s| s.upstream_us.unwrap()).sum();
        let over: u64 = with.iter().map(|s| s.elapsed_us() - s.upstream_us.unwrap()).sum();
        assert_eq!((u.sum_us, u.sum_overhead_us, u.sum_elapsed_us), (up, over, up + over));
        let max_over = with.iter().map(|s| s.elapsed_us() - s.upstream_us.unwrap()).max().unwrap();
        assert_eq!((u.max_us, u.max_overhead_us), (1_699, max_over));
        for q in [0.5, 0.95, 0.99] {
            assert_eq!((m.quantile_us(q), m.overhead_quantile_us(q)), (u.quantile_us(q), u.overhead_quantile_us(q)));
        }
        assert_eq!((m.samples, m.sum_us, m.sum_overhead_us), (u.samples, u.sum_us, u.sum_overhead_us));
        // A header that tells more than was measured is no negative overhead.
        let mut s = LabelStats::default();
        s.record(&Sample { upstream_us: Some(3_000), ..sample(0, 2_600, None) });
        assert_eq!(s.upstream.as_deref().map(|u| (u.sum_overhead_us, u.max_overhead_us)), Some((0, 0)));
        s.clear();
        assert_eq!(s.upstream.as_deref().map(|u| (u.samples, u.hist.is_empty())), Some((0, true)));
    }

    /// A plan names nothing of `record`, so it keeps its own copy of the histograms' range.
    #[test]
    fn upstream_times_are_taken_up_to_the_histograms_range() {
        assert_eq!(crate::plan::timing::MAX_UPSTREAM_US, HISTOGRAM_MAX_US as f64);
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
    fn timing_merges_exactly_and_connects_only_where_connections_opened() {
        let samples: Vec<Sample> = (0..5_000u64)
            .map(|i| Sample {
                connect_us: if i % 50 == 0 { 100 + i } else { 0 },
                new_connection: i % 50 == 0,
                ..sample(i, 1000 + (i * 7919) % 90_000, None)
            })
            .collect();
        let (one, merged) = one_and_merged(&samples);
        let (m, o) = (&merged.timing, &one.timing);
        assert_eq!((m.connect_samples, m.max_connect_us, m.max_ttfb_us), (100, 100 + 4950, o.max_ttfb_us));
        for q in [0.5, 0.99, 1.0] {
            assert_eq!(m.ttfb_quantile_us_at(q, 1), o.ttfb_quantile_us_at(q, 1));
            assert_eq!(m.connect_quantile_us_at(q, 1), o.connect_quantile_us_at(q, 1));
        }
        // TTFB is half of elapsed here; its 99th within the histogram's 1%.
        let p99 = o.ttfb_quantile_us_at(0.99, 1).unwrap() as f64;
        let exact = one.quantile_us(0.99) as f64 / 2.0;
        assert!((p99 - exact).abs() / exact < 0.011, "{p99} vs {exact}");
        assert_eq!(o.connect_quantile_us_at(1.0, 1), Some(5050));

        let mut reused = LabelStats::default();
        reused.record(&sample(0, 10, None));
        assert!(reused.timing.connect.is_empty() && reused.timing.connect_quantile_us_at(0.99, 1).is_none());
    }

    #[test]
    fn timing_histograms_stay_small_and_cap_at_the_full_range() {
        let mut s = LabelStats::default();
        for v in 1..1000u64 {
            s.record(&sample(0, 2 * v, None));
        }
        // Times under 2 ms use a few hundred buckets, not the full range.
        assert!(s.timing.ttfb.heap_bytes() <= 8 * 1024, "{} bytes", s.timing.ttfb.heap_bytes());
        s.record(&Sample { ttfb_us: 7_200_000_000, ..sample(0, 7_200_000_000, None) });
        assert_eq!(s.timing.max_ttfb_us, 7_200_000_000, "the maximum stays exact");
        assert_eq!(s.timing.ttfb_quantile_us_at(1.0, 1), Some(7_200_000_000.min(s.timing.ttfb.value_at_quantile(1.0))));
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
