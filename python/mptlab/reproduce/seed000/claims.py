"""Seed 000: the findings the paper states in §4.1-4.5 and §5 (the study notes' §1.6 list) and
the checks the notes derive from its tables (§1.8), each judged on the simulated numbers —
HOLDS, FAILS, or NOT COMPARABLE when a value it needs was not simulated — and, with the same
test, on the published tables (the `tables` column), so that a claim the paper's own tables
contradict (A14, A15) shows as such.

Every test reads the per-(scenario, pairing) means of table.py's quantities (`View`). Rankings
of "jitter" use the sum of a pairing's six mean-jitter columns (link-level and both protocols on
both links), the reading under which the study notes check the prose (§1.8 point 6);
"throughput" of a pairing is the sum of its four throughput means; "loss" is a family's mean
per-UE loss.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pandas as pd

from mptlab.reproduce.common import FAILS, HOLDS, NOT_COMPARABLE
from mptlab.reproduce.seed000.metrics import FAMILIES, jain
from mptlab.reproduce.seed000.table import cell_column, table_cells

EMBB_PAIRS = ("BBR-BBR", "BBR-CUBIC", "CUBIC-BBR", "CUBIC-CUBIC", "Reno-BBR", "Reno-CUBIC")
TN = ("TN1", "TN2")
SE, AE, SM, AM, MX = "symmetric-embb", "asymmetric-embb", "symmetric-mmtc", "asymmetric-mmtc", "mixed"
#: Scenario -> its pairings, in the paper's order.
PAIRINGS = {SE: EMBB_PAIRS, AE: EMBB_PAIRS, SM: ("CUBIC-BBR", "Reno-BBR"), AM: ("BBR-BBR", "Reno-BBR"),
            MX: ("BBR-BBR", "Reno-BBR")}


class Missing(Exception):
    """A value the claim needs was not simulated (or not published)."""


class View:
    """Per-(scenario, pairing) values by metrics.column name; `get` raises Missing for NaN."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    @classmethod
    def published(cls, published: pd.DataFrame) -> View:
        cells = table_cells(published)
        cells = cells.assign(col=cells.apply(cell_column, axis=1))
        return cls(cells.pivot_table(index=["scenario", "pairing"], columns="col", values="value", aggfunc="first"))

    def get(self, sc: str, p: str, col: str) -> float:
        try:
            v = float(self.frame.at[(sc, p), col])
        except (KeyError, ValueError):
            raise Missing(f"{sc} {p} {col}") from None
        if not math.isfinite(v):
            raise Missing(f"{sc} {p} {col}")
        return v

    def thr(self, sc: str, p: str, fam: str, link: str) -> float:
        return self.get(sc, p, f"thr_{fam}_{link}_mean")

    def total(self, sc: str, p: str) -> float:
        return sum(self.thr(sc, p, f, l) for f in FAMILIES for l in TN)

    def link_sum(self, sc: str, p: str, link: str) -> float:
        return sum(self.thr(sc, p, f, link) for f in FAMILIES)

    def fam_sum(self, sc: str, p: str, fam: str) -> float:
        return sum(self.thr(sc, p, fam, l) for l in TN)

    def jitter6(self, sc: str, p: str) -> float:
        return sum(self.get(sc, p, f"jit_{who}_{l}_mean") for who in ("all", *FAMILIES) for l in TN)

    def jitter(self, sc: str, p: str, who: str) -> float:
        """Mean over TN1 and TN2 of a family's (or "all": link-level) mean jitter."""
        return sum(self.get(sc, p, f"jit_{who}_{l}_mean") for l in TN) / 2

    def loss(self, sc: str, p: str, fam: str) -> float:
        return self.get(sc, p, f"loss_{fam}_total_mean")

    def jain_link(self, sc: str, p: str, link: str) -> float:
        return jain(self.thr(sc, p, "MPTCP", link), self.thr(sc, p, "MPQUIC", link))

    def jain_total(self, sc: str, p: str) -> float:
        return jain(self.fam_sum(sc, p, "MPTCP"), self.fam_sum(sc, p, "MPQUIC"))


Result = tuple[bool, str]
Test = Callable[[View], Result]


