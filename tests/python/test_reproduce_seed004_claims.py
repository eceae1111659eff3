"""Seed 004's findings and published-row answers on synthetic run tables: the published numbers
fed in as "simulated" give back the paper's own percentages (except the three it misprints),
each finding flips with the direction of its numbers, missing values are NOT COMPARABLE, and
the analysis (case means, latency shares, figures, report) runs without the simulator."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mptlab.reproduce.common import FAILS, HOLDS, NOT_COMPARABLE, ReproduceError
from mptlab.reproduce.seed004 import plans as P
from mptlab.reproduce.seed004.claims import claims, comparison
from mptlab.reproduce.seed004.figures import draw_figures, published_value
from mptlab.reproduce.seed004.study import case_summary, load_published, model_table, share_table


@pytest.fixture(scope="module")
def published() -> pd.DataFrame:
    try:
        return load_published()[0]
    except ReproduceError as e:
        pytest.skip(str(e))


def _summ(published: pd.DataFrame, **over: float) -> pd.DataFrame:
    """One row per (case, variant) carrying the published numbers, delivery 100 %."""
    rows = []
    for c in P.CASES:
        for v in ("C-MPTCP", "P-MPTCP"):
            r = {"case": c.name, "variant": v, "delivered_packets": c.nodes * 100, "expected_packets": c.nodes * 100,
                 "hop_delivery_pct": 100.0, "early_delivery_pct": float("nan"), "mean_hops": 2.0,
                 "latency_p50_ms": (50.0 if v == "P-MPTCP" else 100.0) / (2 if c.has_5g else 1)}
            for metric, col in (("tcp_packet_transmissions", "tcp_segments"), ("completion_time", "completion_s"),
                                ("throughput", "throughput_kbps")):
                r[col] = published_value(published, c.name, v, metric)
            rows.append(r)
    s = pd.DataFrame(rows)
    for key, value in over.items():
        case, variant, col = key.split("__")
        s.loc[(s["case"] == case.replace("_", "-")) & (s["variant"] == variant.replace("_", "-")), col] = value
    return s


SHARES = pd.DataFrame({"case": [c.name for c in P.CASES], "share_faster_pct": 85.0})


def _verdicts(summ: pd.DataFrame, shares: pd.DataFrame = SHARES) -> dict[str, str]:
    t = claims(summ, shares)
    return dict(zip(t["item"], t["verdict"]))


def test_published_numbers_in_give_the_papers_percentages_out(published: pd.DataFrame) -> None:
    t = comparison(_summ(published), SHARES, published)
    assert len(t) == 121
    derived = t[t["metric"].str.contains("reduction|improvement") & (t["deployment"] != "conclusion")
                & ~t["metric"].str.startswith("data_packet")]
    misprinted = derived["note"].str.contains("AS PRINTED")
    assert misprinted.sum() == 3
    good = derived[~misprinted]
    assert len(good) == 24
    # every printed percentage the paper computed correctly comes back within its printing: three
    # are cut rather than rounded (22.2 for 22.30, 32.2 for 32.26, 11 for 11.14)
    off = good[(good["simulated"] - good["value"]).abs() > 0.05]
    assert off["value"].tolist() == [32.2, 22.2, 11.0]
    assert ((good["simulated"] - good["value"]).abs() < 0.15).all()
    bad = derived[misprinted]
    assert [round(v, 1) for v in bad["simulated"]] == [49.0, 36.8, 58.5]
    concl = t[t["deployment"] == "conclusion"].set_index("metric")["simulated"]
    assert round(concl["max_tcp_packet_transmission_reduction"], 1) == 39.8  # not the printed 52.5
    assert round(concl["max_data_delivery_time_reduction"], 1) == 64.7  # not the printed 61.5
    assert round(concl["max_throughput_improvement"], 1) == 183.3
    inputs = t[t["kind"] == "input"]
    assert inputs["simulated"].isna().all() and (inputs["deployment"] == "settings").sum() == 18


def test_every_paper_claim_holds_on_the_papers_numbers(published: pd.DataFrame) -> None:
    s = _summ(published, square_corner_50__C_MPTCP__hop_delivery_pct=96.6, square_corner_50__P_MPTCP__hop_delivery_pct=99.8,
              square_center_50__C_MPTCP__hop_delivery_pct=99.9)
    v = _verdicts(s)
    assert v.pop("deliv:square-center-100:early") == NOT_COMPARABLE  # no time series
    assert v.pop("deliv:sunflower-center-100:early") == NOT_COMPARABLE
    assert v.pop("concl:tx") == HOLDS  # 39.8 is within 50 % of 52.5
    assert all(x == HOLDS for x in v.values()), {k: x for k, x in v.items() if x != HOLDS}
    assert len(v) == 43


def test_findings_follow_the_direction_of_the_numbers(published: pd.DataFrame) -> None:
    v = _verdicts(_summ(published, square_center_50__P_MPTCP__tcp_segments=12000.0,
                        square_corner_25_5g__P_MPTCP__completion_s=30.0))
    assert v["square-center-50:tx"] == FAILS and v["square-center-100:tx"] == HOLDS
    assert v["5g:time"] == FAILS and v["5g:floor"] == FAILS and v["square-corner-25-5g:time"] == FAILS
    v = _verdicts(_summ(published), SHARES.assign(share_faster_pct=40.0))
    assert v["square-center-50:latency"] == FAILS
    v = _verdicts(_summ(published, sunflower_center_100__C_MPTCP__tcp_segments=40000.0))
    assert v["sunflower>square:100"] == FAILS and v["sunflower>square:50"] == HOLDS
    # 100 % delivery means at least 99.95 %
    v = _verdicts(_summ(published, square_corner_25__C_MPTCP__hop_delivery_pct=99.9))
    assert v["deliv:square-corner-25"] == FAILS and v["deliv:square-corner-50"] == FAILS  # C not below P there


def test_early_dip_needs_c_below_its_overall_and_below_p(published: pd.DataFrame) -> None:
    s = _summ(published, square_center_100__C_MPTCP__early_delivery_pct=88.0, square_center_100__P_MPTCP__early_delivery_pct=99.0,
              sunflower_center_100__C_MPTCP__early_delivery_pct=99.5, sunflower_center_100__P_MPTCP__early_delivery_pct=99.0)
    v = _verdicts(s)
    assert v["deliv:square-center-100:early"] == HOLDS and v["deliv:sunflower-center-100:early"] == FAILS


def test_missing_cases_are_not_comparable(published: pd.DataFrame) -> None:
    s = _summ(published)
    s = s[s["case"] != "square-corner-25-5g"]
    t = claims(s, SHARES)
    v = dict(zip(t["item"], t["verdict"]))
    assert all(v[k] == NOT_COMPARABLE for k in ("5g:tx", "5g:time", "5g:floor", "square-corner-25-5g:tx"))
    assert v["square-corner-25:tx"] == HOLDS
    assert t.loc[t["item"] == "5g:tx", "detail"].item().startswith("not simulated")
    c = comparison(s, SHARES, published)
    five = c[(c["deployment"] == "square-corner") & (c["has_5g"] == "true") & (c["metric"] != "number_of_5g_nodes")]
    assert five["simulated"].isna().all() and (five["kind"] == "result").all()
    # nothing at all: every finding is NOT COMPARABLE, nothing raises
    empty = claims(pd.DataFrame(columns=s.columns), pd.DataFrame(columns=["case", "share_faster_pct"]))
    assert set(empty["verdict"]) == {NOT_COMPARABLE}


def _runs() -> pd.DataFrame:
    rows = []
    for c in P.CASES[:2]:
        for v in ("C-MPTCP", "P-MPTCP"):
            for seed in (1, 2):
                rows.append({"case": c.name, "variant": v, "seed": seed, "status": "ok", "censored": False,
                             "tcp_segments": 1000.0 * seed + (0 if v == "P-MPTCP" else 500), "completion_s": 30.0 + seed,
                             "delivered_packets": c.nodes * 100.0, "expected_packets": c.nodes * 100.0})
    rows.append({"case": P.CASES[0].name, "variant": "P-MPTCP", "seed": 3, "status": "failed", "error": "boom"})
    return pd.DataFrame(rows)


def test_case_summary_means_ok_runs_and_counts_them() -> None:
    s = case_summary(_runs())
    r = s[(s["case"] == "square-center-50") & (s["variant"] == "P-MPTCP")].iloc[0]
    assert (r["runs"], r["ok"], r["censored"]) == (3, 2, 0)
    assert r["tcp_segments"] == 1500.0 and r["completion_s"] == 31.5
    assert math.isnan(r["mac_attempts"])


def test_case_summary_keeps_the_profiles_apart() -> None:
    runs = pd.concat([_runs().assign(profile="default"),
                      _runs().assign(profile="paper-rto", completion_s=lambda f: f["completion_s"] * 2)], ignore_index=True)
    s = case_summary(runs)
    assert list(s.columns[:3]) == ["profile", "case", "variant"] and len(s) == 8
    key = (s["case"] == "square-center-50") & (s["variant"] == "P-MPTCP")
    assert s.loc[key, ["profile", "completion_s", "runs"]].values.tolist() == [["default", 31.5, 3], ["paper-rto", 63.0, 3]]
    assert (case_summary(_runs())["profile"] == "default").all()  # runs without a profile column


def test_share_table_pairs_variants_by_seed() -> None:
    q = np.round(np.linspace(0, 1, 101), 2)
    rows = []
    for seed, cut in ((1, 0.6), (2, 0.8)):
        rows.append(pd.DataFrame({"q": q, "latency_ms": 100 * q, "case": "x", "variant": "C-MPTCP", "seed": seed}))
        rows.append(pd.DataFrame({"q": q, "latency_ms": np.where(q <= cut, 50 * q, 200 * q), "case": "x", "variant": "P-MPTCP",
                                  "seed": seed}))
    t = share_table(pd.concat(rows))
    assert t["share_faster_pct"].item() == pytest.approx(70.0) and t["seeds"].item() == 2


def test_models_and_figures_and_report_without_the_simulator(published: pd.DataFrame, tmp_path) -> None:
    from mptlab.reproduce.seed004.report import render

    topo = pd.DataFrame([{"case": "square-center-50", "seed": 1, "draws": 1, "range_m": 100.0, "mean_hops": 2.4,
                          "max_rank": 3, "paths_per_node": 1.9, "g5": ""}])
    m = model_table(topo)
    rtt = m[m["model"] == "rtt_idle"]["value"].item()
    from mptlab.models.rtt import rtt_idle

    assert rtt == pytest.approx(rtt_idle(1, 2) / 1000)
    assert (m["model"] == "bianchi").sum() == 6
    summ = _summ(published).assign(runs=1, ok=1, censored=0, hop_transmissions=1.0, mac_attempts=1.0)
    q = np.round(np.linspace(0, 1, 101), 2)
    lat = pd.concat([pd.DataFrame({"q": q, "latency_ms": 100 * q * (1 if v == "C-MPTCP" else 0.5), "exact": False,
                                   "case": c.name, "variant": v, "seed": 1}) for c in P.CASES for v in ("C-MPTCP", "P-MPTCP")])
    files = draw_figures(summ, published, lat, pd.DataFrame(), tmp_path, tmp_path / "figures")
    names = {f.name for f in files}
    assert {"bars.png", "latency_cdf.png"} <= names and "delivery_rate.png" not in names
    shares = share_table(lat)
    assert (shares["share_faster_pct"] == 100.0).all()
    table, verdicts = comparison(summ, shares, published), claims(summ, shares)
    ctx = {"command": "x", "version": "0", "reference": "ref", "ok": 14, "total": 14, "runs": 1, "cases": [c.name for c in P.CASES],
           "elapsed_s": 1.0, "dask": None, "range_m": 100.0, "duration": "200s", "has_curves": False,
           "published": published, "figures": ["figures/bars.png"], "failed": []}
    text = render(ctx, summ, shares, table, verdicts, topo, m)
    assert "| square-center 50 | C-MPTCP |" in text and "11998 (11998)" in text
    assert f"Verdicts: {(verdicts['verdict'] == HOLDS).sum()} HOLDS" in text


def test_reproduce_pipeline_with_a_stand_in_for_the_sweep(published: pd.DataFrame, tmp_path, monkeypatch) -> None:
    """The study's orchestration (deploy, route, write scenarios and plans, read summaries, judge,
    draw, report) with the sweep replaced by summaries written here: what the runner gets from
    the simulator is the only thing stood in for."""
    import json
    import tomllib

    from mptlab.reproduce.seed004 import study

    seen = []

    def fake_run_plan(plan_text, folder, workers, dask, progress):
        plan = tomllib.loads(plan_text)
        scen = tomllib.loads(open(plan["base"]).read())
        p = scen["flows"]["n1"]["cc"] == "newreno5"
        tcp = {f["tcp"].get("min_rto", "default") for f in scen["flows"].values()}
        assert len(tcp) == 1  # one profile per scenario
        rto = tcp.pop() == "20s"
        assert rto == plan["name"].endswith("-paper-rto")
        seen.append((plan["name"], len(scen["flows"])))
        # the stand-in's paper-RTO runs: P completes after C (60 s against 50 s), the default runs: P first
        done = (60.0 if p else 50.0) if rto else (15.0 if p else 30.0)
        flows = [{"name": n, "bytes_delivered": 100_000, "completion_time_s": done + i / 10,
                  "sent_packets": 100, "ack_packets_sent": 30 if p else 50,
                  "owd_ms": {"count": 100, "p50": 10.0 if p else 20.0, "p95": 30.0, "p99": 40.0, "max": 50.0}}
                 for i, n in enumerate(scen["flows"])]
        # the pooled delay: P's quantiles below C's
        owd = {"count": 100 * len(flows), "mean": 20.0 if p else 30.0,
               "quantiles": ((5.0 if p else 10.0) + 40.0 * np.linspace(0.0, 1.0, 101)).tolist()}
        (folder / "summaries").mkdir(parents=True, exist_ok=True)
        (folder / "summaries" / "k1.json").write_text(json.dumps({"flows": flows, "links": [], "data_owd_cdf_ms": owd}))
        return pd.DataFrame([{"run_key": "k1", "status": "ok", "error": None, "wall_s": 0.1}])

    monkeypatch.setattr(study, "run_plan", fake_run_plan)
    monkeypatch.setattr(study, "wifi_refusal", lambda: None)
    res = study.reproduce(out=tmp_path / "o", pairs=["square-corner-25", "square-corner-25-5g"], runs=2)
    assert sorted(seen) == sorted((f"seed004-square-corner-25{g}-{v}-s{s}{r}", 25)
                                  for g in ("", "-5g") for v in "pc" for s in (1, 2) for r in ("", "-paper-rto"))
    assert [n for n, _ in seen[:8]] == [n for n, _ in seen if not n.endswith("-paper-rto")]  # the default set runs first
    assert len(res.runs) == 16 and res.failed == 0
    assert res.runs.groupby("profile").size().to_dict() == {"default": 8, "paper-rto": 8}
    v = dict(zip(res.claims["item"], res.claims["verdict"]))
    assert v["square-corner-25:time"] == HOLDS and v["square-corner-25:tx"] == HOLDS and v["square-corner-25:latency"] == HOLDS
    assert v["square-center-50:tx"] == NOT_COMPARABLE
    # the same findings on the paper-RTO set: there P completes after C
    assert res.claims_paper_rto is not None and list(res.claims_paper_rto["item"]) == list(res.claims["item"])
    w = dict(zip(res.claims_paper_rto["item"], res.claims_paper_rto["verdict"]))
    assert w["square-corner-25:time"] == FAILS and w["square-corner-25:tput"] == FAILS and w["square-corner-25:tx"] == HOLDS
    assert w["square-center-50:tx"] == NOT_COMPARABLE
    assert res.claims_paper_rto.loc[res.claims_paper_rto["item"] == "square-corner-25:time", "simulated"].item() == "P 62.4 vs C 52.4"
    o = tmp_path / "o"
    pd.testing.assert_frame_equal(pd.read_csv(o / "claims_paper_rto.csv", keep_default_na=False),
                                  res.claims_paper_rto.astype(str), check_dtype=False)
    for name in ("report.md", "claims.csv", "claims_paper_rto.csv", "comparison.csv", "cases.csv", "runs.csv", "topologies.csv",
                 "models.csv", "figures/bars.png", "figures/latency_cdf.png", "figures/topology-square-corner-25-5g.png",
                 "scenarios/square-corner-25-5g-p-s2.toml", "scenarios/square-corner-25-5g-p-s2-paper-rto.toml",
                 "sweep-square-corner-25-c-s1-paper-rto/summaries/k1.json", "topologies/square-corner-25-s1.json"):
        assert (o / name).is_file(), name
    cases = pd.read_csv(o / "cases.csv")
    assert cases.columns[0] == "profile" and len(cases) == 8
    assert cases.set_index(["profile", "case", "variant"]).loc[("paper-rto", "square-corner-25", "P-MPTCP"), "completion_s"] == \
        pytest.approx(60.0 + 2.4)
    assert set(pd.read_csv(o / "latency.csv")["profile"]) == {"default", "paper-rto"}
    # comparison.csv and the main verdicts: the default set
    row = res.table[(res.table["metric"] == "completion_time") & (res.table["variant"] == "P-MPTCP") & (res.table["has_5g"] == "false")
                    & (res.table["deployment"] == "square-corner") & (res.table["nodes"] == "25")]
    assert row["simulated"].item() == pytest.approx(15.0 + 2.4)
    report = (o / "report.md").read_text()
    assert "## Sensitivity: the paper's RTO bounds (20 s ≤ RTO ≤ 50 s) for both variants" in report
    assert "stay those of the default set" in report
    sec = report.split("## Sensitivity")[1].split("\n## ")[0]
    assert "| square-corner 25 | P-MPTCP | 2/2 | 0 |" in sec and "62.4 (19.0)" in sec  # simulated (published)
    assert "| square-corner-25:time |" in sec and "| FAILS | HOLDS |" in sec  # paper-RTO verdict beside the default one
    # without the sensitivity set: half the runs, no stale claims_paper_rto.csv, no section
    seen.clear()
    res2 = study.reproduce(out=o, pairs=["square-corner-25", "square-corner-25-5g"], runs=2, sensitivity=False)
    assert len(seen) == 8 and not any(n.endswith("-paper-rto") for n, _ in seen)
    assert len(res2.runs) == 8 and res2.claims_paper_rto is None and not (o / "claims_paper_rto.csv").exists()
    assert "## Sensitivity" not in (o / "report.md").read_text() and set(pd.read_csv(o / "cases.csv")["profile"]) == {"default"}
    pd.testing.assert_frame_equal(res2.claims, res.claims)
