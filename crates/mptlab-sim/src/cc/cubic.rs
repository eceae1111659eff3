//! CUBIC congestion control (RFC 9438) with HyStart++ slow start (RFC 9406, `hystart.rs`) or
//! Linux's HyStart (`hystart_linux.rs`).
//!
//! The model. After a congestion event the window follows a cubic function of the time t since
//! the current congestion-avoidance stage (the "epoch") began, in segments:
//!
//! ```text
//!   W_cubic(t) = C·(t − K)³ + W_max                    eq. (1): RFC 9438 §4.2, Figure 1
//!   K = ∛((W_max − cwnd_epoch) / C)                    eq. (2): §4.2, Figure 2
//!     = ∛(W_max·(1 − β_cubic) / C)   when cwnd_epoch = β_cubic·W_max
//!
//!   cwnd ▲                                                      ╱ convex: probing
//!        │                                                    ╱   beyond W_max
//!  W_max ┼ · · · · · · · · · · · · · · · ·─────────────────────
//!        │                       ____─────   plateau around t = K
//!        │              ___───‾‾‾
//!        │        __──‾‾  concave: approaching W_max
//!        │    _─‾‾
//!        │ _─‾ cwnd_epoch = β·W_max at t = 0
//!        └──────────────────────────────────────────────────────────────▶ t
//! ```
//!
//! Per ACK in congestion avoidance (§4.2–§4.5): target = W_cubic(t + RTT) clamped to
//! [cwnd, 1.5·cwnd]; cwnd += (target − cwnd)/cwnd per acknowledged segment. In parallel a Reno
//! estimate W_est += α_cubic·segments_acked/cwnd with α_cubic = 3(1 − β)/(1 + β) (§4.3), starting
//! at cwnd_epoch; when W_cubic(t) < W_est the sender is in the Reno-friendly region and cwnd
//! follows W_est. On a congestion event (§4.6, Figure 5) ssthresh = FlightSize·β_cubic (at least
//! 2 SMSS; see below for the cap at cwnd), cwnd = ssthresh, W_max = cwnd before the reduction,
//! lowered to cwnd·(1 + β)/2 by fast convergence (§4.7) when the window had not regained the
//! previous W_max. β_cubic = 0.7, C = 0.4 segments/s³ by default (`CubicConfig`).
//!
//! States (STYLE.md "State machines": legal transitions asserted in debug builds, every change
//! recorded by the sender through `state_name`). What moves the connection from a row's state to
//! a column's:
//!
//! ```text
//!   from \ to             slow_start        css            congestion_avoidance   recovery
//!   slow_start            timeout           delay rise     cwnd reaches ssthresh  loss
//!   css                   RTT back below    -              CSS_ROUNDS rounds      loss
//!                         baseline; timeout                (ssthresh = cwnd)
//!   congestion_avoidance  timeout           -              -                      loss
//!   recovery              timeout           -              recovery exit          -
//! ```
//!
//! Interpretations, where the RFCs leave a choice or the simulator needs one:
//! - Units: the curve works in segments (C is in segments/s³, §4.1.2); cwnd is kept in bytes as
//!   an f64 so that sub-byte increments accumulate; `window()` is its floor. segments_acked =
//!   bytes_acked / SMSS (RFC 3465 byte counting, as `reno.rs`), so delayed or stretch ACKs grow
//!   the window by what they cover. A stretch ACK covering more than a window counts as one
//!   window: the cubic step is capped at target − cwnd, the Reno estimate's at α_cubic.
//! - RTT in the target: the smoothed RTT (§4.2: "RTT is the smoothed round-trip time"), the
//!   minimum RTT before the first sample. (Linux uses its minimum RTT, `delay_min`.)
//! - Epoch: t_epoch is the first ACK processed in congestion avoidance — after fast recovery
//!   ends, after slow start reaches ssthresh, or the ACK on which HyStart++ ends CSS — so time
//!   spent in recovery is not on the curve (as Linux, `epoch_start` at the first ACK).
//! - Application-limited periods (§5.8, §4.2 "t MUST NOT include periods during which cwnd has
//!   not been updated due to application-limited behavior"): no growth on ACKs that find the
//!   sender not cwnd-limited (RFC 7661, `AckEvent::cwnd_limited`), and t_epoch is moved forward
//!   by the time from the first such ACK (or from the last ACK, when a send finds the pipe empty
//!   after idle, Linux's CA_EVENT_TX_START) to the next cwnd-limited ACK.
//! - Reno-friendly region (§4.3): W_est is updated on every congestion-avoidance ACK; α_cubic
//!   becomes 1 once W_est ≥ cwnd_prior (the SHOULD of §4.3); in the region (W_cubic(t) < W_est)
//!   cwnd = max(cwnd after the cubic step, W_est), so an ACK never shrinks the window (§4.2: "CUBIC
//!   ... chooses the larger of the two values").
//! - Multiplicative decrease (§4.6): ssthresh = β·min(FlightSize, cwnd), at least 2 SMSS, and
//!   cwnd = ssthresh at once (no PRR). Figure 5 uses FlightSize; the cap at cwnd keeps a
//!   congestion signal from ever raising the window (FlightSize, which includes SACKed bytes, can
//!   exceed cwnd right after an earlier reduction). As the transport never grows a window that
//!   is not cwnd-limited, the two bases agree whenever the window was in use (§4.6 requires such
//!   a measure of implementations that use cwnd).
//! - Fast convergence (§4.7) compares cwnd before the reduction with the W_max in force: that of
//!   the previous congestion event, or cwnd_epoch when the epoch started with W_max undefined.
//! - Timeout (§4.8): ssthresh as in §4.6 unless the timeout hits while a congestion event is
//!   being recovered (`LossEvent::during_recovery`: that event has reduced ssthresh already, as
//!   Linux); cwnd = 1 SMSS (RFC 5681's loss window); cwnd_prior = cwnd before the timeout when
//!   ssthresh is set (§4.1.2: cwnd "at the time of setting ssthresh most recently"); W_max becomes
//!   undefined, so the first epoch after the timeout has K = 0, W_max = W_est = cwnd_epoch.
//! - Slow start (§4.10): with `hystart`, HyStart++ governs the initial slow start (growth
//!   min(N, L·SMSS) with L = 8, RFC 9406 §4.3 for a sender that does not pace; a quarter of it in
//!   CSS); when CSS ends without loss, ssthresh = cwnd, cwnd_prior = cwnd and the epoch starts
//!   with K = 0, W_max = cwnd_epoch (§4.10). Slow starts after a timeout, and every slow start
//!   when `hystart` is off, are standard (RFC 5681, RFC 3465 L = 2 as in `reno.rs`) and end only
//!   at ssthresh or on a loss. With `hystart_variant = "linux"`, Linux's `tcp_cubic` HyStart
//!   (`hystart_linux.rs`) watches every slow start instead (re-armed by a timeout, as Linux
//!   resets CUBIC then): growth is the standard one, and its ACK-train or delay test ends slow
//!   start at once (ssthresh = cwnd, the same K = 0 epoch), without CSS.
//! - K (§4.2, Figure 2) is computed with the signed cube root, so the curve passes through
//!   cwnd_epoch at t = 0 whatever the sign of W_max − cwnd_epoch.
//! - Not implemented: spurious-congestion undo (§4.9), ECN (§4.6's ECE case), PRR.

