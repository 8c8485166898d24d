//! The YAML document as a tree whose every node, mapping keys included, knows its line and
//! column. Built from `saphyr_parser`'s events; anchors and aliases are resolved, merge keys
//! (`<<: *base`) are applied, duplicate keys are refused, and plain scalars are typed as the
//! plan reader always typed them (YAML 1.2's core schema: `010` and `yes` stay text).

use saphyr_parser::{Event, Parser, ScalarStyle, Span, SpannedEventReceiver, Tag};

/// Where a node starts: line and column, both from 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    fn of(span: &Span) -> Pos {
        Pos { line: span.start.line(), column: span.start.col() + 1 }
    }
}

/// A number as written: kept apart so that its text is the text the user expects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Number {
    PosInt(u64),
    NegInt(i64),
    Float(f64),
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Number::PosInt(n) => write!(f, "{n}"),
            Number::NegInt(n) => write!(f, "{n}"),
            Number::Float(x) if x.is_nan() => f.write_str(".nan"),
            Number::Float(x) if x.is_infinite() => f.write_str(if x < 0.0 { "-.inf" } else { ".inf" }),
            // The shortest text that reads back as the same number (`1.5`, `100.0`, `1e20`),
            // as serde_yaml wrote it before this reader kept positions.
            Number::Float(x) => write!(f, "{}", serde_norway::Number::from(x)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    /// `~`, `null`, or nothing at all (`empty`: a key with no value, which reads as an empty
    /// list or map where one is expected).
    Null {
        empty: bool,
    },
    Bool(bool),
    Number(Number),
    String(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Node {
    pub pos: Pos,
    pub value: Value,
    /// A scalar's text as written (after quotes and escapes), for fields that take text as is.
    pub raw: Option<String>,
}

impl Node {
    pub(super) fn is_null(&self) -> bool {
        matches!(self.value, Value::Null { .. })
    }

    /// A scalar as text: numbers as numbers print, null as nothing; `None` for a list or map.
    pub(super) fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Null { .. } => Some(String::new()),
            Value::Seq(_) | Value::Map(_) => None,
        }
    }

    /// What serde would call this node in "invalid type: …" (the wording plans always had).
    pub(super) fn unexpected(&self) -> String {
        match &self.value {
            Value::Null { .. } => "unit value".into(),
            Value::Bool(b) => format!("boolean `{b}`"),
            Value::Number(Number::Float(x)) => format!("floating point `{}`", Number::Float(*x)),
            Value::Number(n) => format!("integer `{n}`"),
            Value::String(s) => format!("string {s:?}"),
            Value::Seq(_) => "sequence".into(),
            Value::Map(_) => "map".into(),
        }
    }

    /// The node as JSON (a `json:` body); numbers JSON cannot hold become null.
    pub(super) fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null { .. } => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Number(Number::PosInt(n)) => (*n).into(),
            Value::Number(Number::NegInt(n)) => (*n).into(),
            Value::Number(Number::Float(x)) => (*x).into(),
            Value::String(s) => s.clone().into(),
            Value::Seq(items) => items.iter().map(Node::to_json).collect(),
            Value::Map(entries) => entries
                .iter()
                .map(|(k, v)| (k.scalar_text().unwrap_or_default(), v.to_json()))
                .collect::<serde_json::Map<_, _>>()
                .into(),
        }
    }
}

/// Why a document could not be read, and where.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LoadError {
    pub pos: Option<Pos>,
    pub message: String,
}

/// The most nodes aliases may copy in all: a few nested anchors could otherwise expand into
/// billions of nodes.
const ALIAS_BUDGET: usize = 100_000;

/// The deepest nesting of lists and maps a plan may have.
const MAX_DEPTH: usize = 128;

