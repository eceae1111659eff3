//! Precomputed routes: route r is a list of link ids; flow f owns routes 2f (data) and 2f+1
//! (ACKs). A route's length and first links sit together (`Head`), so that forwarding reads
//! one entry.

use super::config::LinkId;

/// Links a route's head holds itself: W5's routes (access link, backhaul, server link) fit.
const INLINE: usize = 3;

/// What forwarding reads of a route, on a quarter of a cache line: its length and first links.
/// With thousands of flows a route's entry is a cache miss; a (start, length) span and then the
/// link list were two.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Head {
    len: u32,
    first: [LinkId; INLINE],
}

#[derive(Default)]
pub struct RouteTable {
    heads: Vec<Head>,
    /// Where each route starts in `links` (which holds every route whole).
    starts: Vec<u32>,
    links: Vec<LinkId>,
    /// A parallel run's partition per position, beside `links` (`push_to`); empty otherwise.
    to: Vec<u16>,
}

impl RouteTable {
    pub fn push(&mut self, route: &[LinkId]) -> u32 {
        let mut head = Head { len: route.len() as u32, ..Head::default() };
        for (slot, &l) in head.first.iter_mut().zip(route) {
            *slot = l;
        }
        self.heads.push(head);
        self.starts.push(self.links.len() as u32);
        self.links.extend_from_slice(route);
        (self.heads.len() - 1) as u32
    }

    /// A route of a parallel run's partition: its positions' link entries (`sim::parallel`
    /// encodes them) and, per position, the partition a packet there is handed to.
    pub fn push_to(&mut self, route: &[LinkId], to: &[u16]) -> u32 {
        debug_assert_eq!(route.len(), to.len());
        self.to.resize(self.links.len(), 0);
        self.to.extend_from_slice(to);
        self.push(route)
    }

    /// The partition a packet at `hop` of `route` is handed to (routes pushed with `push_to`).
    #[inline]
    pub fn to(&self, route: u32, hop: u16) -> u16 {
        self.to[(self.starts[route as usize] + hop as u32) as usize]
    }

    /// Every route's entries, one after the other.
    pub fn entries(&self) -> &[LinkId] {
        &self.links
    }

    /// The link at `hop` of `route`, or None when the packet has reached its endpoint.
    #[inline]
    pub fn hop(&self, route: u32, hop: u16) -> Option<LinkId> {
        let head = &self.heads[route as usize];
        let i = hop as usize;
        if i >= head.len as usize {
            None
        } else if i < INLINE {
            Some(head.first[i])
        } else {
            Some(self.links[self.starts[route as usize] as usize + i])
        }
    }

    pub fn route(&self, route: u32) -> &[LinkId] {
        let start = self.starts[route as usize] as usize;
        &self.links[start..start + self.heads[route as usize].len as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every position of every route reads back (inline or from the list), and one past
        /// the end is the endpoint, for routes shorter and longer than a head holds.
        #[test]
        fn hops_read_back(routes in proptest::collection::vec(proptest::collection::vec(0u32..1000, 1..8), 1..20)) {
            let mut t = RouteTable::default();
            let ids: Vec<u32> = routes.iter().map(|r| t.push(r)).collect();
            for (id, r) in ids.iter().zip(&routes) {
                prop_assert_eq!(t.route(*id), r.as_slice());
                for (i, &l) in r.iter().enumerate() {
                    prop_assert_eq!(t.hop(*id, i as u16), Some(l));
                }
                prop_assert_eq!(t.hop(*id, r.len() as u16), None);
            }
        }
    }
}
