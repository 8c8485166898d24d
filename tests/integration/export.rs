//! `run --export`: live metrics reach real Prometheus (remote write) and InfluxDB 1.x servers
//! started by the test on loopback, and their queries return exactly the run's samples and
//! the witness's count; InfluxDB 2's write API against a witness that checks path, token and
//! line protocol; OTLP decoded with the crate that encodes it; the `/metrics` page scraped
//! during the run; a target that never answers neither slows the run nor goes unreported; bad
//! values are refused with secrets masked.
//!
//! Prometheus and InfluxDB are Debian's packages (`.ci/run` installs them). Without them the
//! tests that need them skip with a loud message, unless `CI` is set: then they fail.

use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// The program `name` on `PATH`, or `None` after a loud SKIPPED message; panics on CI.
fn program(name: &str, package: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        if in_ci() {
            panic!("`{name}` is not on PATH and CI is set: .ci/run installs Debian's `{package}`; the export must be checked against the real server on CI");
        }
        eprintln!("\n*** SKIPPED: `{name}` is not installed (apt-get install {package}); the export test against it did not run ***\n");
    }
    found
}

/// A free port on loopback (bound, then released for the server about to take it).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// Two free ports, both held until both are known (one dropped first could come back twice).
fn free_port_pair() -> (u16, u16) {
    let (a, b) = (TcpListener::bind("127.0.0.1:0").expect("a port"), TcpListener::bind("127.0.0.1:0").expect("a port"));
    (a.local_addr().expect("a port").port(), b.local_addr().expect("a port").port())
}

/// A server process, killed and reaped when dropped.
struct Server {
    child: Child,
    log: PathBuf,
}

impl Server {
    fn start(program: &Path, args: &[String], log: PathBuf) -> Server {
        let out = std::fs::File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        Server { child, log }
    }

    /// Waits (at most 60 s) until `GET path` on `port` answers `status`.
    fn wait_ready(&mut self, port: u16, path: &str, status: u16) {
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if let Ok(Some(code)) = self.child.try_wait() {
                panic!("the server exited ({code}) before it was ready:\n{}", self.log_text());
            }
            if http(port, "GET", path, b"").is_ok_and(|(s, _)| s == status) {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("the server on port {port} was not ready within 60 s:\n{}", self.log_text());
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.0 exchange with 127.0.0.1:`port` (no chunking, the server closes): status, body.
fn http(port: u16, method: &str, path: &str, body: &[u8]) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(2))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.set_write_timeout(Some(Duration::from_secs(10)))?;
    write!(s, "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\n\r\n", body.len())?;
    s.write_all(body)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    Ok((status, body))
}

fn encode(q: &str) -> String {
    url::form_urlencoded::byte_serialize(q.as_bytes()).collect()
}

/// A unique `--export-tag`, so queries see only this test's run.
fn unique_tag(name: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{name}-{}-{nanos}", std::process::id())
}

/// A plan of two labels against `server` for `seconds`.
fn plan(server: &TestServer, seconds: u32) -> String {
    format!(
        r#"
name: export
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - name: browse
    workload: {{users: 2, duration: {seconds}s}}
    flow:
      - request: {{label: "Home page", url: /a}}
      - request: {{label: "search,q=x", url: /b, method: POST, body: hello}}
"#,
        addr = server.addr()
    )
}

fn two_routes() -> TestServer {
    TestServer::builder().route("/a", Route::ok()).route("/b", Route::ok().body("a longer body")).start()
}

/// The sink's entry in `export.json`.
fn export_report(run: &TempRun, kind: &str) -> Value {
    let reports = run.json("export.json");
    reports
        .as_array()
        .and_then(|a| a.iter().find(|r| r["kind"] == kind))
        .cloned()
        .unwrap_or_else(|| panic!("no {kind} in export.json: {reports:#}"))
}

#[test]
fn prometheus_remote_write_totals_equal_the_samples_and_the_witness() {
    let run = TempRun::new("export-prom");
    let Some((_prom, port)) = start_prometheus(&run) else { return };
    // /b fails every time: its errors are counted by kind.
    let server = TestServer::builder().route("/a", Route::ok()).route("/b", Route::status(503)).start();
    let tag = unique_tag("rw");
    let plan_file = run.write("plan.yaml", plan(&server, 3));
    Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--export", &format!("prometheus-rw=http://127.0.0.1:{port}/api/v1/write"), "--export-tag", &tag])
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let report = export_report(&run, "prometheus-rw");
    assert_eq!(report["final_delivered"], true, "{report:#}");
    assert_eq!(uint(&report, "delivered"), uint(&report, "intervals"), "{report:#}");
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());
    assert!(samples > 0);

