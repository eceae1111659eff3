"""Seed 001, Figs. 3-4: one representative run per path CC, the four MPTCP CCs as lines.

The paper shows "the results of one representative run" (§3) per path CC (rows: Reno, Cubic,
BBR): path delay (SRTT per path) and protocol delay (Fig. 3), HoL blocking degree and
throughput (Fig. 4), each with LIA, OLIA, BALIA and wVegas as lines. Here one figure per
quantity, one panel per path CC. Within a panel all four lines come from the same seed, so
they saw the same capacity sequence and the same random losses (every random stream is a
function of the run seed and the component's name).

The representative seed of a path CC is the one whose four runs lie closest to their pairs'
means over all runs: it minimises Σ over the four MPTCP CCs and over the per-run metrics in
`TYPICAL` of ((x − mean) / std)², the moments taken over the pair's runs (lowest seed on a
tie; only seeds whose four runs all succeeded).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from mptlab.reproduce.seed001_table import MPTCP_CCS, PATH_CCS

#: Per-run metrics a representative run should be typical in.
TYPICAL = ("v_av", "zeta_av", "srtt1_av", "srtt2_av", "tput_av")

#: (file stem, series, entity suffix or None for the flow, y label)
FIGURES = (
    ("fig3_path_delay_path1", "srtt_ms", "/path0", "path 1 SRTT τ_1 (ms)"),
    ("fig3_path_delay_path2", "srtt_ms", "/path1", "path 2 SRTT τ_2 (ms)"),
    ("fig3_protocol_delay", "protocol_delay_ms", None, "protocol delay T_over (ms)"),
    ("fig4_hol_degree", "hol_degree_ms", None, "HoL blocking degree ζ (ms)"),
    ("fig4_throughput", "goodput_mbps", None, "throughput (goodput, Mbit/s)"),
)
SERIES = tuple(sorted({f[1] for f in FIGURES}))
HUE, FACET = "MPTCP CC", "path CC"


def representative_seeds(runs: pd.DataFrame) -> dict[str, int]:
    """Path CC -> its representative seed. `runs`: one row per ok run with mptcp_cc, path_cc,
    seed and the TYPICAL columns."""
    out: dict[str, int] = {}
    for path_cc, part in runs.groupby("path_cc", sort=False):
        z = pd.Series(0.0, index=part.index)
        for col in TYPICAL:
            by_pair = part.groupby("mptcp_cc")[col]
            std = by_pair.transform("std")
            dev = (part[col] - by_pair.transform("mean")) / std.where(std > 0)
            z = z + dev.pow(2).fillna(0.0)
        score = part.assign(_z=z).groupby("seed").agg(_z=("_z", "sum"), n=("mptcp_cc", "nunique"))
        complete = score[score["n"] == part["mptcp_cc"].nunique()]
        if complete.empty:
            continue
        best = complete["_z"].min()
        out[str(path_cc)] = int(min(s for s, v in complete["_z"].items() if np.isclose(v, best)))
    return out


def figure_frame(timeseries: pd.DataFrame, flow: str) -> pd.DataFrame:
    """The representative runs' time series (columns series, entity, t_s, value, mptcp_cc,
    path_cc, seed), with the hue and facet columns the figures use."""
    ts = timeseries[timeseries["entity"].astype(str).str.startswith(flow)].copy()
    ts[HUE] = ts["mptcp_cc"]
    ts[FACET] = [f"{p} (run {s})" for p, s in zip(ts["path_cc"], ts["seed"])]
    return ts


def draw_figures(frame: pd.DataFrame, flow: str, out: Path,
                 on_error: Callable[[str, Exception], None] | None = None) -> list[Path]:
    """Write FIGURES as out/<stem>.png and .svg; return the paths written."""
    from mptlab.figures import draw, publication_style, save

    hue_order = [c for c in MPTCP_CCS.values() if c in set(frame[HUE])]
    facet_order = sorted(set(frame[FACET]), key=lambda f: list(PATH_CCS.values()).index(f.split(" (")[0]))
    written: list[Path] = []
    for stem, series, suffix, ylabel in FIGURES:
        entity = flow + (suffix or "")
        part = frame[(frame["series"] == series) & (frame["entity"] == entity)]
        if part.empty:
            continue
        try:
            with publication_style():
                fig = draw("timeseries", part, y=series, hue=HUE, facet=FACET, cols=1,
                           hue_order=hue_order, facet_order=facet_order, ylabel=ylabel,
                           width="single", height=1.7 * len(facet_order), band="none")
                written += save(fig, out / stem)
        except ValueError as e:
            if on_error is None:
                raise
            on_error(stem, e)
    return written
