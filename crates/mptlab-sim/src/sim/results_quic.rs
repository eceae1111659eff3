//! The `quic` block of a QUIC or multipath QUIC flow in summary.json: the handshake, each
//! path's packets, losses, PTOs, RTT and share, and the streams.

use super::results::ms;
use super::results_mptcp::av_max;
use super::AnyEndpoint;
use super::Simulation;
use crate::spec::TransportSpec;
use crate::transport::quic::QuicPair;
use mptlab_engine::time::as_secs_f64;
use serde_json::{json, Value};

impl Simulation {
    /// The `quic` block of flow `f`, or None when it is not a QUIC flow.
    pub(super) fn quic_summary(&self, f: usize) -> Option<Value> {
        let (TransportSpec::Quic(spec), AnyEndpoint::Quic(QuicPair { cli, srv, .. })) =
            (&self.spec.flows[f].transport, &self.flows[f].endpoint)
        else {
            return None;
        };
        let m = &self.flows[f].metrics;
        let start = self.flows[f].start;
        let link_names = |route: &[u32]| -> Vec<&str> { route.iter().map(|&l| self.spec.links[l as usize].name.as_str()).collect() };
        let total: u64 = cli.paths.iter().map(|p| p.stats.stream_bytes_sent).sum();
        let paths: Vec<Value> = cli
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let rtt = p.recovery.rtt();
                let (srtt_mean, _) = av_max(m.mp.as_deref().map_or(&[][..], |mp| mp.srtt[i].points().1));
                let drops = m.mp.as_deref().map_or(0, |mp| mp.path_drops[i]);
                json!({
                    "index": i,
                    "path_id": p.id,
                    "route": link_names(&spec.paths[i].fwd_route),
                    "state": p.state,
                    "validated_at_s": p.validated_at.map(|t| as_secs_f64(t - start)),
                    "srtt_ms_mean": srtt_mean,
                    "srtt_ms_final": if rtt.has_sample() { json!(ms(rtt.smoothed_rtt() as f64)) } else { Value::Null },
                    "min_rtt_ms": if rtt.has_sample() { json!(ms(rtt.min_rtt() as f64)) } else { Value::Null },
                    "final_cwnd_bytes": p.cc.window(),
                    "share": if total > 0 { p.stats.stream_bytes_sent as f64 / total as f64 } else { 0.0 },
                    "dropped_packets": drops,
                    "stats": p.stats,
                    "peer_ack_only_sent": srv.paths[i].stats.ack_only_sent,
                    "congestion_events": p.cc.congestion_events(),
                    "persistent_congestion_events": p.cc.persistent_congestion_events(),
                })
            })
            .collect();
        let rel = |t: Option<u64>| t.map(|t| as_secs_f64(t - start));
        let blp = cli.scheduler().blp_summary().map(|b| json!(b));
        Some(json!({
            "blp": blp,
            "multipath": spec.quic.multipath,
            "scheduler": spec.scheduler.name(),
            "handshake_complete_s": rel(cli.stats.handshake_complete_at),
            "handshake_confirmed_s": rel(cli.stats.handshake_confirmed_at),
            "paths": paths,
            "streams": spec.quic.streams,
            "stream_bytes_retransmitted": cli.send.stats.retransmitted_bytes,
            "sender": cli.stats,
            "receiver": {"stats": srv.stats, "streams": srv.recv.stats},
        }))
    }
}
