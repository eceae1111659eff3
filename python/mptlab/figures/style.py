"""One publication style for every sweep figure, and `save` (PNG + SVG, atomic, deterministic).

Sizes follow two-column papers: a single-column figure is 3.5 in wide, a double-column one 7 in.
Text is 8 pt (ticks and legend 7 pt) in DejaVu Sans, which ships with matplotlib, so the same data
give the same pixels and the same SVG bytes on every machine. Colours are the Okabe–Ito palette
(Okabe & Ito 2008, "Color Universal Design"), distinguishable under the common colour-vision
deficiencies; the sequential colour map is viridis. No top/right spines, a light grid on the value
axis only, frameless legends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from mptlab.atomic import atomic_write

#: Figure widths in inches (IEEE/ACM two-column layouts).
SINGLE_COLUMN_IN = 3.5
DOUBLE_COLUMN_IN = 7.0
#: Height of one row of panels, in inches.
PANEL_HEIGHT_IN = 2.3
#: PNG resolution.
PNG_DPI = 200

#: Okabe–Ito, with yellow last (it is faint on white).
PALETTE = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow
)
#: Line styles used after the palette runs out (colour i % 8 with style i // 8).
LINESTYLES = ("-", "--", ":", "-.")
SEQUENTIAL_CMAP = "viridis"

#: Fixed salt for SVG element ids, so two saves of equal figures give equal bytes.
SVG_HASHSALT = "mptlab"

RC: dict[str, Any] = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "figure.titlesize": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.6,
    "axes.grid": False,
    "axes.axisbelow": True,
    "axes.prop_cycle": mpl.cycler(color=list(PALETTE)),
    "axes.titlepad": 4,
    "grid.linewidth": 0.4,
    "grid.alpha": 0.5,
    "grid.color": "#b0b0b0",
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "lines.linewidth": 1.1,
    "lines.markersize": 3,
    "patch.linewidth": 0.6,
    "legend.frameon": False,
    "legend.handlelength": 1.6,
    "legend.columnspacing": 1.2,
    "legend.borderaxespad": 0.2,
    "figure.dpi": 100,
    "savefig.dpi": PNG_DPI,
    "savefig.bbox": "standard",
    "savefig.pad_inches": 0.02,
    "svg.hashsalt": SVG_HASHSALT,
    "svg.fonttype": "path",
    "image.cmap": SEQUENTIAL_CMAP,
    "figure.constrained_layout.use": True,
}


@contextmanager
def publication_style() -> Iterator[None]:
    """Apply the house rcParams for the duration of the block (figures must be both built
    and saved inside it: matplotlib reads some parameters when artists are created and others,
    like `svg.hashsalt`, when the file is written)."""
    with mpl.rc_context(RC):
        yield


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def linestyle(i: int) -> str:
    return LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]


def width_in(width: str | float | None, panels_across: int = 1) -> float:
    """Figure width: "single" (3.5 in), "double" (7 in), a number of inches, or None
    (single for one panel across, double for more)."""
    if width is None:
        return SINGLE_COLUMN_IN if panels_across <= 1 else DOUBLE_COLUMN_IN
    if width == "single":
        return SINGLE_COLUMN_IN
    if width == "double":
        return DOUBLE_COLUMN_IN
    return float(width)


def new_figure(width: float, height: float) -> Figure:
    """A Figure on an Agg canvas (no pyplot, no global figure registry)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, stem: str | os.PathLike[str]) -> list[Path]:
    """Write `stem`.png (200 dpi) and `stem`.svg, each atomically; return both paths.

    The SVG is deterministic: fixed id salt and no creation date, so identical data give
    identical bytes. The PNG carries no timestamp either (matplotlib writes none)."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    png = stem.with_name(stem.name + ".png")
    svg = stem.with_name(stem.name + ".svg")
    with publication_style():
        atomic_write(png, lambda f: fig.savefig(f, format="png", dpi=PNG_DPI))
        atomic_write(svg, lambda f: fig.savefig(f, format="svg", metadata={"Date": None}))
    return [png, svg]
