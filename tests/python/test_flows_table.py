"""Runs of more than RECORDS_IN_SUMMARY flows (link directions): every record in flows.parquet
(links.parquet), the detailed ones and the groups in the summary; smaller runs keep their
records in summary.json."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

import mptlab
from mptlab import results
from conftest import REPO

GROUPS = REPO / "scenarios" / "groups.toml"


def test_large_run_writes_flows_parquet_and_keeps_groups_in_the_summary(tmp_path):
    n = results.RECORDS_IN_SUMMARY + 1
    res = mptlab.run(GROUPS, overrides={"groups.ue.count": str(n), "run.duration": "1.5s"}, out=tmp_path, plots=False)
    s = json.loads((tmp_path / "summary.json").read_text())
    # The 5 uploads are measured in detail (an entry of 5 flows): their records stay.
    assert [f["name"] for f in s["flows"]] == [f"uploads#{i}" for i in range(5)]
    assert s["flows_table"] == {"file": "flows.parquet", "rows": n + 5}
    # 2n access-link directions plus backhaul and server: only the latter four stay.
    assert [l["name"] for l in s["links"]] == ["backhaul", "backhaul.rev", "server", "server.rev"]
    assert s["links_table"] == {"file": "links.parquet", "rows": 2 * n + 4}
    links = pq.read_table(tmp_path / "links.parquet")
    assert links.num_rows == 2 * n + 4 and "throughput_mbps.mean" in links.column_names
    assert s == res.summary
    sensors = next(g for g in s["groups"] if g["name"] == "sensors")
    assert sensors["flows"] == n
    table = pq.read_table(tmp_path / "flows.parquet")
    assert table.num_rows == n + 5
    assert table.equals(res.tables["flows"])
    cols = set(table.column_names)
    assert {"name", "group", "protocol", "bytes_delivered", "goodput_mbps.mean", "goodput_mbps.p95"} <= cols
    rows = table.to_pylist()
    assert [r["name"] for r in rows[:2]] == ["sensors#0", "sensors#1"]
    # The group record sums its members' records.
    assert sum(r["bytes_delivered"] for r in rows if r["group"] == "sensors") == sensors["bytes_delivered"]
    # Entries above the detail limit are not measured in detail: no per-packet distributions;
    # the 5 uploads are.
    assert all(r["owd_ms.mean"] is None for r in rows if r["group"] == "sensors")
    assert all(r["owd_ms.mean"] is not None for r in rows if r["group"] == "uploads")


def test_small_run_keeps_flow_records_in_the_summary():
    summary = {"flows": [{"name": "a"}], "links": []}
    assert results.split_records(summary) == (summary, {})


def test_split_flattens_nested_records_and_keeps_lists_as_json():
    flows = [{"name": f"f{i}", "detailed": i == 1, "goodput_mbps": {"mean": float(i)}, "paths": [{"route": ["x"]}]}
             for i in range(3)]
    rest, tables = results.split_records({"flows": flows, "links": [], "seed": 1}, limit=2)
    assert rest == {"flows": [flows[1]], "flows_table": {"file": "flows.parquet", "rows": 3}, "links": [], "seed": 1}
    table = tables["flows"]
    assert table.column("goodput_mbps.mean").to_pylist() == [0.0, 1.0, 2.0]
    assert json.loads(table.column("paths").to_pylist()[0]) == [{"route": ["x"]}]
