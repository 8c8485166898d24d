//! The jp@gc Inter-Thread Communication queues (the plugin's `FifoMap`): named FIFO queues of
//! text shared by every user of the run, made empty when first named. A user waits on one as
//! the plugin's thread blocks: its PreProcessor and PostProcessor as steps of the program (a
//! task that waits, and stops waiting when its scenario stops), its `__fifo*` functions inside
//! a template (the worker hands its other tasks on while it waits, in slices that see the stop).

use super::user::{IterEnd, VirtualUser};
use crate::plan::flow::{Fifo, FifoAction};
use crate::plan::template::FifoCall;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often a function waiting on a queue looks whether its user must stop.
const SLICE: Duration = Duration::from_millis(50);

#[derive(Debug, Default)]
pub(crate) struct Fifos {
    queues: Mutex<HashMap<String, Arc<Queue>>>,
}

#[derive(Debug)]
struct Queue {
    items: Mutex<VecDeque<String>>,
    /// At most this many values (the plugin's `LinkedBlockingQueue` capacity).
    capacity: usize,
    /// Told of every change, for the tasks waiting and the functions waiting.
    changed: tokio::sync::Notify,
    cond: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, VecDeque<String>> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `take` on the values; when it did something, tells every waiter.
    fn attempt<T>(&self, take: &mut impl FnMut(&mut VecDeque<String>, usize) -> Option<T>) -> Option<T> {
        let r = take(&mut self.lock(), self.capacity);
        if r.is_some() {
            self.changed.notify_waiters();
            self.cond.notify_all();
        }
        r
    }
}

fn push(value: String) -> impl FnMut(&mut VecDeque<String>, usize) -> Option<()> {
    let mut value = Some(value);
    move |q, cap| (q.len() < cap).then(|| q.push_back(value.take().unwrap_or_default()))
}

fn pop(q: &mut VecDeque<String>, _: usize) -> Option<String> {
    q.pop_front()
}

impl Fifos {
    /// The queue of that name, made empty with that capacity if it is new.
    fn queue(&self, name: &str, capacity: Option<u32>) -> Arc<Queue> {
        let mut all = self.queues.lock().unwrap_or_else(|e| e.into_inner());
        all.entry(name.to_string())
            .or_insert_with(|| {
                Arc::new(Queue {
                    items: Mutex::default(),
                    capacity: capacity.map_or(usize::MAX, |c| c as usize),
                    changed: tokio::sync::Notify::new(),
                    cond: Condvar::new(),
                })
            })
            .clone()
    }

    /// Waits until `take` does something or `timeout` passes (none: for ever).
    async fn wait<T>(
        q: &Queue,
        timeout: Option<Duration>,
        mut take: impl FnMut(&mut VecDeque<String>, usize) -> Option<T>,
    ) -> Option<T> {
        let deadline = timeout.and_then(|t| tokio::time::Instant::now().checked_add(t));
        loop {
            let changed = q.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if let Some(r) = q.attempt(&mut take) {
                return Some(r);
            }
            match deadline {
                Some(d) => {
                    if tokio::time::timeout_at(d, changed).await.is_err() {
                        return q.attempt(&mut take);
                    }
                }
                None => changed.await,
            }
        }
    }

