//! Tests of the test utilities themselves: the witness server must count exactly, or every
//! test that compares against it proves nothing. The client here is a plain blocking
//! `std::net::TcpStream`, independent of both the server and stampede.

use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::ExitStatusExt;
use std::thread;
use std::time::{Duration, Instant};

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{float, label, total, uint, OutputExt, Stampede, TempRun};

/// A blocking HTTP/1.x client just capable enough to check the server.
struct Client {
    reader: BufReader<TcpStream>,
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

impl Client {
    fn connect(server: &TestServer) -> Client {
        let stream = TcpStream::connect(server.addr()).expect("connect");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("set timeout");
        Client { reader: BufReader::new(stream) }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.reader.get_mut().write_all(bytes).expect("send");
    }

    fn get(&mut self, path: &str) -> Response {
        self.send(format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n").as_bytes());
        self.response()
    }

    /// Reads one response: status line, headers, and a body of `Content-Length` bytes unless
    /// `head` (the answer to a HEAD request has none).
    fn read_response(&mut self, head: bool) -> Response {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("status line");
        let status =
            line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("status line {line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).expect("header line");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("header has a colon");
            headers.push((name.to_string(), value.trim().to_string()));
        }
        let mut response = Response { status, headers, body: Vec::new() };
        let length: usize = response.header("content-length").expect("Content-Length").parse().expect("length");
        if !head {
            response.body = vec![0; length];
            self.reader.read_exact(&mut response.body).expect("body");
        }
        response
    }

    fn response(&mut self) -> Response {
        self.read_response(false)
    }

    /// One read after the last response: `Ok(0)` is a FIN.
    fn read_more(&mut self) -> io::Result<usize> {
        let mut byte = [0u8; 1];
        self.reader.read(&mut byte)
    }

    fn assert_fin(&mut self) {
        match self.read_more() {
            Ok(0) => {}
            other => panic!("expected the server to close (FIN), got {other:?}"),
        }
    }
}

#[test]
fn counts_requests_on_one_keep_alive_connection() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();
    let mut client = Client::connect(&server);
    for path in ["/ok", "/ok?page=2", "/ok"] {
        let r = client.get(path);
        assert_eq!((r.status, r.body.as_slice()), (200, &b"OK"[..]));
        assert_eq!(r.header("connection"), None);
    }
    assert_eq!(server.connections(), 1);
    assert_eq!(server.requests(), 3);
    assert_eq!(server.requests_to("/ok"), 3);
    assert_eq!(server.responses(), 3);
    assert_eq!(server.requests_to("/other"), 0);
    assert_eq!(server.url("/ok"), format!("http://127.0.0.1:{}/ok", server.addr().port()));
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let server = TestServer::builder().route("/a", Route::ok().body("A")).route("/b", Route::ok().body("BB")).start();
    let mut client = Client::connect(&server);
    client.send(
        b"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n",
    );
    let bodies: Vec<Vec<u8>> = (0..3).map(|_| client.response().body).collect();
    assert_eq!(bodies, [b"A".to_vec(), b"BB".to_vec(), b"A".to_vec()]);
    assert_eq!((server.requests_to("/a"), server.requests_to("/b"), server.connections()), (2, 1, 1));
}

#[test]
fn connection_close_and_http_1_0_keep_alive() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();

