"""Seed 001: how the simulated Table 3 compares with the published one, metric by metric.

- Ordering: Spearman's ρ between simulated and published values over the 12 pairs, and over
  the 4 MPTCP CCs (each the mean over its three path CCs), with permutation p-values; the
  pairs whose rank moves by at least `DISAGREE_RANKS` places; the paper's and the
  simulation's highest and lowest pair.
- Levels: simulated / published per cell, its median per metric, and how many cells are
  within ±`CLOSE` of the published value.
- Outliers: published cells above `OUTLIER` × their row's median (the paper's LIA/BBR and
  wVegas/Reno delays), and where the simulation puts those pairs.
- Whether the runs tell the pairs apart at all (`pair_effect_p`, seeds as blocks).
- The start of a run: early against late throughput (`trend`), and how often the per-run
  maxima fall at the start (`peak_times`).

Every number is computed from the tables and runs; nothing here knows a result in advance.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from mptlab.reproduce.common import permutation_p, spearman
from mptlab.reproduce.seed001.table import MPTCP_CCS, PAIRS, STATS, Stat, split_pair

#: A pair "disagrees" when its rank among the 12 moves by at least this many places.
DISAGREE_RANKS = 4
#: A cell is "close" when simulated is within this relative distance of published.
CLOSE = 0.25
#: A published cell is an outlier above this multiple of its row's median.
OUTLIER = 2.0
#: Verdict thresholds on ρ (and p) for the 12 pairs.
AGREE_RHO, AGREE_P = 0.5, 0.05
#: Above this within-seed permutation p-value the runs do not tell the pairs apart.
DIFFER_P = 0.05


def _pair(m: str, p: str) -> str:
    return f"{m}/{p}"


def _row(table: pd.DataFrame, metric: str, statistic: str) -> pd.DataFrame:
    part = table[(table["metric"] == metric) & (table["statistic"] == statistic)].copy()
    part["pair"] = [_pair(m, p) for m, p in zip(part["mptcp_cc"], part["path_cc"])]
    order = {_pair(*split_pair(x)): i for i, x in enumerate(PAIRS)}
    return part.sort_values("pair", key=lambda s: s.map(order)).reset_index(drop=True)


def ordering(table: pd.DataFrame, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per Table 3 statistic: ρ and p over the pairs and over the MPTCP CCs, the
    verdict, the disagreeing pairs and the extreme pairs of both tables; with the per-run
    records `runs` (mptcp_cc, path_cc, seed, the metric columns) also `pairs_differ_p`."""
    rows = []
    for s in STATS:
        part = _row(table, s.metric, s.statistic).dropna(subset=["simulated", "published"])
        sim, pub = part["simulated"].to_numpy(float), part["published"].to_numpy(float)
        rho, p = spearman(sim, pub), permutation_p(sim, pub)
        by_cc = part.groupby("mptcp_cc")[["simulated", "published"]].mean()
        by_cc = by_cc.reindex([c for c in MPTCP_CCS.values() if c in by_cc.index])
        rho_cc = spearman(by_cc["simulated"], by_cc["published"])
        p_cc = permutation_p(by_cc["simulated"], by_cc["published"])
        rank_sim = part["simulated"].rank(ascending=False, method="average")
        rank_pub = part["published"].rank(ascending=False, method="average")
        moved = part.assign(shift=rank_sim - rank_pub)
        moved = moved[moved["shift"].abs() >= DISAGREE_RANKS]
        rows.append({
            "metric": s.metric, "statistic": s.statistic, "label": s.label, "pairs": len(part),
            "rho_pairs": rho, "p_pairs": p, "rho_mptcp_cc": rho_cc, "p_mptcp_cc": p_cc,
            "verdict": verdict(rho, p),
            "pairs_differ_p": pair_effect_p(runs, s) if runs is not None else np.nan,
            "mptcp_cc_order_sim": _order(by_cc["simulated"]),
            "mptcp_cc_order_pub": _order(by_cc["published"]),
            "disagreeing": ", ".join(
                f"{r.pair} (rank {r.published_rank:g} → {r.simulated_rank:g})"
                for r in moved.assign(published_rank=rank_pub[moved.index],
                                      simulated_rank=rank_sim[moved.index]).itertuples()
            ),
            "pub_max": _extreme(part, "published", max), "sim_max": _extreme(part, "simulated", max),
            "pub_min": _extreme(part, "published", min), "sim_min": _extreme(part, "simulated", min),
        })
    return pd.DataFrame(rows)


def pair_effect_p(runs: pd.DataFrame, stat: Stat, rounds: int = 2000, seed: int = 1) -> float:
    """Do the runs tell the pairs apart at all? Every pair ran on the same seeds (the same
    capacity sequences and random losses), so seeds are blocks: the statistic is the variance
    of the pairs' means, and its null distribution comes from shuffling the pair labels
    within each seed (`rounds` fixed-seed permutations). Returns the share of shuffles at
    least as spread out as the data: small means the pairs really differ; large means the
    simulated order of the pairs is chance. Only seeds with a value for every pair count;
    NaN with fewer than two such seeds."""
    wide = runs.assign(_v=_stat_values(runs, stat)).pivot_table(
        index="seed", columns=["mptcp_cc", "path_cc"], values="_v", aggfunc="first")
    wide = wide.dropna()
    if len(wide) < 2 or wide.shape[1] < 2:
        return float("nan")
    v = wide.to_numpy(dtype=float)  # seeds x pairs
    observed = v.mean(axis=0).var()
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((rounds, *v.shape)), axis=2)
    shuffled = np.take_along_axis(np.broadcast_to(v, order.shape), order, axis=2)
    null = shuffled.mean(axis=1).var(axis=1)
    return float(np.mean(null >= observed * (1 - 1e-12)))


