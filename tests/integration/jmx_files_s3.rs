//! Files a plan names that are not there when it runs (#32, files), and JSR223's compiled-script
//! cache: what JMeter 5.6.3 does, on the wire (bench/jmeter/plans/files-missing.jmx and
//! files-cache.jmx agree with it).

use crate::util::jmx::{
    element, esc, http, loop_controller, regex_extractor, response_assertion, test_plan, thread_group,
};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

/// A CSV Data Set reading `file` into `names`.
fn csv(file: &str, names: &str) -> String {
    element(
        "CSVDataSet",
        &format!("csv {}", esc(file)),
        &[("filename", &esc(file)), ("variableNames", names), ("delimiter", ","), ("shareMode", "shareMode.all")],
        "",
    )
}

/// A JSR223 or BeanShell element of `class` with the properties given.
fn script(class: &str, name: &str, props: &[(&str, &str)]) -> String {
    let mut all = vec![("scriptLanguage", "groovy"), ("parameters", "")];
    all.extend_from_slice(props);
    element(class, name, &all, "")
}

fn get(name: &str, port: &str, path: &str, children: &str) -> String {
    http(name, "127.0.0.1", port, path, "GET", children)
}

/// JTL rows of `name` that failed with a message holding `message`.
fn failed(jtl: &str, name: &str, message: &str) -> usize {
    jtl.lines().filter(|l| l.contains(&format!(",{name},")) && l.contains(message) && l.contains(",false,")).count()
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

/// A JSR223 or BeanShell element whose script file is missing loads: a sampler's every sample
/// fails with JMeter's message, a pre- or post-processor logs it and the sample goes on.
#[test]
fn a_missing_script_file_fails_each_script_sample_and_the_others_go_on() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-script");
    let body = [
        script("JSR223Sampler", "jsr", &[("filename", "missing.groovy"), ("cacheKey", "true"), ("script", "")]),
        get(
            "after",
            &port,
            "/after",
            &[
                script("JSR223PreProcessor", "pre", &[("filename", "missing.groovy"), ("script", "")]),
                script("BeanShellPostProcessor", "post", &[("filename", "missing.bsh"), ("script", "")]),
            ]
            .concat(),
        ),
    ]
    .concat();
    let file = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "3", "", &body)));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("each sample fails, as in JMeter: Script file"), "{}", check.stdout_str());
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/after"), 3);
    assert_eq!(server.requests(), 3);
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert_eq!(failed(&rows, "jsr", "missing.groovy' is not a file for element: jsr"), 3, "{rows}");
    let s = run.summary();
    assert_eq!(uint(&label(&s, "jsr"), "errors"), 3);
    assert_eq!(uint(&label(&s, "after"), "errors"), 0);
}

/// JSR223 with "Cache compiled script" (the default) runs, per user, the text its first run
/// rendered: `${n}` keeps its first value and `${__threadNum}` its user's; without the cache
/// and in BeanShell the text is rendered on every run (JMeter 5.6.3: 1-1 1-1 1-1 / 2-1 2-1 2-1).
#[test]
fn a_cached_jsr223_script_keeps_each_users_first_rendering() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-cache");
    let counter = element(
        "CounterConfig",
        "n",
        &[("CounterConfig.start", "1"), ("CounterConfig.incr", "1"), ("CounterConfig.name", "n")],
        "",
    )
    .replace("</CounterConfig>", "<boolProp name=\"CounterConfig.per_user\">true</boolProp></CounterConfig>");
    let text = esc(r#"vars.put("seen", "${__threadNum}-${n}")"#);
    let pre = |class: &str, cache: &str| script(class, "pre", &[("cacheKey", cache), ("script", &text)]);
    let body = [
        counter,
        get("cached", &port, "/cached?seen=${seen}", &pre("JSR223PreProcessor", "true")),
        get("uncached", &port, "/uncached?seen=${seen}", &pre("JSR223PreProcessor", "false")),
        get("bsh", &port, "/bsh?seen=${seen}", &pre("BeanShellPreProcessor", "")),
    ]
    .concat();
    let file = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "2", "3", "", &body)));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("replaced on each user's first run only"), "{}", check.stdout_str());
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let seen = |path: &str| {
        let mut v: Vec<String> = server.recorded(path).iter().filter_map(|r| r.query("seen")).collect();
        v.sort();
        v
    };
    assert_eq!(seen("/cached"), ["1-1", "1-1", "1-1", "2-1", "2-1", "2-1"]);
    assert_eq!(seen("/uncached"), ["1-1", "1-2", "1-3", "2-1", "2-2", "2-3"]);
    assert_eq!(seen("/bsh"), ["1-1", "1-2", "1-3", "2-1", "2-2", "2-3"]);
    assert_eq!(server.requests(), 18);
}

