"""Axis labels from column names, and the natural order of category values.

Labels: a few well-known columns have fixed names (`jain` → "Jain's index"); any other column
`<name>_<unit>` becomes "<name> (<unit>)" with the unit spelled out, and the per-group and
per-link columns of the runs table, `<metric>__<entity>`, become "<metric>, <entity> (<unit>)".

Natural order: swept values like "0.5bdp", "2bdp", "10bdp" or "500ms", "1s" sort by their
number (in a common unit where the unit is a known time, rate or size), not alphabetically;
other text sorts with its embedded numbers compared as numbers ("bulk#2" before "bulk#10").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

#: Fixed labels for well-known columns.
KNOWN = {
    "t_s": "time (s)",
    "jain": "Jain's index",
    "goodput_mbps": "goodput (Mbit/s)",
    "throughput_mbps": "throughput (Mbit/s)",
    "link_mbps": "link throughput (Mbit/s)",
    "queue_delay_ms": "queue delay (ms)",
    "queue_pkts": "queue length (packets)",
    "loss_pct": "loss (%)",
    "drop_pct": "drops (%)",
    "owd_ms": "one-way delay (ms)",
    "owd_ms_p95": "one-way delay, p95 (ms)",
    "jitter_ms": "jitter (ms)",
    "srtt_ms": "SRTT (ms)",
    "cwnd_bytes": "cwnd (bytes)",
    "completion_time_s": "completion time (s)",
    "retransmissions": "retransmissions",
    "rto_count": "RTO count",
    "utilization": "utilization",
    "cc": "congestion control",
    "seed": "seed",
    "point": "sweep point",
}

#: Unit suffixes of column names and how they read on an axis.
UNITS = {
    "mbps": "Mbit/s",
    "kbps": "kbit/s",
    "gbps": "Gbit/s",
    "ms": "ms",
    "us": "µs",
    "s": "s",
    "pct": "%",
    "bytes": "bytes",
    "pkts": "packets",
}


def label(column: str, overrides: dict[str, str] | None = None) -> str:
    """Axis label for a column name."""
    if overrides and column in overrides:
        return overrides[column]
    if column in KNOWN:
        return KNOWN[column]
    if "__" in column:
        metric, entity = column.split("__", 1)
        base = label(metric)
        if base.endswith(")") and " (" in base:
            name, unit = base.rsplit(" (", 1)
            return f"{name}, {entity} ({unit}"
        return f"{base}, {entity}"
    words = column.split("_")
    if len(words) > 1 and words[-1].lower() in UNITS:
        return f"{_words(words[:-1])} ({UNITS[words[-1].lower()]})"
    return _words(words)


#: Words written in capitals on axes.
ACRONYMS = {"rtt", "srtt", "owd", "rto", "cbr", "bdp", "cc", "mss", "ecn", "aqm", "udp", "tcp", "quic"}


def _words(words: list[str]) -> str:
    return " ".join(w.upper() if w.lower() in ACRONYMS else w for w in words if w)


def short_label(column: str) -> str:
    """The label without its unit, for facet titles and legend titles ("buffer", "goodput")."""
    text = label(column)
    return text.rsplit(" (", 1)[0] if text.endswith(")") else text


# Scale of a unit to its base (s, bit/s, bytes); matched case-insensitively.
_SCALE = {
    "": 1.0, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0,
    "bps": 1.0, "kbps": 1e3, "mbps": 1e6, "gbps": 1e9, "tbps": 1e12,
    "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "kib": 1024.0, "mib": 1024.0**2, "gib": 1024.0**3,
}
_NUMBER_UNIT = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\d\s]*)")
_CHUNKS = re.compile(r"(\d+(?:\.\d+)?)")


def natural_key(value: Any) -> tuple[Any, ...]:
    """Sort key: numbers by value; "<number><unit>" strings by the number scaled to the unit's
    base (so "500ms" < "1s" and "0.5bdp" < "2bdp" < "10bdp"), then by unit; other strings
    chunk-wise with digit runs compared as numbers; missing values last."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (3,)
    if isinstance(value, bool):
        return (0, float(value), "", "")
    if isinstance(value, (int, float)) or _is_numpy_number(value):
        return (0, float(value), "", "")
    text = str(value).strip()
    m = _NUMBER_UNIT.fullmatch(text)
    if m:
        number, unit = float(m.group(1)), m.group(2)
        scale = _SCALE.get(unit.lower())
        if scale is not None:
            return (0, number * scale, "", text)
        return (1, unit.lower(), number, text)
    parts = tuple(
        (0, float(p), "") if i % 2 else (1, 0.0, p.lower()) for i, p in enumerate(_CHUNKS.split(text)) if p
    )
    return (2, parts, text)


def natural_sorted(values: Iterable[Any]) -> list[Any]:
    """Distinct values (missing ones dropped) in natural order."""
    seen: dict[Any, None] = {}
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        seen.setdefault(v, None)
    return sorted(seen, key=natural_key)


def format_value(value: Any) -> str:
    """A category value as tick or legend text: 2.0 → "2", 0.25 → "0.25"."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)) or _is_numpy_number(value):
        f = float(value)
        if f.is_integer() and abs(f) < 1e15:
            return str(int(f))
        return f"{f:.4g}"
    return str(value)


def _is_numpy_number(value: Any) -> bool:
    return isinstance(value, np.number)
