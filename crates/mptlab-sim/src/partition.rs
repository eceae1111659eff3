//! The partition plan of a parallel run (`run.partitions` = P > 1): which partition owns each
//! flow and each link direction, and how long a window the partitions may run apart. The
//! engine that executes it is `sim::parallel`; docs/architecture.md ("Parallel runs") gives the
//! reasoning, which is the conservative (null-message-free, windowed) scheme of Lubachevsky's
//! bounded lag / YAWNS: no partition may receive a packet in its past.
//!
//! Ownership:
//! - flows go to the P *device partitions* round-robin by index (flow f to f mod P), both ends
//!   of a flow together (a flow's endpoint holds both);
//! - a link direction used only by flows of one device partition belongs to it (a device's
//!   access links); every other link direction is *shared* and belongs to a *core partition*:
//!   shared links that appear on a common route are one core partition (union-find), so no
//!   route crosses two core partitions. Links no route uses go to partition 0.
//!
//! A packet changes partition only between a device partition and a core partition:
//! - device → core, *late*: at the moment it enters the core's link (its sender's or its
//!   previous link's event). The core runs each window after the devices, so it has them all.
//! - core → device, *early*: when the packet enters the last core link before the device's
//!   part of the route, the link already knows when it will come out (a drop-tail or RED link
//!   decides on arrival and schedules the transmission then: `net/link.rs`), and hands it over
//!   with that arrival time, at least the link's delay ahead.
//!
//! So a window may be as long as the shortest delay of a link that hands packets from a core to
//! a device partition, less 1 ns (windows are `(T, T + window]` and a hand-over must land in a
//! later one). Such a link must decide on arrival (not CoDel) and have a delay of 2 ns or more.
//! Tunnels, Wi-Fi channels, scenario link events (a link going down tells every flow's path
//! manager at once: no lookahead) and link jitter are not partitioned: a plan refuses them.

use crate::net::QueueSpec;
use crate::spec::RunSpec;
use mptlab_engine::Time;

/// The partition of a link direction no route uses (it never sees a packet).
const UNUSED: u16 = u16::MAX;

/// Who owns what in a parallel run, and its window.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Device partitions (0..devices); core partitions follow (devices..parts).
    pub devices: usize,
    pub parts: usize,
    /// Owning partition of each flow (always a device partition), by flow id.
    pub flow_owner: Vec<u16>,
    /// Owning partition of each link direction, by link id.
    pub link_owner: Vec<u16>,
    /// The longest window the partitions may run apart (see the module comment).
    pub window: Time,
}

impl Plan {
    /// The plan of `spec` with `spec.partitions` device partitions, or why it has none (one
    /// sentence, for the key `run.partitions`).
    pub fn new(spec: &RunSpec) -> Result<Plan, String> {
        let devices = spec.partitions as usize;
        refuse_unpartitioned(spec)?;
        if devices > spec.flows.len() {
            return Err(format!("{devices} device partitions need at least as many flows; this run has {}", spec.flows.len()));
        }
        let flow_owner: Vec<u16> = (0..spec.flows.len()).map(|f| (f % devices) as u16).collect();
        // A link used by flows of one device partition is that partition's, else shared.
        let mut user = vec![UNUSED; spec.links.len()];
        let mut shared = vec![false; spec.links.len()];
        for (f, fs) in spec.flows.iter().enumerate() {
            for (fwd, rev) in fs.route_pairs() {
                for &l in fwd.iter().chain(rev) {
                    let u = &mut user[l as usize];
                    if *u == UNUSED {
                        *u = flow_owner[f];
                    } else if *u != flow_owner[f] {
                        shared[l as usize] = true;
                    }
                }
            }
        }
        // Shared links on a common route form one core partition.
        let mut sets = UnionFind::new(spec.links.len());
        for fs in &spec.flows {
            for (fwd, rev) in fs.route_pairs() {
                for route in [fwd, rev] {
                    let mut first = None;
                    for &l in route.iter().filter(|&&l| shared[l as usize]) {
                        match first {
                            None => first = Some(l as usize),
                            Some(a) => sets.union(a, l as usize),
                        }
                    }
                }
            }
        }
        let mut core_of_root = vec![UNUSED; spec.links.len()];
        let mut parts = devices;
        let link_owner: Vec<u16> = (0..spec.links.len())
            .map(|l| {
                if !shared[l] {
                    return if user[l] == UNUSED { 0 } else { user[l] };
                }
                let root = sets.find(l);
                if core_of_root[root] == UNUSED {
                    core_of_root[root] = parts as u16;
                    parts += 1;
                }
                core_of_root[root]
            })
            .collect();
        if parts > UNUSED as usize {
            return Err(format!("the shared links form {} core partitions, more than the engine numbers", parts - devices));
        }
        let window = window(spec, &flow_owner, &link_owner, devices)?;
        Ok(Plan { devices, parts, flow_owner, link_owner, window })
    }

