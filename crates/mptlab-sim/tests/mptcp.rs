//! MPTCP whole-run tests: aggregation, transfer times, reliability under loss and path failure.

mod common;

use common::*;

fn two_paths(r1: &str, d1: &str, r2: &str, d2: &str, flow: &str, duration: &str) -> String {
    two_path_scenario("mptcp", r1, d1, r2, d2, flow, duration)
}

#[test]
fn uncoupled_cubic_aggregates_two_equal_disjoint_paths() {
    let toml = two_paths("10Mbps", "10ms", "10Mbps", "10ms", "cc = \"cubic\"\napp = \"bulk\"", "30s");
    let (sim, summary) = run(&toml, None);
    let g = goodput_bps(&sim, 0, 5, 30);
    println!("goodput {:.2} Mbit/s\n{}", g / 1e6, serde_json::to_string_pretty(&summary["flows"][0]).unwrap());
    // Payload share of a 1500 B packet: 1432 B.
    assert!(g >= 0.9 * 20e6 * 1432.0 / 1500.0, "goodput {g}");
}

/// The flow's MPTCP sender and receiver.
fn mptcp(
    sim: &mptlab_sim::sim::Simulation,
    f: usize,
) -> (&mptlab_sim::transport::mptcp::MptcpSender, &mptlab_sim::transport::mptcp::MptcpReceiver) {
    match &sim.flows[f].endpoint {
        mptlab_sim::transport::AnyEndpoint::Mptcp(mptlab_sim::transport::mptcp::MptcpConn { snd, rcv, .. }) => (snd, rcv),
        _ => panic!("flow {f} is not MPTCP"),
    }
}

