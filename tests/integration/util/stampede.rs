//! Running the real `stampede` binary from tests, and reading the run directory it leaves.
//!
//! Every run has a hard timeout: a run that does not finish in time is killed and the test
//! panics with everything the process printed, so no test can hang.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};

/// What a finished process printed and how it exited: `std::process::Output`, with the
/// helpers of [`OutputExt`].
pub use std::process::Output;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The timeout of a run unless [`Stampede::timeout`] says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A command line for the `stampede` binary built for this test run.
#[derive(Clone, Debug)]
pub struct Stampede {
    program: PathBuf,
    args: Vec<OsString>,
    envs: Vec<(OsString, Option<OsString>)>,
    current_dir: Option<PathBuf>,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
}

impl Default for Stampede {
    fn default() -> Self {
        Stampede::new()
    }
}

impl Stampede {
    pub fn new() -> Stampede {
        Stampede::with_program(env!("CARGO_BIN_EXE_stampede"))
    }

    /// Another program with the same machinery (used to test these helpers themselves).
    pub fn with_program(program: impl Into<PathBuf>) -> Stampede {
        Stampede {
            program: program.into(),
            args: Vec::new(),
            envs: Vec::new(),
            current_dir: None,
            stdin: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Stampede {
        self.args.push(arg.into());
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Stampede
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Stampede {
        self.envs.push((key.into(), Some(value.into())));
        self
    }

    pub fn env_remove(mut self, key: impl Into<OsString>) -> Stampede {
        self.envs.push((key.into(), None));
        self
    }

    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Stampede {
        self.current_dir = Some(dir.into());
        self
    }

    /// Bytes fed to standard input (default: no input, stdin is `/dev/null`).
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Stampede {
        self.stdin = Some(input.into());
        self
    }

    /// Kill the process and fail the test if it runs longer than this (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Stampede {
        self.timeout = timeout;
        self
    }

    /// Runs to completion and returns what it printed. Panics if it times out.
    pub fn run(self) -> Output {
        let timeout = self.timeout;
        self.spawn().wait(timeout)
    }

    /// Starts the process; its output is collected in the background.
    pub fn spawn(self) -> Running {
        let mut command = Command::new(&self.program);
        command.args(&self.args).stdout(Stdio::piped()).stderr(Stdio::piped());
        command.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        for (key, value) in &self.envs {
            match value {
                Some(v) => command.env(key, v),
                None => command.env_remove(key),
            };
        }
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        // A test binary started as a background job of a non-interactive shell (as CI may start
        // it) has SIGINT ignored, and exec keeps an ignored signal ignored: a child that does not
        // install its own handler (`sh`, `sleep`) would shrug off `interrupt`. Every child starts
        // with SIGINT at its default, however the tests were launched.
        // SAFETY: between fork and exec the closure calls only sigaction, which is
        // async-signal-safe, with a struct on its own stack.
        unsafe {
            command.pre_exec(|| {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                if libc::sigaction(libc::SIGINT, &default, std::ptr::null_mut()) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let description = self.describe();
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start {description}: {e}"));

        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut threads = vec![
            collect(child.stdout.take().map(Pipe::Out), Arc::clone(&stdout)),
            collect(child.stderr.take().map(Pipe::Err), Arc::clone(&stderr)),
        ];
        if let (Some(input), Some(mut pipe)) = (self.stdin, child.stdin.take()) {
            // A thread of its own: a large input must not block while the child's output pipes fill.
            threads.push(thread::spawn(move || {
                let _ = pipe.write_all(&input);
            }));
        }
        Running { child, stdout, stderr, threads, description }
    }

    fn describe(&self) -> String {
        let mut s = self.program.display().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
}

enum Pipe {
    Out(ChildStdout),
    Err(ChildStderr),
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Pipe::Out(p) => p.read(buf),
            Pipe::Err(p) => p.read(buf),
        }
    }
}

/// Copies a pipe into `sink` as it arrives, so partial output is visible while the child runs.
fn collect(pipe: Option<Pipe>, sink: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    thread::spawn(move || {
        let Some(mut pipe) = pipe else { return };
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            lock(&sink).extend_from_slice(&chunk[..n]);
        }
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running process started by [`Stampede::spawn`]. Killed if dropped while still running.
pub struct Running {
    child: Child,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    threads: Vec<JoinHandle<()>>,
    description: String,
}

impl Running {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` (e.g. `libc::SIGINT`) to the process.
    pub fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("pid fits pid_t");
        // SAFETY: kill(2) has no memory-safety preconditions; the pid is our own child, not yet
        // reaped (we hold the `Child`), so it cannot name another process.
        let rc = unsafe { libc::kill(pid, signal) };
        assert_eq!(rc, 0, "kill({pid}, {signal}): {}", io::Error::last_os_error());
    }

    /// Sends SIGINT, as Ctrl-C in a terminal would.
    pub fn interrupt(&self) {
        self.signal(libc::SIGINT);
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Standard output printed so far.
    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&lock(&self.stdout)).into_owned()
    }

    /// Standard error printed so far.
    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&lock(&self.stderr)).into_owned()
    }

    /// Polls `condition` every 10 ms until it holds (true) or `timeout` passes (false).
    pub fn wait_until(&mut self, timeout: Duration, mut condition: impl FnMut(&mut Running) -> bool) -> bool {
        let until = Instant::now() + timeout;
        loop {
            if condition(self) {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits at most 10 s for the process to print `marker` (stdout first, then stderr) and
    /// returns what follows it up to white space or a `/`: the address a server says it listens
    /// on (`listening on 127.0.0.1:PORT`, `http://127.0.0.1:PORT/`). Panics with its output if
    /// none came.
    pub fn printed_address(&mut self, marker: &str) -> String {
        let mut address = None;
        self.wait_until(Duration::from_secs(10), |p| {
            address = [p.stdout_so_far(), p.stderr_so_far()].iter().find_map(|printed| {
                let (_, rest) = printed.split_once(marker)?;
                // Only a whole address: its end printed too.
                let end = rest.find(|c: char| c.is_whitespace() || c == '/')?;
                (end > 0).then(|| rest[..end].to_string())
            });
            address.is_some()
        });
        address.unwrap_or_else(|| {
            panic!(
                "{} did not print {marker:?} and an address\n--- stdout ---\n{}\n--- stderr ---\n{}",
                self.description,
                self.stdout_so_far(),
                self.stderr_so_far()
            )
        })
    }

    /// Waits at most `timeout` for the process to exit and returns what it printed. If it is
    /// still running then, kills it and panics with its output.
    pub fn wait(mut self, timeout: Duration) -> Output {
        let deadline = Instant::now() + timeout;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    self.join_threads();
                    panic!(
                        "timed out after {timeout:?}, killed: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                        self.description,
                        self.stdout_so_far(),
                        self.stderr_so_far()
                    );
                }
                Ok(None) => thread::sleep(Duration::from_millis(10)),
                Err(e) => panic!("waiting for {}: {e}", self.description),
            }
        };
        // The pipes close when the process exits, which ends the reader threads.
        self.join_threads();
        Output {
            status,
            stdout: std::mem::take(&mut *lock(&self.stdout)),
            stderr: std::mem::take(&mut *lock(&self.stderr)),
        }
    }

    /// Kills the process (SIGKILL: no chance to write anything more) and reaps it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn join_threads(&mut self) {
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // A test that panicked mid-run must not leave the process behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Helpers on a finished process's [`Output`].
pub trait OutputExt {
    /// Panics, showing the output, unless the process exited with `code`.
    fn assert_exit(&self, code: i32) -> &Self;
    /// Panics, showing the output, unless the process exited with code 0.
    fn assert_success(&self) -> &Self;
    /// Standard output, decoded lossily.
    fn stdout_str(&self) -> String;
    /// Standard error, decoded lossily.
    fn stderr_str(&self) -> String;
}

impl OutputExt for Output {
    #[track_caller]
    fn assert_exit(&self, code: i32) -> &Output {
        assert_eq!(
            self.status.code(),
            Some(code),
            "unexpected exit ({}), expected code {code}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status,
            self.stdout_str(),
            self.stderr_str()
        );
        self
    }

    #[track_caller]
    fn assert_success(&self) -> &Output {
        self.assert_exit(0)
    }

    fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// A temporary directory for one run: [`TempRun::path`] is the run directory to pass to
/// `--out`; other files (plans, bodies) go next to it with [`TempRun::write`]. Removed on drop
/// unless the environment variable `KEEP_RUNS` is set (then its path is printed).
#[derive(Debug)]
pub struct TempRun {
    root: PathBuf,
    run: PathBuf,
}

impl TempRun {
    /// A fresh directory `stampede-it-<pid>-<seq>-<nanos>-<name>` under the system temp dir;
    /// `name` only helps find it when `KEEP_RUNS` is set.
    pub fn new(name: &str) -> TempRun {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        loop {
            let seq = SEQ.fetch_add(1, Ordering::Relaxed);
            let dir_name = format!("stampede-it-{}-{seq}-{nanos:09}-{name}", std::process::id());
            let root = std::env::temp_dir().join(dir_name);
            // create_dir (not create_dir_all) fails if the name is taken, so the directory is ours.
            match fs::create_dir(&root) {
                Ok(()) => {
                    let run = root.join("run");
                    return TempRun { root, run };
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => panic!("cannot create {}: {e}", root.display()),
            }
        }
    }

    /// The run directory, for `--out` (not created: stampede creates it).
    pub fn path(&self) -> &Path {
        &self.run
    }

    /// The temporary directory holding the run directory and the files from [`TempRun::write`].
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes `contents` to `name` in [`TempRun::root`] and returns its path.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(name);
        fs::write(&path, contents).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    /// Parses `name` in the run directory as JSON.
    pub fn json(&self, name: &str) -> Value {
        let path = self.run.join(name);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}\n{text}", path.display()))
    }

    /// `summary.json`.
    pub fn summary(&self) -> Value {
        self.json("summary.json")
    }

    /// `meta.json`.
    pub fn meta(&self) -> Value {
        self.json("meta.json")
    }

    /// `intervals.jsonl`, one value per line.
    pub fn intervals(&self) -> Vec<Value> {
        let path = self.run.join("intervals.jsonl");
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: bad line {l:?}: {e}", path.display())))
            .collect()
    }

    /// The `total` object of `summary.json`.
    pub fn total(&self) -> Value {
        total(&self.summary())
    }

    /// The object of label `name` in `summary.json`'s `labels`.
    pub fn label(&self, name: &str) -> Value {
        label(&self.summary(), name)
    }
}

impl Drop for TempRun {
    fn drop(&mut self) {
        if std::env::var_os("KEEP_RUNS").is_some() {
            eprintln!("KEEP_RUNS: kept {}", self.root.display());
        } else {
            let _ = fs::remove_dir_all(&self.root);
        }
    }
}

/// The `total` object of a summary.
#[track_caller]
pub fn total(summary: &Value) -> Value {
    match summary.get("total") {
        Some(t) if t.is_object() => t.clone(),
        _ => panic!("summary has no total object: {summary:#}"),
    }
}

/// The object of label `name` in a summary's `labels` array.
#[track_caller]
pub fn label(summary: &Value, name: &str) -> Value {
    summary
        .get("labels")
        .and_then(Value::as_array)
        .and_then(|labels| labels.iter().find(|l| l.get("label").and_then(Value::as_str) == Some(name)))
        .cloned()
        .unwrap_or_else(|| panic!("summary has no label {name:?}: {summary:#}"))
}

/// Field `key` of `object` as an unsigned integer; panics (showing the object) otherwise.
#[track_caller]
pub fn uint(object: &Value, key: &str) -> u64 {
    object.get(key).and_then(Value::as_u64).unwrap_or_else(|| panic!("no unsigned integer {key:?} in {object:#}"))
}

/// Field `key` of `object` as a number; panics (showing the object) otherwise.
#[track_caller]
pub fn float(object: &Value, key: &str) -> f64 {
    object.get(key).and_then(Value::as_f64).unwrap_or_else(|| panic!("no number {key:?} in {object:#}"))
}

/// `stampede agent` on a free loopback port with `token_file`, working in `<run root>/<name>-work`,
/// with `extra` arguments; returns it and the address it listens on.
pub fn start_agent(run: &TempRun, name: &str, token_file: &Path, extra: &[&std::ffi::OsStr]) -> (Running, String) {
    let mut agent = Stampede::new()
        .args(["agent", "--listen", "127.0.0.1:0", "--token-file"])
        .arg(token_file)
        .arg("--work-dir")
        .arg(run.root().join(format!("{name}-work")))
        .args(extra)
        .spawn();
    let addr = agent.printed_address("listening on ");
    (agent, addr)
}

/// `stampede run --url URL EXTRA... -q --out DIR`, which must exit 0; returns the run.
pub fn run_quick(name: &str, url: &str, extra: &[&str]) -> TempRun {
    let run = TempRun::new(name);
    Stampede::new().args(["run", "--url", url, "-q"]).args(extra).arg("--out").arg(run.path()).run().assert_exit(0);
    run
}

/// Writes `yaml` as `plan.yaml` beside the run and runs it (`-q --out DIR`), which must exit 0.
pub fn run_plan(name: &str, yaml: &str) -> TempRun {
    let run = TempRun::new(name);
    let plan = run.write("plan.yaml", yaml);
    Stampede::new().arg("run").arg(&plan).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
    run
}
