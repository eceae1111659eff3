//! Every default and fixed limit of the scenario format, in one place: the parser fills them in
//! and `catalogue()` prints them, so the documentation cannot drift from the behaviour.

use super::raw::{DelayedAck, JitterScope, Loss, MptcpOpts, Queue, TcpOpts};
use super::units::{Dur, Limit, Size};
use crate::transport::tcp::TcpConfig;
use mptlab_engine::time::{MILLISECOND, SECOND};

pub const SEED: u64 = 1;
/// Most device partitions a parallel run may ask for (`run.partitions`).
pub const MAX_PARTITIONS: u16 = 256;
/// Throughput bin width.
pub const INTERVAL: Dur = Dur(SECOND);
/// cwnd / SRTT / queue sampling period.
pub const TRACE_INTERVAL: Dur = Dur(100 * MILLISECOND);
/// Flows get RFC 3550 jitter by default; links only when asked (it costs a record per packet
/// per hop).
pub const JITTER: JitterScope = JitterScope::Flows;
/// `detail_flows = "auto"`: entries of at most this many flows are measured in detail.
pub const DETAIL_FLOW_LIMIT: usize = 100;

pub const DROPTAIL_LIMIT: Limit = Limit::Bdp(1.0);
/// RFC 8289 §4.2 (target) and §4.3 (interval); the hard limit follows Linux `fq_codel`'s
/// packet-count style, at the Linux `codel` qdisc default of 1000 packets.
pub const CODEL_LIMIT: Limit = Limit::Packets(1000);
pub const CODEL_TARGET: Dur = Dur(5 * MILLISECOND);
pub const CODEL_INTERVAL: Dur = Dur(100 * MILLISECOND);

/// RED (Floyd & Jacobson 1993): the paper's thresholds (min_th = 5 packets, max_th = 3·min_th)
/// and weight (w_q = 0.002); max_p = 0.1 and the gentle variant as Floyd recommends ("RED:
/// Discussions of Setting Parameters", 1997; "Recommendation on using the gentle_ variant of
/// RED", 2000); the hard limit as CoDel's.
pub const RED_LIMIT: Limit = Limit::Packets(1000);
pub const RED_MIN: Limit = Limit::Packets(5);
pub const RED_MAX: Limit = Limit::Packets(15);
pub const RED_MAX_P: f64 = 0.1;
pub const RED_WEIGHT: f64 = 0.002;
pub const RED_GENTLE: bool = true;

pub const fn droptail() -> Queue {
    Queue::DropTail { limit: DROPTAIL_LIMIT }
}
pub const LOSS: Loss = Loss::None;
/// Gilbert–Elliott: the good state is loss-free and the bad state loses everything (the
/// classical Gilbert model) unless told otherwise.
pub const GE_LOSS_GOOD: f64 = 0.0;
pub const GE_LOSS_BAD: f64 = 1.0;

pub const FLOW_COUNT: u64 = 1;
pub const PROTOCOL: &str = "tcp";
pub const CC: &str = "newreno";
pub const APP: &str = "bulk";
/// MPTCP scheduler: the upstream Linux one (`net/mptcp/protocol.c`), as on this kernel.
pub const SCHEDULER: &str = "default";
pub const START: Dur = Dur(0);
/// UDP wire size per datagram.
pub const UDP_PACKET_SIZE: Size = Size(1500);
/// TCP write size of CBR and message size of Poisson apps: one full segment of a Linux
/// connection with timestamps (1460 - 12), as iperf uses.
pub const TCP_WRITE_SIZE: Size = Size(1448);

/// IPv4 (20) + UDP (8) headers.
pub const UDP_HEADER: u64 = 28;
/// IPv4 (20) + TCP (20) headers.
pub const TCP_HEADER: u64 = 40;
/// Largest IPv4 packet.
pub const MAX_PACKET: u64 = 65_535;

/// Derived queue limits (BDP multiples, times) never go below one full 1500 B packet.
pub const MIN_DERIVED_LIMIT: u64 = 1500;
/// Round-trip time used for a link direction's BDP when no flow crosses it and its delay is 0.
pub const IDLE_BDP_RTT: Dur = Dur(MILLISECOND);

/// Sanity caps on expansion (members per group, flows per run).
pub const MAX_GROUP_COUNT: i64 = 1_000_000;
pub const MAX_FLOWS: u64 = 10_000_000;

/// A flow's `tcp` table when the scenario sets nothing: the transport's defaults
/// (`TcpConfig::DEFAULT`, the one place they are written down), in the scenario's units.
pub const fn tcp() -> TcpOpts {
    let t = TcpConfig::DEFAULT;
    TcpOpts {
        mss: Size(t.mss as u64),
        handshake: t.handshake,
        sack: t.sack,
        initial_cwnd: t.initial_cwnd_segments,
        min_rto: Dur(t.min_rto),
        rto: t.rto,
        initial_rto: Dur(t.initial_rto),
        max_rto: Dur(t.max_rto),
        delayed_ack: DelayedAck { enabled: t.delayed_ack.enabled, every: t.delayed_ack.every, timeout: Dur(t.delayed_ack.timeout) },
        send_buffer: Size(t.send_buffer),
        recv_buffer: Size(t.recv_buffer),
        pacing: t.pacing,
        tlp: t.tlp,
    }
}

/// TCP defaults of a tcp flow, or of an mptcp flow's subflows: those carry a 28 B DSS option,
/// so their default MSS is 1432 B and a full segment is a 1500 B packet, as Linux shrinks the
/// MSS by the option space MPTCP reserves.
pub const fn tcp_for(mptcp: bool) -> TcpOpts {
    let mut t = tcp();
    if mptcp {
        t.mss = Size(1460 - crate::transport::mptcp::DSS_DATA_BYTES as u64);
    }
    t
}

/// Connection-level MPTCP defaults (see `transport::mptcp::MptcpConfig`).
pub const fn mptcp() -> MptcpOpts {
    MptcpOpts {
        send_buffer: Size(4 << 20),
        // Linux tcp_rmem[2] (6 MiB); autotuning is not modelled.
        recv_buffer: Size(6 << 20),
        // The in-kernel path manager joins as soon as the first subflow is up.
        join_delay: Dur(0),
        reinject_on_rto: true,
        opportunistic_retransmit: false,
        priorities: None,
        backup: None,
    }
}

/// Capacity model `lte` (`net/capacity.rs`): coefficient of variation, lag-1 autocorrelation
/// of the rate per step, step; `min` and `max` default to mean / LTE_MIN_DIVISOR and
/// LTE_MAX_FACTOR · mean. Illustrative values, not fitted to a data set.
pub const LTE_CV: f64 = 0.3;
pub const LTE_CORRELATION: f64 = 0.9;
pub const LTE_STEP: Dur = Dur(100 * MILLISECOND);
pub const LTE_MIN_DIVISOR: u64 = 10;
pub const LTE_MAX_FACTOR: u64 = 3;
/// Largest accepted `cv` (σ of ln(rate) ≈ 1.8).
pub const LTE_MAX_CV: f64 = 5.0;
/// Shortest capacity step: one LTE subframe (TTI); finer steps model nothing real and cost an
/// event each.
pub const MIN_CAPACITY_STEP: Dur = Dur(MILLISECOND);

/// A tunnel's path controller and scheduler (seed 003: CCID2 over DCCP, CPF with Wi-Fi first).
pub const TUNNEL_CC: &str = "ccid2";
pub const TUNNEL_SCHEDULER: &str = "cpf";
