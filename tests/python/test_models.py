"""mptlab.models against the seed 004 study notes' computed tables (shared/studies/seed004.md
§2.6, §2.7, §4.1, §8.3) and the models' identities; `mptlab model` exits 0 / 2."""

from __future__ import annotations

import math

import pytest

from conftest import mptlab
from mptlab.models import bianchi, dcf_chain, newreno5, rtt

# §8.3 A, Bianchi's FHSS set: n -> [(S, p) basic W=32 m=3, W=32 m=5, W=128 m=3; S RTS same order]
FHSS_TABLE = {
    5: [(0.8097, 0.179), (0.8102, 0.178), (0.8250, 0.057), 0.8342, 0.8342, 0.7979],
    10: [(0.7532, 0.299), (0.7579, 0.290), (0.8263, 0.115), 0.8371, 0.8370, 0.8217],
    20: [(0.6788, 0.430), (0.6975, 0.399), (0.7981, 0.202), 0.8356, 0.8362, 0.8327],
    50: [(0.5529, 0.609), (0.6109, 0.532), (0.7252, 0.351), 0.8270, 0.8317, 0.8363],
}
WM = [(32, 3), (32, 5), (128, 3)]


@pytest.mark.parametrize("n", sorted(FHSS_TABLE))
def test_bianchi_fhss_table(n):
    row = FHSS_TABLE[n]
    for (W, m), (s, p), s_rts in zip(WM, row[:3], row[3:]):
        basic = bianchi.throughput(n, bianchi.FHSS, "basic", W, m)
        assert round(basic.s_norm, 4) == s and round(basic.p, 3) == p
        rts = bianchi.throughput(n, bianchi.FHSS, "rts", W, m)
        assert round(rts.s_norm, 4) == s_rts
        assert rts.p == basic.p  # access mode does not enter the fixed point


def test_bianchi_80211a_table():
    phy = bianchi.OFDM_54
    assert (phy.t_data_us, phy.t_ack_us, phy.t_s_us(), phy.t_c_us()) == (180, 28, 258, 214)
    want = {2: (25.9, 0.105), 5: (25.15, 0.272), 10: (23.8, 0.384), 20: (22.2, 0.481), 50: (19.9, 0.595)}
    for n, (mbps, p) in want.items():
        r = bianchi.throughput(n, phy)
        digits = 2 if n == 5 else 1  # the notes print 25.2 for 25.146 (docs/models.md)
        assert round(r.throughput_bps / 1e6, digits) == mbps, n
        assert round(r.p, 3) == p
    # one station: 8000 bit / (DIFS + 7.5 slots + 180 + SIFS + 28 us) = 24.58 Mbit/s
    one = bianchi.throughput(1, phy)
    assert one.p == 0.0
    assert one.throughput_bps == pytest.approx(8000 / (34 + 7.5 * 9 + 180 + 16 + 28) * 1e6, rel=1e-12)


def test_bianchi_identities():
    for phy in (bianchi.FHSS, bianchi.OFDM_54):
        prev = math.inf
        for n in range(2, 60):
            r = bianchi.throughput(n, phy)
            # the fixed point holds
            assert r.p == pytest.approx(1 - (1 - r.tau) ** (n - 1), abs=1e-12)
            assert r.tau == pytest.approx(bianchi.tau_of_p(r.p, phy.W, phy.m), rel=1e-12)
            # tau matches eq. (7) as printed away from p = 1/2
            W, m, p = phy.W, phy.m, r.p
            if abs(p - 0.5) > 1e-3:
                assert r.tau == pytest.approx(2 * (1 - 2 * p) / ((1 - 2 * p) * (W + 1) + p * W * (1 - (2 * p) ** m)))
            assert 0 < r.p_s <= 1 and 0 < r.p_tr < 1
            assert r.throughput_bps < prev  # basic access: S decreases in n from n = 2
            prev = r.throughput_bps
    with pytest.raises(ValueError):
        bianchi.throughput(5, bianchi.FHSS, "cts")
    with pytest.raises(ValueError):
        bianchi.solve(0, 32, 3)


