//! A real headless Chromium, driven over the Chrome DevTools Protocol, to check what a page does
//! when a browser loads it: console errors, exceptions, requests, how it looks and prints.
//!
//! Transport: `--remote-debugging-pipe`. The browser reads NUL-terminated JSON messages on its
//! file descriptor 3 and writes NUL-terminated JSON messages on its file descriptor 4, so plain
//! pipes and serde_json are the whole client: no websocket stack, no port, no new crate.
//!
//! The browser is found as `test.sh` finds it: `$CHROMIUM`, else `chromium`, `chromium-browser`
//! or `google-chrome` on `PATH`. Without one, [`Browser::launch`] returns `None` (the test skips,
//! loudly) unless `CI` is set, where it panics: a missing browser must fail CI, never pass it.
//!
//! Every wait has a timeout (a reader thread feeds a channel), so no test can hang on the
//! browser; the browser is closed (killed if need be) and its profile removed on drop.
//!
//! A `Browser` holds [`super::exclusive`] while it lives: starting Chromium loads a 2-core
//! machine, which timing-sensitive tests must not see. So a test holding `exclusive()` must not
//! launch one (the lock is not reentrant).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde_json::{json, Value};

/// How long a protocol call (or the browser's start) may take before the test fails.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a page may take to fire its load event.
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);
/// After the load event: time for late console messages, timers and failed requests to arrive.
const SETTLE: Duration = Duration::from_millis(300);
/// The window: a laptop screen.
const WINDOW: (u32, u32) = (1366, 900);

/// The names looked up on `PATH` when `CHROMIUM` is not set (the same list as `test.sh`).
const NAMES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// What the reader thread passes on in place of a message that is not JSON.
const BAD_MESSAGE: &str = "stampede.badMessage";

/// Whether the environment says this is CI (`CI` set to anything but empty, `0` or `false`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// `name` if it contains a slash, else the first executable `name` on `PATH`.
fn which(name: &str) -> Option<PathBuf> {
    let executable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if name.contains('/') {
        let p = PathBuf::from(name);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| executable(p))
}

/// The browser to run: `Ok(None)` when there is none, `Err` when `CHROMIUM` names a missing one.
fn find() -> Result<Option<PathBuf>, String> {
    match std::env::var("CHROMIUM") {
        Ok(name) if !name.is_empty() => match which(&name) {
            Some(p) => Ok(Some(p)),
            None => Err(format!("CHROMIUM={name} is not an executable; fix or unset it")),
        },
        _ => Ok(NAMES.iter().find_map(|n| which(n))),
    }
}

/// A fresh, empty directory under the system temp dir (the browser profile).
fn temp_dir() -> PathBuf {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    loop {
        let seq = SEQ.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("stampede-chromium-{}-{seq}-{nanos:09}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return dir,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => panic!("cannot create {}: {e}", dir.display()),
        }
    }
}

/// A pipe whose two ends are closed on exec (the child gets copies at 3 and 4, see `launch`).
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array we pass, which has room for two.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", io::Error::last_os_error());
    // SAFETY: both descriptors were just created by pipe2 and are owned by nothing else.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The protocol connection, shared by the browser and its pages.
