//! The multipath tunnel's egress reordering module (issue 22, seed 003 §2.1, §4.2, §5.2): puts
//! the inner packets that arrive over several tunnel paths back in their global order, or
//! gives up on a gap after a wait limit, on proof of loss (fast loss detection) or when the
//! buffer is full. Modes `off`, `static`, `adaptive` (default), `equalize`.
//!
//! - `config`: `ReorderConfig` (defaults = the paper's settings) and the mode names.
//! - `delay`: the receiver's per-path one-way delay EWMA (§4.2).
//! - `reorderer`: `Reorderer`, the state machine (its header states every rule and choice).
//! - `stats`: `ReorderStats`.
//!
//! The tunnel calls `Reorderer` through `transport::multipath::Reordering` (`on_arrival`,
//! `deadline`, `on_timeout`). docs/tunnels.md ("Reordering at the egress") explains the modes for users.

mod config;
mod delay;
mod reorderer;
mod stats;
#[cfg(test)]
mod tests;

pub use crate::transport::multipath::{Arrival, Release, Reordering};
pub use config::{FastLoss, LatePolicy, ReorderConfig, ReorderMode};
pub use delay::DelayEstimate;
pub use reorderer::Reorderer;
pub use stats::{HoldTime, ReorderStats};
