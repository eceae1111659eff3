//! The control outputs (draft-cardwell-ccwg-bbr-00 §4.6): pacing rate, send quantum and cwnd,
//! including the cwnd bounds per state (§4.6.4.7), loss recovery (§4.6.4.4, with the packet
//! conservation of draft-cardwell-iccrg-bbr-congestion-control-02, module interpretation 8),
//! and the restart from idle (§4.4).

use super::model::{bytes_in, scale};
use super::{Ack, Bbr2, State, INF};
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

/// BBRPacingMarginPercent (§2.5): pace 1 % below bw on average, to keep queues low. In %.
const PACING_MARGIN_PERCENT: f64 = 1.0;

/// BBRSetSendQuantum (§4.6.3): a quantum is the data sent at the pacing rate in 1 ms (in ns:
/// short bursts at low rates, fewer per-burst overheads at high ones) ...
const SEND_QUANTUM_TIME: Time = MILLISECOND;
/// ... at most 64 KB, the largest TSO/GSO aggregate (in bytes) ...
const SEND_QUANTUM_MAX: u64 = 64 * 1024;
/// ... and at least 2 segments, so that a delayed-ACK receiver always gets an ACK's worth (in
/// MSS).
pub(super) const SEND_QUANTUM_MIN_SEGMENTS: u64 = 2;

/// BBRUpdateOffloadBudget (§4.5.8): 3 quanta, one each in the sender's qdisc, its TSO engine
/// and the receiver's LRO/GRO/delayed-ACK engine. Dimensionless (× send quantum).
const OFFLOAD_QUANTA: u64 = 3;

/// BBRInitPacingRate (§4.6.2) without an SRTT: assume 1 ms, the draft's default; a fast
/// first flight is harmless (it is the initial window) and the rate is recomputed from the
/// first SRTT (interpretation 16). In ns.
const DEFAULT_INIT_RTT: Time = MILLISECOND;

impl Bbr2 {
    // ----- pacing (§4.6.2) ----------------------------------------------------------------

    /// BBRInitPacingRate: InitialCwnd / SRTT at the STARTUP gain.
    pub(super) fn init_pacing_rate(&mut self, srtt: Option<Time>) {
        let rtt = srtt.filter(|&r| r > 0).unwrap_or(DEFAULT_INIT_RTT);
        let nominal = (self.initial_cwnd as u128 * mptlab_engine::time::SECOND as u128 / rtt as u128) as u64;
        self.pacing_rate = scale(nominal, super::startup::PACING_GAIN).max(1);
    }

