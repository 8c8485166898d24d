//! JMeter's config elements and pre-processors of values: Counters (two of one name, wrap, shared),
//! User Parameters, CSV Data Sets (a missing file stops each user where its scope starts, two on
//! one file share its rows, an empty header name loads), Keystore Configuration, HTTP defaults
//! JMeter does not apply, the write-back file that cannot be opened.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::jmx_assertions::DEFAULTS;
use crate::jmx_http_bodies::{get, group as group_small, http as http_small, plan, run_plan, targets, witness};
use crate::jmx_modifiers::{run_plan as run_plan_modifiers, DEFAULTS as DEFAULTS_MODIFIERS};
use crate::util::jmx::{element, esc, http, http_defaults, loop_controller, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

fn counter(var: &str, start: &str, incr: &str, end: &str, per_user: bool) -> String {
    let per_user = if per_user { "true" } else { "false" };
    element(
        "CounterConfig",
        &format!("counter {var} {start}"),
        &[
            ("CounterConfig.start", start),
            ("CounterConfig.incr", incr),
            ("CounterConfig.end", end),
            ("CounterConfig.name", var),
            ("CounterConfig.format", ""),
            ("CounterConfig.per_user", per_user),
        ],
        "",
    )
}

pub(crate) fn group(threads: u32, loops: u32, body: &str) -> String {
    thread_group("ThreadGroup", "users", &threads.to_string(), &loops.to_string(), "", body)
}

/// Runs `plan` quietly into `run` with `args`, exit 0, and returns how long it took.
pub(crate) fn run_timed(run: &TempRun, plan: String, args: &[&str]) -> Duration {
    let file = run.write("plan.jmx", plan);
    let start = Instant::now();
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).args(args).run().assert_exit(0);
    start.elapsed()
}

/// Values JMeter 5.6.3 sent for bench/jmeter/plans/counter-semantics.jmx: of two counters of
/// one variable the first in the plan is read (its controller calls them last-added first); a
/// start above the end is used every time; a start or increment that is no whole number
/// (a word, spaces around the digits) is 0, and loads.
#[test]
fn counters_count_as_jmeter_counts() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("misc-counters");
    let body = [
        counter("dup", "100", "1", "", true),
        counter("dup", "200", "1", "", true),
        counter("above", "9", "1", "4", true),
        counter("word", "x", "", "", true),
        counter("spaces", " 3", "2 ", "", true),
        counter("wrap", "1", "1", "2", true),
        http("c", "", "", "/c/${dup}/${above}/${word}/${spaces}/${wrap}", "GET", ""),
    ]
    .concat();
    let port = server.addr().port().to_string();
    let plan = test_plan("Counters", "", &[http_defaults("127.0.0.1", &port), group(1, 3, &body)].concat());
    run_timed(&run, plan, &[]);
    assert_eq!(server.requests_to("/c/100/9/0/0/1"), 1);
    assert_eq!(server.requests_to("/c/101/9/0/0/2"), 1);
    assert_eq!(server.requests_to("/c/102/9/0/0/1"), 1);
    assert_eq!(server.requests(), 3);
}

/// A shared counter gives each value once across users: 2 users x 3 passes take 1, 4, 7, ...
/// wrapping after 10 to 1 again, so 1, 4, 7, 10, 1, 4 are served.
#[test]
fn a_shared_counter_hands_each_value_to_one_user_and_wraps() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("misc-counter-shared");
    let body = [counter("g", "1", "3", "10", false), http("g", "", "", "/g/${g}", "GET", "")].concat();
    let port = server.addr().port().to_string();
    let plan = test_plan("Shared", "", &[http_defaults("127.0.0.1", &port), group(2, 3, &body)].concat());
    run_timed(&run, plan, &[]);
    for (path, n) in [("/g/1", 2), ("/g/4", 2), ("/g/7", 1), ("/g/10", 1)] {
        assert_eq!(server.requests_to(path), n, "{path}");
    }
    assert_eq!(server.requests(), 6);
}

