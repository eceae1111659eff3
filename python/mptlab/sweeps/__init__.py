"""Sweeps: run a plan's points locally or on Dask, keep the results in a queryable store.

    import mptlab
    df = mptlab.sweep("plans/buffer-vs-cc.toml", out="sweeps/b")   # pandas DataFrame, one row per run
    mptlab.sweep_store("sweeps/b").query("SELECT cc, avg(goodput_mbps) FROM runs GROUP BY cc")

(`mptlab.sweep` and `mptlab.sweep_store` are this module's `sweep` and `Store`.)

Modules: `plan` (plan files, validation, points), `worker` (one run, anywhere), `backends`
(process pool, Dask), `runner` (keys, skipping, storing), `store` (Parquet parts, index,
DuckDB views), `flatten` (summary -> rows), `progress` (the bar). See docs/sweeps.md.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from mptlab.sweeps.store import Store


def sweep(
    plan: Any,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    progress: bool = False,
) -> Any:
    """Run a plan (a path, TOML text or a loaded `Plan`) and return its `runs` table as a
    pandas DataFrame (one row per run: key, status, error, point, seed, parameters, metrics).

    out: the sweep folder (default: a new temporary folder, see ``df.attrs["out"]``).
    workers: local worker processes (default: cores). dask: a scheduler address or
    ``local:N``. Raises `PlanError` (a ValueError) before running anything when the plan is
    invalid. Failed runs are rows with status 'failed' and their message in `error`.
    """
    from mptlab.sweeps.plan import Plan, load_plan
    from mptlab.sweeps.progress import SweepProgress
    from mptlab.sweeps.runner import run_sweep

    loaded = plan if isinstance(plan, Plan) else load_plan(plan)
    folder = out if out is not None else tempfile.mkdtemp(prefix=f"mptlab-sweep-{loaded.name}-")
    bar = SweepProgress(enabled=progress)
    try:
        outcome = run_sweep(loaded, folder, workers=workers, dask=dask, on_start=bar.start, on_run=bar.update)
    finally:
        bar.close()
    df = Store(folder).query("SELECT * FROM runs ORDER BY point, seed")
    df.attrs["out"] = str(folder)
    df.attrs["outcome"] = outcome.as_dict()
    return df


__all__ = ["sweep", "Store"]
