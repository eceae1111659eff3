"""Seed 004's metrics as the paper defines them (Guo et al. 2025, Sec. VII-A; study notes §6.2
and §7 F), read from one run's summary (and time series).

- Transmissions (F1): "number of TCP data and ACK packet transmissions", in three readings:
  (a) `tcp_segments`: TCP segments emitted by the endpoints, data (retransmissions included) +
      ACKs, summed over flows. This is the one compared with the paper's Figs. 5, 8, 12;
  (b) `hop_transmissions`: network-layer transmissions summed over every hop (relays count),
      the links' `packets`;
  (c) `mac_attempts`: MAC frame attempts including MAC retries (and `mac_retries`, `mac_drops`).
- Completion time (F4): the latest flow completion, i.e. from t = 0 (all flows start at 0) to
  the last data packet delivered at the DC. A run that did not deliver everything is censored:
  its completion is NaN and `censored` is true.
- Throughput (F5): delivered payload bits / completion time (= nodes x 100 x 8000 bit /
  completion when all arrive; it reproduces the paper's printed values, notes §6.4), kbit/s.
- Latency (F2): the one-way delay of each data packet, source send to DC receipt, as the
  simulator measures it (`owd`); pooled over the run's flows as a quantile function.
- Delivery rate (F3): per hop, at the network layer: frames handed to a hop that reached the
  next node / frames handed to it, summed over hops (TCP ACKs included: the summary has no
  per-kind split on the mesh), overall and in 1 s bins ("at the beginning" = the lowest bin in
  the first EARLY_S seconds).

Every summary field name this module reads is in FLOW_FIELDS, LINK_FIELDS and TS_SERIES: the
Wi-Fi counters are new in the simulator, and those tables are the only thing to adapt when
their names settle. Each entry lists candidate names, the first present wins.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

PACKET_BITS = 8000
#: "at the beginning" (F3): the first this many seconds.
EARLY_S = 10.0
#: Quantile levels of the pooled latency function.
LEVELS = np.round(np.linspace(0.0, 1.0, 101), 2)

FLOW_FIELDS: dict[str, tuple[str, ...]] = {
    "bytes": ("bytes_delivered",),
    "completion": ("completion_s", "completion_time_s"),
    "data_sent": ("data_packets_sent", "sent_packets"),
    "acks_sent": ("ack_packets_sent",),
    "latency_samples": ("latency_ms", "owd_samples_ms", "data_owd_ms"),  # per-packet lists
    "latency_stats": ("owd_ms",),  # {count, mean, p50, p95, p99, max}
}
LINK_FIELDS: dict[str, tuple[str, ...]] = {
    "name": ("name",),
    "packets": ("packets",),
    "offered": ("offered_packets", "packets"),
    "drops": ("drops",),
    "mac_attempts": ("mac_attempts",),
    "mac_retries": ("mac_retries",),
    "mac_drops": ("mac_drops",),
}
#: Time series (per link direction, per interval) for the delivery rate over time.
TS_SERIES: dict[str, tuple[str, ...]] = {
    "sent": ("wifi_frames", "mac_frames", "link_packets", "mac_attempts"),
    "lost": ("wifi_drops", "mac_drops", "link_drops"),
}


def field(obj: Mapping[str, Any], names: Sequence[str], default: Any = None) -> Any:
    """The value of the first of `names` present (and not None) in `obj`."""
    for n in names:
        v = obj.get(n)
        if v is not None:
            return v
    return default


def _num(obj: Mapping[str, Any], key: str, table: Mapping[str, Sequence[str]]) -> float:
    v = field(obj, table[key])
    return float(v) if v is not None else float("nan")


def _sum(vals: Sequence[float]) -> float:
    a = np.asarray(vals, dtype=float)
    return float(np.nansum(a)) if len(a) and not np.isnan(a).all() else float("nan")


def run_metrics(summary: Mapping[str, Any], nodes: int) -> dict[str, Any]:
    """The paper's scalar metrics of one run (module docstring)."""
    flows = summary.get("flows", [])
    links = [_flat_mac(lk) for lk in summary.get("links", [])]
    delivered = _sum([_num(f, "bytes", FLOW_FIELDS) for f in flows]) / 1000.0
    comps = [_num(f, "completion", FLOW_FIELDS) for f in flows]
    expected = nodes * 100
    censored = (not flows) or any(math.isnan(c) for c in comps) or not delivered >= expected
    completion = float("nan") if censored else max(comps)
    data = _sum([_num(f, "data_sent", FLOW_FIELDS) for f in flows])
    acks = _sum([_num(f, "acks_sent", FLOW_FIELDS) for f in flows])
    offered = [_num(lk, "offered", LINK_FIELDS) for lk in links]
    lost = [max(_num(lk, "drops", LINK_FIELDS), _num(lk, "mac_drops", LINK_FIELDS)) if not math.isnan(_num(lk, "mac_drops", LINK_FIELDS))
            else _num(lk, "drops", LINK_FIELDS) for lk in links]
    off = _sum(offered)
    lat = latency_quantiles(flows, summary.get("data_owd_cdf_ms"))
    median = float(lat.loc[lat["q"] == 0.5, "latency_ms"].iloc[0]) if not lat.empty else float("nan")
    return {
        "delivered_packets": delivered,
        "expected_packets": expected,
        "e2e_delivery_pct": 100.0 * delivered / expected if expected else float("nan"),
        "censored": bool(censored),
        "completion_s": completion,
        "throughput_kbps": delivered * PACKET_BITS / completion / 1000.0 if completion > 0 else float("nan"),
        "data_segments": data,
        "ack_segments": acks,
        "tcp_segments": data + acks,
        "hop_transmissions": _sum([_num(lk, "packets", LINK_FIELDS) for lk in links]),
        "mac_attempts": _sum([_num(lk, "mac_attempts", LINK_FIELDS) for lk in links]),
        "mac_retries": _sum([_num(lk, "mac_retries", LINK_FIELDS) for lk in links]),
        "mac_drops": _sum([_num(lk, "mac_drops", LINK_FIELDS) for lk in links]),
        "hop_delivery_pct": 100.0 * (1.0 - _sum(lost) / off) if off > 0 else float("nan"),
        "latency_p50_ms": median,
        "latency_exact": bool(lat["exact"].all()) if not lat.empty else False,
    }


