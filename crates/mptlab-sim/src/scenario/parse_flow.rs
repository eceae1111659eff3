//! `[flows.<name>]` entries → `raw::Flow`: endpoints, count, protocol and its options (congestion
//! controller, TCP options, UDP packet size), application and timing. Checks that depend only on
//! the entry itself happen here (protocol-specific keys, stop after start, sizes that fit a
//! packet); endpoints and routes are resolved later.

use super::defaults as d;
use super::errors::{fail, Result, ScenarioError};
use super::raw::{App, DelayedAck, Flow, MptcpOpts, TcpOpts, Transport};
use super::reader::{self as r, kinded, Tbl};
use super::units::Size;
use crate::cc::options::OptValue;
use crate::cc::registry::{self, AlgoInfo, CONGESTION_CONTROLLERS};
use crate::cc::CcConfig;
use crate::sched::registry::SCHEDULERS;
use crate::sched::SchedConfig;
use crate::transport::mptcp::MAX_SUBFLOWS;
use crate::transport::tcp::RtoFormula;
use toml::Value;

const FLOW: &[&str] = &[
    "from",
    "to",
    "count",
    "protocol",
    "cc",
    "app",
    "start",
    "start_spread",
    "stop",
    "path",
    "packet_size",
    "tcp",
    "cc_options",
    "scheduler",
    "scheduler_options",
    "paths",
    "mptcp",
    "quic",
    "tunnel",
];
pub const PROTOCOLS: &[&str] = &["tcp", "udp", "mptcp", "quic", "mpquic"];
const MPTCP: &[&str] = &["send_buffer", "recv_buffer", "join_delay", "reinject_on_rto", "opportunistic_retransmit", "priorities", "backup"];
const TCP: &[&str] = &[
    "mss",
    "handshake",
    "sack",
    "initial_cwnd",
    "min_rto",
    "rto",
    "initial_rto",
    "max_rto",
    "delayed_ack",
    "send_buffer",
    "recv_buffer",
    "pacing",
    "tlp",
];
const DELAYED_ACK: &[&str] = &["enabled", "every", "timeout"];
/// Application kinds with their keys besides `kind`.
pub const APP_KINDS: &[(&str, &[&str])] =
    &[("bulk", &[]), ("cbr", &["rate", "write_size"]), ("poisson", &["rate", "message_size", "count"]), ("file", &["size", "rate"])];

pub fn flow(key: &str, v: &Value) -> Result<Flow> {
    let t = Tbl::new(key, v, FLOW)?;
    let from = t.must("from", r::name)?.to_string();
    let to = t.must("to", r::name)?.to_string();
    let count = t.or("count", d::FLOW_COUNT as i64, |k, v| r::int(k, v, 1, d::MAX_FLOWS as i64))? as u64;
    let protocol = t.or("protocol", d::PROTOCOL, |k, v| r::one_of(k, v, "protocol", PROTOCOLS))?;
    let only: &[(&str, &[&str])] = &[
        ("scheduler", &["mptcp", "mpquic"]),
        ("scheduler_options", &["mptcp", "mpquic"]),
        ("paths", &["mptcp", "mpquic"]),
        ("mptcp", &["mptcp"]),
        ("quic", &["quic", "mpquic"]),
    ];
    for (k, protos) in only {
        if t.has(k) && !protos.contains(&protocol) {
            return fail(t.key(k), format!("only for {} flows (this flow has protocol = \"{protocol}\")", protos.join(" and ")));
        }
    }
    let transport = match protocol {
        "tcp" => tcp_transport(&t)?,
        "mptcp" => mptcp_transport(&t)?,
        "quic" => super::parse_quic::quic_transport(&t, false)?,
        "mpquic" => super::parse_quic::quic_transport(&t, true)?,
        _ => udp_transport(&t)?,
    };
    let app = t.or("app", App::Bulk, |k, v| app(k, v, &transport))?;
    let start = t.or("start", d::START, r::time)?;
    let start_spread = t.opt("start_spread", r::time)?.filter(|s| s.0 > 0);
    let stop = t.opt("stop", r::time)?;
    if let Some(stop) = stop {
        if stop.0 <= start.0 {
            return fail(t.key("stop"), format!("stop ({}) must be after start ({})", stop.canonical(), start.canonical()));
        }
        if let Some(spread) = start_spread.filter(|s| start.0 + s.0 >= stop.0) {
            return fail(
                t.key("start_spread"),
                format!(
                    "start + start_spread ({} + {}) must be before stop ({}): every flow must get to run",
                    start.canonical(),
                    spread.canonical(),
                    stop.canonical()
                ),
            );
        }
    }
    let path = t.opt("path", |k, v| {
        let list = r::strings(k, v)?;
        if list.len() < 2 {
            return fail(k, "a path needs at least two nodes (from and to)");
        }
        Ok(list.into_iter().map(String::from).collect())
    })?;
    let tunnel = t.opt("tunnel", r::name)?.map(String::from);
    if tunnel.is_some() {
        if t.has("paths") {
            return fail(t.key("paths"), "a multipath flow through a tunnel has one path, the tunnel's; `paths` is not used");
        }
        if path.is_some() {
            return fail(
                t.key("path"),
                "a flow through a tunnel takes the shortest path to the ingress and from the egress; `path` is not used",
            );
        }
    }
    Ok(Flow { from, to, count, transport, app, start, start_spread, stop, path, tunnel })
}

