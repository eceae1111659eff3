//! QUIC congestion control glue, RFC 9002 §7 and Appendix B: `LossRecovery` outcomes onto the
//! project's `cc::CongestionControl` trait, so every controller of the registry (the NewReno of
//! §7.3 is the project's `newreno`; CUBIC, BBR, BBRv2, Vegas, the coupled ones) runs under QUIC
//! through the same hooks as under TCP.
//!
//! `QuicCongestion` owns the controller (`AnyCc`, static dispatch) and the state RFC 9002 keeps
//! beside the window:
//! - the start of the current congestion recovery period (Appendix B.2
//!   `congestion_recovery_start_time`). A loss of an in-flight packet sent after it starts a new
//!   period and reduces the window once (§7.3.2, B.6 OnCongestionEvent →
//!   `CongestionControl::on_congestion_event`); losses of packets sent before it do nothing.
//!   While in recovery the controller gets `AckEvent::in_recovery` and does not grow; the period
//!   ends when a packet sent after its start is acknowledged (§7.3.2, B.5 →
//!   `CongestionControl::on_recovery_exit`).
//! - persistent congestion (§7.6.2, B.8): the controller's `on_rto` (each controller's timeout
//!   collapse; `during_recovery` is set, since B.8 runs OnCongestionEvent first and the collapse
//!   keeps that ssthresh), then the recovery period is cleared (B.8 sets the start time to 0).
//! - the minimum window kMinimumWindow = 2·max_datagram_size (§7.2, B.1). The controllers'
//!   timeout collapse is RFC 5681's loss window of one segment, below it; the window this glue
//!   reports and sends against is therefore max(controller window, kMinimumWindow). After
//!   persistent congestion the controller's internal window is one datagram and grows from
//!   there, one datagram behind RFC 9002's until slow start passes 2 datagrams.
//! - app-limited tracking (§7.8, B.5 IsAppOrFlowControlLimited): the sender reports
//!   `on_cwnd_limited` / `on_app_limited` from its send loop, and an ACK tells the controller
//!   `cwnd_limited` when the window was the limit: the sender's last report, or (as the TCP
//!   sender and Linux `tcp_is_cwnd_limited` judge it) prior_in_flight + max_datagram_size >
//!   cwnd, or in slow start cwnd < 2·prior_in_flight.
//! - a delivery-rate estimator (the TCP one, `transport/tcp/rate.rs`,
//!   draft-cheng-iccrg-delivery-rate-estimation): `on_packet_sent` takes the delivery state of
//!   each in-flight packet (`TxState`) by packet number, and the ACK's newest in-flight packet
//!   yields the `RateSample` BBR and BBRv2 read, and the `prior_delivered` with which CUBIC's
//!   HyStart, Vegas and wVegas count rounds. Controllers that read neither
//!   (`CongestionControl::reads_rate_samples`, `counts_rounds`: Reno/NewReno, LIA, OLIA, BALIA,
//!   blp-adaptive) get None and no snapshots are kept: a 48-byte record per packet in flight
//!   that nothing would read.
//!
//! Interpretations:
//! - Order within one ACK: growth first, then losses (Appendix A.7: OnPacketsAcked before
//!   DetectAndRemoveLostPackets/OnPacketsLost), so a loss reduces the window the same ACK grew.
//!   The controller gets one `AckEvent` per ACK frame, not one per packet as in B.5.
//! - The reduction is computed from the window: `LossEvent::flight_size` carries the glue's
//!   window (B.6: ssthresh = congestion_window · kLossReductionFactor), so NewReno's
//!   max(FlightSize/2, 2·SMSS) is cwnd/2 and CUBIC's min(FlightSize, cwnd)·β is cwnd·0.7.
//! - NewReno slow start counts bytes with RFC 3465's limit of 2 datagrams per ACK (`cc/reno.rs`);
//!   B.5 has no limit. With RFC 9000's ACK of every second ack-eliciting packet (§13.2.2) the two
//!   agree; an ACK covering more than two datagrams grows the window less than RFC 9002 would.
//! - `AckEvent::bytes_acked` is every newly acknowledged in-flight byte, except on the ACK that
//!   ends recovery, where packets sent before the period began are left out (B.5 skips them).
//!   `bytes_delivered` is always every newly acknowledged in-flight byte (QUIC has no cumulative /
//!   selective distinction).
//! - A packet sent at the very instant the recovery period starts counts as sent before it (B.3
//!   InCongestionRecovery: sent_time <= congestion_recovery_start_time).
//! - A PTO changes nothing here (§7.5: probes do not reduce the window; a PTO is not a loss);
//!   probe packets may exceed the window (`can_send_probe`) but count in bytes_in_flight.
//! - A time-threshold loss from `on_loss_detection_timeout` is processed like one from an ACK
//!   (no `AckEvent` is sent: nothing was acknowledged).
//! - Spurious-loss undo, ECN (§7.4, B.7) and §7.7's pacing of window controllers (rate =
//!   1.25·cwnd/smoothed_rtt) are not modelled: `pacing_rate` is the controller's own, or None.
//! - Coupled multipath controllers need `CongestionControl::couple` before each event; the
//!   multipath layer calls it through `QuicCongestion::couple`.

