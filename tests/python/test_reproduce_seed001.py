"""`mptlab reproduce seed001`: the Table 3 statistics on hand-made data with known answers, and
the whole pipeline end to end with 2 runs per pair (24 runs of 10 s, a few seconds)."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, mptlab
from mptlab.reproduce.common import permutation_p, spearman
from mptlab.reproduce.seed001.compare import pair_effect_p, peak_times, trend
from mptlab.reproduce.seed001.figures import FIGURES, figtext_comparison
from mptlab.reproduce.seed001.table import (
    PAIRS,
    RUN_COLUMNS,
    STATS,
    markdown,
    run_record,
    table3,
    with_published,
)

PUBLISHED = pd.read_csv(REPO / "reference" / "seed001.csv")
FIGTEXT = pd.read_csv(REPO / "reference" / "seed001_figtext.csv")


def _runs(rows: list[dict]) -> pd.DataFrame:
    """Per-run records with every metric column; unspecified metrics are 1.0."""
    return pd.DataFrame([{**{c: 1.0 for c in RUN_COLUMNS}, **r} for r in rows])


def _cell(table: pd.DataFrame, m: str, p: str, metric: str, statistic: str) -> float:
    row = table[(table.mptcp_cc == m) & (table.path_cc == p) & (table.metric == metric)
                & (table.statistic == statistic)]
    assert len(row) == 1
    return float(row["simulated"].iloc[0])


# --- the statistics (eq. 5, 6, 10, 11) on a small frame with known answers ------------------


def test_protocol_delay_statistics_are_means_over_runs_of_per_run_mean_and_max() -> None:
    runs = _runs([
        {"mptcp_cc": "LIA", "path_cc": "Reno", "v_av": 90.0, "v_max": 200.0},
        {"mptcp_cc": "LIA", "path_cc": "Reno", "v_av": 100.0, "v_max": 300.0},
        {"mptcp_cc": "LIA", "path_cc": "Reno", "v_av": 110.0, "v_max": 700.0},
        {"mptcp_cc": "OLIA", "path_cc": "BBR", "v_av": 50.0, "v_max": 60.0},
    ])
    t = table3(runs)
    assert _cell(t, "LIA", "Reno", "protocol_delay", "v_av") == pytest.approx(100.0)  # eq. (5)
    # eq. (6): the mean of the per-run maxima (400), not the largest maximum (700)
    assert _cell(t, "LIA", "Reno", "protocol_delay", "v_max") == pytest.approx(400.0)
    assert _cell(t, "OLIA", "BBR", "protocol_delay", "v_max") == pytest.approx(60.0)


def test_hol_zeta_max_clips_each_run_at_zero_before_averaging_but_zeta_av_does_not() -> None:
    runs = _runs([
        {"mptcp_cc": "BALIA", "path_cc": "Cubic", "zeta_av": -6.0, "zeta_max": -5.0},
        {"mptcp_cc": "BALIA", "path_cc": "Cubic", "zeta_av": 3.0, "zeta_max": 10.0},
        {"mptcp_cc": "BALIA", "path_cc": "Cubic", "zeta_av": 6.0, "zeta_max": 20.0},
    ])
    t = table3(runs)
    assert _cell(t, "BALIA", "Cubic", "hol_degree", "zeta_av") == pytest.approx(1.0)  # eq. (10)
    # eq. (11): (max(-5,0) + 10 + 20) / 3 = 10, where a plain mean would give 25/3
    assert _cell(t, "BALIA", "Cubic", "hol_degree", "zeta_max") == pytest.approx(10.0)


def test_every_other_statistic_is_the_mean_over_runs_and_missing_values_are_left_out() -> None:
    runs = _runs([
        {"mptcp_cc": "wVegas", "path_cc": "BBR", "srtt1_max": 90.0, "d2": 1.0, "tput_av": 5.0, "tput_max": 12.0},
        {"mptcp_cc": "wVegas", "path_cc": "BBR", "srtt1_max": 110.0, "d2": 2.0, "tput_av": float("nan"), "tput_max": 14.0},
    ])
    t = table3(runs)
    assert _cell(t, "wVegas", "BBR", "srtt_path1", "max") == pytest.approx(100.0)
    assert _cell(t, "wVegas", "BBR", "drop_rate", "d2") == pytest.approx(1.5)
    assert _cell(t, "wVegas", "BBR", "throughput", "av") == pytest.approx(5.0)  # NaN run left out
    assert _cell(t, "wVegas", "BBR", "throughput", "max") == pytest.approx(13.0)
    counts = t.set_index(["metric", "statistic"])["runs"]
    assert counts[("throughput", "av")] == 1 and counts[("throughput", "max")] == 2


def test_run_record_reads_the_mptcp_block_with_paths_in_index_order() -> None:
    summary = {"flows": [
        {"name": "other", "mptcp": None},
        {"name": "stream", "goodput_mbps": {"mean": 7.5, "max": 16.0},
         "mptcp": {
             "protocol_delay_ms": {"v_av": 95.0, "v_max": 230.0},
             "hol_degree_ms": {"zeta_av": -3.0, "zeta_max": None}},
         "paths": [
             {"index": 1, "srtt_ms_mean": 57.0, "srtt_ms_max": 88.0, "drop_rate_per_s": 1.0},
             {"index": 0, "srtt_ms_mean": 79.0, "srtt_ms_max": 94.0, "drop_rate_per_s": 0.5},
         ]},
    ]}
    rec = run_record(summary, "stream")
    assert rec["srtt1_av"] == 79.0 and rec["srtt2_av"] == 57.0 and rec["d1"] == 0.5 and rec["d2"] == 1.0
    assert rec["v_av"] == 95.0 and rec["zeta_av"] == -3.0 and math.isnan(rec["zeta_max"])
    assert rec["tput_av"] == 7.5 and rec["tput_max"] == 16.0


def test_published_join_keeps_all_144_cells_and_the_markdown_has_the_papers_shape() -> None:
    runs = _runs([{"mptcp_cc": "LIA", "path_cc": "Reno"}])
    t = with_published(table3(runs), PUBLISHED)
    assert list(t.columns) == ["mptcp_cc", "path_cc", "metric", "statistic", "simulated", "published", "unit"]
    assert len(t) == 144 and t["published"].notna().all()
    assert t["simulated"].notna().sum() == len(STATS)  # one pair simulated, the rest NaN
    md = markdown(with_published(table3(_runs([
        {"mptcp_cc": m, "path_cc": p} for m, p in {(r.mptcp_cc, r.path_cc) for r in PUBLISHED.itertuples()}
    ])), PUBLISHED)).splitlines()
    assert len(md) == 2 + len(STATS)
    header = [c.strip() for c in md[0].strip("|").split("|")]
    assert header[0] == "metric" and len(header) == 1 + len(PAIRS)
    assert header[1:4] == ["LIA / Reno", "LIA / Cubic", "LIA / BBR"] and header[-1] == "wVegas / BBR"
    assert "1 (96)" in md[2]  # cells are "simulated (published)"


def test_spearman_and_its_exact_permutation_p_value() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 2, 3], [5, 5, 5]))
    # n = 4: 2 of the 24 orderings reach |rho| = 1
    assert permutation_p([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(2 / 24)
    x = np.arange(12.0)
    assert permutation_p(x, x) < 0.001


def test_pair_effect_test_blocks_by_seed() -> None:
    stat = next(s for s in STATS if s.column == "tput_av")
    pairs = [("LIA", "Reno"), ("OLIA", "Reno"), ("BALIA", "Reno"), ("wVegas", "Reno")]
    # a large seed effect and no pair effect: nothing to tell apart
    same = _runs([{"mptcp_cc": m, "path_cc": p, "seed": s, "tput_av": 10.0 * s}
                  for s in range(1, 7) for m, p in pairs])
    assert pair_effect_p(same, stat) == pytest.approx(1.0)
    # a small pair effect under the same seed effect: told apart, since seeds are blocks
    shifted = same.assign(tput_av=same["tput_av"] + 0.1 * same["mptcp_cc"].map({"LIA": 0, "OLIA": 1, "BALIA": 2, "wVegas": 3}))
    assert pair_effect_p(shifted, stat) < 0.01


def test_trend_and_peak_times_on_known_series() -> None:
    rows = []
    for seed, (early, late) in {1: (10.0, 4.0), 2: (20.0, 8.0)}.items():
        rows += [{"mptcp_cc": "LIA", "path_cc": "Reno", "seed": seed, "t_s": float(t),
                  "value": early if t < 2 else late if t >= 5 else 99.0} for t in range(10)]
    frame = pd.DataFrame(rows)
    tr = trend(frame)
    assert tr["early"].iloc[0] == pytest.approx(15.0) and tr["late"].iloc[0] == pytest.approx(6.0)
    # the maximum (99) of both runs lies at t = 2..4 s, after the first 2 s
    assert peak_times(frame) == 0.0
    assert peak_times(frame.assign(value=-frame["t_s"])) == 1.0


# --- the pipeline, end to end ---------------------------------------------------------------


@pytest.fixture(scope="module")
def repro(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("repro") / "seed001"
    res = mptlab("reproduce", "seed001", "--runs", "2", "--out", str(out), "-j", "2", "-q")
    assert res.returncode == 0, res.stderr
    return out


def test_table3_csv_has_a_simulated_number_for_every_published_cell(repro: Path) -> None:
    t = pd.read_csv(repro / "table3.csv")
    assert list(t.columns) == ["mptcp_cc", "path_cc", "metric", "statistic", "simulated", "published", "unit"]
    assert len(t) == 144
    assert t["simulated"].notna().all(), t[t["simulated"].isna()]
    keys = ["mptcp_cc", "path_cc", "metric", "statistic", "value"]
    pub = t.rename(columns={"published": "value"})[keys].sort_values(keys[:4]).reset_index(drop=True)
    ref = PUBLISHED[keys].sort_values(keys[:4]).reset_index(drop=True)
    pd.testing.assert_frame_equal(pub, ref, check_dtype=False)
    runs = pd.read_csv(repro / "runs.csv")
    assert len(runs) == 24 and (runs["status"] == "ok").all()
    assert set(runs["cc_pair"]) == set(PAIRS)


def test_table3_markdown_has_twelve_pair_columns_and_twelve_metric_rows(repro: Path) -> None:
    lines = [ln for ln in (repro / "table3.md").read_text().splitlines() if ln.startswith("|")]
    assert len(lines) == 2 + 12
    assert all(len(ln.strip("|").split("|")) == 13 for ln in lines)


def test_figures_3_and_4_are_valid_png_and_svg_with_six_axes_each(repro: Path) -> None:
    assert [stem for stem, *_ in FIGURES] == ["fig3", "fig4"]
    for stem in ("fig3", "fig4"):
        png = repro / "figures" / f"{stem}.png"
        svg = repro / "figures" / f"{stem}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
        root = ET.parse(svg).getroot()
        assert root.tag.endswith("svg"), svg
        # matplotlib writes one <g id="axes_N"> per Axes: 3 path CCs x 2 quantities
        axes = [g for g in root.iter() if g.tag.endswith("}g") and re.fullmatch(r"axes_\d+", g.get("id", ""))]
        assert len(axes) == 6, (svg, len(axes))


def test_figtext_comparison_on_known_series() -> None:
    rows = []
    for m in ("LIA", "OLIA", "BALIA", "wVegas"):
        for p in ("Reno", "Cubic", "BBR"):
            for k in range(11):
                t = k / 10
                rows += [
                    {"mptcp_cc": m, "path_cc": p, "seed": 1, "series": "srtt_ms", "entity": "s/path0", "t_s": t,
                     "value": 80.0 + (10.0 if k % 2 else -10.0)},  # peak-to-peak 20 -> ±10
                    {"mptcp_cc": m, "path_cc": p, "seed": 1, "series": "protocol_delay_ms", "entity": "s", "t_s": t,
                     "value": 60.0 + 10.0 * k},  # 60..160, mean 110
                    {"mptcp_cc": m, "path_cc": p, "seed": 1, "series": "hol_degree_ms", "entity": "s", "t_s": t,
                     "value": 5.0 * k + (20.0 if (m, p) == ("LIA", "Reno") else 0.0)},
                ]
    frame = pd.DataFrame(rows)
    runs = pd.DataFrame([{"mptcp_cc": m, "path_cc": p, "seed": s, "zeta_av": 10.0, "zeta_max": 50.0 * s}
                         for m in ("LIA", "OLIA", "BALIA", "wVegas") for p in ("Reno", "Cubic", "BBR") for s in (1, 4)])
    got = figtext_comparison(FIGTEXT, frame, "s", runs, {"Reno": 1, "Cubic": 1, "BBR": 1})
    assert len(got) == len(FIGTEXT)
    by = {(q.split(":")[0]): v for q, v in zip(got["quoted"], got["measured"])}
    assert by["srtt_fluctuation_first_lte approx_plus_minus"] == pytest.approx(10.0)
    assert by["protocol_delay approx_mean"] == pytest.approx(110.0)
    assert by["protocol_delay single_peak"] == pytest.approx(160.0)
    assert by["protocol_delay occasional_peak"] == pytest.approx(160.0)
    peaks = got[got["quoted"].str.startswith("hol_degree peak")].set_index("figure")["measured"]
    assert peaks["Fig4a"] == pytest.approx(70.0) and peaks["Fig4c"] == pytest.approx(50.0)
    assert by["hol_degree other_runs_factor_max"] == pytest.approx(200.0 / 50.0)
    assert by["hol_degree approx_average"] == pytest.approx(10.0)
    assert np.isnan(by["srtt_fluctuation_second_lte max_plus_minus"])  # no path-2 series given


def test_report_has_one_figtext_row_with_a_number_per_quoted_value(repro: Path) -> None:
    report = (repro / "report.md").read_text()
    section = report[report.index("## Values the text reads off Figs. 3–4"):]
    section = section.split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| ") and not ln.startswith("| §")]
    assert len(rows) == len(FIGTEXT)
    for ln, ref in zip(rows, FIGTEXT.itertuples()):
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert cells[0] == ref.section and cells[1] == ref.figure
        assert f"{ref.metric} {ref.statistic}" in cells[3]
        assert math.isfinite(float(cells[4])), ln


def test_report_compares_the_ordering_for_every_metric(repro: Path) -> None:
    report = (repro / "report.md").read_text()
    assert "## Ordering" in report and "Spearman" in report
    for s in STATS:
        assert report.count(s.label) >= 3, s.label  # Table 3, ordering, levels
    assert "--runs 2" in report and not re.search(r"\bnan\b", report, re.IGNORECASE)
    assert (repro / "sweep-report.html").is_file()


def test_rerunning_skips_the_runs_and_gives_the_same_table(repro: Path) -> None:
    before = (repro / "table3.csv").read_bytes()
    res = mptlab("reproduce", "seed001", "--runs", "2", "--out", str(repro), "-q")
    assert res.returncode == 0, res.stderr
    assert (repro / "table3.csv").read_bytes() == before


def test_unknown_study_exits_2_listing_the_known_ones(tmp_path: Path) -> None:
    res = mptlab("reproduce", "seed042", "--out", str(tmp_path / "x"))
    assert res.returncode == 2
    assert "unknown study" in res.stderr and "seed001" in res.stderr
    assert not (tmp_path / "x").exists()


def test_missing_published_numbers_exit_2_and_run_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPTLAB_REFERENCE", str(tmp_path / "nowhere"))
    res = mptlab("reproduce", "seed001", "--runs", "1", "--out", str(tmp_path / "x"))
    assert res.returncode == 2
    assert "seed001.csv" in res.stderr and "MPTLAB_REFERENCE" in res.stderr
    assert not (tmp_path / "x").exists()


def test_unknown_pair_exits_2(tmp_path: Path) -> None:
    res = mptlab("reproduce", "seed001", "--runs", "1", "--pairs", "lia+vegas", "--out", str(tmp_path / "x"))
    assert res.returncode == 2 and "lia+reno" in res.stderr
    assert not (tmp_path / "x").exists()


# --- the claims table (seed001/claims.py) ---------------------------------------------------

from mptlab.reproduce.seed001 import claims as claims_mod  # noqa: E402


def _published_as_simulated() -> pd.DataFrame:
    t = PUBLISHED.rename(columns={"value": "published"})
    return t.assign(simulated=t["published"])


def _set(t: pd.DataFrame, m: str, p: str, metric: str, stat: str, value: float) -> pd.DataFrame:
    t = t.copy()
    mask = (t.mptcp_cc == m) & (t.path_cc == p) & (t.metric == metric) & (t.statistic == stat)
    assert mask.sum() == 1
    t.loc[mask, "simulated"] = value
    return t


def test_every_claim_reading_holds_on_the_papers_own_table() -> None:
    c = claims_mod.evaluate(_published_as_simulated())
    testable = c[c["verdict"] != claims_mod.NOT_COMPARABLE]
    assert len(testable) >= 12
    assert (testable["published_holds"] == True).all(), testable[["id", "published"]]  # noqa: E712
    # As simulated cells (unrounded, exact ties count against a claim) the paper's own numbers
    # hold too, except where its printed integers tie: OLIA = BALIA in v_av (A2b), OLIA/Reno =
    # OLIA/BBR in τ_1 + τ_2 (C5).
    failing = set(testable.loc[testable["verdict"] != claims_mod.HOLDS, "id"])
    assert failing == {"A2b", "C5"}, testable[["id", "verdict", "simulated"]]
    # The qualitative claim and the figure-only trend (no trend given) are not comparable.
    assert set(c.loc[c["verdict"] == claims_mod.NOT_COMPARABLE, "id"]) == {"C7", "S2"}
    assert list(c.columns) == list(claims_mod.CLAIM_COLUMNS)


def test_claim_verdicts_follow_the_simulated_cells() -> None:
    t = _published_as_simulated()
    # BALIA/Reno loses the throughput lead to LIA/Reno: C2 fails, and so does S1 (LIA > OLIA).
    t2 = _set(t, "LIA", "Reno", "throughput", "av", 12.0)
    c = claims_mod.evaluate(t2).set_index("id")
    assert c.loc["C2", "verdict"] == claims_mod.FAILS and c.loc["S1", "verdict"] == claims_mod.FAILS
    assert "LIA/Reno 12.00" in c.loc["C2", "simulated"]
    assert c.loc["C2", "published_holds"] == True  # noqa: E712  (the published cells are untouched)
    # An exact tie in the simulated (unrounded) cells: LIA/Reno's d_1 + d_2 equal to LIA/BBR's
    # 1.3 takes C1 away (the runs did not single LIA/BBR out) ...
    t3 = _set(_set(t, "LIA", "Reno", "drop_rate", "d1", 0.3), "LIA", "Reno", "drop_rate", "d2", 1.0)
    assert claims_mod.evaluate(t3).set_index("id").loc["C1", "verdict"] == claims_mod.FAILS
    # ... while the published table's printed ties (OLIA = BALIA = 96.33 ms in v_av) are allowed.
    assert claims_mod.evaluate(t).set_index("id").loc["A2b", "published_holds"] == True  # noqa: E712
    # ... but not when every candidate is equal: nothing stands out.
    t4 = t.copy()
    t4.loc[t4.metric == "throughput", "simulated"] = 20.0
    c4 = claims_mod.evaluate(t4).set_index("id")
    assert c4.loc["A2a", "verdict"] == claims_mod.FAILS and c4.loc["C2", "verdict"] == claims_mod.FAILS
    assert c4.loc["A1", "verdict"] == claims_mod.FAILS  # ratio 1.0 < 1.5
    # A missing simulated cell makes its claims not comparable.
    t5 = _set(t, "BALIA", "BBR", "hol_degree", "zeta_av", float("nan"))
    c5 = claims_mod.evaluate(t5).set_index("id")
    assert c5.loc["C4", "verdict"] == claims_mod.NOT_COMPARABLE and c5.loc["A2c", "verdict"] == claims_mod.NOT_COMPARABLE
    # The trend row from early/late goodput.
    tr = pd.DataFrame({"mptcp_cc": ["LIA", "OLIA", "BALIA"], "path_cc": ["Reno"] * 3,
                       "early": [5.0, 5.0, 9.0], "late": [6.0, 7.0, 8.0]})
    s2 = claims_mod.evaluate(t, tr).set_index("id").loc["S2"]
    assert s2["verdict"] == claims_mod.HOLDS and s2["simulated"].startswith("2 of 3 pairs rise")


def test_bands_count_published_cells_within_10_25_50_percent() -> None:
    t = pd.DataFrame({"mptcp_cc": ["LIA"] * 4, "path_cc": ["Reno"] * 4, "metric": ["m", "m", "m", "n"],
                      "statistic": ["a", "b", "c", "d"], "published": [100.0, 100.0, 100.0, 10.0],
                      "simulated": [109.0, 80.0, 151.0, 5.0], "unit": ["ms"] * 4})
    b = claims_mod.within_bands(t).set_index("metric")
    assert b.loc["m"].tolist() == [3, 1, 2, 2]  # cells, ±10, ±25, ±50 (151 is outside ±50)
    assert b.loc["n"].tolist() == [1, 0, 0, 1]  # 5 against 10: exactly −50 %
    assert b.loc["all"].tolist() == [4, 1, 2, 3]


def test_claims_csv_and_report_sections_from_the_pipeline(repro: Path) -> None:
    c = pd.read_csv(repro / "claims.csv")
    assert list(c.columns) == list(claims_mod.CLAIM_COLUMNS)
    assert set(c["verdict"]) <= {claims_mod.HOLDS, claims_mod.FAILS, claims_mod.NOT_COMPARABLE}
    assert len(c) == len(claims_mod.CLAIMS) + 1
    report = (repro / "report.md").read_text()
    assert "## Claims of the abstract and conclusions" in report
    assert "### Published numbers near the simulated ones" in report
    assert "| all | 144 |" in report
    # Sensitivity: the scenario as shipped and every variant, each with a Table 3 of its own.
    s = pd.read_csv(repro / "sensitivity.csv")
    from mptlab.reproduce.seed001.sensitivity import ALONE, VARIANTS
    assert set(s["variant"]) == {"base", ALONE[0], *(v[0] for v in VARIANTS)}
    assert (s.groupby("variant")["mptcp_cc"].nunique() == 4).all()
    assert "## Sensitivity: parameters the paper does not state" in report


def test_sensitivity_summary_is_the_mean_over_path_ccs_of_pair_means_and_order_marks_ties() -> None:
    from mptlab.reproduce.seed001 import sensitivity as sens

    def rec(m: str, p: str, seed: int, tput: float) -> dict:
        return {"mptcp_cc": m, "path_cc": p, "seed": seed, "tput_av": tput, "v_av": 100.0, "zeta_av": 20.0,
                "d1": 1.0, "d2": 0.5, "srtt1_av": 80.0, "srtt2_av": 57.0}

    # LIA: Reno runs 10 and 20 (pair mean 15), Cubic one run of 30: mean over path CCs 22.5,
    # not the mean over the three runs (20).
    base = pd.DataFrame([rec("LIA", "Reno", 1, 10.0), rec("LIA", "Reno", 2, 20.0), rec("LIA", "Cubic", 1, 30.0),
                         rec("OLIA", "Reno", 1, 22.5), rec("BALIA", "Reno", 1, 5.0)])
    variant = base.assign(variant="loss-0", parameter="LTE random loss p", value="0")
    s = sens.summarise(variant, base)
    row = s[(s.variant == "base") & (s.mptcp_cc == "LIA")].iloc[0]
    assert row["tput_av"] == pytest.approx(22.5) and row["runs"] == 3
    assert row["d1_plus_d2"] == pytest.approx(1.5)
    assert list(s["variant"].unique()) == ["base", "loss-0"]
    assert sens.order_of(s, "base") == "LIA 22.50 = OLIA 22.50 > BALIA 5.00"
    md = sens.markdown(s, 2, {"base": "1/2/3"})
    assert "| base |" in md and "1/2/3" in md and "22.50 / 22.50 / 5.00 / –" in md
