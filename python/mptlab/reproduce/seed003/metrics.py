"""Seed 003's metrics on sweep results: the network axes read back from a run's parameters, and
the relative download completion time (DLCT).

Relative DLCT (paper sec. 1, Fig. 2: "the download time ... normalized against the download
time when single-path end-to-end (E2E) transport is exclusively utilized"; sec. 5.4, Fig. 10:
"the average DLCT over a multipath tunnel relative to the average DLCT without a tunnel"):

    relative_dlct = mean over seeds of the tunnel runs' DLCT
                    / mean over the same seeds of the baseline runs' DLCT

a ratio of means (A14), where the baseline is the same scenario with the flow over the Wi-Fi
path and no tunnel. `relative_dlct` joins any two frames of sweep `runs` rows (one row per run,
`mptlab.sweep_store(...).load().runs` or a `mptlab query` result) on the columns that describe
the network and the server, and on the seed; it is the reusable join the issue asks for, and
lives here (python/mptlab/reproduce/seed003/metrics.py, documented in docs/reproductions.md).

A run whose file did not complete within the run (completion_time_s empty) has no DLCT; such a
tunnel run makes its group's value a lower bound (`censored` > 0) rather than being dropped
silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

_SIZE = re.compile(r"^\s*([0-9.]+)\s*(B|KB|MB|GB|KiB|MiB|GiB)\s*$")
_FACTORS = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
_TIME = re.compile(r"^\s*([0-9.]+)\s*(ns|us|ms|s)\s*$")
_TIME_FACTORS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def size_bytes(text: str) -> float:
    """"300MB" -> 3e8 (decimal units as the simulator's, binary ones with i)."""
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"not a size: {text!r} (e.g. 300MB, 30MB, 1GB)")
    return float(m.group(1)) * _FACTORS[m.group(2)]


def time_ms(text: object) -> float:
    """"12500000ns" -> 12.5 (a number is taken as ms)."""
    if isinstance(text, (int, float)):
        return float(text)
    m = _TIME.match(str(text).strip('"'))
    if not m:
        raise ValueError(f"not a time: {text!r}")
    return float(m.group(1)) * _TIME_FACTORS[m.group(2)]


def network_columns(runs: pd.DataFrame) -> pd.DataFrame:
    """`runs` with e2e_ms, share, asym_ms and buffer (the bottleneck queue: "100ms", "250p",
    "1000p" or "codel") added, read from the plan columns (explicit link delays, or the
    `[rtt_split]` block's keys). Shares are rounded to 4 decimals, times to 1 us."""
    out = runs.copy()
    if "e2e_rtt" in out.columns:
        out["e2e_ms"] = out["e2e_rtt"].map(time_ms)
        out["share"] = out["tunnel_share"].astype(float)
        out["asym_ms"] = out["asymmetry"].map(time_ms)
    else:
        wan, ap, cell = (out[c].map(time_ms) for c in ("wan_delay", "ap_delay", "cell_delay"))
        out["e2e_ms"] = 2.0 * (wan + ap)
        out["share"] = np.where(out["e2e_ms"] > 0, (2.0 * ap) / out["e2e_ms"].where(out["e2e_ms"] > 0, 1.0), 0.0)
        out["asym_ms"] = 2.0 * (cell - ap)
    out["e2e_ms"] = out["e2e_ms"].round(3)
    out["share"] = out["share"].astype(float).round(4)
    out["asym_ms"] = out["asym_ms"].round(3)
    out["buffer"] = out["queue"].map(queue_label) if "queue" in out.columns else "100ms"
    return out


def queue_label(value: object) -> str:
    """A bottleneck queue (inline table text or dict) -> "codel" or its limit ("250p", "100ms")."""
    if isinstance(value, str) and value.lstrip().startswith("{") and '":' in value:
        try:
            value = json.loads(value)  # the store keeps inline tables as JSON text
        except ValueError:
            pass
    if isinstance(value, dict):
        kind, limit = str(value.get("kind", "droptail")), str(value.get("limit", ""))
    else:
        text = str(value)
        kind = "codel" if "codel" in text else "droptail"
        m = re.search(r'limit\s*=\s*"([^"]+)"', text) or re.search(r"'limit':\s*'([^']+)'", text)
        limit = m.group(1) if m else ""
    return "codel" if kind == "codel" else limit


#: The columns that identify a network + server configuration (the join keys besides the seed).
JOIN_KEYS = ("e2e", "server_cc", "e2e_ms", "share", "asym_ms", "buffer")


def relative_dlct(tunnel: pd.DataFrame, baseline: pd.DataFrame, keys: Sequence[str] | None = None,
                  group: Sequence[str] = ()) -> pd.DataFrame:
    """One row per group of `tunnel` runs (by `keys` present in both frames plus `group`, e.g.
    tunnel_cc, sched), with: n (tunnel seeds with a baseline), dlct_s (mean tunnel DLCT),
    dlct_std_s, baseline_s (mean baseline DLCT over the same seeds), relative (dlct_s /
    baseline_s), relative_std (std of the tunnel DLCTs / baseline_s, for error bars) and
    censored (tunnel runs that did not finish: relative is then a lower bound). Both frames are
    sweep `runs` rows with `seed`, `status` and `completion_time_s`; failed runs are left out."""
    keys = [k for k in (keys if keys is not None else JOIN_KEYS) if k in tunnel.columns and k in baseline.columns]
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
