//! Multipath packet schedulers: one trait shared by MPTCP, multipath QUIC and tunnels.
//!
//! A scheduler gets read-only views of the connection and of each path (subflow) and returns a
//! decision: send the next chunk (at most one MSS of connection-level data) on path i, send it
//! on several paths (redundant), or wait. It never mutates connection state; it may keep its own
//! state (a round-robin cursor, learned estimates).
//!
//! The connection asks again after every chunk it places, so a decision is per chunk. A path
//! with `has_space` can send a segment right now (congestion window and pacing allow it). A
//! scheduler may also pick a path without space but with `can_queue` (the chunk then waits in
//! that subflow's send queue, as OTIAS and Linux's burst scheduler do); choosing a path with
//! neither is treated as `Wait`.
//!
//! Decisions name paths by `PathView::id`, which the connection sets to the view's index in the
//! slice it passes. Backup paths (RFC 8684 §3.3.8, MP_PRIO) are chosen from only when no
//! non-backup path is usable; `eligible` applies that rule for every scheduler here.
//!
//! One file per scheduler and one entry in the registry below (`schedulers!`, `registry.rs`),
//! which generates `SchedConfig` (a registry name plus typed options: the factory, `config.rs`)
//! and `AnyScheduler` (the statically dispatched result). `docs/schedulers.md`
//! summarises sources and interpretations.

pub mod blp_features;
pub mod blp_model;
mod config;
pub mod registry;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_blp;
#[cfg(test)]
mod tests_blp_learn;

registry::schedulers! {
    mod minrtt: "minrtt" ["srtt"] MinRtt => MinRtt(minrtt::MinRtt) = |_| minrtt::MinRtt::new(),
        "lowest smoothed RTT among the paths with window space",
        "out-of-tree Linux MPTCP mptcp_sched.c (get_available_subflow)";
    mod linger: "default" [] Default(linger::LingerConfig) => Linger(linger::Linger) = |_, c| linger::Linger::new(c),
        "upstream Linux MPTCP (6.18): lowest linger time (send-buffer bytes / smoothed pacing rate), 64 KB bursts into subflow send buffers, waits when the winner's buffer is full",
        "Linux net/mptcp/protocol.c (mptcp_subflow_get_send, __mptcp_push_pending)";
    mod roundrobin: "roundrobin" [] RoundRobin(roundrobin::RoundRobinConfig) => RoundRobin(roundrobin::RoundRobin) = |_, c| roundrobin::RoundRobin::new(c),
        "paths with window space take turns, `segments` chunks each",
        "out-of-tree Linux MPTCP mptcp_rr.c";
    mod redundant: "redundant" [] Redundant => Redundant(redundant::Redundant) = |_| redundant::Redundant::new(),
        "every chunk on every path with window space",
        "out-of-tree Linux MPTCP mptcp_redundant.c";
    mod blest: "blest" [] Blest(blest::BlestConfig) => Blest(blest::Blest) = |_, c| blest::Blest::new(c),
        "minRTT, but waits for the fast path when a chunk on the slow path would block the send window (adaptive lambda)",
        "Ferlin et al., IFIP Networking 2016, §III eq. (1)-(2); mptcp_blest.c";
    mod ecf: "ecf" [] Ecf(ecf::EcfConfig) => Ecf(ecf::Ecf) = |_, c| ecf::Ecf::new(c),
        "earliest completion first: waits for the full fast path when it finishes the remaining data sooner (hysteresis beta)",
        "Lim et al., CoNEXT 2017, Algorithm 1; mptcp_ecf.c";
    mod cpf: "cpf" [] Cpf(cpf::CpfConfig) => Cpf(cpf::Cpf) = |_, c| cpf::Cpf::new(c),
        "cheapest path first: strict priority (lower `priority` first), the first path in order with window space",
        "seed 003 (Pieska et al., Future Internet 2024) §2.3; MP-DCCP sched_cpf.c";
    mod otias: "otias" [] Otias => Otias(otias::Otias) = |_| otias::Otias::new(),
        "earliest estimated arrival, floor((in flight + queued)/cwnd)·SRTT + SRTT/2, queueing on paths without space",
        "Yang, Wang, Amer, WAINA 2014; MP-DCCP sched_otias.c";
    mod blp: "blp" ["blocking-probability"] Blp(blp::BlpConfig) => Blp(blp::Blp) = |seed, c| blp::Blp::new(c, seed),
        "minRTT while rtt_s/rtt_f < threshold BT, else waits for the fast path when pf-weighted estimate sm x lambda exceeds the send window left (lambda = pf (lambda + delta_lambda)); BT set each model_interval by a learned stacked classifier over nine path statistics (model = builtin | none | file)",
        "seed 002 (Das et al., ICC Workshops 2025) §III eq. (1), Algorithm 1, blocking threshold learning";
    mod peekaboo: "peekaboo" [] Peekaboo(peekaboo::PeekabooConfig) => Peekaboo(peekaboo::Peekaboo) = |seed, c| peekaboo::Peekaboo::new(c, seed),
        "learning-based: when the fast path is full, a LinUCB bandit over path features chooses wait-for-fast or send-on-slow; stochastic adjustment of the wait by RTT variation",
        "Wu, Alay, Brunstrom, Ferlin, Caso, IEEE JSAC 38(10) 2020 (simplified)";
    mod lossaware: "lossaware" ["seed004"] LossAware(lossaware::LossAwareConfig) => LossAware(lossaware::LossAware) = |_, c| lossaware::LossAware::new(c),
        "per scheduling period (the slowest path's round), paths sorted by model RTT; each faster path's period is the next slower path's T^1 (+ ATT); eq. (10) cases 1-5 give its packet budget (no-loss branch while p(0|w) >= 0.5, or the expected count); case 2 caps the controller's round at w* (CR); waits with a wake-up at the period's end",
        "seed 004 (Guo et al., ICC 2025) Sec. VI eq. (10), Sec. III Fig. 1, eqs. (6)-(9)";
}

