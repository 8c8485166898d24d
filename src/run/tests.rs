//! The run layer against the built-in mock on a loopback port: what each output is handed,
//! checked against what the mock served.

use super::*;
use crate::mock::{self, Counters};
use crate::record::SampleRow;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// Every call an output got, in order.
#[derive(Debug, Default)]
struct Calls {
    starts: usize,
    labels: Vec<String>,
    /// (index, last, samples, errors, bytes received) per interval.
    intervals: Vec<(u64, bool, u64, u64, u64)>,
    notices: Vec<String>,
    /// The script log's lines.
    logs: Vec<String>,
    /// The summary's (samples, errors, bytes received), and the final status.
    finishes: Vec<(u64, u64, u64, Status)>,
}

/// An output that writes down what it is handed; `fail_at` makes its n-th interval fail.
struct Recording {
    calls: Arc<Mutex<Calls>>,
    fail_at: Option<u64>,
    fail_start: bool,
}

impl Recording {
    fn new() -> (Recording, Arc<Mutex<Calls>>) {
        let calls = Arc::new(Mutex::new(Calls::default()));
        (Recording { calls: calls.clone(), fail_at: None, fail_start: false }, calls)
    }
}

impl Output for Recording {
    fn name(&self) -> &str {
        "recording"
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        let mut c = self.calls.lock().unwrap();
        c.starts += 1;
        c.labels = start.meta.labels.clone();
        if self.fail_start {
            return Err("no room".into());
        }
        Ok(())
    }

    fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
        let t = &iv.total;
        self.calls.lock().unwrap().intervals.push((iv.index, iv.last, t.samples, t.errors, t.bytes_received));
        if self.fail_at == Some(iv.index) {
            return Err("disk full".into());
        }
        Ok(())
    }

    fn notice(&mut self, text: &str) {
        self.calls.lock().unwrap().notices.push(text.to_string());
    }

    fn log(&mut self, lines: &[String]) {
        self.calls.lock().unwrap().logs.extend(lines.iter().cloned());
    }

    fn finish(&mut self, end: &End<'_>) -> Result<(), OutputError> {
        let t = &end.summary.total;
        self.calls.lock().unwrap().finishes.push((t.samples, t.errors, t.bytes_received, end.meta.status));
        Ok(())
    }
}

/// An output that asks for per-sample rows and counts them on a thread of its own.
struct Rows {
    count: Arc<Mutex<u64>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Rows {
    fn new() -> (Rows, Arc<Mutex<u64>>) {
        let count = Arc::new(Mutex::new(0));
        (Rows { count: count.clone(), thread: None }, count)
    }
}

impl Output for Rows {
    fn name(&self) -> &str {
        "rows"
    }

    fn sample_rows(&mut self) -> Option<SampleSender> {
        let (tx, rx) = std::sync::mpsc::channel::<SampleRow>();
        let count = self.count.clone();
        self.thread = Some(std::thread::spawn(move || {
            for _ in rx {
                *count.lock().unwrap() += 1;
            }
        }));
        Some(tx)
    }

    fn interval(&mut self, _: &Interval) -> Result<(), OutputError> {
        Ok(())
    }

    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        if let Some(t) = self.thread.take() {
            t.join().map_err(|_| "the counting thread failed")?;
        }
        Ok(())
    }
}

/// The built-in mock on 127.0.0.1, port 0: its address, what it counted, and its stop token.
async fn mock_server() -> (std::net::SocketAddr, Arc<Counters>, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counters = Arc::new(Counters::default());
    let stop = CancellationToken::new();
    tokio::spawn({
        let (counters, stop) = (counters.clone(), stop.clone());
        async move { mock::run(listener, &mock::Config::default(), stop, counters).await }
    });
    (addr, counters, stop)
}

/// `users` users, `iterations` requests each, against `addr`: a bounded run.
fn plan(addr: std::net::SocketAddr, users: u32, iterations: u64) -> Plan {
    let yaml = format!(
        "name: bounded\nscenarios:\n  - name: s\n    workload: {{users: {users}, iterations: {iterations}}}\n    \
         flow:\n      - request: {{label: read, url: \"http://{addr}/\"}}\n"
    );
    Plan::from_yaml_str(&yaml, "bounded.yaml".as_ref(), &HashMap::new()).unwrap()
}

