//! Secrets: a run full of them, in every place a plan or a command line can put one, leaves
//! none in anything stampede writes or prints (run directories, JTL files, `run`, `check` and
//! `report` in every format), while the server receives every one of them unchanged.

use crate::util::server::{RecordedRequest, Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};
use std::path::Path;
use std::process::Output;

/// A distinctive secret, so finding it anywhere is meaningful.
fn secret(what: &str) -> String {
    format!("s3cr3t-{what}-5f0c2a91-7d4e-4b7a-9c1e-{}", std::process::id())
}

/// Every file under `dir` (recursively), as text.
pub(crate) fn files_under(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            out.push((path.display().to_string(), String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
}

fn outputs(what: &str, out: &Output) -> Vec<(String, String)> {
    vec![(format!("{what}: stdout"), out.stdout_str()), (format!("{what}: stderr"), out.stderr_str())]
}

/// `report` of `source` in every format, each output named.
fn reports(source: &Path) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    for format in ["md", "html", "json", "csv", "junit"] {
        let out = Stampede::new().args(["report", "--format", format]).arg(source).run();
        out.assert_success();
        seen.extend(outputs(&format!("report {} --format {format}", source.display()), &out));
    }
    seen
}

#[track_caller]
fn assert_none_leaked(secrets: &[String], seen: &[(String, String)]) {
    for (name, text) in seen {
        for s in secrets {
            assert!(!text.contains(s.as_str()), "the secret {s} leaked into {name}:\n{text}");
        }
    }
}

/// Whether the server received `value` somewhere in a request: target, a header, the body.
fn received(requests: &[RecordedRequest], value: &str) -> bool {
    requests.iter().any(|r| {
        r.target.contains(value)
            || r.headers.iter().any(|(_, v)| v.contains(value))
            || String::from_utf8_lossy(&r.body).contains(value)
    })
}

#[test]
fn a_run_full_of_secrets_leaves_none_in_anything_written_or_printed() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("secrets-everywhere");
    let s = |w: &str| secret(w);
    let (query_token, access_token, api_key, api_key2) = (s("query"), s("access"), s("apikey"), s("apikey2"));
    let (bearer, cookie, form_pw, json_pw) = (s("bearer"), s("cookie"), s("formpw"), s("jsonpw"));
    let (env, set, prop) = (s("env"), s("set"), s("prop"));
    let (quick_token, quick_pw, quick_bearer) = (s("quicktoken"), s("quickpw"), s("quickbearer"));
    let all = [
        &query_token,
        &access_token,
        &api_key,
        &api_key2,
        &bearer,
        &cookie,
        &form_pw,
        &json_pw,
        &env,
        &set,
        &prop,
        &quick_token,
        &quick_pw,
        &quick_bearer,
    ]
    .map(|s| s.to_string());

    let plan = run.write(
        "plan.yaml",
        format!(
            r#"defaults:
  base_url: {base}
  headers:
    Authorization: 'Bearer {bearer}'
    Cookie: 'sid={cookie}; theme=dark'
scenarios:
  - workload: {{users: 1, iterations: 2}}
    flow:
      - request: {{label: query, url: '/a?token={query_token}&page=1'}}
      - request: {{label: params, url: '/b?access_token={access_token}&api_key={api_key}&Api_Key={api_key2}'}}
      - request: {{label: form, url: /c, form: {{user: bob, password: '{form_pw}'}}}}
      - request: {{label: json, url: /d, json: {{user: bob, password: '{json_pw}'}}}}
      - request:
          label: env
          url: '/e?q=${{__env(STAMPEDE_TEST_SECRET)}}'
          headers: {{X-Trace: '${{__env(STAMPEDE_TEST_SECRET)}}'}}
          check: [{{body_matches: 'OK|${{__env(STAMPEDE_TEST_SECRET)}}'}}]
      - request: {{label: set, url: '/f?k=THE_TOKEN&p=${{__P(API_TOKEN)}}'}}
"#,
            base = server.url("")
        ),
    );
    let jtl = run.root().join("plan.jtl");
    let plan_args = |cmd: &str| {
        Stampede::new().env("STAMPEDE_TEST_SECRET", &env).arg(cmd).arg(&plan).args([
            "--set",
            &format!("THE_TOKEN={set}"),
            "-J",
            &format!("API_TOKEN={prop}"),
        ])
    };
    let check = plan_args("check").run();
    check.assert_success();
    let planned = plan_args("run").args(["-q", "--jtl"]).arg(&jtl).arg("--out").arg(run.path()).run();
    planned.assert_success();

    let quick_dir = run.root().join("quick");
    let quick_jtl = run.root().join("quick.jtl");
    let quick = Stampede::new()
        .args(["run", "--url", &server.url(&format!("/x?token={quick_token}&page=2"))])
        .args([
            "--body",
            &format!("user=bob&password={quick_pw}"),
            "-H",
            &format!("Authorization: Bearer {quick_bearer}"),
        ])
        .args(["-n", "2", "-q", "--jtl"])
        .arg(&quick_jtl)
        .arg("--out")
        .arg(&quick_dir)
        .run();
    quick.assert_success();

    // The traffic is unchanged: the server saw every secret, as given.
    let requests = server.recorded_all();
    assert_eq!(requests.len() as u64, server.requests());
    assert_eq!(server.requests(), 2 * 6 + 2, "every request reached the server");
    for s in &all {
        assert!(received(&requests, s), "the server never received {s}");
    }

    // Nothing written or printed holds one.
    let mut seen = Vec::new();
    files_under(run.path(), &mut seen);
    files_under(&quick_dir, &mut seen);
    for f in [&jtl, &quick_jtl] {
        seen.push((f.display().to_string(), std::fs::read_to_string(f).unwrap()));
    }
    seen.extend(outputs("check", &check));
    seen.extend(outputs("run (plan)", &planned));
    seen.extend(outputs("run (quick)", &quick));
    for source in [run.path(), &quick_dir, &jtl, &quick_jtl] {
        seen.extend(reports(source));
    }
    assert_none_leaked(&all, &seen);

    // ...and what was masked is still recognisable: the names stay, the values are `***`.
    let jtl_text = std::fs::read_to_string(&jtl).unwrap();
    for shown in ["/a?token=***&page=1", "access_token=***&api_key=***&Api_Key=***", "/e?q=***", "/f?k=***&p=***"] {
        assert!(jtl_text.contains(shown), "{shown} not in the JTL:\n{jtl_text}");
    }
    let quick_meta = std::fs::read_to_string(quick_dir.join("meta.json")).unwrap();
    for shown in ["token=***&page=2", "password=***", "Authorization: ***", "user=bob"] {
        assert!(quick_meta.contains(shown), "{shown} not in meta.json:\n{quick_meta}");
    }
    assert!(check.stdout_str().contains("/a?token=***&page=1"), "{}", check.stdout_str());
}

