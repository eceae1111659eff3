//! Wi-Fi channels in whole runs (`[wifi.<name>]`, docs/wifi.md): scenario validation, exact
//! idle-channel timing through the simulation, MAC accounting, relaying stations, determinism.
//! The medium's own checks (Bianchi, ns-3, hidden terminals) are in `net/dcf`.

mod common;

use common::*;
use mptlab_sim::scenario;

/// A line of stations 70 m apart with a 100 m range: each hears its neighbours only.
fn line(n: usize, extra: &str, flows: &str) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("\"s{i}\"")).collect();
    let pos: Vec<String> = (0..n).map(|i| format!("[{}.0, 0.0]", 70 * i)).collect();
    format!(
        "[run]\nduration = \"10s\"\nseed = 3\n\n[wifi.air]\nstations = [{}]\npositions = [{}]\nrange = 100.0\n{extra}\n\n{flows}",
        names.join(", "),
        pos.join(", ")
    )
}

fn error(toml: &str) -> String {
    match scenario::load(toml, &[], None) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

const UDP_ONE: &str = "[flows.one]\nfrom = \"s1\"\nto = \"s0\"\nprotocol = \"udp\"\npacket_size = \"1028B\"\n\
                       app = { kind = \"poisson\", rate = \"80kbps\", message_size = \"1000B\", count = 1 }\n";

#[test]
fn bad_channels_are_refused_with_the_key_and_the_choices() {
    let e = error(&line(2, "phy = \"ofdm6\"", UDP_ONE));
    assert!(e.contains("wifi.air.phy") && e.contains("ofdm54") && e.contains("fhss"), "{e}");
    let e = error(&line(2, "", UDP_ONE).replace("[[0.0, 0.0], [70.0, 0.0]]", "[[0.0, 0.0]]"));
    assert!(e.contains("wifi.air.positions") && e.contains("2 stations, 1 positions"), "{e}");
    let e = error(&line(2, "", UDP_ONE).replace("range = 100.0", "range = 0"));
    assert!(e.contains("wifi.air.range"), "{e}");
    let e = error(&format!("[nodes]\nhosts = [\"s0\"]\n\n{}", line(2, "", UDP_ONE)));
    assert!(e.contains("wifi.air.stations[0]") && e.contains("duplicate node name `s0`"), "{e}");
    // s0 and s2 are 140 m apart: no direction between them.
    let path =
        UDP_ONE.replace("from = \"s1\"", "from = \"s2\"").replace("protocol = \"udp\"", "protocol = \"udp\"\npath = [\"s2\", \"s0\"]");
    let e = error(&line(3, "", &path));
    assert!(e.contains("flows.one.path[1]") && e.contains("no link from `s2` to `s0`"), "{e}");
    let ev = format!("{}\n[[events]]\nat = \"1s\"\nlink = \"air:s0>s1\"\naction = \"down\"\n", line(2, "", UDP_ONE));
    let e = error(&ev);
    assert!(e.contains("events[0].link") && e.contains("Wi-Fi direction"), "{e}");
}

#[test]
fn one_frame_on_an_idle_channel_takes_difs_plus_its_air_time() {
    // 1000 B of UDP payload in a 1028 B IPv4 packet: 180 µs at 54 Mbit/s (802.11a, 36 B of MAC
    // header, FCS and LLC/SNAP). Immediate access: DIFS (34 µs) after the frame arrives.
    let (sim, summary) = run(&line(2, "", UDP_ONE), None);
    let f = &summary["flows"][0];
    assert_eq!(f["bytes_delivered"], 1000);
    assert_eq!(f["owd_ms"]["max"].as_f64().unwrap(), 0.214);
    let l = link_index(&sim, "air:s1>s0");
    assert_eq!(summary["links"][l]["mac"]["attempts"], 1);
    assert_eq!(summary["links"][l]["mac"]["retries"], 0);
    assert_eq!(summary["wifi"][0]["stations"][1]["successes"], 1);
}

#[test]
fn stations_relay_and_the_mac_counts_add_up() {
    let flows = "[flows.up]\nfrom = \"s3\"\nto = \"s0\"\nprotocol = \"tcp\"\napp = { kind = \"file\", size = \"2MB\" }\n\n\
                 [flows.down]\nfrom = \"s0\"\nto = \"s2\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"2Mbps\" }\n";
    let (sim, summary) = run(&line(4, "", flows), None);
    let up = &summary["flows"][flow_index(&sim, "up")];
    assert_eq!(up["bytes_delivered"], 2_000_000, "the file crosses three hops");
    assert!(up["completion_time_s"].as_f64().unwrap() < 10.0);
    let w = &summary["wifi"][0];
    let stations = w["stations"].as_array().unwrap();
    let links = summary["links"].as_array().unwrap();
    // A station's frames end acknowledged or dropped, or wait; its directions saw each frame
    // leave once: delivered (the receiver decoded it) or dropped. A frame the receiver decoded
    // whose ACKs were all lost counts as delivered on the direction and as a retry drop at the
    // station, and the attempts after its delivery only at the station.
    for (i, st) in stations.iter().enumerate() {
        let name = format!("s{i}");
        let n = |k: &str| st[k].as_u64().unwrap();
        let of = |k: &str| -> u64 { links.iter().filter(|l| l["from"] == name.as_str()).map(|l| l["mac"][k].as_u64().unwrap()).sum() };
        let left: u64 = links.iter().filter(|l| l["from"] == name.as_str()).map(|l| l["packets"].as_u64().unwrap()).sum();
        assert_eq!(n("frames"), n("successes") + n("retry_drops") + n("queued"), "{name}");
        assert_eq!(n("frames"), left + n("queued"), "{name}");
        assert!(n("attempts") >= of("attempts") && n("retry_drops") >= of("retry_drops"), "{name}");
        assert_eq!(n("attempts"), n("successes") + n("failures"), "{name}");
    }
    // The channel's interval series count every frame that left a MAC, and every retry drop.
    let ts = sim.timeseries();
    let total = |name: &str| -> f64 { ts.series.iter().zip(&ts.value).filter(|(s, _)| **s == name).map(|(_, v)| v).sum() };
    let left: u64 = links.iter().map(|l| l["packets"].as_u64().unwrap()).sum();
    let dropped: u64 = links.iter().map(|l| l["mac"]["retry_drops"].as_u64().unwrap()).sum();
    assert_eq!((total("wifi_frames") as u64, total("wifi_drops") as u64), (left, dropped));
    // The DC end (s0) returned the TCP ACKs over the reverse route.
    assert!(stations[0]["frames"].as_u64().unwrap() > 500, "{}", stations[0]);
    // Directions come in opposite pairs, as duplex links (the reverse of route hop e is e ^ 1).
    for (i, l) in sim.spec.links.iter().enumerate() {
        let r = &sim.spec.links[i ^ 1];
        assert_eq!((l.from, l.to), (r.to, r.from), "{} vs {}", l.name, r.name);
    }
    // The relays (s1, s2) sent frames they did not originate.
    assert!(stations[1]["frames"].as_u64().unwrap() > 1000 && stations[2]["frames"].as_u64().unwrap() > 1000);
    assert!(w["attempts"].as_u64().unwrap() > w["stations"][3]["attempts"].as_u64().unwrap());
    assert_eq!(sim.counts.created, sim.counts.delivered + sim.counts.dropped + sim.packets_live() as u64);
}

#[test]
fn same_seed_same_summary_other_seed_other_backoffs() {
    let flows = "[flows.a]\nfrom = \"s2\"\nto = \"s0\"\nprotocol = \"tcp\"\napp = \"bulk\"\n\n\
                 [flows.b]\nfrom = \"s1\"\nto = \"s2\"\nprotocol = \"udp\"\napp = { kind = \"poisson\", rate = \"3Mbps\" }\n";
    let toml = line(3, "", flows);
    let (_, a) = run(&toml, None);
    let (_, b) = run(&toml, None);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    let (_, c) = run(&toml, Some(4));
    assert_ne!(a["wifi"][0]["attempts"], c["wifi"][0]["attempts"]);
}

#[test]
fn a_station_queue_limit_drops_at_the_tail() {
    let flows = "[flows.flood]\nfrom = \"s0\"\nto = \"s1\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"60Mbps\" }\n";
    let (sim, summary) = run(&line(2, "queue_limit = 10", flows), None);
    let l = link_index(&sim, "air:s0>s1");
    let link = &summary["links"][l];
    assert!(link["queue_drops"].as_u64().unwrap() > 1000, "{link}");
    assert!(summary["wifi"][0]["stations"][0]["queued"].as_u64().unwrap() <= 10);
    // Saturated, one station alone: 1028 B packets every 34 + 7.5·9 (mean backoff) + 180 + 16 + 28 µs.
    let mbps = link["throughput_mbps"]["mean"].as_f64().unwrap();
    assert!((25.0..33.0).contains(&mbps), "{mbps}");
}

/// Two UDP floods into the middle station of a 70 m line: with a 100 m range the ends are hidden
/// from each other, with 200 m all three share one collision domain.
fn into_the_middle(range: &str, extra: &str) -> serde_json::Value {
    let flows = "[flows.left]\nfrom = \"s0\"\nto = \"s1\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"20Mbps\" }\n\n\
                 [flows.right]\nfrom = \"s2\"\nto = \"s1\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"20Mbps\" }\n";
    let toml = line(3, extra, flows).replace("range = 100.0", range).replace("duration = \"10s\"", "duration = \"3s\"");
    run(&toml, None).1
}

fn delivered_mb(summary: &serde_json::Value) -> f64 {
    summary["flows"].as_array().unwrap().iter().map(|f| f["bytes_delivered"].as_f64().unwrap()).sum::<f64>() / 1e6
}

#[test]
fn hidden_terminals_collide_more_than_stations_in_range() {
    let in_range = into_the_middle("range = 200.0", "queue_limit = 50");
    let hidden = into_the_middle("range = 100.0", "queue_limit = 50");
    let p = |s: &serde_json::Value| s["wifi"][0]["collision_probability"].as_f64().unwrap();
    assert!(p(&hidden) > 2.0 * p(&in_range), "p hidden {} vs in range {}", p(&hidden), p(&in_range));
    assert!(delivered_mb(&hidden) < 0.9 * delivered_mb(&in_range), "{} vs {} MB", delivered_mb(&hidden), delivered_mb(&in_range));
    // RTS/CTS: the receiver's CTS silences the hidden sender; collisions fall back.
    let rts = into_the_middle("range = 100.0", "queue_limit = 50\nrts_cts = true");
    assert!(p(&rts) < p(&hidden), "p with RTS/CTS {} vs basic {}", p(&rts), p(&hidden));
}

#[test]
fn pairs_out_of_range_reuse_the_channel() {
    // s0 → s1 and s2 → s3, the pairs 500 m apart: each gets what it gets alone.
    let flows = |both: bool| {
        let mut f =
            String::from("[flows.a]\nfrom = \"s0\"\nto = \"s1\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"40Mbps\" }\n");
        if both {
            f.push_str("\n[flows.b]\nfrom = \"s2\"\nto = \"s3\"\nprotocol = \"udp\"\napp = { kind = \"cbr\", rate = \"40Mbps\" }\n");
        }
        f
    };
    let toml = |both: bool| {
        format!(
            "[run]\nduration = \"2s\"\nseed = 3\n\n[wifi.air]\nstations = [\"s0\", \"s1\", \"s2\", \"s3\"]\n\
             positions = [[0.0, 0.0], [50.0, 0.0], [500.0, 0.0], [550.0, 0.0]]\nrange = 100.0\nqueue_limit = 20\n\n{}",
            flows(both)
        )
    };
    let (_, alone) = run(&toml(false), None);
    let (_, both) = run(&toml(true), None);
    let a = alone["flows"][0]["bytes_delivered"].as_u64().unwrap();
    assert_eq!(both["flows"][0]["bytes_delivered"].as_u64().unwrap(), a, "pair a unaffected by pair b");
    assert!(both["flows"][1]["bytes_delivered"].as_u64().unwrap() > a * 9 / 10);
    assert_eq!(both["wifi"][0]["collision_probability"], 0.0);
}

#[test]
fn mptcp_paths_over_wifi_get_the_idle_channel_rtt_model() {
    use mptlab_sim::spec::TransportSpec;
    // 1000 B segments: 1000 + 40 B TCP/IPv4 + 28 B DSS = 1068 B, + 36 B of MAC framing at
    // 54 Mbit/s: 20 µs + 4 µs · ⌈(16 + 8·1104 + 6)/216⌉ = 184 µs. A pure ACK (40 + 12 B DSS):
    // 20 + 4·⌈(22 + 8·88)/216⌉ = 36 µs. Per hop (eq. (6)): DIFS 34 + frame + SIFS 16 + MAC ACK 28.
    let flows = "[flows.mp]\nfrom = \"s2\"\nto = \"s0\"\nprotocol = \"mptcp\"\ncc = \"newreno5\"\nscheduler = \"lossaware\"\n\
                 paths = [[\"s2\", \"s1\", \"s0\"]]\ntcp = { mss = \"1000B\" }\n\
                 app = { kind = \"poisson\", rate = \"80kbps\", message_size = \"1000B\", count = 100 }\n";
    let loaded = common::load(&line(3, "", flows), None);
    let TransportSpec::Mptcp(m) = &loaded.spec.flows[0].transport else { panic!("an mptcp flow") };
    let us = 1_000;
    let pm = m.path_models[0];
    assert_eq!(pm.dtt, 2 * (34 + 184 + 16 + 28) * us);
    assert_eq!(pm.att, 2 * (34 + 36 + 16 + 28) * us);
    assert_eq!(pm.per_frame, (16 + 184) * us);
    assert_eq!(pm.ack_dc, 36 * us);
    assert_eq!(pm.hops, 2);
    // The run: P-MPTCP delivers every message.
    let (_, summary) = run(&line(3, "", flows), None);
    assert_eq!(summary["flows"][0]["bytes_delivered"], 100_000);
}

/// The paper's idle-channel RTTs (seed 004 Sec. III; study notes §4.1): one 1000 B TCP segment
/// (1040 B packet, 180 µs at 54 Mbit/s) and its ACK (40 B, 32 µs) with immediate access on every
/// hop give RTT_{1-h} = h · (2·DIFS + 2·SIFS + 2·MAC ACK + T_data + T_ack) = h · 368 µs. Two
/// differences, both the standard's: the TCP sender has the ACK when its MAC has decoded the
/// frame, before the last SIFS + MAC ACK (44 µs) that the paper's sum includes; and a station
/// handed a frame just before the medium turns busy (the receiver answering, or a relay
/// forwarding, right before the MAC ACK of the frame it received) backs off instead of
/// accessing at once. The simulated RTT is the paper's − 44 µs + whole slots (9 µs), at most
/// CWmin = 15 per backoff.
#[test]
fn idle_channel_rtts_are_the_papers_plus_whole_backoff_slots() {
    let us = 1_000;
    for hops in [1usize, 2] {
        let flows = format!(
            "[flows.one]\nfrom = \"s{hops}\"\nto = \"s0\"\nprotocol = \"tcp\"\n\
             tcp = {{ mss = \"1000B\", handshake = false, delayed_ack = {{ enabled = false }} }}\n\
             app = {{ kind = \"poisson\", rate = \"80kbps\", message_size = \"1000B\", count = 1 }}\n"
        );
        let (sim, summary) = run(&line(hops + 1, "", &flows), None);
        assert_eq!(summary["flows"][0]["bytes_delivered"], 1000);
        // The data frame: DIFS + 180 µs per hop, plus the relay's backoff.
        let owd = (summary["flows"][0]["owd_ms"]["max"].as_f64().unwrap() * 1e6).round() as u64;
        let (snd, _) = tcp(&sim, 0);
        let rtt = snd.rtt().latest();
        let paper = hops as u64 * 368 * us - 44 * us;
        let backoffs = 2 * hops as u64 - 1; // the receiver's ACK, and each relay both ways
        assert!(rtt >= paper && (rtt - paper).is_multiple_of(9 * us), "{hops} hops: RTT {rtt} ns vs {paper} + 9 µs slots");
        assert!(rtt - paper <= backoffs * 15 * 9 * us, "{hops} hops: RTT {rtt} ns");
        let data = hops as u64 * (34 + 180) * us + (hops as u64 - 1) * (16 + 28) * us;
        assert!(owd >= data && (owd - data).is_multiple_of(9 * us), "{hops} hops: one-way {owd} ns vs {data}");
        if hops == 1 {
            assert_eq!(owd, data, "one hop: immediate access, no backoff");
        }
    }
}
