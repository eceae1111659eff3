"""Sweeps end to end: process pool vs Dask, resuming after SIGKILL, failed runs, query."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import mptlab
from mptlab.sweeps.runner import run_sweep
from mptlab.sweeps.plan import load_plan
from mptlab.sweeps.store import VOLATILE_COLUMNS, Store

ROOT = Path(__file__).resolve().parents[2]
PLANS = ROOT / "tests" / "plans"
MPTLAB = [sys.executable, "-m", "mptlab"]


def _mptlab(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MPTLAB, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def _processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line contains `text` (forked workers share the sweep's)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z":
            pids.append(int(proc.name))
    return pids


def _stable(df: pd.DataFrame) -> pd.DataFrame:
    """Result rows without the columns that describe one execution (timings, host)."""
    cols = [c for c in df.columns if c not in VOLATILE_COLUMNS]
    return df[cols].sort_values("run_key").reset_index(drop=True)


def test_grid_plan_gives_identical_rows_in_the_process_pool_and_on_dask(tmp_path: Path) -> None:
    plan = load_plan(PLANS / "grid.toml")  # 2 cc x 3 buffers x 3 seeds
    pool = run_sweep(plan, tmp_path / "pool", workers=2)
    dask = run_sweep(plan, tmp_path / "dask", dask="local:2")
    assert (pool.ok, pool.failed, dask.ok, dask.failed) == (18, 0, 18, 0)
    assert dask.backend == "dask" and dask.workers == 2
    for table in ("runs", "flows", "links"):
        a = Store(tmp_path / "pool").query(f"SELECT * FROM {table}")
        b = Store(tmp_path / "dask").query(f"SELECT * FROM {table}")
        sort = ["run_key"] + [c for c in ("flow", "link") if c in a.columns]
        a, b = (_stable(x.sort_values(sort)) for x in (a, b))
        pd.testing.assert_frame_equal(a, b)
    runs = Store(tmp_path / "pool").query("SELECT * FROM runs")
    assert len(runs) == 18 and runs["run_key"].is_unique
    assert set(runs["cc"]) == {"reno", "cubic"} and set(runs["buffer"]) == {"0.5bdp", "1bdp", "4bdp"}
    assert sorted(runs["seed"].unique()) == [1, 2, 3]
    # the same time series both ways, too
    ts = "SELECT run_key, series, entity, t_s, value FROM timeseries ORDER BY ALL"
    pd.testing.assert_frame_equal(Store(tmp_path / "pool").query(ts), Store(tmp_path / "dask").query(ts))


def test_a_run_row_matches_a_single_run_of_the_same_point(tmp_path: Path) -> None:
    run_sweep(load_plan(PLANS / "grid.toml"), tmp_path / "s", workers=1)
    row = Store(tmp_path / "s").query(
        "SELECT * FROM runs WHERE cc = 'cubic' AND buffer = '1bdp' AND seed = 2"
    ).iloc[0]
    alone = mptlab.run(
        ROOT / "scenarios" / "dumbbell.toml",
        seed=2,
        overrides={"run.duration": "2s", "flows.bulk.cc": "cubic", "links.bottleneck.queue.limit": "1bdp"},
    )
    flows = alone.summary["flows"]
    assert row["goodput_mbps"] == pytest.approx(sum(f["goodput_mbps"]["mean"] for f in flows), rel=1e-12)
    assert row["jain"] == alone.summary["jain_all_flows"]
    stored = json.loads((tmp_path / "s" / "summaries" / f"{row['run_key']}.json").read_text())
    assert stored == alone.summary


def test_rerunning_a_finished_sweep_skips_every_run(tmp_path: Path) -> None:
    plan = load_plan(PLANS / "grid.toml")
    first = run_sweep(plan, tmp_path / "s", workers=2)
    before = Store(tmp_path / "s").query("SELECT run_key, finished_at FROM runs ORDER BY run_key")
    again = run_sweep(plan, tmp_path / "s", workers=2)
    assert (first.ok, again.skipped, again.ok, again.failed) == (18, 18, 0, 0)
    after = Store(tmp_path / "s").query("SELECT run_key, finished_at FROM runs ORDER BY run_key")
    pd.testing.assert_frame_equal(before, after)


def test_a_sweep_killed_with_sigkill_resumes_without_losing_or_duplicating_runs(tmp_path: Path) -> None:
    plan = tmp_path / "slow.toml"
    plan.write_text(
        f'base = "{ROOT / "scenarios" / "dumbbell.toml"}"\n'
        "seeds = 6\n"
        '[set]\n"run.duration" = "20s"\n"links.bottleneck.rate" = "400Mbps"\n'
        '[axes]\n"flows.bulk.cc" = ["reno", "cubic"]\n'
    )
    out = tmp_path / "s"
    proc = subprocess.Popen([*MPTLAB, "sweep", str(plan), "--out", str(out), "-j", "2", "-q"], cwd=ROOT)
    try:
        parts = out / "parts" / "runs"
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and len(list(parts.glob("*.parquet"))) < 3:
            assert proc.poll() is None, "the sweep ended before it could be killed; make it slower"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    done_before = {p.stem: p.stat().st_mtime_ns for p in parts.glob("*.parquet")}
    assert 3 <= len(done_before) < 12
    # the workers died with the sweep (PR_SET_PDEATHSIG): no process of it is left
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(plan)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_mentioning(str(plan)) == []
    assert {p.stem: p.stat().st_mtime_ns for p in parts.glob("*.parquet")} == done_before

    res = _mptlab("sweep", str(plan), "--out", str(out), "-j", "2", "--json")
    assert res.returncode == 0, res.stderr
    outcome = json.loads(res.stdout)
    assert outcome["skipped"] == len(done_before)
    assert outcome["ok"] == 12 - len(done_before)
    # finished runs were not recomputed: their files are the very same
    for key, mtime in done_before.items():
        assert (parts / f"{key}.parquet").stat().st_mtime_ns == mtime
    runs = Store(out).query("SELECT run_key, status FROM runs")
    assert len(runs) == 12 and runs["run_key"].is_unique and set(runs["status"]) == {"ok"}
    assert not list(out.rglob(".*.tmp")), "temp files of the killed writer were left behind"
    for f in out.rglob("*.parquet"):  # every file whole
        pq.read_metadata(f)
    flows = Store(out).query("SELECT run_key, count(*) AS n FROM flows GROUP BY run_key")
    assert len(flows) == 12 and set(flows["n"]) == {3}


def test_one_invalid_combination_fails_alone_and_the_exit_code_says_so(tmp_path: Path) -> None:
    res = _mptlab("sweep", str(PLANS / "one-invalid-combination.toml"), "--out", str(tmp_path / "s"))
    assert res.returncode == 1, res.stderr
    assert "1 failed" in res.stdout and "flows.bulk.start" in res.stderr
    runs = Store(tmp_path / "s").query("SELECT * FROM runs ORDER BY point")
    assert list(runs["status"]) == ["ok", "failed", "ok", "ok"]
    failed = runs[runs["status"] == "failed"].iloc[0]
    assert failed["duration"] == "10s" and failed["start"] == "20s"
    assert "flows.bulk.start" in failed["error"] and "before the end of the run" in failed["error"]
    assert pd.isna(failed["goodput_mbps"])
    # the failed run left no flows, links or time series behind
    keys = set(Store(tmp_path / "s").query("SELECT DISTINCT run_key FROM flows")["run_key"])
    assert failed["run_key"] not in keys and len(keys) == 3


@pytest.mark.parametrize(
    ("plan", "words"),
    [
        ("unknown_axis_key.toml", ["axes."]),
        ("empty_axis.toml", ["empty"]),
        ("random_min_not_below_max.toml", ["random[0]"]),
        ("zip_unequal_lengths.toml", ["zip[0]"]),
    ],
)
def test_an_invalid_plan_exits_2_with_one_message_and_runs_nothing(tmp_path: Path, plan: str, words: list[str]) -> None:
    res = _mptlab("sweep", str(PLANS / "broken" / plan), "--out", str(tmp_path / "s"))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert all(w in lines[0] for w in words), lines[0]
    assert not (tmp_path / "s").exists()


def test_query_answers_sql_over_runs_flows_links_and_timeseries(tmp_path: Path) -> None:
    run_sweep(load_plan(PLANS / "grid.toml"), tmp_path / "s", workers=2)
    res = _mptlab(
        "query", str(tmp_path / "s"),
        "SELECT cc, count(*) AS n, avg(goodput_mbps) AS g FROM runs GROUP BY cc ORDER BY cc", "--json",
    )
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [r["cc"] for r in rows] == ["cubic", "reno"] and [r["n"] for r in rows] == [9, 9]
    assert all(50 < r["g"] < 100 for r in rows)  # 100 Mbit/s bottleneck
    ts = Store(tmp_path / "s").query(
        "SELECT cc, buffer, seed, count(*) AS n FROM timeseries WHERE series = 'goodput_mbps' GROUP BY ALL"
    )
    assert len(ts) == 18 and set(ts["n"]) == {6}  # 3 flows x 2 one-second bins
    links = Store(tmp_path / "s").query("SELECT DISTINCT link FROM links WHERE utilization > 0.5")
    assert "bottleneck" in set(links["link"])
    bad = _mptlab("query", str(tmp_path / "s"), "SELECT nope FROM runs")
    assert bad.returncode == 2 and bad.stderr.startswith("error: query:")
    missing = _mptlab("query", str(tmp_path / "nowhere"), "SELECT 1")
    assert missing.returncode == 2 and "not a sweep folder" in missing.stderr


def test_python_api_returns_the_runs_table(tmp_path: Path) -> None:
    df = mptlab.sweep(PLANS / "grid.toml", out=tmp_path / "s", workers=2)
    assert len(df) == 18 and set(df["status"]) == {"ok"}
    assert {"cc", "buffer", "seed", "goodput_mbps", "jain", "run_key"} <= set(df.columns)
    assert df.attrs["outcome"]["ok"] == 18


def test_a_folder_of_another_plan_is_refused(tmp_path: Path) -> None:
    run_sweep(load_plan(PLANS / "grid.toml"), tmp_path / "s", workers=2)
    res = _mptlab("sweep", str(PLANS / "one-invalid-combination.toml"), "--out", str(tmp_path / "s"))
    assert res.returncode == 2 and "another plan" in res.stderr


def test_a_sweep_runs_on_an_existing_dask_scheduler_by_address(tmp_path: Path) -> None:
    """A real `dask scheduler` and `dask worker` on loopback, addressed as tcp://host:port."""
    dask_cli = Path(sys.executable).with_name("dask")
    sched_file = tmp_path / "scheduler.json"
    common = ["--no-dashboard"]
    scheduler = subprocess.Popen(
        [str(dask_cli), "scheduler", "--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(sched_file), *common],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        worker = subprocess.Popen(
            [str(dask_cli), "worker", "--scheduler-file", str(sched_file), "--nthreads", "1", "--nworkers", "1",
             "--host", "127.0.0.1", *common],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        res = _mptlab("sweep", str(PLANS / "inline-scenario.toml"), "--out", str(tmp_path / "s"), "--dask", address, "--json")
        assert res.returncode == 0, res.stderr
        outcome = json.loads(res.stdout)
        assert (outcome["backend"], outcome["ok"], outcome["failed"]) == ("dask", 4, 0)
        local = run_sweep(load_plan(PLANS / "inline-scenario.toml"), tmp_path / "local", workers=1)
        assert local.ok == 4
        a = _stable(Store(tmp_path / "s").query("SELECT * FROM runs"))
        b = _stable(Store(tmp_path / "local").query("SELECT * FROM runs"))
        pd.testing.assert_frame_equal(a, b)
    finally:
        for proc in (worker, scheduler):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()


def test_runs_of_an_older_mptlab_version_stay_out_of_the_views(tmp_path: Path) -> None:
    plan = load_plan(PLANS / "grid.toml")
    run_sweep(plan, tmp_path / "s", workers=2)
    parts = tmp_path / "s" / "parts" / "runs"
    # a part left by another version has a key the current plan does not produce
    stale = next(parts.glob("*.parquet"))
    (parts / "0123456789abcdef.parquet").write_bytes(stale.read_bytes())
    runs = Store(tmp_path / "s").query("SELECT run_key FROM runs")
    assert len(runs) == 18 and "0123456789abcdef" not in set(runs["run_key"])


def test_parameter_columns_keep_one_type(tmp_path: Path) -> None:
    from mptlab.sweeps.runner import make_tasks

    plan = load_plan(
        f'base = "{ROOT / "scenarios" / "dumbbell.toml"}"\n'
        '[axes]\n"links.bottleneck.loss.p" = [0, 0.01]\n"flows.bulk.count" = [1, 2]\n'
        '[set]\n"links.bottleneck.loss" = { model = "bernoulli", p = 0.0 }\n'
    )
    tasks = make_tasks(plan)
    assert {type(t.params["p"]) for t in tasks} == {float}
    assert {type(t.params["count"]) for t in tasks} == {int}
