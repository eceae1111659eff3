"""`mptlab reproduce seed004`: the deployments and the RPL-like routes against their
definitions (ranks = BFS hop counts, every path valid, loop-free, distinct, at most K), the
generated scenario TOML, the metric extraction from a run summary, and the pipeline end to end
on a tiny case (skipped while the simulator refuses the `[wifi]` block)."""

from __future__ import annotations

import math
import tomllib
from collections import deque

import numpy as np
import pandas as pd
import pytest

from conftest import mptlab
from mptlab.reproduce.seed004 import plans as P
from mptlab.reproduce.seed004.deploy import AREAS, DC, GOLDEN_ANGLE, connected_to_root, deploy, in_range, sunflower, uniform
from mptlab.reproduce.seed004.metrics import (
    delivery_over_time,
    early_delivery,
    generation_floor,
    latency_quantiles,
    run_metrics,
    share_faster,
)
from mptlab.reproduce.seed004.routing import K_MAX, build, valid_hop
from mptlab.reproduce.seed004.scenario import PROFILES, VARIANTS, link_name, render, tiny

ALL = [(c.deployment, c.nodes, c.has_5g) for c in P.CASES]


def test_sunflower_is_vogels_spiral() -> None:
    xy = sunflower(4, 100.0)
    r = np.hypot(xy[:, 0], xy[:, 1])
    assert np.allclose(r, [50.0, 100 * math.sqrt(0.5), 100 * math.sqrt(0.75), 100.0])
    th = np.arctan2(xy[:, 1], xy[:, 0])
    assert np.allclose(np.angle(np.exp(1j * (th[1] - th[0]))), np.angle(np.exp(1j * GOLDEN_ANGLE)))
    assert math.isclose(math.degrees(GOLDEN_ANGLE), 137.50776, abs_tol=1e-4)


def test_uniform_positions_are_seeded_and_inside_the_area() -> None:
    rng = np.random.default_rng
    a, b, c = uniform(50, 350, 400, rng(7)), uniform(50, 350, 400, rng(7)), uniform(50, 350, 400, rng(8))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert (a[:, 0] >= 0).all() and (a[:, 0] <= 350).all() and (a[:, 1] >= 0).all() and (a[:, 1] <= 400).all()


@pytest.mark.parametrize("kind,nodes,g5", ALL)
def test_deployments_match_the_paper_and_are_connected(kind: str, nodes: int, g5: bool) -> None:
    d = deploy(kind, nodes, 1, g5)
    assert d.names[0] == DC and len(d.names) == nodes + 1 and d.xy.shape == (nodes + 1, 2)
    assert connected_to_root(in_range(d.xy, d.range_m))
    area = AREAS[kind][nodes]
    if kind == "sunflower-center":
        assert d.position(DC) == (0.0, 0.0)
        assert np.hypot(d.xy[1:, 0], d.xy[1:, 1]).max() == pytest.approx(area[0])
    else:
        w, h = area
        assert d.position(DC) == ((w / 2, h / 2) if kind == "square-center" else (0.0, 0.0))
        assert (d.xy[1:, 0] <= w).all() and (d.xy[1:, 1] <= h).all()
    assert d.g5 == ("n12" if g5 else None)
    assert deploy(kind, nodes, 1, g5).xy.tolist() == d.xy.tolist()  # deterministic


def test_5g_and_no_5g_cases_share_the_topology() -> None:
    assert np.array_equal(deploy("square-corner", 25, 3, True).xy, deploy("square-corner", 25, 3, False).xy)


def test_disconnected_draw_is_replaced_by_the_next_draw_of_the_same_seed() -> None:
    # with a 60 m range most draws of 25 nodes in 250 m x 250 m are disconnected: the kept draw
    # is the first connected one of the seed's Generator, and the count says how many were made
    d = deploy("square-corner", 25, 1, range_m=60.0)
    assert d.draws > 1
    rng = np.random.default_rng(1)
    for _ in range(d.draws - 1):
        assert not connected_to_root(in_range(np.vstack([[0.0, 0.0], uniform(25, 250, 250, rng)]), 60.0))
    kept = np.vstack([[0.0, 0.0], uniform(25, 250, 250, rng)])
    assert np.array_equal(kept, d.xy) and connected_to_root(in_range(kept, 60.0))
    # two seeds never share a topology through redraws
    tops = {deploy("square-corner", 25, s, range_m=60.0).xy.tobytes() for s in range(1, 9)}
    assert len(tops) == 8
    with pytest.raises(ValueError, match="not connected"):
        deploy("sunflower-center", 50, range_m=20.0)
    with pytest.raises(ValueError):
        deploy("square-center", 25)


