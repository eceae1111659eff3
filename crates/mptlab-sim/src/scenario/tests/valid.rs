//! Valid scenarios: defaults, group and count expansion, routing, BDP-based queue limits,
//! overrides and the canonical form.

use super::super::{catalogue, load};
use super::{base_ok, BASE};
use crate::spec::*;
use crate::transport::tcp::RtoFormula;
use mptlab_engine::time::{MILLISECOND, SECOND};

fn link<'a>(spec: &'a RunSpec, name: &str) -> &'a LinkSpec {
    spec.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
}

fn bytes_limit(l: &LinkSpec) -> u64 {
    match l.queue {
        QueueSpec::DropTail { limit: QueueLimit::Bytes(b) } | QueueSpec::CoDel { limit: QueueLimit::Bytes(b), .. } => b,
        ref q => panic!("expected a byte limit, got {q:?}"),
    }
}

fn route_names(spec: &RunSpec, route: &[LinkId]) -> Vec<String> {
    route.iter().map(|&e| spec.links[e as usize].name.clone()).collect()
}

#[test]
fn defaults_are_filled_in() {
    let spec = base_ok(&[]).spec;
    assert_eq!(spec.seed, 1);
    assert_eq!(spec.duration, 10 * SECOND);
    assert_eq!(spec.metrics.interval, SECOND);
    assert_eq!(spec.metrics.trace_interval, 100 * MILLISECOND);
    let bulk = &spec.flows[0];
    assert_eq!((bulk.name.as_str(), bulk.group.as_str()), ("bulk", "bulk"));
    assert!(matches!(bulk.app, AppSpec::Bulk));
    assert_eq!((bulk.start, bulk.stop), (0, None));
    let TransportSpec::Tcp(tcp) = &bulk.transport else { panic!("bulk is tcp") };
    assert_eq!(tcp.cc.name(), "newreno");
    let tcp = &tcp.config;
    assert_eq!((tcp.mss, tcp.initial_cwnd_segments, tcp.handshake, tcp.sack), (1460, 10, true, true));
    assert_eq!((tcp.min_rto, tcp.initial_rto, tcp.max_rto), (200 * MILLISECOND, SECOND, 120 * SECOND));
    assert_eq!((tcp.delayed_ack.enabled, tcp.delayed_ack.every, tcp.delayed_ack.timeout), (true, 2, 40 * MILLISECOND));
    assert_eq!((tcp.send_buffer, tcp.recv_buffer), (4_000_000, 6_000_000));
    assert_eq!((tcp.pacing, tcp.tlp), (false, true), "Linux defaults: no fq pacing, tail loss probes on");
    assert_eq!(tcp.rto, RtoFormula::Linux, "Linux's RTO formula by default");
    let cross = &spec.flows[1];
    let TransportSpec::Udp(udp) = &cross.transport else { panic!("cross is udp") };
    assert_eq!(udp.payload, 1472);
    assert!(matches!(cross.app, AppSpec::Cbr { rate_bps: 1_000_000, write_size: 1472 }));
    assert!(matches!(link(&spec, "bottleneck").loss, LossSpec::None));
    assert_eq!(spec.jain_groups, vec![("bulk".to_string(), vec![0]), ("cross".to_string(), vec![1])]);
}

#[test]
fn duplex_links_become_two_directions_with_reverse_routes() {
    let spec = base_ok(&[("links.bottleneck.reverse", "{ rate = \"10Mbps\" }")]).spec;
    let names: Vec<_> = spec.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["a", "a.rev", "b", "b.rev", "bottleneck", "bottleneck.rev"]);
    let (fwd, rev) = (link(&spec, "bottleneck"), link(&spec, "bottleneck.rev"));
    assert_eq!((fwd.from, fwd.to, rev.from, rev.to), (2, 3, 3, 2));
    assert_eq!((fwd.rate_bps, rev.rate_bps), (100_000_000, 10_000_000));
    assert_eq!(rev.delay, 10 * MILLISECOND);
    let f = &spec.flows[0];
    assert_eq!(route_names(&spec, &f.fwd_route), ["a", "bottleneck", "b"]);
    assert_eq!(route_names(&spec, &f.rev_route), ["b.rev", "bottleneck.rev", "a.rev"]);
}

