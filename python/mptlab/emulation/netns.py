"""Building and removing an emulation plan's network in Linux network namespaces, and the
registry that lets a later start remove what a killed run left behind.

Everything is made with iproute2 (`ip`, `tc`) and `ethtool`, inside namespaces this module
creates: veth pairs are created with both ends already in their namespaces, so no interface
ever appears in (or is taken from) the host's own namespace. Every namespace is named
`mptlab-<run id>-…`; a registry file `/run/mptlab/emulation/<run id>.json` holds the owner's
PID, so `cleanup_stale()` (run at every start and by `mptlab emulate --cleanup`) can tell a live
run from a dead one and remove only the dead one's namespaces and processes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mptlab.atomic import write_text
from mptlab.emulation.plan import PREFIX, Direction, LinkPlan, Plan

REGISTRY = Path(os.environ.get("MPTLAB_EMULATION_REGISTRY", "/run/mptlab/emulation"))
#: Offloads off on every veth end: segmentation/coalescing would hand 64 KB frames to the
#: user-space emulator and to tbf, and checksum offload would leave partial checksums in frames
#: that cross a raw socket (found by hand on this kernel: timing error stayed < 0.3 ms only so).
OFFLOADS_OFF = ("tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off")
#: tbf counts each frame with its 14-byte Ethernet header; the simulator's rates count IP bytes.
STAB = ("stab", "overhead", "-14", "linklayer", "ethernet")


class EmulationError(RuntimeError):
    """A system step failed (with the command and what it printed)."""


def sh(*args: str, check: bool = True) -> str:
    """Run one command; raise `EmulationError` with its output when it fails."""
    res = subprocess.run(args, capture_output=True, text=True)
    if check and res.returncode != 0:
        raise EmulationError(f"`{' '.join(args)}` failed ({res.returncode}): {res.stderr.strip() or res.stdout.strip()}")
    return res.stdout


def require_root() -> None:
    if os.geteuid() != 0:
        raise PermissionError("emulation needs root (network namespaces, veth, qdiscs): run it as root")


# --- registry and cleanup -------------------------------------------------------------------


def register(plan: Plan, workdir: Path) -> Path:
    REGISTRY.mkdir(parents=True, exist_ok=True)
    path = REGISTRY / f"{plan.run_id}.json"
    write_text(path, json.dumps({"owner": os.getpid(), "namespaces": plan.namespaces(), "pids": [],
                                 "workdir": str(workdir)}))
    return path


def record_pids(plan: Plan, pids: Iterable[int]) -> None:
    path = REGISTRY / f"{plan.run_id}.json"
    data = json.loads(path.read_text())
    data["pids"] = sorted(set(data["pids"]) | set(pids))
    write_text(path, json.dumps(data))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def our_namespaces() -> dict[str, list[str]]:
    """Namespaces named by this module, by run id."""
    out: dict[str, list[str]] = {}
    for line in sh("ip", "netns", "list").splitlines():
        name = line.split()[0] if line.strip() else ""
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == PREFIX:
            out.setdefault(parts[1], []).append(name)
    return out


def cleanup_stale() -> list[str]:
    """Remove what runs whose owner process is gone left behind; return their run ids."""
    removed = []
    live = set()
    if REGISTRY.is_dir():
        for f in REGISTRY.glob("*.json"):
            try:
                owner = json.loads(f.read_text())["owner"]
            except (OSError, ValueError, KeyError):
                owner = -1
            if owner > 0 and owner != os.getpid() and _alive(owner):
                live.add(f.stem)
    for run_id, names in our_namespaces().items():
        if run_id in live:
            continue
        _remove_workdir(REGISTRY / f"{run_id}.json")
        remove(run_id, names)
        removed.append(run_id)
    if REGISTRY.is_dir():
        for f in REGISTRY.glob("*.json"):
            if f.stem not in live:
                _remove_workdir(f)
                f.unlink(missing_ok=True)
    return removed


def _remove_workdir(registry_file: Path) -> None:
    """The dead run's scratch folder (its programs' reports and logs), if it is one of ours."""
    try:
        workdir = Path(json.loads(registry_file.read_text()).get("workdir") or "")
    except (OSError, ValueError):
        return
    if workdir.name.startswith("mptlab-emu-") and workdir.is_dir():
        shutil.rmtree(workdir, ignore_errors=True)


def remove(run_id: str, namespaces: Sequence[str], pids: Iterable[int] = ()) -> None:
    """Stop the run's processes (the given ones and any left in its namespaces), then delete its
    namespaces (their veths go with them) and its registry file."""
    existing = set(our_namespaces().get(run_id, []))
    victims = set(pids)
    for ns in namespaces:
        if ns in existing:
            victims |= {int(p) for p in sh("ip", "netns", "pids", ns, check=False).split()}
    stop_processes(victims)
    for ns in namespaces:
        if ns in existing:
            sh("ip", "netns", "del", ns, check=False)
    (REGISTRY / f"{run_id}.json").unlink(missing_ok=True)


def stop_processes(pids: Iterable[int], grace_s: float = 2.0) -> None:
    """SIGTERM, then SIGKILL what is left after `grace_s`."""
    pids = [p for p in set(pids) if p > 1 and p != os.getpid()]
    for p in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) and not _zombie(p) for p in pids):
        time.sleep(0.02)
    for p in pids:
        if _alive(p) and not _zombie(p):
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


# --- building -------------------------------------------------------------------------------


def build_network(plan: Plan) -> None:
    """Namespaces, veths, addresses, offloads, qdiscs, bridges, routes and MPTCP endpoints (the
    user-space emulators are started by the session, as processes)."""
    for ns in plan.namespaces():
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        # IPv4 only: no IPv6 neighbour discovery or MLD frames in the links' counters.
        for key in ("net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"):
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", key)
    for ns in plan.nodes.values():
        for key in ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
                    "net.ipv4.tcp_no_metrics_save=1"):
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", key)
        sh("ip", "-n", ns, "mptcp", "limits", "set", "subflow", "8", "add_addr_accepted", "8")
    for link in plan.links:
        _build_link(plan, link)
    for i, r in enumerate(plan.routes):
        ns = plan.nodes[r.node]
        table = str(1000 + i)
        sh("ip", "-n", ns, "rule", "add", "from", f"{r.src}/32", "to", f"{r.dst}/32", "table", table,
           "pref", str(100 + i))
        sh("ip", "-n", ns, "route", "add", f"{r.dst}/32", "via", r.via, "dev", r.dev, "table", table, "onlink",
           *r.options)
    for f in plan.flows:
        if not f.sack:  # per namespace: the flow's two ends
            for node in (f.src, f.dst):
                sh("ip", "netns", "exec", plan.nodes[node], "sysctl", "-qw", "net.ipv4.tcp_sack=0")
    for node, addr, dev in plan.endpoints:
        sh("ip", "-n", plan.nodes[node], "mptcp", "endpoint", "add", addr, "dev", dev, "subflow")


def _build_link(plan: Plan, link: LinkPlan) -> None:
    na, nb, nl = plan.nodes[link.a], plan.nodes[link.b], link.ns
    sh("ip", "link", "add", link.if_node, "netns", na, "type", "veth", "peer", "name", link.if_l_a, "netns", nl)
    sh("ip", "link", "add", link.if_node, "netns", nb, "type", "veth", "peer", "name", link.if_l_b, "netns", nl)
    for ns, dev, addr in ((na, link.if_node, link.addr_a), (nb, link.if_node, link.addr_b)):
        sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
    for ns, dev in ((na, link.if_node), (nb, link.if_node), (nl, link.if_l_a), (nl, link.if_l_b)):
        sh("ip", "netns", "exec", ns, "ethtool", "-K", dev, *OFFLOADS_OFF)
        sh("ip", "-n", ns, "link", "set", dev, "up")
    for d in (link.ab, link.ba):
        _shape(nl, d)
    if link.mechanism == "bridge":
        sh("ip", "-n", nl, "link", "add", "br0", "type", "bridge")
        for dev in (link.if_l_a, link.if_l_b):
            sh("ip", "-n", nl, "link", "set", dev, "master", "br0")
        sh("ip", "-n", nl, "link", "set", "br0", "up")


def _shape(ns: str, d: Direction) -> None:
    """tbf at the direction's rate on L's egress veth, its queue as tbf's child qdisc."""
    sh("tc", "-n", ns, "qdisc", "add", "dev", d.egress, *STAB, "root", "handle", "1:", *_tbf(d.rate_bps, d.queue))
    sh("tc", "-n", ns, "qdisc", "add", "dev", d.egress, "parent", "1:1", "handle", "10:", *queue_qdisc(d.queue))


