//! The event queue for large runs: a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990, "Faster algorithms for
//! the shortest path problem", J. ACM 37(2)), in the one-level form where an event waits in the
//! bucket of the highest bit in which its time differs from the last time popped.
//!
//! A radix heap is a monotone priority queue: it needs every new key to be at least the last key
//! popped, which holds because the engine never schedules before `now`. Pushes append to a
//! bucket; a pop that finds no event due now empties the lowest non-empty bucket once, moving its
//! events to lower buckets, so each event moves at most 64 times and all moves are sequential
//! scans (a binary heap walks ~16 scattered levels per pop on large queues).
//!
//! Order is (time, insertion order): events of one time always share a bucket, buckets keep
//! arrival order when pushed and when redistributed, and events due at the current key wait in a
//! FIFO. So no sequence number is stored and an entry is just (time, event).

use crate::time::Time;

/// Bucket `i` holds events whose time differs from `last` first in bit `i` (from the top).
const BUCKETS: usize = 64;

/// Pending events ordered by (time, insertion sequence).
pub struct RadixQueue<E> {
    /// Events at exactly `last`, in insertion order; `due[head..]` are still pending.
    due: Vec<E>,
    head: usize,
    buckets: [Vec<(Time, E)>; BUCKETS],
    /// Earliest time in each non-empty bucket, so peeking needs no scan.
    mins: [Time; BUCKETS],
    /// Bit `i` set when bucket `i` is non-empty.
    occupied: u64,
    /// Time of the last event moved into `due` (never after `now`).
    last: Time,
    len: usize,
    now: Time,
    popped: u64,
}

impl<E: Copy> Default for RadixQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// The bucket of `time` relative to `last` (`time != last`).
#[inline]
fn bucket_of(time: Time, last: Time) -> usize {
    (63 - (time ^ last).leading_zeros()) as usize
}

impl<E: Copy> RadixQueue<E> {
    pub fn new() -> Self {
        Self {
            due: Vec::with_capacity(64),
            head: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            mins: [0; BUCKETS],
            occupied: 0,
            last: 0,
            len: 0,
            now: 0,
            popped: 0,
        }
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
        self.len += 1;
        if time == self.last {
            self.due.push(event);
        } else {
            self.push_bucket(bucket_of(time, self.last), time, event);
        }
    }

    /// Append to bucket `b`, keeping its minimum with selects rather than branches: whether a
    /// bucket was empty is data-dependent and mispredicted often on small queues.
    #[inline]
    fn push_bucket(&mut self, b: usize, time: Time, event: E) {
        let bit = 1u64 << b;
        let old = if self.occupied & bit != 0 { self.mins[b] } else { Time::MAX };
        self.mins[b] = old.min(time);
        self.occupied |= bit;
        self.buckets[b].push((time, event));
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if self.head < self.due.len() {
            Some(self.last)
        } else if self.occupied == 0 {
            None
        } else {
            Some(self.mins[self.occupied.trailing_zeros() as usize])
        }
    }

