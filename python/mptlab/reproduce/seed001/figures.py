"""Seed 001, Figs. 3-4: one representative run per path CC, the four MPTCP CCs as lines.

The paper shows "the results of one representative run" (§3) per path CC (rows: Reno, Cubic,
BBR): path delay (SRTT per path) and protocol delay (Fig. 3), HoL blocking degree and
throughput (Fig. 4), each with LIA, OLIA, BALIA and wVegas as lines. Here in the same shape:
fig3 and fig4, 3 rows (Reno, Cubic, BBR) × 2 columns (fig3: SRTT of both paths, path 1 solid
and path 2 dashed, and T_over(k); fig4: ζ(k) and goodput). Within a panel all four lines come from the same seed, so
they saw the same capacity sequence and the same random losses (every random stream is a
function of the run seed and the component's name).

The representative seed of a path CC is the one whose four runs lie closest to their pairs'
means over all runs: it minimises Σ over the four MPTCP CCs and over the per-run metrics in
`TYPICAL` of ((x − mean) / std)², the moments taken over the pair's runs (lowest seed on a
tie; only seeds whose four runs all succeeded).

`figtext_comparison` measures on the same runs the values the paper's text reads off the
figures (reference/seed001_figtext.csv); each row states the definition used.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from mptlab.reproduce.seed001.table import MPTCP_CCS, PATH_CCS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Per-run metrics a representative run should be typical in.
TYPICAL = ("v_av", "zeta_av", "srtt1_av", "srtt2_av", "tput_av")

#: Series the figures use (what study._figures fetches from the store).
SERIES = ("goodput_mbps", "hol_degree_ms", "protocol_delay_ms", "srtt_ms")
HUE, FACET = "MPTCP CC", "path CC"
#: (file stem, left column, right column); a column is (title, [(series, entity suffix,
#: line style, legend suffix)], y label). Rows are the path CCs (Reno, Cubic, BBR).
FIGURES = (
    ("fig3",
     ("path delay", [("srtt_ms", "/path0", "-", "path 1"), ("srtt_ms", "/path1", "--", "path 2")],
      "SRTT τ_i (ms)"),
     ("protocol delay", [("protocol_delay_ms", "", "-", "")], "T_over(k) (ms)")),
    ("fig4",
     ("HoL blocking degree", [("hol_degree_ms", "", "-", "")], "ζ(k) (ms)"),
     ("throughput", [("goodput_mbps", "", "-", "")], "goodput (Mbit/s)")),
)


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
    """Write Fig. 3 and Fig. 4 as out/fig3.png, .svg and out/fig4.png, .svg, each 3 rows (path
    CC) × 2 columns with the MPTCP CCs as lines; return the paths written."""
    from mptlab.figures import publication_style, save

    written: list[Path] = []
    for stem, left, right in FIGURES:
        try:
            with publication_style():
                fig = _grid(frame, flow, (left, right))
                written += save(fig, out / stem)
        except ValueError as e:
            if on_error is None:
                raise
            on_error(stem, e)
    return written


def _grid(frame: pd.DataFrame, flow: str, columns: tuple) -> Figure:
    """One figure: a row per path CC, a column per quantity (y shared within a column)."""
    from matplotlib.lines import Line2D

    from mptlab.figures import layout, style
    from mptlab.figures.timeseries import INTERVAL_SERIES

    present = set(frame["path_cc"]) if not frame.empty else set()
    rows = [p for p in PATH_CCS.values() if p in present]
    if not rows:
        raise ValueError("frame: no time series of a representative run")
    hue_order = [c for c in MPTCP_CCS.values() if c in set(frame[HUE])]
    fig = style.new_figure(style.DOUBLE_COLUMN_IN, 1.6 * len(rows) + 0.5)
    axes = fig.subplots(len(rows), 2, squeeze=False, sharex=True, sharey="col")
    for i, path_cc in enumerate(rows):
        part = frame[frame["path_cc"] == path_cc]
        seed = int(part["seed"].iloc[0])
        for c, (title, lines, ylabel) in enumerate(columns):
            ax = axes[i][c]
            for j, cc in enumerate(hue_order):
                for series, suffix, ls, _ in lines:
                    r = part[(part[HUE] == cc) & (part["series"] == series)
                             & (part["entity"] == flow + suffix)].sort_values("t_s")
                    if r.empty:
                        continue
                    t, v = r["t_s"].to_numpy(float), r["value"].to_numpy(float)
                    steps = series in INTERVAL_SERIES
                    if steps and len(t) > 1:  # draw the last interval bin too
                        t, v = np.append(t, t[-1] + float(np.median(np.diff(t)))), np.append(v, v[-1])
                    ax.plot(t, v, color=style.color(j), linestyle=ls, linewidth=0.8,
                            drawstyle="steps-post" if steps else "default")
            ax.set_title(f"({'abcdef'[2 * i + c]}) {path_cc} (run {seed}): {title}")
            ax.set_ylabel(ylabel)
            layout.value_grid(ax, "y")
            if i == len(rows) - 1:
                ax.set_xlabel("time (s)")
    handles = [Line2D([], [], color=style.color(j)) for j in range(len(hue_order))]
    labels = list(hue_order)
    styles = {(ls, name) for _, lines, _ in columns for _, _, ls, name in lines if name}
    for ls, name in sorted(styles, key=lambda s: s[1]):
        handles.append(Line2D([], [], color="0.3", linestyle=ls))
        labels.append(name)
    fig.legend(handles, labels, loc="outside upper center", ncols=len(labels))
    return fig


# --- the values the paper's text reads off Figs. 3-4 (reference/seed001_figtext.csv) ----------

#: (metric, statistic) -> (series, entity suffix, how the lines are reduced, definition).
#: Reductions: "median_half_p2p" median over the lines of (max − min)/2; "max_half_p2p" the
#: largest (max − min)/2; "median_p95", "median_p5", "median_max" the median over the lines of
#: each line's 95th percentile, 5th percentile or maximum; "mean" the mean of the lines' means;
#: "max" the largest sample of all lines; "pooled_p5"/"pooled_p95" percentiles of all samples.
FIGTEXT_MEASURES: dict[tuple[str, str], tuple[str, str, str, str]] = {
    ("srtt_fluctuation_first_lte", "approx_plus_minus"): (
        "srtt_ms", "/path0", "median_half_p2p", "median over the lines of half the peak-to-peak (max − min)/2 of path-1 SRTT τ_1(k)"),
    ("srtt_fluctuation_second_lte", "max_plus_minus"): (
        "srtt_ms", "/path1", "max_half_p2p", "largest over the lines of (max − min)/2 of path-2 SRTT τ_2(k)"),
    ("protocol_delay", "approx_max"): (
        "protocol_delay_ms", "", "median_p95", "median over the lines of each line's 95th percentile of T_over(k) (the level the maxima hover at)"),
    ("protocol_delay", "occasional_peak"): (
        "protocol_delay_ms", "", "median_max", "median over the lines of each line's maximum of T_over(k)"),
    ("protocol_delay", "approx_min"): (
        "protocol_delay_ms", "", "median_p5", "median over the lines of each line's 5th percentile of T_over(k) (the level the minima settle at)"),
    ("protocol_delay", "approx_mean"): (
        "protocol_delay_ms", "", "mean", "mean over the lines of each line's mean T_over(k)"),
    ("protocol_delay", "single_peak"): (
        "protocol_delay_ms", "", "max", "largest T_over(k) of the lines"),
    ("hol_degree", "peak"): (
        "hol_degree_ms", "", "max", "largest ζ(k) of the line"),
    ("hol_degree", "fluctuation_band_low"): (
        "hol_degree_ms", "", "pooled_p5", "5th percentile of ζ(k) over all samples of the lines"),
    ("hol_degree", "fluctuation_band_high"): (
        "hol_degree_ms", "", "pooled_p95", "95th percentile of ζ(k) over all samples of the lines"),
}
#: (metric, statistic) measured on all runs rather than on the representative run.
FIGTEXT_RUNS: dict[tuple[str, str], str] = {
    ("hol_degree", "other_runs_factor_min"): "smallest over the pairs of (largest per-run max ζ(k) of the pair's other runs) / (max ζ(k) of the depicted run)",
    ("hol_degree", "other_runs_factor_max"): "largest over the pairs of (largest per-run max ζ(k) of the pair's other runs) / (max ζ(k) of the depicted run)",
    ("hol_degree", "approx_average"): "mean over the pairs of ζ_av (eq. 10: mean over all runs of the per-run mean ζ(k))",
}
FIGTEXT_COLUMNS = ("section", "figure", "pairs", "quoted", "measured", "lines", "unit", "definition")


def _names(text: str, known: dict[str, str]) -> list[str]:
    text = str(text).strip()
    if text.lower() == "all" or text.lower().startswith("all "):
        return list(known.values())
    return [t.strip() for t in text.split(";") if t.strip()]


def _pairs(mptcp: str, path: str) -> list[tuple[str, str]]:
    """The (MPTCP CC, path CC) pairs a figtext row names: `a;b` × `c;d` is read as the two pairs
    a/c and b/d (as the paper's sentences pair them), anything else as all combinations;
    "all except A-B and C-D" is every pair but those."""
    ms, ps = _names(mptcp, MPTCP_CCS), _names(path, PATH_CCS)
    if ";" in str(mptcp) and ";" in str(path) and len(ms) == len(ps):
        return list(zip(ms, ps))
    out = [(m, p) for m in ms for p in ps]
    if str(mptcp).lower().startswith("all except"):
        import re

        skip = set(re.findall(r"(\w+)-(\w+)", str(mptcp)))
        out = [pp for pp in out if pp not in skip]
    return out


def _lines(frame: pd.DataFrame, flow: str, series: str, suffix: str,
           pairs: list[tuple[str, str]]) -> list[np.ndarray]:
    out = []
    for m, p in pairs:
        r = frame[(frame["mptcp_cc"] == m) & (frame["path_cc"] == p) & (frame["series"] == series)
                  & (frame["entity"] == flow + suffix)]["value"].to_numpy(float)
        r = r[np.isfinite(r)]
        if r.size:
            out.append(r)
    return out


def _reduce(how: str, lines: list[np.ndarray]) -> float:
    if not lines:
        return float("nan")
    pooled = np.concatenate(lines)
    per_line = {
        "median_half_p2p": lambda v: (v.max() - v.min()) / 2,
        "max_half_p2p": lambda v: (v.max() - v.min()) / 2,
        "median_p95": lambda v: np.percentile(v, 95),
        "median_p5": lambda v: np.percentile(v, 5),
        "median_max": np.max,
        "mean": np.mean,
    }
    if how == "max":
        return float(pooled.max())
    if how in ("pooled_p5", "pooled_p95"):
        return float(np.percentile(pooled, 5 if how == "pooled_p5" else 95))
    vals = np.array([per_line[how](v) for v in lines], dtype=float)
    if how == "max_half_p2p":
        return float(vals.max())
    if how == "mean":
        return float(vals.mean())
    return float(np.median(vals))


def _from_runs(key: tuple[str, str], pairs: list[tuple[str, str]], runs: pd.DataFrame | None,
               seeds: dict[str, int]) -> tuple[float, int]:
    if runs is None or runs.empty:
        return float("nan"), 0
    if key[1] == "approx_average":
        means = [runs[(runs["mptcp_cc"] == m) & (runs["path_cc"] == p)]["zeta_av"].mean() for m, p in pairs]
        means = [v for v in means if np.isfinite(v)]
        return (float(np.mean(means)) if means else float("nan")), len(means)
    factors = []
    for m, p in pairs:
        pr = runs[(runs["mptcp_cc"] == m) & (runs["path_cc"] == p)]
        shown = pr[pr["seed"] == seeds.get(p)]["zeta_max"]
        other = pr[pr["seed"] != seeds.get(p)]["zeta_max"].dropna()
        if len(shown) and float(shown.iloc[0]) > 0 and len(other):
            factors.append(float(other.max()) / float(shown.iloc[0]))
    if not factors:
        return float("nan"), 0
    return (min(factors) if key[1].endswith("_min") else max(factors)), len(factors)


def figtext_comparison(reference: pd.DataFrame, frame: pd.DataFrame | None, flow: str,
                       runs: pd.DataFrame | None = None, seeds: dict[str, int] | None = None) -> pd.DataFrame:
    """One row per line of `reference` (seed001_figtext.csv): the quoted value, the value
    measured on the representative runs' time series `frame` (or on all `runs`, for the rows in
    FIGTEXT_RUNS), how many lines (or pairs) it was taken over, and the definition used.
    NaN where the data are missing or the row's statistic is unknown."""
    rows = []
    for r in reference.itertuples(index=False):
        key = (str(r.metric), str(r.statistic))
        pairs = _pairs(r.mptcp_cc, r.path_cc)
        if key in FIGTEXT_RUNS:
            measured, n = _from_runs(key, pairs, runs, seeds or {})
            definition = FIGTEXT_RUNS[key]
        elif key in FIGTEXT_MEASURES:
            series, suffix, how, definition = FIGTEXT_MEASURES[key]
            lines = [] if frame is None else _lines(frame, flow, series, suffix, pairs)
            measured, n = _reduce(how, lines), len(lines)
        else:
            measured, n, definition = float("nan"), 0, "not measured: unknown statistic"
        quoted = f"±{r.value:g}" if "plus_minus" in key[1] else f"{r.value:g}"
        rows.append({
            "section": r.section, "figure": r.figure,
            "pairs": f"{r.mptcp_cc} / {r.path_cc}",
            "quoted": f"{key[0]} {key[1]}: {quoted}",
            "measured": measured, "lines": n, "unit": r.unit, "definition": definition,
        })
    return pd.DataFrame(rows, columns=list(FIGTEXT_COLUMNS))
