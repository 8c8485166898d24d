//! The cost of one execution of typical scripts (`cargo bench --bench script`, or
//! `bench/scripts/run.sh`): each script compiled once, then run many times with `vars`,
//! `props`, `log` and `prev`-like bindings over a user's variables, as a JSR223 post-processor
//! runs; prints ns per execution. Not a test: numbers to compare between versions (issue 14's
//! goal: a `vars.put` post-processor in at most 2 µs).

use rand::rngs::SmallRng;
use stampede::internals::{self as script_host, Scope, VarId};
use stampede_script::{Host, HostRef, Lang, Script, Thrown, Value};
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A user's variables by name, as the engine keeps them.
struct User {
    vars: HashMap<String, String>,
    objects: HashMap<String, Value>,
    props: HashMap<String, Value>,
    rng: SmallRng,
    /// The response body `prev.getResponseDataAsString()` returns.
    body: Value,
}

impl Scope for User {
    fn var(&self, _id: VarId) -> &str {
        ""
    }
    fn set_var(&mut self, _id: VarId, _value: &str) {}
    fn count(&mut self, _per_user: bool, _slot: u32) -> u64 {
        0
    }
    fn thread_num(&self) -> u64 {
        1
    }
    fn rng(&mut self) -> &mut SmallRng {
        &mut self.rng
    }
    fn var_named(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }
    fn set_var_named(&mut self, name: &str, value: &str) {
        match self.vars.get_mut(name) {
            Some(v) => {
                v.clear();
                v.push_str(value);
            }
            None => {
                self.vars.insert(name.to_string(), value.to_string());
            }
        }
    }
    fn remove_var_named(&mut self, name: &str) -> Option<String> {
        self.vars.remove(name)
    }
    fn object(&self, name: &str) -> Option<Value> {
        if self.objects.is_empty() {
            return None;
        }
        self.objects.get(name).cloned()
    }
    fn put_object(&mut self, name: &str, value: Value) {
        if value.is_null() {
            self.objects.remove(name);
        } else {
            self.objects.insert(name.to_string(), value);
        }
    }
    fn property_object(&self, name: &str) -> Option<Value> {
        self.props.get(name).cloned()
    }
    fn put_property_object(&mut self, name: &str, value: Value) {
        self.props.insert(name.to_string(), value);
    }
}

const PREV: HostRef = HostRef(script_host::FIRST_FREE);

impl Host for User {
    fn call(&mut self, target: HostRef, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        if target == PREV {
            return match method {
                "getResponseDataAsString" => Ok(self.body.clone()),
                "getResponseCode" => Ok(Value::from("200")),
                _ => Err(Thrown::no_method("SampleResult", method)),
            };
        }
        script_host::call_shared(self, target, method, args, Lang::Groovy)
            .unwrap_or_else(|| Err(Thrown::no_method("Object", method)))
    }
}

