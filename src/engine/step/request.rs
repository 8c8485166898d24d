//! The request step: renders a request, sends it (following redirects), applies its
//! extractors and checks, and records its samples (and the per-sample log's rows).

use super::super::client::Wire;
use super::super::request::{Hop, PreparedRequest};
use super::super::response::Response;
use super::super::user::VirtualUser;
use crate::plan::{CheckTest, LabelId, Target};
use crate::record::{ErrorKind, Sample, SampleRow};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A compressed body larger than this is decoded off the worker thread.
const OFFLOAD_DECODE_ABOVE: usize = 16 * 1024;

/// Runs `f`, handing this worker's other tasks to another worker while it does (a
/// multi-threaded runtime), so a long computation does not stall them.
fn off_the_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// The back-off after running out of file descriptors: from 10 ms, doubling up to 1 s.
const FD_BACKOFF_MIN: Duration = Duration::from_millis(10);
const FD_BACKOFF_MAX: Duration = Duration::from_secs(1);

impl VirtualUser {
    /// The `Cookie` header for a request, and its URL (needed to store what the response sets);
    /// `None` when the jar is off or empty, which costs nothing.
    fn cookie_header(&self, target: &Target, path: &str) -> Option<(url::Url, String)> {
        let jar = self.jar.as_ref()?;
        jar.iter_any().next()?;
        let url = url_of(target, path)?;
        let mut header = String::new();
        for (k, v) in jar.get_request_values(&url) {
            if !header.is_empty() {
                header.push_str("; ");
            }
            header.push_str(k);
            header.push('=');
            header.push_str(v);
        }
        Some((url, header))
    }

