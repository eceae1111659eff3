//! The time-average capacity of a link direction: the integral of its rate (0 while down) over
//! time, for links whose rate changes (scenario events, capacity models).

use mptlab_engine::Time;

#[derive(Default)]
pub struct RateMeter {
    /// Integral of the capacity over [0, since], in bit/s · ns.
    area: u128,
    since: Time,
}

impl RateMeter {
    /// The capacity was `capacity_bps` from the last call until `now`.
    pub fn account(&mut self, now: Time, capacity_bps: u64) {
        let now = now.max(self.since);
        self.area += capacity_bps as u128 * (now - self.since) as u128;
        self.since = now;
    }

    /// Mean capacity over [0, end] in bit/s, the capacity since the last change being
    /// `capacity_bps`.
    pub fn mean_bps(&self, end: Time, capacity_bps: u64) -> f64 {
        if end == 0 {
            return capacity_bps as f64;
        }
        let tail = end.saturating_sub(self.since) as u128 * capacity_bps as u128;
        (self.area + tail) as f64 / end as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_weights_each_rate_by_its_duration() {
        let mut m = RateMeter::default();
        m.account(3, 10); // 10 bit/s over [0, 3)
        m.account(4, 0); // down over [3, 4)
        assert!((m.mean_bps(8, 20) - (30.0 + 0.0 + 80.0) / 8.0).abs() < 1e-12);
        assert_eq!(m.mean_bps(0, 7), 7.0);
    }
}
