//! One path of a QUIC connection at one endpoint (draft-ietf-quic-multipath-19 §2, §5, §7):
//! its Path ID, its packet number space on both sides (the sent packets with loss recovery and
//! RTT estimation, RFC 9002; the received packet numbers with the ACK policy, RFC 9000 §13.2),
//! its congestion controller and pacer, and its validation state.
//!
//! Paths live in slots (the simulator's route pairs); a slot's path can be abandoned and a new
//! path with a new Path ID opened on the same slot later (§3.4: Path IDs are never reused).

use super::ack::{AckConfig, AckManager};
use super::cc::QuicCongestion;
use super::config::QuicConfig;
use super::recovery::{LossRecovery, RecoveryConfig};
use super::wire::Frames;
use crate::cc::{CcConfig, CongestionControl, SubflowCcView};
use crate::transport::multipath::{MultipathPath, PathPrefs};
use mptlab_engine::Time;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathState {
    /// Not opened (yet, or again after an abandonment).
    Idle,
    /// PATH_CHALLENGE sent, waiting for the PATH_RESPONSE (RFC 9000 §8.2).
    Validating,
    /// Validated: packets of every kind may be sent.
    Active,
    /// PATH_ABANDON sent or received (§3.4): nothing is sent or accepted on it.
    Abandoned,
}

#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct PathStats {
    pub packets_sent: u64,
    /// Packets carrying STREAM frames.
    pub data_packets_sent: u64,
    /// UDP payload bytes sent.
    pub bytes_sent: u64,
    pub stream_bytes_sent: u64,
    pub packets_received: u64,
    /// Packets declared lost by RFC 9002 §6.1 (packet or time threshold).
    pub packets_lost: u64,
    pub bytes_lost: u64,
    pub ptos: u64,
    /// ACK-only packets sent.
    pub ack_only_sent: u64,
    /// Times the path was judged potentially failed after `failure_ptos` PTOs.
    pub failures: u64,
    /// STREAM bytes queued again for other paths when the path failed or was abandoned.
    pub bytes_requeued: u64,
    pub opened: u64,
    pub abandoned: u64,
}

pub type SentFrames = Frames;

pub struct QuicPath {
    pub id: u32,
    pub state: PathState,
    pub recovery: LossRecovery<SentFrames>,
    pub cc: QuicCongestion,
    /// The peer's packets on this path (our ACK duty).
    pub acks: AckManager,
    pub next_pn: u64,
    /// PTO probes owed (RFC 9002 §6.2.4).
    pub probes: u8,
    /// Potentially failed: not scheduled until it gets an ACK again.
    pub failed: bool,
    /// Pacer: the earliest time the next in-flight packet may leave (paced controllers only).
    pub next_send: Time,
    pub challenge_pending: bool,
    pub response_pending: bool,
    pub validated_at: Option<Time>,
    /// Client: when this Idle slot is to be opened (multipath). Kept with the path rather than
    /// in a list of its own: every poll that finds nothing to send reads it, and a separate
    /// allocation cost a cache miss there with thousands of connections.
    pub open_at: Option<Time>,
    /// The slot's statistics, over every path opened on it.
    pub stats: PathStats,
    /// The slot's preferences (priority, backup) for the scheduler.
    pub prefs: PathPrefs,
}

impl QuicPath {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        self.recovery.memory_footprint() + self.cc.memory_footprint() + self.acks.memory_footprint()
    }

    pub fn new(id: u32, state: PathState, cfg: &QuicConfig, cc: &CcConfig) -> Self {
        let rc = RecoveryConfig {
            max_ack_delay: cfg.max_ack_delay,
            pto_probe_packets: cfg.pto_probe_packets,
            handshake_confirmed: !cfg.handshake,
            ..RecoveryConfig::default()
        };
        let ac =
            AckConfig { max_ack_delay: cfg.max_ack_delay, ack_eliciting_threshold: cfg.ack_eliciting_threshold, ..AckConfig::default() };
        Self {
            id,
            state,
            recovery: LossRecovery::new(rc),
            cc: QuicCongestion::from_config(cc, cfg.max_udp_payload),
            acks: AckManager::new(ac),
            next_pn: 0,
            probes: 0,
            failed: false,
            next_send: 0,
            challenge_pending: false,
            response_pending: false,
            validated_at: None,
            open_at: None,
            stats: PathStats::default(),
            prefs: PathPrefs::default_for(id as usize),
        }
    }

    /// A new path with Path ID `id` on this path's slot: fresh state, the slot's statistics
    /// and preferences carried over.
    pub fn successor(&self, id: u32, state: PathState, cfg: &QuicConfig, cc: &CcConfig) -> Self {
        Self { stats: self.stats, prefs: self.prefs, ..Self::new(id, state, cfg, cc) }
    }

    /// Data may be scheduled on it.
    #[inline]
    pub fn usable(&self) -> bool {
        self.state == PathState::Active && !self.failed
    }

    /// Packets may be sent on it at all.
    #[inline]
    pub fn open(&self) -> bool {
        matches!(self.state, PathState::Active | PathState::Validating)
    }

    /// The window and the pacer let a packet of `size` bytes go now.
    #[inline]
    pub fn has_space(&self, now: Time, size: u32) -> bool {
        self.cc.can_send(self.recovery.bytes_in_flight(), size) && now >= self.next_send
    }

    /// Advance the pacer after an in-flight packet of `size` bytes (controllers with a pacing
    /// rate only: RFC 9002 §7.7 leaves window-based pacing to the implementation).
    #[inline]
    pub fn on_paced(&mut self, now: Time, size: u32) {
        if let Some(rate) = self.cc.pacing_rate().filter(|r| *r > 0) {
            let gap = size as u128 * 1_000_000_000 / rate as u128;
            self.next_send = self.next_send.max(now) + gap as Time;
        }
    }

    /// Smoothed RTT, 0 before the first sample.
    pub fn srtt(&self) -> Time {
        let r = self.recovery.rtt();
        if r.has_sample() {
            r.smoothed_rtt()
        } else {
            0
        }
    }
}

/// A QUIC path as the multipath core sees it.
impl MultipathPath for QuicPath {
    #[inline]
    fn usable(&self) -> bool {
        QuicPath::usable(self)
    }
    #[inline]
    fn prefs(&self) -> PathPrefs {
        self.prefs
    }
    #[inline]
    fn coupled_view(&self) -> Option<SubflowCcView> {
        self.cc.controller().coupled_view()
    }
    #[inline]
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.cc.couple(views, me);
    }
}
