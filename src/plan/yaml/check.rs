//! `extract:` and `check:` of a request: what a response sets, and what it must satisfy.

use super::node::Node;
use super::*;
use crate::plan::sampler::http::JsonPathExpr;

const EXTRACT_KEYS: &[&str] =
    &["into", "json", "regex", "header", "cookie", "template", "from", "match", "default", "required"];
const CHECK_KEYS: &[&str] = &[
    "status",
    "body_contains",
    "body_not_contains",
    "body_matches",
    "body_equals",
    "header_contains",
    "json",
    "equals",
    "max_duration",
    "message",
];

impl Cx {
    fn field(&mut self, v: Option<&Node>, el: &str) -> Result<Field, Error> {
        match v {
            None => Ok(Field::Body),
            Some(v) => self.parse(v, el, "body, headers, url or status", |s| match s {
                "body" => Some(Field::Body),
                "headers" => Some(Field::Headers),
                "url" => Some(Field::Url),
                "status" => Some(Field::Status),
                _ => None,
            }),
        }
    }

    fn regex(&mut self, v: &Node, el: &str) -> Result<regex::Regex, Error> {
        let src = self.text(v, el)?;
        regex::Regex::new(&src).map_err(|e| self.invalid(v, el, format!("invalid regular expression: {e}")))
    }

    fn json_path(&mut self, v: &Node, el: &str) -> Result<JsonPathExpr, Error> {
        let src = self.text(v, el)?;
        JsonPathExpr::rfc(&src).map_err(|e| self.invalid(v, el, format!("invalid JSONPath `{src}`: {e}")))
    }

    pub(super) fn extractor(&mut self, n: &Node, el: &str) -> Result<Extractor, Error> {
        let x = self.fields(n, el, "ExtractDoc", EXTRACT_KEYS)?;
        let into_node = self.required(&x, "into", el)?;
        let into = self.string(into_node, &format!("{el}.into"))?;
        check_var_name(&into).map_err(|m| self.invalid(into_node, &format!("{el}.into"), m))?;
        if ["json", "regex", "header", "cookie"].iter().filter(|k| x.has(k)).count() != 1 {
            return Err(self.invalid(n, el, "an extractor has exactly one of `json`, `regex`, `header`, `cookie`"));
        }
        if !x.has("regex") && (x.has("template") || x.has("from")) {
            return Err(self.invalid(n, el, "`template` and `from` belong to a `regex` extractor"));
        }
        let (source, what) = if let Some(v) = x.get("json") {
            let p = self.json_path(v, &format!("{el}.json"))?;
            let what = p.src.clone();
            (ExtractSource::Json(p), what)
        } else if let Some(v) = x.get("regex") {
            let regex = self.regex(v, &format!("{el}.regex"))?;
            let template = match x.get("template") {
                Some(t) => self.text(t, &format!("{el}.template"))?,
                None if regex.captures_len() > 1 => "$1$".into(),
                None => "$0$".into(),
            };
            if let Some(g) = template_groups(&template).into_iter().find(|g| *g >= regex.captures_len()) {
                return Err(self.invalid(
                    x.get("template").unwrap_or(v),
                    &format!("{el}.template"),
                    format!("`${g}$` names a group the regex does not have"),
                ));
            }
            let from = self.field(x.get("from"), &format!("{el}.from"))?;
            let what = format!("/{}/", regex.as_str());
            (ExtractSource::Regex { regex: regex.into(), template, from }, what)
        } else if let Some(v) = x.get("header") {
            let h = self.text(v, &format!("{el}.header"))?;
            (ExtractSource::Header(h.clone()), format!("header {h}"))
        } else {
            let c = self.text(x.get("cookie").expect("one source is given"), &format!("{el}.cookie"))?;
            (ExtractSource::Cookie(c.clone()), format!("cookie {c}"))
        };
        let match_no = match x.get("match") {
            None => 1,
            Some(v) => {
                self.parse(v, &format!("{el}.match"), "a match number (1 = first, 0 = random)", |s| match s {
                    "random" => Some(0),
                    s => s.parse::<u32>().ok(),
                })?
            }
        };
        let default = x.get("default").map(|v| self.tmpl(v, &format!("{el}.default"))).transpose()?;
        let required = if self.opt_bool(x.get("required"), &format!("{el}.required"), false)? {
            Some(self.b.check(format!("extract {into}: nothing found by {what}")))
        } else {
            None
        };
        let var = self.b.vars().assign(&into);
        Ok(Extractor {
            var,
            into,
            source,
            match_no,
            default,
            required,
            all: None,
            empty_default: Default::default(),
            groups: None,
        })
    }

