"""Tests of the sim-vs-real comparison and its report (mptlab.emulation.compare and .report,
issue 24). They use real simulator runs of scenarios/mptcp-two-paths.toml, 3 s long: runs of
other seeds, or copies with values scaled by known factors and some nulled, stand in for the
emulation, so every expected ratio is exact. No root and no namespaces are needed."""

from __future__ import annotations

import copy
import json
import math
import statistics
from pathlib import Path
from typing import Any

import markupsafe
import pandas as pd
import pytest

from mptlab import runner
from mptlab.emulation.compare import COLUMNS, NOTES, compare, metrics
from mptlab.emulation.report import Case, stack_timeseries, write_report

REPO = Path(__file__).resolve().parents[2]
TWO_PATHS = (REPO / "scenarios" / "mptcp-two-paths.toml").read_text()
SHORT = [("run.duration", "3s")]
#: 1 % random loss on path 1 makes runs of different seeds differ.
LOSSY = [*SHORT, ("links.path1.loss", '{ model = "bernoulli", p = 0.01 }')]
#: The scenario's flow, its two paths and its 4 links × 2 directions.
LINKS = ("path1", "path1_server", "path2", "path2_server")


def _run(overrides: list[tuple[str, str]], seed: int, series: bool = False) -> runner.RunOutput:
    return runner.run(TWO_PATHS, overrides, seed=seed, series=series)


@pytest.fixture(scope="module")
def lossless() -> dict[int, runner.RunOutput]:
    return {seed: _run(SHORT, seed, series=True) for seed in (1, 2, 3)}


@pytest.fixture(scope="module")
def lossy() -> dict[int, dict[str, Any]]:
    out = {}
    for seed in (1, 2, 3):
        summary = _run(LOSSY, seed).summary
        assert summary is not None
        out[seed] = summary
    return out


def _summary(out: runner.RunOutput) -> dict[str, Any]:
    assert out.summary is not None
    return out.summary


def _row(frame: pd.DataFrame, entity: str, metric: str) -> pd.Series:
    rows = frame[(frame["entity"] == entity) & (frame["metric"] == metric)]
    assert len(rows) == 1, f"{entity} {metric}: {len(rows)} rows"
    return rows.iloc[0]


def _emulated(summary: dict[str, Any]) -> dict[str, Any]:
    """A copy of `summary` as the emulation would report it, with known differences: goodput
    × 0.5, path 0's share × 1.05, path 1's retransmissions × 2; path 0's SRTT null (the kernel
    did not say), drops of link path2 missing, a flow's completion time null."""
    emu = copy.deepcopy(summary)
    emu["backend"] = "emulation"
    flow = emu["flows"][0]
    flow["goodput_mbps"]["mean"] *= 0.5
    flow["completion_time_s"] = None
    flow["paths"][0]["share"] *= 1.05
    flow["paths"][0]["srtt_ms_mean"] = None
    flow["paths"][1]["retransmissions"] *= 2
    link = next(r for r in emu["links"] if r["name"] == "path2")
    del link["drops"]
    return emu


# ---- metrics ---------------------------------------------------------------------------------


def test_metrics_reads_each_comparable_number_under_its_entity_name(lossless):
    summary = _summary(lossless[1])
    rows = metrics(summary)
    by_key = {(r.entity, r.metric): r for r in rows}
    flow, link = summary["flows"][0], next(r for r in summary["links"] if r["name"] == "path2.rev")
    assert by_key[("flow:mp", "goodput_mbps")].value == flow["goodput_mbps"]["mean"]
    assert by_key[("flow:mp", "goodput_mbps")].unit == "Mbit/s"
    assert by_key[("flow:mp", "bytes_delivered")].value == flow["bytes_delivered"]
    assert by_key[("flow:mp/path1", "share")].value == flow["paths"][1]["share"]
    assert by_key[("flow:mp/path0", "srtt_ms_mean")].value == flow["paths"][0]["srtt_ms_mean"]
    assert by_key[("link:path2.rev", "throughput_mbps")].value == link["throughput_mbps"]["mean"]
    assert by_key[("link:path2.rev", "queue_pkts_mean")].value == link["queue_pkts_mean"]
    # A bulk flow has no completion time (null): left out, not 0. Then 6 flow metrics (goodput,
    # bytes, retransmissions, loss, median one-way delay, mean jitter), 4 per path over 2 paths,
    # 3 per link direction over 8.
    assert flow["completion_time_s"] is None
    assert ("flow:mp", "completion_time_s") not in by_key
    assert len(rows) == 6 + 2 * 4 + 8 * 3
    assert {r.entity for r in rows if r.entity.startswith("link:")} == {
        f"link:{name}{d}" for name in LINKS for d in ("", ".rev")
    }


