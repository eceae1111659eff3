//! `lossaware` (alias `seed004`): the loss-aware period scheduler of seed 004's P-MPTCP. Per
//! scheduling period it gives every path a packet budget from the RTT model and the path's
//! window and loss rate, serves chunks from the budgets (fastest path first) and waits, with a
//! wake-up at the period's end, once they are used; case 2's w* is handed to the path's
//! controller (the CR state of `cc/newreno5.rs`).
//!
//! Source: seed 004, J. Guo, K. Parsons et al., "Modeling Multipath TCP Over Heterogeneous WiFi
//! and 5G Networks", IEEE ICC 2025 (MERL TR2025-084), Sec. VI (eq. (10), cases 1–5), Sec. III
//! (Fig. 1: the period is the slower path's RTT), Sec. V eqs. (6)–(9) (DTT, ATT). Study notes
//! `shared/studies/seed004.md` §4.3, §5 and §7 D, E. The Python RTT model is
//! `python/mptlab/models/rtt.py` (its `path_times` and `txop_batch_time` give the terms below).
//!
//! ```text
//! T^j = T^1 + (j − 1)·per_frame,  T^1 = DTT                                         (10)
//! round r of path i, time left T(r), window w = w_i(r):
//!  1  T(r) < T^1 + ATT                                   → nothing more; stop
//!  2  T^1 + ATT ≤ T(r) < T^w + ATT                       → w* = max{j < w : T^j + ATT ≤ T(r)}; stop (CR)
//!  3  T^w + ATT ≤ T(r) < T^w + ATT + 2·ack_dc + T^1      → w; stop
//!  4  … ≤ T(r) < RTO + T^1                               → w; no loss (1−l)^w: T −= T^w + ATT, w grows;
//!                                                          n ≤ w−3 losses: T −= T^w + ATT + 2·ack_dc
//!                                                          + Σ p(n|w) T^n, w = sst = ⌊w/2⌋; else stop
//!  5  T(r) ≥ RTO + T^1                                   → as 4, and n > w−3 losses: T −= T^w + RTO,
//!                                                          sst = ⌊w/2⌋, w = w_min
//! ```
//!
//! Structure (Sec. VI): the usable paths sorted by model RTT T^1 + ATT, ascending. The slowest
//! path P_K gets its window w_K, and its round T_K^{w_K} + ATT_K is the scheduling period: the
//! scheduler plans at the start of a period and asks to be woken at its end. Each faster path
//! P_i is planned over its own period D_i, nested under the next slower path's.
//!
//! Interpretations (ours; the notes list the options):
//! - E7, D_i: `period = "rtt"` (default) is the next slower path's one-packet round,
//!   T_{i+1}^1 + ATT_{i+1}: Sec. III's "RTT of the slower path is typically used as scheduling
//!   period", the only reading under which Fig. 1's argument holds (with the idle-channel times of
//!   Sec. III, P_1 gets two packets in P_2's 736 µs round; with Sec. VI's T_2^1 = 516 µs it gets
//!   one, case 3, and packet 3 does not go on P_1). `period = "dtt"` is Sec. VI as printed,
//!   T_{i+1}^1 (P_i's packets reach the DC no later than P_{i+1}'s first).
//! - E2, tree to count: `budget = "noloss"` (default) follows the no-loss branch (4-1/5-1) while
//!   its probability (1 − l)^w is at least 0.5, and stops after scheduling w otherwise; it is
//!   deterministic and the branch on which CR (case 2) lives. `budget = "expected"` is the
//!   expected count over the whole tree (branches below probability 1e-9 pruned), rounded to the
//!   nearest integer. Both hand over the no-loss branch's w*.
//! - E5: case 4-2's deduction as printed (the unconditional Σ p(n|w)·T^n), and 4-2's
//!   probability as printed (no factor for a lost retransmission); 4-3 is 1 − p(0|w) − p_4-2.
//! - Inputs. w_i(r) at the first round: the controller's window in packets (at least 1); sst from
//!   `PathView::ssthresh` (none: unbounded); w_min, w_max of the growth rule are this scheduler's
//!   options (default 1 and 20, as `newreno5`'s). l = packets_lost / segments_sent on the path
//!   since it opened (C6: cumulative). RTO_i = `PathView::rto` (0: unknown, case 5 never applies).
//! - Model terms (`PathView::model`, filled by the scenario): DTT, ATT, per_frame (SIFS +
//!   |Data|/B_i^D) and ack_dc (|ACK|/B_i^DC). A path without them falls back to its SRTT split
//!   in halves (DTT = ATT = SRTT/2) and per_frame = ack_dc = 0 (a round of any size costs one
//!   SRTT: a path far from its serialisation limit). A path with neither model nor SRTT sample
//!   makes the period unplannable: the scheduler is minRTT until every usable path has one.
//! - Contention. The paper feeds the DCF chain with the measured collision probability p of every
//!   node on the path (eq. (7)); a transport cannot see that. Instead the idle-channel DTT and
//!   ATT are scaled by measured / modelled RTT, SRTT / (DTT + ATT + (w − 1)/2 · per_frame), when
//!   that is above 1: the mean packet of a w-packet batch sees the idle RTT plus half the batch,
//!   and whatever SRTT has beyond that (backoff, queueing, retries: eq. (7)'s T_q + N_ts·TS_len)
//!   is spread over the two legs in proportion. per_frame and ack_dc (consecutive frames in a
//!   TXOP, SIFS-separated) are not scaled.
//! - E1, E8: budgets are fixed at the period's start and served per chunk, fastest path first
//!   (a path with budget left and window space); an unused budget does not carry over. A change
//!   in the set of eligible paths (a join, a failure) ends the period: a new one is planned,
//!   and what each path was given in the cut-short period counts against its new budget (its
//!   packets are still on the way; at a connection's start, when the paths open one by one at
//!   the same instant, this is what makes the plan the one of all paths together).
//! - CR hand-over: case 2 in round r of path i plans the packets of rounds 1…r−1 (`pre`) and
//!   then w*. The cap goes to the controller when round r starts: at once if r = 1, else at the
//!   first ACK on the path after its `pre`-th packet of the period was scheduled (the
//!   controller's round boundary, `newreno5`'s C1). The budget caps sending either way, so a
//!   controller without a CR state (`cap_round` a no-op) sends the same packets.

