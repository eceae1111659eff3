"""Seed 004: Guo et al. (2025), modelling multipath TCP over heterogeneous Wi-Fi and 5G
networks: P-MPTCP (5-state NewReno + loss-aware scheduler) against C-MPTCP (MinRTT + NewReno)
over multi-hop 802.11 meshes, with and without a 5G node (`mptlab reproduce seed004`).

    from mptlab.reproduce.seed004 import reproduce
    res = reproduce(out="reproductions/seed004")   # both TCP profiles: default and paper-rto
    res.claims, res.claims_paper_rto                # the main verdicts, and those with 20 s <= RTO <= 50 s

Modules: `deploy` places the nodes (random square, sunflower; DC at the centre or a corner);
`routing` builds the RPL-like DODAG and up to K = 3 paths per node; `scenario` writes the
`[wifi.mesh]` scenario of one deployment and variant; `plans` lists the paper's cases and
writes their sweep plans; `metrics` reads the paper's metrics from a run's summary; `claims`
judges the findings and answers every published row; `figures` draws the bars, CDFs, delivery
curves and topologies; `report` writes report.md; `study` runs everything. See
docs/reproductions.md.
"""

from mptlab.reproduce.seed004.study import (
    DEFAULT_OUT,
    DEFAULT_RUNS,
    REFERENCE,
    STUDY,
    Reproduction,
    load_published,
    reproduce,
)

__all__ = ["DEFAULT_OUT", "DEFAULT_RUNS", "REFERENCE", "STUDY", "Reproduction", "load_published", "reproduce"]
