//! The one in-memory model of a load test, and its readers. A [`Plan`] holds scenarios; a
//! [`Scenario`] holds a [`Workload`] (how much) and a flow of [`Step`]s (what each user does).
//! YAML plans and the CLI's quick mode both become a `Plan`; nothing downstream knows which.

pub mod build;
pub mod condition;
pub mod csv_data;
pub mod error;
pub mod flow;
pub mod javatime;
pub mod jmx;
pub mod request;
pub mod template;
pub mod workload;
mod yaml;

pub use yaml::{parse_duration, parse_size, MAX_DURATION};

pub use error::{Error, ErrorKind, Location};
pub use flow::{Branch, Step, Think};
pub use request::{Body, Check, CheckId, CheckTest, ExtractSource, Extractor, Field, HttpVersion, RequestSpec, Target};
pub use template::{Template, VarId, VarTable};
pub use workload::{ClosedWorkload, OpenWorkload, Stage, Workload};

use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A dense index into [`Plan::labels`], fixed at load time so the hot path never hashes names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LabelId(pub u32);

impl LabelId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub name: String,
    /// The file the plan was read from; `None` in quick mode.
    pub source: Option<PathBuf>,
    /// Reporting names, indexed by [`LabelId`], in the order they first appear in the plan
    /// (in `meta.json`, not repeated in the resolved plan).
    #[serde(skip)]
    pub labels: Vec<String>,
    pub scenarios: Vec<Scenario>,
    /// Every variable the plan's templates use, with initial values.
    #[serde(skip)]
    pub vars: VarTable,
    #[serde(skip)]
    pub global_counters: u32,
    #[serde(skip)]
    pub user_counters: u32,
    /// Data files (CSV feeders), indexed by `Step::Feed`.
    pub data: Vec<DataSpec>,
    /// Files that `write` steps append to, indexed by `flow::Write::writer`.
    pub writers: Vec<WriterSpec>,
    /// Per-sample results files (JMeter's JTL CSV), from a JMX plan's listeners or `--jtl`.
    pub result_files: Vec<PathBuf>,
    /// Check messages, indexed by [`CheckId`].
    pub checks: Vec<String>,
    pub tls: TlsOptions,
    /// Each user keeps a cookie jar (RFC 6265), as a JMeter thread with a Cookie Manager.
    pub cookies: bool,
    /// Per-user state slots the flows need: loop counters, once-flags, open groups.
    #[serde(skip)]
    pub slots: Slots,
    /// A variable the engine sets to `true`/`false` after each request, by its outcome
    /// (JMeter's `${JMeterThread.last_sample_ok}`).
    #[serde(skip)]
    pub last_ok: Option<VarId>,
    /// The scenarios of a phase run one after another, in plan order, instead of together
    /// (JMeter's "Run Thread Groups consecutively").
    pub consecutive: bool,
    /// Pass/fail goals judged when the run ends (`stampede run` exits 1 when one fails).
    #[serde(serialize_with = "serialize_thresholds", skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<crate::threshold::Threshold>,
    /// Values masked wherever they appear in what stampede writes (see [`crate::redact`]).
    #[serde(skip)]
    pub secrets: crate::redact::Secrets,
}

