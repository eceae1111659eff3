//! Delivery-rate estimation, draft-cheng-iccrg-delivery-rate-estimation-02.
//!
//! At every (re)transmission the sender snapshots the connection's delivery state into the
//! segment's record (`TxState`, the draft's P.delivered, P.delivered_time, P.first_sent_time,
//! P.is_app_limited, plus BBRv2's tx_in_flight and lost). When an ACK newly delivers segments,
//! the most recently sent of them (largest P.delivered) yields the sample:
//!   delivered = C.delivered − P.delivered,
//!   interval = max(P.sent_time − P.first_sent_time, now − P.delivered_time)    (§3.3)
//! and the rate is delivered / interval, invalid when interval < min_rtt.
//! App-limited marking (§3.4): when the sender runs out of data while neither the window nor a
//! pending retransmission stops it, C.app_limited = C.delivered + inflight; samples of segments
//! sent before that point is delivered are marked app-limited.

use crate::cc::RateSample;
use crate::metrics::u64_to_f64;
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

/// The connection's delivery state at a segment's transmission.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxState {
    pub delivered: u64,
    pub delivered_time: Time,
    pub first_sent_time: Time,
    pub is_app_limited: bool,
    /// Bytes in flight just after this segment left.
    pub tx_in_flight: u64,
    /// C.lost at transmission.
    pub lost: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct RateEstimator {
    /// C.delivered: bytes ever delivered (cumulatively ACKed or SACKed).
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// C.app_limited: 0, or the C.delivered value that ends the app-limited phase.
    app_limited_until: u64,
    /// Whether `on_ack` returns samples: false for a controller that never reads them
    /// (`CongestionControl::reads_rate_samples`), which then spares the division of every ACK.
    /// The connection state (C.delivered, its time, C.first_sent_time) is kept either way.
    samples: bool,
}

impl RateEstimator {
    /// An estimator that returns samples from `on_ack` only if `samples`.
    pub fn new(samples: bool) -> Self {
        Self { delivered: 0, delivered_time: 0, first_sent_time: 0, app_limited_until: 0, samples }
    }

    /// Snapshot for a segment of `len` bytes sent at `now` with `in_flight` bytes already out.
    #[inline]
    pub fn on_send(&mut self, now: Time, in_flight: u64, len: u32, lost_total: u64) -> TxState {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxState {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            is_app_limited: self.app_limited_until != 0,
            tx_in_flight: in_flight + len as u64,
            lost: lost_total,
        }
    }

    /// The sender ran out of application data with room in its window (§3.4).
    pub fn on_app_limited(&mut self, in_flight: u64) {
        self.app_limited_until = (self.delivered + in_flight).max(1);
    }

    pub fn is_app_limited(&self) -> bool {
        self.app_limited_until != 0
    }

    /// C.delivered at the transmission of the newest segment an ACK newly delivered
    /// (`AckEvent::prior_delivered`, the sample's `prior_delivered`); None when it delivered
    /// nothing. Given to every controller, whether or not the estimator takes samples.
    #[inline]
    pub fn prior_delivered(bytes: u64, newest: Option<(TxState, Time)>) -> Option<u64> {
        newest.filter(|_| bytes > 0).map(|(tx, _)| tx.delivered)
    }

