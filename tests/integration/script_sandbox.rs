//! The script sandbox seen from outside (issue 14): what a script's `log` and `OUT` write never
//! holds a secret variable's value; a script writes the files it names under the plan's
//! directory (the write-back idiom) but not an absolute path it names elsewhere. Issue 31: no
//! file is read or written through a symbolic link in the plan's directory that leads out of
//! it, by a script, a file function or a data set; reflection and threads are refused by `check`.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_scripts::script;
use crate::jmx_scripts_mirror::{esc, headers};
use crate::util::jmx::run_with_jtl;
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use std::os::unix::fs::symlink;
use std::path::Path;

const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">${__P(port)}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

fn pre_processor(text: &str) -> String {
    format!(
        r#"<JSR223PreProcessor guiclass="TestBeanGUI" testclass="JSR223PreProcessor" testname="pre" enabled="true">
          <stringProp name="scriptLanguage">groovy</stringProp>
          <stringProp name="script">{}</stringProp>
        </JSR223PreProcessor><hashTree/>"#,
        esc(text)
    )
}

const HEADERS: &str = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="h" enabled="true">
          <collectionProp name="HeaderManager.headers">
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Outside</stringProp><stringProp name="Header.value">${outside}</stringProp></elementProp>
            <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Inside</stringProp><stringProp name="Header.value">${inside}</stringProp></elementProp>
          </collectionProp></HeaderManager><hashTree/>"#;

/// `log.info(vars.get("token"))` and `OUT.println(...)` of a secret-named variable write `***` to
/// scripts.log; a write to an absolute path outside the plan's directory that the script names
/// is refused (the file is not created), a write to `out.txt` beside the plan is done; the
/// witness receives what the script decided, once per sample.
#[test]
fn scripts_keep_secrets_out_of_the_log_and_write_only_beside_the_plan() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-sandbox");
    let elsewhere = TempRun::new("script-sandbox-elsewhere");
    let outside = elsewhere.root().join("evil.txt");
    let script = format!(
        r#"vars.put("token", "tok-SECRETVALUE")
log.info("token is " + vars.get("token"))
OUT.println(vars.get("token"))
try {{ new File("{}") << "x"; vars.put("outside", "written") }} catch (SecurityException e) {{ vars.put("outside", "refused") }}
try {{ new File("out.txt") << "ok\n"; vars.put("inside", "written") }} catch (SecurityException e) {{ vars.put("inside", "refused") }}"#,
        outside.display()
    );
    let children = [HEADERS.to_string(), pre_processor(&script)].concat();
    let body = [DEFAULTS.to_string(), sampler("req", "GET", "/r", "", false, &children)].concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "2", &body));
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "-J", &format!("port={}", server.addr().port()), "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let got = server.recorded("/r");
    assert_eq!(uint(&run.label("req"), "samples"), got.len() as u64);
    assert_eq!(got.len(), 2);
    for r in &got {
        assert_eq!(r.header("x-outside"), Some("refused"));
        assert_eq!(r.header("x-inside"), Some("written"));
    }
    assert!(!outside.exists(), "a script wrote {}", outside.display());
    assert_eq!(std::fs::read_to_string(run.root().join("out.txt")).unwrap(), "ok\nok\n");
    let log = std::fs::read_to_string(run.path().join("scripts.log")).unwrap();
    assert!(!log.contains("tok-SECRETVALUE"), "{log}");
    assert!(log.contains("token is ***"), "{log}");
}

/// A plan directory with links out of it (`out.csv` to a file elsewhere, `linkdir` to the
/// directory elsewhere) and one that stays inside (`inner.txt`); returns the outside file.
fn plant_links(plan_dir: &Path, elsewhere: &Path) -> std::path::PathBuf {
    let victim = elsewhere.join("victim.csv");
    std::fs::write(&victim, "SECRET-OUTSIDE,1\n").unwrap();
    std::fs::write(plan_dir.join("real.txt"), "inside-text").unwrap();
    symlink(&victim, plan_dir.join("out.csv")).unwrap();
    symlink(elsewhere, plan_dir.join("linkdir")).unwrap();
    symlink(plan_dir.join("real.txt"), plan_dir.join("inner.txt")).unwrap();
    victim
}

