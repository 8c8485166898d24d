//! JMeter's HTTP Request on the wire and its managers: connections per host and keep-alive, the
//! Java implementation's headers, `//` in paths, an unfilled placeholder host, bandwidth emulation
//! (`httpclient.socket.http.cps`), the Sample Timeout; Cache (revalidation, fresh entries skipped
//! without a sample), Authorization (Basic, Digest, passwords never shown), DNS Cache, Cookie
//! (clear each iteration, policies, scope) Managers.

use crate::jmx::{jmx_plan, sampler};
use crate::jmx_config::{group as group_counter, run_timed};
use crate::jmx_functions::{run_jtl, sampler as sampler_placeholder};
use crate::jmx_http_bodies::{group, http, plan, run_plan, targets, witness};
use crate::util::jmx::{element, http as http_counter, http_defaults, jsr223_sampler, test_plan, thread_group};
use crate::util::server::{RecordedRequest, Reply, Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};
use std::time::{Duration, Instant};

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
pub(crate) const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

/// Runs `plan` (JMX text) against the server on `port`; returns the run.
pub(crate) fn run_jmx(name: &str, plan: String, port: u16) -> TempRun {
    let run = TempRun::new(name);
    let p = run.write("plan.jmx", plan);
    let port = format!("port={port}");
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    run
}

/// A sampler sent to a whole URL, with keep-alive on or off.
pub(crate) fn get(name: &str, url: &str, keep_alive: bool) -> String {
    let s = sampler(name, "GET", url, "", false, "");
    if keep_alive {
        s
    } else {
        s.replace(
            r#"<boolProp name="HTTPSampler.use_keepalive">true</boolProp>"#,
            r#"<boolProp name="HTTPSampler.use_keepalive">false</boolProp>"#,
        )
    }
}

#[track_caller]
pub(crate) fn assert_samples(run: &TempRun, label: &str, samples: u64, errors: u64) {
    let row = run.label(label);
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (samples, errors), "{label}: {row:#}");
}

// ---- connections -------------------------------------------------------------------------

#[test]
fn a_user_keeps_one_connection_per_host() {
    let a = TestServer::builder().default_route(Route::ok().body("a")).start();
    let b = TestServer::builder().default_route(Route::ok().body("b")).start();
    // Three users alternate two hosts five times: JMeter's HttpClient 4 keeps a connection to
    // each host per thread, so each server sees one connection per user.
    let body = [get("a", &a.url("/a"), true), get("b", &b.url("/b"), true)].concat();
    let run = run_jmx("jmx-http-two-hosts", jmx_plan(3, "5", &body), a.addr().port());
    assert_eq!((a.connections(), b.connections()), (3, 3));
    assert_eq!((a.requests(), b.requests()), (15, 15));
    assert_samples(&run, "a", 15, 0);
    assert_samples(&run, "b", 15, 0);
    assert_eq!(uint(&run.summary()["total"], "samples"), a.requests() + b.requests());
}

#[test]
fn a_sampler_without_keep_alive_closes_its_host_s_connection() {
    let a = TestServer::builder().default_route(Route::ok()).start();
    let b = TestServer::builder().default_route(Route::ok()).start();
    // Per iteration: `a` (a new connection: `close` ended the last one), `b` (kept), `close`
    // on a's connection, which it closes. Two users, four iterations.
    let body = [get("a", &a.url("/a"), true), get("b", &b.url("/b"), true), get("close", &a.url("/c"), false)].concat();
    let run = run_jmx("jmx-http-close", jmx_plan(2, "4", &body), a.addr().port());
    assert_eq!(a.connections(), 8, "one per iteration per user on the host `close` goes to");
    assert_eq!(b.connections(), 2, "the other host's connection is kept");
    for r in a.recorded_all().iter().chain(b.recorded_all().iter()) {
        let close = r.header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        assert_eq!(close, r.path() == "/c", "{r:?}");
    }
    assert_eq!(uint(&run.summary()["total"], "samples"), a.requests() + b.requests());
}