fn serialize_thresholds<S: serde::Serializer>(t: &[crate::threshold::Threshold], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(t.iter().map(|t| t.to_string()))
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Slots {
    pub loops: u32,
    pub once: u32,
    pub groups: u32,
    pub counters: u32,
    pub throughput: u32,
    pub paces: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Scenario {
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

/// The order scenarios run in (JMeter's setUp and tearDown thread groups).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Setup,
    #[default]
    Main,
    Teardown,
}

/// A data file: rows read in order into variables, one row per `Feed` step.
#[derive(Debug, Clone, Serialize)]
pub struct DataSpec {
    pub path: PathBuf,
    pub names: Vec<String>,
    #[serde(skip)]
    pub columns: Vec<VarId>,
    #[serde(skip)]
    pub rows: std::sync::Arc<Vec<Vec<String>>>,
    pub share: Share,
    pub on_eof: OnEof,
}

impl DataSpec {
    /// A data file's rows; its columns become variables the plan assigns while running.
    pub fn new(path: PathBuf, data: csv_data::CsvData, share: Share, on_eof: OnEof, vars: &mut VarTable) -> DataSpec {
        let columns = data.names.iter().map(|n| vars.assign(n)).collect();
        DataSpec { path, names: data.names, columns, rows: std::sync::Arc::new(data.rows), share, on_eof }
    }
}

/// Who shares a data file's cursor (JMeter's CSV Data Set "sharing mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Share {
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
pub enum OnEof {
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
pub struct WriterSpec {
    pub path: PathBuf,
    /// Written first when the file is new or empty.
    pub header: Option<Vec<String>>,
}

/// TLS settings for every HTTPS request of the plan. Files are read and checked when the plan
/// loads; the PEM text is kept for the engine.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TlsOptions {
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

impl TlsOptions {
    /// The extra trusted certificates, parsed.
    pub fn ca_certs(&self) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, String> {
        match &self.ca_pem {
            None => Ok(Vec::new()),
            Some(pem) => certs(pem, "ca"),
        }
    }

    /// The client certificate chain and key, parsed.
    #[allow(clippy::type_complexity)]
    pub fn client_auth(
        &self,
    ) -> Result<
        Option<(Vec<rustls::pki_types::CertificateDer<'static>>, rustls::pki_types::PrivateKeyDer<'static>)>,
        String,
    > {
        use rustls::pki_types::pem::PemObject;
        let (Some(cert), Some(key)) = (&self.client_cert_pem, &self.client_key_pem) else { return Ok(None) };
        let chain = certs(cert, "client_cert")?;
        let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(key)
            .map_err(|e| format!("client_key: no private key in PEM format ({e})"))?;
        Ok(Some((chain, key)))
    }
}

fn certs(pem: &[u8], what: &str) -> Result<Vec<rustls::pki_types::CertificateDer<'static>>, String> {
    use rustls::pki_types::pem::PemObject;
    let certs: Vec<_> = rustls::pki_types::CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{what}: not a PEM certificate file ({e})"))?;
    if certs.is_empty() {
        return Err(format!("{what}: the file has no `BEGIN CERTIFICATE` block"));
    }
    Ok(certs)
}

/// Connection and request settings that apply unless a request says otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct Defaults {
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
}

/// A plan and, for a `.jmx`, what became of each of its elements.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub plan: Plan,
    pub elements: Option<Vec<jmx::ElementReport>>,
}

impl Plan {
    /// Reads a plan file. `properties` are the `-J name=value` pairs.
    pub fn load(path: &Path, properties: &HashMap<String, String>) -> Result<Plan, Error> {
        let opts = LoadOptions { properties: properties.clone(), ..Default::default() };
        Plan::load_with(path, &opts).map(|l| l.plan)
    }

