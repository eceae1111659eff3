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

from mptlab import simulate
from mptlab.atomic import write_text
from mptlab.emulation.compare import compare
from mptlab.emulation.report import Case, stack_timeseries, write_report
from mptlab.source import load

BACKENDS = ("simulator", "emulation")


def prepare_all(scenarios: Sequence[Path], seeds: Sequence[int], overrides: list[tuple[str, str]]
                ) -> list[tuple[Path, int, str, simulate.Prepared]]:
    """Every (scenario, seed, backend) run, validated; raises ScenarioError/PermissionError before
    anything is created."""
    runs = []
    for path in scenarios:
        src = load(path)
        for seed in seeds:
            for backend in BACKENDS:
                runs.append((path, seed, backend, simulate.prepare(src, seed, overrides, backend=backend)))
    return runs


def run_all(runs: list[tuple[Path, int, str, simulate.Prepared]], out: Path,
            on_run: Callable[[str], None] = lambda _: None) -> Path:
    """Run them (one at a time: an emulation must own the machine's cores) and write the report."""
    from mptlab.emulation.session import emulation_info

    done: dict[str, dict[str, Any]] = {}
    for path, seed, backend, prep in runs:
        case = path.stem
        folder = out / case / f"{backend}-seed{seed}"
        on_run(f"{case}: {backend}, seed {seed}")
        res = simulate.execute(prep, out=folder, progress=None, plots=False)
        if backend == "emulation":
            info = emulation_info(prep.run.session)  # type: ignore[arg-type]
            write_text(folder / "emulation.json", json.dumps(info, indent=2) + "\n")
        entry = done.setdefault(case, {"path": path, "simulator": {}, "emulation": {}})
        entry[backend][seed] = (res.summary, res.timeseries)
    cases = []
    for case, entry in done.items():
        sims, emus = entry["simulator"], entry["emulation"]
        comparison = compare(case, [s for s, _ in sims.values()], [s for s, _ in emus.values()])
        cases.append(Case(name=case, scenario=entry["path"].name, comparison=comparison,
                          sim_timeseries=stack_timeseries({k: t for k, (_, t) in sims.items()}),
                          emu_timeseries=stack_timeseries({k: t for k, (_, t) in emus.items()})))
    return write_report(out, cases)