    let mut client = Client::connect(&server);
    client.send(b"GET /ok HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    assert_eq!(client.response().header("connection"), Some("close"));
    client.assert_fin();

    // HTTP/1.0 closes by default...
    let mut client = Client::connect(&server);
    client.send(b"GET /ok HTTP/1.0\r\n\r\n");
    assert_eq!(client.response().header("connection"), Some("close"));
    client.assert_fin();

    // ...and keeps the connection when asked.
    let mut client = Client::connect(&server);
    for _ in 0..2 {
        client.send(b"GET /ok HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        assert_eq!(client.response().header("connection"), Some("keep-alive"));
    }
    drop(client);

    assert_eq!((server.connections(), server.requests(), server.responses()), (3, 4, 4));
    assert!(server.wait_until(Duration::from_secs(5), |s| s.open_connections() == 0));
}

#[test]
fn close_after_route_answers_then_closes() {
    let server = TestServer::builder().route("/once", Route::ok().close_after().header("X-Kind", "once")).start();
    let mut client = Client::connect(&server);
    let r = client.get("/once");
    assert_eq!((r.status, r.header("connection"), r.header("x-kind")), (200, Some("close"), Some("once")));
    client.assert_fin();
    assert_eq!((server.requests(), server.responses()), (1, 1));
}

#[test]
fn delays_before_answering() {
    let server = TestServer::builder()
        .route("/slow", Route::ok().delay(Duration::from_millis(60)))
        .route("/range", Route::ok().delay_range(Duration::from_millis(20), Duration::from_millis(40)))
        .start();
    let mut client = Client::connect(&server);
    let start = Instant::now();
    client.get("/slow");
    assert!(start.elapsed() >= Duration::from_millis(60), "answered after {:?}", start.elapsed());
    let start = Instant::now();
    client.get("/range");
    assert!(start.elapsed() >= Duration::from_millis(20), "answered after {:?}", start.elapsed());
}

#[test]
fn statuses_and_default_route() {
    let server = TestServer::builder().route("/err", Route::status(500)).start();
    let mut client = Client::connect(&server);
    let r = client.get("/err");
    assert_eq!((r.status, r.body.len()), (500, 0));
    let r = client.get("/missing?q=1");
    assert_eq!((r.status, r.body.len()), (404, 0));
    assert_eq!((server.requests_to("/err"), server.requests_to("/missing")), (1, 1));
    assert_eq!((server.requests(), server.responses()), (2, 2));

    let server = TestServer::builder().default_route(Route::status(201).body("made")).start();
    let r = Client::connect(&server).get("/anything");
    assert_eq!((r.status, r.body.as_slice()), (201, &b"made"[..]));
    assert_eq!(server.requests_to("/anything"), 1);
}

#[test]
fn head_response_has_length_but_no_body() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();
    let mut client = Client::connect(&server);
    client.send(b"HEAD /ok HTTP/1.1\r\nHost: t\r\n\r\n");
    let r = client.read_response(true);
    assert_eq!((r.status, r.header("content-length")), (200, Some("2")));
    // Had the body been sent, this would read it as the next status line.
    assert_eq!(client.get("/ok").body, b"OK");
}

#[test]
fn close_route_counts_the_request_and_sends_fin() {
    let server = TestServer::builder().route("/close", Route::close()).start();
    let mut client = Client::connect(&server);
    client.send(b"GET /close HTTP/1.1\r\nHost: t\r\n\r\n");
    client.assert_fin();
    assert_eq!((server.requests_to("/close"), server.responses()), (1, 0));
}

#[test]
fn reset_route_counts_the_request_and_sends_rst() {
    let server = TestServer::builder().route("/reset", Route::reset()).start();
    let mut client = Client::connect(&server);
    client.send(b"GET /reset HTTP/1.1\r\nHost: t\r\n\r\n");
    match client.read_more() {
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        other => panic!("expected a reset, got {other:?}"),
    }
    assert_eq!((server.requests_to("/reset"), server.responses()), (1, 0));
}

#[test]
fn hang_route_never_answers_until_the_server_stops() {
    let server = TestServer::builder().route("/hang", Route::hang()).start();
    let mut client = Client::connect(&server);
    client.reader.get_ref().set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    client.send(b"GET /hang HTTP/1.1\r\nHost: t\r\n\r\n");
    match client.read_more() {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        other => panic!("expected no answer, got {other:?}"),
    }
    assert_eq!((server.requests_to("/hang"), server.responses(), server.open_connections()), (1, 0, 1));

    let start = Instant::now();
    drop(server);
    assert!(start.elapsed() < Duration::from_secs(2), "stopping took {:?}", start.elapsed());
    client.reader.get_ref().set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    client.assert_fin();
}

#[test]
fn counts_concurrent_connections() {
    let server = TestServer::builder().route("/ok", Route::ok()).start();
    let mut clients: Vec<Client> = (0..3).map(|_| Client::connect(&server)).collect();
    for c in &mut clients {
        c.get("/ok");
    }
    assert_eq!((server.connections(), server.open_connections(), server.max_concurrent_connections()), (3, 3, 3));
    drop(clients);
    assert!(server.wait_until(Duration::from_secs(5), |s| s.open_connections() == 0));
    Client::connect(&server).get("/ok");
    assert_eq!((server.connections(), server.max_concurrent_connections()), (4, 3));
}

#[test]
fn records_bodies_with_content_length_and_chunked() {
    let server = TestServer::builder().route("/post", Route::ok().record()).route("/plain", Route::ok()).start();
    let mut client = Client::connect(&server);
    client.send(b"POST /post?a=1 HTTP/1.1\r\nHost: t\r\nX-Test: yes\r\nContent-Length: 5\r\n\r\nhello");
    assert_eq!(client.response().status, 200);

    // Chunked, with an extension and a trailer, sent in pieces to exercise partial reads.
    let pieces: [&[u8]; 5] = [
        b"PUT /post HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r",
        b"\nWi",
        b"ki\r\n5\r\npedia\r\n",
        b"0\r\nTrailer-Field: t\r\n",
        b"\r\n",
    ];
    for piece in pieces {
        client.send(piece);
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(client.response().status, 200);
    client.send(b"POST /plain HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc");
    assert_eq!(client.response().status, 200);

    let recorded = server.recorded("/post");
    assert_eq!(recorded.len(), 2);
    assert_eq!((recorded[0].method.as_str(), recorded[0].target.as_str()), ("POST", "/post?a=1"));
    assert_eq!(recorded[0].header("x-test"), Some("yes"));
    assert_eq!(recorded[0].http_version, "HTTP/1.1");
    assert_eq!((recorded[1].method.as_str(), recorded[1].header("transfer-encoding")), ("PUT", Some("chunked")));
    assert_eq!(server.bodies("/post"), [b"hello".to_vec(), b"Wikipedia".to_vec()]);
    assert!(server.recorded("/plain").is_empty(), "recording is per route");
    assert_eq!((server.requests(), server.connections()), (3, 1));
}

#[test]
fn answers_expect_100_continue() {
    let server = TestServer::builder().route("/up", Route::ok().record()).start();
    let mut client = Client::connect(&server);
    client.send(b"POST /up HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
    let mut line = String::new();
    client.reader.read_line(&mut line).unwrap();
    assert_eq!(line, "HTTP/1.1 100 Continue\r\n");
    client.reader.read_line(&mut line).unwrap();
    client.send(b"xyz");
    assert_eq!(client.response().status, 200);
    assert_eq!(server.bodies("/up"), [b"xyz".to_vec()]);
}

#[test]
fn malformed_request_gets_400_and_is_not_counted() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let mut client = Client::connect(&server);
    client.send(b"this is not http\r\n\r\n");
    assert_eq!(client.response().status, 400);
    client.assert_fin();

    // A client that vanishes mid-request is not counted either.
    let mut client = Client::connect(&server);
    client.send(b"POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
    drop(client);
    assert!(server.wait_until(Duration::from_secs(5), |s| s.open_connections() == 0));
    assert_eq!((server.bad_requests(), server.requests(), server.responses()), (1, 0, 0));
}

#[test]
fn stampede_helper_runs_the_binary() {
    let out = Stampede::new().arg("--help").run();
    out.assert_success();
    assert!(out.stdout_str().contains("Usage"), "{}", out.stdout_str());
}

#[test]
#[should_panic(expected = "timed out after 300ms, killed")]
fn stampede_helper_kills_on_timeout() {
    Stampede::with_program("sleep").arg("30").timeout(Duration::from_millis(300)).run();
}

#[test]
fn spawned_process_gets_sigint() {
    let mut running = Stampede::with_program("sh").args(["-c", "echo started; exec sleep 30"]).spawn();
    assert!(running.wait_until(Duration::from_secs(10), |r| r.stdout_so_far().contains("started")));
    assert!(running.is_running());
    running.interrupt();
    let out = running.wait(Duration::from_secs(10));
    assert_eq!(out.status.signal(), Some(libc::SIGINT));
    assert_eq!(out.stdout_str(), "started\n");
}

#[test]
fn temp_run_reads_summary_and_cleans_up() {
    let run = TempRun::new("selftest");
    assert!(run.root().to_string_lossy().ends_with("-selftest"));
    let root = run.root().to_path_buf();
    assert!(run.path().starts_with(&root) && !run.path().exists());
    std::fs::create_dir(run.path()).unwrap();
    let summary = r#"{"total": {"label": "TOTAL", "samples": 3, "error_pct": 0.5},
                      "labels": [{"label": "a", "samples": 1}, {"label": "b", "samples": 2}]}"#;
    std::fs::write(run.path().join("summary.json"), summary).unwrap();
    assert_eq!(uint(&run.total(), "samples"), 3);
    assert_eq!(float(&run.total(), "error_pct"), 0.5);
    assert_eq!(uint(&run.label("b"), "samples"), 2);
    assert_eq!(uint(&label(&run.summary(), "a"), "samples"), 1);
    assert_eq!(total(&run.summary())["label"], "TOTAL");
    let plan = run.write("plan.yaml", "x: 1\n");
    assert_eq!(plan.parent(), Some(root.as_path()));
    drop(run);
    if std::env::var_os("KEEP_RUNS").is_none() {
        assert!(!root.exists());
    }
}

#[test]
fn record_all_records_every_route() {
    let server = TestServer::builder().route("/a", Route::ok()).record_all().start();
    let mut client = Client::connect(&server);
    client.get("/a?x=1");
    client.get("/b");
    let targets: Vec<String> = server.recorded_all().into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/a?x=1", "/b"]);
    assert_eq!(server.recorded("/b").len(), 1);
}

#[test]
fn spawned_process_can_be_killed() {
    let mut running = Stampede::with_program("sleep").arg("30").spawn();
    assert!(running.is_running());
    let start = Instant::now();
    running.kill();
    assert!(start.elapsed() < Duration::from_secs(5));
}
