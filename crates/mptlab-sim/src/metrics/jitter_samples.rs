//! JitterSamples: a pool of RFC 3550 J samples (`jitter::JitterEstimator`) from one stream or
//! from many (every subflow crossing a link), reported as `Stats` in ms: exact mean, std, min,
//! max (`RunningStats`) and p50, p95 from a `LogHistogram` of whole ns (bounded: memory does not
//! grow with run length). For distribution plots it also keeps the mean of the samples of each
//! trace interval (`BinnedMean`, preallocated, one slot per interval of the run).

use mptlab_engine::Time;

use super::histogram::LogHistogram;
use super::stats::{RunningStats, Stats};

const NS_PER_MS: f64 = 1e6;
const NS_PER_S: f64 = 1e9;

/// Mean of the values recorded in each interval [k·every, (k+1)·every) of a run.
#[derive(Clone, Debug)]
pub struct BinnedMean {
    every: Time,
    sums: Vec<f64>,
    counts: Vec<u32>,
    // The bin hit last: in-order records cost a compare instead of a division.
    cur: usize,
    cur_end: Time,
}

impl BinnedMean {
    /// Preallocates ceil(duration / every) bins. Panics if `every` is 0.
    pub fn new(every: Time, duration: Time) -> Self {
        assert!(every > 0, "BinnedMean: interval must be positive");
        let n = duration.div_ceil(every) as usize;
        BinnedMean { every, sums: vec![0.0; n], counts: vec![0; n], cur: 0, cur_end: every }
    }

    /// `value` at time `now` (non-decreasing between calls); ignored past the run's end.
    #[inline]
    pub fn record(&mut self, now: Time, value: f64) {
        if now >= self.cur_end {
            self.cur = (now / self.every) as usize;
            self.cur_end = (self.cur as Time + 1) * self.every;
        }
        if let (Some(s), Some(c)) = (self.sums.get_mut(self.cur), self.counts.get_mut(self.cur)) {
            *s += value;
            *c += 1;
        }
    }

    /// (start of the interval in s, mean) of every interval that had a value.
    pub fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let every = self.every;
        self.sums
            .iter()
            .zip(&self.counts)
            .enumerate()
            .filter(|(_, (_, &c))| c > 0)
            .map(move |(k, (&s, &c))| ((k as Time * every) as f64 / NS_PER_S, s / c as f64))
    }
}

/// Pooled J samples in ns, reported in ms.
#[derive(Clone, Debug)]
pub struct JitterSamples {
    stats: RunningStats,
    hist: LogHistogram,
    series: BinnedMean,
}

impl JitterSamples {
    /// `every`: the interval of the exported series (`metrics.trace_interval`).
    pub fn new(every: Time, duration: Time) -> Self {
        JitterSamples { stats: RunningStats::new(), hist: LogHistogram::new(), series: BinnedMean::new(every, duration) }
    }

    /// One J sample (ns) taken at `now`. O(1), no allocation once the histogram spans the range.
    #[inline]
    pub fn record(&mut self, now: Time, j_ns: f64) {
        self.stats.push(j_ns);
        self.hist.record((j_ns + 0.5) as u64); // J ≥ 0: round half up without a libm call
        self.series.record(now, j_ns / NS_PER_MS);
    }

    pub fn count(&self) -> u64 {
        self.stats.count()
    }

    /// Mean, std, min, max (exact), p50, p95 (histogram) of the samples in ms; None without one.
    pub fn stats_ms(&self) -> Option<Stats> {
        (self.stats.count() > 0).then(|| Stats::from_running_and_histogram(&self.stats, &self.hist, 1.0 / NS_PER_MS))
    }

    /// Mean J in ms per trace interval that had samples: (interval start in s, mean).
    pub fn series_ms(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.series.points()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn stats_are_exact_and_the_series_averages_each_interval() {
        let mut s = JitterSamples::new(100 * MS, 350 * MS);
        assert_eq!(s.stats_ms(), None);
        // Interval 0: 1 and 3 ms; interval 1: none; interval 2: 2 ms; past the end: kept in the
        // statistics, not in the series.
        for (t, j) in [(10, 1.0), (90, 3.0), (250, 2.0), (400, 4.0)] {
            s.record(t * MS, j * 1e6);
        }
        let st = s.stats_ms().unwrap();
        assert_eq!((st.count, st.min, st.max, st.mean), (4, 1.0, 4.0, 2.5));
        assert!((st.std - 1.25f64.sqrt()).abs() < 1e-12);
        let pts: Vec<(f64, f64)> = s.series_ms().collect();
        assert_eq!(pts, vec![(0.0, 2.0), (0.2, 2.0)]);
    }
}