/// A file to upload named with a variable an extractor sets is named and read per sample: before
/// the variable is set, the sample fails (no such file, unsent); after, the file is sent with
/// its own name. A name that leads out of the plan's directory at run time is never read.
#[test]
fn an_upload_path_with_a_run_time_variable_is_read_per_sample() {
    let server = TestServer::builder()
        .route("/token", Route::handler(|_| Reply::ok().body("tok=one p=../secret.txt")))
        .default_route(Route::ok())
        .record_all()
        .start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-upload");
    let dir = run.root().join("plan");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("up-one.txt"), "uploaded one").unwrap();
    run.write("secret.txt", "SECRET");
    let upload = |name: &str, path: &str, file: &str| {
        format!(
            r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="{file}" elementType="HTTPFileArg"><stringProp name="File.path">{file}</stringProp><stringProp name="File.paramname">f</stringProp><stringProp name="File.mimetype">text/plain</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp><stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
        )
    };
    let body = [
        upload("up", "/up", "up-${tok}.txt"),
        upload("out", "/out", "${p}"),
        get(
            "token",
            &port,
            "/token",
            &[
                regex_extractor("tok", "tok", "false", "tok=(\\w+)", "$1$", ""),
                regex_extractor("p", "p", "false", "p=(\\S+)", "$1$", ""),
            ]
            .concat(),
        ),
    ]
    .concat();
    let file = dir.join("plan.jmx");
    std::fs::write(&file, test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "3", "", &body))).unwrap();
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    cmd.run().assert_exit(0);
    let ups = server.recorded("/up");
    assert_eq!(ups.len(), 2, "iterations 2 and 3");
    for r in &ups {
        let b = String::from_utf8_lossy(&r.body);
        assert!(b.contains("filename=\"up-one.txt\"") && b.contains("\r\n\r\nuploaded one\r\n"), "{b}");
    }
    assert_eq!(server.requests_to("/out"), 0, "never read outside the plan's directory");
    assert_eq!(server.requests_to("/token"), 3);
    assert_eq!(server.requests(), 5);
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert_eq!(failed(&rows, "up", "java.io.FileNotFoundException"), 1, "{rows}");
    assert_eq!(failed(&rows, "out", "java.io.FileNotFoundException"), 3, "{rows}");
    assert!(!rows.contains("SECRET"));
}

