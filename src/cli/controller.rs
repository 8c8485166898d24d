//! `stampede run --agents`: the controller of a run on several agents (see [`crate::agent`]).
//! Sends each agent its part of the plan, starts them together, keeps each agent's run
//! directory as it streams in, and merges them into the run's directory, as `merge` does.

use super::run::{DataMode, RunArgs};
use crate::agent::{self, Job};
use crate::error::{exit, Error};
use crate::plan::Plan;
use crate::report;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) async fn run_on_agents(a: &RunArgs, plan: Plan) -> Result<u8, Error> {
    let path = a
        .plan
        .as_ref()
        .ok_or_else(|| Error::Usage("--agents and --listen-agents run a plan file, not --url".into()))?;
    let token_file = a
        .token_file
        .as_ref()
        .ok_or_else(|| Error::Usage("--agents and --listen-agents need --token-file (the agents' token)".into()))?;
    let token = super::agent::read_token(token_file)?;
    // A run directory that is taken is said now, before any agent sends a request.
    let place = super::run::run_place(a.out.clone(), a.replace);
    if let crate::rundir::Place::Exact { dir, replace: false } = &place {
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
            return Err(Error::Usage(format!(
                "{} already exists and is not empty: give another --out, or add --replace to replace the run there",
                dir.display()
            )));
        }
    }
    // The agents get the plan's directory: a data file elsewhere would be missing there.
    let plan_dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let plan_dir = std::fs::canonicalize(plan_dir).unwrap_or_else(|_| plan_dir.to_path_buf());
    for d in &plan.data {
        let at = std::fs::canonicalize(&d.path).unwrap_or_else(|_| d.path.clone());
        if !at.starts_with(&plan_dir) {
            return Err(Error::Usage(format!(
                "the data file {} is outside the plan's directory {}, which is what the agents get: move it there",
                d.path.display(),
                plan_dir.display()
            )));
        }
    }
    let (name, files) = agent::job_files(path, std::slice::from_ref(token_file)).map_err(Error::Usage)?;
    if !a.quiet {
        let bytes: usize = files.iter().map(|f| f.base64.len() / 4 * 3).sum();
        eprintln!("sending {} files ({} KiB) of the plan's directory to each agent", files.len(), bytes / 1024);
    }
    for what in super::run::whole_plan_rates(&plan) {
        eprintln!("warning: {what} is kept by each agent, not split: the agents together run it once per agent");
    }
    let opts = a.plan_args.load_options()?;
    let job = Job {
        plan: name,
        files,
        properties: opts.properties.into_iter().collect(),
        replacements: opts.replacements,
        skip_unsupported: opts.skip_unsupported,
        users: a.users,
        duration_ms: a.duration.map(|d| d.as_millis() as u64),
        iterations: a.iterations,
        ramp_up_ms: a.ramp_up.map(|d| d.as_millis() as u64),
        segment: String::new(),
        data_split: a.data == DataMode::Split,
    };
    // The run directory is claimed by the merge at the end; the agents' streams go beside it
    // meanwhile, then into its `agents/`.
    let base = match &place {
        crate::rundir::Place::Exact { dir, .. } => dir.clone(),
        crate::rundir::Place::Unique(base) => base.clone(),
    };
    let links = match &a.listen_agents {
        Some(listen) => match gather(a, listen, &token).await? {
            Some(links) => links,
            None => {
                eprintln!("interrupted while waiting for the agents: nothing was sent");
                return Ok(exit::INTERRUPTED);
            }
        },
        None => {
            let tls = match &a.agent_ca {
                Some(ca) => {
                    let pem = read_file(ca)?;
                    Some(agent::client_tls(&pem).map_err(|e| Error::Usage(format!("--agent-ca: {e}")))?)
                }
                None => None,
            };
            let mut links = Vec::new();
            for addr in &a.agents {
                let link = agent::connect(addr, &token, tls.as_ref()).await;
                links.push(link.map_err(|e| Error::Usage(format!("agent {e}")))?);
            }
            links
        }
    };
    let staging = staging_dir(&base)?;
    let n = links.len();
    let dirs: Vec<PathBuf> = links
        .iter()
        .enumerate()
        .map(|(i, l)| staging.join(format!("{}-{}", i + 1, safe(if l.host.is_empty() { &l.address } else { &l.host }))))
        .collect();
    if !a.quiet {
        eprintln!("stampede {} — plan {} on {n} agents", env!("CARGO_PKG_VERSION"), plan.name);
        for (i, l) in links.iter().enumerate() {
            eprintln!("  part {}/{n}: {} ({})", i + 1, l.address, l.host);
        }
    }
    let stops = agent::Stops::default();
    let stop = stops.interrupt.clone();
    let interrupted = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let signals = tokio::spawn({
        let (stop, interrupted) = (stop.clone(), interrupted.clone());
        async move {
            super::interrupted().await;
            eprintln!("\ninterrupted: stopping every agent (Ctrl-C again to leave now: they stop within 5 s)");
            interrupted.store(true, Ordering::SeqCst);
            stop.cancel();
            super::interrupted().await;
            // The agents hear no more from this controller and stop their load by themselves.
            std::process::exit(i32::from(exit::INTERRUPTED));
        }
    });
    // The agents' numbers so far, added up as their intervals stream in: the progress line,
    // and the goals that stop the run; and which agents' parts have ended.
    let live = Arc::new(std::sync::Mutex::new((
        crate::rundir::reader::LiveTally::new(crate::run::Run::new(plan.clone(), Default::default()).meta()),
        vec![false; n],
    )));
    let progress: agent::Progress = {
        let live = live.clone();
        Arc::new(move |i, line: Option<&str>| {
            let mut live = lock(&live);
            match line {
                Some(line) => {
                    if let Err(e) = live.0.add(line) {
                        eprintln!("warning: agent {}: an interval that does not read: {e}", i + 1);
                    }
                }
                None => live.1[i] = true,
            }
        })
    };
    let aborted_by = Arc::new(std::sync::Mutex::new(None::<String>));
    let ticker = tokio::spawn({
        let (live, stops, aborted_by, quiet) = (live.clone(), stops.clone(), aborted_by.clone(), a.quiet);
        let judge = crate::run::judge::Live::new(&plan.thresholds);
        async move {
            let start = Instant::now();
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let (samples, errors, why) = {
                    let guard = lock(&live);
                    let (live, ended) = (&guard.0, &guard.1);
                    // Once every part has ended, a goal failing stops nothing.
                    let why = (!judge.is_empty() && !stops.finish.is_cancelled() && !ended.iter().all(|e| *e))
                        .then(|| judge.judge(live.at_us, || live.summary()))
                        .flatten();
                    (live.total().samples, live.total().errors, why)
                };
                if let Some(why) = why {
                    eprintln!("\nstopping every agent: {why}");
                    *lock(&aborted_by) = Some(why);
                    stops.finish.cancel();
                }
                if !quiet {
                    eprint!(
                        "\r  {:>5.0} s  {samples} requests  {errors} errors  ({n} agents)   ",
                        start.elapsed().as_secs_f64()
                    );
                }
            }
        }
    });
    let abort = a.on_agent_loss == super::run::OnAgentLoss::Abort;
    let ends = agent::control(links, job, dirs, stops, abort, progress).await;
    ticker.abort();
    if !a.quiet {
        eprintln!();
    }
    let aborted_by = lock(&aborted_by).take();
    signals.abort();
    let ends = ends.map_err(|e| Error::Usage(e.to_string()))?;
    for e in ends.iter().filter(|e| e.lost.is_some()) {
        let why = e.lost.as_deref().unwrap_or_default();
        eprintln!("warning: agent {} was lost: {why}; what it sent until then is kept and counted", e.address);
        // Its run directory says so, and so does the merged run's list of parts.
        if let Ok(mut meta) = crate::rundir::reader::read_meta(&e.dir) {
            meta.status = crate::rundir::Status::Interrupted;
            meta.stopped_by = Some(format!("agent {} lost: {why}", e.address));
            let _ = crate::rundir::writer::write_json(&e.dir.join(crate::rundir::META), &meta);
        }
    }
    let sent: Vec<&Path> =
        ends.iter().map(|e| e.dir.as_path()).filter(|d| d.join(crate::rundir::META).exists()).collect();
    if sent.is_empty() {
        return Err(Error::Usage("no agent sent anything".into()));
    }
    let merged = super::merge::merge_into(&sent, &place, &plan.thresholds);
    let (mut run, dir) = merged.inspect_err(|_| {
        eprintln!("note: the agents' run directories are in {}", staging.display());
    })?;
    // The run's own facts: the plan as it ran, the command line (secrets masked).
    let _ = std::fs::write(dir.join(crate::rundir::PLAN), plan.to_resolved_yaml());
    let argv: Vec<String> = std::env::args().collect();
    run.meta.command_line = crate::redact::command_line(&argv);
    run.meta.plan_path = Some(path.display().to_string());
    if aborted_by.is_some() {
        run.meta.stopped_by = aborted_by.clone();
    }
    for p in &mut run.meta.parts {
        p.agent = ends.iter().find(|e| e.dir.display().to_string() == p.dir).map(|e| e.address.clone());
    }
    let kept = dir.join("agents");
    if a.replace {
        // An earlier run's agents in a directory being replaced.
        let _ = std::fs::remove_dir_all(&kept);
    }
    if std::fs::rename(&staging, &kept).is_ok() {
        // The parts are now the run's own `agents/...`: say so in its facts.
        for p in &mut run.meta.parts {
            if let Ok(rest) = Path::new(&p.dir).strip_prefix(&staging) {
                p.dir = Path::new("agents").join(rest).display().to_string();
            }
        }
    } else {
        eprintln!("note: the agents' run directories are in {}", staging.display());
    }
    crate::rundir::writer::write_json(&dir.join(crate::rundir::META), &run.meta)?;
    super::say(&format!("{}\n{}", report::table(&run.summary), report::facts(&run.meta, &run.summary)));
    super::say(&report::thresholds::lines(&run.summary.thresholds));
    super::say(&format!("Run directory: {}\n", dir.display()));
    Ok(if interrupted.load(Ordering::SeqCst) {
        exit::INTERRUPTED
    } else if ends.iter().any(|e| e.lost.is_some()) {
        exit::RUNTIME
    } else if aborted_by.is_some() || run.summary.thresholds.iter().any(|t| !t.passed) {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    })
}

fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Usage(format!("cannot read {}: {e}", path.display())))
}

/// `--listen-agents`: waits for `--agent-count` agents to join, saying each as it comes; `None`
/// when Ctrl-C came first.
async fn gather(a: &RunArgs, listen: &str, token: &str) -> Result<Option<Vec<agent::AgentLink>>, Error> {
    let tls = match (&a.agent_cert, &a.agent_key) {
        (Some(cert), Some(key)) => Some(
            agent::server_tls(&read_file(cert)?, &read_file(key)?)
                .map_err(|e| Error::Usage(format!("--agent-cert: {e}")))?,
        ),
        _ => None,
    };
    let n = a.agent_count.unwrap_or(1) as usize;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|source| Error::Io { what: format!("cannot listen on {listen}"), source })?;
    let at = listener.local_addr().map_or(listen.to_string(), |l| l.to_string());
    // Said on stdout even with -q: whoever starts the agents may need the port.
    super::say(&format!("waiting on {at} for {n} agents to join (stampede agent --join HOST:PORT)\n"));
    let stop = tokio_util::sync::CancellationToken::new();
    let signals = tokio::spawn({
        let stop = stop.clone();
        async move {
            super::interrupted().await;
            stop.cancel();
        }
    });
    let quiet = a.quiet;
    let joined = move |l: &agent::AgentLink, k: usize| {
        if !quiet {
            eprintln!("  agent {k}/{n} joined from {} ({})", l.address, l.host);
        }
    };
    let links = agent::gather(listener, token, tls, n, a.agent_wait, &stop, joined).await;
    signals.abort();
    match links {
        Err(_) if stop.is_cancelled() => Ok(None),
        other => other.map(Some).map_err(|e| Error::Usage(e.to_string())),
    }
}

/// A new directory beside `base` for the agents' streams, named after it (never one an earlier
/// run left: its lines would be counted again).
fn staging_dir(base: &Path) -> Result<PathBuf, Error> {
    let name = base.file_name().map_or("run".into(), |n| n.to_string_lossy().to_string());
    let parent = base.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let _ = std::fs::create_dir_all(parent);
    for _ in 0..100 {
        let dir = parent.join(format!(".{name}.agents-{:08x}", rand::random::<u32>()));
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                agent::private(&dir);
                return Ok(dir);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(Error::Io { what: format!("cannot make {}", dir.display()), source }),
        }
    }
    Err(Error::Usage(format!("cannot make a directory beside {}", base.display())))
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A name safe as a directory name.
fn safe(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}
