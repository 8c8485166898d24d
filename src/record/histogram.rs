//! [`Histogram`]: HdrHistogram's buckets (1 µs to 1 h, 3 significant digits), stored in the
//! memory they use. Every bucket, quantile and merge is exactly what `hdrhistogram::Histogram`
//! with the same bounds gives (the tests compare them on random data); only the storage differs.
//!
//! Why: a full-range HdrHistogram is a 23,552-counter array (184 KiB) from its first sample,
//! and a run holds one per label in every recorder shard, the collector and the run's totals.
//! Plans that put IDs into labels have thousands of labels with a few samples each: 1,000
//! labels took 930 MiB. Of the options measured for `bench/labels`:
//! - auto-resizing HdrHistograms with a small initial range still allocate whole 1,024-counter
//!   buckets (a label at 1–100 ms needs 7 of them: 56 KiB), and u32 counters only halve that;
//! - freeing idle shards' histograms helps the shards but not the totals, where every label
//!   that ever had a sample keeps its histogram;
//! - storing only the buckets used costs 8 bytes per distinct bucket: a label with 100 samples
//!   takes under 1 KiB, whatever their spread. That is what this type does.
//!
//! Two forms: *sparse*, a sorted `Vec<u64>` of `(bucket index << 48) | count` (one word per
//! used bucket, found by binary search), and *dense*, HdrHistogram's own counts array, which a
//! histogram switches to once more than a quarter of its buckets are used: from there the array
//! is smaller, and recording is one index. The sparse form holds at most 2⁴⁸ samples in total
//! (so no bucket's count can overflow its 48 bits); a larger total switches to dense too.
//!
//! Recording allocates only when a sample lands in a bucket not used since the histogram was
//! last cleared and the vector is full (or at the switch to dense). A recorder's shard clears
//! its histograms each interval and keeps their memory, so after the first intervals recording
//! does not allocate.
//!
//! The interval log stores histograms in HdrHistogram's V2 format (deflated); [`encode_v2`]
//! writes the same bytes `hdrhistogram::serialization::V2DeflateSerializer` writes for the same
//! counts, and [`decode_v2`] reads them (and the uncompressed V2 form) without building the full
//! array, so run directories stay readable by older and newer versions alike.
//!
//! [`encode_v2`]: Histogram::encode_v2
//! [`decode_v2`]: Histogram::decode_v2

use super::stats::HISTOGRAM_MAX_US;
use std::io::{Read, Write};

/// Bits of a sparse entry that hold its count; the bucket index is above them.
const COUNT_BITS: u32 = 48;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

const V2_COOKIE: u32 = 0x1c84_9303 | 0x10;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9304 | 0x10;
const V2_HEADER_SIZE: usize = 40;

/// HdrHistogram's layout for a lowest discernible value of 1, [`HISTOGRAM_MAX_US`] as the
/// highest trackable value, and `sigfig` significant digits.
struct Layout {
    /// log2 of half the sub-buckets per bucket.
    half_mag: u32,
    /// Values below this land in bucket 0.
    sub_bucket_mask: u64,
    leading_zero_count_base: u32,
    /// Length of HdrHistogram's counts array.
    len: usize,
}

const fn layout(sigfig: u8) -> Layout {
    let largest = 2 * 10u64.pow(sigfig as u32);
    // ceil(log2(largest)): the sub-bucket count is the power of two at or above it.
    let sub_bucket_count_magnitude = 64 - (largest - 1).leading_zeros();
    let sub_bucket_count = 1u64 << sub_bucket_count_magnitude;
    let mut smallest_untrackable = sub_bucket_count;
    let mut buckets = 1u64;
    while smallest_untrackable <= HISTOGRAM_MAX_US {
        smallest_untrackable <<= 1;
        buckets += 1;
    }
    let half_mag = sub_bucket_count_magnitude - 1;
    Layout {
        half_mag,
        sub_bucket_mask: sub_bucket_count - 1,
        leading_zero_count_base: 64 - sub_bucket_count_magnitude,
        len: ((buckets + 1) << half_mag) as usize,
    }
}