use super::{eligible, rtt_key, ConnView, Decision, OptValue, Options, PathView, Scheduler, WindowCap};
use mptlab_engine::Time;
use serde::Serialize;

/// Rounds planned at most per path and period (each round uses at least T^1 + ATT > 0).
const MAX_ROUNDS: usize = 64;
/// Branches of the expected-count tree below this probability are dropped.
const PRUNE: f64 = 1e-9;
/// The no-loss branch is followed while its probability is at least this.
const NO_LOSS_FOLLOW: f64 = 0.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PeriodRule {
    /// T_{i+1}^1 + ATT_{i+1} (Sec. III, Fig. 1).
    Rtt,
    /// T_{i+1}^1 (Sec. VI as printed).
    Dtt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetRule {
    /// The no-loss branch while (1 − l)^w ≥ 0.5.
    NoLoss,
    /// The expected count over the tree, rounded.
    Expected,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LossAwareConfig {
    pub period: PeriodRule,
    pub budget: BudgetRule,
    /// Growth rule of the planned rounds (packets), as `newreno5`'s options.
    pub w_min: u32,
    pub w_max: u32,
}

impl Default for LossAwareConfig {
    fn default() -> Self {
        Self { period: PeriodRule::Rtt, budget: BudgetRule::NoLoss, w_min: 1, w_max: 20 }
    }
}

impl Options for LossAwareConfig {
    const NAMES: &'static [&'static str] = &["period", "budget", "w_min", "w_max"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "period" => {
                self.period = match v.string()? {
                    "rtt" => PeriodRule::Rtt,
                    "dtt" => PeriodRule::Dtt,
                    s => return Err(format!("`{s}` is not a period rule; valid: rtt, dtt")),
                }
            }
            "budget" => {
                self.budget = match v.string()? {
                    "noloss" => BudgetRule::NoLoss,
                    "expected" => BudgetRule::Expected,
                    s => return Err(format!("`{s}` is not a budget rule; valid: noloss, expected")),
                }
            }
            "w_min" | "w_max" => {
                let x = v.number(1.0, 1e6)?;
                if x.fract() != 0.0 {
                    return Err(format!("{x} is not a whole number of packets"));
                }
                if key == "w_min" {
                    self.w_min = x as u32;
                } else {
                    self.w_max = x as u32;
                }
            }
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
    fn check(&self) -> Result<(), String> {
        if self.w_min > self.w_max {
            return Err(format!("w_min ({}) must not exceed w_max ({})", self.w_min, self.w_max));
        }
        Ok(())
    }
}

/// One path's terms for the recursion (ns), contention scaling applied.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PathTimes {
    pub t1: Time,
    pub att: Time,
    pub per_frame: Time,
    pub ack_dc: Time,
    /// 0: unknown (case 5 never applies).
    pub rto: Time,
}

impl PathTimes {
    /// The terms of `p` (module comment: model, contention scaling, SRTT fallback); None
    /// when the path has neither a model nor an RTT sample.
    pub fn of(p: &PathView) -> Option<Self> {
        let m = p.model;
        let (t1, att) = if m.is_known() {
            let w = packets(p.cwnd, p.mss);
            let idle = m.dtt + m.att + (w - 1) * m.per_frame / 2;
            if p.srtt > idle {
                let s = p.srtt as f64 / idle as f64;
                ((m.dtt as f64 * s).round() as Time, (m.att as f64 * s).round() as Time)
            } else {
                (m.dtt, m.att)
            }
        } else if p.srtt > 0 {
            (p.srtt / 2, p.srtt - p.srtt / 2)
        } else {
            return None;
        };
        Some(Self { t1, att, per_frame: m.per_frame, ack_dc: m.ack_dc, rto: p.rto })
    }

    /// Eq. (10): T^j.
    pub fn t(&self, j: u64) -> Time {
        self.t1 + j.saturating_sub(1) * self.per_frame
    }

    pub fn rtt1(&self) -> Time {
        self.t1 + self.att
    }
}

/// A path's plan for one period.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Packets the path may take in the period.
    pub budget: u64,
    /// Case 2 reached: (packets of the rounds before it, w*).
    pub cr: Option<(u64, u32)>,
}

