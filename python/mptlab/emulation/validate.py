"""`mptlab validate`: each scenario on the simulator and on the kernel (emulation) for the same
seeds, run folders side by side, then the comparison (`compare.py`) and its report
(`report.py`) — DESIGN.md's validation ladder, last rung.

Every scenario is validated for both backends before anything runs: a scenario the kernel cannot
run stops the whole command (exit 2) with nothing created.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from mptlab import simulate
from mptlab.emulation.compare import compare
from mptlab.emulation.report import Case, stack_timeseries, write_report
from mptlab.source import ScenarioSource

BACKENDS = ("simulator", "emulation")


def prepare_all(sources: Sequence[tuple[Path, ScenarioSource]], seeds: Sequence[int],
                overrides: list[tuple[str, str]]) -> list[tuple[Path, int, str, simulate.Prepared]]:
    """Every (scenario, seed, backend) run, validated; raises ScenarioError/PermissionError before
    anything is created."""
    runs = []
    for path, src in sources:
        for seed in seeds:
            for backend in BACKENDS:
                runs.append((path, seed, backend, simulate.prepare(src, seed, overrides, backend=backend)))
    return runs


def run_all(runs: list[tuple[Path, int, str, simulate.Prepared]], out: Path,
            on_run: Callable[[str], None] = lambda _: None) -> tuple[Path, pd.DataFrame]:
    """Run them (one at a time: an emulation must own the machine's cores), write the report;
    return its path and the comparison of every case."""
    from mptlab.emulation.session import write_emulation_info

    done: dict[str, dict[str, Any]] = {}
    simulated: dict[tuple[str, int], dict[str, Any]] = {}
    for path, seed, backend, prep in runs:
        case = path.stem
        folder = out / case / f"{backend}-seed{seed}"
        on_run(f"{case}: {backend}, seed {seed}")
        if backend == "emulation":
            # the simulator's summary of the same run is the emulated summary's template
            prep.run.session.template = simulated.get((case, seed))  # type: ignore[attr-defined]
        res = simulate.execute(prep, out=folder, progress=None, plots=False)
        if backend == "simulator":
            simulated[(case, seed)] = json.loads(prep.run.session.summary_json())
        else:
            write_emulation_info(folder, prep.run.session)  # type: ignore[arg-type]
        entry = done.setdefault(case, {"path": path, "simulator": {}, "emulation": {}})
        entry[backend][seed] = (res.summary, res.timeseries)
    cases = []
    for case, entry in done.items():
        sims, emus = entry["simulator"], entry["emulation"]
        comparison = compare(case, [s for s, _ in sims.values()], [s for s, _ in emus.values()])
        cases.append(Case(name=case, scenario=entry["path"].name, comparison=comparison,
                          sim_timeseries=stack_timeseries({k: t for k, (_, t) in sims.items()}),
                          emu_timeseries=stack_timeseries({k: t for k, (_, t) in emus.items()})))
    return write_report(out, cases), pd.concat([c.comparison for c in cases], ignore_index=True)
