"""Seed 003: every row of reference/seed003.csv and every finding of the paper's sec. 5-6,
judged on the simulated numbers: HOLDS, FAILS, or NOT COMPARABLE (a value it needs was not
simulated: a TCP-tunnel case the simulator cannot run yet, or a row that is an input, a count or
background rather than a result).

Tests (each names its numbers in `detail`; thresholds are ours, the paper gives none):
- "≈ 50 %" means within 0.45-0.60 (the ideal is 50 % plus the 52 B of encapsulation per 1500 B
  inner packet, 51.7 %); "≈ 100 %" / "unchanged" means 0.85-1.15.
- "more aggregation" between two contour regions means a mean throughput higher by more than
  2 Mbit/s; "minimal aggregation" / "no aggregation" means a mean E2E throughput ≤ 60 Mbit/s over the
  contour points in the region (one path gives ~48); "more aggregation" means a higher mean.
- Fig. 10 comparisons ("better with X") compare relative DLCTs of the scenario with X to its
  counterpart (NEAR vs DIST, BUF250 vs the default, CDL1 vs the default, ...), at both SHORT
  and LONG unless the finding says otherwise, "better" meaning lower by more than 1 percentage
  point (so a tie is not "better"); a finding with several parts holds only if each
  comparable part holds.
- Where the paper's finding is about a TCP tunnel CCA (BBR, BBRv2, NewReno) and only its DCCP
  sibling (CCID5, CCID2) could run, the claim is judged on the sibling and says so
  (the paper: "CCID2 and CCID5 are implementations of NewReno and BBR", sec. 4.1).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from mptlab.reproduce.common import FAILS, HOLDS, NOT_COMPARABLE, spearman


#: "Better" in a Fig. 10 comparison: a relative DLCT lower by more than 1 percentage point.
MARGIN = 0.01
#: "More aggregation" between contour regions: a mean throughput higher by more than 2 Mbit/s.
MBPS = 2.0


class Missing(Exception):
    """A value the claim needs was not simulated."""


class Data:
    """The reproduction's tables: fig2, contours, fig10, table3."""

    def __init__(self, fig2: pd.DataFrame, contours: pd.DataFrame, fig10: pd.DataFrame, table3: pd.DataFrame) -> None:
        self.fig2, self.contours, self.fig10, self.table3 = fig2, contours, fig10, table3

    def fig2_rel(self, e2e: str, placement: str) -> float:
        f = self.fig2
        if f.empty:
            raise Missing("Fig. 2 not run")
        r = f[(f["e2e"] == e2e) & (f["placement"] == placement)]
        if r.empty or not np.isfinite(r["relative"].iloc[0]):
            raise Missing(f"Fig. 2 {e2e} {placement}")
        return float(r["relative"].iloc[0])

    def batch(self, *names: str) -> tuple[pd.DataFrame, str]:
        """The first contour batch of `names` that ran, and its name."""
        c = self.contours
        for n in names:
            if not c.empty and (c["batch"] == n).any():
                return c[c["batch"] == n], n
        raise Missing(f"contour batch {' or '.join(names)}")

    def rel(self, server: str, tunnel: str, scenario: str, sched: str = "cpf") -> float:
        f = self.fig10
        if f.empty:
            raise Missing("Fig. 10 not run")
        r = f[(f["server_cc"] == server) & (f["tunnel_cc"] == tunnel) & (f["scenario"] == scenario) & (f["sched"] == sched)]
        if r.empty or not np.isfinite(r["relative"].iloc[0]):
            raise Missing(f"Fig. 10 {server} over {tunnel} {scenario} {sched}")
        return float(r["relative"].iloc[0])


def _mean(frame: pd.DataFrame, col: str = "goodput_mbps") -> float:
    if frame.empty:
        raise Missing("no contour points in the region")
    return float(frame[col].mean())


def _sub(tcp: str, used: str) -> str:
    return "" if tcp == used else f" [{used} for {tcp}: TCP tunnels not available]"


# --- each claim: (item, section, what, test) where test(D) -> (verdict, simulated, detail) ----------------

Result = tuple[str, str, str]


def fig2_udp(d: Data) -> Result:
    near, far = d.fig2_rel("udp", "near"), d.fig2_rel("udp", "far")
    ok = all(0.45 <= x <= 0.60 for x in (near, far))
    return (HOLDS if ok else FAILS), f"{100 * near:.1f} / {100 * far:.1f} %", "UDP relative DLCT near / far, ≈ 50 % = 45-60 %"


