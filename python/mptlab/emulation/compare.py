"""Sim-vs-real comparison: the metrics both backends report, side by side over seeds (issue 24).

`mptlab validate` runs a scenario on the simulator and on the emulation backend (real Linux
MPTCP in network namespaces) for the same seeds. Both fill the same summary contract
(docs/metrics.md); an emulated summary has nulls where the kernel cannot tell. This module
turns summaries into comparable rows (`metrics`) and the rows of both backends into one table
per case (`compare`): mean and sample standard deviation over seeds per side, the ratio
real / sim, whether it lies within 0.9–1.1, and a note on the known cause of a difference.

Pure functions: no I/O, no plotting (that is `mptlab.emulation.report`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import pandas as pd

#: A ratio within [LOW, HIGH] counts as agreement (the issue's 0.9–1.1 band).
LOW = 0.9
HIGH = 1.1

#: Columns of the frame `compare` returns, in order.
COLUMNS = (
    "case", "entity", "metric", "unit",
    "sim_mean", "sim_std", "sim_n", "emu_mean", "emu_std", "emu_n",
    "ratio", "within", "note",
)

#: Metrics taken from each record: (metric name, unit, key path in the record). A metric whose
#: name ends in a unit suffix keeps the summary's name, so axis labels follow
#: (mptlab.figures.labels).
FLOW_METRICS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("goodput_mbps", "Mbit/s", ("goodput_mbps", "mean")),
    ("bytes_delivered", "bytes", ("bytes_delivered",)),
    ("completion_time_s", "s", ("completion_time_s",)),
    ("retransmissions", "packets", ("retransmissions",)),
    ("loss_pct", "%", ("loss_pct",)),
    ("owd_ms_p50", "ms", ("owd_ms", "p50")),
    ("jitter_ms_mean", "ms", ("jitter_ms", "mean")),
)
PATH_METRICS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("share", "fraction", ("share",)),
    ("bytes_sent", "bytes", ("bytes_sent",)),
    ("srtt_ms_mean", "ms", ("srtt_ms_mean",)),
    ("retransmissions", "packets", ("retransmissions",)),
)
LINK_METRICS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("throughput_mbps", "Mbit/s", ("throughput_mbps", "mean")),
    ("drops", "packets", ("drops",)),
    ("queue_pkts_mean", "packets", ("queue_pkts_mean",)),
)

#: Known causes of a difference, by metric: facts about Linux (and this emulation) and about
#: the simulator. The report prints the note next to every ratio outside 0.9–1.1.
NOTES: dict[str, str] = {
    "goodput_mbps": (
        "real: bytes the receiving application read per interval of the run; Linux grows its receive "
        "window by autotuning, the simulator's receive buffer has its final size from the start"
    ),
    "bytes_delivered": "bytes the receiving application read by the end of the run; differs as goodput does",
    "completion_time_s": (
        "real: from the flow's start on the shared monotonic clock to the receiver's last read, with "
        "process scheduling and the MP_CAPABLE / MP_JOIN handshakes of the kernel"
    ),
    "retransmissions": (
        "measured on scenarios/validate: most of the simulator's come from overshooting the queue in "
        "slow start (single-path CUBIC: 47 of its 53 drops in the first 3 s, the kernel 5 of 12); the "
        "simulator's CUBIC exits slow start by HyStart++ (RFC 9406, delay only), Linux's tcp_cubic by "
        "HyStart's ACK-train or delay test, which stops near half the BDP; after slow start both drop "
        "alike (6 vs 7 drops in the next 17 s); cc_options = { hystart_variant = \"linux\" } gives the "
        "simulator Linux's exit (20 vs 12). Multipath QUIC: tquic's CUBIC and loss recovery against "
        "the simulator's RFC 9002 recovery (1.3x on mpquic-balanced, not investigated)"
    ),
    "share": (
        "the kernel's default scheduler (net/mptcp/protocol.c, mptcp_subflow_get_send) against the "
        "simulator's model of it (docs/mptcp.md)"
    ),
    "bytes_sent": "follows share and retransmissions; real: the subflow's bytes_sent (ss), retransmissions included",
    "srtt_ms_mean": (
        "the samples cover different spans: after a file completes the simulator keeps sampling the "
        "subflow's last SRTT until the run ends, the kernel's subflow is closed (simult-fast path 1: "
        "simulator 26.6 ms during the transfer, 29.4 ms over the run; kernel 24.3 ms)"
    ),
    "throughput_mbps": (
        "on reverse (ACK) directions: the simulator counts 40 B of TCP/IP headers per segment (plus "
        "MPTCP's DSS), the kernel's ACKs also carry timestamps and SACK blocks (52-54 B per ACK, "
        "64.8 B with MPTCP's DSS), and Linux sends about 7% more ACKs (quick-ACK mode at the start)"
    ),
    "drops": (
        "real: the tbf queue's tail drops; they follow slow start as retransmissions do (see there)"
    ),
    "loss_pct": (
        "with random loss both backends draw it, from different generators: a run's loss rate has a "
        "binomial spread of sqrt(p(1-p)/n) (0.12 points at p = 1 %, n = 6,667), so a few seeds differ "
        "by tens of percent; real: UDP end to end, TCP from queues only this flow crosses"
    ),
    "owd_ms_p50": (
        "tbf is a token bucket: a packet that finds tokens leaves at once, while the simulator "
        "serialises every packet (1500 B at 10 Mbit/s: 1.2 ms); the simulator's median comes from a "
        "log-linear histogram, the real one is exact"
    ),
    "jitter_ms_mean": (
        "RFC 3550 jitter of UDP datagrams; real arrivals carry the process's send-time scheduling "
        "(sleep granularity, the two cores) on top of the network's"
    ),
    "queue_pkts_mean": (
        "real: the tbf backlog sampled every trace interval and held to the next sample; simulator: "
        "time-weighted over every change; both over the whole run"
    ),
}


class MetricRow(NamedTuple):
    """One comparable number of one summary."""

    #: `flow:<name>`, `flow:<name>/path<index>` or `link:<direction name>`.
    entity: str
    metric: str
    unit: str
    value: float


def metrics(summary: Mapping[str, Any]) -> list[MetricRow]:
    """The comparable metrics of one summary (docs/metrics.md), in summary order: per flow,
    its paths, then per link direction. A null or missing value is left out, not taken as 0
    (an emulated summary is null where the kernel cannot tell)."""
    rows: list[MetricRow] = []
    for flow in summary.get("flows") or []:
        name = f"flow:{flow.get('name')}"
        rows += _extract(name, flow, FLOW_METRICS)
        for i, path in enumerate(flow.get("paths") or []):
            rows += _extract(f"{name}/path{path.get('index', i)}", path, PATH_METRICS)
    for link in summary.get("links") or []:
        rows += _extract(f"link:{link.get('name')}", link, LINK_METRICS)
    return rows


def compare(
    case: str,
    sim_summaries: Sequence[Mapping[str, Any]],
    emu_summaries: Sequence[Mapping[str, Any]],
) -> pd.DataFrame:
    """One row per (entity, metric) either backend reported, with the columns `COLUMNS`.

    `sim_mean`/`emu_mean` are the means over the seeds that reported the metric (`sim_n`,
    `emu_n`), `sim_std`/`emu_std` the sample standard deviations (ddof 1; NaN below two seeds).
    `ratio` is real over sim, emu_mean / sim_mean, so "sim/real ratio" in the report reads as
    real relative to the simulator: 1.2 means the kernel measured 20 % more. It is missing (NaN)
    when sim_mean is 0 or either mean is missing. `within` is 0.9 <= ratio <= 1.1, and also
    true when both means are equal (0 drops on both sides agree although their ratio is
    undefined). `note` is the known cause of a difference for that metric (`NOTES`).
    Rows are in the order of the simulator's summary, then rows only the emulation has."""
    sim = _collect(sim_summaries)
    emu = _collect(emu_summaries)
    keys = list(sim) + [k for k in emu if k not in sim]
    records = [_row(case, key, sim.get(key), emu.get(key)) for key in keys]
    frame = pd.DataFrame.from_records(records, columns=list(COLUMNS))
    return frame.astype({"sim_n": "int64", "emu_n": "int64", "within": "bool"})


