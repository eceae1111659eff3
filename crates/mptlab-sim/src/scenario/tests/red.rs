//! RED queues in scenario files: defaults, thresholds resolved like queue limits, the errors of
//! impossible settings, and one scenario run end to end.

use super::super::{catalogue, load};
use super::{assert_err, base_ok, err_with, BASE};
use crate::sim::Simulation;
use crate::spec::{QueueLimit, QueueSpec, RunSpec};

fn queue(spec: &RunSpec, name: &str) -> QueueSpec {
    spec.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}")).queue.clone()
}

#[test]
fn red_by_name_takes_the_documented_defaults() {
    let spec = base_ok(&[("links.bottleneck.queue", "red")]).spec;
    match queue(&spec, "bottleneck") {
        QueueSpec::Red { limit, min, max, max_p, weight, gentle } => {
            assert!(matches!((limit, min, max), (QueueLimit::Packets(1000), QueueLimit::Packets(5), QueueLimit::Packets(15))));
            assert_eq!((max_p, weight, gentle), (0.1, 0.002, true));
        }
        q => panic!("expected red, got {q:?}"),
    }
    let c = catalogue();
    assert_eq!(c["queues"]["red"]["min"], "5p");
    assert_eq!(c["queues"]["red"]["max_p"], 0.1);
}

#[test]
fn red_thresholds_resolve_like_limits() {
    // 100 Mbit/s and a 24 ms round trip: 1 BDP = 300 000 B.
    let q = "{ kind = \"red\", limit = \"2bdp\", min = \"0.25bdp\", max = \"150KB\", max_p = 0.05, weight = 0.01, gentle = false }";
    let spec = base_ok(&[("links.bottleneck.queue", q)]).spec;
    match queue(&spec, "bottleneck") {
        QueueSpec::Red { limit, min, max, max_p, weight, gentle } => {
            assert!(
                matches!((limit, min, max), (QueueLimit::Bytes(600_000), QueueLimit::Bytes(75_000), QueueLimit::Bytes(150_000))),
                "{limit:?} {min:?} {max:?}"
            );
            assert_eq!((max_p, weight, gentle), (0.05, 0.01, false));
        }
        q => panic!("expected red, got {q:?}"),
    }
}

#[test]
fn impossible_red_settings_name_their_key() {
    let bad = |q: &str, key: &str, word: &str| assert_err(&err_with(BASE, &[("links.bottleneck.queue", q)]), key, word);
    bad("{ kind = \"red\", min = \"20p\", max = \"10p\" }", "links.bottleneck.queue.max", "above its min");
    bad("{ kind = \"red\", min = \"10p\", max = \"10p\" }", "links.bottleneck.queue.max", "above its min");
    bad("{ kind = \"red\", min = \"5p\", max = \"1bdp\" }", "links.bottleneck.queue.max", "both be packets or both be bytes");
    bad("{ kind = \"red\", max_p = 0 }", "links.bottleneck.queue.max_p", "> 0");
    bad("{ kind = \"red\", max_p = 1.5 }", "links.bottleneck.queue.max_p", "probability");
    bad("{ kind = \"red\", weight = 0.0 }", "links.bottleneck.queue.weight", "> 0");
    bad("{ kind = \"red\", min = \"0p\" }", "links.bottleneck.queue.min", "> 0");
    bad("{ kind = \"red\", gentle = \"yes\" }", "links.bottleneck.queue.gentle", "true or false");
    bad("{ kind = \"red\", target = \"5ms\" }", "links.bottleneck.queue.target", "unknown key for kind `red`");
}

/// One TCP flow into a 10 Mbit/s bottleneck with a deep buffer: drop-tail fills it, RED holds
/// the average near its thresholds and drops early.
const RED_EXAMPLE: &str = r#"
[run]
duration = "20s"

[nodes]
hosts = ["s", "d"]
routers = ["r"]

[links.access]
between = ["s", "r"]
rate = "1Gbps"
delay = "1ms"

[links.bottleneck]
between = ["r", "d"]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "red", limit = "400p", min = "10p", max = "30p", max_p = 0.1, weight = 0.002 }

[flows.bulk]
from = "s"
to = "d"
cc = "cubic"
"#;

#[test]
fn red_example_runs_and_keeps_the_queue_below_droptail() {
    let run = |text: &str| {
        let spec = load(text, &[], None).unwrap_or_else(|e| panic!("{e}")).spec;
        let l = spec.links.iter().position(|l| l.name == "bottleneck").unwrap();
        let mut sim = Simulation::new(spec);
        sim.run_to_end();
        let link = &sim.hops[l];
        (*link.counters(), link.stats().max_len_packets(), link.stats().mean_len_packets(20 * mptlab_engine::time::SECOND))
    };
    let (red, red_max, red_mean) = run(RED_EXAMPLE);
    let droptail = RED_EXAMPLE
        .replace("kind = \"red\", limit = \"400p\", min = \"10p\", max = \"30p\", max_p = 0.1, weight = 0.002", "limit = \"400p\"");
    let (dt, dt_max, dt_mean) = run(&droptail);
    assert!(red.aqm_drops > 0 && red.aqm_drops == red.queue_drops, "RED drops early, never at its hard limit: {red:?}");
    assert_eq!(dt.aqm_drops, 0);
    assert!(red_max < dt_max, "max queue: red {red_max}, droptail {dt_max}");
    assert!(red_mean < dt_mean / 2.0, "mean queue: red {red_mean}, droptail {dt_mean}");
    assert!(red_mean < 30.0, "RED holds the mean queue below max_th: {red_mean}");
    assert!(red.delivered > 10_000, "the flow keeps the link busy: {red:?}");
}
