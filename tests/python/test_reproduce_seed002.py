"""`mptlab reproduce seed002`: the metric definitions on hand-made data, then the whole pipeline
end to end with 1 run per configuration and 5 s runs (330 runs, well under a minute on 2 cores)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, mptlab
from mptlab.reproduce.seed002_metrics import interruptions, total_delay_ms

PUBLISHED = pd.read_csv(REPO / "reference" / "seed002.csv", dtype=str, keep_default_na=False)


def test_total_delay_is_completion_time_beyond_the_capacity_bound() -> None:
    # 25 Mb on 5 + 50 Mbit/s needs 25e6 / 55e6 s = 454.5 ms; done in 0.8545 s -> 400 ms extra
    assert total_delay_ms(0.8545454545, 3_125_000, 55e6) == pytest.approx(400.0, abs=1e-6)


def test_interruptions_count_stretches_of_empty_bins_inside_the_flow_only() -> None:
    v = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0])  # leading/trailing zeros do not count
    assert interruptions(v, 0.01) == 2
    assert interruptions(v, 0.01, min_gap_s=0.02) == 1  # only the 2-bin gap
    assert interruptions(np.zeros(5), 0.01) == 0


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory: pytest.TempPathFactory):
    from mptlab.reproduce.seed002 import reproduce

    out = tmp_path_factory.mktemp("seed002")
    return reproduce(runs=1, out=out, workers=2, duration="15s")


def test_outputs_exist_and_no_run_failed(reproduction) -> None:
    out: Path = reproduction.out
    assert reproduction.failed == 0
    for name in ("comparison.csv", "comparison.md", "stats.csv", "runs.csv", "report.md"):
        assert (out / name).is_file(), name
    for stem in ("fig4_delay", "fig5_ipat", "fig6_jitter", "fig7_throughput", "fig8_ipat_het",
                 "fig9_throughput_het", "fig10_bytes_over_time"):
        assert (out / "figures" / f"{stem}.png").is_file(), stem


def test_every_published_row_appears_in_the_comparison_in_file_order(reproduction) -> None:
    table = pd.read_csv(reproduction.out / "comparison.csv", dtype=str, keep_default_na=False)
    assert len(table) == len(PUBLISHED) == 92
    for col in ("section", "case", "scheduler", "metric", "statistic"):
        assert list(table[col]) == list(PUBLISHED[col]), col
    assert list(table["published"]) == list(PUBLISHED["value"])
    # every result row (not configuration) has a simulated number
    results = table[table["section"].str.match(r"V-[ABC]-?\d?") & (table["published"] != "")
                    & ~table["metric"].str.contains("path|flow_length|packet_size|simulation_time|data_volume|paths")]
    missing = results[results["simulated"] == ""]
    assert missing.empty, missing[["section", "case", "scheduler", "metric", "statistic"]].to_string()


def test_on_5_plus_50_mbps_the_rtt_aware_schedulers_finish_before_roundrobin(reproduction) -> None:
    # The paper's direction, for the schedulers that share RoundRobin's controller (OLIA). BLP
    # runs under blp-adaptive, a different controller: its completion time is reported next to
    # the others (docs/reproductions.md) and its loss is checked below, not ranked here.
    runs = reproduction.runs
    td = runs[(runs["case"] == "total-delay") & (runs["p2"] == "50-0ms")].set_index("scheduler")["fct_s"]
    for s in ("MinRTT", "BLEST", "ECF"):
        assert td[s] < td["RoundRobin"], f"{s} {td[s]:.3f} s vs RoundRobin {td['RoundRobin']:.3f} s"


def test_blp_adaptive_loses_well_under_half_of_its_packets(reproduction) -> None:
    # The congestion-event backstop of cc/adaptive.rs: without it eqs. (9)-(10) balance near
    # 50 % loss (an earlier version of this reproduction lost about 60 % of BLP's packets).
    # What remains (about 20 % on the homogeneous pairs) is the first slow start's overshoot
    # into the 100-packet queues, with eq. (8)'s smaller packets; tests/quic.rs checks the
    # steady state (under 2 %).
    runs = reproduction.runs
    blp = runs[runs["scheduler"] == "BLP"]
    assert not blp.empty
    assert blp["loss_pct"].max() < 40.0, blp[["case", "p1", "p2", "loss_pct"]].to_string()


def test_homogeneous_blp_ignores_dlambda_since_equal_paths_keep_it_in_minrtt_mode(reproduction) -> None:
    runs = reproduction.runs
    blp = runs[(runs["case"] == "homogeneous") & (runs["scheduler"] == "BLP")]
    assert blp.groupby("p1")["fct_s"].nunique().max() == 1


def test_cross_traffic_counts_interruptions_of_both_flows(reproduction) -> None:
    c = reproduction.runs[reproduction.runs["case"] == "cross"]
    assert len(c) == 18
    assert (c["interruptions_tcp"] >= 0).all() and (c["interruptions_mp"] >= 0).all()
    assert c["interruptions_tcp"].sum() > 0


def test_cli_rejects_an_unknown_case_before_running_anything(tmp_path: Path) -> None:
    r = mptlab("reproduce", "seed002", "--pairs", "nope", "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2
    assert "unknown case" in r.stderr
    assert not (tmp_path / "x").exists()
