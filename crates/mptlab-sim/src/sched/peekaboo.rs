//! Peekaboo (simplified): a contextual bandit decides, when the fast path is full, whether to
//! wait for it or send on the slow path.
//!
//! Source: H. Wu, Ö. Alay, A. Brunstrom, S. Ferlin, G. Caso, "Peekaboo: Learning-Based
//! Multipath Scheduling for Dynamic Heterogeneous Environments", IEEE JSAC 38(10):2295–2310,
//! 2020 (seed 002 cites it as ref. [5], with other authors and venue). Structure checked against
//! the MPQUIC ns-3 module of seed 002's ref. [14] (Shu et al., `mp-quic-scheduler.cc`,
//! `Peekaboo`, `PeekabooReward`), which the seed's own evaluation runs.
//!
//! What is modelled:
//! - The decision point is minRTT's: the fast path x_f (lowest SRTT) is used when it has space;
//!   when it is full and a slower path x_s has space, two actions remain, wait for x_f (arm 0)
//!   or send on x_s (arm 1). Peekaboo's deterministic part chooses between them with LinUCB
//!   (Li et al., WWW 2010): per arm a, A_a = I + Σ x xᵀ and b_a = Σ r x over the times it was
//!   chosen, score p_a = θ_aᵀ x + α √(xᵀ A_a⁻¹ x) with θ_a = A_a⁻¹ b_a; the higher score wins,
//!   a tie sends (as the ns-3 module). A_a⁻¹ is kept directly by Sherman–Morrison updates.
//! - Context x (6 features, the ns-3 module's choice: each path's window and bytes in flight
//!   per RTT): cwnd_f/rtt_f, in_flight_f/rtt_f, cwnd_s/rtt_s, in_flight_s/rtt_s in MB/s, the
//!   RTT ratio rtt_s/rtt_f, and a constant 1 (bias).
//! - Reward: the connection's goodput between one decision and the next (the sum of the paths'
//!   `bytes_acked` over the elapsed time, MB/s), credited to the previous decision's arm and
//!   context, scaled by a decay g that is 0.9 when the next decision came within
//!   T_r = max(2 rtt_f, rtt_s), 0.7 within 2 T_r, 0.5 within 3 T_r, and no reward after
//!   that (the ns-3 module's `PeekabooReward` constants).
//! - Stochastic adjustment (the paper's second perspective: path dynamicity): waiting is
//!   allowed only while the fast path, with its RTT variation, is still expected to deliver
//!   sooner than the slow path: rtt_f + `sigma` · rttvar_f < rtt_s; otherwise the chunk goes to
//!   x_s whatever the bandit says.
//! - Exploration beyond the UCB bonus: with probability `epsilon` (default 0) a random arm,
//!   drawn from the scheduler's own seeded stream (`SchedConfig::build_seeded`).
//!
//! Not modelled: the paper's per-path stochastic estimators of delay and loss and its
//! estimate of the waiting time before the fast path frees space; its
//! time-varying learning rate and sliding-window forgetting; loss-rate features; feedback
//! from per-packet ACKs (the scheduler sees views, not ACK events). Paths without an RTT
//! sample are used first (as minRTT); backups follow `eligible`.

