//! TCP Vegas: delay-based congestion avoidance.
//!
//! Sources: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8), 1995, §3.2 (congestion avoidance) and §3.3 (modified slow
//! start); Linux `net/ipv4/tcp_vegas.c` (the per-round bookkeeping, the minimum-RTT filter, the
//! fall-back to Reno, the slow-start exit target and the defaults alpha 2, beta 4, gamma 1).
//!
//! The model. BaseRTT is the smallest RTT ever measured (the propagation delay). Once per round
//! trip Vegas takes the smallest RTT measured during that round (`rtt`) and compares the
//! window's expected rate, W/BaseRTT, with its actual rate, W/rtt:
//!
//! ```text
//! diff = (Expected − Actual) · BaseRTT = W · (rtt − BaseRTT) / rtt        [packets]
//! ```
//!
//! which is the number of the flow's packets sitting in bottleneck queues (actual rate times
//! queueing delay). With W in packets:
//!
//! ```text
//! congestion avoidance:  diff > beta  → W −= 1     (too much queued)
//!                        diff < alpha → W += 1     (too little queued)
//!                        otherwise      hold
//! slow start:            diff > gamma → W = min(W, ⌊W·BaseRTT/rtt⌋ + 1), ssthresh = W,
//!                                       i.e. leave slow start at the actual rate
//!                        otherwise      grow exponentially, but only every other round
//! ```
//!
//! ```text
//!                 diff > gamma, or cwnd reaches ssthresh
//!   slow_start ─────────────────────────────────────────▶ congestion_avoidance
//!       ▲   │ congestion event                     congestion event │    ▲
//!       │   └────────────────────▶ recovery ◀───────────────────────┘    │
//!       │                             │ recovery exit (cwnd = ssthresh)  │
//!       │ RTO (any state)             └──────────────────────────────────┘
//! ```
//!
//! Interpretations (each a choice where the paper, Linux and this simulator differ):
//! - Rounds. Linux starts a round at snd_nxt and ends it on the first ACK beyond it. The
//!   controller sees no sequence numbers; it counts delivered bytes instead, as BBR does
//!   (draft-cardwell-iccrg-bbr-congestion-control §4.1.1.3): a round that started when
//!   C.delivered was D ends with the first ACK whose `prior_delivered` (a rate sample's, given
//!   without the rest of the sample) is ≥ D, i.e. the first ACK of a segment sent after the
//!   round began (`AckEvent::round_ended`). An ACK that newly delivers nothing never ends a round.
//! - RTT samples are `AckEvent::rtt_sample` (Karn-filtered by the transport), one per ACK as in
//!   Linux's `pkts_acked`. Linux adds 1 µs so that no RTT is zero; here a sample is at least 1 ns.
//!   BaseRTT is the all-time minimum (Linux also resets it when it restarts from idle,
//!   CA_EVENT_TX_START; we keep it, which only matters if the path's delay grows).
//! - diff uses the paper's normalisation, W·(rtt − BaseRTT)/rtt (packets queued), as a real
//!   number. Linux computes the integer W·(rtt − BaseRTT)/BaseRTT, which is larger by the factor
//!   rtt/BaseRTT and truncated, so its band is effectively [alpha, beta + 1).
//! - W in diff is the window that produced the measured RTTs: the cwnd in force at the start of
//!   the previous round (the RTTs measured in round k are those of segments sent in round k − 1).
//!   Linux uses the current cwnd; in congestion avoidance the two differ by at most one packet,
//!   in slow start (where W doubles within a round) the current one would overstate diff 2×.
//! - Modified slow start (paper §3.3): cwnd grows (RFC 3465 byte counting, L = 2 SMSS, as
//!   cc/reno.rs) only in every other round; in between it holds so that the comparison measures
//!   a fixed window. Linux grows in every round; the paper's variant is implemented here. The
//!   held window's RTTs come back during the following, growing, round, so besides the test at
//!   every round end the gamma test also runs on every ACK of a growing round once it has ≥ 3
//!   samples, and growth stops there. Testing only at round ends let the window double once
//!   more before the exit: in tests/cc_vegas.rs the slow-start queue peaked at 1.2–2.5 BDP that
//!   way, and at 0.55–0.87 BDP with the per-ACK test (no loss with a 1-BDP buffer).
//! - Fewer than 3 RTT samples in a round (one or two ACKs per RTT: almost certainly delayed
//!   ACKs, tcp_vegas.c) → Reno for that round: in slow start the next round grows; in congestion
//!   avoidance cwnd grows by one SMSS per cwnd of bytes acknowledged (RFC 3465 counting, applied
//!   when the round ends). Linux applies one `tcp_reno_cong_avoid` call with that ACK's count.
//! - Increases need the window to have been the limit (`cwnd_limited`) in the round (RFC 7661,
//!   as cc/reno.rs); decreases do not. Linux's Vegas grows an application-limited window.
//! - cwnd never drops below 2 SMSS through a Vegas decision (Linux: `if (cwnd < 2) cwnd = 2`);
//!   a decrease also lowers ssthresh to cwnd so the flow stays in congestion avoidance.
//! - Loss is Reno's, as in Linux (`.ssthresh = tcp_reno_ssthresh`), written like cc/reno.rs:
//!   entering fast recovery sets ssthresh = max(FlightSize/2, 2·SMSS) (RFC 5681 eq. (4)) and
//!   cwnd = ssthresh (Linux halves cwnd rather than FlightSize and reaches ssthresh through PRR);
//!   no growth and no Vegas decision during recovery. An RTO sets cwnd = 1 SMSS and, unless it hit
//!   during a recovery, ssthresh as above.
//! - Restarts (Linux `vegas_enable`): leaving recovery, an RTO and sending into an empty pipe
//!   (idle restart) start a fresh round with no samples, so the first decision uses only fresh
//!   RTTs. After an RTO Linux grows Reno-style until the Loss state ends; here the modified slow
//!   start applies (at small windows the < 3-samples rule makes it Reno's anyway).

