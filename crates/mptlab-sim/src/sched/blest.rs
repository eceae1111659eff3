//! BLEST, blocking estimation: skip the slow path when it would block the send window.
//!
//! Source: S. Ferlin, Ö. Alay, O. Mehani, R. Boreli, "BLEST: Blocking Estimation-based MPTCP
//! Scheduler for Heterogeneous Networks", IFIP Networking 2016, §III; the authors' Linux
//! implementation, out-of-tree MPTCP `net/mptcp/mptcp_blest.c` (`blest_get_available_subflow`,
//! `blestsched_update_lambda`), which supplies the λ constants.
//!
//! With x_f the fastest path (lowest RTT, whether or not it has space) and x_s the path the
//! minRTT scheduler would pick: if x_f has space, send there. Otherwise a segment sent on x_s
//! occupies the connection-level send window M for about RTT_s. In that time x_f, growing its
//! window by one segment per round trip (congestion avoidance), can send
//!
//! ```text
//! X = MSS_f · (CWND_f + (rtt_s/rtt_f − 1) / 2) · rtt_s/rtt_f        (eq. (1); CWND_f in packets)
//! ```
//!
//! bytes: rtt_s/rtt_f rounds of CWND_f, CWND_f + 1, ... segments. If those would not fit in
//! what x_s leaves of the window,
//!
//! ```text
//! X · λ > |M| − MSS_s · (inflight_s + 1)                             (eq. (2))
//! ```
//!
//! sending on x_s would head-of-line block the fast path: wait instead. λ scales the estimate
//! and is adapted: up by δ_up when the connection was blocked by its send window since the last
//! update (a head-of-line event), down by δ_down otherwise, at most once per x_s minimum RTT,
//! kept in [λ_min, λ_max].
//!
//! Interpretations:
//! - |M| is the connection-level send window, `window_space + unacked` (the peer's data-level
//!   window from DATA_ACK); mptcp_blest.c uses the meta `snd_wnd`. x_s's share,
//!   MSS_s·(inflight_s + 1), is `in_flight + queued + chunk` in bytes (mptcp_blest.c:
//!   `write_seq − snd_una` of the subflow plus the segment).
//! - rtt_s/rtt_f is the real ratio of the SRTTs, as in eq. (1). mptcp_blest.c rounds the
//!   number of fast round trips up to an integer, takes the slow path's time from an estimate
//!   of its linger time between its minimum and maximum SRTT, and assumes doubling while the
//!   fast path is in its initial slow start; those refinements are not modelled.
//! - λ constants are mptcp_blest.c's defaults: start 1.2, range [1.0, 1.3], +0.04 on a
//!   head-of-line event, −0.01 otherwise (options `lambda`, `lambda_min`, `lambda_max`,
//!   `lambda_up`, `lambda_down`; `adaptive = false` keeps λ at `lambda`).
//! - The head-of-line event. mptcp_blest.c flags it when the kernel, having a subflow to send
//!   on, finds the meta send window closed (`tcp_snd_wnd_test` fails and the opportunistic
//!   retransmission runs). The connection here does not ask the scheduler while the window is
//!   closed, so the event is recorded one chunk earlier: on a Send decision after which the
//!   window has no room for another full segment (`window_space − chunk < MSS`) while more
//!   data waits (`unsent > chunk`).
//! - Without an RTT sample on x_f or x_s (SRTT 0) there is no estimate: send on x_s.
//! - RTTs are SRTTs; backups follow `eligible`; ties between equal RTTs go to the lower id.

