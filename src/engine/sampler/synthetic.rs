//! The sample step without a connection (Debug, Dummy and Java test samplers): it waits as its
//! sampler does, makes up its response, runs the extractors and assertions of its scope on it,
//! and records one sample, in the transaction groups around it as a request's.

use super::super::response::{apply_rules, reads_request_data, Response, Rules};
use super::super::scripting::SampleState;
use super::super::user::VirtualUser;
use super::after::After;
use super::{How, Made};
use crate::plan::sampler::synthetic::{alphanumeric_cmp, java_long_decode, Elapsed, Synthetic, SyntheticBody};
use crate::plan::VarId;
use crate::record::{ErrorKind, Sample};
use std::borrow::Cow;
use std::time::{Duration, Instant};

/// A made-up response's body is read in full by extractors and assertions.
const NO_LIMIT: u64 = u64::MAX;

impl VirtualUser {
    /// Runs one synthetic sample starting at `start`; returns whether it failed.
    pub(in crate::engine) async fn synthetic(&mut self, x: &Synthetic, start: Instant) -> bool {
        let ctx = self.ctx.clone();
        let (elapsed, wait) = match &x.elapsed {
            Elapsed::Fixed { ms, wait } => {
                let ms = ms.render_string(&mut self.session.vars).trim().parse::<u64>().unwrap_or(0);
                (Duration::from_millis(ms), *wait)
            }
            Elapsed::Sleep { time, mask, default_time, default_mask } => {
                let time = java_long_decode(time.render_string(&mut self.session.vars).trim()).unwrap_or(*default_time);
                let mask = java_long_decode(mask.render_string(&mut self.session.vars).trim()).unwrap_or(*default_mask);
                let now_ms = ctx.shared.epoch_unix_ms as i64 + ctx.micros(start) as i64 / 1000;
                (Duration::from_millis(sleep_ms(time, mask, now_ms)), true)
            }
        };
        // The plan's figure, at most what a duration can be: `start + elapsed` must not overflow.
        let elapsed = elapsed.min(crate::plan::MAX_DURATION);
        let mut interrupted = false;
        let end = if wait && !elapsed.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(elapsed) => {}
                // The run abandons what is under way: the sleep is interrupted, and the sample
                // fails, as JMeter's interrupted sampler.
                _ = self.abandon.cancelled() => interrupted = true,
            }
            Instant::now()
        } else {
            start + elapsed
        };
        let body = match &x.body {
            SyntheticBody::Text(t) => t.render_string(&mut self.session.vars),
            SyntheticBody::Debug { variables, properties } => self.debug_body(*variables, properties.as_deref()),
        };
        let code = x.code.render_string(&mut self.session.vars);
        let status = code.trim().parse::<u16>().unwrap_or(0);
        let ok = x.success.render_string(&mut self.session.vars).trim().eq_ignore_ascii_case(x.success_word);
        let error = if interrupted {
            Some(ErrorKind::Aborted)
        } else if ok {
            None
        } else {
            Some(ErrorKind::Check(x.failure.0))
        };
        let data = match &x.data {
            Some(t) if !x.after.scripts.is_empty() || self.session.keep_prev || reads_request_data(&x.after.checks) => {
                t.render_string(&mut self.session.vars)
            }
            _ => String::new(),
        };
        let ms = |t: &Option<crate::plan::Template>, vars: &mut crate::engine::session::UserVars| {
            let ms = t.as_ref().map_or(0, |t| t.render_string(vars).trim().parse::<u64>().unwrap_or(0));
            ms.min(crate::plan::MAX_DURATION.as_millis() as u64) * 1000
        };
        // The sampler's fields are rendered as it samples, before what follows it (as JMeter's).
        let sent = x.sent.as_ref().map_or(0, |t| t.render_string(&mut self.session.vars).encode_utf16().count() as u64);
        let label = self.sample_label(x.label);
        let sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: ms(&x.latency, &mut self.session.vars),
            connect_us: ms(&x.connect, &mut self.session.vars),
            bytes_sent: sent,
            bytes_received: body.len() as u64,
            new_connection: false,
            error,
            in_total: true,
            upstream_us: None,
        };
        // The sample as scripts see it: its script post-processors' and assertions' `prev`
        // (they may change its success, code and label), and the next pre-processors'.
        let scripted = !x.after.scripts.is_empty() || self.session.keep_prev;
        let (state, data) = if scripted {
            let state = SampleState {
                label: self.label_name(label),
                code: code.clone(),
                message: if error.is_none() { "OK".into() } else { String::new() },
                data: body.clone().into_bytes(),
                data_type: "text".into(),
                sampler_data: data,
                elapsed_ms: elapsed.as_millis() as u64,
                bytes: body.len() as u64,
                sent_bytes: sent,
                start_ms: ctx.shared.epoch_unix_ms + ctx.micros(start) / 1000,
                end_ms: ctx.shared.epoch_unix_ms + ctx.micros(end) / 1000,
                ..Default::default()
            };
            (Some(state), String::new())
        } else {
            (None, data)
        };
        let rules = |this: &mut Self, state: &SampleState, rules: Rules<'_>| {
            let (body, data) = if scripted {
                (&state.data[..], state.sampler_data.as_bytes())
            } else {
                (body.as_bytes(), data.as_bytes())
            };
            let resp = Response::new(b"", body, status);
            apply_rules(rules, &resp, data, "", elapsed, body.len() as u64, &mut this.session.vars)
        };
        let after =
            After { extract: &x.after.extract, checks: &x.after.checks, scripts: &x.after.scripts, limit: NO_LIMIT };
        let url = Cow::Borrowed("");
        let made =
            Made { sample, start, end, plan_label: x.label, status, state, url, before: &[], how: How::SYNTHETIC };
        self.finish(after, made, rules).await
    }

    /// The Debug Sampler's response: the user's variables then the plan's properties, each
    /// section `Title:` then `name=value` lines in JMeter's order, then an empty line. An
    /// unset variable is not listed, as JMeter lists only the variables a thread holds.
    fn debug_body(&self, variables: bool, properties: Option<&str>) -> String {
        let mut out = String::new();
        if variables {
            out.push_str("JMeterVariables:\n");
            let names = &self.ctx.shared.var_names;
            let mut set: Vec<(&str, &str)> = names
                .iter()
                .enumerate()
                .filter(|(i, n)| {
                    let id = VarId(*i as u32);
                    !self.session.vars.is_unset(id)
                        && !crate::engine::session::is_reference_to(self.session.vars.get(id), n)
                })
                .map(|(i, n)| (n.as_str(), self.session.vars.get(VarId(i as u32))))
                .collect();
            set.sort_by(|a, b| alphanumeric_cmp(a.0, b.0));
            for (n, v) in set {
                out.push_str(n);
                out.push('=');
                out.push_str(v);
                out.push('\n');
            }
            out.push('\n');
        }
        if let Some(p) = properties {
            out.push_str("JMeterProperties:\n");
            out.push_str(p);
            out.push('\n');
        }
        out
    }
}

/// JavaTest's and SleepTest's sleep: `time + now_ms % mask` when both are above 0, else `time`
/// (none when not above 0).
fn sleep_ms(time: i64, mask: i64, now_ms: i64) -> u64 {
    let ms = if time > 0 && mask > 0 { time.saturating_add(now_ms % mask) } else { time };
    ms.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_test_sleeps_as_jmeter() {
        assert_eq!(sleep_ms(5, 0x03, 1_000_001), 7);
        assert_eq!(sleep_ms(100, 0xff, 255 * 4 + 10), 110);
        assert_eq!(sleep_ms(0, 0xff, 12), 0);
        assert_eq!(sleep_ms(50, 0, 12), 50);
        assert_eq!(sleep_ms(-5, 3, 12), 0);
        assert_eq!(sleep_ms(i64::MAX, 3, 12), i64::MAX as u64);
    }
}
