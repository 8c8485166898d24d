//! `workload:` — the closed model (users, iterations, duration, or stages of users) or the
//! open one (an arrival rate, or stages of rates).

use super::node::Node;
use super::*;

const WORKLOAD_KEYS: &[&str] = &[
    "users",
    "ramp_up",
    "iterations",
    "duration",
    "rate",
    "start_rate",
    "stages",
    "start_users",
    "pre_allocated_users",
    "max_users",
    "start_delay",
    "graceful_stop",
];
const STAGE_KEYS: &[&str] = &["rate", "target", "users", "duration"];

impl Cx {
    pub(super) fn workload(&mut self, n: &Node, el: &str) -> Result<Workload, Error> {
        let w = self.fields(n, el, "WorkloadDoc", WORKLOAD_KEYS)?;
        let f = |name: &str| format!("{el}.{name}");
        let start_delay = self.opt_duration(w.get("start_delay"), &f("start_delay"))?.unwrap_or_default();
        let graceful_stop = self
            .opt_duration(w.get("graceful_stop"), &f("graceful_stop"))?
            .unwrap_or(crate::plan::workload::DEFAULT_GRACEFUL_STOP);
        if let Some(stages) = w.get("stages").filter(|st| of_users(st)) {
            return self.closed_stages(&w, stages, el, start_delay, graceful_stop);
        }
        if let Some(k) = w.get("start_users").and(w.key("start_users")) {
            return Err(self.invalid(k, el, "`start_users` goes with `stages` of users"));
        }
        if w.has("rate") || w.has("stages") {
            return self.open(&w, el, start_delay, graceful_stop);
        }
        for key in ["start_rate", "max_users", "pre_allocated_users"] {
            if let Some(k) = w.get(key).and(w.key(key)) {
                return Err(self.invalid(
                    k,
                    el,
                    "start_rate, pre_allocated_users and max_users belong to an open workload (with `rate` or `stages`)",
                ));
            }
        }
        let users: u32 = match w.get("users") {
            Some(v) => self.count(v, &f("users"))?,
            None => {
                return Err(Error::new(
                    ErrorKind::Missing,
                    self.loc(n, el),
                    "a workload needs `users` (closed model) or `rate`/`stages` (open model)",
                ))
            }
        };
        if users == 0 {
            return Err(self.invalid(w.get("users").unwrap_or(n), &f("users"), "`users` must be at least 1"));
        }
        let iterations = w.get("iterations").map(|v| self.count::<u64>(v, &f("iterations"))).transpose()?;
        let duration = w.get("duration").map(|d| self.run_time(d, &f("duration"))).transpose()?;
        if iterations.is_none() && duration.is_none() {
            return Err(Error::new(
                ErrorKind::Missing,
                self.loc(n, el),
                "a closed workload needs `iterations` (per user) or `duration`, or both",
            ));
        }
        Ok(Workload::Closed(ClosedWorkload {
            users,
            ramp_up: self.opt_duration(w.get("ramp_up"), &f("ramp_up"))?.unwrap_or_default(),
            iterations,
            duration,
            start_delay,
            graceful_stop,
        }))
    }

    /// `stages` of users: the closed model's schedule, each stage moving the users linearly
    /// to its number over its duration (see [`ShapedWorkload::from_stages`]).
    fn closed_stages(
        &mut self,
        w: &Fields<'_>,
        stages_node: &Node,
        el: &str,
        start_delay: Duration,
        graceful_stop: Duration,
    ) -> Result<Workload, Error> {
        let f = |name: &str| format!("{el}.{name}");
        let others =
            ["users", "ramp_up", "iterations", "duration", "rate", "start_rate", "max_users", "pre_allocated_users"];
        if let Some(k) = others.iter().find_map(|k| w.get(k).and(w.key(k))) {
            return Err(self.invalid(
                k,
                el,
                "with `stages` of users, each stage sets the users and how long; the workload takes only `start_users`, `start_delay` and `graceful_stop` beside them",
            ));
        }
        let start_users =
            w.get("start_users").map(|v| self.count::<u32>(v, &f("start_users"))).transpose()?.unwrap_or(0);
        let mut stages = Vec::new();
        for (i, s) in self.seq(Some(stages_node), &f("stages"))?.iter().enumerate() {
            let sel = format!("{el}.stages[{i}]");
            let sf = self.fields(s, &sel, "StageDoc", STAGE_KEYS)?;
            let users = match sf.get("users") {
                Some(u) => u,
                None => {
                    return Err(Error::new(
                        ErrorKind::Missing,
                        self.loc(s, &sel),
                        "missing field `users` (the stages of a workload are all of users, or all of rates)",
                    ))
                }
            };
            if let Some(k) = sf.get("rate").or(sf.get("target")).and(sf.key("rate").or(sf.key("target"))) {
                return Err(self.invalid(
                    k,
                    &sel,
                    "a stage sets `users` (closed model) or `rate` (open model), not both",
                ));
            }
            let users = self.count::<u32>(users, &format!("{sel}.users"))?;
            let duration = self.required(&sf, "duration", &sel)?;
            stages.push((users, self.duration(duration, &format!("{sel}.duration"))?));
        }
        if stages.iter().all(|(_, d)| d.is_zero()) {
            return Err(self.invalid(stages_node, &f("stages"), "the stages last 0s in all"));
        }
        if start_users == 0 && stages.iter().all(|(u, _)| *u == 0) {
            return Err(self.invalid(stages_node, &f("stages"), "no stage has a user"));
        }
        Ok(Workload::Shaped(ShapedWorkload::from_stages(start_users, &stages, start_delay, graceful_stop)))
    }

