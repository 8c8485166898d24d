//! Script elements (JSR223, BeanShell, BSF): samplers, pre-processors, post-processors,
//! assertions, timers and listeners, run by stampede's own interpreter (`crate::script`) with
//! JMeter's semantics for each place (`engine::scripting`). The script is compiled when the plan
//! loads; one that does not compile (a syntax error, or a construct or class outside the
//! subset) is refused with its line and column. A BeanShell post-processor that only appends
//! variables to a file stays the `write` step it was.

use super::*;
use crate::plan::sampler::script::{
    self, Code, HttpInfo, Place, SamplerInfo, ScriptEl, ScriptRef, ScriptSample, ScriptStep,
};
use crate::plan::sampler::Sampler;
use crate::script::{CompileError, Lang, Script};
use std::sync::Arc;

/// The script elements that set up a scope, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("BeanShellPostProcessor", Cx::bean_shell_post_processor),
    ("JSR223PostProcessor", Cx::script_post),
    ("BSFPostProcessor", Cx::script_post),
    ("JSR223PreProcessor", Cx::script_pre),
    ("BeanShellPreProcessor", Cx::script_pre),
    ("BSFPreProcessor", Cx::script_pre),
    ("JSR223Assertion", Cx::script_assertion),
    ("BeanShellAssertion", Cx::script_assertion),
    ("BSFAssertion", Cx::script_assertion),
    ("JSR223Timer", Cx::script_timer),
    ("BeanShellTimer", Cx::script_timer),
    ("BSFTimer", Cx::script_timer),
    ("JSR223Listener", Cx::script_listener),
    ("BeanShellListener", Cx::script_listener),
    ("BSFListener", Cx::script_listener),
];

/// The script samplers, by class.
pub(super) const STEP_ELEMENTS: &[(&str, StepsFn)] = &[
    ("JSR223Sampler", Cx::script_sampler),
    ("BeanShellSampler", Cx::script_sampler),
    ("BSFSampler", Cx::script_sampler),
];

/// Whether a class is a script element stampede does not know.
pub(super) fn is_script(class: &str) -> bool {
    class.contains("BeanShell") || class.contains("JSR223") || class.starts_with("BSF")
}

/// The steps before a sampler with what its script pre-processors' `sampler` answers.
pub(super) fn for_sampler(before: &[Step], req: &RequestSpec, name: &str) -> Vec<Step> {
    before
        .iter()
        .map(|s| match s {
            Step::Script(x) if x.script.0.place == Place::Pre => {
                let mut x = x.clone();
                x.sampler = Some(SamplerInfo {
                    name: name.to_string(),
                    http: Some(HttpInfo {
                        protocol: req.target.scheme().to_string(),
                        domain: req.target.host.clone(),
                        port: req.target.port,
                        path: req.path.source().split('?').next().unwrap_or_default().to_string(),
                        method: req.method.clone(),
                        args: req.query.iter().map(|p| (p.name.clone(), p.value.source().to_string())).collect(),
                    }),
                });
                Step::Script(x)
            }
            Step::Anchor(a) => {
                let mut a = a.clone();
                let form = match &req.body {
                    crate::plan::Body::Form(f) => &f[..],
                    _ => &[],
                };
                a.sampler = Some(crate::plan::anchor::AnchorSampler::new(
                    req.target.scheme(),
                    &req.target.host,
                    req.path.clone(),
                    req.query.iter().chain(form).map(|p| (p.name.clone(), p.value.clone(), p.encoded)).collect(),
                ));
                Step::Anchor(a)
            }
            other => other.clone(),
        })
        .collect()
}

