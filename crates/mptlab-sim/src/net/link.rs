//! One direction of a point-to-point link: a queue, a transmitter, a propagation pipe of fixed
//! delay, and a channel loss model. The rate may change during a run (`set_rate`: scenario rate
//! events, capacity models) and the link may go down and up (`set_up`).
//!
//! Speed: a link keeps at most one event in the engine's queue for its pipe (the arrival of the
//! head packet) and, for CoDel only, one for its transmitter. Drop-tail needs no transmitter
//! event at all: for a FIFO, work-conserving link the start of transmission of a packet is known
//! when it is enqueued (`max(now, busy_until)`), so the packet goes straight into the pipe with
//! its start and arrival times; packets whose start lies in the future are the queue. The
//! backlog counters catch up lazily (`advance`) whenever the queue is looked at.
//! CoDel decides at dequeue time (RFC 8289), so a CoDel link dequeues on a transmitter event.
//!
//! Rate changes (`set_rate`): a packet is serialised at the rate in force when its transmission
//! is scheduled. On a drop-tail link that is when it is enqueued, so packets already waiting
//! when the rate changes keep the start and arrival times they were given (at the old rate);
//! only packets enqueued afterwards are serialised at the new rate. The new rate therefore
//! takes full effect after the backlog present at the change has drained (at most one queueing
//! delay later). A CoDel link schedules each packet when it dequeues it, so there every packet
//! not yet dequeued is sent at the new rate.
//!
//! Link down (`set_up(false)`), after what Linux does on carrier loss (the qdisc is reset,
//! `dev_deactivate` → `qdisc_reset`): every packet inside the link whose arrival at the far end
//! is after `now` is lost — queued, being transmitted or propagating — and so is every packet
//! offered while the link is down. Packets lost inside the link stay in the pipe, marked lost
//! and due `now`, and leave through `pop_arrival` as `Arrival { lost: true }` like channel
//! losses, so the caller frees them on its usual path; they are counted in `down_drops`, as
//! are packets refused while down. Transmissions cut short are taken back: packets that had not
//! started transmitting no longer count as transmitted, and wire bytes of transmissions that
//! had not ended are removed from the throughput bins. The transmitter is free again at once
//! (drop-tail), or once the packet it was sending would have ended (CoDel: its pending
//! transmitter event then finds an empty queue, so the link never holds two such events), and
//! a CoDel queue restarts from its initial state. Queue statistics: the queue length drops to
//! zero; packets of a CoDel queue count as queue-statistics drops; a drop-tail link recorded
//! the queueing delay of its waiting packets when it enqueued them, and those samples stay.
//!
//! Arrival events made stale by a link going down (the old head's) are harmless: a pipe event
//! only pops a packet that has arrived by then, and the head of the pipe always has an event
//! of its own at its arrival time.

use super::capacity::CapacityProcess;
use super::codel::{CoDel, Queued};
use super::config::{LinkSpec, QueueLimit, QueueSpec};
use super::loss::LossModel;
use super::packet::Proto;
use crate::metrics::{IntervalBins, QueueStats};
use mptlab_engine::time::serialization_time;
use mptlab_engine::{Handle, RngStream, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy)]
struct InPipe {
    handle: Handle,
    size: u32,
    tx_start: Time,
    arrival: Time,
    /// Lost on the channel: still occupies the queue and the transmitter, never delivered.
    lost: bool,
    /// Lost because the link went down (then `lost` is set too).
    down: bool,
}

enum Discipline {
    DropTail,
    CoDel(CoDel),
}

/// Packet and byte counters of one link direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    /// Packets offered to the link (accepted + queue drops + packets refused while down).
    pub offered: u64,
    /// Packets that started transmission (includes channel losses).
    pub transmitted: u64,
    pub transmitted_bytes: u64,
    pub queue_drops: u64,
    pub channel_drops: u64,
    /// Packets lost because the link was down: offered while down, or inside the link (queued,
    /// being transmitted or propagating) when it went down.
    pub down_drops: u64,
    pub delivered: u64,
}

/// Would one more packet of `size` bytes exceed the queue limit?
#[inline]
fn over_limit(limit: QueueLimit, pkts: u64, bytes: u64, size: u32) -> bool {
    match limit {
        QueueLimit::Packets(n) => pkts + 1 > n,
        QueueLimit::Bytes(b) => bytes + size as u64 > b,
    }
}

/// A packet leaving the far end of the pipe.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub handle: Handle,
    pub lost: bool,
    pub next_wake: Option<Time>,
    /// The packet that arrives next (at `next_wake`), for prefetching.
    pub next: Option<Handle>,
}

