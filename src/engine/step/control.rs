//! The program's control operations: the ops that decide where the program goes next
//! (loops, conditions, controllers, counters, data), none of which waits.

use super::super::program::{pick, Op, Program};
use super::super::session::{csv_line, ScenarioCtx};
use super::super::user::{java_int, IterEnd, VirtualUser};
use super::{counter_next_global, counter_next_user, java_random_next_int, GroupAcc};
use crate::plan::condition::Condition;
use crate::plan::flow::ThroughputShare;
use rand::seq::SliceRandom;
use rand::Rng;
use std::io::Write as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl VirtualUser {
    /// Runs control op `op` at `pc` of `program` (a branch's when `branch`): where the program
    /// goes next, or how the run of it ends.
    pub(in crate::engine) fn control(
        &mut self,
        ctx: &ScenarioCtx,
        program: &Program,
        branch: bool,
        mut pc: usize,
        op: &Op,
    ) -> Result<usize, IterEnd> {
        match op {
            Op::Choose { cumulative, targets } => {
                pc = targets[pick(cumulative, self.session.vars.rng.random::<f64>())];
            }
            Op::Jump(to) => pc = *to,
            Op::Feed(n) => {
                if let Some(end) = self.feed(*n) {
                    return Err(end);
                }
                pc += 1;
            }
            Op::If { condition, otherwise } => {
                pc = if condition.eval(&mut |t| t.render_string(&mut self.session.vars)) { pc + 1 } else { *otherwise };
            }
            Op::Once { slot, skip, .. } => {
                let done = &mut self.plan.once_done[*slot as usize];
                if *done {
                    pc = *skip;
                } else {
                    *done = true;
                    pc += 1;
                }
            }
            Op::GroupStart { slot, parent, wall_clock, label } => {
                let label = Some(self.sample_label(*label));
                self.plan.groups[*slot as usize] = GroupAcc {
                    open: true,
                    parent: *parent,
                    wall_clock: *wall_clock,
                    label,
                    start_us: ctx.micros(Instant::now()),
                    ..Default::default()
                };
                pc += 1;
            }
            Op::GroupEnd { slot, label } => {
                self.end_group(*slot, *label);
                pc += 1;
            }
            Op::Throughput { slot, share, per_user, skip } => {
                let decide = |(passes, done): &mut (u64, u64)| {
                    // JMeter's ThroughputController.canExecute, then the pass is counted.
                    let run = match *share {
                        ThroughputShare::Percent(p) => (100.0 * *done as f64 + 50.0) / (*passes as f64 + 1.0) < p,
                        ThroughputShare::Total(n) => *done < n,
                    };
                    *passes += 1;
                    if run {
                        *done += 1;
                    }
                    run
                };
                let run = if *per_user {
                    decide(&mut self.plan.throughput[*slot as usize])
                } else {
                    decide(&mut ctx.shared.throughput[*slot as usize].lock().unwrap_or_else(|e| e.into_inner()))
                };
                pc = if run { pc + 1 } else { *skip };
            }
            Op::Stop(kind) => match self.in_loop(program, pc, *kind, branch) {
                Ok(to) => pc = to,
                Err(end) => return Err(end),
            },
            Op::RuntimeStart { slot, seconds, exit } => {
                // JMeter's RunTime.getRuntime: a whole number of seconds, else 0; 0 or
                // less skips the controller.
                let secs = seconds.render_string(&mut self.session.vars).parse::<i64>().unwrap_or(0);
                if secs > 0 {
                    let now = ctx.micros(Instant::now());
                    self.plan.counters[*slot as usize] = now.saturating_add((secs as u64).saturating_mul(1_000_000));
                    pc += 1;
                } else {
                    pc = *exit;
                }
            }
            Op::RuntimeCheck { slot, exit } => {
                pc = if ctx.micros(Instant::now()) >= self.plan.counters[*slot as usize] { *exit } else { pc + 1 };
            }
            Op::CriticalExit { slot } => {
                self.plan.held.retain(|h| h.slot != *slot);
                pc += 1;
            }
            Op::Set(_) | Op::UserParams(_) | Op::Counter(_) | Op::SeededRandom(_) | Op::Write { .. } => {
                self.set_values(ctx, op);
                pc += 1;
            }
            Op::LoopInit { .. }
            | Op::LoopTest { .. }
            | Op::ShuffleStart { .. }
            | Op::ShuffleNext { .. }
            | Op::Pick { .. }
            | Op::Switch { .. } => pc = self.next_child(ctx, program, pc, op),
            _ => unreachable!("run_program runs the other ops"),
        }
        Ok(pc)
    }

    /// Runs an op that sets variables (or writes them out): `Set`, User Parameters, a Counter,
    /// a seeded Random Variable, a write-back.
    fn set_values(&mut self, ctx: &ScenarioCtx, op: &Op) {
        match op {
            Op::Set(assigns) => {
                for a in assigns.iter() {
                    let v = a.value.1.render_string(&mut self.session.vars);
                    self.session.vars.set(a.var, &v);
                }
            }
            Op::UserParams(p) => {
                if !p.rows.is_empty() {
                    let row = &p.rows[((self.session.vars.thread_num.max(1) - 1) as usize) % p.rows.len()];
                    for (var, t) in p.vars.iter().zip(row) {
                        let v = t.render_string(&mut self.session.vars);
                        self.session.vars.set(*var, &v);
                    }
                }
            }
            Op::Counter(c) => {
                let value = if c.per_user {
                    if let Some(mark) = c.reset {
                        let now = self.iterations + 1;
                        if self.plan.counters[mark as usize] != now {
                            self.plan.counters[mark as usize] = now;
                            self.plan.counters[c.slot as usize] = 0;
                        }
                    }
                    counter_next_user(c, &mut self.plan.counters[c.slot as usize])
                } else {
                    counter_next_global(c, &ctx.shared.counters[c.slot as usize])
                };
                match &c.format {
                    Some(f) => self.session.vars.set(c.var, &crate::script::format_decimal(f, value)),
                    None => self.session.vars.set(c.var, &value.to_string()),
                }
            }
            Op::SeededRandom(r) => {
                let value = if r.per_user {
                    java_random_next_int(&mut self.plan.counters[r.slot as usize], r.seed, r.range)
                } else {
                    let mut drawn = 0;
                    let cell = &ctx.shared.counters[r.slot as usize];
                    let _ = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |mut s| {
                        drawn = java_random_next_int(&mut s, r.seed, r.range);
                        Some(s)
                    });
                    drawn
                };
                self.session.vars.set(r.var, &(r.min + i64::from(value)).to_string());
            }
            Op::Write { writer, values } => {
                let fields: Vec<String> = values.iter().map(|t| t.render_string(&mut self.session.vars)).collect();
                let line = csv_line(&fields);
                // A file that could not be opened was reported at start: the write is skipped.
                if let Some(w) = &ctx.shared.writers[*writer] {
                    let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
                    // A failed write-back must not stop the load; it is rare and visible in the file.
                    let _ = w.write_all(&line).and_then(|_| w.flush());
                }
            }
            _ => unreachable!("control passes only these"),
        }
    }

    /// Runs an op of a loop or of a controller that picks among its children (ForEach,
    /// Random Order, Switch, Weighted and Round Robin): the op the program goes to next.
    fn next_child(&mut self, ctx: &ScenarioCtx, program: &Program, mut pc: usize, op: &Op) -> usize {
        match op {
            Op::LoopInit { slot, count, resets } => {
                for r in resets.iter() {
                    self.plan.once_done[*r as usize] = false;
                }
                let limit = match count {
                    None => u64::MAX,
                    // As in JMeter: a negative count loops forever, one that is not a number
                    // at run time runs the loop no times.
                    Some(t) => match t.render_string(&mut self.session.vars).trim().parse::<i64>() {
                        Ok(n) if n < 0 => u64::MAX,
                        Ok(n) => n as u64,
                        Err(_) => 0,
                    },
                };
                self.plan.loop_counts[*slot as usize] = (0, limit);
                pc += 1;
            }
            Op::LoopTest { slot, condition, enter_first, exit, index } => {
                let (done, limit) = self.plan.loop_counts[*slot as usize];
                let continued = self.plan.continued_to.take() == Some(pc);
                // As JMeter's controllers: the index reads the offset when the loop is
                // entered, so a condition tested then sees it, and the last pass's index
                // when the condition is tested at the end of that pass.
                if let (Some(ix), 0) = (index, done) {
                    self.session.vars.set(ix.var, &ix.offset.to_string());
                }
                let go = done < limit
                    && ((*enter_first && done == 0)
                        || condition.as_ref().is_none_or(|c| match &**c {
                            // JMeter enters a While loop whose text reads blank.
                            Condition::WhileText { text, .. } if done == 0 => {
                                !text.render_string(&mut self.session.vars).trim().eq_ignore_ascii_case("false")
                            }
                            c => c.eval(&mut |t| t.render_string(&mut self.session.vars)),
                        }));
                if go {
                    self.plan.loop_counts[*slot as usize].0 += 1;
                    pc += 1;
                } else {
                    pc = *exit;
                }
                // A count loop left by its count after a "start next iteration of current
                // loop" keeps its count as index (JMeter's LoopController.startNextLoop
                // increments it and next() ends the loop without resetting it); any other
                // exit reads the offset again.
                if let Some(ix) = index {
                    let pass = if go || (continued && condition.is_none() && done >= limit) { done } else { 0 };
                    self.session.vars.set(ix.var, &ix.offset.saturating_add(pass).to_string());
                }
            }
            Op::ShuffleStart { slot, n } => {
                // JMeter's RandomOrderController: Collections.shuffle each pass.
                let order = &mut self.plan.counters[*slot as usize..=(*slot + *n) as usize];
                order[0] = 0;
                for (i, o) in order[1..].iter_mut().enumerate() {
                    *o = i as u64;
                }
                order[1..].shuffle(&mut self.session.vars.rng);
                pc += 1;
            }
            Op::ShuffleNext { slot, targets, end } => {
                let at = *slot as usize;
                let pos = self.plan.counters[at] as usize;
                if pos < targets.len() {
                    self.plan.counters[at] += 1;
                    pc = targets[self.plan.counters[at + 1 + pos] as usize];
                } else {
                    pc = *end;
                }
            }
            Op::Pick { pick, exit } if pick.at.is_some() => {
                let pass = self.plan.loop_counts[pick.slot as usize].0;
                match self.pick_at(pick, pass, &ctx.shared.scripts.names) {
                    Some(v) => {
                        self.session.vars.set(pick.into, &v);
                        pc += 1;
                    }
                    None => {
                        self.reset_index(program, pc - 1);
                        // JMeter's resetLoopCount reads the start index again as the loop ends.
                        if let Some(at) = &pick.at {
                            let start = java_int(&at.start.render_string(&mut self.session.vars));
                            self.session.vars.set(at.index, &start.to_string());
                        }
                        pc = *exit;
                    }
                }
            }
            Op::Pick { pick, exit } => {
                let pass = self.plan.loop_counts[pick.slot as usize].0 as usize;
                let past_end = pick.end.as_ref().is_some_and(|t| {
                    let end = t.render_string(&mut self.session.vars).trim().parse::<i32>().unwrap_or(0);
                    pick.offset as i64 + pass as i64 > i64::from(end)
                });
                // JMeter's ForEach ends at an unset variable (an empty one too, where unset
                // is not told apart from `""`).
                let value = pass
                    .checked_sub(1)
                    .and_then(|i| pick.from.get(i))
                    .filter(|v| !past_end && !self.session.vars.is_unset(**v));
                match value.map(|v| self.session.vars.get(*v)) {
                    Some(v) => {
                        let v = v.to_string();
                        self.session.vars.set(pick.into, &v);
                        pc += 1;
                    }
                    _ => {
                        // The ForEach's test is the op before its Pick.
                        self.reset_index(program, pc - 1);
                        pc = *exit;
                    }
                }
            }
            Op::Switch { rotate: Some(r), targets, end, .. } => {
                let n = targets.len();
                let base = r.slot as usize;
                let pick = if !r.weights.is_empty() {
                    let total = self.plan.counters[base];
                    let counts = &self.plan.counters[base + 1..base + 1 + r.weights.len()];
                    crate::plan::flow::Rotate::weighted_pick(&r.weights, counts, total)
                        .inspect(|i| self.plan.counters[base + 1 + i] += 1)
                } else if n > 0 {
                    let start = if r.by_user { self.session.vars.thread_num.saturating_sub(1) } else { 0 };
                    Some(((start + self.plan.counters[base]) % n as u64) as usize)
                } else {
                    None
                };
                self.plan.counters[base] += 1;
                pc = pick.and_then(|i| targets.get(i)).map_or(*end, |t| *t);
            }
            Op::Switch { value, names, targets, end, rotate: None } => {
                let v = value.render_string(&mut self.session.vars);
                pc = crate::plan::flow::Switch::pick(names, &v).map_or(*end, |i| targets[i]);
            }
            _ => unreachable!("control passes only these"),
        }
        pc
    }
}