fn tokens() -> (CancellationToken, CancellationToken) {
    (CancellationToken::new(), CancellationToken::new())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outputs_get_the_start_every_interval_in_order_and_the_end() {
    let (addr, served, stop) = mock_server().await;
    let (out, calls) = Recording::new();
    let (shutdown, abort) = tokens();
    let result = Run::new(plan(addr, 3, 20), RunOptions::default()).output(out).execute(shutdown, abort).await.unwrap();
    stop.cancel();
    let served = served.served.load(Ordering::Relaxed);
    assert_eq!(served, 60);

    let c = calls.lock().unwrap();
    assert_eq!(c.starts, 1);
    assert_eq!(c.labels[0], "read");
    assert!(!c.intervals.is_empty());
    let indices: Vec<u64> = c.intervals.iter().map(|i| i.0).collect();
    assert_eq!(indices, (0..c.intervals.len() as u64).collect::<Vec<_>>(), "in order, none missing");
    let lasts: Vec<bool> = c.intervals.iter().map(|i| i.1).collect();
    assert_eq!(lasts.iter().filter(|l| **l).count(), 1, "{lasts:?}");
    assert!(lasts[lasts.len() - 1], "the last interval is the one marked last");
    // The summary is the sum of the intervals, and both are what the mock served.
    let sum = c.intervals.iter().fold((0, 0, 0), |a, i| (a.0 + i.2, a.1 + i.3, a.2 + i.4));
    assert_eq!(c.finishes, [(sum.0, sum.1, sum.2, Status::Completed)]);
    assert_eq!(sum.0, served);
    assert_eq!(sum.1, 0);
    assert!(c.notices.is_empty(), "{:?}", c.notices);
    assert_eq!((result.summary.total.samples, result.meta.status), (served, Status::Completed));
    assert!(result.failures.is_empty() && !result.outcome.interrupted);
    assert_eq!(result.summary.generator, result.meta.generator);
    assert!(result.meta.ended_at.is_some() && result.meta.duration_s.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_output_is_told_no_more_and_the_run_keeps_measuring() {
    let (addr, served, stop) = mock_server().await;
    let (mut failing, failed_calls) = Recording::new();
    failing.fail_at = Some(0);
    let (witness, calls) = Recording::new();
    let (shutdown, abort) = tokens();
    let result = Run::new(plan(addr, 2, 10), RunOptions::default())
        .outputs(vec![Box::new(failing), Box::new(witness)])
        .execute(shutdown, abort)
        .await
        .unwrap();
    stop.cancel();
    let served = served.served.load(Ordering::Relaxed);
    assert_eq!(served, 20);
    assert_eq!(result.summary.total.samples, served);
    assert_eq!(result.failures.len(), 1);
    assert_eq!(result.failures[0].to_string(), "the recording is incomplete: disk full");

    let f = failed_calls.lock().unwrap();
    assert_eq!(f.intervals.len(), 1, "no interval after the failure");
    assert!(f.finishes.is_empty(), "a failed output is not finished");
    let c = calls.lock().unwrap();
    assert_eq!(c.notices, ["cannot write the recording: disk full"]);
    assert_eq!(c.finishes.len(), 1);
    assert_eq!(c.intervals.iter().map(|i| i.2).sum::<u64>(), served);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_output_that_cannot_start_stops_the_run_before_anything_is_sent() {
    let (addr, served, stop) = mock_server().await;
    let (mut out, calls) = Recording::new();
    out.fail_start = true;
    let (shutdown, abort) = tokens();
    let err =
        Run::new(plan(addr, 2, 10), RunOptions::default()).output(out).execute(shutdown, abort).await.unwrap_err();
    stop.cancel();
    assert_eq!(err.to_string(), "no room");
    assert_eq!(served.served.load(Ordering::Relaxed), 0);
    assert!(calls.lock().unwrap().intervals.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_output_that_asks_for_rows_gets_a_row_per_sample() {
    let (addr, served, stop) = mock_server().await;
    let (one, first) = Rows::new();
    let (two, second) = Rows::new();
    let (shutdown, abort) = tokens();
    let result = Run::new(plan(addr, 2, 15), RunOptions::default())
        .output(one)
        .output(two)
        .execute(shutdown, abort)
        .await
        .unwrap();
    stop.cancel();
    let served = served.served.load(Ordering::Relaxed);
    assert_eq!(served, 30);
    assert!(result.failures.is_empty());
    assert_eq!((*first.lock().unwrap(), *second.lock().unwrap()), (served, served));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_before_the_start_ends_the_run_interrupted() {
    let (addr, served, stop) = mock_server().await;
    let (out, calls) = Recording::new();
    let (shutdown, abort) = tokens();
    shutdown.cancel();
    let result =
        Run::new(plan(addr, 2, 1000), RunOptions::default()).output(out).execute(shutdown, abort).await.unwrap();
    stop.cancel();
    assert!(result.outcome.interrupted);
    assert_eq!(result.meta.status, Status::Interrupted);
    assert_eq!(result.summary.total.samples, served.served.load(Ordering::Relaxed));
    assert_eq!(calls.lock().unwrap().finishes.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_in_outputs_write_what_the_mock_served() {
    let (addr, served, stop) = mock_server().await;
    let dir = std::env::temp_dir().join(format!("stampede-run-outputs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let jtl = dir.join("results.jtl");
    let run = Run::new(plan(addr, 2, 12), RunOptions::default());
    let run_dir =
        RunDirOutput::create(&rundir::Place::Exact { dir: dir.join("run"), replace: false }, run.meta(), run.plan())
            .unwrap();
    let (shutdown, abort) = tokens();
    let result = run.output(run_dir).output(JtlOutput::new(vec![jtl.clone()])).execute(shutdown, abort).await.unwrap();
    stop.cancel();
    let served = served.served.load(Ordering::Relaxed);
    assert_eq!(served, 24);
    assert!(result.failures.is_empty(), "{:?}", result.failures);
    let on_disk = rundir::read_run(&dir.join("run")).unwrap();
    assert_eq!((on_disk.summary.total.samples, on_disk.meta.status), (served, Status::Completed));
    let text = std::fs::read_to_string(&jtl).unwrap();
    assert_eq!(text.lines().next(), Some(rundir::jtl::HEADER));
    assert_eq!(text.lines().count() as u64, 1 + served);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_log_lines_reach_every_output_and_the_run_directory_keeps_them_masked() {
    let (addr, served, stop) = mock_server().await;
    let dir = std::env::temp_dir().join(format!("stampede-run-script-log-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let yaml = format!(
        "name: logs\nscenarios:\n  - name: s\n    workload: {{users: 1, iterations: 3}}\n    \
         flow:\n      - request: {{label: read, url: \"http://{addr}/?x=${{__groovy(log.info('api_token=sekrit-99 n ' + vars.get('__n')))}}\"}}\n"
    );
    // A function evaluated while the plan loads logs too: its line is the run's first.
    let yaml = yaml.replace("iterations: 3", "iterations: \"${__groovy(log.info('password=at-load-7'); 3)}\"");
    let plan = Plan::from_yaml_str(&yaml, "logs.yaml".as_ref(), &HashMap::new()).unwrap();
    let run = Run::new(plan, RunOptions::default());
    let run_dir =
        RunDirOutput::create(&rundir::Place::Exact { dir: dir.join("run"), replace: false }, run.meta(), run.plan())
            .unwrap();
    let (recording, calls) = Recording::new();
    let (shutdown, abort) = tokens();
    let result = run.output(run_dir).output(recording).execute(shutdown, abort).await.unwrap();
    stop.cancel();
    assert_eq!(served.served.load(Ordering::Relaxed), 3);
    assert!(result.failures.is_empty(), "{:?}", result.failures);
    let heard = calls.lock().unwrap().logs.clone();
    assert_eq!(heard.len(), 4, "{heard:?}");
    assert!(heard[0].starts_with("INFO function: password=") && !heard[0].contains("at-load"), "{heard:?}");
    let run_time = &heard[1..];
    assert!(run_time.iter().all(|l| l.starts_with("INFO function: api_token=") && !l.contains("sekrit")), "{heard:?}");
    let file = std::fs::read_to_string(dir.join("run").join(outputs::SCRIPT_LOG)).unwrap();
    assert_eq!(file.lines().collect::<Vec<_>>(), heard.iter().map(String::as_str).collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The run's task hands script log lines to the run directory and goes on: a `scripts.log` that
/// cannot be written yet (here a FIFO nobody reads) holds up its writer's thread, not the task
/// that merges the intervals; what was handed is written once it can be.
#[test]
fn a_script_log_that_cannot_be_written_yet_does_not_hold_up_the_run_s_task() {
    let dir = std::env::temp_dir().join(format!("stampede-run-script-log-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let yaml = "name: logs\nscenarios:\n  - name: s\n    workload: {users: 1, iterations: 1}\n    flow:\n      - request: {label: r, url: \"http://127.0.0.1:9/\"}\n";
    let plan = Plan::from_yaml_str(yaml, "logs.yaml".as_ref(), &HashMap::new()).unwrap();
    let run = Run::new(plan, RunOptions::default());
    let place = rundir::Place::Exact { dir: dir.join("run"), replace: false };
    let mut out = RunDirOutput::create(&place, run.meta(), run.plan()).unwrap();
    let fifo = dir.join("run").join(outputs::SCRIPT_LOG);
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (done, returned) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        out.log(&["first".to_string(), "second".to_string()]);
        let _ = done.send(out);
    });
    let out = returned.recv_timeout(std::time::Duration::from_secs(5)).expect("log() returned at once");
    let reader = std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap());
    // Dropped, the output waits for its writer, which writes and closes the FIFO.
    drop(out);
    assert_eq!(reader.join().unwrap(), "first\nsecond\n");
    let _ = std::fs::remove_dir_all(&dir);
}
