//! [`Arrivals`]: the instants of a Precise Throughput Timer, as JMeter's
//! `ConstantPoissonProcessGenerator` makes them: each period of `duration` seconds holds
//! ⌈rate × duration⌉ instants (rate over the batch size), drawn uniformly with Java's `Random`
//! and sorted, so a seeded timer gives JMeter's very instants; each call takes the next one, the
//! items of a batch sharing theirs. A schedule that yields nothing (a rate or a period of 0)
//! is JMeter's `BufferUnderflowException`: no instant at all.

use crate::plan::Arrivals;

/// `java.util.Random`: a 48-bit linear congruential generator.
#[derive(Debug, Clone)]
pub(crate) struct JavaRandom {
    seed: u64,
}

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const MASK: u64 = (1 << 48) - 1;

impl JavaRandom {
    pub(crate) fn new(seed: i64) -> JavaRandom {
        JavaRandom { seed: (seed as u64 ^ MULTIPLIER) & MASK }
    }

    fn next(&mut self, bits: u32) -> u64 {
        self.seed = (self.seed.wrapping_mul(MULTIPLIER).wrapping_add(0xB)) & MASK;
        self.seed >> (48 - bits)
    }

    /// `Random.nextDouble()`: 53 random bits in [0, 1).
    pub(crate) fn next_double(&mut self) -> f64 {
        ((self.next(26) << 27) + self.next(27)) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Below this the rate reads as changed and a new period is drawn (JMeter's `PRECISION`); a
/// fixed rate so differs only from the 0 it starts from.
const PRECISION: f64 = 0.00001;

#[derive(Debug)]
pub(crate) struct Generator {
    spec: Arrivals,
    rnd: JavaRandom,
    batch_item: i32,
    last_rate: f64,
    /// Where the next period starts, in seconds from the test's start.
    finish: f64,
    events: Vec<f64>,
    next: usize,
}

impl Generator {
    /// `fallback_seed` stands for `new Random()`'s own seed when the timer sets none.
    pub(crate) fn new(spec: Arrivals, fallback_seed: i64) -> Generator {
        // JMeter seeds only with a seed whose low 32 bits are not all 0 (`seed.intValue() != 0`).
        let seed = spec.seed.filter(|&s| s as i32 != 0).unwrap_or(fallback_seed);
        Generator {
            spec,
            rnd: JavaRandom::new(seed),
            batch_item: 0,
            last_rate: 0.0,
            finish: 0.0,
            events: Vec::new(),
            next: 0,
        }
    }

    fn generate(&mut self) {
        let mut rate = self.spec.per_sec;
        self.last_rate = rate;
        if self.spec.batch > 1 {
            rate /= f64::from(self.spec.batch);
        }
        self.batch_item = 0;
        let duration = self.spec.duration;
        // Java's `(int)` of a double: saturating, NaN 0; the reader bounds it far lower.
        let samples = (rate * duration as f64).ceil().max(0.0) as i32;
        self.events.clear();
        for _ in 0..samples {
            self.events.push(self.finish + self.rnd.next_double() * duration as f64);
        }
        self.events.sort_by(f64::total_cmp);
        self.finish += duration as f64;
        self.next = 0;
    }

    fn get(&mut self) -> Option<f64> {
        let e = self.events.get(self.next).copied()?;
        self.next += 1;
        Some(e)
    }

    /// The next arrival, in seconds from the test's start; `None` when there is none.
    pub(crate) fn next(&mut self) -> Option<f64> {
        if (self.batch_item == 0 && self.next >= self.events.len())
            || (self.spec.per_sec - self.last_rate).abs() >= PRECISION
        {
            self.generate();
        }
        if self.spec.batch == 1 {
            return self.get();
        }
        self.batch_item += 1;
        if self.batch_item == 1 {
            return self.get();
        }
        if self.batch_item == self.spec.batch {
            self.batch_item = 0;
        }
        // The other items of a batch share the instant the first took.
        self.next.checked_sub(1).and_then(|i| self.events.get(i).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(per_sec: f64, duration: i64, batch: i32, seed: Option<i64>) -> Arrivals {
        Arrivals { name: "ptt".into(), per_sec, duration, batch, seed }
    }

    #[test]
    fn java_random_gives_javas_doubles() {
        // `new java.util.Random(42).nextDouble()`, twice.
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_double(), 0.7275636800328681);
        assert_eq!(r.next_double(), 0.6832234717598454);
    }

    #[test]
    fn each_period_holds_a_round_count_of_sorted_arrivals_within_it() {
        let mut g = Generator::new(spec(2.5, 4, 1, Some(7)), 0);
        let first: Vec<f64> = (0..10).map(|_| g.next().unwrap()).collect();
        assert!(first.windows(2).all(|w| w[0] <= w[1]), "{first:?}");
        assert!(first.iter().all(|&t| (0.0..4.0).contains(&t)), "{first:?}");
        let second: Vec<f64> = (0..10).map(|_| g.next().unwrap()).collect();
        assert!(second.iter().all(|&t| (4.0..8.0).contains(&t)), "{second:?}");
    }

    #[test]
    fn a_seed_gives_the_same_instants_and_a_low_zero_seed_is_no_seed() {
        let draw = |seed, fallback| {
            let mut g = Generator::new(spec(10.0, 1, 1, seed), fallback);
            (0..10).map(|_| g.next().unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(draw(Some(5), 1), draw(Some(5), 2));
        assert_ne!(draw(Some(1 << 32), 1), draw(Some(1 << 32), 2));
    }

    #[test]
    fn a_batch_shares_each_instant_and_divides_the_rate() {
        let mut g = Generator::new(spec(6.0, 1, 3, Some(3)), 0);
        let t: Vec<f64> = (0..6).map(|_| g.next().unwrap()).collect();
        assert_eq!((t[0], t[0]), (t[1], t[2]));
        assert_eq!((t[3], t[3]), (t[4], t[5]));
        assert!(t[3] >= t[0] && t[5] < 1.0);
        // 6 a second in batches of 3: two instants a period, the third batch in the next.
        assert!(g.next().unwrap() >= 1.0);
    }

    #[test]
    fn a_rate_or_a_period_of_zero_has_no_arrival() {
        assert_eq!(Generator::new(spec(0.0, 10, 1, None), 1).next(), None);
        assert_eq!(Generator::new(spec(5.0, 0, 1, None), 1).next(), None);
    }

    #[test]
    fn a_batch_size_of_zero_repeats_the_first_instant_for_ever() {
        let mut g = Generator::new(spec(1.0, 10, 0, Some(9)), 0);
        let first = g.next().unwrap();
        assert!((0..50).all(|_| g.next() == Some(first)));
    }
}
