//! "Retrieve All Embedded Resources" (issue 32): an HTTP Request with the option fetches the
//! resources its HTML page names, as JMeter 5.6.3 does: each distinct URL the filters keep
//! once per page, with the sampler's headers; JMeter's container sample of the sampler's name
//! holds the page's own as `label-0` and each resource's as `label-1`..., and fails when one of
//! them fails; a sampler without the option fetches only its page.

use crate::util::jmx::{element, header_manager, http, run_with_jtl, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, TempRun};
use std::collections::BTreeMap;

const PAGE: &str = r#"<!DOCTYPE html><html><head>
<link rel="stylesheet" href="/r/s.css"><link rel="next" href="/next.html">
<script src="r/a.js"></script></head>
<body><img src="/r/i.png"><img src="/r/i.png"><img src="/r/skip.gif"><img src="/other/o.png">
<a href="/r/link.html">a link</a><img src="/r/missing.png"></body></html>"#;

/// The witness: the page, its resources (one missing), and what the page names but JMeter
/// does not fetch. Every request is recorded.
fn server() -> TestServer {
    let css = Route::ok().header("Content-Type", "text/css").body("body { color: red }").record();
    TestServer::builder()
        .route("/page", Route::ok().header("Content-Type", "text/html; charset=UTF-8").body(PAGE).record())
        .route("/r/s.css", css)
        .route("/r/missing.png", Route::status(404).record())
        .default_route(Route::ok().body("xx").record())
        .start()
}

fn served(server: &TestServer) -> BTreeMap<String, u64> {
    let mut served = BTreeMap::new();
    for r in server.recorded_all() {
        *served.entry(r.path().to_string()).or_insert(0) += 1;
    }
    served
}

/// The page's sample with the option, URLs kept by both filters (the `<a>` and `rel="next"`
/// are not resources), then the same page without it; 2 users x 3 iterations.
#[test]
fn embedded_resources_are_fetched_once_per_page_as_sub_results_of_the_page() {
    let server = server();
    let run = TempRun::new("jmx-embedded");
    let with = element(
        "HTTPSamplerProxy",
        "page",
        &[
            ("HTTPSampler.domain", "127.0.0.1"),
            ("HTTPSampler.port", "${__P(port)}"),
            ("HTTPSampler.path", "/page"),
            ("HTTPSampler.method", "GET"),
            ("HTTPSampler.image_parser", "true"),
            ("HTTPSampler.embedded_url_re", r".*/r/.*"),
            ("HTTPSampler.embedded_url_exclude_re", r".*\.gif"),
        ],
        &header_manager("h", &[("X-Test", "yes")]),
    );
    let without = http("plain", "127.0.0.1", "${__P(port)}", "/page", "GET", "");
    let plan = test_plan("embedded", "", &thread_group("ThreadGroup", "tg", "2", "3", "", &(with + &without)));
    let plan = run.write("plan.jmx", plan);
    let (cmd, jtl) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);

    let want: BTreeMap<String, u64> =
        [("/page", 12), ("/r/s.css", 6), ("/r/a.js", 6), ("/r/i.png", 6), ("/r/missing.png", 6)]
            .into_iter()
            .map(|(p, n)| (p.to_string(), n))
            .collect();
    assert_eq!(served(&server), want);
    // The resources carry the sampler's headers, and no Referer (JMeter adds none).
    for r in server.recorded("/r/a.js") {
        assert_eq!(r.header("x-test"), Some("yes"));
        assert_eq!(r.header("referer"), None);
    }

    // The page's sample fails with its missing resource; the sub-results are rows of their own,
    // not counted again in the Total.
    let s = run.summary();
    let page = run.label("page");
    assert_eq!((uint(&page, "samples"), uint(&page, "errors")), (6, 6), "{page:#}");
    let plain = run.label("plain");
    assert_eq!((uint(&plain, "samples"), uint(&plain, "errors")), (6, 0), "{plain:#}");
    for (i, errors) in [0, 0, 0, 0, 6].into_iter().enumerate() {
        let sub = run.label(&format!("page-{i}"));
        assert_eq!((uint(&sub, "samples"), uint(&sub, "errors")), (6, errors), "page-{i}: {sub:#}");
    }
    assert_eq!(uint(&s["total"], "samples"), 12, "{s:#}");

    // The JTL as JMeter 5.6.3 writes the container (bench/jmeter/plans/embedded-page.jmx): its
    // row, then its sub-results' in order, the page's own first; its bytes are theirs summed,
    // and it spans them.
    let text = std::fs::read_to_string(&jtl).unwrap();
    let rows: Vec<Vec<String>> = text.lines().skip(1).map(|l| l.split(',').map(String::from).collect()).collect();
    let users: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[5].as_str()).collect();
    assert_eq!(users.len(), 2, "{users:?}");
    for user in users {
        let mine: Vec<&Vec<String>> = rows.iter().filter(|r| r[5] == user).collect();
        let labels: Vec<&str> = mine.iter().map(|r| r[2].as_str()).collect();
        let pass = ["page", "page-0", "page-1", "page-2", "page-3", "page-4", "plain"];
        assert_eq!(labels, pass.repeat(3), "{user}");
        for pass in mine.chunks(7) {
            let (parent, subs) = (pass[0], &pass[1..6]);
            let urls: Vec<&str> = subs.iter().map(|r| r[13].rsplit('/').next().unwrap()).collect();
            assert_eq!(urls, ["page", "s.css", "a.js", "i.png", "missing.png"]);
            assert_eq!(subs[4][3], "404");
            assert_eq!((parent[3].as_str(), parent[7].as_str()), ("200", "false"), "{parent:?}");
            let num = |r: &Vec<String>, i: usize| r[i].parse::<u64>().unwrap();
            for col in [9, 10] {
                assert_eq!(num(parent, col), subs.iter().map(|r| num(r, col)).sum::<u64>(), "{pass:?}");
            }
            let end = |r: &Vec<String>| num(r, 0) + num(r, 1);
            assert_eq!(parent[0], subs[0][0]);
            assert!(subs.iter().all(|s| end(s) <= end(parent) + 1), "{pass:?}");
        }
    }
}

/// The option set on HTTP Request Defaults applies to a sampler that does not set it, as
/// JMeter merges the defaults into it.
#[test]
fn embedded_resources_option_is_inherited_from_http_request_defaults() {
    let server = server();
    let run = TempRun::new("jmx-embedded-defaults");
    let defaults = element(
        "ConfigTestElement",
        "Defaults",
        &[("HTTPSampler.image_parser", "true"), ("HTTPSampler.embedded_url_exclude_re", r".*(missing|other).*")],
        "",
    )
    .replace("<ConfigTestElement ", r#"<ConfigTestElement guiclass="HttpDefaultsGui" "#);
    let page = http("page", "127.0.0.1", "${__P(port)}", "/page", "GET", "");
    let plan = test_plan("embedded", "", &(defaults + &thread_group("ThreadGroup", "tg", "1", "1", "", &page)));
    let plan = run.write("plan.jmx", plan);
    let (cmd, _) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);
    let want: BTreeMap<String, u64> =
        [("/page", 1), ("/r/s.css", 1), ("/r/a.js", 1), ("/r/i.png", 1), ("/r/skip.gif", 1)]
            .into_iter()
            .map(|(p, n)| (p.to_string(), n))
            .collect();
    assert_eq!(served(&server), want);
    let page = run.label("page");
    assert_eq!((uint(&page, "samples"), uint(&page, "errors")), (1, 0), "{page:#}");
    assert_eq!(uint(&run.label("page-4"), "samples"), 1);
}
