//! `default`: the scheduler of upstream Linux MPTCP (v5.19+), lowest "linger time" first.
//!
//! Source: `net/mptcp/protocol.c`, `mptcp_subflow_get_send`. For every active subflow the
//! kernel computes
//!
//! ```text
//! linger_time = sk_wmem_queued / avg_pacing_rate        (bytes / (bytes/s) = seconds)
//! ```
//!
//! i.e. how long the data the subflow already holds (queued and not yet acknowledged) takes to
//! drain at its pacing rate, keeps the smallest per class (non-backup, backup), uses the backup
//! class only when no non-backup subflow is active, and returns the winner only if it can take
//! more data (`sk_stream_memory_free`), else nothing. The kernel's comment calls this its take
//! on BLEST: the subflow that empties first is the one least likely to hold the connection
//! back.
//!
//! Interpretations:
//! - `sk_wmem_queued` is modelled as `queued + in_flight` (bytes the subflow holds: assigned
//!   and not sent, plus sent and not acknowledged), the pacing rate as `PathView::pacing_rate`.
//!   The kernel smooths the rate per burst (`avg_pacing_rate`); the view's rate is used as is.
//! - A path with no rate estimate (pacing_rate 0, before its first RTT sample) has linger time
//!   0, so it is considered by its window only: Linux initialises `sk_pacing_rate` to ~0UL
//!   (unlimited) and such a subflow's linger time rounds to 0 there as well.
//! - "Can take more data": by default (`queue = false`) the choice is made among the paths with
//!   `has_space`, the kernel pushing data only where the congestion window lets it go out.
//!   With `queue = true` the kernel's literal order is used: the lowest linger time among all
//!   eligible paths, sent there if it has space or can queue the chunk, else `Wait`.
//! - Ties go to the lower id; backups follow `eligible` (used only when no non-backup path is
//!   usable, as the kernel's `nr_active == 0`).

use super::{eligible, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use mptlab_engine::time::SECOND;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LingerConfig {
    /// Choose among all eligible paths and queue on the winner if it has no space (the kernel's
    /// literal order); false: choose among the paths with space only.
    pub queue: bool,
}

impl Options for LingerConfig {
    const NAMES: &'static [&'static str] = &["queue"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "queue" => self.queue = v.boolean()?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Linger {
    queue: bool,
}

impl Linger {
    pub fn new(cfg: &LingerConfig) -> Self {
        Self { queue: cfg.queue }
    }
}

/// Time to drain what the path holds at its sending rate, in nanoseconds (0 without a rate).
pub fn linger_time(p: &PathView) -> u128 {
    if p.pacing_rate == 0 {
        return 0;
    }
    (p.queued as u128 + p.in_flight as u128) * SECOND as u128 / p.pacing_rate as u128
}

impl Scheduler for Linger {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        let key = |p: &&PathView| (linger_time(p), p.id);
        if self.queue {
            match eligible(paths).min_by_key(key) {
                Some(p) if p.has_space || p.can_queue => Decision::Send(p.id),
                _ => Decision::Wait,
            }
        } else {
            eligible(paths).filter(|p| p.has_space).min_by_key(key).map_or(Decision::Wait, |p| Decision::Send(p.id))
        }
    }
}
