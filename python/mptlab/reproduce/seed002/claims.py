"""Seed 002: which published numbers can be compared at all, how close the comparable ones
are, and a verdict on every claim of the paper's abstract and conclusion and every scheduler
ordering stated in its §V.

Source: Das et al., ICC Workshops 2025 (MERL TR2025-083), abstract, §V and §VI
(`../shared/seeds/002_44a1e3f935d85694.txt`); published numbers `reference/seed002.csv`.

**Comparability** (`comparability`, one verdict per published row). A *result* row (a number
the paper measured, 55 of the 92 rows; the other 37 describe the set-up) is

- ``same``: our number has the paper's unit and the definition the paper's simulator (ns-3
  FlowMonitor, its ref. [14]) gives the quantity: the mean one-way delay of data packets and
  quantities derived from it (IQR, Q3, "x % better");
- ``inferred``: same unit, but the paper does not define the quantity and ours is a reading
  of it stated in metrics: *total delay time* (completion time beyond the capacity
  bound: read off the published magnitudes), *mean jitter* (ours is RFC 3550's smoothed
  jitter; FlowMonitor's jitterSum/(rx − 1) is the mean |ΔD| of consecutive packets, which the
  engine's summary does not hold), the *bytes received in 20 s* of Fig. 10 (the network of
  the four panels is not given; ours is the §V-B-5 pair with its fast path varied);
- ``NOT COMPARABLE``, with the reason: *average throughput* (0.08-0.13 "Mbps" on 5-250
  Mbit/s paths is no transfer rate under any unit; its definition is not stated, so no number
  of ours has it) and everything computed from it; *inter-packet arrival time* (the published
  ~0.05 s is 10-100x the largest mean gap a 25 Mb transfer can have on these paths: with the
  published throughput it describes ~0.1 Mbit/s flows, i.e. other traffic or an unstated
  averaging; the quantity itself is standard, the experiment behind it is not the stated
  one); *flow interruptions* (totals over an
  unstated number and length of runs with an unstated definition of an interruption).

Closeness of a comparable row: ratio = simulated / published; a row is within ±x % when
|simulated − published| ≤ x % of |published|. For the "x % better" rows that is a relative
difference of two percentages (a BLP advantage of 3 % against 2.7 % is within ±25 %).

**Claims** (`claims`): one row per claim, verdict HOLDS / FAILS / NOT COMPARABLE and the
numbers. Rules, applied to the means of panel (a) (BLEST and BLP at Δλ = 0) unless the claim
names Δλ: "X is best" holds when X is strictly better than each other scheduler; "A < B" when
A's mean is strictly below B's; "A = B" (the paper prints the same value for both) when they
differ by at most EQUAL_TOL of the larger (an "A < B" that holds by less than that is flagged
as a near-tie in its numbers, not overturned); a Δλ claim ("Δλ reduces BLP's IQR") compares Δλ = 0
with the best Δλ > 0. A claim about throughput is judged on our transfer rates (bytes × 8 /
completion time): the paper's unit is not comparable, but an ordering of rates is. A claim
whose quantity has no measurable definition (efficiency, reliability, the design itself) is
NOT COMPARABLE with that reason; so is one whose runs are missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from mptlab.reproduce.common import BANDS_PCT, FAILS, HOLDS, NOT_COMPARABLE, within

#: "A = B" holds within this relative difference.
EQUAL_TOL = 0.01
BANDS = BANDS_PCT
SCHEDULERS = ("RoundRobin", "MinRTT", "BLEST", "ECF", "Peekaboo", "BLP")
NC = NOT_COMPARABLE

#: Metrics of reference/seed002.csv that are results (the rest describe the set-up).
RESULT_METRICS = (
    "avg_data_packet_delay", "avg_inter_packet_arrival_time", "avg_mean_jitter", "avg_throughput",
    "total_delay_time", "extra_data_delivered_vs_second_best", "tcp_flow_interruptions",
    "mpquic_flow_interruptions",
)
_WHY = {
    "avg_data_packet_delay": ("same", "mean one-way delay of received data packets, s (FlowMonitor delaySum/rxPackets)"),
    "avg_inter_packet_arrival_time": (NC, "the published 0.046-0.049 s are 10-100x any mean gap a 25 Mb transfer "
                                      "can have on these paths (1500 B packets over >= 10 Mbit/s of paths arrive "
                                      "<= 1.2 ms apart); with the published throughput they describe flows of one "
                                      "500-800 B packet per ~50 ms (~0.1 Mbit/s): not the stated traffic, or an "
                                      "unstated averaging"),
    "avg_mean_jitter": ("inferred", "RFC 3550 smoothed jitter, s; the paper does not define it and "
                        "FlowMonitor's mean |ΔD| is not in the summary"),
    "total_delay_time": ("inferred", "completion time beyond file bits / capacity, ms: a reading of the "
                         "published magnitudes (they cannot be completion times); the paper gives no definition"),
    "extra_data_delivered_vs_second_best": ("inferred", "bytes received in 20 s, %; Fig. 10's network is not "
                                            "given (ours: §V-B-5 pair, fast path varied)"),
    "avg_throughput": (NC, "the paper's 0.08-0.13 'Mbps' on 5-250 Mbit/s paths is no transfer rate under any "
                       "unit and its definition is not given; our transfer rate is 1-3 orders of magnitude "
                       "larger by construction, not by disagreement"),
    "tcp_flow_interruptions": (NC, "a total over an unstated number and length of runs, with no definition of "
                               "an interruption; only the TCP/MPQUIC ratio is compared (claims)"),
    "mpquic_flow_interruptions": (NC, "as tcp_flow_interruptions"),
}


def comparability(metric: str) -> tuple[str, str]:
    """("config" | "same" | "inferred" | "NOT COMPARABLE", reason) for a published metric."""
    if metric not in RESULT_METRICS:
        return "config", "describes the set-up"
    return _WHY[metric]


def agreement(table: pd.DataFrame) -> pd.DataFrame:
    """comparison.csv's rows with `kind` (comparability), `reason`, `ratio` and within_10/25/50
    (1/0, empty for rows that are not compared)."""
    out = table.copy()
    kinds = [comparability(m) for m in out["metric"]]
    out["kind"] = [k for k, _ in kinds]
    out["reason"] = [r for _, r in kinds]
    pub = pd.to_numeric(out["published"], errors="coerce")
    sim = pd.to_numeric(out["simulated"], errors="coerce")
    compared = out["kind"].isin(["same", "inferred"]) & pub.notna() & sim.notna() & (pub != 0)
    out["ratio"] = np.where(compared, sim / pub.where(pub != 0), np.nan)
    for b in BANDS:
        out[f"within_{b}"] = np.where(compared, within(sim, pub, b).astype(float), np.nan)
    return out


def band_counts(agreed: pd.DataFrame) -> pd.DataFrame:
    """Counts per comparability class: result rows, compared rows, within ±10/25/50 %."""
    res = agreed[agreed["kind"] != "config"]
    rows = []
    for kind in ("same", "inferred", NC, "all results"):
        part = res if kind == "all results" else res[res["kind"] == kind]
        compared = part[part["ratio"].notna()]
        row: dict[str, Any] = {"kind": kind, "result_rows": len(part), "compared": len(compared)}
        for b in BANDS:
            row[f"within_{b}"] = int(compared[f"within_{b}"].sum()) if len(compared) else 0
        rows.append(row)
    return pd.DataFrame(rows)


# --- verdicts on plain numbers (tested on synthetic inputs) ---------------------------------------

def _ok(*v: float | None) -> bool:
    return all(x is not None and not (isinstance(x, float) and np.isnan(x)) for x in v)


def best(values: dict[str, float], who: str, lower_better: bool) -> str:
    """HOLDS when `who` is strictly better than every other entry of `values`."""
    if who not in values or len(values) < 2 or not _ok(*values.values()):
        return NC
    mine = values[who]
    others = [v for k, v in values.items() if k != who]
    return HOLDS if all((mine < v) if lower_better else (mine > v) for v in others) else FAILS


def less(a: float | None, b: float | None) -> str:
    """HOLDS when a < b (strictly)."""
    if not _ok(a, b):
        return NC
    return HOLDS if a < b else FAILS  # type: ignore[operator]


def equal(a: float | None, b: float | None, tol: float = EQUAL_TOL) -> str:
    if not _ok(a, b):
        return NC
    scale = max(abs(a), abs(b))  # type: ignore[arg-type]
    return HOLDS if scale == 0 or abs(a - b) <= tol * scale else FAILS  # type: ignore[operator]


def all_of(verdicts: list[str]) -> str:
    """HOLDS when every part holds, FAILS when one fails, else NOT COMPARABLE."""
    if not verdicts or (NC in verdicts and FAILS not in verdicts):
        return NC
    return FAILS if FAILS in verdicts else HOLDS


# --- reading the statistics -----------------------------------------------------------------------

def panel(stats: pd.DataFrame, case: str, group: str, metric: str, stat: str = "mean") -> dict[str, float]:
    """Scheduler -> statistic in panel (a) (BLEST and BLP at Δλ = 0)."""
    s = stats[(stats["case"] == case) & (stats["group"] == group) & (stats["metric"] == metric)]
    out = {}
    for sched in SCHEDULERS:
        p = s[s["scheduler"] == sched]
        if sched in ("BLEST", "BLP"):
            p = p[np.isclose(p["dlambda"].astype(float), 0.0)]
        if not p.empty:
            out[sched] = float(p[stat].iloc[0])
    return out


def by_dlambda(stats: pd.DataFrame, case: str, metric: str, stat: str, sched: str = "BLP") -> dict[float, float]:
    s = stats[(stats["case"] == case) & (stats["group"] == "all") & (stats["metric"] == metric)
              & (stats["scheduler"] == sched)]
    return {float(d): float(v) for d, v in zip(s["dlambda"], s[stat]) if d is not None and not pd.isna(d)}


def _f(v: float | None, unit: str = "") -> str:
    if not _ok(v):
        return "–"
    v = float(v)  # type: ignore[arg-type]
    s = f"{v:.5g}" if abs(v) < 1000 else f"{v:.1f}"
    return s + (f" {unit}" if unit else "")


def _show(values: dict[str, float], unit: str = "") -> str:
    return ", ".join(f"{k} {_f(v, unit)}" for k, v in values.items()) or "no runs"


# --- the claims -------------------------------------------------------------------------------------

Claim = tuple[str, str, str, Callable[["_Ctx"], tuple[str, str]]]


class _Ctx:
    def __init__(self, stats: pd.DataFrame, ok: pd.DataFrame) -> None:
        self.stats, self.ok = stats, ok

    def p(self, case: str, metric: str, group: str = "all", stat: str = "mean") -> dict[str, float]:
        return panel(self.stats, case, group, metric, stat)


def _best(case: str, metric: str, who: str, lower: bool, unit: str, group: str = "all",
          stat: str = "mean") -> Callable[[_Ctx], tuple[str, str]]:
    def f(c: _Ctx) -> tuple[str, str]:
        v = c.p(case, metric, group, stat)
        return best(v, who, lower), _show(v, unit)
    return f


def _less(case: str, metric: str, a: str, b: str, unit: str, group: str = "all",
          stat: str = "mean") -> Callable[[_Ctx], tuple[str, str]]:
    def f(c: _Ctx) -> tuple[str, str]:
        v = c.p(case, metric, group, stat)
        x, y = v.get(a), v.get(b)
        tie = " (within 1 %: a near-tie)" if _ok(x, y) and equal(x, y) == HOLDS and x != y else ""
        return less(x, y), f"{a} {_f(x, unit)}, {b} {_f(y, unit)}{tie}"
    return f


def _equal(case: str, metric: str, a: str, b: str, unit: str, group: str = "all") -> Callable[[_Ctx], tuple[str, str]]:
    def f(c: _Ctx) -> tuple[str, str]:
        v = c.p(case, metric, group)
        return equal(v.get(a), v.get(b)), f"{a} {_f(v.get(a), unit)}, {b} {_f(v.get(b), unit)}"
    return f


def _pair_best(case: str, metric: str, pair: tuple[str, str], lower: bool, unit: str,
               exclude: tuple[str, ...] = ()) -> Callable[[_Ctx], tuple[str, str]]:
    """Both of `pair` better than every scheduler outside pair + exclude."""
    def f(c: _Ctx) -> tuple[str, str]:
        v = c.p(case, metric)
        rest = [k for k in v if k not in pair and k not in exclude]
        if any(k not in v for k in pair) or not rest:
            return NC, _show(v, unit)
        parts = [less(v[a], v[r]) if lower else less(v[r], v[a]) for a in pair for r in rest]
        return all_of(parts), _show(v, unit)
    return f


def _dl_iqr(case: str, metric: str, unit: str, stat: str = "iqr", lower: bool = True,
            dl: float | None = None) -> Callable[[_Ctx], tuple[str, str]]:
    """BLP's `stat` at the best Δλ > 0 (or at `dl`) is better than at Δλ = 0."""
    def f(c: _Ctx) -> tuple[str, str]:
        v = by_dlambda(c.stats, case, metric, stat)
        if 0.0 not in v or len(v) < 2:
            return NC, "no Δλ runs"
        pos = {k: x for k, x in v.items() if k > 0}
        k = dl if dl is not None else (min(pos, key=pos.get) if lower else max(pos, key=pos.get))
        if k not in v:
            return NC, f"no Δλ = {k:g} runs"
        verdict = less(v[k], v[0.0]) if lower else less(v[0.0], v[k])
        return verdict, f"BLP {stat} Δλ=0 {_f(v[0.0], unit)}, Δλ={k:g} {_f(v[k], unit)}"
    return f


