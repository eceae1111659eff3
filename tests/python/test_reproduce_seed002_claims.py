"""Seed 002's verdict logic (python/mptlab/reproduce/seed002/claims.py) on hand-made inputs: which
published numbers are comparable, the ±10/25/50 % bands, the claim verdicts, the seeds check and
the sensitivity table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from conftest import REPO
from mptlab.reproduce.seed002.claims import (
    CLAIMS,
    FAILS,
    HOLDS,
    NC,
    agreement,
    all_of,
    band_counts,
    best,
    claim_counts,
    claims,
    equal,
    less,
    seed_report,
    sensitivity,
)

PUBLISHED = pd.read_csv(REPO / "reference" / "seed002.csv", dtype=str, keep_default_na=False)


def test_best_is_strict_and_needs_every_value() -> None:
    assert best({"BLP": 1.0, "MinRTT": 2.0, "ECF": 3.0}, "BLP", lower_better=True) == HOLDS
    assert best({"BLP": 1.0, "MinRTT": 2.0}, "BLP", lower_better=False) == FAILS
    assert best({"BLP": 2.0, "MinRTT": 2.0}, "BLP", lower_better=True) == FAILS  # a tie is not "lowest"
    assert best({"MinRTT": 2.0, "ECF": 1.0}, "BLP", lower_better=True) == NC  # BLP not run
    assert best({"BLP": 1.0, "MinRTT": float("nan")}, "BLP", lower_better=True) == NC


def test_less_equal_and_all_of() -> None:
    assert less(1.0, 2.0) == HOLDS and less(2.0, 1.0) == FAILS and less(None, 1.0) == NC
    assert equal(1001.75, 1001.75) == HOLDS
    assert equal(100.0, 100.9) == HOLDS  # within 1 %
    assert equal(100.0, 102.0) == FAILS
    assert equal(float("nan"), 1.0) == NC
    assert all_of([HOLDS, HOLDS]) == HOLDS
    assert all_of([HOLDS, FAILS, NC]) == FAILS
    assert all_of([HOLDS, NC]) == NC
    assert all_of([]) == NC


def _table(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"section": "V", "case": "c", "scheduler": "BLP", "metric": m, "statistic": "mean",
                          "published": p, "simulated": s, "unit": "", "how": "", "note": ""} for m, p, s in rows])


def test_agreement_classifies_rows_and_counts_bands() -> None:
    t = agreement(_table([
        ("file_size", "25", 25.0),                     # configuration: never compared
        ("avg_data_packet_delay", "0.05", 0.054),      # same, +8 %
        ("avg_data_packet_delay", "0.05", 0.06),       # same, +20 %
        ("total_delay_time", "400", 200.0),            # inferred, -50 %
        ("avg_throughput", "0.13", 90.0),              # not comparable: no ratio
        ("avg_inter_packet_arrival_time", "0.049", 0.0004),  # not comparable
        ("tcp_flow_interruptions", "68837", 100.0),    # not comparable
    ]))
    assert list(t["kind"]) == ["config", "same", "same", "inferred", NC, NC, NC]
    assert t.loc[1, "ratio"] == pytest.approx(1.08)
    assert [t.loc[i, "within_10"] for i in (1, 2, 3)] == [1.0, 0.0, 0.0]
    assert [t.loc[i, "within_25"] for i in (1, 2, 3)] == [1.0, 1.0, 0.0]
    assert [t.loc[i, "within_50"] for i in (1, 2, 3)] == [1.0, 1.0, 1.0]  # exactly 50 % is within
    assert all(math.isnan(t.loc[i, "ratio"]) for i in (0, 4, 5, 6))
    assert t.loc[4, "reason"] and t.loc[5, "reason"]
    b = band_counts(t).set_index("kind")
    assert b.loc["all results", "result_rows"] == 6 and b.loc["all results", "compared"] == 3
    assert b.loc["same", "within_10"] == 1 and b.loc["same", "within_25"] == 2
    assert b.loc[NC, "compared"] == 0 and b.loc[NC, "result_rows"] == 3


def test_the_published_file_has_55_results_and_every_one_is_classified() -> None:
    t = PUBLISHED.rename(columns={"value": "published"}).assign(simulated=np.nan, how="")
    a = agreement(t)
    res = a[a["kind"] != "config"]
    assert len(res) == 55
    assert set(res["kind"]) <= {"same", "inferred", NC}
    assert (res[res["kind"] == NC]["reason"].str.len() > 20).all()


def _stats(values: dict[tuple[str, str, str], dict[str, float]], stat: str = "mean") -> pd.DataFrame:
    """(case, group, metric) -> {scheduler: value} at Δλ = 0 for BLEST and BLP."""
    rows = []
    for (case, group, metric), per in values.items():
        for sched, v in per.items():
            dl = 0.0 if sched in ("BLP", "BLEST") else None
            rows.append({"case": case, "group": group, "scheduler": sched, "dlambda": dl, "metric": metric,
                         "n": 3, "mean": v, "median": v, "q1": v, "q3": v, "iqr": 0.0, "total": 3 * v})
    return pd.DataFrame(rows)


def _verdict(table: pd.DataFrame, cid: str) -> str:
    return table.set_index("id").loc[cid, "verdict"]


def test_claims_follow_the_numbers() -> None:
    six = ("RoundRobin", "MinRTT", "BLEST", "ECF", "Peekaboo", "BLP")
    delay_blp_best = dict(zip(six, (0.0600, 0.055, 0.06, 0.07, 0.055, 0.0514)))
    td = dict(zip(six, (1208.92, 408.92, 384.97, 454.92, 408.92, 382.77)))  # the paper's own numbers
    td_blp_worst = dict(td, BLP=3000.0)
    stats = _stats({("homogeneous", "all", "delay_s"): delay_blp_best,
                    ("total-delay", "50-0ms", "total_delay_ms"): td})
    t = claims(stats, pd.DataFrame({"case": []}))
    assert len(t) == len(CLAIMS) and t["id"].is_unique
    assert _verdict(t, "A3") == HOLDS and _verdict(t, "V-A-1a") == HOLDS
    assert _verdict(t, "V-A-1b") == HOLDS  # MinRTT = Peekaboo
    # the paper's own 5+50 numbers satisfy every ordering it states about them
    for cid in ("V-B-5a", "V-B-5b", "V-B-5c", "V-B-5d", "V-B-5e"):
        assert _verdict(t, cid) == HOLDS, cid
    assert _verdict(t, "A4") == NC  # no heterogeneous runs
    assert _verdict(t, "A5") == NC and _verdict(t, "V-C") == NC
    t2 = claims(_stats({("total-delay", "50-0ms", "total_delay_ms"): td_blp_worst}), pd.DataFrame({"case": []}))
    assert _verdict(t2, "V-B-5a") == FAILS
    assert _verdict(t2, "V-B-5e") == FAILS  # BLP, not RoundRobin, is now the slowest
    # a strict ordering that holds by 0.02 % still holds, but says it is a near-tie
    near = _stats({("total-delay", "5-50ms", "total_delay_ms"): {"BLEST": 2940.98, "MinRTT": 2941.49}})
    t3 = claims(near, pd.DataFrame({"case": []})).set_index("id")
    assert t3.loc["V-A-5c", "verdict"] == HOLDS and "near-tie" in t3.loc["V-A-5c", "simulated"]
    assert "near-tie" not in t.set_index("id").loc["V-B-5b", "simulated"]  # 384.97 vs 408.92: 6 %
    counts = claim_counts(t)
    assert sum(counts["§V orderings"].values()) == int(t["source"].str.startswith("§V").sum())


def test_claim_ids_cover_abstract_conclusion_and_section_v() -> None:
    sources = {s for _, s, _, _ in CLAIMS}
    assert {"abstract", "conclusion"} <= sources
    assert sum(s.startswith("§V") for _, s, _, _ in CLAIMS) >= 29


def _runs(rows: list[dict]) -> pd.DataFrame:
    base = {"case": "total-delay", "scheduler": "MinRTT", "dlambda": np.nan, "p1": "5-50ms", "p2": "50-0ms",
            "file_size": "3125000B", "payload": "1472B", "fc_window_B": 131072.0, "queue": "100p",
            "fct_s": 1.0, "bytes_delivered": 3125000.0, "delay_s": 0.05, "ipat_s": 0.001, "random_losses": 0.0,
            "total_delay_ms": 500.0}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_seed_report_counts_configurations_whose_seeds_are_identical() -> None:
    ok = _runs([
        {"seed": 1}, {"seed": 2}, {"seed": 3},  # MinRTT: no loss drawn, three identical runs
        {"scheduler": "ECF", "seed": 1}, {"scheduler": "ECF", "seed": 2, "fct_s": 1.2, "random_losses": 1.0},
        {"scheduler": "ECF", "seed": 3},
    ])
    r = seed_report(ok).set_index("case").loc["total-delay"]
    assert r["configurations"] == 2 and r["seeds"] == 3
    assert r["all_seeds_identical"] == 1
    assert r["mean_distinct_outcomes"] == pytest.approx(1.5)
    assert r["runs_without_random_loss"] == 5 and r["random_losses_per_run"] == pytest.approx(1 / 6)


def test_sensitivity_tabulates_each_window_and_counts_identical_schedulers() -> None:
    rows = []
    for win in (65536.0, 16e6):
        for i, s in enumerate(("RoundRobin", "MinRTT", "BLEST", "ECF", "Peekaboo", "BLP")):
            # with the large window every OLIA scheduler gives the same run; BLP is always fastest
            fct = 0.5 if s == "BLP" else (1.0 if win > 1e6 else 1.0 + i / 10)
            rows.append({"case": "sensitivity", "scheduler": s, "fc_window_B": win, "seed": 1, "fct_s": fct,
                         "total_delay_ms": fct * 1000 - 455})
    t = sensitivity(_runs(rows)).set_index("fc_window")
    assert list(t.index) == ["65536B", "16MB"]
    assert t.loc["65536B", "distinct_schedulers"] == 6
    assert t.loc["16MB", "distinct_schedulers"] == 2
    assert (t["BLP_lowest"] == HOLDS).all()
    assert t.loc["65536B", "paper_worst_is_worst"] == FAILS  # Peekaboo, not RoundRobin, is slowest
    assert t.loc["65536B", "ranking"].startswith("BLP < RoundRobin")
