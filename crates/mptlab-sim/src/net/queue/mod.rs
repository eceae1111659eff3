//! Queue disciplines, separate from whatever transmits: drop-tail, CoDel (RFC 8289) and RED
//! (Floyd & Jacobson 1993), behind one enum for static dispatch, each with the hard limit
//! behind it.
//!
//! A discipline decides either on arrival (drop-tail, RED) or at departure (CoDel). A
//! point-to-point link uses the first kind without holding packets here: its FIFO transmitter
//! knows each packet's start of transmission on arrival (see `net::link`). Anything whose
//! transmitter is free at times it cannot know in advance (a station contending for a shared
//! medium) uses `PacketQueue`: packets wait in a `Fifo`, and the transmitter asks for the next
//! one when it becomes free.

pub mod codel;
pub mod fifo;
pub mod limit;
pub mod red;

pub use codel::CoDel;
pub use fifo::{Fifo, Queued};
pub use limit::over_limit;
pub use red::{Red, RedParams};

use crate::net::config::{QueueLimit, QueueSpec};
use mptlab_engine::{RngStream, Time};

/// A queue discipline's control state (the packets wait elsewhere: in a `Fifo` or, for a link
/// that decides on arrival, in its pipe).
pub enum Qdisc {
    DropTail,
    CoDel(CoDel),
    /// Boxed (once, when the run is built) to keep the enum, and the hop holding it, small.
    Red(Box<Red>),
}

impl Qdisc {
    /// The discipline of `spec` and its hard limit. `rng` is the discipline's own random stream
    /// (only RED draws from it).
    pub fn new(spec: &QueueSpec, rng: RngStream) -> (Self, QueueLimit) {
        match *spec {
            QueueSpec::DropTail { limit } => (Qdisc::DropTail, limit),
            QueueSpec::CoDel { limit, target, interval } => (Qdisc::CoDel(CoDel::new(target, interval)), limit),
            QueueSpec::Red { limit, min, max, max_p, weight, gentle } => {
                let params =
                    RedParams::new(min, max, max_p, weight, gentle).expect("the scenario layer checks RED thresholds share a unit");
                (Qdisc::Red(Box::new(Red::new(params, rng))), limit)
            }
        }
    }

    /// Drops only on arrival: a FIFO transmitter may then fix a packet's start of transmission
    /// when it is enqueued.
    #[inline]
    pub fn decides_on_arrival(&self) -> bool {
        !matches!(self, Qdisc::CoDel(_))
    }

    /// The discipline's early-drop decision for a packet arriving at `now` that finds `pkts`
    /// packets (`bytes` bytes) waiting; `idle_since` is when the queue went idle, if it is idle.
    /// The hard limit is checked separately (`over_limit`), after this.
    #[inline]
    pub fn drops_arrival(&mut self, now: Time, pkts: u64, bytes: u64, idle_since: Option<Time>, rate_bps: u64) -> bool {
        match self {
            Qdisc::Red(r) => r.drops_arrival(now, pkts, bytes, idle_since, rate_bps),
            Qdisc::DropTail | Qdisc::CoDel(_) => false,
        }
    }

    /// The next packet of `fifo` to transmit at `now`; packets the discipline drops on the way
    /// are pushed to `dropped`.
    #[inline]
    pub fn dequeue(&mut self, now: Time, fifo: &mut Fifo, dropped: &mut Vec<Queued>) -> Option<Queued> {
        match self {
            Qdisc::CoDel(c) => c.dequeue(now, fifo, dropped),
            Qdisc::DropTail | Qdisc::Red(_) => fifo.pop(),
        }
    }

    /// Restart from the initial state (Linux `qdisc_reset`: `codel_reset`, `red_restart`).
    pub fn reset(&mut self) {
        match self {
            Qdisc::DropTail => {}
            Qdisc::CoDel(c) => c.reset(),
            Qdisc::Red(r) => r.reset(),
        }
    }
}

/// What became of a packet offered to a `PacketQueue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Dropped by the discipline's early decision (RED).
    DroppedEarly,
    /// Dropped because the hard limit was reached.
    DroppedFull,
}

/// A discipline with its packets, for a transmitter that asks for the next packet when it
/// becomes free (a shared-medium station; a link uses the parts directly).
pub struct PacketQueue {
    qdisc: Qdisc,
    limit: QueueLimit,
    fifo: Fifo,
    /// When a dequeue last found the queue empty, until the next arrival (RED's idle time).
    idle_since: Option<Time>,
}

