//! The parser's tests: tree shapes, positions, error messages, real scripts.

use super::super::ast::*;
use super::super::Lang;
use super::parse;

fn groovy(src: &str) -> Program {
    parse(src, Lang::Groovy).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

#[test]
fn smoke() {
    let p = groovy("def x = 1\nlog.info \"a ${x}\"\nvars.put('k', x.toString())");
    assert_eq!(p.body.len(), 3);
}

/// Parses every script of the local corpus (`/work/wt/scripts-corpus.txt`, not in CI) and
/// prints the failures: `cargo test --lib corpus_parses -- --ignored --nocapture`.
#[test]
#[ignore]
fn corpus_parses() {
    let Ok(text) = std::fs::read_to_string("/work/wt/scripts-corpus.txt") else { return };
    let (mut ok, mut total, mut classes) = (0, 0, 0);
    for chunk in text.split("===== ").skip(1) {
        let (head, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
        let lang = head.split(" | ").find_map(|f| f.strip_prefix("lang=")).unwrap_or("");
        let lang = if head.contains("BeanShell") && lang.is_empty() { "beanshell" } else { lang };
        let Some(lang) = Lang::from_jmeter(lang) else { continue };
        if body.trim().is_empty() || lang == Lang::Jexl {
            continue;
        }
        total += 1;
        match parse(body, lang) {
            Ok(_) => ok += 1,
            Err(e) if e.message.starts_with("class declarations") => classes += 1,
            Err(e) => println!("FAIL {head}\n  {e}\n  {}", body.lines().nth(e.pos.line as usize - 1).unwrap_or("")),
        }
    }
    println!("corpus: {ok} of {total} parse, {classes} declare classes");
}
