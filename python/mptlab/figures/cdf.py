"""Empirical CDF of a value per hue group (seed 004's delay CDFs), one panel per facet value.

All rows of a group are pooled (every seed, every flow). The curve is the right-continuous
step function F(v) = (number of samples ≤ v) / n.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mptlab.figures import layout, style
from mptlab.figures.labels import format_value
from mptlab.figures.spec import Option, Spec, boolean

OPTIONS = {
    "log": Option(False, boolean, "logarithmic value axis"),
}


def ecdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted values, F at each) of the finite values."""
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    return v, np.arange(1, v.size + 1) / max(v.size, 1)


def draw(spec: Spec) -> Figure:
    hues = spec.hue_order if spec.hue else [None]
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True)
    for _, ax, part in panel_list:
        for j, hv in enumerate(hues):
            rows = part if spec.hue is None else part[part[spec.hue] == hv]
            v, f = ecdf(rows[spec.y].to_numpy(dtype=float))
            if v.size == 0:
                continue
            # Start the curve at F = 0 just left of the smallest sample.
            ax.step(np.r_[v[0], v], np.r_[0.0, f], where="post", color=style.color(j),
                    linestyle=style.linestyle(j), label=format_value(hv) if hv is not None else None)
        ax.set_ylim(0, 1.02)
        if spec.opts["log"]:
            ax.set_xscale("log")
        ax.grid(True, axis="both")
    layout.axis_labels(spec, panel_list, spec.y, None)
    if not spec.opts["log"]:
        layout.large_values(panel_list[0][1], spec.frame[spec.y], axis="x")
    for _, ax, _ in panel_list:
        if ax.get_ylabel() == "" and ax.get_subplotspec().is_first_col():
            ax.set_ylabel("CDF")
    if spec.hue:
        handles = [Line2D([], [], color=style.color(j), linestyle=style.linestyle(j)) for j in range(len(hues))]
        layout.hue_legend(fig, spec, handles, [format_value(h) for h in hues])
    return fig
