//! The one in-memory model of a load test, and its readers. A [`Plan`] holds scenarios; a
//! `Scenario` holds a `Workload` (how much) and a flow of `Step`s (what each user does).
//! YAML plans, JMX plans and the CLI's quick mode all become a `Plan`, each reader translating
//! its format into calls on the plan builder (`build::Builder`); nothing downstream knows
//! which. Request URLs are split by `resolve_url`, comparison
//! operators in `compare`, thresholds in `threshold`.

pub(crate) mod accesslog;
pub(crate) mod anchor;
pub(crate) mod build;
pub(crate) mod compare;
pub(crate) mod condition;
pub(crate) mod csv_data;
pub(crate) mod describe;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod flow;
pub(crate) mod java_uri;
pub(crate) mod jmx;
pub(crate) mod jregex;
// The JSONPath engine the interpreter's `JsonPath` shares with the JSON Extractor and Assertion.
pub(crate) use crate::script::jsonpath;
pub(crate) mod managers;
pub(crate) mod markup;
pub(crate) mod process;
pub(crate) mod properties;
mod quick;
pub(crate) mod sampler;
pub(crate) mod script_host;
pub(crate) mod template;
pub(crate) mod threshold;
pub(crate) mod timing;
mod url;
pub(crate) mod workload;
mod yaml;

pub use quick::QuickPlan;
pub(crate) use quick::{validate_method, QUICK_BODY};
pub(crate) use sampler::http::gzip;
pub(crate) use url::compile_url;
pub(crate) use url::resolve_url;
#[cfg(test)]
use url::url_path_start;
pub(crate) use yaml::{parse_duration, MAX_DURATION};

pub use error::{Error, ErrorKind, Location};
pub(crate) use flow::{Branch, Step, Think};
pub(crate) use sampler::http::{
    Body, Check, CheckId, CheckTest, ExtractSource, Extractor, Field, HttpVersion, RequestSpec, Target,
};
pub(crate) use template::{Template, VarId, VarTable};
pub(crate) use workload::{
    ArrivalProcess, Arrivals, ClosedWorkload, OpenWorkload, Overrides, ShapedWorkload, Shaper, Stage, Times, Workload,
};

use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A dense index into `Plan::labels`, fixed at load time so the hot path never hashes names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LabelId(pub u32);

