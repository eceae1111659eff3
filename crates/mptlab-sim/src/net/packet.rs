//! The packet as the network sees it: wire size, route, timestamps, and the transport header
//! fields it carries. Packets live in the engine's arena and are passed around by handle.
//!
//! Layout: `Packet` fits one 64-byte cache line (it was two at 128 bytes: the first touch of a
//! packet in the arena is one of the hottest spots of the many-flow runs). Two choices get it
//! there, neither changing what a transport sees:
//! - The TCP header's SACK blocks (48 B, `wire::TcpHeader::sack`) are not in the packet: only
//!   their count (`nsack`) is. The blocks of a packet that carries some — an ACK while its
//!   receiver holds out-of-order data, rare — are in a side table by packet handle
//!   (`BodyTable::set_sack`, next to the bodies of QUIC packets), written when the packet is
//!   built and read when it is delivered. Transports keep exchanging whole `TcpHeader`s
//!   (`Packet::from_tcp`, `Packet::tcp_header`).
//! - TCP and UDP share the fields both have: `seq` (TCP: the first payload byte's sequence
//!   number; UDP: the datagram's number) and `len` (payload bytes). A UDP packet leaves the
//!   TCP-only fields (`flags`, `ack`, `wnd`, `dss`, `nsack`) to whoever builds it: the
//!   tunnels' DCCP-like paths put their acknowledgments there (`transport::tunnel::dccp`).

use crate::net::BodyTable;
use crate::wire::TcpHeader;
use mptlab_engine::{Handle, Time};

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
    /// detailed links count per group (`metrics::LinkGroups`).
    pub group: u16,
    /// MPTCP: incarnation of the subflow that sent it (see `transport::mptcp::SubState`).
    pub epoch: u8,
    /// TCP flags (`wire::FLAG_*`).
    pub flags: u8,
    /// TCP: SACK blocks carried (in the side table, see the module comment).
    pub nsack: u8,
    /// Bytes on the wire (headers included).
    pub size: u32,
    /// Payload bytes: the TCP segment's, or the UDP datagram's (QUIC: the STREAM bytes carried,
    /// so that ACK-only packets are not data).
    pub len: u32,
    /// When the sending endpoint emitted it (for one-way delay and jitter).
    pub sent_at: Time,
    /// TCP: sequence number of the first payload byte. UDP: datagram sequence number (for loss
    /// and reordering counts).
    pub seq: u64,
    /// TCP: cumulative acknowledgment.
    pub ack: u64,
    /// TCP: advertised receive window in bytes.
    pub wnd: u64,
    /// TCP: the MPTCP DSS option (`wire::TcpHeader::dss`).
    pub dss: u64,
}

// One cache line (see the module comment); growing it costs the many-flow runs their speed.
const _: () = assert!(std::mem::size_of::<Packet>() <= 64);

impl Packet {
    /// True when the packet carries application data (TCP payload or a UDP datagram's).
    #[inline]
    pub fn is_data(&self) -> bool {
        self.len > 0
    }

    /// A TCP packet carrying header `h`, with handle `next` (its SACK blocks, if any, are written
    /// into `bodies` under it); the caller sets the wire size and send time.
    #[inline]
    pub fn from_tcp<F: Default>(h: &TcpHeader, bodies: &mut BodyTable<F>, next: Handle) -> Packet {
        if h.nsack > 0 {
            bodies.set_sack(next, &h.sack);
        }
        Packet {
            proto: Proto::Tcp,
            flags: h.flags,
            nsack: h.nsack,
            len: h.len,
            seq: h.seq,
            ack: h.ack,
            wnd: h.wnd,
            dss: h.dss,
            ..Packet::default()
        }
    }

    /// The TCP header this packet (handle `h`) carries, SACK blocks included: the header it was
    /// built from (`from_tcp`).
    #[inline]
    pub fn tcp_header<F: Default>(&self, bodies: &BodyTable<F>, h: Handle) -> TcpHeader {
        let mut hdr = TcpHeader {
            flags: self.flags,
            seq: self.seq,
            len: self.len,
            ack: self.ack,
            wnd: self.wnd,
            dss: self.dss,
            nsack: self.nsack,
            ..TcpHeader::default()
        };
        if self.nsack > 0 {
            hdr.sack = *bodies.sack(h);
        }
        hdr
    }
}
