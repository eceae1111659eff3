"""The one-screen summary printed after `mptlab run`: flows, paths, tunnels, Wi-Fi channels, links,
groups.

Long lists are cut (`MAX_ROWS` rows each; links then busiest first) with a line saying how
many were left out; the full numbers are always in summary.json.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.table import Table

from mptlab.sweeps.flatten import stat

MAX_ROWS = 12
DASH = "–"


def render(summary: dict[str, Any]) -> Group:
    parts: list[Any] = [flows_table(summary)]
    if any(f.get("paths") for f in summary.get("flows") or []):
        parts.append(paths_table(summary))
    parts.extend(tunnels_tables(summary))
    parts.extend(wifi_tables(summary))
    parts.append(links_table(summary))
    groups = summary.get("groups") or []
    if groups:
        parts.append(groups_table(summary))
    return Group(*parts)


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    (console or Console()).print(render(summary))


def flows_table(summary: dict[str, Any]) -> Table:
    flows = summary.get("flows") or []
    title = f"flows ({len(flows)})"
    moved = summary.get("flows_table")
    if moved:
        # A large run: the records are in flows.parquet; the groups table below sums them.
        title = f"flows ({len(flows)} of {moved['rows']}: all records in {moved['file']}, see groups)"
    t = Table(title=title, title_justify="left", header_style="bold")
    t.add_column("flow", no_wrap=True)
    t.add_column("protocol/cc", no_wrap=True)
    t.add_column("goodput\nMbps", justify="right")
    t.add_column("loss\n%", justify="right")
    t.add_column("retx", justify="right")
    t.add_column("RTOs", justify="right")
    t.add_column("jitter\nms", justify="right")
    t.add_column("OWD p50\nms", justify="right")
    for f in flows[:MAX_ROWS]:
        proto = f.get("protocol") or DASH
        if f.get("cc"):
            proto = f"{proto}/{f['cc']}"
        t.add_row(
            f.get("name", DASH),
            proto,
            _num(stat(f, "goodput_mbps", "mean")),
            _num(f.get("loss_pct"), 3),
            _int(f.get("retransmissions")),
            _int(f.get("rto_count")),
            _num(stat(f, "jitter_ms", "mean"), 3),
            _num(stat(f, "owd_ms", "p50")),
        )
    _more(t, len(flows), "flows")
    return t


def paths_table(summary: dict[str, Any]) -> Table:
    """One row per path of each flow that has paths (MPTCP subflows, QUIC and multipath QUIC
    paths: the shared `paths` block); MPTCP flows' seed-001 delays in the caption."""
    t = Table(title="paths (docs/metrics.md)", title_justify="left", header_style="bold", caption_justify="left")
    t.add_column("flow", no_wrap=True)
    t.add_column("path", no_wrap=True)
    for col in ("share", "SRTT\nav ms", "SRTT\nmax ms", "drops\n/s", "retx"):
        t.add_column(col, justify="right", no_wrap=True)
    notes = []
    rows = 0
    for f in summary.get("flows") or []:
        paths = f.get("paths")
        if not paths:
            continue
        for p in paths:
            if rows < MAX_ROWS:
                t.add_row(f.get("name", DASH) if p.get("index") == 0 else "", (p.get("route") or [DASH])[0],
                          _num(p.get("share")), _num(p.get("srtt_ms_mean"), 1), _num(p.get("srtt_ms_max"), 1),
                          _num(p.get("drop_rate_per_s")), _int(p.get("retransmissions")))
            rows += 1
        mp = f.get("mptcp")
        if mp and len(notes) < 3:
            notes.append(
                f"{f.get('name')}: protocol delay av/max {_num(stat(mp, 'protocol_delay_ms', 'v_av'), 1)}/"
                f"{_num(stat(mp, 'protocol_delay_ms', 'v_max'), 1)} ms, HoL degree av/max "
                f"{_num(stat(mp, 'hol_degree_ms', 'zeta_av'), 1)}/{_num(stat(mp, 'hol_degree_ms', 'zeta_max'), 1)} ms, "
                f"window stall {_num(mp.get('window_stall_s'))} s"
            )
    _more(t, rows, "paths")
    if notes:
        t.caption = "\n".join(([t.caption] if t.caption else []) + notes)
    return t


def links_table(summary: dict[str, Any]) -> Table:
    links = [l for l in summary.get("links") or [] if (l.get("packets") or 0) > 0]
    idle = len(summary.get("links") or []) - len(links)
    title = f"links with traffic ({len(links)}" + (f"; {idle} idle)" if idle else ")")
    moved = summary.get("links_table")
    if moved:
        title += f"; all {moved['rows']} link directions in {moved['file']}"
    if len(links) > MAX_ROWS:
        # Show the busiest: highest mean throughput first.
        links = sorted(links, key=lambda l: -(stat(l, "throughput_mbps", "mean") or 0.0))
        title += ", busiest first"
    t = Table(title=title, title_justify="left", header_style="bold")
    t.add_column("link", no_wrap=True)
    t.add_column("rate\nMbps", justify="right")
    t.add_column("throughput\nMbps", justify="right")
    t.add_column("drops\n%", justify="right")
    t.add_column("queue delay\np95 ms", justify="right")
    for l in links[:MAX_ROWS]:
        t.add_row(
            l.get("name", DASH),
            _num(l.get("rate_mbps"), 1),
            _num(stat(l, "throughput_mbps", "mean")),
            _num(l.get("drop_pct"), 3),
            _num(stat(l, "queue_delay_ms", "p95")),
        )
    _more(t, len(links), "links")
    return t


