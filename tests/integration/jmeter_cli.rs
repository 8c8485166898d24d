//! `stampede jmeter` (issue 32): JMeter 5.6.3's non-GUI command line run by the real binary
//! against the counting server: `-n -t -l` writes a JTL of exactly what was served with JMeter's
//! columns (appended to, unless `-f`), `-J`/`-p`/`-q`/`-G` reach `${__P()}`, `-e -o` writes the
//! report (a folder in use refused before any load unless `-f`), `-g` reports a JTL, unknown and
//! refused options are named (exit 2, nothing sent), a link named `jmeter` is the same command,
//! and `-R` runs on two agents whose merge and results file are what was served.

use crate::jmx::{jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{total, uint, OutputExt, Running, Stampede, TempRun};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// JMeter's default CSV columns (jmeter.properties' `jmeter.save.saveservice.*` defaults).
const JMETER_HEADER: &str = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect";

/// A plan whose thread count, loop count, port and path come from properties.
fn plan(run: &TempRun) -> PathBuf {
    let defaults = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.port">${__P(port,9)}</stringProp>
        </ConfigTestElement><hashTree/>"#;
    let get = sampler("get", "GET", "/p/${__P(a,none)}/${__P(b,none)}/${__P(c,none)}", "", false, "");
    let xml = jmx_plan(1, "${__P(loops,1)}", &format!("{defaults}{get}")).replace(
        "<stringProp name=\"ThreadGroup.num_threads\">1<",
        "<stringProp name=\"ThreadGroup.num_threads\">${__P(threads,1)}<",
    );
    let dir = run.root().join("plan");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.jmx");
    std::fs::write(&path, xml).unwrap();
    path
}

fn jmeter(run: &TempRun) -> Stampede {
    Stampede::new().arg("jmeter").current_dir(run.root())
}

/// The rows of a JTL file (its header left out), checking the header is JMeter's.
fn jtl_rows(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(JMETER_HEADER));
    let rows: Vec<String> = lines.map(String::from).collect();
    assert!(rows.iter().all(|r| r != JMETER_HEADER), "a second header in {}", path.display());
    rows
}

/// The one run directory stampede made under `runs/` of the working directory.
fn run_dirs(run: &TempRun) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(run.root().join("runs")).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    dirs.sort();
    dirs
}

fn summary_of(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn n_t_l_writes_a_jtl_of_what_was_served_appending_unless_f() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmeter-l");
    let plan = plan(&run);
    let port = format!("port={}", server.addr().port());
    let once = |extra: &[&str]| {
        jmeter(&run)
            .args(["-n", "-t"])
            .arg(&plan)
            .args(["-l", "results.jtl", "-J", &port, "-Jthreads=2", "--jmeterproperty=loops=5"])
            .args(extra)
            .run()
            .assert_exit(0)
            .stdout_str()
    };
    let said = once(&[]);
    assert_eq!(server.requests(), 10);
    // JMeter's summariser line, for the scripts that read it.
    let summary = said.lines().find(|l| l.starts_with("summary = ")).unwrap_or_else(|| panic!("{said}"));
    assert!(summary.starts_with("summary =     10 in 00:00:0"), "{summary}");
    assert!(summary.ends_with("Err:     0 (0.00%)"), "{summary}");
    let rows = jtl_rows(&run.root().join("results.jtl"));
    assert_eq!(rows.len() as u64, server.requests());
    assert!(rows.iter().all(|r| r.contains(",get,200,")), "{rows:?}");
    // The run directory is written as for `run`, and says the same.
    let dirs = run_dirs(&run);
    assert_eq!(dirs.len(), 1);
    assert_eq!(uint(&total(&summary_of(&dirs[0])), "samples"), 10);
    // Without -f JMeter appends to the results file (one header); -f deletes it first.
    once(&[]);
    assert_eq!(jtl_rows(&run.root().join("results.jtl")).len() as u64, server.requests());
    assert_eq!(server.requests(), 20);
    once(&["-f"]);
    assert_eq!(server.requests(), 30);
    assert_eq!(jtl_rows(&run.root().join("results.jtl")).len(), 10);
    // A run never overwrites another: three runs, three directories.
    assert_eq!(run_dirs(&run).len(), 3);
}

