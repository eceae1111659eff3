//! HyStart++ (RFC 9406): a delay-based exit from the initial slow start, through Conservative
//! Slow Start (CSS), for any window-based controller.
//!
//! The algorithm (RFC 9406 §4.2), per round trip ("round"):
//!
//! ```text
//!   at each round start:   lastRoundMinRTT = currentRoundMinRTT
//!                          currentRoundMinRTT = ∞, rttSampleCount = 0
//!   on each ACK:           currentRoundMinRTT = min(currentRoundMinRTT, RTT sample)
//!                          rttSampleCount += 1
//!
//!            rttSampleCount ≥ N_RTT_SAMPLE and
//!            currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh
//!   ┌────────────┐ ─────────────────────────────────────────▶ ┌─────┐ CSS_ROUNDS rounds   ┌──────┐
//!   │ slow start │   (cssBaselineMinRtt = currentRoundMinRTT)  │ CSS │ ──────────────────▶ │ done │
//!   │  growth    │ ◀───────────────────────────────────────── │ ¼   │ (ssthresh = cwnd)    └──────┘
//!   └────────────┘   rttSampleCount ≥ N_RTT_SAMPLE and         └─────┘
//!                    currentRoundMinRTT < cssBaselineMinRtt (a spurious exit)
//!   RttThresh = clamp(lastRoundMinRTT / MIN_RTT_DIVISOR, MIN_RTT_THRESH, MAX_RTT_THRESH)
//! ```
//!
//! A loss or a timeout ends HyStart++ (`disable`): the controller's own reduction follows, and
//! later slow starts are standard ones (§4.2: "use HyStart++ only for the initial slow start").
//!
//! This type only watches RTTs and rounds and says which phase the connection is in; growing the
//! window (by min(N, L·SMSS) per ACK in slow start, a `growth_divisor()`-th of that in CSS) and
//! setting ssthresh stay with the controller.
//!
//! Interpretations (where RFC 9406 leaves a choice):
//! - Rounds: §4.2 delimits a round by `windowEnd = SND.NXT` at its start; it ends when an ACK
//!   covers windowEnd. Here the same boundary comes from the delivered counter, as BBR counts
//!   rounds: a round ends when an ACK delivers a segment sent after it began, i.e. when the
//!   ACK's `prior_delivered` (C.delivered at the send of the newest segment it delivered, a rate
//!   sample's `prior_delivered`) reaches C.delivered as it was at the round's start
//!   (`AckEvent::round_ended`). ACKs that newly deliver nothing never end a round.
//! - RTT samples: `AckEvent::rtt_sample` (one per ACK, Karn's rule applied by the transport);
//!   an ACK without one does not count towards rttSampleCount.
//! - Order within an ACK: the round boundary is handled first (so the sample that ends a round
//!   counts in the new one), then the sample, then the checks; a phase decided on an ACK
//!   governs that ACK's growth already (one ACK's worth of difference from §4.2's order, which
//!   grows first).
//! - The spurious-exit check in CSS uses the same N_RTT_SAMPLE gate as the exit check, as §4.2
//!   says ("for CSS rounds where at least N_RTT_SAMPLE RTT samples have been obtained").
//! - CSS_ROUNDS counts round ends while in CSS, the partial round CSS started in included (§4.2:
//!   "that partial round counts towards the limit").

use super::AckEvent;
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

/// §4.3: lower clamp of the delay-increase threshold (4 ms).
pub const MIN_RTT_THRESH: Time = 4 * MILLISECOND;
/// §4.3: upper clamp of the delay-increase threshold (16 ms).
pub const MAX_RTT_THRESH: Time = 16 * MILLISECOND;
/// §4.3: the threshold is lastRoundMinRTT / 8 between the clamps (12.5 % of the base RTT).
pub const MIN_RTT_DIVISOR: Time = 8;
/// §4.3: RTT samples needed in a round before it is compared with the previous one.
pub const N_RTT_SAMPLE: u32 = 8;
/// §4.3: CSS grows the window at a quarter of slow start's rate.
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// §4.3: CSS lasts at most five rounds before congestion avoidance.
pub const CSS_ROUNDS: u32 = 5;
/// §4.3: growth per ACK is capped at L·SMSS; L = 8 for a sender that does not pace (L = ∞ when
/// paced; the controller does not know whether the transport paces, so it takes the unpaced
/// value).
pub const L_UNPACED: u64 = 8;

/// Where HyStart++ has the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start, watching for a delay increase.
    SlowStart,
    /// Conservative Slow Start: growth divided by CSS_GROWTH_DIVISOR.
    Css,
    /// HyStart++ is over (CSS finished, a loss, a timeout, or never enabled).
    Done,
}

#[derive(Clone, Debug)]
pub struct HyStart {
    phase: Phase,
    /// C.delivered at the start of the current round; the round ends when an ACK's rate sample
    /// has `prior_delivered` at or beyond it (RFC 9406's windowEnd, in delivered bytes).
    round_end: u64,
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    css_baseline_min_rtt: Option<Time>,
    /// Rounds ended since CSS began.
    css_rounds: u32,
    rounds: u64,
}

