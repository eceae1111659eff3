//! Metrics layer: online aggregators fed on the simulator's per-packet hot path (no allocation
//! or hashing per sample, O(1) per record) and summarised once at the end of a run. Each file
//! states what it measures and its source definition; `definitions::DEFINITIONS` names the exact
//! definition of every metric reported in summary.json.

pub mod definitions;
pub mod histogram;
pub mod interval;
pub mod jain;
pub mod jitter;
pub mod jitter_samples;
pub mod link_groups;
pub mod link_jitter;
pub mod queue_stats;
pub mod rates;
pub mod report;
pub mod stats;
pub mod trace;

pub use definitions::{definition, DEFINITIONS};
pub use histogram::LogHistogram;
pub use interval::{active_bins, IntervalBins};
pub use jain::jain_index;
pub use jitter::{JitterEstimator, Rfc3550Jitter};
pub use jitter_samples::JitterSamples;
pub use link_groups::{GroupCounts, LinkGroups};
pub use link_jitter::LinkJitter;
pub use queue_stats::QueueStats;
pub use rates::{RateMeter, StreamingRates, WireMeter};
pub use stats::{u64_to_f64, RunningStats, Stats};
pub use trace::Trace;