#[test]
fn bdp_of_a_one_gigabit_ten_millisecond_path_is_two_and_a_half_megabytes() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench/w1.toml")).unwrap();
    let spec = load(&text, &[], None).unwrap().spec;
    assert_eq!(bytes_limit(link(&spec, "bottleneck")), 2_500_000);
    assert_eq!(bytes_limit(link(&spec, "bottleneck.rev")), 2_500_000);
}

#[test]
fn bdp_uses_the_longest_round_trip_crossing_the_direction() {
    // Bulk flows cross a (1 ms), bottleneck (10 ms), b (1 ms): RTT 24 ms on every direction.
    let spec = base_ok(&[("links.bottleneck.queue.limit", "2bdp")]).spec;
    assert_eq!(bytes_limit(link(&spec, "bottleneck")), 2 * 100_000_000 / 8 * 24 / 1000);
    assert_eq!(bytes_limit(link(&spec, "a")), 1_000_000_000 / 8 * 24 / 1000);
}

#[test]
fn bdp_of_an_unused_link_uses_twice_its_delay_and_never_drops_below_a_packet() {
    let spec = base_ok(&[
        ("links.spare", "{ between = [\"r1\", \"r2\"], rate = \"100Mbps\", delay = \"50ms\" }"),
        ("links.zero", "{ between = [\"s1\", \"r2\"], rate = \"1Gbps\", delay = \"0s\" }"),
        ("links.tiny", "{ between = [\"r1\", \"d1\"], rate = \"1Mbps\", delay = \"5ms\" }"),
        ("links.a.delay", "0s"),
    ])
    .spec;
    assert_eq!(bytes_limit(link(&spec, "spare")), 100_000_000 / 8 * 100 / 1000);
    // zero (0 ms) + b (1 ms) is the shortest route for both flows now; `tiny` carries no flow:
    // 2 x 5 ms at 1 Mbit/s = 1250 B, raised to one 1500 B packet.
    assert_eq!(bytes_limit(link(&spec, "tiny")), 1500);
    let route = route_names(&spec, &spec.flows[0].fwd_route);
    assert_eq!(route, ["zero", "b"]);
    // `a` (0 ms) carries no flow either: its BDP uses 1 ms.
    assert_eq!(bytes_limit(link(&spec, "a")), 1_000_000_000 / 8 / 1000);
}

#[test]
fn time_and_packet_limits_resolve() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/codel.toml")).unwrap();
    let spec = load(&text, &[], None).unwrap().spec;
    match link(&spec, "bottleneck").queue {
        QueueSpec::CoDel { limit, target, interval } => {
            assert!(matches!(limit, QueueLimit::Bytes(125_000)));
            assert_eq!((target, interval), (5 * MILLISECOND, 100 * MILLISECOND));
        }
        ref q => panic!("expected codel, got {q:?}"),
    }
    let spec = base_ok(&[("links.bottleneck.queue", "{ kind = \"codel\" }"), ("links.a.queue.limit", "64p")]).spec;
    assert!(matches!(link(&spec, "bottleneck").queue, QueueSpec::CoDel { limit: QueueLimit::Packets(1000), .. }));
    assert!(matches!(link(&spec, "a").queue, QueueSpec::DropTail { limit: QueueLimit::Packets(64) }));
    assert!(matches!(link(&spec, "a.rev").queue, QueueSpec::DropTail { limit: QueueLimit::Packets(64) }));
}

