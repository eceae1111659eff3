"""`mptlab plot` and `mptlab report`: figures and a self-contained HTML report from a sweep.

Registered on the main `app` by mptlab.cli.
"""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from mptlab.cli import out_path, EXIT_FAILED, app, fail, out_console
from mptlab.cli_sweep import SweepDir

TABLES = ("runs", "flows", "links", "timeseries")


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab plot sweeps/b --kind bar --x cc --y goodput_mbps --hue buffer\n\n"
        "  mptlab plot sweeps/b --kind distribution --table timeseries --y goodput_mbps --x cc\n\n"
        "  mptlab plot sweeps/b --kind timeseries --table timeseries --y goodput_mbps --hue entity "
        "--where \"cc = 'bbr' AND seed = 1\" --facet buffer\n\n"
        "  mptlab plot sweeps/b --kind cdf --table flows --y owd_ms --hue cc\n\n"
        "  mptlab plot sweeps/c --kind contour --x delay --y share --z goodput_mbps\n\n"
        "Kinds: timeseries, distribution (box + violin), bar (mean over seeds, 95 % CI), cdf, "
        "heatmap (regular grid), contour (irregular points). Writes DIR/NAME.png and .svg."
    )
)
def plot(
    sweep_dir: SweepDir,
    kind: Annotated[str, typer.Option("--kind", "-k", help="Figure kind.", show_default=False)],
    y: Annotated[str, typer.Option("--y", help="Value column (heatmap/contour: vertical axis; time series: the series).")],
    x: Annotated[Optional[str], typer.Option("--x", help="Grouping (or horizontal) column.")] = None,
    z: Annotated[Optional[str], typer.Option("--z", help="Colour value for heatmap and contour.")] = None,
    hue: Annotated[Optional[str], typer.Option("--hue", help="Column that colours groups.")] = None,
    facet: Annotated[Optional[str], typer.Option("--facet", help="Column with one panel per value.")] = None,
    table: Annotated[
        Optional[str],
        typer.Option("--table", "-t", help="runs, flows, links or timeseries (default: timeseries for "
                     "--kind timeseries, else runs)."),
    ] = None,
    where: Annotated[Optional[str], typer.Option("--where", help="SQL filter on the table, e.g. \"seed = 1\".")] = None,
    series: Annotated[
        Optional[str], typer.Option("--series", help="Time-series table: the series to draw (default: --y).")
    ] = None,
    opt: Annotated[
        Optional[list[str]],
        typer.Option(
            "--opt",
            metavar="KEY=VALUE",
            help="A kind's own option, repeatable: style=hist, error=std, levels=0.5, "
            "order=reno,cubic, width=double, band=none, log=true (see docs/sweeps.md).",
        ),
    ] = None,
    title: Annotated[Optional[str], typer.Option("--title", help="Figure title.")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="File name stem (default: KIND-Y-by-X).")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", parser=out_path, metavar="DIR", help="Output folder.")] = Path("figures"),
) -> None:
    """Draw one publication figure (PNG and SVG) from a sweep's results."""
    import duckdb

    from mptlab.figures import KINDS, draw, publication_style, save
    from mptlab.sweeps.store import Store, StoreError

    if kind not in KINDS:
        fail(f"--kind: unknown figure kind {kind!r} (valid: {', '.join(KINDS)})")
    if name is not None and (not name.strip() or name in (".", "..") or any(c in name for c in "/\\\0")):
        fail(f"--name: {name!r} is not a file name (no folders: the figures go into --out)")
    table = table or ("timeseries" if kind == "timeseries" else "runs")
    if table not in TABLES:
        fail(f"--table: unknown table {table!r} (valid: {', '.join(TABLES)})")
    sql = f"SELECT * FROM {table}" + (f" WHERE {where}" if where else "")
    try:
        frame = Store(sweep_dir).query(sql)
    except StoreError as e:
        fail(str(e))
    except duckdb.Error as e:
        fail(f"--where: {str(e).splitlines()[0]}")
    opts: dict[str, Any] = {"z": z} if z else {}
    if series:
        opts["series"] = series
    for item in opt or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"--opt: expected KEY=VALUE (for example style=hist), got {item!r}")
        opts[key.strip()] = value.strip()
    try:
        with publication_style():
            fig = draw(kind, frame, x=x, y=y, hue=hue, facet=facet, title=title, **opts)
    except ValueError as e:
        fail(str(e).replace("\n", " "))
    stem = name or "-".join([kind, z or y] + (["by", x] if x else [])).replace("/", "_")
    try:
        paths = save(fig, out / stem)
    except OSError as e:
        fail(f"cannot write figures to {str(out)!r}: {e}", EXIT_FAILED)
    out_console.print(" ".join(str(p) for p in paths), highlight=False, soft_wrap=True)


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab report sweeps/b              writes sweeps/b/report.html\n\n"
        "  mptlab report sweeps/b --open       and opens it in a browser\n\n"
        "The file holds everything (figures as embedded SVG, no scripts, nothing fetched)."
    )
)
def report(
    sweep_dir: SweepDir,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", parser=out_path, metavar="FILE", help="Report file (default: SWEEP/report.html).")] = None,
    open_: Annotated[bool, typer.Option("--open", help="Open the report in the default browser.")] = False,
) -> None:
    """Write a self-contained HTML report of a sweep.

    The report holds the plan, summary tables grouped by the plan's axes, the runs, failed
    runs with their messages, and the standard figures."""
    from mptlab.report import build_report
    from mptlab.sweeps.store import StoreError

    try:
        path = build_report(sweep_dir, out)
    except StoreError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write the report: {e}", EXIT_FAILED)
    out_console.print(str(path), highlight=False, soft_wrap=True)
    if open_ and not webbrowser.open(path.resolve().as_uri()):
        print(f"no browser found; open {path} yourself", file=sys.stderr)
