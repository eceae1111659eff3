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
