"""Run one sweep point, anywhere: in a local worker process or on a Dask worker.

`run_task` never raises for a problem of the run itself (an invalid combination of values, an
engine error): it returns a failed `Payload` carrying the message, so one bad point cannot stop
a sweep. The payload is plain data (dicts and a pyarrow Table) that pickles to the coordinator,
which alone writes the store; workers never touch the sweep folder, so a remote Dask cluster
needs no shared file system.
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from mptlab import _core
from mptlab.sweeps.encode import encode_run


@dataclass(frozen=True)
class Task:
    """Everything one run needs: the scenario text, the point's overrides and seed."""

    key: str
    point: int
    seed: int | None
    base_text: str
    overrides: tuple[tuple[str, str], ...]
    params: dict[str, Any]


@dataclass
class Payload:
    """One finished run: its `runs` row and its store files, encoded (see `encode`)."""

    key: str
    row: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.row["status"] == "ok"


def run_task(task: Task) -> Payload:
    """Simulate `task` and flatten its results; on any exception return a failed payload."""
    from mptlab import runner
    from mptlab.results import summary_text, timeseries_table
    from mptlab.sweeps.flatten import flow_rows, link_rows, run_metrics

    # A sweep already keeps every core busy with one run each: a parallel run
    # (`run.partitions`) takes one thread here unless the user said otherwise.
    os.environ.setdefault("MPTLAB_THREADS", "1")
    started = _now()
    t0 = time.perf_counter()
    try:
        out = runner.run(task.base_text, task.overrides, task.seed)
        summary = out.summary
        assert summary is not None
        table = timeseries_table(out.timeseries)
    except Exception as exc:  # noqa: BLE001 - any failure of one run is recorded, not raised
        return failed_payload(task, _message(exc), started, t0)
    row = _row(task, "ok", None, int(summary["seed"]), started, t0)
    for name, value in run_metrics(summary).items():
        # a parameter keeps its column; a metric of the same name moves aside
        row[f"run_{name}" if name in task.params else name] = value
    files = encode_run(row, flow_rows(summary), link_rows(summary), table, summary_text(summary))
    return Payload(key=task.key, row=row, files=files)


def failed_payload(
    task: Task, message: str, started: str | None = None, t0: float | None = None
) -> Payload:
    """The payload of a run that produced no results."""
    started = started or _now()
    t0 = time.perf_counter() if t0 is None else t0
    row = _row(task, "failed", message, task.seed, started, t0)
    return Payload(task.key, row, encode_run(row, [], [], None, None))


def _row(task: Task, status: str, error: str | None, seed: int | None, started: str, t0: float):
    row: dict[str, Any] = {
        "run_key": task.key,
        "status": status,
        "error": error,
        "point": task.point,
        "seed": seed,
    }
    row.update(task.params)
    row.update(
        {
            "wall_s": round(time.perf_counter() - t0, 6),
            "started_at": started,
            "finished_at": _now(),
            "mptlab_version": _core.version(),
            "host": socket.gethostname(),
        }
    )
    return row


def _message(exc: BaseException) -> str:
    if isinstance(exc, _core.ScenarioError):
        return str(exc)
    # Unexpected failures keep the innermost frame, enough to find the bug.
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")
