//! The jp@gc AutoStop Listener's watch over the run: each interval's averages of the samples
//! each listener sees, against its limits, as the plugin compares each second.

use crate::plan::flow::{AutoStop, AutoStopOn};
use crate::plan::{LabelId, Plan};
use crate::record::{Interval, RunLabels};

pub(super) struct Watch {
    /// Each listener, the labels it sees, and for each limit when its run of seconds above it
    /// began (µs since the run started; none before the listener's first sample).
    stops: Vec<(AutoStop, Vec<LabelId>, Vec<Option<u64>>)>,
}

impl Watch {
    pub(super) fn new(plan: &Plan) -> Watch {
        let mut all = Vec::new();
        for s in &plan.scenarios {
            crate::plan::flow::sample_labels(&s.flow, &mut all);
        }
        let stops = plan
            .autostops
            .iter()
            .map(|a| (a.clone(), a.labels.clone().unwrap_or_else(|| all.clone()), vec![None; a.limits.len()]))
            .collect();
        Watch { stops }
    }

    /// Why the test must stop after this interval, if it must. As the plugin: an interval
    /// without a sample in scope changes nothing; the first one starts every run of seconds;
    /// one whose average is not above a limit starts that limit's run again at its end; one
    /// above it stops the test once its run has lasted the limit's seconds. A name rendered at
    /// run time (`run_labels`) is seen where its sampler is.
    pub(super) fn observe(&mut self, iv: &Interval, run_labels: &RunLabels) -> Option<String> {
        for (a, labels, starts) in &mut self.stops {
            let (mut n, mut errors, mut elapsed, mut ttfb) = (0u64, 0u64, 0u64, 0u64);
            let seen =
                |id: &LabelId| labels.contains(id) || run_labels.origin(*id).is_some_and(|o| labels.contains(&o));
            for (_, l) in iv.labels.iter().filter(|(id, _)| seen(id)) {
                n += l.samples;
                errors += l.errors;
                elapsed += l.sum_elapsed_us;
                ttfb += l.sum_ttfb_us;
            }
            if n == 0 {
                continue;
            }
            for (lim, start) in a.limits.iter().zip(starts.iter_mut()) {
                let since = *start.get_or_insert(iv.start_us);
                let (value, what) = match lim.on {
                    AutoStopOn::ResponseTime => (elapsed as f64 / n as f64 / 1000.0, "average response time"),
                    AutoStopOn::Latency => (ttfb as f64 / n as f64 / 1000.0, "average latency"),
                    AutoStopOn::ErrorRate => (errors as f64 / n as f64, "error rate"),
                };
                if value <= lim.above {
                    *start = Some(iv.end_us);
                } else if iv.end_us.saturating_sub(since) >= lim.secs.saturating_mul(1_000_000) {
                    let limit = match lim.on {
                        AutoStopOn::ErrorRate => format!("{}%", lim.above * 100.0),
                        _ => format!("{} ms", lim.above),
                    };
                    return Some(format!(
                        "jp@gc AutoStop Listener \"{}\": {what} more than {limit} for {} s",
                        a.name, lim.secs
                    ));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::flow::AutoStopLimit;
    use crate::record::{LabelStats, Sample};

    fn interval(i: u64, samples: &[(u32, u64, bool)]) -> Interval {
        let mut labels: Vec<(LabelId, LabelStats)> = Vec::new();
        for &(label, ms, failed) in samples {
            let s = Sample {
                label: LabelId(label),
                start_us: i * 1_000_000,
                end_us: i * 1_000_000 + ms * 1000,
                ttfb_us: ms * 500,
                connect_us: 0,
                bytes_sent: 0,
                bytes_received: 0,
                new_connection: false,
                error: failed.then_some(crate::record::ErrorKind::Refused),
                in_total: true,
                upstream_us: None,
            };
            match labels.iter_mut().find(|(l, _)| l.0 == label) {
                Some((_, st)) => st.record(&s),
                None => {
                    let mut st = LabelStats::default();
                    st.record(&s);
                    labels.push((LabelId(label), st));
                }
            }
        }
        Interval {
            index: i,
            start_us: i * 1_000_000,
            end_us: (i + 1) * 1_000_000,
            labels,
            total: LabelStats::default(),
            scenarios: Vec::new(),
            lateness: Vec::new(),
            active_users: Vec::new(),
            last: false,
            new_labels: Vec::new(),
        }
    }

    fn none() -> RunLabels {
        RunLabels::new(&[], 2)
    }

    fn watch(on: AutoStopOn, above: f64, secs: u64, labels: Vec<LabelId>) -> Watch {
        let a = AutoStop { name: "a".into(), limits: vec![AutoStopLimit { on, above, secs }], labels: None };
        Watch { stops: vec![(a, labels, vec![None])] }
    }

    /// #13: the plugin's rule: `secs` seconds in a row above the limit stop the test; a second
    /// at or below it starts the count again; a second without samples changes nothing;
    /// samples out of scope are not seen.
    #[test]
    fn stops_after_its_seconds_above_the_limit() {
        let mut w = watch(AutoStopOn::ResponseTime, 100.0, 3, vec![LabelId(0)]);
        let slow = [(0, 300, false)];
        let fast = [(0, 50, false), (1, 900, false)];
        assert_eq!(w.observe(&interval(0, &slow), &none()), None);
        assert_eq!(w.observe(&interval(1, &slow), &none()), None);
        assert_eq!(w.observe(&interval(2, &fast), &none()), None, "label 1 is out of scope");
        assert_eq!(w.observe(&interval(3, &slow), &none()), None);
        assert_eq!(w.observe(&interval(4, &[]), &none()), None);
        // Seconds 3, 4 (no sample) and 5: the plugin's run of seconds spans the empty one.
        let why = w.observe(&interval(5, &slow), &none()).expect("stops");
        assert!(why.contains("average response time more than 100 ms for 3 s"), "{why}");
        let mut e = watch(AutoStopOn::ErrorRate, 0.459, 1, vec![LabelId(0)]);
        assert_eq!(
            e.observe(&interval(0, &[(0, 1, true), (0, 1, false)]), &none()),
            Some("jp@gc AutoStop Listener \"a\": error rate more than 45.9% for 1 s".into())
        );
        let mut l = watch(AutoStopOn::Latency, 100.0, 1, vec![LabelId(0)]);
        assert_eq!(l.observe(&interval(0, &[(0, 150, false)]), &none()), None, "latency is 75 ms");
    }

    /// #13: a sampler named with `${...}` is seen under each name it renders: its samples have
    /// rows of their own, after the plan's.
    #[test]
    fn sees_the_names_its_samplers_render() {
        let names = RunLabels::new(&["a ${n}".into(), "b".into()], 2);
        let a1 = names.intern("a 1", LabelId(0)).unwrap();
        let b1 = names.intern("b 1", LabelId(1)).unwrap();
        let mut w = watch(AutoStopOn::ErrorRate, 0.5, 1, vec![LabelId(0)]);
        assert_eq!(w.observe(&interval(0, &[(b1.0, 1, true)]), &names), None, "b's name is out of scope");
        assert!(w.observe(&interval(1, &[(a1.0, 1, true)]), &names).is_some());
    }
}