def _bfs(dep, extra=()) -> dict[str, int]:
    adj = in_range(dep.xy, dep.range_m)
    nb = {n: {dep.names[j] for j in np.flatnonzero(adj[i])} for i, n in enumerate(dep.names)}
    for a, b in extra:
        nb[a].add(b)
        nb[b].add(a)
    dist, q = {DC: 0}, deque([DC])
    while q:
        v = q.popleft()
        for w in sorted(nb[v]):
            if w not in dist:
                dist[w] = dist[v] + 1
                q.append(w)
    return dist


@pytest.mark.parametrize("kind,nodes,g5", ALL)
@pytest.mark.parametrize("seed", [1, 2])
def test_routes_are_valid_loop_free_distinct_and_at_most_k(kind: str, nodes: int, g5: bool, seed: int) -> None:
    d = deploy(kind, nodes, seed, g5)
    r = build(d)
    assert r.rank == _bfs(d, [(d.g5, DC)] if g5 else [])
    for n in d.data_nodes:
        paths = r.paths[n]
        assert 1 <= len(paths) <= K_MAX
        assert len(set(paths)) == len(paths)
        assert len({p[1] for p in paths}) == len(paths)  # distinct parents
        for p in paths:
            assert p[0] == n and p[-1] == DC and len(set(p)) == len(p)
            assert all(valid_hop(d, a, b) for a, b in zip(p, p[1:]))
            assert [r.rank[h] for h in p] == list(range(r.rank[n], -1, -1))  # one rank step per hop
        parents = r.parents[n]
        if n != d.g5:
            keys = [(r.rank[w], d.distance(n, w), w) for w in parents]
            assert keys == sorted(keys)
            assert paths[0][1:] == (parents[0],) + paths[0][2:]


def test_the_5g_node_relays_its_neighbours_over_its_5g_hop() -> None:
    d = deploy("square-corner", 25, 1, True)
    r = build(d)
    assert r.rank["n12"] == 1 and r.paths["n12"] == (("n12", DC),)
    through = [p for ps in r.paths.values() for p in ps if "n12" in p[1:]]
    assert through and all(p[-2:] == ("n12", DC) for p in through)
    assert d.distance("n12", DC) > d.range_m  # this draw: the 5G hop is the only way out of n12
    without = build(deploy("square-corner", 25, 1, False))
    assert r.rank["n12"] < without.rank["n12"]
    assert np.mean(r.hops()) < np.mean(without.hops())


def test_k_limits_the_paths() -> None:
    d = deploy("square-center", 100, 1)
    assert max(len(p) for p in build(d, 1).paths.values()) == 1
    assert max(len(p) for p in build(d).paths.values()) == 3
    with pytest.raises(ValueError):
        build(d, 4)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_scenario_round_trips_through_tomllib(variant: str) -> None:
    d = deploy("square-corner", 25, 2, True)
    r = build(d)
    doc = tomllib.loads(render(d, r, variant, 2, "150s"))
    assert doc["run"] == {"duration": "150s", "seed": 2}
    mesh = doc["wifi"]["mesh"]
    assert mesh["stations"] == list(d.names) and len(mesh["positions"]) == 26
    assert np.allclose(mesh["positions"], d.xy, atol=1e-4)
    assert mesh["range"] == 100.0 and mesh["phy"] == "ofdm54" and mesh["rules"] == "standard"
    assert mesh["rts_cts"] is False and mesh["retry_limit"] == 7 and "queue_limit" not in mesh
    assert doc["links"] == {"g5": {"between": ["n12", "dc"], "rate": "100Mbps", "delay": "1ms"}}
    assert "nodes" not in doc
    assert sorted(doc["flows"]) == sorted(d.data_nodes)
    f = doc["flows"]["n3"]
    assert f["from"] == "n3" and f["to"] == "dc" and f["protocol"] == "mptcp"
    assert (f["cc"], f["scheduler"]) == (VARIANTS[variant]["cc"], VARIANTS[variant]["scheduler"])
    assert [tuple(p) for p in f["paths"]] == list(r.paths["n3"])
    assert f["app"] == {"kind": "poisson", "rate": "80kbps", "message_size": "1000B", "count": 100}
    assert f["tcp"] == {"mss": "1000B"}


