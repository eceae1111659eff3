"""Run a plan: expand its points, skip finished ones, execute the rest, store, index.

The run key is a hash of the canonical scenario (the engine's validated, defaults-filled JSON
after the point's overrides), the seed and the mptlab version. Two spellings of the same
scenario share a key; a new mptlab version gets new keys, so its results never mix with an
older version's. Re-running a plan into the same folder skips every key already stored with
status ok and retries failed ones.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mptlab import _core
from mptlab.sweeps.store import Store
from mptlab.sweeps.worker import Payload, Task

#: Called after each stored run with (payload, counts so far).
OnRun = Callable[[Payload, "Outcome"], None]


@dataclass
class Outcome:
    """What a sweep did."""

    out: Path
    total: int = 0
    skipped: int = 0
    ok: int = 0
    failed: int = 0
    wall_s: float = 0.0
    #: Sum of the runs' own wall times (inside the worker), for the overhead estimate.
    run_wall_s: float = 0.0
    backend: str = "local"
    workers: int = 1
    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def executed(self) -> int:
        return self.ok + self.failed

    @property
    def remaining(self) -> int:
        return self.total - self.skipped - self.executed

    @property
    def overhead_per_run_s(self) -> float | None:
        """Wall time per executed run beyond the run itself (spawn, transfer, write, index),
        with the workers' capacity spread over the runs: (wall·workers − Σ run) / runs."""
        if not self.executed:
            return None
        return max(0.0, self.wall_s * self.workers - self.run_wall_s) / self.executed

    def as_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "total": self.total,
            "skipped": self.skipped,
            "ok": self.ok,
            "failed": self.failed,
            "wall_s": round(self.wall_s, 3),
            "run_wall_s": round(self.run_wall_s, 3),
            "overhead_per_run_ms": (
                round(1e3 * self.overhead_per_run_s, 2) if self.overhead_per_run_s is not None else None
            ),
            "backend": self.backend,
            "workers": self.workers,
            "failures": [{"run_key": k, "error": e} for k, e in self.failures],
        }


