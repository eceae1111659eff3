"""`mptlab reproduce seed001`: Table 3 and Figs. 3-4 of Łuczak, Ignaciuk, Morawski (2023).

    from mptlab.reproduce.seed001 import reproduce
    res = reproduce(runs=5, out="reproductions/seed001")
    res.table            # table3.csv as a DataFrame: simulated and published per cell

Steps: run plans/seed001.toml (12 CC pairs × `runs` seeds of scenarios/seed001-lte.toml)
through the sweep machinery into OUT/sweep-<N>runs/ (resumable: finished runs are skipped);
read each run's summary.json from the store; compute Table 3 (table.py); draw the figures
(figures.py); write OUT/table3.csv, table3.md, runs.csv, figures/, report.md
(report.py) and the sweep's HTML report OUT/sweep-report.html.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from mptlab.atomic import write_text
from mptlab.reproduce.common import ReproduceError, read_published, repo_file
from mptlab.reproduce.seed001 import claims as claims_mod
from mptlab.reproduce.seed001 import sensitivity as sensitivity_mod
from mptlab.reproduce.seed001.table import (
    PAIRS,
    RUN_COLUMNS,
    markdown,
    pairs_frame,
    run_record,
    table3,
    with_published,
)

STUDY = "seed001"
PLAN = "plans/seed001.toml"
REFERENCE = "seed001.csv"
#: The MPTCP flow of scenarios/seed001-lte.toml.
FLOW = "stream"
#: The plan's axis: the CC pair.
PAIR_KEY = "flows.stream.cc"
PAIR_COLUMN = "cc_pair"
DEFAULT_OUT = Path("reproductions") / STUDY
PUBLISHED_COLUMNS = ("mptcp_cc", "path_cc", "metric", "statistic", "value", "unit")
PUBLISHED_CELLS = 144
#: Runs per pair of each sensitivity variant (at most; fewer when --runs is smaller).
SENSITIVITY_RUNS = 10


@dataclasses.dataclass
class Reproduction:
    """What `reproduce` produced."""

    out: Path
    table: pd.DataFrame  # table3.csv
    runs: pd.DataFrame  # runs.csv: one row per run, per-run metrics
    files: list[Path]
    failed: int
    sweep: Path


def load_published() -> tuple[pd.DataFrame, Path]:
    """The published Table 3 (144 cells) and where it was found."""
    return read_published(REFERENCE, PUBLISHED_COLUMNS, PUBLISHED_CELLS)


def plan_for(runs: int | None = None, pairs: list[str] | None = None) -> Any:
    """plans/seed001.toml, with seeds 1..`runs` and only `pairs` (default: all of the plan)."""
    from mptlab.sweeps.plan import PlanError, load_plan

    path = repo_file(PLAN)
    try:
        plan = load_plan(path)
    except PlanError as e:
        raise ReproduceError(f"{path}: {e}") from None
    if runs is not None:
        if runs < 1:
            raise ReproduceError(f"--runs: must be at least 1, got {runs}")
        plan = dataclasses.replace(plan, seeds=tuple(range(1, runs + 1)))
    if pairs:
        axis = next(a for a in plan.axes if a.keys == (PAIR_KEY,))
        known = [v[0] for v in axis.values]
        wanted = [p.strip().lower() for p in pairs if p.strip()]
        unknown = [p for p in wanted if p not in known]
        if unknown or not wanted:
            raise ReproduceError(f"--pairs: unknown pair {', '.join(unknown) or '(none)'} (valid: {', '.join(known)})")
        keep = [i for i, v in enumerate(axis.values) if v[0] in wanted]
        narrowed = dataclasses.replace(axis, values=tuple(axis.values[i] for i in keep),
                                       texts=tuple(axis.texts[i] for i in keep))
        plan = dataclasses.replace(plan, axes=tuple(narrowed if a is axis else a for a in plan.axes))
    return plan


def sweep_folder(out: Path, plan: Any) -> Path:
    """One results store per (runs, pairs) choice: a store refuses another plan's runs."""
    n_pairs = plan.n_points
    return out / (f"sweep-{len(plan.seeds)}runs" + (f"-{n_pairs}pairs" if n_pairs != len(PAIRS) else ""))


