//! The run-time state of a run's users: what they all share ([`RunShared`]: data files' shared
//! cursors, write-back files, shared counters, the per-sample log), what a scenario's users
//! share ([`ScenarioCtx`]: its program, recorder, stop signals and gauges), and each user's
//! own variables ([`UserVars`], the [`Scope`] its templates render from).

use super::program::Program;
use crate::plan::flow::StopKind;
use crate::plan::template::{Scope, VarId};
use crate::plan::{DataSpec, WriterSpec};
use crate::record::{Recorder, SampleRow};
use rand::rngs::SmallRng;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// What every user of a run shares, whatever its scenario.
pub(crate) struct RunShared {
    pub feeders: Vec<Feeder>,
    pub writers: Vec<Writer>,
    pub globals: Arc<Globals>,
    pub initial_vars: Vec<String>,
    /// The variables' names, by id (a Debug Sampler lists them).
    pub var_names: Vec<String>,
    pub user_counters: u32,
    pub slots: crate::plan::Slots,
    pub cookies: bool,
    /// JMeter's HTTP managers: caches, the cookie policy and cookies, what iterations clear.
    pub managers: crate::plan::managers::PlanManagers,
    /// Whether anything of the managers is cleared as an iteration starts.
    pub managers_clear: bool,
    /// Which response headers tell the upstream's time.
    pub timing_headers: Arc<crate::plan::timing::TimingHeaders>,
    /// JMeter's bandwidth emulation, read as the first connection opens.
    pub bandwidth: super::client::Bandwidth,
    pub last_ok: Option<crate::plan::template::VarId>,
    /// Cancelled when a data file that says `stop_run` runs out: every scenario stops.
    pub stop_run: CancellationToken,
    /// Counters shared by all users, by slot.
    pub counters: Vec<AtomicU64>,
    /// Critical Section Controllers' locks, by name (JMeter's static LOCK_MAP).
    pub locks: Mutex<std::collections::HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Throughput controllers' shared (passes, executions), by slot.
    pub throughput: Vec<Mutex<(u64, u64)>>,
    /// Where a row per sample goes, when a JTL file is written.
    pub sample_log: Option<std::sync::mpsc::Sender<SampleRow>>,
    /// The wall-clock time of the run's epoch, in ms since the Unix epoch.
    pub epoch_unix_ms: u64,
    /// Users running an iteration, in every scenario.
    pub active_all: AtomicU64,
    /// Throughput Shaping Timers' turns, by slot.
    pub pacers: Vec<Mutex<super::executor::shaping::Pacer>>,
    /// Precise Throughput Timers' arrivals, by slot.
    pub arrivals: Vec<Mutex<super::executor::precise::Generator>>,
    /// Synchronizing Timers' barriers, by slot.
    pub barriers: Vec<super::sync_timer::Barrier>,
    /// Each scenario's users on this generator (its share on agents), the batch of a
    /// Synchronizing Timer of group size 0; empty without one.
    pub sync_users: Vec<u64>,
    /// Each scenario's Synchronizing Timers' slots, told when one of its users ends; empty
    /// without one.
    pub sync_scopes: Vec<Vec<u32>>,
    /// Timers evaluated while the test runs, by slot.
    pub timers: Vec<crate::plan::flow::TimerExpr>,
    /// Labels rendered for each sample, by `LabelId`; empty when the plan has none.
    pub label_templates: Vec<Option<crate::plan::Template>>,
    /// The names rendered so far and their ids.
    pub run_labels: Arc<crate::record::RunLabels>,
    /// What script elements see of the run (see `engine::scripting`).
    pub scripts: ScriptShared,
}

/// What script elements see of the run: the plan's variables by name, its directory and
/// files, its thread groups, and where their log lines go.
#[derive(Debug, Default)]
pub(crate) struct ScriptShared {
    pub names: Arc<std::collections::HashMap<String, VarId>>,
    pub base_dir: std::path::PathBuf,
    pub readable: Vec<std::path::PathBuf>,
    pub writable: Vec<std::path::PathBuf>,
    /// Each scenario's name and number of users.
    pub groups: Vec<(String, u64)>,
    pub log: Option<crate::engine::ScriptLog>,
    /// The plan's labels by id (a sample's `getSampleLabel()`).
    pub labels: Arc<[String]>,
    /// The run's properties get the plan's `-J` ones once, on the first script that runs.
    pub seeded: std::sync::OnceLock<()>,
}

