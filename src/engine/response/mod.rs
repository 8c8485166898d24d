//! Reading a response after the exchange: its headers (scanned in place, no allocation), its
//! body as text (gzip and deflate decoded), and what the plan does with it: extractors that
//! set the user's variables, and checks whose failure makes the sample KO.

use crate::engine::session::UserVars;
use crate::plan::markup::XPathResult;
use crate::plan::sampler::http::{AllMatches, Extractor, JmesPath, JsonPathExpr, MatchGroups, Pattern, ALL};
use crate::plan::{CheckTest, ExtractSource, Field, VarId};
use crate::record::ErrorKind;
use rand::Rng;
use std::borrow::Cow;
use std::io::Read;
use std::time::Duration;

/// A response's head and (kept) body.
pub(super) struct Response<'a> {
    head: &'a [u8],
    body: &'a [u8],
    pub status: u16,
}

impl<'a> Response<'a> {
    pub(super) fn new(head: &'a [u8], body: &'a [u8], status: u16) -> Response<'a> {
        Response { head, body, status }
    }

    /// Header lines after the status line, as (name, value). Lines end in CRLF or a bare LF
    /// (httparse accepts both); a line that is not UTF-8 is skipped, not the whole head.
    fn lines(&self) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.head
            .split(|b| *b == b'\n')
            .skip(1)
            .filter_map(|l| std::str::from_utf8(l.strip_suffix(b"\r").unwrap_or(l)).ok())
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim(), v.trim()))
    }

    /// The status line's reason phrase (`OK` in `HTTP/1.1 200 OK`).
    pub(super) fn message(&self) -> &'a str {
        let line = self.head.split(|b| *b == b'\n').next().unwrap_or_default();
        let line = std::str::from_utf8(line).unwrap_or_default().trim_end();
        line.splitn(3, ' ').nth(2).unwrap_or("")
    }

    pub(super) fn head_len(&self) -> usize {
        self.head.len()
    }

    pub(super) fn body_len(&self) -> usize {
        self.body.len()
    }

    /// The first header with this name (case-insensitive).
    pub(super) fn header(&self, name: &str) -> Option<&'a str> {
        self.lines().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v)
    }

    pub(super) fn headers_named<'n>(&self, name: &'n str) -> impl Iterator<Item = &'a str> + 'n
    where
        'a: 'n,
    {
        self.lines().filter(move |(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v)
    }

    /// The headers as JMeter's HttpClient 4 sampler gives them to extractors, assertions and
    /// `prev.getResponseHeaders()` (HTTPHC4Impl.getResponseHeaders): the status line as
    /// HttpClient formats it (`HTTP/1.1 200 OK`; a space after the code even with no reason),
    /// then each header line exactly as received (HttpClient's BufferedHeader keeps the raw
    /// line: `X-A:b  ` stays so), every line ending in `\n` (no `\r`, so `Location: (.*)`
    /// takes the URL alone). Built from the head the response keeps, only when something reads
    /// it.
    pub(super) fn headers_text(&self) -> String {
        let mut out = String::with_capacity(self.head.len());
        let mut lines = self.head.split(|b| *b == b'\n');
        let status = lines.next().unwrap_or_default();
        let status = String::from_utf8_lossy(status.strip_suffix(b"\r").unwrap_or(status));
        let mut parts = status.trim().splitn(3, ' ');
        let (version, code, reason) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next());
        out.push_str(version);
        out.push(' ');
        out.push_str(code);
        out.push(' ');
        out.push_str(reason.unwrap_or("").trim());
        out.push('\n');
        for line in lines {
            let line = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line));
            // HttpClient skips a line without a colon (and the blank line ending the head).
            if line.contains(':') {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// Whether the body is compressed (decoding it may take a while).
    pub(super) fn is_compressed(&self) -> bool {
        self.header("content-encoding")
            .is_some_and(|e| ["gzip", "x-gzip", "deflate"].iter().any(|c| e.trim().eq_ignore_ascii_case(c)))
    }

    /// The body's bytes, decoded from gzip or deflate when the response says so (JMeter's
    /// response data). Decoding stops at `limit` bytes (the plan's `max_response_size`), so a
    /// small compressed body cannot expand without bound; the second value says the decoded
    /// body was larger than that. A body that does not decode is given as it came.
    pub(super) fn body_bytes(&self, limit: u64) -> (Cow<'a, [u8]>, bool) {
        let cap = limit.saturating_add(1);
        let decoded: Option<Vec<u8>> = match self.header("content-encoding").map(str::to_ascii_lowercase).as_deref() {
            Some("gzip") | Some("x-gzip") => read_all(flate2::read::GzDecoder::new(self.body).take(cap)),
            Some("deflate") => read_all(flate2::read::ZlibDecoder::new(self.body).take(cap))
                .or_else(|| read_all(flate2::read::DeflateDecoder::new(self.body).take(cap))),
            _ => None,
        };
        match decoded {
            Some(mut bytes) => {
                let too_large = bytes.len() as u64 > limit;
                bytes.truncate(limit as usize);
                (Cow::Owned(bytes), too_large)
            }
            None => (Cow::Borrowed(self.body), false),
        }
    }

    /// The value of a cookie this response sets.
    fn cookie(&self, name: &str) -> Option<&'a str> {
        self.headers_named("set-cookie").find_map(|c| {
            let first = c.split(';').next()?;
            let (k, v) = first.split_once('=')?;
            (k.trim() == name).then(|| v.trim().trim_matches('"'))
        })
    }
}

/// Decoded bodies held at once, run-wide. A compressed body's checks hold its decoded text (up
/// to `max_response_size`, 64 MiB by default) while they run, and large ones are decoded off
/// the worker ([`super::sampler::off_the_worker`]), so without a bound every busy user could hold
/// one at the same time (32 users: 1.5 GiB). With it, decoding memory is bounded by the
/// runtime's worker threads, not by the users: a user past the bound waits, off its worker,
/// for one to be released. No decoded body is held across an `.await`, so every holder ends
/// without the runtime's help and the wait is short.
pub(super) struct DecodeGate {
    held: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
    /// The most held at once (read by the tests).
    most: std::sync::atomic::AtomicUsize,
}

pub(super) static DECODES: DecodeGate =
    DecodeGate { held: std::sync::Mutex::new(0), freed: std::sync::Condvar::new(), most: AtomicUsize::new(0) };

use std::sync::atomic::{AtomicUsize, Ordering};

/// A decoded body may be held while this lives.
pub(super) struct DecodePermit(());

impl DecodeGate {
    /// How many decoded bodies may be held at once: the runtime's worker threads (one outside
    /// a runtime).
    fn limit() -> usize {
        tokio::runtime::Handle::try_current().map_or(1, |h| h.metrics().num_workers()).max(1)
    }

    fn try_take(&self, limit: usize) -> bool {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if *held >= limit {
            return false;
        }
        *held += 1;
        self.most.fetch_max(*held, Ordering::Relaxed);
        true
    }

    /// Takes a permit, waiting (off the worker, so its other users go on) while all are held.
    pub(super) fn acquire(&'static self) -> DecodePermit {
        let limit = Self::limit();
        if !self.try_take(limit) {
            super::sampler::off_the_worker(|| {
                let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
                while *held >= limit {
                    held = self.freed.wait(held).unwrap_or_else(|e| e.into_inner());
                }
                *held += 1;
                self.most.fetch_max(*held, Ordering::Relaxed);
            });
        }
        DecodePermit(())
    }

    /// The most decoded bodies held at once since the process started.
    #[cfg(test)]
    pub(super) fn most_held(&self) -> usize {
        self.most.load(Ordering::Relaxed)
    }
}

impl Drop for DecodePermit {
    fn drop(&mut self) {
        let mut held = DECODES.held.lock().unwrap_or_else(|e| e.into_inner());
        *held -= 1;
        drop(held);
        DECODES.freed.notify_one();
    }
}

