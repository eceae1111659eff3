"""Seed 000: Picchi & Tarchi (2026), joint congestion control of MPTCP and MPQUIC over a dual
terrestrial backhaul (5G IAB) with eMBB, mMTC-like and mixed traffic (`mptlab reproduce seed000`).

    from mptlab.reproduce.seed000 import reproduce
    res = reproduce(runs=1, out="reproductions/seed000")

Modules: `study` runs the five scenarios' plans and writes the outputs (what this package
exports); `metrics` defines the per-run metrics; `table` puts every published cell of Tables
2-23 next to the simulated one; `claims` judges the paper's findings; `figures` draws the
paper's panels; `report` writes report.md. See docs/reproductions.md.
"""

from mptlab.reproduce.seed000.study import (
    CASES,
    DEFAULT_OUT,
    DEFAULT_RUNS,
    PUBLISHED_COLUMNS,
    PUBLISHED_ROWS,
    REFERENCE,
    SCALED_GROUPS,
    STUDY,
    Reproduction,
    load_published,
    load_runs,
    plan_for,
    reproduce,
    select_cases,
)

__all__ = [
    "CASES",
    "DEFAULT_OUT",
    "DEFAULT_RUNS",
    "PUBLISHED_COLUMNS",
    "PUBLISHED_ROWS",
    "REFERENCE",
    "SCALED_GROUPS",
    "STUDY",
    "Reproduction",
    "load_published",
    "load_runs",
    "plan_for",
    "reproduce",
    "select_cases",
]
