"""`mptlab reproduce seed002`: §V of Das et al. (ICC Workshops 2025), BLP and its adaptive
controller against the benchmark MPQUIC schedulers.

    from mptlab.reproduce.seed002 import reproduce
    res = reproduce(runs=3, out="reproductions/seed002")
    res.table            # comparison.csv: every published row with its simulated value

Steps: run the six plans of CASES (plans/seed002-*.toml, seeds 1..`runs`) through the sweep
machinery into OUT/sweep-<case>-<N>runs/ (resumable); read each run's summary.json and, for
the bytes-over-time and cross-traffic cases, its goodput series (metrics.py); compute the
paper's statistics and put them next to reference/seed002.csv (table.py); draw the box
plots and Fig. 10 (figures.py); judge which published numbers are comparable and how
close, every claim of the abstract, conclusion and §V, the seeds and the sensitivity grid
(claims.py); write OUT/comparison.csv, comparison.md, agreement.csv, claims.csv,
seeds.csv, sensitivity.csv, runs.csv, stats.csv, figures/ and report.md (report.py).
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
from mptlab.reproduce.seed002.table import BLP_OLIA
from mptlab.reproduce.seed002.metrics import (
    BIN_S,
    FLOW,
    LONG_GAP_S,
    RUN_COLUMNS,
    TCP_FLOW,
    cumulative_bytes,
    flow_of,
    interruptions,
    run_record,
)

STUDY = "seed002"
REFERENCE = "seed002.csv"
PUBLISHED_ROWS = 92
PUBLISHED_COLUMNS = ("section", "case", "scheduler", "metric", "statistic", "value", "unit", "note")
#: Case -> plan. Order: as in the paper's §V.
CASES: dict[str, str] = {
    "homogeneous": "plans/seed002-homogeneous.toml",
    "total-delay": "plans/seed002-total-delay.toml",
    "heterogeneous": "plans/seed002-heterogeneous.toml",
    "het-traffic": "plans/seed002-het-traffic.toml",
    "bytes": "plans/seed002-bytes.toml",
    "cross": "plans/seed002-cross.toml",
    "sensitivity": "plans/seed002-sensitivity.toml",
}
DEFAULT_RUNS = 3
DEFAULT_OUT = Path("reproductions") / STUDY
#: The engine's scheduler names -> the paper's.
SCHEDULERS = {"roundrobin": "RoundRobin", "minrtt": "MinRTT", "blest": "BLEST", "ecf": "ECF",
              "peekaboo": "Peekaboo", "blp": "BLP"}


@dataclasses.dataclass
class Reproduction:
    """What `reproduce` produced."""

    out: Path
    table: pd.DataFrame  # comparison.csv
    runs: pd.DataFrame  # runs.csv: one row per run of every case
    files: list[Path]
    failed: int
    sweep: Path  # the folder holding the cases' sweep stores


def load_published() -> tuple[pd.DataFrame, Path]:
    """reference/seed002.csv (92 rows) and where it was found; values kept as printed text."""
    return read_published(REFERENCE, PUBLISHED_COLUMNS, PUBLISHED_ROWS, dtype=str, keep_default_na=False)


def plan_for(case: str, runs: int, duration: str | None = None) -> Any:
    """The case's plan with seeds 1..`runs` (and, for tests, a shorter run.duration)."""
    from mptlab.sweeps.plan import PlanError, load_plan

    path = repo_file(CASES[case])
    overrides = {"run.duration": duration} if duration else None
    try:
        plan = load_plan(path, overrides)
    except PlanError as e:
        raise ReproduceError(f"{path}: {e}") from None
    return dataclasses.replace(plan, seeds=tuple(range(1, runs + 1)))


def sched_label(sched: str, opts_text: str, ctrl: str | None = None) -> tuple[str, float]:
    """("BLP", 0.003) from the plan's scheduler and options columns; Δλ is NaN for schedulers
    without one (BLEST: its ±step, 0 when not adaptive; BLP: delta_lambda). BLP under OLIA is
    `BLP_OLIA`."""
    opts = json.loads(opts_text) if opts_text else {}
    name = SCHEDULERS.get(sched, sched)
    if sched == "blp":
        if ctrl == "olia":
            name = BLP_OLIA
        return name, float(opts.get("delta_lambda", 0.001))
    if sched == "blest":
        return name, 0.0 if opts.get("adaptive") is False else float(opts.get("lambda_up", 0.04))
    return name, float("nan")


def _rate_bps(summary: dict[str, Any], link: str) -> float:
    return next(float(l["rate_mbps"]) * 1e6 for l in summary["links"] if l["name"] == link)


