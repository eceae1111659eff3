"""What to draw, checked: the frame narrowed to the rows that count, the column roles
(x, y, hue, facet) and each kind's options with their defaults.

Every mistake raises ValueError("<option>: <reason> (valid: <choices>)"), naming the option as
the command line spells it, so `mptlab plot` can print it and exit with status 2.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mptlab.figures.labels import format_value, natural_sorted

#: Columns of the long-format time-series table.
LONG_COLUMNS = ("series", "entity", "t_s", "value")
#: Columns that identify a run or a flow rather than measure something.
ID_COLUMNS = ("run_key", "status", "error", "point", "seed", "series", "entity", "flow", "link",
              "group", "protocol", "cc")
#: How many valid choices an error message lists before "...".
MAX_LISTED = 40


@dataclass(frozen=True)
class Option:
    """One kind-specific option: its default and a checker that returns the cleaned value or
    raises ValueError with the reason (the option name is added by `check_options`)."""

    default: Any
    check: Callable[[Any], Any]
    doc: str = ""


@dataclass
class Spec:
    kind: str
    frame: pd.DataFrame
    y: str
    x: str | None = None
    hue: str | None = None
    facet: str | None = None
    title: str | None = None
    opts: dict[str, Any] = field(default_factory=dict)
    x_order: list[Any] = field(default_factory=list)
    hue_order: list[Any] = field(default_factory=list)
    facet_order: list[Any] = field(default_factory=list)

    def label_overrides(self) -> dict[str, str]:
        labels = dict(self.opts.get("labels") or {})
        return labels


def fail(option: str, reason: str, valid: Sequence[Any] | None = None) -> ValueError:
    """The ValueError for a bad option: "<option>: <reason> (valid: a, b, c)"."""
    text = f"{option}: {reason}"
    if valid is not None:
        items = [format_value(v) for v in valid]
        shown = ", ".join(items[:MAX_LISTED]) + (", ..." if len(items) > MAX_LISTED else "")
        text += f" (valid: {shown or 'none'})"
    return ValueError(text)


def choice(*choices: Any) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value not in choices:
            raise fail("", f"unknown value {value!r}", choices)
        return value

    return check


def boolean_or_none(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise fail("", f"expected true or false, got {value!r}", ["true", "false"])


def boolean(value: Any) -> bool:
    checked = boolean_or_none(value)
    if checked is None:
        raise fail("", "expected true or false, got None", ["true", "false"])
    return checked


def number_or_none(value: Any) -> float | None:
    if value is None:
        return None
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise fail("", f"expected a number, got {value!r}") from None
    if not np.isfinite(f):
        raise fail("", f"expected a finite number, got {value!r}")
    return f


def positive_int(value: Any) -> int:
    try:
        i = int(value)
    except (TypeError, ValueError):
        raise fail("", f"expected a positive integer, got {value!r}") from None
    if i < 1 or i != float(value):
        raise fail("", f"expected a positive integer, got {value!r}")
    return i


def numbers(value: Any) -> list[float]:
    """A number, a list of numbers, or "0.5,0.9" (as a command line gives it)."""
    if value is None:
        return []
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    elif not isinstance(value, (list, tuple, np.ndarray)):
        value = [value]
    out = []
    for v in value:
        f = number_or_none(v)
        if f is not None:
            out.append(f)
    return sorted(out)


def text_list_or_none(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def width(value: Any) -> str | float | None:
    if value is None or value in ("single", "double"):
        return value
    try:
        f = number_or_none(value)
    except ValueError:
        f = None
    if f is None or f <= 0 or f > 20:
        raise fail("", f"expected single, double or inches in (0, 20], got {value!r}",
                   ["single", "double"])
    return f


def positive_number_or_none(value: Any) -> float | None:
    f = number_or_none(value)
    if f is not None and f <= 0:
        raise fail("", f"expected a positive number, got {value!r}")
    return f


def text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def labels_dict(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise fail("", f"expected a mapping of column to label, got {type(value).__name__}")
    return {str(k): str(v) for k, v in value.items()}


#: Options every kind takes.
COMMON: dict[str, Option] = {
    "width": Option(None, width, 'figure width: "single" (3.5 in), "double" (7 in) or inches'),
    "height": Option(None, positive_number_or_none, "figure height in inches"),
    "cols": Option(None, lambda v: None if v is None else positive_int(v), "facet panels per row"),
    "labels": Option(None, labels_dict, "axis/legend label per column name"),
    "xlabel": Option(None, text_or_none, "x axis label"),
    "ylabel": Option(None, text_or_none, "y axis label"),
    "order": Option(None, text_list_or_none, "x category order"),
    "hue_order": Option(None, text_list_or_none, "hue category order"),
    "facet_order": Option(None, text_list_or_none, "facet panel order"),
    "legend": Option(True, boolean, "draw a legend for hue"),
}


def check_options(kind: str, given: dict[str, Any], specific: dict[str, Option]) -> dict[str, Any]:
    """Defaults filled in, values checked; unknown names rejected."""
    known = {**COMMON, **specific}
    out: dict[str, Any] = {}
    for name, value in given.items():
        if name not in known:
            raise fail(name, f"unknown option for kind {kind!r}", sorted(known))
        try:
            out[name] = known[name].check(value)
        except ValueError as e:
            reason = str(e).removeprefix(": ")
            raise ValueError(f"{name}: {reason}") from None
    for name, opt in known.items():
        out.setdefault(name, opt.default)
    return out


def require_column(frame: pd.DataFrame, option: str, column: str | None, *, numeric: bool = False) -> None:
    if column is None:
        return
    if column not in frame.columns:
        valid = numeric_columns(frame) if numeric else list(frame.columns)
        raise fail(option, f"no column {column!r}", valid)
    if numeric and not pd.api.types.is_numeric_dtype(frame[column]):
        raise fail(option, f"column {column!r} is not numeric", numeric_columns(frame))


def numeric_columns(frame: pd.DataFrame) -> list[str]:
    """Columns that can be a measured value (identifiers such as seed and point left out)."""
    return [c for c in frame.columns if c not in ID_COLUMNS and pd.api.types.is_numeric_dtype(frame[c])
            and not pd.api.types.is_bool_dtype(frame[c])]


def select_series(frame: pd.DataFrame, y: str, series: str | None) -> tuple[pd.DataFrame, str]:
    """A long-format time-series frame narrowed to one series, whose `value` column is renamed
    to the series name (so labels and units follow it). `series` names it; without it, a `y`
    that is not a column but a series name selects that series."""
    if not set(LONG_COLUMNS) <= set(frame.columns):
        if series is not None:
            raise fail("series", "only a time-series table (columns series, entity, t_s, value) has series")
        return frame, y
    names = natural_sorted(frame["series"].unique())
    if series is None:
        if y in names and y not in frame.columns:
            series = y
        elif y == "value" and len(names) == 1:
            series = names[0]
        elif y == "value":
            raise fail("series", "the table holds several series; choose one", names)
        else:
            return frame, y
    if series not in names:
        raise fail("series", f"no series {series!r}", names)
    part = frame[frame["series"] == series].drop(columns=["series"])
    if series in part.columns:
        part = part.drop(columns=[series])
    part = part.rename(columns={"value": series})
    return part, (series if y in ("value", series) else y)


def ok_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of failed runs carry no metrics: keep status 'ok' where the frame has a status."""
    if "status" in frame.columns:
        return frame[frame["status"].astype(str) == "ok"]
    return frame


def category_order(frame: pd.DataFrame, column: str | None, option: str, given: list[str] | None) -> list[Any]:
    """The values of `column` in natural order, or in the `given` order (matched by their text,
    so "0.5" from a command line finds the float 0.5); every given value must occur."""
    if column is None:
        return []
    present = natural_sorted(frame[column].unique())
    if not given:
        return present
    by_text = {format_value(v): v for v in present}
    by_text.update({str(v): v for v in present})
    out = []
    for g in given:
        if g not in by_text:
            raise fail(option, f"no value {g!r} in column {column!r}", present)
        out.append(by_text[g])
    return out
