//! Smaller differences from JMeter 5.6.3 that issue 32 found where both tools run a plan, each
//! confirmed on JMeter with a plan under `bench/jmeter/plans/small-*.jmx`: what the witness
//! receives, and stampede's samples equal to what it served.

use crate::util::server::{RecordedRequest, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

/// A plan whose thread groups run one after the other ("Run Thread Groups consecutively"),
/// with HTTP Request Defaults to the witness.
fn plan(port: u16, body: &str) -> String {
    use crate::util::jmx::{http_defaults, test_plan};
    let consecutive = r#"<boolProp name="TestPlan.serialize_threadgroups">true</boolProp>"#;
    test_plan("small", consecutive, &[http_defaults("127.0.0.1", &port.to_string()), body.to_string()].concat())
}

/// A thread group; `duration` in seconds turns the scheduler on.
fn group(name: &str, threads: u32, loops: i64, duration: Option<u32>, body: &str) -> String {
    let scheduler = match duration {
        Some(d) => format!(
            r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{d}</stringProp>"#
        ),
        None => String::new(),
    };
    crate::util::jmx::thread_group("ThreadGroup", name, &threads.to_string(), &loops.to_string(), &scheduler, body)
}

fn loop_controller(loops: i64, body: &str) -> String {
    crate::util::jmx::loop_controller("inner", &loops.to_string(), body)
}

/// A CSV Data Set shared by all threads, recycled at its end.
fn csv(file: &str, names: &str) -> String {
    format!(
        r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="{file}" enabled="true">
          <stringProp name="filename">{file}</stringProp><stringProp name="variableNames">{names}</stringProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp><stringProp name="delimiter">,</stringProp>
        </CSVDataSet><hashTree/>"#
    )
}

/// An HTTP Request; `extra` goes inside the element (body, files, implementation).
fn http(name: &str, method: &str, path: &str, extra: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">{method}</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">true</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>{extra}
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

fn witness() -> TestServer {
    TestServer::builder().default_route(Route::ok().body(r#"{"a":"x","b":"y"}"#).record()).start()
}

/// Runs `plan.jmx` written into `run` (with its files) and returns what the witness received,
/// after checking that stampede's samples equal the requests it served.
fn run_plan(server: &TestServer, run: &TempRun, jmx: &str, args: &[&str]) -> Vec<RecordedRequest> {
    let plan = run.write("plan.jmx", jmx);
    let out = Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "--out"])
        .arg(run.path())
        .args(args)
        .timeout(std::time::Duration::from_secs(30))
        .run();
    out.assert_exit(0);
    let got = server.recorded_all();
    assert_eq!(uint(&run.total(), "samples"), server.requests(), "{got:?}");
    assert_eq!(got.len() as u64, server.requests());
    got
}

fn targets(got: &[RecordedRequest]) -> Vec<String> {
    got.iter().map(|r| r.target.clone()).collect()
}

/// JMeter 5.6.3 (`bench/jmeter/plans/small-idle.jmx`): a thread without a sampler starts one
/// iteration, whatever its loop count or duration, and ends: it takes one row of the data set
/// of its group, and each controller in it is entered once (a Loop Controller of 3 takes one
/// row of its own data set). So the next group's rows shift by one per such thread.
#[test]
fn a_thread_group_without_a_sampler_takes_one_row_per_thread_and_ends() {
    let server = witness();
    let run = TempRun::new("small-idle");
    run.write("rows.csv", (1..=20).map(|i| format!("r{i}\n")).collect::<String>());
    run.write("inner.csv", (1..=20).map(|i| format!("s{i}\n")).collect::<String>());
    let rows = csv("rows.csv", "row");
    let inner = csv("inner.csv", "other");
    let groups = [
        group("once", 1, 1, None, ""),
        group("three loops", 1, 3, None, ""),
        group("forever for 1 s", 1, -1, Some(1), ""),
        group("two threads", 2, 1, None, ""),
        group("nested loops", 1, 2, None, &loop_controller(3, &inner)),
        group("nested forever", 1, -1, None, &loop_controller(-1, &inner)),
        group("sends", 1, 2, None, &format!("{inner}{}", http("row", "GET", "/idle/${row}/${other}", "", ""))),
    ];
    let started = std::time::Instant::now();
    let got = run_plan(&server, &run, &plan(server.addr().port(), &format!("{rows}{}", groups.concat())), &[]);
    // 1 + 1 + 1 + 2 + 1 + 1 rows of rows.csv, one of inner.csv per nested loop.
    assert_eq!(targets(&got), ["/idle/r8/s3", "/idle/r9/s4"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}

/// JMeter 5.6.3 (`small-props.jmx`): a property set to "" in a properties file is "" for
/// `__P` and `__property`, default or not; `-Jname=` removes the property ("Removing JMeter
/// property"), so the default is read; values are trimmed.
#[test]
fn p_of_an_empty_property_is_empty_and_an_empty_j_removes_it() {
    let server = witness();
    let run = TempRun::new("small-props");
    let props = run.write("user.properties", "empty=\nspaced= v \ngone=set\n");
    let path = "/p?a=${__P(empty,def)}&amp;b=${__P(empty)}&amp;c=${__P(spaced,def)}&amp;d=${__P(gone,def)}&amp;e=${__property(empty,,def)}";
    let body = group("props", 1, 1, None, &http("p", "GET", path, "", ""));
    let props = props.to_string_lossy().into_owned();
    let got = run_plan(&server, &run, &plan(server.addr().port(), &body), &["-p", &props, "-J", "gone="]);
    assert_eq!(targets(&got), ["/p?a=&b=&c=v&d=def&e="]);
}

/// JMeter 5.6.3 (`small-slashes.jmx`): HttpClient 4 sends each run of `/` in the path as one
/// (not in the query; dot segments stay), the Java implementation sends the path as it is.
#[test]
fn httpclient_4_collapses_slashes_in_paths_and_the_java_implementation_does_not() {
    let server = witness();
    let run = TempRun::new("small-slashes");
    let java = r#"<stringProp name="HTTPSampler.implementation">Java</stringProp>"#;
    let samplers = [
        http("a", "GET", "//a//b", "", ""),
        http("b", "GET", "/a//b/?q=//x", "", ""),
        http("c", "GET", "/d/./e/../f//", "", ""),
        http("d", "GET", &format!("http://127.0.0.1:{}//x//y", server.addr().port()), "", ""),
        http("e", "GET", "//j//k", java, ""),
    ];
    let got = run_plan(&server, &run, &plan(server.addr().port(), &group("g", 1, 1, None, &samplers.concat())), &[]);
    assert_eq!(targets(&got), ["/a/b", "/a/b/?q=//x", "/d/./e/../f/", "/x/y", "//j//k"]);
}

fn raw_body(text: &str) -> String {
    format!(
        r#"<boolProp name="HTTPSampler.postBodyRaw">true</boolProp><elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"><elementProp name="" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">{text}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp></collectionProp></elementProp>"#
    )
}

fn file(path: &str, param: &str, mime: &str) -> String {
    format!(
        r#"<elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files"><elementProp name="{path}" elementType="HTTPFileArg"><stringProp name="File.path">{path}</stringProp><stringProp name="File.paramname">{param}</stringProp><stringProp name="File.mimetype">{mime}</stringProp></elementProp></collectionProp></elementProp>"#
    )
}

/// JMeter 5.6.3 (`small-multipart.jmx`): Body Data with a file that has a parameter name is a
/// multipart POST of the file alone (the nameless body is left out), multipart box ticked or
/// not; with one file without a parameter name (box unticked), the Body Data is sent with the
/// file's MIME type.
#[test]
fn a_post_with_body_data_and_a_file_sends_what_jmeter_sends() {
    let server = witness();
    let run = TempRun::new("small-multipart");
    run.write("up.txt", "file-content\n");
    let raw = raw_body("{&quot;k&quot;:&quot;v&quot;}");
    let samplers = [
        http("mp", "POST", "/mp", &format!("{raw}{}", file("up.txt", "up", "text/plain")), ""),
        http("body", "POST", "/body", &format!("{raw}{}", file("up.txt", "", "text/x-mine")), ""),
    ];
    let got = run_plan(&server, &run, &plan(server.addr().port(), &group("g", 1, 1, None, &samplers.concat())), &[]);
    assert_eq!(targets(&got), ["/mp", "/body"]);
    let ct = got[0].header("content-type").unwrap();
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap().strip_suffix("; charset=UTF-8").unwrap();
    let want = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"up\"; filename=\"up.txt\"\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\n\r\nfile-content\n\r\n--{boundary}--\r\n"
    );
    assert_eq!(String::from_utf8_lossy(&got[0].body), want);
    assert_eq!(got[1].header("content-type"), Some("text/x-mine"));
    assert_eq!(got[1].body, br#"{"k":"v"}"#);
}

/// JMeter 5.6.3: Body Data with one file without a parameter name takes the file's MIME type
/// for every method (HttpClient 4's sendEntityData, the Java implementation's PutWriter).
/// A POST is multipart when its box is ticked or it has files other than one without a name
/// (getUseMultipartForPost): Body Data is then left out (an empty multipart), and a file part
/// without a name fails the sample unsent ("Name is blank").
#[test]
fn body_data_and_files_are_typed_and_made_multipart_as_jmeter_decides() {
    let server = witness();
    let run = TempRun::new("small-multipart-rules");
    run.write("up.txt", "file-content\n");
    let java = r#"<stringProp name="HTTPSampler.implementation">Java</stringProp>"#;
    let ticked = r#"<boolProp name="HTTPSampler.DO_MULTIPART_POST">true</boolProp>"#;
    let raw = raw_body("xbody");
    let typed = format!("{raw}{}", file("up.txt", "", "text/x-mine"));
    let two = r#"<elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files"><elementProp name="up.txt" elementType="HTTPFileArg"><stringProp name="File.path">up.txt</stringProp><stringProp name="File.paramname"></stringProp><stringProp name="File.mimetype">text/plain</stringProp></elementProp><elementProp name="up2" elementType="HTTPFileArg"><stringProp name="File.path">up.txt</stringProp><stringProp name="File.paramname"></stringProp><stringProp name="File.mimetype">text/plain</stringProp></elementProp></collectionProp></elementProp>"#;
    let samplers = [
        http("hc4 put", "PUT", "/hc4-put", &typed, ""),
        http("hc4 patch", "PATCH", "/hc4-patch", &typed, ""),
        http("java put", "PUT", "/java-put", &format!("{typed}{java}"), ""),
        http("ticked", "POST", "/ticked", &format!("{raw}{ticked}"), ""),
        http("ticked file", "POST", "/ticked-file", &format!("{}{ticked}", file("up.txt", "", "text/plain")), ""),
        http("two files", "POST", "/two-files", two, ""),
    ];
    let plan_file = run.write("plan.jmx", plan(server.addr().port(), &group("g", 1, 1, None, &samplers.concat())));
    let out = Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(30))
        .run();
    out.assert_exit(0);
    let got = server.recorded_all();
    assert_eq!(targets(&got), ["/hc4-put", "/hc4-patch", "/java-put", "/ticked"]);
    assert_eq!(server.requests(), 4);
    // The two samples that failed unsent are samples too, and the run's only errors.
    assert_eq!(uint(&run.total(), "samples"), server.requests() + 2);
    assert_eq!(uint(&run.total(), "errors"), 2);
    for r in &got[..3] {
        assert_eq!(r.header("content-type"), Some("text/x-mine"), "{}", r.target);
        assert_eq!(r.body, b"xbody", "{}", r.target);
    }
    let ct = got[3].header("content-type").unwrap();
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap().strip_suffix("; charset=UTF-8").unwrap();
    assert_eq!(String::from_utf8_lossy(&got[3].body), format!("--{boundary}--\r\n"));
}

/// JMeter 5.6.3 (`small-json.jmx`): the JSON Extractor trims names and paths, not defaults:
/// `d1; d2` gives the second variable ` d2`.
#[test]
fn json_extractor_defaults_keep_their_leading_space() {
    let server = witness();
    let run = TempRun::new("small-json");
    let json = r#"<JSONPostProcessor guiclass="JSONPostProcessorGui" testclass="JSONPostProcessor" testname="json" enabled="true">
            <stringProp name="JSONPostProcessor.referenceNames">a; b;c</stringProp>
            <stringProp name="JSONPostProcessor.jsonPathExprs">$.a; $.none;$.nothing</stringProp>
            <stringProp name="JSONPostProcessor.match_numbers">1</stringProp>
            <stringProp name="JSONPostProcessor.defaultValues">d1; d2;  d3</stringProp>
          </JSONPostProcessor><hashTree/>"#;
    let samplers =
        [http("src", "GET", "/src", "", json), http("got", "GET", "/got?a=${a}&amp;b=${b}&amp;c=${c}", "", "")];
    let got = run_plan(&server, &run, &plan(server.addr().port(), &group("g", 1, 1, None, &samplers.concat())), &[]);
    assert_eq!(targets(&got), ["/src", "/got?a=x&b=%20d2&c=%20%20d3"]);
}

/// JMeter 5.6.3 (`small-rawct.jmx`): without a Content-Type header, a raw POST body is
/// `application/x-www-form-urlencoded` with the Java implementation (its PostWriter), and
/// `text/plain; charset=UTF-8` with HttpClient 4; the Java implementation's PUT says none.
#[test]
fn a_raw_body_without_content_type_is_typed_as_each_implementation_does() {
    let server = witness();
    let run = TempRun::new("small-rawct");
    let java = r#"<stringProp name="HTTPSampler.implementation">Java</stringProp>"#;
    let raw = raw_body("a=1&amp;b");
    let samplers = [
        http("java", "POST", "/java", &format!("{raw}{java}"), ""),
        http("hc4", "POST", "/hc4", &raw, ""),
        http("java put", "PUT", "/java-put", &format!("{raw}{java}"), ""),
        http("java empty", "POST", "/java-empty", java, ""),
    ];
    let got = run_plan(&server, &run, &plan(server.addr().port(), &group("g", 1, 1, None, &samplers.concat())), &[]);
    let types: Vec<_> = got.iter().map(|r| (r.target.as_str(), r.header("content-type"))).collect();
    assert_eq!(
        types,
        [
            ("/java", Some("application/x-www-form-urlencoded")),
            ("/hc4", Some("text/plain; charset=UTF-8")),
            ("/java-put", None),
            ("/java-empty", Some("application/x-www-form-urlencoded")),
        ]
    );
    assert_eq!(got[0].body, b"a=1&b");
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
        let got = run_plan(&server, &run, &plan(server.addr().port(), &group("g", 1, 1, None, &body)), &[]);
        assert_eq!(targets(&got), ["/w/0", "/w/1", "/w/2"], "{name}");
        assert_eq!(uint(&run.total(), "errors"), 1, "{name}");
    }
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
    let jmx =
        plan(server.addr().port(), &format!("{keystore}{}", group("g", 1, 2, None, &http("x", "GET", "/x", "", ""))));
    let got = run_plan(&server, &run, &jmx, &[]);
    assert_eq!(targets(&got), ["/x", "/x"]);
    let plan = run.write("plan.jmx", &jmx);
    let checked = Stampede::new().arg("check").arg(&plan).run();
    checked.assert_exit(0);
    let out = String::from_utf8_lossy(&checked.stdout);
    assert!(out.contains("no client certificate is presented"), "{out}");
}
