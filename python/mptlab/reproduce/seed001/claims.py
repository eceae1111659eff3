"""Seed 001: the paper's claims (abstract and conclusions) as tests on Table 3.

Every claim of the abstract (§Abstract) and of the conclusions (§3.2 "Implications" and §4
"Conclusions") that names something measurable is one row: a short quote, how we read it as a
predicate on Table 3's cells, and the verdict on the simulated table:

- HOLDS: the predicate is true of the simulated Table 3;
- FAILS: it is false;
- NOT COMPARABLE: the claim names nothing Table 3 (or the model) measures, or the simulated
  cells it needs are missing.

The same predicate is evaluated on the published Table 3 (`published_holds`): every reading
below holds on the paper's own numbers (tested), so a FAILS is a disagreement with the paper,
not a misreading of it. Three claims of §3 that the issue asked about (the LIA < OLIA < BALIA
throughput order, throughput rising over a run) are added as rows marked `section`.

"Lowest"/"highest": a pair or CC is lowest when no other is strictly lower. On the published
table equal values are ties of rounding (the cells are printed as integers) and are allowed; on
the simulated table (unrounded) a candidate not named with exactly the same value counts as
better, since equal values there mean runs that did not differ (LIA, OLIA and BALIA before any
loss), and nothing stands out when all candidates are equal. Means
"per MPTCP CC" are means over the three path CCs of the pair cells (as the paper compares CCs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from mptlab.reproduce.common import BANDS_PCT, FAILS, HOLDS, NOT_COMPARABLE, markdown_table, within

MPTCP = ("LIA", "OLIA", "BALIA", "wVegas")
PATHS = ("Reno", "Cubic", "BBR")

#: Columns of claims.csv.
CLAIM_COLUMNS = ("id", "section", "quote", "reading", "verdict", "simulated", "published", "published_holds")


@dataclasses.dataclass(frozen=True)
class Claim:
    id: str
    section: str
    quote: str
    reading: str
    #: cells -> (holds, numbers as text); None: not comparable. `cells` maps
    #: (mptcp_cc, path_cc, metric, statistic) -> value.
    test: Callable[..., tuple[bool, str] | None] | None


def _pair(c: Mapping, m: str, p: str, metric: str, stat: str) -> float:
    return float(c.get((m, p, metric, stat), np.nan))


def _per_cc(c: Mapping, metric: str, stat: str) -> dict[str, float]:
    return {m: float(np.mean([_pair(c, m, p, metric, stat) for p in PATHS])) for m in MPTCP}


def _per_pair(c: Mapping, metric: str, stat: str, stat2: str | None = None,
              metric2: str | None = None) -> dict[tuple[str, str], float]:
    out = {}
    for m in MPTCP:
        for p in PATHS:
            v = _pair(c, m, p, metric, stat)
            if stat2 is not None:
                v += _pair(c, m, p, metric2 or metric, stat2)
            out[(m, p)] = v
    return out


def _fmt(d: Mapping, digits: int = 2) -> str:
    def key(k: object) -> str:
        return "/".join(k) if isinstance(k, tuple) else str(k)
    return ", ".join(f"{key(k)} {v:.{digits}f}" for k, v in d.items())


def _extreme(values: Mapping, names: tuple, lowest: bool, among: int = 1, strict: bool = False) -> tuple[bool, str] | None:
    """Each of `names` is among the `among` lowest (highest) values: at most among−1 others are
    strictly better than it. `strict`: a candidate not named with exactly the same value counts
    as better too (simulated cells are unrounded: equal values mean runs that did not differ)."""
    if any(not np.isfinite(v) for v in values.values()):
        return None
    # Nothing stands out when every candidate has the same value (e.g. controllers that never
    # left slow start): the claim singles something out, so it fails then.
    ok = max(values.values()) - min(values.values()) > 1e-9 * max(abs(v) for v in values.values())
    for n in names:
        better = [k for k, v in values.items() if k != n and (v < values[n] if lowest else v > values[n])]
        if strict:
            better += [k for k, v in values.items() if k not in names and v == values[n]]
        ok &= len(better) <= among - 1
    ranked = dict(sorted(values.items(), key=lambda kv: kv[1], reverse=not lowest))
    shown = dict(list(ranked.items())[: max(among + 2, 4)])
    return ok, ("lowest first: " if lowest else "highest first: ") + _fmt(shown)


def _cc_extreme(metric: str, stat: str, cc: str, lowest: bool):
    return lambda c, strict=False: _extreme(_per_cc(c, metric, stat), (cc,), lowest, strict=strict)


def _pair_extreme(metric: str, stat: str, pairs: tuple, lowest: bool, among: int = 1,
                  stat2: str | None = None, metric2: str | None = None):
    return lambda c, strict=False: _extreme(_per_pair(c, metric, stat, stat2, metric2), pairs, lowest, among, strict)


def _order_every_path_cc(c: Mapping, strict: bool = False) -> tuple[bool, str] | None:
    """LIA < OLIA < BALIA in throughput av for every path CC."""
    parts, ok = [], True
    for p in PATHS:
        v = [_pair(c, m, p, "throughput", "av") for m in ("LIA", "OLIA", "BALIA")]
        if not all(np.isfinite(v)):
            return None
        ok &= v[0] < v[1] < v[2]
        parts.append(f"{p}: LIA {v[0]:.2f}, OLIA {v[1]:.2f}, BALIA {v[2]:.2f}")
    return ok, "; ".join(parts)


def _spread(c: Mapping, strict: bool = False) -> tuple[bool, str] | None:
    v = _per_pair(c, "throughput", "av")
    if any(not np.isfinite(x) for x in v.values()):
        return None
    hi, lo = max(v.values()), min(v.values())
    return hi >= 1.5 * lo, f"highest/lowest pair throughput av = {hi:.2f}/{lo:.2f} = {hi / lo:.2f} (reading: ≥ 1.5)"


CLAIMS: tuple[Claim, ...] = (
    Claim("A1", "abstract", "The efficacy of MPTCP, however, hinges on the choice of appropriate CC algorithms",
          "the CC pair changes throughput substantially: highest pair throughput av ≥ 1.5 × the lowest "
          "(the paper: 2.0×)", _spread),
    Claim("A2a", "abstract", "BALIA stands out as the most suitable choice [...] balancing waiting time, throughput, "
          "and HoL blocking reduction — throughput",
          "BALIA has the highest throughput av of the four MPTCP CCs (mean over path CCs)",
          _cc_extreme("throughput", "av", "BALIA", lowest=False)),
    Claim("A2b", "abstract", "BALIA stands out [...] — waiting time",
          "BALIA has the lowest protocol delay v_av of the four MPTCP CCs (mean over path CCs)",
          _cc_extreme("protocol_delay", "v_av", "BALIA", lowest=True)),
    Claim("A2c", "abstract", "BALIA stands out [...] — HoL blocking reduction",
          "BALIA has the lowest HoL degree ζ_av of the four MPTCP CCs (mean over path CCs)",
          _cc_extreme("hol_degree", "zeta_av", "BALIA", lowest=True)),
    Claim("A3a", "abstract", "the wVegas algorithm, with its delay-centric approach, proves less adequate for "
          "multipath streaming — throughput",
          "wVegas has the lowest throughput av of the four MPTCP CCs",
          _cc_extreme("throughput", "av", "wVegas", lowest=True)),
    Claim("A3b", "abstract", "wVegas [...] proves less adequate — waiting time",
          "wVegas has the highest protocol delay v_av of the four MPTCP CCs",
          _cc_extreme("protocol_delay", "v_av", "wVegas", lowest=False)),
    Claim("C1", "4 (also 3.2)", "LIA paired with BBR at the path level [...] ensured a low mean drop rate; "
          "LIA with BBR appears to be the best choice for the applications where packet loss is most detrimental",
          "LIA/BBR has the lowest d_1 + d_2 (seg/s) of the 12 pairs",
          _pair_extreme("drop_rate", "d1", (("LIA", "BBR"),), lowest=True, stat2="d2")),
    Claim("C2", "4", "BALIA paired with Reno proved to be the most attractive with respect to bandwidth utilization",
          "BALIA/Reno has the highest throughput av of the 12 pairs",
          _pair_extreme("throughput", "av", (("BALIA", "Reno"),), lowest=False)),
    Claim("C3", "4 (also 3.2)", "OLIA paired with BBR and BALIA combined with Reno are adequate for "
          "bandwidth-intensive ones",
          "OLIA/BBR and BALIA/Reno are both among the 3 highest throughput av of the 12 pairs "
          "(the paper: 3rd and 1st)",
          _pair_extreme("throughput", "av", (("OLIA", "BBR"), ("BALIA", "Reno")), lowest=False, among=3)),
    Claim("C4", "4 (also 3.2)", "BALIA when paired with either BBR or Reno, also achieved the lowest HoL Blocking Degree",
          "BALIA/BBR and BALIA/Reno have the two lowest ζ_av of the 12 pairs (ties allowed)",
          _pair_extreme("hol_degree", "zeta_av", (("BALIA", "BBR"), ("BALIA", "Reno")), lowest=True, among=2)),
    Claim("C5", "4", "From the perspective of Path Delay, the combination of wVegas and Reno, as well as OLIA and BBR, "
          "emerged as the most efficient ones, offering the lowest latency and jitter",
          "wVegas/Reno and OLIA/BBR have the two lowest τ_1,av + τ_2,av of the 12 pairs (ties allowed; "
          "jitter is not in Table 3 and not tested)",
          _pair_extreme("srtt_path1", "av", (("wVegas", "Reno"), ("OLIA", "BBR")), lowest=True, among=2,
                        stat2="av", metric2="srtt_path2")),
    Claim("C6", "4", "In terms of the protocol delay, LIA with BBR displayed the highest average, while the "
          "combination of wVegas and Reno was much less efficient",
          "LIA/BBR and wVegas/Reno have the two highest v_av of the 12 pairs (the paper's numbers put "
          "wVegas/Reno first, 271 against 231 ms)",
          _pair_extreme("protocol_delay", "v_av", (("LIA", "BBR"), ("wVegas", "Reno")), lowest=False, among=2)),
    Claim("C7", "4 (also 3.2)", "the common MPTCP and SPTCP algorithms [...] have inherent limitations when "
          "considered in the context of real-time and streaming services [...] the need to develop new MPTCP CC "
          "algorithms", "a judgement about design goals; no quantity to compare", None),
    Claim("S1", "3.1.5 (issue 17)", "BALIA outperforms the other algorithms in all three combinations, providing "
          "the highest throughput (Table 3: LIA < OLIA < BALIA for every path CC)",
          "throughput av LIA < OLIA < BALIA within each path CC", _order_every_path_cc),
)


def cells(table: pd.DataFrame, column: str) -> dict[tuple[str, str, str, str], float]:
    """(mptcp_cc, path_cc, metric, statistic) -> value of `column` ('simulated' or 'published')."""
    return {(r.mptcp_cc, r.path_cc, r.metric, r.statistic): float(getattr(r, column))
            for r in table.itertuples(index=False)}


def evaluate(table: pd.DataFrame, trend: pd.DataFrame | None = None) -> pd.DataFrame:
    """claims.csv: one row per claim with its verdict on the simulated table and the numbers
    behind it (simulated and published). `trend` (compare.trend: early and late
    goodput per pair) adds the §3.1.5 "tendency to improve over time" row."""
    sim, pub = cells(table, "simulated"), cells(table, "published")
    rows = []
    for cl in CLAIMS:
        if cl.test is None:
            rows.append({"id": cl.id, "section": cl.section, "quote": cl.quote, "reading": cl.reading,
                         "verdict": NOT_COMPARABLE, "simulated": "", "published": "", "published_holds": ""})
            continue
        s, p = cl.test(sim, strict=True), cl.test(pub)
        verdict = NOT_COMPARABLE if s is None else (HOLDS if s[0] else FAILS)
        rows.append({"id": cl.id, "section": cl.section, "quote": cl.quote, "reading": cl.reading,
                     "verdict": verdict, "simulated": "" if s is None else s[1],
                     "published": "" if p is None else p[1],
                     "published_holds": "" if p is None else bool(p[0])})
    rows.append(_trend_row(trend))
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


def _trend_row(trend: pd.DataFrame | None) -> dict:
    quote = "All three SPTCP CC algorithms showed aggravated fluctuations, with a tendency to improve over time"
    reading = ("late (5–10 s) mean goodput above early (0–2 s) in most pairs (the paper gives no numbers: "
               "Fig. 4 only)")
    base = {"id": "S2", "section": "3.1.5", "quote": quote, "reading": reading, "published": "(figure only)",
            "published_holds": ""}
    if trend is None or trend.empty or not {"early", "late"} <= set(trend.columns):
        return {**base, "verdict": NOT_COMPARABLE, "simulated": "trend not computed"}
    rising = int((trend["late"] > trend["early"]).sum())
    n = len(trend)
    return {**base, "verdict": HOLDS if rising > n / 2 else FAILS,
            "simulated": f"{rising} of {n} pairs rise; early {trend['early'].mean():.2f}, "
                         f"late {trend['late'].mean():.2f} Mbit/s (mean over pairs)"}


def within_bands(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric and in total: published cells, and how many lie within ±10/25/50 % of the
    simulated value (|simulated − published| ≤ x·|published|)."""
    t = table.dropna(subset=["simulated", "published"])
    t = t[t["published"] != 0]
    rows = []
    for name, mask in [*((m, t["metric"] == m) for m in t["metric"].unique()), ("all", t["metric"] == t["metric"])]:
        sim, pub = t["simulated"][mask], t["published"][mask]
        rows.append({"metric": name, "cells": int(mask.sum()),
                     **{f"within_{b}pct": int(within(sim, pub, b).sum()) for b in BANDS_PCT}})
    return pd.DataFrame(rows)


