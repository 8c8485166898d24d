//! A flow compiled into a flat list of operations with jumps, once per scenario, so a user runs
//! an iteration as a loop over a program counter: no recursion, no boxing, no allocation.

use super::request::PreparedRequest;
use crate::plan::condition::Condition;
use crate::plan::flow::{Assign, Counter, LoopIndex, SeededRandom, StopKind, ThroughputShare, UserParams};
use crate::plan::sampler::socket::SocketStep;
use crate::plan::sampler::Sampler;
use crate::plan::{LabelId, Step, Template, Think};

#[derive(Debug, Clone)]
pub(crate) enum Op {
    Request(Box<PreparedRequest>),
    /// An Access Log Sampler's request: the log's next entry, sent (apart from `Request` so
    /// that a plain request's op asks nothing more).
    AccessLog(Box<AccessLogOp>),
    /// A sample made without a connection.
    Sample(Box<crate::plan::sampler::synthetic::Synthetic>),
    /// A sample on the user's WebSocket connection.
    WebSocket(Box<crate::plan::sampler::websocket::WebSocket>),
    /// A sample over a raw socket.
    Socket(Box<crate::plan::sampler::socket::SocketStep>),
    /// A script pre-processor or timer.
    Script(Box<crate::plan::sampler::script::ScriptStep>),
    /// A script sampler's sample.
    ScriptSample(Box<crate::plan::sampler::script::ScriptSample>),
    /// An HTML Link Parser before its sampler.
    Anchor(Box<crate::plan::anchor::Anchor>),
    Think(Think),
    /// Pick a branch: the first whose cumulative weight exceeds a uniform draw in [0, total).
    Choose {
        cumulative: Box<[f64]>,
        targets: Box<[usize]>,
    },
    Jump(usize),
    /// Read the next row of data file `n`.
    Feed(usize),
    Set(Box<[Assign]>),
    /// Start a loop: reset its counter and fix its count (none: no limit).
    LoopInit {
        slot: u32,
        count: Option<Template>,
        /// Once-flags (slots) cleared when the loop starts: the `per_loop` onces in its body.
        resets: Box<[u32]>,
    },
    /// Run the next ops on this pass, or jump to `skip`: a once-flag is per user, or per
    /// start of the loop around it.
    Once {
        slot: u32,
        per_loop: bool,
        skip: usize,
    },
    /// Leave the loop (to `exit`) when its count is reached or its condition is false.
    LoopTest {
        slot: u32,
        condition: Option<Box<Condition<Template>>>,
        /// The first pass runs without testing the condition.
        enter_first: bool,
        exit: usize,
        /// The loop's pass index variable (JMeter's `__jm__<name>__idx`).
        index: Option<LoopIndex>,
    },
    /// Go on when the condition holds, else jump to `otherwise`.
    If {
        condition: Box<Condition<Template>>,
        otherwise: usize,
    },
    GroupStart {
        slot: u32,
        parent: bool,
        wall_clock: bool,
        /// The group's label, rendered as it starts (JMeter's Transaction Controller names
        /// its result before its first child runs).
        label: LabelId,
    },
    GroupEnd {
        slot: u32,
        label: LabelId,
    },
    Write {
        writer: usize,
        values: Box<[Template]>,
    },
    UserParams(Box<UserParams>),
    Counter(Box<Counter>),
    SeededRandom(Box<SeededRandom>),
    Stop(crate::plan::flow::StopKind),
    /// Set a ForEach variable for this pass, or leave the loop (to `exit`) when there is none.
    Pick {
        pick: Box<crate::plan::flow::Pick>,
        exit: usize,
    },
    /// Jump to the branch `value` picks (see `flow::Switch::pick`), or to `end`.
    Switch {
        value: Template,
        names: Box<[String]>,
        targets: Box<[usize]>,
        end: usize,
        rotate: Option<crate::plan::flow::Rotate>,
    },
    /// Draw a new order for a Random Order Controller's branches.
    ShuffleStart {
        slot: u32,
        n: u32,
    },
    /// Jump to the next branch in the drawn order, or to `end` once each has run.
    ShuffleNext {
        slot: u32,
        targets: Box<[usize]>,
        end: usize,
    },
    /// Enter a Runtime Controller: set its deadline, or jump to `exit` when its time is not
    /// above 0.
    RuntimeStart {
        slot: u32,
        seconds: Template,
        exit: usize,
    },
    /// Jump to `exit` once the Runtime Controller's deadline has passed.
    RuntimeCheck {
        slot: u32,
        exit: usize,
    },
    /// Take the lock a Critical Section Controller names, for the ops up to `end`.
    CriticalEnter {
        slot: u32,
        lock: Template,
        end: usize,
    },
    /// Release that lock.
    CriticalExit {
        slot: u32,
    },
    /// Put into, or take out of, a queue every user shares.
    Fifo(Box<crate::plan::flow::Fifo>),
    /// Run the next ops on this pass, or jump to `skip`.
    Throughput {
        slot: u32,
        share: ThroughputShare,
        per_user: bool,
        skip: usize,
    },
    /// Run the branches at the same time (a Parallel Controller); a sample of the flow.
    Parallel(Box<ParallelOp>),
}

