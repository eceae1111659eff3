//! A first-in first-out buffer of queued packets with its byte count: the storage under every
//! queue discipline that holds packets itself (CoDel on a link; any discipline on a station that
//! decides when to transmit).

use mptlab_engine::{Handle, Time};
use std::collections::VecDeque;

/// A packet waiting in a queue.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub handle: Handle,
    pub enqueued_at: Time,
    pub size: u32,
}

pub struct Fifo {
    packets: VecDeque<Queued>,
    bytes: u64,
}

impl Fifo {
    pub fn new() -> Self {
        Self::with_capacity(256)
    }

    pub fn with_capacity(n: usize) -> Self {
        Self { packets: VecDeque::with_capacity(n), bytes: 0 }
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    #[inline]
    pub fn push(&mut self, q: Queued) {
        self.bytes += q.size as u64;
        self.packets.push_back(q);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let q = self.packets.pop_front()?;
        self.bytes -= q.size as u64;
        Some(q)
    }
}

impl Default for Fifo {
    fn default() -> Self {
        Self::new()
    }
}
