"""Seed 001: report.md, the written comparison of the simulated and the published Table 3.

Everything that depends on a result is computed here from the tables (compare);
the fixed text only describes the method and the known differences between the paper's
testbed and the model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mptlab.reproduce.seed001 import compare as cmp
from mptlab.reproduce.common import markdown_table
from mptlab.reproduce.seed001.table import markdown as table3_markdown


@dataclass
class Context:
    """What the report says about how it was made."""

    command: str
    runs_per_pair: int
    ok: int
    failed: int
    version: str
    scenario: str
    plan: str
    sweep: str
    reference: str
    seeds: Mapping[str, int] = field(default_factory=dict)
    figures: Sequence[str] = ()
    html_report: str | None = None
    failures: Sequence[str] = ()
    #: compare.trend: early and late mean goodput per pair (None: not computed).
    trend: pd.DataFrame | None = None
    #: compare.peak_times per sampled series ("T_over(k)", "ζ(k)").
    peaks: Mapping[str, float] = field(default_factory=dict)
    #: The representative runs' time series the figures were drawn from; the figure-text
    #: values are measured on it (None: not drawn).
    series: pd.DataFrame | None = None
    #: The claims section (claims.markdown) and the sensitivity section
    #: (sensitivity.markdown), already rendered ("" leaves them out).
    claims: str = ""
    sensitivity: str = ""


def render(table: pd.DataFrame, ctx: Context, runs: pd.DataFrame | None = None) -> str:
    """The whole report as Markdown; `runs` (the per-run records) adds the test of whether
    the runs tell the pairs apart."""
    order = cmp.ordering(table, runs)
    lv = cmp.levels(table)
    out = cmp.outliers(table)
    parts = [
        _head(ctx),
        "## Table 3: simulated (published)\n\n"
        "Each cell is the simulated value with the paper's in parentheses; the statistics are "
        "those of the paper's eq. (5), (6), (10), (11) over the runs (see docs/reproductions.md).\n\n"
        + table3_markdown(table),
        *([ctx.claims] if ctx.claims else []),
        *([ctx.sensitivity] if ctx.sensitivity else []),
        _ordering_section(order),
        _levels_section(lv),
        _outlier_section(out),
        _trend_section(ctx.trend, ctx.peaks),
        _why_section(lv),
        _figures_section(ctx),
        _figtext_section(ctx, runs),
    ]
    return "\n".join(parts)


def _head(ctx: Context) -> str:
    failed = f", **{ctx.failed} failed**" if ctx.failed else ""
    lines = [
        "# Seed 001 reproduction: coupled MPTCP CC × path CC for streaming",
        "",
        "Łuczak, Ignaciuk, Morawski, *Evaluating MPTCP Congestion Control Algorithms: Implications "
        "for Streaming in Open Internet*, Future Internet 15 (2023) 328, Table 3 and Figs. 3–4.",
        "",
        f"- command: `{ctx.command}`",
        f"- mptlab {ctx.version}; scenario `{ctx.scenario}`; plan `{ctx.plan}`",
        f"- {ctx.runs_per_pair} run(s) of 10 s per pair (the paper: 30); {ctx.ok} runs ok{failed}; "
        f"results store `{ctx.sweep}`",
        f"- published numbers: `{ctx.reference}`",
    ]
    if ctx.html_report:
        lines.append(f"- the sweep's HTML report: [{ctx.html_report}]({ctx.html_report})")
    for f in ctx.failures[:10]:
        lines.append(f"- failed run: {f}")
    return "\n".join(lines) + "\n"


def _fmt(v: float, digits: int = 2) -> str:
    return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.{digits}f}"


def _ordering_section(order: pd.DataFrame) -> str:
    rows = [
        [r.label, _fmt(r.rho_pairs), _fmt(r.p_pairs, 3), r.verdict, _fmt(r.pairs_differ_p, 3),
         _fmt(r.rho_mptcp_cc), r.mptcp_cc_order_pub, r.mptcp_cc_order_sim]
        for r in order.itertuples()
    ]
    table = markdown_table(
        rows,
        ["metric", "ρ (12 pairs)", "p", "ordering of the pairs", "pairs differ, p", "ρ (4 MPTCP CCs)",
         "MPTCP CCs, paper (high → low)", "MPTCP CCs, simulated"],
        "lrrlrrll",
    )
    counts = order["verdict"].value_counts()
    summary = ", ".join(f"{n} {v}" for v, n in counts.items())
    noisy = order[order["pairs_differ_p"] >= cmp.DIFFER_P]
    if len(noisy):
        summary += (f". In {len(noisy)} row(s) the runs do not tell the simulated pairs apart "
                    f"(pairs differ, p ≥ {cmp.DIFFER_P:g}), so their simulated order, and ρ, is "
                    "mostly chance: " + ", ".join(noisy["label"]))
    details = []
    for r in order.itertuples():
        moved = r.disagreeing or "none"
        details.append(
            f"- **{r.label}**: paper highest {r.pub_max}, simulated highest {r.sim_max}; "
            f"paper lowest {r.pub_min}, simulated lowest {r.sim_min}. "
            f"Pairs whose rank moves by ≥ {cmp.DISAGREE_RANKS} places: {moved}."
        )
    return (
        "## Ordering: do the pairs rank as in the paper?\n\n"
        "Spearman's rank correlation ρ between the simulated and the published values of each "
        "row of Table 3, over the 12 pairs and over the 4 MPTCP CCs (each the mean of its three "
        "path CCs); p is the two-sided permutation p-value of ρ (exact for the 4 CCs, 20 000 "
        f"fixed-seed permutations for the pairs). Verdict: *agrees* when ρ ≥ {cmp.AGREE_RHO} and "
        f"p < {cmp.AGREE_P}, *reversed* when ρ ≤ −{cmp.AGREE_RHO} and p < {cmp.AGREE_P}, else "
        "*weak* with the sign of ρ. Ties (the paper prints many equal values) get average "
        f"ranks. With 4 CCs the smallest possible p is {2 / math.factorial(4):.3f}, so that "
        "column shows the direction only. *Pairs differ, p* asks whether the runs tell the 12 "
        "simulated pairs apart at all: every pair ran on the same seeds, so the pair labels are "
        "shuffled within each seed (2 000 fixed-seed shuffles) and p is the share of shuffles "
        "whose pair means are at least as spread out as the simulated ones.\n\n"
        f"{table}\nOver the 12 rows: {summary}.\n\n" + "\n".join(details) + "\n"
    )


def _levels_section(lv: pd.DataFrame) -> str:
    rows = [
        [r.label, _fmt(r.median_ratio), f"{r.close}/{r.cells}",
         f"{_fmt(r.pub_min, 1)}–{_fmt(r.pub_max, 1)}", f"{_fmt(r.sim_min, 1)}–{_fmt(r.sim_max, 1)}"]
        for r in lv.itertuples()
    ]
    return (
        "## Levels: how far are the numbers?\n\n"
        f"Median over the pairs of simulated / published, the cells within ±{cmp.CLOSE:.0%} of "
        "the published value, and the range of each row over the 12 pairs.\n\n"
        + markdown_table(rows, ["metric", "median sim/pub", f"within ±{cmp.CLOSE:.0%}",
                                "published range", "simulated range"], "lrrrr")
    )


def _outlier_section(out: pd.DataFrame) -> str:
    head = (
        "## The paper's outliers\n\n"
        f"Published cells above {cmp.OUTLIER:g} × the median of their row, and the same pair "
        "in the simulation (its value and its multiple of the simulated row's median).\n\n"
    )
    if out.empty:
        return head + "The published table has no such cells.\n"
    rows = [[r.label, r.pair, _fmt(r.published, 1), _fmt(r.published_x_median), _fmt(r.simulated, 1),
             _fmt(r.simulated_x_median)] for r in out.itertuples()]
    reproduced = int((out["simulated_x_median"] > cmp.OUTLIER).sum())
    return head + markdown_table(
        rows, ["metric", "pair", "published", "× median", "simulated", "× median"], "llrrrr"
    ) + f"\n{reproduced} of {len(out)} outlier cells are also above {cmp.OUTLIER:g} × the median in the simulation.\n"


def _trend_section(tr: pd.DataFrame | None, peaks: Mapping[str, float]) -> str:
    if tr is None or tr.empty or not {"early", "late"} <= set(tr.columns):
        return ""
    ratio = tr["late"] / tr["early"]
    rising = int((ratio > 1).sum())
    shares = [f"{label} in {share:.0%}" for label, share in peaks.items() if not np.isnan(share)]
    start = (
        f" The largest sample of a run comes in its first {cmp.EARLY_S:g} s for "
        + " and ".join(shares) + " of the runs: the start of a run sets most per-run maxima "
        "(eq. 4 and 9).\n"
    ) if shares else "\n"
    return (
        "## The start of a run\n\n"
        "The paper's text (§3.1.5) reports throughput \"with a tendency to improve over time\". "
        f"Simulated mean goodput in the first {cmp.EARLY_S:g} s of a run against the seconds "
        f"from {cmp.LATE_FROM_S:g} s on, averaged over runs: {tr['early'].mean():.2f} Mbit/s "
        f"early and {tr['late'].mean():.2f} Mbit/s late over all pairs; late/early from "
        f"{ratio.min():.2f} to {ratio.max():.2f} across the pairs; {rising} of {len(tr)} pairs "
        "rise." + start
    )


def _why_section(lv: pd.DataFrame) -> str:
    directions = []
    for r in lv.itertuples():
        if np.isnan(r.median_ratio):
            continue
        if r.median_ratio > 1 + cmp.CLOSE:
            directions.append(f"{r.label}: simulated higher (median ratio {r.median_ratio:.2f})")
        elif r.median_ratio < 1 - cmp.CLOSE:
            directions.append(f"{r.label}: simulated lower (median ratio {r.median_ratio:.2f})")
    spread = []
    for r in lv.itertuples():
        if r.pub_min > 0 and r.sim_min > 0:
            spread.append((r.label, r.pub_max / r.pub_min, r.sim_max / r.sim_min))
    narrower = [s for s in spread if s[2] < s[1]]
    lines = [
        "## Why the absolute numbers differ",
        "",
        "Computed from the tables above:",
        "",
        f"- {len(lv) - len(directions)} of {len(lv)} rows have a median simulated/published ratio "
        f"within ±{cmp.CLOSE:.0%}." + ("" if not directions else " Outside it: " + "; ".join(directions) + "."),
        f"- The spread across the pairs (highest / lowest cell of a row) is smaller in the "
        f"simulation than in the paper in {len(narrower)} of {len(spread)} rows (published vs "
        "simulated: " + "; ".join(f"{a} {p:.2f}× vs {s:.2f}×" for a, p, s in spread) + ").",
        "",
        "What differs between the paper's testbed and the model (method, not results):",
        "",
        "- **One network for all pairs.** Every pair here runs on the same seeds, so on the same "
        "capacity sequences and the same random losses; differences between pairs come from the "
        "controllers alone. The paper measured each pair at a different time on two commercial "
        "LTE networks, so its differences between pairs also hold the network's changes over the "
        "campaign; it calls one BBR peak \"abnormal temporary traffic conditions\".",
        "- **A simpler path.** Each path is one drop-tail bottleneck whose rate follows a "
        "synthetic LTE capacity process, Bernoulli loss, and fixed propagation delays; no cross "
        "traffic, no radio-layer retransmission (HARQ/RLC) delay, no LTE scheduler, no Wi-Fi "
        "contention. SRTT varies only through queueing, so delay-based control (wVegas) and BBR, "
        "which keep queues short, can look different from loss-based control only through the "
        "queue.",
        "- **Calibrated to the network rows, not to the pairs.** The profile "
        "(`scenarios/seed001-lte.toml`) was set so that the SRTTs averaged over all pairs land "
        "near Table 3 and the drop rates (d_1 + d_2) at their all-pair level; never on throughput, "
        "protocol delay or HoL degree. The random loss, the receive buffer, the LTE queues and "
        "the LTE rate are not stated in the paper: the sensitivity rows above show the results "
        "over a range of the first three.",
        "- **Implementations.** The paper ran Linux 4.19 with MPTCP v0.95 and a kernel patch, not "
        "published, that runs a path CC independently of the MPTCP CC. mptlab's composition "
        "(`lia+reno`: both controllers see every event, the subflow sends within the smaller "
        "window) is an interpretation, documented in docs/congestion-control.md. Linux's receive "
        "buffer autotuning is modelled as a fixed 300 kB connection-level buffer.",
        "- **Sampling.** The paper does not give its sampling interval; here k is 100 ms and "
        "T_over(k) = max_i T_i(k) (eq. 2), T_i(k) the largest hand-over → acknowledgment delay of "
        "path i's chunks whose acknowledgment came back over path i in interval k; ζ(k) = "
        "T_over(k) − max_i τ_i(k) over every path, with the smoothed τ_i at the end of the "
        "interval, so ζ(k) can be negative when the slowest path acknowledged nothing in k "
        "(eq. (11) clips only the per-run maximum). The drop rate d_i counts the path's packets "
        "dropped in the network per second of the run.",
    ]
    return "\n".join(lines) + "\n"


def _figures_section(ctx: Context) -> str:
    if not ctx.figures:
        return "## Figures\n\nNo figures were drawn.\n"
    seeds = ", ".join(f"{cc}: run {s}" for cc, s in ctx.seeds.items())
    lines = [
        "## Figures (Figs. 3–4: one representative run per path CC)",
        "",
        f"Representative runs ({seeds}): the seed whose four runs lie closest to their pairs' "
        "means over all runs (see docs/reproductions.md).",
        "",
    ]
    for f in ctx.figures:
        if f.endswith(".png"):
            lines += [f"![{Path(f).stem}]({f})", ""]
    return "\n".join(lines) + "\n"


#: The figure-text values the paper quotes (reference/, next to seed001.csv).
FIGTEXT_REFERENCE = "seed001_figtext.csv"


def load_figtext() -> tuple[pd.DataFrame | None, str]:
    """reference/seed001_figtext.csv and where it was found (None and the reason if not)."""
    from mptlab.reproduce.common import ReproduceError, reference_file

    try:
        path = reference_file(FIGTEXT_REFERENCE)
    except ReproduceError as e:
        return None, str(e)
    if path.name != FIGTEXT_REFERENCE:  # $MPTLAB_REFERENCE names seed001.csv itself
        path = path.with_name(FIGTEXT_REFERENCE)
    try:
        return pd.read_csv(path), str(path)
    except (OSError, ValueError) as e:
        return None, f"cannot read {path}: {e}"


def _figtext_section(ctx: Context, runs: pd.DataFrame | None) -> str:
    from mptlab.reproduce.seed001.study import FLOW
    from mptlab.reproduce.seed001.figures import figtext_comparison

    head = (
        "## Values the text reads off Figs. 3–4\n\n"
        "The paper only describes its figures (§3.1.2–3.1.4); each quoted value is compared with "
        "the same quantity in the representative runs drawn above (a line is one MPTCP CC × path "
        "CC of those runs, taken over the whole 10 s run with k = 100 ms; *lines* counts the "
        "lines, or for the rows measured on all runs the pairs, a value is taken over). The "
        "definitions are ours: the paper gives none.\n\n"
    )
    reference, where = load_figtext()
    if reference is None:
        return head + f"Not compared: {where}.\n"
    if ctx.series is None:
        return head + "Not compared: no figures were drawn.\n"
    cmp_ = figtext_comparison(reference, ctx.series, FLOW, runs, dict(ctx.seeds))
    rows = [[r.section, r.figure, r.pairs, r.quoted, _fmt(r.measured, 1 if r.unit == "ms" else 2),
             r.lines, r.unit, r.definition] for r in cmp_.itertuples()]
    return head + markdown_table(
        rows, ["§", "figure", "MPTCP CC / path CC", "quoted", "measured", "lines", "unit", "definition"],
        "lllrrrll",
    )
