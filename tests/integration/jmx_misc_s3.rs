//! JMeter 5.6.3's semantics of issue 32 (misc): the Counter config element (per user or shared,
//! wrap-around, fields that are no number, two counters of one name) and bandwidth emulation
//! (`httpclient.socket.http.cps` from `-J` or a setUp script), each against the witness with
//! exact counts.

use crate::util::jmx::{element, http, http_defaults, jsr223_sampler, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

fn counter(var: &str, start: &str, incr: &str, end: &str, per_user: bool) -> String {
    let per_user = if per_user { "true" } else { "false" };
    element(
        "CounterConfig",
        &format!("counter {var} {start}"),
        &[
            ("CounterConfig.start", start),
            ("CounterConfig.incr", incr),
            ("CounterConfig.end", end),
            ("CounterConfig.name", var),
            ("CounterConfig.format", ""),
            ("CounterConfig.per_user", per_user),
        ],
        "",
    )
}

fn group(threads: u32, loops: u32, body: &str) -> String {
    thread_group("ThreadGroup", "users", &threads.to_string(), &loops.to_string(), "", body)
}

/// Runs `plan` quietly into `run` with `args`, exit 0, and returns how long it took.
fn run_timed(run: &TempRun, plan: String, args: &[&str]) -> Duration {
    let file = run.write("plan.jmx", plan);
    let start = Instant::now();
    Stampede::new().arg("run").arg(&file).args(["-q", "--out"]).arg(run.path()).args(args).run().assert_exit(0);
    start.elapsed()
}

/// Values JMeter 5.6.3 sent for bench/jmeter/plans/counter-semantics.jmx: of two counters of
/// one variable the first in the plan is read (its controller calls them last-added first); a
/// start above the end is used every time; a start or increment that is no whole number
/// (a word, spaces around the digits) is 0, and loads.
#[test]
fn counters_count_as_jmeter_counts() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("misc-counters");
    let body = [
        counter("dup", "100", "1", "", true),
        counter("dup", "200", "1", "", true),
        counter("above", "9", "1", "4", true),
        counter("word", "x", "", "", true),
        counter("spaces", " 3", "2 ", "", true),
        counter("wrap", "1", "1", "2", true),
        http("c", "", "", "/c/${dup}/${above}/${word}/${spaces}/${wrap}", "GET", ""),
    ]
    .concat();
    let port = server.addr().port().to_string();
    let plan = test_plan("Counters", "", &[http_defaults("127.0.0.1", &port), group(1, 3, &body)].concat());
    run_timed(&run, plan, &[]);
    assert_eq!(server.requests_to("/c/100/9/0/0/1"), 1);
    assert_eq!(server.requests_to("/c/101/9/0/0/2"), 1);
    assert_eq!(server.requests_to("/c/102/9/0/0/1"), 1);
    assert_eq!(server.requests(), 3);
}

/// A shared counter gives each value once across users: 2 users x 3 passes take 1, 4, 7, ...
/// wrapping after 10 to 1 again, so 1, 4, 7, 10, 1, 4 are served.
#[test]
fn a_shared_counter_hands_each_value_to_one_user_and_wraps() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("misc-counter-shared");
    let body = [counter("g", "1", "3", "10", false), http("g", "", "", "/g/${g}", "GET", "")].concat();
    let port = server.addr().port().to_string();
    let plan = test_plan("Shared", "", &[http_defaults("127.0.0.1", &port), group(2, 3, &body)].concat());
    run_timed(&run, plan, &[]);
    for (path, n) in [("/g/1", 2), ("/g/4", 2), ("/g/7", 1), ("/g/10", 1)] {
        assert_eq!(server.requests_to(path), n, "{path}");
    }
    assert_eq!(server.requests(), 6);
}

/// `-J httpclient.socket.http.cps=40000`: each connection reads and writes at most 40,000
/// bytes a second, as JMeter's SlowSocket paces them (the first read of a response waits for
/// HttpClient's 8 KiB buffer, later ones for what they read), so 4 responses of 20,000 bytes
/// take at least 2 s; every one is served and counted once.
#[test]
fn bandwidth_from_the_command_line_paces_each_response() {
    let server = TestServer::builder().route("/big", Route::ok().body(vec![b'x'; 20_000])).start();
    let run = TempRun::new("misc-cps-j");
    let took = run_timed(&run, paced_plan(&server, "", 4), &["-J", "httpclient.socket.http.cps=40000"]);
    assert_paced(&server, &run, 4, took, Duration::from_millis(2000));
}

