//! The propagation pipe of a link direction: packets from the start of their transmission to
//! their arrival at the far end, in arrival order (one fixed delay keeps FIFO order).
//!
//! On a link whose queue decides on arrival, a packet enters the pipe when it is enqueued, with
//! the start of transmission its FIFO transmitter will give it; entries whose start lies in the
//! future are the queue. The pipe counts them lazily (`advance`): entries `[0, waiting_from)`
//! have started transmission.

use crate::metrics::QueueStats;
use mptlab_engine::{Handle, Time};
use std::collections::VecDeque;

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
    packets: VecDeque<InPipe>,
    waiting_from: usize,
    waiting_pkts: u64,
    waiting_bytes: u64,
}

impl Pipe {
    /// Starts empty and grows with the packets it holds: a reserved ring becomes resident page
    /// by page as it turns, which for W5's 24,000 access-link directions was 786 MB.
    pub fn new() -> Self {
        Self { packets: VecDeque::new(), waiting_from: 0, waiting_pkts: 0, waiting_bytes: 0 }
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
        self.packets.front()
    }

    /// Packets (and bytes) in the pipe whose transmission had not started at the last `advance`.
    #[inline]
    pub fn waiting(&self) -> (u64, u64) {
        (self.waiting_pkts, self.waiting_bytes)
    }

    #[inline]
    pub fn push(&mut self, p: InPipe) {
        self.packets.push_back(p);
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
        self.packets.iter_mut().rev()
    }

    /// Nothing waits any more (the link went down and lost its queue).
    pub fn clear_waiting(&mut self) {
        self.waiting_from = self.packets.len();
        self.waiting_pkts = 0;
        self.waiting_bytes = 0;
    }
}

impl Default for Pipe {
    fn default() -> Self {
        Self::new()
    }
}