    let query = |q: &str| -> Option<f64> {
        let (status, body) = http(port, "GET", &format!("/api/v1/query?query={}", encode(q)), b"").ok()?;
        let v: Value = serde_json::from_str(&body).ok()?;
        assert_eq!(status, 200, "{body}");
        v["data"]["result"][0]["value"][1].as_str()?.parse().ok()
    };
    let wanted = [
        (format!("sum(stampede_requests_total{{tag=\"{tag}\",scope=\"total\"}})"), samples),
        (format!("sum(stampede_latency_seconds_count{{tag=\"{tag}\",scope=\"total\"}})"), samples),
        (format!("sum(stampede_latency_seconds_bucket{{tag=\"{tag}\",scope=\"total\",le=\"+Inf\"}})"), samples),
        (format!("stampede_requests_total{{tag=\"{tag}\",label=\"Home page\"}}"), server.requests_to("/a")),
        (format!("stampede_requests_total{{tag=\"{tag}\",label=\"search,q=x\"}}"), server.requests_to("/b")),
        (
            format!("stampede_received_bytes_total{{tag=\"{tag}\",label=\"Home page\"}}"),
            uint(&label(&run.summary(), "Home page"), "bytes_received"),
        ),
    ];
    for (q, want) in &wanted {
        // What was written is queryable at once in the head block; a little slack for a slow CI.
        let until = Instant::now() + Duration::from_secs(20);
        let mut got = query(q);
        while got != Some(*want as f64) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(250));
            got = query(q);
        }
        assert_eq!(got, Some(*want as f64), "{q}");
    }
    let errors = query(&format!("stampede_errors_total{{tag=\"{tag}\",label=\"search,q=x\",kind=\"http_503\"}}"));
    assert_eq!(errors, Some(server.requests_to("/b") as f64));
    assert_eq!(uint(&run.total(), "errors"), server.requests_to("/b"));
    assert_eq!(query(&format!("sum(stampede_errors_total{{tag=\"{tag}\",label=\"Home page\"}})")), None);

    // The Grafana dashboard's queries run on what was written: each is valid PromQL and has a
    // value (there are errors too).
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/grafana/stampede.json")).unwrap(),
    )
    .unwrap();
    let exprs: Vec<String> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .filter_map(|t| t["expr"].as_str().map(str::to_string))
        .collect();
    assert!(exprs.len() >= 8);
    for expr in &exprs {
        let q = expr.replace("$__rate_interval", "1m").replace("$run", ".*").replace("$label", ".*");
        let (status, body) = http(port, "GET", &format!("/api/v1/query?query={}", encode(&q)), b"").unwrap();
        assert_eq!(status, 200, "{q}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["status"], "success", "{q}: {body}");
        let empty = v["data"]["result"].as_array().is_none_or(|r| r.is_empty());
        assert!(!empty, "{q} has no value");
    }
}

