//! The scenario as written, after parsing and with every default filled in, before names are
//! resolved to ids. Serialising it gives the canonical scenario (`Loaded::canonical`): maps are
//! `BTreeMap`s and units print in one canonical spelling, so equal scenarios give equal JSON.

use super::units::{Dur, Limit, Rate, Size};
use crate::cc::CcConfig;
use crate::sched::SchedConfig;
use crate::transport::tcp::RtoFormula;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub run: Run,
    pub metrics: Metrics,
    pub nodes: Nodes,
    pub groups: BTreeMap<String, Group>,
    pub links: BTreeMap<String, Link>,
    pub flows: BTreeMap<String, Flow>,
    /// `[[events]]` in file order (absent from the canonical form when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// `[rtt_split]`: delays derived from seed 003's axes (`rtt_split.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_split: Option<RttSplit>,
    /// `[tunnels.<name>]` (absent from the canonical form when there are none).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tunnels: BTreeMap<String, Tunnel>,
    /// `[wifi.<name>]` 802.11 DCF channels (`wifi.rs`; absent from the canonical form when none).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub wifi: BTreeMap<String, Wifi>,
}

/// An 802.11 DCF channel (`wifi.rs`, docs/wifi.md).
#[derive(Clone, Debug, Serialize)]
pub struct Wifi {
    pub stations: Vec<String>,
    pub positions: Vec<[f64; 2]>,
    pub range: f64,
    pub phy: String,
    pub rules: String,
    pub rts_cts: bool,
    #[serde(serialize_with = "retry_limit")]
    pub retry_limit: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_limit: Option<u64>,
}

/// `None` (never drop) reads back as "none".
fn retry_limit<S: serde::Serializer>(v: &Option<u32>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match v {
        Some(n) => s.serialize_u32(*n),
        None => s.serialize_str("none"),
    }
}

/// `[rtt_split]` (`rtt_split.rs`).
#[derive(Clone, Debug, Serialize)]
pub struct RttSplit {
    pub e2e_rtt: Dur,
    pub tunnel_share: f64,
    pub asymmetry: Dur,
    pub server_links: Vec<String>,
    pub tunnel_links: Vec<Vec<String>>,
}

/// A multipath tunnel (`tunnels.rs`, docs/tunnels.md).
#[derive(Clone, Debug, Serialize)]
pub struct Tunnel {
    pub ingress: String,
    pub egress: String,
    pub paths: Vec<Vec<String>>,
    pub protocol: String,
    #[serde(flatten)]
    pub cc: CcConfig,
    #[serde(flatten)]
    pub scheduler: SchedConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priorities: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<Vec<bool>>,
    /// The scheduler buffer (absent: 3 × path 1's bottleneck buffer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Limit>,
    pub overhead: Size,
    pub ack_size: Size,
    pub inner_mtu: Size,
    pub reorder: super::reorder_opts::ReorderOpts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpOpts>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub duration: Dur,
    pub seed: u64,
    /// Device partitions of a parallel run (`sim::partition`); 1 runs the sequential engine
    /// and is left out of the canonical scenario, so that scenarios without it hash as before.
    #[serde(skip_serializing_if = "is_one")]
    pub partitions: u16,
}

fn is_one(n: &u16) -> bool {
    *n == 1
}

#[derive(Clone, Debug, Serialize)]
pub struct Metrics {
    pub interval: Dur,
    pub trace_interval: Dur,
    /// Extra Jain groupings: name → flow entry names.
    pub jain_groups: BTreeMap<String, Vec<String>>,
    /// Flow entries measured in detail (time series, traces, per-packet distributions).
    pub detail_flows: Selection,
    /// Links measured in detail (time series, queue traces, queueing-delay distribution).
    pub detail_links: Selection,
    /// Where RFC 3550 jitter is computed.
    pub jitter: JitterScope,
}

/// Which entries a metric option covers: `"auto"` (the documented default rule), `"all"`,
/// `"none"`, or a list of entry names.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Selection {
    Rule(SelectionRule),
    Names(Vec<String>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SelectionRule {
    Auto,
    All,
    None,
}

/// Streams whose RFC 3550 jitter a run computes: each detailed flow's, each detailed link's
/// (pooled over the data packets crossing it), both, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JitterScope {
    None,
    Flows,
    Links,
    All,
}

impl JitterScope {
    pub const NAMES: &[&str] = &["none", "flows", "links", "all"];
    pub const ALL: [JitterScope; 4] = [JitterScope::None, JitterScope::Flows, JitterScope::Links, JitterScope::All];

    pub fn flows(self) -> bool {
        matches!(self, JitterScope::Flows | JitterScope::All)
    }
    pub fn links(self) -> bool {
        matches!(self, JitterScope::Links | JitterScope::All)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Nodes {
    pub hosts: Vec<String>,
    pub routers: Vec<String>,
}

/// `count` hosts `<name>#0..<name>#{count-1}`, each with an optional access link.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<AccessLink>,
}

#[derive(Clone, Debug, Serialize)]
pub struct AccessLink {
    pub to: String,
    #[serde(flatten)]
    pub fwd: Direction,
    pub reverse: Direction,
}

/// A duplex link: `fwd` is between[0] → between[1], `reverse` the other way.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    pub between: [String; 2],
    #[serde(flatten)]
    pub fwd: Direction,
    pub reverse: Direction,
}

