//! Script elements' steps: a script sampler's sample, a pre-processor (its changes to the
//! sampler are kept for the request that follows), a timer (its value is the delay), and the
//! post-processors, assertions and listeners that run on a sample before it is recorded.

use super::super::response::{apply_rules, Response, Rules};
use super::super::scripting::{AssertState, Env, Exec, SampleState};
use super::super::user::{IterEnd, VirtualUser};
use crate::plan::scripting::{Place, ScriptRef, ScriptStep};
use crate::record::{ErrorKind, Sample};
use crate::script::{Thrown, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

impl VirtualUser {
    /// What this user's scripts see of its thread (made once, on its first script); the run's
    /// properties get the plan's `-J` ones on the first script of the run.
    pub(in crate::engine) fn script_env(&mut self, el: &crate::plan::scripting::ScriptEl) -> Arc<Env> {
        if let Some(e) = &self.script_env {
            return e.clone();
        }
        let sh = &self.ctx.shared.scripts;
        sh.seeded.get_or_init(|| {
            let mut props = self.vars.globals.properties.write().unwrap_or_else(|e| e.into_inner());
            for (k, v) in el.properties.iter() {
                props.entry(k.clone()).or_insert_with(|| v.clone());
            }
        });
        let (group, threads) = sh.groups.get(self.ctx.index).cloned().unwrap_or_default();
        let thread_name = format!("{group} {}-{}", self.ctx.index + 1, self.vars.thread_num);
        self.vars.names = sh.names.clone();
        self.vars.thread_name_text = Some(thread_name.clone());
        let env = Arc::new(Env {
            thread_name,
            group,
            threads,
            base_dir: sh.base_dir.clone(),
            readable: sh.readable.clone(),
            writable: sh.writable.clone(),
            log: sh.log.clone(),
            stop: Some(super::super::scripting::Stop { scenario: self.ctx.clone(), until: self.stop_at }),
            cookie_manager: self.jar.is_some(),
        });
        self.script_env = Some(env.clone());
        env
    }

    /// Waits what a script slept; `Err` when the run stops meanwhile.
    async fn script_wait(&mut self, d: Duration) -> Result<(), IterEnd> {
        if d.is_zero() {
            return Ok(());
        }
        tokio::select! {
            _ = tokio::time::sleep(d) => Ok(()),
            _ = self.ctx.stop.cancelled() => Err(IterEnd::Cut),
        }
    }

    /// A script pre-processor or timer.
    pub(in crate::engine) async fn script_op(&mut self, x: &ScriptStep) -> Result<(), IterEnd> {
        let el = &x.script.0;
        let env = self.script_env(el);
        let none = crate::plan::scripting::SamplerInfo::default();
        let info = x.sampler.as_ref().unwrap_or(&none);
        let mut edits = self.sampler_edits.take().map(|b| *b).unwrap_or_default();
        let mut exec = Exec {
            el,
            vars: &mut self.vars,
            env: &env,
            sample: None,
            sampler: Some((info, &mut edits)),
            assertion: None,
            prev: self.last_sample.as_deref_mut(),
            slept: Duration::ZERO,
        };
        let out = exec.run();
        let slept = exec.slept;
        if !edits.cookies.is_empty() {
            let host = edits.domain.as_deref().or(info.http.as_ref().map(|h| h.domain.as_str())).unwrap_or("");
            if let Some(jar) = self.jar.as_mut() {
                for c in std::mem::take(&mut edits.cookies) {
                    store_script_cookie(jar, &c, host);
                }
            }
        }
        if !edits.is_empty() {
            self.sampler_edits = Some(Box::new(edits));
        }
        let mut wait = slept;
        if el.place == Place::Timer {
            // JSR223Timer: `Long.parseLong` of the value; BeanShellTimer: `Long.decode`; none,
            // or not a number, is no delay.
            let ms = match &out.result {
                Ok(v) if !v.is_null() => v
                    .as_i64()
                    .filter(|_| !matches!(v, Value::Double(_) | Value::Decimal(_)))
                    .or_else(|| v.to_string().trim().parse::<i64>().ok())
                    .unwrap_or(0),
                _ => 0,
            };
            wait = wait.saturating_add(Duration::from_millis(ms.max(0) as u64)).min(crate::plan::MAX_DURATION);
            if self.stop_at.is_some_and(|s| Instant::now() + wait > s) {
                return Err(IterEnd::Cut);
            }
        }
        self.script_wait(wait).await
    }

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

    /// Keeps `state` as the user's last sample (the next pre-processors' `prev`), when its
    /// program has scripts that read it.
    pub(in crate::engine) fn keep_last(&mut self, mut state: SampleState, success: bool) {
        if self.keep_prev {
            state.success = success;
            match &mut self.last_sample {
                Some(b) => **b = state,
                None => self.last_sample = Some(Box::new(state)),
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
                        vars: &mut self.vars,
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
                        vars: &mut self.vars,
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
                        vars: &mut self.vars,
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
    /// The order JMeter runs them in: post-processors, then assertions (each kind
    /// interleaved by [`crate::plan::scripting::ScriptEl::follows`]), then listeners.
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

/// A cookie a script added to the Cookie Manager, into the user's store as JMeter's
/// `HC4CookieHandler` would hold it: for its domain (the request's host when it has none) and
/// subdomains, or that host only for an address or `localhost`; its path or `/`; dropped once
/// expired.
fn store_script_cookie(jar: &mut super::super::jar::Jar, c: &super::super::scripting::ScriptCookie, host: &str) {
    let domain = c.domain.trim_start_matches('.');
    let domain = if domain.is_empty() { host } else { domain };
    let path = if c.path.is_empty() { "/" } else { c.path.as_str() };
    let scheme = if c.secure { "https" } else { "http" };
    let host_only = domain.parse::<std::net::IpAddr>().is_ok() || !domain.contains('.');
    let Ok(url) = url::Url::parse(&format!("{scheme}://{domain}{path}")) else { return };
    let mut text = format!("{}={}; Path={path}", c.name, c.value);
    if !host_only {
        text.push_str("; Domain=");
        text.push_str(domain);
    }
    if c.secure {
        text.push_str("; Secure");
    }
    if c.expires > 0 {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        text.push_str(&format!("; Max-Age={}", (c.expires - now).max(0)));
    }
    // A cookie the store refuses (a malformed name) is dropped, as JMeter's handler does.
    let _ = jar.parse(&text, &url);
}

#[cfg(test)]
mod cookie_tests {
    use super::super::super::scripting::ScriptCookie;
    use super::store_script_cookie;

    fn sent(jar: &super::super::super::jar::Jar, url: &str) -> Vec<String> {
        // Which cookies go, not their order (the jar's own tests check the order).
        let mut v: Vec<String> =
            jar.get_request_values(&url::Url::parse(url).unwrap()).map(|(k, v)| format!("{k}={v}")).collect();
        v.sort();
        v
    }

    #[test]
    fn a_script_cookie_matches_its_domain_path_and_expiry() {
        let mut jar = super::super::super::jar::Jar::default();
        let c = |name: &str, domain: &str, path: &str, expires: i64| ScriptCookie {
            name: name.into(),
            value: "v".into(),
            domain: domain.into(),
            path: path.into(),
            secure: false,
            expires,
        };
        store_script_cookie(&mut jar, &c("a", "127.0.0.1", "/app", 0), "h");
        store_script_cookie(&mut jar, &c("b", "", "", 0), "127.0.0.1");
        store_script_cookie(&mut jar, &c("c", "example.com", "/", 0), "h");
        store_script_cookie(&mut jar, &c("gone", "127.0.0.1", "/", 1), "h");
        assert_eq!(sent(&jar, "http://127.0.0.1/app/x"), ["a=v", "b=v"]);
        assert_eq!(sent(&jar, "http://127.0.0.1/other"), ["b=v"]);
        assert_eq!(sent(&jar, "http://api.example.com/"), ["c=v"]);
    }
}
