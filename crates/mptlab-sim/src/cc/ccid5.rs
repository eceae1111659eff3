//! CCID5: BBR v1 for DCCP, the window in whole packets.
//!
//! Source: MP-DCCP's Linux `net/dccp/ccids/ccid5.c` (Deutsche Telekom, 2019), a port of Linux
//! `tcp_bbr.c` and `tcp_rate.c` to DCCP in which the congestion window `tx_cwnd` counts packets
//! (the paper of seed 003, §5.4: CCID5 "bases its congestion window on packets rather than
//! bytes"): the target window is the BDP rounded up to packets plus the quantization budget,
//! the minimum target is 4 packets, PROBE_RTT holds 4 packets, and the RTO sets cwnd = 1 packet
//! (and ssthresh = max(cwnd/2, 2), which BBR does not read). The model, the state machine and
//! the pacing rate are tcp_bbr.c's, which `cc/bbr` implements; this file only wraps it.
//!
//! `window()` is BBR's window rounded down to a whole number of `CcParams::mss`-byte packets
//! (never below one packet). BBR's own minimum of 4 packets applies wherever BBR applies it
//! (its window is then at least 4 packets, and so is the rounded one); after a timeout and in
//! packet conservation BBR goes below it, as ccid5.c does (cwnd = 1 after an RTO). Pacing rate,
//! send quantum, state and every other hook are BBR's, unchanged. Options: BBR's (`BbrConfig`).
//!
//! Interpretations:
//! - Rounding down, not up: ccid5.c rounds the BDP up to packets and the target to an even
//!   number of packets; here the byte window of `cc/bbr` (whose target has no even rounding, see
//!   its header) is floored, so CCID5's window is at most BBR's and at most one packet below it.
//! - BBR keeps its byte window internally and grows it by the bytes delivered; only the window
//!   reported to the transport is whole packets. ssthresh is reported rounded down likewise.
//! - Initial window: 10 packets, as ccid5.c sets `tx_cwnd = 10` at initialisation;
//!   `CcParams::initial_cwnd_segments` is ignored.
//! - Not modelled: ccid5.c's Ack Ratio and Sequence Window adjustments (DCCP feature
//!   negotiation), and its long-term (policer) bandwidth estimator, which `cc/bbr` leaves out
//!   too. The paper's "visibly longer minimum-RTT probing periods" of CCID5 are not reproduced
//!   (seed 003 study notes, A11): PROBE_RTT is BBR's.

use super::bbr::{Bbr, BbrConfig};
use super::{AckEvent, CcParams, CongestionControl, LossEvent};
use mptlab_engine::Time;

/// ccid5.c `ccid5_hc_tx_init`: tx_cwnd = 10 packets.
pub const INITIAL_WINDOW_PACKETS: u32 = 10;

pub struct Ccid5 {
    bbr: Bbr,
    mss: u64,
}

impl Ccid5 {
    pub fn new(p: CcParams, cfg: &BbrConfig) -> Self {
        let bbr = Bbr::new(CcParams { mss: p.mss, initial_cwnd_segments: INITIAL_WINDOW_PACKETS }, cfg);
        Self { bbr, mss: p.mss.max(1) as u64 }
    }

    /// The BBR model underneath (its byte window, mode, BtlBw, RTprop).
    pub fn bbr(&self) -> &Bbr {
        &self.bbr
    }

    /// `bytes` rounded down to whole packets, at least one.
    fn whole_packets(&self, bytes: u64) -> u64 {
        (bytes / self.mss * self.mss).max(self.mss)
    }
}

