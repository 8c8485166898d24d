//! The open model: iterations start when the [`ArrivalSchedule`] says they are due, on a free
//! user from a pool that grows up to `max_users`. An arrival that finds no free user is
//! dropped and counted, never delayed: delaying it would hide the system's slowness.
//!
//! Arrivals are dispatched from a thread of their own that sleeps with a fine timer and yields
//! the last few microseconds, not from a tokio timer: tokio's timer wheel has 1 ms ticks, so an
//! arrival woken by it is up to 1 ms late, and since an open-model sample is timed from when it
//! was due, that lateness would be charged to the server. What lateness remains (the thread's
//! wake-up, the user task's) is measured per arrival and reported as a fact of the run.
//!
//! An arrival the dispatcher reaches more than [`MAX_LAG`] after it was due (a rate beyond
//! what the generator can dispatch, or a generator starved of CPU for that long), or more than
//! [`END_LAG`] once the schedule is over, is not sent: it is counted as *undispatched*, so the
//! scenario still ends on time and the report says why. A shorter stall is caught up, and its
//! lateness shows in the dispatch figures.

use super::closed::ActiveGuard;
use super::join_users;
use super::schedule::ArrivalSchedule;
use crate::engine::user::{IterEnd, ScenarioCtx, VirtualUser};
use crate::plan::OpenWorkload;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// How late an arrival may be dispatched before it is counted as undispatched instead.
pub const MAX_LAG: Duration = Duration::from_secs(1);
/// The same, once the schedule is over: the scenario ends on time.
pub const END_LAG: Duration = Duration::from_millis(50);
/// Shorter waits are not slept: a sleep costs about as much as it saves.
const MIN_SLEEP: Duration = Duration::from_micros(5);
/// A sleep that overshot by more than this (the thread was descheduled) teaches nothing.
const MAX_OVERSHOOT_NS: u128 = 500_000;
/// The dispatcher looks at the stop signal at least this often while it waits.
const CHECK_STOP: Duration = Duration::from_millis(5);

/// Dispatches arrivals until the schedule runs out; `start` is the scenario's start.
pub async fn run(ctx: Arc<ScenarioCtx>, w: OpenWorkload, start: Instant) {
    let schedule = ArrivalSchedule::new(w.start_rate, &w.stages);
    let start = start + w.start_delay;
    let handle = tokio::runtime::Handle::current();
    let dispatcher = {
        let ctx = ctx.clone();
        tokio::task::spawn_blocking(move || Dispatcher::new(ctx, &w, handle).run(&schedule, start))
    };
    // A dispatcher that panicked has dropped its users' set, which cancels them.
    let mut set = dispatcher.await.unwrap_or_default();
    join_users(&ctx, &mut set).await;
}

struct Dispatcher {
    ctx: Arc<ScenarioCtx>,
    handle: tokio::runtime::Handle,
    set: JoinSet<()>,
    users: Vec<mpsc::Sender<Instant>>,
    idle: Vec<usize>,
    idle_tx: mpsc::UnboundedSender<usize>,
    idle_rx: mpsc::UnboundedReceiver<usize>,
    max_users: usize,
}

impl Dispatcher {
    fn new(ctx: Arc<ScenarioCtx>, w: &OpenWorkload, handle: tokio::runtime::Handle) -> Dispatcher {
        let (idle_tx, idle_rx) = mpsc::unbounded_channel::<usize>();
        let mut d = Dispatcher {
            ctx,
            handle,
            set: JoinSet::new(),
            users: Vec::new(),
            idle: Vec::new(),
            idle_tx,
            idle_rx,
            max_users: w.max_users as usize,
        };
        for _ in 0..w.pre_allocated_users {
            let id = d.spawn_user();
            d.idle.push(id);
        }
        d
    }

    fn spawn_user(&mut self) -> usize {
        let (tx, rx) = mpsc::channel(1);
        let id = self.users.len();
        self.set.spawn_on(user(self.ctx.clone(), id, rx, self.idle_tx.clone()), &self.handle);
        self.users.push(tx);
        id
    }