fn tcp_transport(t: &Tbl) -> Result<Transport> {
    let (cc, tcp) = tcp_parts(t, false)?;
    Ok(Transport::Tcp { cc, tcp })
}

/// The congestion controller and TCP options of a tcp flow or of an mptcp flow's subflows.
fn tcp_parts(t: &Tbl, mptcp: bool) -> Result<(CcConfig, TcpOpts)> {
    if t.has("packet_size") {
        return fail(t.key("packet_size"), "only for udp flows; tcp and mptcp flows set tcp.mss");
    }
    let cc = congestion_controller(t)?;
    let def = d::tcp_for(mptcp);
    let tcp = t.or("tcp", def.clone(), |k, v| tcp_opts(k, v, &def))?;
    Ok((cc, tcp))
}

/// `cc` and `cc_options`.
pub(super) fn congestion_controller(t: &Tbl) -> Result<CcConfig> {
    let cc = t.or("cc", d::CC, |k, v| algorithm(k, v, CONGESTION_CONTROLLERS, "congestion controller"))?;
    let mut cc = CcConfig::default_for(cc).expect("every registry name has a config");
    if let Some(v) = t.get("cc_options") {
        let path = t.key("cc_options");
        options(&path, v, cc.name(), cc.option_names(), |k, val| cc.set(k, val))?;
        cc.check().map_err(|reason| ScenarioError::new(&path, reason))?;
    }
    Ok(cc)
}

/// A name of `registry` (case-insensitive, aliases allowed) → its canonical name; an unknown
/// one is an error listing the known names.
pub(super) fn algorithm(k: &str, v: &Value, registry: &[AlgoInfo], what: &str) -> Result<&'static str> {
    let name = r::string(k, v)?;
    registry::resolve(registry, name)
        .ok_or_else(|| ScenarioError::new(k, format!("unknown {what} `{name}`")).with_choices(registry::names(registry)))
}

fn mptcp_transport(t: &Tbl) -> Result<Transport> {
    if t.has("path") {
        return fail(t.key("path"), "mptcp flows list their paths in `paths` (a list of node lists)");
    }
    if let Some(Value::Table(opts)) = t.get("tcp") {
        for k in ["send_buffer", "recv_buffer"] {
            if opts.contains_key(k) {
                return fail(format!("{}.{k}", t.key("tcp")), format!("mptcp flows have connection-level buffers: set mptcp.{k}"));
            }
        }
    }
    let (cc, tcp) = tcp_parts(t, true)?;
    let scheduler = scheduler(t, d::SCHEDULER)?;
    let paths = paths(t, MAX_SUBFLOWS, "an mptcp flow")?;
    let mptcp = t.or("mptcp", d::mptcp(), |k, v| mptcp_opts(k, v, tcp.mss))?;
    Ok(Transport::Mptcp { cc, scheduler, tcp, mptcp, paths })
}

