//! The HTTP sampler and HTTP Request Defaults: a sampler becomes a request, with the
//! defaults, headers, timers, extractors and assertions of its scope.

use super::http::non_http;
use super::*;
use crate::plan::sampler::Sampler;

#[derive(Debug, Clone, Default)]
pub(super) struct HttpDefaults {
    pub(super) protocol: String,
    pub(super) domain: String,
    pub(super) port: String,
    pub(super) path: String,
    pub(super) connect_timeout: String,
    pub(super) response_timeout: String,
    /// `HTTPSampler.implementation`: `HttpClient4` (JMeter's default) or `Java`.
    pub(super) implementation: String,
    /// "Retrieve All Embedded Resources" and its URL filters (`HTTPSampler.image_parser`,
    /// `embedded_url_re`, `embedded_url_exclude_re`): a sampler without its own takes these.
    pub(super) image_parser: String,
    pub(super) embedded_url_re: String,
    pub(super) embedded_url_exclude_re: String,
    pub(super) args: Vec<Arg>,
}

/// The `Accept` header Java's `HttpURLConnection` adds to a request that has none: what a
/// sampler with the Java implementation sends (JMeter's `HTTPJavaImpl` leaves it in place).
/// This is the JDK 9+ text (JMeter 5.6.3 on Java 17, as the differential in bench/jmeter saw
/// it); Java 8 sent `text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2`.
const JAVA_DEFAULT_ACCEPT: &str = "text/html, image/gif, image/jpeg, */*; q=0.2";

/// Where an HTTP sampler's request goes.
struct HttpUrl {
    target: Target,
    path: Template,
    /// The origin, when a variable fills it while running (or java.net.URI refuses it).
    origin: Option<Template>,
    /// As the sampler (or its defaults) says it, for messages.
    protocol: String,
    /// No server name: the path must be a whole URL once rendered.
    at_run_time: bool,
    /// The path is a whole URL (or must be one): arguments are not added to its query.
    absolute: bool,
}

/// An HTTP sampler's headers, query and body, as its arguments and files make them.
struct HttpPayload {
    headers: Vec<(String, Template)>,
    query: Vec<Param>,
    body: Body,
    /// The body's file cannot be read: the sample fails after its head is sent.
    fault_after_head: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Arg {
    pub(super) name: String,
    pub(super) value: String,
    pub(super) encode: bool,
    /// "Include Equals?" (`HTTPArgument.use_equals`): off, an empty value is sent as `name` alone.
    pub(super) use_equals: bool,
}

/// HTTP Request Defaults (a `ConfigTestElement` with HTTP fields), by class.
pub(super) const SCOPE_ELEMENTS: &[(&str, ScopeFn)] =
    &[("ConfigTestElement", Cx::http_defaults), ("JavaConfig", Cx::java_config)];

/// The samplers, by class.
pub(super) const STEP_ELEMENTS: &[(&str, StepsFn)] = &[
    ("HTTPSamplerProxy", Cx::http_sampler),
    ("HTTPSampler", Cx::http_sampler),
    ("com.blazemeter.jmeter.http.ParallelHTTPSampler", Cx::parallel_http),
    ("AccessLogSampler", Cx::access_log_sampler),
];

impl Cx {
    /// HTTP Request Defaults; a configuration element without HTTP fields is ignored, and so
    /// is one whose GUI class JMeter's HTTP sampler does not take configuration from
    /// (`HTTPSamplerBase.applies`: only the GUIs of its `APPLIABLE_CONFIG_CLASSES`).
    pub(super) fn http_defaults(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let gui = c.gui.rsplit('.').next().unwrap_or_default();
        if gui == "TCPConfigGui" {
            return self.tcp_config(c, s, depth);
        }
        if gui == "FtpConfigGui" {
            self.ftp_config(c, s, depth, false);
            return Ok(());
        }
        let login = gui == "LoginConfigGui";
        if login {
            self.ftp_config(c, s, depth, true);
        }
        // (A plan written by hand without GUI classes is read by its fields.)
        if !gui.is_empty() && !matches!(gui, "HttpDefaultsGui" | "SimpleConfigGui" | "LoginConfigGui" | "TestBeanGUI") {
            let why = format!(
                "JMeter's HTTP sampler takes no configuration from an element of GUI class `{}` \
                 (HTTPSamplerBase.applies): it sets nothing",
                c.gui
            );
            self.report(c, depth, Status::Ignored, why);
            return Ok(());
        }
        if !(gui == "HttpDefaultsGui" || c.prop("HTTPSampler.domain").is_some()) {
            if login {
                let note = "the user name and password of the FTP Requests in its scope that leave them empty";
                self.report(c, depth, Status::Supported, note);
                return Ok(());
            }
            self.report(c, depth, Status::Ignored, "a configuration without HTTP fields");
            return Ok(());
        }
        let d = &mut s.http;
        let set = |field: &mut String, v: &str| {
            if !v.is_empty() {
                *field = v.to_string();
            }
        };
        set(&mut d.protocol, c.text_or_empty("HTTPSampler.protocol"));
        set(&mut d.domain, c.text_or_empty("HTTPSampler.domain"));
        set(&mut d.port, c.text_or_empty("HTTPSampler.port"));
        set(&mut d.path, c.text_or_empty("HTTPSampler.path"));
        set(&mut d.connect_timeout, c.text_or_empty("HTTPSampler.connect_timeout"));
        set(&mut d.response_timeout, c.text_or_empty("HTTPSampler.response_timeout"));
        set(&mut d.implementation, c.text_or_empty("HTTPSampler.implementation"));
        set(&mut d.image_parser, c.text_or_empty("HTTPSampler.image_parser"));
        set(&mut d.embedded_url_re, c.text_or_empty("HTTPSampler.embedded_url_re"));
        set(&mut d.embedded_url_exclude_re, c.text_or_empty("HTTPSampler.embedded_url_exclude_re"));
        d.args.extend(http_args(c));
        self.report(c, depth, Status::Supported, "HTTP request defaults");
        Ok(())
    }

