//! JMeter's logic controllers and flow: loop index variables of Loop, While and ForEach (prefix,
//! start and end read at run time), Random Order, Runtime, Critical Section, Interleave, Weighted
//! Switch, the Parameterized Controller, If and While conditions that fail, do not parse or are
//! empty, Flow Control Actions on the current loop, the Result Status Action Handler's scope.

use crate::jmx::{jmx_plan, run_jmx, sampler};
use crate::jmx_assertions::DEFAULTS as DEFAULTS_PER_SAMPLE;
use crate::jmx_extractors::{json_extractor, regex_json as regex, regex_per_sample, run_plan_json};
use crate::jmx_functions::{run_jtl, sampler as sampler_placeholder};
use crate::jmx_http_bodies::{group as group_small, http, plan, run_plan as run_plan_small, targets};
use crate::jmx_plugins::{
    get as get_plugins, group as group_plugins, plan as plan_plugins, run_plan as run_plan_plugins,
    targets as targets_plugins, witness,
};
use crate::jmx_samplers::{
    dummy, http as http_client_class, interleave, loop_of, result_action, test_action, DEFAULTS as DEFAULTS_NOTHING,
};
use crate::util::jmx::{regex_extractor, run_with_jtl};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
        </ConfigTestElement><hashTree/>"#;

fn get(name: &str, target: &str) -> String {
    sampler(name, "GET", target, "", false, "")
}

fn looped(name: &str, loops: u32, children: &str) -> String {
    format!(
        r#"<LoopController guiclass="LoopControlPanel" testclass="LoopController" testname="{name}" enabled="true">
          <boolProp name="LoopController.continue_forever">true</boolProp>
          <stringProp name="LoopController.loops">{loops}</stringProp>
        </LoopController><hashTree>{children}</hashTree>"#
    )
}

fn if_ctl(condition: &str, children: &str) -> String {
    format!(
        r#"<IfController guiclass="IfControllerPanel" testclass="IfController" testname="if" enabled="true">
            <stringProp name="IfController.condition">{condition}</stringProp>
            <boolProp name="IfController.useExpression">true</boolProp>
          </IfController><hashTree>{children}</hashTree>"#
    )
}

/// A Flow Control Action on the current thread: 0 stop, 5 break the current loop.
fn action(name: &str, action: u32) -> String {
    format!(
        r#"<TestAction guiclass="TestActionGui" testclass="TestAction" testname="{name}" enabled="true">
          <intProp name="ActionProcessor.action">{action}</intProp><intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration">0</stringProp>
        </TestAction><hashTree/>"#
    )
}

/// A witness answering `path` after `ms` milliseconds, anything else at once.
fn slow_server(path: &str, ms: u64) -> TestServer {
    TestServer::builder()
        .route(path, Route::ok().delay(std::time::Duration::from_millis(ms)).record())
        .default_route(Route::ok().body("ok").record())
        .start()
}

/// Runs `body` with `users` users and `loops` thread-group iterations against `server`; returns
/// how many requests each target received.
fn run_plan(server: &TestServer, run: &TempRun, users: u32, loops: &str, body: &str) -> BTreeMap<String, u64> {
    run_jmx(server, run, &jmx_plan(users, loops, &format!("{DEFAULTS}{body}")));
    let mut served = BTreeMap::new();
    for r in server.recorded_all() {
        *served.entry(r.target).or_insert(0) += 1;
    }
    served
}

