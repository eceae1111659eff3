//! ACK-aggregation allowance (Linux `tcp_bbr.c` since v5.1, "tcp_bbr: adapt cwnd based on ack
//! aggregation estimation": `bbr_update_ack_aggregation`, `bbr_extra_acked`,
//! `bbr_ack_aggregation_cwnd`, and its use in `bbr_set_cwnd`). Not in
//! draft-cardwell-iccrg-bbr-congestion-control-00.
//!
//! When ACKs arrive in bursts (delayed or stretched ACKs, receiver offload, Wi-Fi or cellular
//! aggregation), a window of cwnd_gain·BDP runs dry during the silences between bursts. Linux
//! measures how much more data an "ACK epoch" delivered than the bandwidth estimate predicts
//! and adds the recent maximum of that excess to the target window:
//!
//! ```text
//!   on an ACK delivering `acked` (a valid rate sample):
//!     at a round start: win_rtts += 1; once win_rtts ≥ 5: win_rtts = 0, flip to the other slot
//!                       and clear it                        (bbr_extra_acked_win_rtts = 5)
//!     expected = BtlBw · (now − epoch_start)
//!     if epoch_acked ≤ expected  (ACKs came no faster than the model: a new epoch begins)
//!        or epoch_acked + acked ≥ 2^20 segments:           (bbr_ack_epoch_acked_reset_thresh)
//!         epoch_acked = 0; epoch_start = now; expected = 0
//!     epoch_acked += acked
//!     extra = min(epoch_acked − expected, cwnd)
//!     slot[current] = max(slot[current], extra)
//!   extra_acked = max(slot[0], slot[1])                     (a max over the last 5–10 rounds)
//!   allowance   = min(gain · extra_acked, BtlBw · 100 ms)   (bbr_extra_acked_gain = 1,
//!                                                            bbr_extra_acked_max_us = 100 ms)
//!                 once the pipe has been filled, else 0     (bbr_full_bw_reached)
//! ```
//!
//! `bbr_set_cwnd` adds the allowance to gain·BDP before the quantization budget, so the target
//! is cwnd_gain·BDP + allowance + 3 quanta. Packet conservation in recovery and PROBE_RTT's
//! 4-segment cap still apply on top of it, as in Linux.
//!
//! Interpretations:
//! - Units: bytes instead of Linux's packets (the cap on the epoch's count, 0xFFFFF packets, and
//!   the reset threshold, 2^20 packets, are taken as that many MSS). `expected` is rounded down
//!   to a byte where Linux rounds down to a packet, so a sub-packet excess that Linux drops is
//!   kept here; it is below one segment and cwnd is in bytes anyway.
//! - The epoch clock is the time of the latest ACK that delivered data (Linux's
//!   `tp->delivered_mstamp`), i.e. `now` on the ACKs this runs on. The epoch starts at 0 before
//!   the first ACK (Linux: at `bbr_init`); with no bandwidth estimate yet, the first ACK resets it
//!   either way, as in Linux.
//! - Linux skips ACKs whose rate sample is invalid (`rs->interval_us <= 0`, which includes
//!   intervals shorter than min_rtt) and also counts rounds only on valid samples. The
//!   controller here counts rounds on every sample (see `mod.rs`), so the 5-round window
//!   advances on every round start, valid sample or not, and only the excess measurement is
//!   skipped for an invalid one: the window's length stays 5 of the controller's rounds.
//! - The measurement runs from the first ACK, in STARTUP too (as Linux); only the allowance waits
//!   for the filled pipe. Linux does not clear the estimate when the pipe is found full, and
//!   neither does this; what STARTUP measured ages out of the two slots within 10 rounds.
//! - `extra_acked_gain` (scenario option, thousandths here) replaces Linux's compile-time
//!   constant; 0 turns the allowance off and gives the model of the draft (mptlab before
//!   issue 17).

use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;

