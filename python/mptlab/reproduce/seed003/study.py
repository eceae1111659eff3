"""`mptlab reproduce seed003`: Pieska et al. (2024), nested congestion control in multipath
tunnels (MP-DCCP-like and TCP tunnels), against reference/seed003.csv.

    from mptlab.reproduce.seed003 import reproduce
    res = reproduce(out="reproductions/seed003")          # the default: 40 contour points, 1 run
    res = reproduce(points=400, runs=10, size="300MB")    # the paper's scale

Steps: generate the cases' plans (plans.py: Fig. 2, the contour batches, Fig. 10 / Table 3 and
their baselines, sec. 5.2's 150 ms-margin runs; a case needing TCP tunnel paths is skipped, with
the simulator's message, only on a simulator that refuses them); run each through the sweep machinery into OUT/sweep-<case>/ (resumable,
local pool or `--dask`); read the runs (one row each, with the tunnel's secondary-path share
from the run's summary); join tunnel runs to their baselines (metrics.relative_dlct); judge the
findings (claims.py); draw the figures (figures.py); write OUT/fig2.csv, contours.csv,
fig10.csv, table3.csv, margin.csv, claims.csv, runs.csv, skipped.csv, figures/ and report.md
(report.py).
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
from mptlab.reproduce.seed003 import plans as P
from mptlab.reproduce.seed003.metrics import network_columns, relative_dlct, size_bytes
from mptlab.reproduce.seed003.network import rtt_split_available, scenarios, tcp_tunnel_refusal

STUDY = "seed003"
REFERENCE = "seed003.csv"
PUBLISHED_ROWS = 92
PUBLISHED_COLUMNS = ("section", "item", "value", "unit", "note")
DEFAULT_RUNS = 1
DEFAULT_OUT = Path("reproductions") / STUDY
BASE = "scenarios/seed003/base.toml"
#: --pairs selects parts: fig2, contours, fig10 (default: all three).
PARTS = ("fig2", "contours", "fig10")


@dataclasses.dataclass
class Reproduction:
    """What `reproduce` produced (`table`: claims.csv, one row per finding)."""

    out: Path
    table: pd.DataFrame
    runs: pd.DataFrame
    files: list[Path]
    failed: int
    sweep: Path
    skipped: pd.DataFrame


def load_published() -> tuple[pd.DataFrame, Path]:
    """reference/seed003.csv (92 rows) and where it was found."""
    return read_published(REFERENCE, PUBLISHED_COLUMNS, PUBLISHED_ROWS, dtype={"section": str})


def select_parts(pairs: list[str] | None) -> list[str]:
    if not pairs:
        return list(PARTS)
    chosen = [p.strip().lower() for p in pairs if p.strip()]
    bad = [p for p in chosen if p not in PARTS]
    if bad:
        raise ReproduceError(f"--pairs: unknown part {bad[0]!r} (valid: {', '.join(PARTS)})")
    return [p for p in PARTS if p in chosen]


def cases_for(parts: list[str], points: int, size: str, duration: str) -> list[P.Case]:
    out: list[P.Case] = []
    if "fig2" in parts:
        out += P.fig2_cases(size)
    if "contours" in parts:
        out += P.contour_cases(points, duration)
    if "fig10" in parts:
        out += P.fig10_cases(size, True)
    return out


def load_case_runs(case: P.Case, folder: Path) -> pd.DataFrame:
    """One row per run of `case` with the plan's columns, status, seed, completion_time_s,
    goodput_mbps, duration_s, secondary_share and the network columns (metrics.network_columns)."""
    from mptlab.sweeps.store import Store

    runs = Store(folder).load(timeseries=False).runs.copy()
    shares, durations = [], []
    for r in runs.itertuples():
        share, dur = float("nan"), float("nan")
        path = folder / "summaries" / f"{r.run_key}.json"
        if r.status == "ok" and path.is_file():
            s = json.loads(path.read_text(encoding="utf-8"))
            dur = float(s.get("duration_s", float("nan")))
            if s.get("tunnels") and s["tunnels"][0].get("secondary_share") is not None:
                share = float(s["tunnels"][0]["secondary_share"])
        shares.append(share)
        durations.append(dur)
    runs["secondary_share"] = shares
    runs["duration_s"] = durations
    runs["case"] = case.name
    if "completion_time_s" not in runs.columns:
        runs["completion_time_s"] = float("nan")
    for col, default in (("e2e", "tcp"), ("server_cc", "cubic"), ("tunnel_cc", None), ("sched", "cpf")):
        if col not in runs.columns:
            runs[col] = _fixed_value(case, col, default)
    runs.loc[runs["e2e"] == "udp", "server_cc"] = "none"  # paced UDP: no server CC
    return network_columns(runs)


def _fixed_value(case: P.Case, column: str, default: str | None) -> Any:
    key = next((k for k, v in P.NAMES.items() if v == column), None)
    for k, v in case.fixed:
        if k == key:
            return v.strip('"')
    if column == "tunnel_cc" and any(k == "flows.dl.tunnel" for k, _ in case.fixed):
        return "ccid5"  # the base scenario's tunnel CC
    if column in ("tunnel_cc", "sched") and not any(k == "flows.dl.tunnel" for k, _ in case.fixed):
        return "none"  # a no-tunnel baseline
    return default


def run_case(case: P.Case, folder: Path, seeds: int, workers: int | None, dask: str | None, progress: bool) -> pd.DataFrame:
    from mptlab.sweeps.plan import PlanError, load_plan
    from mptlab.sweeps.progress import SweepProgress
    from mptlab.sweeps.runner import run_sweep
    from mptlab.sweeps.store import StoreError

    base = repo_file(BASE)
    text = P.render(case, str(base), seeds, rtt_split_available())
    try:
        plan = load_plan(text)
    except PlanError as e:
        raise ReproduceError(f"{case.name}: {e}") from None
    bar = SweepProgress(enabled=progress)
    try:
        run_sweep(plan, folder, workers=workers, dask=dask, on_start=bar.start, on_run=bar.update)
    except StoreError:
        raise ReproduceError(f"{folder} holds the runs of another version of {case.name}: remove it or choose another --out") from None
    finally:
        bar.close()
    return load_case_runs(case, folder)


def fig2_table(runs: pd.DataFrame) -> pd.DataFrame:
    t = runs[runs["case"].str.startswith("seed003-fig2") & ~runs["case"].str.endswith("baseline")]
    b = runs[runs["case"].str.startswith("seed003-fig2") & runs["case"].str.endswith("baseline")]
    if t.empty:
        return pd.DataFrame()
    rel = relative_dlct(t, b, group=("tunnel_cc",))
    rel["placement"] = rel["share"].map({v: k for k, v in P.FIG2_SHARES.items()})
    rel["config"] = [fig2_config(e, c) for e, c in zip(rel["e2e"], rel["tunnel_cc"])]
    return rel


def fig2_config(e2e: str, tunnel_cc: str) -> str:
    """Fig. 2's configuration label: "udp-ccid5", "bbr-bbr" (the figure's TCP bars, A23) or
    "bbr-ccid5" (the second TCP configuration)."""
    return f"udp-{tunnel_cc}" if e2e == "udp" else f"bbr-{tunnel_cc}"


def contour_table(runs: pd.DataFrame) -> pd.DataFrame:
    c = runs[runs["case"].str.startswith("seed003-contour-") & (runs["status"] == "ok")]
    if c.empty:
        return pd.DataFrame()
    c = c.assign(batch=c["case"].str.removeprefix("seed003-contour-"), tunnel_rtt_ms=c["e2e_ms"] * c["share"])
    g = c.groupby(["batch", "e2e_ms", "share"], as_index=False).agg(
        goodput_mbps=("goodput_mbps", "mean"), secondary_share=("secondary_share", "mean"), tunnel_rtt_ms=("tunnel_rtt_ms", "first"))
    return g


def fig10_table(runs: pd.DataFrame) -> pd.DataFrame:
    t = runs[runs["case"].isin(["seed003-fig10-dccp", "seed003-fig10-tcp"])]
    b = runs[runs["case"] == "seed003-fig10-baseline"]
    if t.empty or b.empty:
        return pd.DataFrame()
    rel = relative_dlct(t, b, group=("tunnel_cc", "sched"))
    labels = {(n.e2e_ms, round(n.share, 4), n.asym_ms, _buffer(n.queue)): k for k, n in scenarios().items()}
    rel["scenario"] = [labels.get((r.e2e_ms, r.share, r.asym_ms, r.buffer), "?") for r in rel.itertuples()]
    order = {k: i for i, k in enumerate(scenarios())}
    rel["order"] = rel["scenario"].map(order)
    return rel.sort_values(["server_cc", "tunnel_cc", "sched", "order"]).drop(columns="order").reset_index(drop=True)


def margin_table(runs: pd.DataFrame, fig10: pd.DataFrame) -> pd.DataFrame:
    """Sec. 5.2: per tunnel CCA (BBR, BBRv2; Cubic server, CPF), over the scenarios that have the
    150 ms run, the 5 ms run (Fig. 10's) and the baseline: mean DLCT with 150 ms padding, with
    5 ms, single-path, and the ratios of means `vs_single` = DLCT(150)/single-path and `vs_5ms` =
    DLCT(150)/DLCT(5)."""
    m = runs[runs["case"] == "seed003-margin150"]
    b = runs[runs["case"] == "seed003-fig10-baseline"]
    if m.empty or b.empty or fig10.empty:
        return pd.DataFrame()
    rel = relative_dlct(m, b, group=("tunnel_cc",))
    labels = {(n.e2e_ms, round(n.share, 4), n.asym_ms, _buffer(n.queue)): k for k, n in scenarios().items()}
    rel["scenario"] = [labels.get((r.e2e_ms, r.share, r.asym_ms, r.buffer), "?") for r in rel.itertuples()]
    five = fig10[(fig10["server_cc"] == "cubic") & (fig10["sched"] == "cpf")][["tunnel_cc", "scenario", "dlct_s"]]
    j = rel.merge(five.rename(columns={"dlct_s": "dlct5_s"}), on=["tunnel_cc", "scenario"], how="inner")
    rows = []
    for cc, g in j.groupby("tunnel_cc", sort=True):
        g = g.dropna(subset=["dlct_s", "dlct5_s", "baseline_s"])
        if g.empty:
            continue
        d150, d5, single = float(g["dlct_s"].mean()), float(g["dlct5_s"].mean()), float(g["baseline_s"].mean())
        rows.append({"server_cc": "cubic", "tunnel_cc": cc, "sched": "cpf", "scenarios": len(g), "dlct150_s": d150, "dlct5_s": d5,
                     "single_s": single, "vs_single": d150 / single, "vs_5ms": d150 / d5, "censored": int(g["censored"].sum())})
    return pd.DataFrame(rows)


def _buffer(queue: str) -> str:
    from mptlab.reproduce.seed003.metrics import queue_label

    return queue_label(queue)


def table3(fig10: pd.DataFrame) -> pd.DataFrame:
    """Mean relative DLCT over the 15 scenarios per (server, tunnel CCA), CPF and SRTT columns,
    sorted by CPF (the paper's Table 3 layout; its values are lost)."""
    if fig10.empty:
        return pd.DataFrame()
    p = fig10.pivot_table(index=["server_cc", "tunnel_cc"], columns="sched", values="relative", aggfunc="mean").reset_index()
    p.columns.name = None
    cnt = fig10.groupby(["server_cc", "tunnel_cc"])["scenario"].nunique().rename("scenarios").reset_index()
    p = p.merge(cnt, on=["server_cc", "tunnel_cc"])
    return p.sort_values("cpf" if "cpf" in p.columns else p.columns[2]).reset_index(drop=True)


def reproduce(
    runs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    pairs: list[str] | None = None,
    progress: bool = False,
    command: str | None = None,
    duration: str | None = None,
    points: int | None = None,
    size: str | None = None,
    sensitivity: bool = True,
) -> Reproduction:
    """Run the study and write its outputs under `out` (default reproductions/seed003).

    `points`: contour points per batch (default 40, the paper's 400); `runs`: seeds per
    configuration (default 1: the scenario has no random component, see the report);
    `size`: the file of the DLCT runs (default 300MB); `duration`: the contour runs' length
    (default 20s); `pairs`: parts to run (fig2, contours, fig10). `sensitivity` is accepted for
    the CLI's sake. Raises ReproduceError (exit 2) for bad input before running anything."""
    from mptlab import _core
    from mptlab.reproduce.seed003.claims import claims
    from mptlab.reproduce.seed003.figures import draw_figures
    from mptlab.reproduce.seed003.report import render

    started = time.perf_counter()
    n = runs if runs is not None else DEFAULT_RUNS
    if n < 1:
        raise ReproduceError(f"--runs: must be at least 1, got {n}")
    npts = points if points is not None else P.DEFAULT_POINTS
    if not 4 <= npts <= 400:
        raise ReproduceError(f"--points: must be 4 … 400, got {npts}")
    sz = size or P.DEFAULT_SIZE
    try:
        size_bytes(sz)
    except ValueError as e:
        raise ReproduceError(f"--size: {e}") from None
    dur = duration or P.DEFAULT_CONTOUR_DURATION
    parts = select_parts(pairs)
    published, ref_path = load_published()
    out = Path(out) if out is not None else DEFAULT_OUT
    refusal = tcp_tunnel_refusal()
    frames, skipped = [], []
    for case in cases_for(parts, npts, sz, dur):
        if case.tcp and refusal:
            skipped.append({"case": case.name, "reason": f"needs TCP tunnel paths; the simulator refuses them: {refusal}"})
            continue
        folder = out / f"sweep-{case.name.removeprefix('seed003-')}-{n}runs"
        frames.append(run_case(case, folder, n, workers, dask, progress))
    per_run = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if per_run.empty or not (per_run["status"] == "ok").any():
        raise ReproduceError(f"every run failed; see {out}", exit_code=1)
    f2, ct, f10 = fig2_table(per_run), contour_table(per_run), fig10_table(per_run)
    t3 = table3(f10)
    mg = margin_table(per_run, f10)
    verdicts = claims(f2, ct, f10, t3, published, margin=mg)
    skipped_frame = pd.DataFrame(skipped, columns=["case", "reason"])
    out.mkdir(parents=True, exist_ok=True)
    keep = [c for c in ("case", "point", "seed", "status", "error", "e2e", "server_cc", "tunnel_cc", "sched", "e2e_ms", "share",
                        "asym_ms", "buffer", "completion_time_s", "goodput_mbps", "secondary_share", "wall_s") if c in per_run.columns]
    files = [write_text(out / "runs.csv", per_run[keep].to_csv(index=False)),
             write_text(out / "fig2.csv", f2.to_csv(index=False)),
             write_text(out / "contours.csv", ct.to_csv(index=False)),
             write_text(out / "fig10.csv", f10.to_csv(index=False)),
             write_text(out / "table3.csv", t3.to_csv(index=False)),
             write_text(out / "margin.csv", mg.to_csv(index=False)),
             write_text(out / "claims.csv", verdicts.to_csv(index=False)),
             write_text(out / "skipped.csv", skipped_frame.to_csv(index=False))]
    figures = draw_figures(f2, ct, f10, out / "figures")
    files += figures
    failed = per_run[per_run["status"] != "ok"]
    ctx = {
        "command": command or f"mptlab reproduce seed003 --runs {n} --points {npts}",
        "runs": n, "points": npts, "size": sz, "duration": dur, "parts": parts, "ok": int((per_run["status"] == "ok").sum()),
        "total": len(per_run), "failed": [f"{r.case} point {r.point} seed {r.seed}: {r.error}" for r in failed.itertuples()],
        "skipped": skipped, "version": _core.version(), "reference": str(ref_path), "rtt_split": rtt_split_available(),
        "figures": [f.relative_to(out).as_posix() for f in figures if f.suffix == ".png"],
        "elapsed_s": time.perf_counter() - started, "workers": workers, "dask": dask,
    }
    files.append(write_text(out / "report.md", render(ctx, f2, ct, f10, t3, verdicts, mg)))
    return Reproduction(out=out, table=verdicts, runs=per_run, files=files, failed=len(failed), sweep=out, skipped=skipped_frame)