/// A file to upload whose name holds a function is named once per sample: the file checked is
/// the file sent, and `__counter` counts one a sample. 1 user x 3 iterations of
/// `f-${tok}-${__counter(TRUE,)}.bin` (`tok` from a response, so the file is named at run time)
/// send f-one-1, f-one-2 and f-one-3, each with its own bytes (rendered twice a sample, the
/// second rendering's f-one-2, f-one-4 and f-one-6 went).
#[test]
fn an_upload_path_with_a_function_is_rendered_once_per_sample() {
    let server = TestServer::builder()
        .route("/token", Route::handler(|_| Reply::ok().body("tok=one")))
        .default_route(Route::ok())
        .record_all()
        .start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-upload-once");
    let dir = run.root().join("plan");
    std::fs::create_dir(&dir).unwrap();
    for n in 1..=6 {
        std::fs::write(dir.join(format!("f-one-{n}.bin")), format!("bytes of file {n}")).unwrap();
    }
    let sampler = format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="up" enabled="true">
          <elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="f" elementType="HTTPFileArg"><stringProp name="File.path">f-${{tok}}-${{__counter(TRUE,)}}.bin</stringProp><stringProp name="File.paramname">f</stringProp><stringProp name="File.mimetype">application/octet-stream</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/up</stringProp><stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    );
    let token = get("token", &port, "/token", &regex_extractor("tok", "tok", "false", "tok=(\\w+)", "$1$", ""));
    let body = [token, sampler].concat();
    let file = dir.join("plan.jmx");
    std::fs::write(&file, test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "3", "", &body))).unwrap();
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    cmd.run().assert_exit(0);
    let sent: Vec<(String, String)> = server
        .recorded("/up")
        .iter()
        .map(|r| {
            let b = String::from_utf8_lossy(&r.body).into_owned();
            let name = b.split("filename=\"").nth(1).and_then(|t| t.split('"').next()).unwrap_or_default().to_string();
            let content =
                b.split("\r\n\r\n").nth(1).and_then(|t| t.split("\r\n").next()).unwrap_or_default().to_string();
            (name, content)
        })
        .collect();
    let want: Vec<(String, String)> =
        (1..=3).map(|n| (format!("f-one-{n}.bin"), format!("bytes of file {n}"))).collect();
    assert_eq!(sent, want);
    assert_eq!((server.requests_to("/token"), server.requests()), (3, 6));
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert_eq!(rows.lines().filter(|l| l.contains(",up,") && l.contains(",true,")).count(), 3, "{rows}");
}

/// An upload's sampler data (a Request Data assertion, a script's `prev.getSamplerData()`) shows
/// HttpClient 4's `<actual file content, not shown here>` for the file part, not the file, and
/// the text part's value; the file itself is sent. 1 user x 2 iterations.
#[test]
fn an_uploads_sampler_data_shows_jmeters_placeholder_for_the_file() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("files-upload-sampler-data");
    let dir = run.root().join("plan");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("a.bin"), "FILEBYTES").unwrap();
    let placeholder = "<actual file content, not shown here>";
    let checks = [
        response_assertion("shown", "Assertion.request_data", 16, placeholder),
        response_assertion("value", "Assertion.request_data", 16, "text value"),
        response_assertion("hidden", "Assertion.request_data", 16 | 4, "FILEBYTES"),
        script(
            "JSR223PostProcessor",
            "read",
            &[(
                "script",
                &esc(&format!(
                    "def d = prev.getSamplerData(); vars.put('shown', (d.contains('{placeholder}') && !d.contains('FILEBYTES')) ? 'yes' : 'no')"
                )),
            )],
        ),
    ]
    .concat();
    let sampler = format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="up" enabled="true">
          <elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="a.bin" elementType="HTTPFileArg"><stringProp name="File.path">a.bin</stringProp><stringProp name="File.paramname">f</stringProp><stringProp name="File.mimetype">application/octet-stream</stringProp></elementProp>
          </collectionProp></elementProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="t" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.name">t</stringProp><stringProp name="Argument.value">text value</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/up</stringProp><stringProp name="HTTPSampler.method">POST</stringProp>
          <boolProp name="HTTPSampler.DO_MULTIPART_POST">true</boolProp>
        </HTTPSamplerProxy><hashTree>{checks}</hashTree>"#
    );
    let body = [sampler, get("after", &port, "/after?shown=${shown}", "")].concat();
    let file = dir.join("plan.jmx");
    std::fs::write(&file, test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "2", "", &body))).unwrap();
    let (cmd, _jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    cmd.run().assert_exit(0);
    let s = run.summary();
    let up = label(&s, "up");
    assert_eq!((uint(&up, "samples"), uint(&up, "errors")), (2, 0), "{up:#}");
    let ups = server.recorded("/up");
    assert_eq!(ups.len(), 2);
    assert!(ups.iter().all(|r| String::from_utf8_lossy(&r.body).contains("\r\n\r\nFILEBYTES\r\n")));
    let shown: Vec<Option<String>> = server.recorded("/after").iter().map(|r| r.query("shown")).collect();
    assert_eq!(shown, [Some("yes".to_string()), Some("yes".to_string())]);
    assert_eq!(server.requests(), 4);
}
