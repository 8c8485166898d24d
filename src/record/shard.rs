//! The [`Recorder`]: one shard of stats per thread that records, written without locks.
//!
//! Written by hand rather than with a channel or a mutex because it is the hot path: a sample
//! costs two atomic stores and a few loads, never blocks, never allocates. Each shard has two
//! [`Tally`] buffers (left-right): its thread writes into the active one while the collector
//! drains the other. To drain, the collector flips `active`, then waits until the writer is no
//! longer inside the old buffer (a record takes nanoseconds), and then owns it alone.
//!
//! The protocol is Dekker-style and needs sequentially consistent ordering on `active` and
//! `writing`: the writer publishes which buffer it entered, then re-reads `active`; the
//! collector publishes the flip, then reads `writing`. One of them must see the other's store,
//! so either the writer retries on the new buffer or the collector waits for it to leave.

use super::cap::Fold;
use super::{Sample, Tally};
use std::cell::{RefCell, UnsafeCell};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

struct Shard {
    bufs: [UnsafeCell<Tally>; 2],
    /// Which buffer writers use.
    active: AtomicUsize,
    /// 0 when the owning thread is not recording, else 1 + the buffer it is writing.
    writing: AtomicUsize,
}

// SAFETY: a buffer is touched only by the shard's one writer thread while it is active and
// `writing` says so, or by the (single) collector after the flip and the wait in `drain_into`.
unsafe impl Sync for Shard {}
unsafe impl Send for Shard {}

impl Shard {
    fn new(labels: usize, scenarios: usize) -> Shard {
        Shard {
            bufs: [UnsafeCell::new(Tally::new(labels, scenarios)), UnsafeCell::new(Tally::new(labels, scenarios))],
            active: AtomicUsize::new(0),
            writing: AtomicUsize::new(0),
        }
    }

    /// Runs `f` on the active buffer. Must only be called from the thread that owns the shard.
    #[inline]
    fn write(&self, f: impl FnOnce(&mut Tally)) {
        let mut i = self.active.load(SeqCst);
        loop {
            self.writing.store(i + 1, SeqCst);
            let now = self.active.load(SeqCst);
            if now == i {
                break;
            }
            i = now;
        }
        // Leaves the buffer even if `f` panics, so the collector never waits forever.
        struct Leave<'a>(&'a AtomicUsize);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.store(0, SeqCst);
            }
        }
        let _leave = Leave(&self.writing);
        // SAFETY: see the module doc; the collector does not touch buffer `i` while
        // `writing == i + 1`, and this thread is the only writer.
        f(unsafe { &mut *self.bufs[i].get() });
    }

    /// Moves everything recorded so far into `out`. Only one collector may call this at a time.
    fn drain_into(&self, out: &mut Tally) {
        let old = self.active.load(SeqCst);
        self.active.store(1 - old, SeqCst);
        while self.writing.load(SeqCst) == old + 1 {
            std::hint::spin_loop();
        }
        // SAFETY: writers now use the other buffer and none is inside this one.
        let buf = unsafe { &mut *self.bufs[old].get() };
        out.merge(buf);
        buf.clear();
    }
}

static NEXT_RECORDER_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's shard of each live recorder (normally exactly one).
    static SHARDS: RefCell<Vec<(u64, Arc<Shard>)>> = const { RefCell::new(Vec::new()) };
}

/// Collects samples from any number of threads; see the module doc.
pub(crate) struct Recorder {
    id: u64,
    /// Rows per tally: the plan's labels, and the overflow row when there is a cap to apply.
    labels: usize,
    fold: Option<Fold>,
    scenarios: usize,
    /// Every shard ever created, for the collector. Locked only when a thread records for the
    /// first time and when draining, never per sample.
    shards: Mutex<Vec<Arc<Shard>>>,
    /// Serialises drains (the shard protocol allows one collector at a time).
    drain_lock: Mutex<()>,
}

impl Recorder {
    pub(crate) fn new(labels: usize, scenarios: usize) -> Arc<Recorder> {
        let fold = Fold::new(labels);
        Arc::new(Recorder {
            id: NEXT_RECORDER_ID.fetch_add(1, SeqCst),
            labels: labels + usize::from(fold.is_some()),
            fold,
            scenarios,
            shards: Mutex::new(Vec::new()),
            drain_lock: Mutex::new(()),
        })
    }

    /// Records `s` under its label's row: its own, or past the label cap the overflow row
    /// (see [`row_names`](super::row_names)).
    #[inline]
    pub(crate) fn record(&self, s: &Sample) {
        match &self.fold {
            None => self.write(|t| t.record(s)),
            Some(fold) => {
                let s = Sample { label: fold.row(s.label), ..*s };
                self.write(|t| t.record(&s));
            }
        }
    }

    pub(crate) fn iteration_done(&self, scenario: usize) {
        self.write(|t| t.scenarios[scenario].iterations += 1);
    }

    pub(crate) fn dropped(&self, scenario: usize) {
        self.write(|t| t.scenarios[scenario].dropped += 1);
    }