def _rank(v: View, sc: str, key: Callable[[str], float], pairs: Sequence[str] | None = None) -> list[tuple[str, float]]:
    return sorted(((p, key(p)) for p in (pairs or PAIRINGS[sc])), key=lambda t: t[1])


def _fmt(items: Sequence[tuple[str, float]], digits: int = 2) -> str:
    return ", ".join(f"{p} {x:.{digits}f}" for p, x in items)


def _dominates(v: View, sc: str, p: str, winner: str) -> tuple[bool, str]:
    loser = "MPQUIC" if winner == "MPTCP" else "MPTCP"
    ok = all(v.thr(sc, p, winner, l) > v.thr(sc, p, loser, l) for l in TN)
    txt = "; ".join(f"{l} {v.thr(sc, p, 'MPTCP', l):.1f}/{v.thr(sc, p, 'MPQUIC', l):.1f}" for l in TN)
    return ok, f"{p} MPTCP/MPQUIC {txt}"


def _all_dominate(sc: str, pairs: Sequence[str], winner: str) -> Test:
    def test(v: View) -> Result:
        res = [_dominates(v, sc, p, winner) for p in pairs]
        return all(r[0] for r in res), " | ".join(r[1] for r in res)
    return test


def _lowest_two(sc: str, expected: set[str], key: str) -> Test:
    def test(v: View) -> Result:
        fn = (lambda p: v.jitter6(sc, p)) if key == "jitter6" else (lambda p: v.jitter(sc, p, "MPQUIC"))
        r = _rank(v, sc, fn)
        return {p for p, _ in r[:2]} == expected, "sum of six mean jitters (ms): " + _fmt(r)
    return test


def _highest_two(sc: str, expected: set[str]) -> Test:
    def test(v: View) -> Result:
        r = _rank(v, sc, lambda p: v.jitter(sc, p, "MPQUIC"))[::-1]
        return {p for p, _ in r[:2]} == expected, "MPQUIC mean jitter over TN1/TN2 (ms): " + _fmt(r)
    return test


def _best_throughput(sc: str, expected: str) -> Test:
    def test(v: View) -> Result:
        r = _rank(v, sc, lambda p: v.total(sc, p))[::-1]
        return r[0][0] == expected, "sum of the four means (Mbit/s): " + _fmt(r, 1)
    return test


def _loss_split(sc: str, low: Sequence[str], high: Sequence[str], fam: str = "MPTCP") -> Test:
    def test(v: View) -> Result:
        lo = [(p, v.loss(sc, p, fam)) for p in low]
        hi = [(p, v.loss(sc, p, fam)) for p in high]
        return max(x for _, x in lo) < min(x for _, x in hi), f"{fam} mean loss (%): " + _fmt(lo + hi, 3)
    return test


def _tn2_penalized(sc: str, fam: str | None) -> Test:
    def test(v: View) -> Result:
        res = []
        for p in PAIRINGS[sc]:
            a, b = ((v.thr(sc, p, fam, "TN1"), v.thr(sc, p, fam, "TN2")) if fam
                    else (v.link_sum(sc, p, "TN1"), v.link_sum(sc, p, "TN2")))
            res.append((b < a, f"{p} TN1 {a:.1f} TN2 {b:.1f}"))
        return all(r[0] for r in res), f"{fam or 'both protocols'} Mbit/s: " + "; ".join(r[1] for r in res)
    return test


def _pair_beats(sc: str, better: str, worse: str, what: str) -> Test:
    def test(v: View) -> Result:
        if what == "throughput":
            a, b = v.total(sc, better), v.total(sc, worse)
            return a > b, f"sum of means (Mbit/s) {better} {a:.1f}, {worse} {b:.1f}"
        if what == "jitter":
            a, b = v.jitter6(sc, better), v.jitter6(sc, worse)
            return a < b, f"sum of six mean jitters (ms) {better} {a:.2f}, {worse} {b:.2f}"
        la = [v.loss(sc, better, f) for f in FAMILIES]
        lb = [v.loss(sc, worse, f) for f in FAMILIES]
        return all(x < y for x, y in zip(la, lb)), (
            f"mean loss MPTCP/MPQUIC (%) {better} {la[0]:.3f}/{la[1]:.3f}, {worse} {lb[0]:.3f}/{lb[1]:.3f}")
    return test


