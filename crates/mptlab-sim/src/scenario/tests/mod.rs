//! Scenario-layer tests: `invalid` (each error class names its key and reason), `valid`
//! (expansion, routing, BDP resolution, overrides, canonical form), `routing` (Dijkstra against
//! brute force) and `files` (the shipped scenarios load; every
//! `tests/scenarios/broken/*.toml` fails as its `# expect:` line says), `red` (RED queue keys:
//! defaults, resolution, errors, one run).

mod files;
mod group_flows;
mod invalid;
mod red;
mod routing;
mod rtt_split;
mod valid;

use super::{load, Loaded, ScenarioError};

/// A small dumbbell: s1 -> r1 -> r2 -> d1 with a TCP entry `bulk` and a UDP entry `cross`.
pub const BASE: &str = r#"
[run]
duration = "10s"

[nodes]
hosts = ["s1", "d1"]
routers = ["r1", "r2"]

[links.a]
between = ["s1", "r1"]
rate = "1Gbps"
delay = "1ms"

[links.bottleneck]
between = ["r1", "r2"]
rate = "100Mbps"
delay = "10ms"

[links.b]
between = ["r2", "d1"]
rate = "1Gbps"
delay = "1ms"

[flows.bulk]
from = "s1"
to = "d1"

[flows.cross]
from = "s1"
to = "d1"
protocol = "udp"
app = { kind = "cbr", rate = "1Mbps" }
"#;

fn sets(overrides: &[(&str, &str)]) -> Vec<(String, String)> {
    overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Load `BASE` with overrides; must succeed.
pub fn base_ok(overrides: &[(&str, &str)]) -> Loaded {
    load(BASE, &sets(overrides), None).unwrap_or_else(|e| panic!("expected success, got {e}"))
}

/// Load `text` with overrides; must fail.
pub fn err_with(text: &str, overrides: &[(&str, &str)]) -> ScenarioError {
    match load(text, &sets(overrides), None) {
        Ok(_) => panic!("expected an error, scenario loaded"),
        Err(e) => e,
    }
}

/// Assert the error's key and that its reason contains `word`.
#[track_caller]
pub fn assert_err(e: &ScenarioError, key: &str, word: &str) {
    assert_eq!(e.key, key, "wrong key in: {e}");
    assert!(e.reason.contains(word), "reason of `{e}` lacks `{word}`");
}