    fn open(
        &mut self,
        w: &Fields<'_>,
        el: &str,
        start_delay: Duration,
        graceful_stop: Duration,
    ) -> Result<Workload, Error> {
        let f = |name: &str| format!("{el}.{name}");
        if let Some(k) = ["users", "iterations", "ramp_up"].iter().find_map(|k| w.get(k).and(w.key(k))) {
            return Err(self.invalid(
                k,
                el,
                "a workload is either closed (users, ramp_up, iterations, duration) or open (rate or stages, pre_allocated_users, max_users), not both",
            ));
        }
        let (start_rate, stages) = match (w.get("rate"), w.get("stages")) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    w.key("stages").unwrap_or(w.node),
                    el,
                    "give either `rate` with `duration`, or `stages`, not both",
                ))
            }
            (Some(r), None) => {
                let rate = self.rate(r, &f("rate"))?;
                let d = w
                    .get("duration")
                    .ok_or_else(|| Error::new(ErrorKind::Missing, self.loc(w.node, el), "`rate` needs a `duration`"))?;
                let duration = self.run_time(d, &f("duration"))?;
                (rate, vec![Stage { target: rate, duration }])
            }
            (None, Some(stages_node)) => {
                if let Some(k) = w.get("duration").and(w.key("duration")) {
                    return Err(self.invalid(k, &f("duration"), "with `stages`, each stage has its own duration"));
                }
                let start = w.get("start_rate").map(|v| self.rate(v, &f("start_rate"))).transpose()?.unwrap_or(0.0);
                let mut out = Vec::new();
                for (i, s) in self.seq(Some(stages_node), &f("stages"))?.iter().enumerate() {
                    let sel = format!("{el}.stages[{i}]");
                    let sf = self.fields(s, &sel, "StageDoc", STAGE_KEYS)?;
                    let rate = match sf.raw("rate").or(sf.raw("target")) {
                        Some(r) => r,
                        None => return Err(Error::new(ErrorKind::Missing, self.loc(s, &sel), "missing field `rate`")),
                    };
                    let duration = self.required(&sf, "duration", &sel)?;
                    out.push(Stage {
                        target: self.rate(rate, &format!("{sel}.rate"))?,
                        duration: self.duration(duration, &format!("{sel}.duration"))?,
                    });
                }
                if out.is_empty() {
                    return Err(self.invalid(stages_node, &f("stages"), "`stages` is empty"));
                }
                if out.iter().all(|s| s.duration.is_zero()) {
                    return Err(self.invalid(stages_node, &f("stages"), "the stages last 0s in all"));
                }
                (start, out)
            }
            (None, None) => unreachable!("open implies rate or stages"),
        };
        if stages.iter().all(|s| s.target == 0.0) && start_rate == 0.0 {
            return Err(self.invalid(w.node, el, "the arrival rate is zero throughout"));
        }
        let peak = stages.iter().map(|s| s.target).fold(start_rate, f64::max);
        let max_users = match w.get("max_users") {
            Some(v) => self.count(v, &f("max_users"))?,
            None => (peak.ceil() as u32).clamp(100, 10_000),
        };
        let pre = match w.get("pre_allocated_users") {
            Some(v) => self.count(v, &f("pre_allocated_users"))?,
            None => max_users.min(((peak / 10.0).ceil() as u32).max(10)),
        };
        if max_users == 0 || pre > max_users {
            return Err(self.invalid(
                w.get("max_users").or(w.get("pre_allocated_users")).unwrap_or(w.node),
                &f("max_users"),
                format!("max_users ({max_users}) must be at least 1 and at least pre_allocated_users ({pre})"),
            ));
        }
        let open = OpenWorkload {
            start_rate,
            stages,
            pre_allocated_users: pre,
            max_users,
            start_delay,
            graceful_stop,
            process: None,
        };
        if let Some(problem) = open.rate_problem() {
            return Err(self.invalid(w.node, &f("rate"), problem));
        }
        Ok(Workload::Open(open))
    }
}

/// Whether `stages` are of users (the closed model): a stage that sets `users`.
fn of_users(stages: &Node) -> bool {
    let Value::Seq(items) = &stages.value else { return false };
    items.iter().any(|s| match &s.value {
        Value::Map(entries) => entries.iter().any(|(k, _)| k.scalar_text().as_deref() == Some("users")),
        _ => false,
    })
}