    pub(super) fn http_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let mut req = self.http_request(c, &own)?;
        req.after.scripts = own.scripts.clone();
        let mut steps = own.pre.clone();
        steps.extend(super::script::for_sampler(&own.before, &req, &c.name));
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        let vars = &self.b.sym.vars;
        let bad_host = req.origin.as_ref().filter(|o| !o.is_dynamic(vars)).and_then(|o| {
            let url = format!("{}{}", o.source(), req.path.source());
            java_uri::refusal(&url).map(|why| format!("{why}: {url}"))
        });
        if let Some(why) = bad_host {
            let why = non_http("java.net.URISyntaxException", &why);
            self.warn(c, depth, format!("each sample fails unsent, as in JMeter: {why}"));
        } else if let Some(fault) = req.fault {
            let why = self.b.check_message(fault).to_string();
            let how = if req.fault_after_head { "is sent without its body and fails" } else { "fails unsent" };
            self.warn(c, depth, format!("each sample {how}, as in JMeter: {why}"));
        } else if let Some(fault) = missing_upload(&req) {
            let why = self.b.check_message(fault).to_string();
            let how = "is sent up to that file's part and fails";
            self.warn(c, depth, format!("each sample {how} while the file is not there, as in JMeter: {why}"));
        } else if let Some(e) = self.embedded(c, &own, depth)? {
            let filters = match (&e.allow, &e.exclude) {
                (None, None) => String::new(),
                (a, x) => format!(
                    " (URLs matching {}{})",
                    a.as_ref().map_or("anything", |r| r.as_str()),
                    x.as_ref().map_or(String::new(), |r| format!(", not {}", r.as_str()))
                ),
            };
            let note = format!(
                "{} {}; with its embedded resources{filters}, one GET each, in turn, sub-results {}-0, {}-1...",
                req.method,
                req.url(),
                c.name,
                c.name
            );
            req.embedded = Some(Box::new(e));
            // The same requests and samples, one after another: only the timing differs.
            if c.flag("HTTPSampler.concurrentDwn") == Some(true) {
                let why = "; JMeter fetches them in parallel (\"parallel downloads\"), here in turn";
                self.report(c, depth, Status::Partial, format!("{note}{why}"));
            } else {
                self.report(c, depth, Status::Supported, note);
            }
        } else {
            self.report(c, depth, Status::Supported, format!("{} {}", req.method, req.url()));
        }
        steps.push(Step::Sample(Sampler::Http(Box::new(req))));
        steps.extend(own.after.iter().cloned());
        Ok(steps)
    }

    /// "Retrieve All Embedded Resources", the sampler's own or its HTTP Request Defaults' (as
    /// JMeter merges a config into a sampler whose property is empty), with its URL filters.
    /// JMeter compiles each filter when the sample runs and ignores one it refuses (a warning
    /// in its log), so a bad pattern here is a warning and no filter.
    pub(super) fn embedded(
        &mut self,
        c: &El,
        own: &Scope,
        depth: usize,
    ) -> Result<Option<crate::plan::sampler::http::Embedded>, Error> {
        let d = &own.http;
        let pick = |name: &str, def: &str| {
            let v = c.text_or_empty(name);
            if v.trim().is_empty() {
                def.to_string()
            } else {
                v.to_string()
            }
        };
        if !pick("HTTPSampler.image_parser", &d.image_parser).trim().eq_ignore_ascii_case("true") {
            return Ok(None);
        }
        let filter = |this: &mut Self, name: &str, def: &str| -> Result<Option<regex::Regex>, Error> {
            let raw = pick(name, def);
            if raw.trim().is_empty() {
                return Ok(None);
            }
            let pattern = this.expand(c, &raw)?;
            // Perl5Matcher.matches: the whole URL must match.
            match regex::Regex::new(&format!("^(?:{pattern})$")) {
                Ok(r) => Ok(Some(r)),
                Err(e) => {
                    this.warn(c, depth, format!("{name} `{pattern}` is ignored, as JMeter ignores it: {e}"));
                    Ok(None)
                }
            }
        };
        let allow = filter(self, "HTTPSampler.embedded_url_re", &d.embedded_url_re)?;
        let exclude = filter(self, "HTTPSampler.embedded_url_exclude_re", &d.embedded_url_exclude_re)?;
        Ok(Some(crate::plan::sampler::http::Embedded { allow, exclude }))
    }

