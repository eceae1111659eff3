//! The simulation: builds links, routes and flows from a `RunSpec`, runs the event loop, and
//! hands out results. This is the only module that knows every layer; each layer below it is
//! driven through its sans-IO interface.
//!
//! Endpoint numbering: flow f has route 2f (data, ends at its receiver) and route 2f+1 (ACKs,
//! ends at its sender); endpoint e is the end of route e. Timer events carry 3·flow + slot, with
//! slots SENDER (RTO/persist), RECEIVER (delayed ACK) and PACER (sender pacing).
//! flow e/2 ... with index 0 = sender (route 2f+1's end), 1 = receiver (route 2f's end).

mod build;
mod event;
mod flow;
pub mod results;

pub use event::Ev;
pub use flow::{Flow, FlowMetrics, Transport};

use crate::net::{Link, Packet, Proto, RouteTable};
use crate::spec::RunSpec;
use crate::transport::segment::{TcpHeader, TCP_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::transport::tcp::TcpSender;
use mptlab_engine::timer::{Arm, Fired};
use mptlab_engine::{Arena, EventQueue, Handle, Time};

/// Endpoint roles within a flow (index into `Flow::timers`).
pub const SENDER: usize = 0;
pub const RECEIVER: usize = 1;
/// Timer slot of the sender's pacing wait.
pub const PACER: usize = 2;

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
    scratch: Vec<TcpHeader>,
    codel_drops: Vec<(Handle, u32)>,
    link_traces: Vec<results::LinkTrace>,
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
        let m = &mut self.flows[(p.route / 2) as usize].metrics;
        if p.is_data() {
            m.data_packets_dropped += 1;
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
        let f = (p.route / 2) as usize;
        if p.route % 2 == 0 {
            self.deliver_to_receiver(now, f, &p);
        } else {
            self.deliver_to_sender(now, f, &p);
        }
    }

    #[inline]
    fn deliver_to_receiver(&mut self, now: Time, f: usize, p: &Packet) {
        let flow = &mut self.flows[f];
        if p.is_data() {
            self.counts.delivered_data += 1;
            flow.metrics.jitter.on_packet(p.sent_at, now);
            flow.metrics.owd.record(now - p.sent_at);
        }
        let delivered = match &mut flow.transport {
            Transport::Tcp { rcv, .. } => {
                let mut out = std::mem::take(&mut self.scratch);
                let d = rcv.on_segment(now, &p.tcp, &mut out);
                self.scratch = out;
                d
            }
            Transport::Udp { rcv, .. } => rcv.on_datagram(p.udp_seq, p.udp_payload),
        };
        if delivered > 0 {
            let m = &mut flow.metrics;
            m.goodput.add(now, delivered);
            m.bytes_delivered += delivered;
            if m.completion.is_none() && flow.app.file_size().is_some_and(|s| m.bytes_delivered >= s) {
                m.completion = Some(now);
            }
        }
        if flow.proto == Proto::Tcp {
            self.flush_headers(now, f, RECEIVER);
            self.sync_timer(f, RECEIVER);
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
        self.flush_headers(now, f, SENDER);
        self.sync_timer(f, SENDER);
    }

    /// Turn the headers an endpoint produced into packets on its route.
    #[inline]
    fn flush_headers(&mut self, now: Time, f: usize, role: usize) {
        if self.scratch.is_empty() {
            return;
        }
        let route = if role == SENDER { 2 * f as u32 } else { 2 * f as u32 + 1 };
        let mut out = std::mem::take(&mut self.scratch);
        for hdr in out.drain(..) {
            let m = &mut self.flows[f].metrics;
            if hdr.len > 0 {
                m.data_packets_sent += 1;
            } else {
                m.ack_packets_sent += 1;
            }
            self.send_packet(
                now,
                Packet { route, hop: 0, proto: Proto::Tcp, size: hdr.len + TCP_HEADER_BYTES, sent_at: now, tcp: hdr, ..Default::default() },
            );
        }
        self.scratch = out;
    }

    /// Align an endpoint's engine timers with its transport's deadlines.
    #[inline]
    fn sync_timer(&mut self, f: usize, role: usize) {
        let Transport::Tcp { snd, rcv } = &self.flows[f].transport else { return };
        if role == SENDER {
            let (d, p) = (snd.deadline(), snd.pacing_deadline());
            self.arm(f, SENDER, d);
            self.arm(f, PACER, p);
        } else {
            let d = rcv.deadline();
            self.arm(f, RECEIVER, d);
        }
    }

    #[inline]
    fn arm(&mut self, f: usize, slot: usize, deadline: Option<Time>) {
        let timer = &mut self.flows[f].timers[slot];
        match deadline {
            Some(d) => {
                if let Arm::Schedule { at, generation } = timer.set(d) {
                    let ep = (3 * f + slot) as u32;
                    self.queue.schedule(at.max(self.queue.now()), Ev::Timer { ep, generation });
                }
            }
            None => timer.cancel(),
        }
    }

    fn on_timer(&mut self, now: Time, ep: u32, generation: u32) {
        let (f, slot) = ((ep / 3) as usize, (ep % 3) as usize);
        let role = if slot == RECEIVER { RECEIVER } else { SENDER };
        match self.flows[f].timers[slot].on_event(now, generation) {
            Fired::Stale => {}
            Fired::Rearm { at, generation } => self.queue.schedule(at, Ev::Timer { ep, generation }),
            Fired::Expired => {
                let Transport::Tcp { snd, rcv } = &mut self.flows[f].transport else { return };
                let mut out = std::mem::take(&mut self.scratch);
                if role == SENDER {
                    snd.on_timer(now, &mut out);
                } else {
                    rcv.on_timer(now, &mut out);
                }
                self.scratch = out;
                self.flush_headers(now, f, role);
                self.sync_timer(f, role);
            }
        }
    }

    // ----- applications ----------------------------------------------------------------

    fn on_start(&mut self, now: Time, f: usize) {
        let flow = &mut self.flows[f];
        let tick = flow.app.first(now);
        let bulk = flow.app.is_bulk();
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
        match flow.proto {
            // The writer is still blocked on its previous write: this tick produces nothing.
            Proto::Tcp if flow.backlog > 0 => flow.metrics.blocked_ticks += 1,
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
        if let Transport::Tcp { snd, .. } = &mut flow.transport {
            snd.close_writes();
        }
    }

    /// UDP: one datagram per `payload` bytes of the write.
    fn send_datagrams(&mut self, now: Time, f: usize, bytes: u64) {
        let mut left = bytes;
        while left > 0 {
            let flow = &mut self.flows[f];
            let Transport::Udp { payload, next_seq, .. } = &mut flow.transport else { return };
            let n = left.min(*payload as u64) as u32;
            left -= n as u64;
            let seq = *next_seq;
            *next_seq += 1;
            flow.metrics.data_packets_sent += 1;
            let p = Packet {
                route: 2 * f as u32,
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
            if let Transport::Tcp { snd, .. } = &flow.transport {
                if now >= flow.start {
                    flow.metrics.cwnd.record(now, snd.cwnd() as f64);
                    if let Some(s) = snd.rtt().srtt() {
                        flow.metrics.srtt.record(now, s as f64 / 1e6);
                    }
                }
            }
        }
        for (link, trace) in self.links.iter_mut().zip(&mut self.link_traces) {
            let (pkts, bytes) = link.backlog(now);
            trace.queue_pkts.record(now, pkts as f64);
            trace.queue_delay_ms.record(now, bytes as f64 * 8.0 / link.rate_bps as f64 * 1e3);
        }
        let next = now + self.spec.metrics.trace_interval;
        if next < self.spec.duration {
            self.queue.schedule(next, Ev::Sample);
        }
    }
}
