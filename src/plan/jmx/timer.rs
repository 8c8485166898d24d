//! Timers: think times before each sampler in their scope (constant, uniform, Gaussian,
//! Poisson), the constant throughput timer's pacing, and the Throughput Shaping Timer's rate
//! schedule shared by every user, and the Synchronizing Timer's barrier.

use super::*;
use crate::plan::flow::{SyncSpec, TimerExpr, TimerKind};

/// The timers, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ConstantTimer", Cx::constant_timer),
    ("UniformRandomTimer", Cx::uniform_random_timer),
    ("ConstantThroughputTimer", Cx::constant_throughput_timer),
    ("GaussianRandomTimer", Cx::random_timer),
    ("PoissonRandomTimer", Cx::random_timer),
    ("kg.apc.jmeter.timers.VariableThroughputTimer", Cx::shaping_timer),
    ("SyncTimer", Cx::sync_timer),
    ("PreciseThroughputTimer", Cx::precise_throughput_timer),
];

/// The most arrivals a Precise Throughput Timer's period may hold: JMeter draws and sorts them
/// all at once (a million takes it about a second), and more is no plan anyone runs.
const MAX_PERIOD_ARRIVALS: f64 = 10_000_000.0;

impl Cx {
    pub(super) fn constant_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.kind_timer(c, s, depth, TimerKind::Constant, "a think time before each sampler in scope")
    }

    pub(super) fn uniform_random_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.kind_timer(c, s, depth, TimerKind::Uniform, "a uniform think time before each sampler in scope")
    }

    /// A constant or random timer: its delay (whole ms) and range (ms) as JMeter reads them, a
    /// value that is not a number being 0. Values with a variable set while the test runs are
    /// rendered before each sample, as JMeter evaluates them, instead of refusing the plan.
    fn kind_timer(&mut self, c: &El, s: &mut Scope, depth: usize, kind: TimerKind, what: &str) -> Result<(), Error> {
        let delay_raw = c.text("ConstantTimer.delay").unwrap_or("0").to_string();
        let range_raw = if kind == TimerKind::Constant {
            "0".to_string()
        } else {
            c.text("RandomTimer.range").unwrap_or("0").to_string()
        };
        let (delay, range) = match (self.expand(c, &delay_raw), self.expand(c, &range_raw)) {
            (Ok(d), Ok(r)) => (d, r),
            _ => {
                let (delay, range) = (self.tmpl(c, &delay_raw)?, self.tmpl(c, &range_raw)?);
                let slot = self.b.timer(TimerExpr { kind, delay, range });
                s.timers.push(Think::Timed { slot });
                let note = format!(
                    "{what}; its values are rendered before each sample, one that is not a number being 0 (as JMeter)"
                );
                self.report(c, depth, Status::Supported, note);
                return Ok(());
            }
        };
        let mut notes = Vec::new();
        let mut ms = |cx: &mut Cx, v: &str, name: &str, whole: bool| -> Result<f64, Error> {
            let t = v.trim();
            if let Ok(n) = t.parse::<i64>() {
                // A whole number beyond a year is refused as a fractional one is.
                if n.unsigned_abs() > MAX_DURATION.as_millis() as u64 {
                    return cx.millis(c, n as f64, name).map(|_| 0.0);
                }
                return Ok(n as f64);
            }
            match t.parse::<f64>() {
                // Beyond a year (or NaN): a plan error, as other times (#11).
                Ok(n) if !n.is_finite() || n.abs() > MAX_DURATION.as_millis() as f64 => {
                    cx.millis(c, n, name).map(|_| 0.0)
                }
                Ok(n) if !whole => Ok(n),
                _ => {
                    notes.push(format!(
                        "{name} `{v}` is not {}: 0, as JMeter",
                        if whole { "a whole number" } else { "a number" }
                    ));
                    Ok(0.0)
                }
            }
        };
        let delay = ms(self, &delay, "delay", true)?;
        let range = ms(self, &range, "range", false)?;
        if kind != TimerKind::Constant {
            self.millis(c, delay + range.max(0.0), "delay + range")?;
        }
        s.timers.push(kind.think(delay as i64, range));
        let note = if notes.is_empty() { what.to_string() } else { format!("{what}; {}", notes.join("; ")) };
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    pub(super) fn constant_throughput_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let raw = c.text("throughput").unwrap_or("0");
        let per_minute: f64 = match self.number_or_text(c, raw, "target throughput")? {
            Ok(n) => n,
            Err(v) => {
                // JMeter reads 0 samples a minute: each sample in scope waits 60 s / 0, for
                // ever; a run with a scheduled end stops the user there, as a timer past it does.
                self.warn(
                    c,
                    depth,
                    format!("the target throughput `{v}` is not a number: JMeter reads 0, each sample in its scope waits until the test ends"),
                );
                s.timers.push(Think::Constant(MAX_DURATION));
                return Ok(());
            }
        };
        let mode = calc_mode(c.text("calcMode").unwrap_or("0")).to_string();
        if per_minute > 0.0 {
            let slot = self.b.slot(Slot::Pace);
            let interval = self.secs(c, 60.0 / per_minute, "interval (60 s / target throughput)")?;
            s.timers.push(Think::Throughput { interval, shared: mode != "0", slot });
        }
        let (status, note) = match mode.as_str() {
                "0" => (Status::Supported, format!("each user: at most {per_minute} samples a minute")),
                "1" | "2" => (Status::Supported, format!("all active users together: {per_minute} samples a minute")),
                _ => (Status::Partial, format!("{per_minute} samples a minute shared by the active users of the thread group (JMeter's shared modes spread it differently)")),
            };
        self.report(c, depth, status, note);
        Ok(())
    }

    /// The Throughput Shaping Timer: rows of (start rate, end rate, seconds); each sampler in
    /// its scope waits for its turn in the rate of the current second, one schedule shared by
    /// every user of every thread group it is in; past the schedule the thread group stops.
    pub(super) fn shaping_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let mut rows = Vec::new();
        let mut notes = Vec::new();
        for row in c.collection("load_profile").unwrap_or_default() {
            let Value::Collection(cells) = &row.value else { continue };
            let cells = texts(cells);
            if cells.len() < 3 {
                return Err(
                    self.err(c, "a Throughput Shaping Timer row needs a start rate, an end rate and a duration")
                );
            }
            // As the plugin reads its cells: a rate that is not a number is 0, and so is a
            // duration that is not a whole number of seconds.
            let mut value = |cx: &mut Cx, raw: &str, what: &str, whole: bool| -> Result<f64, Error> {
                let v = cx.expand(c, raw)?;
                let n =
                    if whole { v.trim().parse::<i64>().map(|n| n as f64).ok() } else { v.trim().parse::<f64>().ok() };
                Ok(n.filter(|n| n.is_finite()).unwrap_or_else(|| {
                    notes.push(format!("{what} `{v}` is taken as 0, as the plugin does"));
                    0.0
                }))
            };
            let from = value(self, &cells[0], "start rate", false)?;
            let to = value(self, &cells[1], "end rate", false)?;
            let secs = value(self, &cells[2], "duration", true)?;
            self.secs(c, secs, "duration")?;
            for (what, rate) in [("start rate", from), ("end rate", to)] {
                if let Some(problem) =
                    workload::rate_problem(&format!("a row's {what}"), if rate < 0.0 { 0.0 } else { rate })
                {
                    return Err(self.err(c, problem));
                }
            }
            rows.push(workload::ShapeRow { from, to, secs: secs.max(0.0) as u64 });
        }
        let total: u64 = rows.iter().map(|r| r.secs).sum();
        let slot = self.b.shaper(c.line, Shaper { name: c.name.clone(), rows });
        s.timers.push(Think::Shaped { slot });
        let mut note = format!(
            "samples of all users follow the rate schedule ({total} s, and its last second); then the thread group stops"
        );
        if !notes.is_empty() {
            note = format!("{note}; {}", notes.join("; "));
        }
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// The Precise Throughput Timer: `throughput` samples per `throughputPeriod` seconds, at
    /// instants of a Poisson process with a round count per `duration` seconds, shared by the
    /// users of the thread group (executor/precise.rs). JMeter does not implement the batch
    /// thread delay, and no longer reads the allowed surplus and exact limit: nor does this.
    pub(super) fn precise_throughput_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let mut notes = Vec::new();
        // A TestBean's number: text that is not one converts to 0, as JMeter's `Converter`.
        let mut value = |cx: &mut Cx, name: &str, default: &str, whole: bool| -> Result<f64, Error> {
            let raw = c.text(name).unwrap_or(default).to_string();
            let v = cx.expand(c, &raw)?;
            let t = v.trim();
            let n = if whole { t.parse::<i64>().map(|n| n as f64).ok() } else { t.parse::<f64>().ok() };
            Ok(n.filter(|n| n.is_finite()).unwrap_or_else(|| {
                notes.push(format!("{name} `{v}` is read as 0, as JMeter"));
                0.0
            }))
        };
        let throughput = value(self, "throughput", "100", false)?;
        let period = value(self, "throughputPeriod", "3600", true)?;
        let duration = value(self, "duration", "3600", true)?;
        let batch = value(self, "batchSize", "1", true)?;
        let seed = value(self, "randomSeed", "0", true)?;
        let per_sec = throughput / period;
        let per_period = per_sec / batch.max(1.0) * duration;
        if period == 0.0 || per_period > MAX_PERIOD_ARRIVALS {
            return Err(self.err(
                c,
                format!(
                    "{throughput} samples per {period} s over a test duration of {duration} s is beyond any generator: JMeter draws every arrival of a period at once, at most {MAX_PERIOD_ARRIVALS:e}"
                ),
            ));
        }
        if !per_sec.is_finite() || per_period.ceil() < 1.0 || per_sec.abs() < 0.00001 {
            // JMeter's generator has no arrival to give: its timer throws before each sample
            // in scope (`BufferUnderflowException`), which skips that sample.
            self.warn(
                c,
                depth,
                format!(
                    "{throughput} samples per {period} s over {duration} s is no arrival at all: JMeter skips each sample in its scope with an error; here each user waits until the test ends"
                ),
            );
            s.timers.push(Think::Constant(MAX_DURATION));
            return Ok(());
        }
        let arrivals = workload::Arrivals {
            name: c.name.clone(),
            per_sec,
            duration: duration as i64,
            batch: batch.clamp(i32::MIN as f64, i32::MAX as f64) as i32,
            seed: (seed != 0.0).then_some(seed as i64),
        };
        let slot = self.b.arrivals(self.b.scenarios().len(), arrivals);
        s.timers.push(Think::Precise { slot });
        let mut note = format!(
            "the thread group's samples in scope start at the arrivals of a Poisson process: {per_sec} a second, a round count every {duration} s"
        );
        if batch > 1.0 {
            note.push_str(&format!(", {batch} samples an arrival"));
        }
        if !notes.is_empty() {
            note = format!("{note}; {}", notes.join("; "));
        }
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// The Synchronizing Timer: each user in its scope waits before the sampler until
    /// `groupSize` users wait (0: the thread group's users), then all go at once; one barrier
    /// per element, shared by every user of every thread group it is in (JMeter's clones share
    /// it). Values are read once, when the test starts, as JMeter builds the barrier then.
    pub(super) fn sync_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let mut notes = Vec::new();
        let mut whole = |cx: &mut Cx, name: &str, what: &str| -> i64 {
            let raw = c.text(name).unwrap_or("0");
            let v = cx.expand(c, raw).unwrap_or_else(|_| raw.to_string());
            v.trim().parse::<i64>().unwrap_or_else(|_| {
                notes.push(format!("{what} `{}` is not a whole number: 0", v.trim()));
                0
            })
        };
        let group_size = whole(self, "groupSize", "the number of users to group by");
        let timeout_ms = whole(self, "timeoutInMs", "the timeout");
        if timeout_ms > 0 {
            self.millis(c, timeout_ms as f64, "timeout")?;
        }
        if group_size < 0 {
            // JMeter 5.6.3 sends nothing: its CyclicBarrier refuses the size as the test starts.
            return Err(self.err(
                c,
                format!(
                    "the number of users to group by `{group_size}` is negative: JMeter cannot start the test with it"
                ),
            ));
        }
        let spec = SyncSpec { name: c.name.clone(), group_size: group_size.max(0) as u64, timeout_ms };
        let slot = self.b.sync_timer(c.line, spec);
        // JMeter calls every timer's `delay()` in turn, then sleeps their sum: a barrier is
        // passed before any think time of the same sampler, wherever the timers stand.
        let at = s.timers.iter().take_while(|t| matches!(t, Think::Sync { .. })).count();
        s.timers.insert(at, Think::Sync { slot });
        let batch = if group_size > 0 { format!("{group_size} users") } else { "all the thread group's users".into() };
        let wait = if timeout_ms > 0 {
            format!("one that waited {timeout_ms} ms goes on, with the others waiting")
        } else {
            "no timeout: a wait ends at the user's end or a stop, or when fewer users are left than a batch (the user ends, as JMeter's would when stopped)".into()
        };
        let mut note =
            format!("each user waits before each sampler in scope until {batch} wait, then all go at once; {wait}");
        if !notes.is_empty() {
            note = format!("{note}; {}", notes.join("; "));
        }
        if timeout_ms < 0 {
            self.warn(
                c,
                depth,
                format!(
                    "the timeout `{timeout_ms}` is negative: JMeter's timer throws, each user that reaches it ends"
                ),
            );
        } else {
            self.report(c, depth, Status::Supported, note);
        }
        Ok(())
    }

    /// Gaussian and Poisson random timers.
    pub(super) fn random_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let kind = if c.class == "GaussianRandomTimer" { TimerKind::Gaussian } else { TimerKind::Poisson };
        self.kind_timer(c, s, depth, kind, "a random think time before each sampler in scope")
    }
}

