//! The open model: iterations start when the [`ArrivalSchedule`] says they are due, on a free
//! user from a pool that grows up to `max_users`. An arrival that finds no free user is
//! dropped and counted, never delayed: delaying it would hide the system's slowness.
//!
//! Arrivals are timed with a Linux timerfd registered with tokio's reactor, not with tokio's
//! timer: the timer wheel has 1 ms ticks, so an arrival woken by it is up to 1 ms late, and
//! since an open-model sample is timed from when it was due, that lateness would be charged to
//! the server. A timerfd fires to the microsecond, and wakes the dispatcher on a worker thread,
//! where the user it hands the arrival to runs next, with no other thread to wake. (A thread of
//! its own with a fine sleep was tried first: as good at 1,500/s, but at 20,000/s on one core
//! waking a worker for every arrival cost 11% of the arrivals and 1.6 ms of mean latency; see
//! `bench/runs/2026-11-23-open/`.) What lateness remains is measured per arrival and reported
//! as a fact of the run.
//!
//! An arrival the dispatcher reaches more than [`MAX_LAG`] after it was due (a rate beyond
//! what the generator can dispatch, or a generator starved of CPU for that long), or more than
//! [`END_LAG`] once the schedule is over, is not sent: it is counted as *undispatched*, so the
//! scenario still ends on time and the report says why. A shorter stall is caught up, and its
//! lateness shows in the dispatch figures.

use super::closed::ActiveGuard;
use super::schedule::ArrivalSchedule;
use super::{join_users, User, Users};
use crate::engine::segment::Segment;
use crate::engine::session::ScenarioCtx;
use crate::engine::user::IterEnd;
use crate::plan::OpenWorkload;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio::time::Instant;

/// How late an arrival may be dispatched before it is counted as undispatched instead.
pub(crate) const MAX_LAG: Duration = Duration::from_secs(1);
/// The same, once the schedule is over: the scenario ends on time.
pub(crate) const END_LAG: Duration = Duration::from_millis(50);

