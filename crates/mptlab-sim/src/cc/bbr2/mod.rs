//! BBRv3 (registry name `bbr2`, alias `bbr3`): the loss- and model-bounded BBR of
//! draft-cardwell-ccwg-bbr-00 (N. Cardwell, I. Swett, J. Beshay, 19 July 2024, "BBR Congestion
//! Control", the first CCWG revision, which specifies "version 3 of the BBR algorithm"). Section
//! numbers below are that draft's.
//!
//! # The model (§2.9, §3.4)
//! BBR estimates the path from delivery-rate samples (`AckEvent::rate`, draft-cheng delivery-rate
//! estimation, §4.5.2) and RTT samples, on two time scales:
//! - long term: `max_bw` (windowed max over the current and previous PROBE_BW cycle, §4.5.3),
//!   `min_rtt` (windowed min over 10 s, §4.5.7) and `inflight_hi` (the most data in flight that
//!   did not push the per-round loss rate above `loss_threshold`, §4.5.10.2);
//! - short term: `bw_lo` and `inflight_lo`, cut multiplicatively by `beta` in every round that
//!   saw loss while not probing (§4.5.10.3), and forgotten when a bandwidth probe starts (REFILL).
//!
//! `bw = min(max_bw, bw_lo)`, `bdp = bw · min_rtt`; pacing rate = pacing_gain · bw · 0.99 and
//! cwnd ≤ cwnd_gain · bdp + extra_acked, capped by the bounds per state (§4.6.1's table).
//!
//! # State machine (§4.1.1), one file per state
//! ```text
//!          |
//!          V
//! +---> STARTUP  ----------------+      startup.rs    gains 2.77 / 2
//! |        | full bw or high loss |
//! |        V                      |
//! |      DRAIN  ------------------+      drain.rs      0.35 / 2
//! |        | inflight <= bdp      |
//! |        V                      |
//! +---> PROBE_BW_DOWN  -----------+      probe_bw.rs   0.9  / 2
//! | ^      | inflight <= bdp and  |
//! | |      V headroom             |
//! | |   PROBE_BW_CRUISE ----------+                    1.0  / 2
//! | |      | 2-3 s or <=63 rounds |
//! | |      V                      |
//! | |   PROBE_BW_REFILL ----------+                    1.0  / 2
//! | |      | one round            |
//! | |      V                      |
//! | |   PROBE_BW_UP  -------------+                    1.25 / 2.25
//! | |      | bw plateau or loss   |
//! | +------+                      |
//! |                               | min-RTT estimate 5 s old
//! +---- PROBE_RTT <---------------+      probe_rtt.rs  1.0  / 0.5
//! ```
//! (DOWN may also go straight to REFILL when it is time to probe.) Every change goes through
//! `transition_to`, which debug-asserts that the edge is in this diagram. Model upkeep
//! (rounds, filters, bounds, congestion signals) is in model.rs, the filters in filter.rs, and
//! the control outputs (pacing rate, send quantum, cwnd, loss recovery) in control.rs.
//!
//! # Interpretations (where the draft is silent, inconsistent, or the simulator differs)
//! 1. Units: bytes and bytes per second of TCP payload throughout (what the delivery-rate
//!    estimator counts). The draft's packet counts become multiples of the MSS (BBRMinPipeCwnd
//!    = 4·MSS, the Reno-coexistence round bound = BDP/MSS, the inflight_hi growth of §4.3.3.6
//!    = one MSS per `probe_up_cnt` MSS acknowledged).
//! 2. `pacing_rate()` is handed to the sender in payload bytes per second, the unit of the
//!    trait: the sender charges each segment's payload against it, so "pace at bw" sends
//!    payload at bw, as the draft means.
//! 3. Drain pacing gain 0.35 (§2.5, §4.3.2 text); §4.6.1's table says 0.5. The text wins.
//! 4. Randomness (§4.3.3.5.3 BBRPickProbeWait) is replaced by a deterministic draw: a SplitMix64
//!    hash of (C.delivered, number of draws so far) gives the wall-clock wait 2 s + [0, 1 s)
//!    (32-bit fraction, integer arithmetic) and the initial `rounds_since_bw_probe` of 0 or 1
//!    (lowest bit). Flows differ in C.delivered, so they do not probe in lockstep; a run stays
//!    a pure function of its inputs.
//! 5. Losses are seen per ACK (`AckEvent::bytes_lost`, rs.lost, rs.tx_in_flight), not per lost
//!    packet: the transport has no per-lost-packet hook carrying that packet's tx_in_flight, so
//!    BBRHandleLostPacket / BBRInflightHiFromLostPacket (§4.5.10.2) are not modelled; the
//!    per-ACK check in BBRAdaptUpperBounds (rs.lost > rs.tx_in_flight · loss_threshold) sets
//!    inflight_hi instead. BBRNoteLoss runs on every ACK that newly marks bytes lost.
//! 6. BBRCheckStartupHighLoss (§4.3.1.3, prose only in -00) follows the Linux BBRv3
//!    realisation: at the end of each loss round, exit if in loss recovery, at least
//!    BBRStartupFullLossCnt = 6 ACKs of that round newly marked data lost (the simulator cannot
//!    count discontiguous lost ranges; an ACK marking loss is one "loss event") and
//!    rs.lost > rs.tx_in_flight · loss_threshold; then inflight_hi = max(bdp, inflight_latest).
//! 7. `bw_probe_samples` is cleared one round after PROBE_BW_DOWN starts (when the ACK phase
//!    ACKS_PROBE_STOPPING sees a round start), as Linux BBRv3 does: §4.5.10.2 reacts to loss
//!    only for "an ACK [that] covers data sent in one of the accelerating phases (REFILL or
//!    UP)", which -00's pseudocode leaves implicit.
//! 8. Loss recovery: -00 keeps only save/restore of cwnd (§4.6.4.4). The packet conservation of
//!    draft-cardwell-iccrg-bbr-congestion-control-02 §4.6.4.4 (BBROnEnterFastRecovery,
//!    BBRModulateCwndForRecovery) is added: on entering fast recovery cwnd = pipe +
//!    max(newly_acked, 1 MSS); on every ACK cwnd −= newly lost (floor 1 MSS) and, during the
//!    first round of recovery, cwnd ≥ pipe + newly_acked, while normal growth is suspended; on
//!    exit the saved cwnd is restored. The pipe is only known at the ACK that follows
//!    `on_congestion_event`, so the entry step runs there.
//! 9. RTO: cwnd = 1 MSS (the draft's C.pipe + 1 packet; the sender marks everything lost right
//!    after calling `on_rto`, so the pipe is 0). The sender reports no end of RTO recovery
//!    (`on_recovery_exit` is only called for fast recovery), so the controller tracks it: the
//!    sender leaves its Loss phase when snd_una reaches snd_nxt as of the timeout, i.e. once
//!    the cumulative ACK has advanced by `LossEvent::flight_size` (= snd_nxt − snd_una then);
//!    the ACKs' `bytes_acked` are summed to that point, and then the saved cwnd is restored.
//! 10. MarkConnectionAppLimited in PROBE_RTT (§4.3.4.4) cannot reach the transport's estimator;
//!     the controller keeps its own mark (C.delivered + pipe) and treats samples of segments sent
//!     while it was set (P.delivered within the marked range) as application-limited.
//! 11. BBRHandleRestartFromIdle (§4.4): a transmission with an empty pipe after an ACK that was
//!     not cwnd-limited counts as a restart from idle (the controller cannot see C.app_limited).
//! 12. RTT samples for min_rtt are the transport's Karn-safe `rtt_sample` (newest segment not
//!     ever retransmitted), per §4.5.7.1; an RTT equal to the current minimum does not refresh the
//!     ProbeRTT clock (strict "<", as in the draft), so a bulk flow enters PROBE_RTT every 5 s.
//! 13. `ssthresh()` reports "infinite" until STARTUP ends and then BBRInflight(max_bw, 1.0) at
//!     DRAIN entry, as Linux BBR sets snd_ssthresh, so that the sender's slow-start heuristics
//!     for "cwnd-limited" stop treating a BBR flow as slow-starting.
//! 14. is_cwnd_limited (§2.1, "at any point in the last packet-timed round trip") is the OR of
//!     the sender's per-ACK `cwnd_limited` over the current and the previous round.
//! 15. ECN is not modelled: the simulator never marks CE, so the draft's (and Linux BBRv3's)
//!     ECN responses, ecn_alpha and the ECN part of IsInflightTooHigh, are absent.
//! 16. The initial pacing rate (§4.6.2 BBRInitPacingRate) uses 1 ms until the first SRTT is
//!     known, then is recomputed once from SRTT (as Linux does on its first RTT sample).
//! 17. Implausible rate samples (rs.delivered > 2 · rs.tx_in_flight) are discarded; see
//!     `IMPLAUSIBLE_DELIVERED_FACTOR`. Without SACK the transport counts nothing as delivered
//!     on duplicate ACKs (Linux counts one segment per dupack, tcp_add_reno_sack), so the
//!     cumulative ACK that repairs a hole would otherwise report a window per RTT.

