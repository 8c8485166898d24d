//! Executors turn a [`Workload`] into users: `closed::run` for a fixed number of users,
//! `open::run` for an arrival rate. Both drive whatever a [`Users`] factory makes (in a run,
//! [`VirtualUser`]s; in tests, fakes that record when they ran) on tokio's clock, run only
//! their [`Segment`]'s share, and never see HTTP. This module owns what they share: when a
//! scenario stops and how long requests in flight may finish.

pub(crate) mod closed;
pub(crate) mod open;
pub(crate) mod precise;
pub(crate) mod schedule;
pub(crate) mod shaped;
pub(crate) mod shaping;

use super::segment::Segment;
use super::session::ScenarioCtx;
use super::user::{IterEnd, VirtualUser};
use crate::plan::Workload;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// One user as an executor sees it: it runs one iteration at a time.
pub(crate) trait User: Send + 'static {
    /// Runs one iteration. `due` is when an open-model arrival was due (its first request is
    /// timed from there); `None` in the closed model.
    fn iteration(&mut self, due: Option<Instant>) -> impl Future<Output = IterEnd> + Send;

    /// After each iteration, however it ended (not after one dropped mid-way: the user is).
    fn iteration_ended(&mut self) {}

    /// The user's own end: no request (or think time) starts after it, and the iteration it
    /// cuts ends as [`IterEnd::Cut`]. `None`: the scenario's end only.
    fn stop_at(&mut self, at: Option<Instant>);
}

impl User for VirtualUser {
    #[inline]
    fn iteration(&mut self, due: Option<Instant>) -> impl Future<Output = IterEnd> + Send {
        VirtualUser::iteration(self, due.map(Instant::into_std))
    }

    #[inline]
    fn iteration_ended(&mut self) {
        VirtualUser::iteration_ended(self)
    }

    fn stop_at(&mut self, at: Option<Instant>) {
        self.stop_at = at.map(Instant::into_std);
    }
}

/// Makes the users of a scenario. A closure `Fn(u64) -> impl User` is one; `index` is the
/// user's index in the whole workload (closed model) or in this process's pool (open model).
pub(crate) trait Users: Send + Sync + 'static {
    type User: User;
    fn user(&self, index: u64) -> Self::User;
    /// Whether the open model times arrivals with a timerfd (to the µs, on the wall clock):
    /// yes in a run; a test on tokio's paused clock says no, so tokio's timer is used.
    fn fine_timer(&self) -> bool {
        true
    }
}

impl<F: Fn(u64) -> U + Send + Sync + 'static, U: User> Users for F {
    type User = U;
    fn user(&self, index: u64) -> U {
        self(index)
    }
}

/// Runs one scenario to its end. `abort` cuts the grace time short (a second interrupt).
///
/// How a scenario ends depends on its model. A closed scenario's duration is a deadline: no
/// request starts after it (JMeter's scheduler); a shaped one's users each stop at their own
/// time. An open scenario, or a shaped one whose users finish their iteration, ends when its
/// schedule runs out: every iteration already started runs to its end, so each arrival is
/// either a sample or a dropped iteration. Either way, requests still in flight after
/// `graceful_stop` are abandoned and recorded as `aborted` samples. An interrupt stops both at
/// once.
pub(crate) async fn run_scenario<F: Users>(
    ctx: Arc<ScenarioCtx>,
    workload: Workload,
    segment: &Segment,
    users: F,
    abort: CancellationToken,
) {
    let start = Instant::now();
    let users = Arc::new(users);
    let planned = workload.planned_duration();
    let grace = workload.graceful_stop();
    let closed = match &workload {
        Workload::Closed(_) => true,
        Workload::Shaped(s) => !s.finish_iteration,
        Workload::Open(_) => false,
    };
    let watcher = {
        let ctx = ctx.clone();
        tokio::spawn(async move {
            match planned {
                Some(d) => tokio::select! {
                    _ = tokio::time::sleep_until(start + d) => {}
                    _ = ctx.stop.cancelled() => {}
                },
                None => ctx.stop.cancelled().await,
            }
            if closed || ctx.stop.is_cancelled() {
                ctx.stopping.store(true, Ordering::Relaxed);
                ctx.stop.cancel();
            }
            tokio::select! {
                _ = tokio::time::sleep(grace) => {}
                _ = abort.cancelled() => {}
            }
            ctx.stopping.store(true, Ordering::Relaxed);
            // Wakes users waiting out a think time too (an open scenario's `stop` is still
            // live when its schedule has run out).
            ctx.stop.cancel();
            ctx.hard.cancel();
        })
    };
    match workload {
        Workload::Closed(c) => closed::run(ctx.clone(), users, c, segment, start).await,
        Workload::Open(o) => open::run(ctx.clone(), users, o, segment, start).await,
        Workload::Shaped(s) => shaped::run(ctx.clone(), users, s, segment, start).await,
    }
    watcher.abort();
}

/// How long users get, once the grace time is over, to record the requests they abandon. They
/// end within microseconds (every wait of a user watches `hard`); this only guards against a
/// bug hanging the run.
const ABANDON_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

#[cfg(test)]
mod tests;

/// Waits for every user task. Once the grace time is over, each user abandons its request in
/// flight itself, recording it as `aborted` when it reached the wire, so that every request the
/// server saw is a sample; tasks are cancelled from outside only if they fail to do so.
async fn join_users<T: 'static>(ctx: &ScenarioCtx, set: &mut JoinSet<T>) {
    loop {
        tokio::select! {
            joined = set.join_next() => if joined.is_none() { return },
            _ = ctx.hard.cancelled() => break,
        }
    }
    let drained = tokio::time::timeout(ABANDON_LIMIT, async { while set.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        set.abort_all();
        while set.join_next().await.is_some() {}
    }
}
