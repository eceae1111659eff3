//! Data sequence mappings of one subflow (RFC 8684 §3.3.1): which connection-level bytes each
//! range of the subflow's sequence space carries.
//!
//! The connection writes whole chunks (≤ 1 MSS) into a subflow and the subflow sends each
//! chunk as one segment (a retransmission resends the same segment), so a mapping is looked
//! up by the exact subflow sequence number a segment starts at. Mappings are kept in subflow
//! order and dropped once the subflow has them cumulatively acknowledged.

use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// First subflow sequence number of the chunk.
    pub ssn: u64,
    /// First data sequence number.
    pub dsn: u64,
    pub len: u32,
}

#[derive(Default)]
pub struct Mappings {
    q: VecDeque<Mapping>,
}

impl Mappings {
    /// Bytes its growable containers hold (`transport::footprint`).
    pub fn memory_footprint(&self) -> usize {
        use crate::transport::footprint::*;
        deque(&self.q)
    }

    pub fn push(&mut self, m: Mapping) {
        debug_assert!(self.q.back().is_none_or(|b| b.ssn + b.len as u64 == m.ssn), "mappings must be contiguous");
        self.q.push_back(m);
    }

    /// The data sequence number of the segment starting at subflow sequence `ssn`. New data is
    /// the newest mapping, so that is tried first.
    #[inline]
    pub fn dsn_of(&self, ssn: u64) -> Option<u64> {
        if let Some(b) = self.q.back() {
            if b.ssn == ssn {
                return Some(b.dsn);
            }
        }
        let i = self.q.partition_point(|m| m.ssn < ssn);
        self.q.get(i).filter(|m| m.ssn == ssn).map(|m| m.dsn)
    }

    /// Forget mappings the subflow has cumulatively acknowledged (below `snd_una`).
    #[inline]
    pub fn release_below(&mut self, snd_una: u64) {
        while self.q.front().is_some_and(|m| m.ssn + m.len as u64 <= snd_una) {
            self.q.pop_front();
        }
    }

    /// Mappings not yet acknowledged at subflow level, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Mapping> {
        self.q.iter()
    }

    pub fn clear(&mut self) {
        self.q.clear();
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_new_and_old_segments_and_release_drops_acked_ones() {
        let mut m = Mappings::default();
        m.push(Mapping { ssn: 0, dsn: 1000, len: 100 });
        m.push(Mapping { ssn: 100, dsn: 5000, len: 100 });
        m.push(Mapping { ssn: 200, dsn: 1100, len: 50 });
        assert_eq!(m.dsn_of(200), Some(1100));
        assert_eq!(m.dsn_of(0), Some(1000));
        assert_eq!(m.dsn_of(100), Some(5000));
        assert_eq!(m.dsn_of(150), None);
        m.release_below(150);
        assert_eq!(m.len(), 2);
        m.release_below(250);
        assert!(m.is_empty());
    }
}
