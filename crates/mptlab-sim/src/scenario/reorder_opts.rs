//! `reorder = { ... }` of a tunnel: the egress's reordering stage (`transport::reorder`,
//! docs/tunnels.md). Keys and defaults are `ReorderConfig`'s; times carry units.

use super::errors::{fail, Result, ScenarioError};
use super::reader::{self as r, Tbl};
use super::units::Dur;
use crate::transport::reorder::{FastLoss, LatePolicy, ReorderConfig, ReorderMode};
use serde::Serialize;
use toml::Value;

const REORDER: &[&str] = &["mode", "wait", "padding", "cap", "ewma_new", "fast_loss", "late", "capacity"];

/// The stage as written (canonical form), defaults filled in.
#[derive(Clone, Debug, Serialize)]
pub struct ReorderOpts {
    pub mode: &'static str,
    pub wait: Dur,
    pub padding: Dur,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap: Option<Dur>,
    pub ewma_new: f64,
    pub fast_loss: &'static str,
    pub late: &'static str,
    pub capacity: u64,
}

/// `reorder` of the tunnel table `t` (absent: every default).
pub fn reorder(t: &Tbl) -> Result<ReorderOpts> {
    let empty = Value::Table(toml::Table::new());
    let v = t.get("reorder").unwrap_or(&empty);
    let key = t.key("reorder");
    let o = Tbl::new(&key, v, REORDER)?;
    let d = ReorderConfig::default();
    let name = |k: &str, names: &'static [&'static str], default: &'static str| -> Result<&'static str> {
        o.or(k, default, |kk, vv| {
            let s = r::string(kk, vv)?;
            names
                .iter()
                .find(|n| **n == s)
                .copied()
                .ok_or_else(|| ScenarioError::new(kk, format!("unknown value `{s}`")).with_choices(names))
        })
    };
    let opts = ReorderOpts {
        mode: name("mode", ReorderMode::NAMES, "adaptive")?,
        wait: o.or("wait", Dur(d.wait), r::time)?,
        padding: o.or("padding", Dur(d.padding), r::time)?,
        cap: o.opt("cap", r::time)?,
        ewma_new: o.or("ewma_new", d.ewma_new, |k, v| {
            let x = r::probability(k, v, false)?;
            if x == 0.0 {
                return fail(k, "must be in (0, 1]: the weight of each new delay sample");
            }
            Ok(x)
        })?,
        fast_loss: name("fast_loss", FastLoss::NAMES, "path")?,
        late: name("late", LatePolicy::NAMES, "forward")?,
        capacity: o.or("capacity", d.capacity as i64, |k, v| r::int(k, v, 1, 1 << 20))? as u64,
    };
    Ok(opts)
}

/// Every default, as the canonical form writes it (`mptlab list`).
pub fn defaults() -> ReorderOpts {
    reorder(&Tbl::empty("reorder")).expect("the defaults parse")
}

pub fn config(o: &ReorderOpts) -> ReorderConfig {
    ReorderConfig {
        mode: ReorderMode::from_name(o.mode).expect("checked when parsed"),
        wait: o.wait.0,
        padding: o.padding.0,
        cap: o.cap.map(|c| c.0),
        ewma_new: o.ewma_new,
        fast_loss: FastLoss::from_name(o.fast_loss).expect("checked when parsed"),
        late: LatePolicy::from_name(o.late).expect("checked when parsed"),
        capacity: o.capacity as usize,
    }
}
