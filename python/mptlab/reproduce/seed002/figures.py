"""Seed 002's figures in the paper's shape: box plots (Figs. 4-9) with panel (a) one box per
scheduler at Δλ = 0 and panel (b) MinRTT, BLEST and BLP under each Δλ (tick labels "BLP 0.003",
rotated so that the eleven boxes' labels do not overlap); bytes received over
time (Fig. 10), one panel per fast-path rate, one line per scheduler (the lowest seed's run).

Boxes: Q1-Q3 with the median line, whiskers at 1.5 IQR, the mean as a marker (the paper quotes
means, medians, IQRs and Q3s from its boxes); every run of every setting of the case pooled.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mptlab.reproduce.seed002.table import DLAMBDAS, SCHEDULER_ORDER

#: (file stem, case, per-run column, y label) for Figs. 4-9.
BOXES = (
    ("fig4_delay", "homogeneous", "delay_s", "Average data packet delay (s)"),
    ("fig5_ipat", "homogeneous", "ipat_s", "Average inter-packet arrival time (s)"),
    ("fig6_jitter", "homogeneous", "jitter_s", "Average mean jitter (s)"),
    ("fig7_throughput", "homogeneous", "throughput_mbps", "Average throughput (Mbit/s)"),
    ("fig8_ipat_het", "heterogeneous", "ipat_s", "Average inter-packet arrival time (s)"),
    ("fig9_throughput_het", "heterogeneous", "throughput_mbps", "Average throughput (Mbit/s)"),
)


def _panel_a(part: pd.DataFrame) -> list[tuple[str, np.ndarray]]:
    out = []
    for s in SCHEDULER_ORDER:
        p = part[part["scheduler"] == s]
        if s in ("BLEST", "BLP"):
            p = p[np.isclose(p["dlambda"].astype(float), 0.0)]
        if not p.empty:
            out.append((s, p["value"].to_numpy(float)))
    return out


def _panel_b(part: pd.DataFrame) -> list[tuple[str, np.ndarray]]:
    out = []
    p = part[part["scheduler"] == "MinRTT"]
    if not p.empty:
        out.append(("MinRTT", p["value"].to_numpy(float)))
    for s in ("BLEST", "BLP"):
        for dl in DLAMBDAS:
            p = part[(part["scheduler"] == s) & np.isclose(part["dlambda"].astype(float).fillna(-1), dl)]
            if not p.empty:
                out.append((f"{s} {dl:g}", p["value"].to_numpy(float)))
    return out


def draw_figures(ok: pd.DataFrame, curves: pd.DataFrame, out: Path) -> list[Path]:
    """Write the figures under `out` (png + svg); return the paths written."""
    from mptlab.figures import publication_style, save
    from mptlab.figures import style

    written: list[Path] = []
    for stem, case, col, ylabel in BOXES:
        part = ok[ok["case"] == case][["scheduler", "dlambda", col]].rename(columns={col: "value"})
        part = part[part["value"].notna()]
        if part.empty:
            continue
        with publication_style():
            fig = style.new_figure(style.DOUBLE_COLUMN_IN, 3.2)
            axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 2]}, sharey=True)
            for ax, (title, boxes) in zip(axes, (("(a) by scheduler, Δλ = 0", _panel_a(part)),
                                                 ("(b) by λ variance", _panel_b(part)))):
                if not boxes:
                    continue
                ax.boxplot([b[1] for b in boxes], showmeans=True, widths=0.6,
                           meanprops={"marker": "^", "markersize": 4})
                # Rotated and right-aligned: eleven labels side by side overlapped when upright.
                ax.set_xticks(range(1, len(boxes) + 1), [b[0] for b in boxes], fontsize=6, rotation=40,
                              ha="right", rotation_mode="anchor")
                ax.set_title(f"{title} ({case})", fontsize=7)
                ax.grid(axis="y", linewidth=0.3)
            axes[0].set_ylabel(ylabel)
            if len(axes) > 1:
                axes[1].set_xlabel("scheduler and Δλ", fontsize=6)
            written += save(fig, out / stem)
    if not curves.empty:
        written += _fig10(curves, out)
    return written


def _fig10(curves: pd.DataFrame, out: Path) -> list[Path]:
    from mptlab.figures import publication_style, save
    from mptlab.figures import style

    groups = sorted(curves["p2"].unique(), key=lambda g: float(str(g).split("-")[0]))
    with publication_style():
        fig = style.new_figure(style.DOUBLE_COLUMN_IN, 4.6)
        axes = fig.subplots(2, 2, squeeze=False).ravel()
        for i, (ax, g) in enumerate(zip(axes, groups)):
            part = curves[curves["p2"] == g]
            seed = int(part["seed"].min())
            for j, s in enumerate(SCHEDULER_ORDER):
                c = part[(part["scheduler"] == s) & (part["seed"] == seed)]
                if c.empty:
                    continue
                ax.plot(c["t_s"], c["rx_bytes"] / 1e6, color=style.color(j), linewidth=0.9, label=s)
            ax.set_title(f"({'abcd'[i]}) fast path {str(g).split('-')[0]} Mbit/s (run {seed})")
            ax.set_xlabel("Time (s)")
            ax.set_ylabel("Rx bytes (MB)")
            ax.grid(linewidth=0.3)
        axes[0].legend(fontsize=6)
        return save(fig, out / "fig10_bytes_over_time")
