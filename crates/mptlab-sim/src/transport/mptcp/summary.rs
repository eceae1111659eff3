//! An MPTCP flow's part of the run summary: one `paths` record per subflow, in the shape every
//! multipath transport shares, and the `mptcp` block with seed 001's connection-level metrics
//! (protocol delay eq. 1–6, head-of-line blocking degree eq. 7–11) and direct measurements.
//! Schema: docs/metrics.md; definitions: the `mptcp_*` entries of `metrics::DEFINITIONS`.

use super::{MptcpReceiver, MptcpReceiverStats, MptcpSender, SubState};
use crate::metrics::report::Quantiles;
use crate::metrics::report::{mean_max, ms};
use crate::metrics::Trace;
use crate::sched::blp::BlpSummary;
use crate::transport::part::share;
use crate::transport::part::{PathDetail, PathMeasures, PathState, PathSummary, TransportPart};
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::Time;
use serde::Serialize;

/// What only an MPTCP subflow reports (`paths[i].mptcp`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MptcpPathDetail {
    pub fast_recoveries: u64,
    /// Connection bytes the scheduler placed on the subflow (new data and reinjections).
    pub bytes_scheduled: u64,
    pub chunks_reinjected: u64,
    pub penalties: u64,
    pub opened: u64,
    pub closed: u64,
}

/// The `mptcp` block of a flow.
#[derive(Clone, Debug, Serialize)]
pub struct MptcpSummary {
    pub protocol_delay_ms: ProtocolDelay,
    pub hol_degree_ms: HolDegree,
    /// Direct reassembly wait per chunk, ms.
    pub hol_wait_ms: Option<Quantiles>,
    pub window_stall_s: f64,
    pub window_stalls: u64,
    pub chunks_reinjected: u64,
    pub opportunistic_retransmits: u64,
    pub penalizations: u64,
    /// Simulated time of the handshake's end and of the close, s.
    pub established_at_s: Option<f64>,
    pub closed_at_s: Option<f64>,
    pub reassembly: MptcpReceiverStats,
    /// BLP's learned threshold and features (seed 002 §III); absent for other schedulers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blp: Option<BlpSummary>,
}

/// Seed 001 eq. 2–4: mean and maximum of T_over(k) over the run, ms.
#[derive(Clone, Debug, Serialize)]
pub struct ProtocolDelay {
    pub v_av: Option<f64>,
    pub v_max: Option<f64>,
    pub samples: usize,
    /// The same for the first DATA_ACK on any path.
    pub first_data_ack: FirstDataAck,
    /// Hand-over → DATA_ACK delay over every hand-over.
    pub per_handover: Option<Quantiles>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FirstDataAck {
    pub v_av: Option<f64>,
    pub v_max: Option<f64>,
    pub samples: usize,
}

/// Seed 001 eq. 7–9: ζ(k) = T_over(k) − max_i τ_i(k), mean and maximum over the run, ms.
#[derive(Clone, Debug, Serialize)]
pub struct HolDegree {
    pub zeta_av: Option<f64>,
    pub zeta_max: Option<f64>,
    pub samples: usize,
    /// Samples with ζ(k) < 0.
    pub negative_samples: usize,
}

/// The connection-level series the simulation sampled every trace interval, ms.
pub struct MptcpTraces<'a> {
    /// T_over(k) (seed 001 eq. 2).
    pub protocol_delay: &'a Trace,
    /// ζ(k) (eq. 8–9).
    pub hol_degree: &'a Trace,
    /// Largest hand-over → first DATA_ACK delay acknowledged in interval k.
    pub data_ack_delay: &'a Trace,
}

impl From<SubState> for PathState {
    fn from(s: SubState) -> Self {
        match s {
            SubState::Idle => PathState::Idle,
            SubState::Active => PathState::Active,
            SubState::Closed => PathState::Closed,
        }
    }
}

