//! CCID2: DCCP's "TCP-like" congestion control, with the window counted in packets.
//!
//! Sources: RFC 4341 §5 (congestion control on data packets: slow start, congestion avoidance,
//! halving the window once per round trip of losses or marks, cwnd = 1 and ssthresh = cwnd/2
//! after a timeout, the initial window of RFC 3390 in packets) and Linux `net/dccp/ccids/ccid2.c`
//! (also the DCCP path of MP-DCCP), whose behaviour in words is:
//! - the window `tx_cwnd` and ssthresh are packet counts; ssthresh starts "arbitrarily high";
//! - the initial window is RFC 3390's converted to packets;
//! - slow start (cwnd < ssthresh) adds one packet for every two newly acknowledged packets, and
//!   at most ceil(Ack Ratio / 2) packets per ACK; packets an ACK acknowledges beyond that cap
//!   are not counted;
//! - congestion avoidance adds one packet once cwnd packets have been acknowledged (one counter
//!   of acknowledged packets serves both phases);
//! - a congestion event (a packet lost according to the Ack Vector, or ECN-marked) halves the
//!   window, cwnd = max(cwnd/2, 1), and sets ssthresh = max(cwnd, 2), at most once per round
//!   trip ("multiple losses in an RTT, treating as one");
//! - the retransmission timer sets ssthresh = max(cwnd/2, 2), cwnd = 1 and clears the count
//!   of acknowledged packets;
//! - there are no retransmissions and no pacing.
//!
//! Here the window is `cwnd` packets of `CcParams::mss` bytes: `window()` = cwnd × mss, always a
//! whole number of packets. The transport limits reductions to one per recovery period (RFC
//! 9002's, about one round trip; `transport/quic/cc.rs`), which stands for Linux's
//! once-per-RTT rule.
//!
//! Interpretations:
//! - Initial window: RFC 3390's bound min(4·MSS, max(2·MSS, 4380 B)) in whole packets,
//!   min(4, max(2, ⌊4380 / MSS⌋)): 4 packets up to 1095 B, 3 up to 1460 B, 2 above. The bound
//!   is an upper limit, so it is rounded down; Linux (`rfc3390_bytes_to_packets`) gives 3 for
//!   1460 < MSS ≤ 2190 B, up to 6570 B. `CcParams::initial_cwnd_segments` is ignored: it is the
//!   transport's initial window (TCP's 10, RFC 9002's 10 datagrams), while RFC 4341 §5 and Linux
//!   derive CCID2's from the MSS alone.
//! - Packets acknowledged: the trait reports bytes, so an ACK counts ⌊(bytes acknowledged +
//!   the remainder carried from earlier ACKs) / MSS⌋ packets and carries the rest. A transport
//!   that wants the Linux count for packets smaller than the MSS charges each packet as one MSS.
//! - Ack Ratio: not modelled by the controller; the slow-start cap is that of the RFC 4340
//!   default Ack Ratio 2, ceil(2/2) = 1 packet per ACK. With an ACK every second packet that
//!   is "+1 per 2 acknowledged packets"; an ACK of more packets still adds one.
//! - Recovery: DCCP retransmits nothing and CCID2 has no recovery phase; the ACKs of the round
//!   trip after a reduction grow the window like any other (Linux counts them), so
//!   `AckEvent::in_recovery` is ignored (and `uses_prr` is false for a TCP sender running it).
//! - No growth for an application-limited sender (`!cwnd_limited`, RFC 7661, as every controller
//!   here). RFC 4341 §5 asks for RFC 2861's window validation, which Linux implements by letting
//!   the window grow and halving the unused part after an idle or application-limited RTO; the
//!   packets of such ACKs are not counted later either.
//! - The count of acknowledged packets restarts at each reduction (Linux clears it only on a
//!   timeout; it could grow a halved window one packet early).
//! - A timeout while recovering (`LossEvent::during_recovery`: under QUIC, persistent
//!   congestion, which the transport reports after the congestion event of the same losses) keeps
//!   the ssthresh that event set (it halved already), and collapses cwnd to 1 packet. Linux's
//!   timer always recomputes max(cwnd/2, 2) from the window it finds; there an RTO normally fires
//!   without a preceding reduction (ACKs stopped), which gives the same ssthresh as here.

use super::{AckEvent, CcParams, CongestionControl, LossEvent};

