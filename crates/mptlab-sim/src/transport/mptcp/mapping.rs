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
    /// Mappings released from the front so far: `q[k]` is mapping number `released + k`.
    released: u64,
    /// Number of the mapping the last lookup found. Segments are sent in subflow order, so the
    /// next lookup is usually the one after it (data queued behind the window going out).
    last: u64,
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

    /// The data sequence number of the segment starting at subflow sequence `ssn`. The mapping
    /// after the last one found is tried first (in-order sending), then the newest (new data),
    /// then a binary search (retransmissions).
    #[inline]
    pub fn dsn_of(&mut self, ssn: u64) -> Option<u64> {
        let next = (self.last + 1).saturating_sub(self.released) as usize;
        let i = match self.q.get(next) {
            Some(m) if m.ssn == ssn => next,
            _ => match self.q.back() {
                Some(b) if b.ssn == ssn => self.q.len() - 1,
                _ => {
                    let i = self.q.partition_point(|m| m.ssn < ssn);
                    self.q.get(i).filter(|m| m.ssn == ssn)?;
                    i
                }
            },
        };
        self.last = self.released + i as u64;
        Some(self.q[i].dsn)
    }

    /// Forget mappings the subflow has cumulatively acknowledged (below `snd_una`).
    #[inline]
    pub fn release_below(&mut self, snd_una: u64) {
        while self.q.front().is_some_and(|m| m.ssn + m.len as u64 <= snd_una) {
            self.q.pop_front();
            self.released += 1;
        }
    }

    /// Mappings not yet acknowledged at subflow level, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Mapping> {
        self.q.iter()
    }

    pub fn clear(&mut self) {
        self.released += self.q.len() as u64;
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
