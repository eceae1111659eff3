//! The network path model (draft-cardwell-ccwg-bbr-00 §4.5): packet-timed rounds, BBR.max_bw,
//! the short-term bounds bw_lo / inflight_lo and their congestion signals, the long-term bound
//! inflight_hi's loss test, ACK aggregation, and the BDP-derived volumes every state uses.
//! BBR.min_rtt lives with PROBE_RTT (probe_rtt.rs), which schedules its refreshes (§4.5.7.2).

use super::{Ack, Bbr2, State, INF};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;

/// BBRExtraAckedFilterLen (§2.12): the extra_acked max filter covers 10 packet-timed rounds in
/// steady state, long enough to remember the aggregation of bursty links (Wi-Fi, cellular);
/// 1 in STARTUP, "just remember 1 round", while the bandwidth still doubles. In rounds.
pub(super) const EXTRA_ACKED_FILTER_LEN: u64 = 10;

/// BBRMinPipeCwnd (§2.8): 4 segments, so that a receiver ACKing every other segment keeps two
/// data segments and two ACKs in flight. In MSS.
pub(super) const MIN_PIPE_CWND_SEGMENTS: u64 = 4;

/// BBRHeadroom (§2.8): the share of inflight_hi left free for other flows in CRUISE and
/// PROBE_RTT (0.15, dimensionless).
pub(super) const HEADROOM: f64 = 0.15;

/// x · gain for byte or rate quantities, keeping "infinity" infinite.
pub(super) fn scale(x: u64, gain: f64) -> u64 {
    if x == INF {
        INF
    } else {
        (x as f64 * gain) as u64
    }
}

impl Bbr2 {
    // ----- rounds (§4.5.1) ----------------------------------------------------------------

    /// BBRUpdateRound: a round ends when a segment sent after the round began is delivered.
    pub(super) fn update_round(&mut self, a: &Ack) {
        self.round_start = false;
        let Some(rs) = a.rs else { return };
        if rs.prior_delivered >= self.next_round_delivered {
            self.start_round();
            self.round_count += 1;
            self.rounds_since_bw_probe += 1;
            self.round_start = true;
            self.cwnd_limited_prev_round = self.cwnd_limited_this_round;
            self.cwnd_limited_this_round = false;
        }
    }

