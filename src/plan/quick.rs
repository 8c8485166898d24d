//! Quick mode: what `stampede run --url ...` says, made into a one-scenario, one-request
//! [`Plan`] through the plan builder.

use super::*;
use crate::plan::sampler::Sampler;

/// Why a method cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an HTTP method")]
pub(crate) struct MethodError(String);

/// Everything `stampede run --url ...` can say; becomes a one-scenario, one-request [`Plan`].
#[derive(Debug, Clone, Default)]
pub struct QuickPlan {
    /// The URL every request goes to (`--url`).
    pub url: String,
    /// The method (`-X`); GET, or POST with a body.
    pub method: Option<String>,
    /// The request body (`-d`).
    pub body: Option<String>,
    /// Request headers, `Name: value` each (`-H`).
    pub headers: Vec<String>,
    /// Closed model: this many users (`-u`).
    pub users: Option<u32>,
    /// Open model: arrivals a second (`--rate`).
    pub rate: Option<f64>,
    /// Open model: the most users the arrivals may use at once (`--max-users`).
    pub max_users: Option<u32>,
    /// How long the load lasts (`--duration`).
    pub duration: Option<Duration>,
    /// How many iterations each user runs (`-n`).
    pub iterations: Option<u64>,
    /// How long the users take to start (`--ramp-up`).
    pub ramp_up: Option<Duration>,
    /// Whether connections are kept alive between requests.
    pub keep_alive: bool,
    pub(crate) http_version: Option<HttpVersion>,
    /// How long a request may take in all (`--timeout`).
    pub timeout: Option<Duration>,
    /// How long connecting may take (`--connect-timeout`).
    pub connect_timeout: Option<Duration>,
    /// Whether to ask for a gzip-compressed response.
    pub gzip: bool,
}

impl QuickPlan {
    /// `--body-file`: the body, as text; the message names the flag and the file.
    pub(crate) fn read_body(path: &Path) -> Result<String, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("--body-file {}: {e}", path.display()))?;
        String::from_utf8(bytes).map_err(|e| {
            format!("--body-file {}: not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to())
        })
    }

    /// The plan these options describe: one scenario of one request.
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
            flow: vec![Step::Sample(Sampler::Http(Box::new(request)))],
        });
        let plan = b.finish("quick".into(), None);
        Ok(plan)
    }
}

impl QuickPlan {
    /// The same plan as a YAML plan file, which [`Plan::load`] reads into the plan
    /// [`QuickPlan::into_plan`] makes: what a run on agents ships (they load a plan file, as for
    /// any plan). Text stays literal: `${` is escaped as a YAML plan escapes it, and the body is
    /// a file of its own beside the plan (`QUICK_BODY`, sent byte for byte), given back here.
    pub fn to_yaml(&self) -> Result<(String, Option<Vec<u8>>), Error> {
        // Checked as `into_plan` checks it, and its choices (method, label, users) taken from it.
        let plan = self.clone().into_plan()?;
        let scenario = &plan.scenarios[0];
        let Some(Step::Sample(Sampler::Http(request))) = scenario.flow.first() else {
            return Err(Error::invalid(Location::default().element("--url"), "no request"));
        };
        let text = |s: &str| serde_json::to_string(&s.replace('\\', "\\\\").replace("${", "\\${")).unwrap_or_default();
        let ms = |d: Duration| format!("\"{}ms\"", d.as_millis());
        let mut r = vec![
            format!("url: {}", text(&self.url)),
            format!("label: {}", text(&plan.labels[request.label.index()])),
            format!("method: {}", text(&request.method)),
            "follow_redirects: false".to_string(),
            format!("keep_alive: {}", self.keep_alive),
        ];
        if self.http_version == Some(HttpVersion::Http10) {
            r.push("http_version: \"1.0\"".into());
        }
        r.extend(self.timeout.map(|t| format!("response_timeout: {}", ms(t))));
        r.extend(self.connect_timeout.map(|t| format!("connect_timeout: {}", ms(t))));
        if !request.headers.is_empty() {
            let h: Vec<String> = self
                .headers
                .iter()
                .filter_map(|h| h.split_once(':'))
                .map(|(k, v)| format!("{}: {}", text(k.trim()), text(v.trim())))
                .collect();
            r.push(format!("headers: {{{}}}", h.join(", ")));
        }
        if self.body.is_some() {
            r.push(format!("body_file: {QUICK_BODY}"));
        }
        if self.gzip {
            r.push("gzip: true".into());
        }
        let workload = match &scenario.workload {
            Workload::Open(o) => format!(
                "{{rate: {}, duration: {}, pre_allocated_users: {}, max_users: {}}}",
                o.start_rate,
                ms(o.stages[0].duration),
                o.pre_allocated_users,
                o.max_users
            ),
            Workload::Closed(c) => {
                let mut w = vec![format!("users: {}", c.users), format!("ramp_up: {}", ms(c.ramp_up))];
                w.extend(c.iterations.map(|n| format!("iterations: {n}")));
                w.extend(c.duration.map(|d| format!("duration: {}", ms(d))));
                format!("{{{}}}", w.join(", "))
            }
            Workload::Shaped(_) => {
                return Err(Error::invalid(Location::default().element("--url"), "a shaped workload"))
            }
        };
        let yaml = format!(
            "name: {}\nscenarios:\n  - name: {}\n    workload: {workload}\n    flow:\n      - request: {{{}}}\n",
            text(&plan.name),
            text(&scenario.name),
            r.join(", ")
        );
        Ok((yaml, self.body.clone().map(String::into_bytes)))
    }
}

