//! The parallel engine (`run.partitions`, `sim::parallel`, `partition::Plan`).
//!
//! - Exactness: when no two events tie in time (devices start at jittered times), a partitioned
//!   run is the sequential run, summary for summary, apart from the engine's event count (a
//!   handed-over packet costs one more event). This covers late and early handovers, drops in a
//!   core's queue and on its channels (reported to the owner), and stepping.
//! - Determinism: with ties everywhere (synchronised devices), the results do not depend on the
//!   number of threads nor on how the run is stepped.
//! - Conservation: created = delivered + dropped + live, at every step.
//! - The plan: ownership, core partitions and window of W5; refusals name `run.partitions`.

use mptlab_sim::engine::time::{MICROSECOND, MILLISECOND, SECOND};
use mptlab_sim::partition::Plan;
use mptlab_sim::sim::Runner;
use serde_json::Value;

/// W5 in small: devices behind a gateway with two backhauls to a dual-homed server, MPTCP and
/// MPQUIC devices plus a single-path TCP host, congested lossy backhauls (drops in the cores'
/// queues and on their channels), a lossy exit link (losses on a link that hands packets over).
/// Rates and delays are deliberately not round: with round ones, packets leaving a congested
/// link fall on a common grid of times and events of different flows tie, which the two engines
/// may order differently (the module comment).
const IOT: &str = r#"
[run]
duration = "4s"
seed = 3

[nodes]
hosts = ["server", "h0"]
routers = ["gw", "d1", "d2"]

[groups.tcpue]
count = 10
link = { to = "gw", rate = "100.03Mbps", delay = "201100ns" }

[groups.quicue]
count = 10
link = { to = "gw", rate = "100.03Mbps", delay = "201100ns" }

[links.h0gw]
between = ["h0", "gw"]
rate = "99.9Mbps"
delay = "1000700ns"

[links.tn1]
between = ["gw", "d1"]
rate = "4.013Mbps"
delay = "8003100ns"
queue = { kind = "droptail", limit = "20p" }
loss = { model = "bernoulli", p = 0.01 }

[links.tn2]
between = ["gw", "d2"]
rate = "3.0007Mbps"
delay = "10004300ns"
queue = { kind = "droptail", limit = "15p" }

[links.s1]
between = ["d1", "server"]
rate = "997Mbps"
delay = "100300ns"
loss = { model = "bernoulli", p = 0.005 }

[links.s2]
between = ["d2", "server"]
rate = "1003Mbps"
delay = "99700ns"

[flows.mptcp]
from = "tcpue"
to = "server"
protocol = "mptcp"
cc = "cubic"
app = { kind = "cbr", rate = "400kbps", write_size = "200B" }
start_spread = "1s"

[flows.mpquic]
from = "quicue"
to = "server"
protocol = "mpquic"
cc = "bbr"
app = { kind = "cbr", rate = "400kbps", write_size = "200B" }
start_spread = "1s"

[flows.bulk]
from = "h0"
to = "server"
protocol = "tcp"
cc = "newreno"
app = "bulk"
start = "500ms"
"#;

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// The summary of `toml` with `overrides`, on `threads` threads, advanced in `steps` equal steps.
fn summary(toml: &str, overrides: &[(&str, &str)], threads: usize, steps: u64) -> Value {
    let loaded = mptlab_sim::scenario::load(toml, &sets(overrides), None).expect("a valid scenario");
    let mut run = Runner::with_threads(loaded.spec, threads);
    let end = run.duration();
    for i in 1..=steps {
        run.advance(end * i / steps);
    }
    assert!(run.is_done());
    let mut v = run.sim().summary(&loaded.canonical);
    v["scenario"]["run"].as_object_mut().expect("the scenario's run table").remove("partitions");
    v
}

/// The first place where `a` and `b` differ, as a JSON path with both values.
fn difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<_> = x.keys().chain(y.keys()).collect();
            keys.into_iter()
                .find_map(|k| difference(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}")))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| difference(p, q, &format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| format!("{path}: {a} against {b}")),
    }
}

fn assert_same(a: &Value, b: &Value, what: &str) {
    if let Some(d) = difference(a, b, "") {
        panic!("{what}: the summaries differ at {d}");
    }
}

fn without_event_count(mut v: Value) -> Value {
    v["engine"].as_object_mut().expect("an engine section").remove("events");
    v
}

#[test]
fn a_partitioned_run_without_ties_is_the_sequential_run() {
    let sequential = summary(IOT, &[], 1, 1);
    assert!(sequential["engine"]["delivered_data_packets"].as_u64().unwrap() > 5_000, "the run carries traffic");
    let drops: u64 = sequential["flows"].as_array().unwrap().iter().map(|f| f["dropped_packets"].as_u64().unwrap()).sum();
    assert!(drops > 100, "the backhauls drop packets ({drops})");
    for partitions in ["2", "3", "5"] {
        let parallel = summary(IOT, &[("run.partitions", partitions)], 2, 1);
        assert!(parallel["engine"]["events"].as_u64() > sequential["engine"]["events"].as_u64(), "handovers are events of their own");
        assert_same(&without_event_count(parallel), &without_event_count(sequential.clone()), &format!("{partitions} partitions"));
    }
}

