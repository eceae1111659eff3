"""Panels, legends and category axes shared by the figure kinds.

A figure is one panel, or one panel per facet value in natural order, `cols` per row (at most
3 by default) with shared axes. Hue legends go above the panels, outside them, in as many columns
as fit. Category tick labels turn 30° when they would not fit side by side.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.legend_handler import HandlerBase
from matplotlib.ticker import EngFormatter

from mptlab.figures import style
from mptlab.figures.labels import format_value, label, short_label
from mptlab.figures.spec import Spec

#: Facet panels per row when `cols` is not given.
DEFAULT_COLS = 3
#: Height of one legend row, in inches (7-pt text plus spacing).
LEGEND_ROW_IN = 0.16
#: Average width of a 7-pt character in inches (DejaVu Sans), for fitting labels.
CHAR_IN = 0.055


def panels(
    spec: Spec, *, sharex: bool = True, sharey: bool = True, height: float | None = None,
    wide: bool = False,
) -> tuple[Figure, list[tuple[Any, Axes, pd.DataFrame]]]:
    """The figure and its panels: (facet value or None, axes, rows for that panel)."""
    values: list[Any] = spec.facet_order if spec.facet else [None]
    n = len(values)
    cols = min(spec.opts.get("cols") or DEFAULT_COLS, n)
    rows = math.ceil(n / cols)
    w = style.width_in(spec.opts.get("width"), cols if not wide else 2)
    h = spec.opts.get("height") or (height or style.PANEL_HEIGHT_IN) * rows + (0.25 if spec.facet else 0.0)
    fig = style.new_figure(w, h)
    axes = fig.subplots(rows, cols, squeeze=False, sharex=sharex, sharey=sharey)
    out = []
    for i, value in enumerate(values):
        ax = axes[i // cols][i % cols]
        part = spec.frame if spec.facet is None else spec.frame[spec.frame[spec.facet] == value]
        if spec.facet is not None:
            ax.set_title(f"{short_label(spec.facet)} = {format_value(value)}")
        out.append((value, ax, part))
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    if spec.title:
        fig.suptitle(spec.title)
    return fig, out


def axis_labels(spec: Spec, panel_list: Sequence[tuple[Any, Axes, pd.DataFrame]], xcol: str | None,
                ycol: str | None) -> None:
    """Label x on the lowest panel of each column and y on the first column only."""
    overrides = spec.label_overrides()
    xl = spec.opts.get("xlabel") or (label(xcol, overrides) if xcol else "")
    yl = spec.opts.get("ylabel") or (label(ycol, overrides) if ycol else "")
    n = len(panel_list)
    for i, (_, ax, _) in enumerate(panel_list):
        ss = ax.get_subplotspec()
        cols = ss.get_gridspec().ncols
        if i + cols >= n:  # nothing below this panel
            ax.set_xlabel(xl)
            ax.xaxis.set_tick_params(labelbottom=True)
        if ss.is_first_col():
            ax.set_ylabel(yl)


def hue_legend(fig: Figure, spec: Spec, handles: list[Any], labels: list[str], title: str | None = None) -> None:
    """Legend for the hue groups above the panels, in as many columns as fit; on one row the
    title (default: the hue column's name) goes in front of the entries."""
    if not handles or not spec.opts.get("legend", True):
        return
    title = title or (short_label(spec.hue) if spec.hue else None)
    if title is None and len(handles) <= 1:
        return
    usable = fig.get_figwidth() - 0.2
    per_entry = (max(len(t) for t in labels) + 5) * CHAR_IN
    title_w = (len(title) + 2) * CHAR_IN if title else 0.0
    if title and title_w + per_entry * len(labels) <= usable:
        fig.legend([_Blank(), *handles], [f"{title}:", *labels], loc="outside upper center",
                   ncols=len(labels) + 1, handletextpad=0.4)
        return
    ncols = max(1, min(len(labels), int(usable // per_entry)))
    rows = math.ceil(len(labels) / ncols)
    # Grow the figure by the legend's extra rows so that the panels keep their height.
    fig.set_figheight(fig.get_figheight() + LEGEND_ROW_IN * (rows - 1 + (1 if title else 0)))
    fig.legend(handles, labels, loc="outside upper center", ncols=ncols, title=title)


class _Blank:
    """A legend handle that draws nothing (room for the inline legend title)."""


class _BlankHandler(HandlerBase):
    def create_artists(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []

    def legend_artist(self, legend: Any, orig_handle: Any, fontsize: float, handlebox: Any) -> Any:
        handlebox.set_width(0)
        return None


Legend.update_default_handler_map({_Blank: _BlankHandler()})


def group_axis(ax: Axes, grouped: bool, values: Sequence[Any]) -> None:
    """The x axis of a grouped chart (bars, boxes): one tick per group, or a single unnamed
    slot when nothing is grouped; horizontal value grid lines."""
    if grouped:
        category_axis(ax, values)
    else:
        ax.set_xticks([])
        ax.set_xlim(-0.6, 0.6)
    value_grid(ax, "y")


def category_axis(ax: Axes, values: Sequence[Any], *, axis: str = "x") -> None:
    """Ticks at 0..n-1 labelled with the category values; rotated when crowded."""
    texts = [format_value(v) for v in values]
    positions = list(range(len(values)))
    if axis == "x":
        ax.set_xticks(positions, texts)
        ax.set_xlim(-0.6, len(values) - 0.4)
        width = ax.get_position().width * ax.figure.get_figwidth()
        needed = sum(len(t) + 2 for t in texts) * CHAR_IN
        if needed > width:
            ax.tick_params(axis="x", labelrotation=30)
            for t in ax.get_xticklabels():
                t.set_horizontalalignment("right")
                t.set_rotation_mode("anchor")
        ax.tick_params(axis="x", length=0)
    else:
        ax.set_yticks(positions, texts)
        ax.set_ylim(-0.6, len(values) - 0.4)


def value_grid(ax: Axes, axis: str = "y") -> None:
    ax.grid(True, axis=axis)


def large_values(ax: Axes, values: Any, axis: str = "y") -> None:
    """Ticks like 200k and 1.2M instead of a "1e6" offset above the axis, for values ≥ 10⁴."""
    import numpy as np

    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size and np.abs(v).max() >= 1e4:
        target = ax.yaxis if axis == "y" else ax.xaxis
        target.set_major_formatter(EngFormatter(sep=""))


def dodge(n_hue: int, total: float = 0.8) -> tuple[list[float], float]:
    """Offsets of `n_hue` side-by-side elements within one category slot, and their width."""
    w = total / max(n_hue, 1)
    return [(j - (n_hue - 1) / 2) * w for j in range(n_hue)], w