/// Elapsed times (µs) in HdrHistogram's buckets at `SIGFIG` significant digits; see the module
/// doc. `Histogram::default()` is empty and allocates nothing.
#[derive(Clone, Default)]
pub struct Histogram<const SIGFIG: u8 = 3> {
    total: u64,
    counts: Counts,
}

#[derive(Clone)]
enum Counts {
    /// `(index << COUNT_BITS) | count`, sorted by index, no zero counts.
    Sparse(Vec<u64>),
    /// HdrHistogram's counts array.
    Dense(Box<[u64]>),
}

impl Default for Counts {
    fn default() -> Self {
        Counts::Sparse(Vec::new())
    }
}

/// Equal when they hold the same counts, whichever form each is in.
impl<const SIGFIG: u8> PartialEq for Histogram<SIGFIG> {
    fn eq(&self, other: &Self) -> bool {
        self.total == other.total && self.entries().eq(other.entries())
    }
}

impl<const SIGFIG: u8> Eq for Histogram<SIGFIG> {}

impl<const SIGFIG: u8> std::fmt::Debug for Histogram<SIGFIG> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let form = match &self.counts {
            Counts::Sparse(e) => format!("sparse, {} buckets", e.len()),
            Counts::Dense(_) => "dense".to_string(),
        };
        write!(f, "Histogram({} samples, {form})", self.total)
    }
}

/// One used bucket, as `hdrhistogram`'s recorded iterator shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bucket {
    /// The highest value the bucket holds.
    pub value: u64,
    pub count: u64,
}

impl<const SIGFIG: u8> Histogram<SIGFIG> {
    const LAYOUT: Layout = layout(SIGFIG);
    /// A sparse histogram with more entries than this becomes dense.
    const DENSE_AT: usize = Self::LAYOUT.len / 4;

    /// An empty histogram.
    pub fn new() -> Self {
        Self::default()
    }

    /// HdrHistogram's counts index of `value`; a value past the array lands in the bucket of
    /// the highest trackable value (`saturating_record`).
    #[inline]
    fn index(value: u64) -> usize {
        let l = &Self::LAYOUT;
        let bucket = l.leading_zero_count_base - (value | l.sub_bucket_mask).leading_zeros();
        let sub_bucket = value >> bucket;
        let index = (((bucket as u64) + 1) << l.half_mag) + sub_bucket - (1 << l.half_mag);
        if index < l.len as u64 {
            index as usize
        } else {
            Self::index(HISTOGRAM_MAX_US)
        }
    }

    /// The lowest value of the bucket at `index`.
    fn value_at_index(index: usize) -> u64 {
        let half_mag = Self::LAYOUT.half_mag;
        let half = 1u64 << half_mag;
        let bucket = (index >> half_mag) as i64 - 1;
        let sub_bucket = (index as u64 & (half - 1)) + half;
        if bucket < 0 {
            sub_bucket - half
        } else {
            sub_bucket << bucket
        }
    }

    fn bucket_of(value: u64) -> u32 {
        let l = &Self::LAYOUT;
        l.leading_zero_count_base - (value | l.sub_bucket_mask).leading_zeros()
    }

    /// The lowest value counted in the same bucket as `value`.
    pub(crate) fn lowest_equivalent(value: u64) -> u64 {
        let b = Self::bucket_of(value);
        (value >> b) << b
    }

    /// The highest value counted in the same bucket as `value`.
    pub(crate) fn highest_equivalent(value: u64) -> u64 {
        if value == u64::MAX {
            return u64::MAX;
        }
        Self::lowest_equivalent(value).saturating_add(1 << Self::bucket_of(value)) - 1
    }

    /// Adds one sample of `value`; values past the top land in the top bucket.
    #[inline]
    pub fn record(&mut self, value: u64) {
        self.record_n(value, 1);
    }

    /// Adds `n` samples of `value`.
    pub(crate) fn record_n(&mut self, value: u64, n: u64) {
        if n == 0 {
            return;
        }
        let index = Self::index(value);
        self.add_at(index, n);
    }

