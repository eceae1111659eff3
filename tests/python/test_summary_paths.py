"""The summary's shared `paths` block (docs/metrics.md): MPTCP and multipath QUIC flows report
their paths in one shape, and the store's flow rows and the run table read them with one code
path, whatever the transport."""

from __future__ import annotations

import pytest
from rich.console import Console

from conftest import REPO

import mptlab
from mptlab.sweeps.flatten import flow_rows
from mptlab.table import render

PATH_KEYS = {
    "index", "route", "priority", "backup", "state", "srtt_ms_mean", "srtt_ms_max", "srtt_ms_final",
    "min_rtt_ms", "final_cwnd_bytes", "segments_sent", "bytes_sent", "retransmissions", "rto_count",
    "dropped_packets", "drop_rate_per_s", "drop_pct", "share", "bytes_received",
}
FLOW_TRANSPORT_KEYS = {"tcp", "scheduler", "paths", "mptcp", "quic"}


@pytest.fixture(scope="module")
def multipath_flows() -> dict[str, dict]:
    """The `mp` flow of the MPTCP and the multipath QUIC two-path scenarios, 3 s each."""
    out = {}
    for protocol in ("mptcp", "mpquic"):
        res = mptlab.run(REPO / "scenarios" / f"{protocol}-two-paths.toml", seed=1,
                         overrides={"run.duration": "3s"}, plots=False)
        out[protocol] = next(f for f in res.summary["flows"] if f["name"] == "mp")
    return out


def test_every_multipath_transport_reports_its_paths_in_one_shape(multipath_flows: dict[str, dict]) -> None:
    for protocol, flow in multipath_flows.items():
        assert flow["protocol"] == protocol
        assert FLOW_TRANSPORT_KEYS <= flow.keys()
        assert isinstance(flow["scheduler"], str)
        assert [p["index"] for p in flow["paths"]] == [0, 1]
        own = "mptcp" if protocol == "mptcp" else "quic"
        for p in flow["paths"]:
            assert set(p) == PATH_KEYS | {own}, protocol
            assert p["route"] and p["segments_sent"] > 0, protocol
        assert sum(p["share"] for p in flow["paths"]) == pytest.approx(1.0)
        # The flow's totals are the paths' sums, for every transport.
        assert flow["retransmissions"] == sum(p["retransmissions"] for p in flow["paths"])
        assert flow["rto_count"] == sum(p["rto_count"] for p in flow["paths"])


def test_flow_rows_have_the_same_path_columns_for_mptcp_and_mpquic(multipath_flows: dict[str, dict]) -> None:
    rows = {proto: flow_rows({"flows": [flow]})[0] for proto, flow in multipath_flows.items()}
    per_path = {proto: {c for c in row if c.endswith(("__path0", "__path1"))} for proto, row in rows.items()}
    assert per_path["mptcp"] == per_path["mpquic"]
    assert {"share__path0", "share__path1", "srtt_ms_av__path1", "drop_rate_per_s__path0"} <= per_path["mptcp"]
    for proto, row in rows.items():
        assert row["scheduler"] == multipath_flows[proto]["scheduler"]
        assert row["share__path1"] == multipath_flows[proto]["paths"][1]["share"]
    # Seed 001's connection metrics exist only for MPTCP.
    assert "protocol_delay_ms_av" in rows["mptcp"] and "protocol_delay_ms_av" not in rows["mpquic"]


def test_flows_without_paths_get_no_path_columns() -> None:
    row = flow_rows({"flows": [{"name": "tcp", "paths": None, "mptcp": None}]})[0]
    assert not any("__path" in c for c in row) and "scheduler" not in row


def test_the_run_table_lists_the_paths_of_every_multipath_flow(multipath_flows: dict[str, dict]) -> None:
    console = Console(width=200, record=True)
    console.print(render({"flows": list(multipath_flows.values()), "links": [], "groups": []}))
    text = console.export_text()
    assert "paths" in text
    for flow in multipath_flows.values():
        for p in flow["paths"]:
            assert p["route"][0] in text
