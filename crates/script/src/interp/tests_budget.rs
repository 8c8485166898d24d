//! The memory and work budget of an execution, and its interruption: every size a script asks
//! for is an `OutOfMemoryError` inside the script when it does not fit (an allocation failure
//! would abort the test binary: that is the failure these pin), appends are amortised, copies
//! count as work, and the host's stop ends any loop.

use super::{run, State};
use crate::host::{Host, HostRef};
use crate::value::Value;
use crate::{Ctx, Lang, Script, Thrown, INTERRUPTED_CLASS};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Stoppable {
    stop: Arc<AtomicBool>,
}

impl Host for Stoppable {
    fn call(&mut self, _target: HostRef, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        Err(Thrown::no_method("Object", method))
    }

    fn interrupted(&mut self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Runs Groovy with this state (budgets) and host; the value's text, or `!` and the error.
fn run_with(source: &str, lang: Lang, state: State, host: &mut dyn Host) -> String {
    let script = Script::compile(source, lang).unwrap_or_else(|e| panic!("{source}: {e}"));
    let mut cx = Ctx { host, lang, state };
    match run(&mut cx, &script.code, &mut Vec::new()) {
        Ok(v) => format!("{v}"),
        Err(t) => format!("!{t}"),
    }
}

fn groovy(source: &str) -> String {
    run_with(source, Lang::Groovy, State::default(), &mut Stoppable::default())
}

/// With a small memory budget, so that loops meet it fast in a debug build.
fn groovy_in(memory: u64, source: &str) -> String {
    run_with(source, Lang::Groovy, State { memory, ..State::default() }, &mut Stoppable::default())
}

const OOM: &str = "!java.lang.OutOfMemoryError: Java heap space";

#[test]
fn every_size_a_script_asks_for_is_an_out_of_memory_error_not_an_abort() {
    let huge = [
        r#"Collections.nCopies(2000000000, "x").join()"#,
        r#"Collections.nCopies(1000000, "x" * 1000).join(",")"#,
        r#"String.join(",", Collections.nCopies(1000000, "x" * 1000))"#,
        r#"org.apache.commons.lang3.StringUtils.repeat("ab", 2000000000)"#,
        r#"org.apache.commons.lang3.StringUtils.join(Collections.nCopies(1000000, "x" * 1000), ",")"#,
        r#"org.apache.commons.lang3.StringUtils.leftPad("a", 2000000000)"#,
        r#"String.format("%0999999999d", 1)"#,
        r#"String.format("%.999999999f", 1.5d)"#,
        r#"String.format("%-999999999s|", "a")"#,
        r#""x" * 2000000000"#,
        r#""ab".repeat(2000000000)"#,
        r#""ab".padLeft(2000000000)"#,
        r#""ab".center(2000000000, "x")"#,
        r#"("x" * 10000000).replace("", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy")"#,
        r#"[1, 2] * 2000000000"#,
        r#"(1..2000000000).toList()"#,
        r#"(0..<2000000000).collect { it }"#,
        r#"new int[2000000000]"#,
        r#"new String[100000][100000]"#,
        r#"def l = []; l[2000000000] = 1"#,
        r#"def sb = new StringBuilder(); sb.setLength(2000000000)"#,
        r#"groovy.json.JsonOutput.toJson(0..2000000000)"#,
        r#"("x" * 100000000).toList()"#,
        r#"("x" * 100000000).toCharArray()"#,
        r#"("x" * 100000000).split("")"#,
        r#"for (c in "x" * 100000000) {}"#,
    ];
    let mut wrong = Vec::new();
    for src in huge {
        let got = groovy(src);
        if !got.starts_with(OOM) {
            wrong.push(format!("{src}\n  got: {}", got.chars().take(200).collect::<String>()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Growth a step at a time (a list, a map, a builder, a string) meets the budget too, however
/// small each step.
#[test]
fn growth_in_a_loop_meets_the_memory_budget() {
    let mut wrong = Vec::new();
    for src in [
        r#"def s = "x"; while (true) { s = s + s }"#,
        r#"def s = "x"; while (true) { s += s }"#,
        r#"def s = "x"; while (true) { s = "$s$s" }"#,
        r#"def s = "x" * 10000; while (true) { s = s.replace("x", "xx") }"#,
        r#"def s = "x" * 10000; while (true) { s = s.replaceAll("x+", '$0$0') }"#,
        r#"def l = [1]; while (true) { l.addAll(l) }"#,
        r#"def l = [1]; while (true) { l = l + l }"#,
        r#"def l = [1]; while (true) { l = l * 2 }"#,
        r#"def m = [a: 1]; while (true) { m = m + m.collectEntries { k, v -> [(k + "x"): v] } }"#,
        r#"def sb = new StringBuilder("x"); while (true) { sb.append(sb.toString()) }"#,
        r#"def sb = new StringBuilder("x"); while (true) { sb.insert(0, sb.toString()) }"#,
        r#"def l = ["x"]; 60.times { l = [l, l] }; l.toString()"#,
        r#"def l = ["x"]; 60.times { l = [l, l] }; "$l""#,
        r#"def l = ["x"]; 60.times { l = [l, l] }; l.inspect()"#,
        r#"def l = ["x"]; 60.times { l = [l, l] }; l.flatten()"#,
        r#"def l = ["x"]; 60.times { l = [l, l] }; groovy.json.JsonOutput.toJson(l)"#,
        r#"def m = [:]; 60.times { m = [a: m, b: m] }; m.toString()"#,
        r#"def l = ["x"]; 60.times { l = [l, l] }; new StringBuilder().append(l)"#,
        r#"def l = ["x" * 10000]; 30.times { l = [l, l] }; l.join(",")"#,
        r#"def l = []; while (true) { l.add("x") }"#,
        r#"def l = []; while (true) { l << 1 }"#,
        r#"def l = []; def i = 0; while (true) { l[i++] = 1 }"#,
        r#"def m = [:]; def i = 0; while (true) { m[i++] = 1 }"#,
        r#"def m = [:]; def i = 0; while (true) { m.put(i++, 1) }"#,
        r#"def sb = new StringBuilder(); while (true) { sb.append("xxxxxxxxxxxxxxxx") }"#,
        r#"def sb = new StringBuilder(); while (true) { sb << "xxxxxxxxxxxxxxxx" }"#,
        r#"def l = []; while (true) { l.add("y" * 1000) }"#,
        r#"def l = []; while (true) { l.add([1, 2, 3]) }"#,
    ] {
        let got = groovy_in(4 << 20, src);
        if !got.starts_with(OOM) {
            wrong.push(format!("{src}\n  got: {}", got.chars().take(200).collect::<String>()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Values a script drops leave the budget: a loop that makes and drops far more than the
/// budget in all is not an `OutOfMemoryError`.
#[test]
fn values_a_script_drops_leave_the_budget() {
    let ok = [
        r#"def n = 0; for (i in 0..<2000) { def s = "x" * 10000; n += s.size() }; n"#,
        r#"def n = 0; for (i in 0..<2000) { n += ("x" * 10000).toUpperCase().size() }; n"#,
        r#"def f(k) { def s = "y" * k; s.size() }; def n = 0; for (i in 0..<2000) { n += f(10000) }; n"#,
        r#"def s = ""; for (i in 0..<2000) { s = "x" * 10000 }; 20000000"#,
        r#"def n = 0; for (i in 0..<2000) { def l = [0] * 1000; n += l.size() * 10 }; n"#,
    ];
    for src in ok {
        assert_eq!(groovy_in(4 << 20, src), "20000000", "{src}");
    }
}

#[test]
fn out_of_memory_is_an_error_that_only_throwable_and_error_catch() {
    let big = r#""x" * 2000000000"#;
    let cases = [
        (format!("try {{ {big} }} catch (Exception e) {{ 'caught' }}"), OOM),
        (format!("try {{ {big} }} catch (e) {{ 'caught' }}"), OOM),
        (format!("try {{ {big} }} catch (RuntimeException e) {{ 'caught' }}"), OOM),
        (format!("try {{ {big} }} catch (Throwable t) {{ 'caught' }}"), "caught"),
        (format!("try {{ {big} }} catch (Error t) {{ 'caught' }}"), "caught"),
        (format!("try {{ {big} }} catch (OutOfMemoryError t) {{ t.message.contains('heap') }}"), "true"),
        // The script goes on after it, and may allocate again.
        (format!("try {{ {big} }} catch (Throwable t) {{}}; ('ab' * 3).size()"), "6"),
    ];
    for (src, want) in cases {
        let got = groovy(&src);
        assert!(got.starts_with(want), "{src}: {got}");
    }
    // JavaScript's `catch (e)` takes everything, as Nashorn's does.
    let js = run_with(
        "var r; try { 'x'.repeat(2000000000) } catch (e) { r = 'caught' } r",
        Lang::JavaScript,
        State::default(),
        &mut Stoppable::default(),
    );
    assert_eq!(js, "caught");
}

/// `append` does not copy the builder, and `length()` does not count it: both in a loop stay
/// linear (they were quadratic: 40,000 appends took seconds).
#[test]
fn appends_are_amortised() {
    let t = Instant::now();
    let got = groovy(
        "def sb = new StringBuilder(); while (sb.length() < 300000) { sb.append('x'); sb.append(1) }; sb.length()",
    );
    assert_eq!(got, "300000");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

/// A runaway append, concatenation, throw or set ends by the budget in seconds, not minutes:
/// bytes copied and pairs compared count as steps (a tenth of the real step budget here, for
/// a debug build; `s += 'x'` copied terabytes within it when only steps counted).
#[test]
fn runaway_appends_and_copies_end_within_the_budget() {
    for src in [
        "def sb = new StringBuilder(); while (true) { sb.append('x') }",
        "def s = ''; while (true) { s += 'x' }",
        "def s = 'x' * 100000; while (true) { def t = s + 'y' }",
        "def s = [] as Set; def i = 0; while (true) { s.add(i++) }",
        "while (true) { try { throw new Exception('x') } catch (e) {} }",
    ] {
        let t = Instant::now();
        let state = State { budget: super::STEP_BUDGET / 10, ..State::default() };
        let got = run_with(src, Lang::Groovy, state, &mut Stoppable::default());
        assert!(got.starts_with(OOM) || got.contains("stampede.ScriptStepLimit"), "{src}: {got}");
        assert!(t.elapsed() < Duration::from_secs(30), "{src}: {:?}", t.elapsed());
    }
}

/// The host's stop ends a running script, whatever it catches.
#[test]
fn a_stop_interrupts_a_running_script_that_catches_everything() {
    for (src, lang) in [
        ("while (true) {}", Lang::Groovy),
        ("while (true) { try { throw new Exception('x') } catch (e) {} }", Lang::Groovy),
        ("while (true) { try { 1 } catch (Throwable t) {} finally { } }", Lang::Groovy),
        ("while (true) { try { while (true) {} } catch (Throwable t) {} }", Lang::Groovy),
        ("while (true) { try { while (true) {} } finally { while (true) {} } }", Lang::Groovy),
        ("def f() { f() }; while (true) { try { f() } catch (Throwable t) {} }", Lang::Groovy),
        ("while (true) { try { while (true) {} } catch (e) {} }", Lang::JavaScript),
    ] {
        let stop = Arc::new(AtomicBool::new(false));
        let mut host = Stoppable { stop: stop.clone() };
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::Relaxed);
        });
        let t = Instant::now();
        let got = run_with(src, lang, State::default(), &mut host);
        stopper.join().unwrap();
        assert!(got.starts_with(&format!("!{INTERRUPTED_CLASS}")), "{src}: {got}");
        assert!(t.elapsed() < Duration::from_secs(10), "{src}: {:?}", t.elapsed());
    }
}

/// Objects of a script's classes count against the memory budget while kept, and leave it
/// when dropped.
#[test]
fn objects_of_declared_classes_count_against_the_memory_budget() {
    let class = "class P { def a; def b; def c; def d; def e; def f; def g; def h }\n";
    let kept = format!("{class}def keep = []; while (true) {{ keep << new P() }}");
    assert!(groovy_in(1 << 20, &kept).starts_with(OOM), "{}", groovy_in(1 << 20, &kept));
    let dropped = format!("{class}def n = 0; for (i in 0..<20000) {{ def p = new P(a: i); n += p.a - i + 1 }}; n");
    assert_eq!(groovy_in(1 << 20, &dropped), "20000");
}

/// A method that calls itself without end is a `StackOverflowError` inside the script, which
/// the script may catch, and the process goes on.
#[test]
fn endless_recursion_in_a_method_is_a_stack_overflow_error() {
    let src = "class R { def f(n) { f(n + 1) }; static g(n) { g(n + 1) } }\nnew R().f(0)";
    assert!(groovy(src).starts_with("!java.lang.StackOverflowError"), "{}", groovy(src));
    let src = "class R { static g(n) { g(n + 1) } }\nR.g(0)";
    assert!(groovy(src).starts_with("!java.lang.StackOverflowError"), "{}", groovy(src));
    let src = "class R { String toString() { \"${this}\" } }\ntry { \"\" + new R() } catch (StackOverflowError e) { 'caught' }";
    let got = groovy(src);
    assert!(got == "caught" || got.starts_with("R@"), "{got}");
}