#[test]
fn dijkstra_picks_the_lower_delay_path() {
    // A second r1 -> r2 route through r3 with 2 + 2 ms beats the 10 ms bottleneck.
    let spec = base_ok(&[
        ("nodes.routers", "[\"r1\", \"r2\", \"r3\"]"),
        ("links.x1", "{ between = [\"r1\", \"r3\"], rate = \"10Mbps\", delay = \"2ms\" }"),
        ("links.x2", "{ between = [\"r3\", \"r2\"], rate = \"10Mbps\", delay = \"2ms\" }"),
    ])
    .spec;
    assert_eq!(route_names(&spec, &spec.flows[0].fwd_route), ["a", "x1", "x2", "b"]);
    assert_eq!(route_names(&spec, &spec.flows[0].rev_route), ["b.rev", "x2.rev", "x1.rev", "a.rev"]);
}

#[test]
fn equal_delay_ties_go_to_fewer_hops_then_lower_link_ids() {
    let detour = [
        ("nodes.routers", "[\"r1\", \"r2\", \"r3\"]"),
        ("links.x1", "{ between = [\"r1\", \"r3\"], rate = \"10Mbps\", delay = \"5ms\" }"),
        ("links.x2", "{ between = [\"r3\", \"r2\"], rate = \"10Mbps\", delay = \"5ms\" }"),
    ];
    let spec = base_ok(&detour).spec;
    assert_eq!(route_names(&spec, &spec.flows[0].fwd_route), ["a", "bottleneck", "b"]);
    // A parallel 10 ms link named `aaa` sorts first and so has the lower id.
    let spec = base_ok(&[("links.aaa", "{ between = [\"r1\", \"r2\"], rate = \"1Mbps\", delay = \"10ms\" }")]).spec;
    assert_eq!(route_names(&spec, &spec.flows[0].fwd_route), ["a", "aaa", "b"]);
    // Explicit paths take the lowest-delay link between two nodes.
    let spec = base_ok(&[
        ("links.aaa", "{ between = [\"r1\", \"r2\"], rate = \"1Mbps\", delay = \"20ms\" }"),
        ("flows.bulk.path", "[\"s1\", \"r1\", \"r2\", \"d1\"]"),
    ])
    .spec;
    assert_eq!(route_names(&spec, &spec.flows[0].fwd_route), ["a", "bottleneck", "b"]);
}

#[test]
fn explicit_path_overrides_the_shortest_path() {
    let spec = base_ok(&[
        ("nodes.routers", "[\"r1\", \"r2\", \"r3\"]"),
        ("links.x1", "{ between = [\"r1\", \"r3\"], rate = \"10Mbps\", delay = \"2ms\" }"),
        ("links.x2", "{ between = [\"r3\", \"r2\"], rate = \"10Mbps\", delay = \"2ms\" }"),
        ("flows.bulk.path", "[\"s1\", \"r1\", \"r2\", \"d1\"]"),
    ])
    .spec;
    assert_eq!(route_names(&spec, &spec.flows[0].fwd_route), ["a", "bottleneck", "b"]);
    assert_eq!(route_names(&spec, &spec.flows[1].fwd_route), ["a", "x1", "x2", "b"]);
}

#[test]
fn groups_expand_into_members_links_and_flows() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/groups.toml")).unwrap();
    let spec = load(&text, &[], None).unwrap().spec;
    assert_eq!(spec.nodes.len(), 3 + 50);
    assert_eq!(spec.nodes[3].name, "ue#0");
    assert_eq!(spec.nodes[52].name, "ue#49");
    assert!(spec.nodes[3..].iter().all(|n| n.kind == NodeKind::Host));
    let up = link(&spec, "ue#7");
    assert_eq!((spec.nodes[up.from as usize].name.as_str(), spec.nodes[up.to as usize].name.as_str()), ("ue#7", "gnb"));
    assert!(matches!(up.queue, QueueSpec::DropTail { limit: QueueLimit::Packets(100) }));
    assert_eq!(link(&spec, "backhaul.rev").rate_bps, 50_000_000);
    // Entries in name order: sensors (one flow per member), then uploads (count 5 from ue#0).
    assert_eq!(spec.flows.len(), 55);
    assert_eq!(spec.flows[0].name, "sensors#0");
    assert_eq!(spec.nodes[spec.flows[49].src as usize].name, "ue#49");
    assert_eq!(spec.flows[50].name, "uploads#0");
    assert_eq!(spec.flows[54].name, "uploads#4");
    assert_eq!(route_names(&spec, &spec.flows[49].fwd_route), ["ue#49", "backhaul", "server"]);
    assert!(matches!(spec.flows[0].app, AppSpec::Poisson { rate_bps: 100_000, message_size: 172, count: None }));
    assert!(matches!(spec.flows[50].app, AppSpec::File { size: 2_000_000 }));
    assert_eq!(spec.jain_groups.len(), 3);
    assert_eq!(spec.jain_groups[2].0, "everything");
    assert_eq!(spec.jain_groups[2].1, (0..55).collect::<Vec<FlowId>>());
}

