//! [`VirtualUser`]: one simulated user, a tokio task that runs its scenario's [`Program`](super::program::Program) once
//! per iteration over its own connection, with its own variables and cookie jar, and records
//! a sample per request (and per redirect hop and group). The operations that keep state of
//! their own, and the request step, are in `step`.

use super::client::HttpClient;
use super::program::{Op, Program};
use super::session::ScenarioCtx;
use super::step::GroupAcc;
use crate::engine::session::UserVars;
use crate::plan::flow::StopKind;
use crate::plan::LabelId;
use crate::record::Sample;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How an iteration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IterEnd {
    Completed,
    /// Cut short by a stop.
    Cut,
    /// The user must stop: a data file it reads ran out (`on_eof: stop_user`).
    UserDone,
    /// A parallel branch asked for the user's next iteration; only a branch's run ends so,
    /// never an iteration.
    Next,
}

/// Operations a user runs without waiting before it yields to the runtime, so a loop of
/// `set` steps cannot hold a worker thread.
const OPS_BEFORE_YIELD: u32 = 1024;

/// Which program a run goes through: the user's flow ([`Flow`], which the run finds in the
/// scenario and so keeps nothing: a user's future is no larger for the branches a plan may
/// have), or a Parallel Controller's branch (`&Program`), which counts no iteration and
/// does not follow the thread group's action after an error (the plugin's thread group has
/// none).
pub(super) trait Source: Copy + Send + Sync {
    const BRANCH: bool;
    fn program<'a>(&'a self, ctx: &'a ScenarioCtx) -> &'a Program;
}

/// The user's own flow.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flow;

impl Source for Flow {
    const BRANCH: bool = false;
    fn program<'a>(&'a self, ctx: &'a ScenarioCtx) -> &'a Program {
        &ctx.program
    }
}

impl Source for &Program {
    const BRANCH: bool = true;
    fn program<'a>(&'a self, _: &'a ScenarioCtx) -> &'a Program {
        self
    }
}

pub(super) struct VirtualUser {
    pub(super) ctx: Arc<ScenarioCtx>,
    /// What the user carries from one sample to the next.
    pub(super) session: Session,
    /// What the user holds open to its servers.
    pub(super) conns: Connections,
    /// What the user keeps for its plan's controllers, timers and data files.
    pub(super) plan: PlanState,
    /// The iterations the user has started (a Counter that resets on each one reads it).
    pub(super) iterations: u64,
    /// How long to wait after the generator ran out of file descriptors, doubling while it
    /// lasts: a user that cannot open a socket must not spin and starve the others.
    pub(super) fd_backoff: Duration,
    /// The user's own end (a shaped workload's, a closed one's duration): no request or think
    /// time starts after it.
    pub(super) stop_at: Option<Instant>,
    /// The scenario's `hard` stop, as a child token the user shares with a few others (see
    /// [`ScenarioCtx::abandon_token`]): every request waits on it.
    pub(super) abandon: CancellationToken,
    /// Reused buffers: the request on the wire, its body, its path.
    pub(super) out: Vec<u8>,
    pub(super) body: Vec<u8>,
    pub(super) path: String,
}

/// What a user carries from one sample to the next (JMeter's thread context): its variables,
/// cookies and HTTP caches, and what its scripts keep. By value in [`VirtualUser`]: no
/// allocation and no byte of its own.
pub(super) struct Session {
    pub(super) vars: UserVars,
    pub(super) jar: Option<super::jar::Jar>,
    /// The user's HTTP caches (HTTP Cache Managers).
    pub(super) caches: super::managers::UserCaches,
    /// What script elements see of this user's thread, made on its first script.
    pub(super) script_env: Option<Arc<super::scripting::Env>>,
    /// What script pre-processors changed on the sampler that follows them.
    pub(super) sampler_edits: Option<Box<super::scripting::SamplerEdits>>,
    /// The user's last sample, as `prev` shows it to its next pre-processors, timers and
    /// script samplers (JMeter's `JMeterContext.getPreviousResult`): kept only when the
    /// user's program has such scripts, `None` before its first sample.
    pub(super) keep_prev: bool,
    pub(super) last_sample: Option<Box<super::scripting::SampleState>>,
}

