//! Thread groups (plain, setUp, tearDown, Open Model, and the plugins' Stepping, Ultimate,
//! Concurrency, Arrivals and Free-Form Arrivals): each becomes one scenario with its workload,
//! phase and action after a sample error.

use super::*;

/// A scenario name not taken yet: `Users`, then `Users (2)`, ... (an unnamed group is `Thread Group`).
pub(super) fn unique_name(name: &str, b: &mut Builder) -> String {
    let base = if name.trim().is_empty() { "Thread Group" } else { name };
    b.unique_scenario_name(base)
}

const ULTIMATE: &str = "kg.apc.jmeter.threads.UltimateThreadGroup";
const STEPPING: &str = "kg.apc.jmeter.threads.SteppingThreadGroup";
const CONCURRENCY: &str = "com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup";
const ARRIVALS: &str = "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup";
const FREE_FORM_ARRIVALS: &str = "com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup";
const OPEN_MODEL: &str = "OpenModelThreadGroup";

/// The most arrivals an Open Model Thread Group's schedule may make: each instant is kept in
/// memory (8 bytes) from the start of the run, where JMeter draws them step by step.
const MAX_OPEN_MODEL_ARRIVALS: u64 = 20_000_000;

/// The most users a plugin's schedule lists one by one, and the most steps it has: each is a
/// time kept in memory when the plan loads, so a mistyped count is refused rather than
/// exhausting memory.
const MAX_SCHEDULED: u64 = 1_000_000;

/// The thread groups stampede reads (others are unknown elements).
pub(super) fn is_thread_group(class: &str) -> bool {
    CLASSES.contains(&class)
}

/// The thread groups stampede reads.
pub(super) const CLASSES: [&str; 9] = [
    "ThreadGroup",
    "SetupThreadGroup",
    "PostThreadGroup",
    OPEN_MODEL,
    ULTIMATE,
    STEPPING,
    CONCURRENCY,
    ARRIVALS,
    FREE_FORM_ARRIVALS,
];

/// JMeter's engine throwing out of its run loop as the test starts (an element's exception is
/// not caught there): the thread groups it has not started by then never start, and the run
/// ends when the started ones do (no tearDown group runs).
pub(super) struct EngineStop {
    /// Thrown before the setUp groups start (while the tree is compiled), not at a main group.
    pub setup_too: bool,
    /// Where: the element, for the warning of each group that does not start.
    pub why: String,
    /// The main thread group it is thrown at (its address): those before it started.
    pub at: Option<usize>,
}

impl Cx {
    /// Why JMeter's engine never starts this group, if it does not.
    fn not_started(&self, tg: &El) -> Option<String> {
        let stop = self.engine_stop.as_ref()?;
        let starts = match tg.class.as_str() {
            "SetupThreadGroup" => !stop.setup_too,
            "PostThreadGroup" => false,
            _ => stop.at.is_some_and(|at| tg.at <= at),
        };
        (!starts)
            .then(|| format!("not started: {}, as JMeter's engine stops there before it starts this group", stop.why))
    }

    /// Each enabled thread group of the plan as one scenario, or one per Ultimate Thread Group row.
    pub(super) fn thread_groups(&mut self, test_plan: &El, plan_scope: &Scope) -> Result<(), Error> {
        // JMeter starts the main groups in tree order: the first Ultimate Thread Group whose
        // rows the plugin cannot read stops the engine there.
        let first_throw = test_plan.children.iter().filter(|c| c.enabled && c.class == ULTIMATE).find_map(|tg| {
            let rows = ultimate_rows(tg);
            self.ultimate_stop(tg, &rows).map(|_| tg)
        });
        if let Some(tg) = first_throw {
            let why = format!("{} (line {}) throws as it starts", describe(tg), tg.line);
            self.engine_stop.get_or_insert(EngineStop { setup_too: false, why, at: Some(tg.at) });
        }
        // A Cookie Manager of the test plan clears every group's jars; one inside a group only
        // that group's (JMeter calls testIterationStart on the managers in the thread's tree).
        let plan_clears = self.clear_cookies;
        for tg in &test_plan.children {
            if !is_thread_group(&tg.class) {
                continue;
            }
            self.clear_cookies = plan_clears;
            if !tg.enabled {
                self.report(tg, 1, Status::Disabled, "disabled: skipped");
                continue;
            }
            let name = unique_name(&tg.name, &mut self.b);
            self.b.sym.thread_group = Some(tg.name.clone());
            let stopped = self.not_started(tg);
            // A group that cannot be read is reported with its error; its children are still read.
            let mut workloads = match stopped {
                Some(why) => {
                    self.warn(tg, 1, why);
                    Vec::new()
                }
                None => self.workloads(tg).unwrap_or_else(|e| {
                    self.failed(tg, 1, e);
                    Vec::new()
                }),
            };
            // JMeter starts no thread for a group (or an Ultimate Thread Group row) of 0 threads.
            workloads.retain(|w| match w {
                Workload::Closed(c) => c.users > 0,
                Workload::Shaped(s) => !s.starts.is_empty(),
                Workload::Open(_) => true,
            });
            self.sample_timeout = self.sample_timeout_of(test_plan, tg);
            let mut steps = plan_scope.pre.clone();
            steps.extend(self.controller_body(&tg.children, plan_scope, 2)?);
            self.sample_timeout = None;
            let n = workloads.len();
            for (i, w) in workloads.drain(..).enumerate() {
                let name = if n > 1 { format!("{name} #{}", i + 1) } else { name.clone() };
                let on_error = match tg.text("ThreadGroup.on_sample_error").unwrap_or("continue") {
                    "startnextloop" => flow::StopKind::NextIteration,
                    "stopthread" => flow::StopKind::User,
                    "stoptest" | "stoptestnow" => flow::StopKind::Run,
                    _ => flow::StopKind::Continue,
                };
                let phase = match tg.class.as_str() {
                    "SetupThreadGroup" => Phase::Setup,
                    "PostThreadGroup" => Phase::Teardown,
                    _ => Phase::Main,
                };
                self.b.scenario(Scenario { name, workload: w, pacing: None, on_error, phase, flow: steps.clone() });
                let index = self.b.scenarios().len() - 1;
                let clears = &mut self.managers.clear_cookies;
                if self.clear_cookies {
                    clears.resize(index + 1, false);
                    clears[index] = true;
                }
            }
        }
        Ok(())
    }

    /// A plan where no thread will start (every enabled thread group reads 0 threads, or
    /// none is enabled) loads and runs as in JMeter: nothing is sent and the run ends at once.
    /// The test plan's line says so as a warning; `--strict` refuses it.
    pub(super) fn no_thread_warning(&mut self, test_plan: &El) {
        let any_group = test_plan.children.iter().any(|c| c.enabled && is_thread_group(&c.class));
        let why = match any_group {
            true => "every enabled thread group reads 0 threads",
            false => "the plan has no enabled thread group",
        };
        let what = format!("no thread will start ({why}): the run sends nothing and ends at once, as in JMeter");
        if self.strict {
            self.errors.push(Error::invalid(self.loc(test_plan), format!("{what} (refused by --strict)")));
        }
        match self.report.iter_mut().find(|r| r.at == test_plan.at) {
            Some(r) => {
                r.status = Status::Warning;
                r.note = what;
            }
            None => self.report(test_plan, 0, Status::Warning, what),
        }
    }

