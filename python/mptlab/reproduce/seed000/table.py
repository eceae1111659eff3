"""Seed 000: every published cell of Tables 2-23 (reference/seed000.csv) next to the simulated
value, and how many lie within ±10/25/50 %.

A cell's simulated value is the mean over the runs (seeds) of the per-run quantity that
metrics.py defines for it (metrics.column names it: `thr_MPTCP_TN1_std` answers "Table 4,
MPTCP, TN1, σ"). |Δ| % = |simulated − published| / |published| × 100 (empty for a published
0, the loss Min of every row: such a cell is "within" a band only when the simulated value is
0 too). The eight text values of Figs. 17a-20a that disagree with Tables 17/18/21/22
(`table` = "text:Fig17a" ...) are not cells: the tables are compared (A14, the capacity check
of the study notes §1.8 point 3), the text values are listed beside them (`text_values`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mptlab.reproduce.common import BANDS_PCT, markdown_table, within
from mptlab.reproduce.seed000.metrics import FAMILIES, LINKS, jain_cells

#: The published metric -> the prefix of its metrics.column.
SHORT = {"throughput": "thr", "jitter": "jit", "packet_loss": "loss", "jain_index": "jain"}
#: Engine controller names -> the paper's.
CC_LABEL = {"bbr": "BBR", "cubic": "CUBIC", "reno": "Reno"}
TABLE_COLUMNS = ("table", "scenario", "pairing", "protocol", "link", "metric", "statistic", "unit",
                 "published", "simulated", "runs", "delta_pct", *(f"within_{b}" for b in BANDS_PCT))
METRIC_ORDER = ("throughput", "jitter", "packet_loss", "jain_index")


def pairing_label(mptcp_cc: str, quic_cc: str) -> str:
    """("cubic", "bbr") -> "CUBIC-BBR" (MPTCP's controller first, as the paper writes it)."""
    return f"{CC_LABEL.get(mptcp_cc, mptcp_cc)}-{CC_LABEL.get(quic_cc, quic_cc)}"


def cell_column(row: pd.Series | dict) -> str:
    """The per-run column answering a published row."""
    return f"{SHORT[row['metric']]}_{row['protocol']}_{row['link']}_{row['statistic']}"


def table_cells(published: pd.DataFrame) -> pd.DataFrame:
    """The 576 table cells (without the text values), values as floats."""
    cells = published[~published["table"].astype(str).str.startswith("text")].copy()
    cells["value"] = cells["value"].astype(float)
    return cells


def text_values(published: pd.DataFrame) -> pd.DataFrame:
    """The 8 text values of Figs. 17a-20a with the table value they contradict beside them."""
    text = published[published["table"].astype(str).str.startswith("text")].copy()
    cells = table_cells(published)
    key = ["scenario", "pairing", "protocol", "link", "metric", "statistic"]
    merged = text.merge(cells[key + ["table", "value"]], on=key, how="left", suffixes=("_text", "_table"))
    return merged.rename(columns={"table_text": "source", "table_table": "table", "value_text": "text_value",
                                  "value_table": "table_value"})


def seed_means(ok: pd.DataFrame) -> pd.DataFrame:
    """Per (scenario, pairing): the mean over seeds of every per-run column, and `runs`."""
    numeric = ok.select_dtypes("number").drop(columns=["point", "seed"], errors="ignore")
    g = pd.concat([ok[["scenario", "pairing"]], numeric], axis=1).groupby(["scenario", "pairing"], sort=False)
    means = g.mean()
    # Jain from the mean throughputs over seeds, as the paper computes it from its means
    for key in ("TN1", "TN2", "total"):
        col = f"jain_all_{key}_value"
        if col in means:
            means[col] = [jain_cells(_thr_means(row))[key] for _, row in means.iterrows()]
    means["runs"] = g.size()
    return means


def _thr_means(row: pd.Series) -> dict[tuple[str, str], float]:
    return {(f, l): float(row.get(f"thr_{f}_{l}_mean", float("nan"))) for f in FAMILIES for l in LINKS.values()}


def comparison(published: pd.DataFrame, means: pd.DataFrame) -> pd.DataFrame:
    """table.csv: every table cell with its simulated value, |Δ| % and the bands."""
    cells = table_cells(published)
    rows = []
    for r in cells.to_dict("records"):
        key = (r["scenario"], r["pairing"])
        col = cell_column(r)
        sim = float(means.at[key, col]) if key in means.index and col in means.columns else float("nan")
        n = int(means.at[key, "runs"]) if key in means.index else 0
        pub = float(r["value"])
        delta = abs(sim - pub) / abs(pub) * 100 if pub != 0 and np.isfinite(sim) else float("nan")
        row = {k: r[k] for k in ("table", "scenario", "pairing", "protocol", "link", "metric", "statistic", "unit")}
        row.update(published=pub, simulated=sim, runs=n, delta_pct=delta)
        for b in BANDS_PCT:
            row[f"within_{b}"] = bool(np.isfinite(sim) and within(sim, pub, b))
        rows.append(row)
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


def band_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric and in all: cells, cells simulated, cells within ±10/25/50 %."""
    rows = []
    for metric in (*METRIC_ORDER, "all"):
        part = table if metric == "all" else table[table["metric"] == metric]
        row = {"metric": metric, "cells": len(part), "simulated": int(part["simulated"].notna().sum())}
        for b in BANDS_PCT:
            row[f"within_{b}"] = int(part[f"within_{b}"].sum())
        rows.append(row)
    return pd.DataFrame(rows)


def _fmt(v: float, digits: int = 3) -> str:
    return "" if not np.isfinite(v) else f"{v:.{digits}f}"


def markdown(table: pd.DataFrame) -> str:
    """tables.md: one Markdown table per published table, in the paper's order."""
    parts = []
    for t in sorted(table["table"].unique(), key=int):
        part = table[table["table"] == t]
        head = part.iloc[0]
        parts.append(f"## Table {t}: {head['scenario']}, {head['metric'].replace('_', ' ')}\n\n")
        rows = [[r.pairing, r.protocol, r.link, r.statistic, _fmt(r.published), _fmt(r.simulated),
                 _fmt(r.delta_pct, 1)] for r in part.itertuples()]
        parts.append(markdown_table(rows, ["pairing", "protocol", "link", "statistic", "published", "simulated", "|Δ| %"],
                                    "lllrrrr") + "\n")
    return "".join(parts)
