//! BBR v1: Bottleneck Bandwidth and Round-trip propagation time.
//!
//! Sources: draft-cardwell-iccrg-bbr-congestion-control-00 (July 2017, "the draft") and Linux
//! `net/ipv4/tcp_bbr.c` ("Linux"); the ACM Queue paper (Cardwell, Cheng, Gunn, Hassas Yeganeh,
//! Jacobson, "BBR: Congestion-Based Congestion Control", 2016) for the model.
//!
//! # The model
//!
//! A path is modelled by two numbers, each measured with a windowed filter (`filters.rs`):
//!
//! ```text
//!   BtlBw  = windowed_max(delivery rate, 10 packet-timed round trips)     bytes/s
//!   RTprop = windowed_min(RTT, 10 s)                                       ns
//!   BDP    = BtlBw · RTprop                                                bytes
//! ```
//!
//! and the sender is driven by two gains applied to that model:
//!
//! ```text
//!   pacing_rate = pacing_gain · BtlBw · (1 − 1 %)
//!   cwnd        = cwnd_gain · BDP + 3 · send_quantum        (at least 4 segments)
//! ```
//!
//! Delivery-rate samples come from the transport (`AckEvent::rate`,
//! draft-cheng-iccrg-delivery-rate-estimation, `transport/tcp/rate.rs`); a round trip ends when
//! a segment sent after the round began is delivered (`RateSample::prior_delivered` reaching
//! the `delivered` count recorded at the start of the round). The core algorithm does not
//! react to loss or delay: losses only shape cwnd for one round of packet conservation when
//! fast recovery starts, and a timeout restarts from one segment (`recovery.rs`). This
//! loss-blindness is what lets BBR keep a shallow-buffered or randomly lossy path full, and
//! what makes it unfair to loss-based flows in deep buffers.
//!
//! # States
//!
//! ```text
//!              |
//!              V
//!     +---> STARTUP  ----+         STARTUP   pacing 2/ln 2, cwnd 2/ln 2: doubles per round
//!     |        |         |                   (startup.rs); the pipe is full after 3 rounds
//!     |        V         |                   without 25 % bandwidth growth
//!     |      DRAIN   ----+         DRAIN     pacing ln 2/2 until inflight <= BDP (drain.rs)
//!     |        |         |
//!     |        V         |         PROBE_BW  pacing cycles 1.25, 0.75, 1 ×6, one phase per
//!     +---> PROBE_BW ----+                   RTprop, cwnd 2·BDP (probe_bw.rs)
//!     |      ^    |      |
//!     |      |    |      |         PROBE_RTT RTprop not refreshed for 10 s: cwnd 4 segments
//!     |      +----+      |                   for max(200 ms, 1 round), then PROBE_BW, or
//!     |                  |                   STARTUP if the pipe was never filled
//!     +---- PROBE_RTT <--+                   (probe_rtt.rs)
//! ```
//!
//! Every state can enter PROBE_RTT; `transition_to` asserts the arrows above in debug builds.
//! The transport records the state after each hook with its time
//! (`TcpSender::cc_state_changes`); DRAIN's exit check also runs on the ACK that ends STARTUP
//! (Linux falls through), so a sender already at one BDP passes DRAIN within one ACK and the
//! record shows STARTUP → PROBE_BW.
//!
//! # Loss (`recovery.rs`)
//!
//! BBR v1's only reactions: segments newly marked lost come out of cwnd; entering fast
//! recovery saves cwnd and conserves packets for one round (cwnd = inflight + delivered); a
//! timeout saves cwnd and restarts from one segment; leaving either recovery restores at
//! least the saved cwnd. The model (BtlBw, RTprop, the state machine) never sees a loss, except
//! that a timeout restarts STARTUP's plateau comparison (Linux `bbr_set_state`).
//!
//! # Order of work per ACK (Linux `bbr_main`, the draft's BBRUpdateOnACK)
//!
//! round counting and the bandwidth filter → ACK aggregation → PROBE_BW phase → STARTUP's
//! full-pipe check → DRAIN's exit → RTprop filter and PROBE_RTT → gains → pacing rate → cwnd.
//!
//! # Interpretations
//!
//! - Units: bandwidth in payload bytes per second, times in ns, windows in bytes; gains are
//!   integers in thousandths (`GAIN_UNIT`). The transport charges pacing for the wire size of
//!   each segment (payload + 40 B of headers) against this payload rate, as Linux's fq does
//!   against `bbr_bw_to_pacing_rate`.
//! - Rounds are counted on every ACK that carries a rate sample, as in the draft (Linux counts
//!   them only on samples with a valid interval).
//! - RTT samples for RTprop: `AckEvent::rtt_sample` (Karn's rule, like Linux's `rs->rtt_us`).
//!   The first estimate is the transport's `min_rtt` on the first ACK, which includes the
//!   handshake's RTT (Linux's `bbr_init` takes `tcp_min_rtt`). Linux ignores delayed-ACK
//!   samples when the filter has expired; the ACK event does not say which ACKs were delayed,
//!   so all are taken.
//! - RTprop and ties: only a strictly lower sample restarts RTprop's 10 s window (and PROBE_RTT
//!   does); the draft (`packet.rtt <= BBR.RTprop`) and Linux (`rs->rtt_us <= min_rtt_us`) also
//!   accept an equal one. Linux compares noisy microsecond measurements, where an exact tie
//!   with the smallest sample of the last 10 s is rare, so a continuously sending flow probes
//!   every ~10 s (the paper's traces, the "2 %" cost). Simulated RTTs have no noise: a sender
//!   pacing 1 % below the bottleneck empties the queue and then measures RTprop to the
//!   nanosecond on most ACKs, so with `<=` a lone flow never probes again after its first
//!   PROBE_RTT and flows sharing a bottleneck lose the common drain that lets them measure the
//!   true RTprop and converge. `<` reproduces the observed behaviour; its cost is that a flow
//!   whose queue really is empty still spends 200 ms per 10 s at 4 segments (as Linux flows do
//!   in practice). Changing one comparison in `filters.rs` gives the literal rule.
//! - PROBE_RTT marks the connection application-limited so that its low rate samples do not
//!   enter the bandwidth filter (Linux, the draft's BBRHandleProbeRTT). The controller cannot
//!   set the transport's mark, so it keeps its own (`probe_rtt.rs`): a sample is treated as
//!   application-limited when its segment was sent between entering PROBE_RTT and the moment
//!   the delivered count passes the last mark (delivered + inflight).
//! - Send quantum (the draft §4.2.3): 1 segment below 1.2 Mbit/s of pacing rate, 2 below
//!   24 Mbit/s, else min(pacing_rate · 1 ms, 64 KB). The quantization budget added to cwnd is
//!   3 quanta (the draft's BBRInflight); Linux's rounding to an even packet count and its extra
//!   2 packets in the 1.25 phase are not applied.
//! - Random start phase of the gain cycle: the controller has no random source and must not
//!   get one through shared types, so it draws from a splitmix64 sequence seeded with the first
//!   RTT sample (ns) and stirred with the time of each draw. Both are deterministic functions
//!   of the scenario and its seed; like Linux it never starts in the 0.75 phase. Flows that
//!   see the same first RTT and enter PROBE_BW at the same instant draw the same phase.
//! - Idle restart (Linux `bbr_cwnd_event`, CA_EVENT_TX_START while application-limited): a
//!   transmission with nothing else in flight outside loss recovery counts as a restart from
//!   idle (the transport's app-limited mark is not visible; a pipe that empties outside
//!   recovery means the sender ran out of data or of receive window); PROBE_BW then paces at
//!   1.0·BtlBw until the next ACK, PROBE_RTT may end at once, and PROBE_RTT is not entered
//!   before an ACK delivers data.
//! - ACK aggregation (Linux since v5.1, not in the draft): once the pipe is full, the target
//!   window also holds the recent maximum of data ACKed beyond what BtlBw predicts
//!   (`extra_acked`, at most 100 ms of BtlBw), so cwnd = cwnd_gain·BDP + extra_acked + 3 quanta;
//!   `aggregation.rs`. The option `extra_acked_gain` (default 1, Linux's) scales it; 0 turns it
//!   off.
//! - Not implemented (later Linux additions, not in the draft): long-term bandwidth sampling
//!   for token-bucket policers (`lt_bw`), pacing "in network at EDT" corrections (the
//!   transport's departure schedule is not visible).

