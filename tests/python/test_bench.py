"""`mptlab bench` plumbing. The full workloads are too slow for the test suite; the worker is
exercised on the quickstart scenario instead."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
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


# A parent that first holds 200 MB, then starts a worker on a 0.2 s slice of W1, and a control
# child that reports its own ru_maxrss (what the worker measured before issue 20).
BIG_PARENT = """
import json, subprocess, sys
ballast = b"x" * (200 * 1024 * 1024)
worker = subprocess.run([sys.executable, "-m", "mptlab._benchworker", sys.argv[1], "--set", "run.duration=0.2s"],
                        capture_output=True, text=True, check=True)
control = subprocess.run([sys.executable, "-c",
                          "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"],
                         capture_output=True, text=True, check=True)
print(json.dumps({"worker": json.loads(worker.stdout), "control_kib": int(control.stdout), "held": len(ballast)}))
"""


def test_peak_rss_is_the_workers_own_not_what_it_inherited_from_a_large_parent():
    r = subprocess.run([sys.executable, "-c", BIG_PARENT, str(REPO / "scenarios/bench/w1.toml")],
                       capture_output=True, text=True, cwd=REPO, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    # The control proves the test has teeth: ru_maxrss of a child of this parent counts the 200 MB.
    assert out["control_kib"] / 1024 >= 190
    row = out["worker"]
    assert row["peak_rss_source"] == "VmHWM"
    assert 0 < row["peak_rss_mb"] < 100
    assert row["sim_s"] == pytest.approx(0.2)


def test_w5_and_w6_are_registered_with_their_scenarios_and_listed_in_the_help():
    assert bench.WORKLOADS["W5"].scenario == "scenarios/bench/w5.toml"
    assert bench.WORKLOADS["W6"].scenario == "scenarios/bench/w6.toml"
    assert "12,000 devices" in bench.WORKLOADS["W5"].about
    assert "1,000 NewReno" in bench.WORKLOADS["W6"].about
    # W5 on the parallel engine: the same scenario, split into two device partitions.
    assert bench.WORKLOADS["W5-PAR"].scenario == bench.WORKLOADS["W5"].scenario
    assert bench.WORKLOADS["W5-PAR"].overrides == (("run.partitions", "2"),)
    r = mptlab("bench", "--help")
    assert r.returncode == 0
    assert "W5" in r.stdout and "W6" in r.stdout


def test_set_applies_to_every_chosen_workload_and_shows_in_sim_s():
    r = mptlab("bench", "W1", "w1-cubic", "--set", "run.duration=0.3s", "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [x["workload"] for x in rows] == ["W1", "W1-CUBIC"]
    assert all(x["sim_s"] == pytest.approx(0.3) for x in rows)
    assert all(tuple(x) == bench.KEYS for x in rows)


def test_malformed_set_is_exit_2_before_anything_runs():
    r = mptlab("bench", "W1", "--set", "run.duration", "--json")
    assert r.returncode == 2
    assert "KEY=VALUE" in r.stderr and r.stdout == ""


def test_set_the_scenario_rejects_is_exit_2():
    r = mptlab("bench", "W1", "--set", "run.duration=soon", "--json")
    assert r.returncode == 2
    assert "W1" in r.stderr