/// A Parallel Controller compiled: each branch is a program of its own, run by a copy of the
/// user (see `step::parallel`).
#[derive(Debug, Clone)]
pub(crate) struct ParallelOp {
    pub branches: Box<[Program]>,
    /// The parent sample's label and the group slot it adds up in.
    pub parent: Option<(LabelId, u32)>,
    /// Most branches at once.
    pub max: usize,
    /// A failed parent sample's action beside the thread group's.
    pub on_error: StopKind,
}

#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub ops: Vec<Op>,
    /// The flow sends no request, stops nothing, writes nothing and never waits (every sampler
    /// disabled or skipped, say): a user looping over it would spin. As a JMeter thread without
    /// a sampler, the user runs one pass of it (its CSV rows, counters and variables are taken,
    /// each controller entered once, whatever its loop count) and ends.
    pub idle: bool,
    /// For each op, the innermost loop around it: its test op and its exit (where `continue`
    /// and `break` of JMeter's "current loop" go).
    pub loops: Vec<Option<(usize, usize)>>,
    /// A script runs outside a sample's post-processing (a pre-processor, timer or script
    /// sampler, here or in a parallel branch): the user keeps its last sample for its `prev`.
    pub keeps_prev: bool,
}

impl Program {
    pub(crate) fn compile(steps: &[Step]) -> Program {
        let mut p = Program::branch(steps);
        if p.keeps_prev {
            p.keep_bodies();
        }
        if p.idle {
            p.run_once();
        }
        p
    }

    /// One pass, then the user ends. JMeter 5.6.3's thread without a sampler starts one
    /// iteration of its thread group (a CSV Data Set there gives it a row) and of each
    /// controller in it, loops included (a Loop Controller of 3 or of -1 takes one row of its
    /// own data set), whatever the group's loop count or duration: each back edge falls through
    /// to the loop's end instead, so nothing can spin.
    fn run_once(&mut self) {
        for i in 0..self.ops.len() {
            if let Op::Jump(to) = self.ops[i] {
                // A Random Order Controller's jump back picks its next branch: bounded.
                if to <= i && !matches!(self.ops[to], Op::ShuffleNext { .. }) {
                    self.ops[i] = Op::Jump(i + 1);
                }
            }
        }
        self.ops.push(Op::Stop(StopKind::User));
        self.loops.push(None);
    }

    /// Every request keeps its response body: the user's last sample is a script's `prev`.
    fn keep_bodies(&mut self) {
        for op in &mut self.ops {
            match op {
                Op::Request(r) => r.keep_body = true,
                Op::AccessLog(a) => {
                    a.req.keep_body = true;
                    a.head.keep_body = true;
                }
                Op::Parallel(p) => p.branches.iter_mut().for_each(Program::keep_bodies),
                _ => {}
            }
        }
    }

