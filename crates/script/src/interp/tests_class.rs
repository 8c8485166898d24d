//! Classes declared in Groovy scripts, run as an element runs them: each script's printed output
//! is what Groovy 3.0.20 (JMeter 5.6.3's `lib/groovy-3.0.20.jar`, `groovy.ui.GroovyMain`)
//! printed for the same text.

use crate::host::{Host, HostRef};
use crate::value::Value;
use crate::{Lang, Script, Thrown};

#[derive(Default)]
struct Printer {
    printed: String,
}

impl Host for Printer {
    fn call(&mut self, _target: HostRef, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        Err(Thrown::no_method("Host", method))
    }

    fn print(&mut self, text: &str) {
        self.printed.push_str(text);
    }
}

/// What a Groovy script printed (an error at the end, after `!`).
fn printed(source: &str) -> String {
    let script = match Script::compile(source, Lang::Groovy) {
        Ok(s) => s,
        Err(e) => return format!("!compile: {e}"),
    };
    let mut host = Printer::default();
    match script.run(&mut host, &[]) {
        Ok(_) => host.printed,
        Err(t) => format!("{}!{t}", host.printed),
    }
}

/// (name, script, what Groovy printed)
const CASES: &[(&str, &str, &str)] = &[
    (
        "fields_ctors",
        r#"class Point {
    int x
    int y = 2
    static int count = 0
    def label
    Point() { count++ }
    Point(int x, int y) { this(); this.x = x; this.y = y }
    int sum() { x + y }
    static Point origin() { new Point(0, 0) }
    String toString() { "P($x,$y)" }
}
def p = new Point(3, 4)
println "${p} ${p.sum()} ${Point.origin()} ${Point.count} ${new Point().y} ${p.label}"
println p.x + p.y
println "x=" + p
"#,
        "P(3,4) 7 P(0,0) 2 2 null\n7\nx=P(3,4)\n",
    ),
    (
        "extends_super",
        r#"class Animal {
    String name
    Animal(String name) { this.name = name }
    String speak() { "..." }
    String describe() { "$name says ${speak()}" }
    String toString() { "Animal($name)" }
}
class Dog extends Animal {
    int legs = 4
    Dog(String name) { super(name) }
    String speak() { "Woof" }
    String toString() { "Dog:" + super.toString() }
}
def animals = [new Animal("cat"), new Dog("rex")]
animals.each { println it.describe() }
println animals[1]
println animals[1].legs
println(animals[1] instanceof Animal)
println(animals[0] instanceof Dog)
"#,
        "cat says ...\nrex says Woof\nDog:Animal(rex)\n4\ntrue\nfalse\n",
    ),
    (
        "named_props",
        r#"class Person {
    String name
    int age
    def tags = []
    String getName() { name.toUpperCase() }
    void setAge(int a) { age = a * 2 }
}
def r = new Person(name: 'ann', age: 5)
println r.name
println r.age
r.age = 10
println r.age
r.tags << 'a'
r.tags << 'b'
println r.tags
println r.getAge()
r.setName('bob')
println r.name
println r.class.simpleName
"#,
        "ANN\n10\n20\n[a, b]\n20\nBOB\nPerson\n",
    ),
    (
        "comparator_runnable",
        r#"class ByLength implements Comparator<String> {
    int compare(String a, String b) { a.length() <=> b.length() }
}
class Task implements Runnable {
    def log = []
    void run() { log << 'ran' }
}
def words = ['ccc', 'a', 'bb']
Collections.sort(words, new ByLength())
println words
println(['dddd', 'ee', 'f'].sort(new ByLength()))
def t = new Task()
t.run()
t.run()
println t.log
"#,
        "[a, bb, ccc]\nnull\n[ran, ran]\n",
    ),
    (
        "static_and_methods",
        r#"class Util {
    static final String PREFIX = "id-"
    static int calls
    static String make(int n) { calls++; PREFIX + pad(n) }
    private static String pad(int n) { String.format("%04d", n) }
}
def ids = (1..3).collect { Util.make(it) }
println ids
println Util.calls
println Util.PREFIX
def twice(x) { x * 2 }
println twice(21)
println after(1)
def after(y) { y + 100 }
"#,
        "[id-0001, id-0002, id-0003]\n3\nid-\n42\n101\n",
    ),
    (
        "inner_use",
        r#"class Item {
    String sku
    BigDecimal price
    int qty = 1
    BigDecimal total() { price * qty }
}
class Cart {
    List<Item> items = []
    Cart add(String sku, price, int qty = 1) {
        items << new Item(sku: sku, price: price, qty: qty)
        this
    }
    BigDecimal total() { items.sum { it.total() } ?: 0 }
    String toJson() { groovy.json.JsonOutput.toJson(items.collect { [sku: it.sku, qty: it.qty] }) }
}
def c = new Cart().add('a', 1.5).add('b', 2.25, 2)
println c.total()
println c.toJson()
println c.items.size()
"#,
        "6.00\n[{\"sku\":\"a\",\"qty\":1},{\"sku\":\"b\",\"qty\":2}]\n2\n",
    ),
    (
        "equals_closure_this",
        r#"class Money implements Comparable<Money> {
    long cents
    Money(long c) { cents = c }
    int compareTo(Money o) { cents <=> o.cents }
    String toString() { sprintf('%d.%02d', (cents / 100) as long, cents % 100) }
}
class Counter {
    int n = 0
    def bump = { -> n++ }
    def times(int k) { k.times { bump() }; this }
}
println(new Money(150) == new Money(150))
println(new Money(150) < new Money(200))
println([new Money(300), new Money(5), new Money(120)].sort())
println new Counter().times(3).n
println new Counter().times(2).n
"#,
        "true\ntrue\n[0.05, 1.20, 3.00]\n3\n2\n",
    ),
    (
        "recursion",
        r#"class R {
    int depth(int n) { depth(n + 1) }
}
try {
    new R().depth(0)
} catch (StackOverflowError e) {
    println "overflow caught"
}
println "after"
"#,
        "overflow caught\nafter\n",
    ),
    (
        "missing",
        r#"class A {
    def x = 1
    def useLog() { log.info("x") }
}
def a = new A()
try { a.y } catch (MissingPropertyException e) { println "missing y" }
try { a.nope() } catch (MissingMethodException e) { println "missing nope" }
try { new A(1, 2) } catch (GroovyRuntimeException e) { println "no ctor" }
try { a.useLog() } catch (MissingPropertyException e) { println "no log in class" }
println a.x
"#,
        "missing y\nmissing nope\nno ctor\nno log in class\n1\n",
    ),
    (
        "interface",
        r#"interface Shape {
    double area()
}
class Sq implements Shape {
    double s
    double area() { s * s }
}
class Circle implements Shape {
    double r
    double area() { 3 * r * r }
}
def shapes = [new Sq(s: 2), new Circle(r: 1)]
println shapes*.area()
println shapes.every { it instanceof Shape }
println shapes.sum { it.area() }
"#,
        "[4.0, 3.0]\ntrue\n7.0\n",
    ),
    (
        "misc",
        r#"class Box {
    private items = []
    final String tag
    Box(String tag = 'none') { this.tag = tag }
    def add(Object... xs) { xs.each { items << it }; this }
    def size() { items.size() }
    static Box of(String t) { new Box(t).add(t) }
    def each(Closure c) { items.each { c(it) } }
    def describe() { items.collect { "$tag:$it" }.join(',') }
}
def b = new Box().add(1, 2, 3)
println b.size()
println b.tag
println Box.of('q').describe()
println b.getClass().getSimpleName()
println Box.class.name
def seen = []
b.each { seen << it * 10 }
println seen
println b.describe()
println(b == b)
println(new Box() == new Box())
"#,
        "3\nnone\nq:q\nBox\nBox\n[10, 20, 30]\nnone:1,none:2,none:3\ntrue\nfalse\n",
    ),
    (
        "vars_in_class",
        r#"class Token {
    static String sign(String body, String key) {
        def sum = 0
        (body + key).each { sum = (sum * 31 + (it as char)) % 1000003 }
        String.format('%06d', sum)
    }
}
class Req {
    Map headers = [:]
    String body
    Req header(String k, String v) { headers[k] = v; this }
    String render() { headers.collect { k, v -> "$k=$v" }.sort().join('&') + '|' + body }
}
def r = new Req(body: '{"a":1}').header('x', '1').header('b', '2')
println r.render()
println Token.sign(r.body, 'secret')
"#,
        "b=2&x=1|{\"a\":1}\n012990\n",
    ),
];

