//! How much load a scenario makes: a closed model (a fixed number of users, like a JMeter
//! thread group), a shaped one (users each with a start and a stop of their own, like the
//! Stepping, Ultimate and Concurrency thread groups) or an open one (an arrival rate, constant
//! or in ramping stages). Pure, validated data: executors read it, nothing here runs.

use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Workload {
    Closed(ClosedWorkload),
    Open(OpenWorkload),
    Shaped(ShapedWorkload),
}

/// Users each with a start and a stop of its own: a closed model whose number of active users
/// follows a schedule (JMeter's Stepping and Ultimate thread groups, the Concurrency Thread
/// Group).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ShapedWorkload {
    /// When user i starts, from the scenario's start.
    pub starts: Times,
    /// When user i stops: no request starts after it (no iteration, with `finish_iteration`).
    /// `None`: users end when their iterations are done.
    pub stops: Option<Times>,
    /// Iterations per user; `None` means "until its stop".
    pub iterations: Option<u64>,
    /// A user whose iterations are done before its stop is replaced at once by a new one, as
    /// the Concurrency Thread Group keeps its level.
    pub renew: bool,
    /// At its stop a user finishes the iteration it is in (the Concurrency Thread Group); else
    /// it stops before its next request, as JMeter's scheduler.
    pub finish_iteration: bool,
    #[serde(with = "super::serde_duration")]
    pub graceful_stop: Duration,
}

impl ShapedWorkload {
    /// The users of closed-model stages (`workload: {stages: [{users, duration}]}`, the
    /// Stepping/Concurrency thread group's shape, k6's ramping VUs): `start_users` at the start,
    /// then each stage moves the number of users linearly to its `users` over its `duration`
    /// (0s: at once; equal numbers: a hold). Of `n` users added over `d` from `t`, the k-th
    /// (k = 0 … n−1) starts at t + d·k/n, as a thread group's ramp-up; of `n` removed, the
    /// latest started goes first, the k-th at t + d·(k+1)/n, so the stage ends at its number.
    /// Every user left stops at the end. A user stopped finishes its iteration (an iteration is
    /// a flow, a login with its logout); a user whose stop is its start never runs.
    pub(crate) fn from_stages(
        start_users: u32,
        stages: &[(u32, Duration)],
        start_delay: Duration,
        graceful_stop: Duration,
    ) -> ShapedWorkload {
        // Each user's start and stop (none yet), and the users running, in the order they started.
        let mut users: Vec<(Duration, Option<Duration>)> = Vec::new();
        let mut running: Vec<usize> = Vec::new();
        let add = |at: Duration, users: &mut Vec<(Duration, Option<Duration>)>, running: &mut Vec<usize>| {
            running.push(users.len());
            users.push((at, None));
        };
        for _ in 0..start_users {
            add(start_delay, &mut users, &mut running);
        }
        let mut at = start_delay;
        for &(target, d) in stages {
            let now = running.len() as u32;
            if target > now {
                let n = target - now;
                for k in 0..u64::from(n) {
                    add(at + spread(d, k, n), &mut users, &mut running);
                }
            } else {
                let n = now - target;
                for k in 0..u64::from(n) {
                    if let Some(u) = running.pop() {
                        users[u].1 = Some(at + spread(d, k + 1, n));
                    }
                }
            }
            at += d;
        }
        let (starts, stops): (Vec<Duration>, Vec<Duration>) =
            users.into_iter().map(|(a, b)| (a, b.unwrap_or(at))).filter(|(a, b)| b > a).unzip();
        ShapedWorkload {
            starts: Times(starts),
            stops: Some(Times(stops)),
            iterations: None,
            renew: false,
            finish_iteration: true,
            graceful_stop,
        }
    }
}

/// One time per user, in user order (any order of times: JMeter's Ultimate Thread Group starts
/// the first user of a row last). Written in the resolved plan as arithmetic runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Times(pub Vec<Duration>);