    /// A program as [`compile`](Program::compile) makes it, but one that does nothing stays
    /// as it is: a parallel branch without a sampler ends at once, it does not end the user.
    fn branch(steps: &[Step]) -> Program {
        let mut ops = Vec::new();
        emit(steps, &mut ops, &[]);
        let idle = !ops.iter().any(|op| match op {
            Op::Request(_)
            | Op::AccessLog(_)
            | Op::Sample(_)
            | Op::WebSocket(_)
            | Op::Stop(_)
            | Op::Write { .. }
            | Op::Script(_)
            | Op::ScriptSample(_) => true,
            Op::Socket(x) => matches!(**x, SocketStep::Sample(_)),
            Op::Think(t) => t.can_wait(),
            Op::Parallel(p) => p.parent.is_some() || p.branches.iter().any(|b| !b.idle),
            _ => false,
        });
        // Loops in the order their tests appear: an inner loop comes after the loop around it
        // and overwrites it for its own body.
        let mut loops = vec![None; ops.len()];
        for (test, op) in ops.iter().enumerate() {
            if let Op::LoopTest { exit, .. } = op {
                loops[test + 1..*exit].iter_mut().for_each(|l| *l = Some((test, *exit)));
            }
        }
        let keeps_prev = ops.iter().any(|op| match op {
            // The HTML Link Parser reads the previous sample's page.
            Op::Script(_) | Op::ScriptSample(_) | Op::Anchor(_) => true,
            Op::Parallel(p) => p.branches.iter().any(|b| b.keeps_prev),
            _ => false,
        });
        Program { ops, idle, loops, keeps_prev }
    }
}

/// An Access Log Sampler's request, and the same request as a HEAD for the log's HEAD
/// entries (whose responses have no body: the send must know it).
#[derive(Debug, Clone)]
pub(crate) struct AccessLogOp {
    pub req: PreparedRequest,
    pub head: PreparedRequest,
}

impl AccessLogOp {
    fn new(req: PreparedRequest) -> AccessLogOp {
        let mut head = req.clone();
        head.is_head = true;
        AccessLogOp { req, head }
    }
}

/// A placeholder jump target, patched once the target is known.
const PATCH: usize = usize::MAX;

