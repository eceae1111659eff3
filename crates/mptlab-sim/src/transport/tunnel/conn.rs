//! A multipath tunnel between two nodes, sans-IO: the ingress (scheduler buffer, scheduler,
//! one sender per path) and the egress (one receiver per path, the reordering stage), both in
//! one value as a flow's two ends are (`transport::endpoint`). Each path is a DCCP-like
//! unreliable connection (`dccp.rs`) or a reliable TCP connection (`tcp.rs`), all of one kind
//! (`path.rs`).
//!
//! - Ingress: an inner packet that reaches the ingress is offered to the scheduler buffer
//!   (`buffer.rs`; dropped when full). The scheduler (`sched/`, through the multipath core) is
//!   asked for the buffer's head whenever something may have changed (an arrival, an ACK, a
//!   timer); a path is available when its window has room for one more packet, the pacer not
//!   considered (seed 003 §2.3: "a path is considered available if its path congestion window
//!   (CWND) has sufficient room"; study notes A7). A head placed on a path whose pacer is not
//!   ready waits for it, in the buffer.
//! - Encapsulation: the outer packet's body carries the inner packet's handle
//!   (`net::BodyTable::encapsulate`); its wire size is the inner size plus `overhead`; its
//!   header carries the global sequence number (`dss`), the path sequence number (`seq`)
//!   and a timestamp (`sent_at`), the fields of seed 003 §2.2's header. The global number and
//!   the timestamp are given when the scheduler places the packet on a path, so the egress's
//!   one-way delay estimates include the wait for the path's pacer.
//! - Egress: each outer data packet is acknowledged on its path (`dccp.rs`), decapsulated and
//!   passed through the reordering stage; what the stage releases is handed back to the
//!   simulation (`TunnelOutput::released`) to continue on the inner flow's route.
//! - TCP paths (`tcp.rs`): the inner packet is written into the path's byte stream as a record
//!   (inner size + 16 B header); outer segments carry no inner packet. The egress hands each
//!   record to the reordering stage once the path's in-order edge passes its end, with the
//!   global number, path number and timestamp the record's header carries. Records placed in
//!   one scheduling round are pushed together after it. `EgressCounters::arrived` then counts
//!   records completed, one per inner packet, as it counts outer packets on DCCP paths.
//!
//! Timer slots: path i has `3i` (RTO; TCP: RTO, loss probe, persist), `3i + 1` (delayed ACK),
//! `3i + 2` (pacer); `3·paths` is the reordering stage's deadline.

use super::buffer::SchedulerBuffer;
use super::config::{TunnelKind, TunnelSpec};
use super::dccp::{DccpReceiver, DccpSender};
use super::path::{DccpPath, TunnelPath};
use super::tcp::{Record, TcpPath, TUNNEL_HEADER};
use crate::net::{Packet, Proto};
use crate::sched::{AnyScheduler, ConnView};
use crate::transport::bodies::Bodies;
use crate::transport::endpoint::{End, Transmit};
use crate::transport::multipath::{MultipathCore, MultipathPath, PathPrefs, Placement, Shortcut};
use crate::transport::reorder::{Arrival, Release, Reorderer, Reordering};
use crate::transport::segment::{TcpHeader, TCP_HEADER_BYTES};
use mptlab_engine::{Handle, Time};
use std::collections::VecDeque;

/// Timer slots per path (RTO, delayed ACK, pacer).
pub const SLOTS_PER_TUNNEL_PATH: usize = 3;
/// Paths a tunnel may have.
pub const MAX_TUNNEL_PATHS: usize = 8;
/// Timer slots a tunnel may use.
pub const MAX_TUNNEL_SLOTS: usize = SLOTS_PER_TUNNEL_PATH * MAX_TUNNEL_PATHS + 1;

/// What an input to the tunnel gives back to the simulation besides packets.
#[derive(Default)]
pub struct TunnelOutput {
    /// Inner packets leaving the egress, in order of release.
    pub released: Vec<Handle>,
    /// Inner packets the tunnel gave up (late packets the reordering stage drops).
    pub dropped: Vec<Handle>,
}

