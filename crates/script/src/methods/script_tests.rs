//! Methods as scripts call them: parsed and run, closures included.

use crate::{Lang, NoHost, Script};

fn run(lang: Lang, src: &str) -> String {
    let script = Script::compile(src, lang).unwrap_or_else(|e| panic!("{src}: {e}"));
    match script.run(&mut NoHost::default(), &[]) {
        Ok(v) => v.to_string(),
        Err(e) => format!("threw {e}"),
    }
}

fn groovy(src: &str) -> String {
    run(Lang::Groovy, src)
}

#[test]
fn list_closures() {
    assert_eq!(groovy("[1, 2, 3].collect { it * 2 }"), "[2, 4, 6]");
    assert_eq!(groovy("[1, 2, 3, 4].findAll { it % 2 == 0 }"), "[2, 4]");
    assert_eq!(groovy("[1, 2, 3].find { it > 1 }"), "2");
    assert_eq!(groovy("[1, 2, 3].inject(0) { acc, x -> acc + x }"), "6");
    assert_eq!(groovy("[1, 2, 3].any { it > 2 }"), "true");
    assert_eq!(groovy("[1, 2, 3].every { it > 2 }"), "false");
    assert_eq!(groovy("def s = 0; [1, 2, 3].each { s += it }; s"), "6");
    assert_eq!(groovy("def r = []; ['a', 'b'].eachWithIndex { x, i -> r << x + i }; r"), "[a0, b1]");
    assert_eq!(groovy("['bb', 'a', 'ccc'].sort { it.size() }"), "[a, bb, ccc]");
    assert_eq!(groovy("['bb', 'a', 'ccc'].sort { a, b -> b.size() <=> a.size() }"), "[ccc, bb, a]");
    assert_eq!(groovy("def l = [3, 1, 2]; l.sort(); l"), "[1, 2, 3]");
    assert_eq!(groovy("['a', 'bb', 'cc'].groupBy { it.size() }"), "[1:[a], 2:[bb, cc]]");
    assert_eq!(groovy("['a', 'bb', 'cc'].countBy { it.size() }"), "[1:1, 2:2]");
    assert_eq!(groovy("['a', 'b'].collectEntries { [(it): it.toUpperCase()] }"), "[a:A, b:B]");
    assert_eq!(groovy("['a', 'b'].collectEntries { [it, 1] }"), "[a:1, b:1]");
    assert_eq!(groovy("[[1, 2], [3]].collectMany { it }"), "[1, 2, 3]");
    assert_eq!(groovy("['bb', 'a'].max { it.size() }"), "bb");
    assert_eq!(groovy("['bb', 'a'].min { a, b -> a.size() <=> b.size() }"), "a");
    assert_eq!(groovy("[1, 2, 3].sum { it * 10 }"), "60");
    assert_eq!(groovy("[1, 2, 3, 2].findIndexOf { it == 2 }"), "1");
    assert_eq!(groovy("[1, 2, 3].findResult { it > 1 ? it * 10 : null }"), "20");
    assert_eq!(groovy("[1, 2, 3, 1].unique { it % 2 }"), "[1, 2]");
    assert_eq!(groovy("[1, 2, 3].takeWhile { it < 3 }"), "[1, 2]");
    assert_eq!(groovy("def l = [1, 2, 3]; l.removeIf { it > 1 }; l"), "[1]");
    assert_eq!(groovy("[1, 2, 3].count { it > 1 }"), "2");
    assert_eq!(groovy("[[1, 'a'], [2, 'b']].collect { n, s -> s * n }"), "[a, bb]");
}

