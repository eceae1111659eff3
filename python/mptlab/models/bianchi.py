"""Bianchi's saturation model of IEEE 802.11 DCF.

Source: G. Bianchi, "Performance Analysis of the IEEE 802.11 Distributed Coordination Function",
IEEE JSAC 18(3), March 2000, Sec. III (eqs. (7), (9), (13), (14)-(18)) and Table I (FHSS set).
The 802.11a 54 Mbit/s set is the one of the seed 004 study notes (shared/studies/seed004.md
§8.3 A), which are not in Bianchi's paper.

Model: n saturated stations in one collision domain, an error-free channel, infinite retries
with the window frozen at stage m (CW_i = 2^i W, i <= m). Each station transmits in a slot with
probability

    tau = 2(1 - 2p) / ((1 - 2p)(W + 1) + p W (1 - (2p)^m))            Bianchi (7)
    p   = 1 - (1 - tau)^(n - 1)                                         Bianchi (9)

and the saturation throughput is

    S = P_s P_tr E[P] / ((1 - P_tr) sigma + P_tr P_s T_s + P_tr (1 - P_s) T_c)     Bianchi (13)
    P_tr = 1 - (1 - tau)^n,   P_s = n tau (1 - tau)^(n-1) / P_tr

with, for basic access (Bianchi (14)-(15); delta is the propagation delay, H = PHY + MAC header)

    T_s = H + E[P] + SIFS + delta + ACK + DIFS + delta,   T_c = H + E[P*] + DIFS + delta

and for RTS/CTS (Bianchi (16)-(17))

    T_s = RTS + SIFS + delta + CTS + SIFS + delta + H + E[P] + SIFS + delta + ACK + DIFS + delta
    T_c = RTS + DIFS + delta.

Interpretations (ours, where the sources leave a choice):
- The fixed point is solved in p by bisection on [0, 1) with tau written as
  2 / (1 + W + p W sum_{k<m} (2p)^k), which equals (7) and has no 0/0 at p = 1/2.
- Fixed payload size, so E[P*] = E[P] (Bianchi's own numerical section does the same).
- 802.11a 54 Mbit/s (notes §8.3 A): W = 16, m = 6, slot 9 us, SIFS 16 us, DIFS 34 us, delta 0;
  the data frame carries a 1000 B payload + 40 B TCP/IPv4 + 8 B LLC/SNAP + 28 B MAC header/FCS
  = 1076 B, i.e. 180 us of OFDM airtime (20 us preamble/SIGNAL + 4 us symbols of 216 bits, 16
  SERVICE + 6 tail bits); MAC ACK (14 B) and RTS (20 B) / CTS (14 B) at 24 Mbit/s, 28 us each.
  So T_s = 258 us and T_c = 214 us (basic). The reported throughput counts the 1000 B payload
  (8000 bit) per success. Bianchi's T_c; ns-3 waits EIFS after a collision (T_c about 274 us).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

__all__ = [
    "Phy",
    "BianchiResult",
    "PHYS",
    "FHSS",
    "OFDM_54",
    "ofdm_airtime_us",
    "tau_of_p",
    "solve",
    "throughput",
]


def ofdm_airtime_us(frame_bytes: int, rate_mbps: float) -> float:
    """802.11a/g OFDM airtime of an MPDU of `frame_bytes` (IEEE 802.11-2016 §17.4.3): 20 us of
    preamble and SIGNAL, then ceil((16 + 8 L + 6) / N_DBPS) symbols of 4 us, N_DBPS = 4 x rate."""
    n_dbps = round(4 * rate_mbps)
    return 20.0 + 4.0 * math.ceil((16 + 8 * frame_bytes + 6) / n_dbps)


@dataclass(frozen=True)
class Phy:
    """A PHY/MAC parameter set for Bianchi's model. Times in microseconds.

    `t_data_us` is the whole data frame's airtime (PHY + MAC header + payload, H + E[P] in
    Bianchi's notation); `payload_bits` the bits counted as throughput per success;
    `rate_bps` the channel rate S is normalised to (S = payload time share of the channel)."""

    name: str
    rate_bps: float
    slot_us: float
    sifs_us: float
    difs_us: float
    delta_us: float
    payload_bits: int
    t_data_us: float
    t_ack_us: float
    t_rts_us: float
    t_cts_us: float
    W: int
    m: int

    def t_s_us(self, access: str = "basic") -> float:
        d = self.delta_us
        if access == "basic":
            return self.t_data_us + self.sifs_us + d + self.t_ack_us + self.difs_us + d
        if access == "rts":
            return (self.t_rts_us + self.sifs_us + d + self.t_cts_us + self.sifs_us + d
                    + self.t_data_us + self.sifs_us + d + self.t_ack_us + self.difs_us + d)
        raise ValueError(f"access must be 'basic' or 'rts', not {access!r}")

    def t_c_us(self, access: str = "basic") -> float:
        if access == "basic":
            return self.t_data_us + self.difs_us + self.delta_us
        if access == "rts":
            return self.t_rts_us + self.difs_us + self.delta_us
        raise ValueError(f"access must be 'basic' or 'rts', not {access!r}")


# Bianchi 2000, Table I: FHSS at 1 Mbit/s (so 1 bit = 1 us). PHY header 128 bit, MAC header
# 272 bit, payload 8184 bit, ACK 112 bit + PHY header, RTS 160 + PHY, CTS 112 + PHY.
FHSS = Phy(
    name="fhss",
    rate_bps=1e6,
    slot_us=50.0,
    sifs_us=28.0,
    difs_us=128.0,
    delta_us=1.0,
    payload_bits=8184,
    t_data_us=128 + 272 + 8184,
    t_ack_us=112 + 128,
    t_rts_us=160 + 128,
    t_cts_us=112 + 128,
    W=32,
    m=3,
)

OFDM_54 = Phy(
    name="80211a",
    rate_bps=54e6,
    slot_us=9.0,
    sifs_us=16.0,
    difs_us=34.0,
    delta_us=0.0,
    payload_bits=8000,
    t_data_us=ofdm_airtime_us(1000 + 40 + 8 + 28, 54),
    t_ack_us=ofdm_airtime_us(14, 24),
    t_rts_us=ofdm_airtime_us(20, 24),
    t_cts_us=ofdm_airtime_us(14, 24),
    W=16,
    m=6,
)

PHYS: dict[str, Phy] = {FHSS.name: FHSS, OFDM_54.name: OFDM_54}


@dataclass(frozen=True)
class BianchiResult:
    n: int
    W: int
    m: int
    access: str
    tau: float
    p: float
    p_tr: float
    p_s: float
    s_norm: float
    """Normalised saturation throughput: payload airtime share (payload_bits / rate_bps)."""
    throughput_bps: float
    """Payload bits per second."""


def tau_of_p(p: float, W: int, m: int) -> float:
    """Bianchi eq. (7), in the form 2 / (1 + W + p W sum_{k=0}^{m-1} (2p)^k)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], not {p}")
    geo = sum((2.0 * p) ** k for k in range(m))
    return 2.0 / (1.0 + W + p * W * geo)