#[test]
fn two_groups_pair_member_by_member() {
    let spec = base_ok(&[
        ("groups.cl", "{ count = 3, link = { to = \"r1\", rate = \"1Gbps\", delay = \"1ms\" } }"),
        ("groups.sv", "{ count = 3, link = { to = \"r2\", rate = \"1Gbps\", delay = \"1ms\" } }"),
        ("flows.bulk.from", "cl"),
        ("flows.bulk.to", "sv"),
        ("flows.bulk.count", "2"),
    ])
    .spec;
    let pairs: Vec<_> = spec.flows[..6]
        .iter()
        .map(|f| (f.name.as_str(), spec.nodes[f.src as usize].name.as_str(), spec.nodes[f.dst as usize].name.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("bulk#0", "cl#0", "sv#0"),
            ("bulk#1", "cl#0", "sv#0"),
            ("bulk#2", "cl#1", "sv#1"),
            ("bulk#3", "cl#1", "sv#1"),
            ("bulk#4", "cl#2", "sv#2"),
            ("bulk#5", "cl#2", "sv#2"),
        ]
    );
}

#[test]
fn thousands_of_group_flows_route_quickly() {
    let spec = base_ok(&[
        ("groups.ue", "{ count = 12000, link = { to = \"r1\", rate = \"1Mbps\", delay = \"1ms\" } }"),
        ("flows.bulk.from", "ue"),
    ])
    .spec;
    assert_eq!(spec.flows.len(), 12_001);
    assert_eq!(route_names(&spec, &spec.flows[11_999].fwd_route), ["ue#11999", "bottleneck", "b"]);
}

#[test]
fn overrides_change_values() {
    let spec = base_ok(&[
        ("links.bottleneck.rate", "50Mbps"),
        ("flows.bulk.count", "3"),
        ("flows.bulk.cc", "NewReno"),
        ("run.duration", "\"5s\""),
        ("run.seed", "42"),
        ("flows.cross.app.rate", "2.5Mbps"),
        ("flows.bulk.tcp.tlp", "false"),
        ("flows.bulk.tcp.rto", "\"rfc6298\""),
    ])
    .spec;
    assert_eq!(link(&spec, "bottleneck").rate_bps, 50_000_000);
    assert_eq!(spec.duration, 5 * SECOND);
    assert_eq!(spec.seed, 42);
    let names: Vec<_> = spec.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["bulk#0", "bulk#1", "bulk#2", "cross"]);
    let TransportSpec::Tcp(tcp) = &spec.flows[0].transport else { panic!() };
    assert_eq!(tcp.cc.name(), "newreno");
    assert!(!tcp.config.tlp);
    assert_eq!(tcp.config.rto, RtoFormula::Rfc6298);
    assert!(matches!(spec.flows[3].app, AppSpec::Cbr { rate_bps: 2_500_000, .. }));
    assert_eq!(spec.jain_groups[0], ("bulk".to_string(), vec![0, 1, 2]));
}

#[test]
fn seed_argument_overrides_the_file() {
    let l = load(BASE, &[("run.seed".into(), "3".into())], Some(99)).unwrap();
    assert_eq!(l.spec.seed, 99);
    assert_eq!(l.canonical["run"]["seed"], 99);
}