    /// BlazeMeter's Parallel HTTP Requests: JMeter's concurrent download of embedded resources
    /// over a page listing its URLs, so one parent sample (the sampler's name) for a GET of
    /// each distinct URL, at most `HTTPSampler.concurrentPool` (6) at once, each a sub-result
    /// named `-0`, `-1`... (JMeter renames sub-results after their place, the parent's label
    /// being still empty then). The requests get
    /// the sampler's headers and managers, not the arguments of HTTP Request Defaults; its
    /// assertions and extractors apply to the page the plugin makes, which has no request.
    pub(super) fn parallel_http(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let mut urls: Vec<String> = Vec::new();
        for row in c.collection("urls").unwrap_or_default() {
            if let Value::Collection(cells) = &row.value {
                // JMeter's page parser keeps each URL once, blank ones not at all.
                if let Some(u) = texts(cells).into_iter().next().filter(|u| !u.trim().is_empty()) {
                    if !urls.contains(&u) {
                        urls.push(u);
                    }
                }
            }
        }
        // HTTPSamplerBase.downloadPageResources: a size `Integer.parseInt` refuses is the
        // default, 6 (JMeter logs "pool size value is bad. Use default value").
        let pool = self.expand(c, c.text("HTTPSampler.concurrentPool").unwrap_or("6"))?;
        let pool = if pool.parse::<i32>().is_ok() { pool } else { "6".to_string() };
        let max = self.number::<u32>(c, &pool, "concurrent pool size")?;
        let mut sub = own.clone();
        sub.http.args.clear();
        sub.extract.clear();
        sub.checks.clear();
        sub.on_error = flow::StopKind::Continue;
        let mut branches = Vec::new();
        for (i, u) in urls.iter().enumerate() {
            let mut el = c.clone();
            // JMeter names each sub-result after its place, the parent's label still empty then.
            el.name = format!("-{i}");
            el.children.clear();
            el.props.retain(|p| !p.name.starts_with("HTTPsampler.") && !p.name.starts_with("HTTPSampler."));
            for (name, value) in [("HTTPSampler.path", u.as_str()), ("HTTPSampler.method", "GET")] {
                el.props.push(Prop { name: name.into(), value: Value::Text(value.into()) });
            }
            let kept = ["follow_redirects", "auto_redirects", "implementation", "connect_timeout", "response_timeout"];
            for name in kept.map(|k| format!("HTTPSampler.{k}")) {
                if let Some(v) = c.prop(&name) {
                    el.props.push(Prop { name, value: v.clone() });
                }
            }
            let req = self.http_request(&el, &sub)?;
            branches.push(vec![Step::Sample(Sampler::Http(Box::new(req)))]);
        }
        let unapplied = own.checks.len() + own.extract.len();
        let note =
            format!("one sample for a GET of each of {} URLs (sub-results -0, -1...), {max} at once", urls.len());
        if unapplied > 0 {
            let why = "; its assertions and extractors, which JMeter applies to the page of URLs it makes, are not";
            self.report(c, depth, Status::Partial, format!("{note}{why}"));
        } else {
            self.report(c, depth, Status::Supported, note);
        }
        let parent = Some(self.b.label(&c.name));
        let slot = self.b.slot(Slot::Group);
        let mut steps = own.pre.clone();
        steps.extend(own.before.iter().cloned());
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        let on_error = own.on_error;
        steps.push(Step::Parallel(Box::new(flow::Parallel { branches, parent, max: Some(max), on_error, slot })));
        steps.extend(own.after.iter().cloned());
        Ok(steps)
    }