/// One record per subflow.
pub fn paths(snd: &MptcpSender, rcv: &MptcpReceiver, measured: &PathMeasures) -> Vec<PathSummary> {
    let total_scheduled: u64 = snd.subs.iter().map(|s| s.stats.bytes_scheduled).sum();
    snd.subs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let st = &s.snd.stats;
            let (srtt_ms_mean, srtt_ms_max) = measured.srtt_mean_max(i);
            let has_rtt = s.snd.rtt().srtt();
            PathSummary {
                index: i,
                route: measured.route(i),
                priority: s.priority,
                backup: s.backup,
                state: s.state.into(),
                srtt_ms_mean,
                srtt_ms_max,
                srtt_ms_final: has_rtt.map(|t| ms(t as f64)),
                min_rtt_ms: has_rtt.map(|_| ms(s.snd.rtt().min_rtt() as f64)),
                final_cwnd_bytes: s.snd.cwnd(),
                segments_sent: st.segments_sent,
                bytes_sent: st.bytes_sent,
                retransmissions: st.retransmissions,
                rto_count: st.rto_count,
                dropped_packets: measured.drops(i),
                drop_rate_per_s: measured.drop_rate_per_s(i),
                drop_pct: measured.drop_pct(i, st.segments_sent),
                share: share(s.stats.bytes_scheduled, total_scheduled),
                bytes_received: rcv.subs.get(i).map(|r| r.bytes_received),
                detail: PathDetail::Mptcp(MptcpPathDetail {
                    fast_recoveries: st.fast_recoveries,
                    bytes_scheduled: s.stats.bytes_scheduled,
                    chunks_reinjected: s.stats.chunks_reinjected,
                    penalties: s.stats.penalties,
                    opened: s.stats.opened,
                    closed: s.stats.closed,
                }),
            }
        })
        .collect()
}

/// The sampled values of one of the traces, none without traces.
fn samples<'a>(traces: Option<&MptcpTraces<'a>>, pick: fn(&MptcpTraces<'a>) -> &'a Trace) -> &'a [f64] {
    traces.map_or(&[][..], |t| pick(t).points().1)
}

/// The `mptcp` block; `end` is the end of the run (for the window stall still open). Without
/// `traces` (the run sampled none) the sampled metrics are null with 0 samples.
pub fn block(snd: &MptcpSender, rcv: &MptcpReceiver, traces: Option<&MptcpTraces>, end: Time) -> MptcpSummary {
    let pd = samples(traces, |t| t.protocol_delay);
    let (v_av, v_max) = mean_max(pd);
    let hol = samples(traces, |t| t.hol_degree);
    let (zeta_av, zeta_max) = mean_max(hol);
    let dad = samples(traces, |t| t.data_ack_delay);
    let (d_av, d_max) = mean_max(dad);
    let st = &snd.stats;
    MptcpSummary {
        protocol_delay_ms: ProtocolDelay {
            v_av,
            v_max,
            samples: pd.len(),
            first_data_ack: FirstDataAck { v_av: d_av, v_max: d_max, samples: dad.len() },
            per_handover: Quantiles::of_ns(&snd.protocol_delay),
        },
        hol_degree_ms: HolDegree { zeta_av, zeta_max, samples: hol.len(), negative_samples: hol.iter().filter(|&&z| z < 0.0).count() },
        hol_wait_ms: Quantiles::of_ns(&rcv.hol_wait),
        window_stall_s: as_secs_f64(snd.window_stall_ns(end)),
        window_stalls: st.window_stalls,
        chunks_reinjected: st.chunks_reinjected,
        opportunistic_retransmits: st.opportunistic_retransmits,
        penalizations: st.penalizations,
        established_at_s: st.established_at.map(as_secs_f64),
        closed_at_s: st.closed_at.map(as_secs_f64),
        reassembly: rcv.stats,
        blp: snd.scheduler().blp_summary(),
    }
}

/// The flow record's transport part for an MPTCP connection.
pub fn part(
    snd: &MptcpSender,
    rcv: &MptcpReceiver,
    measured: &PathMeasures,
    traces: Option<&MptcpTraces>,
    scheduler: &'static str,
    end: Time,
) -> TransportPart {
    let paths = paths(snd, rcv, measured);
    TransportPart {
        retransmits: Some(TransportPart::totals_of(&paths)),
        scheduler: Some(scheduler),
        paths: Some(paths),
        mptcp: Some(block(snd, rcv, traces, end)),
        quic: None,
    }
}
