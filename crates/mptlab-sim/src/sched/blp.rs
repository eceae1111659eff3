//! BLP, blocking probability: minRTT while the paths are alike, a probability-weighted BLEST
//! blocking test once their RTTs differ by at least the blocking threshold BT.
//!
//! Source: seed 002, S. Das, J. Guo, K. Parsons et al., "Learning Based Scheduling and Adaptive
//! Congestion Control for Multipath QUIC", IEEE ICC Workshops 2025 (MERL TR2025-083), §III,
//! eq. (1) and Algorithm 1. The controller of §IV is `cc/adaptive.rs`.
//!
//! Algorithm 1, as implemented (line numbers are the paper's):
//!
//! ```text
//!  1–3   one eligible path: send on it
//!  5–7   a path without an RTT sample: lpid = (lpid + 1) mod n, send there (probe it)
//!  9–20  x_f = lowest RTT, x_s = the other (here: lowest RTT among the paths with space)
//! 21–22  x_f has window space: send on x_f
//! 24     bytes_left = tx − (B_s + mss_s)
//! 25     nc = ⌈bytes_left / mss_s⌉
//! 26     ratio = rtt_s / rtt_f
//! 27–28  ratio < BT: send on x_s                                   (MinRTT mode)
//!        pf = B_s / (B_s + B_f) · rtt_s / rtt_f · 1 / nc           (eq. (1))
//! 30     sm = pf · mss_f · ratio · (cwnd_f + ratio / 2)
//! 31     λ = pf · (λ + Δλ)
//! 32–35  sm · λ > bytes_left: wait for x_f (blocking mode), else send on x_s
//! ```
//!
//! Interpretations (where the pseudo-code is inconsistent or silent):
//! - Heterogeneity is the RTT ratio rtt_s/rtt_f ≥ 1 (line 26 writes it into `rtt_f`; here it is
//!   a separate `ratio`, and line 30's `rtt_f` is that ratio, since line 26 reassigned it). The
//!   comparison is line 27's strict `ratio < BT`: at ratio = BT BLP is in blocking mode.
//! - Line 6 divides, `(lpid + 1) / subflows_size`, which would pin lpid to 0; read as
//!   `mod`: paths without an RTT sample are probed in turn. Here: when any eligible path has no
//!   SRTT yet, the next eligible path with space after the last one used (by id, cyclically).
//! - Algorithm 1 names two paths (ids 0 and 1, "current" and "next" subflow). With more, x_f is
//!   the eligible path with the lowest SRTT whether or not it has space and x_s the lowest-SRTT
//!   path with space, as in `blest.rs`. `lastrtt` is the SRTT (`PathView::srtt`).
//! - Line 33 "lpid = fpid" in the else-branch of "x_f has window space" sends on a path with no
//!   window: the chunk waits for x_f. Here that is `Decision::Wait` (lpid still becomes x_f).
//! - tx (the connection's "transmission buffer") is the connection-level send window,
//!   `window_space + unacked`, as |M| in BLEST; B_s and B_f are a path's `in_flight + queued`
//!   (its bytes not yet acknowledged); mss_s, mss_f are the paths' MSS; cwnd_f is in segments
//!   (`cwnd / mss_f`), so sm is in bytes, like BLEST's X.
//!   The ns-3 MPQUIC module the paper runs (its ref. [14], `mp-quic-scheduler.cc`, BLEST) uses
//!   the socket's free transmit buffer (`GetTxAvailable`) for tx; the window reading is kept here
//!   for consistency with `blest.rs`.
//! - nc may be 0 or negative (the window is already full): pf then uses nc = 1, and line 32
//!   compares with the negative bytes_left, so a nonzero estimate blocks.
//! - eq. (1) has no term for the "number of flows" the text mentions; the equation is used as
//!   printed. B_s + B_f = 0 gives pf = 0.
//! - **λ (line 31) is the one place where the printed algorithm cannot be taken literally.**
//!   Read as a recurrence run at every blocking-mode evaluation, λ ← pf · (λ + Δλ) forgets its
//!   past geometrically whenever pf < 1: it tends to pf·Δλ/(1 − pf), and with Δλ = 0 (the
//!   paper's headline setting) to 0 within a few evaluations, after which line 32 never holds and
//!   BLP is MinRTT. Measured on seed 002's 5 + 50 Mbit/s pair (OLIA, 256 KB window): pf was
//!   0.004–0.13, λ fell from 1 to 1e-34 in 20 evaluations and BLP's run was bit-identical to
//!   MinRTT's. That contradicts the paper itself: §III says λ is "initially set to 1" and
//!   adapted "by a fixed variance Δλ" on head-of-line blocking (the BLEST rule it recalls), §V
//!   studies five values of Δλ and reports BLP apart from MinRTT at Δλ = 0. The recurrence also
//!   counts pf twice (line 30 already scales sm by pf).
//!   So by default (`lambda_rule = "hol"`) λ is BLEST's correction factor, as the text of §III
//!   describes it: it starts at `lambda` (1), moves up by Δλ after a head-of-line event and down
//!   by Δλ otherwise, at most once per minimum RTT of the slow path (the cadence of
//!   mptcp_blest.c, see `blest.rs`; the head-of-line event is detected as there), never below 0;
//!   pf enters line 32 once, through sm (line 30). With Δλ = 0, λ stays 1 and line 32 is
//!   BLEST's test on the pf-weighted estimate sm. `lambda_rule = "literal"` keeps line 31 as
//!   printed (the recurrence), to show the difference.
//! - "Blocking occurs with a calculated probability": Algorithm 1 uses pf as a weight, with no
//!   random draw; that is the default. Option `randomized = true` adds the reading of the text:
//!   a blocking outcome of line 32 is kept with probability min(pf, 1), drawn from the
//!   scheduler's own seeded stream (`SchedConfig::build_seeded`), so runs replay exactly.
//! - BT is learned offline in the paper (stacked classifier over path statistics, §III); no
//!   value is given. Here (option `model`, default `"builtin"`) the scheduler measures the
//!   paper's nine statistics itself over windows of `model_interval` simulated seconds
//!   (`blp_features.rs`), and at the end of each window evaluates the learned classifier
//!   (`blp_model.rs`, trained by `mptlab learn blp-threshold`) and sets BT to the predicted
//!   value. `model = "none"` keeps BT fixed at `threshold` (Algorithm 1 with a constant BT);
//!   with a model, `threshold` is BT until the first window closes. The fixed default 2.0 is
//!   ours: below a ratio of 2 a chunk sent now on x_s (arriving after rtt_s/2) is not later than
//!   one that waits on average rtt_f/2 for x_f's window and then rtt_f/2 to arrive, so blocking
//!   cannot pay off. `set_threshold` lets other learners replace BT at run time.
//! - Δλ: the paper studies five values, naming 0 (its headline results), 0.001 (best heterogeneous
//!   throughput, Fig. 9(b)) and 0.003 (Fig. 8(b)); default 0.001.