impl LabelId {
    /// The index into the label names.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A load test, read and checked: the one model both readers (YAML, JMX) and quick mode produce,
/// and the only input of a run. Opaque outside the crate: load it, run it, write it back as YAML.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub(crate) name: String,
    /// The file the plan was read from; `None` in quick mode.
    pub(crate) source: Option<PathBuf>,
    /// Reporting names, indexed by [`LabelId`], in the order they first appear in the plan
    /// (in `meta.json`, not repeated in the resolved plan).
    #[serde(skip)]
    pub(crate) labels: Vec<String>,
    /// Labels whose name holds `${...}`: rendered for each sample, as JMeter renders a
    /// sampler's name (see `record::RunLabels`).
    #[serde(skip)]
    pub(crate) label_templates: Vec<(LabelId, Template)>,
    pub(crate) scenarios: Vec<Scenario>,
    /// Every variable the plan's templates use, with initial values.
    #[serde(skip)]
    pub(crate) vars: VarTable,
    #[serde(skip)]
    pub(crate) global_counters: u32,
    #[serde(skip)]
    pub(crate) user_counters: u32,
    /// Data files (CSV feeders), indexed by `Step::Feed`.
    pub(crate) data: Vec<DataSpec>,
    /// Files that `write` steps append to, indexed by `flow::Write::writer`.
    pub(crate) writers: Vec<WriterSpec>,
    /// Per-sample results files (JMeter's JTL CSV), from a JMX plan's listeners or `--jtl`.
    pub(crate) result_files: Vec<PathBuf>,
    /// Check messages, indexed by [`CheckId`].
    pub(crate) checks: Vec<String>,
    pub(crate) tls: TlsOptions,
    /// Each user keeps a cookie jar (RFC 6265), as a JMeter thread with a Cookie Manager.
    pub(crate) cookies: bool,
    /// JMeter's HTTP managers: caches, the cookie policy and cookies, what iterations clear.
    #[serde(skip)]
    pub(crate) managers: managers::PlanManagers,
    /// Per-user state slots the flows need: loop counters, once-flags, open groups.
    #[serde(skip)]
    pub(crate) slots: Slots,
    /// Rate schedules shared by every user (Throughput Shaping Timers), by `Think::Shaped` slot.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) shapers: Vec<workload::Shaper>,
    /// Arrival schedules shared by the users of a thread group (Precise Throughput Timers), by
    /// `Think::Precise` slot.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) arrivals: Vec<workload::Arrivals>,
    /// Timers whose values are known only while the test runs, by `Think::Timed` slot.
    #[serde(skip)]
    pub(crate) timers: Vec<flow::TimerExpr>,
    /// Synchronizing Timers' barriers, by `Think::Sync` slot.
    #[serde(skip)]
    pub(crate) syncs: Vec<flow::SyncSpec>,
    /// A variable the engine sets to `true`/`false` after each request, by its outcome
    /// (JMeter's `${JMeterThread.last_sample_ok}`).
    #[serde(skip)]
    pub(crate) last_ok: Option<VarId>,
    /// The scenarios of a phase run one after another, in plan order, instead of together
    /// (JMeter's "Run Thread Groups consecutively").
    pub(crate) consecutive: bool,
    /// JMeter's bandwidth emulation (`httpclient.socket.http[s].cps`).
    #[serde(skip)]
    pub(crate) bandwidth: Bandwidth,
    /// Pass/fail goals judged when the run ends (`stampede run` exits 1 when one fails).
    #[serde(serialize_with = "serialize_thresholds", skip_serializing_if = "Vec::is_empty")]
    pub(crate) thresholds: Vec<threshold::Threshold>,
    /// Conditions that end the run early when they hold second after second (`stop_on:`,
    /// `--stop-on`); the run then exits as a failed goal does.
    #[serde(serialize_with = "serialize_stop_on", skip_serializing_if = "Vec::is_empty")]
    pub(crate) stop_on: Vec<threshold::StopOn>,
    /// Values masked wherever they appear in what stampede writes (see [`crate::redact`]).
    #[serde(skip)]
    pub(crate) secrets: crate::redact::Secrets,
    /// What functions evaluated while the plan loaded logged (`__log`, `log.info` in a
    /// `__groovy`), secrets masked: a run hands them to its outputs first (`scripts.log`),
    /// `check` prints them.
    #[serde(skip)]
    pub(crate) load_log: Vec<String>,
    /// jp@gc AutoStop Listeners: limits that stop the test.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) autostops: Vec<flow::AutoStop>,
    /// Which response headers tell the upstream's own time (`defaults.timing_headers`, the JMX
    /// property `stampede.timing_headers`, then the gateways' own).
    #[serde(skip_serializing_if = "timing::TimingHeaders::is_builtin")]
    pub(crate) timing_headers: timing::TimingHeaders,
    /// The files its loading named and read (see [`Plan::files_read`]).
    #[serde(skip)]
    pub(crate) reads: crate::confine::Reads,
}

fn serialize_stop_on<S: serde::Serializer>(t: &[threshold::StopOn], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(t.iter().map(|t| t.to_string()))
}

fn serialize_thresholds<S: serde::Serializer>(t: &[threshold::Threshold], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(t.iter().map(|t| t.to_string()))
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Slots {
    pub loops: u32,
    pub once: u32,
    pub groups: u32,
    pub counters: u32,
    pub throughput: u32,
    pub paces: u32,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Scenario {
    pub name: String,
    pub workload: Workload,
    /// Closed model: an iteration starts at most once per this period (the user waits out the
    /// rest after a quicker iteration).
    #[serde(with = "serde_duration::option")]
    pub pacing: Option<Duration>,
    /// What a user does after a failed sample (JMeter's "Action to be taken after a Sampler
    /// error").
    pub on_error: flow::StopKind,
    /// When it runs: setup scenarios first, then the main ones together, then teardown.
    pub phase: Phase,
    pub flow: Vec<Step>,
}

impl Scenario {
    /// Whether its flow reads rows of a data file (a CSV Data Set, a YAML `data`).
    pub(crate) fn reads_data(&self) -> bool {
        let mut reads = false;
        flow::for_each_step(&self.flow, &mut |s| reads |= matches!(s, Step::Feed(_)));
        reads
    }
}

/// The order scenarios run in (JMeter's setUp and tearDown thread groups).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Phase {
    Setup,
    #[default]
    Main,
    Teardown,
}

/// Which rows of a data file a part of a run owns (`--data split`): the plan knows only the
/// rule, the run gives it (a segment's, which the plan must not depend on).
#[derive(Clone)]
pub(crate) struct RowSplit(pub std::sync::Arc<dyn Fn(u64) -> bool + Send + Sync>);

impl std::fmt::Debug for RowSplit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RowSplit")
    }
}

