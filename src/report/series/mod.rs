//! A run over time, for charts and for the noise of comparisons, built in one pass over its
//! intervals (a run directory's log, or a results file cut into seconds) in bounded memory,
//! however long the run: at most [`MAX_POINTS`] chart points (fewer with many labels: see
//! [`MAX_LABEL_POINTS`]) and [`MAX_BATCHES`] batches,
//! neighbours merged exactly (histograms add) when there would be more.
//!
//! The noise of a figure is its standard error by *batch means*: the steady part of the run is
//! cut into k equal batches, the figure is computed per batch, and the spread of those k values
//! over √k says how much the whole-run figure would move if the run were repeated. Batches
//! rather than single seconds, because neighbouring seconds are correlated (a slow second tends
//! to follow a slow second), which would make one-second values understate the noise.

use crate::record::{Histogram, LabelStats};

/// Chart points kept; a longer run merges neighbouring seconds into one point.
pub(crate) const MAX_POINTS: usize = 720;
/// Label slices kept over all chart points (each ~56 bytes): a run with many labels gets fewer,
/// wider points (10,000 labels: 100 points), so a long report's memory stays flat (#11).
pub(crate) const MAX_LABEL_POINTS: usize = 1_000_000;
/// The fewest chart points however many labels: a chart still shows a run's shape.
pub(crate) const MIN_POINTS: usize = 60;
/// The most labels whose percentiles chart points keep over time (each label's histogram in
/// every point: at most 720 × 16 small 2-digit histograms); a run of more labels charts only
/// the Total's.
pub(crate) const MAX_LABEL_HISTS: usize = 16;
/// Batches for the noise estimate (k is between MAX_BATCHES/2 and MAX_BATCHES once the run
/// has that many intervals).
pub(crate) const MAX_BATCHES: usize = 20;
/// A run needs this many batches before its noise is estimated at all.
pub(crate) const MIN_BATCHES: usize = 4;

mod frame;

pub(crate) use frame::Frame;
use frame::{Buckets, Slice};

/// One interval as the builder takes it: the Total and the labels that had samples, by index.
pub(crate) struct IntervalView<'a> {
    /// µs since the run started.
    pub start_us: u64,
    pub end_us: u64,
    pub total: &'a LabelStats,
    pub labels: Vec<(usize, &'a LabelStats)>,
    /// Users busy at the end of the interval (all scenarios).
    pub active_users: u64,
    /// The run's last interval (often cut short, and the tail of a graceful stop): charted,
    /// but kept out of the noise estimate.
    pub last: bool,
}

/// Builds a [`Series`] from intervals given in time order.
pub(crate) struct SeriesBuilder {
    points: Buckets,
    batches: Buckets,
    /// The most users seen so far: the steady part of a run starts when the user count stops
    /// climbing, so batches restart at each new high (a ramp-up is not noise).
    users_high: u64,
    /// Whether the user count is the load's own setting (closed workloads, a results file's
    /// threads) and so marks a ramp. In the open model it is the users *busy*, arrival rate ×
    /// latency, which jumps at every latency spike: no ramp can be told from it there.
    users_set_the_load: bool,
    distribution: Histogram,
    labels: usize,
    /// The longest single interval seen: an interval's full length.
    interval_us: u64,
    /// A run directory's label indexes are the plan's, where every request's unused
    /// redirect-hop labels lie between the used ones; frames index labels packed in the order
    /// they first had samples, so they hold a slice per label with samples, not per plan label.
    /// Plan index → packed index + 1 (0: none yet), and back.
    packed: Vec<u32>,
    unpacked: Vec<usize>,
}

impl Default for SeriesBuilder {
    fn default() -> Self {
        SeriesBuilder {
            points: Buckets::new(MAX_POINTS),
            batches: Buckets::new(MAX_BATCHES),
            users_high: 0,
            users_set_the_load: true,
            distribution: Histogram::new(),
            labels: 0,
            interval_us: 0,
            packed: Vec::new(),
            unpacked: Vec::new(),
        }
    }
}

impl SeriesBuilder {
    /// For a run whose user count does not set its load (an open workload).
    pub(crate) fn for_open_workload() -> SeriesBuilder {
        SeriesBuilder { users_set_the_load: false, ..SeriesBuilder::default() }
    }

