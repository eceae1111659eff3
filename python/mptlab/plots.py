"""PNG plots of one run, drawn with matplotlib's Agg canvas (no display, no pyplot state).

- goodput.png: application goodput per interval over time, one line per flow; above
  `MAX_LINES` flows, one line per flow group (the mean over its flows). Interval bins are
  drawn as steps: a bin's value holds from its start time `t_s` to the next bin.
- queue_delay.png: sampled queueing delay over time for every link that carried packets and
  ever queued one (the `MAX_LINES` with the highest p95 queueing delay when there are more);
  links whose packets never waited are named in a note instead of drawn as lines at zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from mptlab.atomic import atomic_write

MAX_LINES = 12
GOODPUT = "goodput.png"
QUEUE_DELAY = "queue_delay.png"


def write_plots(
    summary: dict[str, Any], timeseries: pa.Table, out: Path, name: str | None = None
) -> list[Path]:
    """Write goodput.png and queue_delay.png into `out`; return their paths. `name` (the
    scenario's) goes into the titles."""
    df = timeseries.to_pandas()
    title = f"{name + ', ' if name else ''}seed {summary.get('seed')}"
    return [
        _save(goodput_figure(summary, df, title), Path(out) / GOODPUT),
        _save(queue_delay_figure(summary, df, title), Path(out) / QUEUE_DELAY),
    ]


def goodput_figure(summary: dict[str, Any], df: pd.DataFrame, title: str = "") -> Figure:
    fig, ax = _figure()
    data = df[df["series"] == "goodput_mbps"]
    flows = summary.get("flows", [])
    if len(flows) > MAX_LINES:
        group_of = {f["name"]: f.get("group", f["name"]) for f in flows}
        data = data.assign(entity=data["entity"].map(group_of).fillna(data["entity"]))
        data = data.groupby(["entity", "t_s"], as_index=False, sort=True)["value"].mean()
        heading = f"goodput per flow group (mean over its flows, {len(flows)} flows)"
    else:
        heading = "goodput per flow"
    lines = _plot_lines(ax, data, steps_until=summary.get("duration_s"))
    ax.set_xlabel("time (s)")
    ax.set_ylabel("goodput (Mbit/s)")
    ax.set_ylim(bottom=0)
    _finish(fig, ax, lines, f"{heading} — {title}" if title else heading)
    return fig


def queue_delay_figure(summary: dict[str, Any], df: pd.DataFrame, title: str = "") -> Figure:
    fig, ax = _figure()
    busy = [l for l in summary.get("links", []) if (l.get("packets") or 0) > 0]
    never = sorted(l["name"] for l in busy if not ((l.get("queue_delay_ms") or {}).get("max") or 0) > 0)
    busy = [l for l in busy if l["name"] not in never]
    heading = "queueing delay per link"
    if len(busy) > MAX_LINES:
        busy.sort(key=lambda l: -((l.get("queue_delay_ms") or {}).get("p95") or 0.0))
        heading += f" (the {MAX_LINES} of {len(busy)} busy links with the highest p95)"
        busy = busy[:MAX_LINES]
    names = {l["name"] for l in busy}
    data = df[(df["series"] == "queue_delay_ms") & df["entity"].isin(names)]
    lines = _plot_lines(ax, data)
    if lines == 0:
        ax.text(0.5, 0.5, "no packet waited in any queue", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queueing delay (ms)")
    ax.set_ylim(bottom=0)
    heading = f"{heading} — {title}" if title else heading
    if never:
        shown = ", ".join(never[:6]) + (f" and {len(never) - 6} more" if len(never) > 6 else "")
        heading += f"\nno packet ever queued on: {shown}"
    _finish(fig, ax, lines, heading)
    return fig


def _figure() -> tuple[Figure, Any]:
    fig = Figure(figsize=(9, 4.8), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _plot_lines(ax: Any, data: pd.DataFrame, steps_until: float | None = None) -> int:
    """One line per entity. With `steps_until`, the samples are interval bins starting at t_s:
    drawn as steps, the last one held until `steps_until` (the end of the run)."""
    n = 0
    for entity, part in data.groupby("entity", sort=True):
        part = part.sort_values("t_s")
        t, v = part["t_s"].to_numpy(), part["value"].to_numpy()
        if steps_until is not None and len(t) and steps_until > t[-1]:
            t, v = np.append(t, steps_until), np.append(v, v[-1])
        style = "steps-post" if steps_until is not None else "default"
        ax.plot(t, v, label=str(entity), linewidth=1.2, drawstyle=style)
        n += 1
    return n


def _finish(fig: Figure, ax: Any, lines: int, heading: str) -> None:
    ax.set_title(heading, fontsize=10)
    ax.grid(True, alpha=0.3)
    if 0 < lines <= MAX_LINES:
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)


def _save(fig: Figure, path: Path) -> Path:
    return atomic_write(path, lambda f: fig.savefig(f, format="png"))
