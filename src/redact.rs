//! The one rule for secrets, applied wherever stampede writes or prints something people share:
//! the run directory (`plan.yaml`, `meta.json`), results (JTL) files, `check`'s description,
//! error messages. The traffic itself is never changed.
//!
//! A value is secret when
//! - its **name** says so ([`is_secret_name`]): a header, cookie, query or form parameter, JSON
//!   field, property, variable or `--set` token named like `Authorization`, `Cookie`, `api_key`,
//!   `Api-Key`, `APIKEY`, `x_api_key`, `access_token`, `client_secret`, `password`, `session`...
//!   Names are compared case-insensitively, with `-`, `_`, `.` and spaces left out; or
//! - it is one of a plan's **known secret values** ([`Secrets`]): whatever `${__env(NAME)}` read,
//!   whatever NAME is, and the values of properties (`-J`, `-p`), plan variables and `--set`
//!   tokens with secret names, wherever in the plan they ended up.
//!
//! A secret value is replaced by [`MASK`]; its name stays, so a reader still sees what was sent.
//! The functions below apply the rule to each syntax a secret hides in: header lines,
//! `name=value` pairs (query strings, form bodies, cookies, command-line assignments), JSON
//! fields, URLs (`user:password@` too), command lines and free text.

use std::borrow::Cow;

/// What a secret value is replaced by.
pub(crate) const MASK: &str = "***";

/// Whether a name (of a header, cookie, query or form parameter, JSON field, property, variable
/// or `--set` token) names a secret. Case and the separators `-`, `_`, `.` and space do not
/// matter: `api_key`, `Api-Key`, `APIKEY` and `x_api_key` are all secret names.
pub(crate) fn is_secret_name(name: &str) -> bool {
    // A name from a query string may be percent-encoded (`api%5Fkey`).
    let decoded = match url::form_urlencoded::parse(name.as_bytes()).next() {
        Some((k, _)) if name.contains('%') => k.into_owned(),
        _ => name.to_string(),
    };
    let n: String =
        decoded.chars().filter(|c| !matches!(c, '-' | '_' | '.' | ' ')).flat_map(char::to_lowercase).collect();
    // Whole names: too short or too common to look for inside other names.
    const EXACT: &[&str] = &["auth", "pass", "pin", "otp", "sid", "key"];
    // Parts: any name containing one of these.
    const PARTS: &[&str] = &[
        "token",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "apikey",
        "accesskey",
        "privatekey",
        "session",
        "sessid",
        "cookie",
        "credential",
        "signature",
        "csrf",
        "xsrf",
        "jwt",
    ];
    if EXACT.contains(&n.as_str()) || PARTS.iter().any(|p| n.contains(p)) {
        return true;
    }
    // `auth`, `oauth`, `x-auth-user`, `authorization`, `proxy-authorization`, but not `author`
    // or `authority`.
    n.match_indices("auth").any(|(i, _)| {
        let rest = &n[i..];
        !rest.starts_with("author") || rest.starts_with("authoriz")
    })
}

/// A header's value as it may be shown: [`MASK`] for a secret header.
pub(crate) fn header<'a>(name: &str, value: &'a str) -> &'a str {
    if is_secret_name(name.trim()) {
        MASK
    } else {
        value
    }
}

/// A `Name: value` header line (or `NAME=value` assignment, when `sep` is `=`) as it may be
/// shown: the value masked when the name is secret.
pub(crate) fn assignment(line: &str, sep: char) -> Cow<'_, str> {
    match line.split_once(sep) {
        Some((k, v)) if is_secret_name(k.trim()) => {
            let space = if sep == ':' && v.starts_with(' ') { " " } else { "" };
            Cow::Owned(format!("{k}{sep}{space}{MASK}"))
        }
        _ => Cow::Borrowed(line),
    }
}

