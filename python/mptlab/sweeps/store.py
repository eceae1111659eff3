"""The results store of a sweep: Parquet parts per run, a consolidated index, DuckDB views.

Layout of a sweep folder:

    sweep.json                  the plan (its text, the base scenario text, columns, points)
    parts/runs/<key>.parquet    one `runs` row per run; written LAST, so its presence marks the
                                run as finished (status ok or failed)
    parts/flows/<key>.parquet   the run's `flows` rows     (ok runs only)
    parts/links/<key>.parquet   the run's `links` rows     (ok runs only)
    timeseries/<key>.parquet    the run's time series, with a run_key column (ok runs only)
    summaries/<key>.json        the run's full summary.json (ok runs only)
    runs.parquet, flows.parquet, links.parquet
                                the index: all committed parts, consolidated

Every file is written atomically (hidden temp file, fsync, rename). A sweep killed at any
moment therefore leaves only whole files plus, at worst, hidden `.*.tmp` files (removed by
the next `open`) and parts of runs whose `runs` row never appeared (ignored, then overwritten
when the run is redone). One file per run key makes a duplicated row impossible. The index
is rebuilt from the parts whenever they changed, so it never needs to be trusted after a crash.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute
import pyarrow.parquet as pq

from mptlab.atomic import atomic_write, write_text
from mptlab.sweeps.encode import KINDS
from mptlab.sweeps.worker import Payload

SWEEP_META = "sweep.json"
#: The writer's lock file (Store.lock).
LOCK = ".lock"
PARTS = "parts"
TABLES = ("runs", "flows", "links")
TIMESERIES = "timeseries"
SUMMARIES = "summaries"
#: Columns that describe one execution rather than the result: they differ between two runs
#: of the same point and are left out when comparing results.
VOLATILE_COLUMNS = ("wall_s", "started_at", "finished_at", "host")
#: Columns every `runs` row has, ahead of the plan's parameters.
KEY_COLUMNS = ("run_key", "status", "error", "point", "seed")


class StoreError(ValueError):
    """The folder is not a sweep, or is a sweep of another plan."""


@dataclass
class SweepData:
    """A sweep's results in memory (what figures and reports draw from)."""

    name: str
    params: list[str]
    runs: Any  # pandas.DataFrame
    flows: Any
    links: Any
    timeseries: Any
    meta: dict[str, Any]