    /// Reads a YAML or JMX plan file.
    pub fn load_with(path: &Path, opts: &LoadOptions) -> Result<Loaded, Error> {
        let bytes = std::fs::read(path)
            .map_err(|e| Error::new(ErrorKind::Io, Location::file(path), format!("cannot read plan: {e}")))?;
        let mut text = String::from_utf8(bytes).map_err(|e| {
            let line = e.as_bytes()[..e.utf8_error().valid_up_to()].iter().filter(|b| **b == b'\n').count() + 1;
            let mut loc = Location::file(path);
            loc.line = Some(line);
            Error::new(ErrorKind::Syntax, loc, "the file is not UTF-8 text")
        })?;
        for (token, value) in &opts.replacements {
            if !token.is_empty() {
                text = text.replace(token.as_str(), value);
            }
        }
        let loaded = match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("yaml") | Some("yml") => {
                yaml::read(&text, path, &opts.properties).map(|plan| Loaded { plan, elements: None })
            }
            Some("jmx") => {
                let jopts = jmx::Options {
                    properties: opts.properties.clone(),
                    skip_unsupported: opts.skip_unsupported,
                    lenient_files: opts.lenient_files,
                };
                jmx::read(&text, path, &jopts).map(|(plan, report)| Loaded { plan, elements: Some(report) })
            }
            _ => Err(Error::invalid(Location::file(path), "a plan file must end in .yaml, .yml or .jmx")),
        };
        let mut secrets = crate::redact::Secrets::default();
        let named = opts.properties.iter().chain(opts.replacements.iter().map(|(k, v)| (k, v)));
        for (_, v) in named.filter(|(k, _)| crate::redact::is_secret_name(k)) {
            secrets.add(v);
        }
        match loaded {
            Ok(mut l) => {
                l.plan.secrets.extend(&secrets);
                l.plan.remember_secrets();
                Ok(l)
            }
            // A message may quote the plan's text, where `--set` put its values.
            Err(mut e) => {
                e.message = secrets.scrub(&crate::redact::text(&e.message)).into_owned();
                Err(e)
            }
        }
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
    /// in the check messages, which results files and reports show.
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
    }

    pub fn label(&self, id: LabelId) -> &str {
        &self.labels[id.index()]
    }

    /// An empty plan to fill in (readers use it).
    pub fn new(name: String, source: Option<PathBuf>) -> Plan {
        Plan {
            name,
            source,
            labels: Vec::new(),
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
            slots: Slots::default(),
            last_ok: None,
            consecutive: false,
            thresholds: Vec::new(),
            secrets: Default::default(),
        }
    }

    /// Makes templates that only read variables nothing assigns while running into constant
    /// text, once every reader has finished: the engine then sends such requests as fixed bytes.
    pub fn fold_constants(&mut self) {
        let vars = self.vars.clone();
        for sc in &mut self.scenarios {
            flow::for_each_template_mut(&mut sc.flow, &mut |t| t.fold(&vars));
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
#[derive(Debug, Default)]
pub struct Labels {
    names: Vec<String>,
    index: HashMap<String, LabelId>,
}

impl Labels {
    pub fn intern(&mut self, name: &str) -> LabelId {
        if let Some(id) = self.index.get(name) {
            return *id;
        }
        let id = LabelId(self.names.len() as u32);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }

    /// The names interned so far, indexed by [`LabelId`].
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn into_names(self) -> Vec<String> {
        self.names
    }
}

/// Splits an absolute URL, or a path joined to `base`, into a [`Target`] and the path+query
/// sent on the request line.
pub fn resolve_url(url: &str, base: Option<&str>) -> Result<(Target, String), String> {
    // Messages show the URL as the redaction rule allows (a token in its query is masked);
    // worked out only for a message, as engines resolve URLs from data files per request.
    let shown = || crate::redact::url(url);
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let base =
                base.ok_or_else(|| format!("`{}` is a relative URL and the plan has no `defaults.base_url`", shown()))?;
            let base = url::Url::parse(base).map_err(|e| format!("invalid base_url `{base}`: {e}"))?;
            // Join as a path under the base's path, as users of base URLs expect
            // (base http://h/api + /v1/x → http://h/api/v1/x).
            let joined = format!("{}{}", base.as_str().trim_end_matches('/'), ensure_slash(url));
            url::Url::parse(&joined).map_err(|e| format!("invalid URL `{}`: {e}", crate::redact::url(&joined)))?
        }
        Err(e) => return Err(format!("invalid URL `{}`: {e}", shown())),
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!(
            "`{}` has credentials in it (user:password@); stampede does not send them from a URL: give an Authorization header instead",
            shown()
        ));
    }
    let tls = match parsed.scheme() {
        "http" => false,
        "https" => true,
        other => return Err(format!("unsupported scheme `{other}` in `{}` (use http or https)", shown())),
    };
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("URL `{}` has no host", shown()))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = parsed.port_or_known_default().unwrap_or(if tls { 443 } else { 80 });
    let mut path = parsed.path().to_string();
    if let Some(q) = parsed.query() {
        path.push('?');
        path.push_str(q);
    }
    Ok((Target { tls, host, port }, path))
}

