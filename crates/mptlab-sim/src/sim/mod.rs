//! The simulation: builds links, routes and flows from a `RunSpec`, runs the event loop,
//! forwards packets, runs applications and samples metrics. It knows every layer but no
//! transport: each flow's endpoint is driven through `transport::endpoint::Endpoint` (inputs,
//! then a drain of its transmits and wakes), dispatched statically by `AnyEndpoint`.
//!
//! Route numbering: path i of flow f carries the sending end's packets on route
//! `route_base + 2i` (it ends at the receiving end) and the receiving end's on
//! `route_base + 2i + 1`; `route_ends` maps a route id back to where it ends. Timer events carry
//! `flow · MAX_TIMER_SLOTS + slot` (slots: `transport::endpoint`).

mod build;
mod event;
#[cfg(feature = "event-profile")]
pub mod event_profile;
mod flow;
mod link_events;
pub mod parallel;
pub mod results;
mod results_paths;
mod runner;
mod subflow_jitter;
mod tunnels;
mod wifi;

pub use crate::transport::AnyEndpoint;
pub use event::Ev;
pub use flow::{Flow, FlowMetrics, MpMetrics};
pub use parallel::Partitioned;
pub use runner::Runner;
pub use tunnels::TunnelRt;

use crate::net::{Hop, Packet, RouteTable};
use crate::spec::RunSpec;
use crate::transport::bodies::Bodies;
use crate::transport::endpoint::{AppStart, End, Endpoint, Outbox, Wake, MAX_TIMER_SLOTS};
use mptlab_engine::timer::{Arm, Fired};
use mptlab_engine::{Arena, EventQueue, Handle, LazyTimer, Time};
use std::sync::Arc;

/// Where a route ends: a flow's endpoint, a tunnel's ingress (the packet goes into the tunnel
/// and continues on `next_route` after its egress), or an end of a tunnel path (`tunnels.rs`).
#[derive(Clone, Copy, Debug)]
pub enum RouteEnd {
    /// End `at` of path `path` of flow `flow`.
    Flow {
        flow: u32,
        path: u16,
        at: End,
    },
    TunnelIngress {
        tunnel: u16,
        next_route: u32,
    },
    /// End `at` of path `path` of tunnel `tunnel` (the egress is its `Receiver` end).
    Tunnel {
        tunnel: u16,
        path: u16,
        at: End,
    },
    /// Either end of a flow that partition `owner` of a parallel run owns: a packet reaching it
    /// here was handed over already (`parallel`).
    Remote {
        owner: u16,
    },
}

/// Align `timer` with `deadline` (None: cancel); when it needs an event, schedule `event(generation)`
/// (never in the past). Shared by flow and tunnel timers.
#[inline]
fn arm(queue: &mut EventQueue<Ev>, timer: &mut LazyTimer, deadline: Option<Time>, event: impl FnOnce(u32) -> Ev) {
    match deadline {
        Some(d) => {
            if let Arm::Schedule { at, generation } = timer.set(d) {
                queue.schedule(at.max(queue.now()), event(generation));
            }
        }
        None => timer.cancel(),
    }
}

/// Count a packet of path `path` lost in the network (`data`: it carried data) for its flow.
fn count_drop(m: &mut FlowMetrics, path: u16, data: bool) {
    if data {
        m.data_packets_dropped += 1;
        if let Some(mp) = &mut m.mp {
            mp.path_drops[path as usize] += 1;
        }
    } else {
        m.ack_packets_dropped += 1;
    }
}

/// Packet accounting for the conservation invariant: created = delivered + dropped + live.
#[derive(Clone, Copy, Debug, Default)]
pub struct PacketCounts {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub delivered_data: u64,
}

impl PacketCounts {
    /// The counts of two parts of a run together.
    pub fn plus(&self, o: &PacketCounts) -> PacketCounts {
        PacketCounts {
            created: self.created + o.created,
            delivered: self.delivered + o.delivered,
            dropped: self.dropped + o.dropped,
            delivered_data: self.delivered_data + o.delivered_data,
        }
    }
}