def _dl_flat(case: str, metric: str, sched: str, unit: str) -> Callable[[_Ctx], tuple[str, str]]:
    """`sched`'s mean is the same (EQUAL_TOL) under every Δλ."""
    def f(c: _Ctx) -> tuple[str, str]:
        v = by_dlambda(c.stats, case, metric, "mean", sched)
        if len(v) < 2:
            return NC, "no Δλ runs"
        lo, hi = min(v.values()), max(v.values())
        return equal(lo, hi), f"{sched} mean over Δλ {_f(lo, unit)}–{_f(hi, unit)}"
    return f


def _dl_helps(case: str, metric: str, lower: bool, unit: str) -> Callable[[_Ctx], tuple[str, str]]:
    """Some Δλ > 0 gives BLP a better mean than Δλ = 0."""
    return _dl_iqr(case, metric, unit, stat="mean", lower=lower)


def _bytes_best(rate: str) -> Callable[[_Ctx], tuple[str, str]]:
    def f(c: _Ctx) -> tuple[str, str]:
        v = c.p("bytes", "bytes_delivered", rate)
        mb = {k: x / 1e6 for k, x in v.items()}
        return best(v, "BLP", False), _show(mb, "MB")
    return f


def _all_best(parts: list[tuple[str, str, str, bool, str]]) -> Callable[[_Ctx], tuple[str, str]]:
    """BLP best in every (case, group, metric, lower, label)."""
    def f(c: _Ctx) -> tuple[str, str]:
        verdicts, shown = [], []
        for case, group, metric, lower, label in parts:
            v = c.p(case, metric, group)
            verdicts.append(best(v, "BLP", lower))
            if v:
                k = (min if lower else max)(v, key=v.get)
                shown.append(f"{label}: {verdicts[-1]} (best {k})")
        return all_of(verdicts), "; ".join(shown) or "no runs"
    return f