def fig2_tcp_near(d: Data) -> Result:
    v = d.fig2_rel("tcp", "near")
    return (HOLDS if 0.45 <= v <= 0.60 else FAILS), f"{100 * v:.1f} %", "BBR over CCID5 (A23), proxy near (share 25 %): ≈ 50 % = 45-60 %"


def fig2_tcp_far(d: Data) -> Result:
    v = d.fig2_rel("tcp", "far")
    return (HOLDS if 0.85 <= v <= 1.15 else FAILS), f"{100 * v:.1f} %", "BBR over CCID5, proxy far (share 75 %): unchanged = 85-115 %"


def ideal(d: Data) -> Result:
    vals = []
    for e2e in ("udp", "tcp"):
        for p in ("near", "far"):
            try:
                vals.append(d.fig2_rel(e2e, p))
            except Missing:
                pass
    if not d.fig10.empty:
        vals += [float(x) for x in d.fig10["relative"].dropna()]
    if not vals:
        raise Missing("no relative DLCT")
    lo = min(vals)
    return (HOLDS if lo >= 0.45 else FAILS), f"best {100 * lo:.1f} %", "no configuration beats the 50 % ideal (two equal paths; ≥ 45 %)"


def near_user(d: Data) -> Result:
    b, name = d.batch("bbr-bbr", "bbr-ccid5")
    near, far = _mean(b[b["share"] <= 0.3]), _mean(b[b["share"] >= 0.7])
    return (HOLDS if near > far + MBPS else FAILS), f"{near:.1f} vs {far:.1f} Mbit/s", \
        f"mean throughput, tunnel share ≤ 30 % (proxy near user) vs ≥ 70 %{_sub('bbr-bbr', name)}"


def minimal_share(d: Data) -> Result:
    b, name = d.batch("bbr-bbr", "bbr-ccid5")
    v = _mean(b[b["share"] >= 0.8])
    return (HOLDS if v <= 60 else FAILS), f"{v:.1f} Mbit/s", f"mean throughput where ≤ 20 % of the E2E RTT is server-proxy (share ≥ 80 %), minimal = ≤ 60{_sub('bbr-bbr', name)}"


def short_e2e(d: Data) -> Result:
    b, name = d.batch("bbr-bbr", "bbr-ccid5")
    v = _mean(b[b["e2e_ms"] < 20])
    return (HOLDS if v <= 60 else FAILS), f"{v:.1f} Mbit/s", f"mean throughput at E2E RTT < 20 ms, none = ≤ 60{_sub('bbr-bbr', name)}"


def short_e2e_relative(d: Data) -> Result:
    b, name = d.batch("bbr-bbr", "bbr-ccid5")
    lo, hi = _mean(b[b["e2e_ms"] < 20]), _mean(b[b["e2e_ms"] >= 40])
    return (HOLDS if lo + MBPS < hi else FAILS), f"{lo:.1f} vs {hi:.1f} Mbit/s", f"E2E RTT < 20 ms vs ≥ 40 ms{_sub('bbr-bbr', name)}"


def ccid5_short_tunnel(d: Data) -> Result:
    b, _ = d.batch("bbr-ccid5")
    lo, hi = _mean(b[b["tunnel_rtt_ms"] < 10]), _mean(b[b["tunnel_rtt_ms"] >= 10])
    return (HOLDS if lo + MBPS < hi else FAILS), f"{lo:.1f} vs {hi:.1f} Mbit/s", "BBR over CCID5: tunnel RTT < 10 ms vs ≥ 10 ms"


def fig8a(d: Data) -> Result:
    best = []
    for n in ("cubic-bbr-buf250", "cubic-bbr-buf500", "cubic-bbr-buf1000", "cubic-ccid5-buf250", "cubic-ccid5-buf500", "cubic-ccid5-buf1000"):
        try:
            best.append(_mean(d.batch(n)[0].nlargest(1, "goodput_mbps")))
        except Missing:
            pass
    if not best:
        raise Missing("Cubic contour batches")
    v = max(best)
    return (HOLDS if v >= 90 else FAILS), f"{v:.1f} Mbit/s", "Cubic over BBR/CCID5 reaches full aggregation somewhere (best point ≥ 90)"


