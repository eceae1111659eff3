//! A flow's measurements, aggregated online: the simulation records arrivals, drops and
//! deliveries; the flow's endpoint fills windows and RTTs when sampled (`Endpoint::sample`).
//!
//! A flow the run measures in detail (`metrics.detail_flows`) keeps its goodput series, its
//! traces and per-packet delay distributions; any other flow keeps counters and streamed
//! goodput statistics only (its traces are `Trace::off`, nothing is recorded per packet), so its
//! memory does not grow with run length.

use crate::metrics::{LogHistogram, RateMeter, Rfc3550Jitter, Trace};
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
    /// Traces sampled every `trace_every`, or kept off (`traced = false`).
    pub fn new(paths: usize, trace_every: Time, duration: Time, traced: bool) -> Self {
        let trace = || if traced { Trace::new(trace_every, duration) } else { Trace::off() };
        Self {
            srtt: (0..paths).map(|_| trace()).collect(),
            protocol_delay: trace(),
            hol_degree: trace(),
            data_ack_delay: trace(),
            path_drops: vec![0; paths],
        }
    }
}

/// Arrivals a flow buffers before recording them (`PacketDelays::pending`).
const PENDING: usize = 32;

/// Per-packet distributions of a detailed flow's data packets at the receiver.
///
/// Arrivals are recorded in batches: each one is appended to `pending` (one store next to the
/// last), and every `PENDING` arrivals, or when the simulation settles its metrics
/// (`FlowMetrics::settle`, at the end of every `Simulation::advance`), the batch goes through
/// each estimator in turn, in arrival order. The results are those of recording each arrival at
/// once (same samples, same order, same floating-point sums); what changes is that the
/// histograms' and running statistics' lines are touched once per batch instead of once per
/// packet, between which the packets of a fast flow had pushed them out of the first-level
/// cache, and that each estimator's running sums stay in registers across the batch. W1 and W2
/// spent 13-15 % of their time on these metrics recorded one by one. A batch fed to all the
/// estimators together, packet by packet, cost 24 ns per arrival; each estimator in turn, 19.
#[derive(Default)]
pub struct PacketDelays {
    /// RFC 3550 jitter, when the run asks for flow jitter (`metrics.jitter`).
    pub jitter: Option<Rfc3550Jitter>,
    /// One-way delay of data packets (ns).
    pub owd: LogHistogram,
    /// Time between consecutive data packet arrivals at the receiver (ns).
    pub interarrival: LogHistogram,
    pub last_data_arrival: Option<Time>,
    /// (send time, arrival time) of arrivals not yet recorded, oldest first.
    pending: [(Time, Time); PENDING],
    npending: usize,
}

impl PacketDelays {
    #[inline]
    fn push(&mut self, sent_at: Time, now: Time) {
        self.pending[self.npending] = (sent_at, now);
        self.npending += 1;
        if self.npending == PENDING {
            self.record_pending();
        }
    }

    /// Record the buffered arrivals, oldest first: each estimator takes the whole batch in
    /// turn (they are independent), so its running sums stay in registers across it.
    #[inline(never)]
    fn record_pending(&mut self) {
        let batch = &self.pending[..self.npending];
        if let Some(j) = &mut self.jitter {
            j.on_packets(batch);
        }
        self.owd.record_all(batch.iter().map(|&(sent_at, now)| now - sent_at));
        let mut last = self.last_data_arrival;
        self.interarrival.record_all(batch.iter().filter_map(|&(_, now)| last.replace(now).map(|l| now - l)));
        self.last_data_arrival = last;
        self.npending = 0;
    }
}

/// Per-flow measurements, aggregated online. `repr(C)`: what every packet touches (the sent
/// counters, the delays' presence, the delivered bytes) first, so that it shares the flow's
/// endpoint line (`sim::flow::Flow`).
#[repr(C)]
pub struct FlowMetrics {
    pub data_packets_sent: u64,
    pub ack_packets_sent: u64,
    /// Detailed flows only.
    pub delays: Option<Box<PacketDelays>>,
    pub bytes_delivered: u64,
    pub completion: Option<Time>,
    /// Bytes delivered in order to the receiving application, per interval.
    pub goodput: RateMeter,
    pub data_packets_dropped: u64,
    pub ack_packets_dropped: u64,
    /// Multipath flows (MPTCP, multipath QUIC) only.
    pub mp: Option<Box<MpMetrics>>,
    pub cwnd: Trace,
    pub srtt: Trace,
}

impl FlowMetrics {
    /// A data packet sent at `sent_at` reached the receiver at `now` (recorded in a batch, see
    /// `PacketDelays`; `settle` before reading the delays).
    #[inline]
    pub fn on_data_arrival(&mut self, sent_at: Time, now: Time) {
        if let Some(d) = &mut self.delays {
            d.push(sent_at, now);
        }
    }

    /// Record what is buffered, so that the delays hold every arrival so far.
    pub fn settle(&mut self) {
        if let Some(d) = &mut self.delays {
            d.record_pending();
        }
    }

    /// A detailed flow: goodput series, traces, delays (and jitter if `jitter`).
    pub fn detailed(interval: Time, trace_every: Time, duration: Time, jitter: bool) -> Self {
        let delays = PacketDelays { jitter: jitter.then(Rfc3550Jitter::new), ..PacketDelays::default() };
        Self {
            delays: Some(Box::new(delays)),
            cwnd: Trace::new(trace_every, duration),
            srtt: Trace::new(trace_every, duration),
            ..Self::counters(RateMeter::series(interval, duration))
        }
    }

    /// Counters and the given goodput meter only: no traces, nothing recorded per packet.
    pub fn counters(goodput: RateMeter) -> Self {
        Self {
            goodput,
            delays: None,
            cwnd: Trace::off(),
            srtt: Trace::off(),
            data_packets_sent: 0,
            data_packets_dropped: 0,
            ack_packets_sent: 0,
            ack_packets_dropped: 0,
            bytes_delivered: 0,
            completion: None,
            mp: None,
        }
    }
}
