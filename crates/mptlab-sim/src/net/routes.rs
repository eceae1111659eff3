//! Precomputed routes: route r is a list of link ids (path i of a flow: its sending end's
//! packets on `route_base + 2i`, its receiving end's on `route_base + 2i + 1`). A route's length and first links sit together (`Head`), so that forwarding reads
//! one entry.

use super::config::LinkId;

/// Links a route's head holds itself: W5's routes (access link, backhaul, server link) fit.
const INLINE: usize = 3;

/// `Head::len` of a route of this many links or more: its length is in `RouteTable::spans`.
const LONG: u8 = u8::MAX;

/// What forwarding reads of a route, on a quarter of a cache line: its length, its first links
/// and, in a parallel run, the partitions they hand packets to. With thousands of flows a
/// route's entry is a cache miss; a (start, length) span and then the link list were two, and
/// a hand-over's partition two more.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Head {
    /// The route's length, or `LONG`.
    len: u8,
    to: [u8; INLINE],
    first: [LinkId; INLINE],
}

#[derive(Default)]
pub struct RouteTable {
    heads: Vec<Head>,
    /// Each route's (start, length) in `links`, which holds every route whole.
    spans: Vec<(u32, u32)>,
    links: Vec<LinkId>,
    /// A parallel run's partition per position, beside `links` (`push_to`); empty otherwise.
    to: Vec<u16>,
}

impl RouteTable {
    pub fn push(&mut self, route: &[LinkId]) -> u32 {
        let mut head = Head { len: route.len().min(LONG as usize) as u8, ..Head::default() };
        for (slot, &l) in head.first.iter_mut().zip(route) {
            *slot = l;
        }
        self.heads.push(head);
        self.spans.push((self.links.len() as u32, route.len() as u32));
        self.links.extend_from_slice(route);
        (self.heads.len() - 1) as u32
    }

    /// A route of a parallel run's partition: its positions' link entries (`sim::parallel`
    /// encodes them) and, per position, the partition a packet there is handed to (below 256:
    /// `crate::partition` allows no more partitions).
    pub fn push_to(&mut self, route: &[LinkId], to: &[u16]) -> u32 {
        debug_assert_eq!(route.len(), to.len());
        self.to.resize(self.links.len(), 0);
        self.to.extend_from_slice(to);
        let id = self.push(route);
        let head = &mut self.heads[id as usize];
        for (slot, &t) in head.to.iter_mut().zip(to) {
            *slot = u8::try_from(t).expect("at most 256 partitions");
        }
        id
    }

    /// The partition a packet at `hop` of `route` is handed to (routes pushed with `push_to`).
    #[inline]
    pub fn to(&self, route: u32, hop: u16) -> u16 {
        match self.heads[route as usize].to.get(hop as usize) {
            Some(&t) => t as u16,
            None => self.to[(self.spans[route as usize].0 + hop as u32) as usize],
        }
    }

    /// The link at `hop` of `route`, or None when the packet has reached its endpoint.
    #[inline]
    pub fn hop(&self, route: u32, hop: u16) -> Option<LinkId> {
        let head = &self.heads[route as usize];
        let i = hop as usize;
        if i < INLINE && i < head.len as usize {
            Some(head.first[i])
        } else if head.len != LONG && i >= head.len as usize {
            None
        } else {
            self.hop_in_list(route, i)
        }
    }

    /// `hop` for a position the head does not hold.
    #[cold]
    fn hop_in_list(&self, route: u32, i: usize) -> Option<LinkId> {
        let (start, len) = self.spans[route as usize];
        (i < len as usize).then(|| self.links[start as usize + i])
    }

    pub fn route(&self, route: u32) -> &[LinkId] {
        let (start, len) = self.spans[route as usize];
        &self.links[start as usize..(start + len) as usize]
    }

    /// Every route's entries, one after the other.
    pub fn entries(&self) -> &[LinkId] {
        &self.links
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every position of every route reads back, with its partition, and one past the end is
    /// the endpoint.
    fn check(routes: &[(Vec<u32>, Vec<u16>)]) -> Result<(), TestCaseError> {
        let mut t = RouteTable::default();
        let ids: Vec<u32> = routes.iter().map(|(r, to)| t.push_to(r, to)).collect();
        for (id, (r, to)) in ids.iter().zip(routes) {
            prop_assert_eq!(t.route(*id), r.as_slice());
            for (i, (&l, &p)) in r.iter().zip(to).enumerate() {
                prop_assert_eq!(t.hop(*id, i as u16), Some(l));
                prop_assert_eq!(t.to(*id, i as u16), p);
            }
            prop_assert_eq!(t.hop(*id, r.len() as u16), None);
        }
        Ok(())
    }

    fn route(max_len: usize) -> impl Strategy<Value = (Vec<u32>, Vec<u16>)> {
        (1..max_len).prop_flat_map(|n| (proptest::collection::vec(0u32..1000, n), proptest::collection::vec(0u16..256, n)))
    }

    proptest! {
        /// Routes shorter and longer than a head holds.
        #[test]
        fn hops_and_partitions_read_back(routes in proptest::collection::vec(route(8), 1..20)) {
            check(&routes)?;
        }

        /// Routes of `LONG` links and more, whose length the head cannot hold.
        #[test]
        fn long_routes_read_back(routes in proptest::collection::vec(route(400), 1..4)) {
            check(&routes)?;
        }
    }
}
