//! JSONPath: RFC 9535 (what YAML plans write), and the Jayway dialect JMeter's JSON Extractor
//! and JSON Assertion read, translated to RFC 9535 at load time: a path without `$` is read
//! from the root (`name` is `$.name`), `.[` is `[`, a member name RFC 9535 cannot write after a
//! dot (`$.a-b`) is written in brackets, and a function at the end (`.length()`, `.sum()`, ...)
//! is applied to what the path finds, as Jayway does.

use serde_json::Value;
use std::borrow::Cow;

/// A compiled JSONPath with its source text.
#[derive(Debug, Clone)]
pub struct JsonPathExpr {
    /// The path as the plan wrote it.
    pub src: String,
    /// The path in RFC 9535's form, compiled.
    pub(crate) path: serde_json_path::JsonPath,
    /// Jayway's function at the end of the path, if any.
    pub func: Option<JsonFunc>,
    /// The function applies to all the values found as one array (a path with a deep scan:
    /// Jayway applies a function after `..` to the scan's results), not to each value.
    pub(crate) over_all: bool,
    /// The path names one place (no `..`, wildcard, filter, union or slice): Jayway reads
    /// its value itself, not a list of values.
    pub definite: bool,
}

/// Jayway's functions at the end of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFunc {
    /// `length()`, `size()`: how many items in an array or members in an object.
    Length,
    /// `min()`: the smallest number found.
    Min,
    /// `max()`: the largest number found.
    Max,
    /// `avg()`: the mean of the numbers found.
    Avg,
    /// `sum()`: the sum of the numbers found.
    Sum,
    /// `stddev()`: the population standard deviation of the numbers found.
    Stddev,
    /// `first()`: the first item of an array.
    First,
    /// `last()`: the last item of an array.
    Last,
}

impl JsonPathExpr {
    /// An RFC 9535 path.
    pub fn rfc(src: &str) -> Result<JsonPathExpr, String> {
        let path = serde_json_path::JsonPath::parse(src).map_err(|e| e.to_string())?;
        Ok(JsonPathExpr { src: src.to_string(), path, func: None, over_all: false, definite: definite(src) })
    }

    /// A path in Jayway's dialect (JMeter's), or why it is not one.
    pub fn jayway(src: &str) -> Result<JsonPathExpr, String> {
        let s = src.trim();
        if s.is_empty() {
            return Err("the path is empty".into());
        }
        let (base, func) = split_function(s);
        let rfc = translate(base)?;
        let path = serde_json_path::JsonPath::parse(&rfc).map_err(|e| e.to_string())?;
        let over_all = func.is_some() && base.contains("..");
        Ok(JsonPathExpr { src: src.to_string(), path, func, over_all, definite: definite(&rfc) })
    }

    /// The values the path finds in `v`, after its function. A function that cannot apply (a
    /// sum over no numbers) finds nothing.
    pub fn values<'v>(&self, v: &'v Value) -> Vec<Cow<'v, Value>> {
        let found = self.path.query(v).all();
        let Some(func) = self.func else {
            return found.into_iter().map(Cow::Borrowed).collect();
        };
        if self.over_all {
            let all = Value::Array(found.into_iter().cloned().collect());
            return apply(func, &all).map(Cow::Owned).into_iter().collect();
        }
        found.into_iter().filter_map(|v| apply(func, v)).map(Cow::Owned).collect()
    }
}

/// Jayway's `isPathDefinite`: no deep scan, wildcard, filter, union or slice (outside quotes).
fn definite(path: &str) -> bool {
    let mut quote = None;
    let mut prev = ' ';
    for c in path.chars() {
        match quote {
            Some(q) if c == q && prev != '\\' => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '*' | '?' | ':' | ',' => return false,
                '.' if prev == '.' => return false,
                _ => {}
            },
        }
        prev = c;
    }
    true
}

impl JsonPathExpr {
    /// The value Jayway's `JsonPath.read` gives: a definite path's value (`None` when it is
    /// missing), else the array of all the values found.
    pub fn read(&self, v: &Value) -> Option<Value> {
        let found = self.values(v);
        if self.definite || self.over_all {
            found.into_iter().next().map(Cow::into_owned)
        } else {
            Some(Value::Array(found.into_iter().map(Cow::into_owned).collect()))
        }
    }
}

