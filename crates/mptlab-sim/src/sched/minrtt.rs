//! minRTT (alias `srtt`): send on the path with the lowest smoothed RTT that can send now.
//!
//! Source: the default scheduler of the out-of-tree Linux MPTCP (multipath-tcp.org v0.9x),
//! `net/mptcp/mptcp_sched.c`, `get_available_subflow` → `get_subflow_from_selectors`: among
//! the subflows that are available (established, not potentially failed, and with room in the
//! congestion window, `mptcp_is_temp_unavailable`), the one with the lowest `srtt_us`; active
//! subflows first, backup subflows only if no active one was found. Described in Paasch et al.,
//! "Experimental evaluation of multipath TCP schedulers", CSWS 2014, §2; MP-DCCP's
//! `sched_srtt.c` is the same rule.
//!
//! Interpretations:
//! - Backup paths follow this simulator's rule (`eligible`): used only when no non-backup path
//!   is *usable*. The out-of-tree kernel falls back to backups already when no active subflow
//!   has window space.
//! - A path without an RTT sample has SRTT 0 and is therefore preferred (the kernel's
//!   comparison on a zero `srtt_us`); it gets a sample within one round trip.
//! - Ties go to the lower id (the kernel keeps the first subflow of its list on `<`).
//! - The kernel's preference for subflows that have not yet carried a reinjected segment
//!   (`mptcp_dont_reinject_skb`) is the connection's business here, not the scheduler's.

use super::{eligible, rtt_key, ConnView, Decision, PathView, Scheduler};

#[derive(Clone, Debug, Default)]
pub struct MinRtt;

impl MinRtt {
    pub fn new() -> Self {
        MinRtt
    }
}

impl Scheduler for MinRtt {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        eligible(paths).filter(|p| p.has_space).min_by_key(rtt_key).map_or(Decision::Wait, |p| Decision::Send(p.id))
    }
}
