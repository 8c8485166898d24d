//! The shaped closed model: each user has a start and a stop of its own, so the number of
//! active users follows a schedule (JMeter's Stepping and Ultimate thread groups, the
//! Concurrency Thread Group). A user stops before its first request after its stop, as a
//! JMeter thread at its scheduled end, or, with `finish_iteration`, at the end of the
//! iteration it is in; with `renew`, a user whose iterations are done before its stop is
//! replaced at once by a new one.

use super::closed::{user, Ended, Life};
use super::{join_users, Users};
use crate::engine::segment::Segment;
use crate::engine::session::ScenarioCtx;
use crate::plan::ShapedWorkload;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Runs this segment's users; `start` is the scenario's start. User `i` starts and stops at the
/// same times in whichever segment runs it; a replacement user takes the index after the
/// schedule's last, counted per segment.
pub(crate) async fn run<F: Users>(
    ctx: Arc<ScenarioCtx>,
    users: Arc<F>,
    w: ShapedWorkload,
    segment: &Segment,
    start: Instant,
) {
    let n = w.starts.len() as u64;
    let next = Arc::new(AtomicU64::new(n));
    let mut set = JoinSet::new();
    for i in (0..n).filter(|&i| segment.owns(i)) {
        let at = start + w.starts.0[i as usize];
        let stop = w.stops.as_ref().and_then(|s| s.0.get(i as usize)).map(|&s| start + s);
        let (ctx, users, next) = (ctx.clone(), users.clone(), next.clone());
        let (iterations, renew, finish) = (w.iterations, w.renew, w.finish_iteration);
        set.spawn(async move {
            let _task = ctx.user_task();
            let life = Life { iterations, stop, finish_iteration: finish, whole_task: false };
            let (mut index, mut at) = (i, at);
            loop {
                let ended = user(ctx.clone(), users.clone(), index, at, life).await;
                if !renew || ended != Ended::IterationsDone || stop.is_some_and(|s| Instant::now() >= s) {
                    break;
                }
                index = next.fetch_add(1, Ordering::Relaxed);
                at = Instant::now();
                // A user with no iterations to run would be replaced forever.
                if iterations == Some(0) {
                    break;
                }
                tokio::task::yield_now().await;
            }
        });
    }
    join_users(&ctx, &mut set).await;
}
