//! The plan's whole directory reaches the agents (a body named at run time arrives without
//! `--ship`), and an absolute name made at run time through `-J` reads the agent's copy (#33).

use crate::util::jmx::{element, esc, http_defaults, raw_post, test_plan, thread_group};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{start_agent, uint, OutputExt, Running, Stampede, TempRun};
use std::path::PathBuf;

const ROWS: usize = 8;

/// Two agents on loopback, with the token `t`; their addresses joined, and the token file.
fn agents(run: &TempRun) -> (Vec<Running>, String, PathBuf) {
    let token = run.write("token", "t\n");
    let started: Vec<(Running, String)> = (0..2).map(|i| start_agent(run, &format!("a{i}"), &token, &[])).collect();
    let addrs = started.iter().map(|(_, a)| a.as_str()).collect::<Vec<_>>().join(",");
    (started.into_iter().map(|(r, _)| r).collect(), addrs, token)
}

/// `plans/` with `ids.csv` (ids `n1`..`n8`), `bodies/nI.json` and `uploads/nI.bin` for each
/// id, a hidden file and a run directory; the plan's directory.
fn plans(run: &TempRun) -> PathBuf {
    let dir = run.root().join("plans");
    for sub in ["bodies", "uploads", "runs/old"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let rows: String = (1..=ROWS).map(|i| format!("n{i}\n")).collect();
    std::fs::write(dir.join("ids.csv"), rows).unwrap();
    for i in 1..=ROWS {
        std::fs::write(dir.join(format!("bodies/n{i}.json")), format!("{{\"id\":\"n{i}\"}}")).unwrap();
        std::fs::write(dir.join(format!("uploads/n{i}.bin")), format!("upload of n{i}")).unwrap();
    }
    std::fs::write(dir.join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(dir.join("runs/old/meta.json"), "{}").unwrap();
    dir
}

/// `plans/plan.jmx`: 2 users take the rows of `ids.csv` into `id` (each stopping at the end of
/// the file) and send `samplers`.
fn plan(dir: &std::path::Path, server: &TestServer, samplers: &str) -> PathBuf {
    let csv = element(
        "CSVDataSet",
        "ids",
        &[
            ("filename", "ids.csv"),
            ("variableNames", "id"),
            ("delimiter", ","),
            ("recycle", "false"),
            ("stopThread", "true"),
            ("shareMode", "shareMode.all"),
        ],
        "",
    );
    let to = http_defaults("127.0.0.1", &server.addr().port().to_string());
    let group = thread_group("ThreadGroup", "users", "2", "100", "", &[csv, samplers.to_string()].concat());
    let path = dir.join("plan.jmx");
    std::fs::write(&path, test_plan("ship-fix", "", &[to, group].concat())).unwrap();
    path
}

/// A multipart upload of `file` as the part `f`, to `path`.
fn upload(path: &str, file: &str) -> String {
    let file = esc(file);
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="upload" enabled="true">
          <elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="{file}" elementType="HTTPFileArg"><stringProp name="File.path">{file}</stringProp><stringProp name="File.paramname">f</stringProp><stringProp name="File.mimetype">text/plain</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp><stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    )
}

/// `run PLAN --data split --agents ADDRS --token-file T --out OUT EXTRA...`, to its end.
fn run_on_agents(run: &TempRun, plan: &PathBuf, addrs: &str, token: &PathBuf, extra: &[&str]) -> std::process::Output {
    Stampede::new()
        .arg("run")
        .arg(plan)
        .args(["--data", "split", "--agents", addrs, "--token-file"])
        .arg(token)
        .arg("--out")
        .arg(run.root().join("out"))
        .args(extra)
        .timeout(std::time::Duration::from_secs(60))
        .run()
}

fn samples(run: &TempRun) -> u64 {
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.root().join("out/summary.json")).unwrap()).unwrap();
    uint(&crate::util::stampede::total(&s), "samples")
}

/// The bodies received at `/PREFIX/nI`, by id: each id once, each with `want(id)` in it.
fn each_body_once(server: &TestServer, prefix: &str, want: impl Fn(&str) -> String) {
    let mut ids: Vec<String> = Vec::new();
    for r in server.recorded_all().iter().filter(|r| r.path().starts_with(prefix)) {
        let id = r.path().trim_start_matches(prefix).to_string();
        let body = String::from_utf8_lossy(&r.body);
        assert!(body.contains(&want(&id)), "{id}: {body}");
        ids.push(id);
    }
    ids.sort();
    let mut all: Vec<String> = (1..=ROWS).map(|i| format!("n{i}")).collect();
    all.sort();
    assert_eq!(ids, all);
}

#[test]
fn a_body_named_at_run_time_in_the_plans_directory_reaches_two_agents_without_ship() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("ship-fix-own");
    let dir = plans(&run);
    let (_agents, addrs, token) = agents(&run);
    let samplers =
        [raw_post("/body/${id}", "${__FileToString(bodies/${id}.json)}"), upload("/up/${id}", "uploads/${id}.bin")]
            .concat();
    let plan = plan(&dir, &server, &samplers);
    let out = run_on_agents(&run, &plan, &addrs, &token, &[]);
    out.assert_exit(0);
    // The plan, its CSV, 8 bodies and 8 uploads; not `.env`, nor the run directory `runs/old`.
    assert!(out.stderr_str().contains("sending 18 files"), "{}", out.stderr_str());
    each_body_once(&server, "/body/", |id| format!("{{\"id\":\"{id}\"}}"));
    each_body_once(&server, "/up/", |id| format!("upload of {id}"));
    assert_eq!(samples(&run), server.requests());
    assert_eq!(server.requests(), 2 * ROWS as u64);
}

#[test]
fn an_absolute_name_made_at_run_time_through_j_reads_the_agents_copy() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("ship-fix-abs");
    let dir = plans(&run);
    let (_agents, addrs, token) = agents(&run);
    let samplers = [
        raw_post("/body/${id}", "${__FileToString(${__P(dir)}/bodies/${id}.json)}"),
        upload("/up/${id}", "${__P(dir)}/uploads/${id}.bin"),
    ]
    .concat();
    let plan = plan(&dir, &server, &samplers);
    let j = format!("dir={}", dir.display());
    run_on_agents(&run, &plan, &addrs, &token, &["-J", &j]).assert_exit(0);
    each_body_once(&server, "/body/", |id| format!("{{\"id\":\"{id}\"}}"));
    each_body_once(&server, "/up/", |id| format!("upload of {id}"));
    assert_eq!(samples(&run), server.requests());
    assert_eq!(server.requests(), 2 * ROWS as u64);
}