/// A data file and its shared readers (JMeter's FileServer: one reader per file and sharing
/// mode), each opened as a user first takes a row: with `share: all`, one for the run; with
/// `share: scenario`, one per scenario. A user that reads on its own keeps its cursor.
pub(crate) struct Feeder {
    pub spec: DataSpec,
    pub all: SharedReader,
    /// Empty unless the file is shared by scenario.
    pub per_scenario: Vec<SharedReader>,
}

/// Boxed, so that a reader not used (a scenario that does not read the file) costs a word.
pub(crate) type SharedReader = Mutex<Option<Box<crate::plan::csv_data::RowReader>>>;

impl Feeder {
    pub(crate) fn new(spec: &DataSpec, scenarios: usize) -> Feeder {
        let per_scenario = match spec.share {
            crate::plan::Share::Scenario => (0..scenarios).map(|_| Mutex::new(None)).collect(),
            _ => Vec::new(),
        };
        Feeder { spec: spec.clone(), all: Mutex::new(None), per_scenario }
    }
}

/// A write-back file, or `None` when it could not be opened (its writes are skipped).
pub(crate) type Writer = Option<Mutex<std::io::BufWriter<std::fs::File>>>;

impl RunShared {
    /// Opens the write-back files (appending), writing their header when they are new or empty.
    /// A file that cannot be opened (or its header written) does not stop the run: as JMeter's
    /// script that fails to open it logs the error and leaves the sample alone, its writes are
    /// skipped. Returns the writers and a warning per such file.
    pub(crate) fn open_writers(specs: &[WriterSpec]) -> (Vec<Writer>, Vec<String>) {
        let mut warnings = Vec::new();
        let writers = specs
            .iter()
            .map(|w| match open_writer(w) {
                Ok(bw) => Some(Mutex::new(bw)),
                Err(e) => {
                    warnings.push(format!("{e}; its write-back lines are skipped"));
                    None
                }
            })
            .collect();
        (writers, warnings)
    }
}

fn open_writer(w: &WriterSpec) -> Result<std::io::BufWriter<std::fs::File>, String> {
    // Resolved where the plan loaded (no link left in it): opened without following one put in
    // its place since, and refused if it is not a regular file (a FIFO would block for ever).
    let file = crate::confine::open(&w.path, crate::confine::Access::Append)
        .map_err(|e| format!("cannot open {} for writing: {e}", w.path.display()))?;
    let empty = file.metadata().map(|m| m.len() == 0).unwrap_or(false);
    let mut bw = std::io::BufWriter::new(file);
    if let (true, Some(h)) = (empty, &w.header) {
        bw.write_all(&csv_line(h))
            .and_then(|_| bw.flush())
            .map_err(|e| format!("cannot write {}: {e}", w.path.display()))?;
    }
    Ok(bw)
}

/// One CSV line, `\n`-terminated, written by the `csv` crate: a field is quoted only when it
/// holds a comma, a quote or a line break (JMeter's rule). A line with no text at all (no
/// field, or one empty field) is an empty line, where the crate would write `""`.
pub(crate) fn csv_line(fields: &[String]) -> Vec<u8> {
    if fields.iter().all(String::is_empty) && fields.len() <= 1 {
        return b"\n".to_vec();
    }
    // The longest the line can be (every byte a quote, every field quoted): the crate's buffer
    // then holds it whole and hands it to the output in one write.
    let longest = fields.iter().map(|f| 2 * f.len() + 3).sum::<usize>() + 1;
    let mut w = csv::WriterBuilder::new().buffer_capacity(longest).from_writer(Vec::new());
    w.write_record(fields).expect("writing to memory cannot fail");
    w.into_inner().expect("writing to memory cannot fail")
}

/// How many abandon tokens a scenario's users share (see [`ScenarioCtx::abandon_token`]):
/// more than the worker threads of most machines.
pub(crate) const ABANDON_SHARDS: u64 = 64;

/// What every user of a scenario shares.
pub(crate) struct ScenarioCtx {
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
    /// Children of `hard` that users wait on, each shared by every [`ABANDON_SHARDS`]th user
    /// (see [`ScenarioCtx::abandon_token`]); made as users start.
    pub abandon: std::sync::Mutex<Vec<CancellationToken>>,
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
    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    pub(crate) fn micros(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_micros() as u64
    }

    /// Whether the scenario was stopped by an interrupt or a `stop_run` (not by its own end).
    pub(crate) fn stop_was_interrupt(&self) -> bool {
        self.shared.stop_run.is_cancelled()
    }