#[test]
fn ties_are_broken_the_same_way_whatever_the_threads_and_steps() {
    // Every device starts at 0 and writes at the same instants: equal times everywhere.
    let synchronised = [("run.partitions", "3"), ("flows.mptcp.start_spread", "0s"), ("flows.mpquic.start_spread", "0s")];
    let one = summary(IOT, &synchronised, 1, 1);
    assert_same(&summary(IOT, &synchronised, 2, 1), &one, "two threads");
    assert_same(&summary(IOT, &synchronised, 3, 7), &one, "three threads, seven steps");
    assert_same(&summary(IOT, &synchronised, 1, 13), &one, "one thread, thirteen steps");
}

#[test]
fn packets_are_conserved_at_every_step() {
    let loaded = mptlab_sim::scenario::load(IOT, &sets(&[("run.partitions", "4")]), None).expect("valid");
    let mut run = Runner::with_threads(loaded.spec, 2);
    for step in 1..=16 {
        let t = step * SECOND / 4;
        run.advance(t);
        if run.is_done() {
            break;
        }
        let live = run.packets_live() as u64;
        let (created, delivered, dropped) = counts(&run);
        assert_eq!(created, delivered + dropped + live, "at {t} ns");
    }
    let c = run.sim().counts;
    assert_eq!(c.created, c.delivered + c.dropped + run.packets_live() as u64, "at the end");
}

/// (created, delivered, dropped) of a run in progress: the summary exists only at the end, so
/// these come through the engine-neutral accessors.
fn counts(run: &Runner) -> (u64, u64, u64) {
    let c = run.counts();
    (c.created, c.delivered, c.dropped)
}

#[test]
fn the_plan_of_w5() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench/w5.toml")).expect("w5.toml");
    let loaded = mptlab_sim::scenario::load(&text, &sets(&[("run.partitions", "3")]), None).expect("W5 can be partitioned");
    let spec = &loaded.spec;
    let plan = Plan::new(spec).expect("a plan");
    assert_eq!(plan.devices, 3);
    // TN1, TN2, S1, S2 in each direction: four groups of links that share routes.
    assert_eq!(plan.parts, 3 + 4);
    for (f, owner) in plan.flow_owner.iter().enumerate() {
        assert_eq!(*owner as usize, f % 3, "flows go round-robin");
    }
    let link = |name: &str| spec.links.iter().position(|l| l.name == name).expect("a link");
    let owner = |name: &str| plan.link_owner[link(name)];
    assert_eq!(owner("tn1"), owner("s1"), "a packet crosses TN1 then S1: one core");
    assert_eq!(owner("s1.rev"), owner("tn1.rev"));
    assert_ne!(owner("tn1"), owner("tn1.rev"), "the two directions share no route");
    assert_ne!(owner("tn1"), owner("tn2"));
    for (f, fs) in spec.flows.iter().enumerate() {
        for (fwd, rev) in fs.route_pairs() {
            let (up, down) = (fwd[0] as usize, *rev.last().expect("a route") as usize);
            assert_eq!(plan.link_owner[up], plan.flow_owner[f], "{} is its device's", spec.links[up].name);
            assert_eq!(plan.link_owner[down], plan.flow_owner[f], "{} is its device's", spec.links[down].name);
        }
    }
    // Cores hand packets to devices over S1/S2 (100 us) and TN1/TN2 backwards (8-10 ms).
    assert_eq!(plan.window, 100 * MICROSECOND - 1);
    assert!(plan.window < MILLISECOND);
}

fn refusal(toml: &str, overrides: &[(&str, &str)]) -> String {
    let e = mptlab_sim::scenario::load(toml, &sets(overrides), None).expect_err("refused");
    assert_eq!(e.key, "run.partitions", "{e}");
    e.reason
}

#[test]
fn what_cannot_be_partitioned_is_refused_with_the_reason() {
    let codel = refusal(IOT, &[("run.partitions", "2"), ("links.s1.queue", "{ kind = \"codel\" }")]);
    assert!(codel.contains("link s1 ") && codel.contains("decide on arrival"), "{codel}");
    let too_many = refusal(IOT, &[("run.partitions", "30")]);
    assert!(too_many.contains("30 device partitions") && too_many.contains("21"), "{too_many}");
    let jitter = refusal(IOT, &[("run.partitions", "2"), ("metrics.jitter", "\"all\"")]);
    assert!(jitter.contains("link jitter"), "{jitter}");
    let file = |name: &str| std::fs::read_to_string(format!("{}/../../scenarios/{name}", env!("CARGO_MANIFEST_DIR"))).expect("a scenario");
    assert!(refusal(&file("link-events.toml"), &[("run.partitions", "2")]).contains("link events"));
    assert!(refusal(&file("tunnel.toml"), &[("run.partitions", "2")]).contains("tunnels"));
    assert!(refusal(&file("wifi-mesh.toml"), &[("run.partitions", "2")]).contains("Wi-Fi"));
    // One partition is the sequential engine: nothing to refuse.
    assert!(mptlab_sim::scenario::load(&file("tunnel.toml"), &sets(&[("run.partitions", "1")]), None).is_ok());
}
