"""A run's results in memory (`Result`) and on disk (the output folder).

Output folder layout (see docs/cli.md):

    summary.json        metrics, scenario echo, seed: a pure function of (scenario, seed);
                        json.dumps(indent=2, sort_keys=True), so equal runs are byte-identical
    run.json            provenance: version, wall time, start time, host, python, platform,
                        scenario path, seed, overrides
    timeseries.parquet  long-format interval bins and traces: series, entity, t_s, value
    flows.parquet       runs of more than RECORDS_IN_SUMMARY flows only: one row per flow (the
                        flow records, flattened: `goodput_mbps.mean`, …); summary.json then
                        keeps only the flows measured in detail and `flows_table`
    links.parquet       the same for runs of more than RECORDS_IN_SUMMARY link directions
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
#: Above this many flows (link directions) every flow (link) record goes to flows.parquet
#: (links.parquet) and summary.json keeps only those measured in detail (`detailed`), if at most
#: this many: 12,000 devices' records are tens of MB of JSON that no reader wants to parse, and
#: the summary keeps per-group sums and distributions in `groups`.
RECORDS_IN_SUMMARY = 1000
#: The record lists that move to a table, and their files.
TABLES = {"flows": "flows.parquet", "links": "links.parquet"}


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
    #: Runs of more than RECORDS_IN_SUMMARY flows / link directions: every record, one row each
    #: (flows.parquet, links.parquet), by list name; empty otherwise (the records are all in the
    #: summary).
    tables: dict[str, pa.Table] = field(default_factory=dict)

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


def split_records(summary: dict[str, Any], limit: int = RECORDS_IN_SUMMARY) -> tuple[dict[str, Any], dict[str, pa.Table]]:
    """Move the flow and link records of a large run out of the summary into tables.

    A list (`flows`, `links`) with more than `limit` records becomes a table, one row per
    record (nested keys flattened with dots, lists and tables as JSON text); the summary keeps
    the records measured in detail (`detailed`, none if more than `limit`) and
    `<list>_table: {file, rows}`. Shorter lists stay in the summary; so does everything else."""
    rest, tables = dict(summary), {}
    for key, file in TABLES.items():
        records = summary.get(key, [])
        if len(records) <= limit:
            continue
        tables[key] = records_table(records)
        kept = [r for r in records if r.get("detailed")]
        rest[key] = kept if len(kept) <= limit else []
        rest[f"{key}_table"] = {"file": file, "rows": len(records)}
    return rest, tables


def records_table(records: list[dict[str, Any]]) -> pa.Table:
    """Records as a table: nested keys flattened with dots, lists and tables as JSON text."""
    import pandas as pd

    df = pd.json_normalize(records, sep=".")
    for col in df.columns:
        if df[col].map(lambda v: isinstance(v, (list, dict))).any():
            df[col] = df[col].map(lambda v: None if v is None else json.dumps(v, sort_keys=True))
    return pa.Table.from_pandas(df, preserve_index=False)


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
    for key, table in res.tables.items():
        written.append(atomic_write(out / TABLES[key], lambda f, t=table: pq.write_table(t, f, compression="zstd")))
    if plots:
        from mptlab import plots as plotting

        written += plotting.write_plots(
            res.summary, res.timeseries, out, name=res.run_info.get("scenario_name")
        )
    return written
