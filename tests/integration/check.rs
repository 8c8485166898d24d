//! `stampede check` tells the whole truth (#13 A): every element with its status, every problem
//! at once, and no "The plan can run." for a plan `run` refuses.

use crate::jmx::jmx_plan;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

/// A JMX plan: one thread group of one thread, one iteration, holding `body`.
fn plan(body: &str) -> String {
    jmx_plan(1, "1", body)
}

fn sampler(name: &str, domain: &str, port: &str, path: &str, method: &str) -> String {
    crate::util::jmx::http(name, domain, port, path, method, "")
}

/// `sampler` with one file to upload: `path` as the part named `param` (none: the body itself).
fn with_file(sampler: String, path: &std::path::Path, param: &str, mime: &str) -> String {
    sampler.replace(
        "<stringProp name=\"HTTPSampler.domain\">",
        &format!(
            r#"<elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="f" elementType="HTTPFileArg"><stringProp name="File.path">{}</stringProp>
            <stringProp name="File.paramname">{param}</stringProp><stringProp name="File.mimetype">{mime}</stringProp></elementProp>
            </collectionProp></elementProp><stringProp name="HTTPSampler.domain">"#,
            path.display()
        ),
    )
}

/// Runs the plan `file` quietly into `run`, with a results file; returns its path.
fn run_with_jtl(run: &TempRun, file: &std::path::Path) -> std::path::PathBuf {
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(run, file, None);
    cmd.run().assert_exit(0);
    jtl
}

/// A Constant Timer of `ms` milliseconds (one beyond a year is a plan error).
fn timer(name: &str, ms: &str) -> String {
    crate::util::jmx::constant_timer(name, ms)
}

fn csv(name: &str, file: &str) -> String {
    format!(
        r#"<CSVDataSet testclass="CSVDataSet" testname="{name}" enabled="true">
          <stringProp name="filename">{file}</stringProp>
          <stringProp name="variableNames">a</stringProp>
        </CSVDataSet><hashTree/>"#
    )
}

