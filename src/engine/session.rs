//! What the users of a run share: [`RunShared`] (data files' shared cursors, write-back files,
//! shared counters, the per-sample log) and, per scenario, [`ScenarioCtx`] (its program, its
//! recorder, its stop signals and gauges).

use super::program::Program;
use crate::plan::flow::StopKind;
use crate::plan::template::Globals;
use crate::plan::{DataSpec, WriterSpec};
use crate::record::{Recorder, SampleRow};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// What every user of a run shares, whatever its scenario.
pub struct RunShared {
    pub feeders: Vec<Feeder>,
    pub writers: Vec<Mutex<std::io::BufWriter<std::fs::File>>>,
    pub globals: Arc<Globals>,
    pub initial_vars: Vec<String>,
    pub user_counters: u32,
    pub slots: crate::plan::Slots,
    pub cookies: bool,
    pub last_ok: Option<crate::plan::template::VarId>,
    /// Cancelled when a data file that says `stop_run` runs out: every scenario stops.
    pub stop_run: CancellationToken,
    /// Counters shared by all users, by slot.
    pub counters: Vec<AtomicU64>,
    /// Throughput controllers' shared (passes, executions), by slot.
    pub throughput: Vec<Mutex<(u64, u64)>>,
    /// Where a row per sample goes, when a JTL file is written.
    pub sample_log: Option<std::sync::mpsc::Sender<SampleRow>>,
    /// The wall-clock time of the run's epoch, in ms since the Unix epoch.
    pub epoch_unix_ms: u64,
    /// Users running an iteration, in every scenario.
    pub active_all: AtomicU64,
}

/// A data file's rows and the cursors that are shared.
pub struct Feeder {
    pub spec: DataSpec,
    pub all: AtomicU64,
    pub per_scenario: Vec<AtomicU64>,
}

impl RunShared {
    /// Opens the write-back files (appending), writing their header when they are new or empty.
    pub fn open_writers(specs: &[WriterSpec]) -> Result<Vec<Mutex<std::io::BufWriter<std::fs::File>>>, String> {
        let mut out = Vec::new();
        for w in specs {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&w.path)
                .map_err(|e| format!("cannot open {} for writing: {e}", w.path.display()))?;
            let empty = file.metadata().map(|m| m.len() == 0).unwrap_or(false);
            let mut bw = std::io::BufWriter::new(file);
            if let (true, Some(h)) = (empty, &w.header) {
                let line = csv_line(h.iter().map(String::as_str));
                bw.write_all(line.as_bytes())
                    .and_then(|_| bw.flush())
                    .map_err(|e| format!("cannot write {}: {e}", w.path.display()))?;
            }
            out.push(Mutex::new(bw));
        }
        Ok(out)
    }
}

/// One CSV line: fields quoted when they hold a comma, a quote or a line break.
pub fn csv_line<'a>(fields: impl Iterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            line.push(',');
        }
        if f.contains([',', '"', '\n', '\r']) {
            line.push('"');
            line.push_str(&f.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(f);
        }
    }
    line.push('\n');
    line
}

/// What every user of a scenario shares.
pub struct ScenarioCtx {
    pub index: usize,
    pub program: Program,
    pub recorder: Arc<Recorder>,
    /// The run's time origin: sample times are µs since then.
    pub epoch: Instant,
    /// Cancelled when the scenario must stop starting requests (its end, or an interrupt).
    pub stop: CancellationToken,
    /// The same as `stop`, as a plain flag: checked before every request, so it must be cheap.
    pub stopping: AtomicBool,
    /// Cancelled when requests still in flight must be abandoned (grace time over).
    pub hard: CancellationToken,
    /// Users currently running an iteration.
    pub active: AtomicU64,
    /// Users started so far (numbers users for `__threadNum`).
    pub started: AtomicU64,
    /// Closed model: the least time between iteration starts.
    pub pacing: Option<Duration>,
    /// What a user does after a failed sample.
    pub on_error: StopKind,
    pub tls: Arc<rustls::ClientConfig>,
    pub shared: Arc<RunShared>,
}

impl ScenarioCtx {
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    pub(crate) fn micros(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_micros() as u64
    }

    /// Whether the scenario was stopped by an interrupt or a `stop_run` (not by its own end).
    pub fn stop_was_interrupt(&self) -> bool {
        self.shared.stop_run.is_cancelled()
    }

    /// Stops the scenario from starting anything new (the watcher then applies the grace time).
    pub fn stop_now(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.stop.cancel();
    }
}

#[cfg(test)]
impl ScenarioCtx {
    /// A scenario with an empty program and nothing shared, for executor tests.
    pub(crate) fn for_test(pacing: Option<Duration>) -> Arc<ScenarioCtx> {
        let stop_run = CancellationToken::new();
        let shared = Arc::new(RunShared {
            feeders: Vec::new(),
            writers: Vec::new(),
            globals: Globals::new(0),
            initial_vars: Vec::new(),
            user_counters: 0,
            slots: crate::plan::Slots::default(),
            cookies: false,
            last_ok: None,
            stop_run: stop_run.clone(),
            counters: Vec::new(),
            throughput: Vec::new(),
            sample_log: None,
            epoch_unix_ms: 0,
            active_all: AtomicU64::new(0),
        });
        Arc::new(ScenarioCtx {
            index: 0,
            program: Program::compile(&[]),
            recorder: Recorder::new(0, 1),
            epoch: Instant::now(),
            stop: stop_run.child_token(),
            stopping: AtomicBool::new(false),
            hard: CancellationToken::new(),
            active: AtomicU64::new(0),
            started: AtomicU64::new(0),
            pacing,
            on_error: StopKind::Continue,
            tls: super::tls::config(&Default::default()).expect("default TLS settings"),
            shared,
        })
    }
}