def _delay_ms(base: dict[str, Any], over: dict[str, str], link: str) -> str:
    return over.get(f"links.{link}.delay") or base["links"][link]["delay"]


def _fixed(plan: Any) -> dict[str, str]:
    """The plan's [set] overrides that are plain values, as strings (the axes' columns hold the
    rest): without them a setting fixed in [set] (the bytes case's `links.p2.delay = "0ms"`)
    was labelled with the base scenario's value."""
    import tomllib

    out: dict[str, str] = {}
    for key, text in getattr(plan, "fixed", ()):
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:  # an override given as a bare string (run.duration=15s)
            value = text
        if not isinstance(value, dict):
            out[key] = str(value)
    return out


def _resolved(summary: dict[str, Any]) -> dict[str, Any]:
    """Settings read back from the run's own resolved scenario: the MPQUIC flow-control window
    (bytes), path 1's queue limit, and the losses the random loss models drew (channel drops
    summed over every link)."""
    sc = summary.get("scenario") or {}
    quic = ((sc.get("flows") or {}).get(FLOW) or {}).get("quic") or {}
    queue = (((sc.get("links") or {}).get("p1") or {}).get("queue") or {}).get("limit", "")
    return {
        "fc_window_B": float(quic.get("max_data", float("nan"))),
        "queue": str(queue),
        "random_losses": float(sum(int(l.get("channel_drops") or 0) for l in summary.get("links", []))),
    }


