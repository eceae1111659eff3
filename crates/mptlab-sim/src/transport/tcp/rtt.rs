//! RTT estimation and the retransmission timeout, RFC 6298 §2 and §5, with two RTO formulas
//! (`TcpConfig::rto`).
//!
//! SRTT ← 7/8·SRTT + 1/8·R, RTTVAR ← 3/4·RTTVAR + 1/4·|SRTT − R| (first sample: SRTT = R,
//! RTTVAR = R/2). Then
//! - `RtoFormula::Linux` (default): RTO = SRTT + max(4·RTTVAR, min_rto), capped at `max_rto`;
//! - `RtoFormula::Rfc6298`: RTO = SRTT + max(G, 4·RTTVAR) with clock granularity G = 1 ms,
//!   floored at `min_rto` (RFC 6298 (2.4); `TcpConfig::min_rto`) and capped at `max_rto`.
//!
//! Backoff doubles the RTO per expiry (RFC 6298 (5.5)) and is cleared by the next valid sample,
//! with either formula.
//!
//! Why the Linux formula approximates Linux: `tcp_rtt_estimator` (net/ipv4/tcp_input.c) keeps
//! SRTT with gain 1/8 and `mdev_us` (4× the mean deviation, gain 1/4) as RFC 6298 does, but the
//! RTO uses `rttvar_us`, the largest `mdev_us` of the last round trip (`mdev_max_us`), which is
//! reset to `tcp_rto_min_us` (200 ms, TCP_RTO_MIN) at the start of every round trip; `rttvar_us`
//! rises to it at once and decays towards it by 1/4 per round trip. `__tcp_set_rto` returns
//! srtt + rttvar_us and `tcp_set_rto` only caps it at TCP_RTO_MAX (`tcp_bound_rto`). So the 200 ms
//! floor is on the variance term: RTO ≥ SRTT + 200 ms, where RFC 6298 floors the whole RTO (a
//! jitter-free path makes RTTVAR ≈ 0 and the RFC's RTO barely above SRTT). What is left out:
//! the per-round-trip maximum and its slow decay (here RTTVAR is the RFC's smoothed value), the
//! reduced gain Linux gives RTT decreases larger than the deviation, and jiffy rounding; these
//! matter only when 4·RTTVAR exceeds min_rto, i.e. with tens of milliseconds of jitter, which
//! the simulated paths do not have. The first sample gives RTO = R + max(2R, min_rto), Linux's
//! "rto = 3·rtt" for R ≥ 100 ms.

use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

use super::config::RtoFormula;

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
    formula: RtoFormula,
    backoff: u32,
}

impl RttEstimator {
    pub fn new(formula: RtoFormula, initial_rto: Time, min_rto: Time, max_rto: Time) -> Self {
        Self { srtt: None, rttvar: 0, min_rtt: Time::MAX, latest: 0, rto: initial_rto, min_rto, max_rto, formula, backoff: 0 }
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
        self.rto = match self.formula {
            RtoFormula::Linux => s.saturating_add(self.min_rto.max(4 * self.rttvar)).min(self.max_rto),
            RtoFormula::Rfc6298 => (s + GRANULARITY.max(4 * self.rttvar)).clamp(self.min_rto, self.max_rto),
        };
        self.backoff = 0;
    }

    /// The RTO including exponential backoff.
    #[inline]
    pub fn rto(&self) -> Time {
        let shifted = self.rto.checked_shl(self.backoff).unwrap_or(Time::MAX);
        if self.backoff >= 32 {
            self.max_rto
        } else {
            shifted.min(self.max_rto)
        }
    }