pub struct Simulation {
    pub spec: Arc<RunSpec>,
    /// `spec.metrics.link_jitter`, read on every arrival: here, not behind the `Arc`.
    link_jitter: bool,
    queue: EventQueue<Ev>,
    packets: Arena<Packet>,
    /// The hops packets cross, one per link direction (`spec.links`), by link id.
    pub hops: Vec<Hop>,
    routes: RouteTable,
    pub flows: Vec<Flow>,
    pub counts: PacketCounts,
    route_ends: Vec<RouteEnd>,
    /// What the endpoint of the last input produced, drained by `flush` (reused buffers).
    outbox: Outbox,
    codel_drops: Vec<(Handle, u32)>,
    /// Traces of the detailed links (`metrics.detail_links`), by link id.
    link_traces: Vec<Option<Box<results::LinkTrace>>>,
    /// Per-subflow link jitter estimators (when the run asks for link jitter).
    subflow_jitter: subflow_jitter::SubflowJitter,
    /// Flow group names (scenario entries), by the index packets carry.
    pub group_names: Vec<String>,
    /// The flows sampled every trace interval (the detailed ones), by id: a sample then does
    /// not touch the thousands of others.
    sampled_flows: Vec<u32>,
    /// Bodies of the packets in the network that carry one (by packet handle).
    bodies: Bodies,
    /// Multipath tunnels, by index of `spec.tunnels`.
    pub tunnels: Vec<TunnelRt>,
    /// Reused buffers of the tunnels' drains.
    tunnel_out: crate::transport::tunnel::TunnelOutput,
    tunnel_deadlines: Vec<(usize, Option<Time>)>,
    /// Wi-Fi channels, by index of `spec.wifi`, and the reused buffer of their media's outputs.
    pub channels: Vec<wifi::Channel>,
    wifi_out: Vec<crate::net::dcf::Output>,
    /// A partition of a parallel run: what it owns and what it hands over (`parallel`).
    part: Option<Box<parallel::PartState>>,
    /// Events the other partitions of a merged parallel run processed, and the packets they
    /// still held (handovers included).
    merged_events: u64,
    merged_live: usize,
    /// Clock ticks per event class (feature `event-profile`).
    #[cfg(feature = "event-profile")]
    profile: event_profile::EventProfile,
}

impl Simulation {
    /// The whole run on the sequential engine (`run.partitions` is not looked at: `Runner`
    /// chooses the engine).
    pub fn new(spec: RunSpec) -> Self {
        build::build(Arc::new(spec), None)
    }

    pub fn now(&self) -> Time {
        self.queue.now()
    }

    pub fn duration(&self) -> Time {
        self.spec.duration
    }

    pub fn is_done(&self) -> bool {
        self.queue.now() >= self.spec.duration
    }

    pub fn events_processed(&self) -> u64 {
        self.queue.events_processed() + self.merged_events
    }

    /// Packets currently held anywhere in the network (a partition's copies of packets it has
    /// handed over ahead of their arrival are not counted).
    pub fn packets_live(&self) -> usize {
        self.packets.live() - self.part.as_ref().map_or(0, |p| p.shells + p.away) + self.merged_live
    }

    /// Run until simulated time `until` (capped at the run's duration).
    pub fn advance(&mut self, until: Time) {
        self.run_until(until.min(self.spec.duration));
        self.settle();
    }

    /// Process every event due at or before `until`.
    fn run_until(&mut self, until: Time) {
        while let Some((now, ev)) = self.queue.pop_until(until) {
            self.dispatch(now, ev);
        }
        self.queue.advance_to(until);
    }

    /// Metrics recorded in batches (a detailed flow's delays) are complete whenever the caller
    /// can read them.
    fn settle(&mut self) {
        for &f in &self.sampled_flows {
            self.flows[f as usize].metrics.settle();
        }
    }

    /// Clock ticks per event class so far (feature `event-profile`).
    #[cfg(feature = "event-profile")]
    pub fn event_profile(&self) -> &event_profile::EventProfile {
        &self.profile
    }

    pub fn run_to_end(&mut self) {
        self.advance(self.spec.duration);
    }

    #[inline]
    fn dispatch(&mut self, now: Time, ev: Ev) {
        #[cfg(feature = "event-profile")]
        {
            use event_profile::Class;
            self.profile.current = match ev {
                Ev::Arrival(_) => Class::Hop,
                Ev::Timer { .. } | Ev::TunnelTimer { .. } => Class::Timer,
                _ => Class::Other,
            };
            let t0 = event_profile::now_ticks();
            self.dispatch_event(now, ev);
            self.profile.add(event_profile::now_ticks().wrapping_sub(t0));
        }
        #[cfg(not(feature = "event-profile"))]
        self.dispatch_event(now, ev);
    }