/// What a user holds open to its servers: its HTTP connections (one per host), its WebSocket
/// connection and its raw sockets. By value in [`VirtualUser`], as [`Session`].
pub(super) struct Connections {
    pub(super) client: HttpClient,
    /// The user's WebSocket connection, kept across samples (the eu.luminis samplers'); boxed,
    /// as every user of every plan carries the field.
    pub(super) ws: Option<Box<super::sampler::WsConn>>,
    /// The user's raw sockets (TCP Sampler, HTTP Raw and UDP Requests), once it has used one.
    pub(super) sockets: Option<Box<super::sampler::Sockets>>,
}

/// What a user keeps for its plan's loops, Once Only and Transaction Controllers, counters,
/// timers, critical sections and its own data files: nothing in a plan that has none (quick
/// mode), where it would add ~200 bytes to every user's task for the whole run. Made as the
/// user starts when its plan has slots for it, else on its first use (a data file read per
/// user, a critical section).
pub(super) struct PlanState(Option<Box<PerPlan>>);

#[derive(Default)]
pub(super) struct PerPlan {
    /// Where the user is in each data file it reads on its own (`share: user`), by file index:
    /// added as it first reads one.
    pub(super) cursors: Vec<(u32, crate::plan::csv_data::Cursor)>,
    /// What each Spider PreProcessor the user ran remembers, by its index: added as it first runs.
    pub(super) spiders: Vec<(u32, crate::plan::anchor::Spider)>,
    pub(super) loop_counts: Vec<(u64, u64)>,
    pub(super) once_done: Vec<bool>,
    pub(super) groups: Vec<GroupAcc>,
    pub(super) counters: Vec<u64>,
    pub(super) throughput: Vec<(u64, u64)>,
    /// When each constant-throughput timer last let the user through.
    pub(super) paces: Vec<Option<Instant>>,
    /// The Critical Section Controllers the user is inside, innermost last.
    pub(super) held: Vec<Held>,
    /// The loop test a "start next iteration of current loop" jumped to, until it runs.
    pub(super) continued_to: Option<usize>,
}

/// What a user without plan state reads.
static NO_PLAN_STATE: PerPlan = PerPlan {
    cursors: Vec::new(),
    spiders: Vec::new(),
    loop_counts: Vec::new(),
    once_done: Vec::new(),
    groups: Vec::new(),
    counters: Vec::new(),
    throughput: Vec::new(),
    paces: Vec::new(),
    held: Vec::new(),
    continued_to: None,
};

impl PlanState {
    /// The state a plan with `slots` needs, sized for them; none when it has no slot.
    fn new(slots: &crate::plan::Slots) -> PlanState {
        let s = slots;
        if s.loops + s.once + s.groups + s.counters + s.throughput + s.paces == 0 {
            return PlanState(None);
        }
        PlanState(Some(Box::new(PerPlan {
            loop_counts: vec![(0, 0); s.loops as usize],
            once_done: vec![false; s.once as usize],
            groups: vec![GroupAcc::default(); s.groups as usize],
            counters: vec![0; s.counters as usize],
            throughput: vec![(0, 0); s.throughput as usize],
            paces: vec![None; s.paces as usize],
            ..Default::default()
        })))
    }

    /// A parallel branch's copy: the user's counters and data file positions, its own
    /// `groups`, no critical section held.
    pub(super) fn branch(&self, groups: impl FnOnce(usize) -> Vec<GroupAcc>) -> PlanState {
        PlanState(self.0.as_deref().map(|p| {
            Box::new(PerPlan {
                cursors: p.cursors.clone(),
                spiders: p.spiders.clone(),
                loop_counts: p.loop_counts.clone(),
                once_done: p.once_done.clone(),
                groups: groups(p.groups.len()),
                counters: p.counters.clone(),
                throughput: p.throughput.clone(),
                paces: p.paces.clone(),
                held: Vec::new(),
                continued_to: None,
            })
        }))
    }

