//! `raw::Scenario` → `RunSpec`: expands flow entries over groups and counts, routes every flow,
//! converts transports and apps, and builds the Jain groups. Queue limits: `limits.rs`.

use super::defaults as d;
use super::detail;
use super::errors::{fail, index, join, Result, ScenarioError};
use super::events;
use super::limits;
use super::mesh::Mesh;
use super::raw::{self, App, Scenario, Transport};
use super::routes::{self, Router};
use super::topology::Topology;
use super::tunnels;
use super::units::Dur;
use crate::spec::*;
use crate::transport::mptcp::{MptcpConfig, MAX_SUBFLOWS};
use crate::transport::quic::MAX_PATHS;
use crate::transport::tcp::{DelayedAck, TcpConfig};
use mptlab_engine::{RngStream, StreamId, Time};

pub fn run_spec(s: &Scenario) -> Result<RunSpec> {
    let topo = Topology::build(s)?;
    let tunnels = tunnels::resolve(s, &topo)?;
    let flows = flows(s, &topo, &tunnels)?;
    let tunnel_routes: Vec<(&[LinkId], &[LinkId])> =
        tunnels.iter().flat_map(|t| t.spec.paths.iter().map(|p| (&p.fwd_route[..], &p.rev_route[..]))).collect();
    let links = limits::links(&topo, &flows, &tunnel_routes)?;
    let tunnels = tunnels::finish(tunnels, &links);
    let jain_groups = jain_groups(s, &flows)?;
    let events = events::resolve(s, &topo)?;
    let metrics = detail::metrics_spec(s, &topo, &flows)?;
    Ok(RunSpec {
        seed: s.run.seed,
        duration: s.run.duration.0,
        partitions: s.run.partitions,
        nodes: topo.nodes,
        links,
        flows,
        metrics,
        jain_groups,
        events,
        tunnels,
        wifi: topo.wifi,
    })
}

/// The nodes a flow endpoint stands for: one host or Wi-Fi station, or every member of a host group.
fn endpoint(topo: &Topology, key: &str, name: &str) -> Result<Vec<NodeId>> {
    if let Some(&(first, count)) = topo.groups.get(name) {
        return Ok((first..first + count as NodeId).collect());
    }
    match topo.by_name.get(name) {
        Some(&id) if topo.is_endpoint(id) => Ok(vec![id]),
        Some(_) => Err(ScenarioError::new(key, format!("`{name}` is a router; flows run between hosts (routers only forward)"))
            .with_choices(topo.endpoint_names())),
        None => Err(ScenarioError::new(key, format!("unknown host or group `{name}`")).with_choices(topo.endpoint_names())),
    }
}

/// (src, dst) pairs of a flow entry: one side may be a single node; two groups pair member i
/// with member i.
fn pairs(topo: &Topology, key: &str, f: &raw::Flow) -> Result<Vec<(NodeId, NodeId)>> {
    let from = endpoint(topo, &join(key, "from"), &f.from)?;
    let to = endpoint(topo, &join(key, "to"), &f.to)?;
    let pairs: Vec<_> = match (from.len(), to.len()) {
        (1, _) => to.iter().map(|&t| (from[0], t)).collect(),
        (_, 1) => from.iter().map(|&s| (s, to[0])).collect(),
        (n, m) if n == m => from.into_iter().zip(to).collect(),
        (n, m) => {
            return fail(
                join(key, "to"),
                format!("`from` has {n} members and `to` has {m}: two groups are paired member by member and need equal counts"),
            )
        }
    };
    if let Some(&(s, _)) = pairs.iter().find(|(s, t)| s == t) {
        return fail(join(key, "to"), format!("a flow from `{}` to itself", topo.name(s)));
    }
    Ok(pairs)
}

