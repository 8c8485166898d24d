//! [`Barrier`]: a Synchronizing Timer's batches of users, as JMeter's `SyncTimer` (one
//! `CyclicBarrier` shared by the clones of the element): each user waits until `parties` users
//! wait, then all go at once and the barrier takes the next batch. A user that waited out the
//! timeout goes on, and so does every user waiting with it (JMeter's timed-out `await` breaks
//! the barrier, then resets it). A user's wait also ends at its scheduled end and at a stop,
//! which cut it (JMeter's `adjustDelay` to the end time, and a stop's interrupt); the others
//! waiting go on then too, as JMeter's `reset()` breaks the barrier for them. So a batch that
//! can never fill (more users than will ever come) holds no run past its end or a stop.

use crate::plan::flow::SyncSpec;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

#[derive(Debug)]
pub(crate) struct Barrier {
    spec: SyncSpec,
    state: Mutex<State>,
    /// Woken when a batch goes; a user registers under the state's lock, before it can go.
    released: Notify,
}

#[derive(Debug, Default)]
struct State {
    /// Users per batch, fixed by the first user that comes (0 until then): for a group size of
    /// 0, its thread group's users (JMeter sets the barrier up as the first thread starts).
    parties: u64,
    waiting: u64,
    /// Counts the batches gone (full, timed out or broken).
    batch: u64,
}

/// How a user's wait at the barrier ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Passed {
    /// Its batch went (full, timed out or broken): on to the sampler.
    Go,
    /// Its scheduled end or a stop came first.
    Cut,
    /// The timer throws (a negative timeout), which ends a JMeter thread.
    Ends,
}

impl Barrier {
    pub(crate) fn new(spec: SyncSpec) -> Barrier {
        Barrier { spec, state: Mutex::new(State::default()), released: Notify::new() }
    }

    /// Waits for this user's batch. `users`: the user's thread group's users (the batch for a
    /// group size of 0); `until`: the user's scheduled end.
    pub(crate) async fn wait(&self, users: u64, until: Option<Instant>, stop: &CancellationToken) -> Passed {
        if self.spec.timeout_ms < 0 {
            return Passed::Ends;
        }
        let (batch, released) = {
            let mut s = self.state.lock().expect("barrier lock");
            if s.parties == 0 {
                s.parties = if self.spec.group_size > 0 { self.spec.group_size } else { users.max(1) };
            }
            if s.waiting + 1 >= s.parties {
                self.release(&mut s);
                return Passed::Go;
            }
            s.waiting += 1;
            // Made under the lock: no batch can go between reading `batch` and registering.
            (s.batch, self.released.notified())
        };
        let timeout = async {
            match self.spec.timeout_ms {
                0 => std::future::pending().await,
                ms => tokio::time::sleep(Duration::from_millis(ms as u64)).await,
            }
        };
        let end = async {
            match until {
                Some(t) => tokio::time::sleep_until(t.into()).await,
                None => std::future::pending().await,
            }
        };
        let passed = tokio::select! {
            _ = released => return Passed::Go,
            _ = timeout => Passed::Go,
            _ = end => Passed::Cut,
            _ = stop.cancelled() => Passed::Cut,
        };
        let mut s = self.state.lock().expect("barrier lock");
        if s.batch == batch {
            self.release(&mut s);
        }
        passed
    }

