//! wVegas: weighted Vegas, a delay-based coupled multipath controller.
//!
//! Sources: Y. Cao, M. Xu, X. Fu, "Delay-based congestion control for multipath TCP", IEEE
//! ICNP 2012 (the algorithm: Vegas per subflow with the total queueing budget split among the
//! subflows by rate); Linux out-of-tree MPTCP `net/mptcp/mptcp_wvegas.c` (the authors'
//! implementation: constants, order of the steps, integer arithmetic). Vegas itself as in
//! `cc/vegas.rs` (Brakmo & Peterson 1995). The paper is not among `../shared/seeds/`; the
//! rules are labelled (W1)–(W5) here rather than by the paper's equation numbers.
//!
//! Once per round trip, on subflow r, with BaseRTT_r its smallest RTT ever and rtt_r the mean
//! RTT of the round:
//!
//! ```text
//!   diff_r = W_r − W_r · BaseRTT_r / rtt_r        packets queued at the bottleneck   (W1)
//!   if diff_r ≥ α_r:  x_r = W_r / rtt_r,  weight_r = x_r / Σ_k x_k,                    (W2)
//!                     α_r = max(2, ⌊weight_r · total_alpha⌋)
//!   diff_r > α_r → W_r −= 1;   diff_r < α_r → W_r += 1                                 (W3)
//!   q_r = rtt_r − BaseRTT_r;  q̂_r = min q_r seen since the last drain;
//!   q_r ≥ 2·q̂_r → W_r = W_r · BaseRTT_r / (2·rtt_r)  (drain the queue), q̂_r reset     (W4)
//!   slow start: diff_r > gamma → W_r = min(W_r, ⌊W_r·BaseRTT_r/rtt_r⌋ + 1),            (W5)
//!               leave slow start
//! ```
//!
//! The subflows together keep total_alpha packets queued (10 in Linux), each a share
//! proportional to its rate, so the connection is as aggressive as one Vegas flow with alpha =
//! total_alpha wherever its subflows share a bottleneck. Losses halve the window (Reno).
//!
//! Interpretations (each a choice where the paper, Linux and this simulator differ):
//! - Defaults are Linux's module parameters: total_alpha 10, initial_alpha 2 (α_r at every
//!   (re)start), gamma 1. diff and α_r are integers as in Linux (⌊diff⌋ is compared), which
//!   gives the hold band α_r ≤ diff < α_r + 1; with real numbers (W3) would move the window
//!   every round. α_r's floor of 2 is Linux's constant (not initial_alpha).
//! - Weights (W2): Linux updates x_r, weight_r and α_r only in rounds where diff_r ≥ α_r, and
//!   sums the rates its peers last computed (those that have one); so do we, the peers' rates
//!   arriving through the views (`SubflowCcView::rate`, bytes per second; 0 = none). The sum
//!   includes this subflow's new rate. When no rate is known the weight stays (1 at start).
//! - Rounds, RTT samples, W and BaseRTT follow `cc/vegas.rs`: a round ends with the first ACK
//!   that delivers a segment sent after the round began (`AckEvent::round_ended`); BaseRTT is
//!   the all-time minimum (kept across restarts); W is the window at the start of the previous
//!   round (the one that produced the round's RTTs; Linux uses the current window). rtt_r is
//!   the round's mean RTT (Linux wVegas: `sampled_rtt / cnt_rtt`), unlike Vegas's minimum.
//!   x_r = W/rtt_r.
//! - With fewer than 3 RTT samples in a round the round is Reno's (tcp_vegas.c/mptcp_wvegas.c),
//!   counted as in `cc/vegas.rs`. Outside round ends the window grows only in slow start, on
//!   every cwnd-limited ACK (RFC 3465, L = 2; Linux `tcp_slow_start`); (W5) is tested at round
//!   ends only (Linux), without Vegas's every-other-round slow start.
//! - (W4) only when there is a queue (q_r > 0): Linux's test `q_delay >= 2 * queue_delay` also
//!   fires when q_r = 0 (then q̂_r = 0 too), which on a jitter-free simulated path would cut the
//!   window every round. The drained window is in whole packets, at least 2. ssthresh is kept,
//!   so a drain that takes the window below it restarts slow start, as in Linux (whose
//!   `tcp_current_ssthresh` keeps ssthresh at ≥ 3/4 of the window before the drain).
//! - A decrease (W3) sets ssthresh = min(ssthresh, cwnd), leaving slow start (as
//!   `cc/vegas.rs`); (W5) likewise. An increase needs the round to have been cwnd-limited
//!   (RFC 7661, as `cc/vegas.rs`). A wVegas decision never leaves cwnd below 2 packets.
//! - Loss is Reno's (Linux `.ssthresh = tcp_reno_ssthresh`): ssthresh = max(FlightSize/2,
//!   2·SMSS), cwnd = ssthresh, no wVegas decision in recovery; an RTO sets 1 SMSS. Leaving
//!   recovery and an RTO re-enable wVegas as Linux `wvegas_enable` (on the return to the Open
//!   state): a fresh round, α_r = initial_alpha, weight 1, no rate, no queue estimate.
//! - Sending into an empty pipe starts a fresh round (as `cc/vegas.rs`), so a decision never
//!   mixes RTTs from before an idle period; α_r, the weight and the rate are kept. Linux
//!   resets wVegas entirely (BaseRTT too) only after an idle period longer than the RTO
//!   (`CA_EVENT_CWND_RESTART`), which the controller cannot see; a streaming sender that
//!   empties its pipe often would otherwise lose its weight every few rounds.

