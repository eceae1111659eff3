"""Seed 004's report.md: what ran, the choices behind the numbers (the paper is silent on
radio range, routing details, frame sizes, ...), each case's transmissions / completion /
throughput / delivery beside the published values, the latency shares, the analytic models'
numbers, every finding with its verdict and numbers, and the paper's own arithmetic slips;
with the sensitivity set, its cases and findings with the paper's RTO bounds for both variants
(the main verdicts stay those of the default set)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from mptlab.reproduce.common import FAILS, HOLDS, NOT_COMPARABLE, markdown_table
from mptlab.reproduce.seed004.figures import published_value
from mptlab.reproduce.seed004.plans import LABELS

CHOICES = [
    "Deployments (A11): uniform random positions from numpy's seeded Generator (seed = run seed; a disconnected draw is "
    "replaced by the Generator's next draw, topologies.csv counts the draws); sunflower = Vogel's spiral r_k = R sqrt(k/n), "
    "golden angle; DC at the centre or at (0, 0); data nodes n1..nN, the 5G node is n12 (the paper's \"node 12\").",
    "Radio (A6): unit disk of {range} m (the paper gives no range): in range = carrier sense and decoding; no capture.",
    "PHY/MAC (A1-A4): legacy OFDM 54 Mbit/s with 5 GHz timing, the standard's DCF rules, RTS/CTS off, retry limit 7; "
    "infinite queues (the paper's).",
    "Routing (A10 (a)): an RPL-like DODAG by hop count from the DC; parents = neighbours of lower rank sorted by rank, "
    "distance, name; up to K = 3 paths per node, one per parent, then preferred parents; static and the same for both "
    "variants. The 5G link counts as one hop; the 5G node's only path is its 5G hop (A9 (a)).",
    "5G (A8 (b)): a 100 Mbit/s point-to-point link between n12 and the DC, 1 ms each way (eq. (8) has no delay term).",
    "Traffic: per data node one MPTCP connection, 100 Poisson messages of 1000 B at lambda = 10/s, all starting at t = 0; "
    "run length {duration}; P-MPTCP = newreno5 + lossaware, C-MPTCP = newreno + minrtt; controller parameters "
    "(cwnd_min/max, sst_start) left to the controllers' defaults.",
    "TCP segment size: every flow's `tcp = {{ mss = \"1000B\" }}`, one 1000 B message per segment (never coalesced); it fixes "
    "the TCP segment count the transmission findings compare, and was chosen from the paper's 1000 B packet size, not from "
    "results.",
    "TCP RTO (C5): both variants keep the simulator's default (Linux-like, min 200 ms, max 120 s) in the main set; {rto}",
    "Transmissions (F1): compared with the paper as (a) TCP data + ACK segments sent by the endpoints; (b) per-hop "
    "network transmissions and (c) MAC attempts are in cases.csv.",
    "Completion (F4): from t = 0 to the last data packet at the DC; throughput (F5) = delivered bits / completion.",
    "Latency (F2): the simulator's one-way delay per data packet; \"P delivers X % faster\" = the share of quantile "
    "levels where P's latency is below C's. From every data packet's one-way delay (the summary's pooled data_owd_cdf_ms, "
    "within 3.1 %).",
    "Delivery rate (F3): per hop at the network layer, TCP ACKs included; \"at the beginning\" = the lowest 1 s bin in "
    "the first 10 s. {curves}",
]


def _f(v: Any, nd: int = 1) -> str:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(x):
        return ""
    return f"{x:.{nd}f}"


def _cases_row(ctx: dict[str, Any], r: Any, full: bool) -> list[Any]:
    """One row of a cases table: all columns (`full`) or those of the sensitivity table."""
    pub = ctx["published"]
    tx = f"{_f(r.tcp_segments, 0)} ({_f(published_value(pub, r.case, r.variant, 'tcp_packet_transmissions'), 0)})"
    done = f"{_f(r.completion_s)} ({_f(published_value(pub, r.case, r.variant, 'completion_time'))})"
    tput = f"{_f(r.throughput_kbps)} ({_f(published_value(pub, r.case, r.variant, 'throughput'))})"
    head = [LABELS.get(r.case, r.case), r.variant, f"{r.ok}/{r.runs}", r.censored, tx]
    if full:
        return head + [_f(r.hop_transmissions, 0), _f(r.mac_attempts, 0), done, tput, _f(r.hop_delivery_pct, 2),
                       _f(r.early_delivery_pct, 1), _f(r.latency_p50_ms, 1)]
    return head + [done, tput, _f(r.hop_delivery_pct, 2), _f(r.latency_p50_ms, 1)]


def _verdict_counts(claims: pd.DataFrame) -> str:
    counts = claims["verdict"].value_counts()
    return f"{counts.get(HOLDS, 0)} HOLDS, {counts.get(FAILS, 0)} FAILS, {counts.get(NOT_COMPARABLE, 0)} NOT COMPARABLE"


def sensitivity_section(ctx: dict[str, Any], sens: dict[str, Any], claims: pd.DataFrame) -> list[str]:
    """report.md's section on the "paper-rto" set: its cases beside the published numbers and
    its findings (claims_paper_rto.csv) beside the default set's verdicts (`claims`)."""
    summ, rto_claims = sens["summ"], sens["claims"]
    main = dict(zip(claims["item"], claims["verdict"]))
    changed = [c.item for c in rto_claims.itertuples() if main.get(c.item) != c.verdict]
    lines = ["## Sensitivity: the paper's RTO bounds (20 s ≤ RTO ≤ 50 s) for both variants", "",
             "Every case and variant again, on the same topologies and routes, with `min_rto = \"20s\"` and `max_rto = \"50s\"` "
             "in every flow's `tcp` table: Sec. VII-A's \"20 s ≤ RTO Timer ≤ 50 s\" is a protocol setting of the paper's "
             "simulations, not an outcome, and study notes C5 recommend these runs (both variants sharing the paper's bounds) "
             "beside the main set, where C-MPTCP keeps the standard RTO. The main verdicts (the counts at the top, claims.csv, "
             "comparison.csv, the figures) stay those of the default set; the findings below (claims_paper_rto.csv) are "
             "judged by the same tests on this set.", ""]
    if summ.empty:
        return lines + ["No run of this set finished.", ""]
    lines += [markdown_table([_cases_row(ctx, r, False) for r in summ.itertuples()],
                             ["case", "variant", "ok", "censored", "TCP segments (a)", "completion s", "throughput kbit/s",
                              "delivery %", "median latency ms"], "llrrrrrrr"),
              f"Verdicts on this set: {_verdict_counts(rto_claims)}; {len(changed)} differ from the default set"
              + (f" ({', '.join(changed)})." if changed else "."), "",
              markdown_table([[c.item, c.claim, c.published, c.simulated, c.verdict, main.get(c.item, "")]
                              for c in rto_claims.itertuples()],
                             ["item", "claim", "published", "simulated (paper RTO)", "verdict (paper RTO)", "verdict (default)"])]
    return lines


