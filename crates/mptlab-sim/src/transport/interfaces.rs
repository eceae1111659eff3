//! Which links are a path's interfaces: the first and last link of its forward and reverse
//! routes, i.e. the links attached to the two hosts. A path manager reacts when one of them goes
//! down or up; a link further inside a route is not an interface, and its failure shows only
//! through the path's timeouts.

use crate::transport::spec::PathSpec;

#[derive(Clone, Debug, Default)]
pub struct PathInterfaces {
    ends: Vec<[Option<u32>; 4]>,
}

impl PathInterfaces {
    pub fn new(paths: &[PathSpec]) -> Self {
        let ends = paths
            .iter()
            .map(|p| [p.fwd_route.first().copied(), p.fwd_route.last().copied(), p.rev_route.first().copied(), p.rev_route.last().copied()])
            .collect();
        Self { ends }
    }

    /// Is `link` an interface of `path`?
    pub fn touches(&self, path: usize, link: u32) -> bool {
        self.ends.get(path).is_some_and(|e| e.contains(&Some(link)))
    }

    /// The last path whose interface is `link`.
    pub fn last_touching(&self, link: u32) -> Option<usize> {
        (0..self.ends.len()).rev().find(|&i| self.touches(i, link))
    }
}