use super::{Peers, SubflowCcView, Window};
use crate::cc::options::OptValue;
use crate::cc::{AckEvent, CcParams, CongestionControl, LossEvent, Options};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;
use serde::Serialize;

/// mptcp_wvegas.c: with ≤ 2 RTT samples in a round the ACKs are probably delayed; use Reno.
const MIN_SAMPLES_PER_ROUND: u32 = 3;
/// mptcp_wvegas.c: a wVegas decision never leaves cwnd below 2 packets.
const MIN_CWND_SEGMENTS: u64 = 2;
/// mptcp_wvegas.c: α_r = max(2U, weight·total_alpha) packets.
const MIN_ALPHA: f64 = 2.0;

/// wVegas options, in packets (Linux module parameters).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WvegasConfig {
    /// Packets the connection keeps queued, split among subflows by rate.
    pub total_alpha: f64,
    /// α_r of a subflow before its first weight update.
    pub initial_alpha: f64,
    /// Slow-start exit threshold.
    pub gamma: f64,
}

impl Default for WvegasConfig {
    fn default() -> Self {
        Self { total_alpha: 10.0, initial_alpha: 2.0, gamma: 1.0 }
    }
}

impl Options for WvegasConfig {
    const NAMES: &'static [&'static str] = &["total_alpha", "initial_alpha", "gamma"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "total_alpha" => self.total_alpha = v.number(0.0, 1000.0)?,
            "initial_alpha" => self.initial_alpha = v.number(0.0, 100.0)?,
            "gamma" => self.gamma = v.number(0.0, 100.0)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// A subflow's share of the connection's rate (W2): its rate over the sum of its own and its
/// peers' rates (bytes per second); None when there is none to share.
pub fn rate_share(own_rate: f64, peers_rate: f64) -> Option<f64> {
    let total = own_rate + peers_rate;
    (own_rate > 0.0 && total > 0.0).then(|| own_rate / total)
}

#[derive(Clone, Debug)]
pub struct Wvegas {
    w: Window,
    total_alpha: f64,
    initial_alpha: f64,
    gamma: f64,
    /// α_r in packets, weight_r and x_r (bytes per second, 0 = none).
    alpha: f64,
    weight: f64,
    rate: f64,
    /// q̂_r: the smallest positive queueing delay since the last drain (0 = none).
    queue_delay: Time,
    /// BaseRTT: the smallest RTT ever measured; Time::MAX before the first sample.
    base_rtt: Time,
    /// The current round: Σ and count of its RTT samples, C.delivered at its start, whether
    /// the window limited sending in it, the windows at its start and at the previous one's.
    round_rtt_sum: Time,
    round_samples: u32,
    round_start_delivered: u64,
    round_cwnd_limited: bool,
    cwnd_round_start: u64,
    cwnd_prev_round_start: u64,
    /// RFC 3465 counter for the Reno rounds in congestion avoidance.
    reno_bytes_acked: u64,
    /// C.delivered as of the last ACK, to start rounds outside `on_ack`.
    delivered_seen: u64,
    /// ⌊diff⌋ of the last decision, for tests and traces.
    last_diff: Option<u64>,
}

impl Wvegas {
    pub fn new(p: CcParams, cfg: &WvegasConfig) -> Self {
        let w = Window::new(p);
        let cwnd = w.cwnd;
        Wvegas {
            w,
            total_alpha: cfg.total_alpha,
            initial_alpha: cfg.initial_alpha,
            gamma: cfg.gamma,
            alpha: cfg.initial_alpha,
            weight: 1.0,
            rate: 0.0,
            queue_delay: 0,
            base_rtt: Time::MAX,
            round_rtt_sum: 0,
            round_samples: 0,
            round_start_delivered: 0,
            round_cwnd_limited: false,
            cwnd_round_start: cwnd,
            cwnd_prev_round_start: cwnd,
            reno_bytes_acked: 0,
            delivered_seen: 0,
            last_diff: None,
        }
    }

    /// α_r (packets), weight_r and x_r (bytes per second) as of the last update.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn weight(&self) -> f64 {
        self.weight
    }

    pub fn rate(&self) -> f64 {
        self.rate
    }

    pub fn base_rtt(&self) -> Option<Time> {
        (self.base_rtt != Time::MAX).then_some(self.base_rtt)
    }

    /// ⌊diff⌋ (packets queued) of the last decision.
    pub fn last_diff(&self) -> Option<u64> {
        self.last_diff
    }

    pub fn in_slow_start(&self) -> bool {
        self.w.in_slow_start()
    }

    pub fn peers(&self) -> &Peers {
        &self.w.peers
    }

    /// Linux `wvegas_enable`: a fresh round, α_r = initial_alpha, weight 1, no rate, no queue
    /// estimate (BaseRTT kept, see the header).
    fn enable(&mut self) {
        self.alpha = self.initial_alpha;
        self.weight = 1.0;
        self.rate = 0.0;
        self.queue_delay = 0;
        self.restart_round();
    }

    /// Start a fresh round now, with no samples.
    fn restart_round(&mut self) {
        self.round_start_delivered = self.delivered_seen;
        self.round_rtt_sum = 0;
        self.round_samples = 0;
        self.round_cwnd_limited = false;
        self.cwnd_round_start = self.w.cwnd;
        self.cwnd_prev_round_start = self.w.cwnd;
        self.reno_bytes_acked = 0;
    }

    fn floor_cwnd(&mut self) {
        self.w.cwnd = self.w.cwnd.max(MIN_CWND_SEGMENTS * self.w.mss);
    }

    /// The once-per-round decision, on the ACK that ends the round.
    fn end_round(&mut self, ev: &AckEvent) {
        let mss = self.w.mss;
        if self.round_samples < MIN_SAMPLES_PER_ROUND {
            // Reno for this round.
            if self.w.in_slow_start() {
                if ev.cwnd_limited {
                    self.w.slow_start(ev.bytes_acked);
                }
            } else if self.reno_bytes_acked >= self.w.cwnd {
                self.reno_bytes_acked -= self.w.cwnd;
                self.w.cwnd = self.w.cwnd.saturating_add(mss);
            }
        } else {
            self.reno_bytes_acked = 0;
            let rtt = (self.round_rtt_sum / self.round_samples as Time).max(1);
            let base = self.base_rtt.min(rtt);
            let w = self.cwnd_prev_round_start as f64 / mss as f64;
            // (W1), truncated as Linux's integer diff.
            let diff = (w * (rtt - base) as f64 / rtt as f64).floor() as u64;
            self.last_diff = Some(diff);
            if self.w.in_slow_start() {
                if diff as f64 > self.gamma {
                    // (W5)
                    let target = (w * base as f64 / rtt as f64).floor() as u64 + 1;
                    self.w.cwnd = self.w.cwnd.min(target.saturating_mul(mss));
                    self.floor_cwnd();
                    self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd);
                } else if ev.cwnd_limited {
                    self.w.slow_start(ev.bytes_acked);
                }
            } else {
                if diff as f64 >= self.alpha {
                    // (W2)
                    // Whole bytes per second: the value the peers see in the view.
                    self.rate = (self.cwnd_prev_round_start as f64 * SECOND as f64 / rtt as f64).floor();
                    if let Some(share) = rate_share(self.rate, self.w.peers.sum_rate) {
                        self.weight = share;
                    }
                    self.alpha = (self.weight * self.total_alpha).floor().max(MIN_ALPHA);
                }
                // (W3)
                if diff as f64 > self.alpha {
                    self.w.cwnd = self.w.cwnd.saturating_sub(mss);
                    self.floor_cwnd();
                    self.w.ssthresh = self.w.ssthresh.min(self.w.cwnd);
                } else if (diff as f64) < self.alpha && self.round_cwnd_limited {
                    self.w.cwnd = self.w.cwnd.saturating_add(mss);
                }
                // (W4)
                let q = rtt - base;
                if q > 0 {
                    if self.queue_delay == 0 || self.queue_delay > q {
                        self.queue_delay = q;
                    }
                    if q >= self.queue_delay.saturating_mul(2) {
                        let pkts = (self.w.cwnd / mss) as f64 * base as f64 / (2.0 * rtt as f64);
                        self.w.cwnd = (pkts.floor() as u64).max(MIN_CWND_SEGMENTS).saturating_mul(mss);
                        self.queue_delay = 0;
                    }
                }
            }
            self.floor_cwnd();
        }
        self.round_start_delivered = ev.delivered_total;
        self.round_rtt_sum = 0;
        self.round_samples = 0;
        self.round_cwnd_limited = false;
        self.cwnd_prev_round_start = self.cwnd_round_start;
        self.cwnd_round_start = self.w.cwnd;
    }
}