    /// Held by a user's task for its whole life (a shaped workload's renewed users in it
    /// included): its end tells the Synchronizing Timers of its scenario that one user fewer
    /// can come.
    pub(crate) fn user_task(&self) -> UserTask<'_> {
        UserTask(self)
    }

    /// The token user `thread_num` waits on to abandon its request in flight: a child of
    /// `hard`. Every request waits on it (and reads it once done), each time under the token's
    /// lock: one token for all users would have every worker thread meet on that lock; one per
    /// user costs each ~120 bytes for the whole run. Users share [`ABANDON_SHARDS`] of them
    /// in turn, so threads rarely meet and a user costs nothing.
    pub(crate) fn abandon_token(&self, thread_num: u64) -> CancellationToken {
        let i = (thread_num.saturating_sub(1) % ABANDON_SHARDS) as usize;
        let mut tokens = self.abandon.lock().unwrap_or_else(|e| e.into_inner());
        while tokens.len() <= i {
            tokens.push(self.hard.child_token());
        }
        tokens[i].clone()
    }

    /// Stops the scenario from starting anything new (the watcher then applies the grace time).
    pub(crate) fn stop_now(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.stop.cancel();
    }
}

/// See [`ScenarioCtx::user_task`].
pub(crate) struct UserTask<'a>(&'a ScenarioCtx);

impl Drop for UserTask<'_> {
    fn drop(&mut self) {
        let shared = &self.0.shared;
        for &slot in shared.sync_scopes.get(self.0.index).map_or(&[][..], Vec::as_slice) {
            shared.barriers[slot as usize].user_ended();
        }
    }
}

/// Shared by every user of a run: global counters.
#[derive(Debug, Default)]
pub(crate) struct Globals {
    pub counters: Vec<AtomicU64>,
    /// The jp@gc Inter-Thread Communication queues.
    pub fifos: super::fifo::Fifos,
    /// JMeter properties `__setProperty` set while the test runs (global to the run).
    pub properties: std::sync::RwLock<std::collections::HashMap<String, String>>,
    /// Properties scripts stored that are not text (`props.put("m", map)`).
    pub property_objects: std::sync::RwLock<std::collections::HashMap<String, crate::script::Value>>,
    /// The variables' names by id when unset is a state of its own (a JMX plan, see
    /// `VarTable::unset_distinct`): an unset variable holds its own reference `${name}`, and
    /// `""` is a value. Empty otherwise, and `""` for a variable where `""` stands for unset
    /// (see `VarTable::quiet`).
    pub unset_names: Vec<String>,
}

impl Globals {
    #[cfg(test)]
    pub(crate) fn new(symbols_counters: u32) -> Arc<Globals> {
        Arc::new(Globals::with_counters(symbols_counters))
    }

    fn with_counters(symbols_counters: u32) -> Globals {
        Globals {
            counters: (0..symbols_counters).map(|_| AtomicU64::new(0)).collect(),
            fifos: Default::default(),
            properties: Default::default(),
            property_objects: Default::default(),
            unset_names: Vec::new(),
        }
    }

    /// A run's globals: with the variables' names when the plan keeps unset apart from `""`.
    pub(crate) fn for_plan(plan: &crate::plan::Plan) -> Arc<Globals> {
        let mut g = Globals::with_counters(plan.global_counters);
        if plan.vars.unset_distinct() {
            let name = |id: VarId| match plan.vars.unset_reads_as_reference(id) {
                true => plan.vars.name(id).to_string(),
                false => String::new(),
            };
            g.unset_names = (0..plan.vars.len()).map(|i| name(VarId(i as u32))).collect();
        }
        Arc::new(g)
    }
}

/// One user's variables and function state: what its templates render from.
#[derive(Debug)]
pub(crate) struct UserVars {
    pub values: Vec<String>,
    pub counters: Vec<u64>,
    /// 1-based number of the user in its scenario (`__threadNum`).
    pub thread_num: u64,
    pub rng: SmallRng,
    pub globals: Arc<Globals>,
    /// Set when the user's scenario stops: a function waiting on a queue gives up.
    pub stop: Option<tokio_util::sync::CancellationToken>,
    /// The plan's variables by name (a script's `vars.get("x")`).
    pub names: Arc<std::collections::HashMap<String, VarId>>,
    /// Variables a script set that no template names, and objects (`vars.putObject`): boxed,
    /// made on the first, as most users never have one and every user carries the field.
    pub named: Option<Box<NamedVars>>,
    /// JMeter's thread name, where scripts ask for it.
    pub thread_name_text: Option<String>,
    /// The run's script log, where template functions' log lines go; `None`: nowhere (an
    /// engine run without the run layer).
    pub script_log: Option<crate::engine::ScriptLog>,
}