    pub(super) fn http_request(&mut self, c: &El, scope: &Scope) -> Result<RequestSpec, Error> {
        let mut fault = None;
        let method = self.http_method(c, &mut fault);
        let url = self.http_url(c, &scope.http, &mut fault)?;
        let implementation = c.text_or_empty("HTTPSampler.implementation");
        let implementation = if implementation.trim().is_empty() { &scope.http.implementation } else { implementation };
        let java = implementation.trim() == "Java";
        let payload = self.http_payload(c, scope, &method, url.absolute, java, &mut fault)?;
        let timeout = |cx: &mut Self, own: &str, def: &str, fallback: Duration| -> Result<Duration, Error> {
            let raw = if own.trim().is_empty() { def } else { own };
            if raw.trim().is_empty() {
                return Ok(fallback);
            }
            let ms: f64 = cx.number(c, raw, "timeout")?;
            Ok(if ms <= 0.0 { fallback } else { cx.millis(c, ms, "timeout")? })
        };
        let defaults = Defaults::default();
        let connect_timeout = timeout(
            self,
            c.text_or_empty("HTTPSampler.connect_timeout"),
            &scope.http.connect_timeout,
            defaults.connect_timeout,
        )?;
        let response_timeout = timeout(
            self,
            c.text_or_empty("HTTPSampler.response_timeout"),
            &scope.http.response_timeout,
            defaults.response_timeout,
        )?;
        let follow_redirects = c.flag("HTTPSampler.follow_redirects").unwrap_or(true)
            || c.flag("HTTPSampler.auto_redirects").unwrap_or(false);
        let label_name = if c.name.is_empty() { url.path.source().to_string() } else { c.name.clone() };
        let method_is_post = method == "POST";
        let mut req = self.b.request(&label_name, method, url.target, url.path, &defaults);
        self.run_time_label(c, &label_name, req.label);
        if follow_redirects {
            self.b.follow_redirects(&mut req, defaults.max_redirects);
        }
        req.origin = url.origin;
        req.query = payload.query;
        req.headers = payload.headers;
        req.body = payload.body;
        // Absent (a plan not saved by the GUI), JMeter's schema default is false: each request
        // says `Connection: close` and opens a connection of its own.
        req.keep_alive = c.flag("HTTPSampler.use_keepalive").unwrap_or(false);
        // HTTPHC4Impl sets `Connection: keep-alive` or `close` on every request.
        req.say_keep_alive = true;
        req.http_version = HttpVersion::Http11;
        req.connect_timeout = connect_timeout;
        req.response_timeout = response_timeout;
        if let Some(t) = self.sample_timeout.filter(|t| *t <= response_timeout) {
            req.response_timeout = t;
            req.sample_timeout = true;
        }
        // The sampler's own post-processors and assertions come after those of outer scopes,
        // as JMeter runs them.
        req.after.extract = scope.extract.clone();
        req.after.checks = scope.checks.clone();
        req.ignore_status = scope.ignore_status;
        req.managers = scope.managers.clone();
        req.after.on_error = scope.on_error;
        req.java_uri = true;
        req.collapse_slashes = !java;
        req.param_overrides = scope.param_overrides.clone();
        req.url_rewrites = scope.url_rewrites.clone();
        // A POST without arguments still sends a form (`Content-Type` above): the argument a
        // URL Re-writing Modifier adds goes in it, as JMeter's sampler sends its arguments.
        if method_is_post && matches!(req.body, Body::None) && req.url_rewrites.iter().any(|r| !r.path_extension) {
            req.body = Body::Form(Vec::new());
        }
        req.after.extract.extend(self.url_rewriting_extractors());
        // Without a server name, a path that cannot turn into a URL: JMeter's HttpClient refuses
        // the URL it makes (`http:/path`).
        if url.at_run_time && fault.is_none() && !req.path.is_dynamic(&self.b.sym.vars) {
            let path = req.path.source().to_string();
            let slash = if path.starts_with('/') { "" } else { "/" };
            fault = Some(non_http(
                "org.apache.http.client.ClientProtocolException",
                &format!("URI does not specify a valid host name: {}:{slash}{path}", url.protocol),
            ));
        }
        req.fault = fault.map(|m| self.b.check(m));
        req.fault_after_head = payload.fault_after_head;
        Ok(req)
    }

    /// The sampler's method. JMeter fails the sample of a method it does not know, at run time
    /// (HTTPHC4Impl: "Unexpected method"); a variable defined when the plan loads is read then.
    fn http_method(&mut self, c: &El, fault: &mut Option<String>) -> String {
        let raw_method = c.text("HTTPSampler.method").unwrap_or("GET");
        match validate_method(raw_method) {
            Ok(m) => m,
            Err(_) => {
                let shown = self.expand(c, raw_method).unwrap_or_else(|_| raw_method.to_string());
                validate_method(&shown).unwrap_or_else(|_| {
                    *fault =
                        Some(non_http("java.lang.IllegalArgumentException", &format!("Unexpected method: '{shown}'")));
                    "GET".into()
                })
            }
        }
    }