    /// BBRStartRound.
    pub(super) fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    /// is_cwnd_limited (§2.1): the window was the limit at some point in the last round
    /// (interpretation 14).
    pub(super) fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited_this_round || self.cwnd_limited_prev_round
    }

    // ----- BBR.max_bw (§4.5.3 – §4.5.6) ---------------------------------------------------

    /// BBRUpdateMaxBw: application-limited samples count only if they raise the estimate.
    fn update_max_bw(&mut self, a: &Ack) {
        self.update_round(a);
        let (Some(rate), Some(rs)) = (a.rate(), a.rs) else { return };
        if rate >= self.max_bw || !rs.is_app_limited {
            self.max_bw = self.max_bw_filter.update(rate, self.cycle_count);
        }
    }

    /// BBRAdvanceMaxBwFilter: one more PROBE_BW cycle of virtual time.
    pub(super) fn advance_max_bw_filter(&mut self) {
        self.cycle_count += 1;
        self.max_bw = self.max_bw_filter.advance(self.cycle_count);
    }

    /// BBRBoundBWForModel: bw = min(max_bw, bw_lo).
    pub(super) fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw.min(self.bw_lo);
    }

    // ----- congestion signals and the short-term model (§4.5.10.3) ------------------------

    /// BBRNoteLoss: the first loss of a loss round restarts the round from now.
    pub(super) fn note_loss(&mut self) {
        if !self.loss_in_round {
            self.loss_round_delivered = self.delivered;
        }
        self.loss_in_round = true;
    }

    /// BBRUpdateLatestDeliverySignals (near the start of ACK processing).
    pub(super) fn update_latest_delivery_signals(&mut self, a: &Ack) {
        self.loss_round_start = false;
        let Some(rs) = a.rs else { return };
        self.bw_latest = self.bw_latest.max(rs.delivery_rate.unwrap_or(0));
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = self.delivered;
            self.loss_round_start = true;
        }
    }

    /// BBRAdvanceLatestDeliverySignals (near the end of ACK processing).
    pub(super) fn advance_latest_delivery_signals(&mut self, a: &Ack) {
        if self.loss_round_start {
            self.bw_latest = a.rate().unwrap_or(0);
            self.inflight_latest = a.rs.map_or(0, |r| r.delivered);
        }
    }

    /// BBRResetCongestionSignals.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// BBRUpdateCongestionSignals: once per loss round, adapt the lower bounds.
    pub(super) fn update_congestion_signals(&mut self, a: &Ack) {
        self.update_max_bw(a);
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion();
        self.loss_in_round = false;
    }

    /// BBRIsProbingBW (Linux bbr_is_probing_bandwidth): STARTUP, REFILL and UP.
    pub(super) fn is_probing_bw(&self) -> bool {
        matches!(self.state, State::Startup | State::ProbeBwRefill | State::ProbeBwUp)
    }

    /// BBRAdaptLowerBoundsFromCongestion.
    fn adapt_lower_bounds_from_congestion(&mut self) {
        if self.is_probing_bw() {
            return;
        }
        if self.loss_in_round {
            self.init_lower_bounds();
            self.loss_lower_bounds();
        }
    }

    /// BBRInitLowerBounds: the first congestion episode of a cycle starts from the model.
    fn init_lower_bounds(&mut self) {
        if self.bw_lo == INF {
            self.bw_lo = self.max_bw;
        }
        if self.inflight_lo == INF {
            self.inflight_lo = self.cwnd;
        }
    }

    /// BBRLossLowerBounds: bw_lo = max(bw_latest, β·bw_lo), inflight_lo likewise.
    fn loss_lower_bounds(&mut self) {
        self.bw_lo = self.bw_latest.max(scale(self.bw_lo, self.beta));
        self.inflight_lo = self.inflight_latest.max(scale(self.inflight_lo, self.beta));
    }

    /// BBRResetLowerBounds.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = INF;
        self.inflight_lo = INF;
    }

    // ----- the long-term bound inflight_hi (§4.5.10.2) ------------------------------------

    /// IsInflightTooHigh(rs): the loss rate since this segment was sent exceeds BBRLossThresh.
    pub(super) fn is_inflight_too_high(&self, a: &Ack) -> bool {
        a.rs.is_some_and(|rs| rs.lost as f64 > rs.tx_in_flight as f64 * self.loss_thresh)
    }

    /// BBRHandleInflightTooHigh: react once per bandwidth probe.
    pub(super) fn handle_inflight_too_high(&mut self, a: &Ack) {
        self.bw_probe_samples = false;
        if let Some(rs) = a.rs.filter(|rs| !rs.is_app_limited) {
            self.inflight_hi = rs.tx_in_flight.max(scale(self.target_inflight(), self.beta));
        }
        if self.state == State::ProbeBwUp {
            self.start_probe_bw_down(a.now);
        }
    }

    // ----- ACK aggregation (§4.5.9) -------------------------------------------------------

    /// BBRUpdateACKAggregation: data ACKed beyond bw · interval, max over recent rounds.
    pub(super) fn update_ack_aggregation(&mut self, a: &Ack) {
        let interval = a.now.saturating_sub(self.extra_acked_interval_start);
        let mut expected = bytes_in(self.bw, interval);
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0;
            self.extra_acked_interval_start = a.now;
            expected = 0;
        }
        self.extra_acked_delivered += a.newly_acked;
        let extra = self.extra_acked_delivered.saturating_sub(expected).min(self.cwnd);
        let window = if self.full_bw_reached { EXTRA_ACKED_FILTER_LEN } else { 1 };
        self.extra_acked = self.extra_acked_filter.update(window, self.round_count, extra);
    }

    // ----- volumes derived from the model (§4.6.4.2) --------------------------------------

    /// BBR.bdp for `bw`: bw · min_rtt in bytes.
    pub(super) fn bdp_of(&self, bw: u64) -> u64 {
        bytes_in(bw, self.min_rtt)
    }

    /// BBRBDPMultiple(bw, gain); InitialCwnd before any RTT sample.
    pub(super) fn bdp_multiple(&self, bw: u64, gain: f64) -> u64 {
        if self.min_rtt == Time::MAX {
            return self.initial_cwnd;
        }
        scale(self.bdp_of(bw), gain)
    }

    pub(super) fn min_pipe_cwnd(&self) -> u64 {
        MIN_PIPE_CWND_SEGMENTS * self.mss
    }

    /// BBRQuantizationBudget: room for offload quanta, the pipelining floor, and in UP two
    /// more segments so that inflight can exceed the BDP.
    pub(super) fn quantization_budget(&mut self, inflight: u64) -> u64 {
        self.update_offload_budget();
        let mut inflight = inflight.max(self.offload_budget).max(self.min_pipe_cwnd());
        if self.state == State::ProbeBwUp {
            inflight += super::probe_bw::UP_EXTRA_SEGMENTS * self.mss;
        }
        inflight
    }

    /// BBRInflight(bw, gain).
    pub(super) fn inflight(&mut self, bw: u64, gain: f64) -> u64 {
        let x = self.bdp_multiple(bw, gain);
        self.quantization_budget(x)
    }

    /// BBRTargetInflight: the BDP, unless congestion cut cwnd below it.
    pub(super) fn target_inflight(&self) -> u64 {
        self.bdp_of(self.bw).min(self.cwnd)
    }

    /// BBRInflightWithHeadroom: inflight_hi less max(1 MSS, 15 %), at least BBRMinPipeCwnd.
    pub(super) fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == INF {
            return INF;
        }
        let headroom = self.mss.max(scale(self.inflight_hi, HEADROOM));
        self.inflight_hi.saturating_sub(headroom).max(self.min_pipe_cwnd())
    }
}

/// Bytes sent at `rate` (bytes/s) in `t` (ns), saturating.
pub(super) fn bytes_in(rate: u64, t: Time) -> u64 {
    if rate == INF || t == Time::MAX {
        return INF;
    }
    (rate as u128 * t as u128 / SECOND as u128).min(INF as u128) as u64
}