type ScriptResult = Result<crate::script::Script, crate::script::CompileError>;

/// What a user's scripts set by name outside the plan's variables.
#[derive(Debug, Default)]
pub(crate) struct NamedVars {
    pub extra: std::collections::HashMap<String, String>,
    pub objects: std::collections::HashMap<String, crate::script::Value>,
    /// The first rendering of each cached JSR223 script the user ran, compiled
    /// (`Code::Rendered::first`, by its key): kept here, not as a variable, because JMeter has
    /// none, so neither a Debug Sampler nor `vars.entrySet()` lists it.
    pub first_scripts: Vec<(u32, crate::plan::sampler::script::Compiled)>,
}

/// The variable names of a user whose scripts have not asked for them: one map for all.
static NO_NAMES: std::sync::LazyLock<Arc<std::collections::HashMap<String, VarId>>> =
    std::sync::LazyLock::new(Default::default);

impl UserVars {
    fn named(&mut self) -> &mut NamedVars {
        self.named.get_or_insert_with(Default::default)
    }

    /// The script `code` runs now: for a cached JSR223 script, the one its first run rendered
    /// (kept per user, compiled), else rendered now.
    pub(crate) fn script(
        &mut self,
        code: &crate::plan::sampler::script::Code,
        lang: crate::script::Lang,
    ) -> ScriptResult {
        let Some(key) = code.first() else { return code.script(lang, self) };
        let kept = self.named.as_deref().and_then(|n| n.first_scripts.iter().find(|(k, _)| *k == key));
        if let Some((_, (_, r))) = kept {
            return r.clone();
        }
        let c = code.render(lang, self);
        let r = c.1.clone();
        self.named().first_scripts.push((key, c));
        r
    }

    pub(crate) fn new(initial: Vec<String>, user_counters: u32, thread_num: u64, globals: Arc<Globals>) -> UserVars {
        use rand::SeedableRng;
        UserVars {
            values: initial,
            counters: vec![0; user_counters as usize],
            thread_num,
            rng: SmallRng::from_os_rng(),
            globals,
            stop: None,
            names: NO_NAMES.clone(),
            named: None,
            thread_name_text: None,
            script_log: None,
        }
    }

    pub(crate) fn get(&self, id: VarId) -> &str {
        &self.values[id.index()]
    }

    pub(crate) fn set(&mut self, id: VarId, value: &str) {
        let v = &mut self.values[id.index()];
        v.clear();
        v.push_str(value);
    }

    /// Whether the variable is unset: it holds its own reference `${name}` (a JMX plan, or a
    /// variable that reads so until set), or `""` where unset is not told apart from it.
    pub(crate) fn is_unset(&self, id: VarId) -> bool {
        let v = self.values[id.index()].as_str();
        match self.globals.unset_names.get(id.index()) {
            Some(name) if !name.is_empty() => is_reference_to(v, name),
            _ => v.is_empty(),
        }
    }

    /// Unsets the variable (JMeter's `vars.remove`): its own reference `${name}` where unset
    /// is a state of its own, else `""`.
    pub(crate) fn unset(&mut self, id: VarId) {
        let v = &mut self.values[id.index()];
        v.clear();
        // A quiet variable (`""` in `unset_names`) is unset when `""`: its reference would
        // be `${}`, which nothing reads as unset.
        if let Some(name) = self.globals.unset_names.get(id.index()).filter(|n| !n.is_empty()) {
            v.push_str("${");
            v.push_str(name);
            v.push('}');
        }
    }

    /// Whether the quiet variable `name` (an extractor's `name_i` or `name_i_gK`, which holds
    /// `""` when unset) is one of the matches its extractor kept, `i` no more than
    /// `name_matchNr`: then its `""` is a value (a group that matched empty), as in JMeter.
    fn match_kept(&self, name: &str) -> bool {
        let base = match name.rsplit_once("_g") {
            Some((b, g)) if !g.is_empty() && g.bytes().all(|c| c.is_ascii_digit()) => b,
            _ => name,
        };
        let Some((prefix, i)) = base.rsplit_once('_') else { return false };
        let Ok(i) = i.parse::<usize>() else { return false };
        let Some(count) = self.names.get(&format!("{prefix}_matchNr")) else { return false };
        self.values[count.index()].parse::<usize>().is_ok_and(|n| i >= 1 && i <= n)
    }
}

