//! Executors on tokio's paused clock, with fake users that record when they ran: exact
//! iteration counts, ramps, deadlines, pacing, graceful stop, arrivals, drops, and segments.

use super::schedule::ArrivalSchedule;
use super::{run_scenario, User, Users};
use crate::engine::segment::Segment;
use crate::engine::session::ScenarioCtx;
use crate::engine::user::IterEnd;
use crate::plan::{ClosedWorkload, OpenWorkload, ShapedWorkload, Stage, Times, Workload};
use crate::record::ScenarioCounts;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// One iteration a fake user ran.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Ran {
    user: u64,
    /// 1-based, per user.
    iteration: u64,
    /// When it started, from the scenario's start.
    at: Duration,
    /// When its arrival was due (open model), from the scenario's start.
    due: Option<Duration>,
    /// Cut at the end of the grace time.
    abandoned: bool,
}

/// A user and the stop it was given.
type UserStop = (u64, Option<Duration>);

#[derive(Clone)]
struct Fakes {
    ctx: Arc<ScenarioCtx>,
    t0: Instant,
    took: Duration,
    /// The clock jumps this far during an iteration that starts at 0 (a stalled generator).
    stall: Duration,
    log: Arc<Mutex<Vec<Ran>>>,
    /// The stop each user was given, by user.
    stops: Arc<Mutex<Vec<UserStop>>>,
}

struct Fake {
    f: Fakes,
    id: u64,
    done: u64,
}

impl Users for Fakes {
    type User = Fake;
    fn user(&self, index: u64) -> Fake {
        Fake { f: self.clone(), id: index, done: 0 }
    }
    fn fine_timer(&self) -> bool {
        false
    }
}

impl User for Fake {
    async fn iteration(&mut self, due: Option<Instant>) -> IterEnd {
        let f = &self.f;
        let at = Instant::now() - f.t0;
        self.done += 1;
        if at.is_zero() && !f.stall.is_zero() {
            tokio::time::advance(f.stall).await;
        }
        let abandoned = tokio::select! {
            _ = tokio::time::sleep(f.took) => false,
            _ = f.ctx.hard.cancelled() => true,
        };
        let due = due.map(|d| d - f.t0);
        f.log.lock().unwrap().push(Ran { user: self.id, iteration: self.done, at, due, abandoned });
        if abandoned {
            IterEnd::Cut
        } else {
            f.ctx.recorder.iteration_done(f.ctx.index);
            IterEnd::Completed
        }
    }

    fn stop_at(&mut self, at: Option<Instant>) {
        self.f.stops.lock().unwrap().push((self.id, at.map(|a| a - self.f.t0)));
    }
}

struct Record {
    log: Vec<Ran>,
    counts: ScenarioCounts,
    /// How long the scenario took.
    took: Duration,
}

