//! LogHistogram: distribution of non-negative integer samples (delays and jitter in ns) in fixed
//! log-linear buckets, HdrHistogram-style (Tene, "HdrHistogram": exact buckets below 2^SUB_BITS,
//! then 2^SUB_BITS equal sub-buckets per power of two). With SUB_BITS = 4 (16 sub-buckets) a
//! bucket midpoint is within 1/32 (3.1%) of any value in the bucket. Range: exact buckets for
//! 0..16 ns, log-linear up to 2^40 ns (~1100 s); larger values land in the top bucket (min, max
//! and mean stay exact). `record` is O(1).
//!
//! Storage holds only the span of buckets between the lowest and the highest one recorded so far
//! (a delay distribution spans a few octaves: tens of buckets, not all 592), grown on the rare
//! record outside it. An empty histogram allocates nothing, so the thousands of flows and links
//! of a large run pay for what they record, and a record touches one cache line of a small
//! array. Zeros are counted apart, never in the span: an interval rate is 0 whenever a flow or
//! link was idle, and a span from 0 to a device's 100 kbit/s would be 224 buckets (1.8 KB) for
//! a distribution that fills three (W5's 36,000 streamed rate histograms held 53 MB at 20 s).

const SUB_BITS: u32 = 4;
const SUB: u64 = 1 << SUB_BITS; // sub-buckets per power of two
const MAX_POW: u32 = 40; // values below 2^MAX_POW are bucketed without clamping
/// Number of buckets: SUB exact ones, then SUB per power of two from SUB_BITS to MAX_POW-1.
pub const BUCKETS: usize = (SUB + (MAX_POW - SUB_BITS) as u64 * SUB) as usize;

#[derive(Clone, Debug)]
pub struct LogHistogram {
    /// Counts of buckets `lo .. lo + buckets.len()`, all above bucket 0 (`lo ≥ 1` once any is
    /// stored).
    buckets: Vec<u64>,
    lo: usize,
    /// Count of bucket 0, the value 0.
    zeros: u64,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        Self::new()
    }
}

#[inline]
fn index_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let p = 63 - v.leading_zeros(); // highest set bit, >= SUB_BITS
    if p >= MAX_POW {
        return BUCKETS - 1;
    }
    let sub = (v >> (p - SUB_BITS)) & (SUB - 1);
    (SUB + (p - SUB_BITS) as u64 * SUB + sub) as usize
}

/// Smallest value and width of bucket `i` (it holds the integers lo..lo+width).
#[inline]
fn bounds_of(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let shift = (i - SUB) / SUB; // p - SUB_BITS
    let sub = (i - SUB) % SUB;
    ((SUB + sub) << shift, 1 << shift)
}

impl LogHistogram {
    pub fn new() -> Self {
        LogHistogram { buckets: Vec::new(), lo: 0, zeros: 0, count: 0, sum: 0, min: u64::MAX, max: 0 }
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.record_all(std::iter::once(v));
    }

    /// `record` of every value in order, with the same result. The count, sum, minimum and
    /// maximum are carried in locals across the batch: written back per value, as `record`
    /// must, each was a load that waited on the previous value's store (LLVM cannot tell that a
    /// bucket increment leaves them alone). Detailed flows record their delays this way.
    #[inline]
    pub fn record_all(&mut self, values: impl IntoIterator<Item = u64>) {
        let (mut count, mut sum, mut min, mut max) = (self.count, self.sum, self.min, self.max);
        for v in values {
            let i = index_of(v);
            match self.buckets.get_mut(i.wrapping_sub(self.lo)) {
                Some(c) => *c += 1,
                // Inline, not the cold call: an idle link's queueing delay is 0 for every packet.
                None if i == 0 => self.zeros += 1,
                None => self.add_outside(i, 1),
            }
            count += 1;
            sum += v as u128;
            min = min.min(v);
            max = max.max(v);
        }
        (self.count, self.sum, self.min, self.max) = (count, sum, min, max);
    }

    /// Add `n` to bucket `i`, which lies outside the stored span: count a zero apart, else widen
    /// the span to hold it. (Bucket 0 is never in the span, so a lookup of a zero always misses;
    /// `record_all` counts its zeros itself, `merge`'s land here.)
    #[cold]
    fn add_outside(&mut self, i: usize, n: u64) {
        if i == 0 {
            self.zeros += n;
        } else if self.buckets.is_empty() {
            self.lo = i;
            self.buckets.push(n);
        } else if i < self.lo {
            let grow = self.lo - i;
            self.buckets.splice(0..0, std::iter::repeat_n(0, grow));
            self.lo = i;
            self.buckets[0] += n;
        } else {
            self.buckets.resize(i - self.lo + 1, 0);
            self.buckets[i - self.lo] += n;
        }
    }

