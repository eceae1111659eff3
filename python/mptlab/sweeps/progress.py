"""A progress bar for sweeps on stderr: done / failed / remaining runs and the ETA."""

from __future__ import annotations

from typing import Any

from mptlab.sweeps.runner import Outcome
from mptlab.sweeps.worker import Payload


class SweepProgress:
    """Pass `start` as `on_start` and `update` as `on_run` to `run_sweep`; `close` at the end."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._progress: Any = None
        self._task: Any = None

    def start(self, outcome: Outcome) -> None:
        if not self.enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/] "
                       "{task.fields[remaining]} left ({task.fields[skipped]} done before)"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        todo = outcome.total - outcome.skipped
        self._task = self._progress.add_task(
            "sweep", total=max(todo, 1), completed=0, ok=0, failed=0, remaining=todo,
            skipped=outcome.skipped,
        )
        self._progress.start()

    def update(self, payload: Payload, outcome: Outcome) -> None:
        if self._progress is None:
            return
        self._progress.update(
            self._task,
            completed=outcome.executed,
            ok=outcome.ok,
            failed=outcome.failed,
            remaining=outcome.remaining,
        )

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