def circle(buf: str, t_ms: float) -> Callable[[Data], Result]:
    def test(d: Data) -> Result:
        b, name = d.batch(f"cubic-bbr-{buf}", f"cubic-ccid5-{buf}")
        lo, hi = _mean(b[b["tunnel_rtt_ms"] < t_ms]), _mean(b[b["tunnel_rtt_ms"] >= t_ms])
        return (HOLDS if lo > hi + 5 else FAILS), f"{lo:.1f} vs {hi:.1f} Mbit/s", \
            f"Cubic, buffer {buf}: mean throughput inside vs outside the {t_ms:g} ms tunnel-RTT curve (more by > 5){_sub(f'cubic-bbr-{buf}', name)}"
    return test


def long_tunnel(d: Data) -> Result:
    rhos = []
    for buf in ("buf250", "buf500", "buf1000"):
        try:
            b, name = d.batch(f"cubic-bbr-{buf}", f"cubic-ccid5-{buf}")
        except Missing:
            continue
        rhos.append(spearman(b["tunnel_rtt_ms"], b["goodput_mbps"]))
    rhos = [r for r in rhos if np.isfinite(r)]
    if not rhos:
        raise Missing("Cubic contour batches")
    return (HOLDS if all(r < -0.2 for r in rhos) else FAILS), ", ".join(f"{r:+.2f}" for r in rhos), \
        "Spearman ρ(tunnel RTT, throughput) per buffer, each < −0.2 (Cubic over CCID5 where BBR is unavailable)"


def small_buffer(d: Data) -> Result:
    m = {}
    for buf in ("buf250", "buf1000"):
        b, name = d.batch(f"cubic-bbr-{buf}", f"cubic-ccid5-{buf}")
        m[buf] = _mean(b)
    return (HOLDS if m["buf250"] + MBPS < m["buf1000"] else FAILS), f"{m['buf250']:.1f} vs {m['buf1000']:.1f} Mbit/s", \
        "Cubic: mean throughput over the points, buffer 250 vs 1000 packets (CCID5 for BBR where unavailable)"


