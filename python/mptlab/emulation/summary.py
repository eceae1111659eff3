"""An emulated run's results in the simulator's result contract (docs/metrics.md).

The summary has exactly the simulator's keys: it starts from the simulator's summary of the same
scenario, overrides and seed with every value blanked to null, keeps only the scenario's own
facts (names, routes, rates, the echoed scenario, the definitions) and fills what the kernel
measured (the list below). Everything else stays null: a key never carries a simulated value.

Measured (docs/emulation.md "Measurements" gives each source):
- flows[]: bytes_delivered, goodput_mbps (per interval, the simulator's bins), completion_time_s
  (file), sent_packets (data segments), retransmissions, srtt_ms_mean (single path),
  dropped_packets and loss_pct where the drops can be attributed (`_attribute_drops`);
- flows[].paths[]: bytes_sent, bytes_received, segments_sent, retransmissions, share (bytes sent on
  the subflow over all subflows), srtt_ms_mean / max / final, min_rtt_ms, final_cwnd_bytes, state,
  dropped_packets, drop_pct and drop_rate_per_s where attributable;
- links[]: packets, bytes, queue_drops, channel_drops (the emulator's losses), drops,
  offered_packets, drop_pct, throughput_mbps, queue_pkts_mean and queue_pkts_max (sampled);
- groups[], protocols, jain_all_flows: from the flows above.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from mptlab.emulation import measure
from mptlab.emulation.apps import pct
from mptlab.emulation.plan import FlowPlan, PathPlan, Plan

if TYPE_CHECKING:  # pragma: no cover
    from mptlab.emulation.session import EmulationSession

#: Keys whose values are facts of the scenario, kept from the template, per object kind.
KEEP = {
    "top": ("scenario", "definitions", "seed", "duration_s"),
    "flow": ("name", "group", "src", "dst", "protocol", "cc", "scheduler", "detailed"),
    "path": ("index", "route", "priority", "backup"),
    "link": ("name", "from", "to", "rate_mbps", "detailed"),
    "group": ("name", "flows"),
}


class Samples:
    """Kernel readings over the run: (t, value) lists."""

    def __init__(self) -> None:
        self.links: list[tuple[float, dict[str, measure.LinkSample]]] = []
        self.sockets: list[tuple[float, dict[str, list[dict[str, Any]]]]] = []
        self.receivers: dict[str, list[dict[str, Any]]] = {}
        #: Link events as applied: (t, direction, action, rate_bps).
        self.events: list[tuple[float, str, str, int | None]] = []
        self._sender_ns: list[str] = []
        self._receiver_ns: list[str] = []

    def start(self, plan: Plan) -> None:
        tcp = [f for f in plan.flows if f.protocol in ("tcp", "mptcp")]
        self._sender_ns = sorted({plan.nodes[f.src] for f in tcp})
        self._receiver_ns = sorted({plan.nodes[f.dst] for f in tcp})

    def take(self, plan: Plan, t: float) -> None:
        self.links.append((t, measure.sample_links(plan)))
        self.sockets.append((t, {ns: measure.sample_sockets(ns) for ns in self._sender_ns}))

    def take_links(self, plan: Plan, t: float) -> None:
        self.links.append((t, measure.sample_links(plan)))

    def final_receivers(self, plan: Plan) -> None:
        self.receivers = {ns: measure.sample_sockets(ns) for ns in self._receiver_ns}


# --- statistics as the simulator computes them (metrics/stats.rs) --------------------------


def stats(samples: list[float]) -> dict[str, float | int]:
    """Mean, population std, min, max, type-7 p50/p95, count; all 0 when empty."""
    if not samples:
        return {"count": 0, "max": 0.0, "mean": 0.0, "min": 0.0, "p50": 0.0, "p95": 0.0, "std": 0.0}
    s = sorted(samples)
    n = len(s)
    mean = sum(samples) / n
    var = sum((x - mean) ** 2 for x in samples) / n
    return {"count": n, "max": s[-1], "mean": mean, "min": s[0], "p50": pct(s, 0.5), "p95": pct(s, 0.95),
            "std": math.sqrt(var)}


def rate_bins(bins: list[float], interval: float, duration: float, first: int, end: int) -> list[float]:
    """Mbit/s of byte bins first..end, the last one normalised by its length within the run."""
    out = []
    for k in range(first, min(end, len(bins))):
        length = min(interval, duration - k * interval)
        out.append(bins[k] * 8 / length / 1e6 if length > 0 else 0.0)
    return out


def jain(xs: list[float]) -> float | None:
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if xs and sq > 0 else None


# --- the summary ----------------------------------------------------------------------------


def blank(obj: Any) -> Any:
    """`obj` with every leaf set to None (dict keys kept; lists of objects kept element-wise,
    other lists become None)."""
    if isinstance(obj, dict):
        return {k: blank(v) for k, v in obj.items()}
    if isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        return [blank(x) for x in obj]
    return None


def _keep(blanked: dict[str, Any], original: dict[str, Any], kind: str) -> None:
    for k in KEEP[kind]:
        if k in original:
            blanked[k] = original[k]


def template(session: EmulationSession) -> dict[str, Any]:
    """The simulator's summary of the same run (its keys and the scenario's facts): the one the
    caller handed over (`session.template`), else a simulation of it."""
    if session.template is not None:
        return session.template
    from mptlab import runner

    out = runner.run(session.text, session.overrides, session.plan.seed, summary=True, series=False, chunks=1)
    assert out.summary is not None
    return out.summary


def build_summary(session: EmulationSession) -> dict[str, Any]:
    sim = template(session)
    summ = blank(sim)
    _keep(summ, sim, "top")
    plan, samples, results = session.plan, session.samples, session.results
    flows_by_name = {f.name: f for f in plan.flows}
    for fs, fsim in zip(summ["flows"], sim["flows"]):
        _keep(fs, fsim, "flow")
        for ps, psim in zip(fs.get("paths") or [], fsim.get("paths") or []):
            _keep(ps, psim, "path")
        _flow(fs, flows_by_name[fsim["name"]], plan, samples, results.get(fsim["name"], {}))
    for ls, lsim in zip(summ["links"], sim["links"]):
        _keep(ls, lsim, "link")
        _link(ls, plan, samples, results.get("_linkemu", {}))
    _attribute_drops(summ, plan)
    for gs, gsim in zip(summ["groups"], sim["groups"]):
        _keep(gs, gsim, "group")
        _group(gs, [f for f in summ["flows"] if f["group"] == gsim["name"]])
    for proto, ps in (summ.get("protocols") or {}).items():
        if isinstance(ps, dict):
            mine = [f for f in summ["flows"] if _proto_key(f["protocol"]) == proto]
            ps["sent_packets"] = sum(f["sent_packets"] or 0 for f in mine) if mine else None
            if mine and all(f["dropped_packets"] is not None for f in mine):
                ps["dropped_packets"] = sum(f["dropped_packets"] for f in mine)
                ps["loss_pct"] = 100.0 * ps["dropped_packets"] / ps["sent_packets"] if ps["sent_packets"] else 0.0
    summ["jain_all_flows"] = jain([f["goodput_mbps"]["mean"] for f in summ["flows"] if f.get("goodput_mbps")])
    return summ  # `backend` is the runner's to set


def _attribute_drops(summ: dict[str, Any], plan: Plan) -> None:
    """Per-flow and per-path drops (data direction), where the network lets them be attributed.

    The kernel counts drops per queue, not per flow: a link direction's drops belong to a flow
    (or to one path of it) only when no other flow (path) crosses it. A flow or path whose data
    crosses a direction that dropped packets and is shared stays null; directions without drops
    are shared harmlessly. Loss then is dropped / sent data segments, as the simulator's."""
    drops = {ls["name"]: ls["drops"] for ls in summ["links"]}
    users: dict[str, set[tuple[str, int]]] = {}
    for f in plan.flows:
        for p in f.paths:
            for d in p.links:
                users.setdefault(d, set()).add((f.name, p.index))
    by_name = {f.name: f for f in plan.flows}

    def attributable(dirs: set[str], owner: set[tuple[str, int]]) -> int | None:
        total = 0
        for d in dirs:
            n = drops.get(d)
            if n is None or (n and not users.get(d, set()) <= owner):
                return None
            total += n or 0
        return total

    for fs in summ["flows"]:
        f = by_name.get(fs["name"])
        if f is None or f.protocol == "udp":  # UDP counts its losses end to end
            continue
        owner = {(f.name, p.index) for p in f.paths}
        dropped = attributable({d for p in f.paths for d in p.links}, owner)
        fs["dropped_packets"] = dropped
        sent = fs.get("sent_packets")
        fs["loss_pct"] = 100.0 * dropped / sent if dropped is not None and sent else None
        # the simulator's lifetime: from the flow's start to its stop or the end of the run
        lifetime = min(f.stop_s or plan.duration_s, plan.duration_s) - f.start_s
        for ps, p in zip(fs.get("paths") or [], f.paths):
            n = attributable(set(p.links), {(f.name, p.index)})
            ps["dropped_packets"] = n
            segs = ps.get("segments_sent")
            ps["drop_pct"] = 100.0 * n / segs if n is not None and segs else None
            ps["drop_rate_per_s"] = n / lifetime if n is not None and lifetime > 0 else None


