//! `[rtt_split]`: link delays derived from an end-to-end RTT, the share of it a tunnel covers and
//! the paths' asymmetry (seed 003's axes: "the tunnel RTT as a percentage of the E2E RTT", path
//! asymmetry as "the difference in path RTT"), so a plan can sweep those axes directly.
//!
//! With RTT R, share s and asymmetry A: the `server_links` together get (1 − s)·R/2 one way, the
//! links of tunnel path 0 together s·R/2, those of every later path (s·R + A)/2; each group's
//! total is split evenly over its links (the first link takes the rounding remainder). Both
//! directions of a listed link get its delay; the `delay` the link gives is replaced (the
//! canonical form shows the derived one). Applied right after parsing, before anything reads a
//! delay.

use super::errors::{fail, index, Result};
use super::raw::{RttSplit, Scenario};
use super::reader::{self as r, Tbl};
use super::units::Dur;
use toml::Value;

const KEYS: &[&str] = &["e2e_rtt", "tunnel_share", "asymmetry", "server_links", "tunnel_links"];

pub fn parse(key: &str, v: &Value) -> Result<RttSplit> {
    let t = Tbl::new(key, v, KEYS)?;
    let names = |k: &str, v: &Value| -> Result<Vec<String>> { Ok(r::strings(k, v)?.into_iter().map(String::from).collect()) };
    let tunnel_links = t.must("tunnel_links", |k, v| {
        let Value::Array(list) = v else {
            return fail(k, format!("expected a list of link lists (one per tunnel path), found {}", r::type_name(v)));
        };
        if list.is_empty() {
            return fail(k, "at least one tunnel path's links");
        }
        list.iter().enumerate().map(|(i, p)| names(&index(k, i), p)).collect::<Result<Vec<_>>>()
    })?;
    Ok(RttSplit {
        e2e_rtt: t.must("e2e_rtt", r::time)?,
        tunnel_share: t.must("tunnel_share", |k, v| r::probability(k, v, false))?,
        asymmetry: t.or("asymmetry", Dur(0), r::time)?,
        server_links: t.or("server_links", Vec::new(), names)?,
        tunnel_links,
    })
}

/// Set the delays of the listed links.
pub fn apply(s: &mut Scenario) -> Result<()> {
    let Some(split) = s.rtt_split.clone() else { return Ok(()) };
    let rtt = split.e2e_rtt.0 as f64;
    let share = split.tunnel_share;
    let mut groups: Vec<(String, &[String], f64)> = vec![("rtt_split.server_links".into(), &split.server_links, (1.0 - share) * rtt / 2.0)];
    for (i, links) in split.tunnel_links.iter().enumerate() {
        let extra = if i > 0 { split.asymmetry.0 as f64 } else { 0.0 };
        groups.push((index("rtt_split.tunnel_links", i), links, (share * rtt + extra) / 2.0));
    }
    let mut seen: Vec<&str> = Vec::new();
    for (key, links, total) in groups {
        if links.is_empty() {
            continue;
        }
        let total = total.round() as u64;
        let each = total / links.len() as u64;
        for (i, name) in links.iter().enumerate() {
            let k = index(&key, i);
            if seen.contains(&name.as_str()) {
                return fail(k, format!("link `{name}` is listed twice"));
            }
            seen.push(name);
            let Some(link) = s.links.get_mut(name) else {
                return fail(k, format!("unknown link `{name}` (rtt_split sets the delays of `[links.<name>]` entries)"))
                    .map_err(|e| e.with_choices(s.links.keys().cloned()));
            };
            let d = if i == 0 { total - each * (links.len() as u64 - 1) } else { each };
            link.fwd.delay = Dur(d);
            link.reverse.delay = Dur(d);
        }
    }
    Ok(())
}
