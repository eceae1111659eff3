//! Behaviour lock for refactors (issue 19): the summaries of every scenario in `scenarios/`
//! (and the bench workloads, shortened), each under three seeds, were recorded with the code
//! before the redesign of the simulation core; this test runs them again and compares the new
//! summaries with the recorded ones value by value.
//!
//! - Record (only when behaviour is meant to change, with the reason in the commit):
//!   `MPTLAB_RECORD_GOLDEN=1 cargo test -p mptlab-sim --test golden -- --nocapture`
//! - Keys that moved are listed in `tests/golden/renames.json` (`old path prefix` → `new path
//!   prefix`, `*` matches an array index); keys the new summary adds are allowed, keys it loses
//!   are not. Numbers must be equal; floats may differ by 1e-9 relative (a sum taken in another
//!   order), nothing more.

use mptlab_sim::scenario;
use mptlab_sim::sim::Simulation;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod common;

/// Each case: scenario file (relative to the repository root), simulated duration override.
const CASES: &[(&str, &str)] = &[
    ("scenarios/codel.toml", "10s"),
    ("scenarios/dumbbell.toml", "10s"),
    ("scenarios/groups.toml", "10s"),
    ("scenarios/link-events.toml", "20s"),
    ("scenarios/mpquic-two-paths.toml", "20s"),
    ("scenarios/mptcp-two-paths.toml", "20s"),
    ("scenarios/quickstart.toml", "10s"),
    ("scenarios/seed001-lte.toml", "10s"),
    ("scenarios/seed002-cross.toml", "10s"),
    ("scenarios/seed002-two-paths.toml", "20s"),
    ("scenarios/bench/w1.toml", "2s"),
    ("scenarios/bench/w2.toml", "2s"),
    ("scenarios/bench/w3.toml", "2s"),
    ("scenarios/bench/w4.toml", "2s"),
];
/// None = the scenario's own seed.
const SEEDS: &[Option<u64>] = &[None, Some(2), Some(3)];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn case_name(file: &str, seed: Option<u64>) -> String {
    let stem = file.trim_start_matches("scenarios/").trim_end_matches(".toml").replace('/', "-");
    format!("{stem}.seed-{}", seed.map_or("file".to_string(), |s| s.to_string()))
}

fn summary_of(file: &str, duration: &str, seed: Option<u64>) -> Value {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let overrides = [("run.duration".to_string(), format!("\"{duration}\""))];
    let loaded = scenario::load(&text, &overrides, seed).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut sim = Simulation::new(loaded.spec);
    sim.run_to_end();
    let mut s = sim.summary(&loaded.canonical);
    // Static text, not behaviour; kept out of the recorded files.
    s.as_object_mut().unwrap().remove("definitions");
    s
}

/// Every leaf of `v` under its path (`flows[0].mptcp.paths[1].srtt_ms_mean`).
fn flatten(prefix: &str, v: &Value, out: &mut BTreeMap<String, Value>) {
    match v {
        Value::Object(m) => {
            if m.is_empty() {
                out.insert(prefix.to_string(), v.clone());
            }
            for (k, x) in m {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&p, x, out);
            }
        }
        Value::Array(a) => {
            if a.is_empty() {
                out.insert(prefix.to_string(), v.clone());
            }
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), x, out);
            }
        }
        _ => {
            out.insert(prefix.to_string(), v.clone());
        }
    }
}

