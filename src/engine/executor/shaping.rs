//! [`Pacer`]: the turn of each sample in a Throughput Shaping Timer's schedule, shared by every
//! user it is in scope of. As the plugin's `VariableThroughputTimer.delay()`: the schedule's
//! second `s` (from the first sample) has the rate `r = rate_at(s)`; the k-th sample of that
//! second may start `⌈k × 1000 / r⌉` ms into it while that is before its last ms, so a second
//! has ⌊0.999 r⌋ + 1 samples (at a rate of 0 one passes: the plugin's `0 × ∞` is NaN, which
//! does not delay). A turn is never in a second already over: a sample that comes late takes
//! the turns of the second it comes in, none are caught up. Past the schedule there is no
//! turn: when the first second past it begins, the plugin stops the thread group.

use crate::plan::Shaper;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub(crate) struct Pacer {
    shaper: Shaper,
    /// The schedule's start: the first sample's time.
    start: Option<Instant>,
    /// The second whose turns are being given, its rate, and the turns given in it.
    second: u64,
    rate: Option<f64>,
    given: u64,
}

impl Pacer {
    pub(crate) fn new(shaper: Shaper) -> Pacer {
        Pacer { shaper, start: None, second: 0, rate: None, given: 0 }
    }

    /// When a sample asking at `now` may start (`now` or later), or, once the schedule has no
    /// turn left, `Err` of when it ends (the start of its first second past the last).
    pub(crate) fn turn(&mut self, now: Instant) -> Result<Instant, Instant> {
        let start = *self.start.get_or_insert_with(|| {
            self.rate = self.shaper.rate_at(0);
            now
        });
        let current = now.saturating_duration_since(start).as_secs();
        if current > self.second {
            self.enter(current);
        }
        loop {
            let Some(rate) = self.rate else {
                return Err((start + Duration::from_secs(self.second)).max(now));
            };
            let k = self.given as f64;
            let turns = if rate > 0.0 { (0.999 * rate).floor() + 1.0 } else { 1.0 };
            if k < turns {
                self.given += 1;
                let ms = if rate > 0.0 { (k * 1000.0 / rate).ceil() } else { 0.0 };
                let at = start + Duration::from_secs(self.second) + Duration::from_millis(ms as u64);
                return Ok(at.max(now));
            }
            self.enter(self.second + 1);
        }
    }

    fn enter(&mut self, second: u64) {
        self.second = second;
        self.rate = self.shaper.rate_at(second);
        self.given = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::workload::ShapeRow;

    fn pacer(rows: &[(f64, f64, u64)]) -> Pacer {
        Pacer::new(Shaper {
            name: "tst".into(),
            rows: rows.iter().map(|&(from, to, secs)| ShapeRow { from, to, secs }).collect(),
        })
    }

    #[test]
    fn turns_follow_the_rate_of_each_second() {
        // 4/s for 1 s: seconds 0 and 1 at 4/s; then 2.5/s for its one second (3 turns).
        let mut p = pacer(&[(4.0, 4.0, 1), (2.5, 2.5, 1)]);
        let t0 = Instant::now();
        let turns: Vec<u128> = std::iter::from_fn(|| p.turn(t0).ok()).map(|t| (t - t0).as_millis()).collect();
        assert_eq!(turns, [0, 250, 500, 750, 1000, 1250, 1500, 1750, 2000, 2400, 2800]);
        // Asked for after the last turn: the schedule ends when its third second is over.
        assert_eq!(p.turn(t0), Err(t0 + Duration::from_secs(3)));
        assert_eq!(p.turn(t0 + Duration::from_secs(5)), Err(t0 + Duration::from_secs(5)));
    }

    #[test]
    fn late_samples_take_the_turns_of_their_own_second_and_zero_lets_one_pass() {
        let mut p = pacer(&[(10.0, 10.0, 2), (0.0, 0.0, 2)]);
        let t0 = Instant::now();
        assert_eq!(p.turn(t0), Ok(t0));
        // Asking 1.5 s in: second 1's turns, each passing at once while under its rate.
        let at = |ms| t0 + Duration::from_millis(ms);
        assert_eq!(p.turn(at(1500)), Ok(at(1500)));
        assert_eq!(p.turn(at(1500)), Ok(at(1500)));
        // Seconds 3 and 4 run at 0/s: one sample each passes, at the second's start.
        let mut from_3 = Vec::new();
        while let Ok(t) = p.turn(at(3000)) {
            from_3.push((t - t0).as_millis());
        }
        assert_eq!(from_3, [3000, 4000]);
    }
}
