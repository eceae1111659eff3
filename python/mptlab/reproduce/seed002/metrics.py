"""Seed 002's per-run metrics, with the definitions the paper leaves out.

Source: Das, Guo, Parsons et al., "Learning Based Scheduling and Adaptive Congestion Control for
Multipath QUIC", IEEE ICC Workshops 2025 (MERL TR2025-083), §V
(`../shared/seeds/002_44a1e3f935d85694.txt`). The paper names its metrics but defines none of
them; each definition below says what we measure and why.

Per run, from the MPQUIC flow of summary.json (`flows[]`, one flow named `mp`):

- **Average data packet delay** (Fig. 4), s: the mean one-way delay of the data packets the
  client received (`owd_ms.mean`), sender to receiver, all paths together. "Data packet" rules
  out the ACK-only packets of the reverse direction.
- **Average inter-packet arrival time** (Figs. 5, 8), s: the mean time between consecutive data
  packets arriving at the client, all paths together (`interarrival_ms.mean`).
- **Average mean jitter** (Fig. 6), s: the mean of the RFC 3550 §6.4.1 interarrival jitter
  samples of the flow (`jitter_ms.mean`); ns-3's FlowMonitor, which the paper's simulator
  offers, has no other jitter.
- **Average throughput** (Figs. 7, 9), Mbit/s: application bytes delivered × 8 over the
  transfer's duration (`bytes_delivered · 8 / completion_time_s`; for a flow that does not
  finish, over the run). The paper's values (0.08-0.13 Mbit/s on paths of 5-250 Mbit/s) are
  about 1/100 of any link's rate and cannot be a transfer's rate in Mbit/s. They are
  consistent with its own inter-packet arrival times: 0.1316 Mbit/s × 0.0491 s ≈ 808 B and
  0.0830 Mbit/s × 0.0458 s ≈ 475 B, i.e. one packet per inter-arrival time, as a per-packet
  rate (packet size / inter-arrival time) averaged over flows whose packets arrive ~50 ms
  apart would give. No unit conversion (kbit/s, MB/s, MiB/s) turns a transfer of a 25 Mb file
  over these paths into 0.13. We keep the transfer rate in Mbit/s, the quantity the paper's
  text talks about ("maximizing data transmission rates"), and report the per-packet reading
  (`pkt_rate_mbps`: mean packet payload × 8 / mean inter-arrival time) beside it.
- **Total delay time** (§V-A-5, §V-B-5), ms: the transfer's completion time beyond what the
  paths' capacity alone needs, `completion_time_s − file bits / (rate_1 + rate_2)`. Not the
  completion time: the published 382.77-1208.92 ms are below the ≥ 2.5 s that 25 megabits need
  on 2 × 5 Mbit/s (and MinRTT's 408.92 ms below the 455 ms they need on 5 + 50 Mbit/s), so
  they cannot be completion times. Not FlowMonitor's delaySum (the sum of every packet's
  delay), which for a 25 Mb file is thousands of packets × ≥ 50 ms, minutes. The extra time is
  of the published size and is what a scheduler controls: head-of-line waits, handshake,
  slow start, losses. The completion time is reported beside it.
- **Flow interruptions** (§V-C): per flow (the TCP cross traffic and the MPQUIC connection),
  the number of stretches of one or more consecutive empty 10 ms goodput bins (`metrics.
  interval` of the cross-traffic scenario) between the flow's first and last delivery to its
  application: the receiving application got nothing for at least one bin. The paper's totals
  (68 837 for TCP against 553 for MPQUIC over six schedulers) can only be counts of frequent,
  short events; a fine time grid is the only definition that counts those without a
  packet-level trace. `stalls_100ms` counts the gaps of at least 100 ms (the longest base RTT
  in the case) as a coarser reading.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: The MPQUIC flow of scenarios/seed002-*.toml, and the TCP cross traffic of seed002-cross.toml.
FLOW = "mp"
TCP_FLOW = "tcp"
#: 25 Mb read as megabits: 3 125 000 B (scenarios/seed002-two-paths.toml).
FILE_BYTES = 3_125_000
#: Goodput bin of the seed-002 scenarios (metrics.interval), s.
BIN_S = 0.01
#: Gap that counts as a long stall in `stalls_100ms`, s.
LONG_GAP_S = 0.1

#: Per-run metric columns of runs.csv.
RUN_COLUMNS = (
    "delay_s", "ipat_s", "jitter_s", "throughput_mbps", "pkt_rate_mbps", "fct_s", "total_delay_ms",
    "bytes_delivered", "loss_pct",
)


def _mean(block: Any, scale: float = 1.0) -> float:
    if not isinstance(block, dict) or block.get("mean") is None:
        return float("nan")
    return float(block["mean"]) * scale


def flow_of(summary: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((f for f in summary.get("flows", []) if f.get("name") == name), None)


def run_record(summary: dict[str, Any], capacity_bps: float, duration_s: float) -> dict[str, float]:
    """The per-run metrics of the MPQUIC flow (RUN_COLUMNS); `capacity_bps` is the sum of the two
    paths' bottleneck rates, `duration_s` the run's length (for flows that do not finish)."""
    f = flow_of(summary, FLOW)
    rec = {c: float("nan") for c in RUN_COLUMNS}
    if f is None:
        return rec
    delivered = float(f.get("bytes_delivered") or 0)
    fct = f.get("completion_time_s")
    span = float(fct) if fct else duration_s
    ipat_ms = _mean(f.get("interarrival_ms"))
    count = (f.get("owd_ms") or {}).get("count") or 0
    payload = delivered / count if count else float("nan")
    rec.update(
        delay_s=_mean(f.get("owd_ms"), 1e-3),
        ipat_s=ipat_ms * 1e-3,
        jitter_s=_mean(f.get("jitter_ms"), 1e-3),
        throughput_mbps=delivered * 8 / span / 1e6 if span > 0 else float("nan"),
        pkt_rate_mbps=payload * 8 / (ipat_ms * 1e-3) / 1e6 if ipat_ms and ipat_ms > 0 else float("nan"),
        fct_s=float(fct) if fct else float("nan"),
        total_delay_ms=total_delay_ms(float(fct), delivered, capacity_bps) if fct else float("nan"),
        bytes_delivered=delivered,
        loss_pct=float(f.get("loss_pct") or 0.0),
    )
    return rec


def total_delay_ms(fct_s: float, file_bytes: float, capacity_bps: float) -> float:
    """Completion time beyond file bits / aggregate capacity, in ms (see the module header)."""
    return (fct_s - file_bytes * 8 / capacity_bps) * 1e3


def interruptions(goodput_mbps: np.ndarray, bin_s: float = BIN_S, min_gap_s: float = 0.0) -> int:
    """Stretches of consecutive empty bins between the first and the last non-empty bin, counting
    only stretches of at least `min_gap_s` (0: every stretch, however short)."""
    v = np.asarray(goodput_mbps, dtype=float)
    busy = np.flatnonzero(v > 0)
    if len(busy) < 2:
        return 0
    gaps = np.diff(busy) - 1  # empty bins between consecutive busy bins
    need = max(1, int(np.ceil(min_gap_s / bin_s - 1e-9)))
    return int(np.sum(gaps >= need))


def cumulative_bytes(series: pd.DataFrame, bin_s: float = BIN_S) -> pd.DataFrame:
    """Bytes received over time from a goodput series (t_s = bin start, value = Mbit/s):
    columns t_s (bin end) and rx_bytes."""
    s = series.sort_values("t_s")
    rx = np.cumsum(s["value"].to_numpy(float) * 1e6 * bin_s / 8)
    return pd.DataFrame({"t_s": s["t_s"].to_numpy(float) + bin_s, "rx_bytes": rx})
