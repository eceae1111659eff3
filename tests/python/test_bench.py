"""`mptlab bench` plumbing. The full workloads are too slow for the test suite; the worker is
exercised on the quickstart scenario instead."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import QUICKSTART, REPO, mptlab

from mptlab import bench

KEYS = {"workload", "sim_s", "wall_s", "delivered_pkts_per_s", "events_per_s", "peak_rss_mb"}


def test_benchworker_prints_one_json_object_with_the_bench_keys():
    r = subprocess.run(
        [sys.executable, "-m", "mptlab._benchworker", str(QUICKSTART), "--name", "QS"],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )
    assert r.returncode == 0, r.stderr
    row = json.loads(r.stdout)
    assert KEYS <= row.keys()
    assert row["workload"] == "QS"
    assert row["sim_s"] > 0 and row["wall_s"] > 0 and row["peak_rss_mb"] > 0
    assert row["delivered_pkts_per_s"] > 0 and row["events_per_s"] > 0
    assert set(bench.row(row)) == KEYS and tuple(bench.row(row)) == bench.KEYS


def test_benchworker_imports_only_the_simulator():
    code = (
        "import sys, mptlab._benchworker; "
        "heavy = [m for m in ('pyarrow', 'pandas', 'numpy', 'matplotlib', 'rich', 'typer') "
        "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_workload_scenarios_exist_in_the_repository():
    assert {"W1", "W2"} <= bench.WORKLOADS.keys()
    for w in bench.WORKLOADS.values():
        assert (REPO / w.scenario).is_file(), w.scenario


def test_workload_names_are_case_insensitive():
    assert bench.resolve("w1").name == "W1"


def test_unknown_workload_is_exit_2():
    r = mptlab("bench", "W99", "--json")
    assert r.returncode == 2
    assert "W99" in r.stderr and "W1" in r.stderr
