//! Summary statistics of a metric's samples, as written to summary.json.
//! `Stats`: mean, population standard deviation, min, max, p50, p95 and count. Percentiles use
//! linear interpolation between closest ranks (Hyndman & Fan type 7, the default of numpy and
//! pandas, which the seed studies' plotting tools use). `RunningStats`: Welford's online
//! algorithm (Welford 1962; Knuth TAOCP vol. 2, 4.2.2) for O(1) mean/std/min/max, with the
//! pairwise merge of Chan, Golub & LeVeque (1979).

use serde::{Deserialize, Serialize};

use super::histogram::LogHistogram;

/// `x as f64` for a count, byte total or nanosecond time (all far below 2^63), on per-packet
/// paths: converted as a signed number it takes one instruction, where x86-64 needs about six
/// for an unsigned one. The value is the same for every `x` below 2^63.
#[inline(always)]
pub fn u64_to_f64(x: u64) -> f64 {
    debug_assert!(x <= i64::MAX as u64, "{x} does not fit an i64");
    x as i64 as f64
}

/// Statistics of a set of samples. All fields are 0 when `count` is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub mean: f64,
    pub std: f64,
    pub min: f64,
    pub max: f64,
    pub p50: f64,
    pub p95: f64,
    pub count: u64,
}

/// Percentile `q` in [0, 1] of an ascending slice, type-7 linear interpolation.
fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

impl Stats {
    /// Exact statistics of `samples` (sorts a copy: for summary time, not the hot path).
    pub fn from_samples(samples: &[f64]) -> Stats {
        if samples.is_empty() {
            return Stats::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        // Two passes: exact to rounding, and identical to numpy's mean / std(ddof=0).
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        Stats {
            mean,
            std: var.sqrt(),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            p50: percentile_sorted(&sorted, 0.50),
            p95: percentile_sorted(&sorted, 0.95),
            count: samples.len() as u64,
        }
    }

    /// Mean, std, min and max from `running` (exact), p50 and p95 from `hist` (bucket
    /// midpoints); every value multiplied by `scale` (e.g. 1e-6 for ns → ms). The two must have
    /// seen the same samples.
    pub fn from_running_and_histogram(running: &RunningStats, hist: &LogHistogram, scale: f64) -> Stats {
        if running.count() == 0 {
            return Stats::default();
        }
        Stats {
            mean: running.mean() * scale,
            std: running.std() * scale,
            min: running.min() * scale,
            max: running.max() * scale,
            p50: hist.quantile(0.50) * scale,
            p95: hist.quantile(0.95) * scale,
            count: running.count(),
        }
    }
}

/// Online mean, population standard deviation, min and max. O(1) per sample, no allocation and
/// no division on the hot path: sums of the samples shifted by the first one (the "shifted
/// data" variance algorithm, which avoids the cancellation of a plain sum of squares).
/// Accessors return 0 when empty.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningStats {
    count: u64,
    sum: f64,
    shift: f64,
    sum_shifted: f64,
    sum_sq_shifted: f64,
    min: f64,
    max: f64,
}

impl Default for RunningStats {
    fn default() -> Self {
        Self::new()
    }
}

