//! The `groups` block: one record per flow group (each scenario flow entry, all its `count`
//! flows; and each `metrics.jain_groups` grouping), with sums over its members and
//! distributions across them. Jain's index: Jain, Chiu & Hawe, DEC-TR-301 (1984).

use super::flow::FlowSummary;
use crate::metrics::report::pct;
use crate::metrics::{jain_index, Stats};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupSummary {
    pub name: String,
    /// Number of member flows.
    pub flows: usize,
    /// Sum of the members' mean goodput, Mbit/s.
    pub goodput_mbps_total: f64,
    /// Mean of the members' mean goodput, Mbit/s (0 for an empty group).
    pub goodput_mbps_mean: f64,
    /// Jain's index over the members' mean goodput; null when undefined.
    pub jain: Option<f64>,
    /// Distribution of the members' mean goodput (one sample per flow), Mbit/s.
    pub goodput_mbps: Stats,
    pub bytes_delivered: u64,
    pub sent_packets: u64,
    pub dropped_packets: u64,
    /// `dropped_packets / sent_packets` in percent (0 when nothing was sent).
    pub loss_pct: f64,
    /// Distribution of the members' completion times (`file` apps that completed), s; null
    /// when no member completed.
    pub completion_time_s: Option<Stats>,
}

impl GroupSummary {
    /// The group `name` of `members`, in member order (sums are taken in that order).
    pub fn of<'a>(name: &str, members: impl IntoIterator<Item = &'a FlowSummary>) -> Self {
        let members: Vec<&FlowSummary> = members.into_iter().collect();
        let xs: Vec<f64> = members.iter().map(|f| f.goodput_mbps.mean).collect();
        let total: f64 = xs.iter().sum();
        let sent: u64 = members.iter().map(|f| f.sent_packets).sum();
        let dropped: u64 = members.iter().map(|f| f.dropped_packets).sum();
        let completions: Vec<f64> = members.iter().filter_map(|f| f.completion_time_s).collect();
        GroupSummary {
            name: name.to_string(),
            flows: members.len(),
            goodput_mbps_total: total,
            goodput_mbps_mean: if xs.is_empty() { 0.0 } else { total / xs.len() as f64 },
            jain: jain_index(&xs),
            goodput_mbps: Stats::from_samples(&xs),
            bytes_delivered: members.iter().map(|f| f.bytes_delivered).sum(),
            sent_packets: sent,
            dropped_packets: dropped,
            loss_pct: pct(dropped, sent),
            completion_time_s: (!completions.is_empty()).then(|| Stats::from_samples(&completions)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TransportPart;

    fn flow(goodput: f64, sent: u64, dropped: u64, completion: Option<f64>) -> FlowSummary {
        FlowSummary {
            name: "f".into(),
            group: "g".into(),
            detailed: true,
            protocol: "udp",
            cc: None,
            src: "a".into(),
            dst: "b".into(),
            goodput_mbps: Stats { mean: goodput, ..Stats::default() },
            bytes_delivered: 1000,
            sent_packets: sent,
            dropped_packets: dropped,
            loss_pct: pct(dropped, sent),
            ack_packets_sent: 0,
            retransmissions: None,
            rto_count: None,
            srtt_ms_mean: None,
            jitter_ms: None,
            owd_ms: None,
            interarrival_ms: None,
            completion_time_s: completion,
            app_blocked_ticks: 0,
            transport: TransportPart::default(),
        }
    }

    #[test]
    fn sums_and_distributions_over_members() {
        let flows = [flow(1.0, 10, 1, Some(2.0)), flow(3.0, 30, 3, None)];
        let g = GroupSummary::of("g", &flows);
        assert_eq!((g.flows, g.goodput_mbps_total, g.goodput_mbps_mean), (2, 4.0, 2.0));
        assert_eq!((g.goodput_mbps.min, g.goodput_mbps.max, g.goodput_mbps.p50, g.goodput_mbps.count), (1.0, 3.0, 2.0, 2));
        assert_eq!(g.jain, Some(16.0 / 20.0));
        assert_eq!((g.bytes_delivered, g.sent_packets, g.dropped_packets, g.loss_pct), (2000, 40, 4, 10.0));
        assert_eq!(g.completion_time_s.map(|s| (s.mean, s.count)), Some((2.0, 1)));
    }

    #[test]
    fn every_flow_record_has_the_transport_keys_null_when_they_do_not_apply() {
        let v = serde_json::to_value(flow(1.0, 1, 0, None)).unwrap();
        for k in ["tcp", "scheduler", "paths", "mptcp", "quic", "retransmissions", "completion_time_s"] {
            assert!(v.get(k).is_some_and(|x| x.is_null()), "{k}");
        }
        assert!(v.get("transport").is_none(), "the transport part is flattened into the record");
    }

    #[test]
    fn an_empty_or_idle_group_has_no_fairness_and_no_loss() {
        let g = GroupSummary::of("none", &[]);
        assert_eq!((g.flows, g.goodput_mbps_mean, g.jain, g.loss_pct, g.completion_time_s), (0, 0.0, None, 0.0, None));
        let idle = GroupSummary::of("idle", &[flow(0.0, 0, 0, None)]);
        assert_eq!(idle.jain, None);
    }
}
