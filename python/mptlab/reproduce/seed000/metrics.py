"""Seed 000's per-run metrics, with the definitions the paper leaves out (ambiguities A10-A12,
A17 of ../shared/studies/seed000.md).

Source: Picchi & Tarchi, "Joint Congestion Control Evaluation for MPTCP and MPQUIC over
Multi-Link Backhails with eMBB and mMTC-like Traffic" (2026), Sec. 3.5 and Tables 2-23
(`../shared/seeds/000_7272a87026c0b860.txt`). The paper names its metrics and defines none;
each definition below says what we measure.

A *family* is the paper's protocol: MPTCP or MPQUIC, the union of the scenario's flow entries
of that transport (`mptcp`, or `mptcp-high` + `mptcp-low` in the mixed scenario). Every
interval statistic leaves out the warm-up (`warmup_s`: 10 s, or a third of a shorter run).

- **Throughput** (A10), Mbit/s: a family's wire bytes on TN1 or TN2 per 1 s bin (the sum of its
  groups' `link_group_mbps` series, entity "<link>:<group>"), the bins after the warm-up;
  Min/Max/μ/σ over those bins, σ the population standard deviation (ddof 0: the bins are the
  whole measured run, not a sample of a larger one).
- **Link-level jitter** (A11), ms: RFC 3550 §6.4.1 J over the merged packet stream of the link
  (`link_jitter_ms`, entity "<link>"), one mean per `metrics.trace_interval`; the table value is
  μ over the post-warm-up interval means.
- **Protocol-specific jitter** (A11), ms: RFC 3550 J per subflow (MPTCP) or path (MPQUIC) on the
  link, pooled over the family's subflows (`link_group_subflow_jitter_ms`); a family with
  several groups (mixed) combines the groups' interval means weighted by each group's packets
  on that link. The table value is μ over the post-warm-up interval means. Beside it, as a
  sensitivity: the merged stream of each family on the link (`link_group_jitter_ms`, A11(a)
  per protocol) and per-subflow jitter at link level (`link_subflow_jitter_ms`).
- **Packet loss** (A12), %: one sample per UE, its `loss_pct` (data packets dropped / data
  packets sent, retransmissions included) over the whole run; Min/Max/μ/σ (population) over
  the family's UEs.
- **Jain's index** (Tables 2, 11): J(x, y) = (x + y)² / (2 (x² + y²)) with x, y the two
  families' mean throughputs on one link, and "total" with x, y each family's TN1 + TN2 sum
  (`shared/reference/check_seed000.py`; Jain, Chiu, Hawe, DEC-TR-301, 1984).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

#: The paper's protocols, in its column order.
FAMILIES = ("MPTCP", "MPQUIC")
#: Engine link name -> the paper's.
LINKS = {"tn1": "TN1", "tn2": "TN2"}
#: Longest warm-up excluded from interval statistics, s.
WARMUP_S = 10.0
STATS = ("min", "max", "mean", "std")
#: Time series read from the store.
THROUGHPUT_SERIES = "link_group_mbps"
LINK_JITTER = "link_jitter_ms"
LINK_SUBFLOW_JITTER = "link_subflow_jitter_ms"
GROUP_JITTER = "link_group_jitter_ms"
GROUP_SUBFLOW_JITTER = "link_group_subflow_jitter_ms"
SERIES = (THROUGHPUT_SERIES, LINK_JITTER, LINK_SUBFLOW_JITTER, GROUP_JITTER, GROUP_SUBFLOW_JITTER)


def warmup_s(duration_s: float) -> float:
    """The warm-up left out of interval statistics: 10 s, or a third of a run shorter than 30 s."""
    return min(WARMUP_S, duration_s / 3)


def family_of(entry: str) -> str | None:
    """"MPTCP" for a flow entry named mptcp*, "MPQUIC" for mpquic*, None otherwise."""
    name = entry.lower()
    if name.startswith("mpquic"):
        return "MPQUIC"
    if name.startswith("mptcp"):
        return "MPTCP"
    return None


def jain(x: float, y: float) -> float:
    """Jain's index of two values; NaN when either is missing or both are 0."""
    if not (math.isfinite(x) and math.isfinite(y)) or x == 0 and y == 0:
        return float("nan")
    return (x + y) ** 2 / (2 * (x * x + y * y))


def jain_cells(means: Mapping[tuple[str, str], float]) -> dict[str, float]:
    """Tables 2/11's cells from {(family, "TN1"/"TN2"): mean}: keys "TN1", "TN2", "total"."""
    out = {link: jain(means[("MPTCP", link)], means[("MPQUIC", link)]) for link in LINKS.values()}
    out["total"] = jain(sum(means[("MPTCP", l)] for l in LINKS.values()),
                        sum(means[("MPQUIC", l)] for l in LINKS.values()))
    return out


