"""Runs of more than FLOWS_IN_SUMMARY flows: per-flow records in flows.parquet, groups in the
summary; smaller runs keep their records in summary.json."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

import mptlab
from mptlab import results
from conftest import REPO

GROUPS = REPO / "scenarios" / "groups.toml"


def test_large_run_writes_flows_parquet_and_keeps_groups_in_the_summary(tmp_path):
    n = results.FLOWS_IN_SUMMARY + 1
    res = mptlab.run(GROUPS, overrides={"groups.ue.count": str(n), "run.duration": "1.5s"}, out=tmp_path, plots=False)
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["flows"] == [] and s["flows_table"] == {"file": "flows.parquet", "rows": n + 5}
    assert s == res.summary
    sensors = next(g for g in s["groups"] if g["name"] == "sensors")
    assert sensors["flows"] == n
    table = pq.read_table(tmp_path / "flows.parquet")
    assert table.num_rows == n + 5
    assert table.equals(res.flows_table)
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
    assert results.split_flows(summary) == (summary, None)


def test_split_flattens_nested_records_and_keeps_lists_as_json():
    flows = [{"name": f"f{i}", "goodput_mbps": {"mean": float(i)}, "paths": [{"route": ["x"]}]} for i in range(3)]
    rest, table = results.split_flows({"flows": flows, "seed": 1}, limit=2)
    assert rest == {"flows": [], "flows_table": {"file": "flows.parquet", "rows": 3}, "seed": 1}
    assert table.column("goodput_mbps.mean").to_pylist() == [0.0, 1.0, 2.0]
    assert json.loads(table.column("paths").to_pylist()[0]) == [{"route": ["x"]}]
