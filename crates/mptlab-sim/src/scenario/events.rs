//! Link events and capacity models: parsing `[[events]]` entries and a link direction's
//! `capacity` (types, units, ranges, defaults), and resolving events to link directions.
//! Format and semantics: docs/scenarios.md, "Link events and capacity models"; the models
//! themselves: `net/capacity.rs`.
//!
//! Event `link` names: `x` is both directions of link `x` (forward first), `x.fwd` its forward
//! direction (between[0] → between[1]), `x.rev` the reverse one; a group member's access link
//! is named after the member (`ue#3`, `ue#3.fwd`, `ue#3.rev`). Events are validated wherever
//! they fall; those at or after `run.duration` are then left out of the run. A `rate` event on
//! a direction with a capacity model is an error: both would set its rate.

use super::defaults as d;
use super::errors::{fail, index, join, Result, ScenarioError};
use super::raw::{Capacity, Event, EventAction, Scenario};
use super::reader::{self as r, kinded, type_name, Tbl};
use super::topology::Topology;
use super::units::Rate;
use crate::net::capacity::CapacitySpec;
use crate::spec::{LinkAction, LinkEvent, LinkId};
use std::collections::HashMap;
use toml::Value;

/// Capacity models with their keys besides `model`.
pub const CAPACITY_MODELS: &[(&str, &[&str])] =
    &[("none", &[]), ("lte", &["mean", "cv", "correlation", "min", "max", "step"]), ("trace", &["times", "rates", "repeat", "period"])];
pub const EVENT_KEYS: &[&str] = &["at", "link", "action", "rate"];
pub const EVENT_ACTIONS: &[&str] = &["down", "up", "rate"];

/// A number (integer or float) in `[lo, hi]`.
fn number(key: &str, v: &Value, lo: f64, hi: f64) -> Result<f64> {
    let x = match v {
        Value::Float(f) => *f,
        Value::Integer(n) => *n as f64,
        other => return fail(key, format!("expected a number, got {}", type_name(other))),
    };
    if !(lo..=hi).contains(&x) {
        return fail(key, format!("must be in [{lo}, {hi}], got {x}"));
    }
    Ok(x)
}

/// An array whose elements `f` reads; element errors are keyed `key[i]`.
fn list<T>(key: &str, v: &Value, f: fn(&str, &Value) -> Result<T>) -> Result<Vec<T>> {
    match v {
        Value::Array(items) => items.iter().enumerate().map(|(i, x)| f(&index(key, i), x)).collect(),
        other => fail(key, format!("expected an array, got {}", type_name(other))),
    }
}

/// A link direction's `capacity`: a table with `model` and that model's keys, or a model name.
pub fn capacity(key: &str, v: &Value) -> Result<Capacity> {
    let (model, t) = kinded(key, v, "model", None, CAPACITY_MODELS)?;
    match model {
        "none" => Ok(Capacity::None),
        "lte" => lte(&t),
        _ => trace(&t),
    }
}

fn lte(t: &Tbl) -> Result<Capacity> {
    let mean = t.must("mean", r::rate)?;
    let cv = t.or("cv", d::LTE_CV, |k, v| number(k, v, 0.0, d::LTE_MAX_CV))?;
    let correlation = t.or("correlation", d::LTE_CORRELATION, |k, v| r::probability(k, v, false))?;
    let default_min = Rate(((mean.0 + d::LTE_MIN_DIVISOR / 2) / d::LTE_MIN_DIVISOR).max(1));
    let min = t.or("min", default_min, r::rate)?;
    let max = t.or("max", Rate(mean.0.saturating_mul(d::LTE_MAX_FACTOR)), r::rate)?;
    if min.0 > mean.0 {
        return fail(t.key("min"), format!("min ({}) must be at most mean ({})", min.canonical(), mean.canonical()));
    }
    if max.0 < mean.0 {
        return fail(t.key("max"), format!("max ({}) must be at least mean ({})", max.canonical(), mean.canonical()));
    }
    let step = t.or("step", d::LTE_STEP, r::time_pos)?;
    if step.0 < d::MIN_CAPACITY_STEP.0 {
        return fail(
            t.key("step"),
            format!("step must be at least {} (one LTE subframe), got {}", d::MIN_CAPACITY_STEP.canonical(), step.canonical()),
        );
    }
    Ok(Capacity::Lte { mean, cv, correlation, min, max, step })
}

fn trace(t: &Tbl) -> Result<Capacity> {
    let times = t.must("times", |k, v| list(k, v, r::time))?;
    let rates = t.must("rates", |k, v| list(k, v, r::rate))?;
    if times.is_empty() {
        return fail(t.key("times"), "a trace needs at least one (time, rate) change");
    }
    for i in 1..times.len() {
        if times[i].0 <= times[i - 1].0 {
            return fail(
                index(&t.key("times"), i),
                format!("times must increase: {} is not after {}", times[i].canonical(), times[i - 1].canonical()),
            );
        }
    }
    if rates.len() != times.len() {
        return fail(t.key("rates"), format!("has {} entries but times has {}", rates.len(), times.len()));
    }
    let repeat = t.or("repeat", false, r::boolean)?;
    let period = t.opt("period", r::time_pos)?;
    let last = times[times.len() - 1];
    match (repeat, period) {
        (true, None) => return fail(t.key("period"), "required key is missing: the length of one cycle, with repeat = true"),
        (false, Some(_)) => return fail(t.key("period"), "only allowed with repeat = true"),
        (true, Some(p)) if p.0 <= last.0 => {
            return fail(t.key("period"), format!("period ({}) must be after the last of times ({})", p.canonical(), last.canonical()))
        }
        _ => {}
    }
    Ok(Capacity::Trace { times, rates, repeat, period })
}

