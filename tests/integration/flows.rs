//! User flows against a server that validates what arrives: a login that hands out a token and
//! a session cookie, protected calls that need both, CSV values in the promised order per
//! sharing mode, file and gzip bodies byte for byte, redirect chains and their sub-samples,
//! checks and extractors, flow control, and the write-back file.

use crate::util::server::{RecordedRequest, Reply, Route, TestServer};
use crate::util::stampede::{run_plan, uint, OutputExt, Stampede, TempRun};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Read;
use std::sync::{Arc, Mutex};

fn errors_by_kind(v: &Value) -> HashMap<String, u64> {
    v["errors_by_kind"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect())
        .unwrap_or_default()
}

/// Writes the plan and data files into a fresh run directory's parent and runs it (exit 0).
fn run_with_files(name: &str, yaml: &str, files: &[(&str, &[u8])]) -> TempRun {
    let run = TempRun::new(name);
    for (n, data) in files {
        run.write(n, data);
    }
    let plan = run.write("plan.yaml", yaml);
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    run
}

#[test]
fn login_flow_gives_exact_logins_and_accepted_calls() {
    let users = 4u64;
    let iterations = 5u64;
    let login = |r: &RecordedRequest| {
        let user = r.form("username").unwrap_or_default();
        if r.method != "POST" || r.form("password").as_deref() != Some(&format!("pw-{user}")) {
            return Reply::status(403);
        }
        Reply::ok()
            .header("Set-Cookie", format!("SID=sid-{user}; Path=/; HttpOnly"))
            .header("Content-Type", "application/json")
            .body(format!(r#"{{"result":{{"access_token":"tok-{user}"}}}}"#))
    };
    let protected = |r: &RecordedRequest| {
        let bearer = r.header("authorization").and_then(|a| a.strip_prefix("Bearer tok-")).map(str::to_string);
        let cookie = r.cookie("SID").and_then(|c| c.strip_prefix("sid-").map(str::to_string));
        match (bearer, cookie) {
            (Some(b), Some(c)) if b == c => Reply::ok().body(format!(r#"{{"ok":true,"user":"{b}"}}"#)),
            _ => Reply::status(401),
        }
    };
    let server = TestServer::builder()
        .route("/login", Route::handler(login))
        .route("/api/profile", Route::handler(protected))
        .route("/api/courses", Route::handler(protected))
        .start();
    let csv: String = std::iter::once("username,password\n".to_string())
        .chain((1..=users).map(|i| format!("learner{i},pw-learner{i}\n")))
        .collect();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
data: [{{file: users.csv}}]
scenarios:
  - workload: {{users: {users}, iterations: {iterations}}}
    flow:
      - once:
          - set: {{me: "${{username}}"}}
          - request:
              label: login
              method: POST
              url: /login
              form: {{username: "${{me}}", password: "${{password}}"}}
              extract: [{{json: $.result.access_token, into: token, required: true}}]
      - request:
          label: profile
          url: /api/profile
          headers: {{Authorization: "Bearer ${{token}}"}}
          check: [{{json: $.user, equals: "${{me}}"}}]
      - request: {{label: courses, url: /api/courses, headers: {{Authorization: "Bearer ${{token}}"}}}}
"#,
        addr = server.addr()
    );
    let run = run_with_files("login-flow", &plan, &[("users.csv", csv.as_bytes())]);
    assert_eq!(server.requests_to("/login"), users, "one login per user");
    assert_eq!(server.requests_to("/api/profile"), users * iterations);
    assert_eq!(server.requests_to("/api/courses"), users * iterations);
    assert_eq!(uint(&run.label("login"), "samples"), users);
    for l in ["profile", "courses"] {
        let v = run.label(l);
        assert_eq!(uint(&v, "samples"), users * iterations, "{l}");
        assert_eq!(uint(&v, "errors"), 0, "no 401 and no failed check: {v:#}");
    }
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(uint(&run.total(), "errors"), 0);
}

#[test]
fn a_protected_call_without_the_cookie_jar_is_refused() {
    // The same flow with cookies off: the server sees the token but no session cookie.
    let server = TestServer::builder()
        .route("/login", Route::handler(|_| Reply::ok().header("Set-Cookie", "SID=s1; Path=/").body(r#"{"t":"x"}"#)))
        .route("/api", Route::handler(|r| if r.cookie("SID").is_some() { Reply::ok() } else { Reply::status(401) }))
        .start();
    let plan = |cookies: bool| {
        format!(
            r#"
defaults: {{base_url: "http://{addr}", cookies: {cookies}}}
scenarios:
  - workload: {{users: 2, iterations: 3}}
    flow:
      - request: {{label: login, url: /login}}
      - request: {{label: api, url: /api}}
"#,
            addr = server.addr()
        )
    };
    let off = run_plan("no-cookies", &plan(false));
    assert_eq!(uint(&off.label("api"), "errors"), 6);
    assert_eq!(errors_by_kind(&off.label("api"))["http_401"], 6);
    let on = run_plan("cookies", &plan(true));
    assert_eq!(uint(&on.label("api"), "errors"), 0);
}

/// Runs a one-request plan whose data file and workload are given, recording `?v=` per user.
fn record_values(name: &str, data: &str, workload: &str, rows: &str) -> (TempRun, Vec<(String, String)>) {
    let server = TestServer::builder().route("/rec", Route::ok().record()).start();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
data: [{data}]
scenarios:
  - workload: {workload}
    flow:
      - request: {{url: /rec, query: {{v: "${{v}}", w: "${{w}}"}}, headers: {{X-User: "${{__threadNum}}"}}}}
"#,
        addr = server.addr()
    );
    let run = run_with_files(name, &plan, &[("rows.csv", rows.as_bytes())]);
    let got = server
        .recorded("/rec")
        .iter()
        .map(|r| (r.header("x-user").unwrap_or("").to_string(), r.query("v").unwrap_or_default()))
        .collect();
    (run, got)
}

fn rows(n: usize) -> String {
    std::iter::once("v,w\n".to_string()).chain((1..=n).map(|i| format!("r{i},\"x, {i}\"\n"))).collect()
}

#[test]
fn csv_shared_by_all_goes_round_in_order() {
    let (_run, got) = record_values("csv-all", "{file: rows.csv}", "{users: 1, iterations: 7}", &rows(3));
    let values: Vec<&str> = got.iter().map(|(_, v)| v.as_str()).collect();
    assert_eq!(values, ["r1", "r2", "r3", "r1", "r2", "r3", "r1"]);
}

#[test]
fn csv_shared_by_all_gives_each_row_to_one_user() {
    let (_run, got) = record_values("csv-all-users", "{file: rows.csv}", "{users: 3, iterations: 3}", &rows(9));
    let mut values: Vec<String> = got.into_iter().map(|(_, v)| v).collect();
    values.sort_by_key(|v| v[1..].parse::<u32>().unwrap());
    let want: Vec<String> = (1..=9).map(|i| format!("r{i}")).collect();
    assert_eq!(values, want, "every row exactly once");
}

#[test]
fn csv_per_user_gives_each_user_the_file_from_its_start() {
    let (_run, got) = record_values("csv-user", "{file: rows.csv, share: user}", "{users: 3, iterations: 4}", &rows(5));
    let mut by_user: HashMap<String, Vec<String>> = HashMap::new();
    for (u, v) in got {
        by_user.entry(u).or_default().push(v);
    }
    assert_eq!(by_user.len(), 3);
    for (u, vals) in by_user {
        assert_eq!(vals, ["r1", "r2", "r3", "r4"], "user {u}");
    }
}

#[test]
fn csv_end_of_file_stops_the_user_or_the_run() {
    let (run, got) = record_values(
        "csv-stop-user",
        "{file: rows.csv, share: user, on_eof: stop_user}",
        "{users: 2, iterations: 10}",
        &rows(3),
    );
    assert_eq!(got.len(), 6, "each user stops after the 3 rows: {got:?}");
    assert_eq!(uint(&run.total(), "samples"), 6);
    let (run, got) =
        record_values("csv-stop-run", "{file: rows.csv, on_eof: stop_run}", "{users: 2, duration: 60s}", &rows(4));
    assert_eq!(got.len(), 4, "the run stops when the 4 rows are used: {got:?}");
    assert_eq!(uint(&run.total(), "samples"), 4);
    assert_eq!(run.meta()["status"], "completed");
}

#[test]
fn quoted_csv_fields_arrive_intact() {
    let server = TestServer::builder().route("/rec", Route::ok().record()).start();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
data: [{{file: rows.csv}}]
scenarios:
  - workload: {{users: 1, iterations: 2}}
    flow: [{{request: {{url: /rec, method: POST, body: "${{w}}|${{v}}"}}}}]
"#,
        addr = server.addr()
    );
    run_with_files("csv-quoted", &plan, &[("rows.csv", rows(2).as_bytes())]);
    assert_eq!(server.bodies("/rec"), [b"x, 1|r1".to_vec(), b"x, 2|r2".to_vec()]);
}

#[test]
fn file_and_gzip_bodies_arrive_byte_identical() {
    let server = TestServer::builder().route("/file", Route::ok().record()).route("/zip", Route::ok().record()).start();
    // Already gzipped bytes, sent as they are, with the plan's Content-Encoding.
    let text = "{\"events\":[1,2,3]}".repeat(50);
    let zipped = {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 2, iterations: 3}}
    flow:
      - request: {{url: /file, body_file: telemetry.json.gz, headers: {{Content-Encoding: gzip, Content-Type: application/json}}}}
      - request: {{url: /zip, json: {{id: "${{__threadNum}}"}}, gzip: true}}
"#,
        addr = server.addr()
    );
    run_with_files("bodies", &plan, &[("telemetry.json.gz", &zipped)]);
    let files = server.recorded("/file");
    assert_eq!(files.len(), 6);
    for r in &files {
        assert_eq!(r.body, zipped, "the file arrives byte for byte");
        assert_eq!(r.header("content-encoding"), Some("gzip"));
        assert_eq!(r.header("content-length"), Some(zipped.len().to_string().as_str()));
    }
    let zips = server.recorded("/zip");
    assert_eq!(zips.len(), 6);
    for r in &zips {
        assert_eq!(r.header("content-encoding"), Some("gzip"));
        let mut plain = String::new();
        flate2::read::GzDecoder::new(&r.body[..]).read_to_string(&mut plain).unwrap();
        let user = r.body.len(); // any: the id is per user
        assert!(plain == r#"{"id":"1"}"# || plain == r#"{"id":"2"}"#, "{plain} ({user} bytes)");
    }
}

#[test]
fn redirect_chains_are_one_sample_with_sub_samples() {
    let server = TestServer::builder()
        .route("/start", Route::handler(|_| Reply::status(302).header("Location", "/step?x=1")))
        .route("/step", Route::handler(|_| Reply::status(303).header("Location", "/final")).record())
        .route("/final", Route::ok().record())
        .start();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 2, iterations: 5}}
    flow:
      - request: {{label: login, method: POST, url: /start, body: "a=1", check: [{{body_contains: OK}}]}}
      - request: {{label: nofollow, url: /start, follow_redirects: false}}
"#,
        addr = server.addr()
    );
    let run = run_plan("redirects", &plan);
    assert_eq!(server.requests_to("/start"), 20);
    assert_eq!(server.requests_to("/step"), 10);
    assert_eq!(server.requests_to("/final"), 10);
    assert_eq!(uint(&run.label("login"), "samples"), 10, "the chain is one sample");
    for hop in ["login-0", "login-1", "login-2"] {
        let v = run.label(hop);
        assert_eq!(uint(&v, "samples"), 10, "{hop}");
        assert_eq!(uint(&v, "errors"), 0, "{hop}");
    }
    assert_eq!(uint(&run.label("nofollow"), "samples"), 10);
    assert_eq!(uint(&run.label("nofollow"), "errors"), 0, "a 302 not followed is a success");
    // The Total counts each exchange once: hops, not the chains they make up.
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    // A 302 after a POST, and a 303, continue as GET without the body (as JMeter and browsers).
    for r in server.recorded("/step").iter().chain(server.recorded("/final").iter()) {
        assert_eq!(r.method, "GET");
        assert!(r.body.is_empty());
    }
    assert_eq!(server.recorded("/step")[0].target, "/step?x=1");
}

