//! [`Remote`]: a run carried out by generators elsewhere (the agents of [`crate::dist`]) rather
//! than by this process's engine. The run itself does not change: the same outputs, thresholds
//! and stop conditions take the merged seconds the remote reports, as they take the engine's.

use crate::engine::Outcome;
use crate::plan::Plan;
use crate::record::Interval;
use crate::rundir::{reader, RunMeta};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a remote reports as its run goes, in order.
#[derive(Debug)]
pub(crate) enum Report {
    /// One more merged second, numbered from 0 as the engine numbers its own.
    Interval(Box<Interval>),
    /// The load begins now (the generators' common start): the run stamps its start and tells
    /// its outputs ([`super::Output::begins`]).
    Began(std::time::SystemTime),
    /// One generator's own interval, before the merge: agent `agent` (its directory name under
    /// the run's `agents/`), its Total, scenario counts and users ([`super::Output::part_interval`]).
    Part { agent: usize, name: String, interval: Box<Interval> },
    /// Something for the user (an agent lost, one lagging); the run tells its outputs.
    Notice(String),
    /// Every generator has ended its part: the seconds still to come end the run, and a goal
    /// failing in them stops nothing (a local run's last interval carries `last`; merged
    /// seconds cannot know they are the last until every part has ended).
    Ended,
    /// The generators carrying the run out, `of` in all and `lost` of them lost so far; the run
    /// tells its outputs ([`super::Output::generators`]).
    Generators { of: usize, lost: usize },
}

/// The run's three signals, as [`crate::engine::run`] takes them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Signals {
    /// An interrupt: every generator stops, requests in flight get their graceful stop.
    pub shutdown: CancellationToken,
    /// A second interrupt: the graceful stop is cut short.
    pub abort: CancellationToken,
    /// A goal failed live or a stop condition held: every generator ends its part as a run that
    /// ends (not an interrupt).
    pub stop: CancellationToken,
}

/// How a remote run ended: its outcome as the engine's would be, and the merged run as the
/// generators' own facts make it (each part's `meta.json`, the merged summary).
pub(crate) struct RemoteEnd {
    pub outcome: Outcome,
    pub merged: reader::Run,
    /// What of the run's results is incomplete (an agent lost, a results file not written):
    /// the run reports them as it reports its outputs' failures.
    pub failures: Vec<super::Failure>,
}

/// Generators elsewhere that run a plan together and report its merged seconds.
pub(crate) trait Remote: Send {
    /// Runs `plan` (whose run's facts at the start are `meta`) until it ends or `signals` stop
    /// it, sending every merged second (and what the user should hear) into `reports`; the
    /// run's loop ends when the sender is dropped.
    fn execute(
        self: Box<Self>,
        plan: Arc<Plan>,
        meta: RunMeta,
        signals: Signals,
        reports: mpsc::UnboundedSender<Report>,
    ) -> Pin<Box<dyn Future<Output = Result<RemoteEnd, String>> + Send>>;
}
