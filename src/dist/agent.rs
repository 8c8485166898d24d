//! An agent (`stampede agent`): serves one controller at a time, runs the part of the plan it is
//! sent (an ordinary run of its segment `I/N`, its files in a job directory of its own that goes
//! when the job ends) and streams the part's run directory back as it is written. It prints
//! nothing: what it has to say goes to its [`Log`], which the CLI gives it.

use super::link::connect;
use super::protocol::*;
use crate::engine::{Handoff, Heard, Said};
use crate::plan::{LoadOptions, Overrides, Plan};
use crate::record::Interval;
use crate::run::{End, Output, OutputError, Run, RunDirOutput, RunOptions, Start};
use crate::rundir::{IntervalLines, RunMeta};
use base64::Engine as _;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// How long an agent waits for its job once greeted without hearing from the controller (a
/// controller gathering agents that join pings them until the last has joined).
const JOB_WAIT: Duration = Duration::from_secs(60);

/// An agent: serves one controller at a time, each job in a directory of its own under `work`.
pub(crate) struct Agent {
    pub token: String,
    pub work: PathBuf,
    /// TLS on every control connection, when the agent has a certificate.
    pub tls: Option<tokio_rustls::TlsAcceptor>,
    /// The group of generators it is in (`--group`), recorded in its parts.
    pub group: Option<String>,
    /// Where it says what happens to its connections (nowhere by default).
    pub log: Log,
    busy: AtomicBool,
    greetings: Arc<Greetings>,
    jobs: JobDirs,
}

impl Agent {
    pub(crate) fn new(token: String, work: PathBuf, tls: Option<tokio_rustls::TlsAcceptor>) -> Agent {
        Agent {
            token,
            work,
            tls,
            group: None,
            log: Arc::new(|_| {}),
            busy: AtomicBool::new(false),
            greetings: Arc::default(),
            jobs: JobDirs::default(),
        }
    }

    /// The directories of the jobs in progress, for a process about to leave without waiting
    /// for them (whose tasks are not dropped, so their guards do not run): [`JobDirs::delete`].
    pub(crate) fn jobs(&self) -> JobDirs {
        self.jobs.clone()
    }

