"""`mptlab reproduce seed003`: the delay rules of the paper's axes, the relative-DLCT join and
the claims on synthetic rows, the generated plans (current and valid), and the pipeline end to
end on a few seconds of simulation (4 contour points per batch, Fig. 2's bars)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO, mptlab
from mptlab.reproduce.common import FAILS, HOLDS, NOT_COMPARABLE
from mptlab.reproduce.seed003 import plans as P
from mptlab.reproduce.seed003.claims import TCP_ONLY, claims
from mptlab.reproduce.seed003.metrics import network_columns, queue_label, relative_dlct, size_bytes
from mptlab.reproduce.seed003.network import Net, delay_overrides, link_delays, scenarios, tcp_tunnel_refusal
from mptlab.reproduce.seed003.study import load_published, margin_table, table3

PUBLISHED = pd.read_csv(REPO / "reference" / "seed003.csv", dtype={"section": str})


def test_link_delays_split_the_e2e_rtt_as_the_papers_example() -> None:
    # sec. 5: E2E 40 ms, tunnel 25 % -> tunnel RTT 10 ms, proxy-server RTT 30 ms
    d = link_delays(40.0, 0.25)
    assert d == {"wan": 15.0, "proxy_ap": 5.0, "proxy_cell": 5.0}
    assert 2 * d["proxy_ap"] == 10.0 and 2 * d["wan"] == 30.0
    # the asymmetry is extra RTT of path 2: half of it one way
    assert link_delays(40.0, 0.25, 20.0)["proxy_cell"] == 15.0
    assert link_delays(0.0, 0.7) == {"wan": 0.0, "proxy_ap": 0.0, "proxy_cell": 0.0}
    with pytest.raises(ValueError):
        link_delays(40.0, 1.5)
    pairs = dict(delay_overrides(Net(e2e_ms=30.0, share=0.75)))
    assert pairs["links.wan.delay"] == '"3750000ns"' and pairs["links.proxy_ap.delay"] == '"11250000ns"'


def test_fifteen_fig10_scenarios_with_the_documented_modifiers() -> None:
    sc = scenarios()
    assert len(sc) == 15 and list(sc)[0] == "MID"
    assert sc["SHORT"].e2e_ms == 30.0 and sc["LONG-NEAR"].share == 0.25 and sc["SHORT-DIST"].share == 0.75
    assert sc["LONG-ASYM20"].asym_ms == 20.0 and "codel" in sc["SHORT-CDL1"].queue
    assert queue_label(sc["SHORT-BUF250"].queue) == "250p" and queue_label('{"kind": "codel", "limit": "100ms"}') == "codel"


def test_network_columns_read_the_axes_back_from_the_delays() -> None:
    rows = pd.DataFrame({"wan_delay": ["15000000ns", "0ns"], "ap_delay": ["5000000ns", "0ns"],
                         "cell_delay": ["15000000ns", "0ns"], "queue": ['{"kind": "droptail", "limit": "1000p"}'] * 2})
    out = network_columns(rows)
    assert out["e2e_ms"].tolist() == [40.0, 0.0]
    assert out["share"].tolist() == [0.25, 0.0]
    assert out["asym_ms"].tolist() == [20.0, 0.0]
    assert out["buffer"].tolist() == ["1000p", "1000p"]
    assert size_bytes("300MB") == 3e8 and size_bytes("1MiB") == 2**20


def _rows(dlcts: dict[int, float | None], **cols: object) -> list[dict[str, object]]:
    return [{"seed": s, "status": "ok", "completion_time_s": v, "duration_s": 100.0, **cols} for s, v in dlcts.items()]


def test_relative_dlct_is_the_ratio_of_means_over_the_seeds_both_sides_have() -> None:
    net = {"e2e": "tcp", "server_cc": "bbr", "e2e_ms": 40.0, "share": 0.5, "asym_ms": 0.0, "buffer": "100ms"}
    tunnel = pd.DataFrame(
        _rows({1: 30.0, 2: 40.0, 3: 99.0}, tunnel_cc="ccid5", sched="cpf", **net)
        + _rows({1: 50.0, 2: None}, tunnel_cc="ccid2", sched="cpf", **net)
        + [{"seed": 4, "status": "failed", "completion_time_s": None, "tunnel_cc": "ccid5", "sched": "cpf", **net}]
        + _rows({1: 10.0}, tunnel_cc="ccid5", sched="cpf", **{**net, "server_cc": "cubic"}))  # no baseline: dropped
    baseline = pd.DataFrame(_rows({1: 60.0, 2: 80.0, 4: 1.0}, **net))  # seed 3 has no baseline, seed 4 no tunnel run
    rel = relative_dlct(tunnel, baseline, group=("tunnel_cc", "sched"))
    assert len(rel) == 2
    c5 = rel[rel["tunnel_cc"] == "ccid5"].iloc[0]
    assert c5["n"] == 2 and c5["dlct_s"] == 35.0 and c5["baseline_s"] == 70.0 and c5["relative"] == 0.5
    assert math.isclose(c5["relative_std"], pd.Series([30.0, 40.0]).std() / 70.0) and c5["censored"] == 0
    c2 = rel[rel["tunnel_cc"] == "ccid2"].iloc[0]
    # seed 2 never finished: counted at the run length (100 s), flagged as a lower bound
    assert c2["censored"] == 1 and c2["dlct_s"] == 75.0 and math.isclose(c2["relative"], 75.0 / 70.0)


def _fig10(values: dict[tuple[str, str, str, str], float]) -> pd.DataFrame:
    return pd.DataFrame([{"server_cc": s, "tunnel_cc": t, "scenario": sc, "sched": sch, "relative": v, "relative_std": 0.0}
                         for (s, t, sc, sch), v in values.items()])


def test_claims_on_synthetic_rows() -> None:
    fig2 = pd.DataFrame([{"e2e": "udp", "config": "udp-ccid5", "placement": "near", "relative": 0.52},
                         {"e2e": "udp", "config": "udp-ccid5", "placement": "far", "relative": 0.53},
                         {"e2e": "tcp", "config": "bbr-ccid5", "placement": "near", "relative": 1.02},
                         {"e2e": "tcp", "config": "bbr-ccid5", "placement": "far", "relative": 1.0}])
    pts = [(e, s) for e in (5.0, 15.0, 45.0, 80.0) for s in (0.1, 0.5, 0.9)]
    # BBR over CCID2: no aggregation below 40 ms E2E RTT, full above: a divide at 40 ms
    contours = pd.DataFrame([{"batch": "bbr-ccid2", "e2e_ms": e, "share": s, "tunnel_rtt_ms": e * s,
                              "goodput_mbps": 95.0 if e >= 40 else 47.0, "secondary_share": 0.5} for e, s in pts])
    values = {}
    for sc in scenarios():
        values[("bbr", "ccid5", sc, "cpf")] = 0.9
        values[("bbr", "ccid5", sc, "srtt")] = 0.8
    for sc in ("SHORT-NEAR", "LONG-NEAR"):
        values[("bbr", "ccid5", sc, "cpf")] = 0.6
        values[("bbr", "ccid5", sc, "srtt")] = 0.55
    fig10 = _fig10(values)
    out = claims(fig2, contours, fig10, table3(fig10.assign(n=1)), PUBLISHED)
    assert len(out) == len(PUBLISHED) + 3 and out["item"].tolist()[: len(PUBLISHED)] == PUBLISHED["item"].tolist()
    v = out.set_index("item")
    assert v.at["fig2_e2e_udp_relative_download_time", "verdict"] == HOLDS
    assert v.at["fig2_e2e_udp_relative_download_time", "simulated"] == "52.0 / 53.0 %"
    # no BBR-over-BBR bars (TCP-tunnel runs absent): judged on BBR over CCID5 and saying so
    assert v.at["fig2_e2e_tcp_near_proxy", "verdict"] == FAILS and v.at["fig2_e2e_tcp_far_proxy", "verdict"] == HOLDS
    assert "TCP-tunnel runs were not run" in v.at["fig2_e2e_tcp_near_proxy", "detail"]
    assert v.at["fig2_e2e_tcp_near_proxy_ccid5", "simulated"] == "102.0 %"
    assert v.at["fig9c_red_blue_divide_e2e_rtt", "verdict"] == HOLDS and v.at["fig9c_red_blue_divide_e2e_rtt", "simulated"] == "40 ms"
    assert "bbr-ccid2 for bbr-newreno" in v.at["fig9c_red_blue_divide_e2e_rtt", "detail"]
    assert v.at["finding_short_rtt_inhibits", "verdict"] == HOLDS
    assert v.at["finding_srtt_vs_cpf", "verdict"] == HOLDS and v.at["finding_srtt_vs_cpf", "simulated"] == "15/15"
    # 2 of 3 parts comparable: NEAR better than DIST holds, BUF250 "worse than default" is a tie (0.9 vs 0.9): FAILS
    assert v.at["finding_bbr_over_bbr_ccid5", "verdict"] == FAILS
    # BBR-over-CCID5 contour batch absent: not comparable, never a silent pass
    assert v.at["finding_proxy_near_user", "verdict"] == NOT_COMPARABLE
    # no sibling for the BBRv2 and margin claims: NOT COMPARABLE, naming the missing TCP runs
    for item in ("dlct_bbr_tunnel_150ms_margin_vs_single_path", "finding_bbrv2_vs_bbr_tunnel", "finding_bbrv2_more_aggregation",
                 "finding_best_tunnel_cca"):
        assert v.at[item, "verdict"] == NOT_COMPARABLE and v.at[item, "detail"].startswith(TCP_ONLY), item
    assert v.at["mobile_data_2023", "verdict"] == NOT_COMPARABLE
    # SRTT worse in one scenario: FAILS with the count
    values[("bbr", "ccid5", "MID", "srtt")] = 0.95
    out2 = claims(fig2, contours, _fig10(values), pd.DataFrame(), PUBLISHED).set_index("item")
    assert out2.at["finding_srtt_vs_cpf", "verdict"] == FAILS and out2.at["finding_srtt_vs_cpf", "simulated"] == "14/15"


def test_committed_plans_are_the_generated_ones_and_validate(tmp_path: Path) -> None:
    from mptlab.sweeps.plan import PlanError, load_plan

    written = P.write_default_plans(tmp_path)
    assert {p.name for p in written} >= {"seed003-fig2-tcp-ccid5.toml", "seed003-margin150.toml"}
    assert sorted(p.name for p in written) == sorted(p.name for p in (REPO / "plans").glob("seed003-*.toml"))
    refusal = tcp_tunnel_refusal()
    for p in written:
        committed = REPO / "plans" / p.name
        assert committed.read_text(encoding="utf-8") == p.read_text(encoding="utf-8"), f"{p.name} is stale: regenerate it"
        case = next(c for c in P.all_cases() if c.name == p.stem)
        if case.tcp and refusal:
            with pytest.raises(PlanError, match="tunnel protocol"):
                load_plan(committed)
        else:
            plan = load_plan(committed)
            assert plan.n_points == len(case.nets) * math.prod(len(v) for _, v in case.axes)
    # `mptlab sweep --dry-run` expands a plan without running it
    r = mptlab("sweep", "plans/seed003-contour-bbr-ccid5.toml", "--dry-run")
    assert r.returncode == 0, r.stderr


def test_contour_points_are_spaced_and_fixed() -> None:
    pts = P.contour_points(40)
    assert pts == P.contour_points(40) and len(pts) == 40
    assert all(0 <= e <= 100 and 0 <= s <= 1 for e, s in pts)
    r = 0.5 / math.sqrt(40)
    assert min(math.dist((a[0] / 100, a[1]), (b[0] / 100, b[1])) for i, a in enumerate(pts) for b in pts[i + 1:]) >= r - 1e-6


def test_pipeline_end_to_end_on_four_contour_points_and_fig2(tmp_path: Path) -> None:
    from mptlab.reproduce.seed003 import reproduce

    res = reproduce(out=tmp_path / "r", points=4, size="10MB", duration="3s", pairs=["fig2", "contours"], workers=1)
    assert res.failed == 0
    for f in ("fig2.csv", "contours.csv", "claims.csv", "runs.csv", "skipped.csv", "report.md", "figures/fig2.png",
              "figures/contour-bbr-ccid5.png"):
        assert (res.out / f).is_file(), f
    fig2 = pd.read_csv(res.out / "fig2.csv")
    udp = fig2[fig2["e2e"] == "udp"]["relative"]
    # UDP through two 50 Mbit/s paths: about half the single-path time (52 B header per 1500 B)
    assert len(udp) == 2 and udp.between(0.45, 0.62).all(), udp.tolist()
    contours = pd.read_csv(res.out / "contours.csv")
    batches = [c for c in P.contour_cases(4, "3s") if not (c.tcp and tcp_tunnel_refusal())]
    assert sorted(contours.groupby("batch").size().tolist()) == [4] * len(batches)
    if not tcp_tunnel_refusal():
        # both Fig. 2 TCP configurations ran and are labelled
        assert set(fig2[fig2["e2e"] == "tcp"]["config"]) == {"bbr-bbr", "bbr-ccid5"}
    assert contours["goodput_mbps"].between(0, 100).all()
    if tcp_tunnel_refusal():
        skipped = pd.read_csv(res.out / "skipped.csv")
        tcp_cases = [c for c in P.fig2_cases("10MB") + P.contour_cases(4, "3s") if c.tcp]
        assert len(skipped) == len(tcp_cases) and skipped["reason"].str.contains("TCP tunnel").all()
    verdicts = pd.read_csv(res.out / "claims.csv")
    assert len(verdicts) == len(load_published()[0]) + 3
    assert set(verdicts["verdict"]) <= {HOLDS, FAILS, NOT_COMPARABLE}
    assert "HOLDS" in (res.out / "report.md").read_text(encoding="utf-8")


def test_bad_flags_exit_2_before_running(tmp_path: Path) -> None:
    r = mptlab("reproduce", "seed003", "--pairs", "nope", "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2 and "valid: fig2, contours, fig10" in r.stderr
    r = mptlab("reproduce", "seed003", "--size", "lots", "--out", str(tmp_path / "x"), "-q")
    assert r.returncode == 2 and "--size" in r.stderr
    assert not (tmp_path / "x").exists()


def test_plans_name_the_rtt_split_block_when_asked() -> None:
    text = P.render(P.contour_cases(4, "5s")[0], "base.toml", 1, use_block=True)
    fixed = text.split("[set]")[1].split("[[zip]]")[0]
    assert '"rtt_split.server_links" = ["wan"]' in fixed and '"rtt_split.tunnel_links"' in fixed
    assert '"rtt_split.e2e_rtt" = [' in text and "links.wan.delay" not in text


def test_claims_use_the_tcp_tunnel_runs_when_present() -> None:
    fig2 = pd.DataFrame([{"e2e": "tcp", "config": c, "placement": p, "relative": v}
                         for c, p, v in (("bbr-bbr", "near", 0.55), ("bbr-bbr", "far", 1.0), ("bbr-ccid5", "near", 1.04),
                                         ("bbr-ccid5", "far", 1.04))])
    pts = [(e, s) for e in (10.0, 60.0, 90.0) for s in (0.2, 0.8)]
    rows = []
    for e, s in pts:
        t = e * s
        # Cubic over BBR: throughput falls with the tunnel RTT; the DCCP sibling the other way round
        for buf, extra in (("buf250", 0.0), ("buf500", 5.0), ("buf1000", 10.0)):
            rows.append({"batch": f"cubic-bbr-{buf}", "goodput_mbps": 90.0 - t + extra})
            rows.append({"batch": f"cubic-ccid5-{buf}", "goodput_mbps": 40.0 + t})
            rows.append({"batch": f"cubic-bbr2-{buf}", "goodput_mbps": 95.0 - t + extra})
        rows[-9:] = [{**r, "e2e_ms": e, "share": s, "tunnel_rtt_ms": t, "secondary_share": 0.5} for r in rows[-9:]]
    contours = pd.DataFrame(rows)
    values = {}
    for sc in scenarios():
        for server in ("bbr", "cubic"):
            values[(server, "bbr", sc, "cpf")] = 0.8
            values[(server, "bbr2", sc, "cpf")] = 0.6
            values[(server, "newreno", sc, "cpf")] = 0.9
    fig10 = _fig10(values)
    out = claims(fig2, contours, fig10, table3(fig10), PUBLISHED).set_index("item")
    assert out.at["fig2_e2e_tcp_near_proxy", "verdict"] == HOLDS and out.at["fig2_e2e_tcp_near_proxy", "simulated"] == "55.0 %"
    assert "BBR over BBR (TCP tunnels, A23)" in out.at["fig2_e2e_tcp_near_proxy", "detail"]
    assert out.at["fig2_e2e_tcp_near_proxy_ccid5", "verdict"] == FAILS and out.at["fig2_e2e_tcp_far_proxy_ccid5", "verdict"] == HOLDS
    # judged on Cubic over BBR (falls with the tunnel RTT), not on the rising CCID5 sibling
    assert out.at["finding_long_tunnel_rtt", "verdict"] == HOLDS and "[" not in out.at["finding_long_tunnel_rtt", "detail"]
    # mean 90 - mean(t) over the six points vs +10 Mbit/s at 1000 packets
    assert out.at["finding_small_buffer", "verdict"] == HOLDS
    assert out.at["finding_bbrv2_more_aggregation", "verdict"] == HOLDS
    assert out.at["finding_bbrv2_more_aggregation", "simulated"] == "4/4 parts"
    # BBRv2 first for both servers in Table 3
    assert out.at["finding_best_tunnel_cca", "verdict"] == HOLDS
    assert out.at["finding_best_tunnel_cca", "simulated"] == "bbr: bbr2 60.0 %; cubic: bbr2 60.0 %"
    # the contour part needs bbr-bbr / bbr-bbr2 batches (absent): 3 Fig. 10 parts, all BBRv2 better
    assert out.at["finding_bbrv2_vs_bbr_tunnel", "verdict"] == HOLDS and out.at["finding_bbrv2_vs_bbr_tunnel", "simulated"] == "3/3 parts"
    # no margin runs: NOT COMPARABLE
    assert out.at["dlct_bbr_tunnel_150ms_margin_vs_single_path", "verdict"] == NOT_COMPARABLE


def test_margin_ratios_are_ratios_of_means_over_the_scenarios() -> None:
    nets = list(scenarios().items())[:2]  # MID and SHORT
    def run(case: str, cc: str | None, name: str, dlct: float) -> dict[str, object]:
        n = dict(nets)[name]
        return {"case": case, "seed": 1, "status": "ok", "completion_time_s": dlct, "duration_s": 200.0, "e2e": "tcp", "server_cc": "cubic",
                "tunnel_cc": cc, "sched": "cpf", "e2e_ms": n.e2e_ms, "share": n.share, "asym_ms": n.asym_ms, "buffer": queue_label(n.queue)}
    runs = pd.DataFrame([run("seed003-margin150", "bbr", "MID", 30.0), run("seed003-margin150", "bbr", "SHORT", 50.0),
                         run("seed003-fig10-baseline", None, "MID", 60.0), run("seed003-fig10-baseline", None, "SHORT", 100.0)])
    fig10 = pd.DataFrame([{"server_cc": "cubic", "tunnel_cc": "bbr", "sched": "cpf", "scenario": "MID", "dlct_s": 40.0},
                          {"server_cc": "cubic", "tunnel_cc": "bbr", "sched": "cpf", "scenario": "SHORT", "dlct_s": 60.0},
                          {"server_cc": "cubic", "tunnel_cc": "bbr", "sched": "srtt", "scenario": "SHORT", "dlct_s": 1.0}])
    m = margin_table(runs, fig10)
    assert len(m) == 1
    r = m.iloc[0]
    # (30 + 50) / 2 = 40 s with 150 ms; 50 s with 5 ms; 80 s single path
    assert r["scenarios"] == 2 and r["dlct150_s"] == 40.0 and r["dlct5_s"] == 50.0 and r["single_s"] == 80.0
    assert r["vs_single"] == 0.5 and r["vs_5ms"] == 0.8
    out = claims(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), PUBLISHED, margin=m).set_index("item")
    # 50.0 % vs 68.7 %: more than 10 points off; 80.0 % vs 76.2 %: within
    assert out.at["dlct_bbr_tunnel_150ms_margin_vs_single_path", "verdict"] == FAILS
    assert out.at["dlct_bbr_tunnel_150ms_margin_vs_single_path", "simulated"] == "50.0 %"
    assert out.at["dlct_bbr_tunnel_150ms_margin_vs_multipath_5ms", "verdict"] == HOLDS
    assert out.at["dlct_bbrv2_tunnel_150ms_margin_vs_single_path", "verdict"] == NOT_COMPARABLE