    pub(crate) fn add(&mut self, iv: &IntervalView) {
        let mut frame = Frame::new(iv.start_us, iv.end_us);
        frame.active_users = iv.active_users;
        frame.total.add_stats(iv.total, true);
        for (i, s) in &iv.labels {
            if self.packed.len() <= *i {
                self.packed.resize(i + 1, 0);
            }
            if self.packed[*i] == 0 {
                self.unpacked.push(*i);
                self.packed[*i] = self.unpacked.len() as u32;
            }
            let at = self.packed[*i] as usize - 1;
            if frame.labels.len() <= at {
                frame.labels.resize_with(at + 1, Slice::default);
            }
            frame.labels[at].add_stats(s, true);
        }
        self.distribution.add(&iv.total.histogram);
        self.add_frame(&frame, iv.last);
    }

    /// Adds an interval built row by row (a results file). Its latency distribution comes from
    /// [`distribution_from`](Self::distribution_from), at full resolution.
    pub(crate) fn add_frame(&mut self, frame: &Frame, last: bool) {
        if frame.labels.len() > self.labels {
            self.labels = frame.labels.len();
            self.points.cap = (MAX_LABEL_POINTS / self.labels).clamp(MIN_POINTS, MAX_POINTS);
        }
        // Chart points keep the Total's histogram, and each label's for a run of few labels
        // (their percentiles over time); batches keep every label's.
        let keep = self.labels <= MAX_LABEL_HISTS;
        let point = Frame {
            start_us: frame.start_us,
            end_us: frame.end_us,
            busy_us: frame.busy_us,
            intervals: frame.intervals,
            active_users: frame.active_users,
            total: frame.total.clone(),
            labels: frame.labels.iter().map(|l| if keep { l.clone() } else { l.clone_counts() }).collect(),
        };
        self.points.push(&point);
        // 5% slack: an open workload's busy-user count wanders without being a ramp.
        if self.users_set_the_load && frame.active_users.saturating_mul(20) > self.users_high.saturating_mul(21) {
            self.users_high = frame.active_users;
            self.batches.clear();
        }
        // An interval much shorter than the others (the tail of a stop, when every user's last
        // response lands in a few ms) holds a burst, not a sample of the steady rate: charted,
        // but left out of the noise estimate, as the run's last interval is.
        let cut_short = frame.intervals == 1 && frame.busy_us.saturating_mul(2) < self.interval_us;
        if frame.intervals == 1 {
            self.interval_us = self.interval_us.max(frame.busy_us);
        }
        if !last && !cut_short {
            self.batches.push(frame);
        }
    }

    /// A stretch with no data at all (a pause between two parts of a results file): charted as
    /// a break, and the noise estimate starts again after it.
    pub(crate) fn add_gap(&mut self, start_us: u64, end_us: u64) {
        let mut gap = Frame::new(start_us, end_us);
        gap.busy_us = 0;
        self.points.push(&gap);
        self.batches.clear();
    }

    /// The whole run's latency distribution, from its Total (a results file's, read row by row).
    pub(crate) fn distribution_from(&mut self, total: &LabelStats) {
        if !total.histogram.is_empty() {
            self.distribution = total.histogram.clone();
        }
    }