/// Runs `w` (segment `seg`) with fake users whose iterations take `took`.
async fn run(w: Workload, seg: &Segment, took: Duration, pacing: Option<Duration>, stall: Duration) -> Record {
    let ctx = ScenarioCtx::for_test(pacing);
    let t0 = Instant::now();
    let log = Arc::new(Mutex::new(Vec::new()));
    let fakes = Fakes { ctx: ctx.clone(), t0, took, stall, log: log.clone(), stops: Default::default() };
    run_scenario(ctx.clone(), w, seg, fakes, CancellationToken::new()).await;
    let took = Instant::now() - t0;
    let mut tally = ctx.recorder.new_tally();
    ctx.recorder.drain_into(&mut tally);
    let mut log = std::mem::take(&mut *log.lock().unwrap());
    log.sort();
    Record { log, counts: tally.scenarios[0], took }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn closed(users: u32, iterations: Option<u64>, duration: Option<Duration>) -> ClosedWorkload {
    ClosedWorkload {
        users,
        ramp_up: Duration::ZERO,
        iterations,
        duration,
        start_delay: Duration::ZERO,
        graceful_stop: Duration::from_secs(30),
    }
}

fn open(start_rate: f64, stages: &[(f64, u64)], pre: u32, max: u32) -> OpenWorkload {
    OpenWorkload {
        start_rate,
        stages: stages.iter().map(|&(target, s)| Stage { target, duration: ms(s) }).collect(),
        pre_allocated_users: pre,
        max_users: max,
        start_delay: Duration::ZERO,
        graceful_stop: Duration::from_secs(30),
        process: None,
    }
}

#[tokio::test(start_paused = true)]
async fn closed_users_run_their_iterations() {
    let r = run(Workload::Closed(closed(3, Some(4), None)), &Segment::FULL, ms(10), None, Duration::ZERO).await;
    assert_eq!(r.log.len(), 12);
    assert_eq!(r.counts.iterations, 12);
    for (k, ran) in r.log.iter().enumerate() {
        assert_eq!((ran.user, ran.iteration, ran.at), (k as u64 / 4, k as u64 % 4 + 1, ms(10 * (k as u64 % 4))));
    }
    assert_eq!(r.took, ms(40));
}

#[tokio::test(start_paused = true)]
async fn closed_ramp_up_and_start_delay() {
    let w = ClosedWorkload { ramp_up: ms(2000), start_delay: ms(1000), ..closed(4, Some(1), None) };
    let r = run(Workload::Closed(w), &Segment::FULL, ms(10), None, Duration::ZERO).await;
    let starts: Vec<(u64, Duration)> = r.log.iter().map(|r| (r.user, r.at)).collect();
    assert_eq!(starts, [(0, ms(1000)), (1, ms(1500)), (2, ms(2000)), (3, ms(2500))]);
}

#[tokio::test(start_paused = true)]
async fn closed_duration_is_a_deadline_for_starting_iterations() {
    // Iterations of 300 ms in 1 s: they start at 0, 300, 600, 900; the last ends at 1,200
    // within the grace time; none starts after the deadline.
    let r = run(Workload::Closed(closed(2, None, Some(ms(1000)))), &Segment::FULL, ms(300), None, Duration::ZERO).await;
    assert_eq!(r.log.len(), 8);
    assert!(r.log.iter().all(|r| r.at < ms(1000) && !r.abandoned));
    assert_eq!(
        r.log.iter().filter(|r| r.user == 0).map(|r| r.at).collect::<Vec<_>>(),
        [ms(0), ms(300), ms(600), ms(900)]
    );
    assert_eq!(r.counts.iterations, 8);
    assert_eq!(r.took, ms(1200));
}

#[tokio::test(start_paused = true)]
async fn closed_graceful_stop_cuts_what_is_still_running() {
    // Iterations of 700 ms: the second (from 700 ms) is in flight at the 1 s deadline, gets
    // 100 ms of grace, and is abandoned at 1,100 ms.
    let w = ClosedWorkload { graceful_stop: ms(100), ..closed(3, None, Some(ms(1000))) };
    let r = run(Workload::Closed(w), &Segment::FULL, ms(700), None, Duration::ZERO).await;
    assert_eq!(r.log.len(), 6);
    assert_eq!(r.log.iter().filter(|r| r.abandoned).count(), 3);
    assert!(r.log.iter().all(|r| r.abandoned == (r.iteration == 2) && r.at == ms(700 * (r.iteration - 1))));
    assert_eq!(r.counts.iterations, 3);
    assert_eq!(r.took, ms(1100));
}

#[tokio::test(start_paused = true)]
async fn closed_pacing_spaces_iteration_starts() {
    let r =
        run(Workload::Closed(closed(1, Some(3), None)), &Segment::FULL, ms(100), Some(ms(1000)), Duration::ZERO).await;
    assert_eq!(r.log.iter().map(|r| r.at).collect::<Vec<_>>(), [ms(0), ms(1000), ms(2000)]);
    // No wait after the last iteration.
    assert_eq!(r.took, ms(2100));
}

/// Checks an open run's arrivals against its schedule: every one due at its time, started then.
fn assert_on_schedule(r: &Record, w: &OpenWorkload) {
    let schedule = ArrivalSchedule::new(w.start_rate, &w.stages);
    let mut dues: Vec<Duration> = r.log.iter().map(|r| r.due.expect("open model")).collect();
    dues.sort();
    let expected: Vec<Duration> = (0..schedule.total()).map(|n| w.start_delay + schedule.due(n).unwrap()).collect();
    assert_eq!(dues, expected);
    // Tokio's timer has 1 ms ticks.
    assert!(r.log.iter().all(|r| r.at >= r.due.unwrap() && r.at - r.due.unwrap() < ms(1)));
    assert_eq!(r.counts.iterations, schedule.total());
    assert_eq!((r.counts.dropped, r.counts.undispatched), (0, 0));
}

#[tokio::test(start_paused = true)]
async fn open_constant_rate_arrivals() {
    let w = OpenWorkload { start_delay: ms(500), ..open(10.0, &[(10.0, 2000)], 1, 5) };
    let r = run(Workload::Open(w.clone()), &Segment::FULL, ms(10), None, Duration::ZERO).await;
    assert_eq!(r.log.len(), 20);
    assert_eq!(r.log.iter().map(|r| r.at).min(), Some(ms(500)));
    assert_on_schedule(&r, &w);
}

#[tokio::test(start_paused = true)]
async fn open_ramping_stages_arrivals() {
    let w = open(0.0, &[(20.0, 2000), (20.0, 1000), (5.0, 1500)], 0, 50);
    let r = run(Workload::Open(w.clone()), &Segment::FULL, ms(30), None, Duration::ZERO).await;
    assert_eq!(r.log.len(), 59);
    assert_on_schedule(&r, &w);
}

#[tokio::test(start_paused = true)]
async fn open_arrivals_are_dropped_when_every_user_is_busy() {
    // 10/s with two users busy 250 ms each: the arrivals at 200, 500 and 800 ms find none free.
    let w = open(10.0, &[(10.0, 1000)], 0, 2);
    let r = run(Workload::Open(w), &Segment::FULL, ms(250), None, Duration::ZERO).await;
    let dues: Vec<Duration> =
        r.log.iter().map(|r| r.due.unwrap()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    assert_eq!(dues, [0, 100, 300, 400, 600, 700, 900].map(ms));
    assert_eq!((r.counts.iterations, r.counts.dropped, r.counts.undispatched), (7, 3, 0));
}

#[tokio::test(start_paused = true)]
async fn open_arrivals_later_than_max_lag_are_undispatched() {
    // 10/s for 5 s; the clock jumps 2.5 s during the first arrival: at 2.5 s the arrivals due
    // before 1.5 s are more than MAX_LAG late and are counted, not sent; the rest are caught up.
    assert_eq!(super::open::MAX_LAG, ms(1000));
    let w = open(10.0, &[(10.0, 5000)], 2, 20);
    let r = run(Workload::Open(w), &Segment::FULL, ms(10), None, ms(2500)).await;
    assert_eq!((r.counts.undispatched, r.counts.dropped), (14, 0));
    assert_eq!(r.counts.iterations, 36);
    assert_eq!(r.log.len(), 36);
    let dues: Vec<Duration> = r.log.iter().map(|r| r.due.unwrap()).filter(|d| *d > Duration::ZERO).collect();
    assert_eq!(dues.iter().min(), Some(&ms(1500)));
}

/// Every (user, iteration, start) of the whole run, run as `n` segments and put together.
async fn union_of_segments(w: &Workload, n: u32, took: Duration) -> (Vec<Ran>, ScenarioCounts) {
    let mut all = Vec::new();
    let mut counts = ScenarioCounts::default();
    for i in 1..=n {
        let r = run(w.clone(), &Segment::nth(i, n).unwrap(), took, None, Duration::ZERO).await;
        all.extend(r.log);
        counts.iterations += r.counts.iterations;
        counts.dropped += r.counts.dropped;
        counts.undispatched += r.counts.undispatched;
    }
    all.sort();
    (all, counts)
}

#[tokio::test(start_paused = true)]
async fn closed_segments_add_up_to_the_whole() {
    let w = Workload::Closed(ClosedWorkload { ramp_up: ms(10_000), ..closed(10, Some(2), None) });
    let whole = run(w.clone(), &Segment::FULL, ms(100), None, Duration::ZERO).await;
    assert_eq!(whole.log.len(), 20);
    for n in 1..=7 {
        let (union, counts) = union_of_segments(&w, n, ms(100)).await;
        assert_eq!(union, whole.log, "{n} segments");
        assert_eq!(counts.iterations, 20);
    }
    let per_segment: Vec<usize> =
        (1..=3).map(|i| (0..10).filter(|&u| Segment::nth(i, 3).unwrap().owns(u)).count()).collect();
    assert_eq!(per_segment, [4, 3, 3]);
}

#[tokio::test(start_paused = true)]
async fn open_segments_add_up_to_the_whole() {
    for w in [open(7.0, &[(7.0, 3000)], 1, 20), open(0.0, &[(20.0, 2000), (20.0, 1000), (3.0, 1500)], 3, 40)] {
        let whole = run(Workload::Open(w.clone()), &Segment::FULL, ms(30), None, Duration::ZERO).await;
        assert_on_schedule(&whole, &w);
        let mut whole_dues: Vec<Duration> = whole.log.iter().map(|r| r.due.unwrap()).collect();
        whole_dues.sort();
        for n in 1..=7 {
            let (union, counts) = union_of_segments(&Workload::Open(w.clone()), n, ms(30)).await;
            let mut dues: Vec<Duration> = union.iter().map(|r| r.due.unwrap()).collect();
            dues.sort();
            assert_eq!(dues, whole_dues, "{n} segments");
            assert_eq!((counts.iterations, counts.dropped, counts.undispatched), (whole.counts.iterations, 0, 0));
            let users: u32 = (1..=n).map(|i| Segment::nth(i, n).unwrap().scale(w.max_users)).sum();
            assert_eq!(users, w.max_users);
        }
    }
}

fn shaped(starts: &[u64], stops: &[u64], iterations: Option<u64>) -> ShapedWorkload {
    ShapedWorkload {
        starts: Times(starts.iter().map(|&t| ms(t)).collect()),
        stops: Some(Times(stops.iter().map(|&t| ms(t)).collect())),
        iterations,
        renew: false,
        finish_iteration: false,
        graceful_stop: Duration::from_secs(30),
    }
}

/// (user, start) of each iteration, in order.
fn starts_of(r: &Record) -> Vec<(u64, Duration)> {
    r.log.iter().map(|r| (r.user, r.at)).collect()
}

#[tokio::test(start_paused = true)]
async fn shaped_users_start_and_stop_at_their_own_times() {
    // Iterations of 300 ms; user 1 stops at 500 ms (its iteration from 400 ms runs on: the
    // user stops before its next request), user 2 starts last and stops at 1 s.
    let w = shaped(&[0, 100, 200], &[1000, 500, 1000], None);
    let r = run(Workload::Shaped(w), &Segment::FULL, ms(300), None, Duration::ZERO).await;
    assert_eq!(
        starts_of(&r),
        [(0, 0), (0, 300), (0, 600), (0, 900), (1, 100), (1, 400), (2, 200), (2, 500), (2, 800)]
            .map(|(u, t)| (u, ms(t)))
    );
    assert!(r.log.iter().all(|r| !r.abandoned));
    assert_eq!(r.counts.iterations, 9);
    assert_eq!(r.took, ms(1200));
}

/// Closed-model stages hold their number of users: 2 users for 1 s, 4 for 1 s, then 1 for 1 s,
/// each iteration 100 ms; a user stopped at a step down finishes the iteration it is in.
#[tokio::test(start_paused = true)]
async fn closed_stages_hold_their_users() {
    let w = ShapedWorkload::from_stages(
        0,
        &[(2, ms(0)), (2, ms(1000)), (4, ms(0)), (4, ms(1000)), (1, ms(0)), (1, ms(1000))],
        Duration::ZERO,
        Duration::from_secs(30),
    );
    let r = run(Workload::Shaped(w), &Segment::FULL, ms(100), None, Duration::ZERO).await;
    let per_second: Vec<usize> =
        (0..3).map(|k| r.log.iter().filter(|i| i.at >= ms(k * 1000) && i.at < ms((k + 1) * 1000)).count()).collect();
    assert_eq!(per_second, [20, 40, 10], "{:?}", starts_of(&r));
    let users_at = |k: u64| {
        let mut u: Vec<u64> =
            r.log.iter().filter(|i| i.at >= ms(k * 1000) && i.at < ms((k + 1) * 1000)).map(|i| i.user).collect();
        u.dedup();
        u.sort();
        u.dedup();
        u
    };
    assert_eq!((users_at(0), users_at(1), users_at(2)), (vec![0, 1], vec![0, 1, 2, 3], vec![0]));
    assert!(r.log.iter().all(|r| !r.abandoned));
    assert_eq!(r.took, ms(3000));
}

#[tokio::test(start_paused = true)]
async fn shaped_users_are_given_their_stop_and_iterations_bound_them() {
    let w = shaped(&[0, 0], &[10_000, 250], Some(2));
    let ctx = ScenarioCtx::for_test(None);
    let t0 = Instant::now();
    let fakes = Fakes {
        ctx: ctx.clone(),
        t0,
        took: ms(100),
        stall: Duration::ZERO,
        log: Default::default(),
        stops: Default::default(),
    };
    run_scenario(ctx, Workload::Shaped(w), &Segment::FULL, fakes.clone(), CancellationToken::new()).await;
    let mut stops = fakes.stops.lock().unwrap().clone();
    stops.sort();
    assert_eq!(stops, [(0, Some(ms(10_000))), (1, Some(ms(250)))]);
    let mut log = fakes.log.lock().unwrap().clone();
    log.sort();
    // User 0 ends after its 2 iterations, long before its stop; user 1 runs 2 as well (its
    // second starts at 100 ms, before its stop).
    assert_eq!(
        log.iter().map(|r| (r.user, r.at)).collect::<Vec<_>>(),
        [(0, ms(0)), (0, ms(100)), (1, ms(0)), (1, ms(100))]
    );
    // The scenario ends when the users do, not at the last stop.
    assert_eq!(Instant::now() - t0, ms(200));
}

#[tokio::test(start_paused = true)]
async fn shaped_renewed_users_replace_those_done_and_finish_their_iteration() {
    // The Concurrency Thread Group: two users from 0 to 1 s, 2 iterations each, replaced when
    // done; the iteration in flight at 1 s (from 900 ms) runs to its end.
    let w = ShapedWorkload { renew: true, finish_iteration: true, ..shaped(&[0, 0], &[1000, 1000], Some(2)) };
    let r = run(Workload::Shaped(w), &Segment::FULL, ms(300), None, Duration::ZERO).await;
    assert_eq!(
        starts_of(&r),
        [(0, 0), (0, 300), (1, 0), (1, 300), (2, 600), (2, 900), (3, 600), (3, 900)].map(|(u, t)| (u, ms(t)))
    );
    assert!(r.log.iter().all(|r| !r.abandoned));
    assert_eq!(r.counts.iterations, 8);
    assert_eq!(r.took, ms(1200));
}

#[tokio::test(start_paused = true)]
async fn shaped_segments_add_up_to_the_whole() {
    let w = Workload::Shaped(shaped(
        &[0, 100, 200, 300, 1000, 1000, 1000],
        &[900, 900, 2000, 2000, 1500, 1600, 1700],
        None,
    ));
    let whole = run(w.clone(), &Segment::FULL, ms(100), None, Duration::ZERO).await;
    for n in 1..=7 {
        let (union, counts) = union_of_segments(&w, n, ms(100)).await;
        assert_eq!(union, whole.log, "{n} segments");
        assert_eq!(counts.iterations, whole.counts.iterations);
    }
}

#[tokio::test(start_paused = true)]
async fn open_rate_steps_of_zero_length_stages() {
    // An Arrivals Thread Group of 4/s in 2 steps over 2 s, held 1 s: 2/s for 1 s, 4/s for 2 s.
    let w = OpenWorkload {
        stages: vec![
            Stage { target: 2.0, duration: ms(1000) },
            Stage { target: 4.0, duration: Duration::ZERO },
            Stage { target: 4.0, duration: ms(1000) },
            Stage { target: 4.0, duration: ms(1000) },
        ],
        ..open(2.0, &[], 0, 20)
    };
    let r = run(Workload::Open(w.clone()), &Segment::FULL, ms(10), None, Duration::ZERO).await;
    assert_on_schedule(&r, &w);
    let dues: Vec<Duration> = r.log.iter().map(|r| r.due.unwrap()).collect();
    let mut dues = dues;
    dues.sort();
    assert_eq!(dues, [0, 500, 1000, 1250, 1500, 1750, 2000, 2250, 2500, 2750].map(ms));
}

#[tokio::test(start_paused = true)]
async fn issue31_a_rate_beyond_any_clock_ends_on_time_and_wraps_no_count() {
    // 1e300/s for 2 s (refused by every parser; the executor must still hold): more arrivals
    // than u64 counts. The first arrival stalls the clock 2.5 s, past the schedule's end: what
    // was not sent is undispatched, every arrival is counted once, and nothing wraps.
    let w = open(1e300, &[(1e300, 2000)], 2, 20);
    let total = ArrivalSchedule::new(w.start_rate, &w.stages).total();
    assert_eq!(total, u64::MAX);
    let r = run(Workload::Open(w), &Segment::FULL, ms(10), None, ms(2500)).await;
    let c = r.counts;
    let sum = u128::from(c.iterations) + u128::from(c.dropped) + u128::from(c.undispatched);
    assert_eq!(sum, u128::from(total), "{c:?}");
    assert!(c.undispatched > u64::MAX / 2, "{c:?}");
    assert!(r.took <= ms(3000), "took {:?}", r.took);
}
