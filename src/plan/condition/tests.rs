//! Unit tests of the condition module.

use super::*;
use std::cell::Cell;

/// Nested references come first so they are replaced whole, before their inner `${y}` could be.
const VARS: &[(&str, &str)] = &[
    ("__P(x,${y})", "px"),
    ("__Random(1, 5)", "3"),
    ("__groovy(vars.get(\"a\") == 'b')", "true"),
    ("role", "admin"),
    ("count", "7"),
    ("token", "abc"),
    ("empty", ""),
    ("status", "200"),
    ("body", "all OK here"),
    ("id", "do_42"),
    ("loggedIn", " TRUE "),
    ("no", "false"),
    ("a", "x y"),
    ("n10", "10"),
    ("n95", "9.5"),
    ("ws", " 5 "),
    ("nan", "nan"),
    ("inf", "inf"),
];

fn render(text: &str) -> String {
    VARS.iter().fold(text.to_string(), |t, (k, v)| t.replace(&format!("${{{k}}}"), v))
}

fn parse_str(src: &str) -> Result<Condition<String>, String> {
    parse(src, |s| Ok::<_, String>(s.to_string())).map_err(|e| e.to_string())
}

fn eval_str(src: &str) -> bool {
    parse_str(src).unwrap_or_else(|e| panic!("{src}: {e}")).eval(&mut |t| render(t))
}

#[test]
fn evaluates() {
    let cases: &[(&str, bool)] = &[
        // each operator, string and numeric
        ("${role} == 'admin'", true),
        ("${role} == \"admin \"", false),
        ("${role} != 'admin'", false),
        ("${role} != 'user'", true),
        ("${count} < 10 && ${token} != ''", true),
        ("${count} < 10 && ${empty} != ''", false),
        ("${count} <= 7", true),
        ("${count} > 7", false),
        ("${count} >= 7", true),
        ("${status} == 200.0", true),
        ("${status} == '200'", true),
        ("${n10} > ${n95}", true),
        ("${n10} < ${n95}", false),
        ("'10' > '9.5'", true),
        ("'abc' < 'abd'", true),
        ("'10' < 'abc'", true),
        ("'b' > 'a'", true),
        ("'a' >= 'a'", true),
        ("'a' <= 'b'", true),
        ("'b' <= 'a'", false),
        ("${ws} == 5", true),
        ("${ws} == ' 5'", true),
        ("${role} == ' admin'", false),
        ("${nan} == 'nan'", true),
        ("${inf} > 5", true),
        ("1e3 == 1000", true),
        ("${a} == 'x y'", true),
        ("'${a}' == \"x y\"", true),
        ("${body} contains 'OK'", true),
        ("${body} contains 'ok'", false),
        ("${body} contains ''", true),
        ("${body} !contains 'KO'", true),
        ("${body}!contains'OK'", false),
        ("${body} contains'here'", true),
        ("${id} =~ '^do_[0-9]+$'", true),
        ("${id} =~ ^do_[0-9]+$", true),
        ("${id}=~'o_4'", true),
        ("${id} =~ '\\d+'", true),
        ("${id} !~ '^x'", true),
        ("${id} !~ 'do'", false),
        // lone operands
        ("${loggedIn}", true),
        ("${no}", false),
        ("true", true),
        ("false", false),
        ("TRUE", true),
        ("'true'", true),
        ("yes", false),
        ("1", false),
        ("contains", false),
        // precedence, negation, grouping
        ("true || false && false", true),
        ("false && true || true", true),
        ("(true || false) && false", false),
        ("!(${status} == 200)", false),
        ("!${status} == 200", false),
        ("!${status} == 201", true),
        ("!true", false),
        ("!!true", true),
        ("! ( false )", true),
        ("!(false || !(true && !false))", true),
        // templates with parentheses, commas, quotes and spaces inside
        ("${__P(x,${y})} == 'px'", true),
        ("${__Random(1, 5)} >= 1 && ${__Random(1, 5)} <= 5", true),
        ("${__groovy(vars.get(\"a\") == 'b')}", true),
        ("'${__groovy(vars.get(\"a\") == 'b')}' == true", true),
        ("(${__Random(1, 5)} == 3)", true),
        // quoting and escapes
        ("'it\\'s' == \"it's\"", true),
        ("\"say \\\"hi\\\"\" contains '\"hi\"'", true),
        ("'a\\\\b' contains '\\\\'", true),
        ("'a\\b' == 'a\\\\b'", true),
        ("'&& || ( ) == !' contains '('", true),
        // whitespace
        ("  ${role}=='admin'  ", true),
        ("\n${count}\t<\t10\n", true),
    ];
    for &(src, want) in cases {
        assert_eq!(eval_str(src), want, "{src}");
    }
}

