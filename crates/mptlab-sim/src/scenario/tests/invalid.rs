//! Invalid scenarios: each names the exact key, a word of the reason and, where the valid values
//! form a finite set, the choices.

use super::{assert_err, err_with, BASE};

/// `BASE` with overrides must fail at `key` with `word` in the reason.
#[track_caller]
fn bad(overrides: &[(&str, &str)], key: &str, word: &str) -> super::ScenarioError {
    let e = err_with(BASE, overrides);
    assert_err(&e, key, word);
    e
}

#[test]
fn unknown_top_level_key_lists_the_sections() {
    let e = err_with(&format!("{BASE}\n[bogus]\nx = 1\n"), &[]);
    assert_err(&e, "bogus", "unknown key");
    assert_eq!(e.choices, ["events", "flows", "groups", "links", "metrics", "nodes", "rtt_split", "run", "tunnels", "wifi"]);
}

#[test]
fn unknown_nested_key_lists_the_keys_of_its_table() {
    let e = bad(&[("links.bottleneck.rat", "\"1Mbps\"")], "links.bottleneck.rat", "unknown key");
    assert!(e.choices.contains(&"rate".to_string()));
    bad(&[("flows.bulk.tcp.delayed_ack.evry", "3")], "flows.bulk.tcp.delayed_ack.evry", "unknown key");
}

#[test]
fn override_of_unknown_key_is_rejected() {
    let e = bad(&[("flows.bulk.ccc", "cubic")], "flows.bulk.ccc", "unknown key");
    assert!(e.choices.contains(&"cc".to_string()));
    bad(&[("run.duration.x", "1")], "run.duration.x", "not a table");
    bad(&[("flows..cc", "reno")], "flows..cc", "dotted");
}

#[test]
fn bad_rate_unit_lists_rate_units() {
    let e = bad(&[("links.bottleneck.rate", "100Mbit")], "links.bottleneck.rate", "unit");
    assert!(e.choices.contains(&"Mbps".to_string()));
}

#[test]
fn rate_without_unit_string_is_rejected() {
    bad(&[("links.bottleneck.rate", "100")], "links.bottleneck.rate", "unit");
    bad(&[("links.bottleneck.rate", "\"100\"")], "links.bottleneck.rate", "missing a unit");
}

#[test]
fn zero_and_negative_rates_are_rejected() {
    bad(&[("links.bottleneck.rate", "0Mbps")], "links.bottleneck.rate", "> 0");
    bad(&[("links.bottleneck.rate", "-5Mbps")], "links.bottleneck.rate", "negative");
}

#[test]
fn zero_and_negative_durations_are_rejected() {
    bad(&[("run.duration", "0s")], "run.duration", "> 0");
    bad(&[("run.duration", "-1s")], "run.duration", "negative");
}

#[test]
fn missing_duration_is_reported_at_its_key() {
    let text = BASE.replace("duration = \"10s\"", "");
    assert_err(&err_with(&text, &[]), "run.duration", "missing");
}

#[test]
fn fractional_nanoseconds_are_rejected() {
    bad(&[("links.a.delay", "1.5ns")], "links.a.delay", "whole");
}

#[test]
fn unknown_cc_lists_the_registry() {
    let e = bad(&[("flows.bulk.cc", "cubicc")], "flows.bulk.cc", "unknown congestion controller");
    assert!(e.choices.contains(&"newreno".to_string()));
}

#[test]
fn cc_on_udp_flow_is_rejected() {
    bad(&[("flows.cross.cc", "newreno")], "flows.cross.cc", "only for tcp");
}

#[test]
fn tcp_options_on_udp_flow_are_rejected() {
    bad(&[("flows.cross.tcp.mss", "1000B")], "flows.cross.tcp", "only for tcp");
}

#[test]
fn packet_size_on_tcp_flow_is_rejected() {
    bad(&[("flows.bulk.packet_size", "1000B")], "flows.bulk.packet_size", "udp");
}