/// Whether `v` is the reference `${name}`, the text an unset variable reads as.
pub(crate) fn is_reference_to(v: &str, name: &str) -> bool {
    v.len() == name.len() + 3 && v.starts_with("${") && v.ends_with('}') && &v[2..v.len() - 1] == name
}

impl Scope for UserVars {
    fn var(&self, id: VarId) -> &str {
        &self.values[id.index()]
    }

    fn set_var(&mut self, id: VarId, value: &str) {
        self.set(id, value);
    }

    fn count(&mut self, per_user: bool, slot: u32) -> u64 {
        if per_user {
            let c = &mut self.counters[slot as usize];
            *c += 1;
            *c
        } else {
            self.globals.counters[slot as usize].fetch_add(1, Ordering::Relaxed) + 1
        }
    }

    fn thread_num(&self) -> u64 {
        self.thread_num
    }

    fn rng(&mut self) -> &mut SmallRng {
        &mut self.rng
    }

    fn property(&self, name: &str) -> Option<String> {
        self.globals.properties.read().unwrap_or_else(|e| e.into_inner()).get(name).cloned()
    }

    fn set_property(&mut self, name: &str, value: &str) -> Option<String> {
        let mut all = self.globals.properties.write().unwrap_or_else(|e| e.into_inner());
        all.insert(name.to_string(), value.to_string())
    }

    fn var_named(&self, name: &str) -> Option<&str> {
        match self.names.get(name) {
            // A plan variable: unset while still its own reference, or empty where `""` is
            // not a value of its own: a YAML plan's, or a quiet match beyond `name_matchNr`.
            Some(id) => {
                let v = self.values[id.index()].as_str();
                let unset = is_reference_to(v, name)
                    || v.is_empty()
                        && match self.globals.unset_names.get(id.index()) {
                            None => true,
                            Some(n) if n.is_empty() => !self.match_kept(name),
                            Some(_) => false,
                        };
                (!unset).then_some(v)
            }
            None => self.named.as_ref()?.extra.get(name).map(String::as_str),
        }
    }

    fn set_var_named(&mut self, name: &str, value: &str) {
        if let Some(n) = self.named.as_mut() {
            n.objects.remove(name);
        }
        match self.names.get(name) {
            Some(id) => self.set(*id, value),
            None => {
                self.named().extra.insert(name.to_string(), value.to_string());
            }
        }
    }

    fn remove_var_named(&mut self, name: &str) -> Option<String> {
        let before = self.var_named(name).map(str::to_string);
        match self.names.get(name) {
            Some(id) => self.unset(*id),
            None => {
                if let Some(n) = self.named.as_mut() {
                    n.extra.remove(name);
                }
            }
        }
        if let Some(n) = self.named.as_mut() {
            n.objects.remove(name);
        }
        before
    }

    fn object(&self, name: &str) -> Option<crate::script::Value> {
        self.named.as_ref()?.objects.get(name).cloned()
    }

    fn put_object(&mut self, name: &str, value: crate::script::Value) {
        if value.is_null() {
            if let Some(n) = self.named.as_mut() {
                n.objects.remove(name);
            }
        } else {
            self.named().objects.insert(name.to_string(), value);
        }
    }

    fn var_entries(&self) -> Option<Vec<(String, crate::script::Value)>> {
        let mut out: Vec<(String, crate::script::Value)> = Vec::new();
        let mut names: Vec<(&String, &VarId)> = self.names.iter().collect();
        names.sort_by_key(|(_, id)| **id);
        for (n, _) in names {
            if let Some(v) = self.var_named(n) {
                out.push((n.clone(), v.into()));
            }
        }
        let Some(named) = self.named.as_deref() else { return Some(out) };
        out.extend(named.extra.iter().map(|(k, v)| (k.clone(), v.as_str().into())));
        for (k, o) in &named.objects {
            match out.iter_mut().find(|(n, _)| n == k) {
                Some(e) => e.1 = o.clone(),
                None => out.push((k.clone(), o.clone())),
            }
        }
        Some(out)
    }

    fn thread_name(&self) -> Option<String> {
        self.thread_name_text.clone()
    }

    fn log(&mut self, level: crate::plan::script_host::Level, text: &str) {
        // As the script elements' lines, with secrets redacted; printed by no one here (the run
        // hands them to its outputs).
        if let Some(tx) = &self.script_log {
            let _ = tx.send(format!("{} function: {}", level.name(), crate::redact::text(text)));
        }
    }

    fn property_object(&self, name: &str) -> Option<crate::script::Value> {
        let objects = self.globals.property_objects.read().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = objects.get(name) {
            return Some(v.clone());
        }
        drop(objects);
        self.property(name).map(crate::script::Value::from)
    }

