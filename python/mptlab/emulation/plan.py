"""The emulation plan: a resolved run (`_core.resolve`, docs/resolve.md) turned into what Linux
needs — namespaces, veth pairs, addresses, per-link shaping and delay mechanisms, policy routes,
MPTCP endpoints and the traffic programs — or a clear refusal of what this kernel cannot do.

Pure: nothing here touches the system except reading what the kernel has (`KernelFeatures`), so
a scenario the emulation cannot run stops before anything is created (exit 2, one message naming
the key, the reason and the valid choices, like `mptlab check`).

Topology (docs/emulation.md "What maps to what"): a network namespace per node and one per
scenario link, the *link namespace* L between the link's two ends:

    node a --veth-- [L: a<j> ==shaping/delay== b<j>] --veth-- node b

Every queue of the emulated network lives in a link namespace (tbf + pfifo/bfifo on L's egress
veth toward the receiving node), never on a sending host's own veth, where TCP Small Queues
and TSO would make it behave unlike a network queue. L forwards frames at layer 2: a kernel
bridge when the link has neither delay nor loss, otherwise the user-space emulator
`mptlab-linkemu` (this kernel has no netem), which holds each frame for the direction's delay
and drops it with the direction's loss model before the queue.

Routing is by (source address, destination address) with policy rules, so two paths between the
same hosts can cross different routers, as the simulator's explicit routes do.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mptlab._core import ScenarioError

#: Congestion controllers whose mptlab name differs from the kernel's (all others: same name).
KERNEL_CC = {"newreno": "reno"}
#: mptlab scheduler names that mean the kernel's MPTCP scheduler of the same role.
KERNEL_SCHEDULER = {"default": "default"}
#: Multipath QUIC (mptlab-mpquic on tquic 1.6.0): mptlab names -> tquic's schedulers and
#: controllers (mptlab's `bbr2` is BBRv3, tquic's `bbr3`; tquic has no Reno or NewReno).
QUIC_SCHEDULER = {"minrtt": "minrtt", "roundrobin": "roundrobin", "redundant": "redundant"}
QUIC_CC = {"cubic": "cubic", "bbr": "bbr", "bbr2": "bbr3"}
#: Applications the traffic programs implement, per protocol.
APPS = {"tcp": ("bulk", "cbr", "file"), "mptcp": ("bulk", "cbr", "file"), "quic": ("bulk", "file"),
        "udp": ("cbr", "poisson")}
#: First TCP/UDP port of the flows (flow k listens on BASE_PORT + k).
BASE_PORT = 5201
#: Namespaces are named `<PREFIX>-<run id>-<n|l><index>`; cleanup finds runs by this prefix.
PREFIX = "mptlab"


@dataclass(frozen=True)
class KernelFeatures:
    """What the running kernel offers the emulation."""

    congestion_controls: tuple[str, ...]
    mptcp_schedulers: tuple[str, ...]
    qdiscs: tuple[str, ...]
    mptcp: bool

    @staticmethod
    @functools.cache
    def read() -> KernelFeatures:
        """Read them from /proc (qdiscs: built-in ones show their `<kind>_enqueue` symbol in
        /proc/kallsyms; a qdisc built as a module that is not loaded is not seen)."""
        ccs = _read("/proc/sys/net/ipv4/tcp_available_congestion_control").split()
        scheds = _read("/proc/sys/net/mptcp/available_schedulers").split()
        qdiscs = []
        try:
            with open("/proc/kallsyms") as f:
                for line in f:
                    name = line.rstrip().rsplit(" ", 1)[-1]
                    if name.endswith("_enqueue") and name.count("_") == 1:
                        qdiscs.append(name[: -len("_enqueue")])
        except OSError:
            pass
        return KernelFeatures(
            congestion_controls=tuple(ccs),
            mptcp_schedulers=tuple(scheds),
            qdiscs=tuple(sorted(set(qdiscs))),
            mptcp=_read("/proc/sys/net/mptcp/enabled").strip() == "1",
        )


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


@dataclass(frozen=True)
class Direction:
    """One emulated link direction (a resolved link direction)."""

    name: str
    src: str
    dst: str
    rate_bps: int
    delay_ns: int
    queue: dict[str, Any]
    loss: dict[str, Any]
    #: The link namespace's egress interface toward `dst` (where its qdisc sits).
    egress: str
    #: Scenario events on this direction (resolved: at_ns, action down|up|rate, rate_bps).
    events: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class LinkPlan:
    """A scenario link: two directions, a link namespace, one /24."""

    index: int
    ns: str
    a: str
    b: str
    #: Interface names: in a's and b's namespaces, and L's two sides.
    #: The veth's name in each end node's namespace (the same in both: `e<index>`).
    if_node: str
    if_l_a: str
    if_l_b: str
    addr_a: str
    addr_b: str
    ab: Direction
    ba: Direction
    #: "bridge" (kernel bridge: no delay, no loss) or "userspace" (mptlab-linkemu).
    mechanism: str


@dataclass(frozen=True)
class Route:
    """A policy route on `node`: packets from `src` to `dst` leave by `dev` toward `via`."""

    node: str
    src: str
    dst: str
    dev: str
    via: str
    #: `ip route` options (initcwnd, rto_min, quickack) from the flow's TCP options.
    options: tuple[str, ...] = ()


@dataclass(frozen=True)
class PathPlan:
    index: int
    src_addr: str
    dst_addr: str
    links: tuple[str, ...]
    dev: str


@dataclass(frozen=True)
class FlowPlan:
    index: int
    name: str
    group: str
    protocol: str
    multipath: bool
    src: str
    dst: str
    port: int
    start_s: float
    stop_s: float | None
    app: dict[str, Any]
    cc: str | None
    scheduler: str | None
    paths: tuple[PathPlan, ...]
    sack: bool = True
    #: UDP: datagram payload (bytes).
    payload: int | None = None


@dataclass
class Plan:
    run_id: str
    duration_s: float
    interval_s: float
    trace_interval_s: float
    seed: int
    nodes: dict[str, str]  # node name -> namespace
    links: list[LinkPlan]
    routes: list[Route]
    flows: list[FlowPlan]
    #: MPTCP endpoints: (node, address, device) for every extra subflow path.
    endpoints: list[tuple[str, str, str]] = field(default_factory=list)

    def namespaces(self) -> list[str]:
        return list(self.nodes.values()) + [link.ns for link in self.links]


def build(resolved: dict[str, Any], run_id: str, kernel: KernelFeatures) -> Plan:
    """The plan of `resolved`, or `ScenarioError` naming what cannot be emulated here."""
    _refuse_unsupported(resolved, kernel)
    info = resolved["run"]
    nodes = {n["name"]: f"{PREFIX}-{run_id}-n{i}" for i, n in enumerate(resolved["nodes"])}
    links = _links(resolved["links"], run_id, info["duration_ns"])
    by_dir: dict[str, tuple[LinkPlan, bool]] = {}
    for link in links:
        by_dir[link.ab.name] = (link, True)
        by_dir[link.ba.name] = (link, False)
    flows, routes, endpoints = _flows(resolved, by_dir)
    return Plan(
        run_id=run_id,
        duration_s=info["duration_ns"] / 1e9,
        interval_s=info["interval_ns"] / 1e9,
        trace_interval_s=info["trace_interval_ns"] / 1e9,
        seed=info["seed"],
        nodes=nodes,
        links=links,
        routes=routes,
        flows=flows,
        endpoints=endpoints,
    )


# --- refusals -------------------------------------------------------------------------------


def _refuse_unsupported(resolved: dict[str, Any], kernel: KernelFeatures) -> None:
    if resolved.get("tunnels"):
        raise ScenarioError("tunnels: multipath tunnels cannot be emulated (no kernel tunnel of this kind); "
                            "valid: scenarios without [tunnels]")
    for node in resolved["nodes"]:
        if node["kind"] == "station":
            raise ScenarioError(f"wifi: station `{node['name']}` — 802.11 channels cannot be emulated with "
                                "veth pairs; valid: point-to-point [links] only")
    for link in resolved["links"]:
        name = link["name"]
        cap = link.get("capacity")
        if cap and cap.get("model") != "trace":
            raise ScenarioError(f"links.{_base(name)}.capacity: the `{cap.get('model')}` model is not emulated "
                                "(its random rates are drawn inside the simulator); valid: a fixed rate or a "
                                "`trace`")
        if cap and len(trace_events(cap, resolved["run"]["duration_ns"])) > resolved["run"]["duration_ns"] // MIN_EVENT_GAP_NS:
            raise ScenarioError(f"links.{_base(name)}.capacity: the trace changes the rate more often than every "
                                f"{MIN_EVENT_GAP_NS // 1_000_000} ms on average, faster than the emulation applies "
                                "changes (one `tc` call each); valid: a coarser trace")
        kind = link["queue"]["kind"]
        if kind != "droptail" and kind not in kernel.qdiscs:
            raise ScenarioError(f"links.{_base(name)}.queue.kind: `{kind}` needs the kernel's {kind} qdisc, "
                                f"which this kernel lacks (it has: {', '.join(kernel.qdiscs) or 'none seen'}); "
                                "valid: droptail")
    if "tbf" not in kernel.qdiscs:
        raise ScenarioError(f"emulation: the kernel has no tbf qdisc to shape link rates (it has: "
                            f"{', '.join(kernel.qdiscs) or 'none seen'})")
    for flow in resolved["flows"]:
        _refuse_flow(flow, kernel)


def _refuse_flow(flow: dict[str, Any], kernel: KernelFeatures) -> None:
    key = f"flows.{flow['group']}"
    proto = flow["protocol"]
    if proto not in APPS:
        raise ScenarioError(f"{key}.protocol: `{proto}` flows are not emulated; valid: {', '.join(APPS)}")
    if proto == "quic" and not flow["multipath"]:
        raise ScenarioError(f"{key}.quic.multipath: only multipath QUIC is emulated (tquic); valid: true")
    app = flow["app"]["kind"]
    if app not in APPS[proto]:
        raise ScenarioError(f"{key}.app: `{app}` is not emulated for {proto}; valid: {', '.join(APPS[proto])}")
    if proto == "quic":
        if flow["cc"]["name"] not in QUIC_CC:
            raise ScenarioError(f"{key}.cc: `{flow['cc']['name']}` — tquic (mptlab-mpquic) has no such controller; "
                                f"valid: {', '.join(QUIC_CC)}")
        if flow["scheduler"]["name"] not in QUIC_SCHEDULER:
            raise ScenarioError(f"{key}.scheduler: `{flow['scheduler']['name']}` — tquic's multipath schedulers "
                                f"are {', '.join(QUIC_SCHEDULER)}; valid: {', '.join(QUIC_SCHEDULER)}")
    if proto in ("mptcp", "quic"):
        srcs = [p["fwd"][0] for p in flow["paths"]]
        if len(set(srcs)) != len(srcs):
            raise ScenarioError(f"{key}.paths: two paths leave `{flow['src']}` by the same link; the emulation "
                                "opens one subflow or QUIC path per local address; valid: paths with distinct "
                                "first links")
    if proto == "mptcp" and not kernel.mptcp:
        raise ScenarioError(f"{key}.protocol: the kernel's MPTCP is off (net.mptcp.enabled = 0)")
    if proto in ("tcp", "mptcp"):
        cc = kernel_cc(flow["cc"]["name"])
        if cc not in kernel.congestion_controls:
            raise ScenarioError(f"{key}.cc: `{flow['cc']['name']}` — the kernel has no such TCP congestion "
                                f"control; valid: {', '.join(kernel.congestion_controls)}")
    if proto == "mptcp":
        sched = flow["scheduler"]["name"]
        if KERNEL_SCHEDULER.get(sched) not in kernel.mptcp_schedulers:
            raise ScenarioError(f"{key}.scheduler: `{sched}` — the kernel's MPTCP schedulers are "
                                f"{', '.join(kernel.mptcp_schedulers)} (mptlab name `default`); valid: default")


#: Flow keys whose settings the emulation cannot hand to the kernel per flow (its controllers'
#: parameters are global module settings; MPTCP's and QUIC's connection options are the
#: implementations' own). A scenario that sets one explicitly is refused rather than run with
#: the kernel's values silently.
UNMAPPED_FLOW_KEYS = ("cc_options", "scheduler_options", "mptcp", "quic")
#: `tcp` options the kernel takes per route or per namespace (`tcp_options`); the rest of the
#: table is refused like UNMAPPED_FLOW_KEYS.
MAPPED_TCP_KEYS = ("sack", "initial_cwnd", "min_rto", "delayed_ack")


def refuse_unmapped_options(text: str, overrides: list[tuple[str, str]]) -> None:
    """ScenarioError when the scenario (or an override) sets a flow option the kernel cannot take."""
    import tomllib

    flows = tomllib.loads(text).get("flows", {})
    keys: list[tuple[str, ...]] = []
    for g, table in flows.items():
        if not isinstance(table, dict):
            continue
        for k, v in table.items():
            if k == "cc_options" and _kernels_own(table.get("cc"), v):
                continue
            if k == "tcp" and isinstance(v, dict):
                for tk, tv in v.items():
                    inner = tuple(tv) if tk == "delayed_ack" and isinstance(tv, dict) else ("",)
                    keys += [(g, "tcp", tk, ik) for ik in inner]
            else:
                keys.append((g, k))
    for k, value in overrides:
        parts = k.split(".")
        if k.startswith("flows.") and len(parts) >= 3:
            if parts[2] == "cc_options" and _kernels_own(_cc_of(flows, overrides, parts[1]), _toml_value(value)):
                continue
            keys.append(tuple(parts[1:]))
    for group, key, *rest in keys:
        where = ".".join(x for x in (f"flows.{group}.{key}", *rest) if x)
        if key in UNMAPPED_FLOW_KEYS or (key == "tcp" and not _mapped_tcp(rest)):
            raise ScenarioError(f"{where}: not applied by the emulation (the kernel's controllers, timers and "
                                f"buffers run with their own settings); valid: leave it out to emulate, or the "
                                f"tcp options {', '.join(MAPPED_TCP_KEYS)} (delayed_ack: only `enabled`)")


def _kernels_own(cc: object, options: object) -> bool:
    """CUBIC options that describe what Linux's tcp_cubic does anyway: Linux's HyStart."""
    return (isinstance(cc, str) and cc.lower() == "cubic" and isinstance(options, dict)
            and options.get("hystart_variant") == "linux" and options.get("hystart", True) is True
            and set(options) <= {"hystart_variant", "hystart"})


def _cc_of(flows: dict[str, Any], overrides: list[tuple[str, str]], group: str) -> object:
    cc = (flows.get(group) or {}).get("cc")
    for k, v in overrides:
        if k == f"flows.{group}.cc":
            cc = v
    return cc


def _toml_value(value: str) -> object:
    import tomllib

    try:
        return tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return value


def _mapped_tcp(rest: list[str]) -> bool:
    if not rest or rest[0] not in MAPPED_TCP_KEYS:
        return bool(not rest)
    return rest[0] != "delayed_ack" or len(rest) < 2 or rest[1] in ("", "enabled")


def tcp_options(tcp: dict[str, Any] | None) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """Route options at the sender and at the receiver, and SACK, for a resolved `tcp` table
    (docs/emulation.md): `initcwnd` and `rto_min` on the sender's route to the receiver (Linux's
    defaults, 10 segments and 200 ms, add nothing), `quickack 1` on the receiver's route back when
    delayed ACKs are off; SACK is the namespaces' net.ipv4.tcp_sack."""
    if tcp is None:
        return (), (), True
    src: list[str] = []
    if tcp["initial_cwnd_segments"] != 10:
        src += ["initcwnd", str(tcp["initial_cwnd_segments"])]
    if tcp["min_rto_ns"] != 200_000_000:
        src += ["rto_min", f"{max(1, tcp['min_rto_ns'] // 1_000_000)}ms"]
    dst = ["quickack", "1"] if not tcp["delayed_ack"] else []
    return tuple(src), tuple(dst), bool(tcp["sack"])


