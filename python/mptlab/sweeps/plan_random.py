"""Random point sets of a sweep plan (``[[random]]``): deterministic draws with numpy's
``default_rng(seed)``, optionally kept apart by ``min_distance`` (dart throwing, like a
Poisson-disk set).

Each key is drawn in its own normalized coordinate u in [0, 1):

* a float key: ``min + u * (max - min)`` (``log = true``: ``exp`` of the same in log space),
  rounded to 6 significant digits so that its text, and so the run's key, is stable;
* an integer key: every integer in ``[ceil(min), floor(max)]`` equally likely
  (``log = true``: log-uniform over ``[min, max]``, then rounded).

``min_distance`` is the Euclidean distance between two points in the unit cube of the
normalized keys, measured on the values as rounded (so it holds for the values that run).
Candidates closer than that to an accepted point are rejected; after ``max_tries`` candidates
sampling gives up with :class:`PlacementError`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Candidates drawn per requested point (plus a fixed allowance) before giving up.
TRIES_PER_POINT = 100
TRIES_BASE = 1000
#: Above this many neighbour cells (3**dims), distances are checked against every point.
_MAX_GRID_NEIGHBOURS = 729
_BATCH = 256


@dataclass(frozen=True)
class RandomKey:
    key: str
    min: float
    max: float
    unit: str | None = None
    integer: bool = False
    log: bool = False

    def value(self, u: float) -> int | float:
        """The key's value at normalized coordinate u in [0, 1)."""
        if self.integer:
            lo, hi = math.ceil(self.min), math.floor(self.max)
            if self.log:
                v = round(math.exp(math.log(self.min) + u * (math.log(self.max) - math.log(self.min))))
            else:
                v = lo + math.floor(u * (hi - lo + 1))
            return int(min(max(v, lo), hi))
        if self.log:
            v = math.exp(math.log(self.min) + u * (math.log(self.max) - math.log(self.min)))
        else:
            v = self.min + u * (self.max - self.min)
        v = float(f"{v:.6g}")
        return min(max(v, float(self.min)), float(self.max))

    def normalized(self, v: float) -> float:
        """Where value v lies in [0, 1] (log space for log keys)."""
        if self.log:
            return (math.log(v) - math.log(self.min)) / (math.log(self.max) - math.log(self.min))
        return (v - self.min) / (self.max - self.min)


class PlacementError(Exception):
    """``min_distance`` left room for only ``placed`` of ``count`` points."""

    def __init__(self, placed: int, count: int) -> None:
        super().__init__(f"could only place {placed} of {count} points")
        self.placed = placed
        self.count = count


def sample(
    keys: Sequence[RandomKey], count: int, seed: int, min_distance: float | None = None
) -> list[tuple[int | float, ...]]:
    """``count`` points, one value per key in key order. Deterministic in (keys, count, seed,
    min_distance). Raises PlacementError when min_distance cannot be met."""
    rng = np.random.default_rng(seed)
    dims = len(keys)
    if not min_distance:
        u = rng.random((count, dims))
        return [tuple(k.value(float(x)) for k, x in zip(keys, row)) for row in u]

    r = float(min_distance)
    r2 = r * r
    use_grid = 3**dims <= _MAX_GRID_NEIGHBOURS
    grid: dict[tuple[int, ...], list[int]] = {}
    offsets = list(itertools.product((-1, 0, 1), repeat=dims)) if use_grid else []
    accepted: list[tuple[int | float, ...]] = []
    coords = np.empty((count, dims))
    max_tries = TRIES_BASE + TRIES_PER_POINT * count
    tries = 0
    while len(accepted) < count and tries < max_tries:
        batch = rng.random((min(_BATCH, max_tries - tries), dims))
        for row in batch:
            tries += 1
            values = tuple(k.value(float(x)) for k, x in zip(keys, row))
            c = np.array([k.normalized(v) for k, v in zip(keys, values)])
            n = len(accepted)
            if use_grid:
                cell = tuple(int(math.floor(x / r)) for x in c)
                near = [
                    i
                    for off in offsets
                    for i in grid.get(tuple(a + b for a, b in zip(cell, off)), ())
                ]
                close = bool(near) and bool(
                    (((coords[near] - c) ** 2).sum(axis=1) < r2).any()
                )
            else:
                close = n > 0 and bool((((coords[:n] - c) ** 2).sum(axis=1) < r2).any())
            if close:
                continue
            coords[n] = c
            accepted.append(values)
            if use_grid:
                grid.setdefault(cell, []).append(n)
            if len(accepted) == count:
                break
    if len(accepted) < count:
        raise PlacementError(len(accepted), count)
    return accepted
