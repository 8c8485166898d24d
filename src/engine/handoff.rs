//! One generator's part in the setup and teardown of a distributed run, which run once for the
//! whole run (see `crate::dist`): the first generator runs the setup scenarios whole, says the
//! properties they set, and runs teardown when told that every generator's main scenarios have
//! ended; the others skip both, and begin their main scenarios with those properties. A local
//! run has no handoff and runs every phase itself; nothing here touches a sample.

use crate::plan::{Phase, Plan};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// How one generator of a distributed run joins the others between the phases.
#[derive(Debug, Clone)]
pub(crate) struct Handoff {
    /// This generator runs the setup and teardown scenarios (whole, not its segment's share of
    /// their users); the others skip them.
    pub once: bool,
    /// What this generator says (the first one only).
    pub said: mpsc::UnboundedSender<Said>,
    /// What it hears from the run.
    pub heard: watch::Receiver<Heard>,
}

/// What the generator that runs setup and teardown says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Said {
    /// Its setup scenarios ended: the run's properties (JMeter's, `__setProperty`, `props.put`)
    /// as they stand, for the other generators.
    SetupEnded(Vec<(String, String)>),
    /// Its main scenarios ended: it waits to be told to run teardown.
    MainEnded,
}

/// What a generator has heard so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Heard {
    /// The properties setup set (the other generators begin their main scenarios with them).
    pub properties: Option<Vec<(String, String)>>,
    /// Every generator's main scenarios have ended: teardown may run.
    pub teardown: bool,
}

/// A wait before a phase, run beside the seconds as a step's scenarios are.
pub(super) type Wait = Pin<Box<dyn Future<Output = ()> + Send>>;

impl Handoff {
    /// Whether this generator runs `phase`'s scenarios at all.
    pub(super) fn runs(&self, phase: Phase) -> bool {
        self.once || phase == Phase::Main
    }

    /// What to do before `phase`: say setup ended (the first) or wait for its properties (the
    /// others) before the main scenarios, when the plan has setup scenarios; say the main ones
    /// ended and wait to be told to run teardown, when it has teardown scenarios. A plan with
    /// neither waits for nothing. A wait ends early when `stop` is cancelled (the caller then
    /// runs nothing more).
    pub(super) fn before(
        &self,
        phase: Phase,
        plan: &Plan,
        properties: &Arc<super::session::Globals>,
        stop: CancellationToken,
    ) -> Option<Wait> {
        let has = |p: Phase| plan.scenarios.iter().any(|s| s.phase == p);
        let mut heard = self.heard.clone();
        match phase {
            Phase::Main if has(Phase::Setup) && self.once => {
                let table = properties.properties.read().unwrap_or_else(|e| e.into_inner());
                let mut all: Vec<(String, String)> = table.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                all.sort();
                let _ = self.said.send(Said::SetupEnded(all));
                None
            }
            Phase::Main if has(Phase::Setup) => {
                let globals = properties.clone();
                Some(Box::pin(async move {
                    let got = tokio::select! {
                        h = heard.wait_for(|h| h.properties.is_some()) => h.ok().and_then(|h| h.properties.clone()),
                        _ = stop.cancelled() => None,
                    };
                    let mut table = globals.properties.write().unwrap_or_else(|e| e.into_inner());
                    table.extend(got.into_iter().flatten());
                }))
            }
            Phase::Teardown if has(Phase::Teardown) && self.once => {
                let _ = self.said.send(Said::MainEnded);
                Some(Box::pin(async move {
                    tokio::select! {
                        _ = heard.wait_for(|h| h.teardown) => {}
                        _ = stop.cancelled() => {}
                    }
                }))
            }
            _ => None,
        }
    }
}