#[test]
fn failing_checks_are_ko_with_their_message() {
    let server = TestServer::builder()
        .route("/json", Route::ok().header("Content-Type", "application/json").body(r#"{"status":"ok","n":3}"#))
        .route("/gone", Route::status(404))
        .start();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 2, iterations: 4}}
    flow:
      - request:
          label: good
          url: /json
          check: [{{status: 200}}, {{json: $.status, equals: ok}}, {{body_matches: '"n":\d'}}, {{max_duration: 10s}}]
      - request:
          label: bad
          url: /json
          check: [{{status: 200}}, {{body_contains: NOPE}}]
      - request:
          label: missing
          url: /json
          extract: [{{json: $.token, into: token, required: true, default: none}}]
      - request: {{label: custom, url: /json, check: [{{json: $.n, equals: "4", message: n must be 4}}]}}
      - request: {{label: expected404, url: /gone, check: [{{status: 404}}]}}
      - request: {{label: unexpected404, url: /gone, check: [{{status: 2xx}}]}}
      - request: {{label: plain404, url: /gone}}
"#,
        addr = server.addr()
    );
    let run = run_plan("checks", &plan);
    assert_eq!(uint(&run.label("good"), "errors"), 0);
    let bad = run.label("bad");
    assert_eq!(uint(&bad, "errors"), 8);
    assert_eq!(errors_by_kind(&bad), HashMap::from([("check: body contains \"NOPE\"".to_string(), 8)]));
    assert_eq!(
        errors_by_kind(&run.label("missing")),
        HashMap::from([("check: extract token: nothing found by $.token".to_string(), 8)])
    );
    assert_eq!(errors_by_kind(&run.label("custom")), HashMap::from([("check: n must be 4".to_string(), 8)]));
    // A status check decides on the status itself: it can expect a 404.
    assert_eq!(uint(&run.label("expected404"), "errors"), 0);
    assert_eq!(
        errors_by_kind(&run.label("unexpected404")),
        HashMap::from([("check: status is 200-299".to_string(), 8)])
    );
    assert_eq!(errors_by_kind(&run.label("plain404")), HashMap::from([("http_404".to_string(), 8)]));
    let total = run.total();
    assert_eq!(uint(&total, "errors"), 40);
    assert_eq!(uint(&total, "samples"), server.requests());
    // The report names the failed checks too.
    let out = Stampede::new().arg("report").arg(run.path()).run();
    assert!(out.stdout_str().contains("check: body contains"), "{}", out.stdout_str());
}

