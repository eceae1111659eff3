//! Flow entries over host groups, as seed 000's 12,000 devices need them: explicit multipath
//! `paths` that name the group (member-relative), seeded per-member start offsets
//! (`start_spread`), and the default write size of a QUIC application (one packet's STREAM
//! bytes).

use super::{assert_err, err_with};
use crate::scenario::load;
use crate::spec::{AppSpec, TransportSpec};
use crate::transport::quic::QuicConfig;

/// Ten devices behind router `iab`, two backhauls to routers d1/d2, one dual-homed server.
const DEVICES: &str = r#"
[run]
duration = "10s"

[nodes]
hosts = ["server"]
routers = ["iab", "d1", "d2"]

[groups.ues]
count = 10
link = { to = "iab", rate = "1Gbps", delay = "100us" }

[links.tn1]
between = ["iab", "d1"]
rate = "500Mbps"
delay = "8ms"

[links.tn2]
between = ["iab", "d2"]
rate = "400Mbps"
delay = "10ms"

[links.s1]
between = ["d1", "server"]
rate = "10Gbps"
delay = "100us"

[links.s2]
between = ["d2", "server"]
rate = "10Gbps"
delay = "100us"

[flows.mp]
from = "ues"
to = "server"
protocol = "mptcp"
app = { kind = "cbr", rate = "1Mbps" }
"#;

fn load_with(extra: &str, overrides: &[(&str, &str)], seed: Option<u64>) -> crate::scenario::Loaded {
    let sets: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load(&format!("{DEVICES}{extra}"), &sets, seed).unwrap_or_else(|e| panic!("expected success, got {e}"))
}

fn link_names(spec: &crate::spec::RunSpec, route: &[u32]) -> Vec<String> {
    route.iter().map(|&l| spec.links[l as usize].name.clone()).collect()
}

#[test]
fn group_paths_are_member_relative() {
    // Only TN2 listed: every member gets exactly that one path, through its own access link.
    let l = load_with("paths = [[\"ues\", \"iab\", \"d2\", \"server\"]]\n", &[], None);
    assert_eq!(l.spec.flows.len(), 10);
    for (i, f) in l.spec.flows.iter().enumerate() {
        let TransportSpec::Mptcp(m) = &f.transport else { panic!("mptcp expected") };
        assert_eq!(m.paths.len(), 1);
        assert_eq!(link_names(&l.spec, &m.paths[0].fwd_route), [format!("ues#{i}"), "tn2".into(), "s2".into()]);
    }
    // Both backhauls, in the order listed (TN2 first), for mpquic too.
    let both = "paths = [[\"ues\", \"iab\", \"d2\", \"server\"], [\"ues\", \"iab\", \"d1\", \"server\"]]\n";
    let l = load_with(both, &[("flows.mp.protocol", "\"mpquic\"")], None);
    let TransportSpec::Quic(q) = &l.spec.flows[7].transport else { panic!("quic expected") };
    let routes: Vec<_> = q.paths.iter().map(|p| link_names(&l.spec, &p.fwd_route)).collect();
    assert_eq!(routes, [["ues#7", "tn2", "s2"], ["ues#7", "tn1", "s1"]]);
}

#[test]
fn group_paths_name_the_group_or_the_member() {
    let e = err_with(&format!("{DEVICES}paths = [[\"other\", \"iab\", \"d1\", \"server\"]]\n"), &[]);
    assert_err(&e, "flows.mp.paths[0][0]", "must start at `from` (`ues`)");
    let e = err_with(&format!("{DEVICES}paths = [[\"ues\", \"iab\", \"d1\", \"d2\"]]\n"), &[]);
    assert_err(&e, "flows.mp.paths[0][3]", "must end at `to` (`server`)");
}

#[test]
fn start_spread_gives_each_member_a_seeded_offset() {
    let starts = |seed| -> Vec<u64> {
        load_with("start = \"2s\"\nstart_spread = \"1s\"\n", &[], Some(seed)).spec.flows.iter().map(|f| f.start).collect()
    };
    let a = starts(1);
    assert!(a.iter().all(|&t| (2_000_000_000..3_000_000_000).contains(&t)), "{a:?}");
    let mut distinct = a.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), a.len(), "every member draws its own offset");
    assert_eq!(a, starts(1), "same seed, same offsets");
    assert_ne!(a, starts(2), "another seed, other offsets");
    // Without a spread every member starts at `start`.
    let l = load_with("start = \"2s\"\n", &[], None);
    assert!(l.spec.flows.iter().all(|f| f.start == 2_000_000_000));
    // The canonical form keeps the key (it changes the run), and only when set.
    assert_eq!(load_with("start_spread = \"1s\"\n", &[], None).canonical["flows"]["mp"]["start_spread"], "1s");
    assert!(load_with("", &[], None).canonical["flows"]["mp"].get("start_spread").is_none());
}

#[test]
fn start_spread_must_leave_room_to_run() {
    let e = err_with(&format!("{DEVICES}start = \"9s\"\nstart_spread = \"2s\"\n"), &[]);
    assert_err(&e, "flows.mp.start_spread", "must not pass the end of the run");
    let e = err_with(&format!("{DEVICES}start_spread = \"3s\"\nstop = \"2s\"\n"), &[]);
    assert_err(&e, "flows.mp.start_spread", "must be before stop");
}

#[test]
fn quic_cbr_writes_default_to_one_packet() {
    let l = load_with("", &[("flows.mp.protocol", "\"mpquic\"")], None);
    let AppSpec::Cbr { write_size, .. } = l.spec.flows[0].app else { panic!("cbr expected") };
    // 1472 B UDP payload - 16 B AEAD tag - (1 + 8 + 4) B short header - (1 + 1 + 8 + 2) B STREAM.
    assert_eq!(write_size, 1431);
    assert_eq!(write_size, QuicConfig::default().one_packet_stream_bytes());
    let l = load_with("", &[("flows.mp.protocol", "\"mpquic\""), ("flows.mp.quic.max_udp_payload", "\"1252B\"")], None);
    let AppSpec::Cbr { write_size, .. } = l.spec.flows[0].app else { panic!("cbr expected") };
    assert_eq!(write_size, 1211);
}
