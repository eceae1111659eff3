//! Scenario link events (down, up, rate change) and capacity models in whole runs.
//!
//! - a rate change: a bulk TCP flow's goodput follows the new rate;
//! - down/up: nothing crosses the link while it is down, every packet inside it when it goes
//!   down is lost at once, TCP recovers after it comes back, and packets are conserved at every
//!   step (engine: created = delivered + dropped + live; per link: offered = queue drops +
//!   channel drops + down drops + delivered + inside), for drop-tail and CoDel queues, with
//!   channel loss too;
//! - capacity models: a trace sets the rate exactly (time-average rate, goodput), an LTE model
//!   keeps the flow's goodput below its capacity and near it, and runs with either are
//!   deterministic.

mod common;

use common::*;
use mptlab_sim::engine::time::{MILLISECOND, SECOND};
use mptlab_sim::engine::Time;
use mptlab_sim::scenario;
use mptlab_sim::sim::Simulation;

/// One bulk NewReno flow src → dst over link `path` (1-BDP drop-tail queue unless `queue`
/// says otherwise), `secs` long, with extra top-level TOML (`[[events]]`) and `--set`
/// overrides (capacity models).
fn scenario_text(secs: u64, rate: &str, queue: &str, extra: &str) -> String {
    format!(
        "[run]\nduration = \"{secs}s\"\n\n[nodes]\nhosts = [\"src\", \"dst\"]\n\n\
         [links.path]\nbetween = [\"src\", \"dst\"]\nrate = \"{rate}\"\ndelay = \"20ms\"\nqueue = {queue}\n\n\
         [flows.bulk]\nfrom = \"src\"\nto = \"dst\"\ncc = \"newreno\"\napp = \"bulk\"\n\
         tcp = {{ {BIG_BUFFERS} }}\n\n{extra}"
    )
}

const DROPTAIL: &str = r#"{ kind = "droptail", limit = "1bdp" }"#;

fn build_with(text: &str, sets: &[(&str, &str)], seed: Option<u64>) -> (Simulation, serde_json::Value) {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let l = scenario::load(text, &sets, seed).unwrap_or_else(|e| panic!("invalid test scenario: {e}\n---\n{text}"));
    (Simulation::new(l.spec), l.canonical)
}

fn run_with(text: &str, sets: &[(&str, &str)], seed: Option<u64>) -> (Simulation, serde_json::Value) {
    let (mut sim, canonical) = build_with(text, sets, seed);
    sim.run_to_end();
    let summary = sim.summary(&canonical);
    (sim, summary)
}

fn link_summary<'a>(summary: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    summary["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap()
}

/// Packet conservation, engine-wide and per link.
#[track_caller]
fn assert_conserved(sim: &Simulation) {
    let c = sim.counts;
    let live = sim.packets_live() as u64;
    assert_eq!(c.created, c.delivered + c.dropped + live, "engine conservation at {}", sim.now());
    let inside: usize = sim.hops.iter().map(|l| l.packets_inside()).sum();
    assert_eq!(inside as u64, live, "live packets not all inside links at {}", sim.now());
    for (i, l) in sim.hops.iter().enumerate() {
        let k = l.counters();
        assert_eq!(
            k.offered,
            k.queue_drops + k.channel_drops + k.down_drops + k.delivered + l.packets_inside() as u64,
            "link {} conservation at {}",
            sim.spec.links[i].name,
            sim.now()
        );
    }
}

