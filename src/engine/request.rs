//! [`PreparedRequest`]: a [`RequestSpec`] ready to go on the wire. A request whose every part
//! is fixed is rendered to bytes once per plan, so sending it is one copy (plus the lines
//! a user adds: cookies, credentials, a cache's conditions); any other request is rendered per send from
//! its templates into the user's buffer.

use crate::engine::session::UserVars;
use crate::plan::sampler::http::{Param, Part, PartContent, UrlRewrite, MULTIPART_BOUNDARY};
use crate::plan::{Body, HttpVersion, RequestSpec, Target};
use std::borrow::Cow;
use std::time::Duration;

pub(super) const USER_AGENT: &str = concat!("stampede/", env!("CARGO_PKG_VERSION"));

#[derive(Debug, Clone)]
pub(crate) struct PreparedRequest {
    pub target: Target,
    pub keep_alive: bool,
    pub is_head: bool,
    pub connect_timeout: Duration,
    pub response_timeout: Duration,
    pub max_response_size: u64,
    /// The whole request when nothing in it varies.
    pub fixed: Option<Fixed>,
    /// Whether handling the response reads its body (checks, extractors).
    pub keep_body: bool,
    pub spec: RequestSpec,
}

/// A request rendered once: `bytes[..head_end]` is the head up to the blank line, where a
/// `Cookie` line can be inserted; `bytes[body_start..]` is the body.
#[derive(Debug, Clone)]
pub(crate) struct Fixed {
    pub path: String,
    pub bytes: Vec<u8>,
    pub head_end: usize,
    pub body_start: usize,
}

/// What changes for a redirect hop: where it goes, and its method (a 303, or a 301/302 after a
/// POST, becomes a GET without body).
pub(crate) struct Hop<'a> {
    pub method: &'a str,
    pub target: &'a Target,
    pub path: &'a str,
    pub with_body: bool,
}

/// The URL a rendered path holds when it is a whole `http(s)://` URL (JMeter takes it as the
/// URL), with or without the `/` put before a path that lacks one.
pub(super) fn full_url_in_path(path: &str) -> Option<&str> {
    let p = path.strip_prefix('/').unwrap_or(path);
    (p.starts_with("http://") || p.starts_with("https://")).then_some(p)
}

/// The URL JMeter hands to java.net.URI for a path from [`PreparedRequest::render_unencoded`]:
/// the path itself when it is a whole URL, else after the target's scheme and authority
/// (HTTPSamplerBase.getUrl; a default port left out).
pub(super) fn java_url(target: &Target, path: &str) -> String {
    match full_url_in_path(path) {
        Some(url) => url.to_string(),
        None => format!("{}://{}{}", target.scheme(), target.authority(), path),
    }
}

impl PreparedRequest {
    pub(crate) fn new(spec: &RequestSpec) -> PreparedRequest {
        let mut req = PreparedRequest {
            target: spec.target.clone(),
            keep_alive: spec.keep_alive,
            is_head: spec.is_head(),
            connect_timeout: spec.connect_timeout,
            response_timeout: spec.response_timeout,
            max_response_size: spec.max_response_size,
            fixed: None,
            keep_body: spec.reads_body(),
            spec: spec.clone(),
        };
        // A constant path that is a whole URL (a plan variable holding one) is that URL; the
        // engine does the same for one that only turns into a URL while running.
        if req.spec.origin.is_none() {
            if let Some(Ok((t, path))) =
                req.spec.path.as_const().and_then(full_url_in_path).map(|p| crate::plan::resolve_url(p, None))
            {
                if !t.host.is_empty() {
                    req.target = t.clone();
                    req.spec.target = t;
                    req.spec.path = crate::plan::Template::literal(path);
                }
            }
        }
        // A constant URL java.net.URI refuses fails each sample (JMeter's rule): the engine
        // tells so per send, so it is not rendered once here.
        if req.is_fixed() && !(req.spec.java_uri && req.refused_when_fixed()) {
            // Fixed parts render without any user state.
            let mut u = UserVars::new(Vec::new(), 0, 0, Default::default());
            let mut body = Vec::new();
            req.render_body(&mut u, &[], &mut body);
            let mut path = String::new();
            req.render_path(&mut u, &mut path);
            let mut bytes = Vec::new();
            let head_end = req.render_head(&mut u, None, &req.spec.target, &path, body.len(), &mut bytes);
            bytes.extend_from_slice(b"\r\n");
            let body_start = bytes.len();
            bytes.extend_from_slice(&body);
            req.fixed = Some(Fixed { path, bytes, head_end, body_start });
        }
        req
    }

    /// Whether java.net.URI refuses the request's constant URL.
    fn refused_when_fixed(&self) -> bool {
        let mut path = String::new();
        self.render_unencoded(&mut UserVars::new(Vec::new(), 0, 0, Default::default()), &mut path);
        crate::plan::java_uri::refusal(&java_url(&self.spec.target, &path)).is_some()
    }