/// Counters of the egress.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct EgressCounters {
    /// Outer data packets (DCCP) or whole records (TCP) that arrived, per path summed.
    pub arrived: u64,
    pub released: u64,
}

pub struct Tunnel {
    kind: TunnelKind,
    paths: Vec<TunnelPath>,
    core: MultipathCore,
    buffer: SchedulerBuffer,
    next_global: u64,
    overhead: u32,
    /// Bytes a record adds to its inner packet (TCP paths).
    record_header: u32,
    ack_size: u32,
    reorder: Reorderer,
    /// Inner packets held by the reordering stage, by global sequence number from `held_base`.
    held: VecDeque<Option<Handle>>,
    held_base: u64,
    released_scratch: Vec<(u64, Release)>,
    records_scratch: Vec<Record>,
    /// Per path: inner bytes that arrived at the egress (the path's share of the traffic).
    pub path_inner_bytes: Vec<u64>,
    egress: EgressCounters,
    /// Whether the last scheduling attempt found data but no path (for app-limited marking).
    idle_marked: bool,
}

impl Tunnel {
    /// `sched_seed`: the scheduler's random stream (schedulers that draw).
    pub fn new(spec: &TunnelSpec, sched_seed: u64) -> Self {
        let n = spec.paths.len();
        assert!((1..=MAX_TUNNEL_PATHS).contains(&n), "a tunnel has 1 to {MAX_TUNNEL_PATHS} paths");
        let mss = spec.mss();
        let paths: Vec<TunnelPath> = spec
            .paths
            .iter()
            .map(|p| {
                let prefs = PathPrefs { priority: p.priority, backup: p.backup };
                match spec.kind {
                    TunnelKind::Dccp => TunnelPath::Dccp(DccpPath { snd: DccpSender::new(&spec.cc, mss, prefs), rcv: DccpReceiver::new() }),
                    TunnelKind::Tcp => {
                        let cfg = spec.tcp.expect("a TCP tunnel has TCP options");
                        TunnelPath::Tcp(Box::new(TcpPath::new(cfg, &spec.cc, prefs)))
                    }
                }
            })
            .collect();
        let coupled = paths[0].coupled_view().is_some();
        let sched: AnyScheduler = spec.scheduler.build_seeded(sched_seed);
        Self {
            kind: spec.kind,
            paths,
            core: MultipathCore::new(sched, spec.scheduler.picks_only_choice() || n == 1, coupled, n),
            buffer: SchedulerBuffer::new(spec.buffer),
            next_global: 0,
            overhead: spec.overhead,
            record_header: TUNNEL_HEADER,
            ack_size: spec.ack_size,
            reorder: Reorderer::new(&spec.reorder, n),
            held: VecDeque::new(),
            held_base: 0,
            released_scratch: Vec::new(),
            records_scratch: Vec::new(),
            path_inner_bytes: vec![0; n],
            egress: EgressCounters::default(),
            idle_marked: false,
        }
    }

    pub fn paths(&self) -> usize {
        self.paths.len()
    }

    pub fn kind(&self) -> TunnelKind {
        self.kind
    }

    /// Timer slots this tunnel uses.
    pub fn slots(&self) -> usize {
        SLOTS_PER_TUNNEL_PATH * self.paths() + 1
    }

    /// An inner packet (`handle`, `size` wire bytes) reached the ingress; false when the
    /// scheduler buffer dropped it (the caller frees it).
    pub fn on_inner(&mut self, now: Time, handle: Handle, size: u32) -> bool {
        self.buffer.offer(now, handle, size)
    }

