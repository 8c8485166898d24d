//! A script sampler's sample (JSR223 and BeanShell samplers).

use super::super::response::{apply_rules, Response, Rules};
use super::super::scripting::{Exec, SampleState};
use super::super::user::VirtualUser;
use super::after::After;
use crate::plan::scripting::ScriptStep;
use crate::record::{ErrorKind, Sample};
use crate::script::Thrown;
use std::time::{Duration, Instant};

impl VirtualUser {
    /// A script sampler's sample; returns whether it failed.
    pub(in crate::engine) async fn script_sample(&mut self, x: &ScriptStep, start: Instant) -> bool {
        let ctx = self.ctx.clone();
        let el = &x.script.0;
        let env = self.script_env(el);
        let label = x.label.expect("a sampler has a label");
        let label = self.sample_label(label);
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
        self.sampler_edits = None;
        let mut exec = Exec {
            el,
            vars: &mut self.vars,
            env: &env,
            sample: Some(&mut state),
            sampler: None,
            assertion: None,
            prev: self.last_sample.as_deref_mut(),
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
        let after = After { extract: &x.extract, checks: &x.checks, scripts: &x.after, limit: u64::MAX };
        let rules = |this: &mut Self, state: &SampleState, rules: Rules<'_>| {
            let resp = Response::new(b"", &state.data, status);
            apply_rules(
                rules,
                &resp,
                state.sampler_data.as_bytes(),
                "",
                end - start,
                state.data.len() as u64,
                &mut this.vars,
            )
        };
        let error = self.after_in_order(after, &mut state, error, rules).await;
        let mut sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: state.latency_ms * 1000,
            connect_us: state.connect_ms * 1000,
            bytes_sent: state.sent_bytes,
            bytes_received: state.bytes,
            new_connection: false,
            error,
            in_total: true,
            upstream_us: None,
        };
        if let Some(top) = self.recorded_as() {
            sample.in_total = top;
            ctx.recorder.record(&sample);
        }
        if ctx.shared.sample_log.is_some() {
            let said = Some(Box::new((state.code.clone(), state.message.clone())));
            self.log_row_saying(&sample, status, String::new(), said);
        }
        self.add_to_groups(&sample, start, end, status);
        self.keep_last(state, error.is_none());
        error.is_some()
    }
}