    /// An ACK newly delivered `bytes`; `newest` is the transmission state and send time of the
    /// most recently sent segment among them.
    #[inline]
    pub fn on_ack(&mut self, now: Time, bytes: u64, newest: Option<(TxState, Time)>, lost_total: u64, min_rtt: Time) -> Option<RateSample> {
        if bytes == 0 {
            return None;
        }
        self.delivered += bytes;
        self.delivered_time = now;
        if self.app_limited_until != 0 && self.delivered > self.app_limited_until {
            self.app_limited_until = 0;
        }
        let (p, sent_at) = newest?;
        self.first_sent_time = sent_at;
        if !self.samples {
            return None;
        }
        let send_elapsed = sent_at.saturating_sub(p.first_sent_time);
        let ack_elapsed = now.saturating_sub(p.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - p.delivered;
        // f64 rather than u128 arithmetic: an order of magnitude cheaper on every ACK, exact to
        // far below a byte per second, and IEEE-deterministic (signed conversions: the same
        // values, fewer instructions).
        let delivery_rate =
            (interval > 0 && interval >= min_rtt).then(|| (u64_to_f64(delivered) * SECOND as f64 / u64_to_f64(interval)) as u64);
        Some(RateSample {
            prior_delivered: p.delivered,
            delivered,
            interval,
            delivery_rate,
            is_app_limited: p.is_app_limited,
            tx_in_flight: p.tx_in_flight,
            lost: lost_total.saturating_sub(p.lost),
            rtt: now.saturating_sub(sent_at),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;

    #[test]
    fn a_window_acked_one_rtt_later_measures_window_per_rtt() {
        // 10 segments of 1000 B sent at t = 0..9 ms back to back, each ACKed 100 ms later.
        let mut r = RateEstimator::new(true);
        let mut sent = vec![];
        for i in 0..10u64 {
            sent.push((r.on_send(i * MS, i * 1000, 1000, 0), i * MS));
        }
        let mut last = None;
        for (i, s) in sent.iter().enumerate() {
            last = r.on_ack(100 * MS + i as u64 * MS, 1000, Some(*s), 0, 50 * MS);
        }
        let rs = last.unwrap();
        // The last segment: sent at 9 ms with delivered = 0 since t = 0; ACKed at 109 ms after
        // 10 000 B were delivered: interval = max(9, 109) ms.
        assert_eq!(rs.delivered, 10_000);
        assert_eq!(rs.interval, 109 * MS);
        assert_eq!(rs.delivery_rate, Some(10_000 * 1000 / 109));
        assert_eq!(rs.rtt, 100 * MS);
        assert_eq!(rs.tx_in_flight, 10_000);
    }

    #[test]
    fn an_estimator_without_samples_keeps_the_same_state() {
        // The same sends and ACKs through both: equal state after each, samples only from one.
        let (mut with, mut without) = (RateEstimator::new(true), RateEstimator::new(false));
        for i in 0..20u64 {
            let (a, b) = (with.on_send(i * MS, i % 3 * 1000, 1000, 0), without.on_send(i * MS, i % 3 * 1000, 1000, 0));
            assert_eq!(a, b);
            if i % 4 == 0 {
                with.on_app_limited(500);
                without.on_app_limited(500);
            }
            let (x, y) = (
                with.on_ack(50 * MS + i * MS, 1000, Some((a, i * MS)), 0, 10 * MS),
                without.on_ack(50 * MS + i * MS, 1000, Some((b, i * MS)), 0, 10 * MS),
            );
            assert!(x.is_some() && y.is_none());
            assert_eq!(
                (with.delivered, with.delivered_time, with.first_sent_time, with.app_limited_until),
                (without.delivered, without.delivered_time, without.first_sent_time, without.app_limited_until)
            );
        }
    }

    #[test]
    fn samples_shorter_than_min_rtt_have_no_rate() {
        let mut r = RateEstimator::new(true);
        let p = r.on_send(0, 0, 1000, 0);
        let rs = r.on_ack(10 * MS, 1000, Some((p, 0)), 0, 20 * MS).unwrap();
        assert_eq!(rs.delivery_rate, None);
    }

    #[test]
    fn app_limited_marking_lasts_until_the_marked_data_is_delivered() {
        let mut r = RateEstimator::new(true);
        let p0 = r.on_send(0, 0, 1000, 0);
        r.on_app_limited(1000);
        let p1 = r.on_send(MS, 1000, 1000, 0);
        assert!(!p0.is_app_limited && p1.is_app_limited);
        let s0 = r.on_ack(100 * MS, 1000, Some((p0, 0)), 0, 0).unwrap();
        assert!(!s0.is_app_limited);
        assert!(r.is_app_limited(), "1000 delivered is not beyond the mark of 1000");
        let s1 = r.on_ack(101 * MS, 1000, Some((p1, MS)), 0, 0).unwrap();
        assert!(s1.is_app_limited);
        assert!(!r.is_app_limited());
    }

    #[test]
    fn lost_counts_losses_since_the_segment_was_sent() {
        let mut r = RateEstimator::new(true);
        let p = r.on_send(0, 0, 1000, 5000);
        let rs = r.on_ack(100 * MS, 1000, Some((p, 0)), 8000, 0).unwrap();
        assert_eq!(rs.lost, 3000);
    }
}
