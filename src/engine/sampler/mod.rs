//! The samplers: each kind's step makes a sample (an HTTP request, a script's, a made-up one, a
//! raw socket's, a WebSocket exchange, an access log's entry), then finishes it.

mod accesslog;
mod after;
mod http;
mod script;
mod socket;
mod synthetic;
mod websocket;

pub(super) use after::After;
pub(super) use http::off_the_worker;
pub(super) use socket::Sockets;
pub(super) use websocket::WsConn;

use super::response::Rules;
use super::scripting::SampleState;
use super::user::VirtualUser;
use crate::plan::LabelId;
use crate::record::{ErrorKind, Sample, SampleRow};
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A sample as its sampler made it, before what follows it: what [`VirtualUser::finish`] takes.
pub(in crate::engine) struct Made<'a> {
    /// Its figures, under its label as rendered; `error` is the sampler's verdict.
    pub(in crate::engine) sample: Sample,
    pub(in crate::engine) start: Instant,
    pub(in crate::engine) end: Instant,
    /// The label as the plan writes it: a script's `setSampleLabel` names a run-time label of it.
    pub(in crate::engine) plan_label: LabelId,
    /// The response code in the results file and for the transactions around it.
    pub(in crate::engine) status: u16,
    /// The sample as scripts see it (`prev`), made when its scripts or the user's next ones
    /// read it.
    pub(in crate::engine) state: Option<SampleState>,
    /// Its URL in the results file.
    pub(in crate::engine) url: Cow<'a, str>,
    /// Rows of its own that come before it in the results (a WebSocket sampler's sub-results).
    pub(in crate::engine) before: &'a [Sample],
    pub(in crate::engine) how: How,
}

/// How a kind's sample goes through what follows it, each as JMeter's sampler of that kind.
#[derive(Clone, Copy)]
pub(in crate::engine) struct How {
    /// Its extractors and checks run in JMeter's order even without scripts (post-processors,
    /// then assertions, in runs of their own); else, without scripts, in one go.
    pub(in crate::engine) in_order: bool,
    /// A script's `prev.setSampleLabel` records it under that name.
    pub(in crate::engine) relabel: bool,
    /// Its code after the scripts is its status.
    pub(in crate::engine) recode: bool,
    /// Its row in the results file always gives its code and message, not only those its
    /// scripts changed.
    pub(in crate::engine) says: bool,
    /// Its latency, connect time and bytes are its state's after the scripts (a script
    /// sampler's script and post-processors set them).
    pub(in crate::engine) measured_by_scripts: bool,
}

impl How {
    pub(in crate::engine) const SYNTHETIC: How =
        How { in_order: false, relabel: true, recode: true, says: false, measured_by_scripts: false };
    pub(in crate::engine) const SCRIPT: How =
        How { in_order: true, relabel: false, recode: false, says: true, measured_by_scripts: true };
    pub(in crate::engine) const SOCKET: How =
        How { in_order: false, relabel: true, recode: true, says: true, measured_by_scripts: false };
    pub(in crate::engine) const WEBSOCKET: How =
        How { in_order: false, relabel: true, recode: false, says: false, measured_by_scripts: false };
    /// A parent sample (a Parallel Controller's): nothing follows it.
    pub(in crate::engine) const PARENT: How =
        How { in_order: false, relabel: false, recode: false, says: false, measured_by_scripts: false };
}

