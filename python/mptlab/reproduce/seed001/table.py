"""Seed 001, Table 3: per-run metrics from a run's summary, then the paper's statistics over runs.

Source: Łuczak, Ignaciuk, Morawski, "Evaluating MPTCP Congestion Control Algorithms:
Implications for Streaming in Open Internet", Future Internet 15 (2023) 328, §2.1 and Table 3
(`../shared/seeds/001_fba625d6a51c507c.txt`).

Per run r (one 10 s run of one CC pair), from the MPTCP flow's `mptcp` block in summary.json,
whose samples k are 100 ms apart (`metrics.trace_interval`):

- v_av^r, v_max^r: mean and maximum of T_over(k), the largest protocol delay acknowledged in
  sampling interval k (eq. 3, 4);
- ζ_av^r, ζ_max^r: mean and maximum of ζ(k) = T_over(k) − max_i τ_i(k) (eq. 8, 9);
- τ_i,av^r, τ_i,max^r: mean and maximum of path i's SRTT samples τ_i(k);
- d_i^r: packets of path i dropped per second of the run (Table 3's "seg/s");
- throughput av^r, max^r: mean and maximum of the 1 s goodput samples (Mbit/s).

Over the R runs of a pair (`table3`):

- v_av = (1/R) Σ v_av^r (eq. 5), v_max = (1/R) Σ v_max^r (eq. 6);
- ζ_av = (1/R) Σ ζ_av^r (eq. 10), ζ_max = (1/R) Σ max(ζ_max^r, 0) (eq. 11);
- every other statistic likewise the mean over runs of the per-run value (the paper: "the
  extreme and average values for each metric"; the reference notes that its maxima are
  averages of per-run maxima, as eq. 6 and 11 say).

A run without any sample of a metric (no data acknowledged, a path never established) has no
value for it and is left out of that mean; `runs` counts the runs that had one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: The MPTCP-level (coupled) controllers and the path-level ones, as the engine names them,
#: in the paper's column order, with the paper's spelling.
MPTCP_CCS = {"lia": "LIA", "olia": "OLIA", "balia": "BALIA", "wvegas": "wVegas"}
PATH_CCS = {"reno": "Reno", "cubic": "Cubic", "bbr": "BBR"}
#: The 12 pairs as `mptlab` names them ("lia+reno"), in Table 3's column order.
PAIRS = tuple(f"{m}+{p}" for m in MPTCP_CCS for p in PATH_CCS)


@dataclass(frozen=True)
class Stat:
    """One row of Table 3."""

    metric: str  # as in reference/seed001.csv
    statistic: str  # as in reference/seed001.csv
    unit: str
    column: str  # the per-run column it is computed from
    label: str  # the row label of the Markdown table
    clip_at_zero: bool = False  # eq. (11): mean of max(x, 0)


#: Table 3's rows, in the paper's order.
STATS = (
    Stat("protocol_delay", "v_av", "ms", "v_av", "Protocol delay v_av (ms)"),
    Stat("protocol_delay", "v_max", "ms", "v_max", "Protocol delay v_max (ms)"),
    Stat("hol_degree", "zeta_av", "ms", "zeta_av", "HoL degree ζ_av (ms)"),
    Stat("hol_degree", "zeta_max", "ms", "zeta_max", "HoL degree ζ_max (ms)", clip_at_zero=True),
    Stat("srtt_path1", "av", "ms", "srtt1_av", "SRTT path 1 τ_1,av (ms)"),
    Stat("srtt_path1", "max", "ms", "srtt1_max", "SRTT path 1 τ_1,max (ms)"),
    Stat("srtt_path2", "av", "ms", "srtt2_av", "SRTT path 2 τ_2,av (ms)"),
    Stat("srtt_path2", "max", "ms", "srtt2_max", "SRTT path 2 τ_2,max (ms)"),
    Stat("drop_rate", "d1", "seg/s", "d1", "Mean drop rate d_1 (seg/s)"),
    Stat("drop_rate", "d2", "seg/s", "d2", "Mean drop rate d_2 (seg/s)"),
    Stat("throughput", "av", "Mbit/s", "tput_av", "Throughput av (Mbit/s)"),
    Stat("throughput", "max", "Mbit/s", "tput_max", "Throughput max (Mbit/s)"),
)
#: Per-run columns, in STATS order.
RUN_COLUMNS = tuple(s.column for s in STATS)
#: Columns of table3.csv.
TABLE_COLUMNS = ("mptcp_cc", "path_cc", "metric", "statistic", "simulated", "published", "unit")


def split_pair(pair: str) -> tuple[str, str]:
    """"lia+reno" -> ("LIA", "Reno"): the derived mptcp_cc / path_cc columns."""
    mptcp, plus, path = pair.lower().partition("+")
    if not plus and mptcp in MPTCP_CCS:
        return MPTCP_CCS[mptcp], "none"  # the coupled controller alone (sensitivity runs)
    if mptcp not in MPTCP_CCS or path not in PATH_CCS:
        raise ValueError(f"not a seed 001 pair: {pair!r} (valid: {', '.join(PAIRS)})")
    return MPTCP_CCS[mptcp], PATH_CCS[path]


def run_record(summary: Mapping[str, Any], flow: str) -> dict[str, float]:
    """The per-run metrics of MPTCP flow `flow` in one run's summary.json (NaN when absent)."""
    entry = next((f for f in summary["flows"] if f["name"] == flow), None)
    if entry is None or not entry.get("mptcp"):
        raise ValueError(f"run has no MPTCP flow named {flow!r}")
    mp = entry["mptcp"]
    paths = sorted(entry.get("paths") or [], key=lambda p: p["index"])
    if len(paths) < 2:
        raise ValueError(f"flow {flow!r} has {len(paths)} path(s); seed 001 needs two")
    pd_ms, hol = mp.get("protocol_delay_ms") or {}, mp.get("hol_degree_ms") or {}
    goodput = entry.get("goodput_mbps") or {}
    return {
        "v_av": _num(pd_ms.get("v_av")),
        "v_max": _num(pd_ms.get("v_max")),
        "zeta_av": _num(hol.get("zeta_av")),
        "zeta_max": _num(hol.get("zeta_max")),
        "srtt1_av": _num(paths[0].get("srtt_ms_mean")),
        "srtt1_max": _num(paths[0].get("srtt_ms_max")),
        "srtt2_av": _num(paths[1].get("srtt_ms_mean")),
        "srtt2_max": _num(paths[1].get("srtt_ms_max")),
        "d1": _num(paths[0].get("drop_rate_per_s")),
        "d2": _num(paths[1].get("drop_rate_per_s")),
        "tput_av": _num(goodput.get("mean")),
        "tput_max": _num(goodput.get("max")),
    }


