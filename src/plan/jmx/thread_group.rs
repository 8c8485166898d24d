//! Thread groups (plain, setUp, tearDown, Ultimate): each becomes one scenario, or one per
//! Ultimate Thread Group row, with its workload, phase and action after a sample error.

use super::*;

/// A scenario name not taken yet: `Users`, then `Users (2)`, ... (an unnamed group is `Thread Group`).
pub(super) fn unique_name(name: &str, b: &Builder) -> String {
    let base = if name.trim().is_empty() { "Thread Group".to_string() } else { name.to_string() };
    let mut n = base.clone();
    let mut i = 2;
    while b.has_scenario(&n) {
        n = format!("{base} ({i})");
        i += 1;
    }
    n
}

/// The thread groups stampede reads (others are unknown elements).
pub(super) fn is_thread_group(class: &str) -> bool {
    matches!(
        class,
        "ThreadGroup" | "kg.apc.jmeter.threads.UltimateThreadGroup" | "SetupThreadGroup" | "PostThreadGroup"
    )
}

impl Cx {
    /// Each enabled thread group of the plan as one scenario, or one per Ultimate Thread Group row.
    pub(super) fn thread_groups(&mut self, test_plan: &El, plan_scope: &Scope) -> Result<(), Error> {
        for tg in &test_plan.children {
            if !is_thread_group(&tg.class) {
                continue;
            }
            if !tg.enabled {
                self.report(tg, 1, Status::Disabled, "disabled: skipped");
                continue;
            }
            let name = unique_name(&tg.name, &self.b);
            // A group that cannot be read is reported with its error; its children are still read.
            let mut workloads = self.workloads(tg).unwrap_or_else(|e| {
                self.failed(tg, 1, e);
                Vec::new()
            });
            // JMeter starts no thread for a group (or an Ultimate Thread Group row) of 0 threads.
            workloads.retain(|w| !matches!(w, Workload::Closed(c) if c.users == 0));
            let mut steps = plan_scope.pre.clone();
            steps.extend(self.controller_body(&tg.children, plan_scope, 2)?);
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
            }
        }
        Ok(())
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
        if tg.class == "kg.apc.jmeter.threads.UltimateThreadGroup" {
            let mut out = Vec::new();
            let rows = tg.collection("ultimatethreadgroupdata").unwrap_or_default();
            for row in rows {
                let Value::Collection(cells) = &row.value else { continue };
                let cells = texts(cells);
                if cells.len() < 4 {
                    return Err(self.err(tg, "an Ultimate Thread Group row needs threads, delay, startup and hold"));
                }
                let users: u32 = self.number(tg, &cells[0], "threads")?;
                let delay: f64 = self.number(tg, &cells[1], "initial delay")?;
                let startup: f64 = self.number(tg, &cells[2], "startup time")?;
                let hold: f64 = self.number(tg, &cells[3], "hold time")?;
                let shutdown: f64 = match cells.get(4) {
                    Some(s) if !s.trim().is_empty() => self.number(tg, s, "shutdown time")?,
                    _ => 0.0,
                };
                out.push(Workload::Closed(ClosedWorkload {
                    users,
                    ramp_up: self.secs(tg, startup, "startup time")?,
                    iterations: None,
                    duration: Some(self.secs(tg, startup + hold, "startup + hold time")?),
                    start_delay: self.secs(tg, delay, "initial delay")?,
                    graceful_stop: self.secs(tg, shutdown, "shutdown time")?.max(workload::DEFAULT_GRACEFUL_STOP),
                }));
            }
            if out.is_empty() {
                // The plugin counts the threads of its rows: none, so it starts no thread.
                self.report(tg, 1, Status::Supported, "no rows: starts no thread, as the plugin does");
                return Ok(out);
            }
            self.report(
                tg,
                1,
                Status::Partial,
                format!(
                    "{} user group(s) as scenarios; users stop at the end of hold, not over the shutdown time",
                    out.len()
                ),
            );
            return Ok(out);
        }

        let mut notes = Vec::new();
        let users = self.thread_count(tg, &mut notes)?;
        let ramp = self.number_or_zero(tg, tg.text("ThreadGroup.ramp_time").unwrap_or("0"), "ramp-up", &mut notes);
        let main = tg.nested("ThreadGroup.main_controller").unwrap_or_default();
        let loops_raw = main.text("LoopController.loops").unwrap_or("1").to_string();
        let loops: i64 = self.number(tg, &loops_raw, "loop count")?;
        let forever = loops < 0;
        let scheduler = tg.flag("ThreadGroup.scheduler").unwrap_or(false);
        let (duration, delay) = if scheduler {
            // JMeter stops the test at once ("Invalid duration"/"Invalid delay ... set in Thread
            // Group") for a duration that is not above 0 (absent counts as 0) or a negative delay.
            let d = match tg.text("ThreadGroup.duration").filter(|d| !d.trim().is_empty()) {
                Some(d) => self.number(tg, d, "duration")?,
                None => 0.0,
            };
            if d <= 0.0 {
                return Err(self.err(
                    tg,
                    format!("the scheduler is on and the duration is {d} s: it must be above 0 (JMeter stops the test: \"Invalid duration\")"),
                ));
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
        self.report(tg, 1, status, note);
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