    pub fn is_core(&self, part: u16) -> bool {
        part as usize >= self.devices
    }

    /// Where a packet of flow `flow` on `route` goes at each position: the owner of each link
    /// in turn, then the flow's owner (its receiving end).
    pub fn owners<'a>(&'a self, flow: usize, route: &'a [u32]) -> impl Iterator<Item = u16> + 'a {
        route.iter().map(|&l| self.link_owner[l as usize]).chain(std::iter::once(self.flow_owner[flow]))
    }

    /// Is the move from partition `from` to partition `to` made when the packet enters the
    /// link of `to` (late), rather than handed over ahead from the link of `from` (early)?
    pub fn is_late(&self, from: u16, to: u16) -> bool {
        !self.is_core(from) && self.is_core(to)
    }
}

/// What the parallel engine does not partition yet, refused with the reason.
fn refuse_unpartitioned(spec: &RunSpec) -> Result<(), String> {
    let what = if !spec.tunnels.is_empty() {
        "tunnels"
    } else if !spec.wifi.is_empty() {
        "Wi-Fi channels"
    } else if !spec.events.is_empty() {
        "link events (a link going down reaches every flow's path manager at once)"
    } else if spec.metrics.link_jitter {
        "link jitter (metrics.jitter)"
    } else {
        return Ok(());
    };
    Err(format!("a parallel run cannot have {what}; use 1"))
}

/// The window: the shortest delay of a link that hands packets from a core partition to a
/// device partition, less 1 ns; an error names a link that cannot hand packets over early.
fn window(spec: &RunSpec, flow_owner: &[u16], link_owner: &[u16], devices: usize) -> Result<Time, String> {
    let is_core = |p: u16| p as usize >= devices;
    let mut window = spec.duration.max(1);
    for (f, fs) in spec.flows.iter().enumerate() {
        for (fwd, rev) in fs.route_pairs() {
            for route in [fwd, rev] {
                let next_owner = route.iter().skip(1).map(|&l| link_owner[l as usize]).chain(std::iter::once(flow_owner[f]));
                for (&l, to) in route.iter().zip(next_owner) {
                    let from = link_owner[l as usize];
                    if from == to || (!is_core(from) && is_core(to)) {
                        continue;
                    }
                    let ls = &spec.links[l as usize];
                    if matches!(ls.queue, QueueSpec::CoDel { .. }) {
                        return Err(format!("link {} hands packets from a shared part of the network to a device's, so its queue must decide on arrival (droptail or red, not codel)", ls.name));
                    }
                    if ls.delay < 2 {
                        return Err(format!(
                            "link {} hands packets from a shared part of the network to a device's, so it needs a delay of at least 2ns",
                            ls.name
                        ));
                    }
                    window = window.min(ls.delay - 1);
                }
            }
        }
    }
    Ok(window)
}

/// Disjoint sets of link ids (path halving, union by index).
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind((0..n).collect())
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] != x {
            self.0[x] = self.0[self.0[x]];
            x = self.0[x];
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        self.0[a.max(b)] = a.min(b);
    }
}