def _no_single_best(scenarios: Sequence[str]) -> Test:
    def test(v: View) -> Result:
        out, ok = [], True
        for sc in scenarios:
            thr = _rank(v, sc, lambda p: v.total(sc, p))[-1][0]
            fair = _rank(v, sc, lambda p: v.jain_total(sc, p))[-1][0]
            jit = _rank(v, sc, lambda p: v.jitter6(sc, p))[0][0]
            loss = _rank(v, sc, lambda p: v.loss(sc, p, "MPTCP") + v.loss(sc, p, "MPQUIC"))[0][0]
            ok &= len({thr, fair, jit, loss}) > 1
            out.append(f"{sc}: throughput {thr}, Jain total {fair}, jitter {jit}, loss {loss}")
        return ok, "best per metric: " + "; ".join(out)
    return test


def _fairness_best(sc: str, expected: str, where: Sequence[str]) -> Test:
    def test(v: View) -> Result:
        txt, ok = [], True
        for w in where:
            key = (lambda p: v.jain_total(sc, p)) if w == "total" else (
                (lambda p: min(v.jain_link(sc, p, "TN1"), v.jain_link(sc, p, "TN2"))) if w == "links"
                else (lambda p, w=w: v.jain_link(sc, p, w)))
            r = _rank(v, sc, key)[::-1]
            ok &= r[0][0] == expected
            txt.append(f"{w}: " + _fmt(r[:3], 4))
        return ok, "Jain (highest first) " + "; ".join(txt)
    return test


def _imbalance_more_than_embb(v: View) -> Result:
    mm = [(p, v.jain_total(SM, p)) for p in PAIRINGS[SM]]
    em = [(p, v.jain_total(SE, p)) for p in PAIRINGS[SM]]
    return all(a < b for (_, a), (_, b) in zip(mm, em)), f"Jain total mMTC {_fmt(mm, 4)} vs eMBB {_fmt(em, 4)}"


def _tn2_amplifies(v: View) -> Result:
    res = [(p, abs(v.thr(AE, p, 'MPTCP', 'TN2') - v.thr(AE, p, 'MPQUIC', 'TN2')),
            abs(v.thr(AE, p, 'MPTCP', 'TN1') - v.thr(AE, p, 'MPQUIC', 'TN1'))) for p in EMBB_PAIRS]
    n = sum(a > b for _, a, b in res)
    return n >= 4, f"|MPTCP−MPQUIC| larger on TN2 in {n}/6: " + "; ".join(f"{p} TN1 {b:.1f} TN2 {a:.1f}" for p, a, b in res)


def _mostly_mptcp(v: View) -> Result:
    cases = [(sc, p, l) for sc, ps in PAIRINGS.items() for p in ps for l in TN]
    wins = sum(v.thr(sc, p, "MPTCP", l) > v.thr(sc, p, "MPQUIC", l) for sc, p, l in cases)
    return wins > len(cases) / 2, f"MPTCP above MPQUIC in {wins}/{len(cases)} (case, link) pairs"


def _specialize(v: View) -> Result:
    res = []
    for sc in (AM, MX):
        for p in PAIRINGS[sc]:
            ok = v.thr(sc, p, "MPQUIC", "TN1") > v.thr(sc, p, "MPTCP", "TN1") and \
                v.thr(sc, p, "MPTCP", "TN2") > v.thr(sc, p, "MPQUIC", "TN2")
            res.append((ok, f"{sc} {p} TN1 {v.thr(sc, p, 'MPTCP', 'TN1'):.1f}/{v.thr(sc, p, 'MPQUIC', 'TN1'):.1f}, "
                            f"TN2 {v.thr(sc, p, 'MPTCP', 'TN2'):.1f}/{v.thr(sc, p, 'MPQUIC', 'TN2'):.1f}"))
    return all(r[0] for r in res), "MPTCP/MPQUIC Mbit/s: " + "; ".join(r[1] for r in res)


def _quic_above_on_tn1(v: View) -> Result:
    a, b = v.thr(AM, "BBR-BBR", "MPQUIC", "TN1"), v.thr(AM, "BBR-BBR", "MPTCP", "TN1")
    return a > b, f"BBR-BBR TN1 MPQUIC {a:.2f} vs MPTCP {b:.2f} Mbit/s"