impl Cx {
    /// A BeanShell post-processor that appends variables to a file is a write step; another
    /// runs as a script.
    pub(super) fn bean_shell_post_processor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if script_prop(c, "filename").trim().is_empty() {
            if let Some((path, vars)) = write_back(script_prop(c, "script")) {
                return self.write_back_step(c, s, depth, path, vars);
            }
        }
        self.script_post(c, s, depth)
    }

    fn write_back_step(
        &mut self,
        c: &El,
        s: &mut Scope,
        depth: usize,
        path: String,
        vars: Vec<String>,
    ) -> Result<(), Error> {
        // A file the plan names: written where the plan says (real plans append to absolute
        // paths of their author's), but a name inside the plan's directory may not lead out of
        // it through a link.
        let real = crate::confine::PlanDir::of_plan(&self.file)
            .named(Path::new(&path))
            .map_err(|e| self.err(c, format!("its script cannot write the file: {e}")))?;
        let path = self.file.parent().unwrap_or(Path::new(".")).join(path);
        let values: Vec<Template> = vars.iter().map(|v| Template::literal(format!("${{{v}}}"))).collect();
        let mut compiled = Vec::new();
        for v in values {
            compiled.push(self.tmpl(c, v.source())?);
        }
        let writer = self.b.writer(real, None);
        s.after.push(Step::Write(Box::new(flow::Write { writer, values: compiled })));
        self.report(
            c,
            depth,
            Status::Supported,
            format!("a script that appends {} to {}: run as a write step", vars.join(", "), path.display()),
        );
        Ok(())
    }

    pub(super) fn script_post(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if let Some(el) = self.script_el(c, Place::Post, depth, s.extract.len())? {
            s.scripts.push(el);
        }
        Ok(())
    }

    pub(super) fn script_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if let Some(el) = self.script_el(c, Place::Assertion, depth, s.checks.len())? {
            s.scripts.push(el);
        }
        Ok(())
    }

    pub(super) fn script_listener(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if let Some(el) = self.script_el(c, Place::Listener, depth, 0)? {
            s.scripts.push(el);
        }
        Ok(())
    }

    pub(super) fn script_pre(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if let Some(el) = self.script_el(c, Place::Pre, depth, 0)? {
            s.before.push(script_step(el, None, s));
        }
        Ok(())
    }

    /// A script timer runs with the pre-processors before its sampler (JMeter runs every
    /// pre-processor, then every timer).
    pub(super) fn script_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if let Some(el) = self.script_el(c, Place::Timer, depth, 0)? {
            s.before.push(script_step(el, None, s));
        }
        Ok(())
    }

    pub(super) fn script_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let Some(el) = self.script_el(c, Place::Sampler, depth, 0)? else { return Ok(Vec::new()) };
        let (status, note) = self.report.pop().map_or((Status::Supported, String::new()), |r| (r.status, r.note));
        self.sampler_steps(c, scope, depth, status, note, |cx, own| {
            let label = cx.b.label(&c.name);
            cx.run_time_label(c, &c.name, label);
            script_step(el, Some(label), own)
        })
    }

    /// Reads a script element: its language, its text (or file), compiled; reported. `None`
    /// when it cannot run (reported as unsupported).
    fn script_el(&mut self, c: &El, place: Place, depth: usize, follows: usize) -> Result<Option<ScriptRef>, Error> {
        let bean_shell = c.class.starts_with("BeanShell");
        let lang_name =
            if bean_shell { "beanshell".to_string() } else { c.text_or_empty("scriptLanguage").to_string() };
        let Some(lang) = Lang::from_jmeter(&lang_name) else {
            self.unsupported(
                c,
                depth,
                &format!("scripts in `{lang_name}` cannot run (Groovy, BeanShell/Java and JavaScript can)"),
            );
            return Ok(None);
        };
        let file_name = self.expand(c, script_prop(c, "filename"))?.trim().to_string();
        let base = self.file.parent().unwrap_or(Path::new(".")).to_path_buf();
        // A script file that cannot be read: what `check` says, and what each run throws.
        let mut unread: Option<(String, String)> = None;
        let text = if file_name.is_empty() {
            script_prop(c, "script").to_string()
        } else {
            let path = base.join(&file_name);
            let real = crate::confine::PlanDir::of_plan(&self.file)
                .named(Path::new(&file_name))
                .map_err(|e| self.err(c, format!("the script file cannot be read: {e}")))?;
            match crate::confine::open(&real, crate::confine::Access::Read).and_then(std::io::read_to_string) {
                Ok(text) => text,
                // JMeter loads the plan; each run of the element fails (a sampler's sample
                // fails, another element logs the error and goes on): bench/jmeter/plans/files-missing.jmx.
                Err(e) => {
                    let abs = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
                    let why = e.to_string();
                    let why = why.split(" (os error").next().unwrap_or_default().to_string();
                    let thrown = if bean_shell {
                        format!("Error invoking bsh method: source\t{} ({why})", abs.display())
                    } else {
                        let what = if real.is_file() { "is not readable" } else { "is not a file" };
                        format!("Script file '{}' {what} for element: {}", abs.display(), c.name)
                    };
                    unread = Some((format!("its script file {} cannot be read ({why})", path.display()), thrown));
                    String::new()
                }
            }
        };
        for n in crate::plan::script_host::assigned_variables(&text) {
            self.b.sym.vars.assign(&n);
        }
        self.scripts_set_any |= script::sets_computed_names(&text);
        let mut how = "compiled once";
        // Its `${...}` take their values once per user (the compiled-script cache).
        let mut first_only = false;
        let code = if text.trim().is_empty() {
            // JMeter's error when the script runs: "no script or file" (a failed sample for a
            // sampler, a logged error elsewhere).
            let message = match &unread {
                Some((_, thrown)) => thrown.clone(),
                None => format!("{} has no script and no file", c.class),
            };
            let why = CompileError { pos: Default::default(), message, syntax: false };
            let cache = vec![(Arc::from(""), Err(why))];
            Code::Rendered { text: Template::literal(""), cache: std::sync::RwLock::new(cache), first: None }
        } else if text.contains("${") && file_name.is_empty() {
            // JMeter replaces `${...}` in the element's text before each execution (not in a
            // script file's, which it reads as it is).
            how = "compiled for each value its `${...}` takes";
            let t = template::compile(&text, &mut self.b.sym, &describe(c))
                .unwrap_or_else(|_| Template::literal(text.clone()));
            let raw = Script::compile(&text, lang);
            let at_load = template::expand(&text, &mut self.b.sym).ok().map(|t| Script::compile(&t, lang));
            match (raw, at_load) {
                (Ok(_), _) | (_, Some(Ok(_))) => {}
                (Err(e), _) if !t.is_dynamic(&self.b.sym.vars) => {
                    self.refuse(c, depth, &e);
                    return Ok(None);
                }
                _ => how = "compiled when it runs, for each value its `${...}` takes (its text depends on variables)",
            }
            // A JSR223 element that caches its compiled script (any `cacheKey` but `false`, in a
            // language JMeter compiles: not BeanShell) runs, per user, the text its first run
            // rendered; BeanShell and BSF elements render it on every run.
            let compiles = c.class.starts_with("JSR223") && !matches!(lang, Lang::BeanShell | Lang::Java);
            let first = (compiles && c.text_or_empty("cacheKey").trim() != "false").then(script::first_key);
            if first.is_some() && t.is_dynamic(&self.b.sym.vars) {
                how = "";
                first_only = true;
            }
            Code::Rendered { text: t, cache: Default::default(), first }
        } else {
            match Script::compile(&text, lang) {
                Ok(s) => Code::Fixed(s),
                Err(e) => {
                    self.refuse(c, depth, &e);
                    return Ok(None);
                }
            }
        };
        let parameters = self.tmpl(c, script_prop(c, "parameters"))?;
        // The message a failure counts under (none fails a sample elsewhere).
        let what = match place {
            Place::Sampler => Some("the script failed"),
            Place::Post => Some("the script made the sample unsuccessful"),
            Place::Assertion => Some("the script assertion failed"),
            _ => None,
        };
        let failure = what.map_or(crate::plan::CheckId(0), |w| self.b.check(format!("{}: {w}", c.name)));
        let messages = if place == Place::Assertion {
            script::literal_messages(&text).into_iter().map(|m| (m.clone(), self.b.check(m))).collect()
        } else {
            Vec::new()
        };
        let writes = literal_files(&text).iter().filter_map(|f| writable_literal(&base, f)).collect();
        let el = ScriptEl {
            place,
            class: c.class.clone(),
            name: c.name.clone(),
            lang,
            code,
            file_name,
            parameters,
            bean_shell,
            messages,
            failure,
            writes,
            properties: Arc::new(self.b.sym.properties.clone()),
            follows,
        };
        let where_ = match place {
            Place::Sampler => "sampler",
            Place::Pre => "pre-processor",
            Place::Post => "post-processor",
            Place::Assertion => "assertion",
            Place::Timer => "timer",
            Place::Listener => "listener",
        };
        let mut note = format!("a {lang} {where_}, run natively");
        if !how.is_empty() {
            note.push_str(&format!(" ({how})"));
        }
        if matches!(place, Place::Post | Place::Assertion | Place::Listener) {
            note.push_str("; on the samples of the samplers in its scope");
        }
        if let Some((what, thrown)) = unread {
            let how = match place {
                Place::Sampler => "each sample fails",
                Place::Assertion => "each sample it asserts on fails",
                _ => "each run logs the error and does nothing",
            };
            self.warn(c, depth, format!("{what}: {how}, as in JMeter: {thrown}"));
        } else if first_only {
            note.push_str(
                "; its `${...}` are replaced on each user's first run only, as in JMeter: \"Cache compiled script\" \
                 keeps that first text (read changing values with `vars.get`, or untick the cache)",
            );
            self.warn(c, depth, note);
        } else {
            self.report(c, depth, Status::Supported, note);
        }
        Ok(Some(ScriptRef(Arc::new(el))))
    }

    /// A script that does not compile: unsupported, with where in the script and why.
    fn refuse(&mut self, c: &El, depth: usize, e: &CompileError) {
        self.unsupported(
            c,
            depth,
            &format!("its script does not load: line {}, column {}: {}", e.pos.line, e.pos.col, e.message),
        );
    }
}

