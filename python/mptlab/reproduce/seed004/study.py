"""`mptlab reproduce seed004`: Guo et al. (2025), MPTCP over multi-hop 802.11 Wi-Fi and 5G,
P-MPTCP (5-state NewReno + loss-aware scheduler) against C-MPTCP (MinRTT + NewReno), against
reference/seed004.csv.

    from mptlab.reproduce.seed004 import reproduce
    res = reproduce(out="reproductions/seed004")          # 7 cases x 2 variants, 1 seed
    res = reproduce(runs=10, pairs=["square-corner-25", "square-corner-25-5g"])
    res = reproduce(sensitivity=False)                    # the default TCP profile only

Steps: for each case (plans.CASES, or those named by `pairs`) and seed 1..runs, draw the
deployment (deploy.py; the seed picks the topology, redrawn while disconnected) and its routes
(routing.py), write one scenario per variant and TCP profile (scenario.py) under
OUT/scenarios/ and the topology under OUT/topologies/; run each through the sweep machinery
into OUT/sweep-<case>-<p|c>-s<seed>[-paper-rto]/ (resumable; local pool or `--dask`); read
every run's summary (metrics.py); average per (profile, case, variant); judge the findings
(claims.py); draw the figures (figures.py); write OUT/runs.csv, cases.csv, comparison.csv,
claims.csv, latency.csv, delivery.csv, topologies.csv, models.csv, figures/ and report.md
(report.py).

Two sets of runs (TCP profiles, scenario.PROFILES; notes C5): "default", every variant with
the simulator's TCP RTO, which gives the main verdicts (claims.csv, comparison.csv, figures);
and, with `sensitivity` (the default), "paper-rto", every case and variant again with the
paper's 20 s <= RTO <= 50 s (Sec. VII-A) for both variants, judged by the same claim functions
into claims_paper_rto.csv and its own section of report.md. The default set runs first, so an
interrupted reproduction has it whole.

The simulator must accept the `[wifi]` scenario block: on one that refuses it, nothing runs
and ReproduceError (exit 2) carries the simulator's message.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mptlab.atomic import write_text
from mptlab.reproduce.common import ReproduceError, read_published
from mptlab.reproduce.seed004 import plans as P
from mptlab.reproduce.seed004.deploy import DEFAULT_RANGE_M, Deployment, deploy
from mptlab.reproduce.seed004.metrics import delivery_over_time, early_delivery, latency_quantiles, run_metrics, share_faster
from mptlab.reproduce.seed004.routing import Routes, build
from mptlab.reproduce.seed004.scenario import DEFAULT_DURATION, DEFAULT_PROFILE, render, wifi_refusal

STUDY = "seed004"
REFERENCE = "seed004.csv"
PUBLISHED_ROWS = 121
PUBLISHED_COLUMNS = ("deployment", "nodes", "has_5g", "variant", "metric", "value", "unit", "note")
#: The sensitivity set's profile (scenario.PROFILES) and its claims file.
PAPER_RTO = "paper-rto"
PAPER_RTO_CLAIMS = "claims_paper_rto.csv"
DEFAULT_RUNS = 1
DEFAULT_OUT = Path("reproductions") / STUDY
#: Per-run columns averaged per (case, variant).
MEAN_COLUMNS = ("delivered_packets", "expected_packets", "e2e_delivery_pct", "completion_s", "throughput_kbps", "data_segments",
                "ack_segments", "tcp_segments", "hop_transmissions", "mac_attempts", "mac_retries", "mac_drops", "hop_delivery_pct",
                "early_delivery_pct", "latency_p50_ms", "mean_hops", "paths_per_node", "max_rank")


@dataclasses.dataclass
class Reproduction:
    """What `reproduce` produced (`table`: comparison.csv, one row per published row;
    `claims`: claims.csv, one row per finding)."""

    out: Path
    table: pd.DataFrame
    claims: pd.DataFrame
    runs: pd.DataFrame
    files: list[Path]
    failed: int
    sweep: Path
    #: claims_paper_rto.csv: the findings on the "paper-rto" set (None without `sensitivity`).
    claims_paper_rto: pd.DataFrame | None = None


def load_published() -> tuple[pd.DataFrame, Path]:
    """reference/seed004.csv (121 rows) and where it was found."""
    return read_published(REFERENCE, PUBLISHED_COLUMNS, PUBLISHED_ROWS, dtype={"nodes": str, "has_5g": str})


def topology_row(case: P.Case, dep: Deployment, routes: Routes) -> dict[str, Any]:
    hops = routes.hops()
    return {"case": case.name, "seed": dep.seed, "draws": dep.draws, "range_m": dep.range_m,
            "mean_hops": float(np.mean(hops)), "max_rank": max(routes.rank.values()),
            "paths_per_node": len(hops) / dep.nodes, "g5": dep.g5 or ""}


def topology_json(dep: Deployment, routes: Routes) -> str:
    return json.dumps({"names": list(dep.names), "xy": [[round(float(x), 4), round(float(y), 4)] for x, y in dep.xy],
                       "range_m": dep.range_m, "g5": dep.g5, "rank": routes.rank,
                       "paths": {k: [list(p) for p in v] for k, v in routes.paths.items()}}, indent=1) + "\n"


def run_plan(plan_text: str, folder: Path, workers: int | None, dask: str | None, progress: bool) -> pd.DataFrame:
    """Run one plan into `folder` (resumable) and return its `runs` rows (run_key, status, error,
    wall_s: the columns read here)."""
    from mptlab.sweeps.plan import PlanError, load_plan
    from mptlab.sweeps.progress import SweepProgress
    from mptlab.sweeps.runner import run_sweep
    from mptlab.sweeps.store import Store, StoreError

    try:
        plan = load_plan(plan_text)
    except PlanError as e:
        raise ReproduceError(f"{folder.name}: {e}") from None
    bar = SweepProgress(enabled=progress)
    try:
        run_sweep(plan, folder, workers=workers, dask=dask, on_start=bar.start, on_run=bar.update)
    except StoreError:
        raise ReproduceError(f"{folder} holds the runs of another version of this case: remove it or choose another --out") from None
    finally:
        bar.close()
    return Store(folder).query("SELECT run_key, status, error, wall_s FROM runs ORDER BY point, seed")


def read_run(folder: Path, run_key: str, nodes: int) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]:
    """(metrics, latency quantiles, delivery curve) of one finished run of a sweep folder."""
    summary = json.loads((folder / "summaries" / f"{run_key}.json").read_text(encoding="utf-8"))
    ts_path = folder / "timeseries" / f"{run_key}.parquet"
    ts = pd.read_parquet(ts_path) if ts_path.is_file() else None
    lat = latency_quantiles(summary.get("data_owd_cdf_ms"))
    m = run_metrics(summary, nodes, lat)
    curve = delivery_over_time(ts)
    m["early_delivery_pct"] = early_delivery(curve)
    return m, lat, curve


def case_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Means over the ok runs per (profile, case, variant), with the counts of runs, ok runs and
    censored. Runs without a `profile` column count as profile "default"."""
    if runs.empty:
        return pd.DataFrame(columns=["profile", "case", "variant", "runs", "ok", "censored", *MEAN_COLUMNS])
    if "profile" not in runs.columns:
        runs = runs.assign(profile=DEFAULT_PROFILE)
    rows = []
    for (profile, case, variant), g in runs.groupby(["profile", "case", "variant"], sort=False):
        o = g[g["status"] == "ok"]
        row: dict[str, Any] = {"profile": profile, "case": case, "variant": variant, "runs": len(g), "ok": len(o),
                               "censored": int(o["censored"].sum()) if "censored" in o else 0}
        for col in MEAN_COLUMNS:
            row[col] = float(o[col].mean()) if col in o.columns and o[col].notna().any() else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def of_profile(frame: pd.DataFrame, profile: str) -> pd.DataFrame:
    """The rows of `frame` of one TCP profile, without the `profile` column (a frame without
    one is all "default")."""
    if "profile" not in frame.columns:
        return frame if profile == DEFAULT_PROFILE else frame.iloc[0:0]
    return frame[frame["profile"] == profile].drop(columns="profile").reset_index(drop=True)


