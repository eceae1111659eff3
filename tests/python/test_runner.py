"""`mptlab.runner`: the one place a run is executed (docs/resolve.md, "The runner")."""

from __future__ import annotations

import subprocess
import sys

import pytest

import mptlab
from mptlab import _core, runner
from conftest import QUICKSTART, REPO

SHORT = [("run.duration", "2s")]
CONTRACT = {"backend", "seed", "summary", "timeseries", "sim_s", "build_s", "run_s", "results_s",
            "events", "delivered_data_packets"}


@pytest.fixture(scope="module")
def text() -> str:
    return QUICKSTART.read_text()


def test_run_fills_the_result_contract(text):
    out = runner.run(text, SHORT, 3)
    assert set(out._fields) == CONTRACT
    assert (out.backend, out.seed, out.sim_s) == ("simulator", 3, 2.0)
    assert out.summary["seed"] == 3 and out.summary["duration_s"] == 2.0
    assert set(out.timeseries) == {"series", "entity", "t_s", "value"}
    assert len(out.timeseries["t_s"]) == len(out.timeseries["value"]) > 0
    assert out.events == out.summary["engine"]["events"] > 0
    assert out.delivered_data_packets > 0
    assert min(out.build_s, out.run_s, out.results_s) >= 0


def test_results_match_mptlab_run_and_do_not_depend_on_the_steps(text):
    one_step = runner.run(text, SHORT, 5, chunks=1)
    default = runner.run(text, SHORT, 5)
    api = mptlab.run(text, seed=5, overrides=dict(SHORT))
    assert one_step.summary == default.summary == api.summary
    assert one_step.timeseries == default.timeseries
    assert one_step.events == default.events == api.run_info["events"]


def test_what_is_not_asked_for_is_not_collected(text):
    out = runner.run(text, SHORT, 1, summary=False, series=False)
    assert out.summary is None and out.timeseries is None and out.events > 0


def test_prepare_validates_before_running(text):
    prep = runner.prepare(text, SHORT, 9)
    assert prep.seed == 9 and prep.duration_s == 2.0 and prep.run_s == 0.0
    with pytest.raises(RuntimeError, match="advance"):
        prep.collect()
    assert prep.advance() >= 0
    assert prep.collect(series=False).summary["seed"] == 9
    for bad in (-1, 2**64, True, 1.5):
        with pytest.raises(_core.ScenarioError, match="seed"):
            runner.prepare(text, [], bad)
    with pytest.raises(_core.ScenarioError, match="backend.*simulator"):
        runner.prepare(text, [], None, backend="nope")
    with pytest.raises(_core.ScenarioError, match="links.bottleneck.rate"):
        runner.prepare(text, [("links.bottleneck.rate", "fast")])


def test_a_registered_backend_fills_the_same_contract(text, monkeypatch):
    """The seam: a backend is a factory of sessions; the runner drives whatever it returns."""
    calls: list[float] = []

    class Recording:
        def __init__(self, t, overrides, seed):
            self._inner = runner.BACKENDS["simulator"](t, overrides, seed)

        def __getattr__(self, name):
            return getattr(self._inner, name)

        def advance(self, until_s):
            calls.append(until_s)
            self._inner.advance(until_s)

    monkeypatch.setitem(runner.BACKENDS, "recording", Recording)
    out = runner.run(text, SHORT, 4, backend="recording", chunks=4)
    assert out.backend == "recording" and calls == [0.5, 1.0, 1.5, 2.0]
    # the same summary, marked with the backend that made it
    sim = runner.run(text, SHORT, 4, series=False).summary
    assert out.summary == {**sim, "backend": "recording"} and sim["backend"] == "simulator"


def test_only_the_runner_builds_a_simulation():
    cmd = ["grep", "-rln", "--include=*.py", "--include=*.pyi", "_core.Simulation", str(REPO / "python")]
    hits = subprocess.run(cmd, capture_output=True, text=True)
    files = {line.rsplit("/", 1)[1] for line in hits.stdout.split()}
    assert files == {"runner.py"}, hits.stdout


def test_the_runner_imports_nothing_heavy():
    code = (
        "import sys, mptlab.runner; "
        "heavy = [m for m in ('pyarrow', 'pandas', 'numpy', 'matplotlib', 'rich', 'typer') "
        "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