/// A JSON response of about 1 KB.
fn body() -> String {
    let items: Vec<String> =
        (0..12).map(|i| format!(r#"{{"id":{i},"name":"item-{i}","price":{}.5,"tags":["a","b"]}}"#, i * 3)).collect();
    format!(r#"{{"token":"abc123def456","user":{{"id":42,"roles":["admin","user"]}},"items":[{}]}}"#, items.join(","))
}

const SCRIPTS: [(&str, &str); 5] = [
    ("vars.put", r#"vars.put("token", "abc")"#),
    (
        "JSON parse (1 KB) + vars.put",
        r#"def json = new groovy.json.JsonSlurper().parseText(prev.getResponseDataAsString())
vars.put("token", json.token)"#,
    ),
    (
        "20-line Groovy with a loop",
        r#"def ids = []
def total = 0
for (int i = 0; i < 20; i++) {
    def id = "id_" + i
    ids.add(id)
    total += i * 2
}
def joined = ids.join(",")
if (total > 100) {
    vars.put("big", "true")
} else {
    vars.put("big", "false")
}
def counter = vars.get("counter")
if (counter == null) {
    counter = "0"
}
vars.put("counter", String.valueOf(Integer.parseInt(counter) + 1))
vars.put("ids", joined)
log.debug("ids {}", joined)
return total"#,
    ),
    ("vars.get + compare", r#"vars.get("token") != null && vars.get("token").length() > 3"#),
    // Instance methods of strings, lists and maps called in a loop: what their dispatch costs.
    (
        "string/list/map methods x50",
        r#"def words = "alpha,beta,gamma,delta,epsilon".split(",")
def out = []
def seen = [:]
for (int i = 0; i < 50; i++) {
    def w = words[i % 5].trim().toUpperCase()
    if (w.startsWith("A") || w.contains("MM")) {
        out.add(w.substring(0, 2))
    }
    seen.put(w, out.size())
}
vars.put("n", out.join("").length() + ":" + seen.size())"#,
    ),
];

fn main() {
    let body = body();
    println!("script cost per execution (compiled once; {} B response body)", body.len());
    let mut failed = false;
    for (name, src) in SCRIPTS {
        let script = match Script::compile(src, Lang::Groovy) {
            Ok(s) => s,
            Err(e) => {
                println!("{name:<32} does not compile: {e}");
                failed = true;
                continue;
            }
        };
        let mut user = User {
            vars: HashMap::new(),
            objects: HashMap::new(),
            props: HashMap::new(),
            rng: rand::SeedableRng::seed_from_u64(1),
            body: Value::from(body.as_str()),
        };
        let bindings = [
            ("vars", Value::Host(script_host::VARS)),
            ("props", Value::Host(script_host::PROPS)),
            ("log", Value::Host(script_host::LOG)),
            ("ctx", Value::Host(script_host::CTX)),
            ("prev", Value::Host(PREV)),
        ];
        if let Err(e) = script.run(&mut user, &bindings) {
            println!("{name:<32} fails: {e}");
            failed = true;
            continue;
        }
        // Warm up, then as many runs as fit in about a second (at least 1,000).
        let mut n: u64 = 1_000;
        loop {
            let t = Instant::now();
            for _ in 0..n {
                black_box(script.run(&mut user, black_box(&bindings)).ok());
            }
            let el = t.elapsed();
            if el >= Duration::from_millis(800) || n >= 50_000_000 {
                let ns = el.as_nanos() as f64 / n as f64;
                println!("{name:<32} {ns:>10.0} ns/exec   ({n} runs)");
                break;
            }
            n = (n * 4).min(50_000_000);
        }
    }
    failed |= template_functions();
    if failed {
        std::process::exit(1);
    }
}

/// The cost of one render of a URL template calling JMeter functions (`${__UUID()}`, ...), as
/// a sampler renders its path for each request; `true` when the template does not compile.
fn template_functions() -> bool {
    let name = "${__function} template render";
    let src = "/api?id=${__UUID()}&n=${__counter(TRUE,)}&r=${__Random(1,100)}&q=${__urlencode(a b&c)}\
               &v=${__V(x,dflt)}&t=${__intSum(${__threadNum},1)}&c=${__changeCase(abc,UPPER)}";
    let t = match stampede::internals::CompiledTemplate::compile(src) {
        Ok(t) => t,
        Err(e) => {
            println!("{name:<32} does not compile: {e}");
            return true;
        }
    };
    let mut user = User {
        vars: HashMap::new(),
        objects: HashMap::new(),
        props: HashMap::new(),
        rng: rand::SeedableRng::seed_from_u64(1),
        body: Value::Null,
    };
    let mut out = String::new();
    let mut n: u64 = 1_000;
    loop {
        let start = Instant::now();
        for _ in 0..n {
            out.clear();
            t.render(&mut user, &mut out);
            black_box(&out);
        }
        let el = start.elapsed();
        if el >= Duration::from_millis(800) || n >= 50_000_000 {
            let ns = el.as_nanos() as f64 / n as f64;
            println!("{name:<32} {ns:>10.0} ns/exec   ({n} runs)");
            return false;
        }
        n = (n * 4).min(50_000_000);
    }
}
