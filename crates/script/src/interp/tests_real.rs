//! Realistic scripts in each language, run as an element runs them (with `vars`), their
//! printed output compared with what the real interpreter printed: Groovy 3.0.20, BeanShell
//! 2.0b6 and Rhino 1.7.14 from JMeter 5.6.3's `lib/`, each run with `vars` bound to a
//! `new org.apache.jmeter.threads.JMeterVariables()` and the script's text as below.

use crate::host::{Host, HostRef};
use crate::value::Value;
use crate::{Lang, Script, Thrown};
use std::collections::HashMap;

/// `vars` (a map of strings, as `JMeterVariables`) and what the script printed.
#[derive(Default)]
struct Element {
    vars: HashMap<String, String>,
    printed: String,
}

impl Host for Element {
    fn call(&mut self, _target: HostRef, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.as_slice()) {
            ("put", [k, v]) => Ok(self.vars.insert(k.to_string(), v.to_string()).map(Value::from).unwrap_or_default()),
            ("get", [k]) => Ok(self.vars.get(&k.to_string()).cloned().map(Value::from).unwrap_or_default()),
            _ => Err(Thrown::no_method("JMeterVariables", method)),
        }
    }

    fn print(&mut self, text: &str) {
        self.printed.push_str(text);
    }
}

/// Runs a script as an element would and returns what it printed (an error at the end).
fn printed(source: &str, lang: Lang) -> String {
    let script = match Script::compile(source, lang) {
        Ok(s) => s,
        Err(e) => return format!("!compile: {e}"),
    };
    let mut host = Element::default();
    let mut globals = vec![("vars".to_string(), Value::Host(HostRef(1)))];
    match script.run_with_globals(&mut host, &mut globals) {
        Ok(_) => host.printed,
        Err(t) => format!("{}!{t}", host.printed),
    }
}

/// The first line where `got` and `want` differ, with its neighbours.
fn first_difference(got: &str, want: &str) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    let at = (0..g.len().max(w.len())).find(|&i| g.get(i) != w.get(i)).unwrap_or(0);
    format!("line {}: got {:?}, want {:?}", at + 1, g.get(at), w.get(at))
}

#[test]
fn scripts_print_what_the_real_interpreters_print() {
    let mut failures = Vec::new();
    for (name, lang, source, want) in CASES {
        let got = printed(source, *lang);
        if got != *want {
            failures.push(format!("{name}: {}", first_difference(&got, want)));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}

/// Seeds beyond the battery: corners of the lexer and the parser.
const FUZZ_SEEDS: &[(Lang, &str)] = &[
    (Lang::Groovy, "def s = \"a${x}b$y.z\" + '''q''' + /re\\/x/ + $/d$/$\nassert s : \"m\"\n"),
    (Lang::Groovy, "def m = [a: [1, 2], (k): 3]; m?.a?[0]; m*.value; m.a[-1..0]; 1..<5; x ?: y ?. z"),
    (Lang::Groovy, "switch (x) { case 1..2: case ~/a/: case [1]: case { it }: break; default: 1 }"),
    (Lang::JavaScript, "var o = {a: [1, {b: 'c'}]}; function f(x) { return x ? o.a[1].b : null; } f(1) + ''"),
    (Lang::BeanShell, "int[][] a = new int[2][3]; a[1][2] = 7; String[] s = {\"a\", \"b\"}; a[1][2] + s.length"),
    (Lang::Jexl, "vars.get('x') == null && 1 + 2 * 3 > 4 || !empty(y)"),
];

/// A mutation of `src` (deleting, inserting or repeating a piece, or cutting it short), on
/// char boundaries, chosen by `r`.
fn mutate(src: &str, r: &mut u64) -> String {
    const PIECES: &[&str] = &[
        "\"",
        "'",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "$",
        "${",
        "/",
        "\\",
        "-",
        ".",
        "?.",
        "*",
        "0",
        "\n",
        ",",
        ":",
        "->",
        " as ",
        " in ",
        "[-1]",
        "[99]",
        "..",
        "..<",
        "\"\"\"",
        "'''",
        "~",
        "=~",
        "<<",
        ">>>",
        "**",
        "%",
        "99999999999999999999999999999999",
        "-2147483648",
        "9223372036854775807L",
        "1e999",
        "0x",
        "1.",
        ".5",
        "@",
        "#",
        "`",
        "?",
        "?:",
        "!",
        "++",
        "--",
        "=",
        "==",
        "===",
        "<=>",
        "&&",
        "||",
        ";",
        "def ",
        "new ",
        "return ",
        "break ",
        "class ",
        "this.",
        "it",
        "null",
        "/ 0",
        "% 0",
    ];
    let mut next = |n: usize| {
        *r = r.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*r >> 33) as usize) % n.max(1)
    };
    let cuts: Vec<usize> = src.char_indices().map(|(i, _)| i).chain([src.len()]).collect();
    let (x, y) = (cuts[next(cuts.len())], cuts[next(cuts.len())]);
    let a = x.min(y);
    let b = cuts.iter().copied().find(|&c| c >= x.max(y).min(a + 12)).unwrap_or(src.len());
    match next(4) {
        0 => format!("{}{}", &src[..a], &src[b..]),
        1 => format!("{}{}{}", &src[..a], PIECES[next(PIECES.len())], &src[a..]),
        2 => format!("{}{}{}", &src[..b], &src[a..b], &src[b..]),
        _ => src[..a].to_string(),
    }
}

