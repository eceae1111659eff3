"""The one place a run is executed: scenario text, overrides and seed in, one result contract out.

Every caller (`mptlab run` and :func:`mptlab.run` through `simulate`, sweeps, reproductions
through sweeps, the BLP learner, `mptlab bench`) goes through :func:`prepare` and
:meth:`Prepared.run` (or :func:`run`, both at once). A *backend* turns (text, overrides, seed)
into a :class:`Session` that advances in time and reports its results; the simulator
(`_core.Simulation`, which is a `Session` as it stands) is the only backend today, and an
emulation backend (issue 24) plugs in by registering a factory in :data:`BACKENDS` that fills
the same contract, :class:`RunOutput`.

Standard library and `mptlab._core` only: `mptlab._benchworker` imports this module and must
not load pyarrow, pandas or matplotlib (its peak RSS is the simulator's); no `dataclasses`
either (it pulls in `inspect`, 1.6 MB of the bench's peak RSS).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from mptlab import _core

#: Number of `advance` steps of a run with `chunks=None`: control comes back to Python after
#: every 1 % of the simulated duration, so Ctrl-C works and a progress bar can follow.
CHUNKS = 100
#: Wall time after which a progress bar appears (if progress is wanted at all).
PROGRESS_AFTER_S = 1.0


class Session(Protocol):
    """A run in progress, as a backend provides it. `_core.Simulation` is one."""

    @property
    def duration_s(self) -> float: ...
    @property
    def now_s(self) -> float: ...
    @property
    def done(self) -> bool: ...
    @property
    def seed(self) -> int: ...
    @property
    def events_processed(self) -> int: ...
    @property
    def delivered_data_packets(self) -> int: ...
    def advance(self, until_s: float) -> None: ...
    def summary_json(self) -> str: ...
    def timeseries(self) -> dict[str, list[Any]]: ...


#: A backend: (scenario text, overrides, seed) -> a validated session that has not started.
#: Raises `_core.ScenarioError` for an invalid scenario.
Backend = Callable[[str, list[tuple[str, str]], "int | None"], Session]

def _emulation(text: str, overrides: list[tuple[str, str]], seed: int | None) -> Session:
    """The emulation backend (docs/emulation.md), imported on first use."""
    from mptlab.emulation.session import factory

    return factory(text, overrides, seed)


#: Backends by name. "simulator" builds the Rust engine's run; "emulation" runs the scenario on
#: the real kernel in network namespaces (root only).
BACKENDS: dict[str, Backend] = {"simulator": _core.Simulation, "emulation": _emulation}
DEFAULT_BACKEND = "simulator"


class RunOutput(NamedTuple):
    """The result contract every backend fills."""

    backend: str
    #: The effective seed.
    seed: int
    #: The summary (docs/metrics.md), or None when not asked for.
    summary: dict[str, Any] | None
    #: Long-format time series columns (series, entity, t_s, value), or None when not asked for.
    timeseries: dict[str, list[Any]] | None
    #: Run length in simulated (or emulated) seconds.
    sim_s: float
    #: Wall seconds: validating and building the run, running it, collecting its results.
    build_s: float
    run_s: float
    results_s: float
    #: Engine events processed and data packets delivered to receivers.
    events: int
    delivered_data_packets: int


class Prepared:
    """A validated run that has not started (its output folder may be named after `seed`)."""

    def __init__(self, backend: str, session: Session, build_s: float) -> None:
        self.backend = backend
        self.session = session
        #: Wall seconds of building the run and of `advance` (0 until it has run).
        self.build_s = build_s
        self.run_s = 0.0

    @property
    def seed(self) -> int:
        return self.session.seed

    @property
    def duration_s(self) -> float:
        return self.session.duration_s

    def run(
        self,
        progress: bool | None = False,
        summary: bool = True,
        series: bool = True,
        chunks: int | None = None,
    ) -> RunOutput:
        """Run to the end (:meth:`advance`) and collect the results (:meth:`collect`)."""
        self.advance(progress, chunks)
        return self.collect(summary, series)

    def advance(self, progress: bool | None = False, chunks: int | None = None) -> float:
        """Run to the end; return its wall seconds.

        progress: True shows a bar on stderr once the run has taken `PROGRESS_AFTER_S`; None
            the same only when stderr is a terminal; False never.
        chunks: `advance` steps (None: `CHUNKS`; 1: a single call, no progress bar).
        """
        t0 = time.perf_counter()
        drive(self.session, progress, CHUNKS if chunks is None else chunks)
        self.run_s = time.perf_counter() - t0
        return self.run_s

    def collect(self, summary: bool = True, series: bool = True) -> RunOutput:
        """After :meth:`advance`: the results (the summary and the time series each cost one
        engine call; leave out what is not needed)."""
        s = self.session
        if not s.done:
            raise RuntimeError("collect() before the run has finished: call advance() first")
        t0 = time.perf_counter()
        summ = json.loads(s.summary_json()) if summary else None
        if summ is not None:
            summ["backend"] = self.backend
        ts = s.timeseries() if series else None
        return RunOutput(
            backend=self.backend,
            seed=s.seed,
            summary=summ,
            timeseries=ts,
            sim_s=s.duration_s,
            build_s=self.build_s,
            run_s=self.run_s,
            results_s=time.perf_counter() - t0,
            events=s.events_processed,
            delivered_data_packets=s.delivered_data_packets,
        )


def prepare(
    text: str,
    overrides: Sequence[tuple[str, str]] = (),
    seed: int | None = None,
    backend: str = DEFAULT_BACKEND,
) -> Prepared:
    """Validate the scenario and build its run. Raises `_core.ScenarioError` (invalid scenario,
    seed or backend); nothing runs and nothing is written."""
    check_seed(seed)
    factory = BACKENDS.get(backend)
    if factory is None:
        raise _core.ScenarioError(f"backend: unknown backend `{backend}` (valid: {', '.join(sorted(BACKENDS))})")
    t0 = time.perf_counter()
    session = factory(text, list(overrides), seed)
    return Prepared(backend=backend, session=session, build_s=time.perf_counter() - t0)


def check_seed(seed: object) -> None:
    """Raise `_core.ScenarioError` unless `seed` is None or a whole number in [0, 2^64)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
        raise _core.ScenarioError(f"seed: a whole number from 0 to {2**64 - 1} is required, got {seed!r}")