def _tcp_vs_mpquic(c: _Ctx) -> tuple[str, str]:
    x = c.ok[c.ok["case"] == "cross"]
    if x.empty or "interruptions_tcp" not in x:
        return NC, "cross case not run"
    t, m = float(x["interruptions_tcp"].sum()), float(x["interruptions_mp"].sum())
    ratio = t / m if m else float("inf")
    return less(m, t), f"TCP {t:.0f}, MPQUIC {m:.0f} interruptions (ratio {ratio:.3g}; paper 124)"


def _nc(reason: str) -> Callable[[_Ctx], tuple[str, str]]:
    return lambda c: (NC, reason)


def _stability(c: _Ctx) -> tuple[str, str]:
    parts, shown = [], []
    for metric, label in (("ipat_s", "inter-arrival"), ("throughput_mbps", "throughput")):
        iqr = c.p("heterogeneous", metric, stat="iqr")
        dl = by_dlambda(c.stats, "heterogeneous", metric, "iqr")
        pos = [v for k, v in dl.items() if k > 0]
        if "BLP" not in iqr or not pos:
            parts.append(NC)
            continue
        iqr = dict(iqr)
        iqr["BLP"] = min(pos)
        parts.append(best(iqr, "BLP", True))
        shown.append(f"{label} IQR: BLP (best Δλ) {_f(iqr['BLP'])}, others {_f(min(v for k, v in iqr.items() if k != 'BLP'))}–"
                     f"{_f(max(v for k, v in iqr.items() if k != 'BLP'))}")
    return all_of(parts), "; ".join(shown) or "no runs"