/// For each kind of plan `run` refuses (an element in error, an unsupported element, a results
/// file that cannot be written, malformed XML, no thread group), `run` refuses it and `check`
/// does not say the plan can run. Data file placeholders (files JMeter loads and fails at run
/// time) are named all at once by `check` and by `run --strict`.
#[test]
fn check_never_says_a_plan_run_refuses_can_run() {
    let server = TestServer::builder().route("/", Route::ok()).start();
    let port = server.addr().port().to_string();
    let ok = sampler("ok", "127.0.0.1", &port, "/", "GET");
    let run = TempRun::new("check-refusals");
    let results_dir = run.root().join("a-directory.jtl");
    std::fs::create_dir_all(&results_dir).unwrap();
    let cases = [
        ("element-error", plan(&format!("{ok}{}", timer("bad", "1e40"))), vec!["\"bad\"", "out of range"]),
        (
            "unsupported",
            plan(&format!(r#"{ok}<LDAPSampler testclass="LDAPSampler" testname="dbg" enabled="true"/><hashTree/>"#)),
            vec!["\"dbg\"", "not supported"],
        ),
        (
            "results-file",
            plan(&format!(
                r#"{ok}<ResultCollector testclass="ResultCollector" testname="writer" enabled="true">
                  <stringProp name="filename">{}</stringProp></ResultCollector><hashTree/>"#,
                results_dir.display()
            )),
            vec!["a-directory.jtl"],
        ),
        ("malformed", "<jmeterTestPlan><hashTree>".to_string(), vec!["malformed XML"]),
        ("no-thread-group", plan("").replace("ThreadGroup", "SomethingElse"), vec![]),
    ];
    for (name, text, wants) in cases {
        let file = run.write(&format!("{name}.jmx"), text);
        let refused = Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.root().join(name)).run();
        assert_ne!(refused.status.code(), Some(0), "{name}: run must refuse");
        let run_err = refused.stderr_str();
        let checked = Stampede::new().arg("check").arg(&file).run();
        let (out, err) = (checked.stdout_str(), checked.stderr_str());
        assert!(!out.contains("The plan can run."), "{name}: check said it can run:\n{out}{err}");
        for w in &wants {
            assert!(run_err.contains(w), "{name}: run does not name {w}: {run_err}");
            assert!(out.contains(w) || err.contains(w), "{name}: check does not name {w}: {out}{err}");
        }
    }
    // Data files that are not there (placeholders left in): JMeter loads the plan and stops
    // each thread at its data set (#32), so `run` runs it; `--strict` refuses it, naming both.
    let file = run.write(
        "placeholders.jmx",
        plan(&format!("{}{}{ok}", csv("users", "__USERS_CSV__"), csv("items", "__ITEMS_CSV__"))),
    );
    let strict =
        Stampede::new().arg("run").arg(&file).args(["-q", "--strict", "--out"]).arg(run.root().join("p")).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
    let checked = Stampede::new().arg("check").arg(&file).run().stdout_str();
    for w in ["__USERS_CSV__", "__ITEMS_CSV__"] {
        assert!(strict.stderr_str().contains(w) && checked.contains(w), "{w}: {checked}");
    }
    assert_eq!(server.requests(), 0, "nothing was sent");
}

/// `check` lists every element (those under an unsupported controller too) and every problem,
/// and exits 2; `--format json` gives the same as data, with `can_run`.
#[test]
fn check_lists_every_element_and_every_problem() {
    let run = TempRun::new("check-all");
    let body = format!(
        r#"{}<com.example.LockController testclass="com.example.LockController" testname="lock" enabled="true"/>
        <hashTree>{}{}</hashTree>{}"#,
        timer("first bad", "1e40"),
        sampler("under lock", "127.0.0.1", "1", "/", "GET"),
        timer("locked bad", "NaN"),
        timer("second bad", "99999999999999999999")
    );
    let file = run.write("plan.jmx", plan(&body));
    let out = Stampede::new().arg("check").arg(&file).run();
    out.assert_exit(2);
    let (stdout, stderr) = (out.stdout_str(), out.stderr_str());
    for name in ["first bad", "lock", "under lock", "locked bad", "second bad"] {
        assert!(stdout.contains(&format!("\"{name}\"")), "{name} not listed:\n{stdout}");
    }
    assert!(stdout.contains("[ERROR]") && stdout.contains("[UNSUPPORTED]"), "{stdout}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error: ")).count(), 4, "{stderr}");
    assert!(stderr.contains("plan.jmx:") && stderr.contains("4 problems"), "{stderr}");

    let json = Stampede::new().arg("check").arg(&file).args(["--format", "json"]).run();
    json.assert_exit(2);
    let v: serde_json::Value = serde_json::from_str(&json.stdout_str()).expect("JSON");
    assert_eq!(v["can_run"], false);
    assert_eq!(v["problems"].as_array().unwrap().len(), 4);
    let under = v["elements"].as_array().unwrap().iter().find(|e| e["name"] == "under lock").expect("listed");
    assert_eq!(under["status"], "supported");
    assert_eq!(under["depth"], 3);
    for p in v["problems"].as_array().unwrap() {
        assert!(p["line"].as_u64().is_some() && p["element"].is_string(), "{p}");
    }
}

