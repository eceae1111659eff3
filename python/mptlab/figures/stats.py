"""Summary statistics for error bars: mean over seeds with a Student-t confidence interval.

scipy is not a dependency, so the two-sided 97.5 % quantile of Student's t comes from a table
for 1–30 degrees of freedom (values to 4 decimals, as printed in any statistics text) and, above
30, from the Cornish–Fisher expansion around the normal quantile (Abramowitz & Stegun 26.7.5),
which is within 1e-4 there.
"""

from __future__ import annotations

import math

import numpy as np

#: t_{0.975, df} for df = 1..30.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """Two-sided 95 % quantile of Student's t with `df` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_and_error(values: np.ndarray, error: str) -> tuple[float, float, int]:
    """(mean, half-width of the error bar, n) of the finite `values`.

    error: "ci95" — half-width of the 95 % confidence interval of the mean, t_{0.975,n-1}·s/√n
    (NaN with fewer than 2 values); "std" — the sample standard deviation (ddof 1; NaN below 2);
    "none" — NaN."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    n = int(v.size)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(v.mean())
    if error == "none" or n < 2:
        return mean, math.nan, n
    sd = float(v.std(ddof=1))
    if error == "std":
        return mean, sd, n
    return mean, t975(n - 1) * sd / math.sqrt(n), n
