//! Measuring: a finished request becomes a [`Sample`], which a `Recorder` adds to per-thread
//! [`LabelStats`] with no lock, and no allocation once each label's histogram has met its
//! buckets (see `histogram`); once per interval the collector drains every thread's stats and
//! merges them exactly into an [`Interval`]. Past `LABEL_CAP` labels with samples, the rest
//! share one row (see `cap`). No I/O here.

mod cap;
pub(crate) mod error_kind;
pub(crate) mod histogram;
pub(crate) mod interval;
pub(crate) mod run_labels;
mod shard;
pub(crate) mod stats;

pub(crate) use cap::{row_names, LABEL_CAP, OVERFLOW_LABEL};
pub use error_kind::{ErrorCounts, ErrorKind};
pub use histogram::Histogram;
pub(crate) use interval::Tally;
pub use interval::{Interval, ScenarioCounts};
pub(crate) use run_labels::{RunLabels, RUN_LABEL_CAP};
pub(crate) use shard::Recorder;
pub use stats::{LabelStats, Timing, Upstream};

use crate::plan::LabelId;

/// One finished request (or a failed attempt at one). Times are µs since the run started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// The label it is reported under.
    pub label: LabelId,
    /// When the elapsed time starts: just before connecting/writing, or, for the first request
    /// of an open-model iteration, the moment it was due (no coordinated omission).
    pub start_us: u64,
    /// When the last byte of the response arrived (or the failure was seen).
    pub end_us: u64,
    /// Time to the first response byte, from `start_us` (JMeter's Latency); 0 when none came.
    pub ttfb_us: u64,
    /// Time to open the connection; 0 when a kept-alive one was reused.
    pub connect_us: u64,
    /// Bytes written for the request.
    pub bytes_sent: u64,
    /// Bytes read for the response.
    pub bytes_received: u64,
    /// Whether it opened a connection.
    pub new_connection: bool,
    /// Why it failed; `None` for a success.
    pub error: Option<ErrorKind>,
    /// Whether the sample is one HTTP exchange that the Total row counts. A sample that sums
    /// others (a transaction, or a redirect chain whose hops are recorded as `label-0`,
    /// `label-1`, ...) has its own row but is left out of the Total, so the Total counts every
    /// exchange exactly once.
    pub in_total: bool,
    /// The upstream's own time, as a response header told it (`Server-Timing`, a gateway's
    /// header; see `crate::plan::timing`), µs; `None` when no header did.
    pub upstream_us: Option<u64>,
}

impl Sample {
    /// End minus start: the elapsed time.
    pub fn elapsed_us(&self) -> u64 {
        self.end_us.saturating_sub(self.start_us)
    }
}

/// One sample with what a per-sample log (JMeter's JTL) shows: its wall-clock time, status,
/// URL and user. Made only when such a log is asked for.
#[derive(Debug, Clone)]
pub struct SampleRow {
    /// Start, ms since the Unix epoch.
    pub timestamp_ms: u64,
    /// Elapsed time, ms.
    pub elapsed_ms: u64,
    /// The label, by index (a `LabelId`).
    pub label: u32,
    /// The label's name when it was rendered at run time (a sampler named with `${...}`).
    pub name: Option<String>,
    /// The HTTP status; 0 when there was no response.
    pub status: u16,
    /// Why it failed; `None` for a success.
    pub error: Option<ErrorKind>,
    /// The scenario, by position.
    pub scenario: usize,
    /// The user's number in its scenario, from 1.
    pub user: u64,
    /// Bytes received.
    pub bytes: u64,
    /// Bytes sent.
    pub sent_bytes: u64,
    /// Users running in the sample's scenario (JMeter's `grpThreads`).
    pub group_users: u64,
    /// Users running in all scenarios (JMeter's `allThreads`).
    pub all_users: u64,
    /// The URL requested.
    pub url: String,
    /// Time to the first byte, ms (JMeter's Latency).
    pub latency_ms: u64,
    /// Time to connect, ms (0 on a kept-alive connection).
    pub connect_ms: u64,
    /// Why JMeter's java.net.URI refuses `url` (`Illegal character in query at index 77`):
    /// the sample failed unsent, and a results file writes JMeter's
    /// `java.net.URISyntaxException` with this message.
    pub refused_url: Option<Box<str>>,
    /// The response code and message when they are not the HTTP status's (a sampler of
    /// another protocol: JMeter's TCP Sampler writes `500` and the Java exception).
    pub code_message: Option<Box<(String, String)>>,
}
