//! TOML tree → `raw::Scenario`: the top-level sections, nodes, groups and links, with types,
//! units and value ranges checked and defaults filled in. Flows are in `parse_flow.rs`. Names are
//! not resolved here (that is `topology.rs`), so a link to an unknown node passes this stage.

use super::defaults as d;
use super::errors::{fail, index, Result, ScenarioError};
use super::events;
use super::parse_flow::flow;
use super::raw::*;
use super::reader::{self as r, check_name, kinded, named_tables, Tbl};
use std::collections::BTreeMap;
use toml::{Table, Value};

const TOP: &[&str] = &["run", "metrics", "nodes", "groups", "links", "flows", "events", "tunnels", "rtt_split", "wifi"];
const RUN: &[&str] = &["duration", "seed", "partitions"];
const METRICS: &[&str] = &["interval", "trace_interval", "jain_groups", "detail_flows", "detail_links", "jitter"];
const NODES: &[&str] = &["hosts", "routers"];
const GROUP: &[&str] = &["count", "link"];
const LINK: &[&str] = &["between", "rate", "delay", "queue", "loss", "capacity", "reverse"];
const ACCESS_LINK: &[&str] = &["to", "rate", "delay", "queue", "loss", "capacity", "reverse"];
const REVERSE: &[&str] = &["rate", "delay", "queue", "loss", "capacity"];

/// Queue kinds with their keys besides `kind`.
pub const QUEUE_KINDS: &[(&str, &[&str])] = &[
    ("droptail", &["limit"]),
    ("codel", &["limit", "target", "interval"]),
    ("red", &["limit", "min", "max", "max_p", "weight", "gentle"]),
];
/// Loss models with their keys besides `model`.
pub const LOSS_MODELS: &[(&str, &[&str])] =
    &[("none", &[]), ("bernoulli", &["p"]), ("gilbert_elliott", &["p_good_to_bad", "p_bad_to_good", "loss_good", "loss_bad"])];

pub fn scenario(root: &Table) -> Result<Scenario> {
    let t = Tbl::of("", root, TOP)?;
    let run = t.must("run", run)?;
    let metrics = t.opt("metrics", metrics)?.unwrap_or_else(|| metrics("metrics", &Value::Table(Table::new())).expect("defaults"));
    let nodes = t.opt("nodes", nodes)?.unwrap_or(Nodes { hosts: vec![], routers: vec![] });
    let groups = t.or("groups", BTreeMap::new(), |k, v| each(k, v, group))?;
    let links = t.or("links", BTreeMap::new(), |k, v| each(k, v, link))?;
    let flows = t.must("flows", |k, v| each(k, v, flow))?;
    let events = t.or("events", Vec::new(), events::events)?;
    let tunnels = t.or("tunnels", BTreeMap::new(), |k, v| each(k, v, super::tunnels::tunnel))?;
    let rtt_split = t.opt("rtt_split", super::rtt_split::parse)?;
    let wifi = t.or("wifi", BTreeMap::new(), |k, v| each(k, v, super::wifi::wifi))?;
    if flows.is_empty() {
        return fail("flows", "at least one flow entry is required, e.g. [flows.bulk]");
    }
    Ok(Scenario { run, metrics, nodes, groups, links, flows, events, tunnels, rtt_split, wifi })
}

/// Parse every `[section.name]` sub-table with `f(key, value)`.
fn each<T>(key: &str, v: &Value, f: fn(&str, &Value) -> Result<T>) -> Result<BTreeMap<String, T>> {
    named_tables(key, v)?.into_iter().map(|(name, v)| Ok((name.to_string(), f(&format!("{key}.{name}"), v)?))).collect()
}

fn run(key: &str, v: &Value) -> Result<Run> {
    let t = Tbl::new(key, v, RUN)?;
    Ok(Run {
        duration: t.must("duration", r::time_pos)?,
        seed: t.or("seed", d::SEED, |k, v| r::int(k, v, 0, i64::MAX).map(|s| s as u64))?,
        partitions: t.or("partitions", 1, |k, v| r::int(k, v, 1, d::MAX_PARTITIONS as i64).map(|n| n as u16))?,
    })
}

fn metrics(key: &str, v: &Value) -> Result<Metrics> {
    let t = Tbl::new(key, v, METRICS)?;
    Ok(Metrics {
        interval: t.or("interval", d::INTERVAL, r::time_pos)?,
        trace_interval: t.or("trace_interval", d::TRACE_INTERVAL, r::time_pos)?,
        jain_groups: t.or("jain_groups", BTreeMap::new(), jain_groups)?,
        detail_flows: t.or("detail_flows", Selection::Rule(SelectionRule::Auto), selection)?,
        detail_links: t.or("detail_links", Selection::Rule(SelectionRule::Auto), selection)?,
        jitter: t.or("jitter", d::JITTER, |k, v| {
            let s = r::string(k, v)?;
            match JitterScope::NAMES.iter().position(|n| *n == s) {
                Some(i) => Ok(JitterScope::ALL[i]),
                None => Err(ScenarioError::new(k, format!("unknown jitter scope `{s}`")).with_choices(JitterScope::NAMES.iter())),
            }
        })?,
    })
}

/// `"auto"`, `"all"`, `"none"` or a list of names (checked against the scenario when resolved).
fn selection(key: &str, v: &Value) -> Result<Selection> {
    const RULES: &[&str] = &["auto", "all", "none"];
    match v {
        Value::String(s) => match RULES.iter().position(|n| n == s) {
            Some(i) => Ok(Selection::Rule([SelectionRule::Auto, SelectionRule::All, SelectionRule::None][i])),
            None => Err(ScenarioError::new(key, format!("unknown selection `{s}`: a rule or a list of names")).with_choices(RULES.iter())),
        },
        Value::Array(_) => Ok(Selection::Names(r::strings(key, v)?.into_iter().map(String::from).collect())),
        other => fail(key, format!("expected \"auto\", \"all\", \"none\" or a list of names, got {}", r::type_name(other))),
    }
}

