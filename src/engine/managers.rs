//! A user's side of JMeter's HTTP managers (the plan side is `plan::managers`): its HTTP
//! caches (CacheManager), the `Authorization` header (AuthManager, Basic), the Cookie
//! Manager's own cookies and its strict policy. Nothing here runs for a request whose scope
//! has no such manager.

use crate::plan::managers::{AuthEntry, AuthSpec, CacheSpec, UserCookie};
use crate::plan::template::Scope;
use crate::plan::{Target, Template};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, SystemTime};

/// A user's caches, one per HTTP Cache Manager of the plan.
#[derive(Debug, Default, Clone)]
pub(super) struct UserCaches {
    caches: Vec<Cache>,
}

/// One user's cache of one manager (JMeter's per-thread Caffeine cache of `CacheEntry`).
#[derive(Debug, Default, Clone)]
struct Cache {
    entries: HashMap<String, Entry>,
    /// Keys in the order they were stored: the oldest goes first when the cache is full.
    order: VecDeque<String>,
}

/// What JMeter's CacheManager keeps of a response.
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    last_modified: Option<String>,
    etag: Option<String>,
    /// Fresh until then (only with "use Cache-Control/Expires"); `None`: always revalidated.
    expires: Option<SystemTime>,
    /// The response's `Vary`: this entry only points to the one kept for the request's values
    /// of those headers.
    vary: Option<String>,
}

impl Cache {
    /// CacheManager.getEntry: the entry for `url`, or, when the response varied, the one kept
    /// for this request's values of the headers it varied by.
    fn entry(&self, url: &str, headers: &[(String, Template)]) -> Option<&Entry> {
        let e = self.entries.get(url)?;
        match &e.vary {
            None => Some(e),
            Some(vary) => self.entries.get(&vary_key(url, vary, headers)).filter(|e| e.vary.is_none()),
        }
    }

    /// Stores `entry` under `key`, the oldest entry going first when the cache is full.
    fn put(&mut self, key: String, entry: Entry, max: usize) {
        if !self.entries.contains_key(&key) {
            while self.entries.len() >= max {
                let Some(old) = self.order.pop_front() else { break };
                self.entries.remove(&old);
            }
            self.order.push_back(key.clone());
        }
        self.entries.insert(key, entry);
    }
}

/// Where CacheManager keeps a response that varied: by the names in `Vary` and the request's
/// values of those headers (the plan's headers, named exactly; a value that changes while
/// running counts by its template).
fn vary_key(url: &str, vary: &str, headers: &[(String, Template)]) -> String {
    let mut key = format!("vary-{vary}-");
    for name in vary.split(',').map(str::trim_start) {
        key.push_str(name);
        key.push('=');
        for (_, v) in headers.iter().filter(|(k, _)| k == name) {
            key.push_str(v.as_const().unwrap_or(v.source()));
            key.push('\n');
        }
        key.push(';');
    }
    key.push('-');
    key.push_str(url);
    key
}

/// What one response says about caching: its `Last-Modified`, `ETag`, `Expires`,
/// `Cache-Control`, `Date` and `Vary` headers (the last of each, as JMeter reads them).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct CacheHeaders<'a> {
    pub last_modified: Option<&'a str>,
    pub etag: Option<&'a str>,
    pub expires: Option<&'a str>,
    pub cache_control: Option<&'a str>,
    pub date: Option<&'a str>,
    pub vary: Option<&'a str>,
}

impl UserCaches {
    fn cache(&mut self, slot: u32) -> &mut Cache {
        let i = slot as usize;
        if self.caches.len() <= i {
            self.caches.resize_with(i + 1, Cache::default);
        }
        &mut self.caches[i]
    }

    /// Stores what `other` (a copy of these caches a parallel branch used) holds and these
    /// do not, or hold otherwise: the branch shared the user's caches in the plugin.
    pub(super) fn absorb(&mut self, other: &UserCaches, specs: &[CacheSpec]) {
        for (i, (theirs, spec)) in other.caches.iter().zip(specs).enumerate() {
            for key in &theirs.order {
                let Some(e) = theirs.entries.get(key) else { continue };
                let mine = self.cache(i as u32);
                if mine.entries.get(key) != Some(e) {
                    mine.put(key.clone(), e.clone(), spec.max_size);
                }
            }
        }
    }

