"""Seed 003: every row of reference/seed003.csv and every finding of the paper's sec. 5-6,
judged on the simulated numbers: HOLDS, FAILS, or NOT COMPARABLE (a value it needs was not
simulated, e.g. the TCP-tunnel runs of a `--pairs` selection without them, or a row that is an
input, a count or background rather than a result).

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
- A finding about a TCP tunnel CCA (BBR, BBRv2, NewReno) is judged on the TCP-tunnel runs;
  findings written "X/Y" (e.g. "BBR over NewReno/CCID2") get parts for both. Only when the TCP
  runs are absent (a `--pairs` selection, a simulator refusing TCP tunnels) is a contour claim
  judged on the DCCP sibling (CCID5 for BBR, CCID2 for NewReno; the paper: "CCID2 and CCID5 are
  implementations of NewReno and BBR", sec. 4.1), saying so, and a claim with no sibling is
  NOT COMPARABLE (TCP_ONLY).
- Fig. 2's TCP bars are BBR over BBR on TCP tunnels (A23's recommendation, adopted after BBR over
  CCID5 had run; docs/reproductions.md says so); BBR over CCID5 is judged too, as extra rows (`fig2_e2e_tcp_*_proxy_ccid5`).
- Sec. 5.2's margin rows (A19): Cubic over BBR / BBRv2 TCP tunnels, CPF, the 15 Fig. 10
  scenarios, ratios of means over the scenarios; HOLDS within MARGIN_TOL (10 percentage points)
  of the published percentage.
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
#: Sec. 5.2's margin percentages: HOLDS within this many (absolute) of the published ratio.
MARGIN_TOL = 0.10
#: Fig. 2's configurations (study.fig2_config) and their labels.
FIG2_LABELS = {"udp-ccid5": "UDP over CCID5", "bbr-bbr": "BBR over BBR (TCP tunnels, A23)", "bbr-ccid5": "BBR over CCID5"}


class Missing(Exception):
    """A value the claim needs was not simulated."""


class Data:
    """The reproduction's tables: fig2, contours, fig10, table3, margin."""

    def __init__(self, fig2: pd.DataFrame, contours: pd.DataFrame, fig10: pd.DataFrame, table3: pd.DataFrame,
                 margin: pd.DataFrame | None = None) -> None:
        self.fig2, self.contours, self.fig10, self.table3 = fig2, contours, fig10, table3
        self.margin = margin if margin is not None else pd.DataFrame()

    def fig2_rel(self, e2e: str, placement: str, config: str | None = None) -> float:
        f = self.fig2
        if f.empty:
            raise Missing("Fig. 2 not run")
        r = f[(f["e2e"] == e2e) & (f["placement"] == placement)]
        if config is not None and "config" in r.columns:
            r = r[r["config"] == config]
        if r.empty or not np.isfinite(r["relative"].iloc[0]):
            raise Missing(f"Fig. 2 {config or e2e} {placement}")
        return float(r["relative"].iloc[0])

    def margin_row(self, tunnel: str) -> pd.Series:
        m = self.margin
        r = m[m["tunnel_cc"] == tunnel] if not m.empty else m
        if r.empty:
            raise Missing(f"sec. 5.2 150 ms-margin runs over {tunnel}")
        return r.iloc[0]

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
    return "" if tcp == used else f" [{used} for {tcp}: the TCP-tunnel batch was not run]"


def _batch_label(name: str) -> str:
    """"cubic-bbr-buf250" -> "Cubic over BBR (TCP tunnels)"."""
    server, tunnel = name.split("-")[:2]
    tcp = tunnel in ("bbr", "bbr2", "newreno")
    return f"{server.capitalize() if server == 'cubic' else server.upper()} over {tunnel.upper()}{' (TCP tunnels)' if tcp else ''}"


# --- each claim: (item, section, what, test) where test(D) -> (verdict, simulated, detail) ----------------

Result = tuple[str, str, str]


