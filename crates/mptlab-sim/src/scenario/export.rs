//! The resolved run as plain data, for a backend other than the simulator (emulation: issue 24).
//!
//! `export(&RunSpec)` turns the run the simulator would execute into serde structs that name
//! things instead of indexing them: nodes, link directions (rate, delay, queue, loss, capacity
//! model and the scenario events on them), each flow's routes per path as link names, its
//! algorithms and the transport parameters a kernel can be told. Every value is the one the
//! simulator uses (queue limits after BDP resolution, routes after Dijkstra, groups and counts
//! expanded). Times are integer nanoseconds (fields end in `_ns`), rates bit/s, sizes bytes.
//! The format is documented field by field in `docs/resolve.md`.

use crate::spec::{
    AppSpec, CapacitySpec, FlowSpec, LinkAction, LinkSpec, LossSpec, NodeKind, PathSpec, QueueLimit, QueueSpec, RunSpec, TransportSpec,
};
use mptlab_engine::Time;
use serde::Serialize;

/// One resolved run.
#[derive(Clone, Debug, Serialize)]
pub struct Resolved {
    pub run: RunInfo,
    pub nodes: Vec<Node>,
    /// One entry per link direction, in the simulator's order (`x` then `x.rev`).
    pub links: Vec<Link>,
    /// Flows after expanding counts and groups, in the simulator's order.
    pub flows: Vec<Flow>,
    /// Multipath tunnels (docs/tunnels.md), in the simulator's order.
    pub tunnels: Vec<Tunnel>,
}

/// A multipath tunnel: its ends, what runs on its paths, and the paths (ingress → egress data,
/// egress → ingress acknowledgments).
#[derive(Clone, Debug, Serialize)]
pub struct Tunnel {
    pub name: String,
    pub ingress: String,
    pub egress: String,
    /// `dccp` or `tcp`.
    pub protocol: &'static str,
    pub cc: Algorithm,
    pub scheduler: Algorithm,
    pub paths: Vec<Path>,
}

/// How a flow crosses a tunnel: its `paths[0].fwd` ends at the ingress; after the egress its
/// data takes `after` to the destination (empty when the egress is the destination).
#[derive(Clone, Debug, Serialize)]
pub struct FlowTunnel {
    pub name: String,
    pub after: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    pub seed: u64,
    pub duration_ns: Time,
    /// Throughput bin width.
    pub interval_ns: Time,
    /// Sampling period of cwnd / SRTT / queue traces.
    pub trace_interval_ns: Time,
}

#[derive(Clone, Debug, Serialize)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, Serialize)]
pub struct Link {
    pub name: String,
    /// The opposite direction of the same duplex link.
    pub reverse: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_ns: Time,
    pub queue: Queue,
    pub loss: LossSpec,
    /// A model that sets the rate over time (`rate_bps` is then nominal); its times are ns.
    pub capacity: Option<CapacitySpec>,
    /// The scenario events on this direction, in time order.
    pub events: Vec<Event>,
}

