//! A transmitter: serialises one packet at a time at its rate. It only answers when a packet
//! offered at some time can start and when its transmission ends; who decides *when* to offer
//! (a FIFO link at enqueue, a queue when the transmitter frees up, a station after winning the
//! medium) is the caller's business, so the start of a transmission can be decided later than
//! the packet's arrival.

use mptlab_engine::time::serialization_time;
use mptlab_engine::Time;

pub struct Transmitter {
    rate_bps: u64,
    busy_until: Time,
    /// Serialisation times of the two most recent packet sizes (data and ACK sizes repeat), so
    /// the 128-bit division runs only when a new size appears.
    tx_cache: [(u32, Time); 2],
}

impl Transmitter {
    pub fn new(rate_bps: u64) -> Self {
        Self { rate_bps, busy_until: 0, tx_cache: [(0, 0); 2] }
    }

    #[inline]
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// Packets sent from now on are serialised at `rate_bps`.
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.tx_cache = [(0, 0); 2];
    }

    /// When the packet being sent (if any) ends.
    #[inline]
    pub fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// The earliest start of a transmission offered at `now` (work-conserving FIFO order).
    #[inline]
    pub fn next_start(&self, now: Time) -> Time {
        now.max(self.busy_until)
    }

    /// Transmission time of `size` bytes at the current rate.
    #[inline]
    pub fn serialization(&mut self, size: u32) -> Time {
        if self.tx_cache[0].0 == size {
            return self.tx_cache[0].1;
        }
        if self.tx_cache[1].0 == size {
            self.tx_cache.swap(0, 1);
            return self.tx_cache[0].1;
        }
        let t = serialization_time(size as u64, self.rate_bps);
        self.tx_cache[1] = self.tx_cache[0];
        self.tx_cache[0] = (size, t);
        t
    }

    /// Send `size` bytes starting at `start` (no earlier than `busy_until`); returns when the
    /// transmission ends.
    #[inline]
    pub fn send(&mut self, start: Time, size: u32) -> Time {
        let end = start + self.serialization(size);
        self.busy_until = end;
        end
    }

    /// Stop at `now`: transmissions scheduled beyond it are abandoned.
    pub fn abort(&mut self, now: Time) {
        self.busy_until = self.busy_until.min(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mptlab_engine::time::MICROSECOND as US;

    #[test]
    fn back_to_back_packets_start_when_the_previous_one_ends() {
        let mut tx = Transmitter::new(12_000_000); // 1500 B in 1 ms
        let end = tx.send(tx.next_start(0), 1500);
        assert_eq!(end, 1000 * US);
        assert_eq!(tx.next_start(10 * US), end);
        assert_eq!(tx.send(tx.next_start(10 * US), 1500), 2000 * US);
        assert_eq!(tx.next_start(5000 * US), 5000 * US);
    }

    #[test]
    fn rate_change_applies_to_the_next_packet_and_abort_frees_it() {
        let mut tx = Transmitter::new(12_000_000);
        assert_eq!(tx.serialization(1500), 1000 * US);
        tx.set_rate(24_000_000);
        assert_eq!(tx.serialization(1500), 500 * US);
        tx.send(0, 1500);
        tx.abort(100 * US);
        assert_eq!(tx.busy_until(), 100 * US);
    }
}
