//! The `mptcp` block of an MPTCP flow in summary.json and its time series: seed 001's metrics
//! (eq. 1–12) per run, plus direct measurements. Definitions: `metrics/definitions.rs`.

use super::flow::MpMetrics;
use super::results::{ms, quantiles_ms, Columns};
use super::AnyEndpoint;
use super::Simulation;
use crate::spec::TransportSpec;
use crate::transport::mptcp::MptcpConn;
use mptlab_engine::time::as_secs_f64;
use serde_json::{json, Value};

/// Mean and maximum of a sampled series (seed 001 eq. 3–4 and 8–9), null when empty.
pub(super) fn av_max(samples: &[f64]) -> (Value, Value) {
    if samples.is_empty() {
        return (Value::Null, Value::Null);
    }
    let av = samples.iter().sum::<f64>() / samples.len() as f64;
    let max = samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (json!(av), json!(max))
}

impl Simulation {
    /// Seconds flow `f` was active (start to stop or the end of the run).
    fn active_secs(&self, f: usize) -> f64 {
        let flow = &self.flows[f];
        let end = flow.stop.unwrap_or(self.spec.duration).min(self.spec.duration);
        as_secs_f64(end.saturating_sub(flow.start)).max(1e-9)
    }

    /// The `mptcp` block of flow `f`, or None when it is not an MPTCP flow.
    pub(super) fn mptcp_summary(&self, f: usize) -> Option<Value> {
        let (TransportSpec::Mptcp(spec), AnyEndpoint::Mptcp(MptcpConn { snd, rcv, .. })) =
            (&self.spec.flows[f].transport, &self.flows[f].endpoint)
        else {
            return None;
        };
        let m = &self.flows[f].metrics;
        let mp: &MpMetrics = m.mp.as_deref()?;
        let secs = self.active_secs(f);
        let link_names = |route: &[u32]| -> Vec<&str> { route.iter().map(|&l| self.spec.links[l as usize].name.as_str()).collect() };
        let total_scheduled: u64 = snd.subs.iter().map(|s| s.stats.bytes_scheduled).sum();
        let paths: Vec<Value> = snd
            .subs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let st = &s.snd.stats;
                let srtt = mp.srtt[i].points().1;
                let (srtt_av, srtt_max) = av_max(srtt);
                let drops = mp.path_drops[i];
                json!({
                    "index": i,
                    "route": link_names(&spec.paths[i].fwd_route),
                    "priority": s.priority,
                    "backup": s.backup,
                    "state": s.state,
                    "srtt_ms_mean": srtt_av,
                    "srtt_ms_max": srtt_max,
                    "min_rtt_ms": if s.snd.rtt().srtt().is_some() { json!(ms(s.snd.rtt().min_rtt() as f64)) } else { Value::Null },
                    "segments_sent": st.segments_sent,
                    "bytes_sent": st.bytes_sent,
                    "retransmissions": st.retransmissions,
                    "rto_count": st.rto_count,
                    "fast_recoveries": st.fast_recoveries,
                    "dropped_packets": drops,
                    "drop_rate_per_s": drops as f64 / secs,
                    "drop_pct": if st.segments_sent > 0 { 100.0 * drops as f64 / st.segments_sent as f64 } else { 0.0 },
                    "bytes_scheduled": s.stats.bytes_scheduled,
                    "share": if total_scheduled > 0 { s.stats.bytes_scheduled as f64 / total_scheduled as f64 } else { 0.0 },
                    "bytes_received": rcv.subs[i].bytes_received,
                    "chunks_reinjected": s.stats.chunks_reinjected,
                    "penalties": s.stats.penalties,
                    "opened": s.stats.opened,
                    "closed": s.stats.closed,
                    "final_cwnd_bytes": s.snd.cwnd(),
                })
            })
            .collect();
        let pd = mp.protocol_delay.points().1;
        let (v_av, v_max) = av_max(pd);
        let hol = mp.hol_degree.points().1;
        let (z_av, z_max) = av_max(hol);
        let negative = hol.iter().filter(|&&z| z < 0.0).count();
        let dad = mp.data_ack_delay.points().1;
        let (d_av, d_max) = av_max(dad);
        let st = &snd.stats;
        let mut block = json!({
            "scheduler": spec.scheduler.name(),
            "paths": paths,
            "protocol_delay_ms": {
                "v_av": v_av, "v_max": v_max, "samples": pd.len(),
                "first_data_ack": {"v_av": d_av, "v_max": d_max, "samples": dad.len()},
                "per_handover": quantiles_ms(&snd.protocol_delay),
            },
            "hol_degree_ms": {"zeta_av": z_av, "zeta_max": z_max, "samples": hol.len(), "negative_samples": negative},
            "hol_wait_ms": quantiles_ms(&rcv.hol_wait),
            "window_stall_s": as_secs_f64(snd.window_stall_ns(self.spec.duration)),
            "window_stalls": st.window_stalls,
            "chunks_reinjected": st.chunks_reinjected,
            "opportunistic_retransmits": st.opportunistic_retransmits,
            "penalizations": st.penalizations,
            "established_at_s": st.established_at.map(as_secs_f64),
            "closed_at_s": st.closed_at.map(as_secs_f64),
            "reassembly": rcv.stats,
        });
        // BLP's learned threshold and the features it measured (seed 002 §III).
        if let Some(blp) = snd.scheduler().blp_summary() {
            block["blp"] = json!(blp);
        }
        Some(block)
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