def test_ofdm_airtime():
    assert bianchi.ofdm_airtime_us(1076, 54) == 180
    assert bianchi.ofdm_airtime_us(76, 54) == 32
    assert bianchi.ofdm_airtime_us(14, 24) == 28
    assert bianchi.ofdm_airtime_us(1096, 54) == 184  # IPv6 adds 20 B (notes §4.1)


@pytest.mark.parametrize("W,m,r,p,printed,exact", [
    (16, 6, 7, 0.05, 0.0346, 0.0921),
    (16, 6, 7, 0.2, 0.0466, 0.0552),
    (16, 2, 7, 0.45, 0.0105, 0.0200),
])
def test_dcf_saturated_against_notes(W, m, r, p, printed, exact):
    sol = dcf_chain.solve_chain(W, m, r, p)
    assert round(sol.b00, 4) == exact
    assert round(dcf_chain.printed_b00_saturated(W, m, r, p), 4) == printed
    assert sol.b00 == pytest.approx(dcf_chain.exact_b00_saturated(W, m, r, p), rel=1e-10)
    assert sol.b00 == pytest.approx(sol.prob(-1, 0), rel=1e-10)
    # the notes' rational closed form
    mm = min(r, m)
    den = 2 * (1 - p) ** 2 * (1 - 2 * p) + (1 - 2 * p) ** 2 * (1 - p ** (r + 1)) + W * (1 - p) * (1 - (2 * p) ** (mm + 1))
    if r > m:
        den += (1 - 2 * p) * W * 2**m * p ** (m + 1) * (1 - p ** (r - m))
    assert sol.b00 == pytest.approx(2 * (1 - p) ** 2 * (1 - 2 * p) / den, rel=1e-10)


@pytest.mark.parametrize("W,m,r,p,lam,printed,b_m11", [
    (16, 6, 4, 0.2, 0.3, 0.0634, 0.0637),
    (16, 2, 7, 0.45, 0.5, 0.0210, 0.0363),
])
def test_dcf_nonsaturated_against_notes(W, m, r, p, lam, printed, b_m11):
    sol = dcf_chain.solve_chain(W, m, r, p, lam)
    assert round(sol.prob(-1, 1), 4) == b_m11
    assert round(dcf_chain.printed_b00_nonsaturated(W, m, r, p, lam), 4) == printed
    assert sol.b00 == pytest.approx(dcf_chain.exact_b00_nonsaturated(W, m, r, p, lam), rel=1e-10)
    # balance relations of Sec. IV (non-saturated)
    b = sol.prob
    assert b(-1, 1) == pytest.approx(lam * b(-2, 0), rel=1e-10)
    assert b(-1, 0) == pytest.approx(p * b(-1, 1), rel=1e-10)
    assert b(0, 0) == pytest.approx(b(-1, 0), rel=1e-10)


