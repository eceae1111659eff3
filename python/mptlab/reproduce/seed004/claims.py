"""Seed 004: every claim of Guo et al. 2025 Sec. VII and the conclusion (study notes §6.3 and
§8.3 D) judged on the simulated numbers, HOLDS / FAILS / NOT COMPARABLE (a value it needs was
not simulated: a case left out by --pairs, a run that did not finish, a metric the simulator
does not report yet); and every row of reference/seed004.csv answered with its simulated
counterpart (`comparison`).

Inputs: `summ`, one row per (case, variant) with the means over seeds of metrics.run_metrics
(study.case_summary), and `shares`, one row per case with the percent of packets P-MPTCP
delivers faster (metrics.share_faster, mean over seeds).

Tests and thresholds (ours; the paper gives none):
- "P < C" / "P > C": the means over seeds, by more than TIE_PCT (1 %) of C's value: a smaller
  difference is a tie, which FAILS ("P completes sooner" is not shown by 12.22 s against
  12.22 s, where both finish at the traffic's generation floor).
- Latency ("P delivers X % of data packets faster"): HOLDS when the share is above 50 % (P is
  faster for most packets); the published share is shown beside.
- Delivery rates: "over 99.8 %" means every variant and node count of the deployment at or above
  99.8 % (per-hop, metrics.py); "100 %" means at least 99.95 %; corner-50's C below P. "drops
  at the beginning": C's lowest 1 s bin in the first 10 s is below its overall rate and below
  P's lowest early bin.
- "One 5G node lowers X for both": corner-25 with 5G against corner-25 without, each variant.
  "P with 5G approaches the generation floor": completion within 25 % of E[last generation]
  (metrics.generation_floor, about 12.1 s for 25 nodes).
- The conclusion's "up to X %": the largest P-vs-C figure over the simulated cases is an
  improvement (positive) and within 50 % of X (the same magnitude). The 52.5 % is the paper's
  5G effect on C, not P vs C (notes §6.4); it is judged as printed, P vs C, and the detail says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from mptlab.reproduce.common import BANDS_PCT, FAILS, HOLDS, NOT_COMPARABLE, within
from mptlab.reproduce.seed004.metrics import generation_floor
from mptlab.reproduce.seed004.plans import CASES, LABELS

P, C = "P-MPTCP", "C-MPTCP"
#: "up to X %" holds within this many percent of X.
UP_TO_BAND = 50
#: "approaches the generation floor": completion <= floor x this.
FLOOR_FACTOR = 1.25
METRICS = {"tx": ("tcp_segments", "TCP data + ACK segments"), "time": ("completion_s", "completion time, s"),
           "tput": ("throughput_kbps", "throughput, kbit/s")}


class Missing(Exception):
    """A value the claim needs was not simulated."""


class Data:
    def __init__(self, summ: pd.DataFrame, shares: pd.DataFrame) -> None:
        self.summ, self.shares = summ, shares

    def get(self, case: str, variant: str, col: str) -> float:
        s = self.summ
        r = s[(s["case"] == case) & (s["variant"] == variant)] if not s.empty else s
        if r.empty or col not in r.columns or not np.isfinite(float(r[col].iloc[0])):
            raise Missing(f"{case} {variant} {col}")
        return float(r[col].iloc[0])

    def share(self, case: str) -> float:
        s = self.shares
        r = s[s["case"] == case] if not s.empty else s
        if r.empty or not np.isfinite(float(r["share_faster_pct"].iloc[0])):
            raise Missing(f"{case} latency of both variants")
        return float(r["share_faster_pct"].iloc[0])


Result = tuple[str, str, str]
Test = Callable[[Data], Result]


def _v(ok: bool) -> str:
    return HOLDS if ok else FAILS


def _fmt(x: float) -> str:
    return f"{x:.1f}" if abs(x) < 1000 else f"{x:.0f}"


#: Relative difference (percent of C) below which P and C are judged equal.
TIE_PCT = 1.0


def p_vs_c(case: str, key: str) -> Test:
    col, what = METRICS[key]

    def test(d: Data) -> Result:
        p, c = d.get(case, P, col), d.get(case, C, col)
        margin = abs(c) * TIE_PCT / 100.0
        ok = p > c + margin if key == "tput" else p < c - margin
        tie = " (a tie: within 1 %)" if abs(p - c) <= margin else ""
        return _v(ok), f"P {_fmt(p)} vs C {_fmt(c)}{tie}", f"{what}, mean over seeds"
    return test


def latency(case: str) -> Test:
    def test(d: Data) -> Result:
        s = d.share(case)
        return _v(s > 50), f"{s:.0f} %", "share of latency quantile levels where P < C; most packets = above 50 %"
    return test


def delivery_at_least(cases: tuple[str, ...], floor: float) -> Test:
    def test(d: Data) -> Result:
        vals = {(c, v): d.get(c, v, "hop_delivery_pct") for c in cases for v in (C, P)}
        lo = min(vals.values())
        return _v(lo >= floor), f"lowest {lo:.2f} %", f"per-hop delivery rate of {len(vals)} runs' means, all ≥ {floor} %"
    return test


def corner50_delivery(d: Data) -> Result:
    c, p = d.get("square-corner-50", C, "hop_delivery_pct"), d.get("square-corner-50", P, "hop_delivery_pct")
    return _v(c < p), f"C {c:.2f} % vs P {p:.2f} %", "per-hop delivery rate, C below P (96.6 vs 99.8 published)"


def early_dip(case: str) -> Test:
    def test(d: Data) -> Result:
        ce, co, pe = d.get(case, C, "early_delivery_pct"), d.get(case, C, "hop_delivery_pct"), d.get(case, P, "early_delivery_pct")
        return _v(ce < co and ce < pe), f"C early {ce:.1f} % (overall {co:.1f} %), P early {pe:.1f} %", \
            "lowest 1 s bin in the first 10 s; C's below its overall and below P's"
    return test


def more_tx(a: str, b: str, why: str) -> Test:
    """Case `a` needs more transmissions than case `b`, both variants."""
    def test(d: Data) -> Result:
        parts, ok = [], True
        for v in (C, P):
            x, y = d.get(a, v, "tcp_segments"), d.get(b, v, "tcp_segments")
            ok &= x > y
            parts.append(f"{v[0]} {x:.0f} vs {y:.0f}")
        hops = []
        for case in (a, b):
            try:
                hops.append(f"{d.get(case, C, 'mean_hops'):.2f}")
            except Missing:
                hops.append("?")
        return _v(ok), "; ".join(parts), f"TCP segments, {LABELS.get(a, a)} vs {LABELS.get(b, b)}; mean path hops {hops[0]} vs {hops[1]}; {why}"
    return test


def g5_effect(key: str) -> Test:
    col, what = {"tx": ("tcp_segments", "TCP segments"), "time": ("completion_s", "completion, s"),
                 "tput": ("throughput_kbps", "throughput, kbit/s"), "lat": ("latency_p50_ms", "median latency, ms")}[key]

    def test(d: Data) -> Result:
        parts, ok = [], True
        for v in (C, P):
            w, wo = d.get("square-corner-25-5g", v, col), d.get("square-corner-25", v, col)
            ok &= (w > wo) if key == "tput" else (w < wo)
            parts.append(f"{v[0]} {_fmt(w)} vs {_fmt(wo)}")
        return _v(ok), "; ".join(parts), f"{what}, with vs without the 5G node, each variant"
    return test


def g5_floor(d: Data) -> Result:
    t = d.get("square-corner-25-5g", P, "completion_s")
    floor = generation_floor(25)
    return _v(t <= FLOOR_FACTOR * floor), f"{t:.1f} s", f"generation floor {floor:.1f} s; near = within {100 * (FLOOR_FACTOR - 1):.0f} %"


def _rel(new: float, old: float, up: bool) -> float:
    """`new` against `old` in percent of `old`: the increase (`up`) or the reduction."""
    return 100.0 * ((new - old) / old if up else (old - new) / old)


def _gain(d: Data, case: str, key: str) -> float:
    """P-MPTCP's gain over C-MPTCP in one case: percent of C (METRICS `key`), or percentage
    points of per-hop delivery ("deliv")."""
    if key == "deliv":
        return d.get(case, P, "hop_delivery_pct") - d.get(case, C, "hop_delivery_pct")
    col = METRICS[key][0]
    return _rel(d.get(case, P, col), d.get(case, C, col), key == "tput")


def _gains(d: Data, key: str) -> dict[str, float]:
    """_gain of every case that has both variants, by case name."""
    gains = {}
    for c in CASES:
        try:
            gains[c.name] = _gain(d, c.name, key)
        except Missing:
            continue
    return gains


def up_to(key: str, published: float, note: str = "") -> Test:
    def test(d: Data) -> Result:
        gains = _gains(d, key)
        if not gains:
            raise Missing("no case with both variants")
        best = max(gains, key=lambda k: gains[k])
        g = gains[best]
        unit = " points" if key == "deliv" else " %"
        return _v(g > 0 and within(g, published, UP_TO_BAND)), f"{g:.1f}{unit} ({LABELS[best]})", \
            f"largest P-vs-C figure over {len(gains)} cases; holds within {UP_TO_BAND} % of {published}{note}"
    return test


def all_delivered(d: Data) -> Result:
    s = d.summ
    if s.empty or "delivered_packets" not in s.columns:
        raise Missing("no runs")
    short = s[s["delivered_packets"] < s["expected_packets"] - 1e-9]
    return _v(short.empty), f"{len(s) - len(short)}/{len(s)} case-variants complete", \
        "every data packet (nodes x 100) delivered at the DC" + ("" if short.empty else f"; short: {', '.join(short['case'] + ' ' + short['variant'])}")


def claim_list() -> list[tuple[str, str, str, str, Test]]:
    """(item, section, claim, published, test) in the paper's order."""
    out: list[tuple[str, str, str, str, Test]] = []
    sec = {"square-center": "VII-B", "sunflower-center": "VII-C", "square-corner": "VII-D"}
    pub_share = {"square-center-50": "80 %", "square-center-100": "90 %", "sunflower-center-50": "80 %",
                 "sunflower-center-100": "90 %", "square-corner-25": "95 %", "square-corner-50": "95 %"}
    for case in CASES:
        n, s = case.name, sec[case.deployment]
        out.append((f"{n}:tx", s, f"{case.label}: P-MPTCP needs fewer TCP transmissions than C-MPTCP", "P < C", p_vs_c(n, "tx")))
        out.append((f"{n}:time", s, f"{case.label}: P-MPTCP completes sooner", "P < C", p_vs_c(n, "time")))
        out.append((f"{n}:tput", s, f"{case.label}: P-MPTCP has higher throughput", "P > C", p_vs_c(n, "tput")))
        if n in pub_share:
            out.append((f"{n}:latency", s, f"{case.label}: P-MPTCP delivers most data packets faster", pub_share[n], latency(n)))
    out += [
        ("deliv:square-center", "VII-B", "square-center: both variants over 99.8 % delivery", "≥ 99.8 %",
         delivery_at_least(("square-center-50", "square-center-100"), 99.8)),
        ("deliv:square-center-100:early", "VII-B", "square-center 100: C-MPTCP's delivery drops at the beginning (P more stable)", "88 %",
         early_dip("square-center-100")),
        ("deliv:sunflower-center", "VII-C", "sunflower-center: both variants over 99.7 % delivery", "≥ 99.7 %",
         delivery_at_least(("sunflower-center-50", "sunflower-center-100"), 99.7)),
        ("deliv:sunflower-center-100:early", "VII-C", "sunflower-center 100: C-MPTCP's delivery drops at the beginning", "93.5 %",
         early_dip("sunflower-center-100")),
        ("deliv:square-corner-25", "VII-D", "square-corner 25, with and without 5G: 100 % delivery for both", "100 %",
         delivery_at_least(("square-corner-25", "square-corner-25-5g"), 99.95)),
        ("deliv:square-corner-50", "VII-D", "square-corner 50: C-MPTCP delivers less than P-MPTCP", "96.6 vs 99.8 %", corner50_delivery),
        ("sunflower>square:50", "VII-C", "sunflower (sparser, longer paths) needs more transmissions than square, 50 nodes", "16669 > 11998; 15246 > 8957",
         more_tx("sunflower-center-50", "square-center-50", "'longer paths have more impact than higher interference'")),
        ("sunflower>square:100", "VII-C", "sunflower needs more transmissions than square, 100 nodes", "52650 > 40897; 36391 > 26665",
         more_tx("sunflower-center-100", "square-center-100", "'longer paths have more impact than higher interference'")),
        ("corner>center:50", "VII-D", "the corner DC needs more transmissions than the centre DC, 50 nodes", "27690 > 11998; 16669 > 8957",
         more_tx("square-corner-50", "square-center-50", "the corner DC is a bottleneck")),
        ("5g:tx", "VII-D", "one 5G node reduces transmissions for both variants", "C 3509 < 7395; P 3118 < 5746", g5_effect("tx")),
        ("5g:time", "VII-D", "one 5G node reduces completion time for both variants", "C 26 < 51 s; P 12 < 19 s", g5_effect("time")),
        ("5g:tput", "VII-D", "one 5G node raises throughput for both variants", "C 769 > 392; P 1667 > 1052", g5_effect("tput")),
        ("5g:latency", "VII-D", "one 5G node significantly improves the delay distribution for both", "(Fig. 13)", g5_effect("lat")),
        ("5g:floor", "§6.4", "P-MPTCP with one 5G node finishes at the generation floor", "12 s (floor ≈ 12.1 s)", g5_floor),
        ("concl:tx", "VIII", "P-MPTCP reduces TCP packet transmissions by up to 52.5 %", "52.5 %",
         up_to("tx", 52.5, " (the printed 52.5 % is the 5G node's effect on C; the largest printed P-vs-C is 39.8 %)")),
        ("concl:time", "VIII", "P-MPTCP shortens data delivery time by up to 61.5 %", "61.5 %",
         up_to("time", 61.5, " (Sec. VII prints 64.7 %)")),
        ("concl:tput", "VIII", "P-MPTCP improves throughput by up to 183.3 %", "183.3 %", up_to("tput", 183.3)),
        ("concl:deliv", "VIII", "P-MPTCP increases the data delivery rate by up to 3.2 %", "3.2 points", up_to("deliv", 3.2)),
        ("all-delivered", "VII", "every data packet reaches the DC (2500 / 5000 / 10000)", "nodes x 100", all_delivered),
    ]
    return out