/// JMeter 5's `IteratingController.updateIterationIndex`: pass k of a Loop or While Controller
/// reads `${__jm__<name>__idx}` = k, of a ForEach Controller start index + k; a While
/// condition tested at the end of pass k still reads k (so `< 2` runs 3 passes); once the loop
/// ends (a ForEach out of values, a `break`) the index reads its start again.
#[test]
fn loop_index_variables_count_passes_as_jmeter() {
    let server = TestServer::builder().default_route(Route::ok().body("ok").record()).start();
    let run = TempRun::new("jmx-ctl-idx");
    let values = r#"<Arguments guiclass="ArgumentsPanel" testclass="Arguments" testname="Values" enabled="true">
          <collectionProp name="Arguments.arguments">
            <elementProp name="v_1" elementType="Argument"><stringProp name="Argument.name">v_1</stringProp><stringProp name="Argument.value">a</stringProp></elementProp>
            <elementProp name="v_2" elementType="Argument"><stringProp name="Argument.name">v_2</stringProp><stringProp name="Argument.value">b</stringProp></elementProp>
            <elementProp name="v_3" elementType="Argument"><stringProp name="Argument.name">v_3</stringProp><stringProp name="Argument.value">c</stringProp></elementProp>
          </collectionProp>
        </Arguments><hashTree/>"#;
    let while_ctl = r#"<WhileController guiclass="WhileControllerGui" testclass="WhileController" testname="while" enabled="true">
          <stringProp name="WhileController.condition">${__jexl3(${__jm__while__idx} &lt; 2,)}</stringProp>
        </WhileController>"#;
    let each_ctl = r#"<ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="each" enabled="true">
          <stringProp name="ForeachController.inputVal">v</stringProp>
          <stringProp name="ForeachController.returnVal">out</stringProp>
          <boolProp name="ForeachController.useSeparator">true</boolProp>
          <stringProp name="ForeachController.startIndex">1</stringProp>
        </ForeachController>"#;
    let body = [
        values.to_string(),
        looped(
            "the loop",
            4,
            &(get("every", "/every?i=${__jm__the loop__idx}")
                + &if_ctl("${__jexl3(${__jm__the loop__idx} == 2,)}", &get("two", "/two?i=${__jm__the loop__idx}"))),
        ),
        get("after", "/after?i=${__jm__the loop__idx}"),
        format!("{while_ctl}<hashTree>{}</hashTree>", get("pass", "/while?i=${__jm__while__idx}")),
        format!("{each_ctl}<hashTree>{}</hashTree>", get("each", "/each?i=${__jm__each__idx}&amp;v=${out}")),
        get("after_each", "/after_each?i=${__jm__each__idx}"),
        looped(
            "brk",
            5,
            &(get("in_brk", "/in_brk?i=${__jm__brk__idx}")
                + &if_ctl("${__jexl3(${__jm__brk__idx} == 1,)}", &action("break", 5))),
        ),
        get("after_brk", "/after_brk?i=${__jm__brk__idx}"),
    ]
    .concat();
    let served = run_plan(&server, &run, 2, "2", &body);
    // 2 users x 2 iterations.
    let expected: BTreeMap<String, u64> = [
        "/every?i=0",
        "/every?i=1",
        "/every?i=2",
        "/every?i=3",
        "/two?i=2",
        "/after?i=0",
        "/while?i=0",
        "/while?i=1",
        "/while?i=2",
        "/each?i=1&v=b",
        "/each?i=2&v=c",
        // A ForEach out of values and a loop left by "break current loop" read their start.
        "/after_each?i=1",
        "/in_brk?i=0",
        "/in_brk?i=1",
        "/after_brk?i=0",
    ]
    .iter()
    .map(|t| (t.to_string(), 4))
    .collect();
    assert_eq!(served, expected);
    for (label, n) in [("every", 16), ("two", 4), ("after", 4), ("pass", 12), ("each", 8)] {
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
}

/// Random Order Controller: each pass runs every child once, in an order drawn anew each pass
/// (JMeter's RandomOrderController shuffles on every pass).
#[test]
fn random_order_runs_each_child_once_per_pass_in_a_new_order() {
    let server = TestServer::builder().default_route(Route::ok().body("ok").record()).start();
    let run = TempRun::new("jmx-ctl-random-order");
    let body = format!(
        r#"<RandomOrderController guiclass="RandomOrderControllerGui" testclass="RandomOrderController" testname="shuffle" enabled="true"/>
        <hashTree>{}{}{}</hashTree>{}"#,
        get("a", "/a?u=${__threadNum}"),
        get("b", "/b?u=${__threadNum}"),
        get("c", "/c?u=${__threadNum}"),
        get("end", "/end?u=${__threadNum}"),
    );
    let served = run_plan(&server, &run, 2, "20", &body);
    for p in ["a", "b", "c", "end"] {
        let n: u64 = served.iter().filter(|(t, _)| t.starts_with(&format!("/{p}?"))).map(|(_, n)| n).sum();
        assert_eq!(n, 40, "{p}: {served:?}");
        assert_eq!(uint(&run.label(p), "samples"), 40, "{p}");
    }
    // Per user, in the order it sent them: passes of a, b, c in some order, each ended by /end.
    for u in ["1", "2"] {
        let sent: Vec<String> = server
            .recorded_all()
            .into_iter()
            .filter(|r| r.target.ends_with(&format!("?u={u}")))
            .map(|r| r.target[1..2].to_string())
            .collect();
        let passes: Vec<String> = sent.chunks(4).map(|c| c.concat()).collect();
        assert_eq!(passes.len(), 20);
        for p in &passes {
            let mut order: Vec<char> = p[..3].chars().collect();
            order.sort();
            assert_eq!((order, &p[3..]), (vec!['a', 'b', 'c'], "e"), "{passes:?}");
        }
        // 20 passes in one order have a chance of 6^-19.
        assert!(passes.iter().any(|p| p != &passes[0]), "{passes:?}");
    }
}

/// Runtime Controller (JMeter's RunTime): passes again and again until its seconds have passed
/// since it was entered, checked before each sampler too: with 1 s and a first sampler taking
/// 0.6 s, the second pass's `/a` ends at 1.2 s and its `/b` is not sent. A time of 0 skips it.
#[test]
fn runtime_controller_checks_its_time_before_each_sampler() {
    let server = slow_server("/a", 600);
    let run = TempRun::new("jmx-ctl-runtime");
    let runtime = |name: &str, seconds: &str, children: &str| {
        format!(
            r#"<RunTime guiclass="RunTimeGui" testclass="RunTime" testname="{name}" enabled="true">
          <stringProp name="RunTime.seconds">{seconds}</stringProp>
        </RunTime>
        <hashTree>{children}</hashTree>"#
        )
    };
    let body = [
        runtime("one second", "${__P(rt,1)}", &(get("a", "/a") + &get("b", "/b"))),
        runtime("none", "0", &get("zero", "/zero")),
        runtime("not a number", "1s", &get("nan", "/nan")),
        get("after", "/after"),
    ]
    .concat();
    let started = std::time::Instant::now();
    let served = run_plan(&server, &run, 1, "1", &body);
    assert!(started.elapsed() >= std::time::Duration::from_millis(1200), "{:?}", started.elapsed());
    let expected: BTreeMap<String, u64> =
        [("/a", 2), ("/b", 1), ("/after", 1)].iter().map(|(t, n)| (t.to_string(), *n)).collect();
    assert_eq!(served, expected);
    for (label, n) in [("a", 2), ("b", 1), ("after", 1)] {
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
}

fn critical(name: &str, lock: &str, children: &str) -> String {
    format!(
        r#"<CriticalSectionController guiclass="CriticalSectionControllerGui" testclass="CriticalSectionController" testname="{name}" enabled="true">
          <stringProp name="CriticalSectionController.lockName">{lock}</stringProp>
        </CriticalSectionController>
        <hashTree>{children}</hashTree>"#
    )
}

/// The users' requests in the order the witness received them, as (path, user).
fn sent_in_order(server: &TestServer) -> Vec<(String, String)> {
    server
        .recorded_all()
        .into_iter()
        .map(|r| {
            let (path, user) = r.target.split_once("?u=").expect("a user");
            (path.to_string(), user.to_string())
        })
        .collect()
}

/// Critical Section Controller: one user at a time inside the sections of one lock name, so the
/// witness receives each user's `/enter` and `/leave` back to back although `/enter` is slow; a
/// user that stops inside a section releases its lock (the others still run every pass).
#[test]
fn critical_section_runs_one_user_at_a_time_per_lock() {
    let server = slow_server("/enter", 30);
    let run = TempRun::new("jmx-ctl-critical");
    let stop_first_user = if_ctl("${__jexl3(${__threadNum} == 1,)}", &action("stop", 0));
    let body = [
        critical(
            "serial",
            "${lock}",
            &(get("enter", "/enter?u=${__threadNum}") + &get("leave", "/leave?u=${__threadNum}")),
        ),
        critical("stops", "other", &(get("s", "/s?u=${__threadNum}") + &stop_first_user)),
    ]
    .concat();
    let udv = r#"<Arguments guiclass="ArgumentsPanel" testclass="Arguments" testname="lock" enabled="true">
          <collectionProp name="Arguments.arguments">
            <elementProp name="lock" elementType="Argument"><stringProp name="Argument.name">lock</stringProp><stringProp name="Argument.value">the lock</stringProp></elementProp>
          </collectionProp>
        </Arguments><hashTree/>"#;
    run_plan(&server, &run, 4, "3", &format!("{udv}{body}"));
    let sent = sent_in_order(&server);
    let pairs: Vec<&(String, String)> = sent.iter().filter(|(p, _)| p == "/enter" || p == "/leave").collect();
    // User 1 stops in its first pass, inside "stops": 1 + 3 x 3 passes.
    assert_eq!(pairs.len(), 2 * 10, "{sent:?}");
    for pair in pairs.chunks(2) {
        assert_eq!((pair[0].0.as_str(), pair[1].0.as_str()), ("/enter", "/leave"), "{sent:?}");
        assert_eq!(pair[0].1, pair[1].1, "another user inside the section: {sent:?}");
    }
    assert_eq!(sent.iter().filter(|(p, _)| p == "/s").count(), 10, "{sent:?}");
    for (label, n) in [("enter", 10), ("leave", 10), ("s", 10)] {
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
}

/// Without a shared lock name (`${__threadNum}` gives each user its own) the users' sections
/// overlap: the same plan's requests interleave at the witness.
#[test]
fn critical_sections_of_different_lock_names_overlap() {
    let server = slow_server("/enter", 100);
    let run = TempRun::new("jmx-ctl-critical-own");
    let body = critical(
        "own",
        "L${__threadNum}",
        &(get("enter", "/enter?u=${__threadNum}") + &get("leave", "/leave?u=${__threadNum}")),
    );
    run_plan(&server, &run, 4, "2", &body);
    let sent = sent_in_order(&server);
    assert_eq!(sent.len(), 16);
    assert!(sent.chunks(2).any(|p| p[0].1 != p[1].1), "{sent:?}");
}

/// A Result Status Action Handler acts on the failed samplers in its scope only: "start next
/// thread loop" skips the rest of the iteration, "stop thread" ends the user; a failing sampler
/// outside its scope goes on, as the thread group says.
#[test]
fn result_status_action_handler_acts_on_its_scope() {
    let server =
        TestServer::builder().route("/fail", Route::status(500).record()).default_route(Route::ok().record()).start();
    let port = format!("port={}", server.addr().port());
    for (action, fails, afters) in [(0u32, 6u64, 6u64), (4, 6, 0), (1, 2, 0)] {
        let run = TempRun::new("jmx-result-action");
        let body = [
            DEFAULTS_NOTHING.to_string(),
            sampler("free-fail", "GET", "/fail", "", false, ""),
            dummy("dummy-fail", false, "500", "", 0, false, &result_action(action)),
            sampler("after", "GET", "/after", "", false, ""),
        ]
        .concat();
        let p = run.write("plan.jmx", jmx_plan(2, "3", &body));
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
        let summary = run.summary();
        let count = |l: &str| {
            let labels = summary["labels"].as_array().unwrap();
            labels.iter().find(|r| r["label"] == l).map_or(0, |r| uint(r, "samples"))
        };
        assert_eq!((count("free-fail"), count("dummy-fail")), (fails, fails), "action {action}");
        assert_eq!(count("after"), afters, "action {action}");
    }
    // Every HTTP sample the runs recorded reached the server: 6 + 6 + 6 + 2 in all.
    assert_eq!(server.requests_to("/fail"), 14);
    assert_eq!(server.requests_to("/after"), 6);
}

/// Interleave Controller: one child per pass, in turn, a sub-controller's block as one child;
/// "across threads" starts each user at its number. Set Variables Action sets the path's
/// variable; the Recording Controller is a simple controller.
#[test]
fn interleave_runs_one_child_per_pass_in_turn() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let port = format!("port={}", server.addr().port());
    let set = r#"<kg.apc.jmeter.control.sampler.SetVariablesAction guiclass="kg.apc.jmeter.control.sampler.SetVariablesActionGui" testclass="kg.apc.jmeter.control.sampler.SetVariablesAction" testname="set" enabled="true">
          <elementProp name="SetVariablesAction" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" enabled="true">
            <collectionProp name="Arguments.arguments">
              <elementProp name="base" elementType="Argument"><stringProp name="Argument.name">base</stringProp><stringProp name="Argument.value">i</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>
            </collectionProp>
          </elementProp>
        </kg.apc.jmeter.control.sampler.SetVariablesAction><hashTree/>"#;
    let block = format!(
        r#"<RecordingController guiclass="RecordController" testclass="RecordingController" testname="Recording Controller" enabled="true"/><hashTree>{}{}</hashTree>"#,
        sampler("b1", "GET", "/b1", "", false, ""),
        sampler("b2", "GET", "/b2", "", false, "")
    );
    let kids =
        [sampler("i0", "GET", "/${base}0", "", false, ""), block, sampler("i2", "GET", "/${base}2", "", false, "")]
            .concat();
    // One user, 4 passes: i0, the block, i2, i0. Then 3 users across threads, one pass each:
    // each user starts at its own child.
    for (threads, loops, across, want) in [(1, "4", false, [2u64, 1, 1, 1]), (3, "1", true, [1, 1, 1, 1])] {
        let run = TempRun::new("jmx-interleave");
        let body = [DEFAULTS_NOTHING.to_string(), set.to_string(), interleave(1, across, &kids)].concat();
        let p = run.write("plan.jmx", jmx_plan(threads, loops, &body));
        let before: Vec<u64> = ["/i0", "/b1", "/b2", "/i2"].iter().map(|p| server.requests_to(p)).collect();
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
        let got: Vec<u64> =
            ["/i0", "/b1", "/b2", "/i2"].iter().zip(&before).map(|(p, b)| server.requests_to(p) - b).collect();
        assert_eq!(got, want, "{threads} users, across {across}");
        assert_eq!(uint(&run.summary()["total"], "samples"), want.iter().sum::<u64>());
    }
}

/// "Start next iteration of current loop" and "break current loop", from a Flow Control Action
/// and from a Result Status Action Handler after a failure: `continue` and `break` of the
/// innermost loop; outside any loop, the thread's next iteration and the thread's end.
#[test]
fn current_loop_actions_continue_and_break_the_innermost_loop() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let port = format!("port={}", server.addr().port());
    let s = |n: &str| sampler(n, "GET", &format!("/{n}"), "", false, "");
    let failing = |action: u32| dummy("fail", false, "500", "", 0, false, &result_action(action));
    // (what interrupts, the thread group's loops, then /a, /b, /c served to 2 users)
    let cases = [
        (test_action(4), 1, [6u64, 0, 2]),
        (test_action(5), 1, [2, 0, 2]),
        (failing(5), 1, [6, 0, 2]),
        (failing(6), 1, [2, 0, 2]),
    ];
    for (stop, loops, want) in cases {
        let run = TempRun::new("jmx-current-loop");
        let body =
            [DEFAULTS_NOTHING.to_string(), loop_of(3, &[s("a"), stop.clone(), s("b")].concat()), s("c")].concat();
        let p = run.write("plan.jmx", jmx_plan(2, &loops.to_string(), &body));
        let before: Vec<u64> = ["/a", "/b", "/c"].iter().map(|p| server.requests_to(p)).collect();
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
        let got: Vec<u64> = ["/a", "/b", "/c"].iter().zip(&before).map(|(p, b)| server.requests_to(p) - b).collect();
        assert_eq!(got, want, "{stop}");
    }
    // Outside any loop: a break ends the thread (of 3 iterations, one ran), a continue starts
    // its next iteration.
    for (action, want) in [(5u32, [2u64, 0]), (6, [1, 0])] {
        let run = TempRun::new("jmx-current-loop-top");
        let body = [DEFAULTS_NOTHING.to_string(), s("a"), failing(action), s("b")].concat();
        let p = run.write("plan.jmx", jmx_plan(1, "2", &body));
        let before: Vec<u64> = ["/a", "/b"].iter().map(|p| server.requests_to(p)).collect();
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
        let got: Vec<u64> = ["/a", "/b"].iter().zip(&before).map(|(p, b)| server.requests_to(p) - b).collect();
        assert_eq!(got, want, "action {action}");
    }
}

/// A Loop Controller whose last pass ends with "start next iteration of current loop" leaves
/// its index at its count, as JMeter 5.6.3 does (its TestResultStatusAction plan samples
/// `DS-After-LC-4`); a loop that ends by itself reads 0 again.
#[test]
fn a_loop_continued_on_its_last_pass_keeps_its_count_as_index() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = format!("port={}", server.addr().port());
    let failing = |action: u32| dummy("fail", false, "500", "", 0, false, &result_action(action));
    let after = sampler("after", "GET", "/after-${__jm__loop__idx}", "", false, "");
    for (inside, want) in [(failing(5), "/after-3"), (failing(0), "/after-0")] {
        let run = TempRun::new("jmx-continued-index");
        let body = [DEFAULTS_NOTHING.to_string(), loop_of(3, &inside), after.clone()].concat();
        let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
        let before = server.requests_to(want);
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
        assert_eq!(server.requests_to(want) - before, 1, "{inside}");
    }
}

