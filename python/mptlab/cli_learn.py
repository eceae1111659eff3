"""`mptlab learn blp-threshold`: train BLP's learned blocking threshold (seed 002 §III) from
simulated runs and export it as the JSON the Rust scheduler loads.

Registered on the main `app` by mptlab.cli. Exit codes as everywhere: 0 success, 1 the outputs
cannot be written, 2 invalid input (e.g. too few conditions to train on).
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Optional

import typer

from mptlab.cli import out_path, EXIT_FAILED, WorkersOption, app, fail, out_console

learn_app = typer.Typer(help="Train learned components of mptlab's algorithms.", no_args_is_help=True)
app.add_typer(learn_app, name="learn")


@learn_app.command(
    "blp-threshold",
    epilog=(
        "Examples:\n\n"
        "  mptlab learn blp-threshold --small --out runs/learn-small     a quick run (~1 min)\n\n"
        "  mptlab learn blp-threshold --out runs/learn-blp -j 2 --install crates/mptlab-sim/models/blp_threshold.json\n\n"
        "Writes OUT/dataset.parquet (one row per run), OUT/blp_threshold.json (the model), "
        "OUT/report.json and OUT/report.md. See docs/learn.md."
    ),
)
def blp_threshold(
    out: Annotated[Path, typer.Option("--out", "-o", parser=out_path, metavar="DIR", help="Output folder.")] = Path("runs/learn-blp"),
    conditions: Annotated[
        Optional[int], typer.Option("--conditions", "-c", min=2, help="Network conditions (default 400; --small: 40).")
    ] = None,
    seeds: Annotated[Optional[int], typer.Option("--seeds", "-s", min=1, help="Seeds per condition (default 2; --small: 1).")] = None,
    n_iter: Annotated[
        Optional[int], typer.Option("--n-iter", min=1, help="RandomizedSearchCV candidates (default 10; --small: 2).")
    ] = None,
    small: Annotated[bool, typer.Option("--small", help="The quick preset (tests, a first look).")] = False,
    random_state: Annotated[int, typer.Option("--random-state", help="Seed of conditions, split, SMOTE and search.")] = 0,
    install: Annotated[
        Optional[Path],
        typer.Option("--install", metavar="FILE", help="Also copy the model there (the shipped one: "
                     "crates/mptlab-sim/models/blp_threshold.json)."),
    ] = None,
    workers: WorkersOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress, no summary.")] = False,
) -> None:
    """Train BLP's learned blocking threshold (BT) from simulated runs.

    Generates runs over varied two-path conditions, labels each with the best BT, balances
    with SMOTE, trains the stacked classifier (RF + GB → logistic regression,
    RandomizedSearchCV) and exports it."""
    try:
        from mptlab.learn import pipeline, train
    except ImportError as e:
        fail(f"mptlab learn needs scikit-learn and imbalanced-learn ({e.name or e} is missing): pip install 'mptlab[learn]'")

    s = pipeline.SMALL if small else pipeline.Settings()
    s = replace(
        s,
        conditions=conditions or s.conditions,
        seeds=seeds or s.seeds,
        n_iter=n_iter or s.n_iter,
        random_state=random_state,
    )
    command = "mptlab learn blp-threshold" + "".join(
        f" {flag} {value}"
        for flag, value in [("--conditions", s.conditions), ("--seeds", s.seeds), ("--n-iter", s.n_iter),
                            ("--random-state", s.random_state)]
    ) + (" --small" if small else "")

    def progress(i: int, n: int) -> None:
        if not quiet and (i == n or i % max(1, n // 20) == 0):
            out_console.print(f"runs {i}/{n}", highlight=False)

    try:
        pipeline.run(out, s, workers=workers or 1, command=command, progress=progress)
    except train.TrainError as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot write the learner's outputs in {str(out)!r}: {e}", EXIT_FAILED)
    if install is not None:
        try:
            shutil.copyfile(out / "blp_threshold.json", install)
        except OSError as e:
            fail(f"cannot install the model at {str(install)!r}: {e}", EXIT_FAILED)
    if not quiet:
        out_console.print((out / "report.md").read_text(), highlight=False)