/// A forward direction's capacity: `"none"` is the same as no key.
pub fn forward_capacity(given: Option<Capacity>) -> Option<Capacity> {
    given.filter(|c| !matches!(c, Capacity::None))
}

/// A reverse direction's capacity: `given` (its own key), else the forward one's. An explicit
/// `"none"` is kept only where it differs from the forward direction, so that the canonical
/// form, which writes the reverse direction in full, reads back the same.
pub fn reverse_capacity(fwd: &Option<Capacity>, given: Option<Capacity>) -> Option<Capacity> {
    match given {
        None => fwd.clone(),
        Some(Capacity::None) if fwd.is_none() => None,
        Some(c) => Some(c),
    }
}

/// The run's form of a direction's capacity model.
pub fn capacity_spec(c: Option<&Capacity>) -> Option<CapacitySpec> {
    match c? {
        Capacity::None => None,
        Capacity::Lte { mean, cv, correlation, min, max, step } => {
            Some(CapacitySpec::Lte { mean_bps: mean.0, cv: *cv, correlation: *correlation, min_bps: min.0, max_bps: max.0, step: step.0 })
        }
        Capacity::Trace { times, rates, period, .. } => Some(CapacitySpec::Trace {
            times: times.iter().map(|t| t.0).collect(),
            rates_bps: rates.iter().map(|r| r.0).collect(),
            period: period.map(|p| p.0),
        }),
    }
}

/// The top-level `events` array (`[[events]]` tables).
pub fn events(key: &str, v: &Value) -> Result<Vec<Event>> {
    match v {
        Value::Array(items) => items.iter().enumerate().map(|(i, item)| event(&index(key, i), item)).collect(),
        other => fail(key, format!("expected an array of tables ([[events]]), got {}", type_name(other))),
    }
}

fn event(key: &str, v: &Value) -> Result<Event> {
    let t = Tbl::new(key, v, EVENT_KEYS)?;
    let at = t.must("at", r::time)?;
    let link = t.must("link", r::name)?.to_string();
    let action = match t.get("action") {
        None => return Err(ScenarioError::new(t.key("action"), "required key is missing").with_choices(EVENT_ACTIONS)),
        Some(v) => match r::string(&t.key("action"), v)? {
            "down" => EventAction::Down,
            "up" => EventAction::Up,
            "rate" => EventAction::Rate,
            other => return Err(ScenarioError::new(t.key("action"), format!("unknown action `{other}`")).with_choices(EVENT_ACTIONS)),
        },
    };
    let rate = match action {
        EventAction::Rate => Some(t.must("rate", r::rate)?),
        _ if t.has("rate") => return fail(t.key("rate"), "only allowed with action = \"rate\""),
        _ => None,
    };
    Ok(Event { at, link, action, rate })
}

/// The link directions an event's `link` names, or None if it names none.
fn directions(by_name: &HashMap<&str, LinkId>, name: &str) -> Option<Vec<LinkId>> {
    if let Some(base) = name.strip_suffix(".fwd") {
        if base.ends_with(".rev") {
            return None;
        }
        return by_name.get(base).map(|&l| vec![l]);
    }
    if name.ends_with(".rev") {
        return by_name.get(name).map(|&l| vec![l]);
    }
    let fwd = *by_name.get(name)?;
    let rev = *by_name.get(format!("{name}.rev").as_str())?;
    Some(vec![fwd, rev])
}

/// The scenario's events on link directions, sorted by (time, file order); events at or after
/// the end of the run are validated, then left out.
pub fn resolve(s: &Scenario, topo: &Topology) -> Result<Vec<LinkEvent>> {
    if s.events.is_empty() {
        return Ok(Vec::new());
    }
    let by_name: HashMap<&str, LinkId> = topo.dirs.iter().enumerate().map(|(i, dir)| (dir.name.as_str(), i as LinkId)).collect();
    let mut out = Vec::new();
    for (i, e) in s.events.iter().enumerate() {
        let key = index("events", i);
        if let Some(&l) = by_name.get(e.link.as_str()).filter(|&&l| topo.dirs[l as usize].wifi.is_some()) {
            return fail(
                join(&key, "link"),
                format!("`{}` is a Wi-Fi direction; link events apply to point-to-point links only", topo.dirs[l as usize].name),
            );
        }
        let dirs = directions(&by_name, &e.link).ok_or_else(|| {
            let mut reason =
                format!("unknown link `{}`: name a link (both directions) or one direction, `<link>.fwd` or `<link>.rev`", e.link);
            if !topo.groups.is_empty() {
                reason.push_str("; group access links are named after the member (<group>#<i>)");
            }
            ScenarioError::new(join(&key, "link"), reason).with_choices(s.links.keys())
        })?;
        let action = match e.action {
            EventAction::Down => LinkAction::Down,
            EventAction::Up => LinkAction::Up,
            EventAction::Rate => {
                if let Some(&l) = dirs.iter().find(|&&l| capacity_spec(topo.dirs[l as usize].params.capacity.as_ref()).is_some()) {
                    return fail(
                        join(&key, "action"),
                        format!(
                            "link direction `{}` has a capacity model, which sets its rate; rate events apply only to directions without one",
                            topo.dirs[l as usize].name
                        ),
                    );
                }
                LinkAction::Rate { rate_bps: e.rate.expect("a rate event has a rate").0 }
            }
        };
        if e.at.0 >= s.run.duration.0 {
            continue;
        }
        out.extend(dirs.into_iter().map(|link| LinkEvent { at: e.at.0, link, action }));
    }
    // Stable: equal times keep file order.
    out.sort_by_key(|e| e.at);
    Ok(out)
}
