//! Scripted exchanges for the congestion-control glue (`cc.rs`) against RFC 9002 §7 and
//! Appendix B: `LossRecovery` decides what was acknowledged and lost, `QuicCongestion` turns it
//! into controller events, and the tests check the window the sender would send against.
//!
//! Datagrams are 1200 bytes (the initial window of §7.2 is then 10 datagrams, 12 000 bytes);
//! rate-based controllers get delivery-rate samples (`QuicCongestion` keeps the snapshots).
//! The first ACK of each script lands 100 ms after the send: smoothed_rtt 100 ms, and the
//! time-threshold loss delay is 9/8 · 100 ms = 112.5 ms (§6.1.2).

use super::*;
use crate::cc::{AnyCc, CcConfig, CongestionControl};
use mptlab_engine::time::{MICROSECOND as US, MILLISECOND as MS};
use mptlab_engine::Time;
use std::collections::VecDeque;

const MDS: u32 = 1200;
const IW: u64 = 10 * MDS as u64;

/// One path: the loss recovery of its packet number space and its congestion control.
struct Path {
    rec: LossRecovery<()>,
    cc: QuicCongestion,
    out: RecoveryOutcome<()>,
    next_pn: u64,
}

impl Path {
    fn new(cc: &str) -> Self {
        let cfg = CcConfig::default_for(cc).expect("a registry name");
        Self {
            rec: LossRecovery::new(RecoveryConfig::default()),
            cc: QuicCongestion::from_config(&cfg, MDS),
            out: RecoveryOutcome::new(),
            next_pn: 0,
        }
    }

    /// Send `n` ack-eliciting datagrams at `now` (regardless of the window); returns the first
    /// packet number.
    fn send(&mut self, now: Time, n: u64) -> u64 {
        let first = self.next_pn;
        for _ in 0..n {
            self.cc.on_packet_sent(now, self.next_pn, MDS, true, self.rec.bytes_in_flight());
            self.rec.on_packet_sent(now, self.next_pn, MDS, true, true, ());
            self.next_pn += 1;
        }
        first
    }

    /// An ACK frame with inclusive (smallest, largest) ranges, largest first, no ACK delay.
    fn ack(&mut self, now: Time, ranges: &[(u64, u64)]) {
        self.rec.on_ack_received(now, ranges, 0, &mut self.out).expect("valid ACK");
        self.cc.on_outcome(now, &self.out, self.rec.rtt());
    }

    /// Fire the loss-detection timer at its deadline; returns the deadline.
    fn fire_timer(&mut self) -> Time {
        let at = self.rec.loss_detection_deadline().expect("timer armed");
        let t = self.rec.on_loss_detection_timeout(at, &mut self.out);
        assert_eq!(t, Timeout::Lost, "a time-threshold loss, not a PTO");
        self.cc.on_outcome(at, &self.out, self.rec.rtt());
        at
    }

    fn window(&self) -> u64 {
        self.cc.window()
    }
}

// ---------------------------------------------------------------- window basics (§7.2, §7)

#[test]
fn initial_window_is_ten_datagrams_capped_at_14720_bytes() {
    assert_eq!(initial_window_datagrams(1200), 10);
    // min(15 000, 14 720) = 14 720 bytes: 9 whole datagrams.
    assert_eq!(initial_window_datagrams(1500), 9);
    // min(90 000, max(14 720, 18 000)) = 18 000 bytes: the minimum window of 2 datagrams.
    assert_eq!(initial_window_datagrams(9000), 2);
    assert_eq!(Path::new("newreno").window(), IW);
}

#[test]
fn can_send_stops_at_the_window_and_pto_probes_may_exceed_it() {
    let p = Path::new("newreno");
    assert!(p.cc.can_send(IW - MDS as u64, MDS));
    assert!(!p.cc.can_send(IW - MDS as u64 + 1, MDS));
    assert!(!p.cc.can_send_probe(IW, MDS, 0));
    assert!(p.cc.can_send_probe(IW, MDS, 1), "§6.2.4: probes are not blocked by the window");
}

// ---------------------------------------------------------------- slow start (§7.3.1)

#[test]
fn slow_start_grows_the_window_by_the_bytes_acknowledged() {
    let mut p = Path::new("newreno");
    p.send(0, 10);
    assert!(!p.cc.can_send(p.rec.bytes_in_flight(), MDS));
    p.cc.on_cwnd_limited();
    // One ACK per two packets (RFC 9000 §13.2.2): each grows the window by 2 400 bytes.
    for k in 0..5u64 {
        p.ack(100 * MS + k * MS, &[(2 * k, 2 * k + 1)]);
        assert_eq!(p.window(), IW + (k + 1) * 2 * MDS as u64);
    }
    assert!(!p.cc.in_recovery());
}

