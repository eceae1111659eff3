//! Per-connection TCP parameters (from the scenario's `[flows.<name>.tcp]` table).

use crate::spec::{DelayedAckSpec, TcpSpec};
use mptlab_engine::time::{MILLISECOND, SECOND};
use mptlab_engine::Time;

#[derive(Clone, Copy, Debug)]
pub struct TcpConfig {
    pub mss: u32,
    pub handshake: bool,
    pub sack: bool,
    pub initial_cwnd_segments: u32,
    /// Floor of the RTO. RFC 6298 (2.4) says 1 s; Linux uses 200 ms (TCP_RTO_MIN), our default.
    pub min_rto: Time,
    pub initial_rto: Time,
    pub max_rto: Time,
    pub delayed_ack: DelayedAckSpec,
    pub send_buffer: u64,
    pub recv_buffer: u64,
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
            delayed_ack: DelayedAckSpec { enabled: true, every: 2, timeout: 40 * MILLISECOND },
            send_buffer: 4_000_000,
            recv_buffer: 6_000_000,
        }
    }
}

impl From<&TcpSpec> for TcpConfig {
    fn from(s: &TcpSpec) -> Self {
        Self {
            mss: s.mss,
            handshake: s.handshake,
            sack: s.sack,
            initial_cwnd_segments: s.initial_cwnd_segments,
            min_rto: s.min_rto,
            initial_rto: s.initial_rto,
            max_rto: s.max_rto,
            delayed_ack: s.delayed_ack,
            send_buffer: s.send_buffer,
            recv_buffer: s.recv_buffer,
        }
    }
}
