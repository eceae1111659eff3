//! `metrics.detail_flows` / `detail_links` / `jitter` change what is measured, never what is
//! simulated: a run measured in full and the same run measured minimally deliver the same bytes
//! and drop the same packets, streamed interval statistics agree with the kept series on the
//! exact fields, and what a run does not ask for is null.

mod common;

use serde_json::Value;

fn groups_with(metrics: &str) -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/groups.toml")).unwrap();
    let text = text.replace("[metrics]\n", &format!("[metrics]\n{metrics}\n"));
    text.replace("duration = \"20s\"", "duration = \"5s\"")
}

fn close(a: &Value, b: &Value) -> bool {
    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

#[test]
fn detail_changes_what_is_measured_not_what_is_simulated() {
    let (_, full) = common::run(&groups_with("detail_flows = \"all\"\ndetail_links = \"all\"\njitter = \"all\""), None);
    let (_, lean) = common::run(&groups_with("detail_flows = \"none\"\ndetail_links = \"none\"\njitter = \"none\""), None);
    assert_eq!(full["engine"]["delivered_data_packets"], lean["engine"]["delivered_data_packets"]);
    assert_eq!(full["engine"]["packets_created"], lean["engine"]["packets_created"]);
    // The lean run traces nothing, so it has no periodic sample events at all.
    assert!(lean["engine"]["events"].as_u64() < full["engine"]["events"].as_u64());
    let (ff, lf) = (full["flows"].as_array().unwrap(), lean["flows"].as_array().unwrap());
    assert_eq!(ff.len(), 55);
    for (a, b) in ff.iter().zip(lf) {
        for k in ["bytes_delivered", "sent_packets", "dropped_packets", "ack_packets_sent", "retransmissions"] {
            assert_eq!(a[k], b[k], "{} {k}", a["name"]);
        }
        for k in ["mean", "std", "min", "max", "count"] {
            assert!(
                close(&a["goodput_mbps"][k], &b["goodput_mbps"][k]),
                "{} goodput {k}: {} vs {}",
                a["name"],
                a["goodput_mbps"][k],
                b["goodput_mbps"][k]
            );
        }
        for k in ["owd_ms", "jitter_ms", "interarrival_ms"] {
            assert!(!a[k].is_null() && b[k].is_null(), "{} {k}", a["name"]);
        }
    }
    for (a, b) in full["links"].as_array().unwrap().iter().zip(lean["links"].as_array().unwrap()) {
        for k in ["bytes", "packets", "queue_drops"] {
            assert_eq!(a[k], b[k], "{} {k}", a["name"]);
        }
        for k in ["mean", "std", "min", "max", "count"] {
            assert!(close(&a["throughput_mbps"][k], &b["throughput_mbps"][k]), "{} throughput {k}", a["name"]);
        }
        assert!(b["jitter_ms"].is_null());
        // Uplink directions carry data packets (the reverse ones only ACKs, which jitter ignores).
        if !a["name"].as_str().unwrap().ends_with(".rev") && a["packets"].as_u64().unwrap() > 1 {
            assert!(!a["jitter_ms"].is_null(), "{}: link jitter was asked for", a["name"]);
        }
    }
}

#[test]
fn undetailed_entries_leave_no_time_series() {
    let (sim, _) = common::run(&groups_with("detail_flows = [\"uploads\"]\ndetail_links = [\"backhaul\"]"), None);
    let ts = sim.timeseries();
    let entities: std::collections::BTreeSet<&str> = ts.entity.iter().map(|s| s.as_str()).collect();
    assert!(entities.contains("uploads#0") && entities.contains("backhaul") && entities.contains("backhaul.rev"));
    assert!(!entities.iter().any(|e| e.starts_with("sensors") || e.starts_with("ue#") || e.starts_with("server")), "{entities:?}");
}

#[test]
fn the_summary_text_and_the_summary_tree_are_the_same_json() {
    let (sim, scenario) = common::run(&groups_with(""), None);
    let text: Value = serde_json::from_str(&sim.run_summary(&scenario).to_json_string()).unwrap();
    assert_eq!(text, sim.summary(&scenario));
}

/// An MPTCP connection the run does not measure in detail keeps no protocol delays (per
/// hand-over, per interval, per path: seed 001's T_i) and no reassembly wait, and simulates
/// the same: bytes, packets, each path's segments and the reassembly counters.
#[test]
fn an_undetailed_mptcp_connection_keeps_no_delays_and_simulates_the_same() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/mptcp-two-paths.toml")).unwrap();
    let text = text.replace("duration = \"20s\"", "duration = \"5s\"");
    let with = |sel: &str| format!("{text}\n[metrics]\ndetail_flows = \"{sel}\"\n");
    let (full_sim, full) = common::run(&with("all"), None);
    let (lean_sim, lean) = common::run(&with("none"), None);
    let sender = |sim: &mptlab_sim::sim::Simulation| match &sim.flows[0].endpoint {
        mptlab_sim::sim::AnyEndpoint::Mptcp(c) => (c.snd.path_delay.placed_chunks(), c.snd.protocol_delay.count()),
        _ => unreachable!("an MPTCP flow"),
    };
    let (placed, handovers) = sender(&full_sim);
    assert!(placed > 0 && handovers > 1000, "a detailed bulk connection has chunks in flight and measured hand-overs");
    assert_eq!(sender(&lean_sim), (0, 0));
    let (a, b) = (&full["flows"][0], &lean["flows"][0]);
    for k in ["bytes_delivered", "sent_packets", "retransmissions"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    let (pa, pb) = (a["paths"].as_array().unwrap(), b["paths"].as_array().unwrap());
    assert_eq!(pa.len(), 2);
    for (x, y) in pa.iter().zip(pb) {
        for k in ["segments_sent", "bytes_sent", "retransmissions", "share", "bytes_received", "final_cwnd_bytes"] {
            assert_eq!(x[k], y[k], "path {} {k}", x["index"]);
        }
    }
    let (ma, mb) = (&a["mptcp"], &b["mptcp"]);
    assert_eq!(ma["reassembly"], mb["reassembly"]);
    assert!(ma["protocol_delay_ms"]["samples"].as_u64().unwrap() > 0);
    assert!(!ma["protocol_delay_ms"]["per_handover"].is_null() && !ma["hol_wait_ms"].is_null());
    assert_eq!(mb["protocol_delay_ms"]["samples"], 0);
    assert!(mb["protocol_delay_ms"]["per_handover"].is_null() && mb["hol_wait_ms"].is_null());
}
