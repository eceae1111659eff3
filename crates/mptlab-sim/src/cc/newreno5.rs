//! `newreno5`: the 5-state NewReno of seed 004 — NewReno's SS, CA, FR and RTO states with
//! window updates once per round, in whole packets, plus the new cwnd-relaxation state CR, in
//! which the multipath scheduler holds or lowers the window so that the next round fits in the
//! path's scheduling period.
//!
//! Source: seed 004, J. Guo, K. Parsons et al., "Modeling Multipath TCP Over Heterogeneous WiFi
//! and 5G Networks", IEEE ICC 2025 (MERL TR2025-084), Sec. III and Figs. 1–2 (the states and the
//! per-round updates), Sec. VI case 2 (w*, which `sched/lossaware.rs` computes); recovery is
//! NewReno's (RFC 6582) as the TCP sender runs it. Study notes `shared/studies/seed004.md` §3,
//! §7 C. The Markov model of the same states is `python/mptlab/models/newreno5.py`; the rules
//! below are its transitions, so that the model's E[w] can be compared with this controller.
//!
//! ```text
//! start               w = w_min, sst = sst_start                       (Sec. III)
//! SS  (w < sst)       round without loss: w ← min(2w, w_max)
//! CA  (w ≥ sst)       round without loss: w ← min(w + 1, w_max)
//! FR  (3 dupACKs)     sst ← max(⌊w/2⌋, 2), w ← max(⌊w/2⌋, w_min)
//! RTO (timeout)       sst ← max(⌊w/2⌋, 2), w ← w_min
//! CR  (scheduler)     w ← max(min(w, w*), w_min), sst unchanged        (Sec. III, Sec. VI case 2)
//! ```
//!
//! Interpretations (ours; notes §7 C1–C5), the same as the Python model's where it has one:
//! - C1, rounds: one update per round trip, counted as BBR counts rounds (a round ends on the
//!   first ACK whose newest delivered segment was sent after the previous round ended:
//!   `RateSample::prior_delivered ≥` the delivered count at that end). With one packet per
//!   round, or one ACK per round (the paper's delayed ACK), that is "when the round's last
//!   packet is acknowledged"; with more it is one doubling (or +1) per round all the same.
//! - The loss markers (l = 1) of Fig. 2 last one round: a round in which a loss event (FR entry
//!   or timeout) happened ends without growth, and the state returns to SS or CA by w vs sst.
//!   While the sender is still in fast recovery at a round's end nothing changes.
//! - An application-limited round (no ACK of the round was cwnd-limited, RFC 7661) ends
//!   without growth: the paper's sources are greedy; this keeps a Poisson source from inflating
//!   a window it does not use.
//! - C4: SS doubling is capped at w_max, not at sst (as Sec. VI case 4-1 and the Python chain);
//!   halving floors. FR's sst is floored at 2 packets (the Python chain has FR only for w ≥ 4,
//!   where ⌊w/2⌋ ≥ 2; the floor keeps RFC 5681's minimum ssthresh when the sender enters fast
//!   recovery with a smaller window). A timeout during recovery keeps the recovery's sst
//!   (RFC 5681 / Linux: one reduction per congestion event), as `reno.rs`.
//! - During fast recovery the TCP sender's PRR (RFC 6937) paces the reduction; the window the
//!   controller reports is already w/2, as the paper's FR.
//! - C3, the CR window: `cap_round(w*)` (from the scheduler, through the connection) lowers the
//!   window at once to max(min(w, w*), w_min) and the state is CR; sst is untouched; growth
//!   resumes from w* at the next round end (reading (b): the Markov figure's "lower state";
//!   the Python chain moves to (w*, sst, 0) likewise). w* ≥ w leaves the window as it is (held).
//!   CR is a no-loss transition (Sec. III: "for no packet loss case"): a cap that arrives in the
//!   FR or RTO state (the round carries a loss marker) is ignored.
//! - C5: defaults w_min = 1, w_max = 20 (the paper's ranges [1, 5] and [10, 20]; the ends that
//!   give the widest window range), sst_start = 16 (Sec. VII-A). The initial window is w_min
//!   (Sec. III "start in SS with w = w_min"), not the transport's initial window. The RTO timer
//!   range (20–50 s) is the transport's `min_rto`/`max_rto`, not an option here.

