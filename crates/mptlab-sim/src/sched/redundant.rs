//! Redundant: send every chunk on every path that can send now.
//!
//! Source: out-of-tree Linux MPTCP `net/mptcp/mptcp_redundant.c` (Frömmgen et al.; also
//! MP-DCCP `sched_redundant.c`): each segment is sent on all available subflows, trading
//! capacity for latency and reliability.
//!
//! Interpretations:
//! - "Available" is `usable && has_space` among the eligible paths (backups only when no
//!   non-backup path is usable). A path without space does not get a copy later: the kernel
//!   scheduler lets a lagging subflow catch up with segments the others already sent; here the
//!   chunk goes only where it can go now, so a full path skips it.
//! - The mask holds paths 0..63 (bit i = path i); a path with a higher id is never chosen.
//!   With exactly one qualifying path the answer is `Send(i)`; with none, `Wait`.

use super::{eligible, ConnView, Decision, PathView, Scheduler};

#[derive(Clone, Debug, Default)]
pub struct Redundant;

impl Redundant {
    pub fn new() -> Self {
        Redundant
    }
}

impl Scheduler for Redundant {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        let mask = eligible(paths).filter(|p| p.has_space && p.id < 64).fold(0u64, |m, p| m | 1 << p.id);
        match mask.count_ones() {
            0 => Decision::Wait,
            1 => Decision::Send(mask.trailing_zeros() as usize),
            _ => Decision::Redundant(mask),
        }
    }
}
