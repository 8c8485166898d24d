//! A script's time on an async runtime's worker thread. Scripts run synchronously inside a
//! user's task: while one runs, the other tasks on that worker wait (on a one-core machine,
//! every other user of the run). The interpreter keeps one [`Slice`] per execution and calls
//! [`Slice::tick`] every few thousand steps: once the execution has run for [`SLICE`], the
//! worker's queue is handed to a fresh thread (`tokio::task::block_in_place`), and the script
//! goes on where it is, on a thread the OS schedules beside the workers.
//!
//! Short scripts (nearly all) never reach a tick that looks at the clock, so they pay nothing:
//! not a clock read, not a thread hand-off. Entering `block_in_place` around every execution
//! instead would cost a thread wake-up per script (several µs, a tenth of a small request).

use std::time::{Duration, Instant};

/// How long an execution runs on the worker before it moves off it: about what a few
/// requests take, so other users' samples are delayed by no more than that, and the hand-off
/// (tens of µs) stays a small part of any script it is paid for.
pub(crate) const SLICE: Duration = Duration::from_micros(500);

/// The longest the execution waits for its worker's queue to be taken by the new thread.
const HAND_OFF_WAIT: Duration = Duration::from_millis(20);

/// One execution's use of its thread (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct Slice {
    /// When the execution first ticked.
    since: Option<Instant>,
    /// Whether the execution has left the worker.
    moved: bool,
}

impl Slice {
    /// Called every few thousand steps of the execution: moves it off the worker once it has
    /// run for [`SLICE`].
    pub(crate) fn tick(&mut self) {
        let now = Instant::now();
        let Some(since) = self.since else {
            self.since = Some(now);
            return;
        };
        if self.moved || now.saturating_duration_since(since) < SLICE {
            return;
        }
        // Tried again a slice later when it did not take.
        self.since = Some(now);
        self.moved = hand_off();
    }

    /// Whether the execution has left its worker.
    #[cfg(test)]
    pub(crate) fn moved(&self) -> bool {
        self.moved
    }
}

/// Hands this worker's queue to a new thread and lets the caller run on. `false` when not on a
/// multi-threaded tokio runtime (a current-thread runtime cannot, and there is nothing to hand
/// over outside one), or when the runtime ran nothing else meanwhile.
fn hand_off() -> bool {
    let Ok(handle) = tokio::runtime::Handle::try_current() else { return false };
    if handle.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
        return false;
    }
    tokio::task::block_in_place(|| {
        // `block_in_place` has given the worker's queue to a thread it woke; when its closure
        // returns, it takes the queue back unless that thread already has it. Wait until the
        // runtime runs a task without this thread: on one worker, proof that the new thread
        // holds the queue (with several, the others steal this one's tasks anyway).
        let (tx, rx) = std::sync::mpsc::sync_channel::<()>(1);
        handle.spawn(async move {
            let _ = tx.send(());
        });
        rx.recv_timeout(HAND_OFF_WAIT).is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// Spins `for` on the calling thread, ticking as a script would.
    fn busy(d: Duration) -> Slice {
        let mut s = Slice::default();
        let end = Instant::now() + d;
        while Instant::now() < end {
            for _ in 0..1000 {
                std::hint::black_box(0u64);
            }
            s.tick();
        }
        s
    }

    #[test]
    fn a_short_execution_never_hands_off() {
        let mut s = Slice::default();
        s.tick();
        s.tick();
        assert!(!s.moved());
        // Outside a runtime, nothing to hand over.
        assert!(!busy(SLICE * 4).moved());
    }

    #[test]
    fn a_current_thread_runtime_is_left_alone() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let s = rt.block_on(async { busy(SLICE * 4) });
        assert!(!s.moved());
    }

    /// On one worker, a task that spins without awaiting stops every other task until it ends;
    /// once it has handed off, the others run beside it.
    #[test]
    fn a_long_execution_lets_the_other_tasks_of_its_worker_run() {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let ticks = Arc::new(AtomicU64::new(0));
        let (spun, during) = rt.block_on(async {
            let counter = {
                let ticks = ticks.clone();
                tokio::spawn(async move {
                    loop {
                        ticks.fetch_add(1, Ordering::Relaxed);
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                })
            };
            // Let the counter start on the one worker.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let ticks = ticks.clone();
            let spinner = tokio::spawn(async move {
                let before = ticks.load(Ordering::Relaxed);
                let s = busy(Duration::from_millis(300));
                (s.moved(), ticks.load(Ordering::Relaxed) - before)
            });
            let r = spinner.await.unwrap();
            counter.abort();
            r
        });
        assert!(spun, "moved off the worker");
        // About 300 ticks of 1 ms when nothing blocks the worker; none without the hand-off.
        assert!(during >= 20, "the other task ticked {during} times during 300 ms of script");
    }
}
