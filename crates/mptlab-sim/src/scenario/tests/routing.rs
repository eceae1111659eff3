//! Routing against brute force: on small random topologies with many equal-delay ties, every
//! route (searched forward from sources or backward from destinations) is the minimum over all
//! simple paths of (delay, hops, link ids), with only routers inside.

use super::super::load;
use crate::spec::{LinkId, NodeKind, RunSpec};

/// xorshift64*, enough for generating test topologies.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n
    }
}

/// A random scenario: hosts h0.., routers r0.., random links with delays in {0, 1, 2} ms, and
/// flows from h0 to every other host (`fan_out`) or from every other host to h0.
fn random_scenario(rng: &mut Rng, fan_out: bool) -> String {
    let (hosts, routers) = (2 + rng.next(4), 1 + rng.next(5));
    let names = |p: &str, n: u64| (0..n).map(|i| format!("\"{p}{i}\"")).collect::<Vec<_>>().join(", ");
    let mut t = format!("[run]\nduration = \"1s\"\n[nodes]\nhosts = [{}]\nrouters = [{}]\n", names("h", hosts), names("r", routers));
    let node = |i: u64| {
        if i < hosts {
            format!("h{i}")
        } else {
            format!("r{}", i - hosts)
        }
    };
    for l in 0..(hosts + routers + rng.next(8)) {
        let (a, b) = (rng.next(hosts + routers), rng.next(hosts + routers));
        if a != b {
            t += &format!(
                "[links.l{l:02}]\nbetween = [\"{}\", \"{}\"]\nrate = \"1Mbps\"\ndelay = \"{}ms\"\nreverse = {{ delay = \"{}ms\" }}\n",
                node(a),
                node(b),
                rng.next(3),
                rng.next(3)
            );
        }
    }
    for h in 1..hosts {
        let (from, to) = if fan_out { ("h0".to_string(), format!("h{h}")) } else { (format!("h{h}"), "h0".to_string()) };
        t += &format!("[flows.f{h}]\nfrom = \"{from}\"\nto = \"{to}\"\n");
    }
    t
}

/// Minimum over all simple paths from `at` to `dst` with routers inside.
fn brute(spec: &RunSpec, at: u32, dst: u32, path: &mut Vec<LinkId>, seen: &mut Vec<u32>, best: &mut Option<(u64, usize, Vec<LinkId>)>) {
    if at == dst {
        let delay = path.iter().map(|&e| spec.links[e as usize].delay).sum();
        let cand = (delay, path.len(), path.clone());
        if best.as_ref().is_none_or(|b| cand < *b) {
            *best = Some(cand);
        }
        return;
    }
    if !path.is_empty() && spec.nodes[at as usize].kind == NodeKind::Host {
        return;
    }
    for (e, l) in spec.links.iter().enumerate() {
        if l.from == at && !seen.contains(&l.to) {
            path.push(e as LinkId);
            seen.push(l.to);
            brute(spec, l.to, dst, path, seen, best);
            seen.pop();
            path.pop();
        }
    }
}

#[test]
fn routes_match_brute_force_in_both_search_directions() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for case in 0..400 {
        let text = random_scenario(&mut rng, case % 2 == 0);
        let result = load(&text, &[], None);
        for f in result.as_ref().map(|l| &l.spec.flows[..]).unwrap_or(&[]) {
            let spec = &result.as_ref().unwrap().spec;
            let mut best = None;
            brute(spec, f.src, f.dst, &mut vec![], &mut vec![f.src], &mut best);
            assert_eq!(Some(&f.fwd_route), best.as_ref().map(|b| &b.2), "case {case}:\n{text}");
            checked += 1;
        }
        if let Err(e) = &result {
            // The only acceptable failure on a random topology is a missing route.
            assert!(e.reason.contains("no route"), "case {case}: {e}\n{text}");
        }
    }
    assert!(checked > 200, "only {checked} routes checked");
}

#[test]
fn many_distinct_endpoints_on_both_sides_route_quickly() {
    let text = r#"
[run]
duration = "1s"
[nodes]
routers = ["a", "b"]
[groups.cl]
count = 12000
link = { to = "a", rate = "1Mbps", delay = "1ms" }
[groups.sv]
count = 12000
link = { to = "b", rate = "1Mbps", delay = "1ms" }
[links.core]
between = ["a", "b"]
rate = "1Gbps"
delay = "5ms"
[flows.f]
from = "cl"
to = "sv"
"#;
    let spec = load(text, &[], None).unwrap().spec;
    assert_eq!(spec.flows.len(), 12_000);
    let names: Vec<_> = spec.flows[11_999].fwd_route.iter().map(|&e| spec.links[e as usize].name.as_str()).collect();
    assert_eq!(names, ["cl#11999", "core", "sv#11999.rev"]);
}

/// The full-mesh search as it was before its router-to-router routes were cached (one fresh
/// Dijkstra per interface pair), kept as the reference the cached search must match.
mod uncached {
    use crate::scenario::topology::Topology;
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
                        between_routers(topo, a, b).map(|mid| [vec![first], mid, vec![last]].concat())
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
}

#[test]
fn cached_full_mesh_matches_a_fresh_search_on_random_topologies_with_groups() {
    use crate::scenario::{mesh::Mesh, parse, topology::Topology};
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut pairs, mut multipath) = (0, 0);
    for case in 0..300 {
        let mut text = random_scenario(&mut rng, case % 2 == 0);
        let routers = text.lines().find(|l| l.starts_with("routers")).map_or(0, |l| l.matches('"').count() / 2) as u64;
        // Groups of multi-homed-looking devices: several groups on random routers, so many hosts
        // share their routers' pairs and the cache is hit.
        for g in 0..1 + rng.next(3) {
            text += &format!(
                "[groups.g{g}]\ncount = {}\nlink = {{ to = \"r{}\", rate = \"1Mbps\", delay = \"{}ms\" }}\n",
                1 + rng.next(4),
                rng.next(routers),
                rng.next(3)
            );
        }
        let root: toml::Table = toml::from_str(&text).unwrap();
        let Ok(raw) = parse::scenario(&root) else { continue };
        let Ok(topo) = Topology::build(&raw) else { continue };
        let hosts: Vec<u32> = (0..topo.nodes.len() as u32).filter(|&v| topo.is_host(v)).collect();
        let mut mesh = Mesh::new(&topo);
        // Asked in a scrambled order so cached entries are reused across unrelated flows.
        let mut asks: Vec<(u32, u32)> = hosts.iter().flat_map(|&s| hosts.iter().map(move |&d| (s, d))).filter(|(s, d)| s != d).collect();
        for i in (1..asks.len()).rev() {
            asks.swap(i, rng.next(i as u64 + 1) as usize);
        }
        for (s, d) in asks {
            let want = uncached::full_mesh(&topo, s, d);
            assert_eq!(mesh.paths(s, d), want, "case {case}, {} -> {}:\n{text}", topo.name(s), topo.name(d));
            pairs += 1;
            multipath += usize::from(want.len() > 1);
        }
    }
    assert!(pairs > 2_000 && multipath > 200, "only {pairs} pairs, {multipath} with several paths");
}
