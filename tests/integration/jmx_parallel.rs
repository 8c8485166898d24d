//! BlazeMeter's Parallel Controller and Parallel HTTP Requests (issue 13 C): the branches of one
//! user really overlap (the witness holds each request, and the answers of a round come
//! together, not a hold apart), every request is served and recorded once, the parent sample spans the branches,
//! and what a branch extracts or is given as a cookie is the user's afterwards.

use crate::jmx::{jmx_plan, run_jmx, sampler};
use crate::jmx_samplers::regex;
use crate::util::server::{RecordedRequest, Reply, Route, TestServer};
use crate::util::stampede::{uint, TempRun};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;

const COOKIES: &str =
    r#"<CookieManager guiclass="CookiePanel" testclass="CookieManager" testname="Cookies" enabled="true"/><hashTree/>"#;

/// How long the witness holds a request before it answers.
const HOLD: Duration = Duration::from_millis(600);

fn get(name: &str, target: &str) -> String {
    sampler(name, "GET", target, "", false, "")
}

/// A Parallel Controller with its properties and children.
fn parallel(name: &str, props: &str, children: &str) -> String {
    format!(
        r#"<com.blazemeter.jmeter.controller.ParallelSampler guiclass="com.blazemeter.jmeter.controller.ParallelControllerGui" testclass="com.blazemeter.jmeter.controller.ParallelSampler" testname="{name}" enabled="true">{props}</com.blazemeter.jmeter.controller.ParallelSampler>
        <hashTree>{children}</hashTree>"#
    )
}

/// Routes that answer after [`HOLD`] and note when each answer was due: requests sent one
/// after another are at least [`HOLD`] apart, requests sent together are not.
#[derive(Clone, Default)]
struct Witness {
    answered: Arc<Mutex<Vec<(String, Instant)>>>,
}

impl Witness {
    /// A route that holds its request [`HOLD`], then answers `body`.
    fn route(&self, body: &'static str, cookie: Option<&'static str>) -> Route {
        let answered = self.answered.clone();
        Route::handler(move |r: &RecordedRequest| {
            answered.lock().unwrap().push((r.path().to_string(), Instant::now()));
            let reply = Reply::ok().body(body);
            match cookie {
                Some(c) => reply.header("Set-Cookie", c),
                None => reply,
            }
        })
        .delay(HOLD)
        .record()
    }

    /// Checks that the answers came in rounds of `size` different paths, each round within
    /// half of [`HOLD`]: the requests of a round were all held at the same time.
    fn assert_rounds(&self, size: usize, rounds: usize) {
        let mut all = self.answered.lock().unwrap().clone();
        all.sort_by_key(|(_, t)| *t);
        assert_eq!(all.len(), size * rounds, "{all:?}");
        for (i, round) in all.chunks(size).enumerate() {
            if i > 0 {
                let gap = round[0].1 - all[(i - 1) * size].1;
                assert!(gap >= HOLD / 2, "rounds overlap: {all:?}");
            }
            let spread = round[size - 1].1 - round[0].1;
            assert!(spread < HOLD / 2, "not at the same time: {round:?}");
            let mut paths: Vec<&str> = round.iter().map(|(p, _)| p.as_str()).collect();
            paths.sort();
            paths.dedup();
            assert_eq!(paths.len(), size, "{round:?}");
        }
    }
}

/// Checks that the witness served exactly these paths, this many times each.
fn assert_served(server: &TestServer, want: &[(&str, u64)]) {
    let mut served = BTreeMap::new();
    for r in server.recorded_all() {
        *served.entry(r.path().to_string()).or_insert(0) += 1;
    }
    let want: BTreeMap<String, u64> = want.iter().map(|(p, n)| (p.to_string(), *n)).collect();
    assert_eq!(served, want);
}

/// The summary's row of `label`, if it has one.
fn row(summary: &Value, label: &str) -> Option<Value> {
    summary["labels"].as_array().unwrap().iter().find(|r| r["label"] == label).cloned()
}

fn samples(summary: &Value, label: &str) -> u64 {
    row(summary, label).map_or(0, |r| uint(&r, "samples"))
}

