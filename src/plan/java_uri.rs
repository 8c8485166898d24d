//! Whether `java.net.URI` refuses a URL, and why, in its own words.
//!
//! JMeter's HTTP sampler hands every URL it sends to `new java.net.URI(url.toString())`
//! (HTTPHC4Impl.sample); one it refuses fails the sample unsent with
//! `java.net.URISyntaxException: <reason> at index <n>: <url>`. Its parser reads RFC 2396
//! (plus IPv6 literals, empty paths and authorities): in a path, controls, spaces and
//! `"<>\^`{|}[]` are illegal; `[]` are legal in a query and a fragment; `%` must start two
//! hex digits; a visible non-ASCII character is legal anywhere but the scheme. The index
//! counts UTF-16 code units, as Java's strings do. Confirmed against Java 17 with a table of
//! inputs (the tests below).
//!
//! An authority with `[`/`]` is read as Java reads a server with an IPv6 literal: an
//! unfilled placeholder host (`https://[HostName]/`) is `Malformed IPv6 address at index 9`.
//! Not modelled: a host name or IPv4 address Java refuses outside brackets (taken, as
//! registry names are); `Expected …` failures of an opaque or empty URI, which an HTTP
//! sampler never makes.

/// Why `java.net.URI` refuses a URL: its reason and the index it gives
/// (`URISyntaxException.getReason()`, `getIndex()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) reason: String,
    pub(crate) index: usize,
}

impl std::fmt::Display for Refusal {
    /// `Illegal character in query at index 77`: the message without its `: <input>` tail.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at index {}", self.reason, self.index)
    }
}

/// What `new java.net.URL(url)` says of a whole URL whose host is in brackets and no IPv6
/// literal (JMeter's sampler makes one of a full URL in its path field before anything else):
/// the `MalformedURLException` message, or `None` when it takes the host.
pub(crate) fn url_host_refusal(url: &str) -> Option<String> {
    let rest = &url[url.find("://")? + 3..];
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if !host.starts_with('[') {
        return None;
    }
    // URLStreamHandler.parseURL: a `]` after at least two characters, a literal
    // IPAddressUtil takes (a scope id after `%` aside), then nothing or a port.
    match host.find(']') {
        Some(end) if end > 2 => {
            let literal = &host[1..end];
            let addr = literal.split('%').next().unwrap_or_default();
            if addr.parse::<std::net::Ipv6Addr>().is_err() {
                Some(format!("Invalid host: {}", &host[..=end]))
            } else if host.len() > end + 1 && !host[end + 1..].starts_with(':') {
                Some(format!("Invalid authority field: {authority}"))
            } else {
                None
            }
        }
        _ => Some(format!("Invalid authority field: {authority}")),
    }
}

/// What `new java.net.URI(url)` says of `url`: `None` when it takes it.
pub(crate) fn refusal(url: &str) -> Option<Refusal> {
    let s: Vec<u16> = url.encode_utf16().collect();
    Parser { s: &s }.parse().err()
}

// Java's character classes (java.net.URI): letters, digits and the other ASCII characters
// they hold (unreserved = alphanum | `-_.!~*'()`); `Set::escapes` says whether `%XX` escapes
// and visible non-ASCII characters are allowed too.
struct Set {
    alpha: bool,
    digit: bool,
    /// Beyond letters and digits.
    more: &'static str,
    escapes: bool,
}

/// uric = reserved | unreserved | escaped; reserved = `;/?:@&=+$,[]`.
const URIC: Set = Set { alpha: true, digit: true, more: "-_.!~*'();/?:@&=+$,[]", escapes: true };
/// path = pchar | `;/`; pchar = unreserved | escaped | `:@&=+$,`.
const PATH: Set = Set { alpha: true, digit: true, more: "-_.!~*'():@&=+$,;/", escapes: true };
/// reg_name = unreserved | escaped | `$,;:@&=+`.
const REG_NAME: Set = Set { alpha: true, digit: true, more: "-_.!~*'()$,;:@&=+", escapes: true };
/// server = userinfo | alphanum | `-` | `.:@[]`, userinfo = unreserved | escaped | `;:&=+$,`;
/// with `%` itself (Java's L_SERVER_PERCENT, taken whenever the authority does not start with `]`).
const SERVER_PERCENT: Set = Set { alpha: true, digit: true, more: "-_.!~*'();:&=+$,.:@[]%", escapes: true };
const SCHEME: Set = Set { alpha: true, digit: true, more: "+-.", escapes: false };
const ALPHA: Set = Set { alpha: true, digit: false, more: "", escapes: false };
const DIGIT: Set = Set { alpha: false, digit: true, more: "", escapes: false };
const DIGIT_DOT: Set = Set { alpha: false, digit: true, more: ".", escapes: false };
const HEX: Set = Set { alpha: false, digit: true, more: "abcdefABCDEF", escapes: false };

