//! The operations of a user's program that keep state of their own and are no samplers:
//! transaction groups, data files, counters, anchors, the Parallel Controller. The samplers
//! are in `engine::sampler`.

mod anchor;
mod control;
mod parallel;
mod script;
mod think;

use super::user::{IterEnd, VirtualUser};
use crate::plan::csv_data::Cursor;
use crate::plan::{LabelId, OnEof, Share};
use crate::record::ErrorKind;
use std::time::Instant;

/// A transaction group being timed.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct GroupAcc {
    pub(super) open: bool,
    /// JMeter's "generate parent sample": the requests inside are recorded only as part of
    /// the group's sample, which then counts in the total.
    pub(super) parent: bool,
    pub(super) wall_clock: bool,
    /// The label its sample is recorded under, rendered as the group started.
    pub(super) label: Option<LabelId>,
    /// A Parallel Controller's parent sample, seen from one of its branches: the requests
    /// inside are its sub-results, rows of their own not counted again in the total, as
    /// JMeter writes sub-results.
    pub(super) sub: bool,
    /// The status of the last failed request inside, else of the last one.
    pub(super) status: u16,
    pub(super) start_us: u64,
    pub(super) elapsed_us: u64,
    pub(super) ttfb_us: u64,
    pub(super) connect_us: u64,
    pub(super) bytes_sent: u64,
    pub(super) bytes_received: u64,
    pub(super) error: Option<ErrorKind>,
}

impl VirtualUser {
    /// Reads the next row of data file `n` into the user's variables; returns how the
    /// iteration ends when the file ran out and must not recycle.
    pub(super) fn feed(&mut self, n: usize) -> Option<IterEnd> {
        let f = &self.ctx.shared.feeders[n];
        let spec = &f.spec;
        let file = &*spec.file;
        let recycle = spec.on_eof == OnEof::Recycle;
        let owns = |k| spec.owns(k);
        let vars = &mut self.session.vars;
        // Set while the row is at hand (under the shared reader's lock): its strings are the
        // reader's, reused for the next row, so taking a row allocates nothing.
        let mut apply = |row: &[String]| set_row(spec, vars, row);
        // The end of a pass, with `recycle`, is the first row again: taken under the same lock,
        // so that each row of a pass goes to one user.
        let taken = match spec.share {
            Share::All | Share::Scenario => {
                let reader = match spec.share {
                    Share::All => &f.all,
                    _ => &f.per_scenario[self.ctx.index],
                };
                let mut guard = reader.lock().unwrap_or_else(|e| e.into_inner());
                let r = guard.get_or_insert_with(|| Box::new(file.reader()));
                match r.next(file, owns) {
                    Some(row) => Some(apply(row)),
                    None if recycle => {
                        r.rewind(file);
                        r.next(file, owns).map(&mut apply)
                    }
                    None => None,
                }
            }
            Share::User => {
                let at = match self.plan.cursors.iter().position(|(i, _)| *i as usize == n) {
                    Some(at) => at,
                    None => {
                        self.plan.cursors.push((n as u32, Cursor::default()));
                        self.plan.cursors.len() - 1
                    }
                };
                let c = &mut self.plan.cursors[at].1;
                match file.take_at(c, owns, &mut apply) {
                    Some(end) => Some(end),
                    None if recycle => {
                        *c = Cursor::default();
                        file.take_at(c, owns, &mut apply)
                    }
                    None => None,
                }
            }
        };
        if let Some(end) = taken {
            return end;
        }
        match spec.on_eof {
            // Not one row, even from the first: a part of a split run that owns none.
            OnEof::Recycle | OnEof::StopUser => Some(IterEnd::UserDone),
            OnEof::StopRun => {
                self.ctx.shared.stop_run.cancel();
                Some(IterEnd::Cut)
            }
            OnEof::MarkEof => {
                for var in &spec.columns {
                    self.session.vars.set(*var, "<EOF>");
                }
                None
            }
        }
    }

