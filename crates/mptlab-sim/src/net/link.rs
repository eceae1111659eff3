//! One direction of a point-to-point link, assembled from parts: a queue discipline
//! (`queue::Qdisc`: drop-tail, CoDel or RED, with its hard limit), a transmitter
//! (`Transmitter`), a propagation pipe of fixed delay (`Pipe`), a channel loss model
//! (`LossModel`) and the capacity bookkeeping (`RateMeter`, `CapacityProcess`); the link adds
//! the counters and the queue and wire metrics. The rate may change during a run (`set_rate`: scenario rate
//! events, capacity models) and the link may go down and up (`set_up`).
//!
//! Speed: a link keeps at most one event in the engine's queue for its pipe (the arrival of the
//! head packet) and, for CoDel only, one for its transmitter. Drop-tail and RED need no
//! transmitter event at all: they decide on arrival, and for a FIFO, work-conserving link the
//! start of transmission of a packet is known when it is enqueued (`max(now, busy_until)`), so
//! the packet goes straight into the pipe with its start and arrival times; packets whose start
//! lies in the future are the queue. The backlog counters catch up lazily (`Pipe::advance`)
//! whenever the queue is looked at. CoDel decides at dequeue time (RFC 8289), so a CoDel link
//! holds its packets in a `Fifo` and dequeues on a transmitter event.
//!
//! RED's random stream: a RED link seeds its queue's stream from the first draw of the link's
//! stream (other links draw nothing extra, so their loss sequences are unchanged).
//!
//! Rate changes (`set_rate`): a packet is serialised at the rate in force when its transmission
//! is scheduled. On a drop-tail or RED link that is when it is enqueued, so packets already
//! waiting when the rate changes keep the start and arrival times they were given (at the old rate);
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
//! (drop-tail, RED), or once the packet it was sending would have ended (CoDel: its pending
//! transmitter event then finds an empty queue, so the link never holds two such events), and
//! the queue discipline restarts from its initial state (CoDel, RED). Queue statistics: the
//! queue length drops to zero; packets of a CoDel queue count as queue-statistics drops; a
//! drop-tail or RED link recorded the queueing delay of its waiting packets when it enqueued
//! them, and those samples stay.
//!
//! Arrival events made stale by a link going down (the old head's) are harmless: a pipe event
//! only pops a packet that has arrived by then, and the head of the pipe always has an event
//! of its own at its arrival time.

use super::capacity::CapacityProcess;
use super::config::{LinkSpec, QueueLimit, QueueSpec};
use super::loss::LossModel;
use super::packet::Proto;
use super::pipe::Pipe;
use super::queue::{over_limit, Fifo, Qdisc, Queued};
use super::rate_meter::RateMeter;
use super::transmitter::Transmitter;
use crate::metrics::{GroupCounts, LinkGroups, QueueStats, WireMeter};
use mptlab_engine::{Handle, RngStream, StreamId, Time};
use std::borrow::Cow;

/// Stream kind of a RED queue's random stream (seeded from the link's stream).
const STREAM_RED: u64 = 0x0072_6564; // "red"

/// Packet and byte counters of one link direction.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    /// Packets offered to the link (accepted + queue drops + packets refused while down).
    pub offered: u64,
    /// Packets that started transmission (includes channel losses).
    pub transmitted: u64,
    pub transmitted_bytes: u64,
    pub queue_drops: u64,
    /// The queue drops the discipline chose before the hard limit (RED's early drops, CoDel's
    /// dequeue drops).
    pub aqm_drops: u64,
    pub channel_drops: u64,
    /// Packets lost because the link was down: offered while down, or inside the link (queued,
    /// being transmitted or propagating) when it went down.
    pub down_drops: u64,
    pub delivered: u64,
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

