//! `blp-adaptive`: the reward-and-penalty window of seed 002, with an optimal packet size.
//!
//! Source: seed 002, S. Das, J. Guo, K. Parsons et al., "Learning Based Scheduling and Adaptive
//! Congestion Control for Multipath QUIC", IEEE ICC Workshops 2025 (MERL TR2025-083), §IV,
//! eqs. (2)–(10). It is the controller the paper runs under its BLP scheduler (`sched/blp.rs`).
//!
//! ```text
//! α    = (N_s − N_r) / N_s                                   (2) degree of congestion
//! N_s ← N_s (1 + α l / B)   on a successful ACK              (3) reward
//! N_s ← N_s (1 − α l / B)   on a loss / retransmission       (4) penalty
//! P(l) = 1 / (1 + e^{−α (l − BT) (N_l + N_s)/N_s})           (5) loss in the next cycle
//! P(S, nc) = (1 − P(l))^nc                                   (6)
//! S(n)     = (1 − P(l))^(n · nc)                             (7)
//! s = (α − (α² − α BT − 1)/α) (N_l + N_s)/N_s                (8) optimal packet size
//! l = α (1 − n·ss / (1 + BT (N_l + N_s)))                    (8b) fraction lost
//! (9), (10): (3) and (4) with that l, i.e. N_s (1 ± α² (1 − n·ss/(1 + BT(N_l+N_s))) / B)
//! ```
//!
//! Units and interpretations (the paper gives none):
//! - B is the MSS in bytes, as the paper says ("B is the maximum segment size"). N_s (the
//!   window), N_r (acknowledged), N_f (in flight) and N_l (lost) are counted in segments of B
//!   bytes (fractional). The update factor 1 ± αl/B is therefore close to 1: one reward adds
//!   N_s·αl/B segments, a round of N_s rewards about N_s²·αl/B.
//! - Reward per ACK, penalty per lost segment: "if the ACK indicates successful packet
//!   reception" (3)/(9), "otherwise", on "packet drop/retransmission" (4)/(10). A loss reported
//!   with an ACK (`AckEvent::bytes_lost`) applies (10) once per lost segment.
//! - A backstop the paper does not have: on a congestion event (once per recovery period) the
//!   window is first multiplied by `reduction` (default 0.5, RFC 9002 §7.3.2's
//!   kLossReductionFactor). Why: (9) and (10) are the same factor with opposite signs, one per
//!   acknowledged and one per lost segment, so on their own they balance only when as many
//!   segments are lost as delivered: the window stops growing at a 50 % loss rate, whatever B
//!   is. Measured before the backstop: 56 % loss on the 30 ms path of
//!   `scenarios/mpquic-two-paths.toml` (QUIC has no retransmission timeout to collapse the
//!   window; TCP's RTO hid it). `reduction = 1` gives the paper's equations alone.
//! - α (eq. (2)) is measured per round of one SRTT: N_s is the window when the round began,
//!   N_r the segments newly delivered (`AckEvent::bytes_delivered`: cumulative or selective,
//!   as a QUIC ACK range) during it; α holds the value of the last completed round, clamped to
//!   [0, 1] (0 before the first round ends). N_l is the segments newly marked lost in that round.
//! - n·ss (flows × stream size) is used only through N_f = n·ss/s: eq. (8b) needs it in
//!   segments to agree with N_l + N_s, so n·ss is the path's segments in flight (`in_flight/B`
//!   at the ACK). `flows` (n) enters S(n) only.
//! - l from (8b) is clamped to [0, 1] (a fraction); (9)/(10) are (3)/(4) with this l.
//! - s from (8) is dimensionless ((8) simplifies to (BT + 1/α)(N_l + N_s)/N_s). We read it in
//!   units of `size_unit` bytes (default 100 B, the paper's "small packet" of §V.B) and clamp
//!   the product to [size_unit, MSS]; α = 0 (no congestion) gives the MSS, which the paper
//!   recommends for reliable paths. `optimal_packet_size()` reports it; the transport applies it.
//! - BT is the same learned blocking threshold the scheduler uses (§IV, Fig. 2: the learner
//!   feeds both). Default 2.0 as in `sched/blp.rs`; `set_threshold` replaces it at run time.
//! - Slow start, the loss window after a timeout and ssthresh are Reno's (RFC 5681, RFC 3465
//!   ABC with L = 2), the paper saying nothing of them. The first congestion event ends slow
//!   start: ssthresh becomes the penalised window (at least 2 MSS). No growth while in
//!   recovery or application-limited (RFC 7661), as Reno.
//! - nc (scheduling cycles) is an argument of the success probabilities: the scheduler knows it.