mod control;
mod drain;
mod filter;
mod model;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

use super::options::OptValue;
use super::{AckEvent, CcParams, CongestionControl, LossEvent, Options, RateSample};
use filter::{MaxBwFilter, WindowedMax};
use mptlab_engine::Time;
use serde::Serialize;

/// BBRv2/v3 options.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bbr2Config {
    /// BBRLossThresh: the highest tolerated loss rate per round (2%).
    pub loss_threshold: f64,
    /// BBRBeta: multiplicative decrease of inflight_lo / bw_lo on loss (0.7).
    pub beta: f64,
}

impl Default for Bbr2Config {
    fn default() -> Self {
        Self { loss_threshold: 0.02, beta: 0.7 }
    }
}

impl Options for Bbr2Config {
    const NAMES: &'static [&'static str] = &["loss_threshold", "beta"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "loss_threshold" => self.loss_threshold = v.number(0.0001, 0.5)?,
            "beta" => self.beta = v.number(0.1, 0.99)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// "Infinity" for byte and rate quantities (inflight_hi, inflight_lo, bw_lo, probe_up_cnt).
pub(crate) const INF: u64 = u64::MAX;

/// The states of §4.1.1; PROBE_BW's four phases are states of their own, as in the draft.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBwDown,
    ProbeBwCruise,
    ProbeBwRefill,
    ProbeBwUp,
    ProbeRtt,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Startup => "startup",
            State::Drain => "drain",
            State::ProbeBwDown => "probe_bw_down",
            State::ProbeBwCruise => "probe_bw_cruise",
            State::ProbeBwRefill => "probe_bw_refill",
            State::ProbeBwUp => "probe_bw_up",
            State::ProbeRtt => "probe_rtt",
        }
    }

    /// IsInAProbeBWState().
    pub fn is_probe_bw(self) -> bool {
        matches!(self, State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp)
    }

    /// BBR.pacing_gain per state (§4.6.1 table; Drain per interpretation 3).
    fn pacing_gain(self) -> f64 {
        match self {
            State::Startup => startup::PACING_GAIN,
            State::Drain => drain::PACING_GAIN,
            State::ProbeBwDown => probe_bw::DOWN_PACING_GAIN,
            State::ProbeBwCruise => probe_bw::CRUISE_PACING_GAIN,
            State::ProbeBwRefill => probe_bw::REFILL_PACING_GAIN,
            State::ProbeBwUp => probe_bw::UP_PACING_GAIN,
            State::ProbeRtt => probe_rtt::PACING_GAIN,
        }
    }

    /// BBR.cwnd_gain per state (§4.6.1 table).
    fn cwnd_gain(self) -> f64 {
        match self {
            State::ProbeBwUp => probe_bw::UP_CWND_GAIN,
            State::ProbeRtt => probe_rtt::CWND_GAIN,
            _ => DEFAULT_CWND_GAIN,
        }
    }
}

