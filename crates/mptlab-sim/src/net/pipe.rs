//! The propagation pipe of a link direction: packets from the start of their transmission to
//! their arrival at the far end, in arrival order (one fixed delay keeps FIFO order).
//!
//! On a link whose queue decides on arrival, a packet enters the pipe when it is enqueued, with
//! the start of transmission its FIFO transmitter will give it; entries whose start lies in the
//! future are the queue. The pipe counts them lazily (`advance`): entries `[0, waiting_from)`
//! have started transmission.

use crate::metrics::QueueStats;
use mptlab_engine::{Handle, Time};

#[derive(Clone, Copy, Debug)]
pub struct InPipe {
    pub handle: Handle,
    pub size: u32,
    pub tx_start: Time,
    pub arrival: Time,
    /// Lost on the channel: still occupies the queue and the transmitter, never delivered.
    pub lost: bool,
    /// Lost because the link went down (then `lost` is set too).
    pub down: bool,
}

pub struct Pipe {
    packets: Ring<InPipe>,
    waiting_from: usize,
    waiting_pkts: u64,
    waiting_bytes: u64,
}

impl Pipe {
    /// Starts empty and grows with the packets it holds: a reserved ring becomes resident page
    /// by page as it turns, which for W5's 24,000 access-link directions was 786 MB.
    pub fn new() -> Self {
        Self { packets: Ring::new(), waiting_from: 0, waiting_pkts: 0, waiting_bytes: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.packets.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    #[inline]
    pub fn front(&self) -> Option<&InPipe> {
        self.packets.get(0)
    }

    /// The entry pushed last (a parallel run's hand-over reads its arrival: `Link::last_accepted`).
    pub fn back(&self) -> Option<&InPipe> {
        self.packets.get(self.packets.len().wrapping_sub(1))
    }

    /// Packets (and bytes) in the pipe whose transmission had not started at the last `advance`.
    #[inline]
    pub fn waiting(&self) -> (u64, u64) {
        (self.waiting_pkts, self.waiting_bytes)
    }

    /// Append an entry. Written field by field into its slot: built whole on the stack and
    /// copied, its narrow fields' stores reached the 16-byte copy's loads through a failed
    /// store-to-load forwarding, a stall on every transmission (6 % of W6 by perf).
    #[inline]
    pub fn push(&mut self, handle: Handle, size: u32, tx_start: Time, arrival: Time, lost: bool, down: bool) {
        let slot = self.packets.push_back_slot(InPipe { handle, size, tx_start, arrival, lost, down });
        slot.handle = handle;
        slot.size = size;
        slot.tx_start = tx_start;
        slot.arrival = arrival;
        slot.lost = lost;
        slot.down = down;
    }

    /// Count the entry just pushed as waiting for the transmitter (its start is in the future).
    #[inline]
    pub fn mark_last_waiting(&mut self, size: u32) {
        self.waiting_pkts += 1;
        self.waiting_bytes += size as u64;
    }

    /// The transmitter was idle when the last entry was pushed, so every entry has started.
    #[inline]
    pub fn mark_all_started(&mut self) {
        self.waiting_from = self.packets.len();
    }

    /// Account for entries whose transmission has started by `now`, sampling the queue length
    /// at each start.
    #[inline]
    pub fn advance(&mut self, now: Time, stats: &mut QueueStats) {
        while let Some(p) = self.packets.get(self.waiting_from) {
            if p.tx_start > now {
                break;
            }
            self.waiting_from += 1;
            self.waiting_pkts -= 1;
            self.waiting_bytes -= p.size as u64;
            stats.sample_len(p.tx_start, self.waiting_pkts, self.waiting_bytes);
        }
    }

    /// Pop the head (the caller has checked it has arrived).
    #[inline]
    pub fn pop_front(&mut self) -> Option<InPipe> {
        let head = self.packets.pop_front();
        self.waiting_from = self.waiting_from.saturating_sub(1);
        head
    }

    /// Entries from the tail back, for losing those still inside the link.
    pub fn iter_mut_rev(&mut self) -> impl Iterator<Item = &mut InPipe> {
        self.packets.iter_mut_rev()
    }

    /// Nothing waits any more (the link went down and lost its queue).
    pub fn clear_waiting(&mut self) {
        self.waiting_from = self.packets.len();
        self.waiting_pkts = 0;
        self.waiting_bytes = 0;
    }
}

/// A FIFO ring whose capacity is a power of two: an entry's slot is found with a mask, where
/// `VecDeque` compares and wraps on every access (the pipe is touched several times per packet).
/// The front entry lives inline (`first`), the rest in the ring buffer, which starts without
/// storage and doubles when full: a pipe holding one packet, the usual state of W5's 24,000
/// access-link directions, touches no heap memory when its packet arrives (a cache miss saved
/// per arrival; a long pipe pays one entry copy per pop).
struct Ring<T> {
    /// Entry 0, present exactly when `len > 0`.
    first: Option<T>,
    /// Entries `1..len`, from `head`. Every slot holds a value (stale ones outside the entries),
    /// so `buf.len()` is the capacity.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Ring<T> {
    fn new() -> Self {
        Self { first: None, buf: Vec::new(), head: 0, len: 0 }
    }

    /// Slot of entry `i ≥ 1`.
    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i - 1) & (self.buf.len() - 1)
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entry `i` from the front.
    #[inline]
    fn get(&self, i: usize) -> Option<&T> {
        if i == 0 {
            self.first.as_ref()
        } else if i < self.len {
            Some(&self.buf[self.slot(i)])
        } else {
            None
        }
    }

    #[cfg(test)]
    fn push_back(&mut self, value: T) {
        *self.push_back_slot(value) = value;
    }

    /// A new entry at the back, holding `fill` or a stale value for the caller to overwrite
    /// (the hot path writes the fields itself: see `Pipe::push`).
    #[inline]
    fn push_back_slot(&mut self, fill: T) -> &mut T {
        if self.len == 0 {
            self.len = 1;
            return self.first.insert(fill);
        }
        if self.len - 1 == self.buf.len() {
            self.grow(fill);
        }
        let i = self.slot(self.len);
        self.len += 1;
        &mut self.buf[i]
    }

    #[inline]
    fn pop_front(&mut self) -> Option<T> {
        let value = self.first.take()?;
        self.len -= 1;
        if self.len > 0 {
            self.first = Some(self.buf[self.head]);
            self.head = (self.head + 1) & (self.buf.len() - 1);
        }
        Some(value)
    }

    /// Double the buffer's capacity (at least 16), entries moved to its front in order; `fill`
    /// fills the free slots.
    #[cold]
    fn grow(&mut self, fill: T) {
        let cap = (2 * self.buf.len()).max(16);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((1..self.len).map(|i| self.buf[self.slot(i)]));
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
    }

    /// Entries from the back to the front.
    fn iter_mut_rev(&mut self) -> impl Iterator<Item = &mut T> {
        let (head, rest, cap) = (self.head, self.len.saturating_sub(1), self.buf.len());
        let (unwrapped, wrapped): (&mut [T], &mut [T]) = if head + rest <= cap {
            (&mut self.buf[head..head + rest], &mut [])
        } else {
            let (lo, hi) = self.buf.split_at_mut(head);
            (hi, &mut lo[..head + rest - cap])
        };
        unwrapped.iter_mut().chain(wrapped.iter_mut()).rev().chain(self.first.iter_mut())
    }
}

impl Default for Pipe {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    #[test]
    fn ring_keeps_fifo_order_across_wraps_and_growth() {
        let mut r = Ring::new();
        let mut model = std::collections::VecDeque::new();
        for round in 0..200u32 {
            // Push more than pop on average, so the ring wraps and grows several times.
            for k in 0..(round % 7) {
                r.push_back(round * 10 + k);
                model.push_back(round * 10 + k);
            }
            for _ in 0..(round % 5) {
                assert_eq!(r.pop_front(), model.pop_front());
            }
            assert_eq!(r.len(), model.len());
            assert_eq!(r.is_empty(), model.is_empty());
            assert_eq!(r.get(0), model.front());
            assert_eq!(r.get(r.len()), None);
            let rev: Vec<u32> = r.iter_mut_rev().map(|x| *x).collect();
            assert_eq!(rev, model.iter().rev().copied().collect::<Vec<_>>());
        }
        for x in r.iter_mut_rev() {
            *x += 1;
        }
        assert_eq!(r.get(1).copied(), model.get(1).map(|x| x + 1));
    }
}