/// The Constant Throughput Timer's mode, 0 to 4, however the plan saved it: a number (JMeter
/// 5), the resource key `calcMode.1`..`calcMode.5`, or the English text older versions saved
/// (`GenericTestBeanCustomizer.normalizeEnumProperty` reads all three). Anything else is JMeter's
/// default, "this thread only".
fn calc_mode(text: &str) -> u8 {
    const NAMES: [&str; 5] = [
        "this thread only",
        "all active threads",
        "all active threads in current thread group",
        "all active threads (shared)",
        "all active threads in current thread group (shared)",
    ];
    let t = text.trim();
    if let Ok(n) = t.parse::<u8>() {
        return if n < 5 { n } else { 0 };
    }
    if let Some(n) = t.strip_prefix("calcMode.").and_then(|n| n.parse::<u8>().ok()) {
        return if (1..=5).contains(&n) { n - 1 } else { 0 };
    }
    NAMES.iter().position(|n| *n == t).map_or(0, |i| i as u8)
}

#[cfg(test)]
mod tests {
    use crate::plan::flow::{Think, TimerKind};
    use std::time::Duration;

    /// As JMeter's `getPropertyAsLong`/`getPropertyAsDouble`: a delay that is not a whole
    /// number and a range that is not a number are 0.
    #[test]
    fn values_that_are_not_numbers_are_zero() {
        assert_eq!(TimerKind::delay_of(" 250 "), 250);
        assert_eq!((TimerKind::delay_of("1.5"), TimerKind::delay_of("${delay}"), TimerKind::delay_of("")), (0, 0, 0));
        assert_eq!(
            (TimerKind::range_of("2.5"), TimerKind::range_of("abc"), TimerKind::range_of("NaN")),
            (2.5, 0.0, 0.0)
        );
        let ms = Duration::from_millis;
        assert_eq!(TimerKind::Constant.think(-5, 0.0), Think::Constant(Duration::ZERO));
        assert_eq!(TimerKind::Uniform.think(100, 50.0), Think::Uniform { min: ms(100), max: ms(150) });
        assert_eq!(TimerKind::Poisson.think(10, 20.0), Think::Poisson { offset: ms(10), lambda_ms: 20.0 });
    }

