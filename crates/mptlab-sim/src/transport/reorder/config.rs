//! The reordering module's settings (seed 003 §2.1, §4.2, §5.2; study notes seed003.md §2.4 and
//! A9). `Default` is the paper's evaluation setting as the study notes read it: adaptive wait
//! limit (max − min path delay) + 5 ms padding, receiver EWMA with weight 0.95 on each new
//! sample, path-sequence fast loss detection, late packets forwarded, a 2048-packet ring.
//! Where the paper is silent the MP-DCCP kernel's defaults (`ro_active.c`, described, not
//! copied) fill in: the 15 ms fixed timeout, forwarding of late packets, the 2048-entry ring.
//! The kernel's 100 ms cap on the adaptive timeout is an option, off by default, because it
//! would clip the paper's §5.2 variant (150 ms padding).
//!
//! Durations are simulated nanoseconds (`Time`), as everywhere in the engine.

use mptlab_engine::time::MILLISECOND;
use mptlab_engine::Time;
use serde::Serialize;

/// How long a packet behind a gap may wait (seed 003 §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReorderMode {
    /// No reordering: every arrival is released at once.
    Off,
    /// A fixed wait limit (`wait`), the kernel's "fixed" timeout.
    Static,
    /// Wait limit = (max path delay − min path delay) + `padding`, capped by `cap`.
    Adaptive,
    /// Delay equalisation (§2.1, ref. [10]): every packet is held until
    /// arrival + (max path delay − its path's delay) + `padding`, whatever the gaps.
    Equalize,
}

/// Fast loss detection (seed 003 §2.1: "analyses received sequence numbers to identify lost
/// packets, enabling the early release of delayed packets").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FastLoss {
    Off,
    /// From the per-path sequence numbers (the rule is in `reorderer.rs`).
    Path,
}

/// What happens to a packet that arrives after its gap was given up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LatePolicy {
    /// Passed on at once as `Release::Late` (the kernel's default, `drop_lost` = 0).
    Forward,
    /// Dropped and counted (`drop_lost` = 1).
    Drop,
}

macro_rules! named {
    ($t:ty, $what:literal, [$($name:literal => $v:expr),+ $(,)?]) => {
        impl $t {
            /// The names accepted by `from_name`.
            pub const NAMES: &'static [&'static str] = &[$($name),+];
            /// Case-insensitive lookup; an unknown name is an error that quotes it and lists the
            /// known ones.
            pub fn from_name(name: &str) -> Result<Self, String> {
                $(if name.eq_ignore_ascii_case($name) { return Ok($v); })+
                Err(format!("unknown {} \"{name}\"; known: {}", $what, Self::NAMES.join(", ")))
            }
        }
    };
}

named!(ReorderMode, "reordering mode", ["off" => ReorderMode::Off, "static" => ReorderMode::Static, "adaptive" => ReorderMode::Adaptive, "equalize" => ReorderMode::Equalize]);
named!(FastLoss, "fast loss detection", ["off" => FastLoss::Off, "path" => FastLoss::Path]);
named!(LatePolicy, "late packet policy", ["forward" => LatePolicy::Forward, "drop" => LatePolicy::Drop]);

/// The reordering module's configuration; `Reorderer::new` builds the state machine from it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReorderConfig {
    /// Default `adaptive` (the §4.2 settings, an RTT EWMA at the receiver and a padded wait
    /// limit, imply an RTT-derived limit; study notes A9).
    pub mode: ReorderMode,
    /// `static` only: the fixed wait limit. Default 15 ms, the kernel's `fixed_timeout`.
    pub wait: Time,
    /// `adaptive` and `equalize`: added to the wait. Default 5 ms (§4.2 "padded the reorder
    /// wait limit with 5 ms"; §5.2's variant uses 150 ms).
    pub padding: Time,
    /// `adaptive` and `equalize`: the most a wait may be, padding included. Default none (the
    /// kernel's `adaptive_timeout_max` is 100 ms).
    pub cap: Option<Time>,
    /// Weight of each new one-way delay sample in the per-path EWMA: est ← (1 − w)·est + w·sample.
    /// Default 0.95 (§4.2: "each new value determining 95% of the estimation").
    pub ewma_new: f64,
    /// Default `path`.
    pub fast_loss: FastLoss,
    /// Default `forward`.
    pub late: LatePolicy,
    /// Ring size in packets: the held packets' global sequence numbers must lie within
    /// `capacity` of the oldest gap (`equalize`: at most `capacity` packets held). When an
    /// arrival does not fit, the oldest gap is given up. Default 2048 (the kernel's ring).
    pub capacity: usize,
}

impl Default for ReorderConfig {
    fn default() -> Self {
        Self {
            mode: ReorderMode::Adaptive,
            wait: 15 * MILLISECOND,
            padding: 5 * MILLISECOND,
            cap: None,
            ewma_new: 0.95,
            fast_loss: FastLoss::Path,
            late: LatePolicy::Forward,
            capacity: 2048,
        }
    }
}

impl ReorderConfig {
    /// Rejects impossible values; the message names the field and the valid range.
    pub fn validate(&self) -> Result<(), String> {
        if self.capacity == 0 {
            return Err("capacity: must be at least 1 packet".into());
        }
        if !(self.ewma_new > 0.0 && self.ewma_new <= 1.0) {
            return Err(format!("ewma_new: {} is out of range (0, 1]", self.ewma_new));
        }
        Ok(())
    }
}