/// Where a `${...}` stands unquoted inside a flow mapping or list (`{users: ${__P(users,60)}}`)
/// at or before line `upto` (1-based), and how to write it: YAML ends a plain scalar at the
/// first `{`, `}` or `,` of a flow, so the scanner's own message ("did not find expected ','
/// or '}'") never says what is wrong. The last such place is returned, with `key: "${...}"`.
pub(super) fn unquoted_expression_in_flow(src: &str, upto: usize) -> Option<(usize, String)> {
    let mut found = None;
    let mut depth = 0usize;
    for (n, line) in src.lines().enumerate().take(upto) {
        let b = line.as_bytes();
        let mut i = 0;
        // Where the current flow entry starts (a key's first byte), for the suggestion.
        let mut entry = 0;
        let mut quote: Option<u8> = None;
        while i < b.len() {
            let c = b[i];
            if let Some(q) = quote {
                if c == q {
                    quote = None;
                }
                i += 1;
                continue;
            }
            // Only asked at ASCII bytes (the arms below), so `i` is a char boundary: slicing
            // at every byte would panic inside a multibyte character (`name: café`).
            let opens_value = || {
                let before = line[..i].trim_end();
                before.is_empty() || before.ends_with(':') || before.ends_with('-')
            };
            match c {
                b'#' if i == 0 || b[i - 1] == b' ' => break,
                b'\'' | b'"' if depth > 0 || opens_value() => quote = Some(c),
                b'{' | b'[' if depth > 0 || opens_value() => {
                    depth += 1;
                    entry = i + 1;
                }
                b'}' | b']' if depth > 0 => depth -= 1,
                b',' if depth > 0 => entry = i + 1,
                b'$' if depth > 0 && b.get(i + 1) == Some(&b'{') => {
                    // The expression runs to its own closing brace (functions nest).
                    let mut level = 0usize;
                    let mut end = i + 1;
                    while end < b.len() {
                        match b[end] {
                            b'{' => level += 1,
                            b'}' => {
                                level -= 1;
                                if level == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        end += 1;
                    }
                    let expr = &line[i..(end + 1).min(line.len())];
                    let key = line[entry.min(i)..i].trim().trim_end_matches(':').trim();
                    let text = if key.is_empty() || key.contains(['{', '[']) {
                        format!("\"{expr}\"")
                    } else {
                        format!("{key}: \"{expr}\"")
                    };
                    found = Some((n + 1, text));
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
    }
    found
}

/// Reads one YAML document; an empty file reads as an empty map.
pub(super) fn load(src: &str) -> Result<Node, LoadError> {
    let mut b = TreeBuilder::default();
    // Events are pulled one at a time, not through `Parser::load`, which recurses once per
    // level of nesting: a plan nested ten thousand levels deep would overflow the stack. The
    // depth is capped as serde_yaml capped it.
    let mut parser = Parser::new_from_str(src);
    let mut depth = 0usize;
    while let Some(event) = parser.next_event() {
        let (ev, span) = event.map_err(|e| LoadError {
            pos: Some(Pos { line: e.marker().line(), column: e.marker().col() + 1 }),
            message: e.info().to_string(),
        })?;
        match ev {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(LoadError {
                        pos: Some(Pos::of(&span)),
                        message: format!("lists and maps nested more than {MAX_DEPTH} levels deep"),
                    });
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
        b.on_event(ev, span);
        if b.error.is_some() {
            break;
        }
    }
    if let Some(e) = b.error {
        return Err(e);
    }
    match b.docs.len() {
        0 => Ok(Node { pos: Pos { line: 1, column: 1 }, value: Value::Map(Vec::new()), raw: None }),
        1 => Ok(b.docs.pop().expect("one document")),
        _ => Err(LoadError {
            pos: None,
            message: "deserializing from YAML containing more than one document is not supported".into(),
        }),
    }
}

/// A list or map being read, with its anchor.
struct Open {
    node: Node,
    anchor: usize,
    /// A map's key waiting for its value.
    key: Option<Node>,
}

#[derive(Default)]
struct TreeBuilder {
    docs: Vec<Node>,
    stack: Vec<Open>,
    anchors: std::collections::HashMap<usize, Node>,
    copied: usize,
    error: Option<LoadError>,
}

impl<'input> SpannedEventReceiver<'input> for TreeBuilder {
    fn on_event(&mut self, ev: Event<'input>, span: Span) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.event(ev, span) {
            self.error = Some(e);
        }
    }
}

impl TreeBuilder {
    fn event(&mut self, ev: Event<'_>, span: Span) -> Result<(), LoadError> {
        let pos = Pos::of(&span);
        match ev {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) | Event::DocumentEnd => {
                Ok(())
            }
            Event::SequenceStart(anchor, _) => {
                self.stack.push(Open {
                    node: Node { pos, value: Value::Seq(Vec::new()), raw: None },
                    anchor,
                    key: None,
                });
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push(Open {
                    node: Node { pos, value: Value::Map(Vec::new()), raw: None },
                    anchor,
                    key: None,
                });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let open = self.stack.pop().expect("the parser balances starts and ends");
                let node = merge_keys(open.node)?;
                self.add(node, open.anchor)
            }
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar(&text, style, tag.as_deref());
                self.add(Node { pos, value, raw: Some(text.into_owned()) }, anchor)
            }
            Event::Alias(id) => {
                let Some(target) = self.anchors.get(&id) else {
                    return Err(LoadError { pos: Some(pos), message: "an alias to an unknown anchor".into() });
                };
                self.copied += count(target);
                if self.copied > ALIAS_BUDGET {
                    return Err(LoadError {
                        pos: Some(pos),
                        message: format!("aliases expand to more than {ALIAS_BUDGET} nodes"),
                    });
                }
                let mut node = target.clone();
                node.pos = pos;
                self.add(node, 0)
            }
        }
    }

    /// Puts a finished node into the list or map being read (or makes it the document).
    fn add(&mut self, node: Node, anchor: usize) -> Result<(), LoadError> {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        let Some(open) = self.stack.last_mut() else {
            self.docs.push(node);
            return Ok(());
        };
        match &mut open.node.value {
            Value::Seq(items) => items.push(node),
            Value::Map(entries) => match open.key.take() {
                None => open.key = Some(node),
                Some(key) => {
                    if let Some((first, _)) = entries.iter().find(|(k, _)| same_key(k, &key)) {
                        return Err(duplicate(first, &key));
                    }
                    entries.push((key, node));
                }
            },
            _ => unreachable!("only lists and maps are opened"),
        }
        Ok(())
    }
}

fn count(n: &Node) -> usize {
    1 + match &n.value {
        Value::Seq(items) => items.iter().map(count).sum(),
        Value::Map(entries) => entries.iter().map(|(k, v)| count(k) + count(v)).sum(),
        _ => 0,
    }
}

fn same_key(a: &Node, b: &Node) -> bool {
    match (a.scalar_text(), b.scalar_text()) {
        (Some(x), Some(y)) => x == y && a.value == b.value,
        _ => a.value == b.value,
    }
}

fn duplicate(first: &Node, again: &Node) -> LoadError {
    let name = again.scalar_text().unwrap_or_default();
    LoadError { pos: Some(again.pos), message: format!("duplicate key `{name}` (first at line {})", first.pos.line) }
}

/// Applies a map's merge keys: `<<: *base` (or a list of them) adds the entries of the maps
/// named that the map does not give itself; of several maps, the first that gives a key wins.
fn merge_keys(mut node: Node) -> Result<Node, LoadError> {
    let Value::Map(entries) = &mut node.value else { return Ok(node) };
    if !entries.iter().any(|(k, _)| is_merge_key(k)) {
        return Ok(node);
    }
    let mut own = Vec::new();
    let mut merged: Vec<(Node, Node)> = Vec::new();
    for (k, v) in std::mem::take(entries) {
        if !is_merge_key(&k) {
            own.push((k, v));
            continue;
        }
        let sources = match v.value {
            Value::Seq(items) => items,
            _ => vec![v],
        };
        for s in sources {
            let Value::Map(from) = s.value else {
                return Err(LoadError {
                    pos: Some(s.pos),
                    message: "a merge key (`<<`) takes a map or a list of maps".into(),
                });
            };
            for (mk, mv) in from {
                if !merged.iter().any(|(x, _)| same_key(x, &mk)) {
                    merged.push((mk, mv));
                }
            }
        }
    }
    merged.retain(|(mk, _)| !own.iter().any(|(k, _)| same_key(k, mk)));
    own.extend(merged);
    *entries = own;
    Ok(node)
}

fn is_merge_key(k: &Node) -> bool {
    k.value == Value::String("<<".into())
}

/// A scalar's value: quoted text is text; plain text is null, a boolean, a number or text as
/// YAML 1.2's core schema says (as serde_yaml read plans before).
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    if let Some(t) = tag.filter(|t| t.is_yaml_core_schema()) {
        match t.suffix.as_str() {
            "str" => return Value::String(text.into()),
            "null" => return Value::Null { empty: false },
            _ => {}
        }
    }
    if style != ScalarStyle::Plain {
        return Value::String(text.into());
    }
    match text {
        "" => return Value::Null { empty: true },
        "~" | "null" | "Null" | "NULL" => return Value::Null { empty: false },
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(n) = unsigned(text) {
        return Value::Number(Number::PosInt(n));
    }
    if let Some(n) = negative(text) {
        return Value::Number(Number::NegInt(n));
    }
    if let Some(x) = float(text).filter(|_| !digits_but_not_number(text)) {
        return Value::Number(Number::Float(x));
    }
    Value::String(text.into())
}

fn radix(s: &str) -> (&str, u32) {
    if let Some(r) = s.strip_prefix("0x") {
        (r, 16)
    } else if let Some(r) = s.strip_prefix("0o") {
        (r, 8)
    } else if let Some(r) = s.strip_prefix("0b") {
        (r, 2)
    } else {
        (s, 10)
    }
}

/// Leading zeros before digits make text, not a number (YAML 1.2).
fn digits_but_not_number(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    s.len() > 1 && s.starts_with('0') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

fn unsigned(s: &str) -> Option<u64> {
    let u = s.strip_prefix('+').unwrap_or(s);
    let (digits, r) = radix(u);
    if r != 10 {
        return if digits.starts_with(['+', '-']) { None } else { u64::from_str_radix(digits, r).ok() };
    }
    if u.starts_with(['+', '-']) || digits_but_not_number(s) {
        return None;
    }
    u.parse().ok()
}

fn negative(s: &str) -> Option<i64> {
    let rest = s.strip_prefix('-')?;
    let (digits, r) = radix(rest);
    if r != 10 {
        if digits.starts_with(['+', '-']) {
            return None;
        }
        return i64::from_str_radix(&format!("-{digits}"), r).ok();
    }
    if rest.starts_with(['+', '-']) || digits_but_not_number(s) {
        return None;
    }
    s.parse().ok()
}

fn float(s: &str) -> Option<f64> {
    let u = match s.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => return None,
        Some(u) => u,
        None => s,
    };
    match u {
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        _ => {}
    }
    match s {
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    u.parse::<f64>().ok().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(n: &Node) -> (usize, usize) {
        (n.pos.line, n.pos.column)
    }

    #[test]
    fn every_node_and_key_has_its_position() {
        let n = load("a: 1\nb:\n  - {c: x}\n").unwrap();
        let Value::Map(m) = &n.value else { panic!() };
        assert_eq!((at(&m[0].0), at(&m[0].1)), ((1, 1), (1, 4)));
        let Value::Seq(items) = &m[1].1.value else { panic!() };
        let Value::Map(inner) = &items[0].value else { panic!() };
        assert_eq!((at(&inner[0].0), at(&inner[0].1)), ((3, 6), (3, 9)));
    }

    #[test]
    fn scalars_are_typed_as_before() {
        let text = |s: &str| {
            let n = load(&format!("k: {s}")).unwrap();
            let Value::Map(m) = n.value else { panic!() };
            m[0].1.scalar_text().unwrap()
        };
        for (src, want) in [
            ("1.50", "1.5"),
            ("0x10", "16"),
            ("010", "010"),
            ("~", ""),
            ("!!str 5", "5"),
            ("1e3", "1000.0"),
            ("+5", "5"),
            (".5", "0.5"),
            ("True", "true"),
            ("yes", "yes"),
            ("-.inf", "-.inf"),
            ("12:30", "12:30"),
            ("'1.50'", "1.50"),
            ("1_000", "1_000"),
            ("-0", "0"),
        ] {
            assert_eq!(text(src), want, "{src}");
        }
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let n = load("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\ncopy: *b\n").unwrap();
        let Value::Map(m) = &n.value else { panic!() };
        let Value::Map(used) = &m[1].1.value else { panic!() };
        let kv: Vec<(String, String)> =
            used.iter().map(|(k, v)| (k.scalar_text().unwrap(), v.scalar_text().unwrap())).collect();
        assert_eq!(kv, [("y".into(), "3".into()), ("x".into(), "1".into())]);
        assert_eq!(at(&m[2].1), (5, 7), "an alias is where it is used");
    }

    #[test]
    fn duplicate_keys_and_bad_syntax_are_placed() {
        let e = load("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 3, column: 1 }));
        assert_eq!(e.message, "duplicate key `a` (first at line 1)");
        let e = load("a: {b: 1\nc: 2\n").unwrap_err();
        assert!(e.pos.is_some(), "{e:?}");
    }

    #[test]
    fn aliases_that_expand_without_end_are_refused() {
        let mut src = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            src.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let e = load(&src).unwrap_err();
        assert!(e.message.contains("aliases expand to more than"), "{e:?}");
    }

    #[test]
    fn one_document_only() {
        assert!(load("a: 1\n---\nb: 2\n").unwrap_err().message.contains("more than one document"));
        assert_eq!(load("").unwrap().value, Value::Map(Vec::new()));
        assert_eq!(load("---\na: 1\n...\n").unwrap().pos.line, 2);
    }

    #[test]
    fn nesting_is_bounded_with_an_error_not_a_stack_overflow() {
        let deep = format!("k:\n{}x\n", "- ".repeat(10_000));
        let e = load(&deep).unwrap_err();
        assert!(e.message.contains("nested more than 128 levels"), "{}", e.message);
        assert_eq!(e.pos.map(|p| p.line), Some(2));
        let flow = format!("k: {}x{}\n", "[".repeat(10_000), "]".repeat(10_000));
        // The scanner has its own limit on flow nesting; either way an error, not a crash.
        assert!(load(&flow).is_err());
        let ok = format!("k: {}x{}\n", "[".repeat(100), "]".repeat(100));
        assert!(load(&ok).is_ok());
    }

    #[test]
    fn floats_read_back_as_they_were_written_before() {
        for (yaml, text) in
            [("1e20", "1e20"), ("6.02e23", "6.02e23"), ("1.5e300", "1.5e300"), ("1.50", "1.5"), ("100.0", "100.0")]
        {
            let n = load(&format!("k: {yaml}")).unwrap();
            let Value::Map(m) = n.value else { panic!("a map") };
            assert_eq!(m[0].1.scalar_text().as_deref(), Some(text), "{yaml}");
        }
    }
}
