//! The per-path time series of multipath flows (seed 001's metrics, eq. 1–12, where the
//! transport measures them): each path's SRTT, T_over(k), ζ(k) and the first-DATA_ACK delay.
//! Definitions: `metrics/definitions.rs`.

use super::results::Columns;
use super::Simulation;

impl Simulation {
    /// Per-path SRTT, T_over(k) and ζ(k) series of multipath flows (a series a transport does
    /// not measure stays empty and adds no rows).
    pub(super) fn path_timeseries(&self, c: &mut Columns) {
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