/// `guards`: the Runtime Controllers around `steps`, whose time is checked before each sample.
fn emit(steps: &[Step], ops: &mut Vec<Op>, guards: &[u32]) {
    for step in steps {
        match step {
            Step::Sample(Sampler::Http(r)) => {
                checks(guards, ops);
                let req = PreparedRequest::new(r);
                ops.push(match r.access_log {
                    Some(_) => Op::AccessLog(Box::new(AccessLogOp::new(req))),
                    None => Op::Request(Box::new(req)),
                });
            }
            Step::Sample(Sampler::Synthetic(x)) => {
                checks(guards, ops);
                ops.push(Op::Sample(x.clone()));
            }
            Step::Sample(Sampler::WebSocket(w)) => {
                checks(guards, ops);
                ops.push(Op::WebSocket(w.clone()));
            }
            Step::Sample(Sampler::Socket(x)) => {
                checks(guards, ops);
                ops.push(Op::Socket(Box::new(SocketStep::Sample((**x).clone()))));
            }
            Step::Sample(Sampler::Script(x)) => {
                checks(guards, ops);
                ops.push(Op::ScriptSample(x.clone()))
            }
            Step::RawSource(r) => {
                checks(guards, ops);
                ops.push(Op::Socket(Box::new(SocketStep::RawSource((**r).clone()))));
            }
            Step::Critical(c) => {
                let at = ops.len();
                ops.push(Op::CriticalEnter { slot: c.slot, lock: c.lock.clone(), end: PATCH });
                emit(&c.steps, ops, guards);
                ops.push(Op::CriticalExit { slot: c.slot });
                let end = ops.len();
                if let Op::CriticalEnter { end: e, .. } = &mut ops[at] {
                    *e = end;
                }
            }
            Step::Runtime(r) => {
                let start = ops.len();
                ops.push(Op::RuntimeStart { slot: r.slot, seconds: r.seconds.clone(), exit: PATCH });
                let mut inner = guards.to_vec();
                inner.push(r.slot);
                emit(&r.steps, ops, &inner);
                ops.push(Op::RuntimeCheck { slot: r.slot, exit: PATCH });
                ops.push(Op::Jump(start + 1));
                let end = ops.len();
                for op in &mut ops[start..end] {
                    match op {
                        Op::RuntimeStart { slot, exit, .. } | Op::RuntimeCheck { slot, exit } if *slot == r.slot => {
                            *exit = end
                        }
                        _ => {}
                    }
                }
            }
            Step::Fifo(f) => ops.push(Op::Fifo(f.clone())),
            Step::Anchor(a) => ops.push(Op::Anchor(a.clone())),
            Step::Script(x) => ops.push(Op::Script(x.clone())),
            Step::Think(t) => ops.push(Op::Think(*t)),
            Step::Parallel(p) => {
                checks(guards, ops);
                ops.push(Op::Parallel(Box::new(ParallelOp {
                    // A branch runs on a thread of its own in the plugin: no controller around
                    // the Parallel Controller is on its path.
                    branches: p.branches.iter().map(|b| Program::branch(b)).collect(),
                    parent: p.parent.map(|l| (l, p.slot)),
                    max: p.max.map_or(usize::MAX, |m| m.max(1) as usize),
                    on_error: p.on_error,
                })));
            }
            Step::Sequence(s) => emit(s, ops, guards),
            Step::Feed(n) => ops.push(Op::Feed(*n)),
            Step::Set(a) => ops.push(Op::Set(a.clone().into())),
            Step::Write(w) => ops.push(Op::Write { writer: w.writer, values: w.values.clone().into() }),
            Step::Mix(branches) => {
                let choose = ops.len();
                ops.push(Op::Jump(PATCH)); // replaced by Choose once targets are known
                let mut targets = Vec::new();
                let mut jumps_to_end = Vec::new();
                for b in branches {
                    targets.push(ops.len());
                    emit(&b.steps, ops, guards);
                    jumps_to_end.push(ops.len());
                    ops.push(Op::Jump(PATCH));
                }
                let end = ops.len();
                for j in jumps_to_end {
                    ops[j] = Op::Jump(end);
                }
                let mut acc = 0.0;
                let cumulative = branches.iter().map(|b| {
                    acc += b.weight;
                    acc
                });
                ops[choose] = Op::Choose { cumulative: cumulative.collect(), targets: targets.into() };
            }
            Step::Loop(l) => emit_loop(l, ops, guards),
            Step::If(i) => {
                let at = ops.len();
                ops.push(Op::If { condition: Box::new(i.condition.expr.clone()), otherwise: PATCH });
                emit(&i.then, ops, guards);
                let jump = ops.len();
                ops.push(Op::Jump(PATCH));
                let otherwise = ops.len();
                emit(&i.otherwise, ops, guards);
                let end = ops.len();
                ops[jump] = Op::Jump(end);
                if let Op::If { otherwise: o, .. } = &mut ops[at] {
                    *o = otherwise;
                }
            }
            Step::Once(o) => {
                let at = ops.len();
                ops.push(Op::Once { slot: o.slot, per_loop: o.per_loop, skip: PATCH });
                emit(&o.steps, ops, guards);
                let end = ops.len();
                if let Op::Once { skip, .. } = &mut ops[at] {
                    *skip = end;
                }
            }
            Step::UserParams(u) => ops.push(Op::UserParams(u.clone())),
            Step::Stop(k) => ops.push(Op::Stop(*k)),
            Step::Pick(p) => ops.push(Op::Pick { pick: p.clone(), exit: PATCH }),
            Step::Switch(s) => {
                let at = ops.len();
                ops.push(Op::Jump(PATCH)); // replaced by Switch once targets are known
                let mut targets = Vec::new();
                let mut jumps_to_end = Vec::new();
                for (_, steps) in &s.branches {
                    targets.push(ops.len());
                    emit(steps, ops, guards);
                    jumps_to_end.push(ops.len());
                    ops.push(Op::Jump(PATCH));
                }
                let end = ops.len();
                for j in jumps_to_end {
                    ops[j] = Op::Jump(end);
                }
                ops[at] = Op::Switch {
                    value: s.value.clone(),
                    names: s.branches.iter().map(|(n, _)| n.clone()).collect(),
                    targets: targets.into(),
                    end,
                    rotate: s.rotate.clone(),
                };
            }
            Step::Shuffle(s) => {
                ops.push(Op::ShuffleStart { slot: s.slot, n: s.branches.len() as u32 });
                let next = ops.len();
                ops.push(Op::Jump(PATCH)); // replaced by ShuffleNext once targets are known
                let mut targets = Vec::new();
                for b in &s.branches {
                    targets.push(ops.len());
                    emit(b, ops, guards);
                    ops.push(Op::Jump(next));
                }
                ops[next] = Op::ShuffleNext { slot: s.slot, targets: targets.into(), end: ops.len() };
            }
            Step::Counter(c) => ops.push(Op::Counter(c.clone())),
            Step::SeededRandom(r) => ops.push(Op::SeededRandom(r.clone())),
            Step::Throughput(t) => {
                let at = ops.len();
                ops.push(Op::Throughput { slot: t.slot, share: t.share, per_user: t.per_user, skip: PATCH });
                emit(&t.steps, ops, guards);
                let end = ops.len();
                if let Op::Throughput { skip, .. } = &mut ops[at] {
                    *skip = end;
                }
            }
            Step::Group(g) => {
                ops.push(Op::GroupStart { slot: g.slot, parent: g.parent, wall_clock: g.wall_clock, label: g.label });
                emit(&g.steps, ops, guards);
                ops.push(Op::GroupEnd { slot: g.slot, label: g.label });
            }
        }
    }
}

