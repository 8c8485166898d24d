//! The request step: renders a request, sends it (following redirects), applies its
//! extractors and checks, and records its samples (and the per-sample log's rows).

use super::after::After;
use crate::engine::client::{Exchange, Wire};
use crate::engine::managers::{self, CacheHeaders};
use crate::engine::request::{Hop, PreparedRequest, Unread, Upload};
use crate::engine::response::{apply_rules, Response, Rules};
use crate::engine::user::VirtualUser;
use crate::plan::managers::{CookiePolicy, PlanManagers};
use crate::plan::{CheckId, CheckTest, LabelId, RequestSpec, Target};
use crate::record::{ErrorKind, Sample};
use edits::{apply_edits, edit_sent};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

mod edits;
mod page;

/// A compressed body larger than this is decoded off the worker thread.
const OFFLOAD_DECODE_ABOVE: usize = 16 * 1024;

pub(in crate::engine) use crate::plan::template::off_the_worker;

/// The back-off after running out of file descriptors: from 10 ms, doubling up to 1 s.
const FD_BACKOFF_MIN: Duration = Duration::from_millis(10);
const FD_BACKOFF_MAX: Duration = Duration::from_secs(1);

impl VirtualUser {
    /// The header lines the user adds to a request, and the URL its jar stores cookies under:
    /// `Cookie` (the Cookie Manager's own cookies, then the jar's), `Authorization` (an
    /// Authorization Manager), `If-Modified-Since` / `If-None-Match` (a Cache Manager). Costs
    /// nothing when the jar is off or empty and no manager is in the request's scope: that
    /// test is inlined into every request, the rest is not.
    #[inline]
    fn extra_headers(
        &mut self,
        spec: &RequestSpec,
        pm: &PlanManagers,
        target: &Target,
        path: &str,
    ) -> (Option<url::Url>, Option<String>) {
        let jar = self.session.jar.as_ref().filter(|_| !spec.managers.jarless);
        let jar_cookies = jar.is_some_and(|j| !j.is_empty());
        let own_cookies =
            jar.is_some() && spec.managers.cookies.is_some() && !pm.own_cookies(&spec.managers).is_empty();
        if !jar_cookies && !own_cookies && spec.managers.is_empty() {
            return (None, None);
        }
        self.made_headers(spec, pm, target, path, jar_cookies, own_cookies)
    }