    /// Whether a job is running (a stopping agent waits for it).
    pub(crate) fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    /// Accepts controllers until `shutdown`; a controller that comes while a job runs is refused.
    pub(crate) async fn serve(
        self: Arc<Self>,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> std::io::Result<()> {
        loop {
            let accepted = tokio::select! {
                a = listener.accept() => a,
                _ = shutdown.cancelled() => return Ok(()),
            };
            let (stream, peer) = match accepted {
                Ok(a) => a,
                // Out of descriptors, a connection reset before it was taken: keep listening.
                Err(e) => {
                    (self.log)(&format!("agent: accepting a connection: {e}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let greeting = self.greetings.enter(peer.ip(), peek_handle(&stream));
            let agent = self.clone();
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                if let Err(e) = agent.handle(stream, greeting, shutdown).await {
                    (agent.log)(&format!("agent: controller {peer}: {e}"));
                }
            });
        }
    }

    async fn handle(&self, stream: TcpStream, greeting: Greeting, shutdown: CancellationToken) -> Result<(), Error> {
        let greeted = greet_in(greeting, stream, self.tls.as_ref(), &self.token, || {
            if self.busy.swap(true, Ordering::SeqCst) {
                Err("busy with another controller's job".to_string())
            } else {
                Ok(())
            }
        })
        .await;
        let Some(greeted) = greeted else { return Ok(()) };
        let (r, tx, written, _) = greeted?;
        let _free = Free(&self.busy);
        self.session(r, tx, written, shutdown).await
    }

    /// Dials a controller that waits for its agents (`run --listen-agents`), retrying until
    /// `give_up` while nothing answers, and runs the job it sends. A refusal (a wrong token,
    /// another version, a run that has its agents) ends it at once.
    pub(crate) async fn join(
        &self,
        address: &str,
        tls: Option<&tokio_rustls::TlsConnector>,
        give_up: Duration,
        shutdown: CancellationToken,
    ) -> Result<(), Error> {
        let deadline = Instant::now() + give_up;
        let mut said = false;
        let link = loop {
            let tried = tokio::select! {
                l = connect(address, &self.token, tls) => l,
                _ = shutdown.cancelled() => return Ok(()),
            };
            match tried {
                Ok(l) => break l,
                // Something answered and it went wrong (a refusal, TLS, not stampede): say so now.
                Err(e @ (Error::Refused(_) | Error::Protocol(_) | Error::Io(_) | Error::Closed(_))) => return Err(e),
                Err(e) if Instant::now() >= deadline => {
                    return Err(proto(format!("{e}; gave up after {}", humantime::format_duration(give_up))))
                }
                Err(e) => {
                    if !said {
                        (self.log)(&format!("agent: {e}; trying again every second"));
                        said = true;
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = shutdown.cancelled() => return Ok(()),
                    }
                }
            }
        };
        (self.log)(&format!("agent: joined the controller at {address}"));
        self.busy.store(true, Ordering::SeqCst);
        let _free = Free(&self.busy);
        self.session(link.r, link.tx, link.written, shutdown).await
    }

    /// One controller's job, after the greetings: receive it, run it, stream its run directory.
    async fn session(&self, r: Reader, tx: Tx, written: Written, shutdown: CancellationToken) -> Result<(), Error> {
        let result = self.job(r, &tx, shutdown).await;
        // What was said reaches the controller before the connection (or the process) ends: a
        // controller stopped for a while takes it when it resumes; one that is gone fails the
        // writes at once, or (its network gone) within the orphan bound.
        drop(tx);
        let _ = tokio::time::timeout(ORPHANED, written).await;
        result
    }

    async fn job(&self, mut r: Reader, tx: &Tx, shutdown: CancellationToken) -> Result<(), Error> {
        let job = match next_message(&mut r, JOB_WAIT, MAX_JOB_LINE, &shutdown).await? {
            Some(Msg::Job(job)) => job,
            None if shutdown.is_cancelled() => return Ok(()),
            other => return Err(proto(format!("expected a job, got {}", kind(&other)))),
        };
        let dir = match JobDir::new(&self.work, &self.jobs, self.log.clone()) {
            Ok(d) => d,
            Err(message) => {
                let _ = tx.send(Msg::Failed { message: message.clone() });
                return Err(proto(message));
            }
        };
        let prepared = prepare(&job, &dir.0);
        let (plan, segment) = match prepared {
            Ok(p) => p,
            Err(message) => {
                let _ = tx.send(Msg::Failed { message: message.clone() });
                return Err(proto(message));
            }
        };
        let _ = tx.send(Msg::Ready);
        // The controller waits for every agent to be ready, each up to 2 minutes.
        let at = match next_message(&mut r, Duration::from_secs(600), MAX_SHORT_LINE, &shutdown).await? {
            Some(Msg::Start { at }) => at,
            Some(Msg::Stop { .. }) | None => return Ok(()),
            other => return Err(proto(format!("expected start, got {}", kind(&other)))),
        };
        let at = time::OffsetDateTime::parse(&at, &time::format_description::well_known::Rfc3339)
            .map_err(|_| proto(format!("a start that is not an instant: {at}")))?;

        let stop = shutdown.child_token();
        let abort = CancellationToken::new();
        let finish = CancellationToken::new();
        let (handoff, heard, said) = handoff(job.setup_once, tx);
        let listen = listen(r, stop.clone(), abort.clone(), finish.clone(), heard, self.log.clone());
        let seg_meta = crate::rundir::PartMeta {
            segment: Some(job.segment.clone()),
            start_at: at.format(&time::format_description::well_known::Rfc3339).ok(),
            start_skew_ms: None,
            data_split: job.data_split,
            group: self.group.clone(),
        };
        let options = RunOptions {
            engine: crate::engine::Options { segment, stop: finish, handoff, ..Default::default() },
            command_line: vec!["stampede".into(), "agent".into()],
            part: Some(seg_meta),
            start_at: Some(std::time::SystemTime::from(at)),
            watch: Vec::new(),
        };
        let run = Run::new(plan, options);
        let local = RunDirOutput::create(&crate::rundir::Place::Unique(dir.0.join("run")), run.meta(), run.plan())
            .map_err(|e| proto(e.to_string()))?;
        let stream = Stream { tx: tx.clone(), lines: None };
        // Beside the job's files, so that it goes with them however the job ends.
        let samples = job.samples.then(|| dir.0.join("files").join(".stampede-samples.jtl"));
        let heartbeat = heartbeat(tx.clone());
        let mut run = run.output(local).output(stream);
        if let Some(path) = &samples {
            run = run.output(crate::run::JtlOutput::new(vec![path.clone()]));
        }
        let result = run.execute(stop, abort).await;
        heartbeat.abort();
        // The engine's handoff is gone with it: what it said is forwarded, before the `done`.
        if let Some(said) = said {
            let _ = tokio::time::timeout(Duration::from_secs(1), said).await;
        }
        // Sent however the run ended: its rows were measured.
        let sent = match &samples {
            Some(path) => send_samples(tx, path, ROWS_QUEUED).await,
            None => Ok(()),
        };
        listen.abort();
        drop(dir);
        if let Err(e) = result {
            let _ = tx.send(Msg::Failed { message: e.to_string() });
        } else if let Err(message) = sent {
            let _ = tx.send(Msg::Failed { message });
        }
        let _ = tx.send(Msg::Done);
        Ok(())
    }
}

/// Hears the controller's pings and stop while a part runs; silence or a closed connection
/// stops the load (`stop`), and `abort` cuts its graceful stop short 5 s later.
/// What it hears of the run's setup and teardown goes to `heard` (see [`Handoff`]).
fn listen(
    mut r: Reader,
    stop: CancellationToken,
    abort: CancellationToken,
    finish: CancellationToken,
    heard: Option<watch::Sender<Heard>>,
    log: Log,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            // Properties may be long (a script's JSON): as long as an interval line.
            match read(&mut r, ORPHANED, MAX_STREAM_LINE).await {
                Ok(Some(Msg::Ping)) => {}
                Ok(Some(Msg::Stop { finish: true })) => finish.cancel(),
                Ok(Some(Msg::Stop { finish: false })) => stop.cancel(),
                Ok(Some(Msg::Properties { properties })) => {
                    if let Some(h) = &heard {
                        h.send_modify(|h| h.properties = Some(properties));
                    }
                }
                Ok(Some(Msg::Teardown)) => {
                    if let Some(h) = &heard {
                        h.send_modify(|h| h.teardown = true);
                    }
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    if !stop.is_cancelled() {
                        log("agent: the controller is gone: stopping the load");
                    }
                    stop.cancel();
                    tokio::time::sleep(SILENCE).await;
                    abort.cancel();
                    return;
                }
            }
        }
    })
}