/// A URL JMeter's `java.net.URI` refuses fails its sample unsent, whether the URL is written in
/// the plan or made at run time (`${a}` that nothing defines stays in the path): an illegal
/// character in a path (`{`, `<`, `[`) or a query (`|`), a `%` that starts no escape. Each row
/// has JMeter's code and message (`Illegal character in path at index 22: <url>`, the index as
/// Java 17 gives it); nothing reaches the server for them, and `[]` in a query is sent.
#[test]
fn urls_java_refuses_fail_unsent_with_jmeter_s_message() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();
    let port = server.addr().port().to_string();
    let base = format!("http://127.0.0.1:{port}");
    let run = TempRun::new("check-uri");
    let body = [
        sampler("undefined", "127.0.0.1", &port, "/${a}-${b}", "GET"),
        sampler("angle", "127.0.0.1", &port, "/q?s=&lt;EOF&gt;", "GET"),
        sampler("bracket", "127.0.0.1", &port, "/a[1]", "POST"),
        sampler("pipe", "127.0.0.1", &port, "/q?a|b", "GET"),
        sampler("escape", "127.0.0.1", &port, "/a%zz", "GET"),
        sampler("ok", "127.0.0.1", &port, "/ok?x=[1]&amp;y=a b", "GET"),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "2", &body));
    let jtl = run_with_jtl(&run, &file);
    assert_eq!(server.requests(), 2, "only the URL Java takes reaches the server");
    assert_eq!(server.requests_to("/ok"), 2);
    let s = run.summary();
    let rows = std::fs::read_to_string(&jtl).unwrap();
    let at = base.len();
    for (name, path, why) in [
        ("undefined", "/${a}-${b}", format!("Illegal character in path at index {}", at + 2)),
        ("angle", "/q?s=<EOF>", format!("Illegal character in query at index {}", at + 5)),
        ("bracket", "/a[1]", format!("Illegal character in path at index {}", at + 2)),
        ("pipe", "/q?a|b", format!("Illegal character in query at index {}", at + 4)),
        ("escape", "/a%zz", format!("Malformed escape pair at index {}", at + 2)),
    ] {
        assert_eq!(uint(&label(&s, name), "errors"), 2, "{name}");
        let want = format!(
            ",{name},Non HTTP response code: java.net.URISyntaxException,Non HTTP response message: {why}: {base}{path},"
        );
        let n = rows.lines().filter(|l| l.contains(&want) && l.contains(",text,false,,")).count();
        assert_eq!(n, 2, "{want}\n{rows}");
    }
    assert_eq!(uint(&label(&s, "ok"), "errors"), 0);
}

/// A Transaction Controller fails when a sample inside fails unsent, as JMeter's listens to
/// every sample of its children, the error results too: a URL java.net.URI refuses, a URL
/// that cannot be used, a body file that cannot be opened. With "Generate parent sample" its
/// sample is the only row, so that is where the failure is counted. Only the good requests
/// reach the server.
#[test]
fn samples_failed_unsent_fail_their_transaction() {
    let server = TestServer::builder().route("/ok", Route::ok()).route("/body", Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("check-unsent-in-txn");
    let missing = run.root().join("no-such-body.json");
    let txn = |name: &str, parent: bool, inner: &str| {
        format!(
            r#"<TransactionController testclass="TransactionController" testname="{name}" enabled="true">
              <boolProp name="TransactionController.parent">{parent}</boolProp>
            </TransactionController><hashTree>{inner}</hashTree>"#
        )
    };
    let ok = || sampler("ok", "127.0.0.1", &port, "/ok", "GET");
    let body = [
        txn("refused txn", false, &(sampler("refused", "127.0.0.1", &port, "/a[1]", "GET") + &ok())),
        txn("refused parent", true, &(sampler("refused 2", "127.0.0.1", &port, "/a%zz", "GET") + &ok())),
        txn("bad url parent", true, &(sampler("bad url", "${nohost}", "", "/x", "GET") + &ok())),
        txn(
            "file parent",
            true,
            &(with_file(sampler("no file", "127.0.0.1", &port, "/body", "POST"), &missing, "", "") + &ok()),
        ),
        txn("good parent", true, &ok()),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "2", &body));
    run_with_jtl(&run, &file);
    assert_eq!(server.requests_to("/ok"), 10);
    assert_eq!(server.requests_to("/body"), 2);
    let s = run.summary();
    for name in ["refused txn", "refused parent", "bad url parent", "file parent"] {
        assert_eq!((uint(&label(&s, name), "samples"), uint(&label(&s, name), "errors")), (2, 2), "{name}");
    }
    assert_eq!(uint(&label(&s, "good parent"), "errors"), 0);
    assert_eq!(uint(&label(&s, "refused"), "errors"), 2);
}