#[test]
fn an_application_limited_sender_does_not_grow_the_window() {
    // §7.8: two packets out of a 10-packet window, then no more data.
    let mut p = Path::new("newreno");
    p.send(0, 2);
    p.cc.on_app_limited(p.rec.bytes_in_flight());
    p.ack(100 * MS, &[(0, 1)]);
    assert_eq!(p.window(), IW);

    // The same exchange with the sender reporting that the window stopped it grows.
    let mut p = Path::new("newreno");
    p.send(0, 2);
    p.cc.on_cwnd_limited();
    p.ack(100 * MS, &[(0, 1)]);
    assert_eq!(p.window(), IW + 2 * MDS as u64);
}

#[test]
fn snapshots_are_kept_only_for_rate_readers_and_leave_with_their_packets() {
    // Packet 1 is acknowledged and packet 0 lost (time threshold), then 3, then 2 and 4-9.
    for (cc, keeps) in [("bbr", true), ("newreno", false)] {
        let (mut p, _, at) = one_loss(cc);
        assert_eq!(p.cc.snapshots_held(), if keeps { 8 } else { 0 }, "{cc}: packets 2-9 are in flight");
        p.ack(at + MS, &[(3, 3)]);
        // Packet 2 is still in flight: the snapshot of 3 waits behind it.
        assert_eq!(p.cc.snapshots_held(), if keeps { 8 } else { 0 }, "{cc}");
        p.ack(at + 2 * MS, &[(2, 9)]);
        assert_eq!(p.cc.snapshots_held(), 0, "{cc}: nothing in flight, nothing held");
    }
}

// ---------------------------------------------------------------- recovery periods (§7.3.2)

/// Ten packets at 0 (window full); the ACK of packet 1 at 100 ms grows the window to 13 200
/// bytes and arms the loss timer for packet 0 (112.5 ms); at its expiry packet 0 is lost.
fn one_loss(cc: &str) -> (Path, u64, Time) {
    let mut p = Path::new(cc);
    p.send(0, 10);
    p.cc.on_cwnd_limited();
    p.ack(100 * MS, &[(1, 1)]);
    let before = p.window();
    let at = p.fire_timer();
    assert_eq!(at, 112 * MS + 500 * US);
    assert_eq!(p.rec.lost_total(), MDS as u64);
    (p, before, at)
}

#[test]
fn a_loss_halves_the_window_and_starts_a_recovery_period() {
    let (p, before, at) = one_loss("newreno");
    assert_eq!(before, IW + MDS as u64);
    // B.6: ssthresh = congestion_window · kLossReductionFactor (0.5); cwnd = ssthresh.
    assert_eq!(p.window(), before / 2);
    assert_eq!(p.cc.ssthresh(), before / 2);
    assert!(p.cc.in_recovery());
    assert_eq!(p.cc.recovery_start_time(), Some(at));
    assert_eq!(p.cc.congestion_events(), 1);
}

#[test]
fn losses_of_packets_sent_before_the_recovery_period_reduce_the_window_only_once() {
    let (mut p, before, _) = one_loss("newreno");
    // The ACK of packet 7 at 120 ms declares packets 2, 3 and 4 lost (packet threshold): the
    // same flight, all sent before the recovery period began.
    p.ack(120 * MS, &[(7, 7)]);
    assert_eq!(p.rec.lost_total(), 4 * MDS as u64);
    assert_eq!(p.window(), before / 2);
    assert_eq!(p.cc.congestion_events(), 1);
}

#[test]
fn acks_of_packets_sent_before_the_recovery_period_do_not_grow_the_window() {
    let (mut p, before, _) = one_loss("newreno");
    p.cc.on_cwnd_limited();
    for pn in 2..10 {
        p.ack(120 * MS + pn * MS, &[(2, pn)]);
        assert_eq!(p.window(), before / 2, "after the ACK of packet {pn}");
        assert!(p.cc.in_recovery());
    }
}

#[test]
fn an_ack_of_a_packet_sent_during_the_recovery_period_ends_it() {
    let (mut p, before, _) = one_loss("newreno");
    p.ack(120 * MS, &[(2, 9)]);
    assert!(p.cc.in_recovery());
    let pn = p.send(130 * MS, 1);
    p.ack(230 * MS, &[(pn, pn)]);
    assert!(!p.cc.in_recovery());
    // Congestion avoidance from ssthresh: 1 200 bytes acknowledged is less than a window.
    assert_eq!(p.window(), before / 2);
    assert_eq!(p.cc.congestion_events(), 1);
}