@pytest.mark.parametrize("lam", [None, 0.4])
def test_dcf_chain_identities(lam):
    W, m, r, p = 16, 2, 5, 0.3
    sol = dcf_chain.solve_chain(W, m, r, p, lam)
    assert sol.pi.sum() == pytest.approx(1.0, abs=1e-12)
    assert (sol.pi > 0).all()
    windows = dcf_chain.stage_windows(W, m, r)
    assert windows == [16, 32, 64, 64, 64, 64]
    for i, wi in enumerate(windows):
        # eq. (2)
        assert sol.prob(i, 0) == pytest.approx(p**i * sol.b00, rel=1e-9)
        for k in (1, wi // 2, wi - 1):
            assert sol.prob(i, k) == pytest.approx((wi - k) / ((1 - p) * wi) * sol.prob(i, 0), rel=1e-9)
    if lam is None:
        # eq. (1)
        lhs = sol.prob(-1, 0)
        rhs = (1 - p) * sum(sol.prob(i, 0) for i in range(r)) + sol.prob(r, 0)
        assert lhs == pytest.approx(rhs, rel=1e-10)


def test_n_ts_readings_against_notes():
    want = {0.05: (0.93, 0.87, 9.4, 8.4), 0.2: (1.96, 1.18, 13.9, 12.7), 0.4: (1.30, 0.42, 33.3, 31.6)}
    for p, (lit, lit_out, corr, corr_minus) in want.items():
        assert round(dcf_chain.n_ts(16, 6, 7, p, "literal"), 2) == lit
        assert round(dcf_chain.n_ts(16, 6, 7, p, "literal-outside"), 2) == lit_out
        assert round(dcf_chain.n_ts(16, 6, 7, p), 1) == corr
        assert round(dcf_chain.n_ts(16, 6, 7, p, "corrected-minus"), 1) == corr_minus
    # p = 0: one stage-0 draw; corrected N_ts increases in p
    assert dcf_chain.n_ts(16, 6, 7, 0.0) == 8.5
    values = [dcf_chain.n_ts(16, 6, 7, p / 20) for p in range(20)]
    assert values == sorted(values)
    with pytest.raises(ValueError):
        dcf_chain.n_ts(16, 6, 7, 0.2, "bogus")
    with pytest.raises(ValueError):
        dcf_chain.solve_chain(16, 6, 7, 1.0)


def test_rtt_idle_examples():
    t = rtt.OFDM_54_TIMING
    assert (t.t_data_us, t.t_tcp_ack_us, t.t_mac_ack_us) == (180, 32, 28)
    assert rtt.rtt_idle(1, 1) == 368
    assert rtt.rtt_idle(1, 2) == 736
    assert rtt.rtt_idle(2, 1) == 626
    # eq. (9) with immediate access (eq. (6)) on every hop gives the Sec. III values
    assert rtt.path_rtt([rtt.Hop()]) == 368
    assert rtt.path_rtt([rtt.Hop(), rtt.Hop()]) == 736
    assert rtt.path_times([rtt.Hop()]) == (34 + 180 + 16 + 28, 34 + 32 + 16 + 28)


def test_rtt_eqs_7_8_10():
    t = rtt.OFDM_54_TIMING
    assert rtt.node_time_wifi(180, n_ts=8.5, t_q_us=100) == 100 + 34 + 8.5 * 9 + 180 + 16 + 28
    with pytest.raises(ValueError):
        rtt.node_time_wifi(180, t_q_us=5)
    assert rtt.node_time_5g(1040) == pytest.approx(83.2)
    assert rtt.node_time_5g(1040, t_q_us=10) == pytest.approx(93.2)
    # a 2-hop path whose last hop is 5G: WiFi data + 5G data, 5G ACK (40 B) + WiFi ACK
    path = [rtt.Hop(), rtt.Hop("5g")]
    assert rtt.path_rtt(path) == pytest.approx(258 + 83.2 + 3.2 + 110)
    # eq. (10): frames 2..j add SIFS + one frame each
    assert rtt.txop_batch_time(1, [rtt.Hop()]) == 258
    assert rtt.txop_batch_time(3, [rtt.Hop()]) == 258 + 2 * (16 + 180)
    assert rtt.txop_batch_time(2, [rtt.Hop("5g")]) == pytest.approx(83.2 + 16 + 83.2)
    with pytest.raises(ValueError):
        rtt.Hop("lte")
    assert t.slot_us == 9


def test_newreno5_round_probs():
    for w in range(1, 25):
        for l in (0.0, 0.01, 0.1, 0.5):
            for p_over in (0.0, 0.3):
                pr = newreno5.round_probs(w, l, p_over)
                assert sum(pr.values()) == pytest.approx(1.0, abs=1e-12)
                assert all(v >= -1e-15 for v in pr.values())
                assert pr["grow"] + pr["cr"] == pytest.approx((1 - l) ** w)
                if w < 4:
                    assert pr["fr"] == 0.0
    # w = 4, l = 1/2 by enumeration: p(i|4) = C(4,i)/16; RTO = p(1)(1/2) + p(2..4)
    pr = newreno5.round_probs(4, 0.5)
    assert pr["rto"] == pytest.approx(4 / 16 * 0.5 + (6 + 4 + 1) / 16)
    assert pr["fr"] == pytest.approx(4 / 16 * 0.5)
    assert newreno5.p_loss_count(2, 5, 0.1) == pytest.approx(10 * 0.01 * 0.9**3)


def test_newreno5_stationary():
    assert newreno5.solve(0.0).mean_w == pytest.approx(20.0)  # no loss: w_max absorbs
    prev = math.inf
    for l in (0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4):
        s = newreno5.solve(l, w_min=1, w_max=20)
        assert s.pi.sum() == pytest.approx(1.0, abs=1e-12)
        assert (s.pi >= 0).all()
        assert sum(s.w_distribution().values()) == pytest.approx(1.0)
        assert all(1 <= w <= 20 for w, _, _ in s.states)
        # a loss marker lasts one round and all of its mass flows into its no-loss state
        for (w, sst, loss), q in zip(s.states, s.pi):
            if loss:
                assert s.prob(w, sst, 0) >= q - 1e-15
        assert s.mean_w < prev  # E[w] decreases in l
        prev = s.mean_w
    # a w_min floor raises E[w]; CR that lowers w lowers it
    assert newreno5.solve(0.1, w_min=5).mean_w > newreno5.solve(0.1, w_min=1).mean_w
    hold = newreno5.solve(0.01, p_over=0.3).mean_w
    lower = newreno5.solve(0.01, p_over=0.3, cr_window=lambda w: max(1, w - 1)).mean_w
    assert lower < hold
    with pytest.raises(ValueError):
        newreno5.solve(0.1, w_min=5, w_max=4)


def test_cli_model_commands():
    r = mptlab("model", "bianchi", "--n", "5", "--phy", "80211a")
    assert r.returncode == 0, r.stderr
    assert "25.15" in r.stdout and "0.272" in r.stdout
    r = mptlab("model", "bianchi", "--n", "5", "--phy", "fhss", "--W", "32", "--m", "3")
    assert r.returncode == 0, r.stderr
    assert "0.8097" in r.stdout and "0.179" in r.stdout
    r = mptlab("model", "dcf", "--p", "0.05", "--W", "16", "--m", "6", "--r", "7")
    assert r.returncode == 0, r.stderr
    assert "0.0921" in r.stdout and "0.0346" in r.stdout and "9.42" in r.stdout
    r = mptlab("model", "rtt", "--hops", "2")
    assert r.returncode == 0, r.stderr
    assert "736.0" in r.stdout
    r = mptlab("model", "rtt", "--packets", "2")
    assert r.returncode == 0 and "626.0" in r.stdout
    r = mptlab("model", "newreno5", "--l", "0.01")
    assert r.returncode == 0, r.stderr
    assert f"{newreno5.solve(0.01).mean_w:.3f}" in r.stdout


@pytest.mark.parametrize("args,msg", [
    (("bianchi", "--phy", "80211z"), "--phy must be one of"),
    (("bianchi", "--n", "0"), "--n"),
    (("dcf", "--p", "1.5"), "--p must be in [0, 1)"),
    (("newreno5", "--l", "0.1", "--w-min", "9", "--w-max", "4"), "--w-min"),
    (("rtt", "--t-q-us", "5"), "--t-q-us needs --n-ts"),
])
def test_cli_model_bad_arguments(args, msg):
    r = mptlab("model", *args)
    assert r.returncode == 2
    assert r.stderr.startswith("error:") and msg in r.stderr
