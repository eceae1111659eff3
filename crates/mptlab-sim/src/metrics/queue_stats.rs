//! QueueStats: per-link queue counters and queueing delay. Queueing delay (sojourn) is the time
//! from a packet's enqueue to the start of its transmission (the CoDel definition, RFC 8289
//! §4.2, without the transmission time). Mean queue length is time-weighted: the area under the
//! queue-length step curve divided by elapsed time (queue empty at t = 0). Drop percentage is
//! drops / (transmitted + dropped): the share of packets that left the queue by being dropped,
//! whether on arrival (tail drop, RED) or later (CoDel head drop). Channel losses after
//! transmission are counted apart and are not part of the queue's drop percentage.

use mptlab_engine::Time;

use super::histogram::LogHistogram;
use super::stats::{u64_to_f64, RunningStats, Stats};

const NS_PER_MS: f64 = 1e6;

/// `repr(C)`: what every packet updates first (counters, the length curve, the delay's running
/// statistics), drops and the histogram after (see `net::link::Link`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct QueueStats {
    enq_pkts: u64,
    enq_bytes: u64,
    sent_pkts: u64,
    sent_bytes: u64,
    // Queue-length step curve.
    last_t: Time,
    cur_pkts: u64,
    cur_bytes: u64,
    max_pkts: u64,
    max_bytes: u64,
    /// Is the queueing-delay distribution kept (a detailed link)? Otherwise only its running
    /// statistics: no per-packet touch of the histogram's buckets.
    no_histogram: bool,
    area_pkts: u128,  // packet·ns
    area_bytes: u128, // byte·ns
    delay_stats: RunningStats,
    drop_pkts: u64,
    drop_bytes: u64,
    chan_loss_pkts: u64,
    chan_loss_bytes: u64,
    delay: LogHistogram,
}

