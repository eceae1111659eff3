"""A run's results in memory (`Result`) and on disk (the output folder).

Output folder layout (see docs/cli.md):

    summary.json        metrics, scenario echo, seed: a pure function of (scenario, seed);
                        json.dumps(indent=2, sort_keys=True), so equal runs are byte-identical
    run.json            provenance: version, wall time, start time, host, python, platform,
                        scenario path, seed, overrides
    timeseries.parquet  long-format interval bins and traces: series, entity, t_s, value
    flows.parquet       runs of more than FLOWS_IN_SUMMARY flows only: one row per flow (the
                        flow records, flattened: `goodput_mbps.mean`, …); summary.json then
                        holds `flows: []` and `flows_table` (file and row count)
    goodput.png         goodput over time per flow (per group mean above 12 flows)
    queue_delay.png     queue delay over time per link that carried traffic

Every file appears atomically (mptlab.atomic): written to a hidden temp file in the same
folder, flushed to disk, then renamed over the target (`os.replace`). A reader never sees half
a file, and an interrupted run leaves the previous file (if any) intact.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mptlab.atomic import atomic_write, write_text

#: Columns of `timeseries.parquet` / `Result.timeseries`, in order.
TIMESERIES_SCHEMA = pa.schema(
    [
        pa.field("series", pa.string()),
        pa.field("entity", pa.string()),
        pa.field("t_s", pa.float64()),
        pa.field("value", pa.float64()),
    ]
)

SUMMARY = "summary.json"
RUN_INFO = "run.json"
TIMESERIES = "timeseries.parquet"
FLOWS = "flows.parquet"
#: Above this many flows the per-flow records go to flows.parquet instead of summary.json
#: (12,000 flow records are tens of MB of JSON that no reader wants to parse; the summary keeps
#: per-group sums and distributions in `groups`).
FLOWS_IN_SUMMARY = 1000


@dataclass
class Result:
    """The outcome of one run."""

    #: The parsed summary.json: seed, duration_s, scenario echo, definitions, flows, links,
    #: groups, jain_all_flows, protocols, engine (see docs/metrics.md).
    summary: dict[str, Any]
    #: Long-format time series (columns series, entity, t_s, value); `.to_pandas()` works.
    timeseries: pa.Table
    #: The output folder, or None when nothing was written.
    out: Path | None = None
    #: Provenance (the contents of run.json).
    run_info: dict[str, Any] = field(default_factory=dict)
    #: Runs of more than FLOWS_IN_SUMMARY flows: every flow record, one row each (flows.parquet);
    #: None otherwise (the records are in `summary["flows"]`).
    flows_table: pa.Table | None = None

    @property
    def seed(self) -> int:
        return int(self.summary["seed"])

    def summary_text(self) -> str:
        """summary.json exactly as written to disk."""
        return summary_text(self.summary)

    def series(self, name: str) -> Any:
        """One time series as a pandas DataFrame indexed by t_s, one column per entity."""
        df = self.timeseries.to_pandas()
        df = df[df["series"] == name]
        return df.pivot_table(index="t_s", columns="entity", values="value", sort=True)

    def __repr__(self) -> str:
        flows = len(self.summary.get("flows", []))
        links = len(self.summary.get("links", []))
        return (
            f"Result(seed={self.summary.get('seed')}, duration_s={self.summary.get('duration_s')}, "
            f"flows={flows}, links={links}, timeseries_rows={self.timeseries.num_rows}, "
            f"out={str(self.out) if self.out else None!r})"
        )


def summary_text(summary: dict[str, Any]) -> str:
    """Canonical text of summary.json (stable key order, two-space indent, final newline)."""
    return json.dumps(summary, indent=2, sort_keys=True) + "\n"


def split_flows(summary: dict[str, Any], limit: int = FLOWS_IN_SUMMARY) -> tuple[dict[str, Any], pa.Table | None]:
    """Move the flow records of a run with more than `limit` flows out of the summary into a
    table (one row per flow, nested keys flattened with dots, lists as JSON text); the summary
    keeps `flows: []` and `flows_table: {file, rows}`. Smaller runs are returned unchanged."""
    flows = summary.get("flows", [])
    if len(flows) <= limit:
        return summary, None
    import pandas as pd

    df = pd.json_normalize(flows, sep=".")
    for col in df.columns:
        if df[col].map(lambda v: isinstance(v, (list, dict))).any():
            df[col] = df[col].map(lambda v: None if v is None else json.dumps(v, sort_keys=True))
    table = pa.Table.from_pandas(df, preserve_index=False)
    rest = {**summary, "flows": [], "flows_table": {"file": FLOWS, "rows": len(flows)}}
    return rest, table


def timeseries_table(columns: dict[str, Any]) -> pa.Table:
    """The engine's long-format columns as a pyarrow Table with `TIMESERIES_SCHEMA`."""
    missing = [f.name for f in TIMESERIES_SCHEMA if f.name not in columns]
    if missing:
        raise ValueError(f"engine time series lacks column(s) {', '.join(missing)}")
    arrays = [pa.array(columns[f.name], type=f.type) for f in TIMESERIES_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=TIMESERIES_SCHEMA)


def write_run(res: Result, plots: bool = True) -> list[Path]:
    """Write a result's files into `res.out` (which must exist); return the paths written."""
    if res.out is None:
        raise ValueError("Result has no output folder")
    out = res.out
    written = [
        write_text(out / SUMMARY, res.summary_text()),
        write_text(out / RUN_INFO, json.dumps(res.run_info, indent=2, sort_keys=True) + "\n"),
        atomic_write(out / TIMESERIES, lambda f: pq.write_table(res.timeseries, f, compression="zstd")),
    ]
    if res.flows_table is not None:
        flows = res.flows_table
        written.append(atomic_write(out / FLOWS, lambda f: pq.write_table(flows, f, compression="zstd")))
    if plots:
        from mptlab import plots as plotting

        written += plotting.write_plots(
            res.summary, res.timeseries, out, name=res.run_info.get("scenario_name")
        )
    return written