    #[inline]
    fn dispatch_event(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Arrival(l) => self.on_arrival(now, l),
            Ev::LinkTx(l) => self.on_link_tx(now, l),
            Ev::Timer { ep, generation } => self.on_timer(now, ep, generation),
            Ev::TunnelTimer { ep, generation } => self.on_tunnel_timer(now, ep, generation),
            Ev::App(f) => self.on_app_tick(now, f as usize),
            Ev::Start(f) => self.on_start(now, f as usize),
            Ev::Stop(f) => self.on_stop(f as usize),
            Ev::Sample => self.on_sample(now),
            Ev::OpenPath(f, path) => self.on_open_path(now, f as usize, path as usize),
            Ev::LinkEvent(i) => self.on_link_event(now, i),
            Ev::Capacity(l) => self.on_capacity_step(now, l),
            Ev::Wifi { channel, generation } => self.on_wifi(now, channel, generation),
            Ev::Import(h) => self.forward(now, Handle(h)),
        }
    }

    // ----- network ---------------------------------------------------------------------

    /// Put a new packet on the first link of `route`.
    #[inline]
    fn send_packet(&mut self, now: Time, p: Packet) {
        self.counts.created += 1;
        let h = self.packets.insert(p);
        self.forward(now, h);
    }

    #[inline]
    fn forward(&mut self, now: Time, h: Handle) {
        let p = self.packets.get(h);
        let (size, proto, group) = (p.size, p.proto, p.group);
        match self.routes.hop(p.route, p.hop) {
            // A parallel run's entries for crossings between partitions lie above every link id.
            Some(l) if l < parallel::EARLY => {
                self.offer(now, l, h, size, proto, group, true);
            }
            Some(code) => self.cross(now, h, code),
            None => self.deliver(now, h),
        }
    }

    /// Offer packet `h` to link `l`; true when the link took it. `arrivals`: schedule the link's
    /// arrival events (a parallel run's exit links are drained lazily instead: `parallel`).
    /// Always inlined: it is the body of `forward`, the hottest path of a run (the enqueue was
    /// written inline there before the parallel engine needed it in `cross` too).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn offer(&mut self, now: Time, l: u32, h: Handle, size: u32, proto: crate::net::Proto, group: u16, arrivals: bool) -> bool {
        // One match on the hop kind: a link takes the packet here, a Wi-Fi direction hands it
        // to its channel's medium.
        let link = match &mut self.hops[l as usize] {
            Hop::PointToPoint(link) => link,
            Hop::Wifi(w) => {
                let port = w.port;
                self.wifi_offer(now, l, port, h, size);
                return true;
            }
        };
        let r = link.enqueue(now, h, size, proto, group);
        if r.dropped {
            self.drop_packet(h);
        }
        if let Some(t) = r.arrival_wake.filter(|_| arrivals) {
            self.queue.schedule(t, Ev::Arrival(l));
        }
        if let Some(t) = r.tx_wake {
            self.queue.schedule(t, Ev::LinkTx(l));
        }
        !r.dropped
    }

    fn drop_packet(&mut self, h: Handle) {
        let p = *self.packets.remove(h);
        self.counts.dropped += 1;
        let (flow, path) = match self.route_ends[p.route as usize] {
            RouteEnd::Flow { flow, path, .. } => (flow, path),
            // Lost before reaching the ingress: its flow is the one the continuation ends at.
            RouteEnd::TunnelIngress { next_route, .. } => match self.route_ends[next_route as usize] {
                RouteEnd::Flow { flow, path, .. } => (flow, path),
                _ => unreachable!("a tunnel's continuation route ends at a flow"),
            },
            RouteEnd::Tunnel { tunnel, path, at } => return self.tunnel_drop(h, tunnel as usize, path as usize, at),
            // Counted for its flow by the partition that owns it.
            RouteEnd::Remote { owner } => return self.notify_drop(h, p, owner),
        };
        count_drop(&mut self.flows[flow as usize].metrics, path, p.is_data());
    }

    #[inline]
    fn on_arrival(&mut self, now: Time, l: u32) {
        let packets = &self.packets;
        let Some(a) = self.hops[l as usize].pop_arrival(now, |h| packets.get(h).group) else { return };
        if let Some(t) = a.next_wake {
            self.queue.schedule(t, Ev::Arrival(l));
        }
        if let Some(next) = a.next {
            self.packets.prefetch(next);
            self.bodies.prefetch(next);
        }
        if a.lost {
            #[cfg(feature = "event-profile")]
            {
                self.profile.current = event_profile::Class::OtherArrival;
            }
            self.drop_packet(a.handle);
            return;
        }
        let p = self.packets.get_mut(a.handle);
        let hop = p.hop;
        p.hop += 1;
        if self.link_jitter && p.is_data() {
            if let Some(j) = self.link_traces[l as usize].as_mut().and_then(|t| t.jitter.as_mut()) {
                if let Some(sub) = self.subflow_jitter.estimator(p.route, hop) {
                    j.on_packet(p.group, p.sent_at, now, sub);
                }
            }
        }
        self.forward(now, a.handle);
    }

    fn on_link_tx(&mut self, now: Time, l: u32) {
        let mut dropped = std::mem::take(&mut self.codel_drops);
        let packets = &self.packets;
        let r = self.hops[l as usize].on_tx_event(now, &mut dropped, |h| {
            let p = packets.get(h);
            (p.proto, p.group)
        });
        for (h, _) in dropped.drain(..) {
            self.drop_packet(h);
        }
        self.codel_drops = dropped;
        if let Some(t) = r.arrival_wake {
            self.queue.schedule(t, Ev::Arrival(l));
        }
        if let Some(t) = r.tx_wake {
            self.queue.schedule(t, Ev::LinkTx(l));
        }
    }

    // ----- endpoints -------------------------------------------------------------------

    /// A packet reached the end of its route.
    #[inline]
    fn deliver(&mut self, now: Time, h: Handle) {
        let (f, path, at) = match self.route_ends[self.packets.get(h).route as usize] {
            RouteEnd::Flow { flow, path, at } => (flow as usize, path, at),
            RouteEnd::Remote { .. } => return self.drop_shell(h),
            RouteEnd::TunnelIngress { tunnel, next_route } => return self.tunnel_ingress(now, tunnel as usize, h, next_route),
            RouteEnd::Tunnel { tunnel, path, at } => return self.tunnel_arrival(now, tunnel as usize, path as usize, at, h),
        };
        #[cfg(feature = "event-profile")]
        {
            self.profile.current = event_profile::Class::Delivery(f as u32, at);
        }
        // Borrowed, not copied out: nothing is inserted before the endpoint has read it.
        let p = self.packets.remove(h);
        self.counts.delivered += 1;
        let flow = &mut self.flows[f];
        if at == End::Receiver && p.is_data() {
            self.counts.delivered_data += 1;
            flow.metrics.on_data_arrival(p.sent_at, now);
        }
        // The packet's handle is already free: its body is read before the answers reuse it.
        let delivered = flow.endpoint.on_packet(now, at, path as usize, p, &self.bodies, h, &mut self.outbox);
        // Space freed in the send buffer unblocks a waiting application write.
        if at == End::Sender && flow.backlog > 0 {
            flow.backlog -= flow.endpoint.write(now, flow.backlog, &mut self.outbox);
        }
        self.flush(now, f);
        if delivered > 0 {
            self.record_delivery(now, f, delivered);
        }
    }

    /// `bytes` more were delivered in order to flow `f`'s receiving application.
    #[inline]
    fn record_delivery(&mut self, now: Time, f: usize, bytes: u64) {
        let flow = &mut self.flows[f];
        let m = &mut flow.metrics;
        m.goodput.add(now, now, bytes);
        m.bytes_delivered += bytes;
        if m.completion.is_none() && flow.app.file_size().is_some_and(|s| m.bytes_delivered >= s) {
            m.completion = Some(now);
        }
    }

    /// Drain what flow `f`'s endpoint produced: its packets onto their routes, then its wakes
    /// (path openings and timers) into the event queue, in the order it gave them. Routes are
    /// never empty (a flow to itself is rejected), so sending never re-enters an endpoint.
    #[inline]
    fn flush(&mut self, now: Time, f: usize) {
        loop {
            let next = self.packets.next_handle();
            let flow = &mut self.flows[f];
            let Some(t) = flow.endpoint.poll_transmit(now, &mut self.outbox, &mut self.bodies, next) else { break };
            let m = &mut flow.metrics;
            if t.packet.is_data() {
                m.data_packets_sent += 1;
            } else {
                m.ack_packets_sent += 1;
            }
            let route = flow.route_base + 2 * t.path as u32 + (t.from == End::Receiver) as u32;
            // A body was written for handle `next`: the packet must get it.
            debug_assert_eq!(self.packets.next_handle(), next, "a packet was inserted between building and sending");
            let group = flow.group;
            self.send_packet(now, Packet { route, hop: 0, group, ..t.packet });
        }
        for i in 0..self.outbox.wakes.len() {
            match self.outbox.wakes[i] {
                Wake::Timer { slot, deadline } => self.arm(f, slot, deadline),
                Wake::OpenPath { path, at } => self.queue.schedule(at, Ev::OpenPath(f as u32, path)),
            }
        }
        self.outbox.wakes.clear();
    }

    #[inline]
    fn arm(&mut self, f: usize, slot: usize, deadline: Option<Time>) {
        let ep = (MAX_TIMER_SLOTS * f + slot) as u32;
        arm(&mut self.queue, &mut self.flows[f].timers[slot], deadline, |generation| Ev::Timer { ep, generation });
    }

    fn on_timer(&mut self, now: Time, ep: u32, generation: u32) {
        let (f, slot) = (ep as usize / MAX_TIMER_SLOTS, ep as usize % MAX_TIMER_SLOTS);
        match self.flows[f].timers[slot].on_event(now, generation) {
            Fired::Stale => {}
            Fired::Rearm { at, generation } => self.queue.schedule(at, Ev::Timer { ep, generation }),
            Fired::Expired => {
                self.flows[f].endpoint.on_timeout(now, slot, &mut self.outbox);
                self.flush(now, f);
            }
        }
    }

    fn on_open_path(&mut self, now: Time, f: usize, path: usize) {
        self.flows[f].endpoint.on_open_path(now, path, &mut self.outbox);
        self.flush(now, f);
    }

    // ----- applications ----------------------------------------------------------------

    fn on_start(&mut self, now: Time, f: usize) {
        let flow = &mut self.flows[f];
        // The application's ticks end with the run or at the flow's stop (`schedule_app`).
        flow.app.set_end(flow.stop.map_or(self.spec.duration, |s| s.min(self.spec.duration)));
        let tick = flow.app.first(now);
        flow.backlog += tick.bytes;
        let app = AppStart { bulk: flow.app.is_bulk(), bytes: flow.backlog, file: flow.app.is_file() };
        flow.backlog -= flow.endpoint.start(now, app, &mut self.outbox);
        self.flush(now, f);
        if let Some(t) = tick.next {
            self.schedule_app(f, t);
        }
    }

    fn schedule_app(&mut self, f: usize, t: Time) {
        let flow = &self.flows[f];
        // A paced file transfer stops once its receiver holds the whole file. Only an application
        // with a size completes (`record_delivery`): the others' metrics, far from the application
        // in memory, are not read (a cache miss per tick with thousands of flows).
        let complete = flow.app.file_size().is_some() && flow.metrics.completion.is_some();
        if flow.app.runs_at(t) && !complete {
            self.queue.schedule(t, Ev::App(f as u32));
        }
    }

    fn on_app_tick(&mut self, now: Time, f: usize) {
        let flow = &mut self.flows[f];
        let tick = flow.app.tick(now);
        #[cfg(feature = "event-profile")]
        {
            use event_profile::Class;
            self.profile.current = if flow.backlog > 0 { Class::BlockedTick } else { Class::Write(f as u32) };
        }
        if flow.backlog > 0 {
            // The writer is still blocked on its previous write: this tick produces nothing.
            flow.blocked_ticks += 1;
        } else {
            flow.backlog = tick.bytes - flow.endpoint.write(now, tick.bytes, &mut self.outbox);
            self.flush(now, f);
        }
        if let Some(t) = tick.next {
            self.schedule_app(f, t);
        }
    }

    fn on_stop(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        flow.backlog = 0;
        flow.endpoint.finish();
    }

    // ----- periodic samples ------------------------------------------------------------

    fn on_sample(&mut self, now: Time) {
        self.sample_tunnels(now);
        for &f in &self.sampled_flows {
            let flow = &mut self.flows[f as usize];
            if now < flow.start {
                continue;
            }
            flow.endpoint.sample(now, &mut flow.metrics);
        }
        for (link, trace) in self.hops.iter_mut().zip(&mut self.link_traces) {
            let Some(trace) = trace else { continue };
            let (pkts, bytes) = link.backlog(now);
            trace.queue_pkts.record(now, pkts as f64);
            trace.queue_delay_ms.record(now, bytes as f64 * 8.0 / link.rate_bps() as f64 * 1e3);
        }
        let next = now + self.spec.metrics.trace_interval;
        if next < self.spec.duration {
            self.queue.schedule(next, Ev::Sample);
        }
    }
}