def markdown(claims: pd.DataFrame, bands: pd.DataFrame, missing: int = 0) -> str:
    counts = claims["verdict"].value_counts()
    head = (f"{counts.get(HOLDS, 0)} HOLDS, {counts.get(FAILS, 0)} FAILS, "
            f"{counts.get(NOT_COMPARABLE, 0)} NOT COMPARABLE of {len(claims)} claims.")
    rows = [[r.id, r.section, r.quote if len(r.quote) < 110 else r.quote[:107] + "…", r.reading,
             f"**{r.verdict}**", r.simulated or "–", r.published or "–"] for r in claims.itertuples(index=False)]
    band_rows = [[r.metric, r.cells, *(getattr(r, f"within_{b}pct") for b in BANDS_PCT)]
                 for r in bands.itertuples(index=False)]
    return (
        "## Claims of the abstract and conclusions\n\n"
        "Each claim read as a predicate on Table 3 (the reading column; see "
        "`python/mptlab/reproduce/seed001/claims.py`), evaluated on the simulated table (verdict, "
        "simulated) and on the published one (published: every reading holds there). "
        + head + "\n\n"
        + markdown_table(rows, ["id", "section", "claim (quoted)", "reading", "verdict", "simulated", "published"])
        + "\n\n### Published numbers near the simulated ones\n\n"
        "Table 3's 144 published cells, each against the simulated cell of the same pair, statistic, unit "
        "and definition; a cell counts in a band when |simulated − published| ≤ x·published."
        + (f" {missing} cells have no simulated value." if missing else "") + "\n\n"
        + markdown_table(band_rows, ["metric", "cells", "±10 %", "±25 %", "±50 %"], "lrrrr") + "\n"
    )
