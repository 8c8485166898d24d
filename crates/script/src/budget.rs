//! The memory and work budget of one execution.
//!
//! Every value a script makes of a size it controls (`"x" * n`, `nCopies`, `join`, `padLeft`,
//! `String.format("%0999999999d")`, `new int[n]`, a list or builder grown in a loop, the text
//! of a container) is charged here before or as it is made. A request beyond what is left is
//! Java's `java.lang.OutOfMemoryError: Java heap space` inside the script, as in JMeter: that
//! execution fails, the user goes on, and the process never asks the allocator for more than
//! the budget (an allocation failure aborts a Rust process).
//!
//! What is charged is an estimate of what the execution's values hold: each value counts when it
//! is made and is released when a variable, a statement or a call drops its last reference
//! (`charge` and `release`); values the script keeps in containers stay counted. Bytes made or
//! copied also count as work, which the evaluator adds to its step budget, so that a loop of
//! large copies (`while (true) s += "x"`) ends as soon as a loop of steps would.
//!
//! The meter is thread-local, installed by [`enter`] for the length of one execution: the
//! evaluator runs a script on one thread, and `Display` of a container (which has no context
//! to pass it) must be able to stop writing. Outside an execution nothing is metered.

use super::value::Value;
use super::Thrown;
use std::cell::Cell;
use std::sync::Arc;

/// Bytes the values of one execution may hold. No real test plan's script comes near it (a
/// script that parses a 10 MB response and walks it holds a few times that); a runaway one
/// stops here, and a two-core machine with a hundred users in such scripts at once stays up.
pub(crate) const MEMORY_BUDGET: u64 = 256 << 20;

/// Bytes made or copied that count as one step of the step budget: a step of the evaluator
/// costs about as long as copying this much.
pub(crate) const BYTES_PER_STEP: u64 = 64;

/// What one element of a list, array or set holds.
pub(crate) const VALUE_BYTES: u64 = std::mem::size_of::<Value>() as u64;

/// What one entry of a map holds (key, value, hash and index).
pub(crate) const ENTRY_BYTES: u64 = 2 * VALUE_BYTES + 16;

pub(crate) const OOM_CLASS: &str = "java.lang.OutOfMemoryError";

#[derive(Clone, Copy)]
struct Meter {
    active: bool,
    /// What the execution's values are estimated to hold.
    used: u64,
    limit: u64,
    /// Bytes made or copied since the evaluator last took them as steps.
    work: u64,
    /// Text written by `Display` of containers since the last charge (it becomes a value,
    /// charged then).
    shown: u64,
    /// `Display` stopped short for want of budget: the evaluator throws once it returns.
    tripped: bool,
    /// `Display` stopped at a container nested too deep (or inside itself): the evaluator
    /// throws `StackOverflowError`, as Groovy's recursive `toString` would.
    deep: bool,
}

const IDLE: Meter = Meter { active: false, used: 0, limit: 0, work: 0, shown: 0, tripped: false, deep: false };

thread_local! {
    static METER: Cell<Meter> = const { Cell::new(IDLE) };
}

fn with<T>(f: impl FnOnce(&mut Meter) -> T) -> T {
    METER.with(|c| {
        let mut m = c.get();
        let r = f(&mut m);
        c.set(m);
        r
    })
}

/// The meter of one execution, installed while this lives; the one it replaced (an execution
/// that started this one on the same thread) is back when it drops.
pub(crate) struct Guard {
    saved: Meter,
}

pub(crate) fn enter(limit: u64) -> Guard {
    let saved = METER.with(|c| c.replace(Meter { active: true, limit, ..IDLE }));
    Guard { saved }
}

impl Drop for Guard {
    fn drop(&mut self) {
        METER.with(|c| c.set(self.saved));
    }
}

/// Java's `OutOfMemoryError` for a request of `bytes`.
pub(crate) fn out_of_memory(bytes: u64) -> Thrown {
    Thrown::new(
        OOM_CLASS,
        format!(
            "Java heap space: {bytes} more bytes is over stampede's budget of {} MiB for one script execution",
            MEMORY_BUDGET >> 20
        ),
    )
}

/// Fails with `OutOfMemoryError` unless `bytes` more fit: for a size known before anything is
/// allocated (a bound, the value is charged when made).
pub(crate) fn check(bytes: u64) -> Result<(), Thrown> {
    let m = METER.with(Cell::get);
    if m.active && m.used.saturating_add(bytes) > m.limit {
        return Err(out_of_memory(bytes));
    }
    Ok(())
}

/// What is left of the budget (no limit outside an execution).
pub(crate) fn remaining() -> u64 {
    let m = METER.with(Cell::get);
    if m.active {
        m.limit.saturating_sub(m.used)
    } else {
        u64::MAX
    }
}

/// Counts `bytes` the execution now holds (and made: work); `OutOfMemoryError` when they do not
/// fit, before anything is allocated when called first.
pub(crate) fn charge(bytes: u64) -> Result<(), Thrown> {
    with(|m| {
        if !m.active {
            return Ok(());
        }
        let used = m.used.saturating_add(bytes);
        if used > m.limit {
            return Err(out_of_memory(bytes));
        }
        m.used = used;
        m.work = m.work.saturating_add(bytes);
        m.shown = 0;
        Ok(())
    })
}