use super::options::OptValue;
use super::{AckEvent, CcParams, CongestionControl, LossEvent, Options};
use mptlab_engine::Time;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NewReno5Config {
    /// Window after a timeout and at the start, packets (paper: 1–5).
    pub w_min: u32,
    /// Largest window, packets (paper: 10–20).
    pub w_max: u32,
    /// Initial slow-start threshold, packets (paper: 16).
    pub sst_start: u32,
}

impl Default for NewReno5Config {
    fn default() -> Self {
        Self { w_min: 1, w_max: 20, sst_start: 16 }
    }
}

fn whole(v: OptValue, lo: f64, hi: f64) -> Result<u32, String> {
    let x = v.number(lo, hi)?;
    if x.fract() != 0.0 {
        return Err(format!("{x} is not a whole number of packets"));
    }
    Ok(x as u32)
}

impl Options for NewReno5Config {
    const NAMES: &'static [&'static str] = &["w_min", "w_max", "sst_start"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "w_min" => self.w_min = whole(v, 1.0, 1e6)?,
            "w_max" => self.w_max = whole(v, 1.0, 1e6)?,
            "sst_start" => self.sst_start = whole(v, 2.0, 1e6)?,
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

/// The five states of Sec. III.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Nr5State {
    SlowStart,
    CongestionAvoidance,
    FastRecovery,
    Rto,
    Relaxation,
}

impl Nr5State {
    pub fn name(self) -> &'static str {
        match self {
            Nr5State::SlowStart => "ss",
            Nr5State::CongestionAvoidance => "ca",
            Nr5State::FastRecovery => "fr",
            Nr5State::Rto => "rto",
            Nr5State::Relaxation => "cr",
        }
    }
}

#[derive(Clone, Debug)]
pub struct NewReno5 {
    cfg: NewReno5Config,
    mss: u64,
    /// Window and slow-start threshold, packets.
    w: u64,
    sst: u64,
    state: Nr5State,
    /// C.delivered when the current round began (BBR's next_round_delivered).
    next_round_delivered: u64,
    /// A loss event happened in the current round (the Fig. 2 loss marker).
    loss_in_round: bool,
    /// Some ACK of the current round was cwnd-limited.
    limited_in_round: bool,
    rounds: u64,
}

impl NewReno5 {
    pub fn new(p: CcParams, cfg: &NewReno5Config) -> Self {
        let w = cfg.w_min.max(1) as u64;
        let sst = cfg.sst_start.max(2) as u64;
        let mut s = Self {
            cfg: cfg.clone(),
            mss: p.mss.max(1) as u64,
            w,
            sst,
            state: Nr5State::SlowStart,
            next_round_delivered: 0,
            loss_in_round: false,
            limited_in_round: false,
            rounds: 0,
        };
        s.state = s.open_state();
        s
    }

    pub fn state(&self) -> Nr5State {
        self.state
    }
    /// Window and slow-start threshold in packets.
    pub fn window_packets(&self) -> u64 {
        self.w
    }
    pub fn sst_packets(&self) -> u64 {
        self.sst
    }
    /// Rounds completed so far.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Change state; the legal transitions of Fig. 2 are asserted in debug builds: CR is only
    /// entered from a no-loss state (SS, CA or CR).
    fn transition_to(&mut self, next: Nr5State) {
        use Nr5State::*;
        debug_assert!(
            !matches!((self.state, next), (FastRecovery | Rto, Relaxation)),
            "illegal transition {:?} -> {:?}",
            self.state,
            next
        );
        self.state = next;
    }

    fn open_state(&self) -> Nr5State {
        if self.w < self.sst {
            Nr5State::SlowStart
        } else {
            Nr5State::CongestionAvoidance
        }
    }

    fn w_min(&self) -> u64 {
        self.cfg.w_min.max(1) as u64
    }

    fn w_max(&self) -> u64 {
        (self.cfg.w_max as u64).max(self.w_min())
    }

    /// A round ended (`in_recovery`: the sender is still in fast recovery).
    fn end_round(&mut self, in_recovery: bool) {
        self.rounds += 1;
        if in_recovery {
            // The loss marker stays until a round ends out of recovery.
            self.limited_in_round = false;
            return;
        }
        let loss = std::mem::take(&mut self.loss_in_round);
        let limited = std::mem::take(&mut self.limited_in_round);
        if !loss && limited {
            // Sec. III: SS doubles, CA adds one, both up to w_max (C4: doubling not capped at sst).
            self.w = if self.w < self.sst { 2 * self.w } else { self.w + 1 }.min(self.w_max());
        }
        self.transition_to(self.open_state());
    }
}

