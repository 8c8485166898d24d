//! One line of `intervals.jsonl`: an interval's exact stats per label, histogram included
//! (HdrHistogram's V2 compressed encoding, base64), so summing the lines gives back exactly
//! what the run measured.

use crate::record::stats::Upstream;
use crate::record::{ErrorKind, Histogram, Interval, LabelStats, ScenarioCounts};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most a histogram may take, encoded (base64): a run's histogram of every bucket of its
/// range is about 220 KB. Checked before anything is decoded, so a corrupt line cannot make a
/// report allocate gigabytes.
const MAX_HIST_ENCODED: usize = 2 << 20;

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct IntervalLine {
    pub i: u64,
    pub start_us: u64,
    pub end_us: u64,
    pub active_users: Vec<u64>,
    pub iterations: Vec<u64>,
    pub dropped: Vec<u64>,
    /// Open model: arrivals not dispatched on time, per scenario (absent before 0.1.x logs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undispatched: Vec<u64>,
    /// Open model: dispatch lateness per scenario (null for a scenario with no arrivals).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lateness: Vec<Option<LabelLine>>,
    pub labels: Vec<LabelLine>,
    /// The interval's Total row (every exchange once).
    pub total: Option<LabelLine>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(super) struct LabelLine {
    pub label: String,
    pub samples: u64,
    pub errors: u64,
    pub sum_elapsed_us: u64,
    pub min_us: u64,
    pub max_us: u64,
    pub sum_ttfb_us: u64,
    pub sum_connect_us: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub connections_opened: u64,
    pub first_start_us: u64,
    pub last_end_us: u64,
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Elapsed-time histogram (µs), HdrHistogram V2 + deflate, base64.
    pub hist: String,
    /// Connect and TTFB detail (absent from logs written before they were recorded; a
    /// report of such a run shows their means only).
    #[serde(default, flatten)]
    pub timing: TimingLine,
    /// The upstream split of the samples whose response told the upstream's time; absent when
    /// none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<UpstreamLine>,
}

/// [`crate::record::stats::Upstream`] on disk, histograms encoded as `hist`.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct UpstreamLine {
    pub samples: u64,
    pub sum_elapsed_us: u64,
    pub sum_us: u64,
    pub max_us: u64,
    pub hist: String,
    pub sum_overhead_us: u64,
    pub max_overhead_us: u64,
    pub overhead_hist: String,
}

/// [`crate::record::stats::Timing`] on disk: every field optional, so older logs still read.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct TimingLine {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_samples: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connect_us: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ttfb_us: Option<u64>,
    /// TTFB histogram (µs), encoded as `hist`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttfb_hist: Option<String>,
    /// Connect-time histogram (µs) of the samples that opened a connection, encoded as `hist`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_hist: Option<String>,
}

impl IntervalLine {
    pub(super) fn from_interval(iv: &Interval, labels: &[String], checks: &[String]) -> IntervalLine {
        IntervalLine {
            i: iv.index,
            start_us: iv.start_us,
            end_us: iv.end_us,
            active_users: iv.active_users.clone(),
            iterations: iv.scenarios.iter().map(|s| s.iterations).collect(),
            dropped: iv.scenarios.iter().map(|s| s.dropped).collect(),
            undispatched: if iv.scenarios.iter().any(|s| s.undispatched > 0) {
                iv.scenarios.iter().map(|s| s.undispatched).collect()
            } else {
                Vec::new()
            },
            lateness: if iv.lateness.iter().any(|l| l.samples > 0) {
                iv.lateness
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (l.samples > 0).then(|| LabelLine::from_stats(&i.to_string(), l, checks)))
                    .collect()
            } else {
                Vec::new()
            },
            labels: iv.labels.iter().map(|(id, s)| LabelLine::from_stats(&labels[id.index()], s, checks)).collect(),
            total: Some(LabelLine::from_stats("Total", &iv.total, checks)),
        }
    }

    pub(super) fn scenarios(&self) -> Vec<ScenarioCounts> {
        let zeros = || std::iter::repeat(&0);
        self.iterations
            .iter()
            .zip(self.dropped.iter().chain(zeros()))
            .zip(self.undispatched.iter().chain(zeros()))
            .map(|((i, d), u)| ScenarioCounts { iterations: *i, dropped: *d, undispatched: *u })
            .collect()
    }

    /// The dispatch lateness per scenario (`scenarios` long).
    pub(super) fn lateness(&self, scenarios: usize, checks: &[String]) -> Result<Vec<LabelStats>, LineError> {
        let mut out: Vec<LabelStats> = (0..scenarios).map(|_| LabelStats::default()).collect();
        for (slot, line) in out.iter_mut().zip(&self.lateness) {
            if let Some(line) = line {
                *slot = line.to_stats(checks)?;
            }
        }
        Ok(out)
    }
}