/// The engine's part in the run's setup and teardown (`setup_once`, see [`Job::setup_once`]):
/// what the engine hears comes through the watch's sender (given to [`listen`]); what it says
/// goes to the controller from a task of its own, which ends with the engine's handoff.
#[allow(clippy::type_complexity)]
fn handoff(
    setup_once: Option<bool>,
    tx: &Tx,
) -> (Option<Handoff>, Option<watch::Sender<Heard>>, Option<tokio::task::JoinHandle<()>>) {
    let Some(once) = setup_once else { return (None, None, None) };
    let (said, mut says) = tokio::sync::mpsc::unbounded_channel();
    let (hears, heard) = watch::channel(Heard::default());
    let tx = tx.clone();
    let forward = tokio::spawn(async move {
        while let Some(s) = says.recv().await {
            let m = match s {
                Said::SetupEnded(properties) => Msg::Properties { properties },
                Said::MainEnded => Msg::MainEnded,
            };
            let _ = tx.send(m);
        }
    });
    (Some(Handoff { once, said, heard }), Some(hears), Some(forward))
}

/// A heartbeat of the agent's own, so that its controller hears from it while it waits for the
/// start or runs a long graceful stop.
fn heartbeat(tx: Tx) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if tx.send(Msg::Ping).is_err() {
                return;
            }
        }
    })
}

