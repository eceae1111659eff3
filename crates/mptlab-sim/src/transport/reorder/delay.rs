//! Per-path one-way delay estimated at the receiver from the tunnel header's send timestamp
//! (seed 003 §4.2: "When estimating the RTT at the receiving side, we used an exponentially
//! weighted moving average, with each new value determining 95% of the estimation").
//!
//! Interpretations:
//! - The sample is the one-way delay `now − sent_at` of every arrival (the study notes' A9
//!   option "the receiver's estimate from header timestamps"); the simulator's clocks are
//!   synchronised, so the sample is exact. The kernel instead uses the sender's RTT / 2 carried
//!   in a DCCP option; only the difference between paths matters to the wait limit, and the
//!   one-way delay is what actually separates two packets' arrivals.
//! - "Each new value determining 95%" is read literally: est ← est + w·(sample − est) with
//!   w = `ewma_new` = 0.95; the first sample is taken as is. The step w·(sample − est) is
//!   rounded to whole nanoseconds, so a constant delay gives an exactly constant estimate and
//!   the estimate always lies between the old estimate and the sample.

use mptlab_engine::Time;

/// EWMA of one path's one-way delay; `None` until the path has delivered a packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DelayEstimate(pub Option<Time>);

impl DelayEstimate {
    #[inline]
    pub fn sample(&mut self, d: Time, w: f64) {
        self.0 = Some(match self.0 {
            None => d,
            Some(est) => {
                let step = ((d as f64 - est as f64) * w).round() as i64;
                est.saturating_add_signed(step)
            }
        });
    }
}

/// (min, max) of the estimates of the paths that have one; `None` if none has.
pub fn spread(estimates: impl Iterator<Item = DelayEstimate>) -> Option<(Time, Time)> {
    estimates.filter_map(|e| e.0).fold(None, |acc, d| Some(acc.map_or((d, d), |(lo, hi): (Time, Time)| (lo.min(d), hi.max(d)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sample_is_taken_as_is_and_each_new_one_weighs_95_percent() {
        let mut e = DelayEstimate::default();
        e.sample(10_000, 0.95);
        assert_eq!(e.0, Some(10_000));
        // 10_000 + 0.95 · (30_000 − 10_000) = 29_000.
        e.sample(30_000, 0.95);
        assert_eq!(e.0, Some(29_000));
        // 29_000 + 0.95 · (9_000 − 29_000) = 10_000.
        e.sample(9_000, 0.95);
        assert_eq!(e.0, Some(10_000));
        // A constant delay stays exactly constant.
        for _ in 0..100 {
            e.sample(10_000, 0.95);
        }
        assert_eq!(e.0, Some(10_000));
    }

    #[test]
    fn spread_covers_only_paths_with_an_estimate() {
        let est = [DelayEstimate(Some(30)), DelayEstimate(None), DelayEstimate(Some(10))];
        assert_eq!(spread(est.iter().copied()), Some((10, 30)));
        assert_eq!(spread([DelayEstimate(None)].into_iter()), None);
    }
}
