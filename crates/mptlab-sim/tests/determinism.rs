//! Determinism (DESIGN.md "Validation ladder", step 4, and the engine rules): a run is a pure
//! function of (scenario, seed); the seed matters where randomness is configured; and every
//! random component draws from its own stream, so adding an unrelated flow leaves the draws
//! another component sees unchanged.

mod common;

use common::*;
use mptlab_sim::engine::time::{MICROSECOND, MILLISECOND};
use serde_json::Value;

/// A scenario with every source of randomness and both queue kinds: Bernoulli and
/// Gilbert–Elliott channels, an LTE-like capacity model, Poisson sources, SACK and non-SACK TCP,
/// UDP CBR, MPTCP over two paths with a coupled controller, CoDel, staggered starts, a stop and
/// a link outage.
const RICH: &str = r#"
[run]
duration = "8s"
seed = 7

[nodes]
hosts = ["s1", "s2", "s3", "d1", "d2"]
routers = ["r1", "r2"]

[links.access_s1]
between = ["s1", "r1"]
rate = "100Mbps"
delay = "1ms"

[links.access_s2]
between = ["s2", "r1"]
rate = "100Mbps"
delay = "3ms"
loss = { model = "bernoulli", p = 0.002 }

[links.bottleneck]
between = ["r1", "r2"]
rate = "20Mbps"
delay = "10ms"
queue = { kind = "codel", limit = "1bdp" }
loss = { model = "gilbert_elliott", p_good_to_bad = 0.001, p_bad_to_good = 0.3, loss_bad = 0.5 }

[links.access_d1]
between = ["r2", "d1"]
rate = "100Mbps"
delay = "1ms"
loss = { model = "bernoulli", p = 0.01 }
reverse = { loss = "none" }

[links.access_d2]
between = ["r2", "d2"]
rate = "50Mbps"
delay = "2ms"
queue = { kind = "droptail", limit = "20p" }

[links.radio]
between = ["s3", "r2"]
rate = "30Mbps"
delay = "15ms"
capacity = { model = "lte", mean = "20Mbps" }

[links.access_s3]
between = ["s3", "r1"]
rate = "100Mbps"
delay = "1ms"

[[events]]
at = "3s"
link = "radio"
action = "down"

[[events]]
at = "4s"
link = "radio"
action = "up"

[flows.multipath]
from = "s3"
to = "d1"
protocol = "mptcp"
cc = "lia+cubic"
scheduler = "blest"
app = "bulk"

[flows.bulk]
from = "s1"
to = "d1"
count = 2
cc = "newreno"
app = "bulk"

[flows.legacy]
from = "s2"
to = "d2"
cc = "reno"
app = "bulk"
start = "500ms"
tcp = { sack = false, delayed_ack = { enabled = false } }

[flows.web]
from = "s2"
to = "d1"
app = { kind = "poisson", rate = "3Mbps", message_size = "20KB" }
tcp = { handshake = true }

[flows.voice]
from = "s1"
to = "d2"
protocol = "udp"
app = { kind = "poisson", rate = "2Mbps" }
packet_size = "200B"

[flows.video]
from = "s2"
to = "d2"
protocol = "udp"
app = { kind = "cbr", rate = "5Mbps" }
start = "1s"
stop = "6s"

[flows.file]
from = "s1"
to = "d2"
app = { kind = "file", size = "3MB" }
start = "2s"
"#;

fn summary_text(toml: &str, seed: Option<u64>) -> String {
    let (_, summary) = run(toml, seed);
    serde_json::to_string(&summary).expect("summary serialises")
}

#[test]
fn same_scenario_and_seed_give_byte_identical_summaries() {
    let a = summary_text(RICH, None);
    let b = summary_text(RICH, None);
    assert_eq!(a, b, "two runs of the same scenario and seed differ");
    // Concurrent runs share nothing (no global or thread-local state).
    let par = par_map(&[0, 1, 2], 3, |_| summary_text(RICH, None));
    for (i, p) in par.iter().enumerate() {
        assert_eq!(&a, p, "concurrent run {i} differs");
    }
    // The seed given as an argument is the same as the seed written in the file.
    assert_eq!(a, summary_text(RICH, Some(7)), "--seed 7 differs from run.seed = 7");
    // Sanity: the scenario really is random and busy.
    let v: Value = serde_json::from_str(&a).unwrap();
    let drops: u64 = v["links"].as_array().unwrap().iter().map(|l| l["channel_drops"].as_u64().unwrap()).sum();
    assert!(drops > 0, "no channel losses: the test exercises no randomness");
    println!("summary: {} bytes, {} channel drops", a.len(), drops);
}

#[test]
fn stepping_the_run_does_not_change_its_result() {
    // advance() in uneven steps, as an interactive front end or the invariant tests do, must
    // give the same run as run_to_end().
    let (_, whole) = run(RICH, None);
    let (mut sim, canonical) = build(RICH, None);
    let steps = [1, 999 * MICROSECOND, 37 * MILLISECOND, 3, 250 * MILLISECOND, 1234 * MICROSECOND];
    let mut t = 0;
    let mut k = 0;
    while !sim.is_done() {
        t += steps[k % steps.len()];
        k += 1;
        sim.advance(t);
    }
    let stepped = sim.summary(&canonical);
    // Flows first, for a clearer message; then everything, the engine's event count included.
    assert_eq!(
        serde_json::to_string(&stepped["flows"]).unwrap(),
        serde_json::to_string(&whole["flows"]).unwrap(),
        "stepped run's flows differ"
    );
    assert_eq!(serde_json::to_string(&stepped).unwrap(), serde_json::to_string(&whole).unwrap(), "stepped run's summary differs");
}

