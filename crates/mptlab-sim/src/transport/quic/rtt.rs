//! QUIC RTT estimation, RFC 9002 §5 (one estimator per path).
//!
//! - latest_rtt = ack_time − send time of the largest acknowledged packet (§5.1; the caller,
//!   `SentPackets::on_ack_received`, decides when a sample exists).
//! - min_rtt: the smallest latest_rtt, never adjusted for ACK delay (§5.2).
//! - First sample (§5.3): min_rtt = smoothed_rtt = latest_rtt, rttvar = latest_rtt / 2.
//! - Later samples (§5.3): ack_delay is capped at max_ack_delay once the handshake is confirmed;
//!   adjusted_rtt = latest_rtt − ack_delay if latest_rtt ≥ min_rtt + ack_delay, else latest_rtt;
//!   rttvar = 3/4·rttvar + 1/4·|smoothed_rtt − adjusted_rtt|;
//!   smoothed_rtt = 7/8·smoothed_rtt + 1/8·adjusted_rtt.
//! - Before any sample: smoothed_rtt = kInitialRtt (333 ms), rttvar = kInitialRtt / 2 (§6.2.2).
//!
//! Interpretation: the pseudo-code in §5.3 lists the smoothed_rtt update before the rttvar
//! sample, Appendix A.7 computes rttvar from the *previous* smoothed_rtt. We follow A.7, which
//! is also RFC 6298's order and quinn's `RttEstimator::update`.
//! The ACK delay is applied to the first sample only through min_rtt (the RFC ignores it there).
//! Integer nanoseconds: divisions truncate, as in `transport/tcp/rtt.rs`.

use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

/// kInitialRtt (RFC 9002 §6.2.2): the RTT assumed before the first sample.
pub const INITIAL_RTT: Time = 333 * MILLISECOND;
/// kGranularity (RFC 9002 §6.1.2): the timer granularity, 1 ms.
pub const GRANULARITY: Time = MILLISECOND;

#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    latest_rtt: Time,
    /// `Time::MAX` before the first sample.
    min_rtt: Time,
    smoothed_rtt: Time,
    rttvar: Time,
    /// Time of the first RTT sample (Appendix A.2 `first_rtt_sample`); None before it.
    first_sample_at: Option<Time>,
}

impl Default for RttEstimator {
    fn default() -> Self {
        Self::new(INITIAL_RTT)
    }
}

impl RttEstimator {
    /// An estimator that assumes `initial_rtt` (kInitialRtt, or a value remembered from an
    /// earlier connection, §6.2.2) until the first sample.
    pub fn new(initial_rtt: Time) -> Self {
        Self { latest_rtt: 0, min_rtt: Time::MAX, smoothed_rtt: initial_rtt, rttvar: initial_rtt / 2, first_sample_at: None }
    }

    /// Apply one RTT sample taken at `now`. `max_ack_delay` is Some(peer's max_ack_delay) once the
    /// handshake is confirmed (the ACK delay is then capped at it), None before (§5.3).
    /// Returns adjusted_rtt, the value fed into smoothed_rtt.
    pub fn update(&mut self, now: Time, latest_rtt: Time, ack_delay: Time, max_ack_delay: Option<Time>) -> Time {
        self.latest_rtt = latest_rtt;
        if self.first_sample_at.is_none() {
            // §5.3: "on the first RTT sample ... smoothed_rtt = latest_rtt, rttvar = latest_rtt/2".
            self.first_sample_at = Some(now);
            self.min_rtt = latest_rtt;
            self.smoothed_rtt = latest_rtt;
            self.rttvar = latest_rtt / 2;
            return latest_rtt;
        }
        // §5.2: min_rtt ignores the ACK delay.
        self.min_rtt = self.min_rtt.min(latest_rtt);
        let ack_delay = match max_ack_delay {
            Some(m) => ack_delay.min(m),
            None => ack_delay,
        };
        // §5.3: "MUST NOT subtract the acknowledgment delay from the RTT sample if the resulting
        // value is smaller than the min_rtt".
        let adjusted = if latest_rtt >= self.min_rtt.saturating_add(ack_delay) { latest_rtt - ack_delay } else { latest_rtt };
        self.rttvar = (3 * self.rttvar + self.smoothed_rtt.abs_diff(adjusted)) / 4;
        self.smoothed_rtt = (7 * self.smoothed_rtt + adjusted) / 8;
        adjusted
    }

    /// §5.2: "SHOULD set the min_rtt to the newest RTT sample after persistent congestion is
    /// established".
    pub fn on_persistent_congestion(&mut self) {
        if self.first_sample_at.is_some() {
            self.min_rtt = self.latest_rtt;
        }
    }

    /// The probe timeout period without backoff (§6.2.1):
    /// smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay.
    pub fn pto_base(&self, max_ack_delay: Time) -> Time {
        self.smoothed_rtt + (4 * self.rttvar).max(GRANULARITY) + max_ack_delay
    }

    /// The time-threshold loss delay (§6.1.2): max(9/8 · max(smoothed_rtt, latest_rtt), kGranularity).
    pub fn loss_delay(&self) -> Time {
        let rtt = self.smoothed_rtt.max(self.latest_rtt);
        (rtt + rtt / 8).max(GRANULARITY)
    }

    pub fn latest_rtt(&self) -> Time {
        self.latest_rtt
    }

    /// Smallest sample so far (0 before any sample).
    pub fn min_rtt(&self) -> Time {
        if self.min_rtt == Time::MAX {
            0
        } else {
            self.min_rtt
        }
    }