fn flows(s: &Scenario, topo: &Topology, tunnels: &[tunnels::Resolved]) -> Result<Vec<FlowSpec>> {
    let mut entries = Vec::with_capacity(s.flows.len());
    let mut total: u64 = 0;
    // The entry with the most flows so far: the one a refusal names, not whichever entry
    // happened to cross the limit.
    let mut largest = (0u64, String::new());
    for (name, f) in &s.flows {
        let key = join("flows", name);
        let p = pairs(topo, &key, f)?;
        let here = (p.len() as u64).saturating_mul(f.count);
        total = total.saturating_add(here);
        if here > largest.0 {
            largest = (here, key.clone());
        }
        if total > d::MAX_FLOWS {
            return fail(
                join(&largest.1, "count"),
                format!(
                    "{} flows here (count × sender-receiver pairs) bring the run to {total} or more flows, above the limit of {}",
                    largest.0,
                    d::MAX_FLOWS
                ),
            );
        }
        if f.start.0 >= s.run.duration.0 {
            return fail(
                join(&key, "start"),
                format!(
                    "start ({}) must be before the end of the run (run.duration = {})",
                    f.start.canonical(),
                    s.run.duration.canonical()
                ),
            );
        }
        if let Some(spread) = f.start_spread.filter(|sp| f.start.0 + sp.0 > s.run.duration.0) {
            return fail(
                join(&key, "start_spread"),
                format!(
                    "start + start_spread ({} + {}) must not pass the end of the run (run.duration = {})",
                    f.start.canonical(),
                    spread.canonical(),
                    s.run.duration.canonical()
                ),
            );
        }
        entries.push((name, key, f, p));
    }
    let mut router =
        Router::new(topo, entries.iter().filter(|e| e.2.path.is_none() && e.2.tunnel.is_none()).flat_map(|e| e.3.iter().copied()));
    let mut mesh = Mesh::new(topo);
    let mut out = Vec::with_capacity(total as usize);
    for (name, key, f, pairs) in entries {
        if let Some(path) = &f.path {
            check_path_ends(&join(&key, "path"), path, f)?;
        }
        let many = pairs.len() as u64 * f.count > 1;
        let mut n = 0u64;
        let tunnel = match &f.tunnel {
            Some(t) => Some(tunnels.iter().position(|r| r.spec.name == *t).ok_or_else(|| {
                ScenarioError::new(join(&key, "tunnel"), format!("unknown tunnel `{t}`"))
                    .with_choices(tunnels.iter().map(|r| r.spec.name.clone()))
            })?),
            None => None,
        };
        for (src, dst) in pairs {
            let mut through = None;
            let fwd = match (&f.path, tunnel) {
                (_, Some(ti)) => {
                    let (to_ingress, after, acks) = tunnels::flow_routes(topo, &join(&key, "tunnel"), &tunnels[ti].spec, src, dst)?;
                    through = Some((TunnelUse { tunnel: ti as u32, after }, acks));
                    to_ingress
                }
                (Some(path), None) => routes::explicit(topo, &join(&key, "path"), path, src, dst)?,
                (None, None) => router.route(src, dst).ok_or_else(|| {
                    ScenarioError::new(
                        join(&key, "to"),
                        format!("no route from `{}` to `{}` (hosts do not forward; only routers do)", topo.name(src), topo.name(dst)),
                    )
                })?,
            };
            let rev = match &through {
                Some((_, acks)) => acks.clone(),
                None => routes::reverse(&fwd),
            };
            let transport = match &f.transport {
                Transport::Mptcp { paths, mptcp, .. } => {
                    // Through a tunnel a multipath flow has one path: the tunnel's.
                    let mp = match &through {
                        Some(_) => vec![fwd.clone()],
                        None => mptcp_paths(topo, &mut mesh, &key, paths.as_deref(), f, src, dst)?,
                    };
                    check_per_path(&join(&key, "mptcp"), &mptcp.priorities, &mptcp.backup, mp.len())?;
                    mptcp_spec(topo, &f.transport, mp)
                }
                Transport::Quic { paths, quic, priorities, backup, .. } => {
                    let routes = if quic.multipath && through.is_none() {
                        let mp = mptcp_paths(topo, &mut mesh, &key, paths.as_deref(), f, src, dst)?;
                        if mp.len() > MAX_PATHS {
                            return fail(
                                join(&key, "paths"),
                                format!(
                                    "{} paths from `{}` to `{}`, more than {MAX_PATHS} (mpquic): list the paths to use",
                                    mp.len(),
                                    topo.name(src),
                                    topo.name(dst)
                                ),
                            );
                        }
                        check_per_path(&join(&key, "quic"), priorities, backup, mp.len())?;
                        mp
                    } else {
                        vec![fwd.clone()]
                    };
                    quic_spec(&f.transport, routes)
                }
                _ => transport(&f.transport),
            };
            let mut transport = transport;
            if let Some((_, acks)) = &through {
                // The acknowledgments of a tunnelled multipath flow take the tunnel flow's way back.
                match &mut transport {
                    TransportSpec::Mptcp(m) => m.paths[0].rev_route = acks.clone(),
                    TransportSpec::Quic(q) => q.paths[0].rev_route = acks.clone(),
                    _ => {}
                }
            }
            let (fwd, rev) = match &transport {
                TransportSpec::Mptcp(m) => (m.paths[0].fwd_route.clone(), m.paths[0].rev_route.clone()),
                TransportSpec::Quic(q) => (q.paths[0].fwd_route.clone(), q.paths[0].rev_route.clone()),
                _ => (fwd, rev),
            };
            for _ in 0..f.count {
                let fname = if many { format!("{name}#{n}") } else { name.clone() };
                n += 1;
                let start = f.start.0 + start_offset(s.run.seed, f.start_spread, &fname);
                out.push(FlowSpec {
                    name: fname,
                    group: name.clone(),
                    src,
                    dst,
                    fwd_route: fwd.clone(),
                    rev_route: rev.clone(),
                    transport: transport.clone(),
                    app: app(&f.app, &f.transport),
                    start,
                    stop: f.stop.map(|t| t.0),
                    tunnel: through.as_ref().map(|t| t.0.clone()),
                });
            }
        }
    }
    Ok(out)
}