def fig2_udp(d: Data) -> Result:
    near, far = d.fig2_rel("udp", "near"), d.fig2_rel("udp", "far")
    ok = all(0.45 <= x <= 0.60 for x in (near, far))
    return (HOLDS if ok else FAILS), f"{100 * near:.1f} / {100 * far:.1f} %", "UDP relative DLCT near / far, ≈ 50 % = 45-60 %"


def _fig2_tcp(d: Data, placement: str, config: str | None) -> tuple[float, str, str]:
    """Fig. 2's TCP bar: `config`, or BBR over BBR with BBR over CCID5 as the fallback when the
    TCP-tunnel runs are absent."""
    if config is not None:
        return d.fig2_rel("tcp", placement, config), config, ""
    try:
        return d.fig2_rel("tcp", placement, "bbr-bbr"), "bbr-bbr", ""
    except Missing:
        return d.fig2_rel("tcp", placement, "bbr-ccid5"), "bbr-ccid5", " [BBR over CCID5: the TCP-tunnel runs were not run]"


def fig2_tcp_near(config: str | None = None) -> Callable[[Data], Result]:
    def test(d: Data) -> Result:
        v, cfg, note = _fig2_tcp(d, "near", config)
        return (HOLDS if 0.45 <= v <= 0.60 else FAILS), f"{100 * v:.1f} %", \
            f"{FIG2_LABELS[cfg]}, CPF, proxy near (share 25 %): ≈ 50 % = 45-60 %{note}"
    return test


def fig2_tcp_far(config: str | None = None) -> Callable[[Data], Result]:
    def test(d: Data) -> Result:
        v, cfg, note = _fig2_tcp(d, "far", config)
        return (HOLDS if 0.85 <= v <= 1.15 else FAILS), f"{100 * v:.1f} %", \
            f"{FIG2_LABELS[cfg]}, CPF, proxy far (share 75 %): unchanged = 85-115 %{note}"
    return test


def ideal(d: Data) -> Result:
    vals = [float(x) for x in d.fig2["relative"].dropna()] if not d.fig2.empty else []
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
    rhos, used = [], []
    for buf in ("buf250", "buf500", "buf1000"):
        try:
            b, name = d.batch(f"cubic-bbr-{buf}", f"cubic-ccid5-{buf}")
        except Missing:
            continue
        r = spearman(b["tunnel_rtt_ms"], b["goodput_mbps"])
        if np.isfinite(r):
            rhos.append(r)
            used.append(f"{name}{_sub(f'cubic-bbr-{buf}', name)}")
    if not rhos:
        raise Missing("Cubic contour batches")
    return (HOLDS if all(r < -0.2 for r in rhos) else FAILS), ", ".join(f"{r:+.2f}" for r in rhos), \
        f"Spearman ρ(tunnel RTT, throughput) per buffer 250/500/1000 p, each < −0.2: {', '.join(used)}"


def small_buffer(d: Data) -> Result:
    m, names = {}, []
    for buf in ("buf250", "buf1000"):
        b, name = d.batch(f"cubic-bbr-{buf}", f"cubic-ccid5-{buf}")
        m[buf] = _mean(b)
        names.append(f"{name}{_sub(f'cubic-bbr-{buf}', name)}")
    return (HOLDS if m["buf250"] + MBPS < m["buf1000"] else FAILS), f"{m['buf250']:.1f} vs {m['buf1000']:.1f} Mbit/s", \
        f"{_batch_label(names[0])}: mean throughput over the points, buffer 250 vs 1000 packets ({', '.join(names)})"


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
        ok, texts, missing, yes = True, [], [], 0
        for label, f in specs:
            try:
                good, text = f(d)
            except Missing as e:
                missing.append(f"{label}: not simulated ({e})")
                continue
            ok &= good
            yes += bool(good)
            texts.append(f"{label}: {'yes' if good else 'NO'} ({text})")
        if not texts:
            raise Missing("; ".join(missing))
        return (HOLDS if ok else FAILS), f"{yes}/{len(texts)} parts", " | ".join(texts + missing)
    return test