    fn release(&self, s: &mut State) {
        s.waiting = 0;
        s.batch += 1;
        self.released.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use tokio::task::JoinHandle;

    fn barrier(group_size: u64, timeout_ms: i64) -> Arc<Barrier> {
        Arc::new(Barrier::new(SyncSpec { name: "sync".into(), group_size, timeout_ms }))
    }

    /// A user arriving now: its wait's outcome and when it ended, from `t0`.
    fn arrive(b: &Arc<Barrier>, users: u64, stop: &CancellationToken) -> JoinHandle<(Passed, Duration)> {
        let (b, stop) = (b.clone(), stop.clone());
        let t0 = tokio::time::Instant::now();
        tokio::spawn(async move {
            let p = b.wait(users, None, &stop).await;
            (p, t0.elapsed())
        })
    }

    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test(start_paused = true)]
    async fn users_go_in_batches_of_the_group_size_and_the_barrier_takes_the_next_batch() {
        let b = barrier(3, 0);
        let stop = CancellationToken::new();
        for round in 0..2 {
            let first: Vec<_> = (0..2).map(|_| arrive(&b, 10, &stop)).collect();
            tokio::time::sleep(Duration::from_millis(500)).await;
            settle().await;
            assert!(first.iter().all(|h| !h.is_finished()), "round {round}: two of three must wait");
            assert_eq!(b.wait(10, None, &stop).await, Passed::Go, "the third fills the batch");
            for h in first {
                let (p, waited) = h.await.unwrap();
                assert_eq!((p, waited), (Passed::Go, Duration::from_millis(500)), "round {round}");
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_group_size_of_zero_is_the_thread_group_s_users() {
        let b = barrier(0, 0);
        let stop = CancellationToken::new();
        let first = arrive(&b, 2, &stop);
        settle().await;
        assert!(!first.is_finished());
        assert_eq!(b.wait(2, None, &stop).await, Passed::Go);
        assert_eq!(first.await.unwrap().0, Passed::Go);
    }

    /// As JMeter's timed-out `await`: the user goes on, the others waiting with it too, and the
    /// next users start a new batch.
    #[tokio::test(start_paused = true)]
    async fn a_timeout_releases_every_user_waiting_and_starts_a_new_batch() {
        let b = barrier(3, 200);
        let stop = CancellationToken::new();
        let early = arrive(&b, 10, &stop);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let late = arrive(&b, 10, &stop);
        assert_eq!(early.await.unwrap(), (Passed::Go, Duration::from_millis(200)));
        assert_eq!(late.await.unwrap(), (Passed::Go, Duration::from_millis(150)), "released with the one timed out");
        let next = arrive(&b, 10, &stop);
        settle().await;
        assert!(!next.is_finished(), "a new batch: one user waits");
        assert_eq!(next.await.unwrap(), (Passed::Go, Duration::from_millis(200)));
    }

    /// Every wait ends at the stop: the first user to see it is cut and breaks the batch, so a
    /// user that wakes after may find its batch gone (as JMeter's `reset()`); the engine's
    /// stopping flag keeps it from sampling.
    #[tokio::test(start_paused = true)]
    async fn a_stop_ends_every_wait_of_a_batch_that_never_fills() {
        let b = barrier(10, 0);
        let stop = CancellationToken::new();
        let waiting: Vec<_> = (0..3).map(|_| arrive(&b, 2, &stop)).collect();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        settle().await;
        assert!(waiting.iter().all(|h| !h.is_finished()));
        stop.cancel();
        let mut cut = 0;
        for h in waiting {
            let (p, waited) = h.await.unwrap();
            assert!(matches!(p, Passed::Cut | Passed::Go) && waited == Duration::from_secs(3600), "{p:?} {waited:?}");
            cut += usize::from(p == Passed::Cut);
        }
        assert!(cut >= 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_user_s_end_cuts_its_wait_and_releases_the_others() {
        let b = barrier(10, 0);
        let stop = CancellationToken::new();
        let other = arrive(&b, 2, &stop);
        tokio::time::sleep(Duration::from_millis(20)).await;
        let until = Instant::now() + Duration::from_millis(100);
        assert_eq!(b.wait(2, Some(until), &stop).await, Passed::Cut);
        assert!(Instant::now() >= until);
        assert_eq!(other.await.unwrap().0, Passed::Go);
    }

    #[tokio::test]
    async fn a_negative_timeout_ends_the_user() {
        let b = barrier(2, -1);
        assert_eq!(b.wait(2, None, &CancellationToken::new()).await, Passed::Ends);
    }
}