/// RFC 3390 eq. (1): the initial window's byte bound between 2 and 4 packets.
const RFC3390_BYTES: u64 = 4380;
/// RFC 4341 §5: the initial window is at least 2 and at most 4 packets.
const INITIAL_MIN_PACKETS: u64 = 2;
const INITIAL_MAX_PACKETS: u64 = 4;
/// Linux ccid2: slow start adds one packet per this many acknowledged packets.
const SLOW_START_PACKETS_PER_INCREASE: u64 = 2;
/// RFC 4340 §11.3 default Ack Ratio (2); slow start adds at most ceil(Ack Ratio / 2) per ACK.
const ACK_RATIO: u64 = 2;
const SLOW_START_MAX_INCREASE_PER_ACK: u64 = ACK_RATIO.div_ceil(2);
/// RFC 4341 §5 / Linux: ssthresh never below 2 packets.
const MIN_SSTHRESH_PACKETS: u64 = 2;
/// ssthresh before the first reduction ("arbitrarily high").
const INFINITE: u64 = u64::MAX;

/// The RFC 3390 initial window in whole packets of `mss` bytes: min(4, max(2, ⌊4380 / mss⌋)).
pub fn initial_window_packets(mss: u32) -> u64 {
    (RFC3390_BYTES / mss.max(1) as u64).clamp(INITIAL_MIN_PACKETS, INITIAL_MAX_PACKETS)
}

#[derive(Clone, Debug)]
pub struct Ccid2 {
    mss: u64,
    /// Congestion window, packets (≥ 1).
    cwnd: u64,
    /// Slow-start threshold, packets (`INFINITE` until the first reduction).
    ssthresh: u64,
    /// Linux `tx_packets_acked`: packets acknowledged toward the next increase.
    packets_acked: u64,
    /// Bytes acknowledged that do not yet make a whole packet (< mss).
    byte_credit: u64,
}

impl Ccid2 {
    pub fn new(p: CcParams) -> Self {
        let mss = p.mss.max(1) as u64;
        Self { mss, cwnd: initial_window_packets(p.mss), ssthresh: INFINITE, packets_acked: 0, byte_credit: 0 }
    }