def load_runs(folder: Path) -> pd.DataFrame:
    """One row per run of the store: run_key, status, error, seed, cc_pair, mptcp_cc,
    path_cc and the per-run metrics (table.RUN_COLUMNS; NaN for failed runs)."""
    from mptlab.sweeps.store import Store

    runs = Store(folder).query(
        f"SELECT run_key, status, error, seed, {PAIR_COLUMN} FROM runs ORDER BY point, seed"
    )
    records = []
    for r in runs.itertuples(index=False):
        rec: dict[str, Any] = {c: float("nan") for c in RUN_COLUMNS}
        if r.status == "ok":
            summary = json.loads((folder / "summaries" / f"{r.run_key}.json").read_text(encoding="utf-8"))
            rec.update(run_record(summary, FLOW))
        records.append(rec)
    frame = runs.merge(pairs_frame(runs[PAIR_COLUMN].unique()), on=PAIR_COLUMN, how="left")
    return pd.concat([frame.reset_index(drop=True), pd.DataFrame(records, columns=list(RUN_COLUMNS))], axis=1)


def reproduce(
    runs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    pairs: list[str] | None = None,
    progress: bool = False,
    command: str | None = None,
    sensitivity: bool = True,
) -> Reproduction:
    """Run the study and write its outputs under `out` (default reproductions/seed001).

    Raises ReproduceError with exit_code 2 before running anything when the plan or the
    published numbers cannot be found; failed runs are left out of the statistics and
    counted in `failed`."""
    from mptlab import _core
    from mptlab.sweeps import sweep
    from mptlab.sweeps.store import StoreError

    published, ref_path = load_published()
    plan = plan_for(runs, pairs)
    out = Path(out) if out is not None else DEFAULT_OUT
    folder = sweep_folder(out, plan)
    try:
        sweep(plan, out=folder, workers=workers, dask=dask, progress=progress)
    except StoreError:
        raise ReproduceError(
            f"{folder} holds the runs of another version of {PLAN} or of its scenario: "
            "remove that folder to redo them, or choose another --out"
        ) from None

    per_run = load_runs(folder)
    ok = per_run[per_run["status"] == "ok"]
    if ok.empty:
        raise ReproduceError(f"every run failed; see {folder} (mptlab query {folder} "
                             "\"SELECT error FROM runs\")", exit_code=1)
    table = with_published(table3(ok), published)
    trend_frame = _trend(folder)
    claims = claims_mod.evaluate(table, trend_frame)
    bands = claims_mod.within_bands(table)
    files = [
        write_text(out / "runs.csv", per_run.to_csv(index=False)),
        write_text(out / "table3.csv", table.to_csv(index=False)),
        write_text(out / "table3.md", "Table 3, simulated (published)\n\n" + markdown(table)),
        write_text(out / "claims.csv", claims.to_csv(index=False)),
    ]
    sens_md = ""
    if sensitivity and not pairs:
        sens_runs = min(len(plan.seeds), SENSITIVITY_RUNS)
        sens_runs_frame, sens_failed = sensitivity_mod.run_variants(
            out, sens_runs, workers, dask, progress, plan_for, load_runs)
        base = ok if len(plan.seeds) == sens_runs else ok[ok["seed"] <= sens_runs]
        sens = sensitivity_mod.summarise(sens_runs_frame, base)
        verdicts = {"base": _verdict_counts(claims_mod.evaluate(with_published(table3(base), published)))}
        for v, g in sens_runs_frame.groupby("variant", sort=False):
            if (g["path_cc"] != "none").all():
                verdicts[v] = _verdict_counts(claims_mod.evaluate(with_published(table3(g), published)))
        files.append(write_text(out / "sensitivity.csv", sens.to_csv(index=False)))
        sens_md = sensitivity_mod.markdown(sens, sens_runs, verdicts)
        if sens_failed:
            sens_md += "\nFailed sensitivity runs: " + "; ".join(sens_failed) + "\n"
    claims_md = claims_mod.markdown(claims, bands, int(table["simulated"].isna().sum()))
    seeds, figures, frame = _figures(folder, ok, out)
    files += figures
    html = _html_report(folder, out)
    if html is not None:
        files.append(html)
    failed = per_run[per_run["status"] != "ok"]
    files.append(_report(out, table, failed, ok, seeds, figures, frame, html, folder, ref_path, plan,
                         command or _command(runs, out, workers, dask, pairs), _core.version(),
                         claims_md, sens_md))
    return Reproduction(out=out, table=table, runs=per_run, files=files, failed=len(failed), sweep=folder)


def _verdict_counts(claims: pd.DataFrame) -> str:
    c = claims["verdict"].value_counts()
    return f"{c.get(claims_mod.HOLDS, 0)}/{c.get(claims_mod.FAILS, 0)}/{c.get(claims_mod.NOT_COMPARABLE, 0)}"


