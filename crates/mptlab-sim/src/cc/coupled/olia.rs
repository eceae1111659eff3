//! OLIA, the Opportunistic Linked Increases Algorithm.
//!
//! Sources: R. Khalili, N. Gast, M. Popovic, J.-Y. Le Boudec, "MPTCP is not Pareto-optimal:
//! performance issues and a possible solution", IEEE/ACM ToN 21(5), 2013 (CoNEXT 2012), the
//! definition of OLIA; draft-khalili-mptcp-congestion-control (its IETF description); Linux
//! out-of-tree MPTCP `net/mptcp/mptcp_olia.c` (the authors' implementation), the reference for
//! units, sets and the loss distance. The paper is not among `../shared/seeds/`; the
//! formulas below are labelled (O1)–(O3) here rather than by the paper's equation numbers.
//!
//! The paper, with windows w in packets and R the set of paths: for each ACK on path r,
//!
//! ```text
//!                    w_r / rtt_r²          α_r
//!   w_r += ───────────────────────────── + ───            (O1)
//!           ( Σ_{p∈R} w_p / rtt_p )²       w_r
//! ```
//!
//! and for each loss on path r, w_r −= w_r/2. ℓ_r = max(ℓ_1r, ℓ_2r): bytes acknowledged
//! between the last two losses and since the last loss. The sets:
//!
//! ```text
//!   M  = paths with the largest window w_p
//!   B  = the presumably best paths: the largest ℓ_p / rtt_p²           (O2)
//!   B \ M: the "collected paths" (best, but not yet the largest window)
//!
//!          ⎧  1 / (|R|·|B\M|)   r ∈ B\M
//!   α_r =  ⎨ −1 / (|R|·|M|)     r ∈ M, if B\M ≠ ∅                      (O3)
//!          ⎩  0                 otherwise (all of R when B\M = ∅)
//! ```
//!
//! α moves window from the largest-window paths to the collected paths; Σ α_r = 0, so the
//! total increase is that of the first term (LIA's goals, Pareto-optimal in the paper's model).
//!
//! Interpretations:
//! - The best-path metric is ℓ_p/rtt_p², as Linux (`tmp_int * best_rtt >= best_int * tmp_rtt`
//!   with the RTTs squared): a TCP path's rate is ∝ 1/(rtt·√p) and ℓ estimates 1/p, so ℓ/rtt²
//!   orders paths as their rate² does. (Some descriptions of OLIA write ℓ_r²/rtt_r; we follow
//!   the authors' implementation.) Compared exactly, in integers (ℓ in bytes, rtt in ns, u128
//!   products): paths tie, and then all belong to B, only when their metrics are equal, as in
//!   Linux. Before any loss every ℓ is 0, so every path is in B (Linux likewise).
//! - ℓ counts bytes cumulatively acknowledged (Linux: the distance between `snd_una` at
//!   successive losses); on a loss (entering fast recovery, or a timeout outside recovery) the
//!   distance since the last loss becomes the distance between the last two, unless nothing was
//!   acknowledged since (Linux `mptcp_olia_set_state`).
//! - R, M and B are the subflows that count (active, with an RTT sample: Linux
//!   `mptcp_olia_sk_can_send`) including this one; |R| is their number (Linux uses
//!   `cnt_established`, which may also count subflows without an RTT sample yet). The sets and
//!   α_r are computed when the connection couples, from the peers' views and this subflow's
//!   state at that moment; the first term of (O1) at each ACK from the current window.
//! - Units: (O1) in bytes, per byte acknowledged, is MSS_r·((w_r/rtt_r²)/(Σ w_p/rtt_p)² +
//!   α_r/w_r) with every w in bytes (the packet form when all MSS are equal); the increase
//!   accumulates in segments and is applied one MSS at a time, a decrease (α_r < 0) down to
//!   1 MSS (Linux: `max(1, snd_cwnd - 1)`). Linux resets its counter after each step; the
//!   remainder is kept here, as Reno's byte counter keeps it.
//! - Slow start, the halving on loss and the timeout are Reno's (Linux: `tcp_slow_start`,
//!   `tcp_reno_ssthresh`); uncoupled (one path) OLIA is Reno exactly (α = 0 and the first term
//!   is 1/w_r).

use super::{peers, Peers, SubflowCcView, Window};
use crate::cc::{AckEvent, CcParams, CongestionControl, LossEvent};
use mptlab_engine::Time;
use std::cmp::Ordering;