def _ranking(d: Data, server: str, better: str = "ccid5", worse: str = "ccid2") -> tuple[bool, str]:
    """`worse`'s mean relative DLCT over the scenarios exceeds `better`'s by more than MARGIN."""
    a = np.mean([d.rel(server, better, s) for s in _scen(d)])
    b = np.mean([d.rel(server, worse, s) for s in _scen(d)])
    return bool(b > a + MARGIN), f"mean {worse.upper()} {100 * b:.0f} % vs {better.upper()} {100 * a:.0f} %"


def _cca(d: Data, server: str, better: str, worse: str, scens: tuple[str, ...]) -> tuple[bool, str]:
    """Tunnel CCA `better` has a lower relative DLCT than `worse` (by > MARGIN) in each scenario."""
    ok, texts = True, []
    for sc in scens:
        a, b = d.rel(server, better, sc), d.rel(server, worse, sc)
        ok &= a < b - MARGIN
        texts.append(f"{sc}: {better.upper()} {100 * a:.0f} % vs {worse.upper()} {100 * b:.0f} %")
    return ok, "; ".join(texts)


def _contour_cmp(d: Data, better: str, worse: str, region: Callable[[pd.DataFrame], pd.Series] | None = None,
                 what: str = "all points") -> tuple[bool, str]:
    """Contour batch `better` has a higher mean throughput than `worse` (by > MBPS) over `region`."""
    a, _ = d.batch(better)
    b, _ = d.batch(worse)
    if region is not None:
        a, b = a[region(a)], b[region(b)]
    x, y = _mean(a), _mean(b)
    return x > y + MBPS, f"{what}: {better} {x:.1f} vs {worse} {y:.1f} Mbit/s"


def _codel_worse_delta(d: Data, server: str, less: str, more: str) -> tuple[bool, str]:
    """CoDel's damage (CDL1 minus default, mean of SHORT and LONG) is smaller with tunnel CCA `less`."""
    def delta(t: str) -> float:
        return float(np.mean([d.rel(server, t, f"{r}-CDL1") - d.rel(server, t, r) for r in ("SHORT", "LONG")]))
    a, b = delta(less), delta(more)
    return a < b - MARGIN, f"CDL1 minus default: {less.upper()} {100 * a:+.0f} points vs {more.upper()} {100 * b:+.0f} points"


def _scen(d: Data) -> list[str]:
    if d.fig10.empty:
        raise Missing("Fig. 10 not run")
    return sorted(set(d.fig10["scenario"]))


def _long_vs_short(d: Data, tunnel: str = "ccid2") -> tuple[bool, str]:
    a, b = d.rel("bbr", tunnel, "LONG"), d.rel("bbr", tunnel, "SHORT")
    return a < b - MARGIN, f"LONG {100 * a:.0f} % vs SHORT {100 * b:.0f} %"


def _codel_long(d: Data, tunnel: str = "ccid2") -> tuple[bool, str]:
    short, t1 = _cmp(d, "bbr", tunnel, "CDL1", "", ("SHORT",))
    long_, t2 = _cmp(d, "bbr", tunnel, "", "CDL1", ("LONG",))
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
        raise Missing("no BBRv2 tunnel runs in Table 3")
    tops = {s: t[t["server_cc"] == s].sort_values("cpf").iloc[0] for s in ("bbr", "cubic")}
    ok = all(r["tunnel_cc"] == "bbr2" for r in tops.values())
    return (HOLDS if ok else FAILS), "; ".join(f"{s}: {r['tunnel_cc']} {100 * r['cpf']:.1f} %" for s, r in tops.items()), \
        "top tunnel CCA under CPF (mean relative DLCT over the scenarios) per server CCA; BBRv2 must be first for both"