#[test]
fn influxdb_totals_equal_the_samples_and_the_witness() {
    let Some(influxd) = program("influxd", "influxdb") else { return };
    let run = TempRun::new("export-influx");
    let (rpc, port) = free_port_pair();
    let dir = run.root().display().to_string();
    let config = run.write(
        "influxdb.conf",
        format!(
            "reporting-disabled = true\nbind-address = \"127.0.0.1:{rpc}\"\n\
             [meta]\n  dir = \"{dir}/meta\"\n\
             [data]\n  dir = \"{dir}/data\"\n  wal-dir = \"{dir}/wal\"\n  query-log-enabled = false\n\
             [http]\n  bind-address = \"127.0.0.1:{port}\"\n  log-enabled = false\n\
             [monitor]\n  store-enabled = false\n"
        ),
    );
    let mut influx =
        Server::start(&influxd, &["-config".into(), config.display().to_string()], run.root().join("influxd.log"));
    influx.wait_ready(port, "/ping", 204);
    let (status, body) =
        http(port, "POST", &format!("/query?q={}", encode("CREATE DATABASE stampede_it")), b"").unwrap();
    assert_eq!(status, 200, "{body}");

    let server = TestServer::builder()
        .route("/a", Route::ok())
        .route("/b", Route::ok().body("a longer body"))
        .route("/c", Route::ok())
        .route("/d", Route::ok())
        .start();
    let tag = unique_tag("influx");
    // Labels with backslashes: InfluxDB must read them back as they are.
    let plan_text = plan(&server, 3)
        + "      - request: {label: 'C:\\ x', url: /c}\n"
        + "      - request: {label: 'a\\,b\\', url: /d}\n";
    let plan_file = run.write("plan.yaml", plan_text);
    Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args([
            "-q",
            "--export",
            &format!("influxdb=http://127.0.0.1:{port}/write?db=stampede_it"),
            "--export-tag",
            &tag,
        ])
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let report = export_report(&run, "influxdb");
    assert_eq!(report["final_delivered"], true, "{report:#}");
    assert_eq!(uint(&report, "delivered"), uint(&report, "intervals"), "{report:#}");
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());

    let query = |q: &str| -> Value {
        let (status, body) = http(port, "GET", &format!("/query?db=stampede_it&q={}", encode(q)), b"").unwrap();
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
    };
    let first = |v: &Value| v["results"][0]["series"][0]["values"][0][1].as_f64();
    // Every interval's point summed, and the last cumulative total per label, both exact.
    let sum =
        query(&format!("SELECT sum(\"requests\") FROM \"stampede\" WHERE \"tag\" = '{tag}' AND \"scope\" = 'total'"));
    assert_eq!(first(&sum), Some(samples as f64), "{sum:#}");
    for (name, path) in [("Home page", "/a"), ("search,q=x", "/b")] {
        let q = format!(
            "SELECT last(\"requests_total\") FROM \"stampede\" WHERE \"tag\" = '{tag}' AND \"label\" = '{name}'"
        );
        let last = query(&q);
        assert_eq!(first(&last), Some(server.requests_to(path) as f64), "{q}: {last:#}");
    }
    let values = query(&format!("SHOW TAG VALUES FROM \"stampede\" WITH KEY = \"label\" WHERE \"tag\" = '{tag}'"));
    let labels: Vec<&str> = values["results"][0]["series"][0]["values"]
        .as_array()
        .map(|v| v.iter().filter_map(|p| p[1].as_str()).collect())
        .unwrap_or_default();
    assert!(labels.contains(&"C:\\ x"), "{labels:?}");
    // 1.x cannot end a tag value with a backslash: it is written as `⧵`, not refused.
    assert!(labels.contains(&"a\\,b\u{29F5}"), "{labels:?}");
}

/// A request's head (request line and headers) and its body.
type Request = (String, Vec<u8>);

/// A loopback server that answers 204 to every request and keeps what it got: request line,
/// headers and body. It stops when dropped.
struct Witness {
    port: u16,
    got: std::sync::Arc<std::sync::Mutex<Vec<Request>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Witness {
    fn start() -> Witness {
        use std::sync::atomic::Ordering;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let thread = std::thread::spawn({
            let (got, stop) = (got.clone(), stop.clone());
            move || {
                let until = Instant::now() + Duration::from_secs(120);
                while !stop.load(Ordering::Relaxed) && Instant::now() < until {
                    let Ok((mut s, _)) = listener.accept() else {
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    };
                    let _ = s.set_nonblocking(false);
                    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                    let mut raw = Vec::new();
                    let mut buf = [0u8; 8192];
                    let complete = |raw: &[u8]| {
                        let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
                        let (head, body) = (String::from_utf8_lossy(&raw[..end]), &raw[end + 4..]);
                        let len = head
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string())
                            })
                            .and_then(|v| v.parse::<usize>().ok())
                            .unwrap_or(0);
                        body.len() >= len
                    };
                    while !complete(&raw) {
                        match s.read(&mut buf) {
                            Ok(0) | Err(_) => break,
                            Ok(n) => raw.extend_from_slice(&buf[..n]),
                        }
                    }
                    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").map_or(raw.len(), |i| i + 4);
                    let head = String::from_utf8_lossy(&raw[..end]).trim_end().to_string();
                    got.lock().unwrap().push((head, raw[end..].to_vec()));
                    let _ = s.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
                }
            }
        });
        Witness { port, got, stop, thread: Some(thread) }
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `name=Ni` in a line protocol field set.
fn int_field(line: &str, name: &str) -> Option<u64> {
    let fields = line.rsplit(' ').nth(1)?;
    fields.split(',').find_map(|f| f.strip_prefix(&format!("{name}="))?.strip_suffix('i')?.parse().ok())
}

