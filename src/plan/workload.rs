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