    pub(crate) fn finish(self, labels: &[String]) -> Series {
        let mut points = self.points.finish();
        // A run's last interval is cut short when the run ends; over a sliver of a second its
        // rates would swing wildly at the chart's edge, so it joins the point before it.
        if let [.., before, last] = &points[..] {
            if last.busy_us * 2 < before.busy_us / u64::from(before.intervals.max(1)) {
                let last = points.pop().expect("two points");
                points.last_mut().expect("one point").merge(&last);
            }
        }
        let start = points.first().map_or(0, |p| p.start_us);
        let labels: Vec<String> = if self.unpacked.is_empty() {
            labels.to_vec()
        } else {
            self.unpacked.iter().map(|i| labels.get(*i).cloned().unwrap_or_default()).collect()
        };
        let label_count = labels.len().max(self.labels);
        let per_s = |n: u64, f: &Frame| if f.busy_us == 0 { f64::NAN } else { n as f64 * 1e6 / f.busy_us as f64 };
        let charted: Vec<Point> = points
            .iter()
            .map(|f| Point {
                t_s: (f.start_us.saturating_sub(start)) as f64 / 1e6,
                dur_s: f.busy_us as f64 / 1e6,
                rps: per_s(f.total.samples, f),
                errors_per_s: per_s(f.total.errors, f),
                mean_ms: f.total.mean_ms(),
                p50_ms: f.total.quantile_ms(0.50),
                p90_ms: f.total.quantile_ms(0.90),
                p99_ms: f.total.quantile_ms(0.99),
                active_users: f.active_users,
                label_rps: (0..label_count).map(|i| f.labels.get(i).map_or(0.0, |l| per_s(l.samples, f))).collect(),
                label_errors_per_s: (0..label_count)
                    .map(|i| f.labels.get(i).map_or(0.0, |l| per_s(l.errors, f)))
                    .collect(),
                label_p95_ms: (0..label_count)
                    .map(|i| match f.labels.get(i) {
                        Some(l) if self.labels <= MAX_LABEL_HISTS => l.quantile_ms(0.95),
                        _ => f64::NAN,
                    })
                    .collect(),
            })
            .collect();
        let batches = self.batches.finish();
        // A last batch much shorter than the others (in time, not in intervals: an interval can
        // be cut short) holds too little to say anything of its own; it is left out.
        let full: Vec<&Frame> = match batches.split_last() {
            Some((last, rest)) if !rest.is_empty() && last.busy_us * 2 < rest[0].busy_us => rest.iter().collect(),
            _ => batches.iter().collect(),
        };
        let noise_of = |slice: &dyn Fn(&Frame) -> Option<&Slice>| noise(&full, slice);
        let total_noise = noise_of(&|f: &Frame| Some(&f.total));
        let label_noise =
            (0..label_count).map(|i| noise_of(&move |f: &Frame| f.labels.get(i))).collect::<Vec<Option<Noise>>>();
        Series { labels, points: charted, distribution: distribution(&self.distribution), total_noise, label_noise }
    }
}

/// The run over time, and the noise of its figures.
#[derive(Debug, Clone, Default)]
pub(crate) struct Series {
    /// Label names, indexing `Point::label_rps` and `label_noise`.
    pub labels: Vec<String>,
    pub points: Vec<Point>,
    /// The Total's latency distribution: (percentile as a fraction, ms), from the full-resolution
    /// histogram of the whole run.
    pub distribution: Vec<(f64, f64)>,
    pub total_noise: Option<Noise>,
    pub label_noise: Vec<Option<Noise>>,
}

impl Series {
    /// The noise of a row of the summary (`Total` or a label).
    pub(crate) fn noise(&self, row: &str) -> Option<&Noise> {
        if row == crate::metric::TOTAL {
            return self.total_noise.as_ref();
        }
        let i = self.labels.iter().position(|l| l == row)?;
        self.label_noise.get(i)?.as_ref()
    }
}

/// One chart point: a second of the run, or several merged. Rates are per second of the
/// point's length; NaN where the point had no samples.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Point {
    /// Start, seconds since the run's first interval.
    pub t_s: f64,
    pub dur_s: f64,
    pub rps: f64,
    pub errors_per_s: f64,
    pub mean_ms: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    /// The most users busy at the end of any interval in the point.
    pub active_users: u64,
    pub label_rps: Vec<f64>,
    pub label_errors_per_s: Vec<f64>,
    /// Each label's 95th percentile in the point, ms (NaN where it had no sample, and for every
    /// label of a run of more than [`MAX_LABEL_HISTS`] labels).
    pub label_p95_ms: Vec<f64>,
}

/// Standard errors of a row's figures (same units as the figures), from `batches` batch means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Noise {
    pub batches: usize,
    pub throughput_rps: f64,
    pub mean_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub error_pct: f64,
}

fn noise(batches: &[&Frame], slice: &dyn Fn(&Frame) -> Option<&Slice>) -> Option<Noise> {
    // A batch where the label had no sample (it is missing from the frame, or empty) leaves its
    // figures undefined there: no estimate rather than one from the batches that happen to have it.
    let rows: Vec<(&Frame, &Slice)> = batches.iter().filter_map(|f| slice(f).map(|s| (*f, s))).collect();
    if batches.len() < MIN_BATCHES || rows.len() < batches.len() || rows.iter().any(|(_, s)| s.samples == 0) {
        return None;
    }
    let by_time =
        |x: &dyn Fn(&Frame, &Slice) -> f64| weighted_se(rows.iter().map(|(f, s)| (f.busy_us as f64, x(f, s))));
    let by_samples = |x: &dyn Fn(&Slice) -> f64| weighted_se(rows.iter().map(|(_, s)| (s.samples as f64, x(s))));
    Some(Noise {
        batches: rows.len(),
        throughput_rps: by_time(&|f, s| s.samples as f64 * 1e6 / f.busy_us.max(1) as f64),
        mean_ms: by_samples(&Slice::mean_ms),
        p95_ms: by_samples(&|s| s.quantile_ms(0.95)),
        p99_ms: by_samples(&|s| s.quantile_ms(0.99)),
        error_pct: by_samples(&|s| s.errors as f64 * 100.0 / s.samples as f64),
    })
}

