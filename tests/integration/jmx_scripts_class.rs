//! Classes declared in Groovy scripts (issue 32): a pre-processor and a sampler that declare
//! classes (fields, constructors, a subclass, static members, `toString`) and use them, the
//! requests carrying what the classes computed, as the witness received them; a class outside
//! the subset refused at load, naming the element and the class.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_scripts::{script, DEFAULTS};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

const PRE: &str = r#"class Line {
    String sku
    int qty = 1
    BigDecimal price
    BigDecimal total() { price * qty }
    String toString() { "$sku-$qty" }
}
class Discounted extends Line {
    int percent
    BigDecimal total() { super.total() * (100 - percent) / 100 }
}
class Signer {
    static final String KEY = 'k9'
    static String sign(String text) {
        def sum = 0
        (text + KEY).each { sum = (sum * 31 + (it as char)) % 100003 }
        String.format('%05d', sum)
    }
}
def user = vars.get('__jm__Users__idx') ?: '0'
def lines = [new Line(sku: 'ab', qty: 2, price: 1.5), new Discounted(sku: 'cd', qty: 4, price: 10, percent: 25)]
def order = lines.join('.')
def total = lines.sum { it.total() }
vars.put('order', order)
vars.put('total', total.toString())
vars.put('sig', Signer.sign(order))"#;

/// A Groovy pre-processor declares three classes (a subclass overriding a method and calling
/// `super`, a static method and constant, a `toString` used by `join`) and its request carries
/// what they computed; a JSR223 sampler declaring a class sets its own sample. Every request
/// reaches the witness once per user and iteration.
#[test]
fn a_class_a_groovy_script_declares_computes_what_the_request_sends() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-class");
    let pre = script("JSR223PreProcessor", "order", "groovy", PRE, "");
    let sampler_script = r#"class Greeting {
    String who
    Greeting(String who) { this.who = who }
    String text() { "hello ${who}" }
}
SampleResult.setResponseData(new Greeting(vars.get('order')).text(), 'UTF-8')
SampleResult.setSuccessful(true)"#;
    let body = [
        sampler("order", "GET", "/order/${order}/${total}/${sig}", "", false, &pre),
        script("JSR223Sampler", "greet", "groovy", sampler_script, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(2, "3", &[DEFAULTS, &body].concat()));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    // ab-2 at 1.5 is 3.0, cd-4 at 10 less 25% is 30: 33.0; Groovy 3.0.20 printed the same
    // order, total and signature for this script.
    let sent: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    assert_eq!(sent, vec!["/order/ab-2.cd-4/33.0/05608"; 6]);
    assert_eq!(uint(&run.label("order"), "samples"), 6);
    assert_eq!(uint(&run.label("greet"), "samples"), 6);
    assert_eq!(uint(&run.total(), "errors"), 0);
}

/// A class that extends a library class stampede does not have is refused when the plan loads,
/// naming the element, the line and the class; nothing is sent.
#[test]
fn a_class_extending_a_class_outside_the_subset_is_refused_at_load() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-class-refused");
    let pre = script(
        "JSR223PreProcessor",
        "handler",
        "groovy",
        "import org.apache.mina.core.service.IoHandlerAdapter\nclass H extends IoHandlerAdapter {\n}\nvars.put('x', '1')",
        "",
    );
    let p = run.write("plan.jmx", jmx_plan(1, "1", &[DEFAULTS, &sampler("s", "GET", "/s", "", false, &pre)].concat()));
    let port = format!("port={}", server.addr().port());
    let out = Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run();
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("\"handler\""), "{err}");
    assert!(
        err.contains("line 2, column 17: class `IoHandlerAdapter` is not available in stampede's scripts"),
        "{err}"
    );
    assert_eq!(server.recorded_all().len(), 0);
}
