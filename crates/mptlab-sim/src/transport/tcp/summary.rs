//! A TCP flow's part of the run summary (`flows[].tcp`): retransmission counters of the sender
//! (RFC 5681 fast recovery, RFC 6298 timeouts, RFC 8985 §7 tail loss probes), its RTT and
//! window at the end, and the receiver's counters. Schema: docs/metrics.md.

use super::{ReceiverStats, TcpReceiver, TcpSender};
use crate::metrics::report::ms;
use crate::transport::part::{RetransmitTotals, TransportPart};
use serde::Serialize;

/// What only a TCP flow reports, next to its retransmission totals.
#[derive(Clone, Debug, Serialize)]
pub struct TcpDetail {
    pub fast_recoveries: u64,
    pub tlp_probes: u64,
    pub tlp_recoveries: u64,
    /// Mean of the SRTT samples (one per trace interval), ms; null without samples.
    pub srtt_ms_mean: Option<f64>,
    pub min_rtt_ms: f64,
    pub final_cwnd_bytes: u64,
    pub receiver: ReceiverStats,
}

/// The flow record's transport part for a TCP connection; `srtt_ms` are the SRTT samples the
/// simulation traced (ms).
pub fn part(snd: &TcpSender, rcv: &TcpReceiver, srtt_ms: &[f64]) -> TransportPart {
    let st = &snd.stats;
    let srtt_ms_mean = (!srtt_ms.is_empty()).then(|| srtt_ms.iter().sum::<f64>() / srtt_ms.len() as f64);
    let detail = TcpDetail {
        fast_recoveries: st.fast_recoveries,
        tlp_probes: st.tlp_probes,
        tlp_recoveries: st.tlp_recoveries,
        srtt_ms_mean,
        min_rtt_ms: ms(snd.rtt().min_rtt() as f64),
        final_cwnd_bytes: snd.cwnd(),
        receiver: rcv.stats,
    };
    let tcp = RetransmitTotals { retransmissions: st.retransmissions, rto_count: st.rto_count, detail: Some(detail) };
    TransportPart { retransmits: Some(tcp), ..TransportPart::default() }
}