use super::blp::SchedRng;
use super::{fast_and_slow, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use mptlab_engine::Time;
use serde::Serialize;

const D: usize = 6;
type Vector = [f64; D];
type Matrix = [[f64; D]; D];

/// Stream tag of Peekaboo's draws ("pkb").
const RNG_KIND: u64 = 0x706b62;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeekabooConfig {
    /// LinUCB exploration weight α (the ns-3 module: 0.8).
    pub alpha: f64,
    /// RTT variations added to the fast path's RTT in the stochastic adjustment.
    pub sigma: f64,
    /// Probability of a random arm (ours; 0 = LinUCB only).
    pub epsilon: f64,
}

impl Default for PeekabooConfig {
    fn default() -> Self {
        Self { alpha: 0.8, sigma: 2.0, epsilon: 0.0 }
    }
}

impl Options for PeekabooConfig {
    const NAMES: &'static [&'static str] = &["alpha", "sigma", "epsilon"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "alpha" => self.alpha = v.number(0.0, 100.0)?,
            "sigma" => self.sigma = v.number(0.0, 100.0)?,
            "epsilon" => self.epsilon = v.number(0.0, 1.0)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// One LinUCB arm: A⁻¹ and b.
#[derive(Clone, Debug)]
struct Arm {
    a_inv: Matrix,
    b: Vector,
}

impl Arm {
    fn new() -> Self {
        let mut a_inv = [[0.0; D]; D];
        for (i, row) in a_inv.iter_mut().enumerate() {
            row[i] = 1.0;
        }
        Self { a_inv, b: [0.0; D] }
    }

    fn a_inv_x(&self, x: &Vector) -> Vector {
        let mut y = [0.0; D];
        for (yi, row) in y.iter_mut().zip(&self.a_inv) {
            *yi = row.iter().zip(x).map(|(a, b)| a * b).sum();
        }
        y
    }

    /// θᵀx + α √(xᵀ A⁻¹ x), θ = A⁻¹ b.
    fn score(&self, x: &Vector, alpha: f64) -> f64 {
        let ax = self.a_inv_x(x);
        // θᵀx = bᵀ A⁻¹ x (A⁻¹ symmetric).
        let mean: f64 = self.b.iter().zip(&ax).map(|(b, v)| b * v).sum();
        let var: f64 = x.iter().zip(&ax).map(|(a, b)| a * b).sum();
        mean + alpha * var.max(0.0).sqrt()
    }

    /// A ← A + x xᵀ (Sherman–Morrison on A⁻¹), b ← b + r x.
    fn update(&mut self, x: &Vector, r: f64) {
        let ax = self.a_inv_x(x);
        let denom = 1.0 + x.iter().zip(&ax).map(|(a, b)| a * b).sum::<f64>();
        if denom.is_finite() && denom > 0.0 {
            for i in 0..D {
                for j in 0..D {
                    self.a_inv[i][j] -= ax[i] * ax[j] / denom;
                }
            }
        }
        if r.is_finite() {
            for (bi, xi) in self.b.iter_mut().zip(x) {
                *bi += r * xi;
            }
        }
    }
}

/// A bandit decision awaiting its reward.
#[derive(Clone, Debug)]
struct Pending {
    arm: usize,
    x: Vector,
    at: Time,
    acked: u64,
    /// T_r = max(2 rtt_f, rtt_s) at the decision.
    t_r: Time,
}

#[derive(Clone, Debug)]
pub struct Peekaboo {
    cfg: PeekabooConfig,
    arms: [Arm; 2],
    pending: Option<Pending>,
    rng: SchedRng,
}

/// Arm 0: wait for the fast path; arm 1: send on the slow path.
pub const WAIT: usize = 0;
pub const SEND_SLOW: usize = 1;

fn total_acked(paths: &[PathView]) -> u64 {
    paths.iter().fold(0u64, |s, p| s.saturating_add(p.bytes_acked))
}

/// The context of a decision (see the file header); rates in MB/s (bytes per µs).
pub fn features(fast: &PathView, slow: &PathView) -> Vector {
    let us = |t: Time| (t as f64 / 1_000.0).max(1.0);
    let (rf, rs) = (us(fast.srtt), us(slow.srtt));
    [fast.cwnd as f64 / rf, fast.in_flight as f64 / rf, slow.cwnd as f64 / rs, slow.in_flight as f64 / rs, rs / rf, 1.0]
}

impl Peekaboo {
    pub fn new(cfg: &PeekabooConfig, seed: u64) -> Self {
        Self { cfg: cfg.clone(), arms: [Arm::new(), Arm::new()], pending: None, rng: SchedRng::new(seed, RNG_KIND) }
    }

    /// The LinUCB scores of (wait, send on slow) for a context.
    pub fn scores(&self, x: &Vector) -> [f64; 2] {
        [self.arms[WAIT].score(x, self.cfg.alpha), self.arms[SEND_SLOW].score(x, self.cfg.alpha)]
    }

    /// Credit the previous bandit decision with the goodput since, decayed by how late it
    /// comes (the ns-3 module's g: 0.9, 0.7, 0.5 within 1, 2, 3 T_r; nothing later).
    fn reward(&mut self, now: Time, paths: &[PathView]) {
        let Some(p) = self.pending.take() else { return };
        let elapsed = now.saturating_sub(p.at);
        if elapsed == 0 {
            self.pending = Some(p);
            return;
        }
        let g = if elapsed <= p.t_r {
            0.9
        } else if elapsed <= 2 * p.t_r {
            0.7
        } else if elapsed <= 3 * p.t_r {
            0.5
        } else {
            return;
        };
        let acked = total_acked(paths).saturating_sub(p.acked) as f64;
        let goodput = acked / (elapsed as f64 / 1_000.0); // bytes per µs = MB/s
        self.arms[p.arm].update(&p.x, g * goodput);
    }
}

impl Scheduler for Peekaboo {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        self.reward(conn.now, paths);
        let (fast, slow) = match fast_and_slow(paths) {
            Ok(pair) => pair,
            Err(decision) => return decision,
        };
        // Stochastic adjustment: waiting only while x_f, RTT variation included, is faster.
        let fast_bound = fast.srtt as f64 + self.cfg.sigma * fast.rttvar as f64;
        if fast_bound >= slow.srtt as f64 {
            return Decision::Send(slow.id);
        }
        let x = features(fast, slow);
        let arm = if self.cfg.epsilon > 0.0 && self.rng.bernoulli(self.cfg.epsilon) {
            if self.rng.bernoulli(0.5) {
                WAIT
            } else {
                SEND_SLOW
            }
        } else {
            let [w, s] = self.scores(&x);
            if w > s {
                WAIT
            } else {
                SEND_SLOW
            }
        };
        let t_r = (2 * fast.srtt).max(slow.srtt);
        self.pending = Some(Pending { arm, x, at: conn.now, acked: total_acked(paths), t_r });
        if arm == WAIT {
            Decision::Wait
        } else {
            Decision::Send(slow.id)
        }
    }
}
