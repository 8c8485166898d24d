//! Reading a response after the exchange: its headers (scanned in place, no allocation), its
//! body as text (gzip and deflate decoded), and what the plan does with it: extractors that
//! set the user's variables, and checks whose failure makes the sample KO.

use crate::engine::session::UserVars;
use crate::plan::request::JsonPathExpr;
use crate::plan::{CheckTest, ExtractSource, Field, RequestSpec};
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

    /// The headers as `Name: value` lines (JMeter's "Response Headers" field).
    fn headers_text(&self) -> Cow<'a, str> {
        let start = self.head.iter().position(|b| *b == b'\n').map_or(self.head.len(), |i| i + 1);
        match String::from_utf8_lossy(&self.head[start..]) {
            Cow::Borrowed(s) => Cow::Borrowed(s.trim_end()),
            Cow::Owned(s) => Cow::Owned(s.trim_end().to_string()),
        }
    }

    /// Whether the body is compressed (decoding it may take a while).
    pub(super) fn is_compressed(&self) -> bool {
        self.header("content-encoding")
            .is_some_and(|e| ["gzip", "x-gzip", "deflate"].iter().any(|c| e.trim().eq_ignore_ascii_case(c)))
    }

    /// The body as text, decoded from gzip or deflate when the response says so. Decoding stops
    /// at `limit` bytes (the plan's `max_response_size`), so a small compressed body cannot
    /// expand without bound; the second value says the decoded body was larger than that.
    fn body_text(&self, limit: u64) -> (Cow<'a, str>, bool) {
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
                // No second copy of what may be megabytes: lossy only when it is not UTF-8.
                let text =
                    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                (Cow::Owned(text), too_large)
            }
            None => (String::from_utf8_lossy(self.body), false),
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

fn read_all(mut r: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    r.read_to_end(&mut out).ok().map(|_| out)
}

/// The response's parts that extractors and checks read, decoded once, when first asked for.
struct Fields<'r, 'a> {
    resp: &'r Response<'a>,
    url: &'r str,
    limit: u64,
    body: Option<Cow<'a, str>>,
    /// The decoded body was larger than `limit`.
    too_large: bool,
    headers: Option<Cow<'a, str>>,
    json: Option<Option<serde_json::Value>>,
    status: String,
}

impl<'a> Fields<'_, 'a> {
    fn text(&mut self, f: Field) -> &str {
        match f {
            Field::Body => {
                if self.body.is_none() {
                    let (text, too_large) = self.resp.body_text(self.limit);
                    self.body = Some(text);
                    self.too_large = too_large;
                }
                self.body.as_deref().unwrap_or_default()
            }
            Field::Headers => self.headers.get_or_insert_with(|| self.resp.headers_text()),
            Field::Url => self.url,
            Field::Status => &self.status,
            // Checks read variables through `subject`; nothing extracts from one.
            Field::Var(_) => "",
        }
    }

    fn json(&mut self) -> Option<&serde_json::Value> {
        if self.json.is_none() {
            let parsed = serde_json::from_str(self.text(Field::Body)).ok();
            self.json = Some(parsed);
        }
        self.json.as_ref().and_then(|j| j.as_ref())
    }
}

/// What a text check reads: a part of the response, or a user's variable as it is now.
fn subject<'s>(f: &'s mut Fields<'_, '_>, u: &'s UserVars, field: Field) -> &'s str {
    match field {
        Field::Var(v) => u.get(v),
        other => f.text(other),
    }
}

/// A JMeter assertion on an empty variable passes only when negated, whatever its patterns
/// (`ResponseAssertion`: "Not should always succeed against an empty result").
fn empty_var(u: &UserVars, field: Field) -> bool {
    matches!(field, Field::Var(v) if u.get(v).is_empty())
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

/// Fills JMeter's regex template: `$N$` is group N.
fn fill(template: &str, caps: &regex::Captures<'_>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('$') {
            Some(j) if j > 0 && after[..j].bytes().all(|b| b.is_ascii_digit()) => {
                let g: usize = after[..j].parse().unwrap_or(usize::MAX);
                out.push_str(caps.get(g).map_or("", |m| m.as_str()));
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

fn json_values<'v>(p: &JsonPathExpr, v: Option<&'v serde_json::Value>) -> Vec<&'v serde_json::Value> {
    v.map(|v| p.path.query(v).all()).unwrap_or_default()
}

/// Runs the request's extractors and checks on its final response. Returns the first failure:
/// a required extraction that found nothing, or a check that did not hold.
pub(super) fn apply(
    spec: &RequestSpec,
    resp: &Response<'_>,
    url: &str,
    elapsed: Duration,
    received: u64,
    u: &mut UserVars,
) -> Option<ErrorKind> {
    let rules = Rules { extract: &spec.extract, checks: &spec.checks, limit: spec.max_response_size };
    apply_rules(rules, resp, url, elapsed, received, u)
}

/// What runs on a response: a request's extractors and checks, or a sample's made without one.
pub(super) struct Rules<'a> {
    pub(super) extract: &'a [crate::plan::Extractor],
    pub(super) checks: &'a [crate::plan::Check],
    /// The most of a decoded body read.
    pub(super) limit: u64,
}