/// Random mutations of every script here are parsed, resolved and run (with a small step
/// budget): each gives a value or an error, never a panic.
#[test]
fn mutated_scripts_never_panic() {
    let seeds = CASES.iter().map(|(_, lang, src, _)| (*lang, *src)).chain(FUZZ_SEEDS.iter().copied());
    let mut r = 0x5eed_u64;
    for (lang, seed) in seeds {
        let mut src = seed.to_string();
        for round in 0..60 {
            // Mostly fresh mutations of the seed, sometimes a mutation of the last mutant.
            src = mutate(if round % 3 == 2 { &src } else { seed }, &mut r);
            let outcome = std::panic::catch_unwind(|| {
                let Ok(script) = Script::compile(&src, lang) else { return };
                let mut host = Element::default();
                let mut cx = crate::Ctx { host: &mut host, lang, state: super::State::default() };
                cx.state.budget = 5_000;
                let mut globals = vec![("vars".to_string(), Value::Host(HostRef(1)))];
                let _ = super::run(&mut cx, &script.code, &mut globals);
            });
            assert!(outcome.is_ok(), "{lang} script panicked:\n{src}");
        }
    }
}

/// (name, language, script, the oracle's standard output).
const CASES: &[(&str, Lang, &str, &str)] = &[
    (
        "b01_arrays",
        Lang::BeanShell,
        r#"String s = "a,b,c";
String[] arr = s.split(",");
for (int i = 0; i < arr.length; i++) {
    print(i + ":" + arr[i]);
}
x = 10;
y = x / 4;
print(y);
z = 10.0 / 4;
print(z);
String joined = "";
for (String p : arr) { joined += p.toUpperCase(); }
print(joined);
vars.put("joined", joined);
print(vars.get("joined"));
int[] nums = new int[3];
nums[0] = 5; nums[2] = 7;
print(nums[0] + nums[1] + nums[2]);
print(nums.length);
count = Integer.parseInt("41") + 1;
print(count);
print("n=" + count + 1);
print(1 + 2 + "n");
String v = vars.get("nothing");
if (v == null) { print("null var"); }
if (v == null || v.equals("")) print("empty or null");
long l = 5000000000L;
print(l * 2);
double d = 1 / 3.0;
print(d);
print(7 % 3);
print(-7 / 2);
print((double) 7 / 2);
print((int) 7.9);
char c = 'x';
print(c);
print(c + 1);
boolean b = "abc".equals("abc");
print(b);
print("abc" == "abc");
String s1 = new String("abc");
print(s1.equals("abc"));
"#,
        // BeanShell 2.0b6
        r#"0:a
1:b
2:c
2
2.5
ABC
ABC
12
3
42
n=421
3n
null var
empty or null
10000000000
0.3333333333333333
1
-3
3.5
7
x
121
true
true
true
"#,
    ),
    (
        "b02_control",
        Lang::BeanShell,
        r#"import java.util.*;
List list = new ArrayList();
list.add("one"); list.add("two");
for (Object o : list) print(o);
Map map = new HashMap();
map.put("k", "v");
print(map.get("k"));
print(map.size());
int i = 0;
while (i < 5) { i++; if (i == 3) continue; if (i == 4) break; }
print(i);
String code = "404";
switch (code) { case "200": print("ok"); break; case "404": print("nf"); break; default: print("x"); }
try {
    Integer.parseInt("x1");
} catch (NumberFormatException e) {
    print("bad: " + e.getMessage());
}
try {
    throw new Exception("boom");
} catch (Exception e) {
    print(e.getMessage());
} finally { print("fin"); }
String r = i > 2 ? "big" : "small";
print(r);
StringBuilder sb = new StringBuilder();
for (int j = 0; j < 3; j++) sb.append(j).append(",");
sb.setLength(sb.length() - 1);
print(sb.toString());
int add(int a, int b) { return a + b; }
print(add(2, 3));
String up(String s) { return s.toUpperCase(); }
print(up("q"));
undeclared = "hello";
print(undeclared.length());
Integer boxed = 5;
print(boxed.equals(5));
print(Math.max(1, 2));
print(String.valueOf(3.0));
print(Double.parseDouble("2.50") * 2);
print(String.format("%03d|%.1f|%s", new Object[] { 7, 2.25, "z" }));
print(Integer.toString(255, 16));
print(Long.valueOf("12").intValue() + 1);
"#,
        // BeanShell 2.0b6
        r#"one
two
v
1
4
nf
bad: For input string: "x1"
boom
fin
big
0,1,2
5
Q
5
true
2
3.0
5.0
007|2.3|z
ff
13
"#,
    ),
    (
        "g01_vars_gstring",
        Lang::Groovy,
        r#"def user = "alice"
int n = 3
vars.put("user", user)
vars.put("greeting", "Hello ${vars.get('user')}, you have ${n + 1} items")
vars.put("count", n.toString())
vars.put("plain", 'no $interp here')
println vars.get("greeting")
println vars.get("plain")
println vars.get("missing")
println vars.get("missing") == null
println "len=${vars.get('greeting').length()} ${user.size()}"
def total = vars.get("count") as int
println total + 1
println "x" + 1 + 2
println 1 + 2 + "x"
"#,
        // Groovy 3.0.20
        r#"Hello alice, you have 4 items
no $interp here
null
true
len=29 5
4
x12
3x
"#,
    ),
    (
        "g02_if_oneline",
        Lang::Groovy,
        r#"def c = vars.get("nothing")
def r
if (c) r = 'a' else r = 'b'
println r
if (c == null) println 'null!' else println 'not null'
def s = "5"
if (s.isInteger() && s.toInteger() > 3) { println "big" } else if (s == "5") { println "five" } else { println "other" }
def x = 10
if (x > 5)
    println "gt5"
else
    println "le5"
println(x > 5 ? "yes" : "no")
println(vars.get("nope") ?: "default")
println("" ?: "empty-is-false")
println(0 ?: "zero-is-false")
println([] ?: "emptylist")
"#,
        // Groovy 3.0.20
        r#"b
null!
big
gt5
yes
default
empty-is-false
zero-is-false
emptylist
"#,
    ),
    (
        "g03_loops",
        Lang::Groovy,
        r#"def sb = ""
for (int i = 0; i < 5; i++) { sb += i }
println sb
def l = []
for (x in [3, 1, 2]) l << x * 2
println l
def i = 0
while (i < 3) { i++ }
println i
(1..3).each { println "it=$it" }
3.times { print it }
println()
for (e in [a: 1, b: 2]) { println "${e.key}=${e.value}" }
def m = [a: 1, b: 2]
m.each { k, v -> println "$k -> $v" }
for (String s : ["p", "q"]) { print s }
println ""
1.upto(3) { print it }
println ""
10.step(0, -3) { print it + "," }
println ""
for (c in "abc") print c.toUpperCase()
println ""
"#,
        // Groovy 3.0.20
        r#"01234
[6, 2, 4]
3
it=1
it=2
it=3
012
a=1
b=2
a -> 1
b -> 2
pq
123
10,7,4,1,
ABC
"#,
    ),
    (
        "g04_closures",
        Lang::Groovy,
        r#"def counter = 0
def inc = { counter++ }
inc(); inc()
println counter
def add = { a, b = 10 -> a + b }
println add(1)
println add(1, 2)
def mk = { n -> { x -> x * n } }
def triple = mk(3)
println triple(5)
def nums = [5, 3, 8, 1]
println nums.collect { it * 2 }
println nums.findAll { it > 2 }
println nums.inject(0) { acc, v -> acc + v }
println nums.find { it > 4 }
println nums.sort()
println nums.max() + nums.min()
println nums.sum()
println nums.join("-")
def m = [b: 2, a: 1]
println m.collect { k, v -> "$k=$v" }.join("&")
println m.findAll { it.value > 1 }
println m.inject(0) { acc, e -> acc + e.value }
println m.keySet()
println m.values()
println m.sort()
println m.containsKey('a')
println nums.withIndex().collect { v, i -> "$i:$v" }
println nums*.toString()
println nums.collect { it.toString() }.class.simpleName
"#,
        // Groovy 3.0.20
        r#"2
11
3
15
[10, 6, 16, 2]
[5, 3, 8]
17
5
[1, 3, 5, 8]
9
17
1-3-5-8
b=2&a=1
[b:2]
3
[b, a]
[2, 1]
[a:1, b:2]
true
[0:1, 1:3, 2:5, 3:8]
[1, 3, 5, 8]
ArrayList
"#,
    ),
    (
        "g05_json",
        Lang::Groovy,
        r#"import groovy.json.JsonSlurper
def text = '{"data":{"items":[{"id":17,"name":"a","price":1.5},{"id":18,"name":"b","price":2}],"total":2},"token":"abc","ok":true,"n":null}'
def json = new JsonSlurper().parseText(text)
println json.data.items[0].id
println json.data.items.size()
println json.data.items*.id
println json.data.items.find { it.name == 'b' }.price
println json?.data?.missing?.x
println json.token
println json.ok
println json.n
println json.data.items[0].price.class.name
println json.data.items[1].price.class.name
println json.data.items[0].id.class.name
vars.put("id", json.data.items[0].id.toString())
println vars.get("id")
println json.data.items.collect { it.id }.sum()
println json.data.total == 2
println json.data.items[-1].name
println json.keySet()
def arr = new JsonSlurper().parseText('[1, 2, "x"]')
println arr
println arr.size()
println json.data.items[5]
"#,
        // Groovy 3.0.20
        r#"17
2
[17, 18]
2
null
abc
true
null
java.math.BigDecimal
java.lang.Integer
java.lang.Integer
17
35
true
b
[data, token, ok, n]
[1, 2, x]
3
null
"#,
    ),
    (
        "g06_numbers",
        Lang::Groovy,
        r#"println 7 / 2
println 7.intdiv(2)
println 10 / 4 * 2
println 1 / 3
println 2 ** 10
println 2 ** -1
println 7 % 3
println(-7 % 3)
println 1.5 + 1
println 0.1 + 0.2
println 0.1d + 0.2d
println 3.0 * 2
println 10.0 / 4
println Integer.parseInt("42") + 1
println Long.parseLong("9000000000") * 2
println "3.7".toDouble().round()
println Math.round(2.5)
println Math.round(-2.5)
println Math.round(2.4f)
println((int) 3.99)
println 3.99 as int
println "12".toInteger() / 5
println 5.0 == 5
println 5 == 5L
println Integer.MAX_VALUE + 1
println 1000000 * 1000000
println 1000000L * 1000000
println 2.5.round()
println Math.abs(-3)
println Math.max(3, 7)
println 10.0 / 3
println 1.0e-3 * 2
println((100 / 7) as double)
println ((double) 1 / 3)
println String.format("%.2f", 3.14159)
println String.format("%05d", 42)
println 3.14159.round(2)
"#,
        // Groovy 3.0.20
        r#"3.5
3
5.0
0.3333333333
1024
0.5
1
-1
2.5
0.3
0.30000000000000004
6.0
2.5
43
18000000000
4
3
-2
2
3
3
2.4
true
true
-2147483648
-727379968
1000000000000
3
3
7
3.3333333333
0.0020
14.2857142857
0.3333333333333333
3.14
00042
3.14
"#,
    ),
    (
        "g07_strings",
        Lang::Groovy,
        r#"def s = "  Hello, World  "
println s.trim()
println s.trim().toUpperCase()
println s.contains("World")
println s.indexOf("o")
println s.trim().substring(0, 5)
println s.trim().split(", ")
println s.trim().split(",").length
println s.replace("l", "L")
println s.replaceAll(/o/, "0")
println "a,b,,c".split(",")
println "a,b,,c".tokenize(",")
println "abc".reverse()
println "abc" * 3
println "abc"[1]
println "abcdef"[1..3]
println "abcdef"[-2..-1]
println "abc".padLeft(6, "*")
println "x".center(5, "-")
println "hello".capitalize()
println "Hello".startsWith("He") && "Hello".endsWith("lo")
println "a-b-c".lastIndexOf("-")
println "abc".equals("abc")
println "abc" == "abc"
println "ABC".equalsIgnoreCase("abc")
println "abc".compareTo("abd")
println "12ab".isNumber()
println "line1\nline2".readLines()
println "a b  c".split(/\s+/)
println "%s-%s".formatted("a","b")
def sb = new StringBuilder()
sb.append("a").append(1).append(true)
println sb.toString()
println sb.length()
println "abc".charAt(1)
println "Mississippi".count("ss")
println "a" < "b"
println "hello world".split(" ").collect { it.capitalize() }.join(" ")
println "42".padLeft(5, "0")
println "abc".minus("b")
println "abc" - "c"
"#,
        // Groovy 3.0.20
        r#"Hello, World
HELLO, WORLD
true
6
Hello
[Hello, World]
2
  HeLLo, WorLd  
  Hell0, W0rld  
[a, b, , c]
[a, b, c]
cba
abcabcabc
b
bcd
ef
***abc
--x--
Hello
true
3
true
true
true
-1
false
[line1, line2]
[a, b, c]
a-b
a1true
6
b
2
true
Hello World
00042
ac
ab
"#,
    ),
    (
        "g08_regex",
        Lang::Groovy,
        r#"def body = 'order_id=12345&token=abc-999'
def m = body =~ /order_id=(\d+)/
if (m) println "found " + m[0][1]
println m.size()
println ((body =~ /token=([a-z]+)-(\d+)/)[0][2])
println body ==~ /order_id=\d+.*/
println body ==~ /\d+/
def m2 = body =~ /nothing(\d)/
if (m2) println "yes" else println "no"
def m3 = (body =~ /(\d+)/)
if (m3.find()) println "first: " + m3.group(1)
println "a1b22c333".findAll(/\d+/)
println "a1b22c333".find(/\d+/)
def p = java.util.regex.Pattern.compile("id=(\\d+)")
def mm = p.matcher("x id=7 id=8")
while (mm.find()) { println mm.group(1) }
println "2024-01-15".replaceAll(/(\d+)-(\d+)-(\d+)/, '$3/$2/$1')
println "a.b.c".split("\\.")
def all = ("k1=v1;k2=v2" =~ /(\w+)=(\w+)/).collect { it[1] + ":" + it[2] }
println all
println "ABC" =~ /b/ ? "t" : "f"
println(("ABC" =~ /(?i)b/) as boolean)
"#,
        // Groovy 3.0.20
        r#"found 12345
1
999
true
false
no
first: 12345
[1, 22, 333]
1
7
8
15/01/2024
[a, b, c]
[k1:v1, k2:v2]
f
true
"#,
    ),
    (
        "g09_try_switch",
        Lang::Groovy,
        r#"try {
    Integer.parseInt("abc")
} catch (NumberFormatException e) {
    println "NFE: " + e.getMessage()
}
try {
    def x = null
    x.foo()
} catch (Exception e) {
    println e.getClass().getSimpleName()
}
try {
    throw new RuntimeException("custom")
} catch (e) {
    println e.message
} finally {
    println "finally"
}
def code = "404"
switch (code) {
    case "200": println "ok"; break
    case ["404", "410"]: println "gone"; break
    default: println "other"
}
switch (15) {
    case 0..9: println "small"; break
    case 10..99: println "medium"; break
    default: println "large"
}
switch ("abc") { case ~/a.*/: println "re"; break }
switch (3) { case Integer: println "int"; break; case String: println "str" }
def grade = { s -> switch (s) { case { it > 90 }: return "A"; default: return "B" } }
println grade(95)
println grade(10)
try { [1,2][5].foo } catch (e) { println e.class.name }
try { println([1,2].get(5)) } catch (e) { println e.class.name + ": " + e.message }
try { def m = [:]; m.a.b } catch (e) { println e.class.name }
"#,
        // Groovy 3.0.20
        r#"NFE: For input string: "abc"
NullPointerException
custom
finally
gone
medium
re
int
A
B
java.lang.NullPointerException
java.lang.IndexOutOfBoundsException: Index 5 out of bounds for length 2
java.lang.NullPointerException
"#,
    ),
    (
        "g10_functions",
        Lang::Groovy,
        r#"def fact(int n) { n <= 1 ? 1 : n * fact(n - 1) }
println fact(10)
String greet(String name, String greeting = "Hi") { return "$greeting, $name" }
println greet("bob")
println greet("bob", "Yo")
def noReturn(x) { if (x > 0) { "pos" } else { "neg" } }
println noReturn(1)
println noReturn(-1)
def lst(a, b) { [a, b] }
println lst(1, 2)
def (p, q) = lst(3, 4)
println p + q
def fib(n) { n < 2 ? n : fib(n - 1) + fib(n - 2) }
println((0..10).collect { fib(it) })
def usesVars() { vars.put("fromfn", "yes"); return vars.get("fromfn") }
println usesVars()
"#,
        // Groovy 3.0.20
        r#"3628800
Hi, bob
Yo, bob
pos
neg
[1, 2]
7
[0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55]
yes
"#,
    ),
    (
        "g11_equality",
        Lang::Groovy,
        r#"println 1 == 1.0
println 1.equals(1.0)
println 1L == 1
println 1L.equals(1)
println "1" == 1
println 'a' == "a"
def g = "x${1}"
println g == "x1"
println([1, 2] == [1, 2])
println([a: 1] == [a: 1])
println null == null
println 1.0 == 1.00
println 1.0.equals(1.00)
println 0.1 + 0.2 == 0.3
println 0.1d + 0.2d == 0.3d
println 'b' > 'a'
println 3 <=> 5
println "10" < "9"
println 10 < 9
println((int) "5".charAt(0))
println 2 == 2.0f
def s1 = new String("ab"); def s2 = "ab"
println s1 == s2
println([1,2,3].indexOf(2))
"#,
        // Groovy 3.0.20
        r#"true
false
true
false
false
true
true
true
true
true
true
false
true
false
true
-1
true
false
53
true
true
1
"#,
    ),
    (
        "g12_dates_random",
        Lang::Groovy,
        r#"import java.text.SimpleDateFormat
def sdf = new SimpleDateFormat("yyyy-MM-dd")
sdf.setTimeZone(TimeZone.getTimeZone("UTC"))
println sdf.format(new Date(0))
def d = sdf.parse("2024-02-28")
println d.getTime()
def sdf2 = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss"); sdf2.setTimeZone(TimeZone.getTimeZone("UTC")); println sdf2.format(new Date(86400000L * 365))
def r = new Random(42)
println r.nextInt(100)
println r.nextInt(100)
def u = UUID.randomUUID().toString()
println u.length()
println u ==~ /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/
println UUID.nameUUIDFromBytes("abc".getBytes()).toString()
def now = System.currentTimeMillis()
println now > 1600000000000L
println (new Random(7).nextDouble() < 1)
def cal = Calendar.getInstance(TimeZone.getTimeZone("UTC")); cal.setTimeInMillis(0); cal.add(Calendar.DAY_OF_MONTH, 1)
println cal.getTimeInMillis()
println java.time.LocalDate.of(2024, 1, 31).plusMonths(1)
println java.time.LocalDate.parse("2024-03-01").minusDays(1).toString()
"#,
        // Groovy 3.0.20
        r#"1970-01-01
1709078400000
1971-01-01T00:00:00
30
63
36
true
90015098-3cd2-3fb0-9696-3f7d28e17f72
true
true
86400000
2024-02-29
2024-02-29
"#,
    ),
    (
        "g13_plus_equals_perf",
        Lang::Groovy,
        r#"def s = ""
for (int i = 0; i < 10000; i++) { s += "x" }
println s.length()
def sb = new StringBuilder()
10000.times { sb << it % 10 }
println sb.length()
def l = []
(1..10000).each { l << it }
println l.size()
println l.sum()
"#,
        // Groovy 3.0.20
        r#"10000
10000
10000
50005000
"#,
    ),
    (
        "g14_misc",
        Lang::Groovy,
        r#"def m = [:]
m["a"] = 1
m.b = [1, 2]
m.put("c", "x")
println m
println m.size()
println m.getOrDefault("z", "d")
println m.a
m.remove("a")
println m
def list = new ArrayList<String>()
list.add("a"); list.add("b")
println list
println list.size()
println list.isEmpty()
println list.get(0)
println list[1]
println list.contains("b")
def arr = ["x", "y"] as String[]
println arr.length
println arr.size()
println arr.join("+")
def nested = [a: [b: [c: 42]]]
println nested.a.b.c
println nested?.a?.x?.c
println nested.a.b.c.class.simpleName
def (first, second) = "k=v".split("=")
println "$first / $second"
def x = 5
x += 2; x *= 3; x -= 1
println x
def y = x++ + ++x
println y
println x
println !true
println !!"a"
println !!""
println(!vars.get("q"))
def map = [(1+1): "two", "k": "v"]
println map
println map[2]
println "${m.b.size()} items"
def multi = """line1
line2 ${x}"""
println multi
def single = '''raw
$x'''
println single
println 'it\'s'
println "tab\there"
"#,
        // Groovy 3.0.20
        r#"[a:1, b:[1, 2], c:x]
3
d
1
[b:[1, 2], c:x]
[a, b]
2
false
a
b
true
2
2
x+y
42
null
Integer
k / v
20
42
22
false
true
false
true
[2:two, k:v]
two
2 items
line1
line2 22
raw
$x
it's
tab	here
"#,
    ),
    (
        "g15_sampleresult_like",
        Lang::Groovy,
        r#"def codes = ["200", "201", "404", "500"]
def ok = codes.count { it.startsWith("2") }
println "ok=$ok"
def failures = codes.findAll { !it.startsWith("2") }.collect { "code " + it }
println failures
def pct = (ok / codes.size() * 100).round(1)
println pct
println ok / codes.size()
def avg = [120, 80, 95].sum() / 3
println avg
def avgd = [120, 80, 95].sum() / 3.0
println avgd
println ((123.456 as BigDecimal).setScale(2, java.math.RoundingMode.HALF_UP))
println ([1.1, 2.2].sum())
println (10.5 - 0.5)
println 1.10 + 2.20
println 2 * 1.5
println 2.0 * 1.5
println 3 / 1.5
println 100.0 / 3.0
println (1/3 * 3)
println ((long) 5 / 2)
println 5L / 2
println 9.0.intValue()
println Double.parseDouble("1.50")
println Double.valueOf("2") + 1
println (1.5d * 2)
println Float.parseFloat("1.1")
"#,
        // Groovy 3.0.20
        r#"ok=2
[code 404, code 500]
50.0
0.5
98.3333333333
98.3333333333
123.46
3.3
10.0
3.30
3.0
3.00
2
33.3333333333
0.9999999999
2.5
2.5
9
1.5
3.0
3.0
1.1
"#,
    ),
    (
        "g16_assert",
        Lang::Groovy,
        r#"try { def a = 1; assert a == 2 : "a must be 2" } catch (AssertionError e) { println e.getMessage() }
try { assert 1 == 2 : "lit" } catch (AssertionError e) { println e.getMessage() }
try { def s = null; assert s : "null s" } catch (AssertionError e) { println e.getMessage() }
def code = "500"
"#,
        // Groovy 3.0.20
        r#"a must be 2. Expression: (a == 2). Values: a = 1
lit. Expression: (1 == 2)
null s. Expression: s. Values: s = null
"#,
    ),
    (
        "j01_basics",
        Lang::JavaScript,
        r#"var a = 1;
var b = "2";
print(a + b);
print(a + parseInt(b));
print(10 / 4);
print(10 / 5);
print(7 % 3);
print(0.1 + 0.2);
var s = "x" + 1.5 + 2;
print(s);
var arr = [1, 2, 3];
print(arr.length);
print(arr.join("-"));
arr.push(4);
print(arr);
print(arr.indexOf(3));
var o = {name: "n", n: 2, nested: {v: true}};
print(o.name + o.n);
print(o.nested.v);
print(o["name"]);
print(o.missing == null);
print(vars.get("nothing") == null);
function f(x) { return x * 2; }
print(f(21));
var sum = 0;
for (var i = 0; i < arr.length; i++) { sum += arr[i]; }
print(sum);
var j = JSON.parse('{"items":[{"id":7},{"id":8}],"ok":true}');
print(j.items[1].id);
print(j.items.length);
print(j.ok);
print(JSON.stringify({a: 1, b: [1, "x"]}));
vars.put("id", "" + j.items[0].id);
print(vars.get("id"));
vars.put("n", String(3 * 2));
print(vars.get("n"));
print("abc".toUpperCase() + "ABC".toLowerCase());
print("a,b".split(",").length);
print("abc".substring(1));
print("abc".indexOf("c"));
print("  t ".trim() + "|");
print(Math.floor(2.7) + Math.ceil(2.1));
print(Math.round(2.5));
print(parseFloat("3.5") * 2);
print(1 / 3);
print(100 * 1.1);
print(2 == "2");
print(2 === "2");
print(!!"" + " " + !!"a");
if (o.missing) print("t"); else print("f");
var x = o.missing || "dflt";
print(x);
print(isNaN(parseInt("x")));
print(parseInt("12px"));
print(String(123).length);
print(typeof 1 + typeof "s" + typeof true + typeof null + typeof f);
var c = 0; while (c < 3) c++; print(c);
for (var k in {p: 1, q: 2}) print(k);
print([3,1,2].sort());
print(123456789012);
print(-0.5);
print(5 / 0);
var str = vars.get("id"); print(str + 1); print(str.length());
"#,
        // Rhino 1.7.14
        r#"12
3
2.5
2
1
0.30000000000000004
x1.52
3
1-2-3
1,2,3,4
2
n2
true
n
true
true
42
10
8
2
true
{"a":1,"b":[1,"x"]}
7
6
ABCabc
2
bc
2
t|
5
3
7
0.3333333333333333
110.00000000000001
true
false
false true
f
dflt
true
12
3
numberstringbooleanobjectfunction
3
p
q
1,2,3
123456789012
-0.5
Infinity
71
1
"#,
    ),
];
