//! The scenario layer: TOML scenario text → validated, fully resolved `RunSpec`.
//!
//! Stages, one file each: `overrides` (apply `--set key=value`), `parse` / `parse_flow` (TOML
//! tree → `raw::Scenario`, types, units, ranges, defaults; `reader` and `units` do the low-level
//! reading), `topology` (names → ids, link directions), `routes` (Dijkstra, explicit paths),
//! `resolve` (expansion of groups and counts, Jain groups), `limits` (BDP-based queue limits),
//! `bounds` (what one run may ask for: largest time, bins, trace steps); `export` (the resolved
//! run as plain data for another backend, `docs/resolve.md`).
//! Every failure is one `ScenarioError` naming the full key path. The format is documented in
//! `docs/scenarios.md`; defaults live in `defaults`, and `catalogue()` prints them.

mod bounds;
mod catalogue;
mod defaults;
mod detail;
mod errors;
mod events;
pub mod export;
mod limits;
mod mesh;
mod overrides;
mod parse;
mod parse_flow;
mod parse_quic;
mod path_model;
mod raw;
mod reader;
mod reorder_opts;
mod resolve;
mod routes;
mod rtt_split;
mod topology;
mod tunnels;
mod units;
mod wifi;

#[cfg(test)]
mod tests;

pub use catalogue::catalogue;
pub use errors::ScenarioError;

use crate::spec::RunSpec;

/// A validated scenario: the run description and the canonical scenario.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub spec: RunSpec,
    /// The parsed scenario after overrides, with every default filled in and every quantity in
    /// one canonical spelling (largest unit that divides it exactly: `"100Mbps"`, `"1460B"`,
    /// `"1bdp"`), keys sorted. Equal scenarios give equal JSON; echoed into summary.json and
    /// hashed for sweeps. `run.seed` is the effective seed (after the `seed` argument).
    pub canonical: serde_json::Value,
}

/// Parse `text`, apply `--set key.path=value` overrides in order, apply the seed override,
/// validate, resolve.
pub fn load(text: &str, overrides: &[(String, String)], seed: Option<u64>) -> Result<Loaded, ScenarioError> {
    let mut root: toml::Table = toml::from_str(text).map_err(|e| syntax_error(text, &e))?;
    overrides::apply(&mut root, overrides)?;
    let mut raw = parse::scenario(&root)?;
    rtt_split::apply(&mut raw)?;
    bounds::check(&raw)?;
    if let Some(seed) = seed {
        raw.run.seed = seed;
    }
    let spec = resolve::run_spec(&raw)?;
    bounds::check_spec(&spec)?;
    if spec.partitions > 1 {
        crate::partition::Plan::new(&spec).map_err(|reason| ScenarioError::new("run.partitions", reason))?;
    }
    let canonical = serde_json::to_value(&raw).expect("the raw scenario serialises to JSON");
    Ok(Loaded { spec, canonical })
}

/// A TOML syntax error: key `<file>`, the reason with its line and column.
fn syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    // One line, as every refusal (the parser's message may span several).
    let msg = e.message().split('\n').map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    let reason = match e.span() {
        Some(span) => {
            // The span is in bytes; back up to a character boundary before slicing.
            let mut end = span.start.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let before = &text[..end];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("TOML syntax error at line {line}, column {col}: {msg}")
        }
        None => format!("TOML syntax error: {msg}"),
    };
    ScenarioError::new("<file>", reason)
}