use super::blp_features::{FeatureWindow, Features, FEATURE_NAMES, N_FEATURES};
use super::blp_model::BlpModel;
use super::{eligible, head_of_line_event, lambda_period, rtt_key, ConnView, Decision, PathView, Scheduler};
use crate::cc::options::OptValue;
use crate::cc::Options;
use mptlab_engine::time::SECOND;
use mptlab_engine::Time;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::sync::Arc;

/// Upper bound on λ: line 31's recurrence is unbounded when pf ≥ 1 repeatedly (a guard against
/// overflow to infinity, far above any value that changes a decision).
pub const LAMBDA_CAP: f64 = 1e12;

/// Option `model`: `"builtin"` (the shipped model), `"none"` (fixed BT) or a path to a model
/// JSON file (relative to the working directory), loaded and checked when the option is set.
/// Compares and serialises as the name given.
#[derive(Clone, Debug)]
pub struct ModelChoice {
    pub name: String,
    pub model: Option<Arc<BlpModel>>,
}

impl ModelChoice {
    pub fn builtin() -> Self {
        Self { name: "builtin".into(), model: Some(BlpModel::builtin()) }
    }

    pub fn none() -> Self {
        Self { name: "none".into(), model: None }
    }

    /// The choice a scenario names; a file that cannot be read or is not a valid model is an
    /// error naming the file and the reason.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "builtin" => Ok(Self::builtin()),
            "none" => Ok(Self::none()),
            path => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read model file `{path}`: {e} (valid: \"builtin\", \"none\" or a model JSON file)"))?;
                let m = BlpModel::from_json(&text).map_err(|e| format!("model file `{path}`: {e}"))?;
                Ok(Self { name: path.into(), model: Some(Arc::new(m)) })
            }
        }
    }
}