/// BlazeMeter's Weighted Switch Controller without random choice: each pass takes the child
/// furthest below its share, so 8 passes at 1:2:1 (a disabled row left out) are exactly 2, 4, 2.
#[test]
fn weighted_switch_keeps_each_child_at_its_share() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let port = format!("port={}", server.addr().port());
    let row = |w: u32, on: bool| {
        format!(
            r#"<collectionProp name="r"><stringProp name="1">x</stringProp><stringProp name="2">{w}</stringProp><stringProp name="3">{on}</stringProp></collectionProp>"#
        )
    };
    let rows = [row(10, true), row(20, true), row(99, false), row(10, true)].concat();
    let kids = [
        sampler("w0", "GET", "/w0", "", false, ""),
        sampler("w1", "GET", "/w1", "", false, ""),
        sampler("w2", "GET", "/w2", "", false, ""),
    ]
    .concat();
    let wsc = format!(
        r#"<com.blazemeter.jmeter.control.WeightedSwitchController guiclass="com.blazemeter.jmeter.control.WeightedSwitchControllerGui" testclass="com.blazemeter.jmeter.control.WeightedSwitchController" testname="wsc" enabled="true">
          <collectionProp name="Weights">{rows}</collectionProp>
        </com.blazemeter.jmeter.control.WeightedSwitchController><hashTree>{kids}</hashTree>"#
    );
    let run = TempRun::new("jmx-weighted-switch");
    let p = run.write("plan.jmx", jmx_plan(1, "8", &[DEFAULTS_NOTHING, wsc.as_str()].concat()));
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let got: Vec<u64> = ["/w0", "/w1", "/w2"].iter().map(|p| server.requests_to(p)).collect();
    assert_eq!(got, [2, 4, 2]);
    assert_eq!(uint(&run.summary()["total"], "samples"), 8);
}

