//! The event queue: pending events ordered by (time, insertion sequence), so events at equal
//! times run first-in first-out. Two exact implementations with the same order, chosen by the
//! number of entities (flows, links) that keep events due soon (`EventQueue::for_entities`;
//! the simulation counts them, `sim/build.rs`):
//!
//! - `BinaryQueue` (`binary.rs`), a binary heap: best with few such events (one or a few
//!   flows: W1–W4; W6's 1,000 unpaced bulk flows, whose own events are far-off timers), where
//!   it stays in cache, its pops predict well and a new event that is due first settles at
//!   the root at once.
//! - `RadixQueue` (`radix.rs`), a radix heap: best with thousands (W5's 12,000 devices, each
//!   writing every 8 ms), where a binary heap's pops walk ~16 levels of cold memory.
//!
//! Measured on the bench workloads with both built into the same simulator (interleaved wall
//! times of 20–30 s runs): W4 1.78 s with the binary heap against 1.94 s with the radix heap;
//! W1–W3 level within noise; W5 (1 s) 0.80–0.99 s against 0.59–0.61 s. W6 (5 s) took 1.31 s
//! against 1.03 s when it counted its 1,002 flows and links; since the binary heap's pop
//! leaves its root vacant for the next event, W6 runs 1.11x faster on it (plain pairs,
//! 2026-11-28), and its flows no longer count. The switch point is `RADIX_FROM`.
//! Which one runs never changes a result: both pop in exactly the same order
//! (`tests` below checks them against each other).

mod binary;
mod radix;

pub use binary::BinaryQueue;
pub use radix::RadixQueue;

use crate::time::Time;

/// Flows plus link directions from which a run uses the radix heap.
pub const RADIX_FROM: usize = 256;

/// The simulation's event queue (static dispatch to one of the two implementations).
pub enum EventQueue<E> {
    Binary(BinaryQueue<E>),
    Radix(Box<RadixQueue<E>>),
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

macro_rules! each {
    ($self:expr, $q:ident => $e:expr) => {
        match $self {
            EventQueue::Binary($q) => $e,
            EventQueue::Radix($q) => $e,
        }
    };
}

impl<E: Copy> EventQueue<E> {
    /// A queue for a small run (the binary heap).
    pub fn new() -> Self {
        EventQueue::Binary(BinaryQueue::new())
    }

    /// The queue suited to a run with `entities` flows and links that keep events due soon.
    pub fn for_entities(entities: usize) -> Self {
        if entities >= RADIX_FROM {
            EventQueue::Radix(Box::default())
        } else {
            Self::new()
        }
    }

    /// Current simulated time: the time of the last event popped.
    #[inline]
    pub fn now(&self) -> Time {
        each!(self, q => q.now())
    }

    /// Schedule `event` at `time` (not before `now`; clamped to it in release builds).
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        each!(self, q => q.schedule(time, event))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        each!(self, q => q.peek_time())
    }

    /// Pop the earliest event if it is due at or before `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        each!(self, q => q.pop_until(until))
    }

    /// Move the clock to `t` (never back) when no event is left before it.
    pub fn advance_to(&mut self, t: Time) {
        each!(self, q => q.advance_to(t))
    }

    pub fn events_processed(&self) -> u64 {
        each!(self, q => q.events_processed())
    }

    pub fn len(&self) -> usize {
        each!(self, q => q.len())
    }

    pub fn is_empty(&self) -> bool {
        each!(self, q => q.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Both implementations pop the same events at the same times in the same order, on
        /// schedules with equal times, far-apart times and pops interleaved.
        #[test]
        fn binary_and_radix_pop_in_the_same_order(ops in proptest::collection::vec((0u64..4, 0u64..40, any::<bool>()), 1..400)) {
            let (mut a, mut b) = (EventQueue::for_entities(0), EventQueue::for_entities(RADIX_FROM));
            prop_assert!(matches!(a, EventQueue::Binary(_)) && matches!(b, EventQueue::Radix(_)));
            for (i, &(scale, dt, pop)) in ops.iter().enumerate() {
                let t = a.now() + dt * 10u64.pow(scale as u32 * 3);
                a.schedule(t, i);
                b.schedule(t, i);
                if pop {
                    let until = a.now() + dt;
                    prop_assert_eq!(a.pop_until(until), b.pop_until(until));
                }
                prop_assert_eq!((a.len(), a.peek_time(), a.now()), (b.len(), b.peek_time(), b.now()));
            }
            loop {
                let (x, y) = (a.pop_until(u64::MAX), b.pop_until(u64::MAX));
                prop_assert_eq!(x, y);
                if x.is_none() {
                    break;
                }
            }
            prop_assert_eq!(a.events_processed(), b.events_processed());
        }
    }
}
