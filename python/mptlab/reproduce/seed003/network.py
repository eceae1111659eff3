"""Seed 003's network axes turned into scenario overrides: link delays from (E2E RTT, tunnel
share, asymmetry), the Fig. 10 scenario modifiers, and probes for the simulator features that
are being built in parallel (the `[rtt_split]` block, reliable TCP tunnel paths).

Source: Pieska et al., "Performance Impact of Nested Congestion Control on Transport-Layer
Multipath Tunneling", Future Internet 16(7):233, 2024 (`shared/seeds/003_*.txt`), and the study
notes `shared/studies/seed003.md` (sections and ambiguities A1-A25 cited below).

Delays (paper sec. 5: "if the end-to-end RTT was 40 ms and the tunnel RTT accounted for 25%,
then the tunnel RTT was 10 ms and the RTT from proxy to server was 30 ms"): one way,
    wan (server-proxy)  = (1 - share) * E2E / 2
    proxy_ap            = share * E2E / 2
    proxy_cell          = (share * E2E + asymmetry) / 2
with no delay on the AP/cell -> UE hop. Interpretations: the asymmetry is extra RTT of the
secondary (cellular) path (A2 option (a); the paper does not say which path), and "E2E RTT" is
path 1's propagation RTT (A24). These are exactly the `[rtt_split]` block's rules; when the
simulator accepts that block (`rtt_split_available`), the overrides name it instead of the
three delays.

Fig. 10's scenario modifiers (Table 2 is lost, A2; our choices): SHORT = 30 ms and LONG = 80 ms
E2E RTT (the measured national 32.6 ms and international 83.8-84.0 ms RTTs of sec. 4.2,
rounded), a MID scenario at 40 ms (the paper's own example) with the proxy halfway (sec. 4.2);
BUF250 / BUF1000 = 250 / 1000 packets of drop-tail buffer at both bottlenecks (Fig. 8c's
attested sizes; the default is 100 ms of rate, about 417 packets); ASYM20 = 20 ms more RTT on
the cellular path (Fig. 8 text); NEAR / DIST = tunnel share 25 % / 75 % (proxy near the user /
near the server); CDL1 = CoDel (RFC 8289, Linux defaults: target 5 ms, interval 100 ms, hard
limit 100 ms of rate) at both bottlenecks, CDL0 = drop-tail (the default). 7 variants x {SHORT,
LONG} + MID = 15 scenarios, the paper's count.
"""

from __future__ import annotations

import dataclasses
import functools

#: Default E2E propagation RTT (ms) and tunnel share when a case does not set them (A1).
DEFAULT_E2E_MS = 40.0
DEFAULT_SHARE = 0.5
#: The bottleneck buffer rule: 100 ms of the 50 Mbit/s rate (sec. 4.2).
DEFAULT_QUEUE = '{ kind = "droptail", limit = "100ms" }'
CODEL_QUEUE = '{ kind = "codel", target = "5ms", interval = "100ms", limit = "100ms" }'
#: The topology's link names (scenarios/seed003/base.toml).
SERVER_LINKS = ("wan",)
TUNNEL_LINKS = (("proxy_ap",), ("proxy_cell",))
BOTTLENECKS = ("wifi", "cellular")
#: The single-path no-tunnel baseline: the same flow over the Wi-Fi path (A14).
BASELINE_PATH = '["server", "proxy", "ap", "ue"]'


@dataclasses.dataclass(frozen=True)
class Net:
    """One network setting: E2E RTT (ms), tunnel share (0..1), asymmetry (ms of extra RTT on
    path 2) and the bottleneck queue (an inline TOML table)."""

    e2e_ms: float = DEFAULT_E2E_MS
    share: float = DEFAULT_SHARE
    asym_ms: float = 0.0
    queue: str = DEFAULT_QUEUE


def link_delays(e2e_ms: float, share: float, asym_ms: float = 0.0) -> dict[str, float]:
    """One-way delays in ms of the three delayed links (the rules in the module comment)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"tunnel share must be within 0..1, got {share}")
    if e2e_ms < 0 or asym_ms < 0:
        raise ValueError("the E2E RTT and the asymmetry cannot be negative")
    return {
        "wan": (1.0 - share) * e2e_ms / 2.0,
        "proxy_ap": share * e2e_ms / 2.0,
        "proxy_cell": (share * e2e_ms + asym_ms) / 2.0,
    }


def ns_text(ms: float) -> str:
    """A delay as an exact TOML time string in whole nanoseconds ("12500000ns")."""
    return f'"{round(ms * 1e6)}ns"'


def delay_overrides(net: Net, use_block: bool = False) -> list[tuple[str, str]]:
    """(scenario key, TOML value) pairs that put `net` into the base scenario."""
    if use_block:
        pairs = [
            ("rtt_split.e2e_rtt", ns_text(net.e2e_ms)),
            ("rtt_split.tunnel_share", repr(float(net.share))),
            ("rtt_split.asymmetry", ns_text(net.asym_ms)),
            ("rtt_split.server_links", "[" + ", ".join(f'"{x}"' for x in SERVER_LINKS) + "]"),
            ("rtt_split.tunnel_links", "[" + ", ".join("[" + ", ".join(f'"{x}"' for x in p) + "]" for p in TUNNEL_LINKS) + "]"),
        ]
    else:
        pairs = [(f"links.{name}.delay", ns_text(ms)) for name, ms in link_delays(net.e2e_ms, net.share, net.asym_ms).items()]
    return pairs + [(f"links.{b}.queue", net.queue) for b in BOTTLENECKS]


#: Fig. 10's scenarios: label -> network (module comment).
RTTS = {"SHORT": 30.0, "LONG": 80.0}
VARIANTS: dict[str, dict[str, object]] = {
    "": {},
    "BUF250": {"queue": '{ kind = "droptail", limit = "250p" }'},
    "BUF1000": {"queue": '{ kind = "droptail", limit = "1000p" }'},
    "ASYM20": {"asym_ms": 20.0},
    "NEAR": {"share": 0.25},
    "DIST": {"share": 0.75},
    "CDL1": {"queue": CODEL_QUEUE},
}


def scenarios() -> dict[str, Net]:
    """The 15 Fig. 10 scenarios in a fixed order: MID, then SHORT and LONG with each variant."""
    out = {"MID": Net()}
    for rtt_label, e2e in RTTS.items():
        for v, changes in VARIANTS.items():
            out[rtt_label + (f"-{v}" if v else "")] = dataclasses.replace(Net(e2e_ms=e2e), **changes)  # type: ignore[arg-type]
    return out


def _accepts(overrides: list[tuple[str, str]]) -> tuple[bool, str]:
    """Whether the engine validates the base scenario with `overrides` (and its message)."""
    from mptlab import _core
    from mptlab.reproduce.common import repo_file

    text = repo_file("scenarios/seed003/base.toml").read_text(encoding="utf-8")
    try:
        _core.check(text, overrides, None)
    except _core.ScenarioError as e:
        return False, str(e)
    return True, ""


@functools.lru_cache(maxsize=None)
def rtt_split_available() -> bool:
    """True when the simulator accepts the `[rtt_split]` block on the base scenario."""
    return _accepts(delay_overrides(Net(), use_block=True))[0]


@functools.lru_cache(maxsize=None)
def tcp_tunnel_refusal() -> str | None:
    """None when the simulator accepts `protocol = "tcp"` tunnels, else its message (the exit-2
    error of `mptlab check`)."""
    ok, msg = _accepts([("tunnels.mp.protocol", '"tcp"'), ("tunnels.mp.cc", '"newreno"')])
    return None if ok else msg
