//! Lowest id first: the first eligible path (in the connection's order) with window space
//! (scratch example of the registry: one file and one registry line).
//!
//! Source: the "ordered" fill-the-first-path policy of draft-bonaventure-iccrg-schedulers §3.1
//! (strict priority), with the path index as the priority.

use super::{eligible, ConnView, Decision, PathView, Scheduler};

#[derive(Clone, Debug, Default)]
pub struct LowestId;

impl LowestId {
    pub fn new() -> Self {
        LowestId
    }
}

impl Scheduler for LowestId {
    fn select(&mut self, _conn: &ConnView, paths: &[PathView]) -> Decision {
        eligible(paths).find(|p| p.has_space).map_or(Decision::Wait, |p| Decision::Send(p.id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_path_with_space_is_chosen() {
        let p = |id, has_space| PathView { id, usable: true, has_space, ..Default::default() };
        let mut s = LowestId::new();
        assert_eq!(s.select(&ConnView::default(), &[p(0, false), p(1, true), p(2, true)]), Decision::Send(1));
        assert_eq!(s.select(&ConnView::default(), &[p(0, false)]), Decision::Wait);
    }
}
