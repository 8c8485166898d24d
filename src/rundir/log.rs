//! One line of `intervals.jsonl`: an interval's exact stats per label, histogram included
//! (HdrHistogram's V2 compressed encoding, base64), so summing the lines gives back exactly
//! what the run measured.

use crate::record::stats::{HISTOGRAM_MAX_US, HISTOGRAM_SIGFIG};
use crate::record::{ErrorKind, Interval, LabelStats, ScenarioCounts};
use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Read;

/// The most a histogram may take, encoded (base64) and inflated. A run's histogram of every
/// bucket of its range is about 220 KB inflated; these bounds are checked before anything is
/// allocated for it, so a corrupt line cannot make a report allocate gigabytes.
const MAX_HIST_ENCODED: usize = 2 << 20;
const MAX_HIST_BYTES: usize = 1 << 20;
/// HdrHistogram's V2 cookies (plain and deflated, 64-bit counts).
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
/// Bytes of the V2 header: cookie, counts' length, normalizing offset, significant digits
/// (u32 each), lowest and highest value (u64 each), integer-to-double ratio (f64).
const V2_HEADER: usize = 40;

#[derive(Debug, Serialize, Deserialize)]
pub struct IntervalLine {
    pub i: u64,
    pub start_us: u64,
    pub end_us: u64,
    pub active_users: Vec<u64>,
    pub iterations: Vec<u64>,
    pub dropped: Vec<u64>,
    pub labels: Vec<LabelLine>,
    /// The interval's Total row (every exchange once).
    pub total: Option<LabelLine>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct LabelLine {
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
}

impl IntervalLine {
    pub fn from_interval(iv: &Interval, labels: &[String], checks: &[String]) -> IntervalLine {
        IntervalLine {
            i: iv.index,
            start_us: iv.start_us,
            end_us: iv.end_us,
            active_users: iv.active_users.clone(),
            iterations: iv.scenarios.iter().map(|s| s.iterations).collect(),
            dropped: iv.scenarios.iter().map(|s| s.dropped).collect(),
            labels: iv.labels.iter().map(|(id, s)| LabelLine::from_stats(&labels[id.index()], s, checks)).collect(),
            total: Some(LabelLine::from_stats("Total", &iv.total, checks)),
        }
    }

    pub fn scenarios(&self) -> Vec<ScenarioCounts> {
        self.iterations
            .iter()
            .zip(self.dropped.iter().chain(std::iter::repeat(&0)))
            .map(|(i, d)| ScenarioCounts { iterations: *i, dropped: *d })
            .collect()
    }
}

impl LabelLine {
    fn from_stats(label: &str, s: &LabelStats, checks: &[String]) -> LabelLine {
        let mut buf = Vec::new();
        let empty;
        let h = match &s.histogram {
            Some(h) => &**h,
            None => {
                empty = crate::record::stats::new_histogram();
                &empty
            }
        };
        V2DeflateSerializer::new().serialize(h, &mut buf).expect("serialising to a Vec cannot fail");
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
            hist: base64::engine::general_purpose::STANDARD.encode(buf),
        }
    }

    /// The label's stats, checked: a line that could not have been written by a run (a
    /// histogram out of bounds or disagreeing with the counts, min above max, more errors than
    /// samples) is an error, never a panic or a huge allocation later.
    pub fn to_stats(&self, checks: &[String]) -> Result<LabelStats, String> {
        let label = &self.label;
        let h = decode_histogram(&self.hist).map_err(|e| format!("histogram of `{label}`: {e}"))?;
        if h.len() != self.samples {
            return Err(format!("`{label}` has {} samples but its histogram holds {}", self.samples, h.len()));
        }
        if self.samples > 0 && self.min_us > self.max_us {
            return Err(format!("`{label}` has min_us {} above max_us {}", self.min_us, self.max_us));
        }
        if self.errors > self.samples {
            return Err(format!("`{label}` has {} errors in {} samples", self.errors, self.samples));
        }
        let by_kind: u128 = self.errors_by_kind.values().map(|n| u128::from(*n)).sum();
        if by_kind > u128::from(self.errors) {
            return Err(format!("`{label}` has {by_kind} errors by kind but {} errors", self.errors));
        }
        let mut s = LabelStats::default();
        s.histogram_mut().add(&h).map_err(|e| format!("histogram of `{label}`: {e:?}"))?;
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
        for (name, n) in &self.errors_by_kind {
            let kind = ErrorKind::from_name_with(name, checks).ok_or_else(|| format!("unknown error kind `{name}`"))?;
            s.errors_by_kind.add(kind, *n);
        }
        Ok(s)
    }
}

