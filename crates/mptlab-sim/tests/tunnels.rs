//! Multipath tunnels (issue 22, seed 003; docs/tunnels.md) in whole simulations: aggregation,
//! CPF's strictness, reordering at the egress, packet conservation through encapsulation and
//! the scheduler buffer, exactly-once delivery of inner reliable flows, determinism, and the
//! scenario's refusals.

mod common;

use common::{load, run};
use mptlab_sim::scenario;
use proptest::prelude::*;
use serde_json::Value;

/// The seed-003 topology: server — proxy — {ap, cell} — ue, two 50 Mbit/s access links with
/// 100 ms of buffer. `e2e_ms`: the end-to-end propagation RTT; `share`: the tunnel's part of
/// it (proxy near the user: small share); `asym_ms`: extra one-way delay on the cellular path.
fn topology(e2e_ms: f64, share: f64, asym_ms: f64) -> String {
    let tunnel_one_way = e2e_ms * share / 2.0;
    let server_one_way = e2e_ms * (1.0 - share) / 2.0;
    format!(
        r#"
[nodes]
hosts = ["server", "ue"]
routers = ["proxy", "ap", "cell"]

[links.wan]
between = ["server", "proxy"]
rate = "1Gbps"
delay = "{server}us"

[links.proxy_ap]
between = ["proxy", "ap"]
rate = "1Gbps"
delay = "{tunnel}us"

[links.proxy_cell]
between = ["proxy", "cell"]
rate = "1Gbps"
delay = "{cell}us"

[links.wifi]
between = ["ap", "ue"]
rate = "50Mbps"
delay = "0ms"
queue = {{ limit = "100ms" }}

[links.cellular]
between = ["cell", "ue"]
rate = "50Mbps"
delay = "0ms"
queue = {{ limit = "100ms" }}
"#,
        server = (server_one_way * 1000.0).round() as u64,
        tunnel = (tunnel_one_way * 1000.0).round() as u64,
        cell = ((tunnel_one_way + asym_ms) * 1000.0).round() as u64,
    )
}

fn tunnel(cc: &str, scheduler: &str, extra: &str) -> String {
    format!(
        r#"
[tunnels.mp]
ingress = "proxy"
egress = "ue"
paths = [["proxy", "ap", "ue"], ["proxy", "cell", "ue"]]
cc = "{cc}"
scheduler = "{scheduler}"
{extra}
"#
    )
}

fn flow(protocol: &str, app: &str, through_tunnel: bool) -> String {
    let route = if through_tunnel { "tunnel = \"mp\"" } else { "path = [\"server\", \"proxy\", \"ap\", \"ue\"]" };
    format!("[flows.dl]\nfrom = \"server\"\nto = \"ue\"\nprotocol = \"{protocol}\"\napp = {app}\n{route}\n")
}