def ratio(sim_mean: float | None, emu_mean: float | None) -> float | None:
    """emu_mean / sim_mean; None when sim_mean is 0 or either is missing."""
    if _missing(sim_mean) or _missing(emu_mean) or sim_mean == 0:
        return None
    assert sim_mean is not None and emu_mean is not None
    return emu_mean / sim_mean


#: Below these magnitudes on both sides a metric is noise, and its ratio says nothing (a queue
#: that averages 4e-5 packets in one backend and 5e-3 in the other is empty in both).
FLOOR: dict[str, float] = {"queue_pkts_mean": 0.1}


def within(sim_mean: float | None, emu_mean: float | None, metric: str = "") -> bool:
    """True when the ratio lies in [LOW, HIGH], both means are present and equal, or both are
    below the metric's noise FLOOR."""
    if _missing(sim_mean) or _missing(emu_mean):
        return False
    assert sim_mean is not None and emu_mean is not None
    if sim_mean == emu_mean or max(abs(sim_mean), abs(emu_mean)) < FLOOR.get(metric, 0.0):
        return True
    r = ratio(sim_mean, emu_mean)
    return r is not None and LOW <= r <= HIGH


class _Samples(NamedTuple):
    unit: str
    values: list[float]


def _collect(summaries: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], _Samples]:
    """(entity, metric) -> its unit and one value per summary that reported it."""
    out: dict[tuple[str, str], _Samples] = {}
    for summary in summaries:
        for row in metrics(summary):
            out.setdefault((row.entity, row.metric), _Samples(row.unit, [])).values.append(row.value)
    return out


