//! Multipath TCP (RFC 8684) as two sans-IO halves over the project's TCP: `MptcpSender`
//! (connection-level send buffer, scheduler, subflow senders, data-level ACK processing,
//! reinjection) and `MptcpReceiver` (subflow receivers, data-level reassembly, DATA_ACK and the
//! connection-level window).
//!
//! Modelled: MP_CAPABLE on the first subflow then MP_JOIN of the others after a join delay (the
//! handshake exchanges themselves are the subflows' SYN/SYN-ACK; keys and tokens are not
//! modelled), DSS mappings and DATA_ACK (64-bit), one connection-level receive window, finite
//! receive buffer with reassembly, reinjection on RTO, optional opportunistic retransmission and
//! penalisation, path-manager close/re-create of subflows when their interface goes down/up,
//! connection close when everything written is data-acknowledged.
//! Not modelled: ADD_ADDR/REMOVE_ADDR signalling (the scenario gives the paths), DSS checksums,
//! fallback to TCP, MP_FASTCLOSE, per-subflow FIN.
//! Option bytes on the wire: `DSS_DATA_BYTES` on data segments, `DSS_ACK_BYTES` on others.

pub mod config;
pub mod conn;
pub mod hol;
pub mod mapping;
pub mod receiver;
pub mod sender;
pub mod summary;
#[cfg(test)]
mod tests;

pub use config::{MptcpConfig, DSS_ACK_BYTES, DSS_DATA_BYTES, MAX_SUBFLOWS};
pub use conn::MptcpConn;
pub use receiver::{MptcpReceiver, MptcpReceiverStats};
pub use sender::{ConnStats, MpSeg, MptcpSender, SubState, SubflowParams, SubflowStats};