    /// (bucket index, count) of every stored bucket, ascending.
    fn stored(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let zeros = (self.zeros > 0).then_some((0, self.zeros));
        zeros.into_iter().chain(self.buckets.iter().enumerate().map(move |(k, &c)| (self.lo + k, c)))
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact mean of the recorded values; 0 when empty.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Exact minimum; 0 when empty.
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min
        }
    }

    /// Exact maximum; 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Value at quantile `q` (clamped to [0, 1]): the midpoint of the bucket holding the sample of
    /// rank ceil(q·count) (rank 1 for q = 0), clamped to [min, max]; ranks 1 and count give the
    /// exact min and max. 0 when empty. O(BUCKETS).
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        if rank == 1 {
            return self.min as f64;
        }
        if rank == self.count {
            return self.max as f64;
        }
        let mut seen = 0;
        for (i, c) in self.stored() {
            seen += c;
            if seen >= rank {
                let (lo, w) = bounds_of(i);
                let mid = lo as f64 + (w - 1) as f64 / 2.0;
                return mid.clamp(self.min as f64, self.max as f64);
            }
        }
        self.max as f64
    }

    /// Adds all samples of `other` (same fixed layout, so bucket-wise addition is exact).
    pub fn merge(&mut self, other: &LogHistogram) {
        for (i, c) in other.stored().filter(|&(_, c)| c > 0) {
            match self.buckets.get_mut(i.wrapping_sub(self.lo)) {
                Some(a) => *a += c,
                None => self.add_outside(i, c),
            }
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Non-empty buckets as (lowest value, highest value inclusive, count), ascending; for plots
    /// and export of the distribution.
    pub fn nonzero_buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.stored().filter(|&(_, c)| c > 0).map(|(i, c)| {
            let (lo, w) = bounds_of(i);
            (lo, lo + (w - 1), c)
        })
    }
}