/// Compiles a request URL: its scheme, host and port are fixed now (they may use plan
/// variables, properties and the environment); its path and query stay a template, folded into
/// constant text once the plan is read if nothing assigns their variables while running.
pub(crate) fn compile_url(
    raw: &str,
    base: Option<&str>,
    sym: &mut template::Symbols,
    el: &str,
) -> Result<(Target, Template, Option<Template>), (ErrorKind, String)> {
    if !raw.contains("${") {
        let (target, path) = resolve_url(raw, base).map_err(|m| (ErrorKind::Invalid, m))?;
        return Ok((target, Template::literal(path), None));
    }
    let (prefix, rest) = raw.split_at(url_path_start(raw));
    // The scheme, host and port name a server: environment values there are not secrets.
    let kept = sym.secrets.clone();
    // A host taken from a data file or a response (JMeter allows it): the origin is rendered
    // for each request instead.
    let probe = template::compile(prefix, sym, el).map_err(|m| (ErrorKind::Template, m))?;
    sym.secrets = kept.clone();
    if !prefix.is_empty() && probe.is_dynamic(&sym.vars) {
        let tls = prefix.trim_start().to_ascii_lowercase().starts_with("https");
        let rest = if rest.starts_with('/') || rest.starts_with('?') { rest.to_string() } else { format!("/{rest}") };
        let path = template::compile(&rest, sym, el).map_err(|m| (ErrorKind::Template, m))?;
        let placeholder = Target { tls, host: String::new(), port: 0 };
        return Ok((placeholder, path, Some(probe)));
    }
    let prefix = template::expand(prefix, sym).map_err(|m| {
        (ErrorKind::Template, format!("the scheme, host and port must be known when the plan loads: {m}"))
    })?;
    sym.secrets = kept;
    let start = if prefix.is_empty() { "/" } else { prefix.as_str() };
    let (target, base_path) =
        resolve_url(start, base).map_err(|m| (ErrorKind::Invalid, m.replace("`/`", &format!("`{raw}`"))))?;
    let path = if rest.is_empty() {
        base_path
    } else {
        let rest = if rest.starts_with('/') || rest.starts_with('?') { rest.to_string() } else { format!("/{rest}") };
        format!("{}{rest}", base_path.trim_end_matches('/'))
    };
    let path = template::compile(&path, sym, el).map_err(|m| (ErrorKind::Template, m))?;
    Ok((target, path, None))
}

/// Where a URL's path starts in its source text: after `scheme://authority`; after a leading
/// `${...}`, which then holds the scheme and host; or at once, for a path.
pub(crate) fn url_path_start(raw: &str) -> usize {
    let b = raw.as_bytes();
    // Byte offsets outside `${...}`, with the byte there.
    let mut top = Vec::new();
    let (mut depth, mut i, mut first_ref_end) = (0usize, 0usize, None);
    while i < b.len() {
        if b[i] == b'$' && b.get(i + 1) == Some(&b'{') {
            depth += 1;
            i += 2;
            continue;
        }
        if b[i] == b'}' && depth > 0 {
            depth -= 1;
            if depth == 0 && first_ref_end.is_none() {
                first_ref_end = Some(i + 1);
            }
        } else if depth == 0 {
            top.push(i);
        }
        i += 1;
    }
    // Byte offsets, never `str` slices: a non-ASCII character puts non-boundaries in `top`.
    if let Some(scheme) = top.iter().position(|&j| b[j..].starts_with(b"://")) {
        let after = top[scheme] + 3;
        return top.iter().find(|&&j| j >= after && (b[j] == b'/' || b[j] == b'?')).copied().unwrap_or(raw.len());
    }
    if raw.starts_with("${") {
        return first_ref_end.unwrap_or(raw.len());
    }
    0
}

fn ensure_slash(p: &str) -> String {
    if p.starts_with('/') || p.starts_with('?') {
        p.to_string()
    } else {
        format!("/{p}")
    }
}

/// Everything `stampede run --url ...` can say; becomes a one-scenario, one-request [`Plan`].
#[derive(Debug, Clone, Default)]
pub struct QuickPlan {
    pub url: String,
    pub method: Option<String>,
    pub body: Option<String>,
    pub headers: Vec<String>,
    pub users: Option<u32>,
    pub rate: Option<f64>,
    pub max_users: Option<u32>,
    pub duration: Option<Duration>,
    pub iterations: Option<u64>,
    pub ramp_up: Option<Duration>,
    pub keep_alive: bool,
    pub http_version: Option<HttpVersion>,
    pub timeout: Option<Duration>,
    pub connect_timeout: Option<Duration>,
    pub gzip: bool,
}