    /// Where the request goes: the sampler's protocol, server, port and path, each from HTTP
    /// Request Defaults when the sampler leaves it empty.
    fn http_url(&mut self, c: &El, d: &HttpDefaults, fault: &mut Option<String>) -> Result<HttpUrl, Error> {
        let pick = |own: &str, def: &str| if own.trim().is_empty() { def.to_string() } else { own.to_string() };
        let protocol = pick(c.text_or_empty("HTTPSampler.protocol"), &d.protocol);
        let protocol =
            if protocol.trim().is_empty() { "http".to_string() } else { protocol.trim().to_ascii_lowercase() };
        let domain = pick(c.text_or_empty("HTTPSampler.domain"), &d.domain);
        let port = pick(c.text_or_empty("HTTPSampler.port"), &d.port);
        let path = pick(c.text_or_empty("HTTPSampler.path"), &d.path);
        // JMeter reads a port that is not a number as none: the protocol's default port.
        let port = if !port.contains("${") && port.trim().parse::<u16>().is_err() { String::new() } else { port };
        // Without a server name, the path must turn out to be a whole URL when it is sent
        // (JMeter's rule); one that does not makes a failed sample, sent nowhere (JMeter's
        // HttpClient: "URI does not specify a valid host name").
        let literal_url = path.starts_with("http://") || path.starts_with("https://");
        let at_run_time = domain.trim().is_empty() && !literal_url;
        let absolute = literal_url || at_run_time;
        let (target, path, origin) = if at_run_time {
            (Target { tls: false, host: String::new(), port: 0 }, self.tmpl(c, path.trim())?, None)
        } else if absolute {
            match compile_url(&path, None, &mut self.b.sym, &describe(c)) {
                Ok(compiled) => compiled,
                // A full URL java.net.URL refuses (an unfilled `https://[HostName]/`): JMeter
                // loads the plan and fails each sample, unsent.
                Err(_) if java_uri::url_host_refusal(path.trim()).is_some() => {
                    let why = java_uri::url_host_refusal(path.trim()).unwrap_or_default();
                    *fault = Some(non_http("java.net.MalformedURLException", &why));
                    let placeholder = Target { tls: protocol == "https", host: String::new(), port: 0 };
                    (placeholder, Template::literal(path.trim()), None)
                }
                Err((kind, m)) => return Err(Error::new(kind, self.loc(c), m)),
            }
        } else {
            self.http_origin(c, &protocol, &domain, &port, &path, fault)?
        };
        Ok(HttpUrl { target, path, origin, protocol, at_run_time, absolute })
    }

    /// A server name and a path: origin and path stay apart (a path that is only a variable,
    /// `${api}`, is a path); the origin is resolved now unless a variable fills it while running.
    fn http_origin(
        &mut self,
        c: &El,
        protocol: &str,
        domain: &str,
        port: &str,
        path: &str,
        fault: &mut Option<String>,
    ) -> Result<(Target, Template, Option<Template>), Error> {
        let mut port = port.trim().to_string();
        if port.contains("${") && !self.tmpl(c, &port)?.is_dynamic(&self.b.sym.vars) {
            // Filled when the plan loads (`${port}` of a User Defined Variable): a value that
            // is not a number is none, as a literal one (JMeter reads the port as an int).
            let value = self.expand(c, &port)?;
            port = if value.trim().parse::<u16>().is_ok() { value.trim().to_string() } else { String::new() };
        }
        let mut protocol = protocol.to_string();
        if protocol.contains("${") && !self.tmpl(c, &protocol)?.is_dynamic(&self.b.sym.vars) {
            protocol = self.expand(c, &protocol)?.trim().to_ascii_lowercase();
        }
        let path_t = self.tmpl(c, if path.is_empty() { "/" } else { path })?;
        // java.net.URL knows no other protocol for an HTTP sampler: JMeter loads the plan
        // and fails each sample unsent (`MalformedURLException: unknown protocol: x`).
        if !protocol.contains("${") && !matches!(protocol.as_str(), "http" | "https") {
            fault.get_or_insert_with(|| {
                non_http("java.net.MalformedURLException", &format!("unknown protocol: {protocol}"))
            });
            return Ok((Target { tls: false, host: String::new(), port: 0 }, path_t, None));
        }
        let origin = if port.is_empty() {
            format!("{protocol}://{}", domain.trim())
        } else {
            format!("{protocol}://{}:{port}", domain.trim())
        };
        let probe = self.tmpl(c, &origin)?;
        if probe.is_dynamic(&self.b.sym.vars) {
            let placeholder = Target { tls: protocol == "https", host: String::new(), port: 0 };
            return Ok((placeholder, path_t, Some(probe)));
        }
        // An address names a server: environment values in it are not masked as secrets.
        let kept = self.b.sym.secrets.clone();
        let text = self.expand(c, &origin)?;
        self.b.sym.secrets = kept;
        match resolve_url(&format!("{text}/"), None) {
            Ok((target, _)) => Ok((target, path_t, None)),
            // A host java.net.URI refuses (an unfilled `[HostName]`): JMeter loads the
            // plan and fails each sample, unsent; the engine finds it so, as it does
            // a host a variable fills while running.
            Err(_) if java_uri::refusal(&format!("{text}/")).is_some() => {
                let placeholder = Target { tls: protocol == "https", host: String::new(), port: 0 };
                Ok((placeholder, path_t, Some(Template::literal(text))))
            }
            Err(m) => Err(self.err(c, m)),
        }
    }