#[test]
fn a_sampler_saved_without_keep_alive_closes_as_jmeter_s_default_says() {
    // JMeter's HTTPSamplerBaseSchema defaults `use_keepalive` to false: a plan written without
    // the property sends `Connection: close` on every request, one connection each.
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let without = get("bare", &server.url("/bare"), true)
        .replace(r#"<boolProp name="HTTPSampler.use_keepalive">true</boolProp>"#, "");
    assert!(!without.contains("use_keepalive"));
    let run = run_jmx("jmx-http-keepalive-absent", jmx_plan(1, "3", &without), server.addr().port());
    assert_samples(&run, "bare", 3, 0);
    assert_eq!(server.connections(), 3);
    assert!(server.recorded_all().iter().all(|r| r.header("connection") == Some("close")));
}

// ---- HTTP Cache Manager ------------------------------------------------------------------

pub(crate) fn cache_manager(clear: bool, use_expires: bool) -> String {
    format!(
        r#"<CacheManager guiclass="CacheManagerGui" testclass="CacheManager" testname="HTTP Cache Manager" enabled="true">
          <boolProp name="clearEachIteration">{clear}</boolProp>
          <boolProp name="useExpires">{use_expires}</boolProp>
          <intProp name="maxSize">5000</intProp>
        </CacheManager><hashTree/>"#
    )
}

const LAST_MODIFIED: &str = "Sun, 06 Nov 1994 08:49:37 GMT";

/// `/etag` answers 304 to a request that names its ETag, else 200 with ETag, Last-Modified and
/// `no-cache`; `/fresh` is fresh for an hour; `/dated` has only a Last-Modified. Both record every request.
pub(crate) fn cache_server() -> TestServer {
    TestServer::builder()
        .record_all()
        .route(
            "/etag",
            Route::handler(|r| {
                if r.header("if-none-match") == Some("\"v1\"") {
                    Reply::status(304)
                } else {
                    // no-cache: revalidated every time, even with "use Cache-Control/Expires"
                    // (with only a Last-Modified, JMeter would hold it fresh for a tenth of
                    // its age, or a year when there is no Date).
                    Reply::ok()
                        .header("ETag", "\"v1\"")
                        .header("Last-Modified", LAST_MODIFIED)
                        .header("Cache-Control", "no-cache")
                        .body("etag body")
                }
            }),
        )
        .route("/fresh", Route::ok().header("Cache-Control", "public, max-age=3600").body("fresh body"))
        .route("/dated", Route::ok().header("Last-Modified", LAST_MODIFIED))
        .start()
}

fn cache_plan(clear: bool, use_expires: bool) -> String {
    let body = [
        DEFAULTS.to_string(),
        cache_manager(clear, use_expires),
        sampler("etag", "GET", "/etag", "", false, ""),
        sampler("fresh", "GET", "/fresh", "", false, ""),
        sampler("dated", "GET", "/dated", "", false, ""),
    ]
    .concat();
    jmx_plan(2, "3", &body)
}

fn conditional(r: &RecordedRequest) -> (Option<&str>, Option<&str>) {
    (r.header("if-none-match"), r.header("if-modified-since"))
}

#[test]
fn the_cache_manager_revalidates_and_skips_what_is_fresh() {
    let server = cache_server();
    let run = run_jmx("jmx-http-cache", cache_plan(false, true), server.addr().port());
    // Each user asks /etag three times: the first plainly, then with its ETag and date (304).
    let etag = server.recorded("/etag");
    assert_eq!(etag.len(), 6);
    let revalidated = etag.iter().filter(|r| conditional(r) == (Some("\"v1\""), Some(LAST_MODIFIED))).count();
    assert_eq!(revalidated, 4, "{etag:#?}");
    assert_eq!(etag.iter().filter(|r| conditional(r) == (None, None)).count(), 2);
    // /fresh is fresh for an hour: asked once per user; the cache hits are no samples at all
    // (JMeter's default cache_manager.cached_resource_mode=RETURN_NO_SAMPLE).
    assert_eq!(server.requests_to("/fresh"), 2);
    // Only a Last-Modified and no Date: JMeter holds it fresh for a year.
    assert_eq!(server.requests_to("/dated"), 2);
    assert_samples(&run, "etag", 6, 0);
    assert_samples(&run, "fresh", 2, 0);
    assert_samples(&run, "dated", 2, 0);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

#[test]
fn a_cache_cleared_each_iteration_asks_again() {
    let server = cache_server();
    let run = run_jmx("jmx-http-cache-clear", cache_plan(true, true), server.addr().port());
    assert!(server.recorded("/etag").iter().all(|r| conditional(r) == (None, None)));
    assert_eq!((server.requests_to("/fresh"), server.requests_to("/dated")), (6, 6));
    assert_samples(&run, "fresh", 6, 0);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

#[test]
fn without_use_expires_every_request_is_sent() {
    let server = cache_server();
    let run = run_jmx("jmx-http-cache-noexpires", cache_plan(false, false), server.addr().port());
    assert_eq!(server.requests_to("/fresh"), 6, "only Expires/max-age lets a request be skipped");
    let dated = server.recorded("/dated");
    assert_eq!(dated.iter().filter(|r| conditional(r) == (None, Some(LAST_MODIFIED))).count(), 4, "{dated:#?}");
    assert_eq!(server.recorded("/etag").iter().filter(|r| conditional(r).0.is_some()).count(), 4);
    assert_samples(&run, "fresh", 6, 0);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

// ---- HTTP Authorization Manager -------------------------------------------------------------

fn auth_row(url: &str, user: &str, password: &str, mechanism: &str) -> String {
    format!(
        r#"<elementProp name="" elementType="Authorization">
              <stringProp name="Authorization.url">{url}</stringProp>
              <stringProp name="Authorization.username">{user}</stringProp>
              <stringProp name="Authorization.password">{password}</stringProp>
              <stringProp name="Authorization.domain"></stringProp>
              <stringProp name="Authorization.realm"></stringProp>
              <stringProp name="Authorization.mechanism">{mechanism}</stringProp>
            </elementProp>"#
    )
}

fn auth_manager(rows: &str) -> String {
    format!(
        r#"<AuthManager guiclass="AuthPanel" testclass="AuthManager" testname="HTTP Authorization Manager" enabled="true">
          <collectionProp name="AuthManager.auth_list">{rows}</collectionProp>
          <boolProp name="AuthManager.controlledByThreadGroup">false</boolProp>
        </AuthManager><hashTree/>"#
    )
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")))
}

#[test]
fn the_authorization_manager_sends_the_first_matching_credentials_and_never_shows_them() {
    let server = TestServer::builder().record_all().default_route(Route::ok()).start();
    let other = TestServer::builder().record_all().default_route(Route::ok()).start();
    let pid = std::process::id();
    let (alice_pw, bob_pw) = (format!("s3cr3t-alice-{pid}"), format!("s3cr3t-bob-{pid}"));
    let base = format!("http://127.0.0.1:{}", server.addr().port());
    // JMeter takes the first entry, in order, whose base URL starts the request's URL (not the
    // longest): /private/deeper/x gets alice, not carol.
    let rows = [
        auth_row(&format!("{base}/private"), "alice", &alice_pw, "BASIC"),
        auth_row(&format!("{base}/"), "bob", &bob_pw, "BASIC"),
        auth_row(&format!("{base}/private/deeper"), "carol", "never-sent", "BASIC"),
    ]
    .concat();
    let body = [
        DEFAULTS.to_string(),
        auth_manager(&rows),
        sampler("deep", "GET", "/private/deeper/x?q=1", "", false, ""),
        sampler("public", "GET", "/public", "", false, ""),
        get("elsewhere", &other.url("/x"), true),
    ]
    .concat();
    let run = TempRun::new("jmx-http-auth");
    let p = run.write("plan.jmx", jmx_plan(1, "2", &body));
    let port = format!("port={}", server.addr().port());
    let out = Stampede::new().arg("run").arg(&p).args(["-J", &port, "--out"]).arg(run.path()).run();
    out.assert_exit(0);
    let auth_of = |path: &str| -> Vec<Option<String>> {
        server.recorded(path).iter().map(|r| r.header("authorization").map(str::to_string)).collect()
    };
    assert_eq!(auth_of("/private/deeper/x"), vec![Some(basic("alice", &alice_pw)); 2]);
    assert_eq!(auth_of("/public"), vec![Some(basic("bob", &bob_pw)); 2]);
    assert!(other.recorded_all().iter().all(|r| r.header("authorization").is_none()), "no entry names that server");
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests() + other.requests());
    // The passwords, and the header that carries them, appear nowhere stampede writes or prints.
    let check = Stampede::new().arg("check").arg(&p).args(["-J", &port]).run();
    let mut seen = vec![
        ("run stdout".to_string(), out.stdout_str()),
        ("run stderr".to_string(), out.stderr_str()),
        ("check stdout".to_string(), check.stdout_str()),
        ("check stderr".to_string(), check.stderr_str()),
    ];
    crate::secrets::files_under(run.path(), &mut seen);
    for secret in [alice_pw.clone(), bob_pw.clone(), basic("alice", &alice_pw), basic("bob", &bob_pw)] {
        let secret = secret.trim_start_matches("Basic ");
        for (name, text) in &seen {
            assert!(!text.contains(secret), "{secret} leaked into {name}");
        }
    }
}

/// MD5 in hex, by the system's `md5sum` (a witness independent of stampede's own MD5).
fn md5sum(text: &str) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new("md5sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("md5sum");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string()
}

/// The value of `name` in a Digest `Authorization` header (quoted or not).
fn digest_param(header: &str, name: &str) -> Option<String> {
    header.trim_start_matches("Digest ").split(", ").find_map(|p| {
        let (k, v) = p.split_once('=')?;
        (k == name).then(|| v.trim_matches('"').to_string())
    })
}

#[test]
fn a_digest_entry_answers_the_challenge_within_one_sample() {
    let server = TestServer::builder()
        .record_all()
        .default_route(Route::handler(|r| match r.header("authorization") {
            Some(a) if a.starts_with("Digest ") => Reply::ok().body("welcome"),
            _ => Reply::status(401)
                .header("WWW-Authenticate", r#"Digest realm="witness", qop="auth", nonce="n0nce", opaque="op4que""#),
        }))
        .start();
    let password = format!("s3cr3t-dave-{}", std::process::id());
    let base = format!("http://127.0.0.1:{}/", server.addr().port());
    let rows = auth_row(&base, "dave", &password, "DIGEST");
    let body = [DEFAULTS.to_string(), auth_manager(&rows), sampler("digest", "GET", "/digest", "", false, "")].concat();
    let run = run_jmx("jmx-http-digest", jmx_plan(2, "3", &body), server.addr().port());
    // HttpClient 4 sends the request, reads the 401 and sends it again with its answer: the
    // server sees two requests for each sample, and the sample is the answered one.
    assert_samples(&run, "digest", 6, 0);
    assert_eq!(server.requests(), 12);
    let got = server.recorded_all();
    let answers: Vec<&str> = got.iter().filter_map(|r| r.header("authorization")).collect();
    assert_eq!(answers.len(), 6, "every second request answers: {got:#?}");
    let ha1 = md5sum(&format!("dave:witness:{password}"));
    let ha2 = md5sum("GET:/digest");
    for a in answers {
        let p = |n| digest_param(a, n).unwrap_or_else(|| panic!("no {n} in {a}"));
        assert_eq!(
            (p("username"), p("realm"), p("nonce"), p("uri")),
            ("dave".into(), "witness".into(), "n0nce".into(), "/digest".into())
        );
        assert_eq!(
            (p("qop"), p("nc"), p("opaque"), p("algorithm")),
            ("auth".into(), "00000001".into(), "op4que".into(), "MD5".into())
        );
        let expected = md5sum(&format!("{ha1}:n0nce:00000001:{}:auth:{ha2}", p("cnonce")));
        assert_eq!(p("response"), expected, "{a}");
        assert!(!a.contains(&password));
    }
}

#[test]
fn kerberos_is_refused_by_name() {
    let run = TempRun::new("jmx-http-auth-refused");
    let rows = auth_row("http://127.0.0.1:9/", "u", "pw", "KERBEROS");
    let body = [DEFAULTS.to_string(), auth_manager(&rows), sampler("s", "GET", "/", "", false, "")].concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let out = Stampede::new().arg("run").arg(&p).args(["--out"]).arg(run.path()).run();
    out.assert_exit(2);
    assert!(out.stderr_str().contains("KERBEROS authentication is not supported"), "{}", out.stderr_str());
}

// ---- DNS Cache Manager ---------------------------------------------------------------------

#[test]
fn the_dns_cache_manager_s_hosts_table_names_the_address() {
    let server = TestServer::builder().record_all().default_route(Route::ok()).start();
    let port = server.addr().port();
    let dns = r#"<DNSCacheManager guiclass="DNSCachePanel" testclass="DNSCacheManager" testname="DNS Cache Manager" enabled="true">
          <collectionProp name="DNSCacheManager.servers"/>
          <collectionProp name="DNSCacheManager.hosts">
            <elementProp name="stampede-witness.invalid" elementType="StaticHost">
              <stringProp name="StaticHost.Name">stampede-witness.invalid</stringProp>
              <stringProp name="StaticHost.Address">127.0.0.1</stringProp>
            </elementProp>
          </collectionProp>
          <boolProp name="DNSCacheManager.clearEachIteration">true</boolProp>
          <boolProp name="DNSCacheManager.isCustomResolver">false</boolProp>
        </DNSCacheManager><hashTree/>"#;
    let url = format!("http://stampede-witness.invalid:{port}/dns");
    let body = [dns.to_string(), get("dns", &url, true)].concat();
    let run = run_jmx("jmx-http-dns", jmx_plan(2, "3", &body), port);
    let got = server.recorded("/dns");
    assert_eq!(got.len(), 6);
    let host = format!("stampede-witness.invalid:{port}");
    assert!(got.iter().all(|r| r.header("host") == Some(host.as_str())), "{got:#?}");
    assert_samples(&run, "dns", 6, 0);
    assert_eq!(server.connections(), 2, "resolving again does not close the connection");
}

// ---- Cookie Manager --------------------------------------------------------------------------

fn cookie_manager(policy: &str, clear: bool, cookies: &str) -> String {
    format!(
        r#"<CookieManager guiclass="CookiePanel" testclass="CookieManager" testname="HTTP Cookie Manager" enabled="true">
          <collectionProp name="CookieManager.cookies">{cookies}</collectionProp>
          <boolProp name="CookieManager.clearEachIteration">{clear}</boolProp>
          <stringProp name="CookieManager.policy">{policy}</stringProp>
        </CookieManager><hashTree/>"#
    )
}

fn user_cookie(name: &str, value: &str, domain: &str) -> String {
    format!(
        r#"<elementProp name="{name}" elementType="Cookie" testname="{name}">
              <stringProp name="Cookie.value">{value}</stringProp>
              <stringProp name="Cookie.domain">{domain}</stringProp>
              <stringProp name="Cookie.path">/</stringProp>
              <boolProp name="Cookie.secure">false</boolProp>
              <longProp name="Cookie.expires">0</longProp>
              <boolProp name="Cookie.path_specified">true</boolProp>
              <boolProp name="Cookie.domain_specified">true</boolProp>
            </elementProp>"#
    )
}

/// Three iterations of one user: `/page` (recorded), then `/login`, which sets `set_cookie`.
/// Returns the `SID` and `pref` cookies `/page` received, in order.
fn cookie_run(name: &str, manager: &str, set_cookie: &'static str) -> Vec<(Option<String>, Option<String>)> {
    let server = TestServer::builder()
        .route("/page", Route::ok().record())
        .route("/login", Route::ok().header("Set-Cookie", set_cookie))
        .start();
    let body = [
        DEFAULTS.to_string(),
        manager.to_string(),
        sampler("page", "GET", "/page", "", false, ""),
        sampler("login", "GET", "/login", "", false, ""),
    ]
    .concat();
    let run = run_jmx(name, jmx_plan(1, "3", &body), server.addr().port());
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    server.recorded("/page").iter().map(|r| (r.cookie("SID"), r.cookie("pref"))).collect()
}

#[test]
fn cookie_manager_clear_each_iteration_and_policies() {
    let sid = || Some("abc".to_string());
    let kept = cookie_run("jmx-http-cookies-kept", &cookie_manager("standard", false, ""), "SID=abc; Path=/");
    assert_eq!(kept, [(None, None), (sid(), None), (sid(), None)]);
    let cleared = cookie_run("jmx-http-cookies-cleared", &cookie_manager("standard", true, ""), "SID=abc; Path=/");
    assert_eq!(cleared, vec![(None, None); 3], "the jar starts empty each iteration");
    let ignored =
        cookie_run("jmx-http-cookies-ignored", &cookie_manager("ignoreCookies", false, ""), "SID=abc; Path=/");
    assert_eq!(ignored, vec![(None, None); 3]);
    // A Max-Age that is not a number: the lax standard policy ignores it and keeps the cookie,
    // standard-strict refuses the cookie.
    let lax = cookie_run("jmx-http-cookies-lax", &cookie_manager("standard", false, ""), "SID=abc; Max-Age=soon");
    assert_eq!(lax[2], (sid(), None));
    let strict =
        cookie_run("jmx-http-cookies-strict", &cookie_manager("standard-strict", false, ""), "SID=abc; Max-Age=soon");
    assert_eq!(strict, vec![(None, None); 3]);
}

#[test]
fn the_cookie_manager_s_own_cookies_follow_domain_rules_and_survive_clearing() {
    let own = [user_cookie("pref", "dark", "127.0.0.1"), user_cookie("SID", "elsewhere", "other.example")].concat();
    let got = cookie_run("jmx-http-cookies-own", &cookie_manager("standard", true, &own), "SID=abc; Path=/");
    let dark = || Some("dark".to_string());
    assert_eq!(got, [(None, dark()), (None, dark()), (None, dark())]);
}

#[test]
fn a_cookie_manager_serves_only_the_samplers_in_its_scope() {
    // The manager is a child of `login` only: `login` stores the cookie, `page` (outside every
    // Cookie Manager) neither sends it nor stores one, as JMeter's samplers without a manager.
    let server = TestServer::builder()
        .route("/page", Route::ok().header("Set-Cookie", "pref=dark; Path=/").record())
        .route("/login", Route::ok().header("Set-Cookie", "SID=abc; Path=/").record())
        .start();
    let body = [
        DEFAULTS.to_string(),
        sampler("login", "GET", "/login", "", false, &cookie_manager("standard", false, "")),
        sampler("page", "GET", "/page", "", false, ""),
    ]
    .concat();
    let run = run_jmx("jmx-http-cookies-scope", jmx_plan(1, "3", &body), server.addr().port());
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    let page: Vec<_> = server.recorded("/page").iter().map(|r| r.header("cookie").map(str::to_string)).collect();
    assert_eq!(page, vec![None; 3], "no Cookie Manager in scope: no Cookie header");
    let login: Vec<_> = server.recorded("/login").iter().map(|r| r.header("cookie").map(str::to_string)).collect();
    assert_eq!(login, [None, Some("SID=abc".to_string()), Some("SID=abc".to_string())], "`pref` was never stored");
}

#[test]
fn each_thread_group_s_cookie_manager_is_its_own() {
    // TestCookieManager.jmx: two groups each define the same cookies in a manager of their
    // own (each sent once, not once per manager in the plan); one clears its jar each
    // iteration, the other keeps the cookie its server set; a third group has no manager.
    let server = TestServer::builder()
        .route("/a", Route::ok().header("Set-Cookie", "SID=a; Path=/").record())
        .route("/b", Route::ok().header("Set-Cookie", "SID=b; Path=/").record())
        .route("/c", Route::ok().record())
        .start();
    let own = user_cookie("pref", "dark", "127.0.0.1");
    let group = |name: &str, manager: String| {
        crate::jmx::thread_group(
            "ThreadGroup",
            name,
            1,
            3,
            &[manager, sampler(name, "GET", &format!("/{name}"), "", false, "")].concat(),
        )
    };
    let groups = [
        group("a", cookie_manager("standard", true, &own)),
        group("b", cookie_manager("standard", false, &own)),
        group("c", String::new()),
    ];
    let plan = crate::jmx::plan_with_defaults("Cookies", server.addr().port(), &groups.concat());
    let run = TempRun::new("jmx-http-cookies-per-group");
    let p = run.write("plan.jmx", plan);
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    let cookies = |path: &str| -> Vec<Option<String>> {
        server.recorded(path).iter().map(|r| r.header("cookie").map(str::to_string)).collect()
    };
    let s = |v: &str| Some(v.to_string());
    assert_eq!(cookies("/a"), [s("pref=dark"), s("pref=dark"), s("pref=dark")], "cleared each iteration");
    assert_eq!(cookies("/b"), [s("pref=dark"), s("pref=dark; SID=b"), s("pref=dark; SID=b")], "kept");
    assert_eq!(cookies("/c"), [None, None, None], "no manager in this group");
}

// ---- Connection header -------------------------------------------------------------------------

#[test]
fn jmx_requests_say_connection_keep_alive_as_jmeter_s_do() {
    // HTTPHC4Impl sets `Connection: keep-alive` on every request that keeps its connection; a
    // Response Assertion on the request headers sees it (TestHeaderManager.jmx).
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let check = r#"<ResponseAssertion guiclass="AssertionGui" testclass="ResponseAssertion" testname="Says keep-alive" enabled="true">
          <collectionProp name="Asserion.test_strings"><stringProp name="1">Connection: keep-alive</stringProp></collectionProp>
          <stringProp name="Assertion.test_field">Assertion.request_headers</stringProp>
          <boolProp name="Assertion.assume_success">false</boolProp>
          <intProp name="Assertion.test_type">16</intProp>
        </ResponseAssertion><hashTree/>"#;
    let body = [DEFAULTS.to_string(), sampler("kept", "GET", "/k", "", false, check)].concat();
    let run = run_jmx("jmx-http-connection-keep-alive", jmx_plan(1, "2", &body), server.addr().port());
    assert_samples(&run, "kept", 2, 0);
    let got = server.recorded_all();
    assert_eq!(got.len(), 2);
    assert!(got.iter().all(|r| r.header("connection") == Some("keep-alive")), "{got:#?}");
}

/// A sampler using JMeter's Java implementation (`HTTPJavaImpl`, over `HttpURLConnection`) sends
/// the JDK's default `Accept` header when the plan gives none; HttpClient4 sends none.
#[test]
fn the_java_implementation_sends_its_default_accept_header() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-java-accept");
    let java = |name: &str, path: &str, children: &str| {
        sampler(name, "GET", path, "", false, children).replacen(
            "<boolProp name=\"HTTPSampler.use_keepalive\">true</boolProp>",
            "<boolProp name=\"HTTPSampler.use_keepalive\">true</boolProp><stringProp name=\"HTTPSampler.implementation\">Java</stringProp>",
            1,
        )
    };
    let own_accept = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="H" enabled="true">
          <collectionProp name="HeaderManager.headers"><elementProp name="" elementType="Header">
            <stringProp name="Header.name">Accept</stringProp><stringProp name="Header.value">application/json</stringProp>
          </elementProp></collectionProp></HeaderManager><hashTree/>"#;
    let body = [
        DEFAULTS.to_string(),
        java("java", "/java", ""),
        java("java-own", "/own", own_accept),
        sampler("client4", "GET", "/client4", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    let accept = |path: &str| server.recorded(path)[0].header("accept").map(str::to_string);
    assert_eq!(accept("/java").as_deref(), Some("text/html, image/gif, image/jpeg, */*; q=0.2"));
    assert_eq!(accept("/own").as_deref(), Some("application/json"));
    assert_eq!(accept("/client4"), None);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
}

/// JMeter 5.6.3 (`small-slashes.jmx`): HttpClient 4 sends each run of `/` in the path as one
/// (not in the query; dot segments stay), the Java implementation sends the path as it is.
#[test]
fn httpclient_4_collapses_slashes_in_paths_and_the_java_implementation_does_not() {
    let server = witness();
    let run = TempRun::new("small-slashes");
    let java = r#"<stringProp name="HTTPSampler.implementation">Java</stringProp>"#;
    let samplers = [
        http("a", "GET", "//a//b", "", ""),
        http("b", "GET", "/a//b/?q=//x", "", ""),
        http("c", "GET", "/d/./e/../f//", "", ""),
        http("d", "GET", &format!("http://127.0.0.1:{}//x//y", server.addr().port()), "", ""),
        http("e", "GET", "//j//k", java, ""),
    ];
    let got = run_plan(&server, &run, &plan(server.addr().port(), &group("g", 1, 1, None, &samplers.concat())), &[]);
    assert_eq!(targets(&got), ["/a/b", "/a/b/?q=//x", "/d/./e/../f/", "/x/y", "//j//k"]);
}

/// `-J httpclient.socket.http.cps=40000`: each connection reads and writes at most 40,000
/// bytes a second, as JMeter's SlowSocket paces them (the first read of a response waits for
/// HttpClient's 8 KiB buffer, later ones for what they read), so 4 responses of 20,000 bytes
/// take at least 2 s; every one is served and counted once.
#[test]
fn bandwidth_from_the_command_line_paces_each_response() {
    let server = TestServer::builder().route("/big", Route::ok().body(vec![b'x'; 20_000])).start();
    let run = TempRun::new("misc-cps-j");
    let took = run_timed(&run, paced_plan(&server, "", 4), &["-J", "httpclient.socket.http.cps=40000"]);
    assert_paced(&server, &run, 4, took, Duration::from_millis(2000));
}

/// A plan of `before` (a setUp group) and a user getting `/big` `loops` times.
fn paced_plan(server: &TestServer, before: &str, loops: u32) -> String {
    let main = group_counter(1, loops, &http_counter("big", "", "", "/big", "GET", ""));
    test_plan(
        "Slow",
        "",
        &[http_defaults("127.0.0.1", &server.addr().port().to_string()), before.into(), main].concat(),
    )
}

/// `n` responses of `/big` served and sampled, in no less than `at_least` (and in bounded time).
fn assert_paced(server: &TestServer, run: &TempRun, n: u64, took: Duration, at_least: Duration) {
    assert_eq!(server.requests_to("/big"), n);
    assert_eq!(uint(&label(&run.summary(), "big"), "samples"), n);
    assert!(took >= at_least, "{n} paced responses took {took:?}, under {at_least:?}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// A setUp thread group's script sets the property as JMeter's SlowCharsFeature.jmx does (that
/// plan was refused): the main group's connections are paced, the setUp group having sent
/// nothing over HTTP before. Each response's first read waits for 8 KiB: 2 x 512 ms at least.
#[test]
fn bandwidth_set_by_a_setup_script_paces_the_main_group() {
    let server = TestServer::builder().route("/big", Route::ok().body(vec![b'x'; 8000])).start();
    let run = TempRun::new("misc-cps-setup");
    let script = "import org.apache.jmeter.util.JMeterUtils;\nJMeterUtils.setProperty(\"httpclient.socket.http.cps\",\"16000\");";
    let setup = thread_group("SetupThreadGroup", "setup", "1", "1", "", &jsr223_sampler("set cps", script));
    let took = run_timed(&run, paced_plan(&server, &setup, 2), &[]);
    assert_paced(&server, &run, 2, took, Duration::from_millis(1000));
}

/// A Sample Timeout (JMeter's SampleMonitor) interrupts an HTTP sample that runs longer than its
/// timeout, wherever it stands in the thread group: the sample fails after about the timeout
/// with JMeter's code and message (`java.net.SocketException`, `Socket closed`), the user goes
/// on; a sample within the timeout is untouched. The server saw each request once.
#[test]
fn a_sample_timeout_interrupts_slow_http_samples() {
    let server = TestServer::builder()
        .route("/slow", Route::ok().delay(Duration::from_millis(3000)))
        .route("/fast", Route::ok())
        .start();
    let run = TempRun::new("misc-sample-timeout");
    let timeout = element("SampleTimeout", "st", &[("InterruptTimer.timeout", "400")], "");
    let body =
        [http_counter("slow", "", "", "/slow", "GET", &timeout), http_counter("fast", "", "", "/fast", "GET", "")]
            .concat();
    let port = server.addr().port().to_string();
    let plan = test_plan("Timeout", "", &[http_defaults("127.0.0.1", &port), group_counter(1, 2, &body)].concat());
    let file = run.write("plan.jmx", plan);
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(&run, &file, None);
    let start = Instant::now();
    cmd.run().assert_exit(0);
    let took = start.elapsed();
    assert_eq!(server.requests_to("/slow"), 2);
    assert_eq!(server.requests_to("/fast"), 2);
    let summary = run.summary();
    assert_eq!(uint(&label(&summary, "slow"), "samples"), 2);
    assert_eq!(uint(&label(&summary, "slow"), "errors"), 2);
    assert_eq!(uint(&label(&summary, "fast"), "errors"), 0);
    assert!(took < Duration::from_millis(5500), "two 3 s requests interrupted at 400 ms took {took:?}");
    let jtl = std::fs::read_to_string(jtl).unwrap();
    let slow: Vec<&str> = jtl.lines().filter(|l| l.contains(",slow,")).collect();
    assert_eq!(slow.len(), 2, "{jtl}");
    for row in slow {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells[3], "Non HTTP response code: java.net.SocketException", "{row}");
        assert_eq!(cells[4], "Non HTTP response message: Socket closed", "{row}");
        let elapsed: u64 = cells[1].parse().unwrap();
        assert!((390..2000).contains(&elapsed), "{row}");
    }
}

/// JTL rows of `name` that failed with `code` and `message` (JMeter's "Non HTTP" pair).
fn failed_rows(rows: &str, name: &str, class: &str, message: &str) -> usize {
    let want = format!(",{name},Non HTTP response code: {class},Non HTTP response message: {message},");
    rows.lines().filter(|l| l.contains(&want) && l.contains(",false,")).count()
}

/// Row 1: a host left as an unfilled `[placeholder]` (in the server name, in a full URL in the
/// path, or filled so by a variable while running) loads; each of its samples fails unsent
/// with java.net's message, as in JMeter 5.6.3, and the user goes on to the next sample.
#[test]
fn an_unfilled_placeholder_host_fails_each_sample_and_the_user_goes_on() {
    let server = TestServer::builder().route("/ok", Route::ok().body("host=[Foo]")).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-placeholder-host");
    let extract = r#"<RegexExtractor testclass="RegexExtractor" testname="host" enabled="true">
        <stringProp name="RegexExtractor.refname">h</stringProp>
        <stringProp name="RegexExtractor.regex">host=(.*)</stringProp>
        <stringProp name="RegexExtractor.template">$1$</stringProp>
        <stringProp name="RegexExtractor.match_number">1</stringProp>
      </RegexExtractor><hashTree/>"#;
    let body = [
        sampler_placeholder("domain", "[HostName]", "", "/a", ""),
        sampler_placeholder("full", "", "", "https://[HostName]/p?x=1", ""),
        sampler_placeholder("ok", "127.0.0.1", &port, "/ok", extract),
        sampler_placeholder("late", "${h}", &port, "/v", ""),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    assert!(check.stdout_str().contains("[WARNING] each sample fails unsent"), "{}", check.stdout_str());
    let rows = run_jtl(&run, &file);
    assert_eq!(server.requests(), 3, "only `ok` reaches the server");
    assert_eq!(server.requests_to("/ok"), 3);
    let uri = "java.net.URISyntaxException";
    assert_eq!(
        failed_rows(&rows, "domain", uri, "Malformed IPv6 address at index 8: http://[HostName]/a"),
        3,
        "{rows}"
    );
    assert_eq!(failed_rows(&rows, "full", "java.net.MalformedURLException", "Invalid host: [HostName]"), 3, "{rows}");
    let late = format!("Malformed IPv6 address at index 8: http://[Foo]:{port}/v");
    assert_eq!(failed_rows(&rows, "late", uri, &late), 3, "{rows}");
    let s = run.summary();
    assert_eq!(uint(&label(&s, "ok"), "errors"), 0);
    assert_eq!(uint(&label(&s, "late"), "errors"), 3);
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
}
