//! PROBE_RTT and BBR.min_rtt (draft-cardwell-ccwg-bbr-00 §4.3.4, §4.5.7): when no RTT sample
//! has come in below the recent minimum for ProbeRTTInterval, cut inflight to half a BDP for at
//! least ProbeRTTDuration and one round so that the bottleneck queue drains and the two-way
//! propagation delay can be measured again. The min-RTT filter is integrated with this
//! schedule, as §4.5.7.2 suggests.

use super::{Ack, AckPhase, Bbr2, State};
use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;

/// PROBE_RTT pacing gain (§4.6.1 table): 1.0, the volume cap does the slowing down.
pub(super) const PACING_GAIN: f64 = 1.0;

/// BBRProbeRTTCwndGain (§2.14.2): 0.5, i.e. half the estimated BDP in flight while probing,
/// enough to drain the queue while keeping the link half busy. Dimensionless (× BDP).
pub(super) const CWND_GAIN: f64 = 0.5;

/// ProbeRTTInterval (§2.14.2): at most one PROBE_RTT per 5 s. Every BBR flow MUST use this value
/// so that flows sharing a bottleneck probe together (§4.3.4.2). In ns.
pub(super) const PROBE_RTT_INTERVAL: Time = 5 * SECOND;

/// ProbeRTTDuration (§2.14.2): 200 ms at the reduced volume, long enough for flows with
/// different RTTs to overlap, short enough to cost only ~2 % of throughput. In ns.
pub(super) const PROBE_RTT_DURATION: Time = 200 * MILLISECOND;

/// MinRTTFilterLen (§2.14.1): the min_rtt window, 10 s, twice ProbeRTTInterval so that it
/// always covers one PROBE_RTT. In ns.
pub(super) const MIN_RTT_FILTER_LEN: Time = 10 * SECOND;

impl Bbr2 {
    /// BBRUpdateMinRTT.
    pub(super) fn update_min_rtt(&mut self, a: &Ack) {
        self.probe_rtt_expired = a.now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(rtt) = a.rtt {
            if rtt < self.probe_rtt_min_delay || self.probe_rtt_expired {
                self.probe_rtt_min_delay = rtt;
                self.probe_rtt_min_stamp = a.now;
            }
        }
        let min_rtt_expired = a.now > self.min_rtt_stamp.saturating_add(MIN_RTT_FILTER_LEN);
        if self.probe_rtt_min_delay < self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min_delay;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }

    /// BBRCheckProbeRTT.
    pub(super) fn check_probe_rtt(&mut self, a: &Ack) {
        if self.state != State::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.state == State::ProbeRtt {
            self.handle_probe_rtt(a);
        }
        if a.rs.is_some_and(|r| r.delivered > 0) {
            self.idle_restart = false;
        }
    }

    /// BBREnterProbeRTT.
    fn enter_probe_rtt(&mut self) {
        self.transition_to(State::ProbeRtt);
    }

    /// BBRHandleProbeRTT.
    fn handle_probe_rtt(&mut self, a: &Ack) {
        self.mark_connection_app_limited(a.in_flight);
        match self.probe_rtt_done_stamp {
            None if a.in_flight <= self.probe_rtt_cwnd() => {
                // Inflight is down: hold it for ProbeRTTDuration and at least one round.
                self.probe_rtt_done_stamp = Some(a.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.start_round();
            }
            None => {}
            Some(_) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(a.now);
                }
            }
        }
    }

    /// BBRCheckProbeRTTDone.
    pub(super) fn check_probe_rtt_done(&mut self, now: Time) {
        if self.probe_rtt_done_stamp.is_some_and(|t| now > t) {
            // The next PROBE_RTT is due ProbeRTTInterval from now.
            self.probe_rtt_min_stamp = now;
            self.restore_cwnd();
            self.exit_probe_rtt(now);
        }
    }

    /// BBRExitProbeRTT: back to PROBE_BW (via DOWN, straight on to CRUISE since inflight is
    /// already below the BDP), or to STARTUP if the pipe was never filled.
    fn exit_probe_rtt(&mut self, now: Time) {
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.start_probe_bw_down(now);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }

    /// MarkConnectionAppLimited, emulated (module interpretation 10): C.app_limited =
    /// C.delivered + C.pipe.
    fn mark_connection_app_limited(&mut self, pipe: u64) {
        let lo = self.app_limited_mark.map_or(self.delivered, |(lo, _)| lo);
        self.app_limited_mark = Some((lo, (self.delivered + pipe).max(1)));
    }

    /// BBRProbeRTTCwnd: half a BDP, at least BBRMinPipeCwnd.
    pub(super) fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp_multiple(self.bw, CWND_GAIN).max(self.min_pipe_cwnd())
    }

    /// BBRBoundCwndForProbeRTT.
    pub(super) fn bound_cwnd_for_probe_rtt(&mut self) {
        if self.state == State::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }
}