/// A script element's step: its sampler's sample, or a pre-processor's or timer's step.
fn script_step(script: ScriptRef, label: Option<LabelId>, own: &Scope) -> Step {
    match label {
        Some(label) => Step::Sample(Sampler::Script(Box::new(ScriptSample { script, label, after: own.after() }))),
        None => Step::Script(Box::new(ScriptStep { script, sampler: None })),
    }
}

/// Files a script names as literals where it opens them for writing or reading
/// (`new FileWriter("out.csv", true)`, `new File("x")`).
fn literal_files(text: &str) -> Vec<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r#"(?:File|FileWriter|FileOutputStream|PrintWriter|BufferedWriter|Paths\.get|Path\.of)\s*\(\s*(?:"([^"$\\]+)"|'([^'$\\]+)')"#)
            .expect("a valid regex")
    });
    re.captures_iter(text).filter_map(|c| c.get(1).or(c.get(2)).map(|m| m.as_str().to_string())).collect()
}

/// Where a file a script names as a literal may be written: a path that stays under the plan's
/// directory (`out.csv`, `results/out.csv`, `a/../b.csv`, or an absolute path inside it),
/// relative ones joined to it. An absolute path elsewhere, or one that climbs out with `..`,
/// is not the plan's to write: `None` (reading it is the engine's file policy's to decide).
fn writable_literal(base: &Path, name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    if path.has_root() {
        let inside = path.strip_prefix(std::path::absolute(base).ok()?).ok()?;
        return stays_below(inside).then(|| path.to_path_buf());
    }
    stays_below(path).then(|| base.join(name))
}

