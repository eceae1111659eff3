//! The whole summary of a run: the run's identity (seed, duration, canonical scenario, metric
//! definitions) and every block. Serialized through `serde_json::Value`, whose maps are
//! ordered, so summary.json's keys are sorted and the file is byte-identical across runs.

use super::{EngineSummary, FlowSummary, GroupSummary, LinkSummary, ProtocolSummary, TunnelSummary, WifiSummary};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize)]
pub struct RunSummary<'a> {
    pub seed: u64,
    pub duration_s: f64,
    /// The canonical scenario (every default filled in).
    pub scenario: &'a Value,
    /// `{metric name: definition}` (`metrics::DEFINITIONS`).
    pub definitions: BTreeMap<&'static str, &'static str>,
    pub flows: Vec<FlowSummary>,
    pub links: Vec<LinkSummary>,
    pub groups: Vec<GroupSummary>,
    /// Jain's index over every flow's mean goodput.
    pub jain_all_flows: Option<f64>,
    /// Per wire protocol that sent data.
    pub protocols: BTreeMap<&'static str, ProtocolSummary>,
    pub engine: EngineSummary,
    /// Multipath tunnels (absent when the run has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tunnels: Vec<TunnelSummary>,
    /// The one-way delay of every data packet of the detailed flows, pooled: quantiles at 0, 1,
    /// …, 100 % (absent without such packets). The latency CDF of seed 004's Figs. 6, 9, 13.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_owd_cdf_ms: Option<OwdCdf>,
    /// Wi-Fi channels (absent when the run has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wifi: Vec<WifiSummary>,
}

/// `data_owd_cdf_ms`: pooled one-way delays (log-histogram resolution, within 3.1 %; the
/// 0 % and 100 % levels are the exact minimum and maximum).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OwdCdf {
    pub count: u64,
    pub mean: f64,
    /// Quantile at level i % for i = 0..=100.
    pub quantiles: Vec<f64>,
}

impl RunSummary<'_> {
    /// The summary as JSON (keys sorted).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a summary is plain data")
    }

    /// The summary as JSON text, written straight from the typed records (keys in field order;
    /// summary.json sorts them). No intermediate `Value` tree: for 12,000 flows and 24,000
    /// link directions that tree costs hundreds of MB.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).expect("a summary is plain data")
    }
}
