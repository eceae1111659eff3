//! A tunnel's record in summary.json (`tunnels[]`, docs/metrics.md).

use crate::metrics::Stats;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct TunnelSummary {
    pub name: String,
    pub ingress: String,
    pub egress: String,
    pub protocol: &'static str,
    pub cc: &'static str,
    pub scheduler: &'static str,
    pub buffer: TunnelBufferSummary,
    pub paths: Vec<TunnelPathSummary>,
    /// Inner bytes that reached the egress over paths other than the first (priority order is
    /// the scenario's), over all inner bytes; null when none arrived.
    pub secondary_share: Option<f64>,
    pub egress_counters: TunnelEgressSummary,
}

#[derive(Clone, Debug, Serialize)]
pub struct TunnelBufferSummary {
    /// The drop-tail limit, in packets or bytes (one of the two).
    pub limit_packets: Option<u64>,
    pub limit_bytes: Option<u64>,
    /// Inner packets offered at the ingress, dropped because the buffer was full.
    pub offered: u64,
    pub dropped: u64,
    pub max_packets: u64,
    pub max_bytes: u64,
    /// Time inner packets waited for a path, in ms (placed packets).
    pub wait_ms_mean: f64,
    pub wait_ms_max: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct TunnelPathSummary {
    /// Link directions from the ingress to the egress.
    pub route: Vec<String>,
    pub priority: u32,
    pub backup: bool,
    pub packets_sent: u64,
    pub wire_bytes_sent: u64,
    /// Packets the path's sender learned were received / gave up as lost (loss detection and
    /// timeouts); `network_drops`: outer packets the network dropped (queues, channel).
    pub packets_acked: u64,
    pub packets_lost: u64,
    pub network_drops: u64,
    pub timeouts: u64,
    pub congestion_events: u64,
    /// Inner bytes that arrived at the egress over this path, and their rate per interval.
    pub inner_bytes: u64,
    pub throughput_mbps: Stats,
    /// The path's controller at the end of the run.
    pub cwnd_packets: f64,
    pub srtt_ms: Option<f64>,
    pub min_rtt_ms: Option<f64>,
    pub cc_state: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct TunnelEgressSummary {
    /// Outer data packets that arrived, and inner packets released to continue.
    pub arrived: u64,
    pub released: u64,
    /// The reordering stage's counters (transport::reorder).
    pub reorder: serde_json::Value,
}