/// "Ignore sub-controller blocks" over Interleave Controllers of samplers (JMeter's own
/// InterleaveTestPlan2): one sampler per pass, the order JMeter 5.6.3 gave. Over a Simple
/// Controller's block (several samplers per pass) it is refused, not run another way.
#[test]
fn interleave_ignoring_blocks_over_interleaves_runs_as_jmeter() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = format!("port={}", server.addr().port());
    let s = |n: &str| sampler(n, "GET", &format!("/{n}"), "", false, "");
    let inner =
        [interleave(0, false, &[s("home"), s("cvs")].concat()), interleave(0, false, &[s("bug"), s("faq")].concat())];
    let run = TempRun::new("jmx-interleave-ignore-blocks");
    let p = run.write(
        "plan.jmx",
        jmx_plan(1, "8", &[DEFAULTS_NOTHING.to_string(), interleave(0, false, &inner.concat())].concat()),
    );
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    assert_eq!(paths, ["/home", "/bug", "/cvs", "/faq", "/home", "/bug", "/cvs", "/faq"]);
    let block = format!(
        r#"<GenericController guiclass="LogicControllerGui" testclass="GenericController" testname="block" enabled="true"/><hashTree>{}{}</hashTree>"#,
        s("x"),
        s("y")
    );
    let refused = run
        .write("refused.jmx", jmx_plan(1, "1", &[DEFAULTS_NOTHING.to_string(), interleave(0, false, &block)].concat()));
    let out = Stampede::new().arg("run").arg(&refused).args(["-q", "--out"]).arg(run.root().join("r")).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("ignore sub-controller blocks"), "{}", out.stderr_str());
}