_IPAT = "our inter-arrival times compared (the paper's values are not comparable)"
_THROUGHPUT = "transfer rates compared (the paper's unit is not comparable)"
_HEADLINE = [("homogeneous", "all", "throughput_mbps", False, "homogeneous throughput"),
             ("heterogeneous", "all", "throughput_mbps", False, "heterogeneous throughput"),
             ("homogeneous", "all", "delay_s", True, "homogeneous delay"),
             ("heterogeneous", "all", "delay_s", True, "heterogeneous delay"),
             ("homogeneous", "all", "ipat_s", True, "homogeneous inter-arrival"),
             ("heterogeneous", "all", "ipat_s", True, "heterogeneous inter-arrival"),
             ("total-delay", "5-50ms", "total_delay_ms", True, "2×5 total delay"),
             ("total-delay", "50-0ms", "total_delay_ms", True, "5+50 total delay")]
_BYTES = [("bytes", r, "bytes_delivered", False, f"Fig. 10 {r} Mbit/s") for r in ("5", "10", "25", "50")]

#: (id, source, claim as the paper states it, evaluator).
CLAIMS: list[Claim] = [
    ("A1", "abstract", "BLP significantly improves network throughput in homogeneous environments",
     _best("homogeneous", "throughput_mbps", "BLP", False, "Mbit/s")),
    ("A2", "abstract", "BLP significantly improves network throughput in heterogeneous environments",
     _best("heterogeneous", "throughput_mbps", "BLP", False, "Mbit/s")),
    ("A3", "abstract", "BLP improves packet delay time in homogeneous environments",
     _best("homogeneous", "delay_s", "BLP", True, "s")),
    ("A4", "abstract", "BLP improves packet delay time in heterogeneous environments",
     _best("heterogeneous", "delay_s", "BLP", True, "s")),
    ("A5", "abstract", "BLP improves overall transmission efficiency",
     _nc("'transmission efficiency' is not defined or measured in the paper")),
    ("A6", "abstract", "By outperforming benchmark schedulers (on the headline metrics: throughput, delay, "
     "inter-arrival, total delay, both environments)", _all_best(_HEADLINE)),
    ("A7", "abstract", "the congestion controller dynamically adjusts cwnd and optimizes packet size",
     _nc("a design statement; eq. (8)'s packet size is computed by blp-adaptive but not applied to the "
         "transport (docs/reproductions.md)")),
    ("A8", "abstract", "ensuring reliable and efficient data delivery",
     _nc("'reliable' and 'efficient' are not given a measure in the paper")),
    ("C1", "conclusion", "BLP consistently surpasses benchmark schedulers in throughput",
     _all_best(_HEADLINE[:2] + [(a, b, c, d, e.replace("Fig. 10", "Fig. 10 bytes")) for a, b, c, d, e in _BYTES])),
    ("C2", "conclusion", "BLP consistently surpasses benchmark schedulers in delivery rate (Fig. 10)",
     _all_best(_BYTES)),
    ("C3", "conclusion", "BLP consistently surpasses benchmark schedulers in delay",
     _all_best(_HEADLINE[2:4] + _HEADLINE[6:8])),
    ("C4", "conclusion", "BLP consistently surpasses benchmark schedulers in inter-packet arrival time",
     _all_best(_HEADLINE[4:6])),
    ("C5", "conclusion", "BLP is stable (the paper's measure: the smallest IQR, §V-B-1/2, at its best Δλ)",
     _stability),
    ("C6", "conclusion", "BLP learns a blocking threshold from network conditions and historical metrics",
     _nc("a design statement; our threshold comes from our own learner (docs/learn.md), the paper's model "
         "is not published")),
    # §V orderings
    ("V-A-1a", "§V-A-1", "homogeneous delay: BLP lowest mean (0.0514 s)", _best("homogeneous", "delay_s", "BLP", True, "s")),
    ("V-A-1b", "§V-A-1", "homogeneous delay: MinRTT = Peekaboo (0.0551 s)", _equal("homogeneous", "delay_s", "MinRTT", "Peekaboo", "s")),
    ("V-A-1c", "§V-A-1", "homogeneous delay: MinRTT and Peekaboo next best after BLP",
     _pair_best("homogeneous", "delay_s", ("MinRTT", "Peekaboo"), True, "s", exclude=("BLP",))),
    ("V-A-1d", "§V-A-1", "homogeneous delay: Δλ > 0 reduces BLP's IQR (0.0965 → 0.076 s)",
     _dl_iqr("homogeneous", "delay_s", "s")),
    ("V-A-2a", "§V-A-2", "homogeneous inter-arrival: RoundRobin lowest mean (0.0481 s)",
     _best("homogeneous", "ipat_s", "RoundRobin", True, "s")),
    ("V-A-2b", "§V-A-2", "homogeneous inter-arrival: BLP second lowest mean (0.0491 s)",
     _pair_best("homogeneous", "ipat_s", ("BLP",), True, "s", exclude=("RoundRobin",))),
    ("V-A-2c", "§V-A-2", "homogeneous inter-arrival: BLP median below RoundRobin's",
     _less("homogeneous", "ipat_s", "BLP", "RoundRobin", "s", stat="median")),
    ("V-A-2d", "§V-A-2", "homogeneous inter-arrival: Δλ > 0 reduces BLP's IQR (0.037 → 0.0294 s)",
     _dl_iqr("homogeneous", "ipat_s", "s")),
    ("V-A-3a", "§V-A-3", "homogeneous jitter: MinRTT and BLEST lowest (0.0005 s)",
     _pair_best("homogeneous", "jitter_s", ("MinRTT", "BLEST"), True, "s")),
    ("V-A-3b", "§V-A-3", "homogeneous jitter: BLP higher than MinRTT and BLEST",
     lambda c: (all_of([less(c.p("homogeneous", "jitter_s").get(s), c.p("homogeneous", "jitter_s").get("BLP"))
                        for s in ("MinRTT", "BLEST")]), _show(c.p("homogeneous", "jitter_s"), "s"))),
    ("V-A-4a", "§V-A-4", "homogeneous throughput: BLP highest mean", _best("homogeneous", "throughput_mbps", "BLP", False, "Mbit/s")),
    ("V-A-4b", "§V-A-4", "homogeneous throughput: ECF next best after BLP",
     _pair_best("homogeneous", "throughput_mbps", ("ECF",), False, "Mbit/s", exclude=("BLP",))),
    ("V-A-4c", "§V-A-4", "homogeneous throughput: BLP highest Q3", _best("homogeneous", "throughput_mbps", "BLP", False, "Mbit/s", stat="q3")),
    ("V-A-4d", "§V-A-4", "homogeneous throughput: Δλ > 0 reduces BLP's IQR", _dl_iqr("homogeneous", "throughput_mbps", "Mbit/s")),
    ("V-A-5a", "§V-A-5", "2×5 Mbit/s total delay: BLP lowest (656.88 ms)",
     _best("total-delay", "total_delay_ms", "BLP", True, "ms", group="5-50ms")),
    ("V-A-5b", "§V-A-5", "2×5 Mbit/s total delay: RoundRobin < BLEST (951.24 < 970.31 ms)",
     _less("total-delay", "total_delay_ms", "RoundRobin", "BLEST", "ms", group="5-50ms")),
    ("V-A-5c", "§V-A-5", "2×5 Mbit/s total delay: BLEST < MinRTT (970.31 < 1001.75 ms)",
     _less("total-delay", "total_delay_ms", "BLEST", "MinRTT", "ms", group="5-50ms")),
    ("V-A-5d", "§V-A-5", "2×5 Mbit/s total delay: MinRTT = Peekaboo (1001.75 ms)",
     _equal("total-delay", "total_delay_ms", "MinRTT", "Peekaboo", "ms", group="5-50ms")),
    ("V-A-5e", "§V-A-5", "2×5 Mbit/s total delay: ECF highest (1161.68 ms)",
     _best("total-delay", "total_delay_ms", "ECF", False, "ms", group="5-50ms")),
    ("V-A-6", "§V-A", "Δλ does not affect BLEST's performance (homogeneous delay)", _dl_flat("homogeneous", "delay_s", "BLEST", "s")),
    ("V-A-7", "§V-A", "Δλ does not impact BLP's performance on homogeneous paths (delay)", _dl_flat("homogeneous", "delay_s", "BLP", "s")),
    ("V-B-1a", "§V-B-1", "heterogeneous inter-arrival: ECF and BLP the two best (0.0457, 0.0458 s)",
     _pair_best("heterogeneous", "ipat_s", ("ECF", "BLP"), True, "s")),
    ("V-B-1b", "§V-B-1", "heterogeneous inter-arrival: Δλ = 0.003 improves BLP's mean (0.0458 → 0.0457 s)",
     _dl_iqr("heterogeneous", "ipat_s", "s", stat="mean", dl=0.003)),
    ("V-B-1c", "§V-B-1", "heterogeneous inter-arrival: Δλ > 0 reduces BLP's IQR (0.0183 → 0.0142 s)",
     _dl_iqr("heterogeneous", "ipat_s", "s")),
    ("V-B-2a", "§V-B-2", "heterogeneous throughput: BLP highest mean (0.0830)", _best("heterogeneous", "throughput_mbps", "BLP", False, "Mbit/s")),
    ("V-B-2b", "§V-B-2", "heterogeneous throughput: RoundRobin's median below BLP's",
     _less("heterogeneous", "throughput_mbps", "RoundRobin", "BLP", "Mbit/s", stat="median")),
    ("V-B-2c", "§V-B-2", "heterogeneous throughput: RoundRobin's Q1 above BLP's",
     _less("heterogeneous", "throughput_mbps", "BLP", "RoundRobin", "Mbit/s", stat="q1")),
    ("V-B-2d", "§V-B-2", "heterogeneous throughput: RoundRobin's Q3 above BLP's",
     _less("heterogeneous", "throughput_mbps", "BLP", "RoundRobin", "Mbit/s", stat="q3")),
    ("V-B-2e", "§V-B-2", "heterogeneous throughput: Δλ = 0.001 improves BLP's mean (0.0830 → 0.0832)",
     _dl_iqr("heterogeneous", "throughput_mbps", "Mbit/s", stat="mean", lower=False, dl=0.001)),
    ("V-B-2f", "§V-B-2", "heterogeneous throughput: Δλ > 0 reduces BLP's IQR (0.0718 → 0.0579)",
     _dl_iqr("heterogeneous", "throughput_mbps", "Mbit/s")),
    ("V-B-4a", "§V-B-4", "Fig. 10, fast path 5 Mbit/s: BLP delivers the most data", _bytes_best("5")),
    ("V-B-4b", "§V-B-4", "Fig. 10, fast path 10 Mbit/s: BLP delivers the most data", _bytes_best("10")),
    ("V-B-4c", "§V-B-4", "Fig. 10, fast path 25 Mbit/s: BLP delivers the most data", _bytes_best("25")),
    ("V-B-4d", "§V-B-4", "Fig. 10, fast path 50 Mbit/s: BLP delivers the most data", _bytes_best("50")),
    ("V-B-5a", "§V-B-5", "5+50 Mbit/s total delay: BLP lowest (382.77 ms)",
     _best("total-delay", "total_delay_ms", "BLP", True, "ms", group="50-0ms")),
    ("V-B-5b", "§V-B-5", "5+50 Mbit/s total delay: BLEST < MinRTT (384.97 < 408.92 ms)",
     _less("total-delay", "total_delay_ms", "BLEST", "MinRTT", "ms", group="50-0ms")),
    ("V-B-5c", "§V-B-5", "5+50 Mbit/s total delay: MinRTT = Peekaboo (408.92 ms)",
     _equal("total-delay", "total_delay_ms", "MinRTT", "Peekaboo", "ms", group="50-0ms")),
    ("V-B-5d", "§V-B-5", "5+50 Mbit/s total delay: MinRTT < ECF (408.92 < 454.92 ms)",
     _less("total-delay", "total_delay_ms", "MinRTT", "ECF", "ms", group="50-0ms")),
    ("V-B-5e", "§V-B-5", "5+50 Mbit/s total delay: RoundRobin highest (1208.92 ms)",
     _best("total-delay", "total_delay_ms", "RoundRobin", False, "ms", group="50-0ms")),
    ("V-C", "§V-C", "TCP suffers far more flow interruptions than MPQUIC (68 837 vs 553)", _tcp_vs_mpquic),
]