    /// The state, if the user has any: what a path every user takes changes without making it.
    pub(super) fn made(&mut self) -> Option<&mut PerPlan> {
        self.0.as_deref_mut()
    }
}

impl std::ops::Deref for PlanState {
    type Target = PerPlan;
    fn deref(&self) -> &PerPlan {
        self.0.as_deref().unwrap_or(&NO_PLAN_STATE)
    }
}

impl std::ops::DerefMut for PlanState {
    fn deref_mut(&mut self) -> &mut PerPlan {
        self.0.get_or_insert_default()
    }
}

/// A Critical Section Controller the user is inside: its ops (`start..end`) and the lock it
/// holds (none when the lock name is empty, or when an outer section holds the same lock:
/// JMeter's locks are reentrant). Dropping it releases the lock.
pub(super) struct Held {
    pub(super) slot: u32,
    start: usize,
    end: usize,
    name: String,
    _guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl VirtualUser {
    pub(super) fn new(ctx: Arc<ScenarioCtx>) -> VirtualUser {
        let sh = &ctx.shared;
        let thread_num = ctx.started.fetch_add(1, Ordering::Relaxed) + 1;
        let mut vars = UserVars::new(sh.initial_vars.clone(), sh.user_counters, thread_num, sh.globals.clone());
        vars.stop = Some(ctx.stop.clone());
        vars.script_log = sh.scripts.log.clone();
        VirtualUser {
            session: Session {
                vars,
                jar: sh.cookies.then(super::jar::Jar::default),
                caches: Default::default(),
                script_env: None,
                sampler_edits: None,
                keep_prev: ctx.program.keeps_prev,
                last_sample: None,
            },
            conns: Connections { client: HttpClient::new(ctx.tls.clone()), ws: None, sockets: None },
            plan: PlanState::new(&sh.slots),
            iterations: 0,
            fd_backoff: Duration::ZERO,
            stop_at: None,
            abandon: ctx.abandon_token(thread_num),
            out: Vec::new(),
            body: Vec::new(),
            path: String::new(),
            ctx,
        }
    }

    /// What JMeter's managers clear as an iteration starts: the cookie jar, the DNS cache, the
    /// HTTP caches whose manager says so.
    fn clear_managers(&mut self) {
        let m = &self.ctx.shared.managers;
        if m.clear_cookies.get(self.ctx.index).copied().unwrap_or(false) {
            if let Some(jar) = self.session.jar.as_mut() {
                *jar = super::jar::Jar::default();
            }
        }
        if m.clear_dns {
            self.conns.client.forget_resolved();
        }
        self.session.caches.clear_each_iteration(&m.caches);
    }

    /// Runs the flow once. `due` is when an open-model arrival was due: the first request's
    /// elapsed time starts there. The executor calls [`Self::iteration_ended`] after it.
    ///
    /// Not async, and nothing but the program's future made: the executor awaits it where it
    /// is made, so it is built in place. Awaiting it here instead (an async fn around it), or
    /// doing anything to the user before making it (an iteration's start is the program's
    /// first step, see [`Self::begin_iteration`]), made it elsewhere and moved the whole
    /// request state machine into the executor's future: two memcpy of it per request (#31).
    #[inline]
    pub(super) fn iteration(&mut self, due: Option<Instant>) -> impl std::future::Future<Output = IterEnd> + Send + '_ {
        self.run_program(Flow, due)
    }

    /// What an iteration of the user's flow does before its first step: it counts, leaves the
    /// transactions the last one left open, clears what the managers clear.
    fn begin_iteration(&mut self) {
        self.iterations += 1;
        if let Some(p) = self.plan.made() {
            p.groups.iter_mut().for_each(|g| g.open = false);
        }
        if self.ctx.shared.managers_clear {
            self.clear_managers();
        }
    }

