"""Maps of a metric over two swept axes (seed 003's RTT × tunnel-share maps).

heatmap: a regular grid of categories (any values, natural order): one cell per (x, y) pair
coloured by z, the mean over seeds; optional value annotations and marked contour level(s)
drawn through the cell centres. Missing cells are light grey.
contour: irregular numeric points (random axes): filled contours of the per-point mean of z,
triangulated (matplotlib `tricontourf`), with the sample points as dots and marked level(s).
Both share one colour scale across facet panels and draw a colour bar labelled with z.
"""

from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from mptlab.figures import layout
from mptlab.figures.labels import label
from mptlab.figures.spec import Option, Spec, boolean, boolean_or_none, fail, number_or_none, numbers, positive_int
from mptlab.figures.style import SEQUENTIAL_CMAP

#: Annotate heat-map cells by default up to this many cells per panel (and when the numbers fit).
ANNOTATE_MAX_CELLS = 64
#: Width of a 6-pt digit in inches (DejaVu Sans), for fitting cell annotations.
ANNOTATION_CHAR_IN = 0.053


def _cmap(value: Any) -> str:
    name = str(value)
    if name not in mpl.colormaps:
        raise fail("", f"unknown colour map {name!r}", ["viridis", "cividis", "magma", "inferno", "plasma", "RdBu_r"])
    return name


def _fmt(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    try:
        format(1.5, text)
    except ValueError:
        raise fail("", f"not a number format: {text!r} (e.g. .3g, .1f)") from None
    return text


_SHARED = {
    "z": Option(None, lambda v: None if v is None else str(v), "column shown as colour (required)"),
    "levels": Option([], numbers, "value(s) of z to mark with a labelled contour line, e.g. 0.5"),
    "cmap": Option(SEQUENTIAL_CMAP, _cmap, "colour map"),
    "vmin": Option(None, number_or_none, "colour scale minimum"),
    "vmax": Option(None, number_or_none, "colour scale maximum"),
}
HEATMAP_OPTIONS = {
    **_SHARED,
    "annotate": Option(None, boolean_or_none, f"write values in cells (default: up to {ANNOTATE_MAX_CELLS} cells)"),
    "fmt": Option(None, _fmt, "number format of cell annotations, e.g. .2f (default: by magnitude)"),
}
CONTOUR_OPTIONS = {
    **_SHARED,
    "nlevels": Option(10, positive_int, "number of filled colour bands"),
    "points": Option(True, boolean, "mark the sampled points"),
}


def cell_means(rows: pd.DataFrame, x: str, y: str, z: str) -> pd.DataFrame:
    """Mean of z per (x, y), each seed counted once."""
    keys = [x, y] + (["seed"] if "seed" in rows.columns and "seed" not in (x, y) else [])
    per_seed = rows.groupby(keys, sort=False)[z].mean().reset_index()
    return per_seed.groupby([x, y], sort=False)[z].mean().reset_index()


def _norm(spec: Spec, values: np.ndarray) -> Normalize:
    finite = values[np.isfinite(values)]
    vmin = spec.opts["vmin"] if spec.opts["vmin"] is not None else (float(finite.min()) if finite.size else 0.0)
    vmax = spec.opts["vmax"] if spec.opts["vmax"] is not None else (float(finite.max()) if finite.size else 1.0)
    if vmax <= vmin:
        vmax = vmin + 1.0 if vmin == 0 else vmin + abs(vmin) * 1e-6
    return Normalize(vmin, vmax)


def draw_heatmap(spec: Spec, y_order: list[Any]) -> Figure:
    x, y, z = spec.x, spec.y, spec.opts["z"]
    assert x is not None and z is not None
    xs, ys = spec.x_order, y_order
    means = cell_means(spec.frame, x, y, z) if spec.facet is None else None
    cells = len(xs) * len(ys)
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True, height=max(2.3, 0.22 * len(ys) + 0.9),
                                    wide=len(xs) > 6)
    grids = []
    for _, _, part in panel_list:
        m = means if means is not None else cell_means(part, x, y, z)
        grid = np.full((len(ys), len(xs)), np.nan)
        xi = {v: i for i, v in enumerate(xs)}
        yi = {v: i for i, v in enumerate(ys)}
        for xv, yv, zv in m[[x, y, z]].itertuples(index=False):
            if xv in xi and yv in yi:
                grid[yi[yv], xi[xv]] = zv
        grids.append(grid)
    values = np.concatenate([g.ravel() for g in grids])
    norm = _norm(spec, values)
    cmap = mpl.colormaps[spec.opts["cmap"]].with_extremes(bad="#e8e8e8")
    fmt = spec.opts["fmt"] or auto_format(values)
    annotate = spec.opts["annotate"]
    if annotate is None:
        across = min(spec.opts.get("cols") or layout.DEFAULT_COLS, len(panel_list))
        annotate = cells <= ANNOTATE_MAX_CELLS and _labels_fit(fig, across, len(xs), values, fmt)
    mesh = None
    for (_, ax, _), grid in zip(panel_list, grids):
        mesh = ax.pcolormesh(np.arange(len(xs) + 1) - 0.5, np.arange(len(ys) + 1) - 0.5,
                             np.ma.masked_invalid(grid), cmap=cmap, norm=norm, edgecolors="white", linewidth=0.5)
        if annotate:
            for (r, c), v in np.ndenumerate(grid):
                if np.isfinite(v):
                    ax.text(c, r, format(v, fmt), ha="center", va="center", fontsize=6,
                            color=_text_colour(cmap(norm(v))))
        if spec.opts["levels"] and len(xs) >= 2 and len(ys) >= 2 and np.isfinite(grid).sum() >= 4:
            _mark_levels(ax, ax.contour(np.arange(len(xs)), np.arange(len(ys)), np.ma.masked_invalid(grid),
                                        levels=spec.opts["levels"], colors="black", linewidths=1.2))
        layout.category_axis(ax, xs, axis="x")
        layout.category_axis(ax, ys, axis="y")
        ax.tick_params(length=0)
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
    layout.axis_labels(spec, panel_list, x, y)
    _colorbar(fig, panel_list, mesh, spec, z)
    return fig