def _flat_mac(link: Mapping[str, Any]) -> dict[str, Any]:
    """A link record with its Wi-Fi MAC counters (`mac`: attempts, retries, retry_drops) as the
    flat mac_attempts, mac_retries, mac_drops keys LINK_FIELDS reads."""
    out = dict(link)
    mac = link.get("mac") or {}
    for k, v in (("mac_attempts", "attempts"), ("mac_retries", "retries"), ("mac_drops", "retry_drops")):
        if mac.get(v) is not None:
            out[k] = mac[v]
    return out


def latency_quantiles(flows: Sequence[Mapping[str, Any]], pooled: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The pooled data-packet latency of a run's flows as a quantile function: columns q
    (LEVELS), latency_ms, exact. From the summary's pooled `data_owd_cdf_ms` (every data packet
    of the detailed flows, quantiles at 0..100 %, log-histogram resolution within 3.1 %) when
    given (exact = True); else from per-packet samples when the summary has them (exact);
    else from each flow's quantile summary (p0 = min or 0, p50, p95, p99, max), each read as a
    piecewise-linear CDF and mixed by packet count (approximate: exact = False)."""
    if pooled and pooled.get("count") and len(pooled.get("quantiles") or []) == 101:
        qs = np.asarray(pooled["quantiles"], dtype=float)
        return pd.DataFrame({"q": LEVELS, "latency_ms": np.interp(LEVELS, np.linspace(0.0, 1.0, 101), qs), "exact": True})
    samples = [np.asarray(field(f, FLOW_FIELDS["latency_samples"]), dtype=float) for f in flows
               if field(f, FLOW_FIELDS["latency_samples"]) is not None]
    if samples and sum(len(s) for s in samples):
        pooled = np.concatenate(samples)
        return pd.DataFrame({"q": LEVELS, "latency_ms": np.quantile(pooled, LEVELS), "exact": True})
    curves = []
    for f in flows:
        st = field(f, FLOW_FIELDS["latency_stats"])
        if not st or not st.get("count"):
            continue
        pts = [(0.0, float(st.get("min", 0.0) or 0.0))]
        for q, k in ((0.5, "p50"), (0.95, "p95"), (0.99, "p99"), (1.0, "max")):
            if st.get(k) is not None:
                pts.append((q, float(st[k])))
        qs, xs = zip(*sorted(pts))
        curves.append((np.maximum.accumulate(np.asarray(xs)), np.asarray(qs), float(st["count"])))
    if not curves:
        return pd.DataFrame(columns=["q", "latency_ms", "exact"])
    grid = np.unique(np.concatenate([c[0] for c in curves]))
    total = sum(c[2] for c in curves)
    cdf = sum(c[2] * np.interp(grid, c[0], c[1], left=0.0, right=1.0) for c in curves) / total
    cdf = np.maximum.accumulate(cdf)
    values = np.interp(LEVELS, cdf, grid)
    return pd.DataFrame({"q": LEVELS, "latency_ms": values, "exact": False})


def share_faster(p: pd.DataFrame, c: pd.DataFrame) -> float:
    """Percent of packets P-MPTCP delivers faster than C-MPTCP, read off the two quantile
    functions: the share of levels q in (0, 1] where P's latency is below C's (the paper's "P
    delivers 80 % of data packets faster", Figs. 6, 9, 13). NaN when either is missing."""
    if p.empty or c.empty:
        return float("nan")
    j = p.merge(c, on="q", suffixes=("_p", "_c"))
    j = j[j["q"] > 0]
    return float(100.0 * (j["latency_ms_p"] < j["latency_ms_c"]).mean())


def delivery_over_time(ts: pd.DataFrame | None, bin_s: float = 1.0) -> pd.DataFrame:
    """Per-hop delivery rate in `bin_s` bins (columns t_s, delivery_pct) from the run's time
    series, summed over link directions; empty when the series (TS_SERIES) are absent."""
    cols = ["t_s", "delivery_pct"]
    if ts is None or ts.empty:
        return pd.DataFrame(columns=cols)
    names = set(ts["series"].unique())
    sent = next((n for n in TS_SERIES["sent"] if n in names), None)
    lost = next((n for n in TS_SERIES["lost"] if n in names), None)
    if sent is None or lost is None:
        return pd.DataFrame(columns=cols)
    b = (ts["t_s"] // bin_s) * bin_s
    s = ts[ts["series"] == sent].groupby(b[ts["series"] == sent])["value"].sum()
    d = ts[ts["series"] == lost].groupby(b[ts["series"] == lost])["value"].sum().reindex(s.index, fill_value=0.0)
    keep = s > 0
    return pd.DataFrame({"t_s": s.index[keep].to_numpy(dtype=float), "delivery_pct": (100.0 * (1.0 - d[keep] / s[keep])).to_numpy()})


def early_delivery(curve: pd.DataFrame, early_s: float = EARLY_S) -> float:
    """The lowest binned delivery rate in the first `early_s` seconds (NaN without a curve)."""
    if curve.empty:
        return float("nan")
    e = curve[curve["t_s"] < early_s]
    return float(e["delivery_pct"].min()) if not e.empty else float("nan")


def generation_floor(nodes: int, packets: int = 100, rate: float = 10.0, draws: int = 20000, seed: int = 4) -> float:
    """The expected time the last of `nodes` Poisson sources generates its `packets`-th packet:
    E[max of `nodes` Gamma(packets, 1/rate)], by a fixed-seed Monte Carlo (notes §6.4: 12.1,
    12.4, 12.7 s for 25, 50, 100 nodes). No completion can beat it."""
    rng = np.random.default_rng(seed)
    return float(rng.gamma(packets, 1.0 / rate, size=(draws, nodes)).max(axis=1).mean())
