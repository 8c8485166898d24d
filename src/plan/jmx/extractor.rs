//! Post-processors that extract values from responses into variables: regular expression,
//! JSON (JMeter's and jmeter-plugins'), boundary, XPath and CSS selector extractors.

use super::*;
use crate::plan::sampler::http::{
    AllMatches, CssExpr, EmptyDefault, JsonPathExpr, MatchGroups, Pattern, RunTime, RunTimeJsonPath, XPathExpr, ALL,
};

/// The extractors, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("RegexExtractor", Cx::regex_extractor),
    ("JSONPostProcessor", Cx::json_extractor),
    ("BoundaryExtractor", Cx::boundary_extractor),
    ("XPathExtractor", Cx::xpath_extractor),
    ("XPath2Extractor", Cx::xpath2_extractor),
    ("HtmlExtractor", Cx::html_extractor),
    ("com.atlantbh.jmeter.plugins.jsonutils.jsonpathextractor.JSONPathExtractor", Cx::plugin_json_extractor),
    ("DebugPostProcessor", Cx::debug_post_processor),
    ("JMESPathExtractor", Cx::jmespath_extractor),
];

impl Cx {
    /// JMeter's JSON JMESPath Extractor: the values found (an array's items; strings bare,
    /// the rest as JSON), the match number picking one (0 or blank: random; beyond them: the
    /// default; -1: all into `name_1`..); `name_matchNr` the count; nothing found, a body that
    /// is not JSON or an expression that does not compile: the default.
    pub(super) fn jmespath_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = self.expand(c, c.text_or_empty("JMESExtractor.referenceName"))?;
        let raw = self.expand(c, c.text_or_empty("JMESExtractor.jmesPathExpr"))?;
        let match_raw = self.expand(c, c.text_or_empty("JMESExtractor.matchNumber"))?;
        let default = self.tmpl(c, c.text_or_empty("JMESExtractor.defaultValue"))?;
        let mut note = String::new();
        let var = self.b.sym.vars.assign(&name);
        let count = self.b.sym.vars.assign(&format!("{name}_matchNr"));
        let (match_no, all) = match match_raw.trim() {
            "" => (0, None),
            m => match m.parse::<i32>() {
                Ok(n) if n >= 0 => (n as u32, None),
                Ok(_) => {
                    note.push_str(&format!("all values into ${{{name}_1}}..; "));
                    (ALL, Some(self.b.all_matches(&name)))
                }
                Err(_) => {
                    // `Integer.parseInt` throws out of the post-processor, on every sample.
                    let what = format!(
                        "match number `{m}` is not a number: JMeter throws when it runs, no variable is set and the later post-processors and the assertions of that sample do not run"
                    );
                    let source = ExtractSource::Throws(what.clone());
                    s.extract.push(Extractor {
                        var,
                        into: name,
                        source,
                        match_no: 0,
                        default: None,
                        required: None,
                        all: None,
                        empty_default: EmptyDefault::Set,
                        groups: None,
                    });
                    self.warn(c, depth, what);
                    return Ok(());
                }
            },
        };
        let source = match crate::plan::sampler::http::JmesPath::compile(raw.trim()) {
            Ok(path) => ExtractSource::JmesPath { path, count },
            Err(e) => {
                note.push_str(&format!("the expression does not compile ({e}): JMeter sets the default; "));
                ExtractSource::Invalid(e)
            }
        };
        let source = scoped(c, source, &mut self.b.sym.vars);
        note.push_str(&format!("into ${{{name}}} and ${{{name}_matchNr}}"));
        let e = Extractor {
            var,
            into: name,
            source,
            match_no,
            default: Some(default),
            required: None,
            all,
            // JMESPathExtractor puts its default whatever it renders, as the JSON Extractor.
            empty_default: EmptyDefault::Set,
            groups: None,
        };
        self.push_extractor(c, s, depth, (Status::Supported, note), e);
        Ok(())
    }

    /// The Debug PostProcessor sends nothing and sets nothing: JMeter adds a sub-result holding
    /// the variables (and properties) to the sample before it, which grows that sample's bytes
    /// by the dump's length and its end by the microseconds the dump took. Those bytes never
    /// crossed the wire, so the run leaves them out: the sample's bytes and time stay what the
    /// server sent and took.
    pub(super) fn debug_post_processor(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        let note = "sends nothing; JMeter's sub-result (the variables' dump: a JTL row `<label>-0`, its length added to the sample's bytes) is not recorded: the sample's bytes and time are the server's";
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    pub(super) fn regex_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if c.text_or_empty("RegexExtractor.refname").trim().is_empty() {
            // JMeter runs it into a variable with an empty name, which no `${}` reads.
            self.report(c, depth, Status::Ignored, "no reference name: sets no variable a plan can read");
            return Ok(());
        }
        let (e, status, note) = self.read_regex_extractor(c)?;
        self.push_extractor(c, s, depth, (status, note), e);
        Ok(())
    }

    pub(super) fn json_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let (list, status, note) = self.read_json_extractor(c)?;
        self.report_read(c, depth, status, note, &list);
        s.extract.extend(list);
        Ok(())
    }

    /// Adds one extractor to the scope and reports it (see `report_read`).
    fn push_extractor(&mut self, c: &El, s: &mut Scope, depth: usize, (status, note): (Status, String), e: Extractor) {
        self.report_read(c, depth, status, note, std::slice::from_ref(&e));
        s.extract.push(e);
    }

    /// Reports an extractor just read: a `WARNING` when an expression of it does not compile
    /// (JMeter loads the plan, logs the error at run time and sets the default), so `--strict`
    /// refuses it.
    fn report_read(&mut self, c: &El, depth: usize, status: Status, note: String, read: &[Extractor]) {
        if status == Status::Warning || read.iter().any(|e| never_compiles(&e.source)) {
            self.warn(c, depth, note);
        } else {
            self.report(c, depth, status, note);
        }
    }

    pub(super) fn boundary_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("BoundaryExtractor.refname").trim().to_string();
        if name.is_empty() {
            // JMeter loads it; at run time its `process` throws ("One of the mandatory
            // properties is missing"), which JMeterThread logs: the sample is sent and never
            // reaches the results, and in 5.6.3 the thread's loop count stops advancing.
            let why = "no reference name: JMeter throws when it runs (\"One of the mandatory properties is \
                       missing in Boundary Extractor\"), which drops the sample from its results and keeps \
                       the thread looping; here it sets nothing and the sample is recorded";
            self.report(c, depth, Status::Partial, why);
            return Ok(());
        }
        // Both boundaries as one text (XML holds no NUL to mistake for the joint): JMeter
        // evaluates `${}` in them for each sample, so one set while the test runs is read then.
        let both = format!(
            "{}\0{}",
            c.text_or_empty("BoundaryExtractor.lboundary"),
            c.text_or_empty("BoundaryExtractor.rboundary")
        );
        let probe = self.tmpl(c, &both)?;
        let at_run_time = probe.is_dynamic(&self.b.sym.vars);
        let regex = if at_run_time {
            None
        } else {
            let both = self.expand(c, &both)?;
            Some(boundaries(&both).map_err(|e| self.err(c, e))?)
        };
        let from = match c.text("BoundaryExtractor.useHeaders").unwrap_or("false") {
            "true" => Field::Headers,
            "URL" => Field::Url,
            "code" => Field::Status,
            _ => Field::Body,
        };
        let match_no = match c.text("BoundaryExtractor.match_number").map(str::trim) {
            None | Some("") => 0,
            Some(n) => n.parse::<i64>().map(|n| n.max(1) as u32).unwrap_or(1),
        };
        let default = self.optional_default(c, "BoundaryExtractor", true)?;
        let var = self.b.sym.vars.assign(&name);
        s.extract.push(Extractor {
            var,
            into: name.clone(),
            source: scoped(
                c,
                match regex {
                    Some(regex) => ExtractSource::Regex { regex, template: "$1$".into(), from },
                    None => ExtractSource::RegexRunTime {
                        regex: RunTime::new(probe, boundaries),
                        template: "$1$".into(),
                        from,
                    },
                },
                &mut self.b.sym.vars,
            ),
            match_no,
            default,
            required: None,
            all: None,
            empty_default: self.empty_default(c, "BoundaryExtractor", EmptyDefault::LeaveBlank),
            groups: None,
        });
        self.report(c, depth, Status::Supported, format!("into ${{{name}}}"));
        Ok(())
    }

    pub(super) fn read_regex_extractor(&mut self, c: &El) -> Result<(Extractor, Status, String), Error> {
        let name = c.text_or_empty("RegexExtractor.refname").trim().to_string();
        let raw = c.text_or_empty("RegexExtractor.regex");
        // JMeter evaluates `${}` in the expression for each sample: one set while the test
        // runs is compiled then.
        let probe = self.tmpl(c, raw)?;
        let at_run_time = probe.is_dynamic(&self.b.sym.vars);
        let re_src = if at_run_time { raw.to_string() } else { self.expand(c, raw)? };
        let template = c.text("RegexExtractor.template").unwrap_or("$1$").to_string();
        let (from, status, mut note) = match c.text("RegexExtractor.useHeaders").unwrap_or("false") {
            "true" => (Field::Headers, Status::Supported, String::new()),
            "URL" => (Field::Url, Status::Supported, String::new()),
            "code" => (Field::Status, Status::Supported, String::new()),
            "false" => (Field::Body, Status::Supported, String::new()),
            "unescaped" => (Field::BodyUnescaped, Status::Supported, String::new()),
            "request_headers" => (Field::RequestHeaders, Status::Supported, String::new()),
            "message" => (Field::Message, Status::Supported, String::new()),
            other => (Field::Body, Status::Partial, format!("field `{other}` is read as the body; ")),
        };
        // JMeter compiles the pattern at run time: one that does not compile is logged and
        // leaves the variable at its default.
        let source = if at_run_time {
            note.push_str("the expression is read for each sample; ");
            ExtractSource::RegexRunTime { regex: RunTime::new(probe, perl5), template, from }
        } else {
            or_invalid(perl5(&re_src).map(|regex| ExtractSource::Regex { regex, template, from }), &mut note)
        };
        let (match_no, mut all) = self.match_number(c.text("RegexExtractor.match_number"), &name, &mut note);
        if let Some(all) = &mut all {
            // The groups of each match a RegEx User Parameters reads (`name_i_gK`).
            for g in self.groups_read_of(&name) {
                all.groups.push((g, self.match_groups(&name, g)));
            }
        }
        let default = self.optional_default(c, "RegexExtractor", false)?;
        let var = self.b.sym.vars.assign(&name);
        let groups = self.match_groups_of(&name, &source, all.is_some());
        if groups.is_some() && all.is_none() {
            note.push_str(&format!("its groups into ${{{name}_g}}, ${{{name}_g0}}..; "));
        }
        note.push_str(&format!("into ${{{name}}}"));
        let source = scoped(c, source, &mut self.b.sym.vars);
        let empty_default = self.empty_default(c, "RegexExtractor", EmptyDefault::Leave);
        let e = Extractor { var, into: name, source, match_no, default, required: None, all, empty_default, groups };
        Ok((e, status, note))
    }

    /// `PREFIX.default`, or an empty default when `PREFIX.default_empty_value` asks for one;
    /// `None`: JMeter leaves the variable as it was (unset, if nothing set it) when nothing
    /// matches. An empty default is no default (the Boundary Extractor's test is `isNotBlank`:
    /// `blank` makes one of spaces none too).
    fn optional_default(&mut self, c: &El, prefix: &str, blank: bool) -> Result<Option<Template>, Error> {
        let given = c.text(&format!("{prefix}.default")).unwrap_or("");
        let none = if blank { given.trim().is_empty() } else { given.is_empty() };
        match (none, c.flag(&format!("{prefix}.default_empty_value"))) {
            (false, _) => Ok(Some(self.tmpl(c, given)?)),
            (true, Some(true)) => Ok(Some(Template::literal(given))),
            _ => Ok(None),
        }
    }

    /// What the extractor does with a default that renders empty at run time: `rule`, unless
    /// "Use empty default value" is ticked (then it is set whatever it renders).
    fn empty_default(&self, c: &El, prefix: &str, rule: EmptyDefault) -> EmptyDefault {
        match c.flag(&format!("{prefix}.default_empty_value")) {
            Some(true) => EmptyDefault::Set,
            _ => rule,
        }
    }

    /// The groups variables of a Regular Expression Extractor into `name`. JMeter sets them on
    /// every match; what reads them may be out of sight of a search of the plan (a script
    /// file, an included plan, a CSV value passed to `__eval`, `vars.get(name + "_g" + i)`),
    /// so a single-match pattern with capture groups always sets them. One without groups sets
    /// them only when the plan reads `name_g...` (a slot per user for variables nothing reads
    /// would only cost memory). A pattern known at load gives its number of groups; one
    /// compiled per sample keeps as many as the plan reads, at least [`RUN_TIME_GROUPS`].
    fn match_groups_of(&mut self, name: &str, source: &ExtractSource, all: bool) -> Option<Box<MatchGroups>> {
        let needle = format!("{name}_g");
        let has_groups = match source {
            ExtractSource::Regex { regex, .. } => regex.captures_len() > 1,
            // Any `(` may open a group once the text is rendered.
            ExtractSource::RegexRunTime { regex, .. } => regex.src.source().contains('('),
            _ => false,
        };
        let reads_groups = self.text.contains(&needle) || (!all && has_groups);
        // A single-match extractor removes what a match number -1 one into the same name left.
        let list = (!all && self.lists_into(name)).then(|| self.b.all_matches(name));
        if !reads_groups && list.is_none() {
            return None;
        }
        let n = match source {
            _ if !reads_groups => 0,
            ExtractSource::Regex { regex, .. } => regex.captures_len().saturating_sub(1),
            // Capped: a typo'd `name_g99999` must not cost that many slots per user.
            _ => highest_group_read(&self.text, &needle).clamp(RUN_TIME_GROUPS, 99),
        };
        let vars = &mut self.b.sym.vars;
        let count = vars.assign(&needle);
        let groups = (0..=n).map(|g| vars.assign(&format!("{needle}{g}"))).collect();
        Some(Box::new(MatchGroups { count, groups, list }))
    }

    /// Whether a Regular Expression Extractor with match number -1 sets `name_1`... (the
    /// names of all of them found in one walk of the plan, the first time it is asked).
    fn lists_into(&mut self, name: &str) -> bool {
        fn walk(el: &El, out: &mut std::collections::HashSet<String>) {
            for c in el.children.iter().filter(|c| c.enabled) {
                let n = c.text_or_empty("RegexExtractor.match_number").trim().parse::<i64>();
                if c.class == "RegexExtractor" && n.is_ok_and(|n| n < 0) {
                    out.insert(c.text_or_empty("RegexExtractor.refname").trim().to_string());
                }
                walk(c, out);
            }
        }
        let root = &self.root;
        self.regex_lists
            .get_or_insert_with(|| {
                let mut out = std::collections::HashSet::new();
                walk(root, &mut out);
                out
            })
            .contains(name)
    }

    /// JMeter's match number: 0 (or none) a random match, N the Nth, negative all of them.
    /// A text that is not a number is 0, as JMeter's `getPropertyAsInt` reads it.
    fn match_number(&mut self, raw: Option<&str>, name: &str, note: &mut String) -> (u32, Option<AllMatches>) {
        match raw.map(str::trim).unwrap_or("") {
            "" => (0, None),
            n => match n.parse::<i64>() {
                Ok(n) if n >= 0 => (n.min(u32::MAX as i64 - 1) as u32, None),
                Ok(_) => {
                    note.push_str(&format!("all matches into ${{{name}_1}}.. and ${{{name}_matchNr}}; "));
                    (ALL, Some(self.b.all_matches(name)))
                }
                Err(_) => {
                    note.push_str(&format!("match number `{n}` is not a number: a random match, as in JMeter; "));
                    (0, None)
                }
            },
        }
    }

    pub(super) fn read_json_extractor(&mut self, c: &El) -> Result<(Vec<Extractor>, Status, String), Error> {
        let names_src = c.text_or_empty("JSONPostProcessor.referenceNames");
        let paths_src = c.text_or_empty("JSONPostProcessor.jsonPathExprs");
        let defaults_src = c.text_or_empty("JSONPostProcessor.defaultValues");
        let matches_src = c.text_or_empty("JSONPostProcessor.match_numbers");
        if let Some(why) = json_lists_mismatch(names_src, paths_src, defaults_src, matches_src) {
            // JSONPostProcessor.process throws before it sets anything, on every sample.
            let what = format!(
                "{why}: JMeter throws when it runs (\"Number of JSON Path variables must match number of default \
                 values and json-path expressions\"): no variable is set, the later post-processors and the \
                 assertions of that sample do not run, and JMeter leaves the sample out of its results (stampede \
                 records it)"
            );
            let var = self.b.sym.vars.assign("");
            let source = ExtractSource::Throws(what.clone());
            let e = Extractor {
                var,
                into: String::new(),
                source,
                match_no: 0,
                default: None,
                required: None,
                all: None,
                empty_default: EmptyDefault::Set,
                groups: None,
            };
            return Ok((vec![e], Status::Warning, what));
        }
        let split = |s: &str| -> Vec<String> { java_split(s).into_iter().map(|x| x.trim().to_string()).collect() };
        let names = split(names_src);
        let paths = split(paths_src);
        let matches = split(matches_src);
        // JMeter trims names and paths but not defaults: `d1; d2` gives the second ` d2`.
        let defaults: Vec<String> = java_split(defaults_src).into_iter().map(String::from).collect();
        if names.iter().all(|n| n.is_empty()) {
            return Err(self.err(c, "the JSON Extractor has no variable names"));
        }
        let mut out = Vec::new();
        let status = Status::Supported;
        let mut note = String::new();
        for (i, (name, raw)) in names.iter().zip(&paths).enumerate() {
            // JMeter evaluates `${}` in the path for each sample: one set while the test runs
            // is compiled then (a path that does not compile logs an error and sets the default).
            let t = self.tmpl(c, raw)?;
            let source = if t.is_dynamic(&self.b.sym.vars) {
                note.push_str(&format!("path `{raw}` read for each sample; "));
                ExtractSource::JsonRunTime(RunTimeJsonPath::new(t, |s| extractor_path(s.trim())))
            } else {
                let src = self.expand(c, raw)?;
                or_invalid(extractor_path(&src).map(ExtractSource::Json), &mut note)
            };
            let (match_no, mut all) = self.match_number(matches.get(i).map(String::as_str), name, &mut note);
            if let (Some(all), Some(true)) = (&mut all, c.flag("JSONPostProcessor.compute_concat")) {
                all.concat = Some(self.b.sym.vars.assign(&format!("{name}_ALL")));
                note.push_str(&format!("all matches joined into ${{{name}_ALL}}; "));
            }
            // JMeter sets the default (even empty) when nothing matches.
            let default = Some(self.tmpl(c, defaults.get(i).map(String::as_str).unwrap_or(""))?);
            let var = self.b.sym.vars.assign(name);
            let source = scoped(c, source, &mut self.b.sym.vars);
            let empty_default = EmptyDefault::Set;
            let into = name.clone();
            out.push(Extractor {
                var,
                into,
                source,
                match_no,
                default,
                required: None,
                all,
                empty_default,
                groups: None,
            });
        }
        note.push_str(&format!("into {}", names.iter().map(|n| format!("${{{n}}}")).collect::<Vec<_>>().join(", ")));
        Ok((out, status, note))
    }

    /// XPath Extractor (XPath 1.0, Xalan in JMeter): the name gets the default, then the
    /// first value kept; `name_1`.. and `name_matchNr` always get the values kept (the one
    /// the match number picks, or all for -1). A query or body that cannot be read leaves
    /// the default (JMeter adds a failed assertion result, but the sample stays successful).
    pub(super) fn xpath_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("XPathExtractor.refname").trim().to_string();
        let raw = c.text_or_empty("XPathExtractor.xpathQuery");
        let tolerant = c.flag("XPathExtractor.tolerant").unwrap_or(false);
        let namespaces = c.flag("XPathExtractor.namespace").unwrap_or(false);
        let fragment = c.flag("XPathExtractor.fragment").unwrap_or(false);
        let mut note = String::new();
        // JMeter evaluates `${}` in the query for each sample: one set while the test runs
        // is compiled then.
        let probe = self.tmpl(c, raw)?;
        let source = if probe.is_dynamic(&self.b.sym.vars) {
            note.push_str("the query is read for each sample; ");
            let compile = move |q: &str| XPathExpr::new(q, tolerant, namespaces, fragment).map_err(|e| e.to_string());
            ExtractSource::XPathRunTime(RunTime::new(probe, compile))
        } else {
            let query = self.expand(c, raw)?;
            let path = XPathExpr::new(&query, tolerant, namespaces, fragment);
            or_invalid(path.map(ExtractSource::XPath), &mut note)
        };
        let (match_no, _) = self.match_number(c.text("XPathExtractor.matchNumber"), &name, &mut note);
        // "Validate XML" checks the body against its DTD: not done here.
        let status = match c.flag("XPathExtractor.validate") {
            Some(true) => {
                note.push_str("the body is not validated against its DTD; ");
                Status::Partial
            }
            _ => Status::Supported,
        };
        let default = c.text_or_empty("XPathExtractor.default");
        self.markup_extractor(c, s, depth, name, source, match_no, default, (status, note))
    }

    /// XPath2 Extractor (XPath 2.0, Saxon in JMeter): read with the XPath 1.0 engine, which
    /// takes the common subset; a query it cannot read is reported.
    pub(super) fn xpath2_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("XPathExtractor2.refname").trim().to_string();
        let raw = c.text_or_empty("XPathExtractor2.xpathQuery");
        let fragment = c.flag("XPathExtractor2.fragment").unwrap_or(false);
        let mut note = String::new();
        let ns = c.text_or_empty("XPathExtractor2.namespaces").trim();
        let namespaces = !ns.is_empty();
        if namespaces {
            note.push_str("namespace prefixes are taken from the response, not from the element; ");
        }
        let probe = self.tmpl(c, raw)?;
        let source = if probe.is_dynamic(&self.b.sym.vars) {
            // Read for each sample, as JMeter evaluates it; a query the XPath 1.0 engine does
            // not take then finds nothing (the default stays).
            note.push_str("the query is read for each sample; ");
            let compile = move |q: &str| XPathExpr::new(q, false, namespaces, fragment).map_err(|e| e.to_string());
            ExtractSource::XPathRunTime(RunTime::new(probe, compile))
        } else {
            let query = self.expand(c, raw)?;
            match XPathExpr::new(&query, false, namespaces, fragment) {
                Ok(x) => ExtractSource::XPath(x),
                Err(e) => {
                    self.unsupported(c, depth, &format!("{e} (read as XPath 1.0)"));
                    return Ok(());
                }
            }
        };
        let (match_no, _) = self.match_number(c.text("XPathExtractor2.matchNumber"), &name, &mut note);
        note.insert_str(0, "XPath 2.0 read as XPath 1.0; ");
        let default = c.text_or_empty("XPathExtractor2.default");
        self.markup_extractor(c, s, depth, name, source, match_no, default, (Status::Partial, note))
    }

    #[allow(clippy::too_many_arguments)]
    fn markup_extractor(
        &mut self,
        c: &El,
        s: &mut Scope,
        depth: usize,
        name: String,
        source: ExtractSource,
        match_no: u32,
        default: &str,
        (status, mut note): (Status, String),
    ) -> Result<(), Error> {
        let default = Some(self.tmpl(c, default)?);
        let all = Some(self.b.all_matches(&name));
        let var = self.b.sym.vars.assign(&name);
        note.push_str(&format!("into ${{{name}}}, ${{{name}_1}}.. and ${{{name}_matchNr}}"));
        let source = scoped(c, source, &mut self.b.sym.vars);
        let empty_default = EmptyDefault::Set;
        let e =
            Extractor { var, into: name, source, match_no, default, required: None, all, empty_default, groups: None };
        self.push_extractor(c, s, depth, (status, note), e);
        Ok(())
    }

    /// CSS Selector Extractor (HtmlExtractor; JSoup or Jodd in JMeter).
    pub(super) fn html_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("HtmlExtractor.refname").trim().to_string();
        let jodd = c.text_or_empty("HtmlExtractor.extractor_impl").trim() == "JODD";
        let mut note = String::new();
        // JMeter evaluates `${}` in selector and attribute for each sample, so one set while
        // the test runs is read then. Each is its own template: an unclosed `${` in the
        // selector must not swallow the attribute. Compiled as `selector\0attribute` (XML holds
        // no NUL to mistake for the joint), the key of the last compilation.
        let (expr, attribute) = (c.text_or_empty("HtmlExtractor.expr"), c.text_or_empty("HtmlExtractor.attribute"));
        let (probe, attr_probe) = (self.tmpl(c, expr)?, self.tmpl(c, attribute)?);
        let source = if probe.is_dynamic(&self.b.sym.vars) || attr_probe.is_dynamic(&self.b.sym.vars) {
            note.push_str("the selector and attribute are read for each sample; ");
            let css = move |both: &str| {
                let (expr, attribute) = both.split_once('\0').unwrap_or((both, ""));
                CssExpr::new(expr, attribute, jodd).map_err(|e| e.to_string())
            };
            ExtractSource::CssRunTime(RunTime::new(probe, css), Box::new(attr_probe))
        } else {
            let (expr, attribute) = (self.expand(c, expr)?, self.expand(c, attribute)?);
            or_invalid(CssExpr::new(&expr, &attribute, jodd).map(ExtractSource::Css), &mut note)
        };
        let (match_no, all) = self.match_number(c.text("HtmlExtractor.match_number"), &name, &mut note);
        let default = self.optional_default(c, "HtmlExtractor", false)?;
        let var = self.b.sym.vars.assign(&name);
        note.push_str(&format!("into ${{{name}}}"));
        let source = scoped(c, source, &mut self.b.sym.vars);
        let empty_default = self.empty_default(c, "HtmlExtractor", EmptyDefault::Leave);
        let e =
            Extractor { var, into: name, source, match_no, default, required: None, all, empty_default, groups: None };
        self.push_extractor(c, s, depth, (Status::Supported, note), e);
        Ok(())
    }

    /// jmeter-plugins' JSON Path Extractor (atlantbh): a single value into the name; an array
    /// (an indefinite path, or a definite one that finds an array) as JSON text into the name,
    /// its items into `name_1`.. and their count into `name_matchNr`; nothing found: the
    /// default and `name_matchNr` 0.
    pub(super) fn plugin_json_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("VAR").trim().to_string();
        let src = self.expand(c, c.text_or_empty("JSONPATH"))?;
        if c.text_or_empty("INPUT_FORMAT") == "YAML" {
            self.unsupported(c, depth, "YAML input is not read");
            return Ok(());
        }
        let mut note = String::new();
        let source = or_invalid(jayway(&src).map(ExtractSource::JsonPlugin), &mut note);
        // SUBJECT `VAR`: the JSON is the value of the variable VARIABLE.
        let source = match c.text_or_empty("SUBJECT") {
            "VAR" => {
                let var = self.b.sym.vars.assign(c.text_or_empty("VARIABLE").trim());
                ExtractSource::FromVar { var, source: Box::new(source) }
            }
            _ => source,
        };
        let default = Some(self.tmpl(c, c.text_or_empty("DEFAULT"))?);
        let all = Some(self.b.all_matches(&name));
        let var = self.b.sym.vars.assign(&name);
        note.push_str(&format!("into ${{{name}}}"));
        let empty_default = EmptyDefault::Set;
        let e = Extractor {
            var,
            into: name,
            source,
            match_no: 1,
            default,
            required: None,
            all,
            empty_default,
            groups: None,
        };
        self.push_extractor(c, s, depth, (Status::Supported, note), e);
        Ok(())
    }
}

