"""Seed 001: results over the parameters the paper does not state (sensitivity rows).

The paper reports its network only through the SRTTs (Table 3's τ rows), the drop rates and
throughput it attributes to the CC pairs, and the figure text. Three model parameters that move
the results are not stated anywhere: the random loss on the LTE paths, the connection-level
receive buffer and the LTE queue size. Rather than pick one value of each on the outcome, the
reproduction reruns the plan with each of them varied (one at a time, the others at the
scenario's values) and reports, per variant and MPTCP CC, the means over path CCs of
throughput av, v_av, ζ_av and d_1 + d_2, the LIA/OLIA/BALIA throughput order and the claims'
verdicts. Two further variants answer the question of which modelling choice decides the
LIA/OLIA/BALIA order: delayed ACKs off, and the coupled controller alone (`lia` instead of
`lia+reno`, i.e. without the path controller's window).

Each variant is a normal results store in OUT/sensitivity/<variant>-<N>runs/.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mptlab.reproduce.common import markdown_table

#: (variant name, parameter, value as shown, overrides). The scenario's own values are the
#: "base" row (no override). Loss on both LTE downlinks; buffer = the MPTCP receive buffer;
#: queue = both LTE drop-tail limits scaled together.
VARIANTS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("loss-0", "LTE random loss p", "0 (queue drops only)", ('links.lte1.loss="none"', 'links.lte2.loss="none"')),
    ("loss-1e-3", "LTE random loss p", "0.001",
     ('links.lte1.loss={ model = "bernoulli", p = 0.001 }', 'links.lte2.loss={ model = "bernoulli", p = 0.001 }')),
    ("loss-2e-3", "LTE random loss p", "0.002",
     ('links.lte1.loss={ model = "bernoulli", p = 0.002 }', 'links.lte2.loss={ model = "bernoulli", p = 0.002 }')),
    ("rbuf-150KB", "receive buffer", "150KB", ('flows.stream.mptcp={ recv_buffer = "150KB" }',)),
    ("rbuf-1MB", "receive buffer", "1MB", ('flows.stream.mptcp={ recv_buffer = "1MB" }',)),
    ("rbuf-6MB", "receive buffer", "6MB (Linux tcp_rmem[2])", ('flows.stream.mptcp={ recv_buffer = "6MB" }',)),
    ("queue-half", "LTE queues", "20 ms / 50 ms",
     ('links.lte1.queue={ kind = "droptail", limit = "20ms" }', 'links.lte2.queue={ kind = "droptail", limit = "50ms" }')),
    ("queue-double", "LTE queues", "80 ms / 200 ms",
     ('links.lte1.queue={ kind = "droptail", limit = "80ms" }', 'links.lte2.queue={ kind = "droptail", limit = "200ms" }')),
    ("no-delack", "delayed ACKs", "off", ("flows.stream.tcp={ delayed_ack = { enabled = false } }",)),
)

#: Variants whose plan swaps the composed pairs for the coupled controller alone.
ALONE = ("coupled-alone", "path CC composition", "coupled CC alone (lia, olia, balia, wvegas)")

SENS_COLUMNS = ("variant", "parameter", "value", "mptcp_cc", "runs", "tput_av", "v_av", "zeta_av", "d1_plus_d2",
                "srtt1_av", "srtt2_av")


def run_variants(out: Path, runs: int, workers: int | None, dask: str | None, progress: bool,
                 plan_for: Any, load_runs: Any, alone: bool = True,
                 variants: tuple = VARIANTS) -> tuple[pd.DataFrame, list[str]]:
    """Run every variant; per-run records of all of them (column `variant`), and the failures."""
    from mptlab.sweeps import sweep
    from mptlab.sweeps.plan import load_plan

    frames, failures = [], []
    todo = [(v, p, x, o, False) for v, p, x, o in variants]
    if alone:
        todo.append((*ALONE, (), True))
    for name, param, value, overrides, coupled_alone in todo:
        base = plan_for(runs)
        # load_plan re-reads the plan's text: keep the seeds plan_for chose.
        plan = dataclasses.replace(load_plan(base, list(overrides)), seeds=base.seeds) if overrides else base
        if coupled_alone:
            plan = _alone(plan)
        folder = out / "sensitivity" / f"{name}-{runs}runs"
        sweep(plan, out=folder, workers=workers, dask=dask, progress=progress)
        rec = load_runs(folder)
        bad = rec[rec["status"] != "ok"]
        failures += [f"{name}: {r.cc_pair} seed {r.seed}: {r.error}" for r in bad.itertuples()]
        frames.append(rec[rec["status"] == "ok"].assign(variant=name, parameter=param, value=value))
    return pd.concat(frames, ignore_index=True), failures


def _alone(plan: Any) -> Any:
    """The plan with each composed pair `lia+reno` replaced by its coupled controller `lia`,
    kept in the cc_pair column as `lia+alone` so that the tables still split it."""
    axis = plan.axes[0]
    values = tuple((v[0].split("+")[0],) for v in axis.values)
    seen: list[tuple] = []
    for v in values:
        if v not in seen:
            seen.append(v)
    texts = tuple((f'"{v[0]}"',) for v in seen)
    return dataclasses.replace(plan, axes=(dataclasses.replace(axis, values=tuple(seen), texts=texts),))


def summarise(per_run: pd.DataFrame, base: pd.DataFrame) -> pd.DataFrame:
    """sensitivity.csv: per variant (base first) and MPTCP CC, means over runs and path CCs."""
    allr = pd.concat([base.assign(variant="base", parameter="(scenario as shipped)", value=""), per_run],
                     ignore_index=True)
    allr = allr.assign(d1_plus_d2=allr["d1"] + allr["d2"])
    rows = []
    for (variant, param, value), g in allr.groupby(["variant", "parameter", "value"], sort=False):
        for m, gm in g.groupby("mptcp_cc", sort=False):
            # Mean over path CCs of the per-pair means (the paper's "per MPTCP CC" view).
            per_pair = gm.groupby("path_cc")[["tput_av", "v_av", "zeta_av", "d1_plus_d2", "srtt1_av", "srtt2_av"]].mean()
            rows.append({"variant": variant, "parameter": param, "value": value, "mptcp_cc": m, "runs": len(gm),
                         **{c: float(per_pair[c].mean()) for c in per_pair.columns}})
    return pd.DataFrame(rows, columns=list(SENS_COLUMNS))


def order_of(sens: pd.DataFrame, variant: str) -> str:
    g = sens[(sens["variant"] == variant) & sens["mptcp_cc"].isin(["LIA", "OLIA", "BALIA"])]
    g = g.sort_values("tput_av", ascending=False)
    out = ""
    prev = None
    for r in g.itertuples():
        if prev is not None:
            out += " = " if abs(r.tput_av - prev) <= 1e-9 * abs(prev) else " > "
        out += f"{r.mptcp_cc} {r.tput_av:.2f}"
        prev = r.tput_av
    return out


def markdown(sens: pd.DataFrame, runs: int, verdicts: dict[str, str] | None = None) -> str:
    rows = []
    for (variant, param, value), g in sens.groupby(["variant", "parameter", "value"], sort=False):
        by = {r.mptcp_cc: r for r in g.itertuples()}
        cell = lambda col, d=2: " / ".join(  # noqa: E731
            f"{getattr(by[m], col):.{d}f}" if m in by and np.isfinite(getattr(by[m], col)) else "–"
            for m in ("LIA", "OLIA", "BALIA", "wVegas"))
        rows.append([variant, param, value or "–", cell("tput_av"), cell("v_av", 0), cell("zeta_av", 1),
                     cell("d1_plus_d2", 1), order_of(sens, variant),
                     (verdicts or {}).get(variant, "–")])
    return (
        "## Sensitivity: parameters the paper does not state\n\n"
        f"Each row reruns the plan ({runs} runs per pair) with one parameter changed; cells are "
        "LIA / OLIA / BALIA / wVegas, each the mean over the three path CCs of the pairs' means "
        "(throughput av in Mbit/s, v_av and ζ_av in ms, d_1 + d_2 in seg/s). *order* is the "
        "throughput order of LIA, OLIA and BALIA (the paper: BALIA > OLIA > LIA for every path CC); "
        "*claims* counts the verdicts of the claims table on that variant's Table 3. "
        "`coupled-alone` runs the coupled controller without a path controller (`lia`, not "
        "`lia+reno`), so its row has no per-path-CC split (one value per MPTCP CC).\n\n"
        + markdown_table(rows, ["variant", "parameter", "value", "throughput av", "v_av", "ζ_av", "d_1 + d_2",
                                "order (throughput)", "claims H/F/NC"])
    )
