"""The report's tables: summaries grouped by the plan's axes (mean ± std over seeds), the runs.

Pure pandas; the report renders whatever these return.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from mptlab.figures.labels import natural_key

#: Run-level metrics summarised in the report, in this order, when the sweep has them.
HEADLINE = ("goodput_mbps", "jain", "loss_pct", "owd_ms", "jitter_ms", "retransmissions", "completion_time_s")
#: Columns of the runs table shown in the report.
RUN_COLUMNS = ("run_key", "status", "point", "seed")
RUN_TAIL = ("wall_s", "error")


def headline_metrics(runs: pd.DataFrame) -> list[str]:
    """HEADLINE metrics present, then the mean queueing delay of links that queued at all
    (over 0.1 ms in some run: the bottlenecks, not the access links)."""
    cols = [m for m in HEADLINE if m in runs.columns and runs[m].notna().any()]
    queues = [c for c in runs.columns if c.startswith("queue_delay_ms__") and (runs[c].fillna(0) > 0.1).any()]
    return cols + sorted(queues)


def grouped_summary(runs: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per combination of `by`: number of ok runs and "mean ± std" of each metric
    over them (over seeds, when `by` is all of the plan's axes). Groups in natural order."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty or not metrics:
        return pd.DataFrame()
    if not by:
        ok = ok.assign(_all="all")
        by = ["_all"]
    grouped = ok.groupby(list(by), dropna=False, sort=False)
    out = grouped.size().rename("runs").to_frame()
    for m in metrics:
        mean = grouped[m].mean()
        std = grouped[m].std(ddof=1)
        out[m] = [_mean_std(a, b) for a, b in zip(mean, std)]
    out = out.reset_index()
    order = sorted(range(len(out)), key=lambda i: tuple(natural_key(out.iloc[i][c]) for c in by))
    out = out.iloc[order].reset_index(drop=True)
    return out.drop(columns=["_all"], errors="ignore")


def runs_table(runs: pd.DataFrame, params: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """The runs in plan order with the columns worth reading."""
    cols = [c for c in (*RUN_COLUMNS, *params, *metrics, *RUN_TAIL) if c in runs.columns]
    return runs.sort_values(["point", "seed"], kind="stable")[cols].reset_index(drop=True)


def _mean_std(mean: float, std: float) -> str:
    if pd.isna(mean):
        return "–"
    if pd.isna(std):
        return f"{mean:.4g}"
    return f"{mean:.4g} ± {std:.2g}"
