//! The elements real plans use (issue 13, C): samplers that send nothing (Debug, Dummy, Java
//! test clients) mixed with HTTP requests, and the Result Status Action Handler. Sample counts
//! per label are what the plan implies; HTTP requests equal what the witness served.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{float, uint, OutputExt, Stampede, TempRun};

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

pub(crate) fn dummy(name: &str, ok: bool, code: &str, data: &str, ms: u32, wait: bool, children: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.samplers.DummySampler guiclass="kg.apc.jmeter.samplers.DummySamplerGui" testclass="kg.apc.jmeter.samplers.DummySampler" testname="{name}" enabled="true">
          <boolProp name="WAITING">{wait}</boolProp>
          <boolProp name="SUCCESFULL">{ok}</boolProp>
          <stringProp name="RESPONSE_CODE">{code}</stringProp>
          <stringProp name="RESPONSE_MESSAGE">OK</stringProp>
          <stringProp name="REQUEST_DATA"></stringProp>
          <stringProp name="RESPONSE_DATA">{data}</stringProp>
          <stringProp name="RESPONSE_TIME">{ms}</stringProp>
          <stringProp name="LATENCY">0</stringProp>
          <stringProp name="CONNECT">0</stringProp>
        </kg.apc.jmeter.samplers.DummySampler><hashTree>{children}</hashTree>"#
    )
}

fn java(name: &str, class: &str, args: &[(&str, &str)]) -> String {
    let args: String = args
        .iter()
        .map(|(n, v)| {
            format!(
                r#"<elementProp name="{n}" elementType="Argument"><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{v}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>"#
            )
        })
        .collect();
    format!(
        r#"<JavaSampler guiclass="JavaTestSamplerGui" testclass="JavaSampler" testname="{name}" enabled="true">
          <elementProp name="arguments" elementType="Arguments" guiclass="ArgumentsPanel" testclass="Arguments" enabled="true">
            <collectionProp name="Arguments.arguments">{args}</collectionProp>
          </elementProp>
          <stringProp name="classname">org.apache.jmeter.protocol.java.test.{class}</stringProp>
        </JavaSampler><hashTree/>"#
    )
}

pub(crate) fn regex(var: &str, re: &str) -> String {
    let default = r#"<stringProp name="RegexExtractor.default">none</stringProp>"#;
    crate::util::jmx::regex_extractor("re", var, "false", re, "$1$", default)
}

fn result_action(action: u32) -> String {
    format!(
        r#"<ResultAction guiclass="ResultActionGui" testclass="ResultAction" testname="Result Status Action Handler" enabled="true">
            <intProp name="OnError.action">{action}</intProp>
          </ResultAction><hashTree/>"#
    )
}

/// Debug, Dummy and Java samplers are samples of their own labels; a Dummy's response data
/// feeds an extractor whose value the next HTTP request sends; the HTTP requests alone reach
/// the server.
#[test]
fn samplers_that_send_nothing_are_samples_and_feed_extractors() {
    let server = TestServer::builder().default_route(Route::ok().body("fine").record()).start();
    let run = TempRun::new("jmx-synthetic");
    let body = [
        DEFAULTS.to_string(),
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="debug" enabled="true">
          <boolProp name="displayJMeterProperties">false</boolProp>
          <boolProp name="displayJMeterVariables">true</boolProp>
          <boolProp name="displaySystemProperties">false</boolProp>
        </DebugSampler><hashTree/>"#
            .to_string(),
        dummy("token", true, "200", "token=t${__threadNum}x", 0, false, &regex("tok", "token=(\\w+)")),
        sampler("use", "GET", "/use?tok=${tok}", "", false, ""),
        dummy("slow", true, "201", "", 40, true, ""),
        dummy("stated", true, "200", "", 5000, false, ""),
        dummy("bad", false, "500", "", 0, false, ""),
        java("java-ok", "JavaTest", &[("Sleep_Time", "5"), ("Sleep_Mask", "0"), ("ResponseCode", "200")]),
        java("java-err", "JavaTest", &[("Sleep_Time", "0"), ("Label", "renamed"), ("Status", "ERROR")]),
        java("sleep", "SleepTest", &[("SleepTime", "3"), ("SleepMask", "0")]),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &p, Some(server.addr().port()));
    let started = std::time::Instant::now();
    cmd.run().assert_exit(0);
    // "stated" says 5 s without waiting them.
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    for (label, errors) in [
        ("debug", 0),
        ("token", 0),
        ("use", 0),
        ("slow", 0),
        ("stated", 0),
        ("bad", 6),
        ("java-ok", 0),
        ("renamed", 6),
        ("sleep", 0),
    ] {
        let row = run.label(label);
        assert_eq!(uint(&row, "samples"), 6, "{label}: {row:#}");
        assert_eq!(uint(&row, "errors"), errors, "{label}: {row:#}");
    }
    assert!(float(&run.label("slow"), "mean_ms") >= 40.0);
    assert!(float(&run.label("java-ok"), "mean_ms") >= 5.0);
    assert_eq!(float(&run.label("stated"), "mean_ms"), 5000.0);
    // Only the HTTP sampler reached the server, each with its user's token.
    assert_eq!(server.requests(), 6);
    assert_eq!(server.requests_to("/use"), 6);
    let mut toks: Vec<String> = server.recorded("/use").iter().filter_map(|r| r.query("tok")).collect();
    toks.sort();
    assert_eq!(toks, ["t1x", "t1x", "t1x", "t2x", "t2x", "t2x"]);
    // The JTL has a row per sample, with the sampler's code and success.
    let text = std::fs::read_to_string(&jtl).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 9 * 6);
    for r in rows.iter().filter(|r| r[2] == "slow") {
        assert_eq!((r[3], r[7]), ("201", "true"));
    }
    for r in rows.iter().filter(|r| r[2] == "bad") {
        assert_eq!((r[3], r[7]), ("500", "false"));
    }
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
            DEFAULTS.to_string(),
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

