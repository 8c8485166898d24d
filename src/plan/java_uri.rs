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
//! Not modelled: an authority with `[`/`]` (an IPv6 literal) is taken as Java takes a
//! well-formed one; `Expected …` failures of an opaque or empty URI, which an HTTP sampler
//! never makes.

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
        Ok(())
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
        // Indexes count UTF-16 code units: the emoji is two.
        ("http://h/😀{", "Illegal character in path at index 11"),
    ];

    #[test]
    fn refuses_what_java_refuses_at_the_same_index() {
        for (input, java) in JAVA {
            let got = refusal(input).map_or_else(|| "ok".to_string(), |r| r.to_string());
            assert_eq!(&got, java, "{input}");
        }
    }
}
