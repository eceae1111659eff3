"""The 5-state NewReno Markov model of seed 004 (Guo et al., ICC 2025, Sec. III, Figs. 1-2):
states (w, sst, l) over scheduling rounds, its stationary distribution and E[w].

Source: the paper's Sec. III (states SS, CA, FR, RTO and the new CR; the transition
probabilities from Casetti & Meo, ref. [10]), shared/studies/seed004.md §3 and §7 C.

Per round with window w and Bernoulli loss l per packet, p(x|w) = C(w,x) l^x (1-l)^(w-x):

    p_RTO = sum_{i=1}^{w-3} p(i|w)(1 - (1-l)^i) + sum_{i=w-2}^{w} p(i|w)    (w >= 4)
          = 1 - p(0|w)                                                       (w < 4)
    p_FR  = 1 - p_RTO - p(0|w)   (w >= 4),   0  (w < 4)
    p_CR  = p(0|w) P_over,   p_SS = p_CA = p(0|w)(1 - P_over)

Transitions from a no-loss state (w, sst, 0):
- SS (w < sst) w.p. p_SS: w' = min(2w, w_max); CA (w >= sst) w.p. p_CA: w' = min(w + 1, w_max);
- CR w.p. p_CR: w' = cr_window(w) (default: w, "stay"), sst unchanged;
- FR w.p. p_FR: w' = max(floor(w/2), w_min), sst' = floor(w/2), into the loss marker l = 1;
- RTO w.p. p_RTO: w' = w_min, sst' = max(floor(w/2), 2), into l = 1.
A loss marker (w, sst, 1) returns to (w, sst, 0) w.p. 1 (one round).

Interpretations (ours; notes §3.5 and §7 C1-C5):
- C2: the printed p_SS = p_CA = p(0|w) and p_CR = p(0|w) P(overflow) overlap (they sum to more
  than 1); we split the no-loss event as above. P_over (the probability that the next round
  does not fit the scheduling period) is an input, a constant or a function of (w, sst); the
  paper derives it from the scheduler's timing, which is not part of this chain.
- C4: SS doubling is capped at w_max (not at sst); windows are integers, halving floors; FR
  only exists for w >= 4, where floor(w/2) >= 2; RTO's sst is floored at 2 (RFC 5681's minimum
  of 2 segments; the paper gives no floor). FR's window is floored at w_min.
- The chain starts at (w_min, sst_start, 0) (Sec. III: "start in SS with w = w_min"); only the
  states reachable from it are kept. E[w] averages w over all states, loss markers included
  (a loss marker holds the already-reduced window for one round).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["p_loss_count", "round_probs", "NewReno5Solution", "solve"]

State = tuple[int, int, int]


def p_loss_count(x: int, w: int, l: float) -> float:
    """p(x|w) = C(w, x) l^x (1 - l)^(w - x)."""
    if not 0 <= x <= w:
        return 0.0
    return math.comb(w, x) * l**x * (1.0 - l) ** (w - x)


def round_probs(w: int, l: float, p_over: float = 0.0) -> dict[str, float]:
    """The five outgoing probabilities of a no-loss state with window w (the C2 split)."""
    if w < 1:
        raise ValueError(f"w must be >= 1, not {w}")
    if not 0.0 <= l <= 1.0 or not 0.0 <= p_over <= 1.0:
        raise ValueError("l and p_over must be in [0, 1]")
    p0 = p_loss_count(0, w, l)
    if w >= 4:
        p_rto = sum(p_loss_count(i, w, l) * (1.0 - (1.0 - l) ** i) for i in range(1, w - 2)) + sum(
            p_loss_count(i, w, l) for i in range(w - 2, w + 1)
        )
        p_fr = 1.0 - p_rto - p0
    else:
        p_rto = 1.0 - p0
        p_fr = 0.0
    return {"grow": p0 * (1.0 - p_over), "cr": p0 * p_over, "fr": p_fr, "rto": p_rto}


@dataclass(frozen=True)
class NewReno5Solution:
    states: list[State]
    pi: np.ndarray
    mean_w: float

    def prob(self, w: int, sst: int, loss: int) -> float:
        return float(self.pi[self.states.index((w, sst, loss))]) if (w, sst, loss) in self.states else 0.0

    def w_distribution(self) -> dict[int, float]:
        """P(w) summed over sst and the loss flag."""
        out: dict[int, float] = {}
        for (w, _, _), q in zip(self.states, self.pi):
            out[w] = out.get(w, 0.0) + float(q)
        return dict(sorted(out.items()))


def solve(l: float, w_min: int = 1, w_max: int = 20, sst_start: int = 16,
          p_over: float | Callable[[int, int], float] = 0.0,
          cr_window: Callable[[int], int] | None = None) -> NewReno5Solution:
    """Stationary distribution of the (w, sst, l) chain and E[w] (module docstring)."""
    if not 1 <= w_min <= w_max:
        raise ValueError(f"need 1 <= w_min <= w_max, not w_min={w_min}, w_max={w_max}")
    if sst_start < 1:
        raise ValueError("sst_start must be >= 1")
    if not 0.0 <= l <= 1.0:
        raise ValueError(f"l must be in [0, 1], not {l}")
    over = p_over if callable(p_over) else (lambda w, sst, c=float(p_over): c)
    cr = cr_window or (lambda w: w)

    def edges(s: State) -> list[tuple[State, float]]:
        w, sst, loss = s
        if loss:
            return [((w, sst, 0), 1.0)]
        pr = round_probs(w, l, over(w, sst))
        grown = min(2 * w, w_max) if w < sst else min(w + 1, w_max)
        w_cr = cr(w)
        if not w_min <= w_cr <= w:
            raise ValueError(f"cr_window({w}) = {w_cr} is outside [w_min, w]")
        out = [((grown, sst, 0), pr["grow"]), ((w_cr, sst, 0), pr["cr"]),
               ((w_min, max(w // 2, 2), 1), pr["rto"])]
        if pr["fr"] > 0.0:
            out.append(((max(w // 2, w_min), w // 2, 1), pr["fr"]))
        return [(t, q) for t, q in out if q > 0.0]

    start: State = (w_min, sst_start, 0)
    index: dict[State, int] = {start: 0}
    order = [start]
    trans: list[list[tuple[State, float]]] = []
    j = 0
    while j < len(order):
        e = edges(order[j])
        trans.append(e)
        for t, _ in e:
            if t not in index:
                index[t] = len(order)
                order.append(t)
        j += 1
    n = len(order)
    P = np.zeros((n, n))
    for a, e in enumerate(trans):
        for t, q in e:
            P[a, index[t]] += q
    A = P.T - np.eye(n)
    A[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    pi = np.clip(pi, 0.0, None)
    pi /= pi.sum()
    mean_w = float(sum(q * s[0] for s, q in zip(order, pi)))
    return NewReno5Solution(states=order, pi=pi, mean_w=mean_w)