#[test]
fn unknown_protocol_lists_protocols() {
    let e = bad(&[("flows.bulk.protocol", "sctp")], "flows.bulk.protocol", "unknown protocol");
    assert_eq!(e.choices, ["tcp", "udp", "mptcp", "quic", "mpquic"]);
}

#[test]
fn unknown_node_in_link_lists_nodes() {
    let e = bad(&[("links.b.between", "[\"r2\", \"d9\"]")], "links.b.between[1]", "unknown node");
    assert_eq!(e.choices, ["s1", "d1", "r1", "r2"]);
}

#[test]
fn link_needs_exactly_two_different_nodes() {
    bad(&[("links.b.between", "[\"r2\"]")], "links.b.between", "exactly 2");
    bad(&[("links.b.between", "[\"r2\", \"r2\"]")], "links.b.between", "two different");
}

#[test]
fn disconnected_destination_has_no_route() {
    bad(&[("nodes.hosts", "[\"s1\", \"d1\", \"x\"]"), ("flows.bulk.to", "x")], "flows.bulk.to", "no route");
}

#[test]
fn hosts_do_not_forward() {
    // d1 is only reachable through the host x: no route.
    bad(
        &[
            ("nodes.hosts", "[\"s1\", \"d1\", \"x\"]"),
            ("links.b.between", "[\"r2\", \"x\"]"),
            ("links.c", "{ between = [\"x\", \"d1\"], rate = \"1Gbps\", delay = \"1ms\" }"),
        ],
        "flows.bulk.to",
        "no route",
    );
}

#[test]
fn bad_path_hop_names_its_position() {
    bad(&[("flows.bulk.path", "[\"s1\", \"r2\", \"d1\"]")], "flows.bulk.path[1]", "no link");
    bad(&[("flows.bulk.path", "[\"s1\", \"r1\", \"r9\", \"d1\"]")], "flows.bulk.path[2]", "unknown node");
    bad(&[("flows.bulk.path", "[\"d1\", \"r1\", \"r2\", \"d1\"]")], "flows.bulk.path[0]", "start");
    bad(&[("flows.bulk.path", "[\"s1\", \"r1\", \"r2\", \"r1\", \"d1\"]")], "flows.bulk.path[3]", "twice");
    bad(&[("flows.bulk.path", "[\"s1\"]")], "flows.bulk.path", "at least two");
}

#[test]
fn duplicate_host_name_is_rejected() {
    bad(&[("nodes.hosts", "[\"s1\", \"d1\", \"s1\"]")], "nodes.hosts[2]", "duplicate");
    bad(&[("nodes.routers", "[\"r1\", \"d1\"]")], "nodes.routers[1]", "duplicate");
}

#[test]
fn group_name_clashing_with_host_is_rejected() {
    bad(&[("groups.s1.count", "2")], "groups.s1", "duplicate");
}

#[test]
fn invalid_names_are_rejected() {
    bad(&[("nodes.hosts", "[\"s1\", \"d1\", \"a.b\"]")], "nodes.hosts[2]", "invalid name");
    bad(&[("nodes.hosts", "[\"s1\", \"d1\", \"a#1\"]")], "nodes.hosts[2]", "invalid name");
}

#[test]
fn zero_counts_are_rejected() {
    bad(&[("groups.ue.count", "0")], "groups.ue.count", "at least 1");
    bad(&[("flows.bulk.count", "0")], "flows.bulk.count", "at least 1");
    bad(&[("flows.bulk.count", "1.5")], "flows.bulk.count", "integer");
}

#[test]
fn group_access_link_to_unknown_node_is_rejected() {
    let e = bad(
        &[("groups.ue.count", "2"), ("groups.ue.link", "{ to = \"gnb\", rate = \"1Mbps\", delay = \"1ms\" }")],
        "groups.ue.link.to",
        "unknown node",
    );
    assert!(e.choices.contains(&"r1".to_string()));
}