#[test]
fn goodput_follows_a_rate_change() {
    // 10 Mbit/s, then 5 Mbit/s from 20 s on in both directions (`path`).
    let events = "[[events]]\nat = \"20s\"\nlink = \"path\"\naction = \"rate\"\nrate = \"5Mbps\"\n";
    let (sim, summary) = run_with(&scenario_text(40, "10Mbps", DROPTAIL, events), &[], None);
    let f = flow_index(&sim, "bulk");
    // Goodput is payload: at most 1460/1500 of the link rate.
    let before = goodput_bps(&sim, f, 5, 20);
    let after = goodput_bps(&sim, f, 25, 40);
    assert!((before / 10e6 - 1.0).abs() < 0.1, "goodput before the change {before}");
    assert!((after / 5e6 - 1.0).abs() < 0.1, "goodput after the change {after}");
    // (Plus what the queue, sized for 10 Mbit/s, drains over the interval.)
    assert!(after <= 5e6 * 1460.0 / 1500.0 * 1.01, "goodput above the new rate: {after}");
    // Time-average capacity: 20 s at 10 and 20 s at 5.
    let mean = link_summary(&summary, "path")["mean_rate_mbps"].as_f64().unwrap();
    assert!((mean - 7.5).abs() < 1e-9, "{mean}");
    assert_eq!(link_summary(&summary, "path")["rate_mbps"], 10.0);
}

#[test]
fn a_forward_only_rate_change_leaves_the_reverse_direction_alone() {
    let events = "[[events]]\nat = \"1s\"\nlink = \"path.fwd\"\naction = \"rate\"\nrate = \"2Mbps\"\n";
    let (sim, summary) = run_with(&scenario_text(4, "10Mbps", DROPTAIL, events), &[], None);
    assert_eq!(sim.hops[link_index(&sim, "path")].rate_bps(), 2_000_000);
    assert_eq!(sim.hops[link_index(&sim, "path.rev")].rate_bps(), 10_000_000);
    assert!(link_summary(&summary, "path.rev")["mean_rate_mbps"].is_null());
}

/// Down at 5 s, up at 7 s, stepping 10 ms at a time and checking conservation at every step.
fn down_up(queue: &str, sets: &[(&str, &str)]) {
    let events = "[[events]]\nat = \"5s\"\nlink = \"path\"\naction = \"down\"\n\n\
                  [[events]]\nat = \"7s\"\nlink = \"path\"\naction = \"up\"\n";
    let text = scenario_text(20, "10Mbps", queue, events);
    let (mut sim, canonical) = build_with(&text, sets, None);
    let (fwd, rev) = (link_index(&sim, "path"), link_index(&sim, "path.rev"));
    let mut t: Time = 0;
    let mut inside_before_down = 0;
    let mut at_down = (0, 0);
    while !sim.is_done() {
        t += 10 * MILLISECOND;
        if t == 5 * SECOND {
            // Just before the event: the link is busy.
            sim.advance(t - 1);
            inside_before_down = sim.hops[fwd].packets_inside() + sim.hops[rev].packets_inside();
            assert!(inside_before_down > 0);
        }
        sim.advance(t);
        assert_conserved(&sim);
        if t == 5 * SECOND {
            // Everything inside was lost at once; nothing has been delivered since.
            assert_eq!(sim.hops[fwd].packets_inside() + sim.hops[rev].packets_inside(), 0);
            let drops = sim.hops[fwd].counters().down_drops + sim.hops[rev].counters().down_drops;
            assert!(drops >= inside_before_down as u64, "{drops} < {inside_before_down}");
            at_down = (sim.hops[fwd].counters().delivered, sim.hops[rev].counters().delivered);
        }
        if t > 5 * SECOND && t < 7 * SECOND {
            assert!(!sim.hops[fwd].is_up() && !sim.hops[rev].is_up());
            assert_eq!((sim.hops[fwd].counters().delivered, sim.hops[rev].counters().delivered), at_down);
            assert_eq!(sim.hops[fwd].packets_inside(), 0);
        }
    }
    let f = flow_index(&sim, "bulk");
    let bins = sim.flows[f].metrics.goodput.bins().expect("a detailed flow keeps its goodput series").bins();
    assert_eq!((bins[5], bins[6]), (0, 0), "goodput while the link was down");
    assert!(bins[4] > 0);
    // The retransmission timer backs off while the link is down (RTOs at about 5.2, 5.6, 6.4
    // and 8 s); the flow is back at full rate well before the end.
    let late = goodput_bps(&sim, f, 12, 20);
    assert!(late > 0.8 * 10e6 * 1460.0 / 1500.0, "goodput after recovery {late}");
    let summary = sim.summary(&canonical);
    let l = link_summary(&summary, "path");
    let down_drops = l["down_drops"].as_u64().unwrap();
    assert!(down_drops > 0);
    assert_eq!(l["drops"].as_u64().unwrap(), l["queue_drops"].as_u64().unwrap() + l["channel_drops"].as_u64().unwrap() + down_drops);
    // Down 2 s out of 20: the time-average capacity is 9 Mbit/s.
    assert!((l["mean_rate_mbps"].as_f64().unwrap() - 9.0).abs() < 1e-9);
    // No phantom wire bytes while down: the link's bins for seconds 5 and 6 are empty.
    let w = sim.hops[fwd].wire().bins().expect("a detailed link keeps its series");
    assert_eq!(w[0].bins()[5] + w[1].bins()[5] + w[0].bins()[6] + w[1].bins()[6], 0);
}

