//! QUIC loss detection, RTT estimation, acknowledgment generation (RFC 9002, RFC 9000 §13.2),
//! streams and flow control (RFC 9000 §2–§4): the first building blocks of QUIC and multipath
//! QUIC. Sans-IO like the rest of `transport`: every call takes `now`, nothing reads a clock or
//! touches the network; deadlines are returned for the caller to put into the event queue.
//!
//! What is modelled:
//! - `rtt`: latest_rtt, min_rtt, smoothed_rtt, rttvar with ACK-delay adjustment (RFC 9002 §5),
//!   kInitialRtt (§6.2.2), the PTO period (§6.2.1) and the time-threshold loss delay (§6.1.2).
//! - `sent`: sent-packet records of one packet number space with caller-chosen payload
//!   (`SentPacket<F>`), bytes_in_flight accounting (Appendix A.1, A.5).
//! - `recovery`: `LossRecovery<F>`, the sender's loss detection for one packet number space:
//!   ACK processing and RTT samples (§5.1, A.7), packet- and time-threshold loss (§6.1), the
//!   loss-detection timer and PTO with backoff and probes (§6.2, A.8, A.9), persistent congestion
//!   (§7.6). Multipath QUIC holds one per path.
//! - `ack`: `AckManager`, the receiver's ranges, duplicate detection and ACK policy (RFC 9000
//!   §13.2.1–§13.2.5).
//! - `streams`: `SendStreams` / `RecvStreams`, STREAM frames chosen for packets (retransmissions
//!   before new data, round-robin among streams) and reassembled per stream without head-of-line
//!   blocking across streams, with FIN and final size (RFC 9000 §2–§3, §4.5).
//! - `flow`: `SendCredit` / `RecvWindow`, stream- and connection-level flow control with blocked
//!   signalling and a half-window auto-increase policy (RFC 9000 §4).
//! - `cc`: `QuicCongestion`, RFC 9002 §7 onto `cc::CongestionControl` (any registry controller):
//!   recovery periods (§7.3.2), the persistent-congestion collapse to kMinimumWindow (§7.6.2),
//!   app-limited tracking (§7.8), delivery-rate samples for BBR carried in the packet payload.
//!
//! - `wire`: packets and frames with their encoded sizes (RFC 9000 §12–§19, the multipath
//!   draft's PATH_ACK / PATH_ABANDON).
//! - `path`, `conn`, `config`: the connection endpoint — handshake, packet assembly, ACK duty,
//!   per-path recovery and congestion control, multipath validation, abandonment and failure,
//!   the scheduler per packet (draft-ietf-quic-multipath-19). `docs/quic.md` is the overview.
//!
//! Not modelled: separate Initial/Handshake packet number spaces (one CRYPTO stream per
//! direction on path 0's space), 0-RTT, stream types and limits (MAX_STREAMS, RESET_STREAM,
//! STOP_SENDING), connection-ID management, ECN (RFC 9002 §7.4), window-based pacing (§7.7:
//! `cc` passes the controller's rate through).

pub mod ack;
pub mod cc;
pub mod config;
pub mod conn;
pub mod flow;
pub mod pair;
pub mod path;
pub mod recovery;
pub mod rtt;
pub mod sent;
pub mod streams;
pub mod summary;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cc;
#[cfg(test)]
mod tests_conn;
#[cfg(test)]
mod tests_streams;
pub mod wire;

pub use ack::{AckConfig, AckFrame, AckManager, Received};
pub use cc::{initial_window_datagrams, QuicCongestion};
pub use config::{QuicConfig, MAX_PATHS};
pub use conn::{ConnStats, QuicConn, Role, Transmit};
pub use flow::{FlowControlError, RecvWindow, SendCredit, FLOW_CONTROL_ERROR};
pub use pair::QuicPair;
pub use path::{PathState, PathStats, QuicPath};
pub use recovery::{AckError, LossRecovery, RecoveryConfig, RecoveryOutcome, Timeout, TimerKind};
pub use rtt::{RttEstimator, GRANULARITY, INITIAL_RTT};
pub use sent::SentPacket;
pub use streams::{
    RangeSet, RecvConfig, RecvStats, RecvStream, RecvStreams, SendStats, SendStream, SendStreams, StreamError, StreamFrame,
    FINAL_SIZE_ERROR,
};
pub use wire::{Frames, PathAck, WirePacket};
