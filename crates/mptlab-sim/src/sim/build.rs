//! Building a `Simulation` from a `RunSpec`: links with their RNG streams, the route table,
//! flows with their endpoints (built by `transport::AnyEndpoint::build`) and applications, and
//! the first events.

use super::flow::{Flow, FlowMetrics, MpMetrics};
use super::parallel::{Ownership, PartState};
use super::results::LinkTrace;
use super::subflow_jitter::SubflowJitter;
use super::{Ev, PacketCounts, RouteEnd, Simulation, TunnelRt};
use crate::apps::{App, AppSpec};
use crate::cc::{CcParams, CongestionControl};
use crate::metrics::{active_bins, RateMeter};
use crate::net::{Hop, RouteTable, WifiDirection};
use crate::spec::{FlowSpec, RunSpec};
use crate::transport::endpoint::{End, Endpoint, Outbox, CONN_SLOTS, SLOTS_PER_PATH};
use crate::transport::spec::TransportSpec;
use crate::transport::tunnel::Tunnel;
use crate::transport::AnyEndpoint;
use mptlab_engine::{Arena, EventQueue, LazyTimer, RngStream, StreamId};
use std::sync::Arc;

/// Stream kinds: each random component draws from (seed, kind, id).
const STREAM_LINK: u64 = 1;
const STREAM_APP: u64 = 2;
/// Endpoints' random choices (multipath schedulers that draw).
const STREAM_SCHEDULER: u64 = 3;
/// Tunnels' schedulers.
const STREAM_TUNNEL: u64 = 4;

