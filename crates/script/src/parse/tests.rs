//! The parser's tests: tree shapes (as compact S-expressions), positions, error messages,
//! real scripts.

use super::super::ast::*;
use super::super::Lang;
use super::parse;

fn prog(src: &str, lang: Lang) -> Program {
    parse(src, lang).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The script's statements as S-expressions, one per line.
fn sx(src: &str, lang: Lang) -> String {
    let p = prog(src, lang);
    p.body.iter().map(stmt).collect::<Vec<_>>().join("\n")
}

fn g(src: &str) -> String {
    sx(src, Lang::Groovy)
}

fn java(src: &str) -> String {
    sx(src, Lang::BeanShell)
}

fn js(src: &str) -> String {
    sx(src, Lang::JavaScript)
}

fn err(src: &str, lang: Lang) -> String {
    match parse(src, lang) {
        Ok(p) => panic!("parsed: {:?}", p.body.iter().map(stmt).collect::<Vec<_>>()),
        Err(e) => e.to_string(),
    }
}

fn ty(t: &TypeName) -> String {
    format!("{}{}", t.name, "[]".repeat(t.dims as usize))
}

fn list(items: &[Expr]) -> String {
    items.iter().map(expr).collect::<Vec<_>>().join(" ")
}

fn stmts(b: &[Stmt]) -> String {
    b.iter().map(stmt).collect::<Vec<_>>().join(" ")
}

fn body(b: &Body) -> String {
    let params: Vec<String> = b
        .params
        .iter()
        .map(|p| {
            let mut s = match &p.ty {
                Some(t) => format!("{}:{}", p.name, ty(t)),
                None => p.name.clone(),
            };
            if let Some(d) = &p.default {
                s = format!("{s}={}", expr(d));
            }
            s
        })
        .collect();
    let it = if b.implicit_it { "it" } else { "" };
    format!("[{}{}] {}", params.join(" "), it, stmts(&b.stmts))
}

fn op(o: BinOp) -> &'static str {
    use BinOp::*;
    match o {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Rem => "%",
        Pow => "**",
        Eq => "==",
        Ne => "!=",
        StrictEq => "===",
        StrictNe => "!==",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        Cmp => "<=>",
        And => "&&",
        Or => "||",
        BitAnd => "&",
        BitOr => "|",
        BitXor => "^",
        Shl => "<<",
        Shr => ">>",
        UShr => ">>>",
        In => "in",
        NotIn => "!in",
        Find => "=~",
        Match => "==~",
    }
}

fn dot(safe: bool, spread: bool) -> &'static str {
    match (safe, spread) {
        (true, _) => "?.",
        (_, true) => "*.",
        _ => ".",
    }
}

fn expr(e: &Expr) -> String {
    use ExprKind::*;
    match &e.kind {
        Null => "null".into(),
        Bool(b) => b.to_string(),
        Num(n) => format!("{n:?}"),
        Str(s) => format!("{s:?}"),
        Char(c) => format!("{c:?}"),
        GString(parts) => {
            let ps: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    Part::Lit(s) => format!("{s:?}"),
                    Part::Expr(e) => expr(e),
                })
                .collect();
            format!("(gstr {})", ps.join(" "))
        }
        Ident(n) => n.clone(),
        This => "this".into(),
        List(items) => format!("[{}]", list(items)),
        Map(entries) => {
            let es: Vec<String> = entries.iter().map(|(k, v)| format!("{}:{}", expr(k), expr(v))).collect();
            format!("{{{}}}", es.join(" "))
        }
        Range { from, to, exclusive } => {
            format!("({} {} {})", if *exclusive { "..<" } else { ".." }, expr(from), expr(to))
        }
        Unary { op, expr: x } => format!("({op:?} {})", expr(x)),
        IncDec { target, inc, prefix } => {
            let o = if *inc { "++" } else { "--" };
            if *prefix {
                format!("({o}pre {})", expr(target))
            } else {
                format!("(post{o} {})", expr(target))
            }
        }
        Binary { op: o, left, right } => format!("({} {} {})", op(*o), expr(left), expr(right)),
        InstanceOf { expr: x, ty: t, negated } => {
            format!("({}instanceof {} {})", if *negated { "!" } else { "" }, expr(x), ty(t))
        }
        Assign { target, op: o, value } => {
            format!("({}= {} {})", o.map(op).unwrap_or(""), expr(target), expr(value))
        }
        Ternary { cond, then, els } => format!("(? {} {} {})", expr(cond), expr(then), expr(els)),
        Elvis { left, right } => format!("(?: {} {})", expr(left), expr(right)),
        Property { target, name, safe, spread } => {
            let d = dot(*safe, *spread);
            format!("({d} {} {name})", expr(target))
        }
        Index { target, index, safe } => {
            format!("({} {} {})", if *safe { "?[]" } else { "[]" }, expr(target), expr(index))
        }
        Call { target, name, args, safe, spread } => {
            let d = dot(*safe, *spread);
            match target {
                Some(t) => format!("(call {}{d}{name} {})", expr(t), list(args)),
                None => format!("(call {name} {})", list(args)),
            }
        }
        CallValue { callee, args } => format!("(callv {} {})", expr(callee), list(args)),
        New { ty: t, args } => format!("(new {} {})", ty(t), list(args)),
        NewArray { ty: t, dims, init } => match init {
            Some(items) => format!("(newarray {} {{{}}})", ty(t), list(items)),
            None => format!("(newarray {} {})", ty(t), list(dims)),
        },
        Cast { ty: t, expr: x, coerce } => format!("({} {} {})", if *coerce { "as" } else { "cast" }, ty(t), expr(x)),
        Closure(b) => format!("(fn {})", body(b)),
        ClassLit(t) => format!("(class {})", ty(t)),
        MethodRef { target, name } => format!("(ref {} {name})", expr(target)),
    }
}