def run(
    text: str,
    overrides: Sequence[tuple[str, str]] = (),
    seed: int | None = None,
    *,
    backend: str = DEFAULT_BACKEND,
    progress: bool | None = False,
    summary: bool = True,
    series: bool = True,
    chunks: int | None = None,
) -> RunOutput:
    """Validate, run and collect in one call (see :meth:`Prepared.run`)."""
    return prepare(text, overrides, seed, backend).run(progress, summary, series, chunks)


def drive(session: Session, progress: bool | None = False, chunks: int = CHUNKS) -> None:
    """Advance `session` to its end in `chunks` steps, with a lazy progress bar (see `run`)."""
    duration = session.duration_s
    want_bar = progress if progress is not None else stderr_is_terminal()
    bar: _Bar | None = None
    start = time.perf_counter()
    try:
        for i in range(1, chunks + 1):
            session.advance(duration if i == chunks else duration * i / chunks)
            if session.done:
                break
            if bar is not None:
                bar.update(session.now_s)
            elif want_bar and time.perf_counter() - start > PROGRESS_AFTER_S:
                bar = _Bar(duration, session.now_s, getattr(session, "progress_label", "simulating"))
        if not session.done:
            session.advance(duration)
    finally:
        if bar is not None:
            bar.close()
    if not session.done:
        raise RuntimeError(f"run did not finish: reached {session.now_s} s of {duration} s (backend bug)")


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Bar:
    """A rich progress bar over simulated seconds, on stderr, removed when done."""

    def __init__(self, duration_s: float, now_s: float, label: str = "simulating") -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn(label),
            BarColumn(),
            TextColumn("{task.completed:.1f}/{task.total:.1f} s"),
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