    /// The request's headers, query and body as the sampler's arguments and files make them
    /// (`absolute`: the path is a whole URL, whose query is left as it is).
    fn http_payload(
        &mut self,
        c: &El,
        scope: &Scope,
        method: &str,
        absolute: bool,
        java: bool,
        fault: &mut Option<String>,
    ) -> Result<HttpPayload, Error> {
        // Arguments, the sampler's own before those of HTTP Request Defaults (JMeter's order):
        // the raw body, a form, or the query string.
        let mut args: Vec<Arg> = http_args(c);
        args.extend(scope.http.args.iter().cloned());
        // JMeter's getSendParameterValuesAsPostBody: the raw body box, or arguments that all
        // lack a name (a body written in the Parameters tab), for the methods that send one.
        let body_method = matches!(method, "POST" | "PUT" | "PATCH" | "DELETE");
        let nameless = body_method && !args.is_empty() && args.iter().all(|a| a.name.is_empty());
        let raw_body = c.flag("HTTPSampler.postBodyRaw") == Some(true) || nameless;
        let multipart = c.flag("HTTPSampler.DO_MULTIPART_POST") == Some(true);
        let files = http_files(c);
        // JMeter's HttpClient request has a body (HttpEntityEnclosingRequestBase) for every
        // method but HEAD, OPTIONS and TRACE, and for a GET only with a raw body or a lone
        // file without a parameter name and no arguments (`createHttpRequest`): a GET's other
        // files are not sent, nor their MIME type.
        let file_body = files.len() == 1 && files[0].1.is_empty();
        let entity = match method {
            "GET" => raw_body || (args.is_empty() && file_body),
            "HEAD" | "OPTIONS" | "TRACE" => false,
            _ => true,
        };
        let mut out = HttpPayload {
            headers: scope.headers.clone(),
            query: Vec::new(),
            body: Body::None,
            fault_after_head: false,
        };
        if java && !out.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("accept")) {
            out.headers.push(("Accept".into(), Template::literal(JAVA_DEFAULT_ACCEPT)));
        }
        let has_ct = out.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        // The Java implementation's PostWriter says a POST is a form without a charset, for
        // a raw body too (bench/jmeter/plans/small-rawct.jmx).
        let form_type =
            if java { "application/x-www-form-urlencoded" } else { "application/x-www-form-urlencoded; charset=UTF-8" };
        // JMeter's HTTPSamplerBase.getUseMultipartForPost: a POST is multipart when its box is
        // ticked or it has files, unless those are one file without a parameter name (the
        // body itself). Body Data or not: its nameless arguments (the body) are left out.
        let multipart_post = method == "POST" && (multipart || !files.is_empty() && !file_body);
        if raw_body && entity && !multipart_post {
            out.body = self.http_raw_body(c, &args, nameless)?;
            // The first file's MIME type, when it has one, is the body's type (JMeter: "Allow
            // the mimetype of the file to control the content type"), else each
            // implementation's own: HttpClient 4 `text/plain; charset=UTF-8`, the Java one a
            // form for a POST and none for the other methods.
            // Every method's: HttpClient 4's sendPostData and sendEntityData, the Java
            // implementation's PostWriter and PutWriter.
            let own = files.first().map(|f| f.2.clone()).filter(|m| !m.is_empty());
            let default = match (own, java) {
                (Some(mime), _) => Some(mime),
                (None, false) => Some("text/plain; charset=UTF-8".to_string()),
                (None, true) => (method == "POST").then(|| form_type.to_string()),
            };
            if let Some(ct) = default.filter(|_| !has_ct) {
                out.headers.push(("Content-Type".into(), Template::literal(ct)));
            }
        } else if multipart_post {
            out.body = Body::Multipart(self.http_parts(c, &args, &files, java, fault)?);
            out.headers.retain(|(k, _)| !k.eq_ignore_ascii_case("content-type"));
            out.headers.push((
                "Content-Type".into(),
                Template::literal(format!("multipart/form-data; boundary={}; charset=UTF-8", http::MULTIPART_BOUNDARY)),
            ));
        } else if let Some((file, _, mime)) = files.first().filter(|_| entity) {
            (out.body, out.fault_after_head) = self.http_file_body(c, file, fault)?;
            if !has_ct && !mime.is_empty() {
                out.headers.push(("Content-Type".into(), Template::literal(mime.clone())));
            }
        } else {
            // As JMeter's HttpClient sampler: POST, PUT and PATCH send the arguments as a form;
            // DELETE sends them both on the query string and as a form. A POST always says it
            // sends a form.
            let form = matches!(method, "POST" | "PUT" | "PATCH" | "DELETE") && !args.is_empty();
            // JMeter puts arguments on the query string of GET, DELETE and OPTIONS only, and
            // never on a full URL given as the path (it takes that URL as it is).
            if matches!(method, "GET" | "DELETE" | "OPTIONS") && !absolute {
                out.query = self.http_params(c, &args)?;
            }
            if form {
                out.body = Body::Form(self.http_params(c, &args)?);
            }
            if (form || method == "POST") && !has_ct {
                out.headers.push(("Content-Type".into(), Template::literal(form_type)));
            }
        }
        Ok(out)
    }

    /// The arguments with a name, for a query or a form (JMeter leaves out those without one).
    fn http_params(&mut self, c: &El, args: &[Arg]) -> Result<Vec<Param>, Error> {
        args.iter()
            .filter(|a| !a.name.is_empty())
            .map(|a| {
                Ok(Param {
                    name: a.name.clone(),
                    value: self.tmpl(c, &a.value)?,
                    encoded: !a.encode,
                    bare_when_empty: !a.use_equals,
                })
            })
            .collect()
    }

    /// A raw body: each value as it is, or URL-encoded when its "URL Encode?" box is ticked.
    fn http_raw_body(&mut self, c: &El, args: &[Arg], nameless: bool) -> Result<Body, Error> {
        let text: String = args
            .iter()
            .map(|a| {
                if a.encode && nameless && !a.value.contains("${") {
                    ::url::form_urlencoded::byte_serialize(a.value.as_bytes()).collect()
                } else {
                    a.value.clone()
                }
            })
            .collect();
        Ok(Body::Text(self.tmpl(c, &text)?))
    }

    /// A multipart POST's parts: the named arguments, then the files. Only a POST is sent as
    /// multipart: a GET with the box ticked still sends a query. As HttpClient's
    /// MultipartEntityBuilder in JMeter: in RFC 6532 mode each part says its type and transfer
    /// encoding; "browser-compatible headers" leave them out of the text parts and the transfer
    /// encoding out of the files.
    fn http_parts(
        &mut self,
        c: &El,
        args: &[Arg],
        files: &[(String, String, String)],
        java: bool,
        fault: &mut Option<String>,
    ) -> Result<Vec<Part>, Error> {
        let browser = c.flag("HTTPSampler.BROWSER_COMPATIBLE_MULTIPART") == Some(true);
        // HttpClient's multipart builder refuses a file part without a name before anything
        // is sent (or any file opened): the sample fails unsent.
        if !java && files.iter().any(|f| f.1.is_empty()) {
            fault.get_or_insert_with(|| non_http("java.lang.IllegalStateException", "Name is blank"));
        }
        let mut parts = Vec::new();
        for a in args.iter().filter(|a| !a.name.is_empty()) {
            parts.push(Part {
                name: a.name.clone(),
                filename: None,
                content_type: (!browser).then(|| "text/plain; charset=UTF-8".to_string()),
                transfer_encoding: (!browser).then_some("8bit"),
                content: PartContent::Text(self.tmpl(c, &a.value)?),
            });
        }
        let dir = self.file.parent().unwrap_or(Path::new(".")).to_path_buf();
        for (file, param, mime) in files {
            let p = dir.join(upload_name(self, c, file));
            let real = self.upload_path(c, &p)?;
            crate::confine::note_read(&real);
            let read = std::fs::read(&real);
            let content = match self.named_per_sample(c, file, read.is_ok())? {
                Some((path, dir, fault)) => PartContent::File { path, dir, fault },
                None => match read {
                    Ok(bytes) => PartContent::Bytes(bytes),
                    // JMeter's HttpClient writes the head (the file counted as empty) and
                    // the parts up to this one's head, then fails opening it; it opens it
                    // per sample, so it is tried per sample here too.
                    Err(_) if !java && fault.is_none() => {
                        let mut why = None;
                        read_upload(&real, &mut why);
                        let why = why.unwrap_or_default();
                        let dir = crate::confine::PlanDir::of_plan(&self.file);
                        let path = Template::literal(real.to_string_lossy());
                        PartContent::File { path, dir, fault: self.b.check(why) }
                    }
                    Err(_) => {
                        read_upload(&real, fault);
                        continue;
                    }
                },
            };
            parts.push(Part {
                name: param.clone(),
                filename: p.file_name().map(|n| n.to_string_lossy().into_owned()),
                content_type: Some(if mime.is_empty() { "application/octet-stream".into() } else { mime.clone() }),
                transfer_encoding: (!browser).then_some("binary"),
                content,
            });
        }
        Ok(parts)
    }

    /// One file without a parameter name is the body itself, and whether the sample fails after
    /// its head: one that cannot be read makes JMeter's HttpClient send the head
    /// (`Content-Length: 0`, the size of no file), then fail opening the file for the body.
    fn http_file_body(&mut self, c: &El, file: &str, fault: &mut Option<String>) -> Result<(Body, bool), Error> {
        let dir = self.file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let p = dir.join(upload_name(self, c, file));
        let unsent = fault.is_some();
        let real = self.upload_path(c, &p)?;
        let per_sample = if unsent { None } else { self.named_per_sample(c, file, real.is_file())? };
        Ok(match per_sample {
            Some((path, dir, fault)) => (Body::File { path, dir, fault }, false),
            None => {
                let bytes = read_upload(&real, fault).unwrap_or_default();
                (Body::Bytes(bytes), !unsent && fault.is_some())
            }
        })
    }
}