impl PartialEq for ModelChoice {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Serialize for ModelChoice {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlpConfig {
    /// Blocking threshold BT on the RTT ratio rtt_s/rtt_f (ours: 2.0, see the file header).
    pub threshold: f64,
    /// Δλ of line 31 (seed 002 §V studies five values; 0.001 is its best heterogeneous case).
    pub delta_lambda: f64,
    /// Initial λ (§III: 1).
    pub lambda: f64,
    /// Keep a blocking outcome only with probability min(pf, 1) (seeded draw); false is
    /// Algorithm 1 as printed.
    pub randomized: bool,
    /// The learned-threshold model (default: the shipped one; "none": BT fixed at `threshold`).
    pub model: ModelChoice,
    /// Seconds of simulated time per feature window, after which the model sets BT (1 s).
    pub model_interval: f64,
    /// How λ moves (line 31): `Hol` (BLEST's ± Δλ on head-of-line events, the default) or
    /// `Literal` (the printed recurrence λ ← pf · (λ + Δλ)); see the file header.
    pub lambda_rule: LambdaRule,
}

/// How BLP's correction factor λ is updated (option `lambda_rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LambdaRule {
    /// §III's reading: λ starts at 1 and moves by ± Δλ on head-of-line events (as BLEST).
    Hol,
    /// Algorithm 1's line 31 as printed: λ ← pf · (λ + Δλ) at every blocking-mode evaluation.
    Literal,
}

impl LambdaRule {
    pub const NAMES: &'static [&'static str] = &["hol", "literal"];

    fn parse(name: &str) -> Result<Self, String> {
        match name {
            "hol" => Ok(Self::Hol),
            "literal" => Ok(Self::Literal),
            other => Err(format!("unknown lambda_rule `{other}` (valid: {})", Self::NAMES.join(", "))),
        }
    }
}

impl Default for BlpConfig {
    fn default() -> Self {
        Self {
            threshold: 2.0,
            delta_lambda: 0.001,
            lambda: 1.0,
            randomized: false,
            model: ModelChoice::builtin(),
            model_interval: 1.0,
            lambda_rule: LambdaRule::Hol,
        }
    }
}

impl BlpConfig {
    /// Algorithm 1 with the fixed threshold `threshold` (no learned model).
    pub fn fixed() -> Self {
        Self { model: ModelChoice::none(), ..Self::default() }
    }
}

impl Options for BlpConfig {
    const NAMES: &'static [&'static str] = &["threshold", "delta_lambda", "lambda", "randomized", "model", "model_interval", "lambda_rule"];
    fn set(&mut self, key: &str, v: OptValue) -> Result<(), String> {
        match key {
            "threshold" => self.threshold = v.number(0.0, 1e6)?,
            "delta_lambda" => self.delta_lambda = v.number(0.0, 1.0)?,
            "lambda" => self.lambda = v.number(0.0, 1e6)?,
            "randomized" => self.randomized = v.boolean()?,
            "model" => self.model = ModelChoice::parse(v.string()?)?,
            "model_interval" => self.model_interval = v.number(0.001, 3600.0)?,
            "lambda_rule" => self.lambda_rule = LambdaRule::parse(v.string()?)?,
            _ => unreachable!("checked against NAMES"),
        }
        Ok(())
    }
}

/// A scheduler's own random stream: SplitMix64 in counter mode (output n = mix(seed' + n·γ)),
/// so it is `Clone` and `Debug` like the scheduler and depends only on the seed and the number
/// of draws.
#[derive(Clone, Debug)]
pub struct SchedRng {
    state: u64,
}

impl SchedRng {
    /// `kind` separates the streams of different schedulers built from one seed.
    pub fn new(seed: u64, kind: u64) -> Self {
        Self { state: mix(seed ^ mix(kind)) }
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        (mix(self.state) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Stream tag of BLP's draws ("blp").
const RNG_KIND: u64 = 0x626c70;

/// The quantities of one blocking-mode evaluation (lines 24–32), kept for traces and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlpEstimate {
    pub bytes_left: f64,
    pub nc: f64,
    pub ratio: f64,
    pub pf: f64,
    pub sm: f64,
    /// λ after line 31.
    pub lambda: f64,
    /// Line 32's outcome (before a randomized draw).
    pub blocks: bool,
}

/// seed 002, eq. (1): pf = B_s/(B_s+B_f) · rtt_s/rtt_f · 1/nc (0 when B_s + B_f = 0; nc ≥ 1).
pub fn probability_factor(b_s: f64, b_f: f64, ratio: f64, nc: f64) -> f64 {
    if b_s + b_f <= 0.0 {
        return 0.0;
    }
    b_s / (b_s + b_f) * ratio / nc.max(1.0)
}

/// Feature values serialised as an object keyed by `FEATURE_NAMES`, in that order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FeatureValues(pub Features);

impl Serialize for FeatureValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(N_FEATURES))?;
        for (k, v) in FEATURE_NAMES.iter().zip(self.0) {
            m.serialize_entry(k, &v)?;
        }
        m.end()
    }
}