#[test]
fn influxdb_2_gets_its_token_in_a_header_and_exact_line_protocol() {
    let witness = Witness::start();
    let server = two_routes();
    let run = TempRun::new("export-influx2");
    let plan_file = run.write("plan.yaml", plan(&server, 2));
    let out = Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .env("INFLUX_TOKEN", "sekrit-token-42")
        .args(["--export", &format!("influxdb=http://127.0.0.1:{}/api/v2/write?org=acme&bucket=load", witness.port)])
        .arg("--out")
        .arg(run.path())
        .run();
    out.assert_exit(0);
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());
    let got = witness.got.lock().unwrap().clone();
    assert!(!got.is_empty());
    let (mut summed, mut total_summed) = (0, 0);
    let mut last_total = std::collections::HashMap::new();
    for (head, body) in &got {
        let request_line = head.lines().next().unwrap_or("");
        assert!(request_line.starts_with("POST /api/v2/write?"), "{request_line}");
        for part in ["org=acme", "bucket=load", "precision=ms"] {
            assert!(request_line.contains(part), "{part} not in {request_line}");
        }
        assert!(head.lines().any(|l| l == "Authorization: Token sekrit-token-42"), "{head}");
        for line in String::from_utf8_lossy(body).lines().filter(|l| l.starts_with("stampede,")) {
            if line.contains(",scope=total ") {
                total_summed += int_field(line, "requests").unwrap_or_else(|| panic!("no requests in {line}"));
                continue;
            }
            summed += int_field(line, "requests").unwrap_or_else(|| panic!("no requests in {line}"));
            let label = if line.contains("label=Home\\ page") { "/a" } else { "/b" };
            assert!(line.contains("label=Home\\ page ") || line.contains("label=search\\,q\\=x "), "{line}");
            last_total.insert(label, int_field(line, "requests_total").unwrap());
        }
    }
    assert_eq!(summed, samples);
    assert_eq!(total_summed, samples);
    assert_eq!(last_total["/a"], server.requests_to("/a"));
    assert_eq!(last_total["/b"], server.requests_to("/b"));
    // The token is sent, never kept or shown.
    for entry in std::fs::read_dir(run.path()).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        assert!(!text.contains("sekrit"), "the token is in {}", entry.path().display());
    }
    assert!(!out.stderr_str().contains("sekrit") && !out.stdout_str().contains("sekrit"));
}