def _tbf(rate: int, queue: dict[str, Any], down: bool = False) -> list[str]:
    """tbf's parameters. Its `limit` is handed to a fifo child by every change (fifo_set_limit),
    so it is the queue's own limit (packets for pfifo, bytes for bfifo), or 0 while down."""
    burst = max(1600, rate // 8 // 1000)  # >= one full frame; 1 ms of the rate at high rates
    limit = 0 if down else queue.get("limit_packets") or queue.get("limit_bytes") or 1 << 20
    return ["tbf", "rate", f"{rate}bit", "burst", str(burst), "limit", str(limit)]


def apply_event(ns: str, d: Direction, action: str, rate_bps: int | None, down: bool) -> None:
    """A scenario link event on direction `d` (docs/emulation.md "Link events"); `down` says
    whether the direction is down when the event comes. `down` swaps its queue for one that holds
    nothing (`pfifo limit 0`: what is queued is dropped with the old queue, and every packet
    offered until `up` is dropped); `up` puts the queue back; `rate` changes tbf's rate in place
    (the size table is given again: a change without it would drop it)."""
    # No handle on the replacements: a new child of another kind is grafted in the old one's place.
    if action == "down":
        sh("tc", "-n", ns, "qdisc", "replace", "dev", d.egress, "parent", "1:1", "pfifo", "limit", "0")
    elif action == "up":
        sh("tc", "-n", ns, "qdisc", "replace", "dev", d.egress, "parent", "1:1", *queue_qdisc(d.queue))
    elif action == "rate" and rate_bps:
        sh("tc", "-n", ns, "qdisc", "change", "dev", d.egress, *STAB, "root", "handle", "1:",
           *_tbf(rate_bps, d.queue, down))


def queue_qdisc(q: dict[str, object]) -> list[str]:
    """The child qdisc of a resolved queue (docs/resolve.md `queue`)."""
    kind = q["kind"]
    if kind == "codel":
        limit = ["limit", str(q["limit_packets"])] if q.get("limit_packets") else []
        return ["codel", *limit, "target", f"{int(q['target_ns']) // 1000}us",
                "interval", f"{int(q['interval_ns']) // 1000}us"]
    if q.get("limit_packets") is not None:
        return ["pfifo", "limit", str(q["limit_packets"])]
    return ["bfifo", "limit", str(q["limit_bytes"])]