/// The fault of an upload named by constant text that was not there when the plan loaded
/// (tried per sample, as JMeter opens it per sample).
fn missing_upload(req: &crate::plan::RequestSpec) -> Option<crate::plan::CheckId> {
    let Body::Multipart(parts) = &req.body else { return None };
    parts.iter().find_map(|p| match &p.content {
        PartContent::File { path, fault, .. } if path.is_const() => Some(*fault),
        _ => None,
    })
}

/// The name of a file to upload: a variable nothing defines stays `${name}`, as in JMeter
/// (whose sample then fails: no such file).
fn upload_name(cx: &mut Cx, c: &El, file: &str) -> String {
    cx.expand(c, file).unwrap_or_else(|_| file.to_string())
}

impl Cx {
    /// A file to send that JMeter names per sample and stampede too: its name can change while
    /// the test runs (a function called per sample, `${__P(f)}` once `__setProperty` is used, a
    /// variable something before it assigns), or holds a variable and is no file now (one an
    /// extractor or a CSV row sets later). Its name, the plan's directory it must stay under, and
    /// the fault of a sample whose file cannot be read then. `None`: read now, once (a name
    /// made of constant text and plan variables, the common case, costs nothing per sample).
    fn named_per_sample(
        &mut self,
        c: &El,
        file: &str,
        readable_now: bool,
    ) -> Result<Option<(Template, crate::confine::PlanDir, crate::plan::CheckId)>, Error> {
        if !file.contains("${") {
            return Ok(None);
        }
        let path = self.tmpl(c, file)?;
        if !path.is_dynamic(&self.b.sym.vars) && readable_now {
            return Ok(None);
        }
        let dir = crate::confine::PlanDir::of_plan(&self.file);
        let shown = dir.join(Path::new(file));
        let fault =
            non_http("java.io.FileNotFoundException", &format!("{} (No such file or directory)", shown.display()));
        Ok(Some((path, dir, self.b.check(fault))))
    }