#[test]
fn a_write_back_file_that_cannot_be_opened_skips_its_writes_not_the_run() {
    let server = TestServer::builder().default_route(Route::ok().body("id=7").record()).start();
    let run = TempRun::new("jmx-write-back-missing-dir");
    let out = run.root().join("no-such-dir").join("saved.csv");
    let save = format!(
        r#"<BeanShellPostProcessor guiclass="TestBeanGUI" testclass="BeanShellPostProcessor" testname="Save" enabled="true">
                <stringProp name="script">r = vars.get(&quot;n&quot;);
FileWriter fstream = new FileWriter(&quot;{out}&quot;,true);
fstream.write(r+&quot;\n&quot;);
fstream.close();</stringProp>
              </BeanShellPostProcessor><hashTree/>"#,
        out = out.display()
    );
    let body = [DEFAULTS.to_string(), sampler("save", "GET", "/save", "", false, &save)].concat();
    let p = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let port = format!("port={}", server.addr().port());
    let res = Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run();
    res.assert_exit(0);
    // JMeter's script logs the error and leaves the sample alone: the run goes on, warned once.
    let err = res.stderr_str();
    let warning = format!("cannot open {} for writing", out.display());
    assert_eq!(err.matches(&warning).count(), 1, "{err}");
    assert_eq!(server.requests(), 6);
    let row = run.label("save");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{row:#}");
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    assert!(!out.exists());
}

/// Keystore Configuration (16 plans of the corpus) loads as in JMeter; no client
/// certificate is presented, which `check` says; plain HTTP samples are unaffected.
#[test]
fn keystore_configuration_loads_and_plain_http_is_unaffected() {
    let server = witness();
    let run = TempRun::new("small-keystore");
    let keystore = r#"<KeystoreConfig guiclass="TestBeanGUI" testclass="KeystoreConfig" testname="Keystore Configuration" enabled="true">
          <stringProp name="clientCertAliasVarName">alias</stringProp><stringProp name="endIndex">9</stringProp>
          <stringProp name="preload">true</stringProp><stringProp name="startIndex">0</stringProp>
        </KeystoreConfig><hashTree/>"#;
    let jmx = plan(
        server.addr().port(),
        &format!("{keystore}{}", group_small("g", 1, 2, None, &http_small("x", "GET", "/x", "", ""))),
    );
    let got = run_plan(&server, &run, &jmx, &[]);
    assert_eq!(targets(&got), ["/x", "/x"]);
    let plan = run.write("plan.jmx", &jmx);
    let checked = Stampede::new().arg("check").arg(&plan).run();
    checked.assert_exit(0);
    let out = String::from_utf8_lossy(&checked.stdout);
    assert!(out.contains("no client certificate is presented"), "{out}");
}

/// A CSV Data Set reading `file` into `names`.
fn csv(file: &str, names: &str) -> String {
    element(
        "CSVDataSet",
        &format!("csv {}", esc(file)),
        &[("filename", &esc(file)), ("variableNames", names), ("delimiter", ","), ("shareMode", "shareMode.all")],
        "",
    )
}

/// A CSV Data Set whose file is missing (a Windows path, a file kept elsewhere) or is a
/// directory loads; as in JMeter each user stops where the data set's scope starts an
/// iteration ("File NAME must exist and be readable"): the samples before it in the iteration
/// are sent, none in its scope or after. Other thread groups run as usual; `--strict` refuses.
#[test]
fn a_missing_csv_file_loads_and_each_user_stops_where_its_scope_starts() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-csv");
    std::fs::create_dir(run.root().join("adir")).unwrap();
    let group_level = thread_group(
        "ThreadGroup",
        "group level",
        "2",
        "3",
        "",
        &[csv("adir", "u"), get("a", &port, "/a?u=${u}", "")].concat(),
    );
    let in_loop = thread_group(
        "ThreadGroup",
        "in a loop",
        "2",
        "3",
        "",
        &[
            get("before", &port, "/before", ""),
            loop_controller(
                "loop",
                "2",
                &[csv(r"C:\data\users.csv", "u,p"), get("inner", &port, "/inner", "")].concat(),
            ),
        ]
        .concat(),
    );
    let plain = thread_group("ThreadGroup", "plain", "1", "2", "", &get("b", &port, "/b", ""));
    let file = run.write("plan.jmx", test_plan("Plan", "", &[group_level, in_loop, plain].concat()));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let out = check.stdout_str();
    assert!(out.contains("[WARNING] its file") && out.contains("\"File adir must exist and be readable\""), "{out}");
    let (cmd, _) = crate::util::jmx::run_with_jtl(&run, &file, None);
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/a"), 0);
    assert_eq!(server.requests_to("/before"), 2, "each user's first iteration, up to the loop");
    assert_eq!(server.requests_to("/inner"), 0);
    assert_eq!(server.requests_to("/b"), 2);
    assert_eq!(server.requests(), 4);
    let total = run.total();
    assert_eq!((uint(&total, "samples"), uint(&total, "errors")), (4, 0));
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
    assert_eq!(server.requests(), 4, "--strict sends nothing");
}