    pub(crate) fn undispatched(&self, scenario: usize, n: u64) {
        self.write(|t| t.scenarios[scenario].undispatched += n);
    }

    pub(crate) fn lateness(&self, scenario: usize, late_us: u64) {
        self.write(|t| t.record_lateness(scenario, late_us));
    }

    #[inline]
    fn write(&self, f: impl FnOnce(&mut Tally)) {
        SHARDS.with(|cell| {
            let mut shards = cell.borrow_mut();
            if let Some((_, shard)) = shards.iter().find(|(id, _)| *id == self.id) {
                shard.write(f);
                return;
            }
            // First sample of this recorder on this thread: make its shard. Shards of recorders
            // that are gone (only this thread still holds them) are dropped here.
            shards.retain(|(_, s)| Arc::strong_count(s) > 1);
            let shard = Arc::new(Shard::new(self.labels, self.scenarios));
            self.shards.lock().unwrap_or_else(|e| e.into_inner()).push(shard.clone());
            shard.write(f);
            shards.push((self.id, shard));
        });
    }

    /// Merges everything recorded since the last drain, on every thread, into `out`.
    ///
    /// Shards of threads that have ended (only this recorder still holds them: a runtime's
    /// blocking threads come and go over a long run) are drained a last time and dropped, so
    /// their number stays that of the live threads.
    pub(crate) fn drain_into(&self, out: &mut Tally) {
        let _one_collector = self.drain_lock.lock().unwrap_or_else(|e| e.into_inner());
        let shards: Vec<Arc<Shard>> = self.shards.lock().unwrap_or_else(|e| e.into_inner()).clone();
        // Held by the list and this copy only: its thread has ended, and ended before this
        // drain, so what the drain takes from it is all it will ever have.
        let dead: Vec<bool> = shards.iter().map(|s| Arc::strong_count(s) == 2).collect();
        for shard in &shards {
            shard.drain_into(out);
        }
        if dead.iter().any(|d| *d) {
            drop(shards);
            // Shards are only ever appended, so the first `dead.len()` are the ones judged.
            let mut list = self.shards.lock().unwrap_or_else(|e| e.into_inner());
            let mut i = 0;
            list.retain(|_| {
                let keep = !dead.get(i).copied().unwrap_or(false);
                i += 1;
                keep
            });
        }
    }

    /// Shards currently kept (one per thread that has recorded and is still alive, roughly).
    #[cfg(test)]
    fn shard_count(&self) -> usize {
        self.shards.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub(crate) fn new_tally(&self) -> Tally {
        Tally::new(self.labels, self.scenarios)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::LabelId;

    #[test]
    fn shards_of_ended_threads_are_drained_once_more_and_dropped() {
        let rec = Recorder::new(1, 1);
        let mut total = rec.new_tally();
        for round in 0..5u64 {
            let r = rec.clone();
            std::thread::spawn(move || {
                r.iteration_done(0);
                r.dropped(0);
            })
            .join()
            .unwrap();
            rec.drain_into(&mut total);
            assert_eq!(total.scenarios[0].iterations, round + 1, "nothing lost");
            assert_eq!(rec.shard_count(), 0, "the ended thread's shard is gone");
        }
        // A live thread's shard stays.
        rec.iteration_done(0);
        rec.drain_into(&mut total);
        assert_eq!(rec.shard_count(), 1);
        assert_eq!(total.scenarios[0].iterations, 6);
    }

    #[test]
    fn concurrent_writers_and_drains_lose_nothing() {
        let rec = Recorder::new(2, 1);
        let per_thread = 200_000u64;
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let rec = rec.clone();
                std::thread::spawn(move || {
                    for i in 0..per_thread {
                        let s = Sample {
                            label: LabelId((i % 2) as u32),
                            start_us: i,
                            end_us: i + 1 + (i % 1000),
                            ttfb_us: 0,
                            connect_us: 0,
                            bytes_sent: 1,
                            bytes_received: t + 1,
                            new_connection: false,
                            error: None,
                            in_total: true,
                            upstream_us: None,
                        };
                        rec.record(&s);
                    }
                    rec.iteration_done(0);
                })
            })
            .collect();
        let mut total = rec.new_tally();
        // Drain repeatedly while the writers run, then once more at the end.
        while !threads.iter().all(|t| t.is_finished()) {
            rec.drain_into(&mut total);
        }
        threads.into_iter().for_each(|t| t.join().unwrap());
        rec.drain_into(&mut total);
        let all = &total.total;
        assert_eq!(all.samples, 4 * per_thread);
        assert_eq!(all.histogram.len(), 4 * per_thread);
        assert_eq!(all.bytes_sent, 4 * per_thread);
        assert_eq!(all.bytes_received, per_thread * (1 + 2 + 3 + 4));
        assert_eq!(total.label(0).unwrap().samples, 2 * per_thread);
        assert_eq!(total.scenarios[0].iterations, 4);
    }
}
