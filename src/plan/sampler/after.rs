//! What every sampler does with its sample once it is made, whatever the protocol: the
//! extractors, checks and script elements of its scope, and what the user does when the sample
//! fails. Held once, as [`After`], in each sampler kind; the engine's one finish path reads it.
//! [`StopKind`] lives here, not in `flow`, so the sampler models name nothing of the flow
//! (`flow` names them: a sample is a step).

use super::http::{Check, Extractor};
use super::script::ScriptRef;
use serde::Serialize;

/// The after-sample part of a sampler: its extractors and assertions, and its script
/// post-processors, assertions and listeners (in tree order), run on the sample in JMeter's
/// order (see `ScriptEl::follows`) before it is recorded; then the failure policy.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub(crate) struct After {
    pub extract: Vec<Extractor>,
    pub checks: Vec<Check>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<ScriptRef>,
    /// What the user does after this sample fails, beside its scenario's policy (a Result
    /// Status Action Handler in its scope).
    #[serde(skip_serializing_if = "StopKind::is_continue")]
    pub on_error: StopKind,
}

/// What a stop ends; also what a scenario does after a failed sample.
/// Ordered by how much it ends: a failed sample does the most its policies ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StopKind {
    /// Nothing: go on (only as a scenario's reaction to a failed sample).
    #[default]
    Continue,
    /// The rest of the innermost loop's pass is skipped, as `continue` (JMeter's "start next
    /// iteration of current loop"); outside any loop, the thread's next iteration.
    ContinueLoop,
    /// The innermost loop ends, as `break`; outside any loop, the user stops (JMeter breaks
    /// the thread group's loop).
    BreakLoop,
    /// The rest of this iteration is skipped; the user starts its next one.
    NextIteration,
    /// The user stops.
    User,
    /// The whole run stops.
    Run,
}

impl StopKind {
    pub(crate) fn is_continue(&self) -> bool {
        *self == StopKind::Continue
    }
}