def test_metrics_skips_nulls_and_missing_keys(lossless):
    emu = _emulated(_summary(lossless[1]))
    emu["flows"][0]["goodput_mbps"] = None  # a Stats block that is null altogether
    keys = {(r.entity, r.metric) for r in metrics(emu)}
    assert ("flow:mp/path0", "srtt_ms_mean") not in keys
    assert ("link:path2", "drops") not in keys
    assert ("flow:mp", "goodput_mbps") not in keys
    assert ("flow:mp/path1", "srtt_ms_mean") in keys
    assert ("link:path1", "drops") in keys


# ---- compare -----------------------------------------------------------------------------------


def test_ratio_is_real_over_sim_and_exact_for_known_factors(lossless):
    sim = _summary(lossless[1])
    frame = compare("two-paths", [sim], [_emulated(sim)])
    assert tuple(frame.columns) == COLUMNS
    assert set(frame["case"]) == {"two-paths"}
    goodput = _row(frame, "flow:mp", "goodput_mbps")
    assert goodput["ratio"] == pytest.approx(0.5, rel=1e-12)
    assert goodput["emu_mean"] == pytest.approx(0.5 * goodput["sim_mean"], rel=1e-12)
    assert not goodput["within"]
    retx = _row(frame, "flow:mp/path1", "retransmissions")
    assert retx["sim_mean"] > 0
    assert retx["ratio"] == pytest.approx(2.0, rel=1e-12)
    assert not retx["within"]
    share = _row(frame, "flow:mp/path0", "share")
    assert share["ratio"] == pytest.approx(1.05, rel=1e-12)
    assert share["within"]
    # Unchanged values agree exactly.
    same = _row(frame, "link:path1", "throughput_mbps")
    assert same["ratio"] == 1.0 and same["within"]
    # Every row carries the note of its metric.
    assert goodput["note"] == NOTES["goodput_mbps"]
    assert retx["note"] == NOTES["retransmissions"]
    assert all(frame["note"] == frame["metric"].map(NOTES))


def test_a_value_only_the_simulator_has_gets_no_ratio_and_is_not_within(lossless):
    sim = _summary(lossless[1])
    frame = compare("two-paths", [sim], [_emulated(sim)])
    for entity, metric in (("flow:mp/path0", "srtt_ms_mean"), ("link:path2", "drops")):
        row = _row(frame, entity, metric)
        assert row["sim_n"] == 1 and row["emu_n"] == 0
        assert math.isnan(row["emu_mean"]) and math.isnan(row["ratio"])
        assert not row["within"]
    # Null on both sides: no row at all.
    assert frame[frame["metric"] == "completion_time_s"].empty


def test_zero_on_both_sides_agrees_and_zero_in_the_simulator_alone_has_no_ratio(lossless):
    sim = _summary(lossless[1])
    emu = copy.deepcopy(sim)
    rev = next(r for r in emu["links"] if r["name"] == "path1.rev")
    assert rev["drops"] == 0 and rev["queue_pkts_mean"] == 0
    rev["queue_pkts_mean"] = 0.25
    frame = compare("two-paths", [sim], [emu])
    drops = _row(frame, "link:path1.rev", "drops")
    assert math.isnan(drops["ratio"]) and drops["within"]
    queue = _row(frame, "link:path1.rev", "queue_pkts_mean")
    assert math.isnan(queue["ratio"]) and not queue["within"]
    assert queue["emu_mean"] == 0.25


