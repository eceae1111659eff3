"""Seed 003's figures: Fig. 2 (relative DLCT bars, UDP and TCP (BBR over BBR, the figure's
configuration, and BBR over CCID5), proxy near and far), the contour
maps (Figs. 5, 8b/c, 9c: E2E throughput over E2E RTT x tunnel share, RdBu from 40 (red, no
aggregation) to 95 Mbit/s (blue, "double the single-path throughput"), sec. 5; the white
midpoint then sits at 67.5 Mbit/s, A15/A22), with the constant-tunnel-RTT curves
E2E * share = T (hyperbolas in these axes, A20) at 10, 25 and 50 ms, and the points drawn; and
Fig. 10's bars (relative DLCT per scenario, one panel per server x tunnel CCA, CPF; SRTT in
Table 3). Drawn with matplotlib directly (tricontourf over the irregular points, as
mptlab.figures.contour does), saved with mptlab.figures.style.save (PNG + SVG, atomic).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

VMIN, VMAX = 40.0, 95.0
CURVES_MS = (10.0, 25.0, 50.0)


def draw_figures(fig2: pd.DataFrame, contours: pd.DataFrame, fig10: pd.DataFrame, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mptlab.figures.style import save

    files: list[Path] = []
    out.mkdir(parents=True, exist_ok=True)
    if not fig2.empty:
        fig, ax = plt.subplots(figsize=(6.0, 3.2), layout="none")
        has_cfg = "config" in fig2.columns
        configs = [("udp", "udp-ccid5", "UDP"), ("tcp", "bbr-bbr", "TCP BBR/BBR"), ("tcp", "bbr-ccid5", "TCP BBR/CCID5")]
        order = [(e, c, lab, p) for e, c, lab in configs for p in ("far", "near")]
        rows = [fig2[(fig2["e2e"] == e) & (fig2["placement"] == p) & ((fig2["config"] == c) if has_cfg else True)]
                for e, c, _, p in order]
        keep = [i for i, r in enumerate(rows) if not r.empty]
        vals = [100 * float(rows[i]["relative"].iloc[0]) for i in keep]
        errs = [100 * float(rows[i]["relative_std"].iloc[0]) for i in keep]
        ax.bar(range(len(keep)), vals, yerr=errs, color="#4c72b0", ecolor="gray", capsize=4)
        ax.axhline(50, color="k", lw=0.8, ls="--")
        ax.axhline(100, color="k", lw=0.8, ls=":")
        ax.set_xticks(range(len(keep)), [f"{order[i][2]}\n{order[i][3]}" for i in keep], fontsize=7)
        ax.set_ylabel("relative download time (%)")
        ax.set_title("Fig. 2: tunnel DLCT / single-path DLCT")
        files += save(fig, out / "fig2")
        plt.close(fig)
    if not contours.empty:
        for batch, g in contours.groupby("batch", sort=True):
            files += _contour(plt, save, g, str(batch), out)
    if not fig10.empty:
        cpf = fig10[fig10["sched"] == "cpf"]
        combos = sorted(set(zip(cpf["server_cc"], cpf["tunnel_cc"])))
        if combos:
            fig, axes = plt.subplots(len(combos), 1, figsize=(7.5, 2.2 * len(combos)), squeeze=False, layout="none")
            for ax, (s, t) in zip(axes[:, 0], combos):
                g = cpf[(cpf["server_cc"] == s) & (cpf["tunnel_cc"] == t)]
                ax.bar(range(len(g)), 100 * g["relative"], yerr=100 * g["relative_std"], color="#dd8452", ecolor="gray")
                ax.axhline(50, color="k", lw=0.8, ls="--")
                ax.axhline(100, color="k", lw=0.8, ls=":")
                ax.set_xticks(range(len(g)), g["scenario"], rotation=60, fontsize=6)
                ax.set_ylabel("rel. DLCT (%)", fontsize=7)
                ax.set_title(f"{s.upper()} over {t.upper()} (CPF)", fontsize=8)
            fig.tight_layout()
            files += save(fig, out / "fig10")
            plt.close(fig)
    return files


def _contour(plt, save, g: pd.DataFrame, batch: str, out: Path) -> list[Path]:  # type: ignore[no-untyped-def]
    x, y, z = g["e2e_ms"].to_numpy(float), 100 * g["share"].to_numpy(float), g["goodput_mbps"].to_numpy(float)
    fig, ax = plt.subplots(figsize=(4.6, 3.6), layout="none")
    levels = np.linspace(VMIN, VMAX, 12)
    if len(g) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
        cs = ax.tricontourf(x, y, np.clip(z, VMIN, VMAX), levels=levels, cmap="RdBu", vmin=VMIN, vmax=VMAX)
        fig.colorbar(cs, ax=ax, label="E2E throughput (Mbit/s)")
    ax.scatter(x, y, c="k", s=4)
    xs = np.linspace(0.5, 100, 400)
    for t in CURVES_MS:
        ys = 100 * t / xs
        keep = ys <= 100
        ax.plot(xs[keep], ys[keep], color="k", lw=0.8, ls="--")
        if keep.any():
            ax.annotate(f"{t:g} ms", (xs[keep][0], 98), fontsize=6)
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("E2E RTT (ms)")
    ax.set_ylabel("tunnel RTT (% of E2E RTT)")
    ax.set_title(f"{batch} ({len(g)} points; dashed: tunnel RTT)", fontsize=8)
    fig.tight_layout()
    paths = save(fig, out / f"contour-{batch}")
    plt.close(fig)
    return paths