    /// Empties the caches whose manager says so (as an iteration starts).
    pub(super) fn clear_each_iteration(&mut self, specs: &[CacheSpec]) {
        for (c, spec) in self.caches.iter_mut().zip(specs) {
            if spec.clear_each_iteration {
                *c = Cache::default();
            }
        }
    }

    /// Whether a GET of `url` is answered by the cache without a request: its entry is fresh
    /// by its `Expires` / `max-age` (CacheManager.inCache).
    pub(super) fn fresh(&mut self, slot: u32, url: &str, headers: &[(String, Template)], now: SystemTime) -> bool {
        self.cache(slot).entry(url, headers).and_then(|e| e.expires).is_some_and(|t| t > now)
    }

    /// Appends the conditional headers for `url` (CacheManager.setHeaders): If-Modified-Since
    /// from the entry's Last-Modified, If-None-Match from its ETag.
    pub(super) fn conditional_headers(
        &mut self,
        slot: u32,
        url: &str,
        headers: &[(String, Template)],
        out: &mut String,
    ) {
        let Some(e) = self.cache(slot).entry(url, headers) else { return };
        if let Some(lm) = &e.last_modified {
            push_header(out, "If-Modified-Since", lm);
        }
        if let Some(etag) = &e.etag {
            push_header(out, "If-None-Match", etag);
        }
    }

    /// Keeps what a response says (CacheManager.saveDetails): only for a GET answered 2xx or
    /// 304, with one of Last-Modified, Expires, ETag, Cache-Control, not `Vary: *`; with "use
    /// Cache-Control/Expires", never with `no-store`. An entry already there is kept as it is,
    /// unless the response varied (then both entries are replaced). `headers` are the plan's
    /// headers of the request.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn save(
        &mut self,
        slot: u32,
        spec: &CacheSpec,
        method: &str,
        status: u16,
        url: &str,
        headers: &[(String, Template)],
        h: &CacheHeaders<'_>,
    ) {
        let cacheable = method.eq_ignore_ascii_case("GET") && ((200..=299).contains(&status) || status == 304);
        if !cacheable || h.vary == Some("*") {
            return;
        }
        let any = [h.last_modified, h.expires, h.etag, h.cache_control]
            .iter()
            .any(|v| v.is_some_and(|v| !v.trim().is_empty()));
        if !any {
            return;
        }
        let now = SystemTime::now();
        let mut expires = None;
        if spec.use_expires {
            if h.cache_control.is_some_and(|c| c.contains("no-store")) {
                return;
            }
            expires = h.expires.map(|e| parse_http_date(e).unwrap_or(SystemTime::UNIX_EPOCH));
            if !h.cache_control.is_some_and(|c| c.contains("no-cache")) {
                expires = expires_from_cache_control(h, now, expires);
            }
        }
        let max = spec.max_size;
        let cache = self.cache(slot);
        if max == 0 {
            return;
        }
        let entry = Entry {
            last_modified: h.last_modified.map(str::to_string),
            etag: h.etag.map(str::to_string),
            expires,
            vary: None,
        };
        match h.vary {
            Some(vary) => {
                let key = vary_key(url, vary, headers);
                cache.put(url.to_string(), Entry { vary: Some(vary.to_string()), ..entry.clone() }, max);
                cache.put(key, entry, max);
            }
            None if cache.entries.contains_key(url) => {}
            None => cache.put(url.to_string(), entry, max),
        }
    }
}

/// CacheManager.extractExpiresDateFromCacheControl: `max-age` overrides Expires; with
/// neither, a tenth of the time since Last-Modified (by the response's Date), else a year.
fn expires_from_cache_control(
    h: &CacheHeaders<'_>,
    now: SystemTime,
    default: Option<SystemTime>,
) -> Option<SystemTime> {
    const MAX_AGE: &str = "max-age=";
    const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);
    if let Some(cc) = h.cache_control.filter(|c| c.contains(MAX_AGE)) {
        let at = cc.find(MAX_AGE).expect("found above") + MAX_AGE.len();
        let digits = cc[at..].split([',', ' ']).next().unwrap_or("");
        // JMeter's Long.parseLong throws on anything else, and the response is not cached.
        let secs: i64 = digits.parse().ok()?;
        return Some(shift(now, secs.saturating_mul(1000)));
    }
    if h.expires.is_some() {
        return default;
    }
    let heuristic = match (h.last_modified.filter(|s| !s.is_empty()), h.date.filter(|s| !s.is_empty())) {
        (Some(lm), Some(date)) => match (parse_http_date(date), parse_http_date(lm)) {
            (Some(d), Some(l)) => {
                let ms = match d.duration_since(l) {
                    Ok(age) => (age.as_millis() as f64 * 0.1).round() as i64,
                    Err(e) => -((e.duration().as_millis() as f64 * 0.1).round() as i64),
                };
                shift(now, ms)
            }
            _ => now + YEAR,
        },
        _ => now + YEAR,
    };
    Some(heuristic)
}