/// A queue discipline and its hard limit: exactly one of `limit_packets` and `limit_bytes` is
/// set, the unit the simulator enforces.
#[derive(Clone, Debug, Serialize)]
pub struct Queue {
    /// `droptail`, `codel` or `red`.
    pub kind: &'static str,
    pub limit_packets: Option<u64>,
    pub limit_bytes: Option<u64>,
    /// CoDel only: target sojourn time and interval.
    pub target_ns: Option<Time>,
    pub interval_ns: Option<Time>,
    /// RED only: thresholds on the average queue (in the limit's unit), max_p, w_q, gentle.
    pub red: Option<Red>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Red {
    pub min: QueueLimit,
    pub max: QueueLimit,
    pub max_p: f64,
    pub weight: f64,
    pub gentle: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Event {
    pub at_ns: Time,
    /// `down`, `up` or `rate`.
    pub action: &'static str,
    /// `rate` only: the new rate.
    pub rate_bps: Option<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Flow {
    pub name: String,
    /// The scenario entry the flow came from.
    pub group: String,
    /// `tcp`, `udp`, `mptcp` or `quic` (multipath QUIC: `quic` with `multipath` true).
    pub protocol: &'static str,
    pub multipath: bool,
    pub src: String,
    pub dst: String,
    pub start_ns: Time,
    /// The application stops generating data then (None: runs to the end).
    pub stop_ns: Option<Time>,
    pub app: AppSpec,
    /// The congestion controller (None for UDP).
    pub cc: Option<Algorithm>,
    /// The multipath scheduler (MPTCP and QUIC only).
    pub scheduler: Option<Algorithm>,
    /// One entry per path (subflow), in path order; a single-path flow has one.
    pub paths: Vec<Path>,
    pub tcp: Option<TcpParams>,
    pub quic: Option<QuicParams>,
    pub udp: Option<UdpParams>,
    /// The tunnel the flow's data enters (None: none).
    pub tunnel: Option<FlowTunnel>,
}

/// A registry name and its options as the scenario spells them (`{}` when it has none).
#[derive(Clone, Debug, Serialize)]
pub struct Algorithm {
    pub name: String,
    pub options: serde_json::Value,
}

#[derive(Clone, Debug, Serialize)]
pub struct Path {
    /// Link directions from src to dst (data) and from dst to src (ACKs).
    pub fwd: Vec<String>,
    pub rev: Vec<String>,
    /// Scheduler preference, lower first.
    pub priority: u32,
    /// RFC 8684 backup path.
    pub backup: bool,
}

/// TCP (and MPTCP subflow) parameters; for MPTCP the buffers are the connection's.
#[derive(Clone, Debug, Serialize)]
pub struct TcpParams {
    pub mss: u32,
    pub sack: bool,
    pub handshake: bool,
    pub initial_cwnd_segments: u32,
    pub min_rto_ns: Time,
    pub initial_rto_ns: Time,
    pub max_rto_ns: Time,
    /// `linux` or `rfc6298`.
    pub rto: &'static str,
    pub delayed_ack: bool,
    pub delayed_ack_every: u32,
    pub delayed_ack_timeout_ns: Time,
    pub send_buffer: u64,
    pub recv_buffer: u64,
    pub pacing: bool,
    pub tlp: bool,
    /// MPTCP only: delay before the extra subflows join.
    pub join_delay_ns: Option<Time>,
}

#[derive(Clone, Debug, Serialize)]
pub struct QuicParams {
    pub max_udp_payload: u32,
    pub max_data: u64,
    pub max_stream_data: u64,
    /// Bytes the application may have written and the peer not yet acknowledged.
    pub send_buffer: u64,
    pub max_ack_delay_ns: Time,
    pub streams: u32,
    pub handshake: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct UdpParams {
    /// Payload bytes per datagram (wire size = payload + 28).
    pub payload: u32,
}

/// The resolved run of `spec`.
pub fn export(spec: &RunSpec) -> Resolved {
    let node = |id: u32| spec.nodes[id as usize].name.clone();
    let link_name = |id: &u32| spec.links[*id as usize].name.clone();
    let names = |route: &[u32]| route.iter().map(link_name).collect::<Vec<_>>();
    Resolved {
        run: RunInfo {
            seed: spec.seed,
            duration_ns: spec.duration,
            interval_ns: spec.metrics.interval,
            trace_interval_ns: spec.metrics.trace_interval,
        },
        nodes: spec.nodes.iter().map(|n| Node { name: n.name.clone(), kind: n.kind }).collect(),
        links: spec.links.iter().enumerate().map(|(i, l)| link(spec, i, l, &node)).collect(),
        flows: spec
            .flows
            .iter()
            .map(|f| Flow {
                tunnel: f
                    .tunnel
                    .as_ref()
                    .map(|t| FlowTunnel { name: spec.tunnels[t.tunnel as usize].name.clone(), after: names(&t.after) }),
                ..flow(f, &node, &names)
            })
            .collect(),
        tunnels: spec
            .tunnels
            .iter()
            .map(|t| Tunnel {
                name: t.name.clone(),
                ingress: node(t.ingress),
                egress: node(t.egress),
                protocol: t.kind.name(),
                cc: algorithm(&t.cc, "cc"),
                scheduler: algorithm(&t.scheduler, "scheduler"),
                paths: t
                    .paths
                    .iter()
                    .map(|p| Path { fwd: names(&p.fwd_route), rev: names(&p.rev_route), priority: p.priority, backup: p.backup })
                    .collect(),
            })
            .collect(),
    }
}

fn link(spec: &RunSpec, i: usize, l: &LinkSpec, node: &impl Fn(u32) -> String) -> Link {
    // Duplex links are laid out as `x` at 2k and `x.rev` at 2k+1 (scenario::topology).
    let reverse = spec.links[i ^ 1].name.clone();
    let events = spec.events.iter().filter(|e| e.link as usize == i).map(|e| event(e.at, e.action)).collect();
    Link {
        name: l.name.clone(),
        reverse,
        from: node(l.from),
        to: node(l.to),
        rate_bps: l.rate_bps,
        delay_ns: l.delay,
        queue: queue(&l.queue),
        loss: l.loss,
        capacity: l.capacity.clone(),
        events,
    }
}

fn queue(q: &QueueSpec) -> Queue {
    let (kind, limit, codel, red) = match *q {
        QueueSpec::DropTail { limit } => ("droptail", limit, None, None),
        QueueSpec::CoDel { limit, target, interval } => ("codel", limit, Some((target, interval)), None),
        QueueSpec::Red { limit, min, max, max_p, weight, gentle } => ("red", limit, None, Some(Red { min, max, max_p, weight, gentle })),
    };
    let (limit_packets, limit_bytes) = match limit {
        QueueLimit::Packets(n) => (Some(n), None),
        QueueLimit::Bytes(n) => (None, Some(n)),
    };
    Queue { kind, limit_packets, limit_bytes, target_ns: codel.map(|c| c.0), interval_ns: codel.map(|c| c.1), red }
}

fn event(at: Time, action: LinkAction) -> Event {
    let (action, rate_bps) = match action {
        LinkAction::Down => ("down", None),
        LinkAction::Up => ("up", None),
        LinkAction::Rate { rate_bps } => ("rate", Some(rate_bps)),
    };
    Event { at_ns: at, action, rate_bps }
}

fn flow(f: &FlowSpec, node: &impl Fn(u32) -> String, names: &impl Fn(&[u32]) -> Vec<String>) -> Flow {
    let path = |p: &PathSpec| Path { fwd: names(&p.fwd_route), rev: names(&p.rev_route), priority: p.priority, backup: p.backup };
    let single = || vec![Path { fwd: names(&f.fwd_route), rev: names(&f.rev_route), priority: 0, backup: false }];
    let mut out = Flow {
        name: f.name.clone(),
        group: f.group.clone(),
        protocol: "",
        multipath: false,
        src: node(f.src),
        dst: node(f.dst),
        start_ns: f.start,
        stop_ns: f.stop,
        app: f.app.clone(),
        cc: None,
        scheduler: None,
        paths: Vec::new(),
        tcp: None,
        quic: None,
        udp: None,
        tunnel: None,
    };
    match &f.transport {
        TransportSpec::Tcp(t) => {
            out.protocol = "tcp";
            out.cc = Some(algorithm(&t.cc, "cc"));
            out.paths = single();
            out.tcp = Some(tcp(&t.config, None));
        }
        TransportSpec::Udp(u) => {
            out.protocol = "udp";
            out.paths = single();
            out.udp = Some(UdpParams { payload: u.payload });
        }
        TransportSpec::Mptcp(m) => {
            out.protocol = "mptcp";
            out.multipath = true;
            out.cc = Some(algorithm(&m.cc, "cc"));
            out.scheduler = Some(algorithm(&m.scheduler, "scheduler"));
            out.paths = m.paths.iter().map(path).collect();
            let mut params = tcp(&m.config, Some(m.mptcp.join_delay));
            (params.send_buffer, params.recv_buffer) = (m.mptcp.send_buffer, m.mptcp.recv_buffer);
            out.tcp = Some(params);
        }
        TransportSpec::Quic(q) => {
            out.protocol = "quic";
            out.multipath = q.quic.multipath;
            out.cc = Some(algorithm(&q.cc, "cc"));
            out.scheduler = Some(algorithm(&q.scheduler, "scheduler"));
            out.paths = q.paths.iter().map(path).collect();
            let c = &q.quic;
            out.quic = Some(QuicParams {
                max_udp_payload: c.max_udp_payload,
                max_data: c.max_data,
                max_stream_data: c.max_stream_data,
                send_buffer: c.send_buffer,
                max_ack_delay_ns: c.max_ack_delay,
                streams: c.streams,
                handshake: c.handshake,
            });
        }
    }
    out
}

fn tcp(c: &crate::transport::tcp::TcpConfig, join_delay: Option<Time>) -> TcpParams {
    let rto = serde_json::to_value(c.rto).ok().and_then(|v| v.as_str().map(str::to_owned));
    TcpParams {
        mss: c.mss,
        sack: c.sack,
        handshake: c.handshake,
        initial_cwnd_segments: c.initial_cwnd_segments,
        min_rto_ns: c.min_rto,
        initial_rto_ns: c.initial_rto,
        max_rto_ns: c.max_rto,
        rto: match rto.as_deref() {
            Some("rfc6298") => "rfc6298",
            _ => "linux",
        },
        delayed_ack: c.delayed_ack.enabled,
        delayed_ack_every: c.delayed_ack.every,
        delayed_ack_timeout_ns: c.delayed_ack.timeout,
        send_buffer: c.send_buffer,
        recv_buffer: c.recv_buffer,
        pacing: c.pacing,
        tlp: c.tlp,
        join_delay_ns: join_delay,
    }
}

/// Name and options of a controller or scheduler config, read from its serialisation (the
/// scenario's `{key: name, key_options: {...}}`), so a new algorithm needs nothing here.
fn algorithm(config: &impl Serialize, key: &str) -> Algorithm {
    let mut v = serde_json::to_value(config).expect("an algorithm config serialises to JSON");
    let name = v.get(key).and_then(|n| n.as_str()).unwrap_or_default().to_owned();
    let options = v.get_mut(format!("{key}_options")).map(serde_json::Value::take).unwrap_or_else(|| serde_json::json!({}));
    Algorithm { name, options }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;

    const TWO_PATHS: &str = include_str!("../../../../scenarios/mptcp-two-paths.toml");

    fn resolved(text: &str, overrides: &[(&str, &str)]) -> (RunSpec, Resolved) {
        let ovr: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let spec = load(text, &ovr, None).unwrap().spec;
        let r = export(&spec);
        (spec, r)
    }

    fn link<'a>(r: &'a Resolved, name: &str) -> &'a Link {
        r.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
    }

    #[test]
    fn two_paths_routes_are_the_simulators_per_subflow() {
        let (spec, r) = resolved(TWO_PATHS, &[]);
        let f = &r.flows[0];
        assert_eq!((f.protocol, f.multipath, f.src.as_str(), f.dst.as_str()), ("mptcp", true, "client", "server"));
        assert_eq!(f.paths.len(), 2);
        assert_eq!(f.paths[0].fwd, ["path1", "path1_server"]);
        assert_eq!(f.paths[0].rev, ["path1_server.rev", "path1.rev"]);
        assert_eq!(f.paths[1].fwd, ["path2", "path2_server"]);
        assert_eq!(f.paths[1].rev, ["path2_server.rev", "path2.rev"]);
        assert_eq!((f.paths[0].priority, f.paths[1].priority), (0, 1));
        assert!(!f.paths[0].backup && !f.paths[1].backup);
        // The same link directions, in the same order, as the spec the simulator is built from.
        let TransportSpec::Mptcp(m) = &spec.flows[0].transport else { panic!("not mptcp") };
        for (p, sp) in f.paths.iter().zip(&m.paths) {
            let ids: Vec<u32> = p.fwd.iter().map(|n| spec.links.iter().position(|l| &l.name == n).unwrap() as u32).collect();
            assert_eq!(ids, sp.fwd_route);
        }
    }

    #[test]
    fn two_paths_links_carry_rates_delays_and_resolved_queue_limits() {
        let (spec, r) = resolved(TWO_PATHS, &[]);
        assert_eq!(r.links.len(), spec.links.len());
        assert_eq!(r.links.len(), 8);
        let p1 = link(&r, "path1");
        assert_eq!((p1.from.as_str(), p1.to.as_str(), p1.reverse.as_str()), ("client", "r1", "path1.rev"));
        assert_eq!((p1.rate_bps, p1.delay_ns), (10_000_000, 10_000_000));
        // 1 BDP = 10 Mbit/s × the 22 ms round trip of the subflow crossing it = 27 500 B.
        assert_eq!((p1.queue.kind, p1.queue.limit_bytes, p1.queue.limit_packets), ("droptail", Some(27_500), None));
        let p2 = link(&r, "path2");
        assert_eq!((p2.rate_bps, p2.delay_ns), (10_000_000, 30_000_000));
        assert_eq!(p2.queue.limit_bytes, Some(10_000_000 / 8 * 62 / 1000));
        let back = link(&r, "path2_server.rev");
        assert_eq!((back.from.as_str(), back.to.as_str(), back.rate_bps), ("server", "r2", 1_000_000_000));
        for (l, s) in r.links.iter().zip(&spec.links) {
            assert_eq!((l.rate_bps, l.delay_ns, l.name.as_str()), (s.rate_bps, s.delay, s.name.as_str()));
        }
        assert_eq!(r.nodes.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(), ["client", "server", "r1", "r2"]);
        assert_eq!((r.run.seed, r.run.duration_ns), (1, 20_000_000_000));
    }

    #[test]
    fn two_paths_flow_names_its_algorithms_and_kernel_parameters() {
        let (_, r) = resolved(TWO_PATHS, &[("flows.mp.cc", "lia"), ("flows.mp.mptcp.recv_buffer", "64KB")]);
        let f = &r.flows[0];
        assert_eq!(f.cc.as_ref().unwrap().name, "lia");
        let s = f.scheduler.as_ref().unwrap();
        assert_eq!(s.name, "default");
        assert!(s.options.is_object());
        let t = f.tcp.as_ref().unwrap();
        // MPTCP's default MSS leaves room for the 28 B DSS option (a full segment is 1500 B).
        assert_eq!((t.mss, t.sack, t.delayed_ack, t.delayed_ack_every), (1432, true, true, 2));
        assert_eq!(t.recv_buffer, 64_000);
        assert_eq!(t.join_delay_ns, Some(0));
        assert!(f.quic.is_none() && f.udp.is_none());
    }

    #[test]
    fn events_loss_and_codel_reach_their_link_direction() {
        let text = TWO_PATHS.replace(
            "queue = { kind = \"droptail\", limit = \"1bdp\" }\n\n[links.path1_server]",
            "queue = { kind = \"codel\", limit = \"100p\" }\nloss = { model = \"bernoulli\", p = 0.01 }\n\n[links.path1_server]",
        ) + "\n[[events]]\nat = \"5s\"\nlink = \"path2\"\naction = \"down\"\n";
        let (_, r) = resolved(&text, &[]);
        let p1 = link(&r, "path1");
        assert_eq!((p1.queue.kind, p1.queue.limit_packets, p1.queue.target_ns), ("codel", Some(100), Some(5_000_000)));
        assert!(matches!(p1.loss, LossSpec::Bernoulli { p } if p == 0.01));
        for name in ["path2", "path2.rev"] {
            let e = &link(&r, name).events;
            assert_eq!(e.len(), 1, "{name}");
            assert_eq!((e[0].at_ns, e[0].action, e[0].rate_bps), (5_000_000_000, "down", None));
        }
        assert!(link(&r, "path1").events.is_empty());
    }
}