def _quic_jitter_lower(v: View) -> Result:
    res = [(p, v.jitter(MX, p, "MPQUIC"), v.jitter(MX, p, "MPTCP")) for p in PAIRINGS[MX]]
    return all(a < b for _, a, b in res), "; ".join(f"{p} MPQUIC {a:.3f} MPTCP {b:.3f} ms" for p, a, b in res)


def _quic_loss_higher(v: View) -> Result:
    res = [(p, v.loss(SM, p, "MPQUIC"), v.loss(SM, p, "MPTCP")) for p in PAIRINGS[SM]]
    return all(a > b for _, a, b in res), "mean loss " + "; ".join(f"{p} MPQUIC {a:.3f} MPTCP {b:.3f} %" for p, a, b in res)


def _link_jitter_below_protocols(v: View) -> Result:
    n = bad = 0
    worst = ""
    for sc, ps in PAIRINGS.items():
        for p in ps:
            for l in TN:
                n += 1
                link = v.get(sc, p, f"jit_all_{l}_mean")
                fams = [v.get(sc, p, f"jit_{f}_{l}_mean") for f in FAMILIES]
                if not link < min(fams):
                    bad += 1
                    worst = worst or f"{sc} {p} {l}: link {link:.3f} vs {fams[0]:.3f}/{fams[1]:.3f} ms"
    return bad == 0, f"link-level below both protocols in {n - bad}/{n} rows" + (f"; e.g. {worst}" if worst else "")


def _link_jitter_magnitude(v: View) -> Result:
    vals = [v.get(sc, p, f"jit_all_{l}_mean") for sc, ps in PAIRINGS.items() for p in ps for l in TN]
    inside = sum(1.4 <= x <= 3.8 for x in vals)
    return inside == len(vals), f"link-level mean jitter {min(vals):.3f}-{max(vals):.3f} ms; {inside}/{len(vals)} in the paper's 1.4-3.8 ms"


def _asym_tn2_ceiling(v: View) -> Result:
    sums = [v.link_sum(AE, p, "TN2") for p in EMBB_PAIRS]
    frac = [s / 436.43 for s in sums]
    return all(0.85 <= f <= 0.92 for f in frac), (
        f"asymmetric eMBB TN2 sums {min(sums):.1f}-{max(sums):.1f} Mbit/s = {min(frac):.1%}-{max(frac):.1%} of 436.43 "
        "(tables: about 387.5 = 88.8 %)")


def _sym_balanced(v: View) -> Result:
    res = [(p, v.link_sum(SE, p, "TN1"), v.link_sum(SE, p, "TN2")) for p in EMBB_PAIRS]
    ok = all(abs(a - b) <= 0.1 * max(a, b) for _, a, b in res)
    return ok, "TN1/TN2 sums within 10 %: " + "; ".join(f"{p} {a:.1f}/{b:.1f}" for p, a, b in res)


