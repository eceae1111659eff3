//! Connection-level MPTCP parameters (the scenario's `[flows.<name>.mptcp]` table).

use mptlab_engine::Time;
use serde::Serialize;

/// Most paths (subflows) one connection may have; bounds the per-flow timer id space.
pub const MAX_SUBFLOWS: usize = 16;

/// Subflows a connection's sender and receiver keep inside their own allocation (the usual two
/// paths); more spill to the heap. Inline, a subflow's address follows from the connection's,
/// without first loading a pointer: one dependent cache miss less per event when thousands of
/// connections are out of cache.
pub const INLINE_SUBFLOWS: usize = 2;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MptcpConfig {
    /// Connection-level send buffer: bytes written and not yet data-acknowledged.
    pub send_buffer: u64,
    /// Connection-level receive buffer. The receiver advertises a window of this size beyond
    /// its DATA_ACK (the application reads in-order data at once), so data waiting in the
    /// reassembly queue for a hole on a slow path limits how far ahead the sender may run.
    /// Default 6 MiB = Linux `tcp_rmem[2]`; Linux's receive-buffer autotuning is not modelled
    /// (the buffer is at this size from the start, where autotuning ends on a bulk transfer).
    pub recv_buffer: u64,
    /// Delay between the first subflow's establishment and each additional subflow's SYN
    /// (MP_JOIN). Linux's in-kernel path manager joins at once (0).
    pub join_delay: Time,
    /// Reinject the data of a subflow that hits a retransmission timeout onto the other
    /// subflows (as Linux, `mptcp_reinject_data` / `__mptcp_retrans`).
    pub reinject_on_rto: bool,
    /// Raiciu et al. (NSDI 2012) §4.2: when the receive window stalls the connection, resend
    /// the blocking data on a subflow with room (opportunistic retransmission) and halve the
    /// window of the subflow that holds it (penalisation, at most once per its SRTT).
    pub opportunistic_retransmit: bool,
}

impl Default for MptcpConfig {
    fn default() -> Self {
        Self { send_buffer: 4 << 20, recv_buffer: 6 << 20, join_delay: 0, reinject_on_rto: true, opportunistic_retransmit: false }
    }
}

/// Wire bytes of the DSS option (RFC 8684 §3.3.1, 8-octet DATA_ACK and 8-octet data sequence
/// number, no checksum, padded to 4 octets) on a data segment: 4 + 8 + 8 + 4 + 2 → 28.
pub const DSS_DATA_BYTES: u32 = 28;
/// DSS option with only an 8-octet DATA_ACK, on a pure ACK: 4 + 8.
pub const DSS_ACK_BYTES: u32 = 12;
