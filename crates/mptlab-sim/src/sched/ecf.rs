//! ECF, Earliest Completion First: wait for the fast path when it would finish sooner.
//!
//! Source: Y.-s. Lim, E. M. Nahum, D. Towsley, R. J. Gibbens, "ECF: An MPTCP Path Scheduler to
//! Manage Heterogeneous Paths", CoNEXT 2017, §3 and Algorithm 1; the authors' Linux
//! implementation, out-of-tree MPTCP `net/mptcp/mptcp_ecf.c` (`ecf_get_available_subflow`,
//! β = 1/`mptcp_ecf_r_beta` = 1/4, the `waiting` flag kept as `switching_margin`).
//!
//! With x_f the fastest path (lowest RTT, whether or not it has space) and x_s the path the
//! minRTT scheduler would pick (lowest RTT among those with space), k the packets waiting to be
//! scheduled and δ = max(σ_f, σ_s):
//!
//! ```text
//! if x_f has space: send on x_f
//! else:
//!   n = 1 + k / CWND_f                                  (rounds x_f needs for k more packets)
//!   if n · RTT_f < (1 + waiting · β) · (RTT_s + δ):     (x_f alone finishes before x_s would)
//!     if (k / CWND_s) · RTT_s ≥ 2 · RTT_f + δ:          (and x_s would not help either)
//!       waiting = 1; wait for x_f
//!     else: send on x_s
//!   else: waiting = 0; send on x_s
//! ```
//!
//! The first inequality compares sending everything on x_f (one RTT_f until its window opens,
//! then k/CWND_f more rounds) with one packet on x_s; the second checks that x_s, needing
//! k/CWND_s rounds of RTT_s, would not finish within two fast round trips anyway. β is a
//! hysteresis on the first inequality once ECF has decided to wait, so it does not flap.
//!
//! Interpretations:
//! - k is `ConnView::unsent` (connection bytes not yet scheduled, this chunk included), as in
//!   mptcp_ecf.c (meta `sk_wmem_queued` minus what the subflows hold). The ratios k/CWND are
//!   taken in bytes, equal to the paper's packet ratios for equal MSS. The paper's k is used
//!   as is; mptcp_ecf.c raises it to at least CWND_f ("at least one time tx over fastest
//!   subflow is required"). A greedy sender's k is huge, so ECF then never waits (it behaves
//!   as minRTT), as in the paper's bulk-transfer results.
//! - σ (the paper's RTT standard deviation) is RFC 6298 RTTVAR (`PathView::rttvar`).
//!   mptcp_ecf.c uses `rttvar_us >> 1`, which is 2·RTTVAR because the kernel keeps RTTVAR
//!   scaled by 4.
//! - Without an RTT sample on x_f or x_s (SRTT 0) there is nothing to compare: send on x_s.
//! - When x_f has space it is used and `waiting` is left as it is (mptcp_ecf.c touches the flag
//!   only when x_f ≠ x_s). When no eligible path has space, `Wait`.
//! - RTTs are SRTTs; backups follow `eligible`; ties between equal RTTs go to the lower id.

use super::{fast_and_slow, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EcfConfig {
    /// Hysteresis β on the waiting condition (paper and mptcp_ecf.c: 0.25).
    pub beta: f64,
}

impl Default for EcfConfig {
    fn default() -> Self {
        Self { beta: 0.25 }
    }
}

impl Options for EcfConfig {
    const NAMES: &'static [&'static str] = &["beta"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "beta" => self.beta = v.number(0.0, 10.0)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Ecf {
    beta: f64,
    /// Algorithm 1's `waiting`: the last decision on a slow path was to wait for the fast one.
    waiting: bool,
}

impl Ecf {
    pub fn new(cfg: &EcfConfig) -> Self {
        Self { beta: cfg.beta, waiting: false }
    }

    /// Algorithm 1's `waiting` flag.
    pub fn waiting(&self) -> bool {
        self.waiting
    }
}

impl Scheduler for Ecf {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        let (fast, slow) = match fast_and_slow(paths) {
            Ok(pair) => pair,
            Err(decision) => return decision,
        };
        let rtt_f = fast.srtt as f64;
        let rtt_s = slow.srtt as f64;
        let delta = fast.rttvar.max(slow.rttvar) as f64;
        let k = conn.unsent as f64;
        let n = 1.0 + k / fast.cwnd.max(1) as f64;
        let w = if self.waiting { 1.0 } else { 0.0 };
        if n * rtt_f < (1.0 + w * self.beta) * (rtt_s + delta) {
            if k / slow.cwnd.max(1) as f64 * rtt_s >= 2.0 * rtt_f + delta {
                self.waiting = true;
                Decision::Wait
            } else {
                Decision::Send(slow.id)
            }
        } else {
            self.waiting = false;
            Decision::Send(slow.id)
        }
    }
}
