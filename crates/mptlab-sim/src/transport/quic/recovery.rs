//! QUIC loss detection for one packet number space, RFC 9002 §5–§7.6 and Appendix A.
//!
//! `LossRecovery` owns the sent-packet records, the RTT estimator, the largest acknowledged
//! packet, the time-threshold `loss_time` and `pto_count`. Multipath QUIC holds one per path
//! (each path has its own packet number space and RTT, draft-ietf-quic-multipath §5); plain QUIC
//! with only 1-RTT data needs one.
//!
//! - ACK processing (Appendix A.7 OnAckReceived): mark the ranges, take an RTT sample when the
//!   largest acknowledged is newly acknowledged and at least one newly acknowledged packet was
//!   ack-eliciting (§5.1), detect losses, reset pto_count (§6.2.1).
//! - Loss detection (§6.1, Appendix A.10): packet threshold kPacketThreshold = 3 (§6.1.1), time
//!   threshold max(9/8·max(smoothed_rtt, latest_rtt), kGranularity) (§6.1.2).
//! - The loss-detection timer (Appendix A.8 SetLossDetectionTimer): the earliest loss time, else
//!   the PTO, time_of_last_ack_eliciting_packet + (smoothed_rtt + max(4·rttvar, kGranularity) +
//!   max_ack_delay)·2^pto_count (§6.2.1), armed only while ack-eliciting packets are in flight.
//! - On expiry (Appendix A.9 OnLossDetectionTimeout): declare the time-threshold losses, or ask
//!   for one or two ack-eliciting probe packets (§6.2.4) and increment pto_count. A PTO declares
//!   nothing lost (§6.2).
//! - Persistent congestion (§7.6): reported in the outcome; the congestion controller collapses
//!   its window to the minimum (§7.6.2) and min_rtt is reset to latest_rtt (§5.2).
//!
//! Interpretations and omissions:
//! - The peer's address is always considered validated and there is no anti-amplification
//!   limit (a client-side concern of §6.2.2.1 and Appendix A.8); pto_count is always reset by an
//!   ACK that newly acknowledges something.
//! - The handshake is not modelled. `handshake_confirmed` (default true) only decides whether the
//!   peer's ACK delay is capped at max_ack_delay (§5.3); the Application Data PTO is armed
//!   regardless (RFC 9002 arms it only after confirmation, which would leave a handshake-less
//!   1-RTT space without a timer).
//! - Packets that are neither ack-eliciting nor in flight (ACK-only) may be left untracked
//!   (`on_untracked_packet_sent`): they raise the largest packet number sent but have no
//!   record, so acknowledging one is valid but yields no RTT sample of its own.
//! - An ACK frame that acknowledges a packet number never sent, or whose ranges are not in
//!   descending order, is rejected (`AckError`) and changes nothing (RFC 9000 §13.1 makes the
//!   former a PROTOCOL_VIOLATION).
//! - Persistent congestion is judged per batch of packets declared lost together, as Appendix
//!   A.9 does, and per path ("across all packet number spaces" of §7.6.2 means this instance).
//! - `on_loss_detection_timeout` before the deadline (a stale event left by lazy timer
//!   cancellation) returns `Timeout::NotDue` and changes nothing.

use super::rtt::{RttEstimator, INITIAL_RTT};
use super::sent::{AckedSummary, PersistentCongestionCheck, SentPacket, SentPackets};
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;
use std::fmt;

/// kPacketThreshold (RFC 9002 §6.1.1): reordering in packets tolerated before declaring loss.
pub const PACKET_THRESHOLD: u64 = 3;
/// kPersistentCongestionThreshold (RFC 9002 §7.6.1).
pub const PERSISTENT_CONGESTION_THRESHOLD: u32 = 3;
/// The default max_ack_delay transport parameter (RFC 9000 §18.2): 25 ms.
pub const DEFAULT_MAX_ACK_DELAY: Time = 25 * MILLISECOND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryConfig {
    /// The peer's max_ack_delay transport parameter.
    pub max_ack_delay: Time,
    /// kInitialRtt (§6.2.2).
    pub initial_rtt: Time,
    /// kPacketThreshold (§6.1.1).
    pub packet_threshold: u64,
    /// kPersistentCongestionThreshold (§7.6.1).
    pub persistent_congestion_threshold: u32,
    /// Ack-eliciting packets to send when the PTO expires, 1 or 2 (§6.2.4: "up to two").
    pub pto_probe_packets: u8,
    /// Whether the handshake is confirmed at the start (no handshake is modelled yet).
    pub handshake_confirmed: bool,
}

