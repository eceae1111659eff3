"""Distributions of a value grouped by x (and hue, and facet), as in seed 000's figures of
interval throughput and jitter per protocol and link.

style "box+violin" (default): a light violin (kernel density) with a narrow box on top (median,
quartiles, whiskers to 1.5 IQR, outliers as small dots); "box" or "violin" alone; "hist": one
step histogram per (x, hue) group on shared bins, as a probability density.
Works on any rows: interval samples of a time series, flows, links or runs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from mptlab.figures import layout, style
from mptlab.figures.labels import format_value, short_label
from mptlab.figures.spec import Option, Spec, boolean, choice, positive_int

OPTIONS = {
    "style": Option("box+violin", choice("box+violin", "box", "violin", "hist"), "how to draw each group"),
    "bins": Option(30, positive_int, "histogram bins (style hist)"),
    "fliers": Option(True, boolean, "draw outliers beyond the whiskers (box styles)"),
}


def draw(spec: Spec) -> Figure:
    if spec.opts["style"] == "hist":
        return _draw_hist(spec)
    return _draw_boxes(spec)


def _draw_boxes(spec: Spec) -> Figure:
    kind = spec.opts["style"]
    x_values = spec.x_order if spec.x else [None]
    hues = spec.hue_order if spec.hue else [None]
    offsets, slot = layout.dodge(len(hues))
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True, wide=len(x_values) * len(hues) > 8)
    for _, ax, part in panel_list:
        for i, xv in enumerate(x_values):
            for j, hv in enumerate(hues):
                v = _values(part, spec, xv, hv)
                if v.size == 0:
                    continue
                pos = i + offsets[j]
                colour = style.color(j if spec.hue else 0)
                if kind in ("box+violin", "violin") and v.size >= 2 and np.ptp(v) > 0:
                    body = ax.violinplot([v], positions=[pos], widths=slot * 0.9, showextrema=False)
                    for b in body["bodies"]:
                        b.set_facecolor(colour)
                        b.set_edgecolor("none")
                        b.set_alpha(0.35 if kind == "box+violin" else 0.7)
                        b.set_gid("violin")
                if kind in ("box+violin", "box"):
                    width = slot * (0.3 if kind == "box+violin" else 0.7)
                    bp = ax.boxplot(
                        [v], positions=[pos], widths=width, patch_artist=True, showfliers=spec.opts["fliers"],
                        manage_ticks=False,
                        boxprops={"facecolor": colour, "edgecolor": "black", "linewidth": 0.6},
                        medianprops={"color": "white", "linewidth": 1.0},
                        whiskerprops={"linewidth": 0.6}, capprops={"linewidth": 0.6},
                        flierprops={"marker": ".", "markersize": 2, "markerfacecolor": colour,
                                    "markeredgecolor": "none", "alpha": 0.6},
                    )
                    for b in bp["boxes"]:
                        b.set_gid("box")
        layout.group_axis(ax, bool(spec.x), x_values)
    layout.axis_labels(spec, panel_list, spec.x, spec.y)
    layout.large_values(panel_list[0][1], spec.frame[spec.y])
    if spec.hue:
        handles = [Patch(facecolor=style.color(j), edgecolor="black", linewidth=0.6) for j in range(len(hues))]
        layout.hue_legend(fig, spec, handles, [format_value(h) for h in hues])
    return fig


def _draw_hist(spec: Spec) -> Figure:
    if spec.x and not spec.facet:
        # Overlaid histograms of every (x, hue) pair are unreadable: one panel per x value.
        spec = replace(spec, facet=spec.x, facet_order=spec.x_order, x=None, x_order=[])
    x_values = spec.x_order if spec.x else [None]
    hues = spec.hue_order if spec.hue else [None]
    combos = [(xv, hv) for xv in x_values for hv in hues]
    all_v = spec.frame[spec.y].to_numpy(dtype=float)
    all_v = all_v[np.isfinite(all_v)]
    bins = np.histogram_bin_edges(all_v, bins=spec.opts["bins"])
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True)
    drawn: dict[int, Any] = {}
    for _, ax, part in panel_list:
        for k, (xv, hv) in enumerate(combos):
            v = _values(part, spec, xv, hv)
            if v.size == 0:
                continue
            colour = style.color(k)
            ax.hist(v, bins=bins, density=True, histtype="stepfilled", color=colour, alpha=0.25,
                    linewidth=0)
            _, _, patches = ax.hist(v, bins=bins, density=True, histtype="step", color=colour, linewidth=1.0)
            drawn.setdefault(k, patches[0])
        layout.value_grid(ax, "y")
    layout.axis_labels(spec, panel_list, spec.y, None)
    layout.large_values(panel_list[0][1], spec.frame[spec.y], axis="x")
    for _, ax, _ in panel_list:
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel(spec.opts.get("ylabel") or "density")
    names = [", ".join(format_value(v) for v in c if v is not None) for c in combos]
    keys = sorted(drawn)
    columns = [c for c in (spec.x, spec.hue) if c]
    title = ", ".join(short_label(c) for c in columns) or None
    handles = [Patch(facecolor=style.color(k), alpha=0.5, edgecolor=style.color(k)) for k in keys]
    layout.hue_legend(fig, spec, handles, [names[k] for k in keys], title=title)
    return fig


def _values(part: Any, spec: Spec, xv: Any, hv: Any) -> np.ndarray:
    rows = part
    if spec.x is not None:
        rows = rows[rows[spec.x] == xv]
    if spec.hue is not None:
        rows = rows[rows[spec.hue] == hv]
    v = rows[spec.y].to_numpy(dtype=float)
    return v[np.isfinite(v)]
