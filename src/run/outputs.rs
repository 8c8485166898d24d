//! The built-in outputs that write files: the run directory ([`RunDirOutput`]) and JMeter
//! results files ([`JtlOutput`]). The progress line is [`crate::progress::Progress`].

use super::output::{End, Output, OutputError, SampleSender, Start};
use crate::record::{Interval, SampleRow};
use crate::rundir::{self, jtl, Place, RunMeta, RunWriter};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// The run directory: `meta.json` and `plan.yaml` when it is claimed, a flushed line per
/// interval (`intervals.jsonl`, and the roll-ups of [`rundir::LogFormat`]; a killed run keeps
/// them), `summary.json` and the final `meta.json` at the end.
pub struct RunDirOutput {
    dir: PathBuf,
    writer: Option<RunWriter>,
    /// `scripts.log`'s writer, started with its first line (see [`ScriptLogWriter`]).
    script_log: Option<ScriptLogWriter>,
}

/// Writes `scripts.log` on a thread of its own, so that a script logging every sample does not
/// hold up the run's task, which merges the intervals: each batch is appended with what came
/// meanwhile and flushed (a run killed keeps what its scripts said until then). The file is made
/// with the first line; one that cannot be written is let go (a fact lost, not the run's
/// numbers), as JMeter goes on without its `jmeter.log`.
struct ScriptLogWriter {
    tx: Option<std::sync::mpsc::Sender<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptLogWriter {
    fn start(path: PathBuf) -> ScriptLogWriter {
        use std::io::Write as _;
        let (tx, rx) = std::sync::mpsc::channel::<Vec<String>>();
        let thread = std::thread::Builder::new().name("scripts.log".into()).spawn(move || {
            let Ok(file) = std::fs::OpenOptions::new().create(true).append(true).open(path) else { return };
            let mut f = std::io::BufWriter::new(file);
            while let Ok(first) = rx.recv() {
                let mut batch = std::iter::once(first).chain(rx.try_iter()).flatten();
                let written = batch.try_for_each(|l| writeln!(f, "{l}")).and_then(|_| f.flush());
                if written.is_err() {
                    return;
                }
            }
        });
        ScriptLogWriter { tx: Some(tx), thread: thread.ok() }
    }

    fn send(&self, lines: &[String]) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(lines.to_vec());
        }
    }

    /// Waits for what was sent to be written.
    fn finish(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ScriptLogWriter {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The run directory's script log: [`Output::log`]'s lines, appended and flushed as they come.
pub(super) use rundir::SCRIPT_LOG;

impl RunDirOutput {
    /// [`Output::name`] of the run directory.
    pub const NAME: &'static str = "run directory";

    /// Claims the directory `place` names and writes the run's first files, before the run
    /// starts (as a server is handed an already-bound listener): a directory that is taken is
    /// an error while nothing has been sent. `meta` is [`Run::meta`](super::Run::meta).
    pub fn create(place: &Place, meta: &RunMeta, plan: &crate::plan::Plan) -> Result<RunDirOutput, rundir::Error> {
        let writer = RunWriter::create(place, meta, &plan.to_resolved_yaml())?;
        Ok(RunDirOutput { dir: writer.dir().to_path_buf(), writer: Some(writer), script_log: None })
    }

    /// The directory claimed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Output for RunDirOutput {
    /// Hands the lines to `scripts.log`'s writer (see `ScriptLogWriter`).
    fn log(&mut self, lines: &[String]) {
        let dir = &self.dir;
        self.script_log.get_or_insert_with(|| ScriptLogWriter::start(dir.join(SCRIPT_LOG))).send(lines);
    }

    fn name(&self) -> &str {
        Self::NAME
    }

    fn begins(&mut self, meta: &RunMeta) -> Result<(), OutputError> {
        match &self.writer {
            Some(w) => Ok(w.restart_meta(meta)?),
            None => Ok(()),
        }
    }

    fn interval(&mut self, interval: &Interval) -> Result<(), OutputError> {
        match self.writer.as_mut() {
            Some(w) => Ok(w.append(interval)?),
            None => Ok(()),
        }
    }

    fn finish(&mut self, end: &End<'_>) -> Result<(), OutputError> {
        // The script log whole before the run is said to have ended.
        if let Some(mut log) = self.script_log.take() {
            log.finish();
        }
        match self.writer.take() {
            Some(w) => Ok(w.finish(end.meta, end.summary)?),
            None => Ok(()),
        }
    }
}

/// Per-sample results in JMeter's CSV format, appended to each file the plan names (a JMX
/// plan's listeners, `run --jtl`), on a thread of its own.
pub struct JtlOutput {
    paths: Vec<PathBuf>,
    sender: Option<SampleSender>,
    thread: Option<JoinHandle<Result<u64, jtl::Error>>>,
}

impl JtlOutput {
    /// [`Output::name`] of the results files.
    pub const NAME: &'static str = "results file";

    /// Writes to `paths` (opened when the run starts; nothing is written without a path).
    pub fn new(paths: Vec<PathBuf>) -> JtlOutput {
        JtlOutput { paths, sender: None, thread: None }
    }
}

impl Output for JtlOutput {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        if self.paths.is_empty() {
            return Ok(());
        }
        let plan = start.plan;
        let names = jtl::Names {
            labels: plan.labels.clone(),
            checks: plan.checks.clone(),
            scenarios: plan.scenarios.iter().map(|s| s.name.clone()).collect(),
            secrets: plan.secrets.clone(),
        };
        let (tx, rx) = std::sync::mpsc::channel::<SampleRow>();
        self.thread = Some(jtl::spawn(std::mem::take(&mut self.paths), names, rx)?);
        self.sender = Some(tx);
        Ok(())
    }

    fn sample_rows(&mut self) -> Option<SampleSender> {
        // Handed over, not kept: the writer ends when the engine drops the last sender.
        self.sender.take()
    }

    fn interval(&mut self, _: &Interval) -> Result<(), OutputError> {
        Ok(())
    }

    /// Waits for the writer to write the last rows. A file cut short (a full disk) is an
    /// incomplete result, as an incomplete run directory is.
    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        self.sender = None;
        match self.thread.take().map(JoinHandle::join) {
            None | Some(Ok(Ok(_))) => Ok(()),
            Some(Ok(Err(e))) => Err(e.into()),
            Some(Err(_)) => Err("its writer failed".into()),
        }
    }
}