/// What happened to an offered packet and which events the caller must schedule.
#[derive(Clone, Copy, Debug, Default)]
pub struct Enqueued {
    /// The queue was full (or the link is down) and the packet was dropped: the caller frees it.
    pub dropped: bool,
    /// Schedule the pipe's arrival event at this time.
    pub arrival_wake: Option<Time>,
    /// Schedule the transmitter event (CoDel) at this time.
    pub tx_wake: Option<Time>,
}

pub struct Link {
    pub rate_bps: u64,
    pub delay: Time,
    limit: QueueLimit,
    discipline: Discipline,
    loss: LossModel,
    rng: RngStream,
    busy_until: Time,
    pipe: VecDeque<InPipe>,
    // Drop-tail backlog bookkeeping: pipe entries [0, waiting_from) have started transmission.
    waiting_from: usize,
    waiting_pkts: u64,
    waiting_bytes: u64,
    pub counters: LinkCounters,
    pub stats: QueueStats,
    /// Wire bytes per interval, per protocol (index `Proto::index`), counted when transmission
    /// ends.
    pub wire: [IntervalBins; 2],
    scratch: Vec<Queued>,
    /// Serialisation times of the two most recent packet sizes (data and ACK sizes repeat), so
    /// the 128-bit division runs only when a new size appears.
    tx_cache: [(u32, Time); 2],
    /// The queue as configured, to restart a CoDel queue when the link goes down.
    queue_spec: QueueSpec,
    up: bool,
    /// Integral of the capacity (rate while up, 0 while down) over [0, rate_since], in
    /// bit/s · ns, for the time-average rate.
    rate_area: u128,
    rate_since: Time,
    /// The capacity model driving the rate, if any, and its next change not yet applied.
    capacity: Option<CapacityProcess>,
    capacity_next: Option<(Time, u64)>,
}

impl Link {
    pub fn new(spec: &LinkSpec, rng: RngStream, interval: Time, duration: Time) -> Self {
        let (limit, discipline) = match spec.queue {
            QueueSpec::DropTail { limit } => (limit, Discipline::DropTail),
            QueueSpec::CoDel { limit, target, interval } => (limit, Discipline::CoDel(CoDel::new(target, interval))),
        };
        Self {
            rate_bps: spec.rate_bps,
            delay: spec.delay,
            limit,
            discipline,
            loss: LossModel::new(spec.loss),
            rng,
            busy_until: 0,
            pipe: VecDeque::with_capacity(1024),
            waiting_from: 0,
            waiting_pkts: 0,
            waiting_bytes: 0,
            counters: LinkCounters::default(),
            stats: QueueStats::new(),
            wire: [IntervalBins::new(interval, duration), IntervalBins::new(interval, duration)],
            scratch: Vec::new(),
            tx_cache: [(0, 0); 2],
            queue_spec: spec.queue.clone(),
            up: true,
            rate_area: 0,
            rate_since: 0,
            capacity: None,
            capacity_next: None,
        }
    }

    /// Packets waiting for the transmitter at `now`.
    pub fn backlog(&mut self, now: Time) -> (u64, u64) {
        match &self.discipline {
            Discipline::DropTail => {
                self.advance(now);
                (self.waiting_pkts, self.waiting_bytes)
            }
            Discipline::CoDel(c) => (c.len() as u64, c.bytes()),
        }
    }

    /// Packets inside the link (queued, being transmitted or propagating).
    pub fn packets_inside(&self) -> usize {
        self.pipe.len()
            + match &self.discipline {
                Discipline::DropTail => 0,
                Discipline::CoDel(c) => c.len(),
            }
    }

    // Drop-tail: account for packets whose transmission has started by `now`.
    #[inline]
    fn advance(&mut self, now: Time) {
        while let Some(p) = self.pipe.get(self.waiting_from) {
            if p.tx_start > now {
                break;
            }
            self.waiting_from += 1;
            self.waiting_pkts -= 1;
            self.waiting_bytes -= p.size as u64;
            self.stats.sample_len(p.tx_start, self.waiting_pkts, self.waiting_bytes);
        }
    }