def tunnels_tables(summary: dict[str, Any]) -> list[Table]:
    """Per tunnel: one row per path (inner throughput and share, losses, the controller's end
    state); the title has the controller, scheduler, scheduler-buffer drops and reordering."""
    out = []
    for tun in summary.get("tunnels") or []:
        paths = tun.get("paths") or []
        total = sum(p.get("inner_bytes") or 0 for p in paths) or None
        buf = tun.get("buffer") or {}
        ro = (tun.get("egress_counters") or {}).get("reorder") or {}
        title = (
            f"tunnel {tun.get('name')}: {tun.get('cc')} / {tun.get('scheduler')}; "
            f"buffer dropped {_int(buf.get('dropped'))} of {_int(buf.get('offered'))}; "
            f"reorder held {_int(ro.get('held'))}, forced {_int(ro.get('forced'))}, late {_int(ro.get('late'))}"
        )
        t = Table(title=title, title_justify="left", header_style="bold")
        t.add_column("path", no_wrap=True)
        t.add_column("inner\nMbps", justify="right")
        t.add_column("share\n%", justify="right")
        t.add_column("lost\npkts", justify="right")
        t.add_column("srtt\nms", justify="right")
        t.add_column("cwnd\npkts", justify="right")
        for i, p in enumerate(paths):
            t.add_row(
                f"{i}: {' '.join(p.get('route') or [])}",
                _num(stat(p, "throughput_mbps", "mean")),
                _num(100.0 * (p.get("inner_bytes") or 0) / total, 1) if total else DASH,
                _int(p.get("packets_lost")),
                _num(p.get("srtt_ms"), 1),
                _num(p.get("cwnd_packets"), 0),
            )
        out.append(t)
    return out


def wifi_tables(summary: dict[str, Any]) -> list[Table]:
    """Per Wi-Fi channel: one row per station (busiest first): frames, MAC attempts, the
    measured collision probability, retry drops, frames left queued."""
    out = []
    for ch in summary.get("wifi") or []:
        stations = sorted(ch.get("stations") or [], key=lambda s: -(s.get("attempts") or 0))
        title = (
            f"Wi-Fi {ch.get('name')}: {len(stations)} stations, {_int(ch.get('attempts'))} MAC attempts, "
            f"collision probability {_num(ch.get('collision_probability'), 3)}, {_int(ch.get('retry_drops'))} retry drops"
        )
        t = Table(title=title, title_justify="left", header_style="bold")
        t.add_column("station", no_wrap=True)
        for col in ("frames", "attempts", "collision\np", "retry\ndrops", "queued\nat end"):
            t.add_column(col, justify="right")
        for st in stations[:MAX_ROWS]:
            t.add_row(
                st.get("name", DASH),
                _int(st.get("frames")),
                _int(st.get("attempts")),
                _num(st.get("collision_probability"), 3),
                _int(st.get("retry_drops")),
                _int(st.get("queued")),
            )
        _more(t, len(stations), "stations")
        out.append(t)
    return out


def groups_table(summary: dict[str, Any]) -> Table:
    groups = summary.get("groups") or []
    jain_all = summary.get("jain_all_flows")
    title = f"groups ({len(groups)}); Jain's index over all flows: {_num(jain_all, 3)}"
    t = Table(title=title, title_justify="left", header_style="bold")
    t.add_column("group", no_wrap=True)
    t.add_column("flows", justify="right")
    t.add_column("goodput total\nMbps", justify="right")
    t.add_column("goodput mean\nMbps", justify="right")
    t.add_column("goodput min–max\nMbps", justify="right", no_wrap=True)
    t.add_column("loss\n%", justify="right")
    t.add_column("Jain", justify="right")
    for g in groups[:MAX_ROWS]:
        n = g.get("flows")
        t.add_row(
            g.get("name", DASH),
            _int(len(n) if isinstance(n, list) else n),
            _num(g.get("goodput_mbps_total")),
            _num(g.get("goodput_mbps_mean")),
            _range(g.get("goodput_mbps")),
            _num(g.get("loss_pct"), 3),
            _num(g.get("jain"), 3),
        )
    _more(t, len(groups), "groups")
    return t


def _more(t: Table, n: int, what: str) -> None:
    if n > MAX_ROWS:
        t.caption = f"… and {n - MAX_ROWS} more {what} (all in summary.json)"
        t.caption_justify = "left"


def _num(v: Any, digits: int = 2) -> str:
    if v is None:
        return DASH
    try:
        return f"{float(v):.{digits}f}"
    except (TypeError, ValueError):
        return str(v)


def _range(dist: Any) -> str:
    """`min–max` of a distribution (Stats), a dash when absent."""
    if not isinstance(dist, dict) or not dist.get("count"):
        return DASH
    return f"{_num(dist.get('min'))}–{_num(dist.get('max'))}"


def _int(v: Any) -> str:
    return DASH if v is None else str(v)