/// A plan of `before` (a setUp group) and a user getting `/big` `loops` times.
fn paced_plan(server: &TestServer, before: &str, loops: u32) -> String {
    let main = group(1, loops, &http("big", "", "", "/big", "GET", ""));
    test_plan(
        "Slow",
        "",
        &[http_defaults("127.0.0.1", &server.addr().port().to_string()), before.into(), main].concat(),
    )
}

/// `n` responses of `/big` served and sampled, in no less than `at_least` (and in bounded time).
fn assert_paced(server: &TestServer, run: &TempRun, n: u64, took: Duration, at_least: Duration) {
    assert_eq!(server.requests_to("/big"), n);
    assert_eq!(uint(&label(&run.summary(), "big"), "samples"), n);
    assert!(took >= at_least, "{n} paced responses took {took:?}, under {at_least:?}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// A setUp thread group's script sets the property as JMeter's SlowCharsFeature.jmx does (that
/// plan was refused): the main group's connections are paced, the setUp group having sent
/// nothing over HTTP before. Each response's first read waits for 8 KiB: 2 x 512 ms at least.
#[test]
fn bandwidth_set_by_a_setup_script_paces_the_main_group() {
    let server = TestServer::builder().route("/big", Route::ok().body(vec![b'x'; 8000])).start();
    let run = TempRun::new("misc-cps-setup");
    let script = "import org.apache.jmeter.util.JMeterUtils;\nJMeterUtils.setProperty(\"httpclient.socket.http.cps\",\"16000\");";
    let setup = thread_group("SetupThreadGroup", "setup", "1", "1", "", &jsr223_sampler("set cps", script));
    let took = run_timed(&run, paced_plan(&server, &setup, 2), &[]);
    assert_paced(&server, &run, 2, took, Duration::from_millis(1000));
}

/// A Sample Timeout (JMeter's SampleMonitor) interrupts an HTTP sample that runs longer than its
/// timeout, wherever it stands in the thread group: the sample fails after about the timeout
/// with JMeter's code and message (`java.net.SocketException`, `Socket closed`), the user goes
/// on; a sample within the timeout is untouched. The server saw each request once.
#[test]
fn a_sample_timeout_interrupts_slow_http_samples() {
    let server = TestServer::builder()
        .route("/slow", Route::ok().delay(Duration::from_millis(3000)))
        .route("/fast", Route::ok())
        .start();
    let run = TempRun::new("misc-sample-timeout");
    let timeout = element("SampleTimeout", "st", &[("InterruptTimer.timeout", "400")], "");
    let body = [http("slow", "", "", "/slow", "GET", &timeout), http("fast", "", "", "/fast", "GET", "")].concat();
    let port = server.addr().port().to_string();
    let plan = test_plan("Timeout", "", &[http_defaults("127.0.0.1", &port), group(1, 2, &body)].concat());
    let file = run.write("plan.jmx", plan);
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    let start = Instant::now();
    cmd.run().assert_exit(0);
    let took = start.elapsed();
    assert_eq!(server.requests_to("/slow"), 2);
    assert_eq!(server.requests_to("/fast"), 2);
    let summary = run.summary();
    assert_eq!(uint(&label(&summary, "slow"), "samples"), 2);
    assert_eq!(uint(&label(&summary, "slow"), "errors"), 2);
    assert_eq!(uint(&label(&summary, "fast"), "errors"), 0);
    assert!(took < Duration::from_millis(5500), "two 3 s requests interrupted at 400 ms took {took:?}");
    let jtl = std::fs::read_to_string(jtl).unwrap();
    let slow: Vec<&str> = jtl.lines().filter(|l| l.contains(",slow,")).collect();
    assert_eq!(slow.len(), 2, "{jtl}");
    for row in slow {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[3], "Non HTTP response code: java.net.SocketException", "{row}");
        assert_eq!(cells[4], "Non HTTP response message: Socket closed", "{row}");
        let elapsed: u64 = cells[1].parse().unwrap();
        assert!((390..2000).contains(&elapsed), "{row}");
    }
}