use crate::cc::{AckEvent, AnyCc, CcConfig, CcMetrics, CcParams, CongestionControl, LossEvent, SubflowCcView};
use crate::transport::tcp::rate::{RateEstimator, TxState};
use mptlab_engine::Time;
use std::collections::VecDeque;

use super::recovery::RecoveryOutcome;
use super::rtt::RttEstimator;

/// kMinimumWindow (§7.2) in datagrams.
pub const MINIMUM_WINDOW_DATAGRAMS: u64 = 2;
/// The initial window's cap in bytes (§7.2: min(10·max_datagram_size, max(14720,
/// 2·max_datagram_size))).
pub const INITIAL_WINDOW_CAP: u64 = 14_720;

/// The delivery state when an in-flight packet was sent, until it is acknowledged or lost.
#[derive(Clone, Copy, Debug)]
struct Snapshot {
    pn: u64,
    tx: TxState,
    resolved: bool,
}

/// The snapshot of packet `pn`. Packet numbers of packets in flight are nearly consecutive
/// (only untracked ACK-only packets leave gaps), so its offset from the first is tried first.
fn snapshot_of(s: &mut VecDeque<Snapshot>, pn: u64) -> Option<&mut Snapshot> {
    let guess = pn.checked_sub(s.front()?.pn).and_then(|d| usize::try_from(d).ok());
    let i = match guess.filter(|&g| s.get(g).is_some_and(|x| x.pn == pn)) {
        Some(g) => g,
        None => s.binary_search_by_key(&pn, |x| x.pn).ok()?,
    };
    Some(&mut s[i])
}

/// The initial window of §7.2 in whole datagrams (the controllers take a segment count):
/// min(10·mds, max(14720, 2·mds)) / mds, rounded down, at least 2.
pub fn initial_window_datagrams(max_datagram_size: u32) -> u32 {
    let mds = max_datagram_size.max(1) as u64;
    let bytes = (10 * mds).min(INITIAL_WINDOW_CAP.max(2 * mds));
    (bytes / mds).max(MINIMUM_WINDOW_DATAGRAMS) as u32
}

/// RFC 9002 §7 congestion control of one path: a controller plus the recovery-period,
/// persistent-congestion, app-limited and delivery-rate state around it.
pub struct QuicCongestion {
    cc: AnyCc,
    /// `window()` and `pacing_rate()`, refreshed after every call that may change the
    /// controller (it has no interior mutability): the scheduler and the idle poll ask for
    /// them several times per packet, and each question is a dispatch over every controller.
    window: u64,
    pacing_rate: Option<u64>,
    max_datagram_size: u32,
    /// The window's floor in datagrams: kMinimumWindow (2) for QUIC; 1 for DCCP paths, whose
    /// CCID2 and CCID5 collapse to one packet (`with_minimum_window`).
    minimum_datagrams: u64,
    /// Appendix B.2 congestion_recovery_start_time (None: 0, no period yet or cleared by
    /// persistent congestion).
    recovery_start: Option<Time>,
    /// Between a congestion event and the ACK of a packet sent after it.
    in_recovery: bool,
    /// The sender's last report: the window stopped it (true) or it ran out of data (false).
    cwnd_limited: bool,
    rate: RateEstimator,
    /// The snapshots of the packets in flight, in packet-number order (resolved ones leave from
    /// the front); None when the controller reads no rate samples.
    snapshots: Option<VecDeque<Snapshot>>,
    lost_total: u64,
    congestion_events: u64,
    persistent_congestion_events: u64,
}

