//! What a report says beside the table: connect time and time to first byte per label against
//! servers with known delays, and the generator's own load measured over the run only.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{float, uint, OutputExt, Stampede, TempRun};
use std::time::Duration;

/// Regression test for #11: CPU spent before the run (here, reading a large data file) was
/// divided by a short run's wall time and read as a saturated generator ("CPU 192% of 2 cores").
#[test]
fn generator_cpu_is_measured_over_the_run_only() {
    let server = TestServer::builder().default_route(Route::ok().delay(Duration::from_millis(100))).start();
    let run = TempRun::new("facts-cpu");
    let rows: String = std::iter::once("id,name\n".to_string())
        .chain((0..300_000).map(|i| format!("{i},\"user number {i}, with a comma\"\n")))
        .collect();
    run.write("rows.csv", rows);
    let plan = run.write(
        "plan.yaml",
        format!(
            "data: [{{file: rows.csv}}]\nscenarios:\n  - workload: {{users: 1, iterations: 2}}\n    flow: [{{request: {{url: '{}', query: {{id: '${{id}}'}}}}}}]\n",
            server.url("/")
        ),
    );
    let out = Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    assert_eq!(uint(&run.total(), "samples"), server.responses());
    let g = &run.summary()["generator"];
    let (cpu, cores) = (float(g, "cpu_user_s") + float(g, "cpu_system_s"), float(g, "cores"));
    let wall = float(&run.meta(), "duration_s");
    // Two requests of 100 ms each: the run waits, it does not compute.
    assert!(cpu <= wall * cores, "{cpu} s of CPU in a {wall} s run on {cores} cores: {g}");
    assert!(float(g, "cpu_pct_of_cores") < 90.0, "{g}");
    assert!(!out.stdout_str().contains("saturated"), "{}", out.stdout_str());
}

/// Regression test for #11: a run whose requests were all refused said its connections were
/// "not recorded (the source has no connect times)"; a run directory records every connection.
#[test]
fn a_run_that_never_connected_says_so() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let run = TempRun::new("facts-refused");
    let out = Stampede::new()
        .args(["run", "--url", &format!("http://127.0.0.1:{port}/"), "--users", "1", "--iterations", "3", "-q"])
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let report = Stampede::new().arg("report").arg(run.path()).run();
    report.assert_exit(0);
    for text in [out.stdout_str(), report.stdout_str()] {
        assert!(!text.contains("not recorded"), "{text}");
        assert!(text.contains("none opened for 3 requests"), "{text}");
    }
}

/// A server that answers every request on a connection (keep-alive) in two steps: the status
/// line and headers after `head`, then the body in `pieces` parts `gap` apart. Counts the
/// responses it finished (the witness).
struct Trickle {
    addr: std::net::SocketAddr,
    served: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Trickle {
    fn start(listener: std::net::TcpListener, head: Duration, pieces: usize, gap: Duration) -> Trickle {
        use std::io::{Read, Write};
        let addr = listener.local_addr().unwrap();
        let served = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let count = served.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let count = count.clone();
                std::thread::spawn(move || {
                    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    loop {
                        // Requests here are GETs: a request ends at its blank line.
                        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                            match conn.read(&mut chunk) {
                                Ok(0) | Err(_) => return,
                                Ok(n) => buf.extend_from_slice(&chunk[..n]),
                            }
                        }
                        let end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
                        buf.drain(..end);
                        std::thread::sleep(head);
                        let piece = b"0123456789";
                        let head_text = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", piece.len() * pieces);
                        if conn.write_all(head_text.as_bytes()).is_err() {
                            return;
                        }
                        for _ in 0..pieces {
                            std::thread::sleep(gap);
                            if conn.write_all(piece).is_err() {
                                return;
                            }
                        }
                        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                });
            }
        });
        Trickle { addr, served }
    }

    fn served(&self) -> u64 {
        self.served.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A response whose head comes after 50 ms and whose body trickles in over 100 ms more: its
/// time to first byte is the 50 ms, its elapsed time the 150 ms, in every format.
#[test]
fn time_to_first_byte_is_reported_beside_elapsed_in_every_format() {
    let server = Trickle::start(
        std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
        Duration::from_millis(50),
        4,
        Duration::from_millis(25),
    );
    let run = TempRun::new("facts-ttfb");
    let out = Stampede::new()
        .args(["run", "--url", &format!("http://{}/slow-body", server.addr), "--users", "2", "--iterations", "3"])
        .args(["-q", "--out"])
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let t = run.total();
    assert_eq!(uint(&t, "samples"), server.served());
    assert_eq!(uint(&t, "samples"), 6);
    let (mean, p99, max) = (float(&t, "mean_latency_ms"), float(&t, "p99_latency_ms"), float(&t, "max_latency_ms"));
    // The server's sleeps can fire late on a loaded machine, never early.
    assert!((50.0..90.0).contains(&mean) && mean <= p99 && p99 <= max && max < 90.0, "{t:#}");
    assert!(
        float(&t, "min_ms") >= 150.0 && max < float(&t, "min_ms") - 50.0,
        "every TTFB well below every elapsed: {t:#}"
    );
    // Two users with keep-alive: two connections, each counted in the connect figures.
    assert_eq!(uint(&t, "connections_opened"), 2);
    let (c_mean, c_max) = (float(&t, "mean_connect_ms"), float(&t, "max_connect_ms"));
    assert!(c_mean > 0.0 && c_mean <= c_max && c_max < mean, "{t:#}");

    // The same figures from the interval log alone (a killed run has no summary.json).
    let summary = run.summary();
    std::fs::remove_file(run.path().join("summary.json")).unwrap();
    let json = Stampede::new().args(["report", "--format", "json"]).arg(run.path()).run();
    json.assert_exit(0);
    let rebuilt: serde_json::Value = serde_json::from_str(&json.stdout_str()).unwrap();
    for key in
        ["mean_latency_ms", "p99_latency_ms", "max_latency_ms", "mean_connect_ms", "p99_connect_ms", "max_connect_ms"]
    {
        assert_eq!(rebuilt["total"][key], summary["total"][key], "{key}");
        assert_eq!(rebuilt["labels"][0][key], summary["labels"][0][key], "{key}");
    }
    let md = Stampede::new().arg("report").arg(run.path()).run();
    let text = md.stdout_str();
    let row = text.lines().filter(|l| l.starts_with("| Total")).nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains(&format!("{p99:.2}")) && row.contains(&format!("{max:.2}")), "{row}");
    let csv = Stampede::new().args(["report", "--format", "csv"]).arg(run.path()).run().stdout_str();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains("p99_latency_ms,max_latency_ms,mean_connect_ms,p99_connect_ms,max_connect_ms,"));
    assert!(csv.lines().nth(1).unwrap().contains(&format!(",{p99},{max},")), "{csv}");
    let html = Stampede::new().args(["report", "--format", "html"]).arg(run.path()).run().stdout_str();
    assert!(html.contains("<th>Latency 99th</th>") && html.contains(&format!("<td>{p99:.2}</td>")), "{html}");
}