    /// [`Self::extra_headers`] when there is a header to make.
    fn made_headers(
        &mut self,
        spec: &RequestSpec,
        pm: &PlanManagers,
        target: &Target,
        path: &str,
        jar_cookies: bool,
        own_cookies: bool,
    ) -> (Option<url::Url>, Option<String>) {
        let jar = self.session.jar.as_ref().filter(|_| !spec.managers.jarless);
        let mut lines = String::new();
        let url = if jar_cookies { url_of(target, path) } else { None };
        let mut header = String::new();
        if own_cookies {
            let in_jar =
                |n: &str| url.as_ref().zip(jar).is_some_and(|(u, j)| j.get_request_values(u).any(|(k, _)| k == n));
            managers::user_cookies(
                pm.own_cookies(&spec.managers),
                &mut self.session.vars,
                target,
                path,
                in_jar,
                &mut header,
            );
        }
        if let (Some(jar), Some(u)) = (jar, url.as_ref()) {
            for (k, v) in jar.get_request_values(u) {
                if !header.is_empty() {
                    header.push_str("; ");
                }
                header.push_str(k);
                header.push('=');
                header.push_str(v);
            }
        }
        if !header.is_empty() {
            lines.push_str("Cookie: ");
            lines.push_str(&header);
            lines.push_str("\r\n");
        }
        // Credentials the plan's own Authorization header does not already give.
        if let Some(auth) = &spec.managers.auth {
            if !spec.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("authorization")) {
                managers::authorization(auth, &mut self.session.vars, target, path, &mut lines);
            }
        }
        if let Some(slot) = spec.managers.cache {
            self.session.caches.conditional_headers(
                slot,
                &managers::cache_key(target, path),
                &spec.headers,
                &mut lines,
            );
        }
        (url, (!lines.is_empty()).then_some(lines))
    }

    /// The files to send named at run time, named once for the sample and read off the
    /// worker, as a large body is decoded (not an await: one would be in every user's future),
    /// and the first that cannot be read, which fails the sample once what JMeter sends before
    /// opening it is out. Only a request rendered per sample can name one.
    #[inline(never)]
    fn uploads(&mut self, req: &PreparedRequest) -> (Vec<Upload>, Option<Unread>) {
        let spec = &req.spec;
        if req.fixed.is_some() || !crate::engine::request::names_files(spec) {
            return (Vec::new(), None);
        }
        let named = crate::engine::request::uploads_named(spec, &mut self.session.vars);
        off_the_worker(|| crate::engine::request::read_uploads(named))
    }

    /// Sends a request with a file that could not be read (as empty), then fails its sample
    /// whatever happens, as JMeter does: a file body goes out empty and the answer is read; a
    /// multipart one goes out up to that part's head and the connection is closed. Boxed by
    /// the caller: its state is no part of every request's future.
    async fn send_then_fail(
        &mut self,
        req: &PreparedRequest,
        start: Instant,
        sent: Sent<'_>,
        cut: Option<usize>,
    ) -> Option<bool> {
        let w = wire(req, &sent.first, req.is_head, &self.abandon, &self.ctx.shared);
        let ex = match cut {
            None => self.conns.client.send(&w, &self.out, start).await,
            Some(part) => {
                let end = crate::engine::request::cut_at_part(&self.out, part);
                self.conns.client.send_only(&w, &self.out[..end]).await
            }
        };
        if ex.abandoned_before_send {
            return Some(true);
        }
        self.after_send(req, start, sent, ex).await
    }

    /// Sends one request of the flow, following redirects if it says so, then applies its
    /// extractors and checks and records its samples. Nothing here allocates for a fixed
    /// request without cookies, redirects, extractors or checks: that is the benchmark's path.
    /// Returns whether the sample failed, or `None` when there is no sample: an HTTP Cache
    /// Manager had the response, still fresh (JMeter's default `RETURN_NO_SAMPLE`).
    pub(in crate::engine) async fn request(&mut self, req: &PreparedRequest, start: Instant) -> Option<bool> {
        let ctx = self.ctx.clone();
        let spec = &req.spec;
        // The sampler's name as rendered now, when it holds `${...}` (JMeter's sample label).
        let label = self.sample_label(spec.label);
        if let Some(fault) = spec.fault.filter(|_| !spec.fault_after_head) {
            // JMeter fails this sample before sending anything (a method it does not know).
            let at = spec.path.source().to_string();
            return Some(self.unsent(label, start, &req.target, &at, ErrorKind::Check(fault.0)));
        }
        // Files to upload named at run time: named once for the sample and read off the
        // worker; one that cannot be read leaves the sample unsent, as a missing one named in
        // the plan. Only a request rendered per sample can hold one.
        self.path.clear();
        // A host read from a data file or a response: the target comes from the rendered origin.
        let first: std::borrow::Cow<'_, Target> = match &spec.origin {
            None => std::borrow::Cow::Borrowed(&req.target),
            Some(o) => {
                let origin = o.render_string(&mut self.session.vars);
                match crate::plan::resolve_url(&origin, None) {
                    Ok((t, base)) if !t.host.is_empty() => {
                        if base != "/" {
                            self.path.push_str(base.trim_end_matches('/'));
                        }
                        std::borrow::Cow::Owned(t)
                    }
                    _ => {
                        if spec.java_uri {
                            let mut url = origin.clone();
                            req.render_unencoded(&mut self.session.vars, &mut url);
                            if let Some(why) = crate::plan::java_uri::refusal(&url) {
                                return Some(self.refused(label, start, url, why));
                            }
                        }
                        return Some(self.bad_url(label, start, &req.target, &origin));
                    }
                }
            }
        };
        if spec.java_uri && req.fixed.is_none() {
            // JMeter's rule: a URL java.net.URI refuses fails the sample, unsent.
            let at = self.path.len();
            req.render_unencoded(&mut self.session.vars, &mut self.path);
            let url = crate::engine::request::java_url(&first, &self.path);
            if let Some(why) = crate::plan::java_uri::refusal(&url) {
                return Some(self.refused(label, start, url, why));
            }
            crate::engine::request::sendable(&mut self.path, at);
        } else {
            req.render_path(&mut self.session.vars, &mut self.path);
        }
        // A path that turns out to be a whole URL (`${next}` holding `http://h/x`) is taken as
        // the URL, as JMeter does.
        let full_url = crate::engine::request::full_url_in_path(&self.path);
        let resolved = full_url.map(|full| crate::plan::resolve_url(full, None));
        let first = match resolved {
            Some(Ok((t, path))) if !t.host.is_empty() => {
                self.path = path;
                std::borrow::Cow::Owned(t)
            }
            // Not a usable URL; or no server name and the path is not a URL either (the
            // loader allows that only for a path made of variables).
            Some(_) => return Some(self.bad_url(label, start, &first, &self.path.clone())),
            None if first.host.is_empty() => return Some(self.bad_url(label, start, &first, &self.path.clone())),
            None => first,
        };
        // What a script pre-processor changed on this sampler.
        let edits = self.session.sampler_edits.take();
        let first = match &edits {
            Some(e) => {
                apply_edits(e, &spec.method, &mut self.path);
                match (&e.domain, e.port, &e.protocol) {
                    (None, None, None) => first,
                    (domain, port, protocol) => {
                        let mut t = first.into_owned();
                        if let Some(d) = domain {
                            t.host = d.clone();
                        }
                        if let Some(p) = protocol {
                            t.tls = p.eq_ignore_ascii_case("https");
                        }
                        if let Some(p) = port {
                            t.port = p;
                        }
                        std::borrow::Cow::Owned(t)
                    }
                }
            }
            None => first,
        };
        let pm = &ctx.shared.managers;
        // A GET the cache has, still fresh: nothing is sent and there is no sample.
        if let Some(slot) = spec.managers.cache {
            if spec.method.eq_ignore_ascii_case("GET")
                && self.session.caches.fresh(
                    slot,
                    &managers::cache_key(&first, &self.path),
                    &spec.headers,
                    std::time::SystemTime::now(),
                )
            {
                return None;
            }
        }
        let path = std::mem::take(&mut self.path);
        let (mut url, mut cookie) = self.extra_headers(spec, pm, &first, &path);
        self.path = path;
        if let Some(e) = edits.as_deref().filter(|e| !e.headers.is_empty()) {
            let lines = cookie.get_or_insert_with(String::new);
            for (n, v) in &e.headers {
                lines.push_str(n);
                lines.push_str(": ");
                lines.push_str(v);
                lines.push_str("\r\n");
            }
        }
        let edited = edits.is_some();
        let bytes: &[u8] = match (&req.fixed, &cookie) {
            // The benchmark's path: the bytes rendered once, sent as they are.
            (Some(f), None) if !edited => &f.bytes,
            _ => {
                let (uploads, late) = self.uploads(req);
                self.out.clear();
                let (vars, body, out) = (&mut self.session.vars, &mut self.body, &mut self.out);
                req.render(vars, &first, &self.path, cookie.as_deref(), uploads, body, out, !edited);
                if let Some(e) = edits.as_deref() {
                    edit_sent(e, &spec.method, out);
                }
                if let Some(late) = late {
                    drop((edits, cookie));
                    let sent = Sent { label, first, url, fixed: false, fault: Some(late.fault) };
                    return Box::pin(self.send_then_fail(req, start, sent, late.cut_at_part)).await;
                }
                &self.out
            }
        };
        // The fixed bytes went out as they are: the request as sent is those, else `out`.
        let sent_fixed = matches!((&req.fixed, &cookie), (Some(_), None)) && !edited;
        drop((edits, cookie));
        let ex = self
            .conns
            .client
            .send(&wire(req, &first, req.is_head, &self.abandon, &self.ctx.shared), bytes, start)
            .await;
        if ex.abandoned_before_send {
            // The run ended while connecting: the server saw no request, so there is no sample.
            return Some(true);
        }
        // A future holds every local that any of its awaits keeps, and the user's task holds this
        // one for the whole run: so the plain path awaits nothing past the send, and what else a
        // request may wait on (a Digest challenge, a redirect, scripts, the back-off) is boxed
        // with the locals it keeps, made only for such a request.
        let redirect = spec.follow_redirects && ex.error.is_none() && matches!(ex.status, 301 | 302 | 303 | 307 | 308);
        if redirect
            || (ex.status == 401 && spec.managers.auth.is_some())
            || spec.fault.is_some()
            || spec.embedded.is_some()
            || !spec.after.scripts.is_empty()
            || self.session.keep_prev
            || ex.error == Some(ErrorKind::GeneratorFds)
        {
            let sent = Sent { label, first, url, fixed: sent_fixed, fault: None };
            return Box::pin(self.after_send(req, start, sent, ex)).await;
        }
        let resp = Response::new(self.conns.client.head(), self.conns.client.body(), ex.status);
        let path = self.path.as_str();
        take_response(
            self.session.jar.as_mut(),
            &mut self.session.caches,
            &resp,
            &ex,
            spec,
            pm,
            (&spec.method, &first, path),
            &mut url,
        );
        let end = ex.end.unwrap_or_else(Instant::now);
        let mut error = judged(spec, ex.error);
        if !spec.after.extract.is_empty() || !spec.after.checks.is_empty() {
            let final_url = format!("{}://{}{}", first.scheme(), first.authority(), self.path);
            let fixed = req.fixed.as_ref().filter(|_| sent_fixed).map(|f| &f.bytes[..]);
            let rules =
                Rules { extract: &spec.after.extract, checks: &spec.after.checks, limit: spec.max_response_size };
            let elapsed = end.saturating_duration_since(start);
            error = error.or(self.final_rules(rules, ex.status, fixed, &final_url, elapsed, ex.bytes_received));
        }
        self.record(label, start, end, &ex, error, true, (&first, self.path.as_str()), interrupted(spec, ex.error));
        self.fd_backoff = Duration::ZERO;
        self.request_to_groups(label, start, end, &ex, error);
        Some(error.is_some())
    }

    /// The rest of a request whose response needs more than the plain path gives (see
    /// `request`): a Digest challenge answered, a fault, redirects followed, a page's embedded
    /// resources fetched, scripts run, the last sample kept, the back-off after the generator ran out of file descriptors.
    async fn after_send(
        &mut self,
        req: &PreparedRequest,
        start: Instant,
        sent: Sent<'_>,
        mut ex: Exchange,
    ) -> Option<bool> {
        let ctx = self.ctx.clone();
        let spec = &req.spec;
        let pm = &ctx.shared.managers;
        let Sent { mut label, first, mut url, fixed: sent_fixed, fault: late } = sent;
        if ex.status == 401 && spec.managers.auth.is_some() {
            ex = Box::pin(self.answer_digest(req, &first, sent_fixed, ex)).await;
        }
        if let Some(fault) = spec.fault.or(late) {
            // Sent, then failed in JMeter before it read any response (a file body it could
            // not open): the fault, and nothing of the response (cookies, redirects, checks).
            let end = ex.end.unwrap_or_else(Instant::now);
            self.record(label, start, end, &ex, Some(ErrorKind::Check(fault.0)), true, (&first, &self.path), None);
            self.add_failed_to_groups(label, start, end, ex.bytes_sent, ErrorKind::Check(fault.0));
            return Some(true);
        }
        // Where the chain is now; set only once a redirect is followed.
        let mut hop: Option<(String, Target, String)> = None;
        let mut hops = 0usize;
        let mut hop_start = start;
        let mut total = ex;
        let mut error = ex.error;
        loop {
            let (method, target, path) = match &hop {
                Some((m, t, p)) => (m.as_str(), t, p.as_str()),
                None => (spec.method.as_str(), &*first, self.path.as_str()),
            };
            let resp = Response::new(self.conns.client.head(), self.conns.client.body(), ex.status);
            take_response(
                self.session.jar.as_mut(),
                &mut self.session.caches,
                &resp,
                &ex,
                spec,
                pm,
                (method, target, path),
                &mut url,
            );
            let location =
                if spec.follow_redirects && ex.error.is_none() && matches!(ex.status, 301 | 302 | 303 | 307 | 308) {
                    resp.header("location")
                } else {
                    None
                };
            let Some(location) = location else { break };
            if hops + 1 >= spec.hop_labels.len() {
                error = error.or(spec.too_many_redirects.map(|c| ErrorKind::Check(c.0)));
                break;
            }
            // The next hop: the Location resolved against the current URL.
            let Some(next) = url_of(target, path).and_then(|b| b.join(location).ok()) else { break };
            let next_target = match (next.scheme(), next.host_str()) {
                ("http" | "https", Some(h)) => Target {
                    tls: next.scheme() == "https",
                    host: h.trim_start_matches('[').trim_end_matches(']').to_string(),
                    port: next.port_or_known_default().unwrap_or(80),
                },
                _ => break,
            };
            let to_get = matches!(ex.status, 301..=303) && method != "HEAD";
            let with_body = !to_get && !req.body_sent(&self.body).is_empty();
            let next_method = if to_get { "GET".to_string() } else { method.to_string() };
            let mut next_path = next.path().to_string();
            if let Some(q) = next.query() {
                next_path.push('?');
                next_path.push_str(q);
            }
            // A stop ends the chain here: this exchange is its last.
            if ctx.stopping() {
                break;
            }
            // Record this hop, then send the next.
            let end = ex.end.unwrap_or_else(Instant::now);
            self.record(spec.hop_labels[hops], hop_start, end, &ex, ex.error, true, (target, path), None);
            hops += 1;
            let (next_url, cookie) = self.extra_headers(spec, pm, &next_target, &next_path);
            url = next_url;
            let (method, target, path) = &*hop.insert((next_method, next_target, next_path));
            self.out.clear();
            let h = Hop { method, target, path, with_body };
            req.render_hop(&mut self.session.vars, &h, cookie.as_deref(), req.body_sent(&self.body), &mut self.out);
            hop_start = Instant::now();
            let w = wire(req, target, method == "HEAD", &self.abandon, &self.ctx.shared);
            ex = Box::pin(self.conns.client.send(&w, &self.out, hop_start)).await;
            error = ex.error;
            // The chain's sample has the last response's status, as JMeter's parent sample.
            total.status = ex.status;
            total.bytes_sent += ex.bytes_sent;
            total.bytes_received += ex.bytes_received;
            total.connect += ex.connect;
            total.new_connection |= ex.new_connection;
            total.upstream_us = both_upstream(total.upstream_us, ex.upstream_us);
        }
        // "Retrieve All Embedded Resources": the page's resources, found before the rules run (their
        // fetches reuse the response buffer). JMeter parses a successful (2xx, 3xx) response,
        // before its assertions; after a followed chain, not here (not done yet).
        let found = spec.embedded.as_ref().filter(|_| hops == 0 && ex.error.is_none());
        let resources = found.and_then(|e| self.page_resources(e, spec, &first, ex.status));
        let end = ex.end.unwrap_or_else(Instant::now);
        error = judged(spec, error);
        let has_rules = !spec.after.extract.is_empty() || !spec.after.checks.is_empty();
        let final_url = if has_rules || !spec.after.scripts.is_empty() || self.session.keep_prev {
            let (target, path) = match &hop {
                Some((_, t, p)) => (t, p.as_str()),
                None => (&*first, self.path.as_str()),
            };
            format!("{}://{}{}", target.scheme(), target.authority(), path)
        } else {
            String::new()
        };
        // The last request sent: the fixed bytes, or the ones rendered into `out`.
        let fixed: Option<&[u8]> = req.fixed.as_ref().filter(|_| hops == 0 && sent_fixed).map(|f| &f.bytes[..]);
        let elapsed = end.saturating_duration_since(start);
        let received = ex.bytes_received;
        let status = ex.status;
        // Extractors and checks on the final response (with script post-processors and
        // assertions, in the order JMeter runs them all: see `after_in_order`).
        let rules = |this: &mut Self, _: &crate::engine::scripting::SampleState, rules: Rules<'_>| {
            this.final_rules(rules, status, fixed, &final_url, elapsed, received)
        };
        let after = After {
            extract: &spec.after.extract,
            checks: &spec.after.checks,
            scripts: &spec.after.scripts,
            limit: spec.max_response_size,
        };
        let mut rules = rules;
        if has_rules && spec.after.scripts.is_empty() {
            let all = Rules { extract: after.extract, checks: after.checks, limit: after.limit };
            error = error.or(rules(self, &Default::default(), all));
        }
        // The sample as scripts see it: its post-processors' `prev`, and the next
        // pre-processors' when the user keeps its last sample.
        let mut kept = None;
        let mut note = None;
        if !spec.after.scripts.is_empty() || self.session.keep_prev {
            let resp = Response::new(self.conns.client.head(), self.conns.client.body(), ex.status);
            let sent: &[u8] = fixed.unwrap_or(&self.out);
            let mut state = self.http_state(label, &resp, spec, &final_url, (start, end), &total, sent);
            if !spec.after.scripts.is_empty() {
                // Boxed: inline, the scripts' state would be in every user's future, scripts or not.
                (error, note) =
                    Box::pin(self.scripts_after(after, &mut state, error, &mut label, spec.label, &mut rules)).await;
                if let Ok(code) = state.code.trim().parse::<u16>() {
                    ex.status = code;
                    total.status = code;
                }
            }
            kept = Some(state);
        }
        if note.is_none() {
            note = interrupted(spec, ex.error);
        }
        if let Some(urls) = resources {
            // JMeter's container: see `record_page`.
            let subs = Box::pin(self.embedded_resources(req, label, &urls)).await;
            error = self.record_page(label, (start, end), &ex, (error, note), &subs, &mut total, &first);
        } else {
            let (last_target, last_path) = match &hop {
                Some((_, t, p)) => (t, p.as_str()),
                None => (&*first, self.path.as_str()),
            };
            if hops > 0 {
                if !ex.abandoned_before_send {
                    self.record(
                        spec.hop_labels[hops],
                        hop_start,
                        end,
                        &ex,
                        error,
                        true,
                        (last_target, last_path),
                        None,
                    );
                }
                total.end = Some(end);
                self.record(label, start, end, &total, error, false, (&*first, self.path.as_str()), note);
            } else {
                self.record(label, start, end, &ex, error, true, (last_target, last_path), note);
            }
        }
        if let Some(state) = kept {
            self.keep_last(*state, error.is_none());
        }
        self.back_off(error).await;
        self.request_to_groups(label, start, end, &total, error);
        Some(error.is_some())
    }

    /// The request `ex` answered again with Digest credentials, when an Authorization
    /// Manager's Digest entry gives them and the 401 challenges for Digest: one exchange of
    /// both, as HttpClient 4 answers the challenge inside the same execution (one sample, two
    /// requests the server sees); else `ex`.
    async fn answer_digest(
        &mut self,
        req: &PreparedRequest,
        first: &Target,
        sent_fixed: bool,
        ex: Exchange,
    ) -> Exchange {
        let spec = &req.spec;
        let sent = match &req.fixed {
            Some(f) if sent_fixed => f.bytes.clone(),
            _ => self.out.clone(),
        };
        let Some(again) = self.digest_retry(spec, first, &sent) else { return ex };
        let w = wire(req, first, req.is_head, &self.abandon, &self.ctx.shared);
        let mut second = self.conns.client.send(&w, &again, Instant::now()).await;
        second.bytes_sent += ex.bytes_sent;
        second.bytes_received += ex.bytes_received;
        second.connect += ex.connect;
        second.new_connection |= ex.new_connection;
        second.first_byte = ex.first_byte.or(second.first_byte);
        second.upstream_us = both_upstream(ex.upstream_us, second.upstream_us);
        second.abandoned_before_send = false;
        second
    }

    /// After a sample that failed because the generator ran out of file descriptors, waits
    /// the back-off (doubling while it lasts); after any other, the back-off starts again.
    async fn back_off(&mut self, error: Option<ErrorKind>) {
        if error == Some(ErrorKind::GeneratorFds) {
            self.fd_backoff = (self.fd_backoff * 2).clamp(FD_BACKOFF_MIN, FD_BACKOFF_MAX);
            let (backoff, stop) = (self.fd_backoff, &self.ctx.stop);
            // Boxed, as every rare await here: a future holds the largest state it may
            // reach, and the user's task holds this one for the whole run.
            Box::pin(async move {
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = stop.cancelled() => {}
                }
            })
            .await;
        } else {
            self.fd_backoff = Duration::ZERO;
        }
    }

    /// An HTTP sample as scripts see it (`prev`), `sent` the request as it went out; boxed: it
    /// lives across the scripts' await, and inline it would be in every user's future,
    /// scripts or not.
    #[allow(clippy::too_many_arguments)]
    fn http_state(
        &self,
        label: LabelId,
        resp: &Response<'_>,
        spec: &RequestSpec,
        final_url: &str,
        (start, end): (Instant, Instant),
        total: &Exchange,
        sent: &[u8],
    ) -> Box<crate::engine::scripting::SampleState> {
        let ctx = &self.ctx;
        let elapsed = end.saturating_duration_since(start);
        Box::new(crate::engine::scripting::SampleState {
            http: true,
            label: self.label_name(label),
            code: resp.status.to_string(),
            message: resp.message().to_string(),
            data: resp_body(resp, self.conns.client.body(), spec.max_response_size),
            headers: resp.headers_text(),
            request_headers: crate::engine::response::request_headers(sent),
            url: final_url.to_string(),
            elapsed_ms: elapsed.as_millis() as u64,
            latency_ms: total.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_millis() as u64),
            connect_ms: total.connect.as_millis() as u64,
            bytes: total.bytes_received,
            sent_bytes: total.bytes_sent,
            content_type: resp.header("content-type").unwrap_or_default().to_string(),
            data_type: "text".into(),
            // Its sampler data is made when a script reads it, from what was sent.
            http_sent: sent.to_vec(),
            start_ms: ctx.shared.epoch_unix_ms + ctx.micros(start) / 1000,
            end_ms: ctx.shared.epoch_unix_ms + ctx.micros(end) / 1000,
            ..Default::default()
        })
    }

    /// Applies `rules` to the last response (`fixed`: the request's fixed bytes when they were
    /// sent, else it is in `out`).
    fn final_rules(
        &mut self,
        rules: Rules<'_>,
        status: u16,
        fixed: Option<&[u8]>,
        final_url: &str,
        elapsed: Duration,
        received: u64,
    ) -> Option<ErrorKind> {
        let resp = Response::new(self.conns.client.head(), self.conns.client.body(), status);
        let sent = fixed.unwrap_or(&self.out);
        let vars = &mut self.session.vars;
        let apply = || apply_rules(rules, &resp, sent, final_url, elapsed, received, vars);
        // Decoding a large compressed body takes a while: off this worker, so the other
        // users it runs are not held up behind it.
        if resp.is_compressed() && resp.body_len() > OFFLOAD_DECODE_ABOVE {
            off_the_worker(apply)
        } else {
            apply()
        }
    }

    /// Adds a request's sample (`total`: its exchanges summed) to the open transactions. The
    /// test for one is inlined into every request, the rest is not.
    #[inline]
    fn request_to_groups(
        &mut self,
        label: LabelId,
        start: Instant,
        end: Instant,
        total: &Exchange,
        error: Option<ErrorKind>,
    ) {
        if self.plan.groups.iter().any(|g| g.open) {
            self.request_to_open_groups(label, start, end, total, error);
        }
    }

    fn request_to_open_groups(
        &mut self,
        label: LabelId,
        start: Instant,
        end: Instant,
        total: &Exchange,
        error: Option<ErrorKind>,
    ) {
        let sample = Sample {
            label,
            start_us: 0,
            end_us: 0,
            ttfb_us: total.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64),
            connect_us: total.connect.as_micros() as u64,
            bytes_sent: total.bytes_sent,
            bytes_received: total.bytes_received,
            new_connection: false,
            error,
            in_total: true,
            upstream_us: None,
        };
        self.add_to_groups(&sample, start, end, total.status);
    }

    /// The request `sent` again with Digest credentials, when an Authorization Manager's Digest
    /// entry gives the credentials for it and the 401 just received challenges for Digest;
    /// `None` otherwise (the 401 stands).
    fn digest_retry(&mut self, spec: &RequestSpec, target: &Target, sent: &[u8]) -> Option<Vec<u8>> {
        let auth = spec.managers.auth.as_ref()?;
        if spec.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("authorization")) {
            return None;
        }
        let entry = managers::auth_entry(auth, &mut self.session.vars, target, &self.path).filter(|e| e.digest)?;
        let resp = Response::new(self.conns.client.head(), &[], 401);
        let challenges: Vec<String> = resp.headers_named("www-authenticate").map(str::to_string).collect();
        let cnonce: String =
            (0..8).map(|_| format!("{:02x}", rand::Rng::random::<u8>(&mut self.session.vars.rng))).collect();
        let line = challenges.iter().find_map(|c| {
            managers::digest_authorization(entry, &mut self.session.vars, c, &spec.method, &self.path, &cnonce)
        })?;
        let at = memchr::memmem::find(sent, b"\r\n\r\n")? + 2;
        let mut again = Vec::with_capacity(sent.len() + line.len());
        again.extend_from_slice(&sent[..at]);
        again.extend_from_slice(line.as_bytes());
        again.extend_from_slice(&sent[at..]);
        Some(again)
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        label: LabelId,
        start: Instant,
        end: Instant,
        ex: &crate::engine::client::Exchange,
        error: Option<ErrorKind>,
        in_total: bool,
        at: (&Target, &str),
        note: Option<Box<(String, String)>>,
    ) {
        let ctx = &self.ctx;
        let mut sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: ex.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64),
            connect_us: ex.connect.as_micros() as u64,
            bytes_sent: ex.bytes_sent,
            bytes_received: ex.bytes_received,
            new_connection: ex.new_connection,
            error,
            in_total,
            // A response cut short (a timeout, a reset mid-body) took a time the header's
            // upstream figure does not split: no split, rather than a skewed overhead.
            upstream_us: ex
                .upstream_us
                .filter(|_| matches!(error, None | Some(ErrorKind::Status(_) | ErrorKind::Check(_)))),
        };
        // A sample failed before its URL was taken apart (a full URL java.net.URL refuses)
        // shows that URL.
        let (target, path) = at;
        let url = || match crate::engine::request::full_url_in_path(path) {
            Some(full) if target.host.is_empty() => full.to_string(),
            _ => format!("{}://{}{}", target.scheme(), target.authority(), path),
        };
        self.record_sample(&mut sample, self.recorded_as(), ex.status, url, note);
    }

    /// Records a request that could not be sent because its URL is not usable; it failed.
    pub(in crate::engine) fn bad_url(&mut self, label: LabelId, start: Instant, target: &Target, at: &str) -> bool {
        self.unsent(label, start, target, at, ErrorKind::BadUrl)
    }

    /// Records a request that failed with `kind` before anything was sent.
    pub(in crate::engine) fn unsent(
        &mut self,
        label: LabelId,
        start: Instant,
        target: &Target,
        at: &str,
        kind: ErrorKind,
    ) -> bool {
        let now = Instant::now();
        let mut ex = crate::engine::client::Exchange::default();
        ex.end = Some(now);
        self.record(label, start, now, &ex, Some(kind), true, (target, at), None);
        self.add_failed_to_groups(label, start, now, 0, kind);
        true
    }

    /// A sample failed before any response (`kind`) is a sample of the transactions around it,
    /// as JMeter's Transaction Controller hears every sample of its children, error results too.
    fn add_failed_to_groups(&mut self, label: LabelId, start: Instant, end: Instant, sent: u64, kind: ErrorKind) {
        let sample = Sample {
            label,
            start_us: 0,
            end_us: 0,
            ttfb_us: 0,
            connect_us: 0,
            bytes_sent: sent,
            bytes_received: 0,
            new_connection: false,
            error: Some(kind),
            in_total: true,
            upstream_us: None,
        };
        self.add_to_groups(&sample, start, end, 0);
    }

    /// Records a request JMeter fails unsent because java.net.URI refuses its `url`, for the
    /// reason `why`: failed (`bad_url`), and in the per-sample log with JMeter's
    /// `java.net.URISyntaxException` and message.
    fn refused(&mut self, label: LabelId, start: Instant, url: String, why: crate::plan::java_uri::Refusal) -> bool {
        let now = Instant::now();
        let ctx = &self.ctx;
        let mut sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(now),
            ttfb_us: 0,
            connect_us: 0,
            bytes_sent: 0,
            bytes_received: 0,
            new_connection: false,
            error: Some(ErrorKind::BadUrl),
            in_total: true,
            upstream_us: None,
        };
        if let Some(top) = self.recorded_as() {
            sample.in_total = top;
            ctx.recorder.record(&sample);
        }
        if let Some(log) = &ctx.shared.sample_log {
            let mut row = self.sample_row(&sample, 0, url);
            row.refused_url = Some(why.to_string().into());
            let _ = log.send(row);
        }
        self.add_failed_to_groups(label, start, now, 0, ErrorKind::BadUrl);
        true
    }
}

