//! What a run on agents ships (#33): a plan in `plans/` reading `../data/ids.csv` (as written,
//! through `-J`, `--set`, or absolute) on 3 agents with `--data split`, each row served once;
//! `--ship DIR` for a hidden folder read at run time; files that cannot be sent refused, each
//! named, nothing sent.

use crate::util::jmx::{element, esc, http, http_defaults, raw_post, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Running, Stampede, TempRun};
use std::path::PathBuf;

const ROWS: usize = 12;

/// Three agents on loopback, with the token `t`; their addresses joined, and the token file.
fn agents(run: &TempRun) -> (Vec<Running>, String, PathBuf) {
    let token = run.write("token", "t\n");
    let started: Vec<(Running, String)> = (0..3).map(|i| start_agent(run, &format!("a{i}"), &token, &[])).collect();
    let addrs = started.iter().map(|(_, a)| a.as_str()).collect::<Vec<_>>().join(",");
    (started.into_iter().map(|(r, _)| r).collect(), addrs, token)
}

/// `data/ids.csv` beside `plans/` in the run's root: ids `n1`..`n12`, no header.
fn data(run: &TempRun) {
    let dir = run.root().join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let rows: String = (1..=ROWS).map(|i| format!("n{i}\n")).collect();
    std::fs::write(dir.join("ids.csv"), rows).unwrap();
}

/// `plans/plan.jmx`: 4 users (at most 100 iterations each) take the rows of a CSV Data Set of
/// `file` into `id`, each user stopping at the end of the file, and send `sampler`.
fn plan(run: &TempRun, file: &str, sampler: &str) -> PathBuf {
    let csv = element(
        "CSVDataSet",
        "ids",
        &[
            ("filename", &esc(file)),
            ("variableNames", "id"),
            ("delimiter", ","),
            ("recycle", "false"),
            ("stopThread", "true"),
            ("shareMode", "shareMode.all"),
        ],
        "",
    );
    let group = thread_group("ThreadGroup", "users", "4", "100", "", &[csv, sampler.to_string()].concat());
    let dir = run.root().join("plans");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.jmx");
    std::fs::write(&path, test_plan("ship", "", &group)).unwrap();
    path
}

fn get(server: &TestServer) -> String {
    http("get", "127.0.0.1", &server.addr().port().to_string(), "/id/${id}", "GET", "")
}

/// `run PLAN -q --data split --agents ADDRS --token-file T --out OUT EXTRA...`, to its end.
fn run_on_agents(
    run: &TempRun,
    out: &str,
    plan: &PathBuf,
    addrs: &str,
    token: &PathBuf,
    extra: &[&str],
) -> std::process::Output {
    Stampede::new()
        .arg("run")
        .arg(plan)
        .args(["-q", "--data", "split", "--agents", addrs, "--token-file"])
        .arg(token)
        .arg("--out")
        .arg(run.root().join(out))
        .args(extra)
        .timeout(std::time::Duration::from_secs(60))
        .run()
}

/// The paths served, sorted, and the ids of the file, sorted: equal when each row was served once.
fn served_once(server: &TestServer, prefix: &str) {
    let mut paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    paths.sort();
    let mut want: Vec<String> = (1..=ROWS).map(|i| format!("{prefix}n{i}")).collect();
    want.sort();
    assert_eq!(paths, want);
}

fn samples(run: &TempRun, out: &str) -> u64 {
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.root().join(out).join("summary.json")).unwrap()).unwrap();
    uint(&crate::util::stampede::total(&s), "samples")
}

/// Runs a plan whose CSV Data Set names `file` on the agents with `extra` arguments, against a
/// fresh counting server: each row is served once, and the run's samples are what it served.
fn each_row_once(run: &TempRun, out: &str, addrs: &str, token: &PathBuf, file: &str, extra: &[&str]) {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let plan = plan(run, file, &get(&server));
    run_on_agents(run, out, &plan, addrs, token, extra).assert_exit(0);
    served_once(&server, "/id/");
    assert_eq!(samples(run, out), server.requests());
}

