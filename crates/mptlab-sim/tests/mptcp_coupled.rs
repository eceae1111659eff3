//! Coupled MPTCP congestion control against its design goals: RFC 6356 §2's three goals for
//! LIA (and OLIA, BALIA), OLIA's fix of LIA's non-Pareto-optimality (Khalili et al., ToN 2013,
//! scenario A), and wVegas's delay target and friendliness (Cao et al., ICNP 2012).

mod common;

use common::*;

const SEEDS: [u64; 3] = [1, 2, 3];

/// Mean over SEEDS of `f(summary)` for a scenario.
fn mean_over_seeds(toml: &str, f: impl Fn(&serde_json::Value) -> f64 + Sync) -> f64 {
    let xs = par_map(&SEEDS, threads(), |&seed| f(&run(toml, Some(seed)).1));
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn goodput(s: &serde_json::Value, flow: usize) -> f64 {
    s["flows"][flow]["goodput_mbps"]["mean"].as_f64().unwrap()
}

/// Two disjoint paths from c to s (10 Mbit/s each, 10 and 30 ms one way) and one MPTCP or TCP
/// flow `flow` (TOML lines of a `[flows.f]` entry).
fn disjoint(flow: &str) -> String {
    format!(
        r#"
[run]
duration = "40s"
[nodes]
hosts = ["c", "s"]
routers = ["r1", "r2"]
[links.p1]
between = ["c", "r1"]
rate = "10Mbps"
delay = "10ms"
[links.p1s]
between = ["r1", "s"]
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[links.p2]
between = ["c", "r2"]
rate = "10Mbps"
delay = "30ms"
[links.p2s]
between = ["r2", "s"]
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[flows.f]
from = "c"
to = "s"
app = "bulk"
start = "0s"
{flow}
"#
    )
}

/// Both of an MPTCP client's subflows (through r1 and r2) and a regular TCP flow from t share
/// one 10 Mbit/s bottleneck b → s.
fn shared_bottleneck(cc: &str) -> String {
    shared_bottleneck_with(cc, "")
}

fn shared_bottleneck_with(cc: &str, bottleneck: &str) -> String {
    format!(
        r#"
[run]
duration = "60s"
[nodes]
hosts = ["c", "t", "s"]
routers = ["r1", "r2", "b"]
[links.c1]
between = ["c", "r1"]
rate = "100Mbps"
delay = "5ms"
[links.c2]
between = ["c", "r2"]
rate = "100Mbps"
delay = "5ms"
[links.r1b]
between = ["r1", "b"]
rate = "100Mbps"
delay = "5ms"
[links.r2b]
between = ["r2", "b"]
rate = "100Mbps"
delay = "5ms"
[links.tb]
between = ["t", "b"]
rate = "100Mbps"
delay = "10ms"
[links.bottleneck]
between = ["b", "s"]
rate = "10Mbps"
delay = "10ms"
{bottleneck}
[flows.mp]
from = "c"
to = "s"
protocol = "mptcp"
cc = "{cc}"
app = "bulk"
[flows.tcp]
from = "t"
to = "s"
protocol = "tcp"
cc = "reno"
app = "bulk"
tcp = {{ mss = "1432B" }}
"#
    )
}

#[test]
#[ignore]
fn explore_goals() {
    for cc in ["reno", "lia", "olia", "balia", "wvegas"] {
        let mp = mean_over_seeds(&disjoint(&format!("protocol = \"mptcp\"\ncc = \"{cc}\"")), |s| goodput(s, 0));
        let (shared_mp, shared_tcp) = (
            mean_over_seeds(&shared_bottleneck(cc), |s| goodput(s, 0)),
            mean_over_seeds(&shared_bottleneck(cc), |s| goodput(s, 1)),
        );
        println!("{cc}: disjoint {mp:.2}; shared mp {shared_mp:.2} tcp {shared_tcp:.2} ratio {:.2}", shared_mp / shared_tcp);
    }
    let best = mean_over_seeds(&disjoint("protocol = \"tcp\"\ncc = \"reno\"\npath = [\"c\", \"r1\", \"s\"]\ntcp = { mss = \"1432B\" }"), |s| goodput(s, 0));
    println!("best single path TCP {best:.2}");
}

#[test]
#[ignore]
fn explore_wvegas() {
    let (sim, s) = run(&disjoint("protocol = \"mptcp\"\ncc = \"wvegas\"\ntcp = { pacing = true }"), None);
    let m = &s["flows"][0]["mptcp"]["paths"];
    for p in m.as_array().unwrap() {
        println!("path srtt {:?} min {:?} cwnd {:?} share {:?} retx {:?}", p["srtt_ms_mean"], p["min_rtt_ms"], p["final_cwnd_bytes"], p["share"], p["retransmissions"]);
    }
    let tr = sim.flows[0].metrics.cwnd.points();
    println!("{:?}", &tr.1[..60.min(tr.1.len())]);
    for b in ["p1", "p2"] {
        let l = s["links"].as_array().unwrap().iter().find(|l| l["name"] == b).unwrap();
        println!("{b}: queue pkts mean {:?} tput {:?}", l["queue_pkts_mean"], l["throughput_mbps"]["mean"]);
    }
}

#[test]
#[ignore]
fn explore_shared() {
    for extra in ["", "queue = { kind = \"droptail\", limit = \"3bdp\" }\nloss = { model = \"bernoulli\", p = 0.002 }", "queue = { kind = \"codel\" }"] {
        for cc in ["reno", "lia", "olia", "balia"] {
            let t = shared_bottleneck_with(cc, extra);
            let (a, b) = (mean_over_seeds(&t, |s| goodput(s, 0)), mean_over_seeds(&t, |s| goodput(s, 1)));
            println!("{extra:?} {cc}: mp {a:.2} tcp {b:.2} ratio {:.2}", a / b);
        }
    }
}