/// The groups a Regular Expression Extractor compiled per sample keeps at least
/// (`name_g0`..`name_g9`).
pub(super) const RUN_TIME_GROUPS: usize = 9;

/// The highest K of `{needle}K` (`name_gK`) in the text; 0 when none.
fn highest_group_read(text: &str, needle: &str) -> usize {
    text.match_indices(needle)
        .filter_map(|(i, _)| {
            let rest = &text[i + needle.len()..];
            let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            rest[..digits].parse::<usize>().ok()
        })
        .max()
        .unwrap_or(0)
}

/// The source as the element's scope reads it: over a JMeter variable (`Sample.scope` =
/// `variable`, JMeter's "JMeter Variable Name to use"), else over the response.
fn scoped(c: &El, source: ExtractSource, vars: &mut crate::plan::template::VarTable) -> ExtractSource {
    if c.text("Sample.scope") != Some("variable") {
        return source;
    }
    let source = match source {
        // The variable is read whatever field the element names.
        ExtractSource::Regex { regex, template, .. } => ExtractSource::Regex { regex, template, from: Field::Body },
        ExtractSource::RegexRunTime { regex, template, .. } => {
            ExtractSource::RegexRunTime { regex, template, from: Field::Body }
        }
        other => other,
    };
    let var = vars.assign(c.text_or_empty("Scope.variable").trim());
    ExtractSource::FromVar { var, source: Box::new(source) }
}