def test_runs_of_a_deterministic_scenario_agree_on_every_metric(lossless):
    """Without random loss the scenario's runs do not depend on the seed: seeds 1 and 2 as
    "sim" and seed 3 as "real" give ratio 1 (or both 0) everywhere."""
    frame = compare("same", [_summary(lossless[1]), _summary(lossless[2])], [_summary(lossless[3])])
    assert len(frame) == 6 + 2 * 4 + 8 * 3
    assert frame["within"].all()
    assert ((frame["ratio"] == 1.0) | ((frame["sim_mean"] == 0) & (frame["emu_mean"] == 0))).all()
    assert (frame["sim_n"] == 2).all() and (frame["emu_n"] == 1).all()
    assert (frame["sim_std"] == 0).all() and frame["emu_std"].isna().all()


def test_means_and_stds_are_over_seeds(lossy):
    sims, emu = [lossy[1], lossy[2]], [lossy[3]]
    frame = compare("lossy", sims, emu)
    values = [s["flows"][0]["goodput_mbps"]["mean"] for s in sims]
    assert values[0] != values[1]  # the loss draws differ by seed
    goodput = _row(frame, "flow:mp", "goodput_mbps")
    assert goodput["sim_n"] == 2 and goodput["emu_n"] == 1
    assert goodput["sim_mean"] == pytest.approx(statistics.mean(values), rel=1e-12)
    assert goodput["sim_std"] == pytest.approx(statistics.stdev(values), rel=1e-12)
    real = lossy[3]["flows"][0]["goodput_mbps"]["mean"]
    assert goodput["ratio"] == pytest.approx(real / statistics.mean(values), rel=1e-12)
    assert goodput["within"] == (0.9 <= goodput["ratio"] <= 1.1)
    retx = [s["flows"][0]["paths"][0]["retransmissions"] for s in sims]
    row = _row(frame, "flow:mp/path0", "retransmissions")
    assert row["sim_mean"] == pytest.approx(statistics.mean(retx), rel=1e-12)


def test_rows_only_the_emulation_has_come_last(lossless):
    sim = _summary(lossless[1])
    emu = copy.deepcopy(sim)
    emu["links"].append({"name": "extra", "drops": 3, "throughput_mbps": None})
    frame = compare("two-paths", [sim], [emu])
    last = frame.iloc[-1]
    assert (last["entity"], last["metric"], last["emu_mean"], last["sim_n"]) == ("link:extra", "drops", 3.0, 0)
    assert math.isnan(last["ratio"]) and not last["within"]


# ---- report ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report(lossless, tmp_path_factory) -> tuple[Path, list[Case]]:
    sim = [lossless[1], lossless[2]]
    emu_summary = _emulated(_summary(lossless[3]))
    with_series = Case(
        name="two-paths",
        scenario="mptcp-two-paths.toml",
        comparison=compare("two-paths", [_summary(o) for o in sim], [emu_summary]),
        sim_timeseries=stack_timeseries({o.seed: o.timeseries for o in sim}),
        emu_timeseries=lossless[3].timeseries,
    )
    tables_only = Case(
        name="10/3 Mbit/s",
        scenario="simult-10-3.toml",
        comparison=compare("10/3 Mbit/s", [_summary(lossless[1])], [_summary(lossless[2])]),
    )
    out = tmp_path_factory.mktemp("validate")
    path = write_report(out, [with_series, tables_only])
    assert path == out / "report.html"
    return out, [with_series, tables_only]