impl VirtualUser {
    /// Finishes a sample of any kind, in JMeter's order: what follows it (`after`: extractors,
    /// checks, script post-processors, assertions and listeners; `rules` applies a run of
    /// extractors and checks to its response), then its row in the metrics and the results
    /// file, its part of the transactions around it, and the user's `prev`. Returns whether
    /// it failed. (The HTTP sampler, whose sample may be a redirect chain or a page with its
    /// resources, goes through the same two halves: [`Self::after_part`] and
    /// [`Self::record_sample`].)
    pub(in crate::engine) async fn finish(
        &mut self,
        after: After<'_>,
        mut made: Made<'_>,
        mut rules: impl FnMut(&mut Self, &SampleState, Rules<'_>) -> Option<ErrorKind>,
    ) -> bool {
        let (error, note) = self.after_part(after, &mut made, &mut rules).await;
        made.sample.error = error;
        let (start, end, status) = (made.start, made.end, made.status);
        let top = self.recorded_as();
        for d in made.before {
            if top.is_some() {
                self.ctx.recorder.record(d);
            }
            self.log_row(d, 0, String::new());
        }
        let url = made.url;
        self.record_sample(&mut made.sample, top, status, || url.into_owned(), note);
        self.add_to_groups(&made.sample, start, end, status);
        if let Some(state) = made.state {
            self.keep_last(state, error.is_none());
        }
        error.is_some()
    }

    /// What follows a sample: its error after them, and the code and message its row in the
    /// results file gives (see [`How::says`]).
    pub(in crate::engine) async fn after_part(
        &mut self,
        after: After<'_>,
        made: &mut Made<'_>,
        mut rules: impl FnMut(&mut Self, &SampleState, Rules<'_>) -> Option<ErrorKind>,
    ) -> (Option<ErrorKind>, Option<Box<(String, String)>>) {
        let mut error = made.sample.error;
        let mut note = None;
        match made.state.as_mut() {
            Some(state) if made.how.in_order => {
                error = self.after_in_order(after, state, error, &mut rules).await;
            }
            Some(state) if !after.scripts.is_empty() => {
                let label = &mut made.sample.label;
                if made.how.relabel {
                    (error, note) = self.scripts_after(after, state, error, label, made.plan_label, &mut rules).await;
                } else {
                    error = self.after_in_order(after, state, error, &mut rules).await;
                }
                if made.how.recode {
                    made.status = state.code.trim().parse::<u16>().unwrap_or(0);
                }
            }
            state => {
                if !after.extract.is_empty() || !after.checks.is_empty() {
                    let all = Rules { extract: after.extract, checks: after.checks, limit: after.limit };
                    let none = SampleState::default();
                    error = error.or(rules(self, state.map_or(&none, |s| &*s), all));
                }
            }
        }
        if let Some(state) = made.state.as_ref() {
            if made.how.says && self.ctx.shared.sample_log.is_some() {
                note = Some(Box::new((state.code.clone(), state.message.clone())));
            }
            if made.how.measured_by_scripts {
                let s = &mut made.sample;
                (s.ttfb_us, s.connect_us) = (state.latency_ms * 1000, state.connect_ms * 1000);
                (s.bytes_sent, s.bytes_received) = (state.sent_bytes, state.bytes);
            }
        }
        (error, note)
    }

    /// Records a finished sample: in the metrics unless it is only part of a parent sample
    /// (`top`, from [`Self::recorded_as`]: then it counts in the total as that says), and as a
    /// row of the results file when there is one (`url`, and `note` the code and message a
    /// script set, made only then: formatting them costs allocations on every sample).
    #[inline]
    pub(in crate::engine) fn record_sample(
        &self,
        sample: &mut Sample,
        top: Option<bool>,
        status: u16,
        url: impl FnOnce() -> String,
        note: Option<Box<(String, String)>>,
    ) {
        sample.in_total &= top.unwrap_or(false);
        if top.is_some() {
            self.ctx.recorder.record(sample);
        }
        if let Some(log) = &self.ctx.shared.sample_log {
            let mut row = self.sample_row(sample, status, url());
            row.code_message = note;
            let _ = log.send(row);
        }
    }

    /// Sends a sample to the per-sample log (the JTL file), when there is one.
    pub(in crate::engine) fn log_row(&self, sample: &Sample, status: u16, url: String) {
        self.log_row_saying(sample, status, url, None);
    }

    /// [`Self::log_row`] with the response code and message a script set, when it set them.
    pub(in crate::engine) fn log_row_saying(
        &self,
        sample: &Sample,
        status: u16,
        url: String,
        code_message: Option<Box<(String, String)>>,
    ) {
        if let Some(log) = &self.ctx.shared.sample_log {
            let mut row = self.sample_row(sample, status, url);
            row.code_message = code_message;
            let _ = log.send(row);
        }
    }

    /// The results-file row of a sample.
    pub(in crate::engine) fn sample_row(&self, sample: &Sample, status: u16, url: String) -> SampleRow {
        let ctx = &self.ctx;
        SampleRow {
            timestamp_ms: ctx.shared.epoch_unix_ms + sample.start_us / 1000,
            // Whole ms as JMeter writes them, rounded to the nearest (not cut down).
            elapsed_ms: (sample.elapsed_us() + 500) / 1000,
            label: sample.label.0,
            // A name rendered at run time is not in the plan's list.
            // (No lock for the plan's own labels.)
            name: ctx.shared.run_labels.name(sample.label),
            status,
            error: sample.error,
            scenario: ctx.index,
            user: self.session.vars.thread_num,
            bytes: sample.bytes_received,
            sent_bytes: sample.bytes_sent,
            group_users: ctx.active.load(Ordering::Relaxed),
            all_users: ctx.shared.active_all.load(Ordering::Relaxed),
            url,
            latency_ms: (sample.ttfb_us + 500) / 1000,
            connect_ms: (sample.connect_us + 500) / 1000,
            refused_url: None,
            code_message: None,
        }
    }
}
