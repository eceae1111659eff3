//! Nodes and links of a parsed scenario, resolved to ids: hosts, then routers, then group members
//! (groups in name order); link directions in pairs (`x` = between[0]→between[1] at id 2k,
//! `x.rev` at 2k+1), user links in name order first, then group access links. Checks name
//! uniqueness and that links join two existing, different nodes.

use super::errors::{fail, index, join, Result, ScenarioError};
use super::raw::{Direction, Scenario};
use crate::spec::{LinkId, NodeId, NodeKind, NodeSpec, WifiPort, WifiSpec};
use std::collections::{BTreeMap, HashMap};

/// One link direction before queue limits are resolved.
pub struct Dir {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub params: Direction,
    /// Key path of the scenario entry it came from, for errors (`links.x` or `groups.g.link`).
    pub origin: String,
    /// A direction of a Wi-Fi channel.
    pub wifi: Option<WifiPort>,
}

pub struct Topology {
    pub nodes: Vec<NodeSpec>,
    /// Every node by name, group members included (`ue#3`).
    pub by_name: HashMap<String, NodeId>,
    /// Group name → (first member id, member count); members have consecutive ids.
    pub groups: BTreeMap<String, (NodeId, u64)>,
    pub dirs: Vec<Dir>,
    /// Outgoing and incoming link directions of each node, in id order.
    pub out: Vec<Vec<LinkId>>,
    pub inc: Vec<Vec<LinkId>>,
    /// Wi-Fi channels in name order (`wifi.rs`).
    pub wifi: Vec<WifiSpec>,
}

impl Topology {
    pub fn build(s: &Scenario) -> Result<Self> {
        let mut t = Topology {
            nodes: vec![],
            by_name: HashMap::new(),
            groups: BTreeMap::new(),
            dirs: vec![],
            out: vec![],
            inc: vec![],
            wifi: vec![],
        };
        for (list, kind, key) in [(&s.nodes.hosts, NodeKind::Host, "nodes.hosts"), (&s.nodes.routers, NodeKind::Router, "nodes.routers")] {
            for (i, name) in list.iter().enumerate() {
                t.check_unique(&index(key, i), name)?;
                t.add_node(name.clone(), kind);
            }
        }
        for (gname, g) in &s.groups {
            t.check_unique(&join("groups", gname), gname)?;
            let first = t.nodes.len() as NodeId;
            for i in 0..g.count {
                t.add_node(format!("{gname}#{i}"), NodeKind::Host);
            }
            t.groups.insert(gname.clone(), (first, g.count));
        }
        for (cname, w) in &s.wifi {
            let key = join(&super::wifi::key(cname), "stations");
            let mut ids = Vec::with_capacity(w.stations.len());
            for (i, name) in w.stations.iter().enumerate() {
                t.check_unique(&index(&key, i), name)?;
                ids.push(t.nodes.len() as NodeId);
                t.add_node(name.clone(), NodeKind::Station);
            }
            t.wifi.push(super::wifi::spec(cname, w, ids));
        }
        for (lname, l) in &s.links {
            let key = join("links", lname);
            let between = join(&key, "between");
            let a = t.node(&index(&between, 0), &l.between[0])?;
            let b = t.node(&index(&between, 1), &l.between[1])?;
            if a == b {
                return fail(between, format!("a link needs two different nodes, got `{}` twice", l.between[0]));
            }
            t.add_duplex(lname.clone(), a, b, &l.fwd, &l.reverse, key);
        }
        for (gname, g) in &s.groups {
            let Some(link) = &g.link else { continue };
            let key = format!("groups.{gname}.link");
            let to = t.node(&join(&key, "to"), &link.to)?;
            let (first, count) = t.groups[gname];
            if (first..first + count as NodeId).contains(&to) {
                return fail(join(&key, "to"), format!("`{}` is a member of group `{gname}` itself", link.to));
            }
            for i in 0..count as NodeId {
                let member = first + i;
                let name = t.nodes[member as usize].name.clone();
                t.add_duplex(name, member, to, &link.fwd, &link.reverse, key.clone());
            }
        }
        // Wi-Fi directions last, so that user links keep their ids.
        for (c, (cname, w)) in s.wifi.iter().enumerate() {
            let params = w.direction();
            let key = super::wifi::key(cname);
            let stations = t.wifi[c].stations.clone();
            // In pairs (i → j at 2k, j → i at 2k + 1), as duplex links: the opposite of a
            // direction e is e ^ 1 (`routes::reverse`). Hearing is symmetric (one range).
            for i in 0..stations.len() {
                for j in i + 1..stations.len() {
                    if !t.wifi[c].in_range(i, j) {
                        continue;
                    }
                    for (x, y) in [(i, j), (j, i)] {
                        let (a, b) = (stations[x], stations[y]);
                        let id = t.dirs.len() as LinkId;
                        t.out[a as usize].push(id);
                        t.inc[b as usize].push(id);
                        let name = format!("{cname}:{}>{}", t.nodes[a as usize].name, t.nodes[b as usize].name);
                        let wifi = Some(WifiPort { channel: c as u16, src: x as u16, dst: y as u16 });
                        t.dirs.push(Dir { name, from: a, to: b, params: params.clone(), origin: key.clone(), wifi });
                    }
                }
            }
        }
        Ok(t)
    }

