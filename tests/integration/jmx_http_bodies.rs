//! What an HTTP Request's body holds as JMeter sends it: nameless arguments, raw bodies and their
//! Content-Type per implementation, Body Data with files, multipart uploads (a missing file, the
//! sampler data's placeholder), upload paths and file bodies named per sample by variables or
//! functions.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::jmx_assertions::DEFAULTS;
use crate::util::jmx::{
    element, esc, http as http_files, http as http_runtime, regex_extractor, response_assertion, run_with_jtl,
    test_plan, thread_group,
};
use crate::util::server::{RecordedRequest, Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

/// A token the server hands out, which names the files (`rt-one.csv`...).
pub(crate) fn token_server() -> TestServer {
    TestServer::builder()
        .route("/token", Route::handler(|_| Reply::ok().body("tok=one")))
        .default_route(Route::ok())
        .record_all()
        .start()
}

pub(crate) fn token(port: &str) -> String {
    http_runtime(
        "token",
        "127.0.0.1",
        port,
        "/token",
        "GET",
        &regex_extractor("tok", "tok", "false", "tok=(\\w+)", "$1$", ""),
    )
}

/// A POST sending the file `file` as part `param` (empty: the file is the body).
fn upload(name: &str, port: &str, path: &str, file: &str, param: &str) -> String {
    upload_with(name, port, path, file, param, &[])
}

/// [`upload`] with text arguments (parts before the file's).
fn upload_with(name: &str, port: &str, path: &str, file: &str, param: &str, args: &[(&str, &str)]) -> String {
    let file = esc(file);
    let args: String = args
        .iter()
        .map(|(n, v)| format!(r#"<elementProp name="{n}" elementType="HTTPArgument"><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{v}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>"#))
        .collect();
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">{args}</collectionProp></elementProp>
          <elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="{file}" elementType="HTTPFileArg"><stringProp name="File.path">{file}</stringProp><stringProp name="File.paramname">{param}</stringProp><stringProp name="File.mimetype">text/plain</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp><stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    )
}

/// The bodies `server` received at `path`, as text, sorted (users interleave).
pub(crate) fn sorted_bodies(server: &TestServer, path: &str) -> Vec<String> {
    let mut b: Vec<String> = server.bodies(path).iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    b.sort();
    b
}

/// JTL rows of `name` that failed with a message holding `message`.
pub(crate) fn failed(jtl: &str, name: &str, message: &str) -> usize {
    jtl.lines().filter(|l| l.contains(&format!(",{name},")) && l.contains(message) && l.contains(",false,")).count()
}

/// "Send file as body" of a file named by a variable an extractor sets is named and read per
/// sample: the file is the body; one that is not there is sent as JMeter's HttpClient sends it
/// (the head, `Content-Length: 0`, no body) and its sample fails with
/// `java.io.FileNotFoundException`, the next sample going on. 1 user x 2 iterations.
#[test]
fn a_file_body_named_at_run_time_is_read_per_sample() {
    let server = token_server();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-file-body");
    run.write("files-one.txt", "the body");
    let body = [
        token(&port),
        upload("filebody", &port, "/filebody", "files-${tok}.txt", ""),
        upload("missing", &port, "/missing", "nope-${tok}.bin", ""),
        http_runtime("after", "127.0.0.1", &port, "/after", "GET", ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "2", "", &body)));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    let (cmd, jtl) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    assert_eq!(sorted_bodies(&server, "/filebody"), ["the body", "the body"]);
    let missing = server.recorded("/missing");
    assert_eq!(missing.len(), 2, "sent, head only");
    for r in &missing {
        assert!(r.body.is_empty() && r.header("content-length") == Some("0"), "{r:?}");
    }
    assert_eq!(server.requests_to("/after"), 2);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert_eq!(failed(&rows, "missing", "java.io.FileNotFoundException"), 2, "{rows}");
    assert_eq!(failed(&rows, "filebody", ""), 0, "{rows}");
}

/// A file to upload named only by functions is named per sample, as JMeter evaluates it: user N
/// of 2 sends `up-(N-1).txt`, both as a part and as the body (both files are there when the plan
/// loads: it used to read the one it named then, `up-0.txt`, for every user).
#[test]
fn an_upload_named_by_functions_is_named_per_sample() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-upload-fn");
    run.write("up-0.txt", "zero");
    run.write("up-1.txt", "one");
    let name = "up-${__intSum(${__threadNum},-1)}.txt";
    let body = [upload("part", &port, "/part", name, "f"), upload("body", &port, "/body", name, "")].concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "2", "1", "", &body)));
    let (cmd, _) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    assert_eq!(sorted_bodies(&server, "/body"), ["one", "zero"]);
    let mut parts: Vec<(String, String)> = server
        .bodies("/part")
        .iter()
        .map(|b| {
            let b = String::from_utf8_lossy(b).into_owned();
            let name = b.split("filename=\"").nth(1).and_then(|t| t.split('"').next()).unwrap_or_default().to_string();
            let content =
                b.split("\r\n\r\n").nth(1).and_then(|t| t.split("\r\n").next()).unwrap_or_default().to_string();
            (name, content)
        })
        .collect();
    parts.sort();
    assert_eq!(parts, [("up-0.txt".to_string(), "zero".to_string()), ("up-1.txt".to_string(), "one".to_string())]);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(server.requests(), 4);
}

