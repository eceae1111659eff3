//! `[wifi.<name>]` (docs/wifi.md): one 802.11 DCF channel. Parsing into `raw::Wifi`; the
//! topology adds its stations as nodes (they send, receive and forward) and one link direction
//! per ordered pair of stations within range, named `<channel>:<from>><to>`, so routes and
//! explicit paths cross the channel like any link; `spec` gives the run's `WifiSpec`.
//!
//! A Wi-Fi direction's nominal rate is the PHY's data rate (for BDP arithmetic and traces) and
//! its propagation delay 0 (at 100 m it is 0.33 µs, inside the medium's timing), so shortest
//! paths over a channel are fewest-hop paths.

use super::errors::{fail, index, join, Result};
use super::raw::{Direction, Loss, Queue, Wifi};
use super::reader::{self as r, check_name, Tbl};
use super::units::{Dur, Limit, Rate};
use crate::net::dcf::PhyParams;
use crate::spec::{NodeId, WifiPhy, WifiSpec};
use toml::Value;

const WIFI: &[&str] = &["stations", "positions", "range", "phy", "rules", "rts_cts", "retry_limit", "queue_limit"];
pub const PHYS: &[&str] = &["ofdm54", "fhss"];
pub const RULES: &[&str] = &["standard", "bianchi"];
/// Most stations on one channel (station indices are u16 in `WifiPort`).
pub const MAX_STATIONS: usize = 4096;
/// The standard's dot11ShortRetryLimit.
pub const DEFAULT_RETRY_LIMIT: u32 = 7;

pub fn wifi(key: &str, v: &Value) -> Result<Wifi> {
    let t = Tbl::new(key, v, WIFI)?;
    let stations: Vec<String> = t.must("stations", |k, v| {
        let names = r::strings(k, v)?;
        if names.len() < 2 || names.len() > MAX_STATIONS {
            return fail(k, format!("a channel needs 2 … {MAX_STATIONS} stations, got {}", names.len()));
        }
        names.iter().enumerate().map(|(i, n)| check_name(&index(k, i), n).map(|_| n.to_string())).collect()
    })?;
    let positions = t.must("positions", |k, v| {
        let Value::Array(items) = v else {
            return fail(k, format!("expected an array of [x, y] pairs in metres, got {}", r::type_name(v)));
        };
        if items.len() != stations.len() {
            return fail(k, format!("one [x, y] per station: {} stations, {} positions", stations.len(), items.len()));
        }
        items.iter().enumerate().map(|(i, p)| point(&index(k, i), p)).collect::<Result<Vec<_>>>()
    })?;
    let range = t.must("range", |k, v| match number(k, v)? {
        x if x > 0.0 && x.is_finite() => Ok(x),
        x => fail(k, format!("the radio range must be > 0 metres, got {x}")),
    })?;
    let phy = t.or("phy", "ofdm54", |k, v| r::one_of(k, v, "PHY", PHYS))?.to_string();
    let rules = t.or("rules", "standard", |k, v| r::one_of(k, v, "rule set", RULES))?.to_string();
    let rts_cts = t.or("rts_cts", false, r::boolean)?;
    let retry_limit = t.or("retry_limit", Some(DEFAULT_RETRY_LIMIT), |k, v| match v {
        Value::String(s) if s == "none" => Ok(None),
        _ => r::int(k, v, 1, 1000).map(|n| Some(n as u32)),
    })?;
    let queue_limit = t.opt("queue_limit", |k, v| r::int(k, v, 1, i64::MAX).map(|n| n as u64))?;
    if rules == "bianchi" && rts_cts {
        return fail(t.key("rts_cts"), "Bianchi's rules model basic access only");
    }
    Ok(Wifi { stations, positions, range, phy, rules, rts_cts, retry_limit, queue_limit })
}

fn number(key: &str, v: &Value) -> Result<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Integer(n) => Ok(*n as f64),
        other => fail(key, format!("expected a number (metres), got {}", r::type_name(other))),
    }
}

fn point(key: &str, v: &Value) -> Result<[f64; 2]> {
    match v {
        Value::Array(xy) if xy.len() == 2 => {
            let x = number(&index(key, 0), &xy[0])?;
            let y = number(&index(key, 1), &xy[1])?;
            if !(x.is_finite() && y.is_finite()) {
                return fail(key, "coordinates must be finite");
            }
            Ok([x, y])
        }
        _ => fail(key, "expected [x, y] in metres"),
    }
}

impl Wifi {
    pub fn phy(&self) -> WifiPhy {
        match self.phy.as_str() {
            "fhss" => WifiPhy::Fhss,
            _ => WifiPhy::Ofdm54,
        }
    }

    /// The parameters of every direction of the channel: the PHY's data rate, no delay, no
    /// queue of its own (the station's queue is the medium's), no channel loss.
    pub fn direction(&self) -> Direction {
        let rate = PhyParams::of(self.phy()).data_rate_bps();
        Direction {
            rate: Rate(rate),
            delay: Dur(0),
            queue: Queue::DropTail { limit: Limit::Packets(u64::MAX / 2) },
            loss: Loss::None,
            capacity: None,
        }
    }
}

/// The run's channel `name` over its stations' node ids.
pub fn spec(name: &str, w: &Wifi, stations: Vec<NodeId>) -> WifiSpec {
    WifiSpec {
        name: name.to_string(),
        stations,
        positions: w.positions.clone(),
        range_m: w.range,
        phy: w.phy(),
        bianchi: w.rules == "bianchi",
        rts_cts: w.rts_cts,
        retry_limit: w.retry_limit,
        queue_limit: w.queue_limit,
    }
}

/// The key of a channel's entry, for errors.
pub fn key(name: &str) -> String {
    join("wifi", name)
}
