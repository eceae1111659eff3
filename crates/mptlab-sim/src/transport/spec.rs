//! What a flow's transport is, as the run spec gives it (validated and resolved by the scenario
//! layer): the protocol, its parameters, its controller and scheduler, and its paths. The
//! transport layer owns these types; `spec.rs` re-exports them.

use super::mptcp::MptcpConfig;
use super::quic::QuicConfig;
use super::tcp::TcpConfig;
use crate::cc::CcConfig;
use crate::net::LinkId;
use crate::sched::SchedConfig;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "protocol", rename_all = "lowercase")]
pub enum TransportSpec {
    Tcp(TcpSpec),
    Udp(UdpSpec),
    Mptcp(MptcpSpec),
    /// QUIC, or multipath QUIC when `quic.multipath` (then one entry of `paths` per path).
    Quic(QuicSpec),
}

impl TransportSpec {
    /// The protocol as the scenario names it.
    pub fn protocol_name(&self) -> &'static str {
        match self {
            TransportSpec::Tcp(_) => "tcp",
            TransportSpec::Udp(_) => "udp",
            TransportSpec::Mptcp(_) => "mptcp",
            TransportSpec::Quic(q) if q.quic.multipath => "mpquic",
            TransportSpec::Quic(_) => "quic",
        }
    }

    /// The congestion controller's name (None for UDP).
    pub fn cc_name(&self) -> Option<&'static str> {
        match self {
            TransportSpec::Tcp(t) => Some(t.cc.name()),
            TransportSpec::Mptcp(t) => Some(t.cc.name()),
            TransportSpec::Quic(t) => Some(t.cc.name()),
            TransportSpec::Udp(_) => None,
        }
    }

    /// The explicit paths of a multipath-capable transport (empty for single-path ones).
    pub fn paths(&self) -> &[PathSpec] {
        match self {
            TransportSpec::Mptcp(m) => &m.paths,
            TransportSpec::Quic(q) => &q.paths,
            _ => &[],
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct QuicSpec {
    /// Each path's congestion controller (uncoupled, coupled, or coupled+per-path).
    pub cc: CcConfig,
    pub scheduler: SchedConfig,
    pub quic: QuicConfig,
    /// One entry per path (a single one for QUIC); the flow's `fwd_route`/`rev_route` are
    /// path 0's.
    pub paths: Vec<PathSpec>,
}

#[derive(Clone, Debug, Serialize)]
pub struct MptcpSpec {
    /// Each subflow's congestion controller (uncoupled, coupled, or coupled+per-path).
    pub cc: CcConfig,
    pub scheduler: SchedConfig,
    /// Subflow TCP parameters (their buffers are replaced by the connection-level ones).
    #[serde(flatten)]
    pub config: TcpConfig,
    pub mptcp: MptcpConfig,
    /// One entry per subflow, in subflow order; the flow's `fwd_route`/`rev_route` are path 0's.
    pub paths: Vec<PathSpec>,
    /// Per-path RTT-model terms for model-driven schedulers (`sched::PathModel`, seed 004's
    /// `lossaware`), in subflow order; empty or short: zeros (unknown) for the rest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path_models: Vec<crate::sched::PathModel>,
}

#[derive(Clone, Debug, Serialize)]
pub struct PathSpec {
    pub fwd_route: Vec<LinkId>,
    pub rev_route: Vec<LinkId>,
    /// Scheduler preference (CPF), lower first; default the path index.
    pub priority: u32,
    /// RFC 8684 backup path (MP_PRIO B flag).
    pub backup: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct TcpSpec {
    /// The congestion controller and its options, already validated.
    pub cc: CcConfig,
    /// Connection parameters (MSS, SACK, RTO bounds, delayed ACKs, buffers, ...).
    #[serde(flatten)]
    pub config: TcpConfig,
}

#[derive(Clone, Debug, Serialize)]
pub struct UdpSpec {
    /// Payload bytes per datagram. Wire size = payload + 28 (IPv4 + UDP headers).
    pub payload: u32,
}
