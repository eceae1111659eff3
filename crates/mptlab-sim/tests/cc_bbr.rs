//! BBR v1 (`cc = "bbr"`, `src/cc/bbr/`) in whole simulations: the state machine's event
//! stream and the headline claims of the BBR paper and draft — a full pipe despite STARTUP's
//! losses and despite random loss, a short queue in a deep buffer. Every scenario is TOML text
//! loaded through `scenario::load`. Every test name contains `bbr`, so
//! `cargo test --release -p mptlab-sim bbr` runs them with the unit tests of `src/cc/bbr/`; add
//! `--test cc_bbr -- --nocapture` to see the measurements.

mod common;

use common::*;
use mptlab_sim::engine::time::{MILLISECOND, SECOND};
use mptlab_sim::engine::Time;
use mptlab_sim::sim::Simulation;
use std::time::Instant;

/// One BBR flow over one link `path` between two hosts (the link's queue is the bottleneck
/// queue), 64 MB TCP buffers so that only the controller limits the window.
fn scenario(secs: u64, rate: &str, one_way: &str, queue_limit: &str, loss: &str) -> String {
    OneLink { secs, link: "path", rate, delay: one_way, limit: queue_limit, loss, flow: "f", cc: "bbr", flow_extra: "", tcp: BIG_BUFFERS }
        .toml()
}

/// Maximum goodput of a link of `rate_bps`: 1460 B of payload per 1500 B on the wire.
fn max_goodput(rate_bps: f64) -> f64 {
    rate_bps * 1460.0 / 1500.0
}

struct Run {
    sim: Simulation,
    /// Goodput over [warmup, end) in bit/s.
    goodput_bps: f64,
    /// Mean queueing delay (sojourn) at the bottleneck after the warm-up, ms.
    queue_delay_ms: f64,
    wall_s: f64,
}

fn run(toml: &str, warmup_s: u64) -> Run {
    let wall = Instant::now();
    let (mut sim, _) = build(toml, None);
    keep_cc_history(&mut sim);
    let l = link_index(&sim, "path");
    sim.advance(warmup_s * SECOND);
    let before = sim.hops[l].stats().delay_stats_ms();
    sim.run_to_end();
    let after = sim.hops[l].stats().delay_stats_ms();
    let n = after.count - before.count;
    let queue_delay_ms = (after.mean * after.count as f64 - before.mean * before.count as f64) / n.max(1) as f64;
    let secs = sim.duration() / SECOND;
    let goodput_bps = goodput_bps(&sim, 0, warmup_s, secs);
    Run { sim, goodput_bps, queue_delay_ms, wall_s: wall.elapsed().as_secs_f64() }
}

fn describe(r: &Run, label: &str, rate_bps: f64) {
    let (snd, _) = tcp(&r.sim, 0);
    let l = link_index(&r.sim, "path");
    let c = &r.sim.hops[l].counters();
    println!(
        "{label}: goodput {:.2} Mbit/s = {:.2} % of max {:.2}; queue delay mean {:.3} ms; queue drops {}, channel drops {}; \
         fast recoveries {}, RTOs {}, retransmissions {}; final cwnd {} B; states {}; wall {:.2} s",
        r.goodput_bps / 1e6,
        100.0 * r.goodput_bps / max_goodput(rate_bps),
        max_goodput(rate_bps) / 1e6,
        r.queue_delay_ms,
        c.queue_drops,
        c.channel_drops,
        snd.stats.fast_recoveries,
        snd.stats.rto_count,
        snd.stats.retransmissions,
        snd.cwnd(),
        snd.cc_state_changes().len(),
        r.wall_s,
    );
}

