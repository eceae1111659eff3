"""Seed 004's deployments (Guo et al. 2025, Sec. VII-B/C/D; study notes §1.2 and §7 A6, A11):
where the data nodes and the data centre (DC) stand, drawn deterministically from a seed.

Source: the paper's Sec. VII and reference/seed004.csv (`area_width`, `area_height`,
`deployment_radius`, `number_of_5g_nodes`):
- square-center: 50 data nodes uniform in 350 m x 400 m, 100 in 500 m x 500 m, DC at the centre;
- sunflower-center: 50 nodes in a circle of radius 250 m, 100 in 350 m, DC at the centre;
- square-corner: 25 nodes in 250 m x 250 m, 50 in 350 m x 400 m, DC at a corner; the 25-node
  case also with one 5G node ("node 12", Fig. 11).

Interpretations (ours; the paper gives no coordinates, seeds, ranges or numbering):
- Random positions are uniform in [0, W] x [0, H], drawn by numpy's default Generator
  (PCG64) seeded with the seed: x then y per node, node 1 first.
- Sunflower (A11): Vogel's spiral, r_k = R * sqrt(k / n), theta_k = k * golden angle
  (pi * (3 - sqrt(5)) rad = 137.508 deg), k = 1..n, centred on the DC; it has no random
  component, so every seed gives the same nodes (only the run's own randomness changes).
- The DC stands at (W/2, H/2) ("center") or at (0, 0) ("corner"); for the sunflower at the
  circle's centre (0, 0).
- Node names: the DC is "dc", the data nodes "n1".."nN" in draw order (the paper's numbering
  starting at 1, so its "node 12" is n12). The 5G node of the corner-25 case is n12, whatever
  its position: the paper says nothing of where node 12 stands, and fixing the name keeps the
  with- and without-5G runs on one topology (same seed, same positions).
- Radio range (A6, not in the paper): a unit disk of DEFAULT_RANGE_M = 100 m, the range of the
  ns-3 comparison runs in the issue; stations within range hear and decode each other. With it
  the deployments have ~9-12 neighbours per node and 3-7 hops to the DC.
- Connectivity: every data node must reach the DC over Wi-Fi alone (the 5G link is not counted,
  so the 5G and no-5G cases share the topology). A disconnected draw is replaced by the next
  draw of the same seed's Generator, and `draws` records how many were needed (at most
  MAX_DRAWS, then ValueError). Not the draw of seed + 1: then a disconnected seed 4 would repeat
  seed 5's topology and two "independent" runs would share one. A disconnected sunflower is an
  error (redrawing cannot change it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DEFAULT_RANGE_M = 100.0
MAX_DRAWS = 1000
#: Vogel's golden angle, radians.
GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))
#: The 5G node of the corner-25 case (the paper's Fig. 11 "node 12").
G5_NODE = "n12"
DC = "dc"

#: Deployment kind -> data nodes -> area: (W, H) metres for squares, (R,) for the sunflower.
AREAS: dict[str, dict[int, tuple[float, ...]]] = {
    "square-center": {50: (350.0, 400.0), 100: (500.0, 500.0)},
    "sunflower-center": {50: (250.0,), 100: (350.0,)},
    "square-corner": {25: (250.0, 250.0), 50: (350.0, 400.0)},
}


@dataclass(frozen=True)
class Deployment:
    """Stations and positions of one deployment: `names[0]` is the DC; `xy[i]` is the position
    of `names[i]` in metres. `seed` seeds the draws, `draws` counts them (the last one kept).
    `g5` names the 5G node or is None."""

    kind: str
    nodes: int
    names: tuple[str, ...]
    xy: np.ndarray
    range_m: float
    seed: int
    draws: int
    g5: str | None

    @property
    def data_nodes(self) -> tuple[str, ...]:
        return self.names[1:]

    def position(self, name: str) -> tuple[float, float]:
        i = self.names.index(name)
        return float(self.xy[i, 0]), float(self.xy[i, 1])

    def distance(self, a: str, b: str) -> float:
        (ax, ay), (bx, by) = self.position(a), self.position(b)
        return math.hypot(ax - bx, ay - by)


def uniform(n: int, width: float, height: float, rng: np.random.Generator) -> np.ndarray:
    """n positions uniform in [0, width] x [0, height] (x, y per node, node 1 first), the next
    draw of `rng`."""
    u = rng.random((n, 2))
    return u * np.array([width, height])


def sunflower(n: int, radius: float) -> np.ndarray:
    """Vogel's spiral of n points in a circle of `radius` centred on (0, 0):
    r_k = radius * sqrt(k / n), theta_k = k * GOLDEN_ANGLE, k = 1..n."""
    k = np.arange(1, n + 1, dtype=float)
    r = radius * np.sqrt(k / n)
    th = k * GOLDEN_ANGLE
    return np.column_stack([r * np.cos(th), r * np.sin(th)])


def in_range(xy: np.ndarray, range_m: float) -> np.ndarray:
    """Boolean adjacency of the unit-disk graph (no self loops)."""
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    adj = d <= range_m
    np.fill_diagonal(adj, False)
    return adj


def connected_to_root(adj: np.ndarray, root: int = 0) -> bool:
    """Whether every vertex reaches `root` (breadth-first search)."""
    seen = np.zeros(len(adj), dtype=bool)
    seen[root] = True
    frontier = [root]
    while frontier:
        nxt = []
        for v in frontier:
            for w in np.flatnonzero(adj[v] & ~seen):
                seen[w] = True
                nxt.append(int(w))
        frontier = nxt
    return bool(seen.all())


def deploy(kind: str, nodes: int, seed: int = 1, has_5g: bool = False, range_m: float = DEFAULT_RANGE_M) -> Deployment:
    """The deployment `kind` (AREAS) with `nodes` data nodes from `seed` (module docstring).
    Raises ValueError for an unknown kind, node count, a 5G node outside the corner-25 case
    having no n12, or no connected draw within MAX_DRAWS."""
    if kind not in AREAS:
        raise ValueError(f"unknown deployment {kind!r} (valid: {', '.join(AREAS)})")
    if nodes not in AREAS[kind]:
        raise ValueError(f"{kind}: {nodes} data nodes not in the paper (valid: {', '.join(map(str, AREAS[kind]))})")
    if range_m <= 0:
        raise ValueError(f"range must be positive, got {range_m}")
    if has_5g and nodes < 12:
        raise ValueError(f"a 5G node needs node {G5_NODE}")
    area = AREAS[kind][nodes]
    names = (DC,) + tuple(f"n{k}" for k in range(1, nodes + 1))
    rng = np.random.default_rng(seed)
    for draw in range(MAX_DRAWS):
        if kind == "sunflower-center":
            xy = np.vstack([[0.0, 0.0], sunflower(nodes, area[0])])
        else:
            w, h = area
            dc = (w / 2, h / 2) if kind == "square-center" else (0.0, 0.0)
            xy = np.vstack([dc, uniform(nodes, w, h, rng)])
        if connected_to_root(in_range(xy, range_m)):
            return Deployment(kind, nodes, names, xy, float(range_m), seed, draw + 1, G5_NODE if has_5g else None)
        if kind == "sunflower-center":
            raise ValueError(f"{kind} {nodes}: not connected with range {range_m} m")
    raise ValueError(f"{kind} {nodes}: no connected draw in {MAX_DRAWS} draws of seed {seed} with range {range_m} m")
