//! How much load a scenario makes: a closed model (a fixed number of users, like a JMeter
//! thread group) or an open one (an arrival rate, constant or in ramping stages). Pure,
//! validated data: executors read it, nothing here runs.

use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    Closed(ClosedWorkload),
    Open(OpenWorkload),
}

/// Fixed users, each running the flow in a loop.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClosedWorkload {
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
pub struct OpenWorkload {
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
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stage {
    /// Iterations per second at the end of the stage.
    pub target: f64,
    #[serde(with = "super::serde_duration")]
    pub duration: Duration,
}

/// Default time for requests in flight to finish after a scenario's end or an interrupt.
pub const DEFAULT_GRACEFUL_STOP: Duration = Duration::from_secs(10);

impl Workload {
    /// The model's name as reports print it.
    pub fn model(&self) -> &'static str {
        match self {
            Workload::Closed(_) => "closed",
            Workload::Open(_) => "open",
        }
    }

    /// How long the scenario lasts by its schedule, start delay included; `None` for a closed
    /// workload bounded only by iterations.
    pub fn planned_duration(&self) -> Option<Duration> {
        match self {
            Workload::Closed(c) => c.duration.map(|d| d + c.start_delay),
            Workload::Open(o) => Some(o.start_delay + o.stages.iter().map(|s| s.duration).sum::<Duration>()),
        }
    }

    pub fn graceful_stop(&self) -> Duration {
        match self {
            Workload::Closed(c) => c.graceful_stop,
            Workload::Open(o) => o.graceful_stop,
        }
    }

    /// The most users that may run at once (each may hold a connection).
    pub fn max_concurrent_users(&self) -> u64 {
        match self {
            Workload::Closed(c) => u64::from(c.users),
            Workload::Open(o) => u64::from(o.max_users),
        }
    }

    /// A one-line description: "50 users, ramp-up 10s, 30s" or "2000/s for 30s, max 500 users".
    pub fn describe(&self) -> String {
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
        }
    }
}

/// `run PLAN --users --duration --iterations --ramp-up`: one workload for every scenario of a
/// plan, so any plan can be bounded from the command line. `None` keeps the plan's value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Overrides {
    pub users: Option<u32>,
    pub duration: Option<Duration>,
    pub iterations: Option<u64>,
    pub ramp_up: Option<Duration>,
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }
}

impl Workload {
    /// The workload with the command line's overrides applied. Closed (a thread group): each
    /// given value replaces the plan's (users, ramp-up, iterations per user, duration from the
    /// start, as JMeter's scheduler); the other bound stays, so the first reached ends it. Open:
    /// `duration` cuts the arrival schedule at that time (the rate where it is cut, never a
    /// longer schedule than the plan's), `users` caps the users at once; iterations and ramp-up
    /// have no meaning for an arrival rate and leave it alone.
    pub fn bounded(&self, o: &Overrides) -> Workload {
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
        }
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
}
