"""`mptlab bench --compare REV`. Building another revision takes minutes, too slow for the
suite; here the current build stands in for both sides: REV's cached build is a copy of this
checkout's `python/` (with its built `_core`) under the cache folder, and every measurement is
a real worker process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, mptlab

from mptlab import bench
from mptlab import bench_compare as c
from mptlab.bench import BenchError

TINY = (("run.duration", "0.2s"),)


def head_sha() -> str:
    return subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def stand_in_build(cache: Path, sha: str, with_module: bool = True) -> Path:
    """A completed cache entry for `sha` holding a copy of the current package."""
    tree = cache / sha
    ignore = ["__pycache__"] if with_module else ["__pycache__", "_core*.so"]
    shutil.copytree(REPO / "python" / "mptlab", tree / "python" / "mptlab", ignore=shutil.ignore_patterns(*ignore))
    (tree / "BUILT").write_text(sha + "\n")
    return tree


def test_rounds_alternate_which_build_goes_first():
    w1, w3 = bench.WORKLOADS["W1"], bench.WORKLOADS["W3"]
    plan = c.schedule(4, [w1, w3])
    assert [(r, w.name, order) for r, w, order in plan] == [
        (0, "W1", ("new", "old")), (0, "W3", ("new", "old")),
        (1, "W1", ("old", "new")), (1, "W3", ("old", "new")),
        (2, "W1", ("new", "old")), (2, "W3", ("new", "old")),
        (3, "W1", ("old", "new")), (3, "W3", ("old", "new")),
    ]


def test_pair_rows_takes_medians_and_the_ratio_of_packet_rates_new_over_old():
    def m(wall: float, pps: float, rss: float, sim: float = 60.0) -> dict:
        return {"sim_s": sim, "wall_s": wall, "delivered_pkts_per_s": pps, "peak_rss_mb": rss}

    new = [m(1.0, 300.0, 15.0), m(2.0, 200.0, 16.0), m(1.5, 250.0, 15.5)]
    old = [m(2.0, 150.0, 30.0), m(2.0, 100.0, 31.0), m(3.0, 125.0, 29.0, sim=30.0)]
    row = c.pair_rows("W1", new, old, "deb21fbfc5")
    assert row["comparable"] and row["rounds"] == 3 and row["old"] == "deb21fbfc5"
    assert row["new_wall_s"] == 1.5 and row["old_wall_s"] == 2.0
    assert row["new_delivered_pkts_per_s"] == 250.0 and row["old_delivered_pkts_per_s"] == 125.0
    assert row["speedup"] == 2.0  # 250 / 125: the new build delivers twice the packets per wall second
    assert row["speedup_min"] == 2.0 and row["speedup_max"] == 2.0  # each round: 300/150, 200/100, 250/125
    assert row["new_peak_rss_mb"] == 16.0 and row["old_peak_rss_mb"] == 31.0
    assert row["sim_s"] == 60.0 and row["old_sim_s"] == 60.0
    skew = c.pair_rows("W1", new, [m(1.0, 100.0, 1.0), m(1.0, 400.0, 1.0), m(1.0, 125.0, 1.0)], "x")
    assert skew["speedup_min"] == 0.5 and skew["speedup_max"] == 3.0  # 200/400 and 300/100


def test_outside_a_git_checkout_is_exit_2(tmp_path):
    with pytest.raises(bench.BenchError) as e:
        c.checkout_root(tmp_path)
    assert e.value.exit_code == 2 and "git checkout" in str(e.value)


def test_unknown_revision_is_exit_2_with_the_name():
    r = mptlab("bench", "W1", "--compare", "no-such-revision-xyz", "--json")
    assert r.returncode == 2
    assert "no-such-revision-xyz" in r.stderr and r.stdout == ""
    with pytest.raises(bench.BenchError):
        c.resolve_rev(REPO, "--help")  # an option, not a revision


def test_a_revision_resolves_to_its_full_sha():
    assert c.resolve_rev(REPO, "HEAD") == head_sha() and len(head_sha()) == 40


def test_cached_build_is_found_only_when_complete_and_then_reused_without_building(tmp_path):
    sha = head_sha()
    assert c.cached_build(tmp_path, sha) is None
    tree = stand_in_build(tmp_path, sha)
    (tree / "BUILT").unlink()
    assert c.cached_build(tmp_path, sha) is None  # an interrupted build is not used
    (tree / "BUILT").write_text(sha)
    found = c.cached_build(tmp_path, sha)
    assert found is not None and found.python_path == tree / "python"
    steps: list[str] = []
    build, built = c.build_rev(REPO, sha, tmp_path, steps.append)
    assert build == found and not built and steps == []
    assert not (tmp_path / "target").exists()  # cargo never ran


def test_cache_folder_ignores_itself(tmp_path, monkeypatch):
    monkeypatch.setenv("MPTLAB_BENCH_CACHE", str(tmp_path / "cache"))
    cache = c.cache_dir(REPO)
    assert cache == tmp_path / "cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


def test_compare_runs_both_builds_in_their_own_trees_and_pairs_the_rounds(tmp_path):
    tree = stand_in_build(tmp_path, head_sha())
    old = c.Build("stand-in", tree, tree / "python")
    steps: list[str] = []
    rows = c.compare(c.current_build(), old, [bench.WORKLOADS["W1"]], rounds=2, sets=TINY, progress=steps.append)
    (row,) = rows
    assert row["comparable"], row
    assert row["rounds"] == 2 and row["sim_s"] == pytest.approx(0.2) and row["old_sim_s"] == pytest.approx(0.2)
    assert row["speedup_min"] <= row["speedup"] <= row["speedup_max"]
    assert row["speedup"] > 0 and 0 < row["new_peak_rss_mb"] < 100 and 0 < row["old_peak_rss_mb"] < 100
    # ABBA: round 1 runs the current build first, round 2 the old one (run_side checked each
    # worker imported mptlab from its own tree).
    assert [s.split(": ")[1].split(" (")[0] for s in steps] == [
        "W1 on new", "W1 on stand-in", "W1 on stand-in", "W1 on new"
    ]


def test_a_workload_the_old_build_fails_is_not_comparable_and_the_rest_still_run(tmp_path):
    broken_tree = stand_in_build(tmp_path, "0" * 40, with_module=False)  # no extension module
    old = c.Build("broken", broken_tree, broken_tree / "python")
    steps: list[str] = []
    rows = c.compare(c.current_build(), old, [bench.WORKLOADS["W1"], bench.WORKLOADS["W2"]], rounds=2,
                     sets=TINY, progress=steps.append)
    assert [r["workload"] for r in rows] == ["W1", "W2"]
    for r in rows:
        assert not r["comparable"] and r["failed_side"] == "old"
        assert r["reason"].startswith("broken failed:") and "_core" in r["reason"]
    assert len(steps) == 4  # each workload: new, then the failing old run, and no second round


def test_cli_compare_uses_the_cached_build_and_prints_json_rows(tmp_path):
    sha = head_sha()
    stand_in_build(tmp_path, sha)
    env = dict(os.environ, MPTLAB_BENCH_CACHE=str(tmp_path))
    r = subprocess.run(
        [sys.executable, "-m", "mptlab", "bench", "w1", "--compare", "HEAD", "--rounds", "2", "--set", "run.duration=0.2s", "--json"],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=600,
    )
    assert r.returncode == 0, r.stderr
    assert "using the cached build" in r.stderr and sha[:10] in r.stderr
    (row,) = json.loads(r.stdout)
    assert row["workload"] == "W1" and row["comparable"] and row["old"] == sha[:10] and row["rounds"] == 2


def test_a_build_in_progress_elsewhere_is_waited_for_and_then_reused(tmp_path):
    import fcntl
    import threading

    sha = head_sha()
    result: list[tuple[c.Build, bool]] = []
    steps: list[str] = []
    with (tmp_path / f"{sha}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another comparison is building sha
        waiter = threading.Thread(target=lambda: result.append(c.build_rev(REPO, sha, tmp_path, steps.append)))
        waiter.start()
        waiter.join(timeout=1.0)
        assert waiter.is_alive() and not result  # it waits instead of building the same tree
        stand_in_build(tmp_path, sha)  # the other comparison finishes its build
    waiter.join(timeout=60)
    (build, built) = result[0]
    assert not built and build.tree == tmp_path / sha
    assert not (tmp_path / "target").exists()


def test_new_side_is_heads_export_when_the_tree_is_clean_else_the_installed_build(tmp_path, monkeypatch):
    sha = head_sha()
    stand_in_build(tmp_path, sha)
    calls = []

    def status(root, *args):
        calls.append(args)
        return subprocess.CompletedProcess(args, 0, stdout=" M README.md\n" if dirty else "", stderr="")

    real_git = c._git
    monkeypatch.setattr(c, "_git", lambda root, *a: status(root, *a) if a[0] == "status" else real_git(root, *a))
    dirty = False
    new, head = c.new_build(REPO, tmp_path, lambda _: None)
    assert head == sha and new.label == "new" and new.tree == tmp_path / sha
    dirty = True
    new, head = c.new_build(REPO, tmp_path, lambda _: None)
    assert head is None and new == c.current_build()
    assert all(a[:2] == ("status", "--porcelain") for a in calls)


def test_plain_builds_are_cached_apart_from_profile_guided_ones(tmp_path, monkeypatch):
    sha = head_sha()
    stand_in_build(tmp_path, sha)  # the default kind: the revision's own recipe (PGO when it has one)
    assert c.cached_build(tmp_path, sha) is not None
    monkeypatch.setenv("MPTLAB_PGO", "0")  # compare code alone: every revision built plainly
    assert c.cached_build(tmp_path, sha) is None
    assert c._build_of(tmp_path, sha).tree == tmp_path / f"{sha}-plain"


def test_the_recipe_of_a_build_is_its_trees(tmp_path, monkeypatch):
    sha = head_sha()
    tree = stand_in_build(tmp_path, sha)
    build = c.cached_build(tmp_path, sha)
    assert build is not None and c.recipe(build) == "plain"  # a tree without the PGO script
    (tree / "tools").mkdir()
    (tree / "tools" / "pgo-profile.sh").write_text("#!/bin/sh\n")
    assert c.recipe(build) == "profile-guided"
    monkeypatch.setenv("MPTLAB_PGO", "0")
    assert c.recipe(build) == "plain"


def test_an_export_has_the_time_of_export_so_a_shared_target_rebuilds_it(tmp_path, monkeypatch):
    # cargo judges the workspace's crates fresh by mtime in the target folder all revisions
    # share: files stamped with an old commit's time would let it reuse a newer revision's build.
    monkeypatch.setenv("MPTLAB_PGO", "0")
    monkeypatch.setattr(c, "_cargo", lambda: "false")  # stop right after the export
    started = time.time()
    with pytest.raises(BenchError, match="cargo exit"):
        c._build_now(REPO, head_sha(), tmp_path, lambda _: None)
    tree = c._build_of(tmp_path, head_sha()).tree
    assert (tree / "Cargo.toml").stat().st_mtime >= started - 1
