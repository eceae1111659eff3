//! Trace: a down-sampled time series of one state variable (congestion window, SRTT, queue
//! length), for plots. Sampling rule: for each multiple m·every < duration, keep the first
//! recorded value whose time is at or after m·every, stamped with its own time (a sample that is
//! the first after several multiples, because nothing was recorded in between, is kept once).
//! The last recorded value is remembered separately so the final state is never lost. Storage is
//! preallocated (ceil(duration/every) points); `record` is O(1) and never allocates.

use mptlab_engine::Time;

const NS_PER_S: f64 = 1e9;

#[derive(Clone, Debug)]
pub struct Trace {
    every: Time,
    duration: Time,
    next_at: Time,
    times_s: Vec<f64>,
    values: Vec<f64>,
    last: Option<(Time, f64)>,
}

impl Trace {
    /// Panics if `every` is 0.
    pub fn new(every: Time, duration: Time) -> Self {
        assert!(every > 0, "Trace: sampling period must be positive");
        let n = duration.div_ceil(every) as usize;
        Trace { every, duration, next_at: 0, times_s: Vec::with_capacity(n), values: Vec::with_capacity(n), last: None }
    }

    /// A trace that keeps no points (a flow or link the run does not trace): `record` only
    /// remembers the last value. Allocates nothing.
    pub fn off() -> Self {
        Trace { every: Time::MAX, duration: 0, next_at: Time::MAX, times_s: Vec::new(), values: Vec::new(), last: None }
    }

    #[inline]
    pub fn record(&mut self, now: Time, value: f64) {
        self.last = Some((now, value));
        if now >= self.next_at && now < self.duration {
            self.times_s.push(now as f64 / NS_PER_S);
            self.values.push(value);
            self.next_at = (now / self.every + 1) * self.every;
        }
    }

    /// Kept points: (times in s, values).
    pub fn points(&self) -> (&[f64], &[f64]) {
        (&self.times_s, &self.values)
    }

    /// The most recent record (time in ns, value), kept or not.
    pub fn last(&self) -> Option<(Time, f64)> {
        self.last
    }

    pub fn every(&self) -> Time {
        self.every
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn keeps_the_first_value_at_or_after_each_multiple() {
        let mut t = Trace::new(100 * MS, 1000 * MS);
        for (ms, v) in [(0, 1.0), (50, 2.0), (100, 3.0), (150, 4.0), (230, 5.0), (299, 6.0), (300, 7.0)] {
            t.record(ms * MS, v);
        }
        let (ts, vs) = t.points();
        assert_eq!(vs, &[1.0, 3.0, 5.0, 7.0]);
        assert_eq!(ts, &[0.0, 0.1, 0.23, 0.3]);
        assert_eq!(t.last(), Some((300 * MS, 7.0)));
    }

    #[test]
    fn an_off_trace_keeps_nothing_but_the_last_value() {
        let mut t = Trace::off();
        t.record(0, 1.0);
        t.record(5 * MS, 2.0);
        assert!(t.points().0.is_empty() && t.values.capacity() == 0);
        assert_eq!(t.last(), Some((5 * MS, 2.0)));
    }

    #[test]
    fn a_gap_spanning_several_multiples_keeps_one_point() {
        let mut t = Trace::new(10 * MS, 100 * MS);
        t.record(5 * MS, 1.0);
        t.record(47 * MS, 2.0); // first after 10, 20, 30 and 40 ms
        t.record(48 * MS, 3.0);
        t.record(50 * MS, 4.0);
        assert_eq!(t.points().1, &[1.0, 2.0, 4.0]);
    }

    #[test]
    fn records_at_or_after_the_end_are_not_kept_but_are_remembered_as_last() {
        let mut t = Trace::new(10 * MS, 30 * MS);
        t.record(29 * MS, 1.0);
        t.record(30 * MS, 2.0);
        t.record(99 * MS, 3.0);
        assert_eq!(t.points().1, &[1.0]);
        assert_eq!(t.last(), Some((99 * MS, 3.0)));
    }

    #[test]
    fn dense_recording_never_exceeds_the_preallocated_capacity() {
        let mut t = Trace::new(7 * MS, 1000 * MS);
        let cap = t.values.capacity();
        for us in 0..2_000_000u64 {
            t.record(us * 1000, us as f64);
        }
        assert_eq!(t.points().0.len(), (1000usize).div_ceil(7));
        assert_eq!(t.values.capacity(), cap);
        assert!(Trace::new(MS, 0).points().0.is_empty());
    }
}