#: Claims on throughput are judged on transfer rates; say so in their row.
_ON_RATES = {"A1", "A2", "C1", "V-A-4a", "V-A-4b", "V-A-4c", "V-A-4d", "V-B-2a", "V-B-2b", "V-B-2c", "V-B-2d",
             "V-B-2e", "V-B-2f", "A6"}
#: Claims on inter-packet arrival times are judged on ours (the paper's values are not comparable).
_ON_IPAT = {"C4", "V-A-2a", "V-A-2b", "V-A-2c", "V-A-2d", "V-B-1a", "V-B-1b", "V-B-1c"}


def claims(stats: pd.DataFrame, ok: pd.DataFrame) -> pd.DataFrame:
    """claims.csv: id, source, claim, verdict, simulated (the numbers behind the verdict), note."""
    c = _Ctx(stats, ok)
    rows = []
    for cid, source, text, fn in CLAIMS:
        verdict, numbers = fn(c)
        rows.append({"id": cid, "source": source, "claim": text, "verdict": verdict, "simulated": numbers,
                     "note": _THROUGHPUT if cid in _ON_RATES else _IPAT if cid in _ON_IPAT else ""})
    return pd.DataFrame(rows)


def claim_counts(table: pd.DataFrame) -> dict[str, dict[str, int]]:
    """{"abstract+conclusion": {HOLDS: n, ...}, "§V orderings": {...}}."""
    out = {}
    for label, mask in (("abstract+conclusion", table["source"].isin(["abstract", "conclusion"])),
                        ("§V orderings", table["source"].str.startswith("§V"))):
        part = table[mask]
        out[label] = {v: int((part["verdict"] == v).sum()) for v in (HOLDS, FAILS, NC)}
    return out


