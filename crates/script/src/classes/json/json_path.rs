//! Jayway's `JsonPath` over parsed JSON, and json-smart's printing of its arrays.

use super::*;

// ---- JsonPath ----

/// json-smart's `toJSONString` (its default style, `NO_COMPRESS`): what a `JSONArray`'s
/// `toString()` gives: strings and keys quoted, numbers, booleans and null bare, no spaces.
pub(crate) fn json_smart_text(v: &Value) -> String {
    fn quote(s: &str, out: &mut String) {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2000}'..='\u{20ff}' => {
                    out.push_str(&format!("\\u{:04X}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(_) | Value::Int(_) | Value::Long(_) | Value::Decimal(_) => out.push_str(&v.to_string()),
            // A Double that is not finite is `null` in json-smart.
            Value::Double(d) if !d.is_finite() => out.push_str("null"),
            Value::Double(_) => out.push_str(&v.to_string()),
            Value::List(l) => {
                // A JSONArray added into itself would lock its mutex again (and never end):
                // stopped here, the script gets `StackOverflowError`, as json-smart's recursion.
                let Some(_showing) = crate::budget::show_nested(std::sync::Arc::as_ptr(l) as usize) else {
                    return;
                };
                out.push('[');
                for (i, x) in lock(&l.items).iter().enumerate() {
                    if !crate::budget::show(crate::value::shown_size(x)) {
                        break;
                    }
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            Value::Map(m) => {
                let Some(_showing) = crate::budget::show_nested(std::sync::Arc::as_ptr(m) as usize) else {
                    return;
                };
                out.push('{');
                for (i, (k, x)) in lock(&m.entries).iter().enumerate() {
                    if !crate::budget::show(crate::value::shown_size(x)) {
                        break;
                    }
                    if i > 0 {
                        out.push(',');
                    }
                    quote(&k.0.to_string(), out);
                    out.push(':');
                    write(x, out);
                }
                out.push('}');
            }
            other => quote(&other.to_string(), out),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// The arrays of a document Jayway reads with json-smart as `JSONArray`s (its maps stay
/// `LinkedHashMap`s, which print as Groovy's maps).
pub(super) fn smart_arrays(v: Value) -> Value {
    match v {
        Value::List(l) if l.kind == ListKind::List => {
            Value::json_array(lock(&l.items).iter().cloned().map(smart_arrays).collect())
        }
        Value::Map(m) => {
            let entries = lock(&m.entries).iter().map(|(k, x)| (k.clone(), smart_arrays(x.clone()))).collect();
            Value::map(entries)
        }
        other => other,
    }
}

/// Script values to serde's, for the plan's JSONPath engine to query.
pub(super) fn to_serde(v: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(_) | Value::Long(_) => J::from(v.as_i64().unwrap_or(0)),
        Value::Double(_) | Value::Decimal(_) => {
            serde_json::Number::from_f64(v.as_f64().unwrap_or(0.0)).map(J::Number).unwrap_or(J::Null)
        }
        Value::List(l) => J::Array(lock(&l.items).iter().map(to_serde).collect()),
        Value::Map(m) => J::Object(lock(&m.entries).iter().map(|(k, v)| (k.0.to_string(), to_serde(v))).collect()),
        Value::Object(o) => match o.as_any().downcast_ref::<OrgJson>() {
            Some(j) => to_serde(&j.value),
            None => J::String(o.to_string()),
        },
        other => J::String(other.to_string()),
    }
}

pub(super) fn from_serde(v: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => super::super::int_value(i),
            None => Value::Double(n.as_f64().unwrap_or(0.0)),
        },
        J::String(s) => Value::str(s.as_str()),
        J::Array(a) => Value::list(a.iter().map(from_serde).collect()),
        J::Object(o) => Value::map(o.iter().map(|(k, v)| (Key(Value::str(k.as_str())), from_serde(v))).collect()),
    }
}

/// The document `JsonPath.read`/`parse` reads: JSON text parsed as Jayway's json-smart parses
/// it (`Integer`/`Long`, `Double`; objects in document order), or a value already parsed.
pub(super) fn json_doc(v: &Value) -> Result<Value, Thrown> {
    match v {
        Value::Str(s) => parse(s, Numbers::Java)
            .map(smart_arrays)
            .map_err(|e| Thrown::new("com.jayway.jsonpath.InvalidJsonException", e)),
        Value::Null => Err(illegal_arg("json can not be null")),
        Value::Object(o) => match o.as_any().downcast_ref::<JsonDocument>() {
            Some(d) => Ok(d.0.clone()),
            None => Ok(v.clone()),
        },
        other => Ok(other.clone()),
    }
}

/// The value at a place serde's query found, taken from the script's own document, so maps
/// keep their order and numbers their type; and where it is in document order (each step's
/// index), as serde's maps are sorted by key where Jayway's keep the document's order.
pub(super) fn at_location(doc: &Value, location: &serde_json_path::NormalizedPath<'_>) -> (Value, Vec<usize>) {
    use serde_json_path::PathElement as P;
    let mut cur = doc.clone();
    let mut order = Vec::with_capacity(location.len());
    for step in location.iter() {
        if let Some(j) = downcast::<OrgJson>(&cur) {
            cur = j.value.clone();
        }
        let next = match (&cur, step) {
            (Value::Map(m), P::Name(n)) => {
                let m = lock(&m.entries);
                m.get_full(&Key(Value::str(*n))).map(|(i, _, v)| (i, v.clone()))
            }
            (Value::List(l), P::Index(i)) => lock(&l.items).get(*i).map(|v| (*i, v.clone())),
            _ => None,
        };
        let (i, v) = next.unwrap_or((0, Value::Null));
        order.push(i);
        cur = v;
    }
    (cur, order)
}

/// How many steps follow a path's deep scan (0 without one), or `None` when the order serde
/// gives is kept: a union, or more than one scan.
pub(super) fn scan_tail(path: &str) -> Option<usize> {
    if path.contains(',') || path.matches("..").count() > 1 {
        return None;
    }
    let tail = path.split_once("..").map_or("", |(_, t)| t);
    let (mut steps, mut depth, mut quote, mut word) = (0, 0, None, false);
    for c in tail.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[') => {
                if depth == 0 {
                    steps += 1;
                    word = false;
                }
                depth += 1;
            }
            (None, ']') => depth -= 1,
            (None, '.') if depth == 0 => word = false,
            (None, _) if depth == 0 && !word => {
                steps += 1;
                word = true;
            }
            _ => {}
        }
    }
    Some(steps)
}

