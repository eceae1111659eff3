//! A flow's measurements, aggregated online: the simulation records arrivals, drops and
//! deliveries; the flow's endpoint fills windows and RTTs when sampled (`Endpoint::sample`).

use crate::metrics::{IntervalBins, LogHistogram, Rfc3550Jitter, Trace};
use mptlab_engine::Time;

/// Per-path measurements of an MPTCP flow (seed 001's metrics), sampled every trace interval.
pub struct MpMetrics {
    /// SRTT of each subflow in ms (τ_i(k)), sampled while the subflow has one.
    pub srtt: Vec<Trace>,
    /// T_over(k) = max_i T_i(k) (seed 001 eq. 2, `transport/mptcp/hol.rs`), in ms.
    pub protocol_delay: Trace,
    /// ζ(k) = T_over(k) − max_i τ_i(k), in ms (seed 001 eq. 8–9).
    pub hol_degree: Trace,
    /// The largest hand-over → first DATA_ACK (on any path) delay acknowledged in interval k, ms.
    pub data_ack_delay: Trace,
    /// Data packets of each subflow dropped in the network (queues, channels, down links).
    pub path_drops: Vec<u64>,
}

impl MpMetrics {
    pub fn new(paths: usize, trace_every: Time, duration: Time) -> Self {
        Self {
            srtt: (0..paths).map(|_| Trace::new(trace_every, duration)).collect(),
            protocol_delay: Trace::new(trace_every, duration),
            hol_degree: Trace::new(trace_every, duration),
            data_ack_delay: Trace::new(trace_every, duration),
            path_drops: vec![0; paths],
        }
    }
}

/// Per-flow measurements, aggregated online.
pub struct FlowMetrics {
    /// Bytes delivered in order to the receiving application, per interval.
    pub goodput: IntervalBins,
    pub jitter: Rfc3550Jitter,
    /// One-way delay of data packets (ns).
    pub owd: LogHistogram,
    /// Time between consecutive data packet arrivals at the receiver (ns).
    pub interarrival: LogHistogram,
    pub last_data_arrival: Option<Time>,
    pub cwnd: Trace,
    pub srtt: Trace,
    pub data_packets_sent: u64,
    pub data_packets_dropped: u64,
    pub ack_packets_sent: u64,
    pub ack_packets_dropped: u64,
    pub bytes_delivered: u64,
    pub completion: Option<Time>,
    /// Application ticks skipped because a blocking write was still pending.
    pub blocked_ticks: u64,
    /// Multipath flows (MPTCP, multipath QUIC) only.
    pub mp: Option<Box<MpMetrics>>,
}

impl FlowMetrics {
    /// A data packet sent at `sent_at` reached the receiver at `now`.
    #[inline]
    pub fn on_data_arrival(&mut self, sent_at: Time, now: Time) {
        self.jitter.on_packet(sent_at, now);
        self.owd.record(now - sent_at);
        if let Some(last) = self.last_data_arrival.replace(now) {
            self.interarrival.record(now - last);
        }
    }

    pub fn new(interval: Time, trace_every: Time, duration: Time) -> Self {
        Self {
            goodput: IntervalBins::new(interval, duration),
            jitter: Rfc3550Jitter::new(),
            owd: LogHistogram::new(),
            interarrival: LogHistogram::new(),
            last_data_arrival: None,
            cwnd: Trace::new(trace_every, duration),
            srtt: Trace::new(trace_every, duration),
            data_packets_sent: 0,
            data_packets_dropped: 0,
            ack_packets_sent: 0,
            ack_packets_dropped: 0,
            bytes_delivered: 0,
            completion: None,
            blocked_ticks: 0,
            mp: None,
        }
    }
}
