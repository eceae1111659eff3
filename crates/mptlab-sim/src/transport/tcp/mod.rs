//! TCP as two sans-IO halves: `TcpSender` (data source, ACK sink) and `TcpReceiver` (data sink,
//! ACK source). mptlab's studies move data one way, so a connection is a sender at one host and
//! a receiver at the other; the same sender is reused as an MPTCP subflow later.
//!
//! What is modelled, with sources:
//! - three-way handshake (RFC 9293 §3.5), optional; SYN retransmitted with the initial RTO
//! - cumulative ACKs and SACK (RFC 2018), at most 3 blocks, most recent first
//! - loss recovery with SACK per RFC 6675 (IsLost, NextSeg rules 1–3, pipe), without SACK
//!   NewReno (RFC 6582) or Reno (RFC 5681 §3.2), with duplicate ACKs counted as in Linux's SACK
//!   emulation for non-SACK peers
//! - RTO per RFC 6298 (SRTT, RTTVAR, exponential backoff, Karn's rule), by default with Linux's
//!   floor on the variance term (`tcp.rto`, see `rtt.rs`)
//! - tail loss probes (RFC 8985 §7), see `tlp.rs`
//! - delayed ACKs (RFC 5681 §4.2 / RFC 1122 §4.2.3.2): every `every`-th full segment or a timer,
//!   immediately on out-of-order or gap-filling data
//! - send and receive buffers, flow control, zero-window probes (RFC 9293 §3.8.6.1)
//! - delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation) for rate-based
//!   controllers, see `rate.rs`
//! - pacing: when the controller returns a rate, segments leave at that rate in bursts of at
//!   most one send quantum (see `sender.rs`)
//!
//! Not modelled: FIN/close, Nagle (senders behave as TCP_NODELAY), urgent data, timestamps'
//! wire bytes, sequence-number wrap.

pub mod config;
pub mod conn;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod summary;
pub mod tlp;

pub use config::{DelayedAck, RtoFormula, TcpConfig};
pub use conn::TcpConn;
pub use receiver::{ReceiverStats, TcpReceiver};
pub use rtt::RttEstimator;
pub use sender::{SenderStats, TcpSender};

#[cfg(test)]
mod tests;