/// The per-path inputs of the recursion besides the times.
#[derive(Clone, Copy, Debug)]
pub struct Round {
    /// w_i(1), packets (≥ 1).
    pub w: u64,
    /// sst_i, packets.
    pub sst: u64,
    /// l, per-packet loss probability.
    pub loss: f64,
}

/// p(x|w) = C(w, x) l^x (1 − l)^(w − x).
pub fn p_loss_count(x: u64, w: u64, l: f64) -> f64 {
    if x > w {
        return 0.0;
    }
    let mut c = 1.0;
    for k in 0..x {
        c = c * (w - k) as f64 / (k + 1) as f64;
    }
    c * l.powi(x as i32) * (1.0 - l).powi((w - x) as i32)
}

impl LossAwareConfig {
    /// Case 4-1's window for the next round.
    fn grow(&self, w: u64, sst: u64) -> u64 {
        let w_max = self.w_max.max(self.w_min).max(1) as u64;
        if w < sst {
            (2 * w).min(w_max).max(w.min(w_max))
        } else if w < w_max {
            w + 1
        } else {
            w
        }
    }

    /// The plan of a path with terms `pt` and inputs `r` over a period of length `period`.
    pub fn plan(&self, pt: &PathTimes, r: Round, period: Time) -> Plan {
        let (count, cr) = self.no_loss(pt, r, period);
        let budget = match self.budget {
            BudgetRule::NoLoss => count,
            BudgetRule::Expected => self.expected(pt, period, r.w, r.sst, r.loss, 0, 1.0).round().max(0.0) as u64,
        };
        Plan { budget, cr }
    }

    /// Case 2's w*: the largest j in [1, w) with T^j + ATT ≤ left (left ≥ T^1 + ATT).
    fn w_star(pt: &PathTimes, w: u64, left: Time) -> u64 {
        let spare = left - pt.rtt1();
        let extra = spare.checked_div(pt.per_frame).unwrap_or(w);
        (1 + extra).min(w - 1).max(1)
    }

    fn no_loss(&self, pt: &PathTimes, r: Round, period: Time) -> (u64, Option<(u64, u32)>) {
        let (mut left, mut w) = (period, r.w.max(1));
        let mut count = 0;
        for _ in 0..MAX_ROUNDS {
            let full = pt.t(w) + pt.att;
            if left < pt.rtt1() {
                break; // case 1
            }
            if left < full {
                let ws = Self::w_star(pt, w, left); // case 2
                return (count + ws, Some((count, ws as u32)));
            }
            count += w;
            if left < full + 2 * pt.ack_dc + pt.t1 {
                break; // case 3
            }
            if (1.0 - r.loss).powi(w as i32) < NO_LOSS_FOLLOW {
                break; // cases 4, 5: the loss branches are not followed
            }
            left -= full;
            w = self.grow(w, r.sst);
        }
        (count, None)
    }

