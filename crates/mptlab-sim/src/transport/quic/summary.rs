//! A QUIC or multipath QUIC flow's part of the run summary: one `paths` record per path, in
//! the shape every multipath transport shares (RFC 9002 RTT and loss counters,
//! draft-ietf-quic-multipath path states), and the `quic` block: handshake times, streams and
//! the endpoints' counters. Schema: docs/metrics.md.

use super::{ConnStats, PathStats, QuicConfig, QuicConn, RecvStats};
use crate::metrics::report::ms;
use crate::sched::blp::BlpSummary;
use crate::transport::part::share;
use crate::transport::part::{PathDetail, PathMeasures, PathState, PathSummary, TransportPart};
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::Time;
use serde::Serialize;

/// What only a QUIC path reports (`paths[i].quic`).
#[derive(Clone, Debug, Serialize)]
pub struct QuicPathDetail {
    /// The path's current Path ID (a new one each time the slot's path is re-opened).
    pub path_id: u32,
    /// When the path was validated, s after the flow's start; null if never.
    pub validated_at_s: Option<f64>,
    /// The client's counters for the path.
    pub stats: PathStats,
    /// ACK-only packets the server sent on the path.
    pub peer_ack_only_sent: u64,
    pub congestion_events: u64,
    pub persistent_congestion_events: u64,
}

/// The `quic` block of a flow.
#[derive(Clone, Debug, Serialize)]
pub struct QuicSummary {
    /// BLP's learned threshold and features (seed 002 §III); null for other schedulers.
    pub blp: Option<BlpSummary>,
    pub multipath: bool,
    /// Handshake completed and confirmed (RFC 9001 §4.1.1–4.1.2), s after the flow's start.
    pub handshake_complete_s: Option<f64>,
    pub handshake_confirmed_s: Option<f64>,
    pub streams: u32,
    pub stream_bytes_retransmitted: u64,
    pub sender: ConnStats,
    pub receiver: QuicReceiverSummary,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct QuicReceiverSummary {
    pub stats: ConnStats,
    pub streams: RecvStats,
}

impl From<super::PathState> for PathState {
    fn from(s: super::PathState) -> Self {
        match s {
            super::PathState::Idle => PathState::Idle,
            super::PathState::Validating => PathState::Validating,
            super::PathState::Active => PathState::Active,
            super::PathState::Abandoned => PathState::Abandoned,
        }
    }
}

/// One record per path of the client (the sending end); `start` is the flow's start.
pub fn paths(cli: &QuicConn, srv: &QuicConn, measured: &PathMeasures, start: Time) -> Vec<PathSummary> {
    let total: u64 = cli.paths.iter().map(|p| p.stats.stream_bytes_sent).sum();
    cli.paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let rtt = p.recovery.rtt();
            let sampled = rtt.has_sample();
            let (srtt_ms_mean, srtt_ms_max) = measured.srtt_mean_max(i);
            PathSummary {
                index: i,
                route: measured.route(i),
                // The preferences the scheduler saw (the scenario's, or slot order and no backup).
                priority: p.prefs.priority,
                backup: p.prefs.backup,
                state: p.state.into(),
                srtt_ms_mean,
                srtt_ms_max,
                srtt_ms_final: sampled.then(|| ms(rtt.smoothed_rtt() as f64)),
                min_rtt_ms: sampled.then(|| ms(rtt.min_rtt() as f64)),
                final_cwnd_bytes: p.cc.window(),
                segments_sent: p.stats.data_packets_sent,
                bytes_sent: p.stats.bytes_sent,
                retransmissions: p.stats.packets_lost,
                rto_count: p.stats.ptos,
                dropped_packets: measured.drops(i),
                drop_rate_per_s: measured.drop_rate_per_s(i),
                drop_pct: measured.drop_pct(i, p.stats.data_packets_sent),
                share: share(p.stats.stream_bytes_sent, total),
                bytes_received: None,
                detail: PathDetail::Quic(QuicPathDetail {
                    path_id: p.id,
                    validated_at_s: p.validated_at.map(|t| as_secs_f64(t - start)),
                    stats: p.stats,
                    peer_ack_only_sent: srv.paths.get(i).map_or(0, |q| q.stats.ack_only_sent),
                    congestion_events: p.cc.congestion_events(),
                    persistent_congestion_events: p.cc.persistent_congestion_events(),
                }),
            }
        })
        .collect()
}

/// The `quic` block.
pub fn block(cli: &QuicConn, srv: &QuicConn, config: &QuicConfig, start: Time) -> QuicSummary {
    let rel = |t: Option<Time>| t.map(|t| as_secs_f64(t - start));
    QuicSummary {
        blp: cli.scheduler().blp_summary(),
        multipath: config.multipath,
        handshake_complete_s: rel(cli.stats.handshake_complete_at),
        handshake_confirmed_s: rel(cli.stats.handshake_confirmed_at),
        streams: config.streams,
        stream_bytes_retransmitted: cli.send.stats.retransmitted_bytes,
        sender: cli.stats,
        receiver: QuicReceiverSummary { stats: srv.stats, streams: srv.recv.stats },
    }
}

/// The flow record's transport part for a QUIC connection (client `cli` sends, server `srv`
/// receives).
pub fn part(
    cli: &QuicConn,
    srv: &QuicConn,
    measured: &PathMeasures,
    config: &QuicConfig,
    scheduler: &'static str,
    start: Time,
) -> TransportPart {
    let paths = paths(cli, srv, measured, start);
    TransportPart {
        retransmits: Some(TransportPart::totals_of(&paths)),
        scheduler: Some(scheduler),
        paths: Some(paths),
        mptcp: None,
        quic: Some(block(cli, srv, config, start)),
    }
}