def render(ctx: dict[str, Any], summ: pd.DataFrame, shares: pd.DataFrame, table: pd.DataFrame, claims: pd.DataFrame,
           topologies: pd.DataFrame, models: pd.DataFrame, sensitivity: dict[str, Any] | None = None) -> str:
    """report.md. `sensitivity`: the "paper-rto" set as study.reproduce builds it ("summ": its
    case means, "claims": its findings), or None when it did not run."""
    crv = "" if ctx.get("has_curves") else "The runs carry no per-interval MAC series, so the early-dip findings are NOT COMPARABLE."
    lines = [
        "# Seed 004: MPTCP over multi-hop 802.11 Wi-Fi and 5G (Guo et al. 2025)", "",
        f"Command: `{ctx['command']}`  ",
        f"mptlab {ctx['version']}; published numbers: {ctx['reference']}  ",
        f"Runs: {ctx['ok']} ok of {ctx['total']}; seeds (topologies) per case {ctx['runs']}; cases {', '.join(ctx['cases'])}; "
        f"TCP profiles {', '.join(ctx.get('profiles', ['default']))}  ",
        f"Wall time: {ctx['elapsed_s']:.0f} s ({'Dask ' + ctx['dask'] if ctx.get('dask') else 'local pool'}).", "",
        f"Verdicts: {_verdict_counts(claims)}." + (" (Default TCP RTO; the sensitivity set with the paper's RTO bounds has its own "
                                                     "section and claims_paper_rto.csv.)" if sensitivity is not None else ""), "",
        "## Choices (the paper is silent; study notes §7)", "",
    ]
    rto = "the sensitivity set gives both the paper's 20 s ≤ RTO ≤ 50 s (Sec. VII-A) as min_rto / max_rto; initial_rto stays 1 s." \
        if sensitivity is not None else "the sensitivity set with the paper's 20 s ≤ RTO ≤ 50 s did not run (--no-sensitivity)."
    lines += ["- " + c.format(range=f"{ctx['range_m']:g}", duration=ctx["duration"], curves=crv, rto=rto).strip()
              for c in CHOICES]
    lines += ["", "## Topologies", "",
              markdown_table([[t.case, t.seed, t.draws, _f(t.mean_hops, 2), t.max_rank, _f(t.paths_per_node, 2), t.g5]
                              for t in topologies.itertuples()],
                             ["case", "seed", "draws", "mean path hops", "max rank", "paths per node", "5G node"], "lrrrrrl")]
    rows = [_cases_row(ctx, r, True) for r in summ.itertuples()]
    lines += ["## Cases (simulated, published in brackets)" + (", default TCP RTO" if sensitivity is not None else ""), "",
              markdown_table(rows, ["case", "variant", "ok", "censored", "TCP segments (a)", "hop tx (b)", "MAC attempts (c)",
                                    "completion s", "throughput kbit/s", "delivery %", "early %", "median latency ms"],
                             "llrrrrrrrrrr")]
    if not shares.empty:
        lines += ["## Latency: share of packets P-MPTCP delivers faster", "",
                  markdown_table([[LABELS.get(s.case, s.case), s.seeds, _f(s.share_faster_pct, 0)] for s in shares.itertuples()],
                                 ["case", "seeds", "share %"], "lrr")]
    res = table[table["kind"] == "result"]
    band_counts = res["band"].value_counts()
    lines += ["## Published numbers", "",
              f"{int(res['simulated'].notna().sum())} of {len(res)} result rows simulated (comparison.csv); within 10 %: "
              f"{band_counts.get('≤ 10 %', 0)}, 25 %: {band_counts.get('≤ 25 %', 0)}, 50 %: {band_counts.get('≤ 50 %', 0)}, "
              f"beyond: {band_counts.get('> 50 %', 0)}. The levels are reported, not tuned; the directions are the comparison "
              "that carries meaning (the paper's radio, routing and MPTCP details are unknown).", ""]
    lines += ["## Findings", "",
              markdown_table([[c.item, c.section, c.claim, c.published, c.simulated, c.verdict, c.detail] for c in claims.itertuples()],
                             ["item", "sec.", "claim", "published", "simulated", "verdict", "detail"])]
    if sensitivity is not None:
        lines += sensitivity_section(ctx, sensitivity, claims)
    if not models.empty:
        lines += ["## Analytic models beside the runs", "",
                  "Idle-channel RTT of one packet over the mean path (mptlab.models.rtt, Sec. III generalised to h hops) and "
                  "Bianchi's saturation throughput on the same PHY (mptlab.models.bianchi): the ideal floor and ceiling the "
                  "runs sit between.", "",
                  markdown_table([[m.model, m.case, m.parameter, _f(m.value, 3), m.unit] for m in models.itertuples()],
                                 ["model", "case", "parameter", "value", "unit"], "lllrl")]
    lines += ["## The paper's own arithmetic (study notes §6.4)", "",
              "- Three printed percentages of the 5G case do not reproduce from its own numbers: 68.6 % ((51 - 26)/51 = 49.0 %), "
              "38.8 % ((19 - 12)/19 = 36.8 %), 241.6 % (+58.5 % against 1052, +325.3 % against 392). comparison.csv recomputes "
              "them from the simulated numbers with the definition stated beside each row.",
              "- The conclusion's 52.5 % is the 5G node's effect on C-MPTCP, not P against C (the largest P-vs-C reduction printed "
              "is 39.8 %); its 61.5 % is below Sec. VII-B's 64.7 %. The findings judge them as printed, P against C.",
              "- P-MPTCP with the 5G node (12 s) is at the generation floor: the last of 100 Poisson(10/s) packets of 25 nodes is "
              "generated at 12.1 s on average.",
              "- 3118 transmissions for 2500 data packets (25 nodes, 5G, P) leave room for at most 618 ACKs: an ACK per 4 data "
              "packets or more, or a metric other than endpoint segments.", ""]
    if ctx.get("figures"):
        lines += ["## Figures", ""] + [f"![{f}]({f})" for f in ctx["figures"]] + [""]
    if ctx.get("failed"):
        lines += ["## Failed runs", ""] + [f"- {f}" for f in ctx["failed"]] + [""]
    return "\n".join(lines) + "\n"