use crate::cc::options::OptValue;
use crate::cc::Options;
use mptlab_engine::Time;

/// What a scheduler sees of one path (one subflow).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathView {
    /// Index of the path in the connection (stable for its lifetime).
    pub id: usize,
    /// Established and not (potentially) failed: data may be scheduled on it.
    pub usable: bool,
    /// Congestion window and pacing let it send one more full segment now.
    pub has_space: bool,
    /// Its send queue can take one more chunk that would wait for the window.
    pub can_queue: bool,
    /// Smoothed RTT (RFC 6298), 0 before the first sample.
    pub srtt: Time,
    /// RTT variation (RFC 6298 RTTVAR), 0 before the first sample.
    pub rttvar: Time,
    /// Minimum RTT seen, 0 before the first sample.
    pub min_rtt: Time,
    /// Congestion window in bytes (the window that limits sending).
    pub cwnd: u64,
    /// Bytes in flight (RFC 6675 pipe).
    pub in_flight: u64,
    /// Bytes assigned to this subflow and not yet sent.
    pub queued: u64,
    /// Sending rate in bytes per second: the controller's pacing rate, else cwnd / SRTT
    /// (0 before the first RTT sample).
    pub pacing_rate: u64,
    pub mss: u32,
    /// User-given preference, lower is preferred (CPF); defaults to the path index.
    pub priority: u32,
    /// A backup path (RFC 8684 MP_PRIO B flag): used only when no other path is usable.
    pub backup: bool,
    /// Data segments sent and retransmitted on this path so far (loss-aware schedulers).
    pub segments_sent: u64,
    pub retransmissions: u64,
    /// Payload bytes acknowledged on this path so far.
    pub bytes_acked: u64,
    /// Payload bytes sent on this path so far, retransmissions included.
    pub bytes_sent: u64,
    /// Segments and payload bytes the sender has deemed lost on this path so far (loss
    /// detection: SACK/RACK marks, RTO), never decreasing.
    pub packets_lost: u64,
    pub bytes_lost: u64,
    /// The controller's slow-start threshold in bytes (0: unknown; `u64::MAX`: none yet).
    /// This and the next two are filled only for schedulers with `has_period_hooks`.
    pub ssthresh: u64,
    /// The path's current retransmission timeout (backoff included), 0 when unknown.
    pub rto: Time,
    /// Per-path model terms for model-driven schedulers (`lossaware`); all zero when unknown.
    pub model: PathModel,
}

/// Idle-channel terms of a path's RTT model (seed 004, Sec. V eqs. (6)–(9), Sec. VI eq. (10)),
/// given by the scenario (MPTCP: `MptcpSpec::path_models`); a zero term means unknown, and a
/// scheduler that reads them falls back to measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PathModel {
    /// T^1 = DTT: one data packet from the source to the data centre, summed over the hops
    /// (eq. (9)'s first sum).
    pub dtt: Time,
    /// ATT: one TCP ACK back from the data centre (eq. (9)'s second sum).
    pub att: Time,
    /// Each further packet of a TXOP batch: SIFS + |Data| / B_i^D (eq. (10)).
    pub per_frame: Time,
    /// One TCP ACK on the data centre's interface of the path: |ACK| / B_i^DC (case 3's bound).
    pub ack_dc: Time,
    /// Hops of the path.
    pub hops: u32,
}

impl PathModel {
    /// Whether the model's data and ACK legs are known.
    pub fn is_known(&self) -> bool {
        self.dtt > 0 && self.att > 0
    }
}

/// What a scheduler sees of the connection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConnView {
    pub now: Time,
    /// Connection-level bytes waiting to be scheduled (`u64::MAX / 2` for a greedy sender).
    pub unsent: u64,
    /// Bytes the connection-level (data-level) receive window still allows beyond what is sent.
    pub window_space: u64,
    /// Connection-level bytes sent and not yet data-acknowledged.
    pub unacked: u64,
    /// The connection's send buffer size in bytes.
    pub send_buffer: u64,
    /// Size of the chunk being scheduled (≤ one MSS).
    pub chunk: u32,
}

