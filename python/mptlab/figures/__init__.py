"""Publication figures from sweep results (matplotlib; PNG and SVG).

    from mptlab.figures import draw, save, standard_figures
    fig = draw("bar", runs, x="cc", y="goodput_mbps", hue="buffer")
    save(fig, "out/goodput_bar")          # out/goodput_bar.png and .svg

Kinds: timeseries, distribution (box + violin, or histogram), bar (mean over seeds with 95 % CI),
cdf, heatmap (regular grid) and contour (irregular numeric points). `standard_figures` gives the
default set a sweep report shows. One file per job: style (rcParams, palette, save), labels
(axis labels, natural order), spec (argument checks), layout (panels, legends), stats (t CI),
one module per kind, api (`draw`), standard (the default set).
"""

from __future__ import annotations

from mptlab.figures.api import KINDS, draw, options
from mptlab.figures.labels import label, natural_key, natural_sorted
from mptlab.figures.standard import save_all, standard_figures
from mptlab.figures.style import publication_style, save

__all__ = [
    "KINDS",
    "draw",
    "options",
    "save",
    "save_all",
    "standard_figures",
    "publication_style",
    "label",
    "natural_key",
    "natural_sorted",
]