/// Every connection a loopback listener accepts, as the bytes received until the client closed
/// it (at most `n` connections, for at most 20 s; nothing is ever answered).
fn raw_listener(n: usize) -> (u16, std::thread::JoinHandle<Vec<Vec<u8>>>) {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let handle = std::thread::spawn(move || {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut got = Vec::new();
        while got.len() < n && std::time::Instant::now() < until {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false).unwrap();
                    s.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
                    let mut bytes = Vec::new();
                    let _ = s.read_to_end(&mut bytes);
                    got.push(bytes);
                }
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
        got
    });
    (port, handle)
}

/// A multipart upload of a file that is not there goes out as JMeter's HttpClient sends it: the
/// head (its `Content-Length` counting the file as empty), the parts before the file and the
/// file part's head; then the connection is closed unanswered and the sample fails with
/// `java.io.FileNotFoundException`. A name in the plan and one named at run time alike (1 user x
/// 2 iterations: 4 connections, each closed by stampede, none answered).
#[test]
fn a_multipart_upload_of_a_missing_file_sends_the_parts_before_it_then_fails() {
    let (port, witness) = raw_listener(4);
    let port = port.to_string();
    let run = TempRun::new("runtime-upload-missing");
    let body = [
        upload_with("missing", &port, "/missing", "missing.bin", "f", &[("a", "1")]),
        upload_with("missing-rt", &port, "/missing-rt", "nope-${__threadNum}.bin", "f", &[("a", "1")]),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "2", "", &body)));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("is sent up to that file's part and fails"), "{}", check.stdout_str());
    let (cmd, jtl) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    let got = witness.join().unwrap();
    assert_eq!(got.len(), 4, "one connection per sample");
    for (bytes, file) in got.iter().zip(["missing.bin", "nope-1.bin", "missing.bin", "nope-1.bin"]) {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let (head, sent) = text.split_once("\r\n\r\n").unwrap();
        let boundary = head.split("boundary=").nth(1).unwrap().split(';').next().unwrap();
        let length: usize = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).unwrap().parse().unwrap();
        let want = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n1\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"{file}\"\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\n\r\n"
        );
        assert_eq!(sent, want, "{text}");
        assert_eq!(
            length,
            want.len() + "\r\n".len() + format!("--{boundary}--\r\n").len(),
            "the file counted as empty"
        );
    }
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert_eq!(failed(&rows, "missing", "java.io.FileNotFoundException"), 2, "{rows}");
    assert_eq!(failed(&rows, "missing-rt", "java.io.FileNotFoundException"), 2, "{rows}");
    assert_eq!(rows.lines().count(), 5, "a header and 4 samples: {rows}");
}