mod aggregation;
mod drain;
mod filters;
mod probe_bw;
mod probe_rtt;
mod recovery;
mod startup;
#[cfg(test)]
mod testing;

use super::options::OptValue;
use super::{AckEvent, CcParams, CongestionControl, LossEvent, Options, RateSample};
use aggregation::AckAggregation;
use filters::{MaxBwFilter, MinRttFilter};
use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;
use probe_bw::GainCycle;
use probe_rtt::ProbeRtt;
use recovery::Recovery;
use serde::Serialize;
use startup::FullPipe;

/// BBR v1 options.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BbrConfig {
    /// Linux `bbr_extra_acked_gain`: the share of the measured ACK aggregation added to the
    /// target window (`aggregation.rs`); 1 as in Linux, 0 turns the allowance off.
    pub extra_acked_gain: f64,
}

impl Default for BbrConfig {
    fn default() -> Self {
        Self { extra_acked_gain: 1.0 }
    }
}

impl Options for BbrConfig {
    const NAMES: &'static [&'static str] = &["extra_acked_gain"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "extra_acked_gain" => self.extra_acked_gain = v.number(0.0, 4.0)?,
            _ => unreachable!("names are checked by the caller"),
        }
        Ok(())
    }
}

// ----- constants ------------------------------------------------------------------------------

