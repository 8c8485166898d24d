//! One line of `intervals.jsonl`: an interval's exact stats per label, histogram included
//! (HdrHistogram's V2 compressed encoding, base64), so summing the lines gives back exactly
//! what the run measured.

use crate::record::{ErrorKind, Histogram, Interval, LabelStats, ScenarioCounts};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
        s.histogram.encode_v2(&mut buf);
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

    pub fn to_stats(&self, checks: &[String]) -> Result<LabelStats, String> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.hist)
            .map_err(|e| format!("histogram of `{}`: {e}", self.label))?;
        let histogram = Histogram::decode_v2(&bytes).map_err(|e| format!("histogram of `{}`: {e}", self.label))?;
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
        for (name, n) in &self.errors_by_kind {
            let kind = ErrorKind::from_name_with(name, checks).ok_or_else(|| format!("unknown error kind `{name}`"))?;
            s.errors_by_kind.add(kind, *n);
        }
        Ok(s)
    }
}