fn stmt(s: &Stmt) -> String {
    use StmtKind::*;
    match &s.kind {
        Expr(e) => expr(e),
        Var { ty: t, name, init } => {
            let t = t.as_ref().map(|t| format!(":{}", ty(t))).unwrap_or_default();
            match init {
                Some(i) => format!("(var {name}{t} {})", expr(i)),
                None => format!("(var {name}{t})"),
            }
        }
        MultiVar { names, init } => format!("(vars {} {})", names.join(" "), expr(init)),
        If { cond, then, els } => match els {
            Some(e) => format!("(if {} {} {})", expr(cond), stmt(then), stmt(e)),
            None => format!("(if {} {})", expr(cond), stmt(then)),
        },
        While { cond, body } => format!("(while {} {})", expr(cond), stmt(body)),
        DoWhile { body, cond } => format!("(do {} {})", stmt(body), expr(cond)),
        For { init, cond, update, body } => format!(
            "(for ({}) {} ({}) {})",
            stmts(init),
            cond.as_ref().map(expr).unwrap_or_default(),
            list(update),
            stmt(body)
        ),
        ForEach { ty: t, var, iter, keys, body } => format!(
            "(foreach{} {var}{} {} {})",
            if *keys { "-keys" } else { "" },
            t.as_ref().map(|t| format!(":{}", ty(t))).unwrap_or_default(),
            expr(iter),
            stmt(body)
        ),
        Block(b) => format!("{{{}}}", stmts(b)),
        Return(e) => format!("(return{})", e.as_ref().map(|e| format!(" {}", expr(e))).unwrap_or_default()),
        Break(l) => format!("(break{})", l.as_ref().map(|l| format!(" {l}")).unwrap_or_default()),
        Continue(l) => format!("(continue{})", l.as_ref().map(|l| format!(" {l}")).unwrap_or_default()),
        Throw(e) => format!("(throw {})", expr(e)),
        Try { body, catches, finally } => {
            let cs: Vec<String> = catches
                .iter()
                .map(|c| {
                    let ts: Vec<String> = c.types.iter().map(ty).collect();
                    format!("(catch {} {} {})", ts.join("|"), c.var, stmts(&c.body))
                })
                .collect();
            let f = finally.as_ref().map(|f| format!(" (finally {})", stmts(f))).unwrap_or_default();
            format!("(try {{{}}} {}{f})", stmts(body), cs.join(" "))
        }
        Switch { subject, arms } => {
            let a: Vec<String> =
                arms.iter().map(|a| format!("(case [{}] {})", list(&a.labels), stmts(&a.body))).collect();
            format!("(switch {} {})", expr(subject), a.join(" "))
        }
        Assert { cond, message, text } => {
            format!(
                "(assert {} {:?}{})",
                expr(cond),
                text,
                message.as_ref().map(|m| format!(" {}", expr(m))).unwrap_or_default()
            )
        }
        Function { name, body: b } => format!("(def {name} {})", body(b)),
        Labeled { label, body } => format!("({label}: {})", stmt(body)),
        Class(c) => {
            let fields: Vec<String> =
                c.fields.iter().map(|f| format!("{}{}", if f.is_static { "static " } else { "" }, f.name)).collect();
            let methods: Vec<String> =
                c.methods.iter().map(|m| format!("(def {} {})", m.name, body(&m.body))).collect();
            format!("(class {} fields [{}] ctors {} {})", c.name, fields.join(", "), c.ctors.len(), methods.join(" "))
        }
        Empty => ";".into(),
    }
}

