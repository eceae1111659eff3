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
    AlgoInfo {
        name: "lia",
        aliases: &[],
        summary: "coupled multipath (MPTCP): linked increases, alpha from every subflow's cwnd/rtt, increase capped at Reno's; Reno on one subflow; also `lia+<path cc>`",
        source: "RFC 6356 §3 (eq. (1), (2)); Linux mptcp_coupled.c",
    },
    AlgoInfo {
        name: "olia",
        aliases: &[],
        summary: "coupled multipath: opportunistic linked increases, shifts window from max-window paths to the best paths (inter-loss distance/rtt²); also `olia+<path cc>`",
        source: "Khalili, Gast, Popovic, Le Boudec, IEEE/ACM ToN 2013 (CoNEXT 2012); Linux mptcp_olia.c",
    },
    AlgoInfo {
        name: "balia",
        aliases: &[],
        summary: "coupled multipath: balanced linked adaptation, alpha_r = max x / x_r in increase and decrease (min(alpha, 1.5)); also `balia+<path cc>`",
        source: "Peng, Walid, Hwang, Low, IEEE/ACM ToN 2016; draft-walid-mptcp-congestion-control-04 §3; Linux mptcp_balia.c",
    },
    AlgoInfo {
        name: "wvegas",
        aliases: &[],
        summary: "coupled multipath, delay-based: weighted Vegas, alpha_r = rate share x total_alpha (10), queue draining; also `wvegas+<path cc>`",
        source: "Cao, Xu, Fu, ICNP 2012; Linux mptcp_wvegas.c",
    },
    AlgoInfo {
        name: "blp-adaptive",
        aliases: &["adaptive"],
        summary: "reward/penalty window: cwnd x (1 +/- alpha^2 (1 - N_f/(1 + BT (N_l+N_s))) / B) per ACK / loss event, alpha = unacknowledged share of the last round; Reno slow start and RTO; exposes an optimal packet size",
        source: "seed 002 (Das et al., ICC Workshops 2025) §IV eq. (2)-(10)",
    },
];

/// Coupled multipath controllers: besides running alone, each composes with a per-path
/// controller as `<coupled>+<path>` (`cc/coupled/compose.rs`: the subflow sends while both
/// windows allow). The composite names are in `COMPOSITES`, not in the registry's entries.
pub const COUPLED: &[&str] = &["lia", "olia", "balia", "wvegas"];
/// Per-path controllers a coupled one composes with.
pub const PATH_CONTROLLERS: &[&str] = &["reno", "newreno", "cubic", "bbr", "bbr2", "vegas"];
/// Every `<coupled>+<path>` name (COUPLED × PATH_CONTROLLERS, checked by a test).
#[rustfmt::skip]
pub const COMPOSITES: &[&str] = &[
    "lia+reno", "lia+newreno", "lia+cubic", "lia+bbr", "lia+bbr2", "lia+vegas",
    "olia+reno", "olia+newreno", "olia+cubic", "olia+bbr", "olia+bbr2", "olia+vegas",
    "balia+reno", "balia+newreno", "balia+cubic", "balia+bbr", "balia+bbr2", "balia+vegas",
    "wvegas+reno", "wvegas+newreno", "wvegas+cubic", "wvegas+bbr", "wvegas+bbr2", "wvegas+vegas",
];
/// How `names` lists the composites (error messages stay one line).
pub const COMPOSITE_NOTE: &str = "<lia|olia|balia|wvegas>+<reno|newreno|cubic|bbr|bbr2|vegas>";

/// Resolve a user-given name (case-insensitive, aliases allowed) to its canonical name. A
/// composite `<coupled>+<path>` resolves part by part ("LIA+bbr1" → "lia+bbr").
pub fn resolve(registry: &[AlgoInfo], name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if let Some((coupled, path)) = lower.split_once('+') {
        let (coupled, path) = (resolve(registry, coupled)?, resolve(registry, path)?);
        return composite(coupled, path);
    }
    registry.iter().find(|a| a.name == lower || a.aliases.contains(&lower.as_str())).map(|a| a.name)
}

