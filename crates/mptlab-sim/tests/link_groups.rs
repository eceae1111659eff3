//! Per-group link accounting and link jitter (issue 21): two flow groups of the same IP
//! protocol sharing a link are reported apart and add up to the link's totals; their
//! `link_group_mbps` series add up to `link_mbps`; link jitter on an uncongested constant-rate
//! stream is what the definition gives (0).

mod common;

use serde_json::Value;

/// Two TCP entries (`a`: two bulk flows, `b`: one) share a 20 Mbit/s bottleneck with a
/// 10-packet queue, so the queue drops; a CBR entry shares the reverse direction with the ACKs.
fn two_tcp_groups(metrics: &str) -> String {
    format!(
        r#"
[run]
duration = "4s"
seed = 7

[metrics]
interval = "500ms"
trace_interval = "100ms"
{metrics}

[nodes]
hosts = ["s1", "s2", "d"]
routers = ["r1", "r2"]

[links.acc1]
between = ["s1", "r1"]
rate = "1Gbps"
delay = "1ms"

[links.acc2]
between = ["s2", "r1"]
rate = "1Gbps"
delay = "1ms"

[links.neck]
between = ["r1", "r2"]
rate = "20Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "10p" }}

[links.out]
between = ["r2", "d"]
rate = "1Gbps"
delay = "1ms"

[flows.a]
from = "s1"
to = "d"
count = 2
protocol = "tcp"
cc = "cubic"
app = "bulk"

[flows.b]
from = "s2"
to = "d"
protocol = "tcp"
cc = "newreno"
app = "bulk"

[flows.back]
from = "d"
to = "s1"
protocol = "udp"
app = {{ kind = "cbr", rate = "2Mbps" }}
"#
    )
}