/// The plugin with "generate parent sample": the three branches' first requests are held at
/// the same time, the parent sample is the only one recorded and lasts
/// from before the branches start until the slowest ends, and what a branch extracted and the
/// cookie another was given are sent by the request after the controller.
#[test]
fn parallel_controller_runs_branches_at_once_under_one_parent_sample() {
    let witness = Witness::default();
    let server = TestServer::builder()
        .route("/p/a", witness.route("a=1", Some("fromA=yes; Path=/")))
        .route("/p/b", witness.route("b=2", None))
        .route("/p/c", witness.route("c=3", None))
        .route("/p/d", Route::ok().body("d").delay(Duration::from_millis(300)).record())
        .default_route(Route::ok().body("ok").record())
        .start();
    let run = TempRun::new("jmx-par-parent");
    let third = format!(
        r#"<GenericController guiclass="LogicControllerGui" testclass="GenericController" testname="c then d" enabled="true"/>
        <hashTree>{}{}</hashTree>"#,
        get("c", "/p/c"),
        get("d", "/p/d")
    );
    let body = [
        DEFAULTS.to_string(),
        COOKIES.to_string(),
        parallel(
            "par",
            r#"<boolProp name="PARENT_SAMPLE">true</boolProp>"#,
            &[sampler("a", "GET", "/p/a", "", false, &regex("va", "a=(\\d)")), get("b", "/p/b"), third].concat(),
        ),
        get("after", "/after?va=${va}"),
    ]
    .concat();
    run_jmx(&server, &run, &jmx_plan(1, "2", &body));
    witness.assert_rounds(3, 2);
    assert_served(&server, &[("/p/a", 2), ("/p/b", 2), ("/p/c", 2), ("/p/d", 2), ("/after", 2)]);
    let s = run.summary();
    // The plugin's parent sample holds the branches' samples: JMeter writes them as rows of
    // their own (sub-results), which the Total does not count again.
    assert_eq!(samples(&s, "par"), 2, "{s:#}");
    assert_eq!(samples(&s, "after"), 2, "{s:#}");
    for l in ["a", "b", "c", "d"] {
        assert_eq!(samples(&s, l), 2, "{l}: {s:#}");
    }
    assert_eq!(uint(&s["total"], "samples"), 4);
    assert_eq!(uint(&s["total"], "errors"), 0);
    let par = row(&s, "par").unwrap();
    // It spans the slowest branch: c held, then d held 300 ms more.
    let slowest = (HOLD + Duration::from_millis(300)).as_secs_f64() * 1000.0;
    assert!(par["min_ms"].as_f64().unwrap() >= slowest, "{par:#}");
    // What branch a extracted, and the cookie it was given, are the user's afterwards.
    for r in server.recorded_all().iter().filter(|r| r.path() == "/after") {
        assert_eq!(r.query("va").as_deref(), Some("1"), "{r:?}");
        assert_eq!(r.cookie("fromA").as_deref(), Some("yes"), "{r:?}");
    }
}

/// Without a parent sample each request is recorded as its own, exactly once; with "limit max
/// threads" at 2, the 4 branches run two by two.
#[test]
fn parallel_controller_without_parent_records_each_request_and_keeps_its_limit() {
    let witness = Witness::default();
    let mut server = TestServer::builder();
    for path in ["/q/1", "/q/2", "/q/3", "/q/4"] {
        server = server.route(path, witness.route("q", None));
    }
    let server = server.default_route(Route::ok().body("ok").record()).start();
    let run = TempRun::new("jmx-par-limit");
    let branches: String = (1..=4).map(|i| get(&format!("q{i}"), &format!("/q/{i}"))).collect();
    let props = r#"<boolProp name="PARENT_SAMPLE">false</boolProp>
        <intProp name="MAX_THREAD_NUMBER">2</intProp>
        <boolProp name="LIMIT_MAX_THREAD_NUMBER">true</boolProp>"#;
    let body = format!("{DEFAULTS}{}", parallel("par", props, &branches));
    run_jmx(&server, &run, &jmx_plan(1, "2", &body));
    // 2 iterations of 4 branches, two at a time.
    witness.assert_rounds(2, 4);
    let s = run.summary();
    for i in 1..=4 {
        let n = server.requests_to(&format!("/q/{i}"));
        assert_eq!(n, 2);
        assert_eq!(samples(&s, &format!("q{i}")), n, "{s:#}");
    }
    assert_eq!(samples(&s, "par"), 0, "no parent sample: {s:#}");
    assert_eq!(uint(&s["total"], "samples"), server.requests());
    assert_eq!(server.requests(), 8);
}

