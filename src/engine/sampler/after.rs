//! What follows a sample: its extractors, checks and script post-processors, assertions and
//! listeners, in JMeter's order, and the sample kept as the next scripts' `prev`.

use super::super::response::Rules;
use super::super::scripting::{AssertState, Exec, SampleState};
use super::super::user::VirtualUser;
use crate::plan::sampler::script::{Place, ScriptRef};
use crate::record::ErrorKind;
use std::time::Duration;

impl VirtualUser {
    /// Keeps `state` as the user's last sample (the next pre-processors' `prev`), when its
    /// program has scripts that read it.
    pub(in crate::engine) fn keep_last(&mut self, mut state: SampleState, success: bool) {
        if self.session.keep_prev {
            state.success = success;
            match &mut self.session.last_sample {
                Some(b) => **b = state,
                None => self.session.last_sample = Some(Box::new(state)),
            }
        }
    }

    /// [`Self::after_in_order`] for a sampler's sample: returns its error after them, and its
    /// code and message when scripts changed them (what the results file says).
    /// `prev.setSampleLabel` reports the sample under that name, as a run-time label of
    /// `static_label`.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::engine) async fn scripts_after(
        &mut self,
        after: After<'_>,
        state: &mut SampleState,
        error: Option<ErrorKind>,
        label: &mut crate::plan::LabelId,
        static_label: crate::plan::LabelId,
        rules: impl FnMut(&mut Self, &SampleState, Rules<'_>) -> Option<ErrorKind>,
    ) -> (Option<ErrorKind>, Option<Box<(String, String)>>) {
        let before = (state.label.clone(), state.code.clone(), state.message.clone());
        let error = self.after_in_order(after, state, error, rules).await;
        if state.label != before.0 {
            *label = self.ctx.shared.run_labels.intern(&state.label, static_label).unwrap_or(*label);
        }
        let changed = (&state.code, &state.message) != (&before.1, &before.2);
        (error, changed.then(|| Box::new((state.code.clone(), state.message.clone()))))
    }