    fn is_fixed(&self) -> bool {
        let s = &self.spec;
        s.origin.is_none()
            && s.path.is_const()
            && s.param_overrides.is_empty()
            && s.url_rewrites.is_empty()
            && s.query.iter().all(|p| p.value.is_const())
            && s.headers.iter().all(|(_, t)| t.is_const())
            && match &s.body {
                Body::None | Body::Bytes(_) => true,
                Body::Text(t) => t.is_const(),
                Body::Form(f) => f.iter().all(|p| p.value.is_const()),
                Body::Multipart(parts) => parts.iter().all(|p| match &p.content {
                    PartContent::Text(t) => t.is_const(),
                    PartContent::Bytes(_) => true,
                    PartContent::File { .. } => false,
                }),
                Body::File { .. } => false,
            }
    }

    /// The URL Re-writing Modifiers that change this send, with their values: none before the
    /// user's first sample; with "cache", the last value found when the previous response has
    /// none (and a value found is kept for later).
    fn url_rewrites(&self, u: &mut UserVars) -> Vec<(&UrlRewrite, String)> {
        let mut out = Vec::new();
        for r in &self.spec.url_rewrites {
            let found = u.get(r.found);
            if found == UrlRewrite::NO_PREVIOUS {
                continue;
            }
            let mut v = found.to_string();
            if let Some(saved) = r.saved {
                if v.is_empty() {
                    v = u.get(saved).to_string();
                } else {
                    u.set(saved, &v);
                }
            }
            // JMeter makes the argument "already encoded" unless `encode` is set: it decodes it.
            if !r.encode {
                v = url_decode(&v);
            }
            out.push((r, v));
        }
        out
    }

    /// Appends query parameter `i` of the path rendered from `start` of `out`.
    fn push_query_param(&self, i: usize, p: &Param, u: &mut UserVars, out: &mut String, start: usize) {
        let sep = if i == 0 && !out[start..].contains('?') { '?' } else { '&' };
        out.push(sep);
        let v = self.param_value(p, u);
        if p.encoded {
            out.push_str(&p.name);
        } else {
            out.extend(url::form_urlencoded::byte_serialize(p.name.as_bytes()));
        }
        // "Include Equals?" off: an empty value leaves the name alone.
        if p.bare_when_empty && v.is_empty() {
            return;
        }
        out.push('=');
        if p.encoded {
            out.push_str(&v);
        } else {
            out.extend(url::form_urlencoded::byte_serialize(v.as_bytes()));
        }
    }