/// The value of every `name{...}` line of an exposition page that is the Total's, summed.
fn exposition_sum(page: &str, name: &str) -> Option<f64> {
    let values: Vec<f64> = page
        .lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) && l.contains("scope=\"total\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse().ok())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

#[test]
fn the_metrics_page_counts_up_to_the_runs_samples() {
    let server = two_routes();
    let run = TempRun::new("export-page");
    let plan_file = run.write("plan.yaml", plan(&server, 3));
    let port = free_port();
    let mut running = Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--export", &format!("prometheus=127.0.0.1:{port}")])
        .arg("--out")
        .arg(run.path())
        .spawn();
    let mut seen = Vec::new();
    let until = Instant::now() + Duration::from_secs(30);
    while running.is_running() && Instant::now() < until {
        if let Ok((200, page)) = http(port, "GET", "/metrics", b"") {
            assert!(page.contains("# TYPE stampede_latency_seconds histogram"), "{page}");
            if let Some(n) = exposition_sum(&page, "stampede_requests_total") {
                seen.push(n);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    running.wait(Duration::from_secs(30)).assert_exit(0);
    assert!(seen.len() >= 3, "too few scrapes: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "not monotonic: {seen:?}");
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());
    // The page stays up until its final numbers have been read once.
    assert_eq!(seen.last().copied(), Some(samples as f64));
    assert_eq!(export_report(&run, "prometheus")["final_delivered"], true);
}

#[test]
fn a_target_that_never_answers_neither_slows_the_run_nor_goes_unsaid() {
    // Connections are queued in the backlog and never accepted: each push waits its whole
    // deadline.
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_port = dead.local_addr().unwrap().port();
    let server = two_routes();
    let run = TempRun::new("export-dead");
    let plan_file = run.write("plan.yaml", plan(&server, 4));
    let started = Instant::now();
    let out = Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--export", &format!("prometheus-rw=http://u:hunter2@127.0.0.1:{dead_port}/api/v1/write")])
        .arg("--out")
        .arg(run.path())
        .run();
    let took = started.elapsed();
    out.assert_exit(0);
    drop(dead);
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());
    let meta = run.meta();
    let duration = meta["duration_s"].as_f64().unwrap();
    assert!(duration < 4.9, "the run took {duration} s of load for 4 s");
    // 4 s of load, the 3 s grace for the sink, and the process around them.
    assert!(took < Duration::from_secs(12), "the process took {took:?}");
    let report = export_report(&run, "prometheus-rw");
    assert_eq!(uint(&report, "delivered"), 0, "{report:#}");
    assert!(uint(&report, "failed") + uint(&report, "unsent") > 0, "{report:#}");
    assert_eq!(report["final_delivered"], false);
    let stderr = out.stderr_str();
    assert!(stderr.contains("warning: export prometheus-rw=http://***@127.0.0.1"), "{stderr}");
    assert!(stderr.contains("the run's final totals did not reach it"), "{stderr}");
    assert!(!stderr.contains("hunter2") && !run.json("export.json").to_string().contains("hunter2"));
    assert!(!std::fs::read_to_string(run.path().join("meta.json")).unwrap().contains("hunter2"));
}

#[test]
fn bad_export_values_are_refused_naming_the_flag_and_hiding_secrets() {
    let cases = [
        ("nonsense", "--export nonsense: give KIND=TARGET"),
        ("graphite=http://127.0.0.1:2003/", "unknown kind `graphite`"),
        ("prometheus-rw=https://bob:s3cret@127.0.0.1/api/v1/write", "https is not supported"),
        ("influxdb=http://127.0.0.1:8086/write?u=bob&p=s3cret", "?db=DATABASE"),
        ("influxdb=admin:s3cret@127.0.0.1:8086/write?db=x", "the scheme is missing"),
    ];
    for (value, says) in cases {
        let out = Stampede::new().args(["run", "--url", "http://127.0.0.1:9/", "-n", "1", "--export", value]).run();
        out.assert_exit(2);
        let stderr = out.stderr_str();
        assert!(stderr.contains(says), "{value}: {stderr}");
        assert!(!stderr.contains("s3cret"), "{stderr}");
    }
    // A `/metrics` address already taken is said before the load starts.
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let server = two_routes();
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/a"), "-n", "1", "--export", &format!("prometheus={addr}")])
        .run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains(&format!("cannot listen on {addr}")), "{}", out.stderr_str());
    assert_eq!(server.requests(), 0);
}

#[test]
fn otlp_gets_cumulative_sums_and_histograms_equal_to_the_samples() {
    use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
    use opentelemetry_proto::tonic::metrics::v1::{
        metric::Data, number_data_point::Value as Point, HistogramDataPoint,
    };
    let witness = Witness::start();
    let server = two_routes();
    let run = TempRun::new("export-otlp");
    let plan_file = run.write("plan.yaml", plan(&server, 2));
    Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--export", &format!("otlp=http://127.0.0.1:{}/v1/metrics", witness.port)])
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let samples = uint(&run.total(), "samples");
    assert_eq!(samples, server.requests());
    let report = export_report(&run, "otlp");
    assert_eq!(report["final_delivered"], true, "{report:#}");
    let got = witness.got.lock().unwrap().clone();
    assert_eq!(got.len() as u64, uint(&report, "delivered"));
    let mut previous = 0;
    for (head, body) in &got {
        assert!(head.starts_with("POST /v1/metrics HTTP/1.1"), "{head}");
        assert!(head.lines().any(|l| l == "Content-Type: application/x-protobuf"), "{head}");
        let req: ExportMetricsServiceRequest = prost::Message::decode(body.as_slice()).expect("OTLP protobuf");
        let metrics = &req.resource_metrics[0].scope_metrics[0].metrics;
        let find = |name: &str| metrics.iter().find(|m| m.name == name).and_then(|m| m.data.clone());
        let Some(Data::Sum(requests)) = find("stampede.requests") else { panic!("no stampede.requests sum") };
        let per_label = |label: &str| {
            requests
                .data_points
                .iter()
                .find(|p| p.attributes.iter().any(|a| a.key == "label" && format!("{:?}", a.value).contains(label)))
                .and_then(|p| match p.value {
                    Some(Point::AsInt(n)) => Some(n as u64),
                    _ => None,
                })
                .unwrap_or(0)
        };
        let sum = per_label("Home page") + per_label("search,q=x");
        assert!(sum >= previous, "cumulative sums went down: {previous} then {sum}");
        previous = sum;
        let Some(Data::Histogram(h)) = find("stampede.latency") else { panic!("no stampede.latency histogram") };
        for p in &h.data_points {
            assert_eq!(p.bucket_counts.iter().sum::<u64>(), p.count);
            assert_eq!(p.bucket_counts.len(), p.explicit_bounds.len() + 1);
        }
        let is_total = |p: &&HistogramDataPoint| !p.attributes.iter().any(|a| a.key == "label");
        let counted: u64 = h.data_points.iter().filter(|p| !is_total(p)).map(|p| p.count).sum();
        assert_eq!(counted, sum);
        let total: Vec<u64> = h.data_points.iter().filter(is_total).map(|p| p.count).collect();
        assert_eq!(total, [sum], "the Total's histogram counts what the labels do (no group here)");
    }
    // The last push has the run's totals.
    assert_eq!(previous, samples);
    let (head, body) = got.last().unwrap();
    let req: ExportMetricsServiceRequest = prost::Message::decode(body.as_slice()).unwrap();
    let home = req.resource_metrics[0].scope_metrics[0].metrics[0]
        .data
        .clone()
        .and_then(|d| match d {
            Data::Sum(s) => s.data_points.into_iter().find(|p| format!("{:?}", p.attributes).contains("Home page")),
            _ => None,
        })
        .and_then(|p| p.value);
    assert_eq!(home, Some(Point::AsInt(server.requests_to("/a") as i64)), "{head}");
}

/// A real Prometheus with its remote-write receiver on a free loopback port, ready.
fn start_prometheus(run: &TempRun) -> Option<(Server, u16)> {
    let prometheus = program("prometheus", "prometheus")?;
    let config = run.write("prometheus.yml", "global:\n  scrape_interval: 1h\nscrape_configs: []\n");
    let port = free_port();
    let mut prom = Server::start(
        &prometheus,
        &[
            format!("--config.file={}", config.display()),
            format!("--storage.tsdb.path={}", run.root().join("tsdb").display()),
            format!("--web.listen-address=127.0.0.1:{port}"),
            "--web.enable-remote-write-receiver".into(),
        ],
        run.root().join("prometheus.log"),
    );
    prom.wait_ready(port, "/-/ready", 200);
    Some((prom, port))
}

/// The first value of an instant query, waiting (at most 20 s) until it is `want`.
fn query_until(port: u16, q: &str, want: f64) -> Option<f64> {
    let query = || -> Option<f64> {
        let (_, body) = http(port, "GET", &format!("/api/v1/query?query={}", encode(q)), b"").ok()?;
        let v: Value = serde_json::from_str(&body).ok()?;
        v["data"]["result"][0]["value"][1].as_str()?.parse().ok()
    };
    let until = Instant::now() + Duration::from_secs(20);
    let mut got = query();
    while got != Some(want) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(250));
        got = query();
    }
    got
}

