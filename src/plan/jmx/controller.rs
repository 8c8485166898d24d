//! Logic controllers: simple, loop, once-only, transaction, if, while, for-each, switch,
//! random, throughput, and the Flow Control Action sampler.

use super::*;

/// The controllers, by class.
pub(super) const ELEMENTS: &[(&str, StepsFn)] = &[
    ("GenericController", Cx::generic),
    ("LoopController", Cx::loop_controller),
    ("OnceOnlyController", Cx::once_only),
    ("TransactionController", Cx::transaction),
    ("IfController", Cx::if_or_while),
    ("WhileController", Cx::if_or_while),
    ("ForeachController", Cx::for_each),
    ("SwitchController", Cx::switch),
    ("RandomController", Cx::random),
    ("RandomOrderController", Cx::random_order),
    ("RunTime", Cx::runtime),
    ("CriticalSectionController", Cx::critical_section),
    ("ThroughputController", Cx::throughput),
    ("TestAction", Cx::test_action),
    ("RecordingController", Cx::generic),
    ("InterleaveControl", Cx::interleave),
    ("kg.apc.jmeter.control.sampler.SetVariablesAction", Cx::set_variables_action),
    ("kg.apc.jmeter.control.ParameterizedController", Cx::parameterized),
    ("com.blazemeter.jmeter.control.WeightedSwitchController", Cx::weighted_switch),
    ("com.blazemeter.jmeter.controller.ParallelSampler", Cx::parallel),
];

impl Cx {
    pub(super) fn generic(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        self.report(c, depth, Status::Supported, "a sequence");
        self.controller_body(&c.children, scope, depth + 1)
    }

    pub(super) fn loop_controller(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let loops = c.text_or_empty("LoopController.loops").to_string();
        // JMeter loops forever on any negative count (`continue_forever` only matters to
        // the GUI); a `${__P(n,-1)}` count is decided at run time the same way.
        let forever = loops.trim().parse::<i64>().is_ok_and(|n| n < 0);
        let count = if forever { None } else { Some(self.tmpl(c, loops.trim())?) };
        self.report(
            c,
            depth,
            Status::Supported,
            format!("a loop ({})", if count.is_some() { loops.trim() } else { "forever" }),
        );
        let index = Some(self.loop_index(c, 0));
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        let slot = self.b.slot(Slot::Loop);
        // Without a count the loop runs until the scenario ends.
        Ok(vec![Step::Loop(Box::new(flow::Loop { count, condition: None, steps, enter_first: false, slot, index }))])
    }

    pub(super) fn once_only(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        self.report(c, depth, Status::Supported, "once per user");
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        let slot = self.b.slot(Slot::Once);
        Ok(vec![Step::Once(Box::new(Once { steps, per_loop: true, slot }))])
    }

    pub(super) fn transaction(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let parent = c.flag("TransactionController.parent").unwrap_or(false);
        // JMeter's default (when the property is absent) includes timers.
        let wall_clock = c.flag("TransactionController.includeTimers").unwrap_or(true);
        let (status, note) = (
            Status::Supported,
            format!(
                "{}, {}",
                if parent {
                    "one sample for its requests, which are not recorded apart"
                } else {
                    "one more sample for its requests"
                },
                if wall_clock { "timed from start to end, think times included" } else { "the sum of their times" }
            ),
        );
        self.report(c, depth, status, note);
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        let label = self.b.label(&c.name);
        self.run_time_label(c, &c.name, label);
        let slot = self.b.slot(Slot::Group);
        Ok(vec![Step::Group(Box::new(flow::Group { label, parent, wall_clock, steps, slot }))])
    }

    /// A While Controller's condition text, read as JMeter's WhileController.endOfLoop reads
    /// it when tested: `false` ends the loop, blank reads the last sample.
    fn while_text(&mut self, c: &El, text: Template) -> Result<condition::Condition<Template>, Error> {
        let last = format!("${{{LAST_SAMPLE_OK}}}");
        let last_ok = template::compile(&last, &mut self.b.sym, &describe(c)).map_err(|m| self.err(c, m))?;
        Ok(condition::Condition::WhileText { text, last_ok })
    }

