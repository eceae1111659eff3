//! STARTUP (draft-cardwell-ccwg-bbr-00 §4.3.1): an exponential search of the rate space,
//! doubling the sending rate per round, left when the delivery rate stops growing (the
//! full-pipe estimator, also used to end PROBE_BW_UP) or when loss in a round is excessive.

use super::{Ack, Bbr2, State};

/// BBRStartupPacingGain (§2.5): 4·ln 2 ≈ 2.77, the smallest pacing gain that doubles the
/// delivery rate every round. Dimensionless (× bw).
pub(super) const PACING_GAIN: f64 = 2.77;

/// The full-pipe estimator (§4.3.1.2): the delivery rate "still grows" while it rises by at
/// least 25 % per round. Dimensionless.
const FULL_BW_GROWTH: f64 = 1.25;

/// Rounds without 25 % growth before the pipe is deemed full (§4.3.1.2): three, so that
/// receive-window auto-tuning has time to open the window (validated on YouTube). In rounds.
const FULL_BW_ROUNDS: u32 = 3;

/// BBRStartupFullLossCnt (§4.3.1.3): at least 6 loss events in a round before loss ends
/// STARTUP, to filter out noise from burst losses. In ACKs that newly mark loss
/// (interpretation 6).
const STARTUP_FULL_LOSS_CNT: u32 = 6;

/// Saturation of the loss-event counter (Linux keeps it in 4 bits); anything ≥ 6 suffices.
const LOSS_EVENTS_MAX: u32 = 15;

impl Bbr2 {
    /// BBREnterStartup.
    pub(super) fn enter_startup(&mut self) {
        if self.state != State::Startup {
            self.transition_to(State::Startup);
        }
    }

    /// BBRResetFullBW.
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// BBRCheckFullBWReached: three non-app-limited rounds without 25 % growth.
    pub(super) fn check_full_bw_reached(&mut self, a: &Ack) {
        if self.full_bw_now || a.is_app_limited() {
            return;
        }
        let Some(rate) = a.rate() else { return };
        if rate as f64 >= self.full_bw as f64 * FULL_BW_GROWTH {
            self.reset_full_bw();
            self.full_bw = rate;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_ROUNDS;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// BBRCheckStartupHighLoss (§4.3.1.3; interpretation 6).
    fn check_startup_high_loss(&mut self, a: &Ack) {
        if self.full_bw_reached || self.state != State::Startup {
            return;
        }
        if a.newly_lost > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(LOSS_EVENTS_MAX);
        }
        if self.loss_round_start
            && self.in_loss_recovery()
            && self.loss_events_in_round >= STARTUP_FULL_LOSS_CNT
            && self.is_inflight_too_high(a)
        {
            self.full_bw_reached = true;
            self.inflight_hi = self.bdp_multiple(self.max_bw, 1.0).max(self.inflight_latest);
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// BBRCheckStartupDone.
    pub(super) fn check_startup_done(&mut self, a: &Ack) {
        self.check_startup_high_loss(a);
        if self.state == State::Startup && self.full_bw_reached {
            self.enter_drain();
        }
    }
}
