//! Where the per-subflow link jitter estimators live (`metrics::link_jitter`): one RFC 3550
//! estimator per (route, detailed hop of the route), i.e. per (flow, path, direction) stream
//! and link it crosses, in one Vec. A packet finds its estimator from its route and hop index
//! through tables built once (no hashing on the packet path). Empty unless the run asks for link
//! jitter.

use crate::metrics::JitterEstimator;
use crate::net::RouteTable;

#[derive(Default)]
pub struct SubflowJitter {
    /// Per route: index in `slots` of its first hop.
    route_start: Vec<u32>,
    /// Per (route, hop): index in `estimators`, or `NONE` for an undetailed link.
    slots: Vec<u32>,
    estimators: Vec<JitterEstimator>,
}

const NONE: u32 = u32::MAX;

impl SubflowJitter {
    /// Slots for the hops of `routes` (ids `0..count`) that cross a link `detailed` says yes to.
    pub fn new(routes: &RouteTable, count: usize, detailed: impl Fn(usize) -> bool) -> Self {
        let mut s = SubflowJitter::default();
        for r in 0..count as u32 {
            s.route_start.push(s.slots.len() as u32);
            for &l in routes.route(r) {
                if detailed(l as usize) {
                    s.slots.push(s.estimators.len() as u32);
                    s.estimators.push(JitterEstimator::default());
                } else {
                    s.slots.push(NONE);
                }
            }
        }
        s
    }

    /// The estimator of the stream on `route` at hop index `hop`, if that link is detailed.
    #[inline]
    pub fn estimator(&mut self, route: u32, hop: u16) -> Option<&mut JitterEstimator> {
        let start = *self.route_start.get(route as usize)?;
        let slot = *self.slots.get(start as usize + hop as usize)?;
        self.estimators.get_mut(slot as usize)
    }
}