/// `t` moved by `ms` milliseconds (back when negative), at most ten thousand years: the
/// values come from a response, and `SystemTime`'s `+` panics past what it can hold.
fn shift(t: SystemTime, ms: i64) -> SystemTime {
    const MAX_MS: u64 = 10_000 * 365 * 24 * 3600 * 1000;
    let d = Duration::from_millis(ms.unsigned_abs().min(MAX_MS));
    let moved = if ms >= 0 { t.checked_add(d) } else { t.checked_sub(d) };
    moved.unwrap_or(t)
}

fn push_header(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push_str(": ");
    // A value from a response must not be able to add header lines.
    out.extend(value.chars().map(|c| if c == '\r' || c == '\n' { ' ' } else { c }));
    out.push_str("\r\n");
}

/// The URL a cache keys by: scheme, authority (the default port left out) and path with query.
pub(super) fn cache_key(target: &Target, path: &str) -> String {
    format!("{}://{}{}", target.scheme(), target.authority(), path)
}

/// The entry of the manager that gives the credentials for a request (AuthManager.getAuthForURL,
/// as HttpClient 4's preemptive interceptor asks it): the first, in the manager's order, whose
/// base URL starts the request's URL, without its query, written with or without the scheme's
/// default port.
pub(super) fn auth_entry<'a, S: Scope>(
    auth: &'a AuthSpec,
    vars: &mut S,
    target: &Target,
    path: &str,
) -> Option<&'a AuthEntry> {
    let path = path.split('?').next().unwrap_or(path);
    let host = if target.host.contains(':') { format!("[{}]", target.host) } else { target.host.clone() };
    let default = target.port == if target.tls { 443 } else { 80 };
    let with_port = format!("{}://{host}:{}{path}", target.scheme(), target.port);
    let without_port = default.then(|| format!("{}://{host}{path}", target.scheme()));
    auth.entries.iter().find(|e| {
        let base = e.url.render_string(vars);
        with_port.starts_with(&base) || without_port.as_ref().is_some_and(|u| u.starts_with(&base))
    })
}

/// Appends `Authorization: Basic …` when a Basic entry of the manager gives the credentials
/// for the request ([`auth_entry`]); a Digest entry waits for the server's challenge.
pub(super) fn authorization<S: Scope>(auth: &AuthSpec, vars: &mut S, target: &Target, path: &str, out: &mut String) {
    let Some(e) = auth_entry(auth, vars, target, path).filter(|e| !e.digest) else { return };
    let user = e.user.render_string(vars);
    let password = e.password.render_string(vars);
    let domain = e.domain.render_string(vars);
    push_header(out, "Authorization", &crate::plan::managers::basic_credentials(&user, &password, &domain));
}

