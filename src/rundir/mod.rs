//! The run directory: everything a run leaves on disk, and the only thing reports read.
//!
//! ```text
//! runs/<id>/
//!   meta.json        facts about the run (written at the start, completed at the end)
//!   plan.yaml        the plan as it ran (secrets redacted)
//!   intervals.jsonl  one line per second (of the first hour), appended and flushed as the run goes
//!   intervals-60s.jsonl, intervals-600s.jsonl, intervals-3600s.jsonl
//!                    the same per minute, 10 minutes, hour: exact sums of the seconds
//!   tail.jsonl       seconds past the first hour not yet in a minute line (see LogFormat)
//!   summary.json     the numbers, written at the end
//!   watch.jsonl      what `run --watch` sampled of the system under test, a line per source
//!                    per second, appended and flushed as the run goes (see [`watch`])
//!   report.html      the HTML report, written at the end
//!   lost.json        a run on agents: the agents it lost, when, and what they may have sent
//!                    that the figures miss (see [`lost`])
//!   agents/I-HOST/   a run on agents: each agent's part, in a coarser layout ([`copy`])
//! ```
//!
//! A run that is killed keeps `meta.json` and every interval flushed before it died; the
//! reader rebuilds its summary from the interval log. Every read cross-checks the log's tiers
//! against each other and `summary.json` (`damage`): a directory that does not hold together
//! is read as far as it goes, with a warning naming the file. JMeter's results files (JTL) are written
//! and read here too (`jtl`), so a JMeter run reads as a run directory does.
//!
//! Depends on `record` only (the stats it serialises): what a run does is [`crate::run`]'s,
//! what a report shows is [`crate::report`]'s.

pub(crate) mod copy;
pub(crate) mod damage;
pub(crate) mod jtl;
mod log;
pub(crate) mod lost;
pub(crate) mod merge;
pub(crate) mod reader;
pub(crate) mod summary;
pub(crate) mod watch;
pub(crate) mod writer;

pub use reader::{read_run, Run};
pub use summary::{
    GeneratorUsage, LabelSummary, Lateness, LogFormat, MergedPart, Model, PartMeta, RunMeta, ScenarioMeta,
    ScenarioSummary, Status, Summary, ThresholdResult, UpstreamSummary,
};
pub use writer::Place;
pub(crate) use writer::{IntervalLines, RunWriter};

/// `RunMeta::tool` of a run directory that stampede wrote.
pub(crate) const TOOL: &str = "stampede";
pub(crate) const META: &str = "meta.json";
pub(crate) const PLAN: &str = "plan.yaml";
pub(crate) const INTERVALS: &str = "intervals.jsonl";
pub(crate) const SUMMARY: &str = "summary.json";
/// Seconds past [`SECONDS_KEPT_S`] not yet in a line of the finest roll-up (see [`LogFormat`]).
pub(crate) const TAIL: &str = "tail.jsonl";
/// How long a run keeps each second in `intervals.jsonl`: past it, the roll-ups are its log
/// (a 60-hour log of every second with its histograms would be gigabytes; see
/// `bench/soak/log.sh`).
pub(crate) const SECONDS_KEPT_S: u64 = 3600;
/// The roll-ups a run writes: per minute, per 10 minutes, per hour (each a multiple of the one
/// before, so a coarse line is a whole number of finer ones).
pub(crate) const ROLLUPS_S: [u64; 3] = [60, 600, 3600];

/// The file of the roll-up of `width_s` seconds.
pub(crate) fn rollup_file(width_s: u64) -> String {
    format!("intervals-{width_s}s.jsonl")
}

/// What the plan's scripts and functions logged, at load and while the run went.
pub(crate) const SCRIPT_LOG: &str = "scripts.log";

/// Every file a run directory may hold that a run writes (a replaced run's go).
pub(crate) fn run_files() -> Vec<String> {
    let mut files: Vec<String> = [
        META,
        PLAN,
        INTERVALS,
        TAIL,
        "tail.jsonl.new",
        SUMMARY,
        REPORT_HTML,
        EXPORT,
        watch::WATCH,
        lost::LOST,
        SCRIPT_LOG,
    ]
    .map(String::from)
    .to_vec();
    files.extend(ROLLUPS_S.map(rollup_file));
    files
}

/// The HTML report a run writes at its end (`report DIR --format html` writes it again).
pub(crate) const REPORT_HTML: &str = "report.html";

/// What each live-metrics sink of `run --export` did (delivered, dropped, failed), when the run
/// had any.
pub(crate) const EXPORT: &str = "export.json";

/// Errors reading or writing a run directory.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file holds something other than what a run writes there.
    #[error("{path}:{line}: {message}")]
    Format {
        /// The file.
        path: std::path::PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A run was to be written where another run (or anything else) already is.
    #[error("{} already {}", path.display(), if *run { "holds a run (it has meta.json)" } else { "exists and is not empty" })]
    Occupied {
        /// The directory.
        path: std::path::PathBuf,
        /// Whether what is there is a run (it has `meta.json`).
        run: bool,
    },
    /// The directory has no `meta.json`.
    #[error("{0} is not a run directory (it has no meta.json)")]
    NotARun(std::path::PathBuf),
    /// Runs that cannot be read as one (the same run twice, overlapping parts).
    #[error("cannot read these runs as one: {0}")]
    Merge(String),
    /// A report asked for what the run directory does not keep (per-second windows past the
    /// seconds a long run keeps, more windows than a table holds).
    #[error("{0}")]
    Cannot(String),
}
