//! Shortcuts of the MPTCP sender against the full path they skip: the same run, summary for
//! summary, with the shortcuts on and off (`NO_SHORTCUT`: every offer made, the `default`
//! scheduler asked through the multipath core with every path's pacing rate computed).

use super::sender::{BLOCKED_SKIPS, NO_SHORTCUT};

/// W5 in small: MPTCP devices writing 100 B every 8 ms over two backhauls they overload
/// (4 Mbit/s offered, 3.5 Mbit/s of capacity), so that writers find their subflows' send
/// buffers full, and some subflows lose packets and reinject.
const MANY_SMALL_WRITERS: &str = r#"
[run]
duration = "4s"
seed = 3

[nodes]
hosts = ["server"]
routers = ["iab", "d1", "d2"]

[groups.ue]
count = 40
link = { to = "iab", rate = "1Gbps", delay = "100us" }

[links.tn1]
between = ["iab", "d1"]
rate = "2Mbps"
delay = "8ms"
queue = { kind = "droptail", limit = "60p" }

[links.tn2]
between = ["iab", "d2"]
rate = "1.5Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "60p" }

[links.s1]
between = ["d1", "server"]
rate = "1Gbps"
delay = "100us"

[links.s2]
between = ["d2", "server"]
rate = "1Gbps"
delay = "100us"

[flows.mptcp]
from = "ue"
to = "server"
protocol = "mptcp"
cc = "cubic"
app = { kind = "cbr", rate = "100kbps", write_size = "100B" }
tcp = { mss = "100B" }
"#;

fn run(scenario: &str, no_shortcut: bool) -> (String, u64) {
    NO_SHORTCUT.with(|c| c.set(no_shortcut));
    BLOCKED_SKIPS.with(|c| c.set(0));
    let loaded = crate::scenario::load(scenario, &[], None).expect("a valid scenario");
    let mut sim = crate::sim::Simulation::new(loaded.spec);
    sim.run_to_end();
    let mut summary = serde_json::to_value(sim.summary(&loaded.canonical)).expect("a summary");
    summary.as_object_mut().expect("an object").retain(|k, _| !k.contains("wall") && k != "build_s");
    NO_SHORTCUT.with(|c| c.set(false));
    (summary.to_string(), BLOCKED_SKIPS.with(|c| c.get()))
}

fn same_with_and_without_shortcuts(scenario: &str, min_skips: u64) {
    let (full, skipped_full) = run(scenario, true);
    let (short, skipped) = run(scenario, false);
    assert_eq!(skipped_full, 0);
    assert!(skipped > min_skips, "the blocked shortcut was taken only {skipped} times");
    assert!(full.len() > 10_000 && full.contains("\"mptcp\""), "a summary of the run");
    assert!(full == short, "the runs differ");
}

#[test]
fn writes_to_blocked_subflows_skip_the_offer_and_change_nothing() {
    same_with_and_without_shortcuts(MANY_SMALL_WRITERS, 5_000);
}

/// The same with path 2 a backup (RFC 8684 §3.3.8), and path 1's backhaul down for a second:
/// retransmission timeouts, potentially failed subflows, reinjection (about 200 chunks), the
/// backup path used.
#[test]
fn shortcuts_change_nothing_with_a_backup_path_and_an_outage() {
    let extra = r#"mptcp = { backup = [false, true] }

[[events]]
at = "1s"
link = "tn1"
action = "down"

[[events]]
at = "2s"
link = "tn1"
action = "up"
"#;
    let scenario = format!("{MANY_SMALL_WRITERS}{extra}");
    same_with_and_without_shortcuts(&scenario, 1_000);
}