impl Set {
    /// Java's `match`: an ASCII character of the set (never NUL).
    fn has(&self, c: u16) -> bool {
        let Ok(b) = u8::try_from(c) else { return false };
        b != 0
            && b < 128
            && ((self.alpha && b.is_ascii_alphabetic())
                || (self.digit && b.is_ascii_digit())
                || self.more.as_bytes().contains(&b))
    }
}

/// Java's `Character.isSpaceChar` for a UTF-16 code unit (Unicode Zs, Zl, Zp).
fn is_space_char(c: u16) -> bool {
    matches!(c, 0x20 | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000)
}

/// Java's `Character.isISOControl`.
fn is_iso_control(c: u16) -> bool {
    c <= 0x1F || (0x7F..=0x9F).contains(&c)
}

fn is_hex(c: u16) -> bool {
    u8::try_from(c).is_ok_and(|b| b.is_ascii_hexdigit())
}

struct Parser<'a> {
    s: &'a [u16],
}

type Step = Result<usize, Refusal>;

fn fail(reason: impl Into<String>, index: usize) -> Refusal {
    Refusal { reason: reason.into(), index }
}

impl Parser<'_> {
    fn at(&self, p: usize, n: usize, c: char) -> bool {
        p < n && self.s[p] == c as u16
    }

    /// The first position in `[p, n)` holding one of `stop`, or `n`.
    fn find(&self, p: usize, n: usize, stop: &str) -> usize {
        (p..n).find(|&i| stop.encode_utf16().any(|c| c == self.s[i])).unwrap_or(n)
    }

    /// Java's `scan(start, n, lowMask, highMask)`: past the characters of `set` (and its
    /// escapes); a `%` that does not start an escape fails.
    fn scan(&self, mut p: usize, n: usize, set: &Set) -> Step {
        while p < n {
            let c = self.s[p];
            if set.has(c) {
                p += 1;
            } else if set.escapes && c == u16::from(b'%') {
                if p + 3 <= n && is_hex(self.s[p + 1]) && is_hex(self.s[p + 2]) {
                    p += 3;
                } else {
                    return Err(fail("Malformed escape pair", p));
                }
            } else if set.escapes && c > 128 && !is_space_char(c) && !is_iso_control(c) {
                p += 1;
            } else {
                break;
            }
        }
        Ok(p)
    }

    fn check(&self, p: usize, n: usize, set: &Set, what: &str) -> Result<(), Refusal> {
        let q = self.scan(p, n, set)?;
        if q < n {
            return Err(fail(format!("Illegal character in {what}"), q));
        }
        Ok(())
    }

    /// `[scheme:]scheme-specific-part[#fragment]`.
    fn parse(&self) -> Result<(), Refusal> {
        let n = self.s.len();
        let colon = self.find(0, n, ":/?#");
        let mut p = if self.at(colon, n, ':') {
            if colon == 0 {
                return Err(fail("Expected scheme name", 0));
            }
            self.check(0, 1, &ALPHA, "scheme name")?;
            self.check(1, colon, &SCHEME, "scheme name")?;
            let p = colon + 1;
            if self.at(p, n, '/') {
                self.hierarchical(p, n)?
            } else {
                let q = self.find(p, n, "#");
                if q <= p {
                    return Err(fail("Expected scheme-specific part", p));
                }
                self.check(p, q, &URIC, "opaque part")?;
                q
            }
        } else {
            self.hierarchical(0, n)?
        };
        if self.at(p, n, '#') {
            self.check(p + 1, n, &URIC, "fragment")?;
            p = n;
        }
        if p < n {
            return Err(fail("end of URI", p));
        }
        Ok(())
    }

    /// `[//authority]path[?query]`.
    fn hierarchical(&self, mut p: usize, n: usize) -> Step {
        if self.at(p, n, '/') && self.at(p + 1, n, '/') {
            p += 2;
            let q = self.find(p, n, "/?#");
            if q > p {
                self.authority(p, q)?;
                p = q;
            } else if q >= n {
                return Err(fail("Expected authority", p));
            }
        }
        let q = self.find(p, n, "?#");
        self.check(p, q, &PATH, "path")?;
        p = q;
        if self.at(p, n, '?') {
            let q = self.find(p + 1, n, "#");
            self.check(p + 1, q, &URIC, "query")?;
            p = q;
        }
        Ok(p)
    }

    /// A server (`[userinfo@]host[:port]`) or a registry name. Java takes any authority made
    /// of registry-name characters (a host that is not one leaves the URI without a host,
    /// which is HttpClient's to refuse); one with other characters fails at its start.
    fn authority(&self, p: usize, n: usize) -> Result<(), Refusal> {
        let server = self.scan(p, n, &SERVER_PERCENT)? == n;
        let reg = self.scan(p, n, &REG_NAME)? == n;
        if !server && !reg {
            return Err(fail("Illegal character in authority", p));
        }
        // Java tries a server first and keeps its error when the authority is no registry
        // name either (`[`/`]` are not registry-name characters): "probably due to a
        // malformed IPv6 address".
        if server && !reg {
            self.server(p, n)?;
        }
        Ok(())
    }

    /// Java's `parseServer` for a host in brackets (`[userinfo@][ipv6]:port`); a host outside
    /// brackets is taken.
    fn server(&self, mut p: usize, n: usize) -> Result<(), Refusal> {
        let at = self.find(p, n, "@");
        if at < n {
            p = at + 1;
        }
        if !self.at(p, n, '[') {
            return Ok(());
        }
        p += 1;
        let q = self.find(p, n, "]");
        if q <= p || q >= n {
            return Err(fail("Expected closing bracket for IPv6 address", q));
        }
        // A scope id after `%` is taken as it is (Java's own error for an empty one has no index).
        self.ipv6(p, self.find(p, q, "%"))?;
        p = q + 1;
        if self.at(p, n, ':') {
            p = self.scan(p + 1, n, &DIGIT)?;
        }
        if p < n {
            return Err(fail("Expected port number", p));
        }
        Ok(())
    }

    /// Java's `parseIPv6Reference` over `[start, n)`.
    fn ipv6(&self, start: usize, n: usize) -> Result<(), Refusal> {
        let mut bytes = 0usize;
        let mut p = start;
        let mut compressed = false;
        match self.hex_seq(p, n, &mut bytes)? {
            Some(q) if q > p => {
                p = q;
                if self.at(p, n, ':') && self.at(p + 1, n, ':') {
                    compressed = true;
                    p = self.hex_post(p + 2, n, &mut bytes)?;
                } else if self.at(p, n, ':') {
                    p = self.take_ipv4(p + 1, n, "IPv4 address")?;
                    bytes += 4;
                }
            }
            _ if self.at(p, n, ':') && self.at(p + 1, n, ':') => {
                compressed = true;
                p = self.hex_post(p + 2, n, &mut bytes)?;
            }
            _ => {}
        }
        if p < n || (compressed && bytes == 16) {
            return Err(fail("Malformed IPv6 address", start));
        }
        if bytes > 16 {
            return Err(fail("IPv6 address too long", start));
        }
        if !compressed && bytes < 16 {
            return Err(fail("IPv6 address too short", start));
        }
        Ok(())
    }

    /// Java's `scanHexPost`.
    fn hex_post(&self, p: usize, n: usize, bytes: &mut usize) -> Step {
        if p == n {
            return Ok(p);
        }
        match self.hex_seq(p, n, bytes)? {
            Some(q) if q > p => {
                if self.at(q, n, ':') {
                    *bytes += 4;
                    return self.take_ipv4(q + 1, n, "hex digits or IPv4 address");
                }
                Ok(q)
            }
            _ => {
                *bytes += 4;
                self.take_ipv4(p, n, "hex digits or IPv4 address")
            }
        }
    }

    /// Java's `scanHexSeq`: `None` where it returns -1 (no hex digits, or an IPv4 address).
    fn hex_seq(&self, mut p: usize, n: usize, bytes: &mut usize) -> Result<Option<usize>, Refusal> {
        let q = self.scan(p, n, &HEX)?;
        if q <= p || self.at(q, n, '.') {
            return Ok(None);
        }
        if q > p + 4 {
            return Err(fail("IPv6 hexadecimal digit sequence too long", p));
        }
        *bytes += 2;
        p = q;
        while p < n && self.at(p, n, ':') && !self.at(p + 1, n, ':') {
            p += 1;
            let q = self.scan(p, n, &HEX)?;
            if q <= p {
                return Err(fail("Expected digits for an IPv6 address", p));
            }
            if self.at(q, n, '.') {
                p -= 1;
                break;
            }
            if q > p + 4 {
                return Err(fail("IPv6 hexadecimal digit sequence too long", p));
            }
            *bytes += 2;
            p = q;
        }
        Ok(Some(p))
    }

    /// Java's `takeIPv4Address` (strict: the rest of `[start, n)` is the address).
    fn take_ipv4(&self, start: usize, n: usize, expected: &str) -> Step {
        let m = self.scan(start, n, &DIGIT_DOT)?;
        if m <= start || m != n {
            return Err(fail(format!("Expected {expected}"), start));
        }
        let mut p = start;
        for i in 0..4 {
            if i > 0 {
                if !self.at(p, m, '.') {
                    return Err(fail("Malformed IPv4 address", p));
                }
                p += 1;
            }
            // At most three digits, each part a byte (Java's `scanByte`).
            let q = self.scan(p, m.min(p + 3), &DIGIT)?;
            let part: String = String::from_utf16_lossy(&self.s[p..q]);
            if q <= p || part.parse::<u32>().map_or(true, |v| v > 255) {
                return Err(fail("Malformed IPv4 address", p));
            }
            p = q;
        }
        if p < m {
            return Err(fail("Malformed IPv4 address", p));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each input and what `new java.net.URI(input)` said of it in Java 17.0.15 (reason and
    /// index, or `ok`), run with a small Java program over this same list.
    const JAVA: &[(&str, &str)] = &[
        ("http://localhost/a", "ok"),
        ("http://localhost/${a}-${b}", "Illegal character in path at index 18"),
        (
            "http://YourDomainName:443/api?isAPrivateProgram=false&page=1&limit=25&search=<EOF>",
            "Illegal character in query at index 77",
        ),
        ("http://h/a b", "Illegal character in path at index 10"),
        ("http://h/a?b c", "Illegal character in query at index 12"),
        ("http://h/a|b", "Illegal character in path at index 10"),
        ("http://h/a\"b", "Illegal character in path at index 10"),
        ("http://h/a<b", "Illegal character in path at index 10"),
        ("http://h/a>b", "Illegal character in path at index 10"),
        ("http://h/a\\b", "Illegal character in path at index 10"),
        ("http://h/a^b", "Illegal character in path at index 10"),
        ("http://h/a`b", "Illegal character in path at index 10"),
        ("http://h/a{b", "Illegal character in path at index 10"),
        ("http://h/a}b", "Illegal character in path at index 10"),
        ("http://h/a[b", "Illegal character in path at index 10"),
        ("http://h/a]b", "Illegal character in path at index 10"),
        ("http://h/a?x=[1]", "ok"),
        ("http://h/a?x={1}", "Illegal character in query at index 13"),
        ("http://h/a?x=|", "Illegal character in query at index 13"),
        ("http://h/a?x=?&y=/:@", "ok"),
        ("http://h/a%", "Malformed escape pair at index 10"),
        ("http://h/a%2", "Malformed escape pair at index 10"),
        ("http://h/a%2g", "Malformed escape pair at index 10"),
        ("http://h/a%20", "ok"),
        ("http://h/a%zz?b", "Malformed escape pair at index 10"),
        ("http://h/a?b=%", "Malformed escape pair at index 13"),
        ("http://h/a?b=%4", "Malformed escape pair at index 13"),
        ("http://h/a#frag", "ok"),
        ("http://h/a#fr ag", "Illegal character in fragment at index 13"),
        ("http://h/a#f#g", "Illegal character in fragment at index 12"),
        ("http://h/a#[x]", "ok"),
        ("http://h/a#{x}", "Illegal character in fragment at index 11"),
        ("http://h/a?b#c|d", "Illegal character in fragment at index 14"),
        ("http://h/é", "ok"),
        ("http://h/a?q=é", "ok"),
        ("http://h/a\u{a0}b", "Illegal character in path at index 10"),
        ("http://h/a\u{85}b", "Illegal character in path at index 10"),
        ("http://h/a\u{2028}b", "Illegal character in path at index 10"),
        ("http://h/a\u{3000}b", "Illegal character in path at index 10"),
        ("http://h/a\tb", "Illegal character in path at index 10"),
        ("http://h/a😀b", "ok"),
        ("http://h/~user/!$&'()*+,;=:@", "ok"),
        ("http://h/-._", "ok"),
        ("http://${host}:443/api", "Illegal character in authority at index 7"),
        ("http://${host}/api", "Illegal character in authority at index 7"),
        ("http://h_x/a", "ok"),
        ("http://h:80/a", "ok"),
        ("http://[::1]:8080/a", "ok"),
        ("http://h:8x/a", "ok"),
        ("http://h%41/a", "ok"),
        ("http://h%4/a", "Malformed escape pair at index 8"),
        ("http://a b/x", "Illegal character in authority at index 7"),
        ("http://h|x/a", "Illegal character in authority at index 7"),
        ("http://user@h/a", "ok"),
        ("http://h/a?b=<>", "Illegal character in query at index 13"),
        ("http://h/a?b=1&c=%E2%82%AC", "ok"),
        ("http://h/a'b", "ok"),
        ("http://h/;a=b/c", "ok"),
        ("http://h/a?b=\\", "Illegal character in query at index 13"),
        // Hosts in brackets: unfilled placeholders and IPv6 literals (checked with Java 17).
        ("http://[HostName]/a", "Malformed IPv6 address at index 8"),
        ("https://[HostName]/a", "Malformed IPv6 address at index 9"),
        ("http://[HostName]:18777/a", "Malformed IPv6 address at index 8"),
        ("http://[Foo]/v", "Malformed IPv6 address at index 8"),
        ("http://user@[x]/v", "Malformed IPv6 address at index 13"),
        ("http://[::1]/a", "ok"),
        ("http://[1:2:3:4:5:6:7:8]:80/a", "ok"),
        ("http://[::ffff:127.0.0.1]/a", "ok"),
        ("http://[1:2:3]/a", "IPv6 address too short at index 8"),
        ("http://[12345::1]/a", "IPv6 hexadecimal digit sequence too long at index 8"),
        ("http://[HostName/a", "Expected closing bracket for IPv6 address at index 16"),
        ("http://[::1]x/a", "Expected port number at index 12"),
        ("http://[1::2::3]/a", "Expected hex digits or IPv4 address at index 13"),
        ("http://[::1.2.3]/a", "Malformed IPv4 address at index 15"),
        ("http://[]/a", "Expected closing bracket for IPv6 address at index 8"),
        // Indexes count UTF-16 code units: the emoji is two.
        ("http://h/😀{", "Illegal character in path at index 11"),
    ];

    #[test]
    fn a_url_with_a_bracketed_host_is_refused_as_java_net_url_refuses_it() {
        // What `new java.net.URL(input)` threw in Java 17.
        let java = [
            ("https://[HostName]/path?x=1", Some("Invalid host: [HostName]")),
            ("http://[HostName]:8080/path", Some("Invalid host: [HostName]")),
            ("http://[HostName/a", Some("Invalid authority field: [HostName")),
            ("http://[]/a", Some("Invalid authority field: []")),
            ("http://[a]/", Some("Invalid authority field: [a]")),
            ("http://[ab]/", Some("Invalid host: [ab]")),
            ("http://[::1]x/a", Some("Invalid authority field: [::1]x")),
            ("http://u@[Host]/a", Some("Invalid host: [Host]")),
            ("http://[::1]/a", None),
            ("http://h/[x]", None),
        ];
        for (input, want) in java {
            assert_eq!(url_host_refusal(input).as_deref(), want, "{input}");
        }
    }

    #[test]
    fn refuses_what_java_refuses_at_the_same_index() {
        for (input, java) in JAVA {
            let got = refusal(input).map_or_else(|| "ok".to_string(), |r| r.to_string());
            assert_eq!(&got, java, "{input}");
        }
    }
}
