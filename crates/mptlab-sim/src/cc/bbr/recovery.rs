//! BBR v1's only reactions to loss (the draft §4.2.3.4 "Modulating cwnd in Loss Recovery",
//! Linux `bbr_set_cwnd_to_recover_or_restore`, `bbr_save_cwnd`, `bbr_ssthresh`,
//! `bbr_set_state`):
//!
//! - Every ACK that marks segments lost takes them out of cwnd (at least one segment stays), so
//!   that an ACK for P segments releases at most 2·P.
//! - Entering fast recovery saves cwnd ("last known good") and starts one round of packet
//!   conservation: cwnd = inflight + delivered, and never below that during the round.
//! - A retransmission timeout saves cwnd (unless a recovery already did) and restarts from one
//!   segment; cwnd then grows by what is delivered.
//! - Leaving either recovery restores cwnd to at least the saved value.
//!
//! Nothing else: no multiplicative decrease, no ssthresh. The bandwidth model ignores loss.
//!
//! Interpretation: the transport signals entering fast recovery (`on_congestion_event`),
//! leaving it (`on_recovery_exit`) and a timeout (`on_rto`), but not the end of timeout
//! recovery (Linux's Loss → Open). That ends when the cumulative ACK passes what was
//! outstanding at the timeout (the transport's recovery point = snd_nxt at the RTO), so this
//! module counts the cumulatively acknowledged bytes after the timeout against the timeout's
//! FlightSize (snd_nxt − snd_una), which is exactly that condition.

use super::{Mode, Rounds};
use crate::cc::{AckEvent, LossEvent};

/// Linux's congestion-avoidance states, as far as BBR distinguishes them (ordered as Linux's
/// `TCP_CA_Open < TCP_CA_Recovery < TCP_CA_Loss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    #[default]
    Open,
    /// Fast recovery.
    Recovery,
    /// Timeout recovery.
    Loss,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Recovery {
    state: CaState,
    /// The state seen by the previous ACK that delivered data.
    prev_state: CaState,
    packet_conservation: bool,
    /// cwnd saved on entering recovery or PROBE_RTT, restored on leaving it.
    prior_cwnd: u64,
    /// Timeout recovery: bytes still to be cumulatively acknowledged before it ends.
    loss_outstanding: u64,
}

impl Recovery {
    pub fn prior_cwnd(&self) -> u64 {
        self.prior_cwnd
    }

    /// Neither fast nor timeout recovery.
    pub fn is_open(&self) -> bool {
        self.state == CaState::Open
    }

