"""Encode one run's rows as the store's files (Parquet and JSON bytes), inside the worker.

Encoding where the run ran keeps the coordinator, which writes every file of the sweep, down
to atomic renames: it is never the bottleneck of a many-worker sweep, and a Dask cluster ships
compact Parquet instead of Python objects.
"""

from __future__ import annotations

import io
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

#: File kinds of a run, in the order they are written; "runs" (the commit marker) is last.
KINDS = ("flows", "links", "timeseries", "summary", "runs")


def encode_run(
    row: dict[str, Any],
    flows: list[dict[str, Any]],
    links: list[dict[str, Any]],
    timeseries: pa.Table | None,
    summary_text: str | None,
) -> dict[str, bytes]:
    """kind -> file bytes. `row` is the `runs` row; flows and links rows get the run's key,
    point, seed and parameters in front, so each table can be queried on its own."""
    files: dict[str, bytes] = {}
    if row["status"] == "ok":
        context = context_columns(row)
        for kind, rows in (("flows", flows), ("links", links)):
            files[kind] = parquet_bytes(
                pa.Table.from_pylist([{**context, **_rename_clashes(r, context)} for r in rows])
            )
        if timeseries is not None:
            keys = pa.array([row["run_key"]] * timeseries.num_rows, pa.string())
            files["timeseries"] = parquet_bytes(timeseries.add_column(0, "run_key", keys))
        if summary_text is not None:
            files["summary"] = summary_text.encode("utf-8")
    files["runs"] = parquet_bytes(pa.Table.from_pylist([row]))
    return files


def context_columns(row: dict[str, Any]) -> dict[str, Any]:
    """The leading columns of a run's flows/links rows: key, point, seed, parameters."""
    out: dict[str, Any] = {}
    for name, value in row.items():
        if name in ("status", "error"):
            continue
        if name == "wall_s":  # parameters end where the provenance columns begin
            break
        out[name] = value
    return out


def parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def _rename_clashes(row: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    """A flow/link field named like a plan parameter (a `cc` axis next to the flow's own `cc`)
    becomes `flow_cc` / `link_...`: the parameter keeps its name in every table."""
    prefix = "flow_" if "flow" in row else "link_"
    return {(prefix + k if k in context else k): v for k, v in row.items()}
