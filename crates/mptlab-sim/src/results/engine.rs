//! The `engine` block: how much work the run did.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EngineSummary {
    /// Events processed.
    pub events: u64,
    pub packets_created: u64,
    /// Data packets delivered to a receiving transport.
    pub delivered_data_packets: u64,
}
