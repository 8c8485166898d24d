//! JMeter's OS Process Sampler (SystemSampler with jorphan's SystemCommand): the command runs
//! with its arguments (no shell), its environment added to stampede's, in its directory; its
//! output (and errors, without an error file) is the response, its exit code the response
//! code. It runs only with `--allow-commands`.

use super::wire::java_int;
use super::{Outcome, VirtualUser};
use crate::plan::process::{java_hash_map_text, OsProcess};
use crate::record::ErrorKind;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often the waiting thread looks whether the command ended, timed out or was abandoned.
const POLL: Duration = Duration::from_millis(5);

/// After the run's stop has killed the command's process group, how long its output may still
/// be read (what the killed processes wrote before they died).
const STOP_GRACE: Duration = Duration::from_millis(200);

/// What a command run gave: exit code, or the failure's kind and Java message; the output read.
struct Ran {
    code: Result<i32, (ErrorKind, String)>,
    output: Vec<u8>,
}

impl VirtualUser {
    pub(super) async fn os_process(&mut self, p: &OsProcess) -> Outcome {
        let mut o = Outcome::new();
        let command = p.command.render_string(&mut self.session.vars);
        let args: Vec<String> = p.arguments.iter().map(|a| a.render_string(&mut self.session.vars)).collect();
        let env: Vec<(String, String)> = p
            .environment
            .iter()
            .map(|(n, v)| (n.render_string(&mut self.session.vars), v.render_string(&mut self.session.vars)))
            .collect();
        let dir = match p.directory.render_string(&mut self.session.vars) {
            d if d.is_empty() => p.plan_dir.clone(),
            d => java_absolute(&d),
        };
        let mut line = command.clone();
        for a in &args {
            line.push(' ');
            line.push_str(a);
        }
        o.sampler_data = format!(
            "Working Directory: {}\nEnvironment: {}\nExecuting: {line}",
            dir.display(),
            java_hash_map_text(&env)
        );
        if !p.allowed {
            o.ok = false;
            o.code = "500".into();
            o.message = "not run: stampede runs an OS Process Sampler's command only with --allow-commands".into();
            o.kind = Some(ErrorKind::Check(p.refused.0));
            o.end = Some(Instant::now());
            return o;
        }
        let expected = java_int(p.expected_return_code.render_string(&mut self.session.vars).trim());
        // getPropertyAsLong: not a number is 0, none.
        let timeout = p.timeout.render_string(&mut self.session.vars).trim().parse::<i64>().unwrap_or(0);
        let files = [&p.stdin, &p.stdout, &p.stderr].map(|t| t.render_string(&mut self.session.vars));
        let abandon = self.abandon.clone();
        let job = move || run(&command, &args, &env, &dir, &files, timeout, &abandon);
        let ran = match tokio::task::spawn_blocking(job).await {
            Ok(r) => r,
            Err(e) => Ran { code: Err((ErrorKind::Io, format!("java.io.IOException: {e}"))), output: Vec::new() },
        };
        o.end = Some(Instant::now());
        o.bytes = ran.output.len() as u64;
        o.body = ran.output;
        match ran.code {
            Ok(code) => {
                o.code = code.to_string();
                if p.check_return_code && code != expected {
                    o.ok = false;
                    o.message = format!("Unexpected return code.  Expected [{expected}]. Actual [{code}].");
                    o.kind = Some(ErrorKind::Check(p.unexpected.0));
                } else {
                    o.message = "OK".into();
                }
            }
            Err((kind, message)) => {
                o.ok = false;
                o.code = "500".into();
                o.message = message;
                o.kind = Some(kind);
            }
        }
        o
    }
}

/// `new File(name).getAbsolutePath()`: a relative name is put after the working directory,
/// nothing normalised.
fn java_absolute(name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
}

/// Java's text for an OS error: `error=2, No such file or directory`.
fn java_os_error(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text).to_string();
    match e.raw_os_error() {
        Some(n) => format!("error={n}, {text}"),
        None => text,
    }
}