/// A data file: rows read in order into variables, one row per `Feed` step. The rows are read
/// from the file as users take them (see `csv_data`): a plan holds none.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DataSpec {
    pub path: PathBuf,
    pub names: Vec<String>,
    #[serde(skip)]
    pub columns: Vec<VarId>,
    #[serde(skip)]
    pub file: std::sync::Arc<csv_data::DataFile>,
    pub share: Share,
    pub on_eof: OnEof,
    /// JMeter's "stop thread on EOF": a row of no fields (a blank line of a JMX data file, which
    /// JMeter reads as end of file) stops the user; otherwise every column reads `<EOF>`.
    #[serde(skip)]
    pub stop_on_empty_row: bool,
    /// A part of a run with `--data split` reads only the rows it owns: row k (from 0, in each
    /// pass) when it owns index k.
    #[serde(skip)]
    pub split: Option<RowSplit>,
    /// Which reader of the file this is, when a plan names it (JMeter's FileServer alias: the
    /// file name as written, and a custom sharing key): elements of the same name share a
    /// reader; `./a.csv`, a link to it, or another key each have their own.
    #[serde(skip)]
    pub alias: Option<String>,
}

impl DataSpec {
    /// A data file; its columns become variables the plan assigns while running.
    pub(crate) fn new(
        file: std::sync::Arc<csv_data::DataFile>,
        share: Share,
        on_eof: OnEof,
        vars: &mut VarTable,
    ) -> DataSpec {
        let columns = file.names().iter().map(|n| vars.assign(n)).collect();
        DataSpec {
            path: file.path().to_path_buf(),
            names: file.names().to_vec(),
            columns,
            file,
            share,
            on_eof,
            stop_on_empty_row: false,
            split: None,
            alias: None,
        }
    }

    /// Whether this part reads row `k` of a pass.
    pub(crate) fn owns(&self, k: u64) -> bool {
        self.split.as_ref().is_none_or(|s| (s.0)(k))
    }
}

/// Who shares a data file's cursor (JMeter's CSV Data Set "sharing mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Share {
    /// One cursor for every user of every scenario: each row goes to one user.
    All,
    /// One cursor per scenario.
    Scenario,
    /// Each user reads the file from the start.
    User,
}

/// What happens when a data file runs out of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OnEof {
    /// Start again from the first row.
    Recycle,
    /// The user stops (in the open model, the scenario stops starting iterations).
    StopUser,
    /// The whole run stops.
    StopRun,
    /// Every column reads `<EOF>` from then on (JMeter's CSV Data Set that neither recycles
    /// nor stops the thread).
    MarkEof,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WriterSpec {
    pub path: PathBuf,
    /// Written first when the file is new or empty.
    pub header: Option<Vec<String>>,
}

/// TLS settings for every HTTPS request of the plan. Files are read and checked when the plan
/// loads; the PEM text is kept for the engine, which parses it (`engine::tls`).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct TlsOptions {
    /// Accept any server certificate (self-signed test servers). Off by default.
    pub insecure: bool,
    /// Extra trusted authorities, besides the Mozilla roots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ca: Option<PathBuf>,
    /// Client certificate chain and key for mutual TLS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_cert: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_key: Option<PathBuf>,
    #[serde(skip)]
    pub ca_pem: Option<Vec<u8>>,
    #[serde(skip)]
    pub client_cert_pem: Option<Vec<u8>>,
    #[serde(skip)]
    pub client_key_pem: Option<Vec<u8>>,
}

/// A TLS file that does not hold what its setting needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct TlsFileError(String);