    /// BBRSetPacingRateWithGain: never lower the rate before the pipe was first filled.
    pub(super) fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = scale(self.bw, gain * (100.0 - PACING_MARGIN_PERCENT) / 100.0);
        if rate > 0 && (self.full_bw_reached || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// BBRSetPacingRate.
    pub(super) fn set_pacing_rate(&mut self) {
        self.set_pacing_rate_with_gain(self.state.pacing_gain());
    }

    /// The pacing rate handed to the sender: payload bytes per second (module interpretation 2).
    pub(super) fn wire_pacing_rate(&self) -> u64 {
        self.pacing_rate.clamp(1, INF)
    }

    /// BBRSetSendQuantum: 1 ms at the pacing rate, within [2 MSS, 64 KB].
    pub(super) fn set_send_quantum(&mut self) {
        let q = bytes_in(self.wire_pacing_rate(), SEND_QUANTUM_TIME);
        self.send_quantum = q.min(SEND_QUANTUM_MAX).max(SEND_QUANTUM_MIN_SEGMENTS * self.mss);
    }

    /// BBRUpdateOffloadBudget.
    pub(super) fn update_offload_budget(&mut self) {
        self.offload_budget = OFFLOAD_QUANTA * self.send_quantum;
    }

    // ----- cwnd (§4.6.4) ------------------------------------------------------------------

    /// BBRUpdateMaxInflight: cwnd_gain · BDP plus the aggregation estimate, quantised.
    fn update_max_inflight(&mut self) {
        let inflight = self.bdp_multiple(self.bw, self.state.cwnd_gain()).saturating_add(self.extra_acked);
        self.max_inflight = self.quantization_budget(inflight);
    }

    /// BBRSetCwnd (§4.6.4.6), with BBRModulateCwndForRecovery first (interpretation 8).
    pub(super) fn set_cwnd(&mut self, a: &Ack) {
        self.update_max_inflight();
        self.modulate_cwnd_for_recovery(a);
        if !self.packet_conservation {
            if self.full_bw_reached {
                self.cwnd = self.cwnd.saturating_add(a.newly_acked).min(self.max_inflight);
            } else if self.cwnd < self.max_inflight || self.delivered < self.initial_cwnd {
                self.cwnd = self.cwnd.saturating_add(a.newly_acked);
            }
            self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        }
        self.bound_cwnd_for_probe_rtt();
        self.bound_cwnd_for_model();
    }

    /// BBRBoundCwndForModel (§4.6.4.7): inflight_hi while probing, inflight_hi less headroom in
    /// CRUISE and PROBE_RTT, inflight_lo always, never below BBRMinPipeCwnd.
    fn bound_cwnd_for_model(&mut self) {
        let mut cap = INF;
        if self.state.is_probe_bw() && self.state != State::ProbeBwCruise {
            cap = self.inflight_hi;
        } else if matches!(self.state, State::ProbeRtt | State::ProbeBwCruise) {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(self.min_pipe_cwnd());
        self.cwnd = self.cwnd.min(cap);
    }

    // ----- loss recovery (§4.6.4.4) -------------------------------------------------------

    /// BBRSaveCwnd: the last cwnd not reduced by recovery or PROBE_RTT.
    pub(super) fn save_cwnd(&mut self) {
        if !self.in_loss_recovery() && self.state != State::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// BBRRestoreCwnd.
    pub(super) fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// BBROnEnterFastRecovery: save cwnd; the conservation step waits for the next ACK, which
    /// carries the pipe.
    pub(super) fn on_enter_fast_recovery(&mut self) {
        self.save_cwnd();
        self.in_fast_recovery = true;
        self.packet_conservation = true;
        self.recovery_entry_pending = true;
    }

    /// Upon exiting fast recovery: conservation ends, the saved cwnd comes back (to be bounded
    /// by the model at the end of this ACK's processing).
    pub(super) fn on_exit_fast_recovery(&mut self) {
        self.in_fast_recovery = false;
        self.packet_conservation = false;
        self.recovery_entry_pending = false;
        self.restore_cwnd();
    }

    /// BBROnEnterRTO (interpretation 9).
    pub(super) fn on_enter_rto(&mut self, flight_size: u64) {
        self.save_cwnd();
        self.in_fast_recovery = false;
        self.packet_conservation = false;
        self.recovery_entry_pending = false;
        self.rto_recovery_left = Some(flight_size);
        self.cwnd = self.mss;
        self.note_loss();
    }

    /// Recovery bookkeeping at the start of an ACK: the deferred fast-recovery entry step, the
    /// end of the conservation round, and the end of RTO recovery.
    pub(super) fn on_ack_recovery(&mut self, a: &Ack) {
        if self.recovery_entry_pending {
            self.recovery_entry_pending = false;
            // cwnd = pipe + max(newly_acked, 1 segment), and conservation for one round.
            self.cwnd = a.in_flight + a.newly_acked.max(self.mss);
            self.conservation_until = self.delivered;
        } else if self.packet_conservation && a.rs.is_some_and(|r| r.prior_delivered >= self.conservation_until) {
            self.packet_conservation = false;
        }
        if let Some(left) = self.rto_recovery_left {
            let left = left.saturating_sub(a.newly_cum_acked);
            self.rto_recovery_left = Some(left);
            if left == 0 {
                self.rto_recovery_left = None;
                self.restore_cwnd();
            }
        }
    }

    /// BBRModulateCwndForRecovery: shed newly lost data from cwnd; during conservation send
    /// one segment per segment delivered.
    fn modulate_cwnd_for_recovery(&mut self, a: &Ack) {
        if a.newly_lost > 0 {
            self.cwnd = self.cwnd.saturating_sub(a.newly_lost).max(self.mss);
        }
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(a.in_flight + a.newly_acked);
        }
    }

    // ----- restart from idle (§4.4) -------------------------------------------------------

    /// BBRHandleRestartFromIdle (interpretation 11).
    pub(super) fn handle_restart_from_idle(&mut self, now: Time) {
        self.idle_restart = true;
        self.extra_acked_interval_start = now;
        if self.state.is_probe_bw() {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.state == State::ProbeRtt {
            self.check_probe_rtt_done(now);
        }
    }
}
