//! RED, Random Early Detection: S. Floyd and V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM Transactions on Networking 1(4), 1993, §4 and Figure 2 (the
//! detailed algorithm). On every packet arrival:
//!
//!   avg ← (1 − w_q)·avg + w_q·q               while the queue is busy (q: packets waiting now)
//!   avg ← (1 − w_q)^m·avg, m = (now − q_time)/s   after an idle period that began at q_time
//!   min_th ≤ avg < max_th:  count ← count + 1;  p_b = max_p·(avg − min_th)/(max_th − min_th);
//!                           p_a = p_b/(1 − count·p_b);  drop with probability p_a, then count ← 0
//!   max_th ≤ avg:           drop, count ← 0
//!   avg < min_th:           count ← −1
//!
//! so that, with `avg` steady, the number of packets between drops is uniform (§7: the
//! product of the (1 − p_a) telescopes, P(gap = n) = p_b/(1 − p_b) for n = 1 … 1/p_b − 1).
//!
//! Gentle variant (S. Floyd, "Recommendation on using the gentle_ variant of RED", 2000, as
//! ns-2's `gentle_`): for max_th ≤ avg < 2·max_th, p_b = max_p + (1 − max_p)·(avg − max_th)/max_th
//! with the same count correction; forced drops only from 2·max_th.
//!
//! Interpretations: `q` is the number of packets (or bytes, when the thresholds are in bytes)
//! waiting for the transmitter, not counting the one being sent, like the hard limit. The queue
//! is idle when nothing waits and the transmitter is free (ns-2 and Linux start the idle period
//! when a dequeue finds the queue empty); `s`, the "typical transmission time of a small
//! packet", is the serialisation time of 1000 bytes at the current rate (the `avpkt` default of
//! Linux `tc red`). When count·p_b ≥ 1 the packet is dropped (ns-2 `modify_p`). Drops are
//! decided on arrival, so a FIFO link with RED still fixes each packet's start of transmission
//! when it is enqueued.

use crate::net::config::QueueLimit;
use mptlab_engine::time::serialization_time;
use mptlab_engine::{RngStream, Time};

/// Bytes of the typical small packet whose transmission time scales the idle decay.
const AVPKT: u64 = 1000;

/// RED's parameters: thresholds in the unit of the average (packets or bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub weight: f64,
    pub gentle: bool,
    /// The average counts bytes (thresholds given in bytes) rather than packets.
    pub in_bytes: bool,
}

impl RedParams {
    /// From resolved thresholds; `None` when they are not both packets or both bytes.
    pub fn new(min: QueueLimit, max: QueueLimit, max_p: f64, weight: f64, gentle: bool) -> Option<Self> {
        let (min_th, max_th, in_bytes) = match (min, max) {
            (QueueLimit::Packets(a), QueueLimit::Packets(b)) => (a, b, false),
            (QueueLimit::Bytes(a), QueueLimit::Bytes(b)) => (a, b, true),
            _ => return None,
        };
        Some(Self { min_th: min_th as f64, max_th: max_th as f64, max_p, weight, gentle, in_bytes })
    }

    /// The initial drop probability p_b for an average queue `avg` (1 where RED forces drops).
    pub fn base_probability(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        }
    }
}

/// The drop probability p_a = p_b/(1 − count·p_b) of a packet arriving `count` packets after the
/// last drop (1 once count·p_b ≥ 1).
pub fn drop_probability(p_b: f64, count: i64) -> f64 {
    let d = 1.0 - count as f64 * p_b;
    if d <= 0.0 {
        1.0
    } else {
        (p_b / d).min(1.0)
    }
}

pub struct Red {
    params: RedParams,
    avg: f64,
    /// Packets since the last drop while avg was at or above min_th (−1: below it).
    count: i64,
    rng: RngStream,
}

impl Red {
    pub fn new(params: RedParams, rng: RngStream) -> Self {
        Self { params, avg: 0.0, count: -1, rng }
    }

    pub fn params(&self) -> &RedParams {
        &self.params
    }

    /// The average queue after the last arrival.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Forget the average and the count (Linux `red_restart`, on a qdisc reset).
    pub fn reset(&mut self) {
        self.avg = 0.0;
        self.count = -1;
    }

    /// Update the average for an arrival at `now` that finds `pkts` packets (`bytes` bytes)
    /// waiting; `idle_since` is when the queue went idle, if it is idle.
    #[inline]
    fn update_average(&mut self, now: Time, pkts: u64, bytes: u64, idle_since: Option<Time>, rate_bps: u64) {
        let w = self.params.weight;
        match idle_since {
            Some(since) => {
                let s = serialization_time(AVPKT, rate_bps.max(1)).max(1);
                let m = now.saturating_sub(since) as f64 / s as f64;
                self.avg *= (1.0 - w).powf(m);
            }
            None => {
                let q = if self.params.in_bytes { bytes } else { pkts } as f64;
                self.avg += w * (q - self.avg);
            }
        }
    }