def _proto_key(protocol: str) -> str:
    return "tcp" if protocol in ("tcp", "mptcp") else "udp" if protocol in ("udp", "quic") else protocol


def _flow(fs: dict[str, Any], f: FlowPlan, plan: Plan, samples: Samples, res: dict[str, Any]) -> None:
    rx = res.get("rx") or {}
    bins = rx.get("bins") or [0] * math.ceil(plan.duration_s / plan.interval_s)
    fs["bytes_delivered"] = int(round(sum(bins)))  # within the run, as the simulator counts
    end = f.stop_s if f.stop_s is not None else plan.duration_s
    first, last = int(f.start_s // plan.interval_s), math.ceil(min(end, plan.duration_s) / plan.interval_s - 1e-9)
    fs["goodput_mbps"] = stats(rate_bins(bins, plan.interval_s, plan.duration_s, first, last))
    if f.app["kind"] == "file":
        complete = rx.get("eof") and rx.get("bytes", 0) >= f.app["size"] and rx.get("last_byte_s") is not None
        fs["completion_time_s"] = rx["last_byte_s"] - f.start_s if complete else None
    if f.protocol == "udp":
        _udp(fs, rx, res.get("tx") or {})
        return
    subflows = ([_reported(r) for r in res["paths"]] if "paths" in res
                else [_subflow(samples, plan, f, p) for p in f.paths])
    sent = [s.get("bytes_sent", 0) for s in subflows]
    for ps, p, sub, rcv in zip(fs.get("paths") or [], f.paths, subflows, [_received(samples, f, p) for p in f.paths]):
        _path(ps, sub, rcv, sum(sent))
    fs["sent_packets"] = sum(s.get("data_segs_out", 0) for s in subflows)
    fs["retransmissions"] = sum(s.get("retrans_total", 0) for s in subflows)
    if not fs.get("paths") and subflows and subflows[0].get("srtt"):
        fs["srtt_ms_mean"] = sum(subflows[0]["srtt"]) / len(subflows[0]["srtt"])


def _udp(fs: dict[str, Any], rx: dict[str, Any], tx: dict[str, Any]) -> None:
    """A UDP flow measured end to end by its own datagrams (apps.py)."""
    sent = tx.get("sent")
    fs["sent_packets"] = sent
    if sent is not None:
        fs["dropped_packets"] = max(0, sent - rx.get("unique", 0))
        fs["loss_pct"] = 100.0 * fs["dropped_packets"] / sent if sent else 0.0
    for key in ("owd_ms", "jitter_ms", "interarrival_ms"):
        if rx.get(key) is not None:
            fs[key] = rx[key]


def _matches(sock: dict[str, Any], f: FlowPlan, p: PathPlan) -> bool:
    return sock["local"] == p.src_addr and sock["remote"] == p.dst_addr and sock["rport"] == f.port


def _subflow(samples: Samples, plan: Plan, f: FlowPlan, p: PathPlan) -> dict[str, Any]:
    """The path's subflow: its last reading, plus its SRTT and cwnd samples over time."""
    ns = plan.nodes[f.src]
    last: dict[str, Any] = {}
    srtt: list[tuple[float, float]] = []
    cwnd: list[tuple[float, float]] = []
    for t, by_ns in samples.sockets:
        for sock in by_ns.get(ns, []):
            if _matches(sock, f, p):
                last = sock
                if "srtt_ms" in sock:
                    srtt.append((t, sock["srtt_ms"]))
                if "cwnd" in sock:
                    cwnd.append((t, sock["cwnd"] * sock.get("mss", 1448)))
    return {**last, "srtt_series": srtt, "cwnd_series": cwnd, "srtt": [v for _, v in srtt]}


def _reported(r: dict[str, Any]) -> dict[str, Any]:
    """A path's end-of-run report (QUIC) in `_subflow`'s form."""
    srtt = [r["srtt_ms"]] if "srtt_ms" in r else []
    cwnd = [(0.0, float(r["cwnd_bytes"]))] if r.get("cwnd_bytes") is not None else []
    return {**r, "srtt_series": [], "cwnd_series": cwnd, "srtt": srtt}


def _received(samples: Samples, f: FlowPlan, p: PathPlan) -> int | None:
    for socks in samples.receivers.values():
        for s in socks:
            if s["remote"] == p.src_addr and s["local"] == p.dst_addr and s["lport"] == f.port:
                return s.get("bytes_received")
    return None


def _path(ps: dict[str, Any], sub: dict[str, Any], received: int | None, total_sent: int) -> None:
    srtt = sub["srtt"]
    ps["state"] = "active" if "bytes_sent" in sub else "idle"
    ps["bytes_sent"] = sub.get("bytes_sent")
    ps["bytes_received"] = received
    ps["segments_sent"] = sub.get("data_segs_out")
    ps["retransmissions"] = sub.get("retrans_total")
    ps["share"] = sub.get("bytes_sent", 0) / total_sent if total_sent else None
    ps["srtt_ms_mean"] = sum(srtt) / len(srtt) if srtt else None
    ps["srtt_ms_max"] = max(srtt) if srtt else None
    ps["srtt_ms_final"] = srtt[-1] if srtt else None
    ps["min_rtt_ms"] = sub.get("minrtt_ms")
    ps["final_cwnd_bytes"] = sub["cwnd_series"][-1][1] if sub["cwnd_series"] else None


def _link_counters(samples: Samples, name: str) -> list[tuple[float, measure.LinkSample]]:
    return [(t, by[name]) for t, by in samples.links if name in by]


def counter_at(series: list[tuple[float, float]], t: float) -> float:
    """A cumulative counter at time t, linear between samples, constant outside them."""
    if not series:
        return 0.0
    if t <= series[0][0]:
        return series[0][1]
    for (t0, v0), (t1, v1) in zip(series, series[1:]):
        if t <= t1:
            return v0 + (v1 - v0) * (t - t0) / (t1 - t0) if t1 > t0 else v1
    return series[-1][1]


def link_mbps(series: list[tuple[float, measure.LinkSample]], plan: Plan) -> list[float]:
    """A direction's throughput per interval of the run (Mbit/s), from its byte counter sampled
    at `series`' times and interpolated to the interval edges."""
    byte_series = [(t, float(s.bytes)) for t, s in series]
    n = math.ceil(plan.duration_s / plan.interval_s - 1e-9)
    bins = [counter_at(byte_series, min((k + 1) * plan.interval_s, plan.duration_s))
            - counter_at(byte_series, k * plan.interval_s) for k in range(n)]
    return rate_bins(bins, plan.interval_s, plan.duration_s, 0, n)


def _link(ls: dict[str, Any], plan: Plan, samples: Samples, emu: dict[str, Any]) -> None:
    name = ls["name"]
    series = _link_counters(samples, name)
    if not series:
        return
    last = series[-1][1]
    lost = _lost(plan, emu, name)
    ls["packets"], ls["bytes"] = last.packets, last.bytes
    down_drops, mean_rate = _events_effect(samples, series, name, plan)
    ls["channel_drops"] = lost
    ls["down_drops"] = down_drops
    ls["queue_drops"] = last.drops - down_drops
    if mean_rate is not None:
        ls["mean_rate_mbps"] = mean_rate
    ls["drops"] = last.drops + (lost or 0)
    ls["offered_packets"] = last.packets + ls["drops"]
    ls["drop_pct"] = 100.0 * ls["drops"] / ls["offered_packets"] if ls["offered_packets"] else 0.0
    ls["throughput_mbps"] = stats(link_mbps(series, plan))
    ls["queue_pkts_mean"] = time_weighted_mean([(t, float(s.qlen)) for t, s in series], plan.duration_s)
    ls["queue_pkts_max"] = max(s.qlen for _, s in series)


def _events_effect(samples: Samples, series: list[tuple[float, measure.LinkSample]], name: str, plan: Plan
                   ) -> tuple[int, float | None]:
    """Drops while the direction was down (the tbf's drop counter from just before `down` to just
    before `up`, or the end) and its time-average rate over the run (0 while down), as applied."""
    events = [(t, action, rate) for t, d, action, rate in samples.events if d == name]
    if not events:
        return 0, None
    drops = [(t, float(s.drops)) for t, s in series]
    rate = next(link.ab.rate_bps if link.ab.name == name else link.ba.rate_bps
                for link in plan.links if name in (link.ab.name, link.ba.name))
    down_at: float | None = None
    down_drops = 0.0
    area, t_prev, up = 0.0, 0.0, True
    for t, action, new_rate in events:
        area += (rate if up else 0) * (min(t, plan.duration_s) - t_prev)
        t_prev = min(t, plan.duration_s)
        if action == "down" and up:
            up, down_at = False, t
        elif action == "up" and not up:
            up = True
            down_drops += _before(drops, t) - _before(drops, down_at or 0.0)
        elif action == "rate" and new_rate:
            rate = new_rate
    area += (rate if up else 0) * (plan.duration_s - t_prev)
    if not up and down_at is not None:
        down_drops += drops[-1][1] - _before(drops, down_at)
    return int(round(down_drops)), area / plan.duration_s / 1e6


def _before(series: list[tuple[float, float]], t: float) -> float:
    """The last value sampled at or before t (the sample taken just before an event)."""
    value = series[0][1] if series else 0.0
    for ts, v in series:
        if ts > t:
            break
        value = v
    return value


def time_weighted_mean(samples: list[tuple[float, float]], duration: float) -> float:
    """Mean over [0, duration) of a sampled level held from each sample to the next, as the
    simulator's time-weighted queue mean; after the last sample the level is 0 (a run ends
    early only when every file has arrived, so its queues are empty)."""
    if not samples or duration <= 0:
        return 0.0
    area = 0.0
    for (t0, v0), (t1, _) in zip(samples, samples[1:]):
        area += v0 * (min(t1, duration) - min(t0, duration))
    return area / duration


def _lost(plan: Plan, emu: dict[str, Any], name: str) -> int | None:
    for link in plan.links:
        for d, key in ((link.ab, "ab"), (link.ba, "ba")):
            if d.name == name:
                if link.mechanism != "userspace":
                    return 0
                stats_ = emu.get(str(link.index)) or {}
                return (stats_.get(key) or {}).get("lost")
    return None


def _group(gs: dict[str, Any], flows: list[dict[str, Any]]) -> None:
    means = [f["goodput_mbps"]["mean"] for f in flows if f.get("goodput_mbps")]
    gs["goodput_mbps"] = stats(means)
    gs["goodput_mbps_total"] = sum(means)
    gs["goodput_mbps_mean"] = sum(means) / len(means) if means else 0.0
    gs["jain"] = jain(means)
    gs["bytes_delivered"] = sum(f["bytes_delivered"] or 0 for f in flows)
    gs["sent_packets"] = sum(f["sent_packets"] or 0 for f in flows)
    done = [f["completion_time_s"] for f in flows if f.get("completion_time_s") is not None]
    gs["completion_time_s"] = stats(done) if done else None


# --- time series ----------------------------------------------------------------------------


def build_timeseries(session: EmulationSession) -> dict[str, list[Any]]:
    """Long-format columns as the simulator's: goodput_mbps (flow), link_mbps and queue_pkts
    (link direction), srtt_ms and cwnd_bytes (`<flow>/path<i>`)."""
    plan, samples, results = session.plan, session.samples, session.results
    cols: dict[str, list[Any]] = {"series": [], "entity": [], "t_s": [], "value": []}

    def add(series: str, entity: str, t: float, value: float) -> None:
        cols["series"].append(series)
        cols["entity"].append(entity)
        cols["t_s"].append(float(t))
        cols["value"].append(float(value))

    n = math.ceil(plan.duration_s / plan.interval_s - 1e-9)
    for f in plan.flows:
        bins = ((results.get(f.name) or {}).get("rx") or {}).get("bins") or [0] * n
        for k, v in enumerate(rate_bins(bins, plan.interval_s, plan.duration_s, 0, n)):
            add("goodput_mbps", f.name, k * plan.interval_s, v)
        for p in f.paths:
            sub = _subflow(samples, plan, f, p)
            for t, v in sub["srtt_series"]:
                add("srtt_ms", f"{f.name}/path{p.index}", t, v)
            for t, v in sub["cwnd_series"]:
                add("cwnd_bytes", f"{f.name}/path{p.index}", t, v)
    for link in plan.links:
        for d in (link.ab, link.ba):
            series = _link_counters(samples, d.name)
            for k, v in enumerate(link_mbps(series, plan)):
                add("link_mbps", d.name, k * plan.interval_s, v)
            for t, s in series:
                add("queue_pkts", d.name, t, s.qlen)
    return cols
