//! JMeter's functions that compute text from their arguments' text alone: `__intSum`,
//! `__longSum`, `__urlencode`, `__urldecode`, `__escapeHtml`, `__unescapeHtml`, `__escapeXml`,
//! `__char`, `__changeCase`, `__digest`. Each is deterministic, so a call whose arguments are
//! all constant is evaluated once when the plan loads.

use super::entities::HTML4;
use std::fmt::Write as _;

/// A function of its arguments' text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pure {
    /// Every argument is an addend (the last one, when it names a variable, was taken off).
    IntSum,
    LongSum,
    UrlEncode,
    UrlDecode,
    EscapeHtml,
    UnescapeHtml,
    EscapeXml,
    Char,
    /// (text, mode)
    ChangeCase,
    /// (algorithm, text, salt, upper case)
    Digest,
}

impl Pure {
    /// Appends the result to `out`; `false` when JMeter's function would throw (a sum of text
    /// that is not a number, a malformed `%` escape): nothing is appended then.
    pub(super) fn apply(self, args: &[&str], out: &mut String) -> bool {
        match self {
            Pure::IntSum | Pure::LongSum => {
                // Java's int and long: each addend must fit, and the sum wraps around.
                let mut sum = 0i64;
                for a in args {
                    let n = if self == Pure::IntSum { a.parse::<i32>().map(i64::from) } else { a.parse::<i64>() };
                    match n {
                        Ok(n) => sum = sum.wrapping_add(n),
                        Err(_) => return false,
                    }
                }
                let _ = if self == Pure::IntSum { write!(out, "{}", sum as i32) } else { write!(out, "{sum}") };
            }
            Pure::UrlEncode => url_encode(args[0], out),
            Pure::UrlDecode => return url_decode(args[0], out),
            Pure::EscapeHtml => escape_html(args[0], out),
            Pure::UnescapeHtml => unescape_html(args[0], out),
            Pure::EscapeXml => escape_xml(args[0], out),
            Pure::Char => {
                for a in args {
                    // A value that is not a number is skipped (JMeter logs it).
                    if let Some(n) = java_long_decode(a.trim()) {
                        // Java's `(char) value` keeps the low 16 bits: one UTF-16 unit.
                        out.push(char::from_u32(u32::from(n as u16)).unwrap_or('?'));
                    }
                }
            }
            Pure::ChangeCase => {
                let text = args[0];
                let mode = args.get(1).copied().filter(|m| !m.is_empty()).unwrap_or("UPPER");
                match mode.to_ascii_uppercase().as_str() {
                    "UPPER" => out.push_str(&text.to_uppercase()),
                    "LOWER" => out.push_str(&text.to_lowercase()),
                    "CAPITALIZE" => {
                        let mut chars = text.chars();
                        if let Some(first) = chars.next() {
                            out.extend(first.to_uppercase());
                            out.push_str(chars.as_str());
                        }
                    }
                    // An unknown mode leaves the text as it is (JMeter logs an error).
                    _ => out.push_str(text),
                }
            }
            Pure::Digest => {
                let salt = args.get(2).copied().unwrap_or("");
                match digest(args[0], args[1], salt) {
                    Some(bytes) => {
                        let upper = args.get(3).is_some_and(|u| u.eq_ignore_ascii_case("true"));
                        for b in bytes {
                            let _ = if upper { write!(out, "{b:02X}") } else { write!(out, "{b:02x}") };
                        }
                    }
                    // An algorithm Java does not know: the function returns null, which
                    // JMeter's CompoundVariable appends as the text "null".
                    None => out.push_str("null"),
                }
            }
        }
        true
    }
}

/// `java.net.URLEncoder.encode(s, "UTF-8")`: letters, digits and `.-*_` stay, a space is `+`,
/// every other byte of the UTF-8 text is `%XX`.
pub(super) fn url_encode(s: &str, out: &mut String) {
    for b in s.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => out.push(char::from(b)),
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
}

/// `java.net.URLDecoder.decode(s, "UTF-8")`: `+` is a space, `%XX` a byte; a `%` without two hex
/// digits is an error (`false`). Bytes that are not UTF-8 become U+FFFD, as Java decodes them.
fn url_decode(s: &str, out: &mut String) -> bool {
    let bytes = s.as_bytes();
    let mut buf = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => buf.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => buf.push(b),
                    None => return false,
                }
                i += 2;
            }
            b => buf.push(b),
        }
        i += 1;
    }
    out.push_str(&String::from_utf8_lossy(&buf));
    true
}