    fn put_property_object(&mut self, name: &str, value: crate::script::Value) {
        let mut objects = self.globals.property_objects.write().unwrap_or_else(|e| e.into_inner());
        match value {
            crate::script::Value::Str(s) => {
                objects.remove(name);
                drop(objects);
                self.set_property(name, &s);
            }
            crate::script::Value::Null => {
                objects.remove(name);
                drop(objects);
                self.globals.properties.write().unwrap_or_else(|e| e.into_inner()).remove(name);
            }
            other => {
                objects.insert(name.to_string(), other.clone());
                drop(objects);
                // `__P` reads its text.
                self.set_property(name, &other.to_string());
            }
        }
    }

    fn fifo(&mut self, call: crate::plan::template::FifoCall<'_>) -> Option<String> {
        let stop = self.stop.clone();
        self.globals.fifos.call(call, &|| stop.as_ref().is_some_and(|s| s.is_cancelled()))
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
            var_names: Vec::new(),
            user_counters: 0,
            slots: crate::plan::Slots::default(),
            cookies: false,
            managers: Default::default(),
            managers_clear: false,
            timing_headers: Default::default(),
            bandwidth: super::client::Bandwidth::new(&Default::default(), Globals::new(0)),
            last_ok: None,
            stop_run: stop_run.clone(),
            counters: Vec::new(),
            locks: Default::default(),
            throughput: Vec::new(),
            label_templates: Vec::new(),
            run_labels: Arc::new(crate::record::RunLabels::new(&[], 0)),
            scripts: Default::default(),
            sample_log: None,
            epoch_unix_ms: 0,
            active_all: AtomicU64::new(0),
            pacers: Vec::new(),
            arrivals: Vec::new(),
            barriers: Vec::new(),
            sync_users: Vec::new(),
            sync_scopes: Vec::new(),
            timers: Vec::new(),
        });
        Arc::new(ScenarioCtx {
            index: 0,
            program: Program::compile(&[]),
            recorder: Recorder::new(0, 1),
            epoch: Instant::now(),
            stop: stop_run.child_token(),
            stopping: AtomicBool::new(false),
            hard: CancellationToken::new(),
            abandon: Default::default(),
            active: AtomicU64::new(0),
            started: AtomicU64::new(0),
            pacing,
            on_error: StopKind::Continue,
            tls: super::tls::config(&Default::default()).expect("default TLS settings"),
            shared,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::template::{compile, Symbols};

    fn user(sym: &Symbols) -> UserVars {
        UserVars::new(sym.vars.initial_values(), sym.user_counters, 3, Globals::new(sym.global_counters))
    }

    /// #32: a cached JSR223 script with a per-user `${...}`: each of 20 users keeps its own
    /// first rendering, compiled once and run again (more users than the shared cache of
    /// renderings holds recompiled on every run before), and outside its variables.
    #[test]
    fn twenty_users_each_keep_their_first_rendering_of_a_cached_script_compiled() {
        use crate::plan::sampler::script::{first_key, Code};
        use crate::script::Lang;
        let mut s = Symbols { env: Some(Default::default()), ..Default::default() };
        let text = compile(r#"vars.put("seen", "${__threadNum}-${__counter(TRUE)}")"#, &mut s, "f").unwrap();
        let code = Code::Rendered { text, cache: Default::default(), first: Some(first_key()) };
        let before = s.vars.initial_values().len();
        for n in 1..=20u64 {
            let mut u = UserVars::new(s.vars.initial_values(), s.user_counters, n, Globals::new(s.global_counters));
            let a = u.script(&code, Lang::Groovy).unwrap();
            let b = u.script(&code, Lang::Groovy).unwrap();
            assert!(a.same_code(&b), "user {n} runs its first compiled script again");
            let kept = &u.named.as_ref().unwrap().first_scripts[0].1 .0;
            assert_eq!(&**kept, format!(r#"vars.put("seen", "{n}-1")"#), "user {n}");
            assert_eq!(u.values.len(), before, "no variable holds it");
        }
    }

    #[test]
    fn functions_render() {
        let mut s = Symbols { env: Some(Default::default()), ..Default::default() };
        let t = compile(
            "${__UUID()}|${__threadNum}|${__counter(TRUE)}|${__counter(FALSE,n)}|${__Random(5,5)}|${__RandomString(4,ab)}|${__time(/1000)}|${__time(yyyy)}",
            &mut s,
            "f",
        )
        .unwrap();
        let mut u = user(&s);
        let n = s.vars.get("n").unwrap();
        let a = t.render_string(&mut u);
        let parts: Vec<&str> = a.split('|').collect();
        assert_eq!(parts[0].len(), 36);
        assert_eq!(parts[0].as_bytes()[14], b'4', "a v4 UUID: {}", parts[0]);
        assert_eq!(&parts[1..5], ["3", "1", "1", "5"]);
        assert_eq!(u.get(n), "1");
        assert!(parts[5].len() == 4 && parts[5].chars().all(|c| c == 'a' || c == 'b'));
        let secs: u64 = parts[6].parse().unwrap();
        assert!(secs > 1_700_000_000);
        assert_eq!(parts[7].len(), 4);
        let b = t.render_string(&mut u);
        assert_eq!(b.split('|').nth(2), Some("2"), "per-user counter counts per user");
        let mut other = user(&s);
        other.globals = u.globals.clone();
        let c = t.render_string(&mut other);
        assert_eq!(c.split('|').nth(2), Some("1"), "another user has its own counter");
        assert_eq!(c.split('|').nth(3), Some("3"), "the shared counter is shared");
    }

    /// #13: in a plan that calls `__setProperty`, properties are global to the run and read
    /// when called: what one user sets, another reads; `-J` values stand until set; the third
    /// argument `true` returns the value before (`null` when there was none).
    #[test]
    fn set_property_is_seen_by_every_user() {
        let mut s = Symbols { env: Some(Default::default()), properties_change: true, ..Default::default() };
        s.properties.insert("threads".into(), " 50 ".into());
        let set =
            compile("${__setProperty(k,v1)}|${__setProperty(k,v2,true)}|${__setProperty(new,x,TRUE)}|${__setProperty(threads,9,true)}", &mut s, "a")
                .unwrap();
        let get = compile("${__P(k,d)}|${__property(k)}|${__P(threads)}|${__P(nope)}|${__property(nope)}", &mut s, "b")
            .unwrap();
        let mut a = user(&s);
        let mut b = user(&s);
        b.globals = a.globals.clone();
        assert_eq!(get.render_string(&mut b), "d|k|50|1|nope");
        // The value before is the property's text, untrimmed (Properties.setProperty's return).
        assert_eq!(set.render_string(&mut a), "|v1|null| 50 ");
        assert_eq!(get.render_string(&mut b), "v2|v2|9|1|nope");
    }

    /// A user of a plan that keeps unset apart from `""` (a JMX plan).
    fn jmx_user(names: &[&str]) -> UserVars {
        let mut s = Symbols::default();
        for n in names {
            s.vars.assign(n);
        }
        s.vars.set_unset_distinct();
        let mut g = Globals::with_counters(0);
        g.unset_names = names.iter().map(|n| n.to_string()).collect();
        let mut u = UserVars::new(s.vars.initial_values(), 0, 1, Arc::new(g));
        u.names = Arc::new(names.iter().enumerate().map(|(i, n)| (n.to_string(), VarId(i as u32))).collect());
        u
    }

    #[test]
    fn unset_and_empty_are_two_states_where_the_plan_keeps_them_apart() {
        let mut u = jmx_user(&["token", "blank"]);
        let (token, blank) = (VarId(0), VarId(1));
        // Unset: its own reference when rendered, null to `vars.get`.
        assert_eq!(u.get(token), "${token}");
        assert!(u.is_unset(token));
        assert_eq!(u.var_named("token"), None);
        // Set to "": a value.
        u.set(blank, "");
        assert!(!u.is_unset(blank));
        assert_eq!(u.var_named("blank"), Some(""));
        // `vars.remove` unsets again.
        u.set(token, "t1");
        assert_eq!(u.remove_var_named("token"), Some("t1".into()));
        assert_eq!(u.get(token), "${token}");
        assert!(u.is_unset(token));
        // Where the plan does not (YAML), `""` is unset, as before.
        let mut y = UserVars::new(vec![String::new()], 0, 1, Globals::new(0));
        y.names = Arc::new([("v".to_string(), VarId(0))].into_iter().collect());
        assert!(y.is_unset(VarId(0)));
        assert_eq!(y.var_named("v"), None);
        y.unset(VarId(0));
        assert_eq!(y.get(VarId(0)), "");
    }

    /// #32: the 64 `m_N` of a Regular Expression Extractor with match number -1 that no
    /// template reads hold `""` while unset; a script's `vars.get` of one beyond `m_matchNr`
    /// is null (JMeter), before and after `vars.remove`, while a kept match that captured an
    /// empty group is `""`. The common `while (vars.get("m_" + i) != null)` loop stops.
    #[test]
    fn unread_matches_of_a_match_all_extractor_are_null_to_scripts_beyond_the_count() {
        let jmx = r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree>
  <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/><hashTree>
    <ThreadGroup testclass="ThreadGroup" testname="tg" enabled="true">
      <stringProp name="ThreadGroup.num_threads">1</stringProp>
      <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
        <stringProp name="LoopController.loops">1</stringProp></elementProp>
    </ThreadGroup><hashTree>
      <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true">
        <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
        <stringProp name="HTTPSampler.path">/</stringProp>
      </HTTPSamplerProxy><hashTree>
        <RegexExtractor testclass="RegexExtractor" testname="m" enabled="true">
          <stringProp name="RegexExtractor.useHeaders">false</stringProp>
          <stringProp name="RegexExtractor.refname">m</stringProp>
          <stringProp name="RegexExtractor.regex">id=(\d*)</stringProp>
          <stringProp name="RegexExtractor.template">$1$</stringProp>
          <stringProp name="RegexExtractor.match_number">-1</stringProp>
        </RegexExtractor><hashTree/>
        <JSR223PostProcessor testclass="JSR223PostProcessor" testname="s" enabled="true">
          <stringProp name="scriptLanguage">groovy</stringProp>
          <stringProp name="script">int i = 1; while (vars.get("m_" + i) != null) { i++ }; log.info("M2=" + vars.get("m_2"))</stringProp>
        </JSR223PostProcessor><hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</hashTree></jmeterTestPlan>"#;
        let (plan, _) =
            crate::plan::jmx::read(jmx, std::path::Path::new("t.jmx"), &Default::default()).expect("plan loads");
        let mut u = UserVars::new(plan.vars.initial_values(), 0, 1, Globals::for_plan(&plan));
        u.names = Arc::new(
            (0..plan.vars.len()).map(|i| (plan.vars.name(VarId(i as u32)).to_string(), VarId(i as u32))).collect(),
        );
        let id = |n: &str| plan.vars.get(n).expect(n);
        for n in ["m_1", "m_2", "m_5", "m_64"] {
            assert_eq!(u.var_named(n), None, "{n} before any match");
        }
        // Three matches, the third of an empty group.
        u.set(id("m_matchNr"), "3");
        for (n, v) in [("m_1", "1"), ("m_2", "2"), ("m_3", "")] {
            u.set(id(n), v);
        }
        assert_eq!(u.var_named("m_2"), Some("2"));
        assert_eq!(u.var_named("m_3"), Some(""), "a kept match of an empty group is a value");
        assert_eq!(u.var_named("m_4"), None);
        assert_eq!(u.var_named("m_5"), None);
        // The next response has one match: the extractor removes the others.
        u.set(id("m_matchNr"), "1");
        u.unset(id("m_2"));
        u.unset(id("m_3"));
        assert_eq!(u.get(id("m_2")), "", "no `${{}}` text");
        assert!(u.is_unset(id("m_2")));
        assert_eq!(u.var_named("m_2"), None);
        assert_eq!(u.var_named("m_3"), None);
        assert_eq!(u.var_named("m_1"), Some("1"));
        // A script's own `vars.remove` of a kept match.
        assert_eq!(u.remove_var_named("m_1"), Some("1".into()));
        assert!(u.is_unset(id("m_1")));
    }

    /// The quoting the hand-written writer did before the `csv` crate, kept as the witness
    /// that the bytes did not change.
    fn quoted_by_hand(fields: &[String]) -> Vec<u8> {
        let mut line = String::new();
        for (i, f) in fields.iter().enumerate() {
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
        line.into_bytes()
    }

    #[test]
    fn csv_lines_quote_only_what_needs_it() {
        let rows: &[&[&str]] = &[
            &[],
            &[""],
            &["", ""],
            &["a", "b"],
            &["a,b", "c\"d", "e\nf", "g\rh", ""],
            &["\"", " x ", "é;ü", "#1", "'q'"],
            &["\"\"", ",", "\r\n"],
        ];
        for row in rows {
            let row: Vec<String> = row.iter().map(|f| f.to_string()).collect();
            assert_eq!(csv_line(&row), quoted_by_hand(&row), "{row:?}");
        }
        let row = ["a,b".to_string(), "c\"d".to_string()];
        assert_eq!(csv_line(&row), b"\"a,b\",\"c\"\"d\"\n");
    }
}