    #[test]
    fn calc_modes_read_as_jmeter_reads_them() {
        for (text, mode) in [
            ("0", 0),
            ("2", 2),
            ("calcMode.1", 0),
            ("calcMode.4", 3),
            ("this thread only", 0),
            ("all active threads in current thread group (shared)", 4),
            ("all active threads", 1),
            ("bogus", 0),
        ] {
            assert_eq!(super::calc_mode(text), mode, "{text}");
        }
    }
}

#[cfg(test)]
mod shaping_tests {
    use crate::plan::jmx::synthetic::tests::plan_of;
    use crate::plan::jmx::{read, Options};

    #[test]
    fn issue31_a_shaping_timer_rate_beyond_any_generator_is_refused_naming_it() {
        let timer = |to: &str| {
            format!(
                r#"<kg.apc.jmeter.timers.VariableThroughputTimer testclass="kg.apc.jmeter.timers.VariableThroughputTimer" testname="Shape" enabled="true">
                <collectionProp name="load_profile"><collectionProp name="r"><stringProp name="1">1</stringProp><stringProp name="2">{to}</stringProp><stringProp name="3">10</stringProp></collectionProp></collectionProp>
                </kg.apc.jmeter.timers.VariableThroughputTimer><hashTree/>
                <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let e = read(&plan_of(&timer("1e300")), std::path::Path::new("t.jmx"), &Options::default()).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("t.jmx:") && e.contains("a row's end rate of 1e300/s is beyond any generator"), "{e}");
        read(&plan_of(&timer("100")), std::path::Path::new("t.jmx"), &Options::default()).unwrap();
    }
}

#[cfg(test)]
mod precise_tests {
    use crate::plan::jmx::synthetic::tests::plan_of;
    use crate::plan::jmx::{read, Options};
    use crate::plan::Arrivals;

