//! The event queue for small runs: a binary min-heap keyed by (time, insertion sequence). With
//! few pending events it stays in L1 and its pops predict well; `mod.rs` says when it is used.
//!
//! Equal times pop in insertion order (FIFO), which makes runs deterministic without relying on
//! the heap's internal tie-breaking. Events are small `Copy` values chosen by the layer above
//! (an enum), so dispatch is static and nothing is boxed.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// (time, seq) as one 128-bit number: one wide compare (`cmp` + `sbb`) orders two
    /// entries, where comparing the fields one after the other takes two compares and a select
    /// on every level of a sift.
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed so that BinaryHeap (a max-heap) pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// Pending events ordered by (time, insertion sequence).
pub struct BinaryQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for BinaryQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> BinaryQueue<E> {
    pub fn new() -> Self {
        Self { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now: 0, popped: 0 }
    }

    /// Current simulated time: the time of the last event popped.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at `time`. Scheduling in the past is a logic error; it is clamped to now
    /// in release builds so time still never goes back.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        debug_assert!(time >= self.now, "event scheduled in the past: {time} < {}", self.now);
        let time = time.max(self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Pop the earliest event if it is due at or before `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Advance the clock to `t` without an event (end of a run or of a step). Never goes back.
    pub fn advance_to(&mut self, t: Time) {
        self.now = self.now.max(t);
    }

    /// Number of events popped so far (the engine's work counter, reported by `mptlab bench`).
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = BinaryQueue::new();
        for i in 0..100u32 {
            q.schedule(5, i);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    proptest! {
        #[test]
        fn pops_are_sorted_by_time_then_sequence(times in proptest::collection::vec(0u64..50, 1..300)) {
            let mut q = BinaryQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(*t, i);
            }
            let mut last = (0u64, 0usize);
            let mut first = true;
            while let Some((t, i)) = q.pop_until(u64::MAX) {
                if !first {
                    prop_assert!(t > last.0 || (t == last.0 && i > last.1));
                }
                prop_assert_eq!(t, times[i]);
                last = (t, i);
                first = false;
            }
        }
    }
}
