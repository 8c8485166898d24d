//! What arrives on the wire is what the plan says: method, path and query, headers, body
//! (gzipped bodies byte for byte), and the connection handling the server asks for.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{OutputExt, Stampede, TempRun};
use std::io::Read;

#[test]
fn requests_arrive_as_planned() {
    let server = TestServer::builder().default_route(Route::ok()).record_all().start();
    let run = TempRun::new("wire");
    run.write("payload.bin", [0u8, 159, 146, 150, 255]);
    let plan = run.write(
        "plan.yaml",
        format!(
            r#"
variables: {{channel: in.ekstep}}
defaults:
  base_url: "http://{addr}/api"
  headers: {{X-Channel-Id: "${{channel}}", Accept: text/plain}}
scenarios:
  - workload: {{users: 1, iterations: 1}}
    flow:
      - request: {{label: read, url: "/content/v1/read/do_1?fields=name", query: {{mode: "edit me"}}, headers: {{Accept: application/json}}}}
      - request: {{label: telemetry, method: POST, url: /data/v1/telemetry, json: {{events: [{{eid: START}}]}}, gzip: true}}
      - request: {{label: raw, method: put, url: /raw, body_file: payload.bin}}
      - request: {{label: gone, method: DELETE, url: /x}}
"#,
            addr = server.addr()
        ),
    );
    Stampede::new().args(["run", plan.to_str().unwrap(), "-q", "--out"]).arg(run.path()).run().assert_exit(0);
    let got = server.recorded_all();
    assert_eq!(got.len(), 4);
    let header = |i: usize, name: &str| -> Option<String> {
        got[i].headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone())
    };

    assert_eq!(
        (got[0].method.as_str(), got[0].target.as_str()),
        ("GET", "/api/content/v1/read/do_1?fields=name&mode=edit+me")
    );
    assert_eq!(header(0, "accept").as_deref(), Some("application/json"), "the request's header wins");
    assert_eq!(header(0, "x-channel-id").as_deref(), Some("in.ekstep"));
    assert_eq!(header(0, "host"), Some(server.addr().to_string()));
    assert!(header(0, "user-agent").unwrap().starts_with("stampede/"));
    assert_eq!(header(0, "content-length"), None);

    assert_eq!(got[1].method, "POST");
    assert_eq!(header(1, "content-encoding").as_deref(), Some("gzip"));
    assert_eq!(header(1, "content-type").as_deref(), Some("application/json"));
    let mut json = String::new();
    flate2::read::GzDecoder::new(&got[1].body[..]).read_to_string(&mut json).unwrap();
    assert_eq!(json, r#"{"events":[{"eid":"START"}]}"#);
    assert_eq!(header(1, "content-length"), Some(got[1].body.len().to_string()));

    assert_eq!((got[2].method.as_str(), got[2].body.as_slice()), ("PUT", &[0u8, 159, 146, 150, 255][..]));
    assert_eq!(got[3].method, "DELETE");
    // All four on the one kept-alive connection.
    assert_eq!(server.connections(), 1);
}

#[test]
fn a_server_asking_to_close_gets_a_new_connection_without_errors() {
    let server =
        TestServer::builder().route("/once", Route::ok().close_after().header("X-Served-By", "witness")).start();
    let run = TempRun::new("conn-close");
    Stampede::new()
        .args(["run", "--url", &server.url("/once"), "--users", "3", "--iterations", "10", "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    let t = run.total();
    assert_eq!(t["samples"], 30);
    assert_eq!(t["errors"], 0);
    assert_eq!(t["connections_opened"], 30);
    assert_eq!(server.connections(), 30);
}
