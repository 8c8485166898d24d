//! `stampede run --agents`: the controller of a run on several agents (see [`crate::dist::agent`]).
//! Sends each agent its part of the plan, starts them together, keeps each agent's run
//! directory as it streams in (the run's `agents/`), and merges their intervals second by
//! second into the run's own log as they arrive, as `merge` would: a controller that dies
//! leaves a run that reads.

use super::run::{DataMode, RunArgs};
use crate::dist::agent::{self, Heard, Job};
use crate::error::{exit, Error};
use crate::plan::Plan;
use crate::report;
use crate::rundir::merge::LiveMerge;
use crate::rundir::RunWriter;
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
        properties: a.agent_properties.clone().unwrap_or_else(|| opts.properties.into_iter().collect()),
        replacements: opts.replacements,
        skip_unsupported: opts.skip_unsupported,
        users: a.users,
        duration_ms: a.duration.map(|d| d.as_millis() as u64),
        iterations: a.iterations,
        ramp_up_ms: a.ramp_up.map(|d| d.as_millis() as u64),
        segment: String::new(),
        data_split: a.data == DataMode::Split,
        samples: !plan.result_files.is_empty(),
    };
    // The plan's results files (and --jtl) are written here from the rows the agents send back,
    // as JMeter's master writes its listeners' files; opened now, so a path that cannot be
    // written is said before any load.
    let samples = Arc::new(std::sync::Mutex::new(SampleFiles::open(&plan.result_files)?));
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
                // An agent flooded with connections may drop a greeting: a few more tries.
                let mut tries = 0;
                let link = loop {
                    match agent::connect(addr, &token, tls.as_ref()).await {
                        Err(agent::Error::Closed(_)) if tries < 3 => {
                            tries += 1;
                            tokio::time::sleep(Duration::from_millis(200)).await;
                        }
                        other => break other,
                    }
                };
                links.push(link.map_err(|e| Error::Usage(format!("agent {e}")))?);
            }
            links
        }
    };
    let mut meta = crate::run::Run::new(plan.clone(), Default::default()).meta().clone();
    let argv: Vec<String> = std::env::args().collect();
    meta.command_line = crate::redact::command_line(&argv);
    meta.plan_path = Some(path.display().to_string());
    let n = links.len();
    let names: Vec<String> = links
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}-{}", i + 1, safe(if l.host.is_empty() { &l.address } else { &l.host })))
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
    // The agents' intervals merged as they stream in: the run's log, the progress line, and
    // the goals that stop the run.
    let live = Arc::new(std::sync::Mutex::new(Live {
        merge: LiveMerge::new(&meta, n),
        ended: vec![false; n],
        writer: None,
        labels: meta.labels.clone(),
        stop_on: crate::run::judge::StopWatch::new(&plan.stop_on),
        planned_end: crate::run::judge::planned_end_us(&plan),
        stop_why: None,
        meta,
        failed: None,
        said_lag: false,
    }));
    // The run directory is claimed once every agent is ready, before the start (an earlier run
    // that --replace replaces stays until then): the merged intervals go there as they come,
    // each agent's own run in its `agents/`.
    let claim = {
        let (live, place, plan_yaml, replace, names) =
            (live.clone(), place.clone(), plan.to_resolved_yaml(), a.replace, names.clone());
        move || -> Result<Vec<PathBuf>, String> {
            let mut live = lock(&live);
            let writer = RunWriter::create(&place, &live.meta, &plan_yaml).map_err(|e| match e {
                crate::rundir::Error::Occupied { .. } => {
                    format!("{e}: give another --out, or add --replace to replace the run there")
                }
                e => e.to_string(),
            })?;
            let kept = writer.dir().join("agents");
            if replace {
                // An earlier run's agents in a directory being replaced.
                let _ = std::fs::remove_dir_all(&kept);
            }
            if let Err(e) = std::fs::create_dir_all(&kept) {
                abandon(writer.dir());
                return Err(format!("cannot make {}: {e}", kept.display()));
            }
            agent::private(&kept);
            live.writer = Some(writer);
            Ok(names.iter().map(|name| kept.join(name)).collect())
        }
    };
    let progress: agent::Progress = {
        let (live, samples) = (live.clone(), samples.clone());
        Arc::new(move |i, heard: Heard<'_>| {
            if let Heard::Samples(rows) = heard {
                return lock(&samples).write(rows);
            }
            let mut live = lock(&live);
            match heard {
                Heard::Meta(meta) => live.merge.meta(i, meta),
                Heard::Line(line) => {
                    if let Err(e) = live.merge.add(i, line) {
                        eprintln!("warning: agent {}: an interval that does not read: {e}", i + 1);
                    }
                }
                Heard::Ended => {
                    live.merge.end(i);
                    live.ended[i] = true;
                }
                Heard::Samples(_) => {}
            }
            live.write();
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
                    let live = lock(&live);
                    let merge = &live.merge;
                    // Once every part has ended, a goal failing stops nothing.
                    let going = !stops.finish.is_cancelled() && !live.ended.iter().all(|e| *e);
                    let why = live.stop_why.clone().filter(|_| going).or_else(|| {
                        (going && !judge.is_empty()).then(|| judge.judge(merge.at_us, || merge.summary())).flatten()
                    });
                    (merge.total().samples, merge.total().errors, why)
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
    let ends = agent::control(links, job, claim, stops, abort, progress).await;
    ticker.abort();
    if !a.quiet {
        eprintln!();
    }
    let aborted_by = lock(&aborted_by).take();
    signals.abort();
    let dir = lock(&live).writer.as_ref().map(|w| w.dir().to_path_buf());
    let (ends, dir) = match (ends, dir) {
        (Ok(ends), Some(dir)) => (ends, dir),
        (Err(e), Some(dir)) => {
            // Claimed, the run keeps whatever the agents sent.
            eprintln!("note: what the agents sent is in {}", dir.join("agents").display());
            return Err(Error::Usage(e.to_string()));
        }
        (Err(e), None) => return Err(Error::Usage(e.to_string())),
        (Ok(_), None) => return Err(Error::Usage("the agents ended before the start".into())),
    };
    let kept = dir.join("agents");
    let dirs: Vec<PathBuf> = names.iter().map(|name| kept.join(name)).collect();
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
    // Every part has ended: the last seconds are merged and the run's facts written.
    let (merge, writer, failed) = {
        let mut live = lock(&live);
        (0..n).for_each(|i| live.merge.end(i));
        live.write();
        let empty = LiveMerge::new(&live.meta, 0);
        let merge = std::mem::replace(&mut live.merge, empty);
        (merge, live.writer.take(), live.failed.take())
    };
    let mut parts: Vec<(usize, String, crate::rundir::RunMeta)> = Vec::new();
    for (i, (d, name)) in dirs.iter().zip(&names).enumerate() {
        match crate::rundir::reader::read_meta(d) {
            Ok(meta) => parts.push((i, Path::new("agents").join(name).display().to_string(), meta)),
            Err(crate::rundir::Error::NotARun(_)) => {}
            // Its lines are in the totals; only its facts are missing from the list of parts.
            Err(e) => eprintln!("warning: agent {}: {e}", ends[i].address),
        }
    }
    if parts.is_empty() {
        abandon(&dir);
        return Err(Error::Usage("no agent sent anything".into()));
    }
    let complete = parts.len() == n && dirs.iter().all(|d| d.join(crate::rundir::SUMMARY).exists());
    let mut run = merge.finish(&parts, complete);
    let Some(writer) = writer else {
        return Err(Error::Usage("the run directory was not claimed".into()));
    };
    if let Some(why) = failed {
        // The summary is whole (the merge is in memory); the log misses the seconds after.
        eprintln!(
            "warning: the run's interval log stopped at an error ({why}): its charts miss the seconds after it; each agent's run directory is whole in {}",
            kept.display()
        );
    }
    run.meta.command_line = crate::redact::command_line(&argv);
    run.meta.plan_path = Some(path.display().to_string());
    if aborted_by.is_some() {
        run.meta.stopped_by = aborted_by.clone();
    }
    for (p, (i, _, _)) in run.meta.parts.iter_mut().zip(&parts) {
        p.agent = Some(ends[*i].address.clone());
    }
    super::merge::judge(&mut run, &plan.thresholds, &dir)?;
    writer.finish(&run.meta, &run.summary)?;
    let samples_failed = lock(&samples).finish();
    if let Some(why) = &samples_failed {
        eprintln!("error: results file: {why}");
    }
    super::say(&format!("{}\n{}", report::table(&run.summary), report::facts(&run.meta, &run.summary)));
    super::say(&report::thresholds::lines(&run.summary.thresholds));
    super::say(&format!("Run directory: {}\n", dir.display()));
    super::run::write_html(&dir);
    Ok(if interrupted.load(Ordering::SeqCst) {
        exit::INTERRUPTED
    } else if ends.iter().any(|e| e.lost.is_some()) || samples_failed.is_some() {
        // A lost agent's rows, or rows not written, leave the results file incomplete.
        exit::RUNTIME
    } else if aborted_by.is_some() || run.summary.thresholds.iter().any(|t| !t.passed) {
        exit::THRESHOLDS_FAILED
    } else {
        exit::OK
    })
}

/// The results files of a run on agents, written from the rows they send back.
struct SampleFiles {
    files: Vec<(PathBuf, std::io::BufWriter<std::fs::File>)>,
    failed: Option<String>,
}

impl SampleFiles {
    /// Opens each file to append to it, with JMeter's header when it is new or empty.
    fn open(paths: &[PathBuf]) -> Result<SampleFiles, Error> {
        use std::io::Write as _;
        let mut files = Vec::new();
        for p in paths {
            let cannot = |e: std::io::Error| Error::Usage(format!("cannot open the results file {}: {e}", p.display()));
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(cannot)?;
            }
            let f = std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(cannot)?;
            let empty = f.metadata().map(|m| m.len() == 0).unwrap_or(true);
            let mut w = std::io::BufWriter::new(f);
            if empty {
                writeln!(w, "{}", crate::rundir::jtl::HEADER).map_err(cannot)?;
            }
            files.push((p.clone(), w));
        }
        Ok(SampleFiles { files, failed: None })
    }

    fn write(&mut self, rows: &str) {
        use std::io::Write as _;
        for (p, w) in &mut self.files {
            if let Err(e) = w.write_all(rows.as_bytes()) {
                self.failed.get_or_insert(format!("cannot write {}: {e}", p.display()));
            }
        }
    }

    /// Flushes the files; why one is incomplete, if it is.
    fn finish(&mut self) -> Option<String> {
        use std::io::Write as _;
        for (p, w) in &mut self.files {
            if let Err(e) = w.flush() {
                self.failed.get_or_insert(format!("cannot write {}: {e}", p.display()));
            }
        }
        self.failed.take()
    }
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

/// What the agents have streamed so far: their intervals merged, which parts have ended, and
/// the run's writer (with the first error writing it).
struct Live {
    merge: LiveMerge,
    ended: Vec<bool>,
    writer: Option<RunWriter>,
    /// The run's facts at the start: `started_at` becomes the agents' common start.
    meta: crate::rundir::RunMeta,
    failed: Option<String>,
    /// A lagging agent was said.
    said_lag: bool,
    /// The run's label names, those rendered as it runs included, for the stop conditions.
    labels: Vec<String>,
    /// The plan's stop conditions, watched on the merged seconds up to the plan's end.
    stop_on: crate::run::judge::StopWatch,
    planned_end: Option<u64>,
    /// Why a stop condition ended the run.
    stop_why: Option<String>,
}

impl Live {
    /// Appends the seconds merged so far to the run's log, flushed: a controller that dies
    /// leaves them read.
    fn write(&mut self) {
        let Some(writer) = self.writer.as_mut() else { return };
        if let Some(origin) = self.merge.origin() {
            let at = origin.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
            if self.meta.started_at != at {
                self.meta.started_at = at;
                if let Err(e) = writer.restart_meta(&self.meta) {
                    self.failed.get_or_insert(e.to_string());
                }
            }
        }
        for iv in self.merge.ready() {
            self.labels.extend(iv.new_labels.iter().cloned());
            // Merged seconds never carry `last`: the plan's end (and every agent having ended,
            // judged by the ticker) keeps the drain out.
            if self.stop_why.is_none() && self.planned_end.is_none_or(|end| iv.start_us < end) {
                self.stop_why = self.stop_on.observe(&iv, &self.labels, &self.meta.checks);
            }
            if self.failed.is_none() {
                if let Err(e) = writer.append(&iv) {
                    self.failed = Some(e.to_string());
                }
            }
        }
        if let Some(i) = self.merge.lagging.filter(|_| !self.said_lag) {
            self.said_lag = true;
            eprintln!(
                "\nwarning: agent {} is far behind the others (its clock, or a stall): the run's log goes on without it, its late seconds counted in later ones",
                i + 1
            );
        }
    }
}

/// Takes back a run directory this run claimed but measured nothing into: its run files and
/// its agents' directories (a user's own files in an `--out` stay).
fn abandon(dir: &Path) {
    for f in crate::rundir::run_files() {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let _ = std::fs::remove_dir_all(dir.join("agents"));
    let _ = std::fs::remove_dir(dir);
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A name safe as a directory name.
fn safe(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}