/// The source, or one that finds nothing when its expression does not compile: JMeter compiles
/// it at run time, logs the error and leaves the default. The element's note warns of it.
fn or_invalid(source: Result<ExtractSource, impl std::fmt::Display>, note: &mut String) -> ExtractSource {
    source.unwrap_or_else(|e| {
        note.push_str(&format!("{e}: JMeter logs it and sets the default; "));
        ExtractSource::Invalid(e.to_string())
    })
}

/// Whether an extractor's expression never compiles (read from a variable or not).
fn never_compiles(source: &ExtractSource) -> bool {
    match source {
        ExtractSource::Invalid(_) => true,
        ExtractSource::FromVar { source, .. } => never_compiles(source),
        _ => false,
    }
}

/// The expression a Boundary Extractor matches: the shortest text between the boundaries,
/// given as `left\0right`.
fn boundaries(both: &str) -> Result<Pattern, String> {
    let (left, right) = both.split_once('\0').unwrap_or((both, ""));
    regex::Regex::new(&format!("(?s){}(.*?){}", regex::escape(left), regex::escape(right)))
        .map(Pattern::from)
        .map_err(|e| format!("cannot match the boundaries: {e}"))
}

/// A Perl 5 regular expression, or the error naming it.
fn perl5(src: &str) -> Result<Pattern, String> {
    Pattern::perl5(src).map_err(|e| format!("invalid regular expression `{src}`: {}", e.lines().last().unwrap_or(&e)))
}

