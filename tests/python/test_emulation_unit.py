"""The emulation's parts that need no root: the plan (python/mptlab/emulation/plan.py: what a
resolved run becomes — namespaces, mechanisms, policy routes, MPTCP endpoints, TCP options — and
what the kernel's lack refuses, against a fixed description of the kernel so the expectations do
not depend on this machine), the `ss` parser, tquic's bins, drop attribution and the summary's
statistics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mptlab import _core
from mptlab.emulation.plan import KernelFeatures, Route, build
from mptlab.emulation.summary import blank, stats, time_weighted_mean

ROOT = Path(__file__).resolve().parents[2]
KERNEL = KernelFeatures(congestion_controls=("reno", "cubic", "bbr"), mptcp_schedulers=("default",),
                        qdiscs=("htb", "tbf"), mptcp=True)


def plan_of(name: str, overrides: list[tuple[str, str]] | None = None):  # type: ignore[no-untyped-def]
    text = (ROOT / "scenarios" / name).read_text()
    return build(json.loads(_core.resolve(text, overrides or [])), "abc123", KERNEL)


def test_simult_flows_topology_routes_and_endpoints() -> None:
    plan = plan_of("validate/simult-balanced.toml")
    assert plan.nodes == {"client": "mptlab-abc123-n0", "server": "mptlab-abc123-n1", "router": "mptlab-abc123-n2"}
    assert [(link.ab.name, link.a, link.b, link.mechanism) for link in plan.links] == [
        ("backbone", "router", "server", "bridge"), ("path1", "client", "router", "bridge"),
        ("path2", "client", "router", "bridge")]
    # one /24 per link: 10.0.<j>.1 on the link's first node, .2 on the second
    backbone, path1, path2 = plan.links
    assert (path1.addr_a, path1.addr_b, path2.addr_a, backbone.addr_b) == ("10.0.1.1", "10.0.1.2", "10.0.2.1", "10.0.0.2")
    # each direction's queue sits on the link namespace's egress toward its receiver
    assert (path1.ab.egress, path1.ba.egress) == ("b1", "a1")
    assert path1.ab.queue["limit_packets"] == 50 and path1.ab.rate_bps == 10_000_000
    flow = plan.flows[0]
    assert [(p.src_addr, p.dst_addr, p.dev) for p in flow.paths] == [("10.0.1.1", "10.0.0.2", "e1"),
                                                                     ("10.0.2.1", "10.0.0.2", "e2")]
    assert plan.endpoints == [("client", "10.0.2.1", "e2")]  # the second subflow's local address
    assert set(plan.routes) == {
        Route("client", "10.0.1.1", "10.0.0.2", "e1", "10.0.1.2"),
        Route("router", "10.0.1.1", "10.0.0.2", "e0", "10.0.0.2"),
        Route("server", "10.0.0.2", "10.0.1.1", "e0", "10.0.0.1"),
        Route("router", "10.0.0.2", "10.0.1.1", "e1", "10.0.1.1"),
        Route("client", "10.0.2.1", "10.0.0.2", "e2", "10.0.2.2"),
        Route("router", "10.0.2.1", "10.0.0.2", "e0", "10.0.0.2"),
        Route("server", "10.0.0.2", "10.0.2.1", "e0", "10.0.0.1"),
        Route("router", "10.0.0.2", "10.0.2.1", "e2", "10.0.2.1"),
    }


def test_delay_or_loss_takes_the_userspace_emulator() -> None:
    plan = plan_of("validate/simult-balanced-delay.toml")
    mech = {link.ab.name: link.mechanism for link in plan.links}
    assert mech == {"backbone": "bridge", "path1": "userspace", "path2": "userspace"}
    lossy = plan_of("validate/simult-balanced.toml", [("links.backbone.loss.model", "bernoulli"), ("links.backbone.loss.p", "0.01")])
    assert {link.ab.name: link.mechanism for link in lossy.links}["backbone"] == "userspace"


@pytest.mark.parametrize(
    ("scenario", "overrides", "message"),
    [
        ("validate/simult-balanced.toml", [("flows.transfer.cc", "lia")],
         "flows.transfer.cc: `lia` — the kernel has no such TCP congestion control; valid: reno, cubic, bbr"),
        ("validate/simult-balanced.toml", [("flows.transfer.scheduler", "minrtt")], "flows.transfer.scheduler: `minrtt`"),
        ("validate/simult-balanced.toml", [("links.path1.queue.kind", "codel")],
         "links.path1.queue.kind: `codel` needs the kernel's codel qdisc, which this kernel lacks (it has: htb, tbf)"),
        ("wifi-mesh.toml", [], "wifi: station"),
        ("seed001-lte.toml", [], ".capacity: the `lte` model is not emulated"),
        ("tunnel.toml", [], "tunnels: multipath tunnels cannot be emulated"),
        ("mpquic-two-paths.toml", [("flows.mp.cc", "reno")],
         "flows.mp.cc: `reno` — tquic (mptlab-mpquic) has no such controller; valid: cubic, bbr, bbr2"),
        ("mpquic-two-paths.toml", [("flows.mp.scheduler", "blp")], "flows.mp.scheduler: `blp` — tquic's"),
    ],
)
def test_what_the_kernel_lacks_is_refused(scenario: str, overrides: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(_core.ScenarioError) as err:
        plan_of(scenario, overrides)
    assert message in str(err.value)


def test_summary_helpers_match_the_simulator_definitions() -> None:
    # type-7 percentiles and population std, as metrics/stats.rs
    assert stats([1.0, 2.0, 3.0, 4.0]) == pytest.approx({"count": 4, "max": 4.0, "mean": 2.5, "min": 1.0,
                                                         "p50": 2.5, "p95": 3.85, "std": 1.118033988749895})
    # a level of 4 from 0 s to 1 s, 2 from 1 s to 3 s, then 0 until the end at 10 s
    assert time_weighted_mean([(0.0, 4.0), (1.0, 2.0), (3.0, 0.0)], 10.0) == pytest.approx(0.8)
    assert blank({"a": 1, "b": [{"c": 2}], "d": [1, 2], "e": {"f": "x"}}) == {"a": None, "b": [{"c": None}],
                                                                              "d": None, "e": {"f": None}}


def test_flow_options_the_kernel_cannot_take_are_refused() -> None:
    from mptlab.emulation.plan import refuse_unmapped_options

    text = (ROOT / "scenarios" / "validate" / "single-path-cubic.toml").read_text()
    refuse_unmapped_options(text, [("flows.bulk.cc", "bbr")])  # a plain choice is fine
    with pytest.raises(_core.ScenarioError, match=r"^flows.bulk.cc_options: not applied by the emulation"):
        refuse_unmapped_options(text, [("flows.bulk.cc_options", "{ hystart = false }")])
    # what Linux's tcp_cubic does anyway is accepted: its own HyStart
    refuse_unmapped_options(text, [("flows.bulk.cc_options", '{ hystart_variant = "linux" }')])
    with pytest.raises(_core.ScenarioError, match=r"^flows.bulk.cc_options"):
        refuse_unmapped_options(text, [("flows.bulk.cc", "bbr"), ("flows.bulk.cc_options", '{ hystart_variant = "linux" }')])
    refuse_unmapped_options(text + "\n[flows.bulk.tcp]\nmin_rto = \"1s\"\ndelayed_ack = { enabled = false }\n", [])
    with pytest.raises(_core.ScenarioError, match=r"^flows.bulk.tcp.send_buffer: not applied"):
        refuse_unmapped_options(text + "\n[flows.bulk.tcp]\nsend_buffer = \"1MB\"\n", [])
    with pytest.raises(_core.ScenarioError, match=r"^flows.bulk.tcp.delayed_ack.every: not applied"):
        refuse_unmapped_options(text, [("flows.bulk.tcp.delayed_ack.every", "4")])


def test_tcp_options_become_route_options_and_sysctls() -> None:
    plan = plan_of("validate/single-path-cubic.toml", [("flows.bulk.tcp.min_rto", "20ms"),
                                                       ("flows.bulk.tcp.initial_cwnd", "4"),
                                                       ("flows.bulk.tcp.delayed_ack.enabled", "false"),
                                                       ("flows.bulk.tcp.sack", "false")])
    opts = {(r.node, r.src): r.options for r in plan.routes}
    client, server = plan.flows[0].paths[0].src_addr, plan.flows[0].paths[0].dst_addr
    assert opts[("client", client)] == ("initcwnd", "4", "rto_min", "20ms")  # the sender's first hop
    assert opts[("server", server)] == ("quickack", "1")  # the receiver's ACKs
    assert opts[("router", client)] == () and plan.flows[0].sack is False
    # Linux's own defaults add nothing
    assert all(r.options == () for r in plan_of("validate/single-path-cubic.toml").routes)


def test_link_events_travel_with_their_direction() -> None:
    plan = plan_of("link-events.toml")
    bottleneck = next(link for link in plan.links if link.ab.name == "bottleneck")
    assert [(e["at_ns"], e["action"], e["rate_bps"]) for e in bottleneck.ab.events] == [
        (5_000_000_000, "down", None), (7_000_000_000, "up", None), (12_000_000_000, "rate", 5_000_000)]
    assert [e["action"] for e in bottleneck.ba.events] == ["down", "up"]
    assert {f.cc for f in plan.flows} == {"newreno"}  # run as the kernel's `reno`


def test_drops_are_attributed_only_where_one_flow_crosses_the_queue() -> None:
    from mptlab.emulation.summary import _attribute_drops

    plan = plan_of("validate/simult-balanced.toml")

    def summary(drops: dict[str, int]) -> dict:
        links = [{"name": d, "drops": drops.get(d, 0)} for link in plan.links for d in (link.ab.name, link.ba.name)]
        paths = [{"segments_sent": 1000}, {"segments_sent": 500}]
        return {"links": links, "flows": [{"name": "transfer", "sent_packets": 1500, "paths": paths}]}

    s = summary({"path1": 6, "path2": 3})
    _attribute_drops(s, plan)
    flow = s["flows"][0]
    assert (flow["dropped_packets"], flow["loss_pct"]) == (9, 0.6)
    assert [(p["dropped_packets"], p["drop_pct"], p["drop_rate_per_s"]) for p in flow["paths"]] == [
        (6, 0.6, 0.3), (3, 0.6, 0.15)]  # per second of the 20 s run, as the simulator
    # drops on the backbone, which both paths cross: the flow's are known, the paths' are not
    s = summary({"path1": 6, "backbone": 2})
    _attribute_drops(s, plan)
    assert s["flows"][0]["dropped_packets"] == 8
    assert [p["dropped_packets"] for p in s["flows"][0]["paths"]] == [None, None]


SS_OUTPUT = """0      213856 10.0.1.1:36248 10.0.0.2:5201
\t cubic wscale:10,10 rto:240 rtt:37.018/7.018 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:42 ssthresh:37 bytes_sent:1131984 bytes_retrans:1424 bytes_acked:1096385 segs_out:800 segs_in:576 data_segs_out:798 send 13143012bps lastsnd:20 retrans:0/1 minrtt:0.03 tcp-ulp-mptcp flags:Mmec
ESTAB 0 0 10.0.2.1%e2:40000 10.0.0.2:5201
\t cubic rtt:12.5/1 mss:1448 cwnd:10 bytes_sent:1448 data_segs_out:1 bytes_received:99
"""


def test_ss_lines_become_subflow_records(monkeypatch: pytest.MonkeyPatch) -> None:
    from mptlab.emulation import measure

    monkeypatch.setattr(measure, "sh", lambda *args, **kw: SS_OUTPUT)
    first, second = measure.sample_sockets("ns")
    assert first == {"local": "10.0.1.1", "lport": 36248, "remote": "10.0.0.2", "rport": 5201, "srtt_ms": 37.018,
                     "mss": 1448, "cwnd": 42, "bytes_sent": 1131984, "bytes_retrans": 1424, "bytes_acked": 1096385,
                     "segs_out": 800, "data_segs_out": 798, "retrans_total": 1, "minrtt_ms": 0.03}
    assert (second["local"], second["lport"], second["srtt_ms"], second["bytes_received"]) == ("10.0.2.1", 40000, 12.5, 99)


def test_tquic_bins_are_spread_over_the_run_intervals() -> None:
    from mptlab.emulation import quic

    # the server's 100 ms bins start 0.95 s into the run: 1000 B in [0.95, 1.05) is half in each 1 s bin
    server = {"bins_start_mono": 100.95, "interval_s": 0.1, "interval_bytes": [1000, 500], "total_bytes": 1500,
              "last_byte_mono": 101.1}
    rx = quic.receiver(server, t0=100.0, interval=1.0, duration=3.0, size=1500)
    assert rx["bins"] == pytest.approx([500.0, 1000.0, 0.0])
    assert rx["eof"] is True and rx["last_byte_s"] == pytest.approx(1.1)


def test_a_capacity_trace_becomes_rate_changes_within_the_run() -> None:
    plan = plan_of("validate/single-path-cubic.toml", [
        ("links.access.capacity", '{ model = "trace", times = ["0s", "2s"], rates = ["20Mbps", "5Mbps"], '
                                  'repeat = true, period = "4s" }'), ("run.duration", "9s")])
    access = next(link for link in plan.links if link.ab.name == "access")
    assert [(e["at_ns"] // 10**9, e["rate_bps"] // 10**6) for e in access.ab.events] == [
        (0, 20), (2, 5), (4, 20), (6, 5), (8, 20)]
    assert access.ba.events == access.ab.events  # a duplex link's model is on both directions
    with pytest.raises(_core.ScenarioError, match=r"more often than every 50 ms"):
        plan_of("validate/single-path-cubic.toml", [
            ("links.access.capacity", '{ model = "trace", times = ["0s"], rates = ["5Mbps"], repeat = true, '
                                      'period = "10ms" }')])