/// The path without a known function at its end, and that function.
fn split_function(s: &str) -> (&str, Option<JsonFunc>) {
    let Some(open) = s.strip_suffix(')').and_then(|t| t.trim_end().strip_suffix('(')) else { return (s, None) };
    let Some(dot) = open.rfind('.') else { return (s, None) };
    let func = match &open[dot + 1..] {
        "length" | "size" => JsonFunc::Length,
        "min" => JsonFunc::Min,
        "max" => JsonFunc::Max,
        "avg" => JsonFunc::Avg,
        "sum" => JsonFunc::Sum,
        "stddev" => JsonFunc::Stddev,
        "first" => JsonFunc::First,
        "last" => JsonFunc::Last,
        _ => return (s, None),
    };
    let base = &open[..dot];
    // `$..a.length()`: the dot before the function belongs to no segment.
    (if base.is_empty() { "$" } else { base }, Some(func))
}

/// Jayway's function applied to one value; `None` where Jayway gives null or fails.
fn apply(func: JsonFunc, v: &Value) -> Option<Value> {
    let nums =
        || -> Vec<f64> { v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default() };
    let num = |x: f64| serde_json::Number::from_f64(x).map(Value::Number);
    match func {
        JsonFunc::Length => match v {
            Value::Array(a) => Some(a.len().into()),
            Value::Object(o) => Some(o.len().into()),
            _ => None,
        },
        JsonFunc::First => v.as_array()?.first().cloned(),
        JsonFunc::Last => v.as_array()?.last().cloned(),
        agg => {
            let n = nums();
            if n.is_empty() {
                return None;
            }
            let sum: f64 = n.iter().sum();
            let avg = sum / n.len() as f64;
            num(match agg {
                JsonFunc::Min => n.iter().copied().fold(f64::INFINITY, f64::min),
                JsonFunc::Max => n.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                JsonFunc::Sum => sum,
                JsonFunc::Avg => avg,
                _ => (n.iter().map(|x| (x - avg) * (x - avg)).sum::<f64>() / n.len() as f64).sqrt(),
            })
        }
    }
}

/// A member name RFC 9535 takes after a dot.
fn shorthand(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || !c.is_ascii())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii())
}

/// A Jayway path written as RFC 9535.
fn translate(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len() + 4);
    let rest = match s.strip_prefix('$') {
        Some(r) => {
            out.push('$');
            r
        }
        // Jayway reads a path that does not start at the root from it.
        None if s.starts_with('@') => return Err("a path cannot start at `@` outside a filter".into()),
        None if s.starts_with('[') => {
            out.push('$');
            s
        }
        None => {
            out.push('$');
            return translate_segments(&format!(".{s}"), out);
        }
    };
    translate_segments(rest, out)
}

fn translate_segments(s: &str, mut out: String) -> Result<String, String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'[' => {
                let end = bracket_end(s, i).ok_or_else(|| format!("`[` at {} is not closed", i))?;
                out.push_str(&s[i..=end]);
                i = end + 1;
            }
            b'.' => {
                let deep = b.get(i + 1) == Some(&b'.');
                i += if deep { 2 } else { 1 };
                if deep {
                    out.push_str("..");
                }
                match b.get(i) {
                    // `.[0]` is `[0]`; `..[0]` keeps its dots.
                    Some(b'[') => {}
                    Some(b'*') => {
                        out.push_str(if deep { "*" } else { ".*" });
                        i += 1;
                    }
                    Some(_) => {
                        let len = s[i..].find(['.', '[']).unwrap_or(s.len() - i);
                        let name = &s[i..i + len];
                        if shorthand(name) {
                            if !deep {
                                out.push('.');
                            }
                            out.push_str(name);
                        } else {
                            out.push_str(&format!("['{}']", name.replace('\\', "\\\\").replace('\'', "\\'")));
                        }
                        i += len;
                    }
                    None => return Err("the path ends with a dot".into()),
                }
            }
            _ => return Err(format!("unexpected `{}` at {}", &s[i..].chars().next().unwrap_or(' '), i)),
        }
    }
    Ok(out)
}

