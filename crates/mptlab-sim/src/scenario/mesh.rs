//! The full-mesh path manager's paths for an MPTCP flow without explicit `paths`: one subflow
//! per (local interface, remote interface) pair, as Linux's in-kernel path manager with the
//! `fullmesh` flag creates one subflow per local address towards each remote address. Here an
//! interface is a link leaving the source host or entering the destination host; each pair's
//! route is the lowest-delay route through routers from the first link's far end to the last
//! link's near end (ties: fewer hops, then lower node ids; Dijkstra 1959, "A note on two
//! problems in connexion with graphs"). Pairs with no route are skipped; identical routes are
//! kept once. Paths are ordered by (first link, last link) id. A Wi-Fi station has one interface
//! per channel, not one per neighbour: of the routes whose first (last) link belongs to the same
//! channel, only the best (lowest delay, then fewest hops, then lowest link ids) is kept.
//!
//! The router-to-router middle of a route depends only on its two routers, so it is searched once
//! per (router, router) pair and reused by every flow: 12,000 devices behind one access router
//! cost one search per backhaul instead of one per device. The cache is bounded, and the search
//! reuses its scratch arrays (resetting only the nodes it touched), so a search allocates
//! nothing per node.

use super::topology::Topology;
use crate::spec::{LinkId, NodeId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Router pairs kept at most; beyond this the cache starts over.
const MAX_PAIRS: usize = 1 << 16;

/// Full-mesh path search over one topology, with its router-to-router routes cached.
pub struct Mesh<'a> {
    topo: &'a Topology,
    /// Lowest-delay router-only route per (from router, to router), None when there is none.
    middles: HashMap<(NodeId, NodeId), Option<Vec<LinkId>>>,
    /// Scratch of the search: best (delay, hops) and the link it was reached by, per node.
    best: Vec<Option<(u64, u32)>>,
    via: Vec<Option<LinkId>>,
    touched: Vec<NodeId>,
    heap: BinaryHeap<Reverse<(u64, u32, NodeId)>>,
}

impl<'a> Mesh<'a> {
    pub fn new(topo: &'a Topology) -> Self {
        let n = topo.nodes.len();
        Mesh { topo, middles: HashMap::new(), best: vec![None; n], via: vec![None; n], touched: Vec::new(), heap: BinaryHeap::new() }
    }

    /// The full-mesh paths from host `src` to host `dst`.
    pub fn paths(&mut self, src: NodeId, dst: NodeId) -> Vec<Vec<LinkId>> {
        let topo = self.topo;
        let mut paths: Vec<Vec<LinkId>> = Vec::new();
        // (interface pair, index into `paths`) of the routes kept so far.
        let mut kept: Vec<((u64, u64), usize)> = Vec::new();
        for &first in &topo.out[src as usize] {
            for &last in &topo.inc[dst as usize] {
                let route = if first == last {
                    Some(vec![first])
                } else {
                    let (a, b) = (topo.dirs[first as usize].to, topo.dirs[last as usize].from);
                    if a == dst || b == src || topo.is_host(a) || topo.is_host(b) {
                        None
                    } else {
                        self.middle(a, b).map(|mid| {
                            let mut r = Vec::with_capacity(mid.len() + 2);
                            r.push(first);
                            r.extend_from_slice(mid);
                            r.push(last);
                            r
                        })
                    }
                };
                let Some(r) = route else { continue };
                if paths.contains(&r) {
                    continue;
                }
                let pair = (interface(topo, first), interface(topo, last));
                match kept.iter().find(|(p, _)| *p == pair) {
                    Some(&(_, i)) => {
                        if label(topo, &r) < label(topo, &paths[i]) {
                            paths[i] = r;
                        }
                    }
                    None => {
                        kept.push((pair, paths.len()));
                        paths.push(r);
                    }
                }
            }
        }
        paths
    }

    /// The cached route from router `a` to router `b` through routers only (empty when a == b).
    fn middle(&mut self, a: NodeId, b: NodeId) -> Option<&[LinkId]> {
        if !self.middles.contains_key(&(a, b)) {
            if self.middles.len() >= MAX_PAIRS {
                self.middles.clear();
            }
            let route = self.between_routers(a, b);
            self.middles.insert((a, b), route);
        }
        self.middles[&(a, b)].as_deref()
    }

    /// Lowest-delay route from router `a` to router `b` through routers only.
    fn between_routers(&mut self, a: NodeId, b: NodeId) -> Option<Vec<LinkId>> {
        let topo = self.topo;
        self.reach(a, (0, 0), None);
        self.heap.push(Reverse((0u64, 0u32, a)));
        while let Some(Reverse((d, h, u))) = self.heap.pop() {
            if self.best[u as usize] != Some((d, h)) {
                continue;
            }
            if u == b {
                break;
            }
            for &e in &topo.out[u as usize] {
                let dir = &topo.dirs[e as usize];
                if topo.is_host(dir.to) {
                    continue;
                }
                let cand = (d + dir.params.delay.0, h + 1);
                if self.best[dir.to as usize].is_none_or(|cur| cand < cur) {
                    self.reach(dir.to, cand, Some(e));
                    self.heap.push(Reverse((cand.0, cand.1, dir.to)));
                }
            }
        }
        let route = self.best[b as usize].and_then(|_| {
            let mut route = Vec::new();
            let mut v = b;
            while v != a {
                let e = self.via[v as usize]?;
                route.push(e);
                v = topo.dirs[e as usize].from;
            }
            route.reverse();
            Some(route)
        });
        self.heap.clear();
        for &v in &self.touched {
            self.best[v as usize] = None;
            self.via[v as usize] = None;
        }
        self.touched.clear();
        route
    }

    fn reach(&mut self, v: NodeId, label: (u64, u32), by: Option<LinkId>) {
        if self.best[v as usize].is_none() {
            self.touched.push(v);
        }
        self.best[v as usize] = Some(label);
        self.via[v as usize] = by;
    }
}

/// The interface a link direction leaves or enters by: its Wi-Fi channel, or the link itself.
fn interface(topo: &Topology, e: LinkId) -> u64 {
    match topo.dirs[e as usize].wifi {
        Some(w) => (1 << 40) | w.channel as u64,
        None => e as u64,
    }
}

/// A route's order key: total delay, hops, link ids.
fn label<'r>(topo: &Topology, r: &'r [LinkId]) -> (u64, usize, &'r [LinkId]) {
    (r.iter().map(|&e| topo.dirs[e as usize].params.delay.0).sum(), r.len(), r)
}
