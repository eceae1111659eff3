"""Seed 004's multipath routes: an RPL-like DODAG with up to K = 3 paths per data node
(Guo et al. 2025, Sec. VII-A: "Standard IPv6 Routing Protocol for Low-Power and Lossy Networks
(RPL) is applied for multipath discovery with the maximum number of paths K = 3"; study notes
§1.5 and §7 A10 option (a)).

The DODAG is rooted at the DC. Rank = hop count from the DC (an OF0-like objective function,
RFC 6552, with one rank step per hop), computed by breadth-first search over the unit-disk
graph plus the 5G link. A node's parents are its neighbours of lower rank; its preferred parent
the first of them. Each node gets one path per parent, at most K: the k-th path leaves through
the k-th parent and then follows preferred parents up to the DC.

Interpretations (ours; the paper names RPL and K only):
- Objective function: hop count (OF0-like), not ETX/MRHOF (the paper gives no link metric and
  our links are loss-free unit disks).
- Parent order: rank, then distance (nearer first: a stronger link in a real radio), then name
  (a deterministic tie-break). With hop-count ranks, every parent has rank - 1.
- Paths are loop-free because the rank falls by one at every step; distinct because their first
  hops differ. The routes are computed once before the run and are the same for both variants
  (A10: static, identical for P- and C-MPTCP).
- The 5G link (between the 5G node and the DC) counts as one hop, so the 5G node has rank 1
  and its Wi-Fi neighbours further than one Wi-Fi hop from the DC reach it as a parent
  ("neighboring WiFi nodes discover 5G node 12, which has a direct path to DC", Sec. VII-D).
  The 5G node's own parent set is the DC over 5G only (A9 option (a)): a Wi-Fi path to the DC
  would be a second route between the same two nodes, which a node path cannot tell apart from
  the 5G one. Paths through the 5G node end with its 5G hop.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from mptlab.reproduce.seed004.deploy import DC, Deployment, in_range

K_MAX = 3


@dataclass(frozen=True)
class Routes:
    """The DODAG and paths of a deployment: `rank[name]` (hops to the DC), `parents[name]`
    (ordered), `paths[name]` (up to K node paths from the node to "dc"), `g5_edge` the 5G
    node pair (node, "dc") or None."""

    rank: dict[str, int]
    parents: dict[str, tuple[str, ...]]
    paths: dict[str, tuple[tuple[str, ...], ...]]
    g5_edge: tuple[str, str] | None

    def hops(self) -> list[int]:
        """Hop counts of every path of every node."""
        return [len(p) - 1 for ps in self.paths.values() for p in ps]


def neighbours(dep: Deployment) -> dict[str, list[str]]:
    """Wi-Fi neighbours of each station (unit disk of dep.range_m), plus the 5G link both ways."""
    adj = in_range(dep.xy, dep.range_m)
    out = {n: [dep.names[j] for j in np.flatnonzero(adj[i])] for i, n in enumerate(dep.names)}
    if dep.g5 is not None:
        for a, b in ((dep.g5, DC), (DC, dep.g5)):
            if b not in out[a]:
                out[a].append(b)
    return out


def ranks(nbrs: dict[str, list[str]], root: str = DC) -> dict[str, int]:
    """Hop count from `root` of every station it reaches (breadth-first search)."""
    rank = {root: 0}
    queue = deque([root])
    while queue:
        v = queue.popleft()
        for w in nbrs[v]:
            if w not in rank:
                rank[w] = rank[v] + 1
                queue.append(w)
    return rank


def build(dep: Deployment, k: int = K_MAX) -> Routes:
    """The DODAG and up to `k` paths per data node of `dep` (module docstring). Raises
    ValueError when k is outside 1..3 or a data node cannot reach the DC."""
    if not 1 <= k <= K_MAX:
        raise ValueError(f"K must be 1..{K_MAX}, got {k}")
    nbrs = neighbours(dep)
    rank = ranks(nbrs)
    lost = [n for n in dep.names if n not in rank]
    if lost:
        raise ValueError(f"not connected to the DC: {', '.join(lost)}")
    parents: dict[str, tuple[str, ...]] = {}
    for n in dep.data_nodes:
        if n == dep.g5:
            parents[n] = (DC,)
            continue
        cand = [w for w in nbrs[n] if rank[w] < rank[n]]
        cand.sort(key=lambda w: (rank[w], dep.distance(n, w), w))
        parents[n] = tuple(cand)
    paths: dict[str, tuple[tuple[str, ...], ...]] = {}
    for n in dep.data_nodes:
        found: list[tuple[str, ...]] = []
        for p in parents[n][:k]:
            path = [n, p]
            while path[-1] != DC:
                path.append(parents[path[-1]][0])
            t = tuple(path)
            if t not in found:
                found.append(t)
        paths[n] = tuple(found)
    return Routes(rank, parents, paths, (dep.g5, DC) if dep.g5 is not None else None)


def valid_hop(dep: Deployment, a: str, b: str) -> bool:
    """Whether a -> b is a usable hop: within radio range, or the 5G link."""
    if dep.g5 is not None and {a, b} == {dep.g5, DC}:
        return True
    return dep.distance(a, b) <= dep.range_m