#[test]
fn loss_probabilities_are_checked() {
    bad(&[("links.bottleneck.loss", "{ model = \"bernoulli\", p = 1.0 }")], "links.bottleneck.loss.p", "probability");
    bad(&[("links.bottleneck.loss", "{ model = \"bernoulli\" }")], "links.bottleneck.loss.p", "missing");
    bad(
        &[("links.bottleneck.loss", "{ model = \"gilbert_elliott\", p_good_to_bad = 0.1, p_bad_to_good = 1.5 }")],
        "links.bottleneck.loss.p_bad_to_good",
        "probability",
    );
    let e = bad(&[("links.bottleneck.loss", "{ model = \"burst\" }")], "links.bottleneck.loss.model", "unknown model");
    assert_eq!(e.choices, ["none", "bernoulli", "gilbert_elliott"]);
}

#[test]
fn bad_queue_kind_lists_kinds() {
    let e = bad(&[("links.bottleneck.queue", "{ kind = \"pie\" }")], "links.bottleneck.queue.kind", "unknown kind");
    assert_eq!(e.choices, ["droptail", "codel", "red"]);
    bad(&[("links.bottleneck.queue", "fifo")], "links.bottleneck.queue", "unknown kind");
}

#[test]
fn queue_key_of_another_kind_is_rejected() {
    let e =
        bad(&[("links.bottleneck.queue", "{ kind = \"droptail\", target = \"5ms\" }")], "links.bottleneck.queue.target", "kind `droptail`");
    assert_eq!(e.choices, ["kind", "limit"]);
}

#[test]
fn bad_limit_unit_lists_limit_units() {
    let e = bad(&[("links.bottleneck.queue.limit", "10furlongs")], "links.bottleneck.queue.limit", "unit");
    assert!(e.choices.contains(&"bdp".to_string()) && e.choices.contains(&"p".to_string()));
    bad(&[("links.bottleneck.queue.limit", "0bdp")], "links.bottleneck.queue.limit", "> 0");
    bad(&[("links.bottleneck.reverse.queue.limit", "2.5p")], "links.bottleneck.reverse.queue.limit", "whole");
}

#[test]
fn stop_must_follow_start() {
    bad(&[("flows.bulk.start", "5s"), ("flows.bulk.stop", "5s")], "flows.bulk.stop", "after");
}

#[test]
fn start_must_be_before_the_end_of_the_run() {
    bad(&[("flows.bulk.start", "10s")], "flows.bulk.start", "before");
}

#[test]
fn unknown_app_kind_lists_kinds() {
    let e = bad(&[("flows.bulk.app", "video")], "flows.bulk.app", "unknown kind");
    assert_eq!(e.choices, ["bulk", "cbr", "poisson", "file"]);
    bad(&[("flows.bulk.app", "{ kind = \"video\" }")], "flows.bulk.app.kind", "unknown kind");
    bad(&[("flows.bulk.app", "cbr")], "flows.bulk.app.rate", "missing");
    bad(&[("flows.bulk.app", "{ size = \"1MB\" }")], "flows.bulk.app.size", "kind `bulk`");
}

#[test]
fn write_size_on_udp_cbr_is_rejected() {
    bad(&[("flows.cross.app.write_size", "100B")], "flows.cross.app.write_size", "udp");
}

#[test]
fn missing_from_is_reported() {
    let text = BASE.replacen("from = \"s1\"\n", "", 1);
    assert_err(&err_with(&text, &[]), "flows.bulk.from", "missing");
}

#[test]
fn missing_flows_section_is_reported() {
    let text = &BASE[..BASE.find("[flows.bulk]").unwrap()];
    assert_err(&err_with(text, &[]), "flows", "missing");
}

#[test]
fn flows_from_a_router_are_rejected() {
    let e = bad(&[("flows.bulk.from", "r1")], "flows.bulk.from", "router");
    assert_eq!(e.choices, ["s1", "d1"]);
}