    /// [`Fifos::wait`] without a task: blocks the thread, looking at `stop` every slice.
    fn wait_blocking<T>(
        q: &Queue,
        timeout: Option<Duration>,
        stop: &dyn Fn() -> bool,
        mut take: impl FnMut(&mut VecDeque<String>, usize) -> Option<T>,
    ) -> Option<T> {
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut items = q.lock();
        loop {
            if let Some(r) = take(&mut items, q.capacity) {
                drop(items);
                q.changed.notify_waiters();
                q.cond.notify_all();
                return Some(r);
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) || stop() {
                return None;
            }
            let slice = deadline.map_or(SLICE, |d| (d - now).min(SLICE));
            items = q.cond.wait_timeout(items, slice).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    /// A `__fifo*` function's call, waiting on the thread (see the module's doc).
    pub(crate) fn call(&self, call: FifoCall<'_>, stop: &dyn Fn() -> bool) -> Option<String> {
        let secs = |s: Option<u64>| s.map(Duration::from_secs);
        match call {
            FifoCall::Put { queue, value, capacity } => {
                let q = self.queue(queue, capacity);
                let mut put = push(value.to_string());
                // Only a full queue makes the thread wait.
                if q.attempt(&mut put).is_none() {
                    super::sampler::off_the_worker(|| Self::wait_blocking(&q, None, stop, put));
                }
                Some(value.to_string())
            }
            FifoCall::Pop { queue, timeout_s, capacity } => {
                let q = self.queue(queue, capacity);
                if let Some(v) = q.attempt(&mut pop) {
                    return Some(v);
                }
                super::sampler::off_the_worker(|| Self::wait_blocking(&q, secs(timeout_s), stop, pop))
            }
            FifoCall::Get(queue) => Some(self.queue(queue, None).lock().front().cloned().unwrap_or_default()),
            FifoCall::Size(queue) => Some(self.queue(queue, None).lock().len().to_string()),
        }
    }
}

impl VirtualUser {
    /// A FIFO step; `Err` when the scenario stopped while it waited.
    pub(super) async fn fifo(&mut self, f: &Fifo) -> Result<(), IterEnd> {
        let ctx = self.ctx.clone();
        let name = f.queue.render_string(&mut self.session.vars);
        let q = ctx.shared.globals.fifos.queue(&name, f.capacity);
        match &f.action {
            FifoAction::Put(value) => {
                let value = value.render_string(&mut self.session.vars);
                tokio::select! {
                    _ = Fifos::wait(&q, None, push(value)) => Ok(()),
                    _ = ctx.stop.cancelled() => Err(IterEnd::Cut),
                }
            }
            FifoAction::Pop { var, name, timeout_s } => {
                let got = tokio::select! {
                    got = Fifos::wait(&q, timeout_s.map(Duration::from_secs), pop) => got,
                    _ = ctx.stop.cancelled() => return Err(IterEnd::Cut),
                };
                self.session.vars.set(*var, got.as_deref().unwrap_or(&format!("${{{name}}}")));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plugin's queue: first in, first out; a pop waits for a put from another task, or
    /// times out with nothing; a full queue makes a put wait for a pop; get and size look.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn queues_hand_values_between_tasks_in_order() {
        let fifos = Arc::new(Fifos::default());
        let no = || false;
        for v in ["a", "b"] {
            fifos.call(FifoCall::Put { queue: "q", value: v, capacity: None }, &no);
        }
        assert_eq!(fifos.call(FifoCall::Size("q"), &no).as_deref(), Some("2"));
        assert_eq!(fifos.call(FifoCall::Get("q"), &no).as_deref(), Some("a"));
        assert_eq!(
            fifos.call(FifoCall::Pop { queue: "q", timeout_s: Some(0), capacity: None }, &no).as_deref(),
            Some("a")
        );
        let q = fifos.queue("q", None);
        assert_eq!(Fifos::wait(&q, Some(Duration::ZERO), pop).await.as_deref(), Some("b"));
        assert_eq!(Fifos::wait(&q, Some(Duration::from_millis(20)), pop).await, None);
        assert_eq!(fifos.call(FifoCall::Get("q"), &no).as_deref(), Some(""));
        // A pop waiting in a task gets the value a function puts later.
        let waiter = {
            let fifos = fifos.clone();
            tokio::spawn(async move { Fifos::wait(&fifos.queue("q", None), None, pop).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        fifos.call(FifoCall::Put { queue: "q", value: "c", capacity: None }, &no);
        assert_eq!(waiter.await.unwrap().as_deref(), Some("c"));
        // Capacity 1: the second put waits until the value is taken.
        let small = fifos.queue("small", Some(1));
        Fifos::wait(&small, None, push("1".into())).await;
        assert_eq!(Fifos::wait(&small, Some(Duration::from_millis(20)), push("2".into())).await, None);
        let taker = {
            let fifos = fifos.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                fifos.call(FifoCall::Pop { queue: "small", timeout_s: None, capacity: Some(1) }, &|| false)
            })
        };
        Fifos::wait(&small, None, push("3".into())).await;
        assert_eq!(taker.await.unwrap().as_deref(), Some("1"));
        assert_eq!(fifos.call(FifoCall::Get("small"), &no).as_deref(), Some("3"));
        // A function waiting for ever stops waiting when its user must stop.
        let stop = || true;
        assert_eq!(fifos.call(FifoCall::Pop { queue: "none", timeout_s: None, capacity: None }, &stop), None);
    }
}