/// One path's inputs to OLIA's sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OliaPath {
    /// Window in bytes.
    pub w: u64,
    /// Smoothed RTT in ns (> 0).
    pub srtt: Time,
    /// ℓ in bytes.
    pub ell: u64,
}

impl OliaPath {
    pub fn of(v: &SubflowCcView) -> Self {
        OliaPath { w: v.cwnd, srtt: v.srtt, ell: v.bytes_since_loss.max(v.bytes_between_losses) }
    }

    /// Compare ℓ/rtt² of two paths exactly: ℓ_a·rtt_b² against ℓ_b·rtt_a².
    pub fn cmp_quality(&self, other: &OliaPath) -> Ordering {
        let sq = |t: Time| t as u128 * t as u128;
        let a = (self.ell as u128).saturating_mul(sq(other.srtt));
        let b = (other.ell as u128).saturating_mul(sq(self.srtt));
        a.cmp(&b)
    }
}

/// The sets R, M and B of (O2) as counts, with what decides membership.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OliaSets {
    /// |R|, |M|, |B \ M|.
    pub r: u32,
    pub m: u32,
    pub b_not_m: u32,
    /// The largest window (M's).
    pub max_w: u64,
    /// A path with the best ℓ/rtt² (B's), if any.
    pub best: Option<OliaPath>,
}

impl OliaSets {
    pub fn of(paths: impl Iterator<Item = OliaPath> + Clone) -> Self {
        let mut s = OliaSets { r: 0, m: 0, b_not_m: 0, max_w: 0, best: None };
        for p in paths.clone() {
            s.r += 1;
            s.max_w = s.max_w.max(p.w);
            if s.best.is_none_or(|b| p.cmp_quality(&b) != Ordering::Less) {
                s.best = Some(p);
            }
        }
        for p in paths {
            if s.in_m(&p) {
                s.m += 1;
            } else if s.in_b(&p) {
                s.b_not_m += 1;
            }
        }
        s
    }

    pub fn in_m(&self, p: &OliaPath) -> bool {
        p.w == self.max_w
    }

    pub fn in_b(&self, p: &OliaPath) -> bool {
        self.best.is_some_and(|b| p.cmp_quality(&b) == Ordering::Equal)
    }

    /// α_r of (O3) for path `p` (one of the paths the sets were taken over).
    pub fn alpha(&self, p: &OliaPath) -> f64 {
        if self.b_not_m == 0 {
            0.0
        } else if self.in_m(p) {
            -1.0 / (self.r as f64 * self.m as f64)
        } else if self.in_b(p) {
            1.0 / (self.r as f64 * self.b_not_m as f64)
        } else {
            0.0
        }
    }
}

#[derive(Clone, Debug)]
pub struct Olia {
    w: Window,
    /// α_r of the last coupling (0 while uncoupled).
    alpha: f64,
}

impl Olia {
    pub fn new(p: CcParams) -> Self {
        Olia { w: Window::new(p), alpha: 0.0 }
    }

    /// This subflow's inputs to the sets, once it has an RTT sample.
    pub fn own_path(&self) -> Option<OliaPath> {
        (self.w.srtt > 0).then(|| OliaPath { w: self.w.cwnd, srtt: self.w.srtt, ell: self.w.loss_distance() })
    }

    /// α_r of (O3) from the last coupling.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The increase of (O1) per byte acknowledged, in segments; None while uncoupled (Reno).
    pub fn increase_per_byte(&self) -> Option<f64> {
        let (me, peers) = self.w.coupled()?;
        let sum = me.x() + peers.sum_x;
        Some(me.w_over_rtt2() / (sum * sum) + self.alpha / me.w)
    }

    pub fn peers(&self) -> &Peers {
        &self.w.peers
    }
}

impl CongestionControl for Olia {
    fn reads_rate_samples(&self) -> bool {
        false
    }
    window_answers!();
    reno_window_hooks!();
    halving_on_loss!();

    fn on_ack(&mut self, ev: &AckEvent) {
        if !self.w.on_ack(ev) {
            return;
        }
        if self.w.in_slow_start() {
            self.w.slow_start(ev.bytes_acked);
            return;
        }
        match self.increase_per_byte() {
            Some(per_byte) => self.w.add_segments(per_byte * ev.bytes_acked as f64),
            None => self.w.reno(ev.bytes_acked),
        }
    }

    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.w.peers = Peers::of(views, me);
        self.alpha = match self.own_path() {
            Some(own) => {
                let paths = peers(views, me).map(OliaPath::of).chain(std::iter::once(own));
                OliaSets::of(paths).alpha(&own)
            }
            None => 0.0,
        };
    }
}