#[test]
fn canonical_is_identical_across_loads_and_spellings() {
    let a = base_ok(&[]).canonical;
    let b = base_ok(&[]).canonical;
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let c = base_ok(&[
        ("links.a.rate", "1000Mbps"),
        ("links.a.delay", "1000us"),
        ("flows.bulk.cc", "NEWRENO"),
        ("flows.bulk.tcp.mss", "1.46KB"),
        ("links.bottleneck.queue", "{ limit = \"1.0bdp\" }"),
    ])
    .canonical;
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&c).unwrap());
}

#[test]
fn canonical_fills_every_default_in_one_spelling() {
    let c = base_ok(&[]).canonical;
    assert_eq!(c["run"]["duration"], "10s");
    assert_eq!(c["metrics"]["interval"], "1s");
    assert_eq!(c["links"]["bottleneck"]["rate"], "100Mbps");
    assert_eq!(c["links"]["bottleneck"]["queue"]["kind"], "droptail");
    assert_eq!(c["links"]["bottleneck"]["queue"]["limit"], "1bdp");
    assert_eq!(c["links"]["bottleneck"]["loss"]["model"], "none");
    assert_eq!(c["links"]["bottleneck"]["reverse"]["rate"], "100Mbps");
    assert_eq!(c["flows"]["bulk"]["protocol"], "tcp");
    assert_eq!(c["flows"]["bulk"]["cc"], "newreno");
    assert_eq!(c["flows"]["bulk"]["app"]["kind"], "bulk");
    assert_eq!(c["flows"]["bulk"]["tcp"]["mss"], "1460B");
    assert_eq!(c["flows"]["bulk"]["tcp"]["delayed_ack"]["timeout"], "40ms");
    assert_eq!(c["flows"]["cross"]["packet_size"], "1500B");
    assert!(c["flows"]["cross"].get("cc").is_none());
    assert!(c["flows"]["bulk"].get("stop").is_none());
    let keys: Vec<_> = c.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["flows", "groups", "links", "metrics", "nodes", "run"]);
}

#[test]
fn loss_models_resolve() {
    let spec = base_ok(&[
        ("links.bottleneck.loss", "{ model = \"bernoulli\", p = 0.01 }"),
        ("links.bottleneck.reverse.loss", "{ model = \"gilbert_elliott\", p_good_to_bad = 0.01, p_bad_to_good = 0.5 }"),
    ])
    .spec;
    assert!(matches!(link(&spec, "bottleneck").loss, LossSpec::Bernoulli { p } if p == 0.01));
    assert!(matches!(
        link(&spec, "bottleneck.rev").loss,
        LossSpec::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad }
            if (p_good_to_bad, p_bad_to_good, loss_good, loss_bad) == (0.01, 0.5, 0.0, 1.0)
    ));
}

#[test]
fn catalogue_lists_algorithms_defaults_and_units() {
    let c = catalogue();
    assert_eq!(c["congestion_controllers"][1]["name"], "newreno");
    assert_eq!(c["queues"]["codel"]["target"], "5ms");
    assert_eq!(c["units"]["rate"]["Mbps"], 1_000_000);
    assert_eq!(c["apps"]["kinds"]["cbr"][0], "rate");
    assert_eq!(c["protocols"]["tcp"]["options"]["mss"], "1460B");
}

// ----- link events and capacity models ------------------------------------------------------

const EVENTS: &str = r#"[
    { at = "7s", link = "bottleneck", action = "up" },
    { at = "5s", link = "bottleneck", action = "down" },
    { at = "5s", link = "a.rev", action = "rate", rate = "2.5Mbps" },
    { at = "5s", link = "b.fwd", action = "rate", rate = "1Gbps" },
    { at = "30s", link = "a", action = "down" },
]"#;