impl QueueStats {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counters and running statistics only: no queueing-delay distribution (its percentiles
    /// are unknown; `delay_histogram` stays empty).
    pub fn without_histogram() -> Self {
        Self { no_histogram: true, ..Self::default() }
    }

    /// A packet was accepted into the queue.
    #[inline]
    pub fn on_enqueue(&mut self, bytes: u64) {
        self.enq_pkts += 1;
        self.enq_bytes += bytes;
    }

    /// A packet was discarded by the queue (on arrival or by AQM after enqueue).
    #[inline]
    pub fn on_drop(&mut self, bytes: u64) {
        self.drop_pkts += 1;
        self.drop_bytes += bytes;
    }

    /// A transmitted packet was lost on the channel (random or wireless loss), after the queue.
    #[inline]
    pub fn on_channel_loss(&mut self, bytes: u64) {
        self.chan_loss_pkts += 1;
        self.chan_loss_bytes += bytes;
    }

    /// A packet left the queue to start transmission at `now` after `sojourn` ns in the queue.
    #[inline]
    pub fn on_dequeue(&mut self, now: Time, sojourn: Time, bytes: u64) {
        debug_assert!(sojourn <= now, "sojourn longer than the run so far");
        self.sent_pkts += 1;
        self.sent_bytes += bytes;
        if !self.no_histogram {
            self.delay.record(sojourn);
        }
        self.delay_stats.push(u64_to_f64(sojourn));
    }

    /// The queue holds `packets` / `bytes` from `now` on. Call at every change; O(1).
    #[inline]
    pub fn sample_len(&mut self, now: Time, packets: u64, bytes: u64) {
        debug_assert!(now >= self.last_t, "time went back");
        let dt = now.saturating_sub(self.last_t) as u128;
        self.area_pkts += self.cur_pkts as u128 * dt;
        self.area_bytes += self.cur_bytes as u128 * dt;
        self.last_t = self.last_t.max(now);
        self.cur_pkts = packets;
        self.cur_bytes = bytes;
        self.max_pkts = self.max_pkts.max(packets);
        self.max_bytes = self.max_bytes.max(bytes);
    }

    pub fn enqueued_packets(&self) -> u64 {
        self.enq_pkts
    }
    pub fn enqueued_bytes(&self) -> u64 {
        self.enq_bytes
    }
    pub fn sent_packets(&self) -> u64 {
        self.sent_pkts
    }
    pub fn sent_bytes(&self) -> u64 {
        self.sent_bytes
    }
    pub fn drops(&self) -> u64 {
        self.drop_pkts
    }
    pub fn dropped_bytes(&self) -> u64 {
        self.drop_bytes
    }
    pub fn channel_losses(&self) -> u64 {
        self.chan_loss_pkts
    }
    pub fn channel_lost_bytes(&self) -> u64 {
        self.chan_loss_bytes
    }
    pub fn max_len_packets(&self) -> u64 {
        self.max_pkts
    }
    pub fn max_len_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// 100 · drops / (sent + drops); 0 when nothing left the queue.
    pub fn drop_pct(&self) -> f64 {
        let n = self.sent_pkts + self.drop_pkts;
        if n == 0 {
            0.0
        } else {
            100.0 * self.drop_pkts as f64 / n as f64
        }
    }

    /// Queueing delay at quantile `q` in ms (histogram bucket midpoint).
    pub fn delay_quantile_ms(&self, q: f64) -> f64 {
        self.delay.quantile(q) / NS_PER_MS
    }
    /// Exact mean queueing delay in ms.
    pub fn delay_mean_ms(&self) -> f64 {
        self.delay.mean() / NS_PER_MS
    }
    pub fn delay_stats_ms(&self) -> Stats {
        Stats::from_running_and_histogram(&self.delay_stats, &self.delay, 1.0 / NS_PER_MS)
    }
    /// Running statistics of the queueing delay in ns (kept with or without the histogram).
    pub fn delay_running(&self) -> &RunningStats {
        &self.delay_stats
    }
    /// Queueing-delay distribution in ns.
    pub fn delay_histogram(&self) -> &LogHistogram {
        &self.delay
    }

    /// Time-weighted mean queue length in packets over [0, end]; the last sampled length holds
    /// until `end` (use the run's end). 0 if `end` is 0.
    pub fn mean_len_packets(&self, end: Time) -> f64 {
        self.mean_len(self.area_pkts, self.cur_pkts, end)
    }
    /// Time-weighted mean queue length in bytes over [0, end].
    pub fn mean_len_bytes(&self, end: Time) -> f64 {
        self.mean_len(self.area_bytes, self.cur_bytes, end)
    }
    fn mean_len(&self, area: u128, cur: u64, end: Time) -> f64 {
        let end = end.max(self.last_t);
        if end == 0 {
            return 0.0;
        }
        (area + cur as u128 * (end - self.last_t) as u128) as f64 / end as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    #[test]
    fn counters_and_drop_percentage_count_packets_leaving_the_queue() {
        let mut q = QueueStats::new();
        for i in 0..9u64 {
            q.on_enqueue(1500);
            q.on_dequeue(i * MS, 0, 1500);
        }
        q.on_drop(1500); // tail drop
        q.on_channel_loss(1500);
        assert_eq!((q.enqueued_packets(), q.sent_packets(), q.sent_bytes()), (9, 9, 13_500));
        assert_eq!((q.drops(), q.dropped_bytes(), q.channel_losses()), (1, 1500, 1));
        assert_eq!(q.drop_pct(), 10.0);
        assert_eq!(QueueStats::new().drop_pct(), 0.0);
        let mut lean = QueueStats::without_histogram();
        lean.on_dequeue(10, 5, 100);
        assert_eq!((lean.delay_histogram().count(), lean.delay_stats_ms().count), (0, 1), "running statistics only");
    }

    #[test]
    fn queueing_delay_statistics_are_in_milliseconds() {
        let mut q = QueueStats::new();
        for (i, d) in [1u64, 2, 3, 4].iter().enumerate() {
            q.on_dequeue(10 * MS + i as u64, d * MS, 100);
        }
        assert!((q.delay_mean_ms() - 2.5).abs() < 1e-12);
        let s = q.delay_stats_ms();
        assert_eq!(s.count, 4);
        assert!((s.min - 1.0).abs() < 1e-12 && (s.max - 4.0).abs() < 1e-12);
        assert!((q.delay_quantile_ms(0.5) - 2.0).abs() / 2.0 < 0.035);
        assert_eq!(q.delay_quantile_ms(1.0), 4.0);
    }

    #[test]
    fn mean_queue_length_is_the_time_weighted_average() {
        // Empty for 10 ms, 4 packets for 10 ms, 2 packets for 20 ms, empty for 20 ms: area
        // 40 + 40 = 80 packet·ms over 60 ms.
        let mut q = QueueStats::new();
        q.sample_len(10 * MS, 4, 6000);
        q.sample_len(20 * MS, 2, 3000);
        q.sample_len(40 * MS, 0, 0);
        assert!((q.mean_len_packets(60 * MS) - 80.0 / 60.0).abs() < 1e-12);
        assert!((q.mean_len_bytes(60 * MS) - 120_000.0 / 60.0).abs() < 1e-9);
        assert_eq!((q.max_len_packets(), q.max_len_bytes()), (4, 6000));
    }

    #[test]
    fn last_sampled_length_holds_until_the_end_time() {
        let mut q = QueueStats::new();
        q.sample_len(0, 3, 300);
        assert_eq!(q.mean_len_packets(50 * MS), 3.0);
        assert_eq!(QueueStats::new().mean_len_packets(0), 0.0);
    }
}