/// The whole run (`own` = None), or the part of it partition `own.me` of a parallel run owns:
/// its flows and links, indexed locally in id order, and every route (route ids stay global,
/// since packets cross partitions), encoded for the partition (`Ownership::encode`).
pub(super) fn build(spec: Arc<RunSpec>, own: Option<&Ownership>) -> Simulation {
    let owns_flow = |f: usize| own.is_none_or(|o| o.plan.flow_owner[f] == o.me);
    let owns_link = |l: usize| own.is_none_or(|o| o.plan.link_owner[l] == o.me);
    let (interval, trace_every, duration) = (spec.metrics.interval, spec.metrics.trace_interval, spec.duration);
    let m = &spec.metrics;
    // Flow groups (scenario entries) in order of first appearance; a flow carries its index.
    let mut group_names: Vec<String> = Vec::new();
    let flow_groups: Vec<u16> = spec
        .flows
        .iter()
        .map(|f| match group_names.iter().position(|g| *g == f.group) {
            Some(i) => i as u16,
            None => {
                group_names.push(f.group.clone());
                (group_names.len() - 1) as u16
            }
        })
        .collect();
    // Tunnels count their outer packets on links under their own names.
    let tunnel_groups: Vec<u16> = spec
        .tunnels
        .iter()
        .map(|t| {
            group_names.push(t.name.clone());
            (group_names.len() - 1) as u16
        })
        .collect();
    assert!(group_names.len() <= u16::MAX as usize, "more than 65535 flow groups");
    let link_ids: Vec<u32> = (0..spec.links.len()).filter(|&l| owns_link(l)).map(|l| l as u32).collect();
    let hops: Vec<Hop> = link_ids
        .iter()
        .map(|&i| (i as usize, &spec.links[i as usize]))
        .map(|(i, l)| {
            if let Some(port) = l.wifi {
                return Hop::Wifi(Box::new(WifiDirection::new(port, l.rate_bps, interval, duration, m.link_detailed(i))));
            }
            let rng = RngStream::new(spec.seed, StreamId::named(STREAM_LINK, &l.name));
            Hop::point_to_point(l, rng, interval, duration, m.link_detailed(i), group_names.len())
        })
        .collect();
    let jitter_groups = m.link_jitter.then_some(group_names.len());
    let link_traces = link_ids
        .iter()
        .map(|&i| m.link_detailed(i as usize).then(|| Box::new(LinkTrace::new(trace_every, duration, jitter_groups))))
        .collect();
    let mut routes = RouteTable::default();
    let mut route_ends = Vec::with_capacity(2 * spec.flows.len());
    let mut flows = Vec::with_capacity(spec.flows.len());
    let mut flow_ids = Vec::new();
    for (fi, f) in spec.flows.iter().enumerate() {
        let route_base = route_ends.len() as u32;
        let pairs = f.route_pairs();
        // A flow's id here: its index among the flows this build owns.
        let local = flows.len() as u32;
        for (path, (fwd, rev)) in pairs.iter().enumerate() {
            let path = path as u16;
            match own {
                None => {
                    routes.push(fwd);
                    routes.push(rev);
                }
                Some(o) => {
                    for route in [fwd, rev] {
                        let (entries, to) = o.encode(fi, route);
                        routes.push_to(&entries, &to);
                    }
                }
            }
            if owns_flow(fi) {
                route_ends.push(RouteEnd::Flow { flow: local, path, at: End::Receiver });
                route_ends.push(RouteEnd::Flow { flow: local, path, at: End::Sender });
            } else {
                let owner = own.map_or(0, |o| o.plan.flow_owner[fi]);
                route_ends.extend([RouteEnd::Remote { owner }; 2]);
            }
        }
        if !owns_flow(fi) {
            continue;
        }
        flow_ids.push(fi as u32);
        if let Some(tu) = &f.tunnel {
            // The data route ends at the ingress; after the egress the packet takes `after`.
            let next_route = routes.push(&tu.after);
            route_ends.push(RouteEnd::Flow { flow: local, path: 0, at: End::Receiver });
            route_ends[route_base as usize] = RouteEnd::TunnelIngress { tunnel: tu.tunnel as u16, next_route };
        }
        let rng = RngStream::new(spec.seed, StreamId::named(STREAM_APP, &f.name));
        let sched_seed = RngStream::new(spec.seed, StreamId::named(STREAM_SCHEDULER, &f.name)).next_u64();
        let mut built = AnyEndpoint::build(&f.transport, f.app.unit_write(), sched_seed);
        let detailed = m.flow_detailed(fi);
        built.endpoint.set_detailed(detailed);
        let mp = built.multipath.map(|n| Box::new(MpMetrics::new(n, trace_every, duration, detailed)));
        let metrics = if detailed {
            FlowMetrics::detailed(interval, trace_every, duration, m.flow_jitter)
        } else {
            // Streamed over the flow's active bins, as a kept series is summarised.
            let (first, end) = active_bins(interval, duration, f.start, f.stop);
            FlowMetrics::counters(RateMeter::streaming(interval, duration, first, end))
        };
        flows.push(Flow {
            proto: built.proto,
            group: flow_groups[fi],
            start: f.start,
            stop: f.stop,
            endpoint: built.endpoint,
            app: App::new(&f.app, built.app_unit, rng),
            backlog: 0,
            blocked_ticks: 0,
            route_base,
            timers: vec![LazyTimer::default(); SLOTS_PER_PATH * pairs.len() + CONN_SLOTS],
            metrics: FlowMetrics { mp, ..metrics },
        });
    }
    let mut tunnels = Vec::with_capacity(spec.tunnels.len());
    for (ti, t) in spec.tunnels.iter().enumerate() {
        let route_base = route_ends.len() as u32;
        for (path, p) in t.paths.iter().enumerate() {
            routes.push(&p.fwd_route);
            routes.push(&p.rev_route);
            route_ends.push(RouteEnd::Tunnel { tunnel: ti as u16, path: path as u16, at: End::Receiver });
            route_ends.push(RouteEnd::Tunnel { tunnel: ti as u16, path: path as u16, at: End::Sender });
        }
        let sched_seed = RngStream::new(spec.seed, StreamId::named(STREAM_TUNNEL, &t.name)).next_u64();
        let tunnel = Tunnel::new(t, sched_seed);
        tunnels.push(TunnelRt::new(tunnel, route_base, tunnel_groups[ti], interval, trace_every, duration));
    }
    let subflow_jitter =
        if m.link_jitter { SubflowJitter::new(&routes, route_ends.len(), |l| m.link_detailed(l)) } else { SubflowJitter::default() };
    // A binary heap while few flows and links keep events due soon, a radix heap for thousands
    // (same order: engine::queue).
    let mut queue = EventQueue::for_entities(busy_entities(&spec));
    let sampled_flows: Vec<u32> = (0..flow_ids.len() as u32).filter(|&f| m.flow_detailed(flow_ids[f as usize] as usize)).collect();
    // Periodic sampling only feeds traces: a run that traces nothing has no sample events.
    if !sampled_flows.is_empty() || !tunnels.is_empty() || link_ids.iter().any(|&l| m.link_detailed(l as usize)) {
        queue.schedule(0, Ev::Sample);
    }
    for (i, f) in flow_ids.iter().map(|&g| &spec.flows[g as usize]).enumerate() {
        if f.start < duration {
            queue.schedule(f.start, Ev::Start(i as u32));
        }
        if let Some(stop) = f.stop.filter(|s| *s < duration) {
            queue.schedule(stop, Ev::Stop(i as u32));
        }
    }
    let channels = spec.wifi.iter().map(|w| super::wifi::Channel::new(w, spec.seed, interval, duration)).collect();
    #[cfg(feature = "event-profile")]
    let profile = super::event_profile::EventProfile::new(&spec.flows);
    let part = own.map(|o| Box::new(PartState::new(o.me, o.plan.parts, flow_ids, link_ids, &routes)));
    let mut sim = Simulation {
        link_jitter: spec.metrics.link_jitter,
        spec,
        queue,
        packets: Arena::with_capacity(4096),
        hops,
        routes,
        flows,
        counts: PacketCounts::default(),
        route_ends,
        outbox: Outbox::with_capacity(64),
        codel_drops: Vec::new(),
        link_traces,
        subflow_jitter,
        group_names,
        sampled_flows,
        bodies: Default::default(),
        tunnels,
        tunnel_out: Default::default(),
        tunnel_deadlines: Vec::new(),
        channels,
        wifi_out: Vec::new(),
        part,
        merged_events: 0,
        merged_live: 0,
        #[cfg(feature = "event-profile")]
        profile,
    };
    // Capacity models and scenario link events (link_events.rs).
    sim.schedule_link_events();
    sim
}

