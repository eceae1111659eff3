"""Bar chart of the mean over seeds, grouped by x with hue bars side by side.

Each seed counts once: rows of the same (x, hue, facet, seed) are averaged first (a flows table
gives the mean over a run's flows), then the bar is the mean over seeds with an error bar:
"ci95" (default) the 95 % confidence interval of the mean, t_{0.975,n−1}·s/√n, drawn only with
two or more seeds; "std" the sample standard deviation; "none".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mptlab.figures import layout, style
from mptlab.figures.labels import format_value
from mptlab.figures.spec import Option, Spec, choice
from mptlab.figures.stats import mean_and_error

OPTIONS = {
    "error": Option("ci95", choice("ci95", "std", "none"), "error bars: 95% CI (t), std, or none"),
}


def summarize(rows: pd.DataFrame, y: str, error: str) -> tuple[float, float, int]:
    """(mean over seeds, error half-width, number of seeds) of `rows`."""
    if "seed" in rows.columns:
        per_seed = rows.groupby("seed", sort=True)[y].mean().to_numpy(dtype=float)
    else:
        per_seed = rows[y].to_numpy(dtype=float)
    return mean_and_error(per_seed, error)


def draw(spec: Spec) -> Figure:
    x_values = spec.x_order if spec.x else [None]
    hues = spec.hue_order if spec.hue else [None]
    offsets, slot = layout.dodge(len(hues))
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True, wide=len(x_values) * len(hues) > 10)
    error = spec.opts["error"]
    for _, ax, part in panel_list:
        for j, hv in enumerate(hues):
            pos, heights, errs = [], [], []
            for i, xv in enumerate(x_values):
                rows = part
                if spec.x is not None:
                    rows = rows[rows[spec.x] == xv]
                if spec.hue is not None:
                    rows = rows[rows[spec.hue] == hv]
                mean, err, n = summarize(rows, spec.y, error)
                if n == 0:
                    continue
                pos.append(i + offsets[j])
                heights.append(mean)
                errs.append(err)
            if not pos:
                continue
            yerr = np.asarray(errs, dtype=float)
            has_err = bool(np.isfinite(yerr).any())
            ax.bar(pos, heights, width=slot * 0.9, color=style.color(j), edgecolor="black", linewidth=0.5,
                   yerr=np.nan_to_num(yerr, nan=0.0) if has_err else None,
                   error_kw={"elinewidth": 0.8, "capsize": 2, "capthick": 0.8, "ecolor": "black"},
                   label=format_value(hv) if hv is not None else None)
        layout.group_axis(ax, bool(spec.x), x_values)
        if spec.y == "jain":
            ax.set_ylim(0, 1.05)
    layout.axis_labels(spec, panel_list, spec.x, spec.y)
    layout.large_values(panel_list[0][1], spec.frame[spec.y])
    if spec.hue:
        handles: list[Any] = [Patch(facecolor=style.color(j), edgecolor="black", linewidth=0.5) for j in range(len(hues))]
        layout.hue_legend(fig, spec, handles, [format_value(h) for h in hues])
    return fig
