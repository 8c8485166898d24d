//! jmeter-plugins elements of real plans (issue 32), each confirmed on JMeter 5.6.3 with the
//! plugin's jar and a plan under `bench/jmeter/plans/plugins-*.jmx`: the Ultimate Thread
//! Group's old column layout as `jmeter -n` runs it, Variables From CSV File, the
//! Parameterized Controller. What the witness receives, and stampede's samples equal to what
//! it served.

use crate::util::jmx::{http, http_defaults, raw_post, regex_extractor, run_witnessed, test_plan, thread_group};
use crate::util::server::{RecordedRequest, Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};

/// A plan with HTTP Request Defaults to the witness and a user-defined variable `p1=udv`.
fn plan(port: u16, body: &str) -> String {
    let udv = r#"<elementProp name="TestPlan.user_defined_variables" elementType="Arguments"><collectionProp name="Arguments.arguments">
        <elementProp name="p1" elementType="Argument"><stringProp name="Argument.name">p1</stringProp><stringProp name="Argument.value">udv</stringProp></elementProp>
      </collectionProp></elementProp>"#;
    test_plan("plugins", udv, &(http_defaults("127.0.0.1", &port.to_string()) + body))
}

fn group(class: &str, name: &str, threads: &str, loops: &str, body: &str) -> String {
    thread_group(class, name, threads, loops, "", body)
}

fn get(path: &str, children: &str) -> String {
    http(path, "", "", path, "GET", children)
}