    pub fn smoothed_rtt(&self) -> Time {
        self.smoothed_rtt
    }

    pub fn rttvar(&self) -> Time {
        self.rttvar
    }

    pub fn has_sample(&self) -> bool {
        self.first_sample_at.is_some()
    }

    pub fn first_sample_at(&self) -> Option<Time> {
        self.first_sample_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;

    const MAD: Option<Time> = Some(25 * MS);

    #[test]
    fn before_any_sample_the_initial_rtt_gives_a_one_second_pto() {
        let e = RttEstimator::default();
        assert_eq!(e.smoothed_rtt(), 333 * MS);
        assert_eq!(e.rttvar(), 166_500_000);
        assert_eq!(e.min_rtt(), 0);
        assert!(!e.has_sample());
        // §6.2.2: 333 + 4·166.5 = 999 ms, plus max_ack_delay.
        assert_eq!(e.pto_base(0), 999 * MS);
        assert_eq!(e.pto_base(25 * MS), 1024 * MS);
    }

    #[test]
    fn first_sample_initialises_and_ignores_ack_delay() {
        let mut e = RttEstimator::default();
        let adj = e.update(7 * MS, 100 * MS, 20 * MS, MAD);
        assert_eq!(adj, 100 * MS);
        assert_eq!((e.latest_rtt(), e.min_rtt(), e.smoothed_rtt(), e.rttvar()), (100 * MS, 100 * MS, 100 * MS, 50 * MS));
        assert_eq!(e.first_sample_at(), Some(7 * MS));
        // PTO = 100 + 4·50 + 25.
        assert_eq!(e.pto_base(25 * MS), 325 * MS);
    }

    #[test]
    fn ack_delay_is_subtracted_when_the_result_stays_above_min_rtt() {
        // min_rtt 90, sample 120, ack_delay 20: 120 ≥ 90 + 20, adjusted = 100.
        let mut e = RttEstimator::default();
        e.update(0, 90 * MS, 0, MAD);
        let adj = e.update(MS, 120 * MS, 20 * MS, MAD);
        assert_eq!(adj, 100 * MS);
        assert_eq!(e.min_rtt(), 90 * MS);
        // rttvar = 3/4·45 + 1/4·|90 − 100| = 33.75 + 2.5 = 36.25 ms; srtt = 7/8·90 + 1/8·100 = 91.25 ms.
        assert_eq!(e.rttvar(), 36_250_000);
        assert_eq!(e.smoothed_rtt(), 91_250_000);
        assert_eq!(e.latest_rtt(), 120 * MS, "latest_rtt is the unadjusted sample");
    }

    #[test]
    fn ack_delay_is_not_subtracted_below_min_rtt() {
        // min_rtt 110, sample 120, ack_delay 20: 120 < 130, adjusted = 120.
        let mut e = RttEstimator::default();
        e.update(0, 110 * MS, 0, MAD);
        let adj = e.update(MS, 120 * MS, 20 * MS, MAD);
        assert_eq!(adj, 120 * MS);
        // rttvar = 3/4·55 + 1/4·10 = 43.75 ms; srtt = 7/8·110 + 1/8·120 = 111.25 ms.
        assert_eq!(e.rttvar(), 43_750_000);
        assert_eq!(e.smoothed_rtt(), 111_250_000);
    }

    #[test]
    fn ack_delay_is_capped_at_max_ack_delay_only_after_handshake_confirmation() {
        // min_rtt 50, sample 200, reported ack_delay 100, max_ack_delay 25.
        let mut confirmed = RttEstimator::default();
        confirmed.update(0, 50 * MS, 0, MAD);
        assert_eq!(confirmed.update(MS, 200 * MS, 100 * MS, MAD), 175 * MS);
        let mut unconfirmed = RttEstimator::default();
        unconfirmed.update(0, 50 * MS, 0, None);
        assert_eq!(unconfirmed.update(MS, 200 * MS, 100 * MS, None), 100 * MS);
    }

    #[test]
    fn min_rtt_takes_the_raw_sample_before_the_adjustment_test() {
        // The new sample lowers min_rtt to 80; 80 < 80 + 10, so nothing is subtracted.
        let mut e = RttEstimator::default();
        e.update(0, 100 * MS, 0, MAD);
        assert_eq!(e.update(MS, 80 * MS, 10 * MS, MAD), 80 * MS);
        assert_eq!(e.min_rtt(), 80 * MS);
    }

    #[test]
    fn loss_delay_is_nine_eighths_of_the_larger_rtt_floored_at_granularity() {
        let mut e = RttEstimator::default();
        e.update(0, 100 * MS, 0, MAD);
        assert_eq!(e.loss_delay(), 112_500_000);
        // latest 200 > srtt 112.5: 9/8·200 = 225.
        e.update(MS, 200 * MS, 0, MAD);
        assert_eq!(e.smoothed_rtt(), 112_500_000);
        assert_eq!(e.loss_delay(), 225 * MS);
        let mut tiny = RttEstimator::default();
        tiny.update(0, 100_000, 0, MAD);
        assert_eq!(tiny.loss_delay(), GRANULARITY);
    }

    #[test]
    fn persistent_congestion_resets_min_rtt_to_the_latest_sample() {
        let mut e = RttEstimator::default();
        e.update(0, 50 * MS, 0, MAD);
        e.update(MS, 300 * MS, 0, MAD);
        assert_eq!(e.min_rtt(), 50 * MS);
        e.on_persistent_congestion();
        assert_eq!(e.min_rtt(), 300 * MS);
    }
}