#[test]
fn a_loss_of_a_packet_sent_after_the_recovery_period_began_reduces_the_window_again() {
    let (mut p, before, _) = one_loss("newreno");
    let first = p.send(150 * MS, 4);
    // Packets 11-13 acknowledged at 250 ms: packet 10 (sent at 150 ms, after the period began)
    // and the old packets 2-9 are lost. The ACK ends the first period, the loss of packet 10
    // starts a second one.
    p.ack(250 * MS, &[(first + 1, first + 3)]);
    assert_eq!(p.cc.congestion_events(), 2);
    assert_eq!(p.window(), before / 4);
    assert!(p.cc.in_recovery());
    assert_eq!(p.cc.recovery_start_time(), Some(250 * MS));
}

// ---------------------------------------------------------------- persistent congestion (§7.6)

#[test]
fn persistent_congestion_collapses_the_window_to_two_datagrams() {
    let mut p = Path::new("newreno");
    p.send(0, 1);
    p.ack(100 * MS, &[(0, 0)]);
    // Packet 1 at 200 ms, packets 2-5 at 1 300 ms; the ACK of packet 5 at 1 400 ms declares 1
    // and 2 lost. Their send times are 1 100 ms apart, more than the persistent congestion
    // duration (100 + max(4 · 37.5, 1) + 25) ms · 3 = 825 ms, with nothing acknowledged between.
    p.send(200 * MS, 1);
    p.send(1300 * MS, 4);
    p.ack(1400 * MS, &[(5, 5)]);
    assert!(p.out.persistent_congestion);
    assert_eq!(p.window(), 2 * MDS as u64);
    assert!(p.cc.controller().window() <= 2 * MDS as u64, "the controller collapsed too");
    assert_eq!(p.cc.persistent_congestion_events(), 1);
    // B.8 clears the recovery period: the next loss reduces again.
    assert!(!p.cc.in_recovery());
    assert_eq!(p.cc.recovery_start_time(), None);
}

// ---------------------------------------------------------------- other controllers

#[test]
fn cubic_through_the_glue_reduces_the_window_by_beta_0_7() {
    let (p, before, _) = one_loss("cubic");
    assert!(matches!(p.cc.controller(), AnyCc::Cubic(_)));
    assert_eq!(p.window(), (before as f64 * 0.7) as u64);
    assert!(p.cc.in_recovery());
}

/// A bottleneck of one datagram per millisecond (1.2 MB/s) and a 100 ms round trip without
/// losses: every packet is acknowledged alone when its ACK arrives. The sender sends whenever
/// the window allows (pacing is not modelled by this loop). Returns the path after `until`.
fn run_bottleneck(cc: &str, until: Time) -> Path {
    let mut p = Path::new(cc);
    let mut acks: VecDeque<(Time, u64)> = VecDeque::new();
    let mut link_free: Time = 0;
    let mut now: Time = 0;
    loop {
        while p.cc.can_send(p.rec.bytes_in_flight(), MDS) {
            let pn = p.send(now, 1);
            link_free = link_free.max(now) + MS;
            acks.push_back((link_free + 100 * MS, pn));
        }
        p.cc.on_cwnd_limited();
        let Some((t, pn)) = acks.pop_front() else { break };
        if t > until {
            break;
        }
        now = t;
        p.ack(now, &[(pn, pn)]);
    }
    p
}

#[test]
fn bbr_through_the_glue_measures_the_bottleneck_rate_and_paces() {
    let p = run_bottleneck("bbr", 2000 * MS);
    let AnyCc::Bbr(b) = p.cc.controller() else { panic!("not BBR") };
    let bw = b.btl_bw();
    // The delivery-rate samples reached the controller: the bottleneck's 1 200 000 B/s.
    assert!((1_140_000..=1_260_000).contains(&bw), "btl_bw = {bw}");
    assert!(p.cc.pacing_rate().is_some_and(|r| r > 0));
    assert_eq!(p.rec.lost_total(), 0);
}

#[test]
fn bbr2_through_the_glue_gets_delivery_rate_samples_and_paces() {
    let p = run_bottleneck("bbr2", 2000 * MS);
    assert!(matches!(p.cc.controller(), AnyCc::Bbr2(_)));
    let rate = p.cc.pacing_rate().expect("BBRv2 paces");
    // The delivery-rate samples found the pipe full: STARTUP is over (this loop does not pace,
    // so the queue STARTUP built never drains and BBRv2 stays in DRAIN, pacing at 0.35 × the
    // 1 200 000 B/s it measured).
    assert_ne!(p.cc.state_name(), "startup");
    assert!((380_000..=440_000).contains(&rate), "pacing rate {rate} in {}", p.cc.state_name());
    assert!(p.cc.delivered_total() > 1_000_000);
}

#[test]
fn every_registry_controller_runs_through_the_glue() {
    for info in crate::cc::registry::CONGESTION_CONTROLLERS {
        let p = run_bottleneck(info.name, 1000 * MS);
        assert!(p.cc.delivered_total() > 0, "{}", info.name);
        assert!(p.window() >= 2 * MDS as u64, "{}", info.name);
    }
}