fn witness() -> TestServer {
    TestServer::builder()
        .default_route(Route::ok().body(r#"{"result":{"token":"tok-1","id":"x-7"},"responseCode":"OK"}"#).record())
        .start()
}

/// Runs `plan.jmx` (beside `files`) and returns what the witness received (stampede's samples
/// equal to it) and `check`'s output.
fn run_plan(server: &TestServer, run: &TempRun, jmx: &str, files: &[(&str, &str)]) -> (Vec<RecordedRequest>, String) {
    for (name, text) in files {
        run.write(name, text);
    }
    let plan = run.write("plan.jmx", jmx);
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    (run_witnessed(server, run, &plan), check.stdout_str().to_string())
}

fn targets(got: &[RecordedRequest]) -> Vec<&str> {
    got.iter().map(|r| r.target.as_str()).collect()
}

/// JMeter 5.6.3 with jmeter-plugins-casutg 2.10 (`plugins-utg-old.jmx`): `jmeter -n` reads
/// each inner collection as a row; in the old column layout the second "row" has 2 cells and
/// the plugin throws as it reaches it. The full first row's user runs (2 loops), the group
/// before it and the setUp group after it run; the group after it and the tearDown group
/// before it never start. `check` says so.
#[test]
fn an_ultimate_thread_group_in_the_old_column_layout_runs_as_jmeter_n_does() {
    let server = witness();
    let run = TempRun::new("plugins-utg-old");
    let cells =
        |v: &[&str]| -> String { v.iter().map(|c| format!(r#"<stringProp name="0">{c}</stringProp>"#)).collect() };
    let cols: String = [["2", "1"], ["0", "0"], ["0", "0"], ["5", "5"], ["0", "0"]]
        .iter()
        .map(|c| format!(r#"<collectionProp name="c">{}</collectionProp>"#, cells(c)))
        .collect();
    let data = format!(
        r#"<collectionProp name="ultimatethreadgroupdata"><collectionProp name="r0">{}</collectionProp>{cols}</collectionProp>"#,
        cells(&["1", "0", "0", "5", "0"])
    );
    let utg = format!(
        r#"<kg.apc.jmeter.threads.UltimateThreadGroup guiclass="kg.apc.jmeter.threads.UltimateThreadGroupGui" testclass="kg.apc.jmeter.threads.UltimateThreadGroup" testname="old" enabled="true">
        {data}
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController"><boolProp name="LoopController.continue_forever">false</boolProp><intProp name="LoopController.loops">2</intProp></elementProp>
        <stringProp name="ThreadGroup.on_sample_error">continue</stringProp>
      </kg.apc.jmeter.threads.UltimateThreadGroup><hashTree>{}</hashTree>"#,
        get("/utg/${__threadNum}", "")
    );
    let groups = [
        group("ThreadGroup", "plainA", "1", "1", &get("/plainA", "")),
        group("PostThreadGroup", "down", "1", "1", &get("/teardownBefore", "")),
        utg,
        group("ThreadGroup", "plainB", "1", "1", &get("/plainB", "")),
        group("SetupThreadGroup", "up", "1", "1", &get("/setupAfter", "")),
    ];
    let (got, check) = run_plan(&server, &run, &plan(server.addr().port(), &groups.concat()), &[]);
    let mut t = targets(&got);
    t.sort();
    assert_eq!(t, ["/plainA", "/setupAfter", "/utg/1", "/utg/1"]);
    assert!(check.contains("row 2 has 2 of the 5 cells"), "{check}");
    assert_eq!(check.matches("not started: <kg.apc.jmeter.threads.UltimateThreadGroup> \"old\"").count(), 2, "{check}");
}

/// JMeter 5.6.3 with jmeter-plugins' Variables From CSV File (`plugins-csvars.jmx`, the same
/// files): prefix, skipped header, comments, one and three fields, a multi-line value, an
/// empty line, "store as properties" read by `__P`, a `;` delimiter with `\r\n` lines; a
/// missing file defines nothing and the run goes on (`${m_x}` sent as written).
#[test]
fn variables_from_csv_file_defines_the_files_rows_as_jmeter_does() {
    let server = witness();
    let run = TempRun::new("plugins-csvars");
    let csvars = |name: &str, file: &str, prefix: &str, delim: &str, skip: u32, props: bool| {
        format!(
            r#"<kg.apc.jmeter.config.VariablesFromCSV guiclass="kg.apc.jmeter.config.VariablesFromCSVGui" testclass="kg.apc.jmeter.config.VariablesFromCSV" testname="{name}" enabled="true">
        <collectionProp name="Arguments.arguments"/>
        <stringProp name="filename">{file}</stringProp><stringProp name="variablesPrefix">{prefix}</stringProp>
        <stringProp name="delimiter">{delim}</stringProp><intProp name="skipLines">{skip}</intProp><boolProp name="storeSysProp">{props}</boolProp>
      </kg.apc.jmeter.config.VariablesFromCSV><hashTree/>"#
        )
    };
    let show = "a=${v_a}|b=${v_b}|one=${v_one}|three=${v_three}|multi=${v_multi}|after=${v_after}|hdr=${v_name}|hash=${v_#c}|P=${__P(v_a,nope)}|Pm=${__P(v_multi,nope)}|missing=${m_x}|semi=${s_k}";
    let body = [
        csvars("vars", "plugins-vars.csv", "v_", ",", 1, true),
        csvars("missing", "plugins-missing.csv", "m_", ",", 0, false),
        csvars("semicolons", "plugins-vars-semi.csv", "s_", ";", 0, false),
        group("ThreadGroup", "csvars", "2", "1", &(raw_post("/csvars/all", show) + &get("/csvars/${v_a}/${s_k}", ""))),
    ];
    let files = [
        ("plugins-vars.csv", "name,value\n# a comment\na,alpha\nb,beta,ignored\none\nmulti,\"line1\nline2\nline3\"\nafter,x y\n\n#c,hash\nthree,1,2,3\n"),
        ("plugins-vars-semi.csv", "k;v;w\r\nj;,\r\n"),
    ];
    let (got, check) = run_plan(&server, &run, &plan(server.addr().port(), &body.concat()), &files);
    // What JMeter 5.6.3 sent, byte for byte.
    let want = "a=alpha|b=beta|one=|three=1|multi=line1\nline2\nline3|after=x y|hdr=${v_name}|hash=${v_#c}|P=alpha|Pm=line1\nline2\nline3|missing=${m_x}|semi=v";
    let posts: Vec<String> =
        got.iter().filter(|r| r.method == "POST").map(|r| String::from_utf8_lossy(&r.body).into_owned()).collect();
    assert_eq!(posts, [want, want]);
    let gets: Vec<&str> = got.iter().filter(|r| r.method == "GET").map(|r| r.target.as_str()).collect();
    assert_eq!(gets, ["/csvars/alpha/v", "/csvars/alpha/v"]);
    assert!(check.contains("plugins-missing.csv") && check.contains("File not found"), "{check}");
}

/// JMeter 5.6.3 with the plugin's jar (`plugins-csvars-nodelim.jmx`): an empty delimiter
/// throws while JMeter compiles the tree ("CSV separator cannot be empty"): nothing is sent
/// and the run ends at once; `check` warns, `--strict` refuses.
#[test]
fn variables_from_csv_file_with_an_empty_delimiter_sends_nothing_as_jmeter() {
    let server = witness();
    let run = TempRun::new("plugins-csvars-nodelim");
    let body = format!(
        r#"<kg.apc.jmeter.config.VariablesFromCSV testclass="kg.apc.jmeter.config.VariablesFromCSV" testname="nodelim" enabled="true">
        <stringProp name="filename">v.csv</stringProp><stringProp name="delimiter"></stringProp>
      </kg.apc.jmeter.config.VariablesFromCSV><hashTree/>{}"#,
        group("ThreadGroup", "g", "1", "1", &get("/nodelim/a", ""))
    );
    let (got, check) = run_plan(&server, &run, &plan(server.addr().port(), &body), &[("v.csv", "a,b\n")]);
    assert!(got.is_empty());
    assert!(check.contains("the delimiter is empty"), "{check}");
    let strict = Stampede::new().arg("check").arg(run.root().join("plan.jmx")).arg("--strict").run();
    strict.assert_exit(2);
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
    let inner = get("/prm/in1/${p1}/${p2}/${n}", regex)
        + &get("/prm/in2/${p1}/${p2}/${n}", "")
        + &pc("nested", &[("p2", "inner"), ("q", "${__threadNum}")], &get("/prm/in3/${p1}/${p2}/${q}", regex));
    let body = get("/prm/before/${p1}", "")
        + &pc("params", &[("p1", "one"), ("p2", "two"), ("p1", "dup"), ("n", "${__counter(TRUE,)}")], &inner)
        + &get("/prm/after/${p1}/${p2}/${q}", "")
        + &pc("empty", &[("e", "set")], "")
        + &get("/prm/last/${e}", "");
    let (got, _) =
        run_plan(&server, &run, &plan(server.addr().port(), &group("ThreadGroup", "prm", "1", "2", &body)), &[]);
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
    assert_eq!(targets(&got), want);
}