    /// Runs what follows a sample in JMeter's order (`TestCompiler` gathers each kind outer
    /// scope first, each scope in tree order): every post-processor, extractors and scripts as
    /// the tree interleaves them; then every assertion, checks and scripts likewise; then the
    /// script listeners. `rules` applies a run of extractors and checks to the sample's
    /// response. Returns the sample's error after them all.
    pub(in crate::engine) async fn after_in_order(
        &mut self,
        after: After<'_>,
        state: &mut SampleState,
        mut error: Option<ErrorKind>,
        mut rules: impl FnMut(&mut Self, &SampleState, Rules<'_>) -> Option<ErrorKind>,
    ) -> Option<ErrorKind> {
        for step in after.order() {
            match step {
                Next::Rules(extract, checks) => {
                    let run = Rules { extract, checks, limit: after.limit };
                    error = error.or(rules(self, state, run));
                }
                Next::Script(s) => error = self.after_sample(std::slice::from_ref(s), state, error).await,
            }
        }
        error
    }

    /// Runs the script post-processors, assertions and listeners of a sample on it, in tree
    /// order, and returns its error after them: a post-processor may make it fail or succeed,
    /// an assertion fails it with its message (counted per message), a listener changes
    /// nothing recorded.
    pub(in crate::engine) async fn after_sample(
        &mut self,
        scripts: &[ScriptRef],
        state: &mut SampleState,
        error: Option<ErrorKind>,
    ) -> Option<ErrorKind> {
        if scripts.is_empty() {
            return error;
        }
        let env = self.script_env(&scripts[0].0);
        state.success = error.is_none();
        state.thread_name = env.thread_name.clone();
        let mut failed_by: Option<ErrorKind> = None;
        let mut slept = Duration::ZERO;
        for s in scripts {
            let el = &s.0;
            let was_ok = state.success;
            match el.place {
                Place::Post => {
                    let mut exec = Exec {
                        el,
                        vars: &mut self.session.vars,
                        env: &env,
                        sample: Some(state),
                        sampler: None,
                        assertion: None,
                        prev: None,
                        slept: Duration::ZERO,
                    };
                    let _ = exec.run();
                    slept += exec.slept;
                    if was_ok && !state.success {
                        failed_by = Some(ErrorKind::Check(el.failure.0));
                    }
                }
                Place::Assertion => {
                    let mut a = AssertState::default();
                    let mut exec = Exec {
                        el,
                        vars: &mut self.session.vars,
                        env: &env,
                        sample: Some(state),
                        sampler: None,
                        assertion: Some(&mut a),
                        prev: None,
                        slept: Duration::ZERO,
                    };
                    let out = exec.run();
                    slept += exec.slept;
                    let mut counted = None;
                    match &out.result {
                        Err(e) => {
                            a.failure = true;
                            a.message = e.to_string();
                            counted = Some(el.check_for_thrown(&e.message));
                        }
                        Ok(_) if el.bean_shell => {
                            if let Some(f) = out.global("Failure") {
                                a.failure |= f.to_string() == "true";
                            }
                            if let Some(m) = out.global("FailureMessage").filter(|m| !m.is_null()) {
                                if !m.to_string().is_empty() {
                                    a.message = m.to_string();
                                }
                            }
                        }
                        Ok(_) => {}
                    }
                    if a.failure {
                        state.success = false;
                        let id = counted.unwrap_or_else(|| el.check_for(&a.message));
                        failed_by = failed_by.or(Some(ErrorKind::Check(id.0)));
                    }
                }
                Place::Listener => {
                    let mut copy = state.clone();
                    let mut exec = Exec {
                        el,
                        vars: &mut self.session.vars,
                        env: &env,
                        sample: Some(&mut copy),
                        sampler: None,
                        assertion: None,
                        prev: None,
                        slept: Duration::ZERO,
                    };
                    let _ = exec.run();
                    slept += exec.slept;
                }
                Place::Sampler | Place::Pre | Place::Timer => {}
            }
        }
        let _ = self.script_wait(slept).await;
        // A sample that failed before the scripts keeps its error (the first failure is the
        // one counted); one they failed counts as the assertion's message, or the element's.
        match (error, state.success) {
            (Some(e), false) => Some(e),
            (None, false) => failed_by.or(Some(ErrorKind::Check(scripts[0].0.failure.0))),
            (_, true) => None,
        }
    }
}

/// What a sampler's sample goes through after the sampler: its extractors, checks and script
/// post-processors, assertions and listeners.
#[derive(Clone, Copy)]
pub(in crate::engine) struct After<'a> {
    pub(in crate::engine) extract: &'a [crate::plan::Extractor],
    pub(in crate::engine) checks: &'a [crate::plan::Check],
    pub(in crate::engine) scripts: &'a [ScriptRef],
    /// The most of a decoded body the extractors and checks read.
    pub(in crate::engine) limit: u64,
}

/// One run of [`After::order`].
#[derive(Debug)]
pub(in crate::engine) enum Next<'a> {
    Rules(&'a [crate::plan::Extractor], &'a [crate::plan::Check]),
    Script(&'a ScriptRef),
}

impl<'a> After<'a> {
    /// Nothing after a sample (a parent sample's).
    pub(in crate::engine) const NONE: After<'static> = After { extract: &[], checks: &[], scripts: &[], limit: 0 };

    /// The order JMeter runs them in: post-processors, then assertions (each kind
    /// interleaved by [`crate::plan::sampler::script::ScriptEl::follows`]), then listeners.
    pub(in crate::engine) fn order(&self) -> Vec<Next<'a>> {
        let (extract, checks) = (self.extract, self.checks);
        let mut out = Vec::new();
        let phases: [(Place, usize); 2] = [(Place::Post, self.extract.len()), (Place::Assertion, self.checks.len())];
        for (place, n) in phases {
            let mut done = 0;
            let mut rules = |upto: usize, out: &mut Vec<Next<'a>>| {
                if upto > done {
                    out.push(match place {
                        Place::Post => Next::Rules(&extract[done..upto], &[]),
                        _ => Next::Rules(&[], &checks[done..upto]),
                    });
                    done = upto;
                }
            };
            for s in self.scripts.iter().filter(|s| s.0.place == place) {
                rules(s.0.follows.min(n), &mut out);
                out.push(Next::Script(s));
            }
            rules(n, &mut out);
        }
        out.extend(self.scripts.iter().filter(|s| s.0.place == Place::Listener).map(Next::Script));
        out
    }
}