def bbrv2_vs_bbr(d: Data) -> Result:
    return parts(
        ("long tunnel RTT (contours, tunnel RTT ≥ 40 ms): BBR over BBRv2 more than over BBR",
         lambda d: _contour_cmp(d, "bbr-bbr2", "bbr-bbr", lambda b: b["tunnel_rtt_ms"] >= 40, "tunnel RTT ≥ 40 ms")),
        ("long tunnel RTT (Fig. 10 LONG-DIST, 60 ms tunnel RTT): BBRv2 better than BBR", lambda d: _cca(d, "bbr", "bbr2", "bbr", ("LONG-DIST",))),
        ("CoDel: BBRv2 better than BBR", lambda d: _cca(d, "bbr", "bbr2", "bbr", ("SHORT-CDL1", "LONG-CDL1"))),
        ("small buffer: BBRv2 better than BBR", lambda d: _cca(d, "bbr", "bbr2", "bbr", ("SHORT-BUF250", "LONG-BUF250"))))(d)


def bbrv2_more(d: Data) -> Result:
    return parts(
        *[(f"contours, buffer {b[3:]} p: Cubic over BBRv2 more than over BBR",
           (lambda b: lambda d: _contour_cmp(d, f"cubic-bbr2-{b}", f"cubic-bbr-{b}"))(b)) for b in ("buf250", "buf500", "buf1000")],
        ("Fig. 10, Cubic server: BBRv2 better than BBR on average", lambda d: _ranking(d, "cubic", "bbr2", "bbr")))(d)


def margin(tunnel: str, column: str, published: float) -> Callable[[Data], Result]:
    """Sec. 5.2 (A19): a ratio of means of margin.csv against the published percentage."""
    def test(d: Data) -> Result:
        r = d.margin_row(tunnel)
        v = float(r[column])
        num, den = (r["dlct150_s"], r["single_s"]) if column == "vs_single" else (r["dlct150_s"], r["dlct5_s"])
        what = "single-path DLCT" if column == "vs_single" else "DLCT with the 5 ms margin"
        return (HOLDS if abs(v - published) <= MARGIN_TOL else FAILS), f"{100 * v:.1f} %", \
            (f"Cubic over {tunnel.upper()} (TCP tunnels), CPF, {int(r['scenarios'])} Fig. 10 scenarios (A19): mean DLCT with 150 ms "
             f"padding {num:.1f} s / mean {what} {den:.1f} s; within ±{100 * MARGIN_TOL:.0f} points of {100 * published:.1f} %")
    return test


def margin_helps(d: Data) -> Result:
    ok, texts = True, []
    for t in MARGIN_CCAS:
        r = d.margin_row(t)
        ok &= float(r["vs_5ms"]) < 1 - MARGIN
        texts.append(f"{t.upper()} {100 * float(r['vs_5ms']):.1f} %")
    return (HOLDS if ok else FAILS), " / ".join(texts), \
        "DLCT with 150 ms reorder padding / with 5 ms, Cubic over BBR / BBRv2 (TCP tunnels), CPF, Fig. 10 scenarios; decreased = below 99 %"


MARGIN_CCAS = ("bbr", "bbr2")


def server_dynamics(d: Data) -> Result:
    fr = {}
    bufs = ("buf250", "buf500", "buf1000")
    for server, names in (("bbr", ("bbr-ccid5", "bbr-ccid2", "bbr-bbr", "bbr-bbr2", "bbr-newreno")),
                          ("cubic", tuple(f"cubic-{t}-{b}" for t in ("ccid5", "bbr", "bbr2") for b in bufs))):
        rows = [d.batch(n)[0] for n in names if not d.contours.empty and (d.contours["batch"] == n).any()]
        if not rows:
            raise Missing(f"{server} contour batches")
        g = pd.concat(rows)["goodput_mbps"]
        fr[server] = float(((g > 60) & (g < 85)).mean())
    return (HOLDS if fr["bbr"] < fr["cubic"] else FAILS), f"{100 * fr['bbr']:.0f} % vs {100 * fr['cubic']:.0f} %", \
        "share of contour points with partial aggregation (60-85 Mbit/s): BBR server vs Cubic server (every contour batch that ran)"


NOT_RESULT = "an input, a count, a definition or background, not a simulated result"
TCP_ONLY = ("needs the TCP-tunnel runs (BBR, BBRv2, NewReno tunnels), which this reproduction did not run "
            "(a --pairs selection without them, or a simulator that refuses TCP tunnels)")