/// Gains are integers in thousandths: 1000 is a gain of 1.0.
pub const GAIN_UNIT: u64 = 1000;

/// BBRHighGain = 2/ln 2 ≈ 2.885 (STARTUP pacing and cwnd gain): the smallest gain with which a
/// paced sender doubles its delivery rate every round trip, sending what an unpaced slow start
/// would (tcp_bbr.c). Rounded up, like Linux's `BBR_UNIT * 2885 / 1000 + 1`.
pub const HIGH_GAIN: u64 = 2886;

/// DRAIN pacing gain = 1/2.885 ≈ 0.3466, rounded down to 0.346: drains in about one round the queue
/// STARTUP built in its last round.
pub const DRAIN_GAIN: u64 = GAIN_UNIT * GAIN_UNIT / 2885;

/// PROBE_BW cwnd gain 2: two BDPs in flight ride out delayed and stretched ACKs and leave room
/// for the 1.25 probing phase.
pub const CWND_GAIN: u64 = 2 * GAIN_UNIT;

/// Pace about 1 % below the estimated bandwidth, so that the average sending rate stays
/// slightly below the bottleneck and its queue drains (Linux `bbr_pacing_margin_percent`).
pub const PACING_MARGIN_PERCENT: u64 = 1;

/// BBRMinPipeCwnd: 4 segments, the least with which ACK-every-other-segment keeps two
/// two-segment exchanges in flight; also PROBE_RTT's cwnd.
pub const MIN_PIPE_CWND_SEGMENTS: u64 = 4;

/// Pacing rate below which the send quantum is one segment: 1.2 Mbit/s, in bytes/s.
const QUANTUM_ONE_SEGMENT_BELOW: u64 = 1_200_000 / 8;
/// Pacing rate below which the send quantum is two segments: 24 Mbit/s, in bytes/s.
const QUANTUM_TWO_SEGMENTS_BELOW: u64 = 24_000_000 / 8;
/// Largest send quantum: 64 KB (one TSO/GSO super-segment).
const MAX_SEND_QUANTUM: u64 = 64 * 1024;
/// Send quanta of cwnd headroom (the draft's BBRInflight): one in the sender's pacing layer,
/// one being segmented, one held by the receiver's ACK aggregation.
const QUANTIZATION_BUDGET_QUANTA: u64 = 3;

/// RTT assumed for the initial pacing rate before any sample: 1 ms (Linux nominal RTT).
const NOMINAL_RTT: Time = MILLISECOND;

// ----- state machine ----------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }

    /// The arrows of the diagram in the header.
    pub fn may_become(self, next: Mode) -> bool {
        use Mode::*;
        matches!((self, next), (Startup, Drain) | (Drain, ProbeBw) | (Startup | Drain | ProbeBw, ProbeRtt) | (ProbeRtt, ProbeBw | Startup))
    }
}

/// The per-ACK view of the rate sample BBR uses.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Delivery rate in bytes/s, None when the transport judged the interval invalid.
    bw: Option<u64>,
    /// Application-limited by the transport's mark or by PROBE_RTT's own.
    app_limited: bool,
}

/// Packet-timed round trips (the draft §4.1.1.3, BBRUpdateRound).
#[derive(Clone, Copy, Debug, Default)]
struct Rounds {
    /// C.delivered at the start of the current round; a sample whose segment was sent at or
    /// after this count ends the round.
    next_round_delivered: u64,
    count: u64,
    /// This ACK started a new round.
    start: bool,
}