fn interleave(style: u32, across: bool, children: &str) -> String {
    format!(
        r#"<InterleaveControl guiclass="InterleaveControlGui" testclass="InterleaveControl" testname="Interleave" enabled="true">
          <intProp name="InterleaveControl.style">{style}</intProp>
          <boolProp name="InterleaveControl.accrossThreads">{across}</boolProp>
        </InterleaveControl><hashTree>{children}</hashTree>"#
    )
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
        let body = [DEFAULTS.to_string(), set.to_string(), interleave(1, across, &kids)].concat();
        let p = run.write("plan.jmx", jmx_plan(threads, loops, &body));
        let before: Vec<u64> = ["/i0", "/b1", "/b2", "/i2"].iter().map(|p| server.requests_to(p)).collect();
        Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
        let got: Vec<u64> =
            ["/i0", "/b1", "/b2", "/i2"].iter().zip(&before).map(|(p, b)| server.requests_to(p) - b).collect();
        assert_eq!(got, want, "{threads} users, across {across}");
        assert_eq!(uint(&run.summary()["total"], "samples"), want.iter().sum::<u64>());
    }
}

fn loop_of(count: u32, children: &str) -> String {
    crate::util::jmx::loop_controller("loop", &count.to_string(), children)
}

fn test_action(action: u32) -> String {
    format!(
        r#"<TestAction guiclass="TestActionGui" testclass="TestAction" testname="act" enabled="true">
          <intProp name="ActionProcessor.action">{action}</intProp>
          <intProp name="ActionProcessor.target">0</intProp>
          <stringProp name="ActionProcessor.duration"></stringProp>
        </TestAction><hashTree/>"#
    )
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
        let body = [DEFAULTS.to_string(), loop_of(3, &[s("a"), stop.clone(), s("b")].concat()), s("c")].concat();
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
        let body = [DEFAULTS.to_string(), s("a"), failing(action), s("b")].concat();
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
        let body = [DEFAULTS.to_string(), loop_of(3, &inside), after.clone()].concat();
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
    let p = run.write("plan.jmx", jmx_plan(1, "8", &[DEFAULTS, wsc.as_str()].concat()));
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let got: Vec<u64> = ["/w0", "/w1", "/w2"].iter().map(|p| server.requests_to(p)).collect();
    assert_eq!(got, [2, 4, 2]);
    assert_eq!(uint(&run.summary()["total"], "samples"), 8);
}

/// A plan of these elements together, run by JMeter 5.6.3 (3 threads, 5 loops): the per-label
/// counts below are those of JMeter's JTL (and the order of each thread's samples matched
/// too): Interleave across threads and not, a Recording Controller's block, a Debug Sampler,
/// "next iteration of current loop" and "break current loop" from a Flow Control Action and
/// from a Result Status Action Handler.
#[test]
fn a_plan_of_these_elements_counts_as_jmeter_5_6_3() {
    let server =
        TestServer::builder().route("/fail", Route::status(500).record()).default_route(Route::ok().record()).start();
    let port = format!("port={}", server.addr().port());
    let s = |n: &str| sampler(n, "GET", &format!("/{n}"), "", false, "");
    let rec = format!(
        r#"<RecordingController guiclass="RecordController" testclass="RecordingController" testname="rec" enabled="true"/><hashTree>{}{}</hashTree>"#,
        s("b1"),
        s("b2")
    );
    let debug =
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true"/><hashTree/>"#;
    let body = [
        DEFAULTS.to_string(),
        interleave(1, true, &[s("i0"), rec, s("i2")].concat()),
        interleave(1, false, &[s("j0"), s("j1"), s("j2"), s("j3")].concat()),
        loop_of(3, &[s("a"), test_action(4), s("a2")].concat()),
        debug.to_string(),
        loop_of(3, &[s("c"), sampler("fail", "GET", "/fail", "", false, &result_action(6)), s("d")].concat()),
        loop_of(2, &[s("g"), test_action(5), s("h")].concat()),
        s("e"),
    ]
    .concat();
    let run = TempRun::new("jmx-as-jmeter");
    let p = run.write("plan.jmx", jmx_plan(3, "5", &body));
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let jmeter = [
        ("a", 45),
        ("b1", 5),
        ("b2", 5),
        ("c", 15),
        ("dbg", 15),
        ("e", 15),
        ("fail", 15),
        ("g", 15),
        ("i0", 5),
        ("i2", 5),
        ("j0", 6),
        ("j1", 3),
        ("j2", 3),
        ("j3", 3),
    ];
    let summary = run.summary();
    let labels = summary["labels"].as_array().unwrap();
    assert_eq!(labels.len(), jmeter.len(), "{labels:#?}");
    for (label, n) in jmeter {
        assert_eq!(uint(&run.label(label), "samples"), n, "{label}");
    }
    // Every HTTP sample reached the server; the Debug Sampler's did not.
    assert_eq!(server.requests(), jmeter.iter().map(|(_, n)| n).sum::<u64>() - 15);
}

