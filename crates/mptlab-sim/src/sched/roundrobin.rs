//! Round robin: take turns among the paths that can send now.
//!
//! Source: out-of-tree Linux MPTCP `net/mptcp/mptcp_rr.c` (`rr_get_available_subflow`,
//! `mptcp_rr_next_segment`): subflows take turns, each sending `num_segments` (default 1)
//! consecutive segments per turn; with `cwnd_limited` (default 1) only subflows with room in
//! the congestion window are considered. This is that default configuration.
//!
//! Interpretations:
//! - The cursor is a position in the connection's path list. Each decision starts at the
//!   cursor and takes the first eligible path with `has_space` in cyclic order; after
//!   `segments` chunks on that path the cursor moves past it (1: after every Send). A path
//!   that is skipped (no space) loses its turn; it is not owed one later.
//! - Backups follow `eligible` in mod.rs (used only when no non-backup path is usable).

use super::{backups_only, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoundRobinConfig {
    /// Consecutive chunks a path sends per turn (mptcp_rr.c `num_segments`, default 1).
    pub segments: u32,
}

impl Default for RoundRobinConfig {
    fn default() -> Self {
        Self { segments: 1 }
    }
}

impl Options for RoundRobinConfig {
    const NAMES: &'static [&'static str] = &["segments"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "segments" => {
                let x = v.number(1.0, 1000.0)?;
                if x.fract() != 0.0 {
                    return Err(format!("{x} is not a whole number"));
                }
                self.segments = x as u32;
            }
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct RoundRobin {
    segments: u32,
    /// Position (in the path slice) where the next search starts.
    cursor: usize,
    /// Chunks sent on the path at `cursor` in its current turn.
    sent_in_turn: u32,
}

impl RoundRobin {
    pub fn new(cfg: &RoundRobinConfig) -> Self {
        Self { segments: cfg.segments.max(1), cursor: 0, sent_in_turn: 0 }
    }
}

impl Scheduler for RoundRobin {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        let n = paths.len();
        if n == 0 {
            return Decision::Wait;
        }
        let backups = backups_only(paths);
        let can_send = |p: &PathView| p.usable && p.backup == backups && p.has_space;
        let start = self.cursor % n;
        let Some(pos) = (0..n).map(|k| (start + k) % n).find(|&i| can_send(&paths[i])) else {
            return Decision::Wait;
        };
        if pos != start {
            // The path at the cursor could not send: its turn is over.
            self.sent_in_turn = 0;
        }
        self.sent_in_turn += 1;
        if self.sent_in_turn >= self.segments {
            self.cursor = pos + 1;
            self.sent_in_turn = 0;
        } else {
            self.cursor = pos;
        }
        Decision::Send(paths[pos].id)
    }
}