def test_scenario_without_5g_has_no_links_and_rejects_unknown_variants() -> None:
    d = deploy("square-center", 50, 1)
    doc = tomllib.loads(render(d, build(d), "C-MPTCP", 1))
    assert "links" not in doc and doc["flows"]["n1"]["cc"] == "newreno" and doc["flows"]["n1"]["scheduler"] == "minrtt"
    with pytest.raises(ValueError):
        render(d, build(d), "X-MPTCP", 1)
    assert link_name("n3", "n7") == "mesh:n3>n7"
    assert link_name("n12", "dc", ("n12", "dc")) == "g5" and link_name("dc", "n12", ("n12", "dc")) == "g5.rev"


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_paper_rto_profile_adds_the_papers_bounds_to_every_flows_tcp_table(variant: str) -> None:
    d = deploy("square-corner", 25, 1, True)
    r = build(d)
    plain, rto = tomllib.loads(render(d, r, variant, 1)), tomllib.loads(render(d, r, variant, 1, profile="paper-rto"))
    assert render(d, r, variant, 1) == render(d, r, variant, 1, profile="default")  # the default set's scenarios as before
    assert PROFILES == {"default": {}, "paper-rto": {"min_rto": "20s", "max_rto": "50s"}}
    assert sorted(rto["flows"]) == sorted(d.data_nodes)
    for n, f in rto["flows"].items():
        assert f["tcp"] == {"mss": "1000B", "min_rto": "20s", "max_rto": "50s"}
        # nothing else differs: same variant, paths, traffic
        assert {k: v for k, v in f.items() if k != "tcp"} == {k: v for k, v in plain["flows"][n].items() if k != "tcp"}
    assert {k: v for k, v in rto.items() if k != "flows"} == {k: v for k, v in plain.items() if k != "flows"}
    with pytest.raises(ValueError, match="profile"):
        render(d, r, variant, 1, profile="rto")


def test_cases_and_plans() -> None:
    assert [c.name for c in P.CASES] == ["square-center-50", "square-center-100", "sunflower-center-50", "sunflower-center-100",
                                         "square-corner-25", "square-corner-25-5g", "square-corner-50"]
    assert [c.name for c in P.select(["square-corner-25-5g", "square-center-50"])] == ["square-center-50", "square-corner-25-5g"]
    with pytest.raises(ValueError):
        P.select(["corner"])
    text = P.render_plan(P.CASES[5], "P-MPTCP", 3, "/x/s.toml")
    doc = tomllib.loads(text)
    assert doc == {"name": "seed004-square-corner-25-5g-p-s3", "description": "square-corner 25 + 5G, P-MPTCP, topology and run seed 3",
                   "base": "/x/s.toml", "seeds": [3]}
    assert P.render_plan(P.CASES[5], "P-MPTCP", 3, "/x/s.toml", "default") == text  # folders of earlier runs resume
    assert P.PROFILE_NAMES == ("default", "paper-rto")
    rto = tomllib.loads(P.render_plan(P.CASES[5], "C-MPTCP", 3, "/x/s.toml", "paper-rto"))
    assert rto["name"] == "seed004-square-corner-25-5g-c-s3-paper-rto"
    assert rto["description"] == "square-corner 25 + 5G, C-MPTCP, topology and run seed 3, TCP profile paper-rto"
    assert P.run_name(P.CASES[0], "P-MPTCP", 1, "paper-rto") == "square-center-50-p-s1-paper-rto"
    with pytest.raises(ValueError):
        P.run_name(P.CASES[0], "P-MPTCP", 1, "rto")


def _summary(complete: bool = True) -> dict:
    flows = [{"name": f"n{i}", "bytes_delivered": 100_000 if complete or i == 1 else 99_000, "completion_time_s": 20.0 + i,
              "sent_packets": 110, "ack_packets_sent": 40, "owd_ms": {"count": 100, "p50": 10.0 * i, "p95": 20.0 * i, "p99": 30.0 * i,
                                                                      "max": 40.0 * i}} for i in (1, 2)]
    if not complete:
        flows[1]["completion_time_s"] = None
    links = [{"name": "mesh:n1>dc", "packets": 300, "offered_packets": 300, "drops": 3,
              "mac": {"attempts": 330, "retries": 30, "retry_drops": 3}},
             {"name": "mesh:n2>n1", "packets": 100, "offered_packets": 100, "drops": 1,
              "mac": {"attempts": 120, "retries": 20, "retry_drops": 1}}]
    return {"flows": flows, "links": links}


def test_run_metrics_from_a_summary() -> None:
    m = run_metrics(_summary(), nodes=2)
    assert m["delivered_packets"] == 200 and m["expected_packets"] == 200 and not m["censored"]
    assert m["completion_s"] == 22.0
    assert m["throughput_kbps"] == pytest.approx(2 * 100 * 8000 / 22.0 / 1000)
    assert m["tcp_segments"] == 300 and m["data_segments"] == 220 and m["ack_segments"] == 80
    assert m["hop_transmissions"] == 400 and m["mac_attempts"] == 450 and m["mac_retries"] == 50 and m["mac_drops"] == 4
    assert m["hop_delivery_pct"] == pytest.approx(100 * (1 - 4 / 400))  # drops: 3 + 1
    c = run_metrics(_summary(complete=False), nodes=2)
    assert c["censored"] and math.isnan(c["completion_s"]) and math.isnan(c["throughput_kbps"]) and c["delivered_packets"] == 199


