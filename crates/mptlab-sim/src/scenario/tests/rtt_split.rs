//! `[rtt_split]`: delays derived from (E2E RTT, tunnel share, asymmetry), seed 003's axes.

use super::load;

const TOPO: &str = r#"
[run]
duration = "1s"

[nodes]
hosts = ["server", "ue"]
routers = ["proxy", "ap", "cell"]

[links.wan]
between = ["server", "proxy"]
rate = "1Gbps"
delay = "0ms"

[links.proxy_ap]
between = ["proxy", "ap"]
rate = "1Gbps"
delay = "0ms"

[links.proxy_cell]
between = ["proxy", "cell"]
rate = "1Gbps"
delay = "0ms"

[links.wifi]
between = ["ap", "ue"]
rate = "50Mbps"
delay = "0ms"

[links.cellular]
between = ["cell", "ue"]
rate = "50Mbps"
delay = "0ms"

[flows.dl]
from = "server"
to = "ue"
path = ["server", "proxy", "ap", "ue"]
"#;

fn delays(extra: &str) -> Vec<(String, u64)> {
    let l = load(&format!("{TOPO}\n{extra}"), &[], None).unwrap_or_else(|e| panic!("{e}"));
    l.spec.links.iter().map(|d| (d.name.clone(), d.delay)).collect()
}

fn delay(d: &[(String, u64)], name: &str) -> u64 {
    d.iter().find(|(n, _)| n == name).unwrap().1
}

#[test]
fn delays_split_the_rtt_by_share_with_the_asymmetry_on_later_paths() {
    let d = delays(
        r#"[rtt_split]
e2e_rtt = "40ms"
tunnel_share = 0.25
asymmetry = "20ms"
server_links = ["wan"]
tunnel_links = [["proxy_ap", "wifi"], ["proxy_cell", "cellular"]]"#,
    );
    const MS: u64 = 1_000_000;
    // Server side: 0.75 · 40 / 2 = 15 ms one way; tunnel path 0: 0.25 · 40 / 2 = 5 ms over two
    // links; path 1: (10 + 20) / 2 = 15 ms over two links. Both directions.
    assert_eq!(delay(&d, "wan"), 15 * MS);
    assert_eq!(delay(&d, "wan.rev"), 15 * MS);
    assert_eq!(delay(&d, "proxy_ap") + delay(&d, "wifi"), 5 * MS);
    assert_eq!(delay(&d, "proxy_ap"), 2_500_000);
    assert_eq!(delay(&d, "proxy_cell") + delay(&d, "cellular.rev"), 15 * MS);
    // The path's round trip is the E2E RTT.
    let e2e = 2 * (delay(&d, "wan") + delay(&d, "proxy_ap") + delay(&d, "wifi"));
    assert_eq!(e2e, 40 * MS);
}

#[test]
fn odd_nanoseconds_go_to_the_first_link_and_the_total_is_exact() {
    let d = delays(
        r#"[rtt_split]
e2e_rtt = "1ms"
tunnel_share = 0.333
tunnel_links = [["proxy_ap", "wifi"]]"#,
    );
    assert_eq!(delay(&d, "proxy_ap") + delay(&d, "wifi"), 166_500);
    assert_eq!(delay(&d, "wan"), 0, "no server_links: the server side keeps its own delay");
}

#[test]
fn bad_splits_name_the_key() {
    let bad = |extra: &str, key: &str, word: &str| {
        let e = load(&format!("{TOPO}\n{extra}"), &[], None).expect_err("refused");
        assert_eq!(e.key, key, "{e}");
        assert!(e.to_string().contains(word), "{e}");
    };
    bad("[rtt_split]\ne2e_rtt = \"40ms\"\ntunnel_share = 1.5\ntunnel_links = [[\"wifi\"]]", "rtt_split.tunnel_share", "1");
    bad("[rtt_split]\ne2e_rtt = \"40ms\"\ntunnel_share = 0.5\ntunnel_links = [[\"nope\"]]", "rtt_split.tunnel_links[0][0]", "unknown link");
    bad(
        "[rtt_split]\ne2e_rtt = \"40ms\"\ntunnel_share = 0.5\nserver_links = [\"wifi\"]\ntunnel_links = [[\"wifi\"]]",
        "rtt_split.tunnel_links[0][0]",
        "twice",
    );
    bad("[rtt_split]\ne2e_rtt = \"40ms\"\ntunnel_share = 0.5\ntunnel_links = []", "rtt_split.tunnel_links", "at least one");
}