    /// Pop the earliest event if it is due at or before `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.head == self.due.len() {
            if self.occupied == 0 {
                return None;
            }
            let b = self.occupied.trailing_zeros() as usize;
            let t = self.mins[b];
            // Checked before moving anything, so `last` never passes `now` and later schedules
            // between now and `t` stay legal.
            if t > until {
                return None;
            }
            if self.buckets[b].len() == 1 {
                // The earliest bucket holds one event (the common case with few pending
                // events): it is the next one, and nothing else moves.
                let (_, event) = self.buckets[b].pop().expect("one event");
                self.occupied &= !(1 << b);
                self.last = t;
                self.len -= 1;
                self.now = t;
                self.popped += 1;
                return Some((t, event));
            }
            self.redistribute(b, t);
        } else if self.last > until {
            return None;
        }
        let event = self.due[self.head];
        self.head += 1;
        if self.head == self.due.len() {
            self.due.clear();
            self.head = 0;
        }
        self.len -= 1;
        self.now = self.last;
        self.popped += 1;
        Some((self.last, event))
    }

    /// Make `t` (the earliest time, held by bucket `b`) the new `last`: events at `t` go to the
    /// FIFO, the others of bucket `b` to lower buckets, all in their current order. Not cold:
    /// events rarely share a nanosecond, so most pops come through here.
    fn redistribute(&mut self, b: usize, t: Time) {
        self.last = t;
        self.occupied &= !(1 << b);
        let mut moving = std::mem::take(&mut self.buckets[b]);
        for &(time, event) in &moving {
            if time == t {
                self.due.push(event);
            } else {
                self.push_bucket(bucket_of(time, t), time, event);
            }
        }
        moving.clear();
        // Keep the allocation for the next events of this bucket.
        self.buckets[b] = moving;
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
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn equal_times_pop_in_insertion_order() {
        let mut q = RadixQueue::new();
        for i in 0..100u32 {
            q.schedule(5, i);
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn pop_until_leaves_later_events_and_accepts_earlier_ones_after() {
        let mut q = RadixQueue::new();
        q.schedule(100, 'a');
        assert_eq!(q.pop_until(50), None);
        q.advance_to(50);
        // Between now and the pending event: must still come first.
        q.schedule(70, 'b');
        assert_eq!(q.peek_time(), Some(70));
        assert_eq!(q.pop_until(u64::MAX), Some((70, 'b')));
        assert_eq!(q.pop_until(u64::MAX), Some((100, 'a')));
        assert_eq!((q.len(), q.is_empty(), q.now(), q.events_processed()), (0, true, 100, 2));
    }

    /// One step of a random workload: schedule at now + delay (a past time when `back` and the
    /// build clamps), pop up to now + delay, or advance the clock.
    #[derive(Clone, Debug)]
    enum Op {
        Schedule { delay: u64, back: bool },
        Pop { horizon: u64 },
        Advance { by: u64 },
    }

    fn op() -> impl Strategy<Value = Op> {
        // Small delays make equal times common; large ones exercise the high buckets.
        let delay = prop_oneof![0u64..4, 0u64..1_000, 0u64..u64::MAX / 4];
        prop_oneof![
            6 => (delay.clone(), any::<bool>()).prop_map(|(delay, back)| Op::Schedule { delay, back }),
            3 => delay.clone().prop_map(|horizon| Op::Pop { horizon }),
            1 => (0u64..2_000).prop_map(|by| Op::Advance { by }),
        ]
    }

    proptest! {
        /// Same pops, times, peeks and lengths as a binary heap ordered by (time, sequence) with
        /// the same clamping of past times.
        #[test]
        fn same_order_as_a_binary_heap(ops in proptest::collection::vec(op(), 1..600)) {
            let mut q = RadixQueue::new();
            let mut model: BinaryHeap<Reverse<(u64, u64)>> = BinaryHeap::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for op in ops {
                match op {
                    Op::Schedule { delay, back } => {
                        // Past times trip the debug assertion, so they are only tried where the
                        // queue clamps (release test runs).
                        let time = if back && !cfg!(debug_assertions) { now.saturating_sub(delay) } else { now.saturating_add(delay) };
                        q.schedule(time, seq);
                        model.push(Reverse((time.max(now), seq)));
                        seq += 1;
                    }
                    Op::Pop { horizon } => {
                        let until = now.saturating_add(horizon);
                        loop {
                            let want = match model.peek() {
                                Some(Reverse((t, _))) if *t <= until => model.pop().map(|Reverse((t, s))| (t, s)),
                                _ => None,
                            };
                            prop_assert_eq!(q.pop_until(until), want);
                            match want {
                                Some((t, _)) => now = t,
                                None => break,
                            }
                        }
                    }
                    Op::Advance { by } => {
                        now = now.saturating_add(by);
                        q.advance_to(now);
                    }
                }
                prop_assert_eq!(q.peek_time(), model.peek().map(|Reverse((t, _))| *t));
                prop_assert_eq!(q.len(), model.len());
                prop_assert_eq!(q.now(), now);
            }
            while let Some(Reverse((t, s))) = model.pop() {
                prop_assert_eq!(q.pop_until(u64::MAX), Some((t, s)));
            }
            prop_assert_eq!(q.pop_until(u64::MAX), None);
        }
    }
}