/// Flows and links that keep events due soon in the event queue, which picks its kind by
/// this count (`EventQueue::for_entities`): every link (its next arrival), every Wi-Fi channel,
/// and every flow except a single-path TCP bulk flow whose sender does not pace. Such a flow
/// sends only when its ACKs arrive, so its own events are its retransmission, loss-probe and
/// delayed-ACK timers, tens of milliseconds ahead, past which a binary heap's new events (the
/// links' next arrivals) rarely sift. Measured (interleaved plain runs, 6 rounds): W6's 1,000
/// NewReno flows ran 1.11x faster on the binary heap than on the radix heap, the same flows with
/// CUBIC 1.03x; with BBR (paced, a pacing event per flow every few microseconds) 0.95x, and
/// W5's CBR devices 0.73x (12,000), 0.86x (600).
fn busy_entities(spec: &RunSpec) -> usize {
    let quiet = |f: &FlowSpec| match &f.transport {
        TransportSpec::Tcp(t) if matches!(f.app, AppSpec::Bulk) && !t.config.pacing => {
            let params = CcParams { mss: t.config.mss, initial_cwnd_segments: t.config.initial_cwnd_segments };
            t.cc.build(params).pacing_rate().is_none()
        }
        _ => false,
    };
    let busy_flows = spec.flows.iter().filter(|f| !quiet(f)).count();
    busy_flows + spec.links.len() + spec.wifi.len()
}

#[cfg(test)]
mod tests {
    use super::busy_entities;
    use crate::scenario::load;

    const ONE_BOTTLENECK: &str = r#"
[run]
duration = "1s"
[nodes]
hosts = ["src", "dst"]
[links.bottleneck]
between = ["src", "dst"]
rate = "1Gbps"
delay = "10ms"
[flows.bulk]
from = "src"
to = "dst"
count = 300
protocol = "tcp"
cc = "newreno"
app = "bulk"
"#;

    fn busy(sets: &[(&str, &str)]) -> usize {
        let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        busy_entities(&load(ONE_BOTTLENECK, &sets, None).expect("loads").spec)
    }

    #[test]
    fn only_unpaced_single_path_tcp_bulk_flows_keep_no_events_due_soon() {
        // The link's two directions count, one each.
        assert_eq!(busy(&[]), 2, "NewReno and CUBIC bulk flows count for nothing");
        assert_eq!(busy(&[("flows.bulk.cc", "cubic")]), 2);
        assert_eq!(busy(&[("flows.bulk.cc", "bbr")]), 302, "BBR paces");
        assert_eq!(busy(&[("flows.bulk.tcp.pacing", "true")]), 302, "a paced sender");
        assert_eq!(busy(&[("flows.bulk.app", "{ kind = \"cbr\", rate = \"1Mbps\", write_size = \"100B\" }")]), 302, "CBR ticks");
        assert_eq!(busy(&[("flows.bulk.protocol", "mptcp")]), 302, "multipath flows count");
    }
}
