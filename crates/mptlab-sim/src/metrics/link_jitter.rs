//! Link jitter, two definitions, each for the whole link direction and per flow group (issue
//! 21; seed 000 reports "link-level" and "protocol-specific" jitter per backhaul link without a
//! formula, study notes §2.2(c), A11). Both use the RFC 3550 §6.4.1 estimator
//! (J += (|D| − J)/16, `jitter::JitterEstimator`) on the data packets arriving at the far end of
//! the link, with S = the packet's send time at its sender and R = its arrival at the far end:
//!
//! - merged stream: one estimator over all data packets of the link in arrival order, and one
//!   per group over that group's packets. Consecutive packets of a FIFO link see nearly the
//!   same queue, so this J stays small even when each sender's delay varies a lot.
//! - per subflow: one estimator per (flow, path, direction) stream crossing the link (kept by
//!   the caller, found without hashing); the samples of all streams are pooled for the link and
//!   for each group. This J reflects one sender's delay variation.
//!
//! Every J sample (one per arrival but a stream's first) goes into a `JitterSamples`.

use mptlab_engine::Time;

use super::jitter::JitterEstimator;
use super::jitter_samples::JitterSamples;

/// Merged-stream estimator and its samples, with the pooled per-subflow samples.
#[derive(Clone, Debug)]
pub struct JitterPair {
    merged: JitterEstimator,
    pub merged_samples: JitterSamples,
    pub subflow_samples: JitterSamples,
}

impl JitterPair {
    fn new(every: Time, duration: Time) -> Self {
        JitterPair {
            merged: JitterEstimator::default(),
            merged_samples: JitterSamples::new(every, duration),
            subflow_samples: JitterSamples::new(every, duration),
        }
    }

    #[inline]
    fn on_packet(&mut self, sent: Time, arrived: Time, subflow_j: Option<f64>) {
        if let Some(j) = self.merged.update(sent, arrived) {
            self.merged_samples.record(arrived, j);
        }
        if let Some(j) = subflow_j {
            self.subflow_samples.record(arrived, j);
        }
    }
}

/// The jitter of one link direction: the whole link and each group (by group index).
#[derive(Clone, Debug)]
pub struct LinkJitter {
    pub link: JitterPair,
    pub groups: Vec<JitterPair>,
}

impl LinkJitter {
    /// `groups`: number of flow groups; `every`: interval of the exported series.
    pub fn new(groups: usize, every: Time, duration: Time) -> Self {
        LinkJitter { link: JitterPair::new(every, duration), groups: (0..groups).map(|_| JitterPair::new(every, duration)).collect() }
    }