    /// The query parameters as sent, after the URL Re-writing Modifiers in scope, in their
    /// order (`URLRewritingModifier.modify`): a path extension replaces the old `;name...` of
    /// the path rendered from `start` of `out` (up to a `?`) and goes at its end, and for a GET
    /// or DELETE what then follows a `?` becomes an argument at the end of the list, as
    /// `setPath` parses it; a parameter replaces the one of its name, at the end of the list
    /// (in the form instead, for a form body).
    fn query_with_rewrites<'a>(&'a self, u: &mut UserVars, out: &mut String, start: usize) -> Vec<Cow<'a, Param>> {
        let mut items: Vec<Cow<'a, Param>> = self.spec.query.iter().map(Cow::Borrowed).collect();
        let get_like = matches!(self.spec.method.as_str(), "GET" | "DELETE");
        let form = matches!(self.spec.body, Body::Form(_));
        for (r, v) in self.url_rewrites(u) {
            if !r.path_extension {
                if !form {
                    items.retain(|p| p.name != r.name);
                    items.push(Cow::Owned(rewritten_param(&r.name, &v)));
                }
                continue;
            }
            let key = format!(";{}", r.name);
            if let Some(i) = out[start..].find(&key).map(|i| start + i) {
                match out[i..].find('?') {
                    Some(q) => drop(out.drain(i..i + q)),
                    None => out.truncate(i),
                }
            }
            out.push_str(&key);
            if !r.no_equals {
                out.push('=');
            }
            out.push_str(&v);
            if let Some(q) = out[start..].find('?').filter(|_| get_like).map(|q| start + q) {
                let rest = out.split_off(q + 1);
                out.pop();
                let mut arg = rewritten_param(&rest, "");
                arg.bare_when_empty = true;
                items.push(Cow::Owned(arg));
            }
        }
        items
    }

    /// A query or form parameter's value as sent: the value a RegEx User Parameters in scope
    /// gives its name (the last one that gives one), else its own.
    fn param_value(&self, p: &Param, u: &mut UserVars) -> String {
        let mut value = None;
        for o in &self.spec.param_overrides {
            // JMeter's `buildParamsMap`: no map until the extractor has found its matches.
            let Ok(n) = u.get(o.count).parse::<usize>() else { continue };
            let found = (0..n.min(o.names.len())).rev().find(|&i| u.get(o.names[i]) == p.name);
            if let Some(i) = found {
                value = Some(u.get(o.values[i]).to_string());
            }
        }
        value.unwrap_or_else(|| p.value.render_string(u))
    }

    /// Appends the path and query as sent (rendered once per send: it may call functions).
    pub(crate) fn render_path(&self, u: &mut UserVars, out: &mut String) {
        if let Some(f) = &self.fixed {
            out.push_str(&f.path);
            return;
        }
        let start = out.len();
        self.render_unencoded(u, out);
        sendable(out, start);
    }

    /// Appends the path and query as JMeter hands them to `java.net.URI`: the path's spaces
    /// as `%20` (HTTPSamplerBase.getPath), query values as they are unless URL-encoded, a
    /// fragment kept. [`sendable`] makes it what is sent.
    pub(crate) fn render_unencoded(&self, u: &mut UserVars, out: &mut String) {
        let start = out.len();
        self.spec.path.render(u, out);
        if out[start..].contains(' ') {
            let path = out[start..].replace(' ', "%20");
            out.truncate(start);
            out.push_str(&path);
        }
        // JMeter adds a slash to a path that does not start with one (`${api}` holding `api/x`).
        if !out[start..].starts_with('/') {
            out.insert(start, '/');
        }
        if self.spec.collapse_slashes {
            collapse_slashes(out, start);
        }
        if self.spec.url_rewrites.is_empty() {
            for (i, p) in self.spec.query.iter().enumerate() {
                self.push_query_param(i, p, u, out, start);
            }
        } else {
            for (i, p) in self.query_with_rewrites(u, out, start).iter().enumerate() {
                self.push_query_param(i, p, u, out, start);
            }
        }
    }

    /// Appends the whole request for its first exchange to `out`; `path` comes from
    /// [`PreparedRequest::render_path`]. `body` is scratch space that ends up holding the body
    /// of a request that is not fixed (a 307/308 redirect sends it again; see
    /// [`PreparedRequest::body_sent`]). `fixed`: the bytes rendered once may be sent (not when
    /// a script pre-processor changed where the request goes). `uploads`: the files named at
    /// run time, read for this sample ([`read_uploads`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn render(
        &self,
        u: &mut UserVars,
        target: &Target,
        path: &str,
        extra: Option<&str>,
        uploads: Vec<Upload>,
        body: &mut Vec<u8>,
        out: &mut Vec<u8>,
        fixed: bool,
    ) {
        body.clear();
        if let Some(f) = self.fixed.as_ref().filter(|_| fixed) {
            out.extend_from_slice(&f.bytes[..f.head_end]);
            push_extra(out, extra);
            out.extend_from_slice(&f.bytes[f.head_end..]);
            return;
        }
        self.render_body(u, &uploads, body);
        self.render_head(u, None, target, path, body.len(), out);
        push_extra(out, extra);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(body);
    }

    /// The body the first exchange sent: the fixed bytes, or what [`PreparedRequest::render`]
    /// left in its `body` buffer.
    pub(crate) fn body_sent<'a>(&'a self, rendered: &'a [u8]) -> &'a [u8] {
        match &self.fixed {
            Some(f) => &f.bytes[f.body_start..],
            None => rendered,
        }
    }

    /// Appends a redirect hop's request to `out`; `body` is the first exchange's body.
    pub(crate) fn render_hop(
        &self,
        u: &mut UserVars,
        hop: &Hop<'_>,
        extra: Option<&str>,
        body: &[u8],
        out: &mut Vec<u8>,
    ) {
        let body = if hop.with_body { body } else { &[] };
        self.render_head(u, Some(hop), hop.target, hop.path, body.len(), out);
        push_extra(out, extra);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(body);
    }

    /// Writes the request line and headers (without the final blank line); returns the length
    /// of `out` at the end.
    fn render_head(
        &self,
        u: &mut UserVars,
        hop: Option<&Hop<'_>>,
        target: &Target,
        path: &str,
        body_len: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        let s = &self.spec;
        let mut head = String::with_capacity(256);
        let method = hop.map_or(s.method.as_str(), |h| h.method);
        head.push_str(method);
        head.push(' ');
        head.push_str(path);
        head.push(' ');
        head.push_str(s.http_version.as_str());
        head.push_str("\r\n");
        let with_body = hop.is_none_or(|h| h.with_body);
        let has = |name: &str| s.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
        // A hop to another host names that host, whatever the plan's Host header said.
        let moved = *target != s.target;
        if !has("host") || moved {
            head.push_str("Host: ");
            head.push_str(&target.authority());
            head.push_str("\r\n");
        }
        if !has("user-agent") {
            head.push_str("User-Agent: ");
            head.push_str(USER_AGENT);
            head.push_str("\r\n");
        }
        for (k, v) in &s.headers {
            // stampede frames the body and manages the connection itself.
            if k.eq_ignore_ascii_case("content-length") || k.eq_ignore_ascii_case("connection") {
                continue;
            }
            if k.eq_ignore_ascii_case("content-encoding") && s.gzip {
                continue;
            }
            if k.eq_ignore_ascii_case("host") && moved {
                continue;
            }
            let is_body_header = k.len() > 8 && k[..8].eq_ignore_ascii_case("content-");
            if is_body_header && !with_body {
                continue;
            }
            head.push_str(k);
            head.push_str(": ");
            let at = head.len();
            v.render(u, &mut head);
            // A value from a response must not be able to add header lines.
            if head[at..].contains(['\r', '\n']) {
                let clean = head[at..].replace(['\r', '\n'], " ");
                head.truncate(at);
                head.push_str(&clean);
            }
            head.push_str("\r\n");
        }
        if s.gzip && with_body {
            head.push_str("Content-Encoding: gzip\r\n");
        }
        match (s.http_version, s.keep_alive) {
            (HttpVersion::Http11, false) => head.push_str("Connection: close\r\n"),
            (HttpVersion::Http10, true) => head.push_str("Connection: keep-alive\r\n"),
            (HttpVersion::Http11, true) if s.say_keep_alive => head.push_str("Connection: keep-alive\r\n"),
            _ => {}
        }
        // Methods that carry a body announce its length even when it is empty, as browsers do.
        if body_len > 0 || matches!(method, "POST" | "PUT" | "PATCH") {
            head.push_str("Content-Length: ");
            head.push_str(&body_len.to_string());
            head.push_str("\r\n");
        }
        out.extend_from_slice(head.as_bytes());
        out.len()
    }

    fn render_body(&self, u: &mut UserVars, uploads: &[Upload], out: &mut Vec<u8>) {
        match &self.spec.body {
            Body::None => {}
            Body::Bytes(b) => out.extend_from_slice(b),
            Body::Text(t) => {
                let mut s = String::new();
                t.render(u, &mut s);
                out.extend_from_slice(s.as_bytes());
            }
            Body::Form(fields) => {
                let mut ser = url::form_urlencoded::Serializer::new(String::new());
                let rewrites = self.url_rewrites(u);
                let set = form_rewrites(&rewrites);
                let added: Vec<Param> = set.iter().map(|(n, v)| rewritten_param(n, v)).collect();
                for p in fields.iter().filter(|p| !set.iter().any(|(n, _)| *n == p.name)).chain(&added) {
                    let v = self.param_value(p, u);
                    if p.encoded {
                        // Written encoded: sent decoded, then encoded again, as JMeter does.
                        ser.append_pair(&url_decode(&p.name), &url_decode(&v));
                    } else {
                        ser.append_pair(&p.name, &v);
                    }
                }
                out.extend_from_slice(ser.finish().as_bytes());
            }
            Body::Multipart(parts) => multipart(parts, u, uploads, out),
            // Read for this sample; none when it could not be (an empty body is sent).
            Body::File { .. } => out.extend_from_slice(uploads.first().map_or(&[][..], |f| &f.bytes)),
        }
        if self.spec.gzip {
            let zipped = crate::plan::gzip(out);
            out.clear();
            out.extend_from_slice(&zipped);
        }
    }
}