    /// The next outer packet to send now, if any: due path acknowledgments first, then the
    /// buffer's head where the scheduler places it. `next` is the handle the packet will get.
    pub fn poll_transmit(&mut self, now: Time, bodies: &mut Bodies, next: Handle) -> Option<Transmit> {
        for (i, path) in self.paths.iter_mut().enumerate() {
            match path {
                TunnelPath::Dccp(d) => {
                    let mut h = TcpHeader::default();
                    if d.rcv.poll_ack(now, &mut h) {
                        let p = Packet { proto: Proto::Udp, size: self.ack_size, sent_at: now, ..Packet::from_tcp(&h, bodies, next) };
                        return Some(Transmit { path: i as u16, from: End::Receiver, packet: p });
                    }
                }
                TunnelPath::Tcp(t) => {
                    // The connection opens with the tunnel's first send.
                    t.start(now);
                    if let Some(h) = t.pop_ack() {
                        return Some(Transmit { path: i as u16, from: End::Receiver, packet: tcp_packet(now, &h, bodies, next) });
                    }
                }
            }
        }
        // Place what the windows admit, then send what the pacers let go.
        let mut written = 0u32;
        while let Some(i) = self.schedule(now) {
            let mut held = self.buffer.take(now).expect("scheduled a head");
            held.global = self.next_global;
            held.placed_at = now;
            self.next_global += 1;
            match &mut self.paths[i] {
                TunnelPath::Dccp(d) => d.snd.assign(held),
                TunnelPath::Tcp(t) => {
                    t.assign(held);
                    written |= 1 << i;
                }
            }
        }
        // TCP: the records of this round leave together, cut into segments.
        if written != 0 {
            for (i, path) in self.paths.iter_mut().enumerate() {
                if let TunnelPath::Tcp(t) = path {
                    if written & (1 << i) != 0 {
                        t.push(now);
                    }
                }
            }
        }
        let (i, held) = self.paths.iter_mut().enumerate().find_map(|(i, path)| match path {
            TunnelPath::Dccp(d) => d.snd.pop_ready(now).map(|h| (i, Ok(h))),
            TunnelPath::Tcp(t) => t.pop_data().map(|h| (i, Err(h))),
        })?;
        let held = match held {
            Ok(held) => held,
            Err(h) => return Some(Transmit { path: i as u16, from: End::Sender, packet: tcp_packet(now, &h, bodies, next) }),
        };
        let TunnelPath::Dccp(d) = &mut self.paths[i] else { unreachable!("a DCCP packet") };
        let global = held.global;
        let size = held.size + self.overhead;
        let path_seq = d.snd.on_send(now, size);
        bodies.encapsulate(next, held.handle);
        let p =
            Packet { proto: Proto::Udp, size, sent_at: held.placed_at, seq: path_seq, len: held.size, dss: global, ..Packet::default() };
        Some(Transmit { path: i as u16, from: End::Sender, packet: p })
    }

    /// The path the buffer's head goes to now, if any has room.
    fn schedule(&mut self, now: Time) -> Option<usize> {
        let Some(head) = self.buffer.head().copied() else {
            if !self.idle_marked {
                self.idle_marked = true;
                for path in &mut self.paths {
                    // A TCP sender marks its own app-limited periods.
                    if let TunnelPath::Dccp(d) = path {
                        d.snd.on_app_limited();
                    }
                }
            }
            return None;
        };
        self.idle_marked = false;
        let record = head.size + self.record_header;
        let placement = match self.core.shortcut(&self.paths, |p| p.window_open(record)) {
            Shortcut::Nowhere => Placement::Nowhere,
            Shortcut::Only(i) => Placement::One(i),
            Shortcut::Ask => {
                let chunk = match self.kind {
                    TunnelKind::Dccp => head.size + self.overhead,
                    TunnelKind::Tcp => record,
                };
                let conn =
                    ConnView { now, unsent: self.buffer.bytes(), window_space: u64::MAX / 2, unacked: 0, send_buffer: u64::MAX / 2, chunk };
                let d = self.core.select(&conn, &self.paths, |p, _| p.view(record));
                let paths = &self.paths;
                MultipathCore::placement(d, paths.len(), |i| paths[i].window_open(record))
            }
        };
        let Some(i) = placement.first() else {
            for path in &mut self.paths {
                // A TCP sender marks its own window-limited periods.
                if let TunnelPath::Dccp(d) = path {
                    if !d.snd.window_open() {
                        d.snd.on_cwnd_limited();
                    }
                }
            }
            return None;
        };
        Some(i)
    }

