//! The class tables against their code and their documentation: every row runs, and
//! docs/scripts.md lists exactly the tables' classes and statics.

use super::super::{Ctx, Host, HostRef, Lang, Thrown, Value};
use super::{all_classes, bytes, Class};
use std::path::Path;

/// A host that answers every JMeter static, so a row the host serves shows it reaches it.
struct AnswersStatics;

impl Host for AnswersStatics {
    fn call(&mut self, _target: HostRef, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        Err(Thrown::no_method("Object", method))
    }
    fn call_static(&mut self, _class: &'static str, _method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        Ok(Value::Null)
    }
}

/// Arguments of each kind a static may take: a row runs when one of them is not "no such
/// method" (a wrong argument is another error, which is the row's code running).
fn kinds() -> Vec<Value> {
    vec![
        Value::Int(1),
        Value::str("1"),
        Value::str("a"),
        Value::Double(1.5),
        Value::Bool(true),
        Value::list(vec![Value::str("a")]),
        Value::map(Default::default()),
        bytes(vec![97]),
        Value::Null,
        Value::Long(1),
    ]
}

/// Calls `f` with `n` arguments of every pair of kinds (the first, the rest) until one call
/// is answered by code rather than by "no such method".
fn answers(n: usize, mut f: impl FnMut(Vec<Value>) -> Result<Value, Thrown>) -> Result<(), String> {
    let mut last = String::new();
    for first in kinds() {
        for rest in kinds() {
            let mut args = vec![rest.clone(); n];
            if let Some(a) = args.first_mut() {
                *a = first.clone();
            }
            match f(args) {
                Ok(_) => return Ok(()),
                Err(e) if !e.is_no_method() && !no_constructor(&e) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
        }
    }
    Err(last)
}

fn no_constructor(e: &Thrown) -> bool {
    ["no public constructor", "cannot be created", "is an interface"].iter().any(|m| e.message.contains(m))
}

/// Every constructor, static and field of every row runs (a static with `n..=m` arguments
/// with `n` and with `m` when bounded): a row whose function has no code for it fails here,
/// not in a user's script at run time.
#[test]
fn every_row_of_the_class_tables_runs() {
    let mut host = AnswersStatics;
    let mut cx = Ctx { host: &mut host, lang: Lang::Groovy, state: Default::default() };
    let mut failures = Vec::new();
    for c in all_classes() {
        if c.new.is_some() {
            let made = (0..=3).map(|n| answers(n, |args| c.construct(&mut cx, args))).find(Result::is_ok);
            if made.is_none() {
                failures.push(format!("new {}(...)", c.name));
            }
        }
        for s in c.statics {
            let mut counts = vec![s.min as usize];
            if s.max != super::VAR && s.max != s.min {
                counts.push(s.max as usize);
            }
            for n in counts {
                if let Err(e) = answers(n, |args| (s.f)(&mut cx, c.name, s.name, args)) {
                    failures.push(format!("{}.{} with {n} arguments: {e}", c.name, s.name));
                }
            }
        }
        for f in c.fields {
            if let Err(e) = (f.get)(&mut cx, c.name, f.name) {
                failures.push(format!("{}.{}: {e}", c.name, f.name));
            }
        }
    }
    assert!(failures.is_empty(), "rows that do not run:\n{}", failures.join("\n"));
}

/// A row whose function has no code for it is what the test above catches.
#[test]
fn a_row_without_code_is_caught() {
    fn nothing(_: &mut Ctx<'_>, class: &'static str, name: &str, _: Vec<Value>) -> Result<Value, Thrown> {
        Err(super::no_method(class, name))
    }
    let mut host = AnswersStatics;
    let mut cx = Ctx { host: &mut host, lang: Lang::Groovy, state: Default::default() };
    assert!(answers(1, |args| nothing(&mut cx, "java.lang.Math", "nothing", args)).is_err());
}

const BEGIN: &str = "<!-- class list: generated from crates/script/src/classes by `STAMPEDE_BLESS=1 cargo test -p stampede-script class_list`; do not edit -->\n";
const END: &str = "<!-- end of the class list -->";

/// The class list as docs/scripts.md shows it: one line per class, its statics and fields.
fn class_list() -> String {
    let mut classes: Vec<&Class> = all_classes().collect();
    classes.sort_by_key(|c| c.name);
    let mut out = String::new();
    for c in classes {
        out.push_str(&format!("- `{}`", c.name));
        if c.new.is_some() {
            out.push_str(" (`new`)");
        }
        let names: Vec<String> = c
            .statics
            .iter()
            .map(|s| format!("`{}`", s.name))
            .chain(c.fields.iter().map(|f| format!("`{}`", f.name)))
            .collect();
        if !names.is_empty() {
            out.push_str(": ");
            out.push_str(&names.join(", "));
        }
        out.push('\n');
    }
    out
}

/// docs/scripts.md lists exactly the tables' classes and statics. `STAMPEDE_BLESS=1` rewrites it.
#[test]
fn class_list_in_the_docs_is_the_tables() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scripts.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("docs/scripts.md has no class list markers")
    };
    let want = class_list();
    if doc[b + BEGIN.len()..e] != want {
        if std::env::var_os("STAMPEDE_BLESS").is_some() {
            std::fs::write(&path, format!("{}{BEGIN}{want}{}", &doc[..b], &doc[e..])).unwrap();
        } else {
            panic!("docs/scripts.md's class list is stale: run `STAMPEDE_BLESS=1 cargo test -p stampede-script class_list`");
        }
    }
}
