//! JMeter's HTTP Mirror Server (issue 14): a setUp JSR223 sampler starts it as JMeter's own test
//! plans do (`new HttpMirrorServer(port, 10, 10)`, `props.put`), HTTP samplers get their own
//! request echoed back (asserted on), a tearDown sampler stops it; the samples agree with what
//! the mirror says it served. `stampede mock --mirror` answers as the mirror, loopback only.

use crate::jmx::{plan_with_defaults, sampler, thread_group};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::io::{Read, Write};
use std::time::Duration;

// Folded into `util::jmx`; kept here under their old paths for the tests that import them so.
pub(crate) use crate::util::jmx::{esc, headers, jsr223_sampler};

/// A Response Assertion: `field` (`Assertion.response_data`, `Assertion.response_headers`...)
/// contains `text` as a substring.
fn contains(field: &str, text: &str) -> String {
    crate::util::jmx::response_assertion(&format!("has {field}"), field, 16, text)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs a plan of `groups` sending to 127.0.0.1:`port`, with the property `mport` = `port`.
fn run_plan(run: &TempRun, name: &str, port: u16, groups: &str) {
    let p = run.write("plan.jmx", plan_with_defaults(name, port, groups));
    Stampede::new()
        .arg("run")
        .arg(&p)
        .args(["-q", "-J", &format!("mport={port}"), "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
}

const START: &str = r#"import org.apache.jmeter.protocol.http.control.HttpMirrorServer;

HttpMirrorServer mirrorServer = new HttpMirrorServer(Integer.parseInt(props.get("mport")), 10, 10);
props.put("MIRROR_SERVER", mirrorServer);

mirrorServer.start();
def again = new HttpMirrorServer(Integer.parseInt(props.get("mport")))
again.start()
log.info("second: " + again.getException() + " alive=" + again.isAlive() + "/" + mirrorServer.isAlive())
"#;

const STOP: &str = r#"import org.apache.jmeter.protocol.http.control.HttpMirrorServer;

HttpMirrorServer mirrorServer = (HttpMirrorServer) props.get("MIRROR_SERVER");
mirrorServer.stopServer();
log.info("stopped: alive=" + mirrorServer.isAlive())
"#;

#[test]
fn a_plan_starts_jmeters_mirror_sends_to_it_and_stops_it() {
    let port = free_port();
    let run = TempRun::new("jmx-mirror");
    let get = sampler(
        "get",
        "GET",
        "/echo?n=1",
        "",
        false,
        &[
            headers(&[("X-SetHeaders", "X-Mirror: yes|X-Two: 2"), ("X-ResponseStatus", "201 Made")]),
            contains("Assertion.response_data", "GET /echo?n=1 HTTP/1.1"),
            contains("Assertion.response_data", "X-SetHeaders: X-Mirror: yes|X-Two: 2"),
            contains("Assertion.response_headers", "X-Two: 2"),
            contains("Assertion.response_code", "201"),
        ]
        .concat(),
    );
    let body = r#"<elementProp name="" elementType="HTTPArgument"><boolProp name="HTTPArgument.always_encode">false</boolProp><stringProp name="Argument.value">hello-mirror</stringProp><stringProp name="Argument.metadata">=</stringProp></elementProp>"#;
    let post = sampler(
        "post",
        "POST",
        "/body",
        body,
        true,
        &[
            contains("Assertion.response_data", "POST /body HTTP/1.1"),
            contains("Assertion.response_data", "hello-mirror"),
        ]
        .concat(),
    );
    let groups = [
        thread_group("SetupThreadGroup", "setUp", 1, 1, &jsr223_sampler("JSS_startMirror", START)),
        thread_group("ThreadGroup", "main", 3, 4, &[get, post].concat()),
        thread_group("PostThreadGroup", "tearDown", 1, 1, &jsr223_sampler("JSS_stopMirror", STOP)),
    ];
    run_plan(&run, "Mirror", port, &groups.concat());
    let (gets, posts) = (uint(&run.label("get"), "samples"), uint(&run.label("post"), "samples"));
    assert_eq!((gets, posts), (12, 12));
    assert_eq!(uint(&run.total(), "errors"), 0, "every echo asserted");
    let log = std::fs::read_to_string(run.path().join("scripts.log")).unwrap();
    assert!(
        log.contains("INFO JSR223Sampler.JSS_startMirror: second: java.net.BindException: Address already in use alive=false/true"),
        "{log}"
    );
    assert!(log.contains("stopped: alive=false"), "{log}");
    // The mirror's own count: one connection per request (HTTP/1.0, closed after each).
    let want = format!("HttpMirror Server stopped (served {n} requests on {n} connections)", n = gets + posts);
    assert!(log.contains(&want), "{want}\n{log}");
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the mirror stopped with the run");
}

/// Started and never stopped, nor kept: the mirror still serves the main group, and ends with
/// the run.
#[test]
fn a_mirror_never_outlives_its_run() {
    let port = free_port();
    let run = TempRun::new("jmx-mirror-left");
    let start =
        "new org.apache.jmeter.protocol.http.control.HttpMirrorServer(Integer.parseInt(props.get('mport'))).start()";
    let groups = [
        thread_group("SetupThreadGroup", "setUp", 1, 1, &jsr223_sampler("start", start)),
        thread_group(
            "ThreadGroup",
            "main",
            1,
            2,
            &sampler("get", "GET", "/x?status=202%20Fine", "", false, &contains("Assertion.response_code", "202")),
        ),
    ];
    run_plan(&run, "Left", port, &groups.concat());
    assert_eq!(uint(&run.label("get"), "samples"), 2);
    assert_eq!(uint(&run.total(), "errors"), 0);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the mirror ended with the run");
}

#[test]
fn mock_mirror_answers_and_counts() {
    let (mock, addr) = crate::mock::start_mock(&["--mirror"]);
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = "GET /m?v HTTP/1.1\r\nHost: x\r\nX-SetHeaders: A: b\r\n\r\n";
    s.write_all(req.as_bytes()).unwrap();
    let mut got = String::new();
    s.read_to_string(&mut got).unwrap();
    assert_eq!(got, format!("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nA: b\r\n\r\n{req}"));
    mock.interrupt();
    let out = mock.wait(Duration::from_secs(10));
    out.assert_exit(0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("GET /m?v HTTP/1.1\n"), "verbose prints the request line: {stdout}");
    assert!(stdout.contains("served 1 requests on 1 connections"), "{stdout}");
    // Anything but loopback is refused.
    let out = Stampede::new().args(["mock", "--mirror", "--listen", "0.0.0.0:0"]).run();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("127.0.0.1 or [::1] only"), "{out:?}");
}