#: Claims with no DCCP sibling: NOT COMPARABLE with TCP_ONLY when the TCP-tunnel runs are absent.
TCP_NEEDED = {"finding_bbrv2_vs_bbr_tunnel", "finding_bbrv2_more_aggregation", "finding_best_tunnel_cca", "receiver_wait_margin_added",
              "dlct_bbr_tunnel_150ms_margin_vs_single_path", "dlct_bbr_tunnel_150ms_margin_vs_multipath_5ms",
              "dlct_bbrv2_tunnel_150ms_margin_vs_single_path", "dlct_bbrv2_tunnel_150ms_margin_vs_multipath_5ms"}

#: item of reference/seed003.csv (or a finding id) -> (claim, test or None).
CLAIMS: dict[str, tuple[str, Callable[[Data], Result] | None]] = {
    "ideal_relative_download_time": ("multipath ideally halves the download time", ideal),
    "fig2_e2e_udp_relative_download_time": ("E2E UDP: ≈ 50 % for near and far proxy", fig2_udp),
    "fig2_e2e_tcp_near_proxy": ("E2E TCP, proxy near the user: download time cut in half", fig2_tcp_near()),
    "fig2_e2e_tcp_far_proxy": ("E2E TCP, proxy far from the user: unchanged vs single path", fig2_tcp_far()),
    "fig5_minimal_aggregation_server_proxy_rtt_share": ("BBR over BBR: minimal aggregation when ≤ 20 % of the E2E RTT is server-proxy", minimal_share),
    "no_aggregation_e2e_rtt_below": ("BBR over BBR: minimal aggregation when the E2E RTT < 20 ms", short_e2e),
    "ccid5_tunnel_rtt_restricting_aggregation_below": ("BBR over CCID5: tunnels shorter than ~10 ms restrict aggregation", ccid5_short_tunnel),
    "finding_proxy_near_user": ("a proxy near the user increases aggregation (BBR over BBR)", near_user),
    "finding_short_e2e_rtt": ("aggregation does not occur if the E2E RTT is short (BBR over BBR)", short_e2e_relative),
    "finding_bbrv2_vs_bbr_tunnel": ("BBRv2 tunnels aggregate more than BBR when the tunnel RTT is long, with CoDel, or a small buffer (BBR server)", bbrv2_vs_bbr),
    "fig8a_full_aggregation_rate": ("Cubic over BBR/CCID5: full aggregation (100 Mbit/s) in some setting", fig8a),
    "circle_tunnel_rtt_buffer_250": ("Cubic over BBR, 250 packets: aggregation inside the 25 ms tunnel-RTT curve", circle("buf250", 25.0)),
    "circle_tunnel_rtt_buffer_500": ("Cubic over BBR, 500 packets: aggregation inside the 50 ms tunnel-RTT curve", circle("buf500", 50.0)),
    "finding_long_tunnel_rtt": ("a long tunnel RTT reduces aggregation (Cubic over BBR/CCID5)", long_tunnel),
    "finding_small_buffer": ("a small bottleneck buffer reduces aggregation (Cubic over BBR)", small_buffer),
    "finding_bbrv2_more_aggregation": ("BBRv2 tunnels aggregate more than BBR tunnels (Cubic server)", bbrv2_more),
    "receiver_wait_margin_added": ("an added reorder margin of 150 ms decreases the DLCT (vs 5 ms; Cubic over BBR / BBRv2)", margin_helps),
    "dlct_bbr_tunnel_150ms_margin_vs_single_path": ("BBR tunnel, 150 ms reorder margin: 68.7 % of single-path DLCT",
                                                    margin("bbr", "vs_single", 0.687)),
    "dlct_bbr_tunnel_150ms_margin_vs_multipath_5ms": ("BBR tunnel: 150 ms margin gives 76.2 % of the 5 ms margin's DLCT",
                                                      margin("bbr", "vs_5ms", 0.762)),
    "dlct_bbrv2_tunnel_150ms_margin_vs_single_path": ("BBRv2 tunnel, 150 ms margin: 65.4 % of single-path DLCT",
                                                      margin("bbr2", "vs_single", 0.654)),
    "dlct_bbrv2_tunnel_150ms_margin_vs_multipath_5ms": ("BBRv2 tunnel: 150 ms margin gives 74.0 % of the 5 ms margin's DLCT",
                                                        margin("bbr2", "vs_5ms", 0.740)),
    "fig9c_red_blue_divide_e2e_rtt": ("BBR over NewReno: a near-vertical red-blue divide at E2E RTT ≈ 40 ms", divide),
    "finding_short_rtt_inhibits": ("a short RTT inhibits aggregation (BBR over NewReno)", short_rtt_inhibits),
    "finding_excessive_buffer_inhibits": ("an excessive buffer inhibits aggregation (BBR over NewReno/CCID2)", parts(
        ("BBR/NewReno BUF250 better than BUF1000", lambda d: _cmp(d, "bbr", "newreno", "BUF250", "BUF1000")),
        ("BBR/CCID2 BUF250 better than BUF1000", lambda d: _cmp(d, "bbr", "ccid2", "BUF250", "BUF1000")))),
    "optimal_relative_dlct": ("the optimal relative DLCT is around 50 %", ideal),
    "finding_bbr_over_bbr_ccid5": ("BBR over BBR/CCID5: better with the proxy near; small buffer or CoDel inhibit; CCID5 better than BBR", parts(
        ("BBR NEAR better than DIST", lambda d: _cmp(d, "bbr", "bbr", "NEAR", "DIST")),
        ("BBR BUF250 worse than default", lambda d: _cmp(d, "bbr", "bbr", "", "BUF250")),
        ("BBR CoDel worse than drop-tail", lambda d: _cmp(d, "bbr", "bbr", "", "CDL1")),
        ("CCID5 NEAR better than DIST", lambda d: _cmp(d, "bbr", "ccid5", "NEAR", "DIST")),
        ("CCID5 BUF250 worse than default", lambda d: _cmp(d, "bbr", "ccid5", "", "BUF250")),
        ("CCID5 CoDel worse than drop-tail", lambda d: _cmp(d, "bbr", "ccid5", "", "CDL1")),
        ("CCID5 better than BBR on average", lambda d: _ranking(d, "bbr", "ccid5", "bbr")))),
    "finding_cubic_over_bbr_ccid5": ("Cubic over BBR/CCID5: short tunnel and large buffer help; CoDel hurts; CCID5 worse than BBR", parts(
        ("BBR NEAR better than DIST", lambda d: _cmp(d, "cubic", "bbr", "NEAR", "DIST")),
        ("BBR BUF1000 better than BUF250", lambda d: _cmp(d, "cubic", "bbr", "BUF1000", "BUF250")),
        ("BBR CoDel worse than drop-tail", lambda d: _cmp(d, "cubic", "bbr", "", "CDL1")),
        ("CCID5 NEAR better than DIST", lambda d: _cmp(d, "cubic", "ccid5", "NEAR", "DIST")),
        ("CCID5 BUF1000 better than BUF250", lambda d: _cmp(d, "cubic", "ccid5", "BUF1000", "BUF250")),
        ("CCID5 CoDel worse than drop-tail", lambda d: _cmp(d, "cubic", "ccid5", "", "CDL1")),
        ("CCID5 worse than BBR on average", lambda d: _ranking(d, "cubic", "bbr", "ccid5")))),
    "finding_bbr_over_newreno_ccid2": ("BBR over NewReno/CCID2: long RTT or small buffer very good; CoDel helps except at long RTT; bad tunnel CCAs", parts(
        ("NewReno LONG better than SHORT", lambda d: _long_vs_short(d, "newreno")),
        ("NewReno BUF250 better than default", lambda d: _cmp(d, "bbr", "newreno", "BUF250", "")),
        ("NewReno CoDel better at SHORT, not at LONG", lambda d: _codel_long(d, "newreno")),
        ("NewReno worse than BBR on average", lambda d: _ranking(d, "bbr", "bbr", "newreno")),
        ("CCID2 LONG better than SHORT", _long_vs_short),
        ("CCID2 BUF250 better than default", lambda d: _cmp(d, "bbr", "ccid2", "BUF250", "")),
        ("CCID2 CoDel better at SHORT, not at LONG", _codel_long),
        ("CCID2 worse than CCID5 on average", lambda d: _ranking(d, "bbr")))),
    "finding_cubic_over_newreno_ccid2": ("Cubic over NewReno/CCID2: CoDel very detrimental with CCID2; a big buffer preferable for CCID2", parts(
        ("CCID2 CoDel worse than drop-tail", lambda d: _cmp(d, "cubic", "ccid2", "", "CDL1")),
        ("CCID2 BUF1000 better than BUF250", lambda d: _cmp(d, "cubic", "ccid2", "BUF1000", "BUF250")),
        ("CoDel less detrimental with NewReno than with CCID2", lambda d: _codel_worse_delta(d, "cubic", "newreno", "ccid2")),
        ("NewReno BUF250 better than BUF1000 (a big buffer very detrimental)", lambda d: _cmp(d, "cubic", "newreno", "BUF250", "BUF1000")))),
    "finding_proxy_near_user_only_bbr_ccid5": ("proxy near and large buffer help only with BBR/CCID5 tunnels; small buffer only with NewReno/CCID2 (not Cubic over CCID2)", parts(
        ("NEAR better than DIST with BBR (BBR server)", lambda d: _cmp(d, "bbr", "bbr", "NEAR", "DIST")),
        ("NEAR better than DIST with BBR (Cubic server)", lambda d: _cmp(d, "cubic", "bbr", "NEAR", "DIST")),
        ("NEAR not better than DIST with NewReno (BBR server)", lambda d: (lambda ok, t: (not ok, t))(*_cmp(d, "bbr", "newreno", "NEAR", "DIST"))),
        ("BUF250 better than default with NewReno (BBR server)", lambda d: _cmp(d, "bbr", "newreno", "BUF250", "")),
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
    "fig2_e2e_tcp_near_proxy_ccid5": ("Fig. 2 second configuration, BBR over CCID5: proxy near, download time cut in half",
                                      fig2_tcp_near("bbr-ccid5")),
    "fig2_e2e_tcp_far_proxy_ccid5": ("Fig. 2 second configuration, BBR over CCID5: proxy far, unchanged vs single path",
                                     fig2_tcp_far("bbr-ccid5")),
    "headline_cpf_poor": ("CPF performs poorly and is often unable to achieve aggregation (sec. 1)", parts(
        ("mean CPF relative DLCT over Fig. 10 above 75 %", lambda d: (lambda m: (m > 0.75, f"{100 * m:.0f} %"))(
            float(d.fig10[d.fig10["sched"] == "cpf"]["relative"].mean()) if not d.fig10.empty else _raise())))),
}


def _raise() -> float:
    raise Missing("Fig. 10 not run")


def claims(fig2: pd.DataFrame, contours: pd.DataFrame, fig10: pd.DataFrame, table3: pd.DataFrame, published: pd.DataFrame,
           margin: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per reference row and per extra finding: section, item, claim, published, unit,
    verdict, simulated, detail. `margin` is study.margin_table's frame (sec. 5.2)."""
    d = Data(fig2, contours, fig10, table3, margin)
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
        return {**row, "verdict": NOT_COMPARABLE, "simulated": None, "detail": NOT_RESULT}
    try:
        verdict, simulated, detail = test(d)
    except Missing as e:
        why = f"{TCP_ONLY}: {e}" if item in TCP_NEEDED else f"not simulated: {e}"
        return {**row, "verdict": NOT_COMPARABLE, "simulated": None, "detail": why}
    return {**row, "verdict": verdict, "simulated": simulated, "detail": detail}