#[test]
fn properties_of_p_q_j_and_g_reach_the_p_function_in_jmeters_order() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("jmeter-props");
    let plan = plan(&run);
    let p = run.write("base.properties", format!("port={}\na=p\nb=p\nc=p\nloops=9\n", server.addr().port()));
    let q = run.write("more.properties", "b=q\nc=q\n");
    jmeter(&run)
        .arg("-nt")
        .arg(&plan)
        .arg("-p")
        .arg(&p)
        .arg("--addprop")
        .arg(&q)
        // `-J name value` is JMeter's too; `-Jloops=` removes the file's 9 (the default 1 holds).
        .args(["-J", "c", "j", "-Jloops=", "-Gthreads=2", "-Dsome.system=x", "-Ljmeter.util=DEBUG"])
        .run()
        .assert_exit(0);
    let paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    assert_eq!(paths, vec!["/p/p/q/j"; 2]);
}

#[test]
fn e_o_writes_the_report_and_a_folder_in_use_is_refused_before_any_load_unless_f() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmeter-report");
    let plan = plan(&run);
    let port = format!("-Jport={}", server.addr().port());
    let go = |extra: &[&str]| {
        jmeter(&run)
            .args(["-n", "-t"])
            .arg(&plan)
            .args([port.as_str(), "-Jloops=3", "-l", "r.jtl", "-e", "-o", "report"])
            .args(extra)
            .run()
    };
    go(&[]).assert_exit(0);
    assert_eq!(server.requests(), 3);
    let report = run.root().join("report");
    assert!(std::fs::read_to_string(report.join("index.html")).unwrap().contains("<html"));
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("statistics.json")).unwrap()).unwrap();
    assert_eq!(stats["Total"]["sampleCount"].as_u64(), Some(server.requests()));
    assert_eq!(stats["get"]["sampleCount"].as_u64(), Some(3));
    // The folder now holds a report: refused at the start, as JMeter does, nothing sent.
    let out = go(&[]);
    out.assert_exit(2);
    assert!(out.stderr_str().contains("as folder is not empty"), "{}", out.stderr_str());
    assert_eq!(server.requests(), 3);
    assert_eq!(run_dirs(&run).len(), 1, "a refused run leaves no run directory");
    std::fs::write(report.join("stale.txt"), "old").unwrap();
    go(&["-f"]).assert_exit(0);
    assert_eq!(server.requests(), 6);
    assert!(!report.join("stale.txt").exists(), "-f deletes the folder first");
    assert_eq!(jtl_rows(&run.root().join("r.jtl")).len(), 3, "-f deletes the results file first");
    // -e without -l is JMeter's usage error.
    let out = jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-e", "-o", "other"]).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("-e requires -l"), "{}", out.stderr_str());
    // -o is checked even without -e, as JMeter does.
    let out = jmeter(&run).args(["-n", "-t"]).arg(&plan).args(["-l", "x.jtl", "-o", "report"]).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("as folder is not empty"), "{}", out.stderr_str());
    // -g with -n is JMeter's "Incompatible options".
    let out = jmeter(&run).args(["-n", "-g", "r.jtl", "-o", "g2"]).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("incompatible options -n/--nongui and -g/--reportonly"), "{}", out.stderr_str());
    // -g: the report of a results file alone, counted from its rows.
    jmeter(&run).args(["-g", "r.jtl", "-o", "from-jtl"]).run().assert_exit(0);
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.root().join("from-jtl/statistics.json")).unwrap()).unwrap();
    assert_eq!(stats["Total"]["sampleCount"].as_u64(), Some(3));
    assert!(run.root().join("from-jtl/index.html").exists());
    assert_eq!(server.requests(), 6);
}

#[test]
fn unknown_and_refused_options_are_named_with_exit_2_and_nothing_sent() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmeter-refused");
    let plan = plan(&run);
    let port = format!("-Jport={}", server.addr().port());
    for (bad, says) in [
        (vec!["-Z"], "unknown option -Z"),
        (vec!["--no-such-thing"], "unknown option --no-such-thing"),
        (vec!["-H", "proxy.local", "-P", "3128"], "-H/--proxyHost is not available in stampede"),
        (vec!["-i", "log4j2.xml"], "-i/--jmeterlogconf is not available"),
        (vec!["-l", "a.jtl", "--logfile", "b.jtl"], "duplicate options for -l/--logfile"),
    ] {
        let out = jmeter(&run).args(["-n", "-t"]).arg(&plan).arg(&port).args(&bad).run();
        out.assert_exit(2);
        assert!(out.stderr_str().contains(says), "{bad:?}: {}", out.stderr_str());
    }
    assert_eq!(server.requests(), 0);
    assert!(run_dirs(&run).is_empty());
}