/// How many windows ended with a threshold chosen by the model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdCount {
    pub threshold: f64,
    pub windows: u64,
}

/// BLP's decisions by branch of Algorithm 1 (summary `decisions`): why it blocked or not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct BlpDecisions {
    /// Lines 1–3: one eligible path, sent on it.
    pub single_path: u64,
    /// Lines 5–7: a path without an RTT sample, probed.
    pub probes: u64,
    /// Lines 21–22: the fast path had window space.
    pub fast_path: u64,
    /// Line 28: the RTT ratio was below BT, sent on the slow path (MinRTT mode).
    pub minrtt_mode: u64,
    /// Lines 24–32 evaluated (blocking mode).
    pub blocking_mode: u64,
    /// Line 33: blocking mode chose to wait for the fast path.
    pub blocked: u64,
    /// Line 35: blocking mode sent on the slow path.
    pub slow_path: u64,
    /// Nothing eligible had space: waited without evaluating.
    pub no_space: u64,
}

/// One point of λ's trajectory.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LambdaPoint {
    pub t_s: f64,
    pub lambda: f64,
}

/// Most points kept of λ's trajectory; past it every other point is dropped and only every
/// `stride`-th change is kept from then on, so a long run keeps its whole span in bounded memory.
pub const TRAJECTORY_CAP: usize = 1024;

/// λ after each change, decimated to at most `TRAJECTORY_CAP` points.
#[derive(Clone, Debug, Default)]
struct Trajectory {
    points: Vec<LambdaPoint>,
    stride: u64,
    changes: u64,
}

impl Trajectory {
    fn record(&mut self, now: Time, lambda: f64) {
        if self.points.last().is_some_and(|p| p.lambda == lambda) {
            return;
        }
        self.changes += 1;
        let stride = self.stride.max(1);
        if !self.changes.is_multiple_of(stride) {
            return;
        }
        if self.points.len() == TRAJECTORY_CAP {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.stride = stride * 2;
        }
        self.points.push(LambdaPoint { t_s: now as f64 / SECOND as f64, lambda });
    }
}

/// BLP's state for a run summary (`flows[].mptcp.blp`, `flows[].quic.blp`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlpSummary {
    /// The `lambda_rule` option.
    pub lambda_rule: LambdaRule,
    /// λ now.
    pub lambda: f64,
    /// Decisions by branch of Algorithm 1.
    pub decisions: BlpDecisions,
    /// Head-of-line events seen (`lambda_rule = "hol"`) and λ updates made.
    pub hol_events: u64,
    pub lambda_updates: u64,
    /// λ at each change (time in s), decimated to at most `TRAJECTORY_CAP` points over the run.
    pub lambda_trajectory: Vec<LambdaPoint>,
    /// The `model` option ("builtin", "none" or the file).
    pub model: String,
    pub model_interval_s: f64,
    /// BT now.
    pub threshold: f64,
    /// Model evaluations (one per closed window when a model is set).
    pub evaluations: u64,
    /// Thresholds the model chose, ascending, with the number of windows each was chosen.
    pub thresholds_chosen: Vec<ThresholdCount>,
    /// Closed feature windows.
    pub windows: u64,
    /// Mean of each feature over the closed windows (null before the first closes).
    pub features_mean: Option<FeatureValues>,
    /// The last closed window's features.
    pub features_last: Option<FeatureValues>,
    /// The unfinished window up to the last decision (null when it has no length).
    pub features_open: Option<FeatureValues>,
}

#[derive(Clone, Debug)]
pub struct Blp {
    cfg: BlpConfig,
    threshold: f64,
    lambda: f64,
    /// Algorithm 1's lpid: the last path chosen (also when the choice meant waiting for it).
    lpid: usize,
    rng: SchedRng,
    last: Option<BlpEstimate>,
    model: Option<Arc<BlpModel>>,
    window: FeatureWindow,
    windows: u64,
    evaluations: u64,
    feature_sum: Features,
    last_features: Option<Features>,
    /// (threshold, windows), ascending by threshold; grows only when a new value is chosen.
    chosen: Vec<(f64, u64)>,
    decisions: BlpDecisions,
    /// A head-of-line event since the last λ update (as `blest.rs`).
    hol_event: bool,
    hol_events: u64,
    lambda_updates: u64,
    /// When λ was last updated under the `hol` rule (the first decision counts, as in BLEST).
    last_update: Option<Time>,
    trajectory: Trajectory,
}

