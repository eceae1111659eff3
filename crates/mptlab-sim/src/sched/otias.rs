//! OTIAS, out-of-order transmission for in-order arrival: send each chunk where it is
//! estimated to arrive first, even if it must wait in that subflow's queue.
//!
//! Source: F. Yang, Q. Wang, P. D. Amer, "Out-of-Order Transmission for In-Order Arrival
//! Scheduling for Multipath TCP", AINA Workshops (WAINA) 2014, the scheduling rule of its
//! OTIAS section: for each subflow j, the number of round trips a new packet waits before it
//! can be sent is the data ahead of it (unacknowledged and queued) divided by the window, and
//! it then needs half a round trip to arrive:
//!
//! ```text
//! T_j = ⌊(unacked_j + queued_j) / cwnd_j⌋ · srtt_j + srtt_j / 2
//! ```
//!
//! The chunk goes to the subflow with the smallest T_j, whether or not its window is open (a
//! later packet may thus leave earlier on a fast path than an earlier one on a slow path:
//! out-of-order transmission, in-order arrival). Also in MP-DCCP as `sched_otias.c`.
//!
//! Interpretations:
//! - unacked_j is `in_flight` (RFC 6675 pipe), queued_j is `queued`, cwnd_j is `cwnd`, all in
//!   bytes (the quotient is the same in packets for full-sized segments). MP-DCCP's
//!   implementation counts only the queued packets that do not fit in the free window,
//!   ⌊(queued − (cwnd − pipe)) / cwnd⌋, which is one round less once the window is full; the
//!   paper's form is used.
//! - Candidates are the eligible paths (backups only when no non-backup path is usable) that
//!   have space or can queue the chunk (MP-DCCP skips subflows whose send queue is full).
//! - A path without an RTT sample (SRTT 0) has T = 0 and is preferred; ties go to the lower id.

use super::{eligible, ConnView, Decision, PathView, Scheduler};

#[derive(Clone, Debug, Default)]
pub struct Otias;

impl Otias {
    pub fn new() -> Self {
        Otias
    }
}

/// Estimated time until a chunk placed on `p` now arrives, in nanoseconds.
pub fn arrival_estimate(p: &PathView) -> u128 {
    let rounds = (p.in_flight as u128 + p.queued as u128) / p.cwnd.max(1) as u128;
    rounds.saturating_mul(p.srtt as u128) + (p.srtt / 2) as u128
}

impl Scheduler for Otias {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        eligible(paths)
            .filter(|p| p.has_space || p.can_queue)
            .min_by_key(|p| (arrival_estimate(p), p.id))
            .map_or(Decision::Wait, |p| Decision::Send(p.id))
    }
}