def share_table(latency: pd.DataFrame) -> pd.DataFrame:
    """Per case: the mean over seeds of the percent of packets P-MPTCP delivers faster."""
    rows = []
    if latency.empty:
        return pd.DataFrame(columns=["case", "seeds", "share_faster_pct"])
    for case, g in latency.groupby("case", sort=False):
        shares = []
        for _, s in g.groupby("seed"):
            p, c = s[s["variant"] == "P-MPTCP"], s[s["variant"] == "C-MPTCP"]
            v = share_faster(p[["q", "latency_ms"]], c[["q", "latency_ms"]])
            if np.isfinite(v):
                shares.append(v)
        rows.append({"case": case, "seeds": len(shares), "share_faster_pct": float(np.mean(shares)) if shares else float("nan")})
    return pd.DataFrame(rows)


def model_table(topologies: pd.DataFrame) -> pd.DataFrame:
    """The analytic models beside the runs: the idle-channel RTT of a 1-packet round over each
    case's mean path length (mptlab.models.rtt, Sec. III generalised), and Bianchi's saturation
    throughput and collision probability for 5, 10 and 20 contenders on the 54 Mbit/s PHY
    (mptlab.models.bianchi), an upper bound on what one collision domain carries."""
    from mptlab.models import bianchi, rtt

    rows = []
    for r in topologies.groupby("case", sort=False)["mean_hops"].mean().items():
        case, hops = r
        h = max(1, int(round(hops)))
        rows.append({"model": "rtt_idle", "case": case, "parameter": f"h = {h} hops, x = 1", "value": rtt.rtt_idle(1, h) / 1000.0,
                     "unit": "ms"})
    for n in (5, 10, 20):
        res = bianchi.throughput(n)
        rows.append({"model": "bianchi", "case": "", "parameter": f"n = {n}", "value": float(res.throughput_bps) / 1e6,
                     "unit": "Mbit/s"})
        rows.append({"model": "bianchi", "case": "", "parameter": f"n = {n}", "value": float(res.p), "unit": "p"})
    return pd.DataFrame(rows)


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
    range_m: float = DEFAULT_RANGE_M,
) -> Reproduction:
    """Run the study and write its outputs under `out` (default reproductions/seed004).

    `runs`: seeds (topologies) per case, default 1 (the paper states none, F6); `pairs`: case
    names (plans.CASES, e.g. "square-corner-25-5g"); `duration`: the run length (default 200s);
    `range_m`: the radio range (default 100 m); `sensitivity`: also run the "paper-rto" set
    (every case and variant with 20 s <= RTO <= 50 s; it doubles the runs).
    Raises ReproduceError (exit 2) for bad input or a simulator without `[wifi]`, before running
    anything; exit 1 when every run failed."""
    from mptlab import _core
    from mptlab.reproduce.seed004.claims import claims, comparison
    from mptlab.reproduce.seed004.figures import draw_figures
    from mptlab.reproduce.seed004.report import render as render_report

    started = time.perf_counter()
    n = runs if runs is not None else DEFAULT_RUNS
    if n < 1:
        raise ReproduceError(f"--runs: must be at least 1, got {n}")
    try:
        cases = P.select(pairs)
    except ValueError as e:
        raise ReproduceError(f"--pairs: {e}") from None
    dur = duration or DEFAULT_DURATION
    published, ref_path = load_published()
    refusal = wifi_refusal()
    if refusal:
        raise ReproduceError(f"this simulator cannot run seed004's scenarios (the [wifi] block): {refusal}")
    out = Path(out) if out is not None else DEFAULT_OUT
    for sub in ("topologies", "scenarios"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    profiles = P.PROFILE_NAMES if sensitivity else (DEFAULT_PROFILE,)
    frames, lat_frames, curve_frames, topo_rows = [], [], [], []
    drawn: list[tuple[P.Case, int, Deployment, Routes, dict[str, Any]]] = []
    for case in cases:
        for seed in range(1, n + 1):
            try:
                dep = deploy(case.deployment, case.nodes, seed, case.has_5g, range_m)
                routes = build(dep)
            except ValueError as e:
                raise ReproduceError(f"{case.name} seed {seed}: {e}") from None
            topo = topology_row(case, dep, routes)
            topo_rows.append(topo)
            write_text(out / "topologies" / f"{case.name}-s{seed}.json", topology_json(dep, routes))
            drawn.append((case, seed, dep, routes, topo))
    for profile in profiles:
        for case, seed, dep, routes, topo in drawn:
            for variant in P.VARIANT_NAMES:
                name = P.run_name(case, variant, seed, profile)
                scen = out / "scenarios" / f"{name}.toml"
                write_text(scen, render(dep, routes, variant, seed, dur, profile=profile))
                folder = out / f"sweep-{name}"
                rows = run_plan(P.render_plan(case, variant, seed, str(scen.resolve()), profile), folder, workers, dask, progress)
                for r in rows.to_dict("records"):
                    rec: dict[str, Any] = {"profile": profile, "case": case.name, "deployment": case.deployment, "nodes": case.nodes,
                                           "has_5g": case.has_5g, "variant": variant, "seed": seed, "status": r.get("status"),
                                           "error": r.get("error"), "wall_s": r.get("wall_s"),
                                           **{k: topo[k] for k in ("mean_hops", "max_rank", "paths_per_node", "draws")}}
                    if r.get("status") == "ok":
                        m, lat, curve = read_run(folder, str(r["run_key"]), case.nodes)
                        rec.update(m)
                        lat_frames.append(lat.assign(profile=profile, case=case.name, variant=variant, seed=seed))
                        if not curve.empty:
                            curve_frames.append(curve.assign(profile=profile, case=case.name, variant=variant, seed=seed))
                    frames.append(rec)
    per_run = pd.DataFrame(frames)
    if per_run.empty or not (per_run["status"] == "ok").any():
        raise ReproduceError(f"every run failed; see {out}", exit_code=1)
    latency_all = pd.concat(lat_frames, ignore_index=True) if lat_frames else \
        pd.DataFrame(columns=["q", "latency_ms", "exact", "profile", "case", "variant", "seed"])
    curves_all = pd.concat(curve_frames, ignore_index=True) if curve_frames else \
        pd.DataFrame(columns=["t_s", "delivery_pct", "profile", "case", "variant", "seed"])
    topologies = pd.DataFrame(topo_rows)
    summ_all = case_summary(per_run)
    # the main verdicts, comparison and figures: the default set
    summ, latency, curves = (of_profile(f, DEFAULT_PROFILE) for f in (summ_all, latency_all, curves_all))
    shares = share_table(latency)
    table = comparison(summ, shares, published)
    verdicts = claims(summ, shares)
    models = model_table(topologies)
    sens: dict[str, Any] | None = None
    if PAPER_RTO in profiles:
        summ_rto = of_profile(summ_all, PAPER_RTO)
        shares_rto = share_table(of_profile(latency_all, PAPER_RTO))
        sens = {"profile": PAPER_RTO, "summ": summ_rto, "shares": shares_rto, "claims": claims(summ_rto, shares_rto)}
    files = [write_text(out / "runs.csv", per_run.to_csv(index=False)),
             write_text(out / "cases.csv", summ_all.to_csv(index=False)),
             write_text(out / "comparison.csv", table.to_csv(index=False)),
             write_text(out / "claims.csv", verdicts.to_csv(index=False)),
             write_text(out / "latency.csv", latency_all.to_csv(index=False)),
             write_text(out / "delivery.csv", curves_all.to_csv(index=False)),
             write_text(out / "topologies.csv", topologies.to_csv(index=False)),
             write_text(out / "models.csv", models.to_csv(index=False))]
    if sens is not None:
        files.append(write_text(out / PAPER_RTO_CLAIMS, sens["claims"].to_csv(index=False)))
    else:
        (out / PAPER_RTO_CLAIMS).unlink(missing_ok=True)  # not a stale verdict of an earlier run beside this report
    figures = draw_figures(summ, published, latency, curves, out, out / "figures")
    files += figures
    failed = per_run[per_run["status"] != "ok"]
    ctx = {
        "command": command or f"mptlab reproduce seed004 --runs {n}" + ("" if sensitivity else " --no-sensitivity"),
        "profiles": list(profiles),
        "runs": n, "duration": dur, "range_m": range_m, "cases": [c.name for c in cases],
        "ok": int((per_run["status"] == "ok").sum()), "total": len(per_run),
        "failed": [f"{r.case} {r.variant} seed {r.seed}" + ("" if r.profile == DEFAULT_PROFILE else f" ({r.profile})") + f": {r.error}"
                   for r in failed.itertuples()],
        "version": _core.version(), "reference": str(ref_path), "elapsed_s": time.perf_counter() - started,
        "workers": workers, "dask": dask, "figures": [f.relative_to(out).as_posix() for f in figures if f.suffix == ".png"],
        "has_curves": not curves.empty,
        "published": published,
    }
    files.append(write_text(out / "report.md", render_report(ctx, summ, shares, table, verdicts, topologies, models, sens)))
    return Reproduction(out=out, table=table, claims=verdicts, runs=per_run, files=files, failed=len(failed), sweep=out,
                        claims_paper_rto=sens["claims"] if sens is not None else None)