#[test]
fn a_plan_reading_dotdot_data_runs_on_three_agents_each_row_served_once() {
    let run = TempRun::new("ship-dotdot");
    data(&run);
    let (_agents, addrs, token) = agents(&run);
    each_row_once(&run, "out", &addrs, &token, "../data/ids.csv", &[]);
}

#[test]
fn a_data_path_given_by_property_or_set_is_shipped_as_resolved() {
    let run = TempRun::new("ship-property");
    data(&run);
    let (_agents, addrs, token) = agents(&run);
    // `-J DATADIR=../data`: the name is known once the plan has loaded with its properties.
    let by_property = "${__P(DATADIR,nowhere)}/ids.csv";
    each_row_once(&run, "by-property", &addrs, &token, by_property, &["-J", "DATADIR=../data"]);
    // `--set DATADIR=../data`: the text of the plan, replaced before it is read.
    each_row_once(&run, "by-set", &addrs, &token, "DATADIR/ids.csv", &["--set", "DATADIR=../data"]);
    // An absolute path: the agents read the copy sent, at the same place under the root.
    let absolute = format!("DATADIR={}", run.root().join("data").display());
    each_row_once(&run, "absolute", &addrs, &token, by_property, &["-J", &absolute]);
}

#[test]
fn a_file_named_at_run_time_reaches_the_agents_with_ship() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("ship-runtime");
    data(&run);
    let (_agents, addrs, token) = agents(&run);
    // A hidden folder of the plan's directory, which is sent only when named.
    let bodies = run.root().join("plans/.bodies");
    std::fs::create_dir_all(&bodies).unwrap();
    for i in 1..=ROWS {
        std::fs::write(bodies.join(format!("n{i}.txt")), format!("body of n{i}")).unwrap();
    }
    let post = |server: &TestServer| {
        let to = http_defaults("127.0.0.1", &server.addr().port().to_string());
        [to, raw_post("/post/${id}", "${__FileToString(.bodies/${id}.txt)}")].concat()
    };
    let plan = plan(&run, "../data/ids.csv", &post(&server));
    let ship = bodies.display().to_string();
    run_on_agents(&run, "shipped", &plan, &addrs, &token, &["--ship", &ship]).assert_exit(0);
    served_once(&server, "/post/");
    assert_eq!(samples(&run, "shipped"), server.requests());
    for r in server.recorded_all() {
        let id = r.path().trim_start_matches("/post/");
        assert_eq!(String::from_utf8_lossy(&r.body), format!("body of {id}"));
    }
    // Without it the agents have no such file.
    let server_without = TestServer::builder().default_route(Route::ok()).record_all().start();
    let plan = self::plan(&run, "../data/ids.csv", &post(&server_without));
    run_on_agents(&run, "not-shipped", &plan, &addrs, &token, &[]).assert_exit(0);
    served_once(&server_without, "/post/");
    assert_eq!(samples(&run, "not-shipped"), server_without.requests());
    assert!(server_without.recorded_all().iter().all(|r| r.body == b"**ERR**"));
}

#[test]
fn files_that_cannot_be_sent_are_refused_each_named_before_anything_is_sent() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("ship-refused");
    data(&run);
    let (_agents, addrs, token) = agents(&run);
    // Read by the plan when it loads, and no file one can read: a FIFO.
    let fifo = run.root().join("data/pipe");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let post = raw_post("/post/${id}", "${__FileToString(../data/pipe)}");
    let plan = plan(&run, "../data/ids.csv", &post);
    // A folder holding a file over the cap (sparse: it takes no room).
    let big = run.root().join("big");
    std::fs::create_dir_all(&big).unwrap();
    std::fs::File::create(big.join("huge.bin")).unwrap().set_len(300 << 20).unwrap();
    let ship = big.display().to_string();
    let out = run_on_agents(&run, "out", &plan, &addrs, &token, &["--ship", &ship]);
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("data/pipe: cannot be read") && err.contains("not a regular file"), "{err}");
    assert!(err.contains("big/huge.bin: 300.0 MiB, over the 256.0 MiB"), "{err}");
    assert_eq!(server.requests(), 0);
    assert!(!run.root().join("out").exists(), "no run was claimed");
}
