//! `[tunnels.<name>]` (docs/tunnels.md): parsing into `raw::Tunnel`, and
//! resolving the tunnel's paths, its flows' routes around it and its scheduler buffer.
//!
//! `protocol = "tcp"` runs one TCP connection per path (`transport::tunnel::tcp`), with the
//! flows' `tcp` table of options (defaults: the flows' own, Linux-like: SACK, delayed ACKs,
//! initial window 10; except the MSS, which is the largest record, `inner_mtu` + 16 B, so one
//! record fits one segment, and no handshake: the tunnel's connections are up before traffic).
//! Its `overhead` and `ack_size` follow from TCP (16 B record header + 40 B IPv4/TCP; 40 B) and
//! may not be set; CCID2 and CCID5 are DCCP's controllers and are refused.
//!
//! A flow with `tunnel = "<name>"` sends its data from its source to the ingress (shortest path),
//! through the tunnel, then from the egress to its destination (shortest path; empty when the
//! egress is the destination). Its acknowledgments are not tunnelled: they return over the
//! reverse of that whole route with the tunnel's first path in the middle (study notes A5,
//! option (b): "over path 1's reverse links, not encapsulated"; the paper does not say how the
//! end-to-end ACKs travel).

use super::defaults as d;
use super::errors::{fail, index, join, Result, ScenarioError};
use super::parse_flow::{congestion_controller, path_prefs, paths, scheduler, tcp_opts};
use super::raw::{Scenario, Tunnel};
use super::reader::{self as r, Tbl};
use super::routes;
use super::topology::Topology;
use super::units::{Limit, Size};
use crate::spec::{LinkId, LinkSpec, NodeId, QueueLimit, QueueSpec, TunnelPathSpec, TunnelSpec};
use crate::transport::segment::TCP_HEADER_BYTES;
use crate::transport::tunnel::{TunnelKind, DEFAULT_ACK_SIZE, DEFAULT_INNER_MTU, DEFAULT_OVERHEAD, MAX_TUNNEL_PATHS, TUNNEL_HEADER};
use toml::Value;

const TUNNEL: &[&str] = &[
    "ingress",
    "egress",
    "paths",
    "protocol",
    "cc",
    "cc_options",
    "scheduler",
    "scheduler_options",
    "priorities",
    "backup",
    "buffer",
    "overhead",
    "ack_size",
    "inner_mtu",
    "reorder",
    "tcp",
];
pub const TUNNEL_PROTOCOLS: &[&str] = &["dccp", "tcp"];
/// A TCP tunnel's controller when `cc` is not given.
pub const TCP_TUNNEL_CC: &str = "newreno";
/// Controllers only DCCP paths run.
const DCCP_ONLY_CC: &[&str] = &["ccid2", "ccid5"];
/// The scheduler buffer's default: this many times path 1's bottleneck buffer (seed 003 §4.2).
pub const BUFFER_FACTOR: u64 = 3;

