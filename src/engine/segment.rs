//! [`Segment`]: this process's share (from, to] of every workload, so that several generators
//! can run one plan and together make exactly the traffic one would (k6's execution segments).
//!
//! A segment is one of a *sequence* of segments that cut [0, 1]: `i/N` is the i-th of N equal
//! ones; [`Segment::of_sequence`] takes any sequence. (A bare `a:b` is not read: which indices
//! (a, b] owns depends on the whole sequence, so several processes each given only their own
//! bounds could run some indices twice and others never.) Every index of a workload (a closed user,
//! an open-model arrival, a pre-allocated or maximum user) belongs to exactly one segment of the
//! sequence: indices are dealt to the segments in a pattern that repeats every `period` indices
//! (the least common denominator of the cuts), each segment getting its share of every period,
//! spread as evenly as a smooth weighted round robin spreads them (equal segments: round robin).
//! So the segments' counts add up to the whole for any count, including counts that are not a
//! multiple of the number of segments, and an index keeps its timing (a user its ramp-up start,
//! an arrival its due time) in whichever segment runs it. A share of a small count may be 0
//! (2 maximum users in 3 segments are 1, 1 and 0): an open model's segment without users
//! counts each of its arrivals as dropped.
//!
//! What a segment splits is users and arrivals. Plan-level rates and totals that a process
//! keeps for itself are not split: a shared constant-throughput timer, a throughput shaping
//! timer's schedule, a throughput controller's total (`run --segment` warns of them), and a
//! data file's rows (each process reads the whole file, as each JMeter server does).

use std::borrow::Cow;
use std::fmt;

/// The longest pattern a sequence may have (the least common denominator of its cuts).
#[cfg(test)]
const MAX_PERIOD: u64 = 1_000_000;
/// The most segments an uneven sequence may have (dealing its pattern costs period × segments).
#[cfg(test)]
const MAX_SEGMENTS: usize = 1_000;

