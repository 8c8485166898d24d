//! "Retrieve All Embedded Resources": a page's resources found, fetched one after another,
//! and recorded as JMeter's container sample of the page.

use super::{resp_body, store_cookies, url_of, wire};
use crate::engine::client::Exchange;
use crate::engine::request::{Hop, PreparedRequest};
use crate::engine::response::Response;
use crate::engine::user::VirtualUser;
use crate::plan::{LabelId, RequestSpec, Target};
use crate::record::ErrorKind;
use std::time::Instant;

impl VirtualUser {
    /// The embedded resources of the page just received from `first` (its response, `status`).
    pub(super) fn page_resources(
        &self,
        e: &crate::plan::sampler::http::Embedded,
        spec: &RequestSpec,
        first: &Target,
        status: u16,
    ) -> Option<Vec<url::Url>> {
        let resp = Response::new(self.conns.client.head(), self.conns.client.body(), status);
        let ct = resp.header("content-type").unwrap_or_default().to_string();
        let body = resp_body(&resp, self.conns.client.body(), spec.max_response_size);
        let page = url_of(first, &self.path);
        page.and_then(|p| crate::engine::embedded::resources(&ct, &body, &p, e))
    }

    /// Records a page and its embedded resources (`subs`), as JMeter's container
    /// (downloadPageResources): a sample of the sampler's name holding the page's own as
    /// `label-0` and a resource's as `label-1`...; it lasts until the last one ends, holds their
    /// bytes (into `total` too), and fails when one fails. Returns its error.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_page(
        &self,
        label: LabelId,
        (start, end): (Instant, Instant),
        ex: &Exchange,
        (mut error, mut note): (Option<ErrorKind>, Option<Box<(String, String)>>),
        subs: &[(LabelId, Instant, Instant, Exchange, Target, String)],
        total: &mut Exchange,
        first: &Target,
    ) -> Option<ErrorKind> {
        let mut whole = *ex;
        let mut whole_end = end;
        for (_, _, e, x, _, _) in subs {
            whole.bytes_sent += x.bytes_sent;
            whole.bytes_received += x.bytes_received;
            whole_end = whole_end.max(*e);
            if error.is_none() && x.error.is_some() {
                // Failed, yet with the page's code and message (setParentSampleSuccess).
                let page = (ex.status.to_string(), crate::http1::reason(ex.status).to_string());
                note = note.or(Some(Box::new(page)));
                error = x.error;
            }
        }
        total.bytes_sent = whole.bytes_sent;
        total.bytes_received = whole.bytes_received;
        // Its row comes first.
        self.record(label, start, whole_end, &whole, error, true, (first, self.path.as_str()), note);
        let own = self.ctx.shared.run_labels.intern(&format!("{}-0", self.label_name(label)), label);
        self.record(own.unwrap_or(label), start, end, ex, ex.error, false, (first, self.path.as_str()), None);
        for (sub, s, e, x, target, path) in subs {
            self.record(*sub, *s, *e, x, x.error, false, (target, path), None);
        }
        error
    }

    /// JMeter's serial download of a page's embedded resources (`downloadPageResources`): a GET
    /// of each URL with the sampler's headers, cookies and managers. Returns each one's
    /// sub-result `label-1`, `label-2`... with its exchange, to be recorded after the page's.
    pub(super) async fn embedded_resources(
        &mut self,
        req: &PreparedRequest,
        label: LabelId,
        urls: &[url::Url],
    ) -> Vec<(LabelId, Instant, Instant, crate::engine::client::Exchange, Target, String)> {
        let ctx = self.ctx.clone();
        let (spec, pm) = (&req.spec, &ctx.shared.managers);
        let name = self.label_name(label);
        let mut subs = Vec::with_capacity(urls.len());
        for u in urls {
            if ctx.stopping() {
                break;
            }
            let Some(host) = u.host_str() else { continue };
            let target = Target {
                tls: u.scheme() == "https",
                host: host.trim_start_matches('[').trim_end_matches(']').to_string(),
                port: u.port_or_known_default().unwrap_or(80),
            };
            let mut path = u.path().to_string();
            if let Some(q) = u.query() {
                path.push('?');
                path.push_str(q);
            }
            let n = subs.len() + 1;
            let sub = ctx.shared.run_labels.intern(&format!("{name}-{n}"), label).unwrap_or(label);
            let (url, cookie) = self.extra_headers(spec, pm, &target, &path);
            self.out.clear();
            let h = Hop { method: "GET", target: &target, path: &path, with_body: false };
            req.render_hop(&mut self.session.vars, &h, cookie.as_deref(), &[], &mut self.out);
            let start = Instant::now();
            let w = wire(req, &target, false, &self.abandon, &ctx.shared);
            let ex = self.conns.client.send(&w, &self.out, start).await;
            if ex.abandoned_before_send {
                break;
            }
            if ex.set_cookie && self.session.jar.is_some() && !spec.managers.jarless {
                let url = url.or_else(|| url_of(&target, &path));
                let resp = Response::new(self.conns.client.head(), self.conns.client.body(), ex.status);
                store_cookies(self.session.jar.as_mut(), url.as_ref(), &resp, pm.cookie_policy(&spec.managers));
            }
            let end = ex.end.unwrap_or_else(Instant::now);
            subs.push((sub, start, end, ex, target, path));
        }
        subs
    }
}