impl QuickPlan {
    pub fn into_plan(self) -> Result<Plan, Error> {
        let loc = || Location::default().element("--url");
        let (target, path) = resolve_url(&self.url, None).map_err(|m| Error::invalid(loc(), m))?;
        for (t, flag) in [(self.timeout, "--timeout"), (self.connect_timeout, "--connect-timeout")] {
            if t.is_some_and(|t| t.is_zero()) {
                return Err(Error::invalid(Location::default().element(flag), "a timeout must be above zero"));
            }
        }
        let method = self.method.unwrap_or_else(|| if self.body.is_some() { "POST" } else { "GET" }.into());
        let method =
            validate_method(&method).map_err(|m| Error::invalid(Location::default().element("--method"), m))?;
        let mut headers = Vec::new();
        for h in &self.headers {
            let (k, v) = h.split_once(':').ok_or_else(|| {
                Error::invalid(Location::default().element("--header"), format!("`{h}` is not `Name: value`"))
            })?;
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        if self.gzip && self.body.is_none() {
            return Err(Error::invalid(Location::default().element("--gzip"), "--gzip needs --body"));
        }
        let body = self.body.map_or(Body::None, |b| Body::Bytes(b.into_bytes()));
        let mut d = Defaults::default();
        d.keep_alive = self.keep_alive;
        d.http_version = self.http_version.unwrap_or(d.http_version);
        d.connect_timeout = self.connect_timeout.unwrap_or(d.connect_timeout);
        d.response_timeout = self.timeout.unwrap_or(d.response_timeout);
        let mut b = build::Builder::default();
        let label_name = path.split('?').next().unwrap_or("/").to_string();
        // A benchmark of one URL measures that URL: a redirect is its answer, not a hop.
        let mut request = b.request(&label_name, method, target, Template::literal(path), &d);
        request.headers = headers.into_iter().map(|(k, v)| (k, Template::literal(v))).collect();
        request.body = body;
        request.gzip = self.gzip;
        let workload =
            quick_workload(&self.users, self.rate, self.max_users, self.duration, self.iterations, self.ramp_up)?;
        b.scenario(Scenario {
            name: "default".into(),
            workload,
            pacing: None,
            on_error: flow::StopKind::Continue,
            phase: Phase::Main,
            flow: vec![Step::Request(Box::new(request))],
        });
        let plan = b.finish("quick".into(), None);
        Ok(plan)
    }
}

fn quick_workload(
    users: &Option<u32>,
    rate: Option<f64>,
    max_users: Option<u32>,
    duration: Option<Duration>,
    iterations: Option<u64>,
    ramp_up: Option<Duration>,
) -> Result<Workload, Error> {
    let loc = |e: &str| Location::default().element(e.to_string());
    // A zero run time would still send (each user starts one iteration); like `--users 0`, it
    // is certainly a mistake.
    if duration.is_some_and(|d| d.is_zero()) {
        return Err(Error::invalid(loc("--duration"), "--duration must be above zero"));
    }
    if let Some(rate) = rate {
        if users.is_some() || iterations.is_some() {
            return Err(Error::invalid(
                loc("--rate"),
                "--rate (open model) cannot be combined with --users or --iterations; use --max-users",
            ));
        }
        if !(rate > 0.0 && rate.is_finite()) {
            return Err(Error::invalid(loc("--rate"), "--rate must be a positive number of iterations per second"));
        }
        let duration = duration.ok_or_else(|| Error::invalid(loc("--rate"), "--rate needs --duration"))?;
        let max = max_users.unwrap_or(((rate * 0.1).ceil() as u32).clamp(100, 10_000));
        return Ok(Workload::Open(OpenWorkload {
            start_rate: rate,
            stages: vec![Stage { target: rate, duration }],
            pre_allocated_users: max.min(((rate / 100.0).ceil() as u32).max(10)),
            max_users: max,
            start_delay: Duration::ZERO,
            graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
        }));
    }
    if max_users.is_some() {
        return Err(Error::invalid(loc("--max-users"), "--max-users applies to the open model (--rate)"));
    }
    let users = users.unwrap_or(1);
    if users == 0 {
        return Err(Error::invalid(loc("--users"), "--users must be at least 1"));
    }
    if duration.is_none() && iterations.is_none() {
        return Err(Error::invalid(loc("--duration"), "say how long to run: --duration or --iterations"));
    }
    Ok(Workload::Closed(ClosedWorkload {
        users,
        ramp_up: ramp_up.unwrap_or_default(),
        iterations,
        duration,
        start_delay: Duration::ZERO,
        graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
    }))
}

/// Upper-cases a method and checks it is an HTTP token.
pub fn validate_method(m: &str) -> Result<String, String> {
    let up = m.trim().to_ascii_uppercase();
    if up.is_empty() || !up.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err(format!("`{m}` is not an HTTP method"));
    }
    Ok(up)
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail")
}