    /// Packet `p` (handle freed by the caller; `hdr` builds its TCP header, `Packet::tcp_header`,
    /// asked only by the paths that read one: not a DCCP data packet; `inner` the packet it
    /// carried, if any) reached end `at` of path `path`.
    #[allow(clippy::too_many_arguments)]
    pub fn on_packet(
        &mut self,
        now: Time,
        at: End,
        path: usize,
        p: &Packet,
        hdr: impl FnOnce() -> TcpHeader,
        inner: Option<Handle>,
        out: &mut TunnelOutput,
    ) {
        match at {
            End::Sender => {
                if self.core.is_coupled() {
                    self.core.couple(&mut self.paths, path);
                }
                match &mut self.paths[path] {
                    TunnelPath::Dccp(d) => d.snd.on_ack(now, &hdr()),
                    TunnelPath::Tcp(t) => t.on_ack(now, &hdr()),
                }
            }
            End::Receiver => match &mut self.paths[path] {
                TunnelPath::Dccp(d) => {
                    let inner = inner.expect("a tunnel data packet carries an inner packet");
                    d.rcv.on_data(now, p.seq);
                    let a = Arrival { path, seq: p.dss, path_seq: p.seq, sent_at: p.sent_at };
                    self.egress_arrival(now, a, inner, p.len, out);
                }
                TunnelPath::Tcp(t) => {
                    debug_assert!(inner.is_none(), "a TCP tunnel segment carries bytes, not packets");
                    let mut records = std::mem::take(&mut self.records_scratch);
                    t.on_data(now, &hdr(), |r| records.push(r));
                    for r in records.drain(..) {
                        let a = Arrival { path, seq: r.global, path_seq: r.path_seq, sent_at: r.placed_at };
                        self.egress_arrival(now, a, r.handle, r.size, out);
                    }
                    self.records_scratch = records;
                }
            },
        }
    }

    /// Inner packet `inner` (`size` wire bytes) arrived at the egress as `a`: through the
    /// reordering stage.
    fn egress_arrival(&mut self, now: Time, a: Arrival, inner: Handle, size: u32, out: &mut TunnelOutput) {
        self.egress.arrived += 1;
        self.path_inner_bytes[a.path] += size as u64;
        let seq = a.seq;
        let late_dropped = self.reorder.stats().late_dropped;
        let mut rel = std::mem::take(&mut self.released_scratch);
        self.reorder.on_arrival(now, a, &mut rel);
        let arriving_out = self.emit(&rel, Some((seq, inner)), out);
        rel.clear();
        self.released_scratch = rel;
        if !arriving_out {
            if self.reorder.stats().late_dropped > late_dropped {
                out.dropped.push(inner);
            } else {
                self.store_held(seq, inner);
            }
        }
        self.trim_held();
    }

    /// Hand the packets of the numbers the reordering stage released to `out`: the `arriving`
    /// one (number, handle) directly, the others from the held ones. Returns whether the
    /// arriving one was among them.
    fn emit(&mut self, rel: &[(u64, Release)], arriving: Option<(u64, Handle)>, out: &mut TunnelOutput) -> bool {
        let mut arriving_out = false;
        for &(s, _) in rel {
            let h = match arriving {
                Some((seq, h)) if seq == s => {
                    arriving_out = true;
                    h
                }
                _ => self.take_held(s),
            };
            self.egress.released += 1;
            out.released.push(h);
        }
        arriving_out
    }

    /// Keep inner packet `h` (global number `seq`) until the reordering stage releases it.
    fn store_held(&mut self, seq: u64, h: Handle) {
        debug_assert!(seq >= self.held_base, "a held number is never below the given-up ones");
        let i = (seq - self.held_base) as usize;
        if i >= self.held.len() {
            self.held.resize(i + 1, None);
        }
        debug_assert!(self.held[i].is_none(), "global number {seq} held twice");
        self.held[i] = Some(h);
    }