    /// However the iteration ended, the user leaves its critical sections (JMeter's
    /// CriticalSectionController releases its lock as its loop ends or its thread stops).
    #[inline]
    pub(super) fn iteration_ended(&mut self) {
        if let Some(p) = self.plan.made() {
            p.held.clear();
        }
    }

    /// Runs the user's flow, or one branch of a Parallel Controller (see [`Source`]).
    pub(super) async fn run_program<S: Source>(&mut self, source: S, mut due: Option<Instant>) -> IterEnd {
        if !S::BRANCH {
            self.begin_iteration();
        }
        let ctx = self.ctx.clone();
        let ops = &source.program(&ctx).ops;
        let mut pc = 0;
        let mut since_wait = 0u32;
        // A Spider PreProcessor found no link left: its sampler is sent as it is, then the run
        // stops (see the anchor step).
        let mut spider_done = false;
        while pc < ops.len() {
            since_wait += 1;
            if since_wait >= OPS_BEFORE_YIELD {
                since_wait = 0;
                tokio::task::yield_now().await;
                if ctx.stopping() {
                    return IterEnd::Cut;
                }
            }
            match &ops[pc] {
                Op::Script(x) => {
                    since_wait = 0;
                    // Boxed for the size of the user's future (see the samplers below).
                    if let Err(end) = Box::pin(self.script_op(x)).await {
                        return end;
                    }
                    pc += 1;
                }
                Op::Anchor(a) => {
                    pc += 1;
                    let followed = self.anchor_op(a);
                    // The spider's `askThreadsToStop` starts JMeter's stopping thread: its own
                    // thread nearly always sends the sampler, unchanged, before it is told.
                    spider_done |= followed == Ok(false);
                    if followed.is_err() {
                        // JMeter's thread skips the sampler: the pre-processors and timers
                        // between (no jump is) and the request itself, without a sample.
                        while pc < ops.len() && !matches!(ops[pc], Op::Request(_) | Op::AccessLog(_)) {
                            pc += 1;
                        }
                        pc += 1;
                    }
                }
                op @ (Op::Request(_)
                | Op::AccessLog(_)
                | Op::Sample(_)
                | Op::Parallel(_)
                | Op::WebSocket(_)
                | Op::Socket(_)
                | Op::ScriptSample(_)) => {
                    if ctx.stopping() || self.stop_at.is_some_and(|s| Instant::now() >= s) {
                        return IterEnd::Cut;
                    }
                    let start = match due.take() {
                        Some(due) => {
                            let late = Instant::now().saturating_duration_since(due);
                            ctx.recorder.lateness(ctx.index, late.as_micros() as u64);
                            due
                        }
                        None => Instant::now(),
                    };
                    // Every step but a request is boxed (a Parallel Controller boxes its own):
                    // a future holds the largest of the awaits it may reach, and each user's task
                    // holds its program's future for the whole run, so a WebSocket's, a
                    // socket's or a script's state inline would make every user of every plan
                    // that large. Those steps allocate per sample anyway; a request does not.
                    let (sampled, on_error, after) = match op {
                        // A request may not wait either: one the cache answers, one failed
                        // before sending (a bad URL, a method JMeter does not know). Like a
                        // sample made without a connection, it counts toward the ops run
                        // before the user yields; one that waited on its socket yielded there.
                        Op::Request(req) => (self.request(req, start).await, req.spec.after.on_error, None),
                        Op::AccessLog(a) => {
                            let (sampled, after) = Box::pin(self.access_log(a, start)).await;
                            (sampled, a.req.spec.after.on_error, after)
                        }
                        Op::Sample(x) => (Some(Box::pin(self.synthetic(x, start)).await), x.after.on_error, None),
                        Op::ScriptSample(x) => {
                            (Some(Box::pin(self.script_sample(x, start)).await), x.after.on_error, None)
                        }
                        Op::Parallel(p) => {
                            let (sampled, after) = self.parallel(p, start).await;
                            (sampled, p.on_error, after)
                        }
                        Op::WebSocket(w) => (Some(Box::pin(self.websocket(w, start)).await), w.after.on_error, None),
                        Op::Socket(x) => {
                            let (sampled, on_error) = Box::pin(self.socket(x, start)).await;
                            // A Raw Data Source out of data: no sample, the user stops.
                            let after = (sampled.is_none() && on_error == StopKind::User).then_some(IterEnd::UserDone);
                            (sampled, on_error, after)
                        }
                        _ => unreachable!("matched above"),
                    };
                    // Abandoned at the end of the run: the iteration is cut, and no after-error
                    // policy applies (`stop_run` must not cut other scenarios or the teardown).
                    // The user's child of `hard` says the same without the lock every user of
                    // the scenario would share.
                    if self.abandon.is_cancelled() {
                        return IterEnd::Cut;
                    }
                    if spider_done {
                        return self.stop(StopKind::Run);
                    }
                    // How a Parallel Controller's branch asked the user to go on.
                    let mut then = match after {
                        Some(IterEnd::Cut) => return IterEnd::Cut,
                        Some(IterEnd::UserDone) => StopKind::User,
                        Some(IterEnd::Next) => StopKind::NextIteration,
                        Some(IterEnd::Completed) | None => StopKind::Continue,
                    };
                    // No sample (a response the cache had, a Parallel Controller without a
                    // parent sample): nothing to judge, as in JMeter.
                    if let Some(failed) = sampled {
                        if let Some(v) = ctx.shared.last_ok {
                            self.session.vars.set(v, if failed { "false" } else { "true" });
                        }
                        // The thread group's policy and a Result Status Action Handler's: the
                        // one that ends more wins, as JMeter's thread checks every flag of the
                        // result. A branch's thread group (the plugin's) has no policy.
                        let on_error = if S::BRANCH { on_error } else { ctx.on_error.max(on_error) };
                        if failed {
                            then = then.max(on_error);
                        }
                    }
                    if then != StopKind::Continue {
                        match self.in_loop(source.program(&ctx), pc, then, S::BRANCH) {
                            Ok(to) => {
                                pc = to;
                                continue;
                            }
                            Err(end) => return end,
                        }
                    }
                    pc += 1;
                }
                Op::Think(t) => {
                    let d = match self.think_time(&ctx, t, &mut since_wait).await {
                        Ok(d) => d,
                        Err(end) => return end,
                    };
                    // An open-model arrival's first request is due after any think time before it.
                    due = due.map(|t| t.checked_add(d).unwrap_or(t));
                    // As a JMeter thread with a scheduled end: a timer's wait that would end after
                    // it stops the user at once; a Flow Control Action's pause waits until it.
                    if let Some(s) = self.stop_at.filter(|&s| Instant::now() + d > s) {
                        if matches!(t, crate::plan::Think::Pause(_)) {
                            tokio::select! {
                                _ = tokio::time::sleep_until(s.into()) => {}
                                _ = ctx.stop.cancelled() => {}
                            }
                        }
                        return IterEnd::Cut;
                    }
                    if !d.is_zero() {
                        since_wait = 0;
                        tokio::select! {
                            _ = tokio::time::sleep(d) => {}
                            _ = ctx.stop.cancelled() => return IterEnd::Cut,
                        }
                    }
                    pc += 1;
                }
                Op::CriticalEnter { slot, lock, end } => {
                    // Entered again after leaving it by a jump: that hold is over.
                    self.plan.held.retain(|h| h.slot != *slot);
                    let name = lock.render_string(&mut self.session.vars);
                    let reentrant =
                        name.is_empty() || self.plan.held.iter().any(|h| h.name == name && h._guard.is_some());
                    let guard = if reentrant {
                        None
                    } else {
                        let m = ctx.shared.locks.lock().expect("locks").entry(name.clone()).or_default().clone();
                        tokio::select! {
                            g = m.lock_owned() => Some(g),
                            _ = ctx.stop.cancelled() => return IterEnd::Cut,
                        }
                    };
                    self.plan.held.push(Held { slot: *slot, start: pc, end: *end, name, _guard: guard });
                    pc += 1;
                }
                Op::Fifo(f) => {
                    since_wait = 0;
                    if let Err(end) = self.fifo(f).await {
                        return end;
                    }
                    pc += 1;
                }
                op => match self.control(&ctx, source.program(&ctx), S::BRANCH, pc, op) {
                    Ok(to) => pc = to,
                    Err(end) => return end,
                },
            }
        }
        if !S::BRANCH {
            ctx.recorder.iteration_done(ctx.index);
        }
        IterEnd::Completed
    }