/// Equal when they hold the same samples' buckets and statistics, whatever span each stores.
impl PartialEq for LogHistogram {
    fn eq(&self, other: &Self) -> bool {
        (self.count, self.sum, self.min, self.max) == (other.count, other.sum, other.min, other.max)
            && self.nonzero_buckets().eq(other.nonzero_buckets())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_spans_only_the_recorded_buckets_in_either_direction() {
        let mut h = LogHistogram::new();
        assert!(h.buckets.is_empty());
        h.record(1_000_000);
        assert_eq!(h.buckets.len(), 1);
        h.record(1_000);
        h.record(4_000_000);
        assert_eq!((h.lo, h.buckets.len()), (index_of(1_000), index_of(4_000_000) - index_of(1_000) + 1));
        let mut dense = LogHistogram::new();
        let values = [1_000u64, 4_000_000, 1_000_000, 999, 17];
        values.iter().for_each(|&v| dense.record(v));
        let mut sparse = LogHistogram::new();
        values.iter().rev().for_each(|&v| sparse.record(v));
        assert_eq!(dense, sparse);
        assert_eq!(dense.nonzero_buckets().map(|b| b.2).sum::<u64>(), 5);
    }

    #[test]
    fn zeros_are_counted_apart_and_do_not_widen_the_span() {
        let mut h = LogHistogram::new();
        for v in [0u64, 100_000, 0, 0, 98_000, 0] {
            h.record(v);
        }
        // The two non-zero buckets' range only, not the 220-odd buckets from 0 up.
        assert_eq!((h.lo, h.buckets.len()), (index_of(98_000), index_of(100_000) - index_of(98_000) + 1));
        assert_eq!(h.nonzero_buckets().next(), Some((0, 0, 4)));
        assert_eq!((h.quantile(0.5), h.quantile(0.66)), (0.0, 0.0)); // ranks 3 and 4 of 6
        let (lo, w) = bounds_of(index_of(98_000));
        assert_eq!(h.quantile(0.7), lo as f64 + (w - 1) as f64 / 2.0); // rank 5
        let mut m = LogHistogram::new();
        m.record(7);
        m.merge(&h);
        assert_eq!(m.nonzero_buckets().next(), Some((0, 0, 4)));
        assert_eq!(m.lo, index_of(7));
    }

    proptest::proptest! {
        /// Whatever the order, and with zeros among the values, the stored buckets are the
        /// values' own: each value counted once in the bucket `index_of` gives it.
        #[test]
        fn buckets_count_each_value_once_in_its_own_bucket(
            values in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just(0u64), 1u64..64, 0u64..(1 << 42)], 0..200)
        ) {
            let mut h = LogHistogram::new();
            values.iter().for_each(|&v| h.record(v));
            let mut expected = std::collections::BTreeMap::new();
            for &v in &values {
                *expected.entry(index_of(v)).or_insert(0u64) += 1;
            }
            let got: Vec<_> = h.stored().filter(|&(_, c)| c > 0).collect();
            proptest::prop_assert_eq!(got, expected.into_iter().collect::<Vec<_>>());
            proptest::prop_assert!(h.buckets.is_empty() || h.lo >= 1);
        }
    }

    #[test]
    fn every_value_maps_into_a_bucket_whose_bounds_contain_it() {
        let mut v = 0u64;
        while v < (1u64 << MAX_POW) {
            let (lo, w) = bounds_of(index_of(v));
            assert!(lo <= v && v < lo + w, "v={v} lo={lo} w={w}");
            assert!((w as f64 / 2.0) <= (lo as f64 / 32.0).max(0.5), "bucket too wide at {v}");
            v = v * 3 / 2 + 1;
        }
        assert_eq!(index_of(u64::MAX), BUCKETS - 1);
        assert_eq!(index_of((1 << MAX_POW) - 1), BUCKETS - 1);
    }

    #[test]
    fn quantiles_of_uniform_1_to_100000_are_within_7_percent() {
        let mut h = LogHistogram::new();
        for v in 1..=100_000u64 {
            h.record(v);
        }
        for &q in &[0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999] {
            let exact = (q * 100_000.0f64).ceil();
            let got = h.quantile(q);
            assert!((got - exact).abs() / exact <= 0.07, "q={q} got={got} exact={exact}");
        }
        assert_eq!(h.quantile(0.0), 1.0);
        assert_eq!(h.quantile(1.0), 100_000.0);
    }

    #[test]
    fn mean_min_max_and_count_are_exact() {
        let mut h = LogHistogram::new();
        for v in [7u64, 1_000_003, 42, 5_000_000_000_000, 0] {
            h.record(v);
        }
        assert_eq!((h.count(), h.min(), h.max()), (5, 0, 5_000_000_000_000));
        assert_eq!(h.mean(), (7 + 1_000_003 + 42 + 5_000_000_000_000u64) as f64 / 5.0);
    }

    #[test]
    fn empty_gives_zeros_single_sample_is_exact_and_small_values_are_exact() {
        let mut h = LogHistogram::new();
        assert_eq!((h.count(), h.min(), h.max(), h.mean(), h.quantile(0.5)), (0, 0, 0, 0., 0.));
        h.record(12_345_678);
        assert_eq!(h.quantile(0.5), 12_345_678.0);
        let mut s = LogHistogram::new();
        [3u64, 3, 9, 9, 9].iter().for_each(|&v| s.record(v));
        assert_eq!((s.quantile(0.4), s.quantile(0.6)), (3.0, 9.0));
    }

    #[test]
    fn merge_equals_recording_everything_into_one() {
        let (mut a, mut b, mut all) = (LogHistogram::new(), LogHistogram::new(), LogHistogram::new());
        (0..5000u64).for_each(|v| a.record(v * v + 3));
        (5000..9000u64).for_each(|v| b.record(v * 7));
        (0..5000u64).chain(5000..9000).for_each(|v| all.record(if v < 5000 { v * v + 3 } else { v * 7 }));
        a.merge(&b);
        assert_eq!(a, all);
        let mut e = LogHistogram::new();
        e.merge(&LogHistogram::new());
        assert_eq!(e, LogHistogram::new());
    }

    #[test]
    fn nonzero_buckets_sum_to_count() {
        let mut h = LogHistogram::new();
        for v in [1u64, 1, 100, 1_000_000] {
            h.record(v);
        }
        let b: Vec<_> = h.nonzero_buckets().collect();
        assert_eq!(b.len(), 3);
        assert_eq!(b.iter().map(|x| x.2).sum::<u64>(), 4);
        assert_eq!(b[0], (1, 1, 2));
    }
}