    fn take_held(&mut self, seq: u64) -> Handle {
        seq.checked_sub(self.held_base)
            .and_then(|i| self.held.get_mut(i as usize))
            .and_then(Option::take)
            .expect("the reordering stage releases only packets it holds")
    }

    /// Forget the numbers below the stage's next expected one that hold nothing.
    fn trim_held(&mut self) {
        let next = self.reorder.next_expected();
        while self.held_base < next && self.held.front().is_some_and(Option::is_none) {
            self.held.pop_front();
            self.held_base += 1;
        }
        if self.held.is_empty() {
            self.held_base = self.held_base.max(next);
        }
    }

    /// Timer `slot` expired at `now`.
    pub fn on_timeout(&mut self, now: Time, slot: usize, out: &mut TunnelOutput) {
        let n = self.paths();
        if slot == SLOTS_PER_TUNNEL_PATH * n {
            let mut rel = std::mem::take(&mut self.released_scratch);
            self.reorder.on_timeout(now, &mut rel);
            self.emit(&rel, None, out);
            rel.clear();
            self.released_scratch = rel;
            self.trim_held();
            return;
        }
        let (path, kind) = (slot / SLOTS_PER_TUNNEL_PATH, slot % SLOTS_PER_TUNNEL_PATH);
        if kind == 0 && self.core.is_coupled() {
            self.core.couple(&mut self.paths, path);
        }
        match &mut self.paths[path] {
            // The delayed ACK and the pacer need nothing here: the drain that follows sends
            // what is due.
            TunnelPath::Dccp(d) => {
                if kind == 0 {
                    d.snd.on_timeout(now);
                }
            }
            TunnelPath::Tcp(t) => match kind {
                1 => t.on_receiver_timer(now),
                _ => t.on_sender_timer(now),
            },
        }
    }

    /// Every slot's deadline (None: cancel), for the simulation to align its timers with.
    pub fn deadlines(&self, out: &mut Vec<(usize, Option<Time>)>) {
        for (i, path) in self.paths.iter().enumerate() {
            let base = SLOTS_PER_TUNNEL_PATH * i;
            let (rto, ack, pacer) = match path {
                TunnelPath::Dccp(d) => (d.snd.rto_deadline(), d.rcv.ack_deadline(), d.snd.pacer_deadline()),
                TunnelPath::Tcp(t) => (t.sender_deadline(), t.receiver_deadline(), t.pacer_deadline()),
            };
            out.push((base, rto));
            out.push((base + 1, ack));
            out.push((base + 2, pacer));
        }
        out.push((SLOTS_PER_TUNNEL_PATH * self.paths(), self.reorder.deadline()));
    }

    /// The paths, in the spec's order.
    pub fn tunnel_paths(&self) -> &[TunnelPath] {
        &self.paths
    }

    pub fn buffer(&self) -> &SchedulerBuffer {
        &self.buffer
    }

    pub fn reorderer(&self) -> &Reorderer {
        &self.reorder
    }

    pub fn egress(&self) -> &EgressCounters {
        &self.egress
    }

    /// Inner packets the tunnel holds, at the ingress (scheduler buffer, path send queues, TCP
    /// paths' streams up to the egress) and at the egress (reordering stage); those inside
    /// outer DCCP packets are not counted.
    pub fn packets_held(&self) -> usize {
        self.buffer.len() + self.paths.iter().map(TunnelPath::inner_held).sum::<usize>() + self.held.iter().filter(|h| h.is_some()).count()
    }

    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        self.buffer.memory_footprint()
            + deque(&self.held)
            + slice(&self.records_scratch)
            + self.paths.iter().map(TunnelPath::memory_footprint).sum::<usize>()
    }
}

/// An outer TCP packet carrying segment `h`, sent at `now` with handle `next`.
fn tcp_packet(now: Time, h: &TcpHeader, bodies: &mut Bodies, next: Handle) -> Packet {
    Packet { size: h.len + TCP_HEADER_BYTES, sent_at: now, ..Packet::from_tcp(h, bodies, next) }
}
