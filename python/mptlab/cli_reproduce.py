"""`mptlab reproduce STUDY`: a seed study's runs, its tables side by side with the published
numbers, its figures and a written comparison.

Registered on the main `app` by mptlab.cli. Exit codes as everywhere: 0 success, 1 some runs
failed (the outputs are still written from the others) or the outputs cannot be written,
2 invalid input (unknown study, missing plan or published numbers; nothing run).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from mptlab.cli import out_path, EXIT_FAILED, DaskOption, WorkersOption, app, check_dask_address, fail, out_console, store_errors


@app.command(
    epilog=(
        "Examples:\n\n"
        "  mptlab reproduce seed001                  30 runs per pair into reproductions/seed001/\n\n"
        "  mptlab reproduce seed001 --runs 5 -j 2    a quicker look: 5 runs per pair\n\n"
        "  mptlab reproduce seed001 --dask local:4   on a local Dask cluster\n\n"
        "  mptlab reproduce seed002                  3 runs per configuration into reproductions/seed002/\n\n"
        "  mptlab reproduce seed000                  the 18 cases at full scale, 1 run each, into reproductions/seed000/\n\n"
        "  mptlab reproduce seed000 --scale 0.1 --duration 20s   a quicker look: 1,200 mMTC devices, 20 s runs\n\n"
        "Studies: seed000 (Picchi & Tarchi 2026: MPTCP and MPQUIC sharing a dual terrestrial "
        "backhaul, eMBB, mMTC-like and mixed traffic; Tables 2-23 and Figs. 3-20). Writes "
        "OUT/table.csv, tables.md, bands.csv, claims.csv, jain.csv, jitter_sensitivity.csv, "
        "runs.csv, samples.parquet, figures/ and report.md; runs kept in "
        "OUT/sweep-<scenario>-<N>runs/. The full-scale mMTC and mixed cases take 3-8 minutes each "
        "(one default reproduction with -j 2: 16 minutes on two cores). "
        "seed001 (Łuczak et al. 2023: LIA, OLIA, BALIA, wVegas x Reno, Cubic, BBR for "
        "streaming over two LTE paths; Table 3 and Figs. 3-4). Writes OUT/table3.csv, "
        "table3.md, claims.csv, sensitivity.csv, runs.csv, figures/, report.md and "
        "sweep-report.html; the runs are kept in OUT/sweep-<N>runs/ and "
        "OUT/sensitivity/<variant>-<N>runs/, so a repeated command only redoes the analysis. "
        "seed002 (Das et al. 2025: BLP and its adaptive controller against RoundRobin, MinRTT, "
        "BLEST, ECF, Peekaboo over MPQUIC; Sec. V, Figs. 4-10). Writes OUT/comparison.csv, "
        "comparison.md, agreement.csv, claims.csv, seeds.csv, sensitivity.csv, stats.csv, "
        "runs.csv, figures/ and report.md; runs kept in OUT/sweep-<case>-<N>runs/. "
        "seed003 (Pieska et al. 2024: nested congestion control in multipath tunnels; Fig. 2, contours, Fig. 10, "
        "Table 3; TCP-tunnel cases are skipped while the simulator refuses them). Writes OUT/fig2.csv, contours.csv, "
        "fig10.csv, table3.csv, claims.csv, runs.csv, skipped.csv, figures/ and report.md; runs kept in "
        "OUT/sweep-<case>-<N>runs/; --points, --size, --duration (contour runs) scale it. "
        "seed004 (Guo et al. 2025: P-MPTCP vs C-MPTCP over multi-hop 802.11 and one 5G node; Sec. VII, Figs. 5-13; 28 runs, "
        "under a minute). Writes OUT/comparison.csv, cases.csv, claims.csv, claims_paper_rto.csv (the sensitivity set: both "
        "variants with the paper's 20 s <= RTO <= 50 s), runs.csv, latency.csv, delivery.csv, topologies.csv, models.csv, "
        "figures/ and report.md; runs kept in OUT/sweep-<case>-<p|c>-s<seed>[-paper-rto]/; --pairs takes cases. "
        "See docs/reproductions.md."
    )
)
def reproduce(
    study: Annotated[str, typer.Argument(metavar="STUDY", help="The study to reproduce: seed000, seed001, seed002, seed003, seed004.", show_default=False)],
    runs: Annotated[
        Optional[int],
        typer.Option("--runs", "-n", min=1, help="Runs (seeds 1..N) per configuration (default: seed000 1, the paper states none; "
                     "seed001 30, the paper's; seed002 3, the paper's being 10)."),
    ] = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", "-o", parser=out_path, metavar="DIR", help="Output folder (default: reproductions/STUDY).")
    ] = None,
    workers: WorkersOption = None,
    dask: DaskOption = None,
    pairs: Annotated[
        Optional[str],
        typer.Option("--pairs", help="Only these configurations, comma-separated (seed003: parts fig2, contours, fig10; seed000: SCENARIO or SCENARIO:PAIRING, "
                     "e.g. symmetric-mmtc:CUBIC-BBR; seed001: CC pairs; seed002: cases)."),
    ] = None,
    duration: Annotated[
        Optional[str],
        typer.Option("--duration", metavar="TIME", help="Shorter runs, e.g. 20s (seed000, seed002; seed000's warm-up is then "
                     "min(10 s, duration/3))."),
    ] = None,
    scale: Annotated[
        Optional[float],
        typer.Option("--scale", metavar="F", help="seed000: device counts of the mMTC and mixed low-rate groups times F "
                     "(default 1: the paper's 12,000 and 6,006)."),
    ] = None,
    sensitivity: Annotated[
        bool,
        typer.Option("--sensitivity/--no-sensitivity", help="Also run the sensitivity rows over the parameters the paper does not state "
                     "(about three quarters of seed001's runs, a third of seed002's; seed004: every case again with the paper's RTO "
                     "bounds, half its runs)."),
    ] = True,
    points: Annotated[
        Optional[int],
        typer.Option("--points", min=4, max=400, metavar="N", help="seed003: contour points per batch (default 40; the paper's 400)."),
    ] = None,
    size: Annotated[
        Optional[str],
        typer.Option("--size", metavar="SIZE", help="seed003: the downloaded file of the DLCT runs (default 300MB, the paper's)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, no summary.")] = False,
) -> None:
    """Reproduce a seed study next to its published numbers.

    Runs the study's plans, computes its tables next to the published numbers, judges the
    paper's claims, draws its figures and writes a report comparing the two."""
    from mptlab.reproduce import ReproduceError, study as find_study

    check_dask_address(dask, workers)
    try:
        module = find_study(study)
    except ReproduceError as e:
        fail(str(e), e.exit_code)
    chosen = [p for p in pairs.split(",") if p.strip()] if pairs else None
    extra = {k: v for k, v in (("duration", duration), ("scale", scale), ("points", points), ("size", size)) if v is not None}
    accepted = inspect.signature(module.reproduce).parameters
    for name in extra:
        if name not in accepted:
            fail(f"--{name}: not available for {study} (only for studies whose runs it can change)", 2)
    args = ["mptlab reproduce", study] + (["--runs", str(runs)] if runs is not None else []) \
        + (["--out", str(out)] if out is not None else []) + (["-j", str(workers)] if workers else []) \
        + (["--dask", dask] if dask else []) + (["--pairs", pairs] if pairs else []) \
        + ([] if sensitivity else ["--no-sensitivity"]) + (["--duration", duration] if duration else []) \
        + (["--scale", f"{scale:g}"] if scale is not None else []) + (["--points", str(points)] if points is not None else []) \
        + (["--size", size] if size is not None else [])
    try:
        with store_errors("the reproduction"):
            res = module.reproduce(runs=runs, out=out, workers=workers, dask=dask, pairs=chosen,
                                   progress=not quiet and sys.stderr.isatty(), command=" ".join(args),
                                   sensitivity=sensitivity, **extra)
    except ReproduceError as e:
        fail(str(e), e.exit_code)
    if not quiet:
        cells = res.table["simulated"].notna().sum()
        out_console.print(
            f"{study}: {len(res.runs)} runs ({res.failed} failed) in {res.sweep}/; "
            f"{cells}/{len(res.table)} published cells simulated; report in {res.out / 'report.md'}",
            highlight=False, soft_wrap=True,
        )
    if res.failed:
        print(f"{res.failed} run(s) failed; they are left out of the statistics (see report.md)", file=sys.stderr)
        raise typer.Exit(EXIT_FAILED)
