//! MPTCP flows' results: the glue handing the simulation's per-path measurements to
//! `transport::mptcp::summary` (seed 001's metrics, eq. 1–12), and their time series.
//! Definitions: `metrics/definitions.rs`.

use super::flow::MpMetrics;
use super::results::Columns;
use super::Simulation;
use crate::results::TransportPart;
use crate::spec::MptcpSpec;
use crate::transport::mptcp::summary::MptcpTraces;
use crate::transport::mptcp::{self, MptcpReceiver, MptcpSender};

impl Simulation {
    /// The transport part of MPTCP flow `f`'s record: the measured paths and traces handed to
    /// `transport::mptcp::summary`.
    pub(super) fn mptcp_part(&self, f: usize, spec: &MptcpSpec, snd: &MptcpSender, rcv: &MptcpReceiver) -> TransportPart {
        let traces = self.flows[f].metrics.mp.as_deref().map(|mp: &MpMetrics| MptcpTraces {
            protocol_delay: &mp.protocol_delay,
            hol_degree: &mp.hol_degree,
            data_ack_delay: &mp.data_ack_delay,
        });
        mptcp::summary::part(snd, rcv, &self.path_measures(f, &spec.paths), traces.as_ref(), spec.scheduler.name(), self.spec.duration)
    }

    /// Per-path SRTT, T_over(k) and ζ(k) series of MPTCP flows.
    pub(super) fn mptcp_timeseries(&self, c: &mut Columns) {
        for (i, flow) in self.flows.iter().enumerate() {
            let Some(mp) = flow.metrics.mp.as_deref() else { continue };
            let name = &self.spec.flows[i].name;
            for (k, tr) in mp.srtt.iter().enumerate() {
                c.push_trace("srtt_ms", &format!("{name}/path{k}"), tr);
            }
            c.push_trace("protocol_delay_ms", name, &mp.protocol_delay);
            c.push_trace("hol_degree_ms", name, &mp.hol_degree);
            c.push_trace("first_data_ack_delay_ms", name, &mp.data_ack_delay);
        }
    }
}