#[test]
fn flow_to_itself_is_rejected() {
    bad(&[("flows.bulk.to", "s1")], "flows.bulk.to", "itself");
}

#[test]
fn groups_at_both_ends_need_equal_counts() {
    bad(
        &[
            ("groups.g1", "{ count = 2, link = { to = \"r1\", rate = \"1Gbps\", delay = \"1ms\" } }"),
            ("groups.g2", "{ count = 3, link = { to = \"r2\", rate = \"1Gbps\", delay = \"1ms\" } }"),
            ("flows.bulk.from", "g1"),
            ("flows.bulk.to", "g2"),
        ],
        "flows.bulk.to",
        "equal counts",
    );
}

#[test]
fn jain_group_naming_unknown_entry_is_rejected() {
    let e = bad(&[("metrics.jain_groups.all", "[\"bulk\", \"nope\"]")], "metrics.jain_groups.all[1]", "unknown flow entry");
    assert_eq!(e.choices, ["bulk", "cross"]);
    bad(&[("metrics.jain_groups.bulk", "[\"cross\"]")], "metrics.jain_groups.bulk", "already a flow entry");
    bad(&[("metrics.jain_groups.all", "[]")], "metrics.jain_groups.all", "at least one");
}

#[test]
fn udp_packet_must_carry_a_payload() {
    bad(&[("flows.cross.packet_size", "28B")], "flows.cross.packet_size", "packet size");
    bad(&[("flows.cross.packet_size", "70000B")], "flows.cross.packet_size", "packet size");
}

#[test]
fn tcp_option_ranges_are_checked() {
    bad(&[("flows.bulk.tcp.mss", "0B")], "flows.bulk.tcp.mss", "> 0");
    bad(&[("flows.bulk.tcp.initial_cwnd", "0")], "flows.bulk.tcp.initial_cwnd", "at least 1");
    bad(&[("flows.bulk.tcp.min_rto", "200s")], "flows.bulk.tcp.min_rto", "max_rto");
    bad(&[("flows.bulk.tcp.recv_buffer", "1000B")], "flows.bulk.tcp.recv_buffer", "segment");
    bad(&[("flows.bulk.tcp.handshake", "yes")], "flows.bulk.tcp.handshake", "true or false");
    bad(&[("flows.bulk.tcp.delayed_ack.timeout", "0ms")], "flows.bulk.tcp.delayed_ack.timeout", "> 0");
}

#[test]
fn wrong_types_name_what_was_expected() {
    bad(&[("run.seed", "x")], "run.seed", "expected an integer");
    bad(&[("run.seed", "-1")], "run.seed", "at least 0");
    bad(&[("nodes.hosts", "s1")], "nodes.hosts", "array");
    bad(&[("links.a", "5")], "links.a", "expected a table");
    bad(&[("metrics.interval", "0s")], "metrics.interval", "> 0");
}

#[test]
fn toml_syntax_errors_give_the_line() {
    let e = err_with("[run]\nduration = \"1s\nseed = 1\n", &[]);
    assert_err(&e, "<file>", "line 2");
    assert!(e.reason.contains("syntax"));
    // Found by the scenario fuzzer: a cut-off table header gave a two-line message, and a span
    // inside a multi-byte character panicked when slicing.
    let e = err_with("[run]\nduration = \"1s\"\n[links.a\n", &[]);
    assert!(!e.to_string().contains('\n') && e.reason.contains("line 3"), "{e}");
    let e = err_with("[run]\nduration = \"1s\"\né = é\n", &[]);
    assert!(!e.to_string().contains('\n') && e.reason.contains("line 3"), "{e}");
}

#[test]
fn display_joins_key_reason_and_choices() {
    let e = bad(&[("flows.bulk.protocol", "sctp")], "flows.bulk.protocol", "sctp");
    assert_eq!(e.to_string(), "flows.bulk.protocol: unknown protocol `sctp` (valid: tcp, udp, mptcp, quic, mpquic)");
    let e = bad(&[("flows.bulk.start", "10s")], "flows.bulk.start", "before");
    assert!(!e.to_string().contains("valid:"));
}