    #[inline]
    fn add_at(&mut self, index: usize, n: u64) {
        if matches!(self.counts, Counts::Sparse(_)) && self.total.saturating_add(n) > COUNT_MASK {
            self.densify();
        }
        self.total = self.total.saturating_add(n);
        match &mut self.counts {
            Counts::Dense(c) => c[index] = c[index].saturating_add(n),
            Counts::Sparse(e) => match e.binary_search_by(|x| (x >> COUNT_BITS).cmp(&(index as u64))) {
                // The sparse total is at most COUNT_MASK, so no count overflows its bits.
                Ok(at) => e[at] += n,
                Err(at) => {
                    e.insert(at, ((index as u64) << COUNT_BITS) | n);
                    if e.len() > Self::DENSE_AT {
                        self.densify();
                    }
                }
            },
        }
    }

    fn densify(&mut self) {
        if let Counts::Sparse(e) = &self.counts {
            let mut dense = vec![0u64; Self::LAYOUT.len].into_boxed_slice();
            for x in e {
                dense[(x >> COUNT_BITS) as usize] = x & COUNT_MASK;
            }
            self.counts = Counts::Dense(dense);
        }
    }

    /// Adds every sample of `other` (HdrHistogram's `add`, which cannot fail here).
    pub fn add(&mut self, other: &Self) {
        if other.total == 0 {
            return;
        }
        let sparse_total_overflows = self.total.saturating_add(other.total) > COUNT_MASK;
        if sparse_total_overflows || matches!(other.counts, Counts::Dense(_)) {
            self.densify();
        }
        self.total = self.total.saturating_add(other.total);
        match (&mut self.counts, &other.counts) {
            (Counts::Dense(c), Counts::Dense(o)) => {
                c.iter_mut().zip(o.iter()).for_each(|(a, b)| *a = a.saturating_add(*b))
            }
            (Counts::Dense(c), Counts::Sparse(o)) => {
                for x in o {
                    let i = (x >> COUNT_BITS) as usize;
                    c[i] = c[i].saturating_add(x & COUNT_MASK);
                }
            }
            (Counts::Sparse(s), Counts::Sparse(o)) => {
                merge_sorted(s, o);
                if s.len() > Self::DENSE_AT {
                    self.densify();
                }
            }
            (Counts::Sparse(_), Counts::Dense(_)) => unreachable!("made dense above"),
        }
    }

    /// Empties the histogram, keeping its memory (a shard reuses it next interval).
    pub fn clear(&mut self) {
        if self.total == 0 {
            return;
        }
        self.total = 0;
        match &mut self.counts {
            Counts::Sparse(e) => e.clear(),
            Counts::Dense(c) => c.fill(0),
        }
    }