pub struct Bbr {
    mss: u64,
    initial_cwnd: u64,
    mode: Mode,
    cwnd: u64,
    /// Linux reports infinity until DRAIN, then the 1·BDP inflight target.
    ssthresh: u64,
    /// Bytes per second.
    pacing_rate: u64,
    has_seen_rtt: bool,
    pacing_gain: u64,
    cwnd_gain: u64,
    btl_bw: MaxBwFilter,
    rtprop: MinRttFilter,
    rounds: Rounds,
    full_pipe: FullPipe,
    cycle: GainCycle,
    probe_rtt: ProbeRtt,
    recovery: Recovery,
    /// Restarting from idle; cleared by the next ACK that delivers data.
    idle_restart: bool,
    /// C.delivered_time: the time of the latest ACK that delivered data.
    delivered_time: Time,
    /// State of the deterministic draw for the PROBE_BW start phase; None until the first RTT
    /// sample seeds it.
    rng: Option<u64>,
    /// ACK-aggregation estimate (`aggregation.rs`) and its gain in thousandths (0: off).
    aggregation: AckAggregation,
    extra_acked_gain: u64,
}

impl Bbr {
    pub fn new(p: CcParams, cfg: &BbrConfig) -> Self {
        let mss = p.mss.max(1) as u64;
        let initial_cwnd = p.initial_cwnd_segments.max(1) as u64 * mss;
        let mut b = Self {
            mss,
            initial_cwnd,
            mode: Mode::Startup,
            cwnd: initial_cwnd,
            ssthresh: u64::MAX,
            pacing_rate: 0,
            has_seen_rtt: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            btl_bw: MaxBwFilter::default(),
            rtprop: MinRttFilter::default(),
            rounds: Rounds::default(),
            full_pipe: FullPipe::default(),
            cycle: GainCycle::default(),
            probe_rtt: ProbeRtt::default(),
            recovery: Recovery::default(),
            idle_restart: false,
            delivered_time: 0,
            rng: None,
            aggregation: AckAggregation::default(),
            extra_acked_gain: (cfg.extra_acked_gain * GAIN_UNIT as f64).round() as u64,
        };
        b.init_pacing_rate(None);
        b
    }

    // ----- model accessors (also used by the tests) -----------------------------------------

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// BtlBw, bytes/s (0 before the first sample).
    pub fn btl_bw(&self) -> u64 {
        self.btl_bw.get()
    }

    /// RTprop, ns.
    pub fn rtprop(&self) -> Option<Time> {
        self.rtprop.get()
    }

    pub fn pacing_gain(&self) -> u64 {
        self.pacing_gain
    }

    pub fn cwnd_gain(&self) -> u64 {
        self.cwnd_gain
    }

    /// The pipe was judged full (STARTUP's exit condition has held once).
    pub fn filled_pipe(&self) -> bool {
        self.full_pipe.reached
    }

    pub fn round_count(&self) -> u64 {
        self.rounds.count
    }

    /// Linux `bbr_extra_acked`: the recent maximum of data ACKed beyond the model, bytes.
    pub fn extra_acked(&self) -> u64 {
        self.aggregation.extra_acked()
    }

    /// Linux `bbr_ack_aggregation_cwnd`: what the target window holds for ACK aggregation now.
    pub fn aggregation_cwnd(&self) -> u64 {
        self.aggregation.cwnd(self.extra_acked_gain, self.btl_bw.get(), self.full_pipe.reached)
    }

    /// Enter `next`, asserting that the state machine allows it (STYLE: "legal transitions
    /// asserted in debug builds"). The transport records the change as an event.
    fn transition_to(&mut self, next: Mode) {
        debug_assert!(self.mode.may_become(next), "illegal BBR transition {} -> {}", self.mode.name(), next.name());
        self.mode = next;
    }

    /// STARTUP if the pipe has never been filled, else PROBE_BW (Linux `bbr_reset_mode`).
    fn reset_mode(&mut self, now: Time) {
        if self.full_pipe.reached {
            self.enter_probe_bw(now);
        } else {
            self.transition_to(Mode::Startup);
        }
    }

    // ----- quantities of the model ------------------------------------------------------------

    /// gain · BtlBw · RTprop in bytes, rounded up (Linux rounds up to avoid a feedback loop
    /// that shrinks the window); `bw` in bytes/s.
    fn bdp(&self, bw: u64, gain: u64) -> Option<u64> {
        let rtt = self.rtprop.get()?;
        let num = bw as u128 * rtt as u128 * gain as u128;
        let den = SECOND as u128 * GAIN_UNIT as u128;
        Some(num.div_ceil(den).min(u64::MAX as u128) as u64)
    }

