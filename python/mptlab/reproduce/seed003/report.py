"""Seed 003's report.md: what ran (and what was skipped, with the simulator's message), the
choices behind the numbers, Fig. 2 (both TCP configurations), the contour summaries, Table 3,
sec. 5.2's margin ratios, and every claim with its verdict and numbers."""

from __future__ import annotations

from typing import Any

import pandas as pd

from mptlab.reproduce.common import FAILS, HOLDS, NOT_COMPARABLE, markdown_table


def _pct(v: Any) -> str:
    try:
        return f"{100 * float(v):.1f} %"
    except (TypeError, ValueError):
        return ""


def _config(r: Any) -> str:
    from mptlab.reproduce.seed003.claims import FIG2_LABELS

    cfg = getattr(r, "config", "")
    return FIG2_LABELS.get(cfg, str(cfg))


def render(ctx: dict[str, Any], fig2: pd.DataFrame, contours: pd.DataFrame, fig10: pd.DataFrame, table3: pd.DataFrame,
           claims: pd.DataFrame, margin: pd.DataFrame | None = None) -> str:
    counts = claims["verdict"].value_counts()
    lines = [
        "# Seed 003: nested congestion control in multipath tunnels (Pieska et al. 2024)", "",
        f"Command: `{ctx['command']}`  ",
        f"mptlab {ctx['version']}; published numbers: {ctx['reference']}  ",
        f"Runs: {ctx['ok']} ok of {ctx['total']}; seeds per configuration {ctx['runs']}; contour points per batch "
        f"{ctx['points']}; DLCT file {ctx['size']}; contour run length {ctx['duration']}; parts {', '.join(ctx['parts'])}  ",
        f"Wall time: {ctx['elapsed_s']:.0f} s ({'Dask ' + ctx['dask'] if ctx.get('dask') else 'local pool'}).  ",
        f"Link delays from the paper's axes: {'the [rtt_split] block' if ctx['rtt_split'] else 'computed in Python (network.py; the [rtt_split] block is not in this simulator)'}.",
        "",
        f"Verdicts: {counts.get(HOLDS, 0)} HOLDS, {counts.get(FAILS, 0)} FAILS, {counts.get(NOT_COMPARABLE, 0)} NOT COMPARABLE.", "",
        "## Choices (the paper is silent; study notes A1-A25)", "",
        "- Topology server - proxy - {AP, cell} - UE; 50 Mbit/s bottlenecks with 100 ms of rate as drop-tail buffer, 1 Gbit/s "
        "elsewhere; scheduler buffer 3 x path 1's bottleneck buffer; CPF with Wi-Fi first; adaptive reordering, 5 ms padding.",
        "- Delays: wan = (1 - share) E2E/2, proxy_ap = share E2E/2, proxy_cell = (share E2E + asymmetry)/2; no delay after the "
        "AP/cell. Default E2E RTT 40 ms, share 50 %.",
        "- Fig. 10 scenarios: SHORT 30 ms / LONG 80 ms x {default, BUF250, BUF1000, ASYM20, NEAR (share 25 %), DIST (75 %), "
        "CDL1 (CoDel 5 ms / 100 ms)} + MID 40 ms = 15.",
        "- Fig. 2 (A23: the tunnel CCA is unstated): the TCP bars are BBR over BBR on TCP tunnels with CPF, the study notes' "
        "recommendation. The switch to it was made after BBR over CCID5 (the first choice, made while TCP tunnels were "
        "refused) had run and missed the near-proxy halving (104 %), so BBR over CCID5 is kept as a second, labelled "
        "configuration with its own verdicts. UDP: paced at 120 Mbit/s over CCID5. Near = share 25 %, "
        "far = 75 %, E2E RTT 40 ms.",
        "- Sec. 5.2 margin (A19): Cubic over BBR / BBRv2 on TCP tunnels, CPF, reorder padding 150 ms vs the default 5 ms, over "
        "the 15 Fig. 10 scenarios (the paper's \"set of scenarios\" is unspecified); DLCT(150)/single-path and "
        "DLCT(150)/DLCT(5) are ratios of the means over the scenarios, judged within ±10 points of the published %.",
        "- Relative DLCT = mean tunnel DLCT / mean no-tunnel DLCT (flow over Wi-Fi alone), same seeds (metrics.relative_dlct).",
        "- Contours: a bulk transfer of the contour run length; throughput = mean interval goodput including start-up.",
        "- The scenarios have no random component: every seed gives the same run, so `--runs` > 1 adds nothing and std is 0.",
        "",
    ]
    if ctx["skipped"]:
        lines += ["## Skipped cases", ""] + [f"- {s['case']}: {s['reason']}" for s in ctx["skipped"]] + [""]
    if ctx["failed"]:
        lines += ["## Failed runs", ""] + [f"- {f}" for f in ctx["failed"]] + [""]
    if not fig2.empty:
        lines += ["## Fig. 2: relative download time", "",
                  markdown_table([[r.e2e.upper(), _config(r), r.placement, f"{r.share:.2f}", f"{r.dlct_s:.2f}", f"{r.baseline_s:.2f}",
                                   _pct(r.relative)] for r in fig2.itertuples()],
                                 ["E2E", "configuration", "proxy", "share", "tunnel DLCT s", "single-path DLCT s", "relative"], "lllrrrr"), ""]
    if not contours.empty:
        rows = []
        for b, g in contours.groupby("batch", sort=True):
            rows.append([b, len(g), f"{g['goodput_mbps'].mean():.1f}", f"{g['goodput_mbps'].min():.1f}", f"{g['goodput_mbps'].max():.1f}",
                         f"{(g['goodput_mbps'] >= 70).mean() * 100:.0f} %"])
        lines += ["## Contours (throughput over E2E RTT x tunnel share)", "",
                  markdown_table(rows, ["batch", "points", "mean Mbit/s", "min", "max", "points ≥ 70 Mbit/s"], "lrrrrr"), ""]
    if not table3.empty:
        cols = [c for c in ("cpf", "srtt") if c in table3.columns]
        lines += ["## Table 3: mean relative DLCT over the scenarios (sorted by CPF)", "",
                  markdown_table([[r["server_cc"], r["tunnel_cc"], *[_pct(r[c]) for c in cols], r["scenarios"]] for _, r in table3.iterrows()],
                                 ["server", "tunnel", *[c.upper() for c in cols], "scenarios"], "ll" + "r" * (len(cols) + 1)), ""]
    if margin is not None and not margin.empty:
        lines += ["## Sec. 5.2: reorder padding 150 ms vs 5 ms (Cubic server, TCP tunnels, CPF)", "",
                  markdown_table([[r.tunnel_cc, r.scenarios, f"{r.dlct150_s:.2f}", f"{r.dlct5_s:.2f}", f"{r.single_s:.2f}", _pct(r.vs_single),
                                   _pct(r.vs_5ms)] for r in margin.itertuples()],
                                 ["tunnel", "scenarios", "mean DLCT 150 ms s", "mean DLCT 5 ms s", "mean single-path s", "150 ms / single",
                                  "150 ms / 5 ms"], "lrrrrrr"),
                  "", "Published: BBR 68.7 % / 76.2 %, BBRv2 65.4 % / 74.0 %.", ""]
    if not fig10.empty:
        p = fig10.pivot_table(index="scenario", columns=["server_cc", "tunnel_cc", "sched"], values="relative", sort=False)
        header = ["scenario"] + [f"{s}/{t}/{c}" for s, t, c in p.columns]
        lines += ["## Fig. 10: relative DLCT per scenario", "",
                  markdown_table([[idx, *[_pct(v) for v in row]] for idx, row in p.iterrows()], header, "l" + "r" * (len(header) - 1)), ""]
    lines += ["## Findings", "",
              markdown_table([[r.section, r.item, r.claim, f"{r.published} {r.unit}".strip(), r.verdict, r.simulated, r.detail]
                              for r in claims.itertuples()], ["§", "item", "claim", "published", "verdict", "simulated", "detail"]), ""]
    if ctx["figures"]:
        lines += ["## Figures", ""] + [f"![{f}]({f})" for f in ctx["figures"]] + [""]
    return "\n".join(lines)
