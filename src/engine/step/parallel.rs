//! BlazeMeter's Parallel Controller (and Parallel HTTP Requests, read as one): the branches
//! run at the same time for one user.
//!
//! The plugin (`ParallelSampler`) starts a JMeter thread per branch and waits for all of them.
//! Each branch thread has its own connections (HttpClient's are per thread, closed as the
//! thread ends) and shares the user's variables, cookies and caches. Here each branch is a
//! copy of the user ([`VirtualUser::branch`]) running the branch's program as a future of the
//! user's own task; when all are done, what they changed in variables, cookies, caches and
//! function counters is written back to the user, in the order the branches finished (the
//! last write wins, as in the shared map). A plan without a Parallel Controller never reaches
//! this file: its users carry nothing more.
//!
//! The branch threads have no controller of the user's path above them: a Transaction
//! Controller around the Parallel Controller sees only the parent sample, and the thread
//! group's "action after a sampler error" does not apply to the branches' samples (the
//! plugin's thread group continues), only to the parent sample.

use super::super::client::HttpClient;
use super::super::jar::{same, Jar};
use super::super::program::ParallelOp;
use super::super::user::{Connections, IterEnd, Session, VirtualUser};
use super::GroupAcc;
use crate::record::Sample;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::Poll;
use std::time::Instant;

/// A branch's run, boxed: a user's future holds none unless it runs a Parallel Controller.
type BranchRun<'a> = Pin<Box<dyn Future<Output = (usize, IterEnd, u32)> + Send + 'a>>;

/// What the Parallel Controller's sample says: whether it failed (`None`: no parent sample),
/// and how a branch asked the user to go on: stop ([`IterEnd::UserDone`]), start its next
/// iteration ([`IterEnd::Next`]), or end now (the run is stopping: [`IterEnd::Cut`]).
pub(in crate::engine) type ParallelOutcome = (Option<bool>, Option<IterEnd>);

impl VirtualUser {
    /// Runs the branches of `p` at the same time, records the parent sample (from `start`),
    /// and writes back what the branches changed.
    pub(in crate::engine) fn parallel<'a>(
        &'a mut self,
        p: &'a ParallelOp,
        start: Instant,
    ) -> Pin<Box<dyn Future<Output = ParallelOutcome> + Send + 'a>> {
        Box::pin(async move {
            let ctx = self.ctx.clone();
            let mut kids: Vec<VirtualUser> = p.branches.iter().map(|_| self.branch(p.parent.map(|(_, s)| s))).collect();
            // The plugin's thread pool: a fixed one of `max` threads takes the branches in order.
            let pool = tokio::sync::Semaphore::new(p.max.min(tokio::sync::Semaphore::MAX_PERMITS));
            let finished = AtomicU32::new(0);
            let mut runs: Vec<Option<BranchRun<'_>>> = kids
                .iter_mut()
                .zip(p.branches.iter())
                .enumerate()
                .map(|(i, (kid, program))| {
                    let (pool, finished) = (&pool, &finished);
                    let run: BranchRun<'_> = Box::pin(async move {
                        let _permit = pool.acquire().await.expect("never closed");
                        let end = kid.run_program(program, None).await;
                        (i, end, finished.fetch_add(1, Ordering::Relaxed))
                    });
                    Some(run)
                })
                .collect();
            let mut ends: Vec<(usize, IterEnd, u32)> = Vec::with_capacity(runs.len());
            std::future::poll_fn(|cx| {
                for slot in runs.iter_mut() {
                    if let Some(run) = slot {
                        if let Poll::Ready(done) = run.as_mut().poll(cx) {
                            ends.push(done);
                            *slot = None;
                        }
                    }
                }
                if ends.len() == runs.len() {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            })
            .await;
            drop(runs);
            ends.sort_by_key(|(_, _, order)| *order);
            let order: Vec<usize> = ends.iter().map(|(i, _, _)| *i).collect();
            let end = Instant::now();
            let group = p.parent.map(|(_, slot)| {
                kids.iter().fold(GroupAcc::default(), |mut g, k| {
                    g.absorb(&k.plan.groups[slot as usize]);
                    g
                })
            });
            self.join(kids, &order);
            // How the branches want the user to go on: the one that ends the most wins.
            let rank = |e: &IterEnd| match e {
                IterEnd::Completed => 0,
                IterEnd::Next => 1,
                IterEnd::UserDone => 2,
                IterEnd::Cut => 3,
            };
            let after = ends.iter().map(|(_, e, _)| *e).filter(|e| *e != IterEnd::Completed).max_by_key(rank);
            let Some(((label, _), g)) = p.parent.zip(group) else {
                return (None, after);
            };
            // The plugin's parent sample: "200 OK", failed when a branch's sample failed, the
            // bytes of them all, no latency, from before the branches start to the last end.
            let sample = Sample {
                label,
                start_us: ctx.micros(start),
                end_us: ctx.micros(end),
                ttfb_us: 0,
                connect_us: 0,
                bytes_sent: g.bytes_sent,
                bytes_received: g.bytes_received,
                new_connection: false,
                error: g.error,
                in_total: true,
                upstream_us: None,
            };
            let (url, state) = (std::borrow::Cow::Borrowed(""), None);
            let how = super::super::sampler::How::PARENT;
            let made = super::super::sampler::Made {
                sample,
                start,
                end,
                plan_label: label,
                status: 200,
                state,
                url,
                before: &[],
                how,
            };
            let failed = self.finish(super::super::sampler::After::NONE, made, |_, _, _| None).await;
            (Some(failed), after)
        })
    }

    /// A copy of the user for one branch: its own connections and buffers, the user's
    /// variables, cookies, caches and counters, no transaction group open but the parent
    /// sample's (`parent`, a group slot).
    fn branch(&mut self, parent: Option<u32>) -> VirtualUser {
        use rand::SeedableRng;
        let mut vars = crate::engine::session::UserVars::new(
            self.session.vars.values.clone(),
            0,
            self.session.vars.thread_num,
            self.session.vars.globals.clone(),
        );
        vars.counters.clone_from(&self.session.vars.counters);
        // A `__fifoPop` in a branch stops waiting when the user's scenario stops, as the user's.
        vars.stop.clone_from(&self.session.vars.stop);
        vars.script_log.clone_from(&self.session.vars.script_log);
        // What the user's scripts know of it (set on its first script).
        vars.names = self.session.vars.names.clone();
        vars.thread_name_text.clone_from(&self.session.vars.thread_name_text);
        vars.rng = rand::rngs::SmallRng::from_rng(&mut self.session.vars.rng);
        let plan = self.plan.branch(|n| {
            let mut groups = vec![GroupAcc::default(); n];
            if let Some(slot) = parent {
                groups[slot as usize] = GroupAcc { open: true, sub: true, wall_clock: true, ..Default::default() };
            }
            groups
        });
        VirtualUser {
            ctx: self.ctx.clone(),
            session: Session {
                vars,
                jar: self.session.jar.clone(),
                caches: self.session.caches.clone(),
                script_env: self.session.script_env.clone(),
                sampler_edits: None,
                keep_prev: self.session.keep_prev,
                last_sample: self.session.last_sample.clone(),
            },
            conns: Connections { client: HttpClient::new(self.ctx.tls.clone()), ws: None, sockets: None },
            plan,
            iterations: self.iterations,
            fd_backoff: self.fd_backoff,
            stop_at: self.stop_at,
            abandon: self.abandon.clone(),
            out: Vec::new(),
            body: Vec::new(),
            path: String::new(),
        }
    }

    /// Writes back what the branches changed, in the order they finished (`order`, indices
    /// into `kids`): each variable, function counter, cookie and cache entry a branch set.
    fn join(&mut self, kids: Vec<VirtualUser>, order: &[usize]) {
        let before = self.session.vars.values.clone();
        let counters = self.session.vars.counters.clone();
        for &i in order {
            let k = &kids[i];
            for ((now, was), mine) in self.session.vars.values.iter_mut().zip(&before).zip(&k.session.vars.values) {
                if mine != was {
                    now.clone_from(mine);
                }
            }
            for ((now, was), mine) in self.session.vars.counters.iter_mut().zip(&counters).zip(&k.session.vars.counters)
            {
                *now += mine.saturating_sub(*was);
            }
            self.session.caches.absorb(&k.session.caches, &self.ctx.shared.managers.caches);
        }
        if let Some(jar) = self.session.jar.as_mut() {
            *jar = merge_jars(jar, order.iter().filter_map(|&i| kids[i].session.jar.as_ref()));
        }
    }
}

