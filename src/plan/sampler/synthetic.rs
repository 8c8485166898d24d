//! A sample made without a connection: JMeter's Debug Sampler, the plugins' Dummy Sampler and
//! the Java Request's test clients (`JavaTest`, `SleepTest`). Each is a row of the results like
//! a request's (its label, elapsed time, success, response code), and the extractors and
//! assertions of its scope read the response data it makes up; nothing goes on the wire.

use super::after::After;
use super::http::CheckId;
use crate::plan::template::Template;
use crate::plan::LabelId;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Synthetic {
    pub label: LabelId,
    /// The JMeter class it comes from (for `check`'s listing).
    pub class: String,
    /// The sample succeeds when this renders to `success_word` (any case).
    pub success: Template,
    #[serde(skip)]
    pub success_word: &'static str,
    /// The failure the sample records when it does not succeed.
    #[serde(skip)]
    pub failure: CheckId,
    /// The response code; a number is the row's status, anything else is 0.
    pub code: Template,
    pub body: SyntheticBody,
    /// The request data: its length is the bytes sent (JavaTest's `SamplerData`).
    pub sent: Option<Template>,
    /// JMeter's sampler data, read by a Response Assertion on "Request Data" (none: empty).
    #[serde(skip)]
    pub data: Option<Template>,
    pub elapsed: Elapsed,
    /// Latency and connect time in ms (the Dummy Sampler's); a value that is not a whole
    /// number is 0, as the plugin reads it.
    pub latency: Option<Template>,
    pub connect: Option<Template>,
    #[serde(flatten)]
    pub after: After,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SyntheticBody {
    Text(Template),
    /// The Debug Sampler's: `JMeterVariables:` then each variable `name=value` in JMeter's
    /// alphanumeric order, and `JMeterProperties:` with the plan's properties (already written
    /// out, in that order), each section followed by an empty line.
    Debug {
        variables: bool,
        /// Not in the resolved plan: `-J` values may be secrets.
        #[serde(skip)]
        properties: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Elapsed {
    /// This many ms (a template; not a whole number: 0); the sampler waits them when `wait`,
    /// else the sample only says it took them (the Dummy Sampler's "simulate waiting" off).
    Fixed { ms: Template, wait: bool },
    /// JavaTest/SleepTest: sleeps `time + now_ms % mask` ms when both are above 0, else `time`
    /// (Java's `Long.decode` reads them: `0x` hex, `#` hex, a leading `0` octal; a value it
    /// cannot read is the default).
    Sleep { time: Template, mask: Template, default_time: i64, default_mask: i64 },
}

/// Java's `Long.decode`: an optional sign, then `0x`/`0X`/`#` hex, a leading `0` octal, or decimal.
pub(crate) fn java_long_decode(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(h) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
        (16, h)
    } else if let Some(h) = rest.strip_prefix('#') {
        (16, h)
    } else if rest.len() > 1 && rest.starts_with('0') {
        (8, &rest[1..])
    } else {
        (10, rest)
    };
    if digits.is_empty() || digits.starts_with(['-', '+']) {
        return None;
    }
    let v = i128::from_str_radix(digits, radix).ok()?;
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

/// JMeter's `AlphaNumericKeyComparator` on two keys: each is read as runs of (non-digits,
/// digits); the non-digits compare as text, then the digits as numbers (leading zeroes aside);
/// a run without digits comes first.
pub(crate) fn alphanumeric_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    fn chunks(s: &str) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            let alpha = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
            let num = rest[alpha..].find(|c: char| !c.is_ascii_digit()).map_or(rest.len(), |i| alpha + i);
            out.push((&rest[..alpha], &rest[alpha..num]));
            rest = &rest[num..];
        }
        out
    }
    let (x, y) = (chunks(a), chunks(b));
    for ((xa, xn), (ya, yn)) in x.iter().zip(&y) {
        let o = xa.cmp(ya);
        if o != Ordering::Equal {
            return o;
        }
        if xn.is_empty() || yn.is_empty() {
            return (!xn.is_empty()).cmp(&!yn.is_empty());
        }
        let (xt, yt) = (xn.trim_start_matches('0'), yn.trim_start_matches('0'));
        let o = xt.len().cmp(&yt.len()).then_with(|| xt.cmp(yt));
        if o != Ordering::Equal {
            return o;
        }
    }
    x.len().cmp(&y.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_decode_reads_as_java() {
        assert_eq!(java_long_decode("0x03"), Some(3));
        assert_eq!(java_long_decode("0xFF"), Some(255));
        assert_eq!(java_long_decode("#10"), Some(16));
        assert_eq!(java_long_decode("010"), Some(8));
        assert_eq!(java_long_decode("0"), Some(0));
        assert_eq!(java_long_decode("-5"), Some(-5));
        assert_eq!(java_long_decode("100"), Some(100));
        assert_eq!(java_long_decode(""), None);
        assert_eq!(java_long_decode("0x"), None);
        assert_eq!(java_long_decode("1.5"), None);
        assert_eq!(java_long_decode("200 (or any other number)"), None);
    }

    #[test]
    fn keys_sort_with_numbers_as_numbers() {
        let mut v = vec!["a10", "a2", "B", "a", "a_1"];
        v.sort_by(|a, b| alphanumeric_cmp(a, b));
        assert_eq!(v, ["B", "a", "a2", "a10", "a_1"]);
    }
}