    /// Adds a sample (its figures; the times from `start` to `end`) to the open transaction
    /// groups around it.
    pub(super) fn add_to_groups(&mut self, s: &crate::record::Sample, start: Instant, end: Instant, status: u16) {
        if !self.plan.groups.iter().any(|g| g.open) {
            return;
        }
        let (start_us, end_us) = (self.ctx.micros(start), self.ctx.micros(end));
        for g in self.plan.groups.iter_mut().filter(|g| g.open) {
            g.elapsed_us += end_us.saturating_sub(start_us);
            g.ttfb_us += s.ttfb_us;
            g.connect_us += s.connect_us;
            g.bytes_sent += s.bytes_sent;
            g.bytes_received += s.bytes_received;
            if g.error.is_none() || s.error.is_some() {
                g.status = status;
            }
            g.error = g.error.or(s.error);
        }
    }

    /// How a sample made now is recorded: not in the metrics (`None`: inside a transaction
    /// group with a parent sample, which sums it; the results file still has its line, as
    /// JMeter's CSV writes a sample's sub-results), or as a row that counts in the total (`Some(true)`,
    /// when its own kind does) or not (`Some(false)`: a sub-result of a Parallel Controller's
    /// parent sample).
    pub(super) fn recorded_as(&self) -> Option<bool> {
        let mut top = true;
        for g in self.plan.groups.iter().filter(|g| g.open) {
            if g.parent {
                return None;
            }
            top &= !g.sub;
        }
        Some(top)
    }

    /// The name of a sample's label, as a script's `prev.getSampleLabel()` reads it.
    pub(in crate::engine) fn label_name(&self, label: LabelId) -> String {
        let shared = &self.ctx.shared;
        shared
            .run_labels
            .name(label)
            .or_else(|| shared.scripts.labels.get(label.0 as usize).cloned())
            .unwrap_or_default()
    }

    /// The label a sample of `label` is recorded under: its name rendered now when it holds
    /// `${...}` (JMeter renders a sampler's name for each sample), else `label` itself. Past
    /// the run's cap on rendered names, `label` (the name as written). Inline: every sample
    /// asks, and almost every label is fixed.
    #[inline]
    pub(in crate::engine) fn sample_label(&mut self, label: LabelId) -> LabelId {
        match self.ctx.shared.label_templates.get(label.index()) {
            Some(Some(_)) => self.rendered_label(label),
            _ => label,
        }
    }

    fn rendered_label(&mut self, label: LabelId) -> LabelId {
        let shared = &self.ctx.shared;
        let Some(Some(t)) = shared.label_templates.get(label.index()) else { return label };
        let name = t.render_string(&mut self.session.vars);
        shared.run_labels.intern(&name, label).unwrap_or(label)
    }
}

/// The next value of a per-user JMeter Counter (CounterConfig.iterationStart): the current value
/// is stored, then the increment added (Java's wrapping `long` arithmetic), and a value past
/// `end` starts again at `start`. `state` holds the current value XOR `start`, so that the
/// slot's initial 0 reads as `start`.
pub(super) fn counter_next_user(c: &crate::plan::flow::Counter, state: &mut u64) -> i64 {
    let current = (*state ^ c.start as u64) as i64;
    let mut next = current.wrapping_add(c.increment);
    if next > c.end.unwrap_or(i64::MAX) {
        next = c.start;
    }
    *state = next as u64 ^ c.start as u64;
    current
}

/// The next value of a shared JMeter Counter. JMeter's global counter starts as `Long.MIN_VALUE`
/// and is set to `start` when it is that or past `end`, before its value is used (the per-user
/// one checks after adding): a start above the end is used every time either way, and a sum
/// that wraps to `Long.MIN_VALUE` starts again. The cell holds the value XOR `i64::MIN`, its
/// initial 0 being that sentinel.
pub(super) fn counter_next_global(c: &crate::plan::flow::Counter, cell: &std::sync::atomic::AtomicU64) -> i64 {
    use std::sync::atomic::Ordering;
    const SENTINEL: u64 = i64::MIN as u64;
    let mut used = c.start;
    let _ = cell.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
        let g = (s ^ SENTINEL) as i64;
        used = if g == i64::MIN || g > c.end.unwrap_or(i64::MAX) { c.start } else { g };
        Some(used.wrapping_add(c.increment) as u64 ^ SENTINEL)
    });
    used
}

