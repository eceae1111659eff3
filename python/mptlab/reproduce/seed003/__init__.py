"""Seed 003: Pieska, Kassler, Brunstrom, Rakocevic, Amend (2024), performance impact of nested
congestion control on transport-layer multipath tunnelling (`mptlab reproduce seed003`).

    from mptlab.reproduce.seed003 import reproduce
    res = reproduce(out="reproductions/seed003")

Modules: `network` turns the paper's axes (E2E RTT, tunnel share, asymmetry, buffer, CoDel) into
scenario overrides; `plans` generates the sweep plans (plans/seed003-*.toml); `metrics` reads
the axes back and joins tunnel runs to their no-tunnel baselines (relative DLCT); `study` runs
everything (what this package exports); `claims` judges the paper's findings; `figures` draws
Fig. 2, the contours and Fig. 10; `report` writes report.md. See docs/reproductions.md.
"""

from mptlab.reproduce.seed003.study import (
    DEFAULT_OUT,
    DEFAULT_RUNS,
    PARTS,
    REFERENCE,
    STUDY,
    Reproduction,
    load_published,
    reproduce,
)

__all__ = ["DEFAULT_OUT", "DEFAULT_RUNS", "PARTS", "REFERENCE", "STUDY", "Reproduction", "load_published", "reproduce"]
