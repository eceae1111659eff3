//! The record of one flow (`flows[]`): what every flow reports (application goodput, packets,
//! delays), then the part its transport fills (`TransportPart`, built next to the transport in
//! `transport/<name>/summary.rs`).

use super::path::PathSummary;
use super::values::{JitterSummary, Quantiles};
use crate::metrics::Stats;
use crate::transport::mptcp::summary::MptcpSummary;
use crate::transport::quic::summary::QuicSummary;
use crate::transport::tcp::summary::TcpDetail;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub name: String,
    /// The scenario flow entry the flow came from.
    pub group: String,
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

/// The part of a flow's record its transport fills. Every key is always written (null when it
/// does not apply), so all flows have one shape.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TransportPart {
    /// Retransmission totals (and TCP's details); null for UDP. Written under the key `tcp`
    /// (its name since the first summaries).
    #[serde(rename = "tcp")]
    pub retransmits: Option<RetransmitTotals>,
    /// The packet scheduler of a transport with paths; null for TCP and UDP.
    pub scheduler: Option<&'static str>,
    /// One record per path (MPTCP subflows, QUIC paths); null for TCP and UDP.
    pub paths: Option<Vec<PathSummary>>,
    /// MPTCP's connection-level metrics (seed 001); null for other transports.
    pub mptcp: Option<MptcpSummary>,
    /// QUIC's connection-level details; null for other transports.
    pub quic: Option<QuicSummary>,
}

/// The `tcp` key of a flow: retransmissions and timer expiries summed over its paths, and for
/// a TCP flow its own details.
#[derive(Clone, Debug, Serialize)]
pub struct RetransmitTotals {
    pub retransmissions: u64,
    pub rto_count: u64,
    #[serde(flatten)]
    pub detail: Option<TcpDetail>,
}

impl TransportPart {
    /// Sums of the paths' retransmissions and RTOs, as a multipath flow's `tcp` key.
    pub fn totals_of(paths: &[PathSummary]) -> RetransmitTotals {
        RetransmitTotals {
            retransmissions: paths.iter().map(|p| p.retransmissions).sum(),
            rto_count: paths.iter().map(|p| p.rto_count).sum(),
            detail: None,
        }
    }
}
