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

The summary keys read (python/mptlab/_core.pyi): per flow `bytes_delivered`, `sent_packets`,
`ack_packets_sent`, `completion_time_s` (null when the flow did not finish); per link
`offered_packets`, `packets`, `drops` and the Wi-Fi MAC counters `mac` {attempts, retries,
retry_drops}; the run's pooled `data_owd_cdf_ms` (present when any flow measured a one-way
delay); and the time series `wifi_frames` and `wifi_drops`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

PACKET_BITS = 8000
#: "at the beginning" (F3): the first this many seconds.
EARLY_S = 10.0
#: Quantile levels of the pooled latency function.
LEVELS = np.round(np.linspace(0.0, 1.0, 101), 2)


def _sum(vals: Sequence[float | None]) -> float:
    a = np.asarray(vals, dtype=float)
    return float(np.nansum(a)) if len(a) and not np.isnan(a).all() else float("nan")


def _total(rows: Sequence[Mapping[str, Any]], key: str) -> float:
    """The sum of `key` over `rows` (NaN when no row has it)."""
    return _sum([r.get(key) for r in rows])


def run_metrics(summary: Mapping[str, Any], nodes: int, lat: pd.DataFrame | None = None) -> dict[str, Any]:
    """The paper's scalar metrics of one run (module docstring). `lat`: the run's
    latency_quantiles when the caller has them already."""
    flows = summary.get("flows", [])
    links = summary.get("links", [])
    macs = [lk.get("mac") or {} for lk in links]
    delivered = _total(flows, "bytes_delivered") / 1000.0
    comps = np.asarray([f.get("completion_time_s") for f in flows], dtype=float)
    expected = nodes * 100
    censored = (not flows) or bool(np.isnan(comps).any()) or not delivered >= expected
    completion = float("nan") if censored else float(comps.max())
    data = _total(flows, "sent_packets")
    acks = _total(flows, "ack_packets_sent")
    off = _total(links, "offered_packets")
    lost = _total(links, "drops")
    if lat is None:
        lat = latency_quantiles(summary.get("data_owd_cdf_ms"))
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
        "hop_transmissions": _total(links, "packets"),
        "mac_attempts": _total(macs, "attempts"),
        "mac_retries": _total(macs, "retries"),
        "mac_drops": _total(macs, "retry_drops"),
        "hop_delivery_pct": 100.0 * (1.0 - lost / off) if off > 0 else float("nan"),
        "latency_p50_ms": median,
    }


def latency_quantiles(pooled: Mapping[str, Any] | None) -> pd.DataFrame:
    """The pooled data-packet latency of a run's flows as a quantile function: columns q
    (LEVELS), latency_ms, exact (always True). From the summary's pooled `data_owd_cdf_ms` (every
    data packet of the detailed flows, quantiles at 0..100 %, log-histogram resolution within
    3.1 %); empty when the run has none."""
    if pooled and pooled.get("count"):
        return pd.DataFrame({"q": LEVELS, "latency_ms": np.asarray(pooled["quantiles"], dtype=float), "exact": True})
    return pd.DataFrame(columns=["q", "latency_ms", "exact"])


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
    series `wifi_frames` and `wifi_drops`, summed over link directions; empty when they are absent."""
    cols = ["t_s", "delivery_pct"]
    if ts is None or ts.empty:
        return pd.DataFrame(columns=cols)
    sent, lost = "wifi_frames", "wifi_drops"
    names = set(ts["series"].unique())
    if sent not in names or lost not in names:
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
