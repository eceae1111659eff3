"""Do the seeds of a sweep differ? A scenario with no random component (no random loss,
capacity model, Poisson traffic or randomised algorithm) gives bit-identical runs for every
seed: more seeds then add nothing, and "± 0" and zero-width confidence intervals say nothing
about the spread a real network would have. Sweeps warn, reports say so (issue 18, item 9).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

#: Run-level metrics compared across seeds (those a run has).
COMPARED = ("goodput_mbps", "jain", "loss_pct", "owd_ms", "jitter_ms", "retransmissions", "completion_time_s")


@dataclass(frozen=True)
class SeedSpread:
    #: Points with at least two successful seeds.
    points: int
    #: Of those, points whose seeds all gave the same metrics.
    identical: int
    #: Seeds per point (the most any point has).
    seeds: int

    @property
    def all_identical(self) -> bool:
        return self.points > 0 and self.identical == self.points

    def warning(self) -> str | None:
        """One line when every point's seeds gave identical results, else None."""
        if not self.all_identical:
            return None
        return (
            f"every point gave identical results for all of its {self.seeds} seeds: the scenario has "
            "no random component (random loss, a capacity model, Poisson traffic), so more seeds "
            "add nothing and spreads over seeds are 0"
        )


def seed_spread(runs: pd.DataFrame, params: Sequence[str], metrics: Sequence[str] = COMPARED) -> SeedSpread:
    """How many points' seeds differ, from a sweep's runs table and its parameter columns
    (`Store.load()`: `.runs`, `.params`); a point is one combination of the parameters."""
    if runs.empty or "status" not in runs.columns:
        return SeedSpread(0, 0, 0)
    ok = runs[runs["status"] == "ok"]
    cols = [m for m in metrics if m in ok.columns]
    if not cols:
        return SeedSpread(0, 0, 0)
    points = identical = seeds = 0
    keys = [p for p in params if p in ok.columns]
    groups = ok.groupby(keys, dropna=False) if keys else [((), ok)]
    for _, group in groups:
        if len(group) < 2:
            continue
        points += 1
        seeds = max(seeds, len(group))
        if len(group[cols].round(12).drop_duplicates()) == 1:
            identical += 1
    return SeedSpread(points, identical, seeds)