class Store:
    """One sweep folder."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    # --- creating and writing ------------------------------------------------------------

    def create(self, meta: dict[str, Any]) -> None:
        """Make the folder (or reopen it) for the plan described by `meta`.

        A folder holding another plan's results is refused: mixing them would make the
        results of two questions look like one.
        """
        existing = self.meta() if (self.root / SWEEP_META).exists() else None
        if existing is not None and existing.get("fingerprint") != meta.get("fingerprint"):
            raise StoreError(
                f"{self.root}: holds the sweep {existing.get('name')!r} of another plan "
                "(a different base scenario, axes or seeds); use another --out folder"
            )
        for sub in [*(f"{PARTS}/{t}" for t in TABLES), TIMESERIES, SUMMARIES]:
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.remove_temp_files()
        write_text(self.root / SWEEP_META, json.dumps(meta, indent=2, sort_keys=True) + "\n")

    def holds(self, meta: dict[str, Any]) -> bool:
        """True when the folder already holds the sweep of the plan described by `meta`."""
        if not (self.root / SWEEP_META).exists():
            return False
        return self.meta().get("fingerprint") == meta.get("fingerprint")

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder for one writer: a second sweep into it is refused at once instead of
        computing every run again beside the first. An advisory `flock` on `.lock`, released by
        the kernel when the holder exits, however it exits (SIGKILL included)."""
        import fcntl

        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                holder = f.read().strip() or "another process"
                raise StoreError(
                    f"{self.root}: another sweep is writing to this folder ({holder}); wait for it "
                    "to finish, or use another --out folder"
                ) from None
            f.truncate(0)
            f.write(f"pid {os.getpid()}\n")
            f.flush()
            try:
                yield
            finally:
                f.truncate(0)
                fcntl.flock(f, fcntl.LOCK_UN)

    def write(self, payload: Payload) -> None:
        """Store one finished run. Its `runs` part is written last: until it exists, the run
        counts as not done and its other files are ignored."""
        for kind in KINDS:
            data = payload.files.get(kind)
            if data is not None:
                # Not fsynced: a kill cannot tear a renamed file; after a power loss a part
                # may be empty, which the index skips, so that run is simply redone.
                atomic_write(self._path(kind, payload.key), lambda f, d=data: f.write(d), durable=False)

    def remove_temp_files(self) -> int:
        """Delete hidden temp files left by a writer that was killed; return how many."""
        removed = 0
        for path in self.root.rglob(".*.tmp"):
            path.unlink(missing_ok=True)
            removed += 1
        return removed

    # --- reading -------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        path = self.root / SWEEP_META
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StoreError(f"{self.root}: not a sweep folder (no {SWEEP_META})") from None

    def finished(self) -> dict[str, str]:
        """Run key -> status ('ok' or 'failed') of every committed run (read from the
        consolidated index, which `index` keeps in step with the parts)."""
        self.index()
        table = pq.read_table(self.root / "runs.parquet", columns=["run_key", "status"])
        return dict(zip(table.column("run_key").to_pylist(), table.column("status").to_pylist()))

    def index(self) -> dict[str, int]:
        """Consolidate the committed parts into runs/flows/links.parquet (atomically) when
        they changed since the last index; return the row count of each table."""
        stamp_path = self.root / ".index-stamp.json"
        # Only the current plan's runs: parts of an earlier mptlab version (other keys) stay
        # on disk but out of the views, so each point appears once.
        planned = {p["run_key"] for p in self.meta().get("points", [])}
        stamp = {
            p.stem: p.stat().st_mtime_ns
            for p in (self.root / PARTS / "runs").glob("*.parquet")
            if p.stem in planned
        }
        indexed = [self.root / f"{t}.parquet" for t in TABLES]
        if all(p.exists() for p in indexed) and _read_json(stamp_path) == stamp:
            return {t: pq.ParquetFile(p).metadata.num_rows for t, p in zip(TABLES, indexed)}
        counts: dict[str, int] = {}
        try:
            for t, path in zip(TABLES, indexed):
                table = self._consolidate(t, set(stamp))
                _write_parquet(path, table)
                counts[t] = table.num_rows
            write_text(stamp_path, json.dumps(stamp, sort_keys=True) + "\n")
        except OSError as e:
            raise StoreError(
                f"{self.root}: the store's index is out of date and cannot be rewritten "
                f"({e.strerror or e}); make the folder writable, or query a writable copy"
            ) from None
        return counts

    def connect(self) -> Any:
        """An in-memory DuckDB connection with the views runs, flows, links, timeseries."""
        import duckdb

        self.index()
        con = duckdb.connect()
        root = self.root.resolve()
        for t in TABLES:
            path = _sql_str(root / f"{t}.parquet")
            con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet({path})")
        con.execute(f"CREATE VIEW timeseries AS {self._timeseries_sql()}")
        return con

    def query(self, sql: str) -> Any:
        """Run SQL over the views; return the last statement's result as a pandas DataFrame.

        Read-only: only SELECT (including WITH, DESCRIBE, SUMMARIZE, SHOW) and EXPLAIN
        statements run, and DuckDB may touch no file outside the store (`COPY ... TO`,
        `read_csv('/etc/passwd')`, `ATTACH`, `INSTALL` are refused). Raises StoreError."""
        import duckdb

        try:
            statements = duckdb.extract_statements(sql)
        except duckdb.Error as e:
            raise StoreError(f"query: {str(e).splitlines()[0]}") from None
        if not statements:
            raise StoreError("query: the SQL is empty (give a SELECT statement over runs, flows, links or timeseries)")
        allowed = (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN)
        refused = [st.type.name for st in statements if st.type not in allowed]
        if refused:
            raise StoreError(f"query: only SELECT statements are run on a results store (got {refused[0]})")
        con = self.connect()
        try:
            # After the views exist: no file access beyond the store from here on, and no
            # way for the query to turn that back on.
            con.execute(f"SET allowed_directories = [{_sql_str(str(self.root.resolve()) + os.sep)}]")
            con.execute("SET enable_external_access = false")
            con.execute("SET lock_configuration = true")
            return con.execute(sql).df()
        finally:
            con.close()

    def load(self, timeseries: bool = True) -> SweepData:
        """Everything in memory as pandas DataFrames."""
        meta = self.meta()
        con = self.connect()
        try:
            frames = {t: con.execute(f"SELECT * FROM {t} ORDER BY point, seed").df() for t in TABLES}
            ts = con.execute("SELECT * FROM timeseries").df() if timeseries else None
        finally:
            con.close()
        return SweepData(
            name=meta.get("name", self.root.name),
            params=[c for c, _ in meta.get("columns", [])],
            runs=frames["runs"],
            flows=frames["flows"],
            links=frames["links"],
            timeseries=ts,
            meta=meta,
        )

    # --- internals -----------------------------------------------------------------------

    def _path(self, kind: str, key: str) -> Path:
        if kind == "summary":
            return self.root / SUMMARIES / f"{key}.json"
        if kind == "timeseries":
            return self.root / TIMESERIES / f"{key}.parquet"
        return self.root / PARTS / kind / f"{key}.parquet"

    def _consolidate(self, table: str, committed: set[str]) -> pa.Table:
        """All parts of `table` whose run is committed, as one table. DuckDB reads the
        folder in one pass; should any file be unreadable (atomic writes make that a disk
        error or a hand edit), fall back to reading file by file and skip the bad ones, so
        their runs are redone."""
        import duckdb

        folder = self.root / PARTS / table
        if not any(folder.glob("*.parquet")):
            return _concat([])
        glob = _sql_str(folder / "*.parquet")
        try:
            with duckdb.connect() as con:
                tbl = con.sql(
                    f"SELECT * FROM read_parquet({glob}, union_by_name = true, filename = true)"
                ).to_arrow_table()
        except duckdb.Error:
            return _concat([t for key, t in self._read_parts(table) if key in committed])
        stems = pa.array([Path(f).stem for f in tbl.column("filename").to_pylist()])
        keep = pa.compute.is_in(stems, value_set=pa.array(sorted(committed), pa.string()))
        tbl = tbl.drop_columns(["filename"]).filter(keep)
        # A stable row order, whatever order the files were read in.
        order = [c for c in ("run_key", "flow", "link") if c in tbl.column_names]
        return tbl.sort_by([(c, "ascending") for c in order])

    def _read_parts(self, table: str) -> Iterable[tuple[str, pa.Table]]:
        """(key, table) of each readable part; unreadable ones (which atomic writes should
        make impossible: a disk error, a hand edit) are skipped, so their run is redone."""
        for path in sorted((self.root / PARTS / table).glob("*.parquet")):
            try:
                yield path.stem, pq.read_table(path)
            except (OSError, pa.ArrowInvalid):
                continue

    def _timeseries_sql(self) -> str:
        params = [c for c, _ in self.meta().get("columns", [])]
        picked = ", ".join(["r.point", "r.seed", *(f'r."{p}"' for p in params)])
        files = list((self.root / TIMESERIES).glob("*.parquet"))
        if not files:  # no run succeeded (yet): an empty view with the usual columns
            return (
                "SELECT NULL::BIGINT AS point, NULL::BIGINT AS seed, NULL::VARCHAR AS run_key, "
                "NULL::VARCHAR AS series, NULL::VARCHAR AS entity, NULL::DOUBLE AS t_s, "
                "NULL::DOUBLE AS value WHERE false"
            )
        glob = _sql_str(self.root.resolve() / TIMESERIES / "*.parquet")
        return (
            f"SELECT {picked}, t.* FROM read_parquet({glob}) t "
            "JOIN runs r ON r.run_key = t.run_key AND r.status = 'ok'"
        )


def _concat(tables: list[pa.Table]) -> pa.Table:
    if not tables:
        return pa.table({c: pa.array([], pa.string()) for c in KEY_COLUMNS})
    # Runs may differ in columns (a failed run has no metrics; another point has other flow
    # groups): unify by name, widening types where needed.
    return pa.concat_tables(tables, promote_options="permissive")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_parquet(path: Path, table: pa.Table) -> None:
    atomic_write(path, lambda f: pq.write_table(table, f, compression="zstd"))


def _sql_str(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"