struct Conn {
    /// The browser's fd 3.
    to_browser: File,
    /// Messages from the browser's fd 4, parsed by the reader thread.
    from_browser: Receiver<Value>,
    next_id: u64,
    /// Events received so far, by session id ("" for the browser's own).
    events: HashMap<String, Vec<Value>>,
    /// What the browser printed on stderr, for failure messages.
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Conn {
    /// Sends a command without waiting for its answer; returns its id.
    fn try_send(&mut self, session: Option<&str>, method: &str, params: Value) -> io::Result<u64> {
        self.next_id += 1;
        let mut message = json!({ "id": self.next_id, "method": method, "params": params });
        if let Some(s) = session {
            message["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&message).expect("a JSON value serializes");
        bytes.push(0);
        self.to_browser.write_all(&bytes)?;
        Ok(self.next_id)
    }

    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> u64 {
        self.try_send(session, method, params)
            .unwrap_or_else(|e| panic!("sending {method} to the browser: {e}{}", self.stderr_tail()))
    }

    /// Files an event under its session; returns a response (a message with an id) as is.
    fn file(&mut self, message: Value) -> Option<Value> {
        if message.get("id").is_some() {
            return Some(message);
        }
        if message["method"] == BAD_MESSAGE {
            panic!("the browser sent a message that is not JSON: {}", message["params"]);
        }
        let session = message.get("sessionId").and_then(Value::as_str).unwrap_or_default().to_owned();
        self.events.entry(session).or_default().push(message);
        None
    }

    /// Waits for the next message until `deadline`: `None` when the deadline passed. Panics if
    /// the browser is gone.
    fn next(&mut self, deadline: Instant, waiting_for: &str) -> Option<Value> {
        match self.from_browser.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(message) => Some(message),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the browser closed its pipe while waiting for {waiting_for}{}", self.stderr_tail())
            }
        }
    }

    /// Files the events that arrived already, without waiting.
    fn drain(&mut self) {
        while let Ok(message) = self.from_browser.try_recv() {
            self.file(message);
        }
    }

    /// Files events until `deadline`.
    fn pump_until(&mut self, deadline: Instant) {
        while let Some(message) = self.next(deadline, "events") {
            self.file(message);
        }
    }

    /// Sends a command and returns its result; panics on an error response or a timeout.
    fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.send(session, method, params);
        let deadline = Instant::now() + CALL_TIMEOUT;
        loop {
            let Some(message) = self.next(deadline, method) else {
                panic!("no answer to {method} within {CALL_TIMEOUT:?}{}", self.stderr_tail());
            };
            // Responses to other ids (a page closed without waiting) are dropped.
            match self.file(message) {
                Some(response) if response["id"] == id => {
                    if let Some(error) = response.get("error") {
                        panic!("{method} failed: {error}");
                    }
                    return response.get("result").cloned().unwrap_or(Value::Null);
                }
                _ => {}
            }
        }
    }

    fn events(&self, session: &str) -> &[Value] {
        self.events.get(session).map_or(&[], Vec::as_slice)
    }

    fn stderr_tail(&self) -> String {
        let stderr = lock(&self.stderr);
        let tail = &stderr[stderr.len().saturating_sub(4000)..];
        format!("\n--- browser stderr (tail) ---\n{}", String::from_utf8_lossy(tail))
    }
}

/// A headless Chromium. Closed (killed if it does not close) and its profile removed on drop.
pub struct Browser {
    conn: Rc<RefCell<Conn>>,
    child: Child,
    profile: PathBuf,
    /// "Chromium/156.0.…", from `Browser.getVersion`.
    pub product: String,
    _exclusive: MutexGuard<'static, ()>,
}

impl Browser {
    /// The browser, or `None` when it is missing and `CI` is not set (then prints a loud SKIPPED
    /// message to stderr); panics when it is missing and `CI` is set, and when `CHROMIUM` names
    /// a program that is not there: a missing browser must fail CI, never skip silently.
    pub fn launch() -> Option<Browser> {
        let program = match find() {
            Ok(Some(p)) => p,
            Err(e) => panic!("{e}"),
            Ok(None) if in_ci() => panic!(
                "no Chromium ({} on PATH, or CHROMIUM=<path>) and CI is set: the HTML report must be \
                 checked in a browser on CI; run ./test.sh, which installs it",
                NAMES.join(", ")
            ),
            Ok(None) => {
                // Straight to stderr, not eprintln!: the test harness would hide that for a test
                // that passes, and a skip must be seen.
                let message = format!(
                    "\n*** SKIPPED: no Chromium ({} on PATH, or CHROMIUM=<path>): this browser test \
                     checks nothing. ./test.sh installs it. ***\n\n",
                    NAMES.join(", ")
                );
                let _ = io::stderr().lock().write_all(message.as_bytes());
                return None;
            }
        };
        let exclusive = super::exclusive();
        let profile = temp_dir();

        // Our ends: we write what the browser reads on fd 3, and read what it writes on fd 4.
        let (browser_reads, we_write) = pipe();
        let (we_read, browser_writes) = pipe();
        let (r, w) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());

