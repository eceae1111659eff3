//! PROBE_BW (the draft §4.3.4, Linux `bbr_update_cycle_phase`): the steady state. The pacing
//! gain cycles through eight phases of (at least) one RTprop each:
//!
//! ```text
//!   1.25  probe: put 0.25 BDP more in flight to see whether the bottleneck has more to give
//!   0.75  drain what the probe queued (or yield to other flows)
//!   1.0 ×6  cruise at the estimate
//! ```
//!
//! The probing phase lasts until 1.25·BDP is in flight or a loss shows the buffer cannot hold it
//! (at least one RTprop either way); the draining phase ends early once inflight is down to one
//! BDP. Each phase's clock is the delivery time of the ACK that started it. cwnd gain is 2.
//!
//! On entry the cycle starts at a random phase other than 0.75 (Linux: `CYCLE_LEN − 1 −
//! prandom(7)` and one step forward), so that flows entering PROBE_BW together do not probe
//! together; see the header of `mod.rs` for the deterministic draw.

use super::{Bbr, Mode, GAIN_UNIT};
use crate::cc::AckEvent;
use mptlab_engine::Time;

/// BBRGainCycleLen = 8 phases; their pacing gains in thousandths.
pub const PACING_GAINS: [u64; 8] = [1250, 750, 1000, 1000, 1000, 1000, 1000, 1000];

/// The draining phase, never the first.
const DRAIN_PHASE: usize = 1;

#[derive(Clone, Copy, Debug, Default)]
pub struct GainCycle {
    pub index: usize,
    /// Delivery time of the ACK that started the phase.
    pub stamp: Time,
}

impl GainCycle {
    pub fn gain(&self) -> u64 {
        PACING_GAINS[self.index]
    }
}

impl Bbr {
    /// The draft's BBREnterProbeBW with a random start phase other than the draining one.
    pub(super) fn enter_probe_bw(&mut self, now: Time) {
        self.transition_to(Mode::ProbeBw);
        let k = (self.draw(now) % (PACING_GAINS.len() as u64 - 1)) as usize;
        // k = 0..6 → phases 0, 2, 3, …, 7.
        self.cycle.index = if k >= DRAIN_PHASE { k + 1 } else { k };
        self.cycle.stamp = self.delivered_time;
    }

