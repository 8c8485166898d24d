//! The open model: iterations start when the [`ArrivalSchedule`] says they are due, on a free
//! user from a pool that grows up to `max_users`. An arrival that finds no free user is
//! dropped and counted, never delayed: delaying it would hide the system's slowness.

use super::closed::ActiveGuard;
use super::join_users;
use super::schedule::ArrivalSchedule;
use crate::engine::user::{IterEnd, ScenarioCtx, VirtualUser};
use crate::plan::OpenWorkload;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// Dispatches arrivals until the schedule runs out; `start` is the scenario's start.
pub async fn run(ctx: Arc<ScenarioCtx>, w: OpenWorkload, start: Instant) {
    let schedule = ArrivalSchedule::new(w.start_rate, &w.stages);
    let mut set = JoinSet::new();
    let (idle_tx, mut idle_rx) = mpsc::unbounded_channel::<usize>();
    let mut users: Vec<mpsc::Sender<Instant>> = Vec::new();
    let mut idle: Vec<usize> = Vec::new();
    let spawn_user = |set: &mut JoinSet<()>, users: &mut Vec<mpsc::Sender<Instant>>| {
        let (tx, rx) = mpsc::channel(1);
        let id = users.len();
        set.spawn(user(ctx.clone(), id, rx, idle_tx.clone()));
        users.push(tx);
        id
    };
    for _ in 0..w.pre_allocated_users {
        let id = spawn_user(&mut set, &mut users);
        idle.push(id);
    }
    let start = start + w.start_delay;
    let mut n = 0u64;
    let mut behind = 0u32;
    while let Some(offset) = schedule.due(n) {
        n += 1;
        let due = start + offset;
        if due > Instant::now() {
            behind = 0;
            tokio::select! {
                _ = tokio::time::sleep_until(due.into()) => {}
                _ = ctx.stop.cancelled() => break,
            }
        } else {
            // Behind schedule: catch up, but let the users just woken run on this worker too.
            behind += 1;
            if behind % 64 == 0 {
                tokio::task::yield_now().await;
            }
        }
        if ctx.stopping() {
            break;
        }
        while let Ok(id) = idle_rx.try_recv() {
            idle.push(id);
        }
        let id = match idle.pop() {
            Some(id) => id,
            None if users.len() < w.max_users as usize => spawn_user(&mut set, &mut users),
            None => {
                ctx.recorder.dropped(ctx.index);
                continue;
            }
        };
        if users[id].try_send(due).is_err() {
            // Only an idle user is handed work, so its slot is free; if it is gone, count it.
            ctx.recorder.dropped(ctx.index);
        }
    }
    // Closing every user's channel lets each finish its iteration and end.
    drop(users);
    join_users(&ctx, &mut set).await;
}

async fn user(ctx: Arc<ScenarioCtx>, id: usize, mut work: mpsc::Receiver<Instant>, idle: mpsc::UnboundedSender<usize>) {
    let mut user = VirtualUser::new(ctx.clone());
    while let Some(due) = work.recv().await {
        ctx.active.fetch_add(1, Ordering::Relaxed);
        ctx.shared.active_all.fetch_add(1, Ordering::Relaxed);
        let guard = ActiveGuard(&ctx);
        let end = user.iteration(Some(due)).await;
        drop(guard);
        if end == IterEnd::UserDone {
            // Users of the open model are interchangeable: a data file that ran out with
            // `stop_user` ends the scenario's arrivals.
            ctx.stop_now();
            return;
        }
        if idle.send(id).is_err() {
            return;
        }
    }
}
