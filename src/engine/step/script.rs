//! Script elements' steps that make no sample: a pre-processor (its changes to the sampler are
//! kept for the request that follows) and a timer (its value is the delay). A script
//! sampler's sample is `sampler::script`; the scripts after a sample, `sampler::after`.

use super::super::scripting::{Env, Exec};
use super::super::user::{IterEnd, VirtualUser};
use crate::plan::sampler::script::{Place, ScriptStep};
use crate::script::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl VirtualUser {
    /// What this user's scripts see of its thread (made once, on its first script); the run's
    /// properties get the plan's `-J` ones on the first script of the run.
    pub(in crate::engine) fn script_env(&mut self, el: &crate::plan::sampler::script::ScriptEl) -> Arc<Env> {
        if let Some(e) = &self.session.script_env {
            return e.clone();
        }
        let sh = &self.ctx.shared.scripts;
        sh.seeded.get_or_init(|| {
            let mut props = self.session.vars.globals.properties.write().unwrap_or_else(|e| e.into_inner());
            for (k, v) in el.properties.iter() {
                props.entry(k.clone()).or_insert_with(|| v.clone());
            }
        });
        let (group, threads) = sh.groups.get(self.ctx.index).cloned().unwrap_or_default();
        let thread_name = format!("{group} {}-{}", self.ctx.index + 1, self.session.vars.thread_num);
        self.session.vars.names = sh.names.clone();
        self.session.vars.thread_name_text = Some(thread_name.clone());
        let env = Arc::new(Env {
            thread_name,
            group,
            threads,
            base_dir: sh.base_dir.clone(),
            readable: sh.readable.clone(),
            writable: sh.writable.clone(),
            log: sh.log.clone(),
            stop: Some(super::super::scripting::Stop { scenario: self.ctx.clone(), until: self.stop_at }),
            cookie_manager: self.session.jar.is_some(),
        });
        self.session.script_env = Some(env.clone());
        env
    }

    /// Waits what a script slept; `Err` when the run stops meanwhile.
    pub(in crate::engine) async fn script_wait(&mut self, d: Duration) -> Result<(), IterEnd> {
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
        let none = crate::plan::sampler::script::SamplerInfo::default();
        let info = x.sampler.as_ref().unwrap_or(&none);
        let mut edits = self.session.sampler_edits.take().map(|b| *b).unwrap_or_default();
        let mut exec = Exec {
            el,
            vars: &mut self.session.vars,
            env: &env,
            sample: None,
            sampler: Some((info, &mut edits)),
            assertion: None,
            prev: self.session.last_sample.as_deref_mut(),
            slept: Duration::ZERO,
        };
        let out = exec.run();
        let slept = exec.slept;
        if !edits.cookies.is_empty() {
            let host = edits.domain.as_deref().or(info.http.as_ref().map(|h| h.domain.as_str())).unwrap_or("");
            if let Some(jar) = self.session.jar.as_mut() {
                for c in std::mem::take(&mut edits.cookies) {
                    store_script_cookie(jar, &c, host);
                }
            }
        }
        if !edits.is_empty() {
            self.session.sampler_edits = Some(Box::new(edits));
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