/// Does `pattern` (with `*` for one array index) match the start of `path`? Returns the rest.
fn match_prefix<'a>(pattern: &str, path: &'a str) -> Option<(Vec<&'a str>, &'a str)> {
    let mut rest = path;
    let mut stars = Vec::new();
    let mut parts = pattern.split('*').peekable();
    while let Some(lit) = parts.next() {
        rest = rest.strip_prefix(lit)?;
        if parts.peek().is_some() {
            let end = rest.find(']')?;
            stars.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    // A prefix ends at a key boundary.
    (rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')).then_some((stars, rest))
}

fn renamed(path: &str, renames: &Map<String, Value>) -> String {
    for (old, new) in renames {
        if let Some((stars, rest)) = match_prefix(old, path) {
            let new = new.as_str().expect("renames.json maps strings to strings");
            let mut out = String::new();
            let mut it = stars.into_iter();
            for (i, lit) in new.split('*').enumerate() {
                if i > 0 {
                    out.push_str(it.next().expect("as many * in the new path as in the old"));
                }
                out.push_str(lit);
            }
            return out + rest;
        }
    }
    path.to_string()
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        _ => a == b,
    }
}

/// Differences between a recorded and a new summary, after renames (at most `limit`).
fn differences(old: &Value, new: &Value, renames: &Map<String, Value>, limit: usize) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    flatten("", old, &mut a);
    flatten("", new, &mut b);
    let mut diffs = Vec::new();
    for (path, v) in &a {
        let to = renamed(path, renames);
        match b.get(&to) {
            None => diffs.push(format!("{path} (now {to}): missing, was {v}")),
            Some(w) if !same(v, w) => diffs.push(format!("{path} (now {to}): was {v}, now {w}")),
            _ => {}
        }
        if diffs.len() >= limit {
            break;
        }
    }
    diffs
}

fn renames() -> Map<String, Value> {
    let text = std::fs::read_to_string(golden_dir().join("renames.json")).expect("tests/golden/renames.json");
    let v: Value = serde_json::from_str(&text).expect("renames.json is JSON");
    v.get("renames").and_then(Value::as_object).cloned().unwrap_or_default()
}

#[test]
fn summaries_match_recorded() {
    let record = std::env::var_os("MPTLAB_RECORD_GOLDEN").is_some();
    let renames = renames();
    let cases: Vec<(&str, &str, Option<u64>)> = CASES.iter().flat_map(|&(f, d)| SEEDS.iter().map(move |&s| (f, d, s))).collect();
    let results = common::par_map(&cases, common::threads(), |&(file, duration, seed)| {
        let name = case_name(file, seed);
        let path = golden_dir().join(format!("{name}.json"));
        let new = summary_of(file, duration, seed);
        if record {
            std::fs::write(&path, serde_json::to_string(&new).unwrap() + "\n").unwrap();
            return (name, Vec::new());
        }
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (record with MPTLAB_RECORD_GOLDEN=1)", path.display()));
        let old: Value = serde_json::from_str(&text).unwrap();
        (name, differences(&old, &new, &renames, 20))
    });
    let failed: Vec<String> =
        results.into_iter().filter(|(_, d)| !d.is_empty()).map(|(n, d)| format!("{n}:\n  {}", d.join("\n  "))).collect();
    assert!(failed.is_empty(), "summaries differ from the recorded ones:\n{}", failed.join("\n"));
}

#[test]
fn renames_map_paths_with_indices() {
    let mut r = Map::new();
    r.insert("flows[*].mptcp.paths".into(), Value::from("flows[*].paths"));
    assert_eq!(renamed("flows[3].mptcp.paths[1].share", &r), "flows[3].paths[1].share");
    assert_eq!(renamed("flows[3].mptcp.scheduler", &r), "flows[3].mptcp.scheduler");
    assert_eq!(renamed("flows[3].mptcp.paths_x", &r), "flows[3].mptcp.paths_x");
    let old = serde_json::json!({"a": {"b": 1.0, "c": [1, 2]}});
    let new = serde_json::json!({"a": {"b": 1.0 + 1e-12, "c": [1, 2], "d": 5}});
    assert!(differences(&old, &new, &Map::new(), 10).is_empty(), "additions and rounding are allowed");
    let lost = serde_json::json!({"a": {"b": 1.0}});
    assert_eq!(differences(&old, &lost, &Map::new(), 10).len(), 2, "a lost key is a difference");
}