/// bbr_extra_acked_win_rtts: rounds per slot of the two-slot max filter.
pub const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
/// bbr_extra_acked_max_us: the allowance is at most this much time at BtlBw.
pub const EXTRA_ACKED_MAX: Time = 100 * MILLISECOND;
/// bbr_ack_epoch_acked_reset_thresh, in segments: an epoch that has counted this much restarts.
const EPOCH_RESET_SEGMENTS: u64 = 1 << 20;
/// The width of Linux's `ack_epoch_acked` field (20 bits), in segments.
const EPOCH_MAX_SEGMENTS: u64 = 0xF_FFFF;
/// Linux caps `extra_acked_win_rtts` at its 5-bit field.
const WIN_ROUNDS_MAX: u32 = 0x1F;

#[derive(Clone, Copy, Debug, Default)]
pub struct AckAggregation {
    /// Start of the current ACK epoch (Linux `ack_epoch_mstamp`).
    epoch_start: Time,
    /// Bytes delivered in the current epoch (Linux `ack_epoch_acked`).
    epoch_acked: u64,
    /// Rounds since the current slot was opened (Linux `extra_acked_win_rtts`).
    win_rounds: u32,
    /// The slot being written (Linux `extra_acked_win_idx`).
    idx: usize,
    /// Max excess per slot, bytes (Linux `extra_acked[2]`).
    slots: [u64; 2],
}