    /// Where a stop at `pc` goes on inside the iteration (`continue` or `break` of the loop
    /// around it), or how it ends the iteration (or the parallel `branch`).
    pub(super) fn in_loop(
        &mut self,
        program: &Program,
        pc: usize,
        kind: StopKind,
        branch: bool,
    ) -> Result<usize, IterEnd> {
        let around = program.loops.get(pc).copied().flatten();
        let to = match (kind, around) {
            (StopKind::ContinueLoop, Some((test, _))) => {
                self.plan.continued_to = Some(test);
                test
            }
            (StopKind::BreakLoop, Some((test, exit))) => {
                self.reset_index(program, test);
                exit
            }
            _ => {
                // Leaving the iteration (or the parallel branch): the transactions around end
                // with what they had (JMeter's triggerEndOfLoop on the controllers up to the
                // thread group, bug 52968); a stop of the user or of the run ends none.
                if !matches!(kind, StopKind::User | StopKind::Run) {
                    self.end_groups_left(program, None);
                }
                if branch {
                    if kind == StopKind::Run {
                        self.ctx.shared.stop_run.cancel();
                    }
                    return Err(branch_end(kind));
                }
                return Err(self.stop(kind));
            }
        };
        self.end_groups_left(program, Some(to));
        // A jump out of a critical section releases its lock, as JMeter's triggerEndOfLoop
        // re-initializes the controllers it leaves.
        if let Some(p) = self.plan.made() {
            p.held.retain(|h| h.start < to && to < h.end);
        }
        Ok(to)
    }