    /// A data packet of group `group` sent at `sent` reached the far end at `arrived`;
    /// `subflow` is the estimator of its (flow, path, direction) stream on this link.
    #[inline]
    pub fn on_packet(&mut self, group: u16, sent: Time, arrived: Time, subflow: &mut JitterEstimator) {
        let j = subflow.update(sent, arrived);
        self.link.on_packet(sent, arrived, j);
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.on_packet(sent, arrived, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// Two streams (two subflows of one group) interleaved on a link, each sent every 2 ms with
    /// a constant transit time of its own: A (sent at 0, 2, 4, …) takes 10 ms, B (sent at 1,
    /// 3, 5, …) takes 13 ms. Arrival order is A0 (10), A1 (12), B0 (14), A2 (14), …: from the
    /// fourth arrival on the merged stream alternates B then A, and each consecutive pair has
    /// |D| = 3 ms, so merged J climbs towards 3 ms; each subflow's D is always 0, so per-subflow
    /// J stays 0.
    #[test]
    fn interleaved_streams_with_constant_transit_merged_grows_per_subflow_stays_zero() {
        let mut lj = LinkJitter::new(1, 100 * MS, 10_000 * MS);
        let (mut a, mut b) = (JitterEstimator::default(), JitterEstimator::default());
        let mut arrivals: Vec<(Time, Time, bool)> = Vec::new(); // (arrival, sent, is_a)
        for i in 0..200u64 {
            arrivals.push((2 * i * MS + 10 * MS, 2 * i * MS, true));
            arrivals.push(((2 * i + 1) * MS + 13 * MS, (2 * i + 1) * MS, false));
        }
        // Arrival order; ties (B_k with A_{k+2}) in sending order, B first as it was sent first.
        arrivals.sort_by_key(|&(r, s, _)| (r, s));
        for &(r, s, is_a) in &arrivals {
            lj.on_packet(0, s, r, if is_a { &mut a } else { &mut b });
        }
        let sub = lj.link.subflow_samples.stats_ms().unwrap();
        assert_eq!((sub.count, sub.max), (398, 0.0), "two streams of 200: 199 samples each");
        let merged = lj.link.merged_samples.stats_ms().unwrap();
        assert_eq!(merged.count, 399);
        // Hand computation: arrivals A0 (S 0, R 10), A1 (2, 12), B0 (1, 14), A2 (4, 14), B1 (3,
        // 16), …, A199 (398, 408), B198 (397, 410), B199 (399, 412). D(A0,A1) = 0; then
        // D = (14−12)−(1−2) = 3, (14−14)−(4−1) = −3, … alternately ±3 ms up to (B198); the last
        // pair (B198, B199) is one stream again: D = 0. So |D| = 0, then 3 ms 397 times, then 0:
        // J = 0, 3/16, 3/16 + (3 − 3/16)/16, … (→ 3 ms), then J·15/16.
        let d = std::iter::once(0.0).chain(std::iter::repeat_n(3.0, 397)).chain(std::iter::once(0.0));
        let js: Vec<f64> = d
            .scan(0.0, |j: &mut f64, d| {
                *j += (d - *j) / 16.0;
                Some(*j)
            })
            .collect();
        assert_eq!((js[1], js[2]), (3.0 / 16.0, 3.0 / 16.0 + (3.0 - 3.0 / 16.0) / 16.0));
        let mean = js.iter().sum::<f64>() / 399.0;
        assert_eq!(merged.min, 0.0);
        assert!((merged.max - js[397]).abs() < 1e-9 && merged.max < 3.0 && merged.max > 2.99, "{}", merged.max);
        assert!((merged.mean - mean).abs() < 1e-9, "{} vs {mean}", merged.mean);
        // The group's pools are the link's (one group).
        assert_eq!(lj.groups[0].merged_samples.stats_ms(), Some(merged));
        assert_eq!(lj.groups[0].subflow_samples.stats_ms(), Some(sub));
    }

    /// Two groups on one link: each group's merged stream is its own packets only; per-subflow
    /// samples go to the link pool and to their group's.
    #[test]
    fn groups_pool_their_own_streams() {
        let mut lj = LinkJitter::new(2, 100 * MS, 1_000 * MS);
        let (mut a, mut b) = (JitterEstimator::default(), JitterEstimator::default());
        // Group 0 (stream a): transit 5, 7, 5 ms, sent every 10 ms: D = 2, −2 ms →
        // J = 2/16, 2/16 + (2 − 2/16)/16 = 0.125, 0.2421875 ms.
        // Group 1 (stream b): constant 20 ms transit → J = 0.
        for i in 0..3u64 {
            lj.on_packet(0, 10 * i * MS, 10 * i * MS + [5, 7, 5][i as usize] * MS, &mut a);
            lj.on_packet(1, 10 * i * MS + MS, 10 * i * MS + 21 * MS, &mut b);
        }
        let g0 = lj.groups[0].merged_samples.stats_ms().unwrap();
        assert_eq!((g0.count, g0.min, g0.max), (2, 0.125, 0.2421875));
        assert_eq!(lj.groups[0].subflow_samples.stats_ms(), Some(g0), "one stream: merged = per subflow");
        let g1 = lj.groups[1].subflow_samples.stats_ms().unwrap();
        assert_eq!((g1.count, g1.max), (2, 0.0));
        let sub = lj.link.subflow_samples.stats_ms().unwrap();
        assert_eq!((sub.count, sub.max), (4, 0.2421875));
        assert!((sub.mean - (0.125 + 0.2421875) / 4.0).abs() < 1e-12);
        assert_eq!(lj.link.merged_samples.count(), 5);
    }
}
