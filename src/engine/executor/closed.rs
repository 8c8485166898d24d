//! The closed model (a JMeter thread group): a fixed number of users started over the ramp-up,
//! each running iterations back to back until its count is done or the scenario stops.

use super::{join_users, User, Users};
use crate::engine::segment::Segment;
use crate::engine::session::ScenarioCtx;
use crate::engine::user::IterEnd;
use crate::plan::ClosedWorkload;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
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
    let mut set = JoinSet::new();
    for i in (0..u64::from(w.users)).filter(|&i| segment.owns(i)) {
        let at = start + ramp_offset(w.ramp_up, i, w.users);
        set.spawn(user(ctx.clone(), users.clone(), i, at, w.iterations));
    }
    join_users(&ctx, &mut set).await;
}

/// When user `i` of `users` starts after the first: `ramp_up × i / users`, to the nanosecond.
pub(crate) fn ramp_offset(ramp_up: Duration, i: u64, users: u32) -> Duration {
    let ns = ramp_up.as_nanos() * u128::from(i) / u128::from(users.max(1));
    Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}

async fn user<F: Users>(ctx: Arc<ScenarioCtx>, users: Arc<F>, index: u64, at: Instant, iterations: Option<u64>) {
    if at > Instant::now() {
        tokio::select! {
            _ = tokio::time::sleep_until(at) => {}
            _ = ctx.stop.cancelled() => return,
        }
    }
    if ctx.stopping() {
        return;
    }
    ctx.active.fetch_add(1, Ordering::Relaxed);
    ctx.shared.active_all.fetch_add(1, Ordering::Relaxed);
    let _active = ActiveGuard(&ctx);
    let mut user = users.user(index);
    let mut done = 0u64;
    while iterations.is_none_or(|max| done < max) && !ctx.stopping() {
        let began = Instant::now();
        if user.iteration(None).await != IterEnd::Completed {
            break;
        }
        done += 1;
        if let Some(p) = ctx.pacing {
            let next = began + p;
            if next > Instant::now() && iterations.is_none_or(|max| done < max) {
                tokio::select! {
                    _ = tokio::time::sleep_until(next) => {}
                    _ = ctx.stop.cancelled() => break,
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
