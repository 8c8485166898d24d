//! YAML → [`Plan`]. The document is read with serde (which gives line and column for syntax
//! and unknown-field errors), then checked and resolved here, element by element, so every
//! later error names the element it is about.

use super::template::{self, Scope};
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
    scenarios: Vec<ScenarioDoc>,
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDoc {
    name: Option<String>,
    workload: WorkloadDoc,
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
    gzip: Option<Value>,
    keep_alive: Option<Value>,
    http_version: Option<Value>,
    connect_timeout: Option<Value>,
    response_timeout: Option<Value>,
    max_response_size: Option<Value>,
}

pub(super) fn read(src: &str, file: &Path, properties: &HashMap<String, String>) -> Result<Plan, Error> {
    let doc: PlanDoc = serde_norway::from_str(src).map_err(|e| serde_error(e, file))?;
    let mut cx = Cx {
        file: file.to_path_buf(),
        src,
        scope: Scope { properties: properties.clone(), ..Default::default() },
        labels: Labels::default(),
        defaults: Defaults::default(),
    };
    for (k, v) in &doc.variables {
        let name = match k {
            Value::String(s) => s.clone(),
            other => scalar_text(other).unwrap_or_default(),
        };
        let el = format!("variables.{name}");
        let value = cx.text(v, &el)?;
        cx.scope.variables.insert(name, value);
    }
    cx.defaults = cx.defaults_from(&doc.defaults)?;
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
        let flow = cx.steps(&s.flow, &format!("{el}.flow"))?;
        if !has_request(&flow) {
            return Err(Error::invalid(cx.loc(&format!("{el}.flow")), "the flow sends no request"));
        }
        scenarios.push(Scenario { name, workload, flow });
    }
    let name = doc
        .name
        .unwrap_or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "plan".into()));
    Ok(Plan { name, source: Some(file.to_path_buf()), labels: cx.labels.into_names(), scenarios })
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
    scope: Scope,
    labels: Labels,
    defaults: Defaults,
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

    fn text(&self, v: &Value, el: &str) -> Result<String, Error> {
        let raw = scalar_text(v).ok_or_else(|| {
            Error::invalid(self.loc(el), "expected a single value (text or number), not a list or map")
        })?;
        template::expand(&raw, &self.scope).map_err(|m| Error::new(ErrorKind::Template, self.loc_of(el, v), m))
    }

    fn parse<T>(&self, v: &Value, el: &str, what: &str, f: impl Fn(&str) -> Option<T>) -> Result<T, Error> {
        let t = self.text(v, el)?;
        f(t.trim()).ok_or_else(|| Error::invalid(self.loc_of(el, v), format!("`{t}` is not {what}")))
    }

    fn duration(&self, v: &Value, el: &str) -> Result<Duration, Error> {
        self.parse(
            v,
            el,
            "a duration (e.g. 30s, 1m30s, 250ms; a bare number is seconds; at most 365 days)",
            parse_duration,
        )
    }

    fn opt_duration(&self, v: &Option<Value>, el: &str) -> Result<Option<Duration>, Error> {
        v.as_ref().map(|v| self.duration(v, el)).transpose()
    }

    /// A timeout: a duration above zero (a zero timeout would fail every request at once).
    fn opt_timeout(&self, v: &Option<Value>, el: &str) -> Result<Option<Duration>, Error> {
        match v {
            Some(v) => match self.duration(v, el)? {
                d if d.is_zero() => Err(Error::invalid(self.loc_of(el, v), "a timeout must be above zero")),
                d => Ok(Some(d)),
            },
            None => Ok(None),
        }
    }

    fn count<T: std::str::FromStr>(&self, v: &Value, el: &str) -> Result<T, Error> {
        self.parse(v, el, "a whole number", |s| s.parse().ok())
    }

    fn rate(&self, v: &Value, el: &str) -> Result<f64, Error> {
        self.parse(v, el, "a rate in iterations per second", |s| {
            s.trim_end_matches("/s").parse::<f64>().ok().filter(|r| r.is_finite() && *r >= 0.0)
        })
    }

    fn bool(&self, v: &Value, el: &str) -> Result<bool, Error> {
        self.parse(v, el, "true or false", |s| match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Some(true),
            "false" | "no" | "off" => Some(false),
            _ => None,
        })
    }

    fn version(&self, v: &Value, el: &str) -> Result<HttpVersion, Error> {
        self.parse(v, el, "an HTTP version (1.1 or 1.0)", |s| match s.trim_start_matches("HTTP/") {
            "1.1" => Some(HttpVersion::Http11),
            "1.0" | "1" => Some(HttpVersion::Http10),
            _ => None,
        })
    }

    fn size(&self, v: &Value, el: &str) -> Result<u64, Error> {
        self.parse(v, el, "a size (e.g. 10MiB, 512KB, or bytes)", parse_size)
    }

    fn headers(&self, m: &Mapping, el: &str) -> Result<Vec<(String, String)>, Error> {
        let mut out = Vec::new();
        for (k, v) in m {
            let name = scalar_text(k).unwrap_or_default();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                return Err(Error::invalid(self.loc(el), format!("`{name}` is not a valid header name")));
            }
            let value = self.text(v, &format!("{el}.{name}"))?;
            if value.contains(['\r', '\n']) {
                return Err(Error::invalid(
                    self.loc(&format!("{el}.{name}")),
                    "a header value cannot contain a line break",
                ));
            }
            out.push((name, value));
        }
        Ok(out)
    }

    fn defaults_from(&self, d: &DefaultsDoc) -> Result<Defaults, Error> {
        let mut out = Defaults::default();
        if let Some(v) = &d.base_url {
            let base = self.text(v, "defaults.base_url")?;
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
        if let Some(v) = &d.keep_alive {
            out.keep_alive = self.bool(v, "defaults.keep_alive")?;
        }
        if let Some(v) = &d.http_version {
            out.http_version = self.version(v, "defaults.http_version")?;
        }
        if let Some(v) = &d.max_response_size {
            out.max_response_size = self.size(v, "defaults.max_response_size")?;
        }
        Ok(out)
    }

    fn workload(&self, w: &WorkloadDoc, el: &str) -> Result<Workload, Error> {
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
                    let duration = self.duration(d, &f("duration"))?;
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
        let duration = self.opt_duration(&w.duration, &f("duration"))?;
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
        let given = [d.request.is_some(), d.mix.is_some(), d.think.is_some(), d.flow.is_some()];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(Error::invalid(self.loc(el), "a step has exactly one of `request`, `mix`, `think`, `flow`"));
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
        let f = d.flow.as_ref().expect("checked above");
        Ok(Step::Sequence(self.steps(f, &format!("{el}.flow"))?))
    }

    fn think(&self, v: &Value, el: &str) -> Result<Think, Error> {
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

    fn request(&mut self, r: &RequestDoc, el: &str) -> Result<RequestSpec, Error> {
        let f = |name: &str| format!("{el}.{name}");
        let d = &self.defaults;
        let url_text = self.text(&r.url, &f("url"))?;
        let (target, mut path) = resolve_url(&url_text, d.base_url.as_deref())
            .map_err(|m| Error::invalid(self.loc_of(&f("url"), &r.url), m))?;
        if !r.query.is_empty() {
            let mut ser = url::form_urlencoded::Serializer::new(String::new());
            for (k, v) in &r.query {
                let key = scalar_text(k).unwrap_or_default();
                ser.append_pair(&key, &self.text(v, &format!("{el}.query.{key}"))?);
            }
            path.push(if path.contains('?') { '&' } else { '?' });
            path.push_str(&ser.finish());
        }
        let method = match &r.method {
            Some(m) => {
                let t = self.text(m, &f("method"))?;
                validate_method(&t).map_err(|msg| Error::invalid(self.loc_of(&f("method"), m), msg))?
            }
            None if r.body.is_some() || r.body_file.is_some() || r.json.is_some() => "POST".into(),
            None => "GET".into(),
        };
        let label = match &r.label {
            Some(l) => self.text(l, &f("label"))?,
            None => path.split('?').next().unwrap_or("/").to_string(),
        };
        // Defaults first, then the request's own headers replace same-named ones.
        let own = self.headers(&r.headers, &f("headers"))?;
        let mut headers: Vec<(String, String)> =
            d.headers.iter().filter(|(k, _)| !own.iter().any(|(o, _)| o.eq_ignore_ascii_case(k))).cloned().collect();
        headers.extend(own);
        let bodies = [r.body.is_some(), r.body_file.is_some(), r.json.is_some()];
        if bodies.iter().filter(|b| **b).count() > 1 {
            return Err(Error::invalid(self.loc(el), "give only one of `body`, `body_file`, `json`"));
        }
        let mut body = None;
        if let Some(b) = &r.body {
            body = Some(self.text(b, &f("body"))?.into_bytes());
        }
        if let Some(b) = &r.body_file {
            let name = self.text(b, &f("body_file"))?;
            let base = self.file.parent().unwrap_or(Path::new("."));
            let p = base.join(&name);
            let bytes = std::fs::read(&p).map_err(|e| {
                Error::new(
                    ErrorKind::Io,
                    self.loc_of(&f("body_file"), b),
                    format!("cannot read body file {}: {e}", p.display()),
                )
            })?;
            body = Some(bytes);
        }
        if let Some(j) = &r.json {
            let text = serde_json::to_string(&yaml_to_json(j))
                .map_err(|e| Error::invalid(self.loc(&f("json")), e.to_string()))?;
            let text = template::expand(&text, &self.scope)
                .map_err(|m| Error::new(ErrorKind::Template, self.loc(&f("json")), m))?;
            body = Some(text.into_bytes());
            if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
                headers.push(("Content-Type".into(), "application/json".into()));
            }
        }
        if let Some(g) = &r.gzip {
            if self.bool(g, &f("gzip"))? {
                let b = body.as_ref().ok_or_else(|| Error::invalid(self.loc(&f("gzip")), "`gzip` needs a body"))?;
                body = Some(gzip(b));
                headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-encoding"));
                headers.push(("Content-Encoding".into(), "gzip".into()));
            }
        }
        let opt_bool = |v: &Option<Value>, name: &str, default: bool| -> Result<bool, Error> {
            v.as_ref().map(|v| self.bool(v, &f(name))).transpose().map(|o| o.unwrap_or(default))
        };
        let keep_alive = opt_bool(&r.keep_alive, "keep_alive", d.keep_alive)?;
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
        Ok(RequestSpec {
            label: self.labels.intern(&label),
            method,
            target,
            path,
            headers,
            body,
            keep_alive,
            http_version,
            connect_timeout,
            response_timeout,
            max_response_size,
        })
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
        assert_eq!(p.labels, ["ContentRead", "OrgSearch", "/v1/tenant/info"]);
        let Step::Mix(b) = &p.scenarios[0].flow[0] else { panic!() };
        assert_eq!(b[0].weight, 4.0);
        let Step::Request(r) = &b[0].steps[0] else { panic!() };
        assert_eq!(r.target.port, 8080);
        assert_eq!(r.headers, [("Accept".to_string(), "application/json".to_string())]);
        let Step::Request(r) = &b[1].steps[0] else { panic!() };
        assert_eq!(r.method, "POST");
        assert_eq!(r.body.as_deref(), Some(&br#"{"request":{"filters":{}}}"#[..]));
        let Workload::Open(o) = &p.scenarios[1].workload else { panic!() };
        assert_eq!((o.start_rate, o.max_users), (100.0, 50));
        let Step::Request(r) = &p.scenarios[1].flow[0] else { panic!() };
        assert_eq!(r.path, "/v1/tenant/info?x=1&y=a+b");
        assert!(r.headers.iter().any(|(k, v)| k == "Content-Encoding" && v == "gzip"));
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
        ];
        for (src, want) in cases {
            let e = load(src).unwrap_err().to_string();
            assert!(e.contains(want), "{src}\n→ {e}");
            assert!(e.starts_with("t.yaml"), "{e}");
        }
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