def solve(n: int, W: int, m: int, tol: float = 1e-15) -> tuple[float, float]:
    """The fixed point (tau, p) of eqs. (7) and (9) for n stations, by bisection on p.

    g(p) = 1 - (1 - tau(p))^(n-1) - p is positive at p = 0 (n >= 2) and negative at p = 1, and
    decreasing (tau(p) decreases in p), so the root is unique."""
    if n < 1:
        raise ValueError(f"n must be >= 1, not {n}")
    if W < 1 or m < 0:
        raise ValueError(f"need W >= 1 and m >= 0, not W={W}, m={m}")
    if n == 1:
        return tau_of_p(0.0, W, m), 0.0

    def g(p: float) -> float:
        return 1.0 - (1.0 - tau_of_p(p, W, m)) ** (n - 1) - p

    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if g(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    p = 0.5 * (lo + hi)
    return tau_of_p(p, W, m), p


def throughput(n: int, phy: Phy = OFDM_54, access: str = "basic", W: int | None = None,
               m: int | None = None) -> BianchiResult:
    """Saturation throughput, Bianchi eq. (13), for n stations on `phy` (W, m default to the
    PHY's)."""
    if access not in ("basic", "rts"):
        raise ValueError(f"access must be 'basic' or 'rts', not {access!r}")
    phy = replace(phy, W=phy.W if W is None else W, m=phy.m if m is None else m)
    tau, p = solve(n, phy.W, phy.m)
    p_tr = 1.0 - (1.0 - tau) ** n
    p_s = n * tau * (1.0 - tau) ** (n - 1) / p_tr
    t_s, t_c = phy.t_s_us(access), phy.t_c_us(access)
    denom_us = (1.0 - p_tr) * phy.slot_us + p_tr * p_s * t_s + p_tr * (1.0 - p_s) * t_c
    bits_per_us = p_s * p_tr * phy.payload_bits / denom_us
    payload_us = phy.payload_bits / phy.rate_bps * 1e6
    return BianchiResult(
        n=n, W=phy.W, m=phy.m, access=access, tau=tau, p=p, p_tr=p_tr, p_s=p_s,
        s_norm=p_s * p_tr * payload_us / denom_us, throughput_bps=bits_per_us * 1e6,
    )