/// Emits a loop: its init and test, its body, the jump back; the test's exit, the Once
/// Only Controllers each pass resets and a ForEach's exit patched once the body is out.
fn emit_loop(l: &crate::plan::flow::Loop, ops: &mut Vec<Op>, guards: &[u32]) {
    let init = ops.len();
    ops.push(Op::LoopInit { slot: l.slot, count: l.count.clone(), resets: Box::new([]) });
    let test = ops.len();
    ops.push(Op::LoopTest {
        slot: l.slot,
        condition: l.condition.as_ref().map(|c| Box::new(c.expr.clone())),
        enter_first: l.enter_first,
        exit: PATCH,
        index: l.index,
    });
    emit(&l.steps, ops, guards);
    ops.push(Op::Jump(test));
    let end = ops.len();
    if let Op::LoopTest { exit, .. } = &mut ops[test] {
        *exit = end;
    }
    // The per-loop onces of this loop are those in its body not already reset by
    // a loop nested in it.
    let mut inner = Vec::new();
    let mut mine = Vec::new();
    for op in &ops[test + 1..end] {
        match op {
            Op::LoopInit { resets, .. } => inner.extend_from_slice(resets),
            Op::Once { slot, per_loop: true, .. } => mine.push(*slot),
            _ => {}
        }
    }
    mine.retain(|s| !inner.contains(s));
    if let Op::LoopInit { resets, .. } = &mut ops[init] {
        *resets = mine.into();
    }
    // A ForEach loop's Pick is the first op of its body.
    if let Some(Op::Pick { pick, exit }) = ops.get_mut(test + 1) {
        if pick.slot == l.slot {
            *exit = end;
        }
    }
}

/// A check of each Runtime Controller around a sample, outermost first (JMeter asks each
/// controller for its next sampler from the outside in).
fn checks(guards: &[u32], ops: &mut Vec<Op>) {
    ops.extend(guards.iter().map(|&slot| Op::RuntimeCheck { slot, exit: PATCH }));
}

