//! The plan builder both readers share: it interns labels and check messages, allocates the
//! engine's per-user slots, holds the variables, data files, writers and scenarios, and
//! produces the finished [`Plan`]. A reader only translates its file format into these calls.
//!
//! # How a reader uses it
//!
//! The test `a_reader_builds_a_plan_in_these_calls` at the bottom of this file is the worked
//! example: a request with its defaults, its redirects, a slot, a scenario, the finished plan.

use super::csv_data::{CsvError, CsvOptions, DataFile};
use super::sampler::http::{AllMatches, MAX_ALL_MATCHES};
use super::template::{Symbols, VarTable};
use super::{
    CheckId, DataSpec, Defaults, LabelId, Labels, OnEof, Plan, RequestSpec, Scenario, Shaper, Share, Slots, Target,
    Template, WriterSpec,
};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A kind of per-user state slot a flow step needs (see [`Slots`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A loop's counter (loops, while and for-each controllers).
    Loop,
    /// A once-only flag.
    Once,
    /// An open transaction group.
    Group,
    /// A counter element's value.
    Counter,
    /// A throughput controller's count.
    Throughput,
    /// A throughput timer's pace.
    Pace,
}

/// Collects what a reader reads and makes the [`Plan`]. See the module doc for its use.
#[derive(Debug, Default, Clone)]
pub(crate) struct Builder {
    /// What templates compile against: properties, variables, counters, secrets read.
    pub sym: Symbols,
    labels: Labels,
    label_templates: Vec<(LabelId, Template)>,
    /// The labels in `label_templates`.
    templated_labels: HashSet<LabelId>,
    checks: Vec<String>,
    slots: Slots,
    /// Throughput Shaping Timers, with the key of the element each was read from.
    shapers: Vec<(usize, Shaper)>,
    arrivals: Vec<(usize, super::Arrivals)>,
    timers: Vec<super::flow::TimerExpr>,
    /// Synchronizing Timers, with the key of the element each was read from.
    syncs: Vec<(usize, super::flow::SyncSpec)>,
    data: Vec<DataSpec>,
    /// Every data file opened, with how it was read: another element reading the same file the
    /// same way shares it (one open file and one load-time pass, however many elements).
    data_files: HashMap<(PathBuf, CsvOptions), Arc<DataFile>>,
    writers: Vec<WriterSpec>,
    result_files: Vec<PathBuf>,
    scenarios: Vec<Scenario>,
    /// The scenarios' names, so that naming the next one does not scan them all.
    scenario_names: HashSet<String>,
    /// Per name asked of [`Builder::unique_scenario_name`], the suffix it gave last: `(2)`,
    /// `(3)`... for 10,000 groups of one name are found without trying each again.
    last_suffix: HashMap<String, usize>,
}

impl Builder {
    /// An empty builder; `properties` are the `-J name=value` pairs templates read.
    pub(crate) fn new(properties: HashMap<String, String>) -> Builder {
        Builder { sym: Symbols { properties, ..Default::default() }, ..Default::default() }
    }

    /// The plan's variables.
    pub(crate) fn vars(&mut self) -> &mut VarTable {
        &mut self.sym.vars
    }

    /// The id of a reporting label, interned in the order labels first appear.
    pub(crate) fn label(&mut self, name: &str) -> LabelId {
        self.labels.intern(name)
    }

    /// Label `id` is rendered from `name` for each sample (a sampler named with `${...}`).
    pub(crate) fn run_time_label(&mut self, id: LabelId, name: Template) {
        if self.templated_labels.insert(id) {
            self.label_templates.push((id, name));
        }
    }

    /// Every label interned so far, indexed by [`LabelId`].
    pub(crate) fn labels(&self) -> &[String] {
        self.labels.names()
    }

    /// The message of a check.
    pub(crate) fn check_message(&self, id: CheckId) -> &str {
        &self.checks[id.0 as usize]
    }

    /// The id of a check's message; checks with the same message share one.
    pub(crate) fn check(&mut self, message: String) -> CheckId {
        let i = self.checks.iter().position(|m| *m == message).unwrap_or_else(|| {
            self.checks.push(message);
            self.checks.len() - 1
        });
        CheckId(i as u16)
    }

    /// A new per-user slot of a kind, numbered from 0 within its kind.
    pub(crate) fn slot(&mut self, kind: Slot) -> u32 {
        let s = &mut self.slots;
        let n = match kind {
            Slot::Loop => &mut s.loops,
            Slot::Once => &mut s.once,
            Slot::Group => &mut s.groups,
            Slot::Counter => &mut s.counters,
            Slot::Throughput => &mut s.throughput,
            Slot::Pace => &mut s.paces,
        };
        *n += 1;
        *n - 1
    }

    /// Adds a data file read from `path`; its columns become variables assigned while running.
    /// Returns its index, for [`super::Step::Feed`].
    pub(crate) fn data(&mut self, file: Arc<DataFile>, share: Share, on_eof: OnEof) -> usize {
        self.data.push(DataSpec::new(file, share, on_eof, &mut self.sym.vars));
        self.data.len() - 1
    }

    /// A data file added before under `alias` (see [`DataSpec::alias`]) that reads `file` the
    /// same way, with the same sharing mode and end-of-file rule: another element reading it
    /// shares its rows (JMeter's FileServer keeps one reader per alias, whatever element reads
    /// it).
    pub(crate) fn same_data(&self, alias: &str, file: &DataFile, share: Share, on_eof: OnEof) -> Option<usize> {
        self.data.iter().position(|d| {
            d.alias.as_deref() == Some(alias) && d.share == share && d.on_eof == on_eof && d.file.same_reading(file)
        })
    }

    /// Opens and checks the data file at `path`, or shares the one opened before with the same
    /// options.
    pub(crate) fn open_data(&mut self, path: &Path, opts: &CsvOptions) -> Result<Arc<DataFile>, CsvError> {
        let key = (path.to_path_buf(), opts.clone());
        if let Some(f) = self.data_files.get(&key) {
            return Ok(f.clone());
        }
        let f = Arc::new(DataFile::open(path, opts)?);
        self.data_files.insert(key, f.clone());
        Ok(f)
    }

    /// A data file added before, by its index.
    pub(crate) fn data_file(&self, index: usize) -> &DataSpec {
        &self.data[index]
    }

    pub(crate) fn data_file_mut(&mut self, index: usize) -> &mut DataSpec {
        &mut self.data[index]
    }

    /// The writer of a file `write` steps append to: one per path; the first header given wins.
    /// Returns its index, for [`super::flow::Write::writer`].
    pub(crate) fn writer(&mut self, path: PathBuf, header: Option<Vec<String>>) -> usize {
        match self.writers.iter().position(|w| w.path == path) {
            Some(i) => {
                if self.writers[i].header.is_none() {
                    self.writers[i].header = header;
                }
                i
            }
            None => {
                self.writers.push(WriterSpec { path, header });
                self.writers.len() - 1
            }
        }
    }

    /// A per-sample results file (JTL); each path once.
    pub(crate) fn result_file(&mut self, path: &Path) {
        if !self.result_files.iter().any(|p| p == path) {
            self.result_files.push(path.to_path_buf());
        }
    }

    /// The variables an extractor that keeps every match sets: `name_1`.. and `name_matchNr`.
    pub(crate) fn all_matches(&mut self, name: &str) -> AllMatches {
        let mut quiet = |name: String| {
            let id = self.sym.vars.assign(&name);
            self.sym.vars.quiet(id);
            id
        };
        let vars = (1..=MAX_ALL_MATCHES).map(|i| quiet(format!("{name}_{i}"))).collect();
        AllMatches { vars, count: self.sym.vars.assign(&format!("{name}_matchNr")), concat: None, groups: Vec::new() }
    }

    /// A request labelled `label`, with the connection settings of `defaults`, no body, no
    /// headers, checks or extractors, and redirects not followed (see
    /// [`Builder::follow_redirects`]).
    pub(crate) fn request(
        &mut self,
        label: &str,
        method: String,
        target: Target,
        path: Template,
        defaults: &Defaults,
    ) -> RequestSpec {
        RequestSpec::new(self.label(label), method, target, path, defaults)
    }

    /// Makes a request follow redirects, at most `max_redirects`: each hop is a sample labelled
    /// `label-N`, and a longer chain fails a check.
    pub(crate) fn follow_redirects(&mut self, req: &mut RequestSpec, max_redirects: u32) {
        let label = self.labels.names()[req.label.index()].clone();
        req.follow_redirects = true;
        req.hop_labels = (0..=max_redirects).map(|i| self.label(&format!("{label}-{i}"))).collect();
        req.too_many_redirects = Some(self.check(format!("more than {max_redirects} redirects")));
    }

    /// Whether a scenario of this name was added.
    pub(crate) fn has_scenario(&self, name: &str) -> bool {
        self.scenario_names.contains(name)
    }

    /// A scenario name not taken yet: `name`, then `name (2)`, `name (3)`, ...
    pub(crate) fn unique_scenario_name(&mut self, name: &str) -> String {
        if !self.has_scenario(name) {
            return name.to_string();
        }
        // Names are never given back, so the suffixes below the last one given stay taken (that
        // one too, unless its group added no scenario).
        let mut i = self.last_suffix.get(name).copied().unwrap_or(2);
        let mut n = format!("{name} ({i})");
        while self.has_scenario(&n) {
            i += 1;
            n = format!("{name} ({i})");
        }
        self.last_suffix.insert(name.to_string(), i);
        n
    }

    /// The scenarios added so far.
    pub(crate) fn scenarios(&self) -> &[Scenario] {
        &self.scenarios
    }

    /// The slot of a rate schedule shared by every user; the same `key` (the element it was read
    /// from, read once per scope it is in) gives the same slot, as JMeter shares the one timer.
    pub(crate) fn shaper(&mut self, key: usize, shaper: Shaper) -> u32 {
        if let Some(i) = self.shapers.iter().position(|(k, _)| *k == key) {
            return i as u32;
        }
        self.shapers.push((key, shaper));
        self.shapers.len() as u32 - 1
    }

    /// The slot of an arrival schedule; the same `key` (the thread group it is read in) gives the
    /// same slot, as JMeter keeps one per thread group, whatever timer asks first.
    pub(crate) fn arrivals(&mut self, key: usize, arrivals: super::Arrivals) -> u32 {
        if let Some(i) = self.arrivals.iter().position(|(k, _)| *k == key) {
            return i as u32;
        }
        self.arrivals.push((key, arrivals));
        self.arrivals.len() as u32 - 1
    }

    /// The slot of a Synchronizing Timer's barrier; the same `key` (the element it was read
    /// from, read once per scope it is in) gives the same slot, as JMeter's clones of the one
    /// timer share its barrier.
    pub(crate) fn sync_timer(&mut self, key: usize, spec: super::flow::SyncSpec) -> u32 {
        if let Some(i) = self.syncs.iter().position(|(k, _)| *k == key) {
            return i as u32;
        }
        self.syncs.push((key, spec));
        self.syncs.len() as u32 - 1
    }

    /// The slot of a timer evaluated while the test runs.
    pub(crate) fn timer(&mut self, timer: super::flow::TimerExpr) -> u32 {
        self.timers.push(timer);
        self.timers.len() as u32 - 1
    }

    /// Adds a scenario; scenarios run (within their phase) in the order added.
    pub(crate) fn scenario(&mut self, scenario: Scenario) {
        self.scenario_names.insert(scenario.name.clone());
        self.scenarios.push(scenario);
    }

    /// The finished plan: everything added, with templates that read only variables nothing
    /// assigns while running folded into constant text. Plan-wide switches (TLS, cookies,
    /// thresholds, `last_ok`, `consecutive`) are the reader's to set on the result.
    pub(crate) fn finish(self, name: String, source: Option<PathBuf>) -> Plan {
        let mut plan = Plan::new(name, source);
        plan.labels = self.labels.into_names();
        plan.label_templates = self.label_templates;
        plan.scenarios = self.scenarios;
        plan.vars = self.sym.vars;
        plan.secrets = self.sym.secrets;
        plan.load_log = self.sym.load_log;
        plan.global_counters = self.sym.global_counters;
        plan.user_counters = self.sym.user_counters;
        plan.data = self.data;
        plan.writers = self.writers;
        plan.result_files = self.result_files;
        plan.checks = self.checks;
        plan.slots = self.slots;
        plan.shapers = self.shapers.into_iter().map(|(_, s)| s).collect();
        plan.arrivals = self.arrivals.into_iter().map(|(_, a)| a).collect();
        plan.timers = self.timers;
        plan.syncs = self.syncs.into_iter().map(|(_, s)| s).collect();
        plan.fold_constants();
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_builds_a_plan_in_these_calls() {
        use crate::plan::{flow, ClosedWorkload};
        use crate::plan::{Defaults, Phase, Scenario, Step, Target, Template, Workload};
        use std::time::Duration;

        let mut b = Builder::new(Default::default());
        // Variables and templates compile against `b.sym` (properties, variables, counters).
        b.sym.vars.define("host", "127.0.0.1".into());
        let target = Target { tls: false, host: "127.0.0.1".into(), port: 8080 };
        // A request: a label, a method, where it goes and its path; everything else from defaults.
        let mut req = b.request("home", "GET".into(), target, Template::literal("/"), &Defaults::default());
        b.follow_redirects(&mut req, 20); // hop labels `home-0`.. and the too-many-redirects check
        let slot = b.slot(Slot::Once); // a once-only controller's per-user flag
        let _ = slot;
        let workload = Workload::Closed(ClosedWorkload {
            users: 1,
            ramp_up: Duration::ZERO,
            iterations: Some(1),
            duration: None,
            start_delay: Duration::ZERO,
            graceful_stop: Duration::ZERO,
        });
        b.scenario(Scenario {
            name: "main".into(),
            workload,
            pacing: None,
            on_error: flow::StopKind::Continue,
            phase: Phase::Main,
            flow: vec![Step::Sample(crate::plan::sampler::Sampler::Http(Box::new(req)))],
        });
        let mut plan = b.finish("example".into(), None);
        // Plan-wide switches the reader knows (TLS, cookies, thresholds...) are set on the result.
        plan.cookies = false;
        assert_eq!(plan.labels[0], "home");
    }

    #[test]
    fn labels_and_checks_are_interned_once_in_order() {
        let mut b = Builder::default();
        assert_eq!((b.label("a"), b.label("b"), b.label("a")), (LabelId(0), LabelId(1), LabelId(0)));
        assert_eq!(
            (b.check("x".into()), b.check("y".into()), b.check("x".into())),
            (CheckId(0), CheckId(1), CheckId(0))
        );
        assert_eq!(b.labels(), ["a", "b"]);
    }

    #[test]
    fn slots_count_per_kind() {
        let mut b = Builder::default();
        assert_eq!([b.slot(Slot::Loop), b.slot(Slot::Loop), b.slot(Slot::Once), b.slot(Slot::Pace)], [0, 1, 0, 0]);
        let plan = b.finish("p".into(), None);
        assert_eq!(plan.slots, Slots { loops: 2, once: 1, paces: 1, ..Default::default() });
    }

    #[test]
    fn a_writer_per_path_keeps_the_first_header() {
        let mut b = Builder::default();
        assert_eq!(b.writer("a.csv".into(), None), 0);
        assert_eq!(b.writer("b.csv".into(), Some(vec!["x".into()])), 1);
        assert_eq!(b.writer("a.csv".into(), Some(vec!["h".into()])), 0);
        assert_eq!(b.writer("a.csv".into(), Some(vec!["other".into()])), 0);
        let plan = b.finish("p".into(), None);
        assert_eq!(plan.writers[0].header, Some(vec!["h".to_string()]));
    }

    #[test]
    fn a_request_follows_redirects_only_when_told() {
        let mut b = Builder::default();
        let target = Target { tls: false, host: "127.0.0.1".into(), port: 80 };
        let d = Defaults::default();
        let mut r = b.request("get", "GET".into(), target, Template::literal("/"), &d);
        assert!(!r.follow_redirects && r.hop_labels.is_empty() && r.too_many_redirects.is_none());
        assert_eq!(
            (r.keep_alive, r.connect_timeout, r.max_response_size),
            (true, d.connect_timeout, d.max_response_size)
        );
        b.follow_redirects(&mut r, 2);
        assert_eq!(r.hop_labels, [LabelId(1), LabelId(2), LabelId(3)]);
        let plan = b.finish("p".into(), None);
        assert_eq!(plan.labels, ["get", "get-0", "get-1", "get-2"]);
        assert_eq!(plan.checks, ["more than 2 redirects"]);
    }
}