    /// The draft's BBRUpdateGainCyclePhase.
    pub(super) fn update_cycle_phase(&mut self, ev: &AckEvent) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(ev) {
            self.cycle.index = (self.cycle.index + 1) % PACING_GAINS.len();
            self.cycle.stamp = self.delivered_time;
        }
    }

    /// The draft's BBRIsNextCyclePhase, with the inflight before this ACK.
    fn is_next_cycle_phase(&self, ev: &AckEvent) -> bool {
        let full_length = self.rtprop.get().is_some_and(|rtprop| self.delivered_time.saturating_sub(self.cycle.stamp) > rtprop);
        let gain = self.cycle.gain();
        let bw = self.btl_bw.get();
        if gain > GAIN_UNIT {
            full_length && (ev.bytes_lost > 0 || ev.prior_in_flight >= self.inflight(bw, gain))
        } else if gain < GAIN_UNIT {
            full_length || ev.prior_in_flight <= self.inflight(bw, GAIN_UNIT)
        } else {
            full_length
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Mode, GAIN_UNIT};
    use super::*;
    use crate::cc::CongestionControl;
    use mptlab_engine::time::MILLISECOND as MS;

    /// (phase index, time it started) for every phase change over `dur`, ACKs every `dt`,
    /// inflight at cwnd (at least 1.25 BDP, more than 1 BDP).
    fn phases(p: &mut Path, dur: Time, dt: Time) -> Vec<(usize, Time)> {
        let mut out = vec![(p.bbr.cycle.index, p.now)];
        let end = p.now + dur;
        while p.now < end {
            p.step(dt);
            assert_eq!(p.bbr.mode(), Mode::ProbeBw);
            let b = &p.bbr;
            assert_eq!(b.pacing_gain(), PACING_GAINS[b.cycle.index]);
            assert_eq!(b.pacing_rate(), Some(pace(b.btl_bw(), b.pacing_gain())), "pacing = gain × bw × 0.99");
            assert_eq!(b.cwnd_gain(), 2 * GAIN_UNIT);
            if b.cycle.index != out.last().unwrap().0 {
                out.push((b.cycle.index, p.now));
            }
        }
        out
    }

    #[test]
    fn the_eight_gains_cycle_in_order_one_phase_per_min_rtt() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        let start = p.bbr.cycle.index;
        let dt = rtt / 4;
        let seen = phases(&mut p, 40 * rtt, dt);
        assert!(seen.len() >= 17, "two full cycles: {seen:?}");
        for (k, w) in seen.windows(2).enumerate() {
            assert_eq!(w[1].0, (start + k + 1) % 8, "phases in order: {seen:?}");
            let len = w[1].1 - w[0].1;
            if k > 0 {
                assert!(len > rtt && len <= rtt + dt, "phase {} lasted {len} ns (min_rtt {rtt})", w[0].0);
            }
        }
        let gains: Vec<u64> = seen.iter().map(|(i, _)| PACING_GAINS[*i]).collect();
        let from_probe = gains.iter().position(|&g| g == 1250).unwrap();
        assert_eq!(gains[from_probe..from_probe + 8], [1250, 750, 1000, 1000, 1000, 1000, 1000, 1000]);
    }

    #[test]
    fn the_probing_phase_persists_until_inflight_reaches_five_quarters_of_the_bdp() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        while p.bbr.cycle.index != 0 {
            p.step(rtt / 4);
        }
        let began = p.now;
        let target = p.bbr.inflight(p.bbr.btl_bw(), 1250);
        for _ in 0..20 {
            p.ack(Ack { dt: rtt / 4, prior_in_flight: Some(target - 1), ..p.default_ack() });
            assert_eq!(p.bbr.cycle.index, 0, "below 1.25·BDP, no loss: keep probing");
        }
        p.ack(Ack { dt: rtt / 4, prior_in_flight: Some(target), ..p.default_ack() });
        assert_eq!(p.bbr.cycle.index, 1);
        assert!(p.now - began > 5 * rtt);
    }

    #[test]
    fn the_probing_phase_ends_after_min_rtt_on_loss() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        while p.bbr.cycle.index != 0 {
            p.step(rtt / 4);
        }
        p.ack(Ack { dt: rtt / 2, prior_in_flight: Some(1), lost: MSS, ..p.default_ack() });
        assert_eq!(p.bbr.cycle.index, 0, "a loss before min_rtt has elapsed does not end the probe");
        p.ack(Ack { dt: rtt / 2 + 1, prior_in_flight: Some(1), lost: MSS, ..p.default_ack() });
        assert_eq!(p.bbr.cycle.index, 1);
    }

    #[test]
    fn the_draining_phase_ends_early_once_inflight_is_down_to_one_bdp() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        while p.bbr.cycle.index != 1 {
            p.step(rtt / 4);
        }
        let one_bdp = p.bbr.inflight(p.bbr.btl_bw(), GAIN_UNIT);
        p.ack(Ack { dt: MS, prior_in_flight: Some(one_bdp + 1), ..p.default_ack() });
        assert_eq!(p.bbr.cycle.index, 1);
        p.ack(Ack { dt: MS, prior_in_flight: Some(one_bdp), ..p.default_ack() });
        assert_eq!(p.bbr.cycle.index, 2);
    }

    #[test]
    fn a_restart_from_idle_paces_at_the_estimate_instead_of_probing() {
        let rtt = 20 * MS;
        let mut p = Path::new(12_500_000, rtt);
        p.fill_pipe();
        while p.bbr.cycle.index != 0 {
            p.step(rtt / 4);
        }
        assert_eq!(p.bbr.pacing_rate(), Some(pace(12_500_000, 1250)));
        p.bbr.on_packet_sent(p.now, 1000, 5000);
        assert_eq!(p.bbr.pacing_rate(), Some(pace(12_500_000, 1250)), "not idle: other data in flight");
        p.bbr.on_packet_sent(p.now, 1000, 1000);
        assert_eq!(p.bbr.pacing_rate(), Some(pace(12_500_000, GAIN_UNIT)), "idle restart: pace at 1.0");
    }

    #[test]
    fn the_start_phase_is_never_the_draining_one_and_varies_with_the_first_rtt() {
        let mut starts = std::collections::BTreeSet::new();
        for rtt_ms in 5..80 {
            let mut p = Path::new(12_500_000, rtt_ms * MS + 37_000);
            p.fill_pipe();
            assert_ne!(p.bbr.cycle.index, DRAIN_PHASE);
            starts.insert(p.bbr.cycle.index);
        }
        assert_eq!(starts.into_iter().collect::<Vec<_>>(), vec![0, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn the_start_phase_is_a_deterministic_function_of_the_inputs() {
        let run = || {
            let mut p = Path::new(12_500_000, 33 * MS);
            p.fill_pipe();
            p.bbr.cycle.index
        };
        assert_eq!(run(), run());
    }
}