#[test]
fn loops_conditions_once_and_groups() {
    // `/page?n=N` answers `more` while N < 3, then `done`: a while loop reads it.
    let server = TestServer::builder()
        .route(
            "/page",
            Route::handler(|r| {
                let n: u32 = r.query("n").and_then(|n| n.parse().ok()).unwrap_or(0);
                Reply::ok().body(if n < 3 { "more" } else { "done" })
            }),
        )
        .default_route(Route::ok())
        .start();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 2, iterations: 2}}
    flow:
      - once: [{{request: {{url: /once}}}}]
      - loop: {{count: 3, flow: [{{request: {{url: /loop}}}}]}}
      - if: "${{__threadNum}} == 1"
        then: [{{request: {{url: /first}}}}]
        else: [{{request: {{url: /other}}}}]
      - set: {{state: more}}
      - loop:
          while: "${{state}} == 'more'"
          flow:
            - request:
                url: /page
                query: {{n: "${{__counter(TRUE)}}"}}
                extract: [{{regex: '(more|done)', into: state}}]
      - group:
          name: G
          flow: [{{request: {{url: /g1}}}}, {{request: {{url: /g2}}}}]
"#,
        addr = server.addr()
    );
    let run = run_plan("control", &plan);
    assert_eq!(server.requests_to("/once"), 2);
    assert_eq!(server.requests_to("/loop"), 12);
    assert_eq!(server.requests_to("/first"), 2);
    assert_eq!(server.requests_to("/other"), 2);
    // Per user: n=1,2,3 in the first iteration (the third answers `done`), n=4 in the second.
    assert_eq!(server.requests_to("/page"), 8);
    assert_eq!(server.requests_to("/g1"), 4);
    assert_eq!(server.requests_to("/g2"), 4);
    let g = run.label("G");
    assert_eq!(uint(&g, "samples"), 4);
    // The group's time is the sum of its requests' times.
    let (g1, g2) = (run.label("/g1"), run.label("/g2"));
    let sum = g1["mean_ms"].as_f64().unwrap() + g2["mean_ms"].as_f64().unwrap();
    assert!((g["mean_ms"].as_f64().unwrap() - sum).abs() < 0.01 + sum * 0.01, "{g:#} vs {sum}");
    assert_eq!(uint(&run.total(), "samples"), server.requests(), "the group is not counted again in the Total");
}

