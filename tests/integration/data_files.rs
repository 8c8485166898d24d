//! Data files of any size (issue 31): a CSV file is read as users take its rows, so the peak
//! memory of `run` and `check` does not grow with the file, and the rows still arrive in order,
//! each once per pass. The peak is the kernel's (`VmHWM` of the process), compared with a
//! bound well under the file's size and with the same plan reading a tiny file.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, TempRun};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the large file may add to the peak memory of a process reading it, in KiB: a few
/// windows and rows, nothing like the file (the old loader held ~8.6 times the file).
const GROWTH_BOUND_KIB: i64 = 12 * 1024;
/// The peak of any process reading the large file, in KiB: under three quarters of the file
/// (64 MB), where the old loader took 8.6 times it.
const PEAK_BOUND_KIB: i64 = 48 * 1024;
const ROWS: u64 = 1_000_000;

/// Writes a data file `v,w` of `rows` rows (`r1,<pad>`, ...), each about 64 bytes.
fn write_rows(path: &Path, rows: u64) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    w.write_all(b"v,w\n").unwrap();
    for i in 1..=rows {
        writeln!(w, "r{i},\"pad, {i:0>48}\"").unwrap();
    }
    w.flush().unwrap();
}

/// Runs the binary with `args` in `dir` until it exits (killed after 120 s); returns its exit
/// code, the highest peak resident memory (`VmHWM`, KiB) read from `/proc` while it ran, and
/// its stderr. `VmHWM` is the process's own: the kernel's `ru_maxrss` of a child also counts the
/// memory of the test process that spawned it.
fn peak_rss(args: &[&str], dir: &Path) -> (i32, i64, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr.txt")).unwrap())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut peak = 0;
    loop {
        if let Some(hwm) = std::fs::read_to_string(&status).ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<i64>().ok()
        }) {
            peak = peak.max(hwm);
        }
        if let Some(exit) = child.try_wait().unwrap() {
            let stderr = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
            return (exit.code().unwrap_or(-1), peak, stderr);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("stampede {args:?} did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn plan(addr: &str, users: u32, iterations: u32, share: &str) -> String {
    format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
data: [{{file: rows.csv, share: {share}}}]
scenarios:
  - workload: {{users: {users}, iterations: {iterations}}}
    flow:
      - request: {{url: /rec, query: {{v: "${{v}}", w: "${{w}}"}}}}
"#
    )
}