/// One file without a parameter name is a POST's body. When it cannot be opened, JMeter's
/// HttpClient still sends the request's head, with `Content-Length: 0`, then fails the sample
/// with `java.io.FileNotFoundException`: the server sees each request, with no body.
#[test]
fn a_missing_file_body_is_sent_empty_and_fails() {
    let server = TestServer::builder().route("/body", Route::ok().record()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("check-file-body");
    let missing = run.root().join("no-such-body.json");
    let post = with_file(sampler("no file", "127.0.0.1", &port, "/body", "POST"), &missing, "", "");
    let file = run.write("plan.jmx", jmx_plan(1, "3", &post));
    let checked = Stampede::new().arg("check").arg(&file).run();
    checked.assert_exit(0);
    assert!(
        checked.stdout_str().contains("is sent without its body and fails, as in JMeter"),
        "{}",
        checked.stdout_str()
    );
    let jtl = run_with_jtl(&run, &file);
    assert_eq!(server.requests_to("/body"), 3);
    for r in server.recorded("/body") {
        assert_eq!((r.method.as_str(), r.body.len()), ("POST", 0));
        assert!(r.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("content-length") && v == "0"), "{r:?}");
    }
    let s = run.summary();
    assert_eq!((uint(&label(&s, "no file"), "samples"), uint(&label(&s, "no file"), "errors")), (3, 3));
    let rows = std::fs::read_to_string(&jtl).unwrap();
    let want = format!(
        ",no file,Non HTTP response code: java.io.FileNotFoundException,Non HTTP response message: {} (No such file or directory),",
        missing.display()
    );
    assert_eq!(rows.lines().filter(|l| l.contains(&want)).count(), 3, "{rows}");
}

/// A GET sends a file only as its whole body (one file without a parameter name, no
/// arguments), as JMeter's HttpClient sampler: a file with a parameter name is not sent, nor its
/// MIME type; HEAD never sends one.
#[test]
fn a_get_sends_a_file_only_as_its_body() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("check-get-file");
    let data = run.write("data.xml", "<a/>");
    let samplers = [
        with_file(sampler("named", "127.0.0.1", &port, "/named", "GET"), &data, "file", "text/xml"),
        with_file(sampler("body", "127.0.0.1", &port, "/body", "GET"), &data, "", "text/xml"),
        with_file(sampler("head", "127.0.0.1", &port, "/head", "HEAD"), &data, "", "text/xml"),
    ];
    let file = run.write("plan.jmx", jmx_plan(1, "1", &samplers.concat()));
    run_with_jtl(&run, &file);
    let content_type = |path: &str| {
        let r = &server.recorded(path)[0];
        let ct = r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-type")).map(|(_, v)| v.clone());
        (ct, String::from_utf8_lossy(&r.body).into_owned())
    };
    assert_eq!(content_type("/named"), (None, String::new()));
    assert_eq!(content_type("/body"), (Some("text/xml".to_string()), "<a/>".to_string()));
    assert_eq!(content_type("/head"), (None, String::new()));
}

