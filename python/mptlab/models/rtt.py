"""The per-hop RTT model of seed 004 (Guo et al., ICC 2025): the idle-channel examples of
Sec. III, the per-node times eqs. (6)-(8), the path RTT eq. (9) and the TXOP batch eq. (10).

Source: the paper, Sec. III (unnumbered RTT_{1-1}, RTT_{1-2}, RTT_{2-1}), Sec. V eqs. (6)-(9),
Sec. VI eq. (10); shared/studies/seed004.md §4. All times in microseconds.

    (6) WiFi, immediate access:  T_D = DIFS + T_frame + SIFS + T_MACACK
    (7) WiFi, random backoff:    T_D = T_q + DIFS + N_ts TS_len + T_frame + SIFS + T_MACACK
    (8) 5G node:                 T_D = T_q + |Data| / B_5G
    (9) RTT = sum_{n=0}^{N} T_D(R_n) + sum_{n=N+1}^{1} T_A(R_n)
   (10) T^j = T^1 + (j - 1)(SIFS + |Data| / B^D),   T^1 = DTT

Interpretations (ours; notes §4 and §7 D):
- |Data|/B_11 is the frame's PHY airtime (`Timing.t_data_us`, preamble included), not bits over
  the nominal rate; the same in eq. (10) for a WiFi source. For 802.11a 54 Mbit/s (the default
  `OFDM_54_TIMING`) the data frame is 1000 B payload + 40 B TCP/IPv4 + 8 B LLC/SNAP + 28 B MAC =
  1076 B (180 us), the TCP ACK 76 B (32 us), the MAC ACK at 24 Mbit/s 28 us; DIFS 34, SIFS 16,
  slot 9 us.
- A path is a list of hops R_n -> R_{n+1}, n = 0..N (R_{N+1} = DC). The data leg is sent by
  R_0..R_N, the ACK leg by DC, R_N, ..., R_1 over the same hops, so a 5G hop (R_N a 5G node,
  the DC's 5G side) is 5G in both directions (notes §1.4, D2). Each hop carries its own T_q and
  N_ts for each direction; N_ts None means eq. (6) (immediate access, no T_q), a number eq. (7).
- The paper's 5G |Data| is taken as the IP packet (1040 B for 1000 B payload), |ACK| 40 B;
  B_5G = 100 Mbit/s. No propagation, scheduling or HARQ delay, as in eq. (8).
- Sec. III's "delayed ACK" is one TCP ACK per round: RTT_{2-1} has one T_TCPACK. `rtt_idle(x,
  h)` generalises the three printed examples to x packets over h hops as
  h (RTT_{1-1} + (x - 1)(DIFS + T_data + SIFS + T_MACACK)); only (1,1), (1,2), (2,1) are the
  paper's, the rest is our extension.
- Eq. (10) as printed: frames 2..j add SIFS + one frame time each, with no MAC ACK per frame and
  nothing for the relays (the notes flag both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from mptlab.models.bianchi import ofdm_airtime_us

__all__ = [
    "Timing",
    "OFDM_54_TIMING",
    "Hop",
    "node_time_wifi",
    "node_time_5g",
    "rtt_idle",
    "path_times",
    "path_rtt",
    "txop_batch_time",
    "B_5G_BPS",
]

B_5G_BPS = 100e6


@dataclass(frozen=True)
class Timing:
    """WiFi timing for the RTT model (us) and the 5G sizes (bytes)."""

    difs_us: float
    sifs_us: float
    slot_us: float
    t_data_us: float
    t_tcp_ack_us: float
    t_mac_ack_us: float
    data_bytes_5g: int = 1040
    ack_bytes_5g: int = 40
    b_5g_bps: float = B_5G_BPS


OFDM_54_TIMING = Timing(
    difs_us=34.0,
    sifs_us=16.0,
    slot_us=9.0,
    t_data_us=ofdm_airtime_us(1000 + 40 + 8 + 28, 54),
    t_tcp_ack_us=ofdm_airtime_us(40 + 8 + 28, 54),
    t_mac_ack_us=ofdm_airtime_us(14, 24),
)


def node_time_wifi(t_frame_us: float, timing: Timing = OFDM_54_TIMING, *, n_ts: float | None = None,
                   t_q_us: float = 0.0) -> float:
    """Eq. (6) when `n_ts` is None (immediate access; `t_q_us` must then be 0), else eq. (7)."""
    if n_ts is None:
        if t_q_us:
            raise ValueError("eq. (6) (immediate access) has no queueing term; give n_ts for eq. (7)")
        return timing.difs_us + t_frame_us + timing.sifs_us + timing.t_mac_ack_us
    if n_ts < 0 or t_q_us < 0:
        raise ValueError("n_ts and t_q_us must be >= 0")
    return t_q_us + timing.difs_us + n_ts * timing.slot_us + t_frame_us + timing.sifs_us + timing.t_mac_ack_us


def node_time_5g(size_bytes: int, *, t_q_us: float = 0.0, b_5g_bps: float = B_5G_BPS) -> float:
    """Eq. (8): T_q + |Data| / B_5G."""
    if size_bytes < 0 or t_q_us < 0 or b_5g_bps <= 0:
        raise ValueError("need size_bytes >= 0, t_q_us >= 0, b_5g_bps > 0")
    return t_q_us + size_bytes * 8 / b_5g_bps * 1e6


def rtt_idle(x: int = 1, h: int = 1, timing: Timing = OFDM_54_TIMING) -> float:
    """RTT_{x-h} on an idle channel (Sec. III; module docstring for the generalisation)."""
    if x < 1 or h < 1:
        raise ValueError("need x >= 1 packets and h >= 1 hops")
    t = timing
    rtt11 = 2 * t.difs_us + 2 * t.sifs_us + 2 * t.t_mac_ack_us + t.t_data_us + t.t_tcp_ack_us
    return h * (rtt11 + (x - 1) * (t.difs_us + t.t_data_us + t.sifs_us + t.t_mac_ack_us))


@dataclass(frozen=True)
class Hop:
    """One hop R_n -> R_{n+1}. kind "wifi" or "5g"; per direction a queueing time and backoff
    slots (None: immediate access, eq. (6))."""

    kind: str = "wifi"
    t_q_data_us: float = 0.0
    n_ts_data: float | None = None
    t_q_ack_us: float = 0.0
    n_ts_ack: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("wifi", "5g"):
            raise ValueError(f"hop kind must be 'wifi' or '5g', not {self.kind!r}")


def path_times(hops: Sequence[Hop], timing: Timing = OFDM_54_TIMING) -> tuple[float, float]:
    """(DTT, ATT) of eq. (9) for the path's hops in data order (R_0 -> R_1 first)."""
    if not hops:
        raise ValueError("a path has at least one hop")
    dtt = att = 0.0
    for hop in hops:
        if hop.kind == "5g":
            dtt += node_time_5g(timing.data_bytes_5g, t_q_us=hop.t_q_data_us, b_5g_bps=timing.b_5g_bps)
            att += node_time_5g(timing.ack_bytes_5g, t_q_us=hop.t_q_ack_us, b_5g_bps=timing.b_5g_bps)
        else:
            dtt += node_time_wifi(timing.t_data_us, timing, n_ts=hop.n_ts_data, t_q_us=hop.t_q_data_us)
            att += node_time_wifi(timing.t_tcp_ack_us, timing, n_ts=hop.n_ts_ack, t_q_us=hop.t_q_ack_us)
    return dtt, att


def path_rtt(hops: Sequence[Hop], timing: Timing = OFDM_54_TIMING) -> float:
    """Eq. (9): RTT = DTT + ATT."""
    dtt, att = path_times(hops, timing)
    return dtt + att


def txop_batch_time(j: int, hops: Sequence[Hop], timing: Timing = OFDM_54_TIMING) -> float:
    """Eq. (10): T^j = DTT + (j - 1)(SIFS + |Data|/B^D), B^D by the source's (first hop's) kind."""
    if j < 1:
        raise ValueError("j must be >= 1")
    dtt, _ = path_times(hops, timing)
    if hops[0].kind == "5g":
        frame = timing.data_bytes_5g * 8 / timing.b_5g_bps * 1e6
    else:
        frame = timing.t_data_us
    return dtt + (j - 1) * (timing.sifs_us + frame)