/// JMeter 5.6.3 (`small-while.jmx`): a While condition whose function fails (a `__jexl3`
/// script that does not parse, a `__groovy` script that throws) reads blank, so the loop
/// runs while the last sample succeeds: here until the witness's third answer, a 500.
#[test]
fn a_while_condition_whose_function_fails_loops_while_the_last_sample_succeeds() {
    for (name, condition) in [("jexl", "${__jexl3(1 +)}"), ("groovy", "${__groovy(throw new Exception('no'))}")] {
        let server = TestServer::builder()
            .default_route(
                Route::nth(|n| {
                    if n == 3 {
                        crate::util::server::Reply::status(500)
                    } else {
                        crate::util::server::Reply::ok()
                    }
                })
                .record(),
            )
            .start();
        let run = TempRun::new("small-while");
        let body = format!(
            r#"<WhileController guiclass="WhileControllerGui" testclass="WhileController" testname="W" enabled="true">
          <stringProp name="WhileController.condition">{condition}</stringProp>
        </WhileController><hashTree>{}</hashTree>"#,
            http("w", "GET", "/w/${__jm__W__idx}", "", "")
        );
        let got = run_plan_small(&server, &run, &plan(server.addr().port(), &group_small("g", 1, 1, None, &body)), &[]);
        assert_eq!(targets(&got), ["/w/0", "/w/1", "/w/2"], "{name}");
        assert_eq!(uint(&run.total(), "errors"), 1, "{name}");
    }
}