def run_key(base_text: str, overrides: Sequence[tuple[str, str]], seed: int | None) -> str:
    """The store key of one run (16 hex digits of SHA-256)."""
    try:
        scenario: Any = json.loads(_core.check(base_text, list(overrides), seed))
    except _core.ScenarioError:
        # An invalid combination has no canonical form; key it by what was asked for, so
        # the failure is recorded once and retried on the next run of the plan.
        scenario = {"text": base_text, "overrides": [list(o) for o in overrides]}
    material = json.dumps(
        {"scenario": scenario, "seed": seed, "mptlab": _core.version()},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


def make_tasks(plan: Any) -> list[Task]:
    """One task per point of `plan`, parameters typed consistently per column."""
    points = plan.points()
    columns = list(plan.columns)
    kinds = {c: {type(p.params.get(c)) for p in points} for c in columns}
    numeric = {c for c, k in kinds.items() if k == {int, float}}  # one float column
    mixed = {c for c, k in kinds.items() if len(k) > 1 and c not in numeric}  # one text column
    tasks = []
    for p in points:
        params = {c: _column_value(p.params.get(c), c in numeric, c in mixed) for c in columns}
        overrides = tuple(p.overrides)
        tasks.append(
            Task(
                key=run_key(plan.base_text, overrides, p.seed),
                point=p.index,
                seed=p.seed,
                base_text=plan.base_text,
                overrides=overrides,
                params=params,
            )
        )
    return tasks


def plan_meta(plan: Any, tasks: Sequence[Task]) -> dict[str, Any]:
    """sweep.json: the plan, its columns, its points; the fingerprint names the plan's
    content (base scenario, points, seeds) so a folder is never shared by two plans."""
    points = [
        {"point": t.point, "seed": t.seed, "run_key": t.key, "params": t.params,
         "overrides": [list(o) for o in t.overrides]}
        for t in tasks
    ]
    fingerprint = hashlib.sha256(
        json.dumps(
            {"base": plan.base_text, "points": [[p["overrides"], p["seed"]] for p in points]},
            sort_keys=True,
        ).encode("utf-8")
    ).hexdigest()[:16]
    return {
        "name": plan.name,
        "plan_path": str(plan.path) if plan.path is not None else None,
        "plan_text": plan.text,
        "base_path": str(plan.base_path) if plan.base_path is not None else None,
        "base_text": plan.base_text,
        # a list of [column, key] pairs: JSON objects lose their order under sort_keys
        "columns": [[c, k] for c, k in plan.columns.items()],
        "describe": plan.describe(),
        "fingerprint": fingerprint,
        "mptlab_version": _core.version(),
        "points": points,
    }


def run_sweep(
    plan: Any,
    out: str | os.PathLike[str],
    workers: int | None = None,
    dask: str | None = None,
    on_start: Callable[[Outcome], None] | None = None,
    on_run: OnRun | None = None,
) -> Outcome:
    """Execute every unfinished point of `plan` (a loaded `Plan`) into the store at `out`."""
    t0 = time.perf_counter()
    store = Store(out)
    tasks = make_tasks(plan)
    meta = plan_meta(plan, tasks)
    unique = _unique(tasks)
    if store.holds(meta) and all(store.finished().get(t.key) == "ok" for t in unique):
        # Everything is done: write nothing (the folder may be read-only, or another sweep's).
        store.index()
        return Outcome(out=Path(out), total=len(unique), skipped=len(unique), backend="dask" if dask else "local",
                       wall_s=time.perf_counter() - t0)
    with store.lock():
        return _execute(store, meta, unique, workers, dask, on_start, on_run, t0)


def _execute(
    store: Store,
    meta: dict[str, Any],
    unique: list[Task],
    workers: int | None,
    dask: str | None,
    on_start: Callable[[Outcome], None] | None,
    on_run: OnRun | None,
    t0: float,
) -> Outcome:
    """Run the unfinished tasks into `store` (held locked by the caller)."""
    store.create(meta)
    finished = store.finished()
    todo = [t for t in unique if finished.get(t.key) != "ok"]
    outcome = Outcome(
        out=store.root,
        total=len(unique),
        skipped=len(unique) - len(todo),
        backend="dask" if dask else "local",
    )
    source: Iterator[Payload]
    if dask:
        from mptlab.sweeps.backends import parse_dask_address, run_dask

        _, n = parse_dask_address(dask)
        outcome.workers = n or 1
        source = run_dask(todo, dask)
    else:
        from mptlab.sweeps.backends import run_local

        outcome.workers = max(1, min(workers or os.cpu_count() or 1, max(len(todo), 1)))
        source = run_local(todo, outcome.workers)
    if on_start is not None:
        on_start(outcome)
    try:
        for payload in source:
            store.write(payload)
            outcome.run_wall_s += float(payload.row.get("wall_s") or 0.0)
            if payload.ok:
                outcome.ok += 1
            else:
                outcome.failed += 1
                outcome.failures.append((payload.key, str(payload.row.get("error"))))
            if on_run is not None:
                on_run(payload, outcome)
    finally:
        store.index()
        outcome.wall_s = time.perf_counter() - t0
    return outcome


def _unique(tasks: list[Task]) -> list[Task]:
    """Points that resolve to the same scenario and seed are one run (first one kept)."""
    seen: set[str] = set()
    out = []
    for t in tasks:
        if t.key not in seen:
            seen.add(t.key)
            out.append(t)
    return out


def _column_value(value: Any, numeric: bool, mixed: bool) -> Any:
    if numeric:
        return float(value)
    return _text(value) if mixed else _plain(value)


def _plain(value: Any) -> Any:
    """A parameter value as a Parquet-friendly scalar (tables and lists become TOML-ish text)."""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, sort_keys=True)
    return value


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(_plain(value))
