//! One direction of a point-to-point link: a queue, a transmitter of fixed rate, a propagation
//! pipe of fixed delay, and a channel loss model.
//!
//! Speed: a link keeps at most one event in the engine's queue for its pipe (the arrival of the
//! head packet) and, for CoDel only, one for its transmitter. Drop-tail needs no transmitter
//! event at all: for a FIFO, work-conserving link the start of transmission of a packet is known
//! when it is enqueued (`max(now, busy_until)`), so the packet goes straight into the pipe with
//! its start and arrival times; packets whose start lies in the future are the queue. The
//! backlog counters catch up lazily (`advance`) whenever the queue is looked at.
//! CoDel decides at dequeue time (RFC 8289), so a CoDel link dequeues on a transmitter event.

use super::codel::{CoDel, Queued};
use super::loss::LossModel;
use super::packet::Proto;
use crate::metrics::{IntervalBins, QueueStats};
use crate::spec::{LinkSpec, QueueLimit, QueueSpec};
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
}

enum Discipline {
    DropTail,
    CoDel(CoDel),
}

/// Packet and byte counters of one link direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    /// Packets offered to the link (accepted + queue drops).
    pub offered: u64,
    /// Packets that started transmission (includes channel losses).
    pub transmitted: u64,
    pub transmitted_bytes: u64,
    pub queue_drops: u64,
    pub channel_drops: u64,
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
}

/// What happened to an offered packet and which events the caller must schedule.
#[derive(Clone, Copy, Debug, Default)]
pub struct Enqueued {
    /// The queue was full and the packet was dropped: the caller frees it.
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
        self.pipe.push_back(InPipe { handle, size, tx_start, arrival: tx_end + self.delay, lost });
        tx_end
    }

    /// Offer a packet to the link at `now`.
    #[inline]
    pub fn enqueue(&mut self, now: Time, handle: Handle, size: u32, proto: Proto) -> Enqueued {
        self.counters.offered += 1;
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
        if head.lost {
            self.counters.channel_drops += 1;
        } else {
            self.counters.delivered += 1;
        }
        Some(Arrival { handle: head.handle, lost: head.lost, next_wake: self.pipe.front().map(|p| p.arrival) })
    }
}
