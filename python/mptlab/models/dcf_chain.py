"""The DCF Markov chain of seed 004 (Guo et al., ICC 2025, Sec. IV, Fig. 3, eqs. (1)-(5)),
solved numerically, with the closed forms derived from it and the paper's printed forms.

Source: the paper's Sec. IV transition list (verbatim in shared/studies/seed004.md §2.3), the
balance relations (1)-(2), the printed closed forms (3)/(4) and eq. (5); the corrections are the
study notes' §2.4-§2.7 ([computed] there, re-derived here).

States: (i, k) for backoff stage i in [0, r] and counter k in [0, W_i - 1], W_i = 2^min(i,m) W;
(-1, 0) backoff start; (-1, 1) immediate-access attempt; non-saturated only: (-2, 0) "data
available" and (-2, 1) "data not available". Transitions (one step each):
- (i, k) -> (i, k-1) w.p. 1 - p (idle slot), (i, k) -> (i, k) w.p. p (busy: frozen), k >= 1;
- (i, 0) transmits: w.p. p to (i+1, k) uniform on [0, W_{i+1} - 1] (i < r); on success (1 - p),
  or always at i = r, to (-1, 0) when saturated, to (-2, 0) when not;
- (-1, 0) -> (0, k) w.p. 1/W_0 (missing in the paper; the completion that gives eq. (2));
- non-saturated: (-2, 0) -> (-1, 1) w.p. lam, -> (-2, 1) w.p. 1 - lam; (-2, 1) -> (-2, 0) w.p.
  lam, stays w.p. 1 - lam; (-1, 1) -> (-2, 0) w.p. 1 - p (immediate access succeeds), -> (-1, 0)
  w.p. p.

Interpretations and corrections (notes §2.3-§2.7, §7 B2/B3/B5):
- The printed self-loop range k in [0, W_i - 1] includes k = 0; we freeze only k >= 1 (a counter
  at 0 transmits), which is what eq. (2) b_{i,0} = p^i b_{0,0} requires. The stage-advance index
  range "i in [0, r-1]" is read as i in [1, r]; "W_k - 1" in the normalisation as W_i - 1.
- The counter is uniform on [0, W_i - 1] (W_i values), as eq. (2)'s k-range implies; the text's
  "[0, W_i]" is not used.
- Exact results (saturated): b_{0,0} = b_{-1,0} and
  1/b_{0,0} = 1 + sum_{i=0}^{r} p^i [1 + (W_i - 1) / (2(1 - p))]
  = [2(1-p)^2(1-2p) + (1-2p)^2(1-p^{r+1}) + W(1-p)(1-(2p)^{min(r,m)+1})
     + [r>m] (1-2p) W 2^m p^{m+1} (1-p^{r-m})] / (2(1-p)^2(1-2p)).
  Non-saturated: b_{0,0} = b_{-1,0} = p lam b_{-2,0}, with the extra mass of the four states
  (-2,0), (-2,1), (-1,1) giving 1/b_{0,0} = (1 + (1-lam)/lam + lam)/(p lam) + [the stage sum].
  The printed (3)/(4) are kept as `printed_b00_*` (flagged: they do not follow from (1)-(2);
  (3) is close to b_{-1,1}, not b_{0,0}).
- Eq. (5) N_ts in three readings: `n_ts(..., reading="corrected")` = sum_{i=0}^{r} p^i (W_i+1)/2
  (the probability of reaching stage i is p^i); "corrected-minus" uses (W_i - 1)/2 (the mean of a
  counter uniform on [0, W_i - 1]); "literal" and "literal-outside" are the printed product of
  stationary probabilities (with b_{0,0} from printed (4)), the product taken over the whole
  term or with (W_i+1)/2 outside it. The literal readings are about one slot and not monotone
  in p; they are there to compare, not to use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ChainSolution",
    "stage_windows",
    "solve_chain",
    "exact_b00_saturated",
    "exact_b00_nonsaturated",
    "printed_b00_saturated",
    "printed_b00_nonsaturated",
    "n_ts",
    "NTS_READINGS",
]

NTS_READINGS = ("corrected", "corrected-minus", "literal", "literal-outside")


def stage_windows(W: int, m: int, r: int) -> list[int]:
    """W_i = 2^i W for i <= m, 2^m W for m < i <= r (the paper's Sec. IV)."""
    if W < 1 or m < 0 or r < 0:
        raise ValueError(f"need W >= 1, m >= 0, r >= 0 (got W={W}, m={m}, r={r})")
    return [W * 2 ** min(i, m) for i in range(r + 1)]


@dataclass(frozen=True)
class ChainSolution:
    """The stationary distribution of the chain. `states` are (i, k) tuples in the order of
    `pi`; `prob(i, k)` looks one up."""

    states: list[tuple[int, int]]
    pi: np.ndarray
    saturated: bool

    def prob(self, i: int, k: int) -> float:
        return float(self.pi[self.states.index((i, k))])

    @property
    def b00(self) -> float:
        return self.prob(0, 0)


def _check(p: float, lam: float | None) -> None:
    if not 0.0 <= p < 1.0:
        raise ValueError(f"p must be in [0, 1), not {p}")
    if lam is not None and not 0.0 < lam <= 1.0:
        raise ValueError(f"lam must be in (0, 1], not {lam}")


def solve_chain(W: int, m: int, r: int, p: float, lam: float | None = None) -> ChainSolution:
    """Build the chain of the module docstring (saturated when `lam` is None) and solve
    pi = pi P, sum pi = 1, by a dense linear solve."""
    _check(p, lam)
    windows = stage_windows(W, m, r)
    saturated = lam is None
    extra = [(-1, 0)] if saturated else [(-2, 0), (-2, 1), (-1, 0), (-1, 1)]
    states = extra + [(i, k) for i, wi in enumerate(windows) for k in range(wi)]
    index = {s: j for j, s in enumerate(states)}
    n = len(states)
    P = np.zeros((n, n))
    done = index[(-1, 0)] if saturated else index[(-2, 0)]

    for i, wi in enumerate(windows):
        for k in range(1, wi):
            P[index[(i, k)], index[(i, k - 1)]] += 1.0 - p
            P[index[(i, k)], index[(i, k)]] += p
        s = index[(i, 0)]
        if i < r:
            nxt = windows[i + 1]
            for k in range(nxt):
                P[s, index[(i + 1, k)]] += p / nxt
            P[s, done] += 1.0 - p
        else:
            P[s, done] += 1.0
    for k in range(windows[0]):
        P[index[(-1, 0)], index[(0, k)]] += 1.0 / windows[0]
    if not saturated:
        assert lam is not None
        P[index[(-2, 0)], index[(-1, 1)]] += lam
        P[index[(-2, 0)], index[(-2, 1)]] += 1.0 - lam
        P[index[(-2, 1)], index[(-2, 0)]] += lam
        P[index[(-2, 1)], index[(-2, 1)]] += 1.0 - lam
        P[index[(-1, 1)], index[(-2, 0)]] += 1.0 - p
        P[index[(-1, 1)], index[(-1, 0)]] += p

    A = P.T - np.eye(n)
    A[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi = np.linalg.solve(A, rhs)
    return ChainSolution(states=states, pi=pi, saturated=saturated)


def _stage_mass(windows: list[int], p: float) -> float:
    """sum_{i=0}^{r} p^i [1 + (W_i - 1) / (2(1 - p))]: the stage states' mass over b_{0,0}."""
    return sum(p**i * (1.0 + (wi - 1) / (2.0 * (1.0 - p))) for i, wi in enumerate(windows))


def exact_b00_saturated(W: int, m: int, r: int, p: float) -> float:
    """b_{0,0} of the saturated chain in closed form (notes §2.6; equals `solve_chain`)."""
    _check(p, None)
    return 1.0 / (1.0 + _stage_mass(stage_windows(W, m, r), p))


def exact_b00_nonsaturated(W: int, m: int, r: int, p: float, lam: float) -> float:
    """b_{0,0} of the non-saturated chain in closed form. With b_{-2,0} = x:
    b_{-1,1} = lam x, b_{-1,0} = b_{0,0} = p lam x, b_{-2,1} = (1 - lam) x / lam."""
    _check(p, lam)
    if p == 0.0:
        return 0.0
    head = (1.0 + (1.0 - lam) / lam + lam) / (p * lam)
    return 1.0 / (head + 1.0 + _stage_mass(stage_windows(W, m, r), p))


def printed_b00_saturated(W: int, m: int, r: int, p: float) -> float:
    """Eq. (4) AS PRINTED (flagged: not implied by eqs. (1)-(2); see notes §2.6)."""
    d3 = 2 * (1 - p) ** 3 * (1 - 2 * p) + p * (1 - 2 * p) * (1 - p ** (r + 1)) \
        + p * (1 - p) * (1 - (2 * p) ** (r + 1)) * W
    d = d3 if r <= m else d3 + p * (1 - 2 * p) * 2**m * p ** (m + 1) * (1 - p ** (r - m)) * W
    return 2 * p * (1 - 2 * p) * (1 - p) ** 2 / d


def printed_b00_nonsaturated(W: int, m: int, r: int, p: float, lam: float) -> float:
    """Eq. (3) AS PRINTED (flagged: lacks a factor p, so it approximates b_{-1,1}; notes §2.6)."""
    l2 = lam * lam
    d1 = 2 * (1 + l2 * (1 + p)) * (1 - p) ** 2 * (1 - 2 * p) + l2 * p * (1 - 2 * p) * (1 - p ** (r + 1)) \
        + l2 * p * (1 - p) * (1 - (2 * p) ** (r + 1)) * W
    d = d1 if r <= m else d1 + l2 * p * (1 - 2 * p) * 2**m * p ** (m + 1) * (1 - p ** (r - m)) * W
    return 2 * l2 * (1 - 2 * p) * (1 - p) ** 2 / d


def n_ts(W: int, m: int, r: int, p: float, reading: str = "corrected") -> float:
    """Expected backoff slots, eq. (5), in one of NTS_READINGS (module docstring)."""
    _check(p, None)
    windows = stage_windows(W, m, r)
    if reading == "corrected":
        return sum(p**i * (wi + 1) / 2 for i, wi in enumerate(windows))
    if reading == "corrected-minus":
        return sum(p**i * (wi - 1) / 2 for i, wi in enumerate(windows))
    if reading in ("literal", "literal-outside"):
        b00 = printed_b00_saturated(W, m, r, p)
        total = (windows[0] + 1) / 2 * b00
        for i in range(1, r + 1):
            half = (windows[i] + 1) / 2
            prod = 1.0
            for k in range(i):
                prod *= p**k * b00 * (half if reading == "literal" else 1.0)
            total += prod if reading == "literal" else half * prod
        return total
    raise ValueError(f"reading must be one of {', '.join(NTS_READINGS)}, not {reading!r}")
