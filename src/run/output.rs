//! [`Output`]: what consumes a run as it goes — its start, one [`Interval`] per second, and its
//! end — and, when it asks, one row per sample. The run directory, the progress line and the
//! JMeter results file (JTL) are outputs; a metrics exporter or a sweep's collector is one more.

use crate::engine::Outcome;
use crate::plan::Plan;
use crate::record::{Interval, SampleRow};
use crate::rundir::{RunMeta, Summary};

/// Why an output could not do its part, in its own words (it names the file it could not write).
pub type OutputError = Box<dyn std::error::Error + Send + Sync>;

/// Where an output that asked for per-sample rows gets them. The engine sends into it from its
/// workers, so the receiving end must drain it on a thread of its own: the load never waits
/// for a consumer.
pub type SampleSender = std::sync::mpsc::Sender<SampleRow>;

/// What an output learns when the run starts: the plan and the run's facts so far.
#[non_exhaustive]
pub struct Start<'a> {
    /// The plan being run.
    pub plan: &'a Plan,
    /// Status `running`; labels in `LabelId` order (past the label cap, the overflow row last).
    pub meta: &'a RunMeta,
}

/// What an output learns when the run ends.
#[non_exhaustive]
pub struct End<'a> {
    /// The final facts: status `completed` or `interrupted`, end time, duration, generator usage.
    pub meta: &'a RunMeta,
    /// The sum of every interval, with the thresholds judged.
    pub summary: &'a Summary,
    /// How the run ended.
    pub outcome: &'a Outcome,
}

/// One consumer of a run. The run calls [`start`](Output::start) once, then
/// [`interval`](Output::interval) for every interval in order (the last has `last == true`), then
/// [`finish`](Output::finish) once, all from the task that runs the plan: keep each call short
/// (a flushed append, a redraw), and move slow work (a network push) to a task of its own.
///
/// The core is three methods every output writes: [`name`](Output::name),
/// [`interval`](Output::interval) and [`finish`](Output::finish). The others are optional, in
/// three groups, each with a default that does nothing: the run's start
/// ([`start`](Output::start), [`begins`](Output::begins)); what the run streams to an output
/// that asks ([`sample_rows`](Output::sample_rows), [`log`](Output::log)); and what an output
/// that shows the run may say ([`notice`](Output::notice), [`generators`](Output::generators),
/// [`part_interval`](Output::part_interval)). One trait rather than several, so that a run holds
/// its outputs as one list and an output takes up an optional part by writing one method.
///
/// An output that fails while the run goes is told nothing more: the run keeps measuring, tells
/// the other outputs with a [`notice`](Output::notice), and reports the failure in
/// [`RunResult::failures`](super::RunResult::failures).
pub trait Output: Send {
    // The core: what every output writes.

    /// What this output writes, for messages: "the {name} is incomplete".
    fn name(&self) -> &str;

    /// One more interval of the run.
    fn interval(&mut self, interval: &Interval) -> Result<(), OutputError>;

    /// The run has ended and every interval was handed over.
    fn finish(&mut self, end: &End<'_>) -> Result<(), OutputError>;

    // Optional: the run's start.

    /// The run is about to start. An error here stops the run before anything is sent.
    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        let _ = start;
        Ok(())
    }

    /// The load begins now, after a wait for a common start (`--start-at`): `meta` has the
    /// start as it really was. Not called for a run that starts at once.
    fn begins(&mut self, meta: &RunMeta) -> Result<(), OutputError> {
        let _ = meta;
        Ok(())
    }

    // Optional: what the run streams to an output that asks.

    /// Asked once, after [`start`](Output::start): a sender for a row per sample, or `None` (the
    /// default) when this output does not want them. Rows are made only when someone asks.
    fn sample_rows(&mut self) -> Option<SampleSender> {
        None
    }

    /// Lines of the run's script log as they come: script elements' `log.info`, `println` and
    /// exceptions, template functions' `__log` (JMeter writes them to `jmeter.log`), one line
    /// each, secrets already masked. The run directory keeps them (`scripts.log`); the default
    /// ignores them (the progress line does not print them: a script that logs every iteration
    /// would bury it).
    fn log(&mut self, lines: &[String]) {
        let _ = lines;
    }

    // Optional: what an output that shows the run may say.

    /// Something the user should hear about during the run (a warning, another output's
    /// failure). Outputs that show things (the progress line) show it; the default ignores it.
    fn notice(&mut self, text: &str) {
        let _ = text;
    }

    /// A run on several generators (agents): `of` of them, `lost` lost so far (the numbers
    /// still come from the others). Outputs that show the run (the progress line) say it.
    fn generators(&mut self, of: usize, lost: usize) {
        let _ = (of, lost);
    }

    /// One more interval of one generator of a run on several, as it came from agent `agent`
    /// (0-based; `name` is its directory under the run's `agents/`, `1-HOST`), before the merge
    /// that [`interval`](Output::interval) hands over. It carries the part's Total, scenario
    /// counts and users, not its labels (per label, the merged run is the one to read). Outputs
    /// that show each generator (an exporter's per-agent series) take it; the default ignores it.
    fn part_interval(&mut self, agent: usize, name: &str, interval: &Interval) {
        let _ = (agent, name, interval);
    }
}

/// An output that failed, and why.
#[derive(Debug, thiserror::Error)]
#[error("the {output} is incomplete: {error}")]
pub struct Failure {
    /// The output's [`name`](Output::name).
    pub output: String,
    /// Why it failed.
    pub error: OutputError,
}

/// Hands every row the engine sends to each of several outputs that asked for rows. With one
/// (the usual case) the engine gets that output's sender itself, and no thread is spawned.
pub(super) fn fan_out(mut senders: Vec<SampleSender>) -> Option<SampleSender> {
    match senders.len() {
        0 => None,
        1 => senders.pop(),
        _ => {
            let (tx, rx) = std::sync::mpsc::channel::<SampleRow>();
            std::thread::spawn(move || {
                for row in rx {
                    // A consumer that hung up is done; the others still get their rows.
                    senders.retain(|s| s.send(row.clone()).is_ok());
                }
            });
            Some(tx)
        }
    }
}