/// A thread group of samplers that send nothing and never wait, looping forever, still ends
/// at its duration: the users yield to the runtime.
#[test]
fn samplers_that_never_wait_end_at_the_duration() {
    let run = TempRun::new("jmx-synthetic-spin");
    let debug =
        r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true"/><hashTree/>"#;
    let body = [debug.to_string(), dummy("d", true, "200", "x", 0, false, "")].concat();
    let plan = jmx_plan(4, "-1", &body).replace(
        r#"<boolProp name="ThreadGroup.scheduler">false</boolProp>"#,
        r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">1</stringProp>"#,
    );
    let p = run.write("plan.jmx", plan);
    let started = std::time::Instant::now();
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    let (dbg, d) = (uint(&run.label("dbg"), "samples"), uint(&run.label("d"), "samples"));
    // A user cut by the end may have run its Debug Sampler and not yet its Dummy.
    assert!(dbg > 0 && d <= dbg && dbg <= d + 4, "{dbg} {d}");
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
    let p = run
        .write("plan.jmx", jmx_plan(1, "8", &[DEFAULTS.to_string(), interleave(0, false, &inner.concat())].concat()));
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    assert_eq!(paths, ["/home", "/bug", "/cvs", "/faq", "/home", "/bug", "/cvs", "/faq"]);
    let block = format!(
        r#"<GenericController guiclass="LogicControllerGui" testclass="GenericController" testname="block" enabled="true"/><hashTree>{}{}</hashTree>"#,
        s("x"),
        s("y")
    );
    let refused =
        run.write("refused.jmx", jmx_plan(1, "1", &[DEFAULTS.to_string(), interleave(0, false, &block)].concat()));
    let out = Stampede::new().arg("run").arg(&refused).args(["-q", "--out"]).arg(run.root().join("r")).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("ignore sub-controller blocks"), "{}", out.stderr_str());
}

/// A Debug Sampler showing properties lists the `-J` values in its body, which no file of the
/// run directory holds.
#[test]
fn debug_sampler_properties_stay_out_of_the_run_directory() {
    let run = TempRun::new("jmx-debug-secret");
    let debug = r#"<DebugSampler guiclass="TestBeanGUI" testclass="DebugSampler" testname="dbg" enabled="true">
          <boolProp name="displayJMeterProperties">true</boolProp>
        </DebugSampler><hashTree/>"#;
    let p = run.write("plan.jmx", jmx_plan(1, "2", debug));
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "-J", "api_password=s3cr3t-debug-value", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(uint(&run.label("dbg"), "samples"), 2);
    for entry in std::fs::read_dir(run.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(!String::from_utf8_lossy(&bytes).contains("s3cr3t-debug-value"), "{}", path.display());
    }
}

/// Review of #13: a Dummy Sampler's response time, latency and connect time are the plan's
/// text; figures past what a duration holds panicked the user (the run lost its samples).
#[test]
fn a_dummy_sampler_s_huge_figures_do_not_panic() {
    let run = TempRun::new("jmx-dummy-huge");
    let huge = "18446744073709551615";
    let d = dummy("huge", true, "200", "x", 1, false, "")
        .replace(
            r#"<stringProp name="RESPONSE_TIME">1</stringProp>"#,
            &format!(r#"<stringProp name="RESPONSE_TIME">{huge}</stringProp>"#),
        )
        .replace(
            r#"<stringProp name="LATENCY">0</stringProp>"#,
            &format!(r#"<stringProp name="LATENCY">{huge}</stringProp>"#),
        )
        .replace(
            r#"<stringProp name="CONNECT">0</stringProp>"#,
            r#"<stringProp name="CONNECT">18446744073709551</stringProp>"#,
        );
    let p = run.write("plan.jmx", jmx_plan(2, "3", &d));
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let row = run.label("huge");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{row:#}");
}