impl Default for RecoveryConfig {
    fn default() -> Self {
        Self {
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
            initial_rtt: INITIAL_RTT,
            packet_threshold: PACKET_THRESHOLD,
            persistent_congestion_threshold: PERSISTENT_CONGESTION_THRESHOLD,
            pto_probe_packets: 2,
            handshake_confirmed: true,
        }
    }
}

/// An ACK frame the sender cannot accept; nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckError {
    /// No ranges.
    Empty,
    /// A range with smallest > largest, or ranges not strictly descending and disjoint.
    Malformed,
    /// A packet number above the largest sent.
    UnsentPacket(u64),
}

impl fmt::Display for AckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AckError::Empty => write!(f, "ACK frame without ranges"),
            AckError::Malformed => write!(f, "ACK ranges must be (smallest, largest) pairs in descending, disjoint order"),
            AckError::UnsentPacket(pn) => write!(f, "ACK frame acknowledges packet {pn}, which was never sent"),
        }
    }
}

impl std::error::Error for AckError {}

/// What an ACK or a loss-detection timeout did. Reused across calls (cleared at the start of
/// each) so that the per-ACK path does not allocate once the vectors have grown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecoveryOutcome<F> {
    /// Newly acknowledged packets, in packet-number order.
    pub acked: Vec<SentPacket<F>>,
    /// Newly declared lost packets, in packet-number order: retransmit their frames in new
    /// packets.
    pub lost: Vec<SentPacket<F>>,
    /// In-flight bytes newly acknowledged and newly lost.
    pub bytes_acked: u64,
    pub bytes_lost: u64,
    /// bytes_in_flight before the call.
    pub prior_in_flight: u64,
    /// latest_rtt, if this ACK produced an RTT sample (§5.1).
    pub rtt_sample: Option<Time>,
    /// Send time of the newest lost in-flight packet: OnCongestionEvent(sent_time) of
    /// Appendix B.6 starts a recovery period only if it is after the current one began.
    pub largest_lost_sent_time: Option<Time>,
    /// Persistent congestion was established (§7.6.2): collapse the window to the minimum.
    pub persistent_congestion: bool,
}

impl<F> Default for RecoveryOutcome<F> {
    fn default() -> Self {
        Self {
            acked: Vec::new(),
            lost: Vec::new(),
            bytes_acked: 0,
            bytes_lost: 0,
            prior_in_flight: 0,
            rtt_sample: None,
            largest_lost_sent_time: None,
            persistent_congestion: false,
        }
    }
}

impl<F> RecoveryOutcome<F> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn clear(&mut self) {
        self.acked.clear();
        self.lost.clear();
        self.bytes_acked = 0;
        self.bytes_lost = 0;
        self.prior_in_flight = 0;
        self.rtt_sample = None;
        self.largest_lost_sent_time = None;
        self.persistent_congestion = false;
    }
}

/// What the loss-detection timer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timeout {
    /// The timer is not armed or not yet due (a stale timer event): nothing happened.
    NotDue,
    /// Packets were declared lost by the time threshold (in the outcome's `lost`).
    Lost,
    /// The PTO expired: send this many ack-eliciting packets (new data, else retransmitted
    /// data, else a PING), not blocked by the congestion window (§6.2.4).
    Probe(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// Time-threshold loss detection (§6.1.2).
    LossTime,
    /// Probe timeout (§6.2).
    Pto,
}

#[derive(Debug)]
pub struct LossRecovery<F> {
    cfg: RecoveryConfig,
    rtt: RttEstimator,
    sent: SentPackets<F>,
    largest_acked: Option<u64>,
    loss_time: Option<Time>,
    pto_count: u32,
    /// `loss_detection_timer()` and `pto_period()`, kept current by every method that changes
    /// what they depend on: an endpoint asks for its timers after every poll, far more often
    /// than they change.
    timer: Option<(Time, TimerKind)>,
    pto_period: Time,
    handshake_confirmed: bool,
    acked_total: u64,
    lost_total: u64,
}