impl Blp {
    pub fn new(cfg: &BlpConfig, seed: u64) -> Self {
        Self {
            cfg: cfg.clone(),
            threshold: cfg.threshold,
            lambda: cfg.lambda,
            lpid: 0,
            rng: SchedRng::new(seed, RNG_KIND),
            last: None,
            model: cfg.model.model.clone(),
            window: FeatureWindow::new((cfg.model_interval * SECOND as f64).round() as u64),
            windows: 0,
            evaluations: 0,
            feature_sum: [0.0; N_FEATURES],
            last_features: None,
            chosen: Vec::new(),
            decisions: BlpDecisions::default(),
            hol_event: false,
            hol_events: 0,
            lambda_updates: 0,
            last_update: None,
            trajectory: Trajectory::default(),
        }
    }

    /// A window closed with features `f`: keep them and, with a model, set BT from them.
    fn end_window(&mut self, f: Features) {
        self.windows += 1;
        for (s, v) in self.feature_sum.iter_mut().zip(f) {
            *s += v;
        }
        self.last_features = Some(f);
        let Some(model) = &self.model else { return };
        let bt = model.predict(&f);
        self.evaluations += 1;
        self.set_threshold(bt);
        match self.chosen.binary_search_by(|(t, _)| t.total_cmp(&bt)) {
            Ok(i) => self.chosen[i].1 += 1,
            Err(i) => self.chosen.insert(i, (bt, 1)),
        }
    }

    /// The learned-threshold state and the measured features.
    pub fn summary(&self) -> BlpSummary {
        let mean = (self.windows > 0).then(|| FeatureValues(self.feature_sum.map(|s| s / self.windows as f64)));
        BlpSummary {
            lambda_rule: self.cfg.lambda_rule,
            lambda: self.lambda,
            decisions: self.decisions,
            hol_events: self.hol_events,
            lambda_updates: self.lambda_updates,
            lambda_trajectory: self.trajectory.points.clone(),
            model: self.cfg.model.name.clone(),
            model_interval_s: self.cfg.model_interval,
            threshold: self.threshold,
            evaluations: self.evaluations,
            thresholds_chosen: self.chosen.iter().map(|&(threshold, windows)| ThresholdCount { threshold, windows }).collect(),
            windows: self.windows,
            features_mean: mean,
            features_last: self.last_features.map(FeatureValues),
            features_open: self.window.current().map(FeatureValues),
        }
    }

    /// Replace the blocking threshold BT (the hook for the learned model of §III, which sets it
    /// periodically). Negative or non-finite values are ignored.
    pub fn set_threshold(&mut self, bt: f64) {
        if bt.is_finite() && bt >= 0.0 {
            self.threshold = bt;
        }
    }

    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The correction factor λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Algorithm 1's lpid.
    pub fn last_path(&self) -> usize {
        self.lpid
    }

    /// The last blocking-mode evaluation (lines 24–32), if any.
    pub fn last_estimate(&self) -> Option<BlpEstimate> {
        self.last
    }

    /// Lines 24–32 for a full fast path `fast` and the candidate `slow`; updates λ.
    fn evaluate(&mut self, conn: &ConnView, fast: &PathView, slow: &PathView, ratio: f64) -> BlpEstimate {
        let mss_s = slow.mss.max(1) as f64;
        let mss_f = fast.mss.max(1) as f64;
        let b_s = slow.in_flight.saturating_add(slow.queued) as f64;
        let b_f = fast.in_flight.saturating_add(fast.queued) as f64;
        let tx = conn.window_space.saturating_add(conn.unacked) as f64;
        // Line 24: bytes_left = tx − (B_s + mss_s).
        let bytes_left = tx - (b_s + mss_s);
        // Line 25: nc = ⌈bytes_left / mss_s⌉ (at least 1 where it divides).
        let nc = (bytes_left / mss_s).ceil().max(1.0);
        let pf = probability_factor(b_s, b_f, ratio, nc);
        // Line 30: sm = pf · mss_f · ratio · (cwnd_f + ratio/2), cwnd_f in segments.
        let cwnd_f = fast.cwnd as f64 / mss_f;
        let sm = pf * mss_f * ratio * (cwnd_f + ratio / 2.0);
        // Line 31: λ = pf · (λ + Δλ) as printed, or BLEST's ± Δλ rule (the file header).
        match self.cfg.lambda_rule {
            LambdaRule::Literal => {
                self.lambda = (pf * (self.lambda + self.cfg.delta_lambda)).min(LAMBDA_CAP);
                self.lambda_updates += 1;
            }
            LambdaRule::Hol => self.update_lambda(conn.now, slow),
        }
        self.trajectory.record(conn.now, self.lambda);
        self.window.observe_lambda(self.lambda);
        // Line 32.
        let blocks = sm * self.lambda > bytes_left;
        BlpEstimate { bytes_left, nc, ratio, pf, sm, lambda: self.lambda, blocks }
    }