def load_runs(case: str, folder: Path, plan: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per run (case, point, seed, status, error, scheduler, dlambda, path settings,
    RUN_COLUMNS, interruption counts for the cross case) and, for the bytes case, the
    cumulative bytes over time of every ok run."""
    import tomllib

    from mptlab.sweeps.store import Store

    store = Store(folder)
    runs = store.query("SELECT * FROM runs ORDER BY point, seed")
    base = tomllib.loads(plan.base_text)
    series = None
    if case in ("bytes", "cross"):
        series = store.query("SELECT run_key, entity, t_s, value FROM timeseries WHERE series = 'goodput_mbps'")
    records, curves = [], []
    fixed = _fixed(plan)
    for r in runs.to_dict("records"):
        sched, dl = sched_label(r["sched"], r["sched_opts"], r.get("ctrl"))
        over = {**fixed, **{key: str(r[col]) for col, key in plan.columns.items() if col in r}}
        rec: dict[str, Any] = {
            "case": case, "point": int(r["point"]), "seed": int(r["seed"]), "status": r["status"],
            "error": r["error"], "run_key": r["run_key"], "scheduler": sched, "dlambda": dl,
            "p1": _setting(base, over, "p1"), "p2": _setting(base, over, "p2"),
            "file_size": over.get("flows.mp.app.size", "3125000B") if case != "bytes" else "",
            "payload": over.get("flows.mp.quic.max_udp_payload",
                                "1200B" if case == "heterogeneous" else "1472B"),
        }
        rec.update({c: float("nan") for c in RUN_COLUMNS})
        rec.update(fc_window_B=float("nan"), queue="", random_losses=float("nan"))
        if r["status"] == "ok":
            summary = json.loads((folder / "summaries" / f"{r['run_key']}.json").read_text(encoding="utf-8"))
            cap = _rate_bps(summary, "p1") + _rate_bps(summary, "p2")
            rec.update(run_record(summary, cap, float(summary["duration_s"])))
            rec.update(_resolved(summary))
            if series is not None:
                mine = series[series["run_key"] == r["run_key"]]
                for flow in (FLOW, TCP_FLOW):
                    s = mine[mine["entity"] == flow].sort_values("t_s")
                    if s.empty:
                        continue
                    if case == "cross":
                        rec[f"interruptions_{flow}"] = interruptions(s["value"].to_numpy(), BIN_S)
                        rec[f"stalls_100ms_{flow}"] = interruptions(s["value"].to_numpy(), BIN_S, LONG_GAP_S)
                        tcp = flow_of(summary, TCP_FLOW)
                        rec["tcp_goodput_mbps"] = float((tcp or {}).get("goodput_mbps", {}).get("mean") or 0.0)
                    elif flow == FLOW:
                        c = cumulative_bytes(s, BIN_S)
                        c["scheduler"], c["seed"], c["p2"] = sched, rec["seed"], rec["p2"]
                        curves.append(c)
        records.append(rec)
    return pd.DataFrame(records), (pd.concat(curves, ignore_index=True) if curves else pd.DataFrame())


def _setting(base: dict[str, Any], over: dict[str, str], link: str) -> str:
    rate = over.get(f"links.{link}.rate") or base["links"][link]["rate"]
    return f"{rate.replace('Mbps', '')}-{_delay_ms(base, over, link)}"


def reproduce(
    runs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    pairs: list[str] | None = None,
    progress: bool = False,
    command: str | None = None,
    duration: str | None = None,
    sensitivity: bool = True,
) -> Reproduction:
    """Run the study and write its outputs under `out` (default reproductions/seed002).
    `sensitivity=False` leaves out the sensitivity grid (the CLI's --no-sensitivity).

    `pairs` (the CLI's hidden --pairs) limits the run to some CASES (tests); `duration` shortens
    every run (tests; the fixed-time cases then cover less than the paper's 20 s). Raises
    ReproduceError (exit 2) before running anything when a plan or the published numbers are
    missing; failed runs are left out of the statistics and counted in `failed`."""
    from mptlab import _core
    from mptlab.reproduce.seed002.claims import agreement, band_counts, claims, seed_report
    from mptlab.reproduce.seed002.claims import sensitivity as sensitivity_table
    from mptlab.reproduce.seed002.figures import draw_figures
    from mptlab.reproduce.seed002.report import render
    from mptlab.reproduce.seed002.table import comparison, markdown, stats_frame
    from mptlab.sweeps import sweep
    from mptlab.sweeps.store import StoreError

    published, ref_path = load_published()
    n = runs if runs is not None else DEFAULT_RUNS
    if n < 1:
        raise ReproduceError(f"--runs: must be at least 1, got {n}")
    cases = list(CASES)
    if pairs:
        wanted = [p.strip().lower() for p in pairs if p.strip()]
        unknown = [p for p in wanted if p not in CASES]
        if unknown or not wanted:
            raise ReproduceError(f"--pairs: unknown case {', '.join(unknown) or '(none)'} (valid: {', '.join(CASES)})")
        cases = [c for c in CASES if c in wanted]
    if not sensitivity:
        cases = [c for c in cases if c != "sensitivity"]
    plans = {c: plan_for(c, n, duration) for c in cases}
    out = Path(out) if out is not None else DEFAULT_OUT
    frames, curves, folders = [], pd.DataFrame(), {}
    for case, plan in plans.items():
        folder = out / f"sweep-{case}-{n}runs" if not duration else out / f"sweep-{case}-{n}runs-{duration}"
        folders[case] = folder
        try:
            sweep(plan, out=folder, workers=workers, dask=dask, progress=progress)
        except StoreError:
            raise ReproduceError(
                f"{folder} holds the runs of another version of {CASES[case]} or of its scenario: "
                "remove that folder to redo them, or choose another --out"
            ) from None
        per_run, c = load_runs(case, folder, plan)
        frames.append(per_run)
        if not c.empty:
            curves = c
    per_run = pd.concat(frames, ignore_index=True)
    ok = per_run[per_run["status"] == "ok"]
    if ok.empty:
        raise ReproduceError(f"every run failed; see {out}", exit_code=1)
    stats = stats_frame(ok)
    table = agreement(comparison(published, ok, stats, n))
    bands = band_counts(table)
    verdicts = claims(stats, ok)
    seeds = seed_report(ok)
    sens = sensitivity_table(ok)
    files = [
        write_text(out / "runs.csv", per_run.drop(columns=["run_key"]).to_csv(index=False)),
        write_text(out / "stats.csv", stats.to_csv(index=False)),
        write_text(out / "comparison.csv", table.to_csv(index=False)),
        write_text(out / "comparison.md", "Seed 002, published next to simulated\n\n" + markdown(table)),
        write_text(out / "agreement.csv", bands.to_csv(index=False)),
        write_text(out / "claims.csv", verdicts.to_csv(index=False)),
        write_text(out / "seeds.csv", seeds.to_csv(index=False)),
    ]
    if not sens.empty:
        files.append(write_text(out / "sensitivity.csv", sens.to_csv(index=False)))
    figures = draw_figures(ok, curves, out / "figures")
    files += figures
    failed = per_run[per_run["status"] != "ok"]
    ctx = {
        "command": command or f"mptlab reproduce seed002 --runs {n}",
        "runs": n, "ok": len(ok), "failed": [f"{r.case} point {r.point} seed {r.seed}: {r.error}" for r in failed.itertuples()],
        "version": _core.version(), "reference": str(ref_path), "cases": {c: CASES[c] for c in cases},
        "figures": [f.relative_to(out).as_posix() for f in figures if f.suffix == ".png"],
        "duration": duration,
    }
    extra = {"bands": bands, "claims": verdicts, "seeds": seeds, "sensitivity": sens}
    files.append(write_text(out / "report.md", render(table, stats, ok, ctx, extra)))
    return Reproduction(out=out, table=table, runs=per_run, files=files, failed=len(failed), sweep=out)