    #[inline]
    fn serialization(&mut self, size: u32) -> Time {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            self.tx_cache.swap(0, 1);
            return self.tx_cache[0].1;
        }
        let t = serialization_time(size as u64, self.rate_bps);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, t);
        t
    }

    /// Put the packet on the wire starting at `tx_start`; returns when its transmission ends.
    /// The channel's loss decision is drawn now and applied when the packet would arrive.
    #[inline]
    fn transmit(&mut self, handle: Handle, size: u32, proto: Proto, tx_start: Time) -> Time {
        let tx_end = tx_start + self.serialization(size);
        self.busy_until = tx_end;
        self.counters.transmitted += 1;
        self.counters.transmitted_bytes += size as u64;
        self.wire[proto.index()].add(tx_end, size as u64);
        let lost = !self.loss.is_lossless() && self.loss.lose(&mut self.rng);
        self.pipe.push_back(InPipe { handle, size, tx_start, arrival: tx_end + self.delay, lost, down: false });
        tx_end
    }

    /// Offer a packet to the link at `now`.
    #[inline]
    pub fn enqueue(&mut self, now: Time, handle: Handle, size: u32, proto: Proto) -> Enqueued {
        self.counters.offered += 1;
        if !self.up {
            self.counters.down_drops += 1;
            return Enqueued { dropped: true, ..Enqueued::default() };
        }
        let pipe_was_empty = self.pipe.is_empty();
        let mut out = Enqueued::default();
        match &mut self.discipline {
            Discipline::DropTail => {
                self.advance(now);
                if over_limit(self.limit, self.waiting_pkts, self.waiting_bytes, size) {
                    self.counters.queue_drops += 1;
                    self.stats.on_drop(size as u64);
                    out.dropped = true;
                    return out;
                }
                let tx_start = now.max(self.busy_until);
                self.stats.on_enqueue(size as u64);
                self.stats.on_dequeue(tx_start, tx_start - now, size as u64);
                self.transmit(handle, size, proto, tx_start);
                if tx_start > now {
                    self.waiting_pkts += 1;
                    self.waiting_bytes += size as u64;
                    self.stats.sample_len(now, self.waiting_pkts, self.waiting_bytes);
                } else {
                    // The transmitter was idle, so everything before this packet has started.
                    self.waiting_from = self.pipe.len();
                }
            }
            Discipline::CoDel(c) => {
                if over_limit(self.limit, c.len() as u64, c.bytes(), size) {
                    self.counters.queue_drops += 1;
                    self.stats.on_drop(size as u64);
                    out.dropped = true;
                    return out;
                }
                self.stats.on_enqueue(size as u64);
                c.push(Queued { handle, enqueued_at: now, size });
                self.stats.sample_len(now, c.len() as u64, c.bytes());
                if self.busy_until <= now && c.len() == 1 {
                    // Idle transmitter: this packet starts at once; the tx event dequeues the rest.
                    out.tx_wake = Some(now);
                }
            }
        }
        if pipe_was_empty {
            out.arrival_wake = self.pipe.front().map(|p| p.arrival);
        }
        out
    }

    /// CoDel transmitter event: dequeue (dropping as CoDel decides) and start the next packet.
    /// Dropped packets are appended to `dropped` for the caller to free.
    pub fn on_tx_event(&mut self, now: Time, dropped: &mut Vec<(Handle, u32)>, proto_of: impl Fn(Handle) -> Proto) -> Enqueued {
        let mut out = Enqueued::default();
        if self.busy_until > now {
            out.tx_wake = Some(self.busy_until);
            return out;
        }
        let Discipline::CoDel(c) = &mut self.discipline else { return out };
        self.scratch.clear();
        let next = c.dequeue(now, &mut self.scratch);
        let (len, bytes) = (c.len() as u64, c.bytes());
        for q in &self.scratch {
            self.counters.queue_drops += 1;
            self.stats.on_drop(q.size as u64);
            dropped.push((q.handle, q.size));
        }
        self.stats.sample_len(now, len, bytes);
        let pipe_was_empty = self.pipe.is_empty();
        if let Some(q) = next {
            self.stats.on_dequeue(now, now - q.enqueued_at, q.size as u64);
            out.tx_wake = Some(self.transmit(q.handle, q.size, proto_of(q.handle), now));
        }
        if pipe_was_empty {
            out.arrival_wake = self.pipe.front().map(|p| p.arrival);
        }
        out
    }

    /// Pop the head of the pipe if it has arrived by `now`. Returns the packet, whether the
    /// channel lost it (the caller frees it), and the time of the next arrival event, if any.
    #[inline]
    pub fn pop_arrival(&mut self, now: Time) -> Option<Arrival> {
        let head = *self.pipe.front()?;
        if head.arrival > now {
            return None;
        }
        if matches!(self.discipline, Discipline::DropTail) {
            self.advance(now);
        }
        self.pipe.pop_front();
        self.waiting_from = self.waiting_from.saturating_sub(1);
        if head.down {
            self.counters.down_drops += 1;
        } else if head.lost {
            self.counters.channel_drops += 1;
        } else {
            self.counters.delivered += 1;
        }
        let next = self.pipe.front();
        Some(Arrival { handle: head.handle, lost: head.lost, next_wake: next.map(|p| p.arrival), next: next.map(|p| p.handle) })
    }

    // ----- rate changes, down/up, capacity models --------------------------------------

    pub fn is_up(&self) -> bool {
        self.up
    }

    /// The capacity in force: the rate while up, 0 while down.
    fn capacity_now(&self) -> u64 {
        if self.up {
            self.rate_bps
        } else {
            0
        }
    }

    fn account_rate(&mut self, now: Time) {
        let now = now.max(self.rate_since);
        self.rate_area += self.capacity_now() as u128 * (now - self.rate_since) as u128;
        self.rate_since = now;
    }

    /// Time-average capacity over [0, end] in bit/s, counting the time the link was down as 0.
    pub fn mean_rate_bps(&self, end: Time) -> f64 {
        if end == 0 {
            return self.capacity_now() as f64;
        }
        let tail = end.saturating_sub(self.rate_since) as u128 * self.capacity_now() as u128;
        (self.rate_area + tail) as f64 / end as f64
    }

    /// Change the transmission rate at `now` (> 0; 0 is taken as 1 bit/s). Packets already
    /// given a transmission start keep it; see the module documentation.
    pub fn set_rate(&mut self, now: Time, rate_bps: u64) {
        self.account_rate(now);
        self.rate_bps = rate_bps.max(1);
        self.tx_cache = [(0, 0); 2];
    }

    /// Take the link down (`up = false`) or bring it back up at `now`; no-op if it already is.
    /// Going down loses every packet inside the link that has not arrived by `now` (see the
    /// module documentation): they stay in the pipe marked lost and due `now`, and when any
    /// exist the caller must schedule the pipe's arrival event at the returned time, so that
    /// they leave through `pop_arrival` as `Arrival { lost: true }`. `proto_of` gives a
    /// packet's protocol (to take back the wire bytes of a transmission cut short).
    pub fn set_up(&mut self, now: Time, up: bool, proto_of: impl Fn(Handle) -> Proto) -> Option<Time> {
        if up == self.up {
            return None;
        }
        self.account_rate(now);
        self.up = up;
        if up {
            return None;
        }
        if matches!(self.discipline, Discipline::DropTail) {
            self.advance(now);
        }
        let mut lost_any = false;
        // The pipe is in arrival order: the packets due after `now` are its tail.
        for p in self.pipe.iter_mut().rev() {
            if p.arrival <= now {
                break;
            }
            let tx_end = p.arrival - self.delay;
            if tx_end > now {
                // Its transmission does not end: take back its wire bytes, and if it had not
                // even started, its transmission.
                self.wire[proto_of(p.handle).index()].remove(tx_end, p.size as u64);
                if p.tx_start > now {
                    self.counters.transmitted -= 1;
                    self.counters.transmitted_bytes -= p.size as u64;
                }
            }
            p.lost = true;
            p.down = true;
            p.arrival = now;
            lost_any = true;
        }
        match &mut self.discipline {
            Discipline::DropTail => {
                self.waiting_from = self.pipe.len();
                self.waiting_pkts = 0;
                self.waiting_bytes = 0;
                self.busy_until = self.busy_until.min(now);
            }
            Discipline::CoDel(c) => {
                // Restart CoDel (Linux `codel_reset`) and lose what it held.
                let QueueSpec::CoDel { target, interval, .. } = self.queue_spec else {
                    unreachable!("a CoDel discipline comes from a CoDel queue spec")
                };
                let mut old = std::mem::replace(c, CoDel::new(target, interval));
                while !old.is_empty() {
                    self.scratch.clear();
                    let next = old.dequeue(now, &mut self.scratch);
                    for q in self.scratch.iter().chain(next.as_ref()) {
                        self.stats.on_drop(q.size as u64);
                        self.pipe.push_back(InPipe { handle: q.handle, size: q.size, tx_start: now, arrival: now, lost: true, down: true });
                        lost_any = true;
                    }
                }
            }
        }
        self.stats.sample_len(now, 0, 0);
        lost_any.then_some(now)
    }

    /// Let a capacity model drive the rate, from time 0: applies its changes due at 0 and
    /// returns the time of the next one (call `on_capacity_step` then).
    pub fn attach_capacity(&mut self, mut process: CapacityProcess) -> Option<Time> {
        let mut next = process.next();
        while let Some((0, rate)) = next {
            self.set_rate(0, rate);
            next = process.next();
        }
        self.capacity = Some(process);
        self.capacity_next = next;
        next.map(|(t, _)| t)
    }

    /// Apply the capacity model's change due at `now`; returns the time of the next one.
    pub fn on_capacity_step(&mut self, now: Time) -> Option<Time> {
        let (t, rate) = self.capacity_next?;
        if t > now {
            debug_assert!(false, "capacity step at {now} before its change at {t}");
            return None;
        }
        self.set_rate(now, rate);
        self.capacity_next = self.capacity.as_mut().and_then(Iterator::next);
        self.capacity_next.map(|(t, _)| t)
    }
}