impl QuicCongestion {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        self.snapshots.as_ref().map_or(0, deque)
    }

    pub fn new(cc: AnyCc, max_datagram_size: u32) -> Self {
        Self::with_minimum_window(cc, max_datagram_size, MINIMUM_WINDOW_DATAGRAMS)
    }

    /// The glue with a window floor of `minimum_datagrams` instead of RFC 9002's 2 (the rule
    /// is QUIC's, §7.2; another packet transport reusing the glue sets its own).
    pub fn with_minimum_window(cc: AnyCc, max_datagram_size: u32, minimum_datagrams: u64) -> Self {
        assert!(max_datagram_size > 0, "max_datagram_size must be positive");
        assert!(minimum_datagrams >= 1, "the window admits at least one datagram");
        let samples = cc.reads_rate_samples();
        let mut q = Self {
            snapshots: (samples || cc.counts_rounds()).then(VecDeque::new),
            cc,
            window: 0,
            pacing_rate: None,
            max_datagram_size,
            minimum_datagrams,
            recovery_start: None,
            in_recovery: false,
            cwnd_limited: false,
            rate: RateEstimator::new(samples),
            lost_total: 0,
            congestion_events: 0,
            persistent_congestion_events: 0,
        };
        q.refresh();
        q
    }

    /// Re-read the cached window and pacing rate after the controller may have changed.
    fn refresh(&mut self) {
        self.window = self.live_window();
        self.pacing_rate = self.cc.pacing_rate();
    }

    /// Build the configured controller with max_datagram_size as its segment size and §7.2's
    /// initial window.
    pub fn from_config(cfg: &CcConfig, max_datagram_size: u32) -> Self {
        let p = CcParams { mss: max_datagram_size, initial_cwnd_segments: initial_window_datagrams(max_datagram_size) };
        Self::new(cfg.build(p), max_datagram_size)
    }

    /// kMinimumWindow (§7.2): 2·max_datagram_size.
    pub fn minimum_window(&self) -> u64 {
        self.minimum_datagrams * self.max_datagram_size as u64
    }

    /// The congestion window in bytes: the controller's, never below kMinimumWindow.
    #[inline]
    pub fn window(&self) -> u64 {
        debug_assert_eq!(self.window, self.live_window(), "cached window out of date");
        self.window
    }

    /// The window as the controller has it now (inside `on_outcome`, before the refresh).
    fn live_window(&self) -> u64 {
        self.cc.window().max(self.minimum_window())
    }

    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }

    /// §7: a packet of `size` bytes may be sent if it keeps bytes_in_flight within the window.
    /// (Packets that are not in flight, ACK-only ones, are never blocked by the window: the
    /// caller does not ask.)
    pub fn can_send(&self, bytes_in_flight: u64, size: u32) -> bool {
        bytes_in_flight + size as u64 <= self.window()
    }

    /// §7.5 / §6.2.4: a PTO probe "MUST NOT be blocked by the congestion controller"; while
    /// `probes_pending` > 0 the packet goes regardless, otherwise `can_send` decides.
    pub fn can_send_probe(&self, bytes_in_flight: u64, size: u32, probes_pending: u8) -> bool {
        probes_pending > 0 || self.can_send(bytes_in_flight, size)
    }

    /// The controller's pacing rate in bytes per second, if it paces (BBR, BBRv2).
    #[inline]
    pub fn pacing_rate(&self) -> Option<u64> {
        debug_assert_eq!(self.pacing_rate, self.cc.pacing_rate(), "cached pacing rate out of date");
        self.pacing_rate
    }

    pub fn send_quantum(&self) -> Option<u64> {
        self.cc.send_quantum()
    }

    /// Appendix B.4 OnPacketSentCC: packet `pn` of `size` bytes left with
    /// `bytes_in_flight_before` bytes already in flight (packet numbers increase from call to
    /// call). Packets not counted in flight change nothing.
    #[inline]
    pub fn on_packet_sent(&mut self, now: Time, pn: u64, size: u32, in_flight: bool, bytes_in_flight_before: u64) {
        if !in_flight {
            return;
        }
        if let Some(s) = &mut self.snapshots {
            debug_assert!(s.back().is_none_or(|b| b.pn < pn), "packet numbers must increase");
            let tx = self.rate.on_send(now, bytes_in_flight_before, size, self.lost_total);
            s.push_back(Snapshot { pn, tx, resolved: false });
        }
        self.cc.on_packet_sent(now, size, bytes_in_flight_before + size as u64);
        self.refresh();
    }

    /// Drop the snapshots of the packets `out` acknowledged or declared lost; returns the
    /// snapshot and send time of the newest acknowledged in-flight packet (the one a rate
    /// sample is taken from), if snapshots are kept.
    fn resolve_snapshots<P>(&mut self, out: &RecoveryOutcome<P>) -> Option<(TxState, Time)> {
        let s = self.snapshots.as_mut()?;
        let mut newest = None;
        for p in out.acked.iter().filter(|p| p.in_flight) {
            if let Some(x) = snapshot_of(s, p.pn) {
                x.resolved = true;
                newest = Some((x.tx, p.time_sent));
            }
        }
        for p in out.lost.iter().filter(|p| p.in_flight) {
            if let Some(x) = snapshot_of(s, p.pn) {
                x.resolved = true;
            }
        }
        while s.front().is_some_and(|x| x.resolved) {
            s.pop_front();
        }
        newest
    }

    /// The sender's send loop stopped at the window (§7.8: the window is being used).
    pub fn on_cwnd_limited(&mut self) {
        self.cwnd_limited = true;
    }

    /// The sender ran out of data (or of flow-control credit) with room in the window
    /// (§7.8): no growth until it is window-limited again; delivery-rate samples of packets sent
    /// until then are marked app-limited.
    pub fn on_app_limited(&mut self, bytes_in_flight: u64) {
        self.cwnd_limited = false;
        self.rate.on_app_limited(bytes_in_flight);
    }

    /// Feed one `LossRecovery` outcome (of `on_ack_received` or of a loss-detection timeout):
    /// Appendix B.5 OnPacketsAcked, then B.8 OnPacketsLost with B.6 OnCongestionEvent and the
    /// persistent congestion collapse. `rtt` is the recovery's estimator after the call.
    pub fn on_outcome<P>(&mut self, now: Time, out: &RecoveryOutcome<P>, rtt: &RttEstimator) {
        let newest = self.resolve_snapshots(out);
        self.lost_total += out.bytes_lost;
        let in_flight_after = out.prior_in_flight.saturating_sub(out.bytes_acked + out.bytes_lost);
        if !out.acked.is_empty() {
            self.on_acked(now, out, rtt, in_flight_after, newest);
        }
        if let Some(sent) = out.largest_lost_sent_time {
            self.on_congestion_event(now, sent);
        }
        if out.persistent_congestion {
            // B.8: OnCongestionEvent above has set ssthresh (or an earlier one of this period
            // has); collapse to the minimum window and leave the recovery period.
            self.persistent_congestion_events += 1;
            self.cc.on_rto(&LossEvent { now, flight_size: in_flight_after, mss: self.max_datagram_size, during_recovery: true });
            debug_assert!(self.cc.window() <= self.minimum_window(), "persistent congestion left the window above kMinimumWindow");
            self.recovery_start = None;
            self.in_recovery = false;
        }
        self.refresh();
    }

    /// Delivery-rate snapshots held (of packets in flight, and of resolved ones behind the
    /// oldest packet in flight); 0 for controllers that read no rate samples.
    pub fn snapshots_held(&self) -> usize {
        self.snapshots.as_ref().map_or(0, |s| s.len())
    }

    /// B.3 InCongestionRecovery.
    fn sent_in_recovery(&self, sent: Time) -> bool {
        self.recovery_start.is_some_and(|start| sent <= start)
    }

    /// `newest`: the snapshot and send time of the newest acknowledged in-flight packet.
    fn on_acked<P>(
        &mut self,
        now: Time,
        out: &RecoveryOutcome<P>,
        rtt: &RttEstimator,
        in_flight_after: u64,
        newest: Option<(TxState, Time)>,
    ) {
        let mut after_start = 0u64;
        for p in out.acked.iter().filter(|p| p.in_flight) {
            if !self.sent_in_recovery(p.time_sent) {
                after_start += p.size as u64;
            }
        }
        let mut bytes_acked = out.bytes_acked;
        if self.in_recovery && after_start > 0 {
            // §7.3.2: a packet sent during the recovery period is acknowledged: the period ends.
            self.in_recovery = false;
            self.cc.on_recovery_exit(now);
            bytes_acked = after_start;
        }
        let prior_delivered = RateEstimator::prior_delivered(out.bytes_acked, newest);
        let rate = self.rate.on_ack(now, out.bytes_acked, newest, self.lost_total, rtt.min_rtt());
        let cwnd = self.live_window();
        let prior = out.prior_in_flight;
        let slow_start = cwnd < self.cc.ssthresh();
        let cwnd_limited = self.cwnd_limited || prior + self.max_datagram_size as u64 > cwnd || (slow_start && cwnd < 2 * prior);
        self.cc.on_ack(&AckEvent {
            now,
            bytes_acked,
            bytes_delivered: out.bytes_acked,
            rtt_sample: out.rtt_sample,
            srtt: if rtt.has_sample() { rtt.smoothed_rtt() } else { 0 },
            min_rtt: rtt.min_rtt(),
            prior_in_flight: prior,
            in_flight: in_flight_after,
            in_recovery: self.in_recovery,
            cwnd_limited,
            mss: self.max_datagram_size,
            bytes_lost: out.bytes_lost,
            delivered_total: self.rate.delivered,
            lost_total: self.lost_total,
            rate,
            prior_delivered,
        });
    }

    /// B.6 OnCongestionEvent(sent_time): once per recovery period.
    fn on_congestion_event(&mut self, now: Time, sent: Time) {
        if self.sent_in_recovery(sent) {
            return;
        }
        self.recovery_start = Some(now);
        self.in_recovery = true;
        self.congestion_events += 1;
        // Interpretation: the window, not FlightSize, is what B.6 reduces.
        let flight_size = self.live_window();
        self.cc.on_congestion_event(&LossEvent { now, flight_size, mss: self.max_datagram_size, during_recovery: false });
    }

    /// In a congestion recovery period (§7.3.2): the window does not grow.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// B.2 congestion_recovery_start_time (None: no period, or cleared by persistent congestion).
    pub fn recovery_start_time(&self) -> Option<Time> {
        self.recovery_start
    }

    /// Window reductions (recovery periods started) and persistent-congestion collapses.
    pub fn congestion_events(&self) -> u64 {
        self.congestion_events
    }

    pub fn persistent_congestion_events(&self) -> u64 {
        self.persistent_congestion_events
    }

    pub fn max_datagram_size(&self) -> u32 {
        self.max_datagram_size
    }

    /// Bytes ever acknowledged (C.delivered) and ever declared lost, as the controller sees them.
    pub fn delivered_total(&self) -> u64 {
        self.rate.delivered
    }

    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }

    pub fn controller(&self) -> &AnyCc {
        &self.cc
    }

    /// `CongestionControl::couple` for a coupled controller: the other paths' views.
    pub fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.cc.couple(views, me);
        self.refresh();
    }

    pub fn state_name(&self) -> &'static str {
        self.cc.state_name()
    }

    pub fn metrics(&self) -> CcMetrics {
        CcMetrics { cwnd: self.window(), ssthresh: self.cc.ssthresh(), pacing_rate: self.cc.pacing_rate() }
    }
}
