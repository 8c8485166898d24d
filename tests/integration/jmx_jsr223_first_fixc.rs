//! JSR223's compiled-script cache keeps each user's first rendering of `${...}` (#32, fixc)
//! outside the user's variables, as JMeter (which has no such variable) does: a script
//! iterating `vars` never sees it, and every user keeps its own, however many users there are.

use crate::util::jmx::{element, esc, http, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};

fn script(class: &str, name: &str, props: &[(&str, &str)]) -> String {
    let mut all = vec![("scriptLanguage", "groovy"), ("parameters", "")];
    all.extend_from_slice(props);
    element(class, name, &all, "")
}

/// 20 users (more than the 16 renderings shared by all users), two iterations each: each sends
/// its first rendering both times, and a script iterating `vars.entrySet()` after the cached
/// one finds no variable holding its text (there was one, `JSR223 script text of ...`).
#[test]
fn twenty_users_keep_their_first_jsr223_rendering_and_vars_do_not_list_it() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("jsr223-first");
    let counter = element(
        "CounterConfig",
        "n",
        &[("CounterConfig.start", "1"), ("CounterConfig.incr", "1"), ("CounterConfig.name", "n")],
        "",
    )
    .replace("</CounterConfig>", "<boolProp name=\"CounterConfig.per_user\">true</boolProp></CounterConfig>");
    let cached = esc(r#"vars.put("seen", "${__threadNum}-${n}")"#);
    let list = esc(r#"def names = []
for (e in vars.entrySet()) { names.add(e.key) }
vars.put("hidden", "" + names.findAll { it.contains("JSR223") || it.contains("script text") }.size())
vars.put("listed", "" + names.contains("seen"))"#);
    let pres = [
        script("JSR223PreProcessor", "cached", &[("cacheKey", "true"), ("script", &cached)]),
        script("JSR223PreProcessor", "list", &[("cacheKey", "true"), ("script", &list)]),
    ]
    .concat();
    let get = http(
        "first",
        "127.0.0.1",
        &port,
        "/first?seen=${seen}&amp;hidden=${hidden}&amp;listed=${listed}",
        "GET",
        &pres,
    );
    let body = [counter, get].concat();
    let file = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "20", "2", "", &body)));
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let recorded = server.recorded("/first");
    let field = |name: &str| {
        let mut v: Vec<String> = recorded.iter().filter_map(|r| r.query(name)).collect();
        v.sort();
        v
    };
    let mut want: Vec<String> = (1..=20).flat_map(|t| [format!("{t}-1"), format!("{t}-1")]).collect();
    want.sort();
    assert_eq!(field("seen"), want, "each user runs its first rendering on both iterations");
    assert_eq!(field("hidden"), vec!["0".to_string(); 40], "no variable holds a script's text");
    assert_eq!(field("listed"), vec!["true".to_string(); 40], "the script iterated the variables");
    assert_eq!(server.requests(), 40);
}
