//! The nine path statistics BLP's threshold learner reads, measured by the scheduler itself
//! from the views it is given on each `select`, over evaluation windows of simulated time.
//!
//! Source: seed 002 (Das et al., ICC Workshops 2025), §III "Blocking Threshold Learning, Data
//! Collection": "lost packets, total bytes dropped, retransmissions, average throughput, mean
//! delay, mean jitter, inter-packet arrival time, packet delivery ratio, and correction factor
//! variance". The paper names the features only; the definitions below are ours, chosen so a
//! sender-side scheduler can measure them (it sees no receiver timestamps) and so that windows
//! of different lengths are comparable (counts are per second).
//!
//! A window opens at the first decision after the previous one closed and closes at the first
//! decision at or after `open + interval`; its length T (s) is the time between those two
//! decisions (≥ interval; longer when the connection asked nothing for a while). Per-path
//! counters in `PathView` are cumulative, so counts are differences of their sums over the
//! paths between the window's first and last decision (a path that disappears or restarts its
//! counters contributes no negative amounts: differences saturate at 0).
//!
//! | # | name | definition | unit |
//! |---|---|---|---|
//! | 0 | `lost_packets` | segments newly deemed lost (`packets_lost`) / T | packets/s |
//! | 1 | `bytes_dropped` | payload bytes newly deemed lost (`bytes_lost`) / T | bytes/s |
//! | 2 | `retransmissions` | segments retransmitted (`retransmissions`) / T | packets/s |
//! | 3 | `throughput` | payload bytes newly acknowledged (`bytes_acked`) · 8 / T / 10⁶ | Mbit/s |
//! | 4 | `mean_delay` | mean SRTT of the usable paths with an RTT sample, one sample per path and decision | ms |
//! | 5 | `mean_jitter` | mean RTTVAR (RFC 6298) of the same samples (the sender's delay variation) | ms |
//! | 6 | `inter_arrival` | T · mss / bytes acknowledged (mean time between acknowledged full segments); T when nothing was acknowledged | ms |
//! | 7 | `delivery_ratio` | bytes acknowledged / bytes sent (retransmissions included), clamped to [0, 1]; 1 when nothing was sent | 1 |
//! | 8 | `lambda_variance` | population variance of BLP's correction factor λ after each blocking-mode evaluation (Algorithm 1, line 31) in the window; 0 with fewer than two | 1 |
//!
//! Delay and jitter are round-trip quantities (the paper's are one-way; a sender cannot see
//! one-way delay). `mss` is the largest MSS among the paths. Without any RTT sample in the
//! window, mean delay and jitter are 0.
//!
//! Cost per decision: one pass over the path views with a handful of additions (no allocation);
//! the features are computed only when a window closes.

use super::PathView;
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::Time;

/// Number of features.
pub const N_FEATURES: usize = 9;

/// Feature names in model order (the model JSON's `features` must equal this list).
pub const FEATURE_NAMES: [&str; N_FEATURES] = [
    "lost_packets",
    "bytes_dropped",
    "retransmissions",
    "throughput",
    "mean_delay",
    "mean_jitter",
    "inter_arrival",
    "delivery_ratio",
    "lambda_variance",
];

/// One window's features, in `FEATURE_NAMES` order.
pub type Features = [f64; N_FEATURES];

/// Cumulative counters summed over the paths.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Totals {
    packets_lost: u64,
    bytes_lost: u64,
    retransmissions: u64,
    bytes_acked: u64,
    bytes_sent: u64,
}

impl Totals {
    fn since(self, base: Totals) -> Totals {
        Totals {
            packets_lost: self.packets_lost.saturating_sub(base.packets_lost),
            bytes_lost: self.bytes_lost.saturating_sub(base.bytes_lost),
            retransmissions: self.retransmissions.saturating_sub(base.retransmissions),
            bytes_acked: self.bytes_acked.saturating_sub(base.bytes_acked),
            bytes_sent: self.bytes_sent.saturating_sub(base.bytes_sent),
        }
    }
}

/// The accumulator of the current window.
#[derive(Clone, Debug)]
pub struct FeatureWindow {
    interval: Time,
    /// Time of the window's first decision (None before the first decision).
    start: Option<Time>,
    /// Totals at the window's first decision.
    base: Totals,
    /// Totals and time at the latest decision.
    latest: Totals,
    latest_at: Time,
    mss: u32,
    /// Sums of SRTT and RTTVAR (ns) over the delay samples, and their number.
    srtt_sum: f64,
    rttvar_sum: f64,
    rtt_samples: u64,
    /// Welford's running mean and sum of squared deviations of λ.
    lambda_n: u64,
    lambda_mean: f64,
    lambda_m2: f64,
}

