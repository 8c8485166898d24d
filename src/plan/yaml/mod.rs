//! YAML → [`Plan`]. The document is read with serde (which gives line and column for syntax
//! and unknown-field errors), then checked and resolved here, element by element, so every
//! later error names the element it is about.

use super::condition;
use super::csv_data::{self, CsvOptions};
use super::flow::{self, Assign, Cond, Group, If, Loop, Once};
use super::request::{Body, JsonPathExpr, Param, Part, PartContent};
use super::template::{self, Symbols};
use super::*;
use serde::Deserialize;
use serde_norway::{Mapping, Value};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanDoc {
    name: Option<String>,
    #[serde(default)]
    variables: Mapping,
    #[serde(default)]
    defaults: DefaultsDoc,
    #[serde(default)]
    data: Vec<DataDoc>,
    scenarios: Vec<ScenarioDoc>,
    /// Row name (`Total` or a label) → goals, e.g. `ContentRead: [p95 < 300ms]`.
    #[serde(default)]
    thresholds: Mapping,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DefaultsDoc {
    base_url: Option<Value>,
    #[serde(default)]
    headers: Mapping,
    connect_timeout: Option<Value>,
    response_timeout: Option<Value>,
    keep_alive: Option<Value>,
    http_version: Option<Value>,
    max_response_size: Option<Value>,
    follow_redirects: Option<Value>,
    max_redirects: Option<Value>,
    cookies: Option<Value>,
    tls: Option<TlsDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsDoc {
    insecure: Option<Value>,
    ca: Option<Value>,
    client_cert: Option<Value>,
    client_key: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DataDoc {
    file: Value,
    names: Option<Vec<String>>,
    delimiter: Option<Value>,
    quoted: Option<Value>,
    skip_first_line: Option<Value>,
    share: Option<Value>,
    on_eof: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDoc {
    name: Option<String>,
    workload: WorkloadDoc,
    pacing: Option<Value>,
    on_error: Option<Value>,
    #[serde(default)]
    data: Vec<DataDoc>,
    flow: Vec<StepDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadDoc {
    users: Option<Value>,
    ramp_up: Option<Value>,
    iterations: Option<Value>,
    duration: Option<Value>,
    rate: Option<Value>,
    start_rate: Option<Value>,
    stages: Option<Vec<StageDoc>>,
    pre_allocated_users: Option<Value>,
    max_users: Option<Value>,
    start_delay: Option<Value>,
    graceful_stop: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StageDoc {
    #[serde(alias = "target")]
    rate: Value,
    duration: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDoc {
    request: Option<RequestDoc>,
    mix: Option<Vec<BranchDoc>>,
    think: Option<Value>,
    flow: Option<Vec<StepDoc>>,
    set: Option<Mapping>,
    #[serde(rename = "loop")]
    loop_: Option<LoopDoc>,
    #[serde(rename = "if")]
    if_: Option<Value>,
    then: Option<Vec<StepDoc>>,
    #[serde(rename = "else")]
    else_: Option<Vec<StepDoc>>,
    once: Option<Vec<StepDoc>>,
    #[serde(alias = "transaction")]
    group: Option<GroupDoc>,
    write: Option<WriteDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BranchDoc {
    weight: Value,
    request: Option<RequestDoc>,
    flow: Option<Vec<StepDoc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoopDoc {
    count: Option<Value>,
    #[serde(rename = "while")]
    while_: Option<Value>,
    flow: Vec<StepDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupDoc {
    name: Value,
    flow: Vec<StepDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteDoc {
    file: Value,
    values: Vec<Value>,
    header: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestDoc {
    label: Option<Value>,
    method: Option<Value>,
    url: Value,
    #[serde(default)]
    query: Mapping,
    #[serde(default)]
    headers: Mapping,
    body: Option<Value>,
    body_file: Option<Value>,
    json: Option<Value>,
    form: Option<Mapping>,
    multipart: Option<Vec<PartDoc>>,
    gzip: Option<Value>,
    keep_alive: Option<Value>,
    http_version: Option<Value>,
    connect_timeout: Option<Value>,
    response_timeout: Option<Value>,
    max_response_size: Option<Value>,
    follow_redirects: Option<Value>,
    max_redirects: Option<Value>,
    #[serde(default)]
    extract: Vec<ExtractDoc>,
    #[serde(default)]
    check: Vec<CheckDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartDoc {
    name: Value,
    value: Option<Value>,
    file: Option<Value>,
    filename: Option<Value>,
    content_type: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExtractDoc {
    into: String,
    json: Option<Value>,
    regex: Option<Value>,
    header: Option<Value>,
    cookie: Option<Value>,
    template: Option<Value>,
    from: Option<Value>,
    #[serde(rename = "match")]
    match_no: Option<Value>,
    default: Option<Value>,
    required: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckDoc {
    status: Option<Value>,
    body_contains: Option<Value>,
    body_not_contains: Option<Value>,
    body_matches: Option<Value>,
    body_equals: Option<Value>,
    header_contains: Option<Value>,
    json: Option<Value>,
    equals: Option<Value>,
    max_duration: Option<Value>,
    message: Option<String>,
}

pub(super) fn read(src: &str, file: &Path, properties: &HashMap<String, String>) -> Result<Plan, Error> {
    // A byte-order mark (Windows editors write one) is not part of the document.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let doc: PlanDoc = serde_norway::from_str(src).map_err(|e| serde_error(e, file))?;
    let mut cx = Cx {
        file: file.to_path_buf(),
        src,
        sym: Symbols { properties: properties.clone(), ..Default::default() },
        labels: Labels::default(),
        defaults: Defaults::default(),
        checks: Vec::new(),
        slots: Slots::default(),
        data: Vec::new(),
        writers: Vec::new(),
    };
    for (k, v) in &doc.variables {
        let name = match k {
            Value::String(s) => s.clone(),
            other => scalar_text(other).unwrap_or_default(),
        };
        let el = format!("variables.{name}");
        let value = cx.text(v, &el)?;
        cx.sym.vars.define(&name, value);
    }
    cx.defaults = cx.defaults_from(&doc.defaults)?;
    let tls = match &doc.defaults.tls {
        Some(t) => cx.tls(t)?,
        None => TlsOptions::default(),
    };
    let cookies = match &doc.defaults.cookies {
        Some(v) => cx.bool(v, "defaults.cookies")?,
        None => true,
    };
    let plan_data: Vec<usize> =
        doc.data.iter().enumerate().map(|(i, d)| cx.data(d, &format!("data[{i}]"))).collect::<Result<_, _>>()?;
    if doc.scenarios.is_empty() {
        return Err(Error::invalid(cx.loc("scenarios"), "a plan needs at least one scenario"));
    }
    let mut scenarios = Vec::new();
    let mut names = std::collections::HashSet::new();
    for (i, s) in doc.scenarios.iter().enumerate() {
        let name = s.name.clone().unwrap_or_else(|| format!("scenario-{}", i + 1));
        let el = format!("scenarios[{i}] ({name})");
        if !names.insert(name.clone()) {
            return Err(Error::invalid(cx.loc(&el), format!("two scenarios are named `{name}`")));
        }
        let workload = cx.workload(&s.workload, &format!("{el}.workload"))?;
        let pacing = cx.opt_duration(&s.pacing, &format!("{el}.pacing"))?.filter(|d| !d.is_zero());
        if pacing.is_some() && matches!(workload, Workload::Open(_)) {
            return Err(Error::invalid(
                cx.loc(&format!("{el}.pacing")),
                "pacing applies to the closed model; an open workload already sets when iterations start",
            ));
        }
        let own_data: Vec<usize> =
            s.data.iter().enumerate().map(|(j, d)| cx.data(d, &format!("{el}.data[{j}]"))).collect::<Result<_, _>>()?;
        // Data files move to their next row as each iteration starts (JMeter's CSV Data Set).
        let mut flow: Vec<Step> = plan_data.iter().chain(&own_data).map(|d| Step::Feed(*d)).collect();
        flow.extend(cx.steps(&s.flow, &format!("{el}.flow"))?);
        if !has_request(&flow) {
            return Err(Error::invalid(cx.loc(&format!("{el}.flow")), "the flow sends no request"));
        }
        let on_error = match &s.on_error {
            None => flow::StopKind::Continue,
            Some(v) => cx.parse(
                v,
                &format!("{el}.on_error"),
                "continue, next_iteration, stop_user or stop_run",
                |s| match s {
                    "continue" => Some(flow::StopKind::Continue),
                    "next_iteration" => Some(flow::StopKind::NextIteration),
                    "stop_user" => Some(flow::StopKind::User),
                    "stop_run" => Some(flow::StopKind::Run),
                    _ => None,
                },
            )?,
        };
        scenarios.push(Scenario { name, workload, pacing, on_error, phase: Phase::Main, flow });
    }
    if let Some((element, msg)) = cx.sym.vars.undefined() {
        return Err(Error::new(ErrorKind::Template, cx.loc(&element), msg));
    }
    let name = doc
        .name
        .unwrap_or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "plan".into()));
    let labels = std::mem::take(&mut cx.labels).into_names();
    let thresholds = cx.thresholds(&doc.thresholds, &labels)?;
    let mut plan = Plan::new(name, Some(file.to_path_buf()));
    plan.labels = labels;
    plan.thresholds = thresholds;
    plan.scenarios = scenarios;
    plan.vars = cx.sym.vars;
    plan.secrets = cx.sym.secrets;
    plan.global_counters = cx.sym.global_counters;
    plan.user_counters = cx.sym.user_counters;
    plan.data = cx.data;
    plan.writers = cx.writers;
    plan.checks = cx.checks;
    plan.tls = tls;
    plan.cookies = cookies;
    plan.slots = cx.slots;
    plan.fold_constants();
    Ok(plan)
}

fn has_request(steps: &[Step]) -> bool {
    let mut any = false;
    flow::for_each_request(steps, &mut |_| any = true);
    any
}

/// Turns serde's message into ours: keeps line and column, and for an unknown field adds the
/// closest known one.
fn serde_error(e: serde_norway::Error, file: &Path) -> Error {
    let mut loc = Location::file(file);
    if let Some(l) = e.location() {
        loc.line = Some(l.line());
        loc.column = Some(l.column());
    }
    let msg = e.to_string();
    // serde_norway appends " at line N column M"; the location already says it.
    let msg = match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    if let Some(rest) = msg.split("unknown field `").nth(1) {
        let field = rest.split('`').next().unwrap_or("");
        let expected: Vec<&str> = rest.split("expected ").nth(1).unwrap_or("").split('`').skip(1).step_by(2).collect();
        let mut out = msg.clone();
        if let Some(s) = error::closest(field, expected.iter().copied()) {
            out.push_str(&format!("; did you mean `{s}`?"));
        }
        return Error::new(ErrorKind::UnknownField, loc, out);
    }
    Error::new(ErrorKind::Syntax, loc, msg)
}

struct Cx<'a> {
    file: PathBuf,
    src: &'a str,
    sym: Symbols,
    labels: Labels,
    defaults: Defaults,
    /// Check messages; a check's id is its message's index.
    checks: Vec<String>,
    slots: Slots,
    data: Vec<DataSpec>,
    writers: Vec<WriterSpec>,
}

impl Cx<'_> {
    fn loc(&self, element: &str) -> Location {
        Location::file(&self.file).element(element)
    }

    /// A location for a bad value: the line is given when the value's text appears exactly once
    /// in the file, so it is certainly the right one.
    fn loc_of(&self, element: &str, value: &Value) -> Location {
        let mut loc = self.loc(element);
        if let Some(text) = scalar_text(value).filter(|t| !t.is_empty()) {
            let mut hits = self.src.lines().enumerate().filter(|(_, l)| l.contains(text.as_str()));
            if let (Some((n, _)), None) = (hits.next(), hits.next()) {
                loc.line = Some(n + 1);
            }
        }
        loc
    }

    fn raw(&self, v: &Value, el: &str) -> Result<String, Error> {
        scalar_text(v)
            .ok_or_else(|| Error::invalid(self.loc(el), "expected a single value (text or number), not a list or map"))
    }

    /// A value needed while loading: expanded now.
    fn text(&mut self, v: &Value, el: &str) -> Result<String, Error> {
        let raw = self.raw(v, el)?;
        template::expand(&raw, &mut self.sym).map_err(|m| Error::new(ErrorKind::Template, self.loc_of(el, v), m))
    }

    /// A value rendered per use while the test runs.
    fn tmpl(&mut self, v: &Value, el: &str) -> Result<Template, Error> {
        let raw = self.raw(v, el)?;
        self.tmpl_str(&raw, el, Some(v))
    }

    fn tmpl_str(&mut self, raw: &str, el: &str, v: Option<&Value>) -> Result<Template, Error> {
        template::compile(raw, &mut self.sym, el).map_err(|m| {
            let loc = match v {
                Some(v) => self.loc_of(el, v),
                None => self.loc(el),
            };
            Error::new(ErrorKind::Template, loc, m)
        })
    }

    fn parse<T>(&mut self, v: &Value, el: &str, what: &str, f: impl Fn(&str) -> Option<T>) -> Result<T, Error> {
        let t = self.text(v, el)?;
        f(t.trim()).ok_or_else(|| Error::invalid(self.loc_of(el, v), format!("`{t}` is not {what}")))
    }

    fn duration(&mut self, v: &Value, el: &str) -> Result<Duration, Error> {
        self.parse(
            v,
            el,
            "a duration (e.g. 30s, 1m30s, 250ms; a bare number is seconds; at most 365 days)",
            parse_duration,
        )
    }

    fn opt_duration(&mut self, v: &Option<Value>, el: &str) -> Result<Option<Duration>, Error> {
        v.as_ref().map(|v| self.duration(v, el)).transpose()
    }

    /// A workload's run time: above zero (a zero run time still sends: each user starts an
    /// iteration), like `users`.
    fn run_time(&mut self, v: &Value, el: &str) -> Result<Duration, Error> {
        match self.duration(v, el)? {
            d if d.is_zero() => Err(Error::invalid(self.loc_of(el, v), "`duration` must be above zero")),
            d => Ok(d),
        }
    }

    /// A timeout: a duration above zero (a zero timeout would fail every request at once).
    fn opt_timeout(&mut self, v: &Option<Value>, el: &str) -> Result<Option<Duration>, Error> {
        match v {
            Some(v) => match self.duration(v, el)? {
                d if d.is_zero() => Err(Error::invalid(self.loc_of(el, v), "a timeout must be above zero")),
                d => Ok(Some(d)),
            },
            None => Ok(None),
        }
    }

    fn count<T: std::str::FromStr>(&mut self, v: &Value, el: &str) -> Result<T, Error> {
        self.parse(v, el, "a whole number", |s| s.parse().ok())
    }

    fn rate(&mut self, v: &Value, el: &str) -> Result<f64, Error> {
        self.parse(v, el, "a rate in iterations per second", |s| {
            s.trim_end_matches("/s").parse::<f64>().ok().filter(|r| r.is_finite() && *r >= 0.0)
        })
    }

    fn bool(&mut self, v: &Value, el: &str) -> Result<bool, Error> {
        self.parse(v, el, "true or false", |s| match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Some(true),
            "false" | "no" | "off" => Some(false),
            _ => None,
        })
    }

    fn opt_bool(&mut self, v: &Option<Value>, el: &str, default: bool) -> Result<bool, Error> {
        v.as_ref().map(|v| self.bool(v, el)).transpose().map(|o| o.unwrap_or(default))
    }

    fn version(&mut self, v: &Value, el: &str) -> Result<HttpVersion, Error> {
        self.parse(v, el, "an HTTP version (1.1 or 1.0)", |s| match s.trim_start_matches("HTTP/") {
            "1.1" => Some(HttpVersion::Http11),
            "1.0" | "1" => Some(HttpVersion::Http10),
            _ => None,
        })
    }

    fn size(&mut self, v: &Value, el: &str) -> Result<u64, Error> {
        self.parse(v, el, "a size (e.g. 10MiB, 512KB, or bytes)", parse_size)
    }

    /// A file named in the plan: relative to the plan's directory.
    fn path(&mut self, v: &Value, el: &str) -> Result<PathBuf, Error> {
        let name = self.text(v, el)?;
        Ok(self.file.parent().unwrap_or(Path::new(".")).join(name))
    }

    fn read_file(&mut self, v: &Value, el: &str, what: &str) -> Result<(PathBuf, Vec<u8>), Error> {
        let p = self.path(v, el)?;
        let bytes = std::fs::read(&p).map_err(|e| {
            Error::new(ErrorKind::Io, self.loc_of(el, v), format!("cannot read {what} {}: {e}", p.display()))
        })?;
        Ok((p, bytes))
    }

    fn headers(&mut self, m: &Mapping, el: &str) -> Result<Vec<(String, Template)>, Error> {
        let mut out = Vec::new();
        for (k, v) in m {
            let name = scalar_text(k).unwrap_or_default();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(Error::invalid(self.loc(el), format!("`{name}` is not a valid header name")));
            }
            let hel = format!("{el}.{name}");
            let value = self.tmpl(v, &hel)?;
            if value.source().contains(['\r', '\n']) {
                return Err(Error::invalid(self.loc(&hel), "a header value cannot contain a line break"));
            }
            out.push((name, value));
        }
        Ok(out)
    }

    /// `thresholds:` maps a row (`Total` or a label of the plan) to one goal or a list of them.
    fn thresholds(&mut self, m: &Mapping, labels: &[String]) -> Result<Vec<crate::threshold::Threshold>, Error> {
        let mut out = Vec::new();
        for (k, v) in m {
            let row = self.raw(k, "thresholds")?;
            let el = format!("thresholds.{row}");
            if row != crate::threshold::TOTAL && !labels.contains(&row) {
                let mut msg = format!("no request or group is labelled `{row}` (use `Total` for the whole run)");
                if let Some(s) = error::closest(&row, labels.iter().map(String::as_str)) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err(Error::invalid(self.loc_of("thresholds", k).element(el), msg));
            }
            let goals: Vec<&Value> = match v {
                Value::Sequence(items) => items.iter().collect(),
                other => vec![other],
            };
            for g in goals {
                let text = self.text(g, &el)?;
                let mut t = crate::threshold::parse(&text).map_err(|m| Error::invalid(self.loc_of(&el, g), m))?;
                if t.label.is_some() {
                    return Err(Error::invalid(
                        self.loc_of(&el, g),
                        format!("`{text}`: the row is `{row}` already; write the goal alone, e.g. `p95 < 300ms`"),
                    ));
                }
                t.label = (row != crate::threshold::TOTAL).then(|| row.clone());
                out.push(t);
            }
        }
        Ok(out)
    }

    fn defaults_from(&mut self, d: &DefaultsDoc) -> Result<Defaults, Error> {
        let mut out = Defaults::default();
        if let Some(v) = &d.base_url {
            // An address names a server: environment values in it are not masked as secrets.
            let kept = self.sym.secrets.clone();
            let base = self.text(v, "defaults.base_url")?;
            self.sym.secrets = kept;
            resolve_url(&base, None).map_err(|m| Error::invalid(self.loc_of("defaults.base_url", v), m))?;
            out.base_url = Some(base);
        }
        out.headers = self.headers(&d.headers, "defaults.headers")?;
        if let Some(t) = self.opt_timeout(&d.connect_timeout, "defaults.connect_timeout")? {
            out.connect_timeout = t;
        }
        if let Some(t) = self.opt_timeout(&d.response_timeout, "defaults.response_timeout")? {
            out.response_timeout = t;
        }
        out.keep_alive = self.opt_bool(&d.keep_alive, "defaults.keep_alive", out.keep_alive)?;
        if let Some(v) = &d.http_version {
            out.http_version = self.version(v, "defaults.http_version")?;
        }
        if let Some(v) = &d.max_response_size {
            out.max_response_size = self.size(v, "defaults.max_response_size")?;
        }
        out.follow_redirects = self.opt_bool(&d.follow_redirects, "defaults.follow_redirects", out.follow_redirects)?;
        if let Some(v) = &d.max_redirects {
            out.max_redirects = self.count(v, "defaults.max_redirects")?;
        }
        Ok(out)
    }

    fn tls(&mut self, t: &TlsDoc) -> Result<TlsOptions, Error> {
        let mut out =
            TlsOptions { insecure: self.opt_bool(&t.insecure, "defaults.tls.insecure", false)?, ..Default::default() };
        for (v, path, pem, el) in [
            (&t.ca, &mut out.ca, &mut out.ca_pem, "defaults.tls.ca"),
            (&t.client_cert, &mut out.client_cert, &mut out.client_cert_pem, "defaults.tls.client_cert"),
            (&t.client_key, &mut out.client_key, &mut out.client_key_pem, "defaults.tls.client_key"),
        ] {
            if let Some(v) = v {
                let (p, bytes) = self.read_file(v, el, "PEM file")?;
                *path = Some(p);
                *pem = Some(bytes);
            }
        }
        if out.client_cert.is_some() != out.client_key.is_some() {
            return Err(Error::invalid(
                self.loc("defaults.tls"),
                "mutual TLS needs both `client_cert` and `client_key`",
            ));
        }
        out.ca_certs().map_err(|m| Error::invalid(self.loc("defaults.tls.ca"), m))?;
        out.client_auth().map_err(|m| Error::invalid(self.loc("defaults.tls"), m))?;
        Ok(out)
    }

    fn data(&mut self, d: &DataDoc, el: &str) -> Result<usize, Error> {
        let path = self.path(&d.file, &format!("{el}.file"))?;
        let mut opts = CsvOptions::default();
        if let Some(v) = &d.delimiter {
            // `\t` written in the plan means a tab, as in JMeter's dialog.
            opts.delimiter = self.text(v, &format!("{el}.delimiter"))?.replace("\\t", "\t");
            if opts.delimiter.is_empty() {
                return Err(Error::invalid(self.loc(&format!("{el}.delimiter")), "the delimiter is empty"));
            }
        }
        opts.quoted = self.opt_bool(&d.quoted, &format!("{el}.quoted"), opts.quoted)?;
        opts.skip_first_line = self.opt_bool(&d.skip_first_line, &format!("{el}.skip_first_line"), false)?;
        opts.names = d.names.clone();
        let data = csv_data::read_csv(&path, &opts).map_err(|e| {
            let mut loc = Location::file(&path).element(format!("{el} of {}", self.file.display()));
            loc.line = e.line;
            Error::new(ErrorKind::Data, loc, e.message)
        })?;
        let share = match &d.share {
            None => Share::All,
            Some(v) => {
                self.parse(v, &format!("{el}.share"), "a sharing mode (all, scenario or user)", |s| match s {
                    "all" => Some(Share::All),
                    "scenario" => Some(Share::Scenario),
                    "user" => Some(Share::User),
                    _ => None,
                })?
            }
        };
        let on_eof = match &d.on_eof {
            None => OnEof::Recycle,
            Some(v) => self.parse(v, &format!("{el}.on_eof"), "recycle, stop_user, stop_run or eof", |s| match s {
                "recycle" => Some(OnEof::Recycle),
                "stop_user" => Some(OnEof::StopUser),
                "stop_run" => Some(OnEof::StopRun),
                "eof" => Some(OnEof::MarkEof),
                _ => None,
            })?,
        };
        self.data.push(DataSpec::new(path, data, share, on_eof, &mut self.sym.vars));
        Ok(self.data.len() - 1)
    }

    fn workload(&mut self, w: &WorkloadDoc, el: &str) -> Result<Workload, Error> {
        let f = |name: &str| format!("{el}.{name}");
        let start_delay = self.opt_duration(&w.start_delay, &f("start_delay"))?.unwrap_or_default();
        let graceful_stop =
            self.opt_duration(&w.graceful_stop, &f("graceful_stop"))?.unwrap_or(workload::DEFAULT_GRACEFUL_STOP);
        let open = w.rate.is_some() || w.stages.is_some();
        if open {
            if w.users.is_some() || w.iterations.is_some() || w.ramp_up.is_some() {
                return Err(Error::invalid(
                    self.loc(el),
                    "a workload is either closed (users, ramp_up, iterations, duration) or open (rate or stages, pre_allocated_users, max_users), not both",
                ));
            }
            let (start_rate, stages) = match (&w.rate, &w.stages) {
                (Some(_), Some(_)) => {
                    return Err(Error::invalid(
                        self.loc(el),
                        "give either `rate` with `duration`, or `stages`, not both",
                    ))
                }
                (Some(r), None) => {
                    let rate = self.rate(r, &f("rate"))?;
                    let d =
                        w.duration.as_ref().ok_or_else(|| Error::invalid(self.loc(el), "`rate` needs a `duration`"))?;
                    let duration = self.run_time(d, &f("duration"))?;
                    (rate, vec![Stage { target: rate, duration }])
                }
                (None, Some(stages)) => {
                    if w.duration.is_some() {
                        return Err(Error::invalid(
                            self.loc(&f("duration")),
                            "with `stages`, each stage has its own duration",
                        ));
                    }
                    let start =
                        w.start_rate.as_ref().map(|v| self.rate(v, &f("start_rate"))).transpose()?.unwrap_or(0.0);
                    let mut out = Vec::new();
                    for (i, s) in stages.iter().enumerate() {
                        let sel = format!("{el}.stages[{i}]");
                        out.push(Stage {
                            target: self.rate(&s.rate, &format!("{sel}.rate"))?,
                            duration: self.duration(&s.duration, &format!("{sel}.duration"))?,
                        });
                    }
                    if out.is_empty() {
                        return Err(Error::invalid(self.loc(&f("stages")), "`stages` is empty"));
                    }
                    if out.iter().all(|s| s.duration.is_zero()) {
                        return Err(Error::invalid(self.loc(&f("stages")), "the stages last 0s in all"));
                    }
                    (start, out)
                }
                (None, None) => unreachable!("open implies rate or stages"),
            };
            if stages.iter().all(|s| s.target == 0.0) && start_rate == 0.0 {
                return Err(Error::invalid(self.loc(el), "the arrival rate is zero throughout"));
            }
            let peak = stages.iter().map(|s| s.target).fold(start_rate, f64::max);
            let max_users = match &w.max_users {
                Some(v) => self.count(v, &f("max_users"))?,
                None => (peak.ceil() as u32).clamp(100, 10_000),
            };
            let pre = match &w.pre_allocated_users {
                Some(v) => self.count(v, &f("pre_allocated_users"))?,
                None => max_users.min(((peak / 10.0).ceil() as u32).max(10)),
            };
            if max_users == 0 || pre > max_users {
                return Err(Error::invalid(
                    self.loc(&f("max_users")),
                    format!("max_users ({max_users}) must be at least 1 and at least pre_allocated_users ({pre})"),
                ));
            }
            return Ok(Workload::Open(OpenWorkload {
                start_rate,
                stages,
                pre_allocated_users: pre,
                max_users,
                start_delay,
                graceful_stop,
            }));
        }
        if w.start_rate.is_some() || w.max_users.is_some() || w.pre_allocated_users.is_some() {
            return Err(Error::invalid(
                self.loc(el),
                "start_rate, pre_allocated_users and max_users belong to an open workload (with `rate` or `stages`)",
            ));
        }
        let users: u32 = match &w.users {
            Some(v) => self.count(v, &f("users"))?,
            None => {
                return Err(Error::invalid(
                    self.loc(el),
                    "a workload needs `users` (closed model) or `rate`/`stages` (open model)",
                ))
            }
        };
        if users == 0 {
            return Err(Error::invalid(self.loc(&f("users")), "`users` must be at least 1"));
        }
        let iterations = w.iterations.as_ref().map(|v| self.count::<u64>(v, &f("iterations"))).transpose()?;
        let duration = w.duration.as_ref().map(|d| self.run_time(d, &f("duration"))).transpose()?;
        if iterations.is_none() && duration.is_none() {
            return Err(Error::invalid(
                self.loc(el),
                "a closed workload needs `iterations` (per user) or `duration`, or both",
            ));
        }
        Ok(Workload::Closed(ClosedWorkload {
            users,
            ramp_up: self.opt_duration(&w.ramp_up, &f("ramp_up"))?.unwrap_or_default(),
            iterations,
            duration,
            start_delay,
            graceful_stop,
        }))
    }

    fn steps(&mut self, docs: &[StepDoc], el: &str) -> Result<Vec<Step>, Error> {
        docs.iter().enumerate().map(|(i, d)| self.step(d, &format!("{el}[{i}]"))).collect()
    }

    fn step(&mut self, d: &StepDoc, el: &str) -> Result<Step, Error> {
        const KINDS: &str = "`request`, `flow`, `mix`, `think`, `set`, `loop`, `if`, `once`, `group`, `write`";
        let given = [
            d.request.is_some(),
            d.mix.is_some(),
            d.think.is_some(),
            d.flow.is_some(),
            d.set.is_some(),
            d.loop_.is_some(),
            d.if_.is_some(),
            d.once.is_some(),
            d.group.is_some(),
            d.write.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(Error::invalid(self.loc(el), format!("a step has exactly one of {KINDS}")));
        }
        if (d.then.is_some() || d.else_.is_some()) && d.if_.is_none() {
            return Err(Error::invalid(self.loc(el), "`then` and `else` belong to an `if` step"));
        }
        if let Some(r) = &d.request {
            return Ok(Step::Request(Box::new(self.request(r, &format!("{el}.request"))?)));
        }
        if let Some(branches) = &d.mix {
            let el = format!("{el}.mix");
            let mut out = Vec::new();
            for (i, b) in branches.iter().enumerate() {
                let bel = format!("{el}[{i}]");
                let weight = self.parse(&b.weight, &format!("{bel}.weight"), "a weight (a number >= 0)", |s| {
                    s.parse::<f64>().ok().filter(|w| w.is_finite() && *w >= 0.0)
                })?;
                let steps = match (&b.request, &b.flow) {
                    (Some(r), None) => vec![Step::Request(Box::new(self.request(r, &format!("{bel}.request"))?))],
                    (None, Some(f)) => self.steps(f, &format!("{bel}.flow"))?,
                    _ => {
                        return Err(Error::invalid(
                            self.loc(&bel),
                            "a mix branch has `weight` and exactly one of `request` or `flow`",
                        ))
                    }
                };
                out.push(Branch { weight, steps });
            }
            if out.iter().map(|b| b.weight).sum::<f64>() <= 0.0 {
                return Err(Error::invalid(self.loc(&el), "a mix needs at least one branch with a weight above 0"));
            }
            return Ok(Step::Mix(out));
        }
        if let Some(t) = &d.think {
            return self.think(t, &format!("{el}.think")).map(Step::Think);
        }
        if let Some(f) = &d.flow {
            return Ok(Step::Sequence(self.steps(f, &format!("{el}.flow"))?));
        }
        if let Some(m) = &d.set {
            let mut out = Vec::new();
            for (k, v) in m {
                let name = scalar_text(k).unwrap_or_default();
                let sel = format!("{el}.set.{name}");
                check_var_name(&name).map_err(|m| Error::invalid(self.loc(&sel), m))?;
                let value = self.tmpl(v, &sel)?;
                let var = self.sym.vars.assign(&name);
                out.push(Assign { var, name: name.clone(), value: (name, value) });
            }
            return Ok(Step::Set(out));
        }
        if let Some(l) = &d.loop_ {
            let lel = format!("{el}.loop");
            if l.count.is_none() && l.while_.is_none() {
                return Err(Error::invalid(self.loc(&lel), "a loop needs `count`, `while`, or both"));
            }
            let count = l.count.as_ref().map(|v| self.tmpl(v, &format!("{lel}.count"))).transpose()?;
            if let Some(n) = count.as_ref().and_then(|c| c.as_const()) {
                if n.trim().parse::<u64>().is_err() {
                    return Err(Error::invalid(
                        self.loc(&format!("{lel}.count")),
                        format!("`{n}` is not a whole number"),
                    ));
                }
            }
            let condition = l.while_.as_ref().map(|v| self.cond(v, &format!("{lel}.while"))).transpose()?;
            let steps = self.steps(&l.flow, &format!("{lel}.flow"))?;
            let slot = self.slots.loops;
            self.slots.loops += 1;
            return Ok(Step::Loop(Box::new(Loop { count, condition, steps, slot })));
        }
        if let Some(c) = &d.if_ {
            let condition = self.cond(c, &format!("{el}.if"))?;
            let then = match &d.then {
                Some(t) => self.steps(t, &format!("{el}.then"))?,
                None => return Err(Error::invalid(self.loc(el), "an `if` step needs `then` (and may have `else`)")),
            };
            let otherwise = match &d.else_ {
                Some(e) => self.steps(e, &format!("{el}.else"))?,
                None => Vec::new(),
            };
            return Ok(Step::If(Box::new(If { condition, then, otherwise })));
        }
        if let Some(o) = &d.once {
            let steps = self.steps(o, &format!("{el}.once"))?;
            let slot = self.slots.once;
            self.slots.once += 1;
            return Ok(Step::Once(Box::new(Once { steps, per_loop: false, slot })));
        }
        if let Some(g) = &d.group {
            let gel = format!("{el}.group");
            let name = self.text(&g.name, &format!("{gel}.name"))?;
            let label = self.labels.intern(&name);
            let steps = self.steps(&g.flow, &format!("{gel}.flow"))?;
            if !has_request(&steps) {
                return Err(Error::invalid(self.loc(&gel), "a group needs at least one request"));
            }
            let slot = self.slots.groups;
            self.slots.groups += 1;
            return Ok(Step::Group(Box::new(Group { label, parent: false, wall_clock: false, steps, slot })));
        }
        let w = d.write.as_ref().expect("one kind is given, checked above");
        let wel = format!("{el}.write");
        let path = self.path(&w.file, &format!("{wel}.file"))?;
        let values = w
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| self.tmpl(v, &format!("{wel}.values[{i}]")))
            .collect::<Result<_, _>>()?;
        if let Some(h) = &w.header {
            if h.len() != w.values.len() {
                return Err(Error::invalid(
                    self.loc(&format!("{wel}.header")),
                    format!("{} header names for {} values", h.len(), w.values.len()),
                ));
            }
        }
        let writer = match self.writers.iter().position(|x| x.path == path) {
            Some(i) => {
                if self.writers[i].header.is_none() {
                    self.writers[i].header = w.header.clone();
                }
                i
            }
            None => {
                self.writers.push(WriterSpec { path, header: w.header.clone() });
                self.writers.len() - 1
            }
        };
        Ok(Step::Write(Box::new(flow::Write { writer, values })))
    }

    fn cond(&mut self, v: &Value, el: &str) -> Result<Cond, Error> {
        let src = match v {
            Value::Bool(b) => b.to_string(),
            v => self.raw(v, el)?,
        };
        let loc = self.loc_of(el, v);
        let mut failed = None;
        let expr = condition::parse(&src, |operand| {
            template::compile(operand, &mut self.sym, el).inspect_err(|m| failed = Some(m.clone()))
        })
        .map_err(|m| Error::new(if failed.is_some() { ErrorKind::Template } else { ErrorKind::Invalid }, loc, m))?;
        Ok(Cond { src, expr })
    }

    fn think(&mut self, v: &Value, el: &str) -> Result<Think, Error> {
        match v {
            Value::Mapping(m) => {
                let get = |k: &str| m.get(Value::String(k.into()));
                for k in m.keys() {
                    let k = scalar_text(k).unwrap_or_default();
                    if k != "min" && k != "max" {
                        return Err(Error::new(
                            ErrorKind::UnknownField,
                            self.loc(el),
                            format!(
                                "unknown field `{k}` in think; expected `min` and `max` (uniform) or a single duration"
                            ),
                        ));
                    }
                }
                let (Some(min), Some(max)) = (get("min"), get("max")) else {
                    return Err(Error::invalid(self.loc(el), "a uniform think time needs `min` and `max`"));
                };
                let (min, max) = (self.duration(min, &format!("{el}.min"))?, self.duration(max, &format!("{el}.max"))?);
                if min > max {
                    return Err(Error::invalid(self.loc(el), "think time `min` is above `max`"));
                }
                Ok(Think::Uniform { min, max })
            }
            v => Ok(Think::Constant(self.duration(v, el)?)),
        }
    }

    /// The scheme and authority of a URL are fixed when the plan loads; its path and query may
    /// hold run-time values.
    fn url(&mut self, v: &Value, el: &str) -> Result<(Target, Template, Option<Template>), Error> {
        let raw = self.raw(v, el)?;
        let base = self.defaults.base_url.clone();
        compile_url(&raw, base.as_deref(), &mut self.sym, el)
            .map_err(|(kind, m)| Error::new(kind, self.loc_of(el, v), m))
    }

    fn request(&mut self, r: &RequestDoc, el: &str) -> Result<RequestSpec, Error> {
        let f = |name: &str| format!("{el}.{name}");
        let (target, path, origin) = self.url(&r.url, &f("url"))?;
        let mut query = Vec::new();
        for (k, v) in &r.query {
            let key = scalar_text(k).unwrap_or_default();
            query.push(Param::new(key.clone(), self.tmpl(v, &format!("{el}.query.{key}"))?));
        }
        let bodies =
            [r.body.is_some(), r.body_file.is_some(), r.json.is_some(), r.form.is_some(), r.multipart.is_some()];
        if bodies.iter().filter(|b| **b).count() > 1 {
            return Err(Error::invalid(
                self.loc(el),
                "give only one of `body`, `body_file`, `json`, `form`, `multipart`",
            ));
        }
        let method = match &r.method {
            Some(m) => {
                let t = self.text(m, &f("method"))?;
                validate_method(&t).map_err(|msg| Error::invalid(self.loc_of(&f("method"), m), msg))?
            }
            None if bodies.iter().any(|b| *b) => "POST".into(),
            None => "GET".into(),
        };
        let label = match &r.label {
            Some(l) => self.text(l, &f("label"))?,
            None => path.source().split('?').next().unwrap_or("/").to_string(),
        };
        // Defaults first, then the request's own headers replace same-named ones.
        let own = self.headers(&r.headers, &f("headers"))?;
        let mut headers: Vec<(String, Template)> = self
            .defaults
            .headers
            .iter()
            .filter(|(k, _)| !own.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)))
            .cloned()
            .collect();
        headers.extend(own);
        let has = |h: &[(String, Template)], n: &str| h.iter().any(|(k, _)| k.eq_ignore_ascii_case(n));
        let mut body = Body::None;
        if let Some(b) = &r.body {
            body = Body::Text(self.tmpl(b, &f("body"))?);
        }
        if let Some(b) = &r.body_file {
            body = Body::Bytes(self.read_file(b, &f("body_file"), "body file")?.1);
        }
        if let Some(j) = &r.json {
            let text = serde_json::to_string(&yaml_to_json(j))
                .map_err(|e| Error::invalid(self.loc(&f("json")), e.to_string()))?;
            body = Body::Text(self.tmpl_str(&text, &f("json"), None)?);
            if !has(&headers, "content-type") {
                headers.push(("Content-Type".into(), Template::literal("application/json")));
            }
        }
        if let Some(form) = &r.form {
            let mut fields = Vec::new();
            for (k, v) in form {
                let name = scalar_text(k).unwrap_or_default();
                fields.push(Param::new(name.clone(), self.tmpl(v, &format!("{el}.form.{name}"))?));
            }
            body = Body::Form(fields);
            if !has(&headers, "content-type") {
                headers.push(("Content-Type".into(), Template::literal("application/x-www-form-urlencoded")));
            }
        }
        if let Some(parts) = &r.multipart {
            body = Body::Multipart(self.multipart(parts, &f("multipart"))?);
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
            headers.push((
                "Content-Type".into(),
                Template::literal(format!("multipart/form-data; boundary={}", request::MULTIPART_BOUNDARY)),
            ));
        }
        let gzip = self.opt_bool(&r.gzip, &f("gzip"), false)?;
        if gzip && matches!(body, Body::None) {
            return Err(Error::invalid(self.loc(&f("gzip")), "`gzip` needs a body"));
        }
        let d = self.defaults.clone();
        let keep_alive = self.opt_bool(&r.keep_alive, &f("keep_alive"), d.keep_alive)?;
        let http_version =
            r.http_version.as_ref().map(|v| self.version(v, &f("http_version"))).transpose()?.unwrap_or(d.http_version);
        let connect_timeout = self.opt_timeout(&r.connect_timeout, &f("connect_timeout"))?.unwrap_or(d.connect_timeout);
        let response_timeout =
            self.opt_timeout(&r.response_timeout, &f("response_timeout"))?.unwrap_or(d.response_timeout);
        let max_response_size = r
            .max_response_size
            .as_ref()
            .map(|v| self.size(v, &f("max_response_size")))
            .transpose()?
            .unwrap_or(d.max_response_size);
        let follow_redirects = self.opt_bool(&r.follow_redirects, &f("follow_redirects"), d.follow_redirects)?;
        let max_redirects = match &r.max_redirects {
            Some(v) => self.count(v, &f("max_redirects"))?,
            None => d.max_redirects,
        };
        let label_id = self.labels.intern(&label);
        let hop_labels = if follow_redirects {
            (0..=max_redirects).map(|i| self.labels.intern(&format!("{label}-{i}"))).collect()
        } else {
            Vec::new()
        };
        let too_many_redirects =
            follow_redirects.then(|| self.check_id(format!("more than {max_redirects} redirects")));
        let extract = r
            .extract
            .iter()
            .enumerate()
            .map(|(i, x)| self.extractor(x, &format!("{el}.extract[{i}]")))
            .collect::<Result<_, _>>()?;
        let checks = r
            .check
            .iter()
            .enumerate()
            .map(|(i, c)| self.check(c, &format!("{el}.check[{i}]")))
            .collect::<Result<_, _>>()?;
        Ok(RequestSpec {
            label: label_id,
            method,
            target,
            origin,
            path,
            query,
            headers,
            body,
            gzip,
            keep_alive,
            http_version,
            connect_timeout,
            response_timeout,
            max_response_size,
            follow_redirects,
            hop_labels,
            extract,
            checks,
            too_many_redirects,
            ignore_status: false,
        })
    }

    fn multipart(&mut self, parts: &[PartDoc], el: &str) -> Result<Vec<Part>, Error> {
        let mut out = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let pel = format!("{el}[{i}]");
            let name = self.text(&p.name, &format!("{pel}.name"))?;
            let content_type =
                p.content_type.as_ref().map(|v| self.text(v, &format!("{pel}.content_type"))).transpose()?;
            let mut filename = p.filename.as_ref().map(|v| self.text(v, &format!("{pel}.filename"))).transpose()?;
            let content = match (&p.value, &p.file) {
                (Some(v), None) => PartContent::Text(self.tmpl(v, &format!("{pel}.value"))?),
                (None, Some(fv)) => {
                    let (path, bytes) = self.read_file(fv, &format!("{pel}.file"), "multipart file")?;
                    if filename.is_none() {
                        filename = path.file_name().map(|n| n.to_string_lossy().into_owned());
                    }
                    PartContent::Bytes(bytes)
                }
                _ => return Err(Error::invalid(self.loc(&pel), "a part has exactly one of `value` or `file`")),
            };
            out.push(Part { name, filename, content_type, content });
        }
        Ok(out)
    }

    fn field(&mut self, v: &Option<Value>, el: &str) -> Result<Field, Error> {
        match v {
            None => Ok(Field::Body),
            Some(v) => self.parse(v, el, "body, headers, url or status", |s| match s {
                "body" => Some(Field::Body),
                "headers" => Some(Field::Headers),
                "url" => Some(Field::Url),
                "status" => Some(Field::Status),
                _ => None,
            }),
        }
    }

    fn regex(&mut self, v: &Value, el: &str) -> Result<regex::Regex, Error> {
        let src = self.text(v, el)?;
        regex::Regex::new(&src)
            .map_err(|e| Error::invalid(self.loc_of(el, v), format!("invalid regular expression: {e}")))
    }

    fn json_path(&mut self, v: &Value, el: &str) -> Result<JsonPathExpr, Error> {
        let src = self.text(v, el)?;
        let path = serde_json_path::JsonPath::parse(&src)
            .map_err(|e| Error::invalid(self.loc_of(el, v), format!("invalid JSONPath `{src}`: {e}")))?;
        Ok(JsonPathExpr { src, path })
    }

    fn check_id(&mut self, message: String) -> CheckId {
        let i = match self.checks.iter().position(|m| *m == message) {
            Some(i) => i,
            None => {
                self.checks.push(message);
                self.checks.len() - 1
            }
        };
        CheckId(i as u16)
    }

    fn extractor(&mut self, x: &ExtractDoc, el: &str) -> Result<Extractor, Error> {
        check_var_name(&x.into).map_err(|m| Error::invalid(self.loc(&format!("{el}.into")), m))?;
        let given = [x.json.is_some(), x.regex.is_some(), x.header.is_some(), x.cookie.is_some()];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(Error::invalid(
                self.loc(el),
                "an extractor has exactly one of `json`, `regex`, `header`, `cookie`",
            ));
        }
        if x.regex.is_none() && (x.template.is_some() || x.from.is_some()) {
            return Err(Error::invalid(self.loc(el), "`template` and `from` belong to a `regex` extractor"));
        }
        let (source, what) = if let Some(v) = &x.json {
            let p = self.json_path(v, &format!("{el}.json"))?;
            let what = p.src.clone();
            (ExtractSource::Json(p), what)
        } else if let Some(v) = &x.regex {
            let regex = self.regex(v, &format!("{el}.regex"))?;
            let template = match &x.template {
                Some(t) => self.text(t, &format!("{el}.template"))?,
                None if regex.captures_len() > 1 => "$1$".into(),
                None => "$0$".into(),
            };
            if let Some(g) = template_groups(&template).into_iter().find(|g| *g >= regex.captures_len()) {
                return Err(Error::invalid(
                    self.loc(&format!("{el}.template")),
                    format!("`${g}$` names a group the regex does not have"),
                ));
            }
            let from = self.field(&x.from, &format!("{el}.from"))?;
            let what = format!("/{}/", regex.as_str());
            (ExtractSource::Regex { regex, template, from }, what)
        } else if let Some(v) = &x.header {
            let h = self.text(v, &format!("{el}.header"))?;
            (ExtractSource::Header(h.clone()), format!("header {h}"))
        } else {
            let c = self.text(x.cookie.as_ref().expect("one source is given"), &format!("{el}.cookie"))?;
            (ExtractSource::Cookie(c.clone()), format!("cookie {c}"))
        };
        let match_no = match &x.match_no {
            None => 1,
            Some(v) => {
                self.parse(v, &format!("{el}.match"), "a match number (1 = first, 0 = random)", |s| match s {
                    "random" => Some(0),
                    s => s.parse::<u32>().ok(),
                })?
            }
        };
        let default = x.default.as_ref().map(|v| self.tmpl(v, &format!("{el}.default"))).transpose()?;
        let required = if self.opt_bool(&x.required, &format!("{el}.required"), false)? {
            Some(self.check_id(format!("extract {}: nothing found by {what}", x.into)))
        } else {
            None
        };
        let var = self.sym.vars.assign(&x.into);
        Ok(Extractor { var, into: x.into.clone(), source, match_no, default, required, all: None })
    }

    fn check(&mut self, c: &CheckDoc, el: &str) -> Result<Check, Error> {
        let given = [
            c.status.is_some(),
            c.body_contains.is_some(),
            c.body_not_contains.is_some(),
            c.body_matches.is_some(),
            c.body_equals.is_some(),
            c.header_contains.is_some(),
            c.json.is_some(),
            c.max_duration.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(Error::invalid(
                self.loc(el),
                "a check has exactly one of `status`, `body_contains`, `body_not_contains`, `body_matches`, `body_equals`, `header_contains`, `json`, `max_duration`",
            ));
        }
        if c.equals.is_some() && c.json.is_none() {
            return Err(Error::invalid(self.loc(el), "`equals` belongs to a `json` check"));
        }
        let quote = |t: &Template| format!("{:?}", t.source());
        let (test, message) = if let Some(v) = &c.status {
            let ranges = self.status_ranges(v, &format!("{el}.status"))?;
            let text: Vec<String> =
                ranges.iter().map(|(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
            (CheckTest::Status(ranges), format!("status is {}", text.join(" or ")))
        } else if let Some(v) = &c.body_contains {
            let text = self.tmpl(v, &format!("{el}.body_contains"))?;
            let m = format!("body contains {}", quote(&text));
            (CheckTest::Contains { field: Field::Body, text, negate: false }, m)
        } else if let Some(v) = &c.body_not_contains {
            let text = self.tmpl(v, &format!("{el}.body_not_contains"))?;
            let m = format!("body does not contain {}", quote(&text));
            (CheckTest::Contains { field: Field::Body, text, negate: true }, m)
        } else if let Some(v) = &c.body_matches {
            let regex = self.regex(v, &format!("{el}.body_matches"))?;
            let m = format!("body matches /{}/", regex.as_str());
            (CheckTest::Matches { field: Field::Body, regex, negate: false }, m)
        } else if let Some(v) = &c.body_equals {
            let text = self.tmpl(v, &format!("{el}.body_equals"))?;
            let m = format!("body equals {}", quote(&text));
            (CheckTest::Equals { field: Field::Body, text, negate: false }, m)
        } else if let Some(v) = &c.header_contains {
            let text = self.tmpl(v, &format!("{el}.header_contains"))?;
            let m = format!("headers contain {}", quote(&text));
            (CheckTest::Contains { field: Field::Headers, text, negate: false }, m)
        } else if let Some(v) = &c.json {
            let path = self.json_path(v, &format!("{el}.json"))?;
            let equals = c.equals.as_ref().map(|e| self.tmpl(e, &format!("{el}.equals"))).transpose()?;
            let m = match &equals {
                Some(e) => format!("{} equals {}", path.src, quote(e)),
                None => format!("{} exists", path.src),
            };
            (CheckTest::Json { path, equals, negate: false }, m)
        } else {
            let d =
                self.duration(c.max_duration.as_ref().expect("one test is given"), &format!("{el}.max_duration"))?;
            (CheckTest::MaxDuration(d), format!("duration at most {}", humantime::format_duration(d)))
        };
        let message = c.message.clone().unwrap_or(message);
        Ok(Check { id: self.check_id(message), test })
    }

    /// `200`, `[200, 201]`, `"200-299"`, `"2xx"`.
    fn status_ranges(&mut self, v: &Value, el: &str) -> Result<Vec<(u16, u16)>, Error> {
        let items: Vec<Value> = match v {
            Value::Sequence(s) => s.clone(),
            v => vec![v.clone()],
        };
        let mut out = Vec::new();
        for item in &items {
            let r = self.parse(item, el, "a status (200), a range (200-299) or a class (2xx)", |s| {
                let code = |x: &str| x.trim().parse::<u16>().ok().filter(|c| (100..=999).contains(c));
                if let Some(class) = s.strip_suffix("xx").or_else(|| s.strip_suffix("XX")) {
                    let c: u16 = class.parse().ok().filter(|c| (1..=9).contains(c))?;
                    return Some((c * 100, c * 100 + 99));
                }
                match s.split_once('-') {
                    Some((a, b)) => Some((code(a)?, code(b)?)).filter(|(a, b)| a <= b),
                    None => code(s).map(|c| (c, c)),
                }
            })?;
            out.push(r);
        }
        if out.is_empty() {
            return Err(Error::invalid(self.loc(el), "the list of statuses is empty"));
        }
        Ok(out)
    }
}

/// The group numbers a JMeter template (`$1$-$2$`) refers to.
fn template_groups(t: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut parts = t.split('$');
    parts.next();
    // Between an odd and the next `$` is a group number when it is all digits.
    for (i, p) in parts.enumerate() {
        if i % 2 == 0 {
            if let Ok(n) = p.parse() {
                out.push(n);
            }
        }
    }
    out
}

fn check_var_name(name: &str) -> Result<(), String> {
    let ok = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!("`{name}` is not a variable name (letters, digits, `_`, `.`, `-`; not starting with a digit)"))
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => Some(String::new()),
        Value::Tagged(t) => scalar_text(&t.value),
        Value::Sequence(_) | Value::Mapping(_) => None,
    }
}

fn yaml_to_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into()
            } else if let Some(u) = n.as_u64() {
                u.into()
            } else {
                n.as_f64().map(Into::into).unwrap_or(serde_json::Value::Null)
            }
        }
        Value::String(s) => s.clone().into(),
        Value::Sequence(s) => s.iter().map(yaml_to_json).collect(),
        Value::Mapping(m) => m
            .iter()
            .map(|(k, v)| (scalar_text(k).unwrap_or_default(), yaml_to_json(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        Value::Tagged(t) => yaml_to_json(&t.value),
    }
}

/// The longest duration a plan may give (a year): longer is certainly a typo, and keeping
/// every deadline within it means adding one to a clock reading cannot overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// "30s", "1m30s", "250ms", "1.5" (seconds), "90" (seconds); at most [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Option<Duration> {
    let d = match s.parse::<f64>() {
        Ok(secs) if secs >= 0.0 => Duration::try_from_secs_f64(secs).ok()?,
        Ok(_) => return None,
        Err(_) => humantime::parse_duration(s).ok()?,
    };
    (d <= MAX_DURATION).then_some(d)
}

/// "10MiB", "512KB", "1GB", "1000" (bytes). KB/MB/GB are read as binary multiples, as most
/// users mean them for buffer limits.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    Some((n * mult as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(src: &str) -> Result<Plan, Error> {
        read(src, Path::new("t.yaml"), &HashMap::new())
    }

    const OK: &str = r#"
name: mix
variables:
  host: 127.0.0.1
  port: ${__P(port,8080)}
defaults:
  base_url: http://${host}:${port}
  headers: {Accept: application/json}
  keep_alive: true
scenarios:
  - name: consumption
    workload: {users: 10, ramp_up: 2s, duration: 10s}
    flow:
      - mix:
          - weight: 4
            request: {label: ContentRead, url: /api/content/v1/read/do_1}
          - weight: 1
            flow:
              - request: {label: OrgSearch, method: POST, url: /api/org/v1/search, json: {request: {filters: {}}}}
              - think: {min: 10ms, max: 20ms}
      - think: 5ms
  - name: open
    workload: {rate: 100, duration: 5s, max_users: 50}
    flow:
      - request: {url: "/v1/tenant/info?x=1", query: {y: "a b"}, gzip: true, body: hello}
"#;

    #[test]
    fn reads_a_full_plan() {
        let p = load(OK).unwrap();
        assert_eq!(p.name, "mix");
        let named: Vec<&String> = p.labels.iter().filter(|l| !l.contains('-')).collect();
        assert_eq!(named, ["ContentRead", "OrgSearch", "/v1/tenant/info"]);
        assert!(p.labels.contains(&"ContentRead-20".to_string()), "hops of followed redirects have labels");
        let Step::Mix(b) = &p.scenarios[0].flow[0] else { panic!() };
        assert_eq!(b[0].weight, 4.0);
        let Step::Request(r) = &b[0].steps[0] else { panic!() };
        assert_eq!(r.target.port, 8080);
        assert_eq!(r.headers, [("Accept".to_string(), Template::literal("application/json"))]);
        let Step::Request(r) = &b[1].steps[0] else { panic!() };
        assert_eq!(r.method, "POST");
        assert_eq!(r.body, Body::Text(Template::literal(r#"{"request":{"filters":{}}}"#)));
        let Workload::Open(o) = &p.scenarios[1].workload else { panic!() };
        assert_eq!((o.start_rate, o.max_users), (100.0, 50));
        let Step::Request(r) = &p.scenarios[1].flow[0] else { panic!() };
        assert_eq!(r.path.as_const(), Some("/v1/tenant/info?x=1"));
        assert_eq!(r.query, [Param::new("y", Template::literal("a b"))]);
        assert!(r.gzip);
    }

    #[test]
    fn properties_override_defaults() {
        let props = HashMap::from([("port".to_string(), "9999".to_string())]);
        let p = read(OK, Path::new("t.yaml"), &props).unwrap();
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| assert_eq!(r.target.port, 9999));
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let e = load("scenarios:\n  - name: x\n    workload: {users: 1\n").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert!(e.location.line.is_some(), "{e}");
    }

    #[test]
    fn unknown_field_suggests_closest() {
        let e = load(
            "scenarios:\n  - workload: {usres: 1, duration: 1s}\n    flow: [{request: {url: 'http://127.0.0.1/'}}]\n",
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::UnknownField);
        assert!(e.to_string().contains("did you mean `users`?"), "{e}");
        assert_eq!(e.location.line, Some(2), "{e}");
    }

    #[test]
    fn semantic_errors_name_the_element() {
        let cases = [
            ("scenarios: []", "at least one scenario"),
            ("scenarios: [{workload: {users: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "iterations"),
            ("scenarios: [{workload: {users: 1, rate: 5}, flow: []}]", "either closed"),
            ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: '/x'}}]}]", "base_url"),
            ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: 'http://127.0.0.1/', body_file: nope.bin}}]}]", "nope.bin"),
            ("scenarios: [{workload: {users: 1, duration: soon}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`soon` is not a duration"),
            ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{think: 1s}]}]", "sends no request"),
            ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: 'http://${hots}/'}}]}]", "unknown variable"),
            ("defaults: {response_timeout: 0s}\nscenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "above zero"),
            ("scenarios: [{workload: {users: 1, duration: 1e20}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "at most 365 days"),
            // #11: a zero run time still sent (each user started an iteration).
            ("scenarios: [{workload: {users: 1, duration: 0s}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`duration` must be above zero"),
            ("scenarios: [{workload: {users: 1, iterations: 5, duration: 0}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`duration` must be above zero"),
            ("scenarios: [{workload: {rate: 5, duration: 0ms}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`duration` must be above zero"),
            ("scenarios: [{workload: {stages: [{rate: 5, duration: 0s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "0s in all"),
        ];
        for (src, want) in cases {
            let e = load(src).unwrap_err().to_string();
            assert!(e.contains(want), "{src}\n→ {e}");
            assert!(e.starts_with("t.yaml"), "{e}");
        }
    }

    /// #11: a byte-order mark before the document was read as part of the first key.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let p = load(
            "\u{feff}scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
        );
        assert_eq!(p.unwrap().scenarios.len(), 1);
    }

    /// #11: a non-ASCII character before a template in a URL panicked (a byte offset inside
    /// a character); the path keeps its characters (the engine percent-encodes them on the wire).
    #[test]
    fn non_ascii_before_a_template_in_a_url() {
        for (base, url, want) in [
            ("http://127.0.0.1:1/api", "/café/${id}", "/api/café/"),
            ("http://127.0.0.1:1", "/é${__UUID()}", "/é"),
            ("http://127.0.0.1:1", "http://127.0.0.1:2/ü/${id}", "/ü/"),
        ] {
            let src = format!("variables: {{id: 7}}\ndefaults: {{base_url: '{base}'}}\nscenarios: [{{workload: {{users: 1, iterations: 1}}, flow: [{{request: {{url: '{url}'}}}}]}}]");
            let p = load(&src).unwrap_or_else(|e| panic!("{url}: {e}"));
            let mut paths = vec![];
            flow::for_each_request(&p.scenarios[0].flow, &mut |r| paths.push(r.path.source().to_string()));
            assert!(paths[0].starts_with(want), "{url}: {paths:?}");
        }
    }

    /// Writes files into a fresh directory and loads `plan` from there.
    fn load_in_dir(plan: &str, files: &[(&str, &str)]) -> Result<Plan, Error> {
        let dir = std::env::temp_dir().join(format!("stampede-yaml-{}-{}", std::process::id(), rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let r = read(plan, &dir.join("plan.yaml"), &HashMap::new());
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    const FLOW: &str = r#"
variables: {base: "http://127.0.0.1:9"}
data:
  - {file: users.csv, share: user, on_eof: stop_user}
scenarios:
  - workload: {users: 2, iterations: 3}
    pacing: 100ms
    flow:
      - once:
          - request:
              label: login
              method: POST
              url: ${base}/login
              form: {user: "${user}", pass: "${pass}"}
              extract:
                - {json: "$.token", into: token, required: true}
                - {regex: 'sid=(\w+)', from: headers, into: sid, default: none}
                - {cookie: SESSION, into: session}
              check:
                - status: 2xx
                - body_contains: ok
      - loop:
          count: 2
          flow:
            - group:
                name: browse
                flow:
                  - request:
                      url: "${base}/content/${__counter(TRUE)}?u=${user}"
                      headers: {Authorization: "Bearer ${token}"}
                      follow_redirects: false
                      check: [{json: "$.id", equals: "${user}"}, {max_duration: 2s, message: slow}]
      - if: "${token} != ''"
        then: [{set: {seen: "yes"}}]
        else: [{think: 1ms}]
      - write: {file: out.csv, values: ["${user}", "${token}"], header: [user, token]}
"#;

    #[test]
    fn reads_a_flow_with_data_extractors_and_checks() {
        let p = load_in_dir(FLOW, &[("users.csv", "user,pass\nu1,p1\nu2,p2\n")]).unwrap();
        assert_eq!(p.data.len(), 1);
        assert_eq!(p.data[0].names, ["user", "pass"]);
        assert_eq!(p.data[0].rows.len(), 2);
        assert_eq!((p.data[0].share, p.data[0].on_eof), (Share::User, OnEof::StopUser));
        assert_eq!(p.scenarios[0].pacing, Some(Duration::from_millis(100)));
        assert!(matches!(p.scenarios[0].flow[0], Step::Feed(0)), "data files are read as each iteration starts");
        assert_eq!(
            p.checks,
            [
                "more than 20 redirects",
                "extract token: nothing found by $.token",
                "status is 200-299",
                "body contains \"ok\"",
                "$.id equals \"${user}\"",
                "slow"
            ]
        );
        let mut reqs = Vec::new();
        for sc in &p.scenarios {
            flow::for_each_request(&sc.flow, &mut |r| reqs.push(r.clone()));
        }
        let login = &reqs[0];
        assert!(matches!(&login.body, Body::Form(f) if f.len() == 2));
        assert_eq!(login.extract.len(), 3);
        assert!(login.follow_redirects);
        let browse = &reqs[1];
        assert!(!browse.path.is_const());
        assert_eq!(browse.target.port, 9);
        assert!(!browse.follow_redirects && browse.hop_labels.is_empty());
        assert_eq!(p.slots, Slots { loops: 1, once: 1, groups: 1, ..Default::default() });
        assert_eq!(p.writers.len(), 1);
        assert!(p.labels.contains(&"browse".to_string()));
        // Plan variables that nothing assigns are folded into constant text.
        let v = p.vars.get("base").unwrap();
        assert!(!p.vars.is_assigned(v));
        let yaml = p.to_resolved_yaml();
        assert!(!yaml.starts_with("# could not"), "{yaml}");
        assert!(yaml.contains("Authorization: '***'") || yaml.contains("Authorization: \"***\""), "{yaml}");
        assert!(yaml.contains("pass: '***'"), "form fields named like secrets are redacted: {yaml}");
    }

    #[test]
    fn flow_errors_name_the_element() {
        let users = ("users.csv", "user,pass\nu1,p1\n");
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
        let cases: &[Case] = &[
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${nope}'}}]}]",
                &[],
                "flow[0].request.url: unknown variable `${nope}`",
            ),
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', extract: [{regex: '(', into: x}]}}]}]",
                &[],
                "extract[0].regex: invalid regular expression",
            ),
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', extract: [{json: '$[', into: x}]}}]}]",
                &[],
                "extract[0].json: invalid JSONPath",
            ),
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', extract: [{regex: 'a(b)', template: '$2$', into: x}]}}]}]",
                &[],
                "a group the regex does not have",
            ),
            (
                "data: [{file: missing.csv}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
                &[],
                "missing.csv",
            ),
            (
                "data: [{file: users.csv, share: everyone}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
                &[users],
                "`everyone` is not a sharing mode",
            ),
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', check: [{status: 200, body_contains: x}]}}]}]",
                &[],
                "a check has exactly one of",
            ),
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{loop: {flow: []}}, {request: {url: 'http://127.0.0.1/'}}]}]",
                &[],
                "a loop needs `count`, `while`, or both",
            ),
            (
                "scenarios: [{workload: {rate: 5, duration: 1s}, pacing: 1s, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
                &[],
                "pacing applies to the closed model",
            ),
            (
                "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${__Randm(1,2)}'}}]}]",
                &[],
                "did you mean `__Random`?",
            ),
        ];
        for (src, files, want) in cases {
            let e = load_in_dir(src, files).unwrap_err().to_string();
            assert!(e.contains(want), "{src}\n→ {e}");
        }
    }

    #[test]
    fn data_file_errors_name_file_and_line() {
        let plan = "data: [{file: d.csv}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${a}'}}]}]";
        let e = load_in_dir(plan, &[("d.csv", "a,b\n1,2\n3\n")]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Data);
        assert!(e.location.file.as_ref().unwrap().ends_with("d.csv"), "{e}");
        assert_eq!(e.location.line, Some(3), "{e}");
        let e = load_in_dir(plan, &[("d.csv", "")]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Data, "{e}");
    }

    #[test]
    fn url_paths_split_from_their_hosts() {
        let cases = [
            ("http://127.0.0.1:9/a/${x}?q=${y}", 18),
            ("http://${host}:${port}/a", 22),
            ("${base}/a/${x}", 7),
            ("/a/${x}", 0),
            ("a/${x}", 0),
            ("http://${host}", 14),
            ("https://h/${__P(p,/x)}", 9),
        ];
        for (raw, want) in cases {
            assert_eq!(url_path_start(raw), want, "{raw}");
        }
    }

    #[test]
    fn a_host_from_a_run_time_variable_is_resolved_per_request() {
        let p = load(
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://${later}/x'}}, {set: {later: 1}}]}]",
        )
        .unwrap();
        let Step::Request(r) = &p.scenarios[0].flow[0] else { panic!() };
        assert_eq!(r.origin.as_ref().map(|o| o.source()), Some("http://${later}"));
        assert_eq!(r.path.as_const(), Some("/x"));
    }

    #[test]
    fn a_url_variable_assigned_later_stays_a_template() {
        let p = load(
            "variables: {cursor: ''}\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/list?c=${cursor}', extract: [{json: $.next, into: cursor}]}}]}]",
        )
        .unwrap();
        let Step::Request(r) = &p.scenarios[0].flow[0] else { panic!() };
        assert!(!r.path.is_const(), "the extractor assigns `cursor` while running");
        let p = load("variables: {v: x}\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${v}'}}]}]").unwrap();
        let Step::Request(r) = &p.scenarios[0].flow[0] else { panic!() };
        assert_eq!(r.path.as_const(), Some("/x"), "a plan variable nothing assigns is folded");
    }

    #[test]
    fn sizes_and_durations() {
        assert_eq!(parse_size("10MiB"), Some(10 << 20));
        assert_eq!(parse_size("512kb"), Some(512 << 10));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("1x"), None);
        assert_eq!(parse_duration("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("-1"), None);
        assert_eq!(parse_duration("1e20"), None);
        assert_eq!(parse_duration("400days"), None);
        assert_eq!(parse_duration("NaN"), None);
    }
}