fn jain_groups(key: &str, v: &Value) -> Result<BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    for (name, members) in named_tables(key, v)? {
        let k = format!("{key}.{name}");
        let list = r::strings(&k, members)?;
        if list.is_empty() {
            return fail(k, "a Jain group needs at least one flow entry");
        }
        out.insert(name.to_string(), list.into_iter().map(String::from).collect());
    }
    Ok(out)
}

fn nodes(key: &str, v: &Value) -> Result<Nodes> {
    let t = Tbl::new(key, v, NODES)?;
    let names = |k: &str, v: &Value| -> Result<Vec<String>> {
        let list = r::strings(k, v)?;
        for (i, n) in list.iter().enumerate() {
            check_name(&index(k, i), n)?;
        }
        Ok(list.into_iter().map(String::from).collect())
    };
    Ok(Nodes { hosts: t.or("hosts", vec![], names)?, routers: t.or("routers", vec![], names)? })
}

fn group(key: &str, v: &Value) -> Result<Group> {
    let t = Tbl::new(key, v, GROUP)?;
    Ok(Group {
        count: t.must("count", |k, v| r::int(k, v, 1, d::MAX_GROUP_COUNT))? as u64,
        link: t.opt("link", |k, v| {
            let t = Tbl::new(k, v, ACCESS_LINK)?;
            let to = t.must("to", r::name)?.to_string();
            let (fwd, reverse) = duplex(&t)?;
            Ok(AccessLink { to, fwd, reverse })
        })?,
    })
}

fn link(key: &str, v: &Value) -> Result<Link> {
    let t = Tbl::new(key, v, LINK)?;
    let between = t.must("between", |k, v| {
        let list = r::strings(k, v)?;
        match list[..] {
            [a, b] => Ok([a.to_string(), b.to_string()]),
            _ => fail(k, format!("expected exactly 2 node names, got {}", list.len())),
        }
    })?;
    let (fwd, reverse) = duplex(&t)?;
    Ok(Link { between, fwd, reverse })
}

/// The forward direction from `t` and the reverse one from `t.reverse` (each key defaults to the
/// forward value).
fn duplex(t: &Tbl) -> Result<(Direction, Direction)> {
    let fwd = Direction {
        rate: t.must("rate", r::rate)?,
        delay: t.must("delay", r::time)?,
        queue: t.or("queue", d::droptail(), queue)?,
        loss: t.or("loss", d::LOSS, loss)?,
        capacity: events::forward_capacity(t.opt("capacity", events::capacity)?),
    };
    let reverse = match t.get("reverse") {
        None => fwd.clone(),
        Some(v) => {
            let rt = Tbl::new(&t.key("reverse"), v, REVERSE)?;
            Direction {
                rate: rt.or("rate", fwd.rate, r::rate)?,
                delay: rt.or("delay", fwd.delay, r::time)?,
                queue: rt.or("queue", fwd.queue.clone(), queue)?,
                loss: rt.or("loss", fwd.loss.clone(), loss)?,
                capacity: events::reverse_capacity(&fwd.capacity, rt.opt("capacity", events::capacity)?),
            }
        }
    };
    Ok((fwd, reverse))
}

fn queue(key: &str, v: &Value) -> Result<Queue> {
    let (kind, t) = kinded(key, v, "kind", Some("droptail"), QUEUE_KINDS)?;
    Ok(match kind {
        "droptail" => Queue::DropTail { limit: t.or("limit", d::DROPTAIL_LIMIT, r::limit)? },
        "red" => Queue::Red {
            limit: t.or("limit", d::RED_LIMIT, r::limit)?,
            min: t.or("min", d::RED_MIN, r::limit)?,
            max: t.or("max", d::RED_MAX, r::limit)?,
            max_p: t.or("max_p", d::RED_MAX_P, positive_probability)?,
            weight: t.or("weight", d::RED_WEIGHT, positive_probability)?,
            gentle: t.or("gentle", d::RED_GENTLE, r::boolean)?,
        },
        _ => Queue::CoDel {
            limit: t.or("limit", d::CODEL_LIMIT, r::limit)?,
            target: t.or("target", d::CODEL_TARGET, r::time_pos)?,
            interval: t.or("interval", d::CODEL_INTERVAL, r::time_pos)?,
        },
    })
}

/// A probability in (0, 1].
fn positive_probability(key: &str, v: &Value) -> Result<f64> {
    let p = r::probability(key, v, false)?;
    if p == 0.0 {
        return fail(key, "must be > 0 (in (0, 1])");
    }
    Ok(p)
}

fn loss(key: &str, v: &Value) -> Result<Loss> {
    let (model, t) = kinded(key, v, "model", None, LOSS_MODELS)?;
    let p = |k: &str, v: &Value| r::probability(k, v, false);
    Ok(match model {
        "none" => Loss::None,
        "bernoulli" => Loss::Bernoulli { p: t.must("p", |k, v| r::probability(k, v, true))? },
        _ => Loss::GilbertElliott {
            p_good_to_bad: t.must("p_good_to_bad", p)?,
            p_bad_to_good: t.must("p_bad_to_good", p)?,
            loss_good: t.or("loss_good", d::GE_LOSS_GOOD, p)?,
            loss_bad: t.or("loss_bad", d::GE_LOSS_BAD, p)?,
        },
    })
}