        let mut command = Command::new(&program);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                // No internet here: without these, Chromium stalls on connection attempts.
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--mute-audio",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--window-size={},{}", WINDOW.0, WINDOW.1))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        // SAFETY: between fork and exec the closure only calls fcntl and dup2, which are
        // async-signal-safe, on descriptors that stay open until spawn returns.
        unsafe {
            command.pre_exec(move || {
                // First copy both ends above 4, so that neither dup2 below can clobber the other
                // end (either could be 3 or 4) and dup2 never gets equal fds (which would keep
                // the close-on-exec flag). dup2 clears close-on-exec on 3 and 4; the copies at
                // 10+ are close-on-exec and vanish at exec.
                let r = libc::fcntl(r, libc::F_DUPFD_CLOEXEC, 10);
                let w = libc::fcntl(w, libc::F_DUPFD_CLOEXEC, 10);
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        // The browser's ends now live in the browser only: closing ours lets us see EOF when it exits.
        drop((browser_reads, browser_writes));

        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut pipe) = child.stderr.take() {
            let sink = Arc::clone(&stderr);
            thread::spawn(move || {
                let mut chunk = [0u8; 8192];
                while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                    lock(&sink).extend_from_slice(&chunk[..n]);
                }
            });
        }
        let (tx, rx) = mpsc::channel();
        let mut reader = BufReader::new(File::from(we_read));
        thread::spawn(move || {
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                let message = serde_json::from_slice(&buf)
                    .unwrap_or_else(|e| json!({ "method": BAD_MESSAGE, "params": e.to_string() }));
                if tx.send(message).is_err() {
                    return;
                }
            }
        });

        let conn =
            Conn { to_browser: File::from(we_write), from_browser: rx, next_id: 0, events: HashMap::new(), stderr };
        let mut browser = Browser {
            conn: Rc::new(RefCell::new(conn)),
            child,
            profile,
            product: String::new(),
            _exclusive: exclusive,
        };
        // The first answer also says the browser is up and speaks the protocol.
        let version = browser.conn.borrow_mut().call(None, "Browser.getVersion", json!({}));
        browser.product = version["product"].as_str().unwrap_or_default().to_owned();
        Some(browser)
    }

    /// Loads a local file (a `file://` URL) in a new tab, waits for its load event (at most 30 s)
    /// and a short settle, and returns the page with what happened so far.
    pub fn open(&mut self, path: &Path) -> Page {
        let path = fs::canonicalize(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
        let url = url::Url::from_file_path(&path).expect("an absolute path is a file URL").to_string();
        let mut conn = self.conn.borrow_mut();
        let target = conn.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"].as_str().expect("Target.createTarget returns a targetId").to_owned();
        let attached = conn.call(None, "Target.attachToTarget", json!({ "targetId": target_id, "flatten": true }));
        let session = attached["sessionId"].as_str().expect("Target.attachToTarget returns a sessionId").to_owned();
        let s = Some(session.as_str());
        for domain in ["Runtime", "Log", "Network", "Page"] {
            conn.call(s, &format!("{domain}.enable"), json!({}));
        }
        // Only a load event after this point is the page's (about:blank's came before).
        conn.drain();
        let seen = conn.events(&session).len();
        let navigated = conn.call(s, "Page.navigate", json!({ "url": url }));
        if let Some(error) = navigated.get("errorText") {
            panic!("cannot load {url}: {error}");
        }
        let deadline = Instant::now() + LOAD_TIMEOUT;
        while !conn.events(&session)[seen..].iter().any(|e| e["method"] == "Page.loadEventFired") {
            match conn.next(deadline, "Page.loadEventFired") {
                Some(message) => {
                    conn.file(message);
                }
                None => panic!("{url} did not fire its load event within {LOAD_TIMEOUT:?}{}", conn.stderr_tail()),
            }
        }
        conn.pump_until(Instant::now() + SETTLE);
        drop(conn);
        Page { conn: Rc::clone(&self.conn), target_id, session, url }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ask first (a clean exit), then kill; the profile can only go once the browser is gone.
        if let Ok(mut conn) = self.conn.try_borrow_mut() {
            let _ = conn.try_send(None, "Browser.close", json!({}));
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = fs::remove_dir_all(&self.profile);
    }
}

/// A tab that loaded a file, from [`Browser::open`]. Events keep being collected during later
/// calls ([`Page::eval`] and the rest), and the accessors include them. Closed on drop.
pub struct Page {
    conn: Rc<RefCell<Conn>>,
    target_id: String,
    session: String,
    /// The `file://` URL loaded.
    pub url: String,
}

impl Page {
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.conn.borrow_mut().call(Some(&self.session), method, params)
    }

    /// The events of this page received so far.
    fn with_events<T>(&self, f: impl FnOnce(&[Value]) -> T) -> T {
        let mut conn = self.conn.borrow_mut();
        conn.drain();
        f(conn.events(&self.session))
    }

    /// `console.error`/`console.warn`/`console.assert` messages, uncaught exceptions, and
    /// browser log errors and warnings (a resource that failed to load, a CSP violation…), in
    /// the order they arrived. Empty for a page that works cleanly.
    pub fn errors(&self) -> Vec<String> {
        self.with_events(|events| events.iter().filter_map(describe_error).collect())
    }

    /// Every URL the page requested other than its own file, in order (a self-contained page
    /// requests none; `data:` URLs count, as the browser reports them).
    pub fn requests(&self) -> Vec<String> {
        self.with_events(|events| {
            events
                .iter()
                .filter(|e| e["method"] == "Network.requestWillBeSent")
                .filter_map(|e| e["params"]["request"]["url"].as_str())
                .filter(|u| *u != self.url)
                .map(str::to_owned)
                .collect()
        })
    }

    /// Evaluates a JavaScript expression in the page (awaiting a promise) and returns its value
    /// (`null` for `undefined`); panics if it throws.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call("Runtime.evaluate", json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }));
        if let Some(details) = result.get("exceptionDetails") {
            let text = details["exception"]["description"].as_str().or(details["text"].as_str()).unwrap_or("?");
            panic!("{expression} threw: {text}");
        }
        result["result"].get("value").cloned().unwrap_or(Value::Null)
    }

    /// A PNG screenshot of the whole page (beyond the window), written to `path`.
    pub fn screenshot(&mut self, path: &Path) {
        let metrics = self.call("Page.getLayoutMetrics", json!({}));
        let size = &metrics["cssContentSize"];
        let (width, height) = (size["width"].as_f64().unwrap_or(0.0), size["height"].as_f64().unwrap_or(0.0));
        let shot = self.call(
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": true,
                "clip": { "x": 0, "y": 0, "width": width.max(1.0), "height": height.max(1.0), "scale": 1 },
            }),
        );
        let png = decode(&shot["data"], "Page.captureScreenshot");
        fs::write(path, png).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }

    /// The page as printed (`Page.printToPDF`, backgrounds included): the PDF's bytes.
    pub fn pdf(&mut self) -> Vec<u8> {
        let printed = self.call("Page.printToPDF", json!({ "printBackground": true }));
        decode(&printed["data"], "Page.printToPDF")
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        // Not waited for: the answer, if any, is dropped by the next call.
        if let Ok(mut conn) = self.conn.try_borrow_mut() {
            let _ = conn.try_send(None, "Target.closeTarget", json!({ "targetId": self.target_id }));
        }
    }
}