pub fn tunnel(key: &str, v: &Value) -> Result<Tunnel> {
    let t = Tbl::new(key, v, TUNNEL)?;
    let protocol = t.or("protocol", "dccp", |k, v| r::one_of(k, v, "tunnel protocol", TUNNEL_PROTOCOLS))?;
    let Some(paths) = paths(&t, MAX_TUNNEL_PATHS, "a tunnel")? else {
        return fail(t.key("paths"), "required: one list of node names per tunnel path, from the ingress to the egress");
    };
    let (priorities, backup) = path_prefs(&t, MAX_TUNNEL_PATHS)?;
    let buffer = t.opt("buffer", |k, v| match r::limit(k, v)? {
        l @ (Limit::Packets(_) | Limit::Bytes(_)) => Ok(l),
        _ => fail(k, "a tunnel's scheduler buffer is given in packets (\"1250p\") or bytes (\"1875KB\")"),
    })?;
    let size = |lo: u64, hi: u64| {
        move |k: &str, v: &Value| {
            let s = r::size(k, v)?;
            if s.0 < lo || s.0 > hi {
                return fail(k, format!("must be {lo} … {hi} B"));
            }
            Ok(s)
        }
    };
    let inner_mtu = t.or("inner_mtu", Size(DEFAULT_INNER_MTU as u64), size(40, 65535))?;
    let tcp = protocol == "tcp";
    let (cc, overhead, ack_size, tcp_opts) = if tcp {
        for k in ["overhead", "ack_size"] {
            if t.has(k) {
                return fail(
                    t.key(k),
                    format!(
                        "only for protocol = \"dccp\": a TCP tunnel adds {TUNNEL_HEADER} B per record and {TCP_HEADER_BYTES} B per segment"
                    ),
                );
            }
        }
        let cc = congestion_controller_or(&t, TCP_TUNNEL_CC)?;
        if DCCP_ONLY_CC.contains(&cc.name()) {
            let known: Vec<&str> = crate::cc::CONGESTION_CONTROLLERS.iter().map(|a| a.name).filter(|n| !DCCP_ONLY_CC.contains(n)).collect();
            return Err(ScenarioError::new(
                t.key("cc"),
                format!("`{}` is a DCCP controller; a tunnel with protocol = \"tcp\" runs a TCP controller", cc.name()),
            )
            .with_choices(&known));
        }
        let record = inner_mtu.0 + TUNNEL_HEADER as u64;
        let mut def = d::tcp();
        def.mss = Size(record);
        def.handshake = false;
        let opts = t.or("tcp", def.clone(), |k, v| tcp_opts(k, v, &def))?;
        if opts.send_buffer.0 < record {
            return fail(
                t.key("tcp"),
                format!("tcp.send_buffer must hold the largest record ({record} B = inner_mtu + {TUNNEL_HEADER} B)"),
            );
        }
        (cc, Size((TUNNEL_HEADER + TCP_HEADER_BYTES) as u64), Size(TCP_HEADER_BYTES as u64), Some(opts))
    } else {
        if t.has("tcp") {
            return fail(t.key("tcp"), "only for protocol = \"tcp\"");
        }
        (
            congestion_controller_or(&t, d::TUNNEL_CC)?,
            t.or("overhead", Size(DEFAULT_OVERHEAD as u64), size(0, 1000))?,
            t.or("ack_size", Size(DEFAULT_ACK_SIZE as u64), size(1, 1500))?,
            None,
        )
    };
    Ok(Tunnel {
        ingress: t.must("ingress", r::name)?.to_string(),
        egress: t.must("egress", r::name)?.to_string(),
        paths,
        protocol: protocol.to_string(),
        cc,
        scheduler: scheduler(&t, d::TUNNEL_SCHEDULER)?,
        priorities,
        backup,
        buffer,
        overhead,
        ack_size,
        inner_mtu,
        reorder: super::reorder_opts::reorder(&t)?,
        tcp: tcp_opts,
    })
}

/// `cc` with a default other than the flows' one.
fn congestion_controller_or(t: &Tbl, default: &str) -> Result<crate::cc::CcConfig> {
    if t.has("cc") {
        return congestion_controller(t);
    }
    let mut cc = crate::cc::CcConfig::default_for(default).expect("the default tunnel controller is registered");
    if t.has("cc_options") {
        // Options of the default controller.
        let mut with = toml::Table::new();
        with.insert("cc".into(), Value::String(default.into()));
        with.insert("cc_options".into(), t.get("cc_options").cloned().expect("checked"));
        let tt = Tbl::of(&t.key(""), &with, &["cc", "cc_options"])?;
        cc = congestion_controller(&tt)?;
    }
    Ok(cc)
}

/// A tunnel's resolved ends and paths (the buffer comes later, once queue limits are known).
pub struct Resolved {
    pub spec: TunnelSpec,
    /// The limit as given (None: `BUFFER_FACTOR` × path 1's bottleneck buffer).
    pub buffer: Option<Limit>,
}