    pub(super) fn if_or_while(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let is_if = c.class == "IfController";
        let raw = if is_if {
            c.text_or_empty("IfController.condition")
        } else {
            c.text_or_empty("WhileController.condition")
        };
        if is_if && raw.trim().is_empty() {
            // JMeter's IfController evaluates an empty condition (a script or an expression)
            // as false: the children are read, and never run.
            let what = "the condition is empty: JMeter reads it as false, its children never run";
            self.warn(c, depth, what);
            let then = self.controller_body(&c.children, scope, depth + 1)?;
            let condition =
                flow::Cond { src: String::new(), expr: condition::Condition::Truthy(Template::literal("")) };
            return Ok(vec![Step::If(Box::new(flow::If { condition, then, otherwise: Vec::new() }))]);
        }
        let src = unwrap_expression(raw.trim());
        // JMeter's While Controller (WhileController.endOfLoop) ends the loop when the condition's
        // text reads `false` in any case, or with `LAST` when the last sample failed; an empty
        // condition is tested only at the end of a pass, so the first pass always runs.
        let mut enter_first = !is_if && src.is_empty();
        let src = if !is_if && (enter_first || src.eq_ignore_ascii_case("LAST")) {
            format!("${{{LAST_SAMPLE_OK}}}")
        } else {
            src
        };
        let mut failed = None;
        let use_expression = !is_if || c.flag("IfController.useExpression").unwrap_or(false);
        // Script text — unwrapped from `${__groovy(...)}` and the like, or an If Controller's
        // JavaScript — is compared as template text only when it has no words of its own
        // (`vars.get("x")`); a While's or an expression If's text is template text, as JMeter
        // reads it (`condition` loops until it reads `false`).
        let script_text = src != raw.trim() || !use_expression;
        let parsed = if !script_text || template::is_plain_comparison(&src) {
            condition::parse(&src, |operand| {
                template::compile(operand, &mut self.b.sym, &describe(c)).inspect_err(|m| failed = Some(m.clone()))
            })
        } else {
            Err(condition::ConditionError::Syntax("a script".into()))
        };
        let mut warning = None;
        let (src, expr) = match parsed {
            Ok(condition::Condition::Truthy(t)) if !is_if => (src, self.while_text(c, t)?),
            Ok(e) => (src, e),
            // Beyond comparisons: the script runs in the interpreter (JMeter's JavaScript for an
            // If Controller's condition, or the `${__groovy(...)}` its text calls).
            Err(m) => {
                let raw = raw.trim();
                let compiled = if use_expression {
                    template::compile(raw, &mut self.b.sym, &describe(c))
                } else {
                    template::js_condition(raw, &mut self.b.sym, &describe(c))
                };
                match compiled {
                    Ok(t) if use_expression && !t.is_const() => {
                        let e = if is_if { condition::Condition::Truthy(t) } else { self.while_text(c, t)? };
                        (raw.to_string(), e)
                    }
                    Ok(t) if !use_expression => (raw.to_string(), condition::Condition::Truthy(t)),
                    Ok(_) => {
                        self.unsupported(
                            c,
                            depth,
                            &format!("the condition `{raw}` is not one stampede can evaluate ({m})"),
                        );
                        return Ok(Vec::new());
                    }
                    // A While condition whose function's script does not parse (a syntax error
                    // JMeter's engine raises too) is blank in JMeter, each time: the loop runs
                    // while the last sample succeeds, its first pass always. stampede's own
                    // limits (a function, binding or class it lacks) stay unsupported: JMeter
                    // runs those.
                    Err(e) if !is_if && e.is_script_syntax() => {
                        warning = Some(format!(
                            "the condition `{raw}` fails ({e}): read as blank, as in JMeter, so the loop runs while the last sample succeeds"
                        ));
                        enter_first = true;
                        let last = format!("${{{LAST_SAMPLE_OK}}}");
                        let t = template::compile(&last, &mut self.b.sym, &describe(c)).map_err(|m| self.err(c, m))?;
                        (last, condition::Condition::NotFalse(t))
                    }
                    // An If condition whose script does not parse: JMeter's IfController logs
                    // "error while processing" at each evaluation and reads false (a function's
                    // script that fails reads blank, not `true`), so the children never run.
                    Err(e) if is_if && e.is_script_syntax() => {
                        let what = format!(
                            "the condition `{raw}` fails ({e}): JMeter reads it as false at each evaluation, its children never run"
                        );
                        self.warn(c, depth, what);
                        let then = self.controller_body(&c.children, scope, depth + 1)?;
                        let condition = flow::Cond {
                            src: raw.to_string(),
                            expr: condition::Condition::Truthy(Template::literal("")),
                        };
                        return Ok(vec![Step::If(Box::new(flow::If { condition, then, otherwise: Vec::new() }))]);
                    }
                    Err(e) => {
                        self.unsupported(c, depth, &format!("the condition `{raw}` cannot be evaluated: {e}"));
                        return Ok(Vec::new());
                    }
                }
            }
        };
        let cond = flow::Cond { src: src.clone(), expr };
        match warning {
            Some(w) => self.warn(c, depth, w),
            None => self.report(c, depth, Status::Supported, format!("{} `{src}`", if is_if { "if" } else { "while" })),
        }
        let index = (!is_if).then(|| self.loop_index(c, 0));
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        if is_if {
            // "Evaluate for all children": JMeter tests the condition again before each child,
            // and once it is false skips the rest of the pass — an `if` nested per child.
            let then = if c.flag("IfController.evaluateAll").unwrap_or(false) {
                steps.into_iter().rev().fold(Vec::new(), |rest, step| {
                    let mut here = vec![step];
                    if !rest.is_empty() {
                        here.push(Step::If(Box::new(flow::If {
                            condition: cond.clone(),
                            then: rest,
                            otherwise: Vec::new(),
                        })));
                    }
                    here
                })
            } else {
                steps
            };
            return Ok(vec![Step::If(Box::new(flow::If { condition: cond, then, otherwise: Vec::new() }))]);
        }
        let slot = self.b.slot(Slot::Loop);
        Ok(vec![Step::Loop(Box::new(flow::Loop {
            count: None,
            condition: Some(cond),
            steps,
            enter_first,
            slot,
            index,
        }))])
    }

    pub(super) fn for_each(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let prefix = c.text_or_empty("ForeachController.inputVal").trim().to_string();
        let into = c.text_or_empty("ForeachController.returnVal").trim().to_string();
        // JMeter reads no check here: without a prefix it looks for `_1`, `_2`... (which
        // nothing usually sets: the loop does not run), and without an output variable it
        // sets the variable of empty name.
        let sep = if c.flag("ForeachController.useSeparator").unwrap_or(true) { "_" } else { "" };
        // JMeter reads the prefix on each pass and the start index when the loop resets: one
        // set while the test runs is read then.
        let prefix_t = self.tmpl(c, &prefix)?;
        let start_t = c.text("ForeachController.startIndex").map(|v| self.tmpl(c, v)).transpose()?;
        if prefix_t.is_dynamic(&self.b.sym.vars) || start_t.as_ref().is_some_and(|t| t.is_dynamic(&self.b.sym.vars)) {
            return self.for_each_at_run_time(c, scope, depth, prefix_t, start_t, sep, &into);
        }
        let prefix = self.expand(c, &prefix)?;
        let start: u64 = match c.text("ForeachController.startIndex") {
            Some(v) => self.number(c, v, "start index")?,
            None => 0,
        };
        // JMeter goes on while `prefix_N` is defined, up to the end index when one is
        // given; it never reads `prefix_matchNr`. Here an empty value ends the loop.
        let mut end_at_run_time = None;
        let count = match c.text("ForeachController.endIndex") {
            Some(end) => {
                // JMeter reads the end index as each pass starts: one set while the test runs
                // is read then.
                let t = self.tmpl(c, end)?;
                if t.is_dynamic(&self.b.sym.vars) {
                    end_at_run_time = Some(t);
                    None
                } else {
                    let end: u64 = self.number(c, end, "end index")?;
                    Some(Template::literal(end.saturating_sub(start).to_string()))
                }
            }
            None => None,
        };
        let from = (1..=http::MAX_ALL_MATCHES as u64)
            .map(|i| self.b.sym.vars.assign(&format!("{prefix}{sep}{}", start.saturating_add(i))))
            .collect();
        let into_var = self.b.sym.vars.assign(&into);
        let index = Some(self.loop_index(c, start));
        let slot = self.b.slot(Slot::Loop);
        self.report(
            c,
            depth,
            Status::Supported,
            format!("${{{into}}} takes ${{{prefix}{sep}1}}, ${{{prefix}{sep}2}}, ..."),
        );
        let pick = flow::Pick {
            slot,
            offset: start,
            from,
            into: into_var,
            name: into.clone(),
            end: end_at_run_time,
            at: None,
        };
        let mut steps = vec![Step::Pick(Box::new(pick))];
        steps.extend(self.controller_body(&c.children, scope, depth + 1)?);
        Ok(vec![Step::Loop(Box::new(flow::Loop { count, condition: None, steps, enter_first: false, slot, index }))])
    }

