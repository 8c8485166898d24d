//! Scripts of real plans outside the first subset (issue 32): Jayway's `JsonPath`, uploads a
//! pre-processor chooses (`HTTPFileArg`), cookies a script adds to the Cookie Manager, each
//! proven by what the witness received.

use crate::jmx::sampler;
use crate::jmx_scripts::{run_jmx, script};
use crate::util::server::{Reply, Route, TestServer};
use crate::util::stampede::{uint, OutputExt, TempRun};

/// A Groovy post-processor reads the login response with Jayway's `JsonPath` (a definite path,
/// a filter, a missing path caught as `PathNotFoundException`); the next request sends what it
/// read.
#[test]
fn values_read_with_jayway_json_path_are_sent_by_the_next_request() {
    let server = TestServer::builder()
        .route(
            "/login",
            Route::handler(|_| {
                Reply::json(r#"{"auth":{"token":"tk-42"},"items":[{"id":7,"on":true},{"id":9,"on":false},{"id":11,"on":true}]}"#)
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

const COOKIE_MANAGER: &str = r#"<CookieManager guiclass="CookiePanel" testclass="CookieManager" testname="HTTP Cookie Manager" enabled="true">
          <collectionProp name="CookieManager.cookies"/>
          <boolProp name="CookieManager.clearEachIteration">false</boolProp>
        </CookieManager><hashTree/>"#;

/// A pre-processor adds a cookie through `sampler.getCookieManager().add(new Cookie(...))`: the
/// user's cookie store holds it, so its request and the next ones on its path send it (and a
/// request outside its path does not); without a Cookie Manager `getCookieManager()` is null.
#[test]
fn a_cookie_a_script_adds_to_the_cookie_manager_is_sent() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-cookie");
    let pre = script(
        "JSR223PreProcessor",
        "add cookie",
        "groovy",
        r#"import org.apache.jmeter.protocol.http.control.Cookie
def cm = sampler.getCookieManager()
cm.add(new Cookie("sid", "s-" + vars.get("__jm__Users__idx"), "127.0.0.1", "/app", false, 0))"#,
        "",
    );
    let body = [
        COOKIE_MANAGER,
        &sampler("first", "GET", "/app/one", "", false, &pre),
        &sampler("second", "GET", "/app/two", "", false, ""),
        &sampler("elsewhere", "GET", "/other", "", false, ""),
    ]
    .concat();
    run_jmx(&run, &body, 2, "2", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.total(), "samples"), 12);
    assert_eq!(uint(&run.total(), "errors"), 0);
    for path in ["/app/one", "/app/two"] {
        let got: Vec<Option<String>> = server.recorded(path).iter().map(|r| r.cookie("sid")).collect();
        assert_eq!(got.len(), 4, "{path}");
        assert!(got.iter().all(|c| c.as_deref().is_some_and(|v| v.starts_with("s-"))), "{path}: {got:?}");
    }
    let other: Vec<Option<String>> = server.recorded("/other").iter().map(|r| r.cookie("sid")).collect();
    assert_eq!(other, vec![None; 4]);

    let run = TempRun::new("jmx-script-no-cookie-manager");
    let pre = script(
        "JSR223PreProcessor",
        "no manager",
        "groovy",
        r#"vars.put("cm", sampler.getCookieManager() == null ? "null" : "there")"#,
        "",
    );
    let body = sampler("probe", "GET", "/cm/${cm}", "", false, &pre);
    run_jmx(&run, &body, 1, "2", server.addr().port()).assert_exit(0);
    assert_eq!(server.recorded("/cm/null").len(), 2);
}

/// A pre-processor reads a file beside the plan with commons-io's `FileUtils` and writes
/// another; the request sends what it read, and a file outside the plan's directory is refused.
#[test]
fn file_utils_reads_and_writes_beside_the_plan_only() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-fileutils");
    run.write("ids.txt", "a1\nb2\n");
    let pre = script(
        "JSR223PreProcessor",
        "read ids",
        "groovy",
        r#"import org.apache.commons.io.FileUtils
def ids = FileUtils.readLines(new File("ids.txt"), "UTF-8")
FileUtils.writeStringToFile(new File("seen.txt"), ids.join(",") + "\n", "UTF-8", true)
def outside
try { FileUtils.readFileToString(new File("/etc/hostname"), "UTF-8"); outside = "read" } catch (SecurityException e) { outside = "refused" }
vars.put("p", ids.join("-") + "/" + outside)"#,
        "",
    );
    let body = sampler("ids", "GET", "/ids/${p}", "", false, &pre);
    run_jmx(&run, &body, 1, "3", server.addr().port()).assert_exit(0);
    assert_eq!(server.recorded("/ids/a1-b2/refused").len(), 3);
    assert_eq!(std::fs::read_to_string(run.root().join("seen.txt")).unwrap(), "a1,b2\n".repeat(3));
}

/// A pre-processor chooses the file a POST uploads, per sample
/// (`sampler.setHTTPFiles([new HTTPFileArg(path, param, mime)] as HTTPFileArg[])`): the
/// witness receives a multipart body with the form's field, then that file.
#[test]
fn a_file_a_pre_processor_chooses_is_uploaded_multipart() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-script-upload");
    run.write("up-0.txt", "zero");
    run.write("up-1.txt", "one");
    let pre = script(
        "JSR223PreProcessor",
        "choose file",
        "groovy",
        r#"import org.apache.jmeter.protocol.http.util.HTTPFileArg
int n = (vars.get("n") ?: "0") as int
vars.put("n", String.valueOf(n + 1))
sampler.setHTTPFiles([new HTTPFileArg("up-" + (n % 2) + ".txt", "file", "text/plain")] as HTTPFileArg[])"#,
        "",
    );
    let body = sampler("upload", "POST", "/upload", &crate::jmx::arg("who", "me", false), false, &pre);
    run_jmx(&run, &body, 1, "4", server.addr().port()).assert_exit(0);
    assert_eq!(uint(&run.label("upload"), "samples"), 4);
    assert_eq!(uint(&run.total(), "errors"), 0);
    let got = server.recorded("/upload");
    assert_eq!(got.len(), 4);
    for (i, r) in got.iter().enumerate() {
        let b = "----stampede-7d4a1f0c9b3e";
        let (file, text) = if i % 2 == 0 { ("up-0.txt", "zero") } else { ("up-1.txt", "one") };
        let want = format!(
            "--{b}\r\nContent-Disposition: form-data; name=\"who\"\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nme\r\n--{b}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file}\"\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\n\r\n{text}\r\n--{b}--\r\n"
        );
        assert_eq!(String::from_utf8_lossy(&r.body), want);
        assert_eq!(
            r.header("content-type"),
            Some(format!("multipart/form-data; boundary={b}; charset=UTF-8").as_str())
        );
    }
}