/// `new File("out.csv") << "x"` with `out.csv` a link to a file outside the plan's directory:
/// the sample fails with a SecurityException and the outside file is untouched; the same for a
/// new file under a linked directory and for reading through the link; a link that stays
/// inside is written through. Each user's request after the scripts reaches the witness.
#[test]
fn issue31_a_script_neither_writes_nor_reads_through_a_link_out_of_the_plans_directory() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-sandbox-links");
    let elsewhere = TempRun::new("script-sandbox-links-outside");
    let victim = plant_links(run.root(), elsewhere.root());
    let body = [
        DEFAULTS.to_string(),
        script("JSR223Sampler", "write", "groovy", "new File(\"out.csv\") << \"x\"", ""),
        script("JSR223Sampler", "truncate", "groovy", "new FileWriter(\"out.csv\").write(\"x\")", ""),
        script("JSR223Sampler", "newfile", "groovy", "new File(\"linkdir/new.csv\") << \"x\"", ""),
        script("JSR223Sampler", "read", "groovy", "return new File(\"out.csv\").text", ""),
        script("JSR223Sampler", "inside", "groovy", "new File(\"inner.txt\") << \"+more\"", ""),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", jmx_plan(2, "1", &body));
    let (cmd, jtl) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.run().assert_exit(0);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "SECRET-OUTSIDE,1\n", "the outside file was written");
    assert!(!elsewhere.root().join("new.csv").exists(), "a file was made under the linked directory");
    assert_eq!(std::fs::read_to_string(run.root().join("real.txt")).unwrap(), "inside-text+more+more");
    for (label, errors) in [("write", 2), ("truncate", 2), ("newfile", 2), ("read", 2), ("inside", 0)] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, errors), "{label}: {row:#}");
    }
    let text = std::fs::read_to_string(&jtl).unwrap();
    for label in ["write", "truncate", "newfile", "read"] {
        let refused = text
            .lines()
            .filter(|l| l.contains(&format!(",{label},")) && l.contains("java.lang.SecurityException"))
            .count();
        assert_eq!(refused, 2, "{label}: {text}");
    }
    assert!(!text.contains("SECRET-OUTSIDE"), "{text}");
    assert_eq!(uint(&run.label("after"), "samples"), server.recorded("/after").len() as u64);
    assert_eq!(server.recorded("/after").len(), 2);
}