impl LabelLine {
    fn from_stats(label: &str, s: &LabelStats, checks: &[String]) -> LabelLine {
        let t = &s.timing;
        let timing = TimingLine {
            connect_samples: Some(t.connect_samples),
            max_connect_us: Some(t.max_connect_us),
            max_ttfb_us: Some(t.max_ttfb_us),
            ttfb_hist: (!t.ttfb.is_empty()).then(|| encode(&t.ttfb)),
            connect_hist: (!t.connect.is_empty()).then(|| encode(&t.connect)),
        };
        LabelLine {
            label: label.to_string(),
            samples: s.samples,
            errors: s.errors,
            sum_elapsed_us: s.sum_elapsed_us,
            min_us: s.min_us,
            max_us: s.max_us,
            sum_ttfb_us: s.sum_ttfb_us,
            sum_connect_us: s.sum_connect_us,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            connections_opened: s.connections_opened,
            first_start_us: s.first_start_us,
            last_end_us: s.last_end_us,
            errors_by_kind: s.errors_by_kind.named(checks),
            hist: encode(&s.histogram),
            timing,
            upstream: s.upstream.as_deref().filter(|u| u.samples > 0).map(|u| UpstreamLine {
                samples: u.samples,
                sum_elapsed_us: u.sum_elapsed_us,
                sum_us: u.sum_us,
                max_us: u.max_us,
                hist: encode(&u.hist),
                sum_overhead_us: u.sum_overhead_us,
                max_overhead_us: u.max_overhead_us,
                overhead_hist: encode(&u.overhead),
            }),
        }
    }