/// The `Authorization` header line answering a `WWW-Authenticate: Digest` challenge with a
/// Digest entry's credentials, as HttpClient 4's DigestScheme writes it (RFC 2617: qop `auth`
/// when offered, nonce count 1, a random client nonce; MD5 or MD5-sess). `None` when the
/// challenge is not Digest, names another realm than the entry's, or asks only `auth-int`.
pub(super) fn digest_authorization<S: Scope>(
    e: &AuthEntry,
    vars: &mut S,
    challenge: &str,
    method: &str,
    uri: &str,
    cnonce: &str,
) -> Option<String> {
    let rest = challenge.trim_start();
    // Compared as bytes: the challenge comes from the server, and its 6th byte need not end a
    // character.
    if !rest.as_bytes().get(..6).is_some_and(|s| s.eq_ignore_ascii_case(b"digest")) {
        return None;
    }
    let params = challenge_params(&rest[6..]);
    let param = |n: &str| params.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v.as_str());
    let (realm, nonce) = (param("realm")?, param("nonce")?);
    let own_realm = e.realm.render_string(vars);
    if !own_realm.is_empty() && own_realm != realm {
        return None;
    }
    let qop = match param("qop") {
        None => None,
        Some(q) if q.split(',').any(|v| v.trim().eq_ignore_ascii_case("auth")) => Some("auth"),
        Some(_) => return None,
    };
    let algorithm = param("algorithm").unwrap_or("MD5");
    let mut user = e.user.render_string(vars);
    let domain = e.domain.render_string(vars);
    if !domain.is_empty() {
        user = format!("{}\\{user}", domain.to_uppercase());
    }
    let password = e.password.render_string(vars);
    let hex = |s: &str| md5_hex(s.as_bytes());
    let mut ha1 = hex(&format!("{user}:{realm}:{password}"));
    if algorithm.eq_ignore_ascii_case("MD5-sess") {
        ha1 = hex(&format!("{ha1}:{nonce}:{cnonce}"));
    } else if !algorithm.eq_ignore_ascii_case("MD5") {
        return None;
    }
    let ha2 = hex(&format!("{method}:{uri}"));
    const NC: &str = "00000001";
    let response = match qop {
        Some(q) => hex(&format!("{ha1}:{nonce}:{NC}:{cnonce}:{q}:{ha2}")),
        None => hex(&format!("{ha1}:{nonce}:{ha2}")),
    };
    let quote = |v: &str| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""));
    let mut h = format!(
        "Digest username={}, realm={}, nonce={}, uri={}, response={}",
        quote(&user),
        quote(realm),
        quote(nonce),
        quote(uri),
        quote(&response)
    );
    if let Some(q) = qop {
        h.push_str(&format!(", qop={q}, nc={NC}, cnonce={}", quote(cnonce)));
    }
    h.push_str(&format!(", algorithm={algorithm}"));
    if let Some(o) = param("opaque") {
        h.push_str(&format!(", opaque={}", quote(o)));
    }
    let mut out = String::new();
    push_header(&mut out, "Authorization", &h);
    Some(out)
}

/// The `name=value` parameters of a challenge (values quoted or not).
fn challenge_params(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s.trim_start();
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim().trim_start_matches(',').trim().to_string();
        rest = rest[eq + 1..].trim_start();
        let value = if let Some(q) = rest.strip_prefix('"') {
            let mut v = String::new();
            let mut chars = q.char_indices();
            let mut end = q.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => v.extend(chars.next().map(|(_, c)| c)),
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => v.push(c),
                }
            }
            rest = &q[end.min(q.len())..];
            v
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let v = rest[..end].trim().to_string();
            rest = &rest[end..];
            v
        };
        out.push((name, value));
        rest = rest.trim_start().trim_start_matches(',').trim_start();
    }
    out
}

/// MD5 (RFC 1321) in lower-case hex, for HTTP Digest authentication only.
fn md5_hex(data: &[u8]) -> String {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6,
        10, 15, 21,
    ];
    let k = |i: usize| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32;
    let mut state = [0x6745_2301u32, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&(data.len() as u64).wrapping_mul(8).to_le_bytes());
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let [mut a, mut b, mut c, mut d] = state;
        for (i, shift) in S.iter().enumerate() {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k(i)).wrapping_add(m[g]);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(f.rotate_left(*shift));
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    state.iter().flat_map(|v| v.to_le_bytes()).map(|b| format!("{b:02x}")).collect()
}