/// The standard error of the whole-run figure from its batch values, each weighed by what the
/// whole-run figure weighs it by: its length for a rate (the run's rate is Σ samples / Σ time),
/// its samples for a per-sample figure. A batch cut short (the tail of a run, a merged sliver)
/// then counts for what it holds: 50 requests in 8 ms move the run's rate by their share, not
/// as one batch in k. This is the ratio estimator's variance, k/(k−1) · Σ wᵢ²(xᵢ − x̄)² / (Σ wᵢ)²,
/// which for equal weights is the plain standard deviation of the batch values over √k.
fn weighted_se(values: impl Iterator<Item = (f64, f64)>) -> f64 {
    let v: Vec<(f64, f64)> = values.collect();
    let k = v.len() as f64;
    let total: f64 = v.iter().map(|(w, _)| w).sum();
    if k < 2.0 || total <= 0.0 {
        return f64::NAN;
    }
    let mean = v.iter().map(|(w, x)| w * x).sum::<f64>() / total;
    let spread: f64 = v.iter().map(|(w, x)| (w * (x - mean)).powi(2)).sum();
    (spread / (total * total) * k / (k - 1.0)).sqrt()
}

/// Percentiles from 0 up to the last sample, evenly spaced on the log(1/(1-q)) scale the
/// distribution chart uses: 20 per decade ("90%", "99%", "99.9%"...).
fn distribution(h: &Histogram) -> Vec<(f64, f64)> {
    let n = h.len();
    if n == 0 {
        return Vec::new();
    }
    let top = (n as f64).log10().max(1.0);
    let steps = (top * 20.0).ceil() as u32;
    let mut out: Vec<(f64, f64)> = (0..=steps)
        .map(|i| {
            let q = (1.0 - 10f64.powf(-(i as f64) / 20.0)).min(1.0 - 1.0 / n as f64).max(0.0);
            (q, h.value_at_quantile(q) as f64 / 1000.0)
        })
        .collect();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LabelId;
    use crate::record::Sample;

    /// An interval of `n` samples of `ms` each, with `errors` of them failed.
    fn stats(n: u64, ms: u64, errors: u64, second: u64) -> LabelStats {
        let mut s = LabelStats::default();
        for i in 0..n {
            let start = second * 1_000_000 + i;
            s.record(&Sample {
                label: LabelId(0),
                start_us: start,
                end_us: start + ms * 1000,
                ttfb_us: 0,
                connect_us: 0,
                bytes_sent: 1,
                bytes_received: 1,
                new_connection: false,
                error: (i < errors).then_some(crate::record::ErrorKind::Status(500)),
                in_total: true,
                upstream_us: None,
            });
        }
        s
    }

    fn feed(b: &mut SeriesBuilder, seconds: u64, users: impl Fn(u64) -> u64, per_s: impl Fn(u64) -> (u64, u64)) {
        for t in 0..seconds {
            let (n, ms) = per_s(t);
            let s = stats(n, ms, 0, t);
            b.add(&IntervalView {
                start_us: t * 1_000_000,
                end_us: (t + 1) * 1_000_000,
                total: &s,
                labels: vec![(0, &s)],
                active_users: users(t),
                last: t + 1 == seconds,
            });
        }
    }

    #[test]
    fn points_merge_exactly_and_stay_bounded() {
        let mut b = SeriesBuilder::default();
        let seconds = 3 * MAX_POINTS as u64 + 7;
        feed(&mut b, seconds, |_| 10, |t| (100 + t % 3, 5));
        let s = b.finish(&["a".into()]);
        assert!(s.points.len() <= MAX_POINTS && s.points.len() > MAX_POINTS / 4, "{}", s.points.len());
        let counted: f64 = s.points.iter().map(|p| p.rps * p.dur_s).sum();
        let fed: u64 = (0..seconds).map(|t| 100 + t % 3).sum();
        assert!((counted - fed as f64).abs() < 1e-6, "{counted} vs {fed}");
        let p = &s.points[1];
        assert!((p.p50_ms - 5.0).abs() <= 0.05 && (p.mean_ms - 5.0).abs() < 1e-9, "{p:?}");
        assert!(s.points.windows(2).all(|w| w[0].t_s < w[1].t_s));
    }

    #[test]
    fn a_steady_run_has_small_noise_and_a_noisy_one_large() {
        let mut steady = SeriesBuilder::default();
        feed(&mut steady, 60, |_| 10, |t| (1000 + t % 2, 10));
        let mut noisy = SeriesBuilder::default();
        feed(&mut noisy, 60, |_| 10, |t| (if t % 6 < 3 { 600 } else { 1400 }, if t % 4 < 2 { 5 } else { 15 }));
        let (a, b) = (steady.finish(&["x".into()]), noisy.finish(&["x".into()]));
        let (na, nb) = (a.noise("Total").unwrap(), b.noise("x").unwrap());
        assert!(na.batches >= MAX_BATCHES / 2, "{na:?}");
        assert!(na.throughput_rps < 1.0 && na.mean_ms < 1e-9, "{na:?}");
        assert!(nb.throughput_rps > 20.0 && nb.mean_ms > 0.1, "{nb:?}");
    }

    /// Regression test for #11: an interval cut short (8 ms holding 50 requests: 6,250/s) was
    /// one batch among k, as heavy as a full second, and inflated the throughput noise ~5×.
    #[test]
    fn an_interval_cut_short_weighs_by_its_length() {
        let steady = |t: u64| 1000 + (t * 7) % 20;
        // `flagged`: whether the source marks its last interval (a run directory does; a source
        // that does not leaves an 8 ms tail as an ordinary interval).
        let run = |partial_at: Option<u64>, flagged: bool| {
            let mut b = SeriesBuilder::default();
            let mut at = 0u64;
            for t in 0..13u64 {
                let (n, len) = if Some(t) == partial_at { (50, 8_000) } else { (steady(t), 1_000_000) };
                let s = stats(n, 5, 0, t);
                b.add(&IntervalView {
                    start_us: at,
                    end_us: at + len,
                    total: &s,
                    labels: vec![(0, &s)],
                    active_users: 10,
                    last: flagged && t == 12,
                });
                at += len;
            }
            b.finish(&["x".into()]).total_noise.unwrap()
        };
        let plain = run(None, true);
        assert!(plain.throughput_rps < 5.0, "{plain:?}");
        // The run's last interval, unflagged; at the end of the batches (the run's last interval
        // follows); in their middle.
        for (at, flagged) in [(12, false), (11, true), (5, true)] {
            let cut = run(Some(at), flagged);
            assert!(cut.throughput_rps < 1.5 * plain.throughput_rps, "{cut:?} vs {plain:?}");
            assert!(cut.mean_ms < 1e-9, "{cut:?}");
        }
    }

    #[test]
    fn weighted_standard_error_is_the_plain_one_for_equal_weights() {
        let plain = [3.0, 5.0, 4.0, 8.0];
        let se = weighted_se(plain.iter().map(|x| (2.0, *x)));
        let mean = 5.0;
        let var = plain.iter().map(|x: &f64| (x - mean).powi(2)).sum::<f64>() / 3.0;
        assert!((se - (var / 4.0).sqrt()).abs() < 1e-12, "{se}");
        // A batch of next to no weight leaves the estimate where the others put it.
        let with_sliver = weighted_se(plain.iter().map(|x| (2.0, *x)).chain([(1e-6, 1000.0)]));
        assert!((with_sliver - se).abs() < 0.2 * se, "{with_sliver} vs {se}");
        assert!(weighted_se([(1.0, 2.0)].into_iter()).is_nan());
    }

    #[test]
    fn a_ramp_up_is_not_counted_as_noise() {
        // Users climb for 10 s (throughput with them), then hold: the noise is the hold's.
        let mut b = SeriesBuilder::default();
        feed(&mut b, 70, |t| (t + 1).min(10) * 10, |t| ((t + 1).min(10) * 100, 10));
        let n = b.finish(&["x".into()]).total_noise.unwrap();
        assert!(n.throughput_rps < 1e-9, "{n:?}");
    }

    #[test]
    fn an_open_workloads_busy_users_do_not_restart_the_noise_estimate() {
        // Busy users jump at a latency spike late in the run; the estimate still spans the run.
        let spiky = |b: &mut SeriesBuilder| feed(b, 60, |t| if t == 50 { 40 } else { 10 }, |_| (1000, 10));
        let (mut closed, mut open) = (SeriesBuilder::default(), SeriesBuilder::for_open_workload());
        spiky(&mut closed);
        spiky(&mut open);
        let closed = closed.finish(&["x".into()]).total_noise;
        let open = open.finish(&["x".into()]).total_noise.unwrap();
        assert!(closed.is_none_or(|n| n.batches < 10), "{closed:?}");
        assert!(open.batches >= MAX_BATCHES / 2, "{open:?}");
    }

    #[test]
    fn a_label_missing_from_some_batches_has_no_estimate_whatever_its_place() {
        for (sporadic, other) in [(0usize, 1usize), (1, 0)] {
            let mut b = SeriesBuilder::default();
            for t in 0..40u64 {
                let s = stats(100, 5, 0, t);
                let mut labels = vec![(other, &s)];
                // Only in the first half of the run: the later batches have none of it.
                if t < 20 {
                    labels.push((sporadic, &s));
                }
                b.add(&IntervalView {
                    start_us: t * 1_000_000,
                    end_us: (t + 1) * 1_000_000,
                    total: &s,
                    labels,
                    active_users: 1,
                    last: t == 39,
                });
            }
            let names = vec!["a".to_string(), "b".to_string()];
            let series = b.finish(&names);
            assert!(series.noise(&names[sporadic]).is_none(), "label {sporadic}");
            assert!(series.noise(&names[other]).is_some(), "label {other}");
        }
    }

    #[test]
    fn short_runs_have_no_noise_estimate_and_empty_runs_no_points() {
        let mut b = SeriesBuilder::default();
        feed(&mut b, 3, |_| 1, |_| (10, 1));
        assert!(b.finish(&[]).total_noise.is_none());
        let s = SeriesBuilder::default().finish(&[]);
        assert!(s.points.is_empty() && s.distribution.is_empty());
    }

    #[test]
    fn the_distribution_reaches_the_tail() {
        let mut b = SeriesBuilder::default();
        feed(&mut b, 10, |_| 1, |t| (1000, if t == 9 { 100 } else { 1 }));
        let d = b.finish(&[]).distribution;
        assert_eq!(d[0].0, 0.0);
        let last = d.last().unwrap();
        assert!(last.0 > 0.999 && last.1 >= 99.0, "{last:?}");
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
    }

    #[test]
    fn many_labels_get_fewer_wider_chart_points() {
        let s = LabelStats { samples: 1, ..LabelStats::default() };
        let mut b = SeriesBuilder::default();
        let all: Vec<(usize, &LabelStats)> = (0..10_000).map(|i| (i, &s)).collect();
        for sec in 0..1_000u64 {
            // The labels arrive late: points kept before must shrink too.
            let labels = if sec < 300 { vec![(0, &s)] } else { all.clone() };
            b.add(&IntervalView {
                start_us: sec * 1_000_000,
                end_us: (sec + 1) * 1_000_000,
                total: &s,
                labels,
                active_users: 1,
                last: false,
            });
        }
        let slices: usize = b.points.done.iter().map(|f| f.labels.len()).sum();
        assert!(b.points.done.len() <= 100, "{} points", b.points.done.len());
        assert!(slices <= MAX_LABEL_POINTS, "{slices} label slices");
    }

    #[test]
    fn frames_hold_the_labels_with_samples_not_every_plan_label() {
        // A plan's labels with unused redirect-hop labels between the used ones (#11).
        let mut b = SeriesBuilder::default();
        let s = stats(10, 5, 1, 0);
        for t in 0..30 {
            b.add(&IntervalView {
                start_us: t * 1_000_000,
                end_us: (t + 1) * 1_000_000,
                total: &s,
                labels: vec![(22_000, &s), (44, &s)],
                active_users: 1,
                last: t == 29,
            });
        }
        assert!(b.points.done.iter().chain(&b.batches.done).all(|f| f.labels.len() == 2));
        let names: Vec<String> = (0..30_000).map(|i| format!("l{i}")).collect();
        let series = b.finish(&names);
        assert_eq!(series.labels, ["l22000", "l44"]);
        assert!(series.points.iter().all(|p| p.label_rps.len() == 2 && p.label_rps[1] > 0.0));
        assert!(series.noise("l44").is_some() && series.noise("l22000").is_some());
    }
}