    /// Where a file to upload is read: one named inside the plan's directory may not lead out
    /// of it through a link ([`crate::confine`]).
    fn upload_path(&self, c: &El, p: &Path) -> Result<PathBuf, Error> {
        // `p` is the plan's directory joined to the name: absolute, so that it is not joined again.
        crate::confine::PlanDir::of_plan(&self.file)
            .named(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
            .map_err(|e| self.err(c, format!("the file to send cannot be read: {e}")))
    }
}

/// The bytes of a file to upload; one that cannot be read leaves `fault` set to what JMeter
/// fails the sample with (`java.io.FileNotFoundException: <path> (<reason>)`).
fn read_upload(p: &Path, fault: &mut Option<String>) -> Option<Vec<u8>> {
    crate::confine::note_read(p);
    match std::fs::read(p) {
        Ok(b) => Some(b),
        Err(e) => {
            let why = e.to_string();
            let why = why.split(" (os error").next().unwrap_or_default();
            fault.get_or_insert_with(|| non_http("java.io.FileNotFoundException", &format!("{} ({why})", p.display())));
            None
        }
    }
}

fn http_args(c: &El) -> Vec<Arg> {
    let Some(args) = c.nested("HTTPsampler.Arguments") else { return Vec::new() };
    let mut out = Vec::new();
    for a in args.collection("Arguments.arguments").unwrap_or_default() {
        let Value::Element { props, .. } = &a.value else { continue };
        out.push(Arg {
            name: props.text_or_empty("Argument.name").to_string(),
            value: props.text_or_empty("Argument.value").to_string(),
            encode: props.flag("HTTPArgument.always_encode").unwrap_or(false),
            // JMeter writes the saved metadata (`=` unless "Include Equals?" was off).
            use_equals: props.flag("HTTPArgument.use_equals").unwrap_or(true)
                || props.text("Argument.metadata").is_some_and(|m| m == "="),
        });
    }
    out
}

/// (path, parameter name, MIME type) of each file of the sampler.
pub(super) fn http_files(c: &El) -> Vec<(String, String, String)> {
    let Some(files) = c.nested("HTTPsampler.Files") else { return Vec::new() };
    let mut out = Vec::new();
    for f in files.collection("HTTPFileArgs.files").unwrap_or_default() {
        let Value::Element { props, .. } = &f.value else { continue };
        let path = props.text_or_empty("File.path").to_string();
        if path.is_empty() {
            continue;
        }
        out.push((
            path,
            props.text_or_empty("File.paramname").to_string(),
            props.text_or_empty("File.mimetype").to_string(),
        ));
    }
    out
}