impl PacketQueue {
    pub fn new(spec: &QueueSpec, rng: RngStream) -> Self {
        let (qdisc, limit) = Qdisc::new(spec, rng);
        Self { qdisc, limit, fifo: Fifo::new(), idle_since: Some(0) }
    }

    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    /// Offer a packet at `now`; `rate_bps` is the transmitter's current rate (RED's idle decay).
    #[inline]
    pub fn enqueue(&mut self, now: Time, q: Queued, rate_bps: u64) -> Verdict {
        let (pkts, bytes) = (self.fifo.len() as u64, self.fifo.bytes());
        let idle = if pkts == 0 { self.idle_since.take() } else { None };
        if self.qdisc.drops_arrival(now, pkts, bytes, idle, rate_bps) {
            return Verdict::DroppedEarly;
        }
        if over_limit(self.limit, pkts, bytes, q.size) {
            return Verdict::DroppedFull;
        }
        self.fifo.push(q);
        Verdict::Queued
    }

    /// The next packet to transmit at `now`, pushing the discipline's drops to `dropped`.
    #[inline]
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Queued>) -> Option<Queued> {
        let next = self.qdisc.dequeue(now, &mut self.fifo, dropped);
        if next.is_none() {
            self.idle_since = Some(now);
        }
        next
    }

    /// Empty the queue (the discipline restarts), handing every packet to `lost`.
    pub fn reset(&mut self, now: Time, mut lost: impl FnMut(Queued)) {
        while let Some(q) = self.fifo.pop() {
            lost(q);
        }
        self.qdisc.reset();
        self.idle_since = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;
    use mptlab_engine::{Handle, StreamId};

    fn rng() -> RngStream {
        RngStream::new(1, StreamId::new(5, 5))
    }

    fn pkt(i: u32, at: Time) -> Queued {
        Queued { handle: Handle(i), enqueued_at: at, size: 1500 }
    }

    #[test]
    fn droptail_queue_is_fifo_with_a_hard_limit() {
        let mut q = PacketQueue::new(&QueueSpec::DropTail { limit: QueueLimit::Packets(3) }, rng());
        let verdicts: Vec<_> = (0..5).map(|i| q.enqueue(0, pkt(i, 0), 1_000_000)).collect();
        assert_eq!(verdicts, [Verdict::Queued, Verdict::Queued, Verdict::Queued, Verdict::DroppedFull, Verdict::DroppedFull]);
        let mut dropped = vec![];
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(MS, &mut dropped)).map(|p| p.handle.0).collect();
        assert_eq!(order, [0, 1, 2]);
        assert!(dropped.is_empty() && q.is_empty());
    }

    #[test]
    fn red_queue_drops_early_below_the_hard_limit() {
        // w_q = 1: avg is the instantaneous queue; from 15 packets on every arrival is dropped.
        let spec = QueueSpec::Red {
            limit: QueueLimit::Packets(100),
            min: QueueLimit::Packets(5),
            max: QueueLimit::Packets(15),
            max_p: 0.1,
            weight: 1.0,
            gentle: false,
        };
        let mut q = PacketQueue::new(&spec, rng());
        let mut early = 0;
        for i in 0..200 {
            match q.enqueue(0, pkt(i, 0), 1_000_000) {
                Verdict::DroppedEarly => early += 1,
                Verdict::DroppedFull => panic!("RED holds the queue below its hard limit"),
                Verdict::Queued => {}
            }
        }
        assert_eq!(q.len(), 15);
        assert_eq!(early, 185);
    }

    #[test]
    fn codel_queue_drops_at_dequeue_and_reset_returns_everything() {
        let spec = QueueSpec::CoDel { limit: QueueLimit::Packets(1000), target: 5 * MS, interval: 100 * MS };
        let mut q = PacketQueue::new(&spec, rng());
        for i in 0..50 {
            assert_eq!(q.enqueue(0, pkt(i, 0), 1_000_000), Verdict::Queued);
        }
        let mut dropped = vec![];
        // Every packet has waited 200 ms: the first dequeue arms CoDel, later ones drop.
        let mut sent = 0;
        for k in 0..10 {
            if q.dequeue(200 * MS + k * 150 * MS, &mut dropped).is_some() {
                sent += 1;
            }
        }
        assert_eq!(sent, 10);
        assert!(!dropped.is_empty());
        let mut lost = 0;
        q.reset(2 * 1000 * MS, |_| lost += 1);
        assert_eq!(sent + dropped.len() + lost, 50);
        assert!(q.is_empty());
    }
}