    /// Congestion window in packets.
    pub fn cwnd_packets(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold in packets (u64::MAX before the first reduction).
    pub fn ssthresh_packets(&self) -> u64 {
        self.ssthresh
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Grow by `n` newly acknowledged packets, one ACK's worth.
    fn grow(&mut self, mut n: u64) {
        let mut increases_left = SLOW_START_MAX_INCREASE_PER_ACK;
        while n > 0 {
            let slow_start = self.in_slow_start();
            let per_increase = if slow_start { SLOW_START_PACKETS_PER_INCREASE } else { self.cwnd };
            if slow_start && increases_left == 0 {
                // Linux stops counting this ACK's packets once its slow-start cap is reached.
                return;
            }
            let take = n.min(per_increase.saturating_sub(self.packets_acked).max(1));
            self.packets_acked += take;
            n -= take;
            if self.packets_acked >= per_increase {
                self.cwnd += 1;
                self.packets_acked = 0;
                if slow_start {
                    increases_left -= 1;
                }
            }
        }
    }
}

impl CongestionControl for Ccid2 {
    fn reads_rate_samples(&self) -> bool {
        false
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if !ev.cwnd_limited || ev.bytes_acked == 0 {
            return;
        }
        let bytes = self.byte_credit.saturating_add(ev.bytes_acked);
        self.byte_credit = bytes % self.mss;
        self.grow(bytes / self.mss);
    }

    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        // RFC 4341 §5; Linux ccid2_congestion_event.
        self.cwnd = (self.cwnd / 2).max(1);
        self.ssthresh = self.cwnd.max(MIN_SSTHRESH_PACKETS);
        self.packets_acked = 0;
        self.byte_credit = 0;
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        // RFC 4341 §5; Linux ccid2_hc_tx_rto_expire.
        if !ev.during_recovery {
            self.ssthresh = (self.cwnd / 2).max(MIN_SSTHRESH_PACKETS);
        }
        self.cwnd = 1;
        self.packets_acked = 0;
        self.byte_credit = 0;
    }

    fn window(&self) -> u64 {
        self.cwnd.saturating_mul(self.mss)
    }

    fn ssthresh(&self) -> u64 {
        if self.ssthresh == INFINITE {
            INFINITE
        } else {
            self.ssthresh.saturating_mul(self.mss)
        }
    }

    /// No fast recovery: the window alone is what CCID2 sends against.
    fn uses_prr(&self) -> bool {
        false
    }

    fn state_name(&self) -> &'static str {
        if self.in_slow_start() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;
    const M: u64 = MSS as u64;

    fn ccid2() -> Ccid2 {
        Ccid2::new(CcParams { mss: MSS, initial_cwnd_segments: 10 })
    }

    fn ack(bytes: u64) -> AckEvent {
        AckEvent { bytes_acked: bytes, bytes_delivered: bytes, cwnd_limited: true, mss: MSS, ..Default::default() }
    }

    fn loss() -> LossEvent {
        LossEvent { mss: MSS, ..Default::default() }
    }

    /// A controller in congestion avoidance at `cwnd` packets (ssthresh = cwnd).
    fn in_congestion_avoidance(cwnd: u64) -> Ccid2 {
        let mut c = ccid2();
        c.cwnd = 2 * cwnd;
        c.on_congestion_event(&loss());
        assert_eq!((c.cwnd_packets(), c.ssthresh_packets()), (cwnd, cwnd));
        c
    }

    #[test]
    fn initial_window_is_rfc3390_in_whole_packets_whatever_the_transport_asks() {
        for (mss, packets) in [(536, 4), (1000, 4), (1095, 4), (1096, 3), (1460, 3), (1461, 2), (1500, 2), (2190, 2), (9000, 2), (1, 4)] {
            let c = Ccid2::new(CcParams { mss, initial_cwnd_segments: 10 });
            assert_eq!(c.cwnd_packets(), packets, "mss {mss}");
            assert_eq!(c.window(), packets * mss as u64, "mss {mss}");
            assert_eq!(c.ssthresh(), u64::MAX);
            assert_eq!(c.state_name(), "slow_start");
        }
        let c = Ccid2::new(CcParams { mss: 1460, initial_cwnd_segments: 1 });
        assert_eq!(c.cwnd_packets(), 3, "initial_cwnd_segments does not override RFC 4341 §5");
    }

    #[test]
    fn slow_start_adds_one_packet_per_two_acknowledged_packets() {
        // One ACK per packet: +1 on every second ACK. From 4 packets, after k ACKs: 4 + k/2.
        let mut c = ccid2();
        for k in 1..=10u64 {
            c.on_ack(&ack(M));
            assert_eq!(c.cwnd_packets(), 4 + k / 2, "after {k} ACKs");
        }
        // One ACK per two packets (Ack Ratio 2): +1 per ACK.
        let mut c = ccid2();
        for k in 1..=6u64 {
            c.on_ack(&ack(2 * M));
            assert_eq!(c.cwnd_packets(), 4 + k, "after {k} ACKs of 2 packets");
        }
        assert_eq!(c.window(), 10 * M);
    }

    #[test]
    fn slow_start_adds_at_most_one_packet_per_ack() {
        // ceil(AckRatio/2) = 1: an ACK of 6 packets adds one; the 4 packets beyond the cap are
        // not counted (Linux), so the next single-packet ACK does not add another.
        let mut c = ccid2();
        c.on_ack(&ack(6 * M));
        assert_eq!(c.cwnd_packets(), 5);
        c.on_ack(&ack(M));
        assert_eq!(c.cwnd_packets(), 5);
        c.on_ack(&ack(M));
        assert_eq!(c.cwnd_packets(), 6);
    }

    #[test]
    fn partial_packets_are_carried_to_the_next_ack() {
        // 1.5 packets then 0.5: together two packets, one increase.
        let mut c = ccid2();
        c.on_ack(&ack(1500));
        assert_eq!(c.cwnd_packets(), 4);
        c.on_ack(&ack(500));
        assert_eq!(c.cwnd_packets(), 5);
        // 0.4 packets five times: two packets in all, one increase on the fifth ACK.
        for i in 1..=5 {
            c.on_ack(&ack(400));
            assert_eq!(c.cwnd_packets(), if i < 5 { 5 } else { 6 }, "after {i} ACKs of 400 B");
        }
    }

    #[test]
    fn congestion_avoidance_adds_one_packet_per_window_of_acknowledged_packets() {
        let mut c = in_congestion_avoidance(10);
        assert_eq!(c.state_name(), "congestion_avoidance");
        for i in 1..=9 {
            c.on_ack(&ack(M));
            assert_eq!(c.cwnd_packets(), 10, "after {i} packets");
        }
        c.on_ack(&ack(M));
        assert_eq!(c.cwnd_packets(), 11);
        // The next increase takes 11 packets; in ACKs of 2: after 12 packets (6 ACKs), one left.
        for _ in 0..5 {
            c.on_ack(&ack(2 * M));
        }
        assert_eq!(c.cwnd_packets(), 11, "10 of 11 packets");
        c.on_ack(&ack(2 * M));
        assert_eq!(c.cwnd_packets(), 12);
        // One packet counts toward 12 already. A stretch ACK of 26 packets completes this
        // increase (11 more) and the next (13), with no cap outside slow start, and carries 2.
        c.on_ack(&ack(26 * M));
        assert_eq!(c.cwnd_packets(), 14);
        assert_eq!(c.packets_acked, 2);
    }

    #[test]
    fn slow_start_hands_over_to_congestion_avoidance_at_ssthresh() {
        // cwnd 4, ssthresh 5: the ACK that reaches ssthresh ends slow start.
        let mut c = ccid2();
        c.ssthresh = 5;
        c.cwnd = 4;
        c.on_ack(&ack(2 * M));
        assert_eq!(c.cwnd_packets(), 5);
        assert_eq!(c.state_name(), "congestion_avoidance");
        for _ in 0..4 {
            c.on_ack(&ack(M));
        }
        assert_eq!(c.cwnd_packets(), 5);
        c.on_ack(&ack(M));
        assert_eq!(c.cwnd_packets(), 6);
    }

    #[test]
    fn a_congestion_event_halves_the_window_rounding_down() {
        for (cwnd, after, ssthresh) in [(7, 3, 3), (1, 1, 2), (2, 1, 2), (3, 1, 2), (4, 2, 2), (10, 5, 5), (11, 5, 5)] {
            let mut c = ccid2();
            c.cwnd = cwnd;
            c.on_congestion_event(&LossEvent { flight_size: 100 * M, ..loss() });
            assert_eq!((c.cwnd_packets(), c.ssthresh_packets()), (after, ssthresh), "from {cwnd}");
            assert_eq!(c.window(), after * M);
            assert_eq!(c.ssthresh(), ssthresh * M);
        }
    }

    #[test]
    fn a_timeout_leaves_one_packet_and_half_the_window_as_ssthresh() {
        for (cwnd, ssthresh) in [(20, 10), (7, 3), (3, 2), (1, 2)] {
            let mut c = ccid2();
            c.cwnd = cwnd;
            c.on_rto(&LossEvent { flight_size: 100 * M, ..loss() });
            assert_eq!((c.cwnd_packets(), c.ssthresh_packets()), (1, ssthresh), "from {cwnd}");
            assert_eq!(c.window(), M);
        }
        // Slow start from one packet again: 1 → 2 after two packets.
        let mut c = ccid2();
        c.cwnd = 20;
        c.on_rto(&loss());
        c.on_ack(&ack(M));
        assert_eq!(c.cwnd_packets(), 1);
        c.on_ack(&ack(M));
        assert_eq!(c.cwnd_packets(), 2);
    }

    #[test]
    fn a_timeout_during_recovery_keeps_the_ssthresh_of_its_congestion_event() {
        // Persistent congestion under QUIC: the congestion event (20 → 10, ssthresh 10), then
        // the collapse to one packet without halving ssthresh again.
        let mut c = ccid2();
        c.cwnd = 20;
        c.on_congestion_event(&loss());
        c.on_rto(&LossEvent { during_recovery: true, ..loss() });
        assert_eq!((c.cwnd_packets(), c.ssthresh_packets()), (1, 10));
    }

    #[test]
    fn no_growth_when_application_limited() {
        let mut c = ccid2();
        c.on_ack(&AckEvent { cwnd_limited: false, ..ack(2 * M) });
        c.on_ack(&AckEvent { cwnd_limited: false, ..ack(1500) });
        assert_eq!(c.cwnd_packets(), 4);
        assert_eq!((c.packets_acked, c.byte_credit), (0, 0), "those packets are not counted later");
    }

    #[test]
    fn the_round_trip_after_a_reduction_grows_the_window_as_linux_does() {
        // 20 → 10 packets; the 20 packets sent before the reduction are acknowledged while the
        // transport still reports recovery: the first 10 add a packet, the next 10 count toward
        // the 11 of the next increase.
        let mut c = ccid2();
        c.cwnd = 20;
        c.on_congestion_event(&loss());
        for _ in 0..10 {
            c.on_ack(&AckEvent { in_recovery: true, ..ack(2 * M) });
        }
        assert_eq!(c.cwnd_packets(), 11);
        assert_eq!(c.packets_acked, 10);
    }

    #[test]
    fn the_window_is_always_a_whole_number_of_packets() {
        let mss = 1357u32;
        let mut c = Ccid2::new(CcParams { mss, initial_cwnd_segments: 10 });
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for i in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 50 {
                0 => c.on_congestion_event(&loss()),
                1 => c.on_rto(&LossEvent { during_recovery: x.is_multiple_of(3), ..loss() }),
                _ => c.on_ack(&AckEvent { bytes_acked: x % 5000, cwnd_limited: true, mss, ..Default::default() }),
            }
            assert!(c.window().is_multiple_of(mss as u64), "step {i}");
            assert!(c.window() >= mss as u64, "step {i}");
            assert!(c.ssthresh() == u64::MAX || (c.ssthresh().is_multiple_of(mss as u64) && c.ssthresh() >= 2 * mss as u64), "step {i}");
        }
    }
}