#[test]
fn the_total_series_counts_groups_and_redirects_once() {
    let run = TempRun::new("export-total");
    let Some((_prom, port)) = start_prometheus(&run) else { return };
    let server = TestServer::builder()
        .route("/a", Route::ok())
        .route("/start", Route::handler(|_| Reply::status(302).header("Location", "/final")))
        .route("/final", Route::ok())
        .start();
    // Iterations, not a duration: a run that ends on time may end a chain after its 302, and
    // every chain here must reach /final.
    // A group of two requests, the second a followed redirect: per iteration the server sees 3
    // exchanges, while the labels hold 6 samples (Checkout, Home, Go, Go-0, Go-1... ).
    let plan = format!(
        r#"
name: export-total
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - name: buy
    workload: {{users: 2, iterations: 300}}
    flow:
      - group:
          name: Checkout
          flow:
            - request: {{label: Home, url: /a}}
            - request: {{label: Go, url: /start}}
"#,
        addr = server.addr()
    );
    let tag = unique_tag("total");
    let plan_file = run.write("plan.yaml", plan);
    Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--export", &format!("prometheus-rw=http://127.0.0.1:{port}/api/v1/write"), "--export-tag", &tag])
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(export_report(&run, "prometheus-rw")["final_delivered"], true);
    let samples = uint(&run.total(), "samples");
    assert!(samples > 0);
    assert_eq!(samples, server.requests());
    assert_eq!(server.requests_to("/start"), server.requests_to("/final"));
    let total = query_until(port, &format!("stampede_requests_total{{tag=\"{tag}\",scope=\"total\"}}"), samples as f64);
    assert_eq!(total, Some(samples as f64));
    let count =
        query_until(port, &format!("stampede_latency_seconds_count{{tag=\"{tag}\",scope=\"total\"}}"), samples as f64);
    assert_eq!(count, Some(samples as f64));
    // The labels hold the group and the chain beside their exchanges: their sum is more.
    let labels = run.summary()["labels"].as_array().map(|a| a.iter().map(|l| uint(l, "samples")).sum::<u64>());
    let by_label = labels.unwrap_or_default() as f64;
    assert!(by_label > samples as f64, "{by_label} vs {samples}");
    let sum = query_until(port, &format!("sum(stampede_requests_total{{tag=\"{tag}\",scope=\"label\"}})"), by_label);
    assert_eq!(sum, Some(by_label));
    let group = query_until(
        port,
        &format!("stampede_requests_total{{tag=\"{tag}\",scope=\"label\",label=\"Checkout\"}}"),
        uint(&label(&run.summary(), "Checkout"), "samples") as f64,
    );
    assert!(group.is_some_and(|g| g > 0.0));
}