impl Times {
    /// User `i` of `users` at `i × over / users` after `from`, to the nanosecond.
    pub(crate) fn linear(users: u32, from: Duration, over: Duration) -> Times {
        Times((0..u64::from(users)).map(|i| from + spread(over, i, users)).collect())
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn last(&self) -> Option<Duration> {
        self.0.iter().max().copied()
    }

    /// The times as runs `(count, first, step in ms)`: consecutive users whose times differ by
    /// one step, to the nanosecond.
    pub(crate) fn runs(&self) -> Vec<(usize, Duration, f64)> {
        let ns = |d: Duration| d.as_nanos() as i128;
        let mut out: Vec<(usize, Duration, i128)> = Vec::new();
        for &t in &self.0 {
            match out.last_mut() {
                Some((n, first, step)) if *n == 1 => {
                    *step = ns(t) - ns(*first);
                    *n = 2;
                }
                Some((n, first, step)) if ns(*first) + *step * *n as i128 == ns(t) => *n += 1,
                _ => out.push((1, t, 0)),
            }
        }
        out.into_iter().map(|(n, first, step)| (n, first, step as f64 / 1e6)).collect()
    }
}

impl Serialize for Times {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let runs = self.runs();
        let mut seq = s.serialize_seq(Some(runs.len()))?;
        for (n, first, step) in runs {
            let first = humantime::format_duration(first);
            seq.serialize_element(&if n == 1 {
                format!("{first}")
            } else {
                format!("{n} from {first} every {step} ms")
            })?;
        }
        seq.end()
    }
}

/// A Throughput Shaping Timer's schedule: rows of (start rate, end rate, seconds), samples a
/// second shared by every user whose samplers it is in scope of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Shaper {
    /// The timer's name.
    pub name: String,
    pub rows: Vec<ShapeRow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct ShapeRow {
    pub from: f64,
    pub to: f64,
    /// Whole seconds, as the plugin reads them.
    pub secs: u64,
}

impl Shaper {
    /// The rate for second `sec` of the schedule (from its first sample), as the plugin's
    /// `getRPSForSecond`: the row it falls in, a row's last second included (so the schedule
    /// has one second more than its rows' total); `None` past the end, where the plugin stops
    /// the thread group.
    pub(crate) fn rate_at(&self, sec: u64) -> Option<f64> {
        let mut left = sec;
        for r in &self.rows {
            if left <= r.secs {
                let rate = if r.secs == 0 { r.from } else { r.from + left as f64 * (r.to - r.from) / r.secs as f64 };
                return Some(rate);
            }
            left -= r.secs;
        }
        None
    }
}

/// A Precise Throughput Timer's arrivals (JMeter's `ConstantPoissonProcessGenerator`): in each
/// period of `duration` seconds, ⌈rate × duration⌉ instants drawn uniformly and sorted (a
/// Poisson process conditioned on a round count), counted in seconds from the test's start;
/// each sample in scope waits for the next one, `batch` samples sharing each instant. One
/// schedule per thread group, as JMeter keys it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Arrivals {
    /// The timer's name.
    pub name: String,
    /// Samples a second: the timer's throughput over its period.
    pub per_sec: f64,
    /// The period the count is made round over, in whole seconds (the timer's test duration).
    pub duration: i64,
    /// Samples that share one arrival (JMeter's batch size, as it reads it: 1 or less is 1
    /// for the rate, and a size of 0 or less never starts a new arrival after the first).
    pub batch: i32,
    /// Java's `Random` seed: the same seed gives JMeter's very instants. `None`: a random one.
    pub seed: Option<i64>,
}

/// `over × i / users`, to the nanosecond.
pub(crate) fn spread(over: Duration, i: u64, users: u32) -> Duration {
    let ns = over.as_nanos() * u128::from(i) / u128::from(users.max(1));
    Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}

/// Fixed users, each running the flow in a loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ClosedWorkload {
    pub users: u32,
    /// Users start evenly spread over this time (user i at i × ramp_up / users).
    #[serde(with = "super::serde_duration")]
    pub ramp_up: Duration,
    /// Iterations per user; `None` means "until the duration ends".
    pub iterations: Option<u64>,
    /// How long the scenario runs, from its start (ramp-up included, as JMeter's scheduler).
    #[serde(with = "super::serde_duration::option")]
    pub duration: Option<Duration>,
    /// Wait before the first user starts.
    #[serde(with = "super::serde_duration")]
    pub start_delay: Duration,
    /// After the duration ends, how long requests in flight may take to finish.
    #[serde(with = "super::serde_duration")]
    pub graceful_stop: Duration,
}