#[test]
fn events_resolve_to_directions_in_time_then_file_order() {
    let spec = base_ok(&[("events", EVENTS)]).spec;
    let got: Vec<(u64, String, LinkAction)> =
        spec.events.iter().map(|e| (e.at / SECOND, spec.links[e.link as usize].name.clone(), e.action)).collect();
    let want = [
        (5, "bottleneck", LinkAction::Down),
        (5, "bottleneck.rev", LinkAction::Down),
        (5, "a.rev", LinkAction::Rate { rate_bps: 2_500_000 }),
        (5, "b", LinkAction::Rate { rate_bps: 1_000_000_000 }),
        (7, "bottleneck", LinkAction::Up),
        (7, "bottleneck.rev", LinkAction::Up),
    ];
    let want: Vec<_> = want.iter().map(|(t, n, a)| (*t, n.to_string(), *a)).collect();
    // The event at 30 s, after the end of the 10 s run, is validated and left out.
    assert_eq!(got, want);
    assert!(base_ok(&[]).spec.events.is_empty());
}

#[test]
fn events_name_group_access_links_by_member() {
    let text = format!(
        "{BASE}\n[groups.ue]\ncount = 2\nlink = {{ to = \"r1\", rate = \"10Mbps\", delay = \"1ms\" }}\n\n\
         [[events]]\nat = \"1s\"\nlink = \"ue#1.rev\"\naction = \"down\"\n"
    );
    let spec = load(&text, &[], None).unwrap().spec;
    assert_eq!(spec.events.len(), 1);
    assert_eq!(spec.links[spec.events[0].link as usize].name, "ue#1.rev");
}