#[test]
fn structure() {
    let t = |s: &str| Condition::Truthy(s.to_string());
    assert_eq!(parse_str("a || b && c").unwrap(), Condition::Or(vec![t("a"), Condition::And(vec![t("b"), t("c")])]));
    assert_eq!(parse_str("!a && b").unwrap(), Condition::And(vec![Condition::Not(Box::new(t("a"))), t("b")]));
    assert_eq!(parse_str("x<=y").unwrap(), Condition::Compare { left: "x".into(), op: CmpOp::Le, right: "y".into() });
    // Patterns compare by their text.
    assert_eq!(parse_str("a =~ 'x+'").unwrap(), parse_str("a=~x+").unwrap());
    assert_ne!(parse_str("a =~ 'x+'").unwrap(), parse_str("a =~ 'x*'").unwrap());
}

#[test]
fn operands_keep_templates_whole() {
    let c = parse_str(r#"${__P(x,${y})} == '${__Random(1, 5)}' && ${id} =~ 'x' || !"\${a b}" || z"#).unwrap();
    assert_eq!(c.operands(), ["${__P(x,${y})}", "${__Random(1, 5)}", "${id}", "\\${a b}", "z"]);
    let mut c = c;
    c.operands_mut().into_iter().for_each(|t| t.push('!'));
    assert_eq!(c.operands()[4], "z!");
}

#[test]
fn short_circuits() {
    let cases: &[(&str, usize)] = &[
        ("false && ${x} == 1", 1),
        ("true || ${x}", 1),
        ("${status} == 200 || ${x}", 2),
        ("!(false) || ${x}", 1),
        ("true && false && ${x}", 2),
        ("false || false || true", 3),
    ];
    for &(src, want) in cases {
        let calls = Cell::new(0);
        parse_str(src).unwrap().eval(&mut |t| {
            calls.set(calls.get() + 1);
            render(t)
        });
        assert_eq!(calls.get(), want, "{src}");
    }
}

#[test]
fn errors_say_what_and_where() {
    let deep = format!("{}a{}", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
    let cases: &[(&str, &str, usize)] = &[
        ("", "empty expression", 1),
        ("   ", "empty expression", 1),
        ("(${a}", "unclosed `(`", 1),
        ("((a) ", "unclosed `(`", 1),
        ("a)", "unmatched `)`", 2),
        ("(a))", "unmatched `)`", 4),
        ("()", "expected an operand after `(`, found `)`", 2),
        ("'abc", "unterminated string (no closing ')", 1),
        ("${a} == \"x", "unterminated string (no closing \")", 9),
        ("${a", "unterminated `${`", 1),
        ("x == '${__P(a,${b})'", "unterminated `${`", 7),
        ("${a} ==", "expected an operand after `==`, found the end", 8),
        ("${a} contains ", "expected an operand after `contains`, found the end", 15),
        ("${a} &&", "expected an operand after `&&`, found the end", 8),
        ("a || && b", "expected an operand after `||`, found `&&`", 6),
        ("!", "expected an operand after `!`, found the end", 2),
        ("|| a", "expected an operand, found `||`", 1),
        ("== a", "expected an operand, found operator `==`", 1),
        ("!= a", "expected an operand, found operator `!=`", 1),
        ("a == (b)", "expected an operand after `==`, found `(`", 6),
        ("a b", "expected an operator, `&&`, `||` or the end, found `b`", 3),
        ("a == b c", "expected `&&`, `||` or the end, found `c`", 8),
        ("a == b == c", "found operator `==`", 8),
        ("a = b", "found `=`", 3),
        ("a=b", "did you mean `==`?", 2),
        ("(a b)", "expected an operator, `&&`, `||` or `)`, found `b`", 4),
        ("(a == b c)", "expected `&&`, `||` or `)`, found `c`", 9),
        ("${a} =~ '('", "invalid regex `(` after `=~`", 9),
        ("${a} !~ '${b}'", "the pattern `${b}` after `!~` must be a literal regex", 9),
        ("é é", "found `é`", 3),
        (&deep, "nested", MAX_DEPTH + 1),
    ];
    for &(src, what, col) in cases {
        let e = parse_str(src).expect_err(src);
        assert!(e.contains(what), "{src:?}: {e}");
        assert!(e.contains(&format!("at column {col} ")), "{src:?}: {e}");
        assert!(e.contains(&format!("in condition `{src}`")), "{src:?}: {e}");
    }
}

#[test]
fn regex_error_is_one_line() {
    let e = parse_str("${a} =~ '('").unwrap_err();
    assert!(!e.contains('\n') && e.ends_with("unclosed group"), "{e}");
}

#[test]
fn operand_errors_pass_through_with_position() {
    let e = parse("a == ${bad}", |s| if s.contains("bad") { Err(format!("unknown {s}")) } else { Ok(()) }).unwrap_err();
    assert_eq!(e.to_string(), "unknown ${bad} (operand at column 6 in condition `a == ${bad}`)");
    assert!(matches!(e, ConditionError::Operand { column: 6, .. }));
}

#[test]
fn fuzz_never_panics() {
    const PIECES: &[&str] = &[
        "$",
        "{",
        "}",
        "(",
        ")",
        "'",
        "\"",
        "\\",
        "!",
        "=",
        "~",
        "<",
        ">",
        "&",
        "|",
        " ",
        "a",
        "1",
        ".",
        ",",
        "é",
        "\t",
        "${",
        "&&",
        "||",
        "==",
        "contains",
        "!contains",
        "true",
        "=~",
        "[",
    ];
    let mut seed: u64 = 0x5eed;
    let mut next = move || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..5000 {
        let len = next() % 16;
        let src: String = (0..len).map(|_| PIECES[next() % PIECES.len()]).collect();
        match parse_str(&src) {
            Ok(c) => {
                ok += 1;
                c.eval(&mut |t| t.clone());
                assert!(!c.operands().is_empty(), "{src:?}");
            }
            Err(e) => {
                failed += 1;
                assert!(e.contains(" at column ") && e.contains(&format!("`{src}`")), "{src:?}: {e}");
            }
        }
    }
    // Both paths must actually be exercised for the test to mean anything.
    assert!(ok > 100 && failed > 100, "ok {ok}, failed {failed}");
}

/// #32: JMeter's WhileController.endOfLoop: text that reads blank (a function that failed)
/// reads the last sample, `false` in any case ends, anything else goes on.
#[test]
fn while_text_reads_the_last_sample_when_blank() {
    let c = Condition::WhileText { text: "t".to_string(), last_ok: "ok".to_string() };
    let eval = |text: &str, ok: &str| c.eval(&mut |o: &String| if o == "t" { text.into() } else { ok.into() });
    assert!(eval("", "true"));
    assert!(!eval(" ", "false"));
    assert!(!eval("FALSE", "true"));
    assert!(eval("no", "false"));
}