    /// BBRInflight(gain) = gain · BDP + 3 · send_quantum; the initial window while RTprop is
    /// unknown.
    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        match self.bdp(bw, gain) {
            Some(bdp) => bdp + QUANTIZATION_BUDGET_QUANTA * self.quantum(),
            None => self.initial_cwnd,
        }
    }

    /// pacing_gain · bw · (1 − margin) in bytes/s.
    fn pacing_rate_for(bw: u64, gain: u64) -> u64 {
        let r = bw as u128 * gain as u128 * (100 - PACING_MARGIN_PERCENT) as u128 / (GAIN_UNIT as u128 * 100);
        r.min(u64::MAX as u128) as u64
    }

    /// The draft §4.2.3 BBRSetSendQuantum, from the current pacing rate.
    fn quantum(&self) -> u64 {
        let rate = self.pacing_rate;
        if rate < QUANTUM_ONE_SEGMENT_BELOW {
            self.mss
        } else if rate < QUANTUM_TWO_SEGMENTS_BELOW {
            2 * self.mss
        } else {
            (rate / 1000).min(MAX_SEND_QUANTUM)
        }
    }

    /// high_gain · cwnd / RTT, the RTT being the smoothed one if any, else 1 ms (Linux
    /// `bbr_init_pacing_rate_from_rtt`).
    fn init_pacing_rate(&mut self, srtt: Option<Time>) {
        let rtt = match srtt.filter(|&s| s > 0) {
            Some(s) => {
                self.has_seen_rtt = true;
                s
            }
            None => NOMINAL_RTT,
        };
        let bw = (self.cwnd as u128 * SECOND as u128 / rtt as u128).min(u64::MAX as u128) as u64;
        self.pacing_rate = Self::pacing_rate_for(bw, HIGH_GAIN).max(1);
    }

    // ----- per-ACK steps ----------------------------------------------------------------------

    fn sample(&self, rs: Option<&RateSample>) -> Option<Sample> {
        rs.map(|rs| Sample { bw: rs.delivery_rate, app_limited: rs.is_app_limited || self.probe_rtt.marks(rs.prior_delivered) })
    }

    /// The draft's BBRUpdateRound.
    fn update_round(&mut self, ev: &AckEvent) {
        self.rounds.start = false;
        if let Some(rs) = &ev.rate {
            if rs.prior_delivered >= self.rounds.next_round_delivered {
                self.rounds.next_round_delivered = ev.delivered_total;
                self.rounds.count += 1;
                self.rounds.start = true;
                self.recovery.end_packet_conservation();
            }
        }
    }

    /// The draft's BBRUpdateBtlBw: application-limited samples count only when they raise the
    /// estimate (they show at least that much bandwidth; lower ones show the application).
    fn update_btl_bw(&mut self, s: Option<Sample>) {
        let Some(Sample { bw: Some(bw), app_limited }) = s else { return };
        if !app_limited || bw >= self.btl_bw.get() {
            self.btl_bw.update(self.rounds.count, bw);
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            // Pace slowly to drain, keep the window so that the pipe stays full meanwhile.
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (self.cycle.gain(), CWND_GAIN),
            Mode::ProbeRtt => (GAIN_UNIT, GAIN_UNIT),
        };
    }

    /// The draft's BBRSetPacingRate: before the pipe is filled the rate only rises, so that a
    /// round of low samples (e.g. after loss) does not slow STARTUP down.
    fn set_pacing_rate(&mut self, ev: &AckEvent) {
        if !self.has_seen_rtt && ev.srtt > 0 {
            self.init_pacing_rate(Some(ev.srtt));
        }
        let rate = Self::pacing_rate_for(self.btl_bw.get(), self.pacing_gain);
        if rate > 0 && (self.full_pipe.reached || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    /// The draft's BBRSetCwnd (Linux `bbr_set_cwnd`): grow by what was delivered toward
    /// cwnd_gain · BDP + budget; after the pipe is filled, snap down to it at once.
    fn set_cwnd(&mut self, ev: &AckEvent) {
        let acked = ev.bytes_delivered;
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let (c, conserving) = self.recovery.modulate_cwnd(cwnd, ev, self.mss, &mut self.rounds);
            cwnd = c;
            if !conserving {
                // Linux: bdp + bbr_ack_aggregation_cwnd, then the quantization budget.
                let target = self.inflight(self.btl_bw.get(), self.cwnd_gain) + self.aggregation_cwnd();
                if self.full_pipe.reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || ev.delivered_total < self.initial_cwnd {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_PIPE_CWND_SEGMENTS * self.mss);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_PIPE_CWND_SEGMENTS * self.mss);
        }
        self.cwnd = cwnd.max(self.mss);
    }

    /// Next value of the deterministic draw (splitmix64), stirred with `now`.
    fn draw(&mut self, now: Time) -> u64 {
        let mut z = self.rng.unwrap_or(0) ^ now;
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        self.rng = Some(z);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn seed_rng(&mut self, rtt: Time) {
        if self.rng.is_none() {
            self.rng = Some(rtt ^ 0xB5B5_2017_0703_0000);
        }
    }
}

impl CongestionControl for Bbr {
    fn on_packet_sent(&mut self, now: Time, bytes: u32, in_flight: u64) {
        // Nothing else in flight outside loss recovery: the sender ran out of data (or of
        // receive window) and is restarting from idle.
        if in_flight <= bytes as u64 && self.recovery.is_open() {
            self.on_idle_restart(now);
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.recovery.on_ack(ev);
        if ev.bytes_delivered > 0 {
            self.delivered_time = ev.now;
        }
        let sample = self.sample(ev.rate.as_ref());
        self.update_round(ev);
        self.update_btl_bw(sample);
        let valid = sample.is_some_and(|s| s.bw.is_some());
        self.aggregation.update(ev.now, ev.bytes_delivered, self.rounds.start, valid, self.btl_bw.get(), self.cwnd, self.mss);
        self.update_cycle_phase(ev);
        self.check_full_pipe(sample);
        self.check_drain(ev);
        self.update_rtprop_and_probe_rtt(ev);
        self.update_gains();
        self.set_pacing_rate(ev);
        self.set_cwnd(ev);
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        let _ = ev;
        let (cwnd, mode) = (self.cwnd, self.mode);
        self.recovery.on_enter_fast_recovery(cwnd, mode);
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        self.recovery.on_exit_recovery();
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        let (cwnd, mode) = (self.cwnd, self.mode);
        self.recovery.on_timeout(ev, cwnd, mode);
        // Linux tcp_enter_loss: cwnd = packets in flight + 1, all of them now marked lost.
        self.cwnd = self.mss;
        // Linux bbr_set_state(TCP_CA_Loss): restart the full-pipe comparison.
        self.full_pipe.bw = 0;
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(self.pacing_rate)
    }

    fn send_quantum(&self) -> Option<u64> {
        Some(self.quantum())
    }

    /// BBR sets cwnd itself in fast recovery (packet conservation, `recovery.rs`); Linux skips
    /// PRR for controllers with `cong_control`.
    fn uses_prr(&self) -> bool {
        false
    }

    fn state_name(&self) -> &'static str {
        self.mode.name()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;

    #[test]
    fn every_legal_transition_is_in_the_diagram() {
        use Mode::*;
        let all = [Startup, Drain, ProbeBw, ProbeRtt];
        let legal: Vec<(Mode, Mode)> =
            all.iter().flat_map(|&a| all.iter().map(move |&b| (a, b))).filter(|(a, b)| a.may_become(*b)).collect();
        assert_eq!(
            legal,
            vec![
                (Startup, Drain),
                (Startup, ProbeRtt),
                (Drain, ProbeBw),
                (Drain, ProbeRtt),
                (ProbeBw, ProbeRtt),
                (ProbeRtt, Startup),
                (ProbeRtt, ProbeBw)
            ]
        );
    }

    #[test]
    #[should_panic(expected = "illegal BBR transition startup -> probe_bw")]
    #[cfg(debug_assertions)]
    fn an_illegal_transition_panics_in_debug_builds() {
        let mut b = bbr();
        b.transition_to(Mode::ProbeBw);
    }

    #[test]
    fn initial_pacing_rate_is_high_gain_times_initial_window_per_millisecond() {
        let b = bbr();
        // 10 segments of 1000 B per 1 ms = 10 MB/s; × 2.886 × 0.99.
        assert_eq!(b.pacing_rate(), Some(pace(10_000_000, HIGH_GAIN)));
        assert_eq!(b.state_name(), "startup");
        assert_eq!(b.window(), 10 * MSS);
    }

    #[test]
    fn initial_pacing_rate_is_recomputed_from_the_first_smoothed_rtt() {
        let mut p = Path::new(12_500_000, 20 * MS);
        // First ACK: nothing delivered yet that gives a bandwidth sample.
        p.ack(Ack { rate: None, ..p.default_ack() });
        // 10 segments per 20 ms = 500 kB/s; × 2.886 × 0.99.
        assert_eq!(p.bbr.pacing_rate(), Some(pace(500_000, HIGH_GAIN)));
    }

    #[test]
    fn pacing_rate_is_gain_times_bandwidth_with_one_percent_margin() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        for _ in 0..40 {
            p.step(5 * MS);
            let b = &p.bbr;
            assert_eq!(b.pacing_rate(), Some(pace(b.btl_bw(), b.pacing_gain())), "{:?}", b.mode());
        }
    }

    #[test]
    fn send_quantum_follows_the_draft_thresholds() {
        let mut b = bbr();
        b.pacing_rate = 149_999; // just below 1.2 Mbit/s
        assert_eq!(b.send_quantum(), Some(MSS));
        b.pacing_rate = 150_000;
        assert_eq!(b.send_quantum(), Some(2 * MSS));
        b.pacing_rate = 2_999_999; // just below 24 Mbit/s
        assert_eq!(b.send_quantum(), Some(2 * MSS));
        b.pacing_rate = 3_000_000;
        assert_eq!(b.send_quantum(), Some(3000));
        b.pacing_rate = 125_000_000; // 1 Gbit/s: capped at 64 KB
        assert_eq!(b.send_quantum(), Some(65_536));
    }

    #[test]
    fn target_window_is_cwnd_gain_times_bdp_plus_three_quanta() {
        // The ACK-aggregation allowance off (extra_acked_gain = 0): the draft's target.
        let mut p = Path::with_bbr(12_500_000, 20 * MS, bbr_with(0.0)); // 100 Mbit/s, BDP 250 kB
        p.fill_pipe();
        p.run_for(2000 * MS, 5 * MS);
        let b = &p.bbr;
        assert_eq!(b.mode(), Mode::ProbeBw);
        assert!(b.extra_acked() > 0, "the estimate is kept even when it is not used");
        assert_eq!(b.aggregation_cwnd(), 0);
        let bdp = b.btl_bw() as u128 * b.rtprop().unwrap() as u128 / 1_000_000_000;
        let q = b.send_quantum().unwrap();
        assert_eq!(b.window(), (2 * bdp as u64) + 3 * q, "cwnd = 2·BDP + 3 quanta");
    }

    #[test]
    fn target_window_adds_the_ack_aggregation_allowance_once_the_pipe_is_full() {
        // Linux bbr_set_cwnd: target = 2·BDP + extra_acked + 3 quanta.
        let mut p = Path::new(12_500_000, 20 * MS); // 100 Mbit/s: 12.5 kB per ms
        p.fill_pipe();
        // By hand: fill_pipe's last STARTUP round delivered a whole BDP (250 kB) in one ACK at
        // t0, starting an ACK epoch; its DRAIN ACK 5 ms later adds 1 kB against 5 ms × 12.5 kB
        // = 62.5 kB expected: extra = 251 000 − 62 500 = 188 500 B. From then on the scripted
        // ACKs arrive at exactly BtlBw, so acked − expected stays 188 500 and the epoch never
        // restarts (Linux restarts it only when the ACK rate falls to the model's): the
        // allowance stays 188.5 kB (below 100 ms of BtlBw, 1.25 MB) after 100 rounds.
        p.run_for(2000 * MS, 5 * MS);
        let b = &p.bbr;
        assert_eq!(b.extra_acked(), 188_500);
        assert_eq!(b.aggregation_cwnd(), 188_500);
        let bdp = b.btl_bw() as u128 * b.rtprop().unwrap() as u128 / 1_000_000_000;
        let q = b.send_quantum().unwrap();
        assert_eq!(b.window(), (2 * bdp as u64) + 188_500 + 3 * q, "cwnd = 2·BDP + extra_acked + 3 quanta");
    }

    #[test]
    fn smooth_acks_leave_only_one_ack_of_allowance_and_a_burst_expires_within_ten_rounds() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        // ACKs at 90 % of BtlBw, one per ms (11.25 kB each; the rate samples keep BtlBw at
        // 12.5 MB/s). The epoch fill_pipe's burst began (excess 188.5 kB, see above) shrinks by
        // 1.25 kB per ms and restarts after about 150 ms (7–8 rounds of 20 ms); from then on it
        // restarts on every ACK (acked 11.25 kB ≤ expected 12.5 kB), so each ACK's excess is its
        // own 11.25 kB. What the decaying epoch left is forgotten 5–10 rounds later: 20 rounds.
        let mut rounds_seen = 0;
        let start_round = p.bbr.round_count();
        while p.bbr.round_count() < start_round + 20 {
            let new_round = p.round_due();
            p.ack(Ack { dt: MS, bytes: 11_250, rate: Some(12_500_000), new_round, ..p.default_ack() });
            rounds_seen += new_round as u32;
        }
        assert!(rounds_seen >= 20);
        assert_eq!(p.bbr.extra_acked(), 11_250, "only one ACK's worth is left");
        let b = &p.bbr;
        let bdp = b.btl_bw() as u128 * b.rtprop().unwrap() as u128 / 1_000_000_000;
        assert_eq!(b.window(), 2 * bdp as u64 + 11_250 + 3 * b.send_quantum().unwrap());
        // A 30 ms silence, then the 30 ms of data in one stretch ACK: 375 kB in one epoch,
        // capped at cwnd (Linux: extra_acked = min(extra, cwnd)); the window grows by it.
        let before = p.bbr.window();
        p.ack(Ack { dt: 30 * MS, bytes: 375_000, rate: Some(12_500_000), ..p.default_ack() });
        assert_eq!(p.bbr.extra_acked(), 375_000.min(before));
        assert_eq!(p.bbr.aggregation_cwnd(), p.bbr.extra_acked());
        assert_eq!(p.bbr.window(), (before + 375_000).min(p.bbr.target()));
        assert!(p.bbr.window() > before, "the allowance opens the window for the next silence");
    }

    #[test]
    fn the_allowance_waits_for_the_pipe_to_be_full() {
        let mut p = Path::new(12_500_000, 20 * MS);
        // STARTUP: one ACK per round delivering the whole round; the estimate grows ...
        p.rounds(3, 1_000_000);
        assert!(p.bbr.extra_acked() > 0);
        assert!(!p.bbr.filled_pipe());
        // ... but bbr_ack_aggregation_cwnd is 0 until bbr_full_bw_reached.
        assert_eq!(p.bbr.aggregation_cwnd(), 0);
    }

    #[test]
    fn application_limited_samples_enter_the_filter_only_above_the_estimate() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        let bw = p.bbr.btl_bw();
        p.ack(Ack { rate: Some(bw / 2), app_limited: true, ..p.default_ack() });
        assert_eq!(p.bbr.btl_bw(), bw);
        p.ack(Ack { rate: Some(bw * 2), app_limited: true, ..p.default_ack() });
        assert_eq!(p.bbr.btl_bw(), bw * 2);
    }

    #[test]
    fn bandwidth_estimate_forgets_a_peak_after_ten_rounds() {
        let mut p = Path::new(12_500_000, 20 * MS);
        p.fill_pipe();
        p.rounds(1, 25_000_000);
        assert_eq!(p.bbr.btl_bw(), 25_000_000);
        p.rounds(9, 12_500_000);
        assert_eq!(p.bbr.btl_bw(), 25_000_000, "9 rounds later the peak is still in the window");
        p.rounds(1, 12_500_000);
        assert_eq!(p.bbr.btl_bw(), 12_500_000, "10 rounds later it is gone");
    }

    #[test]
    fn cwnd_is_never_zero_and_pacing_is_positive_under_random_events() {
        // Model-based fuzzing (STYLE: s2n-quic's fuzz target): random ACKs, losses, recoveries
        // and timeouts from a fixed seed; invariants after every operation.
        for seed in 1..=20u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut rnd = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let mut p = Path::new(1_000_000 + rnd(50_000_000), (1 + rnd(200)) * MS);
            for _ in 0..3000 {
                match rnd(20) {
                    0 => p.bbr.on_congestion_event(&LossEvent { now: p.now, flight_size: rnd(500_000), mss: 1000, during_recovery: false }),
                    1 => p.bbr.on_recovery_exit(p.now),
                    2 => p.bbr.on_rto(&LossEvent { now: p.now, flight_size: rnd(500_000), mss: 1000, during_recovery: rnd(2) == 0 }),
                    3 => p.bbr.on_packet_sent(p.now, 1000, rnd(3) * 1000),
                    _ => {
                        let a = Ack {
                            dt: rnd(30) * MS,
                            bytes: rnd(20_000),
                            rate: if rnd(4) == 0 { None } else { Some(rnd(100_000_000)) },
                            app_limited: rnd(5) == 0,
                            rtt: if rnd(3) == 0 { None } else { Some((1 + rnd(300)) * MS) },
                            in_flight: rnd(1_000_000),
                            prior_in_flight: None,
                            lost: if rnd(10) == 0 { rnd(10_000) } else { 0 },
                            new_round: rnd(3) == 0,
                        };
                        p.ack(a);
                    }
                }
                let b = &p.bbr;
                assert!(b.window() >= MSS, "seed {seed}: cwnd {}", b.window());
                let rate = b.pacing_rate().unwrap();
                assert!(rate > 0, "seed {seed}: pacing rate 0");
                assert!(b.send_quantum().unwrap() >= MSS);
            }
        }
    }
}