/// The form fields URL Re-writing Modifiers set, by name (a later modifier of a name replaces
/// an earlier one's, as each removes the argument and adds its own).
fn form_rewrites<'a>(rewrites: &'a [(&'a UrlRewrite, String)]) -> Vec<(&'a str, &'a str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for (r, v) in rewrites.iter().filter(|(r, _)| !r.path_extension) {
        out.retain(|(n, _)| *n != r.name);
        out.push((&r.name, v));
    }
    out
}

/// The argument a URL Re-writing Modifier adds: not "always encoded" (JMeter's `HTTPArgument`
/// of the modifier): a query takes it as it is, a form decodes it first.
fn rewritten_param(name: &str, value: &str) -> Param {
    Param { name: name.into(), value: crate::plan::Template::literal(value), encoded: true, bare_when_empty: false }
}

/// Java's `URLDecoder.decode`: `+` is a space, `%XX` a byte; a malformed escape stays as it is.
pub(super) fn url_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Appends header lines the user adds to the request (`Cookie`, `Authorization`, conditional
/// headers from a cache), each already ending in CRLF.
fn push_extra(out: &mut Vec<u8>, extra: Option<&str>) {
    if let Some(lines) = extra {
        out.extend_from_slice(lines.as_bytes());
    }
}

fn multipart(parts: &[Part], u: &mut UserVars, uploads: &[Upload], out: &mut Vec<u8>) {
    // The files named at run time, read for this sample, in the order of their parts.
    let mut files = uploads.iter();
    for p in parts {
        out.extend_from_slice(format!("--{MULTIPART_BOUNDARY}\r\n").as_bytes());
        let mut disp = format!("Content-Disposition: form-data; name=\"{}\"", p.name.replace('"', "%22"));
        let file = match &p.content {
            PartContent::File { .. } => files.next(),
            _ => None,
        };
        let filename = match file {
            Some(f) => Some(f.name.as_str()),
            None => p.filename.as_deref(),
        };
        if let Some(f) = filename {
            disp.push_str(&format!("; filename=\"{}\"", f.replace('"', "%22")));
        }
        out.extend_from_slice(disp.as_bytes());
        out.extend_from_slice(b"\r\n");
        if let Some(ct) = &p.content_type {
            out.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
        }
        if let Some(te) = p.transfer_encoding {
            out.extend_from_slice(format!("Content-Transfer-Encoding: {te}\r\n").as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        match &p.content {
            PartContent::Text(t) => out.extend_from_slice(t.render_string(u).as_bytes()),
            PartContent::Bytes(b) => out.extend_from_slice(b),
            PartContent::File { .. } => out.extend_from_slice(file.map_or(&[][..], |f| &f.bytes)),
        }
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{MULTIPART_BOUNDARY}--\r\n").as_bytes());
}

/// A file to upload named at run time, as read for one sample.
pub(crate) struct Upload {
    /// The name it is sent with: the rendered path's last component.
    name: String,
    bytes: Vec<u8>,
}

/// A file to upload named at run time, its name rendered for this sample, not read yet.
pub(in crate::engine) struct Named {
    path: String,
    dir: crate::confine::PlanDir,
    fault: crate::plan::CheckId,
    /// Which part of a multipart body it is; none: the whole body ("send file as body").
    part: Option<usize>,
}

/// A file named for a sample that cannot be read now, or lies outside the plan's directory:
/// the sample fails with JMeter's `java.io.FileNotFoundException` once what JMeter's HttpClient
/// writes before it opens the file is out.
pub(in crate::engine) struct Unread {
    pub fault: crate::plan::CheckId,
    /// The multipart body's part it is: the request goes out up to that part's head (the
    /// `Content-Length` counting the file as empty) and the connection is closed unanswered.
    /// None: the body, sent empty (`Content-Length: 0`), the answer read.
    pub cut_at_part: Option<usize>,
}

/// Whether the request sends a file named at run time.
pub(in crate::engine) fn names_files(spec: &RequestSpec) -> bool {
    match &spec.body {
        Body::Multipart(parts) => parts.iter().any(|p| matches!(p.content, PartContent::File { .. })),
        Body::File { .. } => true,
        _ => false,
    }
}

/// The files to send named at run time, each name rendered once for the sample (a
/// `${__Random(1,3)}` or `${__counter(...)}` in it is read once, and the file read is the one
/// sent); empty for a request without one.
pub(in crate::engine) fn uploads_named(spec: &RequestSpec, u: &mut UserVars) -> Vec<Named> {
    match &spec.body {
        Body::Multipart(parts) => parts
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match &p.content {
                PartContent::File { path, dir, fault } => {
                    Some(Named { path: path.render_string(u), dir: dir.clone(), fault: *fault, part: Some(i) })
                }
                _ => None,
            })
            .collect(),
        Body::File { path, dir, fault } => {
            vec![Named { path: path.render_string(u), dir: dir.clone(), fault: *fault, part: None }]
        }
        _ => Vec::new(),
    }
}

/// Reads the files named for a sample (blocking: the caller runs it off the async worker, as a
/// file may be large or on a slow disk): each one's bytes, empty for one that cannot be read
/// now or lies outside the plan's directory, and the first of those.
pub(in crate::engine) fn read_uploads(named: Vec<Named>) -> (Vec<Upload>, Option<Unread>) {
    let mut first = None;
    let read = named
        .into_iter()
        .map(|n| {
            let name =
                std::path::Path::new(&n.path).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
            let bytes = n
                .dir
                .confine(std::path::Path::new(&n.path))
                .ok()
                .and_then(|real| crate::confine::open(&real, crate::confine::Access::Read).ok())
                .and_then(|mut file| {
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(&mut file, &mut bytes).ok().map(|_| bytes)
                });
            if bytes.is_none() && first.is_none() {
                first = Some(Unread { fault: n.fault, cut_at_part: n.part });
            }
            Upload { name, bytes: bytes.unwrap_or_default() }
        })
        .collect();
    (read, first)
}

/// Where a multipart request JMeter's HttpClient abandons at part `part` ends: after that
/// part's head (`out` holds the whole request).
pub(in crate::engine) fn cut_at_part(out: &[u8], part: usize) -> usize {
    let find = |from: usize, what: &[u8]| out[from..].windows(what.len()).position(|w| w == what).map(|i| from + i);
    let delimiter = format!("--{MULTIPART_BOUNDARY}\r\n");
    let mut at = find(0, b"\r\n\r\n").map_or(out.len(), |i| i + 4);
    for _ in 0..=part {
        match find(at, delimiter.as_bytes()) {
            Some(i) => at = i + delimiter.len(),
            None => return out.len(),
        }
    }
    find(at, b"\r\n\r\n").map_or(out.len(), |i| i + 4)
}

/// The characters HttpClient 4.5 writes as they are in a path segment (`URLEncodedUtils`'
/// PATHSAFE: unreserved and `;:@&=+$,`); every other byte is `%XX`.
const HTTPCLIENT_PATH_SAFE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'-')
    .remove(b'.')
    .remove(b'*')
    .remove(b'!')
    .remove(b'~')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b';')
    .remove(b':')
    .remove(b'@')
    .remove(b'&')
    .remove(b'=')
    .remove(b'+')
    .remove(b'$')
    .remove(b',');

/// Sends each run of `/` in the path of `s[from..]` as one, up to its query or fragment and
/// after the authority of a whole URL (`/http://h//x` keeps its `//h`), as HttpClient 4.5's
/// `URIUtils.rewriteURI` normalises it in JMeter (dot segments stay). Having dropped an empty
/// segment, HttpClient rebuilds the path from its decoded segments (`setPathSegments`): each
/// is percent-decoded and encoded again, so `%41` goes as `A` and `[` as `%5B`.
fn collapse_slashes(s: &mut String, from: usize) {
    let rest = &s[from..];
    // Nearly every path has no `//`: one scan, and nothing else, for those.
    if !rest.contains("//") {
        return;
    }
    let end = rest.find(['?', '#']).map_or(s.len(), |i| from + i);
    let mut at = from;
    for scheme in ["/http://", "/https://"] {
        // Bytes, not a string slice: the path may be non-ASCII text cut inside a character.
        if rest.as_bytes().get(..scheme.len()).is_some_and(|b| b.eq_ignore_ascii_case(scheme.as_bytes())) {
            at = from + scheme.len();
            at = s[at..end].find('/').map_or(end, |i| at + i);
        }
    }
    if !s[at..end].contains("//") {
        return;
    }
    // URLEncodedUtils.splitPathSegments skips one leading `/`; rewriteURI drops each empty
    // segment but the last (a trailing `/` stays).
    let raw = &s[at..end];
    let segments: Vec<&str> = raw.strip_prefix('/').unwrap_or(raw).split('/').collect();
    let last = segments.len() - 1;
    let mut path = String::with_capacity(end - at);
    for (i, seg) in segments.into_iter().enumerate() {
        if seg.is_empty() && i < last {
            continue;
        }
        let decoded = percent_encoding::percent_decode_str(seg).decode_utf8_lossy();
        path.push('/');
        path.extend(percent_encoding::utf8_percent_encode(&decoded, HTTPCLIENT_PATH_SAFE));
    }
    s.replace_range(at..end, &path);
}

/// Makes `out[start..]`, a path and query from [`PreparedRequest::render_unencoded`], what is
/// sent: characters a request target cannot carry percent-encoded ([`encode_target`]), and
/// the fragment (`#...`) left out, as it never is sent (RFC 9110 §7.1; JMeter builds a
/// java.net.URL from path and query, whose fragment HttpClient leaves out): it ends the path,
/// and a query appended after it is part of it too.
pub(super) fn sendable(out: &mut String, start: usize) {
    encode_target(out, start);
    if let Some(i) = out[start..].find('#') {
        out.truncate(start + i);
    }
}

/// Percent-encodes, in `s[from..]`, the bytes a request target cannot carry as they are
/// (spaces, controls, non-ASCII, and `"<>\^`{|}`), leaving `%` escapes and reserved characters
/// alone: values from data files and responses go into paths as JMeter sends them, but never
/// break the request line.
pub(super) fn encode_target(s: &mut String, from: usize) {
    let bad = |b: u8| !b.is_ascii_graphic() || b"\"<>\\^`{|}".contains(&b);
    if !s.as_bytes()[from..].iter().any(|b| bad(*b)) {
        return;
    }
    let tail: Vec<u8> = s.as_bytes()[from..].to_vec();
    s.truncate(from);
    for b in tail {
        if bad(b) {
            s.push_str(&format!("%{b:02X}"));
        } else {
            s.push(b as char);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sampler::http::Param;
    use crate::plan::template::{self, Symbols, Template};
    use crate::plan::LabelId;

    fn spec() -> RequestSpec {
        let defaults = crate::plan::Defaults {
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(1),
            max_response_size: 1 << 20,
            ..Default::default()
        };
        let target = Target { tls: false, host: "127.0.0.1".into(), port: 8080 };
        let mut spec = RequestSpec::new(LabelId(0), "POST".into(), target, Template::literal("/a?b=1"), &defaults);
        spec.headers = vec![("X-Channel-Id".into(), Template::literal("in.ekstep"))];
        spec.body = Body::Bytes(b"{}".to_vec());
        spec
    }

    /// JMeter 5.6.3 with HttpClient 4 (bench/jmeter/plans/small-slashes.jmx): `//a//b` is
    /// sent as `/a/b`, `/a//b/?q=//x` as `/a/b/?q=//x`, `http://h//x//y` as `/x/y`,
    /// `/d/./e/../f//` as `/d/./e/../f/`.
    #[test]
    fn runs_of_slashes_in_the_path_collapse_as_httpclient_4_sends_them() {
        for (path, sent) in [
            ("//a//b", "/a/b"),
            ("/a//b/?q=//x", "/a/b/?q=//x"),
            ("/http://h:1//x//y?z=//", "/http://h:1/x/y?z=//"),
            ("/d/./e/../f//", "/d/./e/../f/"),
            ("/g%2F%2Fh//i#a//b", "/g%2F%2Fh/i#a//b"),
            ("/plain", "/plain"),
            // Non-ASCII text across the bytes a scheme is compared on.
            ("/日本語", "/日本語"),
            ("/api/日本", "/api/日本"),
            ("/日本//語", "/%E6%97%A5%E6%9C%AC/%E8%AA%9E"),
            // Rebuilt from decoded segments, only when a `/` was dropped.
            ("//enc/%41%3B%7e//x", "/enc/A;~/x"),
            ("/enc/%41%3B%7e/x", "/enc/%41%3B%7e/x"),
            ("//a%2fb//%e6%97%a5/(x)*//", "/a%2Fb/%E6%97%A5/(x)*/"),
            ("//", "/"),
        ] {
            let mut s = format!("GET {path}");
            collapse_slashes(&mut s, 4);
            assert_eq!(s, format!("GET {sent}"));
        }
        let mut spec = spec();
        spec.path = Template::literal("//x//y");
        let mut u = UserVars::new(Vec::new(), 0, 0, Default::default());
        assert!(render(&PreparedRequest::new(&spec), &mut u, None).starts_with("POST //x//y "));
        spec.collapse_slashes = true;
        assert!(render(&PreparedRequest::new(&spec), &mut u, None).starts_with("POST /x/y "));
    }

    fn render(r: &PreparedRequest, u: &mut UserVars, extra: Option<&str>) -> String {
        let (mut body, mut out, mut path) = (Vec::new(), Vec::new(), String::new());
        r.render_path(u, &mut path);
        r.render(u, &r.target, &path, extra, Vec::new(), &mut body, &mut out, true);
        String::from_utf8(out).unwrap()
    }

    fn nobody() -> UserVars {
        UserVars::new(Vec::new(), 0, 1, Default::default())
    }

    #[test]
    fn renders_exact_bytes() {
        let r = PreparedRequest::new(&spec());
        assert!(r.fixed.is_some());
        let want = format!("POST /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: {USER_AGENT}\r\nX-Channel-Id: in.ekstep\r\nContent-Length: 2\r\n\r\n{{}}");
        assert_eq!(render(&r, &mut nobody(), None), want);
        let with_cookie = render(&r, &mut nobody(), Some("Cookie: a=1; b=2\r\n"));
        assert!(with_cookie.ends_with("Content-Length: 2\r\nCookie: a=1; b=2\r\n\r\n{}"), "{with_cookie}");
    }

    /// JMeter's URLRewritingModifier.modify: a path extension replaces the old `;name...` (up
    /// to a `?`) and goes at the end; nothing changes before the user's first sample; with
    /// "cache", a response without an id sends the last one found.
    #[test]
    fn url_rewriting_replaces_the_path_extension_and_caches_the_id() {
        use crate::plan::sampler::http::UrlRewrite;
        let mut sym = Symbols::default();
        sym.vars.define("f", UrlRewrite::NO_PREVIOUS.into());
        let found = sym.vars.assign("f");
        let saved = sym.vars.assign("s");
        let mut s = spec();
        s.path = Template::literal("/a;jsessionid=old?x=1");
        s.url_rewrites = vec![UrlRewrite {
            name: "jsessionid".into(),
            path_extension: true,
            no_equals: false,
            encode: false,
            found,
            saved: Some(saved),
        }];
        let r = PreparedRequest::new(&s);
        let mut u = UserVars::new(sym.vars.initial_values(), 0, 1, Default::default());
        let line = |u: &mut UserVars| render(&r, u, None).lines().next().unwrap().to_string();
        assert_eq!(line(&mut u), "POST /a;jsessionid=old?x=1 HTTP/1.1");
        u.set(found, "n%41w");
        assert_eq!(line(&mut u), "POST /a?x=1;jsessionid=nAw HTTP/1.1");
        u.set(found, "");
        assert_eq!(line(&mut u), "POST /a?x=1;jsessionid=nAw HTTP/1.1", "the cached id");
    }

    #[test]
    fn a_fragment_is_never_sent_and_takes_a_query_after_it() {
        let mut s = spec();
        s.path = Template::literal("/a?b=1#top");
        assert!(render(&PreparedRequest::new(&s), &mut nobody(), None).starts_with("POST /a?b=1 HTTP/1.1\r\n"));
        let mut sym = Symbols::default();
        let page = sym.vars.assign("page");
        s.path = template::compile("/p/${page}#sec", &mut sym, "t").unwrap();
        s.query = vec![Param::new("k", Template::literal("v"))];
        let mut u = UserVars::new(sym.vars.initial_values(), 0, 1, Default::default());
        u.set(page, "x");
        assert!(render(&PreparedRequest::new(&s), &mut u, None).starts_with("POST /p/x HTTP/1.1\r\n"));
    }

    #[test]
    fn connection_header_follows_version_and_keep_alive() {
        let mut s = spec();
        s.keep_alive = false;
        assert!(render(&PreparedRequest::new(&s), &mut nobody(), None).contains("Connection: close\r\n"));
        s.http_version = HttpVersion::Http10;
        let text = render(&PreparedRequest::new(&s), &mut nobody(), None);
        assert!(text.starts_with("POST /a?b=1 HTTP/1.0\r\n") && !text.contains("Connection:"));
        s.keep_alive = true;
        assert!(render(&PreparedRequest::new(&s), &mut nobody(), None).contains("Connection: keep-alive\r\n"));
        // HTTP/1.1 keeps the connection without saying so, unless told to say it (JMX plans).
        s.http_version = HttpVersion::Http11;
        assert!(!render(&PreparedRequest::new(&s), &mut nobody(), None).contains("Connection:"));
        s.say_keep_alive = true;
        assert!(render(&PreparedRequest::new(&s), &mut nobody(), None).contains("Connection: keep-alive\r\n"));
    }

    #[test]
    fn templates_render_per_user_and_values_are_encoded() {
        let mut sym = Symbols::default();
        let id = sym.vars.assign("id");
        let tok = sym.vars.assign("tok");
        let mut s = spec();
        s.path = template::compile("/read/${id}", &mut sym, "t").unwrap();
        s.query = vec![Param::new("q", template::compile("${id}", &mut sym, "t").unwrap())];
        s.headers = vec![("Authorization".into(), template::compile("Bearer ${tok}", &mut sym, "t").unwrap())];
        s.body = Body::Form(vec![Param::new("user", template::compile("${id}", &mut sym, "t").unwrap())]);
        let r = PreparedRequest::new(&s);
        assert!(r.fixed.is_none());
        let mut u = UserVars::new(sym.vars.initial_values(), 0, 1, Default::default());
        u.set(id, "a b&c");
        u.set(tok, "x\r\nEvil: 1");
        let text = render(&r, &mut u, None);
        assert!(text.starts_with("POST /read/a%20b&c?q=a+b%26c HTTP/1.1\r\n"), "{text}");
        assert!(text.contains("Authorization: Bearer x  Evil: 1\r\n"), "{text}");
        assert!(text.ends_with("Content-Length: 12\r\n\r\nuser=a+b%26c"), "{text}");
    }

    #[test]
    fn a_path_holding_a_whole_url() {
        assert_eq!(full_url_in_path("/http://h:1/x?y"), Some("http://h:1/x?y"));
        assert_eq!(full_url_in_path("https://h/"), Some("https://h/"));
        assert_eq!(full_url_in_path("/api/http://x"), None);
        assert_eq!(full_url_in_path("/httpbin"), None);
    }

    #[test]
    fn url_decode_as_java() {
        assert_eq!(url_decode("a%20b+c&d"), "a b c&d");
        assert_eq!(url_decode("100%"), "100%");
        assert_eq!(url_decode("%zz%4"), "%zz%4");
        assert_eq!(url_decode("%C3%A9"), "é");
    }

    #[test]
    fn gzip_and_hops() {
        let mut s = spec();
        s.gzip = true;
        s.headers.push(("Content-Type".into(), Template::literal("application/json")));
        let r = PreparedRequest::new(&s);
        let (mut body, mut out) = (Vec::new(), Vec::new());
        r.render(&mut nobody(), &r.target, "/a?b=1", None, Vec::new(), &mut body, &mut out, true);
        let text = String::from_utf8_lossy(&out).to_string();
        assert!(text.contains("Content-Encoding: gzip\r\n"));
        let sent = r.body_sent(&body);
        assert!(out.ends_with(sent), "the body sent is the fixed body");
        let mut d = flate2::read::GzDecoder::new(sent);
        let mut plain = String::new();
        std::io::Read::read_to_string(&mut d, &mut plain).unwrap();
        assert_eq!(plain, "{}");
        let other = Target { tls: false, host: "127.0.0.1".into(), port: 9 };
        let hop = Hop { method: "GET", target: &other, path: "/next", with_body: false };
        let mut out = Vec::new();
        r.render_hop(&mut nobody(), &hop, Some("Cookie: s=1\r\n"), sent, &mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("GET /next HTTP/1.1\r\nHost: 127.0.0.1:9\r\n"), "{text}");
        assert!(!text.contains("Content-"), "{text}");
        assert!(text.ends_with("Cookie: s=1\r\n\r\n"), "{text}");
    }
}