    fn timer(throughput: &str, period: &str, batch: &str, seed: &str) -> String {
        format!(
            r#"<PreciseThroughputTimer guiclass="TestBeanGUI" testclass="PreciseThroughputTimer" testname="ptt" enabled="true">
            <doubleProp><name>throughput</name><value>{throughput}</value><savedValue>0.0</savedValue></doubleProp>
            <intProp name="throughputPeriod">{period}</intProp><longProp name="duration">600</longProp>
            <intProp name="batchSize">{batch}</intProp><longProp name="randomSeed">{seed}</longProp>
            </PreciseThroughputTimer><hashTree/>
            <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="a" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>
            <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="b" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
        )
    }

    #[test]
    fn precise_timer_is_one_schedule_per_thread_group_with_its_fields() {
        let p =
            read(&plan_of(&timer("120", "60", "3", "42")), std::path::Path::new("t.jmx"), &Options::default()).unwrap();
        assert_eq!(
            p.0.arrivals,
            vec![Arrivals { name: "ptt".into(), per_sec: 2.0, duration: 600, batch: 3, seed: Some(42) }]
        );
        let p =
            read(&plan_of(&timer("60", "60", "1", "0")), std::path::Path::new("t.jmx"), &Options::default()).unwrap();
        assert_eq!(p.0.arrivals[0].seed, None);
    }