/// Bytes as text, and whether the text is those bytes exactly (they were UTF-8). No second
/// copy of what may be megabytes: lossy only when it is not UTF-8.
fn as_text(bytes: Cow<'_, [u8]>) -> (Cow<'_, str>, bool) {
    match bytes {
        Cow::Borrowed(b) => {
            let text = String::from_utf8_lossy(b);
            let exact = matches!(text, Cow::Borrowed(_));
            (text, exact)
        }
        Cow::Owned(b) => match String::from_utf8(b) {
            Ok(text) => (Cow::Owned(text), true),
            Err(e) => (Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()), false),
        },
    }
}

fn read_all(mut r: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    r.read_to_end(&mut out).ok().map(|_| out)
}

/// The response's parts that extractors and checks read, decoded once, when first asked for.
struct Fields<'r, 'a> {
    resp: &'r Response<'a>,
    /// The request as sent (head and body).
    sent: &'r [u8],
    /// Its header lines, `Name: value` each ending in a newline, when a check asks for them.
    request_headers: Option<String>,
    /// JMeter's sampler data of the request, when a check asks for it.
    request_data: Option<String>,
    url: &'r str,
    limit: u64,
    body: Option<Cow<'a, str>>,
    /// `body` is the decoded bytes exactly (they were UTF-8).
    exact: bool,
    /// The decoded body was larger than `limit`.
    too_large: bool,
    /// Held while `body` holds a decoded body (see [`DecodeGate`]).
    _decoding: Option<DecodePermit>,
    /// The body with HTML references decoded, when a field asks for it.
    unescaped: Option<String>,
    headers: Option<String>,
    json: Option<Option<serde_json::Value>>,
    status: String,
}

impl<'a> Fields<'_, 'a> {
    fn text(&mut self, f: Field) -> &str {
        match f {
            Field::Body => {
                if self.body.is_none() {
                    if self.resp.is_compressed() {
                        self._decoding = Some(DECODES.acquire());
                    }
                    let (bytes, too_large) = self.resp.body_bytes(self.limit);
                    let (text, exact) = as_text(bytes);
                    self.body = Some(text);
                    self.exact = exact;
                    self.too_large = too_large;
                }
                self.body.as_deref().unwrap_or_default()
            }
            Field::BodyUnescaped => {
                if self.unescaped.is_none() {
                    let text = crate::plan::markup::unescape_html(self.text(Field::Body)).into_owned();
                    self.unescaped = Some(text);
                }
                self.unescaped.as_deref().unwrap_or_default()
            }
            Field::Headers => self.headers.get_or_insert_with(|| self.resp.headers_text()),
            Field::RequestHeaders if self.url.is_empty() => "",
            Field::RequestHeaders => self.request_headers.get_or_insert_with(|| request_headers(self.sent)),
            Field::RequestData => self.request_data.get_or_insert_with(|| request_data(self.sent, self.url)),
            Field::Url => self.url,
            Field::Status => &self.status,
            Field::Message => self.resp.message(),
            // Checks read variables through `subject`; nothing extracts from one.
            Field::Var(_) => "",
        }
    }

    /// The body's bytes as JMeter's response data: decoded from gzip or deflate, not read as
    /// text.
    fn bytes(&mut self) -> Cow<'_, [u8]> {
        if !self.resp.is_compressed() {
            return Cow::Borrowed(self.resp.body);
        }
        self.text(Field::Body);
        if self.exact {
            return Cow::Borrowed(self.body.as_deref().unwrap_or_default().as_bytes());
        }
        // Not UTF-8, so the text is not the bytes: decoded again, as only an MD5 check asks
        // (keeping both would double what every check on such a body holds).
        self.resp.body_bytes(self.limit).0
    }

    fn json(&mut self) -> Option<&serde_json::Value> {
        if self.json.is_none() {
            let parsed = serde_json::from_str(self.text(Field::Body)).ok();
            self.json = Some(parsed);
        }
        self.json.as_ref().and_then(|j| j.as_ref())
    }
}