impl CongestionControl for NewReno5 {
    fn on_ack(&mut self, ev: &AckEvent) {
        self.limited_in_round |= ev.cwnd_limited;
        let Some(rs) = ev.rate else { return };
        if rs.prior_delivered < self.next_round_delivered {
            return;
        }
        self.next_round_delivered = ev.delivered_total;
        self.end_round(ev.in_recovery);
    }

    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        let half = self.w / 2;
        self.sst = half.max(2);
        self.w = half.max(self.w_min());
        self.transition_to(Nr5State::FastRecovery);
        self.loss_in_round = true;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        if self.state == Nr5State::FastRecovery {
            self.transition_to(self.open_state());
        }
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        if !ev.during_recovery {
            self.sst = (self.w / 2).max(2);
        }
        self.w = self.w_min();
        self.transition_to(Nr5State::Rto);
        self.loss_in_round = true;
    }

    fn cap_round(&mut self, _now: Time, packets: u32) {
        if matches!(self.state, Nr5State::FastRecovery | Nr5State::Rto) {
            return;
        }
        self.w = self.w.min(packets as u64).max(self.w_min());
        self.transition_to(Nr5State::Relaxation);
    }

    fn window(&self) -> u64 {
        self.w * self.mss
    }

    fn ssthresh(&self) -> u64 {
        self.sst * self.mss
    }

    fn state_name(&self) -> &'static str {
        self.state.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;

    const MSS: u32 = 1000;

    fn nr5(w_min: u32, w_max: u32, sst_start: u32) -> NewReno5 {
        NewReno5::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, &NewReno5Config { w_min, w_max, sst_start })
    }

    /// Drives the controller as a greedy sender with one ACK per packet and no loss: `delivered`
    /// is C.delivered in packets, every packet of a round was sent at the round's start.
    struct Script {
        c: NewReno5,
        delivered: u64,
    }

    impl Script {
        fn new(c: NewReno5) -> Self {
            Self { c, delivered: 0 }
        }
        /// One round of the current window, each packet acknowledged in turn.
        fn round(&mut self) {
            let w = self.c.window_packets();
            let prior = self.delivered;
            for _ in 0..w {
                self.ack(prior, false);
            }
        }
        fn ack(&mut self, prior: u64, in_recovery: bool) {
            self.delivered += 1;
            let m = MSS as u64;
            self.c.on_ack(&AckEvent {
                bytes_acked: m,
                bytes_delivered: m,
                cwnd_limited: true,
                in_recovery,
                mss: MSS,
                delivered_total: self.delivered * m,
                rate: Some(RateSample { prior_delivered: prior * m, delivered: m, ..Default::default() }),
                prior_delivered: Some(prior * m),
                ..Default::default()
            });
        }
        fn w(&self) -> u64 {
            self.c.window_packets()
        }
    }

    fn loss(flight: u64) -> LossEvent {
        LossEvent { flight_size: flight * MSS as u64, mss: MSS, ..Default::default() }
    }

    #[test]
    fn starts_in_slow_start_at_w_min_with_sst_start() {
        let c = nr5(2, 20, 16);
        assert_eq!((c.window(), c.ssthresh(), c.state_name()), (2000, 16_000, "ss"));
    }

    #[test]
    fn slow_start_doubles_per_round_then_congestion_avoidance_adds_one_up_to_w_max() {
        let mut s = Script::new(nr5(1, 20, 16));
        let mut seen = vec![s.w()];
        for _ in 0..9 {
            s.round();
            seen.push(s.w());
        }
        // 1 → 2 → 4 → 8 → 16 (= sst: CA) → 17 … 20, then held at w_max.
        assert_eq!(seen, [1, 2, 4, 8, 16, 17, 18, 19, 20, 20]);
        assert_eq!(s.c.state(), Nr5State::CongestionAvoidance);
        assert_eq!(s.c.rounds(), 9);
    }

    #[test]
    fn slow_start_doubling_is_capped_at_w_max_not_at_sst() {
        let mut s = Script::new(nr5(3, 10, 4));
        s.round(); // 3 < 4: doubles to 6 (past sst), then CA
        assert_eq!((s.w(), s.c.state_name()), (6, "ca"));
        let mut s = Script::new(nr5(3, 5, 16));
        s.round();
        assert_eq!(s.w(), 5);
    }

    #[test]
    fn fast_recovery_halves_window_and_sst_and_the_next_round_does_not_grow() {
        let mut s = Script::new(nr5(1, 20, 16));
        for _ in 0..5 {
            s.round();
        }
        assert_eq!(s.w(), 17);
        s.c.on_congestion_event(&loss(17));
        assert_eq!((s.w(), s.c.sst_packets(), s.c.state_name()), (8, 8, "fr"));
        // The round ending while still in recovery changes nothing.
        let prior = s.delivered;
        s.ack(prior, true);
        assert_eq!((s.w(), s.c.state_name()), (8, "fr"));
        s.c.on_recovery_exit(0);
        assert_eq!(s.c.state_name(), "ca");
        // The loss marker lasts one round: the first round after it does not grow …
        s.round();
        assert_eq!(s.w(), 8);
        // … the next one does (CA: w = sst).
        s.round();
        assert_eq!((s.w(), s.c.sst_packets()), (9, 8));
    }

    #[test]
    fn fast_recovery_floors_the_window_at_w_min_and_sst_at_two() {
        let mut c = nr5(5, 20, 16);
        c.on_congestion_event(&loss(5));
        assert_eq!((c.window_packets(), c.sst_packets()), (5, 2));
    }

    #[test]
    fn timeout_sets_w_min_and_halves_sst_once_per_congestion_event() {
        let mut s = Script::new(nr5(2, 20, 16));
        for _ in 0..3 {
            s.round();
        }
        assert_eq!(s.w(), 16);
        s.c.on_rto(&loss(16));
        assert_eq!((s.w(), s.c.sst_packets(), s.c.state_name()), (2, 8, "rto"));
        // A second timeout during the same recovery keeps sst.
        s.c.on_rto(&LossEvent { during_recovery: true, ..loss(2) });
        assert_eq!((s.w(), s.c.sst_packets()), (2, 8));
        // One round without growth (loss marker), then slow start again.
        s.round();
        assert_eq!((s.w(), s.c.state_name()), (2, "ss"));
        s.round();
        assert_eq!(s.w(), 4);
    }

    #[test]
    fn relaxation_lowers_or_holds_the_window_and_leaves_sst() {
        let mut s = Script::new(nr5(1, 20, 16));
        s.round();
        s.round();
        assert_eq!(s.w(), 4);
        s.c.cap_round(0, 3);
        assert_eq!((s.w(), s.c.sst_packets(), s.c.state_name()), (3, 16, "cr"));
        // Held: a cap at or above the window changes nothing but the state.
        s.c.cap_round(0, 7);
        assert_eq!((s.w(), s.c.sst_packets(), s.c.state_name()), (3, 16, "cr"));
        // Never below w_min.
        s.c.cap_round(0, 0);
        assert_eq!(s.w(), 1);
        // Growth resumes from the relaxed window (SS: 1 → 2), sst still untouched.
        s.round();
        assert_eq!((s.w(), s.c.sst_packets(), s.c.state_name()), (2, 16, "ss"));
    }

    #[test]
    fn relaxation_is_not_entered_from_a_loss_state() {
        let mut c = nr5(1, 20, 16);
        c.w = 8;
        c.on_congestion_event(&loss(8));
        c.cap_round(0, 1);
        assert_eq!((c.window_packets(), c.state_name()), (4, "fr"));
        c.on_rto(&loss(4));
        c.cap_round(0, 1);
        assert_eq!((c.window_packets(), c.state_name()), (1, "rto"));
    }

    #[test]
    fn application_limited_rounds_do_not_grow() {
        let mut c = nr5(1, 20, 16);
        let m = MSS as u64;
        c.on_ack(&AckEvent {
            bytes_acked: m,
            cwnd_limited: false,
            delivered_total: m,
            rate: Some(RateSample { prior_delivered: 0, ..Default::default() }),
            prior_delivered: Some(0),
            ..Default::default()
        });
        assert_eq!((c.window_packets(), c.rounds()), (1, 1));
    }

    #[test]
    fn options_are_whole_packets_and_w_min_at_most_w_max() {
        let mut cfg = NewReno5Config::default();
        assert!(cfg.set("w_min", OptValue::Num(1.5)).is_err());
        cfg.set("w_min", OptValue::Num(5.0)).unwrap();
        cfg.set("w_max", OptValue::Num(4.0)).unwrap();
        assert!(cfg.check().is_err());
        cfg.set("w_max", OptValue::Num(10.0)).unwrap();
        assert!(cfg.check().is_ok());
        assert!(cfg.set("sst_start", OptValue::Num(1.0)).is_err());
    }
}