    #[test]
    fn precise_timer_beyond_any_generator_is_refused_and_one_without_arrivals_warns() {
        let e = read(&plan_of(&timer("1e9", "1", "1", "0")), std::path::Path::new("t.jmx"), &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.jmx:") && e.contains("is beyond any generator"), "{e}");
        let e = read(&plan_of(&timer("5", "0", "1", "0")), std::path::Path::new("t.jmx"), &Options::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("beyond any generator"), "{e}");
        let p =
            read(&plan_of(&timer("0", "60", "1", "0")), std::path::Path::new("t.jmx"), &Options::default()).unwrap();
        assert!(p.0.arrivals.is_empty());
    }
}

#[cfg(test)]
mod sync_tests {
    use crate::plan::flow::{for_each_step, Step, Think};
    use crate::plan::jmx::synthetic::tests::plan_of;
    use crate::plan::jmx::{read, Options};

    fn sync(group: &str, timeout: &str) -> String {
        format!(
            r#"<SyncTimer guiclass="TestBeanGUI" testclass="SyncTimer" testname="Sync" enabled="true">
            <intProp name="groupSize">{group}</intProp><longProp name="timeoutInMs">{timeout}</longProp>
            </SyncTimer><hashTree/>"#
        )
    }

    const UNIFORM: &str = r#"<UniformRandomTimer testclass="UniformRandomTimer" testname="u" enabled="true">
        <stringProp name="ConstantTimer.delay">100</stringProp><stringProp name="RandomTimer.range">50</stringProp>
        </UniformRandomTimer><hashTree/>"#;

