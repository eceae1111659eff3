"""`mptlab reproduce seed000`: Picchi & Tarchi (2026), MPTCP and MPQUIC sharing a dual
terrestrial backhaul (5G IAB) with eMBB, mMTC-like and mixed traffic.

    from mptlab.reproduce.seed000 import reproduce
    res = reproduce(runs=1, out="reproductions/seed000")
    res.table            # table.csv: every published cell of Tables 2-23 with its simulated value

Steps: run the five plans of CASES (plans/seed000-<scenario>.toml, 18 scenario × pairing cases,
seeds 1..`runs`) through the sweep machinery into OUT/sweep-<scenario>-<N>runs/ (resumable,
`--dask` as every sweep); read each run's summary, time series and flow records (metrics.py);
put the means over seeds next to reference/seed000.csv (table.py); judge the paper's findings
(claims.py); draw the paper's panels per case (figures.py); write OUT/table.csv, tables.md,
bands.csv, jain.csv, jitter_sensitivity.csv, claims.csv, runs.csv, samples.parquet, figures/ and
report.md (report.py).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

from mptlab.atomic import write_text
from mptlab.reproduce.common import ReproduceError, read_published, repo_file
from mptlab.reproduce.seed000.claims import PAIRINGS
from mptlab.reproduce.seed000.metrics import SERIES, interval_samples, run_record
from mptlab.reproduce.seed000.table import pairing_label

STUDY = "seed000"
REFERENCE = "seed000.csv"
#: 576 table cells and the 8 text values of Figs. 17a-20a.
PUBLISHED_ROWS = 584
PUBLISHED_COLUMNS = ("table", "scenario", "backhaul", "traffic", "pairing", "protocol", "link", "metric",
                     "statistic", "value", "unit")
#: Scenario -> plan, in the paper's order (Sec. 4.1-4.5).
CASES: dict[str, str] = {
    "symmetric-embb": "plans/seed000-symmetric-embb.toml",
    "symmetric-mmtc": "plans/seed000-symmetric-mmtc.toml",
    "asymmetric-embb": "plans/seed000-asymmetric-embb.toml",
    "asymmetric-mmtc": "plans/seed000-asymmetric-mmtc.toml",
    "mixed": "plans/seed000-mixed.toml",
}
#: The low-rate device groups `scale` multiplies, and their size in the paper.
SCALED_GROUPS: dict[str, dict[str, int]] = {
    "symmetric-mmtc": {"tcpue": 6000, "quicue": 6000},
    "asymmetric-mmtc": {"tcpue": 6000, "quicue": 6000},
    "mixed": {"tcplow": 3000, "quiclow": 3000},
}
DEFAULT_RUNS = 1
DEFAULT_OUT = Path("reproductions") / STUDY


@dataclasses.dataclass
class Reproduction:
    """What `reproduce` produced."""

    out: Path
    table: pd.DataFrame  # table.csv
    runs: pd.DataFrame  # runs.csv: one row per run
    files: list[Path]
    failed: int
    sweep: Path  # the folder holding the cases' sweep stores


def load_published() -> tuple[pd.DataFrame, Path]:
    """reference/seed000.csv (584 rows) and where it was found."""
    return read_published(REFERENCE, PUBLISHED_COLUMNS, PUBLISHED_ROWS, dtype={"table": str, "value": float})


def select_cases(pairs: list[str] | None) -> dict[str, list[str]]:
    """Scenario -> its pairings to run. `pairs` holds "scenario" (all its pairings) or
    "scenario:PAIRING" entries (case-insensitive); None runs all 18 cases. Raises ReproduceError
    (exit 2) for an unknown scenario or pairing."""
    if not pairs:
        return {sc: list(PAIRINGS[sc]) for sc in CASES}
    chosen: dict[str, list[str]] = {}
    valid = ", ".join(f"{sc}[:{'|'.join(PAIRINGS[sc])}]" for sc in CASES)
    for entry in (p.strip() for p in pairs):
        if not entry:
            continue
        sc, _, pairing = entry.partition(":")
        sc = sc.strip().lower()
        if sc not in CASES:
            raise ReproduceError(f"--pairs: unknown scenario {sc!r} in {entry!r} (valid: {valid})")
        names = {p.lower(): p for p in PAIRINGS[sc]}
        if pairing and pairing.strip().lower() not in names:
            raise ReproduceError(f"--pairs: unknown pairing {pairing!r} for {sc} (valid: {', '.join(PAIRINGS[sc])})")
        wanted = [names[pairing.strip().lower()]] if pairing else list(PAIRINGS[sc])
        chosen[sc] = [p for p in PAIRINGS[sc] if p in wanted or p in chosen.get(sc, [])]
    if not chosen:
        raise ReproduceError(f"--pairs: no case given (valid: {valid})")
    return {sc: chosen[sc] for sc in CASES if sc in chosen}


def plan_for(scenario: str, runs: int, pairings: list[str], duration: str | None = None, scale: float = 1.0) -> Any:
    """The scenario's plan with seeds 1..`runs`, only `pairings`, a shorter run.duration and the
    low-rate groups scaled by `scale` (at least one device each)."""
    from mptlab.sweeps.plan import PlanError, load_plan

    path = repo_file(CASES[scenario])
    overrides: dict[str, str] = {}
    if duration:
        overrides["run.duration"] = duration
    for group, count in SCALED_GROUPS.get(scenario, {}).items():
        if scale != 1.0:
            overrides[f"groups.{group}.count"] = str(max(1, round(count * scale)))
    try:
        plan = load_plan(path, overrides or None)
    except PlanError as e:
        raise ReproduceError(f"{path}: {e}") from None
    axes = []
    for axis in plan.axes:  # one zip of the controllers: keep the chosen pairings' positions
        cols = [next(c for c, k in plan.columns.items() if k == key) for key in axis.keys]
        keep = [i for i, vals in enumerate(axis.values)
                if pairing_label(str(vals[cols.index("mptcp_cc")]), str(vals[cols.index("quic_cc")])) in pairings]
        axes.append(dataclasses.replace(axis, values=tuple(axis.values[i] for i in keep),
                                        texts=tuple(axis.texts[i] for i in keep)))
    return dataclasses.replace(plan, axes=tuple(axes), seeds=tuple(range(1, runs + 1)))


def sweep_folder(out: Path, scenario: str, runs: int, pairings: list[str], duration: str | None, scale: float) -> Path:
    """OUT/sweep-<scenario>-<N>runs, with suffixes for a subset of pairings, a duration or a scale
    (a store holds one plan: each variant gets its own folder)."""
    name = f"sweep-{scenario}-{runs}runs"
    if list(pairings) != list(PAIRINGS[scenario]):
        name += "-" + "+".join(pairings)
    if duration:
        name += f"-{duration}"
    if scale != 1.0 and scenario in SCALED_GROUPS:
        name += f"-scale{scale:g}"
    return out / name


def load_runs(scenario: str, folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per run (scenario, pairing, point, seed, status, error, wall_s, duration_s and the
    metrics of metrics.run_record) and the panels' samples of every ok run."""
    from mptlab.sweeps.store import Store

    # One connection and named columns only: a 12,000-device run's `runs` row has a column per
    # access link (about 96,000), which `SELECT *` cannot materialise and every view binding
    # re-reads (about 11 s each).
    con = Store(folder).connect()
    try:
        runs = con.execute("SELECT run_key, status, error, point, seed, wall_s, mptcp_cc, quic_cc FROM runs "
                           "ORDER BY point, seed").df()
        names = ", ".join(f"'{s}'" for s in SERIES)
        series = con.execute(f"SELECT run_key, series, entity, t_s, value FROM timeseries WHERE series IN ({names})").df()
        flows = con.execute('SELECT run_key, "group", loss_pct FROM flows').df() if (runs["status"] == "ok").any() else pd.DataFrame()
    finally:
        con.close()
    records, samples = [], []
    for r in runs.to_dict("records"):
        rec: dict[str, Any] = {
            "scenario": scenario, "pairing": pairing_label(str(r["mptcp_cc"]), str(r["quic_cc"])),
            "point": int(r["point"]), "seed": int(r["seed"]), "status": r["status"], "error": r["error"],
            "wall_s": float(r["wall_s"]), "run_key": r["run_key"],
        }
        if r["status"] == "ok":
            summary = json.loads((folder / "summaries" / f"{r['run_key']}.json").read_text(encoding="utf-8"))
            mine = series[series["run_key"] == r["run_key"]]
            fl = flows[flows["run_key"] == r["run_key"]] if not flows.empty else flows
            duration = float(summary["duration_s"])
            rec["duration_s"] = duration
            rec["events"] = float((summary.get("engine") or {}).get("events") or float("nan"))
            rec.update(run_record(summary, mine, fl, duration))
            s = interval_samples(mine, summary, duration)
            samples.append(s.assign(scenario=scenario, pairing=rec["pairing"], seed=rec["seed"]))
        records.append(rec)
    return pd.DataFrame(records), (pd.concat(samples, ignore_index=True) if samples else pd.DataFrame())