/// `repr(C)`, in the order a packet touches the fields (enqueue, transmission, arrival), so
/// that its work spans a few adjacent cache lines: in W5's 24,000 access-link directions every
/// line is a miss, and the compiler's own order had put `groups` 1.4 KB after the first field.
#[repr(C)]
pub struct Link {
    up: bool,
    pub delay: Time,
    tx: Transmitter,
    limit: QueueLimit,
    /// Per-group counters and wire bins (detailed links of a run with two or more flow groups
    /// only; with one, `group_view` derives them from the link's totals).
    pub groups: Option<Box<LinkGroups>>,
    /// A detailed link of a run with exactly one flow group (and so no tunnel, which is a group
    /// of its own): every packet is that group's, so its counts are the link's totals and no
    /// packet pays for counting them twice.
    one_group: bool,
    pipe: Pipe,
    pub counters: LinkCounters,
    loss: LossModel,
    qdisc: Qdisc,
    pub stats: QueueStats,
    /// Wire bytes per interval, per protocol (index `Proto::index`) and in total, counted when
    /// transmission ends: a kept series on a detailed link, streamed statistics otherwise.
    pub wire: WireMeter,
    rng: RngStream,
    /// Packets of a discipline that decides at dequeue (CoDel); the others' wait in the pipe.
    fifo: Fifo,
    scratch: Vec<Queued>,
    rate_meter: RateMeter,
    /// The capacity model driving the rate, if any, and its next change not yet applied.
    capacity: Option<CapacityProcess>,
    capacity_next: Option<(Time, u64)>,
}

impl Link {
    /// `detailed`: keep the wire-throughput series (else stream its statistics) and the counts
    /// of each of the run's `groups` flow groups (packets carry their group index; see
    /// `group_view`).
    pub fn new(spec: &LinkSpec, mut rng: RngStream, interval: Time, duration: Time, detailed: bool, groups: usize) -> Self {
        let qdisc_rng = match spec.queue {
            QueueSpec::Red { .. } => RngStream::new(rng.next_u64(), StreamId::new(STREAM_RED, 0)),
            _ => RngStream::new(0, StreamId::new(STREAM_RED, 0)),
        };
        let (qdisc, limit) = Qdisc::new(&spec.queue, qdisc_rng);
        // Only a discipline deciding at dequeue keeps packets in the link's own FIFO.
        let fifo = if qdisc.decides_on_arrival() { Fifo::with_capacity(0) } else { Fifo::new() };
        Self {
            delay: spec.delay,
            limit,
            qdisc,
            fifo,
            tx: Transmitter::new(spec.rate_bps),
            pipe: Pipe::new(),
            loss: LossModel::new(spec.loss),
            rng,
            counters: LinkCounters::default(),
            stats: if detailed { QueueStats::new() } else { QueueStats::without_histogram() },
            wire: if detailed { WireMeter::series(interval, duration) } else { WireMeter::streaming(interval, duration) },
            groups: (detailed && groups > 1).then(|| Box::new(LinkGroups::new(groups, interval, duration))),
            one_group: detailed && groups == 1,
            scratch: Vec::new(),
            up: true,
            rate_meter: RateMeter::default(),
            capacity: None,
            capacity_next: None,
        }
    }