    #[allow(clippy::too_many_arguments)]
    fn expected(&self, pt: &PathTimes, left: Time, w: u64, sst: u64, l: f64, depth: usize, prob: f64) -> f64 {
        if w == 0 || depth >= MAX_ROUNDS || prob < PRUNE || left < pt.rtt1() {
            return 0.0; // case 1 (or pruned)
        }
        let full = pt.t(w) + pt.att;
        if left < full {
            return Self::w_star(pt, w, left) as f64; // case 2
        }
        let recover = full + 2 * pt.ack_dc;
        if left < recover + pt.t1 {
            return w as f64; // case 3
        }
        let mut e = w as f64;
        let p0 = (1.0 - l).powi(w as i32);
        e += p0 * self.expected(pt, left - full, self.grow(w, sst), sst, l, depth + 1, prob * p0);
        // 4-2 / 5-2: n ≤ w − 3 losses, recovered by FR.
        let (mut p_fr, mut retx) = (0.0, 0.0);
        for n in 1..=w.saturating_sub(3) {
            let p = p_loss_count(n, w, l);
            p_fr += p;
            retx += p * pt.t(n) as f64;
        }
        if p_fr > 0.0 {
            let ded = recover as f64 + retx;
            if (left as f64) > ded {
                let half = w / 2;
                e += p_fr * self.expected(pt, left - ded.round() as Time, half, half, l, depth + 1, prob * p_fr);
            }
        }
        // 4-3: stop; 5-3: RTO, then w_min.
        let p_rto = (1.0 - p0 - p_fr).max(0.0);
        if pt.rto > 0 && left >= pt.rto + pt.t1 && p_rto > 0.0 {
            let ded = pt.t(w) + pt.rto;
            let w_min = self.w_min.max(1) as u64;
            e += p_rto * self.expected(pt, left - ded, w_min, (w / 2).max(1), l, depth + 1, prob * p_rto);
        }
        e
    }
}

/// A case-2 cap waiting for its round to start.
#[derive(Clone, Copy, Debug)]
struct PendingCap {
    path: usize,
    /// Packets of the path's earlier rounds in this period.
    pre: u64,
    packets: u32,
    /// The path's `bytes_acked` when its `pre`-th packet was scheduled.
    acked_at_pre: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct LossAware {
    cfg: LossAwareConfig,
    /// End of the current period (None: none planned).
    period_end: Option<Time>,
    /// Path ids by ascending model RTT (the serving order).
    order: Vec<usize>,
    /// Per path id: budget and packets scheduled in this period.
    budget: Vec<u64>,
    used: Vec<u64>,
    pending: Vec<PendingCap>,
    caps: Vec<WindowCap>,
    scratch: Vec<(usize, PathTimes)>,
    /// The eligible paths the period was planned for (bit i = path id i).
    planned_for: u128,
    periods: u64,
}

/// The eligible paths' ids as a bit set (ids beyond 127 share the top bit).
fn eligible_set(paths: &[PathView]) -> u128 {
    eligible(paths).fold(0, |m, p| m | 1u128 << p.id.min(127))
}

fn packets(bytes: u64, mss: u32) -> u64 {
    (bytes / mss.max(1) as u64).max(1)
}

impl LossAware {
    pub fn new(cfg: &LossAwareConfig) -> Self {
        Self {
            cfg: cfg.clone(),
            period_end: None,
            order: Vec::new(),
            budget: Vec::new(),
            used: Vec::new(),
            pending: Vec::new(),
            caps: Vec::new(),
            scratch: Vec::new(),
            planned_for: 0,
            periods: 0,
        }
    }

    /// Packets path `id` may still take in this period (0 outside a planned period).
    pub fn budget_left(&self, id: usize) -> u64 {
        match (self.budget.get(id), self.used.get(id)) {
            (Some(b), Some(u)) if self.period_end.is_some() => b.saturating_sub(*u),
            _ => 0,
        }
    }

    /// Periods planned so far.
    pub fn periods(&self) -> u64 {
        self.periods
    }