/// `JsonPath.compile(path)`: a path in Jayway's dialect, compiled by the plan's JSONPath engine
/// (the JSON Extractor's).
#[derive(Debug)]
pub(super) struct JsonPathCompiled(pub(super) crate::jsonpath::JsonPathExpr);

impl JsonPathCompiled {
    pub(super) fn of(path: &Value) -> Result<JsonPathCompiled, Thrown> {
        if let Some(c) = downcast::<JsonPathCompiled>(path) {
            return Ok(JsonPathCompiled(c.0.clone()));
        }
        let text = match path {
            Value::Null => return Err(illegal_arg("path can not be null")),
            v => v.to_string(),
        };
        crate::jsonpath::JsonPathExpr::jayway(&text)
            .map(JsonPathCompiled)
            .map_err(|e| Thrown::new("com.jayway.jsonpath.InvalidPathException", format!("{text}: {e}")))
    }

    /// Jayway's `read`: a definite path gives its value or throws `PathNotFoundException`;
    /// any other (`..`, `*`, a filter, a union, a slice) the list of what it finds, maybe empty.
    pub(super) fn read(&self, doc: &Value) -> Result<Value, Thrown> {
        let p = &self.0;
        let json = to_serde(doc);
        let found: Vec<Value> = if p.func.is_some() {
            p.values(&json).iter().map(|v| smart_arrays(from_serde(v))).collect()
        } else {
            let mut found: Vec<(Value, Vec<usize>)> =
                p.path.query_located(&json).iter().map(|n| at_location(doc, n.location())).collect();
            // Serde's maps are sorted by key; Jayway's keep the document's order. A union
            // (`$['b','a']`) lists in its own order; a wildcard or filter in the document's; a
            // deep scan (`$..id`) visits each node (in document order, before its descendants)
            // and lists what the steps after the scan select there.
            if let Some(tail) = scan_tail(&p.src) {
                found.sort_by(|a, b| {
                    let (pa, pb) = (a.1.len().saturating_sub(tail), b.1.len().saturating_sub(tail));
                    a.1[..pa].cmp(&b.1[..pb]).then_with(|| a.1[pa..].cmp(&b.1[pb..]))
                });
            }
            found.into_iter().map(|(v, _)| v).collect()
        };
        if p.definite || p.over_all {
            found.into_iter().next().ok_or_else(|| {
                Thrown::new("com.jayway.jsonpath.PathNotFoundException", format!("No results for path: {}", p.src))
            })
        } else {
            // Jayway collects what an indefinite path finds in its provider's array.
            Ok(Value::json_array(found))
        }
    }
}

impl Native for JsonPathCompiled {
    native_base!("com.jayway.jsonpath.JsonPath");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("read", 1) => self.read(&json_doc(&args[0])?),
            ("getPath", 0) => Ok(Value::str(self.0.src.as_str())),
            ("isDefinite", 0) => Ok(Value::Bool(self.0.definite)),
            _ => Err(no_method(self.class_name(), method)),
        }
    }
    fn to_string(&self) -> String {
        self.0.src.clone()
    }
}

/// `JsonPath.parse(json)`: Jayway's `DocumentContext`, a parsed document to read paths from.
#[derive(Debug)]
pub(super) struct JsonDocument(pub(super) Value);

impl Native for JsonDocument {
    native_base!("com.jayway.jsonpath.DocumentContext");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            // `read(path, Class)` converts with Jayway's mapping provider; the value as found
            // is what the common target types (`String`, `Map`, `List`) already hold.
            ("read", 1 | 2) => JsonPathCompiled::of(&args[0])?.read(&self.0),
            ("json", 0) => Ok(self.0.clone()),
            ("jsonString", 0) => Ok(Value::str(to_json(&self.0, Style::PLAIN)?)),
            _ => Err(no_method(self.class_name(), method)),
        }
    }
}