/// Appends the Cookie Manager's own cookies that match the request to a `Cookie` header value
/// (RFC 6265 matching: a given domain matches its subdomains, else the host exactly; the path
/// on a `/` boundary; a secure cookie only over https), leaving out any the jar also holds.
pub(super) fn user_cookies<S: Scope>(
    cookies: &[UserCookie],
    vars: &mut S,
    target: &Target,
    path: &str,
    in_jar: impl Fn(&str) -> bool,
    header: &mut String,
) {
    let host = target.host.to_ascii_lowercase();
    let path = path.split(['?', '#']).next().unwrap_or(path);
    for c in cookies {
        let domain = c.domain.trim_start_matches('.');
        let domain_ok = host == domain
            || (c.domain_specified
                && host.len() > domain.len()
                && host.ends_with(domain)
                && host.as_bytes()[host.len() - domain.len() - 1] == b'.');
        let path_ok = path == c.path
            || (path.starts_with(&c.path)
                && (c.path.ends_with('/') || path.as_bytes().get(c.path.len()) == Some(&b'/')));
        if !domain_ok || !path_ok || (c.secure && !target.tls) || in_jar(&c.name) {
            continue;
        }
        if !header.is_empty() {
            header.push_str("; ");
        }
        header.push_str(&c.name);
        header.push('=');
        c.value.render(vars, header);
    }
}