    /// Plan a period starting at `now`; false (nothing planned) when some usable path has
    /// neither a model nor an RTT sample. `carry`: the packets given in the current period
    /// count against the new budgets (the period is cut short by a change of paths).
    fn plan(&mut self, now: Time, paths: &[PathView], carry: bool) -> bool {
        self.period_end = None;
        self.pending.clear();
        self.scratch.clear();
        for p in eligible(paths) {
            match PathTimes::of(p) {
                Some(t) => self.scratch.push((p.id, t)),
                None => return false,
            }
        }
        if self.scratch.is_empty() {
            return false;
        }
        self.scratch.sort_by_key(|&(id, t)| (t.rtt1(), id));
        let n = paths.iter().map(|p| p.id + 1).max().unwrap_or(0);
        self.budget.clear();
        self.budget.resize(n, 0);
        if !carry {
            self.used.clear();
        }
        self.used.resize(n, 0);
        self.order.clear();
        self.order.extend(self.scratch.iter().map(|s| s.0));
        let view = |id: usize| paths.iter().find(|p| p.id == id).expect("an eligible path");
        let &(k, tk) = self.scratch.last().expect("non-empty");
        let wk = packets(view(k).cwnd, view(k).mss);
        self.budget[k] = wk;
        self.period_end = Some(now + tk.t(wk) + tk.att);
        for j in 0..self.scratch.len() - 1 {
            let (id, pt) = self.scratch[j];
            let slower = self.scratch[j + 1].1;
            let period = match self.cfg.period {
                PeriodRule::Rtt => slower.rtt1(),
                PeriodRule::Dtt => slower.t1,
            };
            let p = view(id);
            let sst = if p.ssthresh == 0 { u64::MAX } else { p.ssthresh / p.mss.max(1) as u64 };
            let loss = if p.segments_sent == 0 { 0.0 } else { (p.packets_lost as f64 / p.segments_sent as f64).min(1.0) };
            let plan = self.cfg.plan(&pt, Round { w: packets(p.cwnd, p.mss), sst, loss }, period);
            self.budget[id] = plan.budget;
            if let Some((pre, packets)) = plan.cr {
                // Packets carried over from a cut-short period may have sent the earlier rounds.
                let acked_at_pre = (self.used[id] >= pre).then_some(p.bytes_acked);
                let cap = PendingCap { path: id, pre, packets, acked_at_pre };
                if pre == 0 {
                    self.caps.push(WindowCap { path: id, packets });
                } else {
                    self.pending.push(cap);
                }
            }
        }
        self.planned_for = eligible_set(paths);
        self.periods += 1;
        true
    }

    /// Hand over the caps whose round has started (module comment, "CR hand-over").
    fn release_caps(&mut self, paths: &[PathView]) {
        let caps = &mut self.caps;
        self.pending.retain(|c| {
            let started = c.acked_at_pre.is_some_and(|a| paths.iter().any(|p| p.id == c.path && p.bytes_acked > a));
            if started {
                caps.push(WindowCap { path: c.path, packets: c.packets });
            }
            !started
        });
    }
}

impl Scheduler for LossAware {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        let now = conn.now;
        let ended = self.period_end.is_none_or(|end| now >= end);
        let changed = !ended && eligible_set(paths) != self.planned_for;
        if (ended || changed) && !self.plan(now, paths, changed) {
            // Unplannable: minRTT until every usable path has a model or an RTT sample.
            return eligible(paths).filter(|p| p.has_space).min_by_key(rtt_key).map_or(Decision::Wait, |p| Decision::Send(p.id));
        }
        self.release_caps(paths);
        for &id in &self.order {
            let Some(p) = eligible(paths).find(|p| p.id == id) else { continue };
            if !p.has_space || self.used[id] >= self.budget[id] {
                continue;
            }
            self.used[id] += 1;
            for c in self.pending.iter_mut().filter(|c| c.path == id && c.pre == self.used[id]) {
                c.acked_at_pre = Some(p.bytes_acked);
            }
            return Decision::Send(id);
        }
        Decision::Wait
    }

    fn wake_at(&self) -> Option<Time> {
        self.period_end
    }

    fn take_window_cap(&mut self) -> Option<WindowCap> {
        self.caps.pop()
    }

