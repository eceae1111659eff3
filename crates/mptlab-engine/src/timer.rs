//! Lazily cancelled timers.
//!
//! A transport restarts its retransmission timer on almost every ACK. Pushing a heap entry each
//! time would double the event count, so a timer keeps its wanted `deadline` separately from the
//! one event it has in the queue (`armed_at`). Moving the deadline later costs nothing: the queued
//! event fires early, sees the deadline has moved, and is re-armed once. Moving it earlier (or
//! arming an idle timer) queues one new event; the stale one is recognised by its generation and
//! ignored when it pops.

use crate::time::Time;

/// 24 bytes rather than 40: the two times use `NONE` for "unset" instead of an `Option` tag
/// each, so a flow's timers span fewer cache lines (thousands of flows, a miss per line).
#[derive(Clone, Copy, Debug)]
pub struct LazyTimer {
    /// The wanted deadline, or `NONE`.
    deadline: Time,
    /// Time of the one event this timer has in the queue, or `NONE`.
    armed_at: Time,
    generation: u32,
}

/// An unset time (no simulation reaches it: 584 years of nanoseconds).
const NONE: Time = Time::MAX;

impl Default for LazyTimer {
    fn default() -> Self {
        Self { deadline: NONE, armed_at: NONE, generation: 0 }
    }
}

/// What the owner must do after changing a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arm {
    /// Nothing: an event already in the queue fires at or before the deadline.
    Keep,
    /// Queue one event at `at` carrying `generation`.
    Schedule { at: Time, generation: u32 },
}

/// What a popped timer event means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// A stale event (superseded or cancelled); ignore it.
    Stale,
    /// The deadline is later than this event: queue one event at `at` and wait.
    Rearm { at: Time, generation: u32 },
    /// The timer has expired now.
    Expired,
}

impl LazyTimer {
    pub fn deadline(&self) -> Option<Time> {
        (self.deadline != NONE).then_some(self.deadline)
    }

    pub fn is_set(&self) -> bool {
        self.deadline != NONE
    }

    /// Set (or move) the deadline (before `Time::MAX`).
    #[inline]
    pub fn set(&mut self, deadline: Time) -> Arm {
        debug_assert!(deadline != NONE, "a timer deadline at Time::MAX");
        self.deadline = deadline;
        // An unarmed timer has `armed_at == NONE`, after every deadline.
        if self.armed_at <= deadline {
            Arm::Keep
        } else {
            self.generation = self.generation.wrapping_add(1);
            self.armed_at = deadline;
            Arm::Schedule { at: deadline, generation: self.generation }
        }
    }

    /// Cancel: the queued event (if any) becomes harmless when it fires.
    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = NONE;
    }

    /// Interpret a popped event carrying `generation` at time `now`.
    #[inline]
    pub fn on_event(&mut self, now: Time, generation: u32) -> Fired {
        if generation != self.generation || self.armed_at == NONE {
            return Fired::Stale;
        }
        self.armed_at = NONE;
        if self.deadline == NONE {
            Fired::Stale
        } else if self.deadline > now {
            self.generation = self.generation.wrapping_add(1);
            self.armed_at = self.deadline;
            Fired::Rearm { at: self.deadline, generation: self.generation }
        } else {
            self.deadline = NONE;
            Fired::Expired
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postponing_does_not_queue_a_new_event() {
        let mut t = LazyTimer::default();
        let Arm::Schedule { at, generation } = t.set(100) else { panic!() };
        assert_eq!(at, 100);
        assert_eq!(t.set(200), Arm::Keep);
        assert_eq!(t.set(300), Arm::Keep);
        let Fired::Rearm { at, generation: g2 } = t.on_event(100, generation) else { panic!() };
        assert_eq!(at, 300);
        assert_eq!(t.on_event(300, g2), Fired::Expired);
        assert!(!t.is_set());
    }

    #[test]
    fn advancing_queues_a_new_event_and_the_old_one_is_stale() {
        let mut t = LazyTimer::default();
        let Arm::Schedule { generation: g1, .. } = t.set(100) else { panic!() };
        let Arm::Schedule { at, generation: g2 } = t.set(50) else { panic!() };
        assert_eq!(at, 50);
        assert_eq!(t.on_event(50, g2), Fired::Expired);
        assert_eq!(t.on_event(100, g1), Fired::Stale);
    }

    #[test]
    fn cancelled_timer_never_expires() {
        let mut t = LazyTimer::default();
        let Arm::Schedule { generation, .. } = t.set(10) else { panic!() };
        t.cancel();
        assert_eq!(t.on_event(10, generation), Fired::Stale);
    }
}