/// [`apply`] on any response.
pub(super) fn apply_rules(
    spec: Rules<'_>,
    resp: &Response<'_>,
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
        url,
        limit: spec.limit,
        body: None,
        too_large: false,
        headers: None,
        json: None,
        status: resp.status.to_string(),
    };
    let mut failed = None;
    for e in spec.extract {
        if let Some(all) = &e.all {
            let values: Vec<String> = match &e.source {
                ExtractSource::Json(p) => json_values(p, f.json()).into_iter().map(json_text).collect(),
                ExtractSource::Regex { regex, template, from } => {
                    let text = f.text(*from);
                    regex.captures_iter(text).map(|c| fill(template, &c)).collect()
                }
                ExtractSource::Header(name) => resp.headers_named(name).map(str::to_string).collect(),
                ExtractSource::Cookie(name) => resp.cookie(name).map(str::to_string).into_iter().collect(),
            };
            let n = values.len().min(all.vars.len());
            u.set(all.count, &n.to_string());
            for (i, var) in all.vars.iter().enumerate() {
                // Matches of an earlier response beyond this one's count are cleared.
                u.set(*var, values.get(i).map_or("", String::as_str));
            }
            if let Some(first) = values.first() {
                u.set(e.var, first);
            } else if let Some(d) = &e.default {
                let v = d.render_string(u);
                u.set(e.var, &v);
            }
            continue;
        }
        let found: Option<String> = match &e.source {
            ExtractSource::Json(p) => {
                let values: Vec<String> = json_values(p, f.json()).into_iter().map(json_text).collect();
                choose(e.match_no, values.len(), u).map(|i| values[i].clone())
            }
            ExtractSource::Regex { regex, template, from } => {
                let text = f.text(*from);
                let caps: Vec<regex::Captures<'_>> = regex.captures_iter(text).collect();
                choose(e.match_no, caps.len(), u).map(|i| fill(template, &caps[i]))
            }
            ExtractSource::Header(name) => resp.header(name).map(str::to_string),
            ExtractSource::Cookie(name) => resp.cookie(name).map(str::to_string),
        };
        match found {
            Some(v) => u.set(e.var, &v),
            None => {
                if let Some(d) = &e.default {
                    let v = d.render_string(u);
                    u.set(e.var, &v);
                }
                if let Some(c) = e.required {
                    failed = failed.or(Some(ErrorKind::Check(c.0)));
                }
            }
        }
    }
    for c in spec.checks {
        let ok = match &c.test {
            CheckTest::Status(ranges) => ranges.iter().any(|(a, b)| (*a..=*b).contains(&resp.status)),
            CheckTest::Contains { field, negate, .. }
            | CheckTest::Equals { field, negate, .. }
            | CheckTest::Matches { field, negate, .. }
            | CheckTest::MatchesTemplate { field, negate, .. }
                if empty_var(u, *field) =>
            {
                *negate
            }
            CheckTest::Contains { field, text, negate } => {
                let want = text.render_string(u);
                subject(&mut f, u, *field).contains(&want) != *negate
            }
            CheckTest::Equals { field, text, negate } => {
                let want = text.render_string(u);
                (subject(&mut f, u, *field) == want) != *negate
            }
            CheckTest::Matches { field, regex, negate } => regex.is_match(subject(&mut f, u, *field)) != *negate,
            CheckTest::MatchesTemplate { field, pattern, whole, negate } => {
                let p = pattern.render_string(u);
                let src = if *whole { format!("^(?:{p})$") } else { p };
                // Not cached: such patterns are rare, and a cache keyed by text would grow
                // with every distinct value a soak test feeds it.
                match regex::Regex::new(&src) {
                    Ok(re) => re.is_match(subject(&mut f, u, *field)) != *negate,
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
            CheckTest::MaxDuration(max) => elapsed <= *max,
            CheckTest::Size { part, op, bytes } => {
                let size = match part {
                    crate::plan::request::SizePart::Whole => received,
                    crate::plan::request::SizePart::Headers => resp.head_len() as u64,
                    crate::plan::request::SizePart::Body => resp.body_len() as u64,
                };
                op.holds(size, *bytes)
            }
        };
        if !ok {
            failed = failed.or(Some(ErrorKind::Check(c.id.0)));
        }
    }
    // A body that decodes past the limit is too large, whatever the checks made of its start.
    if f.too_large {
        return Some(ErrorKind::TooLarge);
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: SID=abc; Path=/\r\nSet-Cookie: theme=dark\r\nX-Req: 7\r\n\r\n";

    #[test]
    fn headers_and_cookies() {
        let r = Response::new(HEAD, b"", 200);
        assert_eq!(r.header("x-req"), Some("7"));
        assert_eq!(r.headers_named("set-cookie").count(), 2);
        assert_eq!(r.cookie("theme"), Some("dark"));
        assert_eq!(r.cookie("SID"), Some("abc"));
        assert!(r.headers_text().starts_with("Content-Type: application/json\r\n"));
    }

    #[test]
    fn regex_templates() {
        let re = regex::Regex::new(r"id=(\d+);name=(\w+)").unwrap();
        let caps = re.captures("x id=42;name=bob y").unwrap();
        assert_eq!(fill("$1$", &caps), "42");
        assert_eq!(fill("$2$-$1$", &caps), "bob-42");
        assert_eq!(fill("$0$", &caps), "id=42;name=bob");
        assert_eq!(fill("cost $5 $1$", &caps), "cost $5 42");
    }

    #[test]
    fn gzip_bodies_are_decoded_for_checks() {
        let body = crate::plan::gzip(b"{\"ok\":true}");
        let head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n";
        let r = Response::new(head, &body, 200);
        assert_eq!(r.body_text(1 << 20), ("{\"ok\":true}".into(), false));
        assert_eq!(r.body_text(4), ("{\"ok".into(), true), "decoding stops at the limit");
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
