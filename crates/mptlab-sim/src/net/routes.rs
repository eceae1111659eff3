//! Precomputed routes: route r is a list of link ids; flow f owns routes 2f (data) and 2f+1
//! (ACKs). Stored flat so that forwarding is one slice index.

use super::config::LinkId;

#[derive(Default)]
pub struct RouteTable {
    links: Vec<LinkId>,
    spans: Vec<(u32, u32)>,
    /// A parallel run's partition per position, beside `links` (`push_to`); empty otherwise.
    to: Vec<u16>,
}

impl RouteTable {
    pub fn push(&mut self, route: &[LinkId]) -> u32 {
        let start = self.links.len() as u32;
        self.links.extend_from_slice(route);
        self.spans.push((start, route.len() as u32));
        (self.spans.len() - 1) as u32
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
        self.to[(self.spans[route as usize].0 + hop as u32) as usize]
    }

    /// Every route's entries, one after the other.
    pub fn entries(&self) -> &[LinkId] {
        &self.links
    }

    /// The link at `hop` of `route`, or None when the packet has reached its endpoint.
    #[inline]
    pub fn hop(&self, route: u32, hop: u16) -> Option<LinkId> {
        let (start, len) = self.spans[route as usize];
        if (hop as u32) < len {
            Some(self.links[(start + hop as u32) as usize])
        } else {
            None
        }
    }

    pub fn route(&self, route: u32) -> &[LinkId] {
        let (start, len) = self.spans[route as usize];
        &self.links[start as usize..(start + len) as usize]
    }
}
