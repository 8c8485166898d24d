//! [`ArrivalSchedule`]: when the n-th arrival of an open workload is due. Pure: no clock, no I/O.
//!
//! Each stage moves the rate linearly from the previous rate to its target; the number of
//! arrivals by time t within a stage is N(t) = a·t + (b − a)·t²/(2T), so arrival n is at the t
//! that solves N(t) = n − (arrivals of earlier stages).
//!
//! JMeter's Open Model Thread Group draws its instants instead ([`jmeter_instants`]): they are
//! made when the scenario starts and kept, whole milliseconds as JMeter times them.

use super::precise::JavaRandom;
use crate::plan::{ArrivalProcess, OpenWorkload, Stage};
use std::time::Duration;

#[derive(Debug, Clone)]
pub(crate) struct ArrivalSchedule {
    stages: Vec<Segment>,
    /// [`ArrivalSchedule::total`], kept: past 2^53 arrivals an f64 no longer tells n from n + 1,
    /// so `due` ends the schedule by this count, not by its floating-point sum.
    total: u64,
    /// Drawn instants (ms from the start, sorted), when the workload has an [`ArrivalProcess`].
    instants: Option<Vec<u64>>,
}

#[derive(Debug, Clone, Copy)]
struct Segment {
    from_rate: f64,
    to_rate: f64,
    start_s: f64,
    len_s: f64,
    /// Arrivals before this stage.
    before: f64,
}

impl ArrivalSchedule {
    pub(crate) fn new(start_rate: f64, stages: &[Stage]) -> ArrivalSchedule {
        let (mut rate, mut t, mut before) = (start_rate, 0.0, 0.0);
        let mut out = Vec::new();
        for s in stages {
            let len = s.duration.as_secs_f64();
            out.push(Segment { from_rate: rate, to_rate: s.target, start_s: t, len_s: len, before });
            before += (rate + s.target) / 2.0 * len;
            t += len;
            rate = s.target;
        }
        let total = out.last().map_or(0, |s| {
            let n = s.before + (s.from_rate + s.to_rate) / 2.0 * s.len_s;
            // Arrivals at 0, 1/r, 2/r, ... strictly before the end: ceil, tolerant of rounding
            // (`as` saturates: a sum past u64 is u64::MAX arrivals, never a wrapped count).
            (n - 1e-9).ceil().max(0.0) as u64
        });
        ArrivalSchedule { stages: out, total, instants: None }
    }

    /// The workload's schedule: its drawn instants if it has an [`ArrivalProcess`] (those past
    /// its stages' length, which `--duration` may have cut, are left out), else its stages.
    /// `fallback_seed` stands for `new Random()` where the process has no seed.
    pub(crate) fn for_workload(w: &OpenWorkload, fallback_seed: i64) -> ArrivalSchedule {
        let mut s = ArrivalSchedule::new(w.start_rate, &w.stages);
        if let Some(p) = &w.process {
            let end = s.length().as_millis() as u64;
            let mut instants = jmeter_instants(p, fallback_seed);
            instants.retain(|&ms| ms <= end);
            s.total = instants.len() as u64;
            s.instants = Some(instants);
        }
        s
    }

    /// How long the schedule lasts.
    pub(crate) fn length(&self) -> Duration {
        self.stages.last().map_or(Duration::ZERO, |s| Duration::from_secs_f64(s.start_s + s.len_s))
    }

    /// Total arrivals over the whole schedule.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// How many arrivals are due strictly before `t` (from the scenario's start): the index of
    /// the first arrival due at `t` or later. The inverse of [`due`](Self::due).
    pub(crate) fn arrivals_before(&self, t: Duration) -> u64 {
        if let Some(ms) = &self.instants {
            return ms.partition_point(|&m| Duration::from_millis(m) < t) as u64;
        }
        let t = t.as_secs_f64();
        let mut n = 0.0;
        for s in &self.stages {
            if t <= s.start_s {
                break;
            }
            let x = (t - s.start_s).min(s.len_s);
            n = s.before + s.from_rate * x + (s.to_rate - s.from_rate) * x * x / (2.0 * s.len_s.max(1e-12));
        }
        // Arrival k is due before t when k < N(t): ceil, tolerant of rounding (a due time is
        // whole nanoseconds); never past the end.
        ((n - 1e-6).ceil().max(0.0) as u64).min(self.total)
    }