fn link<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap_or_else(|| panic!("no link {name}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn two_groups_of_one_protocol_are_reported_apart_and_sum_to_the_link_totals() {
    let (sim, s) = common::run(&two_tcp_groups("jitter = \"links\""), None);
    let neck = link(&s, "neck");
    let by_group = neck["by_group"].as_object().unwrap();
    let names: Vec<&str> = by_group.keys().map(|k| k.as_str()).collect();
    // `back` (UDP) crosses the reverse direction only; both TCP groups are here apart.
    assert_eq!(names, ["a", "b"], "{by_group:?}");
    assert!(u(&neck["queue_drops"]) > 0, "the small queue must drop: {neck}");
    for key in ["packets", "bytes", "drops", "offered_packets"] {
        let sum: u64 = by_group.values().map(|g| u(&g[key])).sum();
        assert_eq!(sum, u(&neck[key]), "{key}");
    }
    for g in by_group.values() {
        assert!(u(&g["packets"]) > 0 && u(&g["drops"]) > 0, "{g}");
        // Offered = transmitted + dropped at the queue (no channel loss, never down, and every
        // transmission started before the end... or is still queued at the end).
        assert!(u(&g["offered_packets"]) >= u(&g["packets"]) + u(&g["drops"]));
    }
    // Only TCP on the forward direction: the protocol split cannot tell the groups apart.
    assert_eq!(neck["by_protocol"].as_object().unwrap().keys().collect::<Vec<_>>(), ["tcp"]);
    // Group throughput: the mean of the two groups' interval rates adds up to the link's.
    let mean_sum: f64 = by_group.values().map(|g| g["throughput_mbps"]["mean"].as_f64().unwrap()).sum();
    assert!((mean_sum - neck["throughput_mbps"]["mean"].as_f64().unwrap()).abs() < 1e-9);
    // The reverse direction carries the ACKs of both TCP groups and the CBR.
    let rev = link(&s, "neck.rev");
    let rev_groups: Vec<&String> = rev["by_group"].as_object().unwrap().keys().collect();
    assert_eq!(rev_groups, ["a", "b", "back"]);
    // Access links are detailed too here (no `groups.` access links in this topology).
    assert!(link(&s, "acc1")["by_group"].is_object());

    // Series: per interval, link_group_mbps of the groups sum to link_mbps.
    let ts = sim.timeseries();
    let rows = |series: &str, entity: &str| -> Vec<(f64, f64)> {
        (0..ts.series.len()).filter(|&i| ts.series[i] == series && ts.entity[i] == entity).map(|i| (ts.t_s[i], ts.value[i])).collect()
    };
    let total = rows("link_mbps", "neck");
    let (a, b) = (rows("link_group_mbps", "neck:a"), rows("link_group_mbps", "neck:b"));
    assert_eq!(total.len(), 8, "4 s in 500 ms bins");
    assert_eq!((a.len(), b.len()), (8, 8));
    for k in 0..8 {
        assert_eq!((a[k].0, b[k].0), (total[k].0, total[k].0));
        assert!((a[k].1 + b[k].1 - total[k].1).abs() < 1e-9 * total[k].1.max(1.0), "bin {k}");
    }
    assert!(a.iter().any(|r| r.1 > 0.0) && b.iter().any(|r| r.1 > 0.0));
    // Jitter was asked for: link-level and per-group values and their series exist.
    assert!(neck["jitter_ms"]["std"].is_number() && neck["jitter_ms"]["min"].is_number(), "{}", neck["jitter_ms"]);
    assert!(neck["subflow_jitter_ms"]["count"].as_u64().unwrap() > 0);
    for g in ["a", "b"] {
        assert!(by_group[g]["jitter_ms"]["count"].as_u64().unwrap() > 0, "{g}");
        assert!(!rows("link_group_jitter_ms", &format!("neck:{g}")).is_empty(), "{g}");
        assert!(!rows("link_group_subflow_jitter_ms", &format!("neck:{g}")).is_empty(), "{g}");
    }
    assert!(!rows("link_jitter_ms", "neck").is_empty() && !rows("link_subflow_jitter_ms", "neck").is_empty());
    // Per-subflow samples are pooled: the link's count is the sum of its groups'.
    let pooled: u64 = by_group.values().map(|g| u(&g["subflow_jitter_ms"]["count"])).sum();
    assert_eq!(pooled, u(&neck["subflow_jitter_ms"]["count"]));
    // Three data streams on the link (one per TCP flow): three fewer samples than data packets.
    let merged = u(&neck["jitter_ms"]["count"]);
    assert_eq!(merged, pooled + 2, "merged: one stream; per subflow: three, each losing its first packet");
}

#[test]
fn undetailed_links_have_no_groups_and_no_jitter_is_null_without_the_request() {
    let (_, s) = common::run(&two_tcp_groups("detail_links = [\"neck\"]"), None);
    assert!(link(&s, "acc1")["by_group"].is_null());
    let neck = link(&s, "neck");
    assert!(neck["by_group"].is_object());
    for g in neck["by_group"].as_object().unwrap().values() {
        assert!(g["jitter_ms"].is_null() && g["subflow_jitter_ms"].is_null());
    }
    assert!(neck["jitter_ms"].is_null() && neck["subflow_jitter_ms"].is_null());
}

/// One CBR flow over an uncongested link: every packet has the same transit time, so each
/// jitter definition gives J = 0 for every sample, with one sample per data packet but the
/// first (the link is the flow's only stream).
#[test]
fn a_cbr_flow_over_an_uncongested_link_has_zero_jitter_by_every_definition() {
    let toml = r#"
[run]
duration = "2s"
seed = 1

[metrics]
jitter = "links"

[nodes]
hosts = ["a", "b"]

[links.l]
between = ["a", "b"]
rate = "100Mbps"
delay = "5ms"

[flows.cbr]
from = "a"
to = "b"
protocol = "udp"
app = { kind = "cbr", rate = "1Mbps" }
"#;
    let (_, s) = common::run(toml, None);
    let l = link(&s, "l");
    let data = u(&s["flows"][0]["sent_packets"]);
    assert!(data > 100, "{data}");
    let g = &l["by_group"]["cbr"];
    for j in [&l["jitter_ms"], &l["subflow_jitter_ms"], &g["jitter_ms"], &g["subflow_jitter_ms"]] {
        for k in ["mean", "std", "min", "max", "p50", "p95"] {
            assert_eq!(j[k].as_f64(), Some(0.0), "{k}: {j}");
        }
    }
    // Packets still in flight at the end have not arrived.
    let arrived = u(&l["packets"]) - 1;
    assert!(u(&l["jitter_ms"]["count"]) <= arrived && u(&l["jitter_ms"]["count"]) + 3 >= arrived);
    assert_eq!(l["subflow_jitter_ms"]["count"], l["jitter_ms"]["count"]);
}

/// The sums hold for every kind of drop: CoDel's dequeue drops (codel.toml) and the packets a
/// link loses when it goes down, queued, transmitting or offered while down (link-events.toml),
/// with transmissions cut short taken back from the group's packets, bytes and wire bins.
#[test]
fn group_sums_hold_with_aqm_drops_and_a_link_going_down() {
    for (file, duration) in [("codel.toml", "10s"), ("link-events.toml", "20s")] {
        let text = std::fs::read_to_string(format!("{}/../../scenarios/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        // No group access links in these topologies: every link direction is detailed.
        let loaded = mptlab_sim::scenario::load(&text, &[("run.duration".into(), format!("\"{duration}\""))], None).unwrap();
        let mut sim = mptlab_sim::sim::Simulation::new(loaded.spec);
        sim.run_to_end();
        let s = sim.summary(&loaded.canonical);
        let mut kinds = (0, 0);
        for l in s["links"].as_array().unwrap() {
            let by_group = l["by_group"].as_object().unwrap_or_else(|| panic!("{file}: {} has no groups", l["name"]));
            for key in ["packets", "bytes", "drops", "offered_packets"] {
                let sum: u64 = by_group.values().map(|g| u(&g[key])).sum();
                assert_eq!(sum, u(&l[key]), "{file} {} {key}", l["name"]);
            }
            let wire: f64 = by_group.values().map(|g| g["throughput_mbps"]["mean"].as_f64().unwrap()).sum();
            let link = l["throughput_mbps"]["mean"].as_f64().unwrap();
            assert!((wire - link).abs() <= 1e-9 * link.max(1.0), "{file} {}: {wire} vs {link}", l["name"]);
            kinds.0 += u(&l["queue_drops"]);
            kinds.1 += u(&l["down_drops"]);
        }
        match file {
            "codel.toml" => assert!(kinds.0 > 0, "CoDel must drop"),
            _ => assert!(kinds.1 > 0, "the link must lose packets going down"),
        }
    }
}
