//! The scheduler buffer at a tunnel's ingress (seed 003 §4.2: "the scheduler buffer", three
//! times the bottleneck buffer): inner packets wait here, first in first out, until the
//! scheduler places them on a path. Drop-tail: an inner packet that would pass the limit (in
//! packets or bytes) is refused and counted (study notes A6: the paper gives no drop policy).

use crate::metrics::RunningStats;
use crate::net::QueueLimit;
use mptlab_engine::time::as_secs_f64;
use mptlab_engine::{Handle, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
pub struct Held {
    pub handle: Handle,
    pub size: u32,
    pub since: Time,
    /// The tunnel's global sequence number and the header's timestamp, given when the
    /// scheduler places the packet on a path (in the buffer's order, so each path sends
    /// increasing numbers; the timestamp then covers the wait for the path's pacer, which the
    /// egress's delay estimates must see).
    pub global: u64,
    pub placed_at: Time,
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct BufferCounters {
    pub offered: u64,
    pub dropped: u64,
    pub max_packets: u64,
    pub max_bytes: u64,
}

pub struct SchedulerBuffer {
    limit: QueueLimit,
    q: VecDeque<Held>,
    bytes: u64,
    counters: BufferCounters,
    /// Seconds each packet waited, from arrival to being placed on a path.
    wait: RunningStats,
}

impl SchedulerBuffer {
    pub fn new(limit: QueueLimit) -> Self {
        Self { limit, q: VecDeque::new(), bytes: 0, counters: BufferCounters::default(), wait: RunningStats::new() }
    }

    /// Offer an inner packet; false when it is dropped.
    pub fn offer(&mut self, now: Time, handle: Handle, size: u32) -> bool {
        self.counters.offered += 1;
        let fits = match self.limit {
            QueueLimit::Packets(n) => (self.q.len() as u64) < n,
            QueueLimit::Bytes(b) => self.bytes + size as u64 <= b,
        };
        if !fits {
            self.counters.dropped += 1;
            return false;
        }
        self.q.push_back(Held { handle, size, since: now, global: 0, placed_at: now });
        self.bytes += size as u64;
        self.counters.max_packets = self.counters.max_packets.max(self.q.len() as u64);
        self.counters.max_bytes = self.counters.max_bytes.max(self.bytes);
        true
    }

    pub fn head(&self) -> Option<&Held> {
        self.q.front()
    }

    /// Take the head, which the scheduler placed at `now`.
    pub fn take(&mut self, now: Time) -> Option<Held> {
        let h = self.q.pop_front()?;
        self.bytes -= h.size as u64;
        self.wait.push(as_secs_f64(now - h.since));
        Some(h)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn counters(&self) -> &BufferCounters {
        &self.counters
    }

    pub fn wait(&self) -> &RunningStats {
        &self.wait
    }

    pub fn memory_footprint(&self) -> usize {
        crate::transport::footprint::deque(&self.q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_tail_by_packets_and_by_bytes() {
        let mut b = SchedulerBuffer::new(QueueLimit::Packets(2));
        assert!(b.offer(0, Handle(1), 1000));
        assert!(b.offer(0, Handle(2), 1000));
        assert!(!b.offer(0, Handle(3), 1000));
        assert_eq!(b.take(5).unwrap().handle, Handle(1));
        assert!(b.offer(5, Handle(4), 1000));
        assert_eq!((b.counters().offered, b.counters().dropped, b.counters().max_packets), (4, 1, 2));
        let mut b = SchedulerBuffer::new(QueueLimit::Bytes(2500));
        assert!(b.offer(0, Handle(1), 1000));
        assert!(b.offer(0, Handle(2), 1500));
        assert!(!b.offer(0, Handle(3), 1));
        assert_eq!(b.bytes(), 2500);
    }
}
