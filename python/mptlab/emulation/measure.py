"""What an emulated run measures while it runs, read from the kernel: qdisc counters of every
link direction (`tc -s -j`) and the TCP state of every subflow (`ss -ti`), sampled every trace
interval by the controller, plus the link emulators' own counters at the end.

Sources and their meaning (docs/emulation.md "Measurements"):
- link direction: the root tbf of L's egress veth toward the receiving node: bytes and packets
  sent (IP bytes: the size table takes the Ethernet header off, as the simulator counts),
  drops (its queue's tail drops), qlen (packets waiting) at the sample instant;
- subflow (sender side): `ss -tin` fields rtt (SRTT, ms), cwnd (segments) and mss, bytes_sent,
  bytes_retrans, data_segs_out, retrans (total), minrtt; receiver side: bytes_received.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from mptlab.emulation.netns import sh
from mptlab.emulation.plan import Plan


@dataclass(frozen=True)
class LinkSample:
    bytes: int
    packets: int
    drops: int
    qlen: int


def sample_links(plan: Plan) -> dict[str, LinkSample]:
    """Counters of every link direction, by direction name."""
    out: dict[str, LinkSample] = {}
    for link in plan.links:
        stats = json.loads(sh("tc", "-s", "-j", "-n", link.ns, "qdisc", "show") or "[]")
        roots = {q["dev"]: q for q in stats if q.get("root")}
        for d in (link.ab, link.ba):
            q = roots[d.egress]
            out[d.name] = LinkSample(bytes=q["bytes"], packets=q["packets"], drops=q["drops"], qlen=q["qlen"])
    return out


# "[State] Recv-Q Send-Q local:port peer:port" (ss omits State when filtering by state; an
# address bound to a device reads "addr%dev").
_SOCKET = re.compile(r"^(?:[A-Z][A-Z-]*\s+)?\d+\s+\d+\s+([\d.]+)(?:%\S+)?:(\d+)\s+([\d.]+)(?:%\S+)?:(\d+)")
_FIELD = re.compile(r"([a-z_]+):(\S+)")


def sample_sockets(ns: str) -> list[dict[str, Any]]:
    """Established TCP sockets (MPTCP subflows included) of namespace `ns`, one dict each with
    `local`, `lport`, `remote`, `rport` and the numeric ss fields this module reads."""
    text = sh("ss", "-N", ns, "-tinH", "state", "established")
    out: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    for line in text.splitlines():
        m = _SOCKET.match(line)
        if m and not line.startswith(("\t", " ")):
            cur = {"local": m.group(1), "lport": int(m.group(2)), "remote": m.group(3), "rport": int(m.group(4))}
            out.append(cur)
            continue
        if cur is None:
            continue
        for key, val in _FIELD.findall(line):
            _field(cur, key, val)
    return out


def _field(cur: dict[str, Any], key: str, val: str) -> None:
    try:
        if key == "rtt":
            cur["srtt_ms"] = float(val.split("/")[0])
        elif key == "retrans":
            cur["retrans_total"] = int(val.split("/")[1])
        elif key in ("cwnd", "mss", "bytes_sent", "bytes_retrans", "bytes_acked", "bytes_received",
                     "data_segs_out", "segs_out"):
            cur[key] = int(val)
        elif key == "minrtt":
            cur["minrtt_ms"] = float(val)
    except (ValueError, IndexError):
        pass


def read_json(path: Any) -> dict[str, Any] | None:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