impl<F> LossRecovery<F> {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        self.sent.memory_footprint()
    }

    pub fn new(cfg: RecoveryConfig) -> Self {
        assert!((1..=2).contains(&cfg.pto_probe_packets), "pto_probe_packets must be 1 or 2");
        let mut r = Self {
            rtt: RttEstimator::new(cfg.initial_rtt),
            sent: SentPackets::new(),
            largest_acked: None,
            loss_time: None,
            pto_count: 0,
            timer: None,
            pto_period: 0,
            handshake_confirmed: cfg.handshake_confirmed,
            acked_total: 0,
            lost_total: 0,
            cfg,
        };
        r.refresh_timer();
        r
    }

    /// Appendix A.5 OnPacketSent. `pn` must exceed every earlier packet number of this space.
    pub fn on_packet_sent(&mut self, now: Time, pn: u64, size: u32, ack_eliciting: bool, in_flight: bool, frames: F) {
        self.sent.push(SentPacket { pn, time_sent: now, size, ack_eliciting, in_flight, frames });
        if ack_eliciting && in_flight && self.loss_time.is_none() {
            // The PTO now runs from this packet (what `refresh_timer` would find, cheaper).
            self.timer = Some((now.saturating_add(self.pto_period), TimerKind::Pto));
        }
    }

    /// A packet that is neither ack-eliciting nor in flight (ACK-only) was sent with number
    /// `pn` and is not tracked: an ACK frame may still acknowledge it, so it counts as sent.
    pub fn on_untracked_packet_sent(&mut self, pn: u64) {
        self.sent.note_untracked(pn);
    }

    /// Appendix A.7 OnAckReceived. `ranges` are inclusive (smallest, largest) pairs, largest
    /// first, as an ACK frame lists them; `ack_delay` is the peer's decoded ACK Delay.
    pub fn on_ack_received(
        &mut self,
        now: Time,
        ranges: &[(u64, u64)],
        ack_delay: Time,
        out: &mut RecoveryOutcome<F>,
    ) -> Result<(), AckError> {
        out.clear();
        out.prior_in_flight = self.sent.bytes_in_flight();
        let ack_largest = validate(ranges, self.sent.largest_sent())?;
        self.largest_acked = Some(self.largest_acked.map_or(ack_largest, |l| l.max(ack_largest)));
        let mut sum = AckedSummary::default();
        for &(lo, hi) in ranges.iter().rev() {
            self.sent.ack_range(lo, hi, &mut out.acked, &mut sum);
        }
        if out.acked.is_empty() {
            // A.7: nothing newly acknowledged, nothing else to do.
            return Ok(());
        }
        out.bytes_acked = sum.bytes;
        self.acked_total += sum.bytes;
        if let Some((pn, sent_at)) = sum.largest_newly_acked {
            if pn == ack_largest && sum.includes_ack_eliciting {
                let latest = now.saturating_sub(sent_at);
                let cap = self.handshake_confirmed.then_some(self.cfg.max_ack_delay);
                self.rtt.update(now, latest, ack_delay, cap);
                out.rtt_sample = Some(latest);
            }
        }
        self.detect_lost(now, out);
        // §6.2.1: "The PTO backoff factor is reset when an acknowledgment is received" (the
        // peer's address is always validated here).
        self.pto_count = 0;
        self.sent.pop_resolved();
        self.refresh_timer();
        Ok(())
    }

    fn detect_lost(&mut self, now: Time, out: &mut RecoveryOutcome<F>) {
        let Some(largest_acked) = self.largest_acked else { return };
        let pc = self.rtt.first_sample_at().map(|first| PersistentCongestionCheck {
            first_rtt_sample: first,
            // §7.6.1: (smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay) · threshold.
            duration: self.rtt.pto_base(self.cfg.max_ack_delay).saturating_mul(self.cfg.persistent_congestion_threshold as Time),
        });
        let sum = self.sent.detect_lost(now, largest_acked, self.rtt.loss_delay(), self.cfg.packet_threshold, pc, &mut out.lost);
        self.loss_time = sum.loss_time;
        out.bytes_lost += sum.bytes;
        self.lost_total += sum.bytes;
        if let Some(t) = sum.largest_lost_sent_time {
            out.largest_lost_sent_time = Some(out.largest_lost_sent_time.map_or(t, |o| o.max(t)));
        }
        if sum.persistent_congestion {
            out.persistent_congestion = true;
            self.rtt.on_persistent_congestion();
        }
    }

    /// Appendix A.8 SetLossDetectionTimer, computed from the current state: when
    /// `on_loss_detection_timeout` must be called, and why. After an ACK that acknowledged
    /// something, or a timeout, the time-threshold deadline is after that call's `now`; a PTO
    /// deadline may already have passed after an ACK (the timer then fires at once, as in the
    /// RFC).
    pub fn loss_detection_timer(&self) -> Option<(Time, TimerKind)> {
        debug_assert_eq!(self.timer, self.compute_timer(), "loss-detection timer out of date");
        self.timer
    }

    fn compute_timer(&self) -> Option<(Time, TimerKind)> {
        if let Some(t) = self.loss_time {
            return Some((t, TimerKind::LossTime));
        }
        self.pto_deadline().map(|t| (t, TimerKind::Pto))
    }

    /// Recompute the cached PTO period and timer after a change to what they depend on.
    fn refresh_timer(&mut self) {
        self.pto_period = self.compute_pto_period();
        self.timer = self.compute_timer();
    }

    pub fn loss_detection_deadline(&self) -> Option<Time> {
        self.loss_detection_timer().map(|(t, _)| t)
    }

    /// The PTO deadline if the PTO timer were the one armed (ack-eliciting packets in flight).
    pub fn pto_deadline(&self) -> Option<Time> {
        if self.sent.ack_eliciting_in_flight() == 0 {
            return None;
        }
        let last = self.sent.time_of_last_ack_eliciting()?;
        Some(last.saturating_add(self.pto_period()))
    }

    /// The current PTO period including backoff: (smoothed_rtt + max(4·rttvar, kGranularity) +
    /// max_ack_delay) · 2^pto_count (§6.2.1).
    pub fn pto_period(&self) -> Time {
        debug_assert_eq!(self.pto_period, self.compute_pto_period(), "PTO period out of date");
        self.pto_period
    }

    fn compute_pto_period(&self) -> Time {
        let base = self.rtt.pto_base(self.cfg.max_ack_delay);
        if self.pto_count >= 63 {
            Time::MAX
        } else {
            base.saturating_mul(1 << self.pto_count)
        }
    }

    /// Appendix A.9 OnLossDetectionTimeout.
    pub fn on_loss_detection_timeout(&mut self, now: Time, out: &mut RecoveryOutcome<F>) -> Timeout {
        out.clear();
        out.prior_in_flight = self.sent.bytes_in_flight();
        let Some((deadline, kind)) = self.loss_detection_timer() else { return Timeout::NotDue };
        if now < deadline {
            return Timeout::NotDue;
        }
        match kind {
            TimerKind::LossTime => {
                self.detect_lost(now, out);
                self.sent.pop_resolved();
                debug_assert!(!out.lost.is_empty(), "the loss timer fired without a loss");
                self.refresh_timer();
                Timeout::Lost
            }
            TimerKind::Pto => {
                self.pto_count += 1;
                self.refresh_timer();
                Timeout::Probe(self.cfg.pto_probe_packets)
            }
        }
    }

    /// The space or path is abandoned (RFC 9002 §6.4, multipath path abandonment): every
    /// outstanding packet leaves bytes_in_flight without being declared lost, and its frames
    /// are returned for retransmission elsewhere. Timers are cleared.
    pub fn discard(&mut self, out: &mut Vec<SentPacket<F>>) {
        self.sent.drain_outstanding(out);
        self.loss_time = None;
        self.pto_count = 0;
        self.refresh_timer();
    }

    pub fn set_handshake_confirmed(&mut self, confirmed: bool) {
        self.handshake_confirmed = confirmed;
    }

    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    pub fn config(&self) -> &RecoveryConfig {
        &self.cfg
    }

    pub fn bytes_in_flight(&self) -> u64 {
        self.sent.bytes_in_flight()
    }

    pub fn ack_eliciting_in_flight(&self) -> usize {
        self.sent.ack_eliciting_in_flight()
    }

    pub fn pto_count(&self) -> u32 {
        self.pto_count
    }

    pub fn largest_acked(&self) -> Option<u64> {
        self.largest_acked
    }

    pub fn largest_sent(&self) -> Option<u64> {
        self.sent.largest_sent()
    }

    /// The time-threshold loss time (Appendix A.10 `loss_time`), if armed.
    pub fn loss_time(&self) -> Option<Time> {
        self.loss_time
    }

    /// In-flight bytes ever acknowledged and ever declared lost.
    pub fn acked_total(&self) -> u64 {
        self.acked_total
    }

    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }

    pub fn sent_packets(&self) -> &SentPackets<F> {
        &self.sent
    }
}

/// Check an ACK frame's ranges; returns the largest acknowledged packet number.
fn validate(ranges: &[(u64, u64)], largest_sent: Option<u64>) -> Result<u64, AckError> {
    let &(_, largest) = ranges.first().ok_or(AckError::Empty)?;
    let mut prev_lo: Option<u64> = None;
    for &(lo, hi) in ranges {
        if lo > hi || prev_lo.is_some_and(|p| hi >= p) {
            return Err(AckError::Malformed);
        }
        prev_lo = Some(lo);
    }
    match largest_sent {
        Some(s) if largest <= s => Ok(largest),
        _ => Err(AckError::UnsentPacket(largest)),
    }
}