    /// RED's decision for a packet arriving at `now`: true to drop it early. `pkts` and `bytes`
    /// are what waits for the transmitter, `idle_since` when the queue went idle (if it is),
    /// `rate_bps` the transmitter's rate (for the idle decay).
    #[inline]
    pub fn drops_arrival(&mut self, now: Time, pkts: u64, bytes: u64, idle_since: Option<Time>, rate_bps: u64) -> bool {
        self.update_average(now, pkts, bytes, idle_since, rate_bps);
        let p_b = self.params.base_probability(self.avg);
        if p_b <= 0.0 {
            self.count = -1;
            return false;
        }
        if p_b >= 1.0 {
            self.count = 0;
            return true;
        }
        self.count += 1;
        let drop = self.rng.uniform() < drop_probability(p_b, self.count);
        if drop {
            self.count = 0;
        }
        drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;
    use mptlab_engine::StreamId;

    fn red(min: u64, max: u64, max_p: f64, weight: f64, gentle: bool) -> Red {
        let p = RedParams::new(QueueLimit::Packets(min), QueueLimit::Packets(max), max_p, weight, gentle).unwrap();
        Red::new(p, RngStream::new(7, StreamId::new(9, 1)))
    }

    #[test]
    fn base_probability_follows_the_paper_and_the_gentle_ramp() {
        let p = RedParams::new(QueueLimit::Packets(5), QueueLimit::Packets(15), 0.1, 0.002, false).unwrap();
        assert_eq!(p.base_probability(4.99), 0.0);
        assert_eq!(p.base_probability(5.0), 0.0);
        assert!((p.base_probability(10.0) - 0.05).abs() < 1e-12);
        assert_eq!(p.base_probability(15.0), 1.0);
        let g = RedParams { gentle: true, ..p };
        assert!((g.base_probability(15.0) - 0.1).abs() < 1e-12);
        // Halfway between max_th and 2·max_th: max_p + (1 − max_p)/2.
        assert!((g.base_probability(22.5) - 0.55).abs() < 1e-12);
        assert_eq!(g.base_probability(30.0), 1.0);
    }

    #[test]
    fn drop_probability_is_p_b_over_one_minus_count_p_b() {
        assert!((drop_probability(0.1, 0) - 0.1).abs() < 1e-12);
        assert!((drop_probability(0.1, 5) - 0.2).abs() < 1e-12);
        assert!((drop_probability(0.1, 9) - 1.0).abs() < 1e-12);
        assert_eq!(drop_probability(0.1, 10), 1.0);
        assert_eq!(drop_probability(0.1, 50), 1.0);
    }

    #[test]
    fn average_is_the_paper_ewma_of_the_instantaneous_queue() {
        let mut r = red(1000, 2000, 0.1, 0.002, false);
        for _ in 0..500 {
            r.drops_arrival(0, 10, 15_000, None, 10_000_000);
        }
        let expected = 10.0 * (1.0 - (1.0f64 - 0.002).powi(500));
        assert!((r.avg() - expected).abs() < 1e-9, "{} vs {expected}", r.avg());
    }

    #[test]
    fn idle_period_decays_the_average_as_if_m_empty_arrivals() {
        // 10 Mbit/s: a 1000 B packet takes 0.8 ms, so 8 ms idle is m = 10.
        let mut r = red(1000, 2000, 0.1, 0.01, false);
        r.avg = 50.0;
        r.drops_arrival(8 * MS, 0, 0, Some(0), 10_000_000);
        let expected = 50.0 * 0.99f64.powi(10);
        assert!((r.avg() - expected).abs() < 1e-9, "{} vs {expected}", r.avg());
    }

    #[test]
    fn steady_average_spaces_drops_uniformly_below_one_over_p_b() {
        // With avg held at 10 (w_q = 1), p_b = 0.05: the gap between drops is uniform on
        // 1..=19 (P = p_b/(1 − p_b) each), mean 1/(2·p_b) = 10 (Floyd & Jacobson 1993, §7).
        let mut r = red(5, 15, 0.1, 1.0, false);
        let (mut gaps, mut since, mut hist) = (Vec::new(), 0usize, [0u32; 21]);
        for _ in 0..400_000 {
            since += 1;
            if r.drops_arrival(0, 10, 0, None, 10_000_000) {
                gaps.push(since);
                hist[since.min(20)] += 1;
                since = 0;
            }
        }
        assert!(gaps.iter().all(|&g| (1..=19).contains(&g)), "{hist:?}");
        let mean = gaps.iter().sum::<usize>() as f64 / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.1, "mean gap {mean}");
        let per_bin = gaps.len() as f64 / 19.0;
        for (g, &n) in hist.iter().enumerate().take(20).skip(1) {
            assert!((n as f64 - per_bin).abs() < 0.1 * per_bin, "gap {g}: {n} vs {per_bin}");
        }
    }

    #[test]
    fn invariant_never_drops_below_min_always_drops_past_the_ramp() {
        let mut r = red(5, 15, 0.1, 1.0, true);
        for q in 0..5 {
            for _ in 0..1000 {
                assert!(!r.drops_arrival(0, q, 0, None, 1_000_000));
            }
        }
        for q in [30, 40, 1000] {
            for _ in 0..1000 {
                assert!(r.drops_arrival(0, q, 0, None, 1_000_000));
            }
        }
        let mut hard = red(5, 15, 0.1, 1.0, false);
        for _ in 0..1000 {
            assert!(hard.drops_arrival(0, 15, 0, None, 1_000_000));
        }
    }

    #[test]
    fn mixed_threshold_units_are_refused() {
        assert!(RedParams::new(QueueLimit::Packets(5), QueueLimit::Bytes(15_000), 0.1, 0.002, true).is_none());
    }
}