impl CongestionControl for Wvegas {
    window_answers!();
    /// Counts rounds with `AckEvent::prior_delivered` and reads no other part of a rate sample.
    fn reads_rate_samples(&self) -> bool {
        false
    }
    fn counts_rounds(&self) -> bool {
        true
    }

    fn on_packet_sent(&mut self, _now: Time, bytes: u32, in_flight: u64) {
        // Sending into an empty pipe: an idle restart (see the header).
        if in_flight <= bytes as u64 && !self.w.in_recovery() {
            self.restart_round();
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        self.delivered_seen = self.delivered_seen.max(ev.delivered_total);
        let was_recovering = self.w.in_recovery();
        let may_grow = self.w.on_ack(ev);
        if was_recovering && !self.w.in_recovery() {
            // Recovery ended without `on_recovery_exit`.
            self.enable();
        }
        if let Some(r) = ev.rtt_sample {
            let r = r.max(1);
            self.base_rtt = self.base_rtt.min(r);
            self.round_rtt_sum = self.round_rtt_sum.saturating_add(r);
            self.round_samples = self.round_samples.saturating_add(1);
        }
        if ev.in_recovery {
            return;
        }
        self.round_cwnd_limited |= ev.cwnd_limited;
        if !self.w.in_slow_start() && ev.cwnd_limited {
            self.reno_bytes_acked = self.reno_bytes_acked.saturating_add(ev.bytes_acked);
        }
        let round_ends = ev.round_ended(self.round_start_delivered);
        if round_ends {
            self.end_round(ev);
        } else if may_grow && self.w.in_slow_start() {
            self.w.slow_start(ev.bytes_acked);
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.w.enter_recovery(self.w.halve(ev.flight_size));
        self.reno_bytes_acked = 0;
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        if self.w.in_recovery() {
            self.w.exit_recovery();
            self.enable();
        }
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        self.w.timeout(ev, |w| w.halve(ev.flight_size));
        self.enable();
    }

    fn coupled_view(&self) -> Option<SubflowCcView> {
        Some(SubflowCcView { rate: self.rate.min(u64::MAX as f64) as u64, ..self.w.view() })
    }

    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.w.peers = Peers::of(views, me);
    }
}
