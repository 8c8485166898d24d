//! The Access Log Sampler's step (`AccessLogSampler.sampleWithParser`): the log's next entry
//! for this user becomes the request's path, method and arguments, after those of HTTP
//! Request Defaults; past the end of the log, a failed sample (see [`crate::plan::accesslog`]).

use super::super::program::AccessLogOp;
use super::super::request::{encode_target, PreparedRequest};
use super::super::scripting::SamplerEdits;
use super::super::user::{IterEnd, VirtualUser};
use crate::plan::accesslog::{Entry, Source};
use crate::record::ErrorKind;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl VirtualUser {
    /// Whether the sample failed (`None`: no sample), and whether the user must stop after it.
    pub(in crate::engine) async fn access_log(
        &mut self,
        op: &AccessLogOp,
        start: Instant,
    ) -> (Option<bool>, Option<IterEnd>) {
        let req = &op.req;
        let log = req.spec.access_log.as_deref().expect("an Access Log Sampler's request");
        let entries = match &log.source {
            Source::Entries(e) => e,
            Source::Fails(check) => {
                let failed = self.unsent(log.unlabelled, start, &req.target, "", ErrorKind::Check(check.0));
                return (Some(failed), None);
            }
        };
        let n = entries.len() as u64;
        let slot = log.slot as usize;
        let next = if log.shared {
            // JMeter's FileServer starts the file again at its end: only an empty log ends.
            (n > 0).then(|| self.ctx.shared.counters[slot].fetch_add(1, Ordering::Relaxed) % n)
        } else {
            let pos = &mut self.plan.counters[slot];
            if *pos < n {
                *pos += 1;
                Some(*pos - 1)
            } else {
                // The parser's reader is closed at the end: the next sample reads from the start.
                *pos = 0;
                None
            }
        };
        let Some(i) = next else {
            // "No entries found": the thread stops, unless a filter is set and the log had
            // entries (the parser's count of the sample before was not 0); then the Cookie
            // Manager is cleared and the log starts again.
            let stop = !log.filter || n == 0;
            if log.filter {
                if let Some(jar) = self.session.jar.as_mut() {
                    *jar = super::super::jar::Jar::default();
                }
            }
            let failed = self.unsent(log.unlabelled, start, &req.target, "", ErrorKind::Check(log.no_entries.0));
            return (Some(failed), stop.then_some(IterEnd::UserDone));
        };
        let entry = &entries[i as usize];
        let url = self.entry_edits(req, entry);
        self.session.vars.set(log.url_var, &url);
        let sent = if entry.method == "HEAD" { &op.head } else { req };
        let sampled = self.request(sent, start).await;
        // A request that failed before it was sent leaves the entry unused: it is not the
        // next sampler's.
        self.session.sampler_edits = None;
        (sampled, None)
    }

    /// Puts the entry on the sampler (as a pre-processor's edits) and returns its URL as JMeter
    /// names the sample (`HTTPSamplerBase.toString`: the query of a POST after "Query Data").
    fn entry_edits(&mut self, req: &PreparedRequest, e: &Entry) -> String {
        let spec = &req.spec;
        let mut path = e.path.clone();
        encode_target(&mut path, 0);
        if !path.starts_with('/') {
            path.insert(0, '/');
        }
        // HTTP Request Defaults' arguments first (merged into the sampler before it parses the
        // entry), then the entry's, sent as written.
        let mut args: Vec<(String, Option<String>, bool)> = spec
            .query
            .iter()
            .map(|p| {
                let v = p.value.render_string(&mut self.session.vars);
                let bare = p.bare_when_empty && v.is_empty();
                (p.name.clone(), (!bare).then_some(v), p.encoded)
            })
            .collect();
        for (name, value) in &e.args {
            let mut name = name.clone();
            encode_target(&mut name, 0);
            let value = value.clone().map(|mut v| {
                encode_target(&mut v, 0);
                v
            });
            args.push((name, value, true));
        }
        let mut query = String::new();
        for (n, v, encoded) in &args {
            if !query.is_empty() {
                query.push('&');
            }
            push_encoded(&mut query, n, *encoded);
            if let Some(v) = v {
                query.push('=');
                push_encoded(&mut query, v, *encoded);
            }
        }
        let origin = match &spec.origin {
            // No server: java.net.URL writes `http:/path`.
            None if req.target.host.is_empty() => format!("{}:", req.target.scheme()),
            None => format!("{}://{}", req.target.scheme(), req.target.authority()),
            Some(o) => {
                let text = o.render_string(&mut self.session.vars);
                match crate::plan::resolve_url(&text, None) {
                    Ok((t, _)) => format!("{}://{}", t.scheme(), t.authority()),
                    Err(_) => text,
                }
            }
        };
        let mut edits = self.session.sampler_edits.take().map(|b| *b).unwrap_or_default();
        let url = match e.method {
            // A form of the arguments as they are (the Java implementation's PostWriter).
            "POST" => {
                edits.args_set = Some(Vec::new());
                edits.args.extend(args.into_iter().map(|(n, v, enc)| {
                    let encode = |t: &str| if enc { t.to_string() } else { form_encoded(t) };
                    (encode(&n), encode(&v.unwrap_or_default()), true)
                }));
                format!("{origin}{path}\nQuery Data: {query}")
            }
            // JMeter sends a HEAD without a query.
            "HEAD" => {
                edits.args_set = Some(Vec::new());
                format!("{origin}{path}")
            }
            _ => {
                edits.args_set = Some(args);
                if query.is_empty() {
                    format!("{origin}{path}")
                } else {
                    format!("{origin}{path}?{query}")
                }
            }
        };
        if e.method != spec.method {
            edits.method = Some(e.method.to_string());
        }
        edits.path = Some(path);
        self.session.sampler_edits = Some(Box::<SamplerEdits>::new(edits));
        url
    }
}

fn form_encoded(t: &str) -> String {
    url::form_urlencoded::byte_serialize(t.as_bytes()).collect()
}

fn push_encoded(out: &mut String, t: &str, encoded: bool) {
    if encoded {
        out.push_str(t);
    } else {
        out.extend(url::form_urlencoded::byte_serialize(t.as_bytes()));
    }
}