/// A fraction `num/den` in [0, 1], kept reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    pub(crate) const ZERO: Ratio = Ratio { num: 0, den: 1 };
    pub(crate) const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num/den`, reduced; `None` when `den` is 0 or the fraction is above 1.
    pub(crate) fn new(num: u64, den: u64) -> Option<Ratio> {
        if den == 0 || num > den {
            return None;
        }
        let g = gcd(num, den);
        Some(Ratio { num: num / g, den: den / g })
    }

    #[cfg(test)]
    fn lt(self, other: Ratio) -> bool {
        u128::from(self.num) * u128::from(other.den) < u128::from(other.num) * u128::from(self.den)
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// Why a segment could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SegmentError {
    #[error("`{0}` is not a segment: expected `i/N` (the i-th of N equal segments, 1 <= i <= N)")]
    Syntax(String),
    #[error("the segment sequence must rise from 0 to 1 in at most {MAX_SEGMENTS} segments ({0})")]
    #[cfg(test)]
    Sequence(String),
    #[error("the segment sequence repeats only every {0} indices (more than {MAX_PERIOD}): use simpler fractions")]
    #[cfg(test)]
    Period(u64),
}

/// This process's share of every workload: (from, to] of a sequence of segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    from: Ratio,
    to: Ratio,
    /// The dealing pattern repeats every `period` indices ...
    period: u64,
    /// ... and these positions in it (ascending) are this segment's.
    owned: Cow<'static, [u64]>,
}

impl Segment {
    /// The whole workload: a local run.
    pub(crate) const FULL: Segment =
        Segment { from: Ratio::ZERO, to: Ratio::ONE, period: 1, owned: Cow::Borrowed(&[0]) };

    /// The `i`-th (1-based) of `n` equal segments: ((i − 1)/n, i/n].
    pub(crate) fn nth(i: u32, n: u32) -> Result<Segment, SegmentError> {
        if i == 0 || i > n {
            return Err(SegmentError::Syntax(format!("{i}/{n}")));
        }
        // Equal shares deal round robin (what `of_sequence` deals for equal weights), which needs
        // no pattern to be built, however large `n` is.
        let (i, n) = (u64::from(i), u64::from(n));
        let (from, to) = (Ratio::new(i - 1, n), Ratio::new(i, n));
        let (Some(from), Some(to)) = (from, to) else { return Err(SegmentError::Syntax(format!("{i}/{n}"))) };
        Ok(Segment { from, to, period: n, owned: Cow::Owned(vec![i - 1]) })
    }

    /// Segment `index` (0-based) of the sequence whose cuts are `cuts` (0 first, 1 last, rising).
    #[cfg(test)]
    pub(crate) fn of_sequence(cuts: &[Ratio], index: usize) -> Result<Segment, SegmentError> {
        let shown = || cuts.iter().map(Ratio::to_string).collect::<Vec<_>>().join(", ");
        let rising = cuts.windows(2).all(|w| w[0].lt(w[1]));
        if cuts.first() != Some(&Ratio::ZERO)
            || cuts.last() != Some(&Ratio::ONE)
            || !rising
            || index + 1 >= cuts.len()
            || cuts.len() > MAX_SEGMENTS + 1
        {
            return Err(SegmentError::Sequence(shown()));
        }
        let mut period = 1u64;
        for c in cuts {
            period = (period / gcd(period, c.den)).saturating_mul(c.den);
            if period > MAX_PERIOD {
                return Err(SegmentError::Period(period));
            }
        }
        // Each segment's slots per period, dealt by a smooth weighted round robin (ties to the
        // first segment): every prefix of the pattern holds each segment's share to within one.
        let weights: Vec<i64> =
            // Each cut's denominator divides the period and num <= den: no product exceeds it.
            cuts.windows(2).map(|w| (w[1].num * (period / w[1].den) - w[0].num * (period / w[0].den)) as i64).collect();
        let mut current = vec![0i64; weights.len()];
        let mut owned = Vec::new();
        for p in 0..period {
            for (c, w) in current.iter_mut().zip(&weights) {
                *c += w;
            }
            let best = (0..current.len()).fold(0, |b, j| if current[j] > current[b] { j } else { b });
            current[best] -= period as i64;
            if best == index {
                owned.push(p);
            }
        }
        Ok(Segment { from: cuts[index], to: cuts[index + 1], period, owned: Cow::Owned(owned) })
    }

    /// Reads `i/N`: the i-th of N equal segments.
    pub(crate) fn parse(s: &str) -> Result<Segment, SegmentError> {
        let bad = || SegmentError::Syntax(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (i, n) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        Segment::nth(i, n).map_err(|_| bad())
    }

    /// Whether this is the whole workload.
    pub(crate) fn is_full(&self) -> bool {
        self.from == Ratio::ZERO && self.to == Ratio::ONE
    }

    /// Whether index `k` of a workload (a user, an arrival) is this segment's.
    pub(crate) fn owns(&self, k: u64) -> bool {
        self.owned.binary_search(&(k % self.period)).is_ok()
    }

    /// How many of the indices `0..v` are this segment's: its share of a count of `v`.
    pub(crate) fn count_below(&self, v: u64) -> u64 {
        let rest = v % self.period;
        v / self.period * self.owned.len() as u64 + self.owned.partition_point(|&p| p < rest) as u64
    }

    /// The first index at or after `k` that is this segment's; `u64::MAX` when there is none
    /// below it, which no schedule reaches (an index is below its total): a distributed run
    /// of a total near `u64::MAX` ends its schedule there instead of wrapping to its start.
    pub(crate) fn next_owned(&self, k: u64) -> u64 {
        let (base, rest) = (k - k % self.period, k % self.period);
        let next = match self.owned.get(self.owned.partition_point(|&p| p < rest)) {
            Some(p) => base.checked_add(*p),
            None => base.checked_add(self.period).and_then(|b| b.checked_add(self.owned[0])),
        };
        next.unwrap_or(u64::MAX)
    }

    /// This segment's share of a number of users.
    pub(crate) fn scale(&self, v: u32) -> u32 {
        self.count_below(u64::from(v)) as u32
    }
}

impl Default for Segment {
    fn default() -> Self {
        Segment::FULL
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.from, self.to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sequences() -> Vec<Vec<Segment>> {
        let mut out: Vec<Vec<Segment>> =
            (1..=7).map(|n| (1..=n).map(|i| Segment::nth(i, n).unwrap()).collect()).collect();
        let r = |n, d| Ratio::new(n, d).unwrap();
        let uneven = [Ratio::ZERO, r(1, 4), r(1, 3), r(5, 6), Ratio::ONE];
        out.push((0..4).map(|i| Segment::of_sequence(&uneven, i).unwrap()).collect());
        out
    }

    #[test]
    fn every_index_belongs_to_exactly_one_segment() {
        for seq in sequences() {
            for k in 0..500 {
                assert_eq!(seq.iter().filter(|s| s.owns(k)).count(), 1, "index {k} in {seq:?}");
            }
            for v in 0..200 {
                assert_eq!(seq.iter().map(|s| s.count_below(v)).sum::<u64>(), v);
                for s in &seq {
                    assert_eq!(s.count_below(v), (0..v).filter(|&k| s.owns(k)).count() as u64);
                    // Each share is within one of its exact fraction of the count.
                    let exact = v as f64 * (s.to.num as f64 / s.to.den as f64 - s.from.num as f64 / s.from.den as f64);
                    assert!((s.count_below(v) as f64 - exact).abs() < 1.0 + 1e-9, "{s} of {v}");
                }
            }
            for s in &seq {
                for k in 0..100 {
                    let next = s.next_owned(k);
                    assert!(next >= k && s.owns(next) && (k..next).all(|j| !s.owns(j)), "{s} after {k}");
                }
            }
        }
    }

    #[test]
    fn issue31_the_next_index_near_u64_max_ends_the_schedule_not_wraps() {
        for (i, n) in [(1, 3), (2, 3), (3, 3), (2, 7), (5, 7), (1, 2)] {
            let s = Segment::nth(i, n).unwrap();
            for k in (u64::MAX - 20)..=u64::MAX {
                let next = s.next_owned(k);
                assert!(next >= k, "{s} after {k}: {next}");
                assert!(next == u64::MAX || (s.owns(next) && (k..next).all(|j| !s.owns(j))), "{s} after {k}");
            }
        }
    }

    #[test]
    fn ten_users_in_three_segments() {
        let split: Vec<u32> = (1..=3).map(|i| Segment::nth(i, 3).unwrap().scale(10)).collect();
        assert_eq!(split, [4, 3, 3]);
        assert!(Segment::nth(1, 3).unwrap().owns(0) && Segment::nth(2, 3).unwrap().owns(1));
    }

    #[test]
    fn parsing() {
        assert_eq!(Segment::parse("2/3").unwrap(), Segment::nth(2, 3).unwrap());
        assert_eq!(Segment::parse(" 2 / 3 ").unwrap().to_string(), "1/3:2/3");
        assert_eq!(Segment::parse("1/1").unwrap(), Segment::FULL);
        assert_eq!(Segment::parse("1/2").unwrap().scale(5), 3);
        assert_eq!(Segment::parse("2/2").unwrap().scale(5), 2);
        // A bare `from:to` is refused: its indices depend on the rest of the sequence.
        for bad in ["", "3", "0/3", "4/3", "1/0", "1/3:2/3", "0:1", "x/1", "1/5000000000", "-1/3"] {
            assert!(matches!(Segment::parse(bad), Err(SegmentError::Syntax(_))), "{bad}");
        }
    }

    #[test]
    fn equal_segments_are_round_robin_at_any_count() {
        // Made directly, not by dealing a pattern: a million segments cost nothing.
        let s = Segment::nth(7, 1_000_000).unwrap();
        assert!(s.owns(6) && s.owns(1_000_006) && !s.owns(7));
        assert_eq!(s.count_below(3_000_000), 3);
        assert_eq!(Segment::parse("1/4000000000").unwrap().count_below(4_000_000_000), 1);
        let r = |n, d| Ratio::new(n, d).unwrap();
        for n in 1..=7u32 {
            let cuts: Vec<Ratio> = (0..=u64::from(n)).map(|k| r(k, u64::from(n))).collect();
            for i in 1..=n {
                assert_eq!(
                    Segment::nth(i, n).unwrap().owned,
                    Segment::of_sequence(&cuts, i as usize - 1).unwrap().owned
                );
            }
        }
    }

    #[test]
    fn sequences_too_long_or_too_fine_are_refused_without_overflow() {
        let r = |n, d| Ratio::new(n, d).unwrap();
        let huge = 9_223_372_036_854_775_809u64;
        let cuts = [Ratio::ZERO, r(1, 2), r(huge - 1, huge), Ratio::ONE];
        assert!(matches!(Segment::of_sequence(&cuts, 1), Err(SegmentError::Period(_))));
        let cuts = [Ratio::ZERO, r(1, 999_983), r(1, 999_979), Ratio::ONE];
        assert!(matches!(Segment::of_sequence(&cuts, 0), Err(SegmentError::Period(_))));
        let many: Vec<Ratio> = (0..=2000).map(|k| r(k, 2000)).collect();
        assert!(matches!(Segment::of_sequence(&many, 0), Err(SegmentError::Sequence(_))));
    }
}
