//! The simulation: builds links, routes and flows from a `RunSpec`, runs the event loop, and
//! hands out results. This is the only module that knows every layer; each layer below it is
//! driven through its sans-IO interface.
//!
//! Route numbering: path i of flow f (i = 0 for TCP and UDP, one per subflow for MPTCP) sends
//! data on route `route_base + 2i` (ends at the receiver) and ACKs on `route_base + 2i + 1`
//! (ends at the sender); `route_ends` maps a route id back to (flow, path, direction). Timer
//! events carry `flow · TIMER_STRIDE + 3 · path + slot`, with slots SENDER (RTO/persist),
//! RECEIVER (delayed ACK) and PACER (sender pacing).

mod build;
mod event;
mod flow;
mod link_events;
mod mptcp;
mod quic;
pub mod results;
mod results_mptcp;
mod results_quic;

pub use event::Ev;
pub use flow::{Flow, FlowMetrics, MpMetrics, Transport};

use crate::net::{Link, Packet, Proto, RouteTable};
use crate::spec::RunSpec;
use crate::transport::mptcp::{MpSeg, MAX_SUBFLOWS};
use crate::transport::segment::{TcpHeader, TCP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::transport::tcp::TcpSender;
use mptlab_engine::timer::{Arm, Fired};
use mptlab_engine::{Arena, EventQueue, Handle, Time};

/// Endpoint roles within a flow (index into `Flow::timers`).
pub const SENDER: usize = 0;
pub const RECEIVER: usize = 1;
/// Timer slot of the sender's pacing wait.
pub const PACER: usize = 2;
/// Timer ids per flow: three slots per path.
pub const TIMER_STRIDE: usize = 3 * MAX_SUBFLOWS;

/// Where a route ends: its flow, the flow's path, and whether the receiver is at its end.
#[derive(Clone, Copy, Debug)]
pub struct RouteEnd {
    pub flow: u32,
    pub path: u16,
    pub to_receiver: bool,
}

/// Packet accounting for the conservation invariant: created = delivered + dropped + live.
#[derive(Clone, Copy, Debug, Default)]
pub struct PacketCounts {
    pub created: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub delivered_data: u64,
}

pub struct Simulation {
    pub spec: RunSpec,
    queue: EventQueue<Ev>,
    packets: Arena<Packet>,
    pub links: Vec<Link>,
    routes: RouteTable,
    pub flows: Vec<Flow>,
    pub counts: PacketCounts,
    route_ends: Vec<RouteEnd>,
    scratch: Vec<TcpHeader>,
    mp_scratch: Vec<MpSeg>,
    codel_drops: Vec<(Handle, u32)>,
    link_traces: Vec<results::LinkTrace>,
    /// Frames of the QUIC packets in the network (`quic.rs`).
    quic_wire: quic::WireSlab,
}

impl Simulation {
    pub fn new(spec: RunSpec) -> Self {
        build::build(spec)
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
        self.queue.events_processed()
    }

    /// Packets currently held anywhere in the network.
    pub fn packets_live(&self) -> usize {
        self.packets.live()
    }

    /// Run until simulated time `until` (capped at the run's duration).
    pub fn advance(&mut self, until: Time) {
        let until = until.min(self.spec.duration);
        while let Some((now, ev)) = self.queue.pop_until(until) {
            self.dispatch(now, ev);
        }
        self.queue.advance_to(until);
    }

    pub fn run_to_end(&mut self) {
        self.advance(self.spec.duration);
    }

    #[inline]
    fn dispatch(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Arrival(l) => self.on_arrival(now, l),
            Ev::LinkTx(l) => self.on_link_tx(now, l),
            Ev::Timer { ep, generation } => self.on_timer(now, ep, generation),
            Ev::App(f) => self.on_app_tick(now, f as usize),
            Ev::Start(f) => self.on_start(now, f as usize),
            Ev::Stop(f) => self.on_stop(f as usize),
            Ev::Sample => self.on_sample(now),
            Ev::Join(f, path) => self.on_join(now, f as usize, path as usize),
            Ev::LinkEvent(i) => self.on_link_event(now, i),
            Ev::Capacity(l) => self.on_capacity_step(now, l),
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
        let (size, proto) = (p.size, p.proto);
        match self.routes.hop(p.route, p.hop) {
            Some(l) => {
                let link = &mut self.links[l as usize];
                let r = link.enqueue(now, h, size, proto);
                if r.dropped {
                    self.drop_packet(h);
                }
                if let Some(t) = r.arrival_wake {
                    self.queue.schedule(t, Ev::Arrival(l));
                }
                if let Some(t) = r.tx_wake {
                    self.queue.schedule(t, Ev::LinkTx(l));
                }
            }
            None => self.deliver(now, h),
        }
    }

    fn drop_packet(&mut self, h: Handle) {
        let p = *self.packets.remove(h);
        self.counts.dropped += 1;
        let end = self.route_ends[p.route as usize];
        let m = &mut self.flows[end.flow as usize].metrics;
        if p.is_data() {
            m.data_packets_dropped += 1;
            if let Some(mp) = &mut m.mp {
                mp.path_drops[end.path as usize] += 1;
            }
        } else {
            m.ack_packets_dropped += 1;
        }
    }

    #[inline]
    fn on_arrival(&mut self, now: Time, l: u32) {
        let Some(a) = self.links[l as usize].pop_arrival(now) else { return };
        if let Some(t) = a.next_wake {
            self.queue.schedule(t, Ev::Arrival(l));
        }
        if let Some(next) = a.next {
            self.packets.prefetch(next);
            self.quic_wire.prefetch(next);
        }
        if a.lost {
            self.drop_packet(a.handle);
            return;
        }
        let p = self.packets.get_mut(a.handle);
        p.hop += 1;
        if p.is_data() {
            self.link_traces[l as usize].jitter.on_packet(p.sent_at, now);
        }
        self.forward(now, a.handle);
    }

    fn on_link_tx(&mut self, now: Time, l: u32) {
        let mut dropped = std::mem::take(&mut self.codel_drops);
        let packets = &self.packets;
        let r = self.links[l as usize].on_tx_event(now, &mut dropped, |h| packets.get(h).proto);
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
        let p = *self.packets.remove(h);
        self.counts.delivered += 1;
        let end = self.route_ends[p.route as usize];
        let (f, path) = (end.flow as usize, end.path as usize);
        if matches!(self.flows[f].transport, Transport::Quic { .. }) {
            if p.is_data() && end.to_receiver {
                self.counts.delivered_data += 1;
                self.flows[f].metrics.on_data_arrival(p.sent_at, now);
            }
            self.quic_deliver(now, f, path, end.to_receiver, h);
        } else if end.to_receiver {
            self.deliver_to_receiver(now, f, path, &p);
        } else if matches!(self.flows[f].transport, Transport::Mptcp { .. }) {
            self.mptcp_ack(now, f, path, &p);
        } else {
            self.deliver_to_sender(now, f, &p);
        }
    }

    #[inline]
    fn deliver_to_receiver(&mut self, now: Time, f: usize, path: usize, p: &Packet) {
        let flow = &mut self.flows[f];
        if p.is_data() {
            self.counts.delivered_data += 1;
            flow.metrics.on_data_arrival(p.sent_at, now);
        }
        let delivered = match &mut flow.transport {
            Transport::Tcp { rcv, .. } => {
                let mut out = std::mem::take(&mut self.scratch);
                let d = rcv.on_segment(now, &p.tcp, &mut out);
                self.scratch = out;
                d
            }
            Transport::Udp { rcv, .. } => rcv.on_datagram(p.udp_seq, p.udp_payload),
            Transport::Quic { .. } => unreachable!("quic packets go to quic_deliver"),
            Transport::Mptcp { rcv, .. } => {
                if p.epoch != rcv.subs[path].epoch {
                    0 // a packet of a closed subflow incarnation
                } else {
                    let mut out = std::mem::take(&mut self.scratch);
                    let d = rcv.on_segment(now, path, &p.tcp, &mut out);
                    self.scratch = out;
                    d
                }
            }
        };
        if delivered > 0 {
            self.record_delivery(now, f, delivered);
        }
        if self.flows[f].proto == Proto::Tcp {
            self.flush_headers(now, f, path, RECEIVER);
            self.sync_timer(f, path, RECEIVER);
        }
    }

    /// `bytes` more were delivered in order to flow `f`'s receiving application.
    #[inline]
    fn record_delivery(&mut self, now: Time, f: usize, bytes: u64) {
        let flow = &mut self.flows[f];
        let m = &mut flow.metrics;
        m.goodput.add(now, bytes);
        m.bytes_delivered += bytes;
        if m.completion.is_none() && flow.app.file_size().is_some_and(|s| m.bytes_delivered >= s) {
            m.completion = Some(now);
        }
    }

    #[inline]
    fn deliver_to_sender(&mut self, now: Time, f: usize, p: &Packet) {
        self.drive_sender(now, f, |snd, backlog, out| {
            snd.on_ack(now, &p.tcp, out);
            // Space freed in the send buffer unblocks a waiting application write.
            if *backlog > 0 {
                *backlog -= snd.write(*backlog);
                snd.try_send(now, out);
            }
        });
    }

    /// Run `op` on flow `f`'s TCP sender (with the flow's application backlog and the header
    /// buffer), then put what it produced on the wire and align its timer.
    #[inline]
    fn drive_sender(&mut self, now: Time, f: usize, op: impl FnOnce(&mut TcpSender, &mut u64, &mut Vec<TcpHeader>)) {
        let flow = &mut self.flows[f];
        let Transport::Tcp { snd, .. } = &mut flow.transport else { return };
        let mut out = std::mem::take(&mut self.scratch);
        op(snd, &mut flow.backlog, &mut out);
        self.scratch = out;
        self.flush_headers(now, f, 0, SENDER);
        self.sync_timer(f, 0, SENDER);
    }

    /// Turn the headers an endpoint of path `path` produced into packets on its route.
    #[inline]
    fn flush_headers(&mut self, now: Time, f: usize, path: usize, role: usize) {
        if self.scratch.is_empty() {
            return;
        }
        let flow = &self.flows[f];
        let route = flow.route_base + 2 * path as u32 + (role != SENDER) as u32;
        let (options, epoch) = match &flow.transport {
            Transport::Mptcp { rcv, .. } => (crate::transport::mptcp::DSS_ACK_BYTES, rcv.subs[path].epoch),
            _ => (0, 0),
        };
        let mut out = std::mem::take(&mut self.scratch);
        for hdr in out.drain(..) {
            let m = &mut self.flows[f].metrics;
            if hdr.len > 0 {
                m.data_packets_sent += 1;
            } else {
                m.ack_packets_sent += 1;
            }
            let size = hdr.len + TCP_HEADER_BYTES + options;
            self.send_packet(now, Packet { route, hop: 0, proto: Proto::Tcp, epoch, size, sent_at: now, tcp: hdr, ..Default::default() });
        }
        self.scratch = out;
    }

    /// Align an endpoint's engine timers with its transport's deadlines.
    #[inline]
    fn sync_timer(&mut self, f: usize, path: usize, role: usize) {
        let (d, p) = match &self.flows[f].transport {
            Transport::Tcp { snd, .. } if role == SENDER => (snd.deadline(), snd.pacing_deadline()),
            Transport::Tcp { rcv, .. } => (rcv.deadline(), None),
            Transport::Mptcp { snd, .. } if role == SENDER => (snd.deadline(path), snd.pacing_deadline(path)),
            Transport::Mptcp { rcv, .. } => (rcv.deadline(path), None),
            Transport::Udp { .. } | Transport::Quic { .. } => return,
        };
        if role == SENDER {
            self.arm(f, 3 * path + SENDER, d);
            self.arm(f, 3 * path + PACER, p);
        } else {
            self.arm(f, 3 * path + RECEIVER, d);
        }
    }

    #[inline]
    fn arm(&mut self, f: usize, slot: usize, deadline: Option<Time>) {
        let timer = &mut self.flows[f].timers[slot];
        match deadline {
            Some(d) => {
                if let Arm::Schedule { at, generation } = timer.set(d) {
                    let ep = (TIMER_STRIDE * f + slot) as u32;
                    self.queue.schedule(at.max(self.queue.now()), Ev::Timer { ep, generation });
                }
            }
            None => timer.cancel(),
        }
    }

    fn on_timer(&mut self, now: Time, ep: u32, generation: u32) {
        let (f, slot) = (ep as usize / TIMER_STRIDE, ep as usize % TIMER_STRIDE);
        let (path, role) = (slot / 3, if slot % 3 == RECEIVER { RECEIVER } else { SENDER });
        match self.flows[f].timers[slot].on_event(now, generation) {
            Fired::Stale => {}
            Fired::Rearm { at, generation } => self.queue.schedule(at, Ev::Timer { ep, generation }),
            Fired::Expired if matches!(self.flows[f].transport, Transport::Mptcp { .. }) => self.mptcp_timer(now, f, path, role),
            Fired::Expired if matches!(self.flows[f].transport, Transport::Quic { .. }) => self.quic_timer(now, f, role),
            Fired::Expired => {
                let Transport::Tcp { snd, rcv } = &mut self.flows[f].transport else {
                    return;
                };
                let mut out = std::mem::take(&mut self.scratch);
                if role == SENDER {
                    snd.on_timer(now, &mut out);
                } else {
                    rcv.on_timer(now, &mut out);
                }
                self.scratch = out;
                self.flush_headers(now, f, 0, role);
                self.sync_timer(f, 0, role);
            }
        }
    }

    // ----- applications ----------------------------------------------------------------

    fn on_start(&mut self, now: Time, f: usize) {
        let flow = &mut self.flows[f];
        let tick = flow.app.first(now);
        let bulk = flow.app.is_bulk();
        let file = flow.app.file_size().is_some();
        if matches!(flow.transport, Transport::Quic { .. }) {
            self.drive_quic(now, f, SENDER, |cli| {
                cli.start(now);
                if bulk {
                    cli.set_unlimited();
                } else {
                    cli.write(tick.bytes);
                }
                if file {
                    cli.finish();
                }
            });
        } else if matches!(flow.transport, Transport::Mptcp { .. }) {
            self.drive_mptcp(now, f, |snd, backlog, out| {
                if bulk {
                    snd.set_unlimited();
                }
                *backlog += tick.bytes;
                *backlog -= snd.write(now, *backlog);
                snd.start(now, out);
            });
        } else {
            match flow.proto {
                Proto::Tcp => self.drive_sender(now, f, |snd, backlog, out| {
                    if bulk {
                        snd.set_unlimited();
                    }
                    *backlog += tick.bytes;
                    *backlog -= snd.write(*backlog);
                    snd.start(now, out);
                }),
                Proto::Udp => self.send_datagrams(now, f, tick.bytes),
            }
        }
        if let Some(t) = tick.next {
            self.schedule_app(f, t);
        }
    }

    fn schedule_app(&mut self, f: usize, t: Time) {
        let flow = &self.flows[f];
        if t < self.spec.duration && flow.stop.is_none_or(|s| t < s) {
            self.queue.schedule(t, Ev::App(f as u32));
        }
    }

    fn on_app_tick(&mut self, now: Time, f: usize) {
        let flow = &mut self.flows[f];
        let tick = flow.app.tick(now);
        if matches!(flow.transport, Transport::Quic { .. }) {
            // The QUIC send buffer is unbounded: a write is never blocked.
            self.drive_quic(now, f, SENDER, |cli| cli.write(tick.bytes));
            if let Some(t) = tick.next {
                self.schedule_app(f, t);
            }
            return;
        }
        match flow.proto {
            // The writer is still blocked on its previous write: this tick produces nothing.
            Proto::Tcp if flow.backlog > 0 => flow.metrics.blocked_ticks += 1,
            Proto::Tcp if matches!(flow.transport, Transport::Mptcp { .. }) => self.drive_mptcp(now, f, |snd, backlog, out| {
                *backlog = tick.bytes - snd.write(now, tick.bytes);
                snd.push(now, out);
            }),
            Proto::Tcp => self.drive_sender(now, f, |snd, backlog, out| {
                *backlog = tick.bytes - snd.write(tick.bytes);
                snd.try_send(now, out);
            }),
            Proto::Udp => self.send_datagrams(now, f, tick.bytes),
        }
        if let Some(t) = tick.next {
            self.schedule_app(f, t);
        }
    }

    fn on_stop(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        flow.backlog = 0;
        match &mut flow.transport {
            Transport::Tcp { snd, .. } => snd.close_writes(),
            Transport::Mptcp { snd, .. } => snd.close_writes(),
            Transport::Quic { cli, .. } => cli.finish(),
            Transport::Udp { .. } => {}
        }
    }

    /// UDP: one datagram per `payload` bytes of the write.
    fn send_datagrams(&mut self, now: Time, f: usize, bytes: u64) {
        let mut left = bytes;
        while left > 0 {
            let flow = &mut self.flows[f];
            let Transport::Udp { payload, next_seq, .. } = &mut flow.transport else {
                return;
            };
            let n = left.min(*payload as u64) as u32;
            left -= n as u64;
            let seq = *next_seq;
            *next_seq += 1;
            flow.metrics.data_packets_sent += 1;
            let p = Packet {
                route: flow.route_base,
                hop: 0,
                proto: Proto::Udp,
                size: n + UDP_HEADER_BYTES,
                sent_at: now,
                udp_seq: seq,
                udp_payload: n,
                ..Default::default()
            };
            self.send_packet(now, p);
        }
    }

    // ----- periodic samples ------------------------------------------------------------

    fn on_sample(&mut self, now: Time) {
        for flow in &mut self.flows {
            if now < flow.start {
                continue;
            }
            match &mut flow.transport {
                Transport::Tcp { snd, .. } => {
                    flow.metrics.cwnd.record(now, snd.cwnd() as f64);
                    if let Some(s) = snd.rtt().srtt() {
                        flow.metrics.srtt.record(now, s as f64 / 1e6);
                    }
                }
                Transport::Mptcp { snd, .. } => mptcp::sample(now, snd, &mut flow.metrics),
                Transport::Quic { cli, .. } => quic::sample(now, cli, &mut flow.metrics),
                Transport::Udp { .. } => {}
            }
        }
        for (link, trace) in self.links.iter_mut().zip(&mut self.link_traces) {
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