#[test]
fn different_seeds_give_different_loss_patterns() {
    let seeds: Vec<u64> = (1..=6).collect();
    let outcomes = par_map(&seeds, threads(), |&s| {
        let (sim, summary) = run(RICH, Some(s));
        let l = link_index(&sim, "access_d1");
        let f = flow_index(&sim, "bulk#0");
        (
            sim.hops[l].counters().channel_drops,
            summary["flows"][f]["bytes_delivered"].as_u64().unwrap(),
            serde_json::to_string(&summary["flows"]).unwrap(),
        )
    });
    for (s, o) in seeds.iter().zip(&outcomes) {
        println!("seed {s}: access_d1 channel drops {}, bulk#0 bytes delivered {}", o.0, o.1);
    }
    for i in 0..outcomes.len() {
        for j in i + 1..outcomes.len() {
            let (a, b) = (&outcomes[i], &outcomes[j]);
            assert!(
                a.0 != b.0 || a.1 != b.1,
                "seeds {} and {} give the same drop count ({}) and goodput ({} B)",
                seeds[i],
                seeds[j],
                a.0,
                a.1
            );
            assert_ne!(a.2, b.2, "seeds {} and {} give identical flow results", seeds[i], seeds[j]);
        }
    }
}

/// Two disjoint paths through one router: `a → r → b` (flows `main_tcp`, `main_udp`; link `lb`
/// lossy) and, in the second variant only, `c → r → d` over links named to sort *before* the
/// first path's (so link ids shift) carrying flows named to sort before them (so flow ids
/// shift), with their own random loss and Poisson source. The first path's traffic cannot be
/// influenced by the second, so everything about it must be bit-identical.
fn independence_scenario(with_extra: bool) -> String {
    let mut s = String::from(
        r#"
[run]
duration = "10s"
seed = 11

[nodes]
hosts = ["a", "b", "c", "d"]
routers = ["r"]

[links.la]
between = ["a", "r"]
rate = "50Mbps"
delay = "5ms"

[links.lb]
between = ["r", "b"]
rate = "20Mbps"
delay = "10ms"
loss = { model = "bernoulli", p = 0.01 }

[flows.main_tcp]
from = "a"
to = "b"
cc = "newreno"
app = "bulk"

[flows.main_udp]
from = "a"
to = "b"
protocol = "udp"
app = { kind = "poisson", rate = "2Mbps" }
"#,
    );
    if with_extra {
        s.push_str(
            r#"
[links.aa_c]
between = ["c", "r"]
rate = "100Mbps"
delay = "2ms"

[links.aa_d]
between = ["r", "d"]
rate = "30Mbps"
delay = "7ms"
loss = { model = "gilbert_elliott", p_good_to_bad = 0.01, p_bad_to_good = 0.2, loss_bad = 0.8 }

[flows.aaa_extra]
from = "c"
to = "d"
cc = "reno"
app = "bulk"

[flows.aab_extra]
from = "c"
to = "d"
protocol = "udp"
app = { kind = "poisson", rate = "5Mbps" }
"#,
        );
    }
    s
}

fn by_name<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array().unwrap().iter().find(|x| x["name"] == name).unwrap_or_else(|| panic!("no entry {name}"))
}

#[test]
fn adding_an_unrelated_flow_does_not_change_another_paths_randomness() {
    let (sim1, s1) = run(&independence_scenario(false), None);
    let (sim2, s2) = run(&independence_scenario(true), None);
    // The ids really shifted, so stable ids must come from names, not positions.
    assert_ne!(flow_index(&sim1, "main_tcp"), flow_index(&sim2, "main_tcp"));
    assert_ne!(link_index(&sim1, "lb"), link_index(&sim2, "lb"));
    let lb1 = sim1.hops[link_index(&sim1, "lb")].counters();
    let lb2 = sim2.hops[link_index(&sim2, "lb")].counters();
    let extra = sim2.hops[link_index(&sim2, "aa_d")].counters();
    println!(
        "lb channel drops: {} alone, {} with the extra flows (whose lossy link dropped {}); main_udp sent {} / {}",
        lb1.channel_drops,
        lb2.channel_drops,
        extra.channel_drops,
        by_name(&s1["flows"], "main_udp")["sent_packets"],
        by_name(&s2["flows"], "main_udp")["sent_packets"]
    );
    assert!(lb1.channel_drops > 0 && extra.channel_drops > 0, "both paths must draw random losses");
    assert_eq!(lb1.channel_drops, lb2.channel_drops, "the lossy link's channel drops changed");
    assert_eq!(lb1.transmitted, lb2.transmitted);
    for name in ["main_tcp", "main_udp"] {
        assert_eq!(
            serde_json::to_string(by_name(&s1["flows"], name)).unwrap(),
            serde_json::to_string(by_name(&s2["flows"], name)).unwrap(),
            "flow {name} changed when unrelated flows were added"
        );
    }
    for name in ["la", "la.rev", "lb", "lb.rev"] {
        assert_eq!(
            serde_json::to_string(by_name(&s1["links"], name)).unwrap(),
            serde_json::to_string(by_name(&s2["links"], name)).unwrap(),
            "link {name} changed when unrelated flows were added"
        );
    }
}