/// A JSON Extractor's path: JMeter reads with ALWAYS_RETURN_LIST, which Jayway refuses with a
/// function at the end.
fn extractor_path(src: &str) -> Result<JsonPathExpr, String> {
    jayway(src).and_then(|p| match p.func {
        Some(_) => Err(format!("JSONPath `{src}` ends with a function, which JMeter's JSON Extractor cannot run")),
        None => Ok(p),
    })
}

/// Why JSONPostProcessor.process throws on every sample, if it does: its names, paths and
/// defaults (each split as Java's `String.split(";")` does: trailing empty items dropped) differ
/// in number, or its match numbers are more than the defaults or not all whole numbers.
fn json_lists_mismatch(names: &str, paths: &str, defaults: &str, matches: &str) -> Option<String> {
    let (n, p, d) = (java_split(names).len(), java_split(paths).len(), java_split(defaults).len());
    if !matches.trim().is_empty() {
        let m = java_split(matches);
        if m.len() > d {
            return Some(format!("{} match numbers for {d} default values", m.len()));
        }
        if let Some(bad) = m.iter().find(|m| m.trim().parse::<i32>().is_err()) {
            return Some(format!("match number `{bad}` is not a whole number"));
        }
    }
    (n != p || n != d).then(|| format!("{n} variable names for {p} JSON paths and {d} default values"))
}