    /// Records the sample of open group `slot` (a Transaction Controller) and closes it.
    pub(super) fn end_group(&mut self, slot: u32, label: LabelId) {
        let g = std::mem::take(&mut self.plan.groups[slot as usize]);
        if !g.open {
            return;
        }
        // Named as it started (see `Op::GroupStart`).
        let label = g.label.unwrap_or(label);
        let ctx = &self.ctx;
        let mut sample = Sample {
            label,
            start_us: g.start_us,
            end_us: if g.wall_clock { ctx.micros(Instant::now()) } else { g.start_us + g.elapsed_us },
            ttfb_us: g.ttfb_us,
            connect_us: g.connect_us,
            bytes_sent: g.bytes_sent,
            bytes_received: g.bytes_received,
            new_connection: false,
            error: g.error,
            in_total: g.parent,
            upstream_us: None,
        };
        // A transaction's sample, no sampler's: nothing follows it.
        self.record_sample(&mut sample, self.recorded_as(), g.status, String::new, None);
    }

    /// Ends, innermost first, the open groups a jump to `to` leaves (all of them when the
    /// iteration ends: `None`), as JMeter's Transaction Controllers end on `triggerEndOfLoop`
    /// when a failed sample or a Flow Control Action restarts or leaves a loop around them.
    fn end_groups_left(&mut self, program: &Program, to: Option<usize>) {
        if !self.plan.groups.iter().any(|g| g.open) {
            return;
        }
        let ops = &program.ops;
        let mut left: Vec<(usize, u32, LabelId)> = Vec::new();
        for (end, op) in ops.iter().enumerate() {
            let Op::GroupEnd { slot, label } = op else { continue };
            if !self.plan.groups[*slot as usize].open {
                continue;
            }
            let start = ops[..end].iter().rposition(|o| matches!(o, Op::GroupStart { slot: s, .. } if s == slot));
            let start = start.unwrap_or(0);
            if to.is_none_or(|t| !(start < t && t <= end)) {
                left.push((start, *slot, *label));
            }
        }
        left.sort_by_key(|g| std::cmp::Reverse(g.0));
        for (_, slot, label) in left {
            self.end_group(slot, label);
        }
    }

