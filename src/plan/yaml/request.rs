//! `request:` — an HTTP request: its URL, headers, body, connection settings, extractors and
//! checks, made with the builder's request (labels, redirect hops).

use super::node::Node;
use super::*;
use crate::plan::sampler::http::{self, Body, Param, Part, PartContent};

const REQUEST_KEYS: &[&str] = &[
    "label",
    "method",
    "url",
    "query",
    "headers",
    "body",
    "body_file",
    "json",
    "form",
    "multipart",
    "gzip",
    "keep_alive",
    "http_version",
    "connect_timeout",
    "response_timeout",
    "max_response_size",
    "follow_redirects",
    "max_redirects",
    "extract",
    "check",
];
const PART_KEYS: &[&str] = &["name", "value", "file", "filename", "content_type"];
const BODY_KEYS: [&str; 5] = ["body", "body_file", "json", "form", "multipart"];

impl Cx {
    pub(super) fn headers(&mut self, n: Option<&Node>, el: &str) -> Result<Vec<(String, Template)>, Error> {
        let mut out = Vec::new();
        for (k, v) in self.map(n, el)? {
            let name = k.scalar_text().unwrap_or_default();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(self.invalid(k, el, format!("`{name}` is not a valid header name")));
            }
            let hel = format!("{el}.{name}");
            let value = self.tmpl(v, &hel)?;
            if value.source().contains(['\r', '\n']) {
                return Err(self.invalid(v, &hel, "a header value cannot contain a line break"));
            }
            out.push((name, value));
        }
        Ok(out)
    }

    /// The scheme and authority of a URL are fixed when the plan loads; its path and query may
    /// hold run-time values.
    fn url(&mut self, v: &Node, el: &str) -> Result<(Target, Template, Option<Template>), Error> {
        let raw = self.raw(v, el)?;
        let base = self.defaults.base_url.clone();
        self.places.entry(el.to_string()).or_insert(v.pos);
        compile_url(&raw, base.as_deref(), &mut self.b.sym, el)
            .map_err(|(kind, m)| Error::new(kind, self.loc(v, el), m))
    }

    pub(super) fn request(&mut self, n: &Node, el: &str) -> Result<RequestSpec, Error> {
        let r = self.fields(n, el, "RequestDoc", REQUEST_KEYS)?;
        let f = |name: &str| format!("{el}.{name}");
        let url = self.required(&r, "url", el)?;
        let (target, path, origin) = self.url(url, &f("url"))?;
        let mut query = Vec::new();
        for (k, v) in self.map(r.raw("query"), &f("query"))? {
            let key = k.scalar_text().unwrap_or_default();
            query.push(Param::new(key.clone(), self.tmpl(v, &format!("{el}.query.{key}"))?));
        }
        let bodies: Vec<&Node> = BODY_KEYS.iter().filter_map(|k| r.get(k).and(r.key(k))).collect();
        if bodies.len() > 1 {
            return Err(self.invalid(
                bodies[1],
                el,
                "give only one of `body`, `body_file`, `json`, `form`, `multipart`",
            ));
        }
        let method = match r.get("method") {
            Some(m) => {
                let t = self.text(m, &f("method"))?;
                validate_method(&t).map_err(|msg| self.invalid(m, &f("method"), msg))?
            }
            None if !bodies.is_empty() => "POST".into(),
            None => "GET".into(),
        };
        let label = match r.get("label") {
            Some(l) => self.text(l, &f("label"))?,
            None => path.source().split('?').next().unwrap_or("/").to_string(),
        };
        // Defaults first, then the request's own headers replace same-named ones.
        let own = self.headers(r.raw("headers"), &f("headers"))?;
        let mut headers: Vec<(String, Template)> = self
            .defaults
            .headers
            .iter()
            .filter(|(k, _)| !own.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)))
            .cloned()
            .collect();
        headers.extend(own);
        let body = self.body(&r, el, &mut headers)?;
        let gzip = self.opt_bool(r.get("gzip"), &f("gzip"), false)?;
        if gzip && matches!(body, Body::None) {
            return Err(self.invalid(r.get("gzip").unwrap_or(n), &f("gzip"), "`gzip` needs a body"));
        }
        let d = self.defaults.clone();
        let keep_alive = self.opt_bool(r.get("keep_alive"), &f("keep_alive"), d.keep_alive)?;
        let http_version =
            r.get("http_version").map(|v| self.version(v, &f("http_version"))).transpose()?.unwrap_or(d.http_version);
        let connect_timeout =
            self.opt_timeout(r.get("connect_timeout"), &f("connect_timeout"))?.unwrap_or(d.connect_timeout);
        let response_timeout =
            self.opt_timeout(r.get("response_timeout"), &f("response_timeout"))?.unwrap_or(d.response_timeout);
        let max_response_size = r
            .get("max_response_size")
            .map(|v| self.size(v, &f("max_response_size")))
            .transpose()?
            .unwrap_or(d.max_response_size);
        let follow_redirects = self.opt_bool(r.get("follow_redirects"), &f("follow_redirects"), d.follow_redirects)?;
        let max_redirects = match r.get("max_redirects") {
            Some(v) => self.count(v, &f("max_redirects"))?,
            None => d.max_redirects,
        };
        let mut req = self.b.request(&label, method, target, path, &d);
        if follow_redirects {
            self.b.follow_redirects(&mut req, max_redirects);
        }
        req.after.extract = self
            .seq(r.raw("extract"), &f("extract"))?
            .iter()
            .enumerate()
            .map(|(i, x)| self.extractor(x, &format!("{el}.extract[{i}]")))
            .collect::<Result<_, _>>()?;
        req.after.checks = self
            .seq(r.raw("check"), &f("check"))?
            .iter()
            .enumerate()
            .map(|(i, c)| self.check(c, &format!("{el}.check[{i}]")))
            .collect::<Result<_, _>>()?;
        req.origin = origin;
        req.query = query;
        req.headers = headers;
        req.body = body;
        req.gzip = gzip;
        req.keep_alive = keep_alive;
        req.http_version = http_version;
        req.connect_timeout = connect_timeout;
        req.response_timeout = response_timeout;
        req.max_response_size = max_response_size;
        Ok(req)
    }

    /// The one body a request may give, with the `Content-Type` it implies.
    fn body(&mut self, r: &Fields<'_>, el: &str, headers: &mut Vec<(String, Template)>) -> Result<Body, Error> {
        let f = |name: &str| format!("{el}.{name}");
        let has = |h: &[(String, Template)], n: &str| h.iter().any(|(k, _)| k.eq_ignore_ascii_case(n));
        let mut body = Body::None;
        if let Some(b) = r.get("body") {
            body = Body::Text(self.tmpl(b, &f("body"))?);
        }
        if let Some(b) = r.get("body_file") {
            body = Body::Bytes(self.read_file(b, &f("body_file"), "body file")?.1);
        }
        if let Some(j) = r.get("json") {
            let text = serde_json::to_string(&j.to_json()).map_err(|e| self.invalid(j, &f("json"), e.to_string()))?;
            body = Body::Text(self.tmpl_str(&text, &f("json"), j)?);
            if !has(headers, "content-type") {
                headers.push(("Content-Type".into(), Template::literal("application/json")));
            }
        }
        if let Some(form) = r.get("form") {
            let mut fields = Vec::new();
            for (k, v) in self.map(Some(form), &f("form"))? {
                let name = k.scalar_text().unwrap_or_default();
                fields.push(Param::new(name.clone(), self.tmpl(v, &format!("{el}.form.{name}"))?));
            }
            body = Body::Form(fields);
            if !has(headers, "content-type") {
                headers.push(("Content-Type".into(), Template::literal("application/x-www-form-urlencoded")));
            }
        }
        if let Some(parts) = r.get("multipart") {
            body = Body::Multipart(self.multipart(parts, &f("multipart"))?);
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
            headers.push((
                "Content-Type".into(),
                Template::literal(format!("multipart/form-data; boundary={}", http::MULTIPART_BOUNDARY)),
            ));
        }
        Ok(body)
    }

    fn multipart(&mut self, n: &Node, el: &str) -> Result<Vec<Part>, Error> {
        let mut out = Vec::new();
        for (i, pn) in self.seq(Some(n), el)?.iter().enumerate() {
            let pel = format!("{el}[{i}]");
            let p = self.fields(pn, &pel, "PartDoc", PART_KEYS)?;
            let name = self.required(&p, "name", &pel)?;
            let name = self.text(name, &format!("{pel}.name"))?;
            let content_type =
                p.get("content_type").map(|v| self.text(v, &format!("{pel}.content_type"))).transpose()?;
            let mut filename = p.get("filename").map(|v| self.text(v, &format!("{pel}.filename"))).transpose()?;
            let content = match (p.get("value"), p.get("file")) {
                (Some(v), None) => PartContent::Text(self.tmpl(v, &format!("{pel}.value"))?),
                (None, Some(fv)) => {
                    let (path, bytes) = self.read_file(fv, &format!("{pel}.file"), "multipart file")?;
                    if filename.is_none() {
                        filename = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    }
                    PartContent::Bytes(bytes)
                }
                _ => return Err(self.invalid(pn, &pel, "a part has exactly one of `value` or `file`")),
            };
            out.push(Part { name, filename, content_type, transfer_encoding: None, content });
        }
        Ok(out)
    }
}