    /// The number of threads. One that is not a number is 0, as JMeter reads it (an int
    /// property that does not parse): the group starts no thread. One out of range is an error.
    fn thread_count(&mut self, tg: &El, notes: &mut Vec<String>) -> Result<u32, Error> {
        let raw = tg.text("ThreadGroup.num_threads").unwrap_or("1");
        // A variable nothing defines stays `${name}` in JMeter: not a number either.
        let v = self.expand(tg, raw).unwrap_or_else(|_| raw.to_string());
        if v.trim().parse::<f64>().is_err() {
            notes.push(format!("number of threads `{v}` is not a number: 0, as JMeter reads it"));
            return Ok(0);
        }
        self.number(tg, raw, "number of threads")
    }

    pub(super) fn workloads(&mut self, tg: &El) -> Result<Vec<Workload>, Error> {
        match tg.class.as_str() {
            ULTIMATE => return self.ultimate(tg).map(|w| vec![w]),
            STEPPING => return self.stepping(tg).map(|w| vec![w]),
            CONCURRENCY | ARRIVALS | FREE_FORM_ARRIVALS if self.not_a_plugin_number(tg).is_some() => {
                let why = self.not_a_plugin_number(tg).unwrap_or_default();
                self.report(tg, 1, Status::Partial, why);
                return Ok(Vec::new());
            }
            CONCURRENCY => return self.concurrency(tg).map(|w| vec![w]),
            ARRIVALS | FREE_FORM_ARRIVALS => return self.arrivals(tg).map(|w| vec![w]),
            OPEN_MODEL => return self.open_model(tg).map(|w| vec![w]),
            _ => {}
        }

        let mut notes = Vec::new();
        let users = self.thread_count(tg, &mut notes)?;
        let ramp = self.number_or_zero(tg, tg.text("ThreadGroup.ramp_time").unwrap_or("0"), "ramp-up", &mut notes);
        let main = tg.nested("ThreadGroup.main_controller").unwrap_or_default();
        let loops_raw = main.text("LoopController.loops").unwrap_or("1").to_string();
        // What JMeter reads at run time where the plan's text is no number; `check` warns.
        let mut warnings = Vec::new();
        let loops: i64 = self.number_or_text(tg, &loops_raw, "loop count")?.unwrap_or_else(|v| {
            warnings.push(format!("loop count `{v}` is not a number: JMeter reads 0, the group runs no iteration"));
            0
        });
        let forever = loops < 0 || loops_on(main);
        let scheduler = tg.flag("ThreadGroup.scheduler").unwrap_or(false);
        let (duration, delay) = if scheduler {
            // JMeter stops the test at once ("Invalid duration"/"Invalid delay ... set in Thread
            // Group") for a duration that is not above 0 (absent counts as 0) or a negative delay.
            let d = match tg.text("ThreadGroup.duration").filter(|d| !d.trim().is_empty()) {
                Some(d) => self.number_or_text(tg, d, "duration")?.unwrap_or(0.0),
                None => 0.0,
            };
            if d <= 0.0 {
                // JMeter logs "Invalid duration 0 set in Thread Group" and starts the other
                // groups without this one (a duration that is no number reads 0).
                let raw = tg.text_or_empty("ThreadGroup.duration").trim();
                self.warn(
                    tg,
                    1,
                    format!("the scheduler is on and the duration `{raw}` is not above 0: JMeter does not start this group (\"Invalid duration 0 set in Thread Group\")"),
                );
                return Ok(vec![Workload::Closed(ClosedWorkload {
                    users: 0,
                    ramp_up: Duration::ZERO,
                    iterations: Some(0),
                    duration: None,
                    start_delay: Duration::ZERO,
                    graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
                })]);
            }
            let delay = match tg.text("ThreadGroup.delay") {
                Some(d) => self.number_or_zero(tg, d, "startup delay", &mut notes),
                None => 0.0,
            };
            if delay < 0.0 {
                return Err(self.err(
                    tg,
                    format!("the startup delay is {delay} s: it must not be negative (JMeter stops the test: \"Invalid delay\")"),
                ));
            }
            (Some(self.secs(tg, d, "duration")?), self.secs(tg, delay, "startup delay")?)
        } else {
            (None, Duration::ZERO)
        };
        let iterations = if forever { None } else { Some(loops.max(0) as u64) };
        let on_error = tg.text("ThreadGroup.on_sample_error").unwrap_or("continue");
        let until = if users == 0 {
            ": starts no thread, as in JMeter"
        } else if forever && duration.is_none() {
            "; loops forever: runs until stopped (Ctrl-C)"
        } else {
            ""
        };
        let (mut status, mut note) =
            (Status::Supported, format!("{users} users{until}; after a sample error: {on_error}"));
        if !notes.is_empty() {
            status = Status::Partial;
            note = format!("{note}; {}", notes.join("; "));
        }
        if tg.class != "ThreadGroup" {
            note.push_str(if tg.class == "SetupThreadGroup" {
                "; runs before the other thread groups"
            } else {
                "; runs after the other thread groups"
            });
        }
        if warnings.is_empty() {
            self.report(tg, 1, status, note);
        } else {
            self.warn(tg, 1, format!("{note}; {}", warnings.join("; ")));
        }
        Ok(vec![Workload::Closed(ClosedWorkload {
            users,
            ramp_up: self.secs(tg, ramp, "ramp-up")?,
            iterations,
            duration,
            start_delay: delay,
            graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
        })])
    }
}

/// The Ultimate Thread Group's rows, as the cells of each inner collection.
fn ultimate_rows(tg: &El) -> Vec<Vec<String>> {
    let rows = tg.collection("ultimatethreadgroupdata").unwrap_or_default();
    rows.iter()
        .filter_map(|r| match &r.value {
            Value::Collection(cells) => Some(texts(cells)),
            _ => None,
        })
        .collect()
}

