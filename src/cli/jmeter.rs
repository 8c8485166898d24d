//! `stampede jmeter`: JMeter 5.6.3's non-GUI command line (`jmeter -n -t plan.jmx -l out.jtl -e
//! -o report ...`), read by [`crate::jmeter_cli`] into a run (or a report) and carried out as
//! `run` (and `report`) carry theirs out, so that a team's scripts and CI jobs run unchanged
//! with `jmeter` pointing at stampede (a link named `jmeter` to the binary behaves as
//! `stampede jmeter`, see [`super::argv`]).

use super::run::RunArgs;
use crate::error::{exit, Error};
use crate::jmeter_cli::{self, Action, Request};
use crate::rundir::Place;
use std::path::Path;

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
pub struct JmeterArgs {
    /// JMeter's options, as `jmeter` takes them (`stampede jmeter -?` lists them), e.g.
    /// `-n -t plan.jmx -l results.jtl -e -o report`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JMETER OPTIONS")]
    pub args: Vec<String>,
}

/// Runs a JMeter command line.
pub(super) async fn execute(a: JmeterArgs) -> Result<u8, Error> {
    let inv = jmeter_cli::parse(&a.args)?;
    let _log = match &inv.log {
        Some(path) => Some(log::Tee::start(path)?),
        None => None,
    };
    let result = execute_parsed(inv).await;
    if let (Err(e), Some(tee)) = (&result, _log) {
        // The error main prints goes to the log too: the tee ends first, and main prints after.
        tee.finish(&format!("error: {e}\n"));
    }
    result
}

async fn execute_parsed(inv: jmeter_cli::Invocation) -> Result<u8, Error> {
    let (Place::Unique(run_base) | Place::Exact { dir: run_base, .. }) = super::run::run_place(None, false);
    match inv.action(&run_base, &mut |w| eprintln!("{w}"))? {
        Action::Say(text) => {
            super::say(&text);
            Ok(exit::OK)
        }
        Action::ReportOnly { results, dir } => {
            let run = super::report::load(&results)?;
            write_report(&run, &dir)?;
            Ok(exit::OK)
        }
        Action::Run(request) => run(request).await,
    }
}

/// Runs the plan as `run` does, then prints JMeter's last summary line and writes the report.
async fn run(r: Request) -> Result<u8, Error> {
    let mut args = RunArgs { plan: Some(r.plan), out: Some(r.out.clone()), ..Default::default() };
    args.plan_args.resolved_properties = r.properties;
    args.plan_args.allow_commands = r.allow_commands;
    args.jtl = r.results.into_iter().collect();
    args.delete_results = r.force;
    if let Some(agents) = r.agents {
        args.dist.token_file = Some(agents.token_file);
        args.dist.agents = agents.addresses;
        args.agent_properties = Some(agents.properties);
    }
    let code = match super::run::execute(args).await {
        Ok(code) => code,
        Err(e) => {
            // Nothing measured: the directory claimed for the run goes (only if still empty).
            let _ = std::fs::remove_dir(&r.out);
            return Err(e);
        }
    };
    // What JMeter's summariser prints last, for the scripts that read it.
    let run = super::report::load(&r.out)?;
    super::say(&format!("{}\n", crate::report::jmeter::Totals::of(&run.meta, &run.summary.total).line()));
    if let Some(dir) = r.report_dir {
        write_report(&run, &dir)?;
    }
    Ok(code)
}

/// Writes the report of `run` into `dir`: `index.html`, and `statistics.json` in the shape of
/// JMeter's dashboard (what CI scripts read).
fn write_report(run: &crate::report::RunData, dir: &Path) -> Result<(), Error> {
    let io = |path: std::path::PathBuf| move |source| Error::from(crate::rundir::Error::Io { path, source });
    let index = dir.join("index.html");
    std::fs::write(&index, crate::report::html::document(run)).map_err(io(index.clone()))?;
    let stats = dir.join("statistics.json");
    std::fs::write(&stats, crate::report::jmeter::statistics(&run.summary)).map_err(io(stats.clone()))?;
    eprintln!("the report is in {}", dir.display());
    Ok(())
}

/// `-j LOGFILE`: what stampede says on stderr goes to the file as well.
mod log {
    use crate::error::Error;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::path::Path;

    /// stderr duplicated into a file: a pipe stands as fd 2, a thread copies what comes into
    /// it to the real stderr and to the file. Ended (fd 2 given back, the copy drained) when
    /// dropped or by [`Tee::finish`].
    pub(super) struct Tee {
        saved: Option<OwnedFd>,
        thread: Option<std::thread::JoinHandle<std::fs::File>>,
    }

    impl Tee {
        pub(super) fn start(path: &Path) -> Result<Tee, Error> {
            let cannot = |e: std::io::Error| Error::Usage(format!("-j {}: {e}", path.display()));
            let mut file = std::fs::File::create(path).map_err(cannot)?;
            let mut fds = [0; 2];
            // SAFETY: pipe fills two descriptors this process then owns; dup and dup2 act on
            // descriptors that are open.
            let (read, saved) = unsafe {
                if libc::pipe(fds.as_mut_ptr()) != 0 {
                    return Err(cannot(std::io::Error::last_os_error()));
                }
                let read = OwnedFd::from_raw_fd(fds[0]);
                let write = OwnedFd::from_raw_fd(fds[1]);
                let saved = libc::dup(2);
                if saved < 0 || libc::dup2(write.as_raw_fd(), 2) < 0 {
                    return Err(cannot(std::io::Error::last_os_error()));
                }
                (read, OwnedFd::from_raw_fd(saved))
            };
            let mut terminal = std::fs::File::from(saved.try_clone().map_err(cannot)?);
            let mut pipe = std::fs::File::from(read);
            let thread = std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let _ = terminal.write_all(&buf[..n]);
                    let _ = file.write_all(&buf[..n]);
                }
                file
            });
            Ok(Tee { saved: Some(saved), thread: Some(thread) })
        }

        /// Ends the copy, then appends `last` to the file only.
        pub(super) fn finish(mut self, last: &str) {
            if let Some(mut file) = self.end() {
                let _ = file.write_all(last.as_bytes());
            }
        }

        fn end(&mut self) -> Option<std::fs::File> {
            let saved = self.saved.take()?;
            // SAFETY: both descriptors are open; fd 2 becomes the terminal again, which closes
            // the pipe's last writer so the copying thread sees its end.
            unsafe { libc::dup2(saved.as_raw_fd(), 2) };
            self.thread.take().and_then(|t| t.join().ok())
        }
    }

    impl Drop for Tee {
        fn drop(&mut self) {
            self.end();
        }
    }
}