fn scenario(duration: &str, topo: &str, tunnel: &str, flow: &str) -> String {
    format!("[run]\nduration = \"{duration}\"\n{topo}\n{tunnel}\n{flow}")
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn tunnel_summary(s: &Value) -> &Value {
    &s["tunnels"][0]
}

/// The ideal ratio of a tunnel's inner rate to one path's: two paths, minus the 52 B of
/// encapsulation per 1500 B inner packet.
const TWO_PATHS: f64 = 2.0 * 1500.0 / 1552.0;

#[test]
fn udp_through_a_two_path_tunnel_reaches_twice_one_path_less_the_header() {
    let topo = topology(40.0, 0.5, 0.0);
    let app = "{ kind = \"cbr\", rate = \"120Mbps\" }";
    let (_, base) = run(&scenario("10s", &topo, "", &flow("udp", app, false)), None);
    let one = num(&base["flows"][0]["bytes_delivered"]);
    for cc in ["ccid2", "ccid5"] {
        let (_, s) = run(&scenario("10s", &topo, &tunnel(cc, "cpf", ""), &flow("udp", app, true)), None);
        let both = num(&s["flows"][0]["bytes_delivered"]);
        let ratio = both / one;
        assert!((ratio / TWO_PATHS - 1.0).abs() < 0.03, "{cc}: tunnel/one path = {ratio:.3}, ideal {TWO_PATHS:.3}");
        let t = tunnel_summary(&s);
        for p in t["paths"].as_array().unwrap() {
            // Each path runs at its bottleneck's rate in inner bytes (1500 of every 1552).
            let mbps = num(&p["throughput_mbps"]["p50"]);
            assert!((mbps - 50.0 * 1500.0 / 1552.0).abs() < 1.0, "{cc}: a path carried {mbps} Mbit/s");
        }
    }
}

/// Fig. 2 of seed 003: a paced UDP download through the tunnel takes about half the time of
/// the same download over one path, with the proxy near the user or far from it.
#[test]
fn relative_dlct_of_a_paced_udp_download_is_about_half_near_and_far() {
    let app = "{ kind = \"file\", size = \"30MB\", rate = \"120Mbps\" }";
    for share in [0.75, 0.25] {
        let topo = topology(50.0, share, 0.0);
        let (_, base) = run(&scenario("20s", &topo, "", &flow("udp", app, false)), None);
        let (_, tun) = run(&scenario("20s", &topo, &tunnel("ccid5", "cpf", ""), &flow("udp", app, true)), None);
        let single = num(&base["flows"][0]["completion_time_s"]);
        let multi = num(&tun["flows"][0]["completion_time_s"]);
        let relative = multi / single;
        assert!((0.48..=0.56).contains(&relative), "share {share}: relative DLCT {relative:.3} ({multi:.2} s / {single:.2} s)");
    }
}

/// CPF fills the preferred path's window before it touches the other (seed 003 §2.3); UDP at
/// 0.6 of path 1's capacity never fills it. SRTT follows the faster path, here the cellular one.
#[test]
fn cpf_keeps_traffic_below_path_one_capacity_on_path_one_and_srtt_follows_the_faster_path() {
    let app = "{ kind = \"cbr\", rate = \"30Mbps\" }";
    // The cellular path is 10 ms shorter one way than Wi-Fi.
    let mut topo = topology(40.0, 0.5, 0.0);
    topo = topo.replace(
        "[links.proxy_ap]\nbetween = [\"proxy\", \"ap\"]\nrate = \"1Gbps\"\ndelay = \"10000us\"",
        "[links.proxy_ap]\nbetween = [\"proxy\", \"ap\"]\nrate = \"1Gbps\"\ndelay = \"20000us\"",
    );
    assert!(topo.contains("20000us"), "{topo}");
    for cc in ["ccid2", "ccid5"] {
        let (_, cpf) = run(&scenario("10s", &topo, &tunnel(cc, "cpf", ""), &flow("udp", app, true)), None);
        // Start-up aside (a small window overflows while it grows), path 2 carries nothing.
        let t = tunnel_summary(&cpf);
        let share = num(&t["secondary_share"]);
        let median = num(&t["paths"][1]["throughput_mbps"]["p50"]);
        assert!(share < 0.05 && median == 0.0, "{cc}: CPF put {share:.3} of the bytes on path 2: {}", t["paths"][1]);
        let (_, srtt) = run(&scenario("10s", &topo, &tunnel(cc, "srtt", ""), &flow("udp", app, true)), None);
        let share = num(&tunnel_summary(&srtt)["secondary_share"]);
        assert!(share > 0.9, "{cc}: SRTT put only {share:.3} of the bytes on the faster path 2");
    }
}

/// Adaptive reordering at the egress hides the paths' delay difference from the inner flow;
/// without it the receiver sees the paths interleaved. Round robin at 60 Mbit/s keeps both
/// paths busy and, with a scheduler buffer smaller than the bottleneck buffers, their queues
/// short, so the one-way delays stay about 20 ms apart. Until both paths have delivered a
/// packet the stage knows one delay only and waits just the padding: the first round trip's
/// slow-path packets come late. From then on nothing is late or reordered.
#[test]
fn adaptive_reordering_hides_path_asymmetry_from_the_inner_receiver() {
    let app = "{ kind = \"cbr\", rate = \"60Mbps\" }";
    let topo = topology(40.0, 0.5, 20.0);
    let reordered = |sim: &mptlab_sim::sim::Simulation| match &sim.flows[0].endpoint {
        mptlab_sim::transport::AnyEndpoint::Udp(u) => u.rcv.reordered,
        _ => unreachable!(),
    };
    let extra = "buffer = \"100p\"";
    let (mut sim, canonical) = common::build(&scenario("5s", &topo, &tunnel("ccid2", "roundrobin", extra), &flow("udp", app, true)), None);
    sim.advance(mptlab_sim::engine::time::SECOND);
    let early = sim.summary(&canonical)["tunnels"][0]["egress_counters"]["reorder"].clone();
    let early_reordered = reordered(&sim);
    sim.run_to_end();
    let s = sim.summary(&canonical);
    let reorder = &tunnel_summary(&s)["egress_counters"]["reorder"];
    assert_eq!(reordered(&sim), early_reordered, "reordering after the first second: {reorder}");
    for k in ["late", "forced", "forced_gaps"] {
        assert_eq!(reorder[k], early[k], "{k} after the first second: {reorder}");
    }
    assert!(num(&reorder["held"]) - num(&early["held"]) > 8_000.0, "the fast path's packets were held: {reorder}");
    // The fast path's packets are held about the delay difference (20 ms; the wait limit adds
    // the 5 ms padding, which a packet does not wait out once its predecessor arrives). The
    // start-up burst's queues make the largest hold longer, so the mean is the measure here.
    let mean = num(&reorder["hold_time"]["mean_ms"]);
    assert!((18.0..=22.0).contains(&mean), "mean hold {mean} ms: {reorder}");
    let (sim, _) = run(
        &scenario(
            "5s",
            &topo,
            &tunnel("ccid2", "roundrobin", &format!("{extra}\nreorder = {{ mode = \"off\" }}")),
            &flow("udp", app, true),
        ),
        None,
    );
    assert!(reordered(&sim) > 10_000, "without reordering the receiver sees the paths interleaved: {}", reordered(&sim));
}

/// A TCP download through a lossy tunnel: packets are conserved through encapsulation and the
/// scheduler buffer, the file arrives exactly once, and the tunnel releases each inner packet
/// at most once.
#[test]
fn tcp_through_a_lossy_tunnel_completes_exactly_once_and_conserves_packets() {
    let topo = topology(30.0, 0.5, 5.0).replace("[links.wifi]", "[links.wifi]\nloss = { model = \"bernoulli\", p = 0.01 }");
    for (cc, sched, reorder) in
        [("ccid2", "cpf", "adaptive"), ("ccid5", "srtt", "static"), ("newreno", "roundrobin", "equalize"), ("bbr", "cpf", "off")]
    {
        let extra = format!("reorder = {{ mode = \"{reorder}\" }}\nbuffer = \"60p\"");
        let toml = scenario("30s", &topo, &tunnel(cc, sched, &extra), &flow("tcp", "{ kind = \"file\", size = \"5MB\" }", true));
        let (sim, s) = run(&toml, None);
        let c = sim.counts;
        let live = sim.packets_live() as u64;
        assert_eq!(c.created, c.delivered + c.dropped + live, "{cc}/{sched}/{reorder}: conservation");
        let inside: usize = sim.hops.iter().map(|h| h.packets_inside()).sum();
        assert_eq!(
            live,
            (inside + sim.tunnel_packets_held()) as u64,
            "{cc}/{sched}/{reorder}: live packets are in links or held by the tunnel"
        );
        let f = &s["flows"][0];
        assert_eq!(num(&f["bytes_delivered"]), 5e6, "{cc}/{sched}/{reorder}: the file arrives once, whole");
        assert!(f["completion_time_s"].is_number(), "{cc}/{sched}/{reorder}: {f}");
        let t = tunnel_summary(&s);
        let e = &t["egress_counters"];
        let ro = &e["reorder"];
        assert!(num(&e["released"]) + num(&ro["late_dropped"]) <= num(&e["arrived"]), "{cc}: {e}");
        let lost_on_paths: f64 = t["paths"].as_array().unwrap().iter().map(|p| num(&p["network_drops"])).sum();
        assert!(lost_on_paths > 0.0, "{cc}: the lossy path lost outer packets");
    }
}

fn tcp_tunnel(cc: &str, scheduler: &str, extra: &str) -> String {
    tunnel(cc, scheduler, &format!("protocol = \"tcp\"\n{extra}"))
}

/// Reliable tunnel paths (seed 003 §2.3, TCP tunnels; docs/tunnels.md): UDP through a TCP
/// tunnel whose Wi-Fi path loses 1% of its packets loses no datagram except at the scheduler
/// buffer, since each path retransmits. The source stops at 6 s and the run lasts until
/// everything has drained: datagrams received = sent − scheduler-buffer drops, exactly.
#[test]
fn udp_through_a_lossy_tcp_tunnel_loses_only_what_the_scheduler_buffer_drops() {
    let topo = topology(30.0, 0.5, 5.0).replace("[links.wifi]", "[links.wifi]\nloss = { model = \"bernoulli\", p = 0.01 }");
    for (cc, sched) in [("newreno", "cpf"), ("cubic", "srtt"), ("bbr", "roundrobin"), ("bbr2", "cpf")] {
        // 120 Mbit/s offered to two 50 Mbit/s paths: the scheduler buffer must overflow.
        let app = "{ kind = \"cbr\", rate = \"120Mbps\" }\nstop = \"6s\"";
        let (sim, s) = run(&scenario("20s", &topo, &tcp_tunnel(cc, sched, "buffer = \"200p\""), &flow("udp", app, true)), None);
        let t = tunnel_summary(&s);
        assert_eq!(t["protocol"], "tcp");
        let dropped = num(&t["buffer"]["dropped"]) as u64;
        assert!(dropped > 0, "{cc}/{sched}: the scheduler buffer overflowed: {}", t["buffer"]);
        let (sent, received) = match &sim.flows[0].endpoint {
            mptlab_sim::transport::AnyEndpoint::Udp(u) => (u.next_seq, u.rcv.datagrams),
            _ => unreachable!(),
        };
        assert_eq!(received, sent - dropped, "{cc}/{sched}: {sent} sent, {dropped} dropped by the scheduler buffer");
        assert_eq!(num(&t["buffer"]["offered"]) as u64, sent, "{cc}/{sched}: every datagram reached the ingress");
        let paths = t["paths"].as_array().unwrap();
        let drops: f64 = paths.iter().map(|p| num(&p["network_drops"])).sum();
        let retransmitted = paths.iter().map(|p| num(&p["packets_lost"])).sum::<f64>();
        assert!(drops > 0.0 && retransmitted > 0.0, "{cc}/{sched}: the lossy path lost outer segments: {drops}, {retransmitted}");
        let live = sim.packets_live() as u64;
        assert_eq!(sim.counts.created, sim.counts.delivered + sim.counts.dropped + live, "{cc}/{sched}: conservation");
        let inside: usize = sim.hops.iter().map(|h| h.packets_inside()).sum();
        assert_eq!(live, (inside + sim.tunnel_packets_held()) as u64, "{cc}/{sched}: live packets");
        assert_eq!(sim.tunnel_packets_held(), 0, "{cc}/{sched}: the tunnel drained");
        assert_eq!(num(&t["egress_counters"]["released"]) as u64, received, "{cc}/{sched}: released once each");
    }
}

/// On loss-free paths a TCP tunnel carrying more UDP than both paths hold runs each path at its
/// bottleneck rate in inner bytes: 1500 of every 1556 wire bytes (one record per segment: the
/// 16 B record header and 40 B of IPv4 + TCP), whatever the controller.
#[test]
fn udp_through_a_two_path_tcp_tunnel_fills_both_paths_less_the_headers() {
    let topo = topology(40.0, 0.5, 0.0);
    let app = "{ kind = \"cbr\", rate = \"120Mbps\" }";
    for cc in ["newreno", "cubic", "bbr", "bbr2"] {
        let (_, s) = run(&scenario("10s", &topo, &tcp_tunnel(cc, "cpf", ""), &flow("udp", app, true)), None);
        for p in tunnel_summary(&s)["paths"].as_array().unwrap() {
            let mbps = num(&p["throughput_mbps"]["p50"]);
            assert!((mbps - 50.0 * 1500.0 / 1556.0).abs() < 1.0, "{cc}: a path carried {mbps} Mbit/s: {p}");
            assert_eq!(num(&p["wire_bytes_sent"]), num(&p["packets_sent"]) * 1556.0, "{cc}: full segments of one record each");
        }
    }
}

/// A TCP download through a TCP tunnel (nested reliable control, seed 003 Table 3) over a lossy
/// path completes exactly once with each tunnel controller of the paper.
#[test]
fn tcp_through_a_lossy_tcp_tunnel_completes_exactly_once() {
    let topo = topology(30.0, 0.5, 5.0).replace("[links.wifi]", "[links.wifi]\nloss = { model = \"bernoulli\", p = 0.01 }");
    for (cc, sched, reorder) in
        [("newreno", "cpf", "adaptive"), ("cubic", "srtt", "static"), ("bbr", "roundrobin", "equalize"), ("bbr2", "cpf", "off")]
    {
        let extra = format!("reorder = {{ mode = \"{reorder}\" }}\nbuffer = \"60p\"");
        let toml = scenario("30s", &topo, &tcp_tunnel(cc, sched, &extra), &flow("tcp", "{ kind = \"file\", size = \"5MB\" }", true));
        let (sim, s) = run(&toml, None);
        let c = sim.counts;
        let live = sim.packets_live() as u64;
        assert_eq!(c.created, c.delivered + c.dropped + live, "{cc}: conservation");
        let inside: usize = sim.hops.iter().map(|h| h.packets_inside()).sum();
        assert_eq!(live, (inside + sim.tunnel_packets_held()) as u64, "{cc}: live packets");
        let f = &s["flows"][0];
        assert_eq!(num(&f["bytes_delivered"]), 5e6, "{cc}/{sched}/{reorder}: the file arrives once, whole: {f}");
        assert!(f["completion_time_s"].is_number(), "{cc}/{sched}/{reorder}: {f}");
        let t = tunnel_summary(&s);
        let e = &t["egress_counters"];
        assert!(num(&e["released"]) + num(&e["reorder"]["late_dropped"]) <= num(&e["arrived"]), "{cc}: {e}");
        let paths = t["paths"].as_array().unwrap();
        let drops: f64 = paths.iter().map(|p| num(&p["network_drops"])).sum();
        let lost: f64 = paths.iter().map(|p| num(&p["packets_lost"])).sum();
        assert!(drops > 0.0 && lost > 0.0, "{cc}: the lossy path lost segments and TCP found them: {drops} {lost}");
    }
}

/// Any flow of the scenario may enter a tunnel: a multipath one (MPTCP, multipath QUIC) has one
/// path there, the tunnel's, and its file arrives exactly once.
#[test]
fn mptcp_and_mpquic_flows_cross_a_tunnel_on_one_path() {
    let topo = topology(30.0, 0.5, 5.0).replace("[links.wifi]", "[links.wifi]\nloss = { model = \"bernoulli\", p = 0.005 }");
    for proto in ["mptcp", "mpquic"] {
        let toml = scenario("30s", &topo, &tunnel("ccid5", "cpf", ""), &flow(proto, "{ kind = \"file\", size = \"5MB\" }", true));
        let (sim, s) = run(&toml, None);
        let f = &s["flows"][0];
        assert_eq!(num(&f["bytes_delivered"]), 5e6, "{proto}: {f}");
        assert!(f["completion_time_s"].is_number(), "{proto}: {f}");
        let c = sim.counts;
        assert_eq!(c.created, c.delivered + c.dropped + sim.packets_live() as u64, "{proto}: conservation");
        assert!(num(&tunnel_summary(&s)["egress_counters"]["released"]) > 3000.0, "{proto}: the data crossed the tunnel");
    }
}

#[test]
fn tunnel_runs_are_deterministic() {
    let topo = topology(40.0, 0.3, 10.0);
    let toml = scenario("5s", &topo, &tunnel("ccid5", "cpf", ""), &flow("tcp", "\"bulk\"", true));
    let a = run(&toml, Some(7)).1.to_string();
    let b = run(&toml, Some(7)).1.to_string();
    assert_eq!(a, b);
}

fn refusal(toml: &str) -> String {
    match scenario::load(toml, &[], None) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_tunnels_are_refused_with_the_key_and_the_choices() {
    let topo = topology(40.0, 0.5, 0.0);
    let udp = flow("udp", "{ kind = \"cbr\", rate = \"1Mbps\" }", true);
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", ""), &udp.replace("tunnel = \"mp\"", "tunnel = \"nope\"")));
    assert!(e.contains("flows.dl.tunnel") && e.contains("nope") && e.contains("mp"), "{e}");
    let e = refusal(&scenario(
        "1s",
        &topo,
        &tunnel("ccid2", "cpf", "").replace("[\"proxy\", \"cell\", \"ue\"]", "[\"ap\", \"cell\", \"ue\"]"),
        &udp,
    ));
    assert!(e.contains("tunnels.mp.paths[1]") && e.contains("ingress"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid9", "cpf", ""), &udp));
    assert!(e.contains("tunnels.mp.cc") && e.contains("ccid2") && e.contains("ccid5"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", "reorder = { mode = \"magic\" }"), &udp));
    assert!(e.contains("tunnels.mp.reorder.mode") && e.contains("adaptive") && e.contains("equalize"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", "protocol = \"quic\""), &udp));
    assert!(e.contains("tunnels.mp.protocol") && e.contains("dccp") && e.contains("tcp"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", "protocol = \"tcp\""), &udp));
    assert!(e.contains("tunnels.mp.cc") && e.contains("DCCP") && e.contains("newreno") && !e.contains("ccid5,"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("cubic", "cpf", "protocol = \"tcp\"\noverhead = \"60B\""), &udp));
    assert!(e.contains("tunnels.mp.overhead") && e.contains("dccp"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", "tcp = { sack = false }"), &udp));
    assert!(e.contains("tunnels.mp.tcp") && e.contains("protocol = \"tcp\""), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("bbr", "cpf", "protocol = \"tcp\"\ntcp = { window = 3 }"), &udp));
    assert!(e.contains("tunnels.mp.tcp.window") && e.contains("initial_cwnd"), "{e}");
    let mp = flow("mptcp", "\"bulk\"", true) + "paths = [[\"server\", \"proxy\", \"ap\", \"ue\"]]\n";
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", ""), &mp));
    assert!(e.contains("flows.dl.paths") && e.contains("tunnel"), "{e}");
    let e = refusal(&scenario("1s", &topo, &tunnel("ccid2", "cpf", "buffer = \"2bdp\""), &udp));
    assert!(e.contains("tunnels.mp.buffer"), "{e}");
    let e = refusal(&scenario(
        "1s",
        &topo,
        &tunnel("ccid2", "cpf", ""),
        &flow("tcp", "{ kind = \"file\", size = \"1MB\", rate = \"1Mbps\" }", false),
    ));
    assert!(e.contains("flows.dl.app.rate") && e.contains("udp"), "{e}");
}

