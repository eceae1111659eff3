//! The aggregators as they are reported in the summary: delay quantiles and RFC 3550 jitter as
//! typed records, and unit and ratio helpers shared by every block of the summary.

use super::{LogHistogram, Rfc3550Jitter, RunningStats};
use serde::Serialize;

/// Nanoseconds to milliseconds.
pub fn ms(ns: f64) -> f64 {
    ns / 1e6
}

/// `part / whole` in percent; 0 when `whole` is 0 (nothing sent, nothing lost).
pub fn pct(part: u64, whole: u64) -> f64 {
    if whole > 0 {
        100.0 * part as f64 / whole as f64
    } else {
        0.0
    }
}

/// `x` when finite; None (null in JSON) otherwise.
pub fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Mean and maximum of sampled values (seed 001 eq. 3–4 and 8–9); None when there is none.
pub fn mean_max(samples: &[f64]) -> (Option<f64>, Option<f64>) {
    if samples.is_empty() {
        return (None, None);
    }
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    let max = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (Some(mean), Some(max))
}

/// A delay distribution in ms from a log-linear histogram of nanoseconds: exact mean and max,
/// percentiles at bucket midpoints (`metrics/histogram.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Quantiles {
    pub mean: f64,
    /// Null when only running statistics were kept (`of_running_ns`).
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: f64,
    pub count: u64,
}

impl Quantiles {
    /// None when the histogram is empty (null in JSON).
    pub fn of_ns(h: &LogHistogram) -> Option<Self> {
        (h.count() > 0).then(|| Quantiles {
            mean: ms(h.mean()),
            p50: Some(ms(h.quantile(0.5))),
            p95: Some(ms(h.quantile(0.95))),
            p99: Some(ms(h.quantile(0.99))),
            max: ms(h.max() as f64),
            count: h.count(),
        })
    }

    /// Exact mean, max and count of nanosecond samples without their distribution
    /// (percentiles null); None when there were none.
    pub fn of_running_ns(r: &RunningStats) -> Option<Self> {
        (r.count() > 0).then(|| Quantiles { mean: ms(r.mean()), p50: None, p95: None, p99: None, max: ms(r.max()), count: r.count() })
    }
}

/// RFC 3550 §6.4.1 jitter: mean of the J samples (exact) and their distribution, in ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct JitterSummary {
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
}

impl JitterSummary {
    /// None before the second arrival (no sample; null in JSON).
    pub fn of(j: &Rfc3550Jitter) -> Option<Self> {
        if j.samples() == 0 {
            return None;
        }
        let h = j.histogram();
        Some(JitterSummary { mean: j.mean_ms(), p50: ms(h.quantile(0.5)), p95: ms(h.quantile(0.95)), max: ms(h.max() as f64) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_and_means_of_nothing_are_zero_or_none() {
        assert_eq!(pct(1, 4), 25.0);
        assert_eq!(pct(3, 0), 0.0);
        assert_eq!(mean_max(&[]), (None, None));
        assert_eq!(mean_max(&[2.0, 6.0, 4.0]), (Some(4.0), Some(6.0)));
        assert_eq!(finite(f64::NAN), None);
        assert_eq!(finite(1.5), Some(1.5));
    }

    #[test]
    fn empty_aggregators_are_null_and_filled_ones_are_in_ms() {
        assert_eq!(Quantiles::of_ns(&LogHistogram::new()), None);
        let mut h = LogHistogram::new();
        h.record(2_000_000);
        let q = Quantiles::of_ns(&h).unwrap();
        assert_eq!((q.mean, q.max, q.count), (2.0, 2.0, 1));
        assert_eq!(JitterSummary::of(&Rfc3550Jitter::new()), None);
    }
}
