"""What every reproduction needs: finding repository files and published numbers, rank
correlations, small Markdown tables."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: Environment variable naming a folder of published numbers (or one CSV file) to use instead
#: of the repository's `reference/`.
REFERENCE_ENV = "MPTLAB_REFERENCE"


class ReproduceError(ValueError):
    """A reproduction cannot start (unknown study, missing plan or published numbers) or
    cannot finish; `exit_code` 2 means nothing was run."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


#: A claim's verdict in every reproduction's claims table.
HOLDS, FAILS, NOT_COMPARABLE = "HOLDS", "FAILS", "NOT COMPARABLE"
#: The closeness bands every reproduction counts published numbers in, percent.
BANDS_PCT = (10, 25, 50)


def within(simulated: Any, published: Any, pct: float) -> Any:
    """|simulated − published| ≤ pct % of |published| (elementwise for arrays and Series)."""
    return abs(simulated - published) <= pct / 100 * abs(published) + 1e-12 * abs(published)


def repo_candidates() -> list[Path]:
    """Folders a documented path may be relative to (`mptlab.paths.roots`)."""
    from mptlab.paths import roots

    return roots()


def repo_file(relative: str) -> Path:
    """`relative` (e.g. "plans/seed001.toml") under the first root that has it."""
    from mptlab.paths import data_file

    path = data_file(relative)
    if path is None:
        raise ReproduceError(f"cannot find {relative}: not in the installed package nor under the current folder; set MPTLAB_ROOT")
    return path


def read_published(name: str, columns: Sequence[str], rows: int, **read_csv: Any) -> tuple[pd.DataFrame, Path]:
    """The published numbers `name` (found by `reference_file`) as a frame, checked to have
    `rows` rows and `columns`; `read_csv` goes to pandas. Raises ReproduceError (exit 2)."""
    path = reference_file(name)
    try:
        df = pd.read_csv(path, **read_csv)
    except (OSError, ValueError) as e:
        raise ReproduceError(f"cannot read published numbers {path}: {e}") from None
    missing = [c for c in columns if c not in df.columns]
    if missing or len(df) != rows:
        raise ReproduceError(
            f"{path}: expected {rows} rows with columns {', '.join(columns)}"
            f" (got {len(df)} rows{', missing ' + ', '.join(missing) if missing else ''})"
        )
    return df, path


def reference_file(name: str) -> Path:
    """The published numbers `name` (e.g. "seed001.csv"): $MPTLAB_REFERENCE when set (a
    folder, or the file itself; nothing else is tried then), else the repository's
    `reference/`, else `../shared/reference/` next to the repository. Raises ReproduceError
    (exit 2) naming every place looked at."""
    tried: list[Path] = []
    env = os.environ.get(REFERENCE_ENV)
    if env:
        p = Path(env)
        p = p if p.suffix == ".csv" else p / name
        if p.is_file():
            return p
        raise ReproduceError(f"published numbers {name} not found: {REFERENCE_ENV}={env} has no {p}")
    for base in repo_candidates():
        if (base / "plans").is_dir() or (base / "reference").is_dir():
            tried += [base / "reference" / name, base.parent / "shared" / "reference" / name]
    seen: set[Path] = set()
    for p in tried:
        if p in seen:
            continue
        seen.add(p)
        if p.is_file():
            return p
    places = ", ".join(str(p) for p in dict.fromkeys(tried)) or "(no repository found)"
    raise ReproduceError(
        f"published numbers {name} not found (looked in: {places}); "
        f"set {REFERENCE_ENV} to the folder that holds {name}"
    )


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (ties get average ranks); NaN when a side is constant or
    fewer than three pairs have both values."""
    a, b = pd.Series(np.asarray(x, dtype=float)), pd.Series(np.asarray(y, dtype=float))
    keep = a.notna() & b.notna()
    a, b = a[keep], b[keep]
    if len(a) < 3 or a.nunique() < 2 or b.nunique() < 2:
        return float("nan")
    # Pearson's r of the ranks (pandas' own method="spearman" needs scipy).
    return float(np.corrcoef(_ranks(a.to_numpy()), _ranks(b.to_numpy()))[0, 1])


def permutation_p(x: Sequence[float], y: Sequence[float], rounds: int = 20000, seed: int = 1) -> float:
    """Two-sided p-value of Spearman's ρ by permutation: the share of random pairings of the
    ranks whose |ρ| is at least the observed one (exact for n ≤ 8, else `rounds` draws of a
    fixed-seed generator, so the number is reproducible)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    rho = spearman(a, b)
    if np.isnan(rho):
        return float("nan")
    ra, rb = _ranks(a), _ranks(b)
    if len(ra) <= 8:
        import itertools

        perms = np.array(list(itertools.permutations(range(len(rb)))))
    else:
        rng = np.random.default_rng(seed)
        perms = np.argsort(rng.random((rounds, len(rb))), axis=1)
    shuffled = rb[perms]
    ca = ra - ra.mean()
    cb = shuffled - shuffled.mean(axis=1, keepdims=True)
    rhos = (cb @ ca) / (np.sqrt((ca**2).sum()) * np.sqrt((cb**2).sum(axis=1)))
    return float(np.mean(np.abs(rhos) >= abs(rho) - 1e-12))


def _ranks(v: np.ndarray) -> np.ndarray:
    return pd.Series(v).rank(method="average").to_numpy(dtype=float)


def markdown_table(rows: Sequence[Sequence[Any]], header: Sequence[str], align: str | None = None) -> str:
    """A GitHub Markdown table; `align` is one character per column, l or r (default: l)."""
    align = align or "l" * len(header)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(sep) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines) + "\n"
