//! The method tables: every row answers when called with arguments of its arity on a receiver
//! of its type, each table is sorted (the lookup's binary search needs it), and the method names
//! docs/scripts.md lists are the tables' names.

use super::list::{list_rows, LIST};
use super::map::{map_rows, MAP};
use super::number::{number_rows, NUMBER};
use super::string::{string_rows, STRING};
use super::*;
use crate::{NoHost, Script};

/// The value a small Groovy script ends with (a closure, an object of a library class).
fn made(src: &str) -> Value {
    let script = Script::compile(src, Lang::Groovy).unwrap_or_else(|e| panic!("{src}: {e}"));
    script.run(&mut NoHost::default(), &[]).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Arguments of every kind a row's signature may ask for.
fn candidates() -> Vec<Value> {
    vec![
        Value::Int(1),
        Value::str("a"),
        made("def f = { it }; f"),
        made("def f = { a, b -> 0 }; f"),
        Value::list(vec![Value::Int(1), Value::Int(2)]),
        Value::Bool(true),
        Value::Null,
        Value::Range(0, 1),
        made("[a: 1]"),
        made("new Random()"),
    ]
}

/// Fresh receivers of a table's type (a row may change its receiver).
fn receivers(table: &str) -> Vec<Value> {
    match table {
        "LIST" => vec![
            Value::list(vec![Value::Int(2), Value::Int(1), Value::Int(3)]),
            Value::array(vec![Value::Int(2), Value::Int(1)]),
            list::make_set(vec![Value::Int(2), Value::Int(1)]),
            made("[[1, 2], [3, 4]]"),
            // json-smart's `JSONArray` (what `JsonPath` gives) has its own `toString()`.
            Value::List(std::sync::Arc::new(crate::value::ListObj {
                json: true,
                kind: ListKind::List,
                items: std::sync::Mutex::new(vec![Value::Int(1)]),
            })),
        ],
        "STRING" => vec![Value::str("a,b c")],
        "MAP" => vec![made("[a: 1, b: 2]"), made("new TreeMap([b: 2, a: 1])")],
        _ => vec![
            Value::Int(5),
            Value::Long(5),
            Value::Double(2.5),
            Value::Decimal(rust_decimal::Decimal::new(25, 1)),
            Value::Char('a'),
        ],
    }
}

/// Every tuple of `n` candidates.
fn tuples(pool: &[Value], n: usize) -> Vec<Vec<Value>> {
    let mut out = vec![Vec::new()];
    for _ in 0..n {
        out = out.iter().flat_map(|t| pool.iter().map(move |c| [t.clone(), vec![c.clone()]].concat())).collect();
    }
    out
}

/// Whether a row's function takes some arguments of its arity on some receiver of its type, in
/// some language: anything but `Ok(None)` (a value, or an error its code raised, such as an
/// index out of bounds or Groovy's "no signature" for an argument of the wrong type).
fn answers(table: &str, m: &Method, pool: &[Value]) -> bool {
    let most = if m.max == ANY { m.min as usize + 1 } else { m.max as usize };
    for n in m.min as usize..=most {
        for args in tuples(pool, n) {
            for lang in [Lang::Groovy, Lang::JavaScript, Lang::Java] {
                for recv in receivers(table) {
                    let mut host = NoHost::default();
                    let mut cx = Ctx { host: &mut host, lang, state: Default::default() };
                    if !matches!((m.f)(&mut cx, &recv, m.name, &args), Ok(None)) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

fn tables() -> [(&'static str, &'static [Method]); 4] {
    [("LIST", LIST), ("STRING", STRING), ("MAP", MAP), ("NUMBER", NUMBER)]
}

#[test]
fn every_row_answers_with_arguments_of_its_arity() {
    let pool = candidates();
    let mut dead = Vec::new();
    for (table, rows) in tables() {
        for m in rows {
            if !answers(table, m, &pool) {
                dead.push(format!("{table} {}({}..{})", m.name, m.min, m.max));
            }
        }
    }
    assert!(dead.is_empty(), "rows that never answer (no such method): {dead:?}");
}

#[test]
fn every_row_is_found_by_its_name() {
    let lookups: [fn(&str) -> &'static [Method]; 4] = [list_rows, string_rows, map_rows, number_rows];
    for ((table, rows), find) in tables().into_iter().zip(lookups) {
        assert!(rows.windows(2).all(|w| w[0].name <= w[1].name), "{table} is not sorted by name");
        for m in rows {
            let (want, got) = (super::rows(rows, m.name), find(m.name));
            assert!(std::ptr::eq(want, got), "{table}: the match gives {} the wrong rows", m.name);
            assert!(got.iter().any(|r| std::ptr::eq(r, m)), "{table} {}", m.name);
        }
        assert!(find("frobnicate").is_empty() && find("").is_empty(), "{table}");
    }
}

/// The names of a table, each once, sorted.
fn names(rows: &[Method]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = rows.iter().map(|m| m.name).collect();
    v.dedup();
    v
}

/// The backquoted names of the line starting with `lead` in docs/scripts.md's method list.
fn documented(doc: &str, lead: &str) -> Vec<String> {
    let line = doc.lines().find(|l| l.starts_with(lead)).unwrap_or_else(|| panic!("docs/scripts.md: no `{lead}` line"));
    line.split('`').skip(1).step_by(2).map(String::from).collect()
}

#[test]
fn the_methods_docs_list_are_the_tables() {
    let doc = include_str!("../../../../docs/scripts.md");
    for (lead, rows) in [("- strings:", STRING), ("- lists, arrays and sets:", LIST), ("- maps:", MAP)] {
        let want: Vec<String> = names(rows).into_iter().map(String::from).collect();
        let shown: Vec<String> = want.iter().map(|n| format!("`{n}`")).collect();
        assert_eq!(documented(doc, lead), want, "docs/scripts.md's line should be:\n{lead} {}", shown.join(" "));
    }
}