    /// Samples recorded.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Used buckets as `(index, count)`, in index order.
    fn entries(&self) -> Box<dyn Iterator<Item = (usize, u64)> + '_> {
        match &self.counts {
            Counts::Sparse(e) => Box::new(e.iter().map(|x| ((x >> COUNT_BITS) as usize, x & COUNT_MASK))),
            Counts::Dense(c) => Box::new(c.iter().enumerate().filter(|(_, n)| **n > 0).map(|(i, n)| (i, *n))),
        }
    }

    /// Used buckets in value order, each with its highest value (HdrHistogram's
    /// `iter_recorded` and `value_iterated_to`).
    pub(crate) fn iter_recorded(&self) -> impl Iterator<Item = Bucket> + '_ {
        self.entries().map(|(i, count)| Bucket { value: Self::highest_equivalent(Self::value_at_index(i)), count })
    }

    /// HdrHistogram's `value_at_quantile`, to the bit: the highest value of the bucket that
    /// holds the ⌈q·n⌉-th sample (the lowest for `q == 0`); 0 when empty.
    pub fn value_at_quantile(&self, quantile: f64) -> u64 {
        let quantile = if quantile > 1.0 { 1.0 } else { quantile };
        let fractional_count = quantile * self.total as f64;
        let count_at_quantile = (fractional_count.ceil() as u64).max(1);
        let mut seen = 0u64;
        for (i, n) in self.entries() {
            seen += n;
            if seen >= count_at_quantile {
                let v = Self::value_at_index(i);
                return if quantile == 0.0 { Self::lowest_equivalent(v) } else { Self::highest_equivalent(v) };
            }
        }
        0
    }

    /// Heap bytes held (for tests and the module doc's figures).
    pub fn heap_bytes(&self) -> usize {
        match &self.counts {
            Counts::Sparse(e) => e.capacity() * 8,
            Counts::Dense(c) => c.len() * 8,
        }
    }

    /// Appends HdrHistogram's V2 deflate encoding (what `V2DeflateSerializer` writes).
    pub fn encode_v2(&self, out: &mut Vec<u8>) {
        let mut v2 = Vec::with_capacity(V2_HEADER_SIZE + 16);
        v2.extend_from_slice(&V2_COOKIE.to_be_bytes());
        v2.extend_from_slice(&0u32.to_be_bytes()); // payload length, set below
        v2.extend_from_slice(&0u32.to_be_bytes()); // normalizing index offset
        v2.extend_from_slice(&u32::from(SIGFIG).to_be_bytes());
        v2.extend_from_slice(&1u64.to_be_bytes());
        v2.extend_from_slice(&HISTOGRAM_MAX_US.to_be_bytes());
        v2.extend_from_slice(&1.0f64.to_be_bytes());
        // Counts from index 0 through the last used one; a run of zeros is one negative number.
        let mut next = 0usize;
        for (i, n) in self.entries() {
            match i - next {
                0 => {}
                1 => write_varint(0, &mut v2),
                zeros => write_varint(zig_zag(-(zeros as i64)), &mut v2),
            }
            write_varint(zig_zag(n.min(i64::MAX as u64) as i64), &mut v2);
            next = i + 1;
        }
        if next == 0 {
            write_varint(0, &mut v2);
        }
        let payload = (v2.len() - V2_HEADER_SIZE) as u32;
        v2[4..8].copy_from_slice(&payload.to_be_bytes());
        let start = out.len();
        out.extend_from_slice(&V2_COMPRESSED_COOKIE.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
        let mut z = flate2::write::ZlibEncoder::new(&mut *out, flate2::Compression::default());
        z.write_all(&v2).expect("writing to a Vec cannot fail");
        z.finish().expect("writing to a Vec cannot fail");
        let compressed = (out.len() - start - 8) as u32;
        out[start + 4..start + 8].copy_from_slice(&compressed.to_be_bytes());
    }

    /// Reads HdrHistogram's V2 encoding, deflated or not, of a histogram with this layout (1 µs
    /// to 1 h at `SIGFIG` digits: what every stampede version writes). Sizes are checked against
    /// the bytes given, never trusted.
    pub(crate) fn decode_v2(bytes: &[u8]) -> Result<Self, DecodeError> {
        let cookie = be_u32(bytes, 0)?;
        let inflated;
        let v2 = match cookie {
            V2_COOKIE => bytes,
            V2_COMPRESSED_COOKIE => {
                let len = be_u32(bytes, 4)? as usize;
                let body = bytes.get(8..8 + len).ok_or(DecodeError::CompressedPastEnd)?;
                // The longest legal encoding: a header and 9 bytes per count.
                let limit = (V2_HEADER_SIZE + 9 * Self::LAYOUT.len) as u64;
                let mut buf = Vec::new();
                flate2::read::ZlibDecoder::new(body)
                    .take(limit + 1)
                    .read_to_end(&mut buf)
                    .map_err(|e| DecodeError::Inflate(e.to_string()))?;
                if buf.len() as u64 > limit {
                    return Err(DecodeError::InflatedTooLarge);
                }
                inflated = buf;
                &inflated[..]
            }
            _ => return Err(DecodeError::NotV2),
        };
        if be_u32(v2, 0)? != V2_COOKIE {
            return Err(DecodeError::NotV2);
        }
        let payload_len = be_u32(v2, 4)? as usize;
        let (offset, digits) = (be_u32(v2, 8)?, be_u32(v2, 12)?);
        let (low, high) = (be_u64(v2, 16)?, be_u64(v2, 24)?);
        let ratio = f64::from_bits(be_u64(v2, 32)?);
        if offset != 0 || ratio != 1.0 || digits != u32::from(SIGFIG) || low != 1 || high != HISTOGRAM_MAX_US {
            return Err(DecodeError::Layout { low, high, digits, offset, ratio, expected: SIGFIG });
        }
        let payload = v2.get(V2_HEADER_SIZE..V2_HEADER_SIZE + payload_len).ok_or(DecodeError::PayloadPastEnd)?;
        let mut h = Self::default();
        let (mut at, mut index) = (0usize, 0usize);
        while at < payload.len() {
            let (zz, used) = read_varint(&payload[at..]).ok_or(DecodeError::CountCutShort)?;
            at += used;
            let n = un_zig_zag(zz);
            if n < 0 {
                index = index.saturating_add(n.unsigned_abs() as usize);
                continue;
            }
            if n > 0 {
                if index >= Self::LAYOUT.len {
                    return Err(DecodeError::TooManyCounts);
                }
                h.add_at(index, n as u64);
            }
            index += 1;
        }
        Ok(h)
    }
}

