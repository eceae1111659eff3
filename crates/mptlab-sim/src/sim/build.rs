//! Building a `Simulation` from a `RunSpec`: links with their RNG streams, the route table,
//! flows with their transports and applications, and the first events.

use super::flow::{Flow, FlowMetrics, Transport};
use super::results::LinkTrace;
use super::{Ev, PacketCounts, Simulation};
use crate::apps::App;
use crate::cc::CcParams;
use crate::net::{Link, Proto, RouteTable};
use crate::spec::{AppSpec, RunSpec, TransportSpec};
use crate::transport::segment::UDP_HEADER_BYTES;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::udp::UdpReceiver;
use mptlab_engine::{Arena, EventQueue, LazyTimer, RngStream, StreamId};

/// Stream kinds: each random component draws from (seed, kind, id).
const STREAM_LINK: u64 = 1;
const STREAM_APP: u64 = 2;

/// Wire bytes of one application write sent as datagrams of at most `payload` bytes.
fn udp_wire_bytes(write: u64, payload: u32) -> u64 {
    write + write.div_ceil(payload as u64) * UDP_HEADER_BYTES as u64
}

pub(super) fn build(spec: RunSpec) -> Simulation {
    let (interval, trace_every, duration) = (spec.metrics.interval, spec.metrics.trace_interval, spec.duration);
    let links: Vec<Link> = spec
        .links
        .iter()
        .map(|l| Link::new(l, RngStream::new(spec.seed, StreamId::named(STREAM_LINK, &l.name)), interval, duration))
        .collect();
    let link_traces = spec.links.iter().map(|_| LinkTrace::new(trace_every, duration)).collect();
    let mut routes = RouteTable::default();
    let mut flows = Vec::with_capacity(spec.flows.len());
    for f in &spec.flows {
        routes.push(&f.fwd_route);
        routes.push(&f.rev_route);
        let rng = RngStream::new(spec.seed, StreamId::named(STREAM_APP, &f.name));
        let (proto, transport, app) = match &f.transport {
            TransportSpec::Tcp(t) => {
                let cfg = t.config;
                let cc = t.cc.build(CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments });
                let snd = TcpSender::new(cfg, cc);
                let rcv = TcpReceiver::new(cfg.sack, cfg.delayed_ack, cfg.mss, cfg.recv_buffer, !cfg.handshake);
                (Proto::Tcp, Transport::Tcp { snd: Box::new(snd), rcv: Box::new(rcv) }, App::new(&f.app, None, rng))
            }
            TransportSpec::Udp(u) => {
                let unit = match f.app {
                    AppSpec::Cbr { write_size, .. } => Some(udp_wire_bytes(write_size as u64, u.payload)),
                    AppSpec::Poisson { message_size, .. } => Some(udp_wire_bytes(message_size as u64, u.payload)),
                    _ => None,
                };
                let t = Transport::Udp { payload: u.payload, next_seq: 0, rcv: UdpReceiver::default() };
                (Proto::Udp, t, App::new(&f.app, unit, rng))
            }
        };
        flows.push(Flow {
            proto,
            start: f.start,
            stop: f.stop,
            transport,
            app,
            backlog: 0,
            timers: [LazyTimer::default(); 3],
            metrics: FlowMetrics::new(interval, trace_every, duration),
        });
    }
    let mut queue = EventQueue::new();
    queue.schedule(0, Ev::Sample);
    for (i, f) in spec.flows.iter().enumerate() {
        if f.start < duration {
            queue.schedule(f.start, Ev::Start(i as u32));
        }
        if let Some(stop) = f.stop.filter(|s| *s < duration) {
            queue.schedule(stop, Ev::Stop(i as u32));
        }
    }
    Simulation {
        spec,
        queue,
        packets: Arena::with_capacity(4096),
        links,
        routes,
        flows,
        counts: PacketCounts::default(),
        scratch: Vec::with_capacity(64),
        codel_drops: Vec::new(),
        link_traces,
    }
}
