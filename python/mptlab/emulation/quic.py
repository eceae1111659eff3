"""mptlab-mpquic's reports (crates/mptlab-mpquic) in the terms the summary reads for kernel
flows: the receiver's bytes per run interval and last byte, and per path what `ss` gives for a
TCP subflow.

The server bins bytes from the connection's creation (`bins_start_mono`, CLOCK_MONOTONIC, the
clock the run's t0 is on); each of its bins is spread over the run's bins by overlap. Per path
(the client's report, matched to the scenario's paths by local address): `sent_bytes` as
bytes_sent, `sent_packets` as data segments, `lost_packets` as retransmissions (QUIC resends
lost frames in new packets), `srtt_us`, `min_rtt_us`, `cwnd_bytes` at the end.
"""

from __future__ import annotations

from typing import Any

from mptlab.emulation.plan import FlowPlan


def receiver(server: dict[str, Any] | None, t0: float, interval: float, duration: float, size: int | None
             ) -> dict[str, Any]:
    n = max(1, int(-(-duration // interval)))
    bins = [0.0] * n
    if not server or server.get("bins_start_mono") is None:
        return {"bytes": 0, "bins": bins, "last_byte_s": None, "eof": False}
    start = server["bins_start_mono"] - t0
    width = server.get("interval_s") or interval
    for k, b in enumerate(server.get("interval_bytes") or []):
        a, e = start + k * width, start + (k + 1) * width
        for j in range(max(0, int(a // interval)), min(n, int(e // interval) + 1)):
            overlap = min(e, (j + 1) * interval) - max(a, j * interval)
            if overlap > 0:
                bins[j] += b * overlap / width
    total = server.get("total_bytes", 0)
    last = server.get("last_byte_mono")
    return {"bytes": total, "bins": bins, "last_byte_s": None if last is None else last - t0,
            "eof": size is not None and total >= size}


def paths(client: dict[str, Any] | None, f: FlowPlan) -> list[dict[str, Any]]:
    """One ss-like record per scenario path (empty when tquic reported none for it)."""
    reported = {p["local"].rsplit(":", 1)[0]: p for p in (client or {}).get("paths") or []}
    out = []
    for p in f.paths:
        r = reported.get(p.src_addr)
        if r is None:
            out.append({})
            continue
        out.append({"bytes_sent": r.get("sent_bytes", 0), "data_segs_out": r.get("sent_packets", 0),
                    "retrans_total": r.get("lost_packets", 0), "srtt_ms": r.get("srtt_us", 0) / 1000,
                    "minrtt_ms": r.get("min_rtt_us", 0) / 1000, "cwnd_bytes": r.get("cwnd_bytes")})
    return out