#[test]
fn several_dead_sinks_share_one_grace_and_echoed_secrets_are_scrubbed() {
    let dead = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead_port = dead.local_addr().unwrap().port();
    // A proxy that refuses the write and echoes what it got, InfluxDB's `u=`/`p=` included.
    let proxy = TestServer::builder()
        .route("/write", Route::handler(|r| Reply::status(502).body(format!("bad gateway for {}", r.target))))
        .start();
    let server = two_routes();
    let run = TempRun::new("export-many");
    let plan_file = run.write("plan.yaml", plan(&server, 3));
    let started = Instant::now();
    let out = Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q"])
        .args(["--export", &format!("prometheus-rw=http://127.0.0.1:{dead_port}/api/v1/write")])
        .args(["--export", &format!("prometheus-rw=http://127.0.0.1:{dead_port}/other")])
        .args(["--export", &format!("otlp=http://127.0.0.1:{dead_port}/v1/metrics")])
        .args(["--export", &format!("influxdb=http://{}/write?db=x&u=bob&p=s3cretpw", proxy.addr())])
        .arg("--out")
        .arg(run.path())
        .run();
    let took = started.elapsed();
    out.assert_exit(0);
    drop(dead);
    // 3 s of load and one 3 s grace for all four sinks (one each would be 12 s).
    assert!(took < Duration::from_secs(11), "the process took {took:?}");
    let stderr = out.stderr_str();
    assert!(stderr.contains("HTTP 502: bad gateway"), "{stderr}");
    let reports = run.json("export.json").to_string();
    assert_eq!(run.json("export.json").as_array().map(Vec::len), Some(4));
    for text in [&stderr, &reports] {
        assert!(!text.contains("s3cretpw"), "{text}");
    }
}

#[test]
fn a_segment_part_names_its_segment_in_run_id() {
    let witness = Witness::start();
    let server = two_routes();
    let run = TempRun::new("export-part");
    let plan_file = run.write("plan.yaml", plan(&server, 1));
    Stampede::new()
        .arg("run")
        .arg(&plan_file)
        .args(["-q", "--segment", "1/2", "--export", &format!("influxdb=http://127.0.0.1:{}/write?db=x", witness.port)])
        .arg("--out")
        .arg(run.path())
        .run()
        .assert_exit(0);
    let dir = run.path().file_name().unwrap().to_string_lossy().replace(' ', "\\ ");
    let got = witness.got.lock().unwrap().clone();
    assert!(!got.is_empty());
    let body = String::from_utf8_lossy(&got[0].1).into_owned();
    assert!(body.contains(&format!("run_id={dir}\\ part\\ 1/2,")), "{body}");
}