/// A pipe (reading end as a file), both ends closed on exec: the child gets its writing end
/// only as its output. (`std::io::pipe` is newer than the crate's MSRV.)
fn pipe() -> std::io::Result<(std::fs::File, std::os::fd::OwnedFd)> {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // Atomically close-on-exec where the system can: another user's command started at the
    // same moment must not inherit the writing end (its output would not end with ours).
    // SAFETY: `fds` has room for the two descriptors pipe writes.
    #[cfg(target_os = "linux")]
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    #[cfg(not(target_os = "linux"))]
    let made = unsafe { libc::pipe(fds.as_mut_ptr()) };
    if made != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe succeeded: both are new descriptors, each owned here once.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    #[cfg(not(target_os = "linux"))]
    for fd in &fds {
        // SAFETY: `fd` is open (owned above); F_SETFD only sets its close-on-exec flag.
        unsafe { libc::fcntl(*fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok((std::fs::File::from(r), w))
}

/// Kills the command and every process of its group (what it started in the background), then
/// reaps it.
fn kill_group(child: &mut std::process::Child) {
    // SAFETY: killpg only sends a signal, to the group the still unreaped command leads.
    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
    let _ = child.kill();
    let _ = child.wait();
}

/// SystemSampler's message for what SystemCommand throws.
fn exception(what: String) -> (ErrorKind, String) {
    (ErrorKind::Io, format!("Exception occurred whilst executing system call: {what}"))
}

/// Runs the command as SystemCommand does, on a blocking thread: `files` are standard input,
/// output and error (empty: none), opened first as SystemCommand's constructor opens them.
fn run(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    dir: &Path,
    files: &[String; 3],
    timeout_ms: i64,
    abandon: &CancellationToken,
) -> Ran {
    let failed = |e: (ErrorKind, String)| Ran { code: Err(e), output: Vec::new() };
    let interrupted = || (ErrorKind::Aborted, "System Sampler interrupted whilst executing system call".to_string());
    // A job the blocking pool starts after the run's stop neither runs the command nor
    // empties its output file.
    if abandon.is_cancelled() {
        return failed(interrupted());
    }
    let not_found = |path: &str, e: &std::io::Error| {
        let reason = e.to_string();
        let reason = reason.split(" (os error").next().unwrap_or(&reason).to_string();
        exception(format!("java.io.FileNotFoundException: {path} ({reason})"))
    };
    let [stdin, stdout, stderr] = files;
    let input = match stdin.trim() {
        "" => Stdio::null(),
        path => match std::fs::File::open(path) {
            Ok(f) => Stdio::from(f),
            Err(e) => return failed(not_found(path, &e)),
        },
    };
    let open_out = |path: &str| -> Result<Option<std::fs::File>, (ErrorKind, String)> {
        match path.trim() {
            "" => Ok(None),
            _ => std::fs::File::create(path).map(Some).map_err(|e| not_found(path, &e)),
        }
    };
    let out_file = match open_out(stdout) {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    let err_file = match open_out(stderr) {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    let spawn_failed = |e: &std::io::Error| {
        exception(format!(
            "java.io.IOException: Cannot run program \"{command}\" (in directory \"{}\"): {}",
            dir.display(),
            java_os_error(e)
        ))
    };
    let mut cmd = Command::new(command);
    // A group of its own, killed whole on a timeout or the run's stop: what the command left
    // running (`sleep 600 &`) must not outlive the sample nor hold its output open.
    cmd.process_group(0);
    cmd.args(args).envs(env.iter().map(|(k, v)| (k, v))).current_dir(dir).stdin(input);
    // Without an output file the output is read through a pipe; without an error file the
    // errors join the output (ProcessBuilder.redirectErrorStream), in a file or the pipe.
    let mut reader = None;
    let out: Result<(Stdio, Stdio), std::io::Error> = (|| {
        let (out, same): (Stdio, Stdio) = match out_file {
            Some(f) => {
                let same = f.try_clone()?;
                (f.into(), same.into())
            }
            None => {
                let (r, w) = pipe()?;
                reader = Some(r);
                let same = w.try_clone()?;
                (w.into(), same.into())
            }
        };
        Ok((out, err_file.map_or(same, Stdio::from)))
    })();
    match out {
        Ok((out, err)) => {
            cmd.stdout(out).stderr(err);
        }
        Err(e) => return failed(spawn_failed(&e)),
    }
    let spawned = cmd.spawn();
    // The pipe's writing ends go with the command: the output ends when the process's do.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return failed(spawn_failed(&e)),
    };
    let output = Arc::new(Mutex::new(Vec::new()));
    let copier = reader.map(|mut r| {
        let output = output.clone();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n @ 1..) = r.read(&mut chunk) {
                output.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(&chunk[..n]);
            }
        })
    });
    let deadline = (timeout_ms > 0).then(|| Instant::now() + Duration::from_millis(timeout_ms as u64));
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                use std::os::unix::process::ExitStatusExt;
                // Java's exit value of a process a signal ended: 128 + the signal.
                break Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)));
            }
            Ok(None) => {}
            Err(e) => break Err(exception(format!("java.io.IOException: {e}"))),
        }
        if abandon.is_cancelled() {
            kill_group(&mut child);
            break Err(interrupted());
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            kill_group(&mut child);
            break Err((ErrorKind::Timeout, format!("Process timeout reached after {timeout_ms} milliseconds")));
        }
        std::thread::sleep(POLL);
    };
    // After an exit the output is read to its end (SystemCommand joins its copier), which
    // comes when every process that holds it open has ended, unless the run stops first: then
    // those processes are killed and what they wrote read for a moment. After a timeout what
    // was read so far is the output, as in JMeter.
    if code.is_ok() {
        if let Some(c) = copier {
            let mut stopped: Option<Instant> = None;
            loop {
                if c.is_finished() {
                    let _ = c.join();
                    break;
                }
                if stopped.is_some_and(|t| t.elapsed() >= STOP_GRACE) {
                    // Left to end with its pipe, or with stampede.
                    break;
                }
                if stopped.is_none() && abandon.is_cancelled() {
                    // SAFETY: killpg only sends a signal. The group was the command's, which is
                    // reaped, but a group's id is not reused while any of its processes live.
                    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
                    stopped = Some(Instant::now());
                }
                std::thread::sleep(POLL);
            }
        }
    }
    let output = std::mem::take(&mut *output.lock().unwrap_or_else(|e| e.into_inner()));
    Ran { code, output }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a process whose command line has `marker` runs; kills any (the test's cleanup).
    fn running(marker: &str) -> bool {
        let found = Command::new("pgrep").args(["-f", marker]).output().unwrap();
        let pids = String::from_utf8_lossy(&found.stdout).to_string();
        for pid in pids.split_whitespace() {
            let _ = Command::new("kill").args(["-9", pid]).status();
        }
        !pids.trim().is_empty()
    }

    fn sh(script: &str, files: &[String; 3], timeout_ms: i64, abandon: &CancellationToken) -> Ran {
        let dir = std::env::temp_dir();
        run("sh", &["-c".to_string(), script.to_string()], &[], &dir, files, timeout_ms, abandon)
    }

    /// A job the blocking pool starts after the run's stop runs nothing and leaves its output
    /// file as it was.
    #[test]
    fn a_command_started_after_the_run_s_stop_neither_runs_nor_empties_its_output_file() {
        let out = std::env::temp_dir().join(format!("stampede-os-process-{}.out", std::process::id()));
        std::fs::write(&out, "kept").unwrap();
        let files = [String::new(), out.display().to_string(), String::new()];
        let abandon = CancellationToken::new();
        abandon.cancel();
        let ran = sh("echo ran", &files, 0, &abandon);
        let kept = std::fs::read_to_string(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        assert_eq!(ran.code.unwrap_err().0, ErrorKind::Aborted);
        assert_eq!(kept, "kept");
    }

    /// A timeout kills what the command started in the background too.
    #[test]
    fn a_timeout_kills_the_command_s_whole_process_group() {
        let marker = format!("sleep 30.{}1", std::process::id());
        let none = [String::new(), String::new(), String::new()];
        let started = Instant::now();
        let ran = sh(&format!("{marker} & sleep 30"), &none, 300, &CancellationToken::new());
        std::thread::sleep(Duration::from_millis(100));
        assert!(!running(&marker), "the background process outlived the timeout");
        assert_eq!(ran.code.unwrap_err().0, ErrorKind::Timeout);
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    /// After the command exits its output is read until every process holding it open ends,
    /// unless the run stops: then that wait ends and those processes are killed, the output
    /// read so far kept.
    #[test]
    fn the_run_s_stop_ends_the_wait_for_output_a_background_process_holds_open() {
        let marker = format!("sleep 30.{}2", std::process::id());
        let none = [String::new(), String::new(), String::new()];
        let abandon = CancellationToken::new();
        let stop = abandon.clone();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            stop.cancel();
        });
        let started = Instant::now();
        let ran = sh(&format!("{marker} & echo hi"), &none, 0, &abandon);
        let took = started.elapsed();
        stopper.join().unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert!(!running(&marker), "the background process outlived the run's stop");
        assert!(took < Duration::from_secs(10), "{took:?}");
        assert_eq!(ran.code.unwrap(), 0);
        assert_eq!(ran.output, b"hi\n");
    }
}
