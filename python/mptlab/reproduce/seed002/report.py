"""Seed 002's report.md: what was run, the definitions, the paper's numbers next to ours case by
case, and a written comparison whose statements are computed from the runs (rankings, which
scheduler wins, by how much), so that they stay true when the simulator changes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from mptlab.reproduce.common import markdown_table
from mptlab.reproduce.seed002.table import BLP_OLIA, SCHEDULER_ORDER, _fmt, markdown

PAPER = ("S. Das, J. Guo, K. Parsons, Y. Nagai, T. Sumi, N. Sakaguchi, P. Orlik, S. Kalafatis, "
         "\"Learning Based Scheduling and Adaptive Congestion Control for Multipath QUIC\", "
         "IEEE ICC Workshops 2025 (MERL TR2025-083)")


def _blp_olia(stats: pd.DataFrame, case: str, group: str) -> dict[str, float]:
    """Means of BLP under OLIA (Δλ = 0) by metric, empty when the case has no such runs."""
    s = stats[(stats["case"] == case) & (stats["group"] == group) & (stats["scheduler"] == BLP_OLIA)]
    s = s[np.isclose(s["dlambda"].astype(float), 0.0)]
    return {m: float(v) for m, v in zip(s["metric"], s["mean"])}


def _means(stats: pd.DataFrame, case: str, group: str, metric: str) -> dict[str, float]:
    s = stats[(stats["case"] == case) & (stats["group"] == group) & (stats["metric"] == metric)]
    out = {}
    for sched in SCHEDULER_ORDER:
        p = s[s["scheduler"] == sched]
        if sched in ("BLEST", "BLP"):
            p = p[np.isclose(p["dlambda"].astype(float), 0.0)]
        if not p.empty:
            out[sched] = float(p["mean"].iloc[0])
    return out


def _scheduler_table(stats: pd.DataFrame, case: str, group: str, metrics: list[tuple[str, str]]) -> str:
    cols = {m: _means(stats, case, group, m) for m, _ in metrics}
    rows = [[s] + [_fmt(cols[m].get(s)) for m, _ in metrics] for s in SCHEDULER_ORDER]
    return markdown_table(rows, ["scheduler"] + [label for _, label in metrics], "l" + "r" * len(metrics))


def _rank(d: dict[str, float], lower_better: bool) -> list[str]:
    return sorted(d, key=d.get, reverse=not lower_better)


def _dlambda_spread(stats: pd.DataFrame, case: str, metric: str, sched: str) -> float:
    s = stats[(stats["case"] == case) & (stats["group"] == "all") & (stats["metric"] == metric)
              & (stats["scheduler"] == sched)]
    if len(s) < 2:
        return float("nan")
    m = s["mean"].to_numpy(float)
    return float((m.max() - m.min()) / abs(m.mean()) * 100) if m.mean() else float("nan")


def render(table: pd.DataFrame, stats: pd.DataFrame, ok: pd.DataFrame, ctx: dict[str, Any],
           extra: dict[str, pd.DataFrame] | None = None) -> str:
    L: list[str] = []
    add = L.append
    add("# Seed 002 reproduction: BLP and adaptive congestion control for MPQUIC\n")
    add(f"Paper: {PAPER}, §V. Published numbers: `{ctx['reference']}` (92 rows).\n")
    add(f"Command: `{ctx['command']}` — {ctx['runs']} run(s) (seeds 1..{ctx['runs']}) per configuration, "
        f"{ctx['ok']} runs ok, {len(ctx['failed'])} failed; mptlab {ctx['version']}."
        + (f" Runs shortened to {ctx['duration']} (test mode)." if ctx.get("duration") else "") + "\n")
    add("Cases and plans: " + ", ".join(f"{c} (`{p}`)" for c, p in ctx["cases"].items()) + ".\n")
    if ctx["failed"]:
        add("Failed runs (left out of every statistic):\n")
        L += [f"- {f}" for f in ctx["failed"]]
        add("")
    extra = extra or {}
    L += _summary_sections(table, ok, extra)
    add("## Definitions (the paper gives none)\n")
    add(DEFINITIONS)
    add("## Homogeneous paths (§V-A, Figs. 4-7): panel (a) means, all six settings pooled\n")
    hm = [("delay_s", "delay (s)"), ("ipat_s", "inter-arrival (s)"), ("jitter_s", "jitter (s)"),
          ("throughput_mbps", "throughput (Mbit/s)"), ("pkt_rate_mbps", "per-packet rate (Mbit/s)"),
          ("fct_s", "completion (s)"), ("loss_pct", "loss (%)")]
    add(_scheduler_table(stats, "homogeneous", "all", hm))
    add("Published (panel a): delay BLP 0.0514 s, MinRTT = Peekaboo 0.0551 s; inter-arrival RR 0.0481 s, "
        "BLP 0.0491 s; jitter MinRTT = BLEST 0.0005 s; throughput BLP 0.1316, ECF 0.1179 Mbit/s.\n")
    add("## Heterogeneous paths (§V-B, Figs. 8-9): long flow, small packets, panel (a) means\n")
    add(_scheduler_table(stats, "heterogeneous", "all", hm))
    add("Published: inter-arrival ECF 0.0457 s, BLP 0.0458 s (0.0457 s at Δλ = 0.003); throughput BLP 0.0830, "
        "RoundRobin 0.0742 Mbit/s (BLP 0.0832 at Δλ = 0.001).\n")
    if not stats[stats["case"] == "het-traffic"].empty:
        add("Other flow-length × packet-size combinations (§V-B-3; the paper reports them only in words), "
            "throughput (Mbit/s) per scheduler, all permutations pooled:\n")
        t = ok[ok["case"] == "het-traffic"].copy()
        t["combo"] = t["file_size"].map({"3125000B": "long", "1600000B": "short"}).fillna(t["file_size"]) + \
            " / " + t["payload"].map({"10000B": "large", "1200B": "small"}).fillna(t["payload"])
        piv = t.groupby(["combo", "scheduler"])["throughput_mbps"].mean().unstack()
        rows = [[c] + [_fmt(piv.loc[c].get(s)) for s in SCHEDULER_ORDER] for c in piv.index]
        add(markdown_table(rows, ["flow / packets"] + list(SCHEDULER_ORDER), "l" + "r" * 6))
    add("## Total delay time (§V-A-5, §V-B-5), ms (completion time beyond file bits / capacity)\n")
    td = {g: _means(stats, "total-delay", g, "total_delay_ms") for g in ("5-50ms", "50-0ms")}
    fct = {g: _means(stats, "total-delay", g, "fct_s") for g in ("5-50ms", "50-0ms")}
    pub = {"5-50ms": [951.24, 1001.75, 970.31, 1161.68, 1001.75, 656.88],
           "50-0ms": [1208.92, 408.92, 384.97, 454.92, 408.92, 382.77]}
    rows = []
    for i, s in enumerate(SCHEDULER_ORDER):
        rows.append([s, pub["5-50ms"][i], _fmt(td["5-50ms"].get(s)), _fmt(fct["5-50ms"].get(s)),
                     pub["50-0ms"][i], _fmt(td["50-0ms"].get(s)), _fmt(fct["50-0ms"].get(s))])
    own = {g: _blp_olia(stats, "total-delay", g) for g in ("5-50ms", "50-0ms")}
    if any(own.values()):
        rows.append([f"{BLP_OLIA} (ours)", "–", _fmt(own["5-50ms"].get("total_delay_ms")),
                     _fmt(own["5-50ms"].get("fct_s")), "–", _fmt(own["50-0ms"].get("total_delay_ms")),
                     _fmt(own["50-0ms"].get("fct_s"))])
    add(markdown_table(rows, ["scheduler", "2×5 Mbit/s published", "simulated", "completion (s)",
                              "5+50 Mbit/s published", "simulated", "completion (s)"], "lrrrrrr"))
    if any(own.values()):
        add(f"{BLP_OLIA}: BLP (Δλ = 0) under OLIA, the benchmarks' controller, instead of the paper's "
            "blp-adaptive, so that the scheduler's effect shows apart from its controller's; not a "
            "configuration of the paper.\n")
    add("## Bytes received in 20 s (§V-B-4, Fig. 10), MB, mean over runs\n")
    rates = sorted({g for g in stats[stats["case"] == "bytes"]["group"]}, key=float)
    if rates:
        b = {g: _means(stats, "bytes", g, "bytes_delivered") for g in rates}
        rows = [[s] + [_fmt(b[g].get(s, float("nan")) / 1e6) for g in rates] for s in SCHEDULER_ORDER]
        add(markdown_table(rows, ["scheduler"] + [f"fast path {g} Mbit/s" for g in rates], "l" + "r" * len(rates)))
    add("## TCP and MPQUIC cross traffic (§V-C)\n")
    c = ok[ok["case"] == "cross"]
    if not c.empty:
        per = c.groupby("scheduler")[["interruptions_tcp", "interruptions_mp", "stalls_100ms_tcp",
                                      "stalls_100ms_mp", "throughput_mbps", "tcp_goodput_mbps"]].sum(min_count=1)
        runs_per = c.groupby("scheduler").size()
        rows = [[s, int(runs_per.get(s, 0))] + [_fmt(per.loc[s][k]) for k in per.columns] for s in SCHEDULER_ORDER
                if s in per.index]
        rows.append(["total", len(c)] + [_fmt(per[k].sum()) for k in per.columns])
        add(markdown_table(rows, ["scheduler", "runs", "TCP interruptions", "MPQUIC interruptions",
                                  "TCP stalls ≥100 ms", "MPQUIC stalls ≥100 ms", "Σ MPQUIC Mbit/s", "Σ TCP Mbit/s"],
                           "lrrrrrrr"))
        add("Published totals over six schedulers: TCP 68 837, MPQUIC 553 interruptions (ratio 124).\n")
    add("## Written comparison\n")
    add(_comparison_text(stats, ok))
    add("## Figures\n")
    L += [f"- `{f}`" for f in ctx["figures"]]
    add("")
    add("## Every published number next to the simulated one\n")
    add("Also in `comparison.csv` (with the reference's notes). `how` says which runs and statistic answer "
        "the row; configuration rows show the value this reproduction uses.\n")
    add(markdown(table))
    return "\n".join(L) + "\n"


def _summary_sections(table: pd.DataFrame, ok: pd.DataFrame, extra: dict[str, pd.DataFrame]) -> list[str]:
    """Agreement counts, the claims table, the seeds check and the sensitivity grid."""
    from mptlab.reproduce.seed002.claims import BANDS, HOLDS, NC, SCHEDULERS, claim_counts

    L: list[str] = []
    add = L.append
    bands = extra.get("bands")
    if bands is not None and not bands.empty:
        add("## How many published numbers can be compared, and how close they are\n")
        add("Every published result (55 of the 92 rows; the rest describe the set-up) is *same* (our "
            "number has its unit and definition), *inferred* (same unit, a definition the paper leaves "
            "out, stated in Definitions) or NOT COMPARABLE (with the reason; see `comparison.csv`, columns "
            "`kind`, `reason`, `ratio`, `within_10/25/50`). Counts, also in `agreement.csv`:\n")
        rows = [[r.kind, r.result_rows, r.compared] + [getattr(r, f"within_{b}") for b in BANDS]
                for r in bands.itertuples()]
        add(markdown_table(rows, ["comparability", "result rows", "compared"] + [f"within ±{b} %" for b in BANDS],
                           "lrrrrr"))
        nc = table[table["kind"] == NC]
        if not nc.empty:
            add("Not comparable, and why:\n")
            for (metric, reason), part in nc.groupby(["metric", "reason"], sort=False):
                add(f"- `{metric}` ({len(part)} rows): {reason}.")
            add("")
        ipat = ok[ok["case"].isin(["homogeneous", "heterogeneous"])]["ipat_s"]
        if ipat.notna().any():
            add(f"The largest mean inter-packet arrival time of any of our homogeneous or heterogeneous runs is "
                f"{ipat.max():.4g} s (published means: 0.0457-0.0491 s).\n")
    cl = extra.get("claims")
    if cl is not None and not cl.empty:
        counts = claim_counts(cl)
        add("## Claims: abstract, conclusion and the scheduler orderings of §V\n")
        add("Verdict rules in `python/mptlab/reproduce/seed002/claims.py` (means of panel (a), strict "
            "orderings, \"A = B\" within 1 %); also `claims.csv`. "
            + "; ".join(f"{k}: {v[HOLDS]} hold, {v['FAILS']} fail, {v[NC]} not comparable" for k, v in counts.items())
            + ".\n")
        rows = [[r.id, r.claim, r.verdict, r.simulated + (f" ({r.note})" if r.note else "")] for r in cl.itertuples()]
        add(markdown_table(rows, ["id", "claim (paper)", "verdict", "simulated"], "llll"))
    seeds = extra.get("seeds")
    if seeds is not None and not seeds.empty:
        add("## Do the seeds differ?\n")
        add("The only random element of these runs is the paper's 0.01 % forward loss (the paper: \"an error "
            "model is randomly applied\"); a 25 Mb file is a few thousand packets, so a run draws well under one "
            "random loss on average and most seeds draw none. Runs whose outcome (completion time, bytes, "
            "delay, inter-arrival, interruptions) is bit-identical count as one distinct outcome:\n")
        rows = [[r.case, r.configurations, r.seeds, r.all_seeds_identical, f"{r.mean_distinct_outcomes:.2f}",
                 _fmt(r.random_losses_per_run), f"{r.runs_without_random_loss} of {r.runs}"] for r in seeds.itertuples()]
        add(markdown_table(rows, ["case", "configurations", "seeds", "all seeds identical", "distinct outcomes (mean)",
                                  "random losses per run", "runs without random loss"], "lrrrrrr"))
        add("We keep the paper's loss rate (it is a stated property of the network) and say it plainly: where "
            "every seed is identical the case is deterministic and more seeds add nothing; the spread in the "
            "box plots is the spread over path settings, not over seeds. The statistics count every run, so "
            "identical seeds weigh each configuration equally and do not bias the means.\n")
    sens = extra.get("sensitivity")
    if sens is not None and not sens.empty:
        add("## Sensitivity: total delay under the unstated window and queue\n")
        add("`plans/seed002-sensitivity.toml`: the two total-delay pairs under every flow-control window "
            "(64 KB; 128 KiB, the ns-3 MPQUIC module's socket-buffer default and our scenarios' value; 256 KB; "
            "1 MB; 16 MB) and drop-tail limit (50, 100, 1000 packets). Mean total delay (ms) per scheduler; "
            "*distinct* counts the schedulers whose completion times differ (bit-identical runs count once). "
            "Also `sensitivity.csv`.\n")
        rows = [[r["pair"], r["fc_window"], r["queue"]] + [_fmt(r[k]) for k in SCHEDULERS]
                + [r["distinct_schedulers"], r["BLP_lowest"], r["paper_worst_is_worst"]] for r in sens.to_dict("records")]
        add(markdown_table(rows, ["pair", "window", "queue"] + list(SCHEDULERS)
                           + ["distinct", "BLP lowest", "paper's worst is worst"], "lll" + "r" * 7 + "ll"))
        for pair, part in sens.groupby("pair", sort=False):
            n = len(part)
            add(f"- {pair}: BLP lowest in {int((part['BLP_lowest'] == HOLDS).sum())} of {n} cells; the paper's worst "
                f"scheduler worst in {int((part['paper_worst_is_worst'] == HOLDS).sum())} of {n}; all six schedulers "
                f"distinct in {int((part['distinct_schedulers'] == 6).sum())} of {n}; "
                f"lowest: {', '.join(f'{k} {v}' for k, v in part['ranking'].str.split(' < ').str[0].value_counts().items())}.")
        add("")
    return L


def _comparison_text(stats: pd.DataFrame, ok: pd.DataFrame) -> str:
    out: list[str] = []
    hd = _means(stats, "homogeneous", "all", "delay_s")
    ht = _means(stats, "homogeneous", "all", "throughput_mbps")
    hj = _means(stats, "homogeneous", "all", "jitter_s")
    hl = _means(stats, "homogeneous", "all", "loss_pct")
    if hd:
        out.append(f"- **Homogeneous delay.** Lowest mean delay: {_rank(hd, True)[0]} (paper: BLP). "
                   f"Order: {', '.join(_rank(hd, True))}.")
    if ht:
        out.append(f"- **Homogeneous throughput.** Highest: {_rank(ht, False)[0]} (paper: BLP, then ECF). "
                   f"Order: {', '.join(_rank(ht, False))}. Our values are the transfer rate in Mbit/s, "
                   "1-2 orders of magnitude above the paper's 0.13 Mbit/s (see Definitions).")
    if hj:
        out.append(f"- **Homogeneous jitter.** Lowest: {_rank(hj, True)[0]} (paper: MinRTT and BLEST, "
                   f"BLP higher). Order: {', '.join(_rank(hj, True))}.")
    same = [s for s in ("RoundRobin", "MinRTT", "BLEST", "ECF") if s in hd]
    if len(same) > 1 and np.ptp([hd[s] for s in same]) < 1e-9:
        out.append("- On homogeneous paths RoundRobin, MinRTT, BLEST and ECF give identical runs here: with "
                   "equal paths and window-limited sending, every decision finds one path with window "
                   "space, so the schedulers cannot differ. The paper's differences between them (e.g. "
                   "ECF 1161.68 ms vs RoundRobin 951.24 ms of total delay on 2 × 5 Mbit/s) come from its "
                   "simulator, not from the paths.")
    spread = _dlambda_spread(stats, "homogeneous", "delay_s", "BLP")
    if not np.isnan(spread):
        out.append(f"- **Δλ on homogeneous paths.** BLP's mean delay varies by {spread:.2g} % across the five Δλ "
                   "(the paper: Δλ \"does not impact BLP's performance in homogeneous paths\", yet it quotes "
                   "smaller IQRs with Δλ > 0)."
                   + (" Δλ acts only when BLP's blocking test runs, and here it changed no run." if spread < 1e-9
                      else ""))
    spread = _dlambda_spread(stats, "heterogeneous", "throughput_mbps", "BLP")
    if not np.isnan(spread):
        out.append(f"- **Δλ on heterogeneous paths.** BLP's mean throughput varies by {spread:.2g} % across Δλ "
                   "(paper: 0.0830 → 0.0832 Mbit/s, 0.2 %).")
    if "BLP" in hl:
        others = [v for k, v in hl.items() if k != "BLP"]
        out.append(f"- **Packet loss of BLP's controller.** Mean packet loss with blp-adaptive is {hl['BLP']:.3g} % "
                   f"against {min(others):.3g}-{max(others):.3g} % for the OLIA runs. blp-adaptive applies eq. (10) "
                   "once per lost segment and, our departure, halves its window once per congestion event: "
                   "eqs. (9) and (10) alone balance only at 50 % loss (docs/congestion-control.md).")
    td = _means(stats, "total-delay", "50-0ms", "total_delay_ms")
    if td:
        rr = td.get("RoundRobin")
        faster = [s for s in ("MinRTT", "BLEST", "ECF", "BLP") if s in td and rr is not None and td[s] < rr]
        out.append(f"- **5 + 50 Mbit/s total delay.** Order: {', '.join(_rank(td, True))} (paper: BLP, BLEST, "
                   f"MinRTT = Peekaboo, ECF, RoundRobin last by far). Faster than RoundRobin: "
                   f"{', '.join(faster) or 'none'}.")
    td = _means(stats, "total-delay", "5-50ms", "total_delay_ms")
    if td:
        out.append(f"- **2 × 5 Mbit/s total delay.** Order: {', '.join(_rank(td, True))} (paper: BLP "
                   "656.88 ms, far ahead; the others 951-1162 ms).")
    c = ok[ok["case"] == "cross"]
    if not c.empty and c["interruptions_mp"].sum() > 0:
        r = c["interruptions_tcp"].sum() / c["interruptions_mp"].sum()
        out.append(f"- **Cross traffic.** TCP/MPQUIC interruption ratio {r:.3g} (paper: 68 837 / 553 = 124). "
                   "Absolute totals scale with the number of runs and the bin width and are not comparable.")
    out.append("- **Not reproduced by construction.** The paper's trained blocking-threshold model (ours is "
               "trained on mptlab runs: models/blp_threshold.json), its 100 B small packets (we use 1200 B), "
               "its million-packet flows "
               "(we keep the long/short ratio on the 25 Mb file), Fig. 3's exact heterogeneous "
               "permutations and Fig. 10's second path (ours: see docs/reproductions.md).")
    return "\n".join(out) + "\n"


DEFINITIONS = """\
- *Average data packet delay*: mean one-way delay of the data packets received (s).
- *Average inter-packet arrival time*: mean gap between consecutive data packets at the receiver,
  all paths together (s).
- *Average mean jitter*: mean of the RFC 3550 interarrival jitter samples (s).
- *Average throughput*: application bytes × 8 / completion time (Mbit/s). The paper's 0.08-0.13
  "Mbps" cannot be a transfer rate on 5-250 Mbit/s paths; they equal about one ~500-800 B packet
  per published inter-arrival time (0.1316 Mbit/s × 0.0491 s ≈ 808 B), i.e. a per-packet rate.
  That reading is shown as *per-packet rate* (mean payload × 8 / mean inter-arrival time).
- *Total delay time*: completion time − file bits / (rate₁ + rate₂) (ms): the time lost beyond the
  capacity bound. The published values (383-1209 ms) are below the capacity bound of a 25 Mb file
  on 2 × 5 Mbit/s (2.5 s), so they cannot be completion times.
- *Flow interruptions*: stretches of ≥ 1 consecutive empty 10 ms goodput bins between a flow's
  first and last delivery; "stalls ≥ 100 ms" is a coarser count.
- Boxes and statistics pool every run of every setting of a case (the paper: "averaged over six
  path settings"); panel (a) is Δλ = 0 for BLEST and BLP.
"""