impl HyStart {
    /// HyStart++ governing the initial slow start (`enabled`), or already done.
    pub fn new(enabled: bool) -> Self {
        Self {
            phase: if enabled { Phase::SlowStart } else { Phase::Done },
            round_end: 0,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            css_baseline_min_rtt: None,
            css_rounds: 0,
            rounds: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn is_active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// Rounds started so far (for tests and traces).
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// The divisor of slow-start growth in the current phase (§4.2).
    pub fn growth_divisor(&self) -> u64 {
        if self.phase == Phase::Css {
            CSS_GROWTH_DIVISOR
        } else {
            1
        }
    }

    /// A loss or a timeout: HyStart++ is over for this connection (§4.2, last paragraphs).
    pub fn disable(&mut self) {
        self.phase = Phase::Done;
    }

    /// RttThresh of §4.2: lastRoundMinRTT / MIN_RTT_DIVISOR clamped to [MIN, MAX]_RTT_THRESH.
    pub fn rtt_thresh(last_round_min_rtt: Time) -> Time {
        (last_round_min_rtt / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
    }

    /// Process one ACK of the initial slow start; returns the phase after it. A return of
    /// `Done` from `Css` means CSS_ROUNDS rounds are complete: the caller enters congestion
    /// avoidance with ssthresh = cwnd.
    pub fn on_ack(&mut self, ev: &AckEvent) -> Phase {
        if self.phase == Phase::Done {
            return Phase::Done;
        }
        // Round boundary (§4.2 "at the start of each round").
        if ev.round_ended(self.round_end) {
            self.round_end = ev.delivered_total;
            self.rounds += 1;
            self.last_round_min_rtt = self.current_round_min_rtt;
            self.current_round_min_rtt = None;
            self.rtt_sample_count = 0;
            if self.phase == Phase::Css {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.phase = Phase::Done;
                    return Phase::Done;
                }
            }
        }
        let Some(rtt) = ev.rtt_sample else { return self.phase };
        self.current_round_min_rtt = Some(self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < N_RTT_SAMPLE {
            return self.phase;
        }
        let current = self.current_round_min_rtt.expect("a sample was just taken");
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min_rtt {
                    if current >= last + Self::rtt_thresh(last) {
                        self.css_baseline_min_rtt = Some(current);
                        self.css_rounds = 0;
                        self.phase = Phase::Css;
                    }
                }
            }
            Phase::Css => {
                if self.css_baseline_min_rtt.is_some_and(|b| current < b) {
                    // The exit was spurious: resume slow start, HyStart++ included.
                    self.css_baseline_min_rtt = None;
                    self.phase = Phase::SlowStart;
                }
            }
            Phase::Done => unreachable!("returned above"),
        }
        self.phase
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;

    /// An ACK carrying `rtt_ms`, delivering one segment sent when C.delivered was `prior`.
    fn ack(prior: u64, delivered_total: u64, rtt_ms: u64) -> AckEvent {
        AckEvent {
            rtt_sample: Some(rtt_ms * MILLISECOND),
            delivered_total,
            rate: Some(RateSample { prior_delivered: prior, ..Default::default() }),
            prior_delivered: Some(prior),
            ..Default::default()
        }
    }

    /// Feed one round of `n` ACKs with the given RTT; the first one starts the round.
    fn round(h: &mut HyStart, delivered: &mut u64, n: u64, rtt_ms: u64) -> Phase {
        let start = *delivered;
        let mut p = h.phase();
        for i in 0..n {
            *delivered += 1;
            // The first ACK delivers a segment sent at the round's start; later ones segments
            // sent during the previous round (below the boundary).
            let prior = if i == 0 { start } else { start.saturating_sub(1) };
            p = h.on_ack(&ack(prior, *delivered, rtt_ms));
        }
        p
    }

    #[test]
    fn threshold_is_an_eighth_of_the_base_rtt_clamped_to_4_and_16_ms() {
        assert_eq!(HyStart::rtt_thresh(10 * MILLISECOND), 4 * MILLISECOND);
        assert_eq!(HyStart::rtt_thresh(80 * MILLISECOND), 10 * MILLISECOND);
        assert_eq!(HyStart::rtt_thresh(500 * MILLISECOND), 16 * MILLISECOND);
    }

    #[test]
    fn a_round_below_eight_samples_never_exits() {
        let mut h = HyStart::new(true);
        let mut d = 0;
        round(&mut h, &mut d, 10, 50);
        assert_eq!(round(&mut h, &mut d, 7, 200), Phase::SlowStart);
    }

    #[test]
    fn delay_increase_enters_css_then_css_rounds_end_it() {
        let mut h = HyStart::new(true);
        let mut d = 0;
        round(&mut h, &mut d, 10, 50);
        assert_eq!(round(&mut h, &mut d, 10, 56), Phase::SlowStart, "6 ms < 6.25 ms threshold");
        assert_eq!(round(&mut h, &mut d, 10, 63), Phase::Css, "63 ≥ 56 + 7");
        // The partial round CSS started in counts: four more full rounds keep it in CSS ...
        for _ in 0..4 {
            assert_eq!(round(&mut h, &mut d, 10, 63), Phase::Css);
        }
        // ... and the start of the next one ends it.
        assert_eq!(round(&mut h, &mut d, 1, 63), Phase::Done);
    }

    #[test]
    fn rtt_falling_below_the_baseline_resumes_slow_start() {
        let mut h = HyStart::new(true);
        let mut d = 0;
        round(&mut h, &mut d, 10, 50);
        assert_eq!(round(&mut h, &mut d, 10, 70), Phase::Css);
        assert_eq!(round(&mut h, &mut d, 10, 69), Phase::SlowStart);
    }

    #[test]
    fn disabled_hystart_is_done() {
        let mut h = HyStart::new(false);
        assert_eq!(h.on_ack(&ack(0, 1, 10)), Phase::Done);
    }
}