/// `scheduler` and `scheduler_options` of a multipath flow.
pub(super) fn scheduler(t: &Tbl, default: &str) -> Result<SchedConfig> {
    let name = t.or("scheduler", default, |k, v| algorithm(k, v, SCHEDULERS, "scheduler"))?;
    let mut scheduler = SchedConfig::default_for(name).expect("every scheduler name has a config");
    if let Some(v) = t.get("scheduler_options") {
        let path = t.key("scheduler_options");
        options(&path, v, scheduler.name(), scheduler.option_names(), |k, val| scheduler.set(k, val))?;
    }
    Ok(scheduler)
}

/// `paths` of a multipath flow: 1 to `max` lists of node names.
pub(super) fn paths(t: &Tbl, max: usize, what: &str) -> Result<Option<Vec<Vec<String>>>> {
    t.opt("paths", |k, v| {
        let Value::Array(list) = v else {
            return fail(k, format!("expected a list of paths (each a list of node names), found {}", r::type_name(v)));
        };
        if list.is_empty() || list.len() > max {
            return fail(k, format!("{what} needs 1 to {max} paths, got {}", list.len()));
        }
        list.iter()
            .enumerate()
            .map(|(i, p)| {
                let key = format!("{k}[{i}]");
                let names = r::strings(&key, p)?;
                if names.len() < 2 {
                    return fail(&key, "a path needs at least two nodes (from and to)");
                }
                Ok(names.into_iter().map(String::from).collect())
            })
            .collect::<Result<Vec<Vec<String>>>>()
    })
}

/// A send or receive buffer size: at least one segment of `mss`.
fn buffer_size(k: &str, v: &Value, mss: Size) -> Result<Size> {
    let s = r::size(k, v)?;
    if s.0 < mss.0 {
        return fail(k, format!("buffer must hold at least one segment (mss = {} B)", mss.0));
    }
    Ok(s)
}

fn mptcp_opts(key: &str, v: &Value, mss: Size) -> Result<MptcpOpts> {
    let t = Tbl::new(key, v, MPTCP)?;
    let def = d::mptcp();
    let buffer = |k: &str, v: &Value| buffer_size(k, v, mss);
    let (priorities, backup) = path_prefs(&t, MAX_SUBFLOWS)?;
    Ok(MptcpOpts {
        send_buffer: t.or("send_buffer", def.send_buffer, buffer)?,
        recv_buffer: t.or("recv_buffer", def.recv_buffer, buffer)?,
        join_delay: t.or("join_delay", def.join_delay, r::time)?,
        reinject_on_rto: t.or("reinject_on_rto", def.reinject_on_rto, r::boolean)?,
        opportunistic_retransmit: t.or("opportunistic_retransmit", def.opportunistic_retransmit, r::boolean)?,
        priorities,
        backup,
    })
}

/// `priorities` and `backup` as given (None: not given).
pub(super) type PrefLists = (Option<Vec<u32>>, Option<Vec<bool>>);