    /// A ForEach Controller whose input prefix or start index holds variables set while the
    /// test runs: the names it reads are made on each pass (the end index, constant or not,
    /// is read per pass too, as it counts from the start).
    #[allow(clippy::too_many_arguments)]
    fn for_each_at_run_time(
        &mut self,
        c: &El,
        scope: &Scope,
        depth: usize,
        prefix: Template,
        start: Option<Template>,
        sep: &str,
        into: &str,
    ) -> Result<Vec<Step>, Error> {
        let end = match c.text("ForeachController.endIndex") {
            Some(end) => Some(self.tmpl(c, end)?),
            None => None,
        };
        let index = self.loop_index(c, 0);
        let slot = self.b.slot(Slot::Loop);
        let start_at = self.b.sym.vars.assign(&format!("__stampede_foreach_{slot}_start"));
        self.report(
            c,
            depth,
            Status::Supported,
            format!("${{{into}}} takes ${{{}{sep}N}} from the start index, read for each pass", prefix.source()),
        );
        let at = flow::PickAt {
            prefix,
            sep: sep.to_string(),
            start: start.unwrap_or_else(|| Template::literal("0")),
            start_at,
            index: index.var,
        };
        let into_var = self.b.sym.vars.assign(into);
        let pick = flow::Pick {
            slot,
            offset: 0,
            from: Vec::new(),
            into: into_var,
            name: into.to_string(),
            end,
            at: Some(Box::new(at)),
        };
        let mut steps = vec![Step::Pick(Box::new(pick))];
        steps.extend(self.controller_body(&c.children, scope, depth + 1)?);
        let index = Some(index);
        Ok(vec![Step::Loop(Box::new(flow::Loop {
            count: None,
            condition: None,
            steps,
            enter_first: false,
            slot,
            index,
        }))])
    }

    /// JMeter 5's pass index of a Loop, While or ForEach Controller: the variable
    /// `__jm__<controller name>__idx` (`IteratingController.updateIterationIndex`).
    fn loop_index(&mut self, c: &El, offset: u64) -> flow::LoopIndex {
        let var = self.b.sym.vars.assign(&format!("__jm__{}__idx", c.name));
        // Before its loop first runs, JMeter leaves the reference as text.
        self.b.sym.vars.unset_as_reference(var);
        flow::LoopIndex { var, offset }
    }

    pub(super) fn switch(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let value = self.tmpl(c, c.text_or_empty("SwitchController.value"))?;
        self.report(c, depth, Status::Supported, format!("one child by the value `{}`", value.source()));
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let mut branches = Vec::new();
        for child in c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)) {
            let steps = self.sampler_or_controller(child, &own, depth + 1)?;
            branches.push((child.name.clone(), steps));
        }
        let mut steps = own.pre;
        steps.push(Step::Switch(Box::new(flow::Switch { value, branches, rotate: None })));
        Ok(steps)
    }

    pub(super) fn random(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        self.report(c, depth, Status::Supported, "one child at random per pass");
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let mut branches = Vec::new();
        for child in c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)) {
            let steps = self.sampler_or_controller(child, &own, depth + 1)?;
            branches.push(Branch { weight: 1.0, steps });
        }
        let mut steps = own.pre;
        if !branches.is_empty() {
            steps.push(Step::Mix(branches));
        }
        Ok(steps)
    }

    /// Random Order Controller: each child once per pass, in a new random order each pass
    /// (JMeter's RandomOrderController shuffles its children on every pass).
    pub(super) fn random_order(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        self.report(c, depth, Status::Supported, "each child once per pass, in random order");
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let mut branches = Vec::new();
        for child in c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)) {
            branches.push(self.sampler_or_controller(child, &own, depth + 1)?);
        }
        let mut steps = own.pre;
        if !branches.is_empty() {
            let slot = self.b.slot(Slot::Counter);
            for _ in &branches {
                self.b.slot(Slot::Counter);
            }
            steps.push(Step::Shuffle(Box::new(flow::Shuffle { branches, slot })));
        }
        Ok(steps)
    }

    /// Runtime Controller: its children again and again until `RunTime.seconds` have passed
    /// since it was entered, checked before each sample and at the end of each pass (JMeter's
    /// RunTime); a time that is not a whole number above 0 skips them.
    pub(super) fn runtime(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let raw = c.text_or_empty("RunTime.seconds");
        let seconds = self.tmpl(c, raw)?;
        self.report(c, depth, Status::Supported, format!("its children again and again for {raw} s"));
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        // Without a sampler or controller, JMeter's RunTime.isDone skips it.
        if !c.children.iter().any(|e| e.enabled && is_sampler_or_controller(&e.class)) {
            return Ok(Vec::new());
        }
        let slot = self.b.slot(Slot::Counter);
        Ok(vec![Step::Runtime(Box::new(flow::Runtime { seconds, steps, slot }))])
    }

    /// Critical Section Controller: its children run by one user at a time per lock name, the
    /// lock shared by every user of the run (JMeter's CriticalSectionController).
    pub(super) fn critical_section(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let raw = c.text_or_empty("CriticalSectionController.lockName");
        let lock = self.tmpl(c, raw)?;
        self.report(c, depth, Status::Supported, format!("one user at a time (lock `{raw}`)"));
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        let slot = self.b.slot(Slot::Counter);
        Ok(vec![Step::Critical(Box::new(flow::Critical { lock, steps, slot }))])
    }

    /// BlazeMeter's Parallel Controller (a sampler in JMeter's eyes): each sampler or
    /// controller directly under it is a branch, run at the same time as the others. As for
    /// any sampler, the timers and pre-processors of its scope run before it; the elements
    /// under it apply to each branch.
    pub(super) fn parallel(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let generate = c.flag("PARENT_SAMPLE").unwrap_or(false);
        // The plugin's defaults: no limit (a cached thread pool), else 6 threads.
        let max = if c.flag("LIMIT_MAX_THREAD_NUMBER").unwrap_or(false) {
            let raw = c.text("MAX_THREAD_NUMBER").unwrap_or("6").trim().to_string();
            Some(self.number::<u32>(c, &raw, "maximum number of threads")?)
        } else {
            None
        };
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let note = format!(
            "each child at the same time{}; {}",
            max.map_or(String::new(), |m| format!(", at most {m} at once")),
            if generate {
                "one sample for their requests, which are its sub-results (rows not counted again in the total)"
            } else {
                "their requests recorded as their own"
            }
        );
        self.report(c, depth, Status::Supported, note);
        // With a parent sample, a listener sees it alone (its children are its sub-results):
        // what the children's walk adds to the AutoStop Listeners' labels is taken back.
        let seen: Vec<usize> = self.autostops.iter().map(|(_, a)| a.labels.as_ref().map_or(0, Vec::len)).collect();
        let mut branches = Vec::new();
        for child in &c.children {
            if !is_sampler_or_controller(&child.class) {
                continue;
            }
            if !child.enabled {
                self.report(child, depth + 1, Status::Disabled, "disabled: skipped");
                continue;
            }
            branches.push(self.sampler_or_controller(child, &own, depth + 1)?);
        }
        if generate {
            for ((_, a), n) in self.autostops.iter_mut().zip(seen) {
                if let Some(labels) = &mut a.labels {
                    labels.truncate(n);
                }
            }
        }
        let parent = generate.then(|| self.b.label(&c.name));
        let slot = self.b.slot(Slot::Group);
        let mut steps = own.pre.clone();
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        steps.push(Step::Parallel(Box::new(flow::Parallel { branches, parent, max, on_error: own.on_error, slot })));
        // Post-processors run on the sample the controller returns: none without a parent.
        if generate {
            steps.extend(own.after.iter().cloned());
        }
        Ok(steps)
    }

    pub(super) fn throughput(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let per_user = c.flag("ThroughputController.perThread").unwrap_or(false);
        let style = c.text("ThroughputController.style").unwrap_or("0");
        // A value that is no number: JMeter logs "Error parsing" and reads its own default,
        // 100 percent or 1 execution.
        let mut fallback = None;
        let share = if style.trim() == "1" {
            let raw = percent_value(c);
            let p: f64 = self.number_or_text(c, &raw, "percent")?.unwrap_or_else(|v| {
                fallback =
                    Some(format!("percent `{v}` is not a number: JMeter reads 100, its children run every pass"));
                100.0
            });
            ThroughputShare::Percent(p)
        } else {
            let raw = c.text("ThroughputController.maxThroughput").unwrap_or("1").to_string();
            let n = self.number_or_text(c, &raw, "total executions")?.unwrap_or_else(|v| {
                fallback =
                    Some(format!("total executions `{v}` is not a number: JMeter reads 1, its children run once"));
                1
            });
            ThroughputShare::Total(n)
        };
        match fallback {
            Some(what) => self.warn(c, depth, what),
            None => self.report(c, depth, Status::Supported, format!("{share:?} of passes")),
        }
        let steps = self.controller_body(&c.children, scope, depth + 1)?;
        let slot = self.b.slot(Slot::Throughput);
        Ok(vec![Step::Throughput(Box::new(Throughput { share, per_user, steps, slot }))])
    }

    /// Flow Control Action: a pause or a stop.
    pub(super) fn test_action(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let action = c.text("ActionProcessor.action").unwrap_or("1").trim().to_string();
        let target_all = c.text("ActionProcessor.target").unwrap_or("0").trim() == "2";
        let stop = match action.as_str() {
            "0" | "2" if target_all => Some(flow::StopKind::Run),
            "0" | "2" => Some(flow::StopKind::User),
            "3" => Some(flow::StopKind::NextIteration),
            "4" => Some(flow::StopKind::ContinueLoop),
            "5" => Some(flow::StopKind::BreakLoop),
            _ => None,
        };
        if let Some(kind) = stop {
            self.report(c, depth, Status::Supported, format!("stop: {}", listener::stop_name(kind)));
            return Ok(vec![Step::Stop(kind)]);
        }
        if action == "1" {
            let raw = c.text("ActionProcessor.duration").unwrap_or("0");
            // JMeter logs "Could not parse number" and pauses for none.
            let ms: f64 = match self.number_or_text(c, raw, "duration")? {
                Ok(ms) => {
                    self.report(c, depth, Status::Supported, "a pause");
                    ms
                }
                Err(v) => {
                    self.warn(c, depth, format!("the duration `{v}` is not a number: JMeter reads 0, no pause"));
                    0.0
                }
            };
            let own = self.scope_of(&c.children, scope, depth + 1)?;
            let mut steps: Vec<Step> = own.before.clone();
            steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
            steps.push(Step::Think(Think::Pause(self.millis(c, ms, "duration")?)));
            Ok(steps)
        } else {
            self.unsupported(c, depth, &format!("the action `{action}` is not one JMeter knows (0 to 5)"));
            Ok(Vec::new())
        }
    }
}