/// A URL (or a path with a query) as it may be shown: `user:password@` becomes `***@`, and in
/// the query and fragment, values of parameters with secret names are masked
/// (`?token=***&page=2`).
pub(crate) fn url(u: &str) -> Cow<'_, str> {
    let u = userinfo(u);
    match pairs_in(&u) {
        Cow::Borrowed(_) => u,
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// An `--export KIND=TARGET` value as it may be shown: the target as [`url()`] shows it, and
/// also the values of `u` and `p` in its query, InfluxDB 1's user and password parameters.
pub(crate) fn export_target(v: &str) -> String {
    match v.split_once('=') {
        Some((kind, target)) if !kind.contains([':', '/', '?']) => format!("{kind}={}", export_url(target)),
        _ => export_url(v),
    }
}

fn export_url(v: &str) -> String {
    // A target given without its scheme (`admin:pw@host:8086/write`) is refused, and named in
    // the error: its userinfo is masked all the same.
    let schemeless;
    let v = match v.find(['/', '?', '#']).map_or(v, |end| &v[..end]).rfind('@') {
        Some(at) if !v.contains("://") => {
            schemeless = format!("{MASK}{}", &v[at..]);
            schemeless.as_str()
        }
        _ => v,
    };
    let shown = url(v);
    let Some((head, query)) = shown.split_once('?') else { return shown.into_owned() };
    let (query, fragment) = match query.split_once('#') {
        Some((q, f)) => (q, Some(f)),
        None => (query, None),
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if k == "u" || k == "p" => format!("{k}={MASK}"),
            _ => pair.to_string(),
        })
        .collect();
    let mut out = format!("{head}?{}", pairs.join("&"));
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `user:password@` in a URL becomes `***@`.
fn userinfo(u: &str) -> Cow<'_, str> {
    let Some(s) = u.find("://") else { return Cow::Borrowed(u) };
    let authority_end = u[s + 3..].find(['/', '?', '#']).map_or(u.len(), |i| s + 3 + i);
    match u[s + 3..authority_end].rfind('@') {
        Some(at) => Cow::Owned(format!("{}{MASK}{}", &u[..s + 3], &u[s + 3 + at..])),
        None => Cow::Borrowed(u),
    }
}

/// A request body as it may be shown: secret-named fields masked in a form
/// (`user=bob&password=***`) or in JSON (`{"password": "***"}`).
pub(crate) fn body(b: &str) -> Cow<'_, str> {
    pairs_in(b)
}

