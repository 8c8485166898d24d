//! Tests of the test utilities themselves: the witness server must count exactly, or every
//! test that compares against it proves nothing. The client here is a plain blocking
//! `std::net::TcpStream`, independent of both the server and stampede.

use std::io::{self, BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::util::server::{RecordedRequest, Reply, Route, TestServer};
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

    /// Every value of the headers with this name, in order.
    fn all(&self, name: &str) -> Vec<&str> {
        self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect()
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

    /// Sends a request (all of its bytes) and reads the response.
    fn request(&mut self, bytes: &[u8]) -> Response {
        self.send(bytes);
        self.response()
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

/// Holds however the suite is launched: run as a background job of a non-interactive shell
/// (`sh -c 'cargo test ... & wait'`), the test binary inherits SIGINT ignored, and a shell
/// child that inherited it too would sleep on after `interrupt`.
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

/// A request as a handler would get it, for testing the helpers without a server.
fn recorded(target: &str, headers: &[(&str, &str)], body: &str) -> RecordedRequest {
    RecordedRequest {
        method: "POST".into(),
        target: target.into(),
        headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        body: body.as_bytes().to_vec(),
        http_version: "HTTP/1.1".into(),
    }
}

#[test]
fn handler_sets_several_cookies_and_computes_the_body() {
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(|r| {
                let user = r.form("user").unwrap_or_default();
                Reply::ok()
                    .header("Set-Cookie", format!("SID=sid-{user}; Path=/; HttpOnly"))
                    .header("Set-Cookie", "theme=dark")
                    .header("Content-Type", "application/json")
                    .body(format!(r#"{{"method":"{}","path":"{}","user":"{user}"}}"#, r.method, r.path()))
            })
            .header("X-Route", "login"),
        )
        .start();
    let mut client = Client::connect(&server);
    let r = client.request(
        b"POST /login?next=%2F HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n\
          Content-Length: 20\r\n\r\nuser=ann+lee&pw=x%3D",
    );
    let body = r#"{"method":"POST","path":"/login","user":"ann lee"}"#;
    assert_eq!((r.status, String::from_utf8_lossy(&r.body).as_ref()), (200, body));
    assert_eq!(r.all("set-cookie"), ["SID=sid-ann lee; Path=/; HttpOnly", "theme=dark"]);
    assert_eq!(r.all("content-length"), [body.len().to_string()], "the server writes the one Content-Length");
    assert_eq!((r.header("content-type"), r.header("x-route")), (Some("application/json"), Some("login")));
    // The route's own headers come after the reply's.
    let names: Vec<&str> = r.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["Content-Length", "Set-Cookie", "Set-Cookie", "Content-Type", "X-Route"]);

    // The body follows the request, on the same connection.
    let r = client.request(b"GET /login HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(r.body, br#"{"method":"GET","path":"/login","user":""}"#);
    assert_eq!((server.requests_to("/login"), server.responses(), server.connections()), (2, 2, 1));
}

#[test]
fn handler_answers_401_without_cookie_and_bearer() {
    let server = TestServer::builder()
        .route(
            "/api",
            Route::handler(|r| {
                let bearer = r.header("authorization").and_then(|a| a.strip_prefix("Bearer ")).map(str::to_string);
                match (bearer, r.cookie("SID")) {
                    (Some(token), Some(sid)) => Reply::ok().body(format!("{token}/{sid}")),
                    _ => Reply::status(401).header("WWW-Authenticate", "Bearer"),
                }
            }),
        )
        .start();
    let mut client = Client::connect(&server);
    let mut get = |headers: &str| client.request(format!("GET /api HTTP/1.1\r\nHost: t\r\n{headers}\r\n").as_bytes());

    let r = get("");
    assert_eq!((r.status, r.header("www-authenticate"), r.body.len()), (401, Some("Bearer"), 0));
    assert_eq!(get("Cookie: SID=s1\r\n").status, 401);
    assert_eq!(get("Authorization: Bearer t1\r\n").status, 401);
    assert_eq!(get("Authorization: Bearer t1\r\nCookie: other=1; SIDX=2\r\n").status, 401, "SIDX is not SID");
    let r = get("authorization: Bearer t1\r\nCookie: a=1; SID=s1; b=2\r\n");
    assert_eq!((r.status, r.body.as_slice()), (200, &b"t1/s1"[..]));
    // The cookie may be in a second Cookie header.
    let r = get("Cookie: a=1\r\nAuthorization: Bearer t2\r\ncookie: SID=s2\r\n");
    assert_eq!((r.status, r.body.as_slice()), (200, &b"t2/s2"[..]));
    assert_eq!((server.requests(), server.responses()), (6, 6));
}

#[test]
fn request_helpers_decode_query_form_and_cookies() {
    let r = recorded(
        "/search?q=caf%C3%A9+au%20lait&plus=a%2Bb&amp=x%26y%3Dz&q=second&flag&empty=&bad=%zz%4&a%5B%5D=arr",
        &[("Cookie", "a=1; b = two ;c=x=y"), ("X-Other", "SID=no"), ("COOKIE", "SID=\"quoted\"; a=again")],
        "username=jo+doe&password=p%40ss%3D1&note=100%25&username=other",
    );
    assert_eq!(r.path(), "/search");
    assert_eq!(r.query("q").as_deref(), Some("café au lait"), "first value, percent-decoded, + as space");
    assert_eq!(r.query("plus").as_deref(), Some("a+b"));
    assert_eq!(r.query("amp").as_deref(), Some("x&y=z"));
    assert_eq!((r.query("flag").as_deref(), r.query("empty").as_deref()), (Some(""), Some("")));
    assert_eq!(r.query("bad").as_deref(), Some("%zz%4"), "invalid escapes are kept");
    assert_eq!(r.query("a[]").as_deref(), Some("arr"), "names are decoded too");
    assert_eq!((r.query("missing"), r.query("Q")), (None, None));

    assert_eq!(r.form("username").as_deref(), Some("jo doe"));
    assert_eq!(r.form("password").as_deref(), Some("p@ss=1"));
    assert_eq!(r.form("note").as_deref(), Some("100%"));
    assert_eq!(r.form("q"), None, "the form is the body, not the query");

    assert_eq!((r.cookie("a").as_deref(), r.cookie("b").as_deref()), (Some("1"), Some("two")));
    assert_eq!(r.cookie("c").as_deref(), Some("x=y"));
    assert_eq!(r.cookie("SID").as_deref(), Some("\"quoted\""), "from the second Cookie header, as sent");
    assert_eq!((r.cookie("A"), r.cookie("d")), (None, None));

    // Absolute form, a fragment, and no query or body at all.
    let r = recorded("http://127.0.0.1:8080/p/q?x=%2F#frag", &[], "");
    assert_eq!((r.path(), r.query("x").as_deref()), ("/p/q", Some("/")));
    let r = recorded("/plain", &[], "");
    assert_eq!((r.path(), r.query("x"), r.form("x"), r.cookie("x")), ("/plain", None, None, None));

    // The same, through the server: what the handler gets is what is recorded.
    let server = TestServer::builder()
        .route(
            "/echo",
            Route::handler(|r| {
                let v = |o: Option<String>| o.unwrap_or_else(|| "-".into());
                Reply::ok().body(format!("{}|{}|{}", v(r.query("q")), v(r.form("f")), v(r.cookie("c"))))
            })
            .record(),
        )
        .start();
    let r = Client::connect(&server).request(
        b"POST /echo?q=a%20b+c HTTP/1.1\r\nHost: t\r\nCookie: c=%41\r\nTransfer-Encoding: chunked\r\n\r\n\
          4\r\nf=%2\r\n4\r\n6x+y\r\n0\r\n\r\n",
    );
    assert_eq!(r.body, b"a b c|&x y|%41");
    let rec = server.recorded("/echo");
    assert_eq!((rec.len(), rec[0].target.as_str(), rec[0].form("f").as_deref()), (1, "/echo?q=a%20b+c", Some("&x y")));
}

#[test]
fn query_string_requests_use_the_path_route() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(move |r| {
                log.lock().unwrap().push((r.path().to_string(), r.query("x")));
                Reply::ok().body("login")
            })
            .record(),
        )
        .start();
    let mut client = Client::connect(&server);
    for target in ["/login?x=1", "/login", "/login?", "/login?y=2&x=3", "http://127.0.0.1/login?x=4"] {
        let r = client.request(format!("GET {target} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        assert_eq!((r.status, r.body.as_slice()), (200, &b"login"[..]), "{target}");
    }
    // Exact paths only: no prefix, case or trailing-slash matching.
    for target in ["/login/", "/Login?x=1", "/loginx", "/login%3Fx=1"] {
        let r = client.request(format!("GET {target} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        assert_eq!(r.status, 404, "{target}");
    }
    let expected =
        [("/login", Some("1")), ("/login", None), ("/login", None), ("/login", Some("3")), ("/login", Some("4"))]
            .map(|(p, x)| (p.to_string(), x.map(str::to_string)));
    assert_eq!(*seen.lock().unwrap(), expected);
    assert_eq!((server.requests_to("/login"), server.requests_to("/login?x=1")), (5, 0));
    assert_eq!((server.requests_to("/login/"), server.requests_to("/Login")), (1, 1));
    let targets: Vec<String> = server.recorded("/login").into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/login?x=1", "/login", "/login?", "/login?y=2&x=3", "http://127.0.0.1/login?x=4"]);
    assert_eq!((server.requests(), server.responses()), (9, 9));
}

#[test]
fn handler_routes_count_like_every_route() {
    let calls = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&calls);
    let server = TestServer::builder()
        .route(
            "/h",
            Route::handler(move |r| {
                let n = counter.fetch_add(1, SeqCst) + 1;
                Reply::status(201).body(format!("{n}:{}", r.query("i").unwrap_or_default()))
            }),
        )
        .route("/bye", Route::handler(|_| Reply::ok()).close_after())
        .start();
    let mut sent = 0;

    // Sequential and pipelined on one keep-alive connection.
    let mut client = Client::connect(&server);
    for i in 0..5 {
        assert_eq!(client.get(&format!("/h?i={i}")).status, 201);
        sent += 1;
    }
    client.send(
        b"GET /h?i=p1 HTTP/1.1\r\nHost: t\r\n\r\nPOST /h?i=p2 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nxy",
    );
    let bodies: Vec<Vec<u8>> = (0..2).map(|_| client.response().body).collect();
    assert_eq!(bodies, [b"6:p1".to_vec(), b"7:p2".to_vec()]);
    sent += 2;
    // HEAD: the handler runs and Content-Length is its body's, but no body is sent.
    client.send(b"HEAD /h?i=head HTTP/1.1\r\nHost: t\r\n\r\n");
    let r = client.read_response(true);
    assert_eq!((r.status, r.header("content-length")), (201, Some("6")));
    assert_eq!(client.get("/h").body, b"9:", "had the HEAD body been sent, this would read it");
    sent += 2;

    // Several connections at once.
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let mut client = Client::connect(&server);
            thread::spawn(move || {
                for _ in 0..10 {
                    assert_eq!(client.get("/h").status, 201);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    sent += 40;

    // close_after on a handler route.
    let mut client = Client::connect(&server);
    let r = client.get("/bye");
    assert_eq!((r.status, r.header("connection")), (200, Some("close")));
    client.assert_fin();

    assert_eq!(calls.load(SeqCst), sent);
    assert_eq!((server.requests_to("/h"), server.requests_to("/bye")), (sent, 1));
    assert_eq!((server.requests(), server.responses()), (sent + 1, sent + 1));
    assert_eq!(server.connections(), 6);
}

#[test]
fn handler_runs_after_the_delay_and_after_recording() {
    let called = Arc::new(Mutex::new(None));
    let at = Arc::clone(&called);
    let server = TestServer::builder()
        .route(
            "/slow",
            Route::handler(move |_| {
                *at.lock().unwrap() = Some(Instant::now());
                Reply::ok()
            })
            .delay(Duration::from_millis(60)),
        )
        .route("/boom", Route::handler(|_| panic!("handler test panic")).record())
        .start();
    let mut client = Client::connect(&server);
    let start = Instant::now();
    assert_eq!(client.get("/slow").status, 200);
    let called = called.lock().unwrap().expect("the handler ran");
    assert!(called.duration_since(start) >= Duration::from_millis(60), "called after {:?}", called - start);

    // A panicking handler: the request was recorded before the call, the answer is a 500.
    let r = client.get("/boom?x=1");
    assert_eq!((r.status, String::from_utf8_lossy(&r.body).as_ref()), (500, "handler panicked: handler test panic"));
    assert_eq!(server.recorded("/boom")[0].query("x").as_deref(), Some("1"));
    assert_eq!(client.get("/slow").status, 200, "the connection survives the panic");
    assert_eq!((server.requests(), server.responses(), server.connections()), (3, 3, 1));
}

#[test]
#[should_panic(expected = "Route::body on a handler route")]
fn handler_route_rejects_a_route_body() {
    let _ = Route::handler(|_| Reply::ok()).body("ignored");
}

#[test]
fn reply_builders() {
    assert_eq!(Reply::ok(), Reply { status: 200, headers: vec![], body: b"OK".to_vec() });
    let reply = Reply::status(302).header("Location", "/a").header("Set-Cookie", "a=1").header("Set-Cookie", "b=2");
    assert_eq!((reply.status, reply.body.len(), reply.headers.len()), (302, 0, 3));
    assert_eq!(reply.headers[2], ("Set-Cookie".to_string(), "b=2".to_string()));
    assert_eq!(Reply::ok().body(vec![0u8, 1]).body, [0, 1]);
    assert!(format!("{:?}", Route::handler(|_| Reply::ok())).contains("<handler>"));
}
