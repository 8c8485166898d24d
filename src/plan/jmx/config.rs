//! Configuration elements: user-defined variables (Arguments), header and cookie managers,
//! the HTTP Cache, Authorization and DNS Cache Managers, CSV data sets, random variables,
//! counters and user parameters.

use super::*;

/// The configuration elements, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("Arguments", Cx::arguments_element),
    ("HeaderManager", Cx::header_manager),
    ("CookieManager", Cx::cookie_manager),
    ("CSVDataSet", Cx::csv_data_set),
    ("RandomVariableConfig", Cx::random_variable),
    ("CounterConfig", Cx::counter),
    ("UserParameters", Cx::user_parameters),
    ("CacheManager", Cx::cache_manager),
    ("AuthManager", Cx::auth_manager),
    ("DNSCacheManager", Cx::dns_cache_manager),
    ("KeystoreConfig", Cx::keystore_config),
    (VARIABLES_FROM_CSV, Cx::read_when_loading),
    (VARIABLES_FROM_CSV_FILE, Cx::read_when_loading),
];

/// jp@gc - Variables From CSV File (jmeter-plugins' `csvars`): name,value rows of a file
/// become variables when the test starts.
const VARIABLES_FROM_CSV: &str = "kg.apc.jmeter.config.VariablesFromCSV";
/// Its forerunner in the old jmeter-plugins (a TestBean; no skip lines, comments or
/// properties).
const VARIABLES_FROM_CSV_FILE: &str = "kg.apc.jmeter.config.VariablesFromCSVFile";

impl Cx {
    /// User-defined variables: the test plan's, then every enabled Arguments element, in file
    /// order (JMeter merges them all when the test starts).
    pub(super) fn variables(&mut self, plan: &El) -> Result<(), Error> {
        if let Some(udv) = plan.nested("TestPlan.user_defined_variables") {
            self.arguments(plan, udv)?;
        }
        // JMeter's PreCompiler reads every Arguments element, these plugins' included, as it
        // walks the tree, in tree order.
        fn walk(cx: &mut Cx, els: &[El], depth: usize) -> Result<(), Error> {
            for e in els.iter().filter(|e| e.enabled) {
                match e.class.as_str() {
                    "Arguments" => cx.arguments(e, &e.props)?,
                    VARIABLES_FROM_CSV | VARIABLES_FROM_CSV_FILE => cx.variables_from_csv(e, depth)?,
                    _ => {}
                }
                walk(cx, &e.children, depth + 1)?;
            }
            Ok(())
        }
        walk(self, &plan.children, 1)
    }

    /// Read with the plan's variables (`variables`), before any scope.
    pub(super) fn read_when_loading(&mut self, _c: &El, _s: &mut Scope, _depth: usize) -> Result<(), Error> {
        Ok(())
    }