/// JMeter's `getSendParameterValuesAsPostBody`: arguments that all lack a name are the body of
/// a POST or PUT (each value URL-encoded when its box says so), as the raw body is, and are left
/// out of a GET's query. The corpus differential found a public plan whose body stampede dropped.
#[test]
fn nameless_arguments_are_the_body_as_jmeter_sends_them() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-nameless-body");
    let json = arg("", "{&quot;var&quot;:&quot;val&quot;}", false);
    let two = format!("{}{}", arg("", "a b", true), arg("", "&amp;c", false));
    let body = [
        DEFAULTS.to_string(),
        sampler("post", "POST", "/post", &json, false, ""),
        sampler("put", "PUT", "/put", &two, false, ""),
        sampler("get", "GET", "/get", &json, false, ""),
        // One named argument among them: a form, the nameless one left out (JMeter's rule).
        sampler("form", "POST", "/form", &format!("{json}{}", arg("k", "v", false)), false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let post = &server.recorded("/post")[0];
    assert_eq!(post.body, br#"{"var":"val"}"#);
    assert_eq!(post.header("content-type"), Some("text/plain; charset=UTF-8"));
    assert_eq!(server.recorded("/put")[0].body, b"a+b&c");
    assert_eq!(server.recorded("/get")[0].target, "/get");
    assert_eq!(server.recorded("/form")[0].body, b"k=v");
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// A plan whose thread groups run one after the other ("Run Thread Groups consecutively"),
/// with HTTP Request Defaults to the witness.
pub(crate) fn plan(port: u16, body: &str) -> String {
    use crate::util::jmx::{http_defaults, test_plan};
    let consecutive = r#"<boolProp name="TestPlan.serialize_threadgroups">true</boolProp>"#;
    test_plan("small", consecutive, &[http_defaults("127.0.0.1", &port.to_string()), body.to_string()].concat())
}

/// A thread group; `duration` in seconds turns the scheduler on.
pub(crate) fn group(name: &str, threads: u32, loops: i64, duration: Option<u32>, body: &str) -> String {
    let scheduler = match duration {
        Some(d) => format!(
            r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{d}</stringProp>"#
        ),
        None => String::new(),
    };
    crate::util::jmx::thread_group("ThreadGroup", name, &threads.to_string(), &loops.to_string(), &scheduler, body)
}

/// An HTTP Request; `extra` goes inside the element (body, files, implementation).
pub(crate) fn http(name: &str, method: &str, path: &str, extra: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">{method}</stringProp>
          <boolProp name="HTTPSampler.follow_redirects">true</boolProp>
          <boolProp name="HTTPSampler.use_keepalive">true</boolProp>{extra}
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

pub(crate) fn witness() -> TestServer {
    TestServer::builder().default_route(Route::ok().body(r#"{"a":"x","b":"y"}"#).record()).start()
}

/// Runs `plan.jmx` written into `run` (with its files) and returns what the witness received,
/// after checking that stampede's samples equal the requests it served.
pub(crate) fn run_plan(server: &TestServer, run: &TempRun, jmx: &str, args: &[&str]) -> Vec<RecordedRequest> {
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

pub(crate) fn targets(got: &[RecordedRequest]) -> Vec<String> {
    got.iter().map(|r| r.target.clone()).collect()
}

fn raw_body(text: &str) -> String {
    format!(
        r#"<boolProp name="HTTPSampler.postBodyRaw">true</boolProp><elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments"><elementProp name="" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">{text}</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp></collectionProp></elementProp>"#
    )
}

pub(crate) fn file(path: &str, param: &str, mime: &str) -> String {
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

/// A JSR223 or BeanShell element of `class` with the properties given.
pub(crate) fn script(class: &str, name: &str, props: &[(&str, &str)]) -> String {
    let mut all = vec![("scriptLanguage", "groovy"), ("parameters", "")];
    all.extend_from_slice(props);
    element(class, name, &all, "")
}

pub(crate) fn get(name: &str, port: &str, path: &str, children: &str) -> String {
    http_files(name, "127.0.0.1", port, path, "GET", children)
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
