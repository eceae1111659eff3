"""Seed 000's report.md: the modelling choices, how close the simulated tables come to the
published ones, the findings, the disagreements with the open choice that governs each, the
eight text values, Jain's index for every scenario and the jitter definitions side by side."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from mptlab.reproduce.common import BANDS_PCT, markdown_table
from mptlab.reproduce.seed000.metrics import FAMILIES, LINKS, jain_cells
from mptlab.reproduce.seed000.table import table_cells

CHOICES = """\
Every choice below is the paper's silence filled in before any run (study notes
`../shared/studies/seed000.md`, ambiguities A1-A17); none was tuned on the numbers compared here.
The scenario files (`scenarios/seed000/*.toml`) repeat them in their headers.

| # | choice |
|---|---|
| A1 | symmetric case: both backhauls at TN1's 501.74 Mbit/s (the published symmetric TN2 sums reach 496.75 Mbit/s, above Table 1's 436.43); delays 8/10 ms kept |
| A2 | asymmetric and mixed: Table 1 as printed, TN2 436.43 Mbit/s / 10 ms; the ~387.5 Mbit/s the tables show on TN2 is a finding, not a setting. Lengths (10/15 km) are labels |
| A3 | latencies are one-way per direction (Mininet TCLink's netem per interface) |
| A4 | drop-tail queues of 1000 packets (Linux/Mininet txqueuelen) on TN1 and TN2, every direction |
| A5, A7 | one node per UE with an ideal access link (10 Gbit/s, 100 us) to the IAB router; a dual-homed server, so the full-mesh path manager gives each UE one path per backhaul |
| A6 | CBR on the payload (iperf -b like). eMBB: 100 Mbit/s per UE, 1500 B IP packets (MPTCP MSS 1448 B; MPQUIC writes of one packet's STREAM bytes, QUIC's default: 1431 B of a 1472 B UDP payload). mMTC: 0.1 Mbit/s per device in 100 B writes (MPTCP MSS 100 B). Mixed: high-rate UEs as eMBB, low-rate devices as mMTC |
| A8 | engine `bbr` (BBR v1) on both stacks, `cubic`, `reno`; per-subflow / per-path, uncoupled |
| A9 | MPTCP scheduler `default` (upstream Linux's); MPQUIC `minrtt` |
| A10 | throughput: a family's wire Mbit/s on a link per 1 s bin after the warm-up; Min/Max/μ/σ over those bins, σ population |
| A11 | link-level jitter: RFC 3550 J over the link's merged packet stream; protocol-specific: per-subflow RFC 3550 pooled over the family's subflows on that link; table value μ over the post-warm-up interval means |
| A12 | loss: one sample per UE (its dropped / sent data packets over the run, retransmissions included, %); Min/Max/μ/σ (population) over the family's UEs |
| A13 | 60 s runs, the first 10 s a warm-up excluded from every interval statistic; every UE starts at its own seeded offset in [0, 1 s) (`start_spread`) |
| A14, A15 | the tables are compared, not the text (the capacity check favours them); claims are also judged on the tables (column "tables") |
| A17 | Jain's index computed for every scenario; compared where published (eMBB) |
"""

#: Published metric -> the open choices that govern it (the likeliest source of a disagreement).
GOVERNED_BY = {
    "throughput": "A2 (TN2 capacity as configured), A4 (queue size: loss recovery and standing queues), A6 with A10 (CBR on "
                  "the payload, throughput in wire bytes: a 100 B MPTCP write is 168 B on the wire, so 6,000 devices offer "
                  "about 1 Gbit/s, while the paper's per-protocol sums stay under 600 Mbit/s) and A8 (BBR v1 against "
                  "picoquic's BBR)",
    "jitter": "A11 (no formula in the paper: RFC 3550 J with sender timestamps; the paper's values suggest a coarser "
              "inter-arrival statistic) and A4 (queue size sets the delay variation)",
    "packet_loss": "A4 (queue size: 1000 packets hold 2.7 ms of 100 B packets at 500 Mbit/s), A12 (per-UE sample) and A13 "
                   "(start offsets within 1 s)",
    "jain_index": "follows the throughput means (same choices)",
}


def _f(v: Any, digits: int = 3) -> str:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    return "" if not math.isfinite(x) else f"{x:.{digits}f}"


def jain_frame(means: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """jain.csv: per scenario, pairing and link (TN1, TN2, total): the simulated index, the
    published one (Tables 2, 11; empty elsewhere) and the index the published means give
    (extra for mMTC and mixed, A17)."""
    cells = table_cells(published)
    pub = {(r.scenario, r.pairing, r.link): r.value for r in cells[cells["metric"] == "jain_index"].itertuples()}
    thr = cells[(cells["metric"] == "throughput") & (cells["statistic"] == "mean")]
    pub_means: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
    for r in thr.itertuples():
        pub_means.setdefault((r.scenario, r.pairing), {})[(r.protocol, r.link)] = r.value
    rows = []
    for (sc, p), row in means.iterrows():
        from_pub = jain_cells(pub_means[(sc, p)]) if (sc, p) in pub_means else {}
        for link in ("TN1", "TN2", "total"):
            rows.append({"scenario": sc, "pairing": p, "link": link,
                         "simulated": float(row.get(f"jain_all_{link}_value", float("nan"))),
                         "published": pub.get((sc, p, link), float("nan")),
                         "from_published_means": from_pub.get(link, float("nan"))})
    return pd.DataFrame(rows)


def jitter_sensitivity(means: pd.DataFrame) -> pd.DataFrame:
    """jitter_sensitivity.csv: per scenario, pairing and link the table's definitions
    (link-level merged stream, protocol-specific per subflow) beside the others (per-subflow at
    link level, merged stream per family)."""
    rows = []
    for (sc, p), row in means.iterrows():
        for link in LINKS.values():
            rec = {"scenario": sc, "pairing": p, "link": link,
                   "link_merged": row.get(f"jit_all_{link}_mean"), "link_per_subflow": row.get(f"jitsubflow_all_{link}_mean")}
            for fam in FAMILIES:
                rec[f"{fam}_per_subflow"] = row.get(f"jit_{fam}_{link}_mean")
                rec[f"{fam}_merged"] = row.get(f"jitmerged_{fam}_{link}_mean")
            rows.append(rec)
    return pd.DataFrame(rows)


def _disagreements(table: pd.DataFrame) -> str:
    rows = []
    for (sc, metric), part in table[table["simulated"].notna()].groupby(["scenario", "metric"], sort=False):
        sim = part[part["published"] != 0]
        if sim.empty:
            continue
        ratio = (sim["simulated"] / sim["published"]).median()
        within = int(part["within_25"].sum())
        # off: fewer than half the cells within ±25 %; a median ratio near 1 then means errors both ways
        off = within < len(part) / 2
        direction = ("near" if not off else "above" if ratio > 1.25 else "below" if ratio < 0.8 else "both ways")
        rows.append([sc, metric, len(part), within, _f(sim["delta_pct"].median(), 0), _f(ratio, 2), direction,
                     GOVERNED_BY[metric] if off else ""])
    if not rows:
        return "No published cell was simulated.\n"
    return markdown_table(rows, ["scenario", "metric", "simulated cells", "within ±25 %", "median |Δ| %", "median sim/pub", "",
                                 "open choices that govern it"], "llrrrrll")


def render(table: pd.DataFrame, ok: pd.DataFrame, ctx: dict[str, Any], extra: dict[str, Any]) -> str:
    bands, verdicts, jains, jit, texts = extra["bands"], extra["claims"], extra["jain"], extra["jitter"], extra["text"]
    out = ["# Seed 000: MPTCP and MPQUIC over a dual terrestrial backhaul (Picchi & Tarchi 2026)\n\n"]
    wall = float(ok["wall_s"].sum()) if "wall_s" in ok else float("nan")
    out.append(
        f"Command: `{ctx['command']}` (mptlab {ctx['version']}). Published numbers: `{ctx['reference']}`.\n"
        f"{ctx['ok']} runs succeeded ({ctx['runs']} seed(s) per case)"
        f"{', duration ' + ctx['duration'] + ' per run' if ctx['duration'] else ', 60 s per run'}"
        f"{', device counts × ' + format(ctx['scale'], 'g') if ctx['scale'] != 1 else ' at full scale (12,000 mMTC devices, 6,006 mixed)'}. "
        f"This invocation took {ctx['elapsed_s']:.0f} s; the runs' own wall times add up to {wall:.0f} s "
        "(a resumed reproduction reuses finished runs).\n\n"
    )
    out.append("Cases:\n\n" + "".join(f"- {sc}: `{desc}`\n" for sc, desc in ctx["cases"].items()) + "\n")
    if ctx["failed"]:
        out.append("**Failed runs** (left out of every statistic):\n\n" + "".join(f"- {f}\n" for f in ctx["failed"]) + "\n")
    out.append("## Modelling choices\n\n" + CHOICES + "\n")
    out.append("## Calibrations\n\nNone: no parameter was set from the outcomes compared here.\n\n")
    out.append("## How close: published cells within ±10/25/50 %\n\n")
    out.append(markdown_table(
        [[r.metric, r.cells, r.simulated, *(getattr(r, f"within_{b}") for b in BANDS_PCT)] for r in bands.itertuples()],
        ["metric", "cells", "simulated", *(f"within ±{b} %" for b in BANDS_PCT)], "lrrrrr") + "\n")
    out.append("Every cell with its simulated value: `table.csv`, `tables.md`. A published 0 (the loss Min of every "
               "row) counts as within a band only when the simulated value is 0 too.\n\n")
    out.append("## Findings (§4.1-4.5, §5, and the notes' checks)\n\n")
    out.append("`verdict` judges the claim on the simulated numbers; `tables` runs the same test on the published "
               "tables, so a claim the paper's own tables do not support shows as FAILS there (A14, A15).\n\n")
    out.append(markdown_table(
        [[r.id, r.source, r.claim, r.verdict, r.tables, r.simulated] for r in verdicts.itertuples()],
        ["id", "source", "claim", "verdict", "tables", "simulated numbers"]) + "\n")
    counts = verdicts["verdict"].value_counts()
    out.append(f"{counts.get('HOLDS', 0)} HOLDS, {counts.get('FAILS', 0)} FAILS, "
               f"{counts.get('NOT COMPARABLE', 0)} NOT COMPARABLE of {len(verdicts)}.\n\n")
    out.append("## Disagreements, and the open choices that govern them\n\n")
    out.append("Per scenario and metric: the median |Δ| % and the median ratio simulated / published over the "
               "cells (published 0s left out). Where fewer than half the cells lie within ±25 % the last column "
               "names the choices of the table above that set that metric; which of them causes the gap is what "
               "a sensitivity run over that choice would tell.\n\n")
    out.append(_disagreements(table) + "\n")
    out.append("## Text values against the tables (A14)\n\n")
    out.append("The text of Figs. 17a-20a quotes eight means that differ from Tables 17/18/21/22 (the MPTCP-TN2 and "
               "MPQUIC-TN1 values swapped, with digit typos). The tables are compared: with the text values TN1 "
               "would carry 534-580 Mbit/s, above its 501.74 Mbit/s (notes §1.8 point 3). The prose of §4.4 and "
               "§5's \"specialize\" follow the text; claims `am-quic-tn1` and `c-specialize` test them.\n\n")
    means = extra["means"]
    rows = []
    for r in texts.itertuples():
        key = (r.scenario, r.pairing)
        col = f"thr_{r.protocol}_{r.link}_mean"
        sim = float(means.at[key, col]) if key in means.index and col in means.columns else float("nan")
        rows.append([r.source, r.scenario, r.pairing, r.protocol, r.link, _f(r.text_value, 2), _f(r.table_value, 2), _f(sim, 2)])
    out.append(markdown_table(rows, ["source", "scenario", "pairing", "protocol", "link", "text", "table", "simulated"],
                              "lllllrrr") + "\n")
    out.append("## Jain's index, every scenario (A17)\n\n")
    out.append("Two-party index over the family means per link and over the per-family TN1 + TN2 sums "
               "(`check_seed000.py`'s definition). `from published means` is the same formula on the published "
               "throughput means: equal to the published index in Tables 2 and 11, an extra elsewhere.\n\n")
    out.append(markdown_table(
        [[r.scenario, r.pairing, r.link, _f(r.simulated, 4), _f(r.published, 4), _f(r.from_published_means, 4)]
         for r in jains.itertuples()],
        ["scenario", "pairing", "link", "simulated", "published", "from published means"], "lllrrr") + "\n")
    out.append("## Jitter definitions side by side (A11)\n\n")
    out.append("Mean over the post-warm-up interval means, ms. The tables use `link merged` (link-level) and "
               "`<family> per subflow` (protocol-specific); the others are the alternative readings.\n\n")
    cols = ["link_merged", "link_per_subflow", *(f"{f}_{k}" for f in FAMILIES for k in ("per_subflow", "merged"))]
    out.append(markdown_table([[r["scenario"], r["pairing"], r["link"], *(_f(r[c]) for c in cols)] for _, r in jit.iterrows()],
                              ["scenario", "pairing", "link", *cols], "lll" + "r" * len(cols)) + "\n")
    if ctx["figures"]:
        out.append("## Figures\n\nPer case the paper's panels (a)-(d), box + violin over the post-warm-up samples: "
                   f"`figures/<scenario>/<pairing>-<panel>.png` ({len(ctx['figures'])} files).\n")
    else:
        out.append("## Figures\n\nNo panel had samples (the runs lack the per-group link series).\n")
    return "".join(out)