/// The canonical composite name of a coupled and a per-path controller (canonical names).
pub fn composite(coupled: &str, path: &str) -> Option<&'static str> {
    COMPOSITES.iter().copied().find(|c| c.split_once('+') == Some((coupled, path)))
}

/// Canonical names, for error messages ("valid: ..."); for a registry with coupled controllers,
/// followed by `COMPOSITE_NOTE` (a pattern, not a name) instead of the 24 composites.
pub fn names(registry: &[AlgoInfo]) -> Vec<&'static str> {
    let mut v: Vec<_> = registry.iter().map(|a| a.name).collect();
    if registry.iter().any(|a| COUPLED.contains(&a.name)) {
        v.push(COMPOSITE_NOTE);
    }
    v
}

/// Multipath packet schedulers (`crate::sched`; built through `sched::SchedConfig`).
pub const SCHEDULERS: &[AlgoInfo] = &[
    AlgoInfo {
        name: "minrtt",
        aliases: &["srtt"],
        summary: "lowest smoothed RTT among the paths with window space",
        source: "out-of-tree Linux MPTCP mptcp_sched.c (get_available_subflow)",
    },
    AlgoInfo {
        name: "default",
        aliases: &[],
        summary: "upstream Linux MPTCP (6.18): lowest linger time (send-buffer bytes / smoothed pacing rate), 64 KB bursts into subflow send buffers, waits when the winner's buffer is full",
        source: "Linux net/mptcp/protocol.c (mptcp_subflow_get_send, __mptcp_push_pending)",
    },
    AlgoInfo {
        name: "roundrobin",
        aliases: &[],
        summary: "paths with window space take turns, `segments` chunks each",
        source: "out-of-tree Linux MPTCP mptcp_rr.c",
    },
    AlgoInfo {
        name: "redundant",
        aliases: &[],
        summary: "every chunk on every path with window space",
        source: "out-of-tree Linux MPTCP mptcp_redundant.c",
    },
    AlgoInfo {
        name: "blest",
        aliases: &[],
        summary: "minRTT, but waits for the fast path when a chunk on the slow path would block the send window (adaptive lambda)",
        source: "Ferlin et al., IFIP Networking 2016, §III eq. (1)-(2); mptcp_blest.c",
    },
    AlgoInfo {
        name: "ecf",
        aliases: &[],
        summary: "earliest completion first: waits for the full fast path when it finishes the remaining data sooner (hysteresis beta)",
        source: "Lim et al., CoNEXT 2017, Algorithm 1; mptcp_ecf.c",
    },
    AlgoInfo {
        name: "cpf",
        aliases: &[],
        summary: "cheapest path first: strict priority (lower `priority` first), the first path in order with window space",
        source: "seed 003 (Pieska et al., Future Internet 2024) §2.3; MP-DCCP sched_cpf.c",
    },
    AlgoInfo {
        name: "otias",
        aliases: &[],
        summary: "earliest estimated arrival, floor((in flight + queued)/cwnd)·SRTT + SRTT/2, queueing on paths without space",
        source: "Yang, Wang, Amer, WAINA 2014; MP-DCCP sched_otias.c",
    },
    AlgoInfo {
        name: "blp",
        aliases: &["blocking-probability"],
        summary: "minRTT while rtt_s/rtt_f < threshold BT, else waits for the fast path when pf-weighted estimate sm x lambda exceeds the send window left (lambda = pf (lambda + delta_lambda)); BT set each model_interval by a learned stacked classifier over nine path statistics (model = builtin | none | file)",
        source: "seed 002 (Das et al., ICC Workshops 2025) §III eq. (1), Algorithm 1, blocking threshold learning",
    },
    AlgoInfo {
        name: "peekaboo",
        aliases: &[],
        summary: "learning-based: when the fast path is full, a LinUCB bandit over path features chooses wait-for-fast or send-on-slow; stochastic adjustment of the wait by RTT variation",
        source: "Wu, Alay, Brunstrom, Ferlin, Caso, IEEE JSAC 38(10) 2020 (simplified)",
    },
];