def kernel_cc(name: str) -> str:
    return KERNEL_CC.get(name, name)


def _base(direction: str) -> str:
    return direction[: -len(".rev")] if direction.endswith(".rev") else direction


# --- links ----------------------------------------------------------------------------------


def _links(dirs: list[dict[str, Any]], run_id: str, duration_ns: int) -> list[LinkPlan]:
    by_name = {d["name"]: d for d in dirs}
    out: list[LinkPlan] = []
    for d in dirs:
        if d["name"].endswith(".rev"):
            continue  # planned with its forward direction
        rev = by_name[d["reverse"]]
        j = len(out)
        net = ipaddress.ip_network(f"10.{j // 256}.{j % 256}.0/24")
        hosts = list(net.hosts())
        if_l_a, if_l_b = f"a{j}", f"b{j}"
        ab = _direction(d, egress=if_l_b, duration_ns=duration_ns)
        ba = _direction(rev, egress=if_l_a, duration_ns=duration_ns)
        userspace = any(x.delay_ns > 0 or x.loss.get("model", "none") != "none" for x in (ab, ba))
        out.append(LinkPlan(
            index=j, ns=f"{PREFIX}-{run_id}-l{j}", a=d["from"], b=d["to"],
            if_node=f"e{j}", if_l_a=if_l_a, if_l_b=if_l_b,
            addr_a=str(hosts[0]), addr_b=str(hosts[1]), ab=ab, ba=ba,
            mechanism="userspace" if userspace else "bridge",
        ))
    return out