/// The header lines of a request as sent, as JMeter's "Request Headers" field has them
/// (HTTPHC4Impl.getAllHeadersExceptCookie): one `Name: value` line each, ending in `\n`, the
/// request line left out.
pub(super) fn request_headers(sent: &[u8]) -> String {
    let head_end = memchr::memmem::find(sent, b"\r\n\r\n").unwrap_or(sent.len());
    let head = String::from_utf8_lossy(&sent[..head_end]);
    let mut out = String::with_capacity(head.len());
    // The Cookie header is not among them (JMeter shows the cookies apart).
    for line in head
        .split("\r\n")
        .skip(1)
        .filter(|l| !l.split(':').next().is_some_and(|n| n.trim().eq_ignore_ascii_case("cookie")))
    {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// JMeter's sampler data (`SampleResult.getSamplerData`), what a Response Assertion on "Request
/// Data" reads. For HTTP (`url` not empty; HTTPSampleResult.getSamplerData) the method and URL,
/// then — but for HEAD, OPTIONS and TRACE — `METHOD data:` and the body as sent (the encoded
/// form, the raw body; empty without one), then the cookies the request carried
/// (`Cookie Data:`) or `[no cookies]`. A sample made without HTTP passes its sampler data
/// itself as `sent`.
pub(super) fn request_data(sent: &[u8], url: &str) -> String {
    if url.is_empty() {
        return String::from_utf8_lossy(sent).into_owned();
    }
    let (head, body) = match memchr::memmem::find(sent, b"\r\n\r\n") {
        Some(i) => (&sent[..i], &sent[i + 4..]),
        None => (sent, &[][..]),
    };
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");
    let method = lines.next().and_then(|l| l.split(' ').next()).unwrap_or_default();
    let cookies: Vec<&str> = lines
        .filter_map(|l| l.split_once(':'))
        .filter(|(n, _)| n.trim().eq_ignore_ascii_case("cookie"))
        .map(|(_, v)| v.trim())
        .collect();
    let mut out = format!("{method} {url}\n");
    if !matches!(method, "HEAD" | "OPTIONS" | "TRACE") {
        out.push_str(&format!("\n{method} data:\n"));
        push_body_shown(&mut out, body);
        out.push('\n');
    }
    if cookies.is_empty() {
        out.push_str("\n[no cookies]");
    } else {
        out.push_str("\nCookie Data:\n");
        out.push_str(&cookies.join("; "));
    }
    out.push('\n');
    out
}

/// A body as JMeter's sampler data shows it: a multipart body's file parts (those with a
/// `filename`) hold HttpClient 4's placeholder (HTTPHC4Impl's ViewableFileBody writes
/// `<actual file content, not shown here>` for them), not the file.
fn push_body_shown(out: &mut String, body: &[u8]) {
    let delimiter = format!("--{}\r\n", crate::plan::sampler::http::MULTIPART_BOUNDARY);
    if !body.starts_with(delimiter.as_bytes()) {
        out.push_str(&String::from_utf8_lossy(body));
        return;
    }
    let next = format!("\r\n--{}", crate::plan::sampler::http::MULTIPART_BOUNDARY);
    let mut rest = body;
    // Each part: its headers, a blank line, its content up to the next delimiter.
    while let Some(end) = memchr::memmem::find(rest, next.as_bytes()) {
        let part = &rest[..end];
        match memchr::memmem::find(part, b"\r\n\r\n") {
            Some(h) if memchr::memmem::find(&part[..h], b"; filename=\"").is_some() => {
                out.push_str(&String::from_utf8_lossy(&part[..h + 4]));
                out.push_str("<actual file content, not shown here>");
            }
            _ => out.push_str(&String::from_utf8_lossy(part)),
        }
        // The next part starts at its delimiter line.
        out.push_str("\r\n");
        rest = &rest[end + 2..];
    }
    out.push_str(&String::from_utf8_lossy(rest));
}

/// Whether a check reads the request data: a sampler without HTTP makes its sampler data only
/// then.
pub(super) fn reads_request_data(checks: &[crate::plan::Check]) -> bool {
    fn reads(t: &CheckTest) -> bool {
        match t {
            CheckTest::Contains { field, .. }
            | CheckTest::Equals { field, .. }
            | CheckTest::Matches { field, .. }
            | CheckTest::MatchesTemplate { field, .. } => *field == Field::RequestData,
            CheckTest::Any(all) => all.iter().any(reads),
            _ => false,
        }
    }
    checks.iter().any(|c| reads(&c.test))
}

/// What a text check reads: a part of the response, or a user's variable as it is now.
fn subject<'s>(f: &'s mut Fields<'_, '_>, u: &'s UserVars, field: Field) -> &'s str {
    match field {
        Field::Var(v) => u.get(v),
        other => f.text(other),
    }
}

/// A JMeter assertion on an empty variable passes only when negated, whatever its patterns
/// (`ResponseAssertion`: "Not should always succeed against an empty result"); so does one on
/// empty request data (a sampler that sets none).
fn empty_var(u: &UserVars, field: Field) -> bool {
    matches!(field, Field::Var(v) if u.get(v).is_empty() || u.is_unset(v))
}

/// A JSON value as a variable holds it: strings without quotes, anything else as JSON text.
fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `n`th of `count` matches (1-based), or a random one for 0.
fn choose(n: u32, count: usize, u: &mut UserVars) -> Option<usize> {
    match (n, count) {
        (_, 0) => None,
        (0, c) => Some(u.rng.random_range(0..c)),
        (n, c) => (n as usize <= c).then(|| n as usize - 1),
    }
}

/// Fills JMeter's regex template: `$N$` is group N (of `groups`, group 0 the whole match).
fn fill(template: &str, groups: &[Option<&str>]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('$') {
            Some(j) if j > 0 && after[..j].bytes().all(|b| b.is_ascii_digit()) => {
                let g: usize = after[..j].parse().unwrap_or(usize::MAX);
                out.push_str(groups.get(g).copied().flatten().unwrap_or(""));
                rest = &after[j + 1..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn json_values<'v>(p: &JsonPathExpr, v: Option<&'v serde_json::Value>) -> Vec<Cow<'v, serde_json::Value>> {
    v.map(|v| p.values(v)).unwrap_or_default()
}

/// The values an XPath Extractor's query finds in the body.
fn xpath_values(x: &crate::plan::sampler::http::XPathExpr, f: &mut Fields<'_, '_>) -> Vec<Option<String>> {
    match x.eval(f.text(Field::Body)) {
        Ok(XPathResult::Nodes(v)) => v,
        Ok(XPathResult::Boolean(b)) => vec![Some(b.to_string())],
        Ok(XPathResult::Other(s)) => vec![Some(s)],
        // JMeter logs it and leaves the default; the sample stays successful.
        Err(_) => Vec::new(),
    }
}

/// Every value an extractor's source finds, in order. `None` is a match JMeter sets no
/// variable for (an XPath element whose first child is not text).
fn found_all(
    source: &ExtractSource,
    f: &mut Fields<'_, '_>,
    resp: &Response<'_>,
    u: &mut UserVars,
) -> Vec<Option<String>> {
    match source {
        ExtractSource::Json(p) => json_values(p, f.json()).iter().map(|v| Some(json_text(v))).collect(),
        ExtractSource::JsonRunTime(p) => match &p.compiled(p.src.render_string(u)).1 {
            Ok(p) => json_values(p, f.json()).iter().map(|v| Some(json_text(v))).collect(),
            // JMeter logs the error and sets the default.
            Err(_) => Vec::new(),
        },
        ExtractSource::Regex { regex, template, from } => {
            regex.captures_all(f.text(*from)).iter().map(|g| Some(fill(template, g))).collect()
        }
        ExtractSource::RegexRunTime { regex, template, from } => match &regex.compiled(regex.src.render_string(u)).1 {
            Ok(regex) => regex.captures_all(f.text(*from)).iter().map(|g| Some(fill(template, g))).collect(),
            // JMeter logs "Error in pattern" and leaves the default.
            Err(_) => Vec::new(),
        },
        ExtractSource::XPath(x) => xpath_values(x, f),
        ExtractSource::XPathRunTime(x) => match &x.compiled(x.src.render_string(u)).1 {
            Ok(x) => xpath_values(x, f),
            // JMeter logs the query's error and leaves the default; the sample stays successful.
            Err(_) => Vec::new(),
        },
        ExtractSource::Css(c) => c.values(f.text(Field::Body)).into_iter().map(Some).collect(),
        ExtractSource::CssRunTime(c, attribute) => {
            match &c.compiled(format!("{}\0{}", c.src.render_string(u), attribute.render_string(u))).1 {
                Ok(c) => c.values(f.text(Field::Body)).into_iter().map(Some).collect(),
                // JSoup's parse error is logged by JMeter; the default stays.
                Err(_) => Vec::new(),
            }
        }
        ExtractSource::Header(name) => resp.headers_named(name).map(|v| Some(v.to_string())).collect(),
        ExtractSource::Cookie(name) => resp.cookie(name).map(|v| Some(v.to_string())).into_iter().collect(),
        ExtractSource::Invalid(_)
        | ExtractSource::Throws(_)
        | ExtractSource::JsonPlugin(_)
        | ExtractSource::JmesPath { .. }
        | ExtractSource::FromVar { .. } => Vec::new(),
    }
}

/// The value an extractor scoped to a variable reads; `None` when it is unset: JMeter's
/// extractors log "No variable ... found ..., skipping processing" and find no match, so the
/// default applies (matching `""` would let `(.*)` or `^$` set it to `""`).
fn scoped_text(u: &UserVars, var: crate::plan::VarId) -> Option<String> {
    (!u.is_unset(var)).then(|| u.get(var).to_string())
}

/// The fields of a variable's value, for an extractor scoped to it: the value is the body.
fn var_fields<'r, 'a>(resp: &'r Response<'a>, text: String) -> Fields<'r, 'a> {
    Fields {
        resp,
        sent: &[],
        request_headers: None,
        request_data: None,
        url: "",
        limit: u64::MAX,
        body: Some(Cow::Owned(text)),
        exact: true,
        too_large: false,
        _decoding: None,
        unescaped: None,
        headers: None,
        json: None,
        status: String::new(),
    }
}

/// jmeter-plugins' JSON Path Extractor: a single value into the name (the list left alone);
/// an array whole into the name and its items into the list; nothing (or an empty array): the
/// default, and an empty list.
fn plugin_json(p: &JsonPathExpr, e: &Extractor, all: &AllMatches, f: &mut Fields<'_, '_>, u: &mut UserVars) {
    let read = f.json().and_then(|v| p.read(v));
    match read {
        Some(serde_json::Value::Array(items)) if !items.is_empty() => {
            u.set(e.var, &json_text(&serde_json::Value::Array(items.clone())));
            set_list(all, items.iter().map(|v| Some(json_text(v))).collect(), u);
        }
        Some(v) if !v.is_array() => u.set(e.var, &json_text(&v)),
        _ => {
            set_default(e, u);
            set_list(all, Vec::new(), u);
        }
    }
}

/// Sets the extractor's default, as rendered now, unless its rule leaves the variable as it
/// was for what it rendered (a Regular Expression Extractor's `${maybe}` that is empty).
fn set_default(e: &Extractor, u: &mut UserVars) {
    if let Some(d) = &e.default {
        let v = d.render_string(u);
        if e.empty_default.sets(&v) {
            u.set(e.var, &v);
        }
    }
}

/// A match of a Regular Expression Extractor: what its template makes, and each group
/// (`None` for one that took no part).
type RegexMatch = (String, Vec<Option<String>>);

/// Each match of a Regular Expression Extractor's source, in order; `None` when a pattern
/// compiled per sample does not compile (JMeter logs it and touches nothing but the default).
fn regex_matches(
    source: &ExtractSource,
    f: &mut Fields<'_, '_>,
    resp: &Response<'_>,
    u: &mut UserVars,
) -> Option<Vec<RegexMatch>> {
    fn owned(p: &Pattern, template: &str, text: &str) -> Vec<RegexMatch> {
        let caps = p.captures_all(text);
        caps.iter().map(|g| (fill(template, g), g.iter().map(|s| s.map(str::to_string)).collect())).collect()
    }
    match source {
        ExtractSource::FromVar { var, source } => match scoped_text(u, *var) {
            Some(text) => regex_matches(source, &mut var_fields(resp, text), resp, u),
            None => Some(Vec::new()),
        },
        ExtractSource::Regex { regex, template, from } => Some(owned(regex, template, f.text(*from))),
        ExtractSource::RegexRunTime { regex, template, from } => match &regex.compiled(regex.src.render_string(u)).1 {
            Ok(p) => Some(owned(p, template, f.text(*from))),
            Err(_) => None,
        },
        // A pattern that did not compile when the plan loaded: JMeter's "Error in pattern".
        _ => None,
    }
}

/// JMeter's `saveGroups`: `name_gK` for each group of the match (a group that took no part
/// unset, as JMeter's null), `name_g` their number, group 0 aside, and the groups of an
/// earlier match beyond this one's unset.
fn save_groups(g: &MatchGroups, groups: &[Option<String>], u: &mut UserVars) {
    let previous = u.get(g.count).parse::<usize>().unwrap_or(0);
    for (var, value) in g.groups.iter().zip(groups) {
        match value {
            Some(v) => u.set(*var, v),
            None => u.unset(*var),
        }
    }
    u.set(g.count, &groups.len().saturating_sub(1).to_string());
    for var in g.groups.iter().take(previous + 1).skip(groups.len()) {
        u.unset(*var);
    }
}

/// JMeter's `removeGroups`: unsets `name_g` and `name_g0`.. up to the number it held.
fn remove_groups(g: &MatchGroups, u: &mut UserVars) {
    let n = u.get(g.count).parse::<usize>().unwrap_or(0);
    u.unset(g.count);
    for var in g.groups.iter().take(n + 1) {
        u.unset(*var);
    }
}

/// A single-match Regular Expression Extractor whose groups the plan reads: the default
/// first (as JMeter puts it before matching), what an earlier match number -1 extractor into
/// the same name left removed, then the match and its groups, or the groups removed.
/// Returns whether a match was found.
fn regex_single(e: &Extractor, g: &MatchGroups, f: &mut Fields<'_, '_>, resp: &Response<'_>, u: &mut UserVars) -> bool {
    set_default(e, u);
    let Some(mut matches) = regex_matches(&e.source, f, resp, u) else { return false };
    if let Some(list) = &g.list {
        if !u.is_unset(list.count) {
            let before = u.get(list.count).parse::<usize>().unwrap_or(0);
            u.unset(list.count);
            for (i, var) in list.vars.iter().enumerate().take(before) {
                u.unset(*var);
                for (_, per_match) in &list.groups {
                    if let Some(v) = per_match.get(i) {
                        u.unset(*v);
                    }
                }
            }
        }
    }
    match choose(e.match_no, matches.len(), u) {
        Some(i) => {
            let (value, groups) = matches.swap_remove(i);
            u.set(e.var, &value);
            save_groups(g, &groups, u);
            true
        }
        None => {
            remove_groups(g, u);
            false
        }
    }
}

/// JMeter's `JMESPathExtractor.process`: `name_matchNr` and the `name_i` set are removed first;
/// a blank text, one that is not JSON or a failed search sets the default only; nothing found
/// (null, an empty array) the default and a count of 0; one value goes to the name (`name_1`
/// with -1) whatever the match number; several, to the one it picks, or all with -1.
fn jmespath_extract(p: &JmesPath, count: VarId, e: &Extractor, text: Option<&str>, u: &mut UserVars) {
    u.unset(count);
    if let Some(all) = &e.all {
        for v in all.vars.iter().take_while(|v| !u.is_unset(**v)).copied().collect::<Vec<_>>() {
            u.unset(v);
        }
    }
    let default = |u: &mut UserVars| {
        let v = e.default.as_ref().map(|d| d.render_string(u)).unwrap_or_default();
        u.set(e.var, &v);
    };
    let found = match text.filter(|t| !t.trim().is_empty()).map(|t| p.search(t)) {
        Some(Ok(found)) => found,
        _ => return default(u),
    };
    let values: Vec<String> = match found.as_array() {
        Some(items) => items.iter().map(|v| JmesPath::text(v)).collect(),
        None if found.is_null() => Vec::new(),
        None => vec![JmesPath::text(&found)],
    };
    let n = values.len();
    if n == 0 {
        default(u);
        u.set(count, "0");
        return;
    }
    match &e.all {
        Some(all) => {
            for (var, v) in all.vars.iter().zip(&values) {
                u.set(*var, v);
            }
        }
        None if n == 1 => u.set(e.var, &values[0]),
        None => match choose(e.match_no, n, u) {
            Some(i) => u.set(e.var, &values[i]),
            None => default(u),
        },
    }
    u.set(count, &n.to_string());
}

/// Sets `name_1`.. and `name_matchNr` (and `name_ALL`) from the values kept; a `None` leaves
/// its variable. The matches of an earlier response beyond this one's count are unset
/// (JMeter removes them, up to the `name_matchNr` it had set).
fn set_list(all: &AllMatches, values: Vec<Option<String>>, u: &mut UserVars) {
    let n = values.len().min(all.vars.len());
    // JMeter's previous count: 0 when unset or not a number.
    let before = u.get(all.count).parse::<usize>().unwrap_or(0);
    u.set(all.count, &n.to_string());
    if let Some(concat) = all.concat {
        let joined: Vec<&str> = values.iter().map(|v| v.as_deref().unwrap_or("")).collect();
        u.set(concat, &joined.join(","));
    }
    for (i, var) in all.vars.iter().enumerate().take(n.max(before)) {
        match values.get(i) {
            Some(Some(v)) => u.set(*var, v),
            Some(None) => {}
            None => u.unset(*var),
        }
    }
}

/// Sets `name_i_gK` of each group a regular expression extractor keeps per match (for a RegEx
/// User Parameters); a match not found, or a group it did not take part in, is empty.
fn set_groups(all: &AllMatches, source: &ExtractSource, f: &mut Fields<'_, '_>, u: &mut UserVars) {
    let ExtractSource::Regex { regex, from, .. } = source else { return };
    if all.groups.is_empty() {
        return;
    }
    let caps = regex.captures_all(f.text(*from));
    for (g, vars) in &all.groups {
        for (i, var) in vars.iter().enumerate() {
            u.set(*var, caps.get(i).and_then(|c| c.get(*g).copied().flatten()).unwrap_or(""));
        }
    }
}

/// What runs on a response: a request's extractors and checks, or a sample's made without one.
pub(super) struct Rules<'a> {
    pub(super) extract: &'a [crate::plan::Extractor],
    pub(super) checks: &'a [crate::plan::Check],
    /// The most of a decoded body read.
    pub(super) limit: u64,
}

/// Runs extractors and checks on a response; `sent` is the request as sent (empty for a sample
/// made without one). Returns the first failure: a required extraction that found nothing, or a
/// check that did not hold.
pub(super) fn apply_rules(
    spec: Rules<'_>,
    resp: &Response<'_>,
    sent: &[u8],
    url: &str,
    elapsed: Duration,
    received: u64,
    u: &mut UserVars,
) -> Option<ErrorKind> {
    if spec.extract.is_empty() && spec.checks.is_empty() {
        return None;
    }
    let mut f = Fields {
        resp,
        sent,
        request_headers: None,
        request_data: None,
        url,
        limit: spec.limit,
        body: None,
        exact: false,
        too_large: false,
        _decoding: None,
        unescaped: None,
        headers: None,
        json: None,
        status: resp.status.to_string(),
    };
    let mut failed = None;
    let mut threw = false;
    for e in spec.extract {
        if let ExtractSource::Throws(_) = e.source {
            // JMeterThread catches what a post-processor throws out of the whole sample's
            // processing: the later post-processors and the assertions are skipped.
            threw = true;
            break;
        }
        if let ExtractSource::JmesPath { path, count } = e.source.base() {
            let text = match &e.source {
                ExtractSource::FromVar { var, .. } => scoped_text(u, *var),
                _ => Some(f.text(Field::Body).to_string()),
            };
            jmespath_extract(path, *count, e, text.as_deref(), u);
            continue;
        }
        if let (ExtractSource::JsonPlugin(p), Some(all)) = (e.source.base(), &e.all) {
            match &e.source {
                ExtractSource::FromVar { var, .. } => {
                    // No JSON in `""`: an unset variable gives the default, as in JMeter.
                    let mut vf = var_fields(resp, scoped_text(u, *var).unwrap_or_default());
                    plugin_json(p, e, all, &mut vf, u)
                }
                _ => plugin_json(p, e, all, &mut f, u),
            }
            continue;
        }
        if let (Some(g), None) = (&e.groups, &e.all) {
            if !regex_single(e, g, &mut f, resp, u) {
                if let Some(c) = e.required {
                    failed = failed.or(Some(ErrorKind::Check(c.0)));
                }
            }
            continue;
        }
        let mut values = match &e.source {
            ExtractSource::FromVar { var, source } => match scoped_text(u, *var) {
                Some(text) => found_all(source, &mut var_fields(resp, text), resp, u),
                None => Vec::new(),
            },
            source => found_all(source, &mut f, resp, u),
        };
        if let Some(all) = &e.all {
            let xpath = matches!(e.source.base(), ExtractSource::XPath(_) | ExtractSource::XPathRunTime(_));
            if xpath && e.match_no != ALL {
                // The XPath Extractor lists only the match it picks, and sets the variables
                // from that list.
                values = choose(e.match_no, values.len(), u).map(|i| values.swap_remove(i)).into_iter().collect();
            }
            let first = values.first().cloned().flatten();
            set_list(all, values, u);
            set_groups(all, &e.source, &mut f, u);
            if let Some(g) = &e.groups {
                // Match number -1 removes the single match's groups (it keeps `name_i_gK`).
                remove_groups(g, u);
            }
            // The XPath Extractor sets the name to the first value; the others leave it to
            // the default (JMeter sets it before matching).
            match first {
                Some(first) if xpath => u.set(e.var, &first),
                _ => set_default(e, u),
            }
            continue;
        }
        let found = choose(e.match_no, values.len(), u).map(|i| values.swap_remove(i));
        match found {
            Some(Some(v)) => u.set(e.var, &v),
            Some(None) => {}
            None => {
                set_default(e, u);
                if let Some(c) = e.required {
                    failed = failed.or(Some(ErrorKind::Check(c.0)));
                }
            }
        }
    }
    for c in spec.checks.iter().filter(|_| !threw) {
        if !holds(&c.test, &mut f, u, elapsed, received) && failed.is_none() {
            failed = Some(ErrorKind::Check(failure_id(c, &mut f)));
        }
    }
    // A body that decodes past the limit is too large, whatever the checks made of its start.
    if f.too_large {
        return Some(ErrorKind::TooLarge);
    }
    failed
}

/// `JMESPathAssertion.isEquals`: the value's text equals the expected text, or equals it read
/// as JSON (`1` is not `1.0`, as Jackson's nodes); with `regex`, ORO's whole match. `Err`: an
/// expected value that is not JSON, or a pattern that does not compile (JMeter throws).
fn jmespath_equals(found: &jmespath::Variable, expected: &str, regex: bool) -> Result<bool, ()> {
    let text = JmesPath::text(found);
    if regex {
        return Pattern::perl5(&format!("^(?:{expected})$")).map(|re| re.is_match(&text)).map_err(|_| ());
    }
    if text == expected {
        return Ok(true);
    }
    let want: serde_json::Value = serde_json::from_str(expected).map_err(|_| ())?;
    Ok(serde_json::to_value(found).is_ok_and(|v| v == want))
}

/// What a JSON Assertion expects (see [`CheckTest::JsonAssert`]).
struct JsonAssert<'e> {
    expected: &'e str,
    regex: bool,
    expect_null: bool,
    plugin: bool,
}

impl JsonAssert<'_> {
    /// JSONPathAssertion.doAssert does not throw.
    fn holds(&self, p: &JsonPathExpr, doc: &serde_json::Value, validate: bool) -> bool {
        use serde_json::Value;
        let Some(value) = p.read(doc) else { return false };
        if !validate {
            // JMeter's (not the plugin's): an indefinite path that finds nothing fails.
            return self.plugin || p.definite || value != Value::Array(Vec::new());
        }
        match &value {
            Value::Array(items) => {
                (items.is_empty() && self.expected == "[]")
                    || items.iter().any(|x| (x.is_null() && self.expect_null) || self.equals(x))
                    || self.equals(&value)
            }
            v => (self.expect_null && v.is_null()) || self.equals(v),
        }
    }

    fn equals(&self, v: &serde_json::Value) -> bool {
        if self.regex {
            // ORO's `matches`: the whole text.
            return Pattern::perl5(&format!("^(?:{})$", self.expected)).is_ok_and(|re| re.is_match(&self.text(v)));
        }
        if self.plugin {
            return self.text(v) == self.expected;
        }
        // JSONValue.parse: JSON, or the text itself as a string.
        let want = serde_json::from_str(self.expected.trim())
            .unwrap_or_else(|_| serde_json::Value::String(self.expected.to_string()));
        want == *v
    }

    /// objectToString: a fraction as DecimalFormat `#.#` writes it (JMeter's drops `.0`,
    /// the plugin's keeps one digit), anything else as a variable holds it.
    fn text(&self, v: &serde_json::Value) -> String {
        match v {
            serde_json::Value::Number(n) if n.is_f64() => {
                let t = json_text(v);
                match t.strip_suffix(".0") {
                    Some(whole) if !self.plugin => whole.to_string(),
                    _ => t,
                }
            }
            _ => json_text(v),
        }
    }
}

/// Whether a check holds on the response.
fn holds(test: &CheckTest, f: &mut Fields<'_, '_>, u: &mut UserVars, elapsed: Duration, received: u64) -> bool {
    let resp = f.resp;
    match test {
        CheckTest::JmesPath { path, validate, expected, regex, expect_null, negate } => {
            let body = f.text(Field::Body);
            // An empty response: `setResultForNull`, a failure inverted or not.
            if body.is_empty() {
                return false;
            }
            let Some(Ok(found)) = path.as_ref().map(|p| p.search(body)) else { return *negate };
            let holds = if !validate {
                Ok(!found.is_null())
            } else if *expect_null {
                Ok(found.is_null())
            } else {
                let want = expected.render_string(u);
                jmespath_equals(&found, &want, *regex)
            };
            match holds {
                Ok(h) => h != *negate,
                // JMeter's exception: an error, unless inverted.
                Err(()) => *negate,
            }
        }
        CheckTest::Status(ranges) => ranges.iter().any(|(a, b)| (*a..=*b).contains(&resp.status)),
        CheckTest::Contains { field, negate, .. }
        | CheckTest::Equals { field, negate, .. }
        | CheckTest::Matches { field, negate, .. }
        | CheckTest::MatchesTemplate { field, negate, .. }
            if empty_var(u, *field) || (*field == Field::RequestData && f.text(*field).is_empty()) =>
        {
            *negate
        }
        CheckTest::Contains { field, text, negate } => {
            let want = text.render_string(u);
            subject(f, u, *field).contains(&want) != *negate
        }
        CheckTest::Equals { field, text, negate } => {
            let want = text.render_string(u);
            (subject(f, u, *field) == want) != *negate
        }
        CheckTest::Matches { field, regex, negate } => regex.is_match(subject(f, u, *field)) != *negate,
        CheckTest::MatchesTemplate { field, pattern, whole, negate } => {
            let p = pattern.render_string(u);
            let src = if *whole { format!("^(?:{p})$") } else { p };
            // Not cached: such patterns are rare, and a cache keyed by text would grow
            // with every distinct value a soak test feeds it. One that does not compile
            // fails the check, negated or not (JMeter: "Bad test configuration").
            match Pattern::perl5(&src) {
                Ok(re) => re.is_match(subject(f, u, *field)) != *negate,
                Err(_) => false,
            }
        }
        CheckTest::Json { path, equals, negate } => {
            let values = json_values(path, f.json());
            let holds = match equals {
                None => !values.is_empty(),
                Some(t) => {
                    let want = t.render_string(u);
                    values.first().is_some_and(|v| json_text(v) == want)
                }
            };
            holds != *negate
        }
        CheckTest::JsonAssert { path, at, validate, expected, regex, expect_null, negate, plugin } => {
            if f.text(Field::Body).is_empty() {
                return false;
            }
            // A path that does not compile at run time throws in JMeter: the check fails, and
            // holds when inverted, as one whose path does not compile at load.
            let compiled = at.as_ref().map(|at| at.compiled(at.src.render_string(u)));
            let path = match &compiled {
                Some(c) => c.1.as_ref().ok(),
                None => path.as_ref(),
            };
            let expected = expected.render_string(u);
            let a = JsonAssert { expected: &expected, regex: *regex, expect_null: *expect_null, plugin: *plugin };
            let ok = match (path, f.json()) {
                (Some(p), Some(doc)) => a.holds(p, doc, *validate),
                _ => false,
            };
            ok != *negate
        }
        CheckTest::XPath { path, field, negate, xpath2 } => xpath_holds(path, subject(f, u, *field), *negate, *xpath2),
        CheckTest::XPathAt { path, field, negate, xpath2 } => {
            let compiled = path.compiled(path.src.render_string(u));
            match &compiled.1 {
                Ok(path) => xpath_holds(path, subject(f, u, *field), *negate, *xpath2),
                // XPathAssertion reports a query that does not compile as an error: the
                // check fails, negated or not.
                Err(_) => false,
            }
        }
        CheckTest::Md5Hex(expected) => {
            // MD5HexAssertion: an empty expected value fails ("MD5Hex to test against is empty").
            let want = expected.render_string(u);
            if want.is_empty() {
                return false;
            }
            // The response data JMeter digests is the decoded body's bytes (`md5Hex(
            // getResponseData())`), whatever its charset.
            let sum = crate::script::md5(&f.bytes());
            let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
            hex.eq_ignore_ascii_case(&want)
        }
        CheckTest::WellFormedXml { .. } => xml_error(f.text(Field::Body)).is_none(),
        CheckTest::Any(tests) => tests.iter().any(|t| holds(t, f, u, elapsed, received)),
        CheckTest::MaxDuration(max) => elapsed <= *max,
        CheckTest::MaxDurationAt(t) => match t.render_string(u).trim().parse::<i64>() {
            Ok(ms) if ms > 0 => elapsed <= Duration::from_millis(ms as u64),
            _ => true,
        },
        CheckTest::Size { part, op, bytes } => {
            size_of(*part, f, u, resp, received).is_some_and(|n| op.holds(n, *bytes as i128))
        }
        // `compareSize`'s Long.parseLong: not a number throws, and the sample fails.
        CheckTest::SizeAt { part, op, size } => match size.render_string(u).parse::<i64>() {
            Ok(bytes) => size_of(*part, f, u, resp, received).is_some_and(|n| op.holds(n, bytes as i128)),
            Err(_) => false,
        },
    }
}

/// What a Size Assertion measures; `None`: a variable that is no number (the check fails).
fn size_of(
    part: crate::plan::sampler::http::SizePart,
    f: &mut Fields<'_, '_>,
    u: &UserVars,
    resp: &Response<'_>,
    received: u64,
) -> Option<i128> {
    use crate::plan::sampler::http::SizePart;
    Some(match part {
        SizePart::Whole => received as i128,
        SizePart::Headers => resp.head_len() as i128,
        SizePart::Body => resp.body_len() as i128,
        SizePart::Code => f.status.len() as i128,
        SizePart::Message => resp.message().len() as i128,
        // Long.parseLong: a sign and digits, nothing else.
        SizePart::Var(v) => u.get(v).parse::<i64>().ok()? as i128,
    })
}

/// Why XMLAssertion's SAX parse refuses the text, `None` when it is one well-formed document
/// (prefixes bound, as the namespace-aware reader wants). JMeter 5.6.3's reader disallows any
/// DOCTYPE. An empty text fails ("Response was null").
fn xml_error(text: &str) -> Option<roxmltree::Error> {
    if text.is_empty() {
        return Some(roxmltree::Error::UnexpectedEndOfStream);
    }
    roxmltree::Document::parse(text).err()
}

/// The message a failed check counts under: its own, or for the XML Assertion the parser's
/// where it has one of its own.
fn failure_id(c: &crate::plan::Check, f: &mut Fields<'_, '_>) -> u16 {
    match &c.test {
        CheckTest::WellFormedXml { doctype, prolog } => {
            let text = f.text(Field::Body);
            // Xerces reads the prolog first: text before the first tag is refused there.
            if !text.trim_start().starts_with('<') {
                prolog.0
            } else if matches!(xml_error(text), Some(roxmltree::Error::DtdDetected)) {
                doctype.0
            } else {
                c.id.0
            }
        }
        _ => c.id.0,
    }
}

/// XPathAssertion: an empty input fails ("Response was null"), so does one that does not
/// parse; a node set holds when not empty, a boolean when true, any other value fails
/// ("Cannot understand").
fn xpath_holds(path: &crate::plan::sampler::http::XPathExpr, text: &str, negate: bool, xpath2: bool) -> bool {
    if text.is_empty() {
        return false;
    }
    match path.eval(text) {
        Ok(XPathResult::Nodes(n)) => n.is_empty() == negate,
        Ok(XPathResult::Boolean(b)) => b != negate,
        // XPath2Assertion: Saxon's one item for a number or a string is a match.
        Ok(XPathResult::Other(_)) if xpath2 => !negate,
        Ok(XPathResult::Other(_)) | Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XMLAssertion: one well-formed document passes; a DOCTYPE (disallowed in JMeter 5.6.3),
    /// text before the first tag, a tag left open, two roots and an empty text fail.
    #[test]
    fn xml_is_well_formed_as_jmeters_reader_reads_it() {
        assert!(xml_error(r#"<?xml version="1.0"?><a x="1"><b/>t</a>"#).is_none());
        assert!(xml_error("  <a/>").is_none());
        assert!(matches!(xml_error("<!DOCTYPE a><a/>"), Some(roxmltree::Error::DtdDetected)));
        for bad in ["{\"a\":1}", "<a><b></a>", "<a/><b/>", "", "<p:a/>"] {
            assert!(xml_error(bad).is_some(), "{bad}");
        }
    }

    /// JMeter's XPath2 Assertion takes a number or a string as one item, a match; the XPath
    /// Assertion does not. A body that is no XML fails both, negated or not.
    #[test]
    fn xpath2_assertion_holds_for_a_number_or_a_string_result() {
        let x = |q: &str| crate::plan::sampler::http::XPathExpr::new(q, false, false, false).unwrap();
        let doc = "<r><b>1</b><b>2</b></r>";
        assert!(xpath_holds(&x("count(//nope)"), doc, false, true));
        assert!(xpath_holds(&x("string(//nope)"), doc, false, true));
        assert!(!xpath_holds(&x("count(//b)"), doc, true, true));
        assert!(!xpath_holds(&x("count(//b)"), doc, false, false));
        assert!(!xpath_holds(&x("count(//b) = 1"), doc, false, true));
        assert!(!xpath_holds(&x("//b"), "{}", false, true));
        assert!(!xpath_holds(&x("//b"), "{}", true, true));
    }

    /// As JMeter's `JMESPathAssertion.isEquals`: equal text first, then equal JSON (Jackson's
    /// nodes: `1` is not `1.0`); an expected value that is neither throws; a regex matches the
    /// whole text.
    #[test]
    fn jmespath_equality_is_text_then_json_and_a_regex_is_whole() {
        let p = |src: &str| JmesPath::compile(src).unwrap();
        let doc = r#"{"s":"x","arr":[1,2],"f":1.0,"o":{"k":"v"}}"#;
        let v = |src: &str| p(src).search(doc).unwrap();
        assert_eq!(jmespath_equals(&v("s"), "x", false), Ok(true));
        assert_eq!(jmespath_equals(&v("arr"), "[1, 2]", false), Ok(true));
        assert_eq!(jmespath_equals(&v("f"), "1", false), Ok(false));
        assert_eq!(jmespath_equals(&v("s"), "y", false), Err(()));
        assert_eq!(jmespath_equals(&v("s"), "x|y", true), Ok(true));
        assert_eq!(jmespath_equals(&v("o.k"), "v.", true), Ok(false));
        assert_eq!(jmespath_equals(&v("s"), "(", true), Err(()));
        assert_eq!(JmesPath::text(&v("o")), r#"{"k":"v"}"#);
        assert!(p("s").search("not json").is_err());
        assert!(JmesPath::compile("a[").is_err());
    }

    const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: SID=abc; Path=/\r\nSet-Cookie: theme=dark\r\nX-Req: 7\r\n\r\n";

    /// A path rendered the same each sample is compiled once; a new text compiles again.
    #[test]
    fn a_run_time_json_path_compiles_once_per_text_it_renders() {
        use crate::plan::sampler::http::RunTimeJsonPath;
        use std::sync::Arc;
        let p = RunTimeJsonPath::new(crate::plan::Template::literal("$.a"), |s| {
            JsonPathExpr::jayway(s).map_err(|e| e.to_string())
        });
        let a = p.compiled("$.a".into());
        assert!(Arc::ptr_eq(&a, &p.compiled("$.a".into())));
        let b = p.compiled("$.b".into());
        assert!(!Arc::ptr_eq(&a, &b));
        assert!(p.compiled("$.a[".into()).1.is_err());
    }

    #[test]
    fn headers_and_cookies() {
        let r = Response::new(HEAD, b"", 200);
        assert_eq!(r.header("x-req"), Some("7"));
        assert_eq!(r.headers_named("set-cookie").count(), 2);
        assert_eq!(r.cookie("theme"), Some("dark"));
        assert_eq!(r.cookie("SID"), Some("abc"));
        assert_eq!(r.message(), "OK");
        assert_eq!(Response::new(b"HTTP/1.1 404 Not Found\r\n\r\n", b"", 404).message(), "Not Found");
    }

    #[test]
    fn response_headers_are_the_status_line_then_name_value_lines_joined_by_lf_as_jmeter_has_them() {
        let r = Response::new(HEAD, b"", 200);
        assert_eq!(
            r.headers_text(),
            "HTTP/1.1 200 OK\nContent-Type: application/json\nSet-Cookie: SID=abc; Path=/\n\
             Set-Cookie: theme=dark\nX-Req: 7\n"
        );
        // HttpClient keeps each header line as received (its spaces too), and a space after a
        // code with no reason; header() and friends read the value trimmed.
        let bare = Response::new(b"HTTP/1.1 302\r\nLocation: http://h/next\r\nX-A:b  \r\nX-B:   c\r\n\r\n", b"", 302);
        assert_eq!(bare.headers_text(), "HTTP/1.1 302 \nLocation: http://h/next\nX-A:b  \nX-B:   c\n");
        assert_eq!((bare.header("x-a"), bare.header("x-b")), (Some("b"), Some("c")));
        // What the everyday `Location: (.*)` and `HTTP/1.1 (\d+)` then capture.
        let text = bare.headers_text();
        let location = Pattern::perl5("Location: (.*)").unwrap();
        assert_eq!(location.captures_all(&text)[0][1], Some("http://h/next"));
        let code = Pattern::perl5(r"HTTP/1.1 (\d+)").unwrap();
        assert_eq!(code.captures_all(&text)[0][1], Some("302"));
    }

    /// Matches of an earlier response beyond this one's count are removed, as JMeter's
    /// extractors do: unset (their `${name_i}` read as text) where the plan keeps unset apart.
    #[test]
    fn left_over_matches_are_unset() {
        let names = ["m_1", "m_2", "m_3", "m_matchNr"];
        let mut g = crate::engine::session::Globals::new(0);
        std::sync::Arc::get_mut(&mut g).unwrap().unset_names = names.iter().map(|n| n.to_string()).collect();
        let initial = names.iter().map(|n| format!("${{{n}}}")).collect();
        let mut u = UserVars::new(initial, 0, 1, g);
        let v = |i: u32| crate::plan::VarId(i);
        let all = AllMatches { vars: vec![v(0), v(1), v(2)], count: v(3), concat: None, groups: Vec::new() };
        set_list(&all, vec![Some("a".into()), Some("b".into())], &mut u);
        assert_eq!([u.get(v(0)), u.get(v(1)), u.get(v(2)), u.get(v(3))], ["a", "b", "${m_3}", "2"]);
        set_list(&all, vec![Some("".into())], &mut u);
        assert_eq!([u.get(v(0)), u.get(v(1)), u.get(v(2)), u.get(v(3))], ["", "${m_2}", "${m_3}", "1"]);
        assert!(u.is_unset(v(1)) && !u.is_unset(v(0)));
    }

    /// User variables whose unset state reads as `${name}`, as in a JMX plan.
    fn jmx_vars(names: &[&str]) -> UserVars {
        let mut g = crate::engine::session::Globals::new(0);
        std::sync::Arc::get_mut(&mut g).unwrap().unset_names = names.iter().map(|n| n.to_string()).collect();
        UserVars::new(names.iter().map(|n| format!("${{{n}}}")).collect(), 0, 1, g)
    }

    fn regex_extractor(re: &str, match_no: u32, default: Option<&str>, groups: Option<MatchGroups>) -> Extractor {
        Extractor {
            var: crate::plan::VarId(0),
            into: "t".into(),
            source: ExtractSource::Regex {
                regex: Pattern::perl5(re).unwrap(),
                template: "$1$".into(),
                from: Field::Body,
            },
            match_no,
            default: default.map(crate::plan::Template::literal),
            required: None,
            all: None,
            empty_default: crate::plan::sampler::http::EmptyDefault::Leave,
            groups: groups.map(Box::new),
        }
    }

    fn extract(e: &Extractor, body: &[u8], u: &mut UserVars) {
        let resp = Response::new(HEAD, body, 200);
        let rules = Rules { extract: std::slice::from_ref(e), checks: &[], limit: 1 << 20 };
        apply_rules(rules, &resp, b"", "", Duration::ZERO, 0, u);
    }

    /// #32: JMeter's RegexExtractor (`saveGroups`/`removeGroups`) for a single match: `t_g`
    /// the number of groups, `t_g0` the whole match, `t_gK` each group (one that took no part
    /// unset, JMeter's null); a response without a match removes them, with or without a
    /// default; match number -1 removes them too and a single match removes its `t_matchNr`.
    #[test]
    fn a_single_match_regex_sets_its_groups_and_a_miss_removes_them() {
        let names = ["t", "t_g", "t_g0", "t_g1", "t_g2", "t_matchNr", "t_1", "t_2"];
        let v = |i: u32| crate::plan::VarId(i);
        let mut u = jmx_vars(&names);
        let groups = || MatchGroups { count: v(1), groups: vec![v(2), v(3), v(4)], list: None };
        let e = regex_extractor(r"id=(\d+)(x)?", 2, None, Some(groups()));
        let all = |u: &UserVars| (0..8).map(|i| u.get(v(i)).to_string()).collect::<Vec<_>>();
        extract(&e, b"id=1x id=22", &mut u);
        assert_eq!(all(&u)[..5], ["22", "2", "id=22", "22", "${t_g2}"]);
        // No match, no default: the name as it was, the groups removed.
        extract(&e, b"none", &mut u);
        assert_eq!(all(&u)[..5], ["22", "${t_g}", "${t_g0}", "${t_g1}", "${t_g2}"]);
        extract(&e, b"id=5x id=6x", &mut u);
        assert_eq!(all(&u)[..5], ["6", "2", "id=6x", "6", "x"]);
        // With a default: the default, and the groups removed all the same.
        let with_default = regex_extractor(r"id=(\d+)(x)?", 1, Some("D"), Some(groups()));
        extract(&with_default, b"none", &mut u);
        assert_eq!(all(&u)[..5], ["D", "${t_g}", "${t_g0}", "${t_g1}", "${t_g2}"]);
        // A -1 extractor's list into the same name is removed by a single match.
        u.set(v(5), "2");
        u.set(v(6), "a");
        u.set(v(7), "b");
        let all_list = AllMatches { vars: vec![v(6), v(7)], count: v(5), concat: None, groups: Vec::new() };
        let single = regex_extractor(r"id=(\d+)", 1, None, Some(MatchGroups { list: Some(all_list), ..groups() }));
        extract(&single, b"id=7", &mut u);
        assert_eq!(all(&u), ["7", "1", "id=7", "7", "${t_g2}", "${t_matchNr}", "${t_1}", "${t_2}"]);
        // A pattern with fewer groups than the last match's unsets the ones beyond.
        u.set(v(1), "2");
        u.set(v(4), "old");
        extract(&single, b"id=8", &mut u);
        assert_eq!(all(&u)[..5], ["8", "1", "id=8", "8", "${t_g2}"]);
    }

    /// #32: a default that renders empty at run time: Regex and CSS leave the variable as it
    /// was, the Boundary Extractor too when blank, JSON and XPath (and a ticked "Use empty
    /// default value") set it.
    #[test]
    fn a_default_empty_at_run_time_follows_each_extractors_rule() {
        use crate::plan::sampler::http::EmptyDefault;
        assert!(!EmptyDefault::Leave.sets("") && EmptyDefault::Leave.sets(" "));
        assert!(!EmptyDefault::LeaveBlank.sets(" \t") && EmptyDefault::LeaveBlank.sets(" x"));
        assert!(EmptyDefault::Set.sets(""));
        let mut u = jmx_vars(&["t"]);
        u.set(crate::plan::VarId(0), "before");
        let mut e = regex_extractor("(nothing)", 1, Some(""), None);
        extract(&e, b"body", &mut u);
        assert_eq!(u.get(crate::plan::VarId(0)), "before");
        e.empty_default = EmptyDefault::Set;
        extract(&e, b"body", &mut u);
        assert_eq!(u.get(crate::plan::VarId(0)), "");
    }

    /// #32: an extractor scoped to an unset JMeter variable finds nothing (JMeter: "No
    /// variable ... found ..., skipping processing"), so its default applies: `(.*)` does not
    /// set `""`. A variable set to `""` is matched.
    #[test]
    fn an_extractor_scoped_to_an_unset_variable_finds_nothing_and_sets_its_default() {
        let names = ["src", "out"];
        let mut u = jmx_vars(&names);
        let (src, out) = (crate::plan::VarId(0), crate::plan::VarId(1));
        let regex =
            ExtractSource::Regex { regex: Pattern::perl5("(.*)").unwrap(), template: "$1$".into(), from: Field::Body };
        let e = Extractor {
            var: out,
            into: "out".into(),
            source: ExtractSource::FromVar { var: src, source: Box::new(regex) },
            match_no: 1,
            default: Some(crate::plan::Template::literal("DEF")),
            required: None,
            all: None,
            empty_default: Default::default(),
            groups: None,
        };
        let resp = Response::new(HEAD, b"body", 200);
        let run = |u: &mut UserVars| {
            let rules = Rules { extract: std::slice::from_ref(&e), checks: &[], limit: 1 << 20 };
            apply_rules(rules, &resp, b"", "", Duration::ZERO, 0, u)
        };
        assert_eq!(run(&mut u), None);
        assert_eq!(u.get(out), "DEF", "unset: no match, the default");
        u.set(src, "");
        run(&mut u);
        assert_eq!(u.get(out), "", "set to \"\": matched");
        u.set(src, "v1");
        run(&mut u);
        assert_eq!(u.get(out), "v1");
    }

    #[test]
    fn regex_templates() {
        let re = Pattern::perl5(r"id=(\d+);name=(\w+)").unwrap();
        let caps = &re.captures_all("x id=42;name=bob y")[0];
        assert_eq!(fill("$1$", caps), "42");
        assert_eq!(fill("$2$-$1$", caps), "bob-42");
        assert_eq!(fill("$0$", caps), "id=42;name=bob");
        assert_eq!(fill("cost $5 $1$", caps), "cost $5 42");
    }

    #[test]
    fn request_headers_as_jmeter_lists_them() {
        let sent = b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab";
        assert_eq!(request_headers(sent), "Host: h\nContent-Length: 2\n");
        // The Cookie header is left out (JMeter's getAllHeadersExceptCookie).
        let sent = b"GET /x HTTP/1.1\r\nHost: h\r\nCookie: SID=1\r\nAccept: */*\r\n\r\n";
        assert_eq!(request_headers(sent), "Host: h\nAccept: */*\n");
    }

    #[test]
    fn gzip_bodies_are_decoded_for_checks() {
        let body = crate::plan::gzip(b"{\"ok\":true}");
        let head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n";
        let r = Response::new(head, &body, 200);
        assert_eq!(r.body_bytes(1 << 20), (b"{\"ok\":true}"[..].into(), false));
        assert_eq!(r.body_bytes(4), (b"{\"ok"[..].into(), true), "decoding stops at the limit");
    }

    #[test]
    fn lf_only_and_non_utf8_heads_keep_their_other_headers() {
        let head = b"HTTP/1.1 302 Found\nLocation: /final\nX-Name: Jos\xE9\nSet-Cookie: SID=abc\n\n";
        let r = Response::new(head, b"", 302);
        assert_eq!(r.header("location"), Some("/final"));
        assert_eq!(r.cookie("SID"), Some("abc"));
        assert!(r.headers_text().contains("Set-Cookie: SID=abc"));
    }
}

#[cfg(test)]
mod request_data_tests {
    use super::*;

    /// HTTPSampleResult.getSamplerData as JMeter 5.6.3 gives it (its XML results: method,
    /// URL, `queryString` and `cookies`): the body part for every method but HEAD, OPTIONS
    /// and TRACE, the Cookie header's value or `[no cookies]`.
    #[test]
    fn http_request_data_is_jmeters_sampler_data() {
        let post = b"POST /form HTTP/1.1\r\nHost: h\r\nCookie: SID=s1; b=2\r\nContent-Length: 9\r\n\r\nk=v+w&n=1";
        assert_eq!(
            request_data(post, "http://h/form"),
            "POST http://h/form\n\nPOST data:\nk=v+w&n=1\n\nCookie Data:\nSID=s1; b=2\n"
        );
        let get = b"GET /g?q=1 HTTP/1.1\r\nHost: h\r\n\r\n";
        assert_eq!(request_data(get, "http://h/g?q=1"), "GET http://h/g?q=1\n\nGET data:\n\n\n[no cookies]\n");
        let head = b"HEAD /h HTTP/1.1\r\nHost: h\r\ncookie: a=1\r\n\r\n";
        assert_eq!(request_data(head, "http://h/h"), "HEAD http://h/h\n\nCookie Data:\na=1\n");
        // A sample made without HTTP passes its own sampler data.
        assert_eq!(request_data(b"hi\n", ""), "hi\n");
        // A file part shows HttpClient 4's placeholder, not the file; a text part its value.
        let b = crate::plan::sampler::http::MULTIPART_BOUNDARY;
        let part =
            |disp: &str, content: &str| format!("--{b}\r\nContent-Disposition: form-data; {disp}\r\n\r\n{content}\r\n");
        let body =
            [part("name=\"k\"", "v"), part("name=\"f\"; filename=\"a.bin\"", "\u{1}secret"), format!("--{b}--\r\n")]
                .concat();
        let sent = [b"POST /up HTTP/1.1\r\nHost: h\r\n\r\n".as_slice(), body.as_bytes()].concat();
        let shown = [
            part("name=\"k\"", "v"),
            part("name=\"f\"; filename=\"a.bin\"", "<actual file content, not shown here>"),
            format!("--{b}--\r\n"),
        ]
        .concat();
        assert_eq!(
            request_data(&sent, "http://h/up"),
            format!("POST http://h/up\n\nPOST data:\n{shown}\n\n[no cookies]\n")
        );
    }
}
