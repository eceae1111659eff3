//! `catalogue()`: the documented defaults and accepted values of the scenario format (sections
//! and their keys, queue kinds, loss models, apps, protocols, TCP options, units, congestion
//! controllers), as JSON for `mptlab list` and the docs. Built from the same tables and
//! defaults the parser uses.

use super::defaults as d;
use super::events::{CAPACITY_MODELS, EVENT_ACTIONS};
use super::parse::{LOSS_MODELS, QUEUE_KINDS};
use super::parse_flow::{APP_KINDS, PROTOCOLS};
use super::units::{Dur, Limit, Size, BDP_UNIT, PACKET_UNITS, RATE_UNITS, SIZE_UNITS, TIME_UNITS};
use crate::cc::registry::CONGESTION_CONTROLLERS;
use serde_json::{json, Value};

fn kinds(table: &[(&str, &[&str])]) -> Value {
    table.iter().map(|(k, keys)| (k.to_string(), json!(keys))).collect::<serde_json::Map<_, _>>().into()
}

fn units(table: &[(&str, u128)]) -> Value {
    table.iter().map(|(n, m)| (n.to_string(), json!(*m as u64))).collect::<serde_json::Map<_, _>>().into()
}

pub fn catalogue() -> Value {
    let tcp = d::tcp();
    json!({
        "sections": {
            "run": { "duration": "required, time > 0", "seed": d::SEED, "partitions": "1 (sequential); 2-256 device partitions run in parallel (docs/architecture.md, Parallel runs)" },
            "metrics": {
                "interval": Dur::canonical(d::INTERVAL),
                "trace_interval": Dur::canonical(d::TRACE_INTERVAL),
                "jain_groups": "optional table: group name -> list of flow entry names",
            },
            "nodes": { "hosts": "list of names", "routers": "list of names" },
            "groups.<name>": { "count": "required, integer >= 1", "link": "optional access link: to, rate, delay, queue, loss, reverse" },
            "links.<name>": {
                "between": "required, two node names",
                "rate": "required, rate > 0",
                "delay": "required, time >= 0",
                "queue": { "kind": "droptail" , "limit": Limit::canonical(d::DROPTAIL_LIMIT) },
                "loss": { "model": "none" },
                "capacity": "optional capacity model (see capacity_models); none by default",
                "reverse": "optional overrides of rate, delay, queue, loss, capacity for the between[1] -> between[0] direction",
            },
            "flows.<name>": {
                "from": "required, host or group",
                "to": "required, host or group",
                "count": d::FLOW_COUNT,
                "protocol": d::PROTOCOL,
                "cc": d::CC,
                "app": d::APP,
                "start": Dur::canonical(d::START),
                "stop": "optional, time > start",
                "path": "optional, list of node names from `from` to `to`",
                "packet_size": Size::canonical(d::UDP_PACKET_SIZE),
                "tcp": serde_json::to_value(&tcp).expect("tcp options serialise"),
                "scheduler": format!("mptcp and mpquic only: {} for mptcp, {} for mpquic (see schedulers)", d::SCHEDULER, super::parse_quic::MPQUIC_SCHEDULER),
                "scheduler_options": "mptcp and mpquic only: options of the chosen scheduler",
                "paths": "mptcp and mpquic only: list of paths, each a list of node names from `from` to `to`; default: full mesh over the hosts' interfaces",
                "quic": serde_json::to_value(crate::transport::quic::QuicConfig::default()).expect("quic options serialise"),
                "mptcp": serde_json::to_value(d::mptcp()).expect("mptcp options serialise"),
                "tcp (mptcp flows)": format!("as tcp, but mss {} B by default (a 28 B DSS option per segment) and no send_buffer/recv_buffer (connection-level, in mptcp)", d::tcp_for(true).mss.0),
            },
            "tunnels.<name>": {
                "ingress": "required, a node",
                "egress": "required, a node",
                "paths": "required, 1-8 node lists from ingress to egress",
                "protocol": super::tunnels::TUNNEL_PROTOCOLS,
                "cc": d::TUNNEL_CC,
                "scheduler": d::TUNNEL_SCHEDULER,
                "buffer": format!("{} x path 1's bottleneck buffer (packets or a size)", super::tunnels::BUFFER_FACTOR),
                "overhead": format!("{}B", crate::transport::tunnel::DEFAULT_OVERHEAD),
                "ack_size": format!("{}B", crate::transport::tunnel::DEFAULT_ACK_SIZE),
                "inner_mtu": format!("{}B", crate::transport::tunnel::DEFAULT_INNER_MTU),
                "priorities, backup": "optional, one entry per path",
                "reorder": serde_json::to_value(super::reorder_opts::defaults()).expect("reorder options serialise"),
                "reorder.mode": crate::transport::reorder::ReorderMode::NAMES,
                "flows": "any flow enters with tunnel = \"<name>\" (an mptcp or mpquic flow on one path)",
            },
            "rtt_split": {
                "e2e_rtt": "required, time",
                "tunnel_share": "required, 0..1",
                "asymmetry": "0s",
                "server_links": "list of link names",
                "tunnel_links": "required, list of link-name lists (one per tunnel path)",
            },
            "events[]": {
                "at": "required, time >= 0; events at or after run.duration are ignored",
                "link": "required: a link (both directions), <link>.fwd or <link>.rev",
                "action": EVENT_ACTIONS,
                "rate": "required with action = rate, else not allowed",
            },
        },
        "queues": {
            "kinds": kinds(QUEUE_KINDS),
            "droptail": { "limit": Limit::canonical(d::DROPTAIL_LIMIT) },
            "codel": {
                "limit": Limit::canonical(d::CODEL_LIMIT),
                "target": Dur::canonical(d::CODEL_TARGET),
                "interval": Dur::canonical(d::CODEL_INTERVAL),
            },
            "red": {
                "limit": Limit::canonical(d::RED_LIMIT),
                "min": Limit::canonical(d::RED_MIN),
                "max": Limit::canonical(d::RED_MAX),
                "max_p": d::RED_MAX_P,
                "weight": d::RED_WEIGHT,
                "gentle": d::RED_GENTLE,
                "rules": "min < max, both packets or both bytes (bdp and time resolve to bytes); max_p and weight in (0, 1]",
            },
            "limit_units": { "packets": PACKET_UNITS, "bdp": BDP_UNIT, "size": units(SIZE_UNITS), "time": units(TIME_UNITS) },
            "min_derived_limit_bytes": d::MIN_DERIVED_LIMIT,
            "idle_bdp_rtt": Dur::canonical(d::IDLE_BDP_RTT),
        },
        "capacity_models": {
            "kinds": kinds(CAPACITY_MODELS),
            "lte": {
                "mean": "required, rate > 0",
                "cv": d::LTE_CV,
                "correlation": d::LTE_CORRELATION,
                "min": format!("mean / {}", d::LTE_MIN_DIVISOR),
                "max": format!("{} x mean", d::LTE_MAX_FACTOR),
                "step": Dur::canonical(d::LTE_STEP),
                "min_step": Dur::canonical(d::MIN_CAPACITY_STEP),
                "max_cv": d::LTE_MAX_CV,
            },
            "trace": {
                "times": "required, increasing times",
                "rates": "required, one rate per time",
                "repeat": false,
                "period": "required with repeat = true, > the last time",
            },
        },
        "loss_models": {
            "kinds": kinds(LOSS_MODELS),
            "bernoulli": { "p": "required, in [0, 1)" },
            "gilbert_elliott": {
                "p_good_to_bad": "required, in [0, 1]",
                "p_bad_to_good": "required, in [0, 1]",
                "loss_good": d::GE_LOSS_GOOD,
                "loss_bad": d::GE_LOSS_BAD,
            },
        },
        "apps": {
            "kinds": kinds(APP_KINDS),
            "cbr": { "rate": "required", "write_size": { "tcp": Size::canonical(d::TCP_WRITE_SIZE), "udp": "packet_size - 28 (fixed)" } },
            "poisson": { "rate": "required", "message_size": { "tcp": Size::canonical(d::TCP_WRITE_SIZE), "udp": "packet_size - 28" } },
            "file": { "size": "required" },
        },
        "protocols": {
            "names": PROTOCOLS,
            "tcp": { "cc": d::CC, "header_bytes": d::TCP_HEADER, "options": serde_json::to_value(&tcp).expect("tcp options serialise") },
            "udp": { "packet_size": Size::canonical(d::UDP_PACKET_SIZE), "header_bytes": d::UDP_HEADER },
        },
        "congestion_controllers": CONGESTION_CONTROLLERS.iter().map(|a| json!({
            "name": a.name, "aliases": a.aliases, "summary": a.summary, "source": a.source,
        })).collect::<Vec<_>>(),
        "units": {
            "rate": units(RATE_UNITS),
            "time": units(TIME_UNITS),
            "size": units(SIZE_UNITS),
            "queue_limit": ["<n>p", "<n>pkt", "<x>bdp", "<size>", "<time>"],
        },
    })
}
