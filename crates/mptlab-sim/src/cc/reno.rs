//! Reno and NewReno window control.
//!
//! Sources: RFC 5681 §3.1 (slow start, congestion avoidance, eq. (4) ssthresh = max(FlightSize/2,
//! 2·SMSS), loss window of 1 SMSS after a timeout), RFC 3465 (appropriate byte counting: in slow
//! start cwnd grows by min(bytes acked, L·SMSS) with L = 2; in congestion avoidance by one SMSS
//! once a full cwnd of bytes has been acknowledged), RFC 6582 (NewReno recovery) and RFC 7661
//! (no growth while application-limited).
//!
//! Interpretation: like Linux, growth is counted in bytes acknowledged, so delayed ACKs do not
//! halve the congestion-avoidance slope (the Padhye model's b is therefore 1 for this
//! simulator). The two names share this window; they differ only in how fast recovery ends when
//! SACK is off, which the TCP sender asks through `exits_recovery_on_partial_ack`.
//!
//! Against Linux, step by step (issue 17; `net/ipv4/tcp_cong.c`, `tcp_input.c`, `tcp_output.c`):
//! - Congestion avoidance: `tcp_reno_cong_avoid` → `tcp_cong_avoid_ai(tp, cwnd, acked)` keeps a
//!   credit in packets and adds one packet per cwnd packets acknowledged, carrying the rest;
//!   here the same in bytes. Linux adds several packets at once when one ACK brings several
//!   windows of credit; here one segment per ACK and the credit is carried (only stretch ACKs
//!   of more than a window differ). Neither depends on how many segments an ACK covers.
//! - Slow start: `tcp_slow_start` adds every packet acknowledged up to ssthresh and passes the
//!   rest to congestion avoidance, with no per-ACK limit (ABC's L left Linux in 3.9); here
//!   RFC 3465's L = 2 segments per ACK, nothing carried. Equal for ACKs of ≤ 2 segments.
//! - What counts: Linux counts `acked_sacked` (packets newly delivered, SACKed ones included)
//!   on ACKs that advance SND.UNA (`tcp_may_raise_cwnd`, FLAG_DATA_ACKED); here the bytes
//!   cumulatively acknowledged. They differ only for data SACKed outside recovery.
//! - Cwnd-limited: Linux latches `is_cwnd_limited` for a window (`tcp_cwnd_validate`, until
//!   SND.UNA passes `cwnd_usage_seq`) or, in slow start, cwnd < 2·`max_packets_out`
//!   (`tcp_is_cwnd_limited`); here the sender's latch (set when sending stopped on the window,
//!   cleared when it stopped for data or the receive window), prior in-flight + MSS > cwnd, or
//!   in slow start cwnd < 2·prior in-flight. A greedy sender is cwnd-limited on every ACK in
//!   both.
//! - Recovery: no growth in Recovery/CWR (`tcp_in_cwnd_reduction`), PRR (`tcp_cwnd_reduction`),
//!   cwnd = ssthresh at the end (`tcp_end_cwnd_reduction`). Linux handles the ACK that ends
//!   recovery in the Open state and grows by the packets it newly delivers (usually the last
//!   retransmission); here that ACK does not grow the window (at most one segment's credit per
//!   episode).
//! - ssthresh: Linux `tcp_reno_ssthresh` = max(cwnd/2, 2); here max(min(FlightSize, cwnd)/2,
//!   2·SMSS), FlightSize without limited-transmit data: the same for a cwnd-limited sender.
//! - Undo of spurious recoveries (`tcp_try_undo_*`, DSACK, timestamps) is not modelled.
//!
//! `tests/tcp_delack.rs` measures that the window data is sent under and the loss-event rate
//! are the same with and without delayed ACKs (docs/congestion-control.md).

use super::{AckEvent, CcParams, CongestionControl, LossEvent};

/// RFC 3465 §2.2: L = 2·SMSS limit on slow-start growth per ACK.
const ABC_LIMIT_SEGMENTS: u64 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// RFC 5681 §3.2: recovery ends with the first ACK of new data.
    Reno,
    /// RFC 6582: recovery ends when the recovery point is acknowledged.
    NewReno,
}

#[derive(Clone, Debug)]
pub struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last congestion-avoidance increase (RFC 3465 §2.1).
    bytes_acked: u64,
    recovery: Recovery,
}

