//! Scripts of real plans outside the first subset (issue 32): Jayway's `JsonPath`, uploads a
//! pre-processor chooses (`HTTPFileArg`), cookies a script adds to the Cookie Manager, each
//! proven by what the witness received.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_scripts::{script, DEFAULTS};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

fn run_jmx(run: &TempRun, body: &str, users: u32, loops: &str, port: u16) -> crate::util::stampede::Output {
    let p = run.write("plan.jmx", jmx_plan(users, loops, &[DEFAULTS, body].concat()));
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &format!("port={port}"), "--out"]).arg(run.path()).run()
}

/// A Groovy post-processor reads the login response with Jayway's `JsonPath` (a definite path,
/// a filter, a missing path caught as `PathNotFoundException`); the next request sends what it
/// read.
#[test]
fn values_read_with_jayway_json_path_are_sent_by_the_next_request() {
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(|_| {
                Reply::ok()
                    .header("Content-Type", "application/json")
                    .body(r#"{"auth":{"token":"tk-42"},"items":[{"id":7,"on":true},{"id":9,"on":false},{"id":11,"on":true}]}"#)
            }),
        )
        .default_route(Route::ok().record())
        .start();
    let run = TempRun::new("jmx-script-jsonpath");
    let post = script(
        "JSR223PostProcessor",
        "read json",
        "groovy",
        r#"import com.jayway.jsonpath.JsonPath
import com.jayway.jsonpath.PathNotFoundException
def body = prev.getResponseDataAsString()
vars.put("token", JsonPath.read(body, "$.auth.token"))
List ids = JsonPath.parse(body).read("$.items[?(@.on == true)].id")
vars.put("ids", ids.join("-"))
try {
    JsonPath.read(body, "$.auth.refresh")
    vars.put("refresh", "found")
} catch (PathNotFoundException e) {
    vars.put("refresh", "none")
}"#,
        "",
    );
    let body = [
        sampler("login", "GET", "/login", "", false, &post),
        sampler("use", "GET", "/use/${token}/${ids}/${refresh}", "", false, ""),
    ]
    .concat();
    run_jmx(&run, &body, 2, "3", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.label("use"), "samples"), 6);
    assert_eq!(uint(&run.total(), "errors"), 0);
    let got: Vec<String> = server.recorded("/use/tk-42/7-11/none").iter().map(|r| r.path().to_string()).collect();
    assert_eq!(got.len(), 6, "{:?}", server.recorded("/use"));
}