/// Why bytes are not a histogram [`Histogram::decode_v2`] can read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum DecodeError {
    #[error("not an HdrHistogram V2 encoding")]
    NotV2,
    #[error("the histogram's header is cut short")]
    HeaderCutShort,
    #[error("the compressed length is past the end of the data")]
    CompressedPastEnd,
    #[error("cannot inflate: {0}")]
    Inflate(String),
    #[error("the inflated histogram is larger than any histogram of its range")]
    InflatedTooLarge,
    /// A histogram of another range or precision than stampede's.
    #[error(
        "a histogram of {low}..{high} µs at {digits} digits (offset {offset}, ratio {ratio}); \
         expected 1..{HISTOGRAM_MAX_US} µs at {expected} digits"
    )]
    Layout { low: u64, high: u64, digits: u32, offset: u32, ratio: f64, expected: u8 },
    #[error("the payload length is past the end of the data")]
    PayloadPastEnd,
    #[error("a count is cut short")]
    CountCutShort,
    #[error("more counts than the histogram's range holds")]
    TooManyCounts,
}

/// Merges sorted `o` into sorted `s` in place, adding the counts of equal indexes. Works from
/// the back, so it needs no second buffer.
fn merge_sorted(s: &mut Vec<u64>, o: &[u64]) {
    let key = |x: u64| x >> COUNT_BITS;
    let n = s.len();
    s.resize(n + o.len(), 0);
    let (mut i, mut j, mut w) = (n, o.len(), n + o.len());
    // `w - i` is the number of `o` entries still to place plus the merges so far: never below
    // zero, so a write never lands on an entry of `s` not read yet.
    while j > 0 {
        w -= 1;
        if i > 0 && key(s[i - 1]) > key(o[j - 1]) {
            s[w] = s[i - 1];
            i -= 1;
        } else if i > 0 && key(s[i - 1]) == key(o[j - 1]) {
            // Both counts fit: the caller keeps the sparse total within COUNT_MASK.
            s[w] = s[i - 1] + (o[j - 1] & COUNT_MASK);
            i -= 1;
            j -= 1;
        } else {
            s[w] = o[j - 1];
            j -= 1;
        }
    }
    if w > i {
        let end = s.len();
        s.copy_within(w..end, i);
        s.truncate(i + (end - w));
    }
}

fn be_u32(b: &[u8], at: usize) -> Result<u32, DecodeError> {
    let bytes = b.get(at..at + 4).ok_or(DecodeError::HeaderCutShort)?;
    Ok(u32::from_be_bytes(bytes.try_into().expect("4 bytes")))
}

fn be_u64(b: &[u8], at: usize) -> Result<u64, DecodeError> {
    let bytes = b.get(at..at + 8).ok_or(DecodeError::HeaderCutShort)?;
    Ok(u64::from_be_bytes(bytes.try_into().expect("8 bytes")))
}