#[test]
fn map_closures_by_arity() {
    assert_eq!(groovy("def r = []; [a: 1, b: 2].each { k, v -> r << k + v }; r"), "[a1, b2]");
    assert_eq!(groovy("def r = []; [a: 1, b: 2].each { r << it.key + it.value }; r"), "[a1, b2]");
    assert_eq!(groovy("def r = []; [a: 1].each { e -> r << e.getKey() }; r"), "[a]");
    assert_eq!(groovy("def r = []; [a: 1, b: 2].eachWithIndex { k, v, i -> r << k + i }; r"), "[a0, b1]");
    assert_eq!(groovy("def r = []; [a: 1, b: 2].eachWithIndex { e, i -> r << e.key + i }; r"), "[a0, b1]");
    assert_eq!(groovy("[a: 1, b: 2].collect { k, v -> k * v }"), "[a, bb]");
    assert_eq!(groovy("[a: 1, b: 2].collect { it.value }"), "[1, 2]");
    assert_eq!(groovy("[a: 1, b: 2].findAll { k, v -> v > 1 }"), "[b:2]");
    assert_eq!(groovy("[a: 1, b: 2].find { it.value > 1 }.key"), "b");
    assert_eq!(groovy("[a: 1, b: 2].collectEntries { k, v -> [(v): k] }"), "[1:a, 2:b]");
    assert_eq!(groovy("[a: 1, b: 2].inject(0) { acc, k, v -> acc + v }"), "3");
    assert_eq!(groovy("[a: 1, b: 2].inject(0) { acc, e -> acc + e.value }"), "3");
    assert_eq!(groovy("[a: 1, b: 2].any { k, v -> v == 2 }"), "true");
    assert_eq!(groovy("[a: 1, b: 2].every { it.value > 0 }"), "true");
    assert_eq!(groovy("[a: 1, b: 2].count { k, v -> v > 0 }"), "2");
    assert_eq!(groovy("[b: 1, a: 2].sort { it.key }"), "[a:2, b:1]");
    assert_eq!(groovy("[b: 1, a: 2].sort { x, y -> x.value <=> y.value }"), "[b:1, a:2]");
    assert_eq!(groovy("[a: 1, b: 2, c: 3].groupBy { k, v -> v % 2 }"), "[1:[a:1, c:3], 0:[b:2]]");
    assert_eq!(groovy("def m = [:]; m.computeIfAbsent('k') { [] } << 1; m"), "[k:[1]]");
    assert_eq!(groovy("def r = []; [a: 1].forEach { k, v -> r << k + v }; r"), "[a1]");
    assert_eq!(groovy("def m = [a: 1]; m.entrySet().each { it.value = 5 }; m"), "[a:5]");
    assert_eq!(groovy("def m = [a: 1]; m.merge('a', 2) { x, y -> x + y }; m"), "[a:3]");
}

#[test]
fn strings_numbers_and_ranges_with_closures() {
    assert_eq!(groovy("def n = 0; 3.times { n += it }; n"), "3");
    assert_eq!(groovy("def r = []; 1.upto(3) { r << it }; r"), "[1, 2, 3]");
    assert_eq!(groovy("def r = []; 3.downto(1) { r << it }; r"), "[3, 2, 1]");
    assert_eq!(groovy("def r = []; 0.step(10, 5) { r << it }; r"), "[0, 5, 10]");
    assert_eq!(groovy("(1..4).collect { it * it }"), "[1, 4, 9, 16]");
    assert_eq!(groovy("def r = []; (1..3).each { r << it }; r"), "[1, 2, 3]");
    assert_eq!(groovy("(1..10).findAll { it % 3 == 0 }"), "[3, 6, 9]");
    assert_eq!(groovy("'a1b2'.replaceAll(/\\d/) { (it as int) * 2 }"), "a2b4");
    assert_eq!(groovy("'k=v'.replaceAll(/(\\w)=(\\w)/) { all, k, v -> v + '=' + k }"), "v=k");
    assert_eq!(groovy("'abc'.collect { it.toUpperCase() }"), "[A, B, C]");
    assert_eq!(groovy("def r = []; 'a\\nb'.eachLine { r << it }; r"), "[a, b]");
    assert_eq!(groovy("'x=12'.find(/(\\d)(\\d)/) { all, a, b -> b + a }"), "21");
    assert_eq!(groovy("[1, 2].with { it.size() }"), "2");
    assert_eq!(groovy("'abc'.toUpperCase().reverse().padLeft(5, '*')"), "**CBA");
    assert_eq!(groovy("'12'.toInteger() + 1"), "13");
    assert_eq!(groovy("'3'.toInteger() / 2"), "1.5");
    assert_eq!(groovy("'a,b,,'.split(',').length"), "2");
    assert_eq!(groovy("'a b'.split(' ') as List"), "[a, b]");
    assert_eq!(groovy("def s = '42' as int; s + 1"), "43");
    assert_eq!(groovy("[1, 2, 2] as Set"), "[1, 2]");
    assert_eq!(groovy("int x = 3.9; x"), "3");
    assert_eq!(groovy("String s = 5; s.length()"), "1");
    assert_eq!(groovy("'x'.toInteger()"), "threw java.lang.NumberFormatException: For input string: \"x\"");
    assert_eq!(groovy("1.5.setScale(0, 'HALF_UP')"), "2");
}

