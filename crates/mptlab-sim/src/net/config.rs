//! The network layer's configuration: one link direction (`LinkSpec`) with its queue
//! discipline, queue limit and channel loss model, fully resolved by the scenario layer. The
//! network owns these types so that it imports nothing above it; the run spec (`spec.rs`)
//! re-exports them.

use super::capacity::CapacitySpec;
use mptlab_engine::Time;
use serde::Serialize;

pub type NodeId = u32;
pub type LinkId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct LinkSpec {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: Time,
    pub queue: QueueSpec,
    pub loss: LossSpec,
    /// A model that sets the rate over time (from time 0; `rate_bps` is then the nominal rate
    /// used for BDP queue limits).
    pub capacity: Option<CapacitySpec>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum QueueSpec {
    /// Tail drop when the waiting packets would exceed the limit.
    DropTail { limit: QueueLimit },
    /// RFC 8289 CoDel (defaults target 5 ms, interval 100 ms) with a hard limit behind it.
    CoDel { limit: QueueLimit, target: Time, interval: Time },
    /// Random Early Detection (Floyd & Jacobson 1993; see `net::queue::red`) in front of a
    /// hard limit. `min` and `max` are the thresholds on the average queue, both in packets or
    /// both in bytes (the unit the average is kept in); `max_p` the drop probability reached at
    /// `max`, `weight` the averaging weight w_q; `gentle` raises the probability linearly from
    /// `max_p` at `max` to 1 at 2·`max` instead of jumping to 1 at `max`.
    Red { limit: QueueLimit, min: QueueLimit, max: QueueLimit, max_p: f64, weight: f64, gentle: bool },
}

#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum LossSpec {
    None,
    /// Independent loss with probability `p` per packet.
    Bernoulli {
        p: f64,
    },
    /// Two-state Gilbert–Elliott channel: transition probabilities per packet and loss
    /// probability in each state.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
}
