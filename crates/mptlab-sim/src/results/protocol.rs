//! The `protocols` block: data packets sent and dropped per wire protocol (`tcp`, `udp`),
//! summed over its flows (DESIGN.md "packet loss ... per protocol").

use crate::metrics::report::pct;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ProtocolSummary {
    pub sent_packets: u64,
    pub dropped_packets: u64,
    pub loss_pct: f64,
}

impl ProtocolSummary {
    pub fn new(sent_packets: u64, dropped_packets: u64) -> Self {
        Self { sent_packets, dropped_packets, loss_pct: pct(dropped_packets, sent_packets) }
    }
}