/// The branch index for a uniform draw `u` in [0, 1).
pub(crate) fn pick(cumulative: &[f64], u: f64) -> usize {
    let total = cumulative.last().copied().unwrap_or(0.0);
    let x = u * total;
    cumulative.iter().position(|c| x < *c).unwrap_or(cumulative.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn pick_follows_weights() {
        let cum = [4.0, 6.0, 6.0, 7.0]; // weights 4, 2, 0, 1
        assert_eq!(pick(&cum, 0.0), 0);
        assert_eq!(pick(&cum, 0.57), 0);
        assert_eq!(pick(&cum, 0.58), 1);
        assert_eq!(pick(&cum, 0.857), 1);
        assert_eq!(pick(&cum, 0.858), 3);
        assert_eq!(pick(&cum, 0.999_999), 3);
    }

    #[test]
    fn jumps_are_all_patched() {
        use crate::plan::flow::{If, Loop, Once};
        let think = || Step::Think(Think::Constant(std::time::Duration::from_millis(1)));
        let cond = || crate::plan::flow::Cond {
            src: "true".into(),
            expr: crate::plan::condition::parse("true", |s| Ok::<_, String>(Template::literal(s))).unwrap(),
        };
        let steps = vec![
            Step::Loop(Box::new(Loop {
                count: Some(Template::literal("2")),
                condition: None,
                steps: vec![think()],
                enter_first: false,
                slot: 0,
                index: None,
            })),
            Step::If(Box::new(If { condition: cond(), then: vec![think()], otherwise: vec![think()] })),
            Step::Once(Box::new(Once { steps: vec![think()], per_loop: false, slot: 0 })),
        ];
        let p = Program::compile(&steps);
        assert!(!p.idle);
        for op in &p.ops {
            let t = match op {
                Op::Jump(t) | Op::LoopTest { exit: t, .. } | Op::If { otherwise: t, .. } | Op::Once { skip: t, .. } => {
                    *t
                }
                _ => continue,
            };
            assert!(t <= p.ops.len(), "unpatched jump in {:?}", p.ops);
        }
    }

    /// #11: a flow left with nothing to send (every sampler disabled) spun each user at 100%
    /// CPU; #32: it runs one pass, as JMeter's thread without a sampler (its CSV rows are
    /// taken, a loop's body once), and ends the user. Waiting or stopping is doing something.
    #[test]
    fn a_flow_that_does_nothing_runs_one_pass_without_a_back_edge_and_ends_the_user() {
        use crate::plan::flow::Loop;
        let zero = Step::Think(Think::Uniform { min: Duration::ZERO, max: Duration::ZERO });
        let looped = |steps| {
            Step::Loop(Box::new(Loop { count: None, condition: None, steps, enter_first: false, slot: 0, index: None }))
        };
        let p = Program::compile(&[]);
        assert!(p.idle && matches!(p.ops[..], [Op::Stop(StopKind::User)]), "{:?}", p.ops);
        let p = Program::compile(&[zero.clone(), Step::Set(vec![]), Step::Feed(0)]);
        assert!(p.idle);
        assert!(matches!(p.ops[..], [Op::Think(_), Op::Set(_), Op::Feed(0), Op::Stop(StopKind::User)]), "{:?}", p.ops);
        let p = Program::compile(&[looped(vec![Step::Feed(0), zero.clone()])]);
        assert!(p.idle);
        assert!(matches!(p.ops.last(), Some(Op::Stop(StopKind::User))), "{:?}", p.ops);
        assert_eq!(p.loops.len(), p.ops.len());
        for (i, op) in p.ops.iter().enumerate() {
            assert!(!matches!(op, Op::Jump(to) if *to <= i), "a back edge at {i}: {:?}", p.ops);
        }
        for steps in [
            vec![zero.clone(), Step::Think(Think::Constant(Duration::from_millis(5)))],
            vec![looped(vec![Step::Stop(StopKind::Run)])],
        ] {
            assert!(!Program::compile(&steps).idle, "{steps:?}");
        }
    }
}