/// User Parameters with "update once per iteration" off set their values before every sampler
/// in scope (JMeter's `process`), on: as each pass of their controller starts; a per-user
/// Counter with "reset on each Thread Group iteration" starts again in each iteration (JMeter's
/// CounterConfig; Bug62239 and BUG_62847 in JMeter's own test plans). Every request is served.
#[test]
fn user_parameters_and_counters_update_as_jmeter_s_do() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-diff-userparams");
    let params = |name: &str, per_iteration: bool| {
        format!(
            r#"<UserParameters guiclass="UserParametersGui" testclass="UserParameters" testname="{name}" enabled="true">
          <collectionProp name="UserParameters.names"><stringProp name="1">{name}</stringProp></collectionProp>
          <collectionProp name="UserParameters.thread_values"><collectionProp name="2"><stringProp name="3">${{__counter(TRUE,)}}</stringProp></collectionProp></collectionProp>
          <boolProp name="UserParameters.per_iteration">{per_iteration}</boolProp>
        </UserParameters><hashTree/>"#
        )
    };
    let counter = r#"<CounterConfig guiclass="CounterConfigGui" testclass="CounterConfig" testname="Counter" enabled="true">
          <stringProp name="CounterConfig.start">0</stringProp><stringProp name="CounterConfig.end">100</stringProp>
          <stringProp name="CounterConfig.incr">1</stringProp><stringProp name="CounterConfig.name">c</stringProp>
          <boolProp name="CounterConfig.per_user">true</boolProp>
          <boolProp name="CounterConfig.reset_on_tg_iteration">true</boolProp>
        </CounterConfig><hashTree/>"#;
    let looped = format!(
        r#"<LoopController guiclass="LoopControlPanel" testclass="LoopController" testname="L" enabled="true">
          <boolProp name="LoopController.continue_forever">true</boolProp><stringProp name="LoopController.loops">3</stringProp>
        </LoopController><hashTree>{counter}{}</hashTree>"#,
        sampler("c", "GET", "/c?c=${c}", "", false, "")
    );
    let body = [
        DEFAULTS,
        &params("each", false),
        &params("pass", true),
        &sampler("a", "GET", "/a?each=${each}&amp;pass=${pass}", "", false, ""),
        &sampler("b", "GET", "/b?each=${each}&amp;pass=${pass}", "", false, ""),
        &looped,
    ]
    .concat();
    let plan = run.write("plan.jmx", crate::jmx::jmx_plan(1, "2", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&plan).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let sent: Vec<String> = server.recorded_all().iter().map(|r| r.target.clone()).collect();
    // One `__counter(TRUE,)` per User Parameters element: "each" counts before every sampler
    // in its scope (the loop's three too: 1, 2, then 6, 7), "pass" once per iteration of the
    // thread group (1, 2).
    let iteration = |each: [u32; 2], pass: u32| {
        vec![
            format!("/a?each={}&pass={pass}", each[0]),
            format!("/b?each={}&pass={pass}", each[1]),
            "/c?c=0".to_string(),
            "/c?c=1".to_string(),
            "/c?c=2".to_string(),
        ]
    };
    assert_eq!(sent, [iteration([1, 2], 1), iteration([6, 7], 2)].concat());
    assert_eq!(server.requests(), 10);
    assert_eq!(uint(&run.label("c"), "samples"), 6);
}

