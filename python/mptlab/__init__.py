"""mptlab: a deterministic packet-level multipath transport simulator.

The simulation itself lives in the Rust extension module :mod:`mptlab._core`; this package is
the friendly layer on top of it: loading scenarios, driving a run, writing results, plots and
the ``mptlab`` command line.

Quick start::

    import mptlab
    res = mptlab.run("scenarios/quickstart.toml", seed=1, out="runs/quickstart")
    res.summary["flows"][0]["goodput_mbps"]["mean"]
    df = res.timeseries.to_pandas()

This module imports only the extension module and the standard library, so that
``python -m mptlab._benchworker`` measures the simulator and not pyarrow or matplotlib.
Everything heavier is imported on first use.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mptlab import _core
from mptlab._core import ScenarioError

if TYPE_CHECKING:  # pragma: no cover
    from os import PathLike

    from mptlab.results import Result
    from mptlab.source import Overrides, ScenarioLike

__version__: str = _core.version()

__all__ = ["run", "check", "sweep", "sweep_store", "Result", "ScenarioError", "__version__"]


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Overrides = None,
    out: str | PathLike[str] | None = None,
    progress: bool = False,
    plots: bool = True,
) -> Result:
    """Validate and simulate one scenario; return its :class:`Result`.

    scenario: a path to a TOML scenario file, or the TOML text itself.
    seed: the run seed (None: the scenario's own seed, else the engine default).
    overrides: ``{"flows.bulk.cc": "reno"}`` or ``["flows.bulk.cc=reno"]`` — applied to the
        scenario before validation, like ``mptlab run --set``.
    out: when given, the output folder to write (``summary.json``, ``run.json``,
        ``timeseries.parquet`` and, with ``plots``, ``goodput.png`` and ``queue_delay.png``).
        The folder is created only after the scenario validated.
    progress: show a progress bar on stderr when the run takes more than about a second.

    Raises :class:`ScenarioError` (a ``ValueError``) when the scenario is invalid, and
    ``OSError`` when the scenario file cannot be read.
    """
    from mptlab.simulate import execute, prepare

    return execute(prepare(scenario, seed, overrides), out=out, progress=progress, plots=plots)


def check(
    scenario: ScenarioLike, seed: int | None = None, overrides: Overrides = None
) -> dict[str, Any]:
    """Validate a scenario without running it; return the canonical scenario as a dict.

    Raises :class:`ScenarioError` naming the key path, the reason and the valid choices.
    """
    from mptlab.source import load, normalize_overrides

    src = load(scenario)
    text = _core.check(src.text, normalize_overrides(overrides), seed)
    return json.loads(text)


def sweep(
    plan: Any,
    out: str | PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    progress: bool = False,
) -> Any:
    """Run a sweep plan; return its `runs` table as a pandas DataFrame (one row per run).

    plan: a plan file path or TOML text (see docs/sweeps.md). out: the sweep folder (default:
    a new temporary folder, in ``df.attrs["out"]``); finished runs found there are skipped.
    workers: local worker processes (default: cores). dask: a scheduler address or
    ``"local:N"``. Raises ``PlanError`` (a ValueError) before running anything when the plan
    is invalid; failed runs are rows with status 'failed' and their message in `error`.
    """
    from mptlab.sweeps import sweep as _sweep

    return _sweep(plan, out=out, workers=workers, dask=dask, progress=progress)


def sweep_store(folder: str | PathLike[str]) -> Any:
    """The results store of a sweep folder: ``.query(sql)`` -> DataFrame over the views runs,
    flows, links, timeseries; ``.load()`` -> all of them; ``.connect()`` -> DuckDB."""
    from mptlab.sweeps.store import Store

    return Store(folder)


def __getattr__(name: str) -> Any:
    # `Result` needs pyarrow; import it only when somebody asks for it.
    if name == "Result":
        from mptlab.results import Result

        return Result
    raise AttributeError(f"module 'mptlab' has no attribute {name!r}")
