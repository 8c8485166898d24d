//! The run directory: everything a run leaves on disk, and the only thing reports read.
//!
//! ```text
//! runs/<id>/
//!   meta.json        facts about the run (written at the start, completed at the end)
//!   plan.yaml        the plan as it ran (secrets redacted)
//!   intervals.jsonl  one line per interval, appended and flushed as the run goes
//!   summary.json     the numbers, written at the end
//!   report.html      the HTML report, written at the end
//! ```
//!
//! A run that is killed keeps `meta.json` and every interval flushed before it died; the
//! reader rebuilds its summary from the interval log. JMeter's results files (JTL) are written
//! and read here too ([`jtl`]), so a JMeter run reads as a run directory does.
//!
//! Depends on `record` only (the stats it serialises): what a run does is [`crate::run`]'s,
//! what a report shows is [`crate::report`]'s.

pub mod jtl;
mod log;
pub mod merge;
pub mod reader;
pub mod summary;
pub mod writer;

pub use reader::read_run;
pub use summary::{
    GeneratorUsage, LabelSummary, MergedPart, Model, PartMeta, RunMeta, ScenarioMeta, ScenarioSummary, Status, Summary,
    ThresholdResult,
};
pub use writer::{IntervalLines, Place, RunWriter};

/// `RunMeta::tool` of a run directory that stampede wrote.
pub const TOOL: &str = "stampede";
pub const META: &str = "meta.json";
pub const PLAN: &str = "plan.yaml";
pub const INTERVALS: &str = "intervals.jsonl";
pub const SUMMARY: &str = "summary.json";
/// The HTML report a run writes at its end (`report DIR --format html` writes it again).
pub const REPORT_HTML: &str = "report.html";

/// Errors reading or writing a run directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("{path}:{line}: {message}")]
    Format { path: std::path::PathBuf, line: usize, message: String },
    /// A run was to be written where another run (or anything else) already is.
    #[error("{} already {}", path.display(), if *run { "holds a run (it has meta.json)" } else { "exists and is not empty" })]
    Occupied { path: std::path::PathBuf, run: bool },
    #[error("{0} is not a run directory (it has no meta.json)")]
    NotARun(std::path::PathBuf),
    /// Runs that cannot be read as one (the same run twice, overlapping parts).
    #[error("cannot read these runs as one: {0}")]
    Merge(String),
}