fn zig_zag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn un_zig_zag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// HdrHistogram's variant of LEB128: 7 bits a byte, except a 9th byte carries 8.
fn write_varint(mut v: u64, out: &mut Vec<u8>) {
    for _ in 0..8 {
        if v < 0x80 {
            out.push(v as u8);
            return;
        }
        out.push(0x80 | (v & 0x7f) as u8);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..8 {
        let byte = *b.get(i)?;
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    Some((v | u64::from(*b.get(8)?) << 56, 9))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::serialization::{Deserializer, Serializer as _, V2DeflateSerializer, V2Serializer};

    type Hdr = hdrhistogram::Histogram<u64>;

    fn hdr(sigfig: u8) -> Hdr {
        Hdr::new_with_bounds(1, HISTOGRAM_MAX_US, sigfig).unwrap()
    }

    /// xorshift64*: deterministic random data without a dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        /// Latency-like values: log-uniform over 1 µs .. ~2 h (past the top, to test clamping),
        /// sometimes 0.
        fn value(&mut self) -> u64 {
            let r = self.next();
            if r % 97 == 0 {
                return 0;
            }
            let magnitude = (r >> 8) % 43; // 2^0 .. 2^42
            let base = 1u64 << magnitude;
            base + (self.next() % base)
        }
        /// Clustered values: a label's latencies around one level.
        fn clustered(&mut self, centre: u64) -> u64 {
            centre + self.next() % (centre / 4 + 1)
        }
    }

    fn assert_same<const S: u8>(mine: &Histogram<S>, theirs: &Hdr, context: &str) {
        assert_eq!(mine.len(), theirs.len(), "{context}: len");
        for q in [0.0, 0.000_1, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.999_9, 1.0, 1.5, -0.5] {
            assert_eq!(mine.value_at_quantile(q), theirs.value_at_quantile(q), "{context}: quantile {q}");
        }
        let a: Vec<(u64, u64)> = mine.iter_recorded().map(|b| (b.value, b.count)).collect();
        let b: Vec<(u64, u64)> = theirs.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        assert_eq!(a, b, "{context}: buckets");
    }

    #[test]
    fn layout_matches_hdrhistogram() {
        assert_eq!(Histogram::<3>::LAYOUT.len, hdr(3).distinct_values());
        assert_eq!(Histogram::<2>::LAYOUT.len, hdr(2).distinct_values());
        let h = hdr(3);
        for v in [0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 123_456, HISTOGRAM_MAX_US, u64::MAX / 2] {
            assert_eq!(Histogram::<3>::lowest_equivalent(v), h.lowest_equivalent(v), "{v}");
            assert_eq!(Histogram::<3>::highest_equivalent(v), h.highest_equivalent(v), "{v}");
        }
    }

    #[test]
    fn quantiles_and_buckets_equal_hdrhistogram_on_random_data() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..40 {
            let (mut mine, mut theirs) = (Histogram::<3>::new(), hdr(3));
            let n = [1, 2, 10, 100, 1000, 30_000][round % 6];
            let centre = 1 + rng.next() % 5_000_000;
            for _ in 0..n {
                let v = if round % 2 == 0 { rng.value() } else { rng.clustered(centre) };
                mine.record(v);
                theirs.saturating_record(v);
            }
            assert_same(&mine, &theirs, &format!("round {round}, {n} samples"));
        }
        // The 2-digit layout the report's charts use.
        let (mut mine, mut theirs) = (Histogram::<2>::new(), hdr(2));
        for _ in 0..20_000 {
            let v = rng.value();
            mine.record(v);
            theirs.saturating_record(v);
        }
        assert_same(&mine, &theirs, "2 digits");
    }

    #[test]
    fn merges_equal_hdrhistogram_merges_in_every_form() {
        let mut rng = Rng(42);
        // Sizes on both sides of the switch to dense, merged in every order.
        let sizes = [0, 1, 50, 3_000, 40_000];
        for &a in &sizes {
            for &b in &sizes {
                let (mut ma, mut ta) = (Histogram::<3>::new(), hdr(3));
                let (mut mb, mut tb) = (Histogram::<3>::new(), hdr(3));
                for _ in 0..a {
                    let v = rng.value();
                    ma.record(v);
                    ta.saturating_record(v);
                }
                for _ in 0..b {
                    let (v, n) = (rng.clustered(20_000), 1 + rng.next() % 3);
                    mb.record_n(v, n);
                    tb.saturating_record_n(v, n);
                }
                ma.add(&mb);
                ta.add(&tb).unwrap();
                assert_same(&ma, &ta, &format!("{a} + {b}"));
            }
        }
    }

    #[test]
    fn sparse_until_a_quarter_of_the_buckets_are_used() {
        let mut h = Histogram::<3>::new();
        assert_eq!(h.heap_bytes(), 0);
        for v in 1..=1000 {
            h.record(v * 10);
        }
        assert!(matches!(h.counts, Counts::Sparse(_)));
        assert!(h.heap_bytes() <= 1024 * 8, "{}", h.heap_bytes());
        for i in 0..Histogram::<3>::DENSE_AT {
            h.record(Histogram::<3>::value_at_index(i + 3000));
        }
        assert!(matches!(h.counts, Counts::Dense(_)));
        // Cleared, it keeps its memory.
        h.clear();
        assert!(h.is_empty() && matches!(h.counts, Counts::Dense(_)));
        assert_eq!(h.value_at_quantile(0.5), 0);
    }

    #[test]
    fn recording_after_clear_does_not_allocate() {
        let mut h = Histogram::<3>::new();
        for v in 1..200 {
            h.record(v * 37);
        }
        let bytes = h.heap_bytes();
        let ptr = match &h.counts {
            Counts::Sparse(e) => e.as_ptr(),
            Counts::Dense(_) => unreachable!(),
        };
        h.clear();
        for v in (1..200).rev() {
            h.record(v * 37);
        }
        assert_eq!(h.heap_bytes(), bytes);
        assert!(matches!(&h.counts, Counts::Sparse(e) if e.as_ptr() == ptr));
    }

    #[test]
    fn huge_totals_stay_exact() {
        let (mut mine, mut theirs) = (Histogram::<3>::new(), hdr(3));
        mine.record_n(500, COUNT_MASK);
        theirs.saturating_record_n(500, COUNT_MASK);
        mine.record_n(500, 10);
        theirs.saturating_record_n(500, 10);
        let mut other = Histogram::<3>::new();
        other.record_n(700, COUNT_MASK);
        mine.add(&other);
        theirs.saturating_record_n(700, COUNT_MASK);
        assert_same(&mine, &theirs, "past 2^48");
    }

    #[test]
    fn encoding_is_the_bytes_hdrhistogram_writes_and_reads_both_ways() {
        let mut rng = Rng(7);
        for n in [0usize, 1, 5, 500, 20_000] {
            let (mut mine, mut theirs) = (Histogram::<3>::new(), hdr(3));
            for _ in 0..n {
                let v = rng.clustered(3_000);
                mine.record(v);
                theirs.saturating_record(v);
            }
            let mut ours = Vec::new();
            mine.encode_v2(&mut ours);
            let mut reference = Vec::new();
            V2DeflateSerializer::new().serialize(&theirs, &mut reference).unwrap();
            assert_eq!(ours, reference, "{n} samples");
            // What older versions wrote, this one reads; what this one writes, they read.
            assert_eq!(Histogram::<3>::decode_v2(&reference).unwrap(), mine);
            let read: Hdr = Deserializer::new().deserialize(&mut ours.as_slice()).unwrap();
            assert_same(&mine, &read, "read back by hdrhistogram");
            // The uncompressed V2 form too.
            let mut plain = Vec::new();
            V2Serializer::new().serialize(&theirs, &mut plain).unwrap();
            assert_eq!(Histogram::<3>::decode_v2(&plain).unwrap(), mine);
        }
    }

    #[test]
    fn bad_encodings_are_errors_not_allocations() {
        let mut h = Histogram::<3>::new();
        h.record(1234);
        let mut good = Vec::new();
        h.encode_v2(&mut good);
        assert!(Histogram::<3>::decode_v2(&good[..10]).is_err());
        assert!(Histogram::<3>::decode_v2(b"nonsense").is_err());
        // A header declaring a 2 GiB payload that is not there.
        let mut plain = Vec::new();
        V2Serializer::new().serialize(&hdr(3), &mut plain).unwrap();
        plain[4..8].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
        assert!(Histogram::<3>::decode_v2(&plain).unwrap_err().to_string().contains("past the end"));
        // Another layout.
        let mut other = Vec::new();
        V2DeflateSerializer::new().serialize(&hdr(2), &mut other).unwrap();
        assert!(Histogram::<3>::decode_v2(&other).unwrap_err().to_string().contains("2 digits"));
    }
}
