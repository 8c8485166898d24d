//! Run-time labels: a sampler whose name holds `${...}` is reported under its name as rendered
//! for each sample (JMeter renders a sampler's name per sample, and its results have a row per
//! rendered name). [`RunLabels`] gives each rendered name an id after the plan's own rows, the
//! first time it is met, up to [`RUN_LABEL_CAP`] names: a name with a per-iteration or random
//! value would otherwise grow every shard, the totals and the report without end in a long
//! run. Past the cap, a sample is counted under its sampler's name as written (a row the plan
//! has anyway), and the run says so once.

use crate::plan::LabelId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::RwLock;

/// Distinct rendered names that get rows of their own in a run.
pub(crate) const RUN_LABEL_CAP: usize = 1_000;

/// Each name's id, the names in id order, and the label each was first rendered from.
type Table = (HashMap<String, LabelId>, Vec<String>, Vec<LabelId>);

/// The rendered names met so far; shared by every user of a run.
#[derive(Debug)]
pub(crate) struct RunLabels {
    /// The id of the first rendered name: the number of rows the plan has.
    first: u32,
    names: RwLock<Table>,
    full: AtomicBool,
}

impl RunLabels {
    /// A table whose first new name gets the id `first` (the plan's rows come before it); a
    /// rendered name that is one of the plan's `labels` is counted in that label's row.
    pub(crate) fn new(labels: &[String], first: usize) -> RunLabels {
        let mut index = HashMap::new();
        for (i, name) in labels.iter().enumerate() {
            index.entry(name.clone()).or_insert(LabelId(i as u32));
        }
        RunLabels {
            first: first as u32,
            names: RwLock::new((index, Vec::new(), Vec::new())),
            full: AtomicBool::new(false),
        }
    }

    /// The id of `name`, rendered from label `from`, given one at its first sample; `None`
    /// past the cap.
    pub(crate) fn intern(&self, name: &str, from: LabelId) -> Option<LabelId> {
        if let Some(id) = self.names.read().unwrap_or_else(|e| e.into_inner()).0.get(name) {
            return Some(*id);
        }
        let mut guard = self.names.write().unwrap_or_else(|e| e.into_inner());
        let (index, names, origins) = &mut *guard;
        if let Some(id) = index.get(name) {
            return Some(*id);
        }
        if names.len() >= RUN_LABEL_CAP {
            self.full.store(true, Relaxed);
            return None;
        }
        let id = LabelId(self.first + names.len() as u32);
        index.insert(name.to_string(), id);
        names.push(name.to_string());
        origins.push(from);
        Some(id)
    }

    /// The names given ids, from the `from`-th on, in id order.
    pub(crate) fn names_from(&self, from: usize) -> Vec<String> {
        let guard = self.names.read().unwrap_or_else(|e| e.into_inner());
        guard.1.get(from..).map(<[String]>::to_vec).unwrap_or_default()
    }

    /// The name of `id`, when it is a rendered name's.
    pub(crate) fn name(&self, id: LabelId) -> Option<String> {
        let i = id.0.checked_sub(self.first)? as usize;
        self.names.read().unwrap_or_else(|e| e.into_inner()).1.get(i).cloned()
    }

    /// The plan's label that rendered name `id` was first rendered from (a listener that sees
    /// that sampler sees its samples), when `id` is a rendered name's.
    pub(crate) fn origin(&self, id: LabelId) -> Option<LabelId> {
        let i = id.0.checked_sub(self.first)? as usize;
        self.names.read().unwrap_or_else(|e| e.into_inner()).2.get(i).copied()
    }

    /// Whether a name was refused for the cap.
    pub(crate) fn full(&self) -> bool {
        self.full.load(Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_ids_after_the_plan_s_rows_in_order_up_to_the_cap() {
        let t = RunLabels::new(&["p".into(), "a ${n}".into()], 3);
        assert_eq!(t.intern("a ${n}", LabelId(1)), Some(LabelId(1)), "a plan label keeps its row");
        assert_eq!(t.intern("p", LabelId(1)), Some(LabelId(0)));
        assert_eq!(t.intern("a 1", LabelId(1)), Some(LabelId(3)));
        assert_eq!(t.intern("a 2", LabelId(1)), Some(LabelId(4)));
        assert_eq!(t.intern("a 1", LabelId(1)), Some(LabelId(3)));
        assert_eq!(t.names_from(0), ["a 1", "a 2"]);
        assert_eq!(t.names_from(1), ["a 2"]);
        assert_eq!(t.name(LabelId(4)).as_deref(), Some("a 2"));
        assert_eq!(t.name(LabelId(2)), None);
        assert_eq!(t.origin(LabelId(4)), Some(LabelId(1)));
        assert_eq!(t.origin(LabelId(0)), None, "a plan label is its own");
        for i in 2..RUN_LABEL_CAP {
            assert!(t.intern(&format!("n {i}"), LabelId(1)).is_some());
        }
        assert!(!t.full());
        assert_eq!(t.intern("one more", LabelId(1)), None, "past the cap");
        assert!(t.full());
        assert_eq!(t.intern("a 2", LabelId(1)), Some(LabelId(4)), "names met before keep their rows");
        assert_eq!(t.names_from(0).len(), RUN_LABEL_CAP);
    }
}