/// Two CSV Data Sets of one file share JMeter's reader, opened by the later one in the tree
/// (JMeter starts them in reverse order). When that one reads no header line and the earlier
/// one wants it ("Ignore first line"), JMeter stops each thread at its first iteration with
/// "Could not read file header line": nothing is sent. In the other order the plan runs.
#[test]
fn csv_data_sets_sharing_a_file_stop_the_threads_when_jmeter_cannot_read_the_header() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("check-csv-header");
    run.write("ids.csv", "id\nid1\nid2\n");
    let csv = |names: &str, ignore_first: bool| {
        format!(
            r#"<CSVDataSet testclass="CSVDataSet" testname="ids {ignore_first}" enabled="true">
              <stringProp name="filename">ids.csv</stringProp><stringProp name="variableNames">{names}</stringProp>
              <boolProp name="ignoreFirstLine">{ignore_first}</boolProp><stringProp name="shareMode">shareMode.all</stringProp>
            </CSVDataSet><hashTree/>"#
        )
    };
    let get = sampler("ok", "127.0.0.1", &port, "/ok", "GET");
    for (first, second, sent) in [(csv("id", true), csv("other", false), 0), (csv("other", false), csv("id", true), 4)]
    {
        let file = run.write("plan.jmx", jmx_plan(2, "2", &[first, second, get.clone()].concat()));
        let checked = Stampede::new().arg("check").arg(&file).run();
        checked.assert_exit(0);
        let stops = checked.stdout_str().contains("Could not read file header line for file ids.csv");
        assert_eq!(stops, sent == 0, "{}", checked.stdout_str());
        let before = server.requests();
        Stampede::new().arg("run").arg(&file).args(["-q", "--replace", "--out"]).arg(run.path()).run().assert_exit(0);
        assert_eq!(server.requests() - before, sent);
    }
}

/// JMeter loads a request it cannot send and fails its sample at run time: without a server
/// name, with a method it does not know (`${method}` that nothing defines), with an upload file
/// that is missing. stampede too: each sample is a KO row with JMeter's response code and
/// message (as JMeter 5.6.3 writes them in its JTL), no whole request reaches the server for it
/// (the upload's goes out up to the file's part, as JMeter's HttpClient writes it), and the
/// other requests run; a path with a space is sent, encoded.
#[test]
fn requests_jmeter_cannot_send_fail_at_run_time_unsent() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("check-unsent");
    let missing = run.root().join("no-such-upload.bin");
    let upload = with_file(sampler("no file", "127.0.0.1", &port, "/upload", "POST"), &missing, "f", "text/plain");
    let body = [
        sampler("nowhere", "", "", "/lost", "GET"),
        sampler("bad method", "127.0.0.1", &port, "/m", "${method}"),
        upload,
        sampler("ok", "127.0.0.1", &port, "/ok", "GET"),
        // A space in a path is sent encoded, as JMeter sends it.
        sampler("space", "127.0.0.1", &port, "/a b", "GET"),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let checked = Stampede::new().arg("check").arg(&file).run();
    checked.assert_exit(0);
    assert_eq!(
        checked.stdout_str().matches("each sample fails unsent, as in JMeter").count(),
        2,
        "{}",
        checked.stdout_str()
    );
    // JMeter's HttpClient writes a multipart upload up to the missing file's part: its server
    // never gets the whole request.
    assert!(checked.stdout_str().contains("each sample is sent up to that file's part and fails"));
    let jtl = run_with_jtl(&run, &file);
    let s = run.summary();
    for name in ["nowhere", "bad method", "no file"] {
        assert_eq!(uint(&label(&s, name), "samples"), 3, "{name}");
        assert_eq!(uint(&label(&s, name), "errors"), 3, "{name}");
    }
    assert_eq!(uint(&label(&s, "ok"), "samples"), server.requests_to("/ok"));
    assert_eq!(server.requests_to("/a%20b"), 3);
    assert_eq!(server.requests(), 6, "only the requests JMeter can send reach the server");
    let rows = std::fs::read_to_string(&jtl).unwrap();
    for (name, code, message) in [
        (
            "nowhere",
            "org.apache.http.client.ClientProtocolException",
            "URI does not specify a valid host name: http:/lost".to_string(),
        ),
        ("bad method", "java.lang.IllegalArgumentException", "Unexpected method: '${method}'".to_string()),
        ("no file", "java.io.FileNotFoundException", format!("{} (No such file or directory)", missing.display())),
    ] {
        let want = format!(",{name},Non HTTP response code: {code},Non HTTP response message: {message},");
        let n = rows.lines().filter(|l| l.contains(&want) && l.contains(",text,false,,")).count();
        assert_eq!(n, 3, "{want}\n{rows}");
    }
}