    /// The draft's BBRSaveCwnd / Linux `bbr_save_cwnd`: outside recovery and PROBE_RTT the
    /// current cwnd is good; inside them it has been cut, so keep the larger.
    pub fn save_cwnd(&mut self, cwnd: u64, mode: Mode) {
        if self.prev_state < CaState::Recovery && mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    pub fn on_enter_fast_recovery(&mut self, cwnd: u64, mode: Mode) {
        // Linux calls `ssthresh` (which saves cwnd) when entering recovery.
        self.save_cwnd(cwnd, mode);
        self.state = CaState::Recovery;
        self.loss_outstanding = 0;
    }

    /// The transport left recovery. It reports only the end of fast recovery today; the end of
    /// timeout recovery is inferred in `on_ack`, and is accepted here too should the transport
    /// start reporting it.
    pub fn on_exit_recovery(&mut self) {
        self.state = CaState::Open;
        self.loss_outstanding = 0;
    }

    pub fn on_timeout(&mut self, ev: &LossEvent, cwnd: u64, mode: Mode) {
        // Linux tcp_enter_loss calls `ssthresh` only when no recovery has cut cwnd already.
        if !ev.during_recovery {
            self.save_cwnd(cwnd, mode);
        }
        self.state = CaState::Loss;
        self.prev_state = CaState::Loss;
        self.loss_outstanding = ev.flight_size;
    }

    /// Follow the cumulative ACK to notice the end of timeout recovery.
    pub fn on_ack(&mut self, ev: &AckEvent) {
        if self.state == CaState::Loss {
            self.loss_outstanding = self.loss_outstanding.saturating_sub(ev.bytes_acked);
            if self.loss_outstanding == 0 {
                self.state = CaState::Open;
            }
        }
    }

    /// A new round trip began: packet conservation lasts one round.
    pub fn end_packet_conservation(&mut self) {
        self.packet_conservation = false;
    }

    /// Apply the loss rules to `cwnd` on an ACK that delivered data; returns the new cwnd and
    /// whether packet conservation decides it alone (then the model's target is not applied).
    pub fn modulate_cwnd(&mut self, cwnd: u64, ev: &AckEvent, mss: u64, rounds: &mut Rounds) -> (u64, bool) {
        let acked = ev.bytes_delivered;
        let mut cwnd = cwnd;
        if ev.bytes_lost > 0 {
            cwnd = cwnd.saturating_sub(ev.bytes_lost).max(mss);
        }
        let (prev, state) = (self.prev_state, self.state);
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of fast recovery: packet conservation, and the round starts now.
            self.packet_conservation = true;
            rounds.next_round_delivered = ev.delivered_total;
            cwnd = ev.in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            // Recovery is over: back to the window it interrupted.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = state;
        if self.packet_conservation {
            return (cwnd.max(ev.in_flight + acked), true);
        }
        (cwnd, false)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::Mode;
    use crate::cc::{CongestionControl, LossEvent};
    use mptlab_engine::time::MILLISECOND as MS;

    fn loss(p: &Path, flight: u64, during_recovery: bool) -> LossEvent {
        LossEvent { now: p.now, flight_size: flight, mss: MSS as u32, during_recovery }
    }

    #[test]
    fn entering_fast_recovery_conserves_packets_for_one_round_then_restores_on_exit() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        p.run_for(1000 * MS, 5 * MS);
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
        let before = p.bbr.window();
        p.bbr.on_congestion_event(&loss(&p, before, false));
        // The ACK that started recovery: 3 segments lost, 100 kB still in flight.
        p.ack(Ack { bytes: 2 * MSS, lost: 3 * MSS, in_flight: 100_000, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), 100_000 + 2 * MSS, "cwnd = inflight + acked");
        // Still in the first round: cwnd follows inflight + acked, never below.
        p.ack(Ack { bytes: MSS, in_flight: 90_000, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), 100_000 + 2 * MSS, "no growth beyond inflight + acked");
        p.ack(Ack { bytes: MSS, in_flight: 120_000, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), 121_000);
        // A new round: conservation ends, cwnd grows by what is delivered toward the target.
        p.ack(Ack { bytes: 5 * MSS, in_flight: 120_000, new_round: true, ..p.default_ack() });
        assert_eq!(p.bbr.window(), 126_000);
        // Leaving recovery restores the saved window.
        p.bbr.on_recovery_exit(p.now);
        p.ack(Ack { bytes: MSS, in_flight: 120_000, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), (before + MSS).min(p.bbr.target()));
        assert!(p.bbr.window() >= before.min(p.bbr.target()));
    }

    #[test]
    fn a_timeout_drops_cwnd_to_one_segment_and_restores_it_when_the_flight_is_acked() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        p.run_for(1000 * MS, 5 * MS);
        let before = p.bbr.window();
        p.bbr.on_rto(&loss(&p, 300_000, false));
        assert_eq!(p.bbr.window(), MSS);
        assert_eq!(p.bbr.state_name(), "probe_bw", "a timeout is not a BBR state");
        // Slow start from one segment while the outstanding flight is acknowledged...
        p.ack(Ack { bytes: MSS, in_flight: 0, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), 4 * MSS, "grows by acked, floored at 4 segments");
        p.ack(Ack { bytes: 100_000, in_flight: 0, new_round: false, ..p.default_ack() });
        assert!(p.bbr.window() < before);
        // ...and once 300 kB have been cumulatively acknowledged, the old window is back.
        p.ack(Ack { bytes: 199_000, in_flight: 0, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), (before + 199_000).min(p.bbr.target()));
        assert!(p.bbr.window() >= before.min(p.bbr.target()));
    }

    #[test]
    fn a_reported_end_of_timeout_recovery_also_restores_the_window() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        p.run_for(1000 * MS, 5 * MS);
        let before = p.bbr.window();
        p.bbr.on_rto(&loss(&p, 300_000, false));
        p.ack(Ack { bytes: MSS, in_flight: 0, new_round: false, ..p.default_ack() });
        p.bbr.on_recovery_exit(p.now);
        p.ack(Ack { bytes: MSS, in_flight: 0, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), (before + MSS).min(p.bbr.target()));
    }

    #[test]
    fn a_timeout_during_recovery_keeps_the_window_saved_by_the_recovery() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        p.run_for(1000 * MS, 5 * MS);
        let before = p.bbr.window();
        p.bbr.on_congestion_event(&loss(&p, before, false));
        p.ack(Ack { bytes: MSS, in_flight: 10_000, new_round: false, ..p.default_ack() });
        p.bbr.on_rto(&loss(&p, 50_000, true));
        p.ack(Ack { bytes: 50_000, in_flight: 0, new_round: false, ..p.default_ack() });
        assert_eq!(p.bbr.window(), (before + 50_000).min(p.bbr.target()));
    }

    #[test]
    fn losses_outside_recovery_only_take_the_lost_segments_out_of_the_window() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        p.run_for(1000 * MS, 5 * MS);
        let before = p.bbr.window();
        p.ack(Ack { bytes: MSS, lost: 10 * MSS, new_round: false, ..p.default_ack() });
        // cwnd − lost + acked (the target caps the growth, not the loss).
        assert_eq!(p.bbr.window(), (before - 9 * MSS).min(p.bbr.target()));
        assert_eq!(p.bbr.mode(), Mode::ProbeBw);
    }
}