/// Two paths with the same queue (netem-like, a fixed time's worth of bytes) in both directions.
fn selftest_paths(r1: u32, d1: u32, r2: u32, d2: u32, flow: &str, duration: &str) -> String {
    two_paths(&format!("{r1}Mbps"), &format!("{d1}ms"), &format!("{r2}Mbps"), &format!("{d2}ms"), flow, duration)
        .replace(r#"limit = "1bdp""#, r#"limit = "100ms""#)
}

/// Linux `tools/testing/selftests/net/mptcp/simult_flows.sh`: a 16 MiB transfer over two paths
/// must finish within size·8/(r1+r2) · 10/9 (10% header overhead) + 450 ms (the script's
/// 400 ms of join sleeps plus 50 ms slack).
#[test]
fn selftest_style_transfer_times_stay_within_the_kernel_bound() {
    let size: u64 = 16 << 20;
    let cases = [(10, 0, 10, 0), (10, 1, 10, 25), (10, 25, 10, 1), (10, 0, 3, 0), (10, 1, 3, 25), (10, 25, 3, 1)];
    let results = par_map(&cases, threads(), |&(r1, d1, r2, d2)| {
        let flow = format!("cc = \"cubic\"\napp = {{ kind = \"file\", size = \"{size}B\" }}");
        let (sim, _) = run(&selftest_paths(r1, d1, r2, d2, &flow, "30s"), None);
        let done = sim.flows[0].metrics.completion.map(|t| t as f64 / 1e9);
        let bound = size as f64 * 8.0 / ((r1 + r2) as f64 * 1e6) * 10.0 / 9.0 + 0.45;
        ((r1, d1, r2, d2), done, bound)
    });
    for (case, done, bound) in &results {
        println!("{case:?}: completed in {done:?} s, bound {bound:.3} s");
    }
    for (case, done, bound) in results {
        let t = done.unwrap_or_else(|| panic!("{case:?} did not complete"));
        assert!(t <= bound, "{case:?}: {t:.3} s > {bound:.3} s");
    }
}

/// Goodput (Mbit/s, seconds 5–20) of one bulk MPTCP flow with `scheduler` over paths of 10 and
/// 100 ms RTT (10 Mbit/s each) with a connection-level receive buffer of `buf`.
fn asymmetric_goodput(scheduler: &str, buf: &str) -> f64 {
    let flow = format!("cc = \"cubic\"\nscheduler = \"{scheduler}\"\napp = \"bulk\"\nmptcp = {{ recv_buffer = \"{buf}\" }}");
    let (sim, _) = run(&two_paths("10Mbps", "5ms", "10Mbps", "50ms", &flow, "20s"), None);
    goodput_bps(&sim, 0, 5, 20) / 1e6
}

/// The head-of-line pathology of MinRTT with a small receive buffer (Ferlin et al. 2016 §2,
/// Lim et al. 2017 §2): data sent on the slow path blocks the window, so the connection does
/// worse than a TCP flow on the fast path alone; BLEST and ECF keep the slow path idle instead.
#[test]
fn small_receive_buffer_minrtt_falls_below_the_fast_path_and_blest_ecf_recover() {
    let buf = "64KB";
    let tcp = two_paths("10Mbps", "5ms", "10Mbps", "50ms", "", "20s").replace(
        "protocol = \"mptcp\"",
        &format!("protocol = \"tcp\"\ncc = \"cubic\"\npath = [\"c\", \"r1\", \"s\"]\ntcp = {{ recv_buffer = \"{buf}\", mss = \"1432B\" }}"),
    );
    let (sim, _) = run(&tcp, None);
    let fast_alone = goodput_bps(&sim, 0, 5, 20) / 1e6;
    let scheds = ["minrtt", "blest", "ecf"];
    let g = par_map(&scheds, threads(), |s| asymmetric_goodput(s, buf));
    println!("fast path alone {fast_alone:.2} Mbit/s; minrtt {:.2}, blest {:.2}, ecf {:.2}", g[0], g[1], g[2]);
    assert!(g[0] < 0.8 * fast_alone, "minrtt {:.2} vs fast path alone {fast_alone:.2}", g[0]);
    for (name, x) in scheds.iter().zip(&g).skip(1) {
        assert!(*x > 0.9 * fast_alone, "{name} {x:.2} vs fast path alone {fast_alone:.2}");
        assert!(*x > 1.3 * g[0], "{name} {x:.2} vs minrtt {:.2}", g[0]);
    }
}

/// A 4 Mbit/s stream fits the fast path: MinRTT keeps it there, round robin alternates and
/// makes fast-path data wait for slow-path data. Both HoL measures see it: seed 001's sampled
/// degree ζ (eq. 8) and the direct per-chunk wait in the reassembly buffer.
#[test]
fn hol_degree_is_larger_under_roundrobin_than_minrtt_on_asymmetric_rtts() {
    let scheds = ["minrtt", "roundrobin"];
    let out = par_map(&scheds, threads(), |sched| {
        let flow = format!("cc = \"cubic\"\nscheduler = \"{sched}\"\napp = {{ kind = \"cbr\", rate = \"4Mbps\" }}");
        let (_, s) = run(&two_paths("10Mbps", "5ms", "10Mbps", "50ms", &flow, "20s"), None);
        let m = &s["flows"][0]["mptcp"];
        (
            m["hol_degree_ms"]["zeta_av"].as_f64().unwrap(),
            m["hol_wait_ms"]["mean"].as_f64().unwrap(),
            s["flows"][0]["paths"][1]["share"].as_f64().unwrap(),
        )
    });
    println!(
        "minrtt: zeta_av {:.1} ms, wait {:.2} ms, slow share {:.2}; roundrobin: zeta_av {:.1} ms, wait {:.2} ms, slow share {:.2}",
        out[0].0, out[0].1, out[0].2, out[1].0, out[1].1, out[1].2
    );
    assert!(out[1].0 > out[0].0 + 10.0, "zeta_av: roundrobin {:.1} vs minrtt {:.1}", out[1].0, out[0].0);
    assert!(out[1].1 > out[0].1 + 10.0, "direct wait: roundrobin {:.2} vs minrtt {:.2}", out[1].1, out[0].1);
}

/// A profiling harness, not a check (timings are never asserted): runs the benchmark scenarios
/// in-process so `perf record` sees only the simulator. `mptlab bench` is the measurement of
/// record. `BENCH_FILES=../../scenarios/bench/w3.toml cargo test --release -p mptlab-sim --test
/// mptcp time_w3 -- --ignored --nocapture` (paths relative to crates/mptlab-sim).
#[test]
#[ignore = "profiling harness; run explicitly"]
fn time_w3() {
    for path in std::env::var("BENCH_FILES").unwrap_or("../../scenarios/bench/w1.toml,../../scenarios/bench/w3.toml".into()).split(',') {
        let toml = std::fs::read_to_string(path).unwrap();
        let (mut sim, _) = build(&toml, None);
        let t = std::time::Instant::now();
        sim.run_to_end();
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{path}: {} delivered data packets in {secs:.2} s = {:.2} M/s ({} events, {} packets delivered)",
            sim.counts.delivered_data,
            sim.counts.delivered_data as f64 / secs / 1e6,
            sim.events_processed(),
            sim.counts.delivered
        );
    }
}

