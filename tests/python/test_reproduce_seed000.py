"""`mptlab reproduce seed000`: Jain's index against the published Tables 2 and 11, the metric
definitions on hand-made series, the claims on the published tables, and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, mptlab
from mptlab.reproduce.seed000.claims import CLAIMS, View, claims
from mptlab.reproduce.seed000.metrics import describe, family_bins, family_jitter, jain, jain_cells, run_record
from mptlab.reproduce.seed000.table import cell_column, table_cells

PUBLISHED = pd.read_csv(REPO / "reference" / "seed000.csv", dtype={"table": str})


def _published_means() -> dict[tuple[str, str, str], dict[tuple[str, str], float]]:
    thr = PUBLISHED[(PUBLISHED["metric"] == "throughput") & (PUBLISHED["statistic"] == "mean")
                    & ~PUBLISHED["table"].str.startswith("text")]
    means: dict[tuple[str, str, str], dict[tuple[str, str], float]] = {}
    for r in thr.itertuples():
        means.setdefault((r.scenario, r.pairing), {})[(r.protocol, r.link)] = float(r.value)
    return means


def test_jain_per_link_and_total_reproduce_all_36_published_cells() -> None:
    # shared/reference/check_seed000.py: J over the two family means per link, and over the
    # per-family TN1 + TN2 sums for "total"; 36/36 match to 4 decimals
    means = _published_means()
    printed = PUBLISHED[PUBLISHED["metric"] == "jain_index"]
    assert len(printed) == 36
    for r in printed.itertuples():
        computed = jain_cells(means[(r.scenario, r.pairing)])[r.link]
        assert f"{computed:.4f}" == f"{float(r.value):.4f}", (r.table, r.pairing, r.link, computed)


def test_jain_total_is_not_the_mean_of_the_per_link_indices() -> None:
    # Table 2 BBR-BBR: (0.9728 + 0.9574) / 2 = 0.9651, the table prints the sum-based 0.9655
    cells = jain_cells(_published_means()[("symmetric-embb", "BBR-BBR")])
    assert round(cells["total"], 4) == 0.9655
    assert round((cells["TN1"] + cells["TN2"]) / 2, 4) == 0.9651
    assert jain(100.0, 100.0) == 1.0 and jain(100.0, 0.0) == 0.5
    assert np.isnan(jain(0.0, 0.0))


def test_every_published_cell_maps_to_a_per_run_column() -> None:
    cells = table_cells(PUBLISHED)
    assert len(cells) == 576
    cols = set(cells.apply(cell_column, axis=1))
    assert "thr_MPTCP_TN1_std" in cols and "jit_all_TN2_mean" in cols
    assert "loss_MPQUIC_total_min" in cols and "jain_all_total_value" in cols


def _series(rows: list[tuple[str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["series", "entity", "t_s", "value"])


def test_throughput_sums_a_familys_groups_per_bin_after_the_warm_up() -> None:
    s = _series([
        ("link_group_mbps", "tn1:mptcp-high", 0.0, 999.0),  # warm-up bin, left out
        ("link_group_mbps", "tn1:mptcp-high", 1.0, 100.0),
        ("link_group_mbps", "tn1:mptcp-low", 1.0, 10.0),
        ("link_group_mbps", "tn1:mptcp-high", 2.0, 200.0),
        ("link_group_mbps", "tn1:mptcp-low", 2.0, 30.0),
        ("link_group_mbps", "tn1:mpquic-high", 1.0, 7.0),  # the other family
        ("link_group_mbps", "tn2:mptcp-high", 1.0, 5.0),  # the other link
    ])
    bins = family_bins(s, "link_group_mbps", "tn1", "MPTCP", warmup=1.0)
    assert bins.to_dict() == {1.0: 110.0, 2.0: 230.0}
    d = describe(bins.to_numpy())
    assert d == {"min": 110.0, "max": 230.0, "mean": 170.0, "std": 60.0}  # population σ


def test_protocol_jitter_weights_a_familys_groups_by_their_packets_on_the_link() -> None:
    s = _series([
        ("link_group_subflow_jitter_ms", "tn2:mpquic-high", 1.0, 2.0),
        ("link_group_subflow_jitter_ms", "tn2:mpquic-low", 1.0, 6.0),
        ("link_group_subflow_jitter_ms", "tn2:mptcp-low", 1.0, 50.0),
    ])
    j = family_jitter(s, "link_group_subflow_jitter_ms", "tn2", "MPQUIC", 0.0, {"mpquic-high": 300, "mpquic-low": 100})
    assert j.to_dict() == {1.0: pytest.approx((2.0 * 300 + 6.0 * 100) / 400)}


def test_loss_is_a_distribution_over_the_familys_ues() -> None:
    flows = pd.DataFrame({"group": ["mptcp", "mptcp", "mptcp", "mpquic"], "loss_pct": [0.0, 1.0, 2.0, 4.0]})
    rec = run_record({"links": []}, _series([]), flows, 60.0)
    assert (rec["loss_MPTCP_total_min"], rec["loss_MPTCP_total_max"], rec["loss_MPTCP_total_mean"]) == (0.0, 2.0, 1.0)
    assert rec["loss_MPTCP_total_std"] == pytest.approx(np.sqrt(2 / 3))
    assert rec["loss_MPQUIC_total_mean"] == 4.0 and rec["ues_MPQUIC"] == 1.0
    assert np.isnan(rec["thr_MPTCP_TN1_mean"])  # no series: not simulated, never 0


def test_claims_on_the_published_tables_show_where_text_and_tables_disagree() -> None:
    published = View.published(PUBLISHED)
    c = claims(published, published).set_index("id")
    assert list(c.index) == [cid for cid, *_ in CLAIMS]
    # A15: §4.1's jitter ranking against Table 3 (BBR-BBR is lowest there)
    assert c.at["se-jitter-best", "tables"] == "FAILS"
    assert "BBR-BBR 14.33" in c.at["se-jitter-best", "tables_numbers"]
    # A14: the §4.4 prose and §5's "specialize" follow the text values, not Tables 17/18
    assert c.at["am-quic-tn1", "tables"] == "FAILS" and c.at["c-specialize", "tables"] == "FAILS"
    # the notes' checks hold on the tables
    for cid in ("n-link-jitter-below", "n-link-jitter-magnitude", "n-asym-tn2-ceiling", "se-throughput-best",
                "ae-fair", "se-fair-total", "se-fair-links"):
        assert c.at[cid, "tables"] == "HOLDS", (cid, c.at[cid, "tables_numbers"])


def test_a_claim_without_its_runs_is_not_comparable() -> None:
    empty = View(pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=["scenario", "pairing"])))
    c = claims(empty, View.published(PUBLISHED))
    assert set(c["verdict"]) == {"NOT COMPARABLE"}
    assert c["simulated"].str.startswith("not simulated").all()


@pytest.mark.parametrize("args, message", [
    (["--pairs", "nope"], "unknown scenario"),
    (["--pairs", "mixed:CUBIC-BBR"], "unknown pairing"),
    (["--scale", "0"], "--scale: must be above 0"),
    (["--scale", "-0.5"], "--scale: must be above 0"),
])
def test_cli_rejects_bad_input_before_running_anything(tmp_path: Path, args: list[str], message: str) -> None:
    r = mptlab("reproduce", "seed000", *args, "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert not (tmp_path / "x").exists()


def test_scale_is_refused_for_a_study_that_cannot_use_it(tmp_path: Path) -> None:
    r = mptlab("reproduce", "seed001", "--scale", "2", "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2 and "--scale: not available for seed001" in r.stderr


# --- end to end: one scaled-down mMTC case (120 devices) and one eMBB case, 3 s runs ---

CASES = ["symmetric-mmtc:CUBIC-BBR", "asymmetric-embb:BBR-CUBIC"]


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory: pytest.TempPathFactory):
    from mptlab.reproduce.seed000 import reproduce

    out = tmp_path_factory.mktemp("seed000")
    return reproduce(runs=1, out=out, workers=2, duration="3s", scale=0.01, pairs=CASES)


def test_outputs_exist_and_no_run_failed(reproduction) -> None:
    out: Path = reproduction.out
    assert reproduction.failed == 0
    for name in ("table.csv", "tables.md", "bands.csv", "claims.csv", "jain.csv", "jitter_sensitivity.csv",
                 "runs.csv", "samples.parquet", "report.md"):
        assert (out / name).is_file(), name
    for sc, pairing in (c.split(":") for c in CASES):
        for panel in ("a-throughput", "b-link-jitter", "c-jitter-tn1", "d-jitter-tn2"):
            assert (out / "figures" / sc / f"{pairing}-{panel}.png").is_file(), (sc, pairing, panel)


def test_the_scale_reaches_the_runs(reproduction) -> None:
    runs = reproduction.runs.set_index("scenario")
    assert runs.at["symmetric-mmtc", "ues_MPTCP"] == 60 and runs.at["symmetric-mmtc", "ues_MPQUIC"] == 60
    assert runs.at["asymmetric-embb", "ues_MPTCP"] == 6  # eMBB groups are never scaled
    assert (reproduction.runs["duration_s"] == 3.0).all()


def test_every_published_cell_is_in_the_table_and_the_run_cases_are_simulated(reproduction) -> None:
    table = pd.read_csv(reproduction.out / "table.csv", dtype={"table": str})
    cells = table_cells(PUBLISHED)
    assert len(table) == len(cells) == 576
    assert list(table["table"]) == list(cells["table"]) and list(table["published"]) == list(cells["value"])
    ran = table.set_index(["scenario", "pairing"]).index.isin([tuple(c.split(":")) for c in CASES])
    mine, others = table[ran], table[~ran]
    assert others["simulated"].isna().all()
    # every cell of the two cases has a value: per case 6 jitter, 16 throughput, 8 loss, and 3 Jain for eMBB
    assert len(mine) == (6 + 16 + 8) * 2 + 3, len(mine)
    # every cell has a value, except that a family may send too little on a link for a
    # per-subflow jitter sample after the warm-up (MPQUIC's minRTT keeps 120 devices on TN1)
    missing = mine[mine["simulated"].isna()]
    assert (missing["metric"] == "jitter").all() and (missing["protocol"] != "all").all(), missing.to_string()
    assert len(missing) <= 2, missing.to_string()
    thr = mine[(mine["metric"] == "throughput") & (mine["statistic"] == "mean")]
    assert (thr["simulated"] > 0).all()
    bands = pd.read_csv(reproduction.out / "bands.csv").set_index("metric")
    assert bands.at["all", "cells"] == 576 and bands.at["all", "simulated"] == len(mine) - len(missing)
    assert bands.at["all", "within_10"] <= bands.at["all", "within_25"] <= bands.at["all", "within_50"]


def test_throughput_and_jain_agree_with_each_other(reproduction) -> None:
    runs = reproduction.runs.set_index("scenario")
    r = runs.loc["asymmetric-embb"]
    means = {(f, l): r[f"thr_{f}_{l}_mean"] for f in ("MPTCP", "MPQUIC") for l in ("TN1", "TN2")}
    assert r["jain_all_total_value"] == pytest.approx(jain_cells(means)["total"])
    # a family's bins never exceed the link's rate (wire Mbit/s)
    assert r["thr_MPTCP_TN1_max"] + r["thr_MPQUIC_TN1_max"] <= 2 * 501.74


def test_claims_judge_the_run_cases_and_leave_the_others_not_comparable(reproduction) -> None:
    c = pd.read_csv(reproduction.out / "claims.csv", keep_default_na=False).set_index("id")
    assert list(c.index) == [cid for cid, *_ in CLAIMS]
    assert set(c["verdict"]) <= {"HOLDS", "FAILS", "NOT COMPARABLE"}
    # a claim on the one pairing that ran gets a verdict with its numbers
    assert c.at["ae-reversal", "verdict"] in ("HOLDS", "FAILS")
    assert c.at["ae-reversal", "simulated"].startswith("BBR-CUBIC MPTCP/MPQUIC TN1 ")
    # a claim over pairings that did not all run cannot be judged
    for cid in ("ae-fair", "sm-mptcp-ahead", "sm-quic-tn2"):
        assert c.at[cid, "verdict"] == "NOT COMPARABLE", cid
        assert c.at[cid, "simulated"].startswith("not simulated: ")
    report = (reproduction.out / "report.md").read_text(encoding="utf-8")
    for heading in ("## Modelling choices", "## How close", "## Findings", "## Disagreements", "## Text values",
                    "## Jain's index", "## Jitter definitions"):
        assert heading in report, heading