def claims(summ: pd.DataFrame, shares: pd.DataFrame) -> pd.DataFrame:
    """The findings table: item, section, claim, published, simulated, verdict, detail."""
    d = Data(summ, shares)
    rows = []
    for item, section, claim, published, test in claim_list():
        try:
            verdict, simulated, detail = test(d)
        except Missing as e:
            verdict, simulated, detail = NOT_COMPARABLE, "", f"not simulated: {e}"
        rows.append({"item": item, "section": section, "claim": claim, "published": published,
                     "simulated": simulated, "verdict": verdict, "detail": detail})
    return pd.DataFrame(rows)


# --- every CSV row: the simulated counterpart ----------------------------------------------

def _cases_of(row: pd.Series) -> list[str]:
    dep = str(row["deployment"])
    nodes = [int(x) for x in str(row["nodes"]).split(";") if x and x != "nan"]
    g5 = str(row["has_5g"]).lower()
    g5s = [False, True] if g5 == "both" else [g5 == "true"]
    return [c.name for c in CASES if c.deployment == dep and c.nodes in nodes and c.has_5g in g5s]


def simulated_value(row: pd.Series, d: Data) -> float:
    """The simulated counterpart of one published row; Missing when there is none to give."""
    metric, variant = str(row["metric"]), str(row["variant"])
    if row["deployment"] == "conclusion":
        key = {"max_tcp_packet_transmission_reduction": "tx", "max_data_delivery_time_reduction": "time",
               "max_throughput_improvement": "tput", "max_data_delivery_rate_increase": "deliv"}[metric]
        gains = _gains(d, key)
        if not gains:
            raise Missing("no case")
        return max(gains.values())
    cases = _cases_of(row)
    if not cases or row["deployment"] == "settings":
        raise Missing("input")
    col = {"tcp_packet_transmissions": "tcp_segments", "completion_time": "completion_s", "throughput": "throughput_kbps",
           "data_packet_delivery_rate": "hop_delivery_pct", "initial_data_packet_delivery_rate": "early_delivery_pct",
           "total_data_packets": "delivered_packets", "overall_data_packet_delivery_rate_lower_bound": "hop_delivery_pct"}
    case = cases[0]
    if metric in col:
        variants = [C, P] if variant in ("both", "all") else [variant]
        return min(d.get(c, v, col[metric]) for c in cases for v in variants)
    if metric.startswith("share_of_data_packets_delivered"):
        return float(np.mean([d.share(c) for c in cases]))
    if metric == "data_packet_delivery_rate_improvement":
        return _gain(d, case, "deliv")
    base = {"tcp_packet_transmissions_reduction": "tx", "completion_time_reduction": "time", "throughput_improvement": "tput"}
    if metric in base:
        return _gain(d, case, base[metric])
    vs = {"tcp_packet_transmissions_reduction_vs_no_5g": ("tcp_segments", False),
          "completion_time_reduction_vs_no_5g": ("completion_s", False), "throughput_improvement_vs_no_5g": ("throughput_kbps", True)}
    if metric in vs:
        col5, up = vs[metric]
        return _rel(d.get("square-corner-25-5g", variant, col5), d.get("square-corner-25", variant, col5), up)
    raise Missing("input")


def comparison(summ: pd.DataFrame, shares: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Every published row with `simulated` (NaN for inputs and missing values), `kind`
    (result / input) and `band`: the smallest of BANDS_PCT the simulated value is within, or
    "> 50 %"."""
    d = Data(summ, shares)
    out = published.copy()
    sims, kinds, bands = [], [], []
    for _, row in published.iterrows():
        try:
            v = simulated_value(row, d)
            kinds.append("result")
        except Missing as e:
            v = float("nan")
            kinds.append("input" if str(e) == "input" else "result")
        except KeyError:
            v = float("nan")
            kinds.append("input")
        sims.append(v)
        try:
            pub = float(row["value"])
        except (TypeError, ValueError):
            pub = float("nan")
        if math.isnan(v) or math.isnan(pub) or math.isinf(pub):
            bands.append("")
        else:
            bands.append(next((f"≤ {b} %" for b in BANDS_PCT if within(v, pub, b)), f"> {BANDS_PCT[-1]} %"))
    out["simulated"] = sims
    out["kind"] = kinds
    out["band"] = bands
    return out
