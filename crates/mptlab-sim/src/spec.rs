//! `RunSpec`: the validated, fully resolved description of one run.
//!
//! The scenario layer turns a TOML file into a `RunSpec` (units parsed, groups and counts
//! expanded, routes computed, buffer sizes in BDP multiples resolved to bytes or packets). The
//! simulation builder consumes it without further checks. Plain data only; indices into the
//! vectors are the ids used everywhere else.

use crate::cc::CcConfig;
pub use crate::net::capacity::CapacitySpec;
/// The network layer owns its configuration types; they are re-exported here, where the run
/// spec gathers every layer's.
pub use crate::net::config::{LinkId, LinkSpec, LossSpec, NodeId, QueueLimit, QueueSpec};
use crate::sched::SchedConfig;
use crate::transport::mptcp::MptcpConfig;
use crate::transport::quic::QuicConfig;
use crate::transport::tcp::TcpConfig;
use mptlab_engine::Time;
use serde::Serialize;

pub type FlowId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct RunSpec {
    pub seed: u64,
    pub duration: Time,
    pub nodes: Vec<NodeSpec>,
    /// One entry per link *direction*. A duplex scenario link `x` becomes `x` (from→to) and
    /// `x.rev` (to→from).
    pub links: Vec<LinkSpec>,
    /// Flows after expanding counts and groups.
    pub flows: Vec<FlowSpec>,
    pub metrics: MetricsSpec,
    /// Named groupings of flows for Jain's index (each scenario flow entry is one group; the
    /// scenario may add more). Values index `flows`.
    pub jain_groups: Vec<(String, Vec<FlowId>)>,
    /// Scenario link events (down, up, rate) on link directions, sorted by (time, order in the
    /// file); a duplex link's event is one entry per direction, forward first. Events at or
    /// after the end of the run are left out.
    pub events: Vec<LinkEvent>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Host,
    Router,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSpec {
    /// Unique name, e.g. `bulk` or `bulk#3` when the entry has a count.
    pub name: String,
    /// The scenario entry (group) the flow came from.
    pub group: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// Links from src to dst (data direction) and back (ACK direction).
    pub fwd_route: Vec<LinkId>,
    pub rev_route: Vec<LinkId>,
    pub transport: TransportSpec,
    pub app: AppSpec,
    pub start: Time,
    /// The application stops generating data at this time (None: runs to the end).
    pub stop: Option<Time>,
}

impl FlowSpec {
    /// Every (data, ACK) route pair the flow uses: one per MPTCP subflow, else its own.
    pub fn route_pairs(&self) -> Vec<(&[LinkId], &[LinkId])> {
        match &self.transport {
            TransportSpec::Mptcp(m) => m.paths.iter().map(|p| (&p.fwd_route[..], &p.rev_route[..])).collect(),
            TransportSpec::Quic(q) => q.paths.iter().map(|p| (&p.fwd_route[..], &p.rev_route[..])).collect(),
            _ => vec![(&self.fwd_route[..], &self.rev_route[..])],
        }
    }
}

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

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum AppSpec {
    /// Greedy sender: always has data.
    Bulk,
    /// Constant bit rate: writes `write_size` bytes every write_size*8/rate seconds. Over TCP a
    /// write blocks while the send buffer is full (like `iperf -b`); over UDP each write is one
    /// datagram of the transport's payload size.
    Cbr { rate_bps: u64, write_size: u32 },
    /// Messages of `message_size` bytes with exponential inter-arrival times of mean
    /// message_size*8/rate.
    Poisson { rate_bps: u64, message_size: u32 },
    /// Transfer `size` bytes once, then finish; records completion time.
    File { size: u64 },
}

#[derive(Clone, Debug, Serialize)]
pub struct MetricsSpec {
    /// Throughput bin width (default 1 s).
    pub interval: Time,
    /// Sampling period of cwnd / SRTT / queue traces (default 100 ms).
    pub trace_interval: Time,
}

/// A scenario event on one link direction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinkEvent {
    pub at: Time,
    pub link: LinkId,
    #[serde(flatten)]
    pub action: LinkAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum LinkAction {
    /// The link loses every packet inside it and refuses new ones until it comes back up.
    Down,
    Up,
    /// Packets scheduled from then on are serialised at this rate.
    Rate {
        rate_bps: u64,
    },
}