    /// When arrival `n` (0-based) is due, from the scenario's start; `None` past the end.
    pub(crate) fn due(&self, n: u64) -> Option<Duration> {
        if n >= self.total {
            return None;
        }
        if let Some(ms) = &self.instants {
            return ms.get(n as usize).map(|&m| Duration::from_millis(m));
        }
        let n = n as f64;
        for s in &self.stages {
            let in_stage = (s.from_rate + s.to_rate) / 2.0 * s.len_s;
            let m = n - s.before;
            if m < 0.0 || m >= in_stage - 1e-9 {
                continue;
            }
            let (a, b) = (s.from_rate, s.to_rate);
            let t = if (b - a).abs() < 1e-12 {
                m / a
            } else {
                let k = (b - a) / (2.0 * s.len_s);
                // k·t² + a·t − m = 0; the root that is >= 0. Written to avoid cancellation.
                let disc = (a * a + 4.0 * k * m).max(0.0);
                let denom = a + disc.sqrt();
                if denom > 0.0 {
                    2.0 * m / denom
                } else {
                    0.0 // m = 0 at a rate of 0: the stage's first arrival is at its start
                }
            };
            let t = t.clamp(0.0, s.len_s);
            return Some(Duration::from_secs_f64(s.start_s + t));
        }
        None
    }
}

