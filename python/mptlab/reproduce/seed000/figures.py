"""Seed 000's figures in the paper's panel form (Figs. 3-20), one set per scenario × pairing:

- (a) throughput distributions per protocol on TN1 and TN2 (the 1 s bins after the warm-up);
- (b) link-level (protocol-independent) jitter, TN1 against TN2;
- (c) protocol-specific jitter on TN1, MPTCP against MPQUIC;
- (d) the same on TN2.

Jitter samples are the post-warm-up interval means of metrics.py's series; the seeds of a case
are pooled. Box + violin (mptlab.figures' `distribution` kind): the paper's plot type cannot be
recovered from its text, its prose speaks of spread, tails and outliers.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mptlab.reproduce.seed000.metrics import FAMILIES, LINKS

#: panel -> (file suffix, x, hue, y label, title).
PANELS = {
    "a": ("a-throughput", "link", "protocol", "Throughput (Mbit/s)", "(a) throughput per protocol"),
    "b": ("b-link-jitter", "link", None, "Jitter (ms)", "(b) link jitter"),
    "c": ("c-jitter-tn1", "protocol", None, "Jitter (ms)", "(c) TN1"),
    "d": ("d-jitter-tn2", "protocol", None, "Jitter (ms)", "(d) TN2"),
}


def draw_figures(samples: pd.DataFrame, out: Path) -> list[Path]:
    """Write figures/<scenario>/<pairing>-<panel>.png/.svg; return the paths written. A panel
    without samples (a metric the run did not produce) is left out."""
    from mptlab.figures import draw, save

    written: list[Path] = []
    if samples.empty:
        return written
    for (scenario, pairing), case in samples.groupby(["scenario", "pairing"], sort=False):
        for panel, (suffix, x, hue, ylabel, title) in PANELS.items():
            part = case[case["panel"] == panel].rename(columns={"value": ylabel})
            if part.empty:
                continue
            # the paper's order, of the values present (a family may have no samples on a link)
            opts = {"order": [v for v in (LINKS.values() if x == "link" else FAMILIES) if v in set(part[x])]}
            if hue:
                opts["hue_order"] = [f for f in FAMILIES if f in set(part[hue])]
            # with a hue the legend takes the title's place: panel (a) is named by its file only
            fig = draw("distribution", part, x=x, y=ylabel, hue=hue, title=None if hue else f"{title}, {scenario} {pairing}", **opts)
            written += save(fig, out / scenario / f"{pairing}-{suffix}")
            fig.clf()
    return written