#[test]
fn write_back_appends_one_line_per_pass() {
    let issued = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = issued.clone();
    let server = TestServer::builder()
        .route(
            "/users",
            Route::handler(move |r| {
                let id = format!("u-{}", r.header("x-n").unwrap_or("?"));
                seen.lock().unwrap().push(id.clone());
                Reply::json(format!(r#"{{"result":{{"userId":"{id}"}}}}"#))
            }),
        )
        .start();
    let run = TempRun::new("write-back");
    let out = run.root().join("created.csv");
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 3, iterations: 2}}
    flow:
      - request:
          method: POST
          url: /users
          headers: {{X-N: "${{__threadNum}}-${{__counter(TRUE)}}"}}
          extract: [{{json: $.result.userId, into: userId}}]
      - write: {{file: created.csv, values: ["${{userId}}", "token, with comma"], header: [userId, token]}}
"#,
        addr = server.addr()
    );
    let path = run.write("plan.yaml", &plan);
    Stampede::new().arg("run").arg(&path).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.remove(0), "userId,token");
    let mut ids: Vec<String> = lines
        .iter()
        .map(|l| {
            let (id, rest) = l.split_once(',').unwrap();
            assert_eq!(rest, "\"token, with comma\"");
            id.to_string()
        })
        .collect();
    ids.sort();
    let mut want = issued.lock().unwrap().clone();
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(ids.len(), 6);
}