use super::{eligible, head_of_line_event, lambda_period, rtt_key, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use mptlab_engine::Time;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlestConfig {
    /// Initial λ (mptcp_blest.c `lambda` = 12 → 1.2).
    pub lambda: f64,
    /// Adapt λ on head-of-line events; false keeps it at `lambda`.
    pub adaptive: bool,
    /// Bounds of the adapted λ (mptcp_blest.c `min_lambda`, `max_lambda`: 1.0, 1.3).
    pub lambda_min: f64,
    pub lambda_max: f64,
    /// Step up after a head-of-line event, down otherwise (`dyn_lambda_bad` 4%,
    /// `dyn_lambda_good` 1%).
    pub lambda_up: f64,
    pub lambda_down: f64,
}

impl Default for BlestConfig {
    fn default() -> Self {
        Self { lambda: 1.2, adaptive: true, lambda_min: 1.0, lambda_max: 1.3, lambda_up: 0.04, lambda_down: 0.01 }
    }
}

impl Options for BlestConfig {
    const NAMES: &'static [&'static str] = &["lambda", "adaptive", "lambda_min", "lambda_max", "lambda_up", "lambda_down"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "lambda" => self.lambda = v.number(0.0, 100.0)?,
            "adaptive" => self.adaptive = v.boolean()?,
            "lambda_min" => self.lambda_min = v.number(0.0, 100.0)?,
            "lambda_max" => self.lambda_max = v.number(0.0, 100.0)?,
            "lambda_up" => self.lambda_up = v.number(0.0, 10.0)?,
            "lambda_down" => self.lambda_down = v.number(0.0, 10.0)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Blest {
    cfg: BlestConfig,
    lambda: f64,
    /// A head-of-line event since the last λ update (mptcp_blest.c `retrans_flag`).
    hol_event: bool,
    /// When λ was last updated (the first decision counts as an update, as the kernel's init).
    last_update: Option<Time>,
}

impl Blest {
    pub fn new(cfg: &BlestConfig) -> Self {
        Self { cfg: cfg.clone(), lambda: cfg.lambda, hol_event: false, last_update: None }
    }

    /// The current scaling factor λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// At most once per minimum RTT of the slow path: λ up after a head-of-line event, else
    /// down, within [λ_min, λ_max] (mptcp_blest.c `blestsched_update_lambda`).
    fn update_lambda(&mut self, now: Time, slow: &PathView) {
        if !self.cfg.adaptive {
            return;
        }
        let last = *self.last_update.get_or_insert(now);
        if now.saturating_sub(last) < lambda_period(slow) {
            return;
        }
        let lo = self.cfg.lambda_min;
        let hi = self.cfg.lambda_max.max(lo);
        let step = if self.hol_event { self.cfg.lambda_up } else { -self.cfg.lambda_down };
        self.lambda = (self.lambda + step).clamp(lo, hi);
        self.hol_event = false;
        self.last_update = Some(now);
    }

    /// Eq. (2): would a chunk on `slow` leave too little window for what `fast` sends meanwhile?
    fn slow_path_blocks(&self, conn: &ConnView, fast: &PathView, slow: &PathView) -> bool {
        if fast.srtt == 0 || slow.srtt == 0 {
            return false;
        }
        let rounds = slow.srtt as f64 / fast.srtt as f64;
        let mss_f = fast.mss.max(1) as f64;
        let cwnd_f = fast.cwnd as f64 / mss_f;
        // Eq. (1): bytes x_f sends during one RTT of x_s.
        let x = mss_f * (cwnd_f + (rounds - 1.0) / 2.0) * rounds;
        let window = conn.window_space.saturating_add(conn.unacked);
        let slow_bytes = slow.in_flight.saturating_add(slow.queued).saturating_add(conn.chunk as u64);
        x * self.lambda > window.saturating_sub(slow_bytes) as f64
    }
}

impl Scheduler for Blest {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        self.last_update.get_or_insert(conn.now);
        let Some(fast) = eligible(paths).min_by_key(rtt_key) else {
            return Decision::Wait;
        };
        let chosen = if fast.has_space {
            fast
        } else {
            let Some(slow) = eligible(paths).filter(|p| p.has_space).min_by_key(rtt_key) else {
                return Decision::Wait;
            };
            self.update_lambda(conn.now, slow);
            if self.slow_path_blocks(conn, fast, slow) {
                return Decision::Wait;
            }
            slow
        };
        if head_of_line_event(conn, chosen) {
            self.hol_event = true;
        }
        Decision::Send(chosen.id)
    }
}