def _row(case: str, key: tuple[str, str], sim: _Samples | None, emu: _Samples | None) -> dict[str, Any]:
    entity, metric = key
    either = sim or emu
    unit = either.unit if either is not None else ""
    sim_mean, sim_std, sim_n = _stats(sim)
    emu_mean, emu_std, emu_n = _stats(emu)
    r = ratio(sim_mean, emu_mean)
    return {
        "case": case, "entity": entity, "metric": metric, "unit": unit,
        "sim_mean": _nan(sim_mean), "sim_std": _nan(sim_std), "sim_n": sim_n,
        "emu_mean": _nan(emu_mean), "emu_std": _nan(emu_std), "emu_n": emu_n,
        "ratio": _nan(r), "within": within(sim_mean, emu_mean, metric), "note": NOTES.get(metric, ""),
    }


def _stats(samples: _Samples | None) -> tuple[float | None, float | None, int]:
    """(mean, sample std or None below two values, count)."""
    if samples is None or not samples.values:
        return None, None, 0
    v = samples.values
    mean = math.fsum(v) / len(v)
    if len(v) < 2:
        return mean, None, len(v)
    return mean, math.sqrt(math.fsum((x - mean) ** 2 for x in v) / (len(v) - 1)), len(v)


#: A metric table: (metric name, unit, key path in the record).
MetricTable = tuple[tuple[str, str, tuple[str, ...]], ...]


def _extract(entity: str, record: Mapping[str, Any], table: MetricTable) -> list[MetricRow]:
    rows = []
    for metric, unit, path in table:
        value = _dig(record, path)
        if value is not None:
            rows.append(MetricRow(entity, metric, unit, value))
    return rows


def _dig(record: Mapping[str, Any], path: Sequence[str]) -> float | None:
    """The number at `path` (nested keys), or None when a key is missing, a value is null or
    not a finite number."""
    value: Any = record
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _nan(value: float | None) -> float:
    return math.nan if value is None else value
