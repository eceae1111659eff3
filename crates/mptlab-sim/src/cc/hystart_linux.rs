//! Linux's HyStart: the slow-start exit of `net/ipv4/tcp_cubic.c` (Linux 6.x, `hystart_update`),
//! after Ha & Rhee, "Taming the elephants: New TCP slow start", Computer Networks 55(9), 2011.
//!
//! Two tests run on the ACKs of each round of slow start, once the window has reached
//! `LOW_WINDOW` segments; either one ends slow start at once (ssthresh = cwnd, no conservative
//! phase):
//!
//! - ACK train: ACKs that follow each other within `ACK_DELTA` (2 ms) form a train; when a
//!   train reaches further than half the minimum RTT past the round's start, the window is
//!   taken to fill the path (`threshold = delay_min / 2` for a sender that does not pace).
//! - Delay: the minimum of the round's first `MIN_SAMPLES` RTT samples (8, and it keeps
//!   taking the minimum after them) above `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`, where
//!   `delay_min` is the smallest RTT of the connection.
//!
//! This differs from RFC 9406's HyStart++ (`hystart.rs`), which compares each round's minimum RTT
//! with the previous round's (not with the connection's minimum), needs the increase within one
//! round, and then spends up to five rounds in Conservative Slow Start. Against the real kernel
//! (docs/emulation.md, "Validation results") the RFC's exit overshoots the queue far more.
//!
//! Interpretations:
//! - Rounds: Linux starts a round when `snd_una` passes `end_seq` (the `snd_nxt` of the last
//!   reset); here, as in `hystart.rs`, when an ACK's `prior_delivered` is at or beyond
//!   C.delivered as it was at the round's start (`AckEvent::round_ended`).
//! - `hystart_ack_delay()` (an allowance for GSO bursts and pacing, at most 1 ms) is 0: the
//!   simulated sender emits segments one by one and does not pace CUBIC.
//! - After a retransmission timeout Linux resets CUBIC (`bictcp_reset`: `found` and `delay_min`
//!   cleared) and HyStart runs again in the next slow start: `rearm`.

use super::hystart::{self, HyStart};
use super::AckEvent;
use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;