    /// Per-group counters and wire bins, on a detailed link: counted per packet when the run
    /// has several flow groups, else the link's own totals, which are then the one group's
    /// (the same numbers: `LinkGroups` counts by the link's rules).
    pub fn group_view(&self) -> Option<Cow<'_, LinkGroups>> {
        if let Some(g) = &self.groups {
            return Some(Cow::Borrowed(g));
        }
        if !self.one_group {
            return None;
        }
        let c = &self.counters;
        let drops = c.queue_drops + c.channel_drops + c.down_drops;
        let counts = GroupCounts { offered: c.offered, packets: c.transmitted, bytes: c.transmitted_bytes, drops };
        Some(Cow::Owned(LinkGroups::single(counts, self.wire.total_bins()?)))
    }

    /// The transmission rate in force.
    #[inline]
    pub fn rate_bps(&self) -> u64 {
        self.tx.rate_bps()
    }

    /// Packets waiting for the transmitter at `now`.
    pub fn backlog(&mut self, now: Time) -> (u64, u64) {
        if self.qdisc.decides_on_arrival() {
            self.pipe.advance(now, &mut self.stats);
            self.pipe.waiting()
        } else {
            (self.fifo.len() as u64, self.fifo.bytes())
        }
    }

    /// Packets inside the link (queued, being transmitted or propagating).
    pub fn packets_inside(&self) -> usize {
        self.pipe.len() + self.fifo.len()
    }

    /// Put the packet on the wire starting at `tx_start`; returns when its transmission ends.
    /// The channel's loss decision is drawn now and applied when the packet would arrive.
    #[inline]
    fn transmit(&mut self, now: Time, handle: Handle, size: u32, proto: Proto, group: u16, tx_start: Time) -> Time {
        let tx_end = self.tx.send(tx_start, size);
        self.counters.transmitted += 1;
        self.counters.transmitted_bytes += size as u64;
        self.wire.add(now, tx_end, proto.index(), size as u64);
        if let Some(g) = &mut self.groups {
            g.on_transmit(group, tx_end, size as u64);
        }
        let lost = !self.loss.is_lossless() && self.loss.lose(&mut self.rng);
        self.pipe.push(handle, size, tx_start, tx_end + self.delay, lost, false);
        tx_end
    }

    #[inline]
    fn drop_on_arrival(&mut self, size: u32, group: u16, aqm: bool) -> Enqueued {
        if let Some(g) = &mut self.groups {
            g.on_drop(group);
        }
        self.counters.queue_drops += 1;
        self.counters.aqm_drops += aqm as u64;
        self.stats.on_drop(size as u64);
        Enqueued { dropped: true, ..Enqueued::default() }
    }

    /// Offer a packet of flow group `group` to the link at `now`.
    #[inline(always)]
    pub fn enqueue(&mut self, now: Time, handle: Handle, size: u32, proto: Proto, group: u16) -> Enqueued {
        self.counters.offered += 1;
        if let Some(g) = &mut self.groups {
            g.on_offer(group);
        }
        if !self.up {
            if let Some(g) = &mut self.groups {
                g.on_drop(group);
            }
            self.counters.down_drops += 1;
            return Enqueued { dropped: true, ..Enqueued::default() };
        }
        let pipe_was_empty = self.pipe.is_empty();
        let mut out = Enqueued::default();
        if self.qdisc.decides_on_arrival() {
            self.pipe.advance(now, &mut self.stats);
            let (pkts, bytes) = self.pipe.waiting();
            if let Qdisc::Red(red) = &mut self.qdisc {
                let idle_since = (pkts == 0 && self.tx.busy_until() <= now).then_some(self.tx.busy_until());
                if red.drops_arrival(now, pkts, bytes, idle_since, self.tx.rate_bps()) {
                    return self.drop_on_arrival(size, group, true);
                }
            }
            if over_limit(self.limit, pkts, bytes, size) {
                return self.drop_on_arrival(size, group, false);
            }
            let tx_start = self.tx.next_start(now);
            self.stats.on_enqueue(size as u64);
            self.stats.on_dequeue(tx_start, tx_start - now, size as u64);
            self.transmit(now, handle, size, proto, group, tx_start);
            if tx_start > now {
                self.pipe.mark_last_waiting(size);
                let (pkts, bytes) = self.pipe.waiting();
                self.stats.sample_len(now, pkts, bytes);
            } else {
                // The transmitter was idle, so everything before this packet has started.
                self.pipe.mark_all_started();
            }
        } else {
            if over_limit(self.limit, self.fifo.len() as u64, self.fifo.bytes(), size) {
                return self.drop_on_arrival(size, group, false);
            }
            self.stats.on_enqueue(size as u64);
            self.fifo.push(Queued { handle, enqueued_at: now, size });
            self.stats.sample_len(now, self.fifo.len() as u64, self.fifo.bytes());
            if self.tx.busy_until() <= now && self.fifo.len() == 1 {
                // Idle transmitter: this packet starts at once; the tx event dequeues the rest.
                out.tx_wake = Some(now);
            }
        }
        if pipe_was_empty {
            out.arrival_wake = self.pipe.front().map(|p| p.arrival);
        }
        out
    }

    /// When the packet `enqueue` has just accepted comes out of the far end, and whether the
    /// channel loses it. Only for a discipline that decides on arrival (drop-tail, RED), which
    /// schedules the packet when it takes it: a parallel run hands the packet to the next
    /// partition then, ahead of its arrival (`crate::partition`).
    pub fn last_accepted(&self) -> (Time, bool) {
        debug_assert!(self.qdisc.decides_on_arrival(), "a CoDel link does not know its packets' arrivals on enqueue");
        let p = self.pipe.back().expect("a packet was just accepted");
        (p.arrival, p.lost)
    }

    /// Transmitter event of a discipline that decides at dequeue (CoDel): dequeue (dropping as
    /// the discipline decides) and start the next packet. Dropped packets are appended to
    /// `dropped` for the caller to free. `class_of` gives a packet's protocol and flow group.
    pub fn on_tx_event(&mut self, now: Time, dropped: &mut Vec<(Handle, u32)>, class_of: impl Fn(Handle) -> (Proto, u16)) -> Enqueued {
        let mut out = Enqueued::default();
        if self.tx.busy_until() > now {
            out.tx_wake = Some(self.tx.busy_until());
            return out;
        }
        if self.qdisc.decides_on_arrival() {
            return out;
        }
        self.scratch.clear();
        let next = self.qdisc.dequeue(now, &mut self.fifo, &mut self.scratch);
        for q in &self.scratch {
            self.counters.queue_drops += 1;
            self.counters.aqm_drops += 1;
            self.stats.on_drop(q.size as u64);
            if let Some(g) = &mut self.groups {
                g.on_drop(class_of(q.handle).1);
            }
            dropped.push((q.handle, q.size));
        }
        self.stats.sample_len(now, self.fifo.len() as u64, self.fifo.bytes());
        let pipe_was_empty = self.pipe.is_empty();
        if let Some(q) = next {
            self.stats.on_dequeue(now, now - q.enqueued_at, q.size as u64);
            let (proto, group) = class_of(q.handle);
            out.tx_wake = Some(self.transmit(now, q.handle, q.size, proto, group, now));
        }
        if pipe_was_empty {
            out.arrival_wake = self.pipe.front().map(|p| p.arrival);
        }
        out
    }

    /// Pop the head of the pipe if it has arrived by `now`. Returns the packet, whether the
    /// channel lost it (the caller frees it), and the time of the next arrival event, if any.
    /// `group_of` gives a lost packet's flow group (asked only on a link counting per group).
    #[inline]
    pub fn pop_arrival(&mut self, now: Time, group_of: impl Fn(Handle) -> u16) -> Option<Arrival> {
        if self.pipe.front()?.arrival > now {
            return None;
        }
        if self.qdisc.decides_on_arrival() {
            self.pipe.advance(now, &mut self.stats);
        }
        let head = self.pipe.pop_front()?;
        if head.lost {
            if let Some(g) = &mut self.groups {
                g.on_drop(group_of(head.handle));
            }
        }
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
            self.tx.rate_bps()
        } else {
            0
        }
    }

    /// Time-average capacity over [0, end] in bit/s, counting the time the link was down as 0.
    pub fn mean_rate_bps(&self, end: Time) -> f64 {
        self.rate_meter.mean_bps(end, self.capacity_now())
    }

    /// Change the transmission rate at `now` (> 0; 0 is taken as 1 bit/s). Packets already
    /// given a transmission start keep it; see the module documentation.
    pub fn set_rate(&mut self, now: Time, rate_bps: u64) {
        self.rate_meter.account(now, self.capacity_now());
        self.tx.set_rate(rate_bps.max(1));
    }

    /// Take the link down (`up = false`) or bring it back up at `now`; no-op if it already is.
    /// Going down loses every packet inside the link that has not arrived by `now` (see the
    /// module documentation): they stay in the pipe marked lost and due `now`, and when any
    /// exist the caller must schedule the pipe's arrival event at the returned time, so that
    /// they leave through `pop_arrival` as `Arrival { lost: true }`. `class_of` gives a
    /// packet's protocol and flow group (to take back the wire bytes of a transmission cut
    /// short).
    pub fn set_up(&mut self, now: Time, up: bool, class_of: impl Fn(Handle) -> (Proto, u16)) -> Option<Time> {
        if up == self.up {
            return None;
        }
        self.rate_meter.account(now, self.capacity_now());
        self.up = up;
        if up {
            return None;
        }
        let on_arrival = self.qdisc.decides_on_arrival();
        if on_arrival {
            self.pipe.advance(now, &mut self.stats);
        }
        let mut lost_any = false;
        // The pipe is in arrival order: the packets due after `now` are its tail.
        for p in self.pipe.iter_mut_rev() {
            if p.arrival <= now {
                break;
            }
            let tx_end = p.arrival - self.delay;
            if tx_end > now {
                // Its transmission does not end: take back its wire bytes, and if it had not
                // even started, its transmission.
                let (proto, group) = class_of(p.handle);
                self.wire.remove(tx_end, proto.index(), p.size as u64);
                if let Some(g) = &mut self.groups {
                    g.on_cut(group, tx_end, p.size as u64, p.tx_start <= now);
                }
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
        if on_arrival {
            self.pipe.clear_waiting();
            self.tx.abort(now);
        } else {
            // Lose what the queue held, in FIFO order.
            while let Some(q) = self.fifo.pop() {
                self.stats.on_drop(q.size as u64);
                self.pipe.push(q.handle, q.size, now, now, true, true);
                lost_any = true;
            }
        }
        // Restart the discipline (Linux `qdisc_reset`: `codel_reset`, `red_restart`).
        self.qdisc.reset();
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
