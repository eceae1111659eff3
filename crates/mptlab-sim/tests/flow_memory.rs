//! Issue 20: a flow's memory depends on what it has in flight and buffered, never on how long
//! it has run. Each case runs one flow over two 2 Mbit/s paths (single-path flows use the
//! first), overloaded (a CBR of 100 B writes at 8 Mbit/s, twice what both paths carry, so the
//! send buffer stays full and the writer blocks) or bulk,
//! and compares the largest `memory_footprint` (bytes in the endpoint's growable containers)
//! seen between 3 s and 5 s with the largest between 18 s and 20 s.

mod common;

use common::*;
use mptlab_sim::engine::time::MILLISECOND;
use mptlab_sim::transport::Endpoint;

const OVERLOAD: &str = r#"app = { kind = "cbr", rate = "8Mbps", write_size = "100B" }"#;

/// The largest footprint of flow 0 in [3 s, 5 s] and in [18 s, 20 s], sampled every 50 ms,
/// and the application ticks blocked on a full buffer.
fn footprints(protocol: &str, flow: &str) -> (usize, usize, u64) {
    let toml = two_path_scenario(protocol, "2Mbps", "20ms", "2Mbps", "30ms", flow, "20s");
    let (mut sim, _) = build(&toml, None);
    let (mut early, mut late) = (0, 0);
    for step in 1..=400u64 {
        let t = step * 50 * MILLISECOND;
        sim.advance(t);
        let f = sim.flows[0].endpoint.memory_footprint();
        match t / MILLISECOND {
            3000..=5000 => early = early.max(f),
            18_000..=20_000 => late = late.max(f),
            _ => {}
        }
    }
    (early, late, sim.flows[0].blocked_ticks)
}

fn assert_flat(case: &str, protocol: &str, flow: &str, overloaded: bool) {
    let (early, late, blocked) = footprints(protocol, flow);
    println!("{case}: footprint max {early} B at 3-5 s, {late} B at 18-20 s; {blocked} blocked ticks");
    assert!(early > 0, "{case}: a flow with data in flight holds some state");
    // The windows and queues are the same early and late (1-BDP drop-tail): what the flow holds
    // may differ by the sawtooth's phase, not by 4× the run length.
    assert!(late <= early + early / 2 + 1024, "{case}: {early} B at 5 s grew to {late} B at 20 s");
    assert_eq!(blocked > 0, overloaded, "{case}: the writer blocks exactly when overloaded");
}

/// A send buffer of 64 KB: one 100 B write each, 655 writes buffered at most.
fn with_buffer(table: &str) -> String {
    format!("{OVERLOAD}\n{table} = {{ send_buffer = \"64KB\" }}")
}

#[test]
fn tcp_state_stays_flat_under_overload_and_bulk() {
    assert_flat("tcp overload", "tcp", &with_buffer("tcp"), true);
    assert_flat("tcp bulk", "tcp", "app = \"bulk\"", false);
}

#[test]
fn mptcp_state_stays_flat_under_overload_and_bulk() {
    assert_flat("mptcp overload", "mptcp", &with_buffer("mptcp"), true);
    assert_flat("mptcp bulk", "mptcp", "app = \"bulk\"", false);
}

#[test]
fn quic_state_stays_flat_under_overload_and_bulk() {
    assert_flat("quic overload", "quic", &with_buffer("quic"), true);
    assert_flat("mpquic overload", "mpquic", &with_buffer("quic"), true);
    assert_flat("mpquic bulk", "mpquic", "app = \"bulk\"", false);
}

#[test]
fn a_quic_writer_blocks_on_a_full_send_buffer_and_resumes_as_acks_free_it() {
    let toml = two_path_scenario("quic", "2Mbps", "20ms", "2Mbps", "30ms", &with_buffer("quic"), "10s");
    let (sim, _) = run(&toml, None);
    let blocked = sim.flows[0].blocked_ticks;
    let delivered = sim.flows[0].metrics.bytes_delivered;
    println!("quic 64 KB buffer: {blocked} blocked ticks, {delivered} B delivered");
    // 8 Mbit/s offered on one 2 Mbit/s path: about three writes in four find the buffer full.
    let ticks = 10 * 8_000_000 / 800;
    assert!(blocked > ticks / 2, "{blocked} of {ticks} ticks blocked");
    // And the path stays full: the buffer drains as ACKs come back.
    assert!(delivered as f64 > 0.8 * 9.0 * 2e6 / 8.0 * 0.95, "{delivered} B delivered");
}

/// W5 (`scenarios/bench/w5.toml`) scaled down twentyfold: 300 MPTCP and 300 MPQUIC devices of
/// 0.1 Mbit/s CBR in 100 B writes, 1.28 times the backhaul's capacity. What all flows hold
/// together at 20 s is what they held at 5 s, within the spread of their windows.
#[test]
fn many_overloaded_cbr_flows_hold_as_much_at_twenty_seconds_as_at_five() {
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/bench/w5.toml")).unwrap();
    let toml = toml
        .replace("count = 6000", "count = 300")
        .replace("501.74Mbps", "25.087Mbps")
        .replace("436.43Mbps", "21.82Mbps")
        .replace("duration = \"60s\"", "duration = \"20s\"");
    let (mut sim, _) = build(&toml, None);
    let total = |sim: &mptlab_sim::sim::Simulation| sim.flows.iter().map(|f| f.endpoint.memory_footprint()).sum::<usize>();
    sim.advance(5000 * MILLISECOND);
    let early = total(&sim);
    sim.advance(20_000 * MILLISECOND);
    let late = total(&sim);
    let blocked: u64 = sim.flows.iter().map(|f| f.blocked_ticks).sum();
    println!("600 flows: {early} B at 5 s, {late} B at 20 s ({} B per flow); {blocked} blocked ticks", late / 600);
    assert!(late as f64 <= 1.3 * early as f64, "{early} B at 5 s grew to {late} B at 20 s");
    assert!(blocked > 0, "an overloaded backhaul blocks some writers");
}
