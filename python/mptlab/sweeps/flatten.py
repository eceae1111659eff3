"""Turn one run's summary.json into flat store rows: one `runs` row, `flows` rows, `links` rows.

The columns (documented in docs/sweeps.md) are plain numbers named after the summary fields,
so SQL over the store reads like the summary: `goodput_mbps` is a run's aggregate goodput,
`goodput_mbps__bulk` the same for flow group `bulk`, `queue_delay_ms__bottleneck` the mean
queueing delay of link `bottleneck`. Per-entity columns use a double underscore so group and
link names (which may contain single underscores) stay readable.

Pure functions of the summary: the same run gives the same rows on any machine.
"""

from __future__ import annotations

from typing import Any


def run_metrics(summary: dict[str, Any]) -> dict[str, Any]:
    """Run-level metrics: aggregates over flows, then per group, protocol and link."""
    flows = summary.get("flows", [])
    row: dict[str, Any] = {
        "flows": len(flows),
        "goodput_mbps": sum(stat(f, "goodput_mbps", "mean") or 0.0 for f in flows),
        "jain": summary.get("jain_all_flows"),
        "loss_pct": _loss_pct(summary.get("protocols", {}).values()),
        "owd_ms": _weighted_mean(flows, "owd_ms"),
        "jitter_ms": _mean(stat(f, "jitter_ms", "mean") for f in flows),
        "retransmissions": sum(f.get("retransmissions") or 0 for f in flows),
        "rto_count": sum(f.get("rto_count") or 0 for f in flows),
        "completion_time_s": _max(f.get("completion_time_s") for f in flows),
    }
    for g in summary.get("groups", []):
        row[f"goodput_mbps__{g['name']}"] = g.get("goodput_mbps_total")
        row[f"jain__{g['name']}"] = g.get("jain")
    for name, p in sorted(summary.get("protocols", {}).items()):
        row[f"loss_pct__{name}"] = p.get("loss_pct")
    for link in summary.get("links", []):
        if not link.get("packets"):
            continue  # links that carried nothing would only add empty columns
        if link.get("detailed") is False:
            # Undetailed links (group access links by default, metrics.detail_links) stay in
            # the run's links table: 12,000 devices would add ~96,000 columns, more than a
            # DuckDB row holds.
            continue
        name = link["name"]
        row[f"throughput_mbps__{name}"] = stat(link, "throughput_mbps", "mean")
        row[f"utilization__{name}"] = _utilization(link)
        row[f"queue_delay_ms__{name}"] = stat(link, "queue_delay_ms", "mean")
        row[f"drop_pct__{name}"] = link.get("drop_pct")
    for tun in summary.get("tunnels", []):
        row.update(_tunnel_columns(tun))
    return row


def _tunnel_columns(tun: dict[str, Any]) -> dict[str, Any]:
    """A tunnel's run-level numbers: secondary share, scheduler-buffer drops, reordering
    counts, and per path its inner throughput, losses and SRTT (`tunnel_<metric>__<name>[_<i>]`)."""
    name = tun["name"]
    buf = tun.get("buffer") or {}
    ro = (tun.get("egress_counters") or {}).get("reorder") or {}
    cols: dict[str, Any] = {
        f"tunnel_secondary_share__{name}": tun.get("secondary_share"),
        f"tunnel_buffer_drops__{name}": buf.get("dropped"),
        f"tunnel_reorder_forced__{name}": ro.get("forced"),
        f"tunnel_reorder_late__{name}": ro.get("late"),
        f"tunnel_hold_ms_mean__{name}": (ro.get("hold_time") or {}).get("mean_ms"),
    }
    for i, p in enumerate(tun.get("paths") or []):
        cols[f"tunnel_path_mbps__{name}_{i}"] = stat(p, "throughput_mbps", "mean")
        cols[f"tunnel_path_lost__{name}_{i}"] = p.get("packets_lost")
        cols[f"tunnel_path_srtt_ms__{name}_{i}"] = p.get("srtt_ms")
    return cols


