//! The closed model (a JMeter thread group): a fixed number of users started over the ramp-up,
//! each running iterations back to back until its count is done or the scenario stops.

use super::{join_users, User, Users};
use crate::engine::segment::Segment;
use crate::engine::session::ScenarioCtx;
use crate::engine::user::IterEnd;
use crate::plan::workload::spread;
use crate::plan::ClosedWorkload;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Runs this segment's users; `start` is the scenario's start, from which its duration counts.
/// User `i` of the whole workload starts at `i × ramp_up / users`, in whichever segment runs it.
pub(crate) async fn run<F: Users>(
    ctx: Arc<ScenarioCtx>,
    users: Arc<F>,
    w: ClosedWorkload,
    segment: &Segment,
    start: Instant,
) {
    let start = start + w.start_delay;
    // The duration is each user's own end too, as a JMeter thread's scheduled end: a think time
    // that would outlast it ends the user at once rather than waiting for the deadline.
    let stop = w.duration.map(|d| start + d);
    let mut set = JoinSet::new();
    for i in (0..u64::from(w.users)).filter(|&i| segment.owns(i)) {
        let at = start + spread(w.ramp_up, i, w.users);
        let life = Life { iterations: w.iterations, stop, finish_iteration: false, whole_task: true };
        let (ctx, users) = (ctx.clone(), users.clone());
        // The user's own future, not one around it: that would hold a copy of its arguments.
        set.spawn(user(ctx, users, i, at, life));
    }
    join_users(&ctx, &mut set).await;
}

/// How long a user runs: its iterations, and its own stop (a shaped workload's, or a closed one's duration).
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct Life {
    pub iterations: Option<u64>,
    /// No request starts after it (the user's own end, as a JMeter thread's scheduled end).
    pub stop: Option<Instant>,
    /// The stop ends the user between iterations only: the one it is in runs to its end.
    pub finish_iteration: bool,
    /// The user is its task's only one (no renewed user follows it in the task): its end,
    /// started or not, is the task's ([`ScenarioCtx::user_task`]).
    pub whole_task: bool,
}

/// How a user ended: whether it ran all its iterations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::engine) enum Ended {
    IterationsDone,
    Stopped,
}

/// Runs user `index` from `at` for its life.
pub(in crate::engine) async fn user<F: Users>(
    ctx: Arc<ScenarioCtx>,
    users: Arc<F>,
    index: u64,
    at: Instant,
    life: Life,
) -> Ended {
    let _task = life.whole_task.then(|| ctx.user_task());
    if at > Instant::now() {
        tokio::select! {
            _ = tokio::time::sleep_until(at) => {}
            _ = ctx.stop.cancelled() => return Ended::Stopped,
        }
    }
    let over = |stop: Option<Instant>| stop.is_some_and(|s| Instant::now() >= s);
    if ctx.stopping() || over(life.stop) {
        return Ended::Stopped;
    }
    ctx.active.fetch_add(1, Ordering::Relaxed);
    ctx.shared.active_all.fetch_add(1, Ordering::Relaxed);
    let _active = ActiveGuard(&ctx);
    let mut user = users.user(index);
    if !life.finish_iteration {
        user.stop_at(life.stop);
    }
    let iterations = life.iterations;
    let mut done = 0u64;
    loop {
        if iterations.is_some_and(|max| done >= max) {
            return Ended::IterationsDone;
        }
        if ctx.stopping() || over(life.stop) {
            return Ended::Stopped;
        }
        // Read only for pacing: a clock read per iteration is a fair part of a request's work.
        let began = ctx.pacing.map(|_| Instant::now());
        let end = user.iteration(None).await;
        user.iteration_ended();
        if end != IterEnd::Completed {
            return Ended::Stopped;
        }
        done += 1;
        if let (Some(p), Some(began)) = (ctx.pacing, began) {
            let next = began + p;
            if next > Instant::now() && iterations.is_none_or(|max| done < max) {
                tokio::select! {
                    _ = tokio::time::sleep_until(next) => {}
                    _ = ctx.stop.cancelled() => return Ended::Stopped,
                }
            }
        }
        // An iteration whose requests all complete instantly (an error before any I/O) must
        // not starve the other tasks of this worker thread.
        if done % 64 == 0 {
            tokio::task::yield_now().await;
        }
    }
}

/// Decrements the active-user gauge however the task ends (including when it is aborted).
pub(super) struct ActiveGuard<'a>(pub &'a ScenarioCtx);

impl Drop for ActiveGuard<'_> {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::Relaxed);
        self.0.shared.active_all.fetch_sub(1, Ordering::Relaxed);
    }
}
