"""Seed 004's figures in the paper's shapes: the topologies with their routes (Figs. 4, 7, 10,
11), bars of TCP transmissions, completion time and throughput per case with the published
values beside (Figs. 5, 8, 12 and the text of Sec. VII), the pooled data-packet latency CDFs
(Figs. 6, 9, 13) and the per-hop delivery rate over time (the "at the beginning" dips of
Sec. VII-B/C). Drawn with matplotlib, saved with mptlab.figures.style.save (PNG + SVG, atomic).
A figure whose data are missing (a case not run, a series the simulator does not report) is
left out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from mptlab.reproduce.seed004.plans import CASES, LABELS

COLORS = {"C-MPTCP": "#d62728", "P-MPTCP": "#1f77b4"}
BARS = (("tcp_segments", "tcp_packet_transmissions", "TCP data + ACK transmissions"),
        ("completion_s", "completion_time", "completion time (s)"),
        ("throughput_kbps", "throughput", "throughput (kbit/s)"))


def published_value(published: pd.DataFrame, case_name: str, variant: str, metric: str) -> float:
    """The published number of `metric` for one case and variant, NaN when the paper has none."""
    case = next(c for c in CASES if c.name == case_name)
    g5 = "true" if case.has_5g else "false"
    r = published[(published["deployment"] == case.deployment) & (published["nodes"].astype(str) == str(case.nodes))
                  & (published["has_5g"].astype(str).str.lower() == g5) & (published["variant"] == variant)
                  & (published["metric"] == metric)]
    return float(r["value"].iloc[0]) if not r.empty else float("nan")


def draw_figures(summ: pd.DataFrame, published: pd.DataFrame, latency: pd.DataFrame, curves: pd.DataFrame, out: Path,
                 fig_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mptlab.figures.style import save

    files: list[Path] = []
    cases = [c.name for c in CASES if not summ.empty and (summ["case"] == c.name).any()]
    if cases:
        fig, axes = plt.subplots(1, 3, figsize=(13.0, 3.8), layout="constrained")
        x = np.arange(len(cases))
        for ax, (col, metric, title) in zip(axes, BARS):
            for k, variant in enumerate(("C-MPTCP", "P-MPTCP")):
                sim = [float(summ[(summ["case"] == c) & (summ["variant"] == variant)][col].mean()) for c in cases]
                pub = [published_value(published, c, variant, metric) for c in cases]
                ax.bar(x + (2 * k - 1.5) * 0.2, sim, 0.2, color=COLORS[variant], label=f"{variant} simulated")
                ax.bar(x + (2 * k - 0.5) * 0.2, pub, 0.2, color=COLORS[variant], alpha=0.35, hatch="//", label=f"{variant} published")
            ax.set_xticks(x, [LABELS[c] for c in cases], rotation=35, ha="right", fontsize=7)
            ax.set_title(title, fontsize=9)
        axes[0].legend(fontsize=7)
        files += save(fig, fig_dir / "bars")
        plt.close(fig)
    if not latency.empty:
        files += _per_case(plt, latency, cases, _latency_cdf, "data packet latency (s)", "CDF", fig_dir / "latency_cdf", symlog=0.01)
    if not curves.empty:
        files += _per_case(plt, curves, cases, _delivery_rate, "time (s)", "per-hop delivery rate (%)", fig_dir / "delivery_rate")
    for c in cases:
        path = out / "topologies" / f"{c}-s1.json"
        if path.is_file():
            files += _topology(json.loads(path.read_text(encoding="utf-8")), LABELS[c], fig_dir / f"topology-{c}")
    return files


def _latency_cdf(rows: pd.DataFrame) -> tuple:
    """The quantile function averaged over seeds, drawn as a CDF: (latency in s, level)."""
    m = rows.groupby("q")["latency_ms"].mean()
    return m.to_numpy() / 1000.0, m.index.to_numpy()


def _delivery_rate(rows: pd.DataFrame) -> tuple:
    """The binned delivery rate averaged over seeds: (bin start s, rate %)."""
    m = rows.groupby("t_s")["delivery_pct"].mean()
    return m.index, m.to_numpy()


def _per_case(plt, frame: pd.DataFrame, cases: list[str], line, xlabel: str, ylabel: str, stem: Path,
              symlog: float | None = None) -> list[Path]:
    """One panel per case of `cases` that `frame` has, one line per variant (`line(rows)` gives
    its x and y; a variant without rows is left out); a symlog x axis with `symlog` as its
    linear threshold."""
    from mptlab.figures.style import save

    shown = [c for c in cases if (frame["case"] == c).any()]
    fig, axes = plt.subplots(1, len(shown), figsize=(3.2 * len(shown), 3.0), layout="constrained", squeeze=False)
    for ax, c in zip(axes[0], shown):
        for variant in ("C-MPTCP", "P-MPTCP"):
            s = frame[(frame["case"] == c) & (frame["variant"] == variant)]
            if s.empty:
                continue
            ax.plot(*line(s), color=COLORS[variant], label=variant)
        if symlog is not None:
            ax.set_xscale("symlog", linthresh=symlog)
        ax.set_title(LABELS[c], fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
    axes[0][0].set_ylabel(ylabel)
    axes[0][0].legend(fontsize=7)
    files = save(fig, stem)
    plt.close(fig)
    return files


def _topology(t: dict, title: str, stem: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    from mptlab.figures.style import save

    pos = {n: xy for n, xy in zip(t["names"], t["xy"])}
    fig, ax = plt.subplots(figsize=(4.5, 4.5), layout="constrained")
    for paths in t["paths"].values():
        for p in paths:
            for a, b in zip(p, p[1:]):
                five = t.get("g5") is not None and {a, b} == {t["g5"], "dc"}
                ax.plot([pos[a][0], pos[b][0]], [pos[a][1], pos[b][1]], color="#ff7f0e" if five else "#999999",
                        lw=1.5 if five else 0.6, ls="--" if five else "-", zorder=1)
    xy = np.asarray(t["xy"])
    ax.scatter(xy[1:, 0], xy[1:, 1], s=14, color="#1f77b4", zorder=2)
    ax.scatter([xy[0, 0]], [xy[0, 1]], s=60, marker="s", color="#2ca02c", zorder=3, label="DC")
    if t.get("g5"):
        g = pos[t["g5"]]
        ax.scatter([g[0]], [g[1]], s=60, marker="^", color="#ff7f0e", zorder=3, label=f"5G node {t['g5']}")
    ax.set_aspect("equal")
    ax.set_title(f"{title} (seed 1, range {t['range_m']:g} m)", fontsize=9)
    ax.legend(fontsize=7)
    files = save(fig, stem)
    plt.close(fig)
    return files
