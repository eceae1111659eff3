"""`mptlab sweep`, `mptlab query`: run plans into a results store and ask it questions.

Registered on the main `app` by mptlab.cli. Exit codes as everywhere: 0 success, 1 some runs
failed (sweep) or the command failed after validation, 2 invalid input (nothing run).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from mptlab.cli import out_path, EXIT_FAILED, DaskOption, SetOption, WorkersOption, _overrides, app, check_dask_address, fail, out_console, store_errors

SweepDir = Annotated[Path, typer.Argument(metavar="SWEEP", help="A sweep folder (the --out of mptlab sweep).")]


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab sweep plans/buffer-vs-cc.toml --out sweeps/b            local process pool\n\n"
        "  mptlab sweep plans/buffer-vs-cc.toml --out sweeps/b            again: skips finished runs\n\n"
        "  mptlab sweep plans/buffer-vs-cc.toml --dask tcp://host:8786    an existing Dask cluster\n\n"
        "  mptlab sweep plans/buffer-vs-cc.toml --dask local:4            a local Dask cluster\n\n"
        "Plan format and store layout: docs/sweeps.md."
    )
)
def sweep(
    plan: Annotated[str, typer.Argument(metavar="PLAN", help="Sweep plan TOML file.", show_default=False)],
    out: Annotated[
        Optional[Path],
        typer.Option("--out", "-o", parser=out_path, metavar="DIR", help="Sweep folder (default: sweeps/<plan name>)."),
    ] = None,
    workers: WorkersOption = None,
    dask: DaskOption = None,
    set_: SetOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate and list the points; run nothing.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no summary line.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
) -> None:
    """Run every point of a plan (axes x seeds); skip runs already in the folder.

    A failed run (for example an invalid combination of values) is recorded with
    its message and does not stop the sweep; the exit code is then 1.
    """
    from mptlab.sweeps.plan import PlanError, load_plan

    check_dask_address(dask, workers)
    try:
        loaded = load_plan(Path(plan), _overrides(set_))
    except PlanError as e:
        fail(str(e))
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read plan {plan!r}: {getattr(e, 'strerror', None) or e}")
    if dry_run:
        print(json.dumps(loaded.describe(), indent=2, sort_keys=True))
        return
    folder = out if out is not None else Path("sweeps") / loaded.name
    outcome = _run(loaded, folder, workers, dask, show_bar=not quiet and not as_json)
    if as_json:
        print(json.dumps(outcome.as_dict(), indent=2))
    elif not quiet:
        overhead = outcome.overhead_per_run_s
        out_console.print(
            f"{outcome.total} runs: {outcome.ok} ran ok, {outcome.failed} failed, "
            f"{outcome.skipped} already done; {outcome.wall_s:.1f} s on {outcome.workers} "
            f"{outcome.backend} worker(s)"
            + (f", overhead {1e3 * overhead:.1f} ms/run" if overhead is not None else "")
            + f"; results in {folder}/",
            highlight=False,
            soft_wrap=True,
        )
        for key, error in outcome.failures[:10]:
            print(f"failed {key}: {error}", file=sys.stderr)
    if not as_json:
        _warn_identical_seeds(folder)
    if outcome.failed:
        raise typer.Exit(EXIT_FAILED)


def _warn_identical_seeds(folder: Path) -> None:
    """A warning on stderr when no point's seeds differ (sweeps/seeds.py)."""
    from mptlab.sweeps.seeds import seed_spread
    from mptlab.sweeps.store import Store, StoreError

    try:
        data = Store(folder).load(timeseries=False)
        message = seed_spread(data.runs, data.params).warning()
    except (StoreError, OSError):
        return
    if message:
        print(f"warning: {message}", file=sys.stderr)


def _run(loaded: Any, folder: Path, workers: int | None, dask: str | None, show_bar: bool) -> Any:
    from mptlab.sweeps.progress import SweepProgress
    from mptlab.sweeps.runner import run_sweep
    bar = SweepProgress(enabled=show_bar and sys.stderr.isatty())
    try:
        with store_errors(f"to {str(folder)!r}"):
            return run_sweep(loaded, folder, workers=workers, dask=dask, on_start=bar.start, on_run=bar.update)
    finally:
        bar.close()


@app.command(
    epilog=(
        "Examples:\n\n"
        '  mptlab query sweeps/b "SELECT cc, avg(goodput_mbps) FROM runs GROUP BY cc"\n\n'
        '  mptlab query sweeps/b "SELECT * FROM runs WHERE status = \'failed\'" --csv\n\n'
        "Views: runs (one row per run), flows (one per run and flow), links (one per run and "
        "link direction), timeseries (interval bins, with the run's parameters). DuckDB SQL."
    )
)
def query(
    sweep_dir: SweepDir,
    sql: Annotated[str, typer.Argument(metavar="SQL", help="A DuckDB SQL query over the views.")],
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON records instead of a table.")] = False,
    limit: Annotated[int, typer.Option("--max-rows", min=1, help="Rows shown in the table view.")] = 50,
) -> None:
    """Run SQL over a sweep's results store."""
    import duckdb

    from mptlab.sweeps.store import Store, StoreError

    store = Store(sweep_dir)
    try:
        store.meta()
        df = store.query(sql)
    except StoreError as e:
        fail(str(e))
    except duckdb.Error as e:
        fail(f"query: {str(e).splitlines()[0]}")
    if as_csv:
        sys.stdout.write(df.to_csv(index=False))
    elif as_json:
        print(df.to_json(orient="records", indent=2))
    else:
        out_console.print(_table(df, limit))


def _table(df: Any, limit: int) -> Any:
    from rich.table import Table

    t = Table(header_style="bold", caption=f"{len(df)} row(s)" if len(df) > limit else None)
    for col in df.columns:
        t.add_column(str(col), justify="right" if df[col].dtype.kind in "iuf" else "left")
    for row in df.head(limit).itertuples(index=False):
        t.add_row(*(_cell(v) for v in row))
    return t


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)