def _stat_values(runs: pd.DataFrame, stat: Stat) -> pd.Series:
    values = pd.to_numeric(runs[stat.column], errors="coerce")
    return values.clip(lower=0.0) if stat.clip_at_zero else values


def verdict(rho: float, p: float) -> str:
    """"agrees" (ρ ≥ 0.5 and p < 0.05), "reversed" (ρ ≤ −0.5 and p < 0.05), "weak" (the
    sign of ρ without significance), or "undefined" (a constant row)."""
    if np.isnan(rho):
        return "undefined"
    if p < AGREE_P and rho >= AGREE_RHO:
        return "agrees"
    if p < AGREE_P and rho <= -AGREE_RHO:
        return "reversed"
    return "weak, positive" if rho > 0 else "weak, negative" if rho < 0 else "none"


def levels(table: pd.DataFrame) -> pd.DataFrame:
    """One row per statistic: median simulated/published ratio, cells within ±CLOSE, the
    simulated and published ranges."""
    rows = []
    for s in STATS:
        part = _row(table, s.metric, s.statistic).dropna(subset=["simulated", "published"])
        ratio = part["simulated"] / part["published"].where(part["published"] != 0)
        close = ((part["simulated"] - part["published"]).abs() <= CLOSE * part["published"].abs()).sum()
        rows.append({
            "metric": s.metric, "statistic": s.statistic, "label": s.label, "unit": s.unit,
            "median_ratio": float(ratio.median()) if ratio.notna().any() else np.nan,
            "close": int(close), "cells": len(part),
            "sim_min": part["simulated"].min(), "sim_max": part["simulated"].max(),
            "pub_min": part["published"].min(), "pub_max": part["published"].max(),
        })
    return pd.DataFrame(rows)


def outliers(table: pd.DataFrame) -> pd.DataFrame:
    """Published cells above OUTLIER × their row's median, with the simulated value of that
    pair and its ratio to the simulated row's median."""
    rows = []
    for s in STATS:
        part = _row(table, s.metric, s.statistic).dropna(subset=["simulated", "published"])
        if part.empty:
            continue
        pub_med, sim_med = part["published"].median(), part["simulated"].median()
        for r in part[part["published"] > OUTLIER * pub_med].itertuples():
            rows.append({
                "label": s.label, "pair": r.pair, "published": r.published,
                "published_x_median": r.published / pub_med if pub_med else np.nan,
                "simulated": r.simulated,
                "simulated_x_median": r.simulated / sim_med if sim_med else np.nan,
            })
    return pd.DataFrame(rows, columns=["label", "pair", "published", "published_x_median",
                                       "simulated", "simulated_x_median"])


def _order(values: pd.Series) -> str:
    """Names from the highest value to the lowest: "BALIA > OLIA > LIA > wVegas"."""
    return " > ".join(str(i) for i in values.sort_values(ascending=False, kind="stable").index)


def _extreme(part: pd.DataFrame, column: str, fn: Callable[[pd.Series], float]) -> str:
    value = fn(part[column])
    return ", ".join(part.loc[np.isclose(part[column], value), "pair"])


#: Windows of the throughput trend: the run's first seconds against its last ones.
EARLY_S, LATE_FROM_S = 2.0, 5.0


def trend(goodput: pd.DataFrame) -> pd.DataFrame:
    """Mean goodput per pair in [0, EARLY_S) and in [LATE_FROM_S, end) of the runs, from the
    1 s samples (`goodput`: columns mptcp_cc, path_cc, seed, t_s, value). The paper's text
    says throughput shows "a tendency to improve over time" (§3.1.5)."""
    g = goodput.assign(window=np.where(goodput["t_s"] < EARLY_S, "early",
                                       np.where(goodput["t_s"] >= LATE_FROM_S, "late", "")))
    g = g[g["window"] != ""]
    per_run = g.groupby(["mptcp_cc", "path_cc", "seed", "window"])["value"].mean().unstack("window")
    return per_run.groupby(["mptcp_cc", "path_cc"]).mean().reset_index()


def peak_times(samples: pd.DataFrame) -> float:
    """The share of runs whose largest sample (of T_over(k) or ζ(k): columns seed, mptcp_cc,
    path_cc, t_s, value) comes before EARLY_S: how much the start of a run sets the per-run
    maxima of eq. (4) and (9). NaN without samples."""
    if samples.empty:
        return float("nan")
    keys = ["mptcp_cc", "path_cc", "seed"]
    at_max = samples[samples.groupby(keys)["value"].transform("max") == samples["value"]]
    first = at_max.groupby(keys)["t_s"].min()  # the first time a run reaches its maximum
    return float((first < EARLY_S).mean())