/// The per-path preference lists of a multipath flow's connection table (`mptcp`, `quic`):
/// `priorities` (scheduler preference, lower first) and `backup`, one entry per path (at most
/// `max` entries; the count is checked against the flow's paths when they are resolved).
pub(super) fn path_prefs(t: &Tbl, max: usize) -> Result<PrefLists> {
    let list = |k: &str, v: &Value| -> Result<Vec<Value>> {
        match v {
            Value::Array(a) if !a.is_empty() && a.len() <= max => Ok(a.clone()),
            Value::Array(a) => fail(k, format!("expected 1 to {max} entries (one per path), got {}", a.len())),
            other => fail(k, format!("expected a list (one entry per path), found {}", r::type_name(other))),
        }
    };
    let priorities = t.opt("priorities", |k, v| {
        list(k, v)?.iter().enumerate().map(|(i, x)| r::int(&format!("{k}[{i}]"), x, 0, 1_000_000).map(|n| n as u32)).collect()
    })?;
    let backup = t.opt("backup", |k, v| list(k, v)?.iter().enumerate().map(|(i, x)| r::boolean(&format!("{k}[{i}]"), x)).collect())?;
    Ok((priorities, backup))
}

/// `cc_options` / `scheduler_options = { key = value, ... }`: options of the chosen algorithm
/// `algo`, whose option names are `names`; `set` applies one.
fn options(
    path: &str,
    v: &Value,
    algo: &str,
    names: &[&'static str],
    mut set: impl FnMut(&str, OptValue) -> std::result::Result<(), String>,
) -> Result<()> {
    let Value::Table(map) = v else {
        return fail(path, format!("expected a table of options, found {}", r::type_name(v)));
    };
    for (k, val) in map {
        let key = format!("{path}.{k}");
        if !names.contains(&k.as_str()) {
            let reason = if names.is_empty() { format!("`{algo}` has no options") } else { format!("unknown option for `{algo}`") };
            return Err(ScenarioError::new(&key, reason).with_choices(names.to_vec()));
        }
        let value = match val {
            Value::Boolean(b) => OptValue::Bool(*b),
            Value::Integer(i) => OptValue::Num(*i as f64),
            Value::Float(x) => OptValue::Num(*x),
            Value::String(s) => OptValue::Str(s),
            other => return fail(&key, format!("expected a number, a boolean or a string, found {}", r::type_name(other))),
        };
        set(k, value).map_err(|reason| ScenarioError::new(&key, reason))?;
    }
    Ok(())
}

fn udp_transport(t: &Tbl) -> Result<Transport> {
    for k in ["cc", "cc_options", "tcp"] {
        if t.has(k) {
            return fail(t.key(k), "only for tcp flows (this flow has protocol = \"udp\")");
        }
    }
    let packet_size = t.or("packet_size", d::UDP_PACKET_SIZE, |k, v| {
        let s = r::size(k, v)?;
        if s.0 <= d::UDP_HEADER || s.0 > d::MAX_PACKET {
            return fail(
                k,
                format!(
                    "packet size must be in [{}, {}] bytes (28 B of IPv4 + UDP headers and at least 1 B of payload), got {}",
                    d::UDP_HEADER + 1,
                    d::MAX_PACKET,
                    s.0
                ),
            );
        }
        Ok(s)
    })?;
    Ok(Transport::Udp { packet_size })
}

pub(super) fn tcp_opts(key: &str, v: &Value, def: &TcpOpts) -> Result<TcpOpts> {
    let t = Tbl::new(key, v, TCP)?;
    let mss = t.or("mss", def.mss, |k, v| {
        let s = r::size(k, v)?;
        if s.0 > d::MAX_PACKET - d::TCP_HEADER {
            return fail(k, format!("mss must be at most {} bytes", d::MAX_PACKET - d::TCP_HEADER));
        }
        Ok(s)
    })?;
    let buffer = |k: &str, v: &Value| buffer_size(k, v, mss);
    let opts = TcpOpts {
        mss,
        handshake: t.or("handshake", def.handshake, r::boolean)?,
        sack: t.or("sack", def.sack, r::boolean)?,
        initial_cwnd: t.or("initial_cwnd", def.initial_cwnd, |k, v| r::int(k, v, 1, 1_000_000).map(|n| n as u32))?,
        min_rto: t.or("min_rto", def.min_rto, r::time_pos)?,
        rto: t.or("rto", def.rto, |k, v| {
            let name = r::string(k, v)?;
            RtoFormula::from_name(name)
                .ok_or_else(|| ScenarioError::new(k, format!("unknown RTO formula `{name}`")).with_choices(RtoFormula::NAMES))
        })?,
        initial_rto: t.or("initial_rto", def.initial_rto, r::time_pos)?,
        max_rto: t.or("max_rto", def.max_rto, r::time_pos)?,
        delayed_ack: t.or("delayed_ack", def.delayed_ack.clone(), delayed_ack)?,
        send_buffer: t.or("send_buffer", def.send_buffer, buffer)?,
        recv_buffer: t.or("recv_buffer", def.recv_buffer, buffer)?,
        pacing: t.or("pacing", def.pacing, r::boolean)?,
        tlp: t.or("tlp", def.tlp, r::boolean)?,
    };
    for (k, v) in [("min_rto", opts.min_rto), ("initial_rto", opts.initial_rto)] {
        if v.0 > opts.max_rto.0 {
            return fail(
                t.key(if t.has(k) { k } else { "max_rto" }),
                format!("{k} ({}) must not exceed max_rto ({})", v.canonical(), opts.max_rto.canonical()),
            );
        }
    }
    Ok(opts)
}

fn delayed_ack(key: &str, v: &Value) -> Result<DelayedAck> {
    let t = Tbl::new(key, v, DELAYED_ACK)?;
    let def = d::tcp().delayed_ack;
    Ok(DelayedAck {
        enabled: t.or("enabled", def.enabled, r::boolean)?,
        every: t.or("every", def.every, |k, v| r::int(k, v, 1, 1_000_000).map(|n| n as u32))?,
        timeout: t.or("timeout", def.timeout, r::time_pos)?,
    })
}

/// A byte count carried in a u32 field of the run spec.
fn u32_size(k: &str, v: &Value) -> Result<Size> {
    let s = r::size(k, v)?;
    if s.0 > u32::MAX as u64 {
        return fail(k, format!("must be at most {} bytes", u32::MAX));
    }
    Ok(s)
}

fn app(key: &str, v: &Value, transport: &Transport) -> Result<App> {
    let (kind, t) = kinded(key, v, "kind", Some(d::APP), APP_KINDS)?;
    let udp = matches!(transport, Transport::Udp { .. });
    // UDP apps write one datagram at a time: the default write/message is its payload.
    let default_write = match transport {
        Transport::Udp { packet_size } => Size(packet_size.0 - d::UDP_HEADER),
        Transport::Tcp { .. } => d::TCP_WRITE_SIZE,
        // One full segment, so that writes map onto whole chunks.
        Transport::Mptcp { tcp, .. } => tcp.mss,
        // One packet's STREAM bytes (`QuicConfig::one_packet_stream_bytes`): a write that is
        // sent at once leaves as one packet.
        Transport::Quic { quic, .. } => Size(quic.one_packet_stream_bytes() as u64),
    };
    Ok(match kind {
        "bulk" => App::Bulk,
        "cbr" => {
            if udp && t.has("write_size") {
                return fail(t.key("write_size"), "not used for udp flows: each write is one datagram of packet_size - 28 bytes");
            }
            App::Cbr {
                rate: t.must("rate", r::rate)?,
                write_size: if udp { None } else { Some(t.or("write_size", default_write, u32_size)?) },
            }
        }
        "poisson" => App::Poisson {
            rate: t.must("rate", r::rate)?,
            message_size: t.or("message_size", default_write, u32_size)?,
            count: t.opt("count", |k, v| r::int(k, v, 1, i64::MAX).map(|n| n as u64))?,
        },
        _ => {
            let rate = t.opt("rate", r::rate)?;
            if rate.is_some() && !udp {
                return fail(
                    t.key("rate"),
                    "only for udp file transfers (a paced transfer); tcp, mptcp and quic send as fast as their controller lets them",
                );
            }
            App::File { size: t.must("size", r::size)?, rate }
        }
    })
}
