//! CoDel active queue management, RFC 8289 §5 (pseudocode in §5.4–5.7).
//!
//! CoDel acts at dequeue: it tracks whether the sojourn time of dequeued packets has stayed above
//! `target` for at least `interval`; if so it enters the dropping state and drops at intervals
//! shrinking with the inverse square root of the drop count (the control law, §5.6):
//! drop_next = t + interval / sqrt(count).
//! Interpretation: MAXPACKET (the "queue holds less than one MTU" escape of §5.5) is 1500 bytes.
//!
//! `CoDel` is the control state only; the packets wait in a `Fifo` the caller owns and passes
//! in, so the same discipline serves a link's transmitter and a shared-medium station.

use super::fifo::{Fifo, Queued};
use mptlab_engine::Time;

const MAX_PACKET: u64 = 1500;

pub struct CoDel {
    target: Time,
    interval: Time,
    first_above_time: Time,
    drop_next: Time,
    count: u32,
    last_count: u32,
    dropping: bool,
}

struct DoDequeue {
    packet: Option<Queued>,
    ok_to_drop: bool,
}

impl CoDel {
    pub fn new(target: Time, interval: Time) -> Self {
        Self { target, interval, first_above_time: 0, drop_next: 0, count: 0, last_count: 0, dropping: false }
    }

    /// Back to the initial state, keeping target and interval (Linux `codel_reset`).
    pub fn reset(&mut self) {
        *self = Self::new(self.target, self.interval);
    }

    pub fn is_dropping(&self) -> bool {
        self.dropping
    }

    fn control_law(&self, t: Time, count: u32) -> Time {
        t + (self.interval as f64 / (count.max(1) as f64).sqrt()) as Time
    }

    // RFC 8289 §5.5 dodequeue
    fn do_dequeue(&mut self, now: Time, fifo: &mut Fifo) -> DoDequeue {
        let Some(p) = fifo.pop() else {
            self.first_above_time = 0;
            return DoDequeue { packet: None, ok_to_drop: false };
        };
        let sojourn = now - p.enqueued_at;
        let mut ok_to_drop = false;
        if sojourn < self.target || fifo.bytes() <= MAX_PACKET {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        DoDequeue { packet: Some(p), ok_to_drop }
    }

    /// RFC 8289 §5.7 dequeue: the next packet of `fifo` to transmit, pushing any packets CoDel
    /// drops into `dropped`.
    pub fn dequeue(&mut self, now: Time, fifo: &mut Fifo, dropped: &mut Vec<Queued>) -> Option<Queued> {
        let mut r = self.do_dequeue(now, fifo);
        let Some(_) = r.packet else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !r.ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                dropped.push(r.packet.take().expect("packet present while dropping"));
                self.count += 1;
                r = self.do_dequeue(now, fifo);
                if r.packet.is_none() || !r.ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if r.ok_to_drop {
            dropped.push(r.packet.take().expect("packet present"));
            r = self.do_dequeue(now, fifo);
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.last_count);
            self.count = if delta > 1 && now.saturating_sub(self.drop_next) < 16 * self.interval { delta } else { 1 };
            self.drop_next = self.control_law(now, self.count);
            self.last_count = self.count;
        }
        r.packet
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MILLISECOND as MS;
    use mptlab_engine::Handle;

    fn pkt(i: u32, at: Time) -> Queued {
        Queued { handle: Handle(i), enqueued_at: at, size: 1500 }
    }

    #[test]
    fn short_sojourn_never_drops() {
        let mut c = CoDel::new(5 * MS, 100 * MS);
        let mut q = Fifo::new();
        let mut dropped = vec![];
        for i in 0..1000u32 {
            let t = i as Time * MS;
            q.push(pkt(i, t));
            q.push(pkt(i + 10_000, t));
            assert!(c.dequeue(t + MS, &mut q, &mut dropped).is_some());
            assert!(c.dequeue(t + MS, &mut q, &mut dropped).is_some());
        }
        assert!(dropped.is_empty());
    }

    #[test]
    fn persistent_queue_starts_dropping_after_one_interval_and_drop_rate_grows() {
        // A standing queue of 20 packets, each waiting 20 ms (> target), serviced every 1 ms.
        let mut c = CoDel::new(5 * MS, 100 * MS);
        let mut q = Fifo::new();
        let mut dropped = vec![];
        let mut next = 0u32;
        for _ in 0..20 {
            q.push(pkt(next, 0));
            next += 1;
        }
        let mut first_drop = None;
        let mut drops_per_100ms = vec![0u32; 6];
        for ms in 1..600u64 {
            let now = ms * MS;
            let before = dropped.len();
            c.dequeue(now, &mut q, &mut dropped);
            if dropped.len() > before && first_drop.is_none() {
                first_drop = Some(now);
            }
            drops_per_100ms[(ms / 100) as usize] += (dropped.len() - before) as u32;
            while q.len() < 20 {
                q.push(pkt(next, now.saturating_sub(20 * MS)));
                next += 1;
            }
        }
        // The packets queued at t=0 leave at 1, 2, ... ms; the one leaving at 5 ms is the first
        // whose sojourn reaches the target, so first_above_time = 5 + 100 ms (RFC 8289 §5.5) and
        // the first drop happens on the dequeue at 105 ms.
        let first = first_drop.expect("CoDel must drop");
        assert_eq!(first, 105 * MS, "first drop at {first}");
        assert!(drops_per_100ms[5] > drops_per_100ms[1], "{drops_per_100ms:?}");
    }
}