use super::options::OptValue;
use super::{AckEvent, CcParams, CongestionControl, LossEvent, Options};
use mptlab_engine::Time;
use serde::Serialize;

/// RFC 3465 §2.2: L = 2·SMSS limit on slow-start growth per ACK (as cc/reno.rs).
const ABC_LIMIT_SEGMENTS: u64 = 2;
/// tcp_vegas.c: with ≤ 2 RTT samples in a round the ACKs are probably delayed; use Reno.
const MIN_SAMPLES_PER_ROUND: u32 = 3;
/// tcp_vegas.c: a Vegas decision never leaves cwnd below 2 packets.
const MIN_CWND_SEGMENTS: u64 = 2;

/// Vegas thresholds in packets queued at the bottleneck (Linux defaults alpha 2, beta 4, gamma 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VegasConfig {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        Self { alpha: 2.0, beta: 4.0, gamma: 1.0 }
    }
}

impl Options for VegasConfig {
    const NAMES: &'static [&'static str] = &["alpha", "beta", "gamma"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "alpha" => self.alpha = v.number(0.0, 100.0)?,
            "beta" => self.beta = v.number(0.0, 100.0)?,
            "gamma" => self.gamma = v.number(0.0, 100.0)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }

    /// Vegas's band needs α ≤ β (Brakmo & Peterson: grow below α, shrink above β); with α > β
    /// the window would both grow and shrink for the same queue estimate.
    fn check(&self) -> Result<(), String> {
        if self.alpha > self.beta {
            return Err(format!("alpha ({}) must not exceed beta ({})", self.alpha, self.beta));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// BaseRTT: the smallest RTT ever measured; Time::MAX before the first sample.
    base_rtt: Time,
    /// The smallest RTT measured in the current round and the number of samples (Linux minRTT,
    /// cntRTT).
    round_min_rtt: Time,
    round_samples: u32,
    /// C.delivered when the current round began; the round ends with the first ACK whose rate
    /// sample has prior_delivered ≥ this.
    round_start_delivered: u64,
    /// cwnd at the start of the current and of the previous round (the latter produced the RTTs
    /// measured in the current round).
    cwnd_round_start: u64,
    cwnd_prev_round_start: u64,
    /// The window limited sending at some ACK of the current round.
    round_cwnd_limited: bool,
    /// Modified slow start: whether the current round grows (else it holds).
    ss_grow: bool,
    /// RFC 3465 counter for the Reno fall-back in congestion avoidance.
    reno_bytes_acked: u64,
    /// Between entering fast recovery and leaving it.
    in_recovery: bool,
    /// C.delivered as of the last ACK, to start rounds outside `on_ack`.
    delivered_seen: u64,
    /// The last diff computed (packets), for tests and traces.
    last_diff: Option<f64>,
}

impl Vegas {
    pub fn new(p: CcParams, cfg: &VegasConfig) -> Self {
        let mss = p.mss.max(1) as u64;
        let cwnd = p.initial_cwnd_segments.max(1) as u64 * mss;
        Self {
            mss,
            cwnd,
            ssthresh: u64::MAX,
            alpha: cfg.alpha,
            beta: cfg.beta,
            gamma: cfg.gamma,
            base_rtt: Time::MAX,
            round_min_rtt: Time::MAX,
            round_samples: 0,
            round_start_delivered: 0,
            cwnd_round_start: cwnd,
            cwnd_prev_round_start: cwnd,
            round_cwnd_limited: false,
            ss_grow: true,
            reno_bytes_acked: 0,
            in_recovery: false,
            delivered_seen: 0,
            last_diff: None,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// BaseRTT, once an RTT has been measured.
    pub fn base_rtt(&self) -> Option<Time> {
        (self.base_rtt != Time::MAX).then_some(self.base_rtt)
    }

    /// The diff (packets queued) of the last Vegas decision.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    /// Start a fresh round now, with no samples (Linux `vegas_enable`).
    fn restart_round(&mut self) {
        self.round_start_delivered = self.delivered_seen;
        self.round_min_rtt = Time::MAX;
        self.round_samples = 0;
        self.round_cwnd_limited = false;
        self.cwnd_round_start = self.cwnd;
        self.cwnd_prev_round_start = self.cwnd;
        self.reno_bytes_acked = 0;
    }

    /// Slow-start growth for one ACK (RFC 3465, capped at ssthresh).
    fn slow_start_ack(&mut self, bytes_acked: u64) {
        let inc = bytes_acked.min(ABC_LIMIT_SEGMENTS * self.mss);
        self.cwnd = self.cwnd.saturating_add(inc).min(self.ssthresh.max(self.cwnd));
    }

    fn floor_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(MIN_CWND_SEGMENTS * self.mss);
    }

    /// The once-per-round decision, on the ACK that ends the round.
    fn end_round(&mut self, ev: &AckEvent) {
        if self.round_samples < MIN_SAMPLES_PER_ROUND {
            // Reno for this round.
            if self.in_slow_start() {
                self.ss_grow = true;
                if ev.cwnd_limited {
                    self.slow_start_ack(ev.bytes_acked);
                }
            } else if self.reno_bytes_acked >= self.cwnd {
                self.reno_bytes_acked -= self.cwnd;
                self.cwnd = self.cwnd.saturating_add(self.mss);
            }
        } else {
            self.reno_bytes_acked = 0;
            let diff = self.diff();
            if self.in_slow_start() {
                if !self.leave_slow_start_if_queueing() {
                    self.ss_grow = !self.ss_grow;
                }
            } else if diff > self.beta {
                self.cwnd = self.cwnd.saturating_sub(self.mss);
                self.floor_cwnd();
                self.ssthresh = self.ssthresh.min(self.cwnd);
            } else if diff < self.alpha && self.round_cwnd_limited {
                self.cwnd = self.cwnd.saturating_add(self.mss);
            }
            self.floor_cwnd();
        }
        self.round_start_delivered = ev.delivered_total;
        self.round_min_rtt = Time::MAX;
        self.round_samples = 0;
        self.round_cwnd_limited = false;
        self.cwnd_prev_round_start = self.cwnd_round_start;
        self.cwnd_round_start = self.cwnd;
    }

    /// diff = W·(rtt − BaseRTT)/rtt packets from this round's samples (≥ 1 of them), W the
    /// window that produced them; recorded as `last_diff`.
    fn diff(&mut self) -> f64 {
        let rtt = self.round_min_rtt as f64;
        let base = self.base_rtt as f64; // ≤ rtt: the base is the minimum over all samples
        let w = self.cwnd_prev_round_start as f64 / self.mss as f64;
        let diff = w * (rtt - base) / rtt;
        self.last_diff = Some(diff);
        diff
    }

    /// The slow-start test (diff > gamma); on exit, cwnd = the actual rate times BaseRTT,
    /// W·BaseRTT/rtt, + 1 packet for the integer truncation (tcp_vegas.c), and ssthresh = cwnd.
    fn leave_slow_start_if_queueing(&mut self) -> bool {
        if self.diff() <= self.gamma {
            return false;
        }
        let w = self.cwnd_prev_round_start as f64 / self.mss as f64;
        let target = (w * self.base_rtt as f64 / self.round_min_rtt as f64) as u64 + 1;
        self.cwnd = self.cwnd.min(target.saturating_mul(self.mss));
        self.floor_cwnd();
        self.ssthresh = self.cwnd;
        true
    }

    fn halve(&self, flight_size: u64) -> u64 {
        // RFC 5681 eq. (4)
        (flight_size / 2).max(2 * self.mss)
    }
}

impl CongestionControl for Vegas {
    /// Counts rounds with `AckEvent::prior_delivered` and reads no other part of a rate sample.
    fn reads_rate_samples(&self) -> bool {
        false
    }
    fn counts_rounds(&self) -> bool {
        true
    }
    fn on_packet_sent(&mut self, _now: Time, bytes: u32, in_flight: u64) {
        // Sending into an empty pipe: an idle restart (Linux CA_EVENT_TX_START).
        if in_flight <= bytes as u64 {
            self.restart_round();
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.delivered_seen = self.delivered_seen.max(ev.delivered_total);
        if self.in_recovery && !ev.in_recovery {
            // Recovery ended without `on_recovery_exit`.
            self.in_recovery = false;
            self.restart_round();
        }
        if let Some(r) = ev.rtt_sample {
            let r = r.max(1);
            self.base_rtt = self.base_rtt.min(r);
            self.round_min_rtt = self.round_min_rtt.min(r);
            self.round_samples = self.round_samples.saturating_add(1);
        }
        if ev.in_recovery || self.in_recovery {
            return;
        }
        self.round_cwnd_limited |= ev.cwnd_limited;
        if !self.in_slow_start() && ev.cwnd_limited {
            self.reno_bytes_acked = self.reno_bytes_acked.saturating_add(ev.bytes_acked);
        }
        let round_ends = ev.round_ended(self.round_start_delivered);
        if round_ends {
            self.end_round(ev);
        } else if self.in_slow_start() && self.ss_grow {
            // A growing round measures the window held in the round before: test gamma on
            // every ACK once the round has enough samples, before growing further.
            let exited = self.round_samples >= MIN_SAMPLES_PER_ROUND && self.leave_slow_start_if_queueing();
            if !exited && ev.cwnd_limited {
                self.slow_start_ack(ev.bytes_acked);
            }
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.ssthresh = self.halve(ev.flight_size);
        self.cwnd = self.ssthresh;
        self.in_recovery = true;
        self.reno_bytes_acked = 0;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        if self.in_recovery {
            self.in_recovery = false;
            self.restart_round();
        }
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        if !ev.during_recovery {
            self.ssthresh = self.halve(ev.flight_size);
        }
        self.cwnd = self.mss;
        self.in_recovery = false;
        self.ss_grow = true;
        self.restart_round();
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn state_name(&self) -> &'static str {
        if self.in_recovery {
            "recovery"
        } else if self.in_slow_start() {
            "slow_start"
        } else {
            "congestion_avoidance"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::RateSample;
    use mptlab_engine::time::MILLISECOND as MS;
    use std::collections::VecDeque;

    const MSS: u32 = 1000;
    const M: u64 = MSS as u64;

    fn vegas(initial_cwnd_segments: u32) -> Vegas {
        Vegas::new(CcParams { mss: MSS, initial_cwnd_segments }, &VegasConfig::default())
    }

    fn pkts(bytes: u64) -> u64 {
        bytes / M
    }

    // ----- a scripted connection: whole rounds of ACKs with a chosen RTT ------------------------

    /// Drives the controller round by round. Every ACK acknowledges one segment and carries an
    /// RTT sample and a rate sample; the last ACK of each scripted round is the first one for a
    /// segment sent after the round began (prior_delivered = delivered at the round's start), so
    /// the controller's rounds coincide with the script's.
    struct Script {
        now: Time,
        delivered: u64,
        round_start: u64,
        prev_round_start: u64,
    }

    impl Script {
        /// A first ACK at `rtt` ends the controller's initial round (it has one sample: Reno).
        fn new(v: &mut Vegas, rtt: Time) -> Self {
            let mut s = Script { now: 0, delivered: 0, round_start: 0, prev_round_start: 0 };
            s.ack(v, rtt, 0, M, true);
            s.prev_round_start = 0;
            s.round_start = s.delivered;
            s
        }

        fn ack(&mut self, v: &mut Vegas, rtt: Time, prior_delivered: u64, bytes: u64, cwnd_limited: bool) {
            self.now += MS;
            self.delivered += bytes;
            let rate =
                RateSample { prior_delivered, delivered: self.delivered - prior_delivered, interval: rtt, rtt, ..Default::default() };
            v.on_ack(&AckEvent {
                now: self.now,
                bytes_acked: bytes,
                bytes_delivered: bytes,
                rtt_sample: Some(rtt),
                mss: MSS,
                cwnd_limited,
                delivered_total: self.delivered,
                rate: Some(rate),
                prior_delivered: Some(rate.prior_delivered),
                ..Default::default()
            });
        }

        /// One round of `n` ACKs with RTT `rtt`; returns cwnd in packets after it.
        fn round_with(&mut self, v: &mut Vegas, n: u32, rtt: Time, bytes: u64, cwnd_limited: bool) -> u64 {
            for i in 0..n {
                let prior = if i + 1 == n { self.round_start } else { self.prev_round_start };
                self.ack(v, rtt, prior, bytes, cwnd_limited);
            }
            self.prev_round_start = self.round_start;
            self.round_start = self.delivered;
            pkts(v.window())
        }

        /// One round with one ACK per packet of the current window (at least 3).
        fn round(&mut self, v: &mut Vegas, rtt: Time) -> u64 {
            let n = pkts(v.window()).max(3) as u32;
            self.round_with(v, n, rtt, M, true)
        }

        /// The controller restarted its round (recovery exit, RTO): follow it.
        fn restarted(&mut self) {
            self.round_start = self.delivered;
        }
    }

    /// Put a controller with base RTT `base` in congestion avoidance at `w` packets.
    fn in_congestion_avoidance(w: u64, base: Time) -> (Vegas, Script) {
        let mut v = vegas(10);
        let mut s = Script::new(&mut v, base);
        v.on_congestion_event(&LossEvent { flight_size: 2 * w * M, mss: MSS, ..Default::default() });
        assert_eq!(v.state_name(), "recovery");
        v.on_recovery_exit(s.now);
        s.restarted();
        assert_eq!((pkts(v.window()), v.state_name()), (w, "congestion_avoidance"));
        (v, s)
    }

    #[test]
    fn congestion_avoidance_shrinks_one_packet_per_round_while_diff_exceeds_beta() {
        let (mut v, mut s) = in_congestion_avoidance(40, 100 * MS);
        // rtt = 1.5 BaseRTT: diff = W/3 ≈ 13 packets > beta for every window below.
        let ws: Vec<u64> = (0..6).map(|_| s.round(&mut v, 150 * MS)).collect();
        assert_eq!(ws, [39, 38, 37, 36, 35, 34]);
        assert!(v.last_diff().unwrap() > 4.0);
        assert_eq!(v.ssthresh(), v.window(), "a decrease lowers ssthresh with cwnd");
        assert_eq!(v.state_name(), "congestion_avoidance");
    }

    #[test]
    fn congestion_avoidance_grows_one_packet_per_round_while_diff_is_below_alpha_and_holds_between() {
        let (mut v, mut s) = in_congestion_avoidance(40, 100 * MS);
        let ws: Vec<u64> = (0..3).map(|_| s.round(&mut v, 100 * MS)).collect();
        assert_eq!(ws, [41, 42, 43], "diff = 0 < alpha");
        // rtt such that diff = W·(rtt − base)/rtt = 3 packets for W = 43 (the previous round's
        // window is the one measured: 42 → diff 2.93, then 43 → 3): hold.
        let rtt = 100 * MS * 43 / 40;
        let ws: Vec<u64> = (0..3).map(|_| s.round(&mut v, rtt)).collect();
        assert_eq!(ws, [43, 43, 43]);
        let d = v.last_diff().unwrap();
        assert!((2.0..=4.0).contains(&d), "diff {d}");
    }

    #[test]
    fn an_application_limited_window_does_not_grow_but_still_shrinks() {
        let (mut v, mut s) = in_congestion_avoidance(20, 100 * MS);
        assert_eq!(s.round_with(&mut v, 20, 100 * MS, M, false), 20);
        assert_eq!(s.round_with(&mut v, 20, 200 * MS, M, false), 19);
    }

    #[test]
    fn fewer_than_three_samples_in_a_round_fall_back_to_reno() {
        let (mut v, mut s) = in_congestion_avoidance(20, 100 * MS);
        // Two stretch ACKs of 10 segments per round with rtt = 2·BaseRTT (diff = 10 > beta):
        // Vegas would shrink; Reno adds one segment per window acknowledged.
        assert_eq!(s.round_with(&mut v, 2, 200 * MS, 10 * M, true), 21);
        assert_eq!(s.round_with(&mut v, 2, 200 * MS, 10 * M, true), 21, "20 of 21 segments acked");
        assert_eq!(s.round_with(&mut v, 2, 200 * MS, 10 * M, true), 22);
        // Three samples: Vegas again.
        assert_eq!(s.round_with(&mut v, 3, 200 * MS, 10 * M, true), 21);
    }

    #[test]
    fn slow_start_grows_only_every_other_round() {
        let mut v = vegas(10);
        let mut s = Script::new(&mut v, 100 * MS);
        // The initial round ended on the first ACK with one sample: Reno slow start, +1 segment.
        let w0 = pkts(v.window());
        assert_eq!(w0, 11);
        let ws: Vec<u64> = (0..4).map(|_| s.round(&mut v, 100 * MS)).collect();
        // Grow (one ACK per packet, the last ends the round without growing), hold, grow, hold.
        assert_eq!(ws, [21, 21, 41, 41]);
        assert_eq!(v.state_name(), "slow_start");
        assert_eq!(v.last_diff(), Some(0.0));
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma_at_the_actual_rate() {
        let mut v = vegas(10);
        let mut s = Script::new(&mut v, 100 * MS);
        assert_eq!(s.round(&mut v, 100 * MS), 21);
        assert_eq!(s.round(&mut v, 100 * MS), 21);
        // Grow round: the RTTs measured are those of the held window of 21 packets. rtt =
        // 104 ms: diff = 21·4/104 = 0.81 ≤ gamma: no exit.
        assert_eq!(s.round(&mut v, 104 * MS), 41);
        assert!(v.last_diff().unwrap() < 1.0);
        assert_eq!(v.state_name(), "slow_start");
        // Hold round measuring the growing window (started at 21): rtt = 125 ms gives
        // diff = 21·25/125 = 4.2 > gamma: cwnd = ⌊21·100/125⌋ + 1 = 17, ssthresh = cwnd.
        assert_eq!(s.round(&mut v, 125 * MS), 17);
        assert_eq!(v.ssthresh(), v.window());
        assert_eq!(v.state_name(), "congestion_avoidance");
    }

    #[test]
    fn a_growing_round_leaves_slow_start_as_soon_as_the_held_window_shows_a_queue() {
        let mut v = vegas(10);
        let mut s = Script::new(&mut v, 100 * MS);
        assert_eq!(s.round(&mut v, 100 * MS), 21);
        assert_eq!(s.round(&mut v, 100 * MS), 21);
        // The next round grows and its ACKs carry the RTTs of the held 21 packets: rtt = 110 ms,
        // diff = 21·10/110 = 1.9 > gamma. The first two ACKs grow (2 samples are too few), the
        // third ends slow start mid-round: cwnd = min(23, ⌊21·100/110⌋ + 1 = 20).
        for (i, w) in [22, 23, 20].into_iter().enumerate() {
            s.ack(&mut v, 110 * MS, s.prev_round_start, M, true);
            assert_eq!(pkts(v.window()), w, "after ACK {}", i + 1);
        }
        assert_eq!((v.ssthresh(), v.state_name()), (20 * M, "congestion_avoidance"));
    }

    #[test]
    fn loss_is_reno_halving_of_the_flight_size_and_no_growth_in_recovery() {
        let mut v = vegas(10);
        let mut s = Script::new(&mut v, 100 * MS);
        v.on_congestion_event(&LossEvent { flight_size: 30 * M, mss: MSS, ..Default::default() });
        assert_eq!((v.window(), v.ssthresh(), v.state_name()), (15 * M, 15 * M, "recovery"));
        v.on_ack(&AckEvent { bytes_acked: M, cwnd_limited: true, in_recovery: true, rtt_sample: Some(MS), ..Default::default() });
        assert_eq!(v.window(), 15 * M);
        assert_eq!(v.base_rtt(), Some(MS), "samples in recovery still lower BaseRTT");
        v.on_rto(&LossEvent { flight_size: 100 * M, mss: MSS, during_recovery: true, ..Default::default() });
        assert_eq!((v.window(), v.ssthresh(), v.state_name()), (M, 15 * M, "slow_start"));
        v.on_rto(&LossEvent { flight_size: 3 * M, mss: MSS, during_recovery: false, ..Default::default() });
        assert_eq!(v.ssthresh(), 2 * M, "ssthresh floor of 2 SMSS");
        // The next round restarts from here: the first Vegas decision uses fresh samples only.
        s.restarted();
        for _ in 0..3 {
            s.round(&mut v, 100 * MS);
        }
        assert_eq!(v.base_rtt(), Some(MS));
    }

    // ----- a packet-level bottleneck ---------------------------------------------------------

    /// One segment in flight: its ACK time, send time, departure from the bottleneck's queue
    /// into service, and C.delivered at its send.
    struct InFlight {
        sent: Time,
        service_start: Time,
        ack_at: Time,
        prior_delivered: u64,
    }

    /// A greedy sender over one FIFO bottleneck that serves a segment every `per_pkt` with base
    /// RTT `base` (propagation plus one service time), one ACK per segment. Runs for `duration`
    /// and returns, per ACK after `warmup`, (queue length seen by the segment in packets waiting,
    /// controller diff).
    fn bottleneck(v: &mut Vegas, base: Time, per_pkt: Time, duration: Time, warmup: Time) -> (f64, Vec<f64>, u64) {
        let mut flight: VecDeque<InFlight> = VecDeque::new();
        let (mut now, mut delivered, mut link_free) = (0, 0u64, 0);
        let (mut queue_sum, mut queue_n) = (0.0, 0u64);
        let mut diffs = Vec::new();
        let mut delivered_after_warmup = 0;
        loop {
            while (flight.len() as u64 + 1) * M <= v.window() {
                let service_start = link_free.max(now);
                link_free = service_start + per_pkt;
                flight.push_back(InFlight { sent: now, service_start, ack_at: link_free + base - per_pkt, prior_delivered: delivered });
                v.on_packet_sent(now, MSS, flight.len() as u64 * M);
            }
            let p = flight.pop_front().unwrap();
            now = p.ack_at;
            if now >= duration {
                break;
            }
            delivered += M;
            if p.sent >= warmup {
                // Packets waiting ahead of this one when it arrived.
                queue_sum += ((p.service_start - p.sent) / per_pkt) as f64;
                queue_n += 1;
                delivered_after_warmup += M;
            }
            v.on_ack(&AckEvent {
                now,
                bytes_acked: M,
                bytes_delivered: M,
                rtt_sample: Some(now - p.sent),
                mss: MSS,
                cwnd_limited: true,
                delivered_total: delivered,
                rate: Some(RateSample {
                    prior_delivered: p.prior_delivered,
                    delivered: delivered - p.prior_delivered,
                    rtt: now - p.sent,
                    ..Default::default()
                }),
                prior_delivered: Some(p.prior_delivered),
                ..Default::default()
            });
            if now >= warmup {
                if let Some(d) = v.last_diff() {
                    diffs.push(d);
                }
            }
        }
        (queue_sum / queue_n.max(1) as f64, diffs, delivered_after_warmup)
    }

    #[test]
    fn steady_state_keeps_between_alpha_and_beta_packets_queued() {
        // (base RTT, service time per packet): BDPs of 10, 50, 100 and 400 packets.
        for (base, per_pkt) in [(20 * MS, 2 * MS), (50 * MS, MS), (100 * MS, MS), (40 * MS, MS / 10)] {
            let mut v = vegas(10);
            let bdp = base / per_pkt;
            let (queue, diffs, bytes) = bottleneck(&mut v, base, per_pkt, 60_000 * MS, 30_000 * MS);
            let (lo, hi) = diffs.iter().fold((f64::MAX, f64::MIN), |(lo, hi), d| (lo.min(*d), hi.max(*d)));
            let util = bytes as f64 / M as f64 * per_pkt as f64 / (30_000 * MS) as f64;
            println!(
                "BDP {bdp:3} pkts: cwnd {:3} pkts, queue {queue:.2} pkts, diff in [{lo:.2}, {hi:.2}], utilisation {util:.4}",
                pkts(v.window())
            );
            assert_eq!(v.state_name(), "congestion_avoidance");
            assert!(lo >= 2.0 && hi <= 4.0, "diff left [alpha, beta]: [{lo}, {hi}]");
            // One ACK per segment, no cross traffic: every segment sees the same queue,
            // W − BDP, and diff measures it exactly.
            assert!((2.0..=4.0).contains(&queue), "queue {queue}");
            assert_eq!(pkts(v.window()) as f64 - bdp as f64, queue.round(), "queue = W − BDP");
            assert!(util > 0.99, "utilisation {util}");
        }
    }
}