    fn has_period_hooks(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::PathModel;
    use mptlab_engine::time::MICROSECOND;

    const US: Time = MICROSECOND;
    const MSS: u32 = 1000;

    /// Sec. III's idle-channel 802.11a terms at 54 Mbit/s (notes §4.1, `rtt.py`): a hop's data
    /// leg DIFS + T_data + SIFS + T_MACACK = 34 + 180 + 16 + 28 = 258 µs, its ACK leg
    /// 34 + 32 + 16 + 28 = 110 µs; eq. (10)'s per frame SIFS + T_data = 196 µs; a TCP ACK 32 µs.
    fn wifi(hops: u32) -> PathModel {
        PathModel { dtt: hops as Time * 258 * US, att: hops as Time * 110 * US, per_frame: 196 * US, ack_dc: 32 * US, hops }
    }

    fn path(id: usize, model: PathModel, cwnd_pkts: u64) -> PathView {
        PathView {
            id,
            usable: true,
            has_space: true,
            mss: MSS,
            cwnd: cwnd_pkts * MSS as u64,
            ssthresh: 16 * MSS as u64,
            model,
            ..PathView::default()
        }
    }

    fn conn(now: Time) -> ConnView {
        ConnView { now, unsent: u64::MAX / 2, window_space: u64::MAX / 2, chunk: MSS, ..ConnView::default() }
    }

    /// One hop's terms with T^1 + ATT = 368 µs, for the cases on a chosen T(1).
    fn one_hop() -> PathTimes {
        PathTimes::of(&path(0, wifi(1), 1)).unwrap()
    }

    fn plan(cfg: &LossAwareConfig, w: u64, sst: u64, loss: f64, period_us: Time) -> Plan {
        cfg.plan(&one_hop(), Round { w, sst, loss }, period_us * US)
    }

    #[test]
    fn case_1_no_time_for_one_packet_gives_nothing() {
        assert_eq!(plan(&LossAwareConfig::default(), 4, 16, 0.0, 367), Plan { budget: 0, cr: None });
    }

    #[test]
    fn case_2_gives_the_largest_count_that_fits_and_a_cap() {
        // w = 4: T^4 + ATT = 258 + 3·196 + 110 = 956 µs. T(1) = 760 µs: T^3 + ATT = 760 fits.
        assert_eq!(plan(&LossAwareConfig::default(), 4, 16, 0.0, 760), Plan { budget: 3, cr: Some((0, 3)) });
        // One µs less: only T^2 + ATT = 564 fits.
        assert_eq!(plan(&LossAwareConfig::default(), 4, 16, 0.0, 759), Plan { budget: 2, cr: Some((0, 2)) });
    }

    #[test]
    fn case_3_gives_the_window_and_stops() {
        // w = 2: T^2 + ATT = 564; case 3 up to 564 + 2·32 + 258 = 886 µs.
        assert_eq!(plan(&LossAwareConfig::default(), 2, 16, 0.0, 564), Plan { budget: 2, cr: None });
        assert_eq!(plan(&LossAwareConfig::default(), 2, 16, 0.0, 885), Plan { budget: 2, cr: None });
    }

    #[test]
    fn case_4_no_loss_runs_the_next_round_with_the_grown_window() {
        // T(1) = 1500: w = 2 (case 4) → 2; T(2) = 1500 − 564 = 936, w = 4 (SS): T^4 + ATT = 956
        // > 936 → case 2, w* = 1 + (936 − 368)/196 = 3. Budget 2 + 3, cap 3 after 2 packets.
        assert_eq!(plan(&LossAwareConfig::default(), 2, 16, 0.0, 1500), Plan { budget: 5, cr: Some((2, 3)) });
        // In CA (sst = 2) round 2 has w = 3: T^3 + ATT = 760 ≤ 936 → case 3: 2 + 3, no cap.
        assert_eq!(plan(&LossAwareConfig::default(), 2, 2, 0.0, 1500), Plan { budget: 5, cr: None });
        // At w_max the window is held: w = 2 = w_max, rounds of 2 while they fit: T = 2000 →
        // 2000 − 564 = 1436 → 872 (case 3) → 2 + 2 + 2.
        let cfg = LossAwareConfig { w_max: 2, ..LossAwareConfig::default() };
        assert_eq!(plan(&cfg, 2, 2, 0.0, 2000), Plan { budget: 6, cr: None });
    }

    #[test]
    fn case_4_with_likely_loss_stops_after_the_window_in_the_no_loss_rule() {
        // (1 − 0.2)^4 = 0.41 < 0.5: round 1's 4 packets, nothing after.
        let mut pt = one_hop();
        pt.per_frame = 0;
        let cfg = LossAwareConfig::default();
        assert_eq!(cfg.plan(&pt, Round { w: 4, sst: 16, loss: 0.2 }, 5000 * US).budget, 4);
        // (1 − 0.1)^4 = 0.656 ≥ 0.5: the no-loss branch continues (w = 8, 16, ... each 368 µs).
        assert!(cfg.plan(&pt, Round { w: 4, sst: 16, loss: 0.1 }, 5000 * US).budget > 4);
    }

    #[test]
    fn expected_count_over_the_tree_of_cases_4_and_5() {
        // per_frame = ack_dc = 0 so every round takes 368 µs; period 1000 µs: round 1 case 4,
        // round 2 (632 µs left) case 4, round 3 (264 µs left) case 1.
        let mut pt = one_hop();
        pt.per_frame = 0;
        pt.ack_dc = 0;
        let cfg = LossAwareConfig { budget: BudgetRule::Expected, ..LossAwareConfig::default() };
        // w = 4, l = 0.1: 4 + p0·E(632 µs, w = 8) + p_FR·E(FR branch) and 4-3 stops (RTO
        // unknown). E(632, 8) = 8 (case 4; its next rounds have 264 µs or less: case 1). The FR
        // branch deducts 368 + p(1|4)·258 = 443 µs: 557 µs left with w = 2, case 3: 2.
        let l: f64 = 0.1;
        let p0 = 0.9f64.powi(4);
        let p1 = 4.0 * l * 0.9f64.powi(3);
        let e = 4.0 + p0 * 8.0 + p1 * 2.0;
        assert_eq!(cfg.plan(&pt, Round { w: 4, sst: 16, loss: l }, 1000 * US).budget, e.round() as u64);
        assert_eq!(e.round() as u64, 10);
        // Case 5: with RTO = 100 µs (≤ T − T^1), 5-3 restarts at w_min = 1 after T^4 + RTO.
        pt.rto = 100 * US;
        let p_rto = 1.0 - p0 - p1;
        // 5-3: 1000 − (258 + 100) = 642 µs left, w = 1: case 4 → 1, then 274 µs: case 1.
        let e5 = e + p_rto * 1.0;
        let got = cfg.plan(&pt, Round { w: 4, sst: 16, loss: l }, 1000 * US).budget;
        assert_eq!(got, e5.round() as u64);
    }

    #[test]
    fn p_loss_count_is_the_binomial() {
        assert!((p_loss_count(2, 5, 0.1) - 10.0 * 0.01 * 0.729).abs() < 1e-12);
        let s: f64 = (0..=7).map(|x| p_loss_count(x, 7, 0.3)).sum();
        assert!((s - 1.0).abs() < 1e-12);
    }

    /// Fig. 1: P_1 one hop, P_2 two hops, w_1 = w_2 = 1, idle channel. The period is P_2's
    /// round, RTT_{1-2} = 736 µs. P_1: round 1 (1 packet, case 4) ends at RTT_{1-1} = 368 µs
    /// and w_1 doubles to 2; T^2 + ATT = 564 µs > the 368 µs left, so case 2: w* = 1 (CR) and
    /// packet 3 goes on P_1 within the period.
    #[test]
    fn fig1_packet_3_goes_on_the_one_hop_path_within_the_two_hop_period() {
        let mut s = LossAware::new(&LossAwareConfig::default());
        let (p1, p2) = (path(0, wifi(1), 1), path(1, wifi(2), 1));
        // t = 0: packet 1 on P_1, packet 2 on P_2, then wait for the period's end.
        assert_eq!(s.select(&conn(0), &[p1, p2]), Decision::Send(0));
        let p1_busy = PathView { has_space: false, in_flight: MSS as u64, ..p1 };
        assert_eq!(s.select(&conn(0), &[p1_busy, p2]), Decision::Send(1));
        let p2_busy = PathView { has_space: false, in_flight: MSS as u64, ..p2 };
        assert_eq!(s.select(&conn(0), &[p1_busy, p2_busy]), Decision::Wait);
        assert_eq!(s.wake_at(), Some(736 * US));
        assert_eq!(s.take_window_cap(), None);
        assert_eq!((s.budget_left(0), s.budget_left(1)), (1, 0));
        // t = 368 µs: P_1's ACK; its controller doubled to 2. The cap (CR, w* = 1) is handed
        // over and packet 3 goes on P_1.
        let p1_acked = PathView { cwnd: 2 * MSS as u64, bytes_acked: MSS as u64, srtt: 368 * US, ..p1 };
        assert_eq!(s.select(&conn(368 * US), &[p1_acked, p2_busy]), Decision::Send(0));
        assert_eq!(s.take_window_cap(), Some(WindowCap { path: 0, packets: 1 }));
        assert_eq!(s.take_window_cap(), None);
        // Its round ends at 368 + 368 = 736 µs, inside the period; a 2-packet round (what an
        // uncapped NewReno window would send, minRTT) would end at 368 + 564 = 932 µs, after it.
        let pt = PathTimes::of(&p1).unwrap();
        assert_eq!(368 * US + pt.t(1) + pt.att, 736 * US);
        assert!(368 * US + pt.t(2) + pt.att > 736 * US);
        // Budget used: wait until the period's end, then a new period is planned.
        let p1_busy2 = PathView { has_space: false, ..p1_acked };
        assert_eq!(s.select(&conn(400 * US), &[p1_busy2, p2_busy]), Decision::Wait);
        assert_eq!(s.periods(), 1);
        s.select(&conn(736 * US), &[p1_acked, p2]);
        assert_eq!(s.periods(), 2);
    }

    #[test]
    fn fig1_with_the_printed_sec_vi_period_gives_the_fast_path_one_packet() {
        // period = T_2^1 = 516 µs: 368 ≤ 516 < 368 + 64 + 258 = 690 → case 3, one packet.
        let cfg = LossAwareConfig { period: PeriodRule::Dtt, ..LossAwareConfig::default() };
        let pt = one_hop();
        assert_eq!(cfg.plan(&pt, Round { w: 1, sst: 16, loss: 0.0 }, 516 * US), Plan { budget: 1, cr: None });
        let mut s = LossAware::new(&cfg);
        s.select(&conn(0), &[path(0, wifi(1), 1), path(1, wifi(2), 1)]);
        assert_eq!((s.budget_left(0), s.budget_left(1)), (0, 1));
    }

    #[test]
    fn slowest_path_gets_its_window_and_sets_the_period() {
        let mut s = LossAware::new(&LossAwareConfig::default());
        // Three paths given out of order; the 3-hop one is the slowest: w = 3 → period
        // T^3 + ATT = 3·258 + 2·196 + 3·110 = 1496 µs.
        let paths = [path(0, wifi(2), 1), path(1, wifi(3), 3), path(2, wifi(1), 1)];
        assert_eq!(s.select(&conn(0), &paths), Decision::Send(2));
        assert_eq!(s.wake_at(), Some(1496 * US));
        assert_eq!(s.budget_left(1), 3);
        // P(2 hops) has period RTT_{1-3} = 1104 µs: w = 1 → 1 (case 4, 368... no: 736 ≤ 1104 <
        // 736 + 64 + 516 = 1316 → case 3): 1 packet.
        assert_eq!(s.budget_left(0), 1);
    }

    #[test]
    fn contention_scales_the_idle_legs_by_measured_over_modelled_rtt() {
        // SRTT twice the idle one-packet RTT: DTT and ATT doubled, per_frame not.
        let p = PathView { srtt: 736 * US, ..path(0, wifi(1), 1) };
        let t = PathTimes::of(&p).unwrap();
        assert_eq!((t.t1, t.att, t.per_frame), (516 * US, 220 * US, 196 * US));
        // With w = 3 the idle reference is 368 + 196 = 564 µs.
        let p = PathView { srtt: 1128 * US, ..path(0, wifi(1), 3) };
        assert_eq!(PathTimes::of(&p).unwrap().t1, 516 * US);
        // Below the idle RTT: unscaled.
        let p = PathView { srtt: 100 * US, ..path(0, wifi(1), 1) };
        assert_eq!(PathTimes::of(&p).unwrap().t1, 258 * US);
    }

    #[test]
    fn without_a_model_the_srtt_is_split_and_without_either_it_is_minrtt() {
        let p = PathView { srtt: 10_001, ..path(0, PathModel::default(), 4) };
        let t = PathTimes::of(&p).unwrap();
        assert_eq!((t.t1, t.att, t.per_frame), (5000, 5001, 0));
        let mut s = LossAware::new(&LossAwareConfig::default());
        let a = PathView { srtt: 30, ..path(0, PathModel::default(), 1) };
        let b = path(1, PathModel::default(), 1);
        assert_eq!(s.select(&conn(0), &[a, b]), Decision::Send(1));
        assert_eq!((s.wake_at(), s.periods()), (None, 0));
    }

    #[test]
    fn options_are_checked() {
        let mut c = LossAwareConfig::default();
        c.set("period", OptValue::Str("dtt")).unwrap();
        c.set("budget", OptValue::Str("expected")).unwrap();
        assert!(c.set("period", OptValue::Str("slowest")).is_err());
        assert!(c.set("w_max", OptValue::Num(2.5)).is_err());
        assert_eq!((c.period, c.budget), (PeriodRule::Dtt, BudgetRule::Expected));
    }
}
