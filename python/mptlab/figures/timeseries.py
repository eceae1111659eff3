"""A series over time: x = t_s, y = value, one line per hue group (default: per entity, i.e.
flow or link), optionally one panel per facet value.

Rows that share a hue group, a seed and a time are averaged (a group of several flows shows
their mean). With several seeds the line is the mean over seeds and a band spans the seeds'
minimum to maximum. Interval bins (goodput_mbps, link_mbps: a value per [t, t + interval)) are
drawn as steps, like the per-run plots.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mptlab.figures import layout, style
from mptlab.figures.labels import format_value
from mptlab.figures.spec import Option, Spec, boolean_or_none, choice

#: Series whose samples are interval bins starting at t_s (drawn as steps by default).
INTERVAL_SERIES = ("goodput_mbps", "link_mbps", "throughput_mbps")
#: Series whose entities are flows, and those whose entities are links.
FLOW_SERIES = ("goodput_mbps", "cwnd_bytes", "srtt_ms", "owd_ms", "jitter_ms")
LINK_SERIES = ("link_mbps", "queue_delay_ms", "queue_pkts", "throughput_mbps", "utilization")
#: Above this many lines a panel gets no legend entries (they would hide the data).
MAX_LEGEND = 16

OPTIONS = {
    "band": Option("minmax", choice("minmax", "none"), "spread over seeds: min–max band or none"),
    "steps": Option(None, boolean_or_none, "draw interval bins as steps (default: for interval series)"),
}


def draw(spec: Spec) -> Figure:
    frame = spec.frame
    x, y, hue = spec.x or "t_s", spec.y, spec.hue
    steps = spec.opts["steps"]
    if steps is None:
        steps = y in INTERVAL_SERIES
    fig, panel_list = layout.panels(spec, sharex=True, sharey=True)
    groups = spec.hue_order if hue else [None]
    handles: dict[Any, Any] = {}
    for _, ax, part in panel_list:
        for j, g in enumerate(groups):
            rows = part if hue is None else part[part[hue] == g]
            if rows.empty:
                continue
            t, mean, lo, hi = _aggregate(rows, x, y)
            if steps:
                t, mean, lo, hi = _hold_last_bin(t, mean, lo, hi)
            line_kw = {"color": style.color(j), "linestyle": style.linestyle(j),
                       "drawstyle": "steps-post" if steps else "default"}
            (line,) = ax.plot(t, mean, label=format_value(g) if g is not None else y, **line_kw)
            if lo is not None and spec.opts["band"] == "minmax":
                ax.fill_between(t, lo, hi, color=style.color(j), alpha=0.2, linewidth=0,
                                step="post" if steps else None)
            handles.setdefault(g, line)
        ax.set_xlim(left=float(frame[x].min()))
        layout.value_grid(ax, "y")
    layout.large_values(panel_list[0][1], frame[y])
    # After every panel is drawn: the axes share y, and set_ylim stops autoscaling.
    if np.nanmin(frame[y].to_numpy(dtype=float), initial=0.0) >= 0:
        panel_list[0][1].set_ylim(bottom=0)
    layout.axis_labels(spec, panel_list, x, y)
    if len(handles) <= MAX_LEGEND:
        keys = [g for g in groups if g in handles]
        proxies = [Line2D([], [], color=h.get_color(), linestyle=h.get_linestyle()) for h in (handles[k] for k in keys)]
        layout.hue_legend(fig, spec, proxies, [format_value(k) for k in keys], title=_entity_title(spec))
    return fig


def _entity_title(spec: Spec) -> str | None:
    """"flow" or "link" for an entity legend of a known series (else the column's name)."""
    if spec.hue != "entity":
        return None
    if spec.y in FLOW_SERIES:
        return "flow"
    if spec.y in LINK_SERIES:
        return "link"
    return None


def _aggregate(rows: pd.DataFrame, x: str, y: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(t, mean over seeds, min over seeds, max over seeds); min/max are None with one seed.
    Within a seed, rows at the same time are averaged first."""
    keys = [x] + (["seed"] if "seed" in rows.columns else [])
    per_seed = rows.groupby(keys, sort=True)[y].mean()
    if "seed" not in rows.columns or rows["seed"].nunique() < 2:
        s = per_seed.groupby(level=0).mean()
        return s.index.to_numpy(dtype=float), s.to_numpy(dtype=float), None, None
    stats = per_seed.groupby(level=0).agg(["mean", "min", "max"])
    t = stats.index.to_numpy(dtype=float)
    return t, stats["mean"].to_numpy(), stats["min"].to_numpy(), stats["max"].to_numpy()


def _hold_last_bin(t: np.ndarray, *columns: np.ndarray | None) -> tuple[Any, ...]:
    """Extend step data by one bin width so the last interval is drawn too."""
    if len(t) < 2:
        return (t, *columns)
    end = t[-1] + float(np.median(np.diff(t)))
    held = [None if c is None else np.append(c, c[-1]) for c in columns]
    return (np.append(t, end), *held)
