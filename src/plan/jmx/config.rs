//! Configuration elements: user-defined variables (Arguments), header and cookie managers,
//! CSV data sets, random variables, counters and user parameters.

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
];

impl Cx {
    /// User-defined variables: the test plan's, then every enabled Arguments element, in file
    /// order (JMeter merges them all when the test starts).
    pub(super) fn variables(&mut self, plan: &El) -> Result<(), Error> {
        if let Some(udv) = plan.nested("TestPlan.user_defined_variables") {
            self.arguments(plan, udv)?;
        }
        fn walk(cx: &mut Cx, els: &[El]) -> Result<(), Error> {
            for e in els.iter().filter(|e| e.enabled) {
                if e.class == "Arguments" {
                    cx.arguments(e, &e.props)?;
                }
                walk(cx, &e.children)?;
            }
            Ok(())
        }
        walk(self, &plan.children)
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
            let value = self.tmpl(c, props.text_or_empty("Header.value"))?;
            own.push((name, value));
        }
        s.headers.retain(|(k, _)| !own.iter().any(|(o, _)| o.eq_ignore_ascii_case(k)));
        s.headers.extend(own);
        self.report(c, depth, Status::Supported, "headers for the samplers in its scope");
        Ok(())
    }

    pub(super) fn cookie_manager(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.cookies = true;
        let note = if c.flag("CookieManager.clearEachIteration") == Some(true) {
            "a cookie jar per user (cleared each iteration in JMeter; kept here)"
        } else {
            "a cookie jar per user"
        };
        let status =
            if c.flag("CookieManager.clearEachIteration") == Some(true) { Status::Partial } else { Status::Supported };
        self.report(c, depth, status, note);
        Ok(())
    }

    pub(super) fn csv_data_set(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        match self.csv(c) {
            Ok(n) => {
                s.pre.push(Step::Feed(n));
                self.report(c, depth, Status::Supported, format!("data file {}", self.b.data_file(n).path.display()));
            }
            Err(e) if self.lenient => {
                // Its columns are still variables the plan sets while running.
                for name in c.text_or_empty("variableNames").split(',').map(str::trim).filter(|n| !n.is_empty()) {
                    self.b.sym.vars.assign(name);
                }
                self.cannot_read_now(c, depth, e)
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
        let start = self.number(c, c.text("CounterConfig.start").unwrap_or("0"), "start")?;
        let increment = self.number(c, c.text("CounterConfig.incr").unwrap_or("1"), "increment")?;
        let end = match c.text("CounterConfig.end") {
            Some(e) => Some(self.number(c, e, "maximum")?),
            None => None,
        };
        let per_user = c.flag("CounterConfig.per_user").unwrap_or(false);
        let var = self.b.sym.vars.assign(&name);
        let slot = self.b.slot(Slot::Counter);
        s.pre.push(Step::Counter(Box::new(Counter { name, var, start, increment, end, per_user, slot })));
        self.report(c, depth, Status::Supported, "a counter per pass");
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
        let per_iteration = c.flag("UserParameters.per_iteration").unwrap_or(false);
        if per_iteration {
            s.pre.push(step);
        } else {
            let slot = self.b.slot(Slot::Once);
            s.pre.push(Step::Once(Box::new(Once { steps: vec![step], per_loop: false, slot })));
        }
        self.report(c, depth, Status::Supported, "values per user");
        Ok(())
    }

    pub(super) fn csv(&mut self, c: &El) -> Result<usize, Error> {
        let name = self.expand(c, c.text_or_empty("filename"))?;
        if name.trim().is_empty() {
            return Err(self.err(c, "the CSV Data Set has no file name"));
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
        let data = csv_data::read_csv(&path, &opts).map_err(|e| {
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
        let share = match c.text("shareMode").unwrap_or("shareMode.all") {
            "shareMode.thread" => Share::User,
            "shareMode.group" => Share::Scenario,
            _ => Share::All,
        };
        let index = self.b.data(path, data, share, on_eof);
        // A blank line stops the thread whether or not the file recycles (CSVDataSet.iterationStart).
        let spec = self.b.data_file_mut(index);
        spec.stop_on_empty_row = stop_thread;
        // A short row leaves the other variables unset, and JMeter sends `${name}` as it is.
        for id in spec.columns.clone() {
            self.b.sym.vars.unset_as_reference(id);
        }
        Ok(index)
    }
}