/// Whether the `standard-strict` policy (HttpClient 4's RFC6265StrictSpec) takes a
/// `Set-Cookie` value: `Max-Age` a non-negative integer, `Expires` an RFC 1123, RFC 1036 or
/// asctime date. The lax `standard` policy ignores a bad attribute and keeps the cookie.
pub(super) fn strict_accepts(set_cookie: &str) -> bool {
    for attr in set_cookie.split(';').skip(1) {
        let (name, value) = attr.split_once('=').unwrap_or((attr, ""));
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("max-age") && value.parse::<u32>().is_err() {
            return false;
        }
        if name.eq_ignore_ascii_case("expires") && parse_http_date(value).is_none() {
            return false;
        }
    }
    true
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// Parses an HTTP date as HttpClient's DateUtils does, in its three forms: RFC 1123
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 1036 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`). Times are GMT.
pub(super) fn parse_http_date(s: &str) -> Option<SystemTime> {
    let s = s.trim();
    let words: Vec<&str> = s.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let (day, month, year, time) = match words.as_slice() {
        // RFC 1123: Sun, 06 Nov 1994 08:49:37 GMT
        [_, d, m, y, t, "GMT" | "UTC" | "UT"] if s.contains(',') => (*d, *m, *y, *t),
        // RFC 1036: Sunday, 06-Nov-94 08:49:37 GMT
        [_, dmy, t, "GMT" | "UTC" | "UT"] if s.contains(',') => {
            let mut p = dmy.split('-');
            let (d, m, y) = (p.next()?, p.next()?, p.next()?);
            (d, m, y, *t)
        }
        // asctime: Sun Nov  6 08:49:37 1994
        [_, m, d, t, y] if !s.contains(',') => (*d, *m, *y, *t),
        _ => return None,
    };
    let day: u32 = day.parse().ok()?;
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month))? as u32 + 1;
    let mut year: i64 = year.parse().ok()?;
    if (0..100).contains(&year) && words.len() == 4 {
        // A two-digit year, as SimpleDateFormat reads it with the century starting in 2000.
        year += 2000;
    }
    let mut hms = time.split(':').map(|p| p.parse::<u32>().ok());
    let (h, mi, se) = (hms.next()??, hms.next()??, hms.next()??);
    if !(1..=31).contains(&day) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    // A year beyond what a date can hold (the text comes from a response) is not a date.
    if !(-100_000..=100_000).contains(&year) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(se);
    let d = Duration::from_secs(secs.unsigned_abs());
    if secs >= 0 {
        SystemTime::UNIX_EPOCH.checked_add(d)
    } else {
        SystemTime::UNIX_EPOCH.checked_sub(d)
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::managers::AuthEntry;
    use crate::plan::template::{compile, Symbols};
    use crate::plan::Template;

    fn secs(t: SystemTime) -> u64 {
        t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn http_dates_in_their_three_forms() {
        for d in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            assert_eq!(parse_http_date(d).map(secs), Some(784_111_777), "{d}");
        }
        // A two-digit year is in the century from 2000 (DateUtils' two-digit year start).
        let y2094 = parse_http_date("Sat, 06 Nov 2094 08:49:37 GMT");
        assert_eq!(parse_http_date("Saturday, 06-Nov-94 08:49:37 GMT"), y2094);
        for bad in ["0", "-1", "", "tomorrow", "Sun, 06 Nov 1994 25:49:37 GMT"] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }

    fn spec(use_expires: bool, max_size: usize) -> CacheSpec {
        CacheSpec { use_expires, max_size, clear_each_iteration: true }
    }

    #[test]
    fn the_cache_keeps_what_jmeter_keeps() {
        let now = SystemTime::now();
        let mut c = UserCaches::default();
        let h = CacheHeaders {
            etag: Some("\"v1\""),
            last_modified: Some("Sun, 06 Nov 1994 08:49:37 GMT"),
            ..Default::default()
        };
        // Not a GET, or not 2xx/304: nothing kept.
        c.save(0, &spec(false, 10), "POST", 200, "u", &[], &h);
        c.save(0, &spec(false, 10), "GET", 404, "u", &[], &h);
        let mut out = String::new();
        c.conditional_headers(0, "u", &[], &mut out);
        assert_eq!(out, "");
        c.save(0, &spec(false, 10), "GET", 200, "u", &[], &h);
        c.conditional_headers(0, "u", &[], &mut out);
        assert_eq!(out, "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\nIf-None-Match: \"v1\"\r\n");
        assert!(!c.fresh(0, "u", &[], now), "without useExpires an entry is never fresh");
        // An entry already there is not replaced (CacheManager.setCache).
        let h2 = CacheHeaders { etag: Some("\"v2\""), ..Default::default() };
        c.save(0, &spec(false, 10), "GET", 200, "u", &[], &h2);
        let mut out2 = String::new();
        c.conditional_headers(0, "u", &[], &mut out2);
        assert_eq!(out, out2);
        // Vary: * is never kept.
        c.save(0, &spec(false, 10), "GET", 200, "v", &[], &CacheHeaders { vary: Some("*"), ..h });
        assert!(!c.cache(0).entries.contains_key("v"));
        c.clear_each_iteration(&[spec(false, 10)]);
        assert!(c.cache(0).entries.is_empty());
    }

    #[test]
    fn freshness_by_max_age_and_expires() {
        let now = SystemTime::now();
        let mut c = UserCaches::default();
        let s = spec(true, 10);
        c.save(
            0,
            &s,
            "GET",
            200,
            "a",
            &[],
            &CacheHeaders { cache_control: Some("public, max-age=60"), ..Default::default() },
        );
        assert!(c.fresh(0, "a", &[], now));
        assert!(!c.fresh(0, "a", &[], now + Duration::from_secs(61)));
        // max-age wins over an Expires in the past; no-cache forces revalidation.
        let past = CacheHeaders { expires: Some("Sun, 06 Nov 1994 08:49:37 GMT"), ..Default::default() };
        c.save(0, &s, "GET", 200, "b", &[], &CacheHeaders { cache_control: Some("max-age=60"), ..past });
        assert!(c.fresh(0, "b", &[], now));
        c.save(0, &s, "GET", 200, "c", &[], &past);
        assert!(!c.fresh(0, "c", &[], now), "an Expires in the past");
        c.save(
            0,
            &s,
            "GET",
            200,
            "d",
            &[],
            &CacheHeaders { cache_control: Some("no-cache, max-age=60"), ..Default::default() },
        );
        assert!(!c.fresh(0, "d", &[], now));
        c.save(0, &s, "GET", 200, "e", &[], &CacheHeaders { cache_control: Some("no-store"), ..Default::default() });
        assert!(!c.cache(0).entries.contains_key("e"), "no-store is not kept");
        c.save(0, &s, "GET", 200, "f", &[], &CacheHeaders { expires: Some("0"), ..Default::default() });
        assert!(!c.fresh(0, "f", &[], now), "an invalid Expires is expired");
        // Only a Last-Modified: a year (no Date), or a tenth of Date - Last-Modified.
        c.save(
            0,
            &s,
            "GET",
            200,
            "g",
            &[],
            &CacheHeaders { last_modified: Some("Sun, 06 Nov 1994 08:49:37 GMT"), ..Default::default() },
        );
        assert!(c.fresh(0, "g", &[], now + Duration::from_secs(300 * 24 * 3600)));
    }

    #[test]
    fn a_response_that_varies_is_kept_per_value_of_the_headers_it_names() {
        let now = SystemTime::now();
        let mut c = UserCaches::default();
        let s = spec(true, 10);
        let (json, xml) = (
            vec![("Accept".to_string(), Template::literal("application/json"))],
            vec![("Accept".to_string(), Template::literal("text/xml"))],
        );
        let h = CacheHeaders { cache_control: Some("max-age=60"), vary: Some("Accept"), ..Default::default() };
        c.save(0, &s, "GET", 200, "u", &json, &h);
        assert!(c.fresh(0, "u", &json, now));
        assert!(!c.fresh(0, "u", &xml, now), "another Accept is another entry");
        c.save(0, &s, "GET", 200, "u", &xml, &h);
        assert!(c.fresh(0, "u", &xml, now) && c.fresh(0, "u", &json, now));
        assert!(!c.fresh(0, "u", &[], now));
    }

    #[test]
    fn the_oldest_entry_goes_when_full() {
        let mut c = UserCaches::default();
        let h = CacheHeaders { etag: Some("x"), ..Default::default() };
        for u in ["a", "b", "c"] {
            c.save(0, &spec(false, 2), "GET", 200, u, &[], &h);
        }
        let keys: Vec<&String> = c.cache(0).order.iter().collect();
        assert_eq!(keys, ["b", "c"]);
        assert_eq!(c.cache(0).entries.len(), 2);
    }

    #[test]
    fn the_first_matching_base_url_gives_the_credentials() {
        let mut sym = Symbols::default();
        let t = |s: &str, sym: &mut Symbols| compile(s, sym, "t").unwrap();
        let entry = |url: &str, user: &str, sym: &mut Symbols| AuthEntry {
            url: t(url, sym),
            user: t(user, sym),
            password: Template::literal("pw"),
            domain: Template::literal(""),
            realm: Template::literal(""),
            digest: false,
        };
        let auth = AuthSpec {
            entries: vec![
                entry("http://h/api", "first", &mut sym),
                entry("http://h/api/v2", "longer", &mut sym),
                entry("http://h:8080/", "port", &mut sym),
            ],
        };
        let mut vars = crate::engine::session::UserVars::new(
            sym.vars.initial_values(),
            0,
            1,
            crate::engine::session::Globals::new(0),
        );
        let target = |port| Target { tls: false, host: "h".into(), port };
        let header = |vars: &mut crate::engine::session::UserVars, port, path: &str| {
            let mut out = String::new();
            authorization(&auth, vars, &target(port), path, &mut out);
            out
        };
        // The first entry in order, not the longest.
        assert_eq!(
            header(&mut vars, 80, "/api/v2/x?q=1"),
            format!("Authorization: {}\r\n", crate::plan::managers::basic_credentials("first", "pw", ""))
        );
        assert_eq!(
            header(&mut vars, 8080, "/z"),
            format!("Authorization: {}\r\n", crate::plan::managers::basic_credentials("port", "pw", ""))
        );
        // http://h/api names port 80: on 8080 the third entry applies.
        assert_eq!(
            header(&mut vars, 8080, "/api"),
            format!("Authorization: {}\r\n", crate::plan::managers::basic_credentials("port", "pw", ""))
        );
        assert_eq!(header(&mut vars, 80, "/other"), "");
    }

    #[test]
    fn md5_as_rfc_1321() {
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6");
        assert_eq!(md5_hex("a".repeat(100).as_bytes()), "36a92cc94a9e0fa21f625f8bfb007adf");
    }

    #[test]
    fn digest_answers_rfc_2617_s_example() {
        // RFC 2617 §3.5: Mufasa, "Circle Of Life", GET /dir/index.html.
        let e = AuthEntry {
            url: Template::literal(""),
            user: Template::literal("Mufasa"),
            password: Template::literal("Circle Of Life"),
            domain: Template::literal(""),
            realm: Template::literal(""),
            digest: true,
        };
        let mut vars = crate::engine::session::UserVars::new(Vec::new(), 0, 1, crate::engine::session::Globals::new(0));
        let challenge = r#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#;
        let h = digest_authorization(&e, &mut vars, challenge, "GET", "/dir/index.html", "0a4f113b").unwrap();
        assert!(h.contains(r#"response="6629fae49393a05397450978507c4ef1""#), "{h}");
        assert!(h.starts_with(r#"Authorization: Digest username="Mufasa", realm="testrealm@host.com", nonce="#), "{h}");
        assert!(h.ends_with(", qop=auth, nc=00000001, cnonce=\"0a4f113b\", algorithm=MD5, opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"\r\n"), "{h}");
        assert_eq!(digest_authorization(&e, &mut vars, "Basic realm=\"x\"", "GET", "/", "c"), None);
        let other_realm = AuthEntry { realm: Template::literal("elsewhere"), ..e };
        assert_eq!(digest_authorization(&other_realm, &mut vars, challenge, "GET", "/", "c"), None);
    }

    #[test]
    fn user_cookies_match_domain_path_and_scheme() {
        let mut sym = Symbols::default();
        let ck = |name: &str, domain: &str, path: &str, secure, specified| UserCookie {
            name: name.into(),
            value: Template::literal("v"),
            domain: domain.into(),
            path: path.into(),
            secure,
            domain_specified: specified,
        };
        let cookies = [
            ck("host", "example.com", "/", false, false),
            ck("dom", "example.com", "/", false, true),
            ck("app", "example.com", "/app", false, true),
            ck("sec", "example.com", "/", true, true),
        ];
        let mut vars = crate::engine::session::UserVars::new(
            sym.vars.initial_values(),
            0,
            1,
            crate::engine::session::Globals::new(0),
        );
        let _ = &mut sym;
        let send = |vars: &mut crate::engine::session::UserVars, host: &str, tls, path: &str| {
            let mut h = String::new();
            user_cookies(&cookies, vars, &Target { tls, host: host.into(), port: 80 }, path, |n| n == "jarred", &mut h);
            h
        };
        assert_eq!(send(&mut vars, "example.com", false, "/app/x"), "host=v; dom=v; app=v");
        assert_eq!(send(&mut vars, "www.example.com", false, "/application"), "dom=v");
        assert_eq!(send(&mut vars, "badexample.com", true, "/"), "");
        assert_eq!(send(&mut vars, "example.com", true, "/"), "host=v; dom=v; sec=v");
    }

    /// Review of #13: values from the server that overflowed `SystemTime` or split a character
    /// panicked the user's task.
    #[test]
    fn hostile_cache_and_challenge_headers_do_not_panic() {
        let now = SystemTime::now();
        let mut c = UserCaches::default();
        let s = spec(true, 10);
        for cc in ["max-age=9223372036854775807", "max-age=-9223372036854775808"] {
            c.save(0, &s, "GET", 200, cc, &[], &CacheHeaders { cache_control: Some(cc), ..Default::default() });
        }
        assert!(c.fresh(0, "max-age=9223372036854775807", &[], now + Duration::from_secs(100 * 365 * 24 * 3600)));
        assert!(!c.fresh(0, "max-age=-9223372036854775808", &[], now));
        for d in ["Sun, 06 Nov 9223372036854775807 08:49:37 GMT", "Sun Nov  6 08:49:37 -9223372036854775808"] {
            assert_eq!(parse_http_date(d), None, "{d}");
        }
        let lm = CacheHeaders {
            last_modified: Some("Sun, 06 Nov 1994 08:49:37 GMT"),
            date: Some("Sun, 06 Nov 99999 08:49:37 GMT"),
            ..Default::default()
        };
        c.save(0, &s, "GET", 200, "lm", &[], &lm);
        let e = AuthEntry {
            url: Template::literal(""),
            user: Template::literal("u"),
            password: Template::literal("p"),
            domain: Template::literal(""),
            realm: Template::literal(""),
            digest: true,
        };
        let mut vars = crate::engine::session::UserVars::new(Vec::new(), 0, 1, crate::engine::session::Globals::new(0));
        assert_eq!(digest_authorization(&e, &mut vars, "Diges\u{e9} realm=\"r\"", "GET", "/", "c"), None);
        assert_eq!(digest_authorization(&e, &mut vars, "D\u{e9}", "GET", "/", "c"), None);
    }

    #[test]
    fn the_strict_policy_refuses_bad_dates_and_ages() {
        assert!(strict_accepts("a=1; Path=/; Max-Age=60; Expires=Sun, 06 Nov 1994 08:49:37 GMT"));
        assert!(!strict_accepts("a=1; Max-Age=-1"));
        assert!(!strict_accepts("a=1; Max-Age=soon"));
        assert!(!strict_accepts("a=1; Expires=Sun, 06 Nov 1994"));
    }
}
