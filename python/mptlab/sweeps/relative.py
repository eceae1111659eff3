"""Metrics that compare two sets of sweep runs: a run's value relative to a baseline's.

`relative_dlct` is seed 003's relative download completion time (docs/metrics.md#tunnels): the
mean completion time of runs through a tunnel over the mean of the same network without it,
over the seeds both sides have. It takes the `runs` rows of two sweeps (`mptlab query`, or
`Store.runs()`), so any plan can be normalised this way, not only the reproduction's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def relative_dlct(tunnel: pd.DataFrame, baseline: pd.DataFrame, keys: Sequence[str],
                  group: Sequence[str] = ()) -> pd.DataFrame:
    """Seed 003's relative download completion time, for any sweep: tunnel runs joined to their
    baselines (the same network without the tunnel) on `keys` (the columns that identify the
    network, where both frames have them) and the seed, as a ratio of means.

    One row per group of `tunnel` runs (by `keys` present in both frames plus `group`, e.g.
    tunnel_cc, sched), with: n (tunnel seeds with a baseline), dlct_s (mean tunnel DLCT),
    dlct_std_s, baseline_s (mean baseline DLCT over the same seeds), relative (dlct_s /
    baseline_s), relative_std (std of the tunnel DLCTs / baseline_s, for error bars) and
    censored (tunnel runs that did not finish: relative is then a lower bound). Both frames are
    sweep `runs` rows with `seed`, `status` and `completion_time_s`; failed runs are left out."""
    keys = [k for k in keys if k in tunnel.columns and k in baseline.columns]
    t = tunnel[tunnel["status"] == "ok"] if "status" in tunnel.columns else tunnel
    b = baseline[baseline["status"] == "ok"] if "status" in baseline.columns else baseline
    b = b[keys + ["seed", "completion_time_s"]].rename(columns={"completion_time_s": "base_dlct"})
    b = b.dropna(subset=["base_dlct"]).drop_duplicates(subset=keys + ["seed"])
    j = t.merge(b, on=keys + ["seed"], how="inner")
    rows = []
    by = keys + [g for g in group if g not in keys]
    for values, g in j.groupby(by, dropna=False, sort=True):
        values = values if isinstance(values, tuple) else (values,)
        done = g["completion_time_s"].notna()
        dl = g["completion_time_s"].astype(float).where(done, g.get("duration_s", pd.Series(np.nan, index=g.index)))
        mean_b = float(g["base_dlct"].astype(float).mean())
        mean_t = float(dl.mean())
        std_t = float(dl.std(ddof=1)) if len(dl) > 1 else 0.0
        rows.append({**dict(zip(by, values)), "n": len(g), "dlct_s": mean_t, "dlct_std_s": std_t, "baseline_s": mean_b,
                     "relative": mean_t / mean_b if mean_b > 0 else float("nan"),
                     "relative_std": std_t / mean_b if mean_b > 0 else float("nan"),
                     "censored": int((~done).sum())})
    return pd.DataFrame(rows, columns=by + ["n", "dlct_s", "dlct_std_s", "baseline_s", "relative", "relative_std", "censored"])