impl TlsOptions {
    /// Checks that the extra authorities' file holds PEM certificates, so that a plan with a
    /// bad file fails when it loads (the engine parses it when the run starts: `engine::tls`).
    pub(crate) fn check_ca(&self) -> Result<(), TlsFileError> {
        self.ca_pem.as_deref().map_or(Ok(()), |pem| pem_certificates("ca", pem))
    }

    /// Checks the client certificate chain and key files, when both are given.
    pub(crate) fn check_client_auth(&self) -> Result<(), TlsFileError> {
        use rustls::pki_types::{pem::PemObject, PrivateKeyDer};
        let (Some(cert), Some(key)) = (&self.client_cert_pem, &self.client_key_pem) else { return Ok(()) };
        pem_certificates("client_cert", cert)?;
        PrivateKeyDer::from_pem_slice(key)
            .map(drop)
            .map_err(|e| TlsFileError(format!("client_key: no private key in PEM format ({e})")))
    }
}

/// Whether `pem` holds one certificate or more, and no malformed block.
fn pem_certificates(setting: &str, pem: &[u8]) -> Result<(), TlsFileError> {
    use rustls::pki_types::{pem::PemObject, CertificateDer};
    let mut found = false;
    for block in CertificateDer::pem_slice_iter(pem) {
        block.map_err(|e| TlsFileError(format!("{setting}: not a PEM certificate file ({e})")))?;
        found = true;
    }
    match found {
        true => Ok(()),
        false => Err(TlsFileError(format!("{setting}: the file has no `BEGIN CERTIFICATE` block"))),
    }
}

/// Connection and request settings that apply unless a request says otherwise.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Defaults {
    pub base_url: Option<String>,
    pub headers: Vec<(String, Template)>,
    pub connect_timeout: Duration,
    pub response_timeout: Duration,
    pub keep_alive: bool,
    pub http_version: HttpVersion,
    pub max_response_size: u64,
    pub follow_redirects: bool,
    pub max_redirects: u32,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            base_url: None,
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(60),
            keep_alive: true,
            http_version: HttpVersion::Http11,
            max_response_size: 64 * 1024 * 1024,
            // As JMeter's HTTP sampler, k6 and browsers: a redirect is followed unless the plan
            // says otherwise.
            follow_redirects: true,
            max_redirects: 20,
        }
    }
}

/// JMeter's bandwidth emulation: `httpclient.socket.http.cps` and `httpclient.socket.https.cps`,
/// characters per second each connection of that scheme reads and writes (0: no limit).
/// JMeter's HttpClient 4 reads them once, as its class is loaded by the run's first HTTP sample,
/// so a setUp thread group's script may still set them; the engine reads them then too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Bandwidth {
    /// The values of `-J`, `-p` and user.properties when the plan loaded: `[http, https]`.
    pub loaded: [u32; 2],
    /// A script or function of the plan may set properties while it runs: the values are read
    /// from the run's properties when the first connection opens.
    pub scripted: bool,
}

impl Bandwidth {
    pub(crate) const PROPERTIES: [&'static str; 2] = ["httpclient.socket.http.cps", "httpclient.socket.https.cps"];

    /// A property's value as JMeter's `getPropDefault(name, 0)` reads an int: trimmed, and 0
    /// when it is no number (or negative: no emulation).
    pub(crate) fn cps(value: Option<&str>) -> u32 {
        value.and_then(|v| v.trim().parse::<i32>().ok()).map_or(0, |n| n.max(0) as u32)
    }
}

/// How a plan file is read.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// `-J name=value` (and `-p file`) properties.
    pub properties: HashMap<String, String>,
    /// `--set TOKEN=value`: literal text replaced in the file before it is parsed (the corpus's
    /// `sed` placeholders), in the order given.
    pub replacements: Vec<(String, String)>,
    /// JMX: run without the elements stampede cannot run, instead of refusing the plan.
    pub skip_unsupported: bool,
    /// JMX: report data and body files that cannot be read instead of failing (`check`).
    pub lenient_files: bool,
    /// JMX: refuse what JMeter loads but that goes wrong at run time (`--strict`).
    pub strict: bool,
    /// JMX: OS Process Samplers run their commands (`--allow-commands`); without it each of
    /// their samples fails, so that a plan from elsewhere runs nothing on this machine unasked.
    pub allow_commands: bool,
}