/// JMeter 5.6.3 with jmeter-plugins-prmctl 0.4 (`plugins-prmctl.jmx`): the Parameterized
/// Controller sets its variables on each `next()`: before each sampler (an extractor's value
/// is replaced again), after a child controller and at its end (they stay set after it); the
/// first of a name given twice; a nested controller's after the outer's; a `__counter` in a
/// value counts each of those calls (1, 2 and then 6, 7 in the second pass, as JMeter).
#[test]
fn parameterized_controller_sets_its_variables_as_jmeter_does() {
    let server = witness();
    let run = TempRun::new("plugins-prmctl");
    let pc = |name: &str, args: &[(&str, &str)], children: &str| {
        let a: String = args
            .iter()
            .map(|(n, v)| format!(r#"<elementProp name="{n}" elementType="Argument"><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{v}</stringProp></elementProp>"#))
            .collect();
        format!(
            r#"<kg.apc.jmeter.control.ParameterizedController guiclass="kg.apc.jmeter.control.ParameterizedControllerGui" testclass="kg.apc.jmeter.control.ParameterizedController" testname="{name}" enabled="true">
          <elementProp name="ParameterizedController" elementType="Arguments"><collectionProp name="Arguments.arguments">{a}</collectionProp></elementProp>
        </kg.apc.jmeter.control.ParameterizedController><hashTree>{children}</hashTree>"#
        )
    };
    let default = r#"<stringProp name="RegexExtractor.default">none</stringProp>"#;
    let regex = &regex_extractor("re", "p1", "false", r#""token":"([^"]+)""#, "$1$", default);
    let inner = get_plugins("/prm/in1/${p1}/${p2}/${n}", regex)
        + &get_plugins("/prm/in2/${p1}/${p2}/${n}", "")
        + &pc("nested", &[("p2", "inner"), ("q", "${__threadNum}")], &get_plugins("/prm/in3/${p1}/${p2}/${q}", regex));
    let body = get_plugins("/prm/before/${p1}", "")
        + &pc("params", &[("p1", "one"), ("p2", "two"), ("p1", "dup"), ("n", "${__counter(TRUE,)}")], &inner)
        + &get_plugins("/prm/after/${p1}/${p2}/${q}", "")
        + &pc("empty", &[("e", "set")], "")
        + &get_plugins("/prm/last/${e}", "");
    let (got, _) = run_plan_plugins(
        &server,
        &run,
        &plan_plugins(server.addr().port(), &group_plugins("ThreadGroup", "prm", "1", "2", &body)),
        &[],
    );
    let pass = |before: &str, n1: u32| {
        [
            format!("/prm/before/{before}"),
            format!("/prm/in1/one/two/{n1}"),
            format!("/prm/in2/one/two/{}", n1 + 1),
            "/prm/in3/one/inner/1".to_string(),
            "/prm/after/one/two/1".to_string(),
            "/prm/last/set".to_string(),
        ]
    };
    let want: Vec<String> = pass("udv", 1).into_iter().chain(pass("one", 6)).collect();
    assert_eq!(targets_plugins(&got), want);
}

/// An If Controller whose JavaScript does not parse (`If condition`) loads with a warning;
/// its children never run, the samplers after it do; `--strict` refuses the plan.
#[test]
fn an_if_condition_that_does_not_parse_is_false_at_each_evaluation() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port();
    let run = TempRun::new("sysreq-if-syntax");
    let body = [
        format!(
            r#"<IfController guiclass="IfControllerPanel" testclass="IfController" testname="bad if" enabled="true"><stringProp name="IfController.condition">If condition</stringProp><boolProp name="IfController.evaluateAll">false</boolProp></IfController><hashTree>{}</hashTree>"#,
            http_client_class("never", "GET", "/never", &[], "")
        ),
        http_client_class("after", "GET", "/after", &[], ""),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let out = check.stdout_str();
    assert!(out.contains("[WARNING]") && out.contains("its children never run"), "{out}");
    let (cmd, _) = run_with_jtl(&run, &file, Some(port));
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/never"), 0);
    assert_eq!(server.requests_to("/after"), 6);
    assert_eq!(server.requests(), 6);
    assert_eq!(uint(&label(&run.summary(), "after"), "samples"), 6);
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
}

/// A thread group of one user, `loops` passes, `props` inside it, holding `body`.
fn group(name: &str, loops: &str, props: &str, body: &str) -> String {
    crate::util::jmx::thread_group("ThreadGroup", name, "1", loops, props, body)
}

fn plan_of_groups(groups: &str) -> String {
    crate::util::jmx::test_plan("Plan", "", groups)
}

/// Rows 6 and 7: an undefined `${var}` where JMeter wants a number, and an empty If condition,
/// load and run as JMeter 5.6.3 ran the same plan (its served counts per path): a loop count
/// of 0, a group with no scheduled duration not started, a Throughput Controller's defaults
/// (100 percent, 1 execution), no pause, an empty condition false; a Constant Throughput Timer
/// of no number holds its user until the group's scheduled end.
#[test]
fn numbers_that_are_no_number_and_an_empty_condition_run_as_in_jmeter() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-numbers");
    let u = "${undef}";
    let get = |path: &str| sampler_placeholder(path, "127.0.0.1", &port, &format!("/{path}"), "");
    let sched = |d: &str| {
        format!(
            r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{d}</stringProp>"#
        )
    };
    let ifc = |name: &str, expr: bool| {
        format!(
            r#"<IfController testclass="IfController" testname="{name}" enabled="true"><stringProp name="IfController.condition"></stringProp><boolProp name="IfController.useExpression">{expr}</boolProp></IfController><hashTree>{}</hashTree>"#,
            get(&format!("{name}_child"))
        )
    };
    let controllers = format!(
        r#"<ThroughputController testclass="ThroughputController" testname="percent" enabled="true"><intProp name="ThroughputController.style">1</intProp><stringProp name="ThroughputController.percentThroughput">{u}</stringProp></ThroughputController><hashTree>{}</hashTree>
        <ThroughputController testclass="ThroughputController" testname="total" enabled="true"><intProp name="ThroughputController.style">0</intProp><stringProp name="ThroughputController.maxThroughput">{u}</stringProp></ThroughputController><hashTree>{}</hashTree>
        <TestAction testclass="TestAction" testname="pause" enabled="true"><intProp name="ActionProcessor.action">1</intProp><stringProp name="ActionProcessor.duration">{u}</stringProp></TestAction><hashTree/>
        {}{}{}"#,
        get("tp_child"),
        get("tt_child"),
        ifc("if_js", false),
        ifc("if_exp", true),
        get("after"),
    );
    let ctt = format!(
        r#"<ConstantThroughputTimer testclass="ConstantThroughputTimer" testname="ctt" enabled="true"><stringProp name="throughput">{u}</stringProp></ConstantThroughputTimer><hashTree/>{}"#,
        get("ctt")
    );
    let groups = [
        group("loops", u, "", &get("loops")),
        group("duration", "2", &sched(u), &get("duration")),
        group("controllers", "2", "", &controllers),
        group("ctt", "-1", &sched("1"), &ctt),
    ]
    .concat();
    let file = run.write("plan.jmx", plan_of_groups(&groups));
    let started = std::time::Instant::now();
    run_jtl(&run, &file);
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "the timer's user ends with its group");
    for (path, n) in [
        ("/loops", 0),
        ("/duration", 0),
        ("/tp_child", 2),
        ("/tt_child", 1),
        ("/if_js_child", 0),
        ("/if_exp_child", 0),
        ("/after", 2),
        ("/ctt", 0),
    ] {
        assert_eq!(server.requests_to(path), n, "{path}");
    }
    assert_eq!(server.requests(), 5);
    let s = run.summary();
    assert_eq!(uint(&label(&s, "after"), "samples"), 2);
}

/// A ForEach Controller's end index `${n}`, set by an extractor while the test runs, is read as
/// each pass starts: the loop takes `it_1`.. up to that index, whatever else is defined.
#[test]
fn a_for_each_end_index_set_at_run_time_is_read_per_pass() {
    let n = AtomicUsize::new(0);
    let server = TestServer::builder()
        .route(
            "/items",
            // Iterations ask for 2, then 3 passes, out of 4 items.
            Route::handler(move |_| {
                let n = 2 + n.fetch_add(1, Ordering::SeqCst) % 2;
                Reply::ok().body(format!(r#"{{"n":"{n}","items":["a","b","c","d"]}}"#))
            })
            .record(),
        )
        .default_route(Route::ok().record())
        .start();
    let extract = [
        regex("n", r#""n":"(\d+)""#, "$1$"),
        json_extractor("it", "$.items[*]", "none").replace(
            "</JSONPostProcessor>",
            r#"<stringProp name="JSONPostProcessor.match_numbers">-1</stringProp></JSONPostProcessor>"#,
        ),
    ]
    .concat();
    let for_each = format!(
        r#"<ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="each" enabled="true">
            <stringProp name="ForeachController.inputVal">it</stringProp>
            <stringProp name="ForeachController.returnVal">x</stringProp>
            <boolProp name="ForeachController.useSeparator">true</boolProp>
            <stringProp name="ForeachController.startIndex">0</stringProp>
            <stringProp name="ForeachController.endIndex">${{n}}</stringProp>
          </ForeachController><hashTree>{}</hashTree>"#,
        sampler("each", "GET", "/each?x=${x}", "", false, "")
    );
    let body = [sampler("items", "GET", "/items", "", false, &extract), for_each].concat();
    let (run, _) = run_plan_json(&server, "jmx-foreach-runtime-end", "2", &body, false);
    let xs: Vec<_> = server.recorded("/each").iter().filter_map(|r| r.query("x")).collect();
    assert_eq!(xs, ["a", "b", "a", "b", "c"]);
    assert_eq!(uint(&run.label("each"), "samples"), 5);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

fn for_each(name: &str, prefix: &str, start: Option<&str>, children: &str) -> String {
    let start =
        start.map_or(String::new(), |s| format!(r#"<stringProp name="ForeachController.startIndex">{s}</stringProp>"#));
    format!(
        r#"<ForeachController guiclass="ForeachControlPanel" testclass="ForeachController" testname="{name}" enabled="true">
                <stringProp name="ForeachController.inputVal">{prefix}</stringProp>
                <stringProp name="ForeachController.returnVal">v</stringProp>
                <boolProp name="ForeachController.useSeparator">true</boolProp>{start}
              </ForeachController><hashTree>{children}</hashTree>"#
    )
}

/// A ForEach Controller whose input prefix and start index come from a CSV row (`a,1`, `b,0`,
/// `a,x`) reads them as each iteration enters it: `a_2` from index 1, `b_1`.. from 0, and a start
/// that is no number is 0, as JMeter's `getPropertyAsInt`; the loop index
/// `__jm__fe__idx` counts from the start and reads it again once the loop is left. A prefix an
/// extractor of the same sample sets (`b`) is read per pass. As JMeter 5.6.3
/// (bench/jmeter/plans/rtvals-foreach.jmx).
#[test]
fn a_for_each_prefix_and_start_index_set_at_run_time_are_read_as_the_loop_is_entered() {
    let server = TestServer::builder()
        .route("/items", Route::ok().body(r#""A":"tok-1","A":"x-7","B":"r-1","B":"r-2","B":"r-3","P":"b""#).record())
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-runtime-foreach");
    run.write("keys.csv", "pfx,start\na,1\nb,0\na,x\n");
    let csv = r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="keys" enabled="true">
                <stringProp name="filename">keys.csv</stringProp><stringProp name="variableNames">pfx,start</stringProp>
                <boolProp name="ignoreFirstLine">true</boolProp><boolProp name="recycle">true</boolProp>
                <boolProp name="stopThread">false</boolProp><stringProp name="shareMode">shareMode.all</stringProp>
              </CSVDataSet><hashTree/>"#;
    let all = |name: &str, re: &str| regex_per_sample(name, re).replace(">1</stringProp>", ">-1</stringProp>");
    let items =
        [all("a", r#""A":"([^"]+)""#), all("b", r#""B":"([^"]+)""#), regex_per_sample("p", r#""P":"(\w+)""#)].concat();
    let body = [
        csv.to_string(),
        sampler("items", "GET", "/items", "", false, &items),
        for_each(
            "fe",
            "${pfx}",
            Some("${start}"),
            &sampler("each", "GET", "/each?v=${v}&amp;i=${__jm__fe__idx}", "", false, ""),
        ),
        for_each("fp", "${p}", None, &sampler("each2", "GET", "/each2?v=${v}", "", false, "")),
        sampler("after", "GET", "/after?i=${__jm__fe__idx}", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "3", &format!("{DEFAULTS_PER_SAMPLE}{body}")));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    Stampede::new().arg("check").arg(&p).args(["--strict", "-J", &port]).run().assert_exit(0);
    let sent = |path: &str| -> Vec<String> { server.recorded(path).iter().map(|r| r.target.clone()).collect() };
    assert_eq!(
        sent("/each"),
        [
            "/each?v=x-7&i=1",
            "/each?v=r-1&i=0",
            "/each?v=r-2&i=1",
            "/each?v=r-3&i=2",
            "/each?v=tok-1&i=0",
            "/each?v=x-7&i=1"
        ]
    );
    assert_eq!(sent("/each2").len(), 9);
    assert_eq!(sent("/after"), ["/after?i=1", "/after?i=0", "/after?i=0"]);
    for (label, n) in [("items", 3), ("each", 6), ("each2", 9), ("after", 3)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (n, 0), "{label}: {row:#}");
    }
    assert_eq!(server.requests(), 21);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}
