"""The default figures of a sweep report, and writing a set of them.

standard_figures(data, params) returns (stem, figure) pairs, in this order, skipping any whose
data is missing:

1. goodput_bar           mean goodput_mbps per run by the first parameter (hue: the second)
2. goodput_distribution  interval goodput samples (time series goodput_mbps) by the first
                         parameter (hue: the second, else the flow group when there are several)
3. goodput_timeseries    goodput over time per flow, one panel per value of the first parameter
                         (one run each: the lowest sweep point with that value, lowest seed)
4. owd_cdf               CDF of the flows' mean one-way delay (hue: the first parameter)
5. goodput_heatmap       goodput_mbps over the first two parameters (a regular grid), or
   goodput_contour       when both are numeric and the points do not fill a grid (random axes)
6. jain_bar              Jain's index by the first parameter (hue: the second)
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from mptlab.figures.api import draw
from mptlab.figures.labels import natural_sorted
from mptlab.figures.style import save

#: At most this many hue groups; a parameter with more values is not used as hue.
MAX_HUE = 8
#: At most this many time-series panels (evenly spaced values of the first parameter).
MAX_PANELS = 9


def standard_figures(data: Any, params: Sequence[str] | None = None) -> list[tuple[str, Figure]]:
    """The default figure set for a sweep. `data` has DataFrame attributes runs, flows, links and
    timeseries (any may be None or missing) and params; `params` overrides `data.params`."""
    params = list(params if params is not None else getattr(data, "params", None) or [])
    runs = _frame(data, "runs")
    flows = _frame(data, "flows")
    ts = _frame(data, "timeseries")
    runs = _ok(runs)
    p0 = params[0] if params and runs is not None and params[0] in runs.columns else None
    p1 = params[1] if len(params) > 1 and runs is not None and params[1] in runs.columns else None
    out: list[tuple[str, Figure]] = []

    def add(stem: str, *args: Any, **kwargs: Any) -> None:
        out.append((stem, draw(*args, **kwargs)))

    if _has(runs, "goodput_mbps"):
        add("goodput_bar", "bar", runs, x=p0, y="goodput_mbps", hue=_hue(runs, p1))
    goodput = _series(ts, "goodput_mbps")
    if goodput is not None and (p0 is None or p0 in goodput.columns):
        hue = _hue(goodput, p1 if p1 in goodput.columns else None)
        if hue is None:
            goodput = _with_group(goodput, flows)
            hue = "group" if goodput["group"].nunique() > 1 else None
        add("goodput_distribution", "distribution", goodput, x=p0, y="goodput_mbps", hue=hue)
    if goodput is not None:
        one = _one_run_per_value(goodput, p0)
        add("goodput_timeseries", "timeseries", one, y="goodput_mbps", hue="entity",
            facet=p0 if p0 in one.columns else None)
    if _has(flows, "owd_ms"):
        owd = flows[flows["owd_ms"].notna()]
        add("owd_cdf", "cdf", owd, y="owd_ms", hue=_hue(owd, p0))
    if p0 and p1 and _has(runs, "goodput_mbps"):
        if _random_axes(runs, p0, p1):
            add("goodput_contour", "contour", runs, x=p0, y=p1, z="goodput_mbps")
        else:
            add("goodput_heatmap", "heatmap", runs, x=p0, y=p1, z="goodput_mbps")
    if _has(runs, "jain"):
        add("jain_bar", "bar", runs, x=p0, y="jain", hue=_hue(runs, p1))
    return out


def save_all(figures: Sequence[tuple[str, Figure]], out: str | os.PathLike[str]) -> list[Path]:
    """Write every (stem, figure) as out/stem.png and out/stem.svg; return the paths."""
    paths: list[Path] = []
    for stem, fig in figures:
        paths += save(fig, Path(out) / stem)
    return paths


def _frame(data: Any, name: str) -> pd.DataFrame | None:
    frame = getattr(data, name, None)
    if frame is None or not isinstance(frame, pd.DataFrame) or frame.empty:
        return None
    return frame


def _ok(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    if frame is not None and "status" in frame.columns:
        frame = frame[frame["status"].astype(str) == "ok"]
    return None if frame is None or frame.empty else frame


def _has(frame: pd.DataFrame | None, column: str) -> bool:
    return frame is not None and column in frame.columns and bool(frame[column].notna().any())


def _hue(frame: pd.DataFrame, column: str | None) -> str | None:
    if column is None or column not in frame.columns:
        return None
    return column if frame[column].nunique() <= MAX_HUE else None


def _series(ts: pd.DataFrame | None, name: str) -> pd.DataFrame | None:
    if ts is None or "series" not in ts.columns:
        return None
    part = ts[ts["series"] == name]
    if part.empty or not part["value"].notna().any():
        return None
    return part.drop(columns=["series"]).rename(columns={"value": name})


def _with_group(samples: pd.DataFrame, flows: pd.DataFrame | None) -> pd.DataFrame:
    """Add each sample's flow group: from the flows table, else the entity without '#<n>'."""
    mapping: dict[Any, Any] = {}
    if flows is not None and {"flow", "group"} <= set(flows.columns):
        mapping = dict(zip(flows["flow"], flows["group"]))
    groups = samples["entity"].map(mapping)
    fallback = samples["entity"].astype(str).map(lambda e: re.sub(r"#\d+$", "", e))
    return samples.assign(group=groups.fillna(fallback))


def _one_run_per_value(samples: pd.DataFrame, param: str | None) -> pd.DataFrame:
    """Rows of one run per value of `param` (the lowest sweep point with it, then the lowest
    seed); at most MAX_PANELS values, evenly spaced in natural order."""
    sort_cols = [c for c in ("point", "seed", "run_key") if c in samples.columns]
    runs = samples.drop_duplicates("run_key") if "run_key" in samples.columns else samples.head(1)
    runs = runs.sort_values(sort_cols) if sort_cols else runs
    if param is None or param not in runs.columns:
        chosen = runs.head(1)
    else:
        chosen = runs.groupby(param, sort=False).head(1)
        values = natural_sorted(chosen[param].unique())
        if len(values) > MAX_PANELS:
            keep = [values[i] for i in np.linspace(0, len(values) - 1, MAX_PANELS).round().astype(int)]
            chosen = chosen[chosen[param].isin(keep)]
    if "run_key" not in samples.columns:
        return samples
    return samples[samples["run_key"].isin(chosen["run_key"])]


def _random_axes(runs: pd.DataFrame, p0: str, p1: str) -> bool:
    """Both axes numeric and the sampled points do not fill the grid of their values."""
    a = pd.to_numeric(runs[p0], errors="coerce")
    b = pd.to_numeric(runs[p1], errors="coerce")
    if a.isna().any() or b.isna().any():
        return False
    pairs = len(set(zip(a, b)))
    return pairs < a.nunique() * b.nunique() and pairs >= 3