#[test]
fn nothing_crosses_a_down_link_and_tcp_recovers_after_it_comes_up() {
    down_up(DROPTAIL, &[]);
}

#[test]
fn down_up_on_a_codel_link() {
    down_up(r#"{ kind = "codel", limit = "1000p" }"#, &[]);
}

#[test]
fn down_up_with_channel_loss_keeps_the_counts() {
    down_up(DROPTAIL, &[("links.path.loss", r#"{ model = "bernoulli", p = 0.001 }"#)]);
}

#[test]
fn events_at_the_same_time_apply_in_file_order() {
    // Down then up at the same instant: the link ends up, after losing what was inside it.
    let events = "[[events]]\nat = \"2s\"\nlink = \"path\"\naction = \"down\"\n\n\
                  [[events]]\nat = \"2s\"\nlink = \"path\"\naction = \"up\"\n";
    let (mut sim, _) = build_with(&scenario_text(4, "10Mbps", DROPTAIL, events), &[], None);
    sim.advance(2 * SECOND);
    let l = &sim.hops[link_index(&sim, "path")];
    assert!(l.is_up());
    assert!(l.counters().down_drops > 0);
    assert_conserved(&sim);
    sim.run_to_end();
    assert_conserved(&sim);
    // Up then down: the link ends down.
    let events = "[[events]]\nat = \"2s\"\nlink = \"path\"\naction = \"up\"\n\n\
                  [[events]]\nat = \"2s\"\nlink = \"path\"\naction = \"down\"\n";
    let (mut sim, _) = build_with(&scenario_text(4, "10Mbps", DROPTAIL, events), &[], None);
    sim.advance(2 * SECOND);
    assert!(!sim.hops[link_index(&sim, "path")].is_up());
}

#[test]
fn a_trace_capacity_model_sets_the_rate() {
    // 10 Mbit/s for 10 s, then 2 Mbit/s, then 10 again from 20 s; the reverse (ACK) direction
    // keeps its fixed rate.
    let sets = [
        ("links.path.capacity", r#"{ model = "trace", times = ["0s", "10s", "20s"], rates = ["10Mbps", "2Mbps", "10Mbps"] }"#),
        ("links.path.reverse.capacity", "none"),
    ];
    let (sim, summary) = run_with(&scenario_text(30, "50Mbps", DROPTAIL, ""), &sets, None);
    let f = flow_index(&sim, "bulk");
    let mid = goodput_bps(&sim, f, 13, 20);
    assert!((mid / 2e6 - 1.0).abs() < 0.1, "goodput at 2 Mbit/s: {mid}");
    let late = goodput_bps(&sim, f, 24, 30);
    assert!((late / 10e6 - 1.0).abs() < 0.1, "goodput back at 10 Mbit/s: {late}");
    let mean = link_summary(&summary, "path")["mean_rate_mbps"].as_f64().unwrap();
    assert!((mean - 22.0 / 3.0).abs() < 1e-9, "{mean}");
    assert!(link_summary(&summary, "path.rev")["mean_rate_mbps"].is_null());
}

#[test]
fn an_lte_capacity_model_bounds_goodput_and_is_deterministic() {
    let sets = [("links.path.capacity", r#"{ model = "lte", mean = "10Mbps" }"#)];
    let text = scenario_text(60, "10Mbps", DROPTAIL, "");
    let (sim, summary) = run_with(&text, &sets, Some(3));
    let l = link_summary(&summary, "path");
    let mean_rate = l["mean_rate_mbps"].as_f64().unwrap();
    // 600 steps with a correlation time of about 1 s: the sample mean is within a few sd.
    assert!((mean_rate / 10.0 - 1.0).abs() < 0.2, "time-average rate {mean_rate}");
    let f = flow_index(&sim, "bulk");
    let goodput = goodput_bps(&sim, f, 5, 60) / 1e6;
    assert!(goodput < mean_rate * 1460.0 / 1500.0, "goodput {goodput} above the capacity {mean_rate}");
    assert!(goodput > 0.6 * mean_rate, "goodput {goodput} far below the capacity {mean_rate}");
    assert_conserved(&sim);
    // Same seed: the same run, to the byte; another seed: another capacity sequence.
    let (_, again) = run_with(&text, &sets, Some(3));
    assert_eq!(serde_json::to_string(&summary).unwrap(), serde_json::to_string(&again).unwrap());
    let (_, other) = run_with(&text, &sets, Some(4));
    assert_ne!(link_summary(&other, "path")["mean_rate_mbps"], l["mean_rate_mbps"]);
}

#[test]
fn a_capacity_stream_is_independent_of_other_components() {
    // Adding a lossy link elsewhere (its own loss stream) leaves the capacity sequence alone.
    let sets = [("links.path.capacity", r#"{ model = "lte", mean = "10Mbps", cv = 0.5 }"#)];
    let base = scenario_text(20, "10Mbps", DROPTAIL, "");
    let extra = base.replace(
        "[flows.bulk]",
        "[links.other]\nbetween = [\"src\", \"dst\"]\nrate = \"1Mbps\"\ndelay = \"50ms\"\n\
         loss = { model = \"bernoulli\", p = 0.1 }\n\n[flows.bulk]",
    );
    let (_, a) = run_with(&base, &sets, None);
    let (_, b) = run_with(&extra, &sets, None);
    assert_eq!(link_summary(&a, "path")["mean_rate_mbps"], link_summary(&b, "path")["mean_rate_mbps"]);
}

// ----- random events: conservation under any sequence of downs, ups and rate changes --------

mod random {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::Config;
    use std::fmt::Write;

    #[derive(Clone, Debug)]
    struct Ev {
        at_ms: u64,
        link: u8,
        /// 0 = both directions, 1 = .fwd, 2 = .rev
        dir: u8,
        /// 0 down, 1 up, 2 rate
        action: u8,
        rate_kbps: u64,
    }

    #[derive(Clone, Debug)]
    struct Case {
        codel: [bool; 2],
        limit_pkts: [u32; 2],
        loss_permille: u32,
        /// 0 none, 1 lte, 2 repeating trace (on link 1, forward direction)
        capacity: u8,
        events: Vec<Ev>,
        duration_ms: u64,
        steps_ms: Vec<u64>,
        seed: u64,
    }

    fn case() -> impl Strategy<Value = Case> {
        let ev = (0u64..4000, 0u8..2, 0u8..3, 0u8..3, 100u64..50_000).prop_map(|(at_ms, link, dir, action, rate_kbps)| Ev {
            at_ms,
            link,
            dir,
            action,
            rate_kbps,
        });
        (
            [any::<bool>(), any::<bool>()],
            [1u32..200, 1u32..200],
            0u32..30,
            0u8..3,
            proptest::collection::vec(ev, 0..10),
            500u64..4000,
            proptest::collection::vec(1u64..400, 1..40),
            any::<u64>(),
        )
            .prop_map(|(codel, limit_pkts, loss_permille, capacity, events, duration_ms, steps_ms, seed)| Case {
                codel,
                limit_pkts,
                loss_permille,
                capacity,
                events,
                duration_ms,
                steps_ms,
                seed,
            })
    }

    impl Case {
        fn toml(&self) -> String {
            let mut t = format!(
                "[run]\nduration = \"{}ms\"\nseed = {}\n\n[nodes]\nhosts = [\"src\", \"dst\"]\nrouters = [\"r\"]\n\n",
                self.duration_ms,
                self.seed % (1 << 40)
            );
            for (i, (a, b)) in [("src", "r"), ("r", "dst")].iter().enumerate() {
                let kind = if self.codel[i] { "codel" } else { "droptail" };
                writeln!(
                    t,
                    "[links.l{i}]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"{}Mbps\"\ndelay = \"5ms\"\n\
                     queue = {{ kind = \"{kind}\", limit = \"{}p\" }}\n\
                     loss = {{ model = \"bernoulli\", p = 0.{:03} }}",
                    20 - 10 * i,
                    self.limit_pkts[i],
                    self.loss_permille
                )
                .unwrap();
                if i == 1 {
                    match self.capacity {
                        1 => t.push_str("capacity = { model = \"lte\", mean = \"8Mbps\", cv = 0.8, step = \"7ms\" }\n"),
                        2 => t.push_str(
                            "capacity = { model = \"trace\", times = [\"0s\", \"90ms\"], rates = [\"1Mbps\", \"30Mbps\"], repeat = true, period = \"200ms\" }\n",
                        ),
                        _ => {}
                    }
                    if self.capacity != 0 {
                        t.push_str("reverse = { capacity = \"none\" }\n");
                    }
                }
                t.push('\n');
            }
            t.push_str(
                "[flows.bulk]\nfrom = \"src\"\nto = \"dst\"\napp = \"bulk\"\n\n\
                 [flows.cbr]\nfrom = \"dst\"\nto = \"src\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"2Mbps\" }\n\n",
            );
            for e in &self.events {
                let action = ["down", "up", "rate"][e.action as usize];
                // Rate events on the forward direction of a link with a capacity model are
                // invalid: send them to the reverse direction.
                let dir = if e.action == 2 && e.link == 1 && self.capacity != 0 { 2 } else { e.dir };
                let suffix = ["", ".fwd", ".rev"][dir as usize];
                write!(t, "[[events]]\nat = \"{}ms\"\nlink = \"l{}{suffix}\"\naction = \"{action}\"\n", e.at_ms, e.link).unwrap();
                if e.action == 2 {
                    writeln!(t, "rate = \"{}kbps\"", e.rate_kbps).unwrap();
                }
                t.push('\n');
            }
            t
        }
    }

    fn check(sim: &Simulation, toml: &str) -> Result<(), TestCaseError> {
        let c = sim.counts;
        let live = sim.packets_live() as u64;
        prop_assert_eq!(c.created, c.delivered + c.dropped + live, "engine counts\n{}", toml);
        let inside: usize = sim.hops.iter().map(|l| l.packets_inside()).sum();
        prop_assert_eq!(inside as u64, live, "live packets outside links\n{}", toml);
        for l in &sim.hops {
            let k = l.counters();
            prop_assert_eq!(
                k.offered,
                k.queue_drops + k.channel_drops + k.down_drops + k.delivered + l.packets_inside() as u64,
                "link counts\n{}",
                toml
            );
            if !l.is_up() {
                prop_assert_eq!(l.packets_inside(), 0, "packets inside a down link\n{}", toml);
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(Config::with_cases(128))]

        #[test]
        fn random_link_events_keep_packets_conserved(c in case()) {
            let toml = c.toml();
            let (mut sim, canonical) = build_with(&toml, &[], None);
            let mut t: Time = 0;
            for (i, s) in c.steps_ms.iter().cycle().enumerate() {
                if sim.is_done() || i > 10_000 {
                    break;
                }
                t += s * MILLISECOND;
                sim.advance(t);
                prop_assert_eq!(sim.now(), t.min(sim.duration()));
                check(&sim, &toml)?;
            }
            sim.run_to_end();
            check(&sim, &toml)?;
            // The application never got more than the sender sent.
            let f = flow_index(&sim, "bulk");
            let (snd, _) = tcp(&sim, f);
            prop_assert!(sim.flows[f].metrics.bytes_delivered <= snd.stats.bytes_sent);
            let _ = sim.summary(&canonical);
        }
    }
}