impl Cx {
    /// Interleave Controller: each pass through it runs its next child (a sampler, or a
    /// sub-controller's whole block), from the first, or with "interleave across threads" from
    /// child (thread number mod children).
    pub(super) fn interleave(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let kids: Vec<&El> = c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)).collect();
        let ignore_blocks = c.text("InterleaveControl.style").is_some_and(|v| v.trim() == "0");
        let by_user = c.flag("InterleaveControl.accrossThreads").unwrap_or(false);
        let controllers = kids.iter().filter(|k| is_controller(&k.class)).count();
        // "Ignore sub-controller blocks": JMeter takes one sampler of a sub-controller per turn,
        // going on inside it on its next turn. A sub-controller that runs one sampler per pass
        // anyway (an Interleave or Random Controller of samplers) runs the same either way.
        let one_per_pass = |k: &&El| {
            !is_controller(&k.class)
                || (matches!(k.class.as_str(), "InterleaveControl" | "RandomController")
                    && k.children.iter().all(|g| !g.enabled || !is_controller(&g.class)))
        };
        if ignore_blocks && !kids.iter().all(one_per_pass) {
            self.unsupported(
                c,
                depth,
                "\"ignore sub-controller blocks\" with a sub-controller that runs several samplers per pass is not supported",
            );
            return Ok(Vec::new());
        }
        let mut note = format!(
            "one child per pass, in turn{}",
            if by_user { ", each user starting at its number mod the children" } else { "" }
        );
        let mut status = Status::Supported;
        if controllers > 0 {
            status = Status::Partial;
            note.push_str("; a sub-controller that runs no sampler on its turn takes the pass (JMeter moves on to the next child)");
        }
        self.report(c, depth, status, note);
        let mut branches = Vec::new();
        for child in kids {
            let steps = self.sampler_or_controller(child, &own, depth + 1)?;
            branches.push((child.name.clone(), steps));
        }
        let mut steps = own.pre;
        if !branches.is_empty() {
            let rotate = Some(flow::Rotate { slot: self.b.slot(Slot::Counter), by_user, weights: Vec::new() });
            steps.push(Step::Switch(Box::new(flow::Switch { value: Template::literal(""), branches, rotate })));
        }
        Ok(steps)
    }

    /// The plugins' Set Variables Action: sets its variables when reached; no sample.
    pub(super) fn set_variables_action(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let mut steps = own.pre.clone();
        steps.extend(own.before.iter().cloned());
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        let mut assigns: Vec<flow::Assign> = Vec::new();
        let args = c.nested("SetVariablesAction").and_then(|a| a.collection("Arguments.arguments")).unwrap_or_default();
        for a in args {
            let Value::Element { props, .. } = &a.value else { continue };
            let name = props.text_or_empty("Argument.name").to_string();
            let raw = props.text_or_empty("Argument.value").to_string();
            let value = self.tmpl(c, &raw)?;
            let var = self.b.sym.vars.assign(&name);
            // A name given twice keeps its last value, as the plugin's map does.
            assigns.retain(|x| x.name != name);
            assigns.push(flow::Assign { var, name: name.clone(), value: (raw, value) });
        }
        let names: Vec<&str> = assigns.iter().map(|a| a.name.as_str()).collect();
        self.report(c, depth, Status::Supported, format!("sets {} (no sample)", names.join(", ")));
        if !assigns.is_empty() {
            steps.push(Step::Set(assigns));
        }
        steps.extend(own.after.iter().cloned());
        Ok(steps)
    }

    /// The plugins' Parameterized Controller: a Simple Controller that sets its variables each
    /// time JMeter asks it for its next sampler (`next()`): before each sampler inside it
    /// (ahead of their pre-processors), once more after each child controller (the call that
    /// finds it done), and as it ends; they stay set after it.
    pub(super) fn parameterized(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let mut assigns: Vec<flow::Assign> = Vec::new();
        let args = c.nested("ParameterizedController").and_then(|a| a.collection("Arguments.arguments"));
        for a in args.unwrap_or_default() {
            let Value::Element { props, .. } = &a.value else { continue };
            let name = props.text_or_empty("Argument.name").to_string();
            // `Arguments.getArgumentsAsMap` keeps the first value of a name given twice.
            if assigns.iter().any(|x| x.name == name) {
                continue;
            }
            let raw = props.text_or_empty("Argument.value").to_string();
            let value = self.tmpl(c, &raw)?;
            let var = self.b.sym.vars.assign(&name);
            assigns.push(flow::Assign { var, name, value: (raw, value) });
        }
        let names: Vec<&str> = assigns.iter().map(|a| a.name.as_str()).collect();
        let note = match names.is_empty() {
            true => "a sequence (no variables)".to_string(),
            false => format!(
                "a sequence; sets {} before each sampler in it, after each controller in it and as it ends",
                names.join(", ")
            ),
        };
        self.report(c, depth, Status::Supported, note);
        if assigns.is_empty() {
            return self.controller_body(&c.children, scope, depth + 1);
        }
        // An enclosing Parameterized Controller's `next()` runs first and calls this one's:
        // its variables are set before these, and both before any pre-processor.
        let mut outer = scope.clone();
        let at = outer.before.iter().take_while(|s| matches!(s, Step::Set(_))).count();
        outer.before.insert(at, Step::Set(assigns.clone()));
        let inner = self.scope_of(&c.children, &outer, depth + 1)?;
        let mut steps = inner.pre.clone();
        for child in c.children.iter().filter(|k| is_sampler_or_controller(&k.class)) {
            if !child.enabled {
                self.report(child, depth + 1, Status::Disabled, "disabled: skipped");
                continue;
            }
            steps.extend(self.sampler_or_controller(child, &inner, depth + 1)?);
            // The call that finds a child controller done sets them too, then asks again.
            if is_controller(&child.class) && child.class != "kg.apc.jmeter.control.sampler.SetVariablesAction" {
                steps.push(Step::Set(assigns.clone()));
            }
        }
        steps.push(Step::Set(assigns));
        Ok(steps)
    }

    /// BlazeMeter's Weighted Switch Controller: one enabled child per pass, by weight. With
    /// "random choice" a draw picks it; without, the child whose share of this user's passes
    /// is furthest below its weight (the plugin's `getIndex`).
    pub(super) fn weighted_switch(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let random = c.flag("IsRandomChoice") == Some(true);
        // Rows (name, weight, enabled) follow the children in order; a row marked disabled
        // (its child disabled) is left out, as the plugin does.
        let mut weights = Vec::new();
        for row in c.collection("Weights").unwrap_or_default() {
            let Value::Collection(cells) = &row.value else { continue };
            let cell = |i: usize| match cells.get(i).map(|p| &p.value) {
                Some(Value::Text(t)) => t.trim().to_string(),
                _ => String::new(),
            };
            if cells.len() < 3 || cell(2) == "true" {
                let w =
                    cell(1).parse::<u64>().map_err(|_| self.err(c, format!("weight `{}` is not a number", cell(1))))?;
                weights.push(w as f64);
            }
        }
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let how = if random { "drawn at random by weight" } else { "the one furthest below its weight's share" };
        self.report(c, depth, Status::Supported, format!("one child per pass, {how}"));
        let kids: Vec<&El> = c.children.iter().filter(|e| e.enabled && is_sampler_or_controller(&e.class)).collect();
        let mut branches = Vec::new();
        for child in kids.into_iter().take(weights.len()) {
            branches.push(self.sampler_or_controller(child, &own, depth + 1)?);
        }
        let mut steps = own.pre;
        let sum: f64 = weights.iter().sum();
        if branches.is_empty() || sum <= 0.0 {
            return Ok(steps);
        }
        if random {
            let mix = branches.into_iter().zip(&weights).map(|(steps, w)| Branch { weight: *w, steps }).collect();
            steps.push(Step::Mix(mix));
        } else {
            let slot = self.b.slot(Slot::Counter);
            for _ in &weights {
                self.b.slot(Slot::Counter);
            }
            let weights = weights.iter().map(|w| w / sum).collect();
            let rotate = Some(flow::Rotate { slot, by_user: false, weights });
            let branches = branches.into_iter().map(|b| (String::new(), b)).collect();
            steps.push(Step::Switch(Box::new(flow::Switch { value: Template::literal(""), branches, rotate })));
        }
        Ok(steps)
    }
}

