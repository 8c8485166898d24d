//! Evaluator tests on syntax trees built by hand (the parser is another part), through
//! `compile` and `run` as `Script` calls them.

use super::{compile, run};
use crate::ast::*;
use crate::host::{Host, HostRef};
use crate::value::Value;
use crate::{interp, Ctx, Lang, NoHost, Thrown};
use std::sync::Arc;

fn p(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

fn ex(kind: ExprKind) -> Expr {
    Expr { kind, pos: p(1, 1) }
}

fn at(kind: ExprKind, line: u32, col: u32) -> Expr {
    Expr { kind, pos: p(line, col) }
}

fn st(kind: StmtKind) -> Stmt {
    Stmt { kind, pos: p(1, 1) }
}

fn int(i: i32) -> Expr {
    ex(ExprKind::Num(Num::Int(i)))
}

fn dec(s: &str) -> Expr {
    ex(ExprKind::Num(Num::Decimal(s.into())))
}

fn dbl(d: f64) -> Expr {
    ex(ExprKind::Num(Num::Double(d)))
}

fn s(t: &str) -> Expr {
    ex(ExprKind::Str(t.into()))
}

fn id(n: &str) -> Expr {
    ex(ExprKind::Ident(n.into()))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    ex(ExprKind::Binary { op, left: Box::new(a), right: Box::new(b) })
}

fn assign(t: Expr, v: Expr) -> Expr {
    ex(ExprKind::Assign { target: Box::new(t), op: None, value: Box::new(v) })
}

fn op_assign(t: Expr, op: BinOp, v: Expr) -> Expr {
    ex(ExprKind::Assign { target: Box::new(t), op: Some(op), value: Box::new(v) })
}

fn inc(t: Expr, prefix: bool) -> Expr {
    ex(ExprKind::IncDec { target: Box::new(t), inc: true, prefix })
}

fn call(target: Option<Expr>, name: &str, args: Vec<Expr>) -> Expr {
    ex(ExprKind::Call { target: target.map(Box::new), name: name.into(), args, safe: false, spread: false })
}

fn prop(t: Expr, name: &str) -> Expr {
    ex(ExprKind::Property { target: Box::new(t), name: name.into(), safe: false, spread: false })
}

fn index(t: Expr, i: Expr) -> Expr {
    ex(ExprKind::Index { target: Box::new(t), index: Box::new(i), safe: false })
}

fn list(items: Vec<Expr>) -> Expr {
    ex(ExprKind::List(items))
}

fn closure(params: &[&str], stmts: Vec<Stmt>) -> Expr {
    ex(ExprKind::Closure(Arc::new(body(params, stmts))))
}

fn body(params: &[&str], stmts: Vec<Stmt>) -> Body {
    Body {
        params: params.iter().map(|n| Param { name: n.to_string(), ty: None, default: None }).collect(),
        implicit_it: params.is_empty(),
        stmts,
    }
}

fn ty(name: &str) -> TypeName {
    TypeName { name: name.into(), dims: 0, pos: p(1, 1) }
}

fn def(name: &str, init: Expr) -> Stmt {
    st(StmtKind::Var { ty: None, name: name.into(), init: Some(init) })
}

fn typed(t: &str, name: &str, init: Option<Expr>) -> Stmt {
    st(StmtKind::Var { ty: Some(ty(t)), name: name.into(), init })
}

fn e(x: Expr) -> Stmt {
    st(StmtKind::Expr(x))
}

fn block(stmts: Vec<Stmt>) -> Box<Stmt> {
    Box::new(st(StmtKind::Block(stmts)))
}

fn ret(x: Expr) -> Stmt {
    st(StmtKind::Return(Some(x)))
}

fn run_in(
    stmts: Vec<Stmt>,
    lang: Lang,
    globals: &mut Vec<(String, Value)>,
    host: &mut dyn Host,
) -> Result<Value, Thrown> {
    let code = compile(Program { imports: Vec::new(), body: stmts }, lang)
        .map_err(|e| Thrown::new("CompileError", e.to_string()))?;
    let mut cx = Ctx { host, lang, state: interp::State::default() };
    run(&mut cx, &code, globals)
}

fn eval_in(stmts: Vec<Stmt>, lang: Lang) -> Result<Value, Thrown> {
    run_in(stmts, lang, &mut Vec::new(), &mut NoHost::default())
}

/// The script's value, as its text.
fn text(stmts: Vec<Stmt>, lang: Lang) -> String {
    match eval_in(stmts, lang) {
        Ok(v) => format!("{}:{v}", v.type_name()),
        Err(t) => format!("!{t}"),
    }
}

fn g(x: Expr) -> String {
    text(vec![e(x)], Lang::Groovy)
}

#[test]
fn groovy_numbers_promote_and_divide_to_big_decimals() {
    assert_eq!(g(bin(BinOp::Add, int(1), int(2))), "Integer:3");
    assert_eq!(g(bin(BinOp::Div, int(7), int(2))), "BigDecimal:3.5");
    assert_eq!(g(bin(BinOp::Div, int(1), int(3))), "BigDecimal:0.3333333333");
    assert_eq!(g(bin(BinOp::Div, int(2), int(3))), "BigDecimal:0.6666666667");
    assert_eq!(g(bin(BinOp::Div, int(4), int(2))), "BigDecimal:2");
    assert_eq!(g(bin(BinOp::Div, dec("1.50"), dec("0.5"))), "BigDecimal:3.0");
    assert_eq!(g(bin(BinOp::Add, int(1), dec("1.5"))), "BigDecimal:2.5");
    assert_eq!(g(bin(BinOp::Mul, dec("1.5"), dbl(2.0))), "Double:3.0");
    assert_eq!(g(bin(BinOp::Mul, int(i32::MAX), int(2))), "Integer:-2");
    assert_eq!(g(bin(BinOp::Add, ex(ExprKind::Num(Num::Long(1))), int(2))), "Long:3");
    assert_eq!(g(bin(BinOp::Rem, int(7), int(3))), "Integer:1");
    assert_eq!(g(bin(BinOp::Pow, int(2), int(10))), "Integer:1024");
    assert_eq!(g(bin(BinOp::Pow, int(2), int(40))), "Long:1099511627776");
    assert_eq!(g(bin(BinOp::Pow, int(2), int(-1))), "Double:0.5");
    assert_eq!(g(bin(BinOp::Div, int(1), int(0))), "!java.lang.ArithmeticException: Division by zero");
    assert_eq!(g(bin(BinOp::Rem, int(1), int(0))), "!java.lang.ArithmeticException: / by zero");
}

#[test]
fn java_truncates_and_javascript_uses_doubles() {
    let j = |x: Expr| text(vec![e(x)], Lang::BeanShell);
    assert_eq!(j(bin(BinOp::Div, int(7), int(2))), "Integer:3");
    assert_eq!(j(bin(BinOp::Div, int(-7), int(2))), "Integer:-3");
    assert_eq!(j(bin(BinOp::Div, int(1), int(0))), "!java.lang.ArithmeticException: / by zero");
    assert_eq!(j(bin(BinOp::Add, bin(BinOp::Add, s("a"), int(1)), int(2))), "String:a12");
    assert_eq!(j(bin(BinOp::Add, bin(BinOp::Add, int(1), int(2)), s("a"))), "String:3a");
    let js = |x: Expr| text(vec![e(x)], Lang::JavaScript);
    assert_eq!(js(bin(BinOp::Div, int(7), int(2))), "Double:3.5");
    assert_eq!(js(bin(BinOp::Div, int(4), int(2))), "Integer:2");
    assert_eq!(js(bin(BinOp::Add, s("n="), bin(BinOp::Div, dbl(6.0), int(3)))), "String:n=2");
    assert_eq!(js(bin(BinOp::Or, s(""), s("b"))), "String:b");
    assert_eq!(js(bin(BinOp::And, int(0), s("b"))), "Integer:0");
    assert_eq!(js(bin(BinOp::Eq, s("1"), int(1))), "Boolean:true");
    assert_eq!(js(bin(BinOp::StrictEq, s("1"), int(1))), "Boolean:false");
    assert_eq!(js(ex(ExprKind::Unary { op: UnOp::TypeOf, expr: Box::new(id("nothing")) })), "String:undefined");
}

#[test]
fn comparisons_equality_and_logic() {
    assert_eq!(g(bin(BinOp::Eq, int(1), ex(ExprKind::Num(Num::Long(1))))), "Boolean:true");
    assert_eq!(g(bin(BinOp::Ne, ex(ExprKind::Null), s("x"))), "Boolean:true");
    assert_eq!(g(bin(BinOp::Lt, s("a"), s("b"))), "Boolean:true");
    assert_eq!(g(bin(BinOp::Cmp, int(3), dec("2.5"))), "Integer:1");
    assert!(g(bin(BinOp::Lt, s("a"), int(1))).starts_with("!java.lang.IllegalArgumentException: Cannot compare String"));
    assert_eq!(g(bin(BinOp::And, s("x"), int(0))), "Boolean:false");
    assert_eq!(g(bin(BinOp::Or, s(""), int(2))), "Boolean:true");
    // Short-circuit: the right side would throw.
    assert_eq!(g(bin(BinOp::And, ex(ExprKind::Bool(false)), bin(BinOp::Div, int(1), int(0)))), "Boolean:false");
    assert_eq!(g(ex(ExprKind::Elvis { left: Box::new(s("")), right: Box::new(s("d")) })), "String:d");
    assert_eq!(g(bin(BinOp::In, int(2), list(vec![int(1), int(2)]))), "Boolean:true");
    let range = ex(ExprKind::Range { from: Box::new(int(1)), to: Box::new(int(5)), exclusive: true });
    assert_eq!(g(bin(BinOp::In, int(5), range)), "Boolean:false");
    assert_eq!(
        g(ex(ExprKind::InstanceOf { expr: Box::new(s("x")), ty: ty("String"), negated: false })),
        "Boolean:true"
    );
    assert_eq!(
        g(ex(ExprKind::InstanceOf { expr: Box::new(int(1)), ty: ty("Number"), negated: true })),
        "Boolean:false"
    );
}

#[test]
fn strings_lists_and_maps_with_operators_and_indices() {
    let gs = ex(ExprKind::GString(vec![
        Part::Lit("n=".into()),
        Part::Expr(bin(BinOp::Add, int(1), int(1))),
        Part::Lit("!".into()),
    ]));
    assert_eq!(g(gs), "String:n=2!");
    assert_eq!(g(bin(BinOp::Add, int(1), s("a"))), "String:1a");
    assert_eq!(g(bin(BinOp::Mul, s("ab"), int(3))), "String:ababab");
    assert_eq!(g(bin(BinOp::Sub, s("abcb"), s("b"))), "String:acb");
    assert_eq!(g(index(list(vec![int(1), int(2), int(3)]), int(-1))), "Integer:3");
    assert_eq!(g(index(list(vec![int(1)]), int(5))), "null:null");
    assert_eq!(g(index(s("hello"), int(1))), "String:e");
    assert_eq!(g(bin(BinOp::Add, list(vec![int(1)]), list(vec![int(2)]))), "ArrayList:[1, 2]");
    assert_eq!(g(bin(BinOp::Sub, list(vec![int(1), int(2), int(1)]), int(1))), "ArrayList:[2]");
    let prog = vec![
        def("l", list(vec![])),
        e(bin(BinOp::Shl, id("l"), int(1))),
        e(bin(BinOp::Shl, id("l"), int(2))),
        e(assign(index(id("l"), int(4)), int(9))),
        def("m", ex(ExprKind::Map(vec![(s("a"), int(1))]))),
        e(assign(prop(id("m"), "b"), int(2))),
        e(op_assign(prop(id("m"), "a"), BinOp::Add, int(10))),
        e(inc(index(id("m"), s("b")), false)),
        e(bin(BinOp::Add, bin(BinOp::Add, ex(ExprKind::GString(vec![Part::Expr(id("l"))])), s(" ")), id("m"))),
    ];
    assert_eq!(text(prog, Lang::Groovy), "String:[1, 2, null, null, 9] [a:11, b:3]");
}

#[test]
fn closures_capture_variables_by_reference() {
    // def n = 0; def add = { n += it }; add(1); add(2); def get = { -> n }; n = n * 10; get()
    let prog = vec![
        def("n", int(0)),
        def("add", closure(&[], vec![e(op_assign(id("n"), BinOp::Add, id("it")))])),
        e(call(None, "add", vec![int(1)])),
        e(call(None, "add", vec![int(2)])),
        def("get", closure(&["unused"], vec![e(id("n"))])),
        e(assign(id("n"), bin(BinOp::Mul, id("n"), int(10)))),
        e(call(None, "get", vec![])),
    ];
    assert_eq!(text(prog, Lang::Groovy), "Integer:30");
    // Nested closures and a counter made by a function-like closure.
    let prog = vec![
        def("counter", closure(&[], vec![def("c", int(0)), e(closure(&[], vec![e(inc(id("c"), true))]))])),
        def("a", call(None, "counter", vec![])),
        def("b", call(None, "counter", vec![])),
        e(call(None, "a", vec![])),
        e(call(None, "a", vec![])),
        e(call(None, "b", vec![])),
        e(list(vec![call(None, "a", vec![]), call(None, "b", vec![])])),
    ];
    assert_eq!(text(prog, Lang::Groovy), "ArrayList:[3, 2]");
    // A closure with two parameters called with one list spreads it; return leaves the closure.
    let prog = vec![
        def(
            "f",
            closure(
                &["a", "b"],
                vec![
                    st(StmtKind::If {
                        cond: id("a"),
                        then: block(vec![ret(bin(BinOp::Add, id("a"), id("b")))]),
                        els: None,
                    }),
                    e(int(0)),
                ],
            ),
        ),
        e(list(vec![
            call(None, "f", vec![list(vec![int(1), int(2)])]),
            call(Some(id("f")), "call", vec![int(0), int(5)]),
        ])),
    ];
    assert_eq!(text(prog, Lang::Groovy), "ArrayList:[3, 0]");
}

#[test]
fn loops_break_continue_and_labels() {
    // def sum = 0; for (int i = 0; i < 10; i++) { if (i == 2) continue; if (i == 5) break; sum += i }; sum
    let body = block(vec![
        st(StmtKind::If {
            cond: bin(BinOp::Eq, id("i"), int(2)),
            then: Box::new(st(StmtKind::Continue(None))),
            els: None,
        }),
        st(StmtKind::If {
            cond: bin(BinOp::Eq, id("i"), int(5)),
            then: Box::new(st(StmtKind::Break(None))),
            els: None,
        }),
        e(op_assign(id("sum"), BinOp::Add, id("i"))),
    ]);
    let prog = vec![
        def("sum", int(0)),
        st(StmtKind::For {
            init: vec![typed("int", "i", Some(int(0)))],
            cond: Some(bin(BinOp::Lt, id("i"), int(10))),
            update: vec![inc(id("i"), false)],
            body,
        }),
        e(id("sum")),
    ];
    assert_eq!(text(prog, Lang::Groovy), "Integer:8");
    // outer: for (x in [1,2,3]) { for (y in 1..3) { if (y == 2) continue outer; if (x == 3) break outer; n++ } }
    let inner = st(StmtKind::ForEach {
        ty: None,
        var: "y".into(),
        iter: ex(ExprKind::Range { from: Box::new(int(1)), to: Box::new(int(3)), exclusive: false }),
        keys: false,
        body: block(vec![
            st(StmtKind::If {
                cond: bin(BinOp::Eq, id("y"), int(2)),
                then: Box::new(st(StmtKind::Continue(Some("outer".into())))),
                els: None,
            }),
            st(StmtKind::If {
                cond: bin(BinOp::Eq, id("x"), int(3)),
                then: Box::new(st(StmtKind::Break(Some("outer".into())))),
                els: None,
            }),
            e(inc(id("n"), false)),
        ]),
    });
    let prog = vec![
        def("n", int(0)),
        st(StmtKind::Labeled {
            label: "outer".into(),
            body: Box::new(st(StmtKind::ForEach {
                ty: None,
                var: "x".into(),
                iter: list(vec![int(1), int(2), int(3)]),
                keys: false,
                body: block(vec![inner]),
            })),
        }),
        e(id("n")),
    ];
    assert_eq!(text(prog, Lang::Groovy), "Integer:2");
    // while with a do-while
    let prog = vec![
        def("i", int(0)),
        st(StmtKind::While { cond: bin(BinOp::Lt, id("i"), int(5)), body: block(vec![e(inc(id("i"), false))]) }),
        st(StmtKind::DoWhile { body: block(vec![e(inc(id("i"), false))]), cond: ex(ExprKind::Bool(false)) }),
        e(id("i")),
    ];
    assert_eq!(text(prog, Lang::Groovy), "Integer:6");
}

#[test]
fn switch_falls_through_until_break() {
    let sw = |x: i32| {
        vec![
            def("out", s("")),
            st(StmtKind::Switch {
                subject: int(x),
                arms: vec![
                    SwitchArm { labels: vec![int(1)], body: vec![e(op_assign(id("out"), BinOp::Add, s("one ")))] },
                    SwitchArm {
                        labels: vec![int(2), int(3)],
                        body: vec![e(op_assign(id("out"), BinOp::Add, s("two-three "))), st(StmtKind::Break(None))],
                    },
                    SwitchArm { labels: vec![], body: vec![e(op_assign(id("out"), BinOp::Add, s("default")))] },
                ],
            }),
            e(id("out")),
        ]
    };
    assert_eq!(text(sw(1), Lang::Java), "String:one two-three ");
    assert_eq!(text(sw(3), Lang::Java), "String:two-three ");
    assert_eq!(text(sw(9), Lang::Java), "String:default");
}

#[test]
fn functions_recurse_and_the_depth_is_limited() {
    // def fact(n) { n <= 1 ? 1 : n * fact(n - 1) }; fact(10)
    let fact = body(
        &["n"],
        vec![e(ex(ExprKind::Ternary {
            cond: Box::new(bin(BinOp::Le, id("n"), int(1))),
            then: Box::new(int(1)),
            els: Box::new(bin(BinOp::Mul, id("n"), call(None, "fact", vec![bin(BinOp::Sub, id("n"), int(1))]))),
        }))],
    );
    let prog = |arg: i32| {
        vec![
            e(call(None, "fact", vec![int(arg)])),
            st(StmtKind::Function { name: "fact".into(), body: Arc::new(fact.clone()) }),
        ]
    };
    assert_eq!(text(prog(10), Lang::Groovy), "Integer:3628800");
    assert!(text(prog(100_000), Lang::Groovy).starts_with("!java.lang.StackOverflowError"));
    // Groovy functions do not see the script's locals; they are globals there (missing).
    let prog = vec![
        def("x", int(1)),
        st(StmtKind::Function { name: "f".into(), body: Arc::new(body(&[], vec![e(id("x"))])) }),
        e(call(None, "f", vec![])),
    ];
    assert_eq!(
        text(prog, Lang::Groovy),
        "!groovy.lang.MissingPropertyException: No such property: x for class: Script1"
    );
}

#[test]
fn the_step_budget_stops_a_runaway_loop_that_catches_everything() {
    let prog = vec![st(StmtKind::While {
        cond: ex(ExprKind::Bool(true)),
        body: Box::new(st(StmtKind::Try {
            body: vec![e(int(1))],
            catches: vec![Catch { types: vec![], var: "e".into(), body: vec![] }],
            finally: None,
        })),
    })];
    let code = compile(Program { imports: Vec::new(), body: prog }, Lang::JavaScript).unwrap();
    let mut host = NoHost::default();
    let mut cx =
        Ctx { host: &mut host, lang: Lang::JavaScript, state: interp::State { budget: 10_000, ..Default::default() } };
    let r = run(&mut cx, &code, &mut Vec::new()).unwrap_err();
    assert!(r.message.contains("stopped after 10000 steps"), "{r}");
}

#[test]
fn try_catch_finally_and_assert() {
    // try { nope } catch (e) { r = "caught" } finally { f = "ran" }   (JavaScript: untyped catch)
    let prog = vec![
        st(StmtKind::Try {
            body: vec![e(id("nope"))],
            catches: vec![Catch { types: vec![], var: "e".into(), body: vec![e(assign(id("r"), s("caught")))] }],
            finally: Some(vec![e(assign(id("f"), s("ran")))]),
        }),
        e(bin(BinOp::Add, id("r"), id("f"))),
    ];
    assert_eq!(text(prog, Lang::JavaScript), "String:caughtran");
    // finally runs when nothing catches, and the error keeps its position.
    let mut globals = Vec::new();
    let prog = vec![st(StmtKind::Try {
        body: vec![e(at(ExprKind::Binary { op: BinOp::Div, left: Box::new(int(1)), right: Box::new(int(0)) }, 3, 7))],
        catches: vec![],
        finally: Some(vec![e(assign(id("f"), s("ran")))]),
    })];
    let err = run_in(prog, Lang::Groovy, &mut globals, &mut NoHost::default()).unwrap_err();
    assert_eq!(err.pos, Some(p(3, 7)));
    assert_eq!(globals[0].0, "f");
    // assert
    let a = |message: Option<Expr>, lang| {
        text(vec![st(StmtKind::Assert { cond: bin(BinOp::Eq, int(1), int(2)), message, text: "1 == 2".into() })], lang)
    };
    assert_eq!(a(None, Lang::Groovy), "!java.lang.AssertionError: assert 1 == 2");
    assert_eq!(a(Some(s("bad")), Lang::Groovy), "!java.lang.AssertionError: bad. Expression: (1 == 2)");
    assert_eq!(a(Some(s("bad")), Lang::Java), "!java.lang.AssertionError: bad");
}

#[test]
fn globals_come_in_and_undeclared_assignments_go_out() {
    let mut globals = vec![("x".to_string(), Value::Int(2))];
    let prog = vec![
        e(assign(id("Failure"), ex(ExprKind::Bool(true)))),
        typed("String", "msg", Some(s("m"))),
        e(assign(id("x"), bin(BinOp::Add, id("x"), int(1)))),
        e(id("x")),
    ];
    let v = run_in(prog, Lang::BeanShell, &mut globals, &mut NoHost::default()).unwrap();
    assert_eq!(v.to_string(), "3");
    let find = |n: &str| globals.iter().find(|(k, _)| k == n).map(|(_, v)| v.to_string());
    assert_eq!(find("x").as_deref(), Some("3"));
    assert_eq!(find("Failure").as_deref(), Some("true"));
    assert_eq!(find("msg").as_deref(), Some("m"), "BeanShell's script-level declarations are script variables");
    // Groovy: `def` stays local, an undeclared assignment is a binding; reading an unknown
    // name is an error at run time, not at load.
    let mut globals = Vec::new();
    let v = run_in(
        vec![def("a", int(1)), e(assign(id("b"), int(2))), e(id("a"))],
        Lang::Groovy,
        &mut globals,
        &mut NoHost::default(),
    );
    assert_eq!(v.unwrap().to_string(), "1");
    assert_eq!(globals.len(), 1);
    assert_eq!(
        text(vec![e(id("script"))], Lang::Groovy),
        "!groovy.lang.MissingPropertyException: No such property: script for class: Script1"
    );
}

#[test]
fn unknown_and_forbidden_classes_are_compile_errors_with_positions() {
    let c = |x: Expr| text(vec![e(x)], Lang::Groovy);
    assert_eq!(
        c(call(Some(at(ExprKind::Ident("Runtime".into()), 2, 5)), "getRuntime", vec![])),
        "!CompileError: line 2, column 5: class `Runtime` is not available in stampede's scripts: process execution is not allowed"
    );
    let socket = at(
        ExprKind::New { ty: TypeName { name: "java.net.Socket".into(), dims: 0, pos: p(4, 9) }, args: vec![] },
        4,
        5,
    );
    assert_eq!(c(socket), "!CompileError: line 4, column 9: class `java.net.Socket` is not available in stampede's scripts: network access is not allowed");
    let chain = prop(prop(prop(id("org"), "acme"), "Thing"), "x");
    assert_eq!(c(chain), "!CompileError: line 1, column 1: class `org.acme.Thing` is not available in stampede's scripts (docs/scripts.md)");
    assert_eq!(
        c(id("Undefined")),
        "!CompileError: line 1, column 1: class `Undefined` is not available in stampede's scripts (docs/scripts.md)"
    );
    // JMeter's capitalised bindings are variables, not classes.
    assert_eq!(
        c(id("SampleResult")),
        "!groovy.lang.MissingPropertyException: No such property: SampleResult for class: Script1"
    );
}

/// A host with one object, `vars`, a map of strings.
#[derive(Default)]
struct Vars {
    map: std::collections::HashMap<String, String>,
    calls: usize,
}

impl Host for Vars {
    fn call(&mut self, _target: HostRef, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        self.calls += 1;
        match (method, args.as_slice()) {
            ("put", [k, v]) => Ok(self.map.insert(k.to_string(), v.to_string()).map(Value::from).unwrap_or_default()),
            ("get", [k]) => Ok(self.map.get(&k.to_string()).cloned().map(Value::from).unwrap_or_default()),
            _ => Err(Thrown::no_method("JMeterVariables", method)),
        }
    }
}

#[test]
fn host_objects_receive_calls_and_closures_called_back() {
    // vars.put("k", "v" + 1); [1, 2].each { vars.put("i" + it, it) }   — `each` is the methods
    // part's; here the closure is called as `cx.call_value` would.
    let prog = vec![
        e(call(Some(id("vars")), "put", vec![s("k"), bin(BinOp::Add, s("v"), int(1))])),
        def(
            "f",
            closure(&[], vec![e(call(Some(id("vars")), "put", vec![bin(BinOp::Add, s("i"), id("it")), id("it")]))]),
        ),
        e(call(None, "f", vec![int(7)])),
        e(call(Some(id("vars")), "get", vec![s("k")])),
    ];
    let mut host = Vars::default();
    let mut globals = vec![("vars".to_string(), Value::Host(HostRef(1)))];
    let v = run_in(prog, Lang::Groovy, &mut globals, &mut host).unwrap();
    assert_eq!(v.to_string(), "v1");
    assert_eq!(host.map.get("i7").map(String::as_str), Some("7"));
}

#[test]
fn typed_declarations_keep_java_defaults() {
    let prog = vec![typed("int", "n", None), typed("boolean", "b", None), e(list(vec![id("n"), id("b")]))];
    assert_eq!(text(prog, Lang::Java), "ArrayList:[0, false]");
}

/// Runs source text (the parser's) and renders the value as `Type:text` or `!error`.
fn src(source: &str, lang: Lang) -> String {
    let script = match crate::Script::compile(source, lang) {
        Ok(s) => s,
        Err(e) => return format!("!compile: {e}"),
    };
    let mut host = NoHost::default();
    match script.run(&mut host, &[]) {
        Ok(v) => format!("{}:{v}", v.type_name()),
        Err(t) => format!("!{t}"),
    }
}

#[test]
fn source_text_runs() {
    let cases: &[(&str, Lang, &str)] = &[
        ("def n = 0; [1, 2].each { n += it }; n", Lang::Groovy, "Integer:3"),
        ("7 / 2", Lang::Groovy, "BigDecimal:3.5"),
        ("int a = 7; a / 2", Lang::BeanShell, "Integer:3"),
        ("var x = 6 / 4; '' + x", Lang::JavaScript, "String:1.5"),
        ("def f(n) { n <= 1 ? 1 : n * f(n - 1) }\nf(5)", Lang::Groovy, "Integer:120"),
        ("def s = 0\nfor (int i = 0; i < 10; i++) { if (i % 2) continue; s += i }\ns", Lang::Groovy, "Integer:20"),
        ("def m = [a: 1]; m.b = 2; m['c'] = 3; m.a += 5; \"$m\"", Lang::Groovy, "String:[a:6, b:2, c:3]"),
        ("String s = \"a\" + 1 + 2; s", Lang::Java, "String:a12"),
        ("def x = null; x?.foo ?: 'dflt'", Lang::Groovy, "String:dflt"),
        ("def l = [3, 1, 2]; l[-1] + l[0]", Lang::Groovy, "Integer:5"),
        ("def r = ''; switch (2) { case 1: r += 'a'; case 2: r += 'b'; case 3: r += 'c'; break; default: r += 'd' }; r", Lang::Groovy, "String:bc"),
        ("try { throw new Exception('boom') } catch (e) { 'caught' } finally { }", Lang::Groovy, "String:caught"),
        ("x = 5", Lang::Groovy, "Integer:5"),
        ("script", Lang::Groovy, "!groovy.lang.MissingPropertyException: No such property: script for class: Script1"),
        ("def c = { a, b -> a + b }; c([1, 2])", Lang::Groovy, "Integer:3"),
        ("function f(a) { return a * 2; } f(21)", Lang::JavaScript, "Integer:42"),
        ("def n = 0; outer: for (i in 1..3) { for (j in 1..3) { if (j == 2) continue outer; if (i == 3) break outer; n++ } }; n", Lang::Groovy, "Integer:2"),
        ("def i = 0; while (true) { if (++i > 4) break }; i", Lang::Groovy, "Integer:5"),
        ("assert 1 == 2", Lang::Groovy, "!java.lang.AssertionError: assert 1 == 2"),
        ("assert 1 == 2 : 'one is not two'", Lang::Groovy, "!java.lang.AssertionError: one is not two. Expression: (1 == 2)"),
        // Each iteration's variable is a fresh one for the closures made in it.
        ("def fs = []; for (i in 1..3) { fs << { i } }; fs*.call()", Lang::Groovy, "ArrayList:[1, 2, 3]"),
        ("def l = [1, 2, 3]; l[1]++; l[0] += 10; l", Lang::Groovy, "ArrayList:[11, 3, 3]"),
        ("def m = [:]; m.x = [1]; m.x << 2; m", Lang::Groovy, "LinkedHashMap:[x:[1, 2]]"),
        ("def x = 10; x /= 4; x", Lang::Groovy, "BigDecimal:2.5"),
        ("def x = 1; x <<= 3; x", Lang::Groovy, "Integer:8"),
        ("def (a, b) = [1, 2]; a + b", Lang::Groovy, "Integer:3"),
        ("def f = this.&g; def g(x) { x + 1 }; f(1)", Lang::Groovy, "Integer:2"),
        ("def c = { x, y -> x * y }.curry(2); c(5)", Lang::Groovy, "Integer:10"),
        ("int i = 0; i++; i += 2; i", Lang::BeanShell, "Integer:3"),
        ("char c = 'a'; c + 1", Lang::Java, "Integer:98"),
        ("var a = [1, 2]; a.length + 'x'.length", Lang::JavaScript, "Integer:3"),
        ("var o = {a: 1}; o.a + o['a']", Lang::JavaScript, "Integer:2"),
        ("Runtime.getRuntime()", Lang::Groovy, "!compile: line 1, column 1: class `Runtime` is not available in stampede's scripts: process execution is not allowed"),
        ("x = 1\nnew java.net.URL('http://x')", Lang::Groovy, "!compile: line 2, column 5: class `java.net.URL` is not available in stampede's scripts: network access is not allowed"),
        ("Math.nosuch(1)", Lang::Groovy, "!compile: line 1, column 1: `java.lang.Math.nosuch` is not available in stampede's scripts (docs/scripts.md)"),
        ("def t = 0; try { t = 1; return t } finally { t = 2 }", Lang::Groovy, "Integer:1"),
        ("def s = new StringBuilder(); s << 'a' << 1; s.toString()", Lang::Groovy, "String:a1"),
        ("def m = [a: 1, b: 2]; def out = ''; m.each { k, v -> out += k + v }; out", Lang::Groovy, "String:a1b2"),
        ("if ('abc123' =~ /\\d+/) { 'found' } else { 'no' }", Lang::Groovy, "String:found"),
        ("def r; switch ('abc') { case ~/a.c/: r = 'matched'; break; default: r = 'no' }; r", Lang::Groovy, "String:matched"),
        ("new Date(0) < new Date(5)", Lang::Groovy, "Boolean:true"),
    ];
    let mut failures = Vec::new();
    for (source, lang, want) in cases {
        let got = src(source, *lang);
        if got != *want {
            failures.push(format!("{lang} `{source}`: got {got}, want {want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Operators go through the library's size limit: a script cannot make the process allocate
/// gigabytes with one `*` (Groovy's `OutOfMemoryError` instead), and Groovy's divisions round
/// to its precision whichever path they take.
#[test]
fn operators_keep_to_the_library_limits() {
    assert!(src("'ab' * 2000000000", Lang::Groovy).starts_with("!java.lang.OutOfMemoryError"));
    assert!(src("[1, 2] * 2000000000", Lang::Groovy).starts_with("!java.lang.OutOfMemoryError"));
    assert_eq!(src("'ab' * 2", Lang::Groovy), "String:abab");
    assert_eq!(src("10 / 3", Lang::Groovy), "BigDecimal:3.3333333333");
}