#[test]
fn a_link_named_jmeter_runs_jmeters_command_line_and_j_logs_to_a_file() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("jmeter-link");
    let plan = plan(&run);
    let bin = run.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("jmeter");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_stampede"), &link).unwrap();
    Stampede::with_program(&link)
        .current_dir(run.root())
        .args(["-n", "-t"])
        .arg(&plan)
        .args(["-Jloops=4", "-l", "out.jtl", "-j", "stampede.log"])
        .arg(format!("-Jport={}", server.addr().port()))
        .run()
        .assert_exit(0);
    assert_eq!(server.requests(), 4);
    assert_eq!(jtl_rows(&run.root().join("out.jtl")).len(), 4);
    // What stampede said on stderr is in the log too.
    let log = std::fs::read_to_string(run.root().join("stampede.log")).unwrap();
    assert!(log.contains("plan"), "{log}");
    let out = Stampede::with_program(&link).current_dir(run.root()).arg("-v").run();
    out.assert_exit(0);
    assert!(out.stdout_str().contains("JMeter 5.6.3's command line"), "{}", out.stdout_str());
}

/// An agent on a free loopback port with the token `t`; returns it and its address.
fn agent(run: &TempRun, name: &str, token: &Path) -> (Running, String) {
    crate::util::stampede::start_agent(run, name, token, &[])
}

#[test]
fn r_runs_on_two_agents_with_g_properties_and_the_merge_is_what_was_served() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("jmeter-agents");
    let plan = plan(&run);
    let token = run.write("token", "t\n");
    let agents: Vec<_> = (0..2).map(|i| agent(&run, &format!("a{i}"), &token)).collect();
    let addrs: Vec<&str> = agents.iter().map(|(_, a)| a.as_str()).collect();
    let out = jmeter(&run)
        .env("STAMPEDE_TOKEN_FILE", &token)
        .args(["-n", "-t"])
        .arg(&plan)
        .args(["-R", &addrs.join(","), "-X"])
        .arg(format!("-Gport={}", server.addr().port()))
        .args(["-Gthreads=4", "-Gloops=3", "-Ga=g", "-Jb=local", "-l", "results.jtl", "-e", "-o", "report"])
        .timeout(Duration::from_secs(90))
        .run();
    out.assert_exit(0);
    // -J stays on this machine, as in JMeter: said, and the agents read the default.
    assert!(out.stderr_str().contains("the agents get only -G ones (not given to them: b)"), "{}", out.stderr_str());
    let paths: Vec<String> = server.recorded_all().iter().map(|r| r.path().to_string()).collect();
    assert_eq!(paths, vec!["/p/g/none/none"; 12]);
    let dirs = run_dirs(&run);
    assert_eq!(dirs.len(), 1);
    let s = summary_of(&dirs[0]);
    assert_eq!(uint(&total(&s), "samples"), server.requests());
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dirs[0].join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["parts"].as_array().map(Vec::len), Some(2), "{meta:#}");
    // The agents send their samples back: the results file here holds every one, once.
    let rows = jtl_rows(&run.root().join("results.jtl"));
    assert_eq!(rows.len() as u64, server.requests());
    assert!(rows.iter().all(|r| r.contains(",get,200,")), "{rows:?}");
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.root().join("report/statistics.json")).unwrap()).unwrap();
    assert_eq!(stats["Total"]["sampleCount"].as_u64(), Some(server.requests()));
    // Without a token the agents cannot be spoken to: said, nothing sent.
    let out = jmeter(&run)
        .env_remove("STAMPEDE_TOKEN_FILE")
        .args(["-n", "-t"])
        .arg(&plan)
        .args(["-R", &addrs.join(",")])
        .run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("STAMPEDE_TOKEN_FILE"), "{}", out.stderr_str());
    assert_eq!(server.requests(), 12);
}
