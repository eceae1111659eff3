//! The event queue for small runs: a binary min-heap keyed by (time, insertion sequence). With
//! few pending events it stays in L1 and its pops predict well; `mod.rs` says when it is used.
//!
//! Equal times pop in insertion order (FIFO), which makes runs deterministic without relying on
//! the heap's internal tie-breaking. Events are small `Copy` values chosen by the layer above
//! (an enum), so dispatch is static and nothing is boxed.

use crate::time::Time;

/// A pending event with its order key: (time, insertion sequence) as one 128-bit number, so one
/// wide compare (`cmp` + `sbb`) orders two entries on every level of a sift.
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    #[inline(always)]
    fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
}

/// Pending events ordered by (time, insertion sequence), in an implicit binary min-heap of
/// our own rather than `std::collections::BinaryHeap`: std's `pop` swaps the last entry into
/// the root with 8- and 16-byte stores and at once reads the root back with 16-byte loads that
/// straddle them, a failed store-to-load forwarding that perf put at 28 % of W1's event loop.
/// Here the last entry is held in registers and written once, where it lands.
///
/// A pop leaves its entry in the root, marked vacant, and the removal waits for the next call:
/// most events schedule one event (a link's next arrival, a timer), and a schedule into a vacant
/// root is one walk down the heap, which ends at once when the new event is the next one due,
/// instead of a removal's walk down and an insertion's walk up.
/// Pops depend only on the (time, sequence) keys, so this changes no order.
pub struct BinaryQueue<E> {
    heap: Vec<Entry<E>>,
    /// `heap[0]` was popped and awaits removal (or replacement by the next schedule).
    vacant_root: bool,
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
        Self { heap: Vec::with_capacity(1024), vacant_root: false, next_seq: 0, now: 0, popped: 0 }
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
        let entry = Entry { key: (time as u128) << 64 | self.next_seq as u128, event };
        self.next_seq += 1;
        if self.vacant_root {
            self.vacant_root = false;
            self.replace_root(entry);
            return;
        }
        let hole = self.heap.len();
        self.heap.push(entry);
        self.sift_up(hole, entry);
    }

    /// Put `entry` into the heap, whose root is a hole (a pop's removal, with the last entry;
    /// the heap is not empty). Floyd's bottom-up walk: the hole goes from the root down the smaller
    /// children to a leaf (one compare per level), then `entry` sifts up from there (it usually
    /// belongs near the bottom). The smaller child is chosen without a branch: which one wins
    /// is data, not a pattern the predictor learns.
    #[inline(always)]
    fn fill_from_root(&mut self, entry: Entry<E>) {
        let n = self.heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (self.heap[child + 1].key < self.heap[child].key) as usize;
            self.heap[hole] = self.heap[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == n {
            self.heap[hole] = self.heap[child];
            hole = child;
        }
        self.sift_up(hole, entry);
    }

    /// Put `entry` into the vacant root and move it down to its place, top-down: a new event
    /// is most often due before most others (a link's next arrival, a transmission time away),
    /// so it stops after a level or two, where Floyd's walk (`fill_from_root`) would go to a leaf
    /// and back up. Measured on W1 and W2 (one and twelve flows): 5 % and 10 % fewer
    /// instructions, in the whole run, than popping and pushing.
    #[inline(always)]
    fn replace_root(&mut self, entry: Entry<E>) {
        let n = self.heap.len();
        let mut hole = 0;
        let mut child = 1;
        while child < n {
            if child + 1 < n && self.heap[child + 1].key < self.heap[child].key {
                child += 1;
            }
            if entry.key < self.heap[child].key {
                break;
            }
            self.heap[hole] = self.heap[child];
            hole = child;
            child = 2 * hole + 1;
        }
        self.heap[hole] = entry;
    }

    /// Remove the vacant root, if any: the last entry fills its place.
    #[inline(always)]
    fn settle_root(&mut self) {
        if std::mem::take(&mut self.vacant_root) {
            let last = self.heap.pop().expect("a vacant root is an entry");
            if !self.heap.is_empty() {
                self.fill_from_root(last);
            }
        }
    }

    /// Put `entry` in the hole at `hole` or above it: parents after it move down into the hole
    /// until its place is found.
    #[inline(always)]
    fn sift_up(&mut self, mut hole: usize, entry: Entry<E>) {
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if self.heap[parent].key <= entry.key {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = entry;
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        if self.vacant_root {
            // The smaller child of the root is the earliest entry left.
            let (a, b) = (self.heap.get(1), self.heap.get(2));
            return match (a, b) {
                (Some(a), Some(b)) => Some(if b.key < a.key { b.time() } else { a.time() }),
                (Some(a), None) => Some(a.time()),
                _ => None,
            };
        }
        self.heap.first().map(Entry::time)
    }

    /// Pop the earliest event if it is due at or before `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        self.settle_root();
        let top = *self.heap.first()?;
        if top.time() > until {
            return None;
        }
        self.vacant_root = true;
        let time = top.time();
        self.now = time;
        self.popped += 1;
        Some((time, top.event))
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
        self.heap.len() - self.vacant_root as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// A popped root stays in place until the next call: the length, the next time and a
    /// schedule that replaces it all see it gone.
    #[test]
    fn a_popped_root_is_gone_before_it_is_removed() {
        let mut q = BinaryQueue::new();
        for (t, e) in [(30, 'c'), (10, 'a'), (20, 'b')] {
            q.schedule(t, e);
        }
        assert_eq!(q.pop_until(u64::MAX), Some((10, 'a')));
        assert_eq!((q.len(), q.peek_time()), (2, Some(20)));
        q.schedule(15, 'x');
        assert_eq!((q.len(), q.peek_time()), (3, Some(15)));
        assert_eq!(q.pop_until(u64::MAX), Some((15, 'x')));
        assert_eq!(q.pop_until(19), None);
        assert_eq!(q.pop_until(u64::MAX), Some((20, 'b')));
        assert_eq!(q.pop_until(u64::MAX), Some((30, 'c')));
        assert!(q.is_empty() && q.peek_time().is_none() && q.pop_until(u64::MAX).is_none());
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