/// Serialises durations as humantime strings ("1m 30s") in the resolved plan.
pub(crate) mod serde_duration {
    use serde::Serializer;
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&humantime::format_duration(*d).to_string())
    }

    pub mod option {
        use super::*;
        pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
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
    fn resolve_url_table() {
        let cases = [
            ("http://127.0.0.1:8080/ok", None, (false, "127.0.0.1", 8080, "/ok")),
            ("http://127.0.0.1/a?b=1&c=2", None, (false, "127.0.0.1", 80, "/a?b=1&c=2")),
            ("https://localhost/", None, (true, "localhost", 443, "/")),
            ("http://[::1]:9000", None, (false, "::1", 9000, "/")),
            ("/v1/read", Some("http://127.0.0.1:8080/api"), (false, "127.0.0.1", 8080, "/api/v1/read")),
            ("v1/read?x=1", Some("http://127.0.0.1:8080/"), (false, "127.0.0.1", 8080, "/v1/read?x=1")),
        ];
        for (url, base, (tls, host, port, path)) in cases {
            let (t, p) = resolve_url(url, base).unwrap();
            assert_eq!((t.tls, t.host.as_str(), t.port, p.as_str()), (tls, host, port, path), "{url}");
        }
        assert!(resolve_url("ftp://x/", None).unwrap_err().contains("unsupported scheme"));
        assert!(resolve_url("/x", None).unwrap_err().contains("base_url"));
        assert!(resolve_url("http://", None).is_err());
        let e = resolve_url("http://bob:hunter2@127.0.0.1/", None).unwrap_err();
        assert!(e.contains("Authorization") && !e.contains("hunter2"), "{e}");
    }

    #[test]
    fn environment_values_naming_a_server_are_not_secrets_those_in_the_path_are() {
        let mut sym = template::Symbols { env: Some(HashMap::new()), ..Default::default() };
        let env = sym.env.as_mut().unwrap();
        env.insert("HOST".into(), "localhost".into());
        env.insert("TOKEN".into(), "t0k3n-from-env".into());
        let raw = "http://${__env(HOST)}:8080/x?q=${__env(TOKEN)}";
        let (target, path, _) = compile_url(raw, None, &mut sym, "url").unwrap();
        assert_eq!((target.host.as_str(), path.source()), ("localhost", "/x?q=${__env(TOKEN)}"));
        assert_eq!(sym.secrets.scrub("http://localhost:8080/x?q=t0k3n-from-env"), "http://localhost:8080/x?q=***");
    }

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
        let Step::Request(r) = &plan.scenarios[0].flow[0] else { panic!("a request") };
        let sent = r.path.as_const().unwrap();
        assert_eq!(sent, "/x?a=pw-from-variable&b=tok-from-property&c=value-from-set", "sent as given");
        assert_eq!(plan.secrets.scrub(sent), "/x?a=***&b=***&c=***");
        assert!(plan.checks.iter().any(|c| c == "body contains \"x=***\""), "{:?}", plan.checks);
        let yaml = plan.to_resolved_yaml();
        assert!(!yaml.contains("value-from-set") && yaml.contains("c=***"), "{yaml}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn quick_plan_models() {
        let q = QuickPlan {
            url: "http://127.0.0.1:1/x".into(),
            users: Some(5),
            duration: Some(Duration::from_secs(2)),
            keep_alive: true,
            ..Default::default()
        };
        let p = q.into_plan().unwrap();
        assert!(matches!(&p.scenarios[0].workload, Workload::Closed(c) if c.users == 5));
        let q = QuickPlan {
            url: "http://127.0.0.1:1/x".into(),
            rate: Some(500.0),
            duration: Some(Duration::from_secs(2)),
            ..Default::default()
        };
        assert!(matches!(&q.into_plan().unwrap().scenarios[0].workload, Workload::Open(o) if o.start_rate == 500.0));
        let q = QuickPlan { url: "http://127.0.0.1:1/x".into(), users: Some(5), ..Default::default() };
        assert!(q.into_plan().unwrap_err().message.contains("--duration"));
        let q = QuickPlan {
            url: "http://127.0.0.1:1/x".into(),
            body: Some("{}".into()),
            iterations: Some(1),
            ..Default::default()
        };
        let p = q.into_plan().unwrap();
        let mut methods = vec![];
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| methods.push(r.method.clone()));
        assert_eq!(methods, ["POST"]);
    }
}
