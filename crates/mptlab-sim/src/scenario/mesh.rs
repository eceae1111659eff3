//! The full-mesh path manager's paths for an MPTCP flow without explicit `paths`: one subflow
//! per (local interface, remote interface) pair, as Linux's in-kernel path manager with the
//! `fullmesh` flag creates one subflow per local address towards each remote address. Here an
//! interface is a link leaving the source host or entering the destination host; each pair's
//! route is the lowest-delay route through routers from the first link's far end to the last
//! link's near end (ties: fewer hops, then lower node ids). Pairs with no route are skipped;
//! identical routes are kept once. Paths are ordered by (first link, last link) id.

use super::topology::Topology;
use crate::spec::{LinkId, NodeId};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub fn full_mesh(topo: &Topology, src: NodeId, dst: NodeId) -> Vec<Vec<LinkId>> {
    let mut paths: Vec<Vec<LinkId>> = Vec::new();
    for &first in &topo.out[src as usize] {
        for &last in &topo.inc[dst as usize] {
            let route = if first == last {
                Some(vec![first])
            } else {
                let (a, b) = (topo.dirs[first as usize].to, topo.dirs[last as usize].from);
                if a == dst || b == src || topo.is_host(a) || topo.is_host(b) {
                    None
                } else {
                    between_routers(topo, a, b).map(|mid| {
                        let mut r = Vec::with_capacity(mid.len() + 2);
                        r.push(first);
                        r.extend(mid);
                        r.push(last);
                        r
                    })
                }
            };
            if let Some(r) = route {
                if !paths.contains(&r) {
                    paths.push(r);
                }
            }
        }
    }
    paths
}

/// Lowest-delay route from router `a` to router `b` through routers only (empty when a == b).
fn between_routers(topo: &Topology, a: NodeId, b: NodeId) -> Option<Vec<LinkId>> {
    let n = topo.nodes.len();
    let mut best: Vec<Option<(u64, u32)>> = vec![None; n];
    let mut via: Vec<Option<LinkId>> = vec![None; n];
    let mut heap = BinaryHeap::new();
    best[a as usize] = Some((0, 0));
    heap.push(Reverse((0u64, 0u32, a)));
    while let Some(Reverse((d, h, u))) = heap.pop() {
        if best[u as usize] != Some((d, h)) {
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
            if best[dir.to as usize].is_none_or(|cur| cand < cur) {
                best[dir.to as usize] = Some(cand);
                via[dir.to as usize] = Some(e);
                heap.push(Reverse((cand.0, cand.1, dir.to)));
            }
        }
    }
    best[b as usize]?;
    let mut route = Vec::new();
    let mut v = b;
    while v != a {
        let e = via[v as usize]?;
        route.push(e);
        v = topo.dirs[e as usize].from;
    }
    route.reverse();
    Some(route)
}
