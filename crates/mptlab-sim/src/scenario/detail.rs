//! `metrics.detail_flows`, `metrics.detail_links` and `metrics.jitter` → which flows and link
//! directions a run measures in detail (time series, traces, per-packet distributions) and
//! where it computes jitter. The rest get counters and streamed interval statistics only, so a
//! run of 12,000 devices does not keep 12,000 time series nobody asked for.
//!
//! `"auto"` (the default): every flow of an entry with at most `DETAIL_FLOW_LIMIT` flows, and
//! every link direction that is neither a group's access link nor a Wi-Fi direction (a channel
//! of n stations has up to n(n − 1) of them, with no queue of their own to trace; name the
//! channel in `detail_links` to have them).

use super::defaults as d;
use super::errors::{Result, ScenarioError};
use super::raw::{Scenario, Selection, SelectionRule};
use super::topology::Topology;
use crate::spec::{FlowSpec, MetricsSpec};

pub fn metrics_spec(s: &Scenario, topo: &Topology, flows: &[FlowSpec]) -> Result<MetricsSpec> {
    let m = &s.metrics;
    let mut spec = MetricsSpec::new(m.interval.0, m.trace_interval.0);
    spec.detail_flows = detail_flows(s, flows)?;
    spec.detail_links = detail_links(s, topo)?;
    spec.flow_jitter = m.jitter.flows();
    spec.link_jitter = m.jitter.links();
    Ok(spec)
}

fn detail_flows(s: &Scenario, flows: &[FlowSpec]) -> Result<Vec<bool>> {
    let size = |entry: &str| flows.iter().filter(|f| f.group == entry).count();
    Ok(match &s.metrics.detail_flows {
        Selection::Rule(SelectionRule::Auto) => {
            let small: Vec<&String> = s.flows.keys().filter(|e| size(e) <= d::DETAIL_FLOW_LIMIT).collect();
            flows.iter().map(|f| small.contains(&&f.group)).collect()
        }
        Selection::Rule(rule) => vec![*rule == SelectionRule::All; flows.len()],
        Selection::Names(names) => {
            for (i, n) in names.iter().enumerate() {
                if !s.flows.contains_key(n) {
                    return Err(ScenarioError::new(format!("metrics.detail_flows[{i}]"), format!("unknown flow entry `{n}`"))
                        .with_choices(s.flows.keys()));
                }
            }
            flows.iter().map(|f| names.contains(&f.group)).collect()
        }
    })
}

fn detail_links(s: &Scenario, topo: &Topology) -> Result<Vec<bool>> {
    // Group access links and Wi-Fi directions are left out of "auto".
    let not_auto = |origin: &str| origin.starts_with("groups.") || origin.starts_with("wifi.");
    Ok(match &s.metrics.detail_links {
        Selection::Rule(SelectionRule::Auto) => topo.dirs.iter().map(|d| !not_auto(&d.origin)).collect(),
        Selection::Rule(rule) => vec![*rule == SelectionRule::All; topo.dirs.len()],
        Selection::Names(names) => {
            // A link entry names both its directions; a group names all its access links; a
            // Wi-Fi channel all its directions.
            let origins: Vec<String> = s
                .links
                .keys()
                .map(|l| format!("links.{l}"))
                .chain(s.groups.keys().map(|g| format!("groups.{g}.link")))
                .chain(s.wifi.keys().map(|w| format!("wifi.{w}")))
                .collect();
            let mut chosen = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let (link, group, wifi) = (format!("links.{n}"), format!("groups.{n}.link"), format!("wifi.{n}"));
                match origins.iter().find(|o| **o == link || **o == group || **o == wifi) {
                    Some(o) => chosen.push(o.clone()),
                    None => {
                        return Err(ScenarioError::new(
                            format!("metrics.detail_links[{i}]"),
                            format!("unknown link, group or Wi-Fi channel `{n}`"),
                        )
                        .with_choices(s.links.keys().chain(s.groups.keys()).chain(s.wifi.keys())))
                    }
                }
            }
            topo.dirs.iter().map(|d| chosen.contains(&d.origin)).collect()
        }
    })
}
