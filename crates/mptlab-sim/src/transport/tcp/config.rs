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

/// How the retransmission timeout follows the RTT estimate (see `rtt.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoFormula {
    /// RTO = SRTT + max(4·RTTVAR, min_rto), as Linux (`tcp_rtt_estimator`, `tcp_set_rto`): the
    /// floor is on the variance term, so the RTO stays at least `min_rto` above SRTT.
    #[default]
    Linux,
    /// RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)), RFC 6298 (2.2)–(2.4) with G = 1 ms.
    Rfc6298,
}

impl RtoFormula {
    /// Scenario names (`tcp.rto`), in the order of the variants.
    pub const NAMES: &'static [&'static str] = &["linux", "rfc6298"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "linux" => Some(Self::Linux),
            "rfc6298" => Some(Self::Rfc6298),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct TcpConfig {
    pub mss: u32,
    pub handshake: bool,
    pub sack: bool,
    pub initial_cwnd_segments: u32,
    /// Floor of the RTO. RFC 6298 (2.4) says 1 s; Linux uses 200 ms (TCP_RTO_MIN), our default.
    /// With `rto = Linux` it floors the variance term (RTO ≥ SRTT + min_rto), with `Rfc6298`
    /// the whole RTO.
    pub min_rto: Time,
    /// RTO formula: Linux's (default) or RFC 6298's.
    pub rto: RtoFormula,
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

impl TcpConfig {
    /// The defaults of a TCP connection, the one source of them: the scenario layer fills a
    /// flow's `tcp` table from these (`scenario/defaults.rs`).
    pub const DEFAULT: TcpConfig = TcpConfig {
        mss: 1460,
        handshake: true,
        sack: true,
        // RFC 6928.
        initial_cwnd_segments: 10,
        // RFC 6298 §2.4 says 1 s; Linux uses 200 ms (TCP_RTO_MIN).
        min_rto: 200 * MILLISECOND,
        // Linux's formula, RTO = SRTT + max(4·RTTVAR, min_rto) (`tcp_rtt_estimator`).
        rto: RtoFormula::Linux,
        // RFC 6298 §2.1.
        initial_rto: SECOND,
        // Linux TCP_RTO_MAX.
        max_rto: 120 * SECOND,
        delayed_ack: DelayedAck {
            enabled: true,
            // RFC 5681 §4.2: an ACK for at least every second full-sized segment.
            every: 2,
            // Linux TCP_DELACK_MIN.
            timeout: 40 * MILLISECOND,
        },
        send_buffer: 4_000_000,
        recv_buffer: 6_000_000,
        // Linux paces only with the fq qdisc or a pacing controller (BBR paces regardless).
        pacing: false,
        // Linux sends tail loss probes by default (net.ipv4.tcp_early_retrans = 3).
        tlp: true,
    };
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}