use super::options::OptValue;
use super::{AckEvent, CcParams, CongestionControl, LossEvent, Options};
use mptlab_engine::Time;
use serde::Serialize;

/// RFC 3465 §2.2: L = 2·SMSS limit on slow-start growth per ACK.
const ABC_LIMIT_SEGMENTS: f64 = 2.0;
/// Largest window in bytes (2^40, the bound the fuzz harness checks; far above any path here).
const MAX_CWND: f64 = (1u64 << 40) as f64;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdaptiveConfig {
    /// Blocking threshold BT of eqs. (5), (8), (8b) (ours: 2.0, as BLP's; see the header).
    pub threshold: f64,
    /// n, the flows in flight, of eq. (7).
    pub flows: f64,
    /// Bytes per unit of the packet size s of eq. (8) (ours: 100 B).
    pub size_unit: f64,
    /// Window factor on a congestion event before the penalties (ours, see the header: 0.5;
    /// 1 = none).
    pub reduction: f64,
}

impl Default for AdaptiveConfig {
    fn default() -> Self {
        Self { threshold: 2.0, flows: 1.0, size_unit: 100.0, reduction: 0.5 }
    }
}

impl Options for AdaptiveConfig {
    const NAMES: &'static [&'static str] = &["threshold", "flows", "size_unit", "reduction"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "threshold" => self.threshold = v.number(0.0, 1e6)?,
            "flows" => self.flows = v.number(1.0, 1e6)?,
            "size_unit" => self.size_unit = v.number(1.0, 65535.0)?,
            "reduction" => self.reduction = v.number(0.01, 1.0)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// The round over which eq. (2) counts.
#[derive(Clone, Copy, Debug)]
struct Round {
    start: Time,
    /// N_s at the round's start, segments.
    window: f64,
    /// N_r, segments delivered in the round.
    acked: f64,
    /// N_l, segments marked lost in the round.
    lost: f64,
}

#[derive(Clone, Debug)]
pub struct Adaptive {
    cfg: AdaptiveConfig,
    threshold: f64,
    /// B, bytes.
    mss: f64,
    /// Window in bytes (fractional: the reward factors are close to 1).
    cwnd: f64,
    ssthresh: u64,
    round: Option<Round>,
    /// α of the last completed round.
    alpha: f64,
    /// N_l of the last completed round, segments.
    lost: f64,
    /// N_f at the last ACK, segments.
    in_flight: f64,
}

impl Adaptive {
    pub fn new(p: CcParams, cfg: &AdaptiveConfig) -> Self {
        let mss = p.mss.max(1) as f64;
        Self {
            cfg: cfg.clone(),
            threshold: cfg.threshold,
            mss,
            cwnd: p.initial_cwnd_segments.max(1) as f64 * mss,
            ssthresh: u64::MAX,
            round: None,
            alpha: 0.0,
            lost: 0.0,
            in_flight: 0.0,
        }
    }

    /// Replace BT (the learned blocking threshold, shared with the BLP scheduler).
    pub fn set_threshold(&mut self, bt: f64) {
        if bt.is_finite() && bt >= 0.0 {
            self.threshold = bt;
        }
    }

    /// The window in bytes before rounding down (the reward steps are fractions of a byte).
    pub fn exact_window(&self) -> f64 {
        self.cwnd
    }

    pub fn in_slow_start(&self) -> bool {
        (self.cwnd as u64) < self.ssthresh
    }

    /// N_s, the window in segments.
    fn n_s(&self) -> f64 {
        (self.cwnd / self.mss).max(1.0)
    }

    /// Eq. (2), of the last completed round.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Eq. (8b): l = α (1 − n·ss / (1 + BT (N_l + N_s))), n·ss = N_f; clamped to [0, 1].
    pub fn loss_fraction(&self) -> f64 {
        let l = self.alpha * (1.0 - self.in_flight / (1.0 + self.threshold * (self.lost + self.n_s())));
        l.clamp(0.0, 1.0)
    }

    /// Eq. (5): P(l) = 1 / (1 + e^{−α (l − BT) (N_l + N_s)/N_s}).
    pub fn loss_probability(&self) -> f64 {
        let n_s = self.n_s();
        let x = self.alpha * (self.loss_fraction() - self.threshold) * (self.lost + n_s) / n_s;
        1.0 / (1.0 + (-x).exp())
    }

    /// Eq. (6): P(S, nc) = (1 − P(l))^nc.
    pub fn success_probability(&self, nc: f64) -> f64 {
        (1.0 - self.loss_probability()).powf(nc)
    }

    /// Eq. (7): S(n) = (1 − P(l))^(n · nc), n = `flows`.
    pub fn success_probability_flows(&self, nc: f64) -> f64 {
        self.success_probability(self.cfg.flows * nc)
    }

    /// Eq. (8) as printed: s = (α − (α² − α BT − 1)/α) (N_l + N_s)/N_s (∞ for α = 0).
    pub fn packet_size_factor(&self) -> f64 {
        let a = self.alpha;
        if a <= 0.0 {
            return f64::INFINITY;
        }
        let n_s = self.n_s();
        (a - (a * a - a * self.threshold - 1.0) / a) * (self.lost + n_s) / n_s
    }

    /// The packet size (bytes) eq. (8) recommends: s · `size_unit`, within [size_unit, MSS].
    pub fn optimal_packet_size(&self) -> u32 {
        let unit = self.cfg.size_unit.min(self.mss);
        let bytes = self.packet_size_factor() * unit;
        if bytes.is_nan() {
            return self.mss as u32;
        }
        bytes.clamp(unit, self.mss).round() as u32
    }

    /// The multiplicative step α·l/B of eqs. (9), (10).
    fn step(&self) -> f64 {
        self.alpha * self.loss_fraction() / self.mss
    }

    fn set_cwnd(&mut self, bytes: f64) {
        self.cwnd = if bytes.is_finite() { bytes.clamp(self.mss, MAX_CWND) } else { self.mss };
    }

    /// Count an ACK into the current round; close it (eq. (2)) once one SRTT has passed.
    fn account(&mut self, ev: &AckEvent) {
        let n_s = self.n_s();
        let round = self.round.get_or_insert(Round { start: ev.now, window: n_s, acked: 0.0, lost: 0.0 });
        if ev.srtt > 0 && ev.now.saturating_sub(round.start) >= ev.srtt {
            self.alpha = ((round.window - round.acked) / round.window).clamp(0.0, 1.0);
            self.lost = round.lost;
            *round = Round { start: ev.now, window: n_s, acked: 0.0, lost: 0.0 };
        }
        round.acked += ev.bytes_delivered as f64 / self.mss;
        round.lost += ev.bytes_lost as f64 / self.mss;
        self.in_flight = ev.in_flight as f64 / self.mss;
    }
}

impl CongestionControl for Adaptive {
    fn reads_rate_samples(&self) -> bool {
        false
    }
    fn packet_size(&self) -> Option<u32> {
        Some(self.optimal_packet_size())
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.account(ev);
        if ev.bytes_lost > 0 {
            // Eq. (10): one penalty per lost segment.
            self.set_cwnd(self.cwnd * (1.0 - self.step()).powf(ev.bytes_lost as f64 / self.mss));
        }
        if ev.in_recovery || !ev.cwnd_limited || ev.bytes_acked == 0 {
            return;
        }
        if self.in_slow_start() {
            let inc = (ev.bytes_acked as f64).min(ABC_LIMIT_SEGMENTS * self.mss);
            let cap = (self.ssthresh as f64).max(self.cwnd);
            self.set_cwnd((self.cwnd + inc).min(cap));
            return;
        }
        // Eq. (9): reward.
        self.set_cwnd(self.cwnd * (1.0 + self.step()));
    }

    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        // The backstop (see the header); it also ends slow start.
        self.set_cwnd(self.cwnd * self.cfg.reduction);
        self.ssthresh = (self.cwnd as u64).max(2 * self.mss as u64);
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        // Reno (RFC 5681 §3.1): ssthresh = max(FlightSize/2, 2 SMSS), loss window of 1 SMSS.
        if !ev.during_recovery {
            self.ssthresh = (ev.flight_size / 2).max(2 * self.mss as u64);
        }
        self.set_cwnd(self.mss);
        self.round = None;
    }

    fn window(&self) -> u64 {
        (self.cwnd as u64).max(self.mss as u64)
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;

    const MSS: u32 = 1000;
    const B: f64 = MSS as f64;

    fn adaptive() -> Adaptive {
        Adaptive::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, &AdaptiveConfig::default())
    }

    /// An ACK of `segs` segments at `t_ms`, SRTT 100 ms, `flight` segments left in flight.
    fn ack(t_ms: u64, segs: u64, flight: u64, cwnd_limited: bool) -> AckEvent {
        AckEvent {
            now: t_ms * MS,
            bytes_acked: segs * MSS as u64,
            bytes_delivered: segs * MSS as u64,
            srtt: 100 * MS,
            in_flight: flight * MSS as u64,
            cwnd_limited,
            mss: MSS,
            ..Default::default()
        }
    }

    /// A round of 100 ms in which 6 of the 10 window segments are acknowledged; the ACK at
    /// 100 ms closes it and leaves 4 segments in flight.
    fn after_one_round_with_six_of_ten_acked() -> Adaptive {
        let mut c = adaptive();
        for k in 0..6 {
            c.on_ack(&ack(10 * k, 1, 9 - k, false));
        }
        c.on_ack(&ack(100, 1, 4, false));
        c
    }

    #[test]
    fn alpha_is_the_unacknowledged_share_of_the_last_round() {
        let c = after_one_round_with_six_of_ten_acked();
        // Eq. (2): (N_s − N_r)/N_s = (10 − 6)/10.
        assert!((c.alpha() - 0.4).abs() < 1e-12, "{}", c.alpha());
    }

    #[test]
    fn alpha_is_zero_before_the_first_round_ends_and_never_negative() {
        let mut c = adaptive();
        c.on_ack(&ack(0, 1, 9, false));
        assert_eq!(c.alpha(), 0.0);
        c.on_ack(&ack(50, 30, 0, false));
        c.on_ack(&ack(100, 1, 0, false));
        assert_eq!(c.alpha(), 0.0, "31 of 10 acknowledged: clamped");
    }

    #[test]
    fn alpha_is_one_when_nothing_was_acknowledged_in_a_round() {
        let mut c = adaptive();
        c.on_ack(&AckEvent { now: 0, srtt: 100 * MS, mss: MSS, ..Default::default() });
        c.on_ack(&AckEvent { now: 100 * MS, srtt: 100 * MS, mss: MSS, ..Default::default() });
        assert_eq!(c.alpha(), 1.0);
    }

    #[test]
    fn loss_fraction_follows_eq_8b() {
        let c = after_one_round_with_six_of_ten_acked();
        // l = α (1 − N_f / (1 + BT (N_l + N_s))) = 0.4 (1 − 4/(1 + 2·10)) = 0.4 · 17/21.
        assert!((c.loss_fraction() - 0.4 * 17.0 / 21.0).abs() < 1e-12);
    }

    #[test]
    fn penalty_shrinks_the_window_by_eq_10_once_per_lost_segment() {
        let mut c = after_one_round_with_six_of_ten_acked();
        // An ACK of one segment that also reports 3 segments lost, 4 left in flight: three
        // penalties N_s (1 − α² (1 − n·ss/(1 + BT (N_l + N_s))) / B), N_s = 10 segments; the
        // window is not cwnd-limited, so no reward.
        c.on_ack(&AckEvent { bytes_lost: 3 * MSS as u64, ..ack(110, 1, 4, false) });
        let step = 0.4 * 0.4 * (1.0 - 4.0 / 21.0) / B;
        let expected = 10.0 * B * (1.0 - step).powi(3);
        assert!((c.exact_window() - expected).abs() < 1e-9, "{} vs {expected}", c.exact_window());
    }

    #[test]
    fn a_congestion_event_applies_the_backstop_and_ends_slow_start() {
        let mut c = after_one_round_with_six_of_ten_acked();
        c.on_congestion_event(&LossEvent { flight_size: 4 * MSS as u64, mss: MSS, ..Default::default() });
        assert!((c.exact_window() - 5.0 * B).abs() < 1e-9, "halved: {}", c.exact_window());
        assert_eq!(c.ssthresh(), 5 * MSS as u64);
        assert!(!c.in_slow_start());
        // reduction = 1: the paper's equations alone leave the window as it was.
        let cfg = AdaptiveConfig { reduction: 1.0, ..AdaptiveConfig::default() };
        let mut c = Adaptive::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, &cfg);
        c.on_congestion_event(&LossEvent { flight_size: 4 * MSS as u64, mss: MSS, ..Default::default() });
        assert_eq!(c.exact_window(), 10.0 * B);
        assert!(!c.in_slow_start());
    }

    #[test]
    fn without_the_backstop_reward_and_penalty_balance_only_at_half_the_segments_lost() {
        // The reason for the backstop: equal counts of rewards and penalties cancel to first
        // order, so the window keeps growing until half of what is sent is lost.
        let cfg = AdaptiveConfig { reduction: 1.0, ..AdaptiveConfig::default() };
        let mut c = Adaptive::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, &cfg);
        for k in 0..6 {
            c.on_ack(&ack(10 * k, 1, 9 - k, false));
        }
        c.on_ack(&ack(100, 1, 4, false));
        c.on_congestion_event(&LossEvent { mss: MSS, ..Default::default() });
        let w0 = c.exact_window();
        for k in 0..50 {
            c.on_ack(&ack(110 + k, 1, 4, true));
            c.on_ack(&AckEvent { bytes_lost: MSS as u64, ..ack(110 + k, 0, 4, true) });
        }
        assert!((c.exact_window() / w0 - 1.0).abs() < 1e-3, "50 rewards and 50 penalties: {} vs {w0}", c.exact_window());
    }

    #[test]
    fn reward_grows_the_window_by_eq_9_in_congestion_avoidance() {
        let mut c = after_one_round_with_six_of_ten_acked();
        c.on_congestion_event(&LossEvent { flight_size: 4 * MSS as u64, mss: MSS, ..Default::default() });
        let before = c.exact_window();
        c.on_ack(&ack(110, 1, 4, true));
        let n_s = before / B;
        let expected = before * (1.0 + 0.4 * 0.4 * (1.0 - 4.0 / (1.0 + 2.0 * n_s)) / B);
        assert!((c.exact_window() - expected).abs() < 1e-9, "{} vs {expected}", c.exact_window());
        assert!(c.exact_window() > before);
    }

    #[test]
    fn without_congestion_the_reward_is_zero() {
        // α = 0: every window segment acknowledged within the round.
        let mut c = adaptive();
        c.on_congestion_event(&LossEvent { flight_size: 10 * MSS as u64, mss: MSS, ..Default::default() });
        let w = c.exact_window();
        for k in 0..30 {
            c.on_ack(&ack(10 * k, 1, 9, true));
        }
        assert_eq!(c.alpha(), 0.0);
        assert_eq!(c.exact_window(), w);
    }

    #[test]
    fn slow_start_and_timeout_are_renos() {
        let mut c = adaptive();
        for k in 0..10 {
            c.on_ack(&ack(k, 1, 10, true));
        }
        assert_eq!(c.window(), 20 * MSS as u64, "doubles per round trip");
        c.on_ack(&ack(11, 5, 10, true));
        assert_eq!(c.window(), 22 * MSS as u64, "ABC: at most 2 segments per ACK");
        c.on_rto(&LossEvent { flight_size: 30 * MSS as u64, mss: MSS, ..Default::default() });
        assert_eq!(c.window(), MSS as u64);
        assert_eq!(c.ssthresh(), 15 * MSS as u64);
    }

    #[test]
    fn success_probability_follows_eqs_5_to_7() {
        let c = after_one_round_with_six_of_ten_acked();
        let l: f64 = 0.4 * 17.0 / 21.0;
        // Eq. (5): 1/(1 + e^{−α (l − BT) (N_l + N_s)/N_s}), N_l = 0.
        let p = 1.0 / (1.0 + (-(0.4 * (l - 2.0))).exp());
        assert!((c.loss_probability() - p).abs() < 1e-12);
        assert!((c.loss_probability() - 0.338_39).abs() < 1e-5, "hand value");
        assert!((c.success_probability(3.0) - (1.0 - p).powi(3)).abs() < 1e-12);
        let cfg = AdaptiveConfig { flows: 2.0, ..Default::default() };
        let mut two = Adaptive::new(CcParams { mss: MSS, initial_cwnd_segments: 10 }, &cfg);
        for k in 0..6 {
            two.on_ack(&ack(10 * k, 1, 9 - k, false));
        }
        two.on_ack(&ack(100, 1, 4, false));
        assert!((two.success_probability_flows(3.0) - (1.0 - p).powi(6)).abs() < 1e-12);
    }

    #[test]
    fn optimal_packet_size_follows_eq_8() {
        let c = after_one_round_with_six_of_ten_acked();
        // s = (α − (α² − α BT − 1)/α)(N_l + N_s)/N_s = 0.4 − (0.16 − 0.8 − 1)/0.4 = 4.5 = BT + 1/α.
        assert!((c.packet_size_factor() - 4.5).abs() < 1e-12);
        assert_eq!(c.optimal_packet_size(), 450, "4.5 units of 100 B");
        // Complete congestion (α = 1): s = BT + 1 = 3.
        let mut c = adaptive();
        c.on_ack(&AckEvent { now: 0, srtt: 100 * MS, mss: MSS, ..Default::default() });
        c.on_ack(&AckEvent { now: 100 * MS, srtt: 100 * MS, mss: MSS, ..Default::default() });
        assert_eq!(c.optimal_packet_size(), 300);
        // Lost packets scale s by (N_l + N_s)/N_s: 5 lost of 10 → ×1.5.
        let mut c = adaptive();
        c.on_ack(&AckEvent { now: 0, srtt: 100 * MS, mss: MSS, bytes_lost: 5 * MSS as u64, ..Default::default() });
        c.on_ack(&AckEvent { now: 100 * MS, srtt: 100 * MS, mss: MSS, ..Default::default() });
        assert!((c.packet_size_factor() - 4.5).abs() < 1e-12);
        // No congestion: the full MSS.
        assert_eq!(adaptive().optimal_packet_size(), MSS);
    }

    #[test]
    fn a_new_threshold_changes_the_model() {
        let mut c = after_one_round_with_six_of_ten_acked();
        c.set_threshold(0.5);
        // s = BT + 1/α = 0.5 + 2.5.
        assert!((c.packet_size_factor() - 3.0).abs() < 1e-12);
        c.set_threshold(f64::NAN);
        assert!((c.packet_size_factor() - 3.0).abs() < 1e-12, "ignored");
    }

    #[test]
    fn the_window_never_falls_below_one_segment() {
        let mut c = adaptive();
        c.on_ack(&AckEvent { now: 0, srtt: 100 * MS, mss: MSS, ..Default::default() });
        c.on_ack(&AckEvent { now: 100 * MS, srtt: 100 * MS, mss: MSS, ..Default::default() });
        c.on_rto(&LossEvent { flight_size: 0, mss: MSS, ..Default::default() });
        for _ in 0..1000 {
            c.on_congestion_event(&LossEvent { mss: MSS, ..Default::default() });
        }
        assert_eq!(c.window(), MSS as u64);
        assert_eq!(c.ssthresh(), 2 * MSS as u64);
    }
}