#[test]
fn the_default_scheduler_buffer_is_three_times_path_ones_bottleneck_buffer() {
    let topo = topology(40.0, 0.5, 0.0);
    let l = load(&scenario("1s", &topo, &tunnel("ccid2", "cpf", ""), &flow("udp", "\"bulk\"", true)), None);
    // 50 Mbit/s × 100 ms = 625,000 B on the Wi-Fi link; the buffer holds three times that.
    assert_eq!(format!("{:?}", l.spec.tunnels[0].buffer), "Bytes(1875000)");
}

// ----- fuzzed invariants -------------------------------------------------------------------

prop_compose! {
    fn tunnel_case()(
        e2e in 2u32..120, share in 5u32..95, asym in 0u32..30,
        rates in (5u32..80, 5u32..80),
        queue_ms in 5u32..150,
        loss in prop::sample::select(vec![0.0, 0.001, 0.02]),
        cc in prop::sample::select(vec!["ccid2", "ccid5", "newreno", "cubic", "bbr", "bbr2"]),
        sched in prop::sample::select(vec!["cpf", "srtt", "roundrobin", "blest", "otias"]),
        reorder in prop::sample::select(vec!["off", "static", "adaptive", "equalize"]),
        inner in prop::sample::select(vec!["tcp-bulk", "tcp-file", "udp-cbr", "udp-file", "quic-file", "mptcp-file", "mpquic-file"]),
        buffer in 2u32..400,
        tcp_paths in any::<bool>(),
        tcp_cc in prop::sample::select(vec!["newreno", "cubic", "bbr", "bbr2"]),
        tcp_mss in prop::sample::select(vec![0u32, 536, 1000]),
    ) -> String {
        let topo = topology(e2e as f64, share as f64 / 100.0, asym as f64)
            .replacen("rate = \"50Mbps\"", &format!("rate = \"{}Mbps\"", rates.0), 1)
            .replacen("rate = \"50Mbps\"", &format!("rate = \"{}Mbps\"", rates.1), 1)
            .replace("limit = \"100ms\"", &format!("limit = \"{queue_ms}ms\""))
            .replace("[links.cellular]", &format!("[links.cellular]\nloss = {{ model = \"bernoulli\", p = {loss} }}"));
        let mut extra = format!("reorder = {{ mode = \"{reorder}\" }}\nbuffer = \"{buffer}p\"");
        // Reliable TCP paths with the paper's TCP tunnel controllers, records one per segment
        // (the default MSS) or spanning segments.
        let cc = if tcp_paths {
            extra.push_str("\nprotocol = \"tcp\"");
            if tcp_mss > 0 {
                extra.push_str(&format!("\ntcp = {{ mss = \"{tcp_mss}B\" }}"));
            }
            tcp_cc
        } else {
            cc
        };
        let (proto, app) = match inner {
            "tcp-bulk" => ("tcp", "\"bulk\""),
            "tcp-file" => ("tcp", "{ kind = \"file\", size = \"3MB\" }"),
            "udp-cbr" => ("udp", "{ kind = \"cbr\", rate = \"90Mbps\" }"),
            "udp-file" => ("udp", "{ kind = \"file\", size = \"3MB\", rate = \"70Mbps\" }"),
            "mptcp-file" => ("mptcp", "{ kind = \"file\", size = \"3MB\" }"),
            "mpquic-file" => ("mpquic", "{ kind = \"file\", size = \"3MB\" }"),
            _ => ("quic", "{ kind = \"file\", size = \"3MB\" }"),
        };
        scenario("3s", &topo, &tunnel(cc, sched, &extra), &flow(proto, app, true))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random tunnels (DCCP or TCP paths, delays, rates, buffers, loss, controllers, schedulers,
    /// reordering modes, inner protocols): packets are conserved at every step, every live packet is in a link or
    /// held by the tunnel, and the egress releases each inner packet at most once.
    #[test]
    fn random_tunnels_keep_the_invariants(toml in tunnel_case()) {
        let (mut sim, canonical) = common::build(&toml, None);
        let step = sim.duration() / 6;
        for k in 1..=6 {
            sim.advance(step * k);
            let c = sim.counts;
            let live = sim.packets_live() as u64;
            prop_assert_eq!(c.created, c.delivered + c.dropped + live, "conservation\n{}", toml);
            let inside: usize = sim.hops.iter().map(|h| h.packets_inside()).sum();
            prop_assert_eq!(live, (inside + sim.tunnel_packets_held()) as u64, "live packets\n{}", toml);
        }
        let s = sim.summary(&canonical);
        let e = &s["tunnels"][0]["egress_counters"];
        prop_assert!(num(&e["released"]) + num(&e["reorder"]["late_dropped"]) <= num(&e["arrived"]), "{}\n{}", e, toml);
        let f = &s["flows"][0];
        if let Some(size) = s["scenario"]["flows"]["dl"]["app"]["size"].as_str() {
            if f["completion_time_s"].is_number() && f["protocol"] != "udp" {
                prop_assert_eq!(num(&f["bytes_delivered"]), 3e6, "{} {}", size, toml);
            }
        }
    }
}