fn print_states(changes: &[(Time, &'static str)]) {
    for (i, (t, s)) in changes.iter().enumerate() {
        let held = changes.get(i + 1).map(|(n, _)| format!("{:>9.3} ms", (n - t) as f64 / MILLISECOND as f64)).unwrap_or_default();
        println!("  {:>10.6} s  {:<9} {held}", *t as f64 / SECOND as f64, s);
    }
}

// ------------------------------------------------------------------------------------------
// (a) Event snapshots on 100 Mbit/s, 20 ms RTT, 1-BDP drop-tail, 30 s.
//
//     One flow: STARTUP → DRAIN → PROBE_BW, then PROBE_RTT about every 10 s: RTprop starts as
//     the handshake's RTT (Linux `bbr_init` takes tcp_min_rtt), which no 1500 B segment
//     matches, and is afterwards only re-measured by PROBE_RTT itself (samples that merely tie
//     with it do not restart its window: see "RTprop and ties" in src/cc/bbr/mod.rs). So the
//     first PROBE_RTT starts 10.0–10.5 s in and each next one 10 s (plus at most one ACK
//     interval) after the previous one ended; each holds 200–400 ms (200 ms at 4 segments,
//     reached after the flight drains, and at least a round trip).
//     Two flows (the second 0.7 s later): printed, and the same shape checked per flow except
//     the period: a flow's PROBE_RTT drains the queue the other flow's RTprop includes, so the
//     other may see a lower RTT and postpone its own; never sooner than 10 s after its start
//     or its last PROBE_RTT.
// ------------------------------------------------------------------------------------------

/// PROBE_RTT episodes (start, end) in a state-change list (end = run end if still probing).
fn probe_rtts(changes: &[(Time, &'static str)], end: Time) -> Vec<(Time, Time)> {
    changes
        .iter()
        .enumerate()
        .filter(|(_, (_, s))| *s == "probe_rtt")
        .map(|(i, (t, _))| (*t, changes.get(i + 1).map_or(end, |(n, _)| *n)))
        .collect()
}

/// The shape every BBR state list must have; returns its PROBE_RTT episodes.
fn check_state_list(changes: &[(Time, &'static str)], end: Time) -> Vec<(Time, Time)> {
    let names: Vec<&str> = changes.iter().map(|(_, s)| *s).collect();
    assert_eq!(names[..3], ["startup", "drain", "probe_bw"], "{names:?}");
    for w in names[2..].windows(2) {
        assert!(matches!(w, ["probe_bw", "probe_rtt"] | ["probe_rtt", "probe_bw"]), "after DRAIN only PROBE_BW <-> PROBE_RTT: {names:?}");
    }
    let probes = probe_rtts(changes, end);
    assert!(!probes.is_empty(), "no PROBE_RTT: {names:?}");
    for &(start, stop) in &probes {
        let held = stop - start;
        assert!(
            stop == end || (200 * MILLISECOND..=400 * MILLISECOND).contains(&held),
            "PROBE_RTT at {start} ns held {} ms",
            held / MILLISECOND
        );
    }
    assert!(probes[0].0 - changes[0].0 > 10 * SECOND, "first PROBE_RTT at {} ms", probes[0].0 / MILLISECOND);
    for w in probes.windows(2) {
        assert!(w[1].0 - w[0].1 > 10 * SECOND, "PROBE_RTT again {} ms after the last", (w[1].0 - w[0].1) / MILLISECOND);
    }
    probes
}

#[test]
fn bbr_state_sequence_is_startup_drain_probe_bw_then_probe_rtt_every_10_s() {
    let one = run(&scenario(30, "100Mbps", "10ms", "1bdp", r#""none""#), 5);
    describe(&one, "one flow, 100 Mbit/s, 20 ms, 1 BDP, 30 s", 100e6);
    let (snd, _) = tcp(&one.sim, 0);
    print_states(snd.cc_state_changes());
    let probes = check_state_list(snd.cc_state_changes(), one.sim.duration());
    assert!(probes[0].0 <= 10 * SECOND + 500 * MILLISECOND, "first PROBE_RTT at {} ms", probes[0].0 / MILLISECOND);
    assert!(probes.len() >= 2, "PROBE_RTT recurs: {probes:?}");
    for w in probes.windows(2) {
        let gap = w[1].0 - w[0].1;
        assert!(gap <= 10 * SECOND + 50 * MILLISECOND, "{} ms between PROBE_RTTs", gap / MILLISECOND);
    }

    let two = run(&two_flow_scenario(30), 5);
    println!(
        "two flows, 100 Mbit/s, 20 ms, 1 BDP, 30 s: goodputs {:.2} + {:.2} Mbit/s, queue delay mean {:.3} ms",
        goodput_bps(&two.sim, 0, 5, 30) / 1e6,
        goodput_bps(&two.sim, 1, 5, 30) / 1e6,
        two.queue_delay_ms
    );
    for f in 0..2 {
        let (snd, _) = tcp(&two.sim, f);
        println!(" flow {}", two.sim.spec.flows[f].name);
        print_states(snd.cc_state_changes());
        check_state_list(snd.cc_state_changes(), two.sim.duration());
    }
}

fn two_flow_scenario(secs: u64) -> String {
    let mut s = scenario(secs, "100Mbps", "10ms", "1bdp", r#""none""#);
    s += r#"
[flows.g]
from = "src"
to = "dst"
cc = "bbr"
app = "bulk"
start = "700ms"
tcp = { send_buffer = "64MB", recv_buffer = "64MB" }
"#;
    s
}

#[test]
fn bbr_runs_are_deterministic() {
    let a = run(&two_flow_scenario(12), 5);
    let b = run(&two_flow_scenario(12), 5);
    for f in 0..2 {
        assert_eq!(tcp(&a.sim, f).0.cc_state_changes(), tcp(&b.sim, f).0.cc_state_changes());
        assert_eq!(a.sim.flows[f].metrics.bytes_delivered, b.sim.flows[f].metrics.bytes_delivered);
    }
}

// ------------------------------------------------------------------------------------------
// (b) The ns-3 trap: 1 Gbit/s, 10 ms one way, 1-BDP drop-tail, 60 s. STARTUP overshoots to
//     ~2.9 BDP in flight and loses about a BDP; BBR v1 must recover (packet conservation,
//     restored cwnd, no loss reaction in the model) and run at ≥ 95 % of the maximum goodput.
//     ns-3.37's TcpBbr collapses to 4.7 Mbit/s on this path.
// ------------------------------------------------------------------------------------------

#[test]
fn bbr_fills_a_gigabit_link_with_one_bdp_of_buffer_despite_startup_losses() {
    let r = run(&scenario(60, "1Gbps", "10ms", "1bdp", r#""none""#), 5);
    describe(&r, "1 Gbit/s, 20 ms, 1 BDP, 60 s, goodput over [5 s, 60 s)", 1e9);
    let (snd, _) = tcp(&r.sim, 0);
    print_states(&snd.cc_state_changes()[..snd.cc_state_changes().len().min(12)]);
    let whole = goodput_bps(&r.sim, 0, 0, 60);
    println!("  whole run: {:.2} Mbit/s = {:.2} %", whole / 1e6, 100.0 * whole / max_goodput(1e9));
    assert!(r.sim.hops[link_index(&r.sim, "path")].counters().queue_drops > 0, "STARTUP should overflow a 1-BDP buffer");
    let frac = r.goodput_bps / max_goodput(1e9);
    assert!(frac >= 0.95, "goodput {:.2} Mbit/s is {:.2} % of the maximum", r.goodput_bps / 1e6, 100.0 * frac);
}

// ------------------------------------------------------------------------------------------
// (c) A long thin path: 10 Mbit/s, 80 ms RTT, 1-BDP drop-tail, 60 s: ≥ 95 % of the maximum.
// ------------------------------------------------------------------------------------------

#[test]
fn bbr_fills_a_10_mbit_80_ms_path() {
    let r = run(&scenario(60, "10Mbps", "40ms", "1bdp", r#""none""#), 5);
    describe(&r, "10 Mbit/s, 80 ms, 1 BDP, 60 s, goodput over [5 s, 60 s)", 10e6);
    let frac = r.goodput_bps / max_goodput(10e6);
    assert!(frac >= 0.95, "goodput {:.3} Mbit/s is {:.2} % of the maximum", r.goodput_bps / 1e6, 100.0 * frac);
}

// ------------------------------------------------------------------------------------------
// (d) No bufferbloat: 100 Mbit/s, 20 ms RTT, 4-BDP drop-tail (80 ms of buffer), 30 s. A
//     loss-based sender would fill the buffer; BBR keeps the mean queueing delay at the
//     bottleneck after the warm-up below one RTprop (20 ms).
// ------------------------------------------------------------------------------------------

#[test]
fn bbr_keeps_the_queue_below_one_rtprop_in_a_deep_buffer() {
    let r = run(&scenario(30, "100Mbps", "10ms", "4bdp", r#""none""#), 5);
    describe(&r, "100 Mbit/s, 20 ms, 4 BDP, 30 s, after 5 s", 100e6);
    let l = link_index(&r.sim, "path");
    println!(
        "  whole-run queue delay mean {:.3} ms, max {:.3} ms",
        r.sim.hops[l].stats().delay_mean_ms(),
        r.sim.hops[l].stats().delay_quantile_ms(1.0)
    );
    assert!(r.queue_delay_ms < 20.0, "mean queueing delay {:.3} ms", r.queue_delay_ms);
    assert!(r.goodput_bps / max_goodput(100e6) >= 0.9, "and the pipe stays full");
}

// ------------------------------------------------------------------------------------------
// (e) Loss-blindness: 100 Mbit/s, 20 ms RTT, 0.5-BDP drop-tail, 1 % Bernoulli loss on the data
//     direction, 30 s. Loss-based TCP collapses to a few Mbit/s (Mathis: 1.22·MSS/(RTT·√p) ≈
//     7 Mbit/s); BBR keeps > 80 % of the maximum goodput.
// ------------------------------------------------------------------------------------------

#[test]
fn bbr_keeps_80_percent_utilisation_with_a_shallow_buffer_and_1_percent_random_loss() {
    let r = run(&scenario(30, "100Mbps", "10ms", "0.5bdp", r#"{ model = "bernoulli", p = 0.01 }"#), 5);
    describe(&r, "100 Mbit/s, 20 ms, 0.5 BDP, 1 % loss, 30 s, after 5 s", 100e6);
    let l = link_index(&r.sim, "path");
    let link = &r.sim.hops[l];
    let util = link.counters().transmitted_bytes as f64 * 8.0 / (100e6 * 30.0);
    println!("  link utilisation (wire bytes, whole run) {:.2} %", 100.0 * util);
    let frac = r.goodput_bps / max_goodput(100e6);
    assert!(frac > 0.80, "goodput {:.2} Mbit/s is {:.2} % of the maximum", r.goodput_bps / 1e6, 100.0 * frac);
}

// ------------------------------------------------------------------------------------------
// (f) Sweep as data (STYLE: smoltcp's buffer × loss table): 100 Mbit/s, 20 ms RTT, 15 s,
//     goodput over [5 s, 15 s) as a share of the maximum, for drop-tail buffers of 0.25–4 BDP
//     and Bernoulli loss of 0–2 % on the data direction. BBR v1 ignores loss below ~20 %
//     (its model has no loss term), so every cell stays above 80 %.
// ------------------------------------------------------------------------------------------

#[test]
fn bbr_goodput_table_over_buffer_and_random_loss() {
    let buffers = ["0.25bdp", "0.5bdp", "1bdp", "4bdp"];
    let losses = [0.0, 0.001, 0.01, 0.02];
    let cells: Vec<(&str, f64)> = buffers.iter().flat_map(|&b| losses.iter().map(move |&p| (b, p))).collect();
    let wall = Instant::now();
    let results = par_map(&cells, threads(), |&(b, p)| {
        let loss = if p == 0.0 { r#""none""#.to_string() } else { format!("{{ model = \"bernoulli\", p = {p} }}") };
        let r = run(&scenario(15, "100Mbps", "10ms", b, &loss), 5);
        let (snd, _) = tcp(&r.sim, 0);
        (r.goodput_bps / max_goodput(100e6), r.queue_delay_ms, snd.stats.retransmissions, snd.stats.rto_count)
    });
    println!("\nBBR v1, 100 Mbit/s, 20 ms: goodput % of max over [5 s, 15 s) (mean queue delay ms, retransmissions, RTOs)");
    print!("{:>8}", "buffer");
    for p in losses {
        print!(" {:>26}", format!("loss {:.1} %", 100.0 * p));
    }
    println!();
    for (i, b) in buffers.iter().enumerate() {
        print!("{b:>8}");
        for j in 0..losses.len() {
            let (g, q, rx, rto) = results[i * losses.len() + j];
            print!(" {:>26}", format!("{:.1} % ({q:.1}, {rx}, {rto})", 100.0 * g));
        }
        println!();
    }
    println!("wall time {:.2} s", wall.elapsed().as_secs_f64());
    for ((b, p), (g, ..)) in cells.iter().zip(&results) {
        assert!(*g > 0.80, "buffer {b}, loss {p}: goodput {:.1} % of the maximum", 100.0 * g);
    }
}

// ------------------------------------------------------------------------------------------
// (g) An application-limited sender: a 20 Mbit/s CBR writer over BBR on 100 Mbit/s, 20 ms.
//     Its samples are application-limited and must not drag the estimate down; it gets what
//     it writes, with no loss and next to no queue.
// ------------------------------------------------------------------------------------------

#[test]
fn bbr_application_limited_sender_gets_its_rate_without_queueing() {
    let toml =
        scenario(20, "100Mbps", "10ms", "1bdp", r#""none""#).replace(r#"app = "bulk""#, r#"app = { kind = "cbr", rate = "20Mbps" }"#);
    let r = run(&toml, 5);
    describe(&r, "CBR 20 Mbit/s over BBR, 100 Mbit/s, 20 ms, 20 s, after 5 s", 100e6);
    let (snd, _) = tcp(&r.sim, 0);
    print_states(snd.cc_state_changes());
    assert!((19.5e6..=20.5e6).contains(&r.goodput_bps), "goodput {:.3} Mbit/s", r.goodput_bps / 1e6);
    assert_eq!(snd.stats.retransmissions, 0);
    assert!(r.queue_delay_ms < 1.0, "queue delay {:.3} ms", r.queue_delay_ms);
}

// ------------------------------------------------------------------------------------------
// (h) ACK-aggregation allowance (Linux `bbr_ack_aggregation_cwnd`, src/cc/bbr/aggregation.rs):
//     10 Mbit/s, 40 ms each way, 2-BDP drop-tail, 60 s, with the allowance off
//     (`extra_acked_gain = 0`, the draft's 2·BDP + 3 quanta) and on (Linux's gain 1), for
//     delayed ACKs every 2 segments (the default) and every 8 (a receiver that aggregates like
//     GRO/LRO). Measured after a 5 s warm-up, sampled every 10 ms: the sender's SRTT and cwnd,
//     the controller's extra_acked; the bottleneck's mean queueing delay; goodput.
//     Anchors: on a jitter-free path the ACKs arrive at the model's rate, so every ACK epoch
//     holds one ACK and extra_acked is one ACK's data (2 or 8 segments); the window holds
//     exactly that much more with the allowance on. BBR paces at BtlBw here and its in-flight
//     stays far below 2·BDP, so the larger window does not bind: SRTT and queue do not move.
// ------------------------------------------------------------------------------------------

struct AggRun {
    srtt_ms: f64,
    queue_ms: f64,
    cwnd_segments: f64,
    extra_acked_segments: f64,
    goodput_bps: f64,
}

fn aggregation_run(gain: f64, ack_every: u32, secs: u64) -> AggRun {
    let extra = format!("cc_options = {{ extra_acked_gain = {gain} }}");
    let tcp_opts = format!("{BIG_BUFFERS}, delayed_ack = {{ every = {ack_every} }}");
    let toml = OneLink {
        secs,
        link: "path",
        rate: "10Mbps",
        delay: "40ms",
        limit: "2bdp",
        loss: "",
        flow: "f",
        cc: "bbr",
        flow_extra: &extra,
        tcp: &tcp_opts,
    }
    .toml();
    let (mut sim, _) = build(&toml, Some(1));
    let l = link_index(&sim, "path");
    let warmup = 5 * SECOND;
    sim.advance(warmup);
    let before = sim.hops[l].stats().delay_stats_ms();
    let (mut srtt, mut cwnd, mut extra_acked, mut n) = (0.0, 0.0, 0.0, 0u64);
    let mut t = warmup;
    while !sim.is_done() {
        t += 10 * MILLISECOND;
        sim.advance(t);
        let (snd, _) = tcp(&sim, 0);
        srtt += snd.rtt().srtt().expect("an RTT sample after 5 s") as f64 / 1e6;
        cwnd += snd.cwnd() as f64 / 1460.0;
        let mptlab_sim::cc::AnyCc::Bbr(b) = snd.cc() else { panic!("a BBR flow") };
        extra_acked += b.extra_acked() as f64 / 1460.0;
        n += 1;
    }
    let after = sim.hops[l].stats().delay_stats_ms();
    let m = (after.count - before.count).max(1) as f64;
    let n = n as f64;
    AggRun {
        srtt_ms: srtt / n,
        queue_ms: (after.mean * after.count as f64 - before.mean * before.count as f64) / m,
        cwnd_segments: cwnd / n,
        extra_acked_segments: extra_acked / n,
        goodput_bps: goodput_bps(&sim, 0, 5, secs),
    }
}

#[test]
fn bbr_ack_aggregation_allowance_adds_one_ack_burst_to_the_window_on_a_smooth_path() {
    let jobs: Vec<(u32, f64)> = [2u32, 8].iter().flat_map(|&e| [(e, 0.0), (e, 1.0)]).collect();
    let runs = par_map(&jobs, threads(), |&(e, g)| aggregation_run(g, e, 60));
    println!("BBR v1, 10 Mbit/s, 40 ms each way, 2-BDP drop-tail, 60 s, after 5 s (sampled every 10 ms)");
    println!(
        "{:>9} {:>5} {:>8} {:>9} {:>10} {:>16} {:>12}",
        "ACK every", "gain", "SRTT ms", "queue ms", "cwnd seg", "extra_acked seg", "goodput Mb/s"
    );
    for ((e, g), r) in jobs.iter().zip(&runs) {
        println!(
            "{e:>9} {g:>5} {:>8.2} {:>9.2} {:>10.2} {:>16.2} {:>12.3}",
            r.srtt_ms,
            r.queue_ms,
            r.cwnd_segments,
            r.extra_acked_segments,
            r.goodput_bps / 1e6
        );
    }
    for (k, every) in [2.0, 8.0].iter().enumerate() {
        let (off, on) = (&runs[2 * k], &runs[2 * k + 1]);
        // One ACK's data is the whole excess of an epoch at the model's rate (the estimate is
        // kept with the allowance off too). Tolerance: a quarter segment for the ACKs that
        // cover an odd count (delayed-ACK timer, a retransmission).
        for r in [off, on] {
            assert!((r.extra_acked_segments - every).abs() < 0.25, "ACK every {every}: extra_acked {:.2} segments", r.extra_acked_segments);
        }
        // The window holds it: cwnd(on) − cwnd(off) = extra_acked, within half a segment
        // (cwnd follows BtlBw·RTprop, which the two runs estimate alike to within that).
        let diff = on.cwnd_segments - off.cwnd_segments;
        assert!(
            (diff - on.extra_acked_segments).abs() < 0.5,
            "ACK every {every}: cwnd grew by {diff:.2} segments, extra_acked {:.2}",
            on.extra_acked_segments
        );
        // It does not bind on this path: SRTT and the queue move by less than 0.5 ms, goodput
        // by less than 0.5 %.
        assert!((on.srtt_ms - off.srtt_ms).abs() < 0.5, "ACK every {every}: SRTT {:.2} vs {:.2} ms", on.srtt_ms, off.srtt_ms);
        assert!((on.queue_ms - off.queue_ms).abs() < 0.5, "ACK every {every}: queue {:.2} vs {:.2} ms", on.queue_ms, off.queue_ms);
        assert!(
            (on.goodput_bps / off.goodput_bps - 1.0).abs() < 0.005,
            "ACK every {every}: goodput {:.3} vs {:.3}",
            on.goodput_bps,
            off.goodput_bps
        );
    }
}