/// The response's body as a script reads it: decoded when it was compressed.
fn resp_body(resp: &Response<'_>, raw: &[u8], limit: u64) -> Vec<u8> {
    if resp.is_compressed() {
        // Decoding is bounded by the workers, as for checks (see `DecodeGate`).
        let _decoding = crate::engine::response::DECODES.acquire();
        return resp.body_bytes(limit).0.into_owned();
    }
    raw.to_vec()
}

/// What the rest of a request needs of its sending.
struct Sent<'a> {
    /// The sample's label as rendered.
    label: LabelId,
    /// Where the request went.
    first: std::borrow::Cow<'a, Target>,
    /// The URL its cookies are stored under, when the jar had cookies for it.
    url: Option<url::Url>,
    /// The request's fixed bytes were sent as they are (else the request is in `out`).
    fixed: bool,
    /// A file body named for this sample that could not be read: the sample fails with it.
    fault: Option<CheckId>,
}

/// What a user keeps of each response: the cookies it sets (stored under `url`, made on the
/// first), its cache entry. Inlined into every request: most keep nothing, and only then is
/// the test all it costs.
#[allow(clippy::too_many_arguments)]
#[inline]
fn take_response(
    jar: Option<&mut crate::engine::jar::Jar>,
    caches: &mut managers::UserCaches,
    resp: &Response<'_>,
    ex: &Exchange,
    spec: &RequestSpec,
    pm: &PlanManagers,
    (method, target, path): (&str, &Target, &str),
    url: &mut Option<url::Url>,
) {
    if ex.set_cookie && jar.is_some() && !spec.managers.jarless {
        if url.is_none() {
            *url = url_of(target, path);
        }
        store_cookies(jar, url.as_ref(), resp, pm.cookie_policy(&spec.managers));
    }
    if let (Some(slot), None) = (spec.managers.cache, ex.error) {
        cache_response(caches, resp, ex.status, spec, pm, slot, (method, target, path));
    }
}

