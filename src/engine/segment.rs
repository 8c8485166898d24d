//! [`Segment`]: this process's share (from, to] of every workload, so that several generators
//! can run one plan and together make exactly the traffic one would (k6's execution segments).
//!
//! A segment is one of a *sequence* of segments that cut [0, 1]: `i/N` is the i-th of N equal
//! ones, `a:b` is (a, b] of the sequence 0, a, b, 1. Every index of a workload (a closed user,
//! an open-model arrival, a pre-allocated or maximum user) belongs to exactly one segment of the
//! sequence: indices are dealt to the segments in a pattern that repeats every `period` indices
//! (the least common denominator of the cuts), each segment getting its share of every period,
//! spread as evenly as a smooth weighted round robin spreads them (equal segments: round robin).
//! So the segments' counts add up to the whole for any count, including counts that are not a
//! multiple of the number of segments, and an index keeps its timing (a user its ramp-up start,
//! an arrival its due time) in whichever segment runs it. A share of a small count may be 0
//! (2 maximum users in 3 segments are 1, 1 and 0): an open model's segment without users
//! counts each of its arrivals as dropped.

use std::borrow::Cow;
use std::fmt;

/// The longest pattern a sequence may have (the least common denominator of its cuts).
const MAX_PERIOD: u64 = 1_000_000;

/// A fraction `num/den` in [0, 1], kept reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num/den`, reduced; `None` when `den` is 0 or the fraction is above 1.
    pub fn new(num: u64, den: u64) -> Option<Ratio> {
        if den == 0 || num > den {
            return None;
        }
        let g = gcd(num, den);
        Some(Ratio { num: num / g, den: den / g })
    }

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
pub enum SegmentError {
    #[error("`{0}` is not a segment: expected `i/N` (1 <= i <= N) or `from:to` (fractions, from < to)")]
    Syntax(String),
    #[error("the segment sequence must rise from 0 to 1 ({0})")]
    Sequence(String),
    #[error("the segment sequence repeats only every {0} indices (more than {MAX_PERIOD}): use simpler fractions")]
    Period(u64),
}

/// This process's share of every workload: (from, to] of a sequence of segments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    from: Ratio,
    to: Ratio,
    /// The dealing pattern repeats every `period` indices ...
    period: u64,
    /// ... and these positions in it (ascending) are this segment's.
    owned: Cow<'static, [u64]>,
}

impl Segment {
    /// The whole workload: a local run.
    pub const FULL: Segment = Segment { from: Ratio::ZERO, to: Ratio::ONE, period: 1, owned: Cow::Borrowed(&[0]) };

    /// The `i`-th (1-based) of `n` equal segments: ((i − 1)/n, i/n].
    pub fn nth(i: u32, n: u32) -> Result<Segment, SegmentError> {
        if i == 0 || i > n {
            return Err(SegmentError::Syntax(format!("{i}/{n}")));
        }
        let cuts: Vec<Ratio> = (0..=n).filter_map(|k| Ratio::new(u64::from(k), u64::from(n))).collect();
        Segment::of_sequence(&cuts, i as usize - 1)
    }