/// What reading a plan file found (`stampede check`): the plan or the error `run` gives, every
/// problem apart, for a `.jmx` every element, and the files a run needs that cannot be read now.
#[derive(Debug)]
pub(crate) struct Inspected {
    pub plan: Result<Plan, Error>,
    pub elements: Option<Vec<jmx::ElementReport>>,
    pub problems: Vec<Error>,
    /// With `lenient_files`: each file the plan reads that cannot be read now.
    pub needs: Vec<Error>,
    /// The values to mask in what is shown of the plan.
    pub secrets: crate::redact::Secrets,
}

/// A plan and, for a `.jmx`, what became of each of its elements.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The plan.
    pub plan: Plan,
    pub(crate) elements: Option<Vec<jmx::ElementReport>>,
}

impl Plan {
    /// Each label's scenario (by `LabelId` index) when the plan has more than one: the scenario
    /// whose flow has the label's samplers, or `None` for a label several scenarios share (their
    /// samples are one row, as JMeter's listeners count one name once) or none names (a redirect
    /// hop, a name rendered at run time). Empty for a plan of one scenario: its series stay as
    /// they were, with no tag that says nothing.
    pub(crate) fn label_scenarios(&self) -> Vec<Option<String>> {
        let plan = self;
        if plan.scenarios.len() < 2 {
            return Vec::new();
        }
        // None: no scenario yet; Some(None): several.
        let mut of: Vec<Option<Option<usize>>> = vec![None; plan.labels.len()];
        for (k, s) in plan.scenarios.iter().enumerate() {
            let mut ids = Vec::new();
            flow::sample_labels(&s.flow, &mut ids);
            for id in ids {
                if let Some(slot) = of.get_mut(id.index()) {
                    *slot = match *slot {
                        None => Some(Some(k)),
                        Some(Some(j)) if j == k => Some(Some(k)),
                        Some(_) => Some(None),
                    };
                }
            }
        }
        of.into_iter().map(|o| o.flatten().map(|k| plan.scenarios[k].name.clone())).collect()
    }

    /// Reads a plan file. `properties` are the `-J name=value` pairs.
    pub fn load(path: &Path, properties: &HashMap<String, String>) -> Result<Plan, Error> {
        let opts = LoadOptions { properties: properties.clone(), ..Default::default() };
        Plan::load_with(path, &opts).map(|l| l.plan)
    }

    /// Reads a YAML or JMX plan file.
    pub fn load_with(path: &Path, opts: &LoadOptions) -> Result<Loaded, Error> {
        let i = Plan::inspect_with(path, opts);
        i.plan.map(|plan| Loaded { plan, elements: i.elements })
    }

    /// Reads a plan file to the end whatever it finds (`stampede check`): the plan, or every
    /// problem it has; for a `.jmx`, every element with its status.
    pub(crate) fn inspect_with(path: &Path, opts: &LoadOptions) -> Inspected {
        let (mut out, reads) = crate::confine::recording(|| Plan::inspect_unrecorded(path, opts));
        if let Ok(plan) = &mut out.plan {
            plan.reads = reads;
        }
        out
    }

