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
    AlgoInfo {
        name: "cubic",
        aliases: &[],
        summary: "cubic window growth W(t) = C(t-K)^3 + W_max, beta 0.7, fast convergence, Reno-friendly region, HyStart++ slow-start exit",
        source: "RFC 9438; RFC 9406 (HyStart++)",
    },
    AlgoInfo {
        name: "bbr",
        aliases: &["bbr1"],
        summary: "BBR v1: model-based (max bandwidth, min RTT), paced; STARTUP, DRAIN, PROBE_BW gain cycling, PROBE_RTT; ignores loss beyond recovery",
        source: "draft-cardwell-iccrg-bbr-congestion-control-00; Linux tcp_bbr.c",
    },
    AlgoInfo {
        name: "bbr2",
        aliases: &["bbr3"],
        summary: "BBRv2/v3: BBR with loss-bounded inflight_hi/inflight_lo, 2% loss threshold, beta 0.7, PROBE_BW DOWN/CRUISE/REFILL/UP",
        source: "draft-cardwell-ccwg-bbr-00 (BBRv3)",
    },
    AlgoInfo {
        name: "vegas",
        aliases: &[],
        summary: "delay-based: keeps between alpha=2 and beta=4 packets queued at the bottleneck (Linux defaults)",
        source: "Brakmo & Peterson, IEEE JSAC 1995; Linux tcp_vegas.c",
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