use super::hystart::{self, HyStart};
use super::hystart_linux::LinuxHyStart;
use super::options::OptValue;
use super::{AckEvent, CcParams, CongestionControl, LossEvent, Options};
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;
use serde::Serialize;

/// CUBIC options (RFC 9438): each mechanism can be switched off in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CubicConfig {
    /// RFC 9438 §4.7 fast convergence.
    pub fast_convergence: bool,
    /// RFC 9438 §4.3 Reno-friendly region.
    pub reno_friendly: bool,
    /// A delay-based slow-start exit (HyStart).
    pub hystart: bool,
    /// Which one: RFC 9406's HyStart++ (`rfc9406`, the default) or Linux's `tcp_cubic` HyStart
    /// (`linux`: ACK train and delay against the connection's minimum RTT; `hystart_linux.rs`).
    pub hystart_variant: HyStartVariant,
    /// RFC 9438 §4.2 C (segments / s^3).
    pub c: f64,
    /// RFC 9438 §4.6 beta_cubic.
    pub beta: f64,
}

/// The slow-start exit `hystart` turns on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HyStartVariant {
    Rfc9406,
    Linux,
}

impl Default for CubicConfig {
    fn default() -> Self {
        Self {
            fast_convergence: true,
            reno_friendly: true,
            hystart: true,
            hystart_variant: HyStartVariant::Rfc9406,
            c: 0.4,
            beta: 0.7,
        }
    }
}

impl Options for CubicConfig {
    const NAMES: &'static [&'static str] =
        &["fast_convergence", "reno_friendly", "hystart", "hystart_variant", "c", "beta"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "fast_convergence" => self.fast_convergence = v.boolean()?,
            "reno_friendly" => self.reno_friendly = v.boolean()?,
            "hystart" => self.hystart = v.boolean()?,
            "hystart_variant" => {
                self.hystart_variant = match v.string()? {
                    "rfc9406" => HyStartVariant::Rfc9406,
                    "linux" => HyStartVariant::Linux,
                    other => return Err(format!("unknown HyStart variant `{other}` (valid: rfc9406, linux)")),
                }
            }
            "c" => self.c = v.number(0.01, 10.0)?,
            "beta" => self.beta = v.number(0.1, 0.95)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// RFC 3465 §2.2: L = 2 SMSS, the growth limit per ACK of a standard slow start.
const ABC_LIMIT_SEGMENTS: u64 = 2;
/// Largest window, bytes (1 TiB): keeps the window finite after arbitrarily long lossless runs.
const MAX_CWND: f64 = (1u64 << 40) as f64;
/// The target's upper bound (§4.2): at most 1.5·cwnd, i.e. never faster than slow start's
/// doubling per RTT with delayed ACKs.
const TARGET_MAX_RATIO: f64 = 1.5;

/// CUBIC's states (`state_name` gives their trace names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Standard slow start, or HyStart++'s slow start watching the RTT.
    SlowStart,
    /// HyStart++ Conservative Slow Start (RFC 9406 §4.2).
    Css,
    /// Window growth on the cubic curve or the Reno estimate (RFC 9438 §4.2–§4.5).
    CongestionAvoidance,
    /// Fast recovery after a congestion event: no growth.
    Recovery,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::SlowStart => "slow_start",
            State::Css => "css",
            State::CongestionAvoidance => "congestion_avoidance",
            State::Recovery => "recovery",
        }
    }

    /// The transition table in the header comment.
    fn may_become(self, next: State) -> bool {
        use State::*;
        matches!(
            (self, next),
            (_, SlowStart) // a timeout, from anywhere; CSS back to slow start (spurious exit)
                | (SlowStart, Css)
                | (SlowStart | Css, CongestionAvoidance)
                | (SlowStart | Css | CongestionAvoidance, Recovery)
                | (Recovery, CongestionAvoidance)
        )
    }
}

