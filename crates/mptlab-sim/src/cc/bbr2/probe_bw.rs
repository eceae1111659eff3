//! PROBE_BW (draft-cardwell-ccwg-bbr-00 §4.3.3): the steady-state cycle
//! DOWN (decelerate) → CRUISE (match) → REFILL (fill the pipe, one round) → UP (accelerate) → DOWN.
//! The time between probes is min(T_bbr, T_reno) (§4.3.3.5): a wall-clock wait of 2–3 s, or
//! fewer rounds when the BDP is small, so that Reno/CUBIC flows sharing the bottleneck see long
//! enough loss-free periods ("Reno coexistence"). inflight_hi is adapted here too (§4.3.3.6).

use super::{Ack, AckPhase, Bbr2, State, INF};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

/// DOWN pacing gain (§4.3.3.1): 0.90, the smallest gain that still lets flows converge to
/// fairness given UP's 1.25. Dimensionless (× bw).
pub(super) const DOWN_PACING_GAIN: f64 = 0.9;
/// CRUISE pacing gain (§4.3.3.2): send at the estimated bandwidth. Dimensionless (× bw).
pub(super) const CRUISE_PACING_GAIN: f64 = 1.0;
/// REFILL pacing gain (§4.3.3.3): refill the pipe at the estimated bandwidth before probing.
/// Dimensionless (× bw).
pub(super) const REFILL_PACING_GAIN: f64 = 1.0;
/// UP pacing gain (§4.3.3.4): send 25 % faster than the estimate to look for more bandwidth.
/// Dimensionless (× bw).
pub(super) const UP_PACING_GAIN: f64 = 1.25;
/// UP cwnd gain (§4.3.3.4): 2.25, so that the window does not stop the faster sending.
/// Dimensionless (× BDP).
pub(super) const UP_CWND_GAIN: f64 = 2.25;
/// BBRQuantizationBudget (§4.6.4.2): in UP the volume gets two more segments. In MSS.
pub(super) const UP_EXTRA_SEGMENTS: u64 = 2;

/// T_bbr (§4.3.3.5.2): the wall-clock wait between probes is 2 s plus a draw in [0, 1 s).
/// Above 2 s so that a Reno flow at 25 Mbit/s and 30 ms RTT can regrow its window between BBR's
/// probes (BDP · RTT ≈ 1.9 s); below 3 s so that bandwidth freed by others is found at human
/// time scales. In ns.
const PROBE_WAIT_BASE: Time = 2 * SECOND;
const PROBE_WAIT_SPREAD: Time = SECOND;

/// T_reno bound (§4.3.3.5.3): at most 63 rounds between probes (62–63 with the 0/1 start of
/// rounds_since_bw_probe): small enough to stay robust to 1 % loss per round
/// ((1 − 0.01)^137 · 2² ≈ 1), large enough for Reno/CUBIC to reach 4K-video rates. In rounds.
const RENO_ROUNDS_MAX: u64 = 63;

/// BBRRaiseInflightHiSlope: the per-round growth of inflight_hi doubles each round, at most
/// 2^30 segments per round. In doublings.
const MAX_PROBE_UP_ROUNDS: u32 = 30;