/// Parallel HTTP Requests: one GET per distinct URL of its list (a URL listed twice is fetched
/// once, as JMeter's page parser keeps it once), all at the same time, under one sample of the
/// sampler's name with theirs as sub-results; a URL that fails fails that sample.
#[test]
fn parallel_http_requests_fetch_each_url_at_once_under_one_sample() {
    let witness = Witness::default();
    let server = TestServer::builder()
        .route("/r/1", witness.route("1", None))
        .route("/r/2", witness.route("2", None))
        .route("/r/3", witness.route("3", None))
        .route("/missing", Route::status(404).record())
        .default_route(Route::ok().body("ok").record())
        .start();
    let run = TempRun::new("jmx-par-http");
    let urls = |name: &str, list: &[&str]| {
        let rows: String = list
            .iter()
            .enumerate()
            .map(|(i, u)| {
                format!(r#"<collectionProp name="r{i}"><stringProp name="u{i}">http://${{host}}:${{port}}{u}</stringProp></collectionProp>"#)
            })
            .collect();
        format!(
            r#"<com.blazemeter.jmeter.http.ParallelHTTPSampler guiclass="com.blazemeter.jmeter.http.ParallelHTTPSamplerGui" testclass="com.blazemeter.jmeter.http.ParallelHTTPSampler" testname="{name}" enabled="true">
            <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"/></elementProp>
            <boolProp name="HTTPSampler.image_parser">true</boolProp>
            <boolProp name="HTTPSampler.concurrentDwn">true</boolProp>
            <collectionProp name="urls">{rows}</collectionProp>
          </com.blazemeter.jmeter.http.ParallelHTTPSampler><hashTree/>"#
        )
    };
    let body = [
        DEFAULTS.to_string(),
        urls("resources", &["/r/1", "/r/2", "/r/3", "/r/1"]),
        urls("with a miss", &["/r/ok", "/missing"]),
    ]
    .concat();
    run_jmx(&server, &run, &jmx_plan(1, "3", &body));
    witness.assert_rounds(3, 3);
    assert_served(&server, &[("/r/1", 3), ("/r/2", 3), ("/r/3", 3), ("/r/ok", 3), ("/missing", 3)]);
    let s = run.summary();
    assert_eq!(samples(&s, "resources"), 3, "{s:#}");
    assert_eq!(samples(&s, "with a miss"), 3, "{s:#}");
    let miss = row(&s, "with a miss").unwrap();
    assert_eq!(uint(&miss, "errors"), 3, "{miss:#}");
    // Each URL's sample is a sub-result named after its place in the list ("-0", "-1"...), as
    // JMeter names them: rows of their own, not counted again in the Total.
    assert_eq!([samples(&s, "-0"), samples(&s, "-1"), samples(&s, "-2")], [6, 6, 3], "{s:#}");
    assert_eq!(uint(&row(&s, "-1").unwrap(), "errors"), 3);
    assert_eq!(uint(&s["total"], "samples"), 6);
    assert_eq!(uint(&s["total"], "errors"), 3);
}

/// A Flow Control Action in a branch acts on that branch's thread: "stop" ends the branch, and
/// the user once the controller is done (the plugin stops the parent thread after it), so the
/// other branch still runs and nothing after the controller does; "break the current loop"
/// ends only its branch (the plugin's thread loops once).
#[test]
fn a_stop_in_a_branch_stops_the_user_once_the_controller_is_done() {
    let server = TestServer::builder().default_route(Route::ok().body("ok").record()).start();
    let run = TempRun::new("jmx-par-stop");
    let action = |name: &str, action: u32| {
        format!(
            r#"<TestAction guiclass="TestActionGui" testclass="TestAction" testname="{name}" enabled="true">
            <intProp name="ActionProcessor.action">{action}</intProp><intProp name="ActionProcessor.target">0</intProp>
            <stringProp name="ActionProcessor.duration">0</stringProp>
          </TestAction><hashTree/>"#
        )
    };
    let seq = |children: String| {
        format!(
            r#"<GenericController guiclass="LogicControllerGui" testclass="GenericController" testname="seq" enabled="true"/>
            <hashTree>{children}</hashTree>"#
        )
    };
    let breaking = parallel(
        "breaking",
        "",
        &[seq(get("b1", "/b/1") + &action("break", 5) + &get("b2", "/b/2")), get("b3", "/b/3")].concat(),
    );
    let stopping = parallel(
        "stopping",
        "",
        &[seq(get("s1", "/s/1") + &action("stop", 0) + &get("s2", "/s/2")), get("s3", "/s/3")].concat(),
    );
    let body = [DEFAULTS.to_string(), breaking, get("mid", "/mid"), stopping, get("after", "/after")].concat();
    run_jmx(&server, &run, &jmx_plan(1, "3", &body));
    assert_served(&server, &[("/b/1", 1), ("/b/3", 1), ("/mid", 1), ("/s/1", 1), ("/s/3", 1)]);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