#[test]
fn lte_capacity_defaults_are_filled_in_and_inherited_by_the_reverse_direction() {
    let l = base_ok(&[("links.bottleneck.capacity", r#"{ model = "lte", mean = "10Mbps" }"#)]);
    let want = CapacitySpec::Lte {
        mean_bps: 10_000_000,
        cv: 0.3,
        correlation: 0.9,
        min_bps: 1_000_000,
        max_bps: 30_000_000,
        step: 100 * MILLISECOND,
    };
    assert_eq!(link(&l.spec, "bottleneck").capacity, Some(want.clone()));
    assert_eq!(link(&l.spec, "bottleneck.rev").capacity, Some(want));
    assert_eq!(link(&l.spec, "a").capacity, None);
    let c = &l.canonical["links"]["bottleneck"]["capacity"];
    assert_eq!(c["model"], "lte");
    assert_eq!(c["mean"], "10Mbps");
    assert_eq!(c["min"], "1Mbps");
    assert_eq!(c["max"], "30Mbps");
    assert_eq!(c["step"], "100ms");
    assert_eq!(c["cv"], 0.3);
    assert_eq!(l.canonical["links"]["bottleneck"]["reverse"]["capacity"], *c);
    // No model: no key, so scenarios without one keep their canonical form.
    assert!(l.canonical["links"]["a"].get("capacity").is_none());
    assert!(l.canonical.get("events").is_none());
}

#[test]
fn capacity_none_on_the_reverse_direction_is_kept_only_where_it_matters() {
    let l = base_ok(&[
        (
            "links.bottleneck.capacity",
            r#"{ model = "trace", times = ["0s", "1s"], rates = ["5Mbps", "7Mbps"], repeat = true, period = "2s" }"#,
        ),
        ("links.bottleneck.reverse.capacity", "none"),
        ("links.a.capacity", "none"),
        ("links.b.reverse.capacity", r#"{ model = "none" }"#),
    ]);
    assert_eq!(
        link(&l.spec, "bottleneck").capacity,
        Some(CapacitySpec::Trace { times: vec![0, SECOND], rates_bps: vec![5_000_000, 7_000_000], period: Some(2 * SECOND) })
    );
    assert_eq!(link(&l.spec, "bottleneck.rev").capacity, None);
    assert_eq!(l.canonical["links"]["bottleneck"]["reverse"]["capacity"]["model"], "none");
    // `"none"` without a forward model is the same as no key.
    assert_eq!(
        serde_json::to_string(&l.canonical["links"]["a"]).unwrap(),
        serde_json::to_string(&base_ok(&[]).canonical["links"]["a"]).unwrap()
    );
    assert!(l.canonical["links"]["b"]["reverse"].get("capacity").is_none());
}

/// The canonical form, written back as TOML, loads as the same scenario.
#[test]
fn canonical_form_with_events_and_capacity_reads_back_the_same() {
    let l = base_ok(&[
        ("events", EVENTS),
        ("links.bottleneck.capacity", r#"{ model = "lte", mean = "10Mbps", cv = 0.5, step = "50ms" }"#),
        ("links.bottleneck.reverse.capacity", "none"),
        ("links.a.capacity", r#"{ model = "trace", times = ["1s"], rates = ["3Mbps"] }"#),
        ("links.a.reverse.capacity", "none"),
    ]);
    let text = toml::to_string(&l.canonical).expect("the canonical form is TOML-serialisable");
    let again = load(&text, &[], None).unwrap_or_else(|e| panic!("{e}\n---\n{text}"));
    assert_eq!(serde_json::to_string(&l.canonical).unwrap(), serde_json::to_string(&again.canonical).unwrap());
    assert_eq!(l.spec.events, again.spec.events);
}

#[test]
fn mpquic_paths_take_their_preferences_from_the_quic_table() {
    let prefs = |overrides: &[(&str, &str)]| {
        let spec = base_ok(overrides).spec;
        let TransportSpec::Quic(q) = &spec.flows[0].transport else { panic!("an mpquic flow") };
        q.paths.iter().map(|p| (p.priority, p.backup)).collect::<Vec<_>>()
    };
    let mp = ("flows.bulk.protocol", "\"mpquic\"");
    assert_eq!(prefs(&[mp]), [(0, false)], "default: the path index, no backup");
    assert_eq!(prefs(&[mp, ("flows.bulk.quic", "{ priorities = [3], backup = [true] }")]), [(3, true)]);
}

#[test]
fn detail_auto_skips_access_links_and_entries_above_the_flow_limit() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/groups.toml")).unwrap();
    let spec = load(&text, &[], None).unwrap().spec;
    let m = &spec.metrics;
    let detailed: Vec<&str> = spec.links.iter().enumerate().filter(|(i, _)| m.link_detailed(*i)).map(|(_, l)| l.name.as_str()).collect();
    assert_eq!(detailed, ["backhaul", "backhaul.rev", "server", "server.rev"]);
    // 50 sensors and 5 uploads: both entries are below the limit of 100 flows.
    assert!((0..55).all(|f| m.flow_detailed(f)));
    assert!((m.flow_jitter, m.link_jitter) == (true, false));
    let big = load(&text, &[("groups.ue.count".into(), "101".into())], None).unwrap().spec;
    let sensors = big.flows.iter().filter(|f| f.group == "sensors").count();
    assert_eq!(sensors, 101);
    assert!((0..sensors).all(|f| !big.metrics.flow_detailed(f)));
    assert!((sensors..sensors + 5).all(|f| big.metrics.flow_detailed(f)));
}

#[test]
fn detail_lists_name_entries_links_and_groups() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/groups.toml")).unwrap();
    let sets = [
        ("metrics.detail_flows".to_string(), "[\"uploads\"]".to_string()),
        ("metrics.detail_links".to_string(), "[\"ue\", \"server\"]".to_string()),
        ("metrics.jitter".to_string(), "\"all\"".to_string()),
    ];
    let spec = load(&text, &sets, None).unwrap().spec;
    let m = &spec.metrics;
    assert!((0..50).all(|f| !m.flow_detailed(f)) && (50..55).all(|f| m.flow_detailed(f)));
    let detailed = spec.links.iter().enumerate().filter(|(i, _)| m.link_detailed(*i)).count();
    assert_eq!(detailed, 2 + 100, "server's two directions and every access link of group ue");
    assert!(!m.link_detailed(0), "backhaul is not named");
    assert!(m.flow_jitter && m.link_jitter);
    let none = load(&text, &[("metrics.detail_flows".into(), "\"none\"".into()), ("metrics.detail_links".into(), "\"all\"".into())], None)
        .unwrap()
        .spec;
    assert!((0..55).all(|f| !none.metrics.flow_detailed(f)) && (0..spec.links.len()).all(|l| none.metrics.link_detailed(l)));
}