/// The edges of the §4.1.1 diagram (plus DOWN → REFILL, which BBRUpdateProbeBWCyclePhase takes
/// when it is time to probe before CRUISE was reached).
pub fn is_legal_transition(from: State, to: State) -> bool {
    use State::*;
    matches!(
        (from, to),
        (Startup, Drain)
            | (Startup, ProbeRtt)
            | (Drain, ProbeBwDown)
            | (Drain, ProbeRtt)
            | (ProbeBwDown, ProbeBwCruise)
            | (ProbeBwDown, ProbeBwRefill)
            | (ProbeBwDown, ProbeRtt)
            | (ProbeBwCruise, ProbeBwRefill)
            | (ProbeBwCruise, ProbeRtt)
            | (ProbeBwRefill, ProbeBwUp)
            | (ProbeBwRefill, ProbeRtt)
            | (ProbeBwUp, ProbeBwDown)
            | (ProbeBwUp, ProbeRtt)
            | (ProbeRtt, ProbeBwDown)
            | (ProbeRtt, Startup)
    )
}

/// Interpretation 17: a sample whose segment P saw more than twice the data that was in flight
/// when P left (rs.delivered > 2 · rs.tx_in_flight) is not a measurement of the path. On a FIFO
/// path everything delivered between P's send and its ACK was in flight at P's send; a larger
/// count means deliveries were counted late — without SACK, a cumulative ACK filling a hole
/// reports a whole window the receiver held for several RTTs, and the sample would read as
/// window / RTT, several times the bottleneck rate. Its rate is dropped (§4.5.2.4.4 allows
/// discarding implausible samples) and its delivered volume capped at tx_in_flight.
/// Dimensionless (× tx_in_flight).
const IMPLAUSIBLE_DELIVERED_FACTOR: u64 = 2;

