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
//! One file per scheduler; `SchedConfig` (a registry name plus typed options, `config.rs`) is
//! the factory, `AnyScheduler` the statically dispatched result. `docs/schedulers.md`
//! summarises sources and interpretations.

pub mod blest;
pub mod blp;
pub mod blp_features;
pub mod blp_model;
mod config;
pub mod cpf;
pub mod ecf;
pub mod linger;
pub mod minrtt;
pub mod otias;
pub mod peekaboo;
pub mod redundant;
pub mod roundrobin;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_blp;
#[cfg(test)]
mod tests_blp_learn;

pub use config::SchedConfig;
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

pub trait Scheduler {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision;
}

/// Static dispatch over every scheduler (the connection asks once per chunk).
#[derive(Clone, Debug)]
pub enum AnyScheduler {
    MinRtt(minrtt::MinRtt),
    Linger(linger::Linger),
    RoundRobin(roundrobin::RoundRobin),
    Redundant(redundant::Redundant),
    Blest(blest::Blest),
    Ecf(ecf::Ecf),
    Cpf(cpf::Cpf),
    Otias(otias::Otias),
    Blp(blp::Blp),
    Peekaboo(peekaboo::Peekaboo),
}

impl Scheduler for AnyScheduler {
    #[inline]
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        match self {
            AnyScheduler::MinRtt(s) => s.select(conn, paths),
            AnyScheduler::Linger(s) => s.select(conn, paths),
            AnyScheduler::RoundRobin(s) => s.select(conn, paths),
            AnyScheduler::Redundant(s) => s.select(conn, paths),
            AnyScheduler::Blest(s) => s.select(conn, paths),
            AnyScheduler::Ecf(s) => s.select(conn, paths),
            AnyScheduler::Cpf(s) => s.select(conn, paths),
            AnyScheduler::Otias(s) => s.select(conn, paths),
            AnyScheduler::Blp(s) => s.select(conn, paths),
            AnyScheduler::Peekaboo(s) => s.select(conn, paths),
        }
    }
}

impl AnyScheduler {
    /// The registry name of the scheduler (as `SchedConfig::name`).
    pub fn name(&self) -> &'static str {
        match self {
            AnyScheduler::MinRtt(_) => "minrtt",
            AnyScheduler::Linger(_) => "default",
            AnyScheduler::RoundRobin(_) => "roundrobin",
            AnyScheduler::Redundant(_) => "redundant",
            AnyScheduler::Blest(_) => "blest",
            AnyScheduler::Ecf(_) => "ecf",
            AnyScheduler::Cpf(_) => "cpf",
            AnyScheduler::Otias(_) => "otias",
            AnyScheduler::Blp(_) => "blp",
            AnyScheduler::Peekaboo(_) => "peekaboo",
        }
    }

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