/// RNG stream kind of start offsets, apart from the kinds the simulation draws (links 1,
/// apps 2, schedulers 3, capacity models): a flow's offset depends only on (seed, flow name).
const STREAM_START: u64 = 0x7374_6172; // "star"

/// Flow `name`'s start offset: uniform in [0, spread), whole nanoseconds; 0 without a spread.
fn start_offset(seed: u64, spread: Option<Dur>, name: &str) -> Time {
    let Some(spread) = spread else { return 0 };
    let u = RngStream::new(seed, StreamId::named(STREAM_START, name)).uniform();
    ((u * spread.0 as f64) as Time).min(spread.0 - 1)
}

fn check_path_ends(key: &str, path: &[String], f: &raw::Flow) -> Result<()> {
    if path[0] != f.from {
        return fail(index(key, 0), format!("path must start at `from` (`{}`), got `{}`", f.from, path[0]));
    }
    let last = path.len() - 1;
    if path[last] != f.to {
        return fail(index(key, last), format!("path must end at `to` (`{}`), got `{}`", f.to, path[last]));
    }
    Ok(())
}

/// Routes of a multipath flow's subflows (or paths) from `src` to `dst`: the explicit `paths`,
/// else the full mesh. An explicit path starts at the entry's `from` and ends at its `to`; when
/// one is a host group, the path names the group and stands for every member (member-relative:
/// `["ues", "iab", "d1", "server"]` is `ues#0 → iab → d1 → server` for member 0, and so on).
/// Naming the member itself is accepted too.
fn mptcp_paths(
    topo: &Topology,
    mesh: &mut Mesh,
    key: &str,
    paths: Option<&[Vec<String>]>,
    f: &raw::Flow,
    src: NodeId,
    dst: NodeId,
) -> Result<Vec<Vec<LinkId>>> {
    match paths {
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, names)| {
                let k = index(&join(key, "paths"), i);
                let last = names.len() - 1;
                if names[0] != f.from && names[0] != topo.name(src) {
                    return fail(index(&k, 0), format!("path must start at `from` (`{}`), got `{}`", f.from, names[0]));
                }
                if names[last] != f.to && names[last] != topo.name(dst) {
                    return fail(index(&k, last), format!("path must end at `to` (`{}`), got `{}`", f.to, names[last]));
                }
                routes::explicit(topo, &k, names, src, dst)
            })
            .collect(),
        None => {
            let mut mesh = mesh.paths(src, dst);
            if mesh.is_empty() {
                return fail(
                    join(key, "to"),
                    format!("no route from `{}` to `{}` (hosts do not forward; only routers do)", topo.name(src), topo.name(dst)),
                );
            }
            if mesh.len() > MAX_SUBFLOWS {
                return fail(
                    join(key, "paths"),
                    format!(
                        "the full mesh from `{}` to `{}` has {} paths, more than {MAX_SUBFLOWS}: list the paths to use",
                        topo.name(src),
                        topo.name(dst),
                        mesh.len()
                    ),
                );
            }
            mesh.truncate(MAX_SUBFLOWS);
            Ok(mesh)
        }
    }
}