/// SplitMix64 (Steele, Lea & Flood 2014), the deterministic stand-in for the draft's
/// random_int_between / random_float_between (module interpretation 4).
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Bbr2 {
    /// BBREnterProbeBW.
    pub(super) fn enter_probe_bw(&mut self, a: &Ack) {
        self.start_probe_bw_down(a.now);
    }

    /// BBRStartProbeBW_DOWN.
    pub(super) fn start_probe_bw_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.probe_up_cnt = INF;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.transition_to(State::ProbeBwDown);
    }

    /// BBRStartProbeBW_CRUISE.
    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.transition_to(State::ProbeBwCruise);
    }

    /// BBRStartProbeBW_REFILL: forget the short-term bounds and refill the pipe for a round.
    fn start_probe_bw_refill(&mut self) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.transition_to(State::ProbeBwRefill);
    }

    /// BBRStartProbeBW_UP.
    fn start_probe_bw_up(&mut self, a: &Ack) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.reset_full_bw();
        self.full_bw = a.rate().unwrap_or(0);
        self.transition_to(State::ProbeBwUp);
        self.raise_inflight_hi_slope();
    }

    /// BBRUpdateProbeBWCyclePhase: the PROBE_BW state machine, on every ACK.
    pub(super) fn update_probe_bw_cycle_phase(&mut self, a: &Ack) {
        if !self.full_bw_reached {
            return;
        }
        self.adapt_upper_bounds(a);
        match self.state {
            State::ProbeBwDown => {
                if self.is_time_to_probe_bw(a.now) {
                    return;
                }
                if self.is_time_to_cruise(a) {
                    self.start_probe_bw_cruise();
                }
            }
            State::ProbeBwCruise => {
                self.is_time_to_probe_bw(a.now);
            }
            // After one round of REFILL, probe.
            State::ProbeBwRefill if self.round_start => {
                self.bw_probe_samples = true;
                self.start_probe_bw_up(a);
            }
            State::ProbeBwUp => {
                // (The test may reset the full-bw estimator, so it cannot be a match guard.)
                let go_down = self.is_time_to_go_down(a);
                if go_down {
                    self.start_probe_bw_down(a.now);
                }
            }
            _ => {}
        }
    }

    /// BBRIsTimeToProbeBW: from DOWN or CRUISE to REFILL.
    fn is_time_to_probe_bw(&mut self, now: Time) -> bool {
        if self.has_elapsed_in_phase(now, self.bw_probe_wait) || self.is_reno_coexistence_probe_time() {
            self.start_probe_bw_refill();
            return true;
        }
        false
    }

    /// BBRPickProbeWait, deterministically (module interpretation 4).
    pub(super) fn pick_probe_wait(&mut self) {
        self.probe_wait_draws += 1;
        let h = splitmix64(self.delivered ^ self.probe_wait_draws.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        self.rounds_since_bw_probe = h & 1;
        let fraction = h >> 32; // 32 uniform bits: [0, 2^32)
        self.bw_probe_wait = PROBE_WAIT_BASE + ((fraction as u128 * PROBE_WAIT_SPREAD as u128) >> 32) as Time;
    }

    /// BBRIsRenoCoexistenceProbeTime: min(BDP in segments, 63) rounds since the last probe.
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let reno_rounds = self.target_inflight() / self.mss;
        self.rounds_since_bw_probe >= reno_rounds.min(RENO_ROUNDS_MAX)
    }

    /// BBRHasElapsedInPhase.
    fn has_elapsed_in_phase(&self, now: Time, interval: Time) -> bool {
        now > self.cycle_stamp + interval
    }

    /// BBRIsTimeToCruise: headroom left under inflight_hi and the queue drained.
    fn is_time_to_cruise(&mut self, a: &Ack) -> bool {
        if a.in_flight > self.inflight_with_headroom() {
            return false;
        }
        a.in_flight <= self.inflight(self.max_bw, 1.0)
    }

    /// BBRIsTimeToGoDown: the bandwidth stopped growing (unless inflight_hi held it back).
    fn is_time_to_go_down(&mut self, a: &Ack) -> bool {
        if self.is_cwnd_limited() && self.cwnd >= self.inflight_hi {
            self.reset_full_bw();
            self.full_bw = a.rate().unwrap_or(0);
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// BBRRaiseInflightHiSlope: grow inflight_hi by 2^rounds segments over the next round.
    fn raise_inflight_hi_slope(&mut self) {
        let growth_segments = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(MAX_PROBE_UP_ROUNDS);
        let cwnd_segments = self.cwnd / self.mss;
        self.probe_up_cnt = (cwnd_segments / growth_segments).max(1) * self.mss;
    }

    /// BBRProbeInflightHiUpward: while the window is the limit in UP, one MSS more inflight_hi
    /// per probe_up_cnt bytes acknowledged.
    fn probe_inflight_hi_upward(&mut self, a: &Ack) {
        if !self.is_cwnd_limited() || self.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += a.newly_acked;
        if self.bw_probe_up_acks >= self.probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta * self.mss);
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// BBRAdaptUpperBounds: track the ACK phase, age max_bw once per cycle, and move
    /// inflight_hi down on excessive loss of probing data or up when loss is acceptable.
    fn adapt_upper_bounds(&mut self, a: &Ack) {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            // Samples now reflect the probe.
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The samples of the probe are over (module interpretation 7).
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.state.is_probe_bw() && !a.is_app_limited() {
                self.advance_max_bw_filter();
            }
        }
        if self.is_inflight_too_high(a) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(a);
            }
            return;
        }
        if self.inflight_hi == INF {
            return;
        }
        if let Some(rs) = a.rs {
            if rs.tx_in_flight > self.inflight_hi {
                self.inflight_hi = rs.tx_in_flight;
            }
        }
        if self.state == State::ProbeBwUp {
            self.probe_inflight_hi_upward(a);
        }
    }
}

/// The range of BBR.bw_probe_wait, for tests.
#[cfg(test)]
pub(super) fn probe_wait_bounds() -> (Time, Time) {
    (PROBE_WAIT_BASE, PROBE_WAIT_BASE + PROBE_WAIT_SPREAD)
}
