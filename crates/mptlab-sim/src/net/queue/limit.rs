//! The hard limit behind every queue discipline: tail drop when one more packet would not fit.

use crate::net::config::QueueLimit;

/// Would one more packet of `size` bytes exceed the limit, with `pkts` packets and `bytes`
/// bytes already waiting?
#[inline]
pub fn over_limit(limit: QueueLimit, pkts: u64, bytes: u64, size: u32) -> bool {
    match limit {
        QueueLimit::Packets(n) => pkts + 1 > n,
        QueueLimit::Bytes(b) => bytes + size as u64 > b,
    }
}
