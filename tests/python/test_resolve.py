"""`_core.resolve()`: the resolved run as plain data (docs/resolve.md). Its JSON has exactly the
keys `_core.pyi` declares, and its links, rates and routes are those the simulator runs with."""

from __future__ import annotations

import ast
import json

import pytest

from mptlab import _core
from conftest import QUICKSTART, REPO

TWO_PATHS = REPO / "scenarios" / "mptcp-two-paths.toml"
MPQUIC = REPO / "scenarios" / "mpquic-two-paths.toml"
STUB = REPO / "python" / "mptlab" / "_core.pyi"


def resolved(path, overrides=(), seed=None) -> dict:
    return json.loads(_core.resolve(path.read_text(), list(overrides), seed))


def stub_keys() -> dict[str, set[str]]:
    """The keys of every `Resolved*` TypedDict in `_core.pyi` (class and functional forms)."""
    out: dict[str, set[str]] = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Resolved"):
            out[node.name] = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            name = node.targets[0].id
            if name.startswith("Resolved"):
                out[name] = {k.value for k in node.value.args[1].keys}
    return out


def test_json_keys_are_the_typed_ones_in_the_stub():
    keys = stub_keys()
    for path in (TWO_PATHS, MPQUIC, QUICKSTART, REPO / "scenarios" / "tunnel.toml"):
        r = resolved(path)
        assert set(r) == keys["ResolvedRun"]
        for t in r["tunnels"]:
            assert set(t) == keys["ResolvedTunnel"]
            assert all(set(p) == keys["ResolvedPath"] for p in t["paths"])
        assert set(r["run"]) == keys["ResolvedRunInfo"]
        for n in r["nodes"]:
            assert set(n) == keys["ResolvedNode"] and n["kind"] in ("host", "router")
        for link in r["links"]:
            assert set(link) == keys["ResolvedLink"], link["name"]
            assert set(link["queue"]) == keys["ResolvedQueue"]
            for e in link["events"]:
                assert set(e) == keys["ResolvedEvent"]
        for f in r["flows"]:
            assert set(f) == keys["ResolvedFlow"], f["name"]
            if f["tunnel"] is not None:
                assert set(f["tunnel"]) == keys["ResolvedFlowTunnel"]
            for p in f["paths"]:
                assert set(p) == keys["ResolvedPath"]
            for block, name in (("tcp", "ResolvedTcp"), ("quic", "ResolvedQuic"), ("udp", "ResolvedUdp")):
                if f[block] is not None:
                    assert set(f[block]) == keys[name]
            for algo in ("cc", "scheduler"):
                if f[algo] is not None:
                    assert set(f[algo]) == keys["ResolvedAlgorithm"] and isinstance(f[algo]["options"], dict)


def test_every_name_refers_to_something_and_directions_pair_up():
    for path in sorted((REPO / "scenarios").glob("*.toml")):
        r = resolved(path)
        nodes = {n["name"] for n in r["nodes"]}
        links = {link["name"]: link for link in r["links"]}
        assert len(links) == len(r["links"]), path.name
        for link in r["links"]:
            back = links[link["reverse"]]
            assert back["reverse"] == link["name"] and (back["from"], back["to"]) == (link["to"], link["from"])
            assert link["from"] in nodes and link["to"] in nodes
            assert (link["queue"]["limit_packets"] is None) != (link["queue"]["limit_bytes"] is None)
        tunnels = {t["name"]: t for t in r["tunnels"]}

        def walk(route: list[str], start: str, end: str) -> None:
            at = start
            for name in route:
                assert links[name]["from"] == at, (path.name, route)
                at = links[name]["to"]
            assert at == end, (path.name, route)

        for t in r["tunnels"]:
            for p in t["paths"]:
                walk(p["fwd"], t["ingress"], t["egress"])
                walk(p["rev"], t["egress"], t["ingress"])
        for f in r["flows"]:
            assert f["paths"], f["name"]
            for p in f["paths"]:
                # Each route is a walk src -> dst (fwd) and dst -> src (rev) along link directions;
                # a flow through a tunnel reaches the ingress, and continues from the egress.
                if f["tunnel"] is None:
                    walk(p["fwd"], f["src"], f["dst"])
                else:
                    t = tunnels[f["tunnel"]["name"]]
                    walk(p["fwd"], f["src"], t["ingress"])
                    walk(f["tunnel"]["after"], t["egress"], f["dst"])
                walk(p["rev"], f["dst"], f["src"])


def test_two_paths_mptcp_resolves_to_what_the_simulator_reports():
    r = resolved(TWO_PATHS, [("run.duration", "2s")], seed=7)
    assert r["run"] == {"seed": 7, "duration_ns": 2_000_000_000, "interval_ns": 1_000_000_000,
                        "trace_interval_ns": 100_000_000}
    (f,) = r["flows"]
    names = (f["protocol"], f["multipath"], f["cc"]["name"], f["scheduler"]["name"])
    assert names == ("mptcp", True, "cubic", "default")
    assert [p["fwd"] for p in f["paths"]] == [["path1", "path1_server"], ["path2", "path2_server"]]
    assert [p["rev"] for p in f["paths"]] == [["path1_server.rev", "path1.rev"], ["path2_server.rev", "path2.rev"]]
    assert f["tcp"]["sack"] and f["tcp"]["delayed_ack"] and f["quic"] is None

    from mptlab import runner

    out = runner.run(TWO_PATHS.read_text(), [("run.duration", "2s")], 7, series=False)
    rates = {link["name"]: link["rate_mbps"] for link in out.summary["links"]}
    assert rates == {link["name"]: link["rate_bps"] / 1e6 for link in r["links"]}
    assert [x["name"] for x in out.summary["flows"]] == [x["name"] for x in r["flows"]]


def test_multipath_quic_paths_and_parameters():
    r = resolved(MPQUIC)
    (f,) = r["flows"]
    assert (f["protocol"], f["multipath"], f["tcp"], f["udp"]) == ("quic", True, None, None)
    assert len(f["paths"]) == 2 and f["quic"]["max_udp_payload"] > 0


def test_invalid_scenarios_raise_the_scenario_error():
    with pytest.raises(_core.ScenarioError, match="flows.mp.cc"):
        _core.resolve(TWO_PATHS.read_text(), [("flows.mp.cc", "nope")])