/// A controller (not a sampler) among a controller's children.
fn is_controller(class: &str) -> bool {
    is_sampler_or_controller(class)
        && !class.ends_with("Sampler")
        && !class.ends_with("SamplerProxy")
        && class != "TestAction"
}

/// JMeter keeps the percentage as a FloatProperty inside an elementProp, or as a string.
fn percent_value(c: &El) -> String {
    if let Some(t) = c.text("ThroughputController.percentThroughput") {
        return t.to_string();
    }
    if let Some(props) = c.nested("ThroughputController.percentThroughput") {
        if let Some(v) = props.text("value") {
            return v.to_string();
        }
    }
    "100".into()
}

/// The condition inside JMeter's usual wrappers: `${__jexl3(...)}`, `${__groovy(...)}` and
/// `${__javaScript(...)}` hold an expression whose comparisons read as stampede's conditions
/// (`"${role}" == "admin" && ${n} > 2`); any other text is taken as it is.
fn unwrap_expression(raw: &str) -> String {
    for f in ["${__jexl3(", "${__jexl2(", "${__groovy(", "${__javaScript("] {
        if let Some(inner) = raw.strip_prefix(f).and_then(|r| r.strip_suffix(")}")) {
            // A second argument (a variable to store the result in, often empty: JMeter's
            // function helper writes `${__jexl3(expr,)}`) is dropped.
            let inner = match inner.rsplit_once(',') {
                Some((expr, var)) if !var.trim().contains(['"', '\'', ' ', '=', ')', '(']) => expr,
                _ => inner,
            };
            return inner.trim().to_string();
        }
    }
    raw.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Parameterized Controller sets its variables before each sampler in it (ahead of
    /// pre-processors), after each child controller and at its end; the first value of a name
    /// given twice; a nested one's after the outer's.
    #[test]
    fn parameterized_controller_sets_before_each_sampler_after_each_controller_and_at_the_end() {
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let pc = |name: &str, args: &[(&str, &str)], children: &str| {
            let a: String = args
                .iter()
                .map(|(n, v)| format!(r#"<elementProp name="{n}" elementType="Argument"><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{v}</stringProp></elementProp>"#))
                .collect();
            format!(
                r#"<kg.apc.jmeter.control.ParameterizedController testclass="kg.apc.jmeter.control.ParameterizedController" testname="{name}" enabled="true"><elementProp name="ParameterizedController" elementType="Arguments"><collectionProp name="Arguments.arguments">{a}</collectionProp></elementProp></kg.apc.jmeter.control.ParameterizedController><hashTree>{children}</hashTree>"#
            )
        };
        let body = pc(
            "outer",
            &[("a", "1"), ("a", "2"), ("b", "x")],
            &(http("s1") + &pc("inner", &[("b", "y")], &http("s2"))),
        );
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree></hashTree></hashTree></jmeterTestPlan>"#
        );
        let (p, report) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
        let seq: Vec<String> = p.scenarios[0]
            .flow
            .iter()
            .map(|s| match s {
                Step::Set(a) => a.iter().map(|a| format!("{}={}", a.name, a.value.0)).collect::<Vec<_>>().join(","),
                Step::Sample(Sampler::Http(_)) => "req".to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(seq, ["a=1,b=x", "req", "a=1,b=x", "b=y", "req", "b=y", "a=1,b=x", "a=1,b=x"]);
        let r = report.iter().find(|r| r.name == "outer").unwrap();
        assert_eq!(r.status, Status::Supported);
    }

    /// Weighted Switch with random choice: a mix weighted by its enabled rows; without, the
    /// plugin's deterministic choice over the same weights.
    #[test]
    fn weighted_switch_draws_by_the_weights_of_enabled_rows() {
        let row = |w: &str, on: &str| {
            format!(
                r#"<collectionProp name="r"><stringProp name="1">x</stringProp><stringProp name="2">{w}</stringProp><stringProp name="3">{on}</stringProp></collectionProp>"#
            )
        };
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let plan = |random: bool| {
            format!(
                r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
                <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
                <com.blazemeter.jmeter.control.WeightedSwitchController testclass="com.blazemeter.jmeter.control.WeightedSwitchController" testname="w" enabled="true">
                <collectionProp name="Weights">{}{}{}</collectionProp><boolProp name="IsRandomChoice">{random}</boolProp>
                </com.blazemeter.jmeter.control.WeightedSwitchController><hashTree>{}{}</hashTree></hashTree></hashTree></hashTree></jmeterTestPlan>"#,
                row("30", "true"),
                row("50", "false"),
                row("70", "true"),
                http("a"),
                http("b")
            )
        };
        let (p, _) = read(&plan(true), Path::new("t.jmx"), &Options::default()).unwrap();
        let Some(Step::Mix(b)) = p.scenarios[0].flow.iter().find(|s| matches!(s, Step::Mix(_))) else { panic!() };
        assert_eq!(b.iter().map(|b| b.weight).collect::<Vec<_>>(), [30.0, 70.0]);
        let (p, _) = read(&plan(false), Path::new("t.jmx"), &Options::default()).unwrap();
        let Some(Step::Switch(s)) = p.scenarios[0].flow.iter().find(|s| matches!(s, Step::Switch(_))) else { panic!() };
        assert_eq!(s.rotate.as_ref().map(|r| r.weights.clone()), Some(vec![0.3, 0.7]));
    }

    /// A While Controller's text is template text, not a script: a plain word loops until it
    /// reads `false` (Blazemeter's controllers.jmx writes `condition`).
    #[test]
    fn a_while_condition_of_plain_text_is_text() {
        let plan = r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
            <WhileController testclass="WhileController" testname="w" enabled="true"><stringProp name="WhileController.condition">condition</stringProp></WhileController><hashTree>
            <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="a" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/></hashTree>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#;
        let (p, _) = read(plan, Path::new("t.jmx"), &Options::default()).unwrap();
        let Some(Step::Loop(l)) = p.scenarios[0].flow.iter().find(|s| matches!(s, Step::Loop(_))) else { panic!() };
        assert!(matches!(l.condition.as_ref().map(|c| &c.expr), Some(condition::Condition::WhileText { .. })));
    }

    /// "Evaluate for all children": the condition is tested again before each child, and a
    /// false one skips the rest of the pass (BatchTestLocal.jmx's "If all").
    #[test]
    fn an_if_evaluated_for_all_children_tests_before_each() {
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let plan = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
            <IfController testclass="IfController" testname="c" enabled="true"><stringProp name="IfController.condition">${{JMeterThread.last_sample_ok}}</stringProp><boolProp name="IfController.evaluateAll">true</boolProp><boolProp name="IfController.useExpression">true</boolProp></IfController><hashTree>{}{}{}</hashTree>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#,
            http("a"),
            http("b"),
            http("c")
        );
        let (p, _) = read(&plan, Path::new("t.jmx"), &Options::default()).unwrap();
        let Some(Step::If(outer)) = p.scenarios[0].flow.iter().find(|s| matches!(s, Step::If(_))) else { panic!() };
        // a, then if(b, then if(c)).
        assert!(matches!(&outer.then[..], [Step::Sample(Sampler::Http(_)), Step::If(_)]));
        let Step::If(second) = &outer.then[1] else { panic!() };
        assert!(matches!(&second.then[..], [Step::Sample(Sampler::Http(_)), Step::If(_)]));
        let Step::If(third) = &second.then[1] else { panic!() };
        assert!(matches!(&third.then[..], [Step::Sample(Sampler::Http(_))]));
    }

    /// Conditions beyond comparisons run in the script interpreter: `${__groovy(...)}` (its
    /// text read as JMeter's expression), and an If Controller's JavaScript when "Interpret
    /// Condition as Variable Expression" is unchecked; a script that cannot load is refused
    /// with its line and column.
    #[test]
    fn if_conditions_beyond_comparisons_run_as_scripts() {
        let ifc = |cond: &str, expr: bool| {
            format!(
                r#"<IfController testclass="IfController" testname="c" enabled="true"><stringProp name="IfController.condition">{cond}</stringProp><boolProp name="IfController.useExpression">{expr}</boolProp></IfController><hashTree><HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="a" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/></hashTree>"#
            )
        };
        let plan = |body: String| {
            format!(
                r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
                <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree></hashTree></hashTree></jmeterTestPlan>"#
            )
        };
        let body = [
            ifc("${__groovy(vars.get(&quot;x&quot;) != null)}", true),
            ifc("${__jexl3(vars.get(&quot;x&quot;) == null)}", true),
            ifc("1 % 2 == 1", false),
        ]
        .concat();
        let (p, report) = read(&plan(body), Path::new("t.jmx"), &Options::default()).unwrap();
        let conds: Vec<&flow::Cond> = p.scenarios[0]
            .flow
            .iter()
            .filter_map(|s| match s {
                Step::If(i) => Some(&i.condition),
                _ => None,
            })
            .collect();
        assert_eq!(conds.len(), 3, "{report:?}");
        assert!(conds.iter().all(|c| matches!(c.expr, condition::Condition::Truthy(_))), "{conds:?}");
        let mut u = template::LoadScope::new(&Default::default());
        let texts: Vec<String> = conds
            .iter()
            .map(|c| match &c.expr {
                condition::Condition::Truthy(t) => t.render_string(&mut u),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(texts, ["false", "true", "true"]);
        // A function whose script does not parse reads blank in JMeter: the If is false (#32).
        let (_, report) =
            read(&plan(ifc("${__groovy(vars.get(&quot;x&quot;) != )}", true)), Path::new("t.jmx"), &Options::default())
                .unwrap();
        let r = report.iter().find(|r| r.class == "IfController").unwrap();
        assert_eq!(r.status, Status::Warning);
        assert!(r.note.contains("cannot run its groovy script: line 1, column"), "{}", r.note);
    }

    /// Runtime, Critical Section and Random Order controllers compile to their ops: each sampler
    /// under two Runtime Controllers checks both times, outer first, and every exit is patched;
    /// loops carry their `__jm__<name>__idx` variable (ForEach: from its start index).
    #[test]
    fn issue_13_controllers_compile_to_their_ops() {
        use crate::engine::program::{Op, Program};
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let el = |class: &str, name: &str, props: &str, children: &str| {
            format!(
                r#"<{class} testclass="{class}" testname="{name}" enabled="true">{props}</{class}><hashTree>{children}</hashTree>"#
            )
        };
        let inner = el("RunTime", "in", r#"<stringProp name="RunTime.seconds">2</stringProp>"#, &http("a"));
        let lock = r#"<stringProp name="CriticalSectionController.lockName">L</stringProp>"#;
        let shuffled = el("RandomOrderController", "ro", "", &(http("b") + &http("c")));
        let each = el(
            "ForeachController",
            "fe",
            r#"<stringProp name="ForeachController.inputVal">v</stringProp><stringProp name="ForeachController.returnVal">o</stringProp><stringProp name="ForeachController.startIndex">2</stringProp>"#,
            &http("d"),
        );
        let body = el(
            "RunTime",
            "out",
            r#"<stringProp name="RunTime.seconds">5</stringProp>"#,
            &(inner + &el("CriticalSectionController", "cs", lock, &shuffled) + &each),
        );
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree></hashTree></hashTree></jmeterTestPlan>"#
        );
        let (p, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
        let prog = Program::compile(&p.scenarios[0].flow);
        let ops = &prog.ops;
        let checks_before = |at: usize| {
            ops[..at]
                .iter()
                .rev()
                .take_while(|o| matches!(o, Op::RuntimeCheck { .. }))
                .map(|o| match o {
                    Op::RuntimeCheck { slot, .. } => *slot,
                    _ => unreachable!(),
                })
                .collect::<Vec<_>>()
        };
        let requests: Vec<usize> = (0..ops.len()).filter(|&i| matches!(ops[i], Op::Request(_))).collect();
        assert_eq!(requests.len(), 4);
        let (outer, inner) = match (&ops[0], &ops[1]) {
            (Op::RuntimeStart { slot: o, .. }, Op::RuntimeStart { slot: i, .. }) => (*o, *i),
            other => panic!("{other:?}"),
        };
        // Reversed: the check nearest the request is the inner one.
        assert_eq!(checks_before(requests[0]), [inner, outer]);
        for &r in &requests[1..] {
            assert_eq!(checks_before(r), [outer]);
        }
        assert!(ops.iter().any(|o| matches!(o, Op::CriticalEnter { .. })));
        assert!(ops.iter().any(|o| matches!(o, Op::CriticalExit { .. })));
        assert!(ops.iter().any(|o| matches!(o, Op::ShuffleNext { targets, .. } if targets.len() == 2)));
        for op in ops {
            let t = match op {
                Op::RuntimeStart { exit, .. } | Op::RuntimeCheck { exit, .. } => *exit,
                Op::CriticalEnter { end, .. } | Op::ShuffleNext { end, .. } => *end,
                Op::LoopTest { index, .. } => {
                    let ix = index.expect("a ForEach's index");
                    assert_eq!((p.vars.name(ix.var), ix.offset), ("__jm__fe__idx", 2));
                    continue;
                }
                _ => continue,
            };
            assert!(t <= ops.len(), "unpatched exit in {ops:?}");
        }
    }

    #[test]
    fn conditions_lose_their_wrappers() {
        assert_eq!(unwrap_expression(r#"${__jexl3("${role}" == "admin")}"#), r#""${role}" == "admin""#);
        assert_eq!(unwrap_expression(r#"${__groovy(${n} > 2,res)}"#), "${n} > 2");
        assert_eq!(unwrap_expression("${ok}"), "${ok}");
        assert_eq!(unwrap_expression("${__jexl3(${counter} != 5,)}"), "${counter} != 5");
        assert_eq!(unwrap_expression(r#"${__jexl3("${a}" == "x,y")}"#), r#""${a}" == "x,y""#);
    }

    /// Parallel HTTP Requests with a concurrent pool size that is not a whole number (or has
    /// spaces, which `Integer.parseInt` refuses) downloads 6 at once, as JMeter does.
    #[test]
    fn a_parallel_http_pool_size_that_is_not_a_number_is_6() {
        let class = "com.blazemeter.jmeter.http.ParallelHTTPSampler";
        for pool in ["lots", "2.5", " 3"] {
            let text = format!(
                r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
                <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>
                <{class} testclass="{class}" testname="urls" enabled="true"><stringProp name="HTTPSampler.concurrentPool">{pool}</stringProp>
                <collectionProp name="urls"><collectionProp name="x"><stringProp name="y">http://127.0.0.1/a</stringProp></collectionProp></collectionProp></{class}><hashTree/>
                </hashTree></hashTree></hashTree></jmeterTestPlan>"#
            );
            let (p, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
            let Some(Step::Parallel(x)) = p.scenarios[0].flow.last() else { panic!("{:?}", p.scenarios[0].flow) };
            assert_eq!(x.max, Some(6), "{pool:?}");
        }
    }

    /// The Parallel Controller and Parallel HTTP Requests read as the plugin runs them: a
    /// branch per child (an empty one stays a branch that does nothing, it does not end the
    /// user), the parent sample, the thread limit (6 when limited without a number), each
    /// distinct URL of the list once; and both compile to one parallel op.
    #[test]
    fn parallel_controller_and_requests_read_as_the_plugin() {
        use crate::engine::program::{Op, Program};
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let par = |props: &str, children: &str| {
            let class = "com.blazemeter.jmeter.controller.ParallelSampler";
            format!(
                r#"<{class} testclass="{class}" testname="par" enabled="true">{props}</{class}><hashTree>{children}</hashTree>"#
            )
        };
        let url =
            |u: &str| format!(r#"<collectionProp name="x"><stringProp name="y">{u}</stringProp></collectionProp>"#);
        let class = "com.blazemeter.jmeter.http.ParallelHTTPSampler";
        let list = format!(
            r#"<{class} testclass="{class}" testname="urls" enabled="true"><collectionProp name="urls">{}{}{}{}</collectionProp></{class}><hashTree/>"#,
            url("http://127.0.0.1/a"),
            url("http://127.0.0.1/b"),
            url("http://127.0.0.1/a"),
            url(" "),
        );
        let body = [
            par(r#"<boolProp name="PARENT_SAMPLE">true</boolProp><boolProp name="LIMIT_MAX_THREAD_NUMBER">true</boolProp>"#, &(http("a") + &http("b") + &par("", ""))),
            par(r#"<intProp name="MAX_THREAD_NUMBER">2</intProp>"#, &http("c")),
            list,
        ]
        .concat();
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="U" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree></hashTree></hashTree></jmeterTestPlan>"#
        );
        let (p, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
        let flow = &p.scenarios[0].flow;
        let pars: Vec<&flow::Parallel> =
            flow.iter().filter_map(|s| if let Step::Parallel(x) = s { Some(&**x) } else { None }).collect();
        assert_eq!(pars.len(), 3);
        let label = |x: &flow::Parallel| x.parent.map(|l| p.labels[l.0 as usize].clone());
        assert_eq!((pars[0].branches.len(), label(pars[0]), pars[0].max), (3, Some("par".into()), Some(6)));
        assert!(
            matches!(pars[0].branches[2].as_slice(), [Step::Parallel(inner)] if inner.branches.is_empty() && inner.parent.is_none())
        );
        assert_eq!((pars[1].branches.len(), label(pars[1]), pars[1].max), (1, None, None));
        assert_eq!((pars[2].branches.len(), label(pars[2]), pars[2].max), (2, Some("urls".into()), Some(6)));
        let prog = Program::compile(flow);
        assert!(!prog.idle);
        let ops: Vec<&Op> = prog.ops.iter().filter(|o| matches!(o, Op::Parallel(_))).collect();
        assert_eq!(ops.len(), 3);
        let Op::Parallel(first) = ops[0] else { unreachable!() };
        assert_eq!(first.max, 6);
        // The empty nested controller: a program with nothing to run, not the user's end.
        let Op::Parallel(nested) = &first.branches[2].ops[0] else { panic!("{:?}", first.branches[2].ops) };
        assert!(nested.branches.is_empty());
        let Op::Parallel(second) = ops[1] else { unreachable!() };
        assert_eq!(second.max, usize::MAX);
    }

    /// A ForEach prefix or start index set while the test runs makes the names per pass (no
    /// names fixed at load); constant ones keep the names and the loop's count.
    #[test]
    fn a_for_each_prefix_or_start_index_set_at_run_time_is_read_per_pass() {
        use super::super::extractor::tests::{plan_with, regex_into};
        let each = |prefix: &str, start: &str| {
            format!(
                r#"<ForeachController testclass="ForeachController" testname="fe" enabled="true"><stringProp name="ForeachController.inputVal">{prefix}</stringProp><stringProp name="ForeachController.returnVal">o</stringProp><stringProp name="ForeachController.startIndex">{start}</stringProp><stringProp name="ForeachController.endIndex">3</stringProp></ForeachController><hashTree/>"#
            )
        };
        let pick = |prefix: &str, start: &str| {
            let text = plan_with(&regex_into("n")).replace(
                "</hashTree></hashTree></hashTree></jmeterTestPlan>",
                &format!("{}</hashTree></hashTree></hashTree></jmeterTestPlan>", each(prefix, start)),
            );
            let (p, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
            let Some(Step::Loop(l)) = p.scenarios[0].flow.iter().find(|s| matches!(s, Step::Loop(_))) else { panic!() };
            let Some(Step::Pick(pk)) = l.steps.first() else { panic!() };
            (pk.clone(), l.count.clone())
        };
        for (prefix, start) in [("${n}", "1"), ("v", "${n}")] {
            let (pk, count) = pick(prefix, start);
            let at = pk.at.as_ref().expect("read per pass");
            assert_eq!((at.prefix.source(), at.start.source(), at.sep.as_str()), (prefix, start, "_"));
            assert!(pk.from.is_empty() && count.is_none());
            assert_eq!(pk.end.as_ref().map(|t| t.source()), Some("3"));
        }
        let (pk, count) = pick("v", "1");
        assert!(pk.at.is_none() && pk.from.len() == http::MAX_ALL_MATCHES);
        assert_eq!(count.map(|t| t.source().to_string()), Some("2".to_string()));
    }

    /// A ForEach end index set while the test runs is read per pass (JMeter's `isDone`), not
    /// refused as needed at load; a constant one is the loop's count.
    #[test]
    fn a_for_each_end_index_set_at_run_time_is_read_per_pass() {
        use super::super::extractor::tests::{plan_with, regex_into};
        let each = |end: &str| {
            format!(
                r#"<ForeachController testclass="ForeachController" testname="fe" enabled="true"><stringProp name="ForeachController.inputVal">v</stringProp><stringProp name="ForeachController.returnVal">o</stringProp><stringProp name="ForeachController.endIndex">{end}</stringProp></ForeachController><hashTree/>"#
            )
        };
        let pick_and_count = |text: String| {
            let (p, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
            let Some(Step::Loop(l)) = p.scenarios[0].flow.iter().find(|s| matches!(s, Step::Loop(_))) else { panic!() };
            let Some(Step::Pick(pk)) = l.steps.first() else { panic!() };
            (pk.end.as_ref().map(|t| t.source().to_string()), l.count.as_ref().map(|t| t.source().to_string()))
        };
        let text = plan_with(&regex_into("n")).replace(
            "</hashTree></hashTree></hashTree></jmeterTestPlan>",
            &format!("{}</hashTree></hashTree></hashTree></jmeterTestPlan>", each("${n}")),
        );
        assert_eq!(pick_and_count(text), (Some("${n}".to_string()), None));
        let text = plan_with("").replace(
            "</hashTree></hashTree></hashTree></jmeterTestPlan>",
            &format!("{}</hashTree></hashTree></hashTree></jmeterTestPlan>", each("3")),
        );
        assert_eq!(pick_and_count(text), (None, Some("3".to_string())));
    }
}