/// `java.util.Random(seed).nextInt(bound)` (bound > 0), continuing from `state`: 0 before the
/// first draw, else the generator's 48-bit state with bit 63 set.
pub(super) fn java_random_next_int(state: &mut u64, seed: i64, bound: i32) -> i32 {
    const MULT: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;
    let mut s = if *state == 0 { (seed as u64 ^ MULT) & MASK } else { *state & MASK };
    let mut next31 = || {
        s = (s.wrapping_mul(MULT).wrapping_add(0xB)) & MASK;
        (s >> 17) as i32
    };
    let mut r = next31();
    let m = bound - 1;
    if bound & m == 0 {
        r = ((i64::from(bound) * i64::from(r)) >> 31) as i32;
    } else {
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                break;
            }
            u = next31();
        }
    }
    *state = s | (1 << 63);
    r
}

/// Sets a data file's row into the user's variables; returns how the iteration ends when the
/// row is a JMX blank line that stops the user.
fn set_row(
    spec: &crate::plan::DataSpec,
    vars: &mut crate::engine::session::UserVars,
    row: &[String],
) -> Option<IterEnd> {
    if row.is_empty() {
        // A JMX blank line: JMeter's CSV Data Set reads no values and takes it for end of file.
        if spec.stop_on_empty_row {
            return Some(IterEnd::UserDone);
        }
        for var in &spec.columns {
            vars.set(*var, "<EOF>");
        }
        return None;
    }
    // A short row (JMX) sets only the variables it has values for; the others keep theirs.
    for (var, value) in spec.columns.iter().zip(row) {
        vars.set(*var, value);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_draws_match_java_util_random() {
        // From jshell: new java.util.Random(42), nextInt(10) x5; new Random(1).nextInt(16).
        let mut st = 0;
        let got: Vec<i32> = (0..5).map(|_| java_random_next_int(&mut st, 42, 10)).collect();
        assert_eq!(got, [0, 3, 8, 4, 0]);
        assert_eq!(java_random_next_int(&mut 0, 1, 16), 11);
    }

    /// Values from JMeter 5.6.3 (bench/jmeter/plans/counter-semantics.jmx).
    #[test]
    fn counters_follow_jmeters_counter_config() {
        let c = crate::plan::flow::Counter {
            name: "n".into(),
            var: crate::plan::VarId(0),
            start: 1,
            increment: 2,
            end: Some(6),
            per_user: true,
            slot: 0,
            reset: None,
            format: None,
        };
        let user = |c: &crate::plan::flow::Counter, n: usize| {
            let mut st = 0;
            (0..n).map(|_| counter_next_user(c, &mut st)).collect::<Vec<i64>>()
        };
        let global = |c: &crate::plan::flow::Counter, n: usize| {
            let cell = std::sync::atomic::AtomicU64::new(0);
            (0..n).map(|_| counter_next_global(c, &cell)).collect::<Vec<i64>>()
        };
        assert_eq!(user(&c, 5), [1, 3, 5, 1, 3]);
        assert_eq!(global(&c, 5), [1, 3, 5, 1, 3]);
        let open = crate::plan::flow::Counter { end: None, ..c.clone() };
        assert_eq!(user(&open, 5)[4], 9);
        // A start above the end is used every time; a negative increment never wraps.
        let above = crate::plan::flow::Counter { start: 9, increment: 1, end: Some(4), ..c.clone() };
        assert_eq!(user(&above, 3), [9, 9, 9]);
        assert_eq!(global(&above, 3), [9, 9, 9]);
        let down = crate::plan::flow::Counter { start: 0, increment: -3, end: None, ..c.clone() };
        assert_eq!(user(&down, 3), [0, -3, -6]);
        assert_eq!(global(&down, 3), [0, -3, -6]);
        // Long.MAX_VALUE + 1 wraps to Long.MIN_VALUE: the per-user counter goes on from there,
        // the shared one (whose "not yet started" is that value) starts again.
        let top = crate::plan::flow::Counter { start: i64::MAX, increment: 1, end: None, ..c };
        assert_eq!(user(&top, 2), [i64::MAX, i64::MIN]);
        assert_eq!(global(&top, 2), [i64::MAX, i64::MAX]);
    }

    /// The Counter's format is a `java.text.DecimalFormat` pattern (values from Java 17).
    #[test]
    fn counter_formats_are_decimal_formats() {
        use crate::script::format_decimal as f;
        assert_eq!(
            [f("00", 1), f("00", 123), f("'user_'000", 7), f("#,##0", 1234567), f("0.0", -3)],
            ["01", "123", "user_007", "1,234,567", "-3.0"]
        );
    }
}