def test_latency_quantiles_from_the_pooled_cdf() -> None:
    levels = np.round(np.linspace(0, 1, 101), 2)
    pooled = {"count": 10, "mean": 12.0, "quantiles": np.interp(levels, [0.0, 0.5, 0.95, 0.99, 1.0], [0.0, 10.0, 20.0, 30.0, 40.0]).tolist()}
    q = latency_quantiles(pooled)
    assert q["exact"].all() and q["q"].tolist() == levels.tolist() and q["latency_ms"].is_monotonic_increasing
    assert q.loc[q["q"] == 0.5, "latency_ms"].item() == pytest.approx(10.0)
    assert q.loc[q["q"] == 0.95, "latency_ms"].item() == pytest.approx(20.0)
    assert q["latency_ms"].iloc[-1] == 40.0
    assert run_metrics({**_summary(), "data_owd_cdf_ms": pooled}, nodes=2)["latency_p50_ms"] == pytest.approx(10.0)
    assert latency_quantiles(None).empty and latency_quantiles({"count": 0, "mean": 0.0, "quantiles": []}).empty


def test_share_faster_counts_levels_where_p_is_below_c() -> None:
    q = np.round(np.linspace(0, 1, 101), 2)
    c = pd.DataFrame({"q": q, "latency_ms": 100 * q})
    p = pd.DataFrame({"q": q, "latency_ms": np.where(q <= 0.8, 50 * q, 200 * q)})
    assert share_faster(p, c) == pytest.approx(80.0)
    assert math.isnan(share_faster(p.iloc[0:0], c))


def test_delivery_over_time_bins_and_the_early_minimum() -> None:
    ts = pd.DataFrame({"series": ["wifi_frames"] * 4 + ["wifi_drops"] * 2, "entity": ["a", "b", "a", "a", "a", "a"],
                       "t_s": [0.0, 0.5, 1.0, 12.0, 0.2, 12.0], "value": [50.0, 50.0, 100.0, 100.0, 12.0, 50.0]})
    curve = delivery_over_time(ts)
    assert curve["t_s"].tolist() == [0.0, 1.0, 12.0] and curve["delivery_pct"].tolist() == [88.0, 100.0, 50.0]
    assert early_delivery(curve) == 88.0
    assert delivery_over_time(None).empty and math.isnan(early_delivery(delivery_over_time(ts.iloc[0:0])))


def test_generation_floor_matches_the_study_notes() -> None:
    assert [round(generation_floor(n), 1) for n in (25, 50, 100)] == [12.1, 12.4, 12.7]


def _wifi_refused() -> str | None:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tiny.toml"
        path.write_text(tiny())
        res = mptlab("check", path)
    if res.returncode == 2 and "wifi" in (res.stderr + res.stdout).lower():
        return (res.stderr or res.stdout).strip()
    return None


def test_reproduce_end_to_end_on_the_smallest_case(tmp_path, monkeypatch) -> None:
    refused = _wifi_refused()
    if refused:
        pytest.skip(f"the simulator refuses [wifi]: {refused}")
    from mptlab.reproduce.common import ReproduceError, reference_file
    from mptlab.reproduce.seed004 import reproduce

    try:
        reference_file("seed004.csv")
    except ReproduceError as e:
        pytest.skip(str(e))
    res = reproduce(out=tmp_path / "r", pairs=["square-corner-25", "square-corner-25-5g"], duration="60s")
    assert (tmp_path / "r" / "report.md").is_file() and (tmp_path / "r" / "claims.csv").is_file()
    ok = res.runs[res.runs["status"] == "ok"]
    assert len(res.runs) == 8 and len(ok) == 8  # the simulator accepts the paper-rto profile's tcp table
    assert ok.groupby("profile").size().to_dict() == {"default": 4, "paper-rto": 4}
    assert res.claims_paper_rto is not None and (tmp_path / "r" / "claims_paper_rto.csv").is_file()
    assert (ok["delivered_packets"] <= ok["expected_packets"]).all() and (ok["tcp_segments"] >= ok["delivered_packets"]).all()
    assert set(res.claims["verdict"]) <= {"HOLDS", "FAILS", "NOT COMPARABLE"}
    again = reproduce(out=tmp_path / "r", pairs=["square-corner-25", "square-corner-25-5g"], duration="60s")
    pd.testing.assert_frame_equal(res.table, again.table)  # resumed: the same numbers
