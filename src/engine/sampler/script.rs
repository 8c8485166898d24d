//! A script sampler's sample (JSR223 and BeanShell samplers).

use super::super::response::{apply_rules, Response, Rules};
use super::super::scripting::{Exec, SampleState};
use super::super::user::VirtualUser;
use super::after::After;
use super::{How, Made};
use crate::plan::sampler::script::ScriptSample;
use crate::record::{ErrorKind, Sample};
use crate::script::Thrown;
use std::borrow::Cow;
use std::time::{Duration, Instant};

impl VirtualUser {
    /// A script sampler's sample; returns whether it failed.
    pub(in crate::engine) async fn script_sample(&mut self, x: &ScriptSample, start: Instant) -> bool {
        let ctx = self.ctx.clone();
        let el = &x.script.0;
        let env = self.script_env(el);
        let plan_label = x.label;
        let label = self.sample_label(plan_label);
        let mut state = SampleState {
            label: el.name.clone(),
            code: "200".into(),
            message: "OK".into(),
            success: true,
            data_type: "text".into(),
            sampler_data: if el.file_name.is_empty() { String::new() } else { format!("File: {}", el.file_name) },
            thread_name: env.thread_name.clone(),
            start_ms: ctx.shared.epoch_unix_ms + ctx.micros(start) / 1000,
            ..Default::default()
        };
        // Pre-processors' changes to this sampler: only its name means something here.
        self.session.sampler_edits = None;
        let mut exec = Exec {
            el,
            vars: &mut self.session.vars,
            env: &env,
            sample: Some(&mut state),
            sampler: None,
            assertion: None,
            prev: self.session.last_sample.as_deref_mut(),
            slept: Duration::ZERO,
        };
        let out = exec.run();
        let slept = exec.slept;
        // A script the run's stop interrupted was cut, as a sleep the stop cut is.
        let interrupted =
            self.script_wait(slept).await.is_err() || out.result.as_ref().is_err_and(Thrown::is_interrupt);
        match &out.result {
            Ok(v) => {
                if el.bean_shell {
                    // BeanShellSampler: the value is the data; the globals give code, message
                    // and success.
                    if !v.is_null() {
                        state.data = v.to_string().into_bytes();
                    }
                    let text = |n: &str, d: &str| out.global(n).map_or(d.to_string(), |v| v.to_string());
                    state.code = text("ResponseCode", "200");
                    state.message = text("ResponseMessage", "OK");
                    state.success = out.global("IsSuccess").is_some_and(|v| v.to_string() == "true");
                } else if !v.is_null() && state.data.is_empty() {
                    state.data = v.to_string().into_bytes();
                }
            }
            Err(e) => {
                state.success = false;
                state.code = "500".into();
                state.message = e.to_string();
            }
        }
        let end = Instant::now();
        state.elapsed_ms = end.saturating_duration_since(start).as_millis() as u64;
        state.end_ms = state.start_ms + state.elapsed_ms;
        state.bytes = state.data.len() as u64;
        let status = state.code.trim().parse::<u16>().unwrap_or(0);
        let error = if interrupted {
            Some(ErrorKind::Aborted)
        } else if state.success {
            None
        } else {
            Some(ErrorKind::Check(el.check_for(&state.message).0))
        };
        let after =
            After { extract: &x.after.extract, checks: &x.after.checks, scripts: &x.after.scripts, limit: u64::MAX };
        let rules = |this: &mut Self, state: &SampleState, rules: Rules<'_>| {
            let resp = Response::new(b"", &state.data, status);
            apply_rules(
                rules,
                &resp,
                state.sampler_data.as_bytes(),
                "",
                end - start,
                state.data.len() as u64,
                &mut this.session.vars,
            )
        };
        let sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: 0,
            connect_us: 0,
            bytes_sent: 0,
            bytes_received: 0,
            new_connection: false,
            error,
            in_total: true,
            upstream_us: None,
        };
        let (state, url) = (Some(state), Cow::Borrowed(""));
        let made = Made { sample, start, end, plan_label, status, state, url, before: &[], how: How::SCRIPT };
        self.finish(after, made, rules).await
    }
}
