//! The TCP header fields the model carries. Sequence numbers are 64-bit byte offsets that never
//! wrap (a simplification the simulator can afford; RFC 9293 wraps at 2^32). Options are carried
//! as fields; their bytes are not counted in the wire size (40 B of IPv4 + TCP headers per
//! segment, see `TCP_HEADER_BYTES`).

/// IPv4 (20 B) + TCP (20 B) headers.
pub const TCP_HEADER_BYTES: u32 = 40;
/// IPv4 (20 B) + UDP (8 B) headers.
pub const UDP_HEADER_BYTES: u32 = 28;
/// At most 3 SACK blocks fit next to the timestamp option (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 3;

pub const FLAG_SYN: u8 = 1;
pub const FLAG_ACK: u8 = 2;
/// A zero-window probe (Linux `tcp_xmit_probe_skb`: an old sequence number, no data), which the
/// receiver answers with an immediate ACK carrying its current window.
pub const FLAG_PROBE: u8 = 4;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub flags: u8,
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    pub ack: u64,
    /// Advertised receive window in bytes (window scaling is implicit).
    pub wnd: u64,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// MPTCP DSS option (RFC 8684 §3.3): on a data segment the data sequence number of its first
    /// payload byte (the mapping), on an ACK the DATA_ACK. Data flows one way, so one field
    /// serves both; plain TCP leaves it 0.
    pub dss: u64,
}

impl TcpHeader {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.nsack as usize]
    }

    pub fn wire_size(&self) -> u32 {
        TCP_HEADER_BYTES + self.len
    }
}