/// An arrival rate: a new iteration starts when it is due, whether or not earlier ones finished.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct OpenWorkload {
    /// The rate (iterations per second) at the start of the first stage.
    pub start_rate: f64,
    /// Each stage moves the rate linearly to its target over its duration.
    pub stages: Vec<Stage>,
    /// Users created before the start, so the first arrivals do not pay for creating them.
    pub pre_allocated_users: u32,
    /// Most users at once; an arrival that finds none free is dropped and counted.
    pub max_users: u32,
    #[serde(with = "super::serde_duration")]
    pub start_delay: Duration,
    #[serde(with = "super::serde_duration")]
    pub graceful_stop: Duration,
    /// JMeter's Open Model Thread Group: its arrival instants are drawn as JMeter draws them
    /// (the stages then only describe the rates), and each arrival is a new user, as each is
    /// a new thread in JMeter. `None`: arrivals by the stages, on reused users.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<ArrivalProcess>,
}

/// The Open Model Thread Group's arrival steps, as JMeter's `ThreadScheduleProcessGenerator`
/// runs them: each step makes ⌊(from + to) / 2 × secs⌋ arrivals, counted from its own start.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ArrivalProcess {
    pub steps: Vec<ProcessStep>,
    /// Java's `Random` seed; 0: a random one, as JMeter's `new Random()`.
    pub seed: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct ProcessStep {
    /// `random_arrivals` (a Poisson process of this many events), else `even_arrivals`.
    pub random: bool,
    /// Arrivals a second at the start and at the end (linear between).
    pub from: f64,
    pub to: f64,
    pub secs: f64,
}

impl ProcessStep {
    /// The arrivals it makes, as JMeter counts them (`toInt`/`toLong` of the mean × duration:
    /// 3.7 is 3; a negative count is none).
    pub(crate) fn count(&self) -> u64 {
        let n = (self.from + self.to) / 2.0 * self.secs;
        if self.random {
            (n as i32).max(0) as u64
        } else {
            (n as i64).max(0) as u64
        }
    }
}

impl ArrivalProcess {
    /// Every arrival of the schedule (saturating).
    pub(crate) fn total(&self) -> u64 {
        self.steps.iter().fold(0u64, |t, s| t.saturating_add(s.count()))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Stage {
    /// Iterations per second at the end of the stage.
    pub target: f64,
    #[serde(with = "super::serde_duration")]
    pub duration: Duration,
}

/// The highest arrival rate a workload may ask for, iterations per second: one a nanosecond.
/// The schedule times arrivals in whole nanoseconds, so a higher rate could be kept by no clock,
/// let alone dispatched by any generator or set of them: it is a mistake, refused before anything
/// is sent (a rate of 1e300 once ran a 2-s run for 12.5 s and wrapped its counters).
pub(crate) const MAX_RATE: f64 = 1e9;

/// Why `rate` (iterations per second) is not a rate a workload can run, if it is not: `what`
/// names it as the user wrote it (`--rate`, `rate`, `stages[0].rate`).
pub(crate) fn rate_problem(what: &str, rate: f64) -> Option<String> {
    if !rate.is_finite() || rate < 0.0 {
        return Some(format!("{what} must be a number of iterations per second, 0 or more"));
    }
    (rate > MAX_RATE).then(|| {
        // 1e300 written out is 300 digits.
        let shown = if rate < 1e15 { format!("{rate}") } else { format!("{rate:e}") };
        format!(
            "{what} of {shown}/s is beyond any generator: at most {MAX_RATE:e}/s (one arrival a nanosecond, the finest time the schedule keeps)"
        )
    })
}

impl OpenWorkload {
    /// Why one of its rates (the start's, a stage's) is not a rate a workload can run, if one
    /// is not: every reader asks it of what it built, so no plan format slips past the bound.
    pub(crate) fn rate_problem(&self) -> Option<String> {
        std::iter::once(("the start rate".to_string(), self.start_rate))
            .chain(self.stages.iter().enumerate().map(|(i, s)| (format!("the rate of stage {}", i + 1), s.target)))
            .find_map(|(what, rate)| rate_problem(&what, rate))
    }
}

/// Default time for requests in flight to finish after a scenario's end or an interrupt.
pub(crate) const DEFAULT_GRACEFUL_STOP: Duration = Duration::from_secs(10);

impl Workload {
    /// How long the scenario lasts by its schedule, start delay included; `None` for a closed
    /// workload bounded only by iterations.
    pub(crate) fn planned_duration(&self) -> Option<Duration> {
        match self {
            Workload::Closed(c) => c.duration.map(|d| d + c.start_delay),
            Workload::Open(o) => Some(o.start_delay + o.stages.iter().map(|s| s.duration).sum::<Duration>()),
            Workload::Shaped(s) => s.stops.as_ref().and_then(Times::last),
        }
    }

    pub(crate) fn graceful_stop(&self) -> Duration {
        match self {
            Workload::Closed(c) => c.graceful_stop,
            Workload::Open(o) => o.graceful_stop,
            Workload::Shaped(s) => s.graceful_stop,
        }
    }

    /// The most users that may run at once (each may hold a connection).
    pub(crate) fn max_concurrent_users(&self) -> u64 {
        match self {
            Workload::Closed(c) => u64::from(c.users),
            Workload::Open(o) => u64::from(o.max_users),
            Workload::Shaped(s) => s.starts.len() as u64,
        }
    }

    /// A one-line description: "50 users, ramp-up 10s, 30s" or "2000/s for 30s, max 500 users".
    pub(crate) fn describe(&self) -> String {
        let d = |d: Duration| humantime::format_duration(d).to_string();
        match self {
            Workload::Closed(c) => {
                let mut s = format!("closed: {} users", c.users);
                if !c.ramp_up.is_zero() {
                    s.push_str(&format!(", ramp-up {}", d(c.ramp_up)));
                }
                if let Some(n) = c.iterations {
                    s.push_str(&format!(", {n} iterations per user"));
                }
                if let Some(t) = c.duration {
                    s.push_str(&format!(", {}", d(t)));
                }
                s
            }
            Workload::Open(o) => {
                let constant = o.stages.len() == 1 && o.stages[0].target == o.start_rate;
                let mut s = if constant {
                    format!("open: {}/s for {}", o.start_rate, d(o.stages[0].duration))
                } else {
                    let mut s = format!("open: from {}/s", o.start_rate);
                    for st in &o.stages {
                        s.push_str(&format!(" → {}/s over {}", st.target, d(st.duration)));
                    }
                    s
                };
                s.push_str(&format!(", {} to {} users", o.pre_allocated_users, o.max_users));
                s
            }
            Workload::Shaped(w) => {
                let first = w.starts.0.iter().min().copied().unwrap_or_default();
                let mut s = format!(
                    "closed: {} users starting from {} to {}",
                    w.starts.len(),
                    d(first),
                    d(w.starts.last().unwrap_or_default())
                );
                if let Some(stops) = &w.stops {
                    let first = stops.0.iter().min().copied().unwrap_or_default();
                    s.push_str(&format!(", stopping from {} to {}", d(first), d(stops.last().unwrap_or_default())));
                }
                if let Some(n) = w.iterations {
                    s.push_str(&format!(", {n} iterations per user"));
                }
                if w.renew && w.iterations.is_some() {
                    s.push_str(", a user done is replaced");
                }
                s
            }
        }
    }
}

/// `run PLAN --users --duration --iterations --ramp-up`: one workload for every scenario of a
/// plan, so any plan can be bounded from the command line. `None` keeps the plan's value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Overrides {
    pub users: Option<u32>,
    pub duration: Option<Duration>,
    pub iterations: Option<u64>,
    pub ramp_up: Option<Duration>,
}

impl Overrides {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }
}

