"""`draw`: one entry point for every figure kind, with its arguments checked.

    draw("bar", runs, x="cc", y="goodput_mbps", hue="buffer")
    draw("distribution", timeseries, x="cc", y="goodput_mbps")       # interval samples
    draw("timeseries", timeseries, y="goodput_mbps", facet="cc")
    draw("cdf", flows, y="owd_ms", hue="cc")
    draw("heatmap", runs, x="rtt", y="tunnel_share", z="goodput_mbps", levels=[0.5])
    draw("contour", runs, x="rtt_ms", y="share", z="goodput_mbps")

Roles: `y` is the measured value (for heatmap and contour: the vertical axis, with the value
in option `z`); `x` groups (distribution, bar) or is the time axis (timeseries, default t_s);
`hue` colours groups; `facet` makes one panel per value. On a long time-series table
(series, entity, t_s, value), `y` (or option `series`) names the series to use.
Rows of failed runs (status other than 'ok') are left out.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from mptlab.figures import bars, cdf, contour, distribution, style, timeseries
from mptlab.figures.spec import (
    Option,
    Spec,
    category_order,
    check_options,
    fail,
    numeric_columns,
    ok_runs,
    require_column,
    select_series,
)

KINDS = ("timeseries", "distribution", "bar", "cdf", "heatmap", "contour")

_OPTIONS: dict[str, dict[str, Option]] = {
    "timeseries": timeseries.OPTIONS,
    "distribution": distribution.OPTIONS,
    "bar": bars.OPTIONS,
    "cdf": cdf.OPTIONS,
    "heatmap": contour.HEATMAP_OPTIONS,
    "contour": contour.CONTOUR_OPTIONS,
}
#: Roles a kind does not use (passing one is an error rather than silently ignored).
_UNUSED = {
    "cdf": {"x": "the value goes in y; group with hue"},
    "heatmap": {"hue": "the colour shows z"},
    "contour": {"hue": "the colour shows z"},
}


def options(kind: str) -> dict[str, Option]:
    """The options `kind` takes beyond x, y, hue, facet and title (with defaults and docs)."""
    _check_kind(kind)
    from mptlab.figures.spec import COMMON

    return {**COMMON, **_OPTIONS[kind]}


def draw(
    kind: str,
    frame: pd.DataFrame,
    *,
    x: str | None = None,
    y: str,
    hue: str | None = None,
    facet: str | None = None,
    title: str | None = None,
    **opts: Any,
) -> Figure:
    """Draw one figure of `kind` from `frame`. Raises ValueError("<option>: <reason> (valid:
    ...)") for any bad argument; nothing is drawn then."""
    _check_kind(kind)
    if not isinstance(frame, pd.DataFrame):
        raise fail("frame", f"expected a pandas DataFrame, got {type(frame).__name__}")
    series = opts.pop("series", None)
    for role, given in (("x", x), ("hue", hue), ("facet", facet)):
        if given is not None and role in _UNUSED.get(kind, {}):
            raise fail(role, f"not used by kind {kind!r} ({_UNUSED[kind][role]})")
    frame, y = select_series(frame, y, series)
    frame = ok_runs(frame)
    checked = check_options(kind, opts, _OPTIONS[kind])

    if kind == "timeseries":
        x = x or "t_s"
        if hue is None and "entity" in frame.columns:
            hue = "entity"
    z = checked.get("z")
    if kind in ("heatmap", "contour"):
        if x is None:
            raise fail("x", f"kind {kind!r} needs x (the horizontal axis)", list(frame.columns))
        if z is None:
            raise fail("z", f"kind {kind!r} needs z (the column shown as colour)", numeric_columns(frame))
        if x == y:
            raise fail("y", f"the vertical axis must differ from x ({x!r})", [c for c in frame.columns if c != x])
        require_column(frame, "x", x)
        require_column(frame, "y", y)
        require_column(frame, "z", z, numeric=True)
        value = z
    else:
        require_column(frame, "x", x, numeric=(kind == "timeseries"))
        require_column(frame, "y", y, numeric=True)
        value = y
    require_column(frame, "hue", hue)
    require_column(frame, "facet", facet)
    for role, col in (("hue", hue), ("facet", facet)):
        if col is not None and col in (x, y, z):
            raise fail(role, f"column {col!r} already plays another role")

    frame = frame[frame[value].notna()]
    if frame.empty:
        raise fail("y" if value == y else "z", f"column {value!r} has no values in the selected rows")
    if kind == "contour":
        for role, col in (("x", x), ("y", y)):
            assert col is not None
            numeric = pd.to_numeric(frame[col], errors="coerce")
            if numeric.isna().any():
                raise fail(role, f"kind 'contour' needs numeric values, column {col!r} holds text; use kind 'heatmap'")
            frame = frame.assign(**{col: numeric})

    spec = Spec(kind=kind, frame=frame, x=x, y=y, hue=hue, facet=facet, title=title, opts=checked)
    if kind != "timeseries":
        spec.x_order = category_order(frame, x, "order", checked["order"])
    spec.hue_order = category_order(frame, hue, "hue_order", checked["hue_order"])
    spec.facet_order = category_order(frame, facet, "facet_order", checked["facet_order"])
    spec.frame = _restrict(spec)
    if spec.frame.empty:
        raise fail("order", "no rows left after applying order, hue_order and facet_order")
    with style.publication_style():
        if kind == "timeseries":
            return timeseries.draw(spec)
        if kind == "distribution":
            return distribution.draw(spec)
        if kind == "bar":
            return bars.draw(spec)
        if kind == "cdf":
            return cdf.draw(spec)
        if kind == "heatmap":
            return contour.draw_heatmap(spec, category_order(frame, y, "order", None))
        return contour.draw_contour(spec)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise fail("kind", f"unknown kind {kind!r}", KINDS)


def _restrict(spec: Spec) -> pd.DataFrame:
    """Rows whose category values are in the (possibly user-given) orders."""
    frame = spec.frame
    for col, order in ((spec.x, spec.x_order), (spec.hue, spec.hue_order), (spec.facet, spec.facet_order)):
        if col is not None and order:
            frame = frame[frame[col].isin(order)]
    return frame