/// Where an agent's own lines go (its process's log: the CLI prints them to stderr).
pub(crate) type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// The bytes of rows an agent lets wait for its connection: a results file is read as fast as
/// the controller takes it, never whole into memory (an hour at 10k requests/s is gigabytes).
const ROWS_QUEUED: usize = 4 << 20;

/// The size of one [`Msg::Samples`].
const ROWS_BATCH: usize = 1 << 20;

/// Sends the rows of the part's results file to the controller, in batches of about
/// `ROWS_BATCH`, with at most about `bound` bytes of them waiting to be written.
async fn send_samples(tx: &Tx, path: &Path, bound: usize) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("its results file cannot be read: {e}");
    let file = tokio::fs::File::open(path).await.map_err(cannot)?;
    let mut lines = BufReader::with_capacity(1 << 16, file).lines();
    let mut batch = String::new();
    let mut first = true;
    while let Some(line) = lines.next_line().await.map_err(cannot)? {
        if std::mem::take(&mut first) && line == crate::rundir::jtl::HEADER {
            continue;
        }
        batch.push_str(&line);
        batch.push('\n');
        if batch.len() >= ROWS_BATCH {
            tx.room(bound).await;
            let _ = tx.send(Msg::Samples { rows: std::mem::take(&mut batch) });
        }
    }
    if !batch.is_empty() {
        tx.room(bound).await;
        let _ = tx.send(Msg::Samples { rows: batch });
    }
    Ok(())
}

/// Marks the agent free again when a job's connection ends, however it ends.
struct Free<'a>(&'a AtomicBool);

impl Drop for Free<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// A job's directory under the agent's work directory: the plan's files in `files/`, the part's
/// run directory in `run/`. Dropped, it deletes the files (a plan, a CSV of logins) and, when no
/// run was made, the directory itself: however the job ends (it ran, its plan did not load, its
/// controller left before the start, an error, a panic unwinding), nothing of it but a run stays;
/// files it cannot delete are said through the agent's log.
struct JobDir(PathBuf, JobDirs, Log);

/// The job directories an agent has in progress (its own: the work directory may be shared).
#[derive(Clone, Default)]
pub(crate) struct JobDirs(Arc<std::sync::Mutex<Vec<PathBuf>>>);

impl JobDirs {
    /// Deletes the files of every job in progress (a process about to leave); says which could
    /// not be deleted.
    pub(crate) fn delete(&self) -> Vec<String> {
        let dirs: Vec<PathBuf> = self.0.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect();
        dirs.iter().filter_map(|dir| delete_job_files(dir)).collect()
    }
}

impl JobDir {
    /// A new directory of its own for a job under `work`, readable by this user only.
    fn new(work: &Path, jobs: &JobDirs, log: Log) -> Result<JobDir, String> {
        for _ in 0..100 {
            let dir = work.join(format!("job-{:016x}", rand::random::<u64>()));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    private(&dir);
                    jobs.0.lock().unwrap_or_else(|e| e.into_inner()).push(dir.clone());
                    return Ok(JobDir(dir, jobs.clone(), log));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot make a job directory in {}: {e}", work.display())),
            }
        }
        Err(format!("cannot make a job directory in {}", work.display()))
    }
}

impl Drop for JobDir {
    fn drop(&mut self) {
        self.1 .0.lock().unwrap_or_else(|e| e.into_inner()).retain(|d| *d != self.0);
        if let Some(e) = delete_job_files(&self.0) {
            (self.2)(&e);
        }
    }
}

