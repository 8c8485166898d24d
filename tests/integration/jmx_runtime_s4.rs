//! Files and patterns JMeter only names or compiles while the test runs (#32, runtime): what
//! JMeter 5.6.3 does with them, on the wire (bench/jmeter/plans/runtime-files.jmx agrees with
//! it). The plan loads; the file is named when the function or the sample runs.

use crate::util::jmx::{
    element, esc, http, http_defaults, raw_post, regex_extractor, run_with_jtl, test_plan, thread_group,
};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

/// A token the server hands out, which names the files (`rt-one.csv`...).
fn token_server() -> TestServer {
    TestServer::builder()
        .route("/token", Route::handler(|_| Reply::ok().body("tok=one")))
        .default_route(Route::ok())
        .record_all()
        .start()
}

fn token(port: &str) -> String {
    http("token", "127.0.0.1", port, "/token", "GET", &regex_extractor("tok", "tok", "false", "tok=(\\w+)", "$1$", ""))
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
fn sorted_bodies(server: &TestServer, path: &str) -> Vec<String> {
    let mut b: Vec<String> = server.bodies(path).iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    b.sort();
    b
}

/// JTL rows of `name` that failed with a message holding `message`.
fn failed(jtl: &str, name: &str, message: &str) -> usize {
    jtl.lines().filter(|l| l.contains(&format!(",{name},")) && l.contains(message) && l.contains(",false,")).count()
}

/// `__StringFromFile` and `__CSVRead` of a file named by a variable an extractor sets load and
/// read it when called, as JMeter's functions do: `__StringFromFile` names its file at its first
/// call (one called before the variable is set gives `**ERR**` for good) and hands its lines to
/// every user in turn; `__CSVRead` gives each user its row of rows every user shares; a file
/// that is not there is `**ERR**` and empty. 2 users x 2 iterations.
#[test]
fn file_functions_named_at_run_time_read_the_file_when_called() {
    let server = token_server();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-fns");
    run.write("rt-lines-one.txt", "l1\nl2\nl3\n");
    run.write("rt-one.csv", "r1a,r1b\nr2a,r2b\nr3a,r3b\n");
    run.write("files-one.txt", "hi");
    let body = [
        raw_post("/early", &esc("e=${__StringFromFile(rt-lines-${tok}.txt)}")),
        token(&port),
        raw_post(
            "/fns",
            &esc("a=${__StringFromFile(rt-lines-${tok}.txt)}|c=${__CSVRead(rt-${tok}.csv,0)}-${__CSVRead(rt-${tok}.csv,1)}${__CSVRead(rt-${tok}.csv,next)}|d=${__CSVRead(nope-${tok}.csv,0)}|f=${__StringFromFile(nope-${tok}.txt)}|g=${__FileToString(files-${tok}.txt)}"),
        ),
    ]
    .concat();
    let group = [http_defaults("127.0.0.1", &port), thread_group("ThreadGroup", "g", "2", "2", "", &body)].concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &group));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    let (cmd, _) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    assert_eq!(sorted_bodies(&server, "/early"), vec!["e=**ERR**"; 4], "named once, before `tok` was set");
    let fns = sorted_bodies(&server, "/fns");
    let field = |k: &str| {
        let mut v: Vec<String> = fns
            .iter()
            .map(|b| b.split('|').find_map(|f| f.strip_prefix(&format!("{k}="))).unwrap_or("?").to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(field("a"), ["l1", "l1", "l2", "l3"], "one reader for both users: {fns:?}");
    assert_eq!(field("c"), ["r1a-r1b", "r1a-r1b", "r2a-r2b", "r3a-r3b"], "rows shared, each user its own: {fns:?}");
    assert_eq!(field("d"), ["", "", "", ""]);
    assert_eq!(field("f"), ["**ERR**"; 4]);
    assert_eq!(field("g"), ["hi"; 4]);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(server.requests(), 12);
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
        http("after", "127.0.0.1", &port, "/after", "GET", ""),
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

/// An HTML Link Parser whose sampler has a pattern that does not compile (a path `/link/(`, an
/// argument name `x(`) makes JMeter's matcher throw once a link reaches that pattern: its thread
/// skips the sampler (nothing sent, no sample) and goes on; where no candidate reaches it (a
/// page without links), the sampler is sent. 1 user x 2 iterations.
#[test]
fn a_link_parser_pattern_that_does_not_compile_skips_its_sampler() {
    let page = "<html><body><a href=\"/link/a?x=1\">a</a><a href=\"/link/b?y=2\">b</a></body></html>";
    let server = TestServer::builder()
        .route("/page", Route::ok().header("Content-Type", "text/html").body(page))
        .route("/plain", Route::ok().header("Content-Type", "text/html").body("<html><body>none</body></html>"))
        .default_route(Route::ok())
        .record_all()
        .start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-anchor");
    let anchor = element("AnchorModifier", "parser", &[], "");
    let get = |name: &str, path: &str, children: &str| http(name, "127.0.0.1", &port, path, "GET", children);
    let with_arg = format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="badarg" enabled="true">
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="x(" elementType="HTTPArgument"><stringProp name="Argument.name">x(</stringProp><stringProp name="Argument.value">1</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">/link/a</stringProp><stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{anchor}</hashTree>"#
    );
    let body = [
        get("page", "/page", ""),
        get("bad", "/link/(", &anchor),
        get("after-bad", "/after-bad", ""),
        get("page2", "/page", ""),
        with_arg,
        get("after-badarg", "/after-badarg", ""),
        get("plain", "/plain", ""),
        get("bad-no-links", "/link/(", &anchor),
    ]
    .concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &thread_group("ThreadGroup", "g", "1", "2", "", &body)));
    let (cmd, jtl) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    assert_eq!(server.requests_to("/link/("), 2, "only where no link reached the pattern");
    assert_eq!(server.requests_to("/link/a"), 0);
    assert_eq!((server.requests_to("/after-bad"), server.requests_to("/after-badarg")), (2, 2));
    assert_eq!(server.requests_to("/page"), 4);
    assert_eq!(server.requests(), 12);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    let rows = std::fs::read_to_string(jtl).unwrap();
    assert!(!rows.contains(",bad,") && !rows.contains(",badarg,"), "no sample: {rows}");
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