/// BBRDefaultCwndGain (§2.6): 2, the smallest cwnd gain that lets the sending rate double per
/// round; used in every state but PROBE_BW_UP and PROBE_RTT. Dimensionless (× BDP).
const DEFAULT_CWND_GAIN: f64 = 2.0;

/// The ACK phases of §4.3.3.6 (which samples reflect a bandwidth probe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
    Refilling,
}

/// What one ACK carries, as the BBR steps need it (the draft's rs.* and C.* inputs).
#[derive(Clone, Copy, Debug)]
struct Ack {
    now: Time,
    /// rs.newly_acked: bytes newly ACKed or SACKed.
    newly_acked: u64,
    /// Bytes by which the cumulative ACK advanced.
    newly_cum_acked: u64,
    /// rs.newly_lost.
    newly_lost: u64,
    /// C.pipe after this ACK.
    in_flight: u64,
    /// The Karn-safe RTT sample (interpretation 12).
    rtt: Option<Time>,
    /// The delivery-rate sample, with is_app_limited widened by interpretation 10.
    rs: Option<RateSample>,
}

impl Ack {
    fn rate(&self) -> Option<u64> {
        self.rs.and_then(|r| r.delivery_rate)
    }
    fn is_app_limited(&self) -> bool {
        self.rs.is_none_or(|r| r.is_app_limited)
    }
}

pub struct Bbr2 {
    // ----- configuration ------------------------------------------------------------------
    /// BBRLossThresh (fraction of tx_in_flight).
    loss_thresh: f64,
    /// BBRBeta (dimensionless).
    beta: f64,
    mss: u64,
    /// InitialCwnd in bytes.
    initial_cwnd: u64,

    // ----- state machine ------------------------------------------------------------------
    state: State,
    /// Count of state changes (diagnostics).
    transitions: u64,

    // ----- control outputs ----------------------------------------------------------------
    cwnd: u64,
    /// BBR.pacing_rate in payload bytes per second.
    pacing_rate: u64,
    /// BBR.send_quantum in bytes.
    send_quantum: u64,
    ssthresh: u64,

    // ----- round counting (§4.5.1) --------------------------------------------------------
    /// C.delivered as of the latest ACK.
    delivered: u64,
    next_round_delivered: u64,
    round_start: bool,
    round_count: u64,
    rounds_since_bw_probe: u64,

    // ----- data-rate model ----------------------------------------------------------------
    max_bw_filter: MaxBwFilter,
    cycle_count: u64,
    max_bw: u64,
    bw_lo: u64,
    bw: u64,

    // ----- data-volume model --------------------------------------------------------------
    min_rtt: Time,
    min_rtt_stamp: Time,
    probe_rtt_min_delay: Time,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    extra_acked: u64,
    extra_acked_filter: WindowedMax,
    extra_acked_interval_start: Time,
    extra_acked_delivered: u64,
    offload_budget: u64,
    max_inflight: u64,
    inflight_hi: u64,
    inflight_lo: u64,

    // ----- congestion signals (§2.10, §4.5.10.3) ------------------------------------------
    loss_in_round: bool,
    loss_round_delivered: u64,
    loss_round_start: bool,
    bw_latest: u64,
    inflight_latest: u64,
    /// ACKs that newly marked loss in the current loss round (interpretation 6), saturating.
    loss_events_in_round: u32,

    // ----- full-pipe estimator (§4.3.1.2) -------------------------------------------------
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw: u64,
    full_bw_count: u32,

    // ----- PROBE_BW (§4.3.3) --------------------------------------------------------------
    ack_phase: AckPhase,
    bw_probe_samples: bool,
    bw_probe_up_rounds: u32,
    bw_probe_up_acks: u64,
    /// Bytes to acknowledge per MSS of inflight_hi growth (interpretation 1).
    probe_up_cnt: u64,
    bw_probe_wait: Time,
    cycle_stamp: Time,
    /// Draws of BBRPickProbeWait so far (interpretation 4).
    probe_wait_draws: u64,