/// Commons Text `escapeHtml4`: the HTML 4.01 named entities (`&amp;`, `&lt;`, `&eacute;`, ...).
fn escape_html(s: &str, out: &mut String) {
    for c in s.chars() {
        match HTML4.binary_search_by_key(&u32::from(c), |(cp, _)| *cp) {
            Ok(i) => {
                out.push('&');
                out.push_str(HTML4[i].1);
                out.push(';');
            }
            Err(_) => out.push(c),
        }
    }
}

/// Commons Text `unescapeHtml4`: the HTML 4.01 named entities and numeric ones (`&#233;`,
/// `&#xE9;`, the `;` required); anything else stays as it is.
fn unescape_html(s: &str, out: &mut String) {
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest[1..].find(';').map(|end| &rest[1..1 + end]);
        let decoded = entity.and_then(|e| {
            if let Some(num) = e.strip_prefix('#') {
                let cp = match num.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => num.parse::<u32>().ok(),
                };
                cp.and_then(char::from_u32)
            } else {
                HTML4.iter().find(|(_, name)| *name == e).and_then(|(cp, _)| char::from_u32(*cp))
            }
        });
        match (entity, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &rest[e.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
}

/// Commons Text `escapeXml10`: the five XML entities; characters XML 1.0 forbids are dropped, and
/// the C1 controls (but U+0085) are written as numeric references.
fn escape_xml(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {}
            '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

/// Java's `Long.decode`: an optional sign, then decimal, `0x`/`0X`/`#` hex or `0` octal.
fn java_long_decode(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, h)
    } else if let Some(h) = body.strip_prefix('#') {
        (16, h)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || digits.starts_with(['-', '+']) {
        return None;
    }
    let v = i128::from_str_radix(digits, radix).ok()?;
    i64::try_from(if neg { -v } else { v }).ok()
}

/// The digest algorithms Java has that stampede does not compute (a plan naming one is refused
/// when it loads, rather than sending a wrong value).
pub(super) const DIGESTS_NOT_SUPPORTED: [&str; 8] =
    ["MD2", "SHA-224", "SHA-512/224", "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHA224"];

/// `MessageDigest.getInstance(algorithm)` over the UTF-8 text and then the salt; `None` for a
/// name Java does not know (names are case-insensitive, as Java's provider lookup).
fn digest(algorithm: &str, text: &str, salt: &str) -> Option<Vec<u8>> {
    use ring::digest as d;
    let alg = match algorithm.to_ascii_uppercase().as_str() {
        "MD5" => {
            let mut data = text.as_bytes().to_vec();
            data.extend_from_slice(salt.as_bytes());
            return Some(md5(&data).to_vec());
        }
        "SHA-1" | "SHA1" | "SHA" => &d::SHA1_FOR_LEGACY_USE_ONLY,
        "SHA-256" | "SHA256" => &d::SHA256,
        "SHA-384" | "SHA384" => &d::SHA384,
        "SHA-512" | "SHA512" => &d::SHA512,
        "SHA-512/256" => &d::SHA512_256,
        _ => return None,
    };
    let mut ctx = d::Context::new(alg);
    ctx.update(text.as_bytes());
    ctx.update(salt.as_bytes());
    Some(ctx.finish().as_ref().to_vec())
}

/// MD5 (RFC 1321), which `ring` does not offer.
fn md5(data: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6,
        10, 15, 21,
    ];
    let k: [u32; 64] = std::array::from_fn(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32);
    let mut h: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for chunk in msg.chunks_exact(64) {
        let m: [u32; 16] = std::array::from_fn(|i| u32::from_le_bytes(chunk[i * 4..i * 4 + 4].try_into().unwrap()));
        let [mut a, mut b, mut c, mut dd] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & dd), i),
                1 => ((dd & b) | (!dd & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ dd, (3 * i + 5) % 16),
                _ => (c ^ (b | !dd), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = dd;
            dd = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        for (x, y) in h.iter_mut().zip([a, b, c, dd]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 16];
    for (i, w) in h.iter().enumerate() {
        out[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: Pure, args: &[&str]) -> Option<String> {
        let mut out = String::new();
        op.apply(args, &mut out).then_some(out)
    }

    #[test]
    fn sums_wrap_as_java_ints_and_fail_on_text() {
        assert_eq!(run(Pure::IntSum, &["1", "2", "-4"]).as_deref(), Some("-1"));
        assert_eq!(run(Pure::IntSum, &["2147483647", "1"]).as_deref(), Some("-2147483648"));
        assert_eq!(run(Pure::IntSum, &["+3", "4"]).as_deref(), Some("7"));
        assert_eq!(run(Pure::IntSum, &["1", " 2"]), None, "Integer.parseInt takes no spaces");
        assert_eq!(run(Pure::IntSum, &["${callID}", "1"]), None);
        assert_eq!(run(Pure::LongSum, &["9223372036854775807", "0"]).as_deref(), Some("9223372036854775807"));
        assert_eq!(run(Pure::IntSum, &["2147483648", "0"]), None, "beyond an int");
    }

    #[test]
    fn digests_match_java() {
        assert_eq!(run(Pure::Digest, &["MD5", "abc"]).unwrap(), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(run(Pure::Digest, &["md5", ""]).unwrap(), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            run(Pure::Digest, &["MD5", "The quick brown fox jumps over the lazy dog"]).unwrap(),
            "9e107d9d372bb6826bd81d3542a419d6"
        );
        assert_eq!(run(Pure::Digest, &["SHA-1", "abc"]).unwrap(), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(
            run(Pure::Digest, &["SHA-256", "ab", "c", "true"]).unwrap(),
            "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",
            "the salt follows the text"
        );
        assert_eq!(run(Pure::Digest, &["NOPE", "abc"]).unwrap(), "null");
        // 56 and 64 bytes: the padding crosses into a second block.
        let long = "a".repeat(64);
        assert_eq!(run(Pure::Digest, &["MD5", &long]).unwrap(), "014842d480b571495a4a0363793f7367");
    }

    #[test]
    fn url_encoding_is_javas() {
        assert_eq!(run(Pure::UrlEncode, &["a b&c=d/é*~"]).unwrap(), "a+b%26c%3Dd%2F%C3%A9*%7E");
        assert_eq!(run(Pure::UrlDecode, &["a+b%26c%3dd%2F%C3%A9"]).unwrap(), "a b&c=d/é");
        assert_eq!(run(Pure::UrlDecode, &["100%"]), None);
        assert_eq!(run(Pure::UrlDecode, &["%zz"]), None);
    }

    #[test]
    fn html_and_xml_escapes() {
        assert_eq!(
            run(Pure::EscapeHtml, &["<a href=\"x\">'é' & €</a>"]).unwrap(),
            "&lt;a href=&quot;x&quot;&gt;'&eacute;' &amp; &euro;&lt;/a&gt;"
        );
        assert_eq!(
            run(Pure::UnescapeHtml, &["&lt;p&gt; &eacute;&#233;&#xE9; &apos; &bogus; & &amp"]).unwrap(),
            "<p> ééé &apos; &bogus; & &amp"
        );
        assert_eq!(
            run(Pure::EscapeXml, &["<a b='c'>&\"\u{1}\u{80}\u{85}</a>"]).unwrap(),
            "&lt;a b=&apos;c&apos;&gt;&amp;&quot;&#128;\u{85}&lt;/a&gt;"
        );
    }

    #[test]
    fn char_and_case() {
        assert_eq!(run(Pure::Char, &["0xC", "65", "0101", "#42", "x", "-0"]).unwrap(), "\u{c}AAB\u{0}");
        assert_eq!(run(Pure::Char, &["65601"]).unwrap(), "A", "(char) keeps 16 bits");
        assert_eq!(run(Pure::ChangeCase, &["abc DEF"]).unwrap(), "ABC DEF");
        assert_eq!(run(Pure::ChangeCase, &["abc DEF", "lower"]).unwrap(), "abc def");
        assert_eq!(run(Pure::ChangeCase, &["abc DEF", "CAPITALIZE"]).unwrap(), "Abc DEF");
        assert_eq!(run(Pure::ChangeCase, &["abc", "other"]).unwrap(), "abc");
        assert_eq!(run(Pure::ChangeCase, &["abc", ""]).unwrap(), "ABC");
    }
}