# --- seeds that mean nothing, and the sensitivity grid --------------------------------------------

#: What makes two runs the same configuration, and what makes two outcomes the same.
CONFIG_COLUMNS = ("case", "scheduler", "dlambda", "p1", "p2", "file_size", "payload", "fc_window_B", "queue")
OUTCOME_COLUMNS = ("fct_s", "bytes_delivered", "delay_s", "ipat_s", "interruptions_tcp", "interruptions_mp")


def outcome_key(row: Any) -> str:
    """A run's outcome as text: equal texts are bit-identical runs on these quantities."""
    return "|".join(repr(float(row[c])) if c in row and not pd.isna(row[c]) else "-" for c in OUTCOME_COLUMNS)


def seed_report(ok: pd.DataFrame) -> pd.DataFrame:
    """Per case: configurations, seeds per configuration, configurations whose every seed gave
    the same outcome, mean distinct outcomes per configuration, random losses per run (mean)
    and runs that drew none."""
    if ok.empty:
        return pd.DataFrame()
    df = ok.copy()
    df["outcome"] = [outcome_key(r) for r in df.to_dict("records")]
    cols = [c for c in CONFIG_COLUMNS if c in df]
    g = df.groupby(cols, dropna=False).agg(seeds=("seed", "size"), distinct=("outcome", "nunique")).reset_index()
    rows = []
    for case, part in g.groupby("case", sort=False):
        runs = df[df["case"] == case]
        losses = runs["random_losses"] if "random_losses" in runs else pd.Series(dtype=float)
        rows.append({"case": case, "configurations": len(part), "seeds": int(part["seeds"].max()),
                     "all_seeds_identical": int((part["distinct"] == 1).sum()),
                     "mean_distinct_outcomes": float(part["distinct"].mean()),
                     "random_losses_per_run": float(losses.mean()) if len(losses) else float("nan"),
                     "runs_without_random_loss": int((losses == 0).sum()) if len(losses) else 0,
                     "runs": len(runs)})
    return pd.DataFrame(rows)


