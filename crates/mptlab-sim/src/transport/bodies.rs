//! The bodies of the packets in flight (`net::BodyTable`), with the frames transports put in
//! them. Today the only frames are QUIC's (a QUIC packet is a UDP datagram on the wire whose
//! `Packet::len` holds the STREAM bytes carried, so ACK-only packets count as non-data); a
//! tunnel's packets carry another packet through the table's `inner` handle. The table also
//! holds the SACK blocks of TCP packets that carry some (`BodyTable::set_sack`). Entries of
//! handles whose packets carry no body are never grown or read.

use super::quic::WirePacket;

pub type Bodies = crate::net::BodyTable<WirePacket>;