#[test]
fn a_jmeter_results_file_s_failure_messages_are_reported_without_their_secrets() {
    let (run, leaked) = (TempRun::new("secrets-jtl"), secret("jmeter"));
    let jtl = run.write(
        "jmeter.jtl",
        format!(
            "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n\
             1700000000000,5,/a,200,OK,t 1-1,text,false,Test failed: text expected to contain /access_token={leaked}/,89,162,1,1,http://h/a?token={leaked},5,0,0\n\
             1700000000010,5,/a,200,OK,t 1-1,text,true,,89,162,1,1,http://h/a?token={leaked},5,0,0\n"
        ),
    );
    let seen = reports(&jtl);
    assert_none_leaked(&[leaked], &seen);
    let md = &seen[0].1;
    assert!(md.contains("access_token=***"), "the message is still there, masked:\n{md}");
}

#[test]
fn a_load_error_does_not_echo_a_secret_set_on_the_command_line() {
    let (run, leaked) = (TempRun::new("secrets-error"), secret("set-error"));
    // `--set` puts the value into the plan's text; the plan is then wrong where it landed.
    let plan = run.write(
        "plan.yaml",
        "scenarios:\n  - workload: {users: 1, iterations: 1}\n    flow: [{request: {url: 'ftp://h/?k=THE_TOKEN'}}]\n",
    );
    let out = Stampede::new().arg("check").arg(&plan).args(["--set", &format!("THE_TOKEN={leaked}")]).run();
    out.assert_exit(2);
    assert_none_leaked(&[leaked], &outputs("check", &out));
    assert!(out.stderr_str().contains("k=***"), "{}", out.stderr_str());
}

/// Issue 31: credentials in a `user:password@` URL (of `--watch` and `--export`, the URLs that
/// send them) reach a target that echoes the request (`mock --mirror`, answering 500 so the
/// echo becomes a failure's reason): the password, `user:password` and its base64 are in no
/// file of the run directory, no report in any format, and neither stdout nor stderr.
#[test]
fn issue31_credentials_echoed_by_a_mirror_are_masked_in_every_output() {
    use base64::Engine as _;
    use std::time::Duration;
    let server = TestServer::builder().default_route(Route::ok()).start();
    let (mirror, addr) = crate::mock::start_mock(&["--mirror"]);
    let password = format!("secretpass{}", std::process::id());
    let pair = format!("user:{password}");
    let basic = base64::engine::general_purpose::STANDARD.encode(&pair);
    let forbidden = [password.clone(), pair.clone(), basic.clone()];
    let run = TempRun::new("echoed-credentials");
    let at = |path: &str| format!("http://{pair}@{addr}{path}");
    let out = Stampede::new()
        .args(["run", "--url", &server.url("/"), "--rate", "20", "--duration", "2s", "--out"])
        .arg(run.path())
        .args(["--watch", &format!("scrape:{}", at("/metrics?status=500"))])
        .args(["--watch", &format!("promql:up=up@{}", at("/?status=503"))])
        .args(["--watch", &format!("scrape:{}", at("/metrics"))])
        .args(["--export", &format!("prometheus-rw={}", at("/api/v1/write"))])
        .args(["--export", &format!("influxdb={}", at("/write?db=x"))])
        .run();
    out.assert_exit(0);
    let mut seen = outputs("run", &out);
    files_under(run.path(), &mut seen);
    for format in ["md", "html", "json", "csv", "junit"] {
        let out = Stampede::new().arg("report").arg(run.path()).args(["--format", format]).run();
        seen.extend(outputs(&format!("report --format {format}"), &out));
    }
    // The echo did reach the outputs (so the test sees what it guards), masked.
    let watch = std::fs::read_to_string(run.path().join("watch.jsonl")).unwrap();
    assert!(watch.contains("Authorization: Basic ***"), "{watch}");
    for (what, text) in &seen {
        for f in &forbidden {
            assert!(!text.contains(f.as_str()), "{what} holds `{f}`:\n{text}");
        }
    }
    assert_eq!(uint_total(run.path()), server.requests());
    mirror.interrupt();
    mirror.wait(Duration::from_secs(10));
}

fn uint_total(dir: &Path) -> u64 {
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    s["total"]["samples"].as_u64().unwrap()
}
