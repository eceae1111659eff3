//! Routes: shortest paths by total propagation delay (Dijkstra), ties broken by fewer hops and
//! then by the lexicographically smaller sequence of link ids, so the choice is deterministic.
//! Hosts never forward: only routers and Wi-Fi stations appear inside a route.
//!
//! Because hosts are only ever route ends, a search runs over routers alone: from the source
//! host into the router graph, and the route to a destination host is the best router label
//! plus one last link (or a direct host-to-host link). Searches are cached per source, or per
//! destination searching backwards when flows have fewer distinct destinations than sources, so
//! 12,000 devices sending to one server cost one search. The cache is bounded.
//!
//! Also validates explicit `path = [...]` lists, and derives the reverse route (the opposite
//! directions of the same node path).

use super::errors::{fail, index, Result};
use super::topology::Topology;
use crate::spec::{LinkId, NodeId};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// (total delay, hops, link ids in forward order): smaller is better.
type Label = (u64, u32, Vec<LinkId>);

/// Searches kept at most; beyond this the cache starts over (flows with many distinct endpoints
/// on both sides use each search once anyway).
const MAX_TREES: usize = 256;
const NOT_A_ROUTER: u32 = u32::MAX;

pub struct Router<'a> {
    topo: &'a Topology,
    /// Search from destinations along incoming links instead of from sources.
    backward: bool,
    /// Node id → dense router index (NOT_A_ROUTER for hosts).
    slot: Vec<u32>,
    routers: usize,
    /// Per node: the links the search follows (outgoing, or incoming when backward) whose
    /// other end is a router.
    to_routers: Vec<Vec<LinkId>>,
    /// Best label of every router, per search root.
    trees: HashMap<NodeId, Vec<Option<Label>>>,
}

impl<'a> Router<'a> {
    /// `pairs`: the (src, dst) pairs that will be asked for, to pick the search direction.
    pub fn new(topo: &'a Topology, pairs: impl Iterator<Item = (NodeId, NodeId)>) -> Self {
        let (mut srcs, mut dsts) = (Vec::new(), Vec::new());
        for (s, d) in pairs {
            srcs.push(s);
            dsts.push(d);
        }
        for v in [&mut srcs, &mut dsts] {
            v.sort_unstable();
            v.dedup();
        }
        let backward = dsts.len() < srcs.len();
        let mut slot = vec![NOT_A_ROUTER; topo.nodes.len()];
        let mut routers = 0;
        for (i, s) in slot.iter_mut().enumerate() {
            if !topo.is_host(i as NodeId) {
                *s = routers;
                routers += 1;
            }
        }
        let adjacency = if backward { &topo.inc } else { &topo.out };
        let to_routers = adjacency
            .iter()
            .map(|links| links.iter().copied().filter(|&e| slot[other(topo, e, backward) as usize] != NOT_A_ROUTER).collect())
            .collect();
        Router { topo, backward, slot, routers: routers as usize, to_routers, trees: HashMap::new() }
    }

    /// The best route from `src` to `dst` (both hosts), or None when there is none.
    pub fn route(&mut self, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
        let (root, target) = if self.backward { (dst, src) } else { (src, dst) };
        if !self.trees.contains_key(&root) {
            if self.trees.len() >= MAX_TREES {
                self.trees.clear();
            }
            let tree = self.search(root);
            self.trees.insert(root, tree);
        }
        let tree = &self.trees[&root];
        let topo = self.topo;
        // The last link into the target (first link out of it, backward) comes from the root
        // itself or from a router the search reached.
        let last_links = if self.backward { &topo.out[target as usize] } else { &topo.inc[target as usize] };
        let empty: Label = (0, 0, Vec::new());
        last_links
            .iter()
            .filter_map(|&e| {
                let u = other(topo, e, !self.backward);
                let base = if u == root {
                    &empty
                } else {
                    match self.slot[u as usize] {
                        NOT_A_ROUTER => return None,
                        i => tree[i as usize].as_ref()?,
                    }
                };
                Some(extend(base, e, topo.dirs[e as usize].params.delay.0, self.backward))
            })
            .min()
            .map(|(_, _, path)| path)
    }

    /// Dijkstra over routers from the host `root` (to it, when backward).
    fn search(&self, root: NodeId) -> Vec<Option<Label>> {
        let mut s = Search { best: vec![None; self.routers], done: vec![false; self.routers], heap: BinaryHeap::new() };
        let start: Label = (0, 0, Vec::new());
        // A Wi-Fi station roots a search from inside the forwarding graph: never re-enter it.
        if let Some(&i) = self.slot.get(root as usize).filter(|&&i| i != NOT_A_ROUTER) {
            s.done[i as usize] = true;
        }
        for &e in &self.to_routers[root as usize] {
            self.relax(&mut s, &start, e);
        }
        while let Some(Reverse((label, node))) = s.heap.pop() {
            let i = self.slot[node as usize] as usize;
            if s.done[i] {
                continue;
            }
            s.done[i] = true;
            for &e in &self.to_routers[node as usize] {
                self.relax(&mut s, &label, e);
            }
        }
        s.best
    }