def _trend(folder: Path) -> pd.DataFrame | None:
    from mptlab.reproduce.seed001.compare import trend

    try:
        return trend(_flow_series(folder, "goodput_mbps"))
    except Exception:  # noqa: BLE001 - a missing series only leaves the trend claim not comparable
        return None


def _figures(folder: Path, ok: pd.DataFrame, out: Path) -> tuple[dict[str, int], list[Path], pd.DataFrame | None]:
    """Draw Figs. 3-4 from the representative runs; also return the frame they were drawn from."""
    from mptlab.reproduce.seed001.figures import SERIES, draw_figures, figure_frame, representative_seeds
    from mptlab.sweeps.store import Store

    seeds = representative_seeds(ok)
    if not seeds:
        return seeds, [], None
    names = ", ".join(f"'{s}'" for s in SERIES)
    wanted = ", ".join(str(s) for s in sorted(set(seeds.values())))
    ts = Store(folder).query(
        f"SELECT {PAIR_COLUMN}, seed, series, entity, t_s, value FROM timeseries "
        f"WHERE series IN ({names}) AND seed IN ({wanted})"
    )
    ts = ts.merge(pairs_frame(ts[PAIR_COLUMN].unique()), on=PAIR_COLUMN, how="left")
    ts = ts[[seeds.get(p) == s for p, s in zip(ts["path_cc"], ts["seed"])]]
    frame = figure_frame(ts, FLOW)
    return seeds, draw_figures(frame, FLOW, out / "figures"), frame


def _flow_series(folder: Path, series: str) -> pd.DataFrame:
    """One of the stream's series in every ok run (mptcp_cc, path_cc, seed, t_s, value)."""
    from mptlab.sweeps.store import Store

    g = Store(folder).query(
        f"SELECT {PAIR_COLUMN}, seed, t_s, value FROM timeseries "
        f"WHERE series = '{series}' AND entity = '{FLOW}'"
    )
    return g.merge(pairs_frame(g[PAIR_COLUMN].unique()), on=PAIR_COLUMN, how="left")


def _html_report(folder: Path, out: Path) -> Path | None:
    from mptlab.report import build_report

    return build_report(folder, out / "sweep-report.html")


def _report(out: Path, table: pd.DataFrame, failed: pd.DataFrame, ok: pd.DataFrame, seeds: dict[str, int],
            figures: list[Path], frame: pd.DataFrame | None, html: Path | None, folder: Path,
            ref_path: Path, plan: Any, command: str, version: str, claims_md: str = "",
            sensitivity_md: str = "") -> Path:
    from mptlab.reproduce.seed001.report import Context, render

    from mptlab.reproduce.seed001.compare import peak_times, trend

    ctx = Context(
        command=command,
        runs_per_pair=len(plan.seeds),
        ok=len(ok),
        failed=len(failed),
        version=version,
        scenario=_shown(plan.base_path),
        plan=_shown(plan.path),
        sweep=_rel(folder, out),
        reference=_shown(ref_path),
        seeds=seeds,
        figures=[_rel(f, out) for f in figures],
        html_report=_rel(html, out) if html is not None else None,
        failures=[f"{r.cc_pair} seed {r.seed}: {r.error}" for r in failed.itertuples()],
        trend=trend(_flow_series(folder, "goodput_mbps")),
        peaks={label: peak_times(_flow_series(folder, series))
               for label, series in (("T_over(k)", "protocol_delay_ms"), ("ζ(k)", "hol_degree_ms"))},
        series=frame,
        claims=claims_md,
        sensitivity=sensitivity_md,
    )
    return write_text(out / "report.md", render(table, ctx, runs=ok))


def _rel(path: Path, base: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(base).resolve()).as_posix()
    except ValueError:
        return str(path)


def _shown(path: Path | None) -> str:
    """A repository path as `plans/seed001.toml` rather than an absolute one."""
    if path is None:
        return "(inline)"
    p = Path(path).resolve()
    for parent in p.parents:
        if (parent / "plans").is_dir() and (parent / "scenarios").is_dir():
            return p.relative_to(parent).as_posix()
    return str(path)


def _command(runs: int | None, out: Path, workers: int | None, dask: str | None, pairs: list[str] | None) -> str:
    parts = ["mptlab reproduce seed001"]
    if runs is not None:
        parts.append(f"--runs {runs}")
    if out != DEFAULT_OUT:
        parts.append(f"--out {out}")
    if workers is not None:
        parts.append(f"-j {workers}")
    if dask is not None:
        parts.append(f"--dask {dask}")
    if pairs:
        parts.append(f"--pairs {','.join(pairs)}")
    return " ".join(parts)