/// The parameters of one link direction.
#[derive(Clone, Debug, Serialize)]
pub struct Direction {
    pub rate: Rate,
    pub delay: Dur,
    pub queue: Queue,
    pub loss: Loss,
    /// Absent: no capacity model. `Some(Capacity::None)` only on a reverse direction whose
    /// forward one has a model (so the canonical form reads back the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Queue {
    DropTail {
        limit: Limit,
    },
    CoDel {
        limit: Limit,
        target: Dur,
        interval: Dur,
    },
    /// Thresholds `min`/`max` on the average queue, in the units of a queue limit.
    Red {
        limit: Limit,
        min: Limit,
        max: Limit,
        max_p: f64,
        weight: f64,
        gentle: bool,
    },
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum Loss {
    None,
    Bernoulli { p: f64 },
    GilbertElliott { p_good_to_bad: f64, p_bad_to_good: f64, loss_good: f64, loss_bad: f64 },
}

#[derive(Clone, Debug, Serialize)]
pub struct Flow {
    pub from: String,
    pub to: String,
    pub count: u64,
    #[serde(flatten)]
    pub transport: Transport,
    pub app: App,
    pub start: Dur,
    /// Each flow of the entry starts at `start` plus its own offset drawn uniformly from
    /// [0, start_spread) (seeded per flow; `scenario::resolve`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_spread: Option<Dur>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Dur>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    /// The tunnel the flow's data crosses (`[tunnels.<name>]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunnel: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "protocol", rename_all = "lowercase")]
pub enum Transport {
    /// `cc` echoes the controller name and every option, defaults filled in.
    Tcp {
        #[serde(flatten)]
        cc: CcConfig,
        tcp: TcpOpts,
    },
    Udp {
        packet_size: Size,
    },
    /// Subflow options in `tcp`, connection options in `mptcp`; `paths` only when given.
    Mptcp {
        #[serde(flatten)]
        cc: CcConfig,
        #[serde(flatten)]
        scheduler: SchedConfig,
        tcp: TcpOpts,
        mptcp: MptcpOpts,
        #[serde(skip_serializing_if = "Option::is_none")]
        paths: Option<Vec<Vec<String>>>,
    },
    /// QUIC and multipath QUIC (`quic.multipath`); `paths` only for mpquic, when given.
    Quic {
        #[serde(flatten)]
        cc: CcConfig,
        #[serde(flatten)]
        scheduler: SchedConfig,
        quic: crate::transport::quic::QuicConfig,
        #[serde(skip_serializing_if = "Option::is_none")]
        paths: Option<Vec<Vec<String>>>,
        /// mpquic: `quic.priorities` and `quic.backup`, one entry per path (as `MptcpOpts`).
        #[serde(skip_serializing_if = "Option::is_none")]
        priorities: Option<Vec<u32>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        backup: Option<Vec<bool>>,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct MptcpOpts {
    pub send_buffer: Size,
    pub recv_buffer: Size,
    pub join_delay: Dur,
    pub reinject_on_rto: bool,
    pub opportunistic_retransmit: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priorities: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<Vec<bool>>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum App {
    Bulk,
    /// `write_size` is `None` for UDP, where each write is one datagram.
    Cbr {
        rate: Rate,
        #[serde(skip_serializing_if = "Option::is_none")]
        write_size: Option<Size>,
    },
    Poisson {
        rate: Rate,
        message_size: Size,
        /// Stop after this many messages.
        #[serde(skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// `rate`: udp only, a paced transfer (`apps`).
    File {
        size: Size,
        #[serde(skip_serializing_if = "Option::is_none")]
        rate: Option<Rate>,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct TcpOpts {
    pub mss: Size,
    pub handshake: bool,
    pub sack: bool,
    pub initial_cwnd: u32,
    pub min_rto: Dur,
    pub rto: RtoFormula,
    pub initial_rto: Dur,
    pub max_rto: Dur,
    pub delayed_ack: DelayedAck,
    pub send_buffer: Size,
    pub recv_buffer: Size,
    pub pacing: bool,
    pub tlp: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct DelayedAck {
    pub enabled: bool,
    pub every: u32,
    pub timeout: Dur,
}

/// A link direction's capacity model (`events.rs`).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum Capacity {
    None,
    Lte {
        mean: Rate,
        cv: f64,
        correlation: f64,
        min: Rate,
        max: Rate,
        step: Dur,
    },
    Trace {
        times: Vec<Dur>,
        rates: Vec<Rate>,
        repeat: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        period: Option<Dur>,
    },
}

/// One `[[events]]` entry (`events.rs`).
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    pub at: Dur,
    /// `x` (both directions), `x.fwd` or `x.rev`.
    pub link: String,
    pub action: EventAction,
    /// Only with `action = "rate"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventAction {
    Down,
    Up,
    Rate,
}