    /// The label's stats, checked: a line that could not have been written by a run (a
    /// histogram out of bounds or disagreeing with the counts, min above max, more errors than
    /// samples) is an error, never a panic or a huge allocation later.
    pub(super) fn to_stats(&self, checks: &[String]) -> Result<LabelStats, LineError> {
        let label = || self.label.clone();
        let histogram =
            decode(&self.hist).map_err(|source| LineError::Histogram { which: "", label: label(), source })?;
        if histogram.len() != self.samples {
            let (samples, held) = (self.samples, histogram.len());
            return Err(LineError::SampleCount { label: label(), samples, which: "histogram", held });
        }
        if self.samples > 0 && self.min_us > self.max_us {
            return Err(LineError::MinAboveMax { label: label(), min: self.min_us, max: self.max_us });
        }
        if self.errors > self.samples {
            return Err(LineError::MoreErrors { label: label(), errors: self.errors, samples: self.samples });
        }
        let by_kind: u128 = self.errors_by_kind.values().map(|n| u128::from(*n)).sum();
        if by_kind > u128::from(self.errors) {
            return Err(LineError::ErrorsByKind { label: label(), by_kind, errors: self.errors });
        }
        let mut s = LabelStats { histogram, ..LabelStats::default() };
        s.samples = self.samples;
        s.errors = self.errors;
        s.sum_elapsed_us = self.sum_elapsed_us;
        s.min_us = self.min_us;
        s.max_us = self.max_us;
        s.sum_ttfb_us = self.sum_ttfb_us;
        s.sum_connect_us = self.sum_connect_us;
        s.bytes_sent = self.bytes_sent;
        s.bytes_received = self.bytes_received;
        s.connections_opened = self.connections_opened;
        s.first_start_us = self.first_start_us;
        s.last_end_us = self.last_end_us;
        let t = &self.timing;
        // Before connect samples were counted apart, every one opened a connection.
        s.timing.connect_samples = t.connect_samples.unwrap_or(self.connections_opened);
        s.timing.max_connect_us = t.max_connect_us.unwrap_or(0);
        s.timing.max_ttfb_us = t.max_ttfb_us.unwrap_or(0);
        for (text, into, which) in
            [(&t.ttfb_hist, &mut s.timing.ttfb, "TTFB "), (&t.connect_hist, &mut s.timing.connect, "connect ")]
        {
            if let Some(text) = text {
                *into = decode(text).map_err(|source| LineError::Histogram { which, label: label(), source })?;
            }
        }
        // Every sample has a TTFB (0 when no byte came) and every connecting one a connect time.
        let ttfb_count = s.timing.ttfb.len();
        if t.ttfb_hist.is_some() && ttfb_count != self.samples {
            let (samples, held) = (self.samples, ttfb_count);
            return Err(LineError::SampleCount { label: label(), samples, which: "TTFB histogram", held });
        }
        let connects = s.timing.connect.len();
        if t.connect_hist.is_some() && connects != s.timing.connect_samples {
            let connecting = s.timing.connect_samples;
            return Err(LineError::ConnectCount { label: label(), connecting, held: connects });
        }
        if let Some(u) = &self.upstream {
            s.upstream = Some(Box::new(u.to_stats(self.samples, (self.sum_elapsed_us, self.max_us), &label)?));
        }
        for (name, n) in &self.errors_by_kind {
            let kind =
                ErrorKind::from_name_with(name, checks).ok_or_else(|| LineError::UnknownKind(name.to_string()))?;
            s.errors_by_kind.add(kind, *n);
        }
        Ok(s)
    }
}

impl UpstreamLine {
    /// Checked as [`LabelLine::to_stats`] checks its own: no more samples than the label's,
    /// histograms holding exactly them.
    fn to_stats(
        &self,
        label_samples: u64,
        label_sums: (u64, u64),
        label: &dyn Fn() -> String,
    ) -> Result<Upstream, LineError> {
        if self.samples > label_samples {
            let (samples, held) = (label_samples, self.samples);
            return Err(LineError::SampleCount { label: label(), samples, which: "upstream split", held });
        }
        // Parts of the label's own figures: a line saying otherwise was not written by a run.
        if self.sum_elapsed_us > label_sums.0
            || self.sum_overhead_us > self.sum_elapsed_us
            || self.max_overhead_us > label_sums.1
        {
            return Err(LineError::Upstream { label: label() });
        }
        let mut u = Upstream {
            samples: self.samples,
            sum_elapsed_us: self.sum_elapsed_us,
            sum_us: self.sum_us,
            max_us: self.max_us,
            sum_overhead_us: self.sum_overhead_us,
            max_overhead_us: self.max_overhead_us,
            ..Upstream::default()
        };
        for (text, into, which, whole) in [
            (&self.hist, &mut u.hist, "upstream ", "upstream histogram"),
            (&self.overhead_hist, &mut u.overhead, "overhead ", "overhead histogram"),
        ] {
            *into = decode(text).map_err(|source| LineError::Histogram { which, label: label(), source })?;
            if into.len() != self.samples {
                let (samples, held) = (self.samples, into.len());
                return Err(LineError::SampleCount { label: label(), samples, which: whole, held });
            }
        }
        Ok(u)
    }
}