/// Java's `String.split(";")`: no separator, the whole text (even empty); else the items with
/// the trailing empty ones dropped.
fn java_split(s: &str) -> Vec<&str> {
    if !s.contains(';') {
        return vec![s];
    }
    let mut v: Vec<&str> = s.split(';').collect();
    while v.last() == Some(&"") {
        v.pop();
    }
    v
}

/// A JSONPath in Jayway's dialect, or the error naming it.
pub(super) fn jayway(src: &str) -> Result<JsonPathExpr, String> {
    JsonPathExpr::jayway(src).map_err(|e| format!("invalid JSONPath `{src}` ({e})"))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::synthetic::tests::plan_of;
    use super::super::{inspect, Options};
    use super::*;
    use crate::plan::flow;
    use std::path::Path;

    /// A plan of one user: a sampler `/a` holding `children`, then a sampler `/b`.
    pub(in crate::plan::jmx) fn plan_with(children: &str) -> String {
        format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
            <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="a" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.path">/a</stringProp></HTTPSamplerProxy>
            <hashTree>{children}</hashTree>
            <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="b" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.path">/b</stringProp></HTTPSamplerProxy><hashTree/>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#
        )
    }

    pub(in crate::plan::jmx) fn regex_into(name: &str) -> String {
        format!(
            r#"<RegexExtractor testclass="RegexExtractor" testname="r" enabled="true"><stringProp name="RegexExtractor.refname">{name}</stringProp><stringProp name="RegexExtractor.regex">(\w+)</stringProp></RegexExtractor><hashTree/>"#
        )
    }

    fn json(names: &str, paths: &str, defaults: Option<&str>) -> String {
        let d = defaults.map_or(String::new(), |d| {
            format!(r#"<stringProp name="JSONPostProcessor.defaultValues">{d}</stringProp>"#)
        });
        format!(
            r#"<JSONPostProcessor testclass="JSONPostProcessor" testname="j" enabled="true"><stringProp name="JSONPostProcessor.referenceNames">{names}</stringProp><stringProp name="JSONPostProcessor.jsonPathExprs">{paths}</stringProp>{d}</JSONPostProcessor><hashTree/>"#
        )
    }

    fn inspect_with(children: &str, strict: bool) -> Inspection {
        inspect(&plan_with(children), Path::new("t.jmx"), &Options { strict, ..Default::default() })
    }

    /// The extractors of the first request.
    fn extractors(i: &Inspection) -> Vec<Extractor> {
        let plan = i.plan.as_ref().expect("the plan loads");
        let mut out = Vec::new();
        crate::plan::flow::for_each_request(&plan.scenarios[0].flow, &mut |r| {
            if out.is_empty() {
                out = r.after.extract.clone();
            }
        });
        out
    }

    /// XPath, XPath2 and CSS Selector Extractors whose expression (or attribute) holds a
    /// variable set while the test runs compile it per sample, with the element's settings; a
    /// constant one still compiles once, when the plan loads.
    #[test]
    fn markup_expressions_with_variables_set_at_run_time_are_compiled_per_sample() {
        let xpath = |class: &str, p: &str, q: &str| {
            format!(
                r#"<{class} testclass="{class}" testname="x" enabled="true"><stringProp name="{p}.refname">x</stringProp><stringProp name="{p}.xpathQuery">{q}</stringProp><boolProp name="{p}.fragment">true</boolProp></{class}><hashTree/>"#
            )
        };
        let css = |e: &str, a: &str| {
            format!(
                r#"<HtmlExtractor testclass="HtmlExtractor" testname="c" enabled="true"><stringProp name="HtmlExtractor.refname">c</stringProp><stringProp name="HtmlExtractor.expr">{e}</stringProp><stringProp name="HtmlExtractor.attribute">{a}</stringProp></HtmlExtractor><hashTree/>"#
            )
        };
        let children = [
            regex_into("k"),
            xpath("XPathExtractor", "XPathExtractor", "/r/${k}"),
            xpath("XPath2Extractor", "XPathExtractor2", "/r/${k}"),
            css("p#a", "${k}"),
            css("p", "href"),
        ]
        .concat();
        let i = inspect_with(&children, false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let e = extractors(&i);
        for x in &e[1..3] {
            let ExtractSource::XPathRunTime(x) = &x.source else { panic!("{:?}", x.source) };
            assert_eq!(x.src.source(), "/r/${k}");
            // The element's settings travel with the compiler.
            assert!(x.compiled("/r/a".into()).1.as_ref().is_ok_and(|x| x.fragment));
            assert!(x.compiled("/r/[".into()).1.is_err());
        }
        let ExtractSource::CssRunTime(c, _) = &e[3].source else { panic!("{:?}", e[3].source) };
        assert!(c.compiled("p#a\0data-x".into()).1.as_ref().is_ok_and(|c| c.attribute == "data-x"));
        assert!(c.compiled("p[\0".into()).1.is_err());
        assert!(matches!(&e[4].source, ExtractSource::Css(c) if c.attribute == "href"));
    }

    /// An extractor whose expression does not compile loads, as in JMeter (which logs the
    /// error and sets the default): a WARNING, which `--strict` refuses.
    #[test]
    fn an_extractor_whose_expression_does_not_compile_is_a_warning() {
        let bad = regex_into("v").replace(r"(\w+)", "(");
        for plan in [bad, json("v", "$.a[", Some("none"))] {
            let i = inspect_with(&plan, false);
            assert!(i.problems.is_empty(), "{:?}", i.problems);
            let r = i.elements.iter().find(|r| r.class.ends_with("Extractor") || r.class.ends_with("PostProcessor"));
            assert_eq!(r.map(|r| r.status), Some(Status::Warning), "{plan}");
            let strict = inspect_with(&plan, true);
            assert!(strict.plan.is_none(), "{plan}");
        }
    }

    /// Selector and attribute are separate texts: an unclosed `${` in the selector leaves the
    /// attribute's `${k}` a variable read per sample.
    #[test]
    fn an_unclosed_reference_in_a_css_selector_leaves_the_attribute_its_own() {
        let css = r#"<HtmlExtractor testclass="HtmlExtractor" testname="c" enabled="true"><stringProp name="HtmlExtractor.refname">c</stringProp><stringProp name="HtmlExtractor.expr">p[title=${]</stringProp><stringProp name="HtmlExtractor.attribute">${k}</stringProp></HtmlExtractor><hashTree/>"#;
        let i = inspect_with(&format!("{}{css}", regex_into("k")), false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let e = extractors(&i);
        assert!(matches!(&e[1].source, ExtractSource::CssRunTime(..)), "{:?}", e[1].source);
    }

    /// JMeter sets `name_g`, `name_g0`.. of a single-match pattern with groups whoever reads
    /// them (a script file, an included plan, a CSV value): set them though the plan never
    /// names them; a pattern without groups costs nothing unless the plan reads them.
    #[test]
    fn a_regex_with_groups_sets_them_though_the_plan_never_names_them() {
        let e = extractors(&inspect_with(&regex_into("x"), false));
        let g = e[0].groups.as_ref().expect("groups set");
        assert_eq!(g.groups.len(), 2);
        let e = extractors(&inspect_with(&regex_into("x").replace(r"(\w+)", r"\w+"), false));
        assert!(e[0].groups.is_none());
    }

    /// A pattern compiled per sample keeps as many groups as the plan reads, at least 9.
    #[test]
    fn a_run_time_regex_keeps_the_highest_group_the_plan_reads() {
        let re = regex_into("v").replace(r"(\w+)", r"${key}=(\w+)");
        let groups = |extra: &str| {
            let i = inspect_with(&format!("{}{re}{extra}", regex_into("key")), false);
            extractors(&i)[1].groups.as_ref().expect("groups set").groups.len()
        };
        assert_eq!(groups(""), 10);
        let reads = r#"<DebugSampler testclass="DebugSampler" testname="${v_g12}" enabled="true"/><hashTree/>"#;
        assert_eq!(groups(reads), 13);
    }

    #[test]
    fn a_json_path_with_a_variable_set_at_run_time_is_compiled_per_sample() {
        let i = inspect_with(&format!("{}{}", regex_into("key"), json("v", "$.result.${key}", Some("none"))), false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let e = extractors(&i);
        let ExtractSource::JsonRunTime(p) = &e[1].source else { panic!("{:?}", e[1].source) };
        assert_eq!(p.src.source(), "$.result.${key}");
        // So is a regular expression.
        let re = regex_into("v").replace(r"(\w+)", r"${key}=(\w+)");
        let i = inspect_with(&format!("{}{re}", regex_into("key")), false);
        assert!(
            matches!(&extractors(&i)[1].source, ExtractSource::RegexRunTime { regex, .. } if regex.src.source() == r"${key}=(\w+)")
        );
        // A constant path is still compiled once, when the plan loads.
        let i = inspect_with(&json("v", "$.result.token", Some("none")), false);
        assert!(matches!(extractors(&i)[0].source, ExtractSource::Json(_)));
    }

    #[test]
    fn a_json_extractor_whose_lists_differ_in_number_loads_and_throws_when_it_runs() {
        for (names, paths, defaults) in [
            ("a", "$.x;$.y", Some("1;2")),
            ("a;b;c", "$.x;$.y", Some("1;2;3")),
            // JMeter 5.6.3 splits the defaults too: two names and no default is a mismatch.
            ("a;b", "$.x;$.y", None),
            ("a;b", "$.x;$.y", Some("1;")),
        ] {
            let i = inspect_with(&json(names, paths, defaults), false);
            assert!(i.problems.is_empty(), "{names} / {paths}: {:?}", i.problems);
            let r = i.elements.iter().find(|r| r.class == "JSONPostProcessor").unwrap();
            assert_eq!(r.status, Status::Warning, "{names} / {paths}");
            assert!(r.note.contains("JMeter throws when it runs"), "{}", r.note);
            assert!(matches!(extractors(&i)[0].source, ExtractSource::Throws(_)));
            // --strict refuses it.
            assert!(!inspect_with(&json(names, paths, defaults), true).problems.is_empty());
        }
        // Trailing separators are dropped, as Java's split drops them.
        let i = inspect_with(&json("g;h;", "$.x;$.y;", Some("1;2")), false);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert_eq!(extractors(&i).len(), 2);
    }

    fn jmes(expr: &str, match_no: &str) -> String {
        format!(
            r#"<JMESPathExtractor testclass="JMESPathExtractor" testname="m" enabled="true"><stringProp name="JMESExtractor.referenceName">m</stringProp><stringProp name="JMESExtractor.jmesPathExpr">{expr}</stringProp><stringProp name="JMESExtractor.matchNumber">{match_no}</stringProp><stringProp name="JMESExtractor.defaultValue">d</stringProp></JMESPathExtractor><hashTree/>"#
        )
    }

    #[test]
    fn a_jmespath_extractor_reads_its_match_number_as_jmeter_does() {
        let i = inspect_with(&jmes("items[*].id", "-1"), false);
        let e = extractors(&i);
        assert!(matches!(&e[0].source, ExtractSource::JmesPath { path, .. } if path.src == "items[*].id"));
        assert_eq!(e[0].match_no, ALL);
        assert!(e[0].all.is_some());
        assert_eq!(extractors(&inspect_with(&jmes("a", ""), false))[0].match_no, 0);
        // `Integer.parseInt` throws on every sample: a warning, and --strict refuses it.
        let i = inspect_with(&jmes("a", "first"), false);
        assert!(matches!(extractors(&i)[0].source, ExtractSource::Throws(_)));
        assert!(!inspect_with(&jmes("a", "first"), true).problems.is_empty());
        // An expression that does not compile sets the default: a warning, as for the other
        // extractors, so --strict refuses it.
        let i = inspect_with(&jmes("a[", "1"), false);
        assert!(matches!(extractors(&i)[0].source, ExtractSource::Invalid(_)));
        assert_eq!(i.elements.iter().find(|r| r.class == "JMESPathExtractor").unwrap().status, Status::Warning);
        assert!(!inspect_with(&jmes("a[", "1"), true).problems.is_empty());
    }

    #[test]
    fn a_debug_post_processor_loads_and_adds_nothing() {
        let dbg = r#"<DebugPostProcessor testclass="DebugPostProcessor" testname="dbg" enabled="true"><boolProp name="displayJMeterVariables">true</boolProp></DebugPostProcessor><hashTree/>"#;
        let i = inspect_with(dbg, true);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert_eq!(i.elements.iter().find(|r| r.class == "DebugPostProcessor").unwrap().status, Status::Supported);
        assert!(extractors(&i).is_empty());
    }

    #[test]
    fn java_split_drops_trailing_empty_items_only() {
        assert_eq!(java_split(""), [""]);
        assert_eq!(java_split("a;b;;"), ["a", "b"]);
        assert_eq!(java_split(";a; "), ["", "a", " "]);
        assert!(java_split(";;").is_empty());
    }

    /// Each extractor's variable and the default it sets when it finds nothing (`None`: it
    /// leaves the variable as it was).
    type Defaults = Vec<(String, Option<String>)>;

    /// The defaults of the extractors, and each variable's value before anything sets it.
    fn defaults(extractors: &str) -> (Defaults, Vec<(String, String)>) {
        let text = plan_of(&format!(
            r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="s" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree>{extractors}</hashTree>"#
        ));
        let i = inspect(&text, Path::new("t.jmx"), &Options::default());
        let p = i.plan.expect("loads");
        let mut out = Vec::new();
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| {
            out.extend(
                r.after.extract.iter().map(|e| (e.into.clone(), e.default.as_ref().map(|d| d.source().to_string()))),
            )
        });
        let initial = p.vars.initial_values();
        let values = out.iter().map(|(n, _)| (n.clone(), initial[p.vars.get(n).unwrap().index()].clone())).collect();
        (out, values)
    }

    #[test]
    fn an_empty_default_is_no_default_unless_use_empty_default_is_ticked() {
        let regex = |name: &str, extra: &str| {
            format!(
                r#"<RegexExtractor testclass="RegexExtractor" testname="{name}" enabled="true"><stringProp name="RegexExtractor.refname">{name}</stringProp><stringProp name="RegexExtractor.regex">x=(\d+)</stringProp>{extra}</RegexExtractor><hashTree/>"#
            )
        };
        let boundary = |name: &str, default: &str| {
            format!(
                r#"<BoundaryExtractor testclass="BoundaryExtractor" testname="{name}" enabled="true"><stringProp name="BoundaryExtractor.refname">{name}</stringProp><stringProp name="BoundaryExtractor.lboundary">a</stringProp><stringProp name="BoundaryExtractor.rboundary">b</stringProp><stringProp name="BoundaryExtractor.default">{default}</stringProp></BoundaryExtractor><hashTree/>"#
            )
        };
        let css = r#"<HtmlExtractor testclass="HtmlExtractor" testname="c" enabled="true"><stringProp name="HtmlExtractor.refname">c</stringProp><stringProp name="HtmlExtractor.expr">div</stringProp><stringProp name="HtmlExtractor.default"></stringProp></HtmlExtractor><hashTree/>"#;
        let json = r#"<JSONPostProcessor testclass="JSONPostProcessor" testname="j" enabled="true"><stringProp name="JSONPostProcessor.referenceNames">j</stringProp><stringProp name="JSONPostProcessor.jsonPathExprs">$.a</stringProp><stringProp name="JSONPostProcessor.defaultValues"></stringProp></JSONPostProcessor><hashTree/>"#;
        let all = [
            regex("none", ""),
            regex("empty", r#"<stringProp name="RegexExtractor.default"></stringProp>"#),
            regex(
                "use_empty",
                r#"<stringProp name="RegexExtractor.default"></stringProp><boolProp name="RegexExtractor.default_empty_value">true</boolProp>"#,
            ),
            regex("given", r#"<stringProp name="RegexExtractor.default">NOT_FOUND</stringProp>"#),
            boundary("blank", "  "),
            boundary("b_given", " x "),
            css.to_string(),
            json.to_string(),
        ]
        .concat();
        let (found, initial) = defaults(&all);
        let want: Defaults = [
            ("none", None),
            ("empty", None),
            ("use_empty", Some("")),
            ("given", Some("NOT_FOUND")),
            // The Boundary Extractor's test is `isNotBlank`.
            ("blank", None),
            ("b_given", Some(" x ")),
            ("c", None),
            // The JSON Extractor sets its default, empty or not.
            ("j", Some("")),
        ]
        .iter()
        .map(|(n, d)| (n.to_string(), d.map(str::to_string)))
        .collect();
        assert_eq!(found, want);
        // Until something sets them, they are unset: each reads as its own reference.
        for (name, value) in initial {
            assert_eq!(value, format!("${{{name}}}"));
        }
    }
}