/// Saves a response in the user's HTTP cache `slot` (see [`take_response`]).
fn cache_response(
    caches: &mut managers::UserCaches,
    resp: &Response<'_>,
    status: u16,
    spec: &RequestSpec,
    pm: &PlanManagers,
    slot: u32,
    (method, target, path): (&str, &Target, &str),
) {
    let h = CacheHeaders {
        last_modified: resp.headers_named("last-modified").last(),
        etag: resp.headers_named("etag").last(),
        expires: resp.headers_named("expires").last(),
        cache_control: resp.headers_named("cache-control").last(),
        date: resp.headers_named("date").last(),
        vary: resp.headers_named("vary").last(),
    };
    let key = managers::cache_key(target, path);
    caches.save(slot, &pm.caches[slot as usize], method, status, &key, &spec.headers, &h);
}

/// A response's error once a check judges its status on its own: a `status` check can expect a
/// 401 (and `ignore_status`, JMeter's Response Assertion with "Ignore Status"), so a valid
/// status is then no error. Inlined, and the checks looked at only for a status error: every
/// request asks.
#[inline]
fn judged(spec: &RequestSpec, error: Option<ErrorKind>) -> Option<ErrorKind> {
    let own = || spec.ignore_status || spec.after.checks.iter().any(|c| matches!(c.test, CheckTest::Status(_)));
    match error {
        Some(ErrorKind::Status(s)) if crate::record::error_kind::valid_status(s) && own() => None,
        e => e,
    }
}

