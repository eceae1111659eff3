"""Where mptlab's own files are: the scenarios, plans and published numbers it ships.

They live in the package (`mptlab/data/`), so an installed mptlab has them; in the repository the
top-level `scenarios`, `plans` and `reference` are links to the same folders. A file is named by
its documented path ("scenarios/bench/w1.toml", "plans/seed001.toml").
"""

from __future__ import annotations

import os
from pathlib import Path

#: The package's data folder (holds scenarios/, plans/, reference/).
DATA = Path(__file__).resolve().parent / "data"


def roots() -> list[Path]:
    """Folders a documented path may be relative to, in order: $MPTLAB_ROOT, the current folder
    and its parents (a checkout being worked on), the package's data folder (an installed
    mptlab), the parents of the package (an editable install lives in the repository)."""
    out: list[Path] = []
    if os.environ.get("MPTLAB_ROOT"):
        out.append(Path(os.environ["MPTLAB_ROOT"]))
    cwd = Path.cwd()
    out += [cwd, *cwd.parents, DATA]
    out += list(DATA.parent.parents)
    return out


def data_file(relative: str) -> Path | None:
    """`relative` under the first root that has it, or None."""
    for base in roots():
        if (base / relative).is_file():
            return base / relative
    return None