/// `priorities` and `backup` of the connection table `key` (`mptcp`, `quic`) give one entry per
/// path.
fn check_per_path(key: &str, priorities: &Option<Vec<u32>>, backup: &Option<Vec<bool>>, paths: usize) -> Result<()> {
    for (name, n) in [("priorities", priorities.as_ref().map(Vec::len)), ("backup", backup.as_ref().map(Vec::len))] {
        if let Some(n) = n.filter(|&n| n != paths) {
            return fail(join(key, name), format!("has {n} entries but the flow has {paths} paths"));
        }
    }
    Ok(())
}

fn mptcp_spec(topo: &Topology, t: &Transport, routes: Vec<Vec<LinkId>>) -> TransportSpec {
    let Transport::Mptcp { cc, scheduler, tcp, mptcp, .. } = t else { unreachable!("mptcp transport") };
    let config = tcp_config(tcp);
    let path_models = super::path_model::models(topo, &routes, config.mss);
    let paths = routes
        .into_iter()
        .enumerate()
        .map(|(i, fwd)| PathSpec {
            rev_route: routes::reverse(&fwd),
            fwd_route: fwd,
            priority: mptcp.priorities.as_ref().map_or(i as u32, |p| p[i]),
            backup: mptcp.backup.as_ref().is_some_and(|b| b[i]),
        })
        .collect();
    TransportSpec::Mptcp(MptcpSpec {
        cc: cc.clone(),
        scheduler: scheduler.clone(),
        config,
        mptcp: MptcpConfig {
            send_buffer: mptcp.send_buffer.0,
            recv_buffer: mptcp.recv_buffer.0,
            join_delay: mptcp.join_delay.0,
            reinject_on_rto: mptcp.reinject_on_rto,
            opportunistic_retransmit: mptcp.opportunistic_retransmit,
        },
        paths,
        path_models,
    })
}

fn quic_spec(t: &Transport, routes: Vec<Vec<LinkId>>) -> TransportSpec {
    let Transport::Quic { cc, scheduler, quic, priorities, backup, .. } = t else { unreachable!("quic transport") };
    let paths = routes
        .into_iter()
        .enumerate()
        .map(|(i, fwd)| PathSpec {
            rev_route: routes::reverse(&fwd),
            fwd_route: fwd,
            priority: priorities.as_ref().map_or(i as u32, |p| p[i]),
            backup: backup.as_ref().is_some_and(|b| b[i]),
        })
        .collect();
    TransportSpec::Quic(QuicSpec { cc: cc.clone(), scheduler: scheduler.clone(), quic: quic.clone(), paths })
}

