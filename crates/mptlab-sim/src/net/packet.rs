//! The packet as the network sees it: wire size, route, timestamps, and the transport header it
//! carries. Packets live in the engine's arena and are passed around by handle.

use crate::wire::TcpHeader;
use mptlab_engine::Time;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proto {
    #[default]
    Tcp,
    Udp,
}

impl Proto {
    pub const ALL: [Proto; 2] = [Proto::Tcp, Proto::Udp];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Route id (see `RouteEnd`): the simulation knows the flow, path and direction of each.
    pub route: u32,
    /// Index of the next link on the route.
    pub hop: u16,
    pub proto: Proto,
    /// Flow group (index of the flow's scenario entry), set by the simulation when it sends:
    /// detailed links count per group (`metrics::LinkGroups`). It grows `Packet` from 120 to
    /// 128 bytes; a table by route instead measured no faster (W5, interleaved runs) and cost
    /// more instructions (W2).
    pub group: u16,
    /// MPTCP: incarnation of the subflow that sent it (see `transport::mptcp::SubState`).
    pub epoch: u8,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// When the sending endpoint emitted it (for one-way delay and jitter).
    pub sent_at: Time,
    /// UDP: datagram sequence number (for loss and reordering counts).
    pub udp_seq: u64,
    /// UDP: payload bytes.
    pub udp_payload: u32,
    pub tcp: TcpHeader,
}

impl Packet {
    /// True when the packet carries application data (TCP payload or a UDP datagram).
    #[inline]
    pub fn is_data(&self) -> bool {
        match self.proto {
            Proto::Tcp => self.tcp.len > 0,
            // A QUIC packet without STREAM bytes (ACK-only, control) is not data.
            Proto::Udp => self.udp_payload > 0,
        }
    }
}