/// A scheduler's answer for the next chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Send the chunk on this path.
    Send(usize),
    /// Send the same chunk on every path whose bit is set (bit i = path i).
    Redundant(u64),
    /// Send nothing now; the connection asks again on the next ACK or window change.
    Wait,
}

/// A window cap a scheduler hands to one path's controller (seed 004's CR state): the round
/// that path starts now should carry at most `packets` packets. The connection forwards it to
/// the path's controller (`CongestionControl::cap_round`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowCap {
    /// The path, as `PathView::id`.
    pub path: usize,
    pub packets: u32,
}

pub trait Scheduler {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision;
    /// When the scheduler wants to be asked again even if no ACK or window change comes (the
    /// end of a scheduling period it waits for). The connection keeps one timer at this time
    /// (a time not after now arms nothing) and, when it fires, offers its next chunk again.
    fn wake_at(&self) -> Option<Time> {
        None
    }
    /// The next window cap for a path's controller, if any; the connection drains them after
    /// every `select`.
    fn take_window_cap(&mut self) -> Option<WindowCap> {
        None
    }
    /// Whether `wake_at` or `take_window_cap` may ever answer, and the scheduler reads the
    /// RTT-model inputs of `PathView` (`ssthresh`, `rto`, `model`): the connection asks once,
    /// when it is built, and otherwise skips both calls and leaves those fields at 0 on its
    /// per-chunk path.
    fn has_period_hooks(&self) -> bool {
        false
    }
}

impl AnyScheduler {
    /// Hand a new blocking threshold to a scheduler that has one (BLP's BT, seed 002 §III: set
    /// periodically by a learned model). False, and nothing changes, for the others.
    pub fn set_threshold(&mut self, bt: f64) -> bool {
        match self {
            AnyScheduler::Blp(s) => {
                s.set_threshold(bt);
                true
            }
            _ => false,
        }
    }
}

impl AnyScheduler {
    /// BLP's summary (learned threshold, features), None for the other schedulers.
    pub fn blp_summary(&self) -> Option<blp::BlpSummary> {
        match self {
            AnyScheduler::Blp(s) => Some(s.summary()),
            _ => None,
        }
    }
}

/// The paths a scheduler may choose from: the usable non-backup paths, or, when none of those
/// is usable, the usable backup paths (RFC 8684 §3.3.8: a backup path carries data only when
/// no other path is available). Schedulers filter further (space, queue).
pub fn eligible(paths: &[PathView]) -> impl Iterator<Item = &PathView> + Clone {
    let backups = backups_only(paths);
    paths.iter().filter(move |p| p.usable && p.backup == backups)
}

/// True when no non-backup path is usable, so the eligible paths are the usable backups.
#[inline]
pub fn backups_only(paths: &[PathView]) -> bool {
    !paths.iter().any(|p| p.usable && !p.backup)
}

/// BLEST's head-of-line event (`blest.rs` explains the reading of mptcp_blest.c), also used by
/// BLP: sending this chunk on `path` leaves the connection-level window without room for
/// another full segment while more data waits.
#[inline]
pub(crate) fn head_of_line_event(conn: &ConnView, path: &PathView) -> bool {
    let chunk = conn.chunk as u64;
    conn.unsent > chunk && conn.window_space.saturating_sub(chunk) < path.mss as u64
}

/// The period of BLEST's λ updates (and BLP's): the slow path's minimum RTT, its SRTT before it
/// has one.
#[inline]
pub(crate) fn lambda_period(slow: &PathView) -> Time {
    if slow.min_rtt > 0 {
        slow.min_rtt
    } else {
        slow.srtt
    }
}

/// Order by smoothed RTT, ties to the lower id. A path without an RTT sample has SRTT 0 and so
/// sorts first, as in Linux's `srtt_us < min_srtt` comparisons; such a path is tried up to its
/// window and has a sample one round trip later.
#[inline]
pub fn rtt_key(p: &&PathView) -> (Time, usize) {
    (p.srtt, p.id)
}

/// The fast path (lowest SRTT among eligible paths) and the slow path (lowest SRTT among the
/// eligible paths with space) for schedulers that weigh waiting for the fast path (ECF,
/// Peekaboo). `Err` is the decision when there is nothing to weigh: no eligible path (wait),
/// the fast path has space (send there), no other path has space (wait), or either path has
/// no RTT sample yet (send on the slow path).
pub(crate) fn fast_and_slow(paths: &[PathView]) -> Result<(&PathView, &PathView), Decision> {
    let Some(fast) = eligible(paths).min_by_key(rtt_key) else {
        return Err(Decision::Wait);
    };
    if fast.has_space {
        return Err(Decision::Send(fast.id));
    }
    let Some(slow) = eligible(paths).filter(|p| p.has_space).min_by_key(rtt_key) else {
        return Err(Decision::Wait);
    };
    if fast.srtt == 0 || slow.srtt == 0 {
        return Err(Decision::Send(slow.id));
    }
    Ok((fast, slow))
}
