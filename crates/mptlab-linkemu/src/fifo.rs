//! The delay line of one link direction: frames wait in arrival order until their due time.
//!
//! The delay is constant per direction, so due = arrival + delay is non-decreasing in arrival
//! order and a FIFO is a priority queue. Arrival times come from the kernel's receive timestamps,
//! which are not guaranteed monotonic across CPUs (and are converted from CLOCK_REALTIME); a due
//! time earlier than its predecessor's is raised to it, so frames never overtake each other (a
//! link does not reorder). Frame buffers are recycled so the steady state allocates nothing.

use std::collections::VecDeque;

/// One frame waiting for its due time (ns on CLOCK_MONOTONIC).
pub struct Held {
    pub due_ns: u64,
    pub frame: Vec<u8>,
}

pub struct DelayFifo {
    delay_ns: u64,
    max_bytes: usize,
    bytes: usize,
    last_due: u64,
    queue: VecDeque<Held>,
    spare: Vec<Vec<u8>>,
}

impl DelayFifo {
    /// `max_bytes` bounds the memory held (frames beyond it are refused by `push`).
    pub fn new(delay_ns: u64, max_bytes: usize) -> Self {
        Self { delay_ns, max_bytes, bytes: 0, last_due: 0, queue: VecDeque::new(), spare: Vec::new() }
    }

    /// Hold a copy of `frame`, received at `arrival_ns`; returns its due time, or None when the
    /// delay line is full (the frame is dropped).
    pub fn push(&mut self, arrival_ns: u64, frame: &[u8]) -> Option<u64> {
        if self.bytes + frame.len() > self.max_bytes {
            return None;
        }
        let due_ns = (arrival_ns + self.delay_ns).max(self.last_due);
        self.last_due = due_ns;
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(frame);
        self.bytes += buf.len();
        self.queue.push_back(Held { due_ns, frame: buf });
        Some(due_ns)
    }

    /// The due time of the oldest frame.
    pub fn head_due(&self) -> Option<u64> {
        self.queue.front().map(|h| h.due_ns)
    }

    /// Take the oldest frame if it is due at `now_ns`.
    pub fn pop_due(&mut self, now_ns: u64) -> Option<Held> {
        if self.queue.front()?.due_ns > now_ns {
            return None;
        }
        let held = self.queue.pop_front()?;
        self.bytes -= held.frame.len();
        Some(held)
    }

    /// Give a sent frame's buffer back for reuse.
    pub fn recycle(&mut self, frame: Vec<u8>) {
        if self.spare.len() < 4096 {
            self.spare.push(frame);
        }
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_become_due_after_the_delay_in_arrival_order() {
        let mut f = DelayFifo::new(10_000_000, 1 << 20);
        assert_eq!(f.push(1_000, b"one"), Some(10_001_000));
        assert_eq!(f.push(2_500, b"two"), Some(10_002_500));
        assert_eq!(f.head_due(), Some(10_001_000));
        assert!(f.pop_due(10_000_999).is_none());
        let h = f.pop_due(10_001_000).unwrap();
        assert_eq!((h.due_ns, h.frame.as_slice()), (10_001_000, &b"one"[..]));
        f.recycle(h.frame);
        assert!(f.pop_due(10_002_499).is_none());
        // Late polling releases every due frame, oldest first.
        assert_eq!(f.push(3_000, b"three"), Some(10_003_000));
        let order: Vec<Vec<u8>> = std::iter::from_fn(|| f.pop_due(u64::MAX).map(|h| h.frame)).collect();
        assert_eq!(order, vec![b"two".to_vec(), b"three".to_vec()]);
        assert_eq!(f.len(), 0);
        assert_eq!(f.head_due(), None);
    }

    #[test]
    fn an_earlier_timestamp_never_overtakes() {
        let mut f = DelayFifo::new(5, 1 << 20);
        assert_eq!(f.push(100, b"a"), Some(105));
        // Timestamps from another CPU can be a little out of order; the frame keeps its place.
        assert_eq!(f.push(90, b"b"), Some(105));
        assert_eq!(f.pop_due(105).unwrap().frame, b"a");
        assert_eq!(f.pop_due(105).unwrap().frame, b"b");
    }

    #[test]
    fn zero_delay_is_due_at_arrival_and_the_byte_bound_refuses_frames() {
        let mut f = DelayFifo::new(0, 10);
        assert_eq!(f.push(7, &[0; 6]), Some(7));
        assert_eq!(f.push(8, &[0; 5]), None);
        assert_eq!(f.push(8, &[0; 4]), Some(8));
        assert_eq!(f.len(), 2);
        let h = f.pop_due(7).unwrap();
        f.recycle(h.frame);
        assert_eq!(f.push(9, &[1; 6]), Some(9));
        assert_eq!(f.pop_due(9).unwrap().frame, vec![0; 4]);
        assert_eq!(f.pop_due(9).unwrap().frame, vec![1; 6]);
    }
}
