//! The closed model (a JMeter thread group): a fixed number of users started over the ramp-up,
//! each running iterations back to back until its count is done or the scenario stops.

use super::join_users;
use crate::engine::session::ScenarioCtx;
use crate::engine::user::{IterEnd, VirtualUser};
use crate::plan::ClosedWorkload;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use tokio::task::JoinSet;

/// Runs the users; `start` is the scenario's start, from which its duration counts.
pub async fn run(ctx: Arc<ScenarioCtx>, w: ClosedWorkload, start: Instant) {
    let start = start + w.start_delay;
    let mut set = JoinSet::new();
    for i in 0..w.users {
        let at = start + w.ramp_up.mul_f64(f64::from(i) / f64::from(w.users));
        set.spawn(user(ctx.clone(), at, w.iterations));
    }
    join_users(&ctx, &mut set).await;
}

async fn user(ctx: Arc<ScenarioCtx>, at: Instant, iterations: Option<u64>) {
    if at > Instant::now() {
        tokio::select! {
            _ = tokio::time::sleep_until(at.into()) => {}
            _ = ctx.stop.cancelled() => return,
        }
    }
    if ctx.stopping() {
        return;
    }
    ctx.active.fetch_add(1, Ordering::Relaxed);
    ctx.shared.active_all.fetch_add(1, Ordering::Relaxed);
    let _active = ActiveGuard(&ctx);
    let mut user = VirtualUser::new(ctx.clone());
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
                    _ = tokio::time::sleep_until(next.into()) => {}
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
pub(super) struct ActiveGuard<'a>(pub &'a super::ScenarioCtx);

impl Drop for ActiveGuard<'_> {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::Relaxed);
        self.0.shared.active_all.fetch_sub(1, Ordering::Relaxed);
    }
}