    /// The `hol` rule: at most once per minimum RTT of the slow path, λ up by Δλ after a
    /// head-of-line event, else down by Δλ, never below 0 (BLEST's rule, `blest.rs`).
    fn update_lambda(&mut self, now: Time, slow: &PathView) {
        let last = *self.last_update.get_or_insert(now);
        if now.saturating_sub(last) < lambda_period(slow) {
            return;
        }
        let step = if self.hol_event { self.cfg.delta_lambda } else { -self.cfg.delta_lambda };
        self.lambda = (self.lambda + step).clamp(0.0, LAMBDA_CAP);
        self.hol_event = false;
        self.last_update = Some(now);
        self.lambda_updates += 1;
    }

    /// A Send decision: record the head-of-line event as BLEST does (the window has no room for
    /// another full segment after this chunk while more data waits) and remember lpid.
    fn send(&mut self, conn: &ConnView, path: &PathView) -> Decision {
        if head_of_line_event(conn, path) {
            self.hol_event = true;
            self.hol_events += 1;
        }
        self.lpid = path.id;
        Decision::Send(path.id)
    }

    /// Lines 5–7: the next eligible path with space after lpid, cyclically by id.
    fn probe(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        let cands = eligible(paths).filter(|p| p.has_space);
        let after = cands.clone().filter(|p| p.id > self.lpid).min_by_key(|p| p.id);
        match after.or_else(|| cands.min_by_key(|p| p.id)) {
            Some(p) => {
                self.decisions.probes += 1;
                self.send(conn, p)
            }
            None => {
                self.decisions.no_space += 1;
                Decision::Wait
            }
        }
    }
}

impl Scheduler for Blp {
    fn select(&mut self, conn: &ConnView, paths: &[PathView]) -> Decision {
        if let Some(f) = self.window.observe(conn.now, paths) {
            self.end_window(f);
        }
        if self.last_update.is_none() {
            // The first decision: λ's starting point, and BLEST's first "update".
            self.last_update = Some(conn.now);
            self.trajectory.record(conn.now, self.lambda);
        }
        let mut it = eligible(paths);
        let (Some(first), second) = (it.next(), it.next()) else {
            return Decision::Wait;
        };
        // Lines 1–3: one path.
        if second.is_none() {
            return if first.has_space {
                self.decisions.single_path += 1;
                self.send(conn, first)
            } else {
                self.decisions.no_space += 1;
                Decision::Wait
            };
        }
        // Lines 5–7: a path without an RTT sample.
        if eligible(paths).any(|p| p.srtt == 0) {
            return self.probe(conn, paths);
        }
        // Lines 9–20.
        let fast = eligible(paths).min_by_key(rtt_key).expect("two eligible paths");
        // Lines 21–22.
        if fast.has_space {
            self.decisions.fast_path += 1;
            return self.send(conn, fast);
        }
        let Some(slow) = eligible(paths).filter(|p| p.has_space).min_by_key(rtt_key) else {
            self.decisions.no_space += 1;
            return Decision::Wait;
        };
        // Line 26.
        let ratio = slow.srtt as f64 / fast.srtt as f64;
        // Lines 27–28: MinRTT mode.
        if ratio < self.threshold {
            self.decisions.minrtt_mode += 1;
            return self.send(conn, slow);
        }
        // Lines 24–25, 30–32: blocking mode.
        self.decisions.blocking_mode += 1;
        let est = self.evaluate(conn, fast, slow, ratio);
        self.last = Some(est);
        let block = est.blocks && (!self.cfg.randomized || self.rng.bernoulli(est.pf.min(1.0)));
        if block {
            self.decisions.blocked += 1;
            self.lpid = fast.id;
            Decision::Wait
        } else {
            self.decisions.slow_path += 1;
            self.send(conn, slow)
        }
    }
}
