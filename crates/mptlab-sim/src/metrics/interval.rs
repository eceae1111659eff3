//! IntervalBins: bytes per fixed time interval, and the rate series derived from them.
//! Per flow it measures application goodput (bytes delivered in order to the receiving
//! application); per link, wire throughput (bytes crossing the link, headers included). Source:
//! DESIGN.md "Metrics": throughput per interval (default 1 s), distributions over interval
//! samples as in seed 000's figures. Bin k covers [k·interval, (k+1)·interval) ∩ [0, duration);
//! the last bin may be shorter and its rate is normalised by its actual length.

use mptlab_engine::Time;

use super::stats::Stats;

const NS_PER_S: f64 = 1e9;

/// The bins `first..end` of a run of length `duration` that overlap a flow active from `start`
/// until `stop` (or the end): the ones its goodput distribution counts.
pub fn active_bins(interval: Time, duration: Time, start: Time, stop: Option<Time>) -> (usize, usize) {
    let end = stop.unwrap_or(duration).min(duration);
    ((start / interval) as usize, end.div_ceil(interval) as usize)
}

#[derive(Clone, Debug)]
pub struct IntervalBins {
    interval: Time,
    duration: Time,
    bins: Vec<u64>,
    // Cache of the bin hit last, so in-order samples cost a compare instead of a division.
    cur: usize,
    cur_start: Time,
    cur_end: Time,
}

impl IntervalBins {
    /// Preallocates ceil(duration / interval) bins. Panics if `interval` is 0.
    pub fn new(interval: Time, duration: Time) -> Self {
        assert!(interval > 0, "IntervalBins: interval must be positive");
        let n = duration.div_ceil(interval) as usize;
        IntervalBins { interval, duration, bins: vec![0; n], cur: 0, cur_start: 0, cur_end: interval.min(duration) }
    }

    /// Adds `bytes` to the bin holding `now`; samples at or after `duration` are ignored.
    /// O(1), no allocation; samples may arrive in any time order.
    #[inline]
    pub fn add(&mut self, now: Time, bytes: u64) {
        if now < self.cur_end && now >= self.cur_start {
            self.bins[self.cur] += bytes;
            return;
        }
        if now >= self.duration {
            return;
        }
        let k = (now / self.interval) as usize;
        self.cur = k;
        self.cur_start = k as Time * self.interval;
        self.cur_end = (self.cur_start + self.interval).min(self.duration);
        self.bins[k] += bytes;
    }

    /// Takes back `bytes` that `add(now, bytes)` counted (a link transmission cut short when the
    /// link went down). Like `add`, ignores samples at or after `duration`.
    pub fn remove(&mut self, now: Time, bytes: u64) {
        if now < self.duration {
            let k = (now / self.interval) as usize;
            self.bins[k] = self.bins[k].saturating_sub(bytes);
        }
    }

    pub fn interval(&self) -> Time {
        self.interval
    }
    pub fn duration(&self) -> Time {
        self.duration
    }
    /// The bin-by-bin sum of two series of the same bins.
    pub fn plus(&self, other: &IntervalBins) -> IntervalBins {
        assert_eq!((self.interval, self.duration), (other.interval, other.duration), "IntervalBins::plus: different bins");
        let mut sum = self.clone();
        for (s, o) in sum.bins.iter_mut().zip(&other.bins) {
            *s += o;
        }
        sum
    }

    /// Bytes per bin.
    pub fn bins(&self) -> &[u64] {
        &self.bins
    }
    pub fn total_bytes(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// Length of bin `k` in ns (the last one may be partial).
    pub fn bin_len(&self, k: usize) -> Time {
        let start = k as Time * self.interval;
        (start + self.interval).min(self.duration) - start
    }

    /// Rate of each bin in bit/s: bytes·8 / bin length.
    pub fn rates_bps(&self) -> Vec<f64> {
        (0..self.bins.len()).map(|k| self.bins[k] as f64 * 8.0 * NS_PER_S / self.bin_len(k) as f64).collect()
    }

    /// Distribution of the per-interval rates in Mbit/s over bins `from_bin..` (skip a warm-up by
    /// passing its number of bins). Empty statistics if no bin remains.
    pub fn summary(&self, from_bin: usize) -> Stats {
        let rates = self.rates_bps();
        let mbps: Vec<f64> = rates.iter().skip(from_bin).map(|r| r / 1e6).collect();
        Stats::from_samples(&mbps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Time = 1_000_000_000;
    const MS: Time = 1_000_000;

    #[test]
    fn preallocates_ceil_of_duration_over_interval_bins() {
        assert_eq!(IntervalBins::new(S, 10 * S).bins().len(), 10);
        assert_eq!(IntervalBins::new(S, 10 * S + 1).bins().len(), 11);
        assert_eq!(IntervalBins::new(S, 0).bins().len(), 0);
    }

    #[test]
    fn bytes_land_in_the_bin_of_their_time_and_out_of_order_samples_work() {
        let mut b = IntervalBins::new(S, 3 * S);
        b.add(0, 10);
        b.add(S - 1, 5);
        b.add(S, 7);
        b.add(500 * MS, 1); // back in time
        b.add(3 * S - 1, 2);
        assert_eq!(b.bins(), &[16, 7, 2]);
    }

    #[test]
    fn samples_at_or_after_the_end_are_ignored() {
        let mut b = IntervalBins::new(S, 2500 * MS);
        b.add(2500 * MS, 100);
        b.add(2600 * MS, 100); // inside bin 2's nominal span but after the end
        b.add(10 * S, 100);
        assert_eq!(b.total_bytes(), 0);
        let mut e = IntervalBins::new(S, 0);
        e.add(0, 1);
        assert_eq!(e.total_bytes(), 0);
    }

    #[test]
    fn rates_are_bits_per_second_and_the_partial_last_bin_is_normalised_by_its_length() {
        let mut b = IntervalBins::new(S, 2500 * MS);
        b.add(100, 125_000); // 1 Mbit in 1 s
        b.add(S + 1, 250_000); // 2 Mbit in 1 s
        b.add(2 * S + 1, 62_500); // 0.5 Mbit in 0.5 s
        assert_eq!(b.rates_bps(), vec![1e6, 2e6, 1e6]);
        assert_eq!(b.bin_len(2), 500 * MS);
    }

    #[test]
    fn summary_is_over_interval_rates_in_mbps_and_skips_warmup_bins() {
        let mut b = IntervalBins::new(S, 4 * S);
        for (k, mbit) in [(0u64, 100u64), (1, 1), (2, 3), (3, 5)] {
            b.add(k * S, mbit * 125_000);
        }
        let all = b.summary(0);
        assert_eq!((all.count, all.max, all.min), (4, 100.0, 1.0));
        let s = b.summary(1);
        assert_eq!((s.mean, s.min, s.max, s.p50, s.count), (3.0, 1.0, 5.0, 3.0, 3));
        assert!((s.std - (8.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(b.summary(4).count, 0);
        assert_eq!(b.summary(99).count, 0);
    }
}