/// `hystart_low_window`: the tests start once cwnd ≥ 16 segments.
pub const LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`: ACKs at most 2 ms apart belong to one train.
pub const ACK_DELTA: Time = 2 * MILLISECOND;
/// `HYSTART_MIN_SAMPLES`: the same 8 as RFC 9406's N_RTT_SAMPLE.
pub const MIN_SAMPLES: u32 = hystart::N_RTT_SAMPLE;
/// `HYSTART_DELAY_MIN` / `HYSTART_DELAY_MAX`: the clamp of the delay threshold, RFC 9406's 4 and
/// 16 ms (HyStart++ took them from here).
pub const DELAY_MIN: Time = hystart::MIN_RTT_THRESH;
pub const DELAY_MAX: Time = hystart::MAX_RTT_THRESH;

#[derive(Clone, Debug)]
pub struct LinuxHyStart {
    enabled: bool,
    found: bool,
    /// C.delivered at the round's start (`end_seq`); None before the first round.
    round_end: Option<u64>,
    round_start: Time,
    last_ack: Time,
    curr_rtt: Option<Time>,
    sample_cnt: u32,
    delay_min: Option<Time>,
}

/// Which test ended slow start (for tests and traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

impl LinuxHyStart {
    pub fn new(enabled: bool) -> Self {
        Self { enabled, found: false, round_end: None, round_start: 0, last_ack: 0, curr_rtt: None, sample_cnt: 0, delay_min: None }
    }

    /// Still watching (enabled and not yet found).
    pub fn is_active(&self) -> bool {
        self.enabled && !self.found
    }

    /// After a retransmission timeout: watch the next slow start afresh (Linux `bictcp_reset`).
    pub fn rearm(&mut self) {
        *self = Self::new(self.enabled);
    }

    /// The delay test's threshold above `delay_min`.
    pub fn delay_thresh(delay_min: Time) -> Time {
        HyStart::rtt_thresh(delay_min) // delay_min / 8 within [DELAY_MIN, DELAY_MAX], as §4.3's RttThresh
    }

    /// One ACK in slow start with a window of `cwnd_segments`: Some(test) when it ends slow start.
    pub fn on_ack(&mut self, ev: &AckEvent, cwnd_segments: u64) -> Option<Exit> {
        if !self.is_active() {
            return None;
        }
        // bictcp_acked: delay_min is the connection's minimum RTT, updated on every sample.
        if let Some(rtt) = ev.rtt_sample {
            self.delay_min = Some(self.delay_min.map_or(rtt, |m| m.min(rtt)));
        }
        if cwnd_segments < LOW_WINDOW {
            return None;
        }
        let new_round = self.round_end.is_none_or(|end| ev.round_ended(end));
        if new_round {
            self.round_end = Some(ev.delivered_total);
            self.round_start = ev.now;
            self.last_ack = ev.now;
            self.curr_rtt = None;
            self.sample_cnt = 0;
        }
        let delay_min = self.delay_min?;
        if ev.now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = ev.now;
            if ev.now.saturating_sub(self.round_start) > delay_min / 2 {
                self.found = true;
                return Some(Exit::AckTrain);
            }
        }
        let rtt = ev.rtt_sample?;
        let curr = self.curr_rtt.map_or(rtt, |c| c.min(rtt));
        self.curr_rtt = Some(curr);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if curr > delay_min + Self::delay_thresh(delay_min) {
            self.found = true;
            return Some(Exit::Delay);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;
    use mptlab_engine::time::MICROSECOND;

    /// An ACK at `now_us` with an RTT sample, delivering a segment sent when C.delivered was `prior`.
    fn ack(now_us: u64, prior: u64, delivered_total: u64, rtt_ms: u64) -> AckEvent {
        AckEvent {
            now: now_us * MICROSECOND,
            rtt_sample: Some(rtt_ms * MILLISECOND),
            delivered_total,
            rate: Some(RateSample { prior_delivered: prior, ..Default::default() }),
            prior_delivered: Some(prior),
            ..Default::default()
        }
    }

    #[test]
    fn threshold_is_an_eighth_of_the_minimum_rtt_clamped_to_4_and_16_ms() {
        assert_eq!(LinuxHyStart::delay_thresh(20 * MILLISECOND), 4 * MILLISECOND);
        assert_eq!(LinuxHyStart::delay_thresh(80 * MILLISECOND), 10 * MILLISECOND);
        assert_eq!(LinuxHyStart::delay_thresh(400 * MILLISECOND), 16 * MILLISECOND);
    }

    #[test]
    fn an_ack_train_longer_than_half_the_minimum_rtt_ends_slow_start() {
        // RTT 40 ms: a train of ACKs 1 ms apart ends slow start once it spans more than 20 ms.
        let mut h = LinuxHyStart::new(true);
        let mut exit = None;
        let mut last = 0;
        for i in 0..30u64 {
            last = i;
            exit = h.on_ack(&ack(1_000_000 + i * 1000, 0, i + 1, 40), 20);
            if exit.is_some() {
                break;
            }
        }
        assert_eq!(exit, Some(Exit::AckTrain));
        assert_eq!(last, 21, "the first ACK more than 20 ms after the round's start");
        assert!(!h.is_active());
    }

    #[test]
    fn acks_more_than_2_ms_apart_never_make_a_train() {
        // 2.4 ms apart (two 1500 B segments per delayed ACK at 10 Mbit/s): no train, and an RTT
        // that does not grow never trips the delay test either.
        let mut h = LinuxHyStart::new(true);
        for i in 0..100u64 {
            assert_eq!(h.on_ack(&ack(1_000_000 + i * 2400, 0, i + 1, 40), 20), None);
        }
        assert!(h.is_active());
    }

    #[test]
    fn delay_test_fires_after_eight_samples_above_min_plus_threshold() {
        let mut h = LinuxHyStart::new(true);
        // delay_min = 40 ms from a first round (ACKs 3 ms apart: no train)
        let mut t = 1_000_000;
        for i in 0..10u64 {
            assert_eq!(h.on_ack(&ack(t, 0, i + 1, 40), 20), None);
            t += 3000;
        }
        // threshold: 40 ms / 8 = 5 ms. Next round: samples at 45 ms (= 40 + 5, not above) never fire ...
        assert_eq!(h.on_ack(&ack(t, 10, 11, 45), 20), None);
        for i in 0..10u64 {
            t += 3000;
            assert_eq!(h.on_ack(&ack(t, 5, 12 + i, 45), 20), None);
        }
        // ... a round whose first eight samples are all above 45 ms fires on the ninth
        t += 3000;
        assert_eq!(h.on_ack(&ack(t, 30, 30, 46), 20), None);
        let mut fired = None;
        for i in 0..8u64 {
            t += 3000;
            assert_eq!(fired, None, "not before the ninth sample");
            fired = h.on_ack(&ack(t, 25, 31 + i, 46), 20);
        }
        assert_eq!(fired, Some(Exit::Delay));
    }

    #[test]
    fn nothing_below_the_low_window_or_when_disabled() {
        let mut h = LinuxHyStart::new(true);
        for i in 0..50u64 {
            assert_eq!(h.on_ack(&ack(1_000_000 + i * 100, 0, i + 1, 40), 15), None);
        }
        let mut off = LinuxHyStart::new(false);
        assert_eq!(off.on_ack(&ack(0, 0, 1, 40), 100), None);
        assert!(!off.is_active());
    }

    #[test]
    fn rearm_forgets_the_exit_and_the_minimum_rtt() {
        let mut h = LinuxHyStart::new(true);
        for i in 0..30u64 {
            h.on_ack(&ack(1_000_000 + i * 1000, 0, i + 1, 40), 20);
        }
        assert!(!h.is_active());
        h.rearm();
        assert!(h.is_active());
        // after the reset a 10 ms path: the train ends past 5 ms
        let mut exit = None;
        for i in 0..10u64 {
            exit = exit.or(h.on_ack(&ack(5_000_000 + i * 1000, 100, 101 + i, 10), 20));
        }
        assert_eq!(exit, Some(Exit::AckTrain));
    }
}