pub(super) fn tcp_config(tcp: &raw::TcpOpts) -> TcpConfig {
    TcpConfig {
        mss: tcp.mss.0 as u32,
        handshake: tcp.handshake,
        sack: tcp.sack,
        initial_cwnd_segments: tcp.initial_cwnd,
        min_rto: tcp.min_rto.0,
        rto: tcp.rto,
        initial_rto: tcp.initial_rto.0,
        max_rto: tcp.max_rto.0,
        delayed_ack: DelayedAck { enabled: tcp.delayed_ack.enabled, every: tcp.delayed_ack.every, timeout: tcp.delayed_ack.timeout.0 },
        send_buffer: tcp.send_buffer.0,
        recv_buffer: tcp.recv_buffer.0,
        pacing: tcp.pacing,
        tlp: tcp.tlp,
    }
}

fn transport(t: &Transport) -> TransportSpec {
    match t {
        Transport::Tcp { cc, tcp } => TransportSpec::Tcp(TcpSpec { cc: cc.clone(), config: tcp_config(tcp) }),
        Transport::Mptcp { .. } | Transport::Quic { .. } => unreachable!("multipath flows are resolved with their paths"),
        Transport::Udp { packet_size } => TransportSpec::Udp(UdpSpec { payload: (packet_size.0 - d::UDP_HEADER) as u32 }),
    }
}

fn app(a: &App, t: &Transport) -> AppSpec {
    match a {
        App::Bulk => AppSpec::Bulk,
        App::Cbr { rate, write_size } => {
            let write_size = match (write_size, t) {
                (Some(w), _) => w.0,
                (None, Transport::Udp { packet_size }) => packet_size.0 - d::UDP_HEADER,
                (None, Transport::Quic { quic, .. }) => quic.one_packet_stream_bytes() as u64,
                (None, Transport::Tcp { .. } | Transport::Mptcp { .. }) => d::TCP_WRITE_SIZE.0,
            };
            AppSpec::Cbr { rate_bps: rate.0, write_size: write_size as u32 }
        }
        App::Poisson { rate, message_size, count } => {
            AppSpec::Poisson { rate_bps: rate.0, message_size: message_size.0 as u32, count: *count }
        }
        App::File { size, rate: None } => AppSpec::File { size: size.0 },
        App::File { size, rate: Some(rate) } => {
            let payload = match t {
                Transport::Udp { packet_size } => packet_size.0 - d::UDP_HEADER,
                _ => unreachable!("parse_flow allows a rate on udp file transfers only"),
            };
            AppSpec::PacedFile { size: size.0, rate_bps: rate.0, datagram: payload as u32 }
        }
    }
}

/// One group per flow entry (in entry-name order), then the scenario's extra groups (in name
/// order), each the union of the named entries' flows.
fn jain_groups(s: &Scenario, flows: &[FlowSpec]) -> Result<Vec<(String, Vec<FlowId>)>> {
    let members =
        |entry: &str| -> Vec<FlowId> { flows.iter().enumerate().filter(|(_, f)| f.group == entry).map(|(i, _)| i as FlowId).collect() };
    let mut out: Vec<(String, Vec<FlowId>)> = s.flows.keys().map(|n| (n.clone(), members(n))).collect();
    for (gname, entries) in &s.metrics.jain_groups {
        let key = format!("metrics.jain_groups.{gname}");
        if s.flows.contains_key(gname) {
            return fail(key, format!("`{gname}` is already a flow entry, which is a Jain group by itself"));
        }
        let mut ids = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            if !s.flows.contains_key(e) {
                return Err(ScenarioError::new(index(&key, i), format!("unknown flow entry `{e}`")).with_choices(s.flows.keys()));
            }
            ids.extend(members(e));
        }
        ids.sort_unstable();
        ids.dedup();
        out.push((gname.clone(), ids));
    }
    Ok(out)
}
