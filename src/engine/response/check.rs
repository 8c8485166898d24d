//! The checks (JMeter's assertions): whether each holds on a response, and the id a failed one
//! reports.

use super::extract::{empty_var, json_text, json_values, subject};
use super::{Fields, Response};
use crate::engine::session::UserVars;
use crate::plan::markup::XPathResult;
use crate::plan::sampler::http::{JmesPath, JsonPathExpr, Pattern};
use crate::plan::{CheckTest, Field};
use std::time::Duration;

/// `JMESPathAssertion.isEquals`: the value's text equals the expected text, or equals it read
/// as JSON (`1` is not `1.0`, as Jackson's nodes); with `regex`, ORO's whole match. `Err`: an
/// expected value that is not JSON, or a pattern that does not compile (JMeter throws).
pub(super) fn jmespath_equals(found: &jmespath::Variable, expected: &str, regex: bool) -> Result<bool, ()> {
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
pub(super) fn holds(
    test: &CheckTest,
    f: &mut Fields<'_, '_>,
    u: &mut UserVars,
    elapsed: Duration,
    received: u64,
) -> bool {
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
pub(super) fn xml_error(text: &str) -> Option<roxmltree::Error> {
    if text.is_empty() {
        return Some(roxmltree::Error::UnexpectedEndOfStream);
    }
    roxmltree::Document::parse(text).err()
}

/// The message a failed check counts under: its own, or for the XML Assertion the parser's
/// where it has one of its own.
pub(super) fn failure_id(c: &crate::plan::Check, f: &mut Fields<'_, '_>) -> u16 {
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
pub(super) fn xpath_holds(
    path: &crate::plan::sampler::http::XPathExpr,
    text: &str,
    negate: bool,
    xpath2: bool,
) -> bool {
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