/// Free text (a message, a check's description) as it may be shown: URLs, `name=value` pairs
/// and JSON fields with secret names have their values masked. (`Name: value` is left alone in
/// free text: `extract token: nothing found` is a message, not a header.)
pub(crate) fn text(t: &str) -> Cow<'_, str> {
    let t = if t.contains("://") { Cow::Owned(userinfo_all(t)) } else { Cow::Borrowed(t) };
    let t = match pairs_in(&t) {
        Cow::Borrowed(_) => t,
        Cow::Owned(s) => Cow::Owned(s),
    };
    match credentials_in(&t) {
        Cow::Borrowed(_) => t,
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// Masks credentials a server echoed back (a mirror, a proxy's error page quoting the request)
/// that no name=value rule sees: the value of an `Authorization:` or `Proxy-Authorization:`
/// header line, after its scheme (`Authorization: Basic ***`), and a `Basic` credential
/// anywhere (the base64 of `user:password`, told from a word by decoding to text with a `:`).
/// A value ends at the end of its line, written raw or escaped (`\r\n` in JSON), or a quote.
fn credentials_in(s: &str) -> Cow<'_, str> {
    use base64::Engine as _;
    let lower = s.to_ascii_lowercase();
    if !lower.contains("authorization") && !lower.contains("basic ") {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let value_end = |from: usize| scan(b, from, |c| matches!(c, b'\r' | b'\n' | b'"' | b'\'' | b'\\' | b'<'));
    // (start, end) of each credential to mask, in order.
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (at, _) in lower.match_indices("authorization") {
        let mut j = at + "authorization".len();
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        if b.get(j) != Some(&b':') {
            continue;
        }
        j += 1;
        while b.get(j) == Some(&b' ') {
            j += 1;
        }
        // The scheme stays: it says what was sent, not what with.
        let word = scan(b, j, |c| !c.is_ascii_alphabetic());
        let from = if b.get(word) == Some(&b' ') && word > j { word + 1 } else { j };
        let to = value_end(from);
        if to > from && !s[from..to].starts_with(MASK) {
            spans.push((from, to));
        }
    }
    for (at, _) in lower.match_indices("basic ") {
        let from = at + "basic ".len();
        let to = scan(b, from, |c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')));
        let decoded = base64::engine::general_purpose::STANDARD.decode(&s[from..to]).ok();
        if decoded.is_some_and(|d| std::str::from_utf8(&d).is_ok_and(|t| t.contains(':'))) {
            spans.push((from, to));
        }
    }
    if spans.is_empty() {
        return Cow::Borrowed(s);
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    for (from, to) in spans {
        if from < copied {
            continue;
        }
        out.push_str(&s[copied..from]);
        out.push_str(MASK);
        copied = to;
    }
    out.push_str(&s[copied..]);
    Cow::Owned(out)
}

/// What a URL's `user:password@` puts on the wire, in every form a server may echo back: the
/// password and `user:password` as written and percent-decoded, and their Basic credential
/// (the base64 of `user:password`). Forms shorter than [`Secrets::MIN_LEN`] are left to the
/// rules by place ([`text`] masks any `Basic` credential and `Authorization:` line).
pub(crate) fn userinfo_secrets(u: &url::Url) -> Secrets {
    use base64::Engine as _;
    let mut out = Secrets::default();
    if u.username().is_empty() && u.password().is_none() {
        return out;
    }
    let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
    let (user, pass) = (u.username(), u.password().unwrap_or(""));
    for (user, pass) in [(user.to_string(), pass.to_string()), (decode(user), decode(pass))] {
        let pair = format!("{user}:{pass}");
        out.add(&base64::engine::general_purpose::STANDARD.encode(&pair));
        out.add(&pair);
        out.add(&pass);
    }
    out
}

/// [`userinfo`] for every URL in a text.
fn userinfo_all(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find("://") {
        // The URL starts at its scheme, after the last character that cannot be in one.
        let start = rest[..i]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            // After that character, which may take more than one byte («, é).
            .map_or(0, |j| j + rest[j..].chars().next().map_or(1, char::len_utf8));
        let end = rest[i..].find(|c: char| c.is_whitespace() || "\"'`<>".contains(c)).map_or(rest.len(), |j| i + j);
        out.push_str(&rest[..start]);
        out.push_str(&userinfo(&rest[start..end]));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'%')
}

/// Masks the values after secret names in `s`: `name=value` (up to `&`, `;`, `#`, a space or a
/// quote), and `"name": value` or `'name': value` (a JSON string or bare value).
fn pairs_in(s: &str) -> Cow<'_, str> {
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        if !is_name_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_name_byte(b[i]) {
            i += 1;
        }
        let name = &s[start..i];
        // A quoted name: `"name"` or `'name'`.
        let quoted = start > 0 && matches!(b[start - 1], b'"' | b'\'') && b.get(i) == Some(&b[start - 1]);
        let mut j = if quoted { i + 1 } else { i };
        let value = if quoted {
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if !matches!(b.get(j), Some(b':') | Some(b'=')) {
                i = j;
                continue;
            }
            j += 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            json_value(b, j)
        } else if b.get(j) == Some(&b'=') {
            j += 1;
            if matches!(b.get(j), Some(b'"') | Some(b'\'')) {
                quoted_value(b, j)
            } else {
                (j, scan(b, j, |c| matches!(c, b'&' | b';' | b'#' | b'"' | b'\'') || c.is_ascii_whitespace()))
            }
        } else {
            continue;
        };
        let (from, to) = value;
        if to > from && is_secret_name(name) {
            let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
            o.push_str(&s[copied..from]);
            o.push_str(MASK);
            copied = to;
        }
        i = to.max(i);
    }
    match out {
        None => Cow::Borrowed(s),
        Some(mut o) => {
            o.push_str(&s[copied..]);
            Cow::Owned(o)
        }
    }
}

/// The end of the run of bytes from `from` that `stop` does not stop.
fn scan(b: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> usize {
    b[from..].iter().position(|c| stop(*c)).map_or(b.len(), |k| from + k)
}

/// The contents of a quoted string starting at `at` (the quote): `(first, end)` byte offsets
/// inside the quotes; a backslash escapes the next byte.
fn quoted_value(b: &[u8], at: usize) -> (usize, usize) {
    let q = b[at];
    let mut k = at + 1;
    while k < b.len() && b[k] != q {
        k += if b[k] == b'\\' { 2 } else { 1 };
    }
    (at + 1, k.min(b.len()))
}

/// A JSON value at `at`: a string's contents, or a bare value (number, literal, unquoted
/// template) up to `,`, `}`, `]` or a space. An object or array is left for its own fields.
fn json_value(b: &[u8], at: usize) -> (usize, usize) {
    match b.get(at) {
        Some(b'"') | Some(b'\'') => quoted_value(b, at),
        Some(b'{') | Some(b'[') | None => (at, at),
        Some(_) => (at, scan(b, at, |c| matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace())),
    }
}

/// A command line as it may be recorded (`meta.json`): values of secret headers (`-H`), secret
/// properties (`-J`) and secret `--set` tokens masked, and URLs (`--url`) and bodies (`--body`)
/// through [`url()`] and [`body`]. Other arguments go through [`text`].
pub(crate) fn command_line(args: &[String]) -> Vec<String> {
    // Options whose value is a header line, an assignment, a URL or a body.
    fn kind(flag: &str) -> Option<char> {
        match flag {
            "-H" | "--header" => Some(':'),
            // `stampede jmeter`'s property options are JMeter's: `-G`, `-D` and the long forms.
            "-J" | "--set" | "-G" | "-D" | "--jmeterproperty" | "--globalproperty" | "--systemproperty" => Some('='),
            "--url" => Some('u'),
            "-d" | "--body" => Some('b'),
            "--export" => Some('x'),
            _ => None,
        }
    }
    fn value(kind: char, v: &str) -> String {
        match kind {
            ':' | '=' => assignment(v, kind).into_owned(),
            'u' => url(v).into_owned(),
            'b' => body(v).into_owned(),
            'x' => export_target(v),
            _ => text(v).into_owned(),
        }
    }
    let mut out = Vec::with_capacity(args.len());
    let mut next: Option<char> = None;
    // JMeter also reads `-J name value`: the word after a secret name alone is its value.
    let mut secret_next = false;
    let secret_name_alone = |k: char, v: &str| k == '=' && !v.contains('=') && is_secret_name(v.trim());
    for a in args {
        if std::mem::take(&mut secret_next) && !a.starts_with('-') {
            out.push(MASK.to_string());
            continue;
        }
        if let Some(k) = next.take() {
            secret_next = secret_name_alone(k, a);
            out.push(value(k, a));
            continue;
        }
        if let Some(k) = kind(a) {
            next = Some(k);
            out.push(a.clone());
        } else if let Some((flag, v, k)) =
            a.split_once('=').filter(|(f, _)| f.starts_with("--")).and_then(|(f, v)| Some((f, v, kind(f)?)))
        {
            // --flag=value
            out.push(format!("{flag}={}", value(k, v)));
        } else if let Some(k) = a.get(..2).filter(|_| a.len() > 2 && !a.starts_with("--")).and_then(kind) {
            // -Hvalue, -Jname=value, -dvalue (and -H=value, as clap takes it)
            let v = &a[2..];
            let v = if k == ':' { v.strip_prefix('=').unwrap_or(v) } else { v };
            secret_next = secret_name_alone(k, v);
            out.push(format!("{}{}", &a[..2], value(k, v)));
        } else {
            out.push(text(a).into_owned());
        }
    }
    out
}

/// A plan's known secret values: what its `${__env(...)}` read and the values of its secret-named
/// properties, variables and `--set` tokens. [`Secrets::scrub`] masks them wherever they appear.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Secrets {
    /// Longest first, so a secret containing another is masked whole.
    values: Vec<String>,
}

impl Secrets {
    /// Values shorter than this are not looked for: masking every `50` or `true` in a results
    /// file would hide more than it protects.
    pub(crate) const MIN_LEN: usize = 6;

    /// Remembers a value (and its form-encoded spelling, as it appears in a query).
    pub(crate) fn add(&mut self, value: &str) {
        if value.chars().count() < Self::MIN_LEN {
            return;
        }
        let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        self.insert(value.to_string());
        self.insert(encoded);
    }

    /// The values remembered, longest first.
    pub(crate) fn values(&self) -> &[String] {
        &self.values
    }

    pub(crate) fn extend(&mut self, other: &Secrets) {
        for v in &other.values {
            self.insert(v.clone());
        }
    }

    /// Keeps `v` once, in its place by length.
    fn insert(&mut self, v: String) {
        if !self.values.contains(&v) {
            let at = self.values.iter().position(|x| x.len() < v.len()).unwrap_or(self.values.len());
            self.values.insert(at, v);
        }
    }

    /// `s` with every known secret value replaced by [`MASK`].
    pub(crate) fn scrub<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if !self.values.iter().any(|v| s.contains(v.as_str())) {
            return Cow::Borrowed(s);
        }
        let mut out = s.to_string();
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), MASK);
            }
        }
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue31_an_echoed_authorization_is_masked_in_every_form() {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD.encode("user:secretpass");
        for echoed in [
            format!("HTTP 500: GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Basic {b64}\r\nAccept: */*"),
            format!("{{\"headers\": \"authorization:Basic {b64}\\r\\nx: y\"}}"),
            format!("proxy said: credentials basic {b64} refused"),
            "Proxy-Authorization: Bearer abc.def.ghi\nnext line".to_string(),
        ] {
            let shown = text(&echoed);
            assert!(!shown.contains(&b64) && !shown.contains("abc.def"), "{shown}");
            assert!(shown.contains(MASK), "{shown}");
        }
        assert_eq!(text("Authorization: Basic x").as_ref(), "Authorization: Basic ***");
        // Words after `basic` are not credentials: only base64 of `user:password` is.
        assert_eq!(text("basic auth failed"), "basic auth failed");
        // A URL's userinfo in every form a server may echo back.
        let u = url::Url::parse("http://user:secret%70ass@127.0.0.1:1/").unwrap();
        let s = userinfo_secrets(&u);
        for form in ["secretpass", "user:secretpass", b64.as_str(), "secret%70ass"] {
            assert_eq!(s.scrub(&format!("x {form} y")), format!("x {MASK} y"), "{form}");
        }
        assert!(userinfo_secrets(&url::Url::parse("http://127.0.0.1/").unwrap()).values().is_empty());
    }

    #[test]
    fn a_url_after_a_character_of_several_bytes_is_redacted_without_a_panic() {
        assert_eq!(text("voir «http://u:pw@h/x»"), "voir «http://***@h/x»");
        let t = text("échec «http://h/x?token=abcdef»");
        assert!(t.starts_with("échec «http://h/x?token=***") && !t.contains("abcdef"), "{t}");
    }

    #[test]
    fn secret_names_are_recognised_across_case_and_separators() {
        for n in [
            "Authorization",
            "Proxy-Authorization",
            "Cookie",
            "Set-Cookie",
            "X-Api-Key",
            "api_key",
            "Api_Key",
            "Api-Key",
            "APIKEY",
            "x_api_key",
            "access_token",
            "accessToken",
            "client_secret",
            "password",
            "passwd",
            "pwd",
            "pass",
            "token",
            "THE_TOKEN",
            "secret",
            "session",
            "JSESSIONID",
            "PHPSESSID",
            "auth",
            "X-Auth-User",
            "oauth_verifier",
            "x-authenticated-user-token",
            "X-Amz-Signature",
            "api%5Fkey",
            "key",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in ["Accept", "Content-Type", "X-Channel-Id", "user", "q", "page", "author", "authority", "keyword", "id"]
        {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn urls_keep_their_shape_and_lose_their_secrets() {
        let cases = [
            ("http://h/a?token=abc&x=1", "http://h/a?token=***&x=1"),
            ("/b?access_token=a1&api_key=a2&Api_Key=a3&page=2", "/b?access_token=***&api_key=***&Api_Key=***&page=2"),
            ("http://u:p@h:8080/x?q=1", "http://***@h:8080/x?q=1"),
            ("http://u:p@h/x@y", "http://***@h/x@y"),
            ("http://h/x@y", "http://h/x@y"),
            ("https://auth.example.com:8443/x", "https://auth.example.com:8443/x"),
            ("/cb#access_token=abc&state=1", "/cb#access_token=***&state=1"),
            // A value runs to `&`, `;`, `#` or a space: here, past a `?` (more is hidden, not less).
            ("/x;jsessionid=ABC?y=1", "/x;jsessionid=***"),
            ("/plain/path?a=b", "/plain/path?a=b"),
            ("/x?token=", "/x?token="),
        ];
        for (u, want) in cases {
            assert_eq!(url(u), want, "{u}");
        }
        assert!(matches!(url("/plain?a=1"), Cow::Borrowed(_)), "nothing to mask: no copy");
    }

    #[test]
    fn bodies_headers_and_assignments() {
        assert_eq!(body("user=bob&password=s3cr3t"), "user=bob&password=***");
        assert_eq!(
            body(r#"{"user": "bob", "password": "p\"w", "nested": {"apiKey":"k"}, "pin": 1234}"#),
            r#"{"user": "bob", "password": "***", "nested": {"apiKey":"***"}, "pin": ***}"#
        );
        assert_eq!(header("Authorization", "Bearer x"), MASK);
        assert_eq!(header("Accept", "*/*"), "*/*");
        assert_eq!(assignment("Authorization: Bearer x", ':'), "Authorization: ***");
        assert_eq!(assignment("Cookie:a=b", ':'), "Cookie:***");
        assert_eq!(assignment("THE_TOKEN=abc", '='), "THE_TOKEN=***");
        assert_eq!(assignment("users=5", '='), "users=5");
        assert_eq!(
            text("body contains \"token=abc\" at http://u:pw@h/?x=1 or {\"password\":\"p\"}"),
            "body contains \"token=***\" at http://***@h/?x=1 or {\"password\":\"***\"}"
        );
        assert_eq!(text("extract token: nothing found"), "extract token: nothing found");
        assert_eq!(text("cannot connect to auth.example.com:8080"), "cannot connect to auth.example.com:8080");
    }

    #[test]
    fn command_lines_are_recorded_without_secrets() {
        let args: Vec<String> = [
            "stampede",
            "run",
            "--url",
            "http://127.0.0.1/x?token=t1&page=2",
            "--body",
            "user=bob&password=p1",
            "-H",
            "Authorization: Bearer abc",
            "--header=X-Api-Key: k1",
            "-HCookie: c00kie",
            "-J",
            "password=p2",
            "-Jtoken=t2",
            "--set",
            "THE_TOKEN=t3",
            "--set=API_KEY=k2",
            "-dpassword=p3",
            "-J",
            "users=5",
            "-H",
            "Accept: */*",
            "-p",
            "props.properties",
            "http://user:pw@h/",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = command_line(&args).join(" ");
        for s in ["t1", "p1", "abc", "k1", "c00kie", "p2", "t2", "t3", "k2", "p3", "pw@"] {
            assert!(!r.contains(s), "{s} in {r}");
        }
        for s in ["users=5", "Accept: */*", "page=2", "user=bob", "props.properties", "THE_TOKEN=***"] {
            assert!(r.contains(s), "{s} not in {r}");
        }
    }

    /// The command line `args` as recorded, joined by spaces.
    fn recorded(args: &[&str]) -> String {
        command_line(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).join(" ")
    }

    #[test]
    fn jmeters_property_options_hide_secret_values_in_every_form() {
        let r = recorded(&[
            "jmeter",
            "-Gpassword=g1",
            "-D",
            "api_token=d1",
            "--globalproperty=secret=g2",
            "--jmeterproperty",
            "token=j1",
            "-J",
            "password",
            "j2",
            "-Japi_key",
            "j3",
            "-J",
            "threads",
            "50",
        ]);
        assert!(["g1", "d1", "g2", "j1", "j2", "j3"].iter().all(|s| !r.contains(s)), "{r}");
        assert!(r.contains("-J threads 50"), "{r}");
    }

    #[test]
    fn export_targets_hide_influxdb_users_and_passwords_too() {
        let args: Vec<String> = [
            "stampede",
            "run",
            "--export",
            "influxdb=http://127.0.0.1:8086/write?db=x&u=admin&p=hunter2",
            "--export=prometheus-rw=http://bob:s3cret@127.0.0.1:9090/api/v1/write?token=tok1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let r = command_line(&args).join(" ");
        for s in ["admin", "hunter2", "bob", "s3cret", "tok1"] {
            assert!(!r.contains(s), "{s} in {r}");
        }
        assert!(r.contains("influxdb=http://127.0.0.1:8086/write?db=x&u=***&p=***"), "{r}");
        assert_eq!(export_target("otlp=http://h/v1/metrics?p=1#frag"), "otlp=http://h/v1/metrics?p=***#frag");
    }

    #[test]
    fn known_values_are_scrubbed_whatever_their_name() {
        let mut s = Secrets::default();
        s.add("s3cr3t value");
        s.add("s3cr3t");
        s.add("short");
        assert_eq!(s.scrub("/e?q=s3cr3t+value&r=s3cr3t value&x=short"), "/e?q=***&r=***&x=short");
        assert!(matches!(s.scrub("nothing here"), Cow::Borrowed(_)));
    }
}