/// #31: a run reading a 64 MB data file peaks where the same run with a 3-row file does (the
/// file used to cost 8.6 times its size), and the witness receives the file's rows in order.
#[test]
fn issue31_a_large_data_file_is_streamed_in_order_within_a_bounded_memory() {
    let server = TestServer::builder().route("/rec", Route::ok().record()).start();
    let addr = server.addr().to_string();
    let small = TempRun::new("csv-small");
    write_rows(&small.root().join("rows.csv"), 3);
    small.write("plan.yaml", plan(&addr, 1, 2000, "all"));
    let (code, small_peak, err) = peak_rss(&["run", "plan.yaml", "-q", "--out", "run"], small.root());
    assert_eq!(code, 0, "{err}");
    let served_small = server.recorded("/rec").len();
    assert_eq!(served_small, 2000);

    let large = TempRun::new("csv-large");
    write_rows(&large.root().join("rows.csv"), ROWS);
    let size = std::fs::metadata(large.root().join("rows.csv")).unwrap().len();
    assert!(size > 60_000_000, "{size}");
    large.write("plan.yaml", plan(&addr, 1, 2000, "all"));
    let (code, large_peak, err) = peak_rss(&["run", "plan.yaml", "-q", "--out", "run"], large.root());
    assert_eq!(code, 0, "{err}");

    let got = server.recorded("/rec");
    let got = &got[served_small..];
    let values: Vec<String> = got.iter().map(|r| r.query("v").unwrap_or_default()).collect();
    let want: Vec<String> = (1..=2000).map(|i| format!("r{i}")).collect();
    assert_eq!(values, want, "the file's rows, in order");
    assert_eq!(got[1999].query("w").unwrap_or_default(), format!("pad, {:0>48}", 2000));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(large.root().join("run/summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&crate::util::stampede::total(&summary), "samples"), got.len() as u64);
    assert!(small_peak > 0 && large_peak > 0, "the peaks were read: {small_peak}, {large_peak}");
    assert!(
        large_peak - small_peak < GROWTH_BOUND_KIB && large_peak < PEAK_BOUND_KIB,
        "a {size}-byte file raised the peak from {small_peak} KiB to {large_peak} KiB"
    );
}

/// #31: users reading the large file on their own (`share: user`) each hold a cursor, not the
/// file, and each reads it from its first row.
#[test]
fn issue31_users_reading_a_large_file_on_their_own_hold_no_copy_of_it() {
    let server = TestServer::builder().route("/rec", Route::ok().record()).start();
    let addr = server.addr().to_string();
    let dir = TempRun::new("csv-user-large");
    write_rows(&dir.root().join("rows.csv"), ROWS);
    dir.write("plan.yaml", plan(&addr, 50, 40, "user"));
    let (code, peak, err) = peak_rss(&["run", "plan.yaml", "-q", "--out", "run"], dir.root());
    assert_eq!(code, 0, "{err}");
    let got = server.recorded("/rec");
    assert_eq!(got.len(), 2000);
    let mut per_value = std::collections::HashMap::<String, u32>::new();
    for r in &got {
        *per_value.entry(r.query("v").unwrap_or_default()).or_default() += 1;
    }
    assert_eq!(per_value.len(), 40, "each user reads rows 1 to 40");
    assert!(per_value.iter().all(|(v, n)| *n == 50 && v[1..].parse::<u32>().is_ok_and(|i| (1..=40).contains(&i))));
    assert!(peak > 0 && peak < PEAK_BOUND_KIB, "peak {peak} KiB for 50 users");
}

/// #31: `check` of a plan with a large data file checks every row (a bad one is still an error
/// naming its line) with a peak well under the file's size.
#[test]
fn issue31_check_of_a_large_data_file_stays_small_and_still_finds_a_bad_row() {
    let plan = "data: [{file: rows.csv}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1:9/${v}'}}]}]\n";
    let large = TempRun::new("check-large");
    write_rows(&large.root().join("rows.csv"), ROWS);
    large.write("plan.yaml", plan);
    let (code, peak, err) = peak_rss(&["check", "plan.yaml"], large.root());
    assert_eq!(code, 0, "{err}");
    // The old loader's peak held from load to exit, so the polls could not miss it.
    assert!(peak > 0 && peak < PEAK_BOUND_KIB, "check of a 64 MB file peaked at {peak} KiB");

    // The last row cut short: found at its line, past every window before it.
    let mut w = std::fs::OpenOptions::new().append(true).open(large.root().join("rows.csv")).unwrap();
    w.write_all(b"short\n").unwrap();
    drop(w);
    let (code, _, err) = peak_rss(&["check", "plan.yaml"], large.root());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rows.csv:1000002") && err.contains("expected 2"), "{err}");
}

/// #31: `__StringFromFile` and `__CSVRead` read a large file a line at a time, shared by the
/// users in turn, not held whole; their lines arrive in file order.
#[test]
fn issue31_file_functions_read_a_large_file_a_line_at_a_time() {
    let server = TestServer::builder().route("/rec", Route::ok().record()).start();
    let dir = TempRun::new("csv-functions");
    write_rows(&dir.root().join("rows.csv"), ROWS);
    dir.write(
        "plan.yaml",
        format!(
            r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 1, iterations: 300}}
    flow:
      - request: {{url: /rec, query: {{line: "${{__StringFromFile(rows.csv)}}", col: "${{__CSVRead(rows.csv,0)}}${{__CSVRead(rows.csv,next)}}"}}}}
"#,
            addr = server.addr()
        ),
    );
    let (code, peak, err) = peak_rss(&["run", "plan.yaml", "-q", "--out", "run"], dir.root());
    assert_eq!(code, 0, "{err}");
    let got = server.recorded("/rec");
    assert_eq!(got.len(), 300);
    for (i, r) in got.iter().enumerate() {
        // Line 1 is the header, read as a line like any other.
        let (line, col) = match i {
            0 => ("v,w".to_string(), "v".to_string()),
            _ => (format!("r{i},\"pad, {i:0>48}\""), format!("r{i}")),
        };
        assert_eq!((r.query("line").unwrap_or_default(), r.query("col").unwrap_or_default()), (line, col), "row {i}");
    }
    assert!(peak > 0 && peak < PEAK_BOUND_KIB, "peak {peak} KiB");
}