pub fn resolve(s: &Scenario, topo: &Topology) -> Result<Vec<Resolved>> {
    let mut out = Vec::with_capacity(s.tunnels.len());
    for (name, t) in &s.tunnels {
        let key = join("tunnels", name);
        if s.flows.contains_key(name) {
            return fail(&key, format!("`{name}` names a flow entry too; tunnels and flow entries are counted on links by name"));
        }
        let ingress = node(topo, &join(&key, "ingress"), &t.ingress)?;
        let egress = node(topo, &join(&key, "egress"), &t.egress)?;
        if ingress == egress {
            return fail(join(&key, "egress"), "the egress must differ from the ingress");
        }
        let pkey = join(&key, "paths");
        let mut paths = Vec::with_capacity(t.paths.len());
        for (i, p) in t.paths.iter().enumerate() {
            let k = index(&pkey, i);
            if p[0] != t.ingress || p[p.len() - 1] != t.egress {
                return fail(&k, format!("a tunnel path runs from the ingress `{}` to the egress `{}`", t.ingress, t.egress));
            }
            let fwd = routes::explicit(topo, &k, p, ingress, egress)?;
            let rev = routes::reverse(&fwd);
            let prefs = crate::transport::multipath::PathPrefs::from_lists(
                i,
                t.priorities.as_deref().unwrap_or(&[]),
                t.backup.as_deref().unwrap_or(&[]),
            );
            paths.push(TunnelPathSpec { fwd_route: fwd, rev_route: rev, priority: prefs.priority, backup: prefs.backup });
        }
        for (k, n) in [("priorities", t.priorities.as_ref().map(Vec::len)), ("backup", t.backup.as_ref().map(Vec::len))] {
            if n.is_some_and(|n| n != paths.len()) {
                return fail(join(&key, k), format!("one entry per path: {} given for {} paths", n.unwrap_or(0), paths.len()));
            }
        }
        let spec = TunnelSpec {
            name: name.clone(),
            ingress,
            egress,
            kind: if t.protocol == "tcp" { TunnelKind::Tcp } else { TunnelKind::Dccp },
            tcp: t.tcp.as_ref().map(super::resolve::tcp_config),
            cc: t.cc.clone(),
            scheduler: t.scheduler.clone(),
            buffer: QueueLimit::Packets(0),
            overhead: t.overhead.0 as u32,
            ack_size: t.ack_size.0 as u32,
            inner_mtu: t.inner_mtu.0 as u32,
            reorder: super::reorder_opts::config(&t.reorder),
            paths,
        };
        out.push(Resolved { spec, buffer: t.buffer });
    }
    Ok(out)
}

fn node(topo: &Topology, key: &str, name: &str) -> Result<NodeId> {
    topo.node(key, name)
}

/// Set every tunnel's scheduler buffer, now that the links' queue limits are resolved.
pub fn finish(resolved: Vec<Resolved>, links: &[LinkSpec]) -> Vec<TunnelSpec> {
    resolved
        .into_iter()
        .map(|mut r| {
            r.spec.buffer = match r.buffer {
                Some(Limit::Packets(n)) => QueueLimit::Packets(n),
                Some(Limit::Bytes(b)) => QueueLimit::Bytes(b),
                _ => {
                    // Path 1's bottleneck: its slowest link direction (the first of equal ones).
                    let route = &r.spec.paths[0].fwd_route;
                    let slowest = route.iter().min_by_key(|&&l| links[l as usize].rate_bps).copied().expect("paths are not empty");
                    match queue_limit(&links[slowest as usize].queue) {
                        QueueLimit::Packets(n) => QueueLimit::Packets(n * BUFFER_FACTOR),
                        QueueLimit::Bytes(b) => QueueLimit::Bytes(b * BUFFER_FACTOR),
                    }
                }
            };
            r.spec
        })
        .collect()
}

fn queue_limit(q: &QueueSpec) -> QueueLimit {
    match *q {
        QueueSpec::DropTail { limit } | QueueSpec::CoDel { limit, .. } | QueueSpec::Red { limit, .. } => limit,
    }
}

/// The route of a flow `src` → `dst` through tunnel `t`: (src → ingress, egress → dst, the
/// acknowledgments' route).
pub fn flow_routes(
    topo: &Topology,
    key: &str,
    t: &TunnelSpec,
    src: NodeId,
    dst: NodeId,
) -> Result<(Vec<LinkId>, Vec<LinkId>, Vec<LinkId>)> {
    let leg = |a: NodeId, b: NodeId| -> Result<Vec<LinkId>> {
        if a == b {
            return Ok(Vec::new());
        }
        routes::between(topo, a, b).ok_or_else(|| {
            ScenarioError::new(
                key,
                format!("no route from `{}` to `{}` (the flow's way into or out of tunnel `{}`)", topo.name(a), topo.name(b), t.name),
            )
        })
    };
    let to_ingress = leg(src, t.ingress)?;
    let after = leg(t.egress, dst)?;
    let whole: Vec<LinkId> = to_ingress.iter().chain(&t.paths[0].fwd_route).chain(&after).copied().collect();
    Ok((to_ingress, after, routes::reverse(&whole)))
}
