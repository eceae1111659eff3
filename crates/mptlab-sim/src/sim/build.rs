//! Building a `Simulation` from a `RunSpec`: links with their RNG streams, the route table,
//! flows with their transports and applications, and the first events.

use super::flow::{Flow, FlowMetrics, MpMetrics, Transport};
use super::results::LinkTrace;
use super::{Ev, PacketCounts, RouteEnd, Simulation};
use crate::apps::App;
use crate::cc::CcParams;
use crate::net::{Link, Proto, RouteTable};
use crate::spec::{AppSpec, RunSpec, TransportSpec};
use crate::transport::mptcp::{MptcpReceiver, MptcpSender, SubflowParams};
use crate::transport::multipath::PathPrefs;
use crate::transport::quic::{QuicConn, Role};
use crate::transport::segment::UDP_HEADER_BYTES;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::udp::UdpReceiver;
use mptlab_engine::{Arena, EventQueue, LazyTimer, RngStream, StreamId};

/// Stream kinds: each random component draws from (seed, kind, id).
const STREAM_LINK: u64 = 1;
const STREAM_APP: u64 = 2;
/// Schedulers that draw (BLP's blocking probability, Peekaboo's exploration).
const STREAM_SCHEDULER: u64 = 3;

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
    let mut route_ends = Vec::with_capacity(2 * spec.flows.len());
    let mut flows = Vec::with_capacity(spec.flows.len());
    for (fi, f) in spec.flows.iter().enumerate() {
        let route_base = route_ends.len() as u32;
        let pairs = f.route_pairs();
        for (path, (fwd, rev)) in pairs.iter().enumerate() {
            routes.push(fwd);
            routes.push(rev);
            route_ends.push(RouteEnd { flow: fi as u32, path: path as u16, to_receiver: true });
            route_ends.push(RouteEnd { flow: fi as u32, path: path as u16, to_receiver: false });
        }
        let mut mp = None;
        let rng = RngStream::new(spec.seed, StreamId::named(STREAM_APP, &f.name));
        let (proto, transport, app) = match &f.transport {
            TransportSpec::Tcp(t) => {
                let cfg = t.config;
                let cc = t.cc.build(CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments });
                let snd = TcpSender::new(cfg, cc);
                let rcv = TcpReceiver::new(cfg.sack, cfg.delayed_ack, cfg.mss, cfg.recv_buffer, !cfg.handshake);
                (Proto::Tcp, Transport::Tcp { snd: Box::new(snd), rcv: Box::new(rcv) }, App::new(&f.app, None, rng))
            }
            TransportSpec::Mptcp(m) => {
                let cfg = m.config;
                let params = CcParams { mss: cfg.mss, initial_cwnd_segments: cfg.initial_cwnd_segments };
                let ccs = m.paths.iter().map(|_| m.cc.build(params)).collect();
                let sub = SubflowParams {
                    tcp: cfg,
                    priorities: m.paths.iter().map(|p| p.priority).collect(),
                    backups: m.paths.iter().map(|p| p.backup).collect(),
                };
                let sched_seed = RngStream::new(spec.seed, StreamId::named(STREAM_SCHEDULER, &f.name)).next_u64();
                let sched = m.scheduler.build_seeded(sched_seed);
                let snd = MptcpSender::new(m.mptcp, sub, ccs, sched, m.scheduler.may_queue(), m.scheduler.picks_only_choice());
                let rcv = MptcpReceiver::new(m.paths.len(), cfg.sack, cfg.delayed_ack, cfg.mss, cfg.handshake, m.mptcp.recv_buffer);
                mp = Some(Box::new(MpMetrics::new(m.paths.len(), trace_every, duration)));
                (Proto::Tcp, Transport::Mptcp { snd: Box::new(snd), rcv: Box::new(rcv) }, App::new(&f.app, None, rng))
            }
            TransportSpec::Quic(q) => {
                let sched_seed = RngStream::new(spec.seed, StreamId::named(STREAM_SCHEDULER, &f.name)).next_u64();
                let n = q.paths.len();
                let mut cli = QuicConn::new(Role::Client, q.quic.clone(), &q.cc, &q.scheduler, n, sched_seed);
                let mut srv = QuicConn::new(Role::Server, q.quic.clone(), &q.cc, &q.scheduler, n, sched_seed ^ 1);
                let prefs: Vec<PathPrefs> = q.paths.iter().map(|p| PathPrefs { priority: p.priority, backup: p.backup }).collect();
                cli.set_path_prefs(&prefs);
                srv.set_path_prefs(&prefs);
                if q.quic.multipath {
                    mp = Some(Box::new(MpMetrics::new(n, trace_every, duration)));
                }
                (Proto::Udp, Transport::Quic { cli: Box::new(cli), srv: Box::new(srv) }, App::new(&f.app, None, rng))
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
            route_base,
            timers: vec![LazyTimer::default(); 3 * pairs.len()],
            metrics: FlowMetrics { mp, ..FlowMetrics::new(interval, trace_every, duration) },
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
    let mut sim = Simulation {
        spec,
        queue,
        packets: Arena::with_capacity(4096),
        links,
        routes,
        flows,
        counts: PacketCounts::default(),
        route_ends,
        scratch: Vec::with_capacity(64),
        mp_scratch: Vec::with_capacity(64),
        codel_drops: Vec::new(),
        link_traces,
        quic_wire: Default::default(),
    };
    // Capacity models and scenario link events (link_events.rs).
    sim.schedule_link_events();
    sim
}