def table3(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 3 from per-run records: one row per (mptcp_cc, path_cc, metric, statistic) with
    `simulated` (the statistic over runs, eq. 5, 6, 10, 11) and `runs` (how many runs had a
    value). `runs` needs the columns mptcp_cc, path_cc and RUN_COLUMNS, one row per run."""
    missing = [c for c in ("mptcp_cc", "path_cc", *RUN_COLUMNS) if c not in runs.columns]
    if missing:
        raise ValueError(f"per-run table lacks columns: {', '.join(missing)}")
    rows = []
    for (mptcp_cc, path_cc), group in runs.groupby(["mptcp_cc", "path_cc"], sort=False):
        for s in STATS:
            values = pd.to_numeric(group[s.column], errors="coerce").dropna()
            if s.clip_at_zero:
                values = values.clip(lower=0.0)  # eq. (11): max(ζ_max^r, 0)
            rows.append({
                "mptcp_cc": mptcp_cc, "path_cc": path_cc, "metric": s.metric,
                "statistic": s.statistic, "simulated": float(values.mean()) if len(values) else np.nan,
                "unit": s.unit, "runs": int(len(values)),
            })
    return _in_paper_order(pd.DataFrame(rows, columns=[*TABLE_COLUMNS[:5], "unit", "runs"]))


def with_published(simulated: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """table3.csv: the simulated cells joined with the published ones (reference/seed001.csv,
    columns mptcp_cc, path_cc, metric, statistic, value, unit). Every published cell appears;
    a cell the simulation has no value for is NaN."""
    keys = ["mptcp_cc", "path_cc", "metric", "statistic"]
    pub = published.rename(columns={"value": "published"})[[*keys, "published", "unit"]]
    merged = pub.merge(simulated[[*keys, "simulated"]], on=keys, how="left")
    return _in_paper_order(merged[list(TABLE_COLUMNS)])


def markdown(table: pd.DataFrame, digits: Mapping[str, int] | None = None) -> str:
    """Table 3 in the paper's shape: one row per statistic, one column per pair (MPTCP CC /
    path CC), each cell "simulated (published)"."""
    pairs = [split_pair(p) for p in PAIRS]
    present = set(zip(table["mptcp_cc"], table["path_cc"]))
    pairs = [p for p in pairs if p in present]
    cell = {(r.mptcp_cc, r.path_cc, r.metric, r.statistic): r for r in table.itertuples(index=False)}
    header = ["metric"] + [f"{m} / {p}" for m, p in pairs]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" + "---:|" * len(pairs)]
    for s in STATS:
        nd = (digits or {}).get(s.unit, _DIGITS.get(s.unit, 0))
        cells = []
        for m, p in pairs:
            r = cell.get((m, p, s.metric, s.statistic))
            sim = getattr(r, "simulated", np.nan) if r is not None else np.nan
            pub = getattr(r, "published", np.nan) if r is not None else np.nan
            cells.append(f"{_fmt(sim, nd)} ({_fmt(pub, nd)})")
        lines.append("| " + " | ".join([s.label, *cells]) + " |")
    return "\n".join(lines) + "\n"


#: Decimals per unit in the Markdown table (as the paper prints them).
_DIGITS = {"ms": 0, "seg/s": 1, "Mbit/s": 2}


def _fmt(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "–"
    return f"{float(value):.{digits}f}"


def _num(value: Any) -> float:
    return float(value) if value is not None else float("nan")


def _in_paper_order(df: pd.DataFrame) -> pd.DataFrame:
    pair_rank = {split_pair(p): i for i, p in enumerate(PAIRS)}
    stat_rank = {(s.metric, s.statistic): i for i, s in enumerate(STATS)}
    order = sorted(
        range(len(df)),
        key=lambda i: (
            stat_rank.get((df["metric"].iat[i], df["statistic"].iat[i]), len(STATS)),
            pair_rank.get((df["mptcp_cc"].iat[i], df["path_cc"].iat[i]), len(PAIRS)),
        ),
    )
    return df.iloc[order].reset_index(drop=True)


def pairs_frame(pairs: Iterable[str]) -> pd.DataFrame:
    """A frame of the derived columns for `pairs`: cc_pair, mptcp_cc, path_cc."""
    rows = [{"cc_pair": p, "mptcp_cc": split_pair(p)[0], "path_cc": split_pair(p)[1]} for p in pairs]
    return pd.DataFrame(rows, columns=["cc_pair", "mptcp_cc", "path_cc"])
