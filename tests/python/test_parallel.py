"""Parallel runs through the product (`run.partitions`): `mptlab run` steps the run in chunks
for its progress bar, on as many threads as `MPTLAB_THREADS` says, and the results are the
same either way; a scenario the parallel engine cannot split is refused before running."""

from __future__ import annotations

from conftest import REPO, mptlab, read_summary

W5 = REPO / "scenarios" / "bench" / "w5.toml"
# W5 in small: 30 + 30 devices on backhauls scaled to keep them congested, 2 s.
SMALL = ("--set", "run.duration=2s", "--set", "groups.tcpue.count=30", "--set", "groups.quicue.count=30",
         "--set", "links.tn1.rate=2.513Mbps", "--set", "links.tn2.rate=2.2007Mbps")


def _run(tmp_path, monkeypatch, name: str, threads: str, *extra: str) -> dict:
    monkeypatch.setenv("MPTLAB_THREADS", threads)
    r = mptlab("run", W5, "--out", tmp_path / name, "--quiet", "--no-plots", *SMALL, *extra)
    assert r.returncode == 0, r.stderr
    return read_summary(tmp_path / name)


def test_a_parallel_run_does_not_depend_on_its_threads(tmp_path, monkeypatch):
    one = _run(tmp_path, monkeypatch, "one", "1", "--set", "run.partitions=3")
    two = _run(tmp_path, monkeypatch, "two", "2", "--set", "run.partitions=3")
    assert one == two
    assert one["scenario"]["run"]["partitions"] == 3
    assert one["engine"]["delivered_data_packets"] > 1000


def test_jittered_devices_give_the_sequential_results(tmp_path, monkeypatch):
    jitter = ("--set", "flows.mptcp.start_spread=1s", "--set", "flows.mpquic.start_spread=1s")
    sequential = _run(tmp_path, monkeypatch, "seq", "2", *jitter)
    parallel = _run(tmp_path, monkeypatch, "par", "2", *jitter, "--set", "run.partitions=2")
    for s in (sequential, parallel):
        s["engine"].pop("events")
        s["scenario"]["run"].pop("partitions", None)
    assert parallel == sequential


def test_a_scenario_that_cannot_be_split_is_refused(tmp_path):
    r = mptlab("run", REPO / "scenarios" / "tunnel.toml", "--out", tmp_path / "t", "--set", "run.partitions=2")
    assert r.returncode == 2
    assert "run.partitions" in r.stderr and "tunnels" in r.stderr
    assert not (tmp_path / "t").exists()
