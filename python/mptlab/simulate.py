"""Drive one `_core.Simulation`: validate, advance in small chunks, show progress, collect.

The engine releases the GIL inside `advance`, and control comes back to Python after every
chunk (1 % of the simulated duration), so Ctrl-C works and a progress bar can follow the run.
The bar starts lazily: runs that finish within about a second never show one.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mptlab import _core
from mptlab.source import Overrides, ScenarioLike, ScenarioSource, load, normalize_overrides

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    from mptlab.results import Result

#: Number of `advance` calls per run.
CHUNKS = 100
#: Marker file of a run folder whose files are not all written yet (docs/cli.md).
INCOMPLETE = ".incomplete"

#: Wall time after which a progress bar appears (if progress is wanted at all).
PROGRESS_AFTER_S = 1.0


@dataclass
class Prepared:
    """A validated run that has not started yet."""

    sim: _core.Simulation
    source: ScenarioSource
    overrides: list[tuple[str, str]]
    #: The seed asked for (None: scenario or engine default); `sim.seed` is the effective one.
    requested_seed: int | None = None
    extra_provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def seed(self) -> int:
        return self.sim.seed


def prepare(scenario: ScenarioLike, seed: int | None = None, overrides: Overrides = None) -> Prepared:
    """Read and validate a scenario and build its simulation. Raises `ScenarioError` or
    `OSError`; nothing is written."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise _core.ScenarioError(f"seed: a whole number from 0 to {2**64 - 1} is required, got {seed!r}")
    src = load(scenario)
    ovr = normalize_overrides(overrides)
    sim = _core.Simulation(src.text, ovr, seed)
    return Prepared(sim=sim, source=src, overrides=ovr, requested_seed=seed)


def drive(sim: _core.Simulation, progress: bool | None = None) -> None:
    """Advance `sim` to its end in `CHUNKS` steps.

    progress: True shows a bar (on stderr) once the run has taken `PROGRESS_AFTER_S` of wall
    time; None does the same only when stderr is a terminal; False never shows one.
    """
    duration = sim.duration_s
    want_bar = progress if progress is not None else _stderr_is_terminal()
    bar: _Bar | None = None
    start = time.perf_counter()
    try:
        for i in range(1, CHUNKS + 1):
            sim.advance(duration if i == CHUNKS else duration * i / CHUNKS)
            if sim.done:
                break
            if bar is not None:
                bar.update(sim.now_s)
            elif want_bar and time.perf_counter() - start > PROGRESS_AFTER_S:
                bar = _Bar(duration, sim.now_s)
        if not sim.done:
            sim.advance(duration)
    finally:
        if bar is not None:
            bar.close()
    if not sim.done:
        raise RuntimeError(
            f"simulation did not finish: reached {sim.now_s} s of {duration} s (engine bug)"
        )


def execute(
    prep: Prepared,
    out: str | os.PathLike[str] | None = None,
    progress: bool | None = False,
    plots: bool = True,
) -> Result:
    """Run a prepared simulation to the end and collect (and, with `out`, write) its results."""
    from mptlab import results

    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        # Validation has succeeded (we hold a Simulation): only now may the folder appear.
        # Creating it before the run makes an unwritable destination fail fast. The marker
        # says "partial" until every file is written: a run interrupted, killed or timed out
        # leaves a folder that is recognisably not a result; the same command replaces it.
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / INCOMPLETE).write_text("a run is writing here, or was interrupted: not a complete result\n")

    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    drive(prep.sim, progress)
    wall_s = time.perf_counter() - t0

    # After a run long enough to have shown a bar, say what the wait is for (the summary and
    # the time series are collected in one engine call each; Ctrl-C takes effect after it).
    want_status = (progress if progress is not None else _stderr_is_terminal()) and wall_s > PROGRESS_AFTER_S
    with _status("collecting results", want_status):
        summary_text = prep.sim.summary_json()
        summary = json.loads(summary_text)
        table = results.timeseries_table(prep.sim.timeseries())
    info = provenance(prep, started, wall_s)
    # Collecting the summary and the time series is part of what a run costs: reported apart
    # from the simulation's own wall time (which events/s and packets/s are computed from).
    info["results_s"] = round(time.perf_counter() - t0 - wall_s, 6)

    res = results.Result(summary=summary, timeseries=table, out=out_dir, run_info=info)
    if out_dir is not None:
        results.write_run(res, plots=plots)
        (out_dir / INCOMPLETE).unlink(missing_ok=True)
    return res


def provenance(prep: Prepared, started: datetime, wall_s: float) -> dict[str, Any]:
    """The contents of run.json: everything about a run that is *not* a function of
    (scenario, seed)."""
    sim = prep.sim
    src = prep.source
    events = sim.events_processed
    delivered = sim.delivered_data_packets
    info: dict[str, Any] = {
        "mptlab_version": _core.version(),
        "started_at": started.isoformat(timespec="seconds"),
        "wall_s": round(wall_s, 6),
        "host": socket.gethostname(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "scenario_path": str(src.path.resolve()) if src.path is not None else None,
        "scenario_name": src.name,
        "seed": sim.seed,
        "seed_requested": prep.requested_seed,
        "overrides": [[k, v] for k, v in prep.overrides],
        "sim_s": sim.duration_s,
        "events": events,
        "delivered_data_packets": delivered,
        "events_per_s": round(events / wall_s, 1) if wall_s > 0 else None,
        "delivered_pkts_per_s": round(delivered / wall_s, 1) if wall_s > 0 else None,
    }
    info.update(prep.extra_provenance)
    return info


@contextlib.contextmanager
def _status(text: str, enabled: bool) -> Iterator[None]:
    """A transient spinner with `text` on stderr while the block runs (nothing when disabled)."""
    if not enabled:
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(text):
        yield


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Bar:
    """A rich progress bar over simulated seconds, on stderr, removed when done."""

    def __init__(self, duration_s: float, now_s: float) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("simulating"),
            BarColumn(),
            TextColumn("{task.completed:.1f}/{task.total:.1f} sim-s"),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("run", total=max(duration_s, 1e-9), completed=now_s)
        self._progress.start()

    def update(self, now_s: float) -> None:
        self._progress.update(self._task, completed=now_s)

    def close(self) -> None:
        self._progress.stop()