    /// Returns the users' tasks once every arrival is dispatched, dropped or undispatched (or
    /// the scenario stopped); closing their channels lets each finish its iteration and end.
    fn run(mut self, schedule: &ArrivalSchedule, start: Instant) -> JoinSet<()> {
        fine_timer_slack();
        let ctx = self.ctx.clone();
        let end = start + schedule.length();
        let mut waiter = Waiter::new();
        let mut n = 0u64;
        while let Some(offset) = schedule.due(n) {
            let due = start + offset;
            if !waiter.wait_until(due, &ctx) || ctx.stopping() {
                // Stopped after the schedule's time (its graceful stop ran out while the last
                // arrivals were still being caught up): those were never sent; count them. An
                // interrupt ends the schedule itself: what follows was never part of the run.
                if Instant::now() >= end && !ctx.stop_was_interrupt() {
                    ctx.recorder.undispatched(ctx.index, schedule.total().saturating_sub(n));
                }
                break;
            }
            let now = Instant::now();
            let limit = if now >= end { END_LAG } else { MAX_LAG };
            if now.saturating_duration_since(due) > limit {
                // Skip to the first arrival that is not yet too late; count the rest.
                let catch_up = schedule.arrivals_before((now - limit).saturating_duration_since(start)).max(n + 1);
                ctx.recorder.undispatched(ctx.index, catch_up - n);
                n = catch_up;
                continue;
            }
            n += 1;
            while let Ok(id) = self.idle_rx.try_recv() {
                self.idle.push(id);
            }
            let id = match self.idle.pop() {
                Some(id) => id,
                None if self.users.len() < self.max_users => self.spawn_user(),
                None => {
                    ctx.recorder.dropped(ctx.index);
                    continue;
                }
            };
            if self.users[id].try_send(due).is_err() {
                // Only an idle user is handed work, so its slot is free; if it is gone, count it.
                ctx.recorder.dropped(ctx.index);
            }
        }
        self.users.clear();
        self.set
    }
}

/// Waits for arrivals' due instants: it sleeps until shortly before, by how late its sleeps
/// have been waking (learnt as it goes), and yields the CPU in a loop for the rest. A fixed spin
/// would burn a core at high rates; no spin would add the sleep's overshoot to every arrival.
struct Waiter {
    /// How late a sleep wakes, a running estimate (ns).
    overshoot_ns: f64,
}

impl Waiter {
    fn new() -> Waiter {
        Waiter { overshoot_ns: 50_000.0 }
    }

    /// Waits until `due`; false if the scenario stopped first.
    fn wait_until(&mut self, due: Instant, ctx: &ScenarioCtx) -> bool {
        loop {
            let now = Instant::now();
            if now >= due {
                return true;
            }
            if ctx.stop.is_cancelled() || ctx.stopping() {
                return false;
            }
            let left = due - now;
            let margin = Duration::from_nanos(self.overshoot_ns as u64);
            if left > margin + MIN_SLEEP {
                let want = (left - margin).min(CHECK_STOP);
                std::thread::sleep(want);
                let over = now.elapsed().saturating_sub(want).as_nanos();
                // A wake that late means the thread was descheduled: it says nothing of the timer.
                if over <= MAX_OVERSHOOT_NS {
                    // Rise fast, fall slowly: a late wake costs an arrival's accuracy, an early
                    // one only a little yielding.
                    let over = over as f64;
                    let w = if over > self.overshoot_ns { 0.5 } else { 0.05 };
                    self.overshoot_ns += w * (over - self.overshoot_ns);
                }
            } else {
                std::thread::yield_now();
                // Arrivals closer together than the margin would never sleep again, and never
                // learn a smaller margin: let it shrink while yielding.
                self.overshoot_ns *= 0.999;
            }
        }
    }
}

/// Asks the kernel to wake this thread's sleeps on time: the default timer slack (50 µs) would
/// add itself to every arrival.
fn fine_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK only sets a property of the calling thread.
    unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}

async fn user(ctx: Arc<ScenarioCtx>, id: usize, mut work: mpsc::Receiver<Instant>, idle: mpsc::UnboundedSender<usize>) {
    let mut user = VirtualUser::new(ctx.clone());
    while let Some(due) = work.recv().await {
        ctx.active.fetch_add(1, Ordering::Relaxed);
        ctx.shared.active_all.fetch_add(1, Ordering::Relaxed);
        let guard = ActiveGuard(&ctx);
        let end = user.iteration(Some(due)).await;
        drop(guard);
        // An open model's iterations are the arrivals it started: one cut short by the end of
        // the run counts too, so iterations + dropped + undispatched is every arrival.
        if end != IterEnd::Completed {
            ctx.recorder.iteration_done(ctx.index);
        }
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
