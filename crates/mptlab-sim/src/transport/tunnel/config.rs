//! A tunnel's parameters as the run spec gives them (validated and resolved by the scenario
//! layer, `docs/tunnels.md`).

use crate::cc::CcConfig;
use crate::net::{LinkId, QueueLimit};
use crate::sched::SchedConfig;
use crate::transport::reorder::ReorderConfig;
use crate::transport::tcp::TcpConfig;
use serde::Serialize;

/// Bytes a tunnel adds to every inner packet: outer IPv4 (20 B), the DCCP generic header with
/// 48-bit sequence numbers (16 B, RFC 4340 §5.1) and the tunnel's own header (16 B: global
/// sequence number 8 B, path sequence number 4 B, timestamp 4 B; seed 003 §2.2 names the fields,
/// not their sizes).
pub const DEFAULT_OVERHEAD: u32 = 52;
/// Wire bytes of a path acknowledgment: IPv4 (20 B), DCCP-Ack header with acknowledgment number
/// (24 B, RFC 4340 §5.1–5.3) and an Ack Vector option (8 B).
pub const DEFAULT_ACK_SIZE: u32 = 52;
/// The largest inner packet a tunnel expects (a 1500 B IP packet); the window's packet charge is
/// this plus the overhead.
pub const DEFAULT_INNER_MTU: u32 = 1500;

/// What runs on each tunnel path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TunnelKind {
    /// Unreliable, congestion-controlled, never retransmits (DCCP with CCID2 / CCID5).
    Dccp,
    /// Reliable: one ordinary TCP connection per path carrying the inner packets as records
    /// in its byte stream (`tcp.rs`).
    Tcp,
}

impl TunnelKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Dccp => "dccp",
            Self::Tcp => "tcp",
        }
    }
}

/// One tunnel path: its routes and preferences.
#[derive(Clone, Debug, Serialize)]
pub struct TunnelPathSpec {
    /// Ingress → egress (data) and egress → ingress (acknowledgments).
    pub fwd_route: Vec<LinkId>,
    pub rev_route: Vec<LinkId>,
    /// CPF preference, lower first (default: the path index).
    pub priority: u32,
    pub backup: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct TunnelSpec {
    pub name: String,
    pub ingress: u32,
    pub egress: u32,
    pub kind: TunnelKind,
    /// TCP paths' options (`kind = Tcp` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpConfig>,
    /// Each path's congestion controller (uncoupled unless a coupled name is given).
    pub cc: CcConfig,
    pub scheduler: SchedConfig,
    /// Drop-tail limit of the scheduler buffer at the ingress.
    pub buffer: QueueLimit,
    /// Bytes added to each inner packet (TCP: the record header and one segment's IPv4 + TCP
    /// headers, what a record that fills one segment adds).
    pub overhead: u32,
    /// Wire size of a path acknowledgment.
    pub ack_size: u32,
    /// The largest inner packet expected (the window's packet charge is this + overhead).
    pub inner_mtu: u32,
    pub reorder: ReorderConfig,
    pub paths: Vec<TunnelPathSpec>,
}

impl TunnelSpec {
    /// The packet charge of a path's window: the largest outer packet.
    pub fn mss(&self) -> u32 {
        self.inner_mtu + self.overhead
    }
}
