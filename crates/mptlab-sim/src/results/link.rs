//! The record of one link direction (`links[]`): wire throughput, drops, queueing.

use crate::metrics::report::Quantiles;
use crate::metrics::Stats;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Measured in detail (`metrics.detail_links`): series, traces, delay distribution.
    pub detailed: bool,
    /// Configured rate, Mbit/s.
    pub rate_mbps: f64,
    /// Wire throughput per interval, all protocols, Mbit/s.
    pub throughput_mbps: Stats,
    pub bytes: u64,
    pub packets: u64,
    pub offered_packets: u64,
    pub queue_drops: u64,
    pub channel_drops: u64,
    pub drops: u64,
    pub down_drops: u64,
    /// Time-average capacity (0 while down), Mbit/s; null unless the rate or state varies.
    pub mean_rate_mbps: Option<f64>,
    pub drop_pct: f64,
    pub queue_delay_ms: Option<Quantiles>,
    pub queue_pkts_mean: Option<f64>,
    pub queue_pkts_max: u64,
    /// RFC 3550 jitter of the merged stream of data packets (`metrics::link_jitter`); null
    /// unless the run asks for link jitter on a detailed link, or before a second arrival.
    pub jitter_ms: Option<Stats>,
    /// RFC 3550 jitter per (flow, path) stream, samples pooled over the streams; null as above.
    pub subflow_jitter_ms: Option<Stats>,
    /// Per protocol that used the link (`tcp`, `udp`).
    pub by_protocol: BTreeMap<&'static str, LinkProtocolSummary>,
    /// Per flow group (scenario flow entry) that offered packets to the link; null on an
    /// undetailed link.
    pub by_group: Option<BTreeMap<String, LinkGroupSummary>>,
    /// MAC transmissions of a Wi-Fi direction (null on point-to-point links).
    pub mac: Option<super::LinkMacSummary>,
}

/// One flow group on one link direction (`links[].by_group.<group>`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinkGroupSummary {
    pub offered_packets: u64,
    pub packets: u64,
    pub bytes: u64,
    /// Queue, channel and down drops.
    pub drops: u64,
    /// The group's wire throughput per interval, Mbit/s.
    pub throughput_mbps: Stats,
    pub jitter_ms: Option<Stats>,
    pub subflow_jitter_ms: Option<Stats>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinkProtocolSummary {
    pub bytes: u64,
    pub throughput_mbps: Stats,
}