/// Without keep-alive every request opens a connection, and every one is in the connect figures.
#[test]
fn connect_times_are_counted_per_connection_without_keep_alive() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("facts-no-keep-alive");
    Stampede::new()
        .args(["run", "--url", &server.url("/"), "--users", "2", "--iterations", "10", "--no-keep-alive", "-q"])
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let t = run.total();
    assert_eq!(uint(&t, "samples"), server.responses());
    assert_eq!(uint(&t, "connections_opened"), 20);
    let (mean, p99, max) = (float(&t, "mean_connect_ms"), float(&t, "p99_connect_ms"), float(&t, "max_connect_ms"));
    assert!(mean > 0.0 && mean <= max && p99 <= max && max <= float(&t, "max_ms"), "{t:#}");
}

/// Regression test for #11: one-second maxima came from ~1 s connects (a full SYN backlog), and
/// only the raw interval log showed it. A listener whose accept queue is full drops the SYN; the
/// client's retry a second later gets through: the connect time is that second.
/// Whether a socket of this machine is in SYN-SENT towards `addr` (loopback IPv4), as
/// `/proc/net/tcp` lists it: its connect is held up.
fn syn_sent_to(addr: std::net::SocketAddr) -> bool {
    let remote = format!("0100007F:{:04X}", addr.port());
    std::fs::read_to_string("/proc/net/tcp").is_ok_and(|table| {
        table.lines().skip(1).any(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.get(2) == Some(&remote.as_str()) && f.get(3) == Some(&"02")
        })
    })
}

#[test]
fn a_connect_held_up_by_a_full_backlog_shows_as_connect_time() {
    use std::os::fd::AsRawFd;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    // SAFETY: listen(2) on a socket we own; a backlog of 0 holds one connection.
    assert_eq!(unsafe { libc::listen(listener.as_raw_fd(), 0) }, 0);
    let addr = listener.local_addr().unwrap();
    let filler = std::net::TcpStream::connect(addr).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let accept_from = listener.try_clone().unwrap();
    let run = TempRun::new("facts-backlog");
    let child = Stampede::new()
        .args(["run", "--url", &format!("http://{addr}/"), "--users", "1", "--iterations", "1", "-q", "--out"])
        .arg(run.path())
        .spawn();
    // Let the SYN be dropped, then make room: the filler is accepted and closed. The 300 ms
    // count from the SYN, not from the spawn: a loaded machine may start the process late,
    // and a SYN sent after the room was made would connect at once.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !syn_sent_to(addr) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    let (first, _) = accept_from.accept().unwrap();
    drop((first, filler));
    let server = Trickle::start(listener, Duration::ZERO, 1, Duration::ZERO);
    child.wait(Duration::from_secs(20)).assert_exit(0);
    let t = run.total();
    assert_eq!(uint(&t, "samples"), server.served());
    let connect = float(&t, "max_connect_ms");
    assert!(connect >= 300.0, "the connect waited for room in the queue: {t:#}");
    assert_eq!(float(&t, "p99_connect_ms").round(), connect.round(), "{t:#}");
    assert!(float(&t, "max_latency_ms") >= connect && float(&t, "max_ms") >= connect, "{t:#}");
    let text = Stampede::new().arg("report").arg(run.path()).run().stdout_str();
    assert!(text.contains("Connect max"), "{text}");
}