impl Reno {
    pub fn new(p: CcParams, recovery: Recovery) -> Self {
        let mss = p.mss as u64;
        Self { mss, cwnd: p.initial_cwnd_segments.max(1) as u64 * mss, ssthresh: u64::MAX, bytes_acked: 0, recovery }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    fn halve(&self, flight_size: u64) -> u64 {
        // RFC 5681 eq. (4)
        (flight_size / 2).max(2 * self.mss)
    }
}

impl CongestionControl for Reno {
    fn reads_rate_samples(&self) -> bool {
        false
    }
    #[inline]
    fn on_ack(&mut self, ev: &AckEvent) {
        if ev.in_recovery || !ev.cwnd_limited || ev.bytes_acked == 0 {
            return;
        }
        if self.in_slow_start() {
            let inc = ev.bytes_acked.min(ABC_LIMIT_SEGMENTS * self.mss);
            self.cwnd = (self.cwnd + inc).min(self.ssthresh.max(self.cwnd));
            if self.cwnd >= self.ssthresh {
                self.bytes_acked = 0;
            }
            return;
        }
        self.bytes_acked += ev.bytes_acked;
        if self.bytes_acked >= self.cwnd {
            self.bytes_acked -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.ssthresh = self.halve(ev.flight_size);
        self.cwnd = self.ssthresh;
        self.bytes_acked = 0;
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        if !ev.during_recovery {
            self.ssthresh = self.halve(ev.flight_size);
        }
        self.cwnd = self.mss;
        self.bytes_acked = 0;
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn exits_recovery_on_partial_ack(&self) -> bool {
        self.recovery == Recovery::Reno
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn reno() -> Reno {
        Reno::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, Recovery::NewReno)
    }

    fn ack(bytes: u64) -> AckEvent {
        AckEvent { bytes_acked: bytes, cwnd_limited: true, mss: MSS, ..Default::default() }
    }

    #[test]
    fn slow_start_doubles_per_round_trip() {
        let mut r = reno();
        // One round: 10 segments acknowledged, one ACK each.
        for _ in 0..10 {
            r.on_ack(&ack(MSS as u64));
        }
        assert_eq!(r.window(), 20 * MSS as u64);
    }

    #[test]
    fn slow_start_growth_per_ack_is_capped_at_two_segments() {
        let mut r = reno();
        r.on_ack(&ack(5 * MSS as u64));
        assert_eq!(r.window(), 12 * MSS as u64);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_even_with_delayed_acks() {
        let mut r = reno();
        r.on_congestion_event(&LossEvent { flight_size: 40 * MSS as u64, mss: MSS, ..Default::default() });
        assert_eq!(r.window(), 20 * MSS as u64);
        // A window of 20 segments acknowledged two at a time (delayed ACKs).
        for _ in 0..10 {
            r.on_ack(&ack(2 * MSS as u64));
        }
        assert_eq!(r.window(), 21 * MSS as u64);
    }

    #[test]
    fn loss_halves_flight_size_with_two_segment_floor() {
        let mut r = reno();
        r.on_congestion_event(&LossEvent { flight_size: 3 * MSS as u64, mss: MSS, ..Default::default() });
        assert_eq!(r.ssthresh(), 2 * MSS as u64);
    }

    #[test]
    fn timeout_sets_loss_window_of_one_segment() {
        let mut r = reno();
        r.on_rto(&LossEvent { flight_size: 30 * MSS as u64, mss: MSS, ..Default::default() });
        assert_eq!(r.window(), MSS as u64);
        assert_eq!(r.ssthresh(), 15 * MSS as u64);
    }

    #[test]
    fn timeout_during_recovery_keeps_the_recovery_ssthresh() {
        let mut r = reno();
        r.on_congestion_event(&LossEvent { flight_size: 40 * MSS as u64, mss: MSS, ..Default::default() });
        r.on_rto(&LossEvent { flight_size: 400 * MSS as u64, mss: MSS, during_recovery: true, ..Default::default() });
        assert_eq!(r.ssthresh(), 20 * MSS as u64);
        assert_eq!(r.window(), MSS as u64);
    }

    #[test]
    fn application_limited_sender_does_not_grow() {
        let mut r = reno();
        r.on_ack(&AckEvent { bytes_acked: MSS as u64, cwnd_limited: false, ..Default::default() });
        assert_eq!(r.window(), 10 * MSS as u64);
    }

    #[test]
    fn no_growth_during_recovery() {
        let mut r = reno();
        r.on_ack(&AckEvent { bytes_acked: MSS as u64, cwnd_limited: true, in_recovery: true, ..Default::default() });
        assert_eq!(r.window(), 10 * MSS as u64);
    }
}