    /// The value pass `pass` (from 1) of a ForEach whose prefix or start index is set while
    /// the test runs takes, as JMeter's `isDone`: `prefix sep (start + pass)`, the start read
    /// as the loop is entered; `None` ends the loop (past the end index, or an unset variable).
    pub(super) fn pick_at(
        &mut self,
        pick: &crate::plan::flow::Pick,
        pass: u64,
        names: &Arc<std::collections::HashMap<String, crate::plan::VarId>>,
    ) -> Option<String> {
        let at = pick.at.as_ref()?;
        if pass == 1 {
            let start = java_int(&at.start.render_string(&mut self.session.vars));
            self.session.vars.set(at.start_at, &start.to_string());
        }
        let start = self.session.vars.get(at.start_at).parse::<i64>().unwrap_or(0);
        // JMeter's loopCount on this pass.
        let count = start + pass as i64 - 1;
        self.session.vars.set(at.index, &count.to_string());
        if let Some(end) = &pick.end {
            if count >= i64::from(java_int(&end.render_string(&mut self.session.vars))) {
                return None;
            }
        }
        let name = format!("{}{}{}", at.prefix.render_string(&mut self.session.vars), at.sep, count + 1);
        // Names made while running are looked up as a script's `vars.get` looks them up.
        if self.session.vars.names.is_empty() {
            self.session.vars.names = names.clone();
        }
        crate::plan::template::Scope::var_named(&self.session.vars, &name).map(str::to_string)
    }

    /// A loop left without its test (a `break`, a ForEach out of values): its index reads its
    /// start again, as JMeter's controllers reset their count.
    pub(super) fn reset_index(&mut self, program: &Program, test: usize) {
        if let Some(Op::LoopTest { index: Some(ix), .. }) = program.ops.get(test) {
            self.session.vars.set(ix.var, &ix.offset.to_string());
        }
    }

    /// Ends the iteration as a stop step or a failed sample says.
    fn stop(&self, kind: StopKind) -> IterEnd {
        match kind {
            StopKind::Continue | StopKind::NextIteration | StopKind::ContinueLoop => {
                self.ctx.recorder.iteration_done(self.ctx.index);
                IterEnd::Completed
            }
            StopKind::User | StopKind::BreakLoop => IterEnd::UserDone,
            StopKind::Run => {
                self.ctx.shared.stop_run.cancel();
                IterEnd::Cut
            }
        }
    }
}

/// How a stop ends a Parallel Controller's branch: outside a loop of its own, `continue` and
/// `break` end the branch only (the plugin's thread loops once); the next iteration, the
/// user's end and the run's end reach the user once every branch is done.
fn branch_end(kind: StopKind) -> IterEnd {
    match kind {
        StopKind::Continue | StopKind::ContinueLoop | StopKind::BreakLoop => IterEnd::Completed,
        StopKind::NextIteration => IterEnd::Next,
        StopKind::User => IterEnd::UserDone,
        StopKind::Run => IterEnd::Cut,
    }
}

/// A number as JMeter's `getPropertyAsInt` reads it: `Integer.parseInt`, 0 when it is not one.
pub(super) fn java_int(text: &str) -> i32 {
    text.parse().unwrap_or(0)
}