impl FeatureWindow {
    /// Windows of `interval` ns of simulated time (at least 1 ns).
    pub fn new(interval: Time) -> Self {
        Self {
            interval: interval.max(1),
            start: None,
            base: Totals::default(),
            latest: Totals::default(),
            latest_at: 0,
            mss: 0,
            srtt_sum: 0.0,
            rttvar_sum: 0.0,
            rtt_samples: 0,
            lambda_n: 0,
            lambda_mean: 0.0,
            lambda_m2: 0.0,
        }
    }

    pub fn interval(&self) -> Time {
        self.interval
    }

    /// Record one decision's views at `now`. Returns the features of the window this decision
    /// closes, if it closes one (the decision then opens the next window).
    #[inline]
    pub fn observe(&mut self, now: Time, paths: &[PathView]) -> Option<Features> {
        let mut t = Totals::default();
        let mut mss = 0;
        let (mut srtt, mut rttvar, mut n) = (0u64, 0u64, 0u64);
        for p in paths {
            t.packets_lost += p.packets_lost;
            t.bytes_lost += p.bytes_lost;
            t.retransmissions += p.retransmissions;
            t.bytes_acked += p.bytes_acked;
            t.bytes_sent += p.bytes_sent;
            mss = mss.max(p.mss);
            if p.usable && p.srtt > 0 {
                srtt += p.srtt;
                rttvar += p.rttvar;
                n += 1;
            }
        }
        let Some(start) = self.start else {
            self.open(now, t);
            self.add_rtt(mss, srtt, rttvar, n);
            return None;
        };
        self.latest = t;
        self.latest_at = now;
        if now.saturating_sub(start) < self.interval {
            self.add_rtt(mss, srtt, rttvar, n);
            return None;
        }
        let f = self.current().expect("a window at least one interval long");
        self.open(now, t);
        self.add_rtt(mss, srtt, rttvar, n);
        Some(f)
    }

    /// Record λ after a blocking-mode evaluation (line 31).
    #[inline]
    pub fn observe_lambda(&mut self, lambda: f64) {
        self.lambda_n += 1;
        let d = lambda - self.lambda_mean;
        self.lambda_mean += d / self.lambda_n as f64;
        self.lambda_m2 += d * (lambda - self.lambda_mean);
    }

    /// The features of the open window up to its latest decision; None while it has no length.
    pub fn current(&self) -> Option<Features> {
        let start = self.start?;
        let len = self.latest_at.saturating_sub(start);
        if len == 0 {
            return None;
        }
        let secs = as_secs_f64(len);
        let d = self.latest.since(self.base);
        let acked = d.bytes_acked as f64;
        let per_s = |x: u64| x as f64 / secs;
        let (delay, jitter) = if self.rtt_samples > 0 {
            let n = self.rtt_samples as f64;
            (self.srtt_sum / n / 1e6, self.rttvar_sum / n / 1e6)
        } else {
            (0.0, 0.0)
        };
        let inter_arrival = if acked > 0.0 { secs * 1e3 * self.mss.max(1) as f64 / acked } else { secs * 1e3 };
        let delivery = if d.bytes_sent > 0 { (acked / d.bytes_sent as f64).clamp(0.0, 1.0) } else { 1.0 };
        let lambda_var = if self.lambda_n >= 2 { self.lambda_m2 / self.lambda_n as f64 } else { 0.0 };
        Some([
            per_s(d.packets_lost),
            per_s(d.bytes_lost),
            per_s(d.retransmissions),
            acked * 8.0 / secs / 1e6,
            delay,
            jitter,
            inter_arrival,
            delivery,
            if lambda_var.is_finite() { lambda_var } else { f64::MAX },
        ])
    }

    fn open(&mut self, now: Time, t: Totals) {
        let interval = self.interval;
        *self = Self::new(interval);
        self.start = Some(now);
        self.base = t;
        self.latest = t;
        self.latest_at = now;
    }

    #[inline]
    fn add_rtt(&mut self, mss: u32, srtt: u64, rttvar: u64, n: u64) {
        self.mss = self.mss.max(mss);
        self.srtt_sum += srtt as f64;
        self.rttvar_sum += rttvar as f64;
        self.rtt_samples += n;
    }
}