    /// Segment `index` (0-based) of the sequence whose cuts are `cuts` (0 first, 1 last, rising).
    pub fn of_sequence(cuts: &[Ratio], index: usize) -> Result<Segment, SegmentError> {
        let shown = || cuts.iter().map(Ratio::to_string).collect::<Vec<_>>().join(", ");
        let rising = cuts.windows(2).all(|w| w[0].lt(w[1]));
        if cuts.first() != Some(&Ratio::ZERO) || cuts.last() != Some(&Ratio::ONE) || !rising || index + 1 >= cuts.len()
        {
            return Err(SegmentError::Sequence(shown()));
        }
        let mut period = 1u64;
        for c in cuts {
            period = period / gcd(period, c.den) * c.den;
            if period > MAX_PERIOD {
                return Err(SegmentError::Period(period));
            }
        }
        // Each segment's slots per period, dealt by a smooth weighted round robin (ties to the
        // first segment): every prefix of the pattern holds each segment's share to within one.
        let weights: Vec<i64> =
            cuts.windows(2).map(|w| ((w[1].num * period / w[1].den) - (w[0].num * period / w[0].den)) as i64).collect();
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

    /// Reads `i/N` (the i-th of N equal segments) or `from:to` (fractions or 0 and 1; the
    /// sequence is 0, from, to, 1).
    pub fn parse(s: &str) -> Result<Segment, SegmentError> {
        let bad = || SegmentError::Syntax(s.to_string());
        let ratio = |t: &str| -> Result<Ratio, SegmentError> {
            let t = t.trim();
            let (n, d) = t.split_once('/').unwrap_or((t, "1"));
            let (n, d) = (n.trim().parse().map_err(|_| bad())?, d.trim().parse().map_err(|_| bad())?);
            Ratio::new(n, d).ok_or_else(bad)
        };
        match s.split_once(':') {
            Some((a, b)) => {
                let (from, to) = (ratio(a)?, ratio(b)?);
                if !from.lt(to) {
                    return Err(bad());
                }
                let mut cuts = vec![Ratio::ZERO];
                cuts.extend([from, to].into_iter().filter(|c| *c != Ratio::ZERO && *c != Ratio::ONE));
                cuts.push(Ratio::ONE);
                let index = usize::from(from != Ratio::ZERO);
                Segment::of_sequence(&cuts, index)
            }
            None => {
                let (i, n) = s.split_once('/').ok_or_else(bad)?;
                let (i, n) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
                Segment::nth(i, n)
            }
        }
    }

    /// Whether this is the whole workload.
    pub fn is_full(&self) -> bool {
        self.from == Ratio::ZERO && self.to == Ratio::ONE
    }

    /// The share's bounds (from, to].
    pub fn bounds(&self) -> (Ratio, Ratio) {
        (self.from, self.to)
    }

    /// Whether index `k` of a workload (a user, an arrival) is this segment's.
    pub fn owns(&self, k: u64) -> bool {
        self.owned.binary_search(&(k % self.period)).is_ok()
    }

    /// How many of the indices `0..v` are this segment's: its share of a count of `v`.
    pub fn count_below(&self, v: u64) -> u64 {
        let rest = v % self.period;
        v / self.period * self.owned.len() as u64 + self.owned.partition_point(|&p| p < rest) as u64
    }

    /// The first index at or after `k` that is this segment's.
    pub fn next_owned(&self, k: u64) -> u64 {
        let (base, rest) = (k - k % self.period, k % self.period);
        match self.owned.get(self.owned.partition_point(|&p| p < rest)) {
            Some(p) => base + p,
            None => base + self.period + self.owned[0],
        }
    }

    /// This segment's share of a number of users.
    pub fn scale(&self, v: u32) -> u32 {
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
    fn ten_users_in_three_segments() {
        let split: Vec<u32> = (1..=3).map(|i| Segment::nth(i, 3).unwrap().scale(10)).collect();
        assert_eq!(split, [4, 3, 3]);
        assert!(Segment::nth(1, 3).unwrap().owns(0) && Segment::nth(2, 3).unwrap().owns(1));
    }

    #[test]
    fn parsing() {
        assert_eq!(Segment::parse("2/3").unwrap(), Segment::nth(2, 3).unwrap());
        assert_eq!(Segment::parse("1/3:2/3").unwrap(), Segment::nth(2, 3).unwrap());
        assert_eq!(Segment::parse("0:1").unwrap(), Segment::FULL);
        assert_eq!(Segment::parse("1/1").unwrap(), Segment::FULL);
        assert_eq!(Segment::parse("0:1/2").unwrap().scale(5), 3);
        assert_eq!(Segment::parse("1/2:1").unwrap().scale(5), 2);
        assert_eq!(Segment::parse("0:1/3").unwrap().to_string(), "0:1/3");
        for bad in ["", "3", "0/3", "4/3", "1/0", "2/3:1/3", "x:1", "1/2:1/2"] {
            assert!(Segment::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(
            Segment::parse("0:1/999983").and_then(|_| Segment::parse("1/999983:1/999979")),
            Err(SegmentError::Period(_))
        ));
    }
}