#[test]
fn declared_classes_print_what_groovy_prints() {
    let mut failures = Vec::new();
    for (name, source, want) in CASES {
        let got = printed(source);
        if got != *want {
            failures.push(format!("{name}:\n got: {got:?}\nwant: {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What stampede cannot run is refused when the script loads, naming the construct and where.
#[test]
fn classes_outside_the_subset_are_refused_at_load() {
    for (src, lang, want) in [
        (
            "class H extends IoHandlerAdapter {}",
            Lang::Groovy,
            "line 1, column 17: class `IoHandlerAdapter` is not available in stampede's scripts",
        ),
        (
            "class L implements MessageListener { void onMessage(m) {} }",
            Lang::Groovy,
            "line 1, column 20: class `MessageListener` is not available",
        ),
        (
            "class A { static f() { x } }",
            Lang::Groovy,
            "`x` in a static member of `A` is no local variable, static field or class",
        ),
        ("if (true) {\n class A {}\n}", Lang::Groovy, "line 2, column 2: the class `A` is declared inside a block"),
        ("class A {}\nclass A {}", Lang::Groovy, "line 2, column 1: the class `A` is declared twice"),
        ("class A extends B {}\nclass B extends A {}", Lang::Groovy, "extends itself"),
        ("interface I {}\nnew I()", Lang::Groovy, "an interface cannot be instantiated"),
        ("enum Color { RED }", Lang::Groovy, "`enum` declarations are not supported"),
        (
            "class A { A() { def x = 1; super() } }",
            Lang::Groovy,
            "`super(...)` is only the first statement of a constructor",
        ),
        ("class A { def f() { Runtime.getRuntime() } }", Lang::Groovy, "process execution is not allowed"),
        ("class A { def f() { x.getClass().getMethod('a') } }", Lang::Groovy, "reflection is not allowed"),
        ("class A { }", Lang::BeanShell, "`class` declarations are supported in Groovy scripts only"),
        ("class A { }", Lang::JavaScript, "`class` declarations are supported in Groovy scripts only"),
    ] {
        match Script::compile(src, lang) {
            Ok(_) => panic!("{src}: loaded"),
            Err(e) => assert!(e.to_string().contains(want), "{src}: {e}"),
        }
    }
}

/// Static fields belong to the compiled script, as the class JMeter's script cache keeps:
/// every execution (and user) sees what the last one left.
#[test]
fn static_fields_outlive_one_execution() {
    let script = Script::compile("class C { static int n = 10 }\nC.n++\nC.n", Lang::Groovy).expect("loads");
    let mut host = Printer::default();
    let runs: Vec<String> =
        (0..3).map(|_| script.run(&mut host, &[]).map(|v| v.to_string()).unwrap_or_default()).collect();
    assert_eq!(runs, ["11", "12", "13"]);
}

#[test]
fn static_counter_without_initializer_counts_across_executions() {
    let script = Script::compile(
        "class Counter {\n    static int n\n    static int next() { ++n }\n}\nclass K { static final String KEY = 'k' }\nCounter.next()",
        Lang::Groovy,
    )
    .expect("loads");
    let mut host = Printer::default();
    let runs: Vec<String> =
        (0..3).map(|_| script.run(&mut host, &[]).map(|v| v.to_string()).unwrap_or_else(|e| e.to_string())).collect();
    assert_eq!(runs, ["1", "2", "3"]);
}

/// A list or map that holds itself prints as Groovy prints it, and one nested without end (or
/// through another) is `StackOverflowError` inside the script, never a Rust stack overflow or a
/// mutex locked twice.
#[test]
fn self_holding_and_deep_containers_print_or_overflow_inside_the_script() {
    let out = printed("class A { String toString() { 'a' } }\ndef l = [new A()]\nl << l\nprint \"$l\"");
    assert_eq!(out, "[a, (this Collection)]");
    let out = printed("def l = [1]\nl << l\nprint \"$l\"");
    assert_eq!(out, "[1, (this Collection)]");
    let out = printed("def m = [k: 1]\nm.s = m\nprint \"$m\"");
    assert_eq!(out, "[k:1, s:(this Map)]");
    let src = "class A {}\ndef l = [new A()]\nfor (i in 0..<1000) { l = [new A(), l] }\ntry { \"$l\"; print 'no' } catch (StackOverflowError e) { print 'caught' }";
    assert_eq!(printed(src), "caught");
    let src = "def l = [1]\nfor (i in 0..<1000) { l = [l] }\ntry { \"$l\"; print 'no' } catch (StackOverflowError e) { print 'caught' }";
    assert_eq!(printed(src), "caught");
    let src =
        "def a = [1]; def b = [a]; a << b\ntry { \"$a\"; print 'no' } catch (StackOverflowError e) { print 'caught' }";
    assert_eq!(printed(src), "caught");
}

/// Groovy shows an object of a declared class by its `toString()` wherever it is printed.
#[test]
fn objects_print_by_their_to_string_inside_lists_and_maps() {
    let src = "class F { String toString() { 'f' } }\ndef f = new F()\nprint([f].toString()); print ' '\nprint String.valueOf([f]); print ' '\nprint(([f] as String)); print ' '\nprint \"${[a: f]}\"; print ' '\nprint \"${[[f]]}\"; print ' '\nprint((f as String))";
    assert_eq!(printed(src), "[f] [f] [f] [a:f] [[f]] f");
}

/// A chain of `extends` deeper than 64 is a load error naming the class and its line, before
/// construction could recurse through it on the Rust stack.
#[test]
fn an_extends_chain_past_64_levels_is_a_load_error() {
    let chain = |n: usize| {
        let mut src = String::from("class C0 {}\n");
        for i in 1..=n {
            src.push_str(&format!("class C{i} extends C{} {{}}\n", i - 1));
        }
        src
    };
    assert!(Script::compile(&chain(60), Lang::Groovy).is_ok());
    let e = Script::compile(&chain(70), Lang::Groovy).expect_err("refused").to_string();
    assert!(e.contains("extends a chain of more than 64 classes") && e.contains("line"), "{e}");
}

/// Containers nested far deeper than the stack (within the memory budget) are dropped one
/// level at a time: a recursive drop aborted the process.
#[test]
fn containers_nested_100000_deep_are_dropped_without_overflowing_the_stack() {
    let src = "def l = [1]\nfor (i in 0..<100000) { l = [l] }\ndef m = [k: 1]\nfor (i in 0..<100000) { m = [k: m] }\nprint 'ok'";
    assert_eq!(printed(src), "ok");
}

/// A chain of objects 100,000 long (within the memory budget) is dropped one level at a
/// time: a recursive drop aborted the process.
#[test]
fn a_chain_of_objects_100000_long_is_dropped_without_overflowing_the_stack() {
    let src =
        "class N { N next }\ndef n = new N()\nfor (i in 0..<100000) { def m = new N(); m.next = n; n = m }\nprint 'ok'";
    assert_eq!(printed(src), "ok");
}