/// The instants of JMeter's `ThreadScheduleProcessGenerator`, in ms from the start as its
/// starter rounds them (`Math.round`): per step, even arrivals at 0 and then where the count of
/// the linear rate reaches 1, 2, ... (`EvenArrivalsRamp`), or random ones (`PoissonArrivalsRamp`):
/// ⌊min rate × duration⌋ uniform draws, the rest of the count from the triangle above (the
/// square root of a draw, mirrored for a falling rate), sorted. One `java.util.Random` for the
/// whole schedule, so a seed gives JMeter's very instants.
pub(crate) fn jmeter_instants(p: &ArrivalProcess, fallback_seed: i64) -> Vec<u64> {
    let mut rnd = JavaRandom::new(if p.seed == 0 { fallback_seed } else { p.seed });
    let mut out = Vec::with_capacity(usize::try_from(p.total()).unwrap_or(0).min(1 << 20));
    let mut offset = 0.0;
    let ms = |t: f64| (t * 1000.0 + 0.5).floor().max(0.0) as u64;
    for s in &p.steps {
        let (b, e, d) = (s.from, s.to, s.secs);
        let n = s.count();
        if s.random {
            let min = b.min(e);
            let flat = (min * d) as i32;
            let mut events = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(1 << 20));
            if min > 0.0 {
                for _ in 0..flat.max(0) {
                    events.push(rnd.next_double() * d);
                }
            }
            let left = n as i64 - i64::from(flat);
            if b != e && left != 0 {
                for _ in 0..left.max(0) {
                    let t = rnd.next_double().sqrt();
                    events.push(if b > e { 1.0 - t } else { t } * d);
                }
            }
            events.sort_by(f64::total_cmp);
            out.extend(events.into_iter().map(|t| ms(offset + t)));
        } else {
            let mean = (b + e) / 2.0;
            let accel = if (e - b).abs() < 0.0001 * mean { 0.0 } else { (e - b) / d };
            for k in 0..n {
                let t = if k == 0 {
                    0.0
                } else if accel == 0.0 {
                    k as f64 / mean
                } else {
                    ((b * b + 2.0 * accel * k as f64).sqrt() - b) / accel
                };
                out.push(ms(offset + t));
            }
        }
        offset += d;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(target: f64, secs: f64) -> Stage {
        Stage { target, duration: Duration::from_secs_f64(secs) }
    }

    fn ms(d: Option<Duration>) -> Option<f64> {
        d.map(|d| (d.as_secs_f64() * 1e6).round() / 1e3)
    }

    fn process(schedule: &[(bool, f64, f64, f64)], seed: i64) -> ArrivalProcess {
        let steps = schedule
            .iter()
            .map(|&(random, from, to, secs)| crate::plan::workload::ProcessStep { random, from, to, secs })
            .collect();
        ArrivalProcess { steps, seed }
    }

    /// Printed by JMeter 5.6.3's own `ThreadScheduleProcessGenerator` (`new Random(seed)`,
    /// `Math.round(t * 1000)`), for the schedule in each comment.
    #[test]
    fn open_model_instants_are_jmeters_for_a_seed() {
        // rate(20/sec) random_arrivals(3 s), seed 42
        let p = process(&[(true, 20.0, 20.0, 3.0)], 42);
        let jmeter: Vec<u64> = vec![
            94, 453, 517, 532, 538, 588, 629, 827, 831, 842, 875, 926, 946, 1074, 1081, 1106, 1107, 1113, 1123, 1160,
            1253, 1263, 1304, 1309, 1372, 1381, 1391, 1407, 1418, 1442, 1460, 1713, 1715, 1740, 1762, 1783, 1849, 1899,
            1910, 1997, 2050, 2100, 2140, 2183, 2250, 2254, 2258, 2349, 2417, 2453, 2461, 2478, 2482, 2502, 2597, 2615,
            2710, 2758, 2850, 2922,
        ];
        assert_eq!(jmeter_instants(&p, 0), jmeter);
        // rate(0) random_arrivals(2 s) rate(10/s) random_arrivals(1 s) rate(2/s)
        // even_arrivals(2 s) rate(0), seed 7: rising and falling ramps, then an even one.
        let p = process(&[(true, 0.0, 10.0, 2.0), (true, 10.0, 2.0, 1.0), (false, 2.0, 0.0, 2.0)], 7);
        let jmeter =
            [577, 695, 1180, 1186, 1683, 1710, 1731, 1844, 1894, 1927, 2233, 2312, 2381, 2496, 2642, 2785, 3000, 3586];
        assert_eq!(jmeter_instants(&p, 0), jmeter);
        // rate(0) even_arrivals(2 s) rate(10 per sec) pause(500 ms) rate(1.5/s)
        // even_arrivals(1 s) even_arrivals(1 s): each step counts from its own start, 3.7 is 3.
        let p = process(
            &[(false, 0.0, 10.0, 2.0), (false, 0.0, 0.0, 0.5), (false, 1.5, 1.5, 1.0), (false, 1.5, 1.5, 1.0)],
            1,
        );
        assert_eq!(jmeter_instants(&p, 0), [0, 632, 894, 1095, 1265, 1414, 1549, 1673, 1789, 1897, 2500, 3500]);
    }

    #[test]
    fn an_open_model_schedule_is_its_instants_cut_at_its_length() {
        let mut w = OpenWorkload {
            start_rate: 20.0,
            stages: vec![Stage { target: 20.0, duration: Duration::from_secs(3) }],
            pre_allocated_users: 1,
            max_users: 60,
            start_delay: Duration::ZERO,
            graceful_stop: Duration::ZERO,
            process: Some(process(&[(true, 20.0, 20.0, 3.0)], 42)),
        };
        let s = ArrivalSchedule::for_workload(&w, 0);
        assert_eq!(s.total(), 60);
        assert_eq!(s.due(0), Some(Duration::from_millis(94)));
        assert_eq!(s.due(59), Some(Duration::from_millis(2922)));
        assert_eq!(s.due(60), None);
        assert_eq!(s.arrivals_before(Duration::from_millis(517)), 2);
        assert_eq!(s.arrivals_before(Duration::from_millis(518)), 3);
        // `--duration 1s` cuts the stages: the instants after it are not made.
        w.stages[0].duration = Duration::from_secs(1);
        assert_eq!(ArrivalSchedule::for_workload(&w, 0).total(), 13);
        // Seed 0: the fallback seed draws, the same count.
        w.process.as_mut().unwrap().seed = 0;
        w.stages[0].duration = Duration::from_secs(3);
        assert_eq!(ArrivalSchedule::for_workload(&w, 42).due(0), Some(Duration::from_millis(94)));
    }

    #[test]
    fn constant_rate() {
        let s = ArrivalSchedule::new(500.0, &[st(500.0, 5.0)]);
        assert_eq!(s.total(), 2500);
        assert_eq!(ms(s.due(0)), Some(0.0));
        assert_eq!(ms(s.due(1)), Some(2.0));
        assert_eq!(ms(s.due(2499)), Some(4998.0));
        assert_eq!(s.due(2500), None);
    }

    #[test]
    fn ramp_from_zero_and_plateau() {
        // 0 → 100/s over 10s (500 arrivals), then 100/s for 10s (1000 arrivals).
        let s = ArrivalSchedule::new(0.0, &[st(100.0, 10.0), st(100.0, 10.0)]);
        assert_eq!(s.total(), 1500);
        // N(t) = 5 t², so arrival 125 is at t = 5s, arrival 500 starts the plateau at 10s.
        assert_eq!(ms(s.due(125)), Some(5000.0));
        assert_eq!(ms(s.due(500)), Some(10_000.0));
        assert_eq!(ms(s.due(600)), Some(11_000.0));
        assert_eq!(s.due(1500), None);
    }

    #[test]
    fn ramp_down_and_zero_stage() {
        let s = ArrivalSchedule::new(200.0, &[st(0.0, 2.0), st(0.0, 5.0), st(10.0, 2.0)]);
        assert_eq!(s.total(), 200 + 10);
        // N(t) = 200 t − 50 t²: N = 150 at t = 1.
        assert_eq!(ms(s.due(150)), Some(1000.0));
        // Arrivals resume only in the last stage (after 7s): N(t) = 2.5 t², N=1 at t≈0.632.
        assert_eq!(ms(s.due(200)), Some(7000.0));
        let d = s.due(201).unwrap().as_secs_f64();
        assert!((d - (7.0 + (1.0f64 / 2.5).sqrt())).abs() < 1e-6, "{d}");
    }

    #[test]
    fn arrivals_before_inverts_due() {
        let s = ArrivalSchedule::new(10.0, &[st(1000.0, 3.0), st(50.0, 2.0), st(0.0, 1.0), st(20.0, 1.0)]);
        for n in 0..s.total() - 1 {
            let (a, b) = (s.due(n).unwrap(), s.due(n + 1).unwrap());
            if b - a > Duration::from_micros(2) {
                // Between two arrivals, exactly the first n + 1 are due.
                assert_eq!(s.arrivals_before(a + (b - a) / 2), n + 1, "between arrivals {n} and {}", n + 1);
            }
        }
        assert_eq!(s.arrivals_before(Duration::ZERO), 0);
        assert_eq!(s.arrivals_before(Duration::from_secs(100)), s.total());
        let c = ArrivalSchedule::new(1e9, &[st(1e9, 10.0)]);
        assert_eq!(c.arrivals_before(Duration::from_secs(1)), 1_000_000_000);
    }

    #[test]
    fn issue31_a_schedule_past_u64_arrivals_ends_at_its_saturated_total() {
        let s = ArrivalSchedule::new(1e300, &[st(1e300, 2.0)]);
        assert_eq!(s.total(), u64::MAX);
        assert!(s.due(u64::MAX - 1).is_some());
        assert_eq!(s.due(u64::MAX), None, "the last count ends the schedule, though an f64 cannot tell it apart");
        assert_eq!(s.arrivals_before(Duration::from_secs(1)), u64::MAX);
    }

    #[test]
    fn due_is_monotonic() {
        let s = ArrivalSchedule::new(10.0, &[st(1000.0, 3.0), st(50.0, 2.0), st(50.0, 1.0)]);
        let mut last = Duration::ZERO;
        for n in 0..s.total() {
            let d = s.due(n).expect("within total");
            assert!(d >= last, "arrival {n}");
            last = d;
        }
        assert!(s.due(s.total()).is_none());
    }
}