/// Whether a relative path never climbs above where it starts (`a/../b` does not, `a/../..`
/// does).
fn stays_below(p: &Path) -> bool {
    use std::path::Component;
    let mut depth = 0usize;
    for c in p.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

/// Recognises the one kind of script the corpus uses: read some variables and append them,
/// comma-separated, to a file. Returns the file and the variables, in order.
pub(super) fn write_back(script: &str) -> Option<(String, Vec<String>)> {
    let assign = regex::Regex::new(r#"^(\w+)\s*=\s*vars\.get\("([^"]+)"\)\s*;$"#).ok()?;
    let open = regex::Regex::new(r#"^FileWriter\s+(\w+)\s*=\s*new\s+FileWriter\("([^"]+)"\s*,\s*true\)\s*;$"#).ok()?;
    let write = regex::Regex::new(r#"^(\w+)\.write\((.*)\)\s*;$"#).ok()?;
    let close = regex::Regex::new(r#"^(\w+)\.close\(\)\s*;$"#).ok()?;
    let mut vars: HashMap<String, String> = HashMap::new();
    let (mut file, mut stream, mut values) = (None, None, None);
    for line in script.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") || line.starts_with("import ") {
            continue;
        }
        if let Some(c) = assign.captures(line) {
            vars.insert(c[1].to_string(), c[2].to_string());
        } else if let Some(c) = open.captures(line) {
            stream = Some(c[1].to_string());
            file = Some(c[2].to_string());
        } else if let Some(c) = write.captures(line) {
            if stream.as_deref() != Some(&c[1]) {
                return None;
            }
            // a + "," + b + "\n": variables separated by commas, ending with a newline.
            let parts: Vec<&str> = c[2].split('+').map(str::trim).collect();
            let (last, fields) = parts.split_last()?;
            if *last != r#""\n""# {
                return None;
            }
            let mut out = Vec::new();
            for (i, p) in fields.iter().enumerate() {
                if i % 2 == 1 {
                    if *p != r#"",""# {
                        return None;
                    }
                } else {
                    out.push(vars.get(*p)?.clone());
                }
            }
            if fields.len() % 2 == 0 {
                return None;
            }
            values = Some(out);
        } else if close.is_match(line) {
            continue;
        } else {
            return None;
        }
    }
    Some((file?, values?))
}

/// A script element's property: the TestBean name (`script`, `filename`, `parameters`), or the
/// BeanShell Sampler's own (`BeanShellSampler.query`, `.filename`, `.parameters`).
fn script_prop<'a>(c: &'a El, name: &str) -> &'a str {
    let own = match name {
        "script" => "BeanShellSampler.query",
        "filename" => "BeanShellSampler.filename",
        _ => "BeanShellSampler.parameters",
    };
    match c.text(name) {
        Some(v) if !v.is_empty() => v,
        _ => c.text_or_empty(own),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script_el(class: &str, extra: &str, text: &str) -> String {
        format!(
            r#"<{class} testclass="{class}" testname="s" enabled="true"><stringProp name="scriptLanguage">groovy</stringProp>{extra}<stringProp name="script">{text}</stringProp></{class}><hashTree/>"#
        )
    }

    fn with_sampler(children: &str) -> String {
        let req = format!(
            r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="r" enabled="true"><stringProp name="HTTPSampler.domain">h</stringProp><stringProp name="HTTPSampler.path">/${{token}}</stringProp></HTTPSamplerProxy><hashTree>{children}</hashTree>"#
        );
        super::super::synthetic::tests::plan_of(&req)
    }

    /// A script that does not compile is refused with the element and where in the script;
    /// a missing script file loads, as in JMeter, with a warning naming the element and what
    /// each run throws (`--strict` refuses it); a variable a script sets by a literal name
    /// counts as set.
    #[test]
    fn scripts_load_or_say_why() {
        let opts = Options::default();
        let bad = with_sampler(&script_el("JSR223PostProcessor", "", "def x = (1 +\n"));
        let e = read(&bad, Path::new("/p/plan.jmx"), &opts).unwrap_err().to_string();
        assert!(e.contains("JSR223PostProcessor") && e.contains("\"s\"") && e.contains("line 2, column 1"), "{e}");
        let file = with_sampler(&script_el(
            "JSR223PreProcessor",
            r#"<stringProp name="filename">nope.groovy</stringProp>"#,
            "",
        ));
        let (_, report) = read(&file, Path::new("/p/plan.jmx"), &opts).unwrap();
        let r = report.iter().find(|r| r.class == "JSR223PreProcessor").unwrap();
        assert_eq!(r.status, Status::Warning);
        assert!(
            r.note.contains("each run logs the error and does nothing")
                && r.note.contains("Script file '/p/nope.groovy' is not a file for element: s"),
            "{}",
            r.note
        );
        let strict = Options { strict: true, ..Default::default() };
        let e = read(&file, Path::new("/p/plan.jmx"), &strict).unwrap_err().to_string();
        assert!(e.contains("\"s\"") && e.contains("nope.groovy") && e.contains("--strict"), "{e}");
        let ok = with_sampler(&script_el("JSR223PostProcessor", "", "vars.put(&quot;token&quot;, &quot;t&quot;)"));
        let (plan, report) = read(&ok, Path::new("/p/plan.jmx"), &opts).unwrap();
        let id = plan.vars.get("token").unwrap();
        assert!(plan.vars.is_assigned(id), "a script's literal name is set while running");
        assert!(report.iter().any(|r| r.class == "JSR223PostProcessor" && r.status == Status::Supported), "{report:?}");
    }

    /// #32: a JSR223 element that caches its compiled script (any `cacheKey` but `false`) keeps
    /// each user's first rendering of a `${...}` that changes while running, which `check` warns
    /// of; with the cache off or in BeanShell the text is rendered on every run; a script file's
    /// `${...}` are Groovy's, never JMeter's.
    #[test]
    fn a_cached_jsr223_script_keeps_its_first_rendering_per_user() {
        let text = "vars.put(&quot;seen&quot;, &quot;${token}&quot;)";
        let first = |class: &str, extra: &str| {
            let plan = with_sampler(&format!(
                "{}{}",
                script_el("JSR223PostProcessor", "", "vars.put(&quot;token&quot;, &quot;t&quot;)"),
                script_el(class, extra, text)
            ));
            let (plan, report) = read(&plan, Path::new("/p/plan.jmx"), &Options::default()).unwrap();
            let status = report.iter().rfind(|r| r.class == class).unwrap().status;
            let flow = &plan.scenarios[0].flow;
            let el = flow.iter().find_map(|s| match s {
                Step::Script(s) if s.script.0.class == class => Some(s.script.clone()),
                Step::Sample(Sampler::Http(r)) => r.after.scripts.iter().find(|s| s.0.class == class).cloned(),
                _ => None,
            });
            let el = el.expect("the script element");
            let cached = matches!(&el.0.code, Code::Rendered { first: Some(_), .. });
            (cached, status)
        };
        assert_eq!(first("JSR223PreProcessor", ""), (true, Status::Warning), "no cacheKey: JMeter caches");
        let on = r#"<stringProp name="cacheKey">true</stringProp>"#;
        assert_eq!(first("JSR223PreProcessor", on), (true, Status::Warning));
        let off = r#"<stringProp name="cacheKey">false</stringProp>"#;
        assert_eq!(first("JSR223PreProcessor", off), (false, Status::Supported));
        assert_eq!(first("BeanShellPreProcessor", on), (false, Status::Supported));
        let dir = std::env::temp_dir().join(format!("stampede-script-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("s.groovy"), "def x = 1\nvars.put(\"a\", \"${x}\")\n").unwrap();
        let plan =
            with_sampler(&script_el("JSR223PreProcessor", r#"<stringProp name="filename">s.groovy</stringProp>"#, ""));
        let (plan, _) = read(&plan, &dir.join("plan.jmx"), &Options::default()).unwrap();
        let Step::Script(s) = &plan.scenarios[0].flow[0] else { panic!("{:?}", plan.scenarios[0].flow) };
        assert!(matches!(s.script.0.code, Code::Fixed(_)), "a file's text is run as it is");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A script may set JMeter's bandwidth emulation (`props.put("httpclient.socket.http.cps",
    /// ...)` in a setUp group): the plan loads, and the engine reads the properties when the
    /// run's first connection opens; `-J` values are read as the plan loads.
    #[test]
    fn bandwidth_properties_load_from_scripts_and_the_command_line() {
        let text = "props.put(&quot;httpclient.socket.http.cps&quot;, &quot;1500&quot;)";
        let plan = with_sampler(&script_el("JSR223PreProcessor", "", text));
        let (p, _) = read(&plan, Path::new("/p/plan.jmx"), &Options::default()).unwrap();
        assert_eq!(p.bandwidth, crate::plan::Bandwidth { loaded: [0, 0], scripted: true });
        let props = [("httpclient.socket.http.cps", " 2000 "), ("httpclient.socket.https.cps", "x")];
        let opts = Options {
            properties: props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..Default::default()
        };
        let plain = with_sampler(&script_el("JSR223PreProcessor", "", "vars.put(&quot;a&quot;, &quot;b&quot;)"));
        let (p, _) = read(&plain, Path::new("/p/plan.jmx"), &opts).unwrap();
        assert_eq!(p.bandwidth, crate::plan::Bandwidth { loaded: [2000, 0], scripted: false });
    }

    /// The BeanShell Sampler keeps its script in `BeanShellSampler.query` (Bug56243.jmx).
    #[test]
    fn the_bean_shell_sampler_reads_its_own_property_names() {
        let el = r#"<BeanShellSampler testclass="BeanShellSampler" testname="b" enabled="true"><stringProp name="BeanShellSampler.query">vars.put(&quot;token&quot;, &quot;x&quot;);</stringProp><stringProp name="BeanShellSampler.filename"></stringProp></BeanShellSampler><hashTree/>"#;
        let plan = super::super::synthetic::tests::plan_of(&format!(
            r#"{el}<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="r" enabled="true"><stringProp name="HTTPSampler.domain">h</stringProp><stringProp name="HTTPSampler.path">/${{token}}</stringProp></HTTPSamplerProxy><hashTree/>"#
        ));
        let (plan, report) = read(&plan, Path::new("/p/plan.jmx"), &Options::default()).unwrap();
        assert!(plan.vars.is_assigned(plan.vars.get("token").unwrap()), "the sampler's script was read");
        assert!(report.iter().any(|r| r.class == "BeanShellSampler" && r.status == Status::Supported), "{report:?}");
    }

    /// A script may write the files it names under the plan's directory, never an absolute
    /// path or one that climbs out of it.
    #[test]
    fn literal_files_are_writable_only_under_the_plan_directory() {
        let base = Path::new("/p");
        assert_eq!(writable_literal(base, "out.csv"), Some(PathBuf::from("/p/out.csv")));
        assert_eq!(writable_literal(base, "./r/a/../out.csv"), Some(PathBuf::from("/p/./r/a/../out.csv")));
        assert_eq!(writable_literal(base, "~/out.csv"), Some(PathBuf::from("/p/~/out.csv")));
        assert_eq!(writable_literal(base, "/p/r/out.csv"), Some(PathBuf::from("/p/r/out.csv")));
        for outside in ["/home/u/.bashrc", "/tmp/x", "/p/../etc/x", "/pq/x", "../x.csv", "a/../../x", "./.."] {
            assert_eq!(writable_literal(base, outside), None, "{outside}");
        }
        let text = r#"new File("/etc/cron.d/x") << "y"; new FileWriter("out.csv", true); new File("../up.txt")"#;
        let files: Vec<PathBuf> = literal_files(text).iter().filter_map(|f| writable_literal(base, f)).collect();
        assert_eq!(files, [PathBuf::from("/p/out.csv")]);
    }

    #[test]
    fn recognises_scripts_that_append_variables_to_a_file() {
        let script = "import org.apache.jmeter.services.FileServer;\n\nemailid = vars.get(\"em\");\nuserid = vars.get(\"uid\");\nFileWriter fstream = new FileWriter(\"~/out.csv\",true);\nfstream.write(emailid+\",\"+userid+\"\\n\");\n// Close File(s)\nfstream.close();";
        assert_eq!(write_back(script), Some(("~/out.csv".to_string(), vec!["em".to_string(), "uid".to_string()])));
        assert_eq!(write_back("log.info(vars.get(\"x\"));"), None);
        assert_eq!(write_back(&script.replace("+\",\"+", "+")), None);
    }
}