    /// The RTO without backoff, as the last sample set it (the Padhye model's T0).
    #[inline]
    pub fn base_rto(&self) -> Time {
        self.rto
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

    pub fn formula(&self) -> RtoFormula {
        self.formula
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Smallest sample so far (0 before any sample).
    pub fn min_rtt(&self) -> Time {
        if self.min_rtt == Time::MAX {
            0
        } else {
            self.min_rtt
        }
    }

    pub fn latest(&self) -> Time {
        self.latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::{MILLISECOND as MS, SECOND};

    fn rfc(min_rto: Time, max_rto: Time) -> RttEstimator {
        RttEstimator::new(RtoFormula::Rfc6298, SECOND, min_rto, max_rto)
    }

    fn linux(min_rto: Time, max_rto: Time) -> RttEstimator {
        RttEstimator::new(RtoFormula::Linux, SECOND, min_rto, max_rto)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        for mut e in [rfc(200 * MS, 120 * SECOND), linux(200 * MS, 120 * SECOND)] {
            e.on_sample(100 * MS);
            assert_eq!(e.srtt(), Some(100 * MS));
            assert_eq!(e.rttvar(), 50 * MS);
            // RFC 6298 (2.2): 100 + 4·50; Linux: 100 + max(4·50, 200) ("rto = 3·rtt").
            assert_eq!(e.rto(), 300 * MS, "{:?}", e.formula());
        }
    }

    #[test]
    fn later_samples_follow_rfc6298_gains() {
        let mut e = rfc(0, 120 * SECOND);
        e.on_sample(100 * MS);
        e.on_sample(200 * MS);
        // RTTVAR = 3/4·50 + 1/4·100 = 62.5 ms ; SRTT = 7/8·100 + 1/8·200 = 112.5 ms
        assert_eq!(e.rttvar(), 62_500_000);
        assert_eq!(e.srtt(), Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 250 * MS);
    }

    #[test]
    fn linux_floors_the_variance_term_not_the_rto() {
        // Constant 100 ms: RTTVAR decays (×3/4 per sample) to 0.
        let (mut l, mut r) = (linux(200 * MS, 120 * SECOND), rfc(200 * MS, 120 * SECOND));
        for _ in 0..100 {
            l.on_sample(100 * MS);
            r.on_sample(100 * MS);
        }
        assert_eq!(l.srtt(), Some(100 * MS));
        assert!(l.rttvar() < MS / 1000, "rttvar {}", l.rttvar());
        assert_eq!(l.rto(), 300 * MS, "Linux: SRTT + TCP_RTO_MIN");
        // RFC 6298: SRTT + G = 101 ms, floored at min_rto.
        assert_eq!(r.rto(), 200 * MS);
        let mut r0 = rfc(MS, 120 * SECOND);
        for _ in 0..100 {
            r0.on_sample(100 * MS);
        }
        assert_eq!(r0.rto(), 101 * MS, "RFC 6298 without the floor: SRTT + G");
        // Large variance: both use 4·RTTVAR (the sample sequence of the RFC test above).
        let mut l = linux(200 * MS, 120 * SECOND);
        l.on_sample(100 * MS);
        l.on_sample(200 * MS);
        assert_eq!(l.rto(), 112_500_000 + 250 * MS);
        // 4·RTTVAR below min_rto: SRTT + min_rto (RTTVAR = 3/4·62.5 + 1/4·|112.5 − 112.5|).
        l.on_sample(112_500_000);
        assert_eq!(l.rttvar(), 46_875_000);
        assert_eq!(l.rto(), 112_500_000 + 200 * MS);
        // RFC 6298 (2.4) with min_rto = 1 s: the whole RTO floored at 1 s.
        let mut r1 = rfc(SECOND, 120 * SECOND);
        for _ in 0..100 {
            r1.on_sample(300 * MS);
        }
        assert_eq!(r1.rto(), SECOND);
    }

    #[test]
    fn rto_is_floored_and_backs_off_to_the_cap() {
        let mut e = rfc(200 * MS, 2 * SECOND);
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

    #[test]
    fn linux_rto_backs_off_and_is_capped() {
        let mut e = linux(200 * MS, 2 * SECOND);
        for _ in 0..100 {
            e.on_sample(10 * MS);
        }
        assert_eq!(e.rto(), 210 * MS);
        e.back_off();
        assert_eq!(e.rto(), 420 * MS);
        for _ in 0..40 {
            e.back_off();
        }
        assert_eq!(e.rto(), 2 * SECOND);
        e.on_sample(10 * MS);
        assert_eq!(e.rto(), 210 * MS, "a valid sample clears the backoff");
        // The cap applies to the unbacked-off value as well.
        let mut c = linux(200 * MS, 250 * MS);
        c.on_sample(100 * MS);
        assert_eq!(c.rto(), 250 * MS);
    }
}