/// Dispatches this segment's arrivals until the schedule runs out; `start` is the scenario's
/// start. Arrival `n` of the whole schedule is due at the same time in whichever segment owns
/// it; the pre-allocated and maximum users are this segment's share of the whole's.
pub(crate) async fn run<F: Users>(
    ctx: Arc<ScenarioCtx>,
    factory: Arc<F>,
    w: OpenWorkload,
    segment: &Segment,
    start: Instant,
) {
    let schedule = ArrivalSchedule::for_workload(&w, rand::random());
    // JMeter's Open Model Thread Group starts a new thread for each arrival.
    let fresh = w.process.is_some();
    let start = start + w.start_delay;
    let end = start + schedule.length();
    let max_users = segment.scale(w.max_users) as usize;
    let mut set = JoinSet::new();
    let (idle_tx, mut idle_rx) = mpsc::unbounded_channel::<usize>();
    let mut users: Vec<mpsc::Sender<Instant>> = Vec::new();
    let mut idle: Vec<usize> = Vec::new();
    let spawn_user = |set: &mut JoinSet<()>, users: &mut Vec<mpsc::Sender<Instant>>| {
        let (tx, rx) = mpsc::channel(1);
        let id = users.len();
        set.spawn(user(ctx.clone(), factory.clone(), id, rx, idle_tx.clone(), fresh));
        users.push(tx);
        id
    };
    for _ in 0..segment.scale(w.pre_allocated_users) {
        let id = spawn_user(&mut set, &mut users);
        idle.push(id);
    }
    let mut timer = Timer::new(factory.fine_timer());
    let mut n = segment.next_owned(0);
    let mut behind = 0u32;
    let mut last_due = start;
    while let Some(offset) = schedule.due(n) {
        let due = start + offset;
        let now = Instant::now();
        if due > now {
            behind = 0;
            // Arrivals far apart: wake a little early, by what waking has been taking, and
            // wait out the rest on the CPU. Close together, that would hold the worker most of
            // the time for little gain: wake at the due time.
            let gap = due.saturating_duration_since(last_due);
            let early = timer.wake_latency();
            let target = if gap > early * SPIN_GAP_FACTOR { due - early } else { due };
            tokio::select! {
                _ = timer.sleep_until(target) => {}
                _ = ctx.stop.cancelled() => {}
            }
            while Instant::now() < due && !ctx.stopping() {
                std::hint::spin_loop();
            }
        } else {
            // Behind schedule: catch up, but let the users just woken run on this worker too.
            behind += 1;
            if behind % 64 == 0 {
                tokio::task::yield_now().await;
            }
        }
        if ctx.stop.is_cancelled() || ctx.stopping() {
            // Stopped after the schedule's time (its graceful stop ran out while the last
            // arrivals were still being caught up): those were never sent; count them. An
            // interrupt ends the schedule itself: what follows was never part of the run.
            if Instant::now() >= end && !ctx.stop_was_interrupt() {
                let left = segment.count_below(schedule.total()).saturating_sub(segment.count_below(n));
                ctx.recorder.undispatched(ctx.index, left);
            }
            break;
        }
        let now = Instant::now();
        let limit = if now >= end { END_LAG } else { MAX_LAG };
        if now.saturating_duration_since(due) > limit {
            // Skip to the first arrival that is not yet too late; count the rest. Saturating
            // throughout: a schedule of u64::MAX arrivals must end, not wrap its counts.
            let catch_up =
                schedule.arrivals_before((now - limit).saturating_duration_since(start)).max(n.saturating_add(1));
            let skipped = segment.count_below(catch_up).saturating_sub(segment.count_below(n));
            ctx.recorder.undispatched(ctx.index, skipped);
            if catch_up >= schedule.total() {
                break;
            }
            n = segment.next_owned(catch_up);
            continue;
        }
        if n.saturating_add(1) >= schedule.total() {
            // The last arrival: nothing follows it (and `next_owned` past it could overflow).
            n = schedule.total();
        } else {
            n = segment.next_owned(n + 1);
        }
        last_due = due;
        while let Ok(id) = idle_rx.try_recv() {
            idle.push(id);
        }
        let id = match idle.pop() {
            Some(id) => id,
            None if users.len() < max_users => spawn_user(&mut set, &mut users),
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

/// Arrivals further apart than this many times the wake latency are woken early and waited
/// for on the CPU (at most 1 / this of the time is spent so).
const SPIN_GAP_FACTOR: u32 = 8;
/// The most the dispatcher wakes early.
const MAX_EARLY: Duration = Duration::from_micros(200);

/// Sleeps until an instant to the microsecond: a timerfd on Linux, tokio's timer elsewhere (or
/// if a timerfd cannot be made, or when asked to: tests on tokio's paused clock). It learns how
/// late its wakes are (a VM's idle CPU takes tens of µs to wake), so that the dispatcher can ask
/// to be woken that much early.
struct Timer {
    fd: Option<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>>,
    /// How late a wake is, a running estimate (ns).
    late_ns: f64,
}

impl Timer {
    fn new(fine: bool) -> Timer {
        use std::os::fd::FromRawFd;
        if !fine {
            return Timer { fd: None, late_ns: 0.0 };
        }
        // SAFETY: timerfd_create returns a new descriptor that we own, or -1.
        let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        let fd = (raw >= 0)
            // SAFETY: `raw` is a valid descriptor owned by nobody else.
            .then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(raw) })
            // SAFETY: the AsyncFd owns the descriptor and closes it only after deregistering.
            .and_then(|fd| unsafe {
                tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE).ok()
            });
        Timer { fd, late_ns: 20_000.0 }
    }

    /// How early to ask to be woken (zero without a timerfd: tokio's timer is not that fine).
    fn wake_latency(&self) -> Duration {
        match self.fd {
            Some(_) => Duration::from_nanos(self.late_ns as u64).min(MAX_EARLY),
            None => Duration::ZERO,
        }
    }

    async fn sleep_until(&mut self, at: Instant) {
        self.sleep_fd(at).await;
        let late = Instant::now().saturating_duration_since(at);
        // A wake far later than the timer's own lateness is a busy worker, not the timer.
        if late <= MAX_EARLY * 2 {
            let late = late.as_nanos() as f64;
            let w = if late > self.late_ns { 0.2 } else { 0.02 };
            self.late_ns += w * (late - self.late_ns);
        }
    }

    async fn sleep_fd(&self, at: Instant) {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.fd else {
            return tokio::time::sleep_until(at).await;
        };
        let left = at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        let spec = libc::itimerspec {
            it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
            it_value: libc::timespec {
                tv_sec: left.as_secs() as libc::time_t,
                tv_nsec: left.subsec_nanos() as libc::c_long,
            },
        };
        // SAFETY: arms our own timerfd with a valid, relative, non-zero time.
        if unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } != 0 {
            return tokio::time::sleep_until(at).await;
        }
        loop {
            let Ok(mut ready) = fd.readable().await else {
                return tokio::time::sleep_until(at).await;
            };
            let mut expirations = [0u8; 8];
            // SAFETY: reads at most 8 bytes into a buffer of 8.
            let n = unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
            if n == 8 {
                return;
            }
            // Not expired yet (EAGAIN): wait for the reactor to say it is readable again.
            ready.clear_ready();
        }
    }
}

async fn user<F: Users>(
    ctx: Arc<ScenarioCtx>,
    factory: Arc<F>,
    id: usize,
    mut work: mpsc::Receiver<Instant>,
    idle: mpsc::UnboundedSender<usize>,
    fresh: bool,
) {
    let _task = ctx.user_task();
    let mut user = factory.user(id as u64);
    let mut used = false;
    while let Some(due) = work.recv().await {
        // A new user for each arrival (its variables, cookies and connections start afresh),
        // where the workload asks for it: only the task is reused.
        if fresh && std::mem::replace(&mut used, true) {
            user = factory.user(id as u64);
        }
        ctx.active.fetch_add(1, Ordering::Relaxed);
        ctx.shared.active_all.fetch_add(1, Ordering::Relaxed);
        let guard = ActiveGuard(&ctx);
        let end = user.iteration(Some(due)).await;
        user.iteration_ended();
        drop(guard);
        // An open model's iterations are the arrivals it started: one cut short by the end of
        // the run counts too, so iterations + dropped + undispatched is every arrival.
        if end != IterEnd::Completed {
            ctx.recorder.iteration_done(ctx.index);
        }
        if end == IterEnd::UserDone && !fresh {
            // Users of the open model are interchangeable: a data file that ran out with
            // `stop_user` ends the scenario's arrivals. (Where each arrival is a new user, as
            // JMeter's Open Model Thread Group's threads, stopping one stops only it: the
            // arrivals go on.)
            ctx.stop_now();
            return;
        }
        if idle.send(id).is_err() {
            return;
        }
    }
}