#: Capacity traces are applied as rate changes; at most one per this many ns on average.
MIN_EVENT_GAP_NS = 50_000_000


def trace_events(capacity: dict[str, Any], duration_ns: int) -> list[dict[str, Any]]:
    """A `trace` capacity model as rate events within the run (docs/scenarios.md: the rate becomes
    rates[i] at times[i], and with a period again at k·period + times[i])."""
    out = []
    period = capacity.get("period")
    k = 0
    while True:
        base = k * period if period else 0
        if base >= duration_ns:
            break
        for t, rate in zip(capacity["times"], capacity["rates_bps"]):
            if base + t < duration_ns:
                out.append({"at_ns": base + t, "action": "rate", "rate_bps": rate})
        if not period:
            break
        k += 1
    return out


def _direction(d: dict[str, Any], egress: str, duration_ns: int) -> Direction:
    events = list(d.get("events") or ())
    if d.get("capacity"):
        events = sorted(events + trace_events(d["capacity"], duration_ns), key=lambda e: e["at_ns"])
    return Direction(name=d["name"], src=d["from"], dst=d["to"], rate_bps=d["rate_bps"], delay_ns=d["delay_ns"],
                     queue=d["queue"], loss=d["loss"], egress=egress, events=tuple(events))


def node_end(link: LinkPlan, node: str) -> tuple[str, str]:
    """(interface, address) of `node` on `link`."""
    if node == link.a:
        return link.if_node, link.addr_a
    return link.if_node, link.addr_b