    fn get(children: &str) -> String {
        format!(
            r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="get" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree>{children}</hashTree>"#
        )
    }

    fn thinks(jmx: &str) -> (Vec<Think>, crate::plan::Plan) {
        let (plan, _) = read(&plan_of(jmx), std::path::Path::new("t.jmx"), &Options::default()).unwrap();
        let mut out = Vec::new();
        for_each_step(&plan.scenarios[0].flow, &mut |s| {
            if let Step::Think(t) = s {
                out.push(*t);
            }
        });
        (out, plan)
    }

    /// Was refused as unsupported; now one barrier per element, its values as JMeter reads
    /// them, passed before the other timers' think times (JMeter sleeps their sum after).
    #[test]
    fn a_sync_timer_is_one_barrier_passed_before_the_other_timers() {
        let (t, plan) =
            thinks(&format!("{}{}", get(&format!("{UNIFORM}{}", sync("3", "250"))), get(&sync("3", "250"))));
        assert!(matches!(t[..], [Think::Sync { slot: 0 }, Think::Uniform { .. }, Think::Sync { slot: 1 }]), "{t:?}");
        assert_eq!((plan.syncs.len(), plan.syncs[0].group_size, plan.syncs[0].timeout_ms), (2, 3, 250));
        // One element above both samplers: one barrier for both.
        let (t, plan) = thinks(&format!("{}{}{}", sync("0", "0"), get(""), get("")));
        assert!(matches!(t[..], [Think::Sync { slot: 0 }, Think::Sync { slot: 0 }]), "{t:?}");
        assert_eq!((plan.syncs.len(), plan.syncs[0].group_size, plan.syncs[0].timeout_ms), (1, 0, 0));
        let (_, plan) = thinks(&format!("{}{}", sync("many", "-5"), get("")));
        assert_eq!((plan.syncs[0].group_size, plan.syncs[0].timeout_ms), (0, -5));
        let e = read(
            &plan_of(&format!("{}{}", sync("-1", "0"), get(""))),
            std::path::Path::new("t.jmx"),
            &Options::default(),
        );
        let e = e.unwrap_err().to_string();
        assert!(e.contains("t.jmx:") && e.contains("group by `-1` is negative"), "{e}");
    }
}
