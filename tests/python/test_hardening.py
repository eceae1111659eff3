"""Issue 18 (hardening): inputs that once gave tracebacks, wrong results or writes outside the
output folder now give one line on stderr and the documented exit code, and nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mptlab
from mptlab import _core
from mptlab.sweeps.plan import load_plan
from mptlab.sweeps.runner import run_sweep
from mptlab.sweeps.store import Store, StoreError

from conftest import QUICKSTART, mptlab as run_cli

ROOT = Path(__file__).resolve().parents[2]


def _one_line_exit_2(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    for w in words:
        assert w.lower() in r.stderr.lower(), r.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["run"], ["missing argument", "mptlab run -h"]),
        (["run", str(QUICKSTART), "--bogus"], ["no such option", "--bogus"]),
        (["run", str(QUICKSTART), "--seed", "abc"], ["--seed"]),
        (["sweep"], ["missing argument", "plan"]),
        (["bench", "--bogus"], ["no such option"]),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args, words, tmp_path):
    _one_line_exit_2(run_cli(*args, cwd=tmp_path), *words)


def test_the_bare_command_still_prints_the_help():
    r = run_cli()
    assert r.returncode == 0 and "Usage: mptlab" in r.stdout


def test_undecodable_bytes_in_set_are_exit_2(tmp_path):
    # A terminal hands Python undecodable bytes as surrogates; encoding them once crashed.
    out = tmp_path / "x"
    r = subprocess.run(
        [sys.executable, "-m", "mptlab", "run", str(QUICKSTART), "--out", str(out), "--set", b"flows.bulk.cc=\xff".decode("utf-8", "surrogateescape")],
        capture_output=True, text=True, errors="replace", timeout=120,
    )
    _one_line_exit_2(r, "not valid UTF-8")
    assert not out.exists()


@pytest.mark.parametrize(
    "item, words",
    [
        ("flows. bulk.cc=reno", ["white space"]),
        ("run.seed=5\nflows.x = 1", ["more than one TOML value"]),
        ("flows.bulk.count=99999999999999999999", ["too large", "64-bit"]),
    ],
)
def test_set_values_the_engine_would_read_differently_are_refused(item, words, tmp_path):
    _one_line_exit_2(run_cli("check", QUICKSTART, "--set", item, cwd=tmp_path), *words)
    with pytest.raises(ValueError):
        mptlab.check(QUICKSTART, overrides=[item])


def test_vegas_alpha_above_beta_is_refused(tmp_path):
    r = run_cli("check", QUICKSTART, "--set", "flows.bulk.cc=vegas", "--set", "flows.bulk.cc_options={alpha = 5, beta = 2}", cwd=tmp_path)
    _one_line_exit_2(r, "flows.bulk.cc_options", "alpha (5) must not exceed beta (2)")


def test_too_many_flows_names_the_entry_that_has_them(tmp_path):
    # quickstart: bulk first, then cbr and a third flow; the limit was once blamed on
    # whichever entry crossed it (flows.cbr.count).
    r = run_cli("check", QUICKSTART, "--set", "flows.bulk.count=10000000", cwd=tmp_path)
    _one_line_exit_2(r, "flows.bulk.count", "above the limit of 10000000")


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True])
def test_an_api_seed_out_of_range_is_a_scenario_error(seed):
    with pytest.raises(_core.ScenarioError, match="seed"):
        mptlab.run(QUICKSTART, seed=seed)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("store") / "s"
    run_sweep(load_plan(ROOT / "tests" / "plans" / "grid.toml"), root, workers=2)
    return root


@pytest.mark.parametrize(
    "sql, words",
    [
        ("", ["empty"]),
        ("   ;  ", ["empty"]),
        ("COPY runs TO 'leak.csv'", ["only SELECT", "COPY"]),
        ("SELECT 1; DROP VIEW runs", ["only SELECT"]),
        ("SELECT * FROM read_csv_auto('/etc/passwd')", ["/etc/passwd"]),
        ("ATTACH '/tmp/elsewhere.db'", ["only SELECT"]),
    ],
)
def test_query_is_read_only_and_confined_to_the_store(store, sql, words, tmp_path):
    _one_line_exit_2(run_cli("query", str(store), sql, cwd=tmp_path), *words)
    assert list(tmp_path.iterdir()) == []


def test_query_reads_the_store_itself(store):
    df = Store(store).query("SELECT count(*) AS n FROM runs; SELECT count(*) AS n FROM timeseries")
    assert int(df["n"][0]) > 0


def test_a_stale_index_that_cannot_be_rewritten_is_a_store_error(store, tmp_path, monkeypatch):
    # Root ignores permission bits, so the read-only folder is simulated at the write.
    import shutil

    from mptlab.sweeps import store as store_mod

    copy = tmp_path / "ro"
    shutil.copytree(store, copy)
    (copy / ".index-stamp.json").unlink()

    def refuse(path, table):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(store_mod, "_write_parquet", refuse)
    with pytest.raises(StoreError, match="cannot be rewritten"):
        Store(copy).query("SELECT 1")


def _plan(tmp_path: Path, extra: str = "") -> Path:
    plan = tmp_path / "p.toml"
    plan.write_text(
        f'base = "{ROOT / "scenarios" / "dumbbell.toml"}"\nseeds = 2\n[set]\n"run.duration" = "1s"\n{extra}'
        '[axes]\n"flows.bulk.cc" = ["reno", "cubic"]\n'
    )
    return plan


def test_a_sweep_whose_seeds_all_agree_warns(tmp_path):
    # The dumbbell has no random component: both seeds of every point are the same run.
    r = run_cli("sweep", _plan(tmp_path), "--out", tmp_path / "s", "-q", "-j", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "warning: every point gave identical results for all of its 2 seeds" in r.stderr
    from mptlab.report.render import build_report

    assert "no random component" in build_report(tmp_path / "s").read_text()


def test_a_sweep_with_random_loss_does_not_warn(tmp_path):
    extra = '"links.bottleneck.loss" = { model = "bernoulli", p = 0.001 }\n'
    r = run_cli("sweep", _plan(tmp_path, extra), "--out", tmp_path / "s", "-q", "-j", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr


def test_seed_spread_counts_points_whose_seeds_agree():
    import pandas as pd

    from mptlab.sweeps.seeds import seed_spread

    runs = pd.DataFrame({
        "cc": ["reno", "reno", "cubic", "cubic", "bbr"], "seed": [1, 2, 1, 2, 1], "status": ["ok"] * 5,
        "goodput_mbps": [5.0, 5.0, 4.0, 4.5, 3.0],
    })
    s = seed_spread(runs, ["cc"])
    assert (s.points, s.identical, s.seeds, s.all_identical) == (2, 1, 2, False)
    assert s.warning() is None
    same = seed_spread(runs[runs["cc"] == "reno"], ["cc"])
    assert same.all_identical and "2 seeds" in same.warning()


def test_an_interrupted_run_leaves_a_marked_folder_that_a_rerun_replaces(tmp_path):
    import signal
    import time

    out = tmp_path / "r"
    cmd = [sys.executable, "-m", "mptlab", "run", str(QUICKSTART), "--out", str(out), "--no-plots", "-q"]
    # 10^5 simulated s: over a minute of wall time, so the SIGINT lands while it simulates.
    # SIGINT back to its default in the child: a test run started as a background job inherits
    # it ignored, and Python then never turns it into KeyboardInterrupt.
    p = subprocess.Popen(
        [*cmd, "--set", "run.duration=100000s"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not (out / ".incomplete").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (out / ".incomplete").exists(), "the folder appears with its marker before the run"
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 130, err
    assert (out / ".incomplete").exists() and not (out / "summary.json").exists()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert not (out / ".incomplete").exists() and (out / "summary.json").exists()


def test_a_second_sweep_into_a_folder_in_use_is_refused(tmp_path):
    plan = _plan(tmp_path)
    folder = tmp_path / "s"
    with Store(folder).lock():
        r = run_cli("sweep", plan, "--out", folder, "-q", cwd=tmp_path)
    _one_line_exit_2(r, "another sweep is writing to this folder", f"pid {__import__('os').getpid()}")
    assert not (folder / "sweep.json").exists()
    r = run_cli("sweep", plan, "--out", folder, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_rerunning_a_complete_sweep_writes_nothing(tmp_path, monkeypatch):
    plan = load_plan(_plan(tmp_path))
    first = run_sweep(plan, tmp_path / "s", workers=2)
    assert first.ok == 4

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # Root ignores permission bits: a read-only folder is simulated by refusing every write.
    monkeypatch.setattr(Store, "create", refuse)
    monkeypatch.setattr(Store, "lock", refuse)
    monkeypatch.setattr(Store, "write", refuse)
    again = run_sweep(plan, tmp_path / "s", workers=2)
    assert (again.total, again.skipped, again.ok, again.failed) == (4, 4, 0, 0)


@pytest.mark.parametrize("command", [["run", str(QUICKSTART)], ["sweep", "plans/buffer-vs-cc.toml"], ["report", "x"]])
def test_an_empty_out_is_refused_instead_of_writing_here(command, tmp_path):
    _one_line_exit_2(run_cli(*command, "--out", "", cwd=tmp_path), "--out", "empty path")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../../x", "a/b", "..", ""])
def test_plot_names_cannot_leave_the_out_folder(store, name, tmp_path):
    out = tmp_path / "figs"
    r = run_cli("plot", str(store), "--kind", "bar", "--x", "cc", "--y", "goodput_mbps", "--out", out, "--name", name, cwd=tmp_path)
    _one_line_exit_2(r, "--name")
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_dask_scheduler_is_exit_2_before_anything_is_made(tmp_path):
    import socket

    with socket.socket() as s:  # a port nobody listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        r = run_cli("sweep", "plans/buffer-vs-cc.toml", "--out", tmp_path / "s", "--dask", f"tcp://127.0.0.1:{port}", cwd=ROOT)
    _one_line_exit_2(r, "cannot reach the scheduler")
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("command", [["sweep", "plans/buffer-vs-cc.toml"], ["reproduce", "seed002"]])
def test_workers_with_dask_is_refused_instead_of_ignored(command, tmp_path):
    r = run_cli(*command, "--out", tmp_path / "o", "--dask", "local:2", "-j", "2", cwd=ROOT)
    _one_line_exit_2(r, "--workers", "--dask")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "missing, args, extra",
    [
        ("sklearn", ["learn", "blp-threshold", "--small", "--out", "o"], "learn"),
        ("distributed", ["sweep", "plans/buffer-vs-cc.toml", "--out", "o", "--dask", "local:1"], "dask"),
    ],
)
def test_a_missing_extra_is_named_with_its_install_command(missing, args, extra, tmp_path):
    code = (f"import sys; sys.modules[{missing!r}] = None; sys.argv = ['mptlab', *{args!r}]; "
            "from mptlab.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    _one_line_exit_2(r, f"pip install 'mptlab[{extra}]'")
    assert not (ROOT / "o").exists()


def test_shipped_scenarios_plans_and_reference_are_found_outside_the_repository(tmp_path, monkeypatch):
    # An installed mptlab carries them in the package (mptlab/data); `mptlab bench` and
    # `mptlab reproduce` find them from any folder.
    from mptlab.paths import DATA, data_file

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MPTLAB_ROOT", raising=False)
    for rel in ("scenarios/quickstart.toml", "scenarios/bench/w4.toml", "plans/seed001.toml", "reference/seed002.csv"):
        found = data_file(rel)
        assert found is not None and found.resolve() == (DATA / rel).resolve(), rel
    assert (ROOT / "scenarios").resolve() == (DATA / "scenarios").resolve()