/// The index of the `]` that closes the `[` at `start` (quotes and nested brackets skipped).
fn bracket_end(s: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s[start..].char_indices() {
        if let Some(q) = quote {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                c if c == q => quote = None,
                _ => {}
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(start + i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(path: &str, v: &Value) -> Vec<Value> {
        JsonPathExpr::jayway(path).unwrap().values(v).into_iter().map(Cow::into_owned).collect()
    }

    #[test]
    fn jayway_forms_rfc_9535_refuses() {
        let doc = json!({"Json_p": 1, "a": [{"b": "x"}, {"b": "y"}], "my-key": {"c": 2}, "e1": "v"});
        assert_eq!(found("Json_p", &doc), vec![json!(1)]);
        assert_eq!(found("e1", &doc), vec![json!("v")]);
        assert_eq!(found("$.a.[0].b", &doc), vec![json!("x")]);
        assert_eq!(found("a[1].b", &doc), vec![json!("y")]);
        assert_eq!(found("$.my-key.c", &doc), vec![json!(2)]);
        assert_eq!(found("$..b", &doc), vec![json!("x"), json!("y")]);
        assert_eq!(found("$['a'][0]['b']", &doc), vec![json!("x")]);
        assert_eq!(found("$.a[?(@.b == 'y')].b", &doc), vec![json!("y")]);
        assert_eq!(found("$.a[*].b", &doc), vec![json!("x"), json!("y")]);
        assert_eq!(found("$.a.*.b", &doc), vec![json!("x"), json!("y")]);
        assert_eq!(found("$..[0].b", &doc), vec![json!("x")]);
    }

    #[test]
    fn functions_at_the_end() {
        let doc = json!({"a": [1, 2, 3, 6], "o": {"x": 1, "y": 2}, "n": [{"p": [1, 2]}, {"p": [3]}]});
        assert_eq!(found("$.a.length()", &doc), vec![json!(4)]);
        assert_eq!(found("$.o.size()", &doc), vec![json!(2)]);
        assert_eq!(found("$.a.sum()", &doc), vec![json!(12.0)]);
        assert_eq!(found("$.a.avg()", &doc), vec![json!(3.0)]);
        assert_eq!(found("$.a.min()", &doc), vec![json!(1.0)]);
        assert_eq!(found("$.a.max()", &doc), vec![json!(6.0)]);
        assert_eq!(found("$.a.first()", &doc), vec![json!(1)]);
        assert_eq!(found("$.a.last()", &doc), vec![json!(6)]);
        assert_eq!(found("$.n[*].p.length()", &doc), vec![json!(2), json!(1)]);
        // After a deep scan the function takes all that the scan found.
        assert_eq!(found("$..p.length()", &doc), vec![json!(2)]);
        assert!(found("$.o.sum()", &doc).is_empty(), "no numbers: Jayway fails, JMeter sets the default");
    }

    #[test]
    fn definite_paths_read_one_value() {
        let doc = json!({"a": [1, 2], "b": {"c": "x"}});
        let read = |p: &str| JsonPathExpr::jayway(p).unwrap().read(&doc);
        assert_eq!(read("$.b.c"), Some(json!("x")));
        assert_eq!(read("$.a"), Some(json!([1, 2])));
        assert_eq!(read("$.zz"), None);
        assert_eq!(read("$.a[*]"), Some(json!([1, 2])));
        assert_eq!(read("$..c"), Some(json!(["x"])));
        assert_eq!(read("$..zz"), Some(json!([])));
        assert_eq!(read("$['b']['c']"), Some(json!("x")));
    }

    #[test]
    fn not_paths() {
        assert!(JsonPathExpr::jayway("").is_err());
        assert!(JsonPathExpr::jayway("$.a[").is_err());
        assert!(JsonPathExpr::jayway("$.").is_err());
        assert!(JsonPathExpr::rfc("name").is_err(), "YAML plans keep RFC 9535");
    }
}