    // ----- PROBE_RTT (§4.3.4) -------------------------------------------------------------
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// Emulated C.app_limited mark: (C.delivered when first set, C.delivered + pipe).
    app_limited_mark: Option<(u64, u64)>,
    idle_restart: bool,

    // ----- loss recovery (§4.6.4.4) -------------------------------------------------------
    prior_cwnd: u64,
    in_fast_recovery: bool,
    /// Bytes the cumulative ACK must still advance before RTO recovery ends (interpretation 9).
    rto_recovery_left: Option<u64>,
    packet_conservation: bool,
    /// The first round of recovery ends with a sample of data sent at or after this C.delivered.
    conservation_until: u64,
    /// on_congestion_event was called; the entry step waits for the next ACK (interpretation 8).
    recovery_entry_pending: bool,

    // ----- bookkeeping --------------------------------------------------------------------
    cwnd_limited_this_round: bool,
    cwnd_limited_prev_round: bool,
    last_ack_cwnd_limited: bool,
    has_seen_rtt: bool,
    /// Wall-clock stamps are initialised on the first event (a flow may start at any time).
    started: bool,
}

impl Bbr2 {
    /// BBROnInit (§4.2.1).
    pub fn new(p: CcParams, cfg: &Bbr2Config) -> Self {
        let mss = p.mss.max(1) as u64;
        let initial_cwnd = p.initial_cwnd_segments.max(1) as u64 * mss;
        let mut b = Self {
            loss_thresh: cfg.loss_threshold,
            beta: cfg.beta,
            mss,
            initial_cwnd,
            state: State::Startup,
            transitions: 0,
            cwnd: initial_cwnd,
            pacing_rate: 0,
            send_quantum: control::SEND_QUANTUM_MIN_SEGMENTS * mss,
            ssthresh: INF,
            delivered: 0,
            next_round_delivered: 0,
            round_start: false,
            round_count: 0,
            rounds_since_bw_probe: 0,
            max_bw_filter: MaxBwFilter::default(),
            cycle_count: 0,
            max_bw: 0,
            bw_lo: INF,
            bw: 0,
            min_rtt: Time::MAX,
            min_rtt_stamp: 0,
            probe_rtt_min_delay: Time::MAX,
            probe_rtt_min_stamp: 0,
            probe_rtt_expired: false,
            extra_acked: 0,
            extra_acked_filter: WindowedMax::default(),
            extra_acked_interval_start: 0,
            extra_acked_delivered: 0,
            offload_budget: 0,
            max_inflight: initial_cwnd,
            inflight_hi: INF,
            inflight_lo: INF,
            loss_in_round: false,
            loss_round_delivered: 0,
            loss_round_start: false,
            bw_latest: 0,
            inflight_latest: 0,
            loss_events_in_round: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0,
            full_bw_count: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_acks: 0,
            probe_up_cnt: INF,
            bw_probe_wait: 0,
            cycle_stamp: 0,
            probe_wait_draws: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            app_limited_mark: None,
            idle_restart: false,
            prior_cwnd: 0,
            in_fast_recovery: false,
            rto_recovery_left: None,
            packet_conservation: false,
            conservation_until: 0,
            recovery_entry_pending: false,
            cwnd_limited_this_round: false,
            cwnd_limited_prev_round: false,
            last_ack_cwnd_limited: false,
            has_seen_rtt: false,
            started: false,
        };
        b.reset_congestion_signals();
        b.reset_lower_bounds();
        b.reset_full_bw();
        b.init_pacing_rate(None);
        b.enter_startup();
        b
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// Change state, asserting (in debug builds) that the edge is in the §4.1.1 diagram.
    fn transition_to(&mut self, to: State) {
        debug_assert!(is_legal_transition(self.state, to), "BBRv3: illegal transition {:?} -> {:?}", self.state, to);
        self.state = to;
        self.transitions += 1;
    }

    /// Wall-clock stamps start with the flow's first event, not at time 0.
    fn start_clock(&mut self, now: Time) {
        if !self.started {
            self.started = true;
            self.min_rtt_stamp = now;
            self.probe_rtt_min_stamp = now;
            self.extra_acked_interval_start = now;
            self.cycle_stamp = now;
        }
    }

    /// InLossRecovery(): fast recovery or RTO recovery.
    fn in_loss_recovery(&self) -> bool {
        self.in_fast_recovery || self.rto_recovery_left.is_some()
    }

    /// Filter the ACK's rate sample: drop an implausible rate (interpretation 17), and mark
    /// samples of segments sent while the emulated app-limited mark was set as app-limited
    /// (interpretation 10); the mark clears once C.delivered passes it (§4.5.2.3.3).
    fn filter_rate_sample(&mut self, rs: Option<RateSample>) -> Option<RateSample> {
        let mut rs = rs;
        if let Some(r) = rs.as_mut() {
            if r.delivered > IMPLAUSIBLE_DELIVERED_FACTOR * r.tx_in_flight.max(self.mss) {
                r.delivery_rate = None;
                r.delivered = r.tx_in_flight;
            }
        }
        if let (Some(r), Some((lo, hi))) = (rs.as_mut(), self.app_limited_mark) {
            if r.prior_delivered >= lo && r.prior_delivered <= hi {
                r.is_app_limited = true;
            }
        }
        if let Some((_, hi)) = self.app_limited_mark {
            if self.delivered > hi {
                self.app_limited_mark = None;
            }
        }
        rs
    }

    /// BBRUpdateModelAndState (§4.2.3).
    fn update_model_and_state(&mut self, a: &Ack) {
        self.update_latest_delivery_signals(a);
        self.update_congestion_signals(a);
        self.update_ack_aggregation(a);
        self.check_full_bw_reached(a);
        self.check_startup_done(a);
        self.check_drain_done(a);
        self.update_probe_bw_cycle_phase(a);
        self.update_min_rtt(a);
        self.check_probe_rtt(a);
        self.advance_latest_delivery_signals(a);
        self.bound_bw_for_model();
    }

    /// BBRUpdateControlParameters (§4.2.3).
    fn update_control_parameters(&mut self, a: &Ack) {
        self.set_pacing_rate();
        self.set_send_quantum();
        self.set_cwnd(a);
    }
}

impl CongestionControl for Bbr2 {
    /// BBROnTransmit (§4.2.2).
    fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        self.start_clock(now);
        // `in_flight` includes this segment: the pipe was empty before it.
        let pipe_before = in_flight.saturating_sub(bytes as u64);
        if pipe_before == 0 && self.delivered > 0 && !self.last_ack_cwnd_limited {
            self.handle_restart_from_idle(now);
        }
    }

