"""Seed 002: §V of Das et al. (ICC Workshops 2025), the BLP scheduler and its adaptive
controller against the benchmark MPQUIC schedulers (`mptlab reproduce seed002`).

    from mptlab.reproduce.seed002 import reproduce
    res = reproduce(runs=3, out="reproductions/seed002")

Modules: `study` runs the cases' plans and writes the outputs (what this package exports);
`metrics` defines the per-run metrics; `table` the statistics over runs next to the published
rows; `claims` judges comparability, closeness and the paper's claims; `figures` draws the box
plots and Fig. 10; `report` writes report.md. See docs/reproductions.md.
"""

from mptlab.reproduce.seed002.study import (
    CASES,
    DEFAULT_OUT,
    DEFAULT_RUNS,
    PUBLISHED_COLUMNS,
    PUBLISHED_ROWS,
    REFERENCE,
    SCHEDULERS,
    STUDY,
    Reproduction,
    load_published,
    load_runs,
    plan_for,
    reproduce,
    sched_label,
)

__all__ = [
    "CASES",
    "DEFAULT_OUT",
    "DEFAULT_RUNS",
    "PUBLISHED_COLUMNS",
    "PUBLISHED_ROWS",
    "REFERENCE",
    "SCHEDULERS",
    "STUDY",
    "Reproduction",
    "load_published",
    "load_runs",
    "plan_for",
    "reproduce",
    "sched_label",
]
