"""Sweep plans: a base scenario plus axes, expanded into points (one run per point and seed).

A plan is a TOML file::

    name = "buffer-vs-cc"                 # optional, default: the file stem ("plan" for text)
    description = "..."                   # optional, free text
    base = "../scenarios/dumbbell.toml"   # a scenario file, relative to the plan file
    # or, instead of `base`, a [scenario] table holding a whole scenario
    seeds = [1, 2, 3]                     # or N meaning 1..N; default: one run, the scenario's seed

    [set]                                 # optional: fixed overrides applied to every point
    "run.duration" = "10s"

    [axes]                                # one axis per key; cross product in file order
    "flows.bulk.cc" = ["reno", "cubic", "bbr"]
    "links.bottleneck.queue.limit" = ["0.5bdp", "1bdp", "4bdp"]

    [[zip]]                               # lists of equal length advancing together: ONE axis
    "links.access_s1.delay" = ["1ms", "10ms"]
    "links.access_d1.delay" = ["1ms", "10ms"]

    [[random]]                            # a random point set: ONE axis of `count` points
    count = 40
    seed = 7                              # optional, default 0
    min_distance = 0.05                   # optional, see mptlab.sweeps.plan_random
    [random.keys]
    "links.bottleneck.delay" = { min = 5, max = 100, unit = "ms" }
    "flows.bulk.count" = { min = 1, max = 8, integer = true }     # also: log = true

    [names]                               # optional: result column name per key
    "flows.bulk.cc" = "cc"

Keys are scenario key paths, as for ``mptlab run --set``. Written quoted (``"flows.bulk.cc"``)
or as TOML dotted keys (``flows.bulk.cc``), they mean the same. Values are TOML values, so a
string is quoted (``"reno"``) and a table is an inline table (``{ kind = "codel" }``).

``[set]`` holds fixed overrides for every point, applied before the axes. A key there may also
be swept (the ``[set]`` value then only completes the base, for example
``"links.bottleneck.loss" = { model = "bernoulli", p = 0.01 }`` with an axis on
``links.bottleneck.loss.p``); a ``[set]`` key inside a swept table is an error, since the axis
would replace it. The ``overrides`` given to :func:`load_plan` (``mptlab sweep --set``) act as
extra ``[set]`` entries given last, but may not touch a swept key.

Column names (the results' parameter columns): from ``[names]``, else the last part of the key
(``cc``, ``limit``); keys whose last parts are the same, or one of :data:`RESERVED_COLUMNS`,
take the whole key with ``_`` for ``.`` (``links_access_s1_delay``).

Points are the cross product of the axes: the ``[axes]`` entries in file order, then the zip
groups, then the random sets (the first axis varies slowest), each point once per seed (seeds
innermost). Every point carries all its overrides in application order, fixed ones first, then
one per axis key: ``_core.check(plan.base_text, point.overrides, point.seed)`` is the run.

Validation happens in :func:`load_plan`, before anything runs, and stops at the first problem
with one :class:`PlanError` naming the key path in the plan file. The base scenario (with
``[set]``) must validate, and every single axis value must validate on the base on its own
(or together with at least one value of one other axis): a value that can never run is a
plan error. A combination of values that are valid on their own but not together is not: that
point becomes a failed run.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mptlab import _core

import tomllib
from mptlab._core import ScenarioError
from mptlab.source import Overrides, load, normalize_overrides
from mptlab.sweeps.plan_random import PlacementError, RandomKey, sample
from mptlab.sweeps.plan_render import dumps_document, plain_number, toml_value

__all__ = [
    "PlanError",
    "Point",
    "Plan",
    "Axis",
    "load_plan",
    "RESERVED_COLUMNS",
    "TOP_LEVEL_KEYS",
]

#: Columns of the results store; no axis column may take one of these names.
RESERVED_COLUMNS = (
    "run_key",
    "status",
    "error",
    "point",
    "seed",
    "wall_s",
    "started_at",
    "finished_at",
    "mptlab_version",
    "host",
)
#: The keys a plan file may have at its top level.
TOP_LEVEL_KEYS = ("name", "description", "base", "scenario", "set", "seeds", "axes", "zip", "random", "names")
RANDOM_KEYS = ("count", "seed", "min_distance", "keys")
RANDOM_KEY_FIELDS = ("min", "max", "unit", "integer", "log")
#: At most this many seeds from `seeds = N`.
MAX_SEEDS = 1_000_000
#: At most this many runs (points × seeds) in one plan, and points in one random set
#: (docs/sweeps.md "Limits"): a plan's points, the store's index and the progress all live in
#: memory (about 10 kB a run), and a million runs is weeks of a 2-core machine's time.
MAX_RUNS = 1_000_000


class PlanError(ValueError):
    """An invalid plan. ``str(e) == "key.path: reason (valid: a, b)"`` like ScenarioError; the
    key path is in the plan file (``axes.flows.bulk.cc``, ``zip[0]``, ``random[0].count``,
    ``seeds``)."""

    def __init__(self, key: str, reason: str, valid: Sequence[str] = ()) -> None:
        self.key = key
        self.reason = reason
        self.valid = tuple(valid)
        message = f"{key}: {reason}"
        if self.valid:
            message += f" (valid: {', '.join(self.valid)})"
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (PlanError, (self.key, self.reason, self.valid))


@dataclass(frozen=True)
class Point:
    """One point of the expansion, for one seed."""

    #: Position in the expansion, 0..n-1.
    index: int
    #: Column name -> the plan's value (the Python value as in TOML; floats or ints for random
    #: axes), in column order.
    params: dict[str, Any]
    #: (scenario key, value as TOML inline text), ready for ``_core``: ``[set]`` first, then
    #: the axes.
    overrides: tuple[tuple[str, str], ...]
    #: The run seed (None: the scenario's own).
    seed: int | None


@dataclass(frozen=True)
class Axis:
    """One axis of the product: a key of ``[axes]``, a zip group or a random set."""

    #: "list", "zip" or "random".
    kind: str
    #: Where it is in the plan file: ``axes.flows.bulk.cc``, ``zip[0]``, ``random[0]``.
    label: str
    #: Scenario keys it sets.
    keys: tuple[str, ...]
    #: One tuple per position on the axis, one value per key.
    values: tuple[tuple[Any, ...], ...]
    #: The same values as TOML inline text.
    texts: tuple[tuple[str, ...], ...]
    #: For random sets: count, seed, min_distance and ranges (key -> min, max, unit, integer,
    #: log).
    spec: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def size(self) -> int:
        return len(self.values)

    def key_label(self, key: str) -> str:
        """Where `key` of this axis is in the plan file."""
        if self.kind == "list":
            return self.label
        if self.kind == "zip":
            return f"{self.label}.{key}"
        return f"{self.label}.keys.{key}"

    def pairs(self, position: int) -> list[tuple[str, str]]:
        return list(zip(self.keys, self.texts[position]))


@dataclass(frozen=True)
class Plan:
    """A validated sweep plan."""

    name: str
    #: The plan file (None: given as text).
    path: Path | None
    #: The plan's own TOML text.
    text: str
    #: The scenario TOML text: read from `base`, or rendered from the inline [scenario] table.
    base_text: str
    #: The base scenario file (None: inline [scenario]).
    base_path: Path | None
    #: Column name -> scenario key, in axis order.
    columns: dict[str, str]
    #: The seeds of every point; (None,) means one run with the scenario's own seed.
    seeds: tuple[int | None, ...]
    description: str = ""
    #: Fixed overrides applied to every point, before the axes ([set], then load_plan's).
    fixed: tuple[tuple[str, str], ...] = ()
    axes: tuple[Axis, ...] = ()

    @property
    def n_points(self) -> int:
        """Points of the product (not counting seeds)."""
        return math.prod(a.size for a in self.axes)

    @property
    def n_runs(self) -> int:
        return self.n_points * len(self.seeds)

    def points(self) -> list[Point]:
        """Every (point, seed), deterministic: product over the axes in plan order (first axis
        slowest), seeds innermost."""
        column_of = {key: col for col, key in self.columns.items()}
        # A [set] key that is also swept only serves to validate the base: the axis wins.
        fixed = [(k, v) for k, v in self.fixed if k not in column_of]
        out: list[Point] = []
        for combo in itertools.product(*(range(a.size) for a in self.axes)):
            params: dict[str, Any] = {}
            overrides = list(fixed)
            for axis, j in zip(self.axes, combo):
                for key, value, text in zip(axis.keys, axis.values[j], axis.texts[j]):
                    params[column_of[key]] = value
                    overrides.append((key, text))
            frozen = tuple(overrides)
            for seed in self.seeds:
                out.append(Point(len(out), dict(params), frozen, seed))
        return out

    def describe(self) -> dict[str, Any]:
        """A JSON-able summary: name, base, axes (kind, keys, sizes), seeds, number of runs."""
        axes = []
        for axis in self.axes:
            entry: dict[str, Any] = {
                "kind": axis.kind,
                "label": axis.label,
                "keys": list(axis.keys),
                "columns": [c for k in axis.keys for c, key in self.columns.items() if key == k],
                "size": axis.size,
            }
            if axis.kind == "random":
                entry.update(_jsonable(dict(axis.spec or {})))
            else:
                entry["values"] = {
                    k: [_jsonable(v[i]) for v in axis.values] for i, k in enumerate(axis.keys)
                }
            axes.append(entry)
        return {
            "name": self.name,
            "path": str(self.path) if self.path else None,
            "description": self.description,
            "base": str(self.base_path) if self.base_path else "[scenario]",
            "set": {k: v for k, v in self.fixed},
            "axes": axes,
            "columns": dict(self.columns),
            "seeds": list(self.seeds),
            "points": self.n_points,
            "runs": self.n_runs,
        }


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return toml_value(value)


# ---------------------------------------------------------------------------------------------
# Loading


def load_plan(plan: str | os.PathLike[str] | Plan, overrides: Overrides = None) -> Plan:
    """Read and validate a plan given as a path or as TOML text (same rule as
    :func:`mptlab.source.load`).

    overrides: scenario overrides applied to every point (``["run.duration=5s"]``,
    ``{"run.duration": "5s"}`` or pairs), like extra ``[set]`` entries given last; one of the same
    key as a ``[set]`` entry replaces it.

    Raises :class:`PlanError` for an invalid plan (including a missing or invalid base
    scenario) and ``OSError`` when the plan file itself cannot be read.
    """
    if isinstance(plan, Plan):
        if not overrides:
            return plan
        return _build(plan.text, plan.path, overrides)
    try:
        src = load(plan)
    except UnicodeDecodeError as e:
        raise PlanError("<plan>", f"not UTF-8 text: {e}") from None
    return _build(src.text, src.path, overrides)


def _build(text: str, path: Path | None, overrides: Overrides) -> Plan:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PlanError("<plan>", f"TOML syntax error: {e}") from None

    for key in doc:
        if key not in TOP_LEVEL_KEYS:
            raise PlanError(key, "unknown key", TOP_LEVEL_KEYS)

    name = doc.get("name", path.stem if path is not None and path.stem else "plan")
    if not isinstance(name, str) or not name.strip():
        raise PlanError("name", "expected a non-empty string")
    if any(c in name for c in "/\\\0") or name in (".", ".."):
        raise PlanError("name", f"{name!r} cannot be a folder name (no / or \\)")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise PlanError("description", f"expected a string, got {_type(description)}")

    base_text, base_path = _base(doc, path)
    seeds = _seeds(doc)
    fixed, given = _fixed(doc, overrides, _tables_of(base_text))

    axes: list[Axis] = []
    axes.extend(_list_axes(doc))
    axes.extend(_zip_axes(doc))
    axes.extend(_random_axes(doc))
    _check_overlaps(axes, given)
    _check_size(axes, seeds)
    columns = _columns(doc, axes)

    _check_base(base_text, base_path, fixed, given)
    _check_axes(base_text, fixed, axes)

    return Plan(
        name=name,
        path=path,
        text=text,
        base_text=base_text,
        base_path=base_path,
        columns=columns,
        seeds=seeds,
        description=description,
        fixed=tuple(fixed),
        axes=tuple(axes),
    )


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _base(doc: dict[str, Any], path: Path | None) -> tuple[str, Path | None]:
    has_base, has_scenario = "base" in doc, "scenario" in doc
    if has_base and has_scenario:
        raise PlanError("base", "give either base or a [scenario] table, not both")
    if not has_base and not has_scenario:
        raise PlanError(
            "base", 'missing: give base = "path/to/scenario.toml" or a [scenario] table'
        )
    if has_scenario:
        table = doc["scenario"]
        if not isinstance(table, dict):
            raise PlanError("scenario", f"expected a table, got {_type(table)}")
        return dumps_document(table), None
    base = doc["base"]
    if not isinstance(base, str) or not base:
        raise PlanError("base", f"expected a path as a string, got {_type(base)}")
    folder = path.parent if path is not None else Path()
    base_path = Path(os.path.normpath(folder / base))
    try:
        base_text = base_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlanError("base", f"no such file: {base_path}") from None
    except OSError as e:
        raise PlanError("base", f"cannot read {base_path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise PlanError("base", f"{base_path} is not UTF-8 text: {e}") from None
    return base_text, base_path


def _seeds(doc: dict[str, Any]) -> tuple[int | None, ...]:
    if "seeds" not in doc:
        return (None,)
    seeds = doc["seeds"]
    if _is_int(seeds):
        if seeds < 1:
            raise PlanError("seeds", f"a number of seeds must be at least 1, got {seeds}")
        if seeds > MAX_SEEDS:
            raise PlanError("seeds", f"at most {MAX_SEEDS} seeds, got {seeds}")
        return tuple(range(1, seeds + 1))
    if not isinstance(seeds, list):
        raise PlanError(
            "seeds", f"expected a list of integers or a count N (1..N), got {_type(seeds)}"
        )
    if not seeds:
        raise PlanError("seeds", "empty list; leave seeds out for one run with the scenario's seed")
    seen: set[int] = set()
    for i, s in enumerate(seeds):
        if not _is_int(s):
            raise PlanError(f"seeds[{i}]", f"a seed is an integer, got {_type(s)} {s!r}")
        if not 0 <= s < 2**64:
            raise PlanError(f"seeds[{i}]", f"a seed is an integer in [0, 2^64), got {s}")
        if s in seen:
            raise PlanError(f"seeds[{i}]", f"seed {s} appears twice")
        seen.add(s)
    return tuple(seeds)


def _flatten(table: dict[str, Any], where: str, is_leaf=None) -> list[tuple[str, Any]]:
    """Dotted keys of a table: ``{"a": {"b": 1}, "c.d": 2}`` -> ``[("a.b", 1), ("c.d", 2)]``.
    A nested table is descended into unless is_leaf(key, table) says it is a value."""
    out: list[tuple[str, Any]] = []
    seen: set[str] = set()

    def walk(t: dict[str, Any], prefix: str) -> None:
        for k, v in t.items():
            key = f"{prefix}{k}"
            if isinstance(v, dict) and v and not (is_leaf and is_leaf(key, v)):
                walk(v, key + ".")
                continue
            if not k or any(not part.strip() for part in key.split(".")):
                raise PlanError(f"{where}.{key}" if where else key, "empty key segment")
            if key in seen:
                raise PlanError(f"{where}.{key}", "key given twice")
            seen.add(key)
            out.append((key, v))

    walk(table, "")
    return out


def _text(value: Any, where: str) -> str:
    try:
        return toml_value(value)
    except TypeError as e:
        raise PlanError(where, str(e)) from None


def _tables_of(base_text: str) -> set[str]:
    """The dotted keys of every table in the base scenario (empty if it is not TOML: the
    engine says why later)."""
    try:
        doc = tomllib.loads(base_text)
    except tomllib.TOMLDecodeError:
        return set()
    out: set[str] = set()

    def walk(t: dict[str, Any], prefix: str) -> None:
        for k, v in t.items():
            if isinstance(v, dict):
                out.add(prefix + k)
                walk(v, f"{prefix}{k}.")

    walk(doc, "")
    return out


def _fixed(
    doc: dict[str, Any], overrides: Overrides, base_tables: set[str]
) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """The fixed overrides ([set], then `overrides`), and where each key came from
    (``set.<key>`` or ``--set <key>``).

    A table in [set] is read as dotted keys (merged into the scenario) where the base has a
    table at that key, and as one inline-table value (replacing or creating it) where not:
    ``run = { duration = "5s" }`` keeps ``run.seed``, ``"flows.bulk.app" = { kind = "cbr", ...
    }`` replaces the string ``"bulk"``."""
    table = doc.get("set", {})
    if not isinstance(table, dict):
        raise PlanError("set", f"expected a table of key = value, got {_type(table)}")
    items = _flatten(table, "set", is_leaf=lambda key, _: key not in base_tables)
    fixed = [(k, _text(v, f"set.{k}")) for k, v in items]
    where = {k: f"set.{k}" for k, _ in fixed}
    try:
        extra = normalize_overrides(overrides)
    except (TypeError, ValueError) as e:
        raise PlanError("set", str(e)) from None
    for key, value in extra:
        for i, (k, _) in enumerate(fixed):
            if k == key:
                fixed[i] = (key, value)
                break
        else:
            fixed.append((key, value))
        where[key] = f"--set {key}"
    return fixed, where


def _value_list(values: Any, where: str) -> list[Any]:
    if not isinstance(values, list):
        raise PlanError(
            where, f"expected a list of values, got {_type(values)} (write [{_toml_value_safe(values)}])"
        )
    if not values:
        raise PlanError(where, "empty list of values")
    return values


def _toml_value_safe(value: Any) -> str:
    try:
        return toml_value(value)
    except TypeError:
        return repr(value)


def _dedupe_check(texts: list[tuple[str, ...]], where: str) -> None:
    seen: dict[tuple[str, ...], int] = {}
    for i, t in enumerate(texts):
        if t in seen:
            shown = ", ".join(t)
            raise PlanError(where, f"value {shown} appears twice (positions {seen[t]} and {i})")
        seen[t] = i


def _check_size(axes: list[Axis], seeds: tuple[int | None, ...]) -> None:
    """Refuse a plan of more than `MAX_RUNS` runs, naming its largest axis (or the seeds)."""
    runs = math.prod(a.size for a in axes) * len(seeds)
    if runs <= MAX_RUNS:
        return
    largest = max(axes, key=lambda a: a.size, default=None)
    key = "seeds" if largest is None or len(seeds) >= largest.size else largest.label
    sizes = " × ".join(str(a.size) for a in axes) or "1"
    raise PlanError(
        key,
        f"{sizes} points × {len(seeds)} seeds = {runs} runs, above the limit of {MAX_RUNS} runs "
        "per plan (split it into several plans)",
    )


def _list_axes(doc: dict[str, Any]) -> list[Axis]:
    table = doc.get("axes", {})
    if not isinstance(table, dict):
        raise PlanError("axes", f"expected a table of key = [values], got {_type(table)}")
    axes = []
    for key, values in _flatten(table, "axes"):
        where = f"axes.{key}"
        values = _value_list(values, where)
        texts = [(_text(v, f"{where}[{i}]"),) for i, v in enumerate(values)]
        _dedupe_check(texts, where)
        axes.append(Axis("list", where, (key,), tuple((v,) for v in values), tuple(texts)))
    return axes


def _tables(doc: dict[str, Any], name: str) -> list[dict[str, Any]]:
    groups = doc.get(name, [])
    if isinstance(groups, dict):
        raise PlanError(name, f"expected an array of tables: write [[{name}]], not [{name}]")
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise PlanError(name, f"expected an array of tables ([[{name}]])")
    return groups


def _zip_axes(doc: dict[str, Any]) -> list[Axis]:
    axes = []
    for g, group in enumerate(_tables(doc, "zip")):
        label = f"zip[{g}]"
        items = _flatten(group, label)
        if not items:
            raise PlanError(label, "empty zip group: give two or more key = [values]")
        lists = [(key, _value_list(values, f"{label}.{key}")) for key, values in items]
        lengths = {len(v) for _, v in lists}
        if len(lengths) > 1:
            shown = ", ".join(f"{k}: {len(v)}" for k, v in lists)
            raise PlanError(label, f"lists of unequal lengths ({shown}); zipped lists advance together")
        keys = tuple(k for k, _ in lists)
        n = lengths.pop()
        values = tuple(tuple(v[i] for _, v in lists) for i in range(n))
        texts = [
            tuple(_text(v[i], f"{label}.{k}[{i}]") for k, v in lists) for i in range(n)
        ]
        _dedupe_check(texts, label)
        axes.append(Axis("zip", label, keys, values, tuple(texts)))
    return axes


def _random_key(spec: Any, key: str, where: str) -> RandomKey:
    if not isinstance(spec, dict):
        raise PlanError(
            where, f"expected a table {{ min = ..., max = ... }}, got {_type(spec)}"
        )
    for f in spec:
        if f not in RANDOM_KEY_FIELDS:
            raise PlanError(f"{where}.{f}", "unknown field", RANDOM_KEY_FIELDS)
    for f in ("min", "max"):
        if f not in spec:
            raise PlanError(f"{where}.{f}", "missing (a random key needs min and max)")
        if not _is_number(spec[f]) or not math.isfinite(spec[f]):
            raise PlanError(f"{where}.{f}", f"expected a finite number, got {_type(spec[f])}")
    lo, hi = spec["min"], spec["max"]
    if lo >= hi:
        raise PlanError(where, f"min ({lo}) must be less than max ({hi})")
    unit = spec.get("unit")
    if unit is not None and (not isinstance(unit, str) or not unit or unit.strip() != unit):
        raise PlanError(f"{where}.unit", f'expected a unit as a string such as "ms", got {unit!r}')
    for f in ("integer", "log"):
        if f in spec and not isinstance(spec[f], bool):
            raise PlanError(f"{where}.{f}", f"expected true or false, got {_type(spec[f])}")
    integer, log = spec.get("integer", False), spec.get("log", False)
    if log and lo <= 0:
        raise PlanError(f"{where}.min", f"log = true needs min > 0, got {lo}")
    if integer and math.ceil(lo) > math.floor(hi):
        raise PlanError(where, f"no integer between min ({lo}) and max ({hi})")
    return RandomKey(key, lo, hi, unit, integer, log)


def _random_text(k: RandomKey, value: int | float) -> str:
    if k.unit is not None:
        return toml_value(f"{plain_number(value)}{k.unit}")
    return toml_value(value)


def _random_axes(doc: dict[str, Any]) -> list[Axis]:
    axes = []
    for g, table in enumerate(_tables(doc, "random")):
        label = f"random[{g}]"
        for f in table:
            if f not in RANDOM_KEYS:
                raise PlanError(f"{label}.{f}", "unknown key", RANDOM_KEYS)
        if "count" not in table:
            raise PlanError(f"{label}.count", "missing: how many points to draw")
        count = table["count"]
        if not _is_int(count) or count < 1:
            raise PlanError(f"{label}.count", f"expected an integer >= 1, got {count!r}")
        if count > MAX_RUNS:
            raise PlanError(f"{label}.count", f"{count} points, above the limit of {MAX_RUNS} runs per plan")
        seed = table.get("seed", 0)
        if not _is_int(seed) or not 0 <= seed < 2**64:
            raise PlanError(f"{label}.seed", f"expected an integer >= 0, got {seed!r}")
        min_distance = table.get("min_distance")
        if min_distance is not None and (
            not _is_number(min_distance) or not math.isfinite(min_distance) or min_distance <= 0
        ):
            raise PlanError(
                f"{label}.min_distance", f"expected a number > 0, got {min_distance!r}"
            )
        keys_table = table.get("keys")
        if keys_table is None:
            raise PlanError(f"{label}.keys", "missing: the keys to draw ([random.keys])")
        if not isinstance(keys_table, dict):
            raise PlanError(f"{label}.keys", f"expected a table, got {_type(keys_table)}")
        items = _flatten(
            keys_table, f"{label}.keys", is_leaf=lambda _, t: any(f in t for f in RANDOM_KEY_FIELDS)
        )
        if not items:
            raise PlanError(f"{label}.keys", "no keys to draw")
        keys = [_random_key(spec, key, f"{label}.keys.{key}") for key, spec in items]
        try:
            values = sample(keys, count, seed, min_distance)
        except PlacementError as e:
            raise PlanError(
                f"{label}.min_distance",
                f"could only place {e.placed} of {e.count} points; lower min_distance or count",
            ) from None
        texts = tuple(tuple(_random_text(k, v) for k, v in zip(keys, row)) for row in values)
        spec = {
            "count": count,
            "seed": seed,
            "min_distance": min_distance,
            "ranges": {
                k.key: {
                    "min": k.min,
                    "max": k.max,
                    "unit": k.unit,
                    "integer": k.integer,
                    "log": k.log,
                }
                for k in keys
            },
        }
        axes.append(
            Axis("random", label, tuple(k.key for k in keys), tuple(values), texts, spec)
        )
    return axes


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def _check_overlaps(axes: list[Axis], given: dict[str, str]) -> None:
    """No key in two axes (nor a key and a table holding it); no `load_plan` override of a
    swept key. A [set] key may be swept too: [set] comes first, the axis wins."""
    seen: list[tuple[str, str]] = []  # (key, where)
    for axis in axes:
        for key in axis.keys:
            where = axis.key_label(key)
            for other, other_where in seen:
                if key == other:
                    raise PlanError(where, f"{key} is already an axis ({other_where})")
                if _overlap(key, other):
                    raise PlanError(
                        where,
                        f"{key} overlaps the axis {other_where}; sweep one of them only",
                    )
            seen.append((key, where))
    for key, origin in given.items():
        for other, other_where in seen:
            if origin.startswith("--set") and _overlap(key, other):
                raise PlanError(
                    origin,
                    f"{key} is swept ({other_where}); an override cannot fix a swept key",
                )
            if key.startswith(other + "."):
                raise PlanError(
                    origin,
                    f"{key} is inside the swept {other} ({other_where}), which replaces it",
                )


def _columns(doc: dict[str, Any], axes: list[Axis]) -> dict[str, str]:
    keys = [k for axis in axes for k in axis.keys]
    table = doc.get("names", {})
    if not isinstance(table, dict):
        raise PlanError("names", f"expected a table of key = \"column\", got {_type(table)}")
    chosen: dict[str, str] = {}
    by_name: dict[str, str] = {}
    for key, col in _flatten(table, "names"):
        where = f"names.{key}"
        if key not in keys:
            raise PlanError(where, "not an axis key", keys)
        if not isinstance(col, str) or not col.strip():
            raise PlanError(where, f"expected a column name as a non-empty string, got {col!r}")
        if col in RESERVED_COLUMNS:
            raise PlanError(where, f"column name `{col}` is reserved for the results store", RESERVED_COLUMNS)
        if col in by_name:
            raise PlanError(where, f"column name `{col}` is already used by {by_name[col]}")
        chosen[key] = col
        by_name[col] = key
    auto = {k: k.rsplit(".", 1)[-1] for k in keys if k not in chosen}
    wanted = list(chosen.values()) + list(auto.values())
    for key, col in auto.items():
        if col in RESERVED_COLUMNS or wanted.count(col) > 1:
            auto[key] = key.replace(".", "_")
    columns: dict[str, str] = {}
    for key in keys:
        col = chosen.get(key) or auto[key]
        if col in columns or (key in auto and col in RESERVED_COLUMNS):
            other = columns.get(col, col)
            raise PlanError(
                f"names.{key}",
                f"the column name `{col}` for {key} is already used by {other}; name it in [names]",
            )
        columns[col] = key
    return columns


# ---------------------------------------------------------------------------------------------
# Checks against the engine


def _split(error: ScenarioError) -> tuple[str, str]:
    """``"links.x.rate: bad (valid: a)"`` -> ``("links.x.rate", "bad (valid: a)")``."""
    key, sep, reason = str(error).partition(": ")
    return (key, reason) if sep else ("", str(error))


def _engine_error(key: str, reason: str) -> PlanError:
    """A PlanError at `key` for an engine reason, its ``(valid: ...)`` tail as ``valid``."""
    head, sep, tail = reason.rpartition(" (valid: ")
    if sep and tail.endswith(")") and "(" not in tail:
        return PlanError(key, head, [v.strip() for v in tail[:-1].split(",")])
    return PlanError(key, reason)


def _check(text: str, overrides: list[tuple[str, str]]) -> ScenarioError | None:
    try:
        _core.check(text, overrides, None)
    except ScenarioError as e:
        return e
    return None


def _check_base(
    base_text: str, base_path: Path | None, fixed: list[tuple[str, str]], given: dict[str, str]
) -> None:
    """The base scenario with the fixed overrides must validate (the base alone need not: [set]
    may complete a template)."""
    error = _check(base_text, fixed)
    if error is None:
        return
    key, reason = _split(error)
    for k, _ in reversed(fixed):
        if key == k or key.startswith(k + "."):
            raise _engine_error(f"{given[k]}{key[len(k):]}", reason)
    if fixed and _check(base_text, []) is None:
        raise PlanError("set", f"the scenario with [set] is invalid: {error}")
    if base_path is not None:
        raise PlanError("base", f"{base_path} is not a valid scenario: {error}")
    raise _engine_error("scenario" if key in ("", "<file>") else f"scenario.{key}", reason)


def _check_axes(base_text: str, fixed: list[tuple[str, str]], axes: list[Axis]) -> None:
    """Every axis position must validate on the base (with [set]) on its own, or with one
    position of one other axis."""
    for axis in axes:
        for j in range(axis.size):
            error = _check(base_text, fixed + axis.pairs(j))
            if error is None or _rescued(base_text, fixed, axes, axis, j):
                continue
            # The same error for every position is an error of the key, not of one value.
            whole = all(
                str(_check(base_text, fixed + axis.pairs(i))) == str(error) for i in range(axis.size)
            )
            raise _axis_error(axis, None if whole else j, error)


def _rescued(
    base_text: str, fixed: list[tuple[str, str]], axes: list[Axis], axis: Axis, j: int
) -> bool:
    for other in axes:
        if other is axis:
            continue
        for w in range(other.size):
            if _check(base_text, fixed + axis.pairs(j) + other.pairs(w)) is None:
                return True
    return False


def _axis_error(axis: Axis, j: int | None, error: ScenarioError) -> PlanError:
    """The plan error for the engine's `error` at position j of `axis` (None: at every
    position)."""
    key, reason = _split(error)
    at = "" if j is None else f"[{j}]"
    for k in axis.keys:
        if key == k or key.startswith(k + "."):
            rest = key[len(k):]
            if axis.kind == "list":
                return _engine_error(f"{axis.label}{at}{rest}", reason)
            if axis.kind == "zip":
                return _engine_error(f"{axis.label}.{k}{at}{rest}", reason)
            if j is None:
                return _engine_error(f"{axis.key_label(k)}{rest}", reason)
            value = axis.texts[j][axis.keys.index(k)]
            return _engine_error(f"{axis.key_label(k)}{rest}", f"point {j} ({value}): {reason}")
        if k.startswith(key + "."):
            # The engine stopped at a table above the key (`nope: unknown key`).
            return _engine_error(axis.key_label(k), f"{key}: {reason}")
    shown = ", ".join(f"{k} = {t}" for k, t in axis.pairs(j if j is not None else 0))
    if j is None:
        return PlanError(axis.label, f"every value makes the scenario invalid, e.g. {shown}: {error}")
    return PlanError(f"{axis.label}[{j}]", f"{shown} makes the scenario invalid: {error}")