def describe(values: Iterable[float]) -> dict[str, float]:
    """min, max, mean, std (population) of the finite values; NaN for none."""
    v = np.asarray([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if v.size == 0:
        return {s: float("nan") for s in STATS}
    return {"min": float(v.min()), "max": float(v.max()), "mean": float(v.mean()), "std": float(v.std(ddof=0))}


def column(metric: str, family: str | None, link: str | None, stat: str) -> str:
    """The runs.csv column of one quantity: thr_MPTCP_TN1_mean, jit_all_TN2_mean,
    loss_MPQUIC_total_std, jain_all_total_value."""
    return f"{metric}_{family or 'all'}_{link or 'total'}_{stat}"


def _by_group(summary: dict[str, Any], link: str) -> dict[str, Any]:
    """`by_group` of the link's data direction (uplink: the direction that carried more bytes;
    the time series' entity "<link>" is that direction too, "<link>.rev" the ACKs)."""
    recs = [l for l in summary.get("links", []) if l.get("name") == link]
    rec = max(recs, key=lambda l: l.get("bytes") or 0, default=None)
    return (rec or {}).get("by_group") or {}


def family_bins(series: pd.DataFrame, name: str, link: str, family: str, warmup: float) -> pd.Series:
    """A family's throughput per post-warm-up bin on `link` (index t_s), summed over its groups;
    empty when the run has no such series."""
    s = series[(series["series"] == name) & series["entity"].str.startswith(f"{link}:")]
    s = s[s["entity"].map(lambda e: family_of(e.split(":", 1)[1]) == family) & (s["t_s"] >= warmup - 1e-9)]
    return s.groupby("t_s")["value"].sum()


def family_jitter(series: pd.DataFrame, name: str, link: str, family: str, warmup: float,
                  weights: Mapping[str, float]) -> pd.Series:
    """A family's jitter interval means on `link` (index t_s) from a per-group series: the
    groups' means weighted by `weights` (group -> packets on the link; equal when missing)."""
    s = series[(series["series"] == name) & series["entity"].str.startswith(f"{link}:") & (series["t_s"] >= warmup - 1e-9)]
    s = s.assign(group=s["entity"].str.split(":", n=1).str[1])
    s = s[s["group"].map(family_of) == family]
    if s.empty:
        return pd.Series(dtype=float)
    w = s["group"].map(lambda g: float(weights.get(g) or 0.0) or 1.0)
    num = (s["value"] * w).groupby(s["t_s"]).sum()
    return num / w.groupby(s["t_s"]).sum()


def link_series(series: pd.DataFrame, name: str, link: str, warmup: float) -> pd.Series:
    s = series[(series["series"] == name) & (series["entity"] == link) & (series["t_s"] >= warmup - 1e-9)]
    return s.set_index("t_s")["value"]


def run_record(summary: dict[str, Any], series: pd.DataFrame, flows: pd.DataFrame, duration_s: float) -> dict[str, float]:
    """Every per-run quantity of the tables (columns named by `column`) plus the sensitivity
    jitters (`jit_merged_*`, `jit_subflow_all_*`) and each link's wire total (`wire_all_<link>_mean`).
    `series`: the run's rows of SERIES (series, entity, t_s, value); `flows`: one row per flow
    with its entry (`group`) and `loss_pct`."""
    warm = warmup_s(duration_s)
    rec: dict[str, float] = {}
    means: dict[tuple[str, str], float] = {}
    for link, label in LINKS.items():
        weights = {g: float(v.get("packets") or 0) for g, v in _by_group(summary, link).items()}
        total = None
        for fam in FAMILIES:
            bins = family_bins(series, THROUGHPUT_SERIES, link, fam, warm)
            for stat, v in describe(bins.to_numpy()).items():
                rec[column("thr", fam, label, stat)] = v
            means[(fam, label)] = rec[column("thr", fam, label, "mean")]
            total = bins if total is None else total.add(bins, fill_value=0.0)
            rec[column("jit", fam, label, "mean")] = _mean(family_jitter(series, GROUP_SUBFLOW_JITTER, link, fam, warm, weights))
            rec[column("jitmerged", fam, label, "mean")] = _mean(family_jitter(series, GROUP_JITTER, link, fam, warm, weights))
        rec[column("wire", None, label, "mean")] = _mean(total) if total is not None else float("nan")
        rec[column("jit", None, label, "mean")] = _mean(link_series(series, LINK_JITTER, link, warm))
        rec[column("jitsubflow", None, label, "mean")] = _mean(link_series(series, LINK_SUBFLOW_JITTER, link, warm))
    for key, v in jain_cells(means).items():
        rec[column("jain", None, key, "value")] = v
    fam_of_flow = flows["group"].astype(str).map(family_of) if not flows.empty else pd.Series(dtype=object)
    for fam in FAMILIES:
        losses = flows.loc[fam_of_flow == fam, "loss_pct"].astype(float) if not flows.empty else []
        for stat, v in describe(losses).items():
            rec[column("loss", fam, None, stat)] = v
        rec[f"ues_{fam}"] = float(len(losses))
    return rec


def interval_samples(series: pd.DataFrame, summary: dict[str, Any], duration_s: float) -> pd.DataFrame:
    """The distributions of the paper's panels, one row per sample: panel ("a" throughput per
    family and link, "b" link-level jitter, "c"/"d" protocol-specific jitter on TN1/TN2), link,
    protocol ("all" for b), value."""
    warm = warmup_s(duration_s)
    rows: list[pd.DataFrame] = []
    for link, label in LINKS.items():
        weights = {g: float(v.get("packets") or 0) for g, v in _by_group(summary, link).items()}
        for fam in FAMILIES:
            rows.append(_frame("a", label, fam, family_bins(series, THROUGHPUT_SERIES, link, fam, warm)))
            panel = "c" if label == "TN1" else "d"
            rows.append(_frame(panel, label, fam, family_jitter(series, GROUP_SUBFLOW_JITTER, link, fam, warm, weights)))
        rows.append(_frame("b", label, "all", link_series(series, LINK_JITTER, link, warm)))
    out = pd.concat([r for r in rows if not r.empty], ignore_index=True) if any(not r.empty for r in rows) else None
    return out if out is not None else pd.DataFrame(columns=["panel", "link", "protocol", "value"])


def _frame(panel: str, link: str, protocol: str, values: pd.Series) -> pd.DataFrame:
    v = values.to_numpy(dtype=float)
    return pd.DataFrame({"panel": panel, "link": link, "protocol": protocol, "value": v[np.isfinite(v)]})


def _mean(values: pd.Series | Sequence[float]) -> float:
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return float(v.mean()) if v.size else float("nan")
