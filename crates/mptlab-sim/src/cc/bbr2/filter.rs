//! The two windowed max filters BBRv3 needs (draft-cardwell-ccwg-bbr-00 §2.11, §2.12):
//! - `MaxBwFilter`: BBR.max_bw over MaxBwFilterLen = 2 PROBE_BW cycles. Its virtual time
//!   (BBR.cycle_count) only ever advances by one, so two slots — the current and the previous
//!   cycle — hold the window exactly (§4.5.6: "only needs to be tracked with a single bit").
//! - `WindowedMax`: BBR.extra_acked over 10 packet-timed rounds (1 in STARTUP), a running max
//!   over a sliding window kept as the best, second-best and third-best samples from successive
//!   sub-windows (K. Nichols' algorithm, the "generic windowed max filter" the draft assumes).
//!   Values are u64, times are round counts.

/// Max over the current and the previous cycle.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxBwFilter {
    slots: [u64; 2],
}

impl MaxBwFilter {
    /// Take a sample into the slot of `cycle`; returns the windowed max.
    pub fn update(&mut self, value: u64, cycle: u64) -> u64 {
        let s = &mut self.slots[(cycle & 1) as usize];
        *s = (*s).max(value);
        self.get()
    }

    /// The cycle count advanced to `cycle`: its slot (two cycles old) is forgotten.
    pub fn advance(&mut self, cycle: u64) -> u64 {
        self.slots[(cycle & 1) as usize] = 0;
        self.get()
    }

    pub fn get(&self) -> u64 {
        self.slots[0].max(self.slots[1])
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

/// Running max over the last `window` time units, in O(1) space.
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// Take sample `v` at time `t` (non-decreasing); returns the max over (t − window, t].
    pub fn update(&mut self, window: u64, t: u64, v: u64) -> u64 {
        let new = Sample { t, v };
        // A new best, or nothing left in the window: restart from this sample.
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > window {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = new;
            self.s[2] = new;
        } else if v >= self.s[2].v {
            self.s[2] = new;
        }
        let dt = t.saturating_sub(self.s[0].t);
        if dt > window {
            // The best sample expired: promote the others, and again if that one expired too.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = new;
            if t.saturating_sub(self.s[0].t) > window {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = new;
            }
        } else if self.s[1].t == self.s[0].t && dt > window / 4 {
            // A quarter of the window passed with no second choice: take one.
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].t == self.s[1].t && dt > window / 2 {
            // Half the window passed with no third choice: take one.
            self.s[2] = new;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_bw_filter_forgets_samples_two_cycles_old() {
        let mut f = MaxBwFilter::default();
        assert_eq!(f.update(100, 0), 100);
        assert_eq!(f.advance(1), 100, "cycle 0 is still the previous cycle");
        assert_eq!(f.update(60, 1), 100);
        assert_eq!(f.advance(2), 60, "cycle 0 left the window");
        assert_eq!(f.advance(3), 0);
    }

    #[test]
    fn windowed_max_keeps_the_best_sample_of_the_window_only() {
        let mut f = WindowedMax::default();
        assert_eq!(f.update(10, 0, 50), 50);
        assert_eq!(f.update(10, 3, 30), 50);
        assert_eq!(f.update(10, 8, 20), 50);
        assert_eq!(f.update(10, 11, 10), 30, "the 50 of t=0 expired; 30 (t=3) is next best");
        assert_eq!(f.update(10, 30, 5), 5, "everything expired");
        assert_eq!(f.update(1, 31, 7), 7);
        assert_eq!(f.update(1, 33, 1), 1, "window of one round");
    }
}