#[test]
fn csv_per_scenario_gives_each_scenario_its_own_cursor() {
    let server = TestServer::builder().route("/rec", Route::ok().record()).start();
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
data: [{{file: rows.csv, share: scenario}}]
scenarios:
  - name: a
    workload: {{users: 1, iterations: 3}}
    flow: [{{request: {{url: /rec, query: {{v: "${{v}}"}}, headers: {{X-Scenario: a}}}}}}]
  - name: b
    workload: {{users: 2, iterations: 2}}
    flow: [{{request: {{url: /rec, query: {{v: "${{v}}"}}, headers: {{X-Scenario: b}}}}}}]
"#,
        addr = server.addr()
    );
    run_with_files("csv-scenario", &plan, &[("rows.csv", rows(5).as_bytes())]);
    let mut by_scenario: HashMap<String, Vec<String>> = HashMap::new();
    for r in server.recorded("/rec") {
        by_scenario.entry(r.header("x-scenario").unwrap().to_string()).or_default().push(r.query("v").unwrap());
    }
    assert_eq!(by_scenario["a"], ["r1", "r2", "r3"], "scenario a reads from its own start");
    let mut b = by_scenario["b"].clone();
    b.sort();
    assert_eq!(b, ["r1", "r2", "r3", "r4"], "scenario b's two users share one cursor");
}

