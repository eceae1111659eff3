"""One run for `mptlab run` and :func:`mptlab.run`: read the scenario, run it through the
runner (`mptlab.runner`, which validates, advances in small chunks with a lazy progress bar and
collects), and write the run folder with its provenance.

The engine releases the GIL inside `advance`, and control comes back to Python after every
chunk (1 % of the simulated duration), so Ctrl-C works and a progress bar can follow the run.
The bar starts lazily: runs that finish within about a second never show one.
"""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mptlab import _core, runner
from mptlab.source import Overrides, ScenarioLike, ScenarioSource, load, normalize_overrides

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    from mptlab.results import Result

#: Marker file of a run folder whose files are not all written yet (docs/cli.md).
INCOMPLETE = ".incomplete"


@dataclass
class Prepared:
    """A validated run that has not started yet."""

    run: runner.Prepared
    source: ScenarioSource
    overrides: list[tuple[str, str]]
    #: The seed asked for (None: scenario or engine default); `seed` is the effective one.
    requested_seed: int | None = None
    extra_provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def seed(self) -> int:
        return self.run.seed


def prepare(
    scenario: ScenarioLike, seed: int | None = None, overrides: Overrides = None, backend: str = runner.DEFAULT_BACKEND
) -> Prepared:
    """Read and validate a scenario and build its run (on `backend`: "simulator" or "emulation").
    Raises `ScenarioError` or `OSError`; nothing is written."""
    runner.check_seed(seed)
    src = load(scenario)
    ovr = normalize_overrides(overrides)
    run = runner.prepare(src.text, ovr, seed, backend)
    return Prepared(run=run, source=src, overrides=ovr, requested_seed=seed)


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
        # Validation has succeeded (we hold a prepared run): only now may the folder appear.
        # Creating it before the run makes an unwritable destination fail fast. The marker
        # says "partial" until every file is written: a run interrupted, killed or timed out
        # leaves a folder that is recognisably not a result; the same command replaces it.
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / INCOMPLETE).write_text("a run is writing here, or was interrupted: not a complete result\n")

    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    wall_s = prep.run.advance(progress)

    # After a run long enough to have shown a bar, say what the wait is for (the summary and
    # the time series are collected in one engine call each; Ctrl-C takes effect after it).
    want_bar = progress if progress is not None else runner.stderr_is_terminal()
    want_status = want_bar and wall_s > runner.PROGRESS_AFTER_S
    with _status("collecting results", want_status):
        output = prep.run.collect()
        table = results.timeseries_table(output.timeseries)
    info = provenance(prep, output, started, wall_s)
    # Collecting the summary and the time series is part of what a run costs: reported apart
    # from the simulation's own wall time (which events/s and packets/s are computed from).
    info["results_s"] = round(time.perf_counter() - t0 - wall_s, 6)

    summary, tables = results.split_records(output.summary)
    res = results.Result(summary=summary, timeseries=table, out=out_dir, run_info=info, tables=tables)
    if out_dir is not None:
        results.write_run(res, plots=plots)
        (out_dir / INCOMPLETE).unlink(missing_ok=True)
    return res


def provenance(prep: Prepared, output: runner.RunOutput, started: datetime, wall_s: float) -> dict[str, Any]:
    """The contents of run.json: everything about a run that is *not* a function of
    (scenario, seed)."""
    src = prep.source
    events = output.events
    delivered = output.delivered_data_packets
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
        "seed": output.seed,
        "seed_requested": prep.requested_seed,
        "overrides": [[k, v] for k, v in prep.overrides],
        "sim_s": output.sim_s,
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