/// Reliability: a 6 MB file over two lossy paths (1 % random loss each way), with `link` going
/// down at 2 s and up at 4 s. Every byte reaches the application exactly once and in order.
fn transfer_with_outage(link: &str, cc: &str, scheduler: &str) -> (f64, serde_json::Value) {
    transfer_with_outage_in(link, cc, scheduler, |t| t)
}

fn transfer_with_outage_in(link: &str, cc: &str, scheduler: &str, topology: impl Fn(String) -> String) -> (f64, serde_json::Value) {
    let size = 6_000_000u64;
    let flow = format!("cc = \"{cc}\"\nscheduler = \"{scheduler}\"\napp = {{ kind = \"file\", size = \"{size}B\" }}");
    let mut toml = two_paths("10Mbps", "10ms", "10Mbps", "30ms", &flow, "120s")
        .replace("delay = \"10ms\"\n", "delay = \"10ms\"\nloss = { model = \"bernoulli\", p = 0.01 }\n")
        .replace("delay = \"30ms\"\n", "delay = \"30ms\"\nloss = { model = \"bernoulli\", p = 0.01 }\n");
    toml = topology(toml);
    toml += &format!(
        "\n[[events]]\nat = \"2s\"\nlink = \"{link}\"\naction = \"down\"\n\n[[events]]\nat = \"4s\"\nlink = \"{link}\"\naction = \"up\"\n"
    );
    let (sim, s) = run(&toml, None);
    let (snd, rcv) = mptcp(&sim, 0);
    let m = &sim.flows[0].metrics;
    let done =
        m.completion.unwrap_or_else(|| panic!("{link}/{cc}/{scheduler}: transfer did not complete ({} of {size} bytes)", rcv.data_ack()));
    assert_eq!(m.bytes_delivered, size, "{link}/{cc}/{scheduler}: bytes delivered");
    assert_eq!(rcv.data_ack(), size);
    assert_eq!(rcv.stats.bytes_delivered, size, "each byte handed over once");
    assert_eq!(snd.data_una(), size, "everything data-acknowledged");
    (done as f64 / 1e9, s)
}

#[test]
fn every_byte_arrives_once_in_order_through_loss_and_an_interface_outage() {
    let cases = [
        ("p1", "cubic", "default"),
        ("p2", "lia", "minrtt"),
        ("p1", "olia", "roundrobin"),
        ("p2", "balia", "blest"),
        ("p1", "reno", "redundant"),
    ];
    let out = par_map(&cases, threads(), |&(link, cc, sched)| transfer_with_outage(link, cc, sched));
    for ((link, cc, sched), (t, s)) in cases.iter().zip(&out) {
        let (m, paths) = (&s["flows"][0]["mptcp"], &s["flows"][0]["paths"]);
        let k: usize = if *link == "p1" { 0 } else { 1 };
        println!(
            "{link} down 2–4 s, {cc}/{sched}: done in {t:.2} s, path {k} closed {} opened {}, reinjected {}",
            paths[k]["mptcp"]["closed"], paths[k]["mptcp"]["opened"], m["chunks_reinjected"]
        );
        // The path manager closed the subflow of the interface that went down and joined it again.
        assert_eq!(paths[k]["mptcp"]["closed"], 1, "{link}/{cc}/{sched}");
        assert_eq!(paths[k]["mptcp"]["opened"], 2, "{link}/{cc}/{sched}");
    }
}

