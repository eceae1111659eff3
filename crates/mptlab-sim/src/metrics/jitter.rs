//! Rfc3550Jitter: interarrival jitter of one packet stream (a flow, a path, or every packet
//! crossing a link), RFC 3550 §6.4.1 and appendix A.8. For consecutive packets i-1, i in arrival
//! order, with send times S and arrival times R:
//!   D(i-1,i) = (R_i - R_{i-1}) - (S_i - S_{i-1}),   J += (|D(i-1,i)| - J) / 16.
//! J is kept in f64 nanoseconds (A.8 keeps 16·J in integer timestamp units; the f64 form is the
//! §6.4.1 equation without rounding). The first packet only initialises; every later packet
//! yields one sample of J (after its update), which goes into a LogHistogram (rounded to whole
//! ns) and into exact running statistics. Reported as the mean and distribution of the samples.

use mptlab_engine::Time;

use super::histogram::LogHistogram;
use super::stats::{RunningStats, Stats};

const NS_PER_MS: f64 = 1e6;

/// The RFC 3550 §6.4.1 estimator of one stream without its samples: the running J and the
/// previous packet. Streams whose samples are pooled (every subflow crossing a link) keep only
/// this and hand each sample to a shared `JitterSamples`.
#[derive(Clone, Copy, Debug, Default)]
pub struct JitterEstimator {
    j: f64,
    prev_sent: Time,
    prev_arrived: Time,
    started: bool,
}

impl JitterEstimator {
    /// One packet, in arrival order: `sent` is its send time at the source (S_i), `arrived` its
    /// arrival time at the measuring point (R_i). Returns the new J in ns, or None for the
    /// stream's first packet (it only initialises). O(1), no allocation.
    #[inline]
    pub fn update(&mut self, sent: Time, arrived: Time) -> Option<f64> {
        let sample = if self.started {
            // i64 is exact for simulated times below 292 years and avoids slow i128 → f64.
            let d = (arrived as i64 - self.prev_arrived as i64) - (sent as i64 - self.prev_sent as i64);
            // |D| through a signed conversion (one instruction; rounding is symmetric, so the
            // same value as converting the unsigned |D|).
            self.j += ((d as f64).abs() - self.j) / 16.0;
            Some(self.j)
        } else {
            None
        };
        self.started = true;
        self.prev_sent = sent;
        self.prev_arrived = arrived;
        sample
    }

    /// Current J in ns (0 before the second packet).
    pub fn current_ns(&self) -> f64 {
        self.j
    }
}

#[derive(Clone, Debug)]
pub struct Rfc3550Jitter {
    estimator: JitterEstimator,
    samples: RunningStats,
    hist: LogHistogram,
}

impl Default for Rfc3550Jitter {
    fn default() -> Self {
        Self::new()
    }
}

impl Rfc3550Jitter {
    pub fn new() -> Self {
        Rfc3550Jitter { estimator: JitterEstimator::default(), samples: RunningStats::new(), hist: LogHistogram::new() }
    }

    /// One packet, in arrival order (see `JitterEstimator::update`). O(1), no allocation.
    #[inline]
    pub fn on_packet(&mut self, sent: Time, arrived: Time) {
        if let Some(j) = self.estimator.update(sent, arrived) {
            self.samples.push(j);
            self.hist.record((j + 0.5) as u64); // J ≥ 0: round half up without a libm call
        }
    }

    /// `on_packet` of every (sent, arrived) pair in order, with the same result: the estimator
    /// runs first (its chain of J updates on its own), then the samples go to the statistics
    /// and the histogram in batches (`RunningStats::push_all`, `LogHistogram::record_all`).
    #[inline]
    pub fn on_packets(&mut self, packets: &[(Time, Time)]) {
        const BATCH: usize = 32;
        let mut estimator = self.estimator;
        for chunk in packets.chunks(BATCH) {
            let (mut js, mut n) = ([0.0; BATCH], 0);
            for &(sent, arrived) in chunk {
                if let Some(j) = estimator.update(sent, arrived) {
                    js[n] = j;
                    n += 1;
                }
            }
            self.samples.push_all(&js[..n]);
            self.hist.record_all(js[..n].iter().map(|&j| (j + 0.5) as u64));
        }
        self.estimator = estimator;
    }

    /// Current J in ns (0 before the second packet).
    pub fn current_ns(&self) -> f64 {
        self.estimator.j
    }

    /// Current J in ms (0 before the second packet).
    pub fn current_ms(&self) -> f64 {
        self.estimator.j / NS_PER_MS
    }

    /// Mean of all J samples in ms (exact; 0 with no sample).
    pub fn mean_ms(&self) -> f64 {
        self.samples.mean() / NS_PER_MS
    }

    /// Number of J samples (packets seen minus one, or 0).
    pub fn samples(&self) -> u64 {
        self.samples.count()
    }

    /// Distribution of the J samples, in ns.
    pub fn histogram(&self) -> &LogHistogram {
        &self.hist
    }

    /// Mean, std, min, max (exact) and p50, p95 (histogram) of the J samples, in ms.
    pub fn stats_ms(&self) -> Stats {
        Stats::from_running_and_histogram(&self.samples, &self.hist, 1.0 / NS_PER_MS)
    }