    /// Variables From CSV File: the file's rows become variables (and, with "store as
    /// properties", properties not set yet) when the plan loads, as the plugin's
    /// `getArgumentsAsMap` gives them to JMeter's PreCompiler. A file that cannot be read
    /// defines nothing, as the plugin logs "File not found" and goes on; an empty delimiter
    /// throws there, and JMeter starts no thread group.
    fn variables_from_csv(&mut self, e: &El, depth: usize) -> Result<(), Error> {
        let old = e.class == VARIABLES_FROM_CSV_FILE;
        let name = self.expand(e, e.text_or_empty("filename"))?;
        let prefix = self.expand(e, e.text_or_empty("variablesPrefix"))?;
        let mut delimiter = self.expand(e, e.text_or_empty("delimiter"))?;
        if old {
            // The old element reads `\t` as a tab and an empty delimiter as a comma.
            delimiter = match delimiter.as_str() {
                "\\t" => "\t".into(),
                "" => ",".into(),
                _ => delimiter,
            };
        } else if delimiter.is_empty() {
            let why = format!("{} has an empty delimiter", describe(e));
            self.warn(
                e,
                depth,
                "the delimiter is empty: the plugin throws \"CSV separator cannot be empty\" as the test starts \
                 and JMeter starts no thread group (\"Error occurred compiling the tree\")",
            );
            self.engine_stop.get_or_insert(thread_group::EngineStop { setup_too: true, why, at: None });
            return Ok(());
        }
        let skip = match old {
            true => 0,
            false => {
                e.text("skipLines").and_then(|v| self.expand(e, v).ok()).map_or(0, |v| v.parse::<i64>().unwrap_or(0))
            }
        };
        let as_properties = !old && e.flag("storeSysProp").unwrap_or(false);
        if name.trim().is_empty() {
            self.warn(e, depth, "no file name: defines no variable (the plugin logs \"File not found\")");
            return Ok(());
        }
        // A name that leads out of the plan's directory through a link is refused, as for
        // every data file; one that is not there is JMeter's run-time "File not found".
        let real = crate::confine::PlanDir::of_plan(&self.file)
            .named(Path::new(&name))
            .map_err(|err| self.err(e, format!("the file cannot be read: {err}")))?;
        let text = match crate::confine::open(&real, crate::confine::Access::Read).and_then(|mut f| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut bytes).map(|_| bytes)
        }) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(err) => {
                let what = format!(
                    "{} cannot be read ({err}): defines no variable, as the plugin logs \"File not found\" and goes on; \
                     `${{name}}` references are sent as written",
                    real.display()
                );
                self.warn(e, depth, what);
                return Ok(());
            }
        };
        let rows = match old {
            true => old_csv_variables(&text, &prefix, &delimiter),
            false => csv_variables(&text, &prefix, &delimiter, skip),
        };
        for (k, v) in &rows {
            if as_properties {
                self.b.sym.properties.entry(k.clone()).or_insert_with(|| v.clone());
            }
            self.b.sym.vars.define(k, v.clone());
        }
        let also = if as_properties { ", and as properties not set yet" } else { "" };
        let note = format!("{} variable(s) from {} when the plan loads{also}", rows.len(), real.display());
        self.report(e, depth, Status::Supported, note);
        Ok(())
    }

    pub(super) fn arguments(&mut self, el: &El, props: &[Prop]) -> Result<(), Error> {
        for a in props.collection("Arguments.arguments").unwrap_or_default() {
            let Value::Element { props, .. } = &a.value else { continue };
            let name = props.text_or_empty("Argument.name").to_string();
            if name.is_empty() {
                continue;
            }
            let value = self.expand(el, props.text_or_empty("Argument.value"))?;
            self.b.sym.vars.define(&name, value);
        }
        Ok(())
    }

    /// Arguments: read with the plan's variables, before any scope.
    pub(super) fn arguments_element(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.report(c, depth, Status::Supported, "variables defined when the plan loads");
        Ok(())
    }

    pub(super) fn header_manager(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        // This manager's headers replace the outer ones of the same names; within one
        // manager a name may repeat, and every value is sent (as JMeter does).
        let mut own: Vec<(String, Template)> = Vec::new();
        for h in c.collection("HeaderManager.headers").unwrap_or_default() {
            let Value::Element { props, .. } = &h.value else { continue };
            let name = props.text_or_empty("Header.name").trim().to_string();
            if name.is_empty() {
                continue;
            }
            let value = self.secret_tmpl(c, &name, props.text_or_empty("Header.value"))?;
            own.push((name, value));
        }
        s.headers.retain(|(k, _)| !own.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)));
        s.headers.extend(own);
        self.report(c, depth, Status::Supported, "headers for the samplers in its scope");
        Ok(())
    }

    /// JMeter's CookieManager: a jar per user, its policy, its own cookies, and whether each
    /// iteration starts again from those cookies.
    pub(super) fn cookie_manager(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        use crate::plan::managers::{CookiePolicy, CookieSpec, UserCookie};
        let mut notes = vec!["a cookie jar per user".to_string()];
        let mut status = Status::Supported;
        // HC4CookieHandler's policies; `standard` when none is saved.
        let policy = c.text("CookieManager.policy").unwrap_or("standard").trim().to_ascii_lowercase();
        let policy = match policy.as_str() {
            "ignorecookies" => {
                notes.push("policy ignoreCookies: no cookie is stored or sent".into());
                CookiePolicy::Ignore
            }
            "standard-strict" => {
                notes.push("policy standard-strict: a cookie whose Expires is not an RFC 1123 date is refused".into());
                CookiePolicy::Strict
            }
            "standard" => CookiePolicy::Standard,
            "default" | "compatibility" | "best-match" | "netscape" => {
                notes.push(format!("policy {policy}: taken as standard (the same Cookie header for name=value cookies; its date and domain leniencies are not copied)"));
                status = Status::Partial;
                CookiePolicy::Standard
            }
            "rfc2109" | "rfc2965" => {
                notes.push(format!("policy {policy}: taken as standard; JMeter's `$Version`/`$Path` attributes in the Cookie header are not sent"));
                status = Status::Partial;
                CookiePolicy::Standard
            }
            other => return Err(self.err(c, format!("unknown cookie policy `{other}`"))),
        };
        // Users keep a jar when any manager keeps cookies; ignoreCookies: its samplers neither
        // send nor store any.
        self.cookies |= policy != CookiePolicy::Ignore;
        s.managers.jarless = policy == CookiePolicy::Ignore;
        let mut cookies = Vec::new();
        for ck in c.collection("CookieManager.cookies").unwrap_or_default() {
            let Value::Element { props, .. } = &ck.value else { continue };
            let name = if ck.name.is_empty() { props.text_or_empty("name") } else { &ck.name }.to_string();
            if name.is_empty() {
                continue;
            }
            let value = self.secret_tmpl(c, &name, props.text_or_empty("Cookie.value"))?;
            let path = props.text_or_empty("Cookie.path");
            let domain = self.expand(c, props.text_or_empty("Cookie.domain"))?.trim().to_ascii_lowercase();
            let path = if path.is_empty() { "/".into() } else { self.expand(c, path)? };
            cookies.push(UserCookie {
                name,
                value,
                domain,
                path,
                secure: props.flag("Cookie.secure").unwrap_or(false),
                domain_specified: props.flag("Cookie.domain_specified").unwrap_or(true),
            });
        }
        if !cookies.is_empty() {
            notes.push(format!("{} cookie(s) of its own", cookies.len()));
        }
        s.managers.cookies = Some(self.managers.cookie_managers.len() as u32);
        self.managers.cookie_managers.push(CookieSpec { policy, cookies });
        if c.flag("CookieManager.controlledByThreadGroup") == Some(true) {
            notes.push("cleared as the thread group's \"same user on each iteration\" says: always the same user here, never cleared".into());
            status = Status::Partial;
        } else if c.flag("CookieManager.clearEachIteration") == Some(true) {
            self.clear_cookies = true;
            notes.push("cleared as each iteration starts".into());
        }
        self.report(c, depth, status, notes.join("; "));
        Ok(())
    }

    /// JMeter's CacheManager: a cache per user of GET responses, by URL.
    pub(super) fn cache_manager(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let use_expires = c.flag("useExpires").unwrap_or(false);
        let max_size = match c.text("maxSize") {
            Some(m) => self.number::<i64>(c, m, "maximum size")?.max(0) as usize,
            None => 5000,
        };
        let mut notes = vec![format!(
            "a cache per user of up to {max_size} GET responses, revalidated with If-Modified-Since / If-None-Match"
        )];
        if use_expires {
            notes.push("a response still fresh by Expires / Cache-Control max-age is not requested again, and makes no sample (JMeter's RETURN_NO_SAMPLE)".into());
        }
        let mut status = Status::Supported;
        let controlled = c.flag("CacheManager.controlledByThread") == Some(true);
        let clear_each_iteration = !controlled && c.flag("clearEachIteration").unwrap_or(false);
        if controlled {
            notes.push("cleared as the thread group's \"same user on each iteration\" says: always the same user here, never cleared".into());
            status = Status::Partial;
        } else if clear_each_iteration {
            notes.push("cleared as each iteration starts".into());
        }
        let slot = self.managers.caches.len() as u32;
        self.managers.caches.push(crate::plan::managers::CacheSpec { use_expires, max_size, clear_each_iteration });
        s.managers.cache = Some(slot);
        self.report(c, depth, status, notes.join("; "));
        Ok(())
    }

    /// JMeter's AuthManager: Basic credentials sent with the requests whose URL starts with an
    /// entry's base URL (the first such entry), as HttpClient 4 sends them preemptively.
    pub(super) fn auth_manager(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        use crate::plan::managers::{AuthEntry, AuthSpec};
        let mut entries = Vec::new();
        let mut other = Vec::new();
        for a in c.collection("AuthManager.auth_list").unwrap_or_default() {
            let Value::Element { props, .. } = &a.value else { continue };
            let mechanism = props.text("Authorization.mechanism").unwrap_or("BASIC").trim().to_ascii_uppercase();
            if !matches!(mechanism.as_str(), "BASIC" | "BASIC_DIGEST" | "DIGEST") {
                other.push(mechanism);
                continue;
            }
            let (user, password, domain) = (
                props.text_or_empty("Authorization.username"),
                props.text_or_empty("Authorization.password"),
                props.text_or_empty("Authorization.domain"),
            );
            // A password is a secret: masked wherever it would appear, as is the header it is
            // sent in (when both are known now; a password read while running is masked as
            // the variable it comes from is).
            if let (Ok(u), Ok(p), Ok(d)) = (self.expand(c, user), self.expand(c, password), self.expand(c, domain)) {
                self.b.sym.secrets.add(&p);
                let header = crate::plan::managers::basic_credentials(&u, &p, &d);
                self.b.sym.secrets.add(header.trim_start_matches("Basic "));
            }
            entries.push(AuthEntry {
                url: self.tmpl(c, props.text_or_empty("Authorization.url"))?,
                user: self.tmpl(c, user)?,
                password: self.secret_tmpl(c, "password", password)?,
                domain: self.tmpl(c, domain)?,
                realm: self.tmpl(c, props.text_or_empty("Authorization.realm"))?,
                digest: mechanism == "DIGEST",
            });
        }
        if !other.is_empty() {
            other.dedup();
            let why = format!("{} authentication is not supported (Basic and Digest are)", other.join(", "));
            self.unsupported(c, depth, &why);
            return Ok(());
        }
        let n = entries.len();
        s.managers.auth = Some(std::sync::Arc::new(AuthSpec { entries }));
        let note =
            format!("credentials for {n} base URL(s): Basic sent preemptively, Digest answered to the challenge");
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// Keystore Configuration: JMeter presents, per thread, the client certificate of the
    /// keystore that the `javax.net.ssl.keyStore` system property names (the alias from the
    /// variable it names, or the next of the start..end indexes). stampede reads no JKS or
    /// PKCS12 keystore: the plan loads as JMeter loads it (also without a keystore), and no
    /// client certificate is presented; a server that needs one refuses the handshake (a PEM
    /// certificate is YAML's `tls.client_cert`). Plain HTTP samples are the same.
    pub(super) fn keystore_config(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        let alias = c.text_or_empty("clientCertAliasVarName").trim();
        let which = if alias.is_empty() {
            format!("the aliases {}..{}", c.text_or_empty("startIndex").trim(), c.text_or_empty("endIndex").trim())
        } else {
            format!("the alias in ${{{alias}}}")
        };
        let note = format!(
            "no client certificate is presented: the keystore of javax.net.ssl.keyStore ({which}) is not read, so an HTTPS server that requires one refuses the handshake; plain HTTP is unaffected"
        );
        self.report(c, depth, Status::Partial, note);
        Ok(())
    }

    /// JMeter's DNSCacheManager: its static hosts table names the addresses of hosts; other
    /// names resolve as usual.
    pub(super) fn dns_cache_manager(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        use crate::plan::managers::DnsSpec;
        let mut hosts = Vec::new();
        for h in c.collection("DNSCacheManager.hosts").unwrap_or_default() {
            let Value::Element { props, .. } = &h.value else { continue };
            let name = self.expand(c, props.text_or_empty("StaticHost.Name"))?.trim().to_string();
            if name.is_empty() {
                continue;
            }
            let raw = self.expand(c, props.text_or_empty("StaticHost.Address"))?;
            let mut addrs = Vec::new();
            for a in raw.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                match a.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>() {
                    Ok(ip) => addrs.push(ip),
                    Err(_) => {
                        let why = format!(
                            "the address `{a}` of host `{name}` is a name: only IP addresses are supported there"
                        );
                        self.unsupported(c, depth, &why);
                        return Ok(());
                    }
                }
            }
            hosts.push((name, addrs));
        }
        let custom = c.flag("DNSCacheManager.isCustomResolver").unwrap_or(false);
        let servers = texts(c.collection("DNSCacheManager.servers").unwrap_or_default());
        let servers: Vec<&String> = servers.iter().filter(|s| !s.trim().is_empty()).collect();
        let mut notes = Vec::new();
        let mut status = Status::Supported;
        if custom && !servers.is_empty() {
            if hosts.is_empty() {
                self.unsupported(c, depth, "custom DNS servers are not asked; only a static hosts table is supported");
                return Ok(());
            }
            notes.push(format!(
                "names outside the static hosts table are resolved by the system, not by {}",
                servers.iter().map(|s| s.trim()).collect::<Vec<_>>().join(", ")
            ));
            status = Status::Partial;
        }
        notes.insert(
            0,
            if hosts.is_empty() {
                "the system resolver".to_string()
            } else {
                format!("a static hosts table of {} name(s), then the system resolver", hosts.len())
            },
        );
        if c.flag("DNSCacheManager.clearEachIteration") == Some(true) {
            self.managers.clear_dns = true;
            notes.push("resolved again after each iteration starts".into());
        }
        s.managers.dns = (!hosts.is_empty()).then(|| std::sync::Arc::new(DnsSpec { hosts }));
        self.report(c, depth, status, notes.join("; "));
        Ok(())
    }

    pub(super) fn csv_data_set(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        match self.csv(c) {
            Ok(CsvFile::Rows(n)) => {
                s.pre.push(Step::Feed(n));
                self.report(c, depth, Status::Supported, format!("data file {}", self.b.data_file(n).path.display()));
            }
            // JMeter loads the plan and opens the file at the first iteration its scope starts:
            // FileServer throws "File NAME must exist and be readable", which ends the thread
            // ("Test failed!") before any sample of that scope (bench/jmeter/plans/files-missing.jmx).
            Ok(file) => {
                for name in c.text_or_empty("variableNames").split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    self.b.sym.vars.assign(name);
                }
                s.pre.push(Step::Stop(flow::StopKind::User));
                let note = match file {
                    CsvFile::Unreadable { path, why } => {
                        // Java's File.getName of the name as written.
                        let name =
                            c.text_or_empty("filename").trim().rsplit('/').next().unwrap_or_default().to_string();
                        format!(
                            "its file {} cannot be read ({why}): each user stops as this element's scope starts, \
                             before any sample in it, as in JMeter (\"File {name} must exist and be readable\")",
                            path.display()
                        )
                    }
                    // `FileServer.reserveFile` throws on an empty name, at the same point.
                    _ => "it has no file name: each user stops as this element's scope starts, before any sample \
                          in it, as in JMeter (\"Filename must not be null or empty\")"
                        .to_string(),
                };
                self.warn(c, depth, note);
            }
            Err(e) => return Err(e),
        };
        Ok(())
    }

    pub(super) fn random_variable(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("variableName").to_string();
        if name.is_empty() {
            // JMeter loads it and sets the variable of empty name, which no `${...}` reads.
            self.report(c, depth, Status::Ignored, "no variable name: sets nothing a later element can read");
            return Ok(());
        }
        let (min, max) = (c.text("minimumValue").unwrap_or("0"), c.text("maximumValue").unwrap_or("0"));
        // With a seed, JMeter (RandomVariableConfig.iterationStart) draws min + nextInt(max - min + 1)
        // from `new java.util.Random(seed)`, per user or shared: the same sequence on every run.
        let seed = c.text("randomSeed").map(str::trim).filter(|s| !s.is_empty());
        let seed = seed.and_then(|s| s.parse::<i64>().ok());
        if let (Some(seed), Ok(lo), Ok(hi)) = (seed, min.trim().parse::<i64>(), max.trim().parse::<i64>()) {
            if lo < hi && c.text("outputFormat").is_none() {
                let range = i32::try_from(hi.saturating_sub(lo).saturating_add(1)).unwrap_or(i32::MAX);
                let per_user = c.flag("perThread").unwrap_or(false);
                let (var, slot) = (self.b.sym.vars.assign(&name), self.b.slot(Slot::Counter));
                let r = flow::SeededRandom { name, var, min: lo, range, seed, per_user, slot };
                s.pre.push(Step::SeededRandom(Box::new(r)));
                let whose = if per_user { "each user's own" } else { "one shared" };
                self.report(
                    c,
                    depth,
                    Status::Supported,
                    format!("a random number per pass from {whose} seeded sequence"),
                );
                return Ok(());
            }
        }
        let value = self.tmpl(c, &format!("${{__Random({min},{max})}}"))?;
        let var = self.b.sym.vars.assign(&name);
        s.pre.push(Step::Set(vec![flow::Assign { var, name: name.clone(), value: (name, value) }]));
        let note = match c.text("outputFormat") {
            Some(f) => format!("a random number per pass; output format `{f}` is not applied"),
            None => "a random number per pass".into(),
        };
        let status = if c.text("outputFormat").is_some() { Status::Partial } else { Status::Supported };
        self.report(c, depth, status, note);
        Ok(())
    }

    pub(super) fn counter(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("CounterConfig.name").to_string();
        if name.is_empty() {
            // JMeter loads it and sets the variable of empty name, which no `${...}` reads.
            self.report(c, depth, Status::Ignored, "no variable name: sets nothing a later element can read");
            return Ok(());
        }
        // JMeter reads each field with getPropertyAsLong: text that `Long.parseLong` does not take
        // (blank, spaces around the digits, a word) is 0; a blank end is Long.MAX_VALUE.
        let (mut notes, mut runtime) = (Vec::new(), false);
        let mut long = |this: &mut Self, field: &str, what: &str| -> Option<i64> {
            let raw = c.text(field).unwrap_or("");
            let v = match this.expand(c, raw) {
                Ok(v) => v,
                Err(_) => {
                    runtime = true;
                    notes.push(format!("{what} `{raw}` is known only while running: read as 0"));
                    return Some(0);
                }
            };
            if v.is_empty() {
                return None;
            }
            Some(v.parse::<i64>().unwrap_or_else(|_| {
                notes.push(format!("{what} `{v}` is not a whole number: read as 0, as JMeter does"));
                0
            }))
        };
        let start = long(self, "CounterConfig.start", "start").unwrap_or(0);
        let increment = long(self, "CounterConfig.incr", "increment").unwrap_or(0);
        let end = long(self, "CounterConfig.end", "maximum");
        let per_user = c.flag("CounterConfig.per_user").unwrap_or(false);
        let var = self.b.sym.vars.assign(&name);
        let slot = self.b.slot(Slot::Counter);
        // JMeter's CounterConfig.iterationStart: a per-user counter that resets on each thread
        // group iteration starts again the first time it counts in a new one.
        let reset = (per_user && c.flag("CounterConfig.reset_on_tg_iteration").unwrap_or(false))
            .then(|| self.b.slot(Slot::Counter));
        let format = Some(c.text_or_empty("CounterConfig.format").to_string()).filter(|f| !f.is_empty());
        // JMeter's controllers call their iteration listeners last-added first, so of the
        // counters of one controller the first in the plan counts last: of two with one
        // variable name, the first one's value is the one read.
        let at = s.pre.iter().position(|st| matches!(st, Step::Counter(_))).unwrap_or(s.pre.len());
        s.pre.insert(
            at,
            Step::Counter(Box::new(Counter { name, var, start, increment, end, per_user, slot, reset, format })),
        );
        // A field that is no number is read as JMeter reads it (a warning); one set only while
        // running is read by JMeter as each pass starts, here once (partial).
        let status = match (notes.is_empty(), runtime) {
            (true, _) => Status::Supported,
            (false, false) => Status::Warning,
            (false, true) => Status::Partial,
        };
        let note = std::iter::once("a counter per pass".to_string()).chain(notes).collect::<Vec<_>>().join("; ");
        self.report(c, depth, status, note);
        Ok(())
    }

    pub(super) fn user_parameters(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let names: Vec<String> = texts(c.collection("UserParameters.names").unwrap_or_default());
        let mut rows = Vec::new();
        for row in c.collection("UserParameters.thread_values").unwrap_or_default() {
            let Value::Collection(values) = &row.value else { continue };
            let mut out = Vec::new();
            for v in texts(values) {
                out.push(self.tmpl(c, &v)?);
            }
            rows.push(out);
        }
        let vars = names.iter().map(|n| self.b.sym.vars.assign(n)).collect();
        let step = Step::UserParams(Box::new(UserParams { names, vars, rows }));
        // JMeter's UserParameters: "update once per iteration" sets the values as its parent
        // controller starts a pass (`iterationStart`); off, before every sampler in its scope
        // (`process`, a pre-processor), so that functions in them are called again each time.
        let per_iteration = c.flag("UserParameters.per_iteration").unwrap_or(false);
        if per_iteration {
            s.pre.push(step);
            self.report(c, depth, Status::Supported, "values per user, set as each pass of its controller starts");
        } else {
            s.before.push(step);
            self.report(c, depth, Status::Supported, "values per user, set before each sampler in its scope");
        }
        Ok(())
    }

    /// The sharing mode of a CSV Data Set. Besides the three named modes, JMeter takes any text
    /// as a key of its own (the reader is the file's with that key), rendered for each thread:
    /// a key naming the thread group (`${__threadGroupName}`) gives a reader per thread group,
    /// one naming the thread (`${__threadNum}`, `${__threadName}`) a reader per thread, and a
    /// constant key one reader for every thread.
    /// The data set's sharing mode, and its key when it is a custom one (rendered once: a
    /// key that names the thread or its group is one reader per user or group).
    fn csv_share(&mut self, c: &El) -> Result<(Share, Option<String>), Error> {
        let raw = c.text("shareMode").unwrap_or("shareMode.all");
        if raw.contains("__threadName") || raw.contains("__threadNum") {
            return Ok((Share::User, None));
        }
        if raw.contains("__threadGroupName") {
            return Ok((Share::Scenario, None));
        }
        Ok(match self.expand(c, raw)?.trim() {
            "shareMode.all" => (Share::All, None),
            "shareMode.thread" => (Share::User, None),
            "shareMode.group" => (Share::Scenario, None),
            key => (Share::All, Some(key.to_string())),
        })
    }

    pub(super) fn csv(&mut self, c: &El) -> Result<CsvFile, Error> {
        let name = self.expand(c, c.text_or_empty("filename"))?;
        if name.trim().is_empty() {
            return Ok(CsvFile::NoName);
        }
        let path = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
        // JMeter writes a tab as `\t`.
        let delimiter = c.text("delimiter").map_or_else(|| ",".to_string(), |d| d.replace("\\t", "\t"));
        let names_raw = self.expand(c, c.text_or_empty("variableNames"))?;
        let names: Option<Vec<String>> = if names_raw.trim().is_empty() {
            None
        } else {
            // JMeter splits the names on the delimiter (a comma when it is a tab... as given).
            let sep = if names_raw.contains(&delimiter) { delimiter.clone() } else { ",".into() };
            Some(names_raw.split(sep.as_str()).map(|s| s.trim().to_string()).collect())
        };
        let opts = csv_data::CsvOptions {
            ragged: true,
            delimiter,
            quoted: c.flag("quotedData").unwrap_or(false),
            skip_first_line: names.is_some() && c.flag("ignoreFirstLine").unwrap_or(false),
            names,
        };
        // A name inside the plan's directory may not lead out of it through a link.
        let real = crate::confine::PlanDir::of_plan(&self.file)
            .named(Path::new(name.trim()))
            .map_err(|e| self.err(c, format!("the CSV Data Set's file cannot be read: {e}")))?;
        // A FIFO or a device is never a data file (opening one waits for a writer): refused now,
        // not excused as a file that may be readable when the plan runs.
        if std::fs::symlink_metadata(&real).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Err(self.err(c, format!("the CSV Data Set's file {} is not a regular file", real.display())));
        }
        // Missing, a directory, or not readable: JMeter fails the thread when it first reads.
        if let Err(e) = crate::confine::open(&real, crate::confine::Access::Read) {
            let why = e.to_string();
            let why = why.split(" (os error").next().unwrap_or_default().to_string();
            return Ok(CsvFile::Unreadable { path, why });
        }
        let data = self.b.open_data(&real, &opts).map_err(|e| {
            let mut loc = Location::file(&path).element(format!("{} of {}", describe(c), self.file.display()));
            loc.line = e.line;
            Error::new(ErrorKind::Data, loc, e.message)
        })?;
        let recycle = c.flag("recycle").unwrap_or(true);
        let stop_thread = c.flag("stopThread").unwrap_or(false);
        let on_eof = match (recycle, stop_thread) {
            (true, _) => OnEof::Recycle,
            (false, true) => OnEof::StopUser,
            (false, false) => OnEof::MarkEof,
        };
        let (share, key) = self.csv_share(c)?;
        // A second data set on the same file name (as written, not as resolved) and sharing
        // mode reads from the same reader: each takes the next row (JMeter's FileServer, by the
        // alias `name` or `name@key`; the header read once).
        let alias = match key {
            Some(key) => format!("{}@{key}", name.trim()),
            None => name.trim().to_string(),
        };
        let index = match self.b.same_data(&alias, &data, share, on_eof) {
            Some(i) => i,
            None => self.b.data(data, share, on_eof),
        };
        // A blank line stops the thread whether or not the file recycles (CSVDataSet.iterationStart).
        let spec = self.b.data_file_mut(index);
        spec.alias = Some(alias);
        spec.stop_on_empty_row = stop_thread;
        // A short row leaves the other variables unset, and JMeter sends `${name}` as it is.
        for id in spec.columns.clone() {
            self.b.sym.vars.unset_as_reference(id);
        }
        Ok(CsvFile::Rows(index))
    }
}