impl Workload {
    /// The workload with the command line's overrides applied. Closed (a thread group): each
    /// given value replaces the plan's (users, ramp-up, iterations per user, duration from the
    /// start, as JMeter's scheduler); the other bound stays, so the first reached ends it. Open:
    /// `duration` cuts the arrival schedule at that time (the rate where it is cut, never a
    /// longer schedule than the plan's), `users` caps the users at once; iterations and ramp-up
    /// have no meaning for an arrival rate and leave it alone. Shaped: `users` keeps the first
    /// users of the schedule, `ramp-up` starts them evenly over it from 0, `iterations` replaces
    /// the plan's (and a user done is no longer replaced), `duration` stops every user by then.
    pub(crate) fn bounded(&self, o: &Overrides) -> Workload {
        match self {
            Workload::Closed(c) => Workload::Closed(ClosedWorkload {
                users: o.users.unwrap_or(c.users),
                ramp_up: o.ramp_up.unwrap_or(c.ramp_up),
                iterations: o.iterations.or(c.iterations),
                duration: o.duration.or(c.duration),
                ..c.clone()
            }),
            Workload::Open(w) => {
                let mut w = w.clone();
                if let Some(max) = o.users {
                    w.max_users = max;
                    w.pre_allocated_users = w.pre_allocated_users.min(max);
                }
                if let Some(limit) = o.duration {
                    w.stages = cut_stages(w.start_rate, &w.stages, limit);
                }
                Workload::Open(w)
            }
            Workload::Shaped(w) => {
                let mut w = w.clone();
                if let Some(n) = o.users {
                    let n = (n as usize).min(w.starts.len());
                    w.starts.0.truncate(n);
                    if let Some(stops) = &mut w.stops {
                        stops.0.truncate(n);
                    }
                }
                if let Some(ramp) = o.ramp_up {
                    w.starts = Times::linear(w.starts.len() as u32, Duration::ZERO, ramp);
                }
                if o.iterations.is_some() {
                    // Iterations per user bound the run: a user done is not replaced.
                    w.iterations = o.iterations;
                    w.renew = false;
                }
                if let Some(limit) = o.duration {
                    let n = w.starts.len();
                    let stops = w.stops.get_or_insert_with(|| Times(vec![limit; n]));
                    stops.0.iter_mut().for_each(|t| *t = (*t).min(limit));
                }
                Workload::Shaped(w)
            }
        }
    }
}