/// Deletes a job's files and, when nothing else is in it (no run was made), its directory; says
/// why the files stay, when they do.
fn delete_job_files(dir: &Path) -> Option<String> {
    let files = dir.join("files");
    let failed = match std::fs::remove_dir_all(&files) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Some(format!("agent: cannot delete the job's files in {}: {e}", files.display()))
        }
        _ => None,
    };
    // Only when empty: a part's run directory stays.
    let _ = std::fs::remove_dir(dir);
    failed
}

/// Makes `dir` readable by this user only: a job's files may hold logins and tokens.
pub(crate) fn private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
}

/// Whether `path` is relative and stays below the directory it is joined to: a job's file stays
/// inside the root its files were shipped under.
fn inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Writes the job's files under `dir` and loads its plan for its segment.
fn prepare(job: &Job, dir: &Path) -> Result<(Plan, crate::engine::segment::Segment), String> {
    let files = dir.join("files");
    if !inside(&job.plan) {
        return Err("the job's plan is outside its directory".into());
    }
    let mut total = 0u64;
    for f in &job.files {
        let rel = Path::new(&f.path);
        if !inside(&f.path) {
            return Err(format!("the job names a file outside its directory: {}", f.path));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&f.base64)
            .map_err(|e| format!("{}: not base64: {e}", f.path))?;
        total += bytes.len() as u64;
        if total > MAX_JOB_BYTES {
            return Err(format!("the job's files weigh more than {} MiB", MAX_JOB_BYTES >> 20));
        }
        let path = files.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let segment = crate::engine::segment::Segment::parse(&job.segment).map_err(|e| e.to_string())?;
    let opts = LoadOptions {
        properties: job.properties.iter().cloned().collect(),
        replacements: job.replacements.clone(),
        skip_unsupported: job.skip_unsupported,
        lenient_files: false,
        strict: false,
        // The controller's --allow-commands is not the agent machine's owner's consent: an
        // OS Process Sampler's samples fail unrun on an agent.
        allow_commands: false,
    };
    let load = || Plan::load_with(&files.join(&job.plan), &opts).map_err(|e| e.to_string());
    let root = std::path::absolute(&files).map_err(|e| format!("{}: {e}", files.display()))?;
    let mut plan = crate::confine::moved(Path::new(&job.root), &root, load)?.plan;
    let overrides = Overrides {
        users: job.users,
        duration: job.duration_ms.map(Duration::from_millis),
        iterations: job.iterations,
        ramp_up: job.ramp_up_ms.map(Duration::from_millis),
    };
    if !overrides.is_empty() {
        for s in &mut plan.scenarios {
            s.workload = s.workload.bounded(&overrides);
        }
    }
    if job.data_split {
        crate::run::split_rows(&mut plan, &segment);
    }
    if job.samples {
        // The controller writes them from the rows sent back.
        plan.result_files.clear();
    }
    // Goals that stop the run are judged by the controller, on every agent's numbers.
    for t in &mut plan.thresholds {
        t.abort = None;
    }
    plan.stop_on.clear();
    Ok((plan, segment))
}

/// The output that streams an agent's run directory to its controller.
struct Stream {
    tx: Tx,
    lines: Option<IntervalLines>,
}

impl Output for Stream {
    fn name(&self) -> &str {
        "stream to the controller"
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        self.lines = Some(IntervalLines::new(start.meta));
        let _ = self.tx.send(Msg::Meta { meta: Box::new(start.meta.clone()) });
        Ok(())
    }

    fn begins(&mut self, meta: &RunMeta) -> Result<(), OutputError> {
        let _ = self.tx.send(Msg::Meta { meta: Box::new(meta.clone()) });
        Ok(())
    }

    fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
        if let Some(l) = self.lines.as_mut() {
            let _ = self.tx.send(Msg::Line { line: l.line(iv) });
        }
        Ok(())
    }

    fn finish(&mut self, end: &End<'_>) -> Result<(), OutputError> {
        let summary = serde_json::to_value(end.summary).expect("a summary serialises");
        let _ = self.tx.send(Msg::Summary { summary });
        let _ = self.tx.send(Msg::Meta { meta: Box::new(end.meta.clone()) });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part's results file reaches a slow controller whole, row for row, with never more than
    /// the bound (and the batch being sent) of its rows in memory: not the whole file.
    #[tokio::test]
    async fn results_rows_reach_a_slow_controller_whole_with_bounded_rows_in_memory() {
        use tokio::io::AsyncReadExt;
        let path = std::env::temp_dir().join(format!("stampede-agent-rows-{}.jtl", std::process::id()));
        let row = format!("{}\n", "x".repeat(99));
        let rows = 100_000;
        let mut text = format!("{}\n", crate::rundir::jtl::HEADER);
        for _ in 0..rows {
            text.push_str(&row);
        }
        std::fs::write(&path, &text).unwrap();
        drop(text);
        let (ours, mut theirs) = tokio::io::duplex(1 << 16);
        let (_r, tx, written) = split(Box::new(ours));
        let queued = tx.queued.clone();
        let controller = tokio::spawn(async move {
            let (mut got, mut buf, mut most) = (Vec::new(), vec![0; 1 << 16], 0);
            loop {
                let n = theirs.read(&mut buf).await.unwrap();
                if n == 0 {
                    return (got, most);
                }
                got.extend_from_slice(&buf[..n]);
                most = most.max(queued.bytes.load(Ordering::SeqCst));
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
        });
        let bound = 2 << 20;
        send_samples(&tx, &path, bound).await.unwrap();
        drop(tx);
        written.await.unwrap();
        let (got, most) = controller.await.unwrap();
        let _ = std::fs::remove_file(&path);
        let mut seen = 0;
        for line in got.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            match serde_json::from_slice::<Msg>(line).unwrap() {
                Msg::Samples { rows } => seen += rows.lines().inspect(|l| assert_eq!(*l, &row[..99])).count(),
                other => panic!("unexpected {}", kind(&Some(other))),
            }
        }
        assert_eq!(seen, rows);
        assert!(most <= bound + ROWS_BATCH + row.len(), "{most} bytes of rows waited");
        // The controller was slow enough for the bound to matter.
        assert!(most > bound / 2, "{most}");
    }

    #[test]
    fn a_job_s_files_go_when_it_ends_and_its_run_stays() {
        let work = std::env::temp_dir().join(format!("stampede-agent-jobs-{}", std::process::id()));
        std::fs::create_dir_all(&work).unwrap();
        let jobs = JobDirs::default();
        let ran = JobDir::new(&work, &jobs, Arc::new(|_| {})).unwrap();
        let failed = JobDir::new(&work, &jobs, Arc::new(|_| {})).unwrap();
        let (ran_dir, failed_dir) = (ran.0.clone(), failed.0.clone());
        for d in [&ran_dir, &failed_dir] {
            std::fs::create_dir_all(d.join("files/data")).unwrap();
            std::fs::write(d.join("files/data/logins.csv"), "u,p\n").unwrap();
        }
        std::fs::create_dir_all(ran_dir.join("run")).unwrap();
        drop(ran);
        assert!(!ran_dir.join("files").exists() && ran_dir.join("run").is_dir());
        drop(failed);
        assert!(!failed_dir.exists());
        // A process leaving with a job in progress deletes its files too.
        let left = JobDir::new(&work, &jobs, Arc::new(|_| {})).unwrap();
        std::fs::create_dir_all(left.0.join("files")).unwrap();
        let left_dir = left.0.clone();
        std::mem::forget(left);
        assert!(jobs.delete().is_empty());
        assert!(!left_dir.exists());
        let _ = std::fs::remove_dir_all(&work);
    }
}