// ----- link events and capacity models ------------------------------------------------------

/// `BASE` with one `[[events]]` entry (inline table contents) must fail at `key`.
#[track_caller]
fn bad_event(entry: &str, key: &str, word: &str) -> super::ScenarioError {
    bad(&[("events", &format!("[{{ {entry} }}]"))], key, word)
}

#[test]
fn event_on_an_unknown_link_lists_the_links() {
    let e = bad_event(r#"at = "1s", link = "bogus", action = "down""#, "events[0].link", "unknown link");
    assert_eq!(e.choices, ["a", "b", "bottleneck"]);
    bad_event(r#"at = "1s", link = "bottleneck.rev.fwd", action = "down""#, "events[0].link", "unknown link");
    bad_event(r#"at = "1s", link = "bottleneck.up", action = "down""#, "events[0].link", "unknown link");
    // The index names the offending entry.
    bad(
        &[("events", r#"[{ at = "1s", link = "a", action = "down" }, { at = "2s", link = "zz", action = "up" }]"#)],
        "events[1].link",
        "unknown link",
    );
}

#[test]
fn event_action_is_checked_and_lists_the_actions() {
    let e = bad_event(r#"at = "1s", link = "a", action = "flap""#, "events[0].action", "unknown action");
    assert_eq!(e.choices, ["down", "up", "rate"]);
    let e = bad_event(r#"at = "1s", link = "a""#, "events[0].action", "missing");
    assert_eq!(e.choices, ["down", "up", "rate"]);
    bad_event(r#"at = "1s", link = "a", action = 3"#, "events[0].action", "expected a string");
}

#[test]
fn event_rate_is_required_for_rate_and_forbidden_otherwise() {
    bad_event(r#"at = "1s", link = "a", action = "rate""#, "events[0].rate", "missing");
    bad_event(r#"at = "1s", link = "a", action = "down", rate = "1Mbps""#, "events[0].rate", "only allowed");
    bad_event(r#"at = "1s", link = "a", action = "rate", rate = "0Mbps""#, "events[0].rate", "> 0");
    bad_event(r#"at = "1s", link = "a", action = "rate", rate = "5Mbit""#, "events[0].rate", "unit");
}

#[test]
fn event_keys_and_times_are_checked() {
    let e = bad_event(r#"at = "1s", link = "a", action = "down", when = "2s""#, "events[0].when", "unknown key");
    assert_eq!(e.choices, ["action", "at", "link", "rate"]);
    bad_event(r#"link = "a", action = "down""#, "events[0].at", "missing");
    bad_event(r#"at = "-1s", link = "a", action = "down""#, "events[0].at", "negative");
    bad_event(r#"at = 5, link = "a", action = "down""#, "events[0].at", "unit");
    bad(&[("events", r#"{ at = "1s" }"#)], "events", "array of tables");
    bad(&[("events", "[1]")], "events[0]", "expected a table");
}

#[test]
fn rate_event_on_a_direction_with_a_capacity_model_is_rejected() {
    let e = err_with(
        BASE,
        &[
            ("links.bottleneck.capacity", r#"{ model = "lte", mean = "50Mbps" }"#),
            ("links.bottleneck.reverse.capacity", "none"),
            ("events", r#"[{ at = "1s", link = "bottleneck", action = "rate", rate = "5Mbps" }]"#),
        ],
    );
    assert_err(&e, "events[0].action", "capacity model");
    // The direction without a model takes rate events.
    super::base_ok(&[
        ("links.bottleneck.capacity", r#"{ model = "lte", mean = "50Mbps" }"#),
        ("links.bottleneck.reverse.capacity", "none"),
        ("events", r#"[{ at = "1s", link = "bottleneck.rev", action = "rate", rate = "5Mbps" }]"#),
    ]);
}

/// `BASE` with `links.bottleneck.capacity = <value>` must fail at `links.bottleneck.capacity.<key>`.
#[track_caller]
fn bad_capacity(value: &str, key: &str, word: &str) -> super::ScenarioError {
    let key = if key.is_empty() { "links.bottleneck.capacity".to_string() } else { format!("links.bottleneck.capacity.{key}") };
    bad(&[("links.bottleneck.capacity", value)], &key, word)
}

#[test]
fn unknown_capacity_model_lists_the_models() {
    let e = bad_capacity(r#"{ model = "5g" }"#, "model", "unknown model");
    assert_eq!(e.choices, ["none", "lte", "trace"]);
    bad_capacity(r#""lte""#, "mean", "missing");
    bad_capacity(r#"{ mean = "1Mbps" }"#, "model", "missing");
    bad_capacity("3", "", "expected a table or a model name");
    bad(&[("links.bottleneck.reverse.capacity", r#"{ model = "wifi" }"#)], "links.bottleneck.reverse.capacity.model", "unknown model");
}

#[test]
fn lte_capacity_parameters_are_checked() {
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", cv = 7 }"#, "cv", "must be in [0, 5]");
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", cv = "high" }"#, "cv", "expected a number");
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", correlation = 1.5 }"#, "correlation", "probability");
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", min = "20Mbps" }"#, "min", "at most mean");
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", max = "5Mbps" }"#, "max", "at least mean");
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", step = "500us" }"#, "step", "at least 1ms");
    bad_capacity(r#"{ model = "lte", mean = "10Mbps", step = "0s" }"#, "step", "> 0");
    bad_capacity(r#"{ model = "lte", mean = "0bps" }"#, "mean", "> 0");
    let e = bad_capacity(r#"{ model = "lte", mean = "10Mbps", times = ["0s"] }"#, "times", "unknown key for model `lte`");
    assert!(e.choices.contains(&"correlation".to_string()));
}

#[test]
fn trace_capacity_parameters_are_checked() {
    bad_capacity(r#"{ model = "trace", times = [], rates = [] }"#, "times", "at least one");
    bad_capacity(r#"{ model = "trace", times = ["0s", "2s", "2s"], rates = ["1Mbps", "2Mbps", "3Mbps"] }"#, "times[2]", "increase");
    bad_capacity(r#"{ model = "trace", times = ["0s", "2s"], rates = ["1Mbps"] }"#, "rates", "has 1 entries but times has 2");
    bad_capacity(r#"{ model = "trace", times = ["0s", "2x"], rates = ["1Mbps", "2Mbps"] }"#, "times[1]", "unit");
    bad_capacity(r#"{ model = "trace", times = ["0s"], rates = ["1Mbps"], repeat = true }"#, "period", "missing");
    bad_capacity(r#"{ model = "trace", times = ["0s"], rates = ["1Mbps"], period = "1s" }"#, "period", "only allowed");
    bad_capacity(
        r#"{ model = "trace", times = ["0s", "5s"], rates = ["1Mbps", "2Mbps"], repeat = true, period = "5s" }"#,
        "period",
        "after the last",
    );
    bad_capacity(r#"{ model = "trace", times = "0s", rates = ["1Mbps"] }"#, "times", "expected an array");
    bad_capacity(r#"{ model = "trace", rates = ["1Mbps"] }"#, "times", "missing");
}

#[test]
fn mptcp_keys_are_only_for_mptcp_flows() {
    for k in ["scheduler", "paths", "mptcp"] {
        let key = format!("flows.bulk.{k}");
        let v = match k {
            "paths" => r#"[["s1", "r1", "r2", "d1"]]"#,
            "mptcp" => "{ join_delay = \"1s\" }",
            _ => "minrtt",
        };
        bad(&[(key.as_str(), v)], &key, "only for mptcp");
    }
}

#[test]
fn unknown_scheduler_lists_the_schedulers() {
    let e = bad(&[("flows.bulk.protocol", "mptcp"), ("flows.bulk.scheduler", "fastest")], "flows.bulk.scheduler", "unknown scheduler");
    for s in ["default", "minrtt", "blest", "ecf", "cpf"] {
        assert!(e.choices.contains(&s.to_string()), "{s}");
    }
    let e = bad(
        &[("flows.bulk.protocol", "mptcp"), ("flows.bulk.scheduler_options", "{ beta = 0.5 }")],
        "flows.bulk.scheduler_options.beta",
        "unknown option for `default`",
    );
    assert_eq!(e.choices, ["kernel", "queue"]);
    bad(
        &[("flows.bulk.protocol", "mptcp"), ("flows.bulk.scheduler", "minrtt"), ("flows.bulk.scheduler_options", "{ beta = 0.5 }")],
        "flows.bulk.scheduler_options.beta",
        "has no options",
    );
}

#[test]
fn mptcp_paths_and_per_path_lists_are_checked() {
    let mp = ("flows.bulk.protocol", "mptcp");
    bad(&[mp, ("flows.bulk.paths", r#"[["r1", "r2", "d1"]]"#)], "flows.bulk.paths[0][0]", "must start at");
    bad(&[mp, ("flows.bulk.paths", r#"[["s1", "r1", "r2"]]"#)], "flows.bulk.paths[0][2]", "must end at");
    bad(&[mp, ("flows.bulk.paths", "[]")], "flows.bulk.paths", "1 to 16 paths");
    bad(&[mp, ("flows.bulk.mptcp", "{ priorities = [0, 1] }")], "flows.bulk.mptcp.priorities", "2 entries but the flow has 1 paths");
    bad(&[mp, ("flows.bulk.mptcp", "{ backup = [1] }")], "flows.bulk.mptcp.backup[0]", "true or false");
    bad(&[mp, ("flows.bulk.path", r#"["s1", "r1", "r2", "d1"]"#)], "flows.bulk.path", "paths");
    bad(&[mp, ("flows.bulk.tcp", "{ recv_buffer = \"1MB\" }")], "flows.bulk.tcp.recv_buffer", "mptcp.recv_buffer");
    bad(&[mp, ("flows.bulk.mptcp", "{ recv_buffer = \"100B\" }")], "flows.bulk.mptcp.recv_buffer", "at least one segment");
}

#[test]
fn quic_options_are_checked_by_key() {
    let quic = ("flows.bulk.protocol", "\"quic\"");
    // The quic table only on quic flows; tcp options not on quic flows.
    bad(&[("flows.bulk.quic.streams", "2")], "flows.bulk.quic", "only for quic and mpquic");
    bad(&[quic, ("flows.bulk.tcp.mss", "1000")], "flows.bulk.tcp", "not used by quic flows");
    let e = bad(&[quic, ("flows.bulk.quic.strems", "2")], "flows.bulk.quic.strems", "unknown key");
    assert!(e.choices.contains(&"streams".to_string()));
    bad(&[quic, ("flows.bulk.quic.max_udp_payload", "\"1000B\"")], "flows.bulk.quic.max_udp_payload", "at least 1200");
    bad(&[quic, ("flows.bulk.quic.pto_probe_packets", "3")], "flows.bulk.quic.pto_probe_packets", "");
    // Schedulers and paths belong to mpquic, not single-path quic.
    bad(&[quic, ("flows.bulk.scheduler", "\"blp\"")], "flows.bulk.scheduler", "only for mptcp and mpquic");
    let e =
        bad(&[("flows.bulk.protocol", "\"mpquic\""), ("flows.bulk.scheduler", "\"fastest\"")], "flows.bulk.scheduler", "unknown scheduler");
    assert!(e.choices.contains(&"blp".to_string()));
}

/// docs/scenarios.md "Limits": the largest time, bins per series, trace steps. Each limit is
/// accepted exactly and refused one step past it.
#[test]
fn limits_are_enforced_at_their_edge() {
    use super::super::bounds::{MAX_BINS, MAX_TIME, MAX_TRACE_STEPS};
    let max = format!("\"{}ns\"", MAX_TIME.0);
    let over = format!("\"{}ns\"", MAX_TIME.0 + 1);
    super::base_ok(&[("links.bottleneck.delay", &max)]);
    bad(&[("links.bottleneck.delay", &over)], "links.bottleneck.delay", "too large");
    bad(&[("links.bottleneck.queue.limit", &over)], "links.bottleneck.queue.limit", "too large");
    bad(&[("run.duration", "\"18446744073709551615ns\"")], "run.duration", "too large");
    // 10 s over MAX_BINS bins: the exact bin width passes, 1 ns less does not.
    let width = 10_000_000_000 / MAX_BINS;
    let ok = format!("\"{width}ns\"");
    let short = format!("\"{}ns\"", width - 1);
    super::base_ok(&[("run.duration", "\"10s\""), ("metrics.interval", &ok), ("metrics.trace_interval", &ok)]);
    bad(&[("run.duration", "\"10s\""), ("metrics.interval", &short)], "metrics.interval", "above the limit");
    bad(&[("run.duration", "\"10s\""), ("metrics.trace_interval", &short)], "metrics.trace_interval", "above the limit");
    // A repeating two-step trace over 10 s: MAX_TRACE_STEPS / 2 cycles pass, one more does not.
    let period = |ns: u64| {
        format!("{{ model = \"trace\", times = [\"0s\", \"1ns\"], rates = [\"50Mbps\", \"60Mbps\"], repeat = true, period = \"{ns}ns\" }}")
    };
    let cycle = 10_000_000_000 / (MAX_TRACE_STEPS / 2);
    super::base_ok(&[("run.duration", "\"10s\""), ("links.bottleneck.capacity", &period(cycle))]);
    bad(
        &[("run.duration", "\"10s\""), ("links.bottleneck.capacity", &period(cycle - 1))],
        "links.bottleneck.capacity.period",
        "above the limit",
    );
}

#[test]
fn mpquic_per_path_lists_are_checked_as_mptcp_ones() {
    let mp = ("flows.bulk.protocol", "\"mpquic\"");
    bad(&[mp, ("flows.bulk.quic", "{ priorities = [0, 1] }")], "flows.bulk.quic.priorities", "2 entries but the flow has 1 paths");
    bad(&[mp, ("flows.bulk.quic", "{ backup = [1] }")], "flows.bulk.quic.backup[0]", "true or false");
    bad(&[mp, ("flows.bulk.quic", "{ backup = [] }")], "flows.bulk.quic.backup", "1 to 8 entries");
    let quic = ("flows.bulk.protocol", "\"quic\"");
    bad(&[quic, ("flows.bulk.quic", "{ backup = [false] }")], "flows.bulk.quic.backup", "only for mpquic");
}

#[test]
fn metric_detail_and_jitter_options_name_their_choices() {
    let e = bad(&[("metrics.jitter", "\"sometimes\"")], "metrics.jitter", "unknown jitter scope");
    assert_eq!(e.choices, ["none", "flows", "links", "all"]);
    let e = bad(&[("metrics.detail_flows", "\"most\"")], "metrics.detail_flows", "unknown selection");
    assert_eq!(e.choices, ["auto", "all", "none"]);
    bad(&[("metrics.detail_links", "3")], "metrics.detail_links", "expected");
    let e = bad(&[("metrics.detail_flows", "[\"bulk\", \"nope\"]")], "metrics.detail_flows[1]", "unknown flow entry");
    assert_eq!(e.choices, ["bulk", "cross"]);
    let e = bad(&[("metrics.detail_links", "[\"bottlenek\"]")], "metrics.detail_links[0]", "unknown link, group or Wi-Fi channel");
    assert!(e.choices.contains(&"bottleneck".to_string()));
}