/// The jar `base` once each of `changed` (copies of it, in order) has set or removed its
/// cookies.
fn merge_jars<'a>(base: &Jar, changed: impl Iterator<Item = &'a Jar>) -> Jar {
    let mut now = base.clone();
    for jar in changed {
        for c in jar.iter_any() {
            if !base.iter_any().any(|b| b == c) {
                now.put(c.clone());
            }
        }
        for b in base.iter_any().filter(|b| !jar.iter_any().any(|c| same(b, c))) {
            now.remove(b);
        }
    }
    now
}

impl GroupAcc {
    /// Adds what another copy of this group summed (a parallel branch's).
    fn absorb(&mut self, other: &GroupAcc) {
        self.elapsed_us += other.elapsed_us;
        self.ttfb_us += other.ttfb_us;
        self.connect_us += other.connect_us;
        self.bytes_sent += other.bytes_sent;
        self.bytes_received += other.bytes_received;
        if other.status != 0 && (self.error.is_none() || other.error.is_some()) {
            self.status = other.status;
        }
        self.error = self.error.or(other.error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jar(cookies: &[&str]) -> Jar {
        let url = url::Url::parse("http://h/").unwrap();
        let mut j = Jar::default();
        for c in cookies {
            let _ = j.parse(c, &url);
        }
        j
    }

    /// #13: a branch's `__fifoPop` waiting for ever gives up when the user's scenario stops,
    /// as the user's own does; a branch without the stop token would hold the run open.
    #[test]
    fn a_branch_s_queue_wait_ends_when_the_scenario_stops() {
        use crate::plan::template::{FifoCall, Scope};
        let ctx = crate::engine::session::ScenarioCtx::for_test(None);
        let mut user = VirtualUser::new(ctx.clone());
        let mut kid = user.branch(None);
        ctx.stop.cancel();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let got = kid.session.vars.fifo(FifoCall::Pop { queue: "never", timeout_s: None, capacity: None });
            let _ = tx.send(got);
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(got, Ok(None), "the branch's pop must see the stop");
    }

    fn names(j: &Jar) -> Vec<String> {
        let mut v: Vec<String> = j.iter_any().map(|c| format!("{}={}", c.name(), c.value())).collect();
        v.sort();
        v
    }

    /// Each branch's new, changed and removed cookies reach the user; a later branch's value
    /// of the same cookie wins; a cookie no branch touched stays.
    #[test]
    fn branches_cookies_are_merged_in_finishing_order() {
        let base = jar(&["keep=1", "gone=1", "both=0"]);
        let a = jar(&["keep=1", "both=a", "new_a=1"]);
        let b = jar(&["keep=1", "gone=1", "both=b", "new_b=1"]);
        let merged = merge_jars(&base, [&a, &b].into_iter());
        assert_eq!(names(&merged), ["both=b", "keep=1", "new_a=1", "new_b=1"]);
    }
}
