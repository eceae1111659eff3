"""`mptlab emulate` and `mptlab validate`: a scenario on the real Linux stack in network
namespaces (docs/emulation.md), and the same scenario on the simulator and the kernel side by side.

Registered on the main `app` by mptlab.cli. Exit codes as everywhere: 0 success, 1 a run failed
or the results cannot be written, 2 invalid input (a scenario the kernel cannot run, no root;
nothing created), 130 interrupted (everything the run made is removed).
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from mptlab import _core
from mptlab.cli import EXIT_FAILED, ScenarioArg, SetOption, _load, _overrides, app, fail, out_console, out_path

DurationOption = Annotated[
    Optional[str],
    typer.Option("--duration", metavar="TIME", help="Run length (the same as --set run.duration=TIME): an "
                 "emulated run takes its duration in wall time."),
]


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab emulate scenarios/mptcp-two-paths.toml --duration 10s   real MPTCP for 10 s into runs/\n\n"
        "  mptlab emulate --cleanup                                       remove what killed runs left\n\n"
        "Needs root and a kernel with MPTCP, veth and tbf (docs/emulation.md). Writes the same files as "
        "`mptlab run` (summary.json with backend = \"emulation\", timeseries, plots) plus emulation.json: "
        "the kernel, the mechanism used per link and the processes' logs."
    )
)
def emulate(
    scenario: Annotated[Optional[str], typer.Argument(metavar="SCENARIO", show_default=False,
                                                      help="Scenario TOML file (docs/scenarios.md).")] = None,
    seed: Annotated[Optional[int], typer.Option("--seed", min=0, max=2**64 - 1, help="Run seed.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", parser=out_path, metavar="DIR",
                                                help="Output folder (default: runs/<scenario>-emulation-seed<seed>).")] = None,
    set_: SetOption = None,
    duration: DurationOption = None,
    cleanup: Annotated[bool, typer.Option("--cleanup", help="Remove the namespaces and processes of emulations "
                                                              "whose owner is gone, then exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing on success.")] = False,
    no_plots: Annotated[bool, typer.Option("--no-plots", help="Do not draw the plots.")] = False,
) -> None:
    """Run a scenario on the real Linux TCP/MPTCP stack in network namespaces.

    A namespace per node, and per link one between its ends that shapes the rate (tbf), holds the queue and adds delay and loss (mptlab-linkemu). Flows use the kernel's TCP or MPTCP with the scenario's congestion control, multipath QUIC through tquic.
    """
    from mptlab.emulation import netns

    if cleanup:
        _require_root()
        removed = netns.cleanup_stale()
        if not quiet:
            out_console.print(f"removed {len(removed)} stale emulation run(s){': ' + ', '.join(removed) if removed else ''}")
        return
    if scenario is None:
        fail("a SCENARIO is required (or --cleanup)")
    res = run_emulation(scenario, seed, _overrides(set_) + _duration(duration), out, quiet, not no_plots)
    if not quiet:
        from mptlab.table import render

        out_console.print(render(res.summary))
        out_console.print(f"seed {res.seed}: {res.run_info['sim_s']:g} s emulated in {res.run_info['wall_s']:.1f} wall s; "
                          f"results in {res.out}/", highlight=False, soft_wrap=True)


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def _duration(duration: str | None) -> list[tuple[str, str]]:
    return [("run.duration", duration)] if duration else []


def _require_root() -> None:
    from mptlab.emulation.netns import require_root

    try:
        require_root()
    except PermissionError as e:
        fail(str(e))


def run_emulation(scenario: str, seed: int | None, overrides: list[tuple[str, str]], out: Path | None,
                  quiet: bool = False, plots: bool = True):  # type: ignore[no-untyped-def]
    """Validate (exit 2 on a scenario the kernel cannot run, or without root), emulate, write."""
    from mptlab import simulate
    from mptlab.emulation.session import write_emulation_info

    src = _load(scenario)
    try:
        prep = simulate.prepare(src, seed, overrides, backend="emulation")
    except (_core.ScenarioError, PermissionError, FileNotFoundError) as e:
        fail(str(e))
    prep.extra_provenance["argv"] = ["mptlab", *sys.argv[1:]]
    prep.extra_provenance["backend"] = "emulation"
    out_dir = out if out is not None else Path("runs") / f"{src.name}-emulation-seed{prep.seed}"
    # SIGTERM as Ctrl-C: the session removes its namespaces and processes on the way out.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        res = simulate.execute(prep, out=out_dir, progress=False if quiet else None, plots=plots)
    except KeyboardInterrupt:
        print("interrupted: the emulation's namespaces and processes are removed", file=sys.stderr)
        raise typer.Exit(130) from None
    except OSError as e:
        fail(f"cannot write results to {str(out_dir)!r}: {e}", EXIT_FAILED)
    write_emulation_info(out_dir, prep.run.session)  # type: ignore[arg-type]
    return res


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab validate scenarios/validate/*.toml              every shipped case, seed 1, into validation/\n\n"
        "  mptlab validate scenarios/mptcp-two-paths.toml --seeds 3 --duration 10s\n\n"
        "Writes OUT/<case>/{simulator,emulation}-seed<N>/ (run folders), OUT/comparison.csv (per case, "
        "entity and metric: both means, real/simulated ratio, whether it is within 0.9-1.1, the known "
        "cause), OUT/report.md, OUT/report.html and the figures. Needs root (docs/emulation.md)."
    )
)
def validate(
    scenarios: Annotated[list[Path], typer.Argument(metavar="SCENARIO...", show_default=False,
                                                    help="Scenario TOML files.")],
    out: Annotated[Path, typer.Option("--out", "-o", parser=out_path, metavar="DIR",
                                      help="Output folder.")] = Path("validation"),
    seeds: Annotated[int, typer.Option("--seeds", min=1, help="Seeds 1..N for each backend.")] = 1,
    set_: SetOption = None,
    duration: DurationOption = None,
) -> None:
    """Run scenarios on the simulator and on real Linux MPTCP, and report them side by side."""
    from mptlab.emulation.validate import prepare_all, run_all

    overrides = _overrides(set_) + _duration(duration)
    sources = [(path, _load(str(path))) for path in scenarios]
    try:
        runs = prepare_all(sources, list(range(1, seeds + 1)), overrides)
    except (_core.ScenarioError, PermissionError, FileNotFoundError) as e:
        fail(str(e))
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        report, comparison = run_all(runs, out, on_run=lambda what: out_console.print(what, highlight=False))
    except KeyboardInterrupt:
        print("interrupted: the emulation's namespaces and processes are removed", file=sys.stderr)
        raise typer.Exit(130) from None
    except OSError as e:
        fail(f"cannot write {str(out)!r}: {e}", EXIT_FAILED)
    _print_ratios(comparison)
    out_console.print(f"report: {report}", highlight=False)


def _print_ratios(df: Any) -> None:
    """The mean real/simulated ratio per case and metric of `compare`'s frame."""
    from rich.table import Table

    table = Table(title="real / simulated, per case and metric (mean over entities)")
    for col in ("case", "metric", "ratio", "within 0.9-1.1"):
        table.add_column(col)
    for (case, metric), g in df.groupby(["case", "metric"], sort=False):
        r = g["ratio"].dropna()
        table.add_row(str(case), str(metric), f"{r.mean():.3f}" if len(r) else "–",
                      f"{int(g['within'].sum())}/{len(g)}")
    out_console.print(table)
