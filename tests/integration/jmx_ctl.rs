//! JMeter's controllers of issue 13 C as the witness receives them: the loop index variables
//! `${__jm__<name>__idx}` of Loop, While and ForEach Controllers. The requests each path
//! received equal stampede's samples and what JMeter 5.6.3 sends.

use crate::jmx::{jmx_plan, run_jmx, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, TempRun};
use std::collections::BTreeMap;

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
