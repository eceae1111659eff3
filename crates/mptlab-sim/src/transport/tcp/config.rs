//! Per-connection TCP parameters (the scenario's `[flows.<name>.tcp]` table resolves to one).

use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;
use serde::Serialize;

/// Delayed-ACK policy of a receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DelayedAck {
    pub enabled: bool,
    /// ACK at least every `every` full-sized segments (RFC 1122/5681: 2).
    pub every: u32,
    /// Delayed-ACK timer (Linux minimum 40 ms; RFC 5681 allows up to 500 ms).
    pub timeout: Time,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct TcpConfig {
    pub mss: u32,
    pub handshake: bool,
    pub sack: bool,
    pub initial_cwnd_segments: u32,
    /// Floor of the RTO. RFC 6298 (2.4) says 1 s; Linux uses 200 ms (TCP_RTO_MIN), our default.
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    pub delayed_ack: DelayedAck,
    pub send_buffer: u64,
    pub recv_buffer: u64,
    /// Pace every controller, like Linux with the fq qdisc (`tcp_update_pacing_rate`):
    /// rate = cwnd / SRTT × 2 in slow start, × 1.2 after. Controllers with their own pacing rate
    /// (BBR) pace regardless.
    pub pacing: bool,
    /// Tail loss probes (RFC 8985 §7, see `tlp.rs`); Linux's default (tcp_early_retrans = 3).
    /// Needs SACK: without it no probe is ever scheduled.
    pub tlp: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            mss: 1460,
            handshake: true,
            sack: true,
            initial_cwnd_segments: 10,
            min_rto: 200 * MILLISECOND,
            initial_rto: SECOND,
            max_rto: 120 * SECOND,
            delayed_ack: DelayedAck { enabled: true, every: 2, timeout: 40 * MILLISECOND },
            send_buffer: 4_000_000,
            recv_buffer: 6_000_000,
            pacing: false,
            tlp: true,
        }
    }
}
