//! RTT estimation and the retransmission timeout, RFC 6298 §2 and §5.
//!
//! SRTT ← 7/8·SRTT + 1/8·R, RTTVAR ← 3/4·RTTVAR + 1/4·|SRTT − R| (first sample: SRTT = R,
//! RTTVAR = R/2); RTO = SRTT + max(G, 4·RTTVAR) with clock granularity G = 1 ms, floored at
//! `min_rto` (see `TcpConfig::min_rto`) and capped at `max_rto`. Backoff doubles the RTO per
//! expiry (RFC 6298 (5.5)) and is cleared by the next valid sample.

use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

const GRANULARITY: Time = MILLISECOND;

#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    min_rtt: Time,
    latest: Time,
    rto: Time,
    min_rto: Time,
    max_rto: Time,
    backoff: u32,
}

impl RttEstimator {
    pub fn new(initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        Self { srtt: None, rttvar: 0, min_rtt: Time::MAX, latest: 0, rto: initial_rto, min_rto, max_rto, backoff: 0 }
    }

    #[inline]
    pub fn on_sample(&mut self, r: Time) {
        self.latest = r;
        self.min_rtt = self.min_rtt.min(r);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                let err = s.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let s = self.srtt.unwrap_or(r);
        self.rto = (s + GRANULARITY.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// The RTO including exponential backoff.
    #[inline]
    pub fn rto(&self) -> Time {
        let shifted = self.rto.checked_shl(self.backoff).unwrap_or(Time::MAX);
        if self.backoff >= 32 { self.max_rto } else { shifted.min(self.max_rto) }
    }

    /// RFC 6298 (5.7): after a SYN timed out, data transmission starts with this RTO (3 s)
    /// unless an RTT sample has been taken since.
    pub fn reinitialize(&mut self, rto: Time) {
        if self.srtt.is_none() {
            self.rto = rto.clamp(self.min_rto, self.max_rto);
            self.backoff = 0;
        }
    }

    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(32);
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Smallest sample so far (0 before any sample).
    pub fn min_rtt(&self) -> Time {
        if self.min_rtt == Time::MAX { 0 } else { self.min_rtt }
    }

    pub fn latest(&self) -> Time {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::{MILLISECOND as MS, SECOND};

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut e = RttEstimator::new(SECOND, 200 * MS, 120 * SECOND);
        e.on_sample(100 * MS);
        assert_eq!(e.srtt(), Some(100 * MS));
        assert_eq!(e.rttvar(), 50 * MS);
        assert_eq!(e.rto(), 300 * MS);
    }

    #[test]
    fn later_samples_follow_rfc6298_gains() {
        let mut e = RttEstimator::new(SECOND, 0, 120 * SECOND);
        e.on_sample(100 * MS);
        e.on_sample(200 * MS);
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5 ms ; SRTT = 7/8·100 + 1/8·200 = 112.5 ms
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 250 * MS);
    }

    #[test]
    fn rto_is_floored_and_backs_off_to_the_cap() {
        let mut e = RttEstimator::new(SECOND, 200 * MS, 2 * SECOND);
        e.on_sample(10 * MS);
        for _ in 0..10 {
            e.on_sample(10 * MS);
        }
        assert_eq!(e.rto(), 200 * MS);
        e.back_off();
        assert_eq!(e.rto(), 400 * MS);
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), 2 * SECOND);
        e.on_sample(10 * MS);
        assert_eq!(e.rto(), 200 * MS);
    }
}
