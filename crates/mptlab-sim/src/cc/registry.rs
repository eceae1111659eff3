//! The one registry of algorithm names. Scenario validation, `mptlab list` and the simulation
//! builder all read it, so a name is known everywhere or nowhere.

/// One entry of a registry: a canonical name, its aliases, one line on what it is and its source.
#[derive(Clone, Copy, Debug)]
pub struct AlgoInfo {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub summary: &'static str,
    pub source: &'static str,
}

pub const CONGESTION_CONTROLLERS: &[AlgoInfo] = &[
    AlgoInfo {
        name: "reno",
        aliases: &[],
        summary: "AIMD slow start / congestion avoidance; without SACK, Reno fast recovery (exits on the first new ACK)",
        source: "RFC 5681 §3.1–3.2",
    },
    AlgoInfo {
        name: "newreno",
        aliases: &[],
        summary: "Reno window with NewReno fast recovery (stays in recovery across partial ACKs) when SACK is off",
        source: "RFC 5681 §3.1, RFC 6582 §3.2",
    },
];

/// Resolve a user-given name (case-insensitive, aliases allowed) to its canonical name.
pub fn resolve(registry: &[AlgoInfo], name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    registry
        .iter()
        .find(|a| a.name == lower || a.aliases.contains(&lower.as_str()))
        .map(|a| a.name)
}

/// Canonical names, for error messages ("valid: ...").
pub fn names(registry: &[AlgoInfo]) -> Vec<&'static str> {
    registry.iter().map(|a| a.name).collect()
}