# --- flows and routes -----------------------------------------------------------------------


def _flows(
    resolved: dict[str, Any], by_dir: dict[str, tuple[LinkPlan, bool]]
) -> tuple[list[FlowPlan], list[Route], list[tuple[str, str, str]]]:
    flows: list[FlowPlan] = []
    routes: dict[tuple[str, str, str], Route] = {}
    owners: dict[tuple[str, str, str], str] = {}
    endpoints: list[tuple[str, str, str]] = []
    for k, f in enumerate(resolved["flows"]):
        first = f["paths"][0]
        last_link, _ = by_dir[first["fwd"][-1]]
        _, dst_addr = node_end(last_link, f["dst"])
        paths = []
        at_src, at_dst, sack = tcp_options(f.get("tcp"))
        for i, p in enumerate(f["paths"]):
            link0, _ = by_dir[p["fwd"][0]]
            dev, src_addr = node_end(link0, f["src"])
            paths.append(PathPlan(index=i, src_addr=src_addr, dst_addr=dst_addr, links=tuple(p["fwd"]), dev=dev))
            fwd, rev = _hops(p["fwd"], by_dir, src_addr, dst_addr), _hops(p["rev"], by_dir, dst_addr, src_addr)
            fwd[0] = replace(fwd[0], options=at_src)
            rev[0] = replace(rev[0], options=at_dst)
            for r in fwd + rev:
                key = (r.node, r.src, r.dst)
                if key in routes and routes[key] != r:
                    raise ScenarioError(
                        f"flows.{f['group']}: its route from {r.src} to {r.dst} at `{r.node}` differs from that "
                        f"of flow `{owners[key]}` between the same addresses; the emulation routes by "
                        "(source, destination) address; valid: the same route for flows between the same "
                        "interfaces and the same TCP options")
                routes[key] = r
                owners[key] = f["name"]
            if i > 0 and f["protocol"] == "mptcp" and (f["src"], src_addr, dev) not in endpoints:
                endpoints.append((f["src"], src_addr, dev))
        flows.append(FlowPlan(
            index=k, name=f["name"], group=f["group"], protocol=f["protocol"], multipath=f["multipath"],
            src=f["src"], dst=f["dst"], port=BASE_PORT + k, start_s=f["start_ns"] / 1e9,
            stop_s=None if f["stop_ns"] is None else f["stop_ns"] / 1e9, app=f["app"],
            cc=f["cc"]["name"] if f.get("cc") else None,
            scheduler=f["scheduler"]["name"] if f.get("scheduler") else None, paths=tuple(paths),
            sack=sack, payload=(f.get("udp") or {}).get("payload"),
        ))
    for f in flows:
        for g in flows:
            if f.sack != g.sack and {f.src, f.dst} & {g.src, g.dst}:
                raise ScenarioError(f"flows.{f.group}.tcp.sack: SACK is a host setting in the kernel "
                                    f"(net.ipv4.tcp_sack) and flow `{g.name}` shares a host with a different "
                                    "setting; valid: the same sack for flows that share a host")
    return flows, list(routes.values()), endpoints


def _hops(dirs: list[str], by_dir: dict[str, tuple[LinkPlan, bool]], src: str, dst: str) -> list[Route]:
    """One route per node along `dirs` (link directions, in order) for packets src -> dst."""
    out = []
    for name in dirs:
        link, forward = by_dir[name]
        here, there = (link.a, link.b) if forward else (link.b, link.a)
        dev, _ = node_end(link, here)
        _, via = node_end(link, there)
        out.append(Route(node=here, src=src, dst=dst, dev=dev, via=via))
    return out
