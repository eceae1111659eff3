"""Seed 001: Table 3 and Figs. 3-4 of Łuczak, Ignaciuk, Morawski (2023), coupled MPTCP
controllers x path controllers for streaming over two LTE paths (`mptlab reproduce seed001`).

    from mptlab.reproduce.seed001 import reproduce
    res = reproduce(runs=5, out="reproductions/seed001")

Modules: `study` runs the plan and writes the outputs (what this package exports); `table`
computes Table 3 from the runs; `compare` the rank and trend statistics; `claims` judges the
paper's claims; `sensitivity` runs the variants over unstated parameters; `figures` draws
Figs. 3-4; `report` writes report.md. See docs/reproductions.md.
"""

from mptlab.reproduce.seed001.study import (
    DEFAULT_OUT,
    FLOW,
    PAIR_COLUMN,
    PAIR_KEY,
    PLAN,
    PUBLISHED_CELLS,
    PUBLISHED_COLUMNS,
    REFERENCE,
    SENSITIVITY_RUNS,
    STUDY,
    Reproduction,
    load_published,
    load_runs,
    plan_for,
    reproduce,
    sweep_folder,
)

__all__ = [
    "DEFAULT_OUT",
    "FLOW",
    "PAIR_COLUMN",
    "PAIR_KEY",
    "PLAN",
    "PUBLISHED_CELLS",
    "PUBLISHED_COLUMNS",
    "REFERENCE",
    "SENSITIVITY_RUNS",
    "STUDY",
    "Reproduction",
    "load_published",
    "load_runs",
    "plan_for",
    "reproduce",
    "sweep_folder",
]