    /// Pools another stream's samples into this one's distribution (e.g. per-flow jitter into
    /// a group). The current J and last packet of `self` are kept.
    pub fn merge_samples(&mut self, other: &Rfc3550Jitter) {
        self.samples.merge(&other.samples);
        self.hist.merge(&other.hist);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn scripted_six_packets_match_the_rfc_formula_by_hand() {
        // Sent every 20 ms; transit 10, 12, 9, 15, 10, 10 ms, so D = 2, -3, 6, -5, 0 ms.
        // J1 = 0 + (2 ms - 0)/16               = 125 000 ns
        // J2 = J1 + (3 ms - J1)/16             = 304 687.5
        // J3 = J2 + (6 ms - J2)/16             = 660 644.531 25
        // J4 = J3 + (5 ms - J3)/16             = 931 854.248 046 875
        // J5 = J4 + (0 - J4)/16 = J4 · 15/16   = 873 613.357 543 945 312 5
        // All are dyadic rationals, exact in f64, so equality is exact.
        let sent = [0, 20, 40, 60, 80, 100];
        let arrived = [10, 32, 49, 75, 90, 110];
        let j3 = 21_140_625.0 / 32.0;
        let j4 = 477_109_375.0 / 512.0;
        let j5 = 7_156_640_625.0 / 8192.0;
        let expect = [125_000.0, 304_687.5, j3, j4, j5];
        let mut j = Rfc3550Jitter::new();
        j.on_packet(sent[0] * MS, arrived[0] * MS);
        assert_eq!((j.samples(), j.current_ms()), (0, 0.0));
        for i in 1..6 {
            j.on_packet(sent[i] * MS, arrived[i] * MS);
            assert_eq!(j.current_ns(), expect[i - 1], "J{i}");
        }
        assert_eq!(j.samples(), 5);
        // mean = (J1 + .. + J5)/5 = 23 722 390 625 / 8192 / 5 = 4 744 478 125 / 8192
        //      = 579 159.927 368 164 062 5 ns
        assert!((j.mean_ms() * 1e6 - 4_744_478_125.0 / 8192.0).abs() < 1e-6);
        let h = j.histogram();
        assert_eq!((h.count(), h.min(), h.max()), (5, 125_000, 931_854));
        let s = j.stats_ms();
        assert_eq!(s.count, 5);
        assert!((s.min - 0.125).abs() < 1e-15 && (s.max - j4 / 1e6).abs() < 1e-15);
    }

    #[test]
    fn constant_transit_time_gives_zero_jitter() {
        let mut j = Rfc3550Jitter::new();
        let mut t = 0;
        for i in 0..1000u64 {
            t += 1_000 + (i * 7919) % 5_000_000; // irregular sending, same 8 ms transit
            j.on_packet(t, t + 8 * MS);
        }
        assert_eq!((j.current_ms(), j.mean_ms(), j.samples()), (0.0, 0.0, 999));
        assert_eq!(j.histogram().max(), 0);
    }

    #[test]
    fn first_packet_only_initialises() {
        let mut j = Rfc3550Jitter::new();
        j.on_packet(5 * MS, 50 * MS);
        assert_eq!((j.samples(), j.histogram().count(), j.mean_ms()), (0, 0, 0.0));
    }

    #[test]
    fn reordered_arrivals_give_negative_d_counted_by_magnitude() {
        // Packet 2 was sent 1 ms after packet 1 but arrives 1 ms before it: D = -1 - 1 = -2 ms.
        let mut j = Rfc3550Jitter::new();
        j.on_packet(MS, 20 * MS);
        j.on_packet(2 * MS, 19 * MS);
        assert_eq!(j.current_ms(), 2.0 / 16.0);
    }

    #[test]
    fn alternating_transit_converges_to_the_difference() {
        // |D| is always 4 ms, so J → 4 ms geometrically: J_n = 4·(1 - (15/16)^n).
        let mut j = Rfc3550Jitter::new();
        for i in 0..400u64 {
            j.on_packet(i * MS, i * MS + if i % 2 == 0 { 10 * MS } else { 14 * MS });
        }
        assert!((j.current_ms() - 4.0 * (1.0 - (15.0f64 / 16.0).powi(399))).abs() < 1e-9);
        assert!((j.current_ms() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn merged_samples_pool_both_streams() {
        let (mut a, mut b) = (Rfc3550Jitter::new(), Rfc3550Jitter::new());
        for i in 0..10u64 {
            a.on_packet(i * MS, i * MS + 5 * MS);
            b.on_packet(i * MS, i * MS + (i % 2) * MS);
        }
        let b_mean = b.mean_ms();
        a.merge_samples(&b);
        assert_eq!(a.samples(), 18);
        assert!((a.mean_ms() - b_mean / 2.0).abs() < 1e-12);
    }

    proptest::proptest! {
        /// The batched path (`on_packets`, hence `RunningStats::push_all` and
        /// `LogHistogram::record_all`, spans grown both ways) ends in the state of `on_packet`
        /// called per packet: same J, same samples, same buckets, bit for bit.
        #[test]
        fn a_batch_is_the_packets_one_by_one(
            steps in proptest::collection::vec((0u64..5_000_000, 0u64..50_000_000), 0..200),
            split in 0usize..200,
        ) {
            let (mut sent, mut arrived, mut packets) = (0, 0, Vec::new());
            for (gap, transit) in steps {
                sent += gap;
                arrived = (sent + transit).max(arrived);
                packets.push((sent, arrived));
            }
            let mut one = Rfc3550Jitter::new();
            for &(s, r) in &packets {
                one.on_packet(s, r);
            }
            let mut batched = Rfc3550Jitter::new();
            let split = split.min(packets.len());
            batched.on_packets(&packets[..split]);
            batched.on_packets(&packets[split..]);
            proptest::prop_assert_eq!(one.estimator.j.to_bits(), batched.estimator.j.to_bits());
            proptest::prop_assert_eq!(one.samples, batched.samples);
            proptest::prop_assert!(one.hist == batched.hist);
        }
    }
}