    pub(super) fn check(&mut self, n: &Node, el: &str) -> Result<Check, Error> {
        let c = self.fields(n, el, "CheckDoc", CHECK_KEYS)?;
        let message = c.get("message").map(|m| self.string(m, &format!("{el}.message"))).transpose()?;
        // Every key but `equals` and `message` is a test.
        if CHECK_KEYS.iter().filter(|k| !matches!(**k, "equals" | "message") && c.has(k)).count() != 1 {
            return Err(self.invalid(
                n,
                el,
                "a check has exactly one of `status`, `body_contains`, `body_not_contains`, `body_matches`, `body_equals`, `header_contains`, `json`, `max_duration`",
            ));
        }
        if c.has("equals") && !c.has("json") {
            return Err(self.invalid(c.key("equals").unwrap_or(n), el, "`equals` belongs to a `json` check"));
        }
        let quote = |t: &Template| format!("{:?}", t.source());
        let text_el = |k: &str| format!("{el}.{k}");
        let (test, default_message) = if let Some(v) = c.get("status") {
            let ranges = self.status_ranges(v, &text_el("status"))?;
            let text: Vec<String> =
                ranges.iter().map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
            (CheckTest::Status(ranges), format!("status is {}", text.join(" or ")))
        } else if let Some(v) = c.get("body_contains") {
            let text = self.tmpl(v, &text_el("body_contains"))?;
            let m = format!("body contains {}", quote(&text));
            (CheckTest::Contains { field: Field::Body, text, negate: false }, m)
        } else if let Some(v) = c.get("body_not_contains") {
            let text = self.tmpl(v, &text_el("body_not_contains"))?;
            let m = format!("body does not contain {}", quote(&text));
            (CheckTest::Contains { field: Field::Body, text, negate: true }, m)
        } else if let Some(v) = c.get("body_matches") {
            let regex = self.regex(v, &text_el("body_matches"))?;
            let m = format!("body matches /{}/", regex.as_str());
            (CheckTest::Matches { field: Field::Body, regex: regex.into(), negate: false }, m)
        } else if let Some(v) = c.get("body_equals") {
            let text = self.tmpl(v, &text_el("body_equals"))?;
            let m = format!("body equals {}", quote(&text));
            (CheckTest::Equals { field: Field::Body, text, negate: false }, m)
        } else if let Some(v) = c.get("header_contains") {
            let text = self.tmpl(v, &text_el("header_contains"))?;
            let m = format!("headers contain {}", quote(&text));
            (CheckTest::Contains { field: Field::Headers, text, negate: false }, m)
        } else if let Some(v) = c.get("json") {
            let path = self.json_path(v, &text_el("json"))?;
            let equals = c.get("equals").map(|e| self.tmpl(e, &text_el("equals"))).transpose()?;
            let m = match &equals {
                Some(e) => format!("{} equals {}", path.src, quote(e)),
                None => format!("{} exists", path.src),
            };
            (CheckTest::Json { path, equals, negate: false }, m)
        } else {
            let d = self.duration(c.get("max_duration").expect("one test is given"), &text_el("max_duration"))?;
            (CheckTest::MaxDuration(d), format!("duration at most {}", humantime::format_duration(d)))
        };
        let id = self.b.check(message.unwrap_or(default_message));
        Ok(Check { id, test })
    }

    /// `200`, `[200, 201]`, `"200-299"`, `"2xx"`.
    fn status_ranges(&mut self, v: &Node, el: &str) -> Result<Vec<(u16, u16)>, Error> {
        let items: Vec<&Node> = match &v.value {
            Value::Seq(s) => s.iter().collect(),
            _ => vec![v],
        };
        let mut out = Vec::new();
        for item in items {
            let r = self.parse(item, el, "a status (200), a range (200-299) or a class (2xx)", |s| {
                let code = |x: &str| x.trim().parse::<u16>().ok().filter(|c| (100..=999).contains(c));
                if let Some(class) = s.strip_suffix("xx").or_else(|| s.strip_suffix("XX")) {
                    let c: u16 = class.parse().ok().filter(|c| (1..=9).contains(c))?;
                    return Some((c * 100, c * 100 + 99));
                }
                match s.split_once('-') {
                    Some((a, b)) => Some((code(a)?, code(b)?)).filter(|(a, b)| a <= b),
                    None => code(s).map(|c| (c, c)),
                }
            })?;
            out.push(r);
        }
        if out.is_empty() {
            return Err(self.invalid(v, el, "the list of statuses is empty"));
        }
        Ok(out)
    }
}

/// The group numbers a JMeter template (`$1$-$2$`) refers to.
fn template_groups(t: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut parts = t.split('$');
    parts.next();
    // Between an odd and the next `$` is a group number when it is all digits.
    for (i, p) in parts.enumerate() {
        if i % 2 == 0 {
            if let Ok(n) = p.parse() {
                out.push(n);
            }
        }
    }
    out
}

/// A name a variable cannot have.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{0}` is not a variable name (letters, digits, `_`, `.`, `-`; not starting with a digit)")]
pub(super) struct BadVarName(String);

pub(super) fn check_var_name(name: &str) -> Result<(), BadVarName> {
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(BadVarName(name.to_string()))
    }
}