def test_report_writes_the_csv_of_every_row_of_every_case(report):
    out, cases = report
    csv = pd.read_csv(out / "comparison.csv")
    assert list(csv.columns) == list(COLUMNS)
    assert len(csv) == sum(len(c.comparison) for c in cases)
    assert set(csv["case"]) == {"two-paths", "10/3 Mbit/s"}
    goodput = _row(csv[csv["case"] == "two-paths"], "flow:mp", "goodput_mbps")
    assert goodput["ratio"] == pytest.approx(0.5, rel=1e-9)
    assert not goodput["within"]
    srtt = _row(csv[csv["case"] == "two-paths"], "flow:mp/path0", "srtt_ms_mean")
    assert math.isnan(srtt["ratio"]) and srtt["emu_n"] == 0


def test_report_markdown_has_a_table_per_case_and_the_ratios_outside_the_band(report):
    out, _ = report
    md = (out / "report.md").read_text()
    assert "## two-paths" in md and "## 10/3 Mbit/s" in md
    assert "`mptcp-two-paths.toml`" in md and "2 simulator runs, 1 emulated run" in md
    goodput = next(line for line in md.splitlines() if line.startswith("| goodput_mbps") and "flow:mp |" in line)
    cells = [c.strip() for c in goodput.strip("|").split("|")]
    assert cells[4:6] == ["0.5", "✗"]
    assert cells[6] == NOTES["goodput_mbps"]
    share = next(line for line in md.splitlines() if line.startswith("| share") and "flow:mp/path0 |" in line)
    assert [c.strip() for c in share.strip("|").split("|")][4:7] == ["1.05", "", ""]
    # The list of ratios outside 0.9–1.1: exactly goodput (0.5) and path 1's retransmissions (2)
    # in the first case, none in the second.
    first, second = md.split("## 10/3 Mbit/s")
    listed = [line for line in first.splitlines() if line.startswith("- ")]
    assert listed == [
        f"- flow:mp goodput_mbps: 0.5 — {NOTES['goodput_mbps']}",
        f"- flow:mp/path1 retransmissions: 2 — {NOTES['retransmissions']}",
    ]
    assert "outside 0.9–1.1\n\nnone" in second
    assert "![two-paths bars](two-paths_bars.png)" in md


def test_report_html_embeds_tables_and_figures(report):
    out, _ = report
    html = (out / "report.html").read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "two-paths" in html and "10/3 Mbit/s" in html
    assert "<table" in html and "table.data" in html  # the sweep report's stylesheet
    assert "<td>0.5</td>" in html and "<td>1.05</td>" in html
    assert str(markupsafe.escape(NOTES["retransmissions"])) in html  # escaped as jinja2 escapes
    # Case 1: bars and goodput over time; case 2: bars only.
    assert html.count("data:image/svg+xml;base64,") == 3
    assert "two-paths_goodput.svg" in html and "10_3_Mbit_s_bars.svg" in html


def test_report_figures_are_written_as_png_and_svg(report):
    out, _ = report
    for stem in ("two-paths_bars", "two-paths_goodput", "10_3_Mbit_s_bars"):
        assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()[:2000]
    # No time series in the second case: no goodput-over-time figure.
    assert not (out / "10_3_Mbit_s_goodput.png").exists()
    assert not list(out.glob(".*.tmp"))


def test_stack_timeseries_adds_the_seed_of_each_run(lossless):
    frame = stack_timeseries({o.seed: o.timeseries for o in lossless.values()})
    assert set(frame["seed"]) == {1, 2, 3}
    one = lossless[1].timeseries
    assert one is not None
    assert (frame["seed"] == 1).sum() == len(one["t_s"])


def test_emulated_summary_round_trips_through_json(lossless):
    """Summaries read back from summary.json (as `mptlab validate` may) compare the same."""
    sim = _summary(lossless[1])
    emu = _emulated(sim)
    direct = compare("c", [sim], [emu])
    read = compare("c", [json.loads(json.dumps(sim))], [json.loads(json.dumps(emu))])
    pd.testing.assert_frame_equal(direct, read)
