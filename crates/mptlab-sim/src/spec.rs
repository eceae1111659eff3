//! `RunSpec`: the validated, fully resolved description of one run.
//!
//! The scenario layer turns a TOML file into a `RunSpec` (units parsed, groups and counts
//! expanded, routes computed, buffer sizes in BDP multiples resolved to bytes or packets). The
//! simulation builder consumes it without further checks. Plain data only; indices into the
//! vectors are the ids used everywhere else.

/// Each layer owns its configuration types; they are re-exported here, where the run spec
/// gathers every layer's: the network's (links, queues, loss, capacity), the transports' (with
/// their controllers, schedulers and paths) and the applications'.
pub use crate::apps::AppSpec;
pub use crate::net::capacity::CapacitySpec;
pub use crate::net::config::{LinkId, LinkSpec, LossSpec, NodeId, QueueLimit, QueueSpec, WifiPhy, WifiPort, WifiSpec};
pub use crate::transport::spec::{MptcpSpec, PathSpec, QuicSpec, TcpSpec, TransportSpec, UdpSpec};
pub use crate::transport::tunnel::{TunnelPathSpec, TunnelSpec};
use mptlab_engine::Time;
use serde::Serialize;

pub type FlowId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct RunSpec {
    pub seed: u64,
    pub duration: Time,
    /// Device partitions (`run.partitions`): 1 runs the sequential engine, more the parallel
    /// one (`sim::partition`), whose plan the scenario loader has checked.
    pub partitions: u16,
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
    /// Multipath tunnels (`[tunnels.<name>]`); flows enter one through `FlowSpec::tunnel`.
    pub tunnels: Vec<TunnelSpec>,
    /// 802.11 DCF channels; their link directions carry `LinkSpec::wifi`.
    pub wifi: Vec<WifiSpec>,
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
    /// A Wi-Fi station (`[wifi.<name>]`): sends, receives and forwards.
    Station,
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
    /// The tunnel the flow's data enters: `fwd_route` then ends at the tunnel's ingress.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunnel: Option<TunnelUse>,
}

/// How a flow's data crosses a tunnel: `fwd_route` takes it from its source to the ingress,
/// the tunnel to its egress, and `after` on to the destination (empty when the egress is the
/// destination). Its acknowledgments take `rev_route` as usual.
#[derive(Clone, Debug, Serialize)]
pub struct TunnelUse {
    /// Index into `RunSpec::tunnels`.
    pub tunnel: u32,
    pub after: Vec<LinkId>,
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
pub struct MetricsSpec {
    /// Throughput bin width (default 1 s).
    pub interval: Time,
    /// Sampling period of cwnd / SRTT / queue traces (default 100 ms).
    pub trace_interval: Time,
    /// Flows measured in detail, by flow id (`metrics.detail_flows`); missing entries are
    /// detailed (a spec built by hand measures everything).
    pub detail_flows: Vec<bool>,
    /// Link directions measured in detail, by link id (`metrics.detail_links`); missing
    /// entries are detailed.
    pub detail_links: Vec<bool>,
    /// RFC 3550 jitter of detailed flows / of detailed links (`metrics.jitter`).
    pub flow_jitter: bool,
    pub link_jitter: bool,
}

impl MetricsSpec {
    /// Everything measured everywhere, default intervals (1 s bins, 100 ms traces), no link jitter.
    pub fn new(interval: Time, trace_interval: Time) -> Self {
        Self { interval, trace_interval, detail_flows: Vec::new(), detail_links: Vec::new(), flow_jitter: true, link_jitter: false }
    }

    pub fn flow_detailed(&self, f: usize) -> bool {
        self.detail_flows.get(f).copied().unwrap_or(true)
    }

    pub fn link_detailed(&self, l: usize) -> bool {
        self.detail_links.get(l).copied().unwrap_or(true)
    }
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