/// One congestion-avoidance stage (§4.1.2's t_epoch, cwnd_epoch, K, W_max, W_est), segments and
/// seconds.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    /// t_epoch, moved forward over application-limited periods.
    start: Time,
    k: f64,
    w_max: f64,
    w_est: f64,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    c: f64,
    beta: f64,
    /// α_cubic = 3(1 − β)/(1 + β) (§4.3).
    alpha: f64,
    fast_convergence: bool,
    reno_friendly: bool,
    mss: u64,
    state: State,
    /// Bytes, with fractions.
    cwnd: f64,
    ssthresh: u64,
    hystart: HyStart,
    /// Linux's HyStart, when `hystart_variant = "linux"` (then `hystart` above is off).
    linux_hystart: LinuxHyStart,
    /// W_max in segments; None while undefined (before any congestion event, or after a timeout
    /// or a lossless HyStart++ exit): the next epoch then starts with K = 0, W_max = cwnd_epoch.
    w_max: Option<f64>,
    /// cwnd_prior in segments (§4.1.2).
    cwnd_prior: f64,
    epoch: Option<Epoch>,
    /// Start of the current application-limited period, while one lasts.
    app_limited_since: Option<Time>,
    last_ack_at: Option<Time>,
}

impl Cubic {
    pub fn new(p: CcParams, cfg: &CubicConfig) -> Self {
        let mss = p.mss.max(1) as u64;
        Self {
            c: cfg.c,
            beta: cfg.beta,
            alpha: 3.0 * (1.0 - cfg.beta) / (1.0 + cfg.beta),
            fast_convergence: cfg.fast_convergence,
            reno_friendly: cfg.reno_friendly,
            mss,
            state: State::SlowStart,
            cwnd: ((p.initial_cwnd_segments.max(1) as u64 * mss) as f64).min(MAX_CWND),
            ssthresh: u64::MAX,
            hystart: HyStart::new(cfg.hystart && cfg.hystart_variant == HyStartVariant::Rfc9406),
            linux_hystart: LinuxHyStart::new(cfg.hystart && cfg.hystart_variant == HyStartVariant::Linux),
            w_max: None,
            cwnd_prior: 0.0,
            epoch: None,
            app_limited_since: None,
            last_ack_at: None,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// W_max in segments, once defined.
    pub fn w_max_segments(&self) -> Option<f64> {
        self.w_max
    }

    /// cwnd_prior in segments.
    pub fn cwnd_prior_segments(&self) -> f64 {
        self.cwnd_prior
    }

    /// The current epoch's K (seconds) and t_epoch, once congestion avoidance has begun.
    pub fn epoch(&self) -> Option<(f64, Time)> {
        self.epoch.map(|e| (e.k, e.start))
    }

    /// The Reno estimate W_est of the current epoch, segments.
    pub fn w_est_segments(&self) -> Option<f64> {
        self.epoch.map(|e| e.w_est)
    }

    /// W_cubic(t) of the current epoch, segments, t in seconds since t_epoch.
    pub fn w_cubic(&self, t: f64) -> Option<f64> {
        self.epoch.map(|e| self.curve(&e, t))
    }

    fn curve(&self, e: &Epoch, t: f64) -> f64 {
        // Figure 1
        let d = t - e.k;
        self.c * d * d * d + e.w_max
    }

    fn in_slow_start(&self) -> bool {
        self.window() < self.ssthresh
    }

    fn transition_to(&mut self, next: State) {
        if next == self.state {
            return;
        }
        debug_assert!(self.state.may_become(next), "cubic: illegal transition {:?} → {:?}", self.state, next);
        self.state = next;
    }

    /// The state that the window and ssthresh imply outside recovery and CSS.
    fn open_state(&self) -> State {
        if self.in_slow_start() {
            State::SlowStart
        } else {
            State::CongestionAvoidance
        }
    }

    fn start_epoch(&mut self, now: Time) -> Epoch {
        let cwnd_epoch = self.cwnd / self.mss as f64;
        // §4.8 / §4.10: W_max undefined → K = 0, W_max = cwnd_epoch.
        let w_max = *self.w_max.get_or_insert(cwnd_epoch);
        // Figure 2 (signed cube root).
        let k = ((w_max - cwnd_epoch) / self.c).cbrt();
        // §4.3: "W_est is set equal to cwnd_epoch at the start of the congestion avoidance stage".
        Epoch { start: now, k, w_max, w_est: cwnd_epoch }
    }

    /// End of the epoch: a congestion event, a timeout or a lossless end of slow start.
    fn end_epoch(&mut self) {
        self.epoch = None;
        self.app_limited_since = None;
    }

    /// RFC 9406: CSS_ROUNDS rounds done without loss → ssthresh = cwnd; RFC 9438 §4.10:
    /// cwnd_prior = cwnd, and the next epoch has K = 0 and W_max = cwnd_epoch.
    fn end_slow_start_without_loss(&mut self) {
        self.ssthresh = self.window().max(2 * self.mss);
        self.cwnd_prior = self.cwnd / self.mss as f64;
        self.w_max = None;
        self.end_epoch();
        self.transition_to(self.open_state());
    }

    /// ssthresh of §4.6 Figure 5 (see the header on the base): β·min(FlightSize, cwnd) ≥ 2 SMSS.
    fn reduced_ssthresh(&self, flight_size: u64) -> u64 {
        let base = (flight_size as f64).min(self.cwnd);
        ((base * self.beta) as u64).max(2 * self.mss)
    }

    fn slow_start(&mut self, ev: &AckEvent) {
        let l = if self.hystart.is_active() { hystart::L_UNPACED } else { ABC_LIMIT_SEGMENTS };
        let inc = ev.bytes_acked.min(l * self.mss) as f64 / self.hystart.growth_divisor() as f64;
        self.cwnd = (self.cwnd + inc).min(self.ssthresh as f64).min(MAX_CWND);
        if !self.in_slow_start() {
            self.transition_to(State::CongestionAvoidance);
        }
    }

    fn congestion_avoidance(&mut self, ev: &AckEvent) {
        let now = ev.now;
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        let mss = self.mss as f64;
        let cwnd = self.cwnd / mss;
        let acked = ev.bytes_acked as f64 / mss;
        let t = now.saturating_sub(e.start) as f64 / SECOND as f64;
        let rtt = if ev.srtt > 0 { ev.srtt } else { ev.min_rtt };
        let rtt = rtt as f64 / SECOND as f64;

        // §4.2: target = W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd]; §4.4/§4.5: cwnd grows by
        // (target − cwnd)/cwnd per acknowledged segment.
        let target = self.curve(&e, t + rtt).clamp(cwnd, TARGET_MAX_RATIO * cwnd);
        let mut next = cwnd + ((target - cwnd) * acked / cwnd).min(target - cwnd);

        // §4.3: the Reno estimate, α_cubic → 1 once W_est reaches cwnd_prior. Like Reno's own
        // byte counting (RFC 3465), an ACK counts for at most one window.
        if self.reno_friendly {
            let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { self.alpha };
            e.w_est += alpha * acked.min(cwnd) / cwnd;
            if self.curve(&e, t) < e.w_est {
                next = next.max(e.w_est);
            }
        }
        self.cwnd = (next * mss).min(MAX_CWND);
        self.epoch = Some(e);
    }
}

impl CongestionControl for Cubic {
    /// Counts rounds with `AckEvent::prior_delivered` and reads no other part of a rate sample.
    fn reads_rate_samples(&self) -> bool {
        false
    }
    fn counts_rounds(&self) -> bool {
        true
    }
    fn on_packet_sent(&mut self, _now: Time, bytes: u32, in_flight: u64) {
        // Restarting into an empty pipe after idle (Linux CA_EVENT_TX_START): the idle time since
        // the last ACK is application-limited (§5.8), unless a period is already open.
        if in_flight <= bytes as u64 && self.epoch.is_some() && self.app_limited_since.is_none() {
            self.app_limited_since = self.last_ack_at;
        }
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if self.state == State::Recovery && !ev.in_recovery {
            // The transport left recovery without `on_recovery_exit`: follow it.
            self.on_recovery_exit(ev.now);
        }
        self.last_ack_at = Some(ev.now);
        if ev.in_recovery {
            return; // RFC 6675 / RFC 6582: no growth while recovering
        }
        if self.hystart.is_active() && self.in_slow_start() {
            match self.hystart.on_ack(ev) {
                hystart::Phase::SlowStart => self.transition_to(State::SlowStart),
                hystart::Phase::Css => self.transition_to(State::Css),
                hystart::Phase::Done => self.end_slow_start_without_loss(),
            }
        }
        if self.linux_hystart.is_active()
            && self.in_slow_start()
            && self.linux_hystart.on_ack(ev, self.window() / self.mss).is_some()
        {
            self.end_slow_start_without_loss();
        }
        if !ev.cwnd_limited {
            // §5.8: no growth, and the curve's clock stops (see the header).
            if self.epoch.is_some() && self.app_limited_since.is_none() {
                self.app_limited_since = Some(ev.now);
            }
            return;
        }
        if let Some(since) = self.app_limited_since.take() {
            if let Some(e) = self.epoch.as_mut() {
                e.start = (e.start + ev.now.saturating_sub(since)).min(ev.now);
            }
        }
        if ev.bytes_acked == 0 {
            return;
        }
        if self.in_slow_start() {
            self.slow_start(ev);
        } else {
            self.congestion_avoidance(ev);
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        let cwnd = self.cwnd / self.mss as f64;
        // §4.7: fast convergence lowers W_max when the window did not regain the last one.
        self.w_max = Some(match self.w_max {
            Some(prev) if self.fast_convergence && cwnd < prev => cwnd * (1.0 + self.beta) / 2.0,
            _ => cwnd,
        });
        // §4.6 Figure 5.
        self.cwnd_prior = cwnd;
        self.ssthresh = self.reduced_ssthresh(ev.flight_size);
        self.cwnd = self.ssthresh as f64;
        self.hystart.disable();
        self.end_epoch();
        self.transition_to(State::Recovery);
    }

    fn on_recovery_exit(&mut self, _now: Time) {
        if self.state == State::Recovery {
            self.transition_to(self.open_state());
        }
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        // §4.8: Reno's loss window, §4.6's ssthresh (once per congestion event).
        if !ev.during_recovery || self.ssthresh == u64::MAX {
            self.ssthresh = self.reduced_ssthresh(ev.flight_size);
            self.cwnd_prior = self.cwnd / self.mss as f64;
        }
        self.w_max = None;
        self.cwnd = self.mss as f64;
        self.hystart.disable();
        self.linux_hystart.rearm(); // Linux bictcp_reset on CA_EVENT_LOSS
        self.end_epoch();
        self.transition_to(State::SlowStart);
    }

    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn state_name(&self) -> &'static str {
        self.state.name()
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

    fn cubic_with(cfg: CubicConfig) -> Cubic {
        Cubic::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, &cfg)
    }

    fn cubic() -> Cubic {
        cubic_with(CubicConfig::default())
    }

    /// The window in segments, fractions included.
    fn segs(c: &Cubic) -> f64 {
        c.cwnd / M as f64
    }

    fn secs(t: Time) -> f64 {
        t as f64 / SECOND as f64
    }

    /// An ACK-clocked flow without a bottleneck: ACKs of `per_ack` segments arrive evenly spread,
    /// one window per RTT (the next ACK comes per_ack·SMSS·RTT/cwnd after the previous one), each
    /// for a segment sent one RTT earlier (its rate sample's prior_delivered is C.delivered as it
    /// was then, so HyStart++'s rounds last one RTT).
    struct Fluid {
        now: Time,
        delivered: u64,
        /// (time, C.delivered after the ACK at that time)
        history: VecDeque<(Time, u64)>,
        min_rtt: Time,
        per_ack: u64,
        cwnd_limited: bool,
    }

    impl Fluid {
        fn new() -> Self {
            Self { now: 0, delivered: 0, history: VecDeque::new(), min_rtt: Time::MAX, per_ack: 2, cwnd_limited: true }
        }

        fn ack(&mut self, c: &mut Cubic, rtt: Time) {
            let bytes = self.per_ack * M;
            let cwnd = c.window().max(M);
            self.now += ((bytes as u128 * rtt as u128) / cwnd as u128).max(1) as Time;
            let sent_at = self.now.saturating_sub(rtt);
            let i = self.history.partition_point(|&(t, _)| t <= sent_at);
            let prior = if i == 0 { 0 } else { self.history[i - 1].1 };
            self.delivered += bytes;
            self.history.push_back((self.now, self.delivered));
            while self.history.len() > 1 && self.history[1].0 + SECOND < self.now {
                self.history.pop_front();
            }
            self.min_rtt = self.min_rtt.min(rtt);
            c.on_ack(&AckEvent {
                now: self.now,
                bytes_acked: bytes,
                bytes_delivered: bytes,
                rtt_sample: Some(rtt),
                srtt: rtt,
                min_rtt: self.min_rtt,
                prior_in_flight: cwnd,
                in_flight: cwnd.saturating_sub(bytes),
                cwnd_limited: self.cwnd_limited,
                mss: MSS,
                delivered_total: self.delivered,
                rate: Some(RateSample { prior_delivered: prior, delivered: self.delivered - prior, rtt, ..Default::default() }),
                prior_delivered: Some(prior),
                ..Default::default()
            });
        }

        /// ACKs at a constant RTT for `dur`.
        fn run(&mut self, c: &mut Cubic, rtt: Time, dur: Time) {
            let end = self.now + dur;
            while self.now < end {
                self.ack(c, rtt);
            }
        }

        fn grow_to(&mut self, c: &mut Cubic, rtt: Time, segments: u64) {
            while c.window() < segments * M {
                self.ack(c, rtt);
            }
        }

        /// Slow start to `segments`, a loss there, one RTT of recovery: the start of a CUBIC epoch.
        fn lose_at(&mut self, c: &mut Cubic, rtt: Time, segments: u64) {
            self.grow_to(c, rtt, segments);
            self.loss(c);
            self.recover(c, rtt);
        }

        /// Fast recovery entered with the whole window outstanding.
        fn loss(&mut self, c: &mut Cubic) {
            c.on_congestion_event(&LossEvent { now: self.now, flight_size: c.window(), mss: MSS, during_recovery: false });
        }

        /// A recovery lasting one RTT, then its end.
        fn recover(&mut self, c: &mut Cubic, rtt: Time) {
            self.now += rtt;
            c.on_recovery_exit(self.now);
        }

        fn rto(&mut self, c: &mut Cubic, during_recovery: bool) {
            c.on_rto(&LossEvent { now: self.now, flight_size: c.window(), mss: MSS, during_recovery });
        }
    }

    // ----- the cubic curve ------------------------------------------------------------------

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss_within_one_segment() {
        let (cc, beta) = (0.4, 0.7);
        let rtt = 100 * MS;
        let mut c = cubic();
        let mut f = Fluid::new();
        f.grow_to(&mut c, rtt, 1000);
        let w_max = segs(&c);
        f.loss(&mut c);
        f.recover(&mut c, rtt);
        // eq. (2) with cwnd_epoch = β·W_max
        let k = (w_max * (1.0 - beta) / cc).cbrt();
        f.ack(&mut c, rtt); // the first ACK of congestion avoidance starts the epoch
        let (k_impl, t_epoch) = c.epoch().expect("epoch started");
        assert!((k_impl - k).abs() < 1e-3, "K = {k_impl}, eq. (2) gives {k}");
        assert_eq!(t_epoch, f.now);
        let (mut worst, mut worst_at) = (0.0f64, 0.0);
        while f.now < t_epoch + (1.6 * k * SECOND as f64) as Time {
            f.ack(&mut c, rtt);
            let t = secs(f.now - t_epoch);
            // eq. (1)
            let w = cc * (t - k).powi(3) + w_max;
            let err = (segs(&c) - w).abs();
            if err > worst {
                (worst, worst_at) = (err, t);
            }
        }
        println!("W_max {w_max:.1} segments, K {k:.3} s; largest |cwnd − W(t)| = {worst:.3} segments at t = {worst_at:.2} s; cwnd at 1.6 K = {:.1}", segs(&c));
        assert!(worst <= 1.0, "cwnd strayed {worst} segments from W(t) at t = {worst_at} s");
        assert!(segs(&c) > w_max + 20.0, "the run must reach the convex region");
    }

    #[test]
    fn first_epoch_after_a_timeout_starts_at_k_zero_on_the_convex_side() {
        let cc = 0.4;
        let rtt = 100 * MS;
        let mut c = cubic_with(CubicConfig { reno_friendly: false, ..Default::default() });
        let mut f = Fluid::new();
        f.grow_to(&mut c, rtt, 100);
        f.rto(&mut c, false);
        assert_eq!(c.window(), M);
        while c.state() == State::SlowStart {
            f.ack(&mut c, rtt);
        }
        f.ack(&mut c, rtt); // the first ACK of congestion avoidance starts the epoch
        let (k, t_epoch) = c.epoch().expect("epoch started");
        let w0 = segs(&c);
        assert_eq!(k, 0.0);
        assert!((c.w_max_segments().unwrap() - w0).abs() < 0.01, "W_max = cwnd_epoch (§4.8)");
        let mut worst = 0.0f64;
        while f.now < t_epoch + 4 * SECOND {
            f.ack(&mut c, rtt);
            worst = worst.max((segs(&c) - (cc * secs(f.now - t_epoch).powi(3) + w0)).abs());
        }
        println!("after the timeout: cwnd_epoch {w0:.1}, cwnd after 4 s {:.1}, largest error {worst:.3} segments", segs(&c));
        assert!(worst <= 1.0);
    }

    // ----- fast convergence -----------------------------------------------------------------

    /// Loss at 100 segments, one second of congestion avoidance (K ≈ 4.2 s, so the window is
    /// still below W_max), a second loss. Returns cwnd at the second loss and the new W_max.
    fn second_loss_below_w_max(fast_convergence: bool) -> (f64, f64, Cubic, Fluid) {
        let rtt = 100 * MS;
        let mut c = cubic_with(CubicConfig { fast_convergence, ..Default::default() });
        let mut f = Fluid::new();
        f.lose_at(&mut c, rtt, 100);
        f.run(&mut c, rtt, SECOND);
        let cwnd = segs(&c);
        f.loss(&mut c);
        (cwnd, c.w_max_segments().unwrap(), c, f)
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_did_not_regain_it() {
        let (cwnd, w_max, mut c, mut f) = second_loss_below_w_max(true);
        assert!(cwnd < 100.0, "second loss below the first W_max ({cwnd})");
        // §4.7: W_max = cwnd·(1 + β)/2
        assert!((w_max - cwnd * 1.7 / 2.0).abs() < 1e-9, "W_max {w_max}, cwnd {cwnd}");
        f.recover(&mut c, 100 * MS);
        f.ack(&mut c, 100 * MS);
        let k = c.epoch().unwrap().0;
        let expected = ((w_max - 0.7 * cwnd) / 0.4).cbrt();
        assert!((k - expected).abs() < 1e-3, "K {k} vs {expected}");
    }

    #[test]
    fn without_fast_convergence_w_max_is_the_window_before_the_loss() {
        let (cwnd, w_max, ..) = second_loss_below_w_max(false);
        assert!(cwnd < 100.0);
        assert_eq!(w_max, cwnd);
    }

    #[test]
    fn fast_convergence_keeps_w_max_when_the_window_grew_past_it() {
        let rtt = 100 * MS;
        let mut c = cubic();
        let mut f = Fluid::new();
        f.lose_at(&mut c, rtt, 100);
        f.run(&mut c, rtt, 6 * SECOND); // past K ≈ 4.2 s
        let cwnd = segs(&c);
        assert!(cwnd > 100.0);
        f.loss(&mut c);
        assert_eq!(c.w_max_segments(), Some(cwnd));
    }

    // ----- Reno-friendly region -------------------------------------------------------------

    /// A loss at 20 segments on a 1 ms path, then 300 ms (300 RTTs) of congestion avoidance.
    fn short_rtt_epoch(reno_friendly: bool) -> (Cubic, f64, f64) {
        let rtt = MS;
        let mut c = cubic_with(CubicConfig { reno_friendly, ..Default::default() });
        let mut f = Fluid::new();
        f.grow_to(&mut c, rtt, 20);
        let w_prior = segs(&c);
        f.loss(&mut c);
        f.recover(&mut c, rtt);
        f.ack(&mut c, rtt);
        let t_epoch = c.epoch().unwrap().1;
        f.run(&mut c, rtt, 300 * MS);
        (c, w_prior, secs(f.now - t_epoch))
    }

    #[test]
    fn reno_friendly_region_takes_over_on_a_short_rtt() {
        let (c, w_prior, t) = short_rtt_epoch(true);
        // Reno's estimate: from β·W_prior at α = 3(1 − β)/(1 + β) per RTT up to W_prior, then 1
        // per RTT (§4.3).
        let alpha = 3.0 * 0.3 / 1.7;
        let rtts = t / 1e-3;
        let to_prior = (w_prior - 0.7 * w_prior) / alpha;
        let reno = w_prior + (rtts - to_prior);
        let w_cubic = c.w_cubic(t).unwrap();
        println!("after {rtts:.0} RTTs of 1 ms: cwnd {:.1}, Reno estimate {reno:.1}, W_cubic {w_cubic:.1}", segs(&c));
        assert!((segs(&c) - reno).abs() < 2.0);
        assert!(segs(&c) > w_cubic + 100.0);
    }

    #[test]
    fn without_the_reno_friendly_region_a_short_rtt_epoch_follows_w_cubic() {
        let (c, w_prior, t) = short_rtt_epoch(false);
        let w_cubic = c.w_cubic(t).unwrap();
        assert!((segs(&c) - w_cubic).abs() < 1.0, "cwnd {} vs W_cubic {w_cubic}", segs(&c));
        assert!(segs(&c) < w_prior);
    }

    // ----- HyStart++ ------------------------------------------------------------------------

    /// 20 ms, rising to 40 ms at 100 ms, back to 20 ms at 200 ms, 40 ms again from 250 ms: two
    /// delay increases of 20 ms (threshold: 20/8 → 4 ms) with a spurious one between.
    fn rtt_profile(t: Time) -> Time {
        MS * match t / MS {
            0..100 => 20,
            100..200 => 40,
            200..250 => 20,
            _ => 40,
        }
    }

    /// (time, state, window, ssthresh) at each state change, until `until` or CA.
    fn slow_start_run(hystart: bool, until: Time) -> (Cubic, Vec<(Time, State, u64, u64)>) {
        let mut c = cubic_with(CubicConfig { hystart, ..Default::default() });
        let mut f = Fluid::new();
        let mut changes = vec![(0, c.state(), c.window(), c.ssthresh())];
        while f.now < until && c.state() != State::CongestionAvoidance {
            let before = c.window();
            let was_css = c.state() == State::Css;
            f.ack(&mut c, rtt_profile(f.now));
            if was_css && c.state() == State::Css {
                // RFC 9406 §4.2: CSS grows by min(N, L·SMSS) / CSS_GROWTH_DIVISOR
                assert_eq!(c.window() - before, 2 * M / 4);
            }
            if c.state() != changes.last().unwrap().1 {
                changes.push((f.now, c.state(), c.window(), c.ssthresh()));
            }
        }
        (c, changes)
    }

    #[test]
    fn hystart_enters_css_on_a_delay_rise_resumes_slow_start_when_it_falls_back_then_exits() {
        let (_, changes) = slow_start_run(true, 2 * SECOND);
        for (t, s, w, ss) in &changes {
            println!(
                "{:7.1} ms  {:22} cwnd {:8} segments  ssthresh {}",
                *t as f64 / 1e6,
                s.name(),
                w / M,
                if *ss == u64::MAX { "∞".into() } else { (ss / M).to_string() }
            );
        }
        let states: Vec<State> = changes.iter().map(|c| c.1).collect();
        use State::*;
        assert_eq!(states, [SlowStart, Css, SlowStart, Css, CongestionAvoidance]);
        let at = |i: usize| changes[i].0 / MS;
        assert!((100..200).contains(&at(1)), "CSS after the first rise");
        assert!((200..250).contains(&at(2)), "slow start again once the RTT fell back");
        assert!(at(3) >= 250, "CSS after the second rise");
        // Five CSS rounds of ~40 ms, the partial first one included.
        assert!((at(4) - at(3)) >= 4 * 40 && (at(4) - at(3)) <= 5 * 40 + 5, "CSS lasted {} ms", at(4) - at(3));
        let (_, _, w, ss) = changes[4];
        assert_eq!(ss, w, "RFC 9406: CSS ends with ssthresh = cwnd");
    }

    #[test]
    fn hystart_ignores_a_delay_rise_below_the_threshold() {
        let mut c = cubic();
        let mut f = Fluid::new();
        while f.now < 250 * MS {
            let rtt = if f.now < 100 * MS { 20 * MS } else { 23 * MS }; // +3 ms < 4 ms
            f.ack(&mut c, rtt);
            assert_eq!(c.state(), State::SlowStart);
        }
    }

    #[test]
    fn without_hystart_slow_start_continues_until_loss() {
        let (with, _) = slow_start_run(true, 300 * MS);
        let (mut without, changes) = slow_start_run(false, 300 * MS);
        assert_eq!(changes.len(), 1, "never left slow start: {changes:?}");
        println!("window at 300 ms: {} segments with HyStart++, {} without", with.window() / M, without.window() / M);
        assert!(without.window() > 2 * with.window());
        let mut f = Fluid { now: 300 * MS, ..Fluid::new() };
        f.loss(&mut without);
        assert_eq!(without.state(), State::Recovery);
    }

    // ----- reductions and floors ------------------------------------------------------------

    #[test]
    fn loss_reduces_ssthresh_and_window_to_beta_times_flight_size() {
        for (beta, expected) in [(0.7, 70), (0.5, 50)] {
            let mut c = cubic_with(CubicConfig { beta, ..Default::default() });
            let mut f = Fluid::new();
            f.grow_to(&mut c, 50 * MS, 100);
            c.cwnd = (100 * M) as f64;
            f.loss(&mut c);
            assert_eq!(c.ssthresh(), expected * M, "β = {beta}");
            assert_eq!(c.window(), expected * M);
            assert_eq!(c.state_name(), "recovery");
        }
    }

    #[test]
    fn ssthresh_uses_flight_size_when_less_than_the_window_was_in_flight() {
        let mut c = cubic();
        c.cwnd = (100 * M) as f64;
        c.on_congestion_event(&LossEvent { flight_size: 60 * M, mss: MSS, ..Default::default() });
        assert_eq!(c.ssthresh(), 42 * M);
        assert_eq!(c.w_max_segments(), Some(100.0), "W_max is still the window (§4.6)");
    }

    #[test]
    fn window_never_below_two_segments_after_a_loss_nor_one_after_a_timeout() {
        let mut c = cubic();
        let mut f = Fluid::new();
        for _ in 0..5 {
            c.on_congestion_event(&LossEvent { flight_size: M, mss: MSS, ..Default::default() });
            assert_eq!((c.window(), c.ssthresh()), (2 * M, 2 * M));
            f.recover(&mut c, 10 * MS);
            f.run(&mut c, 10 * MS, 20 * MS);
        }
        f.rto(&mut c, false);
        assert_eq!(c.window(), M);
        assert!(c.ssthresh() >= 2 * M);
    }

    #[test]
    fn timeout_sets_the_loss_window_and_keeps_the_ssthresh_of_the_event_being_recovered() {
        let mut c = cubic();
        c.cwnd = (100 * M) as f64;
        c.on_congestion_event(&LossEvent { flight_size: 100 * M, mss: MSS, ..Default::default() });
        c.on_rto(&LossEvent { flight_size: 400 * M, mss: MSS, during_recovery: true, ..Default::default() });
        assert_eq!((c.window(), c.ssthresh()), (M, 70 * M));
        assert_eq!(c.state_name(), "slow_start");
        // A timeout in the open state reduces ssthresh like a loss.
        let mut c = cubic();
        c.cwnd = (100 * M) as f64;
        c.on_rto(&LossEvent { flight_size: 100 * M, mss: MSS, ..Default::default() });
        assert_eq!((c.window(), c.ssthresh()), (M, 70 * M));
        assert_eq!(c.w_max_segments(), None, "§4.8: W_max undefined until the next epoch");
    }

    #[test]
    fn no_growth_in_recovery() {
        let mut c = cubic();
        let mut f = Fluid::new();
        f.loss(&mut c);
        let w = c.window();
        c.on_ack(&AckEvent { now: 1, bytes_acked: 10 * M, cwnd_limited: true, in_recovery: true, mss: MSS, ..Default::default() });
        assert_eq!(c.window(), w);
    }

    #[test]
    fn no_growth_while_application_limited_and_the_curve_clock_pauses() {
        let rtt = 100 * MS;
        let mut c = cubic();
        let mut f = Fluid::new();
        f.lose_at(&mut c, rtt, 100);
        f.ack(&mut c, rtt);
        let (_, t_epoch) = c.epoch().unwrap();
        let w = c.window();
        f.cwnd_limited = false;
        f.ack(&mut c, rtt);
        let paused_at = f.now;
        f.run(&mut c, rtt, 2 * SECOND);
        assert_eq!(c.window(), w, "no growth while application-limited");
        f.cwnd_limited = true;
        f.ack(&mut c, rtt);
        assert_eq!(c.epoch().unwrap().1, t_epoch + (f.now - paused_at), "t_epoch moved by the pause");
        // Slow start does not grow either.
        let mut c = cubic();
        c.on_ack(&AckEvent { now: 1, bytes_acked: M, cwnd_limited: false, mss: MSS, ..Default::default() });
        assert_eq!(c.window(), 10 * M);
    }

    #[test]
    fn a_send_into_an_empty_pipe_after_idle_pauses_the_curve() {
        let rtt = 100 * MS;
        let mut c = cubic();
        let mut f = Fluid::new();
        f.lose_at(&mut c, rtt, 100);
        f.ack(&mut c, rtt);
        let last_ack = f.now;
        let (_, t_epoch) = c.epoch().unwrap();
        f.now += 10 * SECOND;
        c.on_packet_sent(f.now, MSS, M);
        f.ack(&mut c, rtt);
        assert_eq!(c.epoch().unwrap().1, t_epoch + (f.now - last_ack));
    }

    #[test]
    fn a_huge_gap_between_acks_keeps_the_window_finite_and_bounded() {
        let mut c = cubic();
        let mut f = Fluid::new();
        f.grow_to(&mut c, 10 * MS, 100);
        f.loss(&mut c);
        f.recover(&mut c, 10 * MS);
        for i in 1..=200u64 {
            let before = c.window();
            c.on_ack(&AckEvent {
                now: i * 1_000_000 * SECOND,
                bytes_acked: 1 << 40,
                cwnd_limited: true,
                srtt: 10 * MS,
                mss: MSS,
                ..Default::default()
            });
            assert!(c.cwnd.is_finite());
            assert!(c.window() as f64 <= before as f64 * TARGET_MAX_RATIO + 1.0);
            assert!(c.window() <= 1 << 40);
        }
        assert_eq!(c.window(), 1 << 40);
    }

    // ----- states and options ---------------------------------------------------------------

    #[test]
    fn states_are_named_after_what_the_window_does() {
        let mut c = cubic();
        let mut f = Fluid::new();
        assert_eq!(c.state_name(), "slow_start");
        f.grow_to(&mut c, 10 * MS, 30);
        f.loss(&mut c);
        assert_eq!(c.state_name(), "recovery");
        f.recover(&mut c, 10 * MS);
        assert_eq!(c.state_name(), "congestion_avoidance");
        f.rto(&mut c, false);
        assert_eq!(c.state_name(), "slow_start");
        let ssthresh = c.ssthresh() / M;
        f.grow_to(&mut c, 10 * MS, ssthresh);
        assert_eq!(c.state_name(), "congestion_avoidance");
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "illegal transition")]
    fn an_illegal_transition_panics_in_debug_builds() {
        let mut c = cubic();
        c.state = State::CongestionAvoidance;
        c.transition_to(State::Css);
    }

    /// Slow start with a delay rise (HyStart++), a loss, 100 ms at a 2 ms RTT (Reno-friendly
    /// region), a loss below W_max (fast convergence), then 1 s at a 50 ms RTT (on the curve).
    fn script(cfg: CubicConfig) -> Vec<u64> {
        let mut c = cubic_with(cfg);
        let mut f = Fluid::new();
        let mut trace = Vec::new();
        while f.now < 100 * MS {
            f.ack(&mut c, if f.now < 40 * MS { 10 * MS } else { 20 * MS });
            trace.push(c.window());
        }
        for (dur, rtt) in [(100 * MS, 2 * MS), (SECOND, 50 * MS)] {
            f.loss(&mut c);
            f.recover(&mut c, rtt);
            trace.push(c.window());
            let end = f.now + dur;
            while f.now < end {
                f.ack(&mut c, rtt);
                trace.push(c.window());
            }
        }
        trace
    }

    #[test]
    fn every_option_changes_the_window_trace() {
        let base = script(CubicConfig::default());
        let d = CubicConfig::default();
        for (name, cfg) in [
            ("fast_convergence", CubicConfig { fast_convergence: false, ..d.clone() }),
            ("reno_friendly", CubicConfig { reno_friendly: false, ..d.clone() }),
            ("hystart", CubicConfig { hystart: false, ..d.clone() }),
            ("hystart_variant", CubicConfig { hystart_variant: HyStartVariant::Linux, ..d.clone() }),
            ("c", CubicConfig { c: 1.0, ..d.clone() }),
            ("beta", CubicConfig { beta: 0.5, ..d.clone() }),
        ] {
            assert!(script(cfg) != base, "switching {name} changed nothing");
        }
    }
}
