//! The record of one flow (`flows[]`): what every flow reports (application goodput, packets,
//! delays), then the part its transport fills (`TransportPart`, built next to the transport in
//! `transport/<name>/summary.rs`).

use crate::metrics::report::{JitterSummary, Quantiles};
use crate::metrics::Stats;
use crate::transport::part::TransportPart;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub name: String,
    /// The scenario flow entry the flow came from.
    pub group: String,
    /// Measured in detail (`metrics.detail_flows`): series, traces, delay distributions.
    pub detailed: bool,
    /// `tcp`, `udp`, `mptcp`, `quic` or `mpquic`.
    pub protocol: &'static str,
    /// The congestion controller's canonical name; null for UDP.
    pub cc: Option<&'static str>,
    pub src: String,
    pub dst: String,
    /// Application goodput per interval, Mbit/s, over the flow's active intervals.
    pub goodput_mbps: Stats,
    pub bytes_delivered: u64,
    pub sent_packets: u64,
    pub dropped_packets: u64,
    pub loss_pct: f64,
    pub ack_packets_sent: u64,
    /// From the transport's `tcp` block; null for UDP.
    pub retransmissions: Option<u64>,
    pub rto_count: Option<u64>,
    /// Mean of the sampled SRTT trace (TCP only; multipath flows report it per path), ms.
    pub srtt_ms_mean: Option<f64>,
    pub jitter_ms: Option<JitterSummary>,
    pub owd_ms: Option<Quantiles>,
    pub interarrival_ms: Option<Quantiles>,
    pub completion_time_s: Option<f64>,
    pub app_blocked_ticks: u64,
    #[serde(flatten)]
    pub transport: TransportPart,
}