/// `__FileToString`, `__StringFromFile`, `__CSVRead` and a CSV Data Set naming a link that
/// leads out of the plan's directory: `check` refuses the plan naming the element and the file,
/// and `run` sends nothing. A name made at run time that leads out reads as `**ERR**`; a link
/// that stays inside is read.
#[test]
fn issue31_file_functions_and_data_sets_do_not_read_through_a_link_out_of_the_plans_directory() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    for (case, header, data_set) in [
        ("file-to-string", "${__FileToString(out.csv)}", false),
        ("file-to-string-dir", "${__FileToString(linkdir/victim.csv)}", false),
        ("string-from-file", "${__StringFromFile(out.csv)}", false),
        ("csv-read", "${__CSVRead(out.csv,0)}", false),
        ("data-set", "${v}", true),
    ] {
        let run = TempRun::new(&format!("sandbox-fn-{case}"));
        let elsewhere = TempRun::new(&format!("sandbox-fn-{case}-outside"));
        plant_links(run.root(), elsewhere.root());
        let csv = r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="users" enabled="true">
          <stringProp name="filename">out.csv</stringProp><stringProp name="variableNames">v,n</stringProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#;
        let children = headers(&[("X-Read", header)]);
        let body = [
            DEFAULTS.to_string(),
            if data_set { csv.to_string() } else { String::new() },
            sampler("r", "GET", "/r", "", false, &children),
        ]
        .concat();
        let plan = run.write("plan.jmx", jmx_plan(1, "1", &body));
        let out = Stampede::new().arg("check").arg(&plan).run();
        let text = format!("{}{}", out.stdout_str(), out.stderr_str());
        assert_ne!(out.status.code(), Some(0), "{case}: {text}");
        assert!(text.contains("plan.jmx"), "{case}: {text}");
        assert!(text.contains("outside the plan's directory"), "{case}: {text}");
        assert!(text.contains(if data_set { "users" } else { "\"h\"" }), "{case}: the element: {text}");
        let out = Stampede::new()
            .arg("run")
            .arg(&plan)
            .args(["-q", "-J", &format!("port={}", server.addr().port()), "--out"])
            .arg(run.path())
            .run();
        assert_ne!(out.status.code(), Some(0), "{case}: run");
    }
    // A file to upload, as the body or as a part.
    for (case, param) in [("upload-body", ""), ("upload-part", "f")] {
        let run = TempRun::new(&format!("sandbox-fn-{case}"));
        let elsewhere = TempRun::new(&format!("sandbox-fn-{case}-outside"));
        plant_links(run.root(), elsewhere.root());
        let files = format!(
            r#"<elementProp name="HTTPsampler.Files" elementType="HTTPFileArgs"><collectionProp name="HTTPFileArgs.files">
            <elementProp name="out.csv" elementType="HTTPFileArg"><stringProp name="File.path">out.csv</stringProp>
            <stringProp name="File.paramname">{param}</stringProp><stringProp name="File.mimetype">text/csv</stringProp></elementProp>
            </collectionProp></elementProp><stringProp name="HTTPSampler.path">"#
        );
        let upload =
            sampler("up", "POST", "/r", "", false, "").replacen("<stringProp name=\"HTTPSampler.path\">", &files, 1);
        assert!(upload.contains("HTTPFileArgs"), "{upload}");
        let plan = run.write("plan.jmx", jmx_plan(1, "1", &[DEFAULTS, &upload].concat()));
        let out = Stampede::new()
            .arg("run")
            .arg(&plan)
            .args(["-q", "-J", &format!("port={}", server.addr().port()), "--out"])
            .arg(run.path())
            .run();
        let text = format!("{}{}", out.stdout_str(), out.stderr_str());
        assert_ne!(out.status.code(), Some(0), "{case}: {text}");
        assert!(text.contains("\"up\"") && text.contains("outside the plan's directory"), "{case}: {text}");
    }
    assert_eq!(server.requests(), 0, "a refused plan sends nothing");

    // Names made at run time (by a script) and a link that stays inside.
    let run = TempRun::new("sandbox-fn-runtime");
    let elsewhere = TempRun::new("sandbox-fn-runtime-outside");
    plant_links(run.root(), elsewhere.root());
    let pre = script(
        "JSR223PreProcessor",
        "names",
        "groovy",
        "vars.put(\"link\", \"out.csv\"); vars.put(\"viadir\", \"linkdir/victim.csv\"); vars.put(\"inner\", \"inner.txt\")",
        "",
    );
    let children = [
        headers(&[
            ("X-Link", "${__FileToString(${link})}"),
            ("X-Dir", "${__FileToString(${viadir})}"),
            ("X-Inner", "${__FileToString(${inner})}"),
            ("X-Const", "${__FileToString(inner.txt)}"),
        ]),
        pre,
    ]
    .concat();
    let body = [DEFAULTS.to_string(), sampler("r", "GET", "/r", "", false, &children)].concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "2", &body));
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["-q", "-J", &format!("port={}", server.addr().port()), "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let got = server.recorded("/r");
    assert_eq!(got.len(), 2);
    assert_eq!(uint(&run.label("r"), "samples"), got.len() as u64);
    for r in &got {
        assert_eq!(r.header("x-link"), Some("**ERR**"));
        assert_eq!(r.header("x-dir"), Some("**ERR**"));
        assert_eq!(r.header("x-inner"), Some("inside-text"));
        assert_eq!(r.header("x-const"), Some("inside-text"));
    }
}

