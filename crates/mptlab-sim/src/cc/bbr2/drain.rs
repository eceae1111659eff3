//! DRAIN (draft-cardwell-ccwg-bbr-00 §4.3.2): pace well below the estimated bandwidth until
//! the queue STARTUP built (at most about one BDP, bounded by its cwnd gain of 2) is gone.

use super::{Ack, Bbr2, State};

/// BBRDrainPacingGain (§2.5, §4.3.2): 0.35. Any gain ≤ 1 / BBRStartupCwndGain = 0.5 drains the
/// STARTUP queue within a round in theory; 0.35 performed best on YouTube. The §4.6.1 table's
/// 0.5 disagrees with the text; the text is followed (module interpretation 3).
pub(super) const PACING_GAIN: f64 = 0.35;

impl Bbr2 {
    /// BBREnterDrain.
    pub(super) fn enter_drain(&mut self) {
        self.transition_to(State::Drain);
        // Linux BBR: STARTUP is over, so the sender should stop treating the flow as slow-starting
        // (module interpretation 13).
        self.ssthresh = self.inflight(self.max_bw, 1.0);
    }

    /// BBRCheckDrainDone: the estimated queue is drained once C.pipe ≤ BBRInflight(1.0).
    pub(super) fn check_drain_done(&mut self, a: &Ack) {
        if self.state == State::Drain && a.in_flight <= self.inflight(self.bw, 1.0) {
            self.enter_probe_bw(a);
        }
    }
}
