"""Multipath tunnels from the front end: a run's summary, its one-screen table, a sweep's
columns, and refusals with exit code 2 (the simulation itself is tested in Rust,
crates/mptlab-sim/tests/tunnels.rs)."""

from __future__ import annotations

import json

import mptlab
from mptlab.sweeps.flatten import run_metrics
from mptlab.table import render
from rich.console import Console

from conftest import REPO, mptlab as cli

TUNNEL = REPO / "scenarios" / "tunnel.toml"


def test_a_tunnel_run_reports_its_paths_and_sweeps_get_columns(tmp_path):
    mptlab.run(TUNNEL, overrides={"run.duration": "3s"}, out=tmp_path, plots=False)
    s = json.loads((tmp_path / "summary.json").read_text())
    (t,) = s["tunnels"]
    assert (t["name"], t["cc"], t["scheduler"], t["protocol"]) == ("atsss", "ccid2", "cpf", "dccp")
    # UDP at 120 Mbit/s fills both 50 Mbit/s paths: each carries about half.
    assert 0.4 < t["secondary_share"] < 0.6
    assert [p["route"] for p in t["paths"]] == [["proxy_ap", "wifi"], ["proxy_cell", "cellular"]]
    assert t["buffer"]["dropped"] > 0 and t["egress_counters"]["released"] > 0
    # The derived delays: 40 ms RTT, half in the tunnel.
    assert s["scenario"]["links"]["wan"]["delay"] == "10ms"
    assert s["scenario"]["links"]["proxy_ap"]["delay"] == "10ms"
    cols = run_metrics(s)
    assert cols["tunnel_secondary_share__atsss"] == t["secondary_share"]
    assert cols["tunnel_path_mbps__atsss_1"] > 40
    console = Console(width=100, record=True)
    console.print(render(s))
    text = console.export_text()
    assert "tunnel atsss: ccid2 / cpf" in text and "0: proxy_ap wifi" in text


def test_bad_tunnel_keys_exit_2_naming_the_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(TUNNEL.read_text().replace('cc = "ccid2"', 'cc = "ccid7"'))
    r = cli("check", bad)
    assert r.returncode == 2
    assert "tunnels.atsss.cc" in r.stderr and "ccid5" in r.stderr


def test_list_names_the_dccp_controllers():
    r = cli("list")
    assert r.returncode == 0 and "ccid2" in r.stdout and "ccid5" in r.stdout