#[test]
fn every_byte_arrives_once_in_order_when_a_link_inside_a_path_fails() {
    // Path 0 becomes c – r1 – m – s; p1s (r1 – m) is inside it: no host sees an interface go
    // down, only retransmission timeouts reveal the outage.
    let (t, s) = transfer_with_outage_in("p1s", "cubic", "default", |t| {
        t.replace(r#"routers = ["r1", "r2"]"#, r#"routers = ["r1", "r2", "m"]"#)
            .replace(r#"between = ["r1", "s"]"#, "between = [\"r1\", \"m\"]")
            + "\n[links.ms]\nbetween = [\"m\", \"s\"]\nrate = \"10Gbps\"\ndelay = \"0ms\"\nqueue = { kind = \"droptail\", limit = \"1000p\" }\n"
    });
    let (m, paths) = (&s["flows"][0]["mptcp"], &s["flows"][0]["paths"]);
    println!("p1s down 2–4 s: done in {t:.2} s, path 0 RTOs {}, reinjected {}", paths[0]["rto_count"], m["chunks_reinjected"]);
    assert!(paths[0]["rto_count"].as_u64().unwrap() >= 1);
    assert!(m["chunks_reinjected"].as_u64().unwrap() >= 1, "data stranded on the failed subflow is reinjected");
    assert_eq!(paths[0]["mptcp"]["closed"], 0);
}

/// Raiciu et al. (NSDI 2012) §4.2: with a receive buffer too small for the slow path, MinRTT
/// stalls on data stuck on the slow path; opportunistic retransmission of that data on the fast
/// path, with penalisation of the slow subflow, recovers throughput.
#[test]
fn opportunistic_retransmission_and_penalisation_recover_a_stalled_connection() {
    let run_with = |on: bool| {
        let flow = format!(
            "cc = \"cubic\"\nscheduler = \"minrtt\"\napp = \"bulk\"\nmptcp = {{ recv_buffer = \"64KB\", opportunistic_retransmit = {on} }}"
        );
        let (sim, s) = run(&two_paths("10Mbps", "5ms", "10Mbps", "50ms", &flow, "20s"), None);
        (goodput_bps(&sim, 0, 5, 20) / 1e6, s["flows"][0]["mptcp"].clone())
    };
    let (off, _) = run_with(false);
    let (on, m) = run_with(true);
    println!(
        "64 KB buffer, 10/100 ms RTT, minrtt: {off:.2} Mbit/s without, {on:.2} with opportunistic retransmission ({} retransmits, {} penalties)",
        m["opportunistic_retransmits"], m["penalizations"]
    );
    assert!(m["opportunistic_retransmits"].as_u64().unwrap() > 0);
    assert!(m["penalizations"].as_u64().unwrap() > 0);
    assert!(on > 1.2 * off, "{on:.2} vs {off:.2}");
}

#[test]
fn additional_subflows_join_after_the_join_delay_and_a_finished_transfer_closes() {
    let flow = "cc = \"cubic\"\napp = { kind = \"file\", size = \"2MB\" }\nmptcp = { join_delay = \"1500ms\" }";
    let (sim, s) = run(&two_paths("10Mbps", "10ms", "10Mbps", "30ms", flow, "20s"), None);
    let (snd, _) = mptcp(&sim, 0);
    let first = snd.subs[0].snd.stats.established_at.expect("first subflow established");
    let second = snd.subs[1].snd.stats.established_at.expect("second subflow established");
    // The join's SYN leaves 1.5 s after the first subflow is up and takes one RTT of path 2
    // (about 62 ms) to be answered.
    let gap = (second - first) as f64 / 1e9;
    println!("second subflow established {gap:.3} s after the first");
    assert!((1.5..1.6).contains(&gap), "join gap {gap:.3} s");
    let m = &s["flows"][0]["mptcp"];
    let closed = m["closed_at_s"].as_f64().expect("the connection closed");
    let done = s["flows"][0]["completion_time_s"].as_f64().unwrap();
    assert!(closed >= done, "closed at {closed} before the last byte was delivered at {done}");
}