/// Checks each case `(source, expected S-expressions)`, reporting every mismatch at once.
fn check(f: fn(&str) -> String, cases: &[(&str, &str)]) {
    let mut bad = Vec::new();
    for (src, want) in cases {
        let got = f(src);
        if got != *want {
            bad.push(format!("{src:?}\n   got: {got}\n  want: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn literals() {
    check(
        g,
        &[
            ("1", "Int(1)"),
            ("1.5", "Decimal(\"1.5\")"),
            ("'a'", "\"a\""),
            ("\"a\"", "\"a\""),
            ("\"a$b\"", "(gstr \"a\" b)"),
            ("\"${a.b()} $c.d.e!\"", "(gstr (call a.b ) \" \" (. (. c d) e) \"!\")"),
            ("\"\"\"x\n${1}\"\"\"", "(gstr \"x\\n\" Int(1))"),
            ("x = /\\d+/", "(= x \"\\\\d+\")"),
            ("x = $/a${b}/$", "(= x (gstr \"a\" b))"),
            ("true; false; null; this", "true\nfalse\nnull\nthis"),
            ("[1, 2]", "[Int(1) Int(2)]"),
            ("[:]", "{}"),
            ("[a: 1, 'b': 2, (k): 3, 4: 5]", "{\"a\":Int(1) \"b\":Int(2) k:Int(3) Int(4):Int(5)}"),
            ("[]", "[]"),
            ("[1, [2, 3],]", "[Int(1) [Int(2) Int(3)]]"),
            ("\"${}\"", "(gstr null)"),
        ],
    );
    check(
        java,
        &[
            ("'a'", "'a'"),
            ("1.5", "Double(1.5)"),
            ("\"a$b\"", "\"a$b\""),
            ("int[] a = {1, 2};", "(var a:int[] [Int(1) Int(2)])"),
        ],
    );
    check(
        js,
        &[
            ("'a'", "\"a\""),
            ("1.5", "Double(1.5)"),
            ("`a ${b}`", "(gstr \"a \" b)"),
            ("x = /a\\/b/g", "(= x \"a\\\\/b\")"),
        ],
    );
}

#[test]
fn operators_by_precedence() {
    check(
        g,
        &[
            ("a + b * c", "(+ a (* b c))"),
            ("a - b - c", "(- (- a b) c)"),
            ("-2 ** 2", "(Neg (** Int(2) Int(2)))"),
            ("2 ** 3 ** 2", "(** Int(2) (** Int(3) Int(2)))"),
            ("a << 1 + 2", "(<< a (+ Int(1) Int(2)))"),
            ("1..n + 1", "(.. Int(1) (+ n Int(1)))"),
            ("0..<3", "(..< Int(0) Int(3))"),
            ("a < b == c < d", "(== (< a b) (< c d))"),
            ("a && b || c && d", "(|| (&& a b) (&& c d))"),
            ("a | b ^ c & d", "(| a (^ b (& c d)))"),
            ("x in xs && y !in ys", "(&& (in x xs) (!in y ys))"),
            ("x instanceof String", "(instanceof x String)"),
            ("x !instanceof List", "(!instanceof x List)"),
            ("'12' as int + 1", "(+ (as int \"12\") Int(1))"),
            ("a <=> b", "(<=> a b)"),
            ("s =~ /x/ && s ==~ /y/", "(&& (=~ s \"x\") (==~ s \"y\"))"),
            ("a === b", "(=== a b)"),
            ("c ? a : b ? d : e", "(? c a (? b d e))"),
            ("a ?: b", "(?: a b)"),
            ("x = y = 1", "(= x (= y Int(1)))"),
            ("x += 1; x **= 2; x >>>= 1", "(+= x Int(1))\n(**= x Int(2))\n(>>>= x Int(1))"),
            ("!a && ~b", "(&& (Not a) (BitNot b))"),
            ("i++ + ++j", "(+ (post++ i) (++pre j))"),
            ("a?.b?.c()", "(call (?. a b)?.c )"),
            ("a*.b", "(*. a b)"),
            ("a.@b", "(. a b)"),
            ("a[0][1]", "([] ([] a Int(0)) Int(1))"),
            ("a?[0]", "(?[] a Int(0))"),
            ("this.&foo", "(ref this foo)"),
            ("String::valueOf", "(ref String valueOf)"),
            ("String.class", "(class String)"),
            ("java.lang.String.class", "(class java.lang.String)"),
            ("m.'a-b'", "(. m a-b)"),
            ("m.class", "(class m)"),
        ],
    );
}

#[test]
fn calls_commands_closures() {
    check(
        g,
        &[
            ("f(1, 2)", "(call f Int(1) Int(2))"),
            ("a.b.c(x)", "(call (. a b).c x)"),
            ("log.info \"x\"", "(call log.info \"x\")"),
            ("println \"a\" + b", "(call println (+ \"a\" b))"),
            ("vars.put \"k\", v", "(call vars.put \"k\" v)"),
            ("println x", "(call println x)"),
            ("list.each { println it }", "(call list.each (fn [it] (call println it)))"),
            ("m(a) { x }", "(call m a (fn [it] x))"),
            ("m(a: 1, b: 2)", "(call m {\"a\":Int(1) \"b\":Int(2)})"),
            ("m(x, a: 1)", "(call m {\"a\":Int(1)} x)"),
            ("xs.collect { a, b -> a + b }", "(call xs.collect (fn [a b] (+ a b)))"),
            ("c = { -> 1 }", "(= c (fn [] Int(1)))"),
            ("c = { String s, int n -> s * n }", "(= c (fn [s:String n:int] (* s n)))"),
            ("c = { it * 2 }", "(= c (fn [it] (* it Int(2))))"),
            ("c(1)", "(call c Int(1))"),
            ("(c)(1)", "(callv c Int(1))"),
            ("f(x)(y)", "(callv (call f x) y)"),
            ("x.with { a }.b", "(. (call x.with (fn [it] a)) b)"),
            ("foo { 1 }", "(call foo (fn [it] Int(1)))"),
            ("r = (a, b) -> a + b", "(= r (fn [a b] (+ a b)))"),
            ("r = x -> { x }", "(= r (fn [x] x))"),
            ("list.sort { a, b -> a <=> b }", "(call list.sort (fn [a b] (<=> a b)))"),
        ],
    );
}

#[test]
fn new_and_casts() {
    check(
        g,
        &[
            ("new Date()", "(new Date )"),
            ("new java.util.HashMap<String, List<Integer>>()", "(new java.util.HashMap )"),
            ("new ArrayList<>()", "(new ArrayList )"),
            ("new File(path: 'x')", "(new File {\"path\":\"x\"})"),
            ("new int[n]", "(newarray int[] n)"),
            ("new byte[2][3]", "(newarray byte[][] Int(2) Int(3))"),
            ("new String[]{'a', 'b'}", "(newarray String[] {\"a\" \"b\"})"),
            ("(int) x", "(cast int x)"),
            ("(String) m.get(k)", "(cast String (call m.get k))"),
            ("(byte[]) x", "(cast byte[] x)"),
            ("(List<String>) x", "(cast List x)"),
            ("(int) -1", "(cast int (Neg Int(1)))"),
            ("(a) - 1", "(- a Int(1))"),
            ("(x) + y", "(+ x y)"),
            ("(Integer) + 1", "(+ Integer Int(1))"),
            ("(a + b) * c", "(* (+ a b) c)"),
        ],
    );
}

#[test]
fn declarations() {
    check(
        g,
        &[
            ("def x = 1, y", "(var x Int(1))\n(var y)"),
            ("int x = 1, y", "(var x:int Int(1))\n(var y:int)"),
            ("String[] a", "(var a:String[])"),
            ("List<Map<String,Object>> l = []", "(var l:List [])"),
            ("final static private String s = ''", "(var s:String \"\")"),
            ("var v = 2", "(var v Int(2))"),
            ("def (a, b) = [1, 2]", "(vars a b [Int(1) Int(2)])"),
            ("def (String a, int b) = ['x', 1]", "(vars a b [\"x\" Int(1)])"),
            ("final x = 1", "(var x Int(1))"),
            ("def f(a, b = 1) { a + b }", "(def f [a b=Int(1)] (+ a b))"),
            ("String f(int a) { return a }", "(def f [a:int] (return a))"),
            ("static void main(String[] args) {}", "(def main [args:String[]] )"),
            ("@Field int n = 0", "(var n:int Int(0))"),
            ("java.util.Map m = [:]", "(var m:java.util.Map {})"),
        ],
    );
    check(
        java,
        &[
            ("x = 5;", "(= x Int(5))"),
            ("int i = 0, j;", "(var i:int Int(0))\n(var j:int)"),
            ("String s[] = null;", "(var s:String[] null)"),
            ("foo(a, b) { return a; }", "(def foo [a b] (return a))"),
            ("public static String f() throws IOException { return \"\"; }", "(def f [] (return \"\"))"),
            ("Map<String, String> m = new HashMap<String, String>();", "(var m:Map (new HashMap ))"),
        ],
    );
}

#[test]
fn control_flow() {
    check(
        g,
        &[
            ("if (a) b else c", "(if a b c)"),
            ("if (a) {\n b\n}\nelse if (c) {\n d\n}", "(if a {b} (if c {d}))"),
            ("while (i < 3) i++", "(while (< i Int(3)) (post++ i))"),
            ("do { i++ } while (i < 3)", "(do {(post++ i)} (< i Int(3)))"),
            (
                "for (int i = 0, j = 1; i < n; i++, j++) {}",
                "(for ((var i:int Int(0)) (var j:int Int(1))) (< i n) ((post++ i) (post++ j)) {})",
            ),
            ("for (;;) break", "(for ()  () (break))"),
            ("for (i = 0; i < 2; i++) x", "(for ((= i Int(0))) (< i Int(2)) ((post++ i)) x)"),
            ("for (x in xs) println x", "(foreach x xs (call println x))"),
            ("for (String x : xs) {}", "(foreach x:String xs {})"),
            ("for (def x in 0..<3) {}", "(foreach x (..< Int(0) Int(3)) {})"),
            ("outer: for (x in xs) { continue outer }", "(outer: (foreach x xs {(continue outer)}))"),
            ("return", "(return)"),
            ("return\nx", "(return)\nx"),
            ("return x", "(return x)"),
            ("throw new RuntimeException('x')", "(throw (new RuntimeException \"x\"))"),
            (
                "try { a } catch (IOException | RuntimeException e) { b } catch (e) { c } finally { d }",
                "(try {a} (catch IOException|RuntimeException e b) (catch  e c) (finally d))",
            ),
            (
                "switch (x) { case 1: case 'a': a; break; case [2, 3]: b; default: c }",
                "(switch x (case [Int(1) \"a\"] a (break)) (case [[Int(2) Int(3)]] b) (case [] c))",
            ),
            ("assert a == 1 : 'bad'", "(assert (== a Int(1)) \"a == 1\" \"bad\")"),
            ("assert x", "(assert x \"x\")"),
            ("{ a }", "{a}"),
            (";", ";"),
        ],
    );
    check(
        js,
        &[
            ("for (var k in o) {}", "(foreach-keys k o {})"),
            ("for (let v of xs) {}", "(foreach v xs {})"),
            ("try { a } catch (e) { b }", "(try {a} (catch  e b))"),
        ],
    );
}

#[test]
fn groovy_newlines() {
    check(
        g,
        &[
            ("a = 1\nb = 2", "(= a Int(1))\n(= b Int(2))"),
            ("a = 1 +\n 2", "(= a (+ Int(1) Int(2)))"),
            ("a = 1\n+ 2", "(= a Int(1))\n(Plus Int(2))"),
            ("x = list\n  .findAll { it }\n  ?.size()", "(= x (call (call list.findAll (fn [it] it))?.size ))"),
            ("x = f(\n1,\n2\n)", "(= x (call f Int(1) Int(2)))"),
            ("x = [\n1,\n2\n]", "(= x [Int(1) Int(2)])"),
            ("x = c\n  ? a\n  : b", "(= x (? c a b))"),
            ("x = a &&\n b", "(= x (&& a b))"),
            ("a\n[1]", "a\n[Int(1)]"),
            ("a\n(b)", "a\nb"),
            ("i\n++j", "i\n(++pre j)"),
        ],
    );
}

#[test]
fn imports_and_annotations() {
    let p = prog("package a.b\nimport java.util.*\nimport static java.lang.Math.max;\nimport groovy.json.JsonSlurper as JS\nx = 1\nimport java.io.File", Lang::Groovy);
    let im: Vec<String> =
        p.imports.iter().map(|i| format!("{} {} {} {:?}", i.path, i.star, i.is_static, i.alias)).collect();
    assert_eq!(
        im,
        [
            "java.util true false None",
            "java.lang.Math.max false true None",
            "groovy.json.JsonSlurper false false Some(\"JS\")",
            "java.io.File false false None",
        ]
    );
    assert_eq!(p.body.len(), 1);
    assert_eq!(p.imports[1].pos, Pos { line: 3, col: 1 });
    check(
        g,
        &[
            ("@groovy.transform.Field\nint n = 1", "(var n:int Int(1))"),
            ("@CompileStatic(x = 1) def f() {}", "(def f [] )"),
        ],
    );
}

#[test]
fn javascript() {
    check(
        js,
        &[
            ("var a = 1, b;", "(var a Int(1))\n(var b)"),
            ("let a = 1\nconst b = 2", "(var a Int(1))\n(var b Int(2))"),
            ("function f(a) { return a }", "(def f [a] (return a))"),
            ("var f = function (a) { return a; };", "(var f (fn [a] (return a)))"),
            ("f = a => a * 2", "(= f (fn [a] (* a Int(2))))"),
            ("f = (a, b) => { return a }", "(= f (fn [a b] (return a)))"),
            ("o = {a: 1, \"b\": 2, [k]: 3, c}", "(= o {\"a\":Int(1) \"b\":Int(2) k:Int(3) \"c\":c})"),
            ("a === b && c !== d", "(&& (=== a b) (!== c d))"),
            ("typeof x == 'string'", "(== (TypeOf x) \"string\")"),
            ("new Date", "(new Date )"),
            ("new Date().getTime()", "(call (new Date ).getTime )"),
            ("x = a / b / c", "(= x (/ (/ a b) c))"),
            ("k in o", "(in k o)"),
            ("a = [1, 2]", "(= a [Int(1) Int(2)])"),
            ("x = 3000000000", "(= x Long(3000000000))"),
        ],
    );
}

#[test]
fn jexl() {
    let j = |s: &str| sx(s, Lang::Jexl);
    check(
        j,
        &[
            ("a eq 1 and not b or c ne 2", "(|| (&& (== a Int(1)) (Not b)) (!= c Int(2)))"),
            ("x lt 1 || x ge 3", "(|| (< x Int(1)) (>= x Int(3)))"),
            ("empty(x) ? size(y) : 0", "(? (call empty x) (call size y) Int(0))"),
            ("s =~ 'a.*'", "(=~ s \"a.*\")"),
            ("s !~ 'a.*'", "(Not (=~ s \"a.*\"))"),
            ("var x = 1; x + 1", "(var x Int(1))\n(+ x Int(1))"),
            ("m = {'a': 1}; l = [1, 2]", "(= m {\"a\":Int(1)})\n(= l [Int(1) Int(2)])"),
            ("\"a\" == 'a'", "(== \"a\" \"a\")"),
            ("vars.get('x').length()", "(call (call vars.get \"x\").length )"),
        ],
    );
}

#[test]
fn positions() {
    let p = prog("def x = 1\n  log.info(\"a\" + x)", Lang::Groovy);
    assert_eq!(p.body[0].pos, Pos { line: 1, col: 1 });
    assert_eq!(p.body[1].pos, Pos { line: 2, col: 3 });
    let StmtKind::Expr(e) = &p.body[1].kind else { panic!() };
    let ExprKind::Call { args, .. } = &e.kind else { panic!() };
    let ExprKind::Binary { right, .. } = &args[0].kind else { panic!() };
    assert_eq!(right.pos, Pos { line: 2, col: 18 });
    // Inside `${}` and `$name`, positions are the script's.
    let p = prog("s = \"ab ${ x } $y\"", Lang::Groovy);
    let StmtKind::Expr(Expr { kind: ExprKind::Assign { value, .. }, .. }) = &p.body[0].kind else { panic!() };
    let ExprKind::GString(parts) = &value.kind else { panic!() };
    let Part::Expr(x) = &parts[1] else { panic!() };
    assert_eq!(x.pos, Pos { line: 1, col: 12 });
    let Part::Expr(y) = &parts[3] else { panic!() };
    assert_eq!(y.pos, Pos { line: 1, col: 17 });
}

#[test]
fn errors_name_what_was_expected_and_found() {
    let cases = [
        ("foo(1;", Lang::Groovy, "line 1, column 6: expected `)` after the arguments of `foo`, found `;`"),
        ("x = ", Lang::Groovy, "line 1, column 5: expected an expression, found the end of the script"),
        ("if x", Lang::Groovy, "line 1, column 4: expected `(` after `if`, found `x`"),
        ("int x = 1\nint y = 2;", Lang::Java, "line 2, column 1: expected `;` after the declaration, found `int`"),
        ("a b c", Lang::Groovy, "line 1, column 5: expected `;` or a new line after the statement, found `c`"),
        ("enum A { X }", Lang::Groovy, "line 1, column 1: `enum` declarations are not supported"),
        (
            "x = 1;\npublic class A {}",
            Lang::Java,
            "line 2, column 1: `class` declarations are supported in Groovy scripts only",
        ),
        (
            "class A { static { x = 1 } }",
            Lang::Groovy,
            "line 1, column 11: initialiser blocks in a class are not supported (`A`)",
        ),
        (
            "class A { class B {} }",
            Lang::Groovy,
            "line 1, column 11: a class declared inside a class is not supported (`A`)",
        ),
        (
            "r = new Runnable() {\n void run() {} }",
            Lang::Groovy,
            "line 1, column 20: anonymous classes (a class body after `new`) are not supported",
        ),
        ("s = \"abc", Lang::Groovy, "line 1, column 5: the string starting here is never closed by `\"`"),
        ("x = [1, 2", Lang::Groovy, "line 1, column 10: expected `]` closing the list, found the end of the script"),
        ("}", Lang::Groovy, "line 1, column 1: expected a statement (this `}` closes nothing), found `}`"),
        ("\"${a b c}\"", Lang::Groovy, "line 1, column 8: expected `}` closing `${`, found `c`"),
        ("s = \"${a +}\"", Lang::Groovy, "line 1, column 11: expected an expression, found `}`"),
        ("1 + 2 = 3", Lang::Groovy, "line 1, column 7: cannot assign to the expression before `=`"),
        ("x = 09", Lang::Groovy, "line 1, column 5: `09` is not an octal number"),
    ];
    let mut bad = Vec::new();
    for (src, lang, want) in cases {
        let got = err(src, lang);
        if got != want {
            bad.push(format!("{src:?}\n   got: {got}\n  want: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn hostile_input_is_refused_not_overflowed() {
    for src in [
        "(".repeat(100_000),
        "[".repeat(100_000),
        "{".repeat(100_000),
        "-".repeat(100_000) + "1",
        "a = ".repeat(100_000) + "1",
        "if (a) ".repeat(100_000),
        "\"${\"".repeat(10_000),
        "x".to_string() + &".y".repeat(100_000),
        "!".repeat(100_000),
        "a".to_string() + &" + a".repeat(100_000),
    ] {
        let e = parse(&src, Lang::Groovy).unwrap_err();
        assert!(e.message.contains("deeper") || e.message.contains("too") || e.message.contains("never closed"), "{e}");
    }
    // Deep but legal nesting still parses.
    let src = "(".repeat(50) + "1" + &")".repeat(50);
    prog(&src, Lang::Groovy);
}

#[test]
fn everyday_groovy() {
    check(
        g,
        &[
            (
                "def json = new groovy.json.JsonSlurper().parseText(prev.getResponseDataAsString())",
                "(var json (call (new groovy.json.JsonSlurper ).parseText (call prev.getResponseDataAsString )))",
            ),
            ("vars.put(\"token\", json.data.token)", "(call vars.put \"token\" (. (. json data) token))"),
            ("def ids = json.items.collect { it.id }.join(',')", "(var ids (call (call (. json items).collect (fn [it] (. it id))).join \",\"))"),
            (
                "json.items.eachWithIndex { item, i -> vars.put(\"id_${i+1}\", item.id.toString()) }",
                "(call (. json items).eachWithIndex (fn [item i] (call vars.put (gstr \"id_\" (+ i Int(1))) (call (. item id).toString ))))",
            ),
            (
                "if (!json.success) { AssertionResult.failure = true; AssertionResult.failureMessage = \"bad\" }",
                "(if (Not (. json success)) {(= (. AssertionResult failure) true) (= (. AssertionResult failureMessage) \"bad\")})",
            ),
            ("def m = prev.responseDataAsString =~ /token\":\"(.+?)\"/", "(var m (=~ (. prev responseDataAsString) \"token\\\":\\\"(.+?)\\\"\"))"),
            ("if (m.find()) vars.put('t', m.group(1))", "(if (call m.find ) (call vars.put \"t\" (call m.group Int(1))))"),
            ("def list = vars.get('x')?.split(',') ?: []", "(var list (?: (call (call vars.get \"x\")?.split \",\") []))"),
            ("props.put('n', (props.get('n') ?: 0) + 1)", "(call props.put \"n\" (+ (?: (call props.get \"n\") Int(0)) Int(1)))"),
            ("5.times { sleep(10) }", "(call Int(5).times (fn [it] (call sleep Int(10))))"),
            ("m[0][1]", "([] ([] m Int(0)) Int(1))"),
            ("json.'some-key'", "(. json some-key)"),
            ("list.findAll { it > 1 }.each { println it }", "(call (call list.findAll (fn [it] (> it Int(1)))).each (fn [it] (call println it)))"),
            ("def body = \"{\\\"a\\\": \\\"${v}\\\"}\"", "(var body (gstr \"{\\\"a\\\": \\\"\" v \"\\\"}\"))"),
            ("def s = 'a' +\n  'b' +\n  c", "(var s (+ (+ \"a\" \"b\") c))"),
            ("return true", "(return true)"),
            ("def x = [a: [b: 1]]\nx.a.b", "(var x {\"a\":{\"b\":Int(1)}})\n(. (. x a) b)"),
            ("vars.put 'a', \"${x}\" as String", "(call vars.put \"a\" (as String (gstr x)))"),
            ("if (a) {\n}\nelse {\n}", "(if a {} {})"),
            ("def f = { Map m -> m.size() }", "(var f (fn [m:Map] (call m.size )))"),
            ("x.each { k, v -> println \"$k=$v\" }", "(call x.each (fn [k v] (call println (gstr k \"=\" v))))"),
            ("log.info('a'); log.info('b')", "(call log.info \"a\")\n(call log.info \"b\")"),
        ],
    );
}

#[test]
fn everyday_beanshell() {
    check(
        java,
        &[
            (
                "SimpleDateFormat sdf = new SimpleDateFormat(\"yyyy-MM-dd'T'HH:mm:ss\");",
                "(var sdf:SimpleDateFormat (new SimpleDateFormat \"yyyy-MM-dd'T'HH:mm:ss\"))",
            ),
            ("count++;", "(post++ count)"),
            (
                "if (prev.getResponseCode().equals(\"200\") == false) { Failure = true; FailureMessage = \"bad\"; }",
                "(if (== (call (call prev.getResponseCode ).equals \"200\") false) {(= Failure true) (= FailureMessage \"bad\")})",
            ),
            ("String[] parts = s.split(\",\");", "(var parts:String[] (call s.split \",\"))"),
            ("for (int i = 0; i < parts.length; i++) { log.info(parts[i]); }", "(for ((var i:int Int(0))) (< i (. parts length)) ((post++ i)) {(call log.info ([] parts i))})"),
            ("char c = 'x';", "(var c:char 'x')"),
            ("try { Thread.sleep(10); } catch (InterruptedException e) { }", "(try {(call Thread.sleep Int(10))} (catch InterruptedException e ))"),
            ("f = new FileWriter(\"out.csv\", true); p = new PrintWriter(f);", "(= f (new FileWriter \"out.csv\" true))\n(= p (new PrintWriter f))"),
            ("Object o = null;", "(var o:Object null)"),
            ("String s = (String) vars.getObject(\"k\");", "(var s:String (cast String (call vars.getObject \"k\")))"),
            ("int n = (int) (Math.random() * 10);", "(var n:int (cast int (* (call Math.random ) Int(10))))"),
            ("if (a) x(); else y();", "(if a (call x ) (call y ))"),
        ],
    );
}

#[test]
fn template_function_expressions() {
    // What `${__groovy(...)}`, `${__jexl3(...)}` and `${__javaScript(...)}` hold once JMeter
    // has substituted the variables inside.
    check(
        g,
        &[
            (
                "org.apache.commons.lang3.SystemUtils.IS_OS_MAC || org.apache.commons.lang3.SystemUtils.IS_OS_LINUX",
                "(|| (. (. (. (. (. org apache) commons) lang3) SystemUtils) IS_OS_MAC) (. (. (. (. (. org apache) commons) lang3) SystemUtils) IS_OS_LINUX))",
            ),
            ("vars.get(\"x\") != null", "(!= (call vars.get \"x\") null)"),
        ],
    );
    check(
        |s| sx(s, Lang::Jexl),
        &[("\"HttpClient4\" != \"Java\"", "(!= \"HttpClient4\" \"Java\")"), ("3 == 3", "(== Int(3) Int(3))")],
    );
    check(js, &[("05 < 10", "(< Int(5) Int(10))"), ("\"NO\" != \"YES\"", "(!= \"NO\" \"YES\")")]);
}
