"""Reproductions of the seed studies (`../shared/seeds/`), side by side with their published
numbers: `mptlab reproduce STUDY`.

    from mptlab.reproduce import STUDIES, study
    study("seed001").reproduce(runs=5, out="reproductions/seed001")

One package per study (`seed000/`, `seed001/`, ...) exporting a `reproduce(runs, out, workers, dask, ...)`
function (its `study` module) and holding the study's tables, claims, figures and report as
modules of their own; `common` holds what they share (finding plans and published numbers,
rank correlations, Markdown tables). See docs/reproductions.md.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mptlab.reproduce.common import ReproduceError

#: Study name -> (module, one-line description).
STUDIES: dict[str, tuple[str, str]] = {
    "seed000": (
        "mptlab.reproduce.seed000",
        "Picchi & Tarchi 2026: MPTCP and MPQUIC over a dual terrestrial backhaul, eMBB/mMTC/mixed (Tables 2-23, Figs. 3-20)",
    ),
    "seed001": (
        "mptlab.reproduce.seed001",
        "Łuczak et al. 2023: coupled MPTCP CC x path CC for streaming over two LTE paths (Table 3, Figs. 3-4)",
    ),
    "seed002": (
        "mptlab.reproduce.seed002",
        "Das et al. 2025: BLP scheduler and adaptive CC vs MPQUIC schedulers (Sec. V, Figs. 4-10)",
    ),
    "seed003": ("mptlab.reproduce.seed003", "Pieska et al. 2024: nested CC in multipath tunnels, CPF vs SRTT (Figs. 2, 5-10, Table 3)"),
    "seed004": ("mptlab.reproduce.seed004", "Guo et al. 2025: P-MPTCP vs C-MPTCP over multi-hop 802.11 and 5G (Sec. VII, Figs. 5-13)"),
}


def study(name: str) -> ModuleType:
    """The module of study `name`; ReproduceError (exit 2) listing the known ones otherwise."""
    key = name.strip().lower()
    if key not in STUDIES:
        raise ReproduceError(f"STUDY: unknown study {name!r} (valid: {', '.join(STUDIES)})")
    return importlib.import_module(STUDIES[key][0])


__all__ = ["STUDIES", "study", "ReproduceError"]