impl AckAggregation {
    /// Linux `bbr_update_ack_aggregation` for an ACK at `now` delivering `acked` bytes.
    /// `round_start`: this ACK began a new round; `valid`: its rate sample has a valid interval;
    /// `bw`: BtlBw (bytes/s); `cwnd`: the window before this ACK's update; `mss` for the caps.
    #[allow(clippy::too_many_arguments)]
    pub fn update(&mut self, now: Time, acked: u64, round_start: bool, valid: bool, bw: u64, cwnd: u64, mss: u64) {
        if acked == 0 {
            return;
        }
        if round_start {
            self.win_rounds = (self.win_rounds + 1).min(WIN_ROUNDS_MAX);
            if self.win_rounds >= EXTRA_ACKED_WIN_ROUNDS {
                self.win_rounds = 0;
                self.idx ^= 1;
                self.slots[self.idx] = 0;
            }
        }
        if !valid {
            return;
        }
        let epoch = now.saturating_sub(self.epoch_start);
        let mut expected = (bw as u128 * epoch as u128 / SECOND as u128).min(u64::MAX as u128) as u64;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= EPOCH_RESET_SEGMENTS * mss {
            self.epoch_acked = 0;
            self.epoch_start = now;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(EPOCH_MAX_SEGMENTS * mss);
        let extra = self.epoch_acked.saturating_sub(expected).min(cwnd);
        if extra > self.slots[self.idx] {
            self.slots[self.idx] = extra;
        }
    }

    /// Linux `bbr_extra_acked`: the max over both slots, bytes.
    pub fn extra_acked(&self) -> u64 {
        self.slots[0].max(self.slots[1])
    }

    /// Linux `bbr_ack_aggregation_cwnd`: gain (thousandths) · extra_acked, at most BtlBw ·
    /// 100 ms, and nothing before the pipe has been filled.
    pub fn cwnd(&self, gain: u64, bw: u64, full_pipe: bool) -> u64 {
        if gain == 0 || !full_pipe {
            return 0;
        }
        let max = (bw as u128 * EXTRA_ACKED_MAX as u128 / SECOND as u128) as u64;
        let aggr = (gain as u128 * self.extra_acked() as u128 / super::GAIN_UNIT as u128) as u64;
        aggr.min(max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;

    const MSS: u64 = 1000;
    /// 1 MB/s: 1000 B (one segment) per ms.
    const BW: u64 = 1_000_000;
    const CWND: u64 = 100 * MSS;

    #[test]
    fn acks_at_the_model_rate_show_no_aggregation() {
        let mut a = AckAggregation::default();
        // One segment per ms, exactly BtlBw: each ACK finds epoch_acked ≤ expected and restarts
        // the epoch, so the excess is the ACK's own segment and never more.
        for i in 1..=200u64 {
            a.update(i * MS, MSS, i % 20 == 0, true, BW, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), MSS, "a single ACK's segment is the whole excess");
        // Two segments every 2 ms (delayed ACKs at the model rate): the excess is one ACK's 2 segments.
        let mut a = AckAggregation::default();
        for i in 1..=100u64 {
            a.update(2 * i * MS, 2 * MSS, false, true, BW, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), 2 * MSS);
    }

    #[test]
    fn a_burst_of_acks_after_a_silence_counts_what_exceeds_the_model() {
        let mut a = AckAggregation::default();
        // Steady ACKs at the model rate until t = 10 ms: the epoch restarts at each.
        for i in 1..=10u64 {
            a.update(i * MS, MSS, false, true, BW, CWND, MSS);
        }
        // Silence of 10 ms, then at t = 20 ms an ACK for 10 segments: epoch_acked (1 segment,
        // epoch started at 10 ms) ≤ expected (10 ms × 1 MB/s = 10 000 B): new epoch at 20 ms.
        a.update(20 * MS, 10 * MSS, false, true, BW, CWND, MSS);
        assert_eq!(a.extra_acked(), 10 * MSS);
        // Then 20 segments more in 5 ACKs 1 ms apart (t = 21..25 ms): at 25 ms the epoch (since
        // 20 ms) has 30 segments against 5 ms × 1 MB/s = 5 expected: extra = 25 segments.
        for k in 1..=5u64 {
            a.update((20 + k) * MS, 4 * MSS, false, true, BW, CWND, MSS);
        }
        assert_eq!(a.extra_acked(), 25 * MSS, "30 segments acked in an epoch of 5 ms at 1 segment/ms");
        // By hand at t = 23 ms: 10 + 12 = 22 acked, 3 expected: 19 < 25, the max stays.
        // The cap: never more than cwnd.
        let mut b = AckAggregation::default();
        b.update(MS, 500 * MSS, false, true, BW, CWND, MSS);
        assert_eq!(b.extra_acked(), CWND);
    }

    #[test]
    fn invalid_samples_and_empty_acks_are_not_measured() {
        let mut a = AckAggregation::default();
        a.update(MS, 10 * MSS, false, false, BW, CWND, MSS);
        a.update(2 * MS, 0, false, true, BW, CWND, MSS);
        assert_eq!(a.extra_acked(), 0);
    }

    #[test]
    fn the_maximum_expires_after_five_to_ten_rounds() {
        let mut a = AckAggregation::default();
        // A burst of 40 segments in round 0 (slot 0).
        a.update(MS, 40 * MSS, false, true, BW, CWND, MSS);
        assert_eq!(a.extra_acked(), 40 * MSS);
        let mut t = MS;
        let mut round = |a: &mut AckAggregation| {
            // A round of ACKs at the model rate (excess 1 segment), the first one starting it.
            for k in 0..10 {
                t += 50 * MS;
                a.update(t, MSS, k == 0, true, BW, CWND, MSS);
            }
        };
        // Rounds 1–4: still slot 0. Round 5 flips to slot 1 (cleared); slot 0 keeps the burst.
        for _ in 0..5 {
            round(&mut a);
        }
        assert_eq!(a.extra_acked(), 40 * MSS, "5 rounds later the burst is still remembered");
        for _ in 0..4 {
            round(&mut a);
        }
        assert_eq!(a.extra_acked(), 40 * MSS, "9 rounds later too");
        // Round 10 flips back to slot 0 and clears it: the burst is forgotten.
        round(&mut a);
        assert_eq!(a.extra_acked(), MSS, "10 rounds later only the steady excess is left");
    }

    #[test]
    fn the_allowance_needs_a_full_pipe_and_is_capped_at_100_ms_of_bandwidth() {
        let mut a = AckAggregation::default();
        a.update(MS, 60 * MSS, false, true, BW, CWND, MSS);
        assert_eq!(a.cwnd(1000, BW, false), 0, "nothing before the pipe is full");
        assert_eq!(a.cwnd(1000, BW, true), 60 * MSS);
        assert_eq!(a.cwnd(500, BW, true), 30 * MSS, "gain 0.5");
        assert_eq!(a.cwnd(0, BW, true), 0, "gain 0: off");
        // 100 ms at 200 kB/s = 20 kB < 60 kB.
        assert_eq!(a.cwnd(1000, 200_000, true), 20 * MSS);
    }
}