def draw_contour(spec: Spec) -> Figure:
    x, y, z = spec.x, spec.y, spec.opts["z"]
    assert x is not None and z is not None
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True)
    pts = []
    for value, _, part in panel_list:
        m = cell_means(part, x, y, z).dropna()
        px, py, pz = (m[c].to_numpy(dtype=float) for c in (x, y, z))
        where = "" if spec.facet is None else f" in panel {spec.facet} = {value}"
        if len(m) < 3:
            raise fail("kind", f"contour needs at least 3 distinct (x, y) points{where}, got {len(m)}; use kind 'heatmap'")
        if np.linalg.matrix_rank(np.c_[px - px.mean(), py - py.mean()]) < 2:
            raise fail("kind", f"contour needs (x, y) points that are not all on one line{where}; use kind 'heatmap'")
        pts.append((px, py, pz))
    norm = _norm(spec, np.concatenate([p[2] for p in pts]))
    # Round band edges (a colour bar reading 0.2, 0.3, ... rather than 0.1763, 0.3402, ...).
    bands = MaxNLocator(spec.opts["nlevels"]).tick_values(norm.vmin, norm.vmax)
    clipped = spec.opts["vmin"] is not None or spec.opts["vmax"] is not None
    filled = None
    for (_, ax, _), (px, py, pz) in zip(panel_list, pts):
        filled = ax.tricontourf(px, py, pz, levels=bands, cmap=spec.opts["cmap"], norm=norm,
                                 extend="both" if clipped else "neither")
        if spec.opts["levels"]:
            _mark_levels(ax, ax.tricontour(px, py, pz, levels=spec.opts["levels"], colors="black", linewidths=1.2))
        if spec.opts["points"]:
            ax.plot(px, py, linestyle="none", marker=".", markersize=2, color="black", alpha=0.5)
        ax.set_xlim(px.min(), px.max())
        ax.set_ylim(py.min(), py.max())
    layout.axis_labels(spec, panel_list, x, y)
    _colorbar(fig, panel_list, filled, spec, z)
    return fig


def _labels_fit(fig: Figure, across: int, columns: int, values: np.ndarray, fmt: str) -> bool:
    """Whether the widest annotation fits in a cell (estimated before layout: the panels
    share the figure width less about 1.3 in of tick labels and colour bar)."""
    cell_in = (fig.get_figwidth() - 1.3) / across / max(columns, 1)
    finite = values[np.isfinite(values)]
    widest = max((len(format(v, fmt)) for v in finite), default=0)
    return widest * ANNOTATION_CHAR_IN + 0.06 <= cell_in


def auto_format(values: np.ndarray) -> str:
    """One number format for all cells: three significant digits of the largest magnitude
    (87.6 and 77.0, not 87.6 and 77)."""
    finite = np.abs(values[np.isfinite(values)])
    top = float(finite.max()) if finite.size else 0.0
    if top >= 100:
        return ".0f"
    if top >= 10:
        return ".1f"
    if top >= 1:
        return ".2f"
    return ".3f"


def _colorbar(fig: Figure, panel_list: list[Any], mappable: Any, spec: Spec, z: str) -> None:
    axes = [ax for _, ax, _ in panel_list]
    fig.colorbar(mappable, ax=axes, label=label(z, spec.label_overrides()), shrink=1.0, aspect=25, pad=0.02)


def _mark_levels(ax: Any, contours: Any) -> None:
    if len(contours.levels):
        ax.clabel(contours, fmt=lambda v: f"{v:g}", fontsize=6, inline=True)


def _text_colour(rgba: tuple[float, ...]) -> str:
    """Black on light cells, white on dark ones (relative luminance, ITU-R BT.709)."""
    r, g, b = rgba[:3]
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "white"