def reproduce(
    runs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    pairs: list[str] | None = None,
    progress: bool = False,
    command: str | None = None,
    duration: str | None = None,
    scale: float | None = None,
    sensitivity: bool = True,
) -> Reproduction:
    """Run the study and write its outputs under `out` (default reproductions/seed000).

    `pairs` limits the cases ("scenario" or "scenario:PAIRING"); `duration` shortens every run
    (the warm-up becomes min(10 s, duration/3)); `scale` multiplies the device counts of the
    mMTC and mixed low-rate groups (default 1: the paper's 12,000 and 6,006). `sensitivity` is
    accepted for the CLI's sake: the jitter sensitivity comes from the same runs. Raises
    ReproduceError (exit 2) before running anything for bad input or missing files; failed runs
    are left out of the statistics and counted in `failed`."""
    from mptlab import _core
    from mptlab.reproduce.seed000.claims import View, claims
    from mptlab.reproduce.seed000.figures import draw_figures
    from mptlab.reproduce.seed000.report import jain_frame, jitter_sensitivity, render
    from mptlab.reproduce.seed000.table import band_counts, comparison, markdown, seed_means, text_values
    from mptlab.sweeps.progress import SweepProgress
    from mptlab.sweeps.runner import run_sweep
    from mptlab.sweeps.store import StoreError

    started = time.perf_counter()
    n = runs if runs is not None else DEFAULT_RUNS
    if n < 1:
        raise ReproduceError(f"--runs: must be at least 1, got {n}")
    factor = 1.0 if scale is None else float(scale)
    if not factor > 0:
        raise ReproduceError(f"--scale: must be above 0, got {scale}")
    cases = select_cases(pairs)
    published, ref_path = load_published()
    plans = {sc: plan_for(sc, n, ps, duration, factor) for sc, ps in cases.items()}
    out = Path(out) if out is not None else DEFAULT_OUT
    frames, samples, folders = [], [], {}
    for sc, plan in plans.items():
        folder = sweep_folder(out, sc, n, cases[sc], duration, factor)
        folders[sc] = folder
        bar = SweepProgress(enabled=progress)
        try:
            # run_sweep, not sweep(): sweep() ends with `SELECT * FROM runs`, see load_runs
            run_sweep(plan, folder, workers=workers, dask=dask, on_start=bar.start, on_run=bar.update)
        except StoreError:
            raise ReproduceError(
                f"{folder} holds the runs of another version of {CASES[sc]} or of its scenario: "
                "remove that folder to redo them, or choose another --out"
            ) from None
        finally:
            bar.close()
        per_run, s = load_runs(sc, folder)
        frames.append(per_run)
        samples.append(s)
    per_run = pd.concat(frames, ignore_index=True)
    ok = per_run[per_run["status"] == "ok"]
    if ok.empty:
        raise ReproduceError(f"every run failed; see {out}", exit_code=1)
    means = seed_means(ok)
    table = comparison(published, means)
    bands = band_counts(table)
    verdicts = claims(View(means), View.published(published))
    jains = jain_frame(means, published)
    jit = jitter_sensitivity(means)
    texts = text_values(published)
    sample_frame = pd.concat([s for s in samples if not s.empty], ignore_index=True) if any(not s.empty for s in samples) else pd.DataFrame()
    out.mkdir(parents=True, exist_ok=True)
    files = [
        write_text(out / "runs.csv", per_run.drop(columns=["run_key"]).to_csv(index=False)),
        write_text(out / "table.csv", table.to_csv(index=False)),
        write_text(out / "tables.md", "# Seed 000: published next to simulated\n\n" + markdown(table)),
        write_text(out / "bands.csv", bands.to_csv(index=False)),
        write_text(out / "claims.csv", verdicts.to_csv(index=False)),
        write_text(out / "jain.csv", jains.to_csv(index=False)),
        write_text(out / "jitter_sensitivity.csv", jit.to_csv(index=False)),
    ]
    if not sample_frame.empty:
        path = out / "samples.parquet"
        sample_frame.to_parquet(path, index=False)
        files.append(path)
    figures = draw_figures(sample_frame, out / "figures")
    files += figures
    failed = per_run[per_run["status"] != "ok"]
    ctx = {
        "command": command or f"mptlab reproduce seed000 --runs {n}",
        "runs": n, "ok": len(ok), "scale": factor, "duration": duration,
        "failed": [f"{r.scenario} {r.pairing} seed {r.seed}: {r.error}" for r in failed.itertuples()],
        "version": _core.version(), "reference": str(ref_path),
        "cases": {sc: f"{CASES[sc]} ({', '.join(ps)})" for sc, ps in cases.items()},
        "figures": [f.relative_to(out).as_posix() for f in figures if f.suffix == ".png"],
        "elapsed_s": time.perf_counter() - started,
        "folders": {sc: str(f) for sc, f in folders.items()},
    }
    extra = {"bands": bands, "claims": verdicts, "jain": jains, "jitter": jit, "text": texts, "means": means}
    files.append(write_text(out / "report.md", render(table, ok, ctx, extra)))
    return Reproduction(out=out, table=table, runs=per_run, files=files, failed=len(failed), sweep=out)
