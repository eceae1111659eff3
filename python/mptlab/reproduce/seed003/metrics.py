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

from mptlab.sweeps.relative import relative_dlct as _relative_dlct

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
    """`mptlab.sweeps.relative.relative_dlct` joined on seed 003's network columns by default."""
    return _relative_dlct(tunnel, baseline, JOIN_KEYS if keys is None else keys, group)