    /// BBRUpdateOnACK (§4.2.3), preceded by the per-loss step BBRNoteLoss (interpretation 5)
    /// and the recovery bookkeeping of interpretations 8 and 9.
    fn on_ack(&mut self, ev: &AckEvent) {
        self.start_clock(ev.now);
        self.delivered = ev.delivered_total;
        self.last_ack_cwnd_limited = ev.cwnd_limited;
        if !self.has_seen_rtt && ev.srtt > 0 {
            self.has_seen_rtt = true;
            if self.max_bw == 0 {
                self.init_pacing_rate(Some(ev.srtt));
            }
        }
        let rs = self.filter_rate_sample(ev.rate);
        let a = Ack {
            now: ev.now,
            newly_cum_acked: ev.bytes_acked,
            newly_acked: ev.bytes_delivered,
            newly_lost: ev.bytes_lost,
            in_flight: ev.in_flight,
            rtt: ev.rtt_sample,
            rs,
        };
        self.on_ack_recovery(&a);
        if a.newly_lost > 0 {
            self.note_loss();
        }
        if ev.cwnd_limited {
            self.cwnd_limited_this_round = true;
        }
        self.update_model_and_state(&a);
        self.update_control_parameters(&a);
        debug_assert!(self.cwnd > 0 && self.pacing_rate > 0);
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.start_clock(ev.now);
        self.on_enter_fast_recovery();
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.on_exit_fast_recovery();
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        self.start_clock(ev.now);
        self.on_enter_rto(ev.flight_size);
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.wire_pacing_rate())
    }

    fn send_quantum(&self) -> Option<u64> {
        Some(self.send_quantum)
    }

    /// BBR runs its own recovery (packet conservation, then restore), so the transport's PRR
    /// does not apply (Linux skips `tcp_cwnd_reduction` for `cong_control` controllers).
    fn uses_prr(&self) -> bool {
        false
    }

    fn state_name(&self) -> &'static str {
        self.state.name()
    }
}