/// A histogram as [`LabelLine::from_stats`] encodes it (HdrHistogram V2, deflated, base64),
/// every size it declares checked against what a run writes before it is decoded.
fn decode_histogram(text: &str) -> Result<Histogram<u64>, String> {
    if text.len() > MAX_HIST_ENCODED {
        return Err(format!("{} bytes encoded, more than the {MAX_HIST_ENCODED} a run writes", text.len()));
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(text).map_err(|e| e.to_string())?;
    let word = |b: &[u8], at: usize| b.get(at..at + 4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]));
    let long = |b: &[u8], at: usize| b.get(at..at + 8).map(|w| u64::from_be_bytes(w.try_into().unwrap_or([0; 8])));
    if word(&bytes, 0) != Some(V2_COMPRESSED_COOKIE) {
        return Err("not an HdrHistogram V2 compressed histogram".into());
    }
    let body = bytes.get(8..).unwrap_or_default();
    let declared = word(&bytes, 4).unwrap_or(0) as usize;
    if declared != body.len() {
        return Err(format!("declares {declared} compressed bytes but holds {}", body.len()));
    }
    let mut v2 = Vec::new();
    flate2::read::ZlibDecoder::new(body)
        .take(MAX_HIST_BYTES as u64 + 1)
        .read_to_end(&mut v2)
        .map_err(|e| format!("cannot inflate: {e}"))?;
    if v2.len() > MAX_HIST_BYTES {
        return Err(format!("inflates to more than the {MAX_HIST_BYTES} bytes a run writes"));
    }
    if v2.len() < V2_HEADER || word(&v2, 0) != Some(V2_COOKIE) {
        return Err("not an HdrHistogram V2 histogram inside".into());
    }
    let counts = word(&v2, 4).unwrap_or(0) as usize;
    if counts != v2.len() - V2_HEADER {
        return Err(format!("declares {counts} bytes of counts but holds {}", v2.len() - V2_HEADER));
    }
    let (digits, low, high) = (word(&v2, 12).unwrap_or(0), long(&v2, 16).unwrap_or(0), long(&v2, 24).unwrap_or(0));
    if (low, high, digits) != (1, HISTOGRAM_MAX_US, u32::from(HISTOGRAM_SIGFIG)) {
        return Err(format!(
            "its range is {low}..{high} µs at {digits} significant digits; a run's is 1..{HISTOGRAM_MAX_US} at {HISTOGRAM_SIGFIG}"
        ));
    }
    // The counts are zig-zag varints; the decoder negates a run of empty buckets, which
    // overflows for the one value that has no negation.
    let mut at = V2_HEADER;
    while at < v2.len() {
        match varint(&v2, &mut at) {
            Some(u64::MAX) => return Err("a count is out of range".into()),
            Some(_) => {}
            None => return Err("its counts are cut short".into()),
        }
    }
    Deserializer::new().deserialize(&mut v2.as_slice()).map_err(|e| format!("{e:?}"))
}

/// An HdrHistogram varint (LEB128, at most 9 bytes, the 9th taken whole) at `at`, advancing it.
fn varint(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..9 {
        let byte = *b.get(*at)?;
        *at += 1;
        if i == 8 {
            return Some(v | u64::from(byte) << 56);
        }
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            break;
        }
    }
    Some(v)
}