/// Lines as Java's `BufferedReader.readLine` gives them: ended by `\n`, `\r\n` or `\r`.
fn java_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        lines.push(&rest[..end]);
        let next = if rest[end..].starts_with("\r\n") { end + 2 } else { (end + 1).min(rest.len()) };
        rest = &rest[next..];
    }
    lines
}

/// `JOrphanUtils.split(line, sep, false)`: every field kept, empty ones too; an empty line
/// has none.
fn java_split<'a>(line: &'a str, sep: &str) -> Vec<&'a str> {
    if line.is_empty() {
        return Vec::new();
    }
    line.split(sep).collect()
}

/// The name/value pairs of the plugin's `VariableFromCsvFileReader.getDataAsMap`, in the order
/// it puts them (a later one of a name replaces the earlier): the first `skip` lines and those
/// starting with `#` are skipped; a line of one field sets it to `""`; extra fields are
/// ignored; a value starting with `"` goes on over the following one-field lines up to one
/// ending with `"`, joined by `\n`.
fn csv_variables(text: &str, prefix: &str, sep: &str, skip: i64) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut multi = String::new();
    let mut multi_name: Option<String> = None;
    for (i, line) in java_lines(text).into_iter().enumerate() {
        if (i as i64) < skip || line.starts_with('#') {
            continue;
        }
        let fields = java_split(line, sep);
        match fields.as_slice() {
            [only] if !multi.is_empty() && only.ends_with('"') => {
                multi.push_str(&only[..only.len() - 1]);
                // Java prints a null name as `null`.
                let name = multi_name.take().unwrap_or_else(|| "null".into());
                out.push((format!("{prefix}{name}"), std::mem::take(&mut multi)));
            }
            [only] if !multi.is_empty() => {
                multi.push_str(only);
                multi.push('\n');
            }
            [only] => out.push((format!("{prefix}{only}"), String::new())),
            [name, value, ..] => match value.strip_prefix('"') {
                Some(first) => {
                    multi_name = Some(name.to_string());
                    multi.push_str(first);
                    multi.push('\n');
                }
                None => out.push((format!("{prefix}{name}"), value.to_string())),
            },
            [] => {}
        }
    }
    out
}