def _window_label(b: float) -> str:
    if pd.isna(b):
        return "?"
    b = int(b)
    if b == 131072:
        return "128KiB"
    for unit, size in (("MB", 1_000_000), ("KB", 1000)):
        if b >= size and b % size == 0:
            return f"{b // size}{unit}"
    return f"{b}B"


def sensitivity(ok: pd.DataFrame) -> pd.DataFrame:
    """The sensitivity case per (pair, window, queue): each scheduler's mean total delay (ms), the
    ranking, whether BLP is lowest and the paper's worst is worst, and how many of the six
    schedulers give distinct outcomes (schedulers with bit-identical mean completion times count
    once)."""
    s = ok[ok["case"] == "sensitivity"]
    if s.empty:
        return pd.DataFrame()
    rows = []
    worst = {"5-50ms": "ECF", "50-0ms": "RoundRobin"}
    for (p2, win, q), part in s.groupby(["p2", "fc_window_B", "queue"], sort=True):
        m = part.groupby("scheduler")["total_delay_ms"].mean()
        f = part.groupby("scheduler")["fct_s"].mean()
        v = {k: float(m[k]) for k in SCHEDULERS if k in m}
        row: dict[str, Any] = {"pair": "2x5 Mbit/s" if p2 == "5-50ms" else "5+50 Mbit/s", "fc_window": _window_label(win),
                               "fc_window_B": win, "queue": q}
        row.update({k: v.get(k, float("nan")) for k in SCHEDULERS})
        row["ranking"] = " < ".join(sorted(v, key=v.get))
        row["BLP_lowest"] = best(v, "BLP", True)
        row["paper_worst_is_worst"] = best(v, worst.get(str(p2), "RoundRobin"), False)
        row["distinct_schedulers"] = int(pd.Series([round(float(x), 9) for x in f]).nunique())
        rows.append(row)
    return pd.DataFrame(rows).sort_values(["pair", "fc_window_B", "queue"], key=lambda c: c.map(_qkey) if c.name == "queue" else c).reset_index(drop=True)


def _qkey(q: Any) -> float:
    try:
        return float(str(q).rstrip("p"))
    except ValueError:
        return float("inf")