#[test]
fn java_dialects() {
    assert_eq!(run(Lang::BeanShell, "String s = \"a,b\"; String[] p = s.split(\",\"); p.length"), "2");
    assert_eq!(run(Lang::Java, "int x = (int) 3.7; x"), "3");
    assert_eq!(run(Lang::BeanShell, "java.util.List l = new java.util.ArrayList(); l.add(\"a\"); l.size()"), "1");
    assert_eq!(
        run(Lang::Java, "java.util.List l = new java.util.ArrayList(); l.add(\"a\"); l.add(\"b\"); Object it = l.iterator(); String r = \"\"; while (it.hasNext()) { r += it.next(); } r"),
        "ab"
    );
    assert_eq!(
        run(Lang::JavaScript, "var a = [1, 2]; a.push(3); a.map(function (x) { return x * 2; }).join('-')"),
        "2-4-6"
    );
    assert_eq!(run(Lang::JavaScript, "var a = [1, 2]; a.length + 'ab'.length"), "4");
}

#[test]
fn with_library_classes() {
    assert_eq!(groovy("1.25.setScale(1, java.math.RoundingMode.HALF_UP)"), "1.3");
    assert_eq!(groovy("new BigDecimal('10').divide(new BigDecimal('3'), 2, java.math.RoundingMode.HALF_EVEN)"), "3.33");
    assert_eq!(groovy("'é'.getBytes(java.nio.charset.StandardCharsets.UTF_8).length"), "2");
    assert_eq!(groovy("'a1b22'.split(~/\\d+/) as List"), "[a, b]");
    assert_eq!(groovy("new StringBuilder('ab').toString().reverse()"), "ba");
    assert_eq!(
        run(Lang::Java, "String s = \"a,b\"; java.util.List l = java.util.Arrays.asList(s.split(\",\")); l.size()"),
        "2"
    );
}

