//! The two windowed filters of BBR's path model (draft-cardwell-iccrg-bbr-congestion-control-00
//! §4.1.1 and §4.1.2):
//!
//! - `MaxBwFilter`: BBR.BtlBw, the maximum delivery rate over the last `BW_FILTER_ROUNDS`
//!   packet-timed round trips. Linux uses Kathleen Nichols' three-sample running max
//!   (`lib/win_minmax.c`), an approximation; this one is exact: it keeps the largest sample of
//!   each of the last 10 rounds. Like Linux it ages only when a sample is accepted, so a sender
//!   whose samples are all ignored (application-limited, PROBE_RTT) keeps its last estimate
//!   "no matter how long" (tcp_bbr.c, `bbr_update_bw`).
//! - `MinRttFilter`: BBR.RTprop, the minimum RTT over the last 10 s. As in the draft and Linux it
//!   is not a sliding window but a value plus the time it was last lowered (or refreshed by
//!   PROBE_RTT): once that time is 10 s old the filter has expired, takes the next sample
//!   whatever its value, and the controller enters PROBE_RTT. Only a strictly lower sample
//!   restarts the window, where the draft and Linux also accept an equal one: see "RTprop and
//!   ties" in `mod.rs`.

use mptlab_engine::Time;

/// BtlBwFilterLen: 10 packet-timed round trips, the gain cycle (8 phases) plus 2, so that the
/// rate measured in one 1.25 probing phase is still remembered when the next one starts.
pub const BW_FILTER_ROUNDS: u64 = 10;

/// Windowed maximum of the delivery rate (bytes/s) over the last `BW_FILTER_ROUNDS` rounds.
#[derive(Clone, Debug, Default)]
pub struct MaxBwFilter {
    /// Largest sample of round r in slot r % BW_FILTER_ROUNDS; slots of rounds that saw no
    /// accepted sample hold 0.
    per_round: [u64; BW_FILTER_ROUNDS as usize],
    /// Round of the latest accepted sample.
    last_round: u64,
}

impl MaxBwFilter {
    /// Offer a sample taken in round `round` (rounds never go backwards).
    pub fn update(&mut self, round: u64, bw: u64) {
        debug_assert!(round >= self.last_round, "rounds go forward");
        if round > self.last_round {
            // Clear the slots of the rounds that have just left the window (at most all of them).
            let gap = (round - self.last_round).min(BW_FILTER_ROUNDS);
            for r in round + 1 - gap..=round {
                self.per_round[(r % BW_FILTER_ROUNDS) as usize] = 0;
            }
            self.last_round = round;
        }
        let slot = &mut self.per_round[(round % BW_FILTER_ROUNDS) as usize];
        *slot = (*slot).max(bw);
    }

    /// The estimate: the largest sample of the window, 0 before the first.
    pub fn get(&self) -> u64 {
        self.per_round.iter().copied().max().unwrap_or(0)
    }
}

/// RTpropFilterLen: 10 s. Long enough to span many round trips and the natural pauses of
/// interactive traffic, short enough to follow route changes; PROBE_RTT's 200 ms every 10 s
/// costs about 2 % of throughput (tcp_bbr.c).
pub const MIN_RTT_WINDOW: Time = 10 * mptlab_engine::time::SECOND;

/// Minimum RTT (ns) with the time it was last lowered or refreshed.
#[derive(Clone, Copy, Debug, Default)]
pub struct MinRttFilter {
    min_rtt: Option<Time>,
    stamp: Time,
}

impl MinRttFilter {
    /// The estimate, None before the first sample.
    pub fn get(&self) -> Option<Time> {
        self.min_rtt
    }

    /// When the estimate was last lowered (or refreshed by PROBE_RTT).
    #[cfg(test)]
    pub fn stamp(&self) -> Time {
        self.stamp
    }

    /// More than `MIN_RTT_WINDOW` since the estimate was refreshed.
    pub fn expired(&self, now: Time) -> bool {
        self.min_rtt.is_some() && now > self.stamp + MIN_RTT_WINDOW
    }

    /// Offer an RTT sample; returns whether the filter had expired before it (draft-00
    /// BBRUpdateRTprop: `BBR.rtprop_expired`, computed before the update).
    pub fn update(&mut self, now: Time, rtt: Option<Time>) -> bool {
        let expired = self.expired(now);
        if let Some(r) = rtt {
            if self.min_rtt.is_none_or(|m| r < m) || expired {
                self.min_rtt = Some(r);
                self.stamp = now;
            }
        }
        expired
    }

    /// PROBE_RTT has measured the path: wait another window before the next one
    /// (tcp_bbr.c `bbr_check_probe_rtt_done`).
    pub fn refresh(&mut self, now: Time) {
        self.stamp = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::{MILLISECOND as MS, SECOND};

    #[test]
    fn max_filter_holds_the_largest_sample_of_the_window() {
        let mut f = MaxBwFilter::default();
        f.update(1, 100);
        f.update(2, 300);
        f.update(3, 200);
        assert_eq!(f.get(), 300);
    }

    #[test]
    fn max_filter_forgets_a_sample_after_ten_rounds() {
        let mut f = MaxBwFilter::default();
        f.update(5, 1000);
        for r in 6..=14 {
            f.update(r, 10);
            assert_eq!(f.get(), 1000, "round {r}: the round-5 sample is within 10 rounds");
        }
        f.update(15, 10);
        assert_eq!(f.get(), 10, "round 15: the round-5 sample has left the window");
    }

    #[test]
    fn max_filter_jumping_many_rounds_forgets_everything_older() {
        let mut f = MaxBwFilter::default();
        f.update(1, 1000);
        f.update(2, 900);
        f.update(40, 5);
        assert_eq!(f.get(), 5);
    }

    #[test]
    fn max_filter_does_not_age_without_samples() {
        let mut f = MaxBwFilter::default();
        f.update(3, 700);
        // No update for many rounds: the estimate stays (Linux ages only on accepted samples).
        assert_eq!(f.get(), 700);
    }

    #[test]
    fn min_filter_keeps_the_minimum_within_ten_seconds() {
        let mut f = MinRttFilter::default();
        assert!(!f.update(0, Some(20 * MS)));
        f.update(SECOND, Some(30 * MS));
        assert_eq!(f.get(), Some(20 * MS));
        assert_eq!(f.stamp(), 0);
        assert!(!f.update(10 * SECOND, Some(25 * MS)), "exactly 10 s is not expired");
        assert_eq!(f.get(), Some(20 * MS));
    }

    #[test]
    fn min_filter_forgets_after_ten_seconds() {
        let mut f = MinRttFilter::default();
        f.update(0, Some(20 * MS));
        let expired = f.update(10 * SECOND + 1, Some(35 * MS));
        assert!(expired);
        assert_eq!(f.get(), Some(35 * MS), "an expired filter takes the next sample");
        assert_eq!(f.stamp(), 10 * SECOND + 1);
        assert!(!f.expired(12 * SECOND));
    }

    #[test]
    fn min_filter_a_lower_sample_restarts_the_window() {
        let mut f = MinRttFilter::default();
        f.update(0, Some(20 * MS));
        f.update(9 * SECOND, Some(19 * MS));
        assert_eq!(f.get(), Some(19 * MS));
        assert!(!f.expired(15 * SECOND));
    }

    #[test]
    fn min_filter_an_equal_sample_does_not_restart_the_window() {
        let mut f = MinRttFilter::default();
        f.update(0, Some(20 * MS));
        f.update(9 * SECOND, Some(20 * MS));
        assert_eq!(f.stamp(), 0);
        assert!(f.expired(10 * SECOND + 1));
    }
}
