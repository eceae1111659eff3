//! QUIC loss detection, RTT estimation and acknowledgment generation (RFC 9002, RFC 9000 §13.2):
//! the first building block of QUIC and multipath QUIC. Sans-IO like the rest of `transport`:
//! every call takes `now`, nothing reads a clock or touches the network; deadlines are returned
//! for the caller to put into the event queue.
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
//!
//! Not yet (to come with the transport): streams and stream reassembly, flow control, the
//! handshake and packet number spaces other than 1-RTT, frames and packets on the wire (sizes,
//! encodings, ACK Delay exponent), ECN, the congestion controller glue (RFC 9002 §7 onto
//! `cc::CongestionControl`), pacing, path management and the multipath scheduler.

pub mod ack;
pub mod recovery;
pub mod rtt;
pub mod sent;
#[cfg(test)]
mod tests;

pub use ack::{AckConfig, AckFrame, AckManager, Received};
pub use recovery::{AckError, LossRecovery, RecoveryConfig, RecoveryOutcome, Timeout, TimerKind};
pub use rtt::{RttEstimator, GRANULARITY, INITIAL_RTT};
pub use sent::SentPacket;
