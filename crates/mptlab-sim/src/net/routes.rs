//! Precomputed routes: route r is a list of link ids; flow f owns routes 2f (data) and 2f+1
//! (ACKs). Stored flat so that forwarding is one slice index.

use super::config::LinkId;

#[derive(Default)]
pub struct RouteTable {
    links: Vec<LinkId>,
    spans: Vec<(u32, u32)>,
}

impl RouteTable {
    pub fn push(&mut self, route: &[LinkId]) -> u32 {
        let start = self.links.len() as u32;
        self.links.extend_from_slice(route);
        self.spans.push((start, route.len() as u32));
        (self.spans.len() - 1) as u32
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