fn encode<const D: u8>(h: &Histogram<D>) -> String {
    let mut buf = Vec::new();
    h.encode_v2(&mut buf);
    base64::engine::general_purpose::STANDARD.encode(buf)
}

/// A histogram as [`LabelLine::from_stats`] encodes it (HdrHistogram V2, deflated, base64),
/// its sizes bounded before anything is allocated for it ([`Histogram::decode_v2`] checks what
/// the bytes declare against the layout).
fn decode<const D: u8>(text: &str) -> Result<Histogram<D>, HistogramError> {
    if text.len() > MAX_HIST_ENCODED {
        return Err(HistogramError::TooLong(text.len()));
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(text)?;
    Histogram::<D>::decode_v2(&bytes).map_err(HistogramError::Layout)
}

/// A line of the interval log that a run could not have written (the reader adds the file and
/// line number).
#[derive(Debug, thiserror::Error)]
pub(super) enum LineError {
    #[error("{which}histogram of `{label}`: {source}")]
    Histogram { which: &'static str, label: String, source: HistogramError },
    #[error("`{label}` has {samples} samples but its {which} holds {held}")]
    SampleCount { label: String, samples: u64, which: &'static str, held: u64 },
    #[error("`{label}` has {connecting} connecting samples but its connect histogram holds {held}")]
    ConnectCount { label: String, connecting: u64, held: u64 },
    #[error("`{label}`'s upstream split is larger than the label's own times")]
    Upstream { label: String },
    #[error("`{label}` has min_us {min} above max_us {max}")]
    MinAboveMax { label: String, min: u64, max: u64 },
    #[error("`{label}` has {errors} errors in {samples} samples")]
    MoreErrors { label: String, errors: u64, samples: u64 },
    #[error("`{label}` has {by_kind} errors by kind but {errors} errors")]
    ErrorsByKind { label: String, by_kind: u128, errors: u64 },
    #[error("unknown error kind `{0}`")]
    UnknownKind(String),
    #[error("the interval starts at {start} µs, after its end at {end} µs")]
    StartsAfterEnd { start: u64, end: u64 },
    #[error("its counts add up past 2^64: not a log a run writes")]
    Overflow,
    #[error("more than {0} distinct labels: not a log a run writes")]
    TooManyLabels(usize),
}

/// A histogram's text that does not decode.
#[derive(Debug, thiserror::Error)]
pub(super) enum HistogramError {
    #[error("{0} bytes encoded, more than the {MAX_HIST_ENCODED} a run writes")]
    TooLong(usize),
    #[error("{0}")]
    Base64(#[from] base64::DecodeError),
    #[error("{0}")]
    Layout(crate::record::histogram::DecodeError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Sample;
    use crate::rundir::reader::tests::sample_at;

    fn stats() -> LabelStats {
        let mut s = LabelStats::default();
        for i in 0..10u64 {
            s.record(&Sample {
                ttfb_us: 1_000 + i,
                connect_us: if i < 2 { 300 + i } else { 0 },
                new_connection: i < 2,
                ..sample_at(i, 5_000)
            });
        }
        s
    }

    #[test]
    fn connect_and_ttfb_detail_round_trips_through_a_line() {
        let s = stats();
        let line: LabelLine =
            serde_json::from_str(&serde_json::to_string(&LabelLine::from_stats("a", &s, &[])).unwrap()).unwrap();
        let back = line.to_stats(&[]).unwrap();
        let (a, b) = (&s.timing, &back.timing);
        assert_eq!((b.connect_samples, b.max_connect_us, b.max_ttfb_us), (2, 301, 1_009));
        assert_eq!(b.ttfb_quantile_us_at(0.99, 1), a.ttfb_quantile_us_at(0.99, 1));
        assert_eq!(b.connect_quantile_us_at(0.5, 1), a.connect_quantile_us_at(0.5, 1));
    }

    #[test]
    fn the_upstream_split_round_trips_through_a_line_and_is_checked() {
        let mut s = stats();
        for i in 0..4u64 {
            s.record(&Sample { upstream_us: Some(2_000 + i), ..sample_at(i, 4_000 + i) });
        }
        let v = serde_json::to_value(LabelLine::from_stats("a", &s, &[])).unwrap();
        let back = serde_json::from_value::<LabelLine>(v.clone()).unwrap().to_stats(&[]).unwrap();
        let (a, b) = (s.upstream.as_deref().unwrap(), back.upstream.as_deref().unwrap());
        assert_eq!(
            (b.samples, b.sum_us, b.max_us, b.sum_overhead_us, b.max_overhead_us),
            (4, 8_006, 2_003, 8_000, 2_000)
        );
        assert_eq!(
            (b.sum_elapsed_us, b.quantile_us(0.5), b.overhead_quantile_us(0.99)),
            (a.sum_elapsed_us, a.quantile_us(0.5), a.overhead_quantile_us(0.99))
        );
        // A line without the split (every older one) has none; one whose histogram disagrees is refused.
        assert!(stats().upstream.is_none() && LabelLine::from_stats("a", &stats(), &[]).upstream.is_none());
        let mut bad = v.clone();
        bad["upstream"]["samples"] = 3.into();
        let e = serde_json::from_value::<LabelLine>(bad).unwrap().to_stats(&[]).unwrap_err().to_string();
        assert!(e.contains("3 samples but its upstream histogram holds 4"), "{e}");
        let mut bad = v;
        bad["upstream"]["sum_overhead_us"] = u64::MAX.into();
        let e = serde_json::from_value::<LabelLine>(bad).unwrap().to_stats(&[]).unwrap_err().to_string();
        assert!(e.contains("upstream split is larger than the label's own times"), "{e}");
    }

    #[test]
    fn timing_histograms_must_agree_with_the_counts() {
        let mut v = serde_json::to_value(LabelLine::from_stats("a", &stats(), &[])).unwrap();
        v["connect_samples"] = 5.into();
        let e = serde_json::from_value::<LabelLine>(v).unwrap().to_stats(&[]).unwrap_err().to_string();
        assert!(e.contains("5 connecting samples but its connect histogram holds 2"), "{e}");
        let mut v = serde_json::to_value(LabelLine::from_stats("a", &stats(), &[])).unwrap();
        v["ttfb_hist"] = encode(&Histogram::<2>::new()).into();
        let e = serde_json::from_value::<LabelLine>(v).unwrap().to_stats(&[]).unwrap_err().to_string();
        assert!(e.contains("10 samples but its TTFB histogram holds 0"), "{e}");
    }

    #[test]
    fn a_line_written_before_connect_and_ttfb_detail_still_reads() {
        let mut v = serde_json::to_value(LabelLine::from_stats("a", &stats(), &[])).unwrap();
        for key in ["connect_samples", "max_connect_us", "max_ttfb_us", "ttfb_hist", "connect_hist"] {
            v.as_object_mut().unwrap().remove(key).unwrap();
        }
        let back = serde_json::from_value::<LabelLine>(v).unwrap().to_stats(&[]).unwrap();
        // Every connect was a connection then: the mean is over them; no percentile is invented.
        assert_eq!(back.timing.connect_samples, 2);
        let row = crate::rundir::LabelSummary::from_stats("a", &back, &[]);
        assert!((row.mean_connect_ms - 0.3005).abs() < 1e-9, "{row:?}");
        assert_eq!(
            (row.p99_connect_ms, row.max_connect_ms, row.p99_latency_ms, row.max_latency_ms),
            (None, None, None, None)
        );
        assert!((row.mean_latency_ms - 1.0045).abs() < 1e-9, "{row:?}");
    }

    /// An interval with every part of a line: timing, upstream, a check and a status among the
    /// errors, open-model counts and lateness.
    fn every_part() -> Interval {
        let mut s = LabelStats::default();
        for i in 0..6u64 {
            s.record(&Sample {
                ttfb_us: 900 + i,
                connect_us: if i == 0 { 250 } else { 0 },
                new_connection: i == 0,
                upstream_us: (i % 2 == 0).then_some(700 + i),
                error: [None, Some(ErrorKind::Status(503)), Some(ErrorKind::Check(0))]
                    .get(i as usize)
                    .copied()
                    .flatten(),
                ..sample_at(1_000 * i, 1_500 + 10 * i)
            });
        }
        let mut late = LabelStats::default();
        late.record(&sample_at(0, 40));
        Interval {
            new_labels: Vec::new(),
            index: 3,
            start_us: 3_000_000,
            end_us: 4_000_000,
            labels: vec![(crate::plan::LabelId(0), s.clone())],
            total: s,
            scenarios: vec![crate::record::ScenarioCounts { iterations: 6, dropped: 1, undispatched: 2 }],
            lateness: vec![late],
            active_users: vec![2],
            last: false,
        }
    }

    /// The line [`every_part`] made when written by the code of 2026-11-29 (eae780f), copied
    /// verbatim: whatever codec writes and reads `intervals.jsonl` must keep reading it equal
    /// and writing it byte for byte (logs and agents' streams of older versions read on).
    const WRITTEN_AT_EAE780F: &str = r#"{"i":3,"start_us":3000000,"end_us":4000000,"active_users":[2],"iterations":[6],"dropped":[1],"undispatched":[2],"lateness":[{"label":"0","samples":1,"errors":0,"sum_elapsed_us":40,"min_us":40,"max_us":40,"sum_ttfb_us":1,"sum_connect_us":0,"bytes_sent":1,"bytes_received":1,"connections_opened":0,"first_start_us":0,"last_end_us":40,"errors_by_kind":{},"hist":"HISTFAAAACJ4nJNpmSzMwMDAxAABzFCaEURcm7yEwf4DRMCfCQBazgTa","connect_samples":0,"max_connect_us":0,"max_ttfb_us":1,"ttfb_hist":"HISTFAAAAB94nJNpmSzMwMDAxAABMJoRRFybvITB/gNMBgBaFQSK"}],"labels":[{"label":"get /a","samples":6,"errors":2,"sum_elapsed_us":9150,"min_us":1500,"max_us":1550,"sum_ttfb_us":5415,"sum_connect_us":250,"bytes_sent":6,"bytes_received":6,"connections_opened":1,"first_start_us":0,"last_end_us":6550,"errors_by_kind":{"check: status is 200":1,"http_503":1},"hist":"HISTFAAAADZ4nD2IMQ0AIAwED5gZCAMLXjCHg1rAA07QgQRC2vQ/uUuuT6lARpfM4ePIYlwNu8Xif5qwBcM=","connect_samples":1,"max_connect_us":250,"max_ttfb_us":905,"ttfb_hist":"HISTFAAAACR4nJNpmSzMwMDAwgABTFCaEURcm7yEwf4DROAgOwcLAGaaBV4=","connect_hist":"HISTFAAAACN4nJNpmSzMwMDAzAABTFCaEURcm7yEwf4DROAzMxMAYaAFgQ==","upstream":{"samples":3,"sum_elapsed_us":4560,"sum_us":2106,"max_us":704,"hist":"HISTFAAAACR4nJNpmSzMwMDAwgABTFCaEURcm7yEwf4DROAuGwsTAGb9BXM=","sum_overhead_us":2454,"max_overhead_us":836,"overhead_hist":"HISTFAAAACd4nJNpmSzMwMDAzgABTFCaEURcm7yEwf4DRKCfnYmViZ0JAHXKBTU="}}],"total":{"label":"Total","samples":6,"errors":2,"sum_elapsed_us":9150,"min_us":1500,"max_us":1550,"sum_ttfb_us":5415,"sum_connect_us":250,"bytes_sent":6,"bytes_received":6,"connections_opened":1,"first_start_us":0,"last_end_us":6550,"errors_by_kind":{"check: status is 200":1,"http_503":1},"hist":"HISTFAAAADZ4nD2IMQ0AIAwED5gZCAMLXjCHg1rAA07QgQRC2vQ/uUuuT6lARpfM4ePIYlwNu8Xif5qwBcM=","connect_samples":1,"max_connect_us":250,"max_ttfb_us":905,"ttfb_hist":"HISTFAAAACR4nJNpmSzMwMDAwgABTFCaEURcm7yEwf4DROAgOwcLAGaaBV4=","connect_hist":"HISTFAAAACN4nJNpmSzMwMDAzAABTFCaEURcm7yEwf4DROAzMxMAYaAFgQ==","upstream":{"samples":3,"sum_elapsed_us":4560,"sum_us":2106,"max_us":704,"hist":"HISTFAAAACR4nJNpmSzMwMDAwgABTFCaEURcm7yEwf4DROAuGwsTAGb9BXM=","sum_overhead_us":2454,"max_overhead_us":836,"overhead_hist":"HISTFAAAACd4nJNpmSzMwMDAzgABTFCaEURcm7yEwf4DRKCfnYmViZ0JAHXKBTU="}}}"#;

    fn assert_same(a: &LabelStats, b: &LabelStats) {
        let counts = |s: &LabelStats| {
            [
                s.samples,
                s.errors,
                s.sum_elapsed_us,
                s.min_us,
                s.max_us,
                s.sum_ttfb_us,
                s.sum_connect_us,
                s.bytes_sent,
                s.bytes_received,
                s.connections_opened,
                s.first_start_us,
                s.last_end_us,
                s.timing.connect_samples,
                s.timing.max_connect_us,
                s.timing.max_ttfb_us,
            ]
        };
        assert_eq!(counts(a), counts(b));
        assert_eq!(a.errors_by_kind, b.errors_by_kind);
        assert_eq!(a.histogram, b.histogram);
        assert_eq!((&a.timing.ttfb, &a.timing.connect), (&b.timing.ttfb, &b.timing.connect));
        let upstream = |s: &LabelStats| {
            s.upstream.as_deref().map(|u| {
                let sums = [u.samples, u.sum_elapsed_us, u.sum_us, u.max_us, u.sum_overhead_us, u.max_overhead_us];
                (sums, u.hist.clone(), u.overhead.clone())
            })
        };
        assert_eq!(upstream(a), upstream(b));
    }

    #[test]
    fn a_line_written_by_earlier_code_reads_back_equal_and_is_written_byte_for_byte() {
        let (iv, labels, checks) = (every_part(), ["get /a".to_string()], ["status is 200".to_string()]);
        let written = serde_json::to_string(&IntervalLine::from_interval(&iv, &labels, &checks)).unwrap();
        assert_eq!(written, WRITTEN_AT_EAE780F, "the same stats make the same line");
        let line: IntervalLine = serde_json::from_str(WRITTEN_AT_EAE780F).unwrap();
        assert_eq!(serde_json::to_string(&line).unwrap(), WRITTEN_AT_EAE780F, "read and written again, unchanged");
        assert_eq!((line.i, line.start_us, line.end_us, &line.active_users), (3, 3_000_000, 4_000_000, &vec![2]));
        assert_eq!(line.scenarios(), iv.scenarios);
        assert_eq!(line.labels[0].label, "get /a");
        assert_same(&line.labels[0].to_stats(&checks).unwrap(), &iv.labels[0].1);
        assert_same(&line.total.as_ref().unwrap().to_stats(&checks).unwrap(), &iv.total);
        assert_same(&line.lateness(1, &checks).unwrap()[0], &iv.lateness[0]);
        // Read with another run's checks, the check's name is not one of its kinds.
        let e = line.labels[0].to_stats(&[]).unwrap_err().to_string();
        assert_eq!(e, "unknown error kind `check: status is 200`");
    }
}