impl CongestionControl for Ccid5 {
    fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        self.bbr.on_packet_sent(now, bytes, in_flight)
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.bbr.on_ack(ev)
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.bbr.on_congestion_event(ev)
    }

    fn on_recovery_exit(&mut self, now: Time) {
        self.bbr.on_recovery_exit(now)
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        self.bbr.on_rto(ev)
    }

    fn window(&self) -> u64 {
        self.whole_packets(self.bbr.window())
    }

    fn ssthresh(&self) -> u64 {
        match self.bbr.ssthresh() {
            u64::MAX => u64::MAX,
            s => self.whole_packets(s),
        }
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.bbr.pacing_rate()
    }

    fn send_quantum(&self) -> Option<u64> {
        self.bbr.send_quantum()
    }

    fn uses_prr(&self) -> bool {
        self.bbr.uses_prr()
    }

    fn state_name(&self) -> &'static str {
        self.bbr.state_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::bbr::Mode;
    use crate::cc::RateSample;
    use mptlab_engine::time::{MILLISECOND as MS, SECOND};
    use std::collections::VecDeque;

    const MSS: u64 = 1000;

    fn params(initial_cwnd_segments: u32) -> CcParams {
        CcParams { mss: MSS as u32, initial_cwnd_segments }
    }

    /// A CCID5 and a plain BBR (10 packets initially, as CCID5) fed the same scripted ACK
    /// stream (as `cc/bbr/testing.rs` drives BBR): a path of `bw` bytes/s and `rtt`; the
    /// segment each ACK samples was sent one RTT earlier, so its `prior_delivered` is C.delivered
    /// one RTT ago and rounds end once per RTT.
    struct Run {
        ccid5: Ccid5,
        bbr: Bbr,
        now: Time,
        delivered: u64,
        /// (time, C.delivered then), the oldest at or before now − rtt first.
        history: VecDeque<(Time, u64)>,
        bw: u64,
        rtt: Time,
        modes: Vec<Mode>,
        /// Checks where BBR's window was not a whole number of packets.
        unaligned: usize,
    }

    impl Run {
        fn new(bw: u64, rtt: Time) -> Self {
            let (ccid5, bbr) = (Ccid5::new(params(10), &BbrConfig::default()), Bbr::new(params(10), &BbrConfig::default()));
            let mut r = Self { ccid5, bbr, now: SECOND, delivered: 0, history: VecDeque::from([(0, 0)]), bw, rtt, modes: vec![], unaligned: 0 };
            r.check();
            r
        }

        /// CCID5 reports BBR's window rounded down to packets, and BBR's pacing unchanged.
        fn check(&mut self) {
            let w = self.bbr.window();
            assert_eq!(self.ccid5.window(), (w / MSS * MSS).max(MSS), "t = {} ms, bbr {w} B", self.now / MS);
            assert!(self.ccid5.window().is_multiple_of(MSS));
            assert_eq!(self.ccid5.bbr().window(), w, "the model underneath is BBR's");
            assert_eq!(self.ccid5.pacing_rate(), self.bbr.pacing_rate());
            assert_eq!(self.ccid5.send_quantum(), self.bbr.send_quantum());
            assert_eq!(self.ccid5.state_name(), self.bbr.state_name());
            let s = self.bbr.ssthresh();
            assert_eq!(self.ccid5.ssthresh(), if s == u64::MAX { s } else { s / MSS * MSS });
            self.unaligned += !w.is_multiple_of(MSS) as usize;
            if self.modes.last() != Some(&self.bbr.mode()) {
                self.modes.push(self.bbr.mode());
            }
        }

        /// An ACK `dt` after the last one, delivering `rate`·dt at delivery rate `rate`, with
        /// `in_flight` bytes left in the pipe.
        fn ack(&mut self, dt: Time, rate: u64, in_flight: u64) {
            self.now += dt;
            let bytes = ((rate as u128 * dt as u128 / SECOND as u128) as u64).max(1);
            while self.history.len() > 1 && self.history[1].0 + self.rtt <= self.now {
                self.history.pop_front();
            }
            let prior_delivered = self.history[0].1;
            self.delivered += bytes;
            self.history.push_back((self.now, self.delivered));
            let ev = AckEvent {
                now: self.now,
                bytes_acked: bytes,
                bytes_delivered: bytes,
                rtt_sample: Some(self.rtt),
                srtt: self.rtt,
                min_rtt: self.rtt,
                prior_in_flight: in_flight + bytes,
                in_flight,
                in_recovery: false,
                cwnd_limited: true,
                mss: MSS as u32,
                bytes_lost: 0,
                delivered_total: self.delivered,
                lost_total: 0,
                rate: Some(RateSample {
                    prior_delivered,
                    delivered: self.delivered - prior_delivered,
                    interval: self.rtt,
                    delivery_rate: Some(rate),
                    is_app_limited: false,
                    tx_in_flight: in_flight,
                    lost: 0,
                    rtt: self.rtt,
                }),
                prior_delivered: Some(prior_delivered),
            };
            self.bbr.on_ack(&ev);
            self.ccid5.on_ack(&ev);
            self.check();
        }

        fn both(&mut self, f: impl Fn(&mut dyn CongestionControl)) {
            f(&mut self.bbr);
            f(&mut self.ccid5);
            self.check();
        }

        fn bdp(&self) -> u64 {
            (self.bw as u128 * self.rtt as u128 / SECOND as u128) as u64
        }

        /// ACKs every 5 ms for `dur` at the path's rate, the pipe holding min(window, BDP).
        fn steady(&mut self, dur: Time) {
            let end = self.now + dur;
            while self.now < end {
                let in_flight = self.bbr.window().min(self.bdp());
                self.ack(5 * MS, self.bw, in_flight);
            }
        }
    }

    #[test]
    fn initial_window_is_ten_packets_whatever_the_transport_asks() {
        for asked in [1, 4, 10, 32] {
            let c = Ccid5::new(params(asked), &BbrConfig::default());
            assert_eq!(c.window(), 10 * MSS);
            assert_eq!(c.pacing_rate(), Bbr::new(params(10), &BbrConfig::default()).pacing_rate());
            assert_eq!(c.ssthresh(), u64::MAX);
            assert_eq!(c.state_name(), "startup");
        }
    }

    #[test]
    fn window_is_bbrs_floored_to_whole_packets_in_every_state() {
        // 1.234567 MB/s, 20 ms: BDP 24 691 B, not a whole number of 1000 B packets.
        let mut r = Run::new(1_234_567, 20 * MS);
        // STARTUP: the delivery rate doubles per round up to the bottleneck; the pipe is kept
        // at cwnd, so a queue builds and DRAIN has something to drain.
        let mut rate = r.bw / 32;
        while r.bbr.mode() == Mode::Startup {
            assert!(r.now < 5 * SECOND, "STARTUP never ended");
            for _ in 0..4 {
                let in_flight = r.bbr.window();
                r.ack(5 * MS, rate, in_flight);
            }
            rate = (rate * 2).min(r.bw);
        }
        // DRAIN while the queue lasts, then PROBE_BW once inflight is down to one BDP.
        for _ in 0..3 {
            let in_flight = r.bbr.window();
            r.ack(5 * MS, r.bw, in_flight);
        }
        assert_eq!(r.bbr.mode(), Mode::Drain);
        r.steady(100 * MS);
        assert_eq!(r.bbr.mode(), Mode::ProbeBw);
        // 10 s after the last RTprop refresh: PROBE_RTT at 4 packets for 200 ms and a round, then
        // PROBE_BW again.
        r.steady(10 * SECOND);
        r.steady(1000 * MS);
        assert_eq!(r.modes, [Mode::Startup, Mode::Drain, Mode::ProbeBw, Mode::ProbeRtt, Mode::ProbeBw]);
        // Fast recovery's packet conservation, then a timeout: one packet, as ccid5.c.
        let loss = |now| LossEvent { now, flight_size: 30 * MSS, mss: MSS as u32, during_recovery: false };
        let now = r.now;
        r.both(|c| c.on_congestion_event(&loss(now)));
        r.ack(5 * MS, r.bw, 7 * MSS + 345);
        let now = r.now;
        r.both(|c| c.on_recovery_exit(now));
        r.steady(100 * MS);
        let now = r.now;
        r.both(|c| c.on_rto(&loss(now)));
        assert_eq!(r.ccid5.window(), MSS, "a timeout leaves one packet");
        r.steady(500 * MS);
        assert!(r.unaligned > 100, "BBR's byte window was a whole number of packets too often to test the rounding ({})", r.unaligned);
    }
}