/// The code and message JMeter records for a sample a Sample Timeout interrupted: it aborts the
/// request, closing HttpClient's socket under the read (JMeter 5.6.3: elapsed about the
/// timeout, "Non HTTP response code: java.net.SocketException", "... message: Socket closed").
/// The sample's error kind stays `timeout`.
fn interrupted(spec: &RequestSpec, error: Option<ErrorKind>) -> Option<Box<(String, String)>> {
    if !spec.sample_timeout || !matches!(error, Some(ErrorKind::Timeout | ErrorKind::ConnectTimeout)) {
        return None;
    }
    let (code, message) =
        ("Non HTTP response code: java.net.SocketException", "Non HTTP response message: Socket closed");
    Some(Box::new((code.to_string(), message.to_string())))
}

fn url_of(target: &Target, path: &str) -> Option<url::Url> {
    url::Url::parse(&format!("{}://{}{}", target.scheme(), target.authority(), path)).ok()
}

fn wire<'a>(
    req: &'a PreparedRequest,
    target: &'a Target,
    is_head: bool,
    abandon: &'a CancellationToken,
    shared: &'a crate::engine::session::RunShared,
) -> Wire<'a> {
    Wire {
        abandon,
        target,
        keep_alive: req.keep_alive,
        is_head,
        connect_timeout: req.connect_timeout,
        response_timeout: req.response_timeout,
        max_response_size: req.max_response_size,
        keep_body: req.keep_body,
        hosts: req.spec.managers.dns.as_deref(),
        timing: &shared.timing_headers,
        bandwidth: &shared.bandwidth,
    }
}

/// The upstream time of a sample made of two exchanges: known only when both told theirs (the
/// overhead of one without would be its whole time).
fn both_upstream(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a? + b?)
}

fn store_cookies(
    jar: Option<&mut crate::engine::jar::Jar>,
    url: Option<&url::Url>,
    resp: &Response<'_>,
    policy: CookiePolicy,
) {
    if let (Some(jar), Some(url)) = (jar, url) {
        for v in resp.headers_named("set-cookie") {
            if policy == CookiePolicy::Strict && !managers::strict_accepts(v) {
                continue;
            }
            // A cookie the jar refuses (wrong domain, malformed) is dropped, as a browser does.
            let _ = jar.parse(v, url);
        }
    }
}