/// Expected values from Groovy 3.0.20 on Java 17 (`groovy.ui.GroovyMain`, JMeter 5.6.3's lib):
/// each line's result as `String.valueOf`, or the exception's class and message.
#[test]
fn oracle_checked_library() {
    let cases: &[(&str, &str)] = &[
        (r#""a,b,,c,,".split(",", -1).toList()"#, "[a, b, , c, , ]"),
        (r#"",a".split(",").toList()"#, "[, a]"),
        (r#"" a  b ".split(" ").toList()"#, "[, a, , b]"),
        (r#""a.b.c".split("\\.", 2).toList()"#, "[a, b.c]"),
        (r#""2024-01-15".replaceAll(/(\d+)-(\d+)-(\d+)/, '$3/$2/$1')"#, "15/01/2024"),
        (r#""price: 10".replaceAll(/(\d+)/) { m, d -> (d as int) * 2 }"#, "price: 20"),
        (r#""abc".charAt(5)"#, "threw java.lang.StringIndexOutOfBoundsException: String index out of range: 5"),
        (r#""hello".substring(3, 1)"#, "threw java.lang.StringIndexOutOfBoundsException: begin 3, end 1, length 5"),
        (r#""hello".substring(-1)"#, "threw java.lang.StringIndexOutOfBoundsException: begin -1, end 5, length 5"),
        (r#"new StringBuilder("abc").charAt(9)"#, "threw java.lang.StringIndexOutOfBoundsException: index 9, length 3"),
        (r#""ab".padLeft(4, "")"#, "threw java.lang.ArithmeticException: / by zero"),
        (r#""ab".padLeft(1, "")"#, "ab"),
        (r#""abc".md5()"#, "900150983cd24fb0d6963f7d28e17f72"),
        (r#""abc".sha256()"#, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (r#"Base64.getDecoder().decode("!!")"#, "threw java.lang.IllegalArgumentException: Illegal base64 character 21"),
        ("[[1, 2, 3], ['a', 'b']].transpose()", "[[1, a], [2, b]]"),
        ("[].transpose()", "[]"),
        ("BigDecimal.ROUND_HALF_EVEN", "6"),
        (r#"new BigDecimal("10.35").setScale(1, BigDecimal.ROUND_HALF_UP)"#, "10.4"),
        (
            r#"new BigDecimal("1").divide(new BigDecimal("3"))"#,
            "threw java.lang.ArithmeticException: Non-terminating decimal expansion; no exact representable decimal result.",
        ),
        (r#"String.format("%05d|%-6s|%.2f|%x|%,d", 42, "ab", 3.14159, 255, 1234567)"#, "00042|ab    |3.14|ff|1,234,567"),
        (r#"URLEncoder.encode("a b&c=d/é~*'", "UTF-8")"#, "a+b%26c%3Dd%2F%C3%A9%7E*%27"),
        ("def r = new Random(42); [r.nextInt(10), r.nextInt(10), r.nextInt(10)]", "[0, 3, 8]"),
        ("new Random(7).nextLong()", "-4967725919621401576"),
        (r#"UUID.nameUUIDFromBytes("hello".getBytes()).toString()"#, "5d41402a-bc4b-3a76-b971-9d911017c592"),
        (
            r#"def mac = javax.crypto.Mac.getInstance("HmacSHA256"); mac.init(new javax.crypto.spec.SecretKeySpec("key".getBytes(), "HmacSHA256")); mac.doFinal("The quick brown fox jumps over the lazy dog".getBytes()).encodeHex().toString()"#,
            "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
        ),
    ];
    let mut wrong = Vec::new();
    for (src, want) in cases {
        let got = groovy(src);
        let got = got.strip_prefix("threw ").map(|t| format!("threw {t}")).unwrap_or(got);
        if got != *want {
            wrong.push(format!("{src}\n  groovy: {want}\n  ours:   {got}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn huge_sizes_throw_instead_of_allocating() {
    for src in [
        r#""ab".repeat(2000000000)"#,
        r#""ab".padLeft(2000000000)"#,
        r#""ab".center(2000000000, "x")"#,
        "def sb = new StringBuilder(); sb.setLength(2000000000)",
        "(-9223372036854775807L..9223372036854775807L).toList()",
    ] {
        let got = groovy(src);
        assert!(got.starts_with("threw java.lang.OutOfMemoryError"), "{src}: {got}");
    }
}

#[test]
fn groovy_null_is_a_null_object_while_java_and_js_null_throws() {
    // Groovy 3's NullObject: `equals` is `x == null`, `is` likewise, `toString` "null".
    assert_eq!(groovy("def a = null; a.equals('x')"), "false");
    assert_eq!(groovy("def a = null; a.equals(null)"), "true");
    assert_eq!(groovy("null == null"), "true");
    assert_eq!(groovy("def a = null; a.toString()"), "null");
    assert_eq!(groovy("def a = null; a.is(null)"), "true");
    assert_eq!(groovy("def a = null; a.asBoolean()"), "false");
    assert_eq!(groovy("def v = [:].get('k'); v.equals('x') ? 'yes' : 'no'"), "no");
    assert!(groovy("def a = null; a.size()").starts_with("threw java.lang.NullPointerException"));
    for (lang, src) in [
        (Lang::BeanShell, "Object a = null; a.equals(\"x\")"),
        (Lang::BeanShell, "Object a = null; a.toString()"),
        (Lang::JavaScript, "var a = null; a.equals('x')"),
    ] {
        assert!(run(lang, src).starts_with("threw java.lang.NullPointerException"), "{src}");
    }
}

#[test]
fn jayway_json_path_in_a_script() {
    let src = r#"import com.jayway.jsonpath.JsonPath
import com.jayway.jsonpath.PathNotFoundException
def body = '{"items":[{"id":7,"name":"a"},{"id":9,"name":"b"}],"next":null}'
def ids = JsonPath.read(body, '$.items[*].id')
def first = JsonPath.parse(body).read('$.items[0].name')
def missing
try { JsonPath.read(body, '$.token') } catch (PathNotFoundException e) { missing = 'none' }
"${ids.sum()} $first $missing ${JsonPath.read(body, '$.next')} ${JsonPath.read(body, '$..nothing').size()}""#;
    assert_eq!(groovy(src), "16 a none null 0");
}

#[test]
fn streams_collect_with_collectors() {
    let c = "import java.util.stream.Collectors\n";
    let g = |src: &str| groovy(&format!("{c}{src}"));
    assert_eq!(g("[1, 2, 3].stream().map { it * 2 }.collect(Collectors.toList())"), "[2, 4, 6]");
    assert_eq!(g("[1, 2, 3].stream().filter { it > 1 }.map { 'n' + it }.collect(Collectors.joining(','))"), "n2,n3");
    assert_eq!(g("['a', 'b'].stream().collect(Collectors.joining(', ', '[', ']'))"), "[a, b]");
    assert_eq!(g("[1, 2, 2].stream().collect(Collectors.toSet()).size()"), "2");
    assert_eq!(g("['a', 'bb'].stream().collect(Collectors.toMap({ it }, { it.size() }))"), "[a:1, bb:2]");
    assert_eq!(g("['a', 'b', 'cc'].stream().collect(Collectors.groupingBy({ it.size() }))"), "[1:[a, b], 2:[cc]]");
    assert_eq!(
        g("['a', 'b', 'cc'].stream().collect(Collectors.groupingBy({ it.size() }, Collectors.counting()))"),
        "[1:2, 2:1]"
    );
    assert!(g("['a', 'a'].stream().collect(Collectors.toMap({ it }, { 1 }))")
        .starts_with("threw java.lang.IllegalStateException"));
    assert_eq!(g("['a', 'a'].stream().collect(Collectors.toMap({ it }, { 1 }, { x, y -> x + y }))"), "[a:2]");
    assert_eq!(
        run(
            Lang::BeanShell,
            "import java.util.stream.Collectors; List l = new ArrayList(); l.add(\"a\"); l.add(\"b\"); l.stream().collect(Collectors.joining(\"-\"))"
        ),
        "a-b"
    );
}

#[test]
fn jayway_and_json_smart_types_declare_what_json_path_gives() {
    let src = r#"import com.jayway.jsonpath.JsonPath
import com.jayway.jsonpath.DocumentContext
import com.jayway.jsonpath.ReadContext
import net.minidev.json.JSONArray
DocumentContext c = JsonPath.parse('{"a":[1,2],"o":{"k":"v"}}')
ReadContext r = c
JSONArray a = r.read('$.a')
Map o = c.read('$.o')
"${a.size()} ${o.k} ${a instanceof List}""#;
    assert_eq!(groovy(src), "2 v true");
    let src = "import org.apache.jmeter.protocol.http.util.HTTPFileArg; def a = new HTTPFileArg('p'); a.getPath() + '|' + a.getParamName() + '|' + a.getMimeType()";
    assert_eq!(groovy(src), "p||");
}

/// #32, as JMeter 5.6.3 printed it (`bench/jmeter/plans/small2-jsonsmart.jmx`): what
/// `JsonPath.read` gives is json-smart's `JSONArray`, whose `toString()` (and Java's
/// `String.valueOf`) is JSON; Groovy's `"$list"`, `+` and `as String` print it as Groovy's
/// list, maps stay Groovy's `[k:v]`, and JsonSlurper's lists are Groovy's throughout.
#[test]
fn a_json_path_list_prints_as_json_smart_from_to_string_and_as_groovy_elsewhere() {
    let src = r#"import com.jayway.jsonpath.JsonPath
def body = '{"a":["x","y"],"n":[1,2.5,true,null],"o":[{"k":"v","n":1}],"m":{"k":"v","q":"a/b"}}'
def l = JsonPath.read(body, '$.a')
def w = JsonPath.read(body, '$.o[*].k')
def n = JsonPath.read(body, '$.n')
def o = JsonPath.read(body, '$.o')
def m = JsonPath.read(body, '$.m')
def s = new groovy.json.JsonSlurper().parseText(body).a
"1=" + l.toString() + " 2=" + w.toString() + " 3=" + n.toString() + " 4=" + o.toString() + " 5=" + m.toString() + " 6=${l} 7=" + l + " 8=${m} 9=" + s.toString() + " 10=${s} 11=" + String.valueOf(l) + " 12=" + o[0].toString() + " 13=${o} 14=" + (l as String) + " 15=" + l.join('|')"#;
    let want = [
        r#"1=["x","y"]"#,
        r#"2=["v"]"#,
        "3=[1,2.5,true,null]",
        r#"4=[{"k":"v","n":1}]"#,
        "5=[k:v, q:a/b]",
        "6=[x, y]",
        "7=[x, y]",
        "8=[k:v, q:a/b]",
        "9=[x, y]",
        "10=[x, y]",
        r#"11=["x","y"]"#,
        "12=[k:v, n:1]",
        "13=[[k:v, n:1]]",
        "14=[x, y]",
        "15=x|y",
    ];
    assert_eq!(groovy(src), want.join(" "));
    let escaped = r#"import com.jayway.jsonpath.JsonPath; JsonPath.read('["q\\"\\t"]', '$').toString()"#;
    assert_eq!(groovy(escaped), r#"["q\"\t"]"#);
    assert_eq!(
        groovy("import com.jayway.jsonpath.JsonPath; JsonPath.read('[1]', '$').getClass().getName()"),
        "net.minidev.json.JSONArray"
    );
}