#: (id, source, the claim in short, test). Order: the paper's.
CLAIMS: tuple[tuple[str, str, str, Test], ...] = (
    ("se-balanced", "§4.1", "symmetric eMBB: the links are utilized in a largely balanced way", _sym_balanced),
    ("se-mptcp-ahead", "§4.1", "symmetric eMBB: MPTCP above MPQUIC on both links under BBR-BBR, CUBIC-BBR, CUBIC-CUBIC, Reno-BBR, Reno-CUBIC",
     _all_dominate(SE, ("BBR-BBR", "CUBIC-BBR", "CUBIC-CUBIC", "Reno-BBR", "Reno-CUBIC"), "MPTCP")),
    ("se-bbr-cubic-quic-ahead", "§4.1", "symmetric eMBB: under BBR-CUBIC MPQUIC slightly above MPTCP on both links",
     _all_dominate(SE, ("BBR-CUBIC",), "MPQUIC")),
    ("se-fair-total", "§4.1", "symmetric eMBB: BBR-CUBIC has the best aggregate (total) fairness", _fairness_best(SE, "BBR-CUBIC", ("total",))),
    ("se-fair-links", "§4.1", "symmetric eMBB: CUBIC-CUBIC is the best option for per-link fairness on both links (highest worse-link index)", _fairness_best(SE, "CUBIC-CUBIC", ("links",))),
    ("se-jitter-best", "§4.1", "symmetric eMBB: Reno-BBR and CUBIC-BBR are the most favorable pairings for jitter",
     _lowest_two(SE, {"Reno-BBR", "CUBIC-BBR"}, "jitter6")),
    ("se-jitter-worst", "§4.1", "symmetric eMBB: BBR-CUBIC and Reno-CUBIC induce the largest MPQUIC jitter",
     _highest_two(SE, {"BBR-CUBIC", "Reno-CUBIC"})),
    ("se-throughput-best", "§4.1", "symmetric eMBB: the highest overall throughput is reached (marginally) by Reno-CUBIC",
     _best_throughput(SE, "Reno-CUBIC")),
    ("se-loss", "§4.1", "symmetric eMBB: MPTCP loss lower under BBR-BBR and CUBIC-BBR than under BBR-CUBIC, CUBIC-CUBIC, Reno-CUBIC",
     _loss_split(SE, ("BBR-BBR", "CUBIC-BBR"), ("BBR-CUBIC", "CUBIC-CUBIC", "Reno-CUBIC"))),
    ("se-no-single-best", "§4.1", "symmetric eMBB: no single pairing is optimal across all metrics", _no_single_best((SE,))),
    ("sm-imbalance", "§4.2", "symmetric mMTC: the cross-protocol imbalance is more evident than in symmetric eMBB (lower Jain total, same pairings)",
     _imbalance_more_than_embb),
    ("sm-mptcp-ahead", "§4.2", "symmetric mMTC: MPTCP above MPQUIC on both links", _all_dominate(SM, PAIRINGS[SM], "MPTCP")),
    ("sm-quic-tn2", "§4.2", "symmetric mMTC: TN2 is where MPQUIC is more severely penalized (MPQUIC TN2 below TN1)", _tn2_penalized(SM, "MPQUIC")),
    ("sm-cubic-throughput", "§4.2", "symmetric mMTC: CUBIC-BBR has the higher throughput", _pair_beats(SM, "CUBIC-BBR", "Reno-BBR", "throughput")),
    ("sm-reno-jitter", "§4.2", "symmetric mMTC: Reno-BBR has the lower jitter", _pair_beats(SM, "Reno-BBR", "CUBIC-BBR", "jitter")),
    ("sm-quic-loss", "§4.2", "symmetric mMTC: loss systematically higher for MPQUIC than for MPTCP", _quic_loss_higher),
    ("sm-cubic-quic-loss", "§4.2", "symmetric mMTC: CUBIC-BBR has the lower MPQUIC loss",
     _loss_split(SM, ("CUBIC-BBR",), ("Reno-BBR",), "MPQUIC")),
    ("ae-tn2-amplifies", "§4.3", "asymmetric eMBB: TN2 is where protocol-level differences are amplified", _tn2_amplifies),
    ("ae-reversal", "§4.3", "asymmetric eMBB: under BBR-CUBIC MPQUIC attains the higher throughput on both links",
     _all_dominate(AE, ("BBR-CUBIC",), "MPQUIC")),
    ("ae-mptcp-ahead", "§4.3", "asymmetric eMBB: MPTCP dominates under the other five pairings",
     _all_dominate(AE, ("BBR-BBR", "CUBIC-BBR", "CUBIC-CUBIC", "Reno-BBR", "Reno-CUBIC"), "MPTCP")),
    ("ae-fair", "§4.3", "asymmetric eMBB: BBR-CUBIC is the fairest pairing on TN1, TN2 and in total",
     _fairness_best(AE, "BBR-CUBIC", ("TN1", "TN2", "total"))),
    ("ae-jitter-best", "§4.3", "asymmetric eMBB: Reno-BBR and BBR-BBR are the most favorable pairings for jitter",
     _lowest_two(AE, {"Reno-BBR", "BBR-BBR"}, "jitter6")),
    ("ae-throughput-best", "§4.3", "asymmetric eMBB: the highest overall throughput is obtained (slightly) by CUBIC-CUBIC",
     _best_throughput(AE, "CUBIC-CUBIC")),
    ("ae-loss", "§4.3", "asymmetric eMBB: MPTCP loss lower under BBR-BBR, CUBIC-BBR, Reno-BBR than under BBR-CUBIC, CUBIC-CUBIC, Reno-CUBIC",
     _loss_split(AE, ("BBR-BBR", "CUBIC-BBR", "Reno-BBR"), ("BBR-CUBIC", "CUBIC-CUBIC", "Reno-CUBIC"))),
    ("am-tn2-penalized", "§4.4", "asymmetric mMTC: TN2 is the most penalized operating point", _tn2_penalized(AM, None)),
    ("am-bbr-throughput", "§4.4", "asymmetric mMTC: BBR-BBR has the higher throughput", _pair_beats(AM, "BBR-BBR", "Reno-BBR", "throughput")),
    ("am-reno-jitter", "§4.4", "asymmetric mMTC: Reno-BBR has the lower jitter", _pair_beats(AM, "Reno-BBR", "BBR-BBR", "jitter")),
    ("am-reno-loss", "§4.4", "asymmetric mMTC: Reno-BBR has lower mean loss than BBR-BBR on both protocols",
     _pair_beats(AM, "Reno-BBR", "BBR-BBR", "loss")),
    ("am-quic-tn1", "§4.4 (text values)", "asymmetric mMTC: MPQUIC slightly above MPTCP on TN1 under BBR-BBR (the text's 276.72 vs 257.26; Table 18 says 215.47)",
     _quic_above_on_tn1),
    ("mx-mptcp-ahead", "§4.5", "mixed: MPTCP retains the higher throughput on both links", _all_dominate(MX, PAIRINGS[MX], "MPTCP")),
    ("mx-quic-jitter", "§4.5", "mixed: MPQUIC operates at lower protocol-level jitter than MPTCP", _quic_jitter_lower),
    ("mx-tn2-penalized", "§4.5", "mixed: TN2 remains the more penalized path", _tn2_penalized(MX, None)),
    ("mx-bbr-throughput", "§4.5", "mixed: BBR-BBR slightly ahead in throughput", _pair_beats(MX, "BBR-BBR", "Reno-BBR", "throughput")),
    ("mx-bbr-jitter", "§4.5", "mixed: BBR-BBR has the lower link- and protocol-level jitter", _pair_beats(MX, "BBR-BBR", "Reno-BBR", "jitter")),
    ("mx-bbr-loss", "§4.5", "mixed: BBR-BBR has the lower loss for both protocols", _pair_beats(MX, "BBR-BBR", "Reno-BBR", "loss")),
    ("c-mptcp-mostly", "§5", "in most configurations MPTCP achieves higher throughput than MPQUIC on both links", _mostly_mptcp),
    ("c-no-single-best", "§5", "no single pairing optimizes throughput sharing, fairness and jitter (eMBB scenarios)", _no_single_best((SE, AE))),
    ("c-specialize", "§5 (text values)", "with more low-rate users the stacks specialize over different links (MPQUIC on TN1, MPTCP on TN2)",
     _specialize),
    ("n-link-jitter-below", "notes §1.8.5", "link-level jitter is below both protocols' in every (scenario, pairing, link) row",
     _link_jitter_below_protocols),
    ("n-link-jitter-magnitude", "notes §1.8.5", "link-level mean jitter lies in the paper's 1.4-3.8 ms", _link_jitter_magnitude),
    ("n-asym-tn2-ceiling", "notes §1.8.2", "asymmetric TN2 carries about 88.8 % of its configured 436.43 Mbit/s (85-92 %)",
     _asym_tn2_ceiling),
)


def judge(test: Test, view: View) -> tuple[str, str]:
    """(verdict, numbers) of one test on one view."""
    try:
        ok, text = test(view)
    except Missing as e:
        return NOT_COMPARABLE, f"not simulated: {e}"
    return (HOLDS if ok else FAILS), text


def claims(simulated: View, published: View) -> pd.DataFrame:
    """claims.csv: id, source, claim, verdict, simulated (the numbers behind it), tables (the
    same test on the published tables), tables_numbers."""
    rows = []
    for cid, source, text, test in CLAIMS:
        verdict, numbers = judge(test, simulated)
        on_tables, table_numbers = judge(test, published)
        rows.append({"id": cid, "source": source, "claim": text, "verdict": verdict, "simulated": numbers,
                     "tables": on_tables, "tables_numbers": table_numbers})
    return pd.DataFrame(rows)