    fn inspect_unrecorded(path: &Path, opts: &LoadOptions) -> Inspected {
        let failed = |e: Error| Inspected {
            problems: vec![e.clone()],
            plan: Err(e),
            elements: None,
            needs: Vec::new(),
            secrets: crate::redact::Secrets::default(),
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => return failed(Error::new(ErrorKind::Io, Location::file(path), format!("cannot read plan: {e}"))),
        };
        let mut text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let line = e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|b| **b == b'\n').count() + 1;
                let mut loc = Location::file(path);
                loc.line = Some(line);
                return failed(Error::new(ErrorKind::Syntax, loc, "the file is not UTF-8 text"));
            }
        };
        for (token, value) in &opts.replacements {
            if !token.is_empty() {
                text = text.replace(token.as_str(), value);
            }
        }
        let mut secrets = crate::redact::Secrets::default();
        let named = opts.properties.iter().chain(opts.replacements.iter().map(|(k, v)| (k, v)));
        for (_, v) in named.filter(|(k, _)| crate::redact::is_secret_name(k)) {
            secrets.add(v);
        }
        // A message may quote the plan's text, where `--set` put its values.
        let scrub = |mut e: Error| {
            e.message = secrets.scrub(&crate::redact::text(&e.message)).into_owned();
            e
        };
        let mut out = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("yaml") | Some("yml") => match yaml::read(&text, path, &opts.properties) {
                Ok(plan) => Inspected {
                    plan: Ok(plan),
                    elements: None,
                    problems: Vec::new(),
                    needs: Vec::new(),
                    secrets: Default::default(),
                },
                Err(e) => failed(e),
            },
            Some("jmx") => {
                let jopts = jmx::Options {
                    properties: opts.properties.clone(),
                    skip_unsupported: opts.skip_unsupported,
                    lenient_files: opts.lenient_files,
                    strict: opts.strict,
                    allow_commands: opts.allow_commands,
                };
                let i = jmx::inspect(&text, path, &jopts);
                let plan = match i.plan {
                    Some(p) if i.problems.is_empty() => Ok(p),
                    _ => Err(Error::combine(i.problems.clone())),
                };
                Inspected {
                    plan,
                    elements: Some(i.elements),
                    problems: i.problems,
                    needs: i.needs,
                    secrets: Default::default(),
                }
            }
            _ => failed(Error::invalid(Location::file(path), "a plan file must end in .yaml, .yml or .jmx")),
        };
        out.plan = match out.plan {
            Ok(mut plan) => {
                plan.secrets.extend(&secrets);
                plan.remember_secrets();
                Ok(plan)
            }
            Err(e) => Err(scrub(e)),
        };
        out.problems = out.problems.into_iter().map(scrub).collect();
        out.needs = out.needs.into_iter().map(scrub).collect();
        out.secrets = match &out.plan {
            Ok(p) => p.secrets.clone(),
            Err(_) => secrets,
        };
        out
    }

    /// Reads a YAML plan from text; `path` is where it came from (for messages and for files it
    /// names, which are relative to it).
    pub fn from_yaml_str(text: &str, path: &Path, properties: &HashMap<String, String>) -> Result<Plan, Error> {
        yaml::read(text, path, properties)
    }

    /// The plan as it will run, for the run directory: secrets redacted, bodies summarised.
    pub fn to_resolved_yaml(&self) -> String {
        // Through a JSON value: the YAML serialiser cannot write an enum nested in an enum
        // (a body inside a request step), a JSON value has none left.
        serde_json::to_value(self)
            .map_err(|e| e.to_string())
            .map(|mut v| {
                scrub_strings(&mut v, &self.secrets);
                v
            })
            .and_then(|v| serde_norway::to_string(&v).map_err(|e| e.to_string()))
            .unwrap_or_else(|e| format!("# could not serialise plan: {e}\n"))
    }

    /// Remembers the values of plan variables with secret names; then masks every known secret
    /// in the check messages, which results files and reports show, and in the load log.
    fn remember_secrets(&mut self) {
        use crate::redact::{is_secret_name, text};
        for i in 0..self.vars.len() {
            let id = VarId(i as u32);
            if let Some(v) = self.vars.initial(id).filter(|_| is_secret_name(self.vars.name(id))) {
                self.secrets.add(v);
            }
        }
        for c in &mut self.checks {
            *c = self.secrets.scrub(&text(c)).into_owned();
        }
        // A function's `__log` at load time may quote a secret property (`${__P(password)}`),
        // which `redact::text` cannot tell from text: the run writes these lines as they are.
        for l in &mut self.load_log {
            *l = self.secrets.scrub(l).into_owned();
        }
    }

    /// The name of label `id`.
    pub fn label(&self, id: LabelId) -> &str {
        &self.labels[id.index()]
    }

    /// An empty plan to fill in (readers use it).
    pub(crate) fn new(name: String, source: Option<PathBuf>) -> Plan {
        Plan {
            name,
            source,
            labels: Vec::new(),
            label_templates: Vec::new(),
            load_log: Vec::new(),
            scenarios: Vec::new(),
            vars: VarTable::default(),
            global_counters: 0,
            user_counters: 0,
            data: Vec::new(),
            writers: Vec::new(),
            result_files: Vec::new(),
            checks: Vec::new(),
            tls: TlsOptions::default(),
            cookies: true,
            managers: Default::default(),
            slots: Slots::default(),
            shapers: Vec::new(),
            arrivals: Vec::new(),
            timers: Vec::new(),
            syncs: Vec::new(),
            last_ok: None,
            consecutive: false,
            bandwidth: Bandwidth::default(),
            thresholds: Vec::new(),
            stop_on: Vec::new(),
            secrets: Default::default(),
            autostops: Vec::new(),
            timing_headers: Default::default(),
            reads: Default::default(),
        }
    }

    /// Makes templates that only read variables nothing assigns while running into constant
    /// text, once every reader has finished: the engine then sends such requests as fixed bytes.
    pub(crate) fn fold_constants(&mut self) {
        let vars = self.vars.clone();
        for sc in &mut self.scenarios {
            flow::for_each_template_mut(&mut sc.flow, &mut |t| t.fold(&vars));
        }
        for (_, t) in &mut self.label_templates {
            t.fold(&vars);
        }
    }
}