/// Reflection and threads pass no `check`: each is named with its element and the line and
/// column inside the script; `getClass().getName()` still loads.
#[test]
fn issue31_check_refuses_reflection_and_threads_with_their_place() {
    for (i, (src, want)) in [
        (
            "def m = 'a'.getClass().getMethod('toString')",
            "`getMethod` is not available in stampede's scripts: reflection is not allowed",
        ),
        (
            "String.metaClass.hi = { -> 1 }",
            "`metaClass` is not available in stampede's scripts: reflection is not allowed",
        ),
        (
            "log.info('x')\nClass.forName('java.lang.Runtime')",
            "`java.lang.Class.forName` is not available in stampede's scripts: reflection is not allowed",
        ),
        (
            "def t = new Thread({ -> 1 })",
            "`new Thread(...)` is not available in stampede's scripts: threads are not allowed",
        ),
        ("Thread.start { 1 }", "threads are not allowed"),
        ("java.util.concurrent.Executors.newFixedThreadPool(2)", "threads are not allowed"),
        ("new GroovyShell().evaluate('1')", "reflection is not allowed"),
    ]
    .into_iter()
    .enumerate()
    {
        let run = TempRun::new(&format!("sandbox-reflect-{i}"));
        let post = script("JSR223PostProcessor", "sneaky", "groovy", src, "");
        let body = [DEFAULTS.to_string(), sampler("s", "GET", "/s", "", false, &post)].concat();
        let plan = run.write("plan.jmx", jmx_plan(1, "1", &body));
        let out = Stampede::new().arg("check").arg(&plan).run();
        let text = format!("{}{}", out.stdout_str(), out.stderr_str());
        assert_ne!(out.status.code(), Some(0), "{src}: {text}");
        assert!(text.contains("plan.jmx") && text.contains("\"sneaky\""), "{src}: {text}");
        assert!(text.contains(want), "{src}: {text}");
        assert!(text.contains("line ") && text.contains(", column "), "{src}: {text}");
    }
    let run = TempRun::new("sandbox-reflect-ok");
    let post = script(
        "JSR223PostProcessor",
        "fine",
        "groovy",
        "log.info(prev.getClass().getName() + sampler.getMethod())",
        "",
    );
    let body = [DEFAULTS.to_string(), sampler("s", "GET", "/s", "", false, &post)].concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let out = Stampede::new().arg("check").arg(&plan).run();
    assert_eq!(out.status.code(), Some(0), "{}{}", out.stdout_str(), out.stderr_str());
}

/// A YAML plan's `body_file` and `data` file naming a link out of the plan's directory: the
/// plan is refused at load naming the field and where the file leads, and nothing is sent; the
/// same files through a link that stays inside are sent, counted against the witness.
#[test]
fn issue31_a_yaml_plans_files_do_not_lead_out_of_its_directory() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let url = format!("http://127.0.0.1:{}/y", server.addr().port());
    for (case, request, data) in [
        ("body", "body_file: out.csv", ""),
        ("dir", "body_file: linkdir/victim.csv", ""),
        ("data", "body: '${v}'", "    data: [{file: out.csv, names: [v, n]}]\n"),
    ] {
        let run = TempRun::new(&format!("sandbox-yaml-{case}"));
        let elsewhere = TempRun::new(&format!("sandbox-yaml-{case}-outside"));
        plant_links(run.root(), elsewhere.root());
        let plan = run.write(
            "plan.yaml",
            format!("scenarios:\n  - workload: {{users: 1, iterations: 1}}\n{data}    flow: [{{request: {{url: '{url}', method: POST, {request}}}}}]\n"),
        );
        let out = Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run();
        let err = out.stderr_str();
        assert_ne!(out.status.code(), Some(0), "{case}: {err}");
        assert!(err.contains("plan.yaml:") && err.contains("outside the plan's directory"), "{case}: {err}");
        assert!(err.contains("victim.csv"), "{case}: where it leads: {err}");
    }
    assert_eq!(server.requests(), 0, "a refused plan sends nothing");
    let run = TempRun::new("sandbox-yaml-inside");
    let elsewhere = TempRun::new("sandbox-yaml-inside-outside");
    plant_links(run.root(), elsewhere.root());
    let plan = run.write(
        "plan.yaml",
        format!("scenarios:\n  - workload: {{users: 1, iterations: 2}}\n    flow: [{{request: {{url: '{url}', method: POST, body_file: inner.txt}}}}]\n"),
    );
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let got = server.recorded("/y");
    assert_eq!(got.len(), 2);
    assert_eq!(uint(&run.total(), "samples"), got.len() as u64);
    assert!(got.iter().all(|r| r.body == b"inside-text"), "the link inside is followed");
}