/// JMeter's `Math.round`: half up.
fn java_round(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// Milliseconds as a time from the scenario's start (a negative one is 0).
fn ms(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

impl Cx {
    /// A property JMeter reads with `getPropertyAsInt`: absent is `default`, one that is not a
    /// whole number is 0 (noted for the element's report).
    fn int_prop(&mut self, tg: &El, name: &str, default: i64, notes: &mut Vec<String>) -> Result<i64, Error> {
        let Some(raw) = tg.text(name) else { return Ok(default) };
        let v = self.expand(tg, raw)?;
        Ok(v.trim().parse::<i64>().unwrap_or_else(|_| {
            notes.push(format!("{name} `{v}` is not a whole number: taken as 0, as JMeter does"));
            0
        }))
    }

    /// A decimal property the plugins parse with `Double.parseDouble` (empty is 0, absent is
    /// `default`); one that is not a number stops their thread starter: refused here.
    /// Why a bzm thread group's starter cannot be made: the plugin reads `RampUp` and `Hold`
    /// with `Double.parseDouble` and `Steps` and `Iterations` with `Long.parseLong` (an empty
    /// one is 0) when the group starts, and one that is not a number (`${var1}` nothing
    /// defines) throws there: JMeter's engine stops and the run ends with no sample. Here the
    /// group starts no user.
    fn not_a_plugin_number(&mut self, tg: &El) -> Option<String> {
        for (name, whole) in [("RampUp", false), ("Hold", false), ("Steps", true), ("Iterations", true)] {
            let Some(raw) = tg.text(name) else { continue };
            let v = self.expand(tg, raw).unwrap_or_else(|_| raw.to_string());
            let ok = v.is_empty() || if whole { v.parse::<i64>().is_ok() } else { v.trim().parse::<f64>().is_ok() };
            if !ok {
                return Some(format!(
                    "{name} `{v}` is not a number: the plugin throws NumberFormatException when the group starts \
                     and JMeter's run ends there with no sample; here this group starts no user"
                ));
            }
        }
        None
    }

    fn decimal_prop(&mut self, tg: &El, name: &str, default: f64) -> Result<f64, Error> {
        match tg.text(name) {
            None => Ok(default),
            Some(raw) if raw.trim().is_empty() => Ok(0.0),
            Some(raw) => self.number(tg, raw, name),
        }
    }

    /// The thread group's loop count (its main Loop Controller): `None` loops forever.
    fn loops(&mut self, tg: &El) -> Result<Option<u64>, Error> {
        let main = tg.nested("ThreadGroup.main_controller").unwrap_or_default();
        let loops: i64 = self.number(tg, main.text("LoopController.loops").unwrap_or("-1"), "loop count")?;
        Ok((loops >= 0 && !loops_on(main)).then_some(loops as u64))
    }

    /// The Ultimate Thread Group: per row, N users started over the startup time after the
    /// initial delay, held, and stopped over the shutdown time. As the plugin schedules them,
    /// the k-th user of a row counted from its last (k = N … 1) starts at
    /// `delay + startup × k / N` and stops at `delay + startup + hold + shutdown × k / N` (ms).
    ///
    /// `jmeter -n` reads each inner collection as a row of 5 cells; the old plugins' layout
    /// (one collection per column) only becomes rows when JMeter's GUI opens the plan, so a
    /// row of fewer cells stops the group where the plugin reaches it ([`Cx::ultimate_stop`]).
    fn ultimate(&mut self, tg: &El) -> Result<Workload, Error> {
        let rows = ultimate_rows(tg);
        let stop = self.ultimate_stop(tg, &rows);
        let read = stop.as_ref().map_or(rows.len(), |(i, _)| *i);
        let (mut starts, mut stops) = (Vec::new(), Vec::new());
        let mut count = 0;
        for cells in &rows[..read] {
            // A short row the plugin never reaches (its threads are all started before it).
            if cells.len() < 5 {
                continue;
            }
            count += 1;
            let users: u32 = self.number(tg, &cells[0], "threads")?;
            self.scheduled(tg, starts.len() as u64 + u64::from(users), "threads")?;
            let delay: f64 = self.number(tg, &cells[1], "initial delay")?;
            let startup: f64 = self.number(tg, &cells[2], "startup time")?;
            let hold: f64 = self.number(tg, &cells[3], "hold time")?;
            let shutdown: f64 = match cells.get(4) {
                Some(s) if !s.trim().is_empty() => self.number(tg, s, "shutdown time")?,
                _ => 0.0,
            };
            let delay_time = self.secs(tg, delay, "initial delay")?;
            for (v, what) in [(startup, "startup time"), (hold, "hold time"), (shutdown, "shutdown time")] {
                self.secs(tg, v, what)?;
            }
            self.secs(tg, delay + startup + hold + shutdown, "delay + startup + hold + shutdown time")?;
            let n = f64::from(users);
            for k in (1..=users).rev() {
                let k = f64::from(k);
                starts.push(delay_time + ms((1000.0 * startup * k / n).floor() as i64));
                let end = 1000.0 * (delay + startup + hold) + (1000.0 * shutdown * k / n).floor();
                stops.push(ms(end as i64));
            }
        }
        let iterations = self.loops(tg)?;
        if let Some((_, why)) = stop {
            let started = match count {
                0 => "no thread of it starts".to_string(),
                _ => format!("the {} users of the {count} row(s) before it start", starts.len()),
            };
            self.warn(
                tg,
                1,
                format!(
                    "{why}: the plugin throws IndexOutOfBoundsException as JMeter starts the group, so {started} and \
                     no later thread group (nor any tearDown group) starts. The old jmeter-plugins layout (one \
                     collection per column) is converted only by JMeter's GUI: open and save the plan there"
                ),
            );
            return Ok(shaped(starts, Some(stops), iterations));
        }
        let note = if count == 0 {
            // The plugin counts its threads from the rows: none, no thread.
            "no rows: starts no thread, as in JMeter".to_string()
        } else {
            format!("{} users in {count} row(s), each started, held and stopped on the plugin's schedule", starts.len())
        };
        self.report(tg, 1, Status::Supported, note);
        Ok(shaped(starts, Some(stops), iterations))
    }

    /// Where the plugin's start throws, if it does: the number of rows whose threads it has
    /// started by then, and why. It sums the rows' first cells (`getNumThreads`: an empty row
    /// throws there, before any thread), then gives each thread the next row's 5 cells, a row
    /// of N threads taking N threads (at least one); a row of fewer cells throws when reached.
    fn ultimate_stop(&mut self, tg: &El, rows: &[Vec<String>]) -> Option<(usize, String)> {
        if let Some(i) = rows.iter().position(Vec::is_empty) {
            return Some((0, format!("row {} is empty", i + 1)));
        }
        // `getIntValue`: a cell that is no whole number is 0.
        let mut int = |cell: &str| -> i64 {
            let v = self.expand(tg, cell).unwrap_or_else(|_| cell.to_string());
            v.parse::<i32>().map_or(0, i64::from)
        };
        let firsts: Vec<i64> = rows.iter().map(|r| int(&r[0])).collect();
        let total: i64 = firsts.iter().sum();
        let mut taken = 0;
        for (i, (row, first)) in rows.iter().zip(&firsts).enumerate() {
            if taken >= total {
                return None;
            }
            if row.len() < 5 {
                let why = format!(
                    "row {} has {} of the 5 cells the plugin reads (threads, initial delay, startup time, hold time, \
                     shutdown time)",
                    i + 1,
                    row.len()
                );
                return Some((i, why));
            }
            taken += (*first).max(1);
        }
        None
    }

    /// The Stepping Thread Group: after the initial delay, a first burst, then `Start users
    /// count` users every `Start users period` s, each batch spread over `rampUp` s; held for
    /// `flighttime` s after the last start; then `Stop users count` users stop every `Stop users
    /// period` s. Times in whole ms as the plugin computes them.
    fn stepping(&mut self, tg: &El) -> Result<Workload, Error> {
        let mut notes = Vec::new();
        let threads = self.int_prop(tg, "ThreadGroup.num_threads", 0, &mut notes)?.max(0);
        self.scheduled(tg, threads as u64, "number of threads")?;
        let mut int = |cx: &mut Cx, name| cx.int_prop(tg, name, 0, &mut notes);
        let mut in_count = int(self, "Start users count")?;
        let mut out_count = int(self, "Stop users count")?;
        let burst = int(self, "Start users count burst")?;
        // Times in seconds, each within the longest duration so that the sums in milliseconds
        // below cannot overflow.
        let max = MAX_DURATION.as_secs() as i64;
        let mut time = |cx: &mut Cx, name| -> Result<i64, Error> {
            let v = int(cx, name)?;
            if v.abs() > max {
                return Err(cx.err(tg, format!("{name} `{v}` s is out of range: at most {max} s (365 days)")));
            }
            Ok(v)
        };
        let delay = 1000 * time(self, "Threads initial delay")?;
        let in_period = 1000 * time(self, "Start users period")?;
        let ramp_s = time(self, "rampUp")?;
        let flight = 1000 * time(self, "flighttime")?;
        let out_period = 1000 * time(self, "Stop users period")?;
        if in_count <= 0 {
            in_count = threads.max(1);
        }
        if out_count <= 0 {
            out_count = threads.max(1);
        }
        let burst = if burst.min(threads) <= 0 { in_count } else { burst.min(threads) };
        let ramp = 1000 * ramp_s;
        let iteration = in_period + ramp;
        let iterations_total =
            if threads < burst { 1 } else { ((threads - burst) as f64 / in_count as f64).ceil() as i64 };
        let mut last_count = (threads - burst) % in_count;
        if last_count == 0 {
            last_count = in_count;
        }
        let descent = delay + iterations_total * iteration + (ramp / in_count) * last_count + flight;
        let (mut starts, mut stops) = (Vec::new(), Vec::new());
        for i in 0..threads {
            let (bucket, bucket_count, position) =
                if i < burst { (0, burst, i) } else { (1 + (i - burst) / in_count, in_count, (i - burst) % in_count) };
            starts.push(ms(delay + bucket * iteration + position * (ramp / bucket_count)));
            stops.push(ms(descent + out_period * (i / out_count)));
        }
        if let Some(last) = stops.last() {
            self.secs(tg, last.as_secs_f64(), "the schedule")?;
        }
        let iterations = self.loops(tg)?;
        let note = format!("{threads} users started in steps and stopped in steps, on the plugin's schedule");
        let (status, note) = if notes.is_empty() {
            (Status::Supported, note)
        } else {
            (Status::Partial, format!("{note}; {}", notes.join("; ")))
        };
        self.report(tg, 1, status, note);
        Ok(shaped(starts, Some(stops), iterations))
    }

    /// The plugins' `Unit`: `M` (minutes) multiplies times by 60 (and divides rates by it).
    fn unit_factor(&mut self, tg: &El) -> f64 {
        if tg.text("Unit").is_some_and(|u| u == "M") {
            60.0
        } else {
            1.0
        }
    }

    /// `TargetLevel`: a number, or `${__tstFeedback(timer,start,max,spare)}`, which JMeter
    /// re-evaluates as the run goes to follow a Throughput Shaping Timer: taken here as its
    /// `max` (or `start` without one), a fixed level (noted).
    fn target_level(&mut self, tg: &El, notes: &mut Vec<String>) -> Result<f64, Error> {
        let raw = tg.text("TargetLevel").unwrap_or("1").to_string();
        if let Some(at) = raw.find("__tstFeedback(") {
            let args: Vec<String> = raw[at + "__tstFeedback(".len()..]
                .split(')')
                .next()
                .unwrap_or("")
                .split(',')
                .map(|a| a.trim().to_string())
                .collect();
            let pick = args.get(2).filter(|a| a.parse::<u32>().is_ok()).or(args.get(1));
            let level = pick.and_then(|a| a.parse::<u32>().ok()).unwrap_or(1);
            notes.push(format!(
                "`{raw}` adjusts the level to the Throughput Shaping Timer in JMeter; here it is fixed at {level} (its max, or its start without one)"
            ));
            return Ok(f64::from(level));
        }
        if raw.trim().is_empty() {
            return Ok(0.0);
        }
        Ok(self.int_prop(tg, "TargetLevel", 1, notes)? as f64)
    }

    /// The Concurrency Thread Group: the target level reached over `RampUp` (in `Steps`, or
    /// linearly), held for `Hold`; the plugin's starter checks the planned level every second
    /// (every 10 ms while no user runs) and starts the users missing. At the end of the hold
    /// each user finishes its iteration; a user done with its `Iterations` is replaced.
    fn concurrency(&mut self, tg: &El) -> Result<Workload, Error> {
        let mut notes = Vec::new();
        let unit = self.unit_factor(tg);
        let target = self.target_level(tg, &mut notes)?;
        let ramp = java_round(self.decimal_prop(tg, "RampUp", 0.0)? * unit);
        let hold = java_round(self.decimal_prop(tg, "Hold", 1.0)? * unit);
        let steps = java_round(self.decimal_prop(tg, "Steps", 0.0)?).max(0.0);
        let iterations = java_round(self.decimal_prop(tg, "Iterations", 0.0)?);
        let end = self.secs(tg, ramp + hold, "ramp-up + hold")?;
        self.scheduled(tg, java_round(target).max(0.0) as u64, "target concurrency")?;
        let starts = concurrency_starts(target, ramp, hold, steps);
        let n = starts.len();
        let iterations = (iterations > 0.0).then_some(iterations as u64);
        let mut note =
            format!("{n} users at most, reached over {ramp} s and held {hold} s; each ends its iteration at the end");
        if iterations.is_some() {
            note.push_str("; a user done with its iterations is replaced");
        }
        let status = if notes.is_empty() { Status::Supported } else { Status::Partial };
        if !notes.is_empty() {
            note = format!("{note}; {}", notes.join("; "));
        }
        self.report(tg, 1, status, note);
        Ok(Workload::Shaped(ShapedWorkload {
            starts: Times(starts),
            stops: Some(Times(vec![end; n])),
            iterations,
            renew: true,
            finish_iteration: true,
            graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
        }))
    }

    /// The Arrivals Thread Group (`TargetLevel` arrivals a second or minute, reached over
    /// `RampUp` in `Steps`, held for `Hold`) and the Free-Form one (rows of start rate, end
    /// rate and duration): each arrival runs one iteration on a free user, at most
    /// `ConcurrencyLimit` at once (an arrival that finds none is not sent).
    fn arrivals(&mut self, tg: &El) -> Result<Workload, Error> {
        let mut notes = Vec::new();
        let unit = self.unit_factor(tg);
        let (start_rate, stages, peak) = if tg.class == FREE_FORM_ARRIVALS {
            let mut rows = Vec::new();
            for row in tg.collection("Schedule").unwrap_or_default() {
                let Value::Collection(cells) = &row.value else { continue };
                let cells = texts(cells);
                if cells.len() < 3 {
                    return Err(self.err(tg, "a Free-Form Arrivals row needs a start rate, an end rate and a duration"));
                }
                let from: f64 = self.number(tg, &cells[0], "start rate")?;
                let to: f64 = self.number(tg, &cells[1], "end rate")?;
                let len: f64 = self.number(tg, &cells[2], "duration")?;
                // A negative rate runs as 0 (below); NaN, infinite or past the bound is refused.
                for (what, rate) in [("start rate", from / unit), ("end rate", to / unit)] {
                    if let Some(problem) =
                        workload::rate_problem(&format!("a row's {what}"), if rate < 0.0 { 0.0 } else { rate })
                    {
                        return Err(self.err(tg, problem));
                    }
                }
                rows.push((from / unit, to / unit, len * unit));
            }
            let mut stages = Vec::new();
            let mut rate = rows.first().map_or(0.0, |r| r.0);
            for &(from, to, len) in &rows {
                if from != rate {
                    stages.push(Stage { target: from.max(0.0), duration: Duration::ZERO });
                }
                stages.push(Stage { target: to.max(0.0), duration: self.secs(tg, len, "duration")? });
                rate = to;
            }
            let peak = rows.iter().map(|r| r.0.max(r.1)).fold(0.0, f64::max);
            (rows.first().map_or(0.0, |r| r.0.max(0.0)), stages, peak)
        } else {
            let rate = self.target_level(tg, &mut notes)? / unit;
            let ramp = java_round(self.decimal_prop(tg, "RampUp", 0.0)? * unit);
            let hold = java_round(self.decimal_prop(tg, "Hold", 1.0)? * unit);
            let steps = java_round(self.decimal_prop(tg, "Steps", 0.0)?).max(0.0);
            let mut stages = Vec::new();
            let start = if ramp <= 0.0 {
                rate
            } else if steps > 0.0 {
                self.scheduled(tg, steps as u64, "steps")?;
                // Step k (from 1) runs at k × rate / steps for ramp / steps.
                for k in 1..=steps as u64 {
                    let r = rate * k as f64 / steps;
                    stages.push(Stage { target: r, duration: Duration::ZERO });
                    stages.push(Stage { target: r, duration: self.secs(tg, ramp / steps, "ramp-up step")? });
                }
                stages.remove(0);
                rate / steps
            } else {
                // The plugin's linear ramp draws its rate from the arrivals made so far, none
                // at first: it makes no arrival until the ramp-up is over.
                notes.push("a linear ramp-up (no Steps) makes no arrival in the plugin: none here either".into());
                stages.push(Stage { target: 0.0, duration: self.secs(tg, ramp, "ramp-up")? });
                stages.push(Stage { target: rate, duration: Duration::ZERO });
                0.0
            };
            stages.push(Stage { target: rate, duration: self.secs(tg, hold, "hold")? });
            (start, stages, rate)
        };
        let limit = match tg.text("ConcurrencyLimit").map(str::trim) {
            Some(l) if !l.is_empty() => self.number::<i64>(tg, l, "concurrency limit").unwrap_or(0),
            _ => 0,
        };
        let max_users = if limit > 0 {
            u32::try_from(limit).unwrap_or(u32::MAX)
        } else {
            let max = ((peak * 0.1).ceil() as u32).clamp(100, 10_000);
            notes.push(format!("no concurrency limit: at most {max} users at once (JMeter has none)"));
            max
        };
        if tg.text("Iterations").is_some_and(|i| !i.trim().is_empty()) {
            notes.push("Iterations (per user) is not read: it does not change the arrivals".into());
        }
        if tg.text("LogFilename").is_some_and(|f| !f.trim().is_empty()) {
            notes.push("the arrivals log file is not written".into());
        }
        let w = OpenWorkload {
            start_rate,
            stages,
            pre_allocated_users: max_users.min(10),
            max_users,
            start_delay: Duration::ZERO,
            graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
            process: None,
        };
        if let Some(problem) = w.rate_problem() {
            return Err(self.err(tg, problem));
        }
        let mut note = format!("open model: {}", Workload::Open(w.clone()).describe());
        let status =
            if notes.iter().any(|n| !n.starts_with("Iterations")) { Status::Partial } else { Status::Supported };
        if !notes.is_empty() {
            note = format!("{note}; {}", notes.join("; "));
        }
        self.report(tg, 1, status, note);
        Ok(Workload::Open(w))
    }
}

impl Cx {
    /// JMeter's Open Model Thread Group: its schedule (`rate(10/sec) random_arrivals(1 min)
    /// ...`, functions evaluated when the run starts) read as JMeter reads it, a schedule JMeter
    /// fails to start on refused with its message; each arrival is a new user running the
    /// children once, with no limit on how many run at once; at the end of the schedule what
    /// still runs is stopped (JMeter interrupts those threads).
    fn open_model(&mut self, tg: &El) -> Result<Workload, Error> {
        let raw = tg.text_or_empty("OpenModelThreadGroup.schedule").to_string();
        let schedule = self.expand(tg, &raw)?;
        // A seed that is no number reads 0, as a long property does: a new seed each run.
        let seed_raw = tg.text_or_empty("OpenModelThreadGroup.random_seed").to_string();
        let seed = self.expand(tg, &seed_raw)?.trim().parse::<i64>().unwrap_or(0);
        let process = openmodel::parse(&schedule, seed)
            .map_err(|m| self.err(tg, format!("the schedule does not parse, and JMeter starts no test on it: {m}")))?;
        let total = process.total();
        if total > MAX_OPEN_MODEL_ARRIVALS {
            return Err(self.err(
                tg,
                format!("the schedule makes {total} arrivals: stampede keeps each one's instant in memory, at most {MAX_OPEN_MODEL_ARRIVALS} in a group"),
            ));
        }
        // The stages say the rates (for reports and `--duration`); the instants are drawn.
        let mut stages = Vec::new();
        let start_rate = process.steps.first().map_or(0.0, |s| s.from.max(0.0));
        let mut rate = start_rate;
        for st in &process.steps {
            if st.from.max(0.0) != rate {
                stages.push(Stage { target: st.from.max(0.0), duration: Duration::ZERO });
            }
            rate = st.to.max(0.0);
            stages.push(Stage { target: rate, duration: self.secs(tg, st.secs, "schedule step")? });
        }
        let max_users = u32::try_from(total).unwrap_or(u32::MAX).max(1);
        let w = OpenWorkload {
            start_rate,
            stages,
            // JMeter makes each arrival's thread when it is due: a user made beforehand would
            // only take a thread number no arrival has.
            pre_allocated_users: 0,
            max_users,
            start_delay: Duration::ZERO,
            graceful_stop: Duration::ZERO,
            process: Some(process),
        };
        if let Some(problem) = w.rate_problem() {
            return Err(self.err(tg, problem));
        }
        let random = w.process.as_ref().is_some_and(|p| p.steps.iter().any(|s| s.random));
        let seeded = match (random, seed) {
            (false, _) => String::new(),
            (true, 0) => " (random arrivals: new ones each run)".to_string(),
            (true, seed) => format!(" (random arrivals of seed {seed}: JMeter's instants)"),
        };
        let note = format!(
            "open model: {total} arrivals over {}{seeded}, each a new user running the children once; what still runs at the end is stopped, as in JMeter",
            humantime::format_duration(Workload::Open(w.clone()).planned_duration().unwrap_or_default())
        );
        self.report(tg, 1, Status::Supported, note);
        Ok(Workload::Open(w))
    }

    /// Refuses a count of users or steps beyond [`MAX_SCHEDULED`].
    fn scheduled(&self, tg: &El, n: u64, what: &str) -> Result<(), Error> {
        if n > MAX_SCHEDULED {
            return Err(self.err(tg, format!("{what}: {n} is out of range: at most {MAX_SCHEDULED} in a schedule")));
        }
        Ok(())
    }
}

/// A shaped workload of these starts and stops.
fn shaped(starts: Vec<Duration>, stops: Option<Vec<Duration>>, iterations: Option<u64>) -> Workload {
    Workload::Shaped(ShapedWorkload {
        starts: Times(starts),
        stops: stops.map(Times),
        iterations,
        renew: false,
        finish_iteration: false,
        graceful_stop: workload::DEFAULT_GRACEFUL_STOP,
    })
}

/// When the Concurrency Thread Group's starter starts each user: it checks the planned level
/// (ramp and hold in s), starts the users missing, and checks again 1 s later (10 ms later
/// while none runs), until the ramp-up is over.
fn concurrency_starts(target: f64, ramp: f64, hold: f64, steps: f64) -> Vec<Duration> {
    let planned = |t: f64| -> f64 {
        if t >= ramp + hold {
            -1.0
        } else if ramp == 0.0 || t >= ramp {
            java_round(target)
        } else if steps > 0.0 {
            java_round(target / steps * ((t / (ramp / steps)).floor() + 1.0))
        } else {
            java_round(target / ramp * t)
        }
    };
    let mut starts = Vec::new();
    let full = java_round(target).max(0.0) as usize;
    let mut tick = 0u64; // in 10 ms
                         // Whether the first user has started by `tick` (or the schedule is over): the level only
                         // grows, so the first tick where it holds is searched for rather than walked to, which
                         // would take a step for every 10 ms of a long ramp-up.
    let begun = |tick: u64| {
        let level = planned(tick as f64 / 100.0);
        !(0.0..1.0).contains(&level)
    };
    if full > 0 && !begun(0) {
        let (mut lo, mut hi) = (0u64, ((ramp + hold).max(0.0) * 100.0).ceil() as u64 + 1);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if begun(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        tick = hi;
    }
    while starts.len() < full {
        let t = tick as f64 / 100.0;
        let level = planned(t);
        if level < 0.0 {
            break;
        }
        while (starts.len() as f64) < level && starts.len() < full {
            starts.push(Duration::from_millis(tick * 10));
        }
        tick += if starts.is_empty() { 1 } else { 100 };
    }
    starts
}

/// A thread group's main Loop Controller with "continue forever" on (Taurus writes it) starts
/// over after its last loop instead of finishing (LoopController.nextIsNull): the thread loops
/// until its scheduler's duration ends, whatever the count.
fn loops_on(main: &[Prop]) -> bool {
    main.flag("LoopController.continue_forever") == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_main_loop_that_continues_forever_ignores_its_count() {
        let tg = |forever: &str| {
            let main = format!(
                r#"<elementProp elementType="LoopController" name="ThreadGroup.main_controller" testclass="LoopController">
                <boolProp name="LoopController.continue_forever">{forever}</boolProp>
                <stringProp name="LoopController.loops">2</stringProp></elementProp>"#
            );
            let p = load("ThreadGroup", &format!("{}{main}", props(&[("ThreadGroup.num_threads", "1")]))).unwrap();
            let Workload::Closed(w) = &p.scenarios[0].workload else { panic!() };
            w.iterations
        };
        assert_eq!(tg("false"), Some(2));
        assert_eq!(tg("true"), None, "JMeter starts the main loop over: it runs until stopped");
    }

    /// The old plugins' column layout (one collection per column), as in jmeter-plugins'
    /// `LimitedRuntimeExample.jmx`: `jmeter -n` reads each column as a row, and the first one
    /// (fewer than 5 cells) throws as the group starts: no thread; a row of 4 cells too.
    #[test]
    fn an_ultimate_thread_group_row_of_fewer_than_5_cells_starts_no_thread_as_jmeter_n() {
        let col = |cells: &[&str]| {
            let c: String = cells.iter().map(|c| format!(r#"<stringProp name="0">{c}</stringProp>"#)).collect();
            format!(r#"<collectionProp name="r">{c}</collectionProp>"#)
        };
        let data = |rows: &[&[&str]]| {
            let r: String = rows.iter().map(|r| col(r)).collect();
            format!(r#"<collectionProp name="ultimatethreadgroupdata">{r}</collectionProp>"#)
        };
        let report = |inside: &str| {
            let text = format!(
                r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
                <{ULTIMATE} testclass="{ULTIMATE}" testname="G" enabled="true">{inside}</{ULTIMATE}><hashTree>
                <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>
                </hashTree></hashTree></hashTree></jmeterTestPlan>"#
            );
            let (p, r) = read(&text, std::path::Path::new("t.jmx"), &Options::default()).unwrap();
            let g = r.into_iter().find(|r| r.name == "G").unwrap();
            (p, g.status, g.note)
        };
        let old = data(&[&["1"], &["0"], &["0"], &["30"], &["10"]]);
        let (p, status, note) = report(&old);
        assert!(p.scenarios.is_empty());
        assert_eq!(status, Status::Warning);
        assert!(note.starts_with("row 1 has 1 of the 5 cells"), "{note}");
        assert!(note.contains("no thread of it starts"), "{note}");
        let four = data(&[&["2", "0", "0", "5"]]);
        assert!(report(&four).0.scenarios.is_empty(), "getIntValue of cell 4 throws");
        // A full row before the short one: its users start.
        let mixed = data(&[&["2", "0", "1", "5", "0"], &["3", "1"]]);
        let (p, status, note) = report(&mixed);
        assert_eq!((status, shaped_of(&p).starts.0.len()), (Status::Warning, 2));
        assert!(note.contains("row 2 has 2 of the 5 cells") && note.contains("the 2 users of the 1 row(s)"), "{note}");
        // A short row the plugin never reaches (every thread taken before it) is never read.
        let unreached = data(&[&["2", "0", "1", "5", "0"], &["0"]]);
        let (p, status, _) = report(&unreached);
        assert_eq!((status, shaped_of(&p).starts.0.len()), (Status::Supported, 2));
        // An empty row throws in `getNumThreads`, before any thread.
        let empty = data(&[&["2", "0", "1", "5", "0"], &[]]);
        let (p, _, note) = report(&empty);
        assert!(p.scenarios.is_empty() && note.starts_with("row 2 is empty"), "{note}");
    }

    /// JMeter's engine stops at the first Ultimate Thread Group that throws: main groups before
    /// it and every setUp group start; later main groups and every tearDown group do not.
    #[test]
    fn groups_after_an_ultimate_thread_group_that_throws_do_not_start() {
        let tg = |class: &str, name: &str, inside: &str| {
            format!(
                r#"<{class} testclass="{class}" testname="{name}" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp>{inside}</{class}><hashTree>
                <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get {name}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/></hashTree>"#
            )
        };
        let old = r#"<collectionProp name="ultimatethreadgroupdata"><collectionProp name="c"><stringProp name="0">1</stringProp></collectionProp></collectionProp>"#;
        let groups = [
            tg("ThreadGroup", "before", ""),
            tg("PostThreadGroup", "down", ""),
            tg(ULTIMATE, "utg", old),
            tg("ThreadGroup", "after", ""),
            tg("SetupThreadGroup", "up", ""),
        ]
        .concat();
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>{groups}</hashTree></hashTree></jmeterTestPlan>"#
        );
        let (p, report) = read(&text, std::path::Path::new("t.jmx"), &Options::default()).unwrap();
        let names: Vec<&str> = p.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["before", "up"]);
        for name in ["down", "after"] {
            let r = report.iter().find(|r| r.name == name).unwrap();
            assert_eq!(r.status, Status::Warning, "{name}");
            assert!(
                r.note.starts_with("not started: <kg.apc.jmeter.threads.UltimateThreadGroup> \"utg\" (line"),
                "{}",
                r.note
            );
        }
        let strict = Options { strict: true, ..Default::default() };
        assert!(read(&text, std::path::Path::new("t.jmx"), &strict).is_err(), "--strict refuses");
    }

    /// A plan of one thread group element `tg` (its inside given) holding one sampler.
    fn load(class: &str, inside: &str) -> Result<Plan, Error> {
        let text = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree>
  <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
  <hashTree>
    <{class} testclass="{class}" testname="G" enabled="true">{inside}</{class}>
    <hashTree>
      <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true">
        <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
      </HTTPSamplerProxy>
      <hashTree/>
    </hashTree>
  </hashTree>
</hashTree></jmeterTestPlan>"#
        );
        read(&text, std::path::Path::new("t.jmx"), &Options::default()).map(|(p, _)| p)
    }

    fn props(pairs: &[(&str, &str)]) -> String {
        pairs.iter().map(|(k, v)| format!(r#"<stringProp name="{k}">{v}</stringProp>"#)).collect()
    }

    fn shaped_of(p: &Plan) -> &ShapedWorkload {
        let Workload::Shaped(w) = &p.scenarios[0].workload else { panic!("{:?}", p.scenarios[0].workload) };
        w
    }

    fn secs(ts: &Times) -> Vec<f64> {
        ts.0.iter().map(Duration::as_secs_f64).collect()
    }

    #[test]
    fn stepping_starts_and_stops_users_on_the_plugins_schedule() {
        // 7 users: a burst of 2, then 2 every 10 s each spread over 4 s, after a 5 s delay;
        // held 30 s after the last start; then 3 stop every 2 s.
        let p = load(
            STEPPING,
            &props(&[
                ("ThreadGroup.num_threads", "7"),
                ("Threads initial delay", "5"),
                ("Start users count", "2"),
                ("Start users count burst", "2"),
                ("Start users period", "10"),
                ("rampUp", "4"),
                ("flighttime", "30"),
                ("Stop users count", "3"),
                ("Stop users period", "2"),
            ]),
        )
        .unwrap();
        let w = shaped_of(&p);
        // Buckets of 14 s (period + ramp-up): burst at 5 s (2 s apart), then 19 s, 33 s, 47 s.
        assert_eq!(secs(&w.starts), [5.0, 7.0, 19.0, 21.0, 33.0, 35.0, 47.0]);
        // Descent: 5 + 3 × 14 + (4 / 2) × 1 + 30 = 79 s.
        assert_eq!(secs(w.stops.as_ref().unwrap()), [79.0, 79.0, 79.0, 81.0, 81.0, 81.0, 83.0]);
        assert_eq!((w.iterations, w.renew, w.finish_iteration), (None, false, false));
    }

    #[test]
    fn ultimate_users_stop_over_the_shutdown_time() {
        let row = |cells: &[&str]| {
            let c: String = cells.iter().map(|c| format!(r#"<stringProp name="0">{c}</stringProp>"#)).collect();
            format!(r#"<collectionProp name="r">{c}</collectionProp>"#)
        };
        let inside = format!(
            r#"<collectionProp name="ultimatethreadgroupdata">{}{}</collectionProp>"#,
            row(&["4", "1", "8", "10", "4"]),
            row(&["1", "0", "0", "2", ""])
        );
        let w = shaped_of(&load(ULTIMATE, &inside).unwrap()).clone();
        // The first thread of a row starts last: delay + startup × k / N, k = N … 1.
        assert_eq!(secs(&w.starts), [9.0, 7.0, 5.0, 3.0, 0.0]);
        // Each stops at delay + startup + hold + shutdown × k / N.
        assert_eq!(secs(w.stops.as_ref().unwrap()), [23.0, 22.0, 21.0, 20.0, 2.0]);
        // One scenario for the whole group, as one thread group.
        assert_eq!(load(ULTIMATE, &inside).unwrap().scenarios.len(), 1);
        // No rows: no thread; the plan then starts none and sends nothing, as in JMeter.
        let p = load(ULTIMATE, r#"<collectionProp name="ultimatethreadgroupdata"/>"#).unwrap();
        assert!(p.scenarios.is_empty());
    }

    #[test]
    fn concurrency_levels_are_checked_each_second_as_the_plugins_starter() {
        // 10 users in 2 steps over 10 s: 5 at once, 5 more at 5 s; held 20 s.
        let p = load(
            CONCURRENCY,
            &props(&[("TargetLevel", "10"), ("RampUp", "10"), ("Steps", "2"), ("Hold", "20"), ("Unit", "S")]),
        )
        .unwrap();
        let w = shaped_of(&p);
        assert_eq!(secs(&w.starts), [0.0, 0.0, 0.0, 0.0, 0.0, 5.0, 5.0, 5.0, 5.0, 5.0]);
        assert_eq!(secs(w.stops.as_ref().unwrap()), [30.0; 10]);
        assert_eq!((w.iterations, w.renew, w.finish_iteration), (None, true, true));
        // Linearly, in minutes: 4 users over 1 min (one due every 15 s, at 7.5 s, 22.5 s, ...),
        // seen at the first check after: 10 ms polls while none runs, then once a second.
        let p = load(
            CONCURRENCY,
            &props(&[("TargetLevel", "4"), ("RampUp", "1"), ("Hold", "1"), ("Unit", "M"), ("Iterations", "3")]),
        )
        .unwrap();
        let w = shaped_of(&p);
        assert_eq!(secs(&w.starts), [7.5, 22.5, 37.5, 52.5]);
        assert_eq!(secs(w.stops.as_ref().unwrap()), [120.0; 4]);
        assert_eq!(w.iterations, Some(3));
        // __tstFeedback: its max, fixed.
        let p = load(CONCURRENCY, &props(&[("TargetLevel", "${__tstFeedback(tst,2,6,0.1)}"), ("Hold", "5")])).unwrap();
        assert_eq!(shaped_of(&p).starts.len(), 6);
    }

    #[test]
    fn numbers_that_would_exhaust_memory_or_overflow_are_errors() {
        let row = |cells: [&str; 5]| {
            let cells: String = cells.iter().map(|c| format!("<stringProp name=\"c\">{c}</stringProp>")).collect();
            format!(
                r#"<collectionProp name="ultimatethreadgroupdata"><collectionProp name="r">{cells}</collectionProp></collectionProp>"#
            )
        };
        let refused = [
            // Each cell within a year but not each: a delay beyond what a duration holds.
            (ULTIMATE, row(["1", "1e300", "0", "-1e300", "0"]), "initial delay"),
            (ULTIMATE, row(["4000000000", "0", "10", "10", "0"]), "threads: 4000000000 is out of range"),
            (STEPPING, props(&[("ThreadGroup.num_threads", "1000000000000")]), "number of threads"),
            (STEPPING, props(&[("ThreadGroup.num_threads", "1"), ("flighttime", "9223372036854775807")]), "flighttime"),
            (CONCURRENCY, props(&[("TargetLevel", "100000000000"), ("Hold", "1")]), "target concurrency"),
            (ARRIVALS, props(&[("RampUp", "100"), ("Steps", "1000000000000"), ("Hold", "1")]), "steps"),
        ];
        for (class, inside, what) in refused {
            let e = load(class, &inside).unwrap_err();
            assert!(e.to_string().contains(what) && e.to_string().contains("out of range"), "{class}: {e}");
        }
        // A first user due after a long ramp-up is found at once, not walked to 10 ms at a time.
        let p = load(CONCURRENCY, &props(&[("TargetLevel", "1"), ("RampUp", "500000"), ("Unit", "M"), ("Hold", "1")]))
            .unwrap();
        assert_eq!(secs(&shaped_of(&p).starts), [15_000_000.0]);
    }

    /// #13: a bzm group whose `RampUp`, `Hold`, `Steps` or `Iterations` is not a number
    /// (`${var1}` nothing defines) loads: the plugin throws only when the group starts, and
    /// JMeter's run ends with no sample; the group starts no user (it was a plan error).
    #[test]
    fn a_bzm_group_with_a_number_that_is_not_one_starts_no_user() {
        for (class, name, v) in [
            (CONCURRENCY, "RampUp", "${var1}"),
            (CONCURRENCY, "Hold", "soon"),
            (CONCURRENCY, "Steps", "2.5"),
            (ARRIVALS, "Iterations", " 3"),
        ] {
            let inside = props(&[("TargetLevel", "2"), (name, v)]);
            assert!(load(class, &inside).unwrap().scenarios.is_empty(), "{name}");
            let text = format!(
                r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
                <{class} testclass="{class}" testname="G" enabled="true">{inside}</{class}><hashTree/>
                </hashTree></hashTree></jmeterTestPlan>"#
            );
            let i = super::super::inspect(&text, std::path::Path::new("t.jmx"), &Options::default());
            let r = i.elements.iter().find(|r| r.name == "G").unwrap();
            assert_eq!(r.status, Status::Partial, "{name}");
            assert!(r.note.starts_with(&format!("{name} `{v}` is not a number")), "{}", r.note);
        }
        assert!(load(CONCURRENCY, &props(&[("TargetLevel", "2"), ("RampUp", ""), ("Hold", " 1 ")])).is_ok());
    }

    #[test]
    fn arrivals_steps_and_free_form_rows_are_rate_stages() {
        let p = load(
            ARRIVALS,
            &props(&[
                ("TargetLevel", "120"),
                ("RampUp", "1"),
                ("Steps", "2"),
                ("Hold", "2"),
                ("Unit", "M"),
                ("ConcurrencyLimit", "7"),
            ]),
        )
        .unwrap();
        let Workload::Open(w) = &p.scenarios[0].workload else { panic!() };
        let st = |target: f64, s: u64| Stage { target, duration: Duration::from_secs(s) };
        assert_eq!(w.start_rate, 1.0);
        assert_eq!(w.stages, [st(1.0, 30), st(2.0, 0), st(2.0, 30), st(2.0, 120)]);
        assert_eq!(w.max_users, 7);

        let row = |a: &str, b: &str, d: &str| {
            format!(
                r#"<collectionProp name="r"><stringProp name="1">{a}</stringProp><stringProp name="2">{b}</stringProp><stringProp name="3">{d}</stringProp></collectionProp>"#
            )
        };
        let inside = format!(
            r#"<collectionProp name="Schedule">{}{}</collectionProp><stringProp name="ConcurrencyLimit">3</stringProp>"#,
            row("1", "5", "10"),
            row("8", "8", "3")
        );
        let p = load(FREE_FORM_ARRIVALS, &inside).unwrap();
        let Workload::Open(w) = &p.scenarios[0].workload else { panic!() };
        assert_eq!(w.start_rate, 1.0);
        assert_eq!(w.stages, [st(5.0, 10), st(8.0, 0), st(8.0, 3)]);
        assert_eq!(w.max_users, 3);
    }

    #[test]
    fn issue31_arrival_rates_beyond_any_generator_are_refused_naming_the_element() {
        let row = |a: &str, b: &str| {
            format!(
                r#"<collectionProp name="r"><stringProp name="1">{a}</stringProp><stringProp name="2">{b}</stringProp><stringProp name="3">10</stringProp></collectionProp>"#
            )
        };
        let free = |r: String| format!(r#"<collectionProp name="Schedule">{r}</collectionProp>"#);
        for (class, inside, says) in [
            (FREE_FORM_ARRIVALS, free(row("1", "1e300")), "a row's end rate of 1e300/s is beyond any generator"),
            (FREE_FORM_ARRIVALS, free(row("inf", "1")), "a row's start rate must be a number"),
            (FREE_FORM_ARRIVALS, free(row("1", "NaN")), "a row's end rate must be a number"),
            (FREE_FORM_ARRIVALS, free(row("2e9", "1")), "beyond any generator"),
            (
                ARRIVALS,
                props(&[("TargetLevel", "2000000000"), ("Hold", "1")]),
                "the start rate of 2000000000/s is beyond",
            ),
        ] {
            let e = load(class, &inside).unwrap_err().to_string();
            assert!(e.contains("t.jmx:") && e.contains("G") && e.contains(says), "{class}: {e}");
        }
        // Per minute, 2e9 is within the bound; a negative rate runs as 0, as before.
        let p = load(ARRIVALS, &props(&[("TargetLevel", "2000000000"), ("Unit", "M"), ("Hold", "1")])).unwrap();
        let Workload::Open(w) = &p.scenarios[0].workload else { panic!() };
        assert!((w.start_rate - 2e9 / 60.0).abs() < 1.0);
        load(FREE_FORM_ARRIVALS, &free(row("-5", "1"))).unwrap();
    }
}