    fn add_node(&mut self, name: String, kind: NodeKind) {
        self.by_name.insert(name.clone(), self.nodes.len() as NodeId);
        self.nodes.push(NodeSpec { name, kind });
        self.out.push(vec![]);
        self.inc.push(vec![]);
    }

    fn add_duplex(&mut self, name: String, a: NodeId, b: NodeId, fwd: &Direction, rev: &Direction, origin: String) {
        for (name, from, to, params) in [(name.clone(), a, b, fwd), (format!("{name}.rev"), b, a, rev)] {
            let id = self.dirs.len() as LinkId;
            self.out[from as usize].push(id);
            self.inc[to as usize].push(id);
            self.dirs.push(Dir { name, from, to, params: params.clone(), origin: origin.clone(), wifi: None });
        }
    }

    fn check_unique(&self, key: &str, name: &str) -> Result<()> {
        if let Some(&id) = self.by_name.get(name) {
            let kind = match self.nodes[id as usize].kind {
                NodeKind::Host => "host",
                NodeKind::Router => "router",
                NodeKind::Station => "Wi-Fi station",
            };
            return fail(key, format!("duplicate node name `{name}`: already a {kind}"));
        }
        if self.groups.contains_key(name) {
            return fail(key, format!("duplicate node name `{name}`: already a group"));
        }
        Ok(())
    }

    /// Hosts and routers by name (group members are not listed: there may be thousands).
    pub fn node_names(&self) -> Vec<String> {
        self.nodes.iter().filter(|n| !n.name.contains('#')).map(|n| n.name.clone()).collect()
    }

    /// Hosts, Wi-Fi stations and groups: the valid endpoints of a flow.
    pub fn endpoint_names(&self) -> Vec<String> {
        let mut v: Vec<String> =
            self.nodes.iter().filter(|n| n.kind != NodeKind::Router && !n.name.contains('#')).map(|n| n.name.clone()).collect();
        v.extend(self.groups.keys().cloned());
        v
    }

    /// A single node by name (host, router or group member).
    pub fn node(&self, key: &str, name: &str) -> Result<NodeId> {
        if let Some(&id) = self.by_name.get(name) {
            return Ok(id);
        }
        if self.groups.contains_key(name) {
            return fail(key, format!("`{name}` is a group; name one member (`{name}#0`, ...)"));
        }
        let mut reason = format!("unknown node `{name}`");
        if !self.groups.is_empty() {
            reason.push_str("; group members are named <group>#<i>");
        }
        Err(ScenarioError::new(key, reason).with_choices(self.node_names()))
    }

    /// A host: an endpoint that never forwards.
    pub fn is_host(&self, id: NodeId) -> bool {
        self.nodes[id as usize].kind == NodeKind::Host
    }

    /// A flow may start or end here (hosts and Wi-Fi stations).
    pub fn is_endpoint(&self, id: NodeId) -> bool {
        self.nodes[id as usize].kind != NodeKind::Router
    }

    pub fn name(&self, id: NodeId) -> &str {
        &self.nodes[id as usize].name
    }
}
