//! The jmeter-plugins Spider PreProcessor (#32): before its sampler, every link of the previous
//! page (and the forms and frames that match the sampler) on the domain of the first link kept
//! is remembered once; the last one remembered and not yet followed is sent; with none left the
//! sampler goes as it is and the whole test stops. The witness counts what it served.

use crate::util::jmx::{constant_timer, element, http, run_with_jtl, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, TempRun};
use std::time::Duration;

/// Links to `/a`, `/b?x=1` and `c` (relative: `/c`), `/a` again, one to another host and a form
/// whose action does not match the sampler's path.
const HOME: &str = r#"<html><body><a href="/a">a</a><a href="/b?x=1">b</a>
    <a href="http://elsewhere.invalid/out">out</a><a href="c">c</a><a href="/a">a again</a>
    <form action="/form"><input name="q" value="1"></form></body></html>"#;
/// A link seen before and a new one: the same path with other arguments.
const B: &str = r#"<html><body><a href="/a">a</a><a href="/b?x=2">b2</a></body></html>"#;
/// A link back home (never kept before: the first request was the sampler's own) and a new one.
const A: &str = r#"<html><body><a href="/">home</a><a href="/d">d</a></body></html>"#;

/// One user crawls from `/` depth first: `/c` (the last link of home), `/b?x=1`, `/b?x=2`
/// (found on b), `/a`, `/d` (found on a), `/` (found on a), then nothing is left and the test
/// stops once the sampler went as it is (`/` again), the other thread group's user too. 50
/// iterations would be allowed.
#[test]
fn spider_follows_each_link_of_its_domain_once_depth_first_then_stops_the_test() {
    let html = |body: &'static str| Route::ok().header("Content-Type", "text/html").body(body);
    let server = TestServer::builder()
        .route("/", html(HOME))
        .route("/b", html(B))
        .route("/a", html(A))
        // Slow enough that the other group samples while the spider crawls.
        .default_route(Route::ok().body("no links").delay(Duration::from_millis(100)))
        .record_all()
        .start();
    let run = TempRun::new("jmx-spider");
    let spider = element("kg.apc.jmeter.modifiers.AnchorModifier", "jp@gc - Spider PreProcessor", &[], "");
    let crawl = http("crawl", "127.0.0.1", "${__P(port)}", "/", "GET", &spider);
    let tick = http("tick", "127.0.0.1", "${__P(port)}", "/tick", "GET", &constant_timer("wait", "50"));
    let groups = [
        thread_group("ThreadGroup", "spider", "1", "50", "", &crawl),
        thread_group("ThreadGroup", "other", "1", "400", "", &tick),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("spider", "", &groups));
    let (cmd, _) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);

    let all = server.recorded_all();
    let crawled: Vec<&str> = all.iter().filter(|r| r.path() != "/tick").map(|r| r.target.as_str()).collect();
    assert_eq!(crawled, ["/", "/c", "/b?x=1", "/b?x=2", "/a", "/d", "/", "/"]);
    let crawl = run.label("crawl");
    assert_eq!((uint(&crawl, "samples"), uint(&crawl, "errors")), (8, 0), "{crawl:#}");
    // The spider's stop ends the other group's user long before its 400 iterations (20 s).
    let ticks = all.len() as u64 - 8;
    assert!((1..400).contains(&ticks), "{ticks} ticks");
    assert_eq!(uint(&run.label("tick"), "samples"), ticks);
    assert_eq!(uint(&run.total(), "samples"), all.len() as u64);
}