def flow_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per flow: its identity and its headline metrics."""
    rows = []
    for f in summary.get("flows", []):
        rows.append(
            {
                "flow": f["name"],
                "group": f.get("group"),
                "protocol": f.get("protocol"),
                "cc": f.get("cc"),
                "src": f.get("src"),
                "dst": f.get("dst"),
                "goodput_mbps": stat(f, "goodput_mbps", "mean"),
                "goodput_mbps_p50": stat(f, "goodput_mbps", "p50"),
                "goodput_mbps_std": stat(f, "goodput_mbps", "std"),
                "jitter_ms": stat(f, "jitter_ms", "mean"),
                "jitter_ms_p95": stat(f, "jitter_ms", "p95"),
                "owd_ms": stat(f, "owd_ms", "mean"),
                "owd_ms_p95": stat(f, "owd_ms", "p95"),
                "owd_ms_p99": stat(f, "owd_ms", "p99"),
                "loss_pct": f.get("loss_pct"),
                "srtt_ms": f.get("srtt_ms_mean"),
                "retransmissions": f.get("retransmissions"),
                "rto_count": f.get("rto_count"),
                "completion_time_s": f.get("completion_time_s"),
                "bytes_delivered": f.get("bytes_delivered"),
                **_multipath_columns(f),
            }
        )
    return rows


def _multipath_columns(flow: dict[str, Any]) -> dict[str, Any]:
    """The scheduler and per-path columns of any transport with paths (MPTCP subflows, QUIC
    and multipath QUIC paths: the shared `paths` block of docs/metrics.md), with seed 001's
    connection metrics for MPTCP; empty for TCP and UDP. Per-path columns carry the path index:
    `srtt_ms_av__path0`, `drop_rate_per_s__path1`.
    """
    paths = flow.get("paths")
    if not isinstance(paths, list):
        return {}
    row: dict[str, Any] = {"scheduler": flow.get("scheduler"), **_mptcp_columns(flow.get("mptcp"))}
    for p in paths:
        k = p.get("index")
        row[f"srtt_ms_av__path{k}"] = p.get("srtt_ms_mean")
        row[f"srtt_ms_max__path{k}"] = p.get("srtt_ms_max")
        row[f"drop_rate_per_s__path{k}"] = p.get("drop_rate_per_s")
        row[f"share__path{k}"] = p.get("share")
    return row


def _mptcp_columns(mp: dict[str, Any] | None) -> dict[str, Any]:
    """Seed 001's connection-level metrics of an MPTCP flow (docs/mptcp.md); empty for other
    flows (per-path metrics come from `paths`, as for every multipath transport)."""
    if not isinstance(mp, dict):
        return {}
    return {
        "protocol_delay_ms_av": stat(mp, "protocol_delay_ms", "v_av"),
        "protocol_delay_ms_max": stat(mp, "protocol_delay_ms", "v_max"),
        "hol_degree_ms_av": stat(mp, "hol_degree_ms", "zeta_av"),
        "hol_degree_ms_max": stat(mp, "hol_degree_ms", "zeta_max"),
        "hol_wait_ms": stat(mp, "hol_wait_ms", "mean"),
        "window_stall_s": mp.get("window_stall_s"),
    }


def link_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per link direction that carried packets."""
    rows = []
    for link in summary.get("links", []):
        if not link.get("packets"):
            continue
        rows.append(
            {
                "link": link["name"],
                "from": link.get("from"),
                "to": link.get("to"),
                "rate_mbps": link.get("rate_mbps"),
                "throughput_mbps": stat(link, "throughput_mbps", "mean"),
                "utilization": _utilization(link),
                "queue_delay_ms": stat(link, "queue_delay_ms", "mean"),
                "queue_delay_ms_p95": stat(link, "queue_delay_ms", "p95"),
                "queue_pkts_max": link.get("queue_pkts_max"),
                "drops": link.get("drops"),
                "drop_pct": link.get("drop_pct"),
                "jitter_ms": stat(link, "jitter_ms", "mean"),
            }
        )
    return rows


def stat(obj: dict[str, Any], key: str, name: str) -> float | None:
    """One statistic of a summary block (`stat(flow, "goodput_mbps", "mean")`), None if absent."""
    block = obj.get(key)
    return block.get(name) if isinstance(block, dict) else None


def _utilization(link: dict[str, Any]) -> float | None:
    thr = stat(link, "throughput_mbps", "mean")
    rate = link.get("rate_mbps")
    return thr / rate if thr is not None and rate else None


def _loss_pct(protocols: Any) -> float | None:
    sent = dropped = 0
    for p in protocols:
        sent += p.get("sent_packets") or 0
        dropped += p.get("dropped_packets") or 0
    return 100.0 * dropped / sent if sent else None


def _weighted_mean(flows: list[dict[str, Any]], key: str) -> float | None:
    """Mean over all samples of `key` (each flow's mean weighted by its sample count)."""
    total = count = 0.0
    for f in flows:
        block = f.get(key)
        if isinstance(block, dict) and block.get("count"):
            total += block["mean"] * block["count"]
            count += block["count"]
    return total / count if count else None


def _mean(values: Any) -> float | None:
    xs = [v for v in values if v is not None]
    return sum(xs) / len(xs) if xs else None


def _max(values: Any) -> float | None:
    xs = [v for v in values if v is not None]
    return max(xs) if xs else None