    fn relax(&self, s: &mut Search, base: &Label, e: LinkId) {
        let next = other(self.topo, e, self.backward);
        let i = self.slot[next as usize] as usize;
        if s.done[i] {
            return;
        }
        let label = extend(base, e, self.topo.dirs[e as usize].params.delay.0, self.backward);
        if s.best[i].as_ref().is_none_or(|b| label < *b) {
            s.best[i] = Some(label.clone());
            s.heap.push(Reverse((label, next)));
        }
    }
}

/// State of one Dijkstra run, indexed by router slot.
struct Search {
    best: Vec<Option<Label>>,
    done: Vec<bool>,
    heap: BinaryHeap<Reverse<(Label, NodeId)>>,
}

/// The node at the far end of link direction `e` as the search walks it.
fn other(topo: &Topology, e: LinkId, backward: bool) -> NodeId {
    let d = &topo.dirs[e as usize];
    if backward {
        d.from
    } else {
        d.to
    }
}

/// `base` plus link `e`: appended when searching forward, prepended when backward, so paths are
/// always in forward order and compare the same way in both directions.
fn extend(base: &Label, e: LinkId, delay: u64, backward: bool) -> Label {
    let mut p = Vec::with_capacity(base.2.len() + 1);
    if backward {
        p.push(e);
        p.extend_from_slice(&base.2);
    } else {
        p.extend_from_slice(&base.2);
        p.push(e);
    }
    (base.0.saturating_add(delay), base.1 + 1, p)
}

/// Resolve an explicit node path for one (src, dst) pair. `names[0]` and `names[last]` are the
/// flow's `from` and `to` names (checked by the caller) and stand for `src` and `dst`; between
/// consecutive nodes the direction with the smallest delay (then smallest id) is used.
pub fn explicit(topo: &Topology, key: &str, names: &[String], src: NodeId, dst: NodeId) -> Result<Vec<LinkId>> {
    let last = names.len() - 1;
    let mut nodes = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let k = index(key, i);
        let id = match i {
            0 => src,
            _ if i == last => dst,
            _ => {
                let id = topo.node(&k, name)?;
                if topo.is_host(id) {
                    return fail(
                        k,
                        format!("`{name}` is a host; hosts do not forward, only routers and Wi-Fi stations can be inside a path"),
                    );
                }
                id
            }
        };
        if nodes.contains(&id) {
            return fail(k, format!("path visits `{}` twice", topo.name(id)));
        }
        nodes.push(id);
    }
    let mut links = Vec::with_capacity(last);
    for (i, w) in nodes.windows(2).enumerate() {
        let best = topo.out[w[0] as usize]
            .iter()
            .filter(|&&e| topo.dirs[e as usize].to == w[1])
            .min_by_key(|&&e| (topo.dirs[e as usize].params.delay.0, e));
        match best {
            Some(&e) => links.push(e),
            None => return fail(index(key, i + 1), format!("no link from `{}` to `{}`", topo.name(w[0]), topo.name(w[1]))),
        }
    }
    Ok(links)
}

/// The reverse route: the opposite direction of each link, last hop first. Directions come in
/// pairs (2k, 2k+1), so the opposite of `e` is `e ^ 1`.
pub fn reverse(fwd: &[LinkId]) -> Vec<LinkId> {
    fwd.iter().rev().map(|e| e ^ 1).collect()
}

/// The best route from node `src` to node `dst` (any kinds: a tunnel's ingress and egress may be
/// routers), with the same order as `Router` (delay, then hops, then link ids) and routers only
/// inside it. Used once per tunnel leg, so a plain search suffices.
pub fn between(topo: &Topology, src: NodeId, dst: NodeId) -> Option<Vec<LinkId>> {
    let mut best: Vec<Option<Label>> = vec![None; topo.nodes.len()];
    let mut done = vec![false; topo.nodes.len()];
    let mut heap = BinaryHeap::new();
    best[src as usize] = Some((0, 0, Vec::new()));
    heap.push(Reverse(((0u64, 0u32, Vec::new()), src)));
    while let Some(Reverse((label, node))) = heap.pop() {
        if done[node as usize] {
            continue;
        }
        done[node as usize] = true;
        if node == dst {
            return Some(label.2);
        }
        // Hosts other than the source are ends, never relays.
        if node != src && topo.is_host(node) {
            continue;
        }
        for &e in &topo.out[node as usize] {
            let next = topo.dirs[e as usize].to;
            if done[next as usize] {
                continue;
            }
            let l = extend(&label, e, topo.dirs[e as usize].params.delay.0, false);
            if best[next as usize].as_ref().is_none_or(|b| l < *b) {
                best[next as usize] = Some(l.clone());
                heap.push(Reverse((l, next)));
            }
        }
    }
    None
}