/// The file name of quick mode's body beside the plan [`QuickPlan::to_yaml`] makes.
pub(crate) const QUICK_BODY: &str = "quick-body";

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
        let open = OpenWorkload {
            start_rate: rate,
            stages: vec![Stage { target: rate, duration }],
            pre_allocated_users: max.min(((rate / 100.0).ceil() as u32).max(10)),
            max_users: max,
            start_delay: Duration::ZERO,
            graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
            process: None,
        };
        if let Some(problem) = workload::rate_problem("--rate", rate) {
            return Err(Error::invalid(loc("--rate"), problem));
        }
        return Ok(Workload::Open(open));
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
pub(crate) fn validate_method(m: &str) -> Result<String, MethodError> {
    let up = m.trim().to_ascii_uppercase();
    if up.is_empty() || !up.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err(MethodError(m.to_string()));
    }
    Ok(up)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run on agents ships quick mode as a YAML plan: read back, it is the plan quick mode
    /// makes, text kept literal (`${x}` is not a variable there).
    #[test]
    fn a_quick_plan_as_yaml_reads_back_as_the_same_plan() {
        let dir = std::env::temp_dir().join(format!("stampede-quick-yaml-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let quick = |q: QuickPlan| {
            let (yaml, body) = q.to_yaml().unwrap();
            std::fs::write(dir.join("quick.yaml"), &yaml).unwrap();
            if let Some(body) = body {
                std::fs::write(dir.join(QUICK_BODY), body).unwrap();
            }
            let mut read =
                Plan::load(&dir.join("quick.yaml"), &Default::default()).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
            read.source = None;
            assert_eq!(read.to_resolved_yaml(), q.into_plan().unwrap().to_resolved_yaml(), "{yaml}");
        };
        quick(QuickPlan {
            url: "http://127.0.0.1:1/x?a=${b}".into(),
            users: Some(5),
            duration: Some(Duration::from_millis(2500)),
            ramp_up: Some(Duration::from_secs(1)),
            keep_alive: true,
            ..Default::default()
        });
        quick(QuickPlan {
            url: "http://127.0.0.1:1/post".into(),
            method: Some("put".into()),
            body: Some("{\"k\": \"\\${v} \\n é\"}".into()),
            headers: vec!["X-A: 1: 2".into(), "Content-Type: application/json".into()],
            iterations: Some(3),
            gzip: true,
            keep_alive: false,
            http_version: Some(HttpVersion::Http10),
            timeout: Some(Duration::from_millis(1500)),
            connect_timeout: Some(Duration::from_secs(2)),
            ..Default::default()
        });
        quick(QuickPlan {
            url: "http://127.0.0.1:1/".into(),
            rate: Some(250.5),
            max_users: Some(40),
            duration: Some(Duration::from_secs(3)),
            keep_alive: true,
            ..Default::default()
        });
        let _ = std::fs::remove_dir_all(&dir);
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