def divide(d: Data) -> Result:
    b, name = d.batch("bbr-newreno", "bbr-ccid2")
    bins = b.assign(bin=(b["e2e_ms"] // 10) * 10 + 5).groupby("bin")["goodput_mbps"].mean()
    above = bins[bins >= 70]
    if above.empty:
        return FAILS, "never ≥ 70 Mbit/s", f"no 10-ms E2E bin reaches 70 Mbit/s{_sub('bbr-newreno', name)}"
    x = float(above.index.min()) - 5
    return (HOLDS if 30 <= x <= 50 else FAILS), f"{x:.0f} ms", f"first 10-ms E2E RTT bin whose mean throughput ≥ 70 (the divide), 40 ± 10{_sub('bbr-newreno', name)}"


def short_rtt_inhibits(d: Data) -> Result:
    b, name = d.batch("bbr-newreno", "bbr-ccid2")
    lo, hi = _mean(b[b["e2e_ms"] < 30]), _mean(b[b["e2e_ms"] > 50])
    return (HOLDS if lo + MBPS < hi else FAILS), f"{lo:.1f} vs {hi:.1f} Mbit/s", f"E2E RTT < 30 ms vs > 50 ms{_sub('bbr-newreno', name)}"


def _cmp(d: Data, server: str, tunnel: str, better: str, worse: str, rtts: tuple[str, ...] = ("SHORT", "LONG")) -> tuple[bool, str]:
    """better < worse (relative DLCT) at each RTT; scenario names without the RTT prefix
    ("" is the plain one)."""
    ok, texts = True, []
    for rtt in rtts:
        a = d.rel(server, tunnel, rtt + (f"-{better}" if better else ""))
        b = d.rel(server, tunnel, rtt + (f"-{worse}" if worse else ""))
        ok &= a < b - MARGIN
        texts.append(f"{rtt}: {better or 'default'} {100 * a:.0f} % vs {worse or 'default'} {100 * b:.0f} %")
    return ok, "; ".join(texts)


def parts(*specs: tuple[str, Callable[[Data], tuple[bool, str]]]) -> Callable[[Data], Result]:
    def test(d: Data) -> Result:
        ok, texts, missing = True, [], []
        for label, f in specs:
            try:
                good, text = f(d)
            except Missing as e:
                missing.append(f"{label}: not simulated ({e})")
                continue
            ok &= good
            texts.append(f"{label}: {'yes' if good else 'NO'} ({text})")
        if not texts:
            raise Missing("; ".join(missing))
        return (HOLDS if ok else FAILS), f"{sum(t.split(': ', 1)[1].startswith('yes') for t in texts)}/{len(texts)} parts", \
            " | ".join(texts + missing)
    return test


def _ranking(d: Data, server: str) -> tuple[bool, str]:
    a = np.mean([d.rel(server, "ccid5", s) for s in _scen(d)])
    b = np.mean([d.rel(server, "ccid2", s) for s in _scen(d)])
    return bool(b > a + MARGIN), f"mean CCID2 {100 * b:.0f} % vs CCID5 {100 * a:.0f} %"


def _scen(d: Data) -> list[str]:
    if d.fig10.empty:
        raise Missing("Fig. 10 not run")
    return sorted(set(d.fig10["scenario"]))


def _long_vs_short(d: Data) -> tuple[bool, str]:
    a, b = d.rel("bbr", "ccid2", "LONG"), d.rel("bbr", "ccid2", "SHORT")
    return a < b - MARGIN, f"LONG {100 * a:.0f} % vs SHORT {100 * b:.0f} %"


def _codel_long(d: Data) -> tuple[bool, str]:
    short, t1 = _cmp(d, "bbr", "ccid2", "CDL1", "", ("SHORT",))
    long_, t2 = _cmp(d, "bbr", "ccid2", "", "CDL1", ("LONG",))
    return short and long_, f"{t1}; {t2}"


def srtt_vs_cpf(d: Data) -> Result:
    f = d.fig10
    if f.empty or not {"cpf", "srtt"} <= set(f["sched"]):
        raise Missing("Fig. 10 with both schedulers")
    p = f.pivot_table(index=["server_cc", "tunnel_cc", "scenario"], columns="sched", values="relative").dropna()
    wins = int((p["srtt"] <= p["cpf"] + 1e-9).sum())
    return (HOLDS if wins == len(p) else FAILS), f"{wins}/{len(p)}", \
        f"cases (server x tunnel CCA x scenario) where SRTT's relative DLCT ≤ CPF's; mean CPF {100 * p['cpf'].mean():.0f} %, SRTT {100 * p['srtt'].mean():.0f} %"


def best_tunnel(d: Data) -> Result:
    t = d.table3
    if t.empty or "bbr2" not in set(t["tunnel_cc"]):
        raise Missing("BBRv2 tunnels need TCP tunnel paths")
    ok = all(t[t["server_cc"] == s].sort_values("cpf")["tunnel_cc"].iloc[0] == "bbr2" for s in ("bbr", "cubic"))
    return (HOLDS if ok else FAILS), "", "BBRv2 ranks first under CPF for both server CCAs"


def server_dynamics(d: Data) -> Result:
    fr = {}
    for server, names in (("bbr", ("bbr-ccid5", "bbr-ccid2")), ("cubic", ("cubic-ccid5-buf250", "cubic-ccid5-buf500", "cubic-ccid5-buf1000"))):
        rows = [d.batch(n)[0] for n in names if not d.contours.empty and (d.contours["batch"] == n).any()]
        if not rows:
            raise Missing(f"{server} contour batches")
        g = pd.concat(rows)["goodput_mbps"]
        fr[server] = float(((g > 60) & (g < 85)).mean())
    return (HOLDS if fr["bbr"] < fr["cubic"] else FAILS), f"{100 * fr['bbr']:.0f} % vs {100 * fr['cubic']:.0f} %", \
        "share of contour points with partial aggregation (60-85 Mbit/s): BBR server vs Cubic server (DCCP tunnels)"


NOT_RESULT = "an input, a count, a definition or background, not a simulated result"
TCP_ONLY = "needs reliable TCP tunnel paths (BBR, BBRv2, NewReno tunnels), which the simulator refuses today"

#: item of reference/seed003.csv (or a finding id) -> (claim, test or None).
CLAIMS: dict[str, tuple[str, Callable[[Data], Result] | None]] = {
    "ideal_relative_download_time": ("multipath ideally halves the download time", ideal),
    "fig2_e2e_udp_relative_download_time": ("E2E UDP: ≈ 50 % for near and far proxy", fig2_udp),
    "fig2_e2e_tcp_near_proxy": ("E2E TCP, proxy near the user: download time cut in half", fig2_tcp_near),
    "fig2_e2e_tcp_far_proxy": ("E2E TCP, proxy far from the user: unchanged vs single path", fig2_tcp_far),
    "fig5_minimal_aggregation_server_proxy_rtt_share": ("BBR over BBR: minimal aggregation when ≤ 20 % of the E2E RTT is server-proxy", minimal_share),
    "no_aggregation_e2e_rtt_below": ("BBR over BBR: minimal aggregation when the E2E RTT < 20 ms", short_e2e),
    "ccid5_tunnel_rtt_restricting_aggregation_below": ("BBR over CCID5: tunnels shorter than ~10 ms restrict aggregation", ccid5_short_tunnel),
    "finding_proxy_near_user": ("a proxy near the user increases aggregation (BBR over BBR)", near_user),
    "finding_short_e2e_rtt": ("aggregation does not occur if the E2E RTT is short (BBR over BBR)", short_e2e_relative),
    "finding_bbrv2_vs_bbr_tunnel": ("BBRv2 tunnels aggregate more than BBR when the tunnel RTT is long, with CoDel, or a small buffer", None),
    "fig8a_full_aggregation_rate": ("Cubic over BBR/CCID5: full aggregation (100 Mbit/s) in some setting", fig8a),
    "circle_tunnel_rtt_buffer_250": ("Cubic over BBR, 250 packets: aggregation inside the 25 ms tunnel-RTT curve", circle("buf250", 25.0)),
    "circle_tunnel_rtt_buffer_500": ("Cubic over BBR, 500 packets: aggregation inside the 50 ms tunnel-RTT curve", circle("buf500", 50.0)),
    "finding_long_tunnel_rtt": ("a long tunnel RTT reduces aggregation (Cubic over BBR/CCID5)", long_tunnel),
    "finding_small_buffer": ("a small bottleneck buffer reduces aggregation (Cubic over BBR)", small_buffer),
    "finding_bbrv2_more_aggregation": ("BBRv2 tunnels aggregate more than BBR tunnels (Cubic server)", None),
    "dlct_bbr_tunnel_150ms_margin_vs_single_path": ("BBR tunnel, 150 ms reorder margin: 68.7 % of single-path DLCT", None),
    "dlct_bbr_tunnel_150ms_margin_vs_multipath_5ms": ("BBR tunnel: 150 ms margin gives 76.2 % of the 5 ms margin's DLCT", None),
    "dlct_bbrv2_tunnel_150ms_margin_vs_single_path": ("BBRv2 tunnel, 150 ms margin: 65.4 % of single-path DLCT", None),
    "dlct_bbrv2_tunnel_150ms_margin_vs_multipath_5ms": ("BBRv2 tunnel: 150 ms margin gives 74.0 % of the 5 ms margin's DLCT", None),
    "fig9c_red_blue_divide_e2e_rtt": ("BBR over NewReno: a near-vertical red-blue divide at E2E RTT ≈ 40 ms", divide),
    "finding_short_rtt_inhibits": ("a short RTT inhibits aggregation (BBR over NewReno)", short_rtt_inhibits),
    "finding_excessive_buffer_inhibits": ("an excessive buffer inhibits aggregation (BBR over NewReno/CCID2)", parts(
        ("BBR/CCID2 BUF250 better than BUF1000", lambda d: _cmp(d, "bbr", "ccid2", "BUF250", "BUF1000")))),
    "optimal_relative_dlct": ("the optimal relative DLCT is around 50 %", ideal),
    "finding_bbr_over_bbr_ccid5": ("BBR over BBR/CCID5: better with the proxy near; small buffer or CoDel inhibit; CCID5 better than BBR", parts(
        ("CCID5 NEAR better than DIST", lambda d: _cmp(d, "bbr", "ccid5", "NEAR", "DIST")),
        ("CCID5 BUF250 worse than default", lambda d: _cmp(d, "bbr", "ccid5", "", "BUF250")),
        ("CCID5 CoDel worse than drop-tail", lambda d: _cmp(d, "bbr", "ccid5", "", "CDL1")))),
    "finding_cubic_over_bbr_ccid5": ("Cubic over BBR/CCID5: short tunnel and large buffer help; CoDel hurts; CCID5 worse than BBR", parts(
        ("CCID5 NEAR better than DIST", lambda d: _cmp(d, "cubic", "ccid5", "NEAR", "DIST")),
        ("CCID5 BUF1000 better than BUF250", lambda d: _cmp(d, "cubic", "ccid5", "BUF1000", "BUF250")),
        ("CCID5 CoDel worse than drop-tail", lambda d: _cmp(d, "cubic", "ccid5", "", "CDL1")))),
    "finding_bbr_over_newreno_ccid2": ("BBR over NewReno/CCID2: long RTT or small buffer very good; CoDel helps except at long RTT; bad tunnel CCAs", parts(
        ("CCID2 LONG better than SHORT", _long_vs_short),
        ("CCID2 BUF250 better than default", lambda d: _cmp(d, "bbr", "ccid2", "BUF250", "")),
        ("CCID2 CoDel better at SHORT, not at LONG", _codel_long),
        ("CCID2 worse than CCID5 on average", lambda d: _ranking(d, "bbr")))),
    "finding_cubic_over_newreno_ccid2": ("Cubic over NewReno/CCID2: CoDel very detrimental with CCID2; a big buffer preferable for CCID2", parts(
        ("CCID2 CoDel worse than drop-tail", lambda d: _cmp(d, "cubic", "ccid2", "", "CDL1")),
        ("CCID2 BUF1000 better than BUF250", lambda d: _cmp(d, "cubic", "ccid2", "BUF1000", "BUF250")))),
    "finding_proxy_near_user_only_bbr_ccid5": ("proxy near and large buffer help only with BBR/CCID5 tunnels; small buffer only with NewReno/CCID2 (not Cubic over CCID2)", parts(
        ("NEAR better than DIST with CCID5 (BBR server)", lambda d: _cmp(d, "bbr", "ccid5", "NEAR", "DIST")),
        ("NEAR not better than DIST with CCID2 (BBR server)", lambda d: (lambda ok, t: (not ok, t))(*_cmp(d, "bbr", "ccid2", "NEAR", "DIST"))),
        ("BUF250 better than default with CCID2 (BBR server)", lambda d: _cmp(d, "bbr", "ccid2", "BUF250", "")),
        ("BUF250 not better than default with CCID2 (Cubic server)", lambda d: (lambda ok, t: (not ok, t))(*_cmp(d, "cubic", "ccid2", "BUF250", ""))))),
    "finding_best_tunnel_cca": ("BBRv2 is the top tunnel CCA for both server CCAs (Table 3)", best_tunnel),
    "finding_srtt_vs_cpf": ("SRTT performed better than CPF in all scenarios (Table 3)", srtt_vs_cpf),
    "finding_server_bbr_vs_cubic": ("BBR server: aggregation all or nothing; Cubic server: gradual", server_dynamics),
}
#: Paper findings of sec. 1 and 6 with no row in the reference table.
EXTRA = {
    "headline_cpf_poor": ("CPF performs poorly and is often unable to achieve aggregation (sec. 1)", parts(
        ("mean CPF relative DLCT over Fig. 10 above 75 %", lambda d: (lambda m: (m > 0.75, f"{100 * m:.0f} %"))(
            float(d.fig10[d.fig10["sched"] == "cpf"]["relative"].mean()) if not d.fig10.empty else _raise())))),
}


def _raise() -> float:
    raise Missing("Fig. 10 not run")


def claims(fig2: pd.DataFrame, contours: pd.DataFrame, fig10: pd.DataFrame, table3: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """One row per reference row and per extra finding: section, item, claim, published, unit,
    verdict, simulated, detail."""
    d = Data(fig2, contours, fig10, table3)
    rows = []
    for r in published.itertuples():
        claim, test = CLAIMS.get(r.item, (str(r.note), None))
        value = "" if (isinstance(r.value, float) and math.isnan(r.value)) or pd.isna(r.value) else r.value
        rows.append(_judge(str(r.section), str(r.item), claim, value, "" if pd.isna(r.unit) else str(r.unit), test, d, r.item in CLAIMS))
    for item, (claim, test) in EXTRA.items():
        rows.append(_judge("1", item, claim, "", "", test, d, True))
    return pd.DataFrame(rows, columns=["section", "item", "claim", "published", "unit", "verdict", "simulated", "detail"])


def _judge(section: str, item: str, claim: str, value: object, unit: str, test: Callable[[Data], Result] | None, d: Data,
           is_claim: bool) -> dict[str, object]:
    row = {"section": section, "item": item, "claim": claim, "published": value, "unit": unit}
    if test is None:
        why = TCP_ONLY if is_claim else NOT_RESULT
        return {**row, "verdict": NOT_COMPARABLE, "simulated": None, "detail": why}
    try:
        verdict, simulated, detail = test(d)
    except Missing as e:
        return {**row, "verdict": NOT_COMPARABLE, "simulated": None, "detail": f"not simulated: {e}"}
    return {**row, "verdict": verdict, "simulated": simulated, "detail": detail}