    /// Sends one request of the flow, following redirects if it says so, then applies its
    /// extractors and checks and records its samples. Nothing here allocates for a fixed
    /// request without cookies, redirects, extractors or checks: that is the benchmark's path.
    /// Returns whether the sample failed.
    pub(in crate::engine) async fn request(&mut self, req: &PreparedRequest, start: Instant) -> bool {
        let ctx = self.ctx.clone();
        let spec = &req.spec;
        self.path.clear();
        // A host read from a data file or a response: the target comes from the rendered origin.
        let first: std::borrow::Cow<'_, Target> = match &spec.origin {
            None => std::borrow::Cow::Borrowed(&req.target),
            Some(o) => {
                let origin = o.render_string(&mut self.vars);
                match crate::plan::resolve_url(&origin, None) {
                    Ok((t, base)) if !t.host.is_empty() => {
                        if base != "/" {
                            self.path.push_str(base.trim_end_matches('/'));
                        }
                        std::borrow::Cow::Owned(t)
                    }
                    _ => return self.bad_url(spec.label, start, &req.target, &origin),
                }
            }
        };
        req.render_path(&mut self.vars, &mut self.path);
        // A path that turns out to be a whole URL (`${next}` holding `http://h/x`) is taken as
        // the URL, as JMeter does.
        let full_url = super::super::request::full_url_in_path(&self.path);
        let resolved = full_url.map(|full| crate::plan::resolve_url(full, None));
        let first = match resolved {
            Some(Ok((t, path))) if !t.host.is_empty() => {
                self.path = path;
                std::borrow::Cow::Owned(t)
            }
            // Not a usable URL; or no server name and the path is not a URL either (the
            // loader allows that only for a path made of variables).
            Some(_) => return self.bad_url(spec.label, start, &first, &self.path.clone()),
            None if first.host.is_empty() => return self.bad_url(spec.label, start, &first, &self.path.clone()),
            None => first,
        };
        let (mut url, cookie) = match self.cookie_header(&first, &self.path) {
            Some((u, c)) => (Some(u), Some(c)),
            None => (None, None),
        };
        let bytes: &[u8] = match (&req.fixed, &cookie) {
            // The benchmark's path: the bytes rendered once, sent as they are.
            (Some(f), None) => &f.bytes,
            _ => {
                self.out.clear();
                req.render(&mut self.vars, &first, &self.path, cookie.as_deref(), &mut self.body, &mut self.out);
                &self.out
            }
        };
        let mut ex = self.client.send(&wire(req, &first, req.is_head, &self.abandon), bytes, start).await;
        if ex.abandoned_before_send {
            // The run ended while connecting: the server saw no request, so there is no sample.
            return true;
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
            let resp = Response::new(self.client.head(), self.client.body(), ex.status);
            if ex.set_cookie && self.jar.is_some() {
                if url.is_none() {
                    url = url_of(target, path);
                }
                store_cookies(self.jar.as_mut(), url.as_ref(), &resp);
            }
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
            self.record(spec.hop_labels[hops], hop_start, end, &ex, ex.error, true, (target, path));
            hops += 1;
            let (next_url, cookie) = match self.cookie_header(&next_target, &next_path) {
                Some((u, c)) => (Some(u), Some(c)),
                None => (None, None),
            };
            url = next_url;
            let (method, target, path) = &*hop.insert((next_method, next_target, next_path));
            self.out.clear();
            let h = Hop { method, target, path, with_body };
            req.render_hop(&mut self.vars, &h, cookie.as_deref(), req.body_sent(&self.body), &mut self.out);
            hop_start = Instant::now();
            ex = self.client.send(&wire(req, target, method == "HEAD", &self.abandon), &self.out, hop_start).await;
            error = ex.error;
            // The chain's sample has the last response's status, as JMeter's parent sample.
            total.status = ex.status;
            total.bytes_sent += ex.bytes_sent;
            total.bytes_received += ex.bytes_received;
            total.connect += ex.connect;
            total.new_connection |= ex.new_connection;
        }
        let end = ex.end.unwrap_or_else(Instant::now);
        // A `status` check decides on its own whether the status is a success: it can expect a
        // 401 (JMeter's Response Assertion with "Ignore Status").
        if matches!(error, Some(ErrorKind::Status(s)) if crate::record::error_kind::valid_status(s))
            && (spec.ignore_status || spec.checks.iter().any(|c| matches!(c.test, CheckTest::Status(_))))
        {
            error = None;
        }
        // The final response: extractors, then checks.
        if !spec.extract.is_empty() || !spec.checks.is_empty() {
            let (target, path) = match &hop {
                Some((_, t, p)) => (t, p.as_str()),
                None => (&*first, self.path.as_str()),
            };
            let final_url = format!("{}://{}{}", target.scheme(), target.authority(), path);
            let resp = Response::new(self.client.head(), self.client.body(), ex.status);
            // The last request sent: the fixed bytes, or the ones rendered into `out`.
            let sent: &[u8] = match (&req.fixed, &cookie) {
                (Some(f), None) if hops == 0 => &f.bytes,
                _ => &self.out,
            };
            let vars = &mut self.vars;
            let mut apply = || {
                super::super::response::apply(
                    spec,
                    &resp,
                    sent,
                    &final_url,
                    end.saturating_duration_since(start),
                    ex.bytes_received,
                    vars,
                )
            };
            // Decoding a large compressed body takes a while: off this worker, so the other
            // users it runs are not held up behind it.
            let failed = if resp.is_compressed() && resp.body_len() > OFFLOAD_DECODE_ABOVE {
                off_the_worker(apply)
            } else {
                apply()
            };
            error = error.or(failed);
        }
        {
            let (last_target, last_path) = match &hop {
                Some((_, t, p)) => (t, p.as_str()),
                None => (&*first, self.path.as_str()),
            };
            if hops > 0 {
                if !ex.abandoned_before_send {
                    self.record(spec.hop_labels[hops], hop_start, end, &ex, error, true, (last_target, last_path));
                }
                total.end = Some(end);
                self.record(spec.label, start, end, &total, error, false, (&*first, self.path.as_str()));
            } else {
                self.record(spec.label, start, end, &ex, error, true, (last_target, last_path));
            }
        }
        if error == Some(ErrorKind::GeneratorFds) {
            self.fd_backoff = (self.fd_backoff * 2).clamp(FD_BACKOFF_MIN, FD_BACKOFF_MAX);
            tokio::select! {
                _ = tokio::time::sleep(self.fd_backoff) => {}
                _ = ctx.stop.cancelled() => {}
            }
        } else {
            self.fd_backoff = Duration::ZERO;
        }
        if self.groups.iter().any(|g| g.open) {
            let (start_us, end_us) = (ctx.micros(start), ctx.micros(end));
            let ttfb = total.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64);
            for g in self.groups.iter_mut().filter(|g| g.open) {
                g.elapsed_us += end_us.saturating_sub(start_us);
                g.ttfb_us += ttfb;
                g.connect_us += total.connect.as_micros() as u64;
                g.bytes_sent += total.bytes_sent;
                g.bytes_received += total.bytes_received;
                if g.error.is_none() || error.is_some() {
                    g.status = total.status;
                }
                g.error = g.error.or(error);
            }
        }
        error.is_some()
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        label: LabelId,
        start: Instant,
        end: Instant,
        ex: &super::super::client::Exchange,
        error: Option<ErrorKind>,
        in_total: bool,
        at: (&Target, &str),
    ) {
        let ctx = &self.ctx;
        let sample = Sample {
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
        };
        if self.inside_parent_group() {
            return;
        }
        ctx.recorder.record(&sample);
        // The URL only for a per-sample log: formatting it costs allocations on every request.
        if ctx.shared.sample_log.is_some() {
            let (target, path) = at;
            self.log_row(&sample, ex.status, format!("{}://{}{}", target.scheme(), target.authority(), path));
        }
    }

    /// Records a request that could not be sent because its URL is not usable; it failed.
    pub(in crate::engine) fn bad_url(&self, label: LabelId, start: Instant, target: &Target, at: &str) -> bool {
        let now = Instant::now();
        let mut ex = super::super::client::Exchange::default();
        ex.end = Some(now);
        self.record(label, start, now, &ex, Some(ErrorKind::BadUrl), true, (target, at));
        true
    }

    /// Sends a sample to the per-sample log (the JTL file), when there is one.
    pub(in crate::engine) fn log_row(&self, sample: &Sample, status: u16, url: String) {
        let ctx = &self.ctx;
        if let Some(log) = &ctx.shared.sample_log {
            let _ = log.send(SampleRow {
                timestamp_ms: ctx.shared.epoch_unix_ms + sample.start_us / 1000,
                // Whole ms as JMeter writes them, rounded to the nearest (not cut down).
                elapsed_ms: (sample.elapsed_us() + 500) / 1000,
                label: sample.label.0,
                status,
                error: sample.error,
                scenario: ctx.index,
                user: self.vars.thread_num,
                bytes: sample.bytes_received,
                sent_bytes: sample.bytes_sent,
                group_users: ctx.active.load(Ordering::Relaxed),
                all_users: ctx.shared.active_all.load(Ordering::Relaxed),
                url,
                latency_ms: (sample.ttfb_us + 500) / 1000,
                connect_ms: (sample.connect_us + 500) / 1000,
            });
        }
    }
}

fn url_of(target: &Target, path: &str) -> Option<url::Url> {
    url::Url::parse(&format!("{}://{}{}", target.scheme(), target.authority(), path)).ok()
}

fn wire<'a>(req: &PreparedRequest, target: &'a Target, is_head: bool, abandon: &'a CancellationToken) -> Wire<'a> {
    Wire {
        abandon,
        target,
        keep_alive: req.keep_alive,
        is_head,
        connect_timeout: req.connect_timeout,
        response_timeout: req.response_timeout,
        max_response_size: req.max_response_size,
        keep_body: req.keep_body,
    }
}

fn store_cookies(jar: Option<&mut cookie_store::CookieStore>, url: Option<&url::Url>, resp: &Response<'_>) {
    if let (Some(jar), Some(url)) = (jar, url) {
        for v in resp.headers_named("set-cookie") {
            // A cookie the jar refuses (wrong domain, malformed) is dropped, as a browser does.
            let _ = jar.parse(v, url);
        }
    }
}