#[test]
fn a_value_extracted_into_the_url_is_used_on_the_next_request() {
    let server = TestServer::builder()
        .route(
            "/list",
            Route::handler(|r| {
                let next = match r.query("c").as_deref() {
                    Some("") => "a",
                    Some("a") => "b",
                    _ => "end",
                };
                Reply::ok().body(format!(r#"{{"next":"{next}"}}"#))
            })
            .record(),
        )
        .start();
    let plan = format!(
        r#"
variables: {{cursor: ""}}
scenarios:
  - workload: {{users: 1, iterations: 1}}
    flow:
      - loop:
          count: 10
          while: "${{cursor}} != 'end'"
          flow:
            - request: {{url: "http://{addr}/list?c=${{cursor}}", extract: [{{json: $.next, into: cursor}}]}}
"#,
        addr = server.addr()
    );
    run_plan("paging", &plan);
    let targets: Vec<String> = server.recorded("/list").into_iter().map(|r| r.target).collect();
    assert_eq!(targets, ["/list?c=", "/list?c=a", "/list?c=b"]);
}

#[test]
fn multipart_and_form_bodies_arrive_as_sent() {
    let server =
        TestServer::builder().route("/upload", Route::ok().record()).route("/form", Route::ok().record()).start();
    let run = TempRun::new("multipart");
    run.write("photo.bin", [0u8, 1, 2, 255, b'\r', b'\n']);
    let plan = format!(
        r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 1, iterations: 1}}
    flow:
      - request:
          url: /upload
          multipart:
            - {{name: title, value: "user ${{__threadNum}}"}}
            - {{name: photo, file: photo.bin, content_type: application/octet-stream}}
      - request: {{url: /form, form: {{q: "a b&c=d", n: "${{__threadNum}}"}}}}
"#,
        addr = server.addr()
    );
    let path = run.write("plan.yaml", &plan);
    Stampede::new().arg("run").arg(&path).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let up = &server.recorded("/upload")[0];
    let ct = up.header("content-type").unwrap();
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").expect(ct);
    let mut want = Vec::new();
    want.extend_from_slice(
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nuser 1\r\n").as_bytes(),
    );
    want.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"photo.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes());
    want.extend_from_slice(&[0u8, 1, 2, 255, b'\r', b'\n']);
    want.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    assert_eq!(up.body, want);
    let form = &server.recorded("/form")[0];
    assert_eq!(form.header("content-type"), Some("application/x-www-form-urlencoded"));
    assert_eq!((form.form("q").as_deref(), form.form("n").as_deref()), (Some("a b&c=d"), Some("1")));
}

#[test]
fn a_data_file_with_a_short_row_is_a_plan_error_naming_file_and_line() {
    let run = TempRun::new("bad-csv");
    run.write("users.csv", "user,pass\nu1,p1\nu2\n");
    let plan = run.write(
        "plan.yaml",
        "data: [{file: users.csv}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1:9/${user}'}}]}]\n",
    );
    let out = Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run();
    out.assert_exit(2);
    let err = out.stderr_str();
    assert!(err.contains("users.csv:3") && err.contains("expected 2"), "{err}");
    assert!(err.contains("plan.yaml"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_followed_redirect_s_parent_row_has_the_final_status() {
    let server = TestServer::builder()
        .route("/start", Route::handler(|_| Reply::status(302).header("Location", "/final")))
        .route("/lost", Route::handler(|_| Reply::status(301).header("Location", "/gone")))
        .route("/final", Route::ok())
        .route("/gone", Route::status(404))
        .start();
    let run = TempRun::new("redirect-status");
    let jtl = run.root().join("rows.jtl");
    let plan = run.write(
        "plan.yaml",
        format!(
            r#"
defaults: {{base_url: "http://{addr}"}}
scenarios:
  - workload: {{users: 1, iterations: 3}}
    flow:
      - request: {{label: found, url: /start}}
      - request: {{label: lost, url: /lost}}
"#,
            addr = server.addr()
        ),
    );
    Stampede::new().arg("run").arg(&plan).arg("--jtl").arg(&jtl).args(["-q", "--out"]).arg(run.path()).run();
    let text = std::fs::read_to_string(&jtl).unwrap();
    let mut codes: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        codes.entry(f[2].to_string()).or_default().push((f[3].to_string(), f[7].to_string()));
    }
    let want = |code: &str, ok: &str| vec![(code.to_string(), ok.to_string()); 3];
    // JMeter's parent sample of a chain takes the last response's code and success.
    assert_eq!(codes["found"], want("200", "true"), "{text}");
    assert_eq!(codes["found-0"], want("302", "true"), "{text}");
    assert_eq!(codes["found-1"], want("200", "true"), "{text}");
    assert_eq!(codes["lost"], want("404", "false"), "{text}");
    assert_eq!(codes["lost-0"], want("301", "true"), "{text}");
    assert_eq!(codes["lost-1"], want("404", "false"), "{text}");
    assert_eq!(uint(&run.label("found"), "errors"), 0);
    assert_eq!(uint(&run.label("lost"), "errors"), 3);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
}