fn decode(data: &Value, method: &str) -> Vec<u8> {
    let text = data.as_str().unwrap_or_else(|| panic!("{method} returned no data"));
    base64::engine::general_purpose::STANDARD.decode(text).unwrap_or_else(|e| panic!("{method}: bad base64: {e}"))
}

/// The error an event reports, if it reports one.
fn describe_error(event: &Value) -> Option<String> {
    let params = &event["params"];
    match event["method"].as_str()? {
        "Runtime.consoleAPICalled" => {
            let kind = params["type"].as_str()?;
            if !matches!(kind, "error" | "warning" | "assert") {
                return None;
            }
            let args: Vec<String> = params["args"]
                .as_array()
                .map(|args| {
                    args.iter()
                        .map(|a| match (&a["value"], a["description"].as_str(), a["unserializableValue"].as_str()) {
                            (Value::String(s), _, _) => s.clone(),
                            (Value::Null, Some(d), _) | (Value::Null, None, Some(d)) => d.to_owned(),
                            (v, _, _) => v.to_string(),
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(format!("console.{kind}: {}", args.join(" ")))
        }
        "Runtime.exceptionThrown" => {
            let details = &params["exceptionDetails"];
            let text = details["exception"]["description"].as_str().or(details["text"].as_str()).unwrap_or("?");
            let line = details["lineNumber"].as_u64().map_or(0, |l| l + 1);
            Some(format!("uncaught exception (line {line}): {text}"))
        }
        "Log.entryAdded" => {
            let entry = &params["entry"];
            let level = entry["level"].as_str()?;
            if !matches!(level, "error" | "warning") {
                return None;
            }
            let source = entry["source"].as_str().unwrap_or("?");
            let text = entry["text"].as_str().unwrap_or("?");
            match entry["url"].as_str() {
                Some(url) if !url.is_empty() => Some(format!("{source} {level}: {text} ({url})")),
                _ => Some(format!("{source} {level}: {text}")),
            }
        }
        _ => None,
    }
}