impl RunningStats {
    pub const fn new() -> Self {
        RunningStats { count: 0, sum: 0.0, shift: 0.0, sum_shifted: 0.0, sum_sq_shifted: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }

    #[inline]
    pub fn push(&mut self, x: f64) {
        if self.count == 0 {
            self.shift = x;
        }
        self.count += 1;
        self.sum += x;
        let d = x - self.shift;
        self.sum_shifted += d;
        self.sum_sq_shifted += d * d;
        // Plain compares rather than `f64::min`/`max`, whose NaN handling costs a compare and
        // a blend more per call; a NaN sample leaves both unchanged either way.
        self.min = if x < self.min { x } else { self.min };
        self.max = if x > self.max { x } else { self.max };
    }

    /// `push` of every value in order, with the same result, on a copy held in registers
    /// (see `LogHistogram::record_all`).
    #[inline]
    pub fn push_all(&mut self, xs: &[f64]) {
        let mut s = *self;
        for &x in xs {
            s.push(x);
        }
        *self = s;
    }

    pub fn count(&self) -> u64 {
        self.count
    }
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }
    /// Population standard deviation (divides by n, like numpy's default).
    pub fn std(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as f64;
        let m = self.sum_shifted / n;
        (self.sum_sq_shifted / n - m * m).max(0.0).sqrt()
    }
    pub fn min(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.min
        }
    }
    pub fn max(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.max
        }
    }

    /// Combines two sets of samples as if all had been pushed into one.
    pub fn merge(&mut self, o: &RunningStats) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *o;
            return;
        }
        // Re-express the other side's shifted sums relative to this side's shift.
        let (k, c) = (o.shift - self.shift, o.count as f64);
        self.sum_sq_shifted += o.sum_sq_shifted + 2.0 * k * o.sum_shifted + c * k * k;
        self.sum_shifted += o.sum_shifted + c * k;
        self.count += o.count;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_known_samples_match_hand_computation() {
        // 2,4,4,4,5,5,7,9: mean 5, population std 2; type-7 p50 = 4.5, p95 = 7 + 0.65·2 = 8.3.
        let s = Stats::from_samples(&[9.0, 2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0]);
        assert_eq!((s.mean, s.std, s.min, s.max, s.count), (5.0, 2.0, 2.0, 9.0, 8));
        assert_eq!(s.p50, 4.5);
        assert!((s.p95 - 8.3).abs() < 1e-12);
    }

    #[test]
    fn empty_input_gives_zeros_and_one_sample_gives_itself_with_zero_std() {
        assert_eq!(Stats::from_samples(&[]), Stats::default());
        let r = RunningStats::new();
        assert_eq!((r.count(), r.mean(), r.std(), r.min(), r.max()), (0, 0., 0., 0., 0.));
        let s = Stats::from_samples(&[3.5]);
        assert_eq!((s.mean, s.std, s.min, s.max, s.p50, s.p95), (3.5, 0., 3.5, 3.5, 3.5, 3.5));
    }

    #[test]
    fn stats_serialize_with_exact_field_names() {
        let s = Stats::from_samples(&[0.0, 1.0, 2.0]);
        let j = serde_json::to_string(&Stats { std: 0.5, ..s }).unwrap();
        let want = r#"{"mean":1.0,"std":0.5,"min":0.0,"max":2.0,"p50":1.0,"p95":1.9,"count":3}"#;
        assert_eq!(j, want);
    }

    #[test]
    fn welford_with_large_offset_keeps_small_variance() {
        // 10 ms ± 1 µs in ns: naive sum-of-squares would lose the variance.
        let mut r = RunningStats::new();
        for i in 0..1000 {
            r.push(10_000_000.0 + if i % 2 == 0 { 1000.0 } else { -1000.0 });
        }
        assert!((r.mean() - 10_000_000.0).abs() < 1e-6);
        assert!((r.std() - 1000.0).abs() < 1e-6);
    }

    #[test]
    fn merged_running_stats_equal_one_pass() {
        let xs: Vec<f64> = (0..101).map(|i| (i as f64 * 0.37).sin() * 10.0 + i as f64).collect();
        let (mut a, mut b, mut all) = (RunningStats::new(), RunningStats::new(), RunningStats::new());
        xs[..40].iter().for_each(|&x| a.push(x));
        xs[40..].iter().for_each(|&x| b.push(x));
        xs.iter().for_each(|&x| all.push(x));
        a.merge(&b);
        assert_eq!(a.count(), all.count());
        assert!((a.mean() - all.mean()).abs() < 1e-9 && (a.std() - all.std()).abs() < 1e-9);
        assert_eq!((a.min(), a.max()), (all.min(), all.max()));
        let s = Stats::from_samples(&xs);
        assert!((s.mean - all.mean()).abs() < 1e-9 && (s.std - all.std()).abs() < 1e-9);
    }
}