/// Masks every known secret in the strings of a JSON value.
fn scrub_strings(v: &mut serde_json::Value, secrets: &crate::redact::Secrets) {
    match v {
        serde_json::Value::String(s) => {
            if let std::borrow::Cow::Owned(o) = secrets.scrub(s) {
                *s = o;
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| scrub_strings(v, secrets)),
        serde_json::Value::Object(m) => m.values_mut().for_each(|v| scrub_strings(v, secrets)),
        _ => {}
    }
}

/// Interns label names into dense [`LabelId`]s while a plan is built.
#[derive(Debug, Default, Clone)]
pub(crate) struct Labels {
    names: Vec<String>,
    index: HashMap<String, LabelId>,
}

impl Labels {
    pub(crate) fn intern(&mut self, name: &str) -> LabelId {
        if let Some(id) = self.index.get(name) {
            return *id;
        }
        let id = LabelId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }

    /// The names interned so far, indexed by [`LabelId`].
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    pub(crate) fn into_names(self) -> Vec<String> {
        self.names
    }
}

/// Serialises durations as humantime strings ("1m 30s") in the resolved plan.
pub(crate) mod serde_duration {
    use serde::Serializer;
    use std::time::Duration;

    pub(crate) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&humantime::format_duration(*d).to_string())
    }

    pub(crate) mod option {
        use super::*;
        pub(crate) fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => super::serialize(d, s),
                None => s.serialize_none(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_with_secret_names_are_masked_wherever_they_end_up() {
        let dir = std::env::temp_dir().join(format!("stampede-plan-secrets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plan.yaml");
        std::fs::write(
            &path,
            "variables: {db_password: pw-from-variable}\nscenarios:\n  - workload: {users: 1, iterations: 1}\n    flow: [{request: {url: 'http://127.0.0.1:1/x?a=${db_password}&b=${__P(MY_TOKEN)}&c=PLACEHOLDER_SECRET', check: [{body_contains: 'x=pw-from-variable'}]}}]\n",
        )
        .unwrap();
        let opts = LoadOptions {
            properties: [("MY_TOKEN".to_string(), "tok-from-property".to_string())].into(),
            replacements: vec![("PLACEHOLDER_SECRET".into(), "value-from-set".into())],
            ..Default::default()
        };
        let mut plan = Plan::load_with(&path, &opts).unwrap().plan;
        plan.fold_constants();
        let Step::Sample(sampler::Sampler::Http(r)) = &plan.scenarios[0].flow[0] else { panic!("a request") };
        let sent = r.path.as_const().unwrap();
        assert_eq!(sent, "/x?a=pw-from-variable&b=tok-from-property&c=value-from-set", "sent as given");
        assert_eq!(plan.secrets.scrub(sent), "/x?a=***&b=***&c=***");
        assert!(plan.checks.iter().any(|c| c == "body contains \"x=***\""), "{:?}", plan.checks);
        let yaml = plan.to_resolved_yaml();
        assert!(!yaml.contains("value-from-set") && yaml.contains("c=***"), "{yaml}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