/// The old `VariablesFromCSVFile`: a line of one field sets it to `""`, of two sets the
/// name to the value, any other is skipped ("Bad format").
fn old_csv_variables(text: &str, prefix: &str, sep: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in java_lines(text) {
        match java_split(line, sep).as_slice() {
            [only] => out.push((format!("{prefix}{only}"), String::new())),
            [name, value] => out.push((format!("{prefix}{name}"), value.to_string())),
            _ => {}
        }
    }
    out
}

/// What a CSV Data Set's file is when the plan loads.
pub(super) enum CsvFile {
    /// Its rows (index of the data file).
    Rows(usize),
    /// It cannot be opened (missing, a directory, not readable): the path and why.
    Unreadable { path: PathBuf, why: String },
    /// Its file name is empty (once its `${}` are rendered).
    NoName,
}

#[cfg(test)]
mod tests {
    use super::super::{read, Options};
    use super::*;

    /// Reads a plan whose thread group holds `element` and one sampler; returns the plan and
    /// the element's (status, note), or the error.
    fn read_with(element: &str) -> Result<(Plan, Status, String), Error> {
        read_at(Path::new("t.jmx"), element)
    }

    /// [`read_with`], the plan being the file `jmx`.
    fn read_at(jmx: &Path, element: &str) -> Result<(Plan, Status, String), Error> {
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="T" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup>
            <hashTree>{element}<hashTree/>
              <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="s" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#
        );
        let opts = Options { skip_unsupported: true, ..Default::default() };
        let (plan, report) = read(&text, jmx, &opts)?;
        let r = report.iter().find(|r| r.name == "E").expect("the element is reported");
        Ok((plan, r.status, r.note.clone()))
    }

    fn el(class: &str, props: &str) -> String {
        format!(r#"<{class} testclass="{class}" testname="E" enabled="true">{props}</{class}>"#)
    }

    /// The rows JMeter 5.6.3 with jmeter-plugins' Variables From CSV File defined
    /// (`bench/jmeter/plans/plugins-csvars.jmx`): skipped lines, `#` comments, one field (""),
    /// extra fields dropped, a multi-line value, an empty line, `\r\n` and lone `\r` endings.
    #[test]
    fn variables_from_csv_reads_rows_as_the_plugin() {
        let text = "name,value\n# a comment\na,alpha\nb,beta,ignored\none\nmulti,\"line1\nline2\nline3\"\nafter,x y\n\n#c,hash\nthree,1,2,3\r\nlast,z\rtrail,";
        let got = csv_variables(text, "v_", ",", 1);
        let want = [
            ("v_a", "alpha"),
            ("v_b", "beta"),
            ("v_one", ""),
            ("v_multi", "line1\nline2\nline3"),
            ("v_after", "x y"),
            ("v_three", "1"),
            ("v_last", "z"),
            ("v_trail", ""),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
        // The delimiter is a string, not a set of characters; no skip reads the header too.
        let got = csv_variables("k;;v\nj;;w;;x", "", ";;", 0);
        assert_eq!(got, [("k".into(), "v".into()), ("j".into(), "w".into())]);
        // A value opened by `"` and never closed defines nothing.
        assert!(csv_variables("m,\"open\nrest", "", ",", 0).is_empty());
        // The old element: one or two fields only.
        let got = old_csv_variables("a\tb\nc\nd\te\tf\n", "p", "\t");
        assert_eq!(got, [("pa".into(), "b".into()), ("pc".into(), String::new())]);
    }

    /// The file relative to the plan; a missing one defines nothing (JMeter logs "File not
    /// found" and runs), an empty delimiter starts no thread group, "store as properties" sets
    /// only properties not set yet (`-J` wins).
    #[test]
    fn variables_from_csv_files_as_jmeter_reads_them() {
        let dir = std::env::temp_dir().join(format!("stampede-csvars-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("vars.csv"), "host,example.org\nport,8080\n").unwrap();
        let jmx = dir.join("t.jmx");
        let csvars = |file: &str, delimiter: &str, props: bool| {
            format!(
                r#"<kg.apc.jmeter.config.VariablesFromCSV testclass="kg.apc.jmeter.config.VariablesFromCSV" testname="E" enabled="true"><stringProp name="filename">{file}</stringProp><stringProp name="variablesPrefix">c_</stringProp><stringProp name="delimiter">{delimiter}</stringProp><intProp name="skipLines">0</intProp><boolProp name="storeSysProp">{props}</boolProp></kg.apc.jmeter.config.VariablesFromCSV><hashTree/>"#
            )
        };
        let text = |csv: &str| {
            format!(
                r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>{csv}
                <ThreadGroup testclass="ThreadGroup" testname="T" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
                <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="s" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.path">/${{c_host}}/${{__P(c_port,none)}}</stringProp></HTTPSamplerProxy><hashTree/>
                </hashTree></hashTree></hashTree></jmeterTestPlan>"#
            )
        };
        let path_of = |p: &Plan| match &p.scenarios[0].flow[..] {
            [Step::Sample(Sampler::Http(r))] => format!("{:?}", r.path),
            other => panic!("{other:?}"),
        };
        let (p, report) = read(&text(&csvars("vars.csv", ",", true)), &jmx, &Options::default()).unwrap();
        let path = path_of(&p);
        assert!(path.contains("/example.org/8080"), "{path}");
        let r = report.iter().find(|r| r.name == "E").unwrap();
        assert_eq!(r.status, Status::Supported, "{}", r.note);
        // `-J c_port=1` is a JMeter property: the plugin's system property does not replace it.
        let mut opts = Options::default();
        opts.properties.insert("c_port".into(), "1".into());
        let (p, _) = read(&text(&csvars("vars.csv", ",", true)), &jmx, &opts).unwrap();
        assert!(path_of(&p).contains("/example.org/1"), "{}", path_of(&p));
        // Not stored as properties: `__P` keeps its default.
        let (p, _) = read(&text(&csvars("vars.csv", ",", false)), &jmx, &Options::default()).unwrap();
        assert!(path_of(&p).contains("/example.org/none"), "{}", path_of(&p));
        // A missing file: a warning; `${c_host}` is sent as written.
        let (p, report) = read(&text(&csvars("nope.csv", ",", false)), &jmx, &Options::default()).unwrap();
        assert!(path_of(&p).contains("${c_host}"), "{}", path_of(&p));
        let r = report.iter().find(|r| r.name == "E").unwrap();
        assert_eq!(r.status, Status::Warning);
        assert!(r.note.contains("nope.csv") && r.note.contains("File not found"), "{}", r.note);
        // An empty delimiter: JMeter's tree does not compile; no thread group starts.
        let (p, report) = read(&text(&csvars("vars.csv", "", false)), &jmx, &Options::default()).unwrap();
        assert!(p.scenarios.is_empty());
        let t = report.iter().find(|r| r.name == "T").unwrap();
        assert!(t.note.starts_with("not started:"), "{}", t.note);
        let strict = Options { strict: true, ..Default::default() };
        assert!(read(&text(&csvars("nope.csv", ",", false)), &jmx, &strict).is_err(), "--strict refuses");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// #32: a CSV Data Set whose file is missing or a directory loads, as in JMeter: its scope
    /// starts by stopping the user (JMeter's FileServer fails the thread there), with a warning
    /// naming the file and JMeter's message; `--strict` refuses it. A file reached through a
    /// link out of the plan's directory stays refused.
    #[test]
    fn a_csv_file_that_cannot_be_read_stops_each_user_as_in_jmeter() {
        let dir = std::env::temp_dir().join(format!("stampede-csv-missing-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("adir")).unwrap();
        let jmx = dir.join("t.jmx");
        for name in [r"C:\data\users.csv", "adir", "elsewhere/rows.csv"] {
            let props = format!(
                r#"<stringProp name="filename">{name}</stringProp><stringProp name="variableNames">u</stringProp>"#
            );
            let (plan, status, note) = read_at(&jmx, &el("CSVDataSet", &props)).unwrap();
            assert_eq!(status, Status::Warning, "{note}");
            let last = name.rsplit('/').next().unwrap();
            assert!(note.contains(&format!("\"File {last} must exist and be readable\"")), "{note}");
            assert_eq!(plan.scenarios[0].flow[0], Step::Stop(flow::StopKind::User));
            assert!(plan.data.is_empty());
        }
        // An empty name (also one a property left empty) ends the thread there too: FileServer's
        // "Filename must not be null or empty" (a public plan has one; it was refused).
        for name in ["", "${__P(no_such_property,)}"] {
            let props = format!(r#"<stringProp name="filename">{name}</stringProp>"#);
            let (plan, status, note) = read_at(&jmx, &el("CSVDataSet", &props)).unwrap();
            assert_eq!(status, Status::Warning, "{note}");
            assert!(note.contains("\"Filename must not be null or empty\""), "{note}");
            assert_eq!(plan.scenarios[0].flow[0], Step::Stop(flow::StopKind::User));
        }
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="T" enabled="true"/><hashTree>{}<hashTree/>
              <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="s" enabled="true"><stringProp name="HTTPSampler.domain">h</stringProp></HTTPSamplerProxy><hashTree/>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#,
            el("CSVDataSet", r#"<stringProp name="filename">nope.csv</stringProp>"#)
        );
        let e = read(&text, &jmx, &Options { strict: true, ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("nope.csv") && e.contains("--strict"), "{e}");
        std::os::unix::fs::symlink("/etc", dir.join("link")).unwrap();
        let props = r#"<stringProp name="filename">link/missing.csv</stringProp>"#;
        assert!(read_at(&jmx, &el("CSVDataSet", props)).is_err(), "a link out of the plan's directory is refused");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// #31: JMeter's sharing mode may be any text, a key rendered per thread (the CSV Data Set's
    /// "Edit" choice): by thread group, by thread, or one reader for all. However many readers,
    /// a file is opened and read through once at load.
    #[test]
    fn issue31_share_modes_key_readers_of_one_open_file() {
        let dir = std::env::temp_dir().join(format!("stampede-share-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rows.csv");
        std::fs::write(&file, "a\n1\n").unwrap();
        for (mode, want) in [
            ("shareMode.all", Share::All),
            ("shareMode.group", Share::Scenario),
            ("shareMode.thread", Share::User),
            ("${__threadGroupName}", Share::Scenario),
            ("key-${__threadNum}", Share::User),
            ("${__threadName}", Share::User),
            ("one key", Share::All),
            ("${__P(mode,shareMode.group)}", Share::Scenario),
        ] {
            let props = format!(
                r#"<stringProp name="filename">{}</stringProp><stringProp name="shareMode">{mode}</stringProp>"#,
                file.display()
            );
            let (plan, status, note) = read_with(&el("CSVDataSet", &props)).unwrap();
            assert_eq!((plan.data[0].share, status), (want, Status::Supported), "{mode}: {note}");
        }
        // Two data sets on the file in two modes: two readers of one open file, read once at load.
        let set = |mode: &str| {
            let props = format!(
                r#"<stringProp name="filename">{}</stringProp><stringProp name="shareMode">{mode}</stringProp>"#,
                file.display()
            );
            el("CSVDataSet", &props)
        };
        let two = format!("{}<hashTree/>{}", set("shareMode.all"), set("shareMode.thread"));
        let (plan, ..) = read_with(&two).unwrap();
        assert_eq!((plan.data.len(), plan.data[0].share, plan.data[1].share), (2, Share::All, Share::User));
        assert!(std::sync::Arc::ptr_eq(&plan.data[0].file, &plan.data[1].file));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// #31: JMeter keys a data set's reader by its FileServer alias: the file name as written,
    /// and `@key` for a custom sharing key. Two keys, or a key and `shareMode.all`, are two
    /// readers; the same name and key is one. A file named two ways (`./`, a link) is two
    /// readers, whatever file they open.
    #[test]
    fn issue31_a_data_set_s_reader_is_its_file_name_as_written_and_its_key() {
        let dir = std::env::temp_dir().join(format!("stampede-alias-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("rows.csv"), "a\n1\n").unwrap();
        std::os::unix::fs::symlink("rows.csv", dir.join("link.csv")).unwrap();
        let set = |name: &str, mode: &str| {
            let props = format!(
                r#"<stringProp name="filename">{name}</stringProp><stringProp name="shareMode">{mode}</stringProp>"#
            );
            el("CSVDataSet", &props)
        };
        for ((a, mode_a), (b, mode_b), readers) in [
            (("rows.csv", "k1"), ("rows.csv", "k2"), 2),
            (("rows.csv", "k1"), ("rows.csv", "shareMode.all"), 2),
            (("rows.csv", "k1"), ("rows.csv", "k1"), 1),
            (("rows.csv", "shareMode.all"), ("rows.csv", "shareMode.all"), 1),
            (("rows.csv", "shareMode.all"), ("./rows.csv", "shareMode.all"), 2),
            (("rows.csv", "shareMode.all"), ("link.csv", "shareMode.all"), 2),
            (("rows.csv", "k1"), ("link.csv", "k1"), 2),
        ] {
            let two = format!("{}<hashTree/>{}", set(a, mode_a), set(b, mode_b));
            let (plan, ..) = read_at(&dir.join("t.jmx"), &two).unwrap();
            assert_eq!(plan.data.len(), readers, "{a} ({mode_a}) and {b} ({mode_b})");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn cookie_policies() {
        let policy =
            |p: &str| el("CookieManager", &format!(r#"<stringProp name="CookieManager.policy">{p}</stringProp>"#));
        let (plan, status, _) = read_with(&policy("ignoreCookies")).unwrap();
        assert_eq!((plan.cookies, status), (false, Status::Supported), "ignoreCookies keeps no jar");
        let (plan, status, _) = read_with(&policy("standard-strict")).unwrap();
        assert_eq!(
            (plan.cookies, plan.managers.cookie_managers[0].policy, status),
            (true, crate::plan::managers::CookiePolicy::Strict, Status::Supported)
        );
        let (_, status, note) = read_with(&policy("rfc2109")).unwrap();
        assert_eq!(status, Status::Partial, "{note}");
        assert!(read_with(&policy("chocolate")).is_err());
        let clear = el("CookieManager", r#"<boolProp name="CookieManager.clearEachIteration">true</boolProp>"#);
        assert_eq!(read_with(&clear).unwrap().0.managers.clear_cookies, [true]);
    }

    #[test]
    fn cache_manager_statuses() {
        let (plan, status, _) = read_with(&el(
            "CacheManager",
            r#"<boolProp name="clearEachIteration">true</boolProp><intProp name="maxSize">7</intProp>"#,
        ))
        .unwrap();
        assert_eq!(status, Status::Supported);
        assert_eq!((plan.managers.caches[0].max_size, plan.managers.caches[0].clear_each_iteration), (7, true));
        let request = |p: &Plan| match &p.scenarios[0].flow[0] {
            Step::Sample(Sampler::Http(r)) => r.managers.cache,
            s => panic!("{s:?}"),
        };
        assert_eq!(request(&plan), Some(0), "the sampler in scope uses the cache");
        let (plan, status, _) = read_with(&el("CacheManager", r#"<boolProp name="CacheManager.controlledByThread">true</boolProp><boolProp name="clearEachIteration">true</boolProp>"#)).unwrap();
        assert_eq!((status, plan.managers.caches[0].clear_each_iteration), (Status::Partial, false));
    }

    #[test]
    fn auth_manager_passwords_are_secrets_and_kerberos_is_unsupported() {
        let row = |mech: &str| {
            format!(
                r#"<collectionProp name="AuthManager.auth_list"><elementProp name="" elementType="Authorization">
                <stringProp name="Authorization.url">http://127.0.0.1/</stringProp><stringProp name="Authorization.username">ann</stringProp>
                <stringProp name="Authorization.password">hunter2-long</stringProp><stringProp name="Authorization.mechanism">{mech}</stringProp>
                </elementProp></collectionProp>"#
            )
        };
        let (plan, status, note) = read_with(&el("AuthManager", &row("BASIC"))).unwrap();
        assert_eq!(status, Status::Supported);
        assert!(!note.contains("hunter2"));
        assert_eq!(plan.secrets.scrub("pw hunter2-long"), format!("pw {}", crate::redact::MASK));
        let basic = crate::plan::managers::basic_credentials("ann", "hunter2-long", "");
        assert!(!plan.secrets.scrub(&basic).contains(basic.trim_start_matches("Basic ")), "the header is a secret too");
        assert_eq!(read_with(&el("AuthManager", &row("DIGEST"))).unwrap().1, Status::Supported);
        assert_eq!(read_with(&el("AuthManager", &row("KERBEROS"))).unwrap().1, Status::Skipped);
    }

    #[test]
    fn dns_cache_manager_statuses() {
        let dns = |hosts: &str, servers: &str| {
            el(
                "DNSCacheManager",
                &format!(
                    r#"<collectionProp name="DNSCacheManager.servers">{servers}</collectionProp>
                    <collectionProp name="DNSCacheManager.hosts">{hosts}</collectionProp>
                    <boolProp name="DNSCacheManager.isCustomResolver">true</boolProp>"#
                ),
            )
        };
        let host = |addr: &str| {
            format!(
                r#"<elementProp name="h" elementType="StaticHost"><stringProp name="StaticHost.Name">h.test</stringProp><stringProp name="StaticHost.Address">{addr}</stringProp></elementProp>"#
            )
        };
        let server = r#"<stringProp name="1">10.0.0.53</stringProp>"#;
        assert_eq!(read_with(&dns("", "")).unwrap().1, Status::Supported, "no servers: the system resolver");
        assert_eq!(read_with(&dns("", server)).unwrap().1, Status::Skipped, "servers and no table");
        assert_eq!(read_with(&dns(&host("127.0.0.1, ::1"), server)).unwrap().1, Status::Partial);
        assert_eq!(read_with(&dns(&host("localhost"), "")).unwrap().1, Status::Skipped, "a name as address");
    }
}