/// Plans JMeter loads and stampede refused: a CSV Data Set whose header has an empty name (JMeter
/// sets a variable of that name, which no `${}` reads), and HTTP Request Defaults whose GUI class
/// (`HttpDefaultsGuiCustom`) JMeter's sampler takes no configuration from: its port is not used.
#[test]
fn what_jmeter_loads_runs() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-loads");
    run.write("users.csv", "user,,pass\nu1,x,p1\nu2,y,p2\n");
    let body = [
        DEFAULTS_MODIFIERS,
        r#"<ConfigTestElement guiclass="HttpDefaultsGuiCustom" testclass="ConfigTestElementCustom" testname="custom" enabled="true">
          <stringProp name="HTTPSampler.port">9</stringProp>
          <stringProp name="HTTPSampler.path">/elsewhere</stringProp>
        </ConfigTestElement><hashTree/>
        <CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="users" enabled="true">
          <stringProp name="filename">users.csv</stringProp><stringProp name="variableNames"></stringProp>
          <stringProp name="delimiter">,</stringProp><boolProp name="quotedData">false</boolProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#,
        &sampler("login", "GET", "/login", &[arg("u", "${user}", true), arg("p", "${pass}", true)].concat(), false, ""),
    ]
    .concat();
    run_plan_modifiers(&run, &server, &jmx_plan(1, "4", &body));
    assert_eq!(uint(&run.label("login"), "samples"), 4);
    assert_eq!(server.requests(), 4);
    let sent: Vec<String> = server
        .recorded("/login")
        .iter()
        .map(|r| format!("{}:{}", r.query("u").unwrap(), r.query("p").unwrap()))
        .collect();
    assert_eq!(sent, ["u1:p1", "u2:p2", "u1:p1", "u2:p2"]);
}

/// Two CSV Data Sets on one file (with its header) share JMeter's one reader of it: each takes
/// the next row, the second's values win, and the header is read once. Confirmed with JMeter
/// 5.6.3: u2, u1, u3, u2.
#[test]
fn two_data_sets_on_one_file_share_its_rows() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-csv-shared");
    run.write("users.csv", "user,pass\nu1,p1\nu2,p2\nu3,p3\n");
    let ds = |name: &str| {
        format!(
            r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="{name}" enabled="true">
          <stringProp name="filename">users.csv</stringProp><stringProp name="variableNames"></stringProp>
          <stringProp name="delimiter">,</stringProp><boolProp name="quotedData">false</boolProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#
        )
    };
    let body = [
        DEFAULTS_MODIFIERS,
        &ds("one"),
        &ds("two"),
        &sampler("s", "GET", "/s", &[arg("u", "${user}", true), arg("p", "${pass}", true)].concat(), false, ""),
    ]
    .concat();
    run_plan_modifiers(&run, &server, &jmx_plan(1, "4", &body));
    assert_eq!(uint(&run.label("s"), "samples"), 4);
    let sent: Vec<String> =
        server.recorded("/s").iter().map(|r| format!("{}:{}", r.query("u").unwrap(), r.query("p").unwrap())).collect();
    assert_eq!(sent, ["u2:p2", "u1:p1", "u3:p3", "u2:p2"]);
}