/// Counts `bytes` a value already grew by (a builder appended to, a list added to): they stay
/// counted, and `OutOfMemoryError` when they leave the budget spent.
pub(crate) fn grew(bytes: u64) -> Result<(), Thrown> {
    with(|m| {
        if !m.active {
            return Ok(());
        }
        m.used = m.used.saturating_add(bytes);
        m.work = m.work.saturating_add(bytes);
        m.shown = 0;
        if m.used > m.limit {
            return Err(out_of_memory(bytes));
        }
        Ok(())
    })
}

/// `charge` for `n` items of `each` bytes.
pub(crate) fn charge_items(n: u64, each: u64) -> Result<(), Thrown> {
    charge(n.saturating_mul(each))
}

/// Bytes the execution no longer holds.
pub(crate) fn release(bytes: u64) {
    with(|m| m.used = m.used.saturating_sub(bytes));
}

/// Bytes copied that the execution does not keep (work only).
pub(crate) fn work(bytes: u64) {
    with(|m| m.work = m.work.saturating_add(bytes));
}

/// Work done since the last call, in steps.
pub(crate) fn take_work_steps() -> u64 {
    with(|m| {
        let steps = m.work / BYTES_PER_STEP;
        m.work %= BYTES_PER_STEP;
        steps
    })
}

/// For `Display` of containers: may `bytes` more of text be written? When not, the meter is
/// tripped (the evaluator throws `OutOfMemoryError` when the call returns) and the writer stops.
pub(crate) fn show(bytes: u64) -> bool {
    with(|m| {
        if !m.active {
            return true;
        }
        if m.tripped {
            return false;
        }
        m.shown = m.shown.saturating_add(bytes);
        m.work = m.work.saturating_add(bytes);
        if m.used.saturating_add(m.shown) > m.limit {
            m.tripped = true;
            return false;
        }
        true
    })
}

/// Whether a writer stopped short since the last call (and clears it).
pub(crate) fn take_tripped() -> bool {
    with(|m| std::mem::replace(&mut m.tripped, false))
}

/// Containers nested deeper than this in the text of a value are not written: the writers
/// recurse on the Rust stack, and a script can nest lists (or put a list inside itself) without end.
pub(crate) const MAX_SHOW_DEPTH: usize = crate::interp::MAX_DEPTH as usize;

thread_local! {
    /// Addresses of the containers being written on this thread, outermost first: a writer
    /// that met one again would lock its mutex a second time (a deadlock) and never end.
    static SHOWING: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// While this lives, one container is being written.
pub(crate) struct Showing(());

impl Drop for Showing {
    fn drop(&mut self) {
        SHOWING.with(|s| s.borrow_mut().pop());
    }
}

/// Enters the text of the container at `addr`: `None` (and the meter tripped for
/// `StackOverflowError`) when it is already being written further out or is nested past
/// [`MAX_SHOW_DEPTH`]; the writer then writes nothing more of it.
pub(crate) fn show_nested(addr: usize) -> Option<Showing> {
    let ok = SHOWING.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() >= MAX_SHOW_DEPTH || s.contains(&addr) {
            return false;
        }
        s.push(addr);
        true
    });
    if !ok {
        with(|m| m.deep = true);
        return None;
    }
    Some(Showing(()))
}

/// Whether a writer stopped at a container too deep since the last call (and clears it).
pub(crate) fn take_deep() -> bool {
    with(|m| std::mem::replace(&mut m.deep, false))
}

/// The error for a text that nested too deep.
pub(crate) fn too_deep() -> Thrown {
    Thrown::new(
        "java.lang.StackOverflowError",
        format!("the text of a value nests containers deeper than {MAX_SHOW_DEPTH} levels (or inside themselves)"),
    )
}

/// What a value holds by itself (not the values it contains, counted when they were made).
pub(crate) fn shallow_size(v: &Value) -> u64 {
    match v {
        Value::Str(s) => s.len() as u64,
        Value::Bytes(b) => b.len() as u64,
        Value::List(l) => super::value::lock(&l.items).len() as u64 * VALUE_BYTES,
        Value::Map(m) => super::value::lock(&m.entries).len() as u64 * ENTRY_BYTES,
        Value::Object(o) => o.held(),
        _ => 0,
    }
}

/// Whether this is the only reference to the value's storage (it was just made, or is about to
/// be dropped).
fn sole(v: &Value) -> bool {
    match v {
        Value::Str(s) => Arc::strong_count(s) == 1,
        Value::Bytes(b) => Arc::strong_count(b) == 1,
        Value::List(l) => Arc::strong_count(l) == 1,
        Value::Map(m) => Arc::strong_count(m) == 1,
        Value::Object(o) => Arc::strong_count(o) == 1,
        _ => false,
    }
}

/// Charges a value a call gave, when it is new (nothing else refers to it); a value that was
/// already somewhere (an element, a variable) was charged when it was made.
pub(crate) fn charge_new(v: &Value) -> Result<(), Thrown> {
    if take_tripped() {
        return Err(out_of_memory(MEMORY_BUDGET));
    }
    if sole(v) {
        charge(shallow_size(v))?;
    }
    Ok(())
}

/// Releases a value being dropped when this was its last reference.
pub(crate) fn release_dropped(v: &Value) {
    if matches!(v, Value::Str(_) | Value::Bytes(_) | Value::List(_) | Value::Map(_) | Value::Object(_)) && sole(v) {
        release(shallow_size(v));
    }
}
