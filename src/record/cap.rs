//! The label cap: the first [`LABEL_CAP`] labels to get a sample keep their own rows; samples
//! of any label after them are counted together in one row, [`OVERFLOW_LABEL`]. Plans and
//! results files that put IDs into labels can have any number of them, and each row costs
//! memory in every recorder shard, the collector, the totals and the report; past the cap, a
//! run's memory stays flat instead of growing until it is killed. Counts stay exact: the
//! overflow row's samples are in the Total like any other.

use crate::plan::LabelId;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release};

/// Labels with samples that keep their own rows, in a run and in a report.
pub(crate) const LABEL_CAP: usize = 10_000;
/// The row that counts the samples of every label past the cap.
pub(crate) const OVERFLOW_LABEL: &str = "(other labels)";

/// The rows of a run of a plan with `labels`: the plan's labels, and the overflow row after
/// them when there can be more labels with samples than the cap.
pub(crate) fn row_names(labels: &[String]) -> Vec<String> {
    let mut rows = labels.to_vec();
    if labels.len() > LABEL_CAP {
        rows.push(OVERFLOW_LABEL.to_string());
    }
    rows
}

const UNSEEN: u8 = 0;
const OWN_ROW: u8 = 1;
const FOLDED: u8 = 2;
const DECIDING: u8 = 3;

/// Decides, at each label's first sample, whether it keeps its row; shared by every thread
/// that records. Only made when a plan has more labels than the cap.
pub(crate) struct Fold {
    state: Box<[AtomicU8]>,
    /// Labels decided so far.
    admitted: AtomicUsize,
    overflow: LabelId,
}

impl Fold {
    pub(crate) fn new(labels: usize) -> Option<Fold> {
        (labels > LABEL_CAP).then(|| Fold {
            state: (0..labels).map(|_| AtomicU8::new(UNSEEN)).collect(),
            admitted: AtomicUsize::new(0),
            overflow: LabelId(labels as u32),
        })
    }

    /// The row that counts a sample of `label`.
    #[inline]
    pub(crate) fn row(&self, label: LabelId) -> LabelId {
        let Some(state) = self.state.get(label.index()) else { return self.overflow };
        let mut now = state.load(Acquire);
        if now == UNSEEN {
            // This label's first sample: one thread decides, any other waits the few
            // nanoseconds that takes, so exactly the first LABEL_CAP labels get rows.
            if state.compare_exchange(UNSEEN, DECIDING, Acquire, Acquire).is_ok() {
                now = if self.admitted.fetch_add(1, Relaxed) < LABEL_CAP { OWN_ROW } else { FOLDED };
                state.store(now, Release);
            }
            while now == UNSEEN || now == DECIDING {
                std::hint::spin_loop();
                now = state.load(Acquire);
            }
        }
        if now == OWN_ROW {
            label
        } else {
            self.overflow
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_labels_with_samples_keep_their_rows() {
        assert!(Fold::new(LABEL_CAP).is_none());
        let n = LABEL_CAP + 500;
        let fold = Fold::new(n).unwrap();
        // Labels get their first samples from the top down: the cap is on order of traffic,
        // not on plan order.
        for i in (0..n).rev() {
            let row = fold.row(LabelId(i as u32));
            let own = i >= n - LABEL_CAP;
            assert_eq!(row, if own { LabelId(i as u32) } else { LabelId(n as u32) }, "label {i}");
        }
        // A decision holds for later samples.
        assert_eq!(fold.row(LabelId(0)), LabelId(n as u32));
        assert_eq!(fold.row(LabelId((n - 1) as u32)), LabelId((n - 1) as u32));
        assert_eq!(row_names(&vec!["a".to_string(); n]).last().unwrap(), OVERFLOW_LABEL);
        assert_eq!(row_names(&["a".to_string()]).len(), 1);
    }

    #[test]
    fn threads_racing_for_rows_never_exceed_the_cap() {
        let n = LABEL_CAP * 2;
        let fold = Fold::new(n).unwrap();
        std::thread::scope(|s| {
            for t in 0..4 {
                let fold = &fold;
                s.spawn(move || {
                    for i in 0..n {
                        fold.row(LabelId(((i * 7 + t * 13) % n) as u32));
                    }
                });
            }
        });
        let own = (0..n).filter(|i| fold.row(LabelId(*i as u32)).index() == *i).count();
        assert_eq!(own, LABEL_CAP);
    }
}
