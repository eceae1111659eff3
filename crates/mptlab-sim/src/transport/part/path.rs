//! The `paths` block of a flow: one record per path of every transport that has paths (MPTCP
//! subflows, QUIC and multipath QUIC paths), in one shape, so readers need no per-transport
//! code. What only one transport knows sits in its own typed sub-record, written under the
//! transport's name (`paths[i].mptcp`, `paths[i].quic`).

use crate::metrics::report::{mean_max, pct};
use crate::metrics::Trace;
use crate::transport::mptcp::summary::MptcpPathDetail;
use crate::transport::quic::summary::QuicPathDetail;
use serde::Serialize;

/// A path's state, the union of the transports' own states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathState {
    /// Not opened yet, or waiting to be opened again.
    Idle,
    /// QUIC: PATH_CHALLENGE sent, not answered yet (RFC 9000 §8.2).
    Validating,
    Active,
    /// MPTCP: closed by the path manager (its interface went down).
    Closed,
    /// QUIC: PATH_ABANDON sent or received (draft-ietf-quic-multipath §3.4).
    Abandoned,
}

/// One path of a flow. Counters are for the whole run; a path re-opened after a failure keeps
/// counting.
#[derive(Clone, Debug, Serialize)]
pub struct PathSummary {
    /// Position in the scenario's `paths` list.
    pub index: usize,
    /// Link names of the forward route.
    pub route: Vec<String>,
    /// Scheduler preference, lower first.
    pub priority: u32,
    /// Used only while no regular path is usable (RFC 8684 MP_PRIO B flag).
    pub backup: bool,
    pub state: PathState,
    /// Mean and maximum of the SRTT samples (one per trace interval; seed 001's τ_i,av and
    /// τ_i,max), ms; null without samples.
    pub srtt_ms_mean: Option<f64>,
    pub srtt_ms_max: Option<f64>,
    /// SRTT at the end of the run, ms; null without an RTT sample.
    pub srtt_ms_final: Option<f64>,
    pub min_rtt_ms: Option<f64>,
    pub final_cwnd_bytes: u64,
    /// Data packets (segments) sent on the path, retransmissions included.
    pub segments_sent: u64,
    /// Bytes sent on the path (TCP: payload; QUIC: UDP payload).
    pub bytes_sent: u64,
    /// TCP: segments sent again; QUIC: packets declared lost (their frames are sent again).
    pub retransmissions: u64,
    /// TCP: retransmission timer expiries; QUIC: probe timeouts.
    pub rto_count: u64,
    /// Data packets of the path dropped in the network (queues, channels, down links).
    pub dropped_packets: u64,
    /// `dropped_packets` per second of the flow's lifetime (seed 001's d_i).
    pub drop_rate_per_s: f64,
    /// `dropped_packets / segments_sent` in percent (seed 001 eq. 12).
    pub drop_pct: f64,
    /// Share of the flow's data the scheduler placed on the path (MPTCP: connection bytes;
    /// QUIC: STREAM bytes).
    pub share: f64,
    /// Bytes the receiving end got on the path; null when the transport does not count them.
    pub bytes_received: Option<u64>,
    /// What only this path's transport knows.
    #[serde(flatten)]
    pub detail: PathDetail,
}

/// Transport-specific details of a path, written under the transport's name.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathDetail {
    Mptcp(MptcpPathDetail),
    Quic(QuicPathDetail),
}

/// What the simulation measured for each path of a flow (the transport does not see the
/// network): routes, sampled SRTTs and drops. Slices may be empty (nothing measured).
pub struct PathMeasures<'a> {
    /// Link names of each path's forward route.
    pub routes: Vec<Vec<String>>,
    /// Each path's SRTT trace, in ms.
    pub srtt_ms: &'a [Trace],
    /// Each path's data packets dropped in the network.
    pub drops: &'a [u64],
    /// Seconds the flow was active (start to stop or the end of the run).
    pub active_secs: f64,
}

impl PathMeasures<'_> {
    pub fn route(&self, i: usize) -> Vec<String> {
        self.routes.get(i).cloned().unwrap_or_default()
    }

    /// Mean and maximum SRTT sample of path `i`, ms.
    pub fn srtt_mean_max(&self, i: usize) -> (Option<f64>, Option<f64>) {
        mean_max(self.srtt_ms.get(i).map_or(&[][..], |t| t.points().1))
    }

    pub fn drops(&self, i: usize) -> u64 {
        self.drops.get(i).copied().unwrap_or(0)
    }

    /// Drops of path `i` per second of the flow's lifetime.
    pub fn drop_rate_per_s(&self, i: usize) -> f64 {
        self.drops(i) as f64 / self.active_secs
    }

    /// Drops of path `i` over the `sent` data packets, in percent.
    pub fn drop_pct(&self, i: usize, sent: u64) -> f64 {
        pct(self.drops(i), sent)
    }
}

/// `part / total`, 0 when nothing was placed on any path.
pub fn share(part: u64, total: u64) -> f64 {
    if total > 0 {
        part as f64 / total as f64
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_of_unmeasured_paths_are_empty_not_a_panic() {
        let m = PathMeasures { routes: vec![vec!["a".into()]], srtt_ms: &[], drops: &[4], active_secs: 2.0 };
        assert_eq!(m.route(0), vec!["a".to_string()]);
        assert!(m.route(1).is_empty());
        assert_eq!(m.srtt_mean_max(0), (None, None));
        assert_eq!((m.drops(0), m.drops(1)), (4, 0));
        assert_eq!(m.drop_rate_per_s(0), 2.0);
        assert_eq!(m.drop_pct(0, 8), 50.0);
        assert_eq!(share(1, 4), 0.25);
        assert_eq!(share(1, 0), 0.0);
    }

    #[test]
    fn transport_details_are_written_under_the_transport_s_name() {
        let detail = MptcpPathDetail { fast_recoveries: 1, bytes_scheduled: 2, chunks_reinjected: 3, penalties: 4, opened: 5, closed: 6 };
        let p = PathSummary {
            index: 1,
            route: vec!["l".into()],
            priority: 1,
            backup: false,
            state: PathState::Closed,
            srtt_ms_mean: None,
            srtt_ms_max: None,
            srtt_ms_final: Some(3.0),
            min_rtt_ms: Some(2.0),
            final_cwnd_bytes: 10,
            segments_sent: 4,
            bytes_sent: 40,
            retransmissions: 1,
            rto_count: 0,
            dropped_packets: 1,
            drop_rate_per_s: 0.5,
            drop_pct: 25.0,
            share: 1.0,
            bytes_received: None,
            detail: PathDetail::Mptcp(detail),
        };
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["mptcp"]["closed"], 6);
        assert_eq!(v["state"], "closed");
        assert!(v.get("detail").is_none() && v.get("quic").is_none());
        assert!(v["srtt_ms_mean"].is_null() && v["bytes_received"].is_null(), "absent values are written as null");
    }

    #[test]
    fn the_state_is_written_in_lowercase() {
        assert_eq!(serde_json::to_value(PathState::Abandoned).unwrap(), "abandoned");
    }
}