/// The stages that fit in `limit`, the one it falls in ending at its rate there.
fn cut_stages(start_rate: f64, stages: &[Stage], limit: Duration) -> Vec<Stage> {
    let mut out = Vec::new();
    let (mut at, mut rate) = (Duration::ZERO, start_rate);
    for s in stages {
        let left = limit.saturating_sub(at);
        if left.is_zero() {
            break;
        }
        if s.duration <= left {
            out.push(s.clone());
        } else {
            let part = left.as_secs_f64() / s.duration.as_secs_f64();
            out.push(Stage { target: rate + (s.target - rate) * part, duration: left });
            break;
        }
        at += s.duration;
        rate = s.target;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: u64) -> Duration {
        Duration::from_secs(secs)
    }

    fn closed() -> ClosedWorkload {
        ClosedWorkload {
            users: 50,
            ramp_up: s(10),
            iterations: None,
            duration: Some(s(600)),
            start_delay: s(5),
            graceful_stop: DEFAULT_GRACEFUL_STOP,
        }
    }

    fn open() -> OpenWorkload {
        OpenWorkload {
            start_rate: 0.0,
            stages: vec![Stage { target: 100.0, duration: s(10) }, Stage { target: 100.0, duration: s(50) }],
            pre_allocated_users: 20,
            max_users: 200,
            start_delay: Duration::ZERO,
            graceful_stop: DEFAULT_GRACEFUL_STOP,
            process: None,
        }
    }

    /// Closed-model stages: users added as a ramp-up starts them, removed last-in first-out,
    /// the stage ending at its number; a jump is a 0s stage; users that never run are dropped.
    #[test]
    fn closed_stages_start_and_stop_users_on_the_schedule() {
        let w = ShapedWorkload::from_stages(
            1,
            &[(3, s(2)), (3, s(10)), (5, Duration::ZERO), (5, s(10)), (1, s(4)), (1, s(5))],
            s(1),
            s(30),
        );
        let secs = |t: &Times| t.0.iter().map(|d| d.as_secs_f64()).collect::<Vec<f64>>();
        // User 0 at the start; 1 and 2 over 2 s; 3 and 4 at 13 s; then 4, 3, 2, 1 stop a
        // second apart from 24 s; user 0 stays to the end at 32 s.
        assert_eq!(secs(&w.starts), [1.0, 1.0, 2.0, 13.0, 13.0]);
        assert_eq!(secs(w.stops.as_ref().unwrap()), [32.0, 27.0, 26.0, 25.0, 24.0]);
        assert!(w.finish_iteration && !w.renew && w.iterations.is_none());
        let level = |t: f64| {
            let stops = w.stops.as_ref().unwrap();
            w.starts.0.iter().zip(&stops.0).filter(|(a, b)| a.as_secs_f64() <= t && t < b.as_secs_f64()).count()
        };
        assert_eq!([level(0.5), level(1.5), level(5.0), level(13.0), level(20.0), level(29.0)], [0, 2, 3, 5, 5, 1]);
        assert_eq!(Workload::Shaped(w).planned_duration(), Some(s(32)));
        // Up and down at once: no user that never runs.
        let w = ShapedWorkload::from_stages(0, &[(4, Duration::ZERO), (0, Duration::ZERO), (2, s(1))], s(0), s(1));
        assert_eq!(secs(&w.starts), [0.0, 0.5]);
        assert_eq!(secs(w.stops.as_ref().unwrap()), [1.0, 1.0]);
    }

    #[test]
    fn no_overrides_change_nothing() {
        let o = Overrides::default();
        assert!(o.is_empty());
        for w in [Workload::Closed(closed()), Workload::Open(open())] {
            assert_eq!(w.bounded(&o), w);
        }
    }

    #[test]
    fn closed_values_are_replaced_and_the_rest_kept() {
        let o = Overrides { users: Some(2), iterations: Some(3), ..Default::default() };
        let Workload::Closed(c) = Workload::Closed(closed()).bounded(&o) else { panic!() };
        assert_eq!(c, ClosedWorkload { users: 2, iterations: Some(3), ..closed() });

        let o = Overrides { duration: Some(s(30)), ramp_up: Some(Duration::ZERO), ..Default::default() };
        let forever = ClosedWorkload { iterations: None, duration: None, ..closed() };
        let Workload::Closed(c) = Workload::Closed(forever.clone()).bounded(&o) else { panic!() };
        assert_eq!(c, ClosedWorkload { duration: Some(s(30)), ramp_up: Duration::ZERO, ..forever });
        // A longer duration replaces a shorter one, as the thread group's scheduler field.
        let o = Overrides { duration: Some(s(900)), ..Default::default() };
        let Workload::Closed(c) = Workload::Closed(closed()).bounded(&o) else { panic!() };
        assert_eq!(c.duration, Some(s(900)));
    }

    #[test]
    fn open_schedule_is_cut_at_the_duration_and_users_capped() {
        let o = Overrides { users: Some(10), duration: Some(s(5)), iterations: Some(7), ramp_up: Some(s(3)) };
        let Workload::Open(w) = Workload::Open(open()).bounded(&o) else { panic!() };
        assert_eq!(w.stages, vec![Stage { target: 50.0, duration: s(5) }]);
        assert_eq!((w.pre_allocated_users, w.max_users), (10, 10));
        assert_eq!(Workload::Open(w).planned_duration(), Some(s(5)));

        let Workload::Open(w) =
            Workload::Open(open()).bounded(&Overrides { duration: Some(s(30)), ..Default::default() })
        else {
            panic!()
        };
        assert_eq!(w.stages, vec![open().stages[0].clone(), Stage { target: 100.0, duration: s(20) }]);
        // Never longer than the plan's schedule.
        let long = Overrides { duration: Some(s(3600)), ..Default::default() };
        assert_eq!(Workload::Open(open()).bounded(&long), Workload::Open(open()));
    }

    #[test]
    fn shaped_schedule_is_bounded_by_every_override() {
        let w = ShapedWorkload {
            starts: Times(vec![s(0), s(5), s(10), s(15)]),
            stops: Some(Times(vec![s(100), s(90), s(80), s(70)])),
            iterations: None,
            renew: false,
            finish_iteration: false,
            graceful_stop: DEFAULT_GRACEFUL_STOP,
        };
        let o = Overrides { users: Some(3), duration: Some(s(85)), iterations: Some(2), ramp_up: Some(s(3)) };
        let Workload::Shaped(b) = Workload::Shaped(w.clone()).bounded(&o) else { panic!() };
        assert_eq!(b.starts, Times(vec![s(0), s(1), s(2)]));
        assert_eq!(b.stops, Some(Times(vec![s(85), s(85), s(80)])));
        assert_eq!(b.iterations, Some(2));
        assert_eq!(Workload::Shaped(b).planned_duration(), Some(s(85)));
        // Users bounded by iterations only get a stop from --duration.
        let free = ShapedWorkload { stops: None, ..w };
        let Workload::Shaped(b) =
            Workload::Shaped(free).bounded(&Overrides { duration: Some(s(7)), ..Default::default() })
        else {
            panic!()
        };
        assert_eq!(b.stops, Some(Times(vec![s(7); 4])));
    }

    #[test]
    fn shaper_rates_per_second_as_the_plugin() {
        let row = |from, to, secs| ShapeRow { from, to, secs };
        let s = Shaper { name: "tst".into(), rows: vec![row(0.0, 10.0, 5), row(10.0, 10.0, 2)] };
        let rates: Vec<Option<f64>> = (0..9).map(|sec| s.rate_at(sec)).collect();
        // Second 5 is the first row's last (10/s); the second row takes 6 and 7; 8 is past.
        assert_eq!(
            rates,
            [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 10.0, 10.0].map(Some).into_iter().chain([None]).collect::<Vec<_>>()
        );
    }

    #[test]
    fn times_are_written_as_runs() {
        let t = Times(vec![s(9), s(7), s(5), s(3), s(0), s(20), s(20)]);
        assert_eq!(t.runs(), vec![(4, s(9), -2000.0), (2, s(0), 20000.0), (1, s(20), 0.0)]);
    }
}