/// A script line that asks for gigabytes (issue 31: `nCopies(2e9, "x").join()` aborted the
/// process, exit 134, the run directory left `running`) fails its own sample with Java's
/// `OutOfMemoryError`, as in JMeter; the users go on, every HTTP sample is counted as the
/// witness served it, and the run ends normally with its summary.
#[test]
fn issue31_a_script_asking_for_gigabytes_fails_its_sample_not_the_process() {
    use crate::jmx_scripts::script;
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-oom");
    let body = [
        DEFAULTS.to_string(),
        sampler("before", "GET", "/before", "", false, ""),
        script("JSR223Sampler", "copies", "groovy", r#"Collections.nCopies(2000000000, "x").join()"#, ""),
        script("JSR223Sampler", "times", "groovy", r#""x" * 2000000000"#, ""),
        script("JSR223Sampler", "doubling", "groovy", r#"def s = "x"; while (true) { s += s }"#, ""),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", jmx_plan(2, "3", &body));
    let (cmd, jtl) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.timeout(std::time::Duration::from_secs(120)).run().assert_exit(0);
    for (label, path) in [("before", "/before"), ("after", "/after")] {
        let served = server.recorded(path).len() as u64;
        assert_eq!(served, 6, "{path}");
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (served, 0), "{label}: {row:#}");
    }
    for label in ["copies", "times", "doubling"] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 6), "{label}: {row:#}");
    }
    let jtl = std::fs::read_to_string(&jtl).unwrap();
    let failed: Vec<&str> = jtl.lines().filter(|l| l.contains(",copies,") || l.contains(",doubling,")).collect();
    assert_eq!(failed.len(), 12, "{jtl}");
    for line in failed {
        assert!(line.contains("java.lang.OutOfMemoryError: Java heap space"), "{line}");
    }
}

/// A script that never ends (`while (true) {}`, or one that catches everything around it) is
/// interrupted when the run's duration is over (issue 31: it ignored the stop, Ctrl-C too):
/// the run ends within seconds of its duration with its summary, every HTTP sample counted.
#[test]
fn issue31_a_runaway_script_is_interrupted_when_the_run_stops() {
    use crate::jmx_scripts::script;
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("script-runaway");
    let spin = "while (true) { try { while (true) {} } catch (Throwable t) {} }";
    let body = [
        DEFAULTS.to_string(),
        sampler("req", "GET", "/r", "", false, ""),
        script("JSR223Sampler", "spin", "groovy", spin, ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "-1", &body));
    let started = std::time::Instant::now();
    Stampede::new()
        .arg("run")
        .arg(&plan)
        .args(["--duration", "2s", "-q", "-J", &format!("port={}", server.addr().port()), "--out"])
        .arg(run.path())
        .timeout(std::time::Duration::from_secs(120))
        .run()
        .assert_exit(0);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(10), "the run took {took:?}");
    assert_eq!(uint(&run.label("req"), "samples"), server.recorded("/r").len() as u64);
    assert_eq!(server.recorded("/r").len(), 1);
    assert!(run.path().join("summary.json").exists());
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo {}", p.display());
}

/// A FIFO where a data file is named, or read by a script, is refused at once as "not a regular
/// file": opening one waits for a writer for ever, which hung `check` and the run.
#[test]
fn issue31_a_fifo_for_a_data_file_or_a_scripts_file_is_refused_not_waited_on() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("sandbox-fifo-csv");
    mkfifo(&run.root().join("users.csv"));
    let csv = r#"<CSVDataSet guiclass="TestBeanGUI" testclass="CSVDataSet" testname="users" enabled="true">
          <stringProp name="filename">users.csv</stringProp><stringProp name="variableNames">v,n</stringProp>
          <boolProp name="recycle">true</boolProp><boolProp name="stopThread">false</boolProp>
          <stringProp name="shareMode">shareMode.all</stringProp>
        </CSVDataSet><hashTree/>"#;
    let body = [DEFAULTS, csv, &sampler("r", "GET", "/r", "", false, "")].concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let started = std::time::Instant::now();
    let out = Stampede::new().arg("check").arg(&plan).timeout(std::time::Duration::from_secs(20)).run();
    let took = started.elapsed();
    let text = format!("{}{}", out.stdout_str(), out.stderr_str());
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("users.csv") && text.contains("not a regular file"), "{text}");
    assert!(took < std::time::Duration::from_secs(5), "check took {took:?}");

    let run = TempRun::new("sandbox-fifo-script");
    mkfifo(&run.root().join("fifo"));
    let body = [
        DEFAULTS.to_string(),
        script("JSR223Sampler", "read", "groovy", "return new File(\"fifo\").text", ""),
        sampler("after", "GET", "/after", "", false, ""),
    ]
    .concat();
    let plan = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let (cmd, jtl) = run_with_jtl(&run, &plan, Some(server.addr().port()));
    cmd.timeout(std::time::Duration::from_secs(20)).run().assert_exit(0);
    let row = run.label("read");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (1, 1), "{row:#}");
    let text = std::fs::read_to_string(&jtl).unwrap();
    assert!(text.contains("not a regular file"), "{text}");
    assert_eq!(server.recorded("/after").len(), 1);
    assert_eq!(uint(&run.label("after"), "samples"), 1);
}
